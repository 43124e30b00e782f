"""Tests of qtheory.core.executor: one ``map`` interface over in-process, process-pool and Dask
backends.

Reference: the task function called directly, ``[fn(task) for task in tasks]`` in this
process, with no executor involved; every backend must return exactly that list, in task
order, whatever order the tasks complete in.  The task functions live in
tests/_executor_tasks.py so that worker processes can import them (see its docstring).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from qtheory.core import executor as executor_module
from qtheory.core.executor import (
    ClusterUnreachableError,
    DaskExecutor,
    ProcessExecutor,
    SerialExecutor,
    check_cluster_address,
    make_executor,
)

sys.path.append(str(Path(__file__).resolve().parent))  # for worker processes, see above
import _executor_tasks as tasks  # noqa: E402

REPLICATIONS = [
    {"servers": servers, "reserve": reserve, "horizon": horizon, "seed": seed}
    for servers, reserve, horizon, seed in [(30, 2, 60.0, 1), (10, 1, 5.0, 2), (50, 3, 40.0, 3)]
]

DRAWS = [{"seed": seed, "size": size} for seed, size in [(1, 10), (2, 1), (3, 1000)]]


@pytest.fixture(scope="module")
def dask_client():
    """A client of an in-process LocalCluster (one worker thread; starts in 0.02 s here)."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
    )
    with cluster, distributed.Client(cluster) as client:
        yield client


@pytest.fixture(params=["serial", "process", "dask"])
def executor(request):
    if request.param == "serial":
        return SerialExecutor()
    if request.param == "process":
        return ProcessExecutor(workers=2)
    return DaskExecutor(request.getfixturevalue("dask_client"))


def test_results_in_task_order_match_direct_calls(executor):
    """The C simulator in workers: the same numbers as in this process, in task order, and
    ``on_result`` sees each (index, result) pair once."""
    expected = [tasks.replication(task) for task in REPLICATIONS]
    completed = []
    results = executor.map(
        tasks.replication,
        REPLICATIONS,
        progress=False,
        on_result=lambda index, result: completed.append((index, result)),
    )
    assert results == expected
    assert sorted(index for index, _ in completed) == [0, 1, 2]
    assert all(result == expected[index] for index, result in completed)


def test_out_of_order_completion_is_reordered(tmp_path):
    """Task 0 waits until task 1 has run (a file task 1 creates), and half a second more,
    so on two workers task 1 completes first; the results still come back in task order.
    (Without the half second, a collector thread woken late on a loaded machine found both
    futures done and as_completed gave them in either order: [0, 1] once in CI.)"""
    signal = str(tmp_path / "task-1-done")
    work = [{"wait_for": signal, "linger": 0.5}, {"create": signal}]
    order = []
    results = ProcessExecutor(workers=2).map(
        tasks.process_id, work, progress=False, on_result=lambda i, _: order.append(i)
    )
    assert order == [1, 0]
    assert [result["waited"] for result in results] == [True, False]
    assert results[0]["pid"] != results[1]["pid"]  # two workers, one per task


def test_process_pool_runs_tasks_in_other_processes():
    results = ProcessExecutor(workers=2).map(tasks.process_id, [{}] * 4, progress=False)
    pids = {result["pid"] for result in results}
    assert os.getpid() not in pids
    assert 1 <= len(pids) <= 2
    assert SerialExecutor().map(tasks.process_id, [{}], progress=False)[0]["pid"] == os.getpid()


@pytest.mark.skipif(
    "fork" not in multiprocessing.get_all_start_methods(), reason="the control needs fork"
)
def test_no_task_inherits_a_lock_held_in_the_parent(monkeypatch):
    """Workers start from a clean interpreter (fork server), not as forks of this process:
    a lock held here while the pool starts is free in the workers.  Control: with the
    'fork' start method the same tasks find the lock taken (inherited in the locked
    state), so this test would catch a switch to fork."""
    probe = [{"timeout": 0.5}] * 2
    with tasks.LOCK:
        clean = ProcessExecutor(workers=2).map(tasks.try_lock, probe, progress=False)
        monkeypatch.setattr(executor_module, "start_method", lambda: "fork")
        forked = ProcessExecutor(workers=2).map(tasks.try_lock, probe, progress=False)
    assert clean == [{"acquired": True}] * 2
    assert forked == [{"acquired": False}] * 2


def test_exception_propagates_with_the_task(executor):
    work = [{"fail": False, "seed": 0}, {"fail": True, "seed": 1}, {"fail": False, "seed": 2}]
    with pytest.raises(ValueError, match="task 1 failed on purpose") as excinfo:
        executor.map(tasks.fail_if, work, progress=False)
    assert excinfo.value.__notes__ == [f"task 1 of 3: {work[1]!r}"]


def test_failure_cancels_tasks_not_started(tmp_path):
    """The first task fails at once; of the 40 slow tasks behind it only those already
    handed to the two workers (a few) run, not all 40 as they would if the pool were shut
    down without cancelling."""
    log = tmp_path / "calls.log"
    work = [
        {"log": str(log), "seed": i, "size": 1, "sleep": 0.05, "fail": i == 0} for i in range(41)
    ]
    with pytest.raises(ValueError, match="task 0 failed on purpose"):
        ProcessExecutor(workers=2).map(tasks.logged, work, progress=False)
    assert len(log.read_text().splitlines()) < 20


def test_empty_task_list(executor):
    assert executor.map(tasks.draw, [], progress=False) == []


