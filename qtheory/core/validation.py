"""Input validation shared by every model: clear ``ValueError`` messages that name the
parameter and the rule it broke (``TypeError`` for a value that is not the record
asked for).  Nothing is ever silently clamped."""

from __future__ import annotations

import math
from numbers import Integral, Real
from typing import Any


def instance(name: str, value: object, kind: type | tuple[type, ...]) -> Any:
    """Return ``value`` after checking that it is an instance of ``kind``.

    Parameters
    ----------
    name : str
        The parameter's name, for the error message.
    value : object
        The value passed by the caller.
    kind : type or tuple of type
        The accepted classes (named in the message, joined by "or").

    Returns
    -------
    object
        ``value`` itself.

    Raises
    ------
    TypeError
        Naming ``name``, what it must be, and the type and (at most 60 characters of)
        the repr of ``value``.

    Examples
    --------
    >>> instance("label", "ten", str)
    'ten'
    >>> instance("label", 10, str)
    Traceback (most recent call last):
    ...
    TypeError: label must be a str, got int 10
    """
    if not isinstance(value, kind):
        kinds = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise TypeError(f"{name} must be a {kinds}, got {type(value).__name__} {value!r:.60}")
    return value


def real(name: str, value: object) -> float:
    """Return ``value`` as a float after checking that it is a real number, not NaN
    (``±inf`` passes: the callers decide on infinity).

    Parameters
    ----------
    name : str
        The parameter's name, for the error message.
    value : real number

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``value`` is not a real number (``bool`` included) or is NaN.

    Examples
    --------
    >>> real("horizon", 3)
    3.0
    >>> real("horizon", float("nan"))
    Traceback (most recent call last):
    ...
    ValueError: horizon must not be NaN
    """
    if isinstance(value, bool) or not isinstance(value, Real):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    value = float(value)
    if math.isnan(value):
        raise ValueError(f"{name} must not be NaN")
    return value


def positive(name: str, value: object, *, allow_inf: bool = False) -> float:
    """Return ``value`` as a float after checking ``0 < value`` (and finiteness).

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : real number
        A Python or NumPy real (not a bool).
    allow_inf : bool, keyword-only
        Accept +inf.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Naming ``name``: not a real number, NaN, <= 0, or infinite (unless allowed).

    Examples
    --------
    >>> positive("service_rate", 2)
    2.0
    >>> positive("service_rate", 0)
    Traceback (most recent call last):
    ...
    ValueError: service_rate must be > 0, got 0.0
    """
    value = real(name, value)
    if not value > 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    if math.isinf(value) and not allow_inf:
        raise ValueError(f"{name} must be finite, got {value!r}")
    return value


def nonnegative(name: str, value: object) -> float:
    """Return ``value`` as a float after checking ``0 <= value < inf``.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : real number
        A Python or NumPy real (not a bool).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Naming ``name``: not a real number, NaN, negative or infinite.

    Examples
    --------
    >>> nonnegative("gate", 0)
    0.0
    """
    value = real(name, value)
    if not 0 <= value < math.inf:
        raise ValueError(f"{name} must be finite and >= 0, got {value!r}")
    return value


def _integral(name: str, value: object) -> Integral:
    """``value`` itself after checking that it is a Python or NumPy integer (not a bool,
    not a float), else ValueError naming ``name``; the callers check its range on
    ``value`` as given."""
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    return value


def positive_int(name: str, value: object) -> int:
    """Return ``value`` as an int after checking it is an integer ``>= 1``.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : int
        A Python or NumPy integer (not a bool, not a float).

    Returns
    -------
    int

    Raises
    ------
    ValueError
        Naming ``name``: not an integer, or < 1.

    Examples
    --------
    >>> positive_int("replications", 3)
    3
    """
    value = _integral(name, value)
    if value < 1:
        raise ValueError(f"{name} must be >= 1, got {value!r}")
    return int(value)


def nonnegative_int(name: str, value: object) -> int:
    """Return ``value`` as an int after checking it is an integer ``>= 0``.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : int
        A Python or NumPy integer (not a bool, not a float).

    Returns
    -------
    int

    Raises
    ------
    ValueError
        Naming ``name``: not an integer, or negative.

    Examples
    --------
    >>> nonnegative_int("warmup", 0)
    0
    >>> nonnegative_int("warmup", -1)
    Traceback (most recent call last):
    ...
    ValueError: warmup must be an integer >= 0, got -1
    """
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 0:
        raise ValueError(f"{name} must be an integer >= 0, got {value!r}")
    return int(value)


def integer_in(name: str, value: object, low: int, high: int, *, bounds: str = "") -> int:
    """Return ``value`` as an int after checking it is an integer in ``low..high``.

    Parameters
    ----------
    name : str
        The parameter's name, used in the error message.
    value : int
        A Python or NumPy integer (not a bool, not a float).
    low, high : int
        The smallest and largest allowed values.
    bounds : str, keyword-only
        How the message names the range (e.g. ``"0..servers"``); the numbers follow.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        Naming ``name``: not an integer, or outside ``low..high``.

    Examples
    --------
    >>> integer_in("reserve", 3, 0, 10)
    3
    >>> integer_in("reserve", 11, 0, 10, bounds="0..servers")
    Traceback (most recent call last):
    ...
    ValueError: reserve must be in 0..servers = 0..10, got 11
    """
    value = _integral(name, value)
    if not low <= value <= high:
        shown = f"{bounds} = {low}..{high}" if bounds else f"{low}..{high}"
        raise ValueError(f"{name} must be in {shown}, got {value}")
    return int(value)
