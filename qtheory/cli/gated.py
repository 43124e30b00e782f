"""``qtheory gated``: single numbers of the gated-admission model, scriptable.

Prints τ*, S_GA(τ*), the RR optimum λ* and S_RR(λ*), GA throughput and PoF (and, with
``--gate``, σ and S_GA at that gate).  With ``--json`` one JSON object; with ``--dps D``
every value is a decimal string with D significant digits, computed with mpmath (the
working digits, D plus guard digits that grow with log10 ν and log10 1/(ν − 1), are
refused above ``qtheory.core.limits`` ``dps`` limit, 1000 unless ``QTHEORY_LIMIT_DPS`` says
otherwise).

Every route reads the parameters as the decimals typed (:mod:`qtheory.model.gated`):
``--reward 1.000000000001`` is 1000000000001/10^12 in float64 output, with ``--dps``
and with ``--certify`` alike (float64 output is the value at those decimals, rounded;
a value beyond float64 asks for ``--dps``).  A float64 value that the rounding of the
parameters to float64 leaves with a relative error above 1e-8 (``--gate``'s
``welfare_at_gate`` when ν − 1 is below about 1e-8) prints one line
``qtheory gated: warning: ...`` on stderr
(:class:`~qtheory.model.gated.IllConditionedWarning`), naming the condition number and
``--dps``.

With ``--certify`` every value is instead a certified enclosure ``[lower, upper]`` (in JSON
``{"lower": "...", "upper": "...", "width": "..."}``) of relative width at most 10^-D, D = ``--dps``
(default 30), computed in Arb ball arithmetic by :mod:`qtheory.gated.certified`: the
parameters are read as the exact decimals typed, the optimum is proved unique, and
``--json`` output carries the enclosures only (the certificate itself is written by
``qtheory reproduce`` and checked by ``qtheory verify``).

``qtheory gated ladder ...`` (the same four parameters, and ``--phases M``, default 8)
prints the value of memory rung by rung (:mod:`qtheory.gated.ladder`): random routing,
the Erlang-m gates m = 1..M, GA, the full-memory bracket and Naor's observable ceiling,
each with its welfare, its PoF (welfare/S_RR*) and the kind of evidence, then the gaps
between consecutive rungs; float64 (``--dps``, ``--gate`` and ``--certify`` do not
apply).  The table prints each rung as soon as it is computed (RR, the gates and GA in
milliseconds, the full-memory bracket about a second later); ``--json`` prints one
object at the end.  The full-memory bracket and the phase-type rungs estimate their memory and
work first: beyond :mod:`qtheory.core.limits` the ladder is refused before any rung is
computed (exit 2, one line naming the option to change and the limit, which
``QTHEORY_LIMIT_<NAME>`` lifts), as are parameters whose Naor ratio ν = Rμ/C float64
cannot hold.

References
----------
.. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import re
import sys
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING

from qtheory.cli.output import add_output_arguments, render
from qtheory.core.arguments import positive_int_arg
from qtheory.core.notation import terminal

if TYPE_CHECKING:  # the models load when a command runs, so that --help stays light
    from qtheory.model.gated import GatedQueue

#: What ``qtheory gated --help`` says (plain text: the module docstring is for the docs).
DESCRIPTION = """\
Optimal gate, welfare and Price of Forgetting of the unobservable M/M/1 queue with gated
admission (GA) against random routing (RR): prints tau*, S_GA(tau*), the RR optimum
lambda* and S_RR(lambda*), GA's throughput and PoF = S_GA*/S_RR* (with --gate also sigma
and S_GA at that gate).  --json prints one JSON object; --dps D prints decimal strings
of D significant digits (mpmath); --certify prints certified enclosures [lower, upper]
of relative width at most 10^-D (D = --dps, default 30; Arb ball arithmetic).

