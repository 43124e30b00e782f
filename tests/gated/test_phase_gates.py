"""Erlang-m and phase-type gates against independent routes.

- the optimum, solved in w = -log σ with the gate in closed form, against a second
  mpmath route that never uses that closed form: σ solved from the Erlang transform for
  each mean gate τ by bisection-type bracketing in σ, and the first-order condition in τ
  by numerical differentiation (mpmath.diff);
- the welfare at the optimum against a truncated CTMC of (queue length, gate phase)
  solved by qtheory.exact.stationary (no root equation, no transform);
- m = 1 at Λ = ∞ against random routing's closed form C(√ν − 1)²;
- the hand-written first-order condition against the Sympy derivative;
- the general-PH (matrix transform) route against the Erlang closed form;
- the mean sojourn at the optimum against the C simulator with Erlang gates.
"""

import math

import mpmath
import numpy as np
import pytest
import sympy as sp
from scipy import sparse

from qtheory.core.phase_type import coxian, erlang
from qtheory.exact.ctmc import stationary
from qtheory.gated import GatedQueue, optimal_gate, optimal_routing
from qtheory.gated.phase_gates import (
    _erlang_terms,
    coxian_search,
    derive_erlang_gate,
    erlang_gate_of_root,
    optimal_erlang_gate,
    ph_gate_root,
    pof_by_phases,
    welfare_erlang_gate,
    welfare_ph_gate,
)


def independent_optimum(nu, m, arrival=mpmath.inf, dps=40):
    """(τ*, S*) by a second route: σ(τ) from σ = (1 + uτ/m)^{-m}/(1 + βu) by bracketing
    in σ (anderson solver on [small, 1 − δ]), S(τ) = (R − C/u)/(τ + β), and τ* the zero
    of dS/dτ (mpmath.diff), started from a coarse float64 search."""
    with mpmath.workdps(dps):
        beta = 0 if arrival == mpmath.inf else 1 / mpmath.mpf(arrival)
        R = mpmath.mpf(nu)

        def sigma_of(tau):
            def residual(s):
                u = 1 - s
                return (1 + u * tau / m) ** (-m) / (1 + beta * u) - s

            delta = mpmath.mpf("1e-3")
            while residual(1 - delta) >= 0:
                delta /= 10
            return mpmath.findroot(residual, (mpmath.mpf("1e-30"), 1 - delta), solver="anderson")

        def welfare(tau):
            return (R - 1 / (1 - sigma_of(tau))) / (tau + beta)

        grid = np.linspace(1.05, 8.0, 300)
        start = grid[int(np.argmax([float(welfare(mpmath.mpf(t))) for t in grid]))]
        tau = mpmath.findroot(lambda t: mpmath.diff(welfare, t), mpmath.mpf(start))
        return tau, welfare(tau)


@pytest.mark.parametrize("nu, m", [(2, 3), (5, 8), (1.5, 2), (10, 1), (3, 40)])
def test_optimum_matches_a_second_route_to_12_digits(nu, m):
    opt = optimal_erlang_gate(GatedQueue("inf", 1, nu, 1), m, dps=20)
    tau, welfare = independent_optimum(nu, m)
    assert abs(opt.gate / tau - 1) < 1e-12
    assert abs(opt.welfare / welfare - 1) < 1e-12


def test_optimum_matches_a_second_route_at_finite_arrival_rate():
    opt = optimal_erlang_gate(GatedQueue(3, 1, 4, 1), 5, dps=20)
    tau, welfare = independent_optimum(4, 5, arrival=3)
    assert abs(opt.gate / tau - 1) < 1e-12 and abs(opt.welfare / welfare - 1) < 1e-12


def ctmc_welfare(queue: GatedQueue, gate: float, m: int, levels: int) -> float:
    """R·(admission rate) − C·E[L] of the CTMC (n, phase), phase 0..m−1 the gate's
    Erlang phases and (finite Λ) phase m the open gate; truncated at ``levels``
    customers (an admission at the top is lost; the tests choose the top's mass
    negligible)."""
    p = queue.parameters()
    rate, mu, beta = m / gate, p.mu, p.beta
    open_phase = m if beta else None
    width = m + (1 if beta else 0)
    n_states = levels * width
    rows, cols, vals, admit = [], [], [], np.zeros(n_states)

    def index(n, phase):
        return n * width + phase

    for n in range(levels):
        for phase in range(width):
            here = index(n, phase)
            if n > 0:
                rows.append(here), cols.append(index(n - 1, phase)), vals.append(mu)
            if phase < m - 1:
                target, r = index(n, phase + 1), rate
            elif phase == m - 1 and open_phase is not None:
                target, r = index(n, open_phase), rate
            else:  # the admission: the last gate phase (Λ = ∞) or the open gate
                r = rate if open_phase is None else 1 / beta
                admit[here] = r
                target = index(min(n + 1, levels - 1), 0)
            rows.append(here), cols.append(target), vals.append(r)
    Q = sparse.coo_matrix((vals, (rows, cols)), shape=(n_states, n_states)).tocsr()
    Q = Q - sparse.diags(np.asarray(Q.sum(axis=1)).ravel())
    pi = stationary(Q)
    number = np.repeat(np.arange(levels), width)
    return float(p.reward * (pi @ admit) - p.cost * (pi @ number))


