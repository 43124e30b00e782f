"""``qtheory lossnet``: single numbers of the overloaded loss network, scriptable.

``qtheory lossnet online`` prints the fluid bound, the exact online optimum (best trunk
reservation), the regret, the optimal reserve k* (admit L only while more than k*
servers are idle) and the probability that all servers are busy under it.
"""

from __future__ import annotations

import argparse
import json

import mpmath

from qtheory.lossnet.model import LossNetwork
from qtheory.lossnet.online import online_optimum


def _network_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--servers", required=True, type=int, help="number of servers N")
    parser.add_argument("--lambda-h", required=True, type=float, help="H arrival rate per server")
    parser.add_argument("--lambda-l", required=True, type=float, help="L arrival rate per server")
    parser.add_argument("--mu", required=True, type=float, help="service rate")
    parser.add_argument("--r-h", required=True, type=float, help="reward of an H job")
    parser.add_argument("--r-l", required=True, type=float, help="reward of an L job")


def network(args: argparse.Namespace) -> LossNetwork:
    return LossNetwork(args.servers, args.lambda_h, args.lambda_l, args.mu, args.r_h, args.r_l)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "lossnet", help="the overloaded two-class loss network", description=__doc__
    )
    commands = parser.add_subparsers(dest="lossnet_command", required=True)
    online = commands.add_parser(
        "online", help="fluid bound, exact online optimum, regret and optimal reserve"
    )
    _network_arguments(online)
    online.add_argument("--dps", type=int, help="decimal digits (mpmath); default float64")
    online.add_argument("--json", action="store_true", help="print one JSON object")
    online.set_defaults(run=run_online)


def run_online(args: argparse.Namespace) -> int:
    if args.dps is not None and args.dps < 1:
        raise ValueError(f"dps must be >= 1, got {args.dps}")
    opt = online_optimum(network(args), args.dps)
    values = {
        "fluid": opt.fluid,
        "online": opt.online,
        "regret": opt.regret,
        "p_full": opt.prob_full,
    }
    if args.dps is None:
        shown: dict[str, object] = {name: float(v) for name, v in values.items()}
    else:
        shown = {name: mpmath.nstr(v, args.dps, strip_zeros=False) for name, v in values.items()}
    shown["threshold"] = opt.threshold
    if args.json:
        print(json.dumps(shown))
    else:
        width = max(map(len, shown))
        for name, value in shown.items():
            print(f"{name:<{width}}  {value}")
    return 0
