"""Task functions for tests/test_executor.py and tests/test_cache.py.

Worker processes (a process pool's or a Dask cluster's) receive a task function by
reference, module name plus qualified name, and import it.  pytest's
``--import-mode=importlib`` gives test modules names that a fresh interpreter cannot import,
so the functions live here and the test modules import this file as the top-level module
``_executor_tasks`` after appending this directory to ``sys.path`` (which spawned and
fork-server children inherit).
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

import numpy as np

# Held by the parent in the fork-safety test; a forked child would inherit it locked.
LOCK = threading.Lock()


def draw(task: dict[str, Any]) -> dict[str, Any]:
    """Summaries of ``task["size"]`` standard normals from ``default_rng(task["seed"])``
    (same task, same result, in any process)."""
    sample = np.random.default_rng(task["seed"]).standard_normal(task["size"])
    return {"seed": task["seed"], "mean": float(sample.mean()), "first": float(sample[0])}


def logged(task: dict[str, Any]) -> dict[str, Any]:
    """:func:`draw`, after appending one line to the file ``task["log"]`` (counts calls in
    any process; short appends are atomic) and sleeping ``task.get("sleep", 0)`` s; raises
    ValueError instead when ``task.get("fail")`` is true."""
    with open(task["log"], "a") as log:
        log.write(f"{task['seed']}\n")
    time.sleep(task.get("sleep", 0))
    return fail_if({"fail": task.get("fail", False), "seed": task["seed"]}) and draw(task)


def fail_if(task: dict[str, Any]) -> dict[str, Any]:
    """Raise ValueError when ``task["fail"]`` is true, else return the task."""
    if task["fail"]:
        raise ValueError(f"task {task['seed']} failed on purpose")
    return dict(task)


def process_id(task: dict[str, Any]) -> dict[str, Any]:
    """The id of the process that ran the task.  If ``task["wait_for"]`` names a file, first
    wait for it to exist (at most 30 s) and then ``task.get("linger", 0)`` seconds more;
    then create the file ``task["create"]`` if named.  Two such tasks force an order of
    completion across processes."""
    if "wait_for" in task:
        deadline = time.monotonic() + 30.0
        while not os.path.exists(task["wait_for"]) and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(task.get("linger", 0.0))
    if "create" in task:
        open(task["create"], "w").close()
    return {"pid": os.getpid(), "waited": "wait_for" in task}


def try_lock(task: dict[str, Any]) -> dict[str, Any]:
    """Whether :data:`LOCK` can be taken within ``task["timeout"]`` seconds."""
    acquired = LOCK.acquire(timeout=task["timeout"])
    if acquired:
        LOCK.release()
    return {"acquired": acquired}


def replication(task: dict[str, Any]) -> dict[str, Any]:
    """One replication of trunk reservation (reserve ``task["reserve"]``) on the default
    loss network (λ_H = 0.6, λ_L = 0.8, μ = 1, r_H = 2, r_L = 1) with ``task["servers"]``
    servers, horizon ``task["horizon"]`` and root seed ``task["seed"]`` (C simulator).

    Imports the simulator here, not at the top, so that workers running only the other,
    trivial tasks start without importing SciPy and the C extension.
    """
    from qtheory.model.lossnet import LossNetwork
    from qtheory.sim import simulate

    net = LossNetwork(task["servers"], 0.6, 0.8, 1.0, 2.0, 1.0)
    result = simulate(
        net, f"threshold:{task['reserve']}", horizon=task["horizon"], seed=task["seed"]
    )
    return {
        "reward_rate": result.reward_rate.mean,
        "mean_idle": result.mean_idle.mean,
        "admitted_l": result.admitted_l,
        "events": result.events,
    }
