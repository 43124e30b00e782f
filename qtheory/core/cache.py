"""On-disk cache of task results, so that rerunning a sweep computes only what is missing.

A *task* is a dict of plain JSON values (a sweep point's parameters and its seed) and a
*task function* is a module-level function mapping a task to a JSON-serialisable dict (see
:mod:`qtheory.core.executor`).  :class:`ResultCache` stores one JSON file per result, named by

    SHA-256( canonical JSON of {"code": C, "function": module.qualname, "package": P,
                                "task": task, "version": V} )

where the canonical JSON has sorted keys and no whitespace, V is :data:`CACHE_VERSION`
(the layout of this cache), P the version of qtheory (``qtheory.__version__``) and C
the fingerprint of the function's code (below).  The key depends on every parameter and
the seed, and on their types (``1`` and ``1.0`` are different keys) but not on the order
of a dict's entries.

What a changed function misses
------------------------------
The fingerprint C is ``{"bytecode": B, "cache_version": D, "source": S}``, where

- S is the SHA-256 of ``inspect.getsource(fn)``: the text of the function's definition
  (decorators, signature, docstring, comments, body) as its file holds it when the key is
  computed; None if there is no source (a function made by ``exec``, a builtin);
- B is the SHA-256 of the code that runs, ``fn.__code__``: its bytecode, exception table,
  the global and attribute names it uses and its constants, nested functions and
  comprehensions included (sets of constants in sorted order), but not its file name or
  line numbers; None for a callable without Python code (a builtin such as ``dict``);
- D is the function's attribute ``cache_version`` (plain JSON data), None without one.

So any edit of the function's own definition misses, a comment included, and so does a
new Python version (its bytecode differs); moving the function within its file does not.
What the function calls or reads is *not* fingerprinted: an edit of a helper, a module
constant, the C extension or a library is not detected, nor is a default argument value
that the source names rather than spells out.  A new package version invalidates every
result, but the version changes only at a release (a checkout keeps it from commit to
commit), so a function whose results change through its helpers between releases declares
it, ``fn.cache_version = "2"``, or puts a version field in its tasks.

Values round-trip exactly.  Finite floats are written as Python's shortest repr, which
``float()`` reads back to the same bits.  JSON has no NaN or infinities (Python's ``json``
writes the non-standard tokens ``NaN``/``Infinity`` and reads every NaN back as the one
default NaN, losing its sign and payload), so a non-finite float is written as
``{"__float64__": "<16 hex digits of its IEEE 754 bits>"}`` and the files are strict JSON.
That key is therefore reserved.  Tuples are stored as lists.

Integrity
---------
Each file is an envelope ``{"code", "function", "package", "task", "version", "result",
"hmac"}`` whose ``hmac`` is the HMAC-SHA256 (hex) of the canonical JSON of the other six
fields, keyed by the cache's secret: 32 random bytes (:func:`secrets.token_bytes`) in the
file ``directory/``:data:`SECRET_FILE`, which the first write to the directory creates with
mode 0o600 and moves into place atomically (when two processes create it at once, the
first one's secret is the one both use).  A file that is not such an envelope (empty,
truncated by a crash or a full disk, not JSON, ``{}``, a missing or extra field), whose
HMAC does not verify (a result edited by hand, even with a recomputed SHA-256 in the
``hmac`` field; a NaN injected; a changed task), whose key material is not the task's
(another task's genuine file copied over it), or that cannot be verified (no secret, or
none to be trusted) counts as missing: a :class:`CacheWarning` names the file and the
reason, the task is computed again and the file rewritten, so the cache heals.  A file
that does not exist is simply missing (no warning).  Files of earlier layouts (version 2
had an unkeyed SHA-256 ``checksum`` and no code in its key) lie at other names, so they
are never read: their tasks are computed again.

The secret is trusted if it is a regular file of 32 bytes that belongs to this process's
user and that no other account may write (its mode has no group or other write bit).  A
writer that finds it otherwise warns and replaces it by a new secret, and every result
stored under the old one is then recomputed.  The HMAC thus detects the edits of anyone
who cannot read the secret file: another account that can write the cache files cannot
forge a record, and a secret it wrote in place of this one belongs to it and is not
trusted.  Anyone who *can* read the secret (this account, root, whoever has a copy or a
backup of the directory, everyone if its mode was widened) can forge records that verify:
the HMAC guards against mistakes, naive edits and other accounts, not against them.  A
cache is therefore private to its user: another account cannot read its secret, and so
gets none of its results.

Files are written to a temporary file ``.<host>.<pid>.<random>.tmp`` in the same
directory and moved into place with :func:`os.replace` (the secret with :func:`os.link`,
which fails if a secret exists), so a reader sees the whole old file or the whole new one;
concurrent writers of the same key write the same result.  Files are not fsync'ed (a
crash can leave a damaged file, which heals as above).  A writer killed between the two
steps leaves its temporary file behind; the first :func:`cached_map` of a process on a
directory removes such files (:meth:`ResultCache.clean_temporary`): those older than
:data:`STALE_SECONDS`, and those of this host whose writing process no longer exists.

An unwritable cache
-------------------
If results cannot be written (a read-only ``QTHEORY_CACHE_DIR``, no permission, a full
disk), :func:`cached_map` warns once per directory (a :class:`CacheWarning` naming the
directory, ``QTHEORY_CACHE_DIR`` and the error) and carries on without storing: the run
gives the same results, it only computes them again next time.  Results already in a
read-only cache are still read.  :meth:`ResultCache.put` itself raises the ``OSError``.  A
file system without hard links, or one that keeps no owners and modes (FAT), cannot hold a
secret to be trusted, so a cache there counts as unwritable.

Examples
--------
>>> import tempfile
>>> from qtheory.core.executor import SerialExecutor
>>> with tempfile.TemporaryDirectory() as directory:
...     cache = ResultCache(directory)
...     results = cached_map(SerialExecutor(), dict, [{"seed": 1, "rate": float("inf")}],
...                          cache=cache, progress=False)
...     results, (dict, {"rate": float("inf"), "seed": 1}) in cache, (dict, {"seed": 2}) in cache
([{'seed': 1, 'rate': inf}], True, False)
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import hmac
import inspect
import json
import math
import os
import secrets
import socket
import stat
import struct
import tempfile
import time
import tokenize
import types
import warnings
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import qtheory
from qtheory.core.executor import Executor, Task, TaskFunction, task_weights

__all__ = [
    "CACHE_VERSION",
    "SECRET_FILE",
    "STALE_SECONDS",
    "CacheWarning",
    "ResultCache",
    "cached_map",
    "default_cache_dir",
]

#: The layout of the cache files; part of every key (version 2 added a checksum, version 3
#: the code fingerprint and the package version to the key and the HMAC in its place).
CACHE_VERSION = "qtheory-result-cache-3"
#: Name of the file, in the cache directory, that holds the secret key of the HMACs.
SECRET_FILE = "secret.key"
SECRET_BYTES = 32
#: Age in seconds after which a temporary file is stale whoever wrote it (a write takes
#: milliseconds).
STALE_SECONDS = 3600.0
FLOAT_TAG = "__float64__"  # reserved key: {FLOAT_TAG: hex bits} is a non-finite float
ENVELOPE = ("code", "function", "hmac", "package", "result", "task", "version")
_CLEANED: set[Path] = set()  # directories whose stale temporary files this process removed
_UNWRITABLE: set[Path] = set()  # directories this process warned it cannot write


class CacheWarning(UserWarning):
    """A cache file was damaged and is recomputed, or the cache cannot be written.

    A :class:`UserWarning`: the sweep goes on (the result is recomputed, or computed
    without being stored), so it is a warning and not an error.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     warnings.warn("cache file damaged", CacheWarning)
    >>> issubclass(caught[0].category, UserWarning), str(caught[0].message)
    (True, 'cache file damaged')
    """


def default_cache_dir() -> Path:
    """The cache directory: ``$QTHEORY_CACHE_DIR``, else ``$XDG_CACHE_HOME/qtheory``, else
    ``~/.cache/qtheory``.

    Empty variables count as unset, and so does a relative ``XDG_CACHE_HOME`` (the XDG base
    directory specification says to ignore it).  The directory need not exist.

    Returns
    -------
    pathlib.Path
        The directory (``~`` expanded).

    Examples
    --------
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"QTHEORY_CACHE_DIR": "/tmp/qtheory-cache"}):
    ...     default_cache_dir().as_posix()
    '/tmp/qtheory-cache'
    """
    explicit = os.environ.get("QTHEORY_CACHE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "qtheory"
    return Path.home() / ".cache" / "qtheory"


def _encode(value: Any, where: str) -> Any:
    """``value`` as strict-JSON data (non-finite floats tagged); ValueError naming ``where``
    for anything that is not plain JSON data."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return float(value)  # a plain float also for subclasses such as numpy.float64
        return {FLOAT_TAG: struct.pack(">d", value).hex()}
    if isinstance(value, list | tuple):
        return [_encode(item, f"{where}[{i}]") for i, item in enumerate(value)]
    if isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise ValueError(f"{where} must have string keys, got key {key!r}")
            if key == FLOAT_TAG:
                raise ValueError(f"{where} uses the reserved key {FLOAT_TAG!r}")
        return {key: _encode(item, f"{where}[{key!r}]") for key, item in value.items()}
    raise ValueError(
        f"{where} must be plain JSON data (None, bool, int, float, str, list, dict), got "
        f"{type(value).__name__} {value!r}; convert it (e.g. int(), float(), .tolist())"
    )


