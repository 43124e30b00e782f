"""Gambler's ruin (qtheory.walks.ruin): the Sympy derivation, the walk formula against a
exact rational linear solve and 120-digit mpmath, the chain against the exact CTMC engine
(qtheory.exact.ctmc) and mpmath, and the direction of every coupling bound."""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sympy.codegen.cfunctions import log1p

from qtheory.exact.ctmc import generator, hitting_probabilities
from qtheory.walks.idle import IdleWalk, band_level, level
from qtheory.walks.ruin import (
    WALK_LOG_ODDS,
    chain_ruin_probabilities,
    check_rates,
    derive_walk_ruin,
    log_cumsum_exp,
    log_odds,
    odds,
    ruin_checks,
    up_probability,
    walk_ruin_limit,
    walk_ruin_probability,
)

GRID = [4, 9, 16, 30, 100, 400, 1000, 3000]
RATES = [(0.6, 1.0), (0.9, 1.0)]
SLACK = 1e-12  # relative: bounds may miss the exact value only by float round-off


def reference_walk_ruin(p: float, i: int, b: int) -> mpmath.mpf:
    """(r^i - r^b)/(1 - r^b) at 120 digits from the exact binary p (the display form,
    not the stable form the code evaluates)."""
    with mpmath.workdps(120):
        p = mpmath.mpf(p)
        r = (1 - p) / p
        return 1 - mpmath.mpf(i) / b if r == 1 else (r**i - r**b) / (1 - r**b)


def solve_walk_ruin(p: float, b: int) -> list[Fraction]:
    """h_0..h_b solving h_i - p h_{i+1} - q h_{i-1} = 0, h_0 = 1, h_b = 0 exactly
    (rational arithmetic from the exact binary p)."""
    p = Fraction(p)
    rows = [(Fraction(0), Fraction(1), Fraction(0), Fraction(1))]  # (sub, diag, super, rhs)
    rows += [(-(1 - p), Fraction(1), -p, Fraction(0)) for _ in range(1, b)]
    rows.append((Fraction(0), Fraction(1), Fraction(0), Fraction(0)))
    return solve_tridiagonal(rows)


def solve_tridiagonal(rows: list[tuple[Fraction, ...]]) -> list[Fraction]:
    """Exact Gaussian elimination of a tridiagonal system given row by row as
    (sub-diagonal, diagonal, super-diagonal, right-hand side)."""
    diag, rhs = [rows[0][1]], [rows[0][3]]
    for k in range(1, len(rows)):
        factor = rows[k][0] / diag[-1]
        diag.append(rows[k][1] - factor * rows[k - 1][2])
        rhs.append(rows[k][3] - factor * rhs[-1])
    x = [Fraction(0)] * len(rows)
    for k in range(len(rows) - 1, -1, -1):
        upper = rows[k][2] * x[k + 1] if k + 1 < len(rows) else 0
        x[k] = (rhs[k] - upper) / diag[k]
    return x


# ---------------------------------------------------------------------------
# derivation


def test_solution_solves_the_recurrence_and_the_boundary_conditions():
    f = derive_walk_ruin()
    i, b, r, p = level, band_level, odds, up_probability
    h = f.solution
    step = h - (p * h.subs(i, i + 1) + (1 - p) * h.subs(i, i - 1))
    assert sp.simplify(step.subs(p, 1 / (1 + r))) == 0
    assert sp.simplify(h.subs(i, 0)) == 1 and sp.simplify(h.subs(i, b)) == 0
    fair = f.fair.expr
    assert sp.simplify(fair - (fair.subs(i, i + 1) + fair.subs(i, i - 1)) / 2) == 0
    assert fair.subs(i, 0) == 1 and fair.subs(i, b) == 0
    # the general solution is rsolve's: two constants, one of them multiplying r^i
    assert len(f.general.free_symbols - {p, i}) == 2


