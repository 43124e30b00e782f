"""Parameters of the unobservable M/M/1 queue with admission control.

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
from dataclasses import dataclass

import mpmath

from qtheory import limits

Number = float | int | str | mpmath.mpf


def exact_digits(*values: Number) -> int:
    """Decimal digits that represent every value exactly enough for sums and products
    of a few of them: a float needs 17, a string its own length, an mpf its precision;
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
    """Convert at the current precision (strings such as ``"0.1"`` or ``"inf"`` keep
    their decimal meaning up to that precision; floats are exact).

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
        A string that is not a number.

    Examples
    --------
    >>> to_mpf("0.5") == to_mpf(0.5)
    True
    >>> with mpmath.workdps(30):
    ...     mpmath.nstr(to_mpf("0.1") - to_mpf(0.1), 3)  # 0.1 is not a float64 number
    '-5.55e-18'
    """
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
            exact = mpmath.mpf(value.strip() if isinstance(value, str) else value)
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
class GatedQueue:
    """An unobservable M/M/1 queue with reward and waiting cost.

    Parameters may be floats, or strings / ``mpmath.mpf`` that carry more digits than
    float64: the high-precision routes (``dps=``) read them at their working precision.
    Fields keep the type given (``"inf"`` stays a string; ints become floats); use
    :meth:`parameters` for numbers in one type.

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
    .. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
       queues", arXiv:2606.02464 (2026).
    .. [2] P. Naor, "The regulation of queue size by levying tolls", Econometrica
       37(1):15-24 (1969).
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
        .. [1] P. Naor, "The regulation of queue size by levying tolls", Econometrica
           37(1):15-24 (1969).
        """
        return float(self.naor_excess() + 1)

    def naor_excess(self) -> mpmath.mpf:
        """ν − 1 = (Rμ − C)/C, computed exactly enough to know its sign and size.

        Rμ − C is formed at enough digits to read the inputs exactly, and again with
        the digits it was seen to cancel, so that the result has the current precision
        (plus 10 guard digits) relative to itself however close ν is to 1.

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

    def parameters(self, dps: int | None = None) -> dict[str, float | mpmath.mpf]:
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
        dict
            Keys ``"mu"``, ``"beta"`` (0 for Λ = ∞), ``"R"``, ``"C"`` and
            ``"epsilon"``.

        Raises
        ------
        ValueError
            With ``dps=None``, a value beyond float64 (named).

        Examples
        --------
        >>> GatedQueue(4, 1, 3, 1).parameters()
        {'mu': 1.0, 'beta': 0.25, 'R': 3.0, 'C': 1.0, 'epsilon': 2.0}
        """
        arrival = to_mpf(self.arrival_rate)
        values = {
            "mu": to_mpf(self.service_rate),
            "beta": mpmath.mpf(0) if mpmath.isinf(arrival) else 1 / arrival,
            "R": to_mpf(self.reward),
            "C": to_mpf(self.cost),
            "epsilon": +self.naor_excess(),
        }
        if dps is None:
            return {name: _float64(name, value) for name, value in values.items()}
        return values

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
        return GatedQueue(
            *(
                _float64(name, to_mpf(getattr(self, name)))
                for name in ("arrival_rate", "service_rate", "reward", "cost")
            )
        )


def _float64(name: str, value: mpmath.mpf) -> float:
    """``float(value)``, refusing a finite value that overflows float64."""
    result = float(value)
    if math.isinf(result) and mpmath.isfinite(value):
        raise ValueError(f"{name} = {mpmath.nstr(value, 5)} overflows float64; use dps=D")
    return result
