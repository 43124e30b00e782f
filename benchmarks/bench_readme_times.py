"""Every time the README states, measured: run this after a change that could move them.

    python benchmarks/bench_readme_times.py

Measures, in one run on one machine:

(a) ``qtheory reproduce --quick`` into a temporary directory, with an empty result cache
    (``QTHEORY_CACHE_DIR`` pointed at a fresh temporary directory): wall time;
(b) time to first number of ``qtheory gated ... --json`` and of
    ``qtheory lossnet online ... --json`` (the README's examples, and issue 12's gated
    example without ``--gate``): wall time from starting the process to the first byte
    it prints, best of 5, and as a ratio to the baseline
    ``python -c "import numpy, scipy.optimize, mpmath"`` measured the same way in the same
    run (the ratio is what carries over to another machine: most of a command's start-up
    is importing the scientific stack; issue 12 asks for at most 1.5);
(c) ``qtheory --help`` and each subcommand's ``--help``, the same way, as ratios to
    ``python -c "import numpy"``;
(d) ``online_optimum`` at N = 10^7 in process (best of 3), and its O(N) table route
(best of 1) with the ratio of the two.

The commands of (b) and (c) and their baselines are timed in turns (one of each, five
rounds), so that a burst of load from other jobs on a shared machine hits them alike.

It prints a small table and writes ``benchmarks/readme_times.json``: the raw seconds,
the machine (CPUs, Python, commit) and, under ``"readme"``, the rounded strings the
README quotes; ``tests/test_docs.py`` checks that each of them appears in README.md, so
a rerun that moves a number fails that test until the README is updated.

The full default ``qtheory reproduce`` (empty cache) is not measured here: it takes tens
of minutes on two cores, dominated by the decomposition sweep.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from timing import best_of

from qtheory.lossnet import LossNetwork, online_optimum

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = Path(__file__).resolve().parent / "readme_times.json"
QTHEORY = str(Path(sys.executable).parent / "qtheory")

BASELINE = [sys.executable, "-c", "import numpy, scipy.optimize, mpmath; print(1)"]
HELP_BASELINE = [sys.executable, "-c", "import numpy; print(1)"]
GATED = [QTHEORY, "gated", "--arrival-rate", "inf", "--service-rate", "1", "--reward", "3",
         "--cost", "1", "--gate", "2", "--json"]  # fmt: skip
GATED_ISSUE = [QTHEORY, "gated", "--arrival-rate", "inf", "--service-rate", "1", "--reward",
               "2", "--cost", "1", "--json"]  # fmt: skip
LOSSNET = [QTHEORY, "lossnet", "online", "--servers", "1000", "--lambda-h", "0.6",
           "--lambda-l", "0.8", "--mu", "1", "--r-h", "2", "--r-l", "1", "--json"]  # fmt: skip


def _command_words() -> list[list[str]]:
    """The words of the command and of every subcommand of its parser tree (and the
    ``gated ladder`` view, a positional choice rather than a subparser)."""
    import argparse

    from qtheory.cli import build_parser

    def walk(parser: argparse.ArgumentParser, words: list[str]):
        yield words
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from walk(sub, [*words, name])

    return [*walk(build_parser(), []), ["gated", "ladder"]]


#: ``--help`` of the command and of each subcommand, by name.
HELPS = {" ".join(["qtheory", *words]): [QTHEORY, *words, "--help"] for words in _command_words()}


def first_output(command: list[str], env: dict[str, str] | None = None) -> float:
    """Seconds from starting ``command`` to the first byte on its stdout (the process
    is then run to its end; a non-zero exit status is an error)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, env=env, cwd=ROOT)
    assert process.stdout is not None
    first = process.stdout.read(1)
    elapsed = time.perf_counter() - start
    rest = process.stdout.read()
    if process.wait() != 0 or not first:
        raise RuntimeError(f"{command} failed: {(first + rest).decode(errors='replace')}")
    return elapsed