def test_stable_form_equals_the_display_form_for_either_sign_of_theta():
    f = derive_walk_ruin()
    x = sp.Symbol("x", positive=True)
    for theta in (x, -x):
        stable = f.probability.expr.subs(log_odds, theta)
        display = f.solution.subs(odds, sp.exp(theta))
        assert sp.simplify(stable - display) == 0


def test_log_odds_pieces_are_log_q_over_p():
    pieces = [piece for piece, _ in WALK_LOG_ODDS.expr.args]
    target = sp.log((1 - up_probability) / up_probability)
    for piece in pieces:
        assert sp.simplify(piece.replace(log1p, lambda x: sp.log(1 + x)) - target) == 0


def test_limit_is_r_to_the_i_and_bounds_every_barrier():
    assert derive_walk_ruin().limit.expr == odds**level
    for p in (0.55, 0.625, 0.9):
        r = (1 - p) / p
        values = [float(walk_ruin_probability(p, 3, b)) for b in (4, 10, 100, 10**4)]
        assert values == sorted(values)  # the ruin probability increases with b ...
        assert values[-1] <= float(walk_ruin_limit(p, 3))  # ... to r^i
        assert float(walk_ruin_limit(p, 3)) == pytest.approx(r**3, rel=1e-14)
    assert float(walk_ruin_limit(0.5, 7)) == 1.0 and float(walk_ruin_limit(0.2, 7)) == 1.0
    assert float(walk_ruin_limit(1e-3, 10**6)) == 1.0  # r^i overflows: still 1, no warning


# ---------------------------------------------------------------------------
# simple walk


