"""Precision: one convention for every high-precision route of the package.

Every function that can compute beyond float64 takes a keyword-only ``dps``:

- ``dps=None`` (the default): float64.
- ``dps=D``, an integer ``D >= 1``: the result is correct to ``D`` significant digits.
  The work runs in mpmath with guard digits (:func:`working`), and every returned
  ``mpf`` is rounded to ``D`` digits (:func:`rounded`), like mpmath's
  ``workdps(D, normalize_output=True)``; the caller's mpmath precision is restored on
  the way out, exceptions included.
- Anything else (0, negative, ``2.5``, ``True``, a string) is a ``ValueError`` naming
  ``dps``; more than :func:`qtheory.core.limits.limit` ``("dps")`` digits is refused before
  any work starts (lift it with :func:`qtheory.core.limits.raised`).

>>> check_dps(30)
30
>>> check_dps(None) is None
True
>>> check_dps(2.5)
Traceback (most recent call last):
...
ValueError: dps must be an integer >= 1 (significant digits), got 2.5
>>> import mpmath
>>> with working(20):
...     third = mpmath.mpf(1) / 3
...     mpmath.mp.dps
30
>>> mpmath.mp.dps, mpmath.nstr(rounded(third, 20), 20)
(15, '0.33333333333333333333')

Every route reads a parameter the same way (:func:`decimal_fraction`): a float as the
shortest decimal that prints it (``0.6`` is 3/5), a string as the decimal or fraction it
spells, an ``mpmath.mpf`` as its exact binary value.
"""

from __future__ import annotations

import contextlib
import dataclasses
import numbers
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from qtheory.core import limits

__all__ = [
    "GUARD_DIGITS",
    "INFINITY_WORDS",
    "binary_fraction",
    "check_dps",
    "decimal_fraction",
    "required_dps",
    "rounded",
    "working",
]

#: Guard digits added by :func:`working` on top of the requested ``dps``.
GUARD_DIGITS = 10


def check_dps(dps: object, *, cost: str = "a high-precision evaluation") -> int | None:
    """``dps`` after validation: ``None``, or an integer in ``1..limit("dps")``.

    Parameters
    ----------
    dps : object
        The caller's ``dps`` argument.
    cost : str, keyword-only
        What the digits are for, named in the error raised past the limit.

    Returns
    -------
    int or None

    Raises
    ------
    ValueError
        Naming ``dps``: not an integer >= 1 (bools and floats included), or above the
        ``dps`` limit of :mod:`qtheory.core.limits`.

    Examples
    --------
    >>> check_dps(50), check_dps(None)
    (50, None)
    """
    if dps is None:
        return None
    if isinstance(dps, bool) or not isinstance(dps, int | np.integer):
        raise ValueError(f"dps must be an integer >= 1 (significant digits), got {dps!r}")
    if dps < 1:
        raise ValueError(f"dps must be an integer >= 1 (significant digits), got {dps!r}")
    limits.require("dps", int(dps), parameter="dps", what=cost)
    return int(dps)


def required_dps(dps: object, *, cost: str = "a high-precision evaluation") -> int:
    """``dps`` after validation, for a route that has no float64 form: an integer in
    ``1..limit("dps")`` (``None`` refused, the rule of :func:`check_dps` otherwise).

    Parameters
    ----------
    dps : object
        The caller's ``dps`` argument.
    cost : str, keyword-only
        What the digits are for, named in the error raised past the limit.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        Naming ``dps``: ``None``, not an integer >= 1, or above the ``dps`` limit.

    Examples
    --------
    >>> required_dps(30)
    30
    >>> required_dps(None)
    Traceback (most recent call last):
    ...
    ValueError: dps must be an integer >= 1 (significant digits), got None
    """
    if dps is None:
        raise ValueError("dps must be an integer >= 1 (significant digits), got None")
    return check_dps(dps, cost=cost)


@contextlib.contextmanager
def working(dps: int, guard: int = GUARD_DIGITS) -> Iterator[None]:
    """mpmath at ``dps + guard`` digits for the block; the previous precision is restored
    in a ``finally`` (mpmath's ``workdps``).

    Parameters
    ----------
    dps : int
        The digits the result must be correct to.
    guard : int, optional
        Guard digits on top (default :data:`GUARD_DIGITS`).

    Yields
    ------
    None

    Examples
    --------
    >>> with working(20, guard=5):
    ...     mpmath.mp.dps
    25
    """
    with mpmath.workdps(dps + guard):
        yield


