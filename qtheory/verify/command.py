"""``qtheory verify [DIR]``: re-check every certificate that ``qtheory reproduce`` wrote.

Exit status 0 when every certificate holds; 1 with one line per failing certificate
(``claim: reason``) otherwise; 2 when ``DIR`` holds no certificates.  Like the rest of
:mod:`qtheory.verify` this module imports nothing that produced the numbers.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from qtheory.verify import certificate_files, verify


def register(parser: argparse.ArgumentParser) -> None:
    """Give ``qtheory verify`` its argument (see :mod:`qtheory.cli`).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The parser of ``qtheory verify``.

    Examples
    --------
    >>> parser = argparse.ArgumentParser(prog="qtheory verify")
    >>> register(parser)
    >>> parser.parse_args([]).directory.as_posix()
    '.'
    """
    parser.description = (
        "Re-check every certificate that qtheory reproduce wrote, with a checker that "
        "imports nothing that produced the numbers.  Exit 0 when every certificate holds; "
        "1 with one line per failing or missing certificate (claim: reason); 2 when DIR "
        "holds no certificates."
    )
    parser.add_argument(
        "directory",
        nargs="?",
        type=Path,
        default=Path("."),
        metavar="DIR",
        help="the --out folder of qtheory reproduce, or a folder of certificates "
        "(default: the current directory)",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Check the certificates under ``args.directory``; print one line per failure.

    Parameters
    ----------
    args : argparse.Namespace
        With ``directory``.

    Returns
    -------
    int
        0 when all hold, 1 when any fails.

    Raises
    ------
    ValueError
        If ``DIR`` holds no certificates (the ``qtheory`` command exits with status 2).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     run(argparse.Namespace(directory=Path(folder)))
    Traceback (most recent call last):
    ...
    ValueError: DIR: no certificates (*.json) in ... or its derivations/certificates
    """
    start = time.perf_counter()
    try:
        failures = verify(args.directory)
    except FileNotFoundError as error:
        raise ValueError(f"DIR: {error}") from None
    for line in failures:
        print(f"FAIL {line}", file=sys.stderr)
    count = len(certificate_files(args.directory))
    seconds = time.perf_counter() - start
    if failures:
        print(f"{len(failures)} of {count} certificates fail ({seconds:.1f} s)")
        return 1
    print(f"all {count} certificates hold ({seconds:.1f} s)")
    return 0
