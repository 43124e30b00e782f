"""Tests of the C loss-network simulator (qtheory.sim._core.lossnet_*) and its wrappers.

Independent references:
- trunk reservation: the exact long-run reward fluid_bound(net) - threshold_table(net).regret[k]
  (birth-death stationary law, qtheory.lossnet.online);
- clock versus job information model: two different random constructions of the same law;
- PFI and SSS: slow, literal pure-Python re-implementations of the policy definitions run on
  the same event stream (exported by lossnet_path), decision by decision;
- offline optimum: brute-force enumeration of every admit/reject sequence on tiny paths, and
  the path-wise inequality R_off >= R_policy on common paths (exact, not statistical).

Statistical checks use fixed seeds and independent replications.  An estimate is compared
with its reference at tolerance t_{1 - ALPHA/2, reps-1} standard errors (conftest's
assert_estimate_matches), so that for a random seed each comparison would fail wrongly with
probability ALPHA = 1e-4 (a test making k comparisons: at most k * 1e-4).
"""

from __future__ import annotations

import inspect
import itertools
import math
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from conftest import assert_estimate_matches, t_tolerance

from qtheory.core import limits
from qtheory.core.stats import replication_seed
from qtheory.lossnet.fluid import fluid_bound
from qtheory.lossnet.online import threshold_table
from qtheory.lossnet.policies import replay
from qtheory.model.lossnet import LossNetwork
from qtheory.model.paths import ClockPath
from qtheory.sim import _core, clock_path, compare, job_path, simulate
from qtheory.sim.lossnet import trace
from qtheory.sim.lossnet_costs import path_cost, run_cost
from qtheory.sim.lossnet_policies import parse_policy

H, L = -1, -2

NET = LossNetwork(50, 0.6, 0.8, 1.0, 2.0, 1.0)
#: Rewards without exact float64 arithmetic: the offline optimum runs the full programme.
INEXACT = LossNetwork(10, 0.6, 0.8, 1.0, 2.1, 1.0)
#: The full offline programme at N = 1e9 (param -1), whose checkpoints cannot be held.
FULL_PROGRAMME_1E9 = {"policy": "offline", "param": -1.0, "servers": 10**9, "horizon": 1e-3}


def exact_threshold_rate(net: LossNetwork, k: int) -> float:
    return fluid_bound(net) - float(threshold_table(net).regret[k])


# ------------------------------------------------------------- statistical checks


@pytest.mark.parametrize(("servers", "reserve"), [(10, 0), (10, 2), (50, 3), (50, 8), (200, 6)])
def test_threshold_reward_rate_matches_exact_value(servers, reserve):
    net = NET.with_servers(servers)
    reps = 20
    res = simulate(
        net, f"threshold:{reserve}", horizon=400_000 / servers, warmup=10.0, reps=reps, seed=4
    )
    exact = exact_threshold_rate(net, reserve)
    assert_estimate_matches(res.reward_rate, exact, max_relative_width=0.01)
    assert_estimate_matches(res.mean_idle, float(threshold_table(net).mean_idle[reserve]))


@pytest.mark.parametrize(("servers", "reserve"), [(10, 1), (50, 3)])
def test_clock_and_job_models_agree_under_trunk_reservation(servers, reserve):
    net = NET.with_servers(servers)
    reps = 20
    kwargs = {"horizon": 200_000 / servers, "warmup": 10.0, "reps": reps}
    clock = simulate(net, f"threshold:{reserve}", info="clock", seed=5, **kwargs)
    job = simulate(net, f"threshold:{reserve}", info="job", seed=6, **kwargs)
    # Two independent estimates: the difference has standard error hypot(se1, se2); the
    # normal quantile (Welch with 38 degrees of freedom is close): false-failure rate ~1e-4.
    se = math.hypot(clock.reward_rate.stderr, job.reward_rate.stderr)
    assert abs(clock.reward_rate.mean - job.reward_rate.mean) <= t_tolerance(se, None)
    assert_estimate_matches(job.reward_rate, exact_threshold_rate(net, reserve))


def test_fluid_bounds_offline_and_ordering_on_common_paths():
    """R_off >= R_PFI, R_SSS, R_threshold on every path (exact; warmup = 0 so the offline
    objective is the reported reward), and R_fluid >= E[R_off] (statistical)."""
    net = NET.with_servers(30)
    k = int(np.argmin(threshold_table(net).regret))
    policies = ["offline", "pfi", "sss:0.1", f"threshold:{k}"]
    cmp = compare(net, policies, horizon=100.0, reps=8, seed=7)
    for other in policies[1:]:
        diff = cmp.difference("offline", other)
        assert diff.min_difference >= -1e-9, diff
    off = cmp.results["offline"].reward_rate
    # One-sided, false-failure rate <= ALPHA / 2 (E[R_off] <= R_fluid).
    assert off.mean - fluid_bound(net) <= t_tolerance(off.stderr, off.dof)
    # All policies saw the same futures.
    assert len({r.events for r in cmp.results.values()}) == 1


# ------------------------------------------------------------- references on paths


