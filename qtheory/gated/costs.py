r"""The cost an admitted customer pays: any sojourn-based cost, or a holding cost per
customer present.

A :class:`CustomerCost` is the expected cost :math:`g` of one admitted customer as a
function of the GI/M/1 root :math:`\sigma = e^{-w}` of the admitted stream
(:mod:`qtheory.gated.cost_derivation` derives every built-in family with Sympy, and
``qtheory/gated/_generated.py`` evaluates them).  Two kinds, with :math:`C` the queue's
``cost`` as the scale of every family:

- **sojourn costs** (:func:`sojourn_cost`): a customer whose sojourn is :math:`W` pays
  :math:`C\varphi(W)`; ``linear`` (= ``power:1``, the model of
  :mod:`qtheory.gated.welfare`), ``power:p``, ``deadline:d``, ``exponential:θ``, or any
  nondecreasing Python callable φ (then :math:`g = C\int_0^\infty \varphi(x/u)e^{-x}dx` by
  quadrature, :math:`u = \mu(1-\sigma)`);
- **holding costs** (:func:`holding_cost`): :math:`C n^p` per unit time while n
  customers are present, ``power:p`` (``power:1`` equals the linear sojourn cost by
  Little's law).

Every family's :math:`g` is nonincreasing in w (increasing in the load), which is what the
optimiser's bracket rests on: so a callable φ must be nondecreasing (checked on a grid
of 200 points).  ``exponential:θ`` is finite only where :math:`u > \theta`, i.e.
:math:`w > -\log(1 - \theta/\mu)`, and needs :math:`\theta < \mu`.

>>> c = sojourn_cost("deadline:1")
>>> c.family, c.shape, c.unique_gate, c.unique_routing
('deadline', Fraction(1, 1), False, True)
>>> holding_cost("power:2").spec
'holding power:2'

References
----------
.. [1] L. Kleinrock, Queueing Systems, Vol. I, Wiley (1975), Sec. 6.4.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath

from qtheory.gated import _generated

__all__ = ["LINEAR", "CustomerCost", "holding_cost", "sojourn_cost"]

SOJOURN_FAMILIES = ("power", "deadline", "exponential")
HOLDING_FAMILIES = ("power",)

#: The holding-cost exponents whose optima are proved unique (cost_derivation notes).
UNIQUE_HOLDING = (1, 2)

#: Relative accuracy a callable's E[φ(W)] must reach (scipy's error estimate).
QUADRATURE_TOLERANCE = 1e-11

#: Points on which a callable φ is checked to be nondecreasing: x/μ for x in
#: geomspace(1e-4, 1e4, MONOTONE_POINTS).
MONOTONE_POINTS = 200


@dataclass(frozen=True)
class CustomerCost:
    """The expected cost g of one admitted customer, as a function of w = −log σ.

    Attributes
    ----------
    kind : str
        ``"sojourn"`` or ``"holding"``.
    family : str
        ``"power"``, ``"deadline"``, ``"exponential"`` or ``"callable"``.
    shape : Fraction or None
        p, d or θ as the exact decimal typed (None for a callable).
    function : callable or None
        The callable φ (C φ(W) per customer); None for a built-in family.
    unique_gate, unique_routing : bool
        Whether GA's (RR's) optimum is proved unique for this family
        (:mod:`qtheory.gated.cost_derivation`); otherwise it is numerical.

    Examples
    --------
    E[C W²] = 2C/u² at u = μ(1 − σ); at μ = 1, σ = 1/2, C = 3 it is 24:

    >>> cost = sojourn_cost("power:2")
    >>> float(cost.expected(mpmath.log(2), mpmath.mpf(1), mpmath.mpf(3)))
    24.0
    """

    kind: str
    family: str
    shape: Fraction | None = None
    function: Callable[[float], float] | None = field(default=None, compare=False)

    @property
    def spec(self) -> str:
        """The family as the command line spells it, e.g. ``"sojourn power:2"``."""
        shape = "" if self.shape is None else f":{_decimal(self.shape)}"
        name = getattr(self.function, "__name__", "callable") if self.function else self.family
        return f"{self.kind} {name}{shape}"

    @property
    def is_linear(self) -> bool:
        """C·W per customer (``power:1`` of either kind): the model of
        :mod:`qtheory.gated.welfare`."""
        return self.family == "power" and self.shape == 1

    @property
    def unique_gate(self) -> bool:
        if self.kind == "holding":
            return self.shape in UNIQUE_HOLDING
        return self.family == "exponential" or (self.family == "power" and self.shape >= 1)

    @property
    def unique_routing(self) -> bool:
        if self.kind == "holding":
            return self.shape in UNIQUE_HOLDING
        return self.family != "callable"

    def finite_from(self, mu: mpmath.mpf) -> mpmath.mpf:
        """The w above which g is finite: −log(1 − θ/μ) for ``exponential:θ``, else 0."""
        if self.family == "exponential":
            return -mpmath.log1p(-self._shape() / mu)
        return mpmath.mpf(0)

    def expected(self, w: mpmath.mpf, mu: mpmath.mpf, cost: mpmath.mpf) -> mpmath.mpf:
        """g at σ = e^{−w}: the expected cost of one admitted customer (mpmath, current
        precision; +inf where it is infinite)."""
        if self.kind == "holding":
            return _generated.holding_cost_power_mp(w, mu, self._shape(), cost)
        u = -mu * mpmath.expm1(-w)
        if self.family == "callable":
            return cost * _quadrature(self.function, u)
        if self.family == "exponential" and u <= self._shape():
            return mpmath.inf
        evaluate = getattr(_generated, f"sojourn_cost_{self.family}_mp")
        return evaluate(u, self._shape(), cost)

    def light_traffic_limit(self, mu: mpmath.mpf, cost: mpmath.mpf) -> mpmath.mpf:
        """lim g as σ → 0 (w → ∞), the least expected cost: E[C φ(W)] at W ~ Exp(μ) for a
        sojourn cost, C/μ for a holding cost (one customer, alone, for 1/μ)."""
        if self.kind == "holding":
            return cost / mu
        return self.expected(mpmath.inf, mu, cost)

    def heavy_traffic_limit(self, cost: mpmath.mpf) -> mpmath.mpf:
        """lim g as σ → 1 (w → 0): C φ(∞) for a sojourn cost (C for ``deadline``,
        φ(inf) for a callable), +inf for the unbounded families."""
        if self.family == "deadline":
            return cost
        if self.family == "callable":
            return cost * _limit_at_infinity(self.function)
        return mpmath.inf

    def _shape(self) -> mpmath.mpf:
        return mpmath.mpf(self.shape.numerator) / self.shape.denominator

    def check(self, mu: mpmath.mpf) -> None:
        """Refuse what has no finite optimum at service rate μ (naming the option).

        Raises
        ------
        ValueError
            ``exponential:θ`` with θ ≥ μ (E[e^{θW}] is infinite at every load), or a
            callable that is not nondecreasing on x/μ, x in [1e-4, 1e4].
        """
        if self.family == "exponential" and self._shape() >= mu:
            raise ValueError(
                f"sojourn_cost exponential:theta needs theta < service_rate (E[exp(theta W)] "
                f"is infinite at every load otherwise), got theta = {_decimal(self.shape)}, "
                f"service_rate = {mpmath.nstr(mu, 10)}"
            )
        if self.family == "callable":
            _require_nondecreasing(self.function, mu)


def _decimal(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else str(float(value))


def _quadrature(function: Callable, u: mpmath.mpf) -> mpmath.mpf:
    """E[φ(W)], W ~ Exp(u), as ∫_0^∞ φ(x/u) e^{−x} dx by adaptive Gauss–Kronrod
    (:func:`scipy.integrate.quad`, which resolves a kink such as a cap or a deadline,
    where mpmath's tanh-sinh rule can be wrong in the sixth digit without saying so);
    its error estimate must be below :data:`QUADRATURE_TOLERANCE` relative."""
    from scipy.integrate import quad

    rate = float(u)
    value, error = quad(
        lambda x: float(function(x / rate)) * math.exp(-x), 0, math.inf,
        epsabs=0, epsrel=QUADRATURE_TOLERANCE / 10, limit=500,
    )  # fmt: skip
    if not error <= QUADRATURE_TOLERANCE * abs(value):
        raise ArithmeticError(
            f"sojourn_cost: the quadrature of E[c(W)] at W ~ Exp({rate:.6g}) did not reach "
            f"relative accuracy {QUADRATURE_TOLERANCE:g} (value {value:.6g}, error "
            f"estimate {error:.2g})"
        )
    return mpmath.mpf(value)


def _limit_at_infinity(function: Callable) -> mpmath.mpf:
    try:
        value = mpmath.mpf(function(math.inf))
    except (ArithmeticError, TypeError, ValueError) as error:
        raise ValueError(
            f"sojourn_cost: a callable must return its limit at inf (inf when unbounded), "
            f"got an error: {error}"
        ) from error
    if mpmath.isnan(value):
        raise ValueError("sojourn_cost: a callable must return its limit at inf, got nan")
    return value


def _require_nondecreasing(function: Callable, mu: mpmath.mpf) -> None:
    scale = float(mu)
    points = [10 ** (-4 + 8 * k / (MONOTONE_POINTS - 1)) / scale for k in range(MONOTONE_POINTS)]
    values = [float(function(x)) for x in points]
    for k in range(1, MONOTONE_POINTS):
        (x0, v0), (x1, v1) = (points[k - 1], values[k - 1]), (points[k], values[k])
        if not v1 >= v0:
            raise ValueError(
                f"sojourn_cost must be nondecreasing in the sojourn time, got "
                f"c({x1:.4g}) = {v1:.6g} < c({x0:.4g}) = {v0:.6g}"
            )


def _shape(option: str, family: str, text: str) -> Fraction:
    try:
        value = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise ValueError(f"{option} {family}:X needs a number X, got {text!r}") from None
    if not value > 0:
        raise ValueError(f"{option} {family}:X needs X > 0, got {text!r}")
    return value


def _parse(option: str, spec: str, families: tuple[str, ...], kind: str) -> CustomerCost:
    if not isinstance(spec, str):
        raise TypeError(f"{option} must be a string such as 'power:2', got {spec!r}")
    text = spec.strip().lower()
    if text == "linear":
        return CustomerCost(kind, "power", Fraction(1))
    family, colon, shape = text.partition(":")
    if family not in families or not colon:
        choices = ", ".join(f"{name}:X" for name in families)
        raise ValueError(f"{option} must be linear or one of {choices}, got {spec!r}")
    return CustomerCost(kind, family, _shape(option, family, shape))


def sojourn_cost(spec: str | Callable[[float], float]) -> CustomerCost:
    """The sojourn cost of a specification: ``linear``, ``power:p``, ``deadline:d``,
    ``exponential:θ`` or a nondecreasing callable φ (each customer pays C φ(W)).

    Parameters
    ----------
    spec : str or callable
        The family and its shape (a decimal, read exactly), or φ.  A callable is called
        with mpmath numbers (use ``mpmath`` or ``math`` functions, not NumPy ufuncs)
        and with ``mpmath.inf``, where it must return its limit (inf when unbounded).

    Returns
    -------
    CustomerCost

    Raises
    ------
    ValueError
        An unknown family or a shape ≤ 0 (naming ``sojourn_cost``).

    Examples
    --------
    >>> sojourn_cost("linear").is_linear, sojourn_cost("power:2").shape
    (True, Fraction(2, 1))
    >>> sojourn_cost("quadratic")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: sojourn_cost must be linear or one of power:X, deadline:X, exponential:X, ...
    """
    if callable(spec):
        return CustomerCost("sojourn", "callable", None, spec)
    return _parse("sojourn_cost", spec, SOJOURN_FAMILIES, "sojourn")


def holding_cost(spec: str) -> CustomerCost:
    """The holding cost of a specification: ``linear`` or ``power:p`` (C n^p per unit
    time while n customers are present).

    Parameters
    ----------
    spec : str

    Returns
    -------
    CustomerCost

    Raises
    ------
    ValueError
        An unknown family or p ≤ 0 (naming ``holding_cost``).

    Examples
    --------
    >>> holding_cost("power:1").is_linear, holding_cost("power:2").unique_gate
    (True, True)
    """
    return _parse("holding_cost", spec, HOLDING_FAMILIES, "holding")


#: C per unit time in the system, C·W per customer: the model of :mod:`qtheory.gated.welfare`.
LINEAR = CustomerCost("sojourn", "power", Fraction(1))
