"""Tests of qtheory.walks.chernoff.

- The derivations, by Sympy: in the tilt parametrisation x = x(t) (the tilted mean, a
  bijection onto the interior of the support) the derived tilt is t, the closed form is
  the Legendre transform, the relative-entropy form and the rationalised deviations agree
  with it, and x(t) increases through the mean (so θ* = log ρ* has the sign of x − mean).
- Float64 against 60-digit mpmath values of the textbook formulas typed here, with a
  tolerance scaled by the condition number; the mpmath route to 40 digits.
- Every bound against exact tails: scipy's incomplete gamma and beta functions (Poisson,
  binomial; sums of the pmf in 60-digit mpmath where they underflow), scipy.stats.skellam's
  lower tail, and, for the idle process, the exact CTMC (qtheory.exact.ctmc) and the jump
  chain's transition matrix raised to a power.  No test is statistical.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import scipy.sparse as sparse
import sympy as sp
from conftest import assert_rejects
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from qtheory.exact.ctmc import generator, hitting_time_cdf, transient
from qtheory.model.lossnet import LossNetwork
from qtheory.walks import chernoff as ch
from qtheory.walks import chernoff_checks, idle_tails, window_events
from qtheory.walks.idle import IdleWalk

EPS = np.finfo(float).eps
FAMILIES = [ch.derive_poisson, ch.derive_skellam, ch.derive_walk]

# ---------------------------------------------------------------------------
# independent references (scipy, and mpmath with formulas typed here)


def _positive_sum(term, start: int, step: int, stop: float) -> mpmath.mpf:
    """Σ term(j) for j = start, start + step, ... while j is on ``start``'s side of
    ``stop`` (inclusive), at 60 digits.  Callers start at the tail's edge, where the terms
    are largest and decrease at least geometrically: the sum stops once a term is below
    1e-45 of the total.  All terms are >= 0: no cancellation."""
    with mpmath.workdps(60):
        total, j = mpmath.mpf(0), start
        while (j - stop) * step <= 0:
            value = term(j)
            total += value
            if value < total * mpmath.mpf(10) ** -45:
                break
            j += step
        return +total


def _poisson_tail_mp(m, k: int, tail: str):
    """P(X >= k) or P(X <= k), X ~ Poisson(m): scipy's regularised incomplete gamma
    functions (relative accuracy about 1e-14), and a sum of the pmf in mpmath where they
    underflow."""
    scipy_value = stats.poisson.sf(k - 1, m) if tail == "upper" else stats.poisson.cdf(k, m)
    if scipy_value > 1e-250 or (tail == "lower" and k < 0):
        return float(scipy_value)

    def pmf(j):
        return mpmath.exp(j * mpmath.log(m) - m - mpmath.loggamma(j + 1))

    if tail == "upper":
        return _positive_sum(pmf, max(k, 0), 1, math.inf)
    return _positive_sum(pmf, k, -1, 0)


def _binomial_tail_mp(n: int, p, k: int, tail: str):
    """P(K >= k) or P(K <= k), K ~ Bin(n, p): scipy's regularised incomplete beta
    functions, and a sum of the pmf in mpmath where they underflow."""
    scipy_value = stats.binom.sf(k - 1, n, p) if tail == "upper" else stats.binom.cdf(k, n, p)
    if scipy_value > 1e-250 or not 0 <= k <= n:
        return float(scipy_value)

    def pmf(j):
        log_choose = mpmath.loggamma(n + 1) - mpmath.loggamma(j + 1) - mpmath.loggamma(n - j + 1)
        return mpmath.exp(log_choose + j * mpmath.log(p) + (n - j) * mpmath.log1p(-p))

    return _positive_sum(pmf, k, 1, n) if tail == "upper" else _positive_sum(pmf, k, -1, 0)


def _walk_tail_mp(n: int, p, a: int, tail: str):
    """P(S_n >= a) or P(S_n <= a): S_n = 2K − n."""
    k = math.ceil((n + a) / 2) if tail == "upper" else math.floor((n + a) / 2)
    return _binomial_tail_mp(n, p, k, tail)


def _skellam_tail(u: float, d: float, k: int, tail: str) -> float:
    """scipy's Skellam lower tail (accurate to about 1e-14 relative far into the tail; its
    upper tail is 1 − cdf, so P(U − D >= k) is taken as P(D − U <= −k))."""
    if tail == "upper":
        return float(stats.skellam.cdf(-k, d, u))
    return float(stats.skellam.cdf(k, u, d))


def _poisson_rate_mp(m, x):
    m, x = mpmath.mpf(m), mpmath.mpf(x)
    return m if x == 0 else x * mpmath.log(x / m) - x + m


def _walk_rate_mp(n, p, a):
    """n KL(q || p), q = (1 + a/n)/2."""
    n, p, a = mpmath.mpf(n), mpmath.mpf(p), mpmath.mpf(a)
    q = (n + a) / (2 * n)

    def term(x, y):
        return 0 if x == 0 else x * mpmath.log(x / y)

    return n * (term(q, p) + term(1 - q, 1 - p))


def _skellam_rate_mp(u, d, x):
    u, d, x = mpmath.mpf(u), mpmath.mpf(d), mpmath.mpf(x)
    root = mpmath.sqrt(x * x + 4 * u * d)
    return u + d - root + x * mpmath.log((x + root) / (2 * u))


def _tolerance(rate, args) -> float:
    """10 ulps of the condition scale |E| + Σ |a_i ∂E/∂a_i| of the exponent E(args): the
    error a backward-stable evaluation makes when each input is perturbed by an ulp."""
    with mpmath.workdps(60):
        value = rate(*args)
        scale = abs(value)
        for i, a in enumerate(args):
            partial = mpmath.diff(lambda v, i=i: rate(*args[:i], v, *args[i + 1 :]), a)
            scale += abs(a * partial)
    return float(10 * EPS * scale)


# ---------------------------------------------------------------------------
# the derivations, checked by Sympy

t = sp.Symbol("t", positive=True)  # the tilt e^theta
s = sp.Symbol("s", positive=True)  # p = s / (1 + s) covers 0 < p < 1


def _simplify(expr: sp.Expr) -> sp.Expr:
    """Simplify with p = s/(1 + s) (so that 1 − p > 0 is known) and square roots of
    perfect squares factored."""
    expr = expr.subs(ch.up_probability, s / (1 + s))
    expr = expr.replace(
        lambda e: e.is_Pow and e.exp == sp.S.Half, lambda e: sp.sqrt(sp.factor(e.base))
    )
    return sp.simplify(expr)


def _tilted_mean(family: ch.ChernoffDerivation) -> sp.Expr:
    """x(t) = Λ'(log t): the mean of the law tilted by e^θ = t."""
    return sp.diff(family.log_mgf, ch.theta).subs(ch.theta, sp.log(t))


