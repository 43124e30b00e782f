"""Tests of the GTH stationary solvers against closed forms and independent algorithms."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.sparse.csgraph import connected_components
from scipy.stats import poisson

from qtheory.exact import stationary_ctmc, stationary_dtmc
from qtheory.exact.stationary import _check_irreducible, _gth

# ---------------------------------------------------------------------------
# helpers


def birth_death_generator(birth: np.ndarray, death: np.ndarray) -> np.ndarray:
    """Generator of a birth-death chain on 0..K; ``birth[k]`` is the rate k -> k+1 and
    ``death[k]`` the rate k+1 -> k (k = 0..K-1)."""
    size = len(birth) + 1
    Q = np.zeros((size, size))
    idx = np.arange(size - 1)
    Q[idx, idx + 1] = birth
    Q[idx + 1, idx] = death
    Q[np.diag_indices(size)] = -Q.sum(axis=1)
    return Q


def uniformised(Q: np.ndarray) -> np.ndarray:
    """DTMC ``I + Q / nu`` with ``nu`` = largest exit rate (a second, independent route
    to the same stationary vector)."""
    nu = max(float(np.max(-np.diag(Q))), 1e-300)
    P = Q / nu
    P[np.diag_indices(len(P))] = 0.0
    # the state with the largest exit rate may round to -2e-16: clip to 0
    P[np.diag_indices(len(P))] = np.maximum(1.0 - P.sum(axis=1), 0.0)
    return P


def augmented_solve(P: np.ndarray) -> np.ndarray:
    """Naive route: replace one balance equation of (P^T - I) pi = 0 by sum(pi) = 1 and
    solve by LU with partial pivoting (numpy.linalg)."""
    n = len(P)
    A = P.T - np.eye(n)
    A[-1, :] = 1.0
    b = np.zeros(n)
    b[-1] = 1.0
    return np.linalg.solve(A, b)


def mpmath_stationary(P: np.ndarray, digits: int = 50) -> np.ndarray:
    """Reference stationary vector at ``digits`` significant digits by LU in mpmath.

    The chain is defined by the off-diagonal entries of ``P`` (exact binary floats);
    the diagonal is taken as the exact ``1 - sum(off-diagonal)``, not its float64
    rounding.
    """
    n = len(P)
    with mpmath.workdps(digits):
        A = mpmath.matrix(n, n)
        for i in range(n):
            out = mpmath.fsum(mpmath.mpf(float(P[i, j])) for j in range(n) if j != i)
            for j in range(n):
                A[j, i] = -out if i == j else mpmath.mpf(float(P[i, j]))
        for i in range(n):
            A[n - 1, i] = 1
        b = mpmath.matrix([0] * (n - 1) + [1])
        x = mpmath.lu_solve(A, b)
        return np.array([float(v) for v in x])


@st.composite
def irreducible_chains(draw, max_states: int = 7, allow_zeros: bool = True):
    """Random row-stochastic matrices made irreducible by a random Hamiltonian cycle."""
    n = draw(st.integers(1, max_states))
    low = 0.0 if allow_zeros else 0.05
    elements = st.floats(low, 1.0, allow_nan=False, allow_infinity=False)
    M = draw(arrays(np.float64, (n, n), elements=elements))
    if allow_zeros:  # sparsify: keep each entry with probability ~ 1/2
        M = M * draw(arrays(np.bool_, (n, n)))
    order = draw(st.permutations(range(n)))
    weight = draw(st.floats(1e-3, 1.0))
    for a, b in zip(order, order[1:] + order[:1], strict=True):
        M[a, b] += weight
    return M / M.sum(axis=1, keepdims=True)


# ---------------------------------------------------------------------------
# closed forms


@pytest.mark.parametrize(
    ("arrival", "service", "capacity"),
    [(1.0, 2.0, 10), (3.0, 2.0, 25), (1.0, 1.0, 7), (0.37, 5.1, 60), (1.0, 100.0, 120)],
)
def test_mm1k_truncated_geometric(arrival, service, capacity):
    Q = birth_death_generator(np.full(capacity, arrival), np.full(capacity, service))
    rho = arrival / service
    k = np.arange(capacity + 1)
    if rho == 1.0:
        expected = np.full(capacity + 1, 1.0 / (capacity + 1))
    else:
        expected = (1 - rho) * rho**k / (1 - rho ** (capacity + 1))
    # relative accuracy in every component, including those of order 1e-240
    np.testing.assert_allclose(stationary_ctmc(Q), expected, rtol=1e-12, atol=0)
    np.testing.assert_allclose(stationary_dtmc(uniformised(Q)), expected, rtol=1e-12, atol=0)


def test_mm1k_huge_load_rescaled_back_substitution():
    # pi_0 / pi_K = 1e-240: the unnormalised back substitution would overflow.
    Q = birth_death_generator(np.full(120, 100.0), np.full(120, 1.0))
    k = np.arange(121)
    expected = 0.99 * 100.0 ** (k - 120.0) / (1 - 100.0**-121)
    np.testing.assert_allclose(stationary_ctmc(Q), expected, rtol=1e-12, atol=0)


@given(a=st.floats(1e-9, 1.0), b=st.floats(1e-9, 1.0))
def test_two_state_chain(a, b):
    P = np.array([[1 - a, a], [b, 1 - b]])
    expected = np.array([b, a]) / (a + b)
    np.testing.assert_allclose(stationary_dtmc(P), expected, rtol=1e-14)
    Q = np.array([[-a, a], [b, -b]])
    np.testing.assert_allclose(stationary_ctmc(Q), expected, rtol=1e-14)


@pytest.mark.parametrize(
    ("offered_load", "servers"), [(0.5, 1), (2.0, 5), (10.0, 10), (35.0, 30), (80.0, 100)]
)
def test_erlang_loss_distribution(offered_load, servers):
    service = 1.5
    arrival = offered_load * service
    k = np.arange(servers)
    Q = birth_death_generator(np.full(servers, arrival), (k + 1) * service)
    pi = stationary_ctmc(Q)
    # truncated Poisson (insensitivity of the Erlang loss system)
    truncated = poisson.pmf(np.arange(servers + 1), offered_load) / poisson.cdf(
        servers, offered_load
    )
    np.testing.assert_allclose(pi, truncated, rtol=1e-11, atol=0)
    # Erlang B by its own recursion B(c) = a B(c-1) / (c + a B(c-1))
    blocking = 1.0
    for c in range(1, servers + 1):
        blocking = offered_load * blocking / (c + offered_load * blocking)
    assert pi[-1] == pytest.approx(blocking, rel=1e-12)


def test_single_state():
    np.testing.assert_array_equal(stationary_dtmc([[1.0]]), [1.0])
    np.testing.assert_array_equal(stationary_ctmc([[0.0]]), [1.0])


# ---------------------------------------------------------------------------
# independent algorithms


@pytest.mark.parametrize("n", [5, 64, 65, 200])
def test_random_dense_chain_against_linalg(n):
    rng = np.random.default_rng(20240601 + n)
    P = rng.random((n, n))
    P /= P.sum(axis=1, keepdims=True)
    pi = stationary_dtmc(P)
    assert pi.shape == (n,)
    assert np.all(pi > 0)
    assert pi.sum() == pytest.approx(1.0, abs=1e-14)
    np.testing.assert_allclose(pi @ P, pi, rtol=1e-12, atol=0)
    # a different algorithm (LU with pivoting on the augmented system)
    np.testing.assert_allclose(pi, augmented_solve(P), rtol=1e-10, atol=0)


def test_blocked_equals_textbook_gth():
    """Blocked elimination (several blocks and a ragged last one) reproduces the
    unblocked, one-state-at-a-time GTH to rounding."""
    rng = np.random.default_rng(7)
    n = 150
    P = rng.random((n, n)) * (rng.random((n, n)) < 0.1)
    P[np.arange(n), (np.arange(n) + 1) % n] += 0.01  # a cycle: irreducible
    P /= P.sum(axis=1, keepdims=True)
    reference = _gth(P.copy(), block=1)
    for block in (2, 7, 64, 149, 500):
        np.testing.assert_allclose(_gth(P.copy(), block=block), reference, rtol=1e-13, atol=0)


@pytest.mark.parametrize("coupling", [1e-10, 1e-13, 1e-15])
def test_nearly_decomposable_chain(coupling):
    """Two 3-state blocks coupled with probability ~coupling.  The naive augmented
    LU solve loses about log10(1/coupling) digits; GTH stays at full precision
    (checked against a 50-digit mpmath solution)."""
    rng = np.random.default_rng(5)
    m = 3
    n = 2 * m
    P = np.zeros((n, n))
    for block in (slice(0, m), slice(m, n)):
        P[block, block] = rng.uniform(0.1, 1.0, (m, m))
    P[0, m] = coupling
    P[m, 0] = 3 * coupling
    P[1, m + 1] = coupling / 2
    P /= 1.5 * P.sum(axis=1).max()
    P[np.diag_indices(n)] = 0.0
    P[np.diag_indices(n)] = 1.0 - P.sum(axis=1)

    reference = mpmath_stationary(P)
    gth_error = np.max(np.abs(stationary_dtmc(P) / reference - 1))
    naive_error = np.max(np.abs(augmented_solve(P) / reference - 1))
    assert gth_error < 1e-14
    # observed naive errors: 3e-5, 3e-3, 0.6 -- at least ~1e5 times worse than GTH
    assert naive_error > 1e5 * max(gth_error, 1e-16)
    assert naive_error > 1e-6


def test_random_small_chain_against_mpmath():
    rng = np.random.default_rng(11)
    P = rng.random((12, 12)) ** 4  # entries spread over several orders of magnitude
    P /= P.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(stationary_dtmc(P), mpmath_stationary(P), rtol=1e-14, atol=0)


# ---------------------------------------------------------------------------
# properties (hypothesis)


@settings(max_examples=200, deadline=None)
@given(irreducible_chains())
def test_random_chain_is_stationary(P):
    pi = stationary_dtmc(P)
    assert np.all(pi >= 0)
    assert pi.sum() == pytest.approx(1.0, abs=1e-14)
    np.testing.assert_allclose(pi @ P, pi, rtol=1e-11, atol=1e-15)


@settings(max_examples=100, deadline=None)
@given(P=irreducible_chains(), data=st.data())
def test_permutation_equivariance(P, data):
    """Relabelling the states changes the elimination order but not the answer."""
    perm = np.array(data.draw(st.permutations(range(len(P)))))
    pi = stationary_dtmc(P)
    np.testing.assert_allclose(stationary_dtmc(P[np.ix_(perm, perm)]), pi[perm], rtol=1e-11)


@settings(max_examples=100, deadline=None)
@given(P=irreducible_chains(allow_zeros=False), scale=st.floats(1e-6, 1e6))
def test_ctmc_scaling_and_uniformisation(P, scale):
    n = len(P)
    rates = P * scale
    rates[np.diag_indices(n)] = 0.0
    Q = rates.copy()
    Q[np.diag_indices(n)] = -rates.sum(axis=1)
    pi = stationary_ctmc(Q)
    np.testing.assert_allclose(pi @ Q, 0.0, atol=1e-12 * scale)
    np.testing.assert_allclose(stationary_dtmc(uniformised(Q)), pi, rtol=1e-12)
    # a well-conditioned chain: the naive solve agrees
    np.testing.assert_allclose(augmented_solve(P), stationary_dtmc(P), rtol=1e-8)


# ---------------------------------------------------------------------------
# bad input


@pytest.mark.parametrize(
    ("P", "message"),
    [
        (np.ones((2, 3)) / 3, "P must be a square 2-D array"),
        (np.ones(3) / 3, "P must be a square 2-D array"),
        (np.zeros((0, 0)), "at least one state"),
        ([[1.2, -0.2], [0.5, 0.5]], "P must be non-negative"),
        ([[0.5, 0.4], [0.5, 0.5]], "P rows must sum to 1"),
        ([[np.nan, 1.0], [0.5, 0.5]], "P must be finite"),
        ([[np.inf, 1.0], [0.5, 0.5]], "P must be finite"),
        ([[0.5, 0.5j], [0.5, 0.5]], "P must be real"),
        ([[0.5, 0.5], [1.0]], "P must be a 2-D array of real numbers"),
        ([["a", "b"], ["c", "d"]], "P must be a 2-D array of real numbers"),
        ([[1.0, 0.0], [0.0, 1.0]], "P must be irreducible"),
        ([[0.5, 0.5, 0], [0.5, 0.5, 0], [0, 0.5, 0.5]], "P must be irreducible"),
    ],
)
def test_dtmc_bad_input(P, message):
    with pytest.raises(ValueError, match=message):
        stationary_dtmc(P)


def test_dtmc_row_tolerance_scales_with_n():
    n = 10
    P = np.full((n, n), 1.0 / n)
    P[0, 0] += 0.5e-12 * n  # inside 1e-12 * n
    stationary_dtmc(P)
    P[0, 0] += 1e-12 * n  # now outside
    with pytest.raises(ValueError, match="row 0 sums to"):
        stationary_dtmc(P)


@pytest.mark.parametrize(
    ("Q", "message"),
    [
        (np.zeros((3, 2)), "Q must be a square 2-D array"),
        ([[1.0, -1.0], [2.0, -2.0]], "Q must have non-negative off-diagonal rates"),
        ([[-1.0, 1.0], [2.0, -1.0]], "Q rows must sum to 0"),
        ([[-1.0, 1.0], [np.nan, -1.0]], "Q must be finite"),
        ([[0.0, 0.0], [1.0, -1.0]], "Q must be irreducible"),
    ],
)
def test_ctmc_bad_input(Q, message):
    with pytest.raises(ValueError, match=message):
        stationary_ctmc(Q)


@settings(max_examples=300, deadline=None)
@given(arrays(np.bool_, st.tuples(st.integers(1, 9)).map(lambda t: (t[0], t[0]))))
def test_irreducibility_check_agrees_with_scipy(graph):
    """The breadth-first check agrees with Tarjan's strongly connected components."""
    strongly_connected = (
        connected_components(graph & ~np.eye(len(graph), dtype=bool), connection="strong")[0] == 1
    )
    try:
        _check_irreducible("P", graph.astype(float))
    except ValueError:
        assert not strongly_connected
    else:
        assert strongly_connected


