"""Parameters of the unobservable M/M/1 queue with admission control.

How parameters are read (the same on every route): a parameter stands for the decimal
the user typed.  A float is read as its shortest ``repr`` decimal (``0.6`` is 3/5, not
the binary number 0.59999999999999997779...), a string as the decimal or fraction it
spells, ``inf`` (a float or the string ``"inf"``) as ∞, and an ``mpmath.mpf`` as its
exact binary value.  :func:`to_mpf` does this for the mpmath routes (``dps=D`` and the
optima, which are always computed in mpmath), and
:meth:`GatedQueue.exact_parameters` reads the same rationals, so a
``dps=D`` value is the value at the input that a certified enclosure encloses.  Only
the vectorised float64 evaluations (:func:`qtheory.gated.welfare.welfare_ga` and
:func:`~qtheory.gated.welfare.welfare_rr` with ``dps=None``, the GI/M/1 root in
float64) work with the floats themselves; where that costs digits they say so with an
:class:`IllConditionedWarning` (:meth:`GatedQueue.warn_if_ill_conditioned`).

References
----------
.. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026).
.. [2] P. Naor, "The regulation of queue size by levying tolls", Econometrica 37(1):15-24
   (1969) (the ratio ν = Rμ/C).
"""

from __future__ import annotations

import math
import numbers
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar, cast

import mpmath

from qtheory.core import limits
from qtheory.core.precision import INFINITY_WORDS, decimal_fraction

if TYPE_CHECKING:
    from flint import fmpq

Number = float | int | str | mpmath.mpf

#: The fields of :class:`GatedQueue`, in order.
_FIELDS = ("arrival_rate", "service_rate", "reward", "cost")

#: The number type of a :class:`GatedParameters`: float64, ``flint.fmpq``, or an
#: ``mpmath.mpf`` (which type checkers see as ``Any``).
_Num = TypeVar("_Num", float, "fmpq")

#: Unit roundoff of float64: rounding a number to float64 changes it by at most this
#: much, relative.
UNIT_ROUNDOFF = 2.0**-53

#: Relative error bound above which a float64 result warns (:class:`IllConditionedWarning`).
ILL_CONDITIONED = 1e-8


class IllConditionedWarning(UserWarning):
    """A float64 result that the rounding of its inputs to float64 may change by more
    than :data:`ILL_CONDITIONED` relative: recompute it with ``dps=D`` (``--dps D``).

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     GatedQueue("inf", 1, 1 + 1e-12, 1).warn_if_ill_conditioned("S_RR")
    >>> caught[0].category.__name__, str(caught[0].message)[:34]
    ('IllConditionedWarning', 'S_RR in float64 is ill-conditioned')
    """


def exact_digits(*values: Number) -> int:
    """Decimal digits that represent every value exactly enough for sums and products
    of a few of them: a float needs 17 (its ``repr`` decimal has at most 17 significant
    digits), a string its own length, an mpf its precision;
    a product of values needs the sum of their digits, and a difference of two numbers
    of similar size (the only one that cancels) no more than the longer of them.

    The count is the sum of the values' digits plus 20 guard digits.

    Parameters
    ----------
    *values : float, int, str or mpmath.mpf
        The numbers to be read exactly.

    Returns
    -------
    int
        Decimal digits of a working precision that holds them.

    Examples
    --------
    17 for the float, 5 for the string, 20 guard digits:

    >>> exact_digits(1.5, "0.125")
    42
    """

    def digits(value: Number) -> int:
        if isinstance(value, str):
            return len(value)
        if isinstance(value, mpmath.mpf):
            return int(value._mpf_[3] * 0.302) + 2  # mantissa bits -> decimal digits
        return 17

    return sum(digits(v) for v in values) + 20


