"""On-disk cache of task results, so that rerunning a sweep computes only what is missing.

A *task* is a dict of plain JSON values (a sweep point's parameters and its seed) and a
*task function* is a module-level function mapping a task to a JSON-serialisable dict (see
:mod:`qtheory.core.executor`).  :class:`ResultCache` stores one JSON file per result, named by

    SHA-256( canonical JSON of {"function": module.qualname, "task": task, "version": V} )

where the canonical JSON has sorted keys and no whitespace, and V is :data:`CACHE_VERSION`
(the layout of this cache).  The key depends on every parameter and the seed, and on their
types (``1`` and ``1.0`` are different keys) but not on the order of a dict's entries.  It
does *not* depend on the task function's code: when a function's results change meaning,
put a version field in its tasks or use a new cache directory.

Values round-trip exactly.  Finite floats are written as Python's shortest repr, which
``float()`` reads back to the same bits.  JSON has no NaN or infinities (Python's ``json``
writes the non-standard tokens ``NaN``/``Infinity`` and reads every NaN back as the one
default NaN, losing its sign and payload), so a non-finite float is written as
``{"__float64__": "<16 hex digits of its IEEE 754 bits>"}`` and the files are strict JSON.
That key is therefore reserved.  Tuples are stored as lists.

Integrity
---------
Each file is an envelope ``{"function", "task", "version", "result", "checksum"}`` whose
``checksum`` is the SHA-256 of the canonical JSON of the other four fields.  A file that
is not such an envelope (empty, truncated by a crash or a full disk, not JSON, ``{}``, a
missing or extra field), whose checksum does not match (a result edited by hand, a NaN
injected, a changed task) or whose key material is not the task's counts as missing: a
:class:`CacheWarning` names the file and the reason, the task is computed again and the
file rewritten.  A file that does not exist is simply missing (no warning).

Files are written to a temporary file ``.<host>.<pid>.<random>.tmp`` in the same
directory and moved into place with :func:`os.replace`, so a reader sees the whole old
file or the whole new one; concurrent writers of the same key write the same result.
Files are not fsync'ed (a crash can leave a damaged file, which heals as above).  A
writer killed between the two steps leaves its temporary file behind; the first
:func:`cached_map` of a process on a directory removes such files
(:meth:`ResultCache.clean_temporary`): those older than :data:`STALE_SECONDS`, and those
of this host whose writing process no longer exists.

An unwritable cache
-------------------
If results cannot be written (a read-only ``QTHEORY_CACHE_DIR``, no permission, a full
disk), :func:`cached_map` warns once per directory (a :class:`CacheWarning` naming the
directory, ``QTHEORY_CACHE_DIR`` and the error) and carries on without storing: the run
gives the same results, it only computes them again next time.  Results already in a
read-only cache are still read.  :meth:`ResultCache.put` itself raises the ``OSError``.

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

import copy
import hashlib
import inspect
import json
import math
import os
import socket
import struct
import tempfile
import time
import warnings
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from qtheory.core.executor import Executor, Task, TaskFunction

__all__ = [
    "CACHE_VERSION",
    "STALE_SECONDS",
    "CacheWarning",
    "ResultCache",
    "cached_map",
    "default_cache_dir",
]

#: The layout of the cache files; part of every key (version 2 added the checksum).
CACHE_VERSION = "qtheory-result-cache-2"
#: Age in seconds after which a temporary file is stale whoever wrote it (a write takes
#: milliseconds).
STALE_SECONDS = 3600.0
FLOAT_TAG = "__float64__"  # reserved key: {FLOAT_TAG: hex bits} is a non-finite float
ENVELOPE = ("checksum", "function", "result", "task", "version")
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


class ResultCache:
    """Task results on disk, one JSON file per (function, task) under ``directory``.

    The file of a key ``k`` (64 hex digits) is ``directory/k[:2]/k.json``; it holds the
    function name, the task, :data:`CACHE_VERSION` and the result.  Directories are created
    on the first :meth:`put`.

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
        """The key of ``fn(task)``: SHA-256 (hex) of the canonical JSON of the function
        name, the task and :data:`CACHE_VERSION`.

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
            If ``fn`` is not a module-level function or ``task`` is not plain JSON data.

        Examples
        --------
        >>> len(ResultCache(".").key(dict, {"seed": 1}))
        64
        """
        return self._identity(fn, task)[1]

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
        return self._read(*self._identity(fn, task))

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
            If the file cannot be written (:func:`cached_map` warns and goes on instead).

        Examples
        --------
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as directory:
        ...     ResultCache(directory).put(dict, {"seed": 1}, {"pair": (1, 2)})
        {'pair': [1, 2]}
        """
        return self._write(*self._identity(fn, task), result)

    def __contains__(self, item: object) -> bool:
        """``(fn, task) in cache``: whether :meth:`get` would find a result."""
        if not (isinstance(item, tuple) and len(item) == 2):
            raise ValueError(f"test membership with a pair (fn, task), got {item!r}")
        return self.get(*item) is not None

    def _identity(self, fn: TaskFunction, task: Task) -> tuple[str, str]:
        """(canonical JSON, its SHA-256) of the key material; ValueError for a bad task."""
        if not isinstance(task, dict):
            raise ValueError(f"task must be a dict of plain JSON values, got {task!r}")
        material = {
            "function": _function_name(fn),
            "task": _encode(task, "task"),
            "version": CACHE_VERSION,
        }
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
            problem = _envelope_problem(record, canonical)
            if problem is None:
                return _decode(record["result"])
        except (ValueError, TypeError, struct.error) as error:  # not JSON, bad float tag
            problem = f"not a result record: {error}"
        return _damaged(path, problem)

    def _write(self, canonical: str, digest: str, result: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(result, dict):
            raise ValueError(f"result must be a dict of plain JSON values, got {result!r}")
        record = json.loads(canonical) | {"result": _encode(result, "result")}
        record["checksum"] = _checksum(record)
        path = self._path(digest)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=_TEMP_PREFIX, suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(_canonical(record))
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
        return _decode(record["result"])

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
        for temporary in self.directory.glob("??/.*.tmp"):
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


def _checksum(record: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of ``record`` without its ``checksum``."""
    body = {name: value for name, value in record.items() if name != "checksum"}
    return hashlib.sha256(_canonical(body).encode()).hexdigest()


