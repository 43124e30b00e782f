r"""Gambler's ruin for the idle process and for the simple random walks that bound it.

Source: J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
overloaded loss network" (arXiv:2601.14538): PFI admits an L job only if, under
reject-all-L, the idle count reaches :math:`b = \lfloor\sqrt N\rfloor` before it drops
to 0, so its analysis needs :math:`h_i = P_i(\text{hit } 0 \text{ before } b)`.

Simple walk.  With up-probability :math:`p` and :math:`q = 1 - p`, :math:`h` solves
:math:`h_i = p\,h_{i+1} + q\,h_{i-1}` (:math:`1 \le i \le b - 1`), :math:`h_0 = 1`,
:math:`h_b = 0`; Sympy's ``rsolve`` (:func:`derive_walk_ruin`) gives, with
:math:`r = q/p`,

.. math:: h_i = \frac{r^i - r^b}{1 - r^b} \quad (p \ne \tfrac12), \qquad
          h_i = 1 - \frac{i}{b} \quad (p = \tfrac12),

and, for :math:`p > \frac12`, :math:`\lim_{b\to\infty} h_i = r^i`: the probability that
the walk started at :math:`i` *ever* hits 0 (it is 1 for :math:`p \le \frac12`).  Float64
evaluates the equivalent form, in :math:`\theta = \log r` (``WALK_LOG_ODDS``, accurate
to a few units of roundoff relative to :math:`\theta` also for :math:`p` near
:math:`\frac12`),

.. math:: h_i = e^{i(\theta - |\theta|)/2}\,
          \frac{\operatorname{expm1}(-(b-i)|\theta|)}{\operatorname{expm1}(-b|\theta|)},

a ratio of two numbers in :math:`(-1, 0)` times a factor in :math:`(0, 1]`: no
cancellation, no overflow, full relative accuracy for :math:`r` near 1 and any
:math:`b` (checked against mpmath in the tests).

Birth–death chain.  For rates :math:`u_j` (:math:`j \to j+1`) and :math:`d_j`
(:math:`j \to j-1`), the same first-step analysis gives the classical

.. math:: h_i = \frac{\sum_{j=i}^{b-1}\rho_j}{\sum_{j=0}^{b-1}\rho_j}, \qquad
          \rho_j = \prod_{k=1}^{j}\frac{d_k}{u_k}

(:func:`chain_ruin_probabilities`), evaluated with :math:`\log\rho_j` from
:func:`qtheory.exact.birth_death_log_weights` and tail sums by :func:`log_cumsum_exp`,
so that nothing overflows or underflows for :math:`N = 10^7` and :math:`b` up to
:math:`N`; ``dps=`` does it in mpmath.

Bound direction (coupling).  The reject-all-L jump chain moves up with probability
:math:`p(j) = \mu(N-j)/(\mu(N-j) + \lambda_H N)`, decreasing in :math:`j`, so
:math:`p_b = p(b) \le p(j) \le p_\infty = \mu/(\mu + \lambda_H)` on
:math:`1 \le j \le b - 1` (:mod:`qtheory.walks.idle`).  Couple the jump chain
:math:`X` and a walk :math:`Y` with up-probability :math:`p'`, both started at
:math:`i`, through common uniforms :math:`U_k`: :math:`X` moves up iff
:math:`U_k < p(X_k)`, :math:`Y` iff :math:`U_k < p'`.  Both move by :math:`\pm 1`, so
:math:`X_k - Y_k` stays even.  If :math:`p' \le p(j)` on the band then
:math:`X_k \ge Y_k` up to the exit time :math:`\tau` of :math:`X` from
:math:`\{1, \dots, b-1\}`: when :math:`X_k > Y_k` the gap is at least 2 and one step
cannot reverse it; when :math:`X_k = Y_k = j`, :math:`U_k < p'` implies
:math:`U_k < p(j)`.  So if :math:`X` hits 0 (at :math:`\tau`) then
:math:`Y_\tau \le 0` and :math:`Y \le X \le b - 1` before :math:`\tau`: :math:`Y` hit 0
before :math:`b` too.  Hence, with :math:`p' = p_b`,

.. math:: P^{\text{chain}}_i(0 \text{ before } b) \le P^{\text{walk}(p_b)}_i(0 \text{ before } b)
          \le \bigl(q_b/p_b\bigr)^i \quad (p_b > \tfrac12),

the last step because the walk's ruin probability increases with :math:`b` to its limit.
Symmetrically, :math:`p' = p_\infty \ge p(j)` gives :math:`Y \ge X`, and ruin of
:math:`Y` forces ruin of :math:`X`:

.. math:: P^{\text{chain}}_i(0 \text{ before } b)
          \ge P^{\text{walk}(p_\infty)}_i(0 \text{ before } b).

:math:`(\lambda_H/\mu)^i` is the limit of both bounds when :math:`b = \lfloor\sqrt N\rfloor`
and :math:`N \to \infty` (:math:`p_b \to p_\infty`), but no bound at finite :math:`N`:
for :math:`\lambda_H = 0.6`, :math:`\mu = 1`, :math:`i = 1` the exact value is 0.444 at
:math:`N = 4` and 0.612 at :math:`N = 100`.  :func:`ruin_checks` evaluates all three
bounds next to the exact value.

>>> from qtheory.walks.idle import IdleWalk
>>> walk = IdleWalk(100, 0.6, 1.0)
>>> h = chain_ruin_probabilities(walk.up_rates(), walk.down_rates(), walk.band)
>>> p_b, p_inf = walk.coupled_up_probability(), walk.limit_up_probability
>>> print(f"{walk_ruin_probability(p_inf, 1, 10):.4f} <= {h[1]:.4f} "
...       f"<= {walk_ruin_probability(p_b, 1, 10):.4f}")
0.5976 <= 0.6118 <= 0.6608

References
----------
.. [1] W. Feller, An Introduction to Probability Theory and Its Applications, Vol. I, 3rd
   ed. (Wiley 1968).
.. [2] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the overloaded
   loss network", arXiv:2601.14538 (2026).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from types import SimpleNamespace
from typing import TYPE_CHECKING, NamedTuple

import mpmath
import numpy as np
from numpy.typing import ArrayLike, NDArray

from qtheory.core import validation
from qtheory.core.precision import GUARD_DIGITS, check_dps, rounded, working
from qtheory.exact.birth_death import birth_death_log_weights
from qtheory.walks import _generated
from qtheory.walks.bounds import BoundCheck
from qtheory.walks.idle import IdleWalk, check_walk

if TYPE_CHECKING:  # the Sympy side is imported by the derivation, when it runs
    import sympy as sp

    from qtheory.core.symbolic import Formula

__all__ = [
    "WALK_LOG_ODDS",  # noqa: F822 (a Sympy object, made on first use by __getattr__)
    "WalkRuin",
    "chain_ruin_probabilities",
    "check_band",
    "check_levels",
    "check_rates",
    "derive_walk_ruin",
    "in_form",
    "log_cumsum_exp",
    "mp_rates",
    "ruin_checks",
    "solve_recurrence",
    "walk_arguments",
    "loop_guard",
    "walk_mp",
    "walk_ruin_limit",
    "walk_ruin_probability",
]


@cache
def _symbolic() -> SimpleNamespace:
    """The Sympy side (:func:`__getattr__`), made on first use."""
    import sympy as sp
    from sympy.codegen.cfunctions import log1p

    from qtheory.core.symbolic import Formula
    from qtheory.walks import idle

    p = sp.Symbol("p", positive=True)  # p, the walk's up-probability
    return SimpleNamespace(
        idle_level=idle.level,  # i
        band_level=idle.band_level,  # b
        up_probability=p,
        odds=sp.Symbol("r", positive=True),  # r = q/p
        log_odds=sp.Symbol("theta", real=True),  # theta = log r
        WALK_LOG_ODDS=Formula(
            "walk_log_odds",
            sp.Piecewise(
                (log1p((1 - 2 * p) / p), (p > sp.Rational(1, 3)) & (p < sp.Rational(2, 3))),
                (sp.log((1 - p) / p), True),
            ),
            (p,),
        ),
    )


def __getattr__(name: str) -> object:
    """The Sympy symbols ``up_probability`` (p), ``odds`` (r = q/p) and ``log_odds``
    (theta = log r) and the Formula ``WALK_LOG_ODDS``: theta = log(q/p) with full relative
    accuracy, log1p((1 - 2p)/p) near p = 1/2 (1 - 2p is exact there), log1p(-p) - log(p)
    elsewhere (|theta| > log 2); the walk Formulas take theta.  They are made when first
    asked for, so that importing this module does not import Sympy (the walk's numbers
    call the evaluators generated from the derivation, ``qtheory/walks/_generated.py``)."""
    if name in ("up_probability", "odds", "log_odds", "WALK_LOG_ODDS"):
        return getattr(_symbolic(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _Evaluators(NamedTuple):
    """The generated evaluators of the Formula ``name`` of :func:`derive_walk_ruin`, under
    the Formula's names (what :func:`walk_mp` calls)."""

    name: str

    @property
    def float64(self) -> Callable:
        return getattr(_generated, f"{self.name}_float64")

    @property
    def mp(self) -> Callable:
        return getattr(_generated, f"{self.name}_mp")