def c_run(
    net, policy, param, horizon, seed, info="clock", warmup=0.0, lookahead_stats=True, isa=None
):
    bg = np.random.PCG64(seed)
    return _core.lossnet_simulate(
        bg, info, policy, param, net.servers, net.lambda_h, net.lambda_l, net.mu,
        net.r_h, net.r_l, horizon, warmup, trace=True, lookahead_stats=lookahead_stats,
        isa=isa,
    )  # fmt: skip


def c_path(net, horizon, seed, info="clock"):
    return _core.lossnet_path(
        np.random.PCG64(seed), info, net.servers, net.lambda_h, net.lambda_l, net.mu, horizon
    )


@pytest.mark.parametrize("servers", [4, 9, 16, 30])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pfi_matches_python_reference(servers, seed):
    net = NET.with_servers(servers)
    horizon = 20.0
    out = c_run(net, "pfi", 0.0, horizon, seed)
    times, codes = c_path(net, horizon + 200.0, seed)  # the same stream, further ahead
    n = out["trace_t"].size
    assert n == out["events"] and np.array_equal(out["trace_t"], times[:n])
    assert np.array_equal(out["trace_code"], codes[:n])
    ref = replay(ClockPath(times, codes), servers, "pfi", events=n)
    assert np.array_equal(out["trace_decision"], ref.decisions)
    assert out["lookahead_events"] == ref.lookahead_events
    assert out["admitted_l"] > 0 or servers <= 4


