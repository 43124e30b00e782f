"""Reading a certificate file with its cost bounded before it is parsed.

A certificate folder may hold a damaged or hostile file: a directory or a device named
``x.json``, a link to ``/dev/zero``, a file of gigabytes, bytes that are not UTF-8, JSON
nested a million levels deep, or numbers with a million digits.  Each is one
:class:`~qtheory.verify.CertificateError` for that file, raised before any work beyond
the file's size is done; the checkers then bound the numbers they read
(:func:`qtheory.verify._arith.rational`).

Examples
--------
>>> import tempfile
>>> with tempfile.TemporaryDirectory() as folder:
...     path = Path(folder, "deep.json")
...     _ = path.write_text("[" * 100 + "]" * 100)
...     read_certificate(path)
Traceback (most recent call last):
...
qtheory.verify.CertificateError: nested deeper than 32 levels
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from qtheory.verify import CertificateError

__all__ = ["MAX_BYTES", "MAX_DEPTH", "read_certificate"]

#: The largest certificate file read (the largest a reproduce run writes is about 80 kB).
MAX_BYTES = 16 * 2**20
#: The deepest nesting of arrays and objects read (a reproduce certificate has 5).
MAX_DEPTH = 32


def _depth(text: str) -> int:
    """The deepest nesting of ``[`` and ``{`` outside JSON strings."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _constant(name: str):
    raise ValueError(f"{name} is not a number a certificate may hold")


def read_certificate(path: Path) -> object:
    """The parsed JSON of the certificate file ``path``.

    Parameters
    ----------
    path : pathlib.Path

    Returns
    -------
    object
        What the file holds (the caller checks that it is a certificate).

    Raises
    ------
    CertificateError
        If it is not a regular file of at most :data:`MAX_BYTES` bytes of UTF-8 JSON
        nested at most :data:`MAX_DEPTH` deep (the caller names the file).

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = Path(folder, "c.json")
    ...     _ = path.write_text('{"claim": "demo"}')
    ...     read_certificate(path)
    {'claim': 'demo'}
    >>> read_certificate(Path("/dev/zero"))
    Traceback (most recent call last):
    ...
    qtheory.verify.CertificateError: not a regular file
    """
    try:
        info = os.stat(path)  # follows links: a link to a device is a device
        if not stat.S_ISREG(info.st_mode):
            raise CertificateError("not a regular file")
        if info.st_size > MAX_BYTES:
            raise CertificateError(f"{info.st_size} bytes, more than {MAX_BYTES}")
        with open(path, "rb") as file:
            raw = file.read(MAX_BYTES + 1)
    except OSError as error:
        raise CertificateError(f"cannot be read ({error.strerror or error})") from None
    if len(raw) > MAX_BYTES:
        raise CertificateError(f"more than {MAX_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CertificateError(f"not UTF-8 ({error.reason} at byte {error.start})") from None
    if _depth(text) > MAX_DEPTH:
        raise CertificateError(f"nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text, parse_constant=_constant)
    except (ValueError, RecursionError) as error:  # JSONDecodeError is a ValueError
        raise CertificateError(f"not JSON ({error})") from None
