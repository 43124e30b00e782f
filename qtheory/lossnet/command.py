"""``qtheory lossnet``: single numbers of the overloaded loss network, scriptable.

``qtheory lossnet online`` prints the fluid bound, the exact online optimum (best trunk
reservation), the regret, the optimal reserve k* (admit L only while more than k*
servers are idle) and the probability that all servers are busy under it.  The reserve
is printed as ``reserve`` and, with the same value, as ``threshold`` (the older name,
kept as an alias for scripts that read it).

With ``--certify`` the fluid bound, R_on, the regret and P(full) are instead certified
enclosures ``[lower, upper]`` (in JSON ``{"lower": "...", "upper": "..."}``) of relative
width below 10^-D, D = ``--dps`` (default 30), and the reserve is certified the unique
optimal one, trunk reservation with it optimal among all admission policies
(:func:`qtheory.lossnet.certified.certified_online_optimum`; the rates and rewards are
read as the decimals their float64 values print as, 0.6 meaning 3/5).
"""

from __future__ import annotations

import argparse
import json

from qtheory._cli_types import (
    DEFAULT_SEED,
    nonnegative_real_arg,
    positive_int_arg,
    positive_real_arg,
    real_arg,
    seed_arg,
)
from qtheory._output import add_output_arguments, render
from qtheory.lossnet.model import LossNetwork
from qtheory.lossnet.online import online_optimum
from qtheory.precision import check_dps

__all__ = [
    "CERTIFY_DPS",
    "certified_online_values",
    "network",
    "network_arguments",
    "online_values",
    "register",
    "run_online",
]

#: Digits of ``--certify`` when ``--dps`` is not given.
CERTIFY_DPS = 30