'qtheory gated ladder' (the same four parameters, and --phases M, default 8) prints the
value of memory rung by rung: random routing, the Erlang-m gates m = 1..M, GA, the
full-memory bracket and Naor's observable ceiling, each with its welfare, its PoF and
the kind of evidence, then the gaps between consecutive rungs (float64).  With
--service LAW (erlang:K, hyperexp:SCV, fit:SCV) service is phase-type: RR, the gates
and GA by the M/PH/1 and GI/PH/1 routes; the full-memory and observable rungs, which
assume exponential service, are not computed.  A ladder whose estimated memory or work
exceeds the limits (QTHEORY_LIMIT_MEMORY, QTHEORY_LIMIT_DP_CELLS) is refused before it
starts, naming the option to change."""

#: Erlang gates m = 1..DEFAULT_PHASES on the ladder (qtheory.gated.ladder, not imported
#: here: ``--help`` stays fast).
DEFAULT_PHASES = 8

#: Digits of ``--certify`` when ``--dps`` is not given.
CERTIFY_DPS = 30

#: Output names of the certified values (:class:`qtheory.gated.certified.CertifiedOptimum`).
CERTIFIED_NAMES = {
    "sigma_star": "root",
    "tau_star": "gate",
    "throughput_ga": "throughput",
    "welfare_ga": "welfare_ga",
    "rate_rr": "rate_rr",
    "welfare_rr": "welfare_rr",
    "pof": "price_of_forgetting",
}


def register(parser: argparse.ArgumentParser) -> None:
    """Give ``qtheory gated`` its options (see :mod:`qtheory.cli.program`).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The subcommand's parser.

    Returns
    -------
    None

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> register(parser)
    >>> args = parser.parse_args("--arrival-rate inf --service-rate 1 --reward 4 "
    ...                          "--cost 1".split())
    >>> args.arrival_rate, args.gate, args.dps, args.certify, args.run is run
    ('inf', None, None, False, True)
    >>> parser.parse_args("ladder --arrival-rate 2 --service-rate 1 --reward 4 "
    ...                   "--cost 1 --phases 3".split()).view
    'ladder'
    """
    parser.description = DESCRIPTION
    parser.add_argument(
        "view",
        nargs="?",
        choices=("ladder",),
        help="'ladder': every rung of the value of memory (RR, Erlang-m gates, GA, full "
        "memory, observable) instead of the GA/RR optimum",
    )
    parser.add_argument(
        "--arrival-rate", required=True, help="potential arrival rate Λ ('inf' allowed)"
    )
    parser.add_argument("--service-rate", required=True, help="service rate μ")
    parser.add_argument("--reward", required=True, help="reward R per served customer")
    parser.add_argument("--cost", required=True, help="cost C per customer per unit time")
    parser.add_argument("--gate", help="also evaluate the queue at this gate length τ")
    parser.add_argument(
        "--sojourn-cost",
        metavar="COST",
        help="each admitted customer pays C*phi(W) for its sojourn W: linear (default), "
        "power:p (C W^p), deadline:d (C 1{W > d}) or exponential:theta "
        "(C (exp(theta W) - 1)/theta, theta < mu)",
    )
    parser.add_argument(
        "--holding-cost",
        metavar="COST",
        help="instead, C n^p per unit time while n customers are present: power:p "
        "(power:1 is the linear cost)",
    )
    parser.add_argument(
        "--arrivals",
        metavar="LAW",
        help="renewal potential arrivals of mean gap 1/Lambda: poisson (default), erlang:K, "
        "hyperexp:SCV (balanced H2) or fit:SCV",
    )
    parser.add_argument(
        "--certify",
        action="store_true",
        help=f"print certified enclosures (Arb) of relative width <= 10^-dps "
        f"(dps {CERTIFY_DPS} unless --dps is given); also under --sojourn-cost power:p "
        "(p >= 1), exponential:theta and --holding-cost power:1, power:2",
    )
    parser.add_argument(
        "--phases",
        type=positive_int_arg,
        help=f"ladder only: Erlang gates m = 1..M (default {DEFAULT_PHASES})",
    )
    parser.add_argument(
        "--service",
        metavar="LAW",
        help="ladder only: phase-type service of mean 1/mu, e.g. erlang:4, hyperexp:16 "
        "(balanced H2 with that squared coefficient of variation) or fit:SCV "
        "(default: exponential)",
    )
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


def _queue(args: argparse.Namespace, *, typed: bool = False) -> GatedQueue:
    """The queue of the four parameters: float64 values without ``--dps`` (each must be
    a float64 number), else the text typed.  With ``typed``, a positive finite float64
    value keeps the text typed, so that the optima (computed in mpmath) read the
    decimals typed even where float64 cannot hold them; zero, negative and infinite
    values stay floats and meet the usual checks."""
    values = {
        "arrival_rate": args.arrival_rate,
        "service_rate": args.service_rate,
        "reward": args.reward,
        "cost": args.cost,
    }
    if args.dps is None:
        for name, text in values.items():
            number = _parse_float(name, text)
            if not (typed and 0 < number < math.inf):
                values[name] = number
    from qtheory.model.gated import GatedQueue

    return GatedQueue(**values)


def compute(args: argparse.Namespace) -> dict[str, object]:
    """The numbers ``qtheory gated`` prints, as Python values: floats, or (with
    ``--dps D``) mpf values correct to D digits.  ``--dps`` and the working digits it
    implies are checked against the ``dps`` limit before any work.

    τ* and S_GA(τ*) come from :func:`qtheory.gated.welfare.optimal_gate`, λ* and
    S_RR(λ*) from :func:`qtheory.gated.welfare.optimal_routing`, and PoF is their
    ratio; with ``--gate τ`` also σ(τ) and S_GA(τ).

    Parameters
    ----------
    args : argparse.Namespace
        Parsed ``qtheory gated`` options: ``arrival_rate``, ``service_rate``,
        ``reward``, ``cost`` and ``gate`` (strings or None), ``dps`` (int or None).

    Returns
    -------
    dict
        ``tau_star``, ``welfare_ga``, ``welfare_rr``, ``rate_rr``, ``throughput_ga``,
        ``pof`` and, with a gate, ``sigma`` and ``welfare_at_gate``.

    Raises
    ------
    ValueError
        A value that is not a number, out of range or beyond float64 without
        ``--dps``; ν = Rμ/C ≤ 1; an unstable ``--gate``; or a precision above the
        ``dps`` limit.

    Examples
    --------
    ν = 4, Λ = ∞, μ = C = 1: λ* = μ(1 − 1/√ν) = 1/2, S_RR* = C(√ν − 1)² = 1, so PoF
    equals S_GA*; τ* = −log σ/(1 − σ) at the maximiser σ of (3 − 4σ)/(−log σ):

    >>> parser = argparse.ArgumentParser()
    >>> register(parser)
    >>> values = compute(parser.parse_args("--arrival-rate inf --service-rate 1 "
    ...                                    "--reward 4 --cost 1".split()))
    >>> [round(float(values[name]), 6) for name in ("tau_star", "welfare_ga", "pof")]
    [1.556484, 1.529614, 1.529614]
    >>> values["rate_rr"], values["welfare_rr"], round(values["throughput_ga"], 6)
    (0.5, 1.0, 0.642474)

    References
    ----------
    See the module's References: Hassin and Ravner (2026).

    .. [1] N. M. Edelson and D. K. Hildebrand, "Congestion tolls for Poisson queuing
       processes", Econometrica 43(1):81-92 (1975).
    """
    from qtheory.core.precision import check_dps
    from qtheory.gated.gim1_root import root
    from qtheory.gated.welfare import (
        optimal_gate,
        optimal_routing,
        price_of_forgetting,
        welfare_ga,
    )

    dps = check_dps(args.dps)
    cost, arrivals = _model_options(args)
    if getattr(args, "certify", False):
        if arrivals is not None:
            raise ValueError(
                "--certify applies to Poisson arrivals only (the renewal models' optima are "
                "computed, not certified)"
            )
        return certified(args, cost)
    queue = _queue(args, typed=True)
    if cost is not None or arrivals is not None:
        return cost_values(queue, cost, dps, args.gate, arrivals=arrivals)
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
        if dps is None:  # the float64 root takes float64 numbers
            gate, rates = _parse_float("gate", args.gate), queue.as_float64()
        else:
            gate, rates = args.gate, queue
        values["sigma"] = root(gate, rates.arrival_rate, rates.service_rate, dps=dps)
        values["welfare_at_gate"] = welfare_ga(queue, gate, dps=dps)
    return values


def _model_options(args: argparse.Namespace):
    """(cost, arrivals) of ``--sojourn-cost``/``--holding-cost`` and ``--arrivals``, each
    checked: None for the linear cost and for Poisson arrivals; errors name the option."""
    from qtheory.gated.cost_optimum import arrival_streams, customer_cost

    sojourn, holding = getattr(args, "sojourn_cost", None), getattr(args, "holding_cost", None)
    if sojourn is not None and holding is not None:
        raise ValueError("give --sojourn-cost or --holding-cost, not both")
    arrivals = getattr(args, "arrivals", None)
    with _cost_options_named():
        cost = customer_cost(sojourn, holding)
        return cost, None if arrival_streams(arrivals) is None else arrivals


@contextlib.contextmanager
def _cost_options_named() -> Iterator[None]:
    """Errors about ``sojourn_cost``/``holding_cost``/``arrivals`` name the options."""
    try:
        yield
    except ValueError as error:
        text = str(error).replace("sojourn_cost", "--sojourn-cost")
        text = text.replace("holding_cost", "--holding-cost")
        raise ValueError(re.sub(r"^arrivals\b", "--arrivals", text)) from None


def cost_values(
    queue: GatedQueue, cost, dps: int | None, gate: str | None, *, arrivals: str | None = None
) -> dict[str, object]:
    """What ``qtheory gated --sojourn-cost/--holding-cost/--arrivals`` prints: the keys of
    :func:`compute`, each optimum's evidence, and a note where an optimum is a supremum
    not attained or where nobody is admitted (then ``tau_star`` is ``inf`` and ``pof``
    undefined: None, printed ``undefined``, JSON null).

    Parameters
    ----------
    queue : GatedQueue
    cost : qtheory.gated.costs.CustomerCost or None
        None: the linear cost.
    dps : int or None
    gate : str or None
        ``--gate``, which applies to the linear Poisson model only.
    arrivals : str or None, keyword-only
        ``--arrivals`` (None: Poisson).

    Returns
    -------
    dict

    Raises
    ------
    ValueError
        ``--gate`` given, or as :func:`qtheory.gated.cost_optimum.optima_under`.

    Examples
    --------
    >>> from qtheory.gated.costs import sojourn_cost
    >>> from qtheory.model.gated import GatedQueue
    >>> values = cost_values(GatedQueue(3, 1, 3, 1), sojourn_cost("deadline:1"), None, None)
    >>> values["welfare_ga"], values["welfare_rr"]  # mu (R - C): 1{W > d} costs C as sigma -> 1
    (2.0, 2.0)
    >>> for note in values["note"].split("; "):
    ...     print(note)
    welfare_ga is a supremum approached as sigma -> 1 (not attained)
    welfare_rr is a supremum approached as lambda -> mu (not attained)
    """
    if gate is not None:
        raise ValueError("--gate applies to the linear cost and Poisson arrivals only")
    from qtheory.gated.cost_optimum import arrival_streams, optima_under
    from qtheory.gated.costs import LINEAR
    from qtheory.gated.streams import PoissonStreams

    cost = cost or LINEAR
    with _cost_options_named():
        streams = arrival_streams(arrivals) or PoissonStreams
        ga, rr, pof = optima_under(queue, cost, streams=streams, dps=dps)
    values = {
        "tau_star": "inf" if ga.gate == math.inf else ga.gate,
        "welfare_ga": ga.welfare,
        "welfare_rr": rr.welfare,
        "rate_rr": rr.rate,
        "throughput_ga": ga.throughput,
        "pof": pof,
        "cost": cost.spec,
        "arrivals": arrivals or "poisson",
        "evidence_ga": ga.evidence,
        "evidence_rr": rr.evidence,
    }
    notes = []
    if pof is None:
        notes.append(
            "no admission earns positive welfare: both optima admit nobody, pof is undefined"
        )
    else:
        if not ga.attained:
            notes.append("welfare_ga is a supremum approached as sigma -> 1 (not attained)")
        if not rr.attained:
            notes.append("welfare_rr is a supremum approached as lambda -> mu (not attained)")
    if notes:
        values["note"] = "; ".join(notes)
    return values


def certified(args: argparse.Namespace, cost=None) -> dict[str, object]:
    """The enclosures ``qtheory gated --certify`` prints, by output name.

    The parameters are passed to :class:`~qtheory.model.gated.GatedQueue` as the text
    typed (so ``--reward 1.01`` is exactly 101/100) and certified by
    :func:`qtheory.gated.certified.certified_optimum` at ``--dps`` digits (default
    :data:`CERTIFY_DPS`), or under ``cost`` by
    :func:`qtheory.gated.cost_certified.certified_cost_optimum`.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed ``qtheory gated`` options with ``certify`` set.
    cost : qtheory.gated.costs.CustomerCost or None
        ``--sojourn-cost``/``--holding-cost`` (None: the linear cost); only the families
        proved unique are certified, the others are refused naming the option.

    Returns
    -------
    dict of str to qtheory.core.enclosure.Enclosure
        ``sigma_star``, ``tau_star``, ``throughput_ga``, ``welfare_ga``, ``rate_rr``,
        ``welfare_rr`` and ``pof``.

    Raises
    ------
    ValueError
        ``--gate`` given (not certified), a parameter that is not a number or out of
        range (naming it), ν ≤ 1, a cost without a uniqueness argument, or ``--dps``
        above the digit limit.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> register(parser)
    >>> values = certified(parser.parse_args("--arrival-rate inf --service-rate 1 "
    ...                                      "--reward 4 --cost 1 --certify".split()))
    >>> values["welfare_rr"].contains(1), values["pof"].relative_width < 1e-30
    (True, True)

    Under C W² the PoF is 3.208913 (:mod:`qtheory.gated.cost_optimum`'s example):

    >>> from qtheory.gated.costs import sojourn_cost
    >>> args = parser.parse_args("--arrival-rate inf --service-rate 1 --reward 4 --cost 1 "
    ...                          "--certify".split())
    >>> pof = certified(args, sojourn_cost("power:2"))["pof"]
    >>> pof.lower[:8], pof.relative_width < 1e-30
    ('3.208912', True)
    """
    if args.gate is not None:
        raise ValueError("--gate cannot be combined with --certify (only the optimum is certified)")
    from qtheory.core.precision import check_dps
    from qtheory.gated.certified import certified_optimum  # Arb: only when certifying
    from qtheory.model.gated import GatedQueue

    dps = CERTIFY_DPS if args.dps is None else check_dps(args.dps)
    queue = GatedQueue(args.arrival_rate, args.service_rate, args.reward, args.cost)
    if cost is None:
        optimum = certified_optimum(queue, dps=dps)
    else:
        from qtheory.gated.cost_certified import certified_cost_optimum

        with _cost_options_named():
            optimum = certified_cost_optimum(queue, cost, dps=dps)
    return {name: getattr(optimum, field) for name, field in CERTIFIED_NAMES.items()}


def run(args: argparse.Namespace) -> int:
    """Print the numbers of :func:`compute` (a table, or one JSON object with
    ``--json``; decimal strings of D digits with ``--dps D``).

    Parameters
    ----------
    args : argparse.Namespace
        Parsed ``qtheory gated`` options.

    Returns
    -------
    int
        0 (errors are raised, and turned into exit codes by :mod:`qtheory.cli.program`).

    Raises
    ------
    ValueError
        As :func:`compute`.

    Examples
    --------
    At the gate τ = 2 (Λ = ∞, μ = 1) σ = −W(−2e^{−2})/2 = 0.203188, and
    S_GA(2) = (4 − 1/(1 − σ))/2 = 1.37250:

    >>> parser = argparse.ArgumentParser()
    >>> register(parser)
    >>> run(parser.parse_args("--arrival-rate inf --service-rate 1 --reward 4 "
    ...                       "--cost 1 --gate 2 --dps 6".split()))
    tau_star         1.55648
    welfare_ga       1.52961
    welfare_rr       1.00000
    rate_rr          0.500000
    throughput_ga    0.642474
    pof              1.52961
    sigma            0.203188
    welfare_at_gate  1.37250
    0

    References
    ----------
    See the module's References: Hassin and Ravner (2026).
    """
    where = getattr(args, "where", "qtheory gated")
    if getattr(args, "view", None) == "ladder":
        for option in ("sojourn_cost", "holding_cost", "arrivals"):
            if getattr(args, option, None) is not None:
                name = option.replace("_", "-")
                raise ValueError(f"--{name} applies to the optimum, not to 'qtheory gated ladder'")
        # the table prints each rung as it is computed (the first in milliseconds, the
        # full-memory bracket about a second later); JSON is one object, at the end
        with warning_lines(where):
            lad = compute_ladder(args, on_rung=None if args.json else _print_rung([]))
        if args.json:
            print(render_ladder(lad, True))
        else:
            print("\n".join(_ladder_tail(lad)))
        return 0
    for option in ("phases", "service"):
        if getattr(args, option, None) is not None:
            raise ValueError(f"--{option} applies to 'qtheory gated ladder' only")
    with warning_lines(where):
        values = compute(args)
    if getattr(args, "certify", False):
        if args.json:
            print(json.dumps({name: value.to_json() for name, value in values.items()}))
        else:
            width = max(map(len, values))
            for name, value in values.items():
                print(f"{name:<{width}}  [{value.lower}, {value.upper}]")
        return 0
    print(render(values, args.dps, args.json))
    return 0


@contextlib.contextmanager
def warning_lines(where: str) -> Iterator[None]:
    """Print every distinct :class:`~qtheory.model.gated.IllConditionedWarning` raised
    inside as one line ``WHERE: warning: MESSAGE`` on stderr (no source line, no
    traceback); other warnings are shown as Python shows them.

    Parameters
    ----------
    where : str
        The command's words, e.g. ``"qtheory gated"``.

    Yields
    ------
    None

    Examples
    --------
    >>> import contextlib, io
    >>> from qtheory.model.gated import GatedQueue
    >>> err = io.StringIO()
    >>> with contextlib.redirect_stderr(err), warning_lines("qtheory gated"):
    ...     for _ in range(2):
    ...         GatedQueue("inf", 1, "1.000000000001", 1).warn_if_ill_conditioned("S")
    >>> err.getvalue().count("\\n"), err.getvalue()[:37]
    (1, 'qtheory gated: warning: S in float64 ')
    """
    from qtheory.model.gated import IllConditionedWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", IllConditionedWarning)
        try:
            yield
        finally:
            others = [w for w in caught if not issubclass(w.category, IllConditionedWarning)]
            lines = dict.fromkeys(
                " ".join(str(w.message).split())
                for w in caught
                if issubclass(w.category, IllConditionedWarning)
            )
    for line in lines:
        print(f"{where}: warning: {line}", file=sys.stderr)
    for w in others:
        warnings.showwarning(w.message, w.category, w.filename, w.lineno, w.file, w.line)


def compute_ladder(args: argparse.Namespace, on_rung=None):
    """The ladder ``qtheory gated ladder`` prints (:func:`qtheory.gated.ladder.ladder`).

    Parameters
    ----------
    args : argparse.Namespace
        Parsed ``qtheory gated ladder`` options: the four parameters (strings),
        ``phases`` (int or None) and ``service`` (a law's spec or None).
    on_rung : callable, optional
        Called with each rung as it is computed (the ladder's ``on_rung``).

    Returns
    -------
    qtheory.gated.ladder.Ladder

    Raises
    ------
    ValueError
        ``--dps``, ``--gate`` or ``--certify`` given (the ladder is float64); a
        parameter that is not a number or out of range (named); ν ≤ 1.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> register(parser)
    >>> lad = compute_ladder(parser.parse_args("ladder --arrival-rate inf --service-rate 1 "
    ...                                        "--reward 4 --cost 1 --phases 2".split()))
    >>> sorted(lad.ph), round(lad.ga.pof, 6)
    ([1, 2], 1.529614)
    """
    for option, given in (("--dps", args.dps), ("--gate", args.gate), ("--certify", args.certify)):
        if given not in (None, False):
            raise ValueError(f"{option} does not apply to 'qtheory gated ladder' (float64)")
    from qtheory.gated.ladder import ladder  # the phase gates and the history: on use

    phases = DEFAULT_PHASES if args.phases is None else args.phases
    return ladder(_queue(args), phases, service=args.service, on_rung=on_rung)


def render_ladder(lad, as_json: bool) -> str:
    """The ladder as one JSON object (:meth:`qtheory.gated.ladder.Ladder.to_json`) or
    as a table: one line per rung (welfare, PoF, evidence kind, method), then the gaps.

    Parameters
    ----------
    lad : qtheory.gated.ladder.Ladder
    as_json : bool

    Returns
    -------
    str

    Examples
    --------
    >>> from qtheory.gated.ladder import ladder
    >>> from qtheory.model.gated import GatedQueue
    >>> text = render_ladder(ladder(GatedQueue("inf", 1, 4, 1), 1, full_memory=False), False)
    >>> print(text.splitlines()[1])
    rr                 1.000000  1.000000  identity      closed form λ* = min(Λ, μ - √(μ C/R)) (Sympy derivation)
    """  # noqa: E501
    if as_json:
        return json.dumps(lad.to_json())
    return "\n".join([_LADDER_HEADER, *map(_rung_line, lad.rungs()), *_ladder_tail(lad)])


_LADDER_HEADER = f"{'rung':<17}  {'welfare':>8}  {'PoF':>8}  {'kind':<12}  method"


def _rung_line(rung) -> str:
    def number(value):
        return "-" if value is None else f"{value:.6f}"

    return (
        f"{rung.name:<17}  {number(rung.welfare):>8}  {number(rung.pof):>8}  "
        f"{rung.kind:<12}  {terminal(rung.method)}"
    )


def _ladder_tail(lad) -> list[str]:
    """The lines after the rungs: a blank line, the gaps, whether the ladder is ordered."""
    lines = ["", f"{'step':<38}  {'absolute':>9}  {'ratio':>8}"]
    for gap in lad.gaps():
        step = f"{gap['lower']} -> {gap['upper']}"
        lines.append(f"{step:<38}  {gap['absolute']:>9.6f}  {gap['ratio']:>8.6f}")
    lines.append(f"ordered: {lad.ordered()}")
    return lines


def _print_rung(shown: list):
    """An ``on_rung`` that prints each rung's line of :func:`render_ladder` at once (the
    header with the first: the first line out carries a number), flushed."""

    def show(rung) -> None:
        if not shown:
            print(_LADDER_HEADER)
        shown.append(rung)
        print(_rung_line(rung), flush=True)

    return show