@pytest.mark.parametrize(("servers", "window"), [(4, 0.5), (9, 0.2), (16, 0.05), (30, 0.3)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sss_matches_python_reference(servers, window, seed):
    net = NET.with_servers(servers)
    horizon = 20.0
    out = c_run(net, "sss", window, horizon, seed)
    times, codes = c_path(net, horizon + 10.0, seed)
    n = out["trace_t"].size
    assert np.array_equal(out["trace_code"], codes[:n])
    ref = replay(ClockPath(times, codes), servers, f"sss:{window}", events=n)
    assert np.array_equal(out["trace_decision"], ref.decisions)
    assert out["admitted_l"] > 0 and out["rejected_l"] > 0


@pytest.mark.parametrize(
    ("servers", "window_events", "events"),
    [
        (5_000, 1.4, 20_000),  # windows of 3 or more events, past the table: read backward
        (30, 0.6, 20_000),  # most windows with a departure read backward (slot >= N - K)
        (5, 0.12, 20_000),  # N <= K = 5: every departure may not end a service
        (50_000, 100.0, 1_000_000),  # windows over more than eight blocks of eight, 4% backward
        (100_000, 25.0, 1_000_000),  # many refills of the sparse table, against the scan
    ],
)
@pytest.mark.parametrize("isa", ["generic", "avx2", None])
def test_sss_deciding_only_takes_the_scans_decisions(servers, window_events, events, isa):
    """Two-class SSS without look-ahead statistics decides by thresholds (lossnet.c,
    "SSS deciding only"; here mu W K <= 1/16, so the thresholds run): every decision is
    the literal scan's, in Python (up to 2e4 events) or in C.  Each case reaches one of
    the threshold's routes, and runs on each twin of the refill: generic, AVX2 and the
    processor's best (AVX-512 where it has it)."""
    net = NET.with_servers(servers)
    rate = (net.lambda_h + net.lambda_l + net.mu) * servers
    window, horizon = window_events / rate, events / rate
    h_events = net.lambda_h * servers * window  # K as docs/loss-network.md states it
    assert net.mu * window * math.ceil(h_events + 4 * math.sqrt(h_events) + 4) <= 1 / 16
    out = c_run(net, "sss", window, horizon, 3, lookahead_stats=False, isa=isa)
    n = out["trace_t"].size
    if events <= 20_000:
        times, codes = c_path(net, horizon + 2 * window + 20 / rate, 3)  # past the last window
        ref = replay(ClockPath(times, codes), servers, f"sss:{window!r}", events=n).decisions
    else:
        ref = c_run(net, "sss", window, horizon, 3)["trace_decision"]
    assert np.array_equal(out["trace_decision"], ref)
    assert out["admitted_l"] > 0 and out["rejected_l"] > 0


def sss_scan_counts(times, codes, busy_before, servers, window, warmup, events):
    """The look-ahead statistics of the C scan of SSS (lossnet.c, decide_sss), written
    out: for each L arrival after the warm-up with h = I - 1 >= 1, the events examined
    from the next one on, stopping before an event once h exceeds the H arrivals left in
    the window [t, t + W] and after the event that brings h to 0; their sum and the sum
    of the times from the arrival to the last event examined."""
    count, total = 0, 0.0
    for i in range(events):
        h = servers - busy_before[i] - 1
        if codes[i] != -2 or not times[i] > warmup or h < 1:
            continue
        end = i + 1
        while not times[end] > times[i] + window:
            end += 1
        left = sum(1 for c in codes[i + 1 : end] if c == -1)
        m = i + 1
        while h <= left:
            c = codes[m]
            m += 1
            h += int(c >= 0 and c < servers - h) - int(c == -1)
            left -= int(c == -1)
            if h == 0:
                break
        count += m - i - 1
        total += times[m - 1] - times[i] if m > i + 1 else 0.0
    return count, total


@pytest.mark.parametrize(
    ("servers", "window_events", "horizon_events", "warmup_share"),
    [
        (400, 4.8, 20_000, 0.25),  # the docs' example (W = 0.005), a warm-up
        (30, 0.6, 20_000, 0.0),  # departures near N that end no service
        (5, 0.12, 20_000, 0.0),  # N = 5: many departures end no service
        (5_000, 1.4, 20_000, 0.0),  # windows of a few events
        (5_000, 16.0, 36_000, 0.5),  # windows of 16 events, past the fill-up
    ],
)
def test_sss_statistics_are_the_scans(servers, window_events, horizon_events, warmup_share):
    """SSS's look-ahead statistics (events examined and time to the last one, summed over
    the L arrivals after the warm-up) are those of its scan as lossnet.c's decide_sss
    runs it, which stops early once the H arrivals left cannot bring h to 0: the same
    sums as that scan written out in Python, bit for bit (the same terms in the same
    order), on windows of 1 to 16 expected events."""
    net = NET.with_servers(servers)
    rate = (net.lambda_h + net.lambda_l + net.mu) * servers
    window, horizon = window_events / rate, horizon_events / rate
    warmup = warmup_share * horizon
    out = c_run(net, "sss", window, horizon, 5, warmup=warmup)
    n = out["trace_t"].size
    times, codes = c_path(net, horizon + 2 * window + 20 / rate, 5)
    busy_before = np.concatenate([[0], out["trace_busy"][:-1]]).tolist()
    count, total = sss_scan_counts(times.tolist(), codes.tolist(), busy_before, servers,
                                   window, warmup, n)  # fmt: skip
    assert (out["lookahead_events"], out["lookahead_time"]) == (count, total)
    assert count > 0 and out["admitted_l"] > 0 and out["rejected_l"] > 0


@pytest.mark.parametrize(("servers", "reserve"), [(4, 0), (9, 2), (30, 5), (30, 30)])
@pytest.mark.parametrize("seed", [0, 1])
def test_threshold_matches_python_reference(servers, reserve, seed):
    """Trunk reservation in C against the rule as written (admit L iff more than K
    idle), decision by decision on the same path."""
    net = NET.with_servers(servers)
    out = c_run(net, "threshold", float(reserve), 20.0, seed)
    times, codes = c_path(net, 20.0, seed)
    n = out["trace_t"].size
    assert np.array_equal(out["trace_code"], codes[:n])
    ref = replay(ClockPath(times, codes), servers, f"threshold:{reserve}", events=n)
    assert np.array_equal(out["trace_decision"], ref.decisions)
    assert (out["admitted_l"] > 0) == (reserve < servers)


def brute_force(codes, servers, r_h, r_l):
    """Best total reward over every admit/reject sequence (exponential in arrivals)."""
    arrivals = [i for i, c in enumerate(codes) if c < 0]
    best = -1.0
    for choice in itertools.product((0, 1), repeat=len(arrivals)):
        admit = dict(zip(arrivals, choice, strict=True))
        busy, reward, feasible = 0, 0.0, True
        for i, code in enumerate(codes):
            if code >= 0:
                busy -= int(code < busy)
            elif admit[i]:
                if busy == servers:
                    feasible = False
                    break
                busy += 1
                reward += r_h if code == H else r_l
        if feasible:
            best = max(best, reward)
    return best


@pytest.mark.parametrize(("servers", "seed"), [(1, 0), (2, 1), (2, 2), (3, 3), (3, 4)])
def test_offline_matches_brute_force(servers, seed):
    net = LossNetwork(servers, 0.6, 0.9, 1.0, 3.0, 1.0)
    horizon = 4.5 / servers
    times, codes = c_path(net, horizon, seed)
    assert 4 <= np.count_nonzero(codes < 0) <= 16, "adjust the horizon"
    out = c_run(net, "offline", 0.0, horizon, seed)
    best = brute_force(codes, servers, net.r_h, net.r_l)
    assert out["reward_total"] == pytest.approx(best, rel=1e-12)
    # The traced decisions are feasible and earn that reward.
    decisions = out["trace_decision"]
    assert np.array_equal(out["trace_code"], codes)
    busy = 0
    for code, d in zip(codes, decisions, strict=True):
        busy = busy - int(code < busy) if code >= 0 else busy + d
        assert 0 <= busy <= servers
    rewards = np.where(codes == H, net.r_h, net.r_l)[decisions == 1].sum()
    assert rewards == pytest.approx(best, rel=1e-12)


def test_offline_dominates_every_policy_path_by_path_larger_network():
    net = LossNetwork(60, 0.7, 0.6, 1.0, 1.5, 1.0)
    for seed in range(3):
        off = c_run(net, "offline", 0.0, 30.0, seed)["reward_total"]
        for policy, param in [("pfi", 0.0), ("sss", 0.05), ("threshold", 0.0), ("threshold", 5.0)]:
            assert off >= c_run(net, policy, param, 30.0, seed)["reward_total"] - 1e-9


def test_job_path_matches_job_simulation():
    """The exported job path is what the job model simulates: replay trunk reservation."""
    net = NET.with_servers(8)
    times, is_l, service = c_path(net, 30.0, 3, info="job")
    out = c_run(net, "threshold", 2.0, 30.0, 3, info="job")
    arrivals = out["trace_decision"] >= 0
    assert np.array_equal(out["trace_t"][arrivals], times)
    completions, decisions = [], []
    for t, low, s in zip(times, is_l, service, strict=True):
        completions = [c for c in completions if c > t]
        admit = len(completions) < net.servers - (2 if low else 0)
        decisions.append(int(admit))
        if admit:
            completions.append(t + s)
    assert np.array_equal(out["trace_decision"][arrivals], decisions)
    path = job_path(net, 30.0, seed=np.random.SeedSequence(0))
    assert np.all(path.service_times > 0) and path.is_l.dtype == bool


# ------------------------------------------------------------- reproducibility and output


def test_same_seed_same_output_and_common_paths():
    a = simulate(NET, "sss:0.1", horizon=50.0, warmup=5.0, reps=3, seed=11)
    b = simulate(NET, "sss:0.1", horizon=50.0, warmup=5.0, reps=3, seed=11)
    c = simulate(NET, "sss:0.1", horizon=50.0, warmup=5.0, reps=3, seed=12)
    assert a == b and np.array_equal(a.reward_rates, b.reward_rates)
    assert not np.array_equal(a.reward_rates, c.reward_rates)
    threaded = simulate(NET, "sss:0.1", horizon=50.0, warmup=5.0, reps=3, seed=11, workers=3)
    assert np.array_equal(a.reward_rates, threaded.reward_rates)
    # Replication i replays the path of replication_seed(11, i), the i-th spawned child.
    assert a.events == sum(
        clock_path(NET, 50.0, seed=replication_seed(11, i)).times.size for i in range(3)
    )
    children = np.random.SeedSequence(11).spawn(3)
    assert np.array_equal(
        clock_path(NET, 50.0, seed=children[1]).times,
        clock_path(NET, 50.0, seed=replication_seed(11, 1)).times,
    )


def test_one_seed_sequence_object_passed_twice_replays_the_same_paths():
    """Regression: a SeedSequence root is not advanced by simulate, compare, trace,
    clock_path or job_path, so the second call with the same object gives the same
    result (SeedSequence.spawn would have advanced it)."""
    root = np.random.SeedSequence(2024)
    first = simulate(NET, "pfi", horizon=20.0, reps=2, seed=root)
    assert np.array_equal(first.reward_rates, simulate(NET, "pfi", horizon=20.0, reps=2,
                                                       seed=root).reward_rates)  # fmt: skip
    pair = [compare(NET, ["offline", "threshold:2"], horizon=10.0, reps=2, seed=root)
            for _ in range(2)]  # fmt: skip
    assert np.array_equal(pair[0].results["offline"].reward_rates,
                          pair[1].results["offline"].reward_rates)  # fmt: skip
    assert np.array_equal(pair[0].results["offline"].reward_rates, [
        compare(NET, ["offline", "pfi"], horizon=10.0, reps=2, seed=2024)
        .results["offline"].reward_rates[i] for i in range(2)])  # fmt: skip
    traces = [trace(NET, "sss:0.1", horizon=10.0, seed=root) for _ in range(2)]
    assert np.array_equal(traces[0].decisions, traces[1].decisions)
    clocks = [clock_path(NET, 10.0, seed=root) for _ in range(2)]
    assert np.array_equal(clocks[0].times, clocks[1].times)
    jobs = [job_path(NET, 10.0, seed=root) for _ in range(2)]
    assert np.array_equal(jobs[0].service_times, jobs[1].service_times)
    assert root.n_children_spawned == 0


@pytest.mark.parametrize(
    "seed", [np.random.default_rng(1), np.random.PCG64(1), -1, 1.5, "seed", [1, -2]]
)
def test_seed_that_is_not_a_seed_is_refused_naming_seed(seed):
    for call in (
        lambda: simulate(NET, "pfi", horizon=1.0, seed=seed),
        lambda: compare(NET, ["pfi", "offline"], horizon=1.0, seed=seed),
        lambda: trace(NET, "pfi", horizon=1.0, seed=seed),
        lambda: clock_path(NET, 1.0, seed=seed),
        lambda: job_path(NET, 1.0, seed=seed),
    ):
        with pytest.raises(ValueError, match="seed must be"):
            call()


def test_result_fields_are_consistent():
    res = simulate(NET, "pfi", horizon=40.0, warmup=4.0, reps=2, seed=3)
    window = 36.0
    rate = (NET.r_h * res.admitted_h + NET.r_l * res.admitted_l) / window / res.reps
    assert res.reward_rate.mean == pytest.approx(rate)
    assert res.mean_lookahead > 0 and res.mean_lookahead_time > 0
    assert 0 < res.mean_idle.mean < NET.servers
    tr = simulate(NET, "threshold:2", horizon=40.0, reps=1, seed=3)
    assert math.isnan(tr.mean_lookahead) and math.isnan(tr.reward_rate.halfwidth)
    assert tr.rejected_h + tr.admitted_h > 0


def test_lookahead_statistics_can_be_skipped_without_changing_a_number():
    net = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)
    run = {"horizon": 30.0, "warmup": 5.0, "reps": 3, "seed": 4}
    with_stats = simulate(net, "pfi", **run)
    without = simulate(net, "pfi", **run, lookahead_stats=False)
    assert with_stats.mean_lookahead > 0 and math.isnan(without.mean_lookahead)
    assert math.isnan(without.mean_lookahead_time)
    assert np.array_equal(with_stats.reward_rates, without.reward_rates)
    assert (with_stats.admitted, with_stats.rejected) == (without.admitted, without.rejected)
    with pytest.raises(TypeError, match="lookahead_stats must be True or False"):
        simulate(net, "pfi", **run, lookahead_stats=1)


def test_gil_is_released_during_the_simulation():
    times = {}

    def worker():
        times["start"] = time.perf_counter()
        simulate(NET.with_servers(1000), "threshold:5", horizon=2000.0, seed=1)
        times["end"] = time.perf_counter()

    thread = threading.Thread(target=worker)
    stamps = []
    thread.start()
    while thread.is_alive():
        stamps.append(time.perf_counter())
    thread.join()
    duration = times["end"] - times["start"]
    if duration < 0.05:
        pytest.skip(f"simulation took only {duration:.3f} s: too short to judge")
    inside = [times["start"]] + [s for s in stamps if times["start"] < s < times["end"]]
    assert max(np.diff(inside + [times["end"]])) < 0.5 * duration


# ------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        ("threshold", "threshold:K"),
        ("threshold:-1", "threshold:K"),
        ("threshold:51", "threshold:K"),
        ("threshold:2.5", "threshold:K"),
        ("sss:0", "sss:W"),
        ("sss:nan", "sss:W"),
        ("sss:inf", "sss:W"),
        ("sss", "sss:W"),
        ("pfi:3", "policy must be"),
        ("greedy", "policy must be"),
        (3, "policy must be a string"),
    ],
)
def test_python_rejects_bad_policy(policy, message):
    with pytest.raises(ValueError, match=message):
        simulate(NET, policy, horizon=1.0)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"horizon": -1.0}, "horizon"),
        ({"horizon": math.nan}, "horizon"),
        ({"horizon": 10.0, "warmup": 10.0}, "warmup"),
        ({"horizon": 10.0, "warmup": -1.0}, "warmup"),
        ({"horizon": 10.0, "reps": 0}, "reps"),
        ({"horizon": 10.0, "info": "psychic"}, "info"),
        ({"horizon": 10.0, "info": "job", "policy": "pfi"}, "job"),
        ({"horizon": 10.0, "workers": 0}, "workers"),
    ],
)
def test_python_rejects_bad_arguments(kwargs, message):
    kwargs = {"policy": "threshold:1"} | kwargs
    with pytest.raises(ValueError, match=message):
        simulate(NET, **kwargs)