def _decode(value: Any) -> Any:
    """Inverse of :func:`_encode` on data read back from JSON; ValueError if malformed."""
    if isinstance(value, list):
        return [_decode(item) for item in value]
    if not isinstance(value, dict):
        return value
    if FLOAT_TAG in value:
        bits = value[FLOAT_TAG]
        if len(value) != 1 or not isinstance(bits, str) or len(bits) != 16:
            raise ValueError(f"malformed tagged float {value!r}")
        return struct.unpack(">d", bytes.fromhex(bits))[0]
    return {key: _decode(item) for key, item in value.items()}


def _canonical(data: Any) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False)


def _function_name(fn: TaskFunction) -> str:
    module = getattr(fn, "__module__", None)
    qualname = getattr(fn, "__qualname__", None)
    if not callable(fn) or inspect.ismethod(fn) or not module or not qualname or "<" in qualname:
        raise ValueError(
            f"fn must be a module-level function (its module.qualname is the cache key), got {fn!r}"
        )
    return f"{module}.{qualname}"


def _package_version() -> str:
    """``qtheory.__version__``: the installed distribution's version (the one version
    source; a checkout that is not installed reads its ``pyproject.toml``)."""
    return str(qtheory.__version__)


def _code_fingerprint(fn: TaskFunction) -> dict[str, Any]:
    """``{"bytecode", "cache_version", "source"}`` of ``fn`` (see the module docstring);
    ValueError if ``fn.cache_version`` is not plain JSON data."""
    try:
        source = hashlib.sha256(inspect.getsource(fn).encode()).hexdigest()
    except (OSError, TypeError, SyntaxError, tokenize.TokenError):  # no source, or not now
        source = None
    code = getattr(fn, "__code__", None)
    bytecode = None
    if isinstance(code, types.CodeType):
        bytecode = hashlib.sha256(_canonical(_code_material(code)).encode()).hexdigest()
    declared = _encode(getattr(fn, "cache_version", None), "fn.cache_version")
    return {"bytecode": bytecode, "cache_version": declared, "source": source}


