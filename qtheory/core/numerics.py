"""Small numerical kernels shared by the models.

- Accurate float64 evaluation of the two cancelling shapes that appear when a GI/M/1
  queue approaches its stability boundary, ``x - log(1 + x)`` and ``w - (1 - e^{-w})``,
  by their Taylor series for small arguments (Sympy's code generator has no primitive
  for them; the tests check both against mpmath).
- A bracketed root finder in mpmath whose answer is verified by a sign change across a
  relative ``10**-digits`` neighbourhood, so that no residual scale has to be trusted.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from math import factorial

import mpmath
import numpy as np
from numpy.typing import NDArray

__all__ = ["bracketed_root_mp", "expm", "expm_mp", "w_plus_expm1_neg", "x_minus_log1p"]

_SERIES_LOG = 0.25  # below: series of x - log1p(x); above: direct (loses < 2e-15 rel.)
_LOG_TERMS = np.array([(-1.0) ** k / k for k in range(2, 32)])  # x^2/2 - x^3/3 + ...
_SERIES_EXP = 1.0
_EXP_TERMS = np.array([(-1.0) ** k / factorial(k) for k in range(2, 24)])  # w^2/2 - w^3/6 ...


def _power_series(x: np.ndarray, coefficients: np.ndarray) -> np.ndarray:
    """sum_k coefficients[k] * x^(k+2), by Horner's rule."""
    total = np.zeros_like(x)
    for c in coefficients[::-1]:
        total = total * x + c
    return total * x * x


def x_minus_log1p(x) -> np.ndarray:
    """``x - log(1 + x)`` for x ≥ 0 with full relative accuracy, also for tiny x.

    Below a cut-off the Taylor series x²/2 − x³/3 + x⁴/4 − … is summed by Horner's rule
    (the direct difference would cancel); above it, ``x - log1p(x)``.

    Parameters
    ----------
    x : float or array_like
        Arguments x ≥ 0.

    Returns
    -------
    float or numpy.ndarray
        x − log(1 + x), elementwise.

    Examples
    --------
    >>> f"{float(x_minus_log1p(1e-10)):.12g}"  # x^2/2 - x^3/3 + ...: 4.99999999966666...e-21
    '4.99999999967e-21'
    """
    x = np.asarray(x, dtype=float)
    small = x < _SERIES_LOG
    return np.where(small, _power_series(np.where(small, x, 0.0), _LOG_TERMS), x - np.log1p(x))[()]


def w_plus_expm1_neg(w) -> np.ndarray:
    """``w - (1 - e^{-w}) = w + expm1(-w)`` for w ≥ 0 with full relative accuracy.

    Below a cut-off the series w²/2 − w³/6 + w⁴/24 − … is summed by Horner's rule;
    above it, ``w + expm1(-w)``.

    Parameters
    ----------
    w : float or array_like
        Arguments w ≥ 0.

    Returns
    -------
    float or numpy.ndarray
        w − (1 − e^{−w}), elementwise.

    Examples
    --------
    >>> f"{float(w_plus_expm1_neg(1e-10)):.12g}"  # w^2/2 - w^3/6 + ...: 4.99999999983333...e-21
    '4.99999999983e-21'
    """
    w = np.asarray(w, dtype=float)
    small = w < _SERIES_EXP
    return np.where(small, _power_series(np.where(small, w, 0.0), _EXP_TERMS), w + np.expm1(-w))[()]


#: Steps allowed to a superlinear bracketing solver before the next one is tried: they
#: converge in tens of steps or crawl (Anderson-Bjork took 4385 steps at 2216 bits for
#: a root near w = 690), and bisection, which always converges, comes last.
_FAST_STEPS = 100


