r"""Matrix-analytic solutions of quasi-birth-death (QBD) and GI/M/1-type Markov chains:
the G and R matrices by logarithmic or cyclic reduction, with a residual check, and the
matrix-geometric stationary law.

Conventions
-----------
A level-independent QBD in continuous time has, above its boundary, the generator blocks
:math:`A_0` (one level up), :math:`A_1` (same level) and :math:`A_2` (one level down),
each :math:`m\times m`, with :math:`(A_0 + A_1 + A_2)\mathbf 1 = 0`.  Its matrices are the
minimal non-negative solutions of

.. math:: A_2 + A_1 G + A_0 G^2 = 0, \qquad A_0 + R A_1 + R^2 A_2 = 0 ,

:math:`G_{ij}` the probability that the first visit to level :math:`n-1`, from
:math:`(n, i)`, is in phase :math:`j`, and :math:`R_{ij}` the expected time in
:math:`(n+1, j)` per unit time in :math:`(n, i)` before the first return to level
:math:`n`.  Given :math:`G`, :math:`R = A_0(-(A_1 + A_0 G))^{-1}`.  The stationary law is
matrix-geometric, :math:`\pi_{n+1} = \pi_n R` above the boundary.  A discrete-time chain
(blocks of transition probabilities, rows of :math:`A_0+A_1+A_2` summing to 1) satisfies
the same equations with :math:`A_1 - I` in place of :math:`A_1` (``discrete=True``).

A GI/M/1-type chain goes up at most one level and down up to :math:`K-1` levels: blocks
:math:`A_0` (up), :math:`A_1` (same level), :math:`A_k` (:math:`k-1` levels down,
:math:`k = 2..K`).  Its :math:`R` is the minimal non-negative solution of
:math:`\sum_{k=0}^K R^k A_k = 0`.  Grouping :math:`K-1` consecutive levels into one makes
it a QBD (block size :math:`(K-1)m`), whose :math:`R` is zero except in its last block
row, which is :math:`(R, R^2, \dots, R^{K-1})` (the expected time in level
:math:`n + j` per unit time in level :math:`n` before the return to level :math:`n` is
:math:`R^j`): so :math:`R` is the first block of that row [2]_ (Sec. 5.5).

Algorithms
----------
Both converge quadratically for a positive recurrent chain (:math:`\pi_A A_0\mathbf 1 <
\pi_A A_2 \mathbf 1`, :math:`\pi_A` the stationary law of :math:`A_0+A_1+A_2`, checked
first; :math:`G` is then stochastic and sp(R) < 1), and stop when
:math:`\|\mathbf 1 - G\mathbf 1\|_\infty` or the last change of :math:`G` is below the
tolerance (in heavy traffic rounding alone leaves :math:`\|\mathbf 1 - G\mathbf 1\|`
near :math:`\epsilon/(1-\mathrm{sp}(R))`).

- ``"logarithmic"``: logarithmic reduction (Latouche and Ramaswami [1]_; [2]_ Alg. 8.2.1).
  With :math:`H = (-A_1)^{-1}A_0`, :math:`L = (-A_1)^{-1}A_2`, :math:`G = L`,
  :math:`T = H`, repeat :math:`U = HL + LH`, :math:`H \leftarrow (I-U)^{-1}H^2`,
  :math:`L \leftarrow (I-U)^{-1}L^2`, :math:`G \leftarrow G + TL`,
  :math:`T \leftarrow TH`: after :math:`k` steps :math:`G` accounts for the paths
  that reach level :math:`n-1` within :math:`2^k` level changes.
- ``"cyclic"``: cyclic reduction (Bini and Meini [3]_): even-odd elimination of levels,
  :math:`K = (-A_1)^{-1}`, :math:`A_0 \leftarrow A_0 K A_0`,
  :math:`A_2 \leftarrow A_2 K A_2`, :math:`A_1 \leftarrow A_1 + A_0KA_2 + A_2KA_0`,
  :math:`\hat A \leftarrow \hat A + A_0 K A_2` (from :math:`\hat A = A_1`); then
  :math:`G = (-\hat A)^{-1} A_2`.

The residuals :math:`\|A_2 + A_1G + A_0G^2\|_\infty` and
:math:`\|A_0 + RA_1 + R^2A_2\|_\infty` (for GI/M/1: :math:`\|\sum_k R^kA_k\|_\infty`),
relative to :math:`\|A_1\|_\infty`, are returned with the solution.

References
----------
.. [1] G. Latouche and V. Ramaswami, "A logarithmic reduction algorithm for
   quasi-birth-death processes", Journal of Applied Probability 30(3):650-674 (1993).
.. [2] G. Latouche and V. Ramaswami, *Introduction to Matrix Analytic Methods in
   Stochastic Modeling*, SIAM (1999), Chapters 6 and 8.
.. [3] D. A. Bini and B. Meini, "On the solution of a nonlinear matrix equation arising
   in queueing problems", SIAM J. Matrix Anal. Appl. 17(4):906-926 (1996).
.. [4] M. F. Neuts, *Matrix-Geometric Solutions in Stochastic Models*, Johns Hopkins
   University Press (1981), Chapters 1 and 3.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from qtheory.exact.stationary import stationary_ctmc

__all__ = [
    "MatrixAnalyticSolution",
    "QBDStationary",
    "gim1_rate",
    "gim1_solve",
    "qbd_solve",
    "qbd_stationary",
]

METHODS = ("logarithmic", "cyclic")
#: Default stopping tolerance on ‖1 − G1‖∞.
DEFAULT_TOLERANCE = 1e-14
#: Iterations allowed (each doubles the number of levels accounted for).
MAX_ITERATIONS = 64
#: Residual of R = Σ R^d A_d accepted by :func:`gim1_rate`.
RATE_RESIDUAL = 1e-12


@dataclass(frozen=True)
class MatrixAnalyticSolution:
    """The R (and G) matrix of a QBD or GI/M/1-type chain, with its residual.

    Attributes
    ----------
    R : numpy.ndarray, shape (m, m)
        Rate matrix: π_{n+1} = π_n R above the boundary.
    G : numpy.ndarray or None
        First-passage matrix one level down (QBD only; None for GI/M/1-type chains).
    residual : float
        Largest residual of the matrix equations solved, relative to ‖A_1‖∞ (see
        the module notes).
    iterations : int
        Reduction steps taken.
    method : str
        ``"logarithmic"`` or ``"cyclic"``.
    spectral_radius : float
        sp(R) < 1 (positive recurrence).
    U : numpy.ndarray or None
        QBD only: U = A_1 + A_0 G = A_1 + R A_2, the generator of the phases at a level
        before the first visit below it; (−U)^{-1} is the expected time spent there.

    Examples
    --------
    >>> sol = qbd_solve([[0.5]], [[-1.5]], [[1.0]])  # M/M/1, λ = 0.5, μ = 1
    >>> round(float(sol.R[0, 0]), 12), round(float(sol.G[0, 0]), 12), sol.residual < 1e-14
    (0.5, 1.0, True)
    """

    R: NDArray[np.float64]
    G: NDArray[np.float64] | None
    residual: float
    iterations: int
    method: str
    spectral_radius: float
    U: NDArray[np.float64] | None = None


def _blocks(names: Sequence[str], blocks: Sequence[ArrayLike]) -> list[NDArray[np.float64]]:
    """The blocks as float arrays, square, of one size, finite."""
    arrays = [np.array(b, dtype=float, ndmin=2) for b in blocks]
    m = arrays[0].shape[0]
    for name, array in zip(names, arrays, strict=True):
        if array.shape != (m, m):
            raise ValueError(
                f"{name} must be a square matrix of shape ({m}, {m}), got {array.shape}"
            )
        if not np.all(np.isfinite(array)):
            raise ValueError(f"{name} must have finite entries")
    return arrays


def _check_generator(names: Sequence[str], blocks, discrete: bool) -> None:
    """Non-negative off-diagonal rates (all entries of the non-local blocks) and rows of
    the sum summing to 0 (1 when ``discrete``)."""
    local = blocks[1]
    for index, (name, block) in enumerate(zip(names, blocks, strict=True)):
        local_rates = index == 1 and not discrete
        off = block - np.diag(np.diag(block)) if local_rates else block
        if np.any(off < 0):
            which = "off-diagonal entries" if local_rates else "entries"
            raise ValueError(f"{name} must have non-negative {which}")
    rows = sum(blocks).sum(axis=1) - (1.0 if discrete else 0.0)
    scale = max(float(np.abs(local).sum(axis=1).max()), 1.0)
    if np.any(np.abs(rows) > 1e-12 * len(blocks) * local.shape[0] * scale):
        target = 1 if discrete else 0
        raise ValueError(
            f"the rows of {' + '.join(names)} must sum to {target}, got {rows.tolist()}"
        )


def _check_method(method: object) -> str:
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    return method


def _drift(A0, A1, A2) -> tuple[float, float]:
    """(π_A A0 1, π_A A2 1): up and down drift, π_A the stationary law of the phase
    process A = A0 + A1 + A2 (its diagonal recomputed from the off-diagonal rates)."""
    A = A0 + A1 + A2
    off = A - np.diag(np.diag(A))
    A = off - np.diag(off.sum(axis=1))
    pi = stationary_ctmc(A) if A.shape[0] > 1 else np.ones(1)
    return float(pi @ A0.sum(axis=1)), float(pi @ A2.sum(axis=1))


def _converged(G, increment, tolerance) -> bool:
    """‖1 − G1‖∞ < tolerance, or the last step changed G by less than tolerance (near
    heavy traffic rounding keeps ‖1 − G1‖ about eps/(1 − sp(R)))."""
    return bool(
        np.abs(1.0 - G.sum(axis=1)).max() < tolerance
        or np.abs(increment).sum(axis=1).max() < tolerance
    )


def _logarithmic(A0, A1, A2, tolerance):
    m = A0.shape[0]
    eye = np.eye(m)
    up = np.linalg.solve(-A1, A0)
    down = np.linalg.solve(-A1, A2)
    G, T = down.copy(), up.copy()
    for step in range(1, MAX_ITERATIONS + 1):
        U = up @ down + down @ up
        up, down = np.linalg.solve(eye - U, up @ up), np.linalg.solve(eye - U, down @ down)
        increment = T @ down
        G = G + increment
        T = T @ up
        if _converged(G, increment, tolerance):
            return G, step
    raise ArithmeticError(f"logarithmic reduction did not converge in {MAX_ITERATIONS} steps")


def _cyclic(A0, A1, A2, tolerance):
    up, local, down, hat = A0.copy(), A1.copy(), A2.copy(), A1.copy()
    G = np.zeros_like(A0)
    for step in range(1, MAX_ITERATIONS + 1):
        K_up = np.linalg.solve(-local, up)
        K_down = np.linalg.solve(-local, down)
        hat = hat + up @ K_down
        local = local + up @ K_down + down @ K_up
        up, down = up @ K_up, down @ K_down
        G, previous = np.linalg.solve(-hat, A2), G
        if _converged(G, G - previous, tolerance):
            return G, step
    raise ArithmeticError(f"cyclic reduction did not converge in {MAX_ITERATIONS} steps")


def _tolerance(tolerance: object) -> float:
    if (
        isinstance(tolerance, bool)
        or not isinstance(tolerance, float | int)
        or not 0 < tolerance < 1
    ):
        raise ValueError(f"tolerance must be a number in (0, 1), got {tolerance!r}")
    return float(tolerance)


def qbd_solve(
    A0: ArrayLike,
    A1: ArrayLike,
    A2: ArrayLike,
    *,
    method: str = "logarithmic",
    discrete: bool = False,
    tolerance: float = DEFAULT_TOLERANCE,
) -> MatrixAnalyticSolution:
    r"""G and R of a positive recurrent level-independent QBD.

    Parameters
    ----------
    A0, A1, A2 : array_like, shape (m, m)
        Blocks up, same level and down (generator blocks; transition probabilities with
        ``discrete=True``).
    method : {"logarithmic", "cyclic"}, keyword-only
        Logarithmic reduction (Latouche and Ramaswami 1993) or cyclic reduction (Bini
        and Meini 1996); see the module notes.
    discrete : bool, keyword-only
        Discrete-time chain: the equations use ``A1 - I``.
    tolerance : float, keyword-only
        Stop when ‖1 − G1‖∞ or the last change of G (∞-norm) is below it.

    Returns
    -------
    MatrixAnalyticSolution
        R, G, the relative residual of both matrix equations, the iterations, sp(R).

    Raises
    ------
    ValueError
        Blocks not square of one size, not finite, negative rates, rows of the sum not
        summing to 0 (1), a bad method or tolerance, or a chain that is not positive
        recurrent (π_A A0 1 ≥ π_A A2 1; message naming ``A0``).
    ArithmeticError
        No convergence in 64 steps (not seen for positive recurrent chains).

    Examples
    --------
    M/E2/1 written as a QBD (phase = service stage), λ = 1, each stage at rate 3
    (ρ = 2/3); both methods agree, and sp(R) is the queue's decay rate 1/z, z > 1 the
    root of (3/(4 − z))² = z:

    >>> A0 = [[1.0, 0.0], [0.0, 1.0]]
    >>> A1 = [[-4.0, 3.0], [0.0, -4.0]]
    >>> A2 = [[0.0, 0.0], [3.0, 0.0]]
    >>> log, cyc = qbd_solve(A0, A1, A2), qbd_solve(A0, A1, A2, method="cyclic")
    >>> bool(np.allclose(log.R, cyc.R, atol=1e-14)), log.residual < 1e-13
    (True, True)
    >>> round(log.spectral_radius, 12) == round(2 / (7 - 13**0.5), 12)  # the decay rate
    True

    References
    ----------
    See the module's References:

    - Latouche and Ramaswami (1993);
    - Bini and Meini (1996).
    """
    names = ("A0", "A1", "A2")
    A0, A1, A2 = _blocks(names, (A0, A1, A2))
    method, tolerance = _check_method(method), _tolerance(tolerance)
    _check_generator(names, (A0, A1, A2), bool(discrete))
    if discrete:
        A1 = A1 - np.eye(A1.shape[0])
    up, down = _drift(A0, A1, A2)
    if not up < down:
        raise ValueError(
            f"A0 must drift less than A2 (positive recurrence): pi_A A0 1 = {up:.6g} >= "
            f"pi_A A2 1 = {down:.6g}"
        )
    G, steps = (_logarithmic if method == "logarithmic" else _cyclic)(A0, A1, A2, tolerance)
    U = A1 + A0 @ G
    R = np.linalg.solve(-U.T, A0.T).T
    scale = max(np.abs(A1).sum(axis=1).max(), 1e-300)
    residual = (
        max(
            np.abs(A2 + A1 @ G + A0 @ G @ G).sum(axis=1).max(),
            np.abs(A0 + R @ A1 + R @ R @ A2).sum(axis=1).max(),
        )
        / scale
    )
    return MatrixAnalyticSolution(
        R=R, G=G, residual=float(residual), iterations=steps, method=method,
        spectral_radius=float(np.abs(np.linalg.eigvals(R)).max()), U=U,
    )  # fmt: skip


def gim1_solve(
    blocks: Sequence[ArrayLike],
    *,
    method: str = "logarithmic",
    discrete: bool = False,
    tolerance: float = DEFAULT_TOLERANCE,
) -> MatrixAnalyticSolution:
    r"""R of a positive recurrent GI/M/1-type chain, by reblocking into a QBD.

    Solves :math:`\sum_{k=0}^{K} R^k A_k = 0` (module notes): ``K - 1`` levels are grouped
    into one, the QBD's R is found by :func:`qbd_solve`, and R is the first block of
    its last block row.

    Parameters
    ----------
    blocks : sequence of array_like, each (m, m)
        :math:`A_0` (up one level), :math:`A_1` (same level), :math:`A_2, \dots, A_K`
        (down 1, …, K − 1 levels); at least three.
    method, discrete, tolerance : keyword-only
        As in :func:`qbd_solve`.

    Returns
    -------
    MatrixAnalyticSolution
        R (``G`` is None), the relative residual ‖Σ R^k A_k‖∞ / ‖A_1‖∞, the
        reduction steps, sp(R).

    Raises
    ------
    ValueError
        As :func:`qbd_solve` (blocks named ``blocks[k]``), or fewer than three blocks.

    Examples
    --------
    The D/M/1 queue seen at arrivals (μτ = 2): up with probability a_0, down k − 1
    levels with a_k = e^{-2} 2^k/k! (the tail beyond K = 40 is below 1e-30), and R is
    the GI/M/1 root σ = e^{-2(1-σ)}:

    >>> import math
    >>> a = [math.exp(-2) * 2**k / math.factorial(k) for k in range(41)]
    >>> a[-1] += 1 - sum(a)
    >>> sol = gim1_solve([[[p]] for p in a], discrete=True)
    >>> sigma = float(sol.R[0, 0])
    >>> round(sigma, 10), abs(sigma - math.exp(-2 * (1 - sigma))) < 1e-14
    (0.20318787, True)

    References
    ----------
    See the module's References:

    - Latouche and Ramaswami (1999), Sections 5.5 and 8.2;
    - Neuts (1981), Chapter 1.
    """
    if isinstance(blocks, np.ndarray) and blocks.ndim == 3:
        blocks = list(blocks)
    if not isinstance(blocks, Sequence) or len(blocks) < 3:
        raise ValueError("blocks must be a sequence of at least three matrices A0, A1, A2, ...")
    names = [f"blocks[{k}]" for k in range(len(blocks))]
    arrays = _blocks(names, blocks)
    method, tolerance = _check_method(method), _tolerance(tolerance)
    _check_generator(names, arrays, bool(discrete))
    if discrete:
        arrays[1] = arrays[1] - np.eye(arrays[1].shape[0])
    m, s = arrays[0].shape[0], len(arrays) - 2  # s = K - 1 levels per group
    up, local, down = (np.zeros((s * m, s * m)) for _ in range(3))

    def put(target, i, j, block):
        target[i * m : (i + 1) * m, j * m : (j + 1) * m] += block

    put(up, s - 1, 0, arrays[0])
    for i in range(s):
        if i + 1 < s:
            put(local, i, i + 1, arrays[0])
        for j in range(i + 1):
            put(local, i, j, arrays[i - j + 1])  # i − j levels down
        for j in range(i, s):
            put(down, i, j, arrays[s + i - j + 1])  # s + i − j levels down
    grouped = qbd_solve(up, local, down, method=method, tolerance=tolerance)
    R = grouped.R[(s - 1) * m :, :m]
    residual = np.zeros((m, m))
    power = np.eye(m)
    for block in arrays:
        residual = residual + power @ block
        power = power @ R
    scale = max(np.abs(arrays[1]).sum(axis=1).max(), 1e-300)
    return MatrixAnalyticSolution(
        R=R, G=None,
        residual=float(max(np.abs(residual).sum(axis=1).max() / scale, grouped.residual)),
        iterations=grouped.iterations, method=method,
        spectral_radius=float(np.abs(np.linalg.eigvals(R)).max()),
    )  # fmt: skip


def _tails(blocks: np.ndarray, rate: np.ndarray) -> np.ndarray:
    """W[i] = Σ_{m≥0} R^m A_{m+i}, i < d_max (W[0] = Σ R^d A_d), by doubling: with
    W⁽ⁿ⁾[i] = Σ_{m<n} R^m A_{m+i}, W⁽²ⁿ⁾[i] = W⁽ⁿ⁾[i] + Rⁿ W⁽ⁿ⁾[i+n], so log₂ d_max
    products of J × J matrices instead of d_max sequential ones (each a single matrix
    product, on the transposes: W⁽²ⁿ⁾[i]ᵀ = W⁽ⁿ⁾[i]ᵀ + W⁽ⁿ⁾[i+n]ᵀ (Rⁿ)ᵀ)."""
    size = rate.shape[0]
    transposed = blocks.transpose(0, 2, 1).copy()
    power, span = rate.T, 1
    while span < transposed.shape[0]:
        transposed[:-span] += (transposed[span:].reshape(-1, size) @ power).reshape(-1, size, size)
        power, span = power @ power, 2 * span
    return transposed.transpose(0, 2, 1)


def _powers(rate: np.ndarray, count: int) -> np.ndarray:
    """P[i] = R^i, i < count, by doubling: P[n:2n] = P[:n] Rⁿ (one matrix product)."""
    size = rate.shape[0]
    powers = np.empty((count, size, size))
    powers[0] = np.eye(size)
    done, power = 1, rate
    while done < count:
        more = min(done, count - done)
        products = powers[:more].reshape(-1, size) @ power
        powers[done : done + more] = products.reshape(-1, size, size)
        done, power = done + more, power @ power
    return powers


def _u_based(blocks: np.ndarray) -> np.ndarray:
    """Twenty steps of the U-based iteration R ← A_0 (I − Σ_{d≥1} R^{d−1} A_d)^{-1}
    from 0, monotone towards the minimal solution (Latouche and Ramaswami 1999, Ch. 8)."""
    size = blocks.shape[1]
    rate = np.zeros((size, size))
    for _ in range(20):
        rate = blocks[0] @ np.linalg.inv(np.eye(size) - _tails(blocks, rate)[1])
    return rate


def _newton(blocks: np.ndarray, rate: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""Newton's method for R = Σ R^d A_d from ``rate`` (at most 60 steps, until the
    residual is below 1e-15): the derivative E ↦ Σ_i R^i E W_{i+1} − E (W as in
    :func:`_tails`) is the matrix :math:`\sum_i W_{i+1}^T \otimes R^i - I` on
    column-stacked E (Latouche and Ramaswami 1999, Ch. 8).  Returns R and Σ R^d A_d
    at it."""
    size = blocks.shape[1]
    for _ in range(60):
        tails = _tails(blocks, rate)
        residual = tails[0] - rate
        if np.max(np.abs(residual)) < 1e-15:
            return rate, tails[0]
        powers = _powers(rate, blocks.shape[0] - 1)
        # Σ_i W_{i+1}^T ⊗ R^i: entry (a J + c, b J + d) is Σ_i W_{i+1}[b, a] R^i[c, d]
        derivative = np.einsum("iba,icd->acbd", tails[1:], powers).reshape(size**2, size**2)
        step = np.linalg.solve(derivative - np.eye(size**2), -residual.flatten(order="F"))
        rate = rate + step.reshape((size, size), order="F")
    return rate, _tails(blocks, rate)[0]


