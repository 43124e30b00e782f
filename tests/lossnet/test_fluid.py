"""The fluid LP: Sympy's case solutions certified by LP duality, and HiGHS against them
and against the greedy rule (admit classes in decreasing r_i mu_i)."""

import numpy as np
import pytest
import sympy as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from qtheory.lossnet import LossNetwork, derive_fluid, fluid, fluid_bound, fluid_lp
from qtheory.model.lossnet_symbols import lambda_h, lambda_l, mu, r_h, r_l

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
    (x_h, x_l), (z_h, z_l), y = case.admitted, case.surplus_prices, case.capacity_price
    primal = [x_h, x_l, lambda_h - x_h, lambda_l - x_l, mu - x_h - x_l]
    dual = [y, z_h, z_l, y + z_h - r_h, y + z_l - r_l]
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


# --- n classes ------------------------------------------------------------------------


def _class_parametrisation(derivation, case):
    """The case's condition and r_1 > ... > r_n written with positive slacks."""
    lambdas, rewards, mu_n = derivation.lambdas, derivation.rewards, derivation.mu
    n = len(lambdas)
    s = sp.symbols(f"s0:{n + 1}", positive=True)
    t = sp.symbols(f"t0:{n}", positive=True)
    within = {rewards[j]: rewards[-1] + sum(t[j : n - 1]) for j in range(n - 1)}
    m = case.marginal
    if m is None:  # underloaded: mu = λ̄_n + s
        within[mu_n] = sum(lambdas) + s[0]
    elif m == 0:  # class 1 saturates: λ_1 = μ + s
        within[lambdas[0]] = mu_n + s[0]
    else:  # λ̄_{m-1} < μ < λ̄_m: μ = λ̄_{m-1} + s0, λ_m = s0 + s1
        within[mu_n] = sum(lambdas[:m]) + s[0]
        within[lambdas[m]] = s[0] + s[1]
    return within


@pytest.mark.parametrize("n", [2, 3, 4])
def test_every_class_case_is_certified_optimal(n):
    """Each case: primal feasible, dual feasible, equal objectives, under its condition."""
    derivation = fluid.derive_fluid(n)
    assert len(derivation.cases) == n + 1
    for case in derivation.cases:
        within = _class_parametrisation(derivation, case)
        x, y, z = case.admitted, case.capacity_price, case.surplus_prices
        lam, r = derivation.lambdas, derivation.rewards
        primal = [*x, *(lam[j] - x[j] for j in range(n)), derivation.mu - sum(x)]
        dual = [y, *z, *(y + z[j] - r[j] for j in range(n))]
        for expression in primal + dual:
            assert sp.simplify(expression.subs(within)).is_nonnegative, (case.name, expression)
        assert sp.simplify(case.value - case.dual_value) == 0
        assert sp.simplify(case.condition.subs(within)) == sp.true, case.name


def test_two_class_overloaded_case_is_the_closed_form():
    """Class L marginal is the overloaded regime, with the bound written here by hand."""
    from qtheory.model.lossnet_symbols import servers

    overloaded = derive_fluid().case(1)
    assert overloaded.name == "overloaded"
    assert overloaded.condition == sp.And(sp.Lt(lambda_h, mu), sp.Lt(mu, lambda_h + lambda_l))
    assert sp.expand(overloaded.value - (r_h * lambda_h + r_l * (mu - lambda_h))) == 0
    bound = derive_fluid().bound(1)
    assert bound.args == (servers, lambda_h, mu, r_h, r_l)
    assert sp.expand(bound.expr - servers * (r_h * lambda_h + r_l * (mu - lambda_h))) == 0


def test_derive_fluid_refuses_one_class_and_a_bad_marginal():
    with pytest.raises(ValueError, match="n must be >= 2"):
        fluid.derive_fluid(1)
    with pytest.raises(ValueError, match="marginal must be a class index in 0..1, got 2"):
        derive_fluid().case(2)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 6),
    data=st.data(),
    servers=st.integers(1, 10**6),
)
def test_highs_fluid_of_n_classes_matches_the_knapsack_closed_form(n, data, servers):
    """HiGHS against the closed form (written here from the partial sums) and its dual
    against y = r_m, z_j = (r_j - r_m)^+."""
    rates = data.draw(st.lists(st.floats(0.05, 2.0), min_size=n, max_size=n))
    steps = data.draw(st.lists(st.floats(0.05, 3.0), min_size=n, max_size=n))
    rewards = np.cumsum(steps)[::-1].tolist()
    partial = np.cumsum(rates)
    mu_value = data.draw(st.floats(0.01, 0.99)) * (partial[-1] - 0.01) + 0.01
    assume(rates[0] < mu_value and all(abs(p - mu_value) > 1e-6 for p in partial))
    net = LossNetwork(servers, rates, rewards, mu_value)
    m = int(np.searchsorted(partial, mu_value))  # first partial sum above mu
    closed = servers * (
        sum(rewards[j] * rates[j] for j in range(m)) + rewards[m] * (mu_value - partial[m - 1])
    )
    sol = fluid.fluid_lp(net)
    assert sol.marginal == m == net.marginal
    assert sol.value == pytest.approx(closed, rel=1e-9)
    assert fluid.fluid_bound(net) == pytest.approx(closed, rel=1e-13)
    assert sol.server_price == pytest.approx(rewards[m] * mu_value, rel=1e-9)
    expected_z = [max(r - rewards[m], 0.0) for r in rewards]
    np.testing.assert_allclose(sol.bound_prices, expected_z, rtol=1e-9, atol=1e-9 * rewards[0])


@pytest.mark.parametrize("params", [(0.6, 0.8, 1.0, 2.0, 1.0), (1.323, 3.237, 1.36, 32.499, 2.14)])
def test_fluid_lp_of_a_two_class_network_is_the_two_class_bound(params):
    lam_h, lam_l, service, reward_h, reward_l = params
    net = LossNetwork(300, lam_h, lam_l, service, reward_h, reward_l)
    sol = fluid.fluid_lp(net)
    assert sol.value == pytest.approx(fluid_bound(net), rel=1e-12)
    assert fluid._class_fluid_bound(net) == pytest.approx(fluid_bound(net), rel=1e-15)
    assert sol.marginal == 1
    two = fluid_lp([lam_h, lam_l], [reward_h, reward_l], [service, service], 300)
    assert sol.server_price == pytest.approx(two.server_price, rel=1e-12)
    assert sol.server_price == pytest.approx(reward_l * service, rel=1e-9)  # r_L μ


def test_fluid_lp_takes_a_network_or_vectors_not_both():
    net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    with pytest.raises(ValueError, match="give a network or the vectors, not both"):
        fluid.fluid_lp(net, servers=10)


def test_fluid_lp_of_vectors_names_no_marginal_class_when_everybody_fits():
    sol = fluid_lp([0.2, 0.1], [2.0, 1.0], [1.0, 1.0])
    assert sol.marginal is None and sol.server_price == 0
    np.testing.assert_allclose(sol.bound_prices, [2.0, 1.0], rtol=1e-12)
