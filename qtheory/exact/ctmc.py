r"""Finite continuous-time Markov chains from sparse generators: stationary and
transient distributions and first passage.

Conventions
-----------
A generator ``Q`` is an ``n x n`` matrix (any :mod:`scipy.sparse` format, or dense)
whose off-diagonal entries are the transition rates :math:`q_{ij} \ge 0`.  Its
diagonal must equal minus the row sum of the off-diagonal rates, within
:math:`10^{-12} \times` (number of stored entries in the row) :math:`\times` (the
row's total :math:`|\text{rate}|`) -- the rule of :func:`qtheory.exact.stationary_ctmc`,
with the row's entry count in place of :math:`n`.  The diagonal is *checked* against
that rule and then *not used*: every routine recomputes the exit rate
:math:`q_i = \sum_{j \ne i} q_{ij}` from the off-diagonal rates, so that no result
depends on the rounding of a diagonal entry.  Build a generator from a matrix of
off-diagonal rates with :func:`generator`.

Sets of states (``target``, ``avoid``) are given as a state index, a sequence of
indices, or a boolean mask of length ``n``.

Algorithms
----------
- :func:`stationary`: GTH (:func:`qtheory.exact.stationary_ctmc`, subtraction-free
  and entrywise accurate) for ``n <= 2000``; otherwise a sparse LU solve (SuperLU) of
  :math:`Q^\top \pi = 0` with the last balance equation replaced by
  :math:`\sum_i \pi_i = 1`.  The states are first put in reverse Cuthill--McKee order
  (small bandwidth, hence little fill-in) and the factorisation is done *without
  pivoting* in that order, so the dense normalisation row stays last and fills only
  the last row of :math:`L`.  Without pivoting is stable here: :math:`Q^\top` is
  column diagonally dominant (columns sum to 0) and its proper leading blocks are
  non-singular M-matrices, and Gaussian elimination preserves column dominance.
  (With partial pivoting SuperLU pivots on the dense row early and fills in
  densely; fixing :math:`\pi_r = 1` instead overflows, or silently loses all
  accuracy, when :math:`\pi_r` is far below the largest probability.)  The error is
  norm-wise: probabilities far below the largest are not relatively accurate.
- :func:`transient`: uniformisation.  With :math:`\nu = \max_i q_i` and the
  stochastic matrix :math:`P = I + Q / \nu`,

  .. math::

     p(t) = \sum_{k \ge 0} e^{-\nu t} \frac{(\nu t)^k}{k!}\, p(0) P^k .

  Every term is non-negative, so there is no cancellation: the computed terms carry
  only the rounding errors of sums of non-negative products, and the result is
  non-negative.  The Poisson weights are built by products outwards from their mode
  and the series is truncated where the neglected Poisson tail falls
  below ``tolerance`` relative to the total (the kept weights are renormalised), so
  the error of each row is at most about ``tolerance`` in total variation, and any
  probability much larger than ``tolerance`` is also accurate *relatively*.  For
  relative accuracy on tiny probabilities (e.g. :math:`P(T \le t)` when :math:`T`
  needs many jumps) pass a tiny ``tolerance`` (down to ``1e-300``); that costs only
  :math:`O(\sqrt{\nu t \log(1/\text{tolerance})})` more products.
  :func:`scipy.sparse.linalg.expm_multiply` (truncated Taylor series of
  :math:`e^{Q^\top t}` with scaling) has terms of both signs because the diagonal
  of :math:`Q` is negative; its error is norm-wise, so it cannot resolve such small
  probabilities at all (it returns 0 or rounding noise, possibly negative).  Both
  cost :math:`O(\nu t)` sparse products.
- First passage: the linear systems on the non-target states.  With up to
  ``REDUCTION_MAX_STATES`` (500) unknowns they are solved by dense state reduction
  (the GTH idea applied to absorption: eliminate states one by one, computing each
  escape probability as a sum rather than :math:`1 - p_{kk}`), which only adds,
  multiplies and divides non-negative numbers, so every hitting probability and mean
  time, however small or large, has a small relative error, also for nearly
  decomposable chains (rare transitions).  Larger systems are solved by sparse LU of
  the jump-chain form :math:`(I - P)x = b` (norm-wise accurate).
  :func:`hitting_time_cdf` makes the target absorbing and applies :func:`transient`.

References
----------
.. [1] W. K. Grassmann, M. I. Taksar and D. P. Heyman, "Regenerative analysis and
   steady state distributions for Markov chains", Operations Research
   33(5):1107-1116 (1985).
.. [2] S. Asmussen, Applied Probability and Queues, 2nd ed. (Springer 2003), Markov
   jump processes: generators, stationary distributions and absorption.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sparse
from numpy.typing import NDArray
from scipy.sparse.csgraph import breadth_first_order, reverse_cuthill_mckee
from scipy.sparse.linalg import splu, spsolve

from qtheory.core import limits
from qtheory.exact.stationary import real_csr, require_gth, stationary_ctmc

__all__ = [
    "accumulated_reward",
    "generator",
    "hitting_probabilities",
    "hitting_time_cdf",
    "mean_hitting_times",
    "stationary",
    "transient",
]

#: Largest chain solved by dense GTH in :func:`stationary` (``method="auto"``).
GTH_MAX_STATES = 2000

#: Relative row-sum tolerance per stored entry (see the module notes).
_ROW_TOL = 1e-12

#: First-passage problems with up to this many unknown states are solved by dense,
#: subtraction-free state reduction; larger ones by sparse LU.
REDUCTION_MAX_STATES = 500

#: Chains up to this size are stepped with a dense matrix in :func:`transient`.
_DENSE_STEP = 64

#: Default truncation error (total variation, per time step) of :func:`transient`.
DEFAULT_TOLERANCE = 1e-15


# ---------------------------------------------------------------------------
# validation


def _as_sparse(name: str, matrix) -> sparse.csr_matrix:
    """``matrix`` as a float64 CSR matrix (a private copy) after checking shape,
    realness and finiteness."""
    if sparse.issparse(matrix):
        csr = real_csr(name, matrix)
    else:
        try:
            array = np.asarray(matrix)
        except (TypeError, ValueError) as exc:  # ragged nested sequences
            raise ValueError(f"{name} must be a 2-D array of real numbers: {exc}") from None
        if np.iscomplexobj(array):
            raise ValueError(f"{name} must be real, got dtype {array.dtype}")
        if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.number):
            raise ValueError(f"{name} must be a 2-D array of real numbers, got dtype {array.dtype}")
        if array.ndim != 2:
            raise ValueError(f"{name} must be a square 2-D array, got shape {array.shape}")
        csr = sparse.csr_matrix(array.astype(np.float64))
    if csr.ndim != 2 or csr.shape[0] != csr.shape[1]:
        raise ValueError(f"{name} must be a square 2-D array, got shape {csr.shape}")
    if csr.shape[0] == 0:
        raise ValueError(f"{name} must have at least one state, got shape {csr.shape}")
    csr.sum_duplicates()
    bad = ~np.isfinite(csr.data)
    if bad.any():
        i, j = _position(csr, int(np.argmax(bad)))
        raise ValueError(
            f"{name} must be finite (no NaN or inf), got {name}[{i}, {j}] = {csr[i, j]}"
        )
    return csr


def _position(csr: sparse.csr_matrix, k: int) -> tuple[int, int]:
    """Row and column of the ``k``-th stored entry of ``csr``."""
    row = int(np.searchsorted(csr.indptr, k, side="right")) - 1
    return row, int(csr.indices[k])


def _split(name: str, csr: sparse.csr_matrix) -> tuple[sparse.csr_matrix, NDArray[np.float64]]:
    """Split ``csr`` into its off-diagonal part (non-negativity checked, explicit zeros
    dropped) and its diagonal."""
    coo = csr.tocoo()
    off = coo.row != coo.col
    negative = off & (coo.data < 0)
    if negative.any():
        k = int(np.argmax(negative))
        i, j = int(coo.row[k]), int(coo.col[k])
        raise ValueError(
            f"{name} must have non-negative off-diagonal rates, got {name}[{i}, {j}] = "
            f"{float(coo.data[k])!r}"
        )
    n = csr.shape[0]
    diagonal = np.zeros(n)
    diagonal[coo.row[~off]] = coo.data[~off]
    keep = off & (coo.data > 0)
    rates = sparse.csr_matrix((coo.data[keep], (coo.row[keep], coo.col[keep])), shape=(n, n))
    rates.sort_indices()
    return rates, diagonal


def _rates_of(Q, name: str = "Q") -> tuple[sparse.csr_matrix, NDArray[np.float64]]:
    """Validate a generator; return its off-diagonal rates (CSR, no stored zeros, no
    diagonal) and the exit rates recomputed from them."""
    csr = _as_sparse(name, Q)
    rates, diagonal = _split(name, csr)
    exit_rates = np.asarray(rates.sum(axis=1)).ravel()
    entries = np.diff(csr.indptr)
    tol = _ROW_TOL * np.maximum(entries, 1) * (exit_rates + np.abs(diagonal))
    error = np.abs(exit_rates + diagonal)
    if (error > tol).any():
        i = int(np.argmax(error - tol))
        raise ValueError(
            f"{name} rows must sum to 0 (diagonal = minus the row's off-diagonal rates) "
            f"within 1e-12 * (entries in row) * (row's total |rate|) = {tol[i]:.3g}, but row "
            f"{i} sums to {float(exit_rates[i] + diagonal[i])!r}; build a generator from "
            "off-diagonal rates with qtheory.exact.ctmc.generator"
        )
    return rates, exit_rates


def _state_set(name: str, states, n: int, *, allow_empty: bool = False) -> NDArray[np.bool_]:
    """A set of states (index, sequence of indices or boolean mask) as a boolean mask."""
    try:
        array = np.asarray(states)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be state indices or a boolean mask: {exc}") from None
    if array.dtype == np.bool_:
        if array.shape != (n,):
            raise ValueError(
                f"{name} as a boolean mask must have shape ({n},), got shape {array.shape}"
            )
        mask = array.copy()
    else:
        if array.size == 0:
            array = array.astype(np.int64)
        if not np.issubdtype(array.dtype, np.integer):
            raise ValueError(
                f"{name} must be state indices (integers) or a boolean mask, got dtype "
                f"{array.dtype}"
            )
        if array.ndim > 1:
            raise ValueError(f"{name} must be a 1-D set of state indices, got shape {array.shape}")
        array = array.ravel()
        outside = (array < 0) | (array >= n)
        if outside.any():
            raise ValueError(
                f"{name} must hold states in 0..{n - 1}, got {int(array[np.argmax(outside)])}"
            )
        mask = np.zeros(n, dtype=bool)
        mask[array] = True
    if not allow_empty and not mask.any():
        raise ValueError(f"{name} must contain at least one state")
    return mask


def _distribution(name: str, initial, n: int) -> NDArray[np.float64]:
    """An initial distribution (a state index or a probability vector of length n)."""
    if isinstance(initial, int | np.integer) and not isinstance(initial, bool):
        if not 0 <= initial < n:
            raise ValueError(f"{name} as a state index must be in 0..{n - 1}, got {initial}")
        vector = np.zeros(n)
        vector[int(initial)] = 1.0
        return vector
    try:
        vector = np.array(initial, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be a state index or a probability vector of length {n}"
        ) from None
    if vector.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got shape {vector.shape}")
    bad = ~(np.isfinite(vector) & (vector >= 0))
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{name} must be finite and >= 0, got {name}[{i}] = {float(vector[i])!r}")
    total = float(vector.sum())
    if abs(total - 1.0) > 1e-9:
        raise ValueError(f"{name} must sum to 1 within 1e-9, got sum {total!r}")
    return vector


def _times(times) -> NDArray[np.float64]:
    try:
        array = np.array(times, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("times must be a number or a 1-D array of numbers") from None
    if array.ndim > 1:
        raise ValueError(f"times must be a number or 1-D, got shape {array.shape}")
    array = np.atleast_1d(array)
    bad = ~(np.isfinite(array) & (array >= 0))
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"times must be finite and >= 0, got times[{i}] = {float(array[i])!r}")
    return array


def _tolerance(tolerance) -> float:
    try:
        value = float(tolerance)
    except (TypeError, ValueError):
        raise ValueError(f"tolerance must be a number, got {tolerance!r}") from None
    if not 0 < value < 1:
        raise ValueError(f"tolerance must be in (0, 1), got {tolerance!r}")
    return value


def _reaches(
    rates: sparse.csr_matrix, sources: NDArray[np.bool_], blocked=None
) -> NDArray[np.bool_]:
    """States from which some state in ``sources`` can be reached along positive
    rates without passing through a ``blocked`` state before (sources themselves
    included; blocked states are included when they have a direct edge onward)."""
    n = rates.shape[0]
    reverse = rates.T.tocsr()
    if blocked is not None and blocked.any():
        # a path may end at a blocked state but not pass through one: in the reversed
        # graph, do not expand from blocked states
        keep = np.repeat(~blocked, np.diff(reverse.indptr))
        reverse = reverse.copy()
        reverse.data = np.where(keep, reverse.data, 0.0)
        reverse.eliminate_zeros()
    # a virtual super-source n with edges to every source
    sources_idx = np.flatnonzero(sources)
    extra = sparse.csr_matrix(
        (np.ones(sources_idx.size), (np.full(sources_idx.size, n), sources_idx)),
        shape=(n + 1, n + 1),
    )
    graph = sparse.bmat([[reverse, None], [None, sparse.csr_matrix((1, 1))]], format="csr") + extra
    order = breadth_first_order(graph, n, directed=True, return_predecessors=False)
    seen = np.zeros(n + 1, dtype=bool)
    seen[order] = True
    return seen[:n]


# ---------------------------------------------------------------------------
# generators and stationary distributions


def generator(rates) -> sparse.csr_matrix:
    r"""Generator matrix from a matrix of transition rates.

    Parameters
    ----------
    rates : array_like or scipy.sparse matrix, shape (n, n)
        ``rates[i, j]`` (:math:`i \ne j`) is the rate of :math:`i \to j`; finite and
        >= 0.  The diagonal of ``rates`` is ignored (so passing a generator returns it
        with its diagonal recomputed).

    Returns
    -------
    scipy.sparse.csr_matrix, shape (n, n)
        :math:`Q` with the off-diagonal rates and :math:`Q_{ii} = -\sum_{j \ne i}
        q_{ij}` stored explicitly (also where it is 0); float64, sorted indices.

    Raises
    ------
    ValueError
        If ``rates`` is not square, empty, complex, or has a NaN, infinite or
        negative off-diagonal entry.

    Examples
    --------
    >>> Q = generator([[0.0, 2.0], [3.0, 0.0]])
    >>> Q.toarray()
    array([[-2.,  2.],
           [ 3., -3.]])
    """
    csr = _as_sparse("rates", rates)
    off, _ = _split("rates", csr)
    n = off.shape[0]
    exit_rates = np.asarray(off.sum(axis=1)).ravel()
    coo = off.tocoo()
    states = np.arange(n)
    # every diagonal entry stored, also where it is 0 (absorbing states)
    Q = sparse.csr_matrix(
        (
            np.concatenate([coo.data, -exit_rates]),
            (np.concatenate([coo.row, states]), np.concatenate([coo.col, states])),
        ),
        shape=(n, n),
    )
    Q.sort_indices()
    return Q


def stationary(Q, *, method: str = "auto") -> NDArray[np.float64]:
    r"""Stationary distribution of an irreducible CTMC with a sparse generator.

    Parameters
    ----------
    Q : scipy.sparse matrix or array_like, shape (n, n)
        Generator (see the module notes: the diagonal is checked, then recomputed).
    method : {"auto", "gth", "sparse"}, optional
        ``"gth"``: dense GTH (:func:`qtheory.exact.stationary_ctmc`), entrywise
        accurate, :math:`O(n^3)` time and :math:`O(n^2)` memory.  ``"sparse"``:
        sparse LU of the balance equations with one replaced by the normalisation
        (see the module notes); accurate in norm (relative to the largest
        probability; entries at rounding level are clipped at 0).  ``"auto"``
        (default) uses GTH when ``n <= GTH_MAX_STATES`` (2000) and the sparse solve
        otherwise.

    Returns
    -------
    numpy.ndarray, shape (n,)
        :math:`\pi` with :math:`\pi Q = 0`, :math:`\sum_i \pi_i = 1`.

    Raises
    ------
    ValueError
        If ``Q`` is not a valid generator (see :func:`generator`; rows must sum to 0)
        or the chain is not irreducible (the message names a state that cannot be
        reached from state 0, or from which state 0 cannot be reached), ``method`` is
        unknown, or (GTH) the estimated memory or work exceeds the
        :mod:`qtheory.core.limits`.

    References
    ----------
    See the module's References: Grassmann, Taksar and Heyman (1985).

    Examples
    --------
    The M/M/1/2 queue with arrival rate 1 and service rate 2:
    :math:`\pi \propto (1, 1/2, 1/4)`.

    >>> import numpy as np
    >>> Q = generator([[0, 1, 0], [2, 0, 1], [0, 2, 0]])
    >>> pi = stationary(Q)
    >>> (pi * 7).round(12)
    array([4., 2., 1.])
    >>> bool(np.allclose(stationary(Q, method="sparse"), pi, rtol=1e-14))
    True
    """
    if method not in ("auto", "gth", "sparse"):
        raise ValueError(f"method must be 'auto', 'gth' or 'sparse', got {method!r}")
    rates, exit_rates = _rates_of(Q)
    n = rates.shape[0]
    _check_irreducible(rates)
    if method == "gth" or (method == "auto" and n <= GTH_MAX_STATES):
        require_gth("Q", n)
        dense = rates.toarray()
        dense[np.diag_indices(n)] = -exit_rates
        return stationary_ctmc(dense)
    if n == 1:
        return np.ones(1)
    return _sparse_stationary(rates, exit_rates)


def _sparse_stationary(
    rates: sparse.csr_matrix, exit_rates: NDArray[np.float64]
) -> NDArray[np.float64]:
    """``pi Q = 0``, ``sum(pi) = 1`` by sparse LU; see the module notes."""
    n = rates.shape[0]
    order = reverse_cuthill_mckee((rates + rates.T).tocsr(), symmetric_mode=True)
    permuted = rates[order][:, order]
    balance = (permuted.T - sparse.diags_array(exit_rates[order])).tocsr()[:-1]
    system = sparse.vstack([balance, sparse.csr_matrix(np.ones((1, n)))], format="csc")
    factors = splu(system, permc_spec="NATURAL", diag_pivot_thresh=0.0, options={"Equil": False})
    rhs = np.zeros(n)
    rhs[-1] = 1.0
    pi = np.empty(n)
    pi[order] = factors.solve(rhs)
    # negative entries can only be rounding errors of probabilities near 0
    np.maximum(pi, 0.0, out=pi)
    return pi / pi.sum()


def _check_irreducible(rates: sparse.csr_matrix) -> None:
    n = rates.shape[0]
    for graph, message in (
        (rates, "Q must be irreducible, but state {} cannot be reached from state 0"),
        (rates.T.tocsr(), "Q must be irreducible, but state 0 cannot be reached from state {}"),
    ):
        order = breadth_first_order(graph, 0, directed=True, return_predecessors=False)
        if order.size < n:
            seen = np.zeros(n, dtype=bool)
            seen[order] = True
            raise ValueError(message.format(int(np.argmin(seen))))


# ---------------------------------------------------------------------------
# transient distributions


def _poisson_weights(mean: float, tolerance: float) -> NDArray[np.float64]:
    r"""Poisson(``mean``) probabilities of :math:`0, \dots, R`, normalised to sum to 1,
    where the neglected upper tail is at most ``tolerance`` (relative to the total).

    The weights are built by products outwards from the
    mode :math:`m = \lfloor \text{mean} \rfloor` (:math:`w_m = 1`,
    :math:`w_{k+1} = w_k \cdot \text{mean}/(k+1)`, :math:`w_{k-1} = w_k\, k/\text{mean}`)
    and normalised by their sum, so each carries a relative error of about
    :math:`|k - m|` roundings instead of the :math:`u \cdot \text{mean}` of
    :math:`\exp(k \log \text{mean} - \text{mean} - \log k!)`.  For :math:`k > R`
    the ratio :math:`w_{k+1}/w_k \le \rho = \text{mean}/(R+1) < 1`, which bounds
    the tail by :math:`w_R \rho / (1 - \rho)`.
    """
    mode = int(mean)
    spread = int(np.sqrt(mean)) + 1
    right = int(mean) + 8 * spread + 10
    while True:
        down = np.cumprod(np.arange(mode, 0, -1) / mean)  # w_{m-1}, w_{m-2}, ..., w_0
        up = np.cumprod(mean / np.arange(mode + 1, right + 1))  # w_{m+1}, ..., w_R
        weights = np.concatenate([down[::-1], [1.0], up])
        ratio = mean / (right + 1)
        total = weights.sum()
        if weights[-1] * ratio / (1.0 - ratio) <= tolerance * total:
            return weights / total
        right += 2 * spread + 10


def _require_uniformisation(
    rates: sparse.csr_matrix, rate: float, times: NDArray[np.float64]
) -> None:
    """Refuse (``ValueError`` naming ``times``) a uniformisation whose Poisson weights
    (about ν t + 8 √(ν t) + 20 per distinct step) or matrix-vector products (as many,
    each touching every stored rate and state) exceed the :mod:`qtheory.core.limits`."""
    jumps = rate * float(times.max(initial=0.0))
    terms = jumps + times.size * (8 * np.sqrt(jumps) + 20)
    n = rates.shape[0]
    what = f"uniformisation over about {jumps:.3g} jumps of a {n}-state chain"
    limits.require("memory", 8 * (terms + times.size * n), parameter="times", what=what)
    limits.require("dp_cells", terms * (rates.nnz + n), parameter="times", what=what)


def _uniformised(
    rates: sparse.csr_matrix,
    exit_rates: NDArray[np.float64],
    initial: NDArray[np.float64],
    times: NDArray[np.float64],
    tolerance: float,
) -> NDArray[np.float64]:
    """Transient distributions at ``times`` by uniformisation, stepping through the
    sorted times (truncation error <= tolerance per distinct step)."""
    n = rates.shape[0]
    rate = float(exit_rates.max())
    _require_uniformisation(rates, rate, times)
    out = np.empty((times.size, n))
    if rate == 0.0:  # no transitions at all
        out[:] = initial
        return out
    # P^T with P = I + Q / rate: non-negative, with diagonal 1 - q_i / rate >= 0
    stay = (rate - exit_rates) / rate
    moves = rates.T.tocsr()
    moves.data = moves.data / rate  # true division (1 / rate may overflow)
    jump_t = (moves + sparse.diags_array(stay)).tocsr()
    if n <= _DENSE_STEP:  # small chains: a dense product has far less overhead
        jump_t = jump_t.toarray()
    order = np.argsort(times, kind="stable")
    current = initial.copy()
    now = 0.0
    for index in order:
        step = times[index] - now
        if step > 0:
            weights = _poisson_weights(rate * step, tolerance)
            power = current
            result = weights[0] * power
            for weight in weights[1:]:
                power = jump_t @ power
                result += weight * power
            current = result
            now = times[index]
        out[index] = current
    return out


def transient(Q, initial, times, *, tolerance: float = DEFAULT_TOLERANCE) -> NDArray[np.float64]:
    r"""Distribution of a CTMC at given times, by uniformisation.

    Parameters
    ----------
    Q : scipy.sparse matrix or array_like, shape (n, n)
        Generator (see the module notes).  Absorbing states (zero rows) are allowed.
    initial : int or array_like, shape (n,)
        Initial distribution: a probability vector (non-negative, summing to 1 within
        1e-9), or a state index for a point mass.
    times : float or array_like, shape (m,)
        Times :math:`t \ge 0`, in any order (repeats allowed).
    tolerance : float, optional
        Relative truncation error of the Poisson series per step between consecutive
        distinct times (default 1e-15); see the module notes.  In (0, 1).

    Returns
    -------
    numpy.ndarray, shape (m, n)
        Row ``k`` is :math:`p(t_k) = p(0)\, e^{Q t_k}` (a scalar ``times`` gives
        ``m = 1``).  Entries are non-negative, rows sum to 1 up to rounding, and
        each row is within about :math:`m \cdot` ``tolerance`` of the exact one in
        total variation; entries much larger than that are relatively accurate.
        Cost: about :math:`\nu t_{\max} + O(m \sqrt{\nu t_{\max}})`
        sparse matrix-vector products, :math:`\nu` the largest exit rate.

    Raises
    ------
    ValueError
        If ``Q`` is not a valid generator, ``initial`` is not a distribution on the
        ``n`` states, a time is negative or not finite, ``tolerance`` is not in
        (0, 1), or the estimated memory or work exceeds the :mod:`qtheory.core.limits`.

    References
    ----------
    See the module's References: Asmussen (2003), Markov jump processes.

    Examples
    --------
    Two states, :math:`0 \to 1` at rate 1 and :math:`1 \to 0` at rate 3:
    :math:`P_0(X_t = 1) = (1 - e^{-4t}) / 4`.

    >>> import numpy as np
    >>> Q = generator([[0, 1], [3, 0]])
    >>> p = transient(Q, 0, [0.0, 0.5])
    >>> bool(np.allclose(p[1], [1 - (1 - np.exp(-2)) / 4, (1 - np.exp(-2)) / 4], rtol=1e-14))
    True
    >>> p[0]
    array([1., 0.])
    """
    rates, exit_rates = _rates_of(Q)
    n = rates.shape[0]
    vector = _distribution("initial", initial, n)
    return _uniformised(rates, exit_rates, vector, _times(times), _tolerance(tolerance))


# ---------------------------------------------------------------------------
# first passage


def _solve_on(
    rates: sparse.csr_matrix,
    exit_rates: NDArray[np.float64],
    states: NDArray[np.bool_],
    rhs: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Solve ``(diag(q) - R)[states, states] x = rhs`` (a non-singular M-matrix when
    every state in ``states`` can leave the set), as the equivalent jump-chain system
    ``(I - P)[states, states] x = rhs / q`` with ``P = R / q`` row by row, whose
    entries are probabilities: independent of the scale of the rates."""
    if not states.any():
        return np.empty(0)
    block = sparse.csr_matrix(rates[states][:, states])
    exits = exit_rates[states]
    block.data = block.data / np.repeat(exits, np.diff(block.indptr))
    system = sparse.csc_matrix(sparse.eye_array(exits.size) - block)
    with np.errstate(over="ignore"):  # a mean time beyond 1e308 becomes inf
        scaled = rhs / exits
    return np.atleast_1d(spsolve(system, scaled))


