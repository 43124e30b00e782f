"""The fluid LP: Sympy's case solutions certified by LP duality, and HiGHS against them
and against the greedy rule (admit classes in decreasing r_i mu_i)."""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from qtheory.lossnet import LossNetwork, derive_fluid, fluid_bound, fluid_lp
from qtheory.lossnet.symbols import lambda_h, lambda_l, mu, r_h, r_l

SLACK = sp.symbols("s1 s2 p", positive=True)
# Each case's condition written with positive slacks, so that Sympy's assumptions system
# can decide signs: e.g. overloaded means mu = lambda_H + s1, lambda_L = s1 + s2.
CASE_PARAMETRISATION = {
    "H saturates": {lambda_h: mu + SLACK[0]},
    "overloaded": {mu: lambda_h + SLACK[0], lambda_l: SLACK[0] + SLACK[1]},
    "underloaded": {mu: lambda_h + lambda_l + SLACK[0]},
}


@pytest.mark.parametrize("case", derive_fluid().cases, ids=lambda c: c.name)
def test_each_case_is_certified_optimal(case):
    """Primal feasible, dual feasible, equal objectives => optimal (weak duality)."""
    within = {**CASE_PARAMETRISATION[case.name], r_h: r_l + SLACK[2]}
    primal = [
        case.admitted_h,
        case.admitted_l,
        lambda_h - case.admitted_h,
        lambda_l - case.admitted_l,
        mu - case.admitted_h - case.admitted_l,
    ]
    dual = [
        case.capacity_price,
        case.surplus_price_h,
        case.surplus_price_l,
        case.capacity_price + case.surplus_price_h - r_h,
        case.capacity_price + case.surplus_price_l - r_l,
    ]
    for expression in primal + dual:
        assert sp.simplify(expression.subs(within)).is_nonnegative, expression
    assert sp.simplify(case.value - case.dual_value) == 0
    assert case.condition.subs(within) == sp.true


def test_overloaded_bound():
    net = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)
    assert fluid_bound(net) == pytest.approx(100 * (2.0 * 0.6 + 1.0 * 0.4), rel=1e-15)


@settings(max_examples=50, deadline=None)
@given(
    lam_h=st.floats(0.05, 0.95),
    extra=st.floats(0.05, 3.0),
    reward_l=st.floats(0.1, 5.0),
    premium=st.floats(0.01, 5.0),
    n=st.integers(1, 10**6),
)
def test_highs_matches_the_symbolic_solution(lam_h, extra, reward_l, premium, n):
    service = 1.7  # lambda_H < mu < lambda_H + lambda_L with mu != 1
    lam_h, lam_l = lam_h * service, (1.0 - lam_h + extra) * service
    net = LossNetwork(n, lam_h, lam_l, service, reward_l + premium, reward_l)
    numeric = fluid_lp([lam_h, lam_l], [net.r_h, net.r_l], [service, service], servers=n)
    assert numeric.value == pytest.approx(fluid_bound(net), rel=1e-9)
    # one more server is worth r_L mu per unit time: it serves mu more L jobs
    assert numeric.server_price == pytest.approx(reward_l * service, rel=1e-9)


def greedy(rates, rewards, service):
    """Fractional knapsack: fill server time in decreasing reward per server-time."""
    value, capacity = 0.0, 1.0
    for i in np.argsort(-(rewards * service)):
        take = min(rates[i], capacity * service[i])
        value += rewards[i] * take
        capacity -= take / service[i]
    return value


@settings(max_examples=50, deadline=None)
@given(
    st.integers(1, 6).flatmap(
        lambda k: st.lists(
            st.tuples(st.floats(0.01, 2.0), st.floats(0.01, 5.0), st.floats(0.1, 4.0)),
            min_size=k,
            max_size=k,
        )
    )
)
def test_many_classes_with_per_class_service_rates_match_greedy(classes):
    rates, rewards, service = (np.array(c) for c in zip(*classes, strict=True))
    assert fluid_lp(rates, rewards, service).value == pytest.approx(
        greedy(rates, rewards, service), rel=1e-8, abs=1e-12
    )


@pytest.mark.parametrize(
    "args",
    [([0.5], [1.0, 2.0], [1.0]), ([0.5, -1], [1.0, 2.0], [1.0, 1.0]), ([0.5], [np.nan], [1.0])],
)
def test_bad_lp_input(args):
    with pytest.raises(ValueError):
        fluid_lp(*args)
