r"""Stationary distributions of finite Markov chains by the GTH algorithm.

This module is the ground truth of the exact engine: every other solver in
:mod:`qtheory.exact` and every simulation is checked against it on small systems.

Algorithm
---------
Grassmann, Taksar and Heyman (GTH), "Regenerative analysis and steady state
distributions for Markov chains", *Operations Research* 33(5):1107--1116, 1985.

Let :math:`A` hold the transition probabilities :math:`p_{ij}` of an irreducible
DTMC, or the transition rates :math:`q_{ij}` (:math:`i \ne j`) of an irreducible
CTMC, on states :math:`0, \dots, n-1`.  Diagonal entries are never read.

1. *Elimination* (state censoring).  For :math:`k = n-1, n-2, \dots, 1`:

   .. math::

      s_k = \sum_{j<k} a_{kj}, \qquad
      a_{ik} \leftarrow a_{ik} / s_k \quad (i<k), \qquad
      a_{ij} \leftarrow a_{ij} + a_{ik}\, a_{kj} \quad (i, j < k).

   After step :math:`k` the leading :math:`k \times k` block holds the chain
   censored on (watched only in) states :math:`0, \dots, k-1`.  The escape
   probability (rate) :math:`s_k` is a *sum* of off-diagonal entries, never
   :math:`1 - p_{kk}`, so the whole computation adds, multiplies and divides
   non-negative numbers and contains no subtraction: no cancellation, and every
   component of the result -- however small -- is computed with a small relative
   error bounded by a low-degree polynomial in :math:`n` times the unit roundoff [1]_.

2. *Back substitution*.  :math:`x_0 = 1` and
   :math:`x_j = \sum_{i<j} x_i\, a_{ij}` for :math:`j = 1, \dots, n-1` (the
   balance equation of state :math:`j` in the chain censored on
   :math:`\{0, \dots, j\}`: flow out, :math:`x_j s_j`, equals flow in); then
   :math:`\pi = x / \sum_j x_j`.

For a CTMC the rates are used directly.  GTH is Gaussian elimination on
:math:`\pi Q = 0` in which each pivot :math:`-q_{kk}` of the reduced generator is
recomputed as the sum :math:`s_k` of the reduced row's off-diagonal rates (a
reduced generator still has zero row sums); a DTMC is the case :math:`Q = P - I`,
where :math:`1 - p_{kk} = s_k`.  So the same code serves both, with no
uniformisation.

Implementation
--------------
The elimination is done in blocks of :data:`_BLOCK` states, as in a right-looking
blocked LU factorisation: inside a block, rank-one updates are applied eagerly
to the block's rows and columns only (vectorised NumPy, O(n) Python iterations
in all), and the deferred update of the leading block is one matrix product of
non-negative matrices (BLAS).  The product only adds non-negative terms, so the
subtraction-free property and its error bound are kept.  Total work is
:math:`\tfrac{2}{3}n^3` flops.

References
----------
.. [1] W. K. Grassmann, M. I. Taksar and D. P. Heyman, "Regenerative analysis and
   steady state distributions for Markov chains", Operations Research
   33(5):1107-1116 (1985).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.sparse import csr_matrix, issparse

from qtheory.core import limits

__all__ = ["stationary_ctmc", "stationary_dtmc"]

#: Peak memory of GTH per matrix entry, in bytes: the private float64 copy, its
#: transpose for the back substitution and two boolean graphs for the irreducibility
#: check (a densified sparse input adds one more float64 copy).
GTH_BYTES_PER_ENTRY = 32

#: Number of states eliminated per block (rank-``_BLOCK`` deferred update).
_BLOCK = 32

#: Relative row-sum tolerance per state: rows must sum to 1 (DTMC) or 0 (CTMC)
#: within ``_ROW_TOL * n`` (times the row's total rate for a CTMC).
_ROW_TOL = 1e-12

#: Back substitution rescales the partial solution when it exceeds this value,
#: so that it cannot overflow for chains whose probabilities span > 1e308.
_RESCALE = 1e100


def require_gth(name: str, n: int) -> None:
    """Refuse (``ValueError`` naming ``name``) a dense GTH solve of ``n`` states whose
    memory (:data:`GTH_BYTES_PER_ENTRY` per entry) or work (2/3 n^3 flops) exceeds the
    :mod:`qtheory.core.limits`, before anything is allocated.

    The estimates are :math:`32 n^2` bytes and :math:`\tfrac{2}{3} n^3` ``dp_cells``.

    Parameters
    ----------
    name : str
        The parameter named in the error message (e.g. ``"Q"``).
    n : int
        Number of states.

    Returns
    -------
    None
        The call returns only if both estimates are within the limits.

    Raises
    ------
    ValueError
        If the memory or work estimate exceeds its :mod:`qtheory.core.limits` limit.

    Examples
    --------
    >>> require_gth("Q", 100) is None  # 320 kB and about 6.7e5 flops
    True
    """
    what = f"dense GTH on {n} states"
    limits.require("memory", GTH_BYTES_PER_ENTRY * float(n) ** 2, parameter=name, what=what)
    limits.require("dp_cells", 2 / 3 * float(n) ** 3, parameter=name, what=what)


def real_csr(name: str, matrix) -> csr_matrix:
    """A SciPy sparse ``matrix`` as a float64 CSR matrix (a private copy) after checking
    that it holds real numbers (not complex, not bool).

    Parameters
    ----------
    name : str
        The parameter's name, for the error message.
    matrix : scipy.sparse matrix or array

    Returns
    -------
    scipy.sparse.csr_matrix

    Raises
    ------
    ValueError
        Naming ``name``: complex, bool or non-numeric entries.

    Examples
    --------
    >>> from scipy.sparse import eye_array
    >>> real_csr("Q", eye_array(2, dtype=np.int64)).dtype
    dtype('float64')
    >>> real_csr("Q", eye_array(2, dtype=bool))
    Traceback (most recent call last):
    ...
    ValueError: Q must hold real numbers, got dtype bool
    """
    if np.iscomplexobj(matrix.data):
        raise ValueError(f"{name} must be real, got dtype {matrix.dtype}")
    if matrix.dtype == np.bool_ or not np.issubdtype(matrix.dtype, np.number):
        raise ValueError(f"{name} must hold real numbers, got dtype {matrix.dtype}")
    return csr_matrix(matrix, dtype=np.float64, copy=True)


def _as_square(name: str, matrix: ArrayLike) -> NDArray[np.float64]:
    """Return a float64 copy of ``matrix`` after checking shape and finiteness.  SciPy
    sparse matrices are accepted and densified (GTH is a dense method; for large sparse
    chains use :func:`qtheory.exact.ctmc.stationary`).  The cost of GTH is checked
    against the limits before the copy is made."""
    if issparse(matrix):
        if len(matrix.shape) == 2:
            require_gth(name, max(matrix.shape))
        matrix = matrix.toarray()
    try:
        array = np.asarray(matrix)
    except (TypeError, ValueError) as exc:  # ragged nested sequences
        raise ValueError(f"{name} must be a 2-D array of real numbers: {exc}") from None
    if array.ndim == 2:
        require_gth(name, max(array.shape))
    if array.dtype == object or not (
        np.issubdtype(array.dtype, np.number) or array.dtype == np.bool_
    ):
        raise ValueError(f"{name} must be a 2-D array of real numbers, got dtype {array.dtype}")
    if np.iscomplexobj(array):
        raise ValueError(f"{name} must be real, got dtype {array.dtype}")
    if array.ndim != 2 or array.shape[0] != array.shape[1]:
        raise ValueError(f"{name} must be a square 2-D array, got shape {array.shape}")
    if array.shape[0] == 0:
        raise ValueError(f"{name} must have at least one state, got shape {array.shape}")
    array = np.array(array, dtype=np.float64)  # always a private copy
    bad = ~np.isfinite(array)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValueError(
            f"{name} must be finite (no NaN or inf), got {name}[{i}, {j}] = {array[i, j]}"
        )
    return array


def _unreached(graph: NDArray[np.bool_]) -> int | None:
    """First state not reachable from state 0 along ``graph`` (breadth-first search,
    O(n^2) work in vectorised steps), or ``None`` if all are reached."""
    seen = np.zeros(graph.shape[0], dtype=bool)
    seen[0] = True
    frontier = np.array([0])
    while frontier.size:
        new = graph[frontier].any(axis=0) & ~seen
        seen |= new
        frontier = np.flatnonzero(new)
    missing = np.flatnonzero(~seen)
    return int(missing[0]) if missing.size else None


def _check_irreducible(name: str, array: NDArray[np.float64]) -> None:
    """Raise ``ValueError`` unless the directed graph of positive off-diagonal entries
    is strongly connected: every state reachable from state 0 and vice versa."""
    graph = array > 0
    np.fill_diagonal(graph, False)
    state = _unreached(graph)
    if state is not None:
        raise ValueError(
            f"{name} must be irreducible, but state {state} cannot be reached from state 0"
        )
    state = _unreached(np.ascontiguousarray(graph.T))
    if state is not None:
        raise ValueError(
            f"{name} must be irreducible, but state 0 cannot be reached from state {state}"
        )


def _validate_dtmc(P: ArrayLike) -> NDArray[np.float64]:
    A = _as_square("P", P)
    n = A.shape[0]
    negative = A < 0
    if negative.any():
        i, j = np.argwhere(negative)[0]
        raise ValueError(f"P must be non-negative, got P[{i}, {j}] = {float(A[i, j])!r}")
    tol = _ROW_TOL * n
    error = np.abs(A.sum(axis=1) - 1.0)
    if (error > tol).any():
        i = int(np.argmax(error))
        raise ValueError(
            f"P rows must sum to 1 within {tol:.3g} (1e-12 * n), "
            f"but row {i} sums to {float(A[i].sum())!r}"
        )
    _check_irreducible("P", A)
    return A


def _validate_ctmc(Q: ArrayLike) -> NDArray[np.float64]:
    A = _as_square("Q", Q)
    n = A.shape[0]
    negative = A < 0
    np.fill_diagonal(negative, False)
    if negative.any():
        i, j = np.argwhere(negative)[0]
        raise ValueError(
            f"Q must have non-negative off-diagonal rates, got Q[{i}, {j}] = {float(A[i, j])!r}"
        )
    tol = _ROW_TOL * n * np.abs(A).sum(axis=1)
    error = np.abs(A.sum(axis=1))
    if (error > tol).any():
        i = int(np.argmax(error - tol))
        raise ValueError(
            f"Q rows must sum to 0 within 1e-12 * n * (row's total |rate|) = {tol[i]:.3g}, "
            f"but row {i} sums to {float(A[i].sum())!r}"
        )
    _check_irreducible("Q", A)
    np.fill_diagonal(A, 0.0)  # GTH never reads it; zero it for clarity
    return A


def _gth(A: NDArray[np.float64], block: int = _BLOCK) -> NDArray[np.float64]:
    """GTH on the off-diagonal entries of ``A`` (overwritten); see the module docstring.

    ``A`` must be C-contiguous float64 with a non-negative, irreducible off-diagonal
    part; the diagonal is ignored.  ``block`` is the number of states per deferred
    update (``block=1`` is the textbook, unblocked GTH).
    """
    n = A.shape[0]
    k = n - 1  # highest state not yet eliminated
    while k >= 1:
        lo = max(1, k - block + 1)  # this block eliminates states k, k-1, ..., lo
        for m in range(k, lo - 1, -1):
            escape = A[m, :m].sum()
            if not escape > 0:  # only reachable by underflow: irreducibility was checked
                raise FloatingPointError(
                    f"GTH: escape rate of state {m} underflowed to 0; rescale the chain"
                )
            column = A[:m, m]
            column /= escape
            row = A[m, :m]
            # eager rank-one updates restricted to the block's rows and columns
            A[lo:m, :m] += np.multiply.outer(column[lo:m], row)
            A[:lo, lo:m] += np.multiply.outer(column[:lo], row[lo:m])
        # deferred update of the leading lo x lo block: sum of the block's rank-one
        # terms, a product of non-negative matrices (no subtraction)
        A[:lo, :lo] += A[:lo, lo : k + 1] @ A[lo : k + 1, :lo]
        k = lo - 1

    # back substitution on the strictly upper triangle: x_j = sum_{i<j} x_i a_ij
    upper = np.ascontiguousarray(A.T)  # row j holds column j of A
    x = np.empty(n)
    x[0] = 1.0
    for j in range(1, n):
        x[j] = upper[j, :j] @ x[:j]
        if x[j] > _RESCALE:
            x[: j + 1] /= x[j]
    total = x.sum()
    if not (np.isfinite(total) and total > 0):
        raise FloatingPointError("GTH: the stationary vector overflowed or underflowed")
    return x / total


def stationary_dtmc(P: ArrayLike) -> NDArray[np.float64]:
    r"""Stationary distribution of a finite irreducible DTMC, by the GTH algorithm.

    Solves :math:`\pi P = \pi`, :math:`\sum_i \pi_i = 1` with the
    Grassmann--Taksar--Heyman (GTH) elimination (Grassmann, Taksar and Heyman,
    *Operations Research* 33(5):1107--1116, 1985): the states are censored
    one at a time, :math:`k = n-1, \dots, 1`, replacing :math:`p_{ij}` by
    :math:`p_{ij} + p_{ik} p_{kj} / s_k` with :math:`s_k = \sum_{j<k} p_{kj}`
    (never :math:`1 - p_{kk}`), then :math:`\pi` follows by back substitution.
    No subtraction occurs, so every component, even a tiny one, is computed to
    high *relative* accuracy.  See the module docstring for the full statement.

    Parameters
    ----------
    P : array_like, shape (n, n)
        Dense row-stochastic matrix: finite, non-negative, every row summing to 1
        within ``1e-12 * n``, irreducible.  The diagonal is not used by the
        elimination (only by validation), so rounding in :math:`p_{kk}` is harmless.

    Returns
    -------
    numpy.ndarray, shape (n,)
        The stationary distribution :math:`\pi` (non-negative, sums to 1).

    Raises
    ------
    ValueError
        If ``P`` is not square, has NaN/inf or negative entries, has a row not
        summing to 1, is reducible, or the estimated memory or work exceeds the
        :mod:`qtheory.core.limits` (see :func:`require_gth`).
    FloatingPointError
        If an escape probability underflows to 0 or the stationary vector
        overflows or underflows (probabilities spanning beyond the float64 range).

    Notes
    -----
    :math:`\tfrac{2}{3} n^3` flops, blocked so that the Python-level loop has
    :math:`O(n)` iterations; :math:`n = 2000` takes about 0.6 s on two cores.

    References
    ----------
    See the module's References: Grassmann, Taksar and Heyman (1985).

    Examples
    --------
    >>> import numpy as np
    >>> P = np.array([[0.9, 0.1],
    ...               [0.5, 0.5]])
    >>> stationary_dtmc(P).round(6)  # (b, a) / (a + b) with a = 0.1, b = 0.5
    array([0.833333, 0.166667])
    >>> stationary_dtmc([[0.5, 0.5], [0.0, 1.0]])
    Traceback (most recent call last):
    ...
    ValueError: P must be irreducible, but state 0 cannot be reached from state 1
    """
    return _gth(_validate_dtmc(P))


def stationary_ctmc(Q: ArrayLike) -> NDArray[np.float64]:
    r"""Stationary distribution of a finite irreducible CTMC, by the GTH algorithm.

    Solves :math:`\pi Q = 0`, :math:`\sum_i \pi_i = 1`.  The GTH elimination
    (Grassmann, Taksar and Heyman, *Operations Research* 33(5), 1985) is applied
    to the off-diagonal rates :math:`q_{ij}` directly -- censoring a CTMC is the
    same computation as for a DTMC, with escape rates
    :math:`s_k = \sum_{j<k} q_{kj}` in place of escape probabilities -- so no
    uniformisation is needed and the diagonal :math:`q_{kk}` is never used.

    Parameters
    ----------
    Q : array_like, shape (n, n)
        Dense generator matrix: finite, off-diagonal entries non-negative, every
        row summing to 0 within ``1e-12 * n`` times the row's total absolute rate
        :math:`\sum_j |q_{ij}|` (a relative test, so rates of any scale are
        accepted), irreducible.

    Returns
    -------
    numpy.ndarray, shape (n,)
        The stationary distribution :math:`\pi` (non-negative, sums to 1).

    Raises
    ------
    ValueError
        If ``Q`` is not square, has NaN/inf entries or negative off-diagonal
        rates, has a row not summing to 0, is reducible, or the estimated memory or
        work exceeds the :mod:`qtheory.core.limits` (see :func:`require_gth`).
    FloatingPointError
        If an escape rate underflows to 0 or the stationary vector overflows or
        underflows (probabilities spanning beyond the float64 range).

    References
    ----------
    See the module's References: Grassmann, Taksar and Heyman (1985).

    Examples
    --------
    M/M/1/2 queue with arrival rate 1 and service rate 2: :math:`\pi_k \propto 2^{-k}`.

    >>> import numpy as np
    >>> Q = np.array([[-1.0, 1.0, 0.0],
    ...               [2.0, -3.0, 1.0],
    ...               [0.0, 2.0, -2.0]])
    >>> pi = stationary_ctmc(Q)
    >>> (pi * 7).round(12)
    array([4., 2., 1.])
    >>> bool(np.allclose(pi @ Q, 0))
    True
    """
    return _gth(_validate_ctmc(Q))
