"""``qtheory table``: the options of :mod:`qtheory.report.tables`'s tables over your own
parameter grids, printed as LaTeX, Markdown or CSV.
"""

from __future__ import annotations

import argparse
from typing import Any

from qtheory.core.arguments import dps_arg
from qtheory.report.tables import (
    GATED_COLUMNS,
    LOSSNET_COLUMNS,
    WALKS_COLUMNS,
    gated_table,
    lossnet_table,
    to_csv,
    to_latex,
    to_markdown,
    walks_table,
)

__all__ = ["register", "run"]


def _list_arg(convert_one=str.strip):
    """An argparse ``type=``: a comma-separated list, each item converted by
    ``convert_one``."""

    def convert(text: str) -> list:
        items = [item.strip() for item in text.split(",")]
        if not all(items):
            raise argparse.ArgumentTypeError(f"must be a comma-separated list, got {text!r}")
        return [convert_one(item) for item in items]

    convert.__name__ = "list"
    return convert


#: ``qtheory table --help``: plain text, no markup.
HELP = (
    "LaTeX (booktabs), Markdown or CSV tables over your own parameter grids, one column "
    "per requested quantity. Each parameter option takes a comma-separated list and the "
    "table has a row for every combination. Values are certified in ball arithmetic and "
    "printed only when correctly rounded to --dps significant digits (exit 1 if a value "
    "is too close to a rounding boundary to decide)."
)


def register(parser: argparse.ArgumentParser) -> None:
    """Give ``qtheory table`` its subcommands ``gated``, ``lossnet`` and ``walks`` (see
    :mod:`qtheory.cli.program`).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser of ``qtheory table``.

    Returns
    -------
    None

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> register(parser)
    >>> args = parser.parse_args("gated --reward 1.5,2 --arrival-rate inf,3".split())
    >>> args.reward, args.arrival_rate, args.format, args.dps, args.run is run
    (['1.5', '2'], ['inf', '3'], 'latex', 6, True)
    """
    from qtheory.core.arguments import positive_int_arg, real_arg

    parser.description = HELP
    models = parser.add_subparsers(dest="model", required=True)
    gated = models.add_parser(
        "gated",
        help="optima of the gated-admission M/M/1 queue",
        description="Optimal gate τ*, welfare and Price of Forgetting of the gated M/M/1 "
        "queue (certified, correctly rounded) for every (Λ, μ, R, C) of the lists given.",
    )
    gated.add_argument(
        "--arrival-rate",
        required=True,
        type=_list_arg(),
        metavar="LIST",
        help="potential arrival rates Λ, comma-separated ('inf' allowed)",
    )
    gated.add_argument(
        "--service-rate",
        default=["1"],
        type=_list_arg(),
        metavar="LIST",
        help="service rates μ (default: 1)",
    )
    gated.add_argument(
        "--reward",
        required=True,
        type=_list_arg(),
        metavar="LIST",
        help="rewards R per served customer",
    )
    gated.add_argument(
        "--cost",
        default=["1"],
        type=_list_arg(),
        metavar="LIST",
        help="waiting costs C per unit time (default: 1)",
    )
    _common(gated, GATED_COLUMNS, "tau_star,welfare_ga,welfare_rr,pof")
    lossnet = models.add_parser(
        "lossnet",
        help="online optimum of the two-class loss network",
        description="Optimal reserve k*, fluid bound, online optimum and regret of the "
        "two-class loss network (certified, correctly rounded) for every "
        "(N, λ_H, λ_L, μ, r_H, r_L) of the lists given.",
    )
    lossnet.add_argument(
        "--servers",
        required=True,
        type=_list_arg(positive_int_arg),
        metavar="LIST",
        help="numbers of servers N, comma-separated",
    )
    for option, what in (
        ("--lambda-h", "H arrival rates per server"),
        ("--lambda-l", "L arrival rates per server"),
        ("--mu", "service rates"),
        ("--r-h", "rewards of an H job"),
        ("--r-l", "rewards of an L job"),
    ):
        lossnet.add_argument(
            option, required=True, type=_list_arg(real_arg), metavar="LIST", help=what
        )
    _common(lossnet, LOSSNET_COLUMNS, "reserve,online,regret")
    walks = models.add_parser(
        "walks",
        help="random-walk bounds next to the exact values they bound",
        description="The reject-all-L idle process of N servers started at i idle "
        "servers, band b = floor(sqrt N): its ruin probability and mean climbing steps "
        "and time to b, next to the walk bounds with up-probabilities p_b (upper) and "
        "p_inf (lower); exact rationals, correctly rounded, for every (N, λ_H, μ, i) of "
        "the lists given.",
    )
    walks.add_argument(
        "--servers",
        required=True,
        type=_list_arg(positive_int_arg),
        metavar="LIST",
        help="numbers of servers N >= 4, comma-separated",
    )
    for option, what in (("--lambda-h", "H arrival rates per server"), ("--mu", "service rates")):
        walks.add_argument(
            option, required=True, type=_list_arg(real_arg), metavar="LIST", help=what
        )
    walks.add_argument(
        "--level",
        required=True,
        type=_list_arg(positive_int_arg),
        metavar="LIST",
        help="start levels i (idle servers), each in 1..b - 1",
    )
    _common(walks, WALKS_COLUMNS, "ruin,ruin_walk_pb,ruin_walk_pinf")


