"""Tests of qtheory.core.cache: result files keyed by function, task and version.

References: the key is recomputed here from its specification (SHA-256 of the sorted-key,
whitespace-free JSON of {"function", "task", "version"}) with hashlib and json directly;
float round trips are compared bit for bit (struct) over arbitrary 64-bit patterns, NaN
payloads included; call counts come from a log file the task function appends to, so they
count every execution in any process; computed values are compared with direct calls.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import socket
import struct
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from qtheory.core import cache as cache_module
from qtheory.core.cache import (
    CACHE_VERSION,
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


def test_key_follows_the_specification(tmp_path):
    cache = ResultCache(tmp_path)
    material = {"function": "_executor_tasks.draw", "task": BASE, "version": CACHE_VERSION}
    canonical = json.dumps(material, sort_keys=True, separators=(",", ":"))
    digest = hashlib.sha256(canonical.encode()).hexdigest()
    assert cache.key(tasks.draw, BASE) == digest
    cache.put(tasks.draw, BASE, {"x": 1})
    assert [p.relative_to(tmp_path) for p in tmp_path.rglob("*")] == [
        Path(digest[:2]),
        Path(digest[:2], f"{digest}.json"),
    ]


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
    # the checksum is the SHA-256 of the canonical JSON of the other four fields
    body = {key: value for key, value in record.items() if key != "checksum"}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    assert record["checksum"] == hashlib.sha256(canonical.encode()).hexdigest()
    assert sorted(record) == ["checksum", "function", "result", "task", "version"]


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
        "no checksum": json.dumps({k: v for k, v in record.items() if k != "checksum"}),
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
        "injected nan", "result emptied", "other task", "other version", "no checksum",
        "extra field", "no result", "result not a dict", "bad float tag", "short float tag",
        "not utf-8", "directory",
    ],
)  # fmt: skip
def test_damaged_file_counts_as_missing(tmp_path, how):
    """Every damaged file is reported (CacheWarning naming the file), recomputed and
    rewritten: before the checksum an edited value or an injected NaN was served on every
    rerun, and a result replaced by {} raised KeyError in the sweep reading it."""
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
    of dead writers on this host, and keeps a live writer's fresh file."""
    cache = ResultCache(tmp_path)
    folder = tmp_path / "ab"
    folder.mkdir()
    host = socket.gethostname().replace(".", "_")
    old = folder / ".elsewhere.1.a.tmp"
    dead = folder / f".{host}.{dead_pid()}.b.tmp"
    live = folder / f".{host}.{os.getpid()}.c.tmp"
    foreign = folder / ".elsewhere.1.d.tmp"  # another host's fresh file: cannot tell
    for path in (old, dead, live, foreign):
        path.write_text("{")
    os.utime(old, (time.time() - STALE_SECONDS - 60,) * 2)
    cached_map(SerialExecutor(), tasks.draw, [{"seed": 1, "size": 2}], cache=cache, progress=False)
    assert sorted(p.name for p in folder.iterdir()) == sorted([live.name, foreign.name])
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
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == [
        f"{cache.key(tasks.draw, BASE)}.json"
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