def to_mpf(value: Number) -> mpmath.mpf:
    """A parameter as an mpf at the current precision, read as the decimal it stands for.

    A float (NumPy's included) is read as its shortest ``repr`` decimal, a string as the
    decimal or fraction it spells (``"0.1"``, ``"3/5"``, ``"inf"``, ``"infinity"``),
    both rounded once to the current precision; an mpf keeps its binary value (rounded
    to the current precision).  This is the rational that
    :meth:`GatedQueue.exact_parameters` reads, so every route computes at
    the same input.

    Parameters
    ----------
    value : float, int, str or mpmath.mpf
        The number.

    Returns
    -------
    mpmath.mpf
        ``value`` rounded to the current ``mpmath.mp.dps``.

    Raises
    ------
    ValueError
        A string that is not a number (or a fraction with denominator 0).

    Examples
    --------
    The float 0.1 and the string "0.1" are the same number, 1/10 (the float's binary
    value, 0.1000000000000000055511..., is not what was typed):

    >>> with mpmath.workdps(30):
    ...     to_mpf(0.1) == to_mpf("0.1") == mpmath.mpf(1) / 10
    True
    >>> to_mpf("3/5") == to_mpf(0.6), to_mpf(" Infinity "), to_mpf(mpmath.mpf(0.1)) == 0.1
    (True, mpf('+inf'), True)
    """
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral | mpmath.mpf):
        return mpmath.mpf(repr(float(value)))  # float(): NumPy's repr is np.float64(...)
    if isinstance(value, str):
        text = value.strip()
        if text.lower().lstrip("+") in INFINITY_WORDS:
            return mpmath.mpf("inf")
        try:
            return mpmath.mpf(text)
        except ZeroDivisionError:
            raise ValueError(f"{value!r} divides by zero") from None
    if isinstance(value, numbers.Integral):
        return mpmath.mpf(int(value))
    return mpmath.mpf(value)


def _checked(name: str, value: Number, *, allow_inf: bool = False) -> Number:
    """Validate ``value > 0`` (parsed at full precision) and return it unchanged, so
    that high-precision routes later read it at their own working precision."""
    if isinstance(value, bool) or not isinstance(value, str | mpmath.mpf | numbers.Real):
        raise TypeError(f"{name} must be a real number, a decimal string or an mpf, got {value!r}")
    if isinstance(value, numbers.Real) and not isinstance(value, float | mpmath.mpf):
        try:
            value = float(value)  # ints and NumPy scalars (mpf registers as Real: keep it)
        except OverflowError:
            raise ValueError(f"{name} overflows float64; pass it as a string") from None
    limits.require("dps", exact_digits(value), parameter=name, what=f"reading {name} exactly")
    try:
        with mpmath.workdps(exact_digits(value)):
            exact = to_mpf(value)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be a real number, got {value!r}") from error
    if mpmath.isnan(exact):
        raise ValueError(f"{name} must not be NaN")
    if not exact > 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    if mpmath.isinf(exact) and not allow_inf:
        raise ValueError(f"{name} must be finite, got {value!r}")
    return value.strip() if isinstance(value, str) else value


