"""The SSS window sweep and its growth fits (qtheory.walks.window_sweep)."""

import math

import numpy as np
import pytest
from scipy import stats

from qtheory.cache import ResultCache
from qtheory.executor import SerialExecutor, make_executor
from qtheory.lossnet.model import LossNetwork
from qtheory.walks.window_sweep import (
    SweepPoint,
    loss_growth,
    smallest_bounded_constant,
    window_sweep,
)

NET = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)


def _synthetic(c, servers, rates, relative_se=0.01, reps=4):
    """Sweep points with given loss rates and standard errors (95% t half-widths)."""
    t = stats.t.ppf(0.975, reps - 1)
    return [
        SweepPoint(
            n,
            c,
            c * math.log(n) / n,
            10.0,
            reps,
            r,
            t * relative_se * r,
            4.0,
            0.1,
            4.0 + r,
            t * relative_se * r,
        )  # fmt: skip
        for n, r in zip(servers, rates, strict=True)
    ]


def test_loss_growth_recovers_a_power_law():
    servers = [100, 1000, 10_000, 100_000]
    points = _synthetic(2.0, servers, [3.0 * n**0.6 for n in servers])
    growth = loss_growth(points, 2.0)
    assert growth.slope == pytest.approx(0.6, abs=1e-9) and not growth.bounded
    falling = _synthetic(9.0, servers, [50.0 * n**-0.3 for n in servers])
    assert loss_growth(falling, 9.0).bounded


def test_vanishing_losses_are_bounded_and_the_smallest_constant():
    servers = [100, 1000, 10_000, 100_000]
    points = (
        _synthetic(2.0, servers, [3.0 * n**0.6 for n in servers])
        + _synthetic(8.0, servers, [0.1 * n**0.2 for n in servers])
        + _synthetic(16.0, servers, [0.02, 0.005, 0.0, 0.0])
    )
    assert loss_growth(points, 16.0).slope == -math.inf
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
        assert by_key[n, 1.0].loss_rate_h > 3 * by_key[n, 16.0].loss_rate_h
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
    assert point.cost == pytest.approx(
        NET.r_l * NET.mu * point.mean_idle + (NET.r_h - NET.r_l) * point.loss_rate_h
    )
    assert np.isfinite(point.cost_halfwidth)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"cs": [0.0]}, "c must be > 0"),
        ({"servers": [1]}, "servers must be >= 2"),
        ({"reps": 1}, "reps must be >= 2"),
        ({"events": -1.0}, "events must be > 0"),
    ],
)
def test_bad_input(kwargs, message):
    args = {"cs": [1.0], "servers": [20], "reps": 2, "events": 1e4} | kwargs
    with pytest.raises(ValueError, match=message):
        window_sweep(NET, executor=SerialExecutor(), progress=False, **args)


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