def bracketed_root_mp(f: Callable[[mpmath.mpf], mpmath.mpf], lo, hi, digits: int) -> mpmath.mpf:
    """A root of ``f`` in [lo, hi], where ``f(lo) > 0 > f(hi)`` or ``f(lo) < 0 < f(hi)``,
    verified to change sign across ``x (1 ± 10**-digits)``.

    A bracket ``0 < lo < hi`` wider than a factor 2 is first narrowed by geometric
    bisection (one step per halving of ``log(hi/lo)``: the superlinear solvers crawl on
    a bracket like [1e-300, 1] with the root at 1e-150); then fast bracketing solvers
    (Anderson–Björk, Illinois, :data:`_FAST_STEPS` steps each), bisection (which always
    converges) last; evaluate at a working precision above ``digits``.

    Parameters
    ----------
    f : callable
        mpf -> mpf, continuous on [lo, hi] with a sign change there.
    lo, hi : number
        The bracket, lo < hi.
    digits : int
        Relative accuracy 10^-digits of the verified root.

    Returns
    -------
    mpmath.mpf
        x with f(x(1 − 10^-digits)) and f(x(1 + 10^-digits)) of opposite signs.

    Raises
    ------
    ArithmeticError
        If no solver's root can be verified at the current precision.

    Examples
    --------
    >>> with mpmath.workdps(40):
    ...     r = bracketed_root_mp(lambda x: x * x - 2, 1, 2, digits=30)
    >>> mpmath.nstr(r, 30)
    '1.41421356237309504880168872421'
    """
    lo, hi = mpmath.mpf(lo), mpmath.mpf(hi)
    sign = 1 if f(lo) > 0 else -1
    while 0 < lo and 2 * lo < hi:  # a bracket over many orders of magnitude: bisect
        middle = mpmath.sqrt(lo * hi)  # geometrically down to a factor 2 first
        if sign * f(middle) > 0:
            lo = middle
        else:
            hi = middle
    delta = mpmath.mpf(10) ** (-digits)
    for solver, steps in (("anderson", _FAST_STEPS), ("illinois", _FAST_STEPS),
                          ("bisect", 4 * mpmath.mp.prec)):  # fmt: skip
        x = mpmath.findroot(f, (lo, hi), solver=solver, verify=False, maxsteps=steps)
        if sign * f(x * (1 - delta)) > 0 > sign * f(x * (1 + delta)):
            return x
    raise ArithmeticError("bracketed root: could not verify the root; raise the precision")


#: Padé(13) coefficients of the scaling-and-squaring matrix exponential (Higham 2005).
_PADE13 = (
    64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
    129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
    40840800.0, 960960.0, 16380.0, 182.0, 1.0,
)  # fmt: skip
_THETA13 = 5.371920351148152


def expm(A: NDArray[np.float64]) -> NDArray[np.float64]:
    """e^A by scaling and squaring with the [13/13] Padé approximant, in NumPy.

    The matrices of the phase-type routes are tiny, and SciPy's ``expm`` calls LAPACK
    routines whose thread start-up costs milliseconds on a loaded machine.  The norm is
    scaled below θ₁₃ = 5.37 by squarings, as in Higham's algorithm [1]_.

    Parameters
    ----------
    A : numpy.ndarray
        A square float64 matrix.

    Returns
    -------
    numpy.ndarray
        e^A.

    References
    ----------
    .. [1] N. J. Higham, "The scaling and squaring method for the matrix exponential
       revisited", SIAM J. Matrix Anal. Appl. 26(4):1179-1193 (2005).

    Examples
    --------
    >>> np.round(expm(np.array([[0.0, 1.0], [0.0, 0.0]])), 12)  # e^N = I + N, N² = 0
    array([[1., 1.],
           [0., 1.]])
    >>> round(float(expm(np.array([[-1.0]]))[0, 0]), 12)  # e^-1
    0.367879441171
    """
    norm = np.abs(A).sum(axis=0).max()
    squarings = max(0, math.ceil(math.log2(norm / _THETA13))) if norm > _THETA13 else 0
    A = A / 2.0**squarings
    b, eye = _PADE13, np.eye(A.shape[0])
    A2 = A @ A
    A4 = A2 @ A2
    A6 = A4 @ A2
    U = A @ (
        A6 @ (b[13] * A6 + b[11] * A4 + b[9] * A2) + b[7] * A6 + b[5] * A4 + b[3] * A2 + b[1] * eye
    )
    V = A6 @ (b[12] * A6 + b[10] * A4 + b[8] * A2) + b[6] * A6 + b[4] * A4 + b[2] * A2 + b[0] * eye
    E = np.linalg.solve(V - U, V + U)
    for _ in range(squarings):
        E = E @ E
    return E


