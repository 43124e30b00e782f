"""Optimal gate, RR optimum and PoF against independent routes: direct numerical
maximisation of the welfare curves (no first-order condition), float64 against mpmath,
and the equal-throughput dominance."""

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar

from qtheory.gated import (
    GatedQueue,
    optimal_gate,
    optimal_routing,
    price_of_forgetting,
    root,
    welfare_ga,
    welfare_rr,
)

CASES = [
    (np.inf, 1.0, 1.01, 1.0),
    (np.inf, 1.0, 3.0, 1.0),
    (2.0, 1.0, 3.0, 1.0),
    (2.0, 1.5, 40.0, 2.0),
    (0.7, 1.0, 2.5, 1.0),
    (5.0, 2.0, 1e4, 1.0),
]


@pytest.mark.parametrize("params", CASES)
def test_optimal_gate_beats_a_direct_search(params):
    queue = GatedQueue(*params)
    opt = optimal_gate(queue)
    beta = 1 / params[0]
    lowest = max(0.0, 1 / params[1] - beta) + 1e-9
    search = minimize_scalar(
        lambda t: -float(welfare_ga(queue, t)),
        bounds=(lowest, lowest + 60 / params[1]),
        method="bounded",
        options={"xatol": 1e-12},
    )
    assert opt.welfare >= -search.fun - 1e-12 * abs(search.fun)
    assert opt.welfare == pytest.approx(-search.fun, rel=1e-9)
    assert opt.gate == pytest.approx(search.x, rel=1e-4, abs=1e-6)
    assert opt.root == pytest.approx(float(root(opt.gate, params[0], params[1])), rel=1e-10)


def test_boundary_optimum_when_admitting_everybody_is_best():
    queue = GatedQueue(0.3, 1.0, 50.0, 1.0)  # scarce, valuable customers
    opt = optimal_gate(queue)
    assert opt.at_boundary and opt.gate == 0.0
    assert opt.welfare == pytest.approx(0.3 * (50.0 - 1.0 / 0.7), rel=1e-13)  # M/M/1, rate 0.3


@pytest.mark.parametrize("params", CASES)
def test_float64_matches_mpmath(params):
    queue = GatedQueue(*params)
    fast, precise = optimal_gate(queue), optimal_gate(queue, dps=30)
    assert fast.welfare == pytest.approx(float(precise.welfare), rel=1e-12)
    assert fast.gate == pytest.approx(float(precise.gate), rel=1e-10)
    assert price_of_forgetting(queue) == pytest.approx(
        float(price_of_forgetting(queue, dps=30)), rel=1e-12
    )


def test_dps_values_agree_across_precisions():
    queue = GatedQueue("inf", "1", "2", "1")
    with mpmath.workdps(120):
        at_50 = price_of_forgetting(queue, dps=50)
        at_100 = price_of_forgetting(queue, dps=100)
        assert abs(at_50 / at_100 - 1) < mpmath.mpf(10) ** -49


@pytest.mark.parametrize("params", CASES)
def test_rr_optimum_matches_a_direct_search(params):
    queue = GatedQueue(*params)
    opt = optimal_routing(queue)
    upper = min(params[0], params[1] * (1 - 1e-12))
    search = minimize_scalar(
        lambda r: -float(welfare_rr(queue, r)),
        bounds=(0.0, upper),
        method="bounded",
        options={"xatol": 1e-12},
    )
    assert opt.welfare == pytest.approx(-search.fun, rel=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    nu=st.floats(1.001, 1e4),
    arrival=st.one_of(st.just(np.inf), st.floats(0.1, 50.0)),
)
def test_price_of_forgetting_is_at_least_one(nu, arrival):
    assert price_of_forgetting(GatedQueue(arrival, 1.0, nu, 1.0)) >= 1 - 1e-12


@settings(max_examples=40, deadline=None)
@given(throughput=st.floats(0.01, 0.99), arrival=st.one_of(st.just(np.inf), st.floats(1.0, 20.0)))
def test_ga_dominates_rr_at_equal_throughput(throughput, arrival):
    """sigma_GA < lambda/mu at the same throughput (the paper's dominance claim)."""
    gate = 1 / throughput - 1 / arrival
    if gate <= 0:
        return
    assert root(gate, arrival, 1.0) < throughput


def test_optimum_needs_a_worthwhile_service():
    with pytest.raises(ValueError, match="nu"):
        optimal_gate(GatedQueue(np.inf, 1.0, 1.0, 1.0))
    with pytest.raises(ValueError, match="cost"):
        GatedQueue(np.inf, 1.0, 2.0, float("nan"))
    with pytest.raises(ValueError, match="rate"):
        welfare_rr(GatedQueue(np.inf, 1.0, 2.0, 1.0), 1.5)