def _at_tilt(family: ch.ChernoffDerivation, expr: sp.Expr) -> sp.Expr:
    return expr.subs(family.tilt.args[-1], _tilted_mean(family))


@pytest.mark.parametrize("derive", FAMILIES)
def test_tilt_solves_the_stationarity_equation(derive):
    family = derive()
    assert _simplify(_at_tilt(family, family.tilt.expr) - t) == 0
    # and it is a stationary point of θx − Λ(θ) at every x
    objective = ch.theta * family.tilt.args[-1] - family.log_mgf
    slope = sp.diff(objective, ch.theta).subs(ch.theta, sp.log(family.tilt.expr))
    assert _simplify(_at_tilt(family, slope)) == 0


@pytest.mark.parametrize("derive", FAMILIES)
def test_optimal_theta_has_the_sign_of_the_deviation(derive):
    """x(1) is the mean and x(t) increases strictly (x'(t) = Λ''(θ)/t > 0, which also
    makes θ* a maximum): θ* = log ρ* > 0 exactly above the mean, < 0 below it."""
    family = derive()
    mean_at_zero_tilt = _tilted_mean(family).subs(t, 1)
    assert _simplify(mean_at_zero_tilt - family.mean.expr) == 0
    slope = _simplify(sp.diff(_tilted_mean(family), t))
    assert slope.is_positive


@pytest.mark.parametrize("derive", FAMILIES)
def test_closed_form_is_the_legendre_transform(derive):
    family = derive()
    legendre = sp.log(t) * _tilted_mean(family) - family.log_mgf.subs(ch.theta, sp.log(t))
    assert _simplify(_at_tilt(family, family.exponent.expr) - legendre) == 0


@pytest.mark.parametrize("derive", FAMILIES)
def test_entropy_form_and_deviations(derive):
    """Λ* = Σ w_k h(ρ_k) (the form float64 evaluates), and each rationalised deviation
    is ρ_k − 1."""
    family = derive()
    assert _simplify(_at_tilt(family, family.entropy_form() - family.exponent.expr)) == 0
    auxiliary = {a.symbol: a.nonnegative_x.expr for a in family.auxiliary}
    for ratio, deviation in zip(family.ratios, family.deviations, strict=True):
        closed = deviation.expr.subs(auxiliary)
        assert _simplify(_at_tilt(family, closed) - (ratio.subs(ch.tilt, t) - 1)) == 0


