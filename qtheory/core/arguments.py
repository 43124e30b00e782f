"""Converters for ``argparse`` options of the ``qtheory`` command (``type=``).

Each converter turns the option's text into a value or raises
:class:`argparse.ArgumentTypeError` with a message that states the rule and repeats the
text; argparse prefixes it with the option's name, and :mod:`qtheory.cli.program` prints the
result as one line and exits with status 2::

    qtheory lossnet online: error: argument --servers: must be an integer in
    1..9223372036854775807, got '99999999999999999999999'

Integers are bounded by :data:`INT64_MAX` (what NumPy and the C extension can hold):
larger values are refused here rather than overflowing later.  Reals must be finite
(``nan``, ``inf`` and values beyond float64 such as ``1e999`` are refused); an option that
accepts infinity (``--arrival-rate inf``) or keeps decimal digits for ``--dps`` parses its
text itself.

Which converter for which option
--------------------------------
``positive_int_arg``: ``--servers``, ``--reps``.  ``nonnegative_int_arg``: counts that may be
0.  ``seed_arg``: ``--seed``.  ``real_arg``: any finite real (``--lambda-h``, ``--mu``,
``--r-h``, ``--r-l``, ``--c``: the model checks signs and order, naming the parameter).
``positive_real_arg``: ``--horizon``.  ``nonnegative_real_arg``: ``--warmup``.
``dps_arg``: ``--dps`` (:func:`qtheory.core.precision.check_dps`, so the digit limit of
:mod:`qtheory.core.limits` applies).  ``output_dir_arg``: ``--out``.  ``cluster_arg``:
``--cluster``.

Examples
--------
>>> import argparse
>>> parser = argparse.ArgumentParser(prog="demo", exit_on_error=False)
>>> _ = parser.add_argument("--servers", type=positive_int_arg)
>>> parser.parse_args(["--servers", "12"]).servers
12
>>> try:
...     parser.parse_args(["--servers", "0"])
... except argparse.ArgumentError as error:
...     print(error)
argument --servers: must be an integer in 1..9223372036854775807, got '0'
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
from pathlib import Path

#: The root seed of ``qtheory reproduce`` (and of ``lossnet simulate``) when none is
#: given; here, in a module the command line imports anyway, so that ``--help`` can
#: show it without importing the report stack (:mod:`qtheory.report.run` re-exports it).
DEFAULT_SEED = 20261129

__all__ = [
    "INT64_MAX",
    "SEED_MAX",
    "check_output_directory",
    "cluster_arg",
    "dps_arg",
    "nonnegative_int_arg",
    "nonnegative_real_arg",
    "output_dir_arg",
    "positive_int_arg",
    "positive_real_arg",
    "real_arg",
    "seed_arg",
]

#: The largest integer an integer option accepts (a signed 64-bit integer).
INT64_MAX = 2**63 - 1
#: The largest seed (NumPy's SeedSequence takes any integer >= 0; 128 bits is plenty).
SEED_MAX = 2**128 - 1


def _integer(text: str, minimum: int, maximum: int) -> int:
    """``text`` as an integer in ``minimum..maximum``, else ArgumentTypeError."""
    rule = f"must be an integer in {minimum}..{maximum}, got {text!r}"
    if len(text) > 100:  # int() of thousands of digits is refused by Python itself
        raise argparse.ArgumentTypeError(rule)
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(rule) from None
    if not minimum <= value <= maximum:
        raise argparse.ArgumentTypeError(rule)
    return value


def positive_int_arg(text: str) -> int:
    """An integer in ``1..INT64_MAX``.

    Parameters
    ----------
    text : str
        The option's text.

    Returns
    -------
    int

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not such an integer.

    Examples
    --------
    >>> positive_int_arg("1000")
    1000
    >>> positive_int_arg("99999999999999999999999")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be an integer in 1..9223372036854775807, got '99999999999999999999999'
    """  # noqa: E501
    return _integer(text, 1, INT64_MAX)


def nonnegative_int_arg(text: str) -> int:
    """An integer in ``0..INT64_MAX``.

    Parameters
    ----------
    text : str
        The option's text.

    Returns
    -------
    int

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not such an integer.

    Examples
    --------
    >>> nonnegative_int_arg("0")
    0
    """
    return _integer(text, 0, INT64_MAX)


def seed_arg(text: str) -> int:
    """A root seed: an integer in ``0..SEED_MAX``.

    Parameters
    ----------
    text : str
        The option's text.

    Returns
    -------
    int

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not such an integer (``-1`` included).

    Examples
    --------
    >>> seed_arg("20261129")
    20261129
    >>> seed_arg("-1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be an integer in 0..340282366920938463463374607431768211455, got '-1'
    """  # noqa: E501
    return _integer(text, 0, SEED_MAX)


def _real(text: str, rule: str, accept) -> float:
    """``text`` as a finite float64 for which ``accept(value)`` holds."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {rule}, got {text!r}") from None
    if math.isinf(value) and "inf" not in text.lower():
        raise argparse.ArgumentTypeError(f"must be {rule}, got {text!r} (overflows float64)")
    if not (math.isfinite(value) and accept(value)):
        raise argparse.ArgumentTypeError(f"must be {rule}, got {text!r}")
    return value


