"""PFI's O(1) thresholds against the literal look-ahead scan, decision by decision.

The C code decides an L arrival from a threshold theta(m) of the next event index,
computed by a backward recursion that is exact where its two envelopes meet (coupling
from the past; with AVX2, eight events at a time by a scan of composed clamps), and
reports the look-ahead statistics of the scan it no longer runs from the walks' ends read
backward over chunks of events, the walks pending at a chunk's end grouped by idle
count.  The slow reference is the literal scan
of the definition, :func:`qtheory.lossnet.policies.pfi_promise`: admit the L, reject
every later L, admit every later H, and ask whether the idle count reaches floor(sqrt N)
before it is 0.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from qtheory.lossnet.policies import replay
from qtheory.model.paths import ClockPath
from qtheory.sim import _core


def c_pfi(servers, lambda_h, lambda_l, mu, horizon, warmup, seed, trace=True, isa=None):
    return _core.lossnet_simulate(
        np.random.PCG64(seed), "clock", "pfi", 0.0, servers, lambda_h, lambda_l, mu,
        2.0, 1.0, horizon, warmup, trace=trace, isa=isa,
    )  # fmt: skip


CASES = [
    # (servers, lambda_h, lambda_l, mu, horizon): small N (s = 1, 2), perfect squares and
    # their neighbours, the default rates, H close to mu (long promises), H above mu (the
    # C layer accepts it; promises rarely keep) and a light L stream.
    (1, 0.6, 0.8, 1.0, 40.0),
    (2, 0.6, 0.8, 1.0, 40.0),
    (3, 0.6, 0.8, 1.0, 40.0),
    (4, 0.6, 0.8, 1.0, 30.0),
    (8, 0.6, 0.8, 1.0, 30.0),
    (25, 0.6, 0.8, 1.0, 20.0),
    (99, 0.6, 0.8, 1.0, 12.0),
    (100, 0.95, 0.8, 1.0, 12.0),
    (101, 1.3, 0.5, 1.0, 10.0),
    (400, 0.6, 0.5, 1.0, 6.0),
    (1000, 0.8, 0.8, 1.0, 3.0),
    (10_000, 0.6, 0.8, 1.0, 2.5),
]


@pytest.mark.parametrize(("servers", "lambda_h", "lambda_l", "mu", "horizon"), CASES)
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("isa", ["generic", None])
def test_pfi_thresholds_match_the_literal_scan(servers, lambda_h, lambda_l, mu, horizon, seed,
                                               isa):  # fmt: skip
    """Both twins of the thresholds' refill and of the walks' list: one step at a time,
    and the processor's best (eight events at a time with AVX2, sixteen keys with
    AVX-512)."""
    warmup = horizon / 3
    out = c_pfi(servers, lambda_h, lambda_l, mu, horizon, warmup, seed, isa=isa)
    n = out["trace_t"].size
    extra = 50.0 if lambda_h < mu else 400.0  # the promises may look far past T
    times, codes = _core.lossnet_path(
        np.random.PCG64(seed), "clock", servers, lambda_h, lambda_l, mu, horizon + extra
    )
    assert np.array_equal(out["trace_t"], times[:n])
    assert np.array_equal(out["trace_code"], codes[:n])
    ref = replay(ClockPath(times, codes), servers, "pfi", events=n, warmup=warmup)
    assert np.array_equal(out["trace_decision"], ref.decisions)
    assert out["lookahead_events"] == ref.lookahead_events
    assert out["lookahead_time"] == ref.lookahead_time  # same sums, same order: bit for bit
    assert out["l_arrivals_scored"] == ref.scored
    if servers >= 4 and lambda_h < mu:
        assert ref.lookahead_events > 0 and out["admitted_l"] > 0


def test_pfi_statistics_without_warmup_and_with_everything_in_window():
    """warmup = 0: every L arrival, including those at fill-up, is scored."""
    servers, horizon = 49, 8.0
    out = c_pfi(servers, 0.6, 0.8, 1.0, horizon, 0.0, 7)
    n = out["trace_t"].size
    times, codes = _core.lossnet_path(np.random.PCG64(7), "clock", servers, 0.6, 0.8, 1.0, 60.0)
    ref = replay(ClockPath(times, codes), servers, "pfi", events=n)
    assert np.array_equal(out["trace_decision"], ref.decisions)
    assert (out["lookahead_events"], out["lookahead_time"]) == (
        ref.lookahead_events,
        ref.lookahead_time,
    )
    assert ref.scored == out["admitted_l"] + out["rejected_l"]


@pytest.mark.parametrize("servers", [10_000, 1_000_000])
def test_pfi_large_networks_are_sane(servers):
    """At large N (no reference: the scan would be slow) L is both admitted and refused
    and the reported look-ahead is the order of the scan it replaces (sqrt N events)."""
    horizon = 3.0 if servers == 10_000 else 2.2
    out = c_pfi(servers, 0.6, 0.8, 1.0, horizon, 1.5, 3, trace=False)
    assert out["rejected_l"] > 0 and out["admitted_l"] > 0
    mean = out["lookahead_events"] / out["l_arrivals_scored"]
    assert 0.05 * math.isqrt(servers) < mean < 10 * math.isqrt(servers)


@pytest.mark.parametrize("policy", ["pfi", "sss"])
@pytest.mark.parametrize("lambdas", [(0.6, 0.8), (0.3, 0.5, 0.6)])
def test_runs_without_lookahead_statistics_take_the_same_decisions(policy, lambdas):
    """lookahead_stats=False skips only the statistics: the trace (every decision) and
    every other statistic are those of the run that records them, and the look-ahead
    sums are 0.  PFI's walks cover the whole run (about 4,000 events each, its thresholds
    refilled many times)."""
    param = 0.0 if policy == "pfi" else 0.01
    rewards = [float(len(lambdas) - j) for j in range(len(lambdas))]

    def run(stats):
        return _core.lossnet_classes_simulate(
            np.random.PCG64(5), policy, param, 900, list(lambdas), rewards, 1.0, 40.0, 10.0,
            trace=True, lookahead_stats=stats,
        )  # fmt: skip

    with_stats, without = run(True), run(False)
    assert with_stats["lookahead_events"] > 0 and with_stats["lookahead_time"] > 0
    assert (without["lookahead_events"], without["lookahead_time"]) == (0, 0.0)
    for key, value in with_stats.items():
        if key.startswith("lookahead"):
            continue
        if isinstance(value, np.ndarray):
            assert np.array_equal(value, without[key]), key
        else:
            assert value == without[key], key


def test_pfi_far_from_full_draws_no_lookahead():
    """A run that never comes within floor(sqrt N) of full needs no thresholds: it
    draws exactly the events trunk reservation draws (the generator ends in the same
    state).  Refilling them there would read until the two envelopes meet, about N
    events with lambda_H = mu: 1e8 events for this 100-event run."""
    servers = 10**8
    horizon = 100 / (2.5 * servers)
    states = []
    for policy, param in (("pfi", 0.0), ("threshold", 0.0)):
        generator = np.random.PCG64(1)
        out = _core.lossnet_simulate(generator, "clock", policy, param, servers, 1.0, 0.5,
                                     1.0, 1.0, 0.5, horizon, 0.0)  # fmt: skip
        assert out["rejected_l"] == 0 and out["events"] > 50
        states.append(generator.state["state"])
    assert states[0] == states[1]
