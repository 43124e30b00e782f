"""How the ``qtheory`` subcommands print their numbers: one JSON object or aligned
``name  value`` lines; float64 numbers, or decimal strings of ``dps`` significant digits
(rounded once, here) when a high-precision run was asked for."""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Mapping

from qtheory.core.arguments import dps_arg

__all__ = ["add_output_arguments", "render"]


def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``--dps`` and ``--json`` options shared by every number-printing command.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The subcommand's parser.  ``--dps`` is converted by
        :func:`qtheory.core.arguments.dps_arg` (an integer >= 1 within the digit limit).

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> add_output_arguments(parser)
    >>> args = parser.parse_args(["--dps", "30", "--json"])
    >>> args.dps, args.json
    (30, True)
    """
    parser.add_argument(
        "--dps", type=dps_arg, help="significant decimal digits (mpmath); default float64"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")


def render(values: Mapping[str, object], dps: int | None, as_json: bool) -> str:
    """Format a command's numbers.

    Parameters
    ----------
    values : mapping of str to number, str or None
        Integers and strings are printed as they are, None as ``undefined`` (JSON
        null); other values are reals.
    dps : int or None
        None: reals become float64 (which must be finite).  An integer: reals become
        decimal strings of ``dps`` significant digits (:func:`mpmath.nstr`).
    as_json : bool
        One JSON object instead of aligned ``name  value`` lines.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If a real overflows float64 (``dps=None``), naming it and suggesting ``--dps``.

    Examples
    --------
    >>> print(render({"servers": 10, "rate": 0.25}, None, False))
    servers  10
    rate     0.25
    >>> import mpmath
    >>> render({"third": mpmath.mpf(1) / 3}, 5, True)
    '{"third": "0.33333"}'
    """
    shown: dict[str, object] = {}
    for name, value in values.items():
        if value is None:  # a value that is undefined: JSON null
            shown[name] = None if as_json else "undefined"
        elif isinstance(value, int | str):
            shown[name] = value
        elif dps is None:
            shown[name] = float(value)
            if not math.isfinite(shown[name]):
                raise ValueError(f"{name} overflows float64 for these parameters; use --dps")
        else:
            import mpmath  # only for --dps output, so that --help stays light

            shown[name] = mpmath.nstr(value, dps, strip_zeros=False)
    if as_json:
        return json.dumps(shown, allow_nan=False)
    width = max(map(len, shown))
    return "\n".join(f"{name:<{width}}  {value}" for name, value in shown.items())