def test_compare_rejects_bad_arguments():
    with pytest.raises(ValueError, match="reps"):
        compare(NET, ["pfi", "offline"], horizon=1.0, reps=1)
    with pytest.raises(ValueError, match="distinct"):
        compare(NET, ["pfi", "pfi"], horizon=1.0)
    with pytest.raises(ValueError, match="policies"):
        compare(NET, "pfi", horizon=1.0)
    with pytest.raises(TypeError, match="net must be a LossNetwork"):
        simulate("net", "pfi", horizon=1.0)
    assert parse_policy("threshold:0", 1) == ("threshold", 0.0)


GOOD = dict(
    info="clock", policy="threshold", param=2.0, servers=10, lambda_h=0.6, lambda_l=0.8,
    mu=1.0, r_h=2.0, r_l=1.0, horizon=5.0, warmup=1.0,
)  # fmt: skip


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"servers": 0}, "servers"),
        ({"servers": -5}, "servers"),
        ({"servers": 2_000_000_000}, "servers"),
        ({"lambda_h": 0.0}, "lambda_h"),
        ({"lambda_l": -1.0}, "lambda_l"),
        ({"mu": math.nan}, "mu must not be NaN"),
        ({"mu": math.inf}, "mu"),
        ({"r_h": 0.0}, "r_h"),
        ({"r_l": math.nan}, "r_l"),
        ({"horizon": -1.0}, "horizon"),
        ({"horizon": math.inf}, "horizon"),
        ({"warmup": 5.0}, "warmup"),
        ({"warmup": -0.5}, "warmup"),
        ({"warmup": math.nan}, "warmup"),
        ({"info": "oracle"}, "info"),
        ({"policy": "greedy"}, "policy"),
        ({"param": -1.0}, "reserve"),
        ({"param": 11.0}, "reserve"),
        ({"param": 1.5}, "reserve"),
        ({"param": math.nan}, "reserve"),
        ({"policy": "sss", "param": 0.0}, "window"),
        ({"policy": "sss", "param": -1.0}, "window"),
        ({"policy": "sss", "param": math.inf}, "window"),
        ({"policy": "pfi", "param": math.nan}, "param"),
        ({"policy": "pfi", "info": "job"}, "job"),
        ({"policy": "offline", "info": "job"}, "job"),
        ({"lambda_h": 1e307, "servers": 1000}, "finite"),
    ],
)
def test_core_rejects_bad_values(overrides, message):
    with pytest.raises(ValueError, match=message):
        _core.lossnet_simulate(np.random.PCG64(0), **(GOOD | overrides))


