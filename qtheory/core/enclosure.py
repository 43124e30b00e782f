r"""Certified numbers: enclosures from ball arithmetic, and exact parameters.

The package certifies values with Arb ball arithmetic (python-flint's :class:`flint.arb`):
every operation returns a ball (midpoint, radius) guaranteed to contain the exact
result, so a computed ball is a proof that the true value lies inside it.  This module
holds what every certifying routine shares:

- :class:`Enclosure`, the user-facing result: decimal lower and upper bounds (rounded
  outward, so the decimal interval contains the ball) and their relative width;
- :func:`exact`, which reads a parameter as the exact rational it prints as
  (``0.6`` means 3/5, not the binary float nearest to it), so that a certificate is a
  statement about the numbers the user typed;
- :func:`working_precision`, the Arb working precision for a requested number of
  significant digits, with guard bits, restored in ``finally`` (as
  :func:`qtheory.core.precision.working` does for mpmath).

Why Arb and not ``mpmath.iv``: Arb's elementary and special functions are rigorous at
any precision, its power series (:class:`flint.arb_series`) give enclosures of
derivatives, and it is fast: the certified optima built on it cost less than the
uncertified mpmath routes they replace (``benchmarks/bench_certify_gated.py`` and
``bench_certify_lossnet.py`` measure the ratios).

Examples
--------
>>> from flint import arb
>>> with working_precision(30):
...     e = Enclosure.from_arb(arb(2).sqrt(), digits=30)
>>> e.lower[:12], e.upper[:12], e.relative_width < 1e-30
('1.4142135623', '1.4142135623', True)
>>> e.contains("1.414213562373095048801688724209698"), e.contains(2 ** 0.5)
(True, False)
>>> exact(0.6), exact("1e-3"), exact(3)
(3/5, 1/1000, 3)
"""

from __future__ import annotations

import decimal
import html
import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from fractions import Fraction
from numbers import Real

import flint

from qtheory.core.precision import decimal_fraction, required_dps
from qtheory.core.printing import latex_number

__all__ = ["Enclosure", "UndecidedComparison", "exact", "working_precision"]

#: Guard bits added to the requested precision: enough for the cancellation of a few
#: dozen operations; routines that lose more widen their own precision and say so.
GUARD_BITS = 64


@contextmanager
def working_precision(dps: int, guard_bits: int = GUARD_BITS) -> Iterator[int]:
    """Set Arb's working precision for ``dps`` significant digits plus guard bits.

    Parameters
    ----------
    dps : int
        Significant decimal digits wanted, >= 1.
    guard_bits : int, default :data:`GUARD_BITS`

    Yields
    ------
    int
        The working precision in bits.

    Raises
    ------
    ValueError
        If ``dps`` is not an integer in 1..the precision limit.

    Examples
    --------
    >>> before = flint.ctx.prec
    >>> with working_precision(100) as bits:
    ...     bits
    397
    >>> flint.ctx.prec == before
    True
    """
    digits = required_dps(dps, cost="a certified evaluation")
    saved = flint.ctx.prec
    flint.ctx.prec = math.ceil(digits * math.log2(10)) + guard_bits
    try:
        yield flint.ctx.prec
    finally:
        flint.ctx.prec = saved


def exact(value: Real | str | Fraction, *, name: str = "value") -> flint.fmpq:
    """The exact rational a parameter stands for.

    A float is read as the shortest decimal that prints it (``repr``): ``0.6`` is 3/5.
    Strings are decimals or fractions (``"1e-3"``, ``"3/5"``).

    Parameters
    ----------
    value : float, int, str or fractions.Fraction
        A finite number.
    name : str, default "value"
        The parameter's name, for the error message.

    Returns
    -------
    flint.fmpq

    Raises
    ------
    ValueError
        If ``value`` is not a finite real number (NaN, infinity, a bool, text that is
        not a number), naming ``name``.

    Examples
    --------
    >>> exact(0.1), exact("2/6"), exact(Fraction(1, 3))
    (1/10, 1/3, 1/3)
    >>> exact(float("inf"), name="reward")
    Traceback (most recent call last):
    ...
    ValueError: reward must be a finite real number, got inf
    """
    if isinstance(value, bool) or not isinstance(value, Real | str | Fraction):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    try:
        fraction = decimal_fraction(value, name=name)  # the package's one reading
    except ValueError:
        fraction = None
    if fraction is None:
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    return flint.fmpq(fraction.numerator, fraction.denominator)


