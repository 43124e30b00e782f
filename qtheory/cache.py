"""On-disk cache of task results, so that rerunning a sweep computes only what is missing.

A *task* is a dict of plain JSON values (a sweep point's parameters and its seed) and a
*task function* is a module-level function mapping a task to a JSON-serialisable dict (see
:mod:`qtheory.executor`).  :class:`ResultCache` stores one JSON file per result, named by

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

Files are written to a temporary file in the same directory and moved into place with
:func:`os.replace`, so a reader sees the whole old file or the whole new one; concurrent
writers of the same key write the same result.  Files are not fsync'ed: a file left empty or
truncated by a crash or a full disk, or damaged in any other way, fails to parse or to
match its key and counts as missing, so its task is computed again and the file rewritten.

Examples
--------
>>> import tempfile
>>> from qtheory.executor import SerialExecutor
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
import struct
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from qtheory.executor import Executor, Task, TaskFunction

__all__ = ["CACHE_VERSION", "ResultCache", "cached_map", "default_cache_dir"]

CACHE_VERSION = "qtheory-result-cache-1"
FLOAT_TAG = "__float64__"  # reserved key: {FLOAT_TAG: hex bits} is a non-finite float


def default_cache_dir() -> Path:
    """``$QTHEORY_CACHE_DIR``, else ``$XDG_CACHE_HOME/qtheory``, else ``~/.cache/qtheory``.

    Empty variables count as unset, and so does a relative ``XDG_CACHE_HOME`` (the XDG base
    directory specification says to ignore it).
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
        """SHA-256 (hex) of the canonical JSON of the function name, task and version."""
        return self._identity(fn, task)[1]

    def get(self, fn: TaskFunction, task: Task) -> dict[str, Any] | None:
        """The stored result of ``fn(task)``; None if missing, unreadable or corrupted."""
        return self._read(*self._identity(fn, task))

    def put(self, fn: TaskFunction, task: Task, result: dict[str, Any]) -> dict[str, Any]:
        """Store ``result`` as the result of ``fn(task)`` (atomically, replacing any old
        file) and return it as :meth:`get` will return it (plain floats, lists for
        tuples)."""
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
        try:
            record = json.loads(self._path(digest).read_bytes())
            material = {name: record[name] for name in ("function", "task", "version")}
            if _canonical(material) != canonical or not isinstance(record["result"], dict):
                return None
            return _decode(record["result"])
        except (OSError, ValueError, TypeError, KeyError, struct.error):  # missing or damaged
            return None

    def _write(self, canonical: str, digest: str, result: dict[str, Any]) -> dict[str, Any]:
        if not isinstance(result, dict):
            raise ValueError(f"result must be a dict of plain JSON values, got {result!r}")
        record = json.loads(canonical) | {"result": _encode(result, "result")}
        path = self._path(digest)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(_canonical(record))
            os.replace(temporary, path)
        except BaseException:
            os.unlink(temporary)
            raise
        return _decode(record["result"])


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

    Parameters
    ----------
    executor : Executor
        From :func:`qtheory.executor.make_executor`.
    fn : callable
        A module-level task function.
    tasks : iterable of dict
        Tasks of plain JSON values.
    cache : ResultCache, optional
        Default ``ResultCache(default_cache_dir())``.
    desc, progress
        Passed to ``executor.map`` (the bar counts only the tasks computed).

    Returns
    -------
    list of dict
        One result per task, in task order.
    """
    cache = ResultCache(default_cache_dir()) if cache is None else cache
    tasks = list(tasks)
    identities = [cache._identity(fn, task) for task in tasks]
    results = [cache._read(*identity) for identity in identities]
    first: dict[str, int] = {}  # digest -> first index of a missing task with that digest
    for index, ((_, digest), result) in enumerate(zip(identities, results, strict=True)):
        if result is None:
            first.setdefault(digest, index)
    todo = list(first.values())

    def store(position: int, result: dict[str, Any]) -> None:
        index = todo[position]
        results[index] = cache._write(*identities[index], result)

    executor.map(fn, [tasks[i] for i in todo], desc=desc, progress=progress, on_result=store)
    for index, (_, digest) in enumerate(identities):
        if results[index] is None:  # a repeat of a task computed above
            results[index] = copy.deepcopy(results[first[digest]])
    return results
