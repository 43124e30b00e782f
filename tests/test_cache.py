"""Tests of qtheory.core.cache: result files keyed by function, code, package version,
task and layout, signed with an HMAC under a per-cache secret.

References: the key is recomputed here from its specification (SHA-256 of the sorted-key,
whitespace-free JSON of {"code", "function", "package", "task", "version"}) with hashlib,
json, inspect and importlib.metadata directly, and so are the HMAC of a record (hmac) and
the records of the previous layout (version 2, an unkeyed SHA-256 checksum); float round
trips are compared bit for bit (struct) over arbitrary 64-bit patterns, NaN payloads
included; call counts come from a log file the task function appends to, so they count
every execution in any process; computed values are compared with direct calls; changed
functions are made with exec or loaded from files written here, under one name.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import importlib.util
import inspect
import json
import math
import os
import re
import socket
import stat
import struct
import subprocess
import sys
import textwrap
import time
import warnings
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import qtheory
from qtheory.core import cache as cache_module
from qtheory.core.cache import (
    CACHE_VERSION,
    SECRET_FILE,
    STALE_SECONDS,
    CacheWarning,
    ResultCache,
    cached_map,
    default_cache_dir,
)
from qtheory.core.executor import ProcessExecutor, SerialExecutor

sys.path.append(str(Path(__file__).resolve().parent))  # worker processes import tasks
import _executor_tasks as tasks  # noqa: E402

BASE = {"servers": 50, "reserve": 3, "horizon": 100.0, "lambda_h": 0.6, "seed": 7}


def calls(log: Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


def sweep(log: Path, seeds) -> list[dict]:
    return [{"log": str(log), "seed": seed, "size": 3} for seed in seeds]


def bits(value: float) -> bytes:
    return struct.pack(">d", value)


def canonical(data) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def secret_of(directory: Path) -> bytes:
    return (directory / SECRET_FILE).read_bytes()


def signature(secret: bytes, record: dict) -> str:
    """The HMAC-SHA256 of a record by its specification."""
    body = {key: value for key, value in record.items() if key != "hmac"}
    return hmac.new(secret, canonical(body).encode(), hashlib.sha256).hexdigest()


def test_key_follows_the_specification(tmp_path):
    cache = ResultCache(tmp_path)
    code = cache_module._code_fingerprint(tasks.draw)
    assert sorted(code) == ["bytecode", "cache_version", "source"]
    assert code["source"] == hashlib.sha256(inspect.getsource(tasks.draw).encode()).hexdigest()
    assert code["cache_version"] is None
    assert re.fullmatch("[0-9a-f]{64}", code["bytecode"])
    package = getattr(qtheory, "__version__", None) or metadata.version("qtheory")
    material = {
        "code": code,
        "function": "_executor_tasks.draw",
        "package": package,
        "task": BASE,
        "version": CACHE_VERSION,
    }
    digest = hashlib.sha256(canonical(material).encode()).hexdigest()
    assert cache.key(tasks.draw, BASE) == digest
    cache.put(tasks.draw, BASE, {"x": 1})
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == [
        Path(digest[:2]),
        Path(digest[:2], f"{digest}.json"),
        Path(SECRET_FILE),
    ]
    record = json.loads(Path(tmp_path, digest[:2], f"{digest}.json").read_text())
    assert record == material | {"result": {"x": 1}, "hmac": signature(secret_of(tmp_path), record)}


def test_key_changes_with_every_parameter_the_seed_and_the_function(tmp_path):
    cache = ResultCache(tmp_path)
    base = cache.key(tasks.draw, BASE)
    variants = [BASE | {name: value} for name, value in [
        ("servers", 51), ("reserve", 4), ("horizon", 100.5), ("lambda_h", 0.6000000000000001),
        ("seed", 8), ("servers", 50.0), ("extra", None),
    ]]  # fmt: skip
    variants.append({key: value for key, value in BASE.items() if key != "seed"})
    keys = {cache.key(tasks.draw, task) for task in variants}
    assert base not in keys
    assert len(keys) == len(variants)
    assert cache.key(tasks.logged, BASE) != base
    reordered = dict(reversed(list(BASE.items())))
    assert cache.key(tasks.draw, reordered) == base  # entry order does not matter
    zeros = {cache.key(tasks.draw, {"x": zero}) for zero in (0, 0.0, -0.0, False)}
    assert len(zeros) == 4  # types and the sign of zero are part of the key


special = st.integers(0, 2**64 - 1).map(lambda n: struct.unpack(">d", n.to_bytes(8, "big"))[0])


def from_bits(pattern: str) -> float:
    return struct.unpack(">d", bytes.fromhex(pattern))[0]


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(value=st.one_of(special, st.floats()))
@example(value=from_bits("7ff8000000000000"))  # the default quiet NaN
@example(value=from_bits("fff8000000000000"))  # negative NaN
@example(value=from_bits("7ff0000000000001"))  # signalling NaN, payload 1
@example(value=from_bits("7ffc0000deadbeef"))  # quiet NaN with a payload
@example(value=from_bits("8000000000000000"))  # -0.0
@example(value=from_bits("0000000000000001"))  # smallest subnormal
@example(value=math.inf)
@example(value=-math.inf)
@example(value=0.1)
def test_floats_round_trip_bit_exactly(tmp_path, value):
    """Any 64-bit pattern (NaNs with any sign and payload, infinities, -0.0, subnormals)
    comes back with the same bits, through a fresh cache object reading the file."""
    task = {"seed": 1, "value": value}
    stored = ResultCache(tmp_path).put(tasks.draw, task, {"value": value, "nested": [[value]]})
    loaded = ResultCache(tmp_path).get(tasks.draw, task)
    for result in (stored, loaded):
        assert bits(result["value"]) == bits(value)
        assert bits(result["nested"][0][0]) == bits(value)


def test_files_are_strict_json(tmp_path):
    cache = ResultCache(tmp_path)
    cache.put(tasks.draw, {"rate": math.inf}, {"a": math.nan, "b": -math.inf, "c": 0.1})
    (path,) = tmp_path.rglob("*.json")

    def refuse(token):
        raise AssertionError(f"non-standard JSON token {token}")

    record = json.loads(path.read_text(), parse_constant=refuse)
    assert record["result"]["c"] == 0.1
    assert record["result"]["b"] == {"__float64__": "fff0000000000000"}
    # the hmac is the HMAC-SHA256 of the canonical JSON of the other six fields
    assert record["hmac"] == signature(secret_of(tmp_path), record)
    assert sorted(record) == ["code", "function", "hmac", "package", "result", "task", "version"]


def test_cache_hits_skip_computation(tmp_path):
    cache = ResultCache(tmp_path / "cache")
    log = tmp_path / "calls.log"
    first = cached_map(SerialExecutor(), tasks.logged, sweep(log, range(5)), cache=cache)
    assert calls(log) == 5
    second = cached_map(SerialExecutor(), tasks.logged, sweep(log, range(7)), cache=cache)
    assert calls(log) == 7  # only seeds 5 and 6 were computed
    assert second[:5] == first
    assert second == [tasks.draw(task) for task in sweep(log, range(7))]
    cached = [(tasks.logged, task) in cache for task in sweep(log, range(8))]
    assert cached == [True] * 7 + [False]


def test_process_pool_results_are_cached(tmp_path):
    """Results computed by worker processes are stored by the caller, so a serial rerun
    computes nothing."""
    cache = ResultCache(tmp_path / "cache")
    log = tmp_path / "calls.log"
    work = sweep(log, range(6))
    first = cached_map(ProcessExecutor(workers=2), tasks.logged, work, cache=cache)
    rerun = cached_map(SerialExecutor(), tasks.logged, work, cache=cache, progress=False)
    assert calls(log) == 6
    assert first == rerun == [tasks.draw(task) for task in work]


def test_repeated_tasks_are_computed_once(tmp_path):
    log = tmp_path / "calls.log"
    work = sweep(log, [3, 4, 3, 3])
    results = cached_map(SerialExecutor(), tasks.logged, work, cache=ResultCache(tmp_path))
    assert calls(log) == 2
    assert results == [tasks.draw(task) for task in work]
    assert results[0] is not results[2]  # independent copies


def test_results_finished_before_a_failure_are_kept(tmp_path):
    cache = ResultCache(tmp_path / "cache")
    log = tmp_path / "calls.log"
    work = sweep(log, range(4))
    work[2]["fail"] = True
    with pytest.raises(ValueError, match="task 2 failed on purpose"):
        cached_map(SerialExecutor(), tasks.logged, work, cache=cache, progress=False)
    assert [(tasks.logged, task) in cache for task in work] == [True, True, False, False]


def test_first_run_returns_what_a_rerun_reads(tmp_path):
    """Tuples come back as lists and numpy.float64 as float, on the first run too."""
    cache = ResultCache(tmp_path)
    task = {"seed": 1, "fail": False, "pair": [1, 2]}
    result = {"pair": (1, 2), "x": np.float64(0.1)}
    stored = cache.put(tasks.fail_if, task, result)
    assert stored == cache.get(tasks.fail_if, task) == {"pair": [1, 2], "x": 0.1}
    assert type(stored["x"]) is float and type(stored["pair"]) is list
    first = cached_map(SerialExecutor(), tasks.fail_if, [task | {"seed": 2}], cache=cache)
    again = cached_map(SerialExecutor(), tasks.fail_if, [task | {"seed": 2}], cache=cache)
    assert first == again == [{"seed": 2, "fail": False, "pair": [1, 2]}]


def damage(path: Path, how: str) -> None:
    """Corrupt a cache file the ways a crash, a full disk or a stray edit could."""
    text = path.read_text()
    record = json.loads(text)
    nan = {"__float64__": "7ff8000000000000"}
    replacements = {
        "truncated": text[: len(text) // 2],
        "empty": "",
        "not json": "garbage{",
        "a list": "[1, 2]",
        "empty object": "{}",
        "edited result": json.dumps(record | {"result": record["result"] | {"mean": 0.5}}),
        "injected nan": json.dumps(record | {"result": record["result"] | {"mean": nan}}),
        "result emptied": json.dumps(record | {"result": {}}),
        "other task": json.dumps(record | {"task": {"seed": 99}}),
        "other version": json.dumps(record | {"version": "0"}),
        "no hmac": json.dumps({k: v for k, v in record.items() if k != "hmac"}),
        "extra field": json.dumps(record | {"note": "hand-edited"}),
        "no result": json.dumps({k: v for k, v in record.items() if k != "result"}),
        "result not a dict": json.dumps(record | {"result": 3}),
        "bad float tag": json.dumps(record | {"result": {"x": {"__float64__": "zz"}}}),
        "short float tag": json.dumps(record | {"result": {"x": {"__float64__": "7ff8 000000"}}}),
    }
    if how == "not utf-8":
        path.write_bytes(b"\xff\xfe\x00")
    elif how == "directory":
        path.unlink()
        path.mkdir()
    else:
        path.write_text(replacements[how])


@pytest.mark.parametrize(
    "how",
    [
        "truncated", "empty", "not json", "a list", "empty object", "edited result",
        "injected nan", "result emptied", "other task", "other version", "no hmac",
        "extra field", "no result", "result not a dict", "bad float tag", "short float tag",
        "not utf-8", "directory",
    ],
)  # fmt: skip
def test_damaged_file_counts_as_missing(tmp_path, how):
    """Every damaged file is reported (CacheWarning naming the file), recomputed and
    rewritten: before the checksum (now the HMAC) an edited value or an injected NaN was
    served on every rerun, and a result replaced by {} raised KeyError in the sweep
    reading it."""
    cache = ResultCache(tmp_path / "cache")
    log = tmp_path / "calls.log"
    work = sweep(log, [1])
    cached_map(SerialExecutor(), tasks.logged, work, cache=cache, progress=False)
    (path,) = (tmp_path / "cache").rglob("*.json")
    damage(path, how)
    with pytest.warns(CacheWarning, match=f"cache file {path} is damaged"):
        assert cache.get(tasks.logged, work[0]) is None
    if how == "directory":
        return  # cannot be replaced by a file; the point is that get() does not crash
    with pytest.warns(CacheWarning, match="recomputing it"):
        again = cached_map(SerialExecutor(), tasks.logged, work, cache=cache, progress=False)
    assert calls(log) == 2  # recomputed
    assert again == [tasks.draw(work[0])]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # healed: read back without a warning
        assert cache.get(tasks.logged, work[0]) == again[0]  # and the file rewritten


def test_a_missing_file_is_not_a_warning(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ResultCache(tmp_path).get(tasks.draw, BASE) is None


def dead_pid() -> int:
    """The id of a process that has exited (and been reaped)."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_stale_temporary_files_are_removed_on_the_next_run(tmp_path):
    """Killed writers leave .tmp files; the next cached_map removes the old ones and those
    of dead writers on this host, and keeps a live writer's fresh file; in the record
    folders and in the directory itself (where the secret is written)."""
    cache = ResultCache(tmp_path)
    folder = tmp_path / "ab"
    folder.mkdir()
    host = socket.gethostname().replace(".", "_")
    old = folder / ".elsewhere.1.a.tmp"
    dead = folder / f".{host}.{dead_pid()}.b.tmp"
    live = folder / f".{host}.{os.getpid()}.c.tmp"
    foreign = folder / ".elsewhere.1.d.tmp"  # another host's fresh file: cannot tell
    dead_secret = tmp_path / f".{host}.{dead_pid()}.e.tmp"
    for path in (old, dead, live, foreign, dead_secret):
        path.write_text("{")
    os.utime(old, (time.time() - STALE_SECONDS - 60,) * 2)
    cached_map(SerialExecutor(), tasks.draw, [{"seed": 1, "size": 2}], cache=cache, progress=False)
    assert sorted(p.name for p in folder.iterdir()) == sorted([live.name, foreign.name])
    assert not dead_secret.exists()
    assert not list(tmp_path.glob(".*.tmp"))  # the secret's own temporary file is gone too
    assert cache.clean_temporary(max_age=0) == 2  # any age: both go