def test_progress_bar(capsys):
    work = [{"seed": i, "size": 2} for i in range(3)]
    SerialExecutor().map(tasks.draw, work, desc="sweep")
    assert "sweep: 100%" in capsys.readouterr().err
    SerialExecutor().map(tasks.draw, work, desc="sweep", progress=False)
    assert capsys.readouterr().err == ""


def test_make_executor_backends(dask_client):
    assert isinstance(make_executor(workers=1), SerialExecutor)
    assert make_executor(workers=2).workers == 2
    assert make_executor().workers == executor_module.default_workers()
    borrowed = make_executor(dask_client)
    assert isinstance(borrowed, DaskExecutor)
    borrowed.close()
    assert dask_client.status == "running"  # a client passed in is left open


def test_make_executor_connects_to_an_address(dask_client):
    """A string address makes a new client, closed with the executor."""
    address = dask_client.scheduler.address
    with make_executor(address) as executor:
        assert executor.map(tasks.draw, [{"seed": 5, "size": 2}], progress=False) == [
            tasks.draw({"seed": 5, "size": 2})
        ]
        own_client = executor.client
    assert own_client is not dask_client
    assert own_client.status == "closed"
    assert dask_client.status == "running"


def test_dask_worker_processes():
    """A LocalCluster with a worker process (0.4 s to start, 0.1-0.9 s to stop here)."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    with cluster, distributed.Client(cluster) as client:
        results = DaskExecutor(client).map(tasks.draw, DRAWS, progress=False)
        pids = DaskExecutor(client).map(tasks.process_id, [{}], progress=False)
    assert results == [tasks.draw(task) for task in DRAWS]
    assert pids[0]["pid"] != os.getpid()


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie, exited but not reaped by a PID 1
    that never reaps, counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (children, grandchildren, ...), from /proc."""
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        parents[int(stat.parent.name)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return {child for child in found if alive(child)}


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_workers_exit_when_the_caller_is_killed(tmp_path):
    """SIGKILL the process that made a pool while two workers run 30 s tasks: the workers,
    the fork server and the resource tracker are all gone within a few seconds (before
    the fix they lived until the tasks ended, and idle workers forever)."""
    never = tmp_path / "never-created"
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        import _executor_tasks as tasks
        from qtheory.core.executor import ProcessExecutor
        work = [{{"wait_for": {str(never)!r}}}] * 2
        ProcessExecutor(workers=2).map(tasks.process_id, work, progress=False)
    """)
    parent = subprocess.Popen([sys.executable, "-c", script])
    try:
        deadline = time.monotonic() + 30
        # the resource tracker, the fork server and two workers below it
        while len(children := descendants(parent.pid)) < 4 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(children) >= 4, children
    finally:
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
    deadline = time.monotonic() + 10
    while any(map(alive, children)) and time.monotonic() < deadline:
        time.sleep(0.1)
    survivors = [pid for pid in children if alive(pid)]
    for pid in survivors:  # do not leave them behind when the test fails
        os.kill(pid, signal.SIGKILL)
    assert not survivors


def test_unreachable_cluster_fails_fast_naming_cluster():
    """Nothing listens on port 1: a clear ValueError after the timeout, not a 60 s hang."""
    pytest.importorskip("distributed")
    start = time.monotonic()
    with pytest.raises(ClusterUnreachableError, match="cluster: no Dask scheduler") as info:
        make_executor("tcp://127.0.0.1:1", timeout=1.0)
    assert time.monotonic() - start < 10
    assert isinstance(info.value, ValueError) and info.value.address == "tcp://127.0.0.1:1"
    with pytest.raises(ValueError, match="timeout must be > 0"):
        make_executor("tcp://127.0.0.1:1", timeout=0)


@pytest.mark.parametrize("workers", [0, -1, 1.5, True, "2"])
def test_bad_workers(workers):
    with pytest.raises(ValueError, match="workers must be"):
        make_executor(workers=workers)
    with pytest.raises(ValueError, match="workers must be"):
        ProcessExecutor(workers=workers)


@pytest.mark.parametrize(
    "address",
    [
        "localhost:8786",  # no scheme
        "http://localhost:8786",  # not a distributed transport
        "tcp://localhost",  # no port
        "tcp://:8786",  # no host
        "tcp://localhost:99999",  # port out of range
        "tcp://localhost:port",
        "tcp://",
        "",
    ],
)
def test_bad_cluster_address(address):
    pytest.importorskip("distributed")
    with pytest.raises(ValueError, match="cluster must be a scheduler address like 'tcp://"):
        make_executor(address)


def test_good_cluster_addresses():
    pytest.importorskip("distributed")
    for address in ["tcp://10.0.0.5:8786", "tls://scheduler.example.org:8786", "tcp://[::1]:1"]:
        assert check_cluster_address(address) == address


def test_bad_cluster_argument(dask_client):
    with pytest.raises(ValueError, match="cluster must be None, a scheduler address"):
        make_executor(8786)
    with pytest.raises(ValueError, match="workers applies to the local pool only"):
        make_executor(dask_client, workers=2)
    with pytest.raises(ValueError, match="client must be a distributed.Client"):
        DaskExecutor("tcp://localhost:8786")


def test_missing_distributed_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    with pytest.raises(ImportError, match=r"qtheory\[cluster\]"):
        make_executor("tcp://localhost:8786")
    assert isinstance(make_executor(workers=1), SerialExecutor)  # local runs need nothing