def test_skellam_auxiliary_forms_agree():
    """σ± = sqrt(x² + 4ud) ± x: the direct form and its conjugate are the same function."""
    family = ch.derive_skellam()
    assert {a.symbol for a in family.auxiliary} == {ch.sum_root, ch.difference_root}
    square_root = sp.sqrt(ch.tail_level**2 + 4 * ch.up_mean * ch.down_mean)
    direct = {
        ch.sum_root: square_root + ch.tail_level,
        ch.difference_root: square_root - ch.tail_level,
    }
    for a in family.auxiliary:
        for form in (a.nonnegative_x, a.negative_x):
            assert sp.simplify(sp.radsimp(form.expr - direct[a.symbol])) == 0


def test_textbook_forms():
    """Poisson: m h(x/m), h(u) = u log u − u + 1; walk: n KL((1 + a/n)/2 || p)."""
    m, x = ch.mean, ch.tail_level
    u = x / m
    assert sp.simplify(ch.derive_poisson().exponent.expr - m * (u * sp.log(u) - u + 1)) == 0
    n, p, a = ch.steps, ch.up_probability, ch.position
    q = (1 + a / n) / 2
    kl = q * sp.log(q / p) + (1 - q) * sp.log((1 - q) / (1 - p))
    difference = sp.expand_log(ch.derive_walk().exponent.expr - n * kl, force=True)
    assert sp.simplify(difference) == 0  # force: all log arguments are positive inside


def test_cramer_series_is_the_taylor_polynomial():
    eps = ch.deviation
    typed = sum((-eps) ** k / (k * (k - 1)) for k in range(2, 30))
    assert sp.expand(ch.CRAMER_SERIES.expr - typed) == 0


def test_window_derivation():
    """M = (λ_H + λ_L + μ) N W with W = c log N / N, and κ log N = Λ*((1 ± δ) M)."""
    from qtheory.model.lossnet_symbols import lambda_h, lambda_l, mu, servers

    f = window_events.derive_window()
    rate = lambda_h + lambda_l + mu
    events = rate * servers * ch.window_constant * sp.log(servers) / servers
    assert sp.simplify(f.mean_events.expr - events) == 0
    delta = ch.relative_deviation
    for power, scale in ((f.upper_power, 1 + delta), (f.lower_power, 1 - delta)):
        exponent = events * ((scale) * sp.log(scale) - scale + 1)
        assert sp.simplify(power.expr * sp.log(servers) - exponent) == 0


# ---------------------------------------------------------------------------
# float64 and mpmath accuracy


@pytest.mark.parametrize(
    "eps",
    [
        -1.0,
        -0.999999,
        -0.6,
        -0.25,
        -0.2499,
        -1e-3,
        -1e-9,
        -1e-150,
        0.0,
        1e-150,
        1e-8,
        0.01,
        0.2499,
        0.25,
        0.7,
        3.0,
        1e3,
        1e12,
        1e300,
    ],
)
def test_cramer_kernel_relative_accuracy(eps):
    """h(1 + ε) to a few ulps on both sides of the series radius, with h(0) = 1."""
    got = float(ch._cramer(np.float64(eps), "float64"))
    with mpmath.workdps(40 + 2 * int(abs(math.log10(abs(eps) or 1)))):  # beats cancellation
        e = mpmath.mpf(eps)
        want = 1 if e == -1 else (1 + e) * mpmath.log1p(e) - e
    assert got == pytest.approx(float(want), rel=4 * EPS, abs=0)


@pytest.mark.parametrize("mean", [1e-3, 0.5, 1.0, 7.0, 1e3, 1e8, 1e12, 1e15])
@pytest.mark.parametrize("z", [-1.0, -0.9, -0.3, -1e-3, -1e-7, 1e-7, 1e-3, 0.3, 1.0, 10.0, 1e4])
def test_poisson_float64_relative_accuracy(mean, z):
    """−log bound = m h(x/m) to a few ulps for means up to 1e15 and x = m(1 + z) (x − m
    is exact or one rounding, so no condition factor enters)."""
    x = mean * (1 + z)
    tail = "upper" if x >= mean else "lower"
    got = -float(ch.log_poisson_tail_bound(mean, x, tail))
    with mpmath.workdps(60):
        want = float(_poisson_rate_mp(mean, x))
    assert got == pytest.approx(want, rel=8 * EPS, abs=0)


def _random_points(rng: np.random.Generator, count: int):
    """Skellam and walk points over 18 decades of scale and up to 100 standard
    deviations from the mean (seeded: deterministic)."""
    for _ in range(count):
        scale = 10 ** rng.uniform(-2, 16)
        z = rng.choice([-1, 1]) * 10 ** rng.uniform(-6, 2)
        u, d = scale, scale * 10 ** rng.uniform(-3, 3)
        n, p = float(math.ceil(scale)), rng.uniform(0.01, 0.99)
        x = (u - d) + z * math.sqrt(u + d)
        a = float(np.clip(n * (2 * p - 1) + z * math.sqrt(n), -n, n))
        yield (u, d, x), (n, p, a)