@pytest.mark.parametrize("how", ["read-only", "under a file"])
def test_unwritable_cache_warns_once_and_runs_without_caching(tmp_path, monkeypatch, how):
    """A read-only QTHEORY_CACHE_DIR (simulated: the tests may run as root, whom
    permissions do not stop) or one below a regular file: one CacheWarning naming the
    directory and QTHEORY_CACHE_DIR, correct results, nothing stored."""
    if how == "read-only":
        directory = tmp_path / "cache"

        def refuse(*args, **kwargs):
            raise OSError(30, "Read-only file system")

        monkeypatch.setattr(cache_module.tempfile, "mkstemp", refuse)
    else:
        (tmp_path / "file").write_text("")
        directory = tmp_path / "file" / "cache"
    monkeypatch.setenv("QTHEORY_CACHE_DIR", str(directory))
    work = [{"seed": seed, "size": 2} for seed in range(3)]
    with pytest.warns(CacheWarning) as record:
        first = cached_map(SerialExecutor(), tasks.draw, work, progress=False)
        second = cached_map(SerialExecutor(), tasks.draw, work, progress=False)
    assert first == second == [tasks.draw(task) for task in work]
    [warning] = record
    assert str(directory) in str(warning.message)
    assert "QTHEORY_CACHE_DIR" in str(warning.message)
    assert not any((tasks.draw, task) in ResultCache(directory) for task in work)