@dataclass(frozen=True)
class GatedParameters(Generic[_Num]):
    """A queue's parameters in one number type, as the formulas read them: float64 or
    mpf at the caller's precision (:meth:`GatedQueue.parameters`), or the exact rationals
    (``flint.fmpq``) of the certified routes (:meth:`GatedQueue.exact_parameters`).

    β = 1/Λ is 0 for Λ = ∞, and ε = ν − 1 is a field (not R μ/C − 1 recomputed), so that
    the arrival rate, Cε = Rμ − C and ν are derived from the fields without cancellation.

    Attributes
    ----------
    mu : float, mpmath.mpf or flint.fmpq
        The service rate μ.
    beta : float, mpmath.mpf or flint.fmpq
        β = 1/Λ, 0 for Λ = ∞.
    reward, cost : float, mpmath.mpf or flint.fmpq
        R and C.
    epsilon : float, mpmath.mpf or flint.fmpq
        ε = ν − 1 = (Rμ − C)/C, Naor's ratio less one (computed from the decimals, so it
        keeps its digits when ν is near 1; exact for fmpq).
    arrival, net, nu : (properties)
        Λ = 1/β (None for Λ = ∞), Cε = Rμ − C and ν = 1 + ε, in the same number type.

    Examples
    --------
    >>> GatedQueue("inf", 1, 3, 1).parameters().beta
    0.0
    >>> p = GatedQueue(0.6, 1, "1.5", 1).exact_parameters()
    >>> p.arrival, p.reward, p.nu, p.beta, p.net
    (3/5, 3/2, 3/2, 5/3, 1/2)
    """

    mu: _Num
    beta: _Num
    reward: _Num
    cost: _Num
    epsilon: _Num

    @property
    def arrival(self) -> _Num | None:
        """Λ = 1/β, None for Λ = ∞ (β = 0)."""
        return None if self.beta == 0 else 1 / self.beta

    @property
    def net(self) -> _Num:
        """Cε = Rμ − C (the net reward of a customer alone, times μ)."""
        return self.cost * self.epsilon

    @property
    def nu(self) -> _Num:
        """Naor's ratio ν = Rμ/C = 1 + ε."""
        return 1 + self.epsilon

    def to_json(self) -> dict[str, str]:
        """Λ, μ, R and C as text, ``"inf"`` for Λ = ∞ (certificates record the exact
        parameters this way: a rational prints as ``"p/q"`` or ``"p"``).

        Returns
        -------
        dict of str to str
            Keys ``arrival_rate``, ``service_rate``, ``reward`` and ``cost``.

        Examples
        --------
        >>> GatedQueue("inf", 1, 3, 2).exact_parameters().to_json()
        {'arrival_rate': 'inf', 'service_rate': '1', 'reward': '3', 'cost': '2'}
        """
        arrival = self.arrival
        return {
            "arrival_rate": "inf" if arrival is None else str(arrival),
            "service_rate": str(self.mu),
            "reward": str(self.reward),
            "cost": str(self.cost),
        }


