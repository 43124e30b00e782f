"""Fuzzing contract of the public entry points of qtheory.lossnet (the core modules) and
qtheory.exact: any argument returns or raises a ValueError/TypeError with a message
(never AttributeError, ZeroDivisionError, an error from inside NumPy/SciPy/mpmath/tqdm,
or a silent NaN).  Bounded: small examples, a few seconds in all."""

from __future__ import annotations

import numpy as np
from conftest import FUZZ, anything, assert_clean_outcome, dps_values
from hypothesis import given
from hypothesis import strategies as st

from qtheory import exact
from qtheory.exact import ctmc
from qtheory.lossnet import (
    LossNetwork,
    certified_fluid,
    certified_online_optimum,
    fit_log_slope,
    fluid_bound,
    fluid_lp,
    leading_constant,
    online_optimum,
    regret_curve,
    threshold_table,
)
from qtheory.lossnet.claims import bounded_offset_claim
from qtheory.lossnet.duration_fluid import (
    discretised_duration_lp,
    duration_aware_fluid,
    duration_fluid_bound,
    duration_fluid_solution,
)
from qtheory.lossnet.mdp import admission_mdp, solve_admission_mdp
from qtheory.lossnet.offline_job import (
    brute_force_selection,
    max_overlap,
    max_weight_interval_selection,
    offline_job_optimum,
    single_track_selection,
)

NET = LossNetwork(8, 0.6, 0.8, 1.0, 2.0, 1.0)

net_or_junk = st.one_of(anything, st.just(NET))
small_vector = st.lists(
    st.one_of(st.floats(-1, 3), st.sampled_from([float("nan"), float("inf")])), max_size=3
)

NETWORK_CALLS = [
    threshold_table,
    certified_online_optimum,
    certified_fluid,
    online_optimum,
    fluid_bound,
    leading_constant,
    duration_fluid_bound,
    duration_fluid_solution,
    admission_mdp,
    solve_admission_mdp,
]


@FUZZ
@given(net_or_junk, st.sampled_from(NETWORK_CALLS))
def test_network_entry_points(net, call):
    assert_clean_outcome(call, net)


@FUZZ
@given(st.one_of(dps_values, anything), st.one_of(st.none(), anything))
def test_online_optimum_dps(dps, _):
    assert_clean_outcome(online_optimum, NET, dps=dps)


@FUZZ
@given(st.one_of(dps_values, anything))
def test_certified_online_optimum_dps(dps):
    assert_clean_outcome(certified_online_optimum, NET, dps=dps)


@FUZZ
@given(net_or_junk, st.one_of(anything, st.lists(st.integers(-2, 30), max_size=3)), anything)
def test_regret_curve_and_fit(net, grid, min_servers):
    points = assert_clean_outcome(regret_curve, net, grid)
    assert_clean_outcome(fit_log_slope, grid, [])
    assert_clean_outcome(fit_log_slope, points if points else grid, min_servers)
    assert_clean_outcome(bounded_offset_claim, net, points if points else grid)


@FUZZ
@given(
    st.one_of(anything, small_vector),
    st.one_of(anything, small_vector),
    st.one_of(anything, small_vector),
    st.one_of(anything, st.floats(-1, 10)),
)
def test_fluid_lps(rates, rewards, service, servers):
    assert_clean_outcome(fluid_lp, rates, rewards, service, servers)
    assert_clean_outcome(duration_aware_fluid, rates, rewards, servers)
    assert_clean_outcome(discretised_duration_lp, rates, rewards, 1.0, service)


@FUZZ
@given(
    st.one_of(anything, small_vector),
    st.one_of(anything, small_vector),
    st.one_of(anything, small_vector),
    st.one_of(anything, st.integers(-1, 3)),
)
def test_interval_selections(starts, ends, weights, tracks):
    assert_clean_outcome(max_weight_interval_selection, starts, ends, weights, tracks)
    assert_clean_outcome(single_track_selection, starts, ends, weights)
    assert_clean_outcome(brute_force_selection, starts, ends, weights, tracks)
    assert_clean_outcome(max_overlap, starts, ends)
    assert_clean_outcome(
        offline_job_optimum, starts, weights, ends, servers=tracks, r_h=2.0, r_l=1.0, horizon=5.0
    )


matrix = st.one_of(
    anything,
    st.lists(st.lists(st.floats(-1, 3), min_size=2, max_size=2), max_size=3),
    st.just(np.array([[0.0, 1.0], [2.0, 0.0]])),
)


@FUZZ
@given(matrix, st.one_of(anything, st.integers(-1, 3)), anything)
def test_exact_entry_points(q, state, other):
    for call in (exact.stationary_ctmc, exact.stationary_dtmc, exact.generator, ctmc.stationary):
        assert_clean_outcome(call, q)
    assert_clean_outcome(exact.birth_death_stationary, q, other)
    assert_clean_outcome(exact.birth_death_stationary, q, other, dps=state)
    assert_clean_outcome(exact.birth_death_log_weights, q, other)
    assert_clean_outcome(exact.hitting_probabilities, q, state, other)
    assert_clean_outcome(exact.mean_hitting_times, q, state)
    assert_clean_outcome(exact.accumulated_reward, q, state, other)
    assert_clean_outcome(exact.transient, q, state, other)
    assert_clean_outcome(exact.hitting_time_cdf, q, state, 0, other)


@FUZZ
@given(
    st.one_of(anything, st.lists(matrix, max_size=2)),
    anything,
    anything,
    st.one_of(anything, matrix),
)
def test_mdp_entry_points(rates, rewards, allowed, policy):
    mdp = assert_clean_outcome(exact.CTMDP, rates, rewards, allowed)
    target = mdp if mdp is not None else rates
    assert_clean_outcome(exact.policy_iteration, target)
    assert_clean_outcome(exact.linear_program, target)
    assert_clean_outcome(exact.evaluate_policy, target, policy)
