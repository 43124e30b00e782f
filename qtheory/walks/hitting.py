r"""Mean hitting times of the idle process and of the walks that bound it.

Source: J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
overloaded loss network" (arXiv:2601.14538): the PFI argument needs the time for the
reject-all-L idle count to climb to :math:`b = \lfloor\sqrt N\rfloor` (order
:math:`\sqrt N / N`) and the time for it to fall to 0.  Both are given in *events*
(steps of the embedded jump chain, i.e. changes of the idle count; an H job lost at
:math:`I = 0` is not an event) and in real time.

Birth–death chain (exact).  With rates :math:`u_j` (:math:`j \to j+1`), :math:`d_j`
(:math:`j \to j-1`) and stationary weights
:math:`\pi_k = \prod_{m<k} u_m / d_{m+1}`, first-step analysis gives the mean time
:math:`\tau_j` to go from :math:`j` to :math:`j + 1` (the chain cannot go below 0) and
:math:`D_j` to go from :math:`j` to :math:`j - 1` (nor above :math:`n`):

.. math:: \tau_j = \frac{1 + d_j \tau_{j-1}}{u_j} = \frac{\sum_{k \le j}\pi_k}{u_j \pi_j},
          \qquad
          D_j = \frac{1 + u_j D_{j+1}}{d_j} = \frac{\sum_{k \ge j}\pi_k}{d_j \pi_j},

so :math:`E_i[T_b] = \sum_{j=i}^{b-1}\tau_j` and :math:`E_i[T_0] = \sum_{j=1}^{i} D_j`
(:func:`climb_means`, :func:`descent_means`).  Expected numbers of events are the same
sums for the jump chain, i.e. with the rates replaced by the jump probabilities
:math:`p(j) = u_j/(u_j + d_j)`, :math:`q(j) = 1 - p(j)` (unit mean holding times).
Float64 evaluates the closed-form sums with :math:`\log\pi` from
:func:`~qtheory.exact.birth_death_log_weights` and :func:`~qtheory.walks.ruin.log_cumsum_exp`
(nothing overflows for :math:`N = 10^7`); ``dps=`` runs the recurrences in mpmath, a
second route.

Simple walk reflected at 0.  With up-probability :math:`p < 1` on :math:`1..b-1` and
:math:`p(0) = 1`, the expected number of steps from :math:`i` to :math:`b` solves
:math:`m_i = 1 + p\,m_{i+1} + q\,m_{i-1}`, :math:`m_b = 0`, :math:`m_0 = 1 + m_1`;
Sympy's ``rsolve`` gives (:func:`derive_walk_climb`), with :math:`r = q/p`,

.. math:: m_i = (b - i)\frac{1 + r}{1 - r} - \frac{2r(r^i - r^b)}{(1 - r)^2}
          \quad (p \ne \tfrac12), \qquad m_i = b^2 - i^2 \quad (p = \tfrac12).

Float64 evaluates it as
:math:`(b-i) + 2e^\theta[e^{i\theta}\operatorname{expm1}((b-i)\theta)
- (b-i)\operatorname{expm1}\theta]/\operatorname{expm1}(\theta)^2` with
:math:`\theta = \log r` (:data:`~qtheory.walks.ruin.WALK_LOG_ODDS`).  The bracket cancels
when :math:`b|\theta| \ll 1` (relative error about :math:`u/(b|\theta|)`,
:math:`u = 2^{-53}`), so where :math:`b|\theta| < 0.05` Sympy's Taylor polynomial of
degree 6 in :math:`\theta` (coefficients factored, truncation error below
:math:`10^{-15}`) is used instead.  Measured against 120-digit mpmath for :math:`p` from
0.01 to 0.999 (including :math:`\frac12 \pm 10^{-15}`) and :math:`b` up to :math:`10^9`:
relative error at most :math:`4 \times 10^{-14}`.  Means beyond :math:`10^{308}`
(:math:`p < \frac12`, large :math:`b`) are inf.  The mpmath evaluator uses the expm1
form with :math:`\log_{10}(1/(b|\theta|))` extra guard digits.

Bound direction.  The coupling of :mod:`qtheory.walks.ruin` (common uniforms, same
start) with :math:`p(0) = 1` for chain and walks alike and
:math:`p_b \le p(j) \le p_\infty` on :math:`1 \le j \le b-1` keeps the walk with
:math:`p_b` below the chain and the walk with :math:`p_\infty` above it until the chain
reaches :math:`b`, so the numbers of steps :math:`K` to reach :math:`b` satisfy
:math:`K^{p_\infty} \le K^{\text{chain}} \le K^{p_b}` path by path, hence in mean.
Real time (a Wald-type identity): given the jump chain :math:`J`, the holding times are
independent :math:`\mathrm{Exp}(q(J_k))` with :math:`q(j) = u_j + d_j`, so
:math:`E[T_b] = E[\sum_{k<K} 1/q(J_k)]`; every :math:`J_k`, :math:`k < K`, lies in
:math:`0..b-1`, so

.. math:: \frac{E[K^{p_\infty}]}{\max_{j<b} q(j)} \le \frac{E[K]}{\max_{j<b} q(j)}
          \le E[T_b] \le \frac{E[K]}{\min_{j<b} q(j)} \le \frac{E[K^{p_b}]}{\min_{j<b} q(j)}.

Order.  For :math:`b \to \infty` with :math:`b = o(N)`, Sympy's limit of the walk with
:math:`p_\infty` over the event rate :math:`(\mu + \lambda_H)N` near 0 gives the leading
term :math:`b / (N(\mu - \lambda_H))` (:func:`climb_time_leading_term`): the time to
reach :math:`\lfloor\sqrt N\rfloor` is :math:`\Theta(\sqrt N / N)`.  For
:math:`\lambda_H = 0.6`, :math:`\mu = 1` the exact :math:`E_1[T_b]` is 0.900, 0.974,
0.9932 and 0.99935 times the leading term at :math:`N = 10^2, 10^3, 10^4, 10^6`
(:math:`1 - \text{ratio} \approx 0.65..1.0/\sqrt N`).

Descent to 0.  The chain is positive recurrent on :math:`0..N`, so
:math:`E_i[T_0] < \infty`; from :math:`i` it takes at least :math:`i` events and at
least :math:`i` H arrivals, whose epoch has mean :math:`i/(\lambda_H N)`: these are the
lower bounds.  Exactly, :math:`E_1[T_0] = (1 - B)/(\mu N B)` with :math:`B` Erlang's
loss probability at offered load :math:`\lambda_H N / \mu` (Kac's formula), so by
Stirling :math:`\log E_1[T_0] = N(\rho - 1 - \log\rho) + O(\log N)` with
:math:`\rho = \lambda_H/\mu`: the lower bounds are far from tight (ratio below
:math:`10^{-48\,000}` at :math:`N = 10^6`, :math:`\rho = 0.6`), and from
:math:`N \approx 6400` on (:math:`\rho = 0.6`) the mean is beyond float64 (use
``log=True``).

>>> from qtheory.walks.idle import IdleWalk
>>> walk = IdleWalk(10**4, 0.6, 1.0)
>>> time = climb_means(walk.up_rates(), walk.down_rates(), walk.band)
>>> print(f"{time[1]:.6f} vs leading term {climb_time_leading_term(walk):.6f}")
0.024830 vs leading term 0.025000

References
----------
.. [1] W. Feller, An Introduction to Probability Theory and Its Applications, Vol. I, 3rd
   ed. (Wiley 1968).
.. [2] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the overloaded
   loss network", arXiv:2601.14538 (2026).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache

import mpmath
import numpy as np
import sympy as sp
from numpy.typing import ArrayLike, NDArray

from qtheory.core.precision import GUARD_DIGITS, check_dps, rounded, working
from qtheory.core.symbolic import Formula
from qtheory.exact.birth_death import birth_death_log_weights
from qtheory.model.lossnet_symbols import lambda_h, mu, servers
from qtheory.walks.bounds import BoundCheck
from qtheory.walks.idle import IdleWalk, band_level, check_walk
from qtheory.walks.idle import level as idle_level
from qtheory.walks.ruin import (
    WALK_LOG_ODDS,
    check_band,
    check_levels,
    check_rates,
    in_form,
    log_cumsum_exp,
    log_odds,
    loop_guard,
    mp_rates,
    odds,
    solve_recurrence,
    up_probability,
    walk_arguments,
    walk_mp,
)

__all__ = [
    "WalkClimb",
    "climb_means",
    "climb_time_leading_term",
    "derive_walk_climb",
    "descent_means",
    "hitting_checks",
    "jump_chain",
    "walk_climb_steps",
]

UNITS = ("time", "steps")
_SERIES_ORDER = 7  # Taylor terms theta^0..theta^6 of the walk's climbing steps near p = 1/2
_SERIES_BELOW = 0.05  # ... used where |b theta| < 0.05: truncation below 1e-15 (relative)


# ---------------------------------------------------------------------------
# derivation


@dataclass(frozen=True)
class WalkClimb:
    """Mean climbing time of the reflected walk, derived by :func:`derive_walk_climb`.

    Attributes
    ----------
    recurrence, boundary : sympy.Eq
        m(i) = 1 + p m(i+1) + (1 − p) m(i−1); m(b) = 0, m(0) = 1 + m(1).
    general, solution : sympy.Expr
        rsolve's general solution and the fitted one in r = q/p.
    fair, steps, near_fair, leading_time : Formula
        b² − i² at p = 1/2; the expm1 form in (theta, i, b); its Taylor polynomial
        near theta = 0; b/(N(mu − lambda_H)).

    References
    ----------
    See the module's References: Feller (1968), Ch. XIV (duration of the game; birth-death
    first passage).

    Examples
    --------
    >>> derive_walk_climb().fair.expr
    b**2 - i**2
    """

    recurrence: sp.Eq  # m(i) = 1 + p m(i+1) + (1-p) m(i-1)
    boundary: tuple[sp.Eq, sp.Eq]  # m(b) = 0, m(0) = 1 + m(1)
    general: sp.Expr  # rsolve's general solution
    solution: sp.Expr  # in r = q/p
    fair: Formula  # b^2 - i^2 at p = 1/2, in (i, b)
    steps: Formula  # the expm1 form, in (theta, i, b) with theta = log r
    near_fair: Formula  # its Taylor polynomial in theta (degree 6), for |b theta| < 0.05
    leading_time: Formula  # b/(N(mu - lambda_H)), in (N, lambda_H, mu, b)


def _climb_boundary(solution: sp.Expr) -> list[sp.Expr]:
    i, b = idle_level, band_level
    return [solution.subs(i, b), solution.subs(i, 0) - 1 - solution.subs(i, 1)]


def _leading_time(solution: sp.Expr) -> sp.Expr:
    r"""Sympy: steps / b of the walk with :math:`r = \lambda_H/\mu` as :math:`b \to \infty`,
    divided by the event rate per server near level 0, times :math:`b`."""
    x = sp.Symbol("x", positive=True)  # r = e^{-x} < 1
    per_level = sp.limit(solution.subs(odds, sp.exp(-x)) / band_level, band_level, sp.oo)
    per_level = per_level.subs(x, sp.log(mu / lambda_h))
    rate = sp.limit(
        (mu * (servers - sp.sqrt(servers)) + lambda_h * servers) / servers, servers, sp.oo
    )
    return sp.simplify(band_level * per_level / (servers * rate))


@cache
def derive_walk_climb() -> WalkClimb:
    r"""Solve the climbing recurrence with Sympy (cached; a few seconds).

    The mean number of steps :math:`m(i)` of the :math:`\pm 1` walk with up-probability
    :math:`p`, reflected at 0, to climb from :math:`i` to :math:`b` solves
    :math:`m(i) = 1 + p\,m(i+1) + (1-p)\,m(i-1)` with :math:`m(b) = 0` and
    :math:`m(0) = 1 + m(1)`.  With :math:`r = (1-p)/p \ne 1`,

    .. math:: m(i) = (b - i)\frac{1 + r}{1 - r} - \frac{2r\,(r^i - r^b)}{(1 - r)^2},

    and :math:`m(i) = b^2 - i^2` at :math:`p = 1/2`.  ``steps`` is the same in
    :math:`\theta = \log r` written with ``expm1``-friendly brackets, ``near_fair`` its
    Taylor polynomial for :math:`|b\theta|` small, and ``leading_time`` the
    :math:`b \to \infty` time :math:`b/(N(\mu - \lambda_H))` of the idle walk with
    :math:`r = \lambda_H/\mu`.

    Returns
    -------
    WalkClimb
        The recurrence, its boundary conditions, Sympy's general and fitted solutions and
        the Formulas evaluated by :func:`walk_climb_steps` and
        :func:`climb_time_leading_term`.

    Raises
    ------
    ArithmeticError
        If a Sympy result does not simplify to its expected display form
        (:func:`~qtheory.walks.ruin.in_form`).

    References
    ----------
    See the module's References:

    - Feller (1968), Ch. XIV (duration of the game);
    - Bray (2026), "Analytical Tools".

    Examples
    --------
    >>> derive_walk_climb().fair.expr
    b**2 - i**2
    >>> derive_walk_climb().leading_time.expr
    b/(N*(-lambda_H + mu))

    At :math:`r = 1/2` (:math:`p = 2/3`) and :math:`b = 2`: :math:`m(0) = 1 + m(1)` and
    :math:`m(1) = 1 + m(0)/3`, so :math:`m(0) = 3`:

    >>> round(float(derive_walk_climb().steps.float64(math.log(0.5), 0.0, 2.0)), 6)
    3.0
    """
    p, i, b, r, t = up_probability, idle_level, band_level, odds, log_odds
    m = sp.Function("m")
    recurrence = sp.Eq(m(i), 1 + p * m(i + 1) + (1 - p) * m(i - 1))
    general, fitted = solve_recurrence(recurrence, m, _climb_boundary)
    display = (b - i) * (1 + r) / (1 - r) - 2 * r * (r**i - r**b) / (1 - r) ** 2
    solution = in_form(fitted.subs(p, 1 / (1 + r)), display)
    fair_recurrence = recurrence.subs(p, sp.Rational(1, 2))
    fair = in_form(solve_recurrence(fair_recurrence, m, _climb_boundary)[1], b**2 - i**2)
    a = b - i
    bracket = sp.exp(i * t) * (sp.exp(a * t) - 1) - a * (sp.exp(t) - 1)
    stable = a + 2 * sp.exp(t) * bracket / (sp.exp(t) - 1) ** 2
    taylor = sp.series(solution.subs(r, sp.exp(t)), t, 0, _SERIES_ORDER).removeO()
    near_fair = sp.collect(sp.expand(taylor), t, sp.factor)  # keeps the factor b - i exact
    leading = in_form(_leading_time(solution), b / (servers * (mu - lambda_h)))
    return WalkClimb(
        recurrence=recurrence,
        boundary=(sp.Eq(m(b), 0), sp.Eq(m(0), 1 + m(1))),
        general=general,
        solution=solution,
        fair=Formula("walk_climb_fair", fair, (i, b)),
        steps=Formula("walk_climb_steps", stable, (t, i, b)),
        near_fair=Formula("walk_climb_steps_near_fair", near_fair, (t, i, b)),
        leading_time=Formula("climb_time_leading", leading, (servers, lambda_h, mu, b)),
    )


# ---------------------------------------------------------------------------
# simple walk


def walk_climb_steps(p: ArrayLike, level: ArrayLike, band: ArrayLike, *, dps=None):
    r"""Expected steps of the walk reflected at 0 to climb from ``level`` to ``band``.

    Parameters
    ----------
    p : float or array_like
        Up-probability on :math:`1..b-1`, :math:`0 < p < 1` (:math:`p(0) = 1`).
    level, band : int or array_like
        Integers :math:`0 \le i \le b`, :math:`b \ge 1`; the three broadcast.
    dps : int, optional
        Compute in mpmath to ``dps`` digits (scalars only), with extra guard digits
        for the cancellation at :math:`(b - i)|\theta| \ll 1`.

    Returns
    -------
    numpy.ndarray or float or mpmath.mpf
        The expected number of steps (inf beyond the float64 range).

    Raises
    ------
    ValueError
        If ``p``, ``level`` or ``band`` break their rules, or ``dps`` is invalid.

    References
    ----------
    See the module's References: Feller (1968), Ch. XIV (duration of the game; birth-death
    first passage).

    Examples
    --------
    >>> round(float(walk_climb_steps(0.5, 0, 10)), 9), round(float(walk_climb_steps(0.75, 0, 1)), 9)
    (100.0, 1.0)
    >>> round(float(walk_climb_steps(2 / 3, 1, 3)), 9)  # steps 1 -> 2 -> 3: 2 + 5/2
    4.5
    """
    dps = check_dps(dps)
    p, level, band = walk_arguments(p, level, band)
    formulas = derive_walk_climb()
    if dps is not None:
        return walk_mp(formulas.steps, (p, level, band), dps, formulas.fair, _guard(p, band))
    theta = WALK_LOG_ODDS.float64(p)
    near = np.abs(band * theta) < _SERIES_BELOW
    with np.errstate(over="ignore", invalid="ignore"):  # r^b > 1e308: inf (nan at level = band)
        far = formulas.steps.float64(np.where(near, 1.0, theta), level, band)
    series = formulas.near_fair.float64(np.where(near, theta, 0.0), level, band)
    return np.where(level == band, 0.0, np.where(near, series, far))[()]


def _guard(p: NDArray, band: NDArray) -> int:
    """Guard digits for mpmath: the usual ones plus log10(1/(b|theta|)) lost to
    cancellation."""
    if np.ndim(p) or p == 0.5:
        return GUARD_DIGITS
    scale = abs(float(WALK_LOG_ODDS.float64(p))) * float(band)
    return GUARD_DIGITS + max(0, math.ceil(-math.log10(scale)))


def climb_time_leading_term(walk: IdleWalk, band: int | None = None) -> float:
    r"""The leading term :math:`b / (N(\mu - \lambda_H))` of the climbing time to ``band``.

    Parameters
    ----------
    walk : IdleWalk
        The idle process.
    band : int, optional
        b, in 1..N (default :math:`\lfloor\sqrt N\rfloor`).

    Returns
    -------
    float
        The leading term (Sympy's limit, see :func:`derive_walk_climb`).

    Raises
    ------
    TypeError
        If ``walk`` is not an IdleWalk.
    ValueError
        If ``band`` is out of range.

    References
    ----------
    See the module's References: Bray (2026); docs/loss-network.md.

    Examples
    --------
    >>> round(climb_time_leading_term(IdleWalk(10**6, 0.6, 1.0)), 12)  # 1000 / (10^6 * 0.4)
    0.0025
    """
    walk = check_walk(walk)
    band = check_band(walk.band if band is None else band, walk.servers)
    formula = derive_walk_climb().leading_time
    return float(formula.float64(walk.servers, walk.lambda_h, walk.mu, band))


# ---------------------------------------------------------------------------
# birth-death chain


def jump_chain(up: ArrayLike, down: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Jump probabilities ``(p, q)`` of a birth–death chain, level by level.

    Parameters
    ----------
    up, down : array_like
        Level-indexed rates (:func:`~qtheory.walks.ruin.check_rates`).

    Returns
    -------
    tuple of numpy.ndarray
        p = up / (up + down) and q = down / (up + down).

    Raises
    ------
    ValueError
        If the rates break :func:`~qtheory.walks.ruin.check_rates`.

    References
    ----------
    .. [1] S. Asmussen, Applied Probability and Queues, 2nd ed. (Springer 2003), Ch. II
       (the embedded jump chain of a Markov jump process).

    Examples
    --------
    >>> jump_chain([2.0, 1.0, 0.0], [0.0, 3.0, 1.0])
    (array([1.  , 0.25, 0.  ]), array([0.  , 0.75, 1.  ]))
    """
    return _jump(*check_rates(up, down))


def _jump(up, down):
    """(p, q) from validated rates: NumPy arrays, or lists of mpf."""
    if isinstance(up, np.ndarray):
        total = up + down
        return up / total, down / total
    totals = [a + c for a, c in zip(up, down, strict=True)]
    return (
        [a / t for a, t in zip(up, totals, strict=True)],
        [c / t for c, t in zip(down, totals, strict=True)],
    )


def _log_climb(up: NDArray[np.float64], down: NDArray[np.float64], band: int) -> NDArray:
    """log E_i[T_band], i = 0..band, from the closed-form sums (float64)."""
    log_pi = birth_death_log_weights(up[: band - 1], down[1:band])  # levels 0..b-1
    log_step = log_cumsum_exp(log_pi) - log_pi - np.log(up[:band])  # log tau_j
    log_mean = np.full(band + 1, -math.inf)
    log_mean[:band] = log_cumsum_exp(log_step[::-1])[::-1]
    return log_mean


def _log_descent(up: NDArray[np.float64], down: NDArray[np.float64]) -> NDArray:
    """log E_i[T_0], i = 0..n, from the closed-form sums (float64)."""
    log_pi = birth_death_log_weights(up[:-1], down[1:])  # levels 0..n
    log_tail = log_cumsum_exp(log_pi[::-1])[::-1]
    log_step = log_tail[1:] - log_pi[1:] - np.log(down[1:])  # log D_j, j = 1..n
    return np.r_[-math.inf, log_cumsum_exp(log_step)]


def _climb_mp(u: list, d: list, band: int) -> list:
    """E_i[T_band], i = 0..band, by the recurrence tau_j = (1 + d_j tau_{j-1}) / u_j."""
    step = mpmath.mpf(0)
    means = [mpmath.mpf(0)] * (band + 1)
    for j in range(band):
        step = (1 + d[j] * step) / u[j]  # d[0] = 0
        means[j] = step
    for j in range(band - 1, -1, -1):
        means[j] += means[j + 1]
    return means


def _descent_mp(u: list, d: list) -> list:
    """E_i[T_0], i = 0..n, by the recurrence D_j = (1 + u_j D_{j+1}) / d_j."""
    top = len(u) - 1
    step = mpmath.mpf(0)
    means = [mpmath.mpf(0)] * (top + 1)
    for j in range(top, 0, -1):
        step = (1 + u[j] * step) / d[j]  # u[top] = 0
        means[j] = step
    for j in range(1, top + 1):
        means[j] += means[j - 1]
    return means


def _means(
    up: NDArray[np.float64],
    down: NDArray[np.float64],
    unit: str,
    log: bool,
    dps: int | None,
    float_route: Callable[[NDArray, NDArray], NDArray],
    mp_route: Callable[[list, list], list],
):
    """Shared driver: switch to the jump chain for ``unit="steps"`` and run the float64
    route (logs of the closed-form sums) or the mpmath route (recurrences)."""
    if not isinstance(unit, str) or unit not in UNITS:
        raise ValueError(f"unit must be one of {UNITS}, got {unit!r}")
    if not isinstance(log, bool):
        raise TypeError(f"log must be True or False, got {log!r}")
    if dps is None:
        if unit == "steps":
            up, down = _jump(up, down)
        log_mean = float_route(up, down)
        if log:
            return log_mean
        with np.errstate(over="ignore"):  # a mean beyond 1e308 is inf; log=True keeps it
            return np.exp(log_mean)
    with working(dps, loop_guard(dps, up.size)):
        u, d = mp_rates(up), mp_rates(down)
        if unit == "steps":
            u, d = _jump(u, d)
        means = mp_route(u, d)
        if log:
            means = [mpmath.log(x) if x else mpmath.ninf for x in means]
    return rounded(means, dps)


def climb_means(
    up: ArrayLike,
    down: ArrayLike,
    band: int,
    *,
    unit: str = "time",
    log: bool = False,
    dps: int | None = None,
):
    r"""Exact mean time (or number of events) for a birth–death chain to reach ``band``.

    Parameters
    ----------
    up, down : array_like, shape (n + 1,)
        Level-indexed rates (see :func:`~qtheory.walks.ruin.check_rates`); only levels
        :math:`0..b-1` matter.  Level 0 only moves up (reflection).
    band : int
        Target level :math:`b`, :math:`1 \le b \le n`.
    unit : {"time", "steps"}
        Real time, or the number of jump-chain steps.
    log : bool, optional
        Return natural logarithms (for means beyond the float64 range).
    dps : int, optional
        Compute in mpmath to ``dps`` digits (the recurrence for :math:`\tau_j`),
        returning a list of mpf.

    Returns
    -------
    numpy.ndarray, shape (b + 1,), or list of mpmath.mpf
        :math:`E_i[T_b]` for :math:`i = 0..b` (0 at :math:`b`).  Float64: relative error
        about :math:`u(b + \max_j |\log \pi_j| + |\log E_i[T_b]|)`.

    Raises
    ------
    ValueError
        If the rates break :func:`~qtheory.walks.ruin.check_rates`, ``band`` or
        ``unit`` is invalid, or ``dps`` is invalid.

    References
    ----------
    See the module's References: Feller (1968), Ch. XIV (duration of the game; birth-death
    first passage).

    Examples
    --------
    Up-rate 2 and down-rate 1 on 0..3: :math:`\tau_0 = 1/2`, :math:`\tau_1 = 3/4`,
    :math:`\tau_2 = 7/8`.

    >>> up, down = [2.0, 2.0, 2.0, 0.0], [0.0, 1.0, 1.0, 1.0]
    >>> climb_means(up, down, 3) * 8
    array([17., 13.,  7.,  0.])
    >>> climb_means(up, down, 3, unit="steps")  # the walk with p = 2/3: 1 + 2 + 5/2
    array([5.5, 4.5, 2.5, 0. ])
    """
    dps = check_dps(dps)
    up, down = check_rates(up, down)
    band = check_band(band, up.size - 1)
    return _means(
        up[: band + 1],  # levels above b play no part
        down[: band + 1],
        unit,
        log,
        dps,
        lambda u, d: _log_climb(u, d, band),
        lambda u, d: _climb_mp(u, d, band),
    )


def descent_means(
    up: ArrayLike,
    down: ArrayLike,
    *,
    unit: str = "time",
    log: bool = False,
    dps: int | None = None,
):
    r"""Exact mean time (or number of events) for a birth–death chain to reach 0.

    With :math:`\pi` the weights of the birth–death chain, the mean time to step down
    from :math:`j` to :math:`j - 1` is :math:`D_j = \sum_{k \ge j} \pi_k/(\pi_j\,
    \mathrm{down}_j)` and :math:`E_i[T_0] = \sum_{j=1}^{i} D_j`.

    Parameters
    ----------
    up, down : array_like, shape (n + 1,)
        Level-indexed rates (see :func:`~qtheory.walks.ruin.check_rates`); all levels
        matter, and the top level only moves down.
    unit : {"time", "steps"}
        Real time, or the number of jump-chain steps.
    log : bool, optional
        Return natural logarithms (for means beyond the float64 range).
    dps : int, optional
        Compute in mpmath to ``dps`` digits, returning a list of mpf.

    Returns
    -------
    numpy.ndarray, shape (n + 1,), or list of mpmath.mpf
        :math:`E_i[T_0]` for :math:`i = 0..n` (0 at 0), or their logarithms.

    Raises
    ------
    ValueError
        If the rates break :func:`~qtheory.walks.ruin.check_rates`, ``unit`` is
        invalid, or ``dps`` is invalid.

    References
    ----------
    See the module's References: Feller (1968), Ch. XIV (duration of the game; birth-death
    first passage).

    Examples
    --------
    >>> up, down = [2.0, 2.0, 2.0, 0.0], [0.0, 1.0, 1.0, 1.0]
    >>> descent_means(up, down)  # D_3 = 1, D_2 = 3, D_1 = 7
    array([ 0.,  7., 10., 11.])

    The idle count of a million servers falls from 1 to 0 after about
    :math:`10^{48\,128}` time units:

    >>> walk = IdleWalk(10**6, 0.6, 1.0)
    >>> log_mean = descent_means(walk.up_rates(), walk.down_rates(), log=True)
    >>> round(float(log_mean[1] / math.log(10)))
    48128
    """
    dps = check_dps(dps)
    up, down = check_rates(up, down)
    return _means(up, down, unit, log, dps, _log_descent, _descent_mp)


# ---------------------------------------------------------------------------
# bounds against the exact values


def _exact_and_log(value: float, *, logged: bool) -> tuple[float, float | None]:
    """``(exact, log_exact)`` of a :class:`BoundCheck` from a mean, or from its
    logarithm when ``logged`` (the descents, beyond float64 from N of a few thousand)."""
    if not logged:
        return float(value), None
    with np.errstate(over="ignore"):  # descent_means's own exp, beyond 1e308 inf
        exact = float(np.exp(value))
    return exact, (float(value) if math.isinf(exact) else None)


def hitting_checks(
    walk: IdleWalk, levels: Iterable[int] | None = None, band: int | None = None
) -> list[BoundCheck]:
    r"""The hitting-time bounds next to the exact means of the chain.

    Parameters
    ----------
    walk : IdleWalk
        The reject-all-L idle process.
    levels : iterable of int, optional
        Start levels :math:`i` in :math:`1..b-1` (default: all of them).
    band : int, optional
        Target :math:`b` of the climb, in :math:`2..N-1` (default
        :math:`\lfloor\sqrt N\rfloor`).

    Returns
    -------
    list of BoundCheck
        For each level: the climb to :math:`b` in steps (upper: walk :math:`p_b`; lower:
        walk :math:`p_\infty`) and in time (the same over
        :math:`\min_{j<b} q(j)` and :math:`\max_{j<b} q(j)`), and the descent to 0
        (lower: :math:`i` steps, :math:`i/(\lambda_H N)` time).  An exact mean beyond
        float64 is inf (ratio 0), its logarithm kept in ``log_exact``.

    Raises
    ------
    TypeError
        If ``walk`` is not an IdleWalk.
    ValueError
        If ``band`` or a level is out of range, or the N + 1 levels exceed the memory
        limit.

    References
    ----------
    See the module's References: Bray (2026); docs/loss-network.md.

    Examples
    --------
    >>> checks = hitting_checks(IdleWalk(100, 0.6, 1.0), levels=[1])
    >>> for check in checks:
    ...     print(f"{check.name:40} {check.direction} {check.ratio:.3g}")
    E_i[steps to b] <= walk(p_b)             upper 1.09
    E_i[steps to b] >= walk(p_inf)           lower 0.925
    E_i[time to b] <= walk(p_b) / q_min      upper 1.65
    E_i[time to b] >= walk(p_inf) / q_max    lower 0.881
    E_i[steps to 0] >= i                     lower 5.11e-07
    E_i[time to 0] >= i/(lambda_H N)         lower 1.02e-06
    """
    walk = check_walk(walk)
    band = check_band(walk.band if band is None else band, walk.servers - 1, least=2)
    levels = check_levels(levels, band)
    up, down = walk.up_rates(), walk.down_rates()
    total = (up + down)[:band]
    steps = climb_means(up, down, band, unit="steps")
    time = climb_means(up, down, band)
    upper = walk_climb_steps(walk.coupled_up_probability(band), levels, band)
    lower = walk_climb_steps(walk.limit_up_probability, levels, band)
    start = np.asarray(levels, dtype=float)
    rows = (
        ("E_i[steps to b] <= walk(p_b)", "upper", upper, steps, "climb", "steps_pb"),
        ("E_i[steps to b] >= walk(p_inf)", "lower", lower, steps, "climb", "steps_pinf"),
        ("E_i[time to b] <= walk(p_b) / q_min", "upper", upper / total.min(), time, "climb",
         "time_pb"),
        ("E_i[time to b] >= walk(p_inf) / q_max", "lower", lower / total.max(), time, "climb",
         "time_pinf"),
        ("E_i[steps to 0] >= i", "lower", start,
         descent_means(up, down, unit="steps", log=True), "descent", "steps"),
        ("E_i[time to 0] >= i/(lambda_H N)", "lower", start / (walk.lambda_h * walk.servers),
         descent_means(up, down, log=True), "descent", "time"),
    )  # fmt: skip
    default = band == walk.band  # the certified specs (qtheory.walks.certify) use that band
    checks = []
    for k, i in enumerate(levels):
        for name, direction, bound, exact, family, key in rows:
            value, log_value = _exact_and_log(exact[i], logged=family == "descent")
            spec = {"family": family, "N": walk.servers, "i": i, "bound": key}
            checks.append(BoundCheck(
                name, walk.servers, f"i={i}, b={band}", direction, float(bound[k]), value,
                spec=spec if default or family == "descent" else None, log_exact=log_value,
            ))  # fmt: skip
    return checks
