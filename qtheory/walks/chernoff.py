r"""Chernoff bounds for the counts and walks behind the PFI and SSS arguments, and the
tail bounds on the idle process and its hitting times that they give.

Source: J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
overloaded loss network" (arXiv:2601.14538), "Analytical Tools": the idle-server process
under "reject every L" is compared with random walks and Poisson counts, whose deviations
have exponentially small probability by Chernoff bounds (docs/loss-network.md).

Chernoff bounds, derived by Sympy
---------------------------------
For a random variable :math:`X` with cumulant generating function
:math:`\Lambda(\theta) = \log E e^{\theta X}` and every :math:`\theta \ge 0`,
Markov's inequality applied to :math:`e^{\theta X}` gives
:math:`P(X \ge x) \le e^{-(\theta x - \Lambda(\theta))}`; for :math:`\theta \le 0` the same
inequality bounds :math:`P(X \le x)`.  The best exponent is the Legendre transform

.. math:: \Lambda^*(x) = \sup_\theta\,\bigl(\theta x - \Lambda(\theta)\bigr),

attained where :math:`\Lambda'(\theta^*) = x`: :math:`\theta^* > 0` above the mean
:math:`\Lambda'(0)` (upper tail) and :math:`\theta^* < 0` below it (lower tail).  On the
other side of the mean the best admissible :math:`\theta` is 0 and the bound is the
trivial 1.  For each family below Sympy solves :math:`\Lambda'(\theta) = x` for the tilt
:math:`\rho^* = e^{\theta^*}` (the positive root), substitutes it back and simplifies
(:func:`~qtheory.walks.chernoff_derivation.derive_poisson`,
:func:`~qtheory.walks.chernoff_derivation.derive_walk`,
:func:`~qtheory.walks.chernoff_derivation.derive_skellam`; :mod:`qtheory.walks.chernoff`
gives their names too):

- :math:`X \sim \text{Poisson}(m)`, :math:`\Lambda = m(e^\theta - 1)`:
  :math:`\rho^* = x/m` and :math:`\Lambda^*(x) = m\,h(x/m)` with the Cramér rate
  :math:`h(r) = r\log r - r + 1` (:data:`~qtheory.walks.chernoff_derivation.CRAMER_RATE`).
- :math:`S_n`, the position after :math:`n` steps of a :math:`\pm1` walk with
  up-probability :math:`p`, :math:`\Lambda = n\log(pe^\theta + (1-p)e^{-\theta})`:
  with :math:`k = (n+a)/2` up-steps and :math:`j = (n-a)/2` down-steps,
  :math:`\rho^{*2} = k(1-p)/(jp)` and
  :math:`\Lambda^*(a) = k\log\frac{k}{np} + j\log\frac{j}{n(1-p)} = n\,I_p(a/n)`, the
  Bernoulli Kullback–Leibler divergence :math:`n\,\mathrm{KL}(\frac{1+a/n}{2}\,\|\,p)`.
- :math:`U - D` with independent :math:`U \sim \text{Poisson}(u)`,
  :math:`D \sim \text{Poisson}(d)` (Skellam), :math:`\Lambda = u(e^\theta-1) + d(e^{-\theta}-1)`:
  :math:`u\rho^2 - x\rho - d = 0`, so :math:`\rho^* = (x + \sqrt{x^2+4ud})/(2u)` and
  :math:`\Lambda^*(x) = u + d - \sqrt{x^2+4ud} + x\log\rho^*`.

Numerics
--------
Each exponent is the relative entropy of the optimally tilted law,

.. math:: \Lambda^*(x) = \sum_k w_k\, h(\rho_k),

with :math:`w_k` the means of the independent "types" of jumps and :math:`\rho_k` the
ratio of tilted to original mean: Poisson :math:`m\,h(\rho^*)`; Skellam
:math:`u\,h(\rho^*) + d\,h(1/\rho^*)`; walk :math:`np\,h(k/(np)) + n(1-p)\,h(j/(n(1-p)))`
(the tests let Sympy prove each identity).  Float64 evaluates that form, a sum of
non-negative terms:

- the deviations :math:`\varepsilon_k = \rho_k - 1` come from closed forms that Sympy
  rationalises, e.g. :math:`\rho^* - 1 = 2(x - u + d)/(2u + \sigma_-)` for Skellam, with
  :math:`\sigma_\pm = \sqrt{x^2+4ud} \pm x` each evaluated by its direct form on the side
  of :math:`x` where it is a sum and by its conjugate :math:`4ud/\sigma_\mp` on the other
  (:class:`~qtheory.walks.chernoff_derivation.Auxiliary`);
- :math:`h(1+\varepsilon) = (1+\varepsilon)\operatorname{log1p}(\varepsilon) - \varepsilon`
  (the :class:`~qtheory.core.symbolic.Formula` rewriting) for :math:`|\varepsilon| \ge 1/4`,
  and Sympy's Taylor polynomial :data:`~qtheory.walks.chernoff_derivation.CRAMER_SERIES`
  below, where the closed form would lose :math:`\log_{10}(1/|\varepsilon|)` digits.

Measured (tests): the Poisson exponent to 8 ulps for means up to :math:`10^{15}`; the
Skellam and walk exponents to within 10 ulps of their condition scale
:math:`|\Lambda^*| + \sum_i |a_i\,\partial\Lambda^*/\partial a_i|` (the error that an ulp
of each input makes anyway) over 18 decades of scale.  The ``log_`` functions return
:math:`-\Lambda^*` itself, which stays accurate where :math:`e^{-\Lambda^*}` underflows
(:math:`\Lambda^* > 745`).  With ``dps=D`` the same forms are evaluated by the Formulas'
mpmath evaluators, with guard digits for the cancellations.  Both run the evaluators
generated from the Formulas (``qtheory/walks/_generated.py``, the code each Formula
compiles; ``tests/test_codegen.py`` fails if it is stale), so a bound does not import
Sympy.  At the edge of the support
(:math:`x = 0` for Poisson, :math:`a = \pm n` for the walk) a tilt ratio is 0 and
:math:`h(0) = 1`, Sympy's limit; beyond it the event is impossible and the exponent is
:math:`+\infty` (log bound :math:`-\infty`).

The idle process
----------------
The bounds on the idle process and its hitting times that these give, each proved by a
coupling, are in :mod:`qtheory.walks.idle_tails`; the events of a lookahead window in
:mod:`qtheory.walks.window_events`; every bound next to an exact value from an
independent route in :mod:`qtheory.walks.chernoff_checks`.

>>> round(float(poisson_tail_bound(10.0, 20.0, "upper")), 6)  # exp(-10 h(2)), h(2) = 2 log 2 - 1
0.021006
>>> round(float(log_poisson_tail_bound(1e3, 3e3, "upper")), 9)  # -(3000 log 3 - 2000)
-1295.836866004
>>> float(poisson_tail_bound(1e3, 3e3, "upper"))  # e^-1295.8 underflows; its log does not
0.0

References
----------
.. [1] A. Dembo and O. Zeitouni, Large Deviations Techniques and Applications, 2nd ed.
   (Springer 1998).
.. [2] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the overloaded
   loss network", arXiv:2601.14538 (2026).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import mpmath
import numpy as np

from qtheory.core.precision import GUARD_DIGITS, check_dps, rounded, working
from qtheory.walks import _generated

__all__ = [
    "TAILS",
    "log_poisson_tail_bound",
    "log_skellam_tail_bound",
    "log_walk_tail_bound",
    "poisson_tail_bound",
    "skellam_tail_bound",
    "walk_tail_bound",
]

#: The names of :mod:`qtheory.walks.chernoff_derivation` this module gives too.
_DERIVED = ("CRAMER_AT_ZERO", "CRAMER_RATE", "CRAMER_SERIES", "Auxiliary", "ChernoffDerivation",
            "derive_poisson", "derive_skellam", "derive_walk", "theta", "tilt", "deviation",
            "tail_level", "mean", "up_mean", "down_mean", "steps", "up_probability", "position",
            "sum_root", "difference_root", "window_constant", "relative_deviation")  # fmt: skip


def __getattr__(name: str) -> object:
    """The derivation's names (``derive_poisson``, ``CRAMER_RATE``, the symbols ``theta``,
    ``tail_level``, ...; :mod:`qtheory.walks.chernoff_derivation`), imported when first
    asked for: the bounds call the evaluators generated from it
    (``qtheory/walks/_generated.py``) and never import Sympy."""
    if name in _DERIVED:
        from qtheory.walks import chernoff_derivation

        return getattr(chernoff_derivation, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_HUGE_DEVIATION = 2.0**20  # beyond this ε, h(1 + ε) is evaluated from the tilted mean

SERIES_RADIUS = 0.25
"""Below this |ε| float64 evaluates h(1 + ε) by
:data:`~qtheory.walks.chernoff_derivation.CRAMER_SERIES`."""

TAILS = ("upper", "lower")


@dataclass(frozen=True)
class _Route:
    """A family's generated evaluators (``qtheory/walks/_generated.py``), named as the
    derivation names the Formulas they are generated from: ``NAME_mean``; for each of
    the ``terms`` types of jumps ``NAME_weight_k``, ``NAME_deviation_k`` and
    ``NAME_tilted_mean_k``; for each auxiliary symbol ``NAME_SYMBOL`` (the form for
    x >= 0) and ``NAME_SYMBOL_negative_x``."""

    name: str
    terms: int
    auxiliary: tuple[str, ...] = ()

    def __call__(self, formula: str, evaluate: str) -> Callable:
        """The evaluator of ``NAME_formula`` in ``evaluate``, "float64" or "mp"."""
        return getattr(_generated, f"{self.name}_{formula}_{evaluate}")


_POISSON = _Route("poisson", 1)
_SKELLAM = _Route("skellam", 2, ("sigma_plus", "sigma_minus"))
_WALK = _Route("walk", 2)


# ---------------------------------------------------------------------------
# evaluation


def _cramer(eps, evaluate: str):
    """h(1 + ε), with its limit h(0) = 1 at ε = −1 (float64 arrays or one mpf).

    ε >= −1 in exact arithmetic (ρ = 1 + ε is a ratio of means); at the edge of the
    support rounding can put ε a few ulps below −1, which is read as −1."""
    if evaluate == "mp":
        return _cramer_mp(eps)
    small = np.abs(eps) < SERIES_RADIUS
    series = _generated.cramer_rate_series_float64(np.where(small, eps, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        closed = _generated.cramer_rate_float64(eps)
    at_zero = float(_generated.cramer_rate_at_zero_float64())  # h(0) = 1, Sympy's limit
    return np.where(small, series, np.where(eps <= -1, at_zero, closed))


def _cramer_mp(eps: mpmath.mpf) -> mpmath.mpf:
    """h(1 + ε) in mpmath: the closed form with log10(1/|ε|) extra digits for its
    cancellation, so that the result keeps the working precision."""
    if eps <= -1:
        return mpmath.mpf(float(_generated.cramer_rate_at_zero_float64()))
    if eps == 0:
        return mpmath.mpf(0)
    extra = max(0, int(-mpmath.log10(abs(eps)))) + 5
    with mpmath.workdps(mpmath.mp.dps + extra):
        value = _generated.cramer_rate_mp(eps)
    return +value


def _auxiliary_values(family: _Route, args: tuple, evaluate: str) -> list:
    """Each auxiliary quantity by its form for the sign of x."""
    x = args[-1]
    if evaluate == "mp":
        return [family(a if x >= 0 else f"{a}_negative_x", "mp")(*args) for a in family.auxiliary]
    with np.errstate(divide="ignore", invalid="ignore"):  # the discarded form may be 0/0
        return [
            np.where(
                x >= 0, family(a, "float64")(*args), family(f"{a}_negative_x", "float64")(*args)
            )
            for a in family.auxiliary
        ]


def _entropy(family: _Route, args: tuple, evaluate: str):
    """Λ*(x) = Σ_k w_k h(1 + ε_k) at ``args`` = (parameters..., x).

    Float64: where a deviation ε_k exceeds :data:`_HUGE_DEVIATION` (or overflows, when
    the tilted mean t_k = w_k (1 + ε_k) is more than 1e308 times w_k) the term is
    evaluated as t_k (log t_k − log w_k) − t_k + w_k from the tilted mean itself: no
    cancellation there, and no overflow."""
    deviation_args = (*args, *_auxiliary_values(family, args, evaluate))
    total = 0
    for k in range(family.terms):
        w = family(f"weight_{k}", evaluate)(*args[:-1])
        eps = family(f"deviation_{k}", evaluate)(*deviation_args)
        term = w * _cramer(eps, evaluate)
        if evaluate == "float64":
            huge = ~(np.abs(eps) < _HUGE_DEVIATION)
            if np.any(huge):
                with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                    t = family(f"tilted_mean_{k}", "float64")(*args)
                    large = t * (np.log(t) - np.log(w)) - t + w
                term = np.where(huge, large, term)
        total = total + term
    return total


def check_tail(tail: object) -> str:
    if tail not in TAILS:
        raise ValueError(f"tail must be 'upper' (P(X >= x)) or 'lower' (P(X <= x)), got {tail!r}")
    return tail


def _log_bound_float64(family, args, tail, support):
    """Vectorised log Chernoff bound: −Λ*(x) on the tail's side of the mean, 0 (the
    trivial bound) on the other side, −inf beyond the support (an impossible event)."""
    x = args[-1]
    centre = family("mean", "float64")(*args[:-1])
    low, high = support
    on_side = x >= centre if tail == "upper" else x <= centre
    impossible = x > high if tail == "upper" else x < low
    inside = on_side & ~impossible
    safe_x = np.where(inside, x, centre)  # keeps NaN out of the masked points
    # an exponent beyond 1.8e308 overflows to inf: log bound −inf, the bound's true value
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        exponent = _entropy(family, (*args[:-1], safe_x), "float64")
    return np.where(impossible, -np.inf, np.where(inside, -exponent, 0.0))[()]


def _exact_sum_digits(values) -> int:
    """Digits that keep sums and products of these float64 numbers exact: 2 x 17 for a
    product, plus the decimal spread of their magnitudes."""
    sizes = [abs(float(v)) for v in values if v != 0 and math.isfinite(float(v))]
    spread = math.log10(max(sizes) / min(sizes)) if sizes else 0.0
    return 34 + math.ceil(spread)


def _log_bound_mp(family, args, tail, support, dps):
    with working(dps, GUARD_DIGITS + _exact_sum_digits(args)):
        args = tuple(mpmath.mpf(float(a)) for a in args)
        x, centre = args[-1], family("mean", "mp")(*args[:-1])
        low, high = (mpmath.mpf(float(edge)) for edge in support)
        if (x > high) if tail == "upper" else (x < low):
            value = mpmath.ninf
        elif (x >= centre) if tail == "upper" else (x <= centre):
            value = -_entropy(family, args, "mp")
        else:
            value = mpmath.mpf(0)
    return rounded(value, dps)


def _log_bound(family, args, tail, support, dps):
    tail = check_tail(tail)
    if dps is None:
        return _log_bound_float64(family, args, tail, support)
    for a in args:
        if np.ndim(a) != 0:
            raise ValueError("with dps the arguments must be scalars (mpmath evaluates one point)")
    return _log_bound_mp(family, args, tail, support, dps)


def _exp(log_bound: Callable, dps: int | None):
    """exp of ``log_bound(dps=...)``: float64, or correct to ``dps`` digits (the log is
    computed with enough extra digits that its absolute error, the relative error of the
    exponential, stays below 10^-(dps + guard))."""
    dps = check_dps(dps)
    if dps is None:
        return np.exp(log_bound(dps=None))
    log_value = log_bound(dps=dps + GUARD_DIGITS)
    finite = mpmath.isfinite(log_value) and log_value != 0  # 0: the trivial bound 1
    magnitude = int(mpmath.log10(abs(log_value))) + 1 if finite else 0
    if magnitude > 0:
        log_value = log_bound(dps=dps + GUARD_DIGITS + magnitude)
    with working(dps, GUARD_DIGITS + max(magnitude, 0)):
        value = mpmath.exp(log_value)
    return rounded(value, dps)


def _array(name: str, value, rule: str, ok: Callable[[np.ndarray], np.ndarray] | None = None):
    """``value`` as a float array after checking that it is finite and ``ok``."""
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number or an array of them") from None
    flat = array.ravel()
    good = np.isfinite(flat)
    if ok is not None:
        good[good] = ok(flat[good])  # only finite values reach ``ok``: no NaN warnings
    if not np.all(good):
        raise ValueError(f"{name} must be {rule}, got {flat[~good][0]!r}")
    return array


def _positive(name, value):
    return _array(name, value, "finite and > 0", lambda a: a > 0)


def _real(name, value):
    return _array(name, value, "finite")


# ---------------------------------------------------------------------------
# the three families


def log_poisson_tail_bound(mean, x, tail: str = "upper", *, dps: int | None = None):
    """Log of the Chernoff bound on P(X >= x) (``tail="upper"``) or P(X <= x)
    (``"lower"``), X ~ Poisson(``mean``): −m h(x/m) on the tail's side of the mean,
    0 on the other, −inf for ``x < 0`` in the lower tail.

    Vectorised over broadcastable arrays in float64; with ``dps=D`` one value in mpmath
    to D digits.

    Parameters
    ----------
    mean : float or array_like
        The Poisson mean m > 0.
    x : float or array_like
        The tail level (broadcasts with ``mean``).
    tail : {"upper", "lower"}, optional
        P(X >= x) or P(X <= x).
    dps : int, optional
        Keyword only: one value in mpmath, correct to ``dps`` significant digits.

    Returns
    -------
    numpy.ndarray or float or mpmath.mpf
        The log of the bound (<= 0; −inf for an impossible event).

    Raises
    ------
    ValueError
        If a parameter is outside its range (the message names it), ``tail`` is not
        ``"upper"`` or ``"lower"``, ``dps`` is invalid, or ``dps`` is given with arrays.

    References
    ----------
    See the module's References:

    - Dembo and Zeitouni (1998), Sec. 2.2 (Chernoff bounds, Cramér's theorem);
    - Bray (2026), "Analytical Tools"; docs/loss-network.md.

    Examples
    --------
    P(X <= 0) = e^{-m} exactly, and the bound is attained:

    >>> round(float(log_poisson_tail_bound(3.0, 0.0, "lower")), 12)
    -3.0

    Mean 10^12, x = m(1 + 10^-5): m h(1 + ε) = m(ε²/2 − ε³/6 + ε⁴/12 − ...):

    >>> mpmath.nstr(log_poisson_tail_bound(1e12, 1e12 + 1e7, dps=30), 20)
    '-49.999833334166661667'
    >>> round(float(log_poisson_tail_bound(1e12, 1e12 + 1e7)), 9)
    -49.999833334
    """
    dps = check_dps(dps)
    m = _positive("mean", mean)
    x = _real("x", x)
    return _log_bound(_POISSON, (m, x), tail, (0.0, np.inf), dps)


def poisson_tail_bound(mean, x, tail: str = "upper", *, dps: int | None = None):
    """The Chernoff bound exp(−m h(x/m)) itself (see :func:`log_poisson_tail_bound`).

    Parameters
    ----------
    mean : float or array_like
        The Poisson mean m > 0.
    x : float or array_like
        The tail level (broadcasts with ``mean``).
    tail : {"upper", "lower"}, optional
        P(X >= x) or P(X <= x).
    dps : int, optional
        Keyword only: one value in mpmath, correct to ``dps`` significant digits.

    Returns
    -------
    numpy.ndarray or float or mpmath.mpf
        The bound in [0, 1].

    Raises
    ------
    ValueError
        If a parameter is outside its range (the message names it), ``tail`` is not
        ``"upper"`` or ``"lower"``, ``dps`` is invalid, or ``dps`` is given with arrays.

    References
    ----------
    See the module's References:

    - Dembo and Zeitouni (1998), Sec. 2.2 (Chernoff bounds, Cramér's theorem);
    - Bray (2026), "Analytical Tools"; docs/loss-network.md.

    Examples
    --------
    >>> round(float(poisson_tail_bound(4.0, 2.0, "lower")), 6)  # exp(-4 h(1/2))
    0.541341
    >>> poisson_tail_bound(4.0, 2.0, "upper", dps=20)  # below the mean: the trivial bound
    mpf('1.0')
    """
    return _exp(lambda dps: log_poisson_tail_bound(mean, x, tail, dps=dps), dps)


def log_walk_tail_bound(
    steps, up_probability, position, tail: str = "upper", *, dps: int | None = None
):
    """Log of the Chernoff bound on P(S_n >= a) (``"upper"``) or P(S_n <= a)
    (``"lower"``) for n = ``steps`` steps of a ±1 walk with up-probability
    ``up_probability``: −n KL((1 + a/n)/2 ‖ p) on the tail's side of the mean n(2p − 1), 0 on
    the other, −inf beyond ±n.

    Parameters
    ----------
    steps : int or array_like
        n >= 1.
    up_probability : float or array_like
        p in (0, 1).
    position : float or array_like
        The tail level a.
    tail : {"upper", "lower"}, optional
        P(S_n >= a) or P(S_n <= a).
    dps : int, optional
        Keyword only: one value in mpmath, correct to ``dps`` significant digits.

    Returns
    -------
    numpy.ndarray or float or mpmath.mpf
        The log of the bound (<= 0; −inf for an impossible event).

    Raises
    ------
    ValueError
        If a parameter is outside its range (the message names it), ``tail`` is not
        ``"upper"`` or ``"lower"``, ``dps`` is invalid, or ``dps`` is given with arrays.

    References
    ----------
    See the module's References:

    - Dembo and Zeitouni (1998), Sec. 2.2 (Chernoff bounds, Cramér's theorem);
    - Bray (2026), "Analytical Tools"; docs/loss-network.md.

    Examples
    --------
    P(S_n >= n) = p^n, attained:

    >>> round(float(log_walk_tail_bound(10, 0.5, 10.0) / np.log(0.5)), 12)
    10.0
    """
    dps = check_dps(dps)
    n = _array("steps", steps, "an integer >= 1", lambda a: (a >= 1) & (a % 1 == 0))
    p = _array("up_probability", up_probability, "in (0, 1)", lambda a: (a > 0) & (a < 1))
    a = _real("position", position)
    return _log_bound(_WALK, (n, p, a), tail, (-n, n), dps)


def walk_tail_bound(
    steps, up_probability, position, tail: str = "upper", *, dps: int | None = None
):
    """The Chernoff bound exp(−n I_p(a/n)) itself (see :func:`log_walk_tail_bound`).

    Parameters
    ----------
    steps : int or array_like
        n >= 1.
    up_probability : float or array_like
        p in (0, 1).
    position : float or array_like
        The tail level a.
    tail : {"upper", "lower"}, optional
        P(S_n >= a) or P(S_n <= a).
    dps : int, optional
        Keyword only: one value in mpmath, correct to ``dps`` significant digits.

    Returns
    -------
    numpy.ndarray or float or mpmath.mpf
        The bound in [0, 1].

    Raises
    ------
    ValueError
        If a parameter is outside its range (the message names it), ``tail`` is not
        ``"upper"`` or ``"lower"``, ``dps`` is invalid, or ``dps`` is given with arrays.

    References
    ----------
    See the module's References:

    - Dembo and Zeitouni (1998), Sec. 2.2 (Chernoff bounds, Cramér's theorem);
    - Bray (2026), "Analytical Tools"; docs/loss-network.md.

    Examples
    --------
    >>> round(float(walk_tail_bound(100, 0.6, 0.0, "lower")), 6)  # (2 sqrt(0.24))^100
    0.129886
    """
    return _exp(
        lambda dps: log_walk_tail_bound(steps, up_probability, position, tail, dps=dps), dps
    )


def log_skellam_tail_bound(up, down, x, tail: str = "upper", *, dps: int | None = None):
    """Log of the Chernoff bound on P(U − D >= x) (``"upper"``) or P(U − D <= x)
    (``"lower"``), U ~ Poisson(``up``), D ~ Poisson(``down``) independent:
    −(u + d − sqrt(x² + 4ud) + x log ρ*) on the tail's side of u − d, 0 on the other.

    Parameters
    ----------
    up, down : float or array_like
        The Poisson means u, d > 0.
    x : float or array_like
        The tail level.
    tail : {"upper", "lower"}, optional
        P(U − D >= x) or P(U − D <= x).
    dps : int, optional
        Keyword only: one value in mpmath, correct to ``dps`` significant digits.

    Returns
    -------
    numpy.ndarray or float or mpmath.mpf
        The log of the bound (<= 0; −inf for an impossible event).

    Raises
    ------
    ValueError
        If a parameter is outside its range (the message names it), ``tail`` is not
        ``"upper"`` or ``"lower"``, ``dps`` is invalid, or ``dps`` is given with arrays.

    References
    ----------
    See the module's References:

    - Dembo and Zeitouni (1998), Sec. 2.2 (Chernoff bounds, Cramér's theorem);
    - Bray (2026), "Analytical Tools"; docs/loss-network.md.

    Examples
    --------
    u = d = 1, x = −2: ρ* = sqrt 2 − 1 and Λ* = 2 − 2 sqrt 2 + 2 log(1 + sqrt 2):

    >>> round(float(log_skellam_tail_bound(1.0, 1.0, -2.0, "lower")), 10)
    -0.9343200493
    """
    dps = check_dps(dps)
    u = _positive("up", up)
    d = _positive("down", down)
    x = _real("x", x)
    if dps is not None:
        return _log_bound(_SKELLAM, (u, d, x), tail, (-np.inf, np.inf), dps)
    # Λ* is homogeneous of degree 1 in (u, d, x): evaluate at a power-of-two scale where
    # x² + 4ud neither overflows nor underflows, and scale back (exact).
    exponent = _skellam_exponent(u, d, x)
    args = (np.ldexp(u, exponent), np.ldexp(d, exponent), np.ldexp(x, exponent))
    if not (np.all(args[0] >= _SMALLEST_NORMAL) and np.all(args[1] >= _SMALLEST_NORMAL)):
        raise ValueError(
            "up and down must be within about 1e300 of sqrt(x² + 4 up down) "
            f"(their magnitudes are too far apart for float64), got up={up!r}, down={down!r}"
        )
    return np.ldexp(_log_bound(_SKELLAM, args, tail, (-np.inf, np.inf), None), -exponent)


_SMALLEST_NORMAL = np.finfo(float).tiny


def _skellam_exponent(u, d, x):
    """Exponents k such that 2^k sqrt(x² + 4ud) is near 1 where it is outside 2^±400
    (else 0); applied with ``np.ldexp``, since 2^k itself can overflow (k up to 1074)."""
    with np.errstate(over="ignore"):
        size = np.maximum(np.abs(x), 2.0 * np.sqrt(u) * np.sqrt(d))
    outside = (size > 2.0**400) | (size < 2.0**-400)
    return -np.where(outside, np.floor(np.log2(size)), 0.0).astype(np.int64)


def skellam_tail_bound(up, down, x, tail: str = "upper", *, dps: int | None = None):
    """The Chernoff bound itself (see :func:`log_skellam_tail_bound`).

    Parameters
    ----------
    up, down : float or array_like
        The Poisson means u, d > 0.
    x : float or array_like
        The tail level.
    tail : {"upper", "lower"}, optional
        P(U − D >= x) or P(U − D <= x).
    dps : int, optional
        Keyword only: one value in mpmath, correct to ``dps`` significant digits.

    Returns
    -------
    numpy.ndarray or float or mpmath.mpf
        The bound in [0, 1].

    Raises
    ------
    ValueError
        If a parameter is outside its range (the message names it), ``tail`` is not
        ``"upper"`` or ``"lower"``, ``dps`` is invalid, or ``dps`` is given with arrays.

    References
    ----------
    See the module's References:

    - Dembo and Zeitouni (1998), Sec. 2.2 (Chernoff bounds, Cramér's theorem);
    - Bray (2026), "Analytical Tools"; docs/loss-network.md.

    Examples
    --------
    >>> round(float(skellam_tail_bound(5.0, 3.0, 10.0)), 6)  # rho* = (10 + sqrt 160)/10
    0.029415
    """
    return _exp(lambda dps: log_skellam_tail_bound(up, down, x, tail, dps=dps), dps)