@dataclass(frozen=True)
class GatedQueue:
    """An unobservable M/M/1 queue with reward and waiting cost.

    Parameters may be floats, or strings / ``mpmath.mpf`` that carry more digits than
    float64.  Every route reads a parameter as the decimal it stands for (module
    docstring): a float as its shortest ``repr`` decimal (``0.6`` is 3/5), a string as
    the decimal or fraction it spells, an mpf as its binary value; the high-precision
    routes (``dps=``) read that decimal at their working precision.  Fields keep the
    type given (``"inf"`` stays a string; ints become floats); use :meth:`parameters`
    for numbers in one type.

    Parameters
    ----------
    arrival_rate
        Rate Λ of potential customers; ``math.inf`` (or ``"inf"``) is the deterministic
        limit.
    service_rate
        Exponential service rate μ.
    reward
        Reward R of each served customer.
    cost
        Cost C per customer per unit time in the system.

    Attributes
    ----------
    arrival_rate, service_rate, reward, cost : float, str or mpmath.mpf
        The four parameters, validated (> 0, finite except ``arrival_rate``), in the
        type given (ints and NumPy scalars become floats, strings are stripped).
    naor_ratio : float
        Naor's ratio ν = Rμ/C.

    Raises
    ------
    TypeError
        A field that is not a real number, a decimal string or an mpf.
    ValueError
        A field that is NaN, ≤ 0, infinite (all but ``arrival_rate``), not a number, or
        an int beyond float64; or a string longer than the ``dps`` limit.

    Examples
    --------
    >>> q = GatedQueue(arrival_rate=2.0, service_rate=1.0, reward=5.0, cost=1.0)
    >>> q.naor_ratio
    5.0
    >>> GatedQueue(arrival_rate=-1.0, service_rate=1.0, reward=5.0, cost=1.0)
    Traceback (most recent call last):
    ...
    ValueError: arrival_rate must be > 0, got -1.0

    References
    ----------
    See the module's References:

    - Hassin and Ravner (2026);
    - Naor (1969).
    """

    arrival_rate: Number
    service_rate: Number
    reward: Number
    cost: Number

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "arrival_rate", _checked("arrival_rate", self.arrival_rate, allow_inf=True)
        )
        for name in ("service_rate", "reward", "cost"):
            object.__setattr__(self, name, _checked(name, getattr(self, name)))

    @property
    def _values(self) -> tuple[Number, ...]:
        return (self.arrival_rate, self.service_rate, self.reward, self.cost)

    @property
    def naor_ratio(self) -> float:
        """ν = Rμ/C (float64): serving anybody is worth it only if ν > 1.

        A customer alone in the system earns R and costs C/μ on average, so ν > 1 is
        R > C/μ.  Computed as 1 + :meth:`naor_excess`.

        Returns
        -------
        float
            ν, rounded to float64.

        Examples
        --------
        >>> GatedQueue("inf", 2, 3, 1.5).naor_ratio  # 3 * 2 / 1.5
        4.0

        References
        ----------
        See the module's References: Naor (1969).
        """
        return float(self.naor_excess() + 1)

    def naor_excess(self) -> mpmath.mpf:
        """ν − 1 = (Rμ − C)/C of the parameters' decimals (:func:`to_mpf`), computed
        exactly enough to know its sign and size.

        Rμ − C is formed at enough digits to read the inputs exactly, and again with
        the digits it was seen to cancel, so that the result has the current precision
        (plus 10 guard digits) relative to itself however close ν is to 1.  A float
        reward ``1 + 1e-12`` gives 1e-12 (its decimal 1.000000000001), not the
        1.000088900582341e-12 of its binary value.

        Returns
        -------
        mpmath.mpf
            ε = ν − 1 (zero when Rμ = C exactly), at the current precision.

        Raises
        ------
        ValueError
            If the digits needed exceed the ``dps`` limit.

        Examples
        --------
        >>> import mpmath
        >>> mpmath.nstr(GatedQueue("inf", 1, "1.0000000000000000000001", 1).naor_excess(), 3)
        '1.0e-22'
        >>> mpmath.nstr(GatedQueue("inf", 1, 1 + 1e-12, 1).naor_excess(), 8)
        '1.0e-12'
        """
        # Reading R, mu and C at `digits` digits errs by about 10^-digits of R mu, so the
        # difference R mu - C keeps digits - log10(R mu / (R mu - C)) of them: a second
        # pass adds the digits that the first one saw cancel, so that the result is
        # correct to the caller's precision (plus 10 guard digits) however close nu is to 1.
        digits = max(exact_digits(*self._values), mpmath.mp.dps + 10)
        for _ in range(2):
            with mpmath.workdps(digits):
                reward, rate, cost = (
                    to_mpf(v) for v in (self.reward, self.service_rate, self.cost)
                )
                product = reward * rate
                excess = (product - cost) / cost
                if excess == 0:
                    return excess
                lost = math.ceil(float(mpmath.log10(abs(product / (excess * cost)))))
            needed = mpmath.mp.dps + 10 + max(lost, 0)
            if needed <= digits:
                return excess
            limits.require("dps", needed, parameter="reward", what="nu - 1 without cancellation")
            digits = needed
        return excess

    def require_worthwhile(self) -> None:
        """Raise ``ValueError`` unless ν = Rμ/C > 1 (otherwise the optimum serves nobody),
        and unless ν is representable.

        Raises
        ------
        ValueError
            ν ≤ 1 (decided exactly by :meth:`naor_excess`), or ν − 1 needs more digits
            than the ``dps`` limit allows.

        Examples
        --------
        >>> GatedQueue("inf", 1, 2, 1).require_worthwhile()  # ν = 2: returns None
        >>> GatedQueue("inf", 1, 1, 1).require_worthwhile()
        Traceback (most recent call last):
        ...
        ValueError: reward*service_rate/cost (Naor's ratio nu) must be > 1 ...
        """
        excess = self.naor_excess()
        if not excess > 0:
            raise ValueError(
                "reward*service_rate/cost (Naor's ratio nu) must be > 1 for an optimum to "
                f"exist, got nu - 1 = {mpmath.nstr(excess, 5)}"
            )

    def guard_digits(self) -> int:
        """Digits lost to cancellation near ν = 1 (log10 1/(ν−1)) and ν → ∞ (log10 ν).

        Returns
        -------
        int
            ⌈max(0, log10 1/(ν − 1))⌉ + ⌈max(0, log10 ν)⌉ (the first term is 0 when
            ν ≤ 1).

        Examples
        --------
        ν − 1 = 1e-6 gives 6 + ⌈log10(1 + 1e-6)⌉ = 7; ν ≈ 1e8 gives 0 + 8:

        >>> near_one, large = GatedQueue("inf", 1, "1.000001", 1), GatedQueue(2, 1, 1e8, 1)
        >>> near_one.guard_digits(), large.guard_digits()
        (7, 8)
        """
        excess = self.naor_excess()
        with mpmath.workdps(30):
            near_one = max(0.0, float(-mpmath.log10(excess))) if excess > 0 else 0.0
            large = max(0.0, float(mpmath.log10(1 + excess)))
        return math.ceil(near_one) + math.ceil(large)

    def float_rates(self) -> tuple[float, float, float, float]:
        """(Λ, μ, R, C) as float64 (Λ may be ``inf``), from :meth:`parameters`.

        Returns
        -------
        tuple of float

        Examples
        --------
        >>> GatedQueue(4, 1, 3, 1).float_rates(), GatedQueue("inf", 1, 3, 1).float_rates()[0]
        ((4.0, 1.0, 3.0, 1.0), inf)
        """
        p = self.parameters()
        return (math.inf if p.arrival is None else p.arrival), p.mu, p.reward, p.cost

    def parameters(
        self, dps: int | None = None
    ) -> GatedParameters[float] | GatedParameters[mpmath.mpf]:
        """μ, β = 1/Λ, R, C and ε = ν − 1 as float64 (``dps=None``; a ValueError if one
        is beyond float64) or as mpf at the current precision (any ``dps``).

        Parameters
        ----------
        dps : int or None
            None: float64 values.  Any integer: mpf values at the current
            ``mpmath.mp.dps`` (callers set that precision; the number itself is not
            used).

        Returns
        -------
        GatedParameters
            ``mu``, ``beta`` (0 for Λ = ∞), ``reward``, ``cost`` and ``epsilon``.

        Raises
        ------
        ValueError
            With ``dps=None``, a value beyond float64 (named).

        Examples
        --------
        >>> GatedQueue(4, 1, 3, 1).parameters()
        GatedParameters(mu=1.0, beta=0.25, reward=3.0, cost=1.0, epsilon=2.0)

        The mpf values are those of the decimals (0.6 is 3/5); the float64 values of
        float fields are the floats themselves (β = 1/Λ rounded once), and ε is ν − 1
        of the decimals, rounded:

        >>> q = GatedQueue(0.6, 1, 1 + 1e-12, 1)
        >>> with mpmath.workdps(30):
        ...     mpmath.nstr(q.parameters(30).beta, 25)  # 1/0.6 = 5/3
        '1.666666666666666666666667'
        >>> q.parameters().reward == 1 + 1e-12, round(q.parameters().epsilon * 1e12, 12)
        (True, 1.0)
        """
        arrival = to_mpf(self.arrival_rate)
        values = {
            "mu": to_mpf(self.service_rate),
            "beta": mpmath.mpf(0) if mpmath.isinf(arrival) else 1 / arrival,
            "R": to_mpf(self.reward),
            "C": to_mpf(self.cost),
            "epsilon": +self.naor_excess(),
        }
        if dps is not None:
            return GatedParameters(*values.values())
        floats = {name: _float64(name, value) for name, value in values.items()}
        # float fields are the float64 inputs themselves, not their decimals rounded back
        for name, field in (("mu", self.service_rate), ("R", self.reward), ("C", self.cost)):
            if isinstance(field, float):
                floats[name] = float(field)
        if isinstance(self.arrival_rate, float):
            floats["beta"] = 1.0 / float(self.arrival_rate)  # 0.0 for inf
        return GatedParameters(*floats.values())

    def exact_parameters(self, *, worthwhile: bool = False) -> GatedParameters[fmpq]:
        """μ, β = 1/Λ, R, C and ε = ν − 1 as the exact rationals (``flint.fmpq``) that the
        fields stand for: the certified routes' parameters.

        Each field is read by :func:`qtheory.core.precision.decimal_fraction`, the
        reading of every route (a float is the decimal it prints, 0.6 is 3/5; a string
        the decimal or fraction it spells; an mpf its exact binary value); β = 0 for
        Λ = ∞, and ε = (Rμ − C)/C is exact, so its sign decides ν > 1.

        Parameters
        ----------
        worthwhile : bool, keyword-only, default False
            Also require ν = Rμ/C > 1 (decided on the rationals; otherwise the optimum
            of the certified welfare serves nobody).

        Returns
        -------
        GatedParameters
            Fields of type ``flint.fmpq`` (python-flint is imported here, not when this
            module is).

        Raises
        ------
        ValueError
            With ``worthwhile``, if ν ≤ 1 (naming reward*service_rate/cost).

        Examples
        --------
        >>> GatedQueue(0.6, 1, "1.5", 1).exact_parameters()
        GatedParameters(mu=1, beta=5/3, reward=3/2, cost=1, epsilon=1/2)
        >>> GatedQueue("inf", 10, 0.1, 1).exact_parameters(worthwhile=True)
        Traceback (most recent call last):
        ...
        ValueError: reward*service_rate/cost (Naor's ratio nu) must be > 1 ... got nu = 1
        """
        from flint import fmpq  # python-flint only where exact parameters are asked for

        fractions = (decimal_fraction(getattr(self, name), name=name) for name in _FIELDS)
        arrival, *finite = (
            None if f is None else fmpq(f.numerator, f.denominator) for f in fractions
        )
        mu, reward, cost = cast("list[fmpq]", finite)  # None is Λ = ∞; μ, R, C are finite
        params = GatedParameters(
            mu=mu,
            beta=fmpq(0) if arrival is None else 1 / arrival,
            reward=reward,
            cost=cost,
            epsilon=(reward * mu - cost) / cost,
        )
        if worthwhile and not params.epsilon > 0:
            raise ValueError(
                "reward*service_rate/cost (Naor's ratio nu) must be > 1 for an optimum to "
                f"exist, got nu = {params.nu}"
            )
        return params

    def condition(self) -> float:
        """The relative condition number ν/(ν − 1) of ν − 1 in the parameters.

        Rounding R, μ or C by a relative δ changes ν − 1 = (Rμ − C)/C by up to about
        ν/(ν − 1)·δ relative.  A positive welfare evaluated from the rounded parameters
        loses at least as much: S_GA and S_RR contain N = R − C/(μ(1 − σ)) and
        R − C/(μ − λ), at most R − C/μ, whose relative condition (R + C/u)/|N| is then
        at least ν/(ν − 1).

        Returns
        -------
        float
            ν/(ν − 1) = 1 + 1/(ν − 1) (``inf`` when ν = 1; negative when ν < 1).

        Examples
        --------
        >>> GatedQueue("inf", 1, 2, 1).condition()
        2.0
        >>> f"{GatedQueue('inf', 1, '1.000000000001', 1).condition():.3g}"
        '1e+12'
        """
        excess = self.naor_excess()
        if excess == 0:
            return math.inf
        with mpmath.workdps(20):
            return float(1 + 1 / excess)

    def warn_if_ill_conditioned(
        self, what: str, condition: float | None = None, *, stacklevel: int = 2
    ) -> None:
        """Warn (:class:`IllConditionedWarning`) when a float64 evaluation of ``what``
        from float64 parameters may be wrong by more than :data:`ILL_CONDITIONED`
        relative: when its relative condition number times the unit roundoff
        2^-53 ≈ 1.1e-16 exceeds that.

        Parameters
        ----------
        what : str
            The quantity, for the message (e.g. ``"welfare_ga"``).
        condition : float or None
            The relative condition number of ``what`` in the parameters; None:
            ν/(ν − 1) (:meth:`condition`, which bounds it below for a positive
            welfare).  Not computed again when given, so a caller's cheap float64
            estimate costs no mpmath.
        stacklevel : int, keyword-only, default 2
            As :func:`warnings.warn` (2: the caller's line).

        Returns
        -------
        None

        Examples
        --------
        ν = 2 does not warn:

        >>> import warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("error")
        ...     GatedQueue("inf", 1, 2, 1).warn_if_ill_conditioned("welfare_rr")
        """
        if condition is None:
            condition = self.condition()
        condition = abs(condition)
        bound = condition * UNIT_ROUNDOFF
        if not bound > ILL_CONDITIONED:
            return
        with mpmath.workdps(20):
            excess = self.naor_excess()
            nu_condition = math.inf if excess == 0 else float(abs(1 + 1 / excess))
            excess = mpmath.nstr(excess, 3)
        warnings.warn(
            f"{what} in float64 is ill-conditioned: relative condition {condition:.2g} in "
            f"the parameters (nu - 1 = {excess}, nu/(nu - 1) = {nu_condition:.2g}), so the "
            f"float64 parameters leave it a relative error of up to about {bound:.1e} "
            f"(condition times unit roundoff {UNIT_ROUNDOFF:.2g}); for the value at the "
            "decimal parameters use dps=D (command line: --dps D)",
            IllConditionedWarning,
            stacklevel=stacklevel + 1,
        )

    def as_float64(self) -> GatedQueue:
        """The same queue with float fields (``arrival_rate`` may be ``inf``); a
        ValueError names a field that is beyond float64 (use ``dps=D`` routes then).

        Returns
        -------
        GatedQueue
            A new queue whose fields are float64 numbers.

        Raises
        ------
        ValueError
            A finite field that overflows float64.

        Examples
        --------
        >>> GatedQueue("inf", "1", "2.5", 1).as_float64()
        GatedQueue(arrival_rate=inf, service_rate=1.0, reward=2.5, cost=1.0)
        """
        return GatedQueue(*(_as_float64(name, getattr(self, name)) for name in _FIELDS))