def gim1_rate(
    blocks: NDArray[np.float64], *, start: NDArray[np.float64] | None = None
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    r"""The minimal R of a discrete-time GI/M/1-type chain, R = Σ_d R^d A_d, by Newton's
    method, with Σ_d R^d A_d at it.

    Newton's method (:func:`_newton`) starts from ``start`` (the rate matrix of a nearby
    chain: a search over chains passes the last one's), or from twenty steps of the
    U-based iteration from 0 (:func:`_u_based`), also when Newton from ``start`` fails;
    the residual and the spectral radius are checked at the end (Neuts 1981, Sec. 1.6;
    Latouche and Ramaswami 1999, Ch. 8; the module's References).  A solution with
    spectral radius < 1 is the minimal one: its eigenvalues and left eigenvectors are the
    m roots of
    :math:`\det(zI - \sum_d z^d A_d) = 0` inside the unit disk and their null vectors
    (Gail, Hantler and Taylor, Adv. Appl. Probab. 28(1):114-165, 1996), wherever Newton
    started.  For many small blocks (m = 2, tens of blocks) it is much faster than
    :func:`gim1_solve`, which reblocks into a QBD of block size (K − 1)m.

    Parameters
    ----------
    blocks : numpy.ndarray, shape (K + 1, m, m)
        :math:`A_0, \dots, A_K` of a discrete-time chain (:math:`A_0` up one level,
        :math:`A_d` down d − 1 levels; the rows of their sum add to 1), positive
        recurrent.
    start : numpy.ndarray, shape (m, m), optional, keyword-only
        Where Newton's method starts.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        R and Σ_d R^d A_d (within :data:`RATE_RESIDUAL` of R).

    Raises
    ------
    ArithmeticError
        If the residual or sp(R) < 1 fails (near the stability boundary).

    Examples
    --------
    The D/M/1 queue seen at arrivals (μτ = 2), as in :func:`gim1_solve`: R is the GI/M/1
    root σ = e^{-2(1-σ)}:

    >>> import math
    >>> a = [math.exp(-2) * 2**k / math.factorial(k) for k in range(41)]
    >>> a[-1] += 1 - sum(a)
    >>> rate, _ = gim1_rate(np.array(a).reshape(-1, 1, 1))
    >>> round(float(rate[0, 0]), 10)
    0.20318787
    """
    if start is not None:
        try:
            return _checked_rate(*_newton(blocks, start))
        except (ArithmeticError, np.linalg.LinAlgError):
            pass  # too far from this chain's R: start from 0 instead
    return _checked_rate(*_newton(blocks, _u_based(blocks)))


def _checked_rate(rate: NDArray, total: NDArray) -> tuple[NDArray, NDArray]:
    """(``rate``, ``total``) if ``total`` = Σ R^d A_d is within 1e-12 of ``rate`` = R and
    R has spectral radius < 1, else an ArithmeticError."""
    with np.errstate(invalid="ignore"):
        residual = np.max(np.abs(total - rate))
    radius = np.max(np.abs(np.linalg.eigvals(rate))) if np.all(np.isfinite(rate)) else np.inf
    if not (residual < RATE_RESIDUAL and radius < 1):
        raise ArithmeticError(
            f"the matrix-geometric rate matrix did not converge (residual {residual:.3g}, "
            f"spectral radius {radius:.6g}): too near the stability boundary (a spectral "
            "radius near 1)"
        )
    return rate, total


@dataclass(frozen=True)
class QBDStationary:
    r"""The stationary law of a QBD with a boundary level 0: π_0, π_1 and
    π_n = π_1 R^{n-1} (n ≥ 1).

    Attributes
    ----------
    pi0 : numpy.ndarray, shape (m0,)
        Level 0.
    pi1 : numpy.ndarray, shape (m,)
        Level 1.
    R : numpy.ndarray, shape (m, m)
        The rate matrix.

    Examples
    --------
    >>> law = qbd_stationary(qbd_solve([[0.5]], [[-1.5]], [[1.0]]), [[-0.5]], [[0.5]], [[1.0]])
    >>> round(float(law.pi0[0]), 12), round(law.mean_level(), 12)  # 1 − ρ, ρ/(1 − ρ)
    (0.5, 1.0)
    """

    pi0: NDArray[np.float64]
    pi1: NDArray[np.float64]
    R: NDArray[np.float64]

    def level(self, n: int) -> NDArray[np.float64]:
        """π_n (n ≥ 0).

        Parameters
        ----------
        n : int
            The level.

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        >>> law = qbd_stationary(qbd_solve([[0.5]], [[-1.5]], [[1.0]]), [[-0.5]], [[0.5]], [[1.0]])
        >>> round(float(law.level(3)[0]), 12)  # (1 − ρ) ρ³
        0.0625
        """
        if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 0:
            raise ValueError(f"n must be an integer >= 0, got {n!r}")
        if n == 0:
            return self.pi0
        return self.pi1 @ np.linalg.matrix_power(self.R, int(n) - 1)

    def mean_level(self) -> float:
        """Σ n π_n 1 = π_1 (I − R)^{-2} 1.

        Returns
        -------
        float

        Examples
        --------
        >>> law = qbd_stationary(qbd_solve([[0.5]], [[-1.5]], [[1.0]]), [[-0.5]], [[0.5]], [[1.0]])
        >>> round(law.mean_level(), 12)
        1.0
        """
        m = self.R.shape[0]
        inverse = np.linalg.inv(np.eye(m) - self.R)
        return float(self.pi1 @ inverse @ inverse @ np.ones(m))


def qbd_stationary(
    solution: MatrixAnalyticSolution, B0: ArrayLike, B01: ArrayLike, B10: ArrayLike
) -> QBDStationary:
    r"""The stationary law of a continuous-time QBD whose level 0 has its own phases.

    Level 0 has generator block ``B0`` (m0 × m0), goes up by ``B01`` (m0 × m); level 1
    goes down by ``B10`` (m × m0), and levels ≥ 1 use the blocks of ``solution``
    (level 1 to 0 by ``B10`` instead of A2).  With π_{n+1} = π_n R for n ≥ 1:

    .. math:: \pi_1 = \pi_0 B_{01} N, \quad N = (-(A_1 + R A_2))^{-1}, \qquad
              \pi_0 (B_0 + B_{01} N B_{10}) = 0,

    the second a generator (the chain watched on level 0), solved by GTH; then
    π_0 1 + π_1 (I − R)^{-1} 1 = 1 normalises (Latouche and Ramaswami 1999, Thm. 6.2.1).

    Parameters
    ----------
    solution : MatrixAnalyticSolution
        From :func:`qbd_solve` (continuous time).
    B0, B01, B10 : array_like
        Boundary blocks, shapes (m0, m0), (m0, m), (m, m0).

    Returns
    -------
    QBDStationary

    Raises
    ------
    ValueError
        Shapes that do not fit, or ``solution`` without a G matrix.

    Examples
    --------
    M/M/1 (λ = 0.5, μ = 1): π_0 = 1/2.

    >>> law = qbd_stationary(qbd_solve([[0.5]], [[-1.5]], [[1.0]]), [[-0.5]], [[0.5]], [[1.0]])
    >>> round(float(law.pi0[0]), 12)
    0.5

    References
    ----------
    See the module's References: Latouche and Ramaswami (1999), Chapter 6.
    """
    if not isinstance(solution, MatrixAnalyticSolution) or solution.G is None:
        raise ValueError("solution must be a QBD MatrixAnalyticSolution (from qbd_solve)")
    R = solution.R
    m = R.shape[0]
    B0 = np.array(B0, dtype=float, ndmin=2)
    m0 = B0.shape[0]
    B01, B10 = np.array(B01, dtype=float, ndmin=2), np.array(B10, dtype=float, ndmin=2)
    for name, array, shape in (("B0", B0, (m0, m0)), ("B01", B01, (m0, m)), ("B10", B10, (m, m0))):
        if array.shape != shape:
            raise ValueError(f"{name} must have shape {shape}, got {array.shape}")
    N = np.linalg.inv(-solution.U)  # expected time at a level before dropping below
    censored = B0 + B01 @ N @ B10
    pi0 = stationary_ctmc(censored) if m0 > 1 else np.ones(1)
    pi1 = pi0 @ B01 @ N
    total = pi0.sum() + pi1 @ np.linalg.solve(np.eye(m) - R, np.ones(m))
    return QBDStationary(pi0=pi0 / total, pi1=pi1 / total, R=R)
