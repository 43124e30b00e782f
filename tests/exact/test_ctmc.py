"""Tests of the sparse CTMC engine against closed forms and independent algorithms
(GTH, the birth-death solver, scipy.linalg.expm)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sparse
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.linalg import expm
from scipy.sparse.linalg import expm_multiply

from qtheory.exact import birth_death_stationary, stationary_ctmc
from qtheory.exact.ctmc import (
    REDUCTION_MAX_STATES,
    _solve_on,
    accumulated_reward,
    generator,
    hitting_probabilities,
    hitting_time_cdf,
    mean_hitting_times,
    stationary,
    transient,
)

# ---------------------------------------------------------------------------
# helpers


def walk(n: int, up: float, down: float, absorbing=()) -> sparse.csr_matrix:
    """Generator of the random walk on 0..n with rate ``up`` to i+1 and ``down`` to
    i-1; states in ``absorbing`` have no exits."""
    i = np.arange(n)
    rates = sparse.lil_matrix((n + 1, n + 1))
    rates[i, i + 1] = up
    rates[i + 1, i] = down
    for state in absorbing:
        rates[state, :] = 0.0
    return generator(rates)


@st.composite
def rate_matrices(draw, max_states: int = 7, irreducible: bool = True):
    """Random off-diagonal rate matrices; a random cycle makes them irreducible."""
    n = draw(st.integers(1, max_states))
    elements = st.floats(0.0, 10.0, allow_nan=False, allow_infinity=False)
    rates = draw(arrays(np.float64, (n, n), elements=elements))
    rates *= draw(arrays(np.bool_, (n, n)))
    if irreducible:
        order = draw(st.permutations(range(n)))
        weight = draw(st.floats(1e-2, 10.0))
        for a, b in zip(order, order[1:] + order[:1], strict=True):
            rates[a, b] += weight
    np.fill_diagonal(rates, 0.0)
    return rates


def dense_generator(rates: np.ndarray) -> np.ndarray:
    Q = rates.copy()
    np.fill_diagonal(Q, 0.0)
    Q[np.diag_indices(len(Q))] = -Q.sum(axis=1)
    return Q


# ---------------------------------------------------------------------------
# generator


def test_generator_dense_and_sparse_agree():
    rates = np.array([[5.0, 1.0, 0.0], [2.0, 0.0, 3.0], [0.0, 0.0, 0.0]])
    Q = generator(rates)
    assert isinstance(Q, sparse.csr_matrix)
    expected = np.array([[-1.0, 1.0, 0.0], [2.0, -5.0, 3.0], [0.0, 0.0, 0.0]])
    np.testing.assert_array_equal(Q.toarray(), expected)  # diagonal of rates ignored
    np.testing.assert_array_equal(generator(sparse.coo_matrix(rates)).toarray(), expected)
    # every diagonal entry is stored, including the absorbing state's 0
    assert Q.has_sorted_indices
    assert Q.nnz == 3 + 3
    # passing a generator recomputes its diagonal
    np.testing.assert_array_equal(generator(Q).toarray(), expected)


@pytest.mark.parametrize(
    ("rates", "message"),
    [
        (np.zeros((2, 3)), "rates must be a square 2-D array"),
        (np.zeros((0, 0)), "rates must have at least one state"),
        (np.zeros(3), "rates must be a square 2-D array"),
        ([[0.0, -1.0], [1.0, 0.0]], r"rates must have non-negative off-diagonal rates, got "),
        ([[0.0, np.nan], [1.0, 0.0]], r"rates must be finite \(no NaN or inf\), got rates\[0, 1\]"),
        (sparse.csr_matrix([[0.0, np.inf], [1.0, 0.0]]), "rates must be finite"),
        ([[0.0, 1j], [1.0, 0.0]], "rates must be real"),
        ([["a", "b"], ["c", "d"]], "rates must be a 2-D array of real numbers"),
        ([[0.0, 1.0], [1.0]], "rates must be a 2-D array of real numbers"),
    ],
)
def test_generator_bad_input(rates, message):
    with pytest.raises(ValueError, match=message):
        generator(rates)


# ---------------------------------------------------------------------------
# stationary


@settings(max_examples=80, deadline=None)
@given(rate_matrices())
def test_stationary_against_gth(rates):
    expected = stationary_ctmc(dense_generator(rates))
    Q = generator(rates)
    np.testing.assert_allclose(stationary(Q), expected, rtol=1e-13, atol=0)
    np.testing.assert_allclose(stationary(Q, method="sparse"), expected, rtol=1e-9, atol=1e-14)
    # the dense generator is accepted too
    np.testing.assert_allclose(stationary(dense_generator(rates)), expected, rtol=1e-13)


def test_sparse_solve_on_large_birth_death_chain():
    """5,000 states (beyond the GTH limit, so the sparse LU route) against the
    birth-death solver, and 200,000 states.  The LU solve is accurate
    norm-wise: absolute errors at the rounding level of the largest probability."""
    n = 5000
    rng = np.random.default_rng(1)
    birth = rng.uniform(0.5, 2.0, n - 1) * 2000.0
    death = np.arange(1.0, n) * rng.uniform(0.8, 1.2, n - 1)
    i = np.arange(n - 1)
    rates = sparse.csr_matrix(
        (np.r_[birth, death], (np.r_[i, i + 1], np.r_[i + 1, i])), shape=(n, n)
    )
    expected = birth_death_stationary(birth, death)
    pi = stationary(generator(rates))
    assert pi.sum() == pytest.approx(1.0, abs=1e-13)
    np.testing.assert_allclose(pi, expected, rtol=0, atol=1e-12 * expected.max())
    big = expected > 1e-6
    assert big.sum() > 100
    np.testing.assert_allclose(pi[big], expected[big], rtol=1e-9)
    # 200,000 states: the sparse route does not fill in
    n = 200_000
    birth, death = np.full(n - 1, 0.5 * n), np.arange(1.0, n)
    i = np.arange(n - 1)
    rates = sparse.csr_matrix(
        (np.r_[birth, death], (np.r_[i, i + 1], np.r_[i + 1, i])), shape=(n, n)
    )
    np.testing.assert_allclose(
        stationary(generator(rates)), birth_death_stationary(birth, death), rtol=0, atol=1e-15
    )


def test_stationary_single_state_and_method_check():
    np.testing.assert_array_equal(stationary(generator([[0.0]])), [1.0])
    np.testing.assert_array_equal(stationary(generator([[0.0]]), method="sparse"), [1.0])
    with pytest.raises(ValueError, match="method must be 'auto', 'gth' or 'sparse'"):
        stationary(generator([[0.0]]), method="lu")


@pytest.mark.parametrize(
    ("Q", "message"),
    [
        (np.array([[0.0, 1.0], [1.0, 0.0]]), r"Q rows must sum to 0 .* build a generator"),
        (np.array([[-1.0, 1.0], [2.0, -1.0]]), "row 1 sums to 1.0"),
        (np.array([[1.0, -1.0], [2.0, -2.0]]), "Q must have non-negative off-diagonal rates"),
        (np.array([[-1.0, 1.0], [0.0, 0.0]]), "Q must be irreducible, but state 0 cannot be"),
        (np.array([[0.0, 0.0], [1.0, -1.0]]), "Q must be irreducible, but state 1 cannot be"),
        (np.array([[-1.0, 1.0], [np.nan, -1.0]]), "Q must be finite"),
        (np.zeros((2, 3)), "Q must be a square"),
    ],
)
def test_stationary_bad_input(Q, message):
    with pytest.raises(ValueError, match=message):
        stationary(Q)
    with pytest.raises(ValueError, match=message):
        stationary(sparse.csr_matrix(Q), method="sparse")


def test_row_tolerance_is_relative():
    Q = np.array([[-1e9, 1e9], [3e9, -3e9]])
    Q[0, 0] -= 1e-3  # 1e-12 relative: accepted (and the diagonal is recomputed)
    np.testing.assert_allclose(stationary(Q), [0.75, 0.25], rtol=1e-15)
    Q[0, 0] -= 1.0  # 1e-9 relative: rejected
    with pytest.raises(ValueError, match="Q rows must sum to 0"):
        stationary(Q)


# ---------------------------------------------------------------------------
# transient


@settings(max_examples=60, deadline=None)
@given(a=st.floats(1e-3, 1e2), b=st.floats(1e-3, 1e2), t=st.floats(0.0, 5.0))
def test_transient_two_state_closed_form(a, b, t):
    """0 -> 1 at rate a, 1 -> 0 at rate b: P_0(X_t = 1) = a (1 - e^{-(a+b)t}) / (a+b)."""
    p = transient(generator([[0.0, a], [b, 0.0]]), 0, t)
    assert p.shape == (1, 2)
    one = a * -np.expm1(-(a + b) * t) / (a + b)
    assert p[0, 1] == pytest.approx(one, rel=1e-12, abs=1e-15)
    assert p[0, 0] == pytest.approx(1 - one, rel=1e-12, abs=1e-15)


@settings(max_examples=60, deadline=None)
@given(rates=rate_matrices(irreducible=False), data=st.data())
def test_transient_against_expm(rates, data):
    n = len(rates)
    weights = np.array(data.draw(st.lists(st.floats(0.0, 1.0), min_size=n, max_size=n)))
    initial = np.full(n, 1.0 / n) if weights.sum() == 0 else weights / weights.sum()
    times = np.array([0.7, 0.0, 2.5, 0.7, 0.01])  # unsorted, repeated
    p = transient(generator(rates), initial, times)
    Q = dense_generator(rates)
    for row, t in zip(p, times, strict=True):
        np.testing.assert_allclose(row, initial @ expm(Q * t), rtol=1e-9, atol=1e-13)
    assert np.all(p >= 0)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-13)


def test_transient_absorbing_and_no_transitions():
    np.testing.assert_array_equal(
        transient(generator(np.zeros((3, 3))), 1, [0.0, 5.0])[1], [0, 1, 0]
    )
    # pure death chain 2 -> 1 -> 0 at rate 1: P_2(X_t = 0) = 1 - e^{-t}(1 + t)
    Q = generator([[0, 0, 0], [1.0, 0, 0], [0, 1.0, 0]])
    t = np.array([0.1, 1.0, 10.0])
    p = transient(Q, [0.0, 0.0, 1.0], t)
    np.testing.assert_allclose(p[:, 0], 1 - np.exp(-t) * (1 + t), rtol=1e-13)
    np.testing.assert_allclose(p[:, 2], np.exp(-t), rtol=1e-13)


def test_transient_keeps_tiny_probabilities_accurate():
    """P_0(X_t = 2) for the chain 0 -> 1 -> 2 at rate 1 and t = 1e-6 is
    1 - e^{-t}(1 + t) ~ t^2/2 = 5e-13: full relative accuracy (non-negative terms)."""
    Q = generator([[0, 1.0, 0], [0, 0, 1.0], [0, 0, 0]])
    t = 1e-6
    exact = t**2 / 2 - t**3 / 3 + t**4 / 8  # series of 1 - e^{-t}(1 + t)
    assert transient(Q, 0, t)[0, 2] == pytest.approx(exact, rel=1e-14)


def test_tiny_hitting_probability_with_tiny_tolerance():
    """Walk on 0..29 (up 1, down 5), target 29 from 0 by t = 0.5: P = 1.318e-41, which
    needs >= 29 jumps.  With tolerance 1e-300 it is relatively accurate (reference:
    mpmath.expm at 60 digits); with the default it is only within 1e-15."""
    reference = 1.31830107760085229230186152250566151279e-41
    Q = walk(29, 1.0, 5.0)
    fine = hitting_time_cdf(Q, 29, 0, 0.5, tolerance=1e-300)[0]
    assert fine == pytest.approx(reference, rel=1e-12)
    assert abs(hitting_time_cdf(Q, 29, 0, 0.5)[0] - reference) < 1e-15
    # the norm-wise Taylor method cannot resolve it
    absorbing = walk(29, 1.0, 5.0, absorbing=(29,))
    other = expm_multiply(absorbing.T.tocsc() * 0.5, np.eye(30)[0])[29]
    assert abs(other / reference - 1) > 0.1


@pytest.mark.parametrize(
    ("initial", "times", "message"),
    [
        ([0.5, 0.6], [1.0], "initial must sum to 1"),
        ([1.5, -0.5], [1.0], r"initial must be finite and >= 0, got initial\[1\] = -0.5"),
        ([1.0], [1.0], r"initial must have shape \(2,\)"),
        (2, [1.0], r"initial as a state index must be in 0..1"),
        ([np.nan, 1.0], [1.0], "initial must be finite"),
        (0, [-1.0], r"times must be finite and >= 0, got times\[0\] = -1.0"),
        (0, [np.inf], "times must be finite and >= 0"),
        (0, [[1.0]], "times must be a number or 1-D"),
        (0, "soon", "times must be a number or a 1-D array"),
    ],
)
def test_transient_bad_input(initial, times, message):
    with pytest.raises(ValueError, match=message):
        transient(generator([[0, 1.0], [1.0, 0]]), initial, times)


def test_transient_bad_tolerance():
    with pytest.raises(ValueError, match=r"tolerance must be in \(0, 1\)"):
        transient(generator([[0, 1.0], [1.0, 0]]), 0, 1.0, tolerance=0.0)


# ---------------------------------------------------------------------------
# hitting probabilities


@pytest.mark.parametrize(("up", "down", "n"), [(2.0, 1.0, 10), (1.0, 3.0, 25), (1.0, 1.0, 12)])
def test_gamblers_ruin(up, down, n):
    """Walk on 0..n, up at rate p, down at rate q: P_i(reach n before 0) =
    ((q/p)^i - 1) / ((q/p)^n - 1), or i/n when p = q."""
    i = np.arange(n + 1)
    r = down / up
    expected = i / n if r == 1 else (r**i - 1) / (r**n - 1)
    h = hitting_probabilities(walk(n, up, down), target=n, avoid=0)
    np.testing.assert_allclose(h, expected, rtol=1e-12, atol=1e-300)
    # the same with the two ends made absorbing, and with boolean masks
    h2 = hitting_probabilities(walk(n, up, down, absorbing=(0, n)), target=i == n, avoid=i == 0)
    np.testing.assert_allclose(h2, expected, rtol=1e-12, atol=1e-300)


def test_gamblers_ruin_large_sparse_route():
    n = 1200  # beyond REDUCTION_MAX_STATES: sparse LU
    assert n > REDUCTION_MAX_STATES
    i = np.arange(n + 1)
    r = 1.01
    expected = (r**i - 1) / (r**n - 1)
    h = hitting_probabilities(walk(n, 1.0, r), target=n, avoid=0)
    np.testing.assert_allclose(h, expected, rtol=1e-10, atol=1e-300)


def nearly_decomposable(rare_t: float, rare_a: float) -> sparse.csr_matrix:
    """0 <-> 1 at rate 1; 1 -> 2 (target) at rate rare_t; 0 -> 3 (avoid) at rare_a."""
    rates = np.zeros((4, 4))
    rates[0, 1] = rates[1, 0] = 1.0
    rates[1, 2], rates[0, 3] = rare_t, rare_a
    return generator(rates)


@pytest.mark.parametrize("rare", [1e-6, 1e-13, 1e-200])
def test_nearly_decomposable_first_passage(rare):
    """Rare exits: h_1 = e(1+d)/(e+d+ed), h_0 = h_1/(1+d), and the mean time to leave
    {0, 1} from 0 is (2+e)/(e+d+ed) (e, d the rare rates).  State reduction keeps full
    relative accuracy; the LU solve of (I - P) x = b loses about log10(1/rare)
    digits (1 - p_kk is formed by subtraction)."""
    e, d = rare, 2 * rare
    denominator = e + d + e * d
    h1 = e * (1 + d) / denominator
    Q = nearly_decomposable(e, d)
    h = hitting_probabilities(Q, target=2, avoid=3)
    np.testing.assert_allclose(h, [h1 / (1 + d), h1, 1.0, 0.0], rtol=1e-14)
    m = mean_hitting_times(Q, target=[2, 3])
    np.testing.assert_allclose(m, [(2 + e) / denominator, (2 + d) / denominator, 0, 0], rtol=1e-14)
    if rare == 1e-13:
        rates, exits = Q.copy(), -Q.diagonal()
        rates.setdiag(0.0)
        rates.eliminate_zeros()
        unknown = np.array([True, True, False, False])
        lu = _solve_on(rates, exits, unknown, np.array([0.0, e]))
        assert abs(lu[1] / h1 - 1) > 1e-6


def test_hitting_probabilities_ever_and_unreachable():
    # 0 <-> 1 -> 2 (absorbing), 3 -> 4 <-> 3: from 3 and 4 target 2 is unreachable
    rates = np.zeros((5, 5))
    rates[0, 1], rates[1, 0], rates[1, 2], rates[3, 4], rates[4, 3] = 1.0, 1.0, 1.0, 2.0, 2.0
    h = hitting_probabilities(generator(rates), target=[2])
    np.testing.assert_array_equal(h, [1.0, 1.0, 1.0, 0.0, 0.0])
    # avoiding state 0: from 1 we hit 2 first with probability 1/2
    h = hitting_probabilities(generator(rates), target=2, avoid=[0])
    np.testing.assert_allclose(h, [0.0, 0.5, 1.0, 0.0, 0.0], rtol=1e-15)


@settings(max_examples=60, deadline=None)
@given(rates=rate_matrices(irreducible=False), data=st.data())
def test_hitting_probabilities_are_harmonic(rates, data):
    n = len(rates)
    target = data.draw(st.sets(st.integers(0, n - 1), min_size=1))
    rest = sorted(set(range(n)) - target)
    avoid = data.draw(st.sets(st.sampled_from(rest))) if rest else set()
    h = hitting_probabilities(generator(rates), sorted(target), sorted(avoid))
    assert np.all((h >= 0) & (h <= 1))
    Q = dense_generator(rates)
    free = np.array(sorted(set(range(n)) - target - avoid), dtype=int)
    np.testing.assert_allclose((Q @ h)[free], 0.0, atol=1e-10 * (1 + np.abs(Q).max()))
    assert np.all(h[sorted(target)] == 1) and np.all(h[sorted(avoid)] == 0)


def test_hitting_probabilities_bad_input():
    Q = walk(3, 1.0, 1.0)
    with pytest.raises(ValueError, match="target and avoid must be disjoint, but both contain"):
        hitting_probabilities(Q, [1, 2], [2])
    with pytest.raises(ValueError, match="target must contain at least one state"):
        hitting_probabilities(Q, [])
    with pytest.raises(ValueError, match=r"target must hold states in 0..3, got 4"):
        hitting_probabilities(Q, 4)
    with pytest.raises(ValueError, match=r"avoid as a boolean mask must have shape \(4,\)"):
        hitting_probabilities(Q, 0, np.array([True, False]))
    with pytest.raises(ValueError, match="target must be state indices"):
        hitting_probabilities(Q, [0.5])


# ---------------------------------------------------------------------------
# mean hitting times


@pytest.mark.parametrize(("up", "down", "n"), [(1.0, 1.0, 10), (2.0, 1.0, 12), (1.0, 3.0, 20)])
def test_mean_exit_time_of_an_interval(up, down, n):
    """Walk on 0..n until it hits 0 or n.  Jump chain with p = up/(up+down): expected
    steps i(n-i) if p = 1/2, else i/(q-p) - n/(q-p) (1-(q/p)^i)/(1-(q/p)^n); each step
    takes 1/(up+down) on average."""
    i = np.arange(n + 1)
    p, q = up / (up + down), down / (up + down)
    if p == q:
        steps = i * (n - i)
    else:
        steps = i / (q - p) - n / (q - p) * (1 - (q / p) ** i) / (1 - (q / p) ** n)
    m = mean_hitting_times(walk(n, up, down), target=[0, n])
    np.testing.assert_allclose(m, steps / (up + down), rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize(("arrival", "service"), [(1.0, 2.0), (0.9, 1.0), (3.0, 10.0)])
def test_mm1_busy_period(arrival, service):
    """M/M/1 truncated far away: E_1[time to empty] = 1/(mu - lambda), and
    E_k = k/(mu - lambda) (k busy periods in a row)."""
    K = 2000
    m = mean_hitting_times(walk(K, arrival, service), target=0)
    np.testing.assert_allclose(m[1:6], np.arange(1, 6) / (service - arrival), rtol=1e-10)


def test_mean_hitting_times_not_reached_surely():
    # 1 -> 0 and 1 -> 2, 2 absorbing: from 1 target 0 is missed with probability 1/2
    rates = np.zeros((3, 3))
    rates[1, 0] = rates[1, 2] = 1.0
    with pytest.raises(
        ValueError, match="but state 2 cannot reach target and can be reached from state 1"
    ):
        mean_hitting_times(generator(rates), 0)
    rates[2, 2] = 0.0
    rates[0, 1] = 1.0  # still: 2 cannot reach 0
    with pytest.raises(ValueError, match="reached with probability 1 from every state"):
        mean_hitting_times(generator(rates), 0)
    # 2 <-> 3 closed class, 1 -> 2: names the state and a witness
    rates = np.zeros((4, 4))
    rates[1, 0], rates[1, 2], rates[2, 3], rates[3, 2] = 1.0, 1.0, 1.0, 1.0
    with pytest.raises(ValueError, match="state 2 cannot reach target"):
        mean_hitting_times(generator(rates), 0)
    rates[2, 1] = 1.0  # now 2 can reach 1 and 0, 3 -> 2 too: all reach 0 surely
    np.testing.assert_allclose(mean_hitting_times(generator(rates), 0)[0], 0.0)


def test_mean_hitting_times_witness():
    # 0 target; 1 -> 0, 1 -> 2; 2 -> 3; 3 absorbing: from 1 the chain can reach 3
    rates = np.zeros((4, 4))
    rates[1, 0], rates[1, 2], rates[2, 3] = 1.0, 1.0, 1.0
    rates[3, 2] = 0.0
    with pytest.raises(ValueError, match="state 2 cannot reach target and can be reached from"):
        mean_hitting_times(generator(rates), 0)
    rates[2, 1] = 1.0  # 2 -> 1 or 3; 3 absorbing: now 3 is the one that cannot reach
    with pytest.raises(
        ValueError, match="state 3 cannot reach target and can be reached from state 1"
    ):
        mean_hitting_times(generator(rates), 0)


# ---------------------------------------------------------------------------
# hitting-time law


@settings(max_examples=40, deadline=None)
@given(rate=st.floats(1e-3, 1e3), t=st.floats(1e-12, 10.0))
def test_hitting_time_cdf_exponential(rate, t):
    F = hitting_time_cdf(generator([[0, rate], [0, 0]]), 1, 0, [0.0, t])
    assert F[0] == 0.0
    assert F[1] == pytest.approx(-np.expm1(-rate * t), rel=1e-12)


def test_hitting_time_cdf_integrates_to_the_mean():
    """E[T] = integral of P(T > t) dt (Gauss-Legendre on panels, 240 nodes), on a
    walk with target 0 started from state 3."""
    Q = walk(6, 1.0, 2.0)
    mean = mean_hitting_times(Q, target=0)[3]
    nodes, weights = np.polynomial.legendre.leggauss(60)
    times, quadrature = [], []
    for lo, hi in [(0.0, 5.0), (5.0, 30.0), (30.0, 120.0), (120.0, 400.0)]:
        times.append(lo + (hi - lo) * (nodes + 1) / 2)
        quadrature.append(weights * (hi - lo) / 2)
    survival = 1.0 - hitting_time_cdf(Q, 0, 3, np.concatenate(times))
    assert 1.0 - hitting_time_cdf(Q, 0, 3, 400.0)[0] < 1e-14  # rounding level
    assert np.dot(np.concatenate(quadrature), survival) == pytest.approx(mean, rel=1e-12)


@settings(max_examples=40, deadline=None)
@given(rates=rate_matrices(irreducible=False), data=st.data())
def test_hitting_time_cdf_against_expm(rates, data):
    n = len(rates)
    target = sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=1)))
    start = data.draw(st.integers(0, n - 1))
    absorbing = rates.copy()
    absorbing[target, :] = 0.0
    Q = dense_generator(absorbing)
    times = [0.0, 0.3, 3.0]
    F = hitting_time_cdf(generator(rates), target, start, times)
    for value, t in zip(F, times, strict=True):
        assert value == pytest.approx(expm(Q * t)[start, target].sum(), rel=1e-9, abs=1e-13)
    assert np.all(np.diff(F) >= -1e-14)


def test_hitting_time_cdf_bad_input():
    Q = walk(3, 1.0, 1.0)
    with pytest.raises(ValueError, match="target must contain at least one state"):
        hitting_time_cdf(Q, [], 0, [1.0])
    with pytest.raises(ValueError, match="times must be finite and >= 0"):
        hitting_time_cdf(Q, 0, 1, [-1.0])
    with pytest.raises(ValueError, match="initial must sum to 1"):
        hitting_time_cdf(Q, 0, [0.1, 0.1, 0.1, 0.1], [1.0])


# ---------------------------------------------------------------------------
# accumulated_reward


def test_accumulated_reward_of_one_is_the_mean_hitting_time():
    rng = np.random.default_rng(7)
    rates = rng.uniform(0.1, 3.0, size=(40, 40)) * (rng.uniform(size=(40, 40)) < 0.2)
    rates += np.diag(np.full(39, 0.5), 1) + np.diag(np.full(39, 0.5), -1)  # irreducible
    Q = generator(rates)
    target = [0, 17]
    assert np.allclose(
        accumulated_reward(Q, target, np.ones(40)), mean_hitting_times(Q, target), rtol=1e-12
    )


@pytest.mark.parametrize(("lam", "mu"), [(1.0, 2.0), (0.3, 1.0), (4.0, 5.0)])
def test_accumulated_reward_busy_period_area(lam, mu):
    """Area under the M/M/1 queue length over a busy period started by j customers:
    j mu/(mu - lam)^2 + j(j-1)/(2 (mu - lam)) (skip-free: j busy periods started at
    levels j-1, ..., 0, each with area mu/(mu-lam)^2 plus level x mean length)."""
    n = 400
    rates = np.diag(np.full(n - 1, lam), 1) + np.diag(np.full(n - 1, mu), -1)
    area = accumulated_reward(generator(rates), 0, np.arange(n, dtype=float))
    j = np.arange(1, 6)
    expected = j * mu / (mu - lam) ** 2 + j * (j - 1) / (2 * (mu - lam))
    assert np.allclose(area[1:6], expected, rtol=1e-9)


@pytest.mark.parametrize(
    ("reward", "message"),
    [(np.ones(3), r"reward must have shape \(2,\)"), (np.array([1.0, -1.0]), "reward must be")],
)
def test_accumulated_reward_bad_input(reward, message):
    with pytest.raises(ValueError, match=message):
        accumulated_reward(generator([[0, 1.0], [1.0, 0]]), 0, reward)


def test_sparse_first_passage_refuses_what_lu_cannot_resolve():
    """The descent of a birth-death chain with a strong upward drift takes about 1e47
    time units at N = 1000 (exact value from qtheory.walks.hitting); sparse LU returned
    negative means here before this check."""
    n = 1001
    levels = np.arange(n, dtype=float)
    up, down = 1.0 * (n - 1 - levels), np.where(levels >= 1, 600.0, 0.0)
    rates = sparse.diags([up[:-1], down[1:]], [1, -1], format="csr")
    with pytest.raises(ArithmeticError, match="LU cancels every digit"):
        mean_hitting_times(generator(rates), 0)
    with pytest.raises(ArithmeticError, match="LU cancels every digit"):
        accumulated_reward(generator(rates), 0, levels)
    # Well-conditioned systems of the same size still pass: the drift points at the
    # target (levels 395..405, where the up-rate n - 1 - i meets the down-rate 600).
    m = mean_hitting_times(generator(rates), np.arange(395, 406))
    assert np.all(m >= 0) and m[0] < 10.0 and m[-1] < 10.0


def test_runaway_work_is_refused_before_allocating():
    from qtheory.core import limits

    two_state = generator([[0.0, 1.0], [3.0, 0.0]])
    with pytest.raises(ValueError, match="times: uniformisation over about 3e\\+15 jumps"):
        transient(two_state, 0, 1e15)
    with pytest.raises(ValueError, match="times: uniformisation"):
        hitting_time_cdf(generator([[0, 2], [0, 0]]), target=1, initial=0, times=[1e15])
    n = 10**5
    i = np.arange(n - 1)
    chain = generator(
        sparse.csr_matrix((np.ones(n - 1), (i, i + 1)), shape=(n, n))
        + sparse.csr_matrix((np.ones(n - 1), (i + 1, i)), shape=(n, n))
    )
    with pytest.raises(ValueError, match="Q: dense GTH on 100000 states"):
        stationary(chain, method="gth")
    with limits.raised(dp_cells=10.0), pytest.raises(ValueError, match="times: .* cells"):
        transient(two_state, 0, 1.0)