_PROBABILITY, _FAIR, _LIMIT = map(
    _Evaluators, ("walk_ruin_probability", "walk_ruin_fair", "walk_ruin_limit")
)


# ---------------------------------------------------------------------------
# derivation


@dataclass(frozen=True)
class WalkRuin:
    """Gambler's ruin of the simple walk, derived by :func:`derive_walk_ruin`.

    Attributes
    ----------
    recurrence, boundary : sympy.Eq
        h(i) = p h(i+1) + (1 − p) h(i−1); h(0) = 1, h(b) = 0.
    general, solution : sympy.Expr
        rsolve's general solution and the fitted (r^i − r^b)/(1 − r^b), r = q/p.
    fair, probability, limit : Formula
        1 − i/b at p = 1/2; the stable form in (theta, i, b); r^i = lim_{b→∞} h_i.

    References
    ----------
    See the module's References: Feller (1968), Ch. XIV (random walk and ruin problems).

    Examples
    --------
    >>> derive_walk_ruin().limit.expr
    r**i
    """

    recurrence: sp.Eq  # h(i) = p h(i+1) + (1-p) h(i-1)
    boundary: tuple[sp.Eq, sp.Eq]  # h(0) = 1, h(b) = 0
    general: sp.Expr  # rsolve's general solution C0 + C1 ((1-p)/p)^i
    solution: sp.Expr  # (r^i - r^b)/(1 - r^b), r = q/p
    fair: Formula  # 1 - i/b at p = 1/2, in (i, b)
    probability: Formula  # the stable form, in (theta, i, b) with theta = log r
    limit: Formula  # r^i = lim_{b -> oo} h_i for p > 1/2, in (theta, i)


