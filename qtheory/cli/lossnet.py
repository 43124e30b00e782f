"""``qtheory lossnet``: single numbers of the overloaded loss network, scriptable.

``qtheory lossnet online`` prints the fluid bound, the exact online optimum (best trunk
reservation), the regret, the optimal reserve k* (admit L only while more than k*
servers are idle) and the probability that all servers are busy under it.  The reserve
is printed as ``reserve`` and, with the same value, as ``threshold`` (the older name,
kept as an alias for scripts that read it).

With ``--certify`` the fluid bound, R_on, the regret and P(full) are instead certified
enclosures ``[lower, upper]`` (in JSON ``{"lower": "...", "upper": "...", "width":
"..."}``, the width rounded up) of relative width below 10^-D, D = ``--dps`` (default
30), and the reserve is certified the unique optimal one, trunk reservation with it
optimal among all admission policies
(:func:`qtheory.lossnet.certified.certified_online_optimum`; the rates and rewards are
read as the decimals their float64 values print as, 0.6 meaning 3/5).

n classes: ``qtheory lossnet online`` takes ``--lambdas 0.3,0.5,0.6 --rewards 3,2,1``
(comma-separated, one arrival rate per server and one reward per class, rewards
strictly decreasing) instead of ``--lambda-h --lambda-l --r-h --r-l``; the two forms
are mutually exclusive and ``--servers`` and ``--mu`` are needed with either.  With two
classes the output is that of the two-class options.  With n > 2 classes the optimum is
nested trunk reservation (:func:`qtheory.lossnet.online.online_optimum`, float64: no
``--dps`` or ``--certify``); the JSON keys are the same, ``reserve`` and its alias
``threshold`` become the list of reserves [k_1, …, k_n] (class j admitted while more
than k_j servers are idle, k_1 = 0, k_j = N: never; printed ``0,1,43,400091`` in the
text output) and ``p_full`` is P(all servers busy), class 1's blocking probability.

``qtheory lossnet single-use --servers N --horizon T --lambda-h --lambda-l --r-h --r-l``
is the contrast without departures (:mod:`qtheory.lossnet.single_use`): N units sold
over [0, T], each accepted job keeping its unit.  It prints the exact online optimum
(``online``, the HJB's piecewise-exact solution), the offline optimum (``offline``), the
fluid LP (``fluid``), ``offline_online_gap``, ``fluid_offline_gap`` and
``online_error_bound`` (a bound on the online value's numerical error, rounded up to two
significant digits), float64 only.

``qtheory lossnet simulate`` takes the classes either way too.  With n > 2 classes it
runs the n-class simulator (:func:`qtheory.sim.lossnet.simulate`, clock
model only: ``--info job`` is refused): ``--policy threshold:k_1,...,k_n`` is nested
trunk reservation with one reserve per class, ``pfi`` and ``sss:W`` judge class j on
the future in which only the better classes are admitted, ``offline`` is the path's
dynamic programme.  The JSON keys are those of two classes, ``admitted_h`` counting
class 1 and ``admitted_l`` classes 2..n together, plus ``admitted``, the list of
admissions per class.
"""

from __future__ import annotations

import argparse
import json
import math

from qtheory.cli.output import add_output_arguments, render
from qtheory.core.arguments import (
    DEFAULT_SEED,
    nonnegative_real_arg,
    positive_int_arg,
    positive_real_arg,
    real_arg,
    seed_arg,
)
from qtheory.model.lossnet import LossNetwork
from qtheory.model.single_use import SingleUseNetwork

__all__ = [
    "CERTIFY_DPS",
    "TWO_CLASS_OPTIONS",
    "certified_online_values",
    "any_network_arguments",
    "network",
    "network_arguments",
    "online_network",
    "online_values",
    "real_list_arg",
    "register",
    "run_online",
    "run_single_use",
    "simulate_values",
    "single_use_values",
]

#: Digits of ``--certify`` when ``--dps`` is not given.
CERTIFY_DPS = 30


