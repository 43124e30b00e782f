"""Tests of the birth-death solvers against closed forms, scipy's Poisson law, mpmath
and GTH."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp
from scipy.stats import poisson

from qtheory.core import limits
from qtheory.exact import (
    birth_death_log_weights,
    birth_death_stationary,
    stationary_ctmc,
)

# ---------------------------------------------------------------------------
# helpers


def bd_generator(birth, death) -> np.ndarray:
    size = len(birth) + 1
    Q = np.zeros((size, size))
    idx = np.arange(size - 1)
    Q[idx, idx + 1] = birth
    Q[idx + 1, idx] = death
    Q[np.diag_indices(size)] = -Q.sum(axis=1)
    return Q


def erlang_b(load: float, servers: int) -> float:
    """Erlang B by its recursion B(c) = a B(c-1) / (c + a B(c-1))."""
    blocking = 1.0
    for c in range(1, servers + 1):
        blocking = load * blocking / (c + load * blocking)
    return blocking


#: Absolute slack for subnormal results (spacing of float64 subnormals is 4.9e-324).
SUBNORMAL = 1e-323

rates = st.floats(1e-3, 1e3, allow_nan=False, allow_infinity=False)


@st.composite
def chains(draw, max_states: int = 40):
    n = draw(st.integers(0, max_states))
    birth = np.array(draw(st.lists(rates, min_size=n, max_size=n)))
    death = np.array(draw(st.lists(rates, min_size=n, max_size=n)))
    return birth, death


# ---------------------------------------------------------------------------
# closed forms


@pytest.mark.parametrize(
    ("arrival", "service", "capacity"),
    [(1.0, 2.0, 10), (3.0, 2.0, 25), (1.0, 1.0, 7), (0.37, 5.1, 60), (100.0, 1.0, 120)],
)
def test_mm1k_truncated_geometric(arrival, service, capacity):
    birth, death = np.full(capacity, arrival), np.full(capacity, service)
    rho = arrival / service
    k = np.arange(capacity + 1)
    if rho == 1.0:
        expected = np.full(capacity + 1, 1.0 / (capacity + 1))
    else:
        expected = (1 - rho) * rho**k / (1 - rho ** (capacity + 1))
    # every component to relative accuracy, including those of order 1e-240
    np.testing.assert_allclose(birth_death_stationary(birth, death), expected, rtol=1e-13, atol=0)
    np.testing.assert_allclose(
        birth_death_log_weights(birth, death), k * np.log(rho), rtol=1e-14, atol=1e-14
    )


def test_mm1k_beyond_float_range():
    """rho = 1e-3 and K = 2000: pi_K is about 1e-6000.  float64 gives 0 there and the
    exact values elsewhere; mpmath gives every value to 50 digits."""
    K = 2000
    birth, death = np.full(K, 1e-3), np.ones(K)
    pi = birth_death_stationary(birth, death)
    k = np.arange(K + 1)
    with np.errstate(under="ignore"):
        expected = (1 - 1e-3) * 10.0 ** (-3.0 * k)
    np.testing.assert_allclose(pi, expected / (1 - 1e-3 ** (K + 1)), rtol=1e-13, atol=SUBNORMAL)
    assert pi[-1] == 0.0
    mp_pi = birth_death_stationary(birth, death, dps=50)
    with mpmath.workdps(60):
        rho = mpmath.mpf(1e-3)  # the binary float, as the solver sees it
        exact_last = (1 - rho) * rho**K / (1 - rho ** (K + 1))
        assert abs(mp_pi[-1] / exact_last - 1) < mpmath.mpf(10) ** -48
        assert abs(mpmath.fsum(mp_pi) - 1) < mpmath.mpf(10) ** -48
    assert float(mpmath.log10(mp_pi[-1])) == pytest.approx(-6000, abs=2)


@pytest.mark.parametrize(
    ("load", "servers"), [(0.5, 1), (2.0, 5), (10.0, 10), (35.0, 30), (80.0, 100), (900.0, 1000)]
)
def test_erlang_b(load, servers):
    service = 1.5
    k = np.arange(servers)
    pi = birth_death_stationary(np.full(servers, load * service), (k + 1) * service)
    truncated = poisson.pmf(np.arange(servers + 1), load) / poisson.cdf(servers, load)
    np.testing.assert_allclose(pi, truncated, rtol=1e-10, atol=SUBNORMAL)
    assert pi[-1] == pytest.approx(erlang_b(load, servers), rel=1e-12)


def test_mm_infinity_truncated_at_a_million_against_scipy_poisson():
    """M/M/inf with offered load 1000, truncated at n = 1e6 customers: Poisson(1000)
    conditioned on <= 1e6 (the conditioning changes nothing in float64).  Log weights
    reach -5.9e6; probabilities are compared in relative terms down to 1e-300."""
    n, load = 10**6, 1000.0
    birth, death = np.full(n, load), np.arange(1.0, n + 1)
    pi = birth_death_stationary(birth, death)
    k = np.arange(n + 1)
    expected_log = poisson.logpmf(k, load)
    representable = expected_log > math.log(1e-300)
    assert representable.sum() > 2000
    np.testing.assert_allclose(
        pi[representable], np.exp(expected_log[representable]), rtol=1e-11, atol=0
    )
    assert np.all(pi[~representable] < 1e-299)
    # the log weights, normalised, follow logpmf over the whole range in relative terms
    log_w = birth_death_log_weights(birth, death)
    log_pi = log_w - logsumexp(log_w)
    np.testing.assert_allclose(log_pi[1:], expected_log[1:], rtol=1e-12, atol=1e-9)


def test_millions_of_states_near_the_mode_against_mpmath():
    """Offered load 1e6 truncated at n = 2e6: log w at the mode is about 1e6, so a
    cumulative sum of logs from state 0 would leave relative errors up to ~1e-7; the
    mantissa/exponent products keep ~1e-13.  Reference: the Poisson pmf in mpmath at
    30 digits (the truncation changes the normaliser by far less than 1e-30)."""
    n, load = 2 * 10**6, 1e6
    pi = birth_death_stationary(np.full(n, load), np.arange(1.0, n + 1))
    assert pi.sum() == pytest.approx(1.0, abs=1e-13)
    assert pi[0] == 0.0 and pi[-1] == 0.0
    sample = [990_000, 999_999, 1_000_000, 1_000_001, 1_003_000, 1_010_000, 1_036_000]
    with mpmath.workdps(30):
        lam = mpmath.mpf(load)
        for k in sample:
            exact = mpmath.exp(k * mpmath.log(lam) - lam - mpmath.loggamma(k + 1))
            assert float(pi[k]) == pytest.approx(float(exact), rel=1e-12), k


@settings(max_examples=60, deadline=None)
@given(chains())
def test_against_gth(chain):
    birth, death = chain
    expected = stationary_ctmc(bd_generator(birth, death))
    np.testing.assert_allclose(birth_death_stationary(birth, death), expected, rtol=1e-11)


@settings(max_examples=40, deadline=None)
@given(chains(max_states=25))
def test_float64_against_mpmath(chain):
    birth, death = chain
    pi = birth_death_stationary(birth, death)
    mp_pi = birth_death_stationary(birth, death, dps=50)
    assert len(mp_pi) == len(pi)
    np.testing.assert_allclose(pi, [float(p) for p in mp_pi], rtol=1e-12, atol=0)
    assert abs(mpmath.fsum(mp_pi) - 1) < mpmath.mpf(10) ** -45


def test_large_spread_chain_against_mpmath():
    """10,000 states, rates spread over 12 orders of magnitude; float64 vs 50 digits
    on every representable component."""
    rng = np.random.default_rng(3)
    n = 10_000
    birth = 10 ** rng.uniform(-6, 6, n)
    death = 10 ** rng.uniform(-6, 6, n)
    pi = birth_death_stationary(birth, death)
    mp_pi = birth_death_stationary(birth, death, dps=50)
    reference = np.array([float(p) for p in mp_pi])
    normal = reference > 1e-300
    assert normal.sum() > 100
    np.testing.assert_allclose(pi[normal], reference[normal], rtol=1e-11, atol=0)


def test_mp_accepts_mpf_and_strings_and_precision():
    with mpmath.workdps(80):
        third = mpmath.mpf(1) / 3
    pi = birth_death_stationary([third, "0.1"], ["0.2", 1], dps=70)
    # weights 1, (1/3)/0.2 = 5/3, (5/3)(0.1) = 1/6: total 17/6
    with mpmath.workdps(70):
        expected = [mpmath.mpf(6) / 17, mpmath.mpf(10) / 17, mpmath.mpf(1) / 17]
        for got, want in zip(pi, expected, strict=True):
            assert abs(got - want) < mpmath.mpf(10) ** -68


def test_small_cases():
    np.testing.assert_array_equal(birth_death_stationary([], []), [1.0])
    np.testing.assert_array_equal(birth_death_log_weights([], []), [0.0])
    assert birth_death_stationary([], [], dps=15) == [1]
    np.testing.assert_allclose(birth_death_stationary([1.0], [3.0]), [0.75, 0.25], rtol=1e-15)


def test_extreme_ratios_do_not_overflow():
    # birth / death overflows (1e300 / 1e-300): the difference of logs is used
    log_w = birth_death_log_weights([1e300, 1e-300], [1e-300, 1e300])
    np.testing.assert_allclose(log_w, [0.0, 600 * math.log(10), 0.0], atol=1e-9)
    np.testing.assert_allclose(
        birth_death_stationary([1e300, 1e-300], [1e-300, 1e300]), [0, 1, 0], atol=1e-300
    )


def test_input_not_modified():
    birth, death = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    birth_death_stationary(birth, death)
    birth_death_log_weights(birth, death)
    np.testing.assert_array_equal(birth, [1.0, 2.0])
    np.testing.assert_array_equal(death, [3.0, 4.0])


# ---------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    ("birth", "death", "message"),
    [
        ([1.0, 2.0], [1.0], "birth and death must have the same length"),
        ([1.0, 0.0], [1.0, 1.0], r"birth must be finite and > 0, got birth\[1\] = 0.0"),
        ([1.0, 1.0], [-1.0, 1.0], r"death must be finite and > 0, got death\[0\] = -1.0"),
        ([np.nan], [1.0], "birth must be finite and > 0"),
        ([1.0], [np.inf], "death must be finite and > 0"),
        ([[1.0]], [[1.0]], "birth must be 1-D"),
        (["a"], [1.0], "birth must be a 1-D array of real numbers"),
        ([1j], [1.0], "birth must be real"),
        ([True], [1.0], "birth must be a 1-D array of real numbers"),
        ([[1.0, 2.0], [1.0]], [1.0], "birth must be a 1-D array of real numbers"),
    ],
)
def test_bad_input(birth, death, message):
    with pytest.raises(ValueError, match=message):
        birth_death_stationary(birth, death)
    with pytest.raises(ValueError, match=message):
        birth_death_log_weights(birth, death)


@pytest.mark.parametrize(
    ("birth", "death", "dps", "message"),
    [
        ([1.0, 2.0], [1.0], 50, "birth and death must have the same length"),
        ([1.0, 0.0], [1.0, 1.0], 50, r"birth must be finite and > 0, got birth\[1\]"),
        ([1.0], ["nan"], 50, "death must be finite and > 0"),
        ([mpmath.inf], [1.0], 50, "birth must be finite and > 0"),
        (["x"], [1.0], 50, "birth must hold real numbers"),
        ([True], [1.0], 50, "birth must hold numbers"),
        (1.0, [1.0], 50, "birth must be a sequence of rates"),
        ([1.0], [1.0], 0, "dps must be an integer >= 1"),
        ([1.0], [1.0], -3, "dps must be an integer >= 1"),
        ([1.0], [1.0], 20.5, "dps must be an integer >= 1"),
        ([1.0], [1.0], True, "dps must be an integer >= 1"),
        ([1.0], [1.0], "30", "dps must be an integer >= 1"),
        ([1.0], [1.0], 10**9, "dps: .* above the limit"),
    ],
)
def test_mp_bad_input(birth, death, dps, message):
    with pytest.raises(ValueError, match=message):
        birth_death_stationary(birth, death, dps=dps)


def test_dps_is_keyword_only():
    with pytest.raises(TypeError):
        birth_death_stationary([1.0], [2.0], 30)


def test_huge_chains_are_refused_before_allocating():
    # 10^6 states in mpmath: 10^9 cells, under the default limit; lowered, refused
    with limits.raised(dp_cells=1e8), pytest.raises(ValueError, match="birth: .*cells"):
        birth_death_stationary(range(1, 10**6 + 1), range(1, 10**6 + 1), dps=20)
    with limits.raised(memory=1e6), pytest.raises(ValueError, match="birth: .*bytes"):
        birth_death_stationary(np.ones(10**5), np.ones(10**5))


def test_mp_route_is_correct_to_dps_digits():
    """M/M/1/n with rates 1 and 3: pi_i = (2/3) 3^-i / (1 - 3^-(n+1)), by the geometric
    closed form at 60 digits; the mpmath route at D digits agrees to D digits."""
    n = 200
    with mpmath.workdps(60):
        third = mpmath.mpf(1) / 3
        exact = [2 * third * third**i / (1 - third ** (n + 1)) for i in range(n + 1)]
    for dps in (5, 25):
        pi = birth_death_stationary([1] * n, [3] * n, dps=dps)
        with mpmath.workdps(60):
            worst = max(abs(p / e - 1) for p, e in zip(pi, exact, strict=True))
        assert worst <= mpmath.mpf(10) ** -dps