def test_core_rejects_bad_types_and_paths():
    with pytest.raises(TypeError):
        _core.lossnet_simulate(None, **GOOD)
    with pytest.raises(TypeError):
        _core.lossnet_simulate(np.random.PCG64(0), **(GOOD | {"servers": "x"}))
    with pytest.raises(ValueError, match="info"):
        _core.lossnet_path(np.random.PCG64(0), "clok", 10, 0.6, 0.8, 1.0, 1.0)
    with pytest.raises(ValueError, match="horizon"):
        _core.lossnet_path(np.random.PCG64(0), "clock", 10, 0.6, 0.8, 1.0, 0.0)
    with pytest.raises(ValueError, match="servers"):
        _core.lossnet_path(np.random.PCG64(0), "job", 0, 0.6, 0.8, 1.0, 1.0)
    tiny = _core.lossnet_path(np.random.PCG64(0), "job", 1, 0.6, 0.8, 1.0, 1e-12)
    assert tiny[0].size == 0


@pytest.mark.parametrize(
    ("overrides", "error", "message"),
    [
        # Event times would stop advancing (steps below one ulp of t): refused.
        ({"horizon": 1e300}, ValueError, r"horizon: .* <= 1e\+15"),
        ({"servers": 10**9, "horizon": 1e7}, ValueError, r"<= 1e\+15"),
        # 32-bit H counts of a window.
        ({"policy": "sss", "param": 1e300}, ValueError, r"window W.* <= 1e\+09"),
        ({"policy": "sss", "param": 1e3, "servers": 10**6}, ValueError, "window W"),
        # Checkpoints of 1550 x (1e9 + 1) doubles (12 TB) for the full programme: refused
        # without calling malloc.  (The certified band needs a few MB.)
        (FULL_PROGRAMME_1E9, MemoryError, None),
    ],
)
def test_core_refuses_sizes_it_cannot_represent_or_hold(overrides, error, message):
    start = time.perf_counter()
    with pytest.raises(error, match=message):
        _core.lossnet_simulate(np.random.PCG64(0), **(GOOD | {"warmup": 0.0} | overrides))
    assert time.perf_counter() - start < 2.0