def test_skellam_and_walk_float64_accuracy_within_condition():
    rng = np.random.default_rng(20260105)
    for skellam_args, walk_args in _random_points(rng, 150):
        for function, rate, args, centre in (
            (
                ch.log_skellam_tail_bound,
                _skellam_rate_mp,
                skellam_args,
                skellam_args[0] - skellam_args[1],
            ),
            (
                ch.log_walk_tail_bound,
                _walk_rate_mp,
                walk_args,
                walk_args[0] * (2 * walk_args[1] - 1),
            ),
        ):
            tail = "upper" if args[-1] >= centre else "lower"
            got = -float(function(*args, tail))
            with mpmath.workdps(60):
                want = float(rate(*args))
            assert abs(got - want) <= _tolerance(rate, args), (function.__name__, args)


def test_log_bounds_beyond_underflow():
    """e^{-Λ*} underflows past Λ* = 745 while the log stays exact; near e^-700 both are
    accurate."""
    log_bound = ch.log_poisson_tail_bound(1e3, 3e3, "upper")
    want = float(_poisson_rate_mp(1e3, 3e3))
    assert -float(log_bound) == pytest.approx(want, rel=4 * EPS)
    assert float(ch.poisson_tail_bound(1e3, 3e3, "upper")) == 0.0
    # Λ* = 700 exactly: m h(x/m) with m = 700 / h(2) ... choose the walk P(S_n >= n) = p^n
    n = 1010
    p = math.exp(-700 / n)
    bound = float(ch.walk_tail_bound(n, p, float(n)))
    assert bound == pytest.approx(math.exp(-700.0), rel=1e-13)
    assert float(ch.log_poisson_tail_bound(1e10, 1e306)) == -np.inf  # Λ* ≈ 6.8e308
    for u, d, x in ((1.0, 1.0, -1e6), (1.0, 1e-10, -1e3), (1e-10, 1.0, 1e3)):
        with mpmath.workdps(60):
            want = -float(_skellam_rate_mp(u, d, x))
        tail = "upper" if x > u - d else "lower"
        assert float(ch.log_skellam_tail_bound(u, d, x, tail)) == pytest.approx(want, rel=8 * EPS)


@pytest.mark.parametrize(
    ("function", "rate", "args", "tail"),
    [
        (ch.log_poisson_tail_bound, _poisson_rate_mp, (1e12, 1e12 + 1.0), "upper"),
        (ch.log_poisson_tail_bound, _poisson_rate_mp, (3.5, 0.25), "lower"),
        (ch.log_poisson_tail_bound, _poisson_rate_mp, (3.5, 0.0), "lower"),
        (ch.log_skellam_tail_bound, _skellam_rate_mp, (2.0, 7.0, 30.0), "upper"),
        (ch.log_skellam_tail_bound, _skellam_rate_mp, (1e9, 1e9, 1e5 + 0.5), "upper"),
        (ch.log_walk_tail_bound, _walk_rate_mp, (1000, 0.3, -999.0), "lower"),
        (ch.log_walk_tail_bound, _walk_rate_mp, (10**9, 0.6, 2e8 + 3.0), "upper"),
    ],
)
def test_mpmath_route_to_40_digits(function, rate, args, tail):
    with mpmath.workdps(120):  # the typed reference cancels: 120 digits keep 60 of them
        want = -rate(*args)
    got = function(*args, tail, dps=40)
    with mpmath.workdps(120):
        assert abs(got - want) <= mpmath.mpf(10) ** -38 * abs(want)


# ---------------------------------------------------------------------------
# every bound is above the exact tail


def _dominates(log_bound: float, exact) -> bool:
    """log bound >= log exact, with 1e-12 relative slack: at the edge of the support the
    bound is attained (P(X <= 0) = e^{-m}, P(S_n >= n) = p^n) and the two sides differ
    by rounding only."""
    if exact == 0:
        return True
    log_exact = float(mpmath.log(exact))
    return log_bound >= log_exact - 1e-12 * max(1.0, abs(log_exact))


@pytest.mark.parametrize("mean", [0.05, 0.7, 3.0, 25.0, 400.0, 1e4])
def test_poisson_bounds_dominate_exact_tails(mean):
    top = int(mean + 12 * math.sqrt(mean) + 12)
    xs = np.unique(np.linspace(0, top, 60).astype(int))
    for tail in ch.TAILS:
        bounds = ch.log_poisson_tail_bound(mean, xs.astype(float), tail)
        for x, bound in zip(xs, bounds, strict=True):
            assert _dominates(float(bound), _poisson_tail_mp(mean, int(x), tail)), (x, tail)
    assert float(ch.log_poisson_tail_bound(mean, -1.0, "lower")) == -np.inf  # impossible