def test_write_is_atomic(tmp_path, monkeypatch):
    """A write that fails before the final rename leaves the old file whole and no
    temporary file behind."""
    cache = ResultCache(tmp_path)
    cache.put(tasks.draw, BASE, {"old": 1})

    def crash(source, target):
        raise OSError("disk full")

    monkeypatch.setattr(cache_module.os, "replace", crash)
    with pytest.raises(OSError, match="disk full"):
        cache.put(tasks.draw, BASE, {"new": 2})
    monkeypatch.undo()
    assert cache.get(tasks.draw, BASE) == {"old": 1}
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == [
        f"{cache.key(tasks.draw, BASE)}.json",
        SECRET_FILE,
    ]


def test_default_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("QTHEORY_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "qtheory"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/path")  # ignored (XDG specification)
    assert default_cache_dir() == tmp_path / "home" / ".cache" / "qtheory"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "qtheory"
    monkeypatch.setenv("QTHEORY_CACHE_DIR", "")  # empty counts as unset
    assert default_cache_dir() == tmp_path / "xdg" / "qtheory"
    monkeypatch.setenv("QTHEORY_CACHE_DIR", str(tmp_path / "mine"))
    assert default_cache_dir() == tmp_path / "mine"


def test_cached_map_uses_the_default_directory(monkeypatch, tmp_path):
    monkeypatch.setenv("QTHEORY_CACHE_DIR", str(tmp_path / "mine"))
    work = [{"seed": 4, "size": 2}]
    assert cached_map(SerialExecutor(), tasks.draw, work, progress=False) == [tasks.draw(work[0])]
    assert (tasks.draw, work[0]) in ResultCache(tmp_path / "mine")