def test_core_paths_refuse_what_they_cannot_represent():
    with pytest.raises(ValueError, match=r"1e\+15"):
        _core.lossnet_path(np.random.PCG64(0), "clock", 10, 0.6, 0.8, 1.0, 1e300)
    with pytest.raises(ValueError, match=r"1e\+15"):
        _core.lossnet_path(np.random.PCG64(0), "job", 10**9, 0.6, 0.8, 1.0, 1e7)


def test_core_job_model_with_a_billion_servers_allocates_by_the_busy_count():
    """The heap of completion times grows with the jobs in service (here about 1400),
    instead of an up-front 8 GB block for N = 1e9."""
    out = _core.lossnet_simulate(
        np.random.PCG64(0), **(GOOD | {"info": "job", "servers": 10**9, "horizon": 1e-6,
                                       "warmup": 0.0, "param": 0.0})
    )  # fmt: skip
    assert out["admitted_h"] + out["admitted_l"] == out["events"] > 1000


def test_pfi_with_three_servers_admits_l_exactly_with_two_idle():
    """floor(sqrt(3)) = 1: an L arriving to I >= 2 idle is admitted at once (h = I - 1 >= 1)."""
    net = LossNetwork(3, 0.6, 0.8, 1.0, 2.0, 1.0)
    assert simulate(net, "pfi", horizon=50.0, reps=2, seed=5).admitted_l > 0


@pytest.mark.parametrize(
    ("net", "policy", "kwargs", "message"),
    [
        # The command line's runaway cases (qtheory lossnet simulate, reps 10 by default).
        (NET.with_servers(100), "threshold:3", {"horizon": 1e9}, "^horizon: .* events"),
        (NET.with_servers(100), "threshold:3", {"horizon": 1e12}, "^horizon: .* events"),
        (NET.with_servers(100), "pfi", {"horizon": 1e300}, "^horizon: .* events"),
        (LossNetwork(100, 0.6, 1e12, 1.0, 2.0, 1.0), "threshold:3", {}, "^horizon: .* events"),
        (NET.with_servers(10**8), "pfi", {"horizon": 50.0}, "^horizon: .*'pfi'.* events"),
        (NET.with_servers(10**8), "offline", {"horizon": 5.0}, "^horizon: .*'offline'"),
        (NET.with_servers(100), "threshold:3", {"reps": 10**9}, "^reps: 1000000000 rep"),
        (NET.with_servers(100), "sss:400000", {}, "^policy: .*'sss:400000.0'"),
        (NET.with_servers(5), "sss:1e300", {}, "^policy: .*'sss:1e\\+300'"),
        # the full programme (rewards without exact float64 arithmetic: no band)
        (INEXACT.with_servers(10**8), "offline", {"horizon": 1e-6}, "^horizon: .*offline.*bytes"),
        (NET.with_servers(10**6), "threshold:3", {"info": "job", "horizon": 1e4}, "^horizon"),
        (NET.with_servers(1000), "offline", {"horizon": 1e6}, "^horizon: .* bytes"),
        (NET.with_servers(1000), "offline", {"workers": 8, "horizon": 8e3, "reps": 8}, "^workers:"),
    ],
)
def test_runs_out_of_all_proportion_are_refused_before_they_start(net, policy, kwargs, message):
    """Each case hung for minutes or took gigabytes before the cost guards."""
    start = time.perf_counter()
    with pytest.raises(ValueError, match=message):
        simulate(net, policy, **({"horizon": 10.0, "reps": 10, "seed": 1} | kwargs))
    assert time.perf_counter() - start < 1.0