#: Guard bits of :func:`expm_mp`'s Arb computation.
_EXPM_GUARD_BITS = 32


def _arb(value):
    """An mpmath number as an exact Arb ball (``man_exp`` drops the sign)."""
    import flint

    x = mpmath.mpf(value)
    man, exp = x.man_exp
    return flint.arb(flint.arf((-man if x < 0 else man, exp)))


def expm_mp(A: mpmath.matrix) -> mpmath.matrix:
    r"""e^A at mpmath's working precision, through Arb's ``arb_mat.exp``.

    The entries of ``A`` (mpmath numbers, binary) go into Arb exactly; Arb encloses e^A
    with :data:`_EXPM_GUARD_BITS` guard bits (Taylor series with scaling and squaring,
    rigorous error bounds), and each entry is its enclosure's midpoint rounded to the
    working precision.  Where an enclosure's radius exceeds ``2^-prec`` times the
    largest entry (an ill-conditioned exponential) this falls back to ``mpmath.expm``.
    Arb is about 60 times faster than ``mpmath.expm`` on the 3 × 3 matrices of the
    phase-type arrival laws at 30 digits, which the renewal-arrival optima evaluate
    thousands of times.  The result agrees with ``mpmath.expm`` to the working
    precision (both are accurate to it, norm-wise), not bit for bit.

    Parameters
    ----------
    A : mpmath.matrix
        A square matrix.

    Returns
    -------
    mpmath.matrix
        e^A.

    Raises
    ------
    ValueError
        If an entry of ``A`` is not finite (Arb would read it as 0, and mpmath.expm
        does not end on a NaN).

    References
    ----------
    .. [1] F. Johansson, "Arb: efficient arbitrary-precision midpoint-radius interval
       arithmetic", IEEE Trans. Computers 66(8):1281-1292 (2017).

    Examples
    --------
    >>> with mpmath.workdps(30):
    ...     E = expm_mp(mpmath.matrix([[0, 1], [-1, 0]]))  # a rotation by 1 radian
    ...     print(mpmath.nstr(E[0, 0] - mpmath.cos(1), 3), mpmath.nstr(E[0, 1], 25))
    0.0 0.8414709848078965066525023
    """
    import flint  # Arb: loaded with the first call

    n, prec = A.rows, mpmath.mp.prec
    if not all(mpmath.isfinite(A[i, j]) for i in range(n) for j in range(n)):
        raise ValueError("A: every entry must be finite (mpmath.expm loops on a NaN)")
    saved = flint.ctx.prec
    try:
        flint.ctx.prec = prec + _EXPM_GUARD_BITS
        entries = [[_arb(A[i, j]) for j in range(n)] for i in range(n)]
        balls = flint.arb_mat(entries).exp()
    finally:
        flint.ctx.prec = saved

    def number(value) -> mpmath.mpf:  # an arf (exact) rounded to the working precision
        man, exp = value.man_exp()
        return mpmath.mpf((int(man), int(exp)))

    E = mpmath.matrix(n, n)
    for i in range(n):
        for j in range(n):
            E[i, j] = number(balls[i, j].mid())
    scale = max(abs(E[i, j]) for i in range(n) for j in range(n))
    widest = max(number(balls[i, j].rad()) for i in range(n) for j in range(n))
    if widest > scale * mpmath.ldexp(1, -prec):
        return mpmath.expm(A)
    return E