def _as_float64(name: str, value: Number) -> float:
    """A field as float64: a float itself, a string or mpf rounded (at the current
    precision; a finite value beyond float64 is a ValueError naming ``name``)."""
    if isinstance(value, float):
        return float(value)
    return _float64(name, to_mpf(value))


def _float64(name: str, value: mpmath.mpf) -> float:
    """``float(value)``, refusing a finite value that overflows float64."""
    result = float(value)
    if math.isinf(result) and mpmath.isfinite(value):
        raise ValueError(f"{name} = {mpmath.nstr(value, 5)} overflows float64; use dps=D")
    return result


def checked_queue(queue: object, *, worthwhile: bool = False) -> GatedQueue:
    """``queue`` itself, after checking that it is a :class:`GatedQueue` (and, with
    ``worthwhile``, that ν > 1: :meth:`GatedQueue.require_worthwhile`).

    Parameters
    ----------
    queue : GatedQueue
    worthwhile : bool, keyword-only
        Also require Naor's ratio ν = Rμ/C > 1.

    Returns
    -------
    GatedQueue

    Raises
    ------
    TypeError
        If ``queue`` is not a :class:`GatedQueue`.
    ValueError
        With ``worthwhile``, if ν ≤ 1.

    Examples
    --------
    >>> checked_queue(GatedQueue("inf", 1, 2, 1)).reward
    2.0
    >>> checked_queue((2, 1, 2, 1))
    Traceback (most recent call last):
    ...
    TypeError: queue must be a GatedQueue, got tuple
    """
    if not isinstance(queue, GatedQueue):
        raise TypeError(f"queue must be a GatedQueue, got {type(queue).__name__}")
    if worthwhile:
        queue.require_worthwhile()
    return queue
