"""``qtheory lossnet``: single numbers of the overloaded loss network, scriptable.

``qtheory lossnet online`` prints the fluid bound, the exact online optimum (best trunk
reservation), the regret, the optimal reserve k* (admit L only while more than k*
servers are idle) and the probability that all servers are busy under it.
"""

from __future__ import annotations

import argparse

from qtheory._output import add_output_arguments, render
from qtheory.lossnet.model import LossNetwork
from qtheory.lossnet.online import online_optimum
from qtheory.precision import check_dps


def network_arguments(parser: argparse.ArgumentParser) -> None:
    """The six options of a :class:`LossNetwork` (shared with ``qtheory walks``)."""
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
    network_arguments(online)
    add_output_arguments(online)
    online.set_defaults(run=run_online)
    simulate = commands.add_parser(
        "simulate", help="simulate a policy (C extension) with confidence intervals"
    )
    network_arguments(simulate)
    simulate.add_argument("--policy", required=True, help="threshold:K | pfi | sss:W | offline")
    simulate.add_argument(
        "--info",
        default="clock",
        choices=("clock", "job"),
        help="information model (default: clock)",
    )
    simulate.add_argument("--horizon", required=True, type=float, help="simulated time T")
    simulate.add_argument("--warmup", default=0.0, type=float, help="discarded time T0")
    simulate.add_argument("--reps", default=10, type=int, help="independent replications")
    simulate.add_argument("--seed", default=None, type=int, help="root seed")
    simulate.add_argument("--json", action="store_true", help="print one JSON object")
    simulate.set_defaults(run=run_simulate, dps=None)


def run_online(args: argparse.Namespace) -> int:
    check_dps(args.dps)
    opt = online_optimum(network(args), args.dps)
    values = {
        "fluid": opt.fluid,
        "online": opt.online,
        "regret": opt.regret,
        "threshold": opt.threshold,
        "p_full": opt.prob_full,
    }
    print(render(values, args.dps, args.json))
    return 0


def run_simulate(args: argparse.Namespace) -> int:
    # The C extension and the LP solver load only when needed.
    from qtheory.lossnet.offline_job import simulate_offline_job
    from qtheory.sim.lossnet import simulate

    if args.reps < 2:
        raise ValueError(f"reps must be >= 2 for a confidence interval, got {args.reps}")
    run = dict(horizon=args.horizon, warmup=args.warmup, reps=args.reps, seed=args.seed)
    if args.info == "job" and args.policy == "offline":
        result = simulate_offline_job(network(args), **run)
    else:
        result = simulate(network(args), args.policy, info=args.info, **run)
    values = {
        "reward_rate": result.reward_rate.mean,
        "ci_halfwidth": result.reward_rate.halfwidth,
        "events": result.events,
        "admitted_h": result.admitted_h,
        "admitted_l": result.admitted_l,
        "mean_idle": result.mean_idle.mean,
        "info": result.info,
    }
    print(render(values, None, args.json))
    return 0