def network_arguments(parser: argparse.ArgumentParser, *, two_class_required: bool = True) -> None:
    """Add the six options of a :class:`LossNetwork` (shared with ``qtheory walks``).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The subcommand's parser; gains ``--servers``, ``--lambda-h``, ``--lambda-l``,
        ``--mu``, ``--r-h`` and ``--r-l`` (all required).
    two_class_required : bool, keyword-only
        False: ``--lambda-h``, ``--lambda-l``, ``--r-h`` and ``--r-l`` are optional (the
        command offers ``--lambdas``/``--rewards`` instead and checks the choice).

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
    two = two_class_required
    parser.add_argument("--lambda-h", required=two, type=real_arg, help="H arrival rate per server")
    parser.add_argument("--lambda-l", required=two, type=real_arg, help="L arrival rate per server")
    parser.add_argument("--mu", required=True, type=real_arg, help="service rate")
    parser.add_argument("--r-h", required=two, type=real_arg, help="reward of an H job")
    parser.add_argument("--r-l", required=two, type=real_arg, help="reward of an L job")


def any_network_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the network options with either form of the classes: the two-class options
    (optional, :func:`network_arguments`) or ``--lambdas`` and ``--rewards``
    (comma-separated, :func:`real_list_arg`); :func:`online_network` checks the choice.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The subcommand's parser (``online`` and ``simulate``).

    Returns
    -------
    None

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> any_network_arguments(parser)
    >>> args = parser.parse_args("--servers 10 --mu 1 --lambdas .3,.9,.6 --rewards 3,2,1".split())
    >>> online_network(args).marginal
    1
    """
    network_arguments(parser, two_class_required=False)
    parser.add_argument(
        "--lambdas",
        type=real_list_arg,
        help="arrival rates per server of classes 1..n, comma-separated (with --rewards; "
        "instead of --lambda-h/--lambda-l)",
    )
    parser.add_argument(
        "--rewards",
        type=real_list_arg,
        help="rewards of classes 1..n, strictly decreasing, comma-separated (with --lambdas; "
        "instead of --r-h/--r-l)",
    )


#: The two-class options that --lambdas/--rewards replace, by attribute name.
TWO_CLASS_OPTIONS = {
    "lambda_h": "--lambda-h",
    "lambda_l": "--lambda-l",
    "r_h": "--r-h",
    "r_l": "--r-l",
}


def real_list_arg(text: str) -> tuple[float, ...]:
    """Comma-separated finite real numbers (at least one), e.g. ``0.3,0.5,0.6``.

    Parameters
    ----------
    text : str
        The option's text.

    Returns
    -------
    tuple of float

    Raises
    ------
    argparse.ArgumentTypeError
        If an entry is not a finite float64.

    Examples
    --------
    >>> real_list_arg("0.3,0.5, 0.6")
    (0.3, 0.5, 0.6)
    >>> real_list_arg("1,,2")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be comma-separated finite real numbers, got '1,,2'
    """
    try:
        return tuple(real_arg(entry) for entry in text.split(","))
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"must be comma-separated finite real numbers, got {text!r}"
        ) from None


