"""How the ``qtheory`` subcommands print their numbers: one JSON object or aligned
``name  value`` lines; float64 numbers, or decimal strings of ``dps`` significant digits
(rounded once, here) when a high-precision run was asked for."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

import mpmath


def add_output_arguments(parser) -> None:
    """The ``--dps`` and ``--json`` options shared by every number-printing command."""
    parser.add_argument("--dps", type=int, help="decimal digits (mpmath); default float64")
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def render(values: Mapping[str, object], dps: int | None, as_json: bool) -> str:
    """Format ``values``: integers and strings stay as they are; reals become floats
    (``dps=None``, which must be finite) or decimal strings with ``dps`` digits."""
    shown: dict[str, object] = {}
    for name, value in values.items():
        if isinstance(value, int | str):
            shown[name] = value
        elif dps is None:
            shown[name] = float(value)
            if not math.isfinite(shown[name]):
                raise ValueError(f"{name} overflows float64 for these parameters; use --dps")
        else:
            shown[name] = mpmath.nstr(value, dps, strip_zeros=False)
    if as_json:
        return json.dumps(shown, allow_nan=False)
    width = max(map(len, shown))
    return "\n".join(f"{name:<{width}}  {value}" for name, value in shown.items())