def _code_material(code: types.CodeType) -> list[Any]:
    """What of ``code`` decides what it computes, as JSON data: bytecode, exception table,
    names and constants (nested code recursively), not its file name or line numbers."""
    return [
        code.co_code.hex(),
        code.co_exceptiontable.hex(),
        list(code.co_names),
        [_constant_material(value) for value in code.co_consts],
    ]


def _constant_material(value: Any) -> list[Any]:
    """A constant of a code object as JSON data that is the same in every process."""
    if isinstance(value, types.CodeType):
        return ["code", _code_material(value)]
    if isinstance(value, tuple):
        return ["tuple", [_constant_material(item) for item in value]]
    if isinstance(value, frozenset):  # the order of a set of strings varies with the process
        return ["frozenset", sorted((_constant_material(item) for item in value), key=_canonical)]
    return [type(value).__name__, repr(value)]  # None, bool, int, float, complex, str, bytes


def _function_material(fn: TaskFunction) -> dict[str, Any]:
    """The part of the key material that depends on ``fn`` alone; ValueError if ``fn`` is
    not a module-level function."""
    name = _function_name(fn)
    return {"code": _code_fingerprint(fn), "function": name, "package": _package_version()}


class ResultCache:
    """Task results on disk, one JSON file per (function, task) under ``directory``.

    The file of a key ``k`` (64 hex digits) is ``directory/k[:2]/k.json``; it holds the key
    material (function name and code fingerprint, package version, task,
    :data:`CACHE_VERSION`), the result and their HMAC under the secret
    ``directory/``:data:`SECRET_FILE`.  The directories and the secret are created on the
    first :meth:`put`.

    Parameters
    ----------
    directory : str or path-like
        Where the files live (e.g. :func:`default_cache_dir`).

    Raises
    ------
    ValueError
        If ``directory`` is not a path, or names an existing file that is not a directory.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as directory:
    ...     cache = ResultCache(directory)
    ...     stored = cache.put(dict, {"seed": 3}, {"mean": 0.1, "nan": float("nan")})
    ...     cache.get(dict, {"seed": 3}), cache.get(dict, {"seed": 4})
    ({'mean': 0.1, 'nan': nan}, None)
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        if not isinstance(directory, str | os.PathLike):
            raise ValueError(f"directory must be a path, got {directory!r}")
        self.directory = Path(directory)
        if self.directory.exists() and not self.directory.is_dir():
            raise ValueError(f"directory must be a directory, got the file {self.directory}")

    def __repr__(self) -> str:
        return f"ResultCache({str(self.directory)!r})"

    def key(self, fn: TaskFunction, task: Task) -> str:
        """The key of ``fn(task)``: SHA-256 (hex) of the canonical JSON of the function's
        name and code fingerprint, the package version, the task and :data:`CACHE_VERSION`
        (see the module docstring).

        Parameters
        ----------
        fn : callable
            A module-level task function.
        task : dict
            Plain JSON values.

        Returns
        -------
        str
            64 hex digits.

        Raises
        ------
        ValueError
            If ``fn`` is not a module-level function, its ``cache_version`` or ``task`` is
            not plain JSON data.

        Examples
        --------
        >>> len(ResultCache(".").key(dict, {"seed": 1}))
        64
        """
        return self._identity(_function_material(fn), task)[1]

    def get(self, fn: TaskFunction, task: Task) -> dict[str, Any] | None:
        """The stored result of ``fn(task)``.

        Parameters
        ----------
        fn : callable
            A module-level task function.
        task : dict
            Plain JSON values.

        Returns
        -------
        dict or None
            The result; None if the file is missing, or damaged (then with a
            :class:`CacheWarning` saying why; see the module docstring).

        Raises
        ------
        ValueError
            As :meth:`key`.

        Examples
        --------
        >>> ResultCache("/nonexistent").get(dict, {"seed": 1}) is None
        True
        """
        return self._read(*self._identity(_function_material(fn), task))

    def put(self, fn: TaskFunction, task: Task, result: dict[str, Any]) -> dict[str, Any]:
        """Store ``result`` as the result of ``fn(task)``, atomically, replacing any old file.

        Parameters
        ----------
        fn : callable
            A module-level task function.
        task : dict
            Plain JSON values.
        result : dict
            Plain JSON values (floats of any value, NaN and infinities included).

        Returns
        -------
        dict
            ``result`` as :meth:`get` will return it (plain floats, lists for tuples).

        Raises
        ------
        ValueError
            As :meth:`key`, or if ``result`` is not a dict of plain JSON data.
        OSError
            If the file or the secret cannot be written (:func:`cached_map` warns and goes
            on instead).

        Warns
        -----
        CacheWarning
            If the secret is not to be trusted, and is replaced (see the module docstring).

        Examples
        --------
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as directory:
        ...     ResultCache(directory).put(dict, {"seed": 1}, {"pair": (1, 2)})
        {'pair': [1, 2]}
        """
        return self._write(*self._identity(_function_material(fn), task), result)

    def __contains__(self, item: object) -> bool:
        """``(fn, task) in cache``: whether :meth:`get` would find a result."""
        if not (isinstance(item, tuple) and len(item) == 2):
            raise ValueError(f"test membership with a pair (fn, task), got {item!r}")
        return self.get(*item) is not None

    def _identity(self, function: dict[str, Any], task: Task) -> tuple[str, str]:
        """(canonical JSON, its SHA-256) of the key material of the function material
        ``function`` (:func:`_function_material`) and ``task``; ValueError for a bad task."""
        if not isinstance(task, dict):
            raise ValueError(f"task must be a dict of plain JSON values, got {task!r}")
        material = function | {"task": _encode(task, "task"), "version": CACHE_VERSION}
        canonical = _canonical(material)
        return canonical, hashlib.sha256(canonical.encode()).hexdigest()

    def _path(self, digest: str) -> Path:
        return self.directory / digest[:2] / f"{digest}.json"

    def _read(self, canonical: str, digest: str) -> dict[str, Any] | None:
        """The stored result, or None if the file is missing or damaged (with a
        :class:`CacheWarning` saying why when a file exists but is unusable)."""
        path = self._path(digest)
        try:
            data = path.read_bytes()
        except (FileNotFoundError, NotADirectoryError):  # missing, or no cache at all
            return None
        except OSError as error:  # a directory in its place, no permission, ...
            return _damaged(path, f"unreadable: {error.strerror or error}")
        try:
            record = json.loads(data)
            problem = _envelope_problem(record, canonical, self.directory / SECRET_FILE)
            if problem is None:
                return _decode(record["result"])
        except (ValueError, TypeError, struct.error) as error:  # not JSON, bad float tag
            problem = f"not a result record: {error}"
        return _damaged(path, problem)

    def _write(self, canonical: str, digest: str, result: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(result, dict):
            raise ValueError(f"result must be a dict of plain JSON values, got {result!r}")
        record = json.loads(canonical) | {"result": _encode(result, "result")}
        record["hmac"] = _hmac(self._signing_secret(), record)
        path = self._path(digest)
        temporary = _write_temporary(path.parent, _canonical(record).encode())
        try:
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
        return _decode(record["result"])

    def _signing_secret(self) -> bytes:
        """The secret to sign with: the directory's, else a new one (with a
        :class:`CacheWarning` if the old one is not to be trusted).  OSError if there is
        none to be trusted and a trusted one cannot be written."""
        path = self.directory / SECRET_FILE
        try:
            return _read_secret(path)
        except FileNotFoundError:
            exclusive = True
        except ValueError as problem:
            warnings.warn(f"{problem}; replacing it by a new secret, so the results stored "
                          "under the old one will be recomputed", CacheWarning,
                          stacklevel=4)  # fmt: skip
            exclusive = False
        temporary = _write_temporary(self.directory, secrets.token_bytes(SECRET_BYTES))
        try:
            if exclusive:
                os.link(temporary, path)  # unlike os.replace, fails if a secret exists
            else:
                os.replace(temporary, path)
        except FileExistsError:  # another process created one meanwhile: it is the secret
            pass
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
        try:
            return _read_secret(path)  # the secret now in place, whoever wrote it
        except ValueError as problem:  # a file system that keeps no owners or modes
            raise OSError(f"{problem}, also just after it was written") from None

    def clean_temporary(self, max_age: float = STALE_SECONDS) -> int:
        """Remove temporary files left by writers that were killed mid-write.

        A temporary file is removed when it is older than ``max_age`` seconds, or when it
        was written on this host by a process that no longer exists.  Files of live
        writers (this process included) younger than ``max_age`` are kept.

        Parameters
        ----------
        max_age : float, default :data:`STALE_SECONDS`
            Age in seconds beyond which any temporary file is stale.

        Returns
        -------
        int
            How many files were removed.

        Examples
        --------
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as directory:
        ...     stale = Path(directory, "ab", ".otherhost.1.x.tmp")
        ...     stale.parent.mkdir()
        ...     _ = stale.write_text("{")
        ...     os.utime(stale, (0, 0))  # written in 1970
        ...     ResultCache(directory).clean_temporary(), stale.exists()
        (1, False)
        """
        if not self.directory.is_dir():
            return 0
        now = time.time()
        removed = 0
        for temporary in [*self.directory.glob(".*.tmp"), *self.directory.glob("??/.*.tmp")]:
            try:
                stale = now - temporary.stat().st_mtime > max_age or _writer_gone(temporary)
                if stale:
                    temporary.unlink()
                    removed += 1
            except OSError:  # removed meanwhile by another cleaner, or not ours to remove
                continue
        return removed

    def _store(self, identity: tuple[str, str], result: dict[str, Any]) -> dict[str, Any]:
        """:meth:`_write`, or (once the directory proved unwritable, with one
        :class:`CacheWarning` per directory and process) the result as stored, unstored."""
        if self.directory not in _UNWRITABLE:
            try:
                return self._write(*identity, result)
            except OSError as error:
                _UNWRITABLE.add(self.directory)
                warnings.warn(
                    f"cannot write the result cache {self.directory} ({error.strerror or error});"
                    " this run goes on without caching (set QTHEORY_CACHE_DIR to a writable "
                    "directory to keep results)",
                    CacheWarning,
                    stacklevel=4,
                )
        return _decode(_encode(result, "result"))


_TEMP_PREFIX = f".{socket.gethostname().replace('.', '_')}.{os.getpid()}."


def _writer_gone(temporary: Path) -> bool:
    """Whether ``temporary`` (``.<host>.<pid>.<random>.tmp``) was written on this host by a
    process that no longer exists.  Other hosts' processes cannot be checked."""
    host, _, rest = temporary.name[1:].partition(".")
    pid, _, _ = rest.partition(".")
    if host != socket.gethostname().replace(".", "_") or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OverflowError, ValueError):
        return False
    return False