def in_form(derived: sp.Expr, display: sp.Expr) -> sp.Expr:
    """``display`` after Sympy has checked that it equals ``derived``.

    Parameters
    ----------
    derived, display : sympy.Expr
        What Sympy derived and the form to show.

    Returns
    -------
    sympy.Expr
        ``display``.

    Raises
    ------
    ArithmeticError
        If the two differ.

    Examples
    --------
    >>> import sympy as sp
    >>> x = sp.Symbol("x")
    >>> in_form((x**2 - 1) / (x - 1), x + 1)
    x + 1
    """
    import sympy as sp

    if sp.simplify(derived - display) != 0:
        raise ArithmeticError(f"derivation: {derived} does not simplify to {display}")
    return display


def _fit_boundary(general: sp.Expr, conditions: Sequence[sp.Expr]) -> sp.Expr:
    """``general`` with its constants (``C0``, ``C1``) fitted to ``conditions`` = 0."""
    import sympy as sp

    s = _symbolic()
    constants = sorted(general.free_symbols - {s.up_probability, s.idle_level}, key=str)
    (fit,) = sp.solve(conditions, constants, dict=True)
    return general.subs(fit)


def solve_recurrence(
    equation: sp.Eq, unknown: sp.Function, boundary: Callable[[sp.Expr], list[sp.Expr]]
) -> tuple[sp.Expr, sp.Expr]:
    """rsolve ``equation`` for ``unknown(i)``: the general solution and the fitted one.

    Parameters
    ----------
    equation : sympy.Eq
        A linear recurrence in ``unknown(i)``.
    unknown : sympy.Function
        The unknown sequence.
    boundary : callable
        Maps a solution to the expressions that must vanish.

    Returns
    -------
    tuple of sympy.Expr
        The general solution and the one fitted to ``boundary``.

    References
    ----------
    See the module's References: Feller (1968), Ch. XIV (random walk and ruin problems).

    Examples
    --------
    >>> import sympy as sp
    >>> from qtheory.walks.idle import level as idle_level
    >>> h, i = sp.Function("h"), idle_level
    >>> solve_recurrence(sp.Eq(h(i), h(i - 1) + 1), h, lambda s: [s.subs(i, 0)])[1]
    i
    """
    import sympy as sp

    general = sp.rsolve(equation.lhs - equation.rhs, unknown(_symbolic().idle_level))
    return general, _fit_boundary(general, boundary(general))


def _ruin_boundary(solution: sp.Expr) -> list[sp.Expr]:
    i, b = _symbolic().idle_level, _symbolic().band_level
    return [solution.subs(i, 0) - 1, solution.subs(i, b)]


