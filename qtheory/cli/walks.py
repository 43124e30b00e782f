"""``qtheory walks``: single numbers of the random-walk arguments, scriptable.

``qtheory walks sss`` prints, for SSS with the window W = c log N / N: the window, the
exact probability eps_1 that an admission leaving one idle server fails (the reject-all-L
idle count stays >= 1 for W, then hits 0 before it first reaches floor(sqrt N)), its
Chernoff-coupling bound B_1, the expected H jobs lost per failure kappa, the bound
lambda_L N B_1 kappa on SSS's H-loss rate (up to a term exp(-Omega(sqrt N))), and the
constant c* beyond which that bound stays bounded in N (see :mod:`qtheory.walks.sss`).
Every value is float64 (there is no ``--dps``); a value that is not finite is reported
as a numerical failure naming it (exit 1), and a size beyond :mod:`qtheory.core.limits` as
bad input naming the option (exit 2).
"""

from __future__ import annotations

import argparse
import math

from qtheory.cli.lossnet import network, network_arguments
from qtheory.cli.output import render
from qtheory.core.arguments import positive_real_arg


def register(parser: argparse.ArgumentParser) -> None:
    """Give ``qtheory walks`` its subcommand ``sss`` (see :mod:`qtheory.cli.program`).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser of ``qtheory walks``.

    Returns
    -------
    None

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> register(parser)
    >>> parser.parse_args(["sss", "--servers", "100", "--lambda-h", "0.6",
    ...                    "--lambda-l", "0.8", "--mu", "1", "--r-h", "2", "--r-l", "1",
    ...                    "--c", "8"]).c
    8.0
    """
    parser.description = "Single numbers of the random-walk arguments behind SSS and PFI."
    commands = parser.add_subparsers(dest="walks_command", required=True)
    window = commands.add_parser(
        "sss",
        help="failure probability of SSS(c log N / N), its bound and c*",
        description=(
            "For SSS with the window W = c log N / N: the window, the exact probability "
            "eps_1 that an admission leaving one idle server fails (the reject-all-L idle "
            "count stays >= 1 for W, then hits 0 before it first reaches floor(sqrt N)), "
            "its Chernoff-coupling bound B_1, the expected H jobs lost per failure kappa, "
            "the bound lambda_L N B_1 kappa on SSS's H-loss rate (up to a term "
            "exp(-Omega(sqrt N))), and the constant c* beyond which that bound stays "
            "bounded in N.  Values are float64; a value that is not finite is reported as "
            "a numerical failure naming it (exit 1)."
        ),
    )
    network_arguments(window)
    window.add_argument("--c", required=True, type=positive_real_arg, help="window constant c > 0")
    window.add_argument("--json", action="store_true", help="print one JSON object")
    window.set_defaults(run=run_sss)


def run_sss(args: argparse.Namespace) -> int:
    """Print the SSS window numbers of the network in ``args`` (see the module notes).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options (the network, ``c`` and ``json``).

    Returns
    -------
    int
        0.

    Raises
    ------
    ValueError
        Bad input or a size beyond :mod:`qtheory.core.limits` (exit 2 in
        :mod:`qtheory.cli.program`).
    ArithmeticError
        A value that is not finite in float64 (exit 1).

    References
    ----------
    .. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
       overloaded loss network", arXiv:2601.14538 (2026), Theorem 2;
       docs/loss-network.md.

    Examples
    --------
    >>> args = argparse.Namespace(servers=100, lambda_h=0.6, lambda_l=0.8, mu=1.0,
    ...                           r_h=2.0, r_l=1.0, c=8.0, json=False)
    >>> run_sss(args)  # doctest: +ELLIPSIS
    window ...
    0
    """
    from qtheory.walks import sss  # the Chernoff derivations: only when they run

    net = network(args)
    c = args.c
    values = {
        "window": net.window(c),
        "failure_exact": sss.failure_probability(net, c),
        "failure_bound": sss.failure_bound(net, c).total,
        "kappa": sss.losses_per_failure(net),
        "loss_rate_bound": sss.loss_rate_bound(net, c),
        "critical_c": sss.critical_window_constant(net),
    }
    for name, value in values.items():
        if not math.isfinite(value):
            raise ArithmeticError(f"{name} is not finite in float64 ({value!r}) for these inputs")
    print(render(values, None, args.json))
    return 0