def _write_temporary(folder: Path, data: bytes) -> str:
    """The path of a new temporary file in ``folder`` (created if need be) holding ``data``,
    readable and writable by its owner only (:func:`tempfile.mkstemp`)."""
    folder.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=folder, prefix=_TEMP_PREFIX, suffix=".tmp")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
    except BaseException:
        os.unlink(temporary)
        raise
    return temporary


def _read_secret(path: Path) -> bytes:
    """The secret in ``path``: OSError if it cannot be read (FileNotFoundError if there is
    none), ValueError saying why it is not to be trusted (see the module docstring)."""
    # not through a symbolic link, and without waiting for a writer if it is a FIFO
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        status = os.fstat(descriptor)
        regular = stat.S_ISREG(status.st_mode)
        secret = os.read(descriptor, SECRET_BYTES + 1) if regular else b""
    finally:
        os.close(descriptor)
    mode = stat.S_IMODE(status.st_mode)
    if not regular:
        rule = f"must be a regular file, got mode {status.st_mode:#o}"
    elif status.st_uid != os.geteuid():
        rule = f"must belong to this process's user (uid {os.geteuid()}), got uid {status.st_uid}"
    elif mode & (stat.S_IWGRP | stat.S_IWOTH):
        rule = f"must not be writable by other users (mode 0o600), got mode {mode:#o}"
    elif len(secret) != SECRET_BYTES:
        rule = f"must hold {SECRET_BYTES} bytes, got {len(secret)}"
    else:
        return secret
    raise ValueError(f"the cache secret {path} {rule}")