def rounded(value: Any, dps: int) -> Any:
    """``value`` with every ``mpf``/``mpc`` rounded to ``dps`` digits: an mpmath number, a
    tuple or list of them, or a dataclass instance (its mpmath fields are replaced).
    Other values (ints, strings, floats) pass through unchanged.

    Parameters
    ----------
    value : object
        The result to round.
    dps : int
        Significant digits.

    Returns
    -------
    object
        The same structure with rounded mpmath numbers.

    Examples
    --------
    >>> with mpmath.workdps(40):
    ...     x = mpmath.mpf(2) / 3
    >>> y, label = rounded((x, "label"), 5)
    >>> mpmath.nstr(y, 5), label, bool(0 < abs(y - x) < 1e-5)
    ('0.66667', 'label', True)
    """
    with mpmath.workdps(dps):
        return _round(value)


def _round(value: Any) -> Any:
    if isinstance(value, mpmath.mpf | mpmath.mpc):
        return +value
    if isinstance(value, tuple | list):
        return type(value)(_round(v) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            f.name: _round(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init
        }
        return dataclasses.replace(value, **changes)
    return value


#: The words a string may spell +∞ with (any case, an optional ``+``).
INFINITY_WORDS = ("inf", "infinity")


def binary_fraction(value) -> Fraction:
    """The exact rational value of a finite binary ``mpmath.mpf`` (mantissa · 2^exponent).

    Parameters
    ----------
    value : mpmath.mpf
        A finite binary floating-point number.

    Returns
    -------
    fractions.Fraction

    Raises
    ------
    TypeError
        ``value`` not an ``mpmath.mpf``.
    ValueError
        ``value`` infinite or NaN.

    Examples
    --------
    >>> binary_fraction(mpmath.mpf("0.375")), binary_fraction(mpmath.mpf(-6))
    (Fraction(3, 8), Fraction(-6, 1))
    >>> binary_fraction(None)
    Traceback (most recent call last):
    ...
    TypeError: value must be an mpmath.mpf, got NoneType
    """
    if not isinstance(value, mpmath.mpf):
        raise TypeError(f"value must be an mpmath.mpf, got {type(value).__name__}")
    if not mpmath.isfinite(value):
        raise ValueError(f"value must be finite, got {value}")
    mantissa, exponent = value.man_exp  # the magnitude: man_exp carries no sign
    magnitude = Fraction(int(mantissa)) * Fraction(2) ** int(exponent)
    return -magnitude if value < 0 else magnitude


def decimal_fraction(value: object, *, name: str = "value") -> Fraction | None:
    """The exact rational a parameter stands for, the same on every route; None for +∞.

    A float (NumPy's included) is the shortest decimal that prints it (``repr``: ``0.6``
    is 3/5, not the binary 0.59999999999999997779...), an int itself, a string the
    decimal or fraction it spells (``"1e-3"``, ``"3/5"``, ``"inf"``), a Fraction itself
    and an ``mpmath.mpf`` its exact binary value.

    Parameters
    ----------
    value : float, int, str, fractions.Fraction or mpmath.mpf
    name : str, keyword-only, default "value"
        The parameter's name, for the error message.

    Returns
    -------
    fractions.Fraction or None
        None for +∞ (a float, an mpf or the string ``"inf"``).

    Raises
    ------
    ValueError
        Naming ``name``: not a number (text, NaN, a bool), −∞, or a fraction with
        denominator 0.

    Examples
    --------
    >>> decimal_fraction(0.6), decimal_fraction("1e-3"), decimal_fraction("inf")
    (Fraction(3, 5), Fraction(1, 1000), None)
    >>> decimal_fraction(mpmath.mpf(0.6)) == Fraction(0.6)  # an mpf: its binary value
    True
    >>> decimal_fraction("1/0", name="reward")
    Traceback (most recent call last):
    ...
    ValueError: reward must be a finite real number or inf, got '1/0'
    """
    if isinstance(value, bool) or not isinstance(value, str | mpmath.mpf | numbers.Real):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    if isinstance(value, mpmath.mpf):
        if mpmath.isinf(value) and value > 0:
            return None
        if not mpmath.isfinite(value):
            raise ValueError(f"{name} must be a finite real number or inf, got {value!r}")
        return binary_fraction(value)
    if isinstance(value, str):
        text = value.strip()
        if text.lower().lstrip("+") in INFINITY_WORDS:
            return None
    elif isinstance(value, Fraction | numbers.Integral):
        return Fraction(value)
    else:  # floats, NumPy's included (their repr is np.float64(...))
        text = repr(float(value))
        if text == "inf":
            return None
    try:
        return Fraction(text)
    except (ValueError, ZeroDivisionError, OverflowError, TypeError):
        raise ValueError(f"{name} must be a finite real number or inf, got {value!r}") from None
