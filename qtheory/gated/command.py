"""``qtheory gated``: single numbers of the gated-admission model, scriptable.

Prints τ*, S_GA(τ*), the RR optimum λ* and S_RR(λ*), GA throughput and PoF (and, with
``--gate``, σ and S_GA at that gate).  With ``--json`` one JSON object; with ``--dps D``
every value is a decimal string with D significant digits, computed with mpmath (the
working digits, D plus guard digits that grow with log10 ν and log10 1/(ν − 1), are
refused above ``qtheory.limits`` ``dps`` limit, 1000 unless ``QTHEORY_LIMIT_DPS`` says
otherwise).
"""

from __future__ import annotations

import argparse
import math

from qtheory._output import add_output_arguments, render
from qtheory.gated.model import GatedQueue
from qtheory.gated.root import root
from qtheory.gated.welfare import optimal_gate, optimal_routing, price_of_forgetting, welfare_ga
from qtheory.precision import check_dps


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "gated",
        help="optimal gate, welfare and Price of Forgetting of the unobservable M/M/1 queue",
        description=__doc__,
    )
    parser.add_argument(
        "--arrival-rate", required=True, help="potential arrival rate Λ ('inf' allowed)"
    )
    parser.add_argument("--service-rate", required=True, help="service rate μ")
    parser.add_argument("--reward", required=True, help="reward R per served customer")
    parser.add_argument("--cost", required=True, help="cost C per customer per unit time")
    parser.add_argument("--gate", help="also evaluate the queue at this gate length τ")
    add_output_arguments(parser)
    parser.set_defaults(run=run)


def _parse_float(name: str, text: str) -> float:
    """float64 value of a command-line number; only 'inf' may be infinite."""
    try:
        value = float(text)
    except ValueError as error:
        raise ValueError(f"{name} must be a real number, got {text!r}") from error
    if math.isinf(value) and text.strip().lower().lstrip("+") not in ("inf", "infinity"):
        raise ValueError(f"{name} overflows float64 ({text!r}); use --dps for such values")
    return value


def _queue(args: argparse.Namespace) -> GatedQueue:
    values = {
        "arrival_rate": args.arrival_rate,
        "service_rate": args.service_rate,
        "reward": args.reward,
        "cost": args.cost,
    }
    if args.dps is None:
        values = {name: _parse_float(name, text) for name, text in values.items()}
    return GatedQueue(**values)


def compute(args: argparse.Namespace) -> dict[str, object]:
    """The numbers ``qtheory gated`` prints, as Python values: floats, or (with
    ``--dps D``) mpf values correct to D digits.  ``--dps`` and the working digits it
    implies are checked against the ``dps`` limit before any work."""
    dps = check_dps(args.dps)
    queue = _queue(args)
    gate_opt = optimal_gate(queue, dps=dps)
    routing = optimal_routing(queue, dps=dps)
    values = {
        "tau_star": gate_opt.gate,
        "welfare_ga": gate_opt.welfare,
        "welfare_rr": routing.welfare,
        "rate_rr": routing.rate,
        "throughput_ga": gate_opt.throughput,
        "pof": price_of_forgetting(queue, dps=dps),
    }
    if args.gate is not None:
        gate = args.gate if dps is not None else _parse_float("gate", args.gate)
        values["sigma"] = root(gate, queue.arrival_rate, queue.service_rate, dps=dps)
        values["welfare_at_gate"] = welfare_ga(queue, gate, dps=dps)
    return values


def run(args: argparse.Namespace) -> int:
    print(render(compute(args), args.dps, args.json))
    return 0