def _hmac(secret: bytes, record: dict[str, Any]) -> str:
    """HMAC-SHA256 (hex), keyed by ``secret``, of the canonical JSON of ``record`` without
    its ``hmac``."""
    body = {name: value for name, value in record.items() if name != "hmac"}
    return hmac.new(secret, _canonical(body).encode(), hashlib.sha256).hexdigest()


def _envelope_problem(record: Any, canonical: str, secret_path: Path) -> str | None:
    """Why ``record`` is not the stored result of the key material ``canonical``, signed
    with the secret in ``secret_path`` (None if it is)."""
    if not isinstance(record, dict) or sorted(record) != list(ENVELOPE):
        shown = sorted(record) if isinstance(record, dict) else type(record).__name__
        return f"not a result record: expected the fields {list(ENVELOPE)}, got {shown}"
    try:
        secret = _read_secret(secret_path)
    except FileNotFoundError:
        return f"cannot be verified: the cache secret {secret_path} does not exist"
    except OSError as error:
        reason = error.strerror or error
        return f"cannot be verified: the cache secret {secret_path} is unreadable ({reason})"
    except ValueError as error:
        return f"cannot be verified: {error}"
    signature, expected = record["hmac"], _hmac(secret, record).encode()
    if not (isinstance(signature, str) and hmac.compare_digest(signature.encode(), expected)):
        return "HMAC mismatch: the file was edited, damaged or signed with another secret"
    material = {name: record[name] for name in ENVELOPE if name not in ("hmac", "result")}
    if _canonical(material) != canonical:
        return "it holds another task's result"
    if not isinstance(record["result"], dict):
        return "its result is not a JSON object"
    return None