def test_cost_limits_can_be_lifted_and_lowered():
    net = NET.with_servers(100)
    cost = run_cost(net, "offline", horizon=10.0, reps=2)
    with limits.raised(dp_cells=cost.dp_cells / 2):
        with pytest.raises(ValueError, match="dp_cells"):
            simulate(net, "offline", horizon=10.0, reps=2, seed=1)
    with limits.raised(memory=1e3):
        with pytest.raises(ValueError, match="memory"):
            clock_path(net, 10.0, seed=1)
        with pytest.raises(ValueError, match="memory"):
            trace(net, "pfi", horizon=10.0, seed=1)
    with limits.raised(events=1e20):  # the C layer still refuses what it cannot represent
        with pytest.raises(ValueError, match="1e\\+15"):
            simulate(net, "threshold:1", horizon=1e14, seed=1)


def test_run_cost_is_an_upper_estimate_of_the_events_scanned():
    """The SSS estimate bounds what the C run scans (mean_lookahead per L arrival,
    measured at 0.2 to 0.4 of the window).  PFI no longer scans: its estimate is the
    events plus the backward passes of its thresholds and of its walks, well below what
    a scan would cost."""
    net = NET.with_servers(400)
    res = {p: simulate(net, p, horizon=20.0, warmup=5.0, seed=3) for p in ("pfi", "sss:0.2")}
    scanned = {p: r.events + r.mean_lookahead * (r.admitted_l + r.rejected_l)
               for p, r in res.items()}  # fmt: skip
    estimate = run_cost(net, "sss:0.2", horizon=20.0).events
    assert scanned["sss:0.2"] < estimate < 5 * scanned["sss:0.2"]
    estimate = run_cost(net, "pfi", horizon=20.0).events
    assert 3 * res["pfi"].events < estimate < 4 * res["pfi"].events < scanned["pfi"]
    path = path_cost(net, info="clock", horizon=20.0)
    assert path.events == pytest.approx(res["pfi"].events, rel=0.05)


# ------------------------------------------------------------- idle-server trajectory (trace)

TRACE_NET = LossNetwork(30, 0.6, 0.8, 1.0, 2.0, 1.0)
TRACE_RUNS = [
    ("clock", "threshold:2"),
    ("clock", "pfi"),
    ("clock", "sss:0.1"),
    ("clock", "offline"),
    ("job", "threshold:2"),
]


@pytest.mark.parametrize(("info", "policy"), TRACE_RUNS)
def test_trace_idle_steps_follow_the_events(info, policy):
    """Idle changes by -1 exactly at admitted arrivals, by +1 at departures that end a
    service (clock: slot < busy before the event; job: every departure), else 0; this
    rebuilds the whole trajectory from I = N at time 0, step by step."""
    n = TRACE_NET.servers
    tr = trace(TRACE_NET, policy, info=info, horizon=60.0, seed=21)
    before = np.concatenate(([n], tr.idle[:-1]))  # idle just before each event
    departures = tr.decisions == -1
    ends = departures & (tr.codes < n - before) if info == "clock" else departures
    assert np.array_equal(np.diff(tr.idle, prepend=n), ends.astype(int) - (tr.decisions == 1))
    assert 0 <= tr.idle.min() and tr.idle.max() <= n
    # Every kind of step occurs, and the trajectory reaches both ends of its range.
    assert np.any(tr.decisions == 0) and np.any(tr.decisions == 1) and np.any(ends)
    assert info == "job" or np.any(departures & ~ends)
    assert tr.idle.min() == 0 and tr.idle.max() >= n - 2
    assert (tr.times.dtype, tr.codes.dtype, tr.decisions.dtype) == (np.float64, np.int32, np.int8)
    assert (tr.servers, tr.horizon, tr.policy, tr.info) == (n, 60.0, policy, info)
    # The run draws its future from default_rng(seed) like clock_path / job_path.
    if info == "clock":
        path = clock_path(TRACE_NET, 60.0, seed=21)
        assert np.array_equal(tr.times, path.times) and np.array_equal(tr.codes, path.codes)
    else:
        assert np.array_equal(tr.times[~departures], job_path(TRACE_NET, 60.0, 21).arrival_times)


@pytest.mark.parametrize(("info", "policy"), TRACE_RUNS)
def test_trace_time_average_matches_the_simulated_statistic(info, policy):
    """The time average of the trajectory over (T0, T] equals the C run's own integral of
    the idle count (simulate, reps=1, the same replication): equal up to the rounding of
    two summation orders over ~4000 terms (rel 1e-10; exact arithmetic would give 0)."""
    horizon, warmup, seed = 60.0, 7.5, 22
    res = simulate(TRACE_NET, policy, info=info, horizon=horizon, warmup=warmup, seed=seed)
    tr = trace(TRACE_NET, policy, info=info, horizon=horizon,
               seed=np.random.SeedSequence(seed).spawn(1)[0])  # fmt: skip
    assert tr.times.size == res.events
    assert tr.mean_idle(warmup) == pytest.approx(res.mean_idle.mean, rel=1e-10)
    assert abs(tr.mean_idle(warmup) - tr.mean_idle()) > 1e-3  # the warm-up is cut off
    in_window = tr.times > warmup
    for code, admitted in ((H, res.admitted_h), (L, res.admitted_l)):
        assert np.count_nonzero(in_window & (tr.codes == code) & (tr.decisions == 1)) == admitted


