"""Cost limits: every entry point estimates what a call will cost before it starts and
refuses, with a ``ValueError`` naming the parameter and the limit, what cannot finish on
an ordinary machine (a few GB of memory, minutes of CPU).

A limit is a number with a unit.  Lift one for a block of code with :func:`raised`, or
for a whole process (the command line included) with the environment variable
``QTHEORY_LIMIT_<NAME>`` (for example ``QTHEORY_LIMIT_DPS=20000``).

>>> limit("dps")
1000
>>> require("dps", 5000, parameter="dps", what="a high-precision evaluation")
Traceback (most recent call last):
...
ValueError: dps: a high-precision evaluation needs 5000 digits, above the limit 1000; ...
>>> with raised(dps=5000):
...     require("dps", 5000, parameter="dps", what="a high-precision evaluation")
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
from collections.abc import Iterator

__all__ = ["DEFAULTS", "UNITS", "limit", "raised", "require"]

#: The default limits.  ``dps``: mpmath digits (every high-precision route is at least
#: quadratic in them; 1000 digits take seconds to minutes).  ``memory``: bytes one call
#: may allocate (a sixth of a 24 GB machine).  ``events``: random events one call may
#: simulate (about ten minutes at 3e7 events/s).  ``dp_cells``: cells of a dynamic
#: programme or an exact linear solve (minutes at 1e9 cells/s).
DEFAULTS: dict[str, float] = {
    "dps": 1000,
    "memory": 4e9,
    "events": 2e10,
    "dp_cells": 2e11,
}
UNITS = {"dps": "digits", "memory": "bytes", "events": "events", "dp_cells": "cells"}

_local = threading.local()


def _overrides() -> dict[str, float]:
    if not hasattr(_local, "overrides"):
        _local.overrides = {}
    return _local.overrides


def limit(name: str) -> float:
    """The limit ``name`` in force: a :func:`raised` block, else ``QTHEORY_LIMIT_<NAME>``,
    else :data:`DEFAULTS`.

    Parameters
    ----------
    name : str
        One of :data:`DEFAULTS` (``"dps"``, ``"memory"``, ``"events"``, ``"dp_cells"``).

    Returns
    -------
    float
        The limit, in the unit of :data:`UNITS`.

    Raises
    ------
    ValueError
        For an unknown name, or an environment variable that is not a number > 0.

    Examples
    --------
    >>> limit("memory")
    4000000000.0
    """
    if name not in DEFAULTS:
        raise ValueError(f"limit name must be one of {sorted(DEFAULTS)}, got {name!r}")
    if name in _overrides():
        return _overrides()[name]
    text = os.environ.get(f"QTHEORY_LIMIT_{name.upper()}")
    if text is not None:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        if not value > 0:
            raise ValueError(f"QTHEORY_LIMIT_{name.upper()} must be a number > 0, got {text!r}")
        return value
    return DEFAULTS[name]


def require(name: str, estimate: float, *, parameter: str, what: str) -> None:
    """Raise ``ValueError`` unless ``estimate`` (in the limit's unit) is within the limit
    ``name``.  A NaN estimate is refused too.

    Parameters
    ----------
    name : str
        The limit (see :func:`limit`).
    estimate : float
        The up-front cost estimate, in the limit's unit.
    parameter : str, keyword-only
        The argument the caller should reduce (named in the message).
    what : str, keyword-only
        What the estimate is of (named in the message).

    Returns
    -------
    None

    Raises
    ------
    ValueError
        ``"<parameter>: <what> needs <estimate> <unit>, above the limit <limit>; ..."``.

    Examples
    --------
    >>> require("events", 1e6, parameter="horizon", what="a simulation")  # within: no error
    """
    bound = limit(name)
    if not estimate <= bound:
        raise ValueError(
            f"{parameter}: {what} needs {_show(estimate)} {UNITS[name]}, above the limit "
            f"{_show(bound)}; reduce {parameter} or lift the limit "
            f"(qtheory.core.limits.raised({name}=...) or QTHEORY_LIMIT_{name.upper()})"
        )


def _show(value: float) -> str:
    if isinstance(value, int) or (math.isfinite(value) and value == int(value) and value < 1e6):
        return str(int(value))
    return f"{value:.3g}"


@contextlib.contextmanager
def raised(**limits: float) -> Iterator[None]:
    """Lift limits in this thread for the duration of a ``with`` block (the previous
    limits are restored on the way out, exceptions included).

    Parameters
    ----------
    **limits : float
        New values (> 0) of limits named in :data:`DEFAULTS`.

    Yields
    ------
    None

    Raises
    ------
    ValueError
        For an unknown name or a value that is not a number > 0.

    Examples
    --------
    >>> with raised(memory=1e10):
    ...     limit("memory")
    10000000000.0
    """
    for name, value in limits.items():
        if name not in DEFAULTS:
            raise ValueError(f"limit name must be one of {sorted(DEFAULTS)}, got {name!r}")
        if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
            raise ValueError(f"limit {name} must be a number > 0, got {value!r}")
    saved = dict(_overrides())
    _overrides().update(limits)
    try:
        yield
    finally:
        _overrides().clear()
        _overrides().update(saved)
