"""Fuzzing every public entry point of qtheory.walks with the contract of
conftest.assert_clean_outcome: each call returns (no NaN in a float result, nor in a float
array) or raises ValueError/TypeError with a message.  Sizes are kept small where the
inputs are valid (the cost limits are tested in the modules' own tests); bounded to a few
seconds in all."""

import math

import numpy as np
from conftest import FUZZ, anything, assert_clean_outcome, dps_values, special_reals
from hypothesis import given, settings
from hypothesis import strategies as st

from qtheory.core.stats import Estimate
from qtheory.model.lossnet import LossNetwork
from qtheory.walks import (
    chernoff,
    chernoff_checks,
    epochs,
    hitting,
    idle_tails,
    ruin,
    sss,
    window_events,
)
from qtheory.walks.bounds import BoundCheck
from qtheory.walks.idle import IdleWalk
from qtheory.walks.lookahead_sweep import (
    SweepPoint,
    loss_growth,
    smallest_bounded_constant,
    sss_replication,
    window_sweep,
)

WALKS = settings(FUZZ, max_examples=40, derandomize=True)  # fixed examples: a failure reproduces
tails = st.sampled_from(["upper", "lower", "up", None])


@st.composite
def networks(draw):
    servers = draw(st.integers(min_value=1, max_value=60))
    lambda_h = draw(st.floats(0.05, 0.95))
    lambda_l = draw(st.floats(1.0 - lambda_h + 0.01, 3.0))
    return LossNetwork(servers, lambda_h, lambda_l, 1.0, 2.0, 1.0)


maybe_networks = st.one_of(networks(), anything)
walks = st.builds(IdleWalk, st.integers(1, 60), st.floats(0.05, 0.9), st.just(1.0))
maybe_walks = st.one_of(walks, anything)


def _no_nan(result):
    """Float arrays (and dataclass fields) carry no silent NaN either."""
    if isinstance(result, np.ndarray) and result.dtype.kind == "f":
        assert not np.isnan(result).any()
    elif isinstance(result, BoundCheck):
        assert not math.isnan(result.bound) and not math.isnan(result.exact)
    elif isinstance(result, list):
        for item in result:
            _no_nan(item)


def _check(call, *args, **kwargs):
    _no_nan(assert_clean_outcome(call, *args, **kwargs))


@WALKS
@given(anything, anything, anything, dps_values)
def test_simple_walk_formulas(p, level, band, digits):
    _check(ruin.walk_ruin_probability, p, level, band, dps=digits)
    _check(ruin.walk_ruin_limit, p, level, dps=digits)
    _check(hitting.walk_climb_steps, p, level, band, dps=digits)


@WALKS
@given(anything, anything, anything, tails, dps_values)
def test_chernoff_families(a, b, x, tail, digits):
    for function in (chernoff.log_poisson_tail_bound, chernoff.poisson_tail_bound):
        _check(function, a, x, tail, dps=digits)
    for function in (chernoff.log_walk_tail_bound, chernoff.walk_tail_bound):
        _check(function, a, b, x, tail, dps=digits)
    for function in (chernoff.log_skellam_tail_bound, chernoff.skellam_tail_bound):
        _check(function, a, b, x, tail, dps=digits)


@WALKS
@given(
    st.one_of(st.lists(special_reals, min_size=0, max_size=6), anything),
    st.one_of(st.lists(special_reals, min_size=0, max_size=6), anything),
    anything,
    st.sampled_from(["time", "steps", "days"]),
    dps_values,
)
def test_birth_death_routes(up, down, band, unit, digits):
    _check(ruin.chain_ruin_probabilities, up, down, band, dps=digits)
    _check(hitting.climb_means, up, down, band, unit=unit, dps=digits)
    _check(hitting.descent_means, up, down, unit=unit, dps=digits)
    _check(hitting.jump_chain, up, down)
    _check(ruin.log_cumsum_exp, up)


@WALKS
@given(maybe_walks, anything, anything, anything)
def test_idle_process_bounds(walk, window, start, level):
    _check(idle_tails.idle_after_window_bound, walk, window, start, level)
    _check(idle_tails.climb_steps_tail_bound, walk, start, level)
    _check(idle_tails.climb_time_tail_bound, walk, start, window)
    _check(idle_tails.hit_zero_time_bound, walk, start, window)
    _check(ruin.ruin_checks, walk, None, None)
    _check(hitting.hitting_checks, walk, None, None)
    _check(hitting.climb_time_leading_term, walk)


@WALKS
@given(anything, anything, anything)
def test_idle_walk_construction(servers, lambda_h, mu):
    walk = assert_clean_outcome(IdleWalk, servers, lambda_h, mu)
    if walk is not None and walk.servers <= 10**5:
        _check(walk.up_probabilities)
        _check(walk.coupled_up_probability)


@settings(WALKS, max_examples=15)
@given(maybe_networks, anything, anything)
def test_sss_and_window_events(net, c, delta):
    _check(sss.failure_probability, net, c)
    _check(sss.failure_bound, net, c)
    _check(sss.loss_rate_bound, net, c)
    _check(sss.losses_per_failure, net)
    _check(sss.losses_per_failure_bound, net)
    _check(sss.critical_window_constant, net)
    _check(window_events.window_mean_events, net, c)
    _check(window_events.log_window_event_bound, net, c, delta)
    _check(window_events.window_event_bound, net, c, delta, "lower")


@settings(WALKS, max_examples=5)
@given(maybe_networks, st.one_of(st.lists(special_reals, max_size=2), anything))
def test_chernoff_checks(net, c_values):
    _check(chernoff_checks.chernoff_checks, net, c_values)


@settings(WALKS, max_examples=15)
@given(maybe_networks, anything, anything, anything)
def test_epochs_entry_points(net, reserve, reset, warmup):
    _check(epochs.trunk_reservation_generator, net, reserve)
    _check(epochs.markov_epoch_means, net, reserve, reset=reset)
    _check(epochs.epochs_from_trace, net, reset=reset, warmup=warmup)
    _check(epochs.renewal_reward, reserve, net)
    ones = epochs.Epochs(*(np.ones(3) for _ in range(7)))
    _check(epochs.renewal_reward, ones, net)


@settings(WALKS, max_examples=15)
@given(anything, anything, anything)
def test_sweep_entry_points(c, servers, seed):
    unused = Estimate.of([0.0, 1.0])
    points = [SweepPoint(100, 1.0, 0.1, 13.0, 2, 3, unused, unused, unused)]
    _check(loss_growth, points, c)
    _check(loss_growth, c, c)
    _check(smallest_bounded_constant, servers)
    net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    # invalid grids only (a valid sweep simulates): every call here must be refused
    _check(window_sweep, net, [c], [servers], reps=1, seed=seed, progress=False)
    _check(sss_replication, {"version": 1, "seed": seed})
