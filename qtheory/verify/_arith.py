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

A number is read only when it is short and its exponent is moderate (:data:`MAX_DIGITS`,
:data:`MAX_EXPONENT`): a certificate cannot make the checker build a huge integer.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from fractions import Fraction

import flint
from flint import arb, fmpq, fmpz

from qtheory.verify import CertificateError

__all__ = [
    "ball",
    "certificate_digits",
    "check_enclosures",
    "inside",
    "interval",
    "narrow",
    "precision",
    "rate_or_inf",
    "rational",
]

#: The longest number text read (the longest in a reproduce certificate has about 400).
MAX_DIGITS = 20_000
#: The largest decimal exponent read: ``1e-999999999`` would cost the time of building
#: 10**999999999 before any check could fail.
MAX_EXPONENT = 100_000
_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?(?:/\d+)?")
_INTEGER_RATIO = re.compile(r"[+-]?\d+(?:/\d+)?")


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
    >>> rational("1e-999999999")
    Traceback (most recent call last):
    ...
    ValueError: a number's exponent must be at most 100000 in size, got '1e-999999999'
    """
    if not isinstance(text, str):
        raise ValueError(f"a rational must be given as text, got {text!r}")
    if len(text) > MAX_DIGITS:
        raise ValueError(f"a number must be at most {MAX_DIGITS} characters, got {len(text)}")
    match = _NUMBER.fullmatch(text)
    if match is None:
        raise ValueError(f"not a decimal or fraction: {text[:40]!r}")
    exponent = match.group(1)
    if exponent is not None and (len(exponent) > 8 or abs(int(exponent)) > MAX_EXPONENT):
        raise ValueError(
            f"a number's exponent must be at most {MAX_EXPONENT} in size, got {text[:40]!r}"
        )
    if _INTEGER_RATIO.fullmatch(text):
        # flint reads integers of any length; Python's int() stops at 4300 digits
        # (sys.get_int_max_str_digits), which an exact gain of N = 294 servers exceeds.
        numerator, _, denominator = text.lstrip("+").partition("/")
        return fmpq(fmpz(numerator), fmpz(denominator or "1"))
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


def narrow(pair: Sequence[str], dps: int) -> bool:
    """Whether the decimal interval ``pair`` has relative width (upper − lower) /
    min(|lower|, |upper|) at most 10^−dps, or is exactly ``[0, 0]``.

    Parameters
    ----------
    pair : sequence of two str
    dps : int
        Significant digits the interval must fix.

    Examples
    --------
    >>> narrow(["0.3333", "0.3334"], 3), narrow(["0", "1"], 1), narrow(["0", "0"], 30)
    (True, False, True)
    """
    if not isinstance(dps, int) or isinstance(dps, bool) or not 1 <= dps <= MAX_EXPONENT:
        raise ValueError(f"digits must be an integer in 1..{MAX_EXPONENT}, got {dps!r}")
    low, high = (rational(t) for t in pair)
    if low == high == 0:
        return True
    if low <= 0 <= high:
        return False
    return bool(high - low <= fmpq(1, 10**dps) * min(abs(low), abs(high)))


def certificate_digits(data: Mapping) -> int:
    """``data["dps"]``, the significant digits a certificate's intervals fix, which must be
    an integer ≥ 1 (not a bool).

    Parameters
    ----------
    data : mapping
        A certificate's ``data``.

    Returns
    -------
    int

    Raises
    ------
    CertificateError
        If ``dps`` is not such an integer.

    Examples
    --------
    >>> certificate_digits({"dps": 12})
    12
    >>> certificate_digits({"dps": True})
    Traceback (most recent call last):
    ...
    qtheory.verify.CertificateError: dps must be an integer >= 1, got True
    """
    dps = data["dps"]
    if not isinstance(dps, int) or isinstance(dps, bool) or dps < 1:
        raise CertificateError(f"dps must be an integer >= 1, got {dps!r}")
    return dps


def check_enclosures(
    balls: Mapping[str, arb],
    names: Sequence[str],
    claimed: Callable[[str], Sequence[str]],
    dps: int,
) -> None:
    """Decide, name by name, that the checker's ball lies inside the claimed interval
    (:func:`inside`) and that the interval fixes ``dps`` digits (:func:`narrow`).

    Parameters
    ----------
    balls : mapping of str to flint.arb
        The checker's own balls.
    names : sequence of str
        The names to decide, in order.
    claimed : callable
        The claimed ``[lower, upper]`` of a name (read when its name is decided).
    dps : int
        Significant digits each interval must fix.

    Raises
    ------
    CertificateError
        Naming the first value whose ball is not inside, or whose interval is too wide.

    Examples
    --------
    >>> check_enclosures({"x": arb(1) / 4}, ["x"], lambda name: ["0.25", "0.25"], 3)
    >>> check_enclosures({"x": arb(1) / 4}, ["x"], lambda name: ["0.2", "0.3"], 3)
    Traceback (most recent call last):
    ...
    qtheory.verify.CertificateError: x: the interval ['0.2', '0.3'] is wider than 1e-3 relative
    """
    for name in names:
        pair = claimed(name)
        if not inside(balls[name], pair):
            raise CertificateError(
                f"{name}: the checker's enclosure {balls[name].str(12)} is not inside {pair}"
            )
        if not narrow(pair, dps):
            raise CertificateError(f"{name}: the interval {pair} is wider than 1e-{dps} relative")


def rate_or_inf(text) -> fmpq | None:
    """A rate as an exact rational, None for ``"inf"`` (any case, spaces around).

    Parameters
    ----------
    text : str

    Examples
    --------
    >>> rate_or_inf("3/5"), rate_or_inf(" Inf ")
    (3/5, None)
    """
    return None if str(text).strip().lower() == "inf" else rational(text)
