"""Where a result came from: the package version, the git commit, the libraries, the date.

:func:`provenance` is recorded in every certificate file that ``qtheory reproduce`` writes
(and that ``qtheory verify`` prints), so a reader of a certificate knows which code and
which ball-arithmetic library produced it.

Examples
--------
>>> record = provenance()
>>> sorted(record)
['commit', 'date', 'python', 'python_flint', 'qtheory']
>>> all(isinstance(value, str) for value in record.values())
True
"""

from __future__ import annotations

import datetime
import platform
import subprocess
from functools import cache
from importlib import metadata
from pathlib import Path

__all__ = ["LIBRARIES", "library_versions", "provenance"]

#: The libraries whose versions a generated document records (distribution names).
LIBRARIES = ("numpy", "scipy", "sympy", "mpmath", "python-flint")

_ROOT = Path(__file__).resolve().parents[2]  # the checkout holding qtheory/core/


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def library_versions() -> dict[str, str]:
    """The installed version of each of :data:`LIBRARIES` (``"not installed"`` if absent).

    Returns
    -------
    dict of str to str
        Distribution name to version.

    Examples
    --------
    >>> list(library_versions()) == list(LIBRARIES)
    True
    """
    return {name: _version(name) for name in LIBRARIES}


@cache
def _commit() -> str:
    """The checkout's commit (``+ local changes`` when the tree differs from it), or
    ``"not a git checkout"``."""
    if not (_ROOT / ".git").exists():
        return "not a git checkout"
    try:
        head = subprocess.run(
            ["git", "-C", str(_ROOT), "rev-parse", "HEAD"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()  # fmt: skip
        dirty = subprocess.run(
            ["git", "-C", str(_ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True, text=True, timeout=10, check=True,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return "unknown (git failed)"
    return f"{head} + local changes" if dirty else head


def provenance() -> dict[str, str]:
    """The provenance record of a result computed now.

    Returns
    -------
    dict of str to str
        ``qtheory`` (version), ``commit`` (see above), ``python_flint`` (version),
        ``python`` (version) and ``date`` (UTC, ISO 8601).

    Examples
    --------
    >>> import datetime
    >>> provenance()["date"] == datetime.datetime.now(datetime.UTC).date().isoformat()
    True
    """
    return {
        "qtheory": _version("qtheory"),
        "commit": _commit(),
        "python_flint": _version("python-flint"),
        "python": platform.python_version(),
        "date": datetime.datetime.now(datetime.UTC).date().isoformat(),
    }
