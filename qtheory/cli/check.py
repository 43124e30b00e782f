"""``qtheory check``: the options of :func:`qtheory.report.check.check`, one claim
checked at your own parameters (or over a box of them), printed as text or JSON.
"""

from __future__ import annotations

import argparse
import json

from qtheory.report.check import (
    CHECKS,
    OPTIONS,
    canonical_name,
    certificate_file,
    check,
    claim_json,
    claim_text,
    parse_region,
)

__all__ = ["register", "run"]


def register(parser: argparse.ArgumentParser) -> None:
    """Give ``qtheory check`` its options (see :mod:`qtheory.cli.program`).

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
    >>> args = parser.parse_args("walks.ruin --servers 500 --lambda-h 0.6 --mu 1 "
    ...                          "--level 3".split())
    >>> args.name, args.servers, args.level, args.band, args.run is run
    ('walks.ruin', 500, 3, None, True)
    """
    parser.description = (
        "Check one claim of the package at your own parameters and print the claim, its "
        "hypotheses, both sides, the verdict and the kind of evidence (--json: the record "
        "as JSON, mathematics as LaTeX). Exit 0 when it holds, 1 when it does not, 2 on "
        "bad input. --list prints the checkable claims."
    )
    parser.add_argument("name", nargs="?", help="the claim (see --list), e.g. gated.dominance")
    parser.add_argument("--list", action="store_true", help="list the checkable claims")
    for param, (option, text, kind) in OPTIONS.items():
        parser.add_argument(option, dest=param, type=kind, help=text)
    parser.add_argument(
        "--region",
        metavar="SPEC",
        help="check over a box of parameters, e.g. 'reward=1.001:1000,arrival_rate=0.5:inf' "
        "(the others fixed by their options; see --list for the claims that take it)",
    )
    parser.add_argument(
        "--certificate",
        metavar="FILE",
        help="write the claim's certificate to FILE, for qtheory verify FILE",
    )
    parser.add_argument("--json", action="store_true", help="print the record as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """List the claims (``--list``) or check one and print it.

    Parameters
    ----------
    args : argparse.Namespace
        Parsed ``qtheory check`` options.

    Returns
    -------
    int
        0 when the claim holds (or with ``--list``), 1 when it does not.

    Raises
    ------
    ValueError
        As :func:`check` (the command line exits with status 2), or no name given.

    Examples
    --------
    >>> parser = argparse.ArgumentParser()
    >>> register(parser)
    >>> run(parser.parse_args(["--list"]))  # doctest: +ELLIPSIS
    gated.optimal_gate         S_GA(tau) has a unique maximiser tau*; ...
    ...
    walks.ruin                 P_i(hit 0 before b) lies between ...
    0
    """
    if args.list:
        if args.name is not None:
            raise ValueError("name cannot be combined with --list")
        width = max(map(len, CHECKS))
        for key, spec in CHECKS.items():
            print(f"{key:<{width}}  {spec.summary}")
        return 0
    if args.name is None:
        raise ValueError("name is required: a claim of qtheory check --list")
    params = {param: getattr(args, param) for param in OPTIONS}
    given = {k: v for k, v in params.items() if v is not None}
    key = canonical_name(args.name)
    allowed = CHECKS[key].required + CHECKS[key].optional
    for param in given:
        if param not in allowed:
            options = ", ".join(OPTIONS[p][0] for p in allowed)
            raise ValueError(f"{OPTIONS[param][0]} is not an option of {key} (it takes {options})")
    region = parse_region(args.region) if getattr(args, "region", None) else None
    for param in CHECKS[key].required:
        if param not in given and param not in (region or {}):
            raise ValueError(f"{OPTIONS[param][0]} is required by {key}")
    claim = check(key, region=region, **given)
    print(json.dumps(claim_json(claim)) if args.json else claim_text(claim))
    if getattr(args, "certificate", None):
        from pathlib import Path

        Path(args.certificate).write_text(json.dumps(certificate_file(claim)) + "\n")
    return 0 if claim.passed else 1