def best_first_outputs(commands: dict[str, list[str]], repeats: int = 5) -> dict[str, float]:
    """The best of ``repeats`` :func:`first_output` times of each command, timed in turns
    (each round runs every command once)."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeats):
        for name, command in commands.items():
            times[name].append(first_output(command))
    return {name: min(values) for name, values in times.items()}


def reproduce_quick() -> tuple[float, str]:
    """Wall time of ``qtheory reproduce --quick`` with an empty cache, and its claims
    line."""
    with tempfile.TemporaryDirectory() as out, tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, QTHEORY_CACHE_DIR=cache)
        start = time.perf_counter()
        done = subprocess.run(
            [QTHEORY, "reproduce", "--quick", "--out", out],
            env=env, cwd=ROOT, capture_output=True, text=True, check=False,
        )  # fmt: skip
        elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"qtheory reproduce --quick failed:\n{done.stderr[-2000:]}")
    claims = [line for line in done.stdout.splitlines() if line.startswith("claims:")]
    return elapsed, claims[-1] if claims else ""


def seconds(value: float) -> str:
    """Two significant digits: '38 s', '4.2 s', '0.61 s'."""
    return f"{float(f'{value:.2g}'):g} s"


def ratio(value: float) -> str:
    return f"{value:.1f}x"


def commit() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    )
    return done.stdout.strip() or "unknown"


def main() -> None:
    starts = best_first_outputs(
        {"baseline": BASELINE, "gated": GATED, "gated_issue": GATED_ISSUE, "lossnet": LOSSNET}
    )
    baseline, gated, lossnet = starts["baseline"], starts["gated"], starts["lossnet"]
    helps = best_first_outputs({"import numpy": HELP_BASELINE, **HELPS})
    help_baseline = helps.pop("import numpy")
    big = LossNetwork(10**7, 0.6, 0.8, 1.0, 2.0, 1.0)
    online = best_of(3, lambda: online_optimum(big))
    table = best_of(1, lambda: online_optimum(big, method="table"))
    quick, claims = reproduce_quick()
    rows = [
        ("python -c 'import numpy, scipy.optimize, mpmath'", baseline, 1.0),
        ("qtheory gated ... --gate 2 --json (first byte)", gated, gated / baseline),
        ("qtheory gated ... --json (issue 12, first byte)", starts["gated_issue"],
         starts["gated_issue"] / baseline),
        ("qtheory lossnet online ... --json (first byte)", lossnet, lossnet / baseline),
        ("python -c 'import numpy'", help_baseline, 1.0),
        *((f"{name} --help", value, value / help_baseline) for name, value in helps.items()),
        ("online_optimum, N = 10^7 (in process)", online, None),
        ("online_optimum(method='table'), N = 10^7", table, table / online),
        ("qtheory reproduce --quick (empty cache)", quick, None),
    ]  # fmt: skip
    for name, value, share in rows:
        print(f"{name:52s} {value:8.2f} s" + (f"   {share:5.2f}x baseline" if share else ""))
    print(claims)
    record = {
        "measured": datetime.date.today().isoformat(),
        "commit": commit(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "note": "one run on a machine shared with other jobs; wall-clock seconds, best of 5 "
        "timed in turns with their baseline",
        "import_baseline_s": baseline,
        "gated_json_s": gated,
        "gated_issue_json_s": starts["gated_issue"],
        "lossnet_online_json_s": lossnet,
        "import_numpy_s": help_baseline,
        "help_s": helps,
        "help_ratios": {name: round(value / help_baseline, 2) for name, value in helps.items()},
        "online_optimum_1e7_s": online,
        "online_optimum_table_1e7_s": table,
        "reproduce_quick_s": quick,
        "reproduce_quick_claims": claims,
        "readme": {
            "gated_ratio": ratio(gated / baseline),
            "lossnet_ratio": ratio(lossnet / baseline),
            "import_baseline": seconds(baseline),
            "help_ratio": ratio(helps["qtheory"] / help_baseline),
            "online_optimum_1e7": seconds(online),
            "reproduce_quick": seconds(quick),
        },
    }
    OUTPUT.write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {OUTPUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
