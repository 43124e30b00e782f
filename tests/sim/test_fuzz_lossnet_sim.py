"""Fuzzing contract of the loss-network simulator (qtheory.sim.lossnet) and the regret
decomposition (qtheory.lossnet.decomposition): any argument returns or raises a
ValueError/TypeError with a message (never AttributeError, ZeroDivisionError, an error
from inside NumPy/SciPy, a crash of the C extension, or a silent NaN).  Bounded: tiny
networks and horizons (a run costs at most a few thousand events), a few seconds in all.
"""

from __future__ import annotations

import numpy as np
from conftest import FUZZ, anything, assert_clean_outcome
from hypothesis import given
from hypothesis import strategies as st

from qtheory.core.stats import slope_on_log
from qtheory.lossnet.designs import ClockDesign
from qtheory.lossnet.replication import replication
from qtheory.lossnet.rolling_horizon import rolling_horizon
from qtheory.lossnet.tasks import replication_task
from qtheory.model.lossnet import LossNetwork
from qtheory.sim import _core
from qtheory.sim.lossnet import clock_path, compare, job_path, simulate, trace
from qtheory.sim.lossnet_costs import path_cost, run_cost
from qtheory.sim.lossnet_policies import parse_policy

NET = LossNetwork(6, 0.6, 0.8, 1.0, 2.0, 1.0)

net_or_junk = st.one_of(anything, st.just(NET), st.just(NET.with_servers(1)))
policy = st.one_of(
    anything,
    st.sampled_from(
        [
            "pfi",
            "offline",
            "threshold:0",
            "threshold:2",
            "threshold:7",
            "sss:0.1",
            "sss:0",
            "sss:-1",
            "sss:nan",
            "sss:1e300",
            "threshold:" + "9" * 30,
            "pfi:1",
            "threshold:x",
            "sss:",
            "threshold:-1",
        ]
    ),  # fmt: skip
    st.builds(lambda w: f"sss:{w!r}", st.floats(allow_nan=True, allow_infinity=True)),
    st.builds(lambda k: f"threshold:{k}", st.integers(-3, 1000)),
)
info = st.one_of(anything, st.sampled_from(["clock", "job"]))
horizon = st.one_of(anything, st.floats(1e-3, 3.0), st.sampled_from([0.0, 1e300, 1e9, 5e-324]))
count = st.one_of(anything, st.integers(-2, 4), st.just(10**12))
seed = st.one_of(anything, st.integers(0, 2**70), st.just(np.random.SeedSequence(5)))


def no_nan(result):
    """The estimates of a result are NaN only where documented (one replication)."""
    for name in ("reward_rate", "mean_idle"):
        estimate = getattr(result, name, None)
        if estimate is not None:
            assert np.isfinite(estimate.mean), result
            assert result.reps == 1 or np.isfinite(estimate.halfwidth), result


@FUZZ
@given(net_or_junk, policy, info, horizon, st.one_of(anything, st.floats(0, 1)), count, seed)
def test_simulate(net, policy, info, horizon, warmup, reps, seed):
    result = assert_clean_outcome(simulate, net, policy, info=info, horizon=horizon,
                                  warmup=warmup, reps=reps, seed=seed)  # fmt: skip
    no_nan(result)


@FUZZ
@given(net_or_junk, st.one_of(anything, st.lists(policy, max_size=3), st.tuples(policy, policy)),
       info, horizon, count, seed, count)  # fmt: skip
def test_compare(net, policies, info, horizon, reps, seed, workers):
    result = assert_clean_outcome(compare, net, policies, info=info, horizon=horizon, reps=reps,
                                  seed=seed, workers=workers)  # fmt: skip
    if result is not None:
        for res in result.results.values():
            no_nan(res)


@FUZZ
@given(net_or_junk, policy, info, horizon, seed)
def test_trace_and_paths(net, policy, info, horizon, seed):
    tr = assert_clean_outcome(trace, net, policy, info=info, horizon=horizon, seed=seed)
    if tr is not None:
        assert np.all((tr.idle >= 0) & (tr.idle <= tr.servers))
        assert_clean_outcome(tr.mean_idle, horizon)
    assert_clean_outcome(clock_path, net, horizon, seed)
    assert_clean_outcome(job_path, net, horizon, seed)
    assert_clean_outcome(path_cost, net, info=info, horizon=horizon)


@FUZZ
@given(policy, st.one_of(anything, st.integers(-2, 50), st.just(10**30)), net_or_junk, info,
       horizon, count, count, anything)  # fmt: skip
def test_parse_policy_and_run_cost(policy, servers, net, info, horizon, reps, workers, flag):
    assert_clean_outcome(parse_policy, policy, servers)
    assert_clean_outcome(run_cost, net, policy, info=info, horizon=horizon, reps=reps,
                         workers=workers, trace=flag)  # fmt: skip


