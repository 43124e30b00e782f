"""``qtheory verify [PATH]``: re-check every certificate that ``qtheory reproduce`` wrote,
or one certificate file.

Exit status 0 when every certificate holds; 1 with one line per failing certificate
(``claim: reason``) otherwise; 2 when ``PATH`` holds no certificates.  The provenance
recorded in the certificates (qtheory version, commit, python-flint version, date) is
printed with the verdict.  Like the rest of
:mod:`qtheory.verify` this module imports nothing that produced the numbers.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from qtheory.verify import verify


def register(parser: argparse.ArgumentParser) -> None:
    """Give ``qtheory verify`` its argument (see :mod:`qtheory.cli.program`).

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
        "Re-check every certificate that qtheory reproduce wrote, or one certificate "
        "file, with a checker that imports nothing that produced the numbers.  Exit 0 when "
        "every certificate holds; 1 with one line per failing or missing certificate "
        "(claim: reason); 2 when PATH holds no certificates."
    )
    parser.add_argument(
        "directory",
        nargs="?",
        type=Path,
        default=Path("."),
        metavar="PATH",
        help="the --out folder of qtheory reproduce, a folder of certificates, or one "
        "certificate file NAME.json (default: the current directory)",
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
        If ``PATH`` holds no certificates (the ``qtheory`` command exits with status 2).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     run(argparse.Namespace(directory=Path(folder)))
    Traceback (most recent call last):
    ...
    ValueError: PATH: no certificates (*.json) in ... or its derivations/certificates
    """
    start = time.perf_counter()
    try:
        report = verify(args.directory)
    except FileNotFoundError as error:
        raise ValueError(f"PATH: {error}") from None
    for line in report:
        print(f"FAIL {line}", file=sys.stderr)
    for record in report.provenance:
        print("written by " + ", ".join(f"{key} {value}" for key, value in record.items()))
    if not report.provenance:
        print("no provenance recorded in the certificates")
    for name, statement in report.statements:
        print(f"{name}: {statement}")
    count, seconds = report.files, time.perf_counter() - start
    if report:
        noun = "certificate" if count == 1 else "certificates"
        print(f"{len(report)} failures among {count} {noun} ({seconds:.1f} s)")
        return 1
    print(f"the certificate holds ({seconds:.1f} s)" if count == 1 else
          f"all {count} certificates hold ({seconds:.1f} s)")  # fmt: skip
    return 0
