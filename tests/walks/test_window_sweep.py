"""The SSS window sweep and its growth fits (qtheory.walks.window_sweep)."""

import math

import numpy as np
import pytest
from conftest import assert_rejects

from qtheory.core.cache import ResultCache
from qtheory.core.executor import SerialExecutor, make_executor
from qtheory.core.stats import Estimate
from qtheory.model.lossnet import LossNetwork
from qtheory.sim.lossnet import simulate
from qtheory.walks.lookahead_sweep import (
    TASK_VERSION,
    SweepPoint,
    loss_growth,
    smallest_bounded_constant,
    sss_replication,
    window_sweep,
)

NET = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)


def _points(c, servers, counts, reps=4, horizon=13.0):
    """Sweep points with given H-loss counts (exposure reps x 10 time units); the rate
    estimates do not enter the growth fit."""
    unused = Estimate.of([0.0, 1.0])
    return [
        SweepPoint(n, c, c * math.log(n) / n, horizon, reps, y, unused, unused, unused)
        for n, y in zip(servers, counts, strict=True)
    ]


SERVERS = [100, 1000, 10_000, 100_000, 1_000_000]


def test_loss_growth_covers_the_true_exponent():
    """Poisson counts with rate 0.5 N^s (s = 0.6, growth; s = -0.3, decay): the 95%
    interval covers s in at least 88 of 100 seeded samples (an exact 95% interval covers
    fewer than 88 of 100 with probability 1.5e-3, so the false-failure rate is about 3e-3
    for the two slopes; seed fixed)."""
    rng = np.random.default_rng(2026)
    for true_slope in (0.6, -0.3):
        covered = 0
        for _ in range(100):
            mean = 40.0 * 0.5 * np.array(SERVERS, dtype=float) ** true_slope
            growth = loss_growth(_points(1.0, SERVERS, rng.poisson(mean)), 1.0)
            covered += growth.lower <= true_slope <= growth.upper
        assert covered >= 88


def test_growth_verdicts():
    growing = loss_growth(_points(2.0, SERVERS, [100, 400, 1600, 6400, 25600]), 2.0)
    assert growing.growing and not growing.bounded
    assert growing.slope == pytest.approx(math.log10(4), rel=1e-6)
    vanishing = loss_growth(_points(32.0, SERVERS, [89, 0, 0, 0, 0]), 32.0)
    assert vanishing.bounded and vanishing.upper < 0
    # A few losses at N = 100 only and short exposure: nothing can be said.
    sparse = loss_growth(_points(16.0, SERVERS[:3], [2, 0, 1]), 16.0)
    assert not sparse.bounded and not sparse.growing
    none = loss_growth(_points(64.0, SERVERS, [0] * 5), 64.0)
    assert none.bounded and math.isnan(none.slope)


def test_smallest_bounded_constant():
    points = (
        _points(2.0, SERVERS, [100, 400, 1600, 6400, 25600])
        + _points(8.0, SERVERS, [100, 120, 150, 170, 200])  # slope ~0.07: bounded
        + _points(11.0, SERVERS, [60, 60, 60, 60, 400])  # undetermined / growing
        + _points(16.0, SERVERS, [50, 5, 0, 0, 0])
    )
    assert smallest_bounded_constant(points) == 16.0
    with pytest.raises(ValueError, match="no sweep points with c = 3"):
        loss_growth(points, 3.0)


