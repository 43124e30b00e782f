"""Mean hitting times (qtheory.walks.hitting): the Sympy derivation, the walk formula
against exact rational first-step analysis and 120-digit mpmath, the chain against the exact CTMC
engine (qtheory.exact.ctmc), mpmath and an Erlang-loss (Poisson) closed form, the
Wald-type real-time sandwich, the direction of every bound and the sqrt(N)/N order."""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.sparse as sparse
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from qtheory.exact.ctmc import generator, mean_hitting_times
from qtheory.model.lossnet_symbols import lambda_h, mu, servers
from qtheory.walks.hitting import (
    climb_means,
    climb_time_leading_term,
    derive_walk_climb,
    descent_means,
    hitting_checks,
    jump_chain,
    walk_climb_steps,
)
from qtheory.walks.idle import IdleWalk, band_level, level
from qtheory.walks.ruin import log_odds, odds, up_probability

GRID = [4, 9, 16, 30, 100, 400, 1000, 3000]
RATES = [(0.6, 1.0), (0.9, 1.0)]
SLACK = 1e-12  # relative: bounds may miss the exact value only by float round-off


def reference_walk_steps(p: float, i: int, b: int) -> mpmath.mpf:
    """The display form at 120 digits from the exact binary p."""
    with mpmath.workdps(120):
        p = mpmath.mpf(p)
        r = (1 - p) / p
        if r == 1:
            return mpmath.mpf(b) ** 2 - i**2
        return (b - i) * (1 + r) / (1 - r) - 2 * r * (r**i - r**b) / (1 - r) ** 2


def exact_walk_steps(p: float, b: int) -> list[Fraction]:
    """m_0..m_b in rational arithmetic (from the exact binary p) by first-step analysis
    level by level: s_0 = 1, s_j = (1 + q s_{j-1}) / p steps from j to j + 1, and
    m_i = s_i + ... + s_{b-1}."""
    p = Fraction(p)
    step, steps = Fraction(0), []
    for j in range(b):
        step = Fraction(1) if j == 0 else (1 + (1 - p) * step) / p
        steps.append(step)
    return [sum(steps[i:], Fraction(0)) for i in range(b + 1)]


def jump_generator(walk: IdleWalk) -> sparse.csr_matrix:
    """The embedded jump chain as a CTMC with unit exit rates: its mean hitting times are
    expected numbers of jumps."""
    p = walk.up_probabilities()
    rates = sparse.diags([p[:-1], 1 - p[1:]], [1, -1], format="csr")
    return generator(rates)


def erlang_log_descent(walk: IdleWalk, levels) -> np.ndarray:
    """log E_i[T_0] from Poisson probabilities: the busy count is Erlang's loss system
    with offered load a = lambda_H N / mu, so D_j = P(Pois(a) <= N - j) /
    (lambda_H N P(Pois(a) = N - j)) and E_i[T_0] = sum_{j <= i} D_j (scipy, not the
    code under test)."""
    n, a = walk.servers, walk.lambda_h * walk.servers / walk.mu
    j = np.arange(1, max(levels) + 1)
    log_d = stats.poisson.logcdf(n - j, a) - stats.poisson.logpmf(n - j, a)
    log_d -= math.log(walk.lambda_h * n)
    return np.logaddexp.accumulate(log_d)[np.asarray(levels) - 1]


# ---------------------------------------------------------------------------
# derivation


def test_solution_solves_the_recurrence_and_the_boundary_conditions():
    f = derive_walk_climb()
    i, b, r, p = level, band_level, odds, up_probability
    m = f.solution
    step = m - (1 + p * m.subs(i, i + 1) + (1 - p) * m.subs(i, i - 1))
    assert sp.simplify(step.subs(p, 1 / (1 + r))) == 0
    assert sp.simplify(m.subs(i, b)) == 0
    assert sp.simplify(m.subs(i, 0) - 1 - m.subs(i, 1)) == 0  # reflection: p(0) = 1
    fair = f.fair.expr
    assert sp.expand(fair - 1 - (fair.subs(i, i + 1) + fair.subs(i, i - 1)) / 2) == 0
    assert fair.subs(i, b) == 0 and sp.expand(fair.subs(i, 0) - 1 - fair.subs(i, 1)) == 0


