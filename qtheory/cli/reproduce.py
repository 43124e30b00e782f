"""``qtheory reproduce``: the options of :func:`qtheory.report.reproduce.reproduce`."""

from __future__ import annotations

import argparse
from pathlib import Path

from qtheory.core.arguments import (
    DEFAULT_SEED,
    check_output_directory,
    cluster_arg,
    output_dir_arg,
    seed_arg,
)
from qtheory.report.reproduce import reproduce

__all__ = ["register", "run"]

#: Where ``qtheory reproduce`` writes unless told: a folder of its own, never the
#: repository's committed ``derivations/``.
DEFAULT_OUT = "qtheory-output"


def register(parser: argparse.ArgumentParser) -> None:
    """Give ``qtheory reproduce`` its options (see :func:`qtheory.cli.program.build_parser`).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser of ``qtheory reproduce``.

    Examples
    --------
    >>> from qtheory.cli.program import Parser
    >>> parser = Parser(prog="qtheory reproduce")
    >>> register(parser)
    >>> args = parser.parse_args(["--seed", "7"])
    >>> args.seed, args.out.as_posix(), args.cluster, args.quick, args.paper
    (7, 'qtheory-output', None, False, False)
    """
    parser.description = (
        "Regenerate every derivation, table and figure, and the claims report, under "
        "--out: derivations/ (LaTeX; derivations/main.tex compiles with pdflatex, run "
        "twice for its references, at each of the three sizes), "
        "figures/ (PDF and PNG), derivations/claims.md and claims.tex (every claim with "
        "the kind of evidence behind it) and derivations/certificates/ (re-checked by "
        "qtheory verify).  Prints the claims summary at the end.  Every random number "
        "derives from --seed, so a run repeats exactly; a rerun with the same seed takes "
        "the sweep results from the cache (~/.cache/qtheory)."
    )
    parser.add_argument(
        "--out",
        type=output_dir_arg,
        default=Path(DEFAULT_OUT),
        help=f"output directory, created if missing (default: ./{DEFAULT_OUT}; in the "
        "repository, --out . regenerates its committed derivations/ and figures/)",
    )
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="CI-sized run (smaller grids)")
    size.add_argument(
        "--paper",
        action="store_true",
        help="paper-grade run: the sweeps with more N and more replications",
    )
    parser.add_argument(
        "--seed",
        type=seed_arg,
        default=DEFAULT_SEED,
        help=f"root seed of every random stream, an integer >= 0 (default: {DEFAULT_SEED})",
    )
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        type=cluster_arg,
        help="Dask scheduler address for sweep steps, e.g. tcp://host:8786 "
        "(default: a local process pool)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run ``qtheory reproduce`` with parsed options; errors name the options.

    Parameters
    ----------
    args : argparse.Namespace
        With ``out``, ``quick``, ``seed``, ``cluster`` and (optionally) ``paper``.

    Returns
    -------
    int
        0 (the exit status).

    Raises
    ------
    ValueError
        Naming ``--out`` when the output directory cannot be written, ``--cluster``
        when no scheduler answers (:func:`qtheory.cli.program.main` prints one line, status 2).

    Examples
    --------
    A full run takes about 35 s even with ``--quick``; the options are checked first:

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile() as file:
    ...     run(argparse.Namespace(out=Path(file.name), quick=True, paper=False, seed=1,
    ...                            cluster=None))
    Traceback (most recent call last):
    ...
    ValueError: --out must be a directory, but ... is a file
    """
    from qtheory.core.executor import ClusterUnreachableError

    out = check_output_directory(args.out, name="--out")
    try:
        written = reproduce(
            out,
            quick=args.quick,
            paper=args.paper,
            seed=args.seed,
            cluster=args.cluster,
        )
    except ClusterUnreachableError as error:
        raise ValueError(
            f"--cluster {error.address}: no Dask scheduler answered within {error.timeout:g} s "
            f"({error.reason})"
        ) from error
    print(f"wrote {len(written)} files under {out.resolve()}")
    return 0
