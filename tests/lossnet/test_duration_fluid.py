"""The duration-aware fluid bound: Sympy's integrals against quadrature, the closed form
against a discretised LP sandwich (HiGHS) and Monte Carlo, LP duality, dominance of the
ordinary fluid bound, and the bound on the job-model offline optimum (exact per path
through the dual bound D_theta, in expectation through E[D_theta], statistical for a
single path against N v T')."""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.integrate import quad

from qtheory.lossnet import LossNetwork, fluid_bound, fluid_lp
from qtheory.lossnet.duration_fluid import (
    cutoff,
    derive_duration_fluid,
    discretised_duration_lp,
    duration_aware_fluid,
    duration_fluid_bound,
    duration_fluid_solution,
    expected_dual_bound,
    monte_carlo_policy,
    mu,
    pathwise_dual_bound,
    reach,
    reward,
    theta,
)
from qtheory.lossnet.offline_job import offline_job_optimum, sample_job_path

PAPER = LossNetwork(50, 0.6, 0.6, 1.0, 2.0, 1.0)


def test_integrals_against_quadrature():
    d = derive_duration_fluid()
    rate, cut, price, r, m = 1.7, 0.9, 0.8, 1.3, 0.4
    pdf = lambda s: rate * np.exp(-rate * s)  # noqa: E731
    values = {mu: rate, cutoff: cut, theta: price, reward: r, reach: m}
    checks = [
        (d.admitted_fraction, quad(pdf, 0, cut)[0]),
        (d.admitted_work, quad(lambda s: s * pdf(s), 0, cut)[0]),
        (d.surplus, quad(lambda s: max(r - price * s, 0.0) * pdf(s), 0, np.inf)[0]),
    ]
    # end effect with c = r / theta: integral over u of E(r - theta min(S, u))^+ - surplus
    surplus = quad(lambda s: max(r - price * s, 0.0) * pdf(s), 0, np.inf)[0]

    def clipped(u):  # min(S, u) = u when S > u, which has probability exp(-rate u)
        inner = quad(lambda s: max(r - price * s, 0.0) * pdf(s), 0, u)[0]
        return inner + max(r - price * u, 0.0) * np.exp(-rate * u) - surplus

    end = quad(clipped, 0, m)[0]
    checks.append((d.end_effect.subs(cutoff, r / price), end))
    for expr, numeric in checks:
        assert float(expr.subs(values)) == pytest.approx(numeric, rel=1e-8)


def test_surplus_is_reward_minus_priced_work():
    d = derive_duration_fluid()
    at_cut = {cutoff: reward / theta}
    identity = reward * d.admitted_fraction.subs(at_cut) - theta * d.admitted_work.subs(at_cut)
    assert sp.simplify(d.surplus - identity) == 0


parameters = st.tuples(
    st.lists(st.floats(0.05, 3.0), min_size=1, max_size=4),  # arrival rates
    st.lists(st.floats(0.1, 5.0), min_size=4, max_size=4),  # rewards
    st.floats(0.2, 3.0),  # mu
)


@settings(max_examples=80, deadline=None)
@given(params=parameters)
def test_duality_capacity_and_dominance_of_the_ordinary_fluid_bound(params):
    rates, rewards, rate = params
    rewards = rewards[: len(rates)]
    sol = duration_aware_fluid(rates, rewards, rate)
    ordinary = fluid_lp(rates, rewards, [rate] * len(rates)).value
    assert sol.per_server >= ordinary * (1 - 1e-12)
    assert sol.per_server <= float(np.dot(rates, rewards)) * (1 + 1e-12)
    if sum(rates) > rate:
        assert sol.server_price > 0
        assert sol.work_per_server == pytest.approx(1.0, rel=1e-9)
        np.testing.assert_allclose(sol.cutoffs * sol.server_price, rewards, rtol=1e-12)
    else:
        assert sol.server_price == 0 and np.all(np.isinf(sol.cutoffs))
    # strong duality at theta*, weak duality elsewhere
    assert sol.dual_per_server(sol.server_price) == pytest.approx(sol.per_server, rel=1e-9)
    for factor in (0.0, 0.5, 0.9, 1.1, 2.0):
        assert sol.dual_per_server(factor * sol.server_price) >= sol.per_server * (1 - 1e-12)


def test_two_class_network_beats_the_ordinary_bound_by_theta_n():
    sol = duration_fluid_solution(PAPER)
    assert sol.value == pytest.approx(50 * sol.per_server)
    assert sol.value / fluid_bound(PAPER) - 1 == pytest.approx(0.0883, abs=1e-4)
    assert duration_fluid_bound(PAPER.with_servers(100)) == pytest.approx(2 * sol.value)


@pytest.mark.parametrize(
    ("rates", "rewards", "rate"),
    [([0.6, 0.6], [2.0, 1.0], 1.0), ([0.3, 2.0], [5.0, 0.5], 0.7), ([1.5, 0.5, 1.0], [1, 3, 2], 2)],
)
def test_discretised_lp_sandwiches_the_closed_form(rates, rewards, rate):
    closed = duration_aware_fluid(rates, rewards, rate, servers=3).value
    grid = np.linspace(0.0, 40.0 / rate, 4001)
    low = discretised_duration_lp(rates, rewards, rate, grid, servers=3)
    high = discretised_duration_lp(rates, rewards, rate, grid, servers=3, work="left_end")
    assert low <= closed * (1 + 1e-9) and closed <= high * (1 + 1e-9)
    assert high - low < 4e-3 * closed  # first order in the bin width (0.01 - 0.014)