def _common(parser: argparse.ArgumentParser, known: dict[str, Any], default: str) -> None:
    parser.add_argument(
        "--columns",
        default=default,
        metavar="LIST",
        help=f"quantities, comma-separated, among {', '.join(known)} (default: %(default)s)",
    )
    parser.add_argument(
        "--dps",
        type=dps_arg,
        metavar="D",
        default=6,
        help="significant digits, correctly rounded (default: %(default)s)",
    )
    parser.add_argument(
        "--format",
        choices=("latex", "markdown", "csv"),
        default="latex",
        help="output format (default: %(default)s)",
    )
    parser.add_argument(
        "--caption",
        help="table caption (LaTeX or Markdown text; default: "
        "the model, its fixed parameters and the digits)",
    )
    parser.add_argument("--label", help="LaTeX label (default: tab:MODEL)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run ``qtheory table``: print the table in ``--format``.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed ``qtheory table gated`` or ``qtheory table lossnet`` options.

    Returns
    -------
    int
        0 (errors are raised, and turned into exit codes by :mod:`qtheory.cli.program`).

    Raises
    ------
    ValueError
        As :func:`gated_table` and :func:`lossnet_table`, naming the option.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> register(parser)
    >>> run(parser.parse_args("gated --arrival-rate inf --reward 4,2 --columns pof "
    ...                       "--format csv".split()))
    arrival_rate,service_rate,reward,cost,pof
    inf,1,4,1,1.52961
    inf,1,2,1,2.17613
    0
    """
    if args.model == "gated":
        frame = gated_table(
            arrival_rate=args.arrival_rate,
            service_rate=args.service_rate,
            reward=args.reward,
            cost=args.cost,
            columns=args.columns,
            dps=args.dps,
            frame=False,  # the rows only: pandas is not imported
        )
    elif args.model == "walks":
        frame = walks_table(
            servers=args.servers,
            lambda_h=args.lambda_h,
            mu=args.mu,
            level=args.level,
            columns=args.columns,
            dps=args.dps,
            frame=False,  # the rows only: pandas is not imported
        )
    else:
        frame = lossnet_table(
            servers=args.servers,
            lambda_h=args.lambda_h,
            lambda_l=args.lambda_l,
            mu=args.mu,
            r_h=args.r_h,
            r_l=args.r_l,
            columns=args.columns,
            dps=args.dps,
            frame=False,  # the rows only: pandas is not imported
        )
    if args.format == "latex":
        print(to_latex(frame, caption=args.caption, label=args.label), end="")
    elif args.format == "markdown":
        print(to_markdown(frame, caption=args.caption), end="")
    else:
        print(to_csv(frame), end="")
    return 0