def network_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the six options of a :class:`LossNetwork` (shared with ``qtheory walks``).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The subcommand's parser; gains ``--servers``, ``--lambda-h``, ``--lambda-l``,
        ``--mu``, ``--r-h`` and ``--r-l`` (all required).

    Returns
    -------
    None

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> network_arguments(parser)
    >>> args = parser.parse_args("--servers 10 --lambda-h .6 --lambda-l .8 --mu 1 "
    ...                          "--r-h 2 --r-l 1".split())
    >>> network(args).servers
    10
    """
    parser.add_argument(
        "--servers", required=True, type=positive_int_arg, help="number of servers N"
    )
    parser.add_argument(
        "--lambda-h", required=True, type=real_arg, help="H arrival rate per server"
    )
    parser.add_argument(
        "--lambda-l", required=True, type=real_arg, help="L arrival rate per server"
    )
    parser.add_argument("--mu", required=True, type=real_arg, help="service rate")
    parser.add_argument("--r-h", required=True, type=real_arg, help="reward of an H job")
    parser.add_argument("--r-l", required=True, type=real_arg, help="reward of an L job")


def network(args: argparse.Namespace) -> LossNetwork:
    """The :class:`LossNetwork` of parsed :func:`network_arguments` options.

    Parameters
    ----------
    args : argparse.Namespace
        With ``servers``, ``lambda_h``, ``lambda_l``, ``mu``, ``r_h`` and ``r_l``.

    Returns
    -------
    LossNetwork

    Raises
    ------
    ValueError
        If the parameters are invalid (see :class:`LossNetwork`).

    Examples
    --------
    >>> args = argparse.Namespace(servers=10, lambda_h=0.6, lambda_l=0.8, mu=1.0,
    ...                           r_h=2.0, r_l=1.0)
    >>> network(args).arrival_rate_h
    6.0
    """
    return LossNetwork(args.servers, args.lambda_h, args.lambda_l, args.mu, args.r_h, args.r_l)


def register(parser: argparse.ArgumentParser) -> None:
    """Give ``qtheory lossnet`` its subcommands ``online`` and ``simulate``.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser of ``qtheory lossnet``.

    Returns
    -------
    None

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> register(parser)
    >>> args = parser.parse_args("online --servers 10 --lambda-h .6 --lambda-l .8 "
    ...                          "--mu 1 --r-h 2 --r-l 1".split())
    >>> args.run is run_online
    True
    """
    parser.description = __doc__
    commands = parser.add_subparsers(dest="lossnet_command", required=True)
    online = commands.add_parser(
        "online", help="fluid bound, exact online optimum, regret and optimal reserve"
    )
    network_arguments(online)
    online.add_argument(
        "--certify",
        action="store_true",
        help="print certified enclosures (Arb) of relative width < 10^-dps and a reserve "
        f"certified optimal (dps {CERTIFY_DPS} unless --dps is given)",
    )
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
    simulate.add_argument(
        "--horizon", required=True, type=positive_real_arg, help="simulated time T"
    )
    simulate.add_argument(
        "--warmup",
        default=0.0,
        type=nonnegative_real_arg,
        help="discarded time T0 (default: %(default)s)",
    )
    simulate.add_argument(
        "--reps",
        default=10,
        type=positive_int_arg,
        help="independent replications, >= 2 (default: %(default)s)",
    )
    simulate.add_argument(
        "--seed",
        type=seed_arg,
        default=DEFAULT_SEED,
        help="root seed; the same seed replays the same paths (default: %(default)s, the "
        "root seed of qtheory reproduce)",
    )
    simulate.add_argument("--json", action="store_true", help="print one JSON object")
    simulate.set_defaults(run=run_simulate, dps=None)


def online_values(net: LossNetwork, *, dps: int | None = None) -> dict[str, object]:
    """The numbers ``qtheory lossnet online`` prints, by name.

    Parameters
    ----------
    net : LossNetwork
        The network.
    dps : int or None, keyword-only
        As in :func:`~qtheory.lossnet.online.online_optimum`.

    Returns
    -------
    dict
        ``fluid``, ``online``, ``regret``, ``reserve`` (the optimal reserve k*),
        ``threshold`` (the same k*, the documented alias of the older name) and
        ``p_full``.

    Raises
    ------
    TypeError, ValueError
        As :func:`~qtheory.lossnet.online.online_optimum`.

    References
    ----------
    .. [1] B. L. Miller, "A queueing reward system with several customer classes",
       Management Science 16(3):234-245 (1969).

    Examples
    --------
    >>> values = online_values(LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> values["reserve"], values["threshold"], values["fluid"]
    (4, 4, 160.0)
    """
    opt = online_optimum(net, dps=dps)
    return {
        "fluid": opt.fluid,
        "online": opt.online,
        "regret": opt.regret,
        "reserve": opt.reserve,
        "threshold": opt.reserve,  # alias of "reserve", kept for existing scripts
        "p_full": opt.prob_full,
    }


def certified_online_values(net: LossNetwork, *, dps: int | None = None) -> dict[str, object]:
    """The values ``qtheory lossnet online --certify`` prints, by name.

    Parameters
    ----------
    net : LossNetwork
        The network (rates and rewards read as the decimals they print as).
    dps : int or None, keyword-only
        Digits of the enclosures; None (default): :data:`CERTIFY_DPS`.

    Returns
    -------
    dict
        ``fluid``, ``online``, ``regret`` and ``p_full`` as
        :class:`~qtheory.enclosure.Enclosure`; ``reserve`` (and its alias
        ``threshold``) the integer k*, certified the unique optimal reserve.

    Raises
    ------
    TypeError, ValueError, ArithmeticError
        As :func:`~qtheory.lossnet.certified.certified_online_optimum`.

    References
    ----------
    .. [1] B. L. Miller, Management Science 16(3):234-245 (1969).

    Examples
    --------
    >>> values = certified_online_values(LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0), dps=10)
    >>> values["reserve"], values["fluid"].to_json(), values["online"].lower[:12]
    (4, {'lower': '1.6e+2', 'upper': '1.6e+2'}, '1.5338270967')
    >>> values["online"].contains("153.3827096713023249928997")
    True
    """
    from qtheory.lossnet.certified import certified_online_optimum  # Arb: only when certifying

    digits = CERTIFY_DPS if dps is None else check_dps(dps, cost="a certified online optimum")
    opt = certified_online_optimum(net, dps=digits)
    return {
        "fluid": opt.fluid,
        "online": opt.online,
        "regret": opt.regret,
        "reserve": opt.reserve,
        "threshold": opt.reserve,  # alias of "reserve", as in online_values
        "p_full": opt.prob_full,
    }


def _render_certified(values: dict[str, object], as_json: bool) -> str:
    from qtheory.enclosure import Enclosure

    if as_json:
        shown = {k: v.to_json() if isinstance(v, Enclosure) else v for k, v in values.items()}
        return json.dumps(shown)
    width = max(map(len, values))
    return "\n".join(
        f"{name:<{width}}  [{value.lower}, {value.upper}]"
        if isinstance(value, Enclosure)
        else f"{name:<{width}}  {value}"
        for name, value in values.items()
    )


def run_online(args: argparse.Namespace) -> int:
    """Run ``qtheory lossnet online``: print :func:`online_values`.

    Parameters
    ----------
    args : argparse.Namespace
        The network options, ``dps``, ``json`` and (optionally) ``certify``.

    Returns
    -------
    int
        0 (the exit status).

    Raises
    ------
    ValueError
        On invalid parameters or a cost above the limits (the CLI exits 2).

    Examples
    --------
    >>> args = argparse.Namespace(servers=10, lambda_h=0.6, lambda_l=0.8, mu=1.0,
    ...                           r_h=2.0, r_l=1.0, dps=None, json=True)
    >>> run_online(args)  # doctest: +ELLIPSIS
    {"fluid": 16.0, ..., "reserve": 2, "threshold": 2, ...}
    0
    >>> run_online(argparse.Namespace(**{**vars(args), "certify": True, "dps": 8}))
    ... # doctest: +ELLIPSIS
    {"fluid": {"lower": "1.6e+1", "upper": "1.6e+1"}, "online": {"lower": "1.31306274...
    0
    """
    if getattr(args, "certify", False):
        values = certified_online_values(network(args), dps=args.dps)
        print(_render_certified(values, args.json))
        return 0
    print(render(online_values(network(args), dps=args.dps), args.dps, args.json))
    return 0


def run_simulate(args: argparse.Namespace) -> int:
    """Run ``qtheory lossnet simulate``: one policy's reward rate with its 95% interval.

    Parameters
    ----------
    args : argparse.Namespace
        The network options, ``policy``, ``info``, ``horizon``, ``warmup``, ``reps``,
        ``seed`` and ``json``.

    Returns
    -------
    int
        0 (the exit status).

    Raises
    ------
    ValueError
        On invalid parameters (the CLI exits 2).

    Examples
    --------
    >>> args = argparse.Namespace(servers=10, lambda_h=0.6, lambda_l=0.8, mu=1.0,
    ...     r_h=2.0, r_l=1.0, policy="threshold:1", info="clock", horizon=20.0,
    ...     warmup=1.0, reps=2, seed=1, json=True)
    >>> run_simulate(args)  # doctest: +ELLIPSIS
    {"reward_rate": ...}
    0
    """
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