@pytest.mark.parametrize("n", [1, 2, 7, 40, 300])
@pytest.mark.parametrize("p", [0.05, 0.3, 0.5, 0.62, 0.97])
def test_walk_bounds_dominate_exact_tails(n, p):
    positions = np.arange(-n - 1, n + 2)
    for tail in ch.TAILS:
        bounds = ch.log_walk_tail_bound(n, p, positions.astype(float), tail)
        for a, bound in zip(positions, bounds, strict=True):
            assert _dominates(float(bound), _walk_tail_mp(n, p, int(a), tail)), (a, tail)
    assert float(ch.walk_tail_bound(n, p, n + 1.0, "upper")) == 0.0  # impossible


@pytest.mark.parametrize("up", [0.3, 2.0, 15.0, 120.0])
@pytest.mark.parametrize("down", [0.3, 2.0, 15.0, 120.0])
def test_skellam_bounds_dominate_exact_tails(up, down):
    spread = math.sqrt(up + down)
    xs = np.unique(np.round(np.linspace(-12, 12, 49) * spread + up - down)).astype(int)
    for tail in ch.TAILS:
        bounds = ch.log_skellam_tail_bound(up, down, xs.astype(float), tail)
        for x, bound in zip(xs, bounds, strict=True):
            assert _dominates(float(bound), _skellam_tail(up, down, int(x), tail)), (x, tail)


@settings(max_examples=80, deadline=None)
@given(
    mean=st.floats(1e-3, 1e5),
    z=st.floats(-40, 40),
    tail=st.sampled_from(ch.TAILS),
)
def test_poisson_bound_property(mean, z, tail):
    x = max(0, round(mean + z * math.sqrt(mean)))
    bound = float(ch.log_poisson_tail_bound(mean, float(x), tail))
    assert _dominates(bound, _poisson_tail_mp(mean, x, tail))


@settings(max_examples=80, deadline=None)
@given(
    n=st.integers(1, 20000),
    p=st.floats(1e-3, 1 - 1e-3),
    z=st.floats(-40, 40),
    tail=st.sampled_from(ch.TAILS),
)
def test_walk_bound_property(n, p, z, tail):
    a = int(np.clip(round(n * (2 * p - 1) + z * math.sqrt(n)), -n, n))
    bound = float(ch.log_walk_tail_bound(n, p, float(a), tail))
    assert _dominates(bound, _walk_tail_mp(n, p, a, tail))


@settings(max_examples=80, deadline=None)
@given(
    up=st.floats(1e-2, 300),
    down=st.floats(1e-2, 300),
    z=st.floats(-25, 25),
    tail=st.sampled_from(ch.TAILS),
)
def test_skellam_bound_property(up, down, z, tail):
    x = round(up - down + z * math.sqrt(up + down))
    bound = float(ch.log_skellam_tail_bound(up, down, float(x), tail))
    assert _dominates(bound, _skellam_tail(up, down, x, tail))


def test_wrong_side_bounds_are_trivial_and_vectorised():
    """On the other side of the mean the best θ is 0: bound 1 (log 0); broadcasting."""
    logs = ch.log_poisson_tail_bound(np.array([[4.0], [9.0]]), np.array([1.0, 5.0, 12.0]))
    assert logs.shape == (2, 3)
    assert logs[0, 0] == 0.0 and logs[1, 1] == 0.0 and np.all(logs[:, 2] < 0)
    assert float(ch.skellam_tail_bound(3.0, 1.0, 1.0, "upper")) == 1.0
    assert float(ch.walk_tail_bound(10, 0.7, 5.0, "lower")) == 1.0


# ---------------------------------------------------------------------------
# events in a window


@pytest.mark.parametrize("servers_count", [10, 1000, 10**6])
@pytest.mark.parametrize("c", [0.5, 1.0, 4.0])
@pytest.mark.parametrize("delta", [0.2, 0.5, 1.0])
def test_window_bounds(servers_count, c, delta):
    """N^{-κ} with κ from the derived power, and above the exact Poisson tails."""
    net = LossNetwork(servers_count, 0.6, 0.8, 1.0, 2.0, 1.0)
    events = window_events.window_mean_events(net, c)
    assert events == pytest.approx((0.6 + 0.8 + 1.0) * c * math.log(servers_count), rel=1e-14)
    f = window_events.derive_window()
    for tail, power, scale, rounded in (
        ("upper", f.upper_power, 1 + delta, math.ceil),
        ("lower", f.lower_power, 1 - delta, math.floor),
    ):
        log_bound = window_events.log_window_event_bound(net, c, delta, tail)
        if not (tail == "lower" and delta == 1.0):  # log(1 − δ) = −inf in the power
            kappa = float(power.float64(0.6, 0.8, 1.0, c, delta))
            assert log_bound == pytest.approx(-kappa * math.log(servers_count), rel=1e-12)
        k = rounded(scale * events)
        assert _dominates(log_bound, _poisson_tail_mp(events, k, tail))
    assert window_events.window_event_bound(net, c, 1.0, "lower") == pytest.approx(
        math.exp(-events), rel=1e-13
    )  # P(no event) = e^{-M}: attained