@pytest.mark.parametrize(
    ("fn", "task", "message"),
    [
        (tasks.draw, [1, 2], "task must be a dict"),
        (tasks.draw, {1: 2}, "task must have string keys"),
        (tasks.draw, {"n": np.int64(3)}, r"task\['n'\] must be plain JSON data"),
        (tasks.draw, {"a": [{"b": {1, 2}}]}, r"task\['a'\]\[0\]\['b'\] must be plain JSON"),
        (tasks.draw, {"__float64__": "0"}, "reserved key"),
        (lambda task: task, {}, "fn must be a module-level function"),
        (functools.partial(tasks.draw), {}, "fn must be a module-level function"),
        (ResultCache(".").key, {}, "fn must be a module-level function"),  # a bound method
    ],
)
def test_bad_task_or_function(tmp_path, fn, task, message):
    cache = ResultCache(tmp_path)
    log = tmp_path / "calls.log"
    with pytest.raises(ValueError, match=message):
        cache.key(fn, task)
    with pytest.raises(ValueError, match=message):  # checked before any task runs
        cached_map(SerialExecutor(), fn, [sweep(log, [1])[0], task], cache=cache)
    assert calls(log) == 0


def test_bad_results_and_arguments(tmp_path):
    cache = ResultCache(tmp_path)
    with pytest.raises(ValueError, match="result must be a dict"):
        cache.put(tasks.draw, BASE, [1.0])
    with pytest.raises(ValueError, match=r"result\['x'\] must be plain JSON data"):
        cache.put(tasks.draw, BASE, {"x": np.arange(3)})
    with pytest.raises(ValueError, match="directory must be a path"):
        ResultCache(3)
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="directory must be a directory"):
        ResultCache(tmp_path / "file")
    with pytest.raises(ValueError, match=r"pair \(fn, task\)"):
        assert BASE in cache