@pytest.mark.parametrize("arrival, nu, m", [("inf", 2, 2), ("inf", 5, 3), (2.0, 3, 2)])
def test_welfare_at_the_optimum_matches_a_truncated_ctmc(arrival, nu, m):
    queue = GatedQueue(arrival, 1, nu, 1)
    opt = optimal_erlang_gate(queue, m)
    assert opt.root**200 < 1e-40  # the truncation at 200 customers loses nothing visible
    assert ctmc_welfare(queue, opt.gate, m, 200) == pytest.approx(opt.welfare, rel=1e-9)


@pytest.mark.parametrize("nu", [1.01, 2, 9, 1e4])
def test_m1_at_infinite_arrival_rate_is_random_routing(nu):
    queue = GatedQueue("inf", 1, nu, 1)
    gate, rr = optimal_erlang_gate(queue, 1, dps=40), optimal_routing(queue, dps=40)
    with mpmath.workdps(40):
        assert abs(gate.welfare / rr.welfare - 1) < mpmath.mpf(10) ** -38
        assert abs(gate.throughput / rr.rate - 1) < mpmath.mpf(10) ** -38


def test_welfare_increases_with_phases_towards_ga():
    table = pof_by_phases(GatedQueue("inf", 1, 3, 1), range(1, 65))
    assert np.all(np.diff(table.welfare) > 0)
    assert table.welfare[-1] < table.welfare_ga
    assert table.share[0] == pytest.approx(0.0, abs=1e-14)
    # τ_m(w) − τ_∞(w) = O(1/m): the gap to GA shrinks about like 1/m
    gap = table.welfare_ga - np.array(table.welfare)
    assert 1.5 < gap[31] / gap[63] < 2.5


def test_finite_arrival_rate_m1_beats_random_routing():
    """At finite Λ an exponential gate plus Exp(Λ) is less variable than Poisson thinning."""
    queue = GatedQueue(2.0, 1, 5, 1)
    assert optimal_erlang_gate(queue, 1).welfare > optimal_routing(queue).welfare
    assert optimal_erlang_gate(queue, 64).welfare < optimal_gate(queue).welfare


def test_boundary_optimum_admits_everybody():
    queue = GatedQueue(0.5, 1, 20, 1)
    opt = optimal_erlang_gate(queue, 4)
    assert opt.at_boundary and opt.gate == 0.0
    assert opt.welfare == pytest.approx(0.5 * (20 - 1 / 0.5), rel=1e-14)
    table = pof_by_phases(queue, (1, 4))  # RR admits everybody too: no gain to share
    assert table.ga_at_boundary and table.pof == (1.0, 1.0) and np.isnan(table.share).all()


def test_first_order_condition_and_gate_match_sympy():
    """The hand-written τ_m(w) and N'D − ND' against the derivation at a rational point."""
    f = derive_erlang_gate()
    point = {"w": "0.7", "mu": "1.3", "beta": "0.4", "R": "3.5", "C": "0.8", "m": "5"}
    at = {s: sp.Rational(point[s.name]) for s in f.first_order.free_symbols | {f.phases}}
    with mpmath.workdps(40):
        w, mu, beta, R, C = (mpmath.mpf(point[k]) for k in ("w", "mu", "beta", "R", "C"))
        u, du, tau, dtau = _erlang_terms(w, 5, mu, beta)
        mine = C * du / u**2 * (tau + beta) - (R - C / u) * dtau
        assert abs(mine - sp.N(f.first_order.subs(at), 40)) < mpmath.mpf(10) ** -35
        assert abs(tau - sp.N(f.gate_of_root.subs(at), 40)) < mpmath.mpf(10) ** -35


def test_nu_2_m_2_optimum_is_rational():
    """ν = 2, m = 2, Λ = ∞: the first-order condition vanishes exactly at σ = 1/4, where
    τ = 8/3 and S = 1/4 (by hand: σ = (1 + (3/4)(8/3)/2)^{-2}, S = (2 − 4/3)/(8/3))."""
    f = derive_erlang_gate()
    names = {s.name: s for s in f.first_order.free_symbols}
    at = {
        names["w"]: sp.log(4),
        names["mu"]: 1,
        names["beta"]: 0,
        names["R"]: 2,
        names["C"]: 1,
        f.phases: 2,
    }
    assert sp.simplify(f.first_order.subs(at)) == 0
    opt = optimal_erlang_gate(GatedQueue("inf", 1, 2, 1), 2, dps=30)
    with mpmath.workdps(30):
        assert abs(opt.gate - mpmath.mpf(8) / 3) < 1e-28 and abs(opt.welfare - 0.25) < 1e-29


