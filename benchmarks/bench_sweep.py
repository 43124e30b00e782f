"""Sweep throughput: the SSS window sweep (qtheory.walks.window_sweep) run in process,
on the local process pool and on an in-process Dask cluster, and the same sweep served
from the result cache; each as a ratio to the in-process run of the same script.

    python benchmarks/bench_sweep.py

Measured here (2 cores, shared with another job): in process 11.4 s; process pool 8.1 s
(1.4x: each ``map`` starts a forkserver pool whose workers import SciPy, about 2 s);
Dask LocalCluster with 2 worker processes 5.3 s (2.2x, the serial run having competed
with the other job); from the cache 4 ms.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import distributed
from timing import best_of

from qtheory.core.cache import ResultCache
from qtheory.core.executor import SerialExecutor, make_executor
from qtheory.model.lossnet import LossNetwork
from qtheory.walks.lookahead_sweep import window_sweep

NET = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
GRID = {"cs": [2.0, 8.0, 32.0], "servers": [100, 1000, 10_000], "events": 3e6, "reps": 4}


def sweep(executor, cache=None):
    return window_sweep(NET, executor=executor, cache=cache, progress=False, seed=1, **GRID)


def main() -> None:
    serial = best_of(1, lambda: sweep(SerialExecutor()))
    print(f"in process:            {serial:7.2f} s  (12 tasks, 3 c each)")
    with make_executor(workers=2) as pool:
        pooled = best_of(1, lambda: sweep(pool))
    print(f"process pool (2):      {pooled:7.2f} s  speed-up {serial / pooled:5.2f}x")
    with (
        distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True) as cluster,
        distributed.Client(cluster) as client,
        make_executor(client) as dask,
    ):
        on_dask = best_of(1, lambda: sweep(dask))
    print(f"Dask LocalCluster (2): {on_dask:7.2f} s  speed-up {serial / on_dask:5.2f}x")
    with tempfile.TemporaryDirectory() as directory:
        cache = ResultCache(Path(directory))
        sweep(SerialExecutor(), cache)  # fill
        cached = best_of(3, lambda: sweep(SerialExecutor(), cache))
    print(f"from the cache:        {cached:7.3f} s  speed-up {serial / cached:7.0f}x")


if __name__ == "__main__":
    main()