def test_sweep_on_common_paths_and_cache(tmp_path):
    cache = ResultCache(tmp_path)
    kwargs = dict(events=3e4, reps=2, seed=3, executor=SerialExecutor(), progress=False)
    points = window_sweep(NET, [1.0, 16.0], [30, 100], cache=cache, **kwargs)
    assert [(p.servers, p.c) for p in points] == [(30, 1.0), (30, 16.0), (100, 1.0), (100, 16.0)]
    by_key = {(p.servers, p.c): p for p in points}
    for n in (30, 100):  # the longer window loses far fewer H jobs
        assert by_key[n, 1.0].loss_rate_h.mean > 3 * by_key[n, 16.0].loss_rate_h.mean
    files = sorted(tmp_path.rglob("*.json"))
    assert len(files) == 4  # one cached task per (N, replication)
    mtimes = [f.stat().st_mtime_ns for f in files]
    again = window_sweep(NET, [1.0, 16.0], [30, 100], cache=cache, **kwargs)
    assert again == points
    assert [f.stat().st_mtime_ns for f in sorted(tmp_path.rglob("*.json"))] == mtimes
    uncached = window_sweep(NET, [1.0, 16.0], [30, 100], **kwargs)
    assert uncached == points  # same seed, same paths


def test_cost_is_the_regret_identity_of_the_parts():
    (point,) = window_sweep(
        NET, [2.0], [50], events=2e4, reps=3, seed=1, executor=SerialExecutor(), progress=False
    )
    # the cost of each replication is linear in its parts, so are the means
    typed = NET.r_l * NET.mu * point.mean_idle.mean + (NET.r_h - NET.r_l) * point.loss_rate_h.mean
    assert point.cost.mean == pytest.approx(typed, rel=1e-12)
    assert point.cost.method == "t" and point.cost.n == 3 and np.isfinite(point.cost.halfwidth)
    assert point.window == pytest.approx(2.0 * math.log(50) / 50, rel=1e-15)


def test_replications_follow_the_package_seed_rule():
    """Replication rep at N runs on replication_seed(SeedSequence([seed, N]), rep): the
    simulation with that seed reproduces the task's counts; tasks carry TASK_VERSION."""
    task = {"version": TASK_VERSION, "cs": [2.0], "horizon": 10.0, "seed": 5, "rep": 1,
            "net": {"servers": 40, "lambda_h": 0.6, "lambda_l": 0.8, "mu": 1.0, "r_h": 2.0,
                    "r_l": 1.0}}  # fmt: skip
    out = sss_replication(task)
    net = NET.with_servers(40)
    root = np.random.SeedSequence([5, 40])
    expected = simulate(net, f"sss:{net.window(2.0)!r}", horizon=10.0, warmup=3.0,
                        seed=root.spawn(2)[1])  # fmt: skip
    assert out["lost_h"] == [expected.rejected_h]
    assert out["mean_idle"] == [expected.mean_idle.mean]
    assert_rejects(sss_replication, {**task, "version": 1}, match="version")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"cs": [0.0]}, "c must be > 0"),
        ({"servers": [1]}, "servers must be >= 2"),
        ({"reps": 1}, "reps must be >= 2"),
        ({"events": -1.0}, "events must be > 0"),
        ({"events": 1e12, "servers": [20, 30]}, "^events: .* above the limit"),
        ({"seed": -1}, "seed must be an integer >= 0"),
        ({"cs": 2.0}, "cs must be a sequence"),
        ({"cs": [5e-324]}, "c is too small"),
    ],
)
def test_bad_input(kwargs, message):
    args = {"cs": [1.0], "servers": [20], "reps": 2, "events": 1e4} | kwargs
    assert_rejects(window_sweep, NET, executor=SerialExecutor(), progress=False, match=message,
                   **args)  # fmt: skip


def test_sweep_on_a_dask_cluster_matches_the_serial_run():
    distributed = pytest.importorskip("distributed")
    kwargs = dict(events=2e4, reps=2, seed=9, progress=False)
    serial = window_sweep(NET, [2.0], [40], executor=SerialExecutor(), **kwargs)
    with (
        distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False) as cluster,
        distributed.Client(cluster) as client,
        make_executor(client) as executor,
    ):
        assert window_sweep(NET, [2.0], [40], executor=executor, **kwargs) == serial


def test_smallest_bounded_constant_refuses_an_empty_sweep():
    """Regression (found by fuzzing): an empty sweep gave NaN instead of an error."""
    for empty in ([], ()):
        with pytest.raises(ValueError, match="points"):
            smallest_bounded_constant(empty)