@settings(max_examples=200, deadline=None)
@given(p=st.floats(0.02, 0.98), b=st.integers(1, 60), data=st.data())
def test_walk_formula_matches_an_exact_linear_solve(p, b, data):
    i = data.draw(st.integers(0, b))
    exact = float(solve_walk_ruin(p, b)[i])
    assert float(walk_ruin_probability(p, i, b)) == pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize(
    "p",
    [0.01, 0.3, 0.49, 0.499999, 0.5 - 1e-12, 0.5 + 1e-15, 0.5 + 1e-9, 0.5 + 1e-4, 0.6, 0.999],
)
def test_walk_formula_keeps_full_relative_accuracy(p):
    """Near p = 1/2 (r near 1) and for barriers up to 10^9; measured worst 5e-14."""
    for b in (1, 2, 10, 1000, 10**6, 10**9):
        for i in sorted({0, 1, b // 2, b - 1, b}):
            ref = reference_walk_ruin(p, i, b)
            value = float(walk_ruin_probability(p, i, b))
            if ref == 0 or ref < 1e-300:
                assert value <= 1e-290
            else:
                assert abs(value - ref) <= 2e-13 * ref, (p, i, b)


def test_walk_formula_is_vectorised_and_exact_at_one_half():
    values = walk_ruin_probability(0.5, np.arange(11), 10)
    np.testing.assert_array_equal(values, 1 - np.arange(11) / 10)
    grid = walk_ruin_probability(np.array([[0.3], [0.7]]), [0, 1, 2], 2)
    assert grid.shape == (2, 3)


@pytest.mark.parametrize("p", [0.2, 0.5, 0.5 + 1e-14, 0.625, 0.99])
def test_walk_mpmath_evaluator(p):
    for i, b in ((1, 10), (5, 1000), (999, 1000), (1, 10**9)):
        value = walk_ruin_probability(p, i, b, dps=30)
        ref = reference_walk_ruin(p, i, b)
        with mpmath.workdps(60):
            assert abs(value - ref) <= mpmath.mpf(10) ** -29 * ref
    with mpmath.workdps(40):
        assert abs(walk_ruin_limit(0.75, 2, dps=40) - mpmath.mpf(1) / 9) < mpmath.mpf(10) ** -40


# ---------------------------------------------------------------------------
# birth-death chain


@pytest.mark.parametrize("rates", RATES)
@pytest.mark.parametrize("servers", GRID)
def test_chain_matches_the_ctmc_engine(servers, rates):
    walk = IdleWalk(servers, *rates)
    Q = walk.generator()
    bands = {walk.band} | ({servers // 2, servers} if servers <= 400 else set())
    for band in bands:
        exact = chain_ruin_probabilities(walk.up_rates(), walk.down_rates(), band)
        engine = hitting_probabilities(Q, target=0, avoid=band)[: band + 1]
        np.testing.assert_allclose(exact, engine, rtol=1e-12, atol=0)


@pytest.mark.parametrize(
    ("servers", "band"),
    [(10**4, 100), (10**6, 1000), (10**7, 3162), (1000, 1000), (3000, 1500), (10**5, 50_000)],
)
def test_chain_in_log_space_matches_mpmath(servers, band):
    """Log space for large N and b (where the CTMC engine's sparse solve is not accurate
    enough); the tolerance is the documented u(b + |log h| + max |log rho|) scale."""
    walk = IdleWalk(servers, 0.6, 1.0)
    up, down = walk.up_rates(), walk.down_rates()
    log_h = chain_ruin_probabilities(up, down, band, log=True)
    reference = chain_ruin_probabilities(up, down, band, log=True, dps=50)
    levels = np.unique(np.linspace(0, band - 1, 50).astype(int))
    for i in levels:
        ref = float(reference[i])
        assert abs(log_h[i] - ref) <= 1e-15 * (band + abs(ref)) + 1e-13, i
    assert log_h[band] == -math.inf and float(reference[band]) == -math.inf
    assert np.all(np.diff(log_h) <= 0)  # ruin is less likely from higher up (ties: roundoff)


def test_chain_mpmath_route_is_the_recurrence():
    h = chain_ruin_probabilities([2.0, 2.0, 2.0, 0.0], [0.0, 1.0, 1.0, 1.0], 3, dps=40)
    with mpmath.workdps(40):
        expected = [1, mpmath.mpf(3) / 7, mpmath.mpf(1) / 7, 0]
        assert all(abs(a - b) < mpmath.mpf(10) ** -40 for a, b in zip(h, expected, strict=True))


@settings(max_examples=50, deadline=None)
@given(
    rates=st.lists(
        st.tuples(st.floats(0.05, 20.0), st.floats(0.05, 20.0)), min_size=2, max_size=40
    ),
    data=st.data(),
)
def test_chain_for_arbitrary_rates_matches_the_ctmc_engine(rates, data):
    up = np.array([u for u, _ in rates] + [0.0])
    down = np.array([0.0] + [d for _, d in rates])
    band = data.draw(st.integers(1, len(rates)))
    Q = np.diag(up[:-1], 1) + np.diag(down[1:], -1)
    engine = hitting_probabilities(generator(Q), target=0, avoid=band)[: band + 1]
    np.testing.assert_allclose(chain_ruin_probabilities(up, down, band), engine, rtol=1e-11)


# ---------------------------------------------------------------------------
# log_cumsum_exp


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(-5000.0, 5000.0), min_size=1, max_size=60))
def test_log_cumsum_exp_matches_mpmath(values):
    result = log_cumsum_exp(values)
    with mpmath.workdps(40):
        total = mpmath.mpf(0)
        for x, got in zip(values, result, strict=True):
            total += mpmath.exp(x)
            assert abs(got - float(mpmath.log(total))) <= 1e-15 * (abs(got) + 60)


def test_log_cumsum_exp_keeps_small_increments_that_logaddexp_drops():
    """A total of e^(1e5) plus 10^6 terms each 1e-12 of it: the sum grows by a factor
    1 + 1e-6, which log-domain accumulation (ulp(1e5) = 1.5e-11) loses entirely.  The
    documented error bound is u (n + |L|) with u = 2^-53, n = 10^6 terms."""
    n = 10**6
    values = np.r_[1e5, np.full(n, 1e5 + math.log(1e-12))]
    expected = 1e5 + math.log1p(1e-6)
    bound = 2.0**-53 * (n + 1e5)
    assert abs(log_cumsum_exp(values)[-1] - expected) <= bound
    assert np.logaddexp.accumulate(values)[-1] == 1e5  # what the naive route gives


# ---------------------------------------------------------------------------
# bounds


@pytest.mark.parametrize("rates", RATES)
@pytest.mark.parametrize("servers", GRID)
def test_every_ruin_bound_is_on_its_side(servers, rates):
    walk = IdleWalk(servers, *rates)
    bands = {walk.band, max(2, servers // 2)} if servers > 4 else {walk.band}
    for band in bands:
        checks = ruin_checks(walk, band=band)
        assert len(checks) == 3 * (band - 1)
        for check in checks:
            assert check.holds_within(SLACK), check


@pytest.mark.parametrize("servers", [10**4, 10**6])
def test_ruin_bounds_at_large_n(servers):
    checks = ruin_checks(IdleWalk(servers, 0.6, 1.0), levels=[1, 2, 10, 31])
    assert all(c.holds for c in checks)


def test_ruin_bounds_tighten_as_n_grows():
    """i = 1, b = floor(sqrt N): both walk bounds converge to the chain (measured upper
    ratio 1.080, 1.029, 1.010, 1.001 and lower 0.977, 0.9975, 0.9997, 0.999997)."""
    gaps = []
    for servers in (100, 1000, 10**4, 10**6):
        upper, lower, _ = ruin_checks(IdleWalk(servers, 0.6, 1.0), levels=[1])
        gaps.append((upper.ratio - 1, 1 - lower.ratio))
    assert all(a > b > 0 for a, b in zip(gaps[0], gaps[1], strict=True))
    assert all(a > b > 0 for a, b in zip(gaps[1], gaps[2], strict=True))
    assert gaps[-1][0] < 2e-3 and gaps[-1][1] < 1e-5


def test_unbounded_walk_bound_is_one_when_p_b_is_at_most_one_half():
    walk = IdleWalk(4, 0.9, 1.0)  # p_b = 2 / (2 + 3.6) < 1/2
    assert walk.coupled_up_probability() < 0.5
    (_, _, limit) = ruin_checks(walk)
    assert limit.bound == 1.0 and limit.holds


# ---------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: walk_ruin_probability(1.0, 1, 2), r"p must be in \(0, 1\)"),
        (lambda: walk_ruin_probability(0.6, 3, 2), "level must be in 0..band"),
        (lambda: walk_ruin_probability(0.6, 1.5, 2), "level must hold integers"),
        (lambda: walk_ruin_probability(0.6, [1, 2], 2, dps=20), "must be scalars"),
        (lambda: walk_ruin_probability(0.6, 1, 2, dps=0), "dps must be an integer >= 1"),
        (lambda: check_rates([1.0, 1.0], [0.0, 1.0]), r"up\[-1\] must be 0"),
        (lambda: check_rates([1.0, 0.0, 0.0], [0.0, 1.0, 1.0]), r"got up\[1\] = 0.0"),
        (lambda: check_rates([1.0, 0.0], [0.0, 1.0, 1.0]), "same length"),
        (lambda: check_rates([[1.0, 0.0]], [[0.0, 1.0]]), "must be 1-D"),
        (lambda: chain_ruin_probabilities([1.0, 0.0], [0.0, 1.0], 2), r"band must be in 1..1"),
        (lambda: ruin_checks(IdleWalk(9, 0.6, 1.0), band=9), r"band must be in 2..8"),
        (lambda: ruin_checks(IdleWalk(9, 0.6, 1.0), levels=[3]), r"levels must be integers"),
        (lambda: log_cumsum_exp([0.0, math.inf]), "values must be finite"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()