def _decimal(mantissa: int, exponent: int) -> str:
    """``mantissa * 10**exponent`` as a plain decimal string in scientific notation."""
    if mantissa == 0:
        return "0"
    sign, digits = ("-" if mantissa < 0 else ""), str(abs(mantissa))
    point = exponent + len(digits) - 1
    body = digits[0] + ("." + digits[1:].rstrip("0") if digits[1:].rstrip("0") else "")
    return f"{sign}{body}e{point:+d}"


@dataclass(frozen=True)
class Enclosure:
    """A certified interval [lower, upper] that contains an exact value.

    Attributes
    ----------
    lower, upper : str
        Decimal bounds in scientific notation, rounded outward.
    width : str
        upper − lower, rounded up to two significant digits.

    Every display shows the width: ``repr`` and ``str`` print both bounds in full (they
    carry enough digits to differ where the exact value is uncertain) and the width,
    ``to_json`` adds a ``"width"`` field and :meth:`latex` typesets both bounds (IPython
    shows that, or an HTML line with the width).  ``float(e)`` is the midpoint, and so is
    ``format(e, spec)`` for a non-empty spec: numbers for code that needs one, not
    certified.  The order comparisons (``<``, ``<=``, ``>``, ``>=``, with a number, a
    decimal string or another enclosure) are certified: decided by the bounds, and
    :class:`UndecidedComparison` when they overlap; ``==`` compares the bounds' strings.

    Examples
    --------
    >>> e = Enclosure("1.5e+0", "2.5e+0")
    >>> round(e.relative_width, 3), e.to_json()
    (0.667, {'lower': '1.5e+0', 'upper': '2.5e+0', 'width': '1e+0'})
    >>> print(Enclosure("3.3333333333e-1", "3.3333333334e-1"))
    [3.3333333333e-1, 3.3333333334e-1] (width 1e-11)
    >>> Enclosure("2", "1")
    Traceback (most recent call last):
    ...
    ValueError: an Enclosure needs lower <= upper, got [2, 1]
    >>> sigma = Enclosure("2.031878699799e-1", "2.031878699800e-1")
    >>> float(sigma), f"{sigma:.6f}", sigma < 0.25, sigma > "0.2"
    (0.20318786997995, '0.203188', True, True)
    """

    #: Decimal lower bound, scientific notation, rounded down.
    lower: str
    #: Decimal upper bound, scientific notation, rounded up.
    upper: str

    def __post_init__(self) -> None:
        if Fraction(self.lower) > Fraction(self.upper):
            raise ValueError(f"an Enclosure needs lower <= upper, got [{self.lower}, {self.upper}]")

    @classmethod
    def from_arb(cls, ball: flint.arb, digits: int) -> Enclosure:
        """The decimal enclosure of an Arb ball, with ``digits`` + 5 significant digits.

        Parameters
        ----------
        ball : flint.arb
            A finite ball.
        digits : int
            Significant digits wanted (the decimals carry five more, so rounding them
            outward does not widen a ball that is ``digits`` digits tight).

        Returns
        -------
        Enclosure

        Raises
        ------
        ArithmeticError
            If the ball is not finite (an evaluation lost all precision).

        Examples
        --------
        >>> from flint import arb
        >>> Enclosure.from_arb(arb(1) / 3, digits=5)
        Enclosure(lower='3.333333333e-1', upper='3.333333334e-1', width='1e-10')
        >>> Enclosure.from_arb(-arb(1) / 3, digits=2).to_json()
        {'lower': '-3.333334e-1', 'upper': '-3.333333e-1', 'width': '1e-7'}
        """
        if not ball.is_finite():
            raise ArithmeticError(f"the ball {ball} is not finite: precision was lost")
        mid, rad, exponent = (int(part) for part in ball.mid_rad_10exp(digits + 5))
        low, high = mid - rad, mid + rad
        drop = max(len(str(max(abs(low), abs(high)))) - (digits + 5), 0)
        scale = 10**drop  # round outward to digits + 5 significant digits
        low, high = low // scale, -(-high // scale)
        return cls(_decimal(low, exponent + drop), _decimal(high, exponent + drop))

    @property
    def midpoint(self) -> float:
        """The midpoint, as a float."""
        return float((Fraction(self.lower) + Fraction(self.upper)) / 2)

    @property
    def relative_width(self) -> float:
        """(upper − lower) / min(|lower|, |upper|); infinite when the interval holds 0."""
        low, high = Fraction(self.lower), Fraction(self.upper)
        if low <= 0 <= high:
            return 0.0 if low == high else math.inf
        return float((high - low) / min(abs(low), abs(high)))

    def contains(self, value: Real | str | Fraction) -> bool:
        """Whether the exact value of ``value`` lies inside (a float is read as its exact
        binary value, a string as the decimal it spells)."""
        number = Fraction(value)
        return Fraction(self.lower) <= number <= Fraction(self.upper)

    @classmethod
    def from_bounds(cls, lower: Fraction, upper: Fraction, digits: int) -> Enclosure:
        """The decimal enclosure of the exact interval [lower, upper], each bound
        rounded outward to ``digits`` + 5 significant digits.

        >>> Enclosure.from_bounds(Fraction(1, 3), Fraction(2, 3), digits=1)
        Enclosure(lower='3.33333e-1', upper='6.66667e-1', width='3.4e-1')
        """
        return cls(
            _rounded(Fraction(lower), digits + 5, math.floor),
            _rounded(Fraction(upper), digits + 5, math.ceil),
        )

    @property
    def width(self) -> str:
        """upper − lower, rounded up to two significant digits (``"0"`` when exact)."""
        return _rounded(Fraction(self.upper) - Fraction(self.lower), 2, math.ceil)

    def to_json(self) -> dict[str, str]:
        """``{"lower": ..., "upper": ..., "width": ...}``, for ``--json`` output (the
        width is upper − lower rounded up, so a reader sees how tight the bounds are)."""
        return {"lower": self.lower, "upper": self.upper, "width": self.width}

    def latex(self) -> str:
        r"""Both bounds in LaTeX math mode, ``$[a, b]$`` with ``m\times 10^{e}``.

        >>> print(Enclosure("1.4142e+0", "1.4143e+0").latex())
        $[1.4142, 1.4143]$
        >>> print(Enclosure("-2.5e-12", "-2.4e-12").latex())
        $[-2.5\times 10^{-12}, -2.4\times 10^{-12}]$
        """
        return f"$[{latex_number(self.lower)}, {latex_number(self.upper)}]$"

    def __str__(self) -> str:
        return f"[{self.lower}, {self.upper}] (width {self.width})"

    def __repr__(self) -> str:
        return f"Enclosure(lower={self.lower!r}, upper={self.upper!r}, width={self.width!r})"

    # numbers, formats and notebooks

    def __float__(self) -> float:
        """The midpoint (:attr:`midpoint`): a float inside the interval, for code that
        needs a number; it is not certified, the bounds are."""
        return self.midpoint

    def __format__(self, spec: str) -> str:
        """``format(e, "")`` (and ``f"{e}"``) is ``str(e)``; any other spec formats the
        midpoint, ``format(float(e), spec)``."""
        return format(self.midpoint, spec) if spec else str(self)

    def _repr_latex_(self) -> str:
        """IPython's LaTeX display: :meth:`latex`."""
        return self.latex()

    def _repr_html_(self) -> str:
        """IPython's HTML display: both bounds and the width."""
        return (
            f"<span>[{html.escape(self.lower)}, {html.escape(self.upper)}]</span> "
            f"<small>(width {html.escape(self.width)})</small>"
        )

    # certified comparisons: decided by the bounds, or refused

    def _compare(self, other: object, strict: bool) -> bool | None:
        """Whether self < other (``strict``) or self <= other holds for every value of
        both intervals (True), for none (False); None when the intervals overlap so
        that it depends on the exact values; NotImplemented for a non-number."""
        if isinstance(other, Enclosure):
            low, high = Fraction(other.lower), Fraction(other.upper)
        elif isinstance(other, Real) and not math.isfinite(other):
            if math.isnan(other):
                raise ValueError(f"an Enclosure has no order with nan (compared with {self})")
            return float(other) > 0  # every enclosure lies strictly between -inf and inf
        elif isinstance(other, Real | str | Fraction):
            low = high = Fraction(other)
        else:
            return NotImplemented  # type: ignore[return-value]
        mine_low, mine_high = Fraction(self.lower), Fraction(self.upper)
        if mine_high < low or (not strict and mine_high == low):
            return True
        if mine_low > high or (strict and mine_low == high):
            return False
        return None

    def _decided(self, other: object, strict: bool, reflected: bool) -> bool:
        relation = "<" if strict else "<="
        if reflected:  # self > other is other < self, by the bounds of both
            relation = ">" if strict else ">="
            answer = _flip(self._compare(other, not strict))
        else:
            answer = self._compare(other, strict)
        if answer is NotImplemented:
            return NotImplemented
        if answer is None:
            raise UndecidedComparison(
                f"{self} {relation} {other} is undecided: the bounds overlap; "
                "compute the enclosure to more digits"
            )
        return answer

    def __lt__(self, other: object) -> bool:
        return self._decided(other, strict=True, reflected=False)

    def __le__(self, other: object) -> bool:
        return self._decided(other, strict=False, reflected=False)

    def __gt__(self, other: object) -> bool:
        return self._decided(other, strict=True, reflected=True)

    def __ge__(self, other: object) -> bool:
        return self._decided(other, strict=False, reflected=True)