@FUZZ
@given(st.sampled_from(["clock", "job", "x"]), st.sampled_from(["threshold", "pfi", "sss",
       "offline", "x"]), st.floats(allow_nan=True, allow_infinity=True),
       st.integers(-5, 2 * 10**9), st.floats(allow_nan=True, allow_infinity=True),
       st.floats(allow_nan=True, allow_infinity=True))  # fmt: skip
def test_core_directly(info, name, param, servers, lambda_l, horizon):
    """The C extension's own checks (the Python layer is bypassed): tiny runs only, so
    the horizon and SSS's window are capped by their expected event counts (a scan reads
    up to its window at every L arrival: a window of 3.6e7 events at N = 1e6 runs for
    minutes)."""
    if np.isfinite(horizon) and abs(horizon) * max(servers, 1) * 3 > 1e4:
        horizon = 1e4 / (3 * max(servers, 1))
    if np.isfinite(horizon) and name == "offline" and abs(horizon) * servers**2 * 3 > 1e7:
        horizon = 1e7 / (3 * servers**2)  # the DP's work is events x N
    if np.isfinite(param) and name == "sss":
        param = min(param, 10.0, 1e3 / (3 * max(servers, 1)))
    lambda_l = min(lambda_l, 2.0) if np.isfinite(lambda_l) else lambda_l
    try:
        _core.lossnet_simulate(np.random.PCG64(0), info, name, param, servers, 0.6, lambda_l,
                               1.0, 2.0, 1.0, horizon, 0.0)  # fmt: skip
        _core.lossnet_path(np.random.PCG64(0), info, servers, 0.6, lambda_l, 1.0, horizon)
    except (ValueError, TypeError, OverflowError, MemoryError) as error:
        assert str(error) or isinstance(error, MemoryError)


@FUZZ
@given(net_or_junk, info, horizon, st.one_of(anything, st.floats(0, 1)), seed, count,
       st.one_of(anything, st.lists(policy, max_size=2)),
       st.one_of(anything, st.lists(horizon, max_size=2)))  # fmt: skip
def test_decomposition_tasks(net, info, horizon, warmup, seed, rep, policies, windows):
    task = assert_clean_outcome(replication_task, net, info=info, horizon=horizon,
                                warmup=warmup, seed=seed, rep=rep, policies=policies,
                                rolling_horizon=windows)  # fmt: skip
    if task is not None and task["servers"] * task["horizon"] < 50:
        assert_clean_outcome(replication, task)
    assert_clean_outcome(replication, {"version": 1} if task is None else task | {"rep": -1})


@FUZZ
@given(net_or_junk, horizon, st.one_of(anything, st.floats(0, 1)), count, seed,
       st.one_of(anything, st.lists(st.floats(allow_nan=True), max_size=3)), horizon)  # fmt: skip
def test_designs_and_rolling_horizon(net, horizon, warmup, reps, seed, cs, window):
    assert_clean_outcome(ClockDesign, net, horizon, warmup, reps, seed, cs=cs)
    if isinstance(horizon, float) and horizon < 2.0:
        assert_clean_outcome(rolling_horizon, net, window, horizon=horizon, warmup=warmup,
                             seed=seed, rep=0)  # fmt: skip


@FUZZ
@given(st.one_of(anything, st.lists(st.integers(-5, 10**6), max_size=5)),
       st.one_of(anything, st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=5)),
       st.one_of(st.none(), anything, st.lists(st.floats(allow_nan=True), max_size=5)))  # fmt: skip
def test_slope_on_log(servers, values, stderrs):
    fit = assert_clean_outcome(slope_on_log, servers, values, stderrs)
    if fit is not None:
        assert np.isfinite(fit.slope.mean) and fit.slope.method == "regression"


@FUZZ
@given(st.sampled_from([NET, NET.with_servers(1), NET.with_servers(2)]),
       st.sampled_from(["pfi", "offline", "threshold:0", "threshold:2", "sss:0.05", "sss:3.0"]),
       st.sampled_from(["clock", "job"]), st.floats(1e-3, 3.0), st.floats(0.0, 1.0),
       st.integers(1, 3), st.integers(0, 2**64))  # fmt: skip
def test_valid_runs(net, policy, info, horizon, warmup, reps, seed):
    """Mostly valid arguments, so that the C runs themselves are exercised."""
    result = assert_clean_outcome(simulate, net, policy, info=info, horizon=horizon,
                                  warmup=warmup, reps=reps, seed=seed)  # fmt: skip
    no_nan(result)
    tr = assert_clean_outcome(trace, net, policy, info=info, horizon=horizon, seed=seed)
    if tr is not None:
        assert tr.times.size == 0 or (tr.times[0] > 0 and tr.times[-1] <= horizon)