def _envelope_problem(record: Any, canonical: str) -> str | None:
    """Why ``record`` is not the stored result of the key material ``canonical`` (None if
    it is)."""
    if not isinstance(record, dict) or sorted(record) != list(ENVELOPE):
        shown = sorted(record) if isinstance(record, dict) else type(record).__name__
        return f"not a result record: expected the fields {list(ENVELOPE)}, got {shown}"
    if record["checksum"] != _checksum(record):
        return "checksum mismatch: the file was edited or damaged"
    material = {name: record[name] for name in ("function", "task", "version")}
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
) -> list[dict[str, Any]]:
    """``[fn(task) for task in tasks]``, reading what ``cache`` has and computing the rest.

    Every task is looked up first (and checked: bad tasks raise ValueError before any work
    starts); only the missing ones go to ``executor.map``, each distinct task once.  Each
    result is stored as soon as it arrives, so an interrupted or failed sweep keeps what it
    finished.  Computed and cached results are returned in the same form (as stored: plain
    floats, lists for tuples), so a rerun returns exactly what the first run returned.

    The first call of a process on a directory removes the temporary files that killed
    writers left there (:meth:`ResultCache.clean_temporary`).  Damaged files are
    recomputed and rewritten, and a directory that cannot be written makes the sweep go
    on without storing, each with a :class:`CacheWarning` (see the module docstring).

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

    Returns
    -------
    list of dict
        One result per task, in task order.

    Raises
    ------
    ValueError
        If ``fn`` is not a module-level function, a task is not plain JSON data or a
        result is not a dict of plain JSON data.
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
    identities = [cache._identity(fn, task) for task in tasks]
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

    executor.map(fn, [tasks[i] for i in todo], desc=desc, progress=progress, on_result=store)
    for index, (_, digest) in enumerate(identities):
        if results[index] is None:  # a repeat of a task computed above
            results[index] = copy.deepcopy(results[first[digest]])
    return results