def test_monte_carlo_of_the_cutoff_policy():
    """Statistical, fixed seed: 4.5 standard errors on each of two estimates
    (false-failure rate about 1e-5 under the normal approximation)."""
    sol = duration_fluid_solution(PAPER)
    mc = monte_carlo_policy(sol, np.random.default_rng(20240), 400_000)
    assert abs(mc.reward_per_server - sol.per_server) < 4.5 * mc.reward_se
    assert abs(mc.work_per_server - 1.0) < 4.5 * mc.work_se
    assert mc.reward_se < 2e-3


def path_arguments(path, net, horizon, warmup=0.0):
    return dict(
        arrival_times=path.arrival_times,
        classes=path.classes,
        service_times=path.service_times,
        servers=net.servers,
        r_h=net.r_h,
        r_l=net.r_l,
        horizon=horizon,
        warmup=warmup,
    )


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    servers=st.integers(1, 6),
    factor=st.floats(0.0, 3.0),
    warmup=st.floats(0.0, 3.0),
)
def test_pathwise_dual_bound_holds_on_every_path(seed, servers, factor, warmup):
    """Exact (weak duality): OFF <= D_theta for every path and every theta >= 0."""
    net = PAPER.with_servers(servers)
    path = sample_job_path(net, 8.0, np.random.default_rng(seed))
    price = factor * duration_fluid_solution(net).server_price
    kw = path_arguments(path, net, horizon=7.0, warmup=warmup)
    assert offline_job_optimum(**kw).value <= pathwise_dual_bound(**kw, price=price) + 1e-9


def test_expected_dual_bound_matches_the_mean_over_paths():
    """E[D_theta] (with its end-effect term) against 400 sampled paths (no LP needed).
    Statistical, fixed seed: 4.5 standard errors."""
    net = PAPER.with_servers(5)
    sol = duration_fluid_solution(net)
    window = 3.0  # short, so that cut-offs exceed the window for one class
    assert sol.cutoffs.max() > window > sol.cutoffs.min()
    for price in (sol.server_price, 0.6):
        samples = [
            pathwise_dual_bound(
                **path_arguments(sample_job_path(net, 4.0, rng), net, 4.0, 1.0), price=price
            )
            for rng in np.random.default_rng(99).spawn(400)
        ]
        se = np.std(samples, ddof=1) / np.sqrt(len(samples))
        assert abs(np.mean(samples) - expected_dual_bound(sol, window, price)) < 4.5 * se
    end_effect = expected_dual_bound(sol, 100.0) - 100.0 * sol.value
    assert end_effect == pytest.approx(net.servers * sol.server_price / net.mu, rel=1e-12)


def test_offline_is_between_the_ordinary_and_the_duration_aware_bound():
    """One long path at N = 100: the offline reward per server and unit time beats the
    ordinary fluid bound (1.6) and stays below the duration-aware v (1.7413) plus the
    end effect.  Exact part: OFF <= D_theta*.  Statistical part: over 16 replications
    OFF / (N T') had mean 1.688 and standard deviation 0.0095, so the margins (0.088
    above 1.6, 0.058 below E[D_theta*] / (N T') = 1.7453) are over 6 sigma: a false
    failure is rarer than 1e-8 under the normal approximation (fixed seed)."""
    net = PAPER.with_servers(100)
    horizon = 100.0
    sol = duration_fluid_solution(net)
    path = sample_job_path(net, horizon, np.random.default_rng(7))
    kw = path_arguments(path, net, horizon)
    off = offline_job_optimum(**kw)
    assert off.value <= pathwise_dual_bound(**kw, price=sol.server_price)
    per_server = off.reward_rate / net.servers
    assert fluid_bound(net) / net.servers < per_server
    assert per_server < expected_dual_bound(sol, horizon) / (net.servers * horizon)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: duration_aware_fluid([0.6, -1.0], [2.0, 1.0], 1.0), "arrival_rates must be"),
        (lambda: duration_aware_fluid([0.6], [2.0, 1.0], 1.0), "equal length"),
        (lambda: duration_aware_fluid([0.6, 1.0], [2.0, np.nan], 1.0), "rewards must be"),
        (lambda: duration_aware_fluid([0.6, 1.0], [2.0, 1.0], 0.0), "mu must be > 0"),
        (lambda: duration_aware_fluid([0.6, 1.0], [2.0, 1.0], 1.0, 0), "servers must be > 0"),
        (lambda: discretised_duration_lp([1.0], [1.0], 1.0, [0.5, 1.0]), "starting at 0"),
        (lambda: discretised_duration_lp([1.0], [1.0], 1.0, [0.0, 2, 1]), "strictly increasing"),
        (lambda: discretised_duration_lp([1.0], [1.0], 1.0, [0.0], work="mid"), "work must be"),
        (lambda: duration_fluid_solution(PAPER).dual_per_server(-1.0), "price must be finite"),
        (lambda: expected_dual_bound(duration_fluid_solution(PAPER), 0.0), "window must be > 0"),
        (
            lambda: monte_carlo_policy(duration_fluid_solution(PAPER), 1, 0),
            "samples must be >= 1",
        ),
        (
            lambda: pathwise_dual_bound(
                [0.0], [0], [1.0], servers=1, r_h=2, r_l=1, horizon=1, price=-0.5
            ),
            "price must be finite and >= 0",
        ),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()