#: Sparse LU resolves expectations over at most about this many jumps: the escape
#: probabilities of the jump-chain system are then near 1e-12, and LU loses that many
#: digits to cancellation (state reduction does not, but is dense).
MAX_RELIABLE_JUMPS = 1e12


def _solve_expectation(
    rates: sparse.csr_matrix,
    exit_rates: NDArray[np.float64],
    states: NDArray[np.bool_],
    reward: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """:func:`_solve_on` for an expected total of a non-negative reward (``None``: the
    time itself, reward 1), refusing results that sparse LU cannot resolve: a negative
    entry (the exact solution of this M-matrix system is >= 0), or an expected time so
    long that it spans more than :data:`MAX_RELIABLE_JUMPS` jumps at the fastest rate of
    the set."""
    time = _solve_on(rates, exit_rates, states, np.ones(int(states.sum())))
    x = time if reward is None else _solve_on(rates, exit_rates, states, reward)
    jumps = float(np.max(time, initial=0.0)) * float(np.max(exit_rates[states], initial=0.0))
    if np.any(x < 0) or np.any(time < 0) or not jumps <= MAX_RELIABLE_JUMPS:
        raise ArithmeticError(
            f"the first-passage system has {int(states.sum())} unknowns (sparse LU) and expected "
            f"hitting times of up to about {jumps:.3g} jumps; beyond {MAX_RELIABLE_JUMPS:.0e} "
            "jumps LU cancels every digit (use a birth-death routine or fewer states)"
        )
    return x


def _state_reduction(
    rates: sparse.csr_matrix,
    states: NDArray[np.bool_],
    in_target: NDArray[np.bool_],
    with_time: bool = False,
) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
    r"""Probability of reaching ``in_target`` before leaving ``states`` otherwise, and
    expected time to leave ``states``, from each state of ``states``: subtraction-free
    state reduction (the GTH idea applied to absorption).

    With jump probabilities :math:`p_{ij}` among the states, :math:`t_i` into the
    target, :math:`x_i` to anywhere else, and mean holding times :math:`D_i`, states
    are eliminated from the last: :math:`e_k = \sum_{j<k} p_{kj} + t_k + x_k` (the
    escape probability :math:`1 - p_{kk}`, as a sum), row :math:`k` is divided by
    :math:`e_k` and :math:`D_k` becomes :math:`D_k / e_k`; then for :math:`i < k`,
    :math:`p_{ij} \mathrel{+}= p_{ik} p_{kj}`, :math:`t_i \mathrel{+}= p_{ik} t_k`,
    :math:`x_i \mathrel{+}= p_{ik} x_k`, :math:`D_i \mathrel{+}= p_{ik} D_k` (a
    visit to :math:`k` is folded into the jump out of :math:`i`; self-loops
    :math:`p_{ii}` are kept and dropped from :math:`e_i`).  Back substitution, from the
    first: :math:`h_k = t_k + \sum_{j<k} p_{kj} h_j` and
    :math:`m_k = D_k + \sum_{j<k} p_{kj} m_j`.  Only non-negative numbers are added,
    multiplied and divided, so every component keeps a small relative error.
    :math:`O(k^3)` for ``k`` states, dense.  The times are computed only if
    ``with_time`` (a mean time beyond the float64 range becomes inf).
    """
    index = np.flatnonzero(states)
    exits = np.asarray(rates[index].sum(axis=1)).ravel()
    block = rates[index]
    jump = block[:, index].toarray() / exits[:, None]
    into_target = np.asarray(block[:, in_target].sum(axis=1)).ravel() / exits
    elsewhere = ~states & ~in_target
    into_other = np.asarray(block[:, elsewhere].sum(axis=1)).ravel() / exits
    with np.errstate(over="ignore"):
        holding = 1.0 / exits if with_time else np.zeros(index.size)
    np.fill_diagonal(jump, 0.0)
    for k in range(index.size - 1, -1, -1):
        row = jump[k, :k]
        escape = row.sum() + into_target[k] + into_other[k]
        if not escape > 0:  # pragma: no cover - every state in ``states`` can leave
            raise FloatingPointError(f"state reduction: escape of state {index[k]} is 0")
        row /= escape
        into_target[k] /= escape
        into_other[k] /= escape
        holding[k] /= escape
        column = jump[:k, k]
        jump[:k, :k] += np.multiply.outer(column, row)
        into_target[:k] += column * into_target[k]
        into_other[:k] += column * into_other[k]
        holding[:k] += column * holding[k]
    probability = into_target
    time = holding
    for k in range(1, index.size):
        probability[k] += jump[k, :k] @ probability[:k]
        if with_time:
            time[k] += jump[k, :k] @ time[:k]
    return probability, time if with_time else None


def hitting_probabilities(Q, target, avoid=()) -> NDArray[np.float64]:
    r"""Probability, from each state, of hitting ``target`` before ``avoid``.

    Parameters
    ----------
    Q : scipy.sparse matrix or array_like, shape (n, n)
        Generator (see the module notes).
    target : int, sequence of int, or boolean mask
        Target set :math:`T` (non-empty).
    avoid : int, sequence of int, or boolean mask, optional
        Set :math:`A` to avoid, disjoint from ``target``; empty by default, which
        gives the probability of ever reaching :math:`T`.

    Returns
    -------
    numpy.ndarray, shape (n,)
        :math:`h_i = P_i(\tau_T < \tau_A)`, with :math:`\tau_S` the first time at which
        the chain is in :math:`S` (so :math:`h = 1` on :math:`T`, 0 on :math:`A`).
        :math:`h = 0` exactly on the states that cannot reach :math:`T` without
        entering :math:`A` (found by a graph search); on the others :math:`h` solves

        .. math:: q_i h_i - \sum_{j \notin T \cup A} q_{ij} h_j = \sum_{j \in T} q_{ij}

        by state reduction (subtraction-free, entrywise accurate) when there are at
        most ``REDUCTION_MAX_STATES`` (500) unknowns, else by sparse LU.

    Raises
    ------
    ValueError
        If ``Q`` is not a valid generator, ``target`` is empty, a state index is out
        of range, or ``target`` and ``avoid`` share a state.

    References
    ----------
    .. [1] W. Feller, An Introduction to Probability Theory and Its Applications,
       Vol. I, 3rd ed. (1968), Chapter XIV (gambler's ruin).

    Examples
    --------
    Gambler's ruin with up-rate 2 and down-rate 1 on 0..3: from state 1 the walk
    reaches 3 before 0 with probability :math:`(2 - 1) / (2^3 - 1) \cdot 4 = 4/7`.

    >>> import numpy as np
    >>> up, down = np.diag([2.0, 2.0, 2.0], 1), np.diag([1.0, 1.0, 1.0], -1)
    >>> up[0, 1] = down[3, 2] = 0.0  # 0 and 3 absorb
    >>> h = hitting_probabilities(generator(up + down), target=3, avoid=0)
    >>> (h * 7).round(12)
    array([0., 4., 6., 7.])
    """
    rates, exit_rates = _rates_of(Q)
    n = rates.shape[0]
    in_target = _state_set("target", target, n)
    in_avoid = _state_set("avoid", avoid, n, allow_empty=True)
    both = in_target & in_avoid
    if both.any():
        raise ValueError(
            f"target and avoid must be disjoint, but both contain state {int(np.argmax(both))}"
        )
    can_hit = _reaches(rates, in_target, blocked=in_avoid) & ~in_avoid
    unknown = can_hit & ~in_target
    h = np.zeros(n)
    h[in_target] = 1.0
    if unknown.sum() <= REDUCTION_MAX_STATES:
        # probabilities are sums of products of probabilities: only rounding can
        # push one above 1
        h[unknown] = np.minimum(_state_reduction(rates, unknown, in_target)[0], 1.0)
        return h
    into_target = np.asarray(rates[unknown][:, in_target].sum(axis=1)).ravel()
    h[unknown] = _solve_on(rates, exit_rates, unknown, into_target)
    return np.clip(h, 0.0, 1.0)  # an M-matrix solve: excursions are rounding only


def _check_reached_surely(rates: sparse.csr_matrix, in_target: NDArray[np.bool_]) -> None:
    """Raise ValueError unless ``target`` is reached with probability 1 from every
    state: no state outside ``target`` may reach a state that cannot reach it."""
    can_hit = _reaches(rates, in_target)
    if can_hit.all():
        return
    lost = ~can_hit  # never in target
    state = int(np.argmax(lost))
    detail = f"state {state} cannot reach target"
    single = np.zeros_like(lost)
    single[state] = True
    # other states that can get to it before target
    feeders = np.flatnonzero(_reaches(rates, single, blocked=in_target) & ~in_target & ~single)
    if feeders.size:
        detail += f" and can be reached from state {int(feeders[0])}"
    raise ValueError(
        "target must be reached with probability 1 from every state (else the mean "
        f"hitting time is infinite), but {detail}"
    )


def mean_hitting_times(Q, target) -> NDArray[np.float64]:
    r"""Expected time to reach ``target`` from each state.

    Parameters
    ----------
    Q : scipy.sparse matrix or array_like, shape (n, n)
        Generator (see the module notes).
    target : int, sequence of int, or boolean mask
        Target set :math:`T` (non-empty).

    Returns
    -------
    numpy.ndarray, shape (n,)
        :math:`m_i = E_i[\tau_T]`: 0 on :math:`T`, and off :math:`T` the solution of
        :math:`q_i m_i - \sum_{j \notin T} q_{ij} m_j = 1` (state reduction, entrywise
        accurate, for up to ``REDUCTION_MAX_STATES`` (500) unknowns; else sparse LU).

    Raises
    ------
    ValueError
        If ``Q`` is not a valid generator, ``target`` is empty or out of range, or
        :math:`T` is not reached with probability 1 from some state (the message
        names it: a state that cannot reach :math:`T`, or one that can reach such a
        state).
    ArithmeticError
        If the sparse-LU path (more than ``REDUCTION_MAX_STATES`` unknowns) meets
        hitting times of more than :data:`MAX_RELIABLE_JUMPS` jumps, which float64 LU
        cannot resolve (e.g. the descent to 0 of the reject-all-L idle process at
        N = 1000, about 1e47 time units); birth-death chains have exact routines in
        :mod:`qtheory.walks.hitting`.

    References
    ----------
    .. [1] L. Kleinrock, Queueing Systems, Volume I: Theory (Wiley 1975), the M/M/1
       busy period.

    Examples
    --------
    M/M/1 with arrival rate 1 and service rate 2, truncated at 60 customers: the busy
    period started by one customer has mean :math:`1 / (\mu - \lambda) = 1`.

    >>> import numpy as np
    >>> n = 61
    >>> rates = np.diag(np.full(n - 1, 1.0), 1) + np.diag(np.full(n - 1, 2.0), -1)
    >>> m = mean_hitting_times(generator(rates), target=0)
    >>> round(float(m[1]), 12), float(m[0])
    (1.0, 0.0)
    """
    rates, exit_rates = _rates_of(Q)
    n = rates.shape[0]
    in_target = _state_set("target", target, n)
    _check_reached_surely(rates, in_target)
    m = np.zeros(n)
    outside = ~in_target
    if outside.sum() <= REDUCTION_MAX_STATES:
        m[outside] = _state_reduction(rates, outside, in_target, with_time=True)[1]
    else:
        m[outside] = _solve_expectation(rates, exit_rates, outside)
    return m


def accumulated_reward(Q, target, reward) -> NDArray[np.float64]:
    r"""Expected reward accumulated until ``target`` is reached, from each state.

    Parameters
    ----------
    Q : scipy.sparse matrix or array_like, shape (n, n)
        Generator (see the module notes).
    target : int, sequence of int, or boolean mask
        Target set :math:`T` (non-empty).
    reward : array_like, shape (n,)
        Reward rate :math:`f_i \ge 0` earned per unit time in state :math:`i`, finite.

    Returns
    -------
    numpy.ndarray, shape (n,)
        :math:`a_i = E_i\bigl[\int_0^{\tau_T} f(X_t)\,dt\bigr]`: 0 on :math:`T`, and
        off :math:`T` the solution of :math:`q_i a_i - \sum_{j \notin T} q_{ij} a_j = f_i`
        (sparse LU of the jump-chain system; :func:`mean_hitting_times` is the case
        :math:`f \equiv 1`).  Rewards earned at jumps, e.g. an H arrival lost at rate
        :math:`\lambda` in state :math:`i`, are rates too: :math:`f_i = \lambda`.

    Raises
    ------
    ValueError
        As for :func:`mean_hitting_times`, and if ``reward`` has the wrong length or a
        negative, NaN or infinite entry.
    ArithmeticError
        If the expected times span more than :data:`MAX_RELIABLE_JUMPS` jumps, which
        the sparse LU solve cannot resolve (see :func:`mean_hitting_times`).

    References
    ----------
    See the module's References: Asmussen (2003), Markov jump processes and the
    renewal-reward theorem.

    Examples
    --------
    M/M/1 (arrivals 1, services 2) truncated at 60: by renewal reward over idle +
    busy cycles, the area under the queue length during a busy period started by one
    customer is :math:`E[X]\,E[\text{cycle}] = \frac{\rho}{1-\rho}\cdot
    \frac{\mu}{\lambda(\mu-\lambda)} = \frac{\mu}{(\mu-\lambda)^2} = 2`.

    >>> import numpy as np
    >>> n = 61
    >>> rates = np.diag(np.full(n - 1, 1.0), 1) + np.diag(np.full(n - 1, 2.0), -1)
    >>> area = accumulated_reward(generator(rates), target=0, reward=np.arange(n))
    >>> round(float(area[1]), 10)
    2.0
    """
    rates, exit_rates = _rates_of(Q)
    n = rates.shape[0]
    in_target = _state_set("target", target, n)
    reward = np.asarray(reward, dtype=np.float64)
    if reward.shape != (n,):
        raise ValueError(f"reward must have shape ({n},), got {reward.shape}")
    if not np.all(np.isfinite(reward) & (reward >= 0)):
        raise ValueError("reward must be finite and >= 0 in every state")
    _check_reached_surely(rates, in_target)
    a = np.zeros(n)
    outside = ~in_target
    a[outside] = _solve_expectation(rates, exit_rates, outside, reward[outside])
    return a


def hitting_time_cdf(
    Q, target, initial, times, *, tolerance: float = DEFAULT_TOLERANCE
) -> NDArray[np.float64]:
    r"""Distribution function of the hitting time of ``target``.

    Parameters
    ----------
    Q : scipy.sparse matrix or array_like, shape (n, n)
        Generator (see the module notes).
    target : int, sequence of int, or boolean mask
        Target set :math:`T` (non-empty).
    initial : int or array_like, shape (n,)
        Initial distribution, as in :func:`transient` (mass on :math:`T` counts as
        :math:`\tau_T = 0`).
    times : float or array_like, shape (m,)
        Times :math:`t \ge 0`.
    tolerance : float, optional
        As in :func:`transient` (default 1e-15).

    Returns
    -------
    numpy.ndarray, shape (m,)
        :math:`P(\tau_T \le t)` at each time: the mass on :math:`T` at time :math:`t`
        in the chain with the states of :math:`T` made absorbing, computed by
        uniformisation (:func:`transient`): the absolute error is at most about
        :math:`m \cdot` ``tolerance``, and values much larger than that are
        relatively accurate (pass e.g. ``tolerance=1e-300`` to resolve tiny
        probabilities).

    Raises
    ------
    ValueError
        As for :func:`transient`, and if ``target`` is empty or out of range.

    References
    ----------
    See the module's References: Asmussen (2003), Markov jump processes.

    Examples
    --------
    A single exponential transition at rate 2: :math:`P(\tau \le t) = 1 - e^{-2t}`.

    >>> import numpy as np
    >>> F = hitting_time_cdf(generator([[0, 2], [0, 0]]), target=1, initial=0, times=[0, 1])
    >>> bool(np.allclose(F, [0, 1 - np.exp(-2)], rtol=1e-14, atol=0))
    True
    """
    rates, _ = _rates_of(Q)
    n = rates.shape[0]
    in_target = _state_set("target", target, n)
    vector = _distribution("initial", initial, n)
    absorbing = sparse.diags_array((~in_target).astype(np.float64)) @ rates
    absorbing = sparse.csr_matrix(absorbing)
    absorbing.eliminate_zeros()
    exit_rates = np.asarray(absorbing.sum(axis=1)).ravel()
    p = _uniformised(absorbing, exit_rates, vector, _times(times), _tolerance(tolerance))
    return np.minimum(p[:, in_target].sum(axis=1), 1.0)
