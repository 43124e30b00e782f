r"""The checker's arithmetic: exact rationals, decimal intervals and rigorous comparisons.

Certificates store parameters as exact rationals (``"3/5"``, ``"inf"`` where infinity is
meaningful) and claimed enclosures as pairs of decimal strings ``[lower, upper]``.  A
claimed enclosure holds when the checker's own ball for the quantity lies inside it.

Examples
--------
>>> from flint import arb
>>> with precision(200):
...     root2 = arb(2).sqrt()
>>> inside(root2, ["1.41421356237309504880168872420969807", "1.4142135623730950488016887243"])
True
>>> inside(arb(2).sqrt(), ["1.4142", "1.41421"])
False
>>> rational("3/5"), rational("1e-3")
(3/5, 1/1000)
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from fractions import Fraction

import flint
from flint import arb, fmpq

__all__ = ["ball", "inside", "interval", "precision", "rational"]


@contextmanager
def precision(bits: int) -> Iterator[None]:
    """Arb's working precision set to ``bits`` (an integer 16..10**6), restored after.

    Parameters
    ----------
    bits : int

    Examples
    --------
    >>> with precision(100):
    ...     flint.ctx.prec
    100
    """
    if not isinstance(bits, int) or isinstance(bits, bool) or not 16 <= bits <= 10**6:
        raise ValueError(f"precision must be an integer of bits in 16..1000000, got {bits!r}")
    saved = flint.ctx.prec
    flint.ctx.prec = bits
    try:
        yield
    finally:
        flint.ctx.prec = saved


def rational(text: str) -> fmpq:
    """The exact rational that ``text`` spells (``"3/5"``, ``"0.6"``, ``"1e-3"``).

    Parameters
    ----------
    text : str

    Examples
    --------
    >>> rational("0.6") == fmpq(3, 5)
    True
    """
    if not isinstance(text, str):
        raise ValueError(f"a rational must be given as text, got {text!r}")
    value = Fraction(text)
    return fmpq(value.numerator, value.denominator)


def ball(text: str) -> arb:
    """A ball for the rational ``text`` (radius 0 when the precision holds it exactly).

    Parameters
    ----------
    text : str

    Examples
    --------
    >>> ball("3/4").is_exact()
    True
    """
    return arb(rational(text))


def interval(pair: Sequence[str]) -> arb:
    """The ball that covers the decimal interval ``[lower, upper]``.

    Parameters
    ----------
    pair : sequence of two str

    Examples
    --------
    >>> interval(["1", "3"]).mid()
    2.00000000000000
    """
    low, high = (rational(t) for t in pair)
    if low > high:
        raise ValueError(f"interval bounds out of order: {list(pair)}")
    return arb(low).union(arb(high))


def _exact(point: arb) -> fmpq:
    """The exact rational value of an exact (radius 0, finite) ball: mantissa * 2**exponent."""
    mantissa, exponent = point.man_exp()
    return (
        fmpq(mantissa) * 2 ** int(exponent)
        if exponent >= 0
        else fmpq(mantissa, 2 ** -int(exponent))
    )


def inside(value: arb, pair: Sequence[str]) -> bool:
    """Whether the ball ``value`` certainly lies in the decimal interval ``pair``
    (decided in exact rational arithmetic, whatever the working precision).

    Parameters
    ----------
    value : flint.arb
    pair : sequence of two str
        ``[lower, upper]``, decimal or fraction strings.

    Examples
    --------
    >>> inside(arb(1) / 3, ["0.333", "0.334"]), inside(arb(1) / 3, ["0.3334", "1"])
    (True, False)
    """
    low, high = (rational(t) for t in pair)
    if not value.is_finite():
        return False
    with precision(max(flint.ctx.prec, value.bits() + 64)):  # lower(), upper() round outward
        return bool(low <= _exact(value.lower()) and _exact(value.upper()) <= high)