def test_numeric_forms_equal_the_display_form():
    f = derive_walk_climb()
    x = sp.Symbol("x", positive=True)
    for theta in (x, -x):
        stable = f.steps.expr.subs(log_odds, theta)
        assert sp.simplify(stable - f.solution.subs(odds, sp.exp(theta))) == 0
    # the Taylor polynomial agrees with the display form to O(theta^7)
    for theta in (1e-4, -3e-3):
        for i, b in ((0, 10), (3, 7), (5, 20)):
            exact = reference_walk_steps(1 / (1 + math.exp(theta)), i, b)
            series = f.near_fair.expr.subs({log_odds: theta, level: i, band_level: b})
            assert float(series) == pytest.approx(float(exact), rel=1e-12)


def test_leading_term_is_the_fluid_climb_rate():
    """b/(N(mu - lambda_H)): b levels at the net drift (mu - lambda_H) N per unit time."""
    leading = derive_walk_climb().leading_time.expr
    assert sp.simplify(leading - band_level / (servers * (mu - lambda_h))) == 0


# ---------------------------------------------------------------------------
# simple walk


@settings(max_examples=200, deadline=None)
@given(p=st.floats(0.05, 0.95), b=st.integers(1, 40), data=st.data())
def test_walk_formula_matches_exact_rational_first_step_analysis(p, b, data):
    i = data.draw(st.integers(0, b))
    exact = float(exact_walk_steps(p, b)[i])
    assert float(walk_climb_steps(p, i, b)) == pytest.approx(exact, rel=1e-12)