def real_arg(text: str) -> float:
    """A finite real number (float64; no ``nan``, ``inf`` or overflow).

    Parameters
    ----------
    text : str
        The option's text.

    Returns
    -------
    float

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not a finite float64.

    Examples
    --------
    >>> real_arg("-0.25")
    -0.25
    >>> real_arg("1e999")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a finite real number, got '1e999' (overflows float64)
    """
    return _real(text, "a finite real number", lambda value: True)


def positive_real_arg(text: str) -> float:
    """A finite real number > 0.

    Parameters
    ----------
    text : str
        The option's text.

    Returns
    -------
    float

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not a finite float64 > 0.

    Examples
    --------
    >>> positive_real_arg("200")
    200.0
    """
    return _real(text, "a finite real number > 0", lambda value: value > 0)


def nonnegative_real_arg(text: str) -> float:
    """A finite real number >= 0.

    Parameters
    ----------
    text : str
        The option's text.

    Returns
    -------
    float

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not a finite float64 >= 0.

    Examples
    --------
    >>> nonnegative_real_arg("0")
    0.0
    """
    return _real(text, "a finite real number >= 0", lambda value: value >= 0)


def dps_arg(text: str) -> int:
    """Significant decimal digits: an integer >= 1 within the ``dps`` limit
    (:func:`qtheory.core.precision.check_dps`, :mod:`qtheory.core.limits`).

    Parameters
    ----------
    text : str
        The option's text.

    Returns
    -------
    int

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not an integer >= 1, or asks for more digits than the limit.

    Examples
    --------
    >>> dps_arg("40")
    40
    >>> dps_arg("1000000000000")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: dps: a high-precision evaluation needs 1000000000000 digits, ...
    """
    from qtheory.core.precision import check_dps  # NumPy and mpmath: only when --dps is given

    digits = _integer(text, 1, INT64_MAX)
    try:
        return check_dps(digits)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def check_output_directory(path: str | os.PathLike[str], *, name: str = "out") -> Path:
    """Create the output directory ``path`` if needed and check that files can be written
    in it, before any work starts.

    Parameters
    ----------
    path : str or path-like
        The directory (it and its parents are created when missing).
    name : str, default "out"
        The parameter's name in error messages (``"--out"`` on the command line).

    Returns
    -------
    pathlib.Path

    Raises
    ------
    ValueError
        Naming ``name``: ``path`` is (or lies below) a file, or cannot be created or
        written (permissions, a read-only file system).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as directory:
    ...     check_output_directory(Path(directory, "build", "x")).is_dir()
    True
    >>> check_output_directory("/etc/hostname")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: out must be a directory, but /etc/hostname is a file
    """
    path = Path(path)
    try:
        if path.exists() and not path.is_dir():
            raise ValueError(f"{name} must be a directory, but {path} is a file")
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except (FileExistsError, NotADirectoryError):  # mkdir met a file on the way
        raise ValueError(f"{name} must be a directory, but {path} lies below a file") from None
    except OSError as error:
        raise ValueError(
            f"{name}: cannot write to {path} ({error.strerror or error}); choose another directory"
        ) from None
    return path


def output_dir_arg(text: str) -> Path:
    """An output directory that is not a file and whose nearest existing ancestor is a
    directory we may write to (checked without creating anything; the command creates
    it and tries a write with :func:`check_output_directory`).

    Parameters
    ----------
    text : str
        The option's text.

    Returns
    -------
    pathlib.Path

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is empty, names a file or lies below one, or the nearest existing
        ancestor is not writable.

    Examples
    --------
    >>> output_dir_arg("build").name
    'build'
    >>> output_dir_arg("/etc/hostname")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: must be a directory, but /etc/hostname is a file
    """
    if not text:
        raise argparse.ArgumentTypeError("must be a directory, got ''")
    path = Path(text)
    existing = path
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    if not existing.is_dir():
        where = "is" if existing == path else f"lies below {existing}, which is"
        raise argparse.ArgumentTypeError(f"must be a directory, but {path} {where} a file")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"cannot write to {existing} (permission denied)")
    return path


def cluster_arg(text: str) -> str:
    """A Dask scheduler address (:func:`qtheory.core.executor.check_cluster_address`).

    Parameters
    ----------
    text : str
        The option's text.

    Returns
    -------
    str

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not a scheduler address, or the ``distributed`` package (the
        ``cluster`` extra) is missing.

    Examples
    --------
    >>> cluster_arg("tcp://10.0.0.5:8786")
    'tcp://10.0.0.5:8786'
    """
    from qtheory.core.executor import check_cluster_address

    try:
        return check_cluster_address(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    except ImportError:
        raise argparse.ArgumentTypeError(
            "a Dask cluster needs the 'distributed' package: pip install 'qtheory[cluster]'"
        ) from None
