"""Precision: one convention for every high-precision route of the package.

Every function that can compute beyond float64 takes a keyword-only ``dps``:

- ``dps=None`` (the default): float64.
- ``dps=D``, an integer ``D >= 1``: the result is correct to ``D`` significant digits.
  The work runs in mpmath with guard digits (:func:`working`), and every returned
  ``mpf`` is rounded to ``D`` digits (:func:`rounded`), like mpmath's
  ``workdps(D, normalize_output=True)``; the caller's mpmath precision is restored on
  the way out, exceptions included.
- Anything else (0, negative, ``2.5``, ``True``, a string) is a ``ValueError`` naming
  ``dps``; more than :func:`qtheory.limits.limit` ``("dps")`` digits is refused before
  any work starts (lift it with :func:`qtheory.limits.raised`).

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
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from typing import Any

import mpmath
import numpy as np

from qtheory import limits

__all__ = ["GUARD_DIGITS", "check_dps", "rounded", "working"]

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
        ``dps`` limit of :mod:`qtheory.limits`.

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
