"""The loss-network sweeps computed ahead of their steps
(qtheory.report.lossnet_decomposition_sweep.start_in_background): the reference is the
same sweep run in the foreground, in another cache folder, so a background run that
changed a task, a seed or a stored result would show as a difference; and a stopped
background process leaves the sweep to compute everything itself."""

from __future__ import annotations

from pathlib import Path

import pytest

from qtheory.report.lossnet_decomposition_sweep import (
    PARAMETER_SETS,
    Plan,
    start_in_background,
    stop_background,
    sweep,
)
from qtheory.report.run import Run

#: Three clock points of one set, one lookahead constant: a few seconds of work in all.
SMALL = Plan(
    clock={"A": ((10, 6.0, 2), (20, 6.0, 2), (40, 6.0, 2))},
    job=(),
    cs=(1.0,),
    warmup=1.0,
    min_fit_servers=10,
    sets=PARAMETER_SETS[:1],
    regret_top=100,
    desc="small sweep",
)
#: Replications of SMALL: 3 points of 2 replications, one task each.
TASKS = 6


def stored(folder: Path) -> int:
    """The results a cache folder holds (its secret aside)."""
    return sum(1 for _ in folder.rglob("*.json"))


def foreground(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("QTHEORY_CACHE_DIR", str(tmp_path / "foreground"))
    return repr(sweep(Run(tmp_path / "out"), SMALL, progress=False))


def test_a_sweep_computed_in_the_background_is_the_foreground_sweep(tmp_path, monkeypatch):
    expected = foreground(tmp_path, monkeypatch)
    folder = tmp_path / "background"
    monkeypatch.setenv("QTHEORY_CACHE_DIR", str(folder))
    run = Run(tmp_path / "out")
    start_in_background(run, [SMALL])
    process, progress = run.pending[SMALL.desc]
    assert progress.stored.wait(120), "the background process did not store the sweep"
    assert stored(folder) == TASKS
    # every replication's cost was reported as finished
    assert progress.total.value > 0
    assert progress.finished.value == pytest.approx(progress.total.value, rel=1e-12)
    got = repr(sweep(run, SMALL, progress=False))
    assert got == expected
    assert stored(folder) == TASKS  # the foreground sweep computed nothing more
    assert run.pending == {}
    process.join(30)
    assert process.exitcode == 0
    stop_background(run)


def test_a_stopped_background_leaves_the_sweep_to_the_step(tmp_path, monkeypatch):
    expected = foreground(tmp_path, monkeypatch)
    monkeypatch.setenv("QTHEORY_CACHE_DIR", str(tmp_path / "background"))
    run = Run(tmp_path / "out")
    start_in_background(run, [SMALL])
    process, _ = run.pending[SMALL.desc]
    stop_background(run)
    assert run.pending == {} and not process.is_alive()
    assert repr(sweep(run, SMALL, progress=False)) == expected


def test_nothing_starts_for_a_run_on_a_cluster(tmp_path):
    run = Run(tmp_path / "out", cluster="tcp://localhost:8786")
    start_in_background(run, [SMALL])
    assert run.pending == {}


def test_nothing_starts_without_a_writable_cache(tmp_path, monkeypatch):
    """A cache folder below a file cannot be made: the background would hand nothing
    over, so the sweeps are left to their steps."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("QTHEORY_CACHE_DIR", str(blocker / "cache"))
    run = Run(tmp_path / "out")
    start_in_background(run, [SMALL])
    assert run.pending == {}