# ---------------------------------------------------------------------------
# the idle process against the exact CTMC and jump chain

GRID_SERVERS = [4, 16, 30, 100, 400, 1000]
GRID_LAMBDA = [0.6, 0.9]
GRID_C = [0.5, 1.0, 2.0, 4.0]
TINY = 1e-300  # uniformisation tolerance: tiny probabilities keep their relative accuracy


def _window(servers_count: int, c: float) -> float:
    return c * math.log(servers_count) / servers_count


def _chain_survival(walk: IdleWalk, start: int, band: int, time: float) -> float:
    """P(T_b > t): the exact CTMC with every level >= b absorbing (the generator's rows
    zeroed there), mass below b at time t."""
    rates = walk.generator().tolil()
    rates[band:, :] = 0.0
    row = transient(generator(sparse.csr_matrix(rates)), start, time, tolerance=TINY)[0]
    return float(row[:band].sum())


def _jump_chain_survival(walk: IdleWalk, start: int, band: int, jumps: int) -> float:
    """P(T > n) from the n-th power of the jump chain's transition matrix (b absorbing)."""
    up = walk.up_probabilities()
    matrix = np.zeros((band + 1, band + 1))
    for level in range(band):
        matrix[level, level + 1] = up[level]
        if level > 0:
            matrix[level, level - 1] = 1.0 - up[level]
    matrix[band, band] = 1.0
    return float(1.0 - np.linalg.matrix_power(matrix, jumps)[start, band])


def _holds(coupled: idle_tails.CoupledBound, exact: float) -> None:
    """exact <= coupled <= Chernoff (1e-9 relative slack for scipy's and the engines'
    rounding; the gaps measured are factors of 1.1 and more)."""
    assert exact <= coupled.coupled * (1 + 1e-9)
    assert coupled.coupled <= coupled.chernoff * (1 + 1e-9)