def _damaged(path: Path, problem: str) -> None:
    warnings.warn(f"cache file {path} is damaged ({problem}); recomputing it", CacheWarning,
                  stacklevel=5)  # fmt: skip
    return None


def cached_map(
    executor: Executor,
    fn: TaskFunction,
    tasks: Iterable[Task],
    *,
    cache: ResultCache | None = None,
    desc: str | None = None,
    progress: bool = True,
    weights: Sequence[float] | None = None,
) -> list[dict[str, Any]]:
    """``[fn(task) for task in tasks]``, reading what ``cache`` has and computing the rest.

    Every task is looked up first (and checked: bad tasks raise ValueError before any work
    starts); only the missing ones go to ``executor.map``, each distinct task once.  Each
    result is stored as soon as it arrives, so an interrupted or failed sweep keeps what it
    finished.  Computed and cached results are returned in the same form (as stored: plain
    floats, lists for tuples), so a rerun returns exactly what the first run returned.

    The first call of a process on a directory removes the temporary files that killed
    writers left there (:meth:`ResultCache.clean_temporary`).  A task whose function's
    code or the package version changed since its result was stored is a miss.  Damaged,
    forged or unverifiable files are recomputed and rewritten, and a directory that cannot
    be written makes the sweep go on without storing, each with a :class:`CacheWarning`
    (see the module docstring).

    Parameters
    ----------
    executor : Executor
        From :func:`qtheory.core.executor.make_executor`.
    fn : callable
        A module-level task function.
    tasks : iterable of dict
        Tasks of plain JSON values.
    cache : ResultCache, optional
        Default ``ResultCache(default_cache_dir())``.
    desc : str, optional
        Label of the progress bar.
    progress : bool, default True
        Show a progress bar (it counts only the tasks computed).
    weights : sequence of float, optional
        The expected cost of each task, the steps of the bar (see
        :meth:`qtheory.core.executor.Executor.map`).

    Returns
    -------
    list of dict
        One result per task, in task order.

    Raises
    ------
    ValueError
        If ``fn`` is not a module-level function, its ``cache_version`` or a task is not
        plain JSON data, or a result is not a dict of plain JSON data.
    Exception
        The first exception a task raised (results finished before it are kept).

    Examples
    --------
    >>> import tempfile
    >>> from qtheory.core.executor import SerialExecutor
    >>> with tempfile.TemporaryDirectory() as directory:
    ...     cache = ResultCache(directory)
    ...     first = cached_map(SerialExecutor(), dict, [{"x": 1.5}], cache=cache, progress=False)
    ...     again = cached_map(SerialExecutor(), dict, [{"x": 1.5}], cache=cache, progress=False)
    >>> first == again == [{"x": 1.5}]
    True
    """
    cache = ResultCache(default_cache_dir()) if cache is None else cache
    tasks = list(tasks)
    weights = task_weights(weights, len(tasks))
    function = _function_material(fn)
    identities = [cache._identity(function, task) for task in tasks]
    if cache.directory not in _CLEANED:
        _CLEANED.add(cache.directory)
        cache.clean_temporary()
    results = [cache._read(*identity) for identity in identities]
    first: dict[str, int] = {}  # digest -> first index of a missing task with that digest
    for index, ((_, digest), result) in enumerate(zip(identities, results, strict=True)):
        if result is None:
            first.setdefault(digest, index)
    todo = list(first.values())

    def store(position: int, result: dict[str, Any]) -> None:
        index = todo[position]
        results[index] = cache._store(identities[index], result)

    executor.map(
        fn,
        [tasks[i] for i in todo],
        desc=desc,
        progress=progress,
        on_result=store,
        weights=[weights[i] for i in todo] if todo and any(weights[i] for i in todo) else None,
    )
    for index, (_, digest) in enumerate(identities):
        if results[index] is None:  # a repeat of a task computed above
            results[index] = copy.deepcopy(results[first[digest]])
    return results