# --- stale results: the key follows the code and the package version --------------------


def define(body: str, module: str = "_executor_tasks", name: str = "draw"):
    """The function ``name(task)`` of module ``module`` with ``body``, made by exec (so it
    has no source file): the same name as a real task function, another body."""
    namespace = {"__name__": module}
    exec(f"def {name}(task):\n{textwrap.indent(body, '    ')}\n", namespace)
    return namespace[name]


def load(path: Path, text: str, module: str = "cache_probe"):
    """The function ``work`` of the module file ``path`` (written with ``text``) loaded as
    ``module``: files in different folders give different code under one name."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    spec = importlib.util.spec_from_file_location(module, path)
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded.work


CHANGES = {  # two bodies of one function, differing in ...
    "a constant": ('return {"x": task["seed"] + 1}', 'return {"x": task["seed"] + 2}'),
    "a called name": ('return {"x": min(task["seed"], 2)}', 'return {"x": max(task["seed"], 2)}'),
    "an operator": ('return {"x": task["seed"] * 3}', 'return {"x": task["seed"] ** 3}'),
    "a set of constants": (
        'return {"x": str(task["seed"]) in {"1", "3"}}',
        'return {"x": str(task["seed"]) in {"1", "2"}}',
    ),
    "a comprehension": (
        'return {"x": [i for i in range(task["seed"])]}',
        'return {"x": [i * i for i in range(task["seed"])]}',
    ),
    "the exception caught": (
        'try:\n    return {"x": 1 / (task["seed"] - 3)}\nexcept ZeroDivisionError:\n'
        '    return {"x": 0.0}',
        'try:\n    return {"x": 1 / (task["seed"] - 3)}\nexcept ArithmeticError:\n'
        '    return {"x": 0.0}',
    ),
}


@pytest.mark.parametrize("change", CHANGES)
def test_a_changed_function_body_under_the_same_name_misses(tmp_path, change):
    """The stale-result bug: a function changed under the same module.qualname (here
    without source, so by its bytecode alone) gets a key of its own, and the new code's
    result is computed instead of the old one's being served; the old key still hits."""
    old_body, new_body = CHANGES[change]
    old, new = define(old_body), define(new_body)
    assert (old.__module__, old.__qualname__) == (new.__module__, new.__qualname__)
    with pytest.raises(OSError):
        inspect.getsource(new)  # the fingerprint is the bytecode's alone
    cache = ResultCache(tmp_path)
    task = {"seed": 2, "size": 3}
    assert cache.key(old, task) == cache.key(define(old_body), task)  # same code, same key
    assert cache.key(new, task) != cache.key(old, task)
    cache.put(old, task, old(task))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a plain miss, not a damaged file
        assert cache.get(new, task) is None
    assert cached_map(SerialExecutor(), new, [task], cache=cache, progress=False) == [new(task)]
    assert cache.get(old, task) == old(task)
    assert cache.get(new, task) == new(task)