def _flip(answer):
    """The negation of a three-valued comparison (True, False, None; NotImplemented kept)."""
    return answer if answer is None or answer is NotImplemented else not answer


class UndecidedComparison(ArithmeticError):
    """An order comparison of an :class:`Enclosure` that its bounds do not decide.

    ``e < x`` is True only when every value of ``e`` is below ``x`` (``e.upper < x``),
    False only when none is; when ``x`` (or another enclosure) overlaps ``[lower,
    upper]`` the answer depends on the exact value, and the comparison raises this
    rather than guess.  An ``ArithmeticError``: more digits usually decide it.

    Examples
    --------
    >>> e = Enclosure("2.17e+0", "2.18e+0")
    >>> e > 2, 2 < e, e <= "2.18", e < Enclosure("2.2e+0", "2.3e+0")
    (True, True, True, True)
    >>> e < "2.175"
    Traceback (most recent call last):
    ...
    qtheory.core.enclosure.UndecidedComparison: [2.17e+0, 2.18e+0] (width 1e-2) < 2.175 is undecided: the bounds overlap; compute the enclosure to more digits
    """  # noqa: E501


def _rounded(value: Fraction, digits: int, direction) -> str:
    """``value`` rounded to ``digits`` significant digits towards +inf (``direction``
    :func:`math.ceil`) or -inf (:func:`math.floor`), in scientific notation; the
    division is correctly rounded by :mod:`decimal` in that rounding mode."""
    with decimal.localcontext() as context:
        context.prec = digits
        context.rounding = decimal.ROUND_CEILING if direction is math.ceil else decimal.ROUND_FLOOR
        quotient = decimal.Decimal(value.numerator) / decimal.Decimal(value.denominator)
    sign, digit_tuple, exponent = quotient.as_tuple()
    mantissa = int("".join(map(str, digit_tuple))) * (-1 if sign else 1)
    return _decimal(mantissa, exponent)