def online_network(args: argparse.Namespace) -> LossNetwork:
    """The network of ``qtheory lossnet online``'s options: the two-class options or
    ``--lambdas``/``--rewards`` (two entries or more).

    Parameters
    ----------
    args : argparse.Namespace
        ``servers``, ``mu``, and either ``lambda_h``, ``lambda_l``, ``r_h``, ``r_l`` or
        ``lambdas``, ``rewards`` (the others None).

    Returns
    -------
    LossNetwork

    Raises
    ------
    ValueError
        Naming the options: both forms given, one of a form's options missing, or the
        parameters invalid (see :class:`LossNetwork`).

    Examples
    --------
    >>> args = argparse.Namespace(servers=10, mu=1.0, lambdas=(0.3, 0.5, 0.6),
    ...     rewards=(3.0, 2.0, 1.0), lambda_h=None, lambda_l=None, r_h=None, r_l=None)
    >>> online_network(args).n_classes
    3
    >>> online_network(argparse.Namespace(**{**vars(args), "r_h": 2.0}))
    Traceback (most recent call last):
    ...
    ValueError: --lambdas/--rewards and --r-h are mutually exclusive (give the classes one way)
    """
    given_two = [
        flag for name, flag in TWO_CLASS_OPTIONS.items() if getattr(args, name) is not None
    ]
    lambdas, rewards = getattr(args, "lambdas", None), getattr(args, "rewards", None)
    if lambdas is None and rewards is None:
        missing = [flag for flag in TWO_CLASS_OPTIONS.values() if flag not in given_two]
        if missing:
            raise ValueError(
                f"{', '.join(missing)} required (or give the classes as --lambdas and --rewards)"
            )
        return network(args)
    if given_two:
        raise ValueError(
            f"--lambdas/--rewards and {', '.join(given_two)} are mutually exclusive "
            "(give the classes one way)"
        )
    if lambdas is None or rewards is None:
        raise ValueError(f"{'--lambdas' if lambdas is None else '--rewards'} is required too")
    return LossNetwork(args.servers, lambdas, rewards, args.mu)


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
    """Give ``qtheory lossnet`` its subcommands ``online``, ``simulate`` and
    ``single-use``.

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
    parser.description = (
        "Single numbers of the overloaded loss network: the exact online optimum "
        "(online), simulated policies with confidence intervals (simulate), and the "
        "single-use contrast without departures (single-use)."
    )
    commands = parser.add_subparsers(dest="lossnet_command", required=True)
    online = commands.add_parser(
        "online",
        help="fluid bound, exact online optimum, regret and optimal reserve",
        description="Fluid bound, exact online optimum, regret and optimal reserve of a "
        "two-class network (--lambda-h --lambda-l --r-h --r-l) or an n-class one "
        "(--lambdas --rewards, comma-separated; mutually exclusive with the two-class "
        "options).  For n > 2 classes 'reserve' and its alias 'threshold' are the list "
        "of nested reserves k_1..k_n (class j admitted while more than k_j servers are "
        "idle), computed in float64 (no --dps, no --certify).",
    )
    any_network_arguments(online)
    online.add_argument(
        "--certify",
        action="store_true",
        help="print certified enclosures (Arb) of relative width < 10^-dps and a reserve "
        f"certified optimal (dps {CERTIFY_DPS} unless --dps is given)",
    )
    add_output_arguments(online)
    online.set_defaults(run=run_online)
    simulate = commands.add_parser(
        "simulate",
        help="simulate a policy (C extension) with confidence intervals",
        description="Simulate an admission policy with the C simulator over "
        "independent replications and print its reward rate with a 95% confidence "
        "interval: threshold:K (trunk reservation with reserve K), pfi, sss:W (window W) "
        "or offline (the offline optimum of each path).  The same --seed replays the same "
        "paths for every policy.  Two classes (--lambda-h --lambda-l --r-h --r-l) or n "
        "classes (--lambdas --rewards, comma-separated; mutually exclusive with the "
        "two-class options; clock model only for n > 2): then threshold takes the nested "
        "reserves k_1,...,k_n (class j admitted while more than k_j servers are idle), "
        "pfi and sss:W judge class j on the future in which only better classes are "
        "admitted, and 'admitted' lists the admissions per class (admitted_h: class 1, "
        "admitted_l: classes 2..n together).",
    )
    any_network_arguments(simulate)
    simulate.add_argument(
        "--policy",
        required=True,
        help="threshold:K (n > 2 classes: threshold:k_1,...,k_n) | pfi | sss:W | offline",
    )
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
    single_use = commands.add_parser(
        "single-use",
        help="single-use units (no departures): online, offline and fluid optima",
        description="N units sold over the horizon [0, T] to H and L jobs arriving at rates "
        "lambda_H N and lambda_L N; an accepted job keeps its unit for ever.  Prints the "
        "exact online optimum (the finite-horizon HJB, solved piecewise exactly), the "
        "offline optimum (knowing every arrival), the fluid LP, the two gaps and a bound "
        "on the online value's numerical error (float64).",
    )
    single_use.add_argument(
        "--servers", required=True, type=positive_int_arg, help="number of units N"
    )
    single_use.add_argument(
        "--horizon", required=True, type=positive_real_arg, help="selling horizon T"
    )
    for flag, text in (
        ("--lambda-h", "H arrival rate per unit"),
        ("--lambda-l", "L arrival rate per unit"),
        ("--r-h", "reward of an H job"),
        ("--r-l", "reward of an L job"),
    ):
        single_use.add_argument(flag, required=True, type=real_arg, help=text)
    single_use.add_argument("--json", action="store_true", help="print one JSON object")
    single_use.set_defaults(run=run_single_use, dps=None)


def online_values(net: LossNetwork, *, dps: int | None = None) -> dict[str, object]:
    """The numbers ``qtheory lossnet online`` prints, by name.

    Parameters
    ----------
    net : LossNetwork
        The network.
    dps : int or None, keyword-only
        As in :func:`~qtheory.lossnet.online.online_optimum` (two classes).

    Returns
    -------
    dict
        ``fluid``, ``online``, ``regret``, ``reserve`` (the optimal reserve k* of two
        classes, the list [k_1, …, k_n] of n), ``threshold`` (the same, the documented
        alias of the older name) and ``p_full``.

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
    >>> values = online_values(LossNetwork(100, (0.3, 0.9, 0.6), (3, 2, 1), 1.0))
    >>> values["reserve"], round(values["fluid"], 9)
    ([0, 1, 29], 230.0)
    """
    from qtheory.lossnet.online import online_optimum  # NumPy: only when computing

    opt = online_optimum(net, dps=dps)
    reserve = list(opt.reserves) if net.n_classes > 2 else opt.reserve
    return {
        "fluid": opt.fluid,
        "online": opt.online,
        "regret": opt.regret,
        "reserve": reserve,
        "threshold": reserve,  # alias of "reserve", kept for existing scripts
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
        :class:`~qtheory.core.enclosure.Enclosure`; ``reserve`` (and its alias
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
    (4, {'lower': '1.6e+2', 'upper': '1.6e+2', 'width': '0'}, '1.5338270967')
    >>> values["online"].contains("153.3827096713023249928997")
    True
    """
    from qtheory.core.precision import check_dps
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
    from qtheory.core.enclosure import Enclosure

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
    {"fluid": {"lower": "1.6e+1", "upper": "1.6e+1", "width": "0"}, "online": {...
    0
    """
    net = online_network(args) if hasattr(args, "lambdas") else network(args)
    if net.n_classes > 2:
        for flag, used in (("--certify", getattr(args, "certify", False)), ("--dps", args.dps)):
            if used:
                raise ValueError(
                    f"{flag} needs two classes: the {net.n_classes}-class optimum is float64"
                )
        print(_render_lists(online_values(net), args.json))
        return 0
    if getattr(args, "certify", False):
        values = certified_online_values(net, dps=args.dps)
        print(_render_certified(values, args.json))
        return 0
    print(render(online_values(net, dps=args.dps), args.dps, args.json))
    return 0


def _render_lists(values: dict[str, object], as_json: bool) -> str:
    """:func:`~qtheory.cli.output.render` (float64) with list values: JSON arrays, or
    comma-separated in the text lines."""
    lists = {name: value for name, value in values.items() if isinstance(value, list)}
    if not as_json:
        joined = {
            name: ",".join(map(str, lists[name])) if name in lists else value
            for name, value in values.items()
        }
        return render(joined, None, False)
    scalars = json.loads(render({k: v for k, v in values.items() if k not in lists}, None, True))
    return json.dumps({name: lists.get(name, scalars.get(name)) for name in values})


def run_simulate(args: argparse.Namespace) -> int:
    """Run ``qtheory lossnet simulate``: one policy's reward rate with its 95% interval.

    Parameters
    ----------
    args : argparse.Namespace
        The network options (either form, :func:`online_network`), ``policy``,
        ``info``, ``horizon``, ``warmup``, ``reps``, ``seed`` and ``json``.

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
    if args.reps < 2:
        raise ValueError(f"reps must be >= 2 for a confidence interval, got {args.reps}")
    net = online_network(args)
    if net.n_classes > 2 and args.info != "clock":
        raise ValueError(
            f"--info {args.info} needs two classes: {net.n_classes} classes are simulated "
            "in the clock model only"
        )
    values = simulate_values(
        net, args.policy, info=args.info, horizon=args.horizon, warmup=args.warmup,
        reps=args.reps, seed=args.seed,
    )  # fmt: skip
    lists = net.n_classes > 2
    print(_render_lists(values, args.json) if lists else render(values, None, args.json))
    return 0


def simulate_values(
    net: LossNetwork,
    policy: str,
    *,
    info: str = "clock",
    horizon: float,
    warmup: float,
    reps: int,
    seed: object,
) -> dict[str, object]:
    """The numbers ``qtheory lossnet simulate`` prints, by name
    (:func:`qtheory.sim.lossnet.simulate`; the job model's ``offline``,
    :func:`qtheory.lossnet.offline_job.simulate_offline_job`).

    With n classes the keys are those of the two-class output, with class 1 in the
    place of H and the classes 2..n together in the place of L (the classes the
    generalised PFI and SSS judge), and one more: ``admitted``, the admissions of each
    class.

    Parameters
    ----------
    net : LossNetwork
        The network.
    policy : str
        As :func:`qtheory.sim.lossnet.simulate`.
    info : str, keyword-only
        ``"clock"`` or ``"job"`` (two classes).
    horizon, warmup : float
        T > 0 and 0 <= T0 < T.
    reps : int
        Replications (>= 2).
    seed : int
        Root seed.

    Returns
    -------
    dict
        ``reward_rate``, ``ci_halfwidth``, ``events``, ``admitted_h`` (class 1),
        ``admitted_l`` (classes 2..n), with n classes ``admitted`` (list, one count per
        class), ``mean_idle`` and ``info``; counts over (T0, T] summed over the
        replications.

    Raises
    ------
    ValueError
        Naming the parameter (e.g. ``policy``) when it is invalid.

    Examples
    --------
    >>> net = LossNetwork(20, (0.3, 0.9, 0.6), (3.0, 2.0, 1.0), 1.0)
    >>> values = simulate_values(net, "threshold:0,1,20", horizon=10.0, warmup=1.0,
    ...                          reps=2, seed=1)
    >>> values["admitted"][2], values["admitted_l"] == values["admitted"][1]
    (0, True)
    """
    # The C extension and the LP solver (SciPy's HiGHS) load only when needed.
    run = dict(horizon=horizon, warmup=warmup, reps=reps, seed=seed)
    if info == "job" and policy == "offline":
        from qtheory.lossnet.offline_job import simulate_offline_job

        result = simulate_offline_job(net, **run)
    else:
        from qtheory.sim.lossnet import simulate

        # what it prints needs no look-ahead statistics (PFI about 1.7x as fast without)
        result = simulate(net, policy, info=info, **run, lookahead_stats=False)
    per_class = {"admitted": list(result.admitted)} if net.n_classes > 2 else {}
    return {
        "reward_rate": result.reward_rate.mean,
        "ci_halfwidth": result.reward_rate.halfwidth,
        "events": result.events,
        "admitted_h": result.admitted[0],
        "admitted_l": sum(result.admitted[1:]),
        **per_class,
        "mean_idle": result.mean_idle.mean,
        "info": result.info,
    }


def single_use_values(net: SingleUseNetwork, *, progress: bool = False) -> dict[str, object]:
    """The numbers ``qtheory lossnet single-use`` prints, by name
    (:func:`qtheory.lossnet.single_use.single_use_optimum`).

    Parameters
    ----------
    net : SingleUseNetwork
        The network.
    progress : bool, keyword-only
        Show the HJB's progress bar on stderr (default False).

    Returns
    -------
    dict
        ``online``, ``offline``, ``fluid``, ``offline_online_gap``,
        ``fluid_offline_gap`` and ``online_error_bound`` (rounded up to two significant
        digits).

    Raises
    ------
    ValueError
        If the HJB's cost exceeds the ``dp_cells`` limit (naming ``servers``).

    Examples
    --------
    >>> values = single_use_values(SingleUseNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> values["fluid"], round(values["offline_online_gap"], 4)
    (16.0, 0.7414)
    """
    from qtheory.lossnet.single_use import single_use_optimum  # NumPy: only when computing

    result = single_use_optimum(net, progress=progress)
    return {
        "online": result.online,
        "offline": result.offline,
        "fluid": result.fluid,
        "offline_online_gap": result.offline_online_gap,
        "fluid_offline_gap": result.fluid_offline_gap,
        "online_error_bound": _round_up(result.error_bound),
    }


def _round_up(bound: float, digits: int = 2) -> float:
    """``bound`` rounded up to ``digits`` significant digits: its further digits are
    rounding noise (they differ between machines of one kind), and rounding up keeps it a
    bound.

    >>> _round_up(3.897183703735797e-10), _round_up(0.0)
    (3.9e-10, 0.0)
    """
    if bound <= 0 or not math.isfinite(bound):
        return bound
    exponent = math.floor(math.log10(bound)) - digits + 1
    return float(f"{math.ceil(bound / 10.0**exponent)}e{exponent}")


def run_single_use(args: argparse.Namespace) -> int:
    """Run ``qtheory lossnet single-use``: print :func:`single_use_values`.

    Parameters
    ----------
    args : argparse.Namespace
        ``servers``, ``horizon``, ``lambda_h``, ``lambda_l``, ``r_h``, ``r_l`` and
        ``json``.

    Returns
    -------
    int
        0 (the exit status).

    Raises
    ------
    ValueError
        On invalid parameters (see :class:`~qtheory.model.single_use.SingleUseNetwork`;
        the CLI exits 2).

    Examples
    --------
    >>> args = argparse.Namespace(servers=10, horizon=1.0, lambda_h=0.6, lambda_l=0.8,
    ...                           r_h=2.0, r_l=1.0, json=True)
    >>> run_single_use(args)  # doctest: +ELLIPSIS
    {"online": 14.95600..., "offline": 15.69744..., "fluid": 16.0, ...}
    0
    """
    import sys

    net = SingleUseNetwork(
        args.servers, args.lambda_h, args.lambda_l, args.horizon, args.r_h, args.r_l
    )
    values = single_use_values(net, progress=sys.stderr.isatty())
    print(render(values, None, args.json))
    return 0