def test_an_edit_of_the_source_misses_and_a_move_does_not(tmp_path):
    """With a source file, the definition's text is fingerprinted too: a new comment (the
    bytecode is the same) misses; the same function further down its file hits."""
    text = """
        def work(task):
            return {"x": task["seed"]}
        """
    commented = """
        def work(task):
            # the same code, with a comment
            return {"x": task["seed"]}
        """
    moved = """
        HELPER = 1


        def helper(task):
            return task


        def work(task):
            return {"x": task["seed"]}
        """
    first = load(tmp_path / "a" / "cache_probe.py", text)
    second = load(tmp_path / "b" / "cache_probe.py", commented)
    third = load(tmp_path / "c" / "cache_probe.py", moved)
    assert first.__code__.co_code == second.__code__.co_code
    assert first.__code__.co_firstlineno != third.__code__.co_firstlineno
    cache = ResultCache(tmp_path / "cache")
    cache.put(first, {"seed": 1}, {"x": 1})
    assert cache.get(second, {"seed": 1}) is None
    assert cache.get(third, {"seed": 1}) == {"x": 1}


def test_a_declared_cache_version_misses(tmp_path, monkeypatch):
    """A function that changes through a helper declares it with fn.cache_version."""
    cache = ResultCache(tmp_path / "cache")
    log = tmp_path / "calls.log"
    work = sweep(log, [1])
    cached_map(SerialExecutor(), tasks.logged, work, cache=cache, progress=False)
    monkeypatch.setattr(tasks.logged, "cache_version", "2", raising=False)
    assert (tasks.logged, work[0]) not in cache
    cached_map(SerialExecutor(), tasks.logged, work, cache=cache, progress=False)
    assert calls(log) == 2
    monkeypatch.setattr(tasks.logged, "cache_version", {1, 2})
    with pytest.raises(ValueError, match=r"fn\.cache_version must be plain JSON data"):
        cache.key(tasks.logged, work[0])