def test_trace_time_average_with_warmup_at_an_event_time():
    """An event at exactly T0 is outside (T0, T]; the level after it counts from T0 on."""
    tr = trace(TRACE_NET, "threshold:3", horizon=20.0, seed=np.random.SeedSequence(5).spawn(1)[0])
    for warmup in (float(tr.times[0]), float(tr.times[100]), float(tr.times[-1])):
        res = simulate(TRACE_NET, "threshold:3", horizon=20.0, warmup=warmup, seed=5)
        assert tr.mean_idle(warmup) == pytest.approx(res.mean_idle.mean, rel=1e-10)


@pytest.mark.parametrize(
    ("net", "policy", "kwargs", "message"),
    [
        (NET, "greedy", {}, "policy must be"),
        (NET, "threshold:51", {}, "threshold:K"),
        (NET, "offline", {"info": "job"}, "job model.*min-cost-flow LP solved in Python"),
        (NET, "pfi", {"info": "job"}, "job model"),
        (NET, "pfi", {"info": "psychic"}, "info"),
        (NET, "pfi", {"horizon": -1.0}, "horizon"),
        (NET, "pfi", {"horizon": math.nan}, "horizon"),
        (NET.with_servers(10**6), "threshold:3", {"horizon": 1e3}, "horizon: .*N = 1000000"),
        (INEXACT.with_servers(10**5), "offline", {"horizon": 10.0}, "offline"),
        (NET, "sss:1e300", {}, "policy"),
    ],
)
def test_trace_rejects_bad_input(net, policy, kwargs, message):
    with pytest.raises(ValueError, match=message):
        trace(net, policy, **({"horizon": 1.0} | kwargs))


@pytest.mark.parametrize("name", ["lossnet_simulate", "lossnet_classes_simulate"])
def test_kernel_entry_points_have_a_signature(name):
    """inspect reads the C functions' text signatures (help() shows them), with max_cells'
    default infinity."""
    signature = inspect.signature(getattr(_core, name))
    assert signature.parameters["max_cells"].default == math.inf
    assert signature.parameters["isa"].default is None


@pytest.mark.parametrize("isa", ["sse2", "AVX2", ""])
def test_instruction_set_cap_is_checked(isa):
    with pytest.raises(ValueError, match="isa must be None, 'generic', 'avx2' or 'avx512'"):
        c_run(NET, "pfi", 0.0, 1.0, 0, isa=isa)
    with pytest.raises(ValueError, match="isa must be"):
        _core.lossnet_classes_simulate(
            np.random.PCG64(0), "pfi", 0.0, 10, [0.6, 0.8], [2.0, 1.0], 1.0, 1.0, 0.0, isa=isa
        )


def test_trace_rejects_a_non_network_with_type_error():
    with pytest.raises(TypeError, match="net must be a LossNetwork"):
        trace("net", "pfi", horizon=1.0)


def test_trace_mean_idle_rejects_bad_warmup():
    tr = trace(NET, "pfi", horizon=2.0, seed=1)
    for warmup in (2.0, -1.0, math.nan):
        with pytest.raises(ValueError, match="warmup"):
            tr.mean_idle(warmup)


OUT_OF_MEMORY = """
import importlib.util, resource, sys
import numpy as np
spec = importlib.util.spec_from_file_location("_core", sys.argv[2])  # without SciPy: fast
_core = importlib.util.module_from_spec(spec)
spec.loader.exec_module(_core)
if sys.argv[1] == "rlimit":  # address space: what is mapped now plus 400 MiB
    with open("/proc/self/status") as status:
        mapped = next(int(line.split()[1]) for line in status if line.startswith("VmSize:"))
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    limit = (mapped << 10) + (400 << 20)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
try:  # about 1.2e8 events: the trace needs over 2 GB
    _core.lossnet_simulate(np.random.PCG64(0), "clock", "threshold", 2.0, 1000, 0.6, 0.8, 1.0,
                           2.0, 1.0, 5e4, 0.0, trace=True)
except MemoryError:
    print("MemoryError")
"""


def test_trace_that_cannot_grow_raises_memory_error():
    """A failed realloc of the trace arrays surfaces as MemoryError, not a crash.  The
    allocation limit: RLIMIT_AS; under AddressSanitizer (benchmarks/asan_check.sh), whose
    allocator aborts on failure by default, its own cap on one allocation, with failures
    returned as NULL."""
    env = dict(os.environ)
    mode = "rlimit"
    if "asan" in env.get("LD_PRELOAD", ""):
        env["ASAN_OPTIONS"] = (
            env.get("ASAN_OPTIONS", "") + ":allocator_may_return_null=1:max_allocation_size_mb=64"
        )
        mode = "asan"
    done = subprocess.run([sys.executable, "-c", OUT_OF_MEMORY, mode, _core.__file__], env=env,
                          capture_output=True, text=True, timeout=300)  # fmt: skip
    assert (done.returncode, done.stdout.strip()) == (0, "MemoryError"), done.stderr[-2000:]