def test_general_ph_route_matches_the_erlang_closed_form():
    queue = GatedQueue(1.5, 1, 4, 1)
    closed = welfare_erlang_gate(queue, 1.25, 4, dps=30)
    matrix = welfare_ph_gate(queue, erlang(4, 3.2), dps=30)
    assert abs(closed / matrix - 1) < 1e-25
    assert welfare_ph_gate(queue, erlang(4, 3.2)) == pytest.approx(float(closed), rel=1e-13)


def test_root_inverts_the_gate_of_root():
    with mpmath.workdps(30):
        w = mpmath.mpf("0.9")
        tau = erlang_gate_of_root(w, 6, 1, 0)
        sigma = ph_gate_root(erlang(6, 6 / float(tau)), math.inf, 1.0)
    assert sigma == pytest.approx(float(mpmath.exp(-w)), rel=1e-14)


def test_coxian_transform_matches_the_phase_type_transform():
    from qtheory.gated.phase_gates import _coxian_lst

    rates, proceed = np.array([2.0, 0.7, 5.0]), np.array([0.3, 0.9])
    assert _coxian_lst(rates, proceed, 0.8) == pytest.approx(
        coxian(rates, proceed).lst(0.8), rel=1e-14
    )


def test_coxian_search_finds_nothing_better_than_erlang():
    found = coxian_search(GatedQueue("inf", 1, 5, 1), 3, starts=3, seed=1)
    assert found.relative_gap < 1e-9
    assert found.welfare >= found.welfare_erlang * (1 - 1e-9)  # it reached the Erlang optimum


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: optimal_erlang_gate(GatedQueue("inf", 1, 2, 1), 0), "phases must be"),
        (lambda: optimal_erlang_gate(GatedQueue("inf", 1, 1, 1), 2), "must be > 1"),
        (lambda: welfare_erlang_gate(GatedQueue(2.0, 1, 2, 1), 0.2, 2), "stable"),
        (lambda: welfare_erlang_gate(GatedQueue(2.0, 1, 2, 1), "x", 2), "gate must be"),
        (lambda: welfare_erlang_gate(GatedQueue(2.0, 1, 2, 1), -1.0, 2), "gate must be"),
        (lambda: coxian_search(GatedQueue("inf", 1, 2, 1), 1), "phases must be >= 2"),
        (lambda: ph_gate_root(erlang(2, 10.0), math.inf, 1.0), "stable"),
    ],
)
def test_bad_input_names_the_parameter(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("arrival, nu, m, seed", [(2.0, 3, 3, 7), ("inf", 5, 5, 11)])
def test_mean_sojourn_at_the_optimum_matches_the_simulator(arrival, nu, m, seed):
    """The C simulator (Lindley recursion with Erlang-m gates drawn by their absorbing
    chain) against 1/(μ(1 − σ)) at the optimal gate, within the 99.9% batch-means
    interval (40 batches, t with 39 degrees of freedom): false-failure rate 1e-3 per case
    (fixed seeds: the outcome is reproducible)."""
    from scipy import stats

    from qtheory.sim.gated import simulate_gated

    queue = GatedQueue(arrival, 1, nu, 1)
    opt = optimal_erlang_gate(queue, m)
    estimate = simulate_gated(
        queue, erlang(m, m / opt.gate), customers=400_000, warmup=10_000, batches=40, seed=seed
    ).mean_sojourn
    stderr = estimate.halfwidth / stats.t.ppf(0.975, 39)
    assert abs(estimate.mean - opt.mean_sojourn) < stats.t.ppf(0.9995, 39) * stderr


def test_pof_monotone_in_the_phases_is_an_identity_and_its_lemma_holds_numerically():
    from qtheory.gated.phase_gate_claims import erlang_order_residuals, phase_gate_claims

    [claim] = [c for c in phase_gate_claims(quick=True) if c.name == "gated.ph.pof_monotone"]
    assert claim.passed and str(claim.kind) == "identity"
    assert all(sp.simplify(r) == 0 for r in erlang_order_residuals())
    # the lemma by an independent route: (1 + x/m)^(-m) decreases in m towards e^(-x)
    with mpmath.workdps(40):
        for x in (mpmath.mpf("0.01"), mpmath.mpf(1), mpmath.mpf(30)):
            values = [(1 + x / m) ** (-m) for m in range(1, 40)]
            assert all(a > b for a, b in zip(values, values[1:], strict=False))
            assert values[-1] > mpmath.exp(-x)