def test_the_key_is_the_same_in_every_process(tmp_path):
    """No part of the fingerprint depends on the process (string hashing is randomised
    per process, and with it the order of a set of strings in the bytecode's constants)."""
    text = 'def work(task):\n    return {"x": task["name"] in {"alpha", "beta", "gamma"}}\n'
    work = load(tmp_path / "cache_probe_hash.py", text, module="cache_probe_hash")
    here = ResultCache(tmp_path).key(work, {"name": "beta"})
    script = (
        "import sys; sys.path.insert(0, sys.argv[1]); import cache_probe_hash\n"
        "from qtheory.core.cache import ResultCache\n"
        "print(ResultCache(sys.argv[1]).key(cache_probe_hash.work, {'name': 'beta'}))"
    )
    for seed in ("1", "2", "3"):
        child = subprocess.run(
            [sys.executable, "-c", script, str(tmp_path)],
            env=os.environ | {"PYTHONHASHSEED": seed},
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert child.stdout.strip() == here


def test_a_new_package_version_misses(tmp_path, monkeypatch):
    """The key holds qtheory.__version__ (the installed distribution's version); results
    stored under another version are computed again, and the same version hits again."""
    cache = ResultCache(tmp_path / "cache")
    log = tmp_path / "calls.log"
    work = sweep(log, [1])
    cached_map(SerialExecutor(), tasks.logged, work, cache=cache, progress=False)
    (path,) = (tmp_path / "cache").rglob("*.json")
    installed = metadata.version("qtheory")
    assert json.loads(path.read_text())["package"] == installed
    monkeypatch.setattr(qtheory, "__version__", "99.0")
    assert (tasks.logged, work[0]) not in cache
    cached_map(SerialExecutor(), tasks.logged, work, cache=cache, progress=False)
    assert calls(log) == 2
    monkeypatch.undo()
    cached_map(SerialExecutor(), tasks.logged, work, cache=cache, progress=False)
    assert calls(log) == 2
    packages = {json.loads(p.read_text())["package"] for p in (tmp_path / "cache").rglob("*.json")}
    assert packages == {installed, "99.0"}


# --- forged results: the HMAC ---------------------------------------------------------


def v2_record(function: str, task: dict, result: dict) -> tuple[str, dict]:
    """(key, record) of the previous layout: the key without code or package version, the
    record with an unkeyed SHA-256 checksum that anyone can recompute."""
    material = {"function": function, "task": task, "version": "qtheory-result-cache-2"}
    record = material | {"result": result}
    record["checksum"] = hashlib.sha256(canonical(record).encode()).hexdigest()
    return hashlib.sha256(canonical(material).encode()).hexdigest(), record


def forge(path: Path, how: str, other: Path) -> None:
    """Edit the record at ``path`` as someone without the secret could."""
    record = json.loads(path.read_text())
    edited = record | {"result": record["result"] | {"mean": 0.5}}
    if how == "recomputed sha-256":  # the forgery of the issue, in the hmac field
        body = {key: value for key, value in edited.items() if key != "hmac"}
        edited["hmac"] = hashlib.sha256(canonical(body).encode()).hexdigest()
    elif how == "old checksum field":  # the forgery of the issue, in the old layout
        edited = {key: value for key, value in edited.items() if key != "hmac"}
        edited["checksum"] = hashlib.sha256(canonical(edited).encode()).hexdigest()
    elif how == "another secret":
        edited["hmac"] = signature(os.urandom(32), edited)
    elif how == "another task's genuine record":
        edited = json.loads(other.read_text())
    path.write_text(json.dumps(edited))


@pytest.mark.parametrize(
    "how",
    ["recomputed sha-256", "old checksum field", "another secret", "another task's genuine record"],
)
def test_a_forged_record_is_not_served_and_heals(tmp_path, how):
    """An edited value with a recomputed unkeyed checksum was served (and kept) before the
    HMAC; now it is reported, recomputed, and the next read is the healed record's."""
    cache = ResultCache(tmp_path / "cache")
    log = tmp_path / "calls.log"
    work = sweep(log, [1, 2])
    truth = [tasks.draw(task) for task in work]
    cached_map(SerialExecutor(), tasks.logged, work, cache=cache, progress=False)
    keys = [cache.key(tasks.logged, task) for task in work]
    path, other = (tmp_path / "cache" / key[:2] / f"{key}.json" for key in keys)
    forge(path, how, other)
    assert json.loads(path.read_text())["result"] != truth[0]
    with pytest.warns(CacheWarning, match=f"cache file {path} is damaged") as caught:
        assert cache.get(tasks.logged, work[0]) is None
    reason = {
        "old checksum field": "expected the fields",
        "another task's genuine record": "another task's result",
    }.get(how, "HMAC mismatch")
    assert reason in str(caught[0].message)
    with pytest.warns(CacheWarning, match="recomputing it"):
        again = cached_map(SerialExecutor(), tasks.logged, work, cache=cache, progress=False)
    assert again == truth
    assert calls(log) == 3  # the forged task only
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # healed
        assert cache.get(tasks.logged, work[0]) == truth[0]
        assert cached_map(SerialExecutor(), tasks.logged, work, cache=cache) == truth
    assert calls(log) == 3


def test_old_layout_records_are_misses(tmp_path):
    """A directory filled by the previous layout: its files lie at other names, so every
    task is a plain miss (no warning, no crash) and computed again; such a record put at a
    current name is reported and healed (test above)."""
    cache = ResultCache(tmp_path / "cache")
    log = tmp_path / "calls.log"
    work = sweep(log, [1])
    key, record = v2_record("_executor_tasks.logged", work[0], {"mean": 0.5})
    old = tmp_path / "cache" / key[:2] / f"{key}.json"
    old.parent.mkdir(parents=True)
    old.write_text(canonical(record))
    assert key != cache.key(tasks.logged, work[0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert cache.get(tasks.logged, work[0]) is None
        assert cached_map(SerialExecutor(), tasks.logged, work, cache=cache) == [
            tasks.draw(work[0])
        ]
    assert calls(log) == 1
    assert json.loads(old.read_text()) == record  # left alone


def test_the_secret_is_private_and_made_once(tmp_path):
    """32 random bytes, mode 0o600, made by the first write (not by reads), then kept."""
    directory = tmp_path / "cache"
    cache = ResultCache(directory)
    assert cache.get(tasks.draw, BASE) is None
    cache.put(tasks.draw, BASE, {"x": 1})
    status = os.stat(directory / SECRET_FILE)
    assert stat.S_ISREG(status.st_mode) and stat.S_IMODE(status.st_mode) == 0o600
    assert status.st_uid == os.geteuid()
    secret = secret_of(directory)
    assert len(secret) == 32
    ResultCache(directory).put(tasks.draw, BASE | {"seed": 8}, {"x": 2})
    assert secret_of(directory) == secret
    other = tmp_path / "other"
    ResultCache(other).put(tasks.draw, BASE, {"x": 1})
    assert secret_of(other) != secret  # one secret per cache
    (path,) = other.rglob("*.json")
    record = json.loads(path.read_text())
    assert record["hmac"] == signature(secret_of(other), record)


def test_a_secret_created_meanwhile_by_another_process_wins(tmp_path, monkeypatch):
    """Two first writers: the secret is linked into place, so the one that comes second
    signs with the first one's secret instead of replacing it."""
    directory = tmp_path / "cache"
    theirs = os.urandom(32)
    real_link = os.link

    def race(source, target):
        descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        os.write(descriptor, theirs)
        os.close(descriptor)
        real_link(source, target)  # FileExistsError

    monkeypatch.setattr(cache_module.os, "link", race)
    ResultCache(directory).put(tasks.draw, BASE, {"x": 1})
    monkeypatch.undo()
    assert secret_of(directory) == theirs
    (path,) = directory.rglob("*.json")
    record = json.loads(path.read_text())
    assert record["hmac"] == signature(theirs, record)
    assert not list(directory.glob(".*.tmp"))


@pytest.mark.parametrize("how", ["missing", "group-writable", "short", "another user's"])
def test_an_untrusted_secret_is_replaced_and_the_cache_heals(tmp_path, how):
    """Records that cannot be verified (no secret, or one another account could have
    written) are reported and recomputed; the writer replaces an untrusted secret, with a
    warning naming the rule it broke, and the cache heals."""
    directory = tmp_path / "cache"
    log = tmp_path / "calls.log"
    work = sweep(log, [1])
    cached_map(SerialExecutor(), tasks.logged, work, cache=ResultCache(directory), progress=False)
    secret_path = directory / SECRET_FILE
    old = secret_of(directory)
    if how == "missing":
        secret_path.unlink()
    elif how == "group-writable":
        secret_path.chmod(0o620)
    elif how == "short":
        secret_path.write_bytes(old[:16])
    else:
        try:
            os.chown(secret_path, os.geteuid() + 1, -1)
        except PermissionError:
            pytest.skip("only root can give a file to another user")
    rule = {
        "missing": f"the cache secret {secret_path} does not exist",
        "group-writable": "must not be writable by other users (mode 0o600), got mode 0o620",
        "short": "must hold 32 bytes, got 16",
        "another user's": f"must belong to this process's user (uid {os.geteuid()}), got uid",
    }[how]
    cache = ResultCache(directory)
    with pytest.warns(CacheWarning, match="cannot be verified: ") as caught:
        assert cache.get(tasks.logged, work[0]) is None
    assert rule in str(caught[0].message)
    with pytest.warns(CacheWarning) as caught:
        again = cached_map(SerialExecutor(), tasks.logged, work, cache=cache, progress=False)
    replacing = [str(w.message) for w in caught if "replacing it by a new secret" in str(w.message)]
    if how == "missing":
        assert replacing == []  # simply made anew
    else:
        [message] = replacing
        assert message.startswith(f"the cache secret {secret_path} ") and rule in message
    assert again == [tasks.draw(work[0])]
    assert calls(log) == 2
    status = os.stat(secret_path)
    assert stat.S_IMODE(status.st_mode) == 0o600 and status.st_uid == os.geteuid()
    assert len(secret_of(directory)) == 32 and secret_of(directory) != old
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # healed
        assert cache.get(tasks.logged, work[0]) == again[0]


def test_a_cache_that_cannot_keep_a_trusted_secret_is_unwritable(tmp_path, monkeypatch):
    """On a file system that keeps no owners (simulated: every file seems another user's),
    no secret can be trusted: one warning, and the sweep goes on without caching."""
    monkeypatch.setenv("QTHEORY_CACHE_DIR", str(tmp_path / "cache"))
    real = os.geteuid()
    monkeypatch.setattr(cache_module.os, "geteuid", lambda: real + 1)
    work = [{"seed": seed, "size": 2} for seed in range(3)]
    with pytest.warns(CacheWarning) as caught:
        results = cached_map(SerialExecutor(), tasks.draw, work, progress=False)
    assert results == [tasks.draw(task) for task in work]
    [warning] = caught
    assert "cannot write the result cache" in str(warning.message)
    assert "also just after it was written" in str(warning.message)
    assert not list((tmp_path / "cache").rglob("*.json"))