@pytest.mark.parametrize("servers_count", GRID_SERVERS)
@pytest.mark.parametrize("lam", GRID_LAMBDA)
def test_idle_after_window_against_ctmc(servers_count, lam):
    walk = IdleWalk(servers_count, lam, 1.0)
    band, q = walk.band, walk.generator()
    for c in GRID_C:
        window = _window(servers_count, c)
        for start in sorted({1, -(-band // 2), band}):
            row = transient(q, start, window, tolerance=TINY)[0]
            for level in sorted({0, start // 2, start - 1}):
                bound = idle_tails.idle_after_window_bound(walk, window, start, level)
                _holds(bound.drift, 0.0)
                _holds(bound.escape, 0.0)
                _holds(bound.total, float(row[: level + 1].sum()))


@pytest.mark.parametrize("servers_count", GRID_SERVERS)
@pytest.mark.parametrize("lam", GRID_LAMBDA)
def test_hitting_time_tails_against_ctmc(servers_count, lam):
    walk = IdleWalk(servers_count, lam, 1.0)
    band, q = walk.band, walk.generator()
    starts = sorted({1, -(-band // 2), band})
    for c in GRID_C:
        window = _window(servers_count, c)
        jumps = math.ceil((1.0 + lam) * servers_count * window)
        for start in starts:
            exact = float(hitting_time_cdf(q, 0, start, window, tolerance=TINY)[0])
            _holds(idle_tails.hit_zero_time_bound(walk, start, window), exact)
        for start in (s for s in starts if s < band):
            survival = _chain_survival(walk, start, band, window)
            _holds(idle_tails.climb_time_tail_bound(walk, start, window), survival)
            survival = _jump_chain_survival(walk, start, band, jumps)
            _holds(idle_tails.climb_steps_tail_bound(walk, start, jumps), survival)


@pytest.mark.parametrize("servers_count", GRID_SERVERS)
@pytest.mark.parametrize("lam", GRID_LAMBDA)
def test_climb_tails_in_their_own_scale(servers_count, lam):
    """The climb from 1 to b after 1, 2, 4 and 8 times its drift time (coupled walk and
    counts), where the bounds are far from trivial; without upward drift (N = 4, and
    λ_H = 0.9 up to N = 100) the Chernoff bounds must be the trivial 1."""
    walk = IdleWalk(servers_count, lam, 1.0)
    band = walk.band
    drift_jumps = 2 * walk.coupled_up_probability() - 1
    drift_time = walk.mu * (servers_count - band) - lam * servers_count
    drifts_up = drift_time > 0
    for k in (1, 2, 4, 8):
        jumps = math.ceil(k * (band - 1) / drift_jumps) if drifts_up else 4 * k * band
        steps_bound = idle_tails.climb_steps_tail_bound(walk, 1, jumps)
        _holds(steps_bound, _jump_chain_survival(walk, 1, band, jumps))
        time = k * (band - 1) / drift_time if drifts_up else k * band / (lam * servers_count)
        time_bound = idle_tails.climb_time_tail_bound(walk, 1, time)
        _holds(time_bound, _chain_survival(walk, 1, band, time))
        if not drifts_up:
            assert steps_bound.chernoff == time_bound.chernoff == 1.0


def test_coupled_terms_are_the_stated_distributions():
    """The coupled probabilities are exactly the laws in the theorems (typed here):
    P(i + U − D <= m), U ~ Poisson(μ(N − b)W), D ~ Poisson(λ_H N W); P(D >= b + 1 − m);
    P(Bin(n, p_b) <= (n + b − i − 1)/2) with p_b = μ(N − b)/(μ(N − b) + λ_H N); and the
    Chernoff parts are the family bounds at those points."""
    servers_count, lam, mu, window = 400, 0.6, 1.0, 0.03
    walk = IdleWalk(servers_count, lam, mu)
    band, start, level = 20, 12, 3
    up, down = mu * (servers_count - band) * window, lam * servers_count * window
    bound = idle_tails.idle_after_window_bound(walk, window, start, level, band=band)
    assert bound.drift.coupled == pytest.approx(stats.skellam.cdf(level - start, up, down))
    assert bound.escape.coupled == pytest.approx(stats.poisson.sf(band - level, down))
    assert bound.drift.chernoff == pytest.approx(
        float(ch.skellam_tail_bound(up, down, level - start, "lower"))
    )
    assert bound.escape.chernoff == pytest.approx(
        float(ch.poisson_tail_bound(down, band + 1 - level, "upper"))
    )
    p_b = mu * (servers_count - band) / (mu * (servers_count - band) + lam * servers_count)
    jumps = 77
    steps = idle_tails.climb_steps_tail_bound(walk, start, jumps, band=band)
    below = band - start - 1
    assert steps.coupled == pytest.approx(stats.binom.cdf((jumps + below) // 2, jumps, p_b))
    assert steps.chernoff == pytest.approx(float(ch.walk_tail_bound(jumps, p_b, below, "lower")))
    climb = idle_tails.climb_time_tail_bound(walk, start, window, band=band)
    assert climb.coupled == pytest.approx(stats.skellam.cdf(band - 1 - start, up, down))
    zero = idle_tails.hit_zero_time_bound(walk, start, window)
    assert zero.coupled == pytest.approx(stats.poisson.sf(start - 1, down))
    assert zero.chernoff == pytest.approx(float(ch.poisson_tail_bound(down, start, "upper")))


def test_private_exact_routes_agree_with_the_engine():
    """The exact values chernoff_checks uses: the module's jump-chain recursion against
    the matrix power above, and its absorbed CTMC against 1 − hitting_time_cdf."""
    walk = IdleWalk(400, 0.6, 1.0)
    band = walk.band
    for jumps in (5, 60, 400):
        want = _jump_chain_survival(walk, 3, band, jumps)
        assert chernoff_checks._exact_climb_steps_survival(walk, 3, band, jumps) == pytest.approx(
            want, rel=1e-12
        )
    for time in (0.01, 0.05, 0.2):
        want = 1.0 - float(hitting_time_cdf(walk.generator(), band, 3, time)[0])
        assert chernoff_checks._exact_climb_time_survival(walk, 3, band, time) == pytest.approx(
            want, rel=1e-10
        )


# ---------------------------------------------------------------------------
# the checks


@pytest.mark.parametrize("servers_count", [4, 30, 400])
def test_chernoff_checks(servers_count):
    net = LossNetwork(servers_count, 0.6, 0.8, 1.0, 2.0, 1.0)
    checks = chernoff_checks.chernoff_checks(net)
    assert all(check.holds for check in checks), [c for c in checks if not c.holds]
    assert {check.direction for check in checks} == {"upper"}
    names = " ".join(check.name for check in checks)
    for kind in ("Poisson", "Skellam", "S_n", "events in W", "P(I(W) <= 0)", "P(T_0 <= W)"):
        assert kind in names
    # the climb is checked when the coupled walk drifts up: μ(N − b) > λ_H N (not at N = 4)
    drifts_up = servers_count - math.isqrt(servers_count) > 0.6 * servers_count
    assert ("P(T_b >" in names) == drifts_up


# ---------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: ch.poisson_tail_bound(0.0, 1.0), "mean must be finite and > 0"),
        (lambda: ch.poisson_tail_bound(1.0, np.nan), "x must be finite"),
        (lambda: ch.poisson_tail_bound(1.0, 2.0, "above"), "tail must be 'upper'"),
        (lambda: ch.walk_tail_bound(2.5, 0.5, 1.0), "steps must be an integer >= 1"),
        (lambda: ch.walk_tail_bound(3, 1.0, 1.0), "up_probability must be in \\(0, 1\\)"),
        (lambda: ch.skellam_tail_bound(1.0, -1.0, 0.0), "down must be finite and > 0"),
        (lambda: ch.skellam_tail_bound(1e-300, 1e300, 1e300), "too far apart"),
        (lambda: ch.poisson_tail_bound([1.0, 2.0], 1.0, dps=20), "with dps the arguments"),
        (lambda: ch.poisson_tail_bound(1.0, 1.0, dps=0), "dps must be an integer >= 1"),
        (
            lambda: window_events.window_mean_events(IdleWalk(10, 0.6, 1.0), 1.0),
            "net must be a LossNetwork",
        ),
        (
            lambda: window_events.window_event_bound(
                LossNetwork(9, 0.6, 0.8, 1.0, 2.0, 1.0), 1.0, 1.5, "lower"
            ),
            "delta must be <= 1",
        ),
        (
            lambda: window_events.window_event_bound(
                LossNetwork(9, 0.6, 0.8, 1.0, 2.0, 1.0), -1.0, 0.5
            ),
            "c must be > 0",
        ),
        (
            lambda: idle_tails.idle_after_window_bound(IdleWalk(100, 0.6, 1.0), 0.1, 11, 0),
            "start must be in 0..10",
        ),
        (
            lambda: idle_tails.idle_after_window_bound(
                IdleWalk(100, 0.6, 1.0), 0.1, 1, 0, band=100
            ),
            "band must be in 1..99",
        ),
        (
            lambda: idle_tails.idle_after_window_bound(IdleWalk(100, 0.6, 1.0), 0.0, 1, 0),
            "window must be > 0",
        ),
        (
            lambda: idle_tails.climb_steps_tail_bound(IdleWalk(100, 0.6, 1.0), 10, 5),
            "start must be in 0..9",
        ),
        (
            lambda: idle_tails.climb_time_tail_bound(IdleWalk(100, 0.6, 1.0), 1, 0.1, band=1.5),
            "band must be an integer",
        ),
        (
            lambda: idle_tails.hit_zero_time_bound(IdleWalk(100, 0.6, 1.0), 0, 0.1),
            "start must be in 1..100",
        ),
        (
            lambda: idle_tails.hit_zero_time_bound(LossNetwork(9, 0.6, 0.8, 1.0, 2.0, 1.0), 1, 0.1),
            "walk must be an IdleWalk",
        ),
        (
            lambda: chernoff_checks.chernoff_checks(LossNetwork(3, 0.6, 0.8, 1.0, 2.0, 1.0)),
            "servers must be >= 4",
        ),
        (
            lambda: chernoff_checks.chernoff_checks(IdleWalk(30, 0.6, 1.0)),
            "net must be a LossNetwork",
        ),
        (
            lambda: chernoff_checks.chernoff_checks(LossNetwork(10**9, 0.6, 0.8, 1.0, 2.0, 1.0)),
            "servers: ",
        ),
    ],
)
def test_bad_input_raises(call, message):
    assert_rejects(call, match=message)


@pytest.mark.parametrize("size", [1e-320, 5e-324, 1e-310])
def test_skellam_bound_with_subnormal_arguments_is_finite_without_warnings(size):
    """Regression (found by fuzzing): the power-of-two rescaling of Lambda* computed 2^k
    itself, which overflows for subnormal arguments (k > 1023): 'overflow in exp2'.  The
    exponent is homogeneous of degree 1, so the bound at (s u, s d, s x) is s times the
    bound at (u, d, x): compare with the same call at scale 1."""
    unit = ch.log_skellam_tail_bound(1.0, 1.0, 2.0)
    scaled = ch.log_skellam_tail_bound(size, size, 2.0 * size)
    assert np.isfinite(scaled)
    assert scaled == pytest.approx(size * unit, rel=1e-12)