def test_ctmc_row_tolerance_is_relative():
    Q = np.array([[-1e9, 1e9], [3e9, -3e9]])
    Q[0, 0] -= 1e-3  # 1e-12 relative: accepted
    np.testing.assert_allclose(stationary_ctmc(Q), [0.75, 0.25], rtol=1e-12)
    small = np.array([[-1e-9, 1e-9], [3e-9, -3e-9 + 1e-15]])  # 1e-6 relative: rejected
    with pytest.raises(ValueError, match="Q rows must sum to 0"):
        stationary_ctmc(small)


def test_input_not_modified():
    P = np.array([[0.2, 0.8], [0.6, 0.4]])
    copy = P.copy()
    stationary_dtmc(P)
    np.testing.assert_array_equal(P, copy)


def test_sparse_generator_from_the_ctmc_module_is_accepted():
    """stationary_ctmc(generator(R)) works: sparse input is densified for GTH."""
    from qtheory.exact import generator

    rates = np.array([[0.0, 2.0, 0.0], [1.0, 0.0, 3.0], [0.0, 4.0, 0.0]])
    pi = stationary_ctmc(generator(rates))
    # birth-death chain: pi ~ (1, 2, 1.5)
    assert np.allclose(pi, np.array([1.0, 2.0, 1.5]) / 4.5, rtol=1e-14)


def test_huge_dense_solves_are_refused_before_allocating():
    import scipy.sparse as sparse

    from qtheory.core import limits

    big = sparse.eye(10**5, format="csr")  # a dense copy would need 80 GB
    with pytest.raises(ValueError, match="Q: dense GTH on 100000 states needs"):
        stationary_ctmc(big)
    with pytest.raises(ValueError, match="P: dense GTH"):
        stationary_dtmc(big)
    with limits.raised(memory=1e3), pytest.raises(ValueError, match="P: .* bytes"):
        stationary_dtmc(np.eye(20))