@cache
def derive_walk_ruin() -> WalkRuin:
    r"""Solve the ruin recurrence with Sympy (cached; about two seconds).

    ``rsolve`` gives :math:`C_0 + C_1 r^i`; the boundary conditions fix the constants;
    :math:`p = 1/(1 + r)` rewrites the result in :math:`r`, and Sympy checks that it
    equals the display form.  The fair case is solved the same way at :math:`p = 1/2`,
    and the unbounded limit is Sympy's :math:`\lim_{b\to\infty}` with
    :math:`r = e^{-x}`, :math:`x > 0`.

    The probability :math:`h(i)` that the :math:`\pm 1` walk with up-probability
    :math:`p` started at :math:`i` hits 0 before :math:`b` solves
    :math:`h(i) = p\,h(i+1) + (1-p)\,h(i-1)`, :math:`h(0) = 1`, :math:`h(b) = 0`:

    .. math:: h(i) = \frac{r^i - r^b}{1 - r^b}, \qquad r = \frac{1-p}{p} \ne 1,

    :math:`h(i) = 1 - i/b` at :math:`p = 1/2` and :math:`h(i) \to r^i` as
    :math:`b \to \infty` for :math:`p > 1/2`.  ``probability`` is the same in
    :math:`\theta = \log r`, written so that no exponent is positive.

    Returns
    -------
    WalkRuin
        The recurrence, its boundary conditions, Sympy's general and fitted solutions and
        the Formulas ``fair``, ``probability`` and ``limit``.

    Raises
    ------
    ArithmeticError
        If a Sympy result does not simplify to its display form (:func:`in_form`).

    References
    ----------
    See the module's References: Feller (1968), Ch. XIV (random walk and ruin problems).

    Examples
    --------
    >>> derive_walk_ruin().solution
    (-r**b + r**i)/(1 - r**b)
    >>> derive_walk_ruin().fair.expr
    1 - i/b

    At :math:`r = 1/2`, :math:`i = 1`, :math:`b = 2`:
    :math:`h(1) = (1/2 - 1/4)/(1 - 1/4) = 1/3`:

    >>> round(float(derive_walk_ruin().probability.float64(math.log(0.5), 1.0, 2.0)), 6)
    0.333333
    """
    import sympy as sp

    from qtheory.core.symbolic import Formula

    s = _symbolic()
    p, i, b, r = s.up_probability, s.idle_level, s.band_level, s.odds
    h = sp.Function("h")
    recurrence = sp.Eq(h(i), p * h(i + 1) + (1 - p) * h(i - 1))
    general, fitted = solve_recurrence(recurrence, h, _ruin_boundary)
    solution = in_form(fitted.subs(p, 1 / (1 + r)), (r**i - r**b) / (1 - r**b))
    fair_recurrence = recurrence.subs(p, sp.Rational(1, 2))
    fair = in_form(solve_recurrence(fair_recurrence, h, _ruin_boundary)[1], 1 - i / b)
    x = sp.Symbol("x", positive=True)  # r = e^{-x} < 1
    limit = sp.limit(solution.subs(r, sp.exp(-x)), b, sp.oo).subs(x, -sp.log(r))
    limit = in_form(limit, r**i)
    t = s.log_odds
    stable = (
        sp.exp(i * (t - sp.Abs(t)) / 2)
        * (sp.exp(-(b - i) * sp.Abs(t)) - 1)
        / (sp.exp(-b * sp.Abs(t)) - 1)
    )
    return WalkRuin(
        recurrence=recurrence,
        boundary=(sp.Eq(h(0), 1), sp.Eq(h(b), 0)),
        general=general,
        solution=solution,
        fair=Formula("walk_ruin_fair", fair, (i, b)),
        probability=Formula("walk_ruin_probability", stable, (t, i, b)),
        limit=Formula("walk_ruin_limit", limit, (t, i), {r: sp.exp(t)}),
    )


# ---------------------------------------------------------------------------
# validation shared with qtheory.walks.hitting