@pytest.mark.parametrize(
    "p", [0.01, 0.3, 0.49, 0.499999, 0.5 - 1e-12, 0.5 + 1e-15, 0.5 + 1e-9, 0.5 + 1e-4, 0.6, 0.999]
)
def test_walk_formula_keeps_full_relative_accuracy(p):
    """The Taylor branch for |b theta| < 0.05 removes the cancellation of the expm1 form
    (measured worst 4e-14 over this grid)."""
    for b in (1, 2, 10, 1000, 10**6, 10**9):
        for i in sorted({0, 1, b // 2, b - 1, b}):
            ref = reference_walk_steps(p, i, b)
            value = float(walk_climb_steps(p, i, b))
            if ref > 1e300:
                assert value == math.inf
            elif ref == 0:
                assert value == 0.0
            else:
                assert abs(value - ref) <= 2e-13 * ref, (p, i, b)


@pytest.mark.parametrize("p", [0.2, 0.5, 0.5 + 1e-14, 0.625, 0.99])
def test_walk_mpmath_evaluator(p):
    for i, b in ((0, 10), (5, 1000), (999, 1000), (1, 10**9)):
        value = walk_climb_steps(p, i, b, dps=30)
        ref = reference_walk_steps(p, i, b)
        with mpmath.workdps(60):
            assert abs(value - ref) <= mpmath.mpf(10) ** -29 * ref


def test_walk_overflow_is_inf_without_warnings():
    with np.errstate(all="raise"):
        assert float(walk_climb_steps(0.1, 0, 10**4)) == math.inf
        assert float(walk_climb_steps(0.1, 10**4, 10**4)) == 0.0


# ---------------------------------------------------------------------------
# birth-death chain


@pytest.mark.parametrize("rates", RATES)
@pytest.mark.parametrize("n", GRID)
def test_climb_matches_the_ctmc_engine(n, rates):
    """Real time on the idle CTMC and steps on its jump chain, restricted to the levels
    0..b that the climb visits.  Larger targets only up to N = 400: beyond 500 unknowns
    the engine switches to a sparse LU solve, which cannot resolve means past ~1e12
    jumps (it refuses them with ArithmeticError), so there mpmath is the reference."""
    walk = IdleWalk(n, *rates)
    up, down = walk.up_rates(), walk.down_rates()
    bands = {walk.band} | ({n // 2, n} if n <= 400 else set())
    for band in bands:
        below = slice(0, band + 1)
        time = mean_hitting_times(generator(walk.generator()[below, below]), band)
        steps = mean_hitting_times(generator(jump_generator(walk)[below, below]), band)
        np.testing.assert_allclose(climb_means(up, down, band), time, rtol=1e-12)
        np.testing.assert_allclose(climb_means(up, down, band, unit="steps"), steps, rtol=1e-12)


@pytest.mark.parametrize("rates", RATES)
@pytest.mark.parametrize("n", [4, 9, 16, 30, 100, 400])
def test_descent_matches_the_ctmc_engine(n, rates):
    walk = IdleWalk(n, *rates)
    up, down = walk.up_rates(), walk.down_rates()
    time = mean_hitting_times(walk.generator(), 0)
    steps = mean_hitting_times(jump_generator(walk), 0)
    np.testing.assert_allclose(descent_means(up, down), time, rtol=1e-12)
    np.testing.assert_allclose(descent_means(up, down, unit="steps"), steps, rtol=1e-12)


@pytest.mark.parametrize(
    ("n", "band", "unit"),
    [
        (1000, 1000, "time"),
        (3000, 1500, "steps"),
        (10**4, 100, "time"),
        (10**6, 1000, "steps"),
        (10**7, 3162, "time"),
        (30_000, 15_000, "time"),
        (30_000, 15_000, "steps"),
    ],
)
def test_climb_in_log_space_matches_mpmath(n, band, unit):
    walk = IdleWalk(n, 0.6, 1.0)
    up, down = walk.up_rates(), walk.down_rates()
    log_mean = climb_means(up, down, band, unit=unit, log=True)
    reference = climb_means(up, down, band, unit=unit, log=True, dps=50)
    for i in np.unique(np.linspace(0, band - 1, 40).astype(int)):
        ref = float(reference[i])
        assert abs(log_mean[i] - ref) <= 1e-15 * (band + abs(ref)) + 1e-13, i


@pytest.mark.parametrize(("n", "unit"), [(1000, "time"), (3000, "steps"), (10**4, "time")])
def test_descent_in_log_space_matches_mpmath(n, unit):
    walk = IdleWalk(n, 0.9, 1.0)
    up, down = walk.up_rates(), walk.down_rates()
    log_mean = descent_means(up, down, unit=unit, log=True)
    reference = descent_means(up, down, unit=unit, log=True, dps=50)
    for i in np.unique(np.linspace(1, n, 40).astype(int)):
        ref = float(reference[i])
        assert abs(log_mean[i] - ref) <= 1e-15 * (n + abs(ref)) + 1e-13, i


@pytest.mark.parametrize("rates", RATES)
@pytest.mark.parametrize("n", [1000, 3000, 10**4, 10**5, 10**6])
def test_descent_matches_the_erlang_loss_closed_form(n, rates):
    """Up to N = 10^6, where E_1[T_0] ~ 10^48128 (lambda_H = 0.6): logs agree to the
    accuracy of scipy's Poisson logcdf/logpmf (measured <= 2e-9 at N = 10^6)."""
    walk = IdleWalk(n, *rates)
    levels = [1, 2, walk.band // 2, walk.band]
    log_mean = descent_means(walk.up_rates(), walk.down_rates(), log=True)[levels]
    np.testing.assert_allclose(log_mean, erlang_log_descent(walk, levels), rtol=0, atol=1e-14 * n)


def test_descent_with_kac_formula():
    """E_1[T_0] = (1 - B)/(mu N B) with B Erlang's loss probability (the return time to 0
    is 1/(q_0 pi_0) = 1/(mu N) + E_1[T_0])."""
    walk = IdleWalk(100, 0.6, 1.0)
    erlang_b = stats.poisson.pmf(100, 60.0) / stats.poisson.cdf(100, 60.0)
    expected = (1 - erlang_b) / (100 * erlang_b)
    assert descent_means(walk.up_rates(), walk.down_rates())[1] == pytest.approx(expected, 1e-12)


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
    Q = generator(np.diag(up[:-1], 1) + np.diag(down[1:], -1))
    np.testing.assert_allclose(
        climb_means(up, down, band), mean_hitting_times(Q, band)[: band + 1], rtol=1e-10
    )
    np.testing.assert_allclose(descent_means(up, down), mean_hitting_times(Q, 0), rtol=1e-10)


def test_jump_chain():
    p, q = jump_chain([4.0, 3.0, 0.0], [0.0, 1.0, 2.0])
    np.testing.assert_array_equal(p, [1.0, 0.75, 0.0])
    np.testing.assert_array_equal(q, [0.0, 0.25, 1.0])


# ---------------------------------------------------------------------------
# bounds


@pytest.mark.parametrize("rates", RATES)
@pytest.mark.parametrize("n", GRID)
def test_wald_sandwich_for_the_chain(n, rates):
    """E[K]/max q <= E[T] <= E[K]/min q on the climb (the real-time step of the bounds)."""
    walk = IdleWalk(n, *rates)
    up, down = walk.up_rates(), walk.down_rates()
    band = walk.band
    total = (up + down)[:band]
    steps = climb_means(up, down, band, unit="steps")[:band]
    time = climb_means(up, down, band)[:band]
    assert np.all(steps / total.max() <= time * (1 + SLACK))
    assert np.all(time <= steps / total.min() * (1 + SLACK))


@pytest.mark.parametrize("rates", RATES)
@pytest.mark.parametrize("n", GRID)
def test_every_hitting_bound_is_on_its_side(n, rates):
    walk = IdleWalk(n, *rates)
    bands = {walk.band, max(2, n // 2)} if n > 4 else {walk.band}
    for band in bands:
        checks = hitting_checks(walk, band=band)
        assert len(checks) == 6 * (band - 1)
        for check in checks:
            assert check.holds_within(SLACK), check


@pytest.mark.parametrize("n", [10**4, 10**6])
def test_hitting_bounds_at_large_n(n):
    checks = hitting_checks(IdleWalk(n, 0.6, 1.0), levels=[1, 2, 50, 99])
    assert all(c.holds for c in checks)


def test_climb_bounds_in_steps_tighten_as_n_grows():
    """i = 1, b = floor(sqrt N); measured step ratios 1.091/0.925 (N = 100),
    1.029/0.972, 1.009/0.991, 1.0009/0.9991 (N = 10^6).  The real-time upper bound
    stays near (mu + lambda_H)/mu = 1.6: min q is the rate mu N at level 0."""
    gaps = []
    for n in (100, 1000, 10**4, 10**6):
        checks = hitting_checks(IdleWalk(n, 0.6, 1.0), levels=[1])
        gaps.append((checks[0].ratio - 1, 1 - checks[1].ratio, 1 - checks[3].ratio))
        assert checks[2].ratio == pytest.approx(1.6, abs=0.06)
    for before, after in zip(gaps, gaps[1:], strict=False):
        assert all(a > b > 0 for a, b in zip(before, after, strict=True))
    assert max(gaps[-1]) < 2e-3


def test_climb_time_to_sqrt_n_is_order_sqrt_n_over_n():
    """E_1[T_b] / (b / (N (mu - lambda_H))) -> 1 (measured 0.900, 0.974, 0.9932, 0.99935
    for N = 10^2, 10^3, 10^4, 10^6), with 1 - ratio about 0.65..1.0 / sqrt(N)."""
    ratios = []
    for n in (100, 1000, 10**4, 10**6):
        walk = IdleWalk(n, 0.6, 1.0)
        time = climb_means(walk.up_rates(), walk.down_rates(), walk.band)[1]
        ratios.append(time / climb_time_leading_term(walk))
        assert 0.5 < (1 - ratios[-1]) * math.sqrt(n) < 1.1
    assert ratios == sorted(ratios) and ratios[-1] == pytest.approx(1, abs=1e-3)


# ---------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: climb_means([1.0, 0.0], [0.0, 1.0], 1, unit="events"), "unit must be one of"),
        (lambda: climb_means([1.0, 0.0], [0.0, 1.0], 2), r"band must be in 1..1"),
        (lambda: climb_means([1.0, 0.0], [1.0, 1.0], 1), r"down\[0\] must be 0"),
        (lambda: descent_means([1.0, 0.0], [0.0, -1.0]), r"got down\[1\] = -1.0"),
        (lambda: descent_means([1.0, 0.0], [0.0, 1.0], dps=1.5), "dps must be an integer"),
        (lambda: walk_climb_steps(0.0, 0, 1), r"p must be in \(0, 1\)"),
        (lambda: walk_climb_steps(0.6, -1, 1), "level must hold integers >= 0"),
        (lambda: walk_climb_steps(0.6, 0, 0), "band must be >= 1"),
        (lambda: hitting_checks(IdleWalk(3, 0.6, 1.0)), r"band must be in 2..2"),
        (lambda: hitting_checks(IdleWalk(16, 0.6, 1.0), levels=[0]), "levels must be integers"),
        (lambda: climb_time_leading_term(IdleWalk(16, 0.6, 1.0), band=17), "band must be in"),
    ],
)
def test_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_a_descent_beyond_float64_keeps_its_logarithm():
    """At N = 10^4 the mean descent from level 1 is about 6e483, past float64: the check
    keeps inf as its value and the logarithm of the closed-form sums, which agrees with
    mpmath's recurrence at 30 digits to 1e-13 relative (the float64 log's own error)."""
    walk = IdleWalk(10_000, 0.6, 1.0)
    checks = {c.name: c for c in hitting_checks(walk, levels=[1])}
    for name, unit in (("E_i[steps to 0] >= i", "steps"),
                       ("E_i[time to 0] >= i/(lambda_H N)", "time")):  # fmt: skip
        check = checks[name]
        assert math.isinf(check.exact) and check.holds
        exact = descent_means(walk.up_rates(), walk.down_rates(), unit=unit, dps=30)[1]
        assert abs(check.log_exact - float(mpmath.log(exact))) <= 1e-13 * check.log_exact
        assert check.log_ratio == pytest.approx(math.log(check.bound) - check.log_exact)
    assert all(c.log_exact is None for c in checks.values() if math.isfinite(c.exact))