def check_rates(up: ArrayLike, down: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Level-indexed birth–death rates after validation.

    ``up[j]`` is the rate of :math:`j \\to j+1` and ``down[j]`` that of :math:`j \\to j-1`
    on the levels :math:`0..n` (the convention of :class:`~qtheory.walks.idle.IdleWalk`):
    equal lengths :math:`n + 1 \\ge 2`, ``down[0] == 0``, ``up[n] == 0``, and every other
    rate finite and > 0 (an irreducible chain).

    Parameters
    ----------
    up, down : array_like
        The rates.

    Returns
    -------
    tuple of numpy.ndarray
        (up, down) as float arrays.

    Raises
    ------
    ValueError
        If a rule above is broken (the message names the array and the level).

    Examples
    --------
    >>> check_rates([1.0, 0.0], [2.0, 1.0])
    Traceback (most recent call last):
    ...
    ValueError: down[0] must be 0 (level 0 has no level below), got 2.0
    """
    arrays = []
    for name, rates in (("up", up), ("down", down)):
        array = np.asarray(rates, dtype=float)
        if array.ndim != 1 or array.size < 2:
            raise ValueError(f"{name} must be 1-D with at least 2 levels, got shape {array.shape}")
        arrays.append(array)
    up, down = arrays
    if up.size != down.size:
        raise ValueError(f"up and down must have the same length, got {up.size} and {down.size}")
    if down[0] != 0:
        raise ValueError(f"down[0] must be 0 (level 0 has no level below), got {float(down[0])!r}")
    if up[-1] != 0:
        raise ValueError(
            f"up[-1] must be 0 (the top level has no level above), got {float(up[-1])!r}"
        )
    for name, inner, offset in (("up", up[:-1], 0), ("down", down[1:], 1)):
        bad = ~(np.isfinite(inner) & (inner > 0))
        if bad.any():
            j = int(np.argmax(bad))
            raise ValueError(
                f"{name} must be finite and > 0 on its inner levels, "
                f"got {name}[{j + offset}] = {float(inner[j])!r}"
            )
    return up, down


def check_band(band: object, top: int, *, least: int = 1) -> int:
    """``band`` as an int after checking ``least <= band <= top``.

    Parameters
    ----------
    band : int
        The value to check.
    top : int
        Its largest allowed value.
    least : int, optional
        Its smallest allowed value.

    Returns
    -------
    int
        ``band``.

    Raises
    ------
    ValueError
        If ``band`` is not an integer in ``least..top``.

    Examples
    --------
    >>> check_band(3, 10)
    3
    """
    band = validation.positive_int("band", band)
    if not least <= band <= top:
        raise ValueError(f"band must be in {least}..{top}, got {band}")
    return band


def mp_rates(rates: NDArray[np.float64]) -> list[mpmath.mpf]:
    """``rates`` as mpf, exactly (call inside a working precision of >= 53 bits).

    Parameters
    ----------
    rates : numpy.ndarray
        Float64 rates.

    Returns
    -------
    list of mpmath.mpf
        The same numbers.

    Examples
    --------
    >>> mp_rates(np.array([0.5, 2.0]))
    [mpf('0.5'), mpf('2.0')]
    """
    return [mpmath.mpf(float(x)) for x in rates]


def loop_guard(dps: int, size: int) -> int:
    """Guard digits for an mpmath loop over ``size`` levels at ``dps`` digits, for
    :func:`qtheory.core.precision.working`: enough to hold float64 inputs exactly (at least
    16 digits in all), the usual :data:`~qtheory.core.precision.GUARD_DIGITS`, and
    log10(size) more for the roundings of the sums.

    Parameters
    ----------
    dps : int
        The requested significant digits.
    size : int
        Number of terms summed (levels of the chain).

    Returns
    -------
    int
        Extra digits to pass as ``working(dps, guard)``.

    Examples
    --------
    >>> loop_guard(30, 999), loop_guard(5, 9)
    (13, 22)
    """
    return max(0, 16 - dps) + GUARD_DIGITS + int(math.log10(size + 1))


def walk_arguments(
    p: ArrayLike, level: ArrayLike, band: ArrayLike | None = None
) -> tuple[NDArray[np.float64], ...]:
    """The arguments of the walk formulas, validated and broadcast.

    Parameters
    ----------
    p : array_like
        Up-probabilities in (0, 1).
    level : array_like
        Integers >= 0.
    band : array_like, optional
        Integers >= 1 with ``level <= band``.

    Returns
    -------
    tuple of numpy.ndarray
        (p, level[, band]) as broadcast float arrays.

    Raises
    ------
    ValueError
        If a value breaks its rule or the arguments do not broadcast (the message names
        the argument).

    Examples
    --------
    >>> walk_arguments(0.5, [1, 2], 4)[1]
    array([1., 2.])
    """
    names = ("p", "level") + (() if band is None else ("band",))
    values = (p, level) + (() if band is None else (band,))
    converted = []
    for name, x in zip(names, values, strict=True):
        try:
            converted.append(np.asarray(x, dtype=float))
        except (TypeError, ValueError):
            raise ValueError(
                f"{name} must be a real number or an array of them, got {x!r}"
            ) from None
    try:
        arrays = np.broadcast_arrays(*converted)
    except ValueError:
        raise ValueError(f"{', '.join(names)} must broadcast to one shape") from None
    p = arrays[0]
    outside = ~((p > 0) & (p < 1))
    if outside.any():
        raise ValueError(f"p must be in (0, 1), got {p[outside].flat[0]!r}")
    for name, x in zip(names[1:], arrays[1:], strict=True):
        if not np.all(np.isfinite(x) & (x == np.round(x)) & (x >= 0)):
            raise ValueError(f"{name} must hold integers >= 0, got {x!r}")
    if band is not None and not np.all((arrays[2] >= 1) & (arrays[1] <= arrays[2])):
        raise ValueError("band must be >= 1 and level must be in 0..band")
    return tuple(arrays)


# ---------------------------------------------------------------------------
# simple walk


def walk_ruin_probability(p: ArrayLike, level: ArrayLike, band: ArrayLike, *, dps=None):
    r"""Probability that the simple walk from ``level`` hits 0 before ``band``.

    Parameters
    ----------
    p : float or array_like
        Up-probability, :math:`0 < p < 1`.
    level, band : int or array_like
        Start :math:`i` and upper barrier :math:`b`, integers with
        :math:`0 \le i \le b`, :math:`b \ge 1`.  The three broadcast.
    dps : int, optional
        Keyword only.  If given, compute in mpmath, correct to ``dps`` significant
        digits (scalars only; ``p`` as the exact binary number it is); see
        docs/precision.md.

    Returns
    -------
    numpy.ndarray or float or mpmath.mpf
        :math:`(r^i - r^b)/(1 - r^b)` with :math:`r = (1-p)/p`, and :math:`1 - i/b` at
        :math:`p = \frac12` exactly (see the module notes for the stable form).

    Raises
    ------
    ValueError
        If ``p`` is not in (0, 1), ``level`` or ``band`` are not integers with
        :math:`0 \le i \le b`, :math:`b \ge 1`, or ``dps`` is not an integer in
        1..limit (see :func:`qtheory.core.precision.check_dps`).

    References
    ----------
    See the module's References:

    - Feller (1968), Ch. XIV.2 (the classical ruin problem);
    - Bray (2026); docs/loss-network.md.

    Examples
    --------
    >>> round(float(walk_ruin_probability(2 / 3, 1, 3)) * 7, 12)  # r = 1/2: (1/2 - 1/8)/(7/8)
    3.0
    >>> float(walk_ruin_probability(0.5, 3, 4))  # 1 - 3/4, exactly
    0.25
    >>> print(f"{0.25 - float(walk_ruin_probability(0.5 + 1e-13, 3, 4)):.3g}")
    1.5e-13
    >>> print(mpmath.nstr(walk_ruin_probability(0.75, 1, 10**9, dps=30), 30))  # r = 1/3
    0.333333333333333333333333333333
    """
    dps = check_dps(dps)
    p, level, band = walk_arguments(p, level, band)
    if dps is not None:
        return walk_mp(_PROBABILITY, (p, level, band), dps, _FAIR)
    theta = _generated.walk_log_odds_float64(p)
    fair = theta == 0  # p = 1/2 exactly
    value = _PROBABILITY.float64(np.where(fair, 1.0, theta), level, band)
    return np.where(fair, _FAIR.float64(level, band), value)[()]


def walk_mp(
    formula: Formula, args, dps: int, fair: Formula | None = None, guard: int = GUARD_DIGITS
) -> mpmath.mpf:
    r"""A walk Formula in mpmath, correct to ``dps`` digits, from scalar float arguments.

    Parameters
    ----------
    formula : Formula
        A function of (theta, \*rest), theta = log(q/p) computed from p = ``args[0]``; only
        its ``mp`` evaluator is called (a Formula's, or a generated one's).
    args : sequence of float
        (p, \*rest), scalars (0-d arrays allowed).
    dps : int
        Significant digits of the result (validated by the caller).
    fair : Formula, optional
        A function of (\*rest) used at p = 1/2 exactly.
    guard : int, optional
        Guard digits while computing (more where the formula cancels).

    Returns
    -------
    mpmath.mpf
        The value rounded to ``dps`` digits.

    Raises
    ------
    ValueError
        If an argument is not a scalar.

    Examples
    --------
    >>> limit = derive_walk_ruin().limit
    >>> print(mpmath.nstr(walk_mp(limit, (0.75, 2), 20), 20))  # (1/3)^2
    0.11111111111111111111
    """
    if any(np.ndim(x) for x in args):
        raise ValueError("with dps, the arguments must be scalars")
    with working(dps, guard + max(0, 16 - dps)):  # >= 16 digits: floats convert exactly
        p, *rest = (mpmath.mpf(float(x)) for x in args)
        theta = _generated.walk_log_odds_mp(p)
        value = fair.mp(*rest) if fair is not None and theta == 0 else formula.mp(theta, *rest)
    return rounded(value, dps)


def walk_ruin_limit(p: ArrayLike, level: ArrayLike, *, dps=None):
    r"""Probability that the walk from ``level`` ever hits 0 (no upper barrier).

    Parameters
    ----------
    p : float or array_like
        Up-probability, :math:`0 < p < 1`.
    level : int or array_like
        Start :math:`i`, integers :math:`\ge 0` (broadcast with ``p``).
    dps : int, optional
        Keyword only: compute in mpmath, correct to ``dps`` significant digits
        (scalars only).

    Returns
    -------
    numpy.ndarray or float or mpmath.mpf
        :math:`\min(1, r)^i` with :math:`r = (1-p)/p`: :math:`r^i` for
        :math:`p > \frac12` (Sympy's :math:`\lim_{b\to\infty}` of
        :func:`walk_ruin_probability`) and 1 otherwise.

    Raises
    ------
    ValueError
        If ``p`` is not in (0, 1), ``level`` is not a non-negative integer, or ``dps`` is
        invalid.

    References
    ----------
    See the module's References: Feller (1968), Ch. XIV.2.

    Examples
    --------
    >>> round(float(walk_ruin_limit(0.625, 2)), 12)  # (0.6)^2
    0.36
    >>> float(walk_ruin_limit(0.25, 3))
    1.0
    """
    dps = check_dps(dps)
    p, level = walk_arguments(p, level)
    if dps is None:
        with np.errstate(over="ignore"):  # r^i > 1e308 for p < 1/2: the minimum is 1
            theta = _generated.walk_log_odds_float64(p)
            return np.minimum(_LIMIT.float64(theta, level), 1.0)[()]
    return min(walk_mp(_LIMIT, (p, level), dps), mpmath.mpf(1))


# ---------------------------------------------------------------------------
# birth-death chain


_WINDOW = 512.0  # exponent window of log_cumsum_exp: exp(-512) ~ 1e-222 is a normal float


def log_cumsum_exp(values: ArrayLike) -> NDArray[np.float64]:
    r""":math:`L_j = \log\sum_{k \le j} e^{x_k}` for every :math:`j`, accurately.

    The running maximum :math:`m_j` of :math:`x` cuts the indices into runs on which
    :math:`\lfloor m_j / 512\rfloor` is constant.  On each run the terms are shifted by
    the run's exponent ceiling :math:`s` (so :math:`e^{m_j - s} \ge e^{-512}` and no
    term exceeds 1), summed by a plain cumulative sum together with the carried total
    :math:`e^{L - s}` of the earlier runs, and logged.  Terms that underflow are below
    :math:`e^{-700}` times the running total.  The sums are formed in the exponential
    domain, so the result has relative error (in :math:`e^{L_j}`) of order
    :math:`j u` at worst plus :math:`u |L_j|` from the final logarithm,
    :math:`u = 2^{-53}`; summing in the log domain with ``np.logaddexp.accumulate``
    would instead lose up to :math:`u |L|` per term and drop every term below
    :math:`u |L|` times the total.  :math:`O(n)`, vectorised per run.

    Parameters
    ----------
    values : array_like, shape (n,)
        Finite reals.

    Returns
    -------
    numpy.ndarray, shape (n,)
        The running log-sum-exp.

    Raises
    ------
    ValueError
        If ``values`` is not 1-D or not finite.

    Examples
    --------
    >>> log_cumsum_exp([0.0, 0.0, math.log(2.0)]) / math.log(2.0)
    array([0., 1., 2.])
    >>> x = np.array([-3000.0, -2000.0, 0.0, 5000.0])  # e^x spans 10^-1303 .. 10^2171
    >>> bool(np.all(log_cumsum_exp(x) == x))
    True
    """
    x = np.asarray(values, dtype=float)
    if x.ndim != 1:
        raise ValueError(f"values must be 1-D, got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("values must be finite")
    out = np.empty_like(x)
    if x.size == 0:
        return out
    window = np.floor(np.maximum.accumulate(x) / _WINDOW)
    edges = np.flatnonzero(np.diff(window)) + 1
    carried = -math.inf
    for start, stop in zip(np.r_[0, edges], np.r_[edges, x.size], strict=True):
        shift = (window[start] + 1.0) * _WINDOW
        partial = np.cumsum(np.exp(x[start:stop] - shift))
        partial += math.exp(carried - shift)
        out[start:stop] = np.log(partial) + shift
        carried = out[stop - 1]
    return out


def chain_ruin_probabilities(
    up: ArrayLike, down: ArrayLike, band: int, *, log: bool = False, dps: int | None = None
):
    r"""Exact :math:`P_i(\text{hit } 0 \text{ before } b)` of a birth–death chain.

    Parameters
    ----------
    up, down : array_like, shape (n + 1,)
        Rates of :math:`j \to j+1` and :math:`j \to j-1` on the levels :math:`0..n`
        (``down[0] = up[n] = 0``, all others > 0; see :func:`check_rates`), e.g.
        ``walk.up_rates(), walk.down_rates()`` of an
        :class:`~qtheory.walks.idle.IdleWalk`.  Only levels :math:`1..b-1` matter.
    band : int
        The upper barrier :math:`b`, :math:`1 \le b \le n`.
    log : bool, optional
        Return :math:`\log h_i` (so that probabilities below :math:`10^{-308}` keep
        their value).
    dps : int, optional
        Compute in mpmath to ``dps`` digits (the recurrence
        :math:`\rho_j = \rho_{j-1} d_j/u_j` and plain sums; about a microsecond per
        level) and return a list of mpf.

    Returns
    -------
    numpy.ndarray, shape (b + 1,), or list of mpmath.mpf
        :math:`h_0 = 1, h_1, \dots, h_b = 0`, with
        :math:`h_i = \sum_{j=i}^{b-1}\rho_j / \sum_{j=0}^{b-1}\rho_j`.  Float64 computes
        :math:`\log\rho_j` as :func:`~qtheory.exact.birth_death_log_weights` of the
        rates :math:`d_{j+1}, u_{j+1}` and the tail sums by :func:`log_cumsum_exp`:
        relative error about :math:`u(b + |\log h_i| + \max_j|\log\rho_j|)`.

    Raises
    ------
    ValueError
        If the rates break :func:`check_rates`, ``band`` is out of range or ``dps`` is
        invalid.

    References
    ----------
    See the module's References: Feller (1968), Ch. XIV (random walk and ruin problems).

    Examples
    --------
    Up-rate 2 and down-rate 1: the walk with :math:`r = 1/2`, barrier 3.

    >>> h = chain_ruin_probabilities([2.0, 2.0, 2.0, 0.0], [0.0, 1.0, 1.0, 1.0], 3)
    >>> h * 7
    array([7., 3., 1., 0.])

    A million servers, barrier at :math:`10^5`: the ruin probability from level
    :math:`5 \times 10^4` is far below the float64 range, its logarithm is not.

    >>> from qtheory.walks.idle import IdleWalk
    >>> walk = IdleWalk(10**6, 0.6, 1.0)
    >>> log_h = chain_ruin_probabilities(walk.up_rates(), walk.down_rates(), 10**5, log=True)
    >>> round(float(log_h[50_000]))
    -24270
    """
    dps = check_dps(dps)
    up, down = check_rates(up, down)
    band = check_band(band, up.size - 1)
    if dps is not None:
        return _ruin_mp(up, down, band, dps, log)
    log_rho = birth_death_log_weights(down[1:band], up[1:band])
    tail = log_cumsum_exp(log_rho[::-1])[::-1]
    log_h = np.full(band + 1, -math.inf)
    log_h[:band] = tail - tail[0]
    if log:
        return log_h
    return np.exp(log_h)


def _ruin_mp(up, down, band: int, dps: int, log: bool) -> list[mpmath.mpf]:
    with working(dps, loop_guard(dps, band)):
        u, d = mp_rates(up[:band]), mp_rates(down[:band])
        rho = [mpmath.mpf(1)]
        for j in range(1, band):
            rho.append(rho[-1] * d[j] / u[j])
        tails = [mpmath.mpf(0)] * (band + 1)
        for j in range(band - 1, -1, -1):
            tails[j] = tails[j + 1] + rho[j]
        h = [t / tails[0] for t in tails]
        if log:
            h = [mpmath.log(x) if x else mpmath.ninf for x in h]
    return rounded(h, dps)


# ---------------------------------------------------------------------------
# bounds against the exact value


def check_levels(levels: Iterable[int] | None, band: int, least: int = 1) -> list[int]:
    """Start levels: ``least..band-1`` by default, else integers in that range.

    Parameters
    ----------
    levels : iterable of int or None
        The levels to check (None: all of ``least..band-1``).
    band : int
        The barrier b.
    least : int, optional
        The smallest level.

    Returns
    -------
    list of int
        The levels.

    Raises
    ------
    ValueError
        If a level is not an integer in ``least..band-1``.
    TypeError
        If ``levels`` is not iterable.

    Examples
    --------
    >>> check_levels(None, 4)
    [1, 2, 3]
    """
    if levels is None:
        return list(range(least, band))
    checked = []
    for i in levels:
        if isinstance(i, bool) or not isinstance(i, int | np.integer) or not least <= i < band:
            raise ValueError(f"levels must be integers in {least}..{band - 1}, got {i!r}")
        checked.append(int(i))
    return checked


def ruin_checks(
    walk: IdleWalk, levels: Iterable[int] | None = None, band: int | None = None
) -> list[BoundCheck]:
    r"""The ruin bounds of the coupling next to the exact ruin probability of the chain.

    Parameters
    ----------
    walk : IdleWalk
        The reject-all-L idle process.
    levels : iterable of int, optional
        Start levels :math:`i`, in :math:`1..b-1` (default: all of them).
    band : int, optional
        Barrier :math:`b`, in :math:`2..N-1` (default :math:`\lfloor\sqrt N\rfloor`).

    Returns
    -------
    list of BoundCheck
        For each level, three records for :math:`P_i(\text{hit } 0 \text{ before } b)`:
        the upper bound by the walk with :math:`p_b`, the lower bound by the walk with
        :math:`p_\infty`, and the upper bound :math:`(q_b/p_b)^i` of the unbounded walk
        (1 if :math:`p_b \le \frac12`).

    Raises
    ------
    TypeError
        If ``walk`` is not an IdleWalk.
    ValueError
        If ``band`` or a level is out of range.

    References
    ----------
    See the module's References: Bray (2026); docs/loss-network.md.

    Examples
    --------
    >>> walk = IdleWalk(1000, 0.6, 1.0)
    >>> checks = ruin_checks(walk, levels=[1])
    >>> [(c.direction, round(c.ratio, 4)) for c in checks]
    [('upper', 1.0294), ('lower', 0.9975), ('upper', 1.0294)]
    >>> all(c.holds for c in ruin_checks(walk))
    True
    """
    walk = check_walk(walk)
    band = check_band(walk.band if band is None else band, walk.servers - 1, least=2)
    levels = check_levels(levels, band)
    exact = chain_ruin_probabilities(walk.up_rates(), walk.down_rates(), band)[levels]
    p_b, p_inf = walk.coupled_up_probability(band), walk.limit_up_probability
    bounds = (
        ("P_i(hit 0 before b) <= walk(p_b)", "upper", walk_ruin_probability(p_b, levels, band),
         "walk_pb"),
        ("P_i(hit 0 before b) >= walk(p_inf)", "lower",
         walk_ruin_probability(p_inf, levels, band), "walk_pinf"),
        ("P_i(hit 0 before b) <= min(1, q_b/p_b)^i", "upper", walk_ruin_limit(p_b, levels),
         "limit_pb"),
    )  # fmt: skip
    default = band == walk.band  # the certified specs (qtheory.walks.certify) use that band
    return [
        BoundCheck(name, walk.servers, f"i={i}, b={band}", direction, float(value[k]), float(e),
                   spec={"family": "ruin", "N": walk.servers, "i": i, "bound": key}
                   if default else None)
        for k, (i, e) in enumerate(zip(levels, exact, strict=True))
        for name, direction, value, key in bounds
    ]  # fmt: skip
