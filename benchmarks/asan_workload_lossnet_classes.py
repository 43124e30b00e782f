"""LeakSanitizer workload for benchmarks/asan_check.sh: every success and error path of
_core.lossnet_classes_simulate (the n-class entry of the loss-network kernel).

    bash benchmarks/asan_check.sh benchmarks/asan_workload_lossnet_classes.py \
        tests/sim/test_lossnet_classes.py

Run from the sanitizer build directory; loads the extension on its own (no SciPy) so
that full stack unwinding stays affordable."""

import glob
import importlib.util
import math
import threading

import numpy as np

spec = importlib.util.spec_from_file_location("_core", glob.glob("qtheory/sim/_core*.so")[0])
core = importlib.util.module_from_spec(spec)
spec.loader.exec_module(core)

good = dict(
    policy="threshold",
    param=[0, 1, 4],
    servers=12,
    lambdas=[0.3, 0.9, 0.6],
    rewards=[3.0, 2.0, 1.0],
    mu=1.0,
    horizon=20.0,
    warmup=2.0,
)
variants = [
    {},
    {"param": (0, 0, 0)},
    {"policy": "pfi", "param": 0.0},
    {"policy": "sss", "param": 0.2},
    {"policy": "offline", "param": 0.0},
    {"policy": "offline", "param": -1.0},
    {"policy": "pfi", "param": 0.0, "servers": 400, "horizon": 3.0},
    {"policy": "sss", "param": 0.05, "servers": 400, "horizon": 3.0},
    {"policy": "offline", "param": 0.0, "servers": 400, "horizon": 1.0},
    # the programme of segments: at K = 32, stopped by max_cells, and falling back from
    # K = 32 and 64 to the full programme (a near-critical load above the marginal class)
    {"policy": "offline", "param": 0.0, "servers": 2000, "horizon": 1.0},
    {"policy": "offline", "param": 0.0, "servers": 2000, "horizon": 1.0, "max_cells": 2.5e5},
    {
        "policy": "offline",
        "param": 0.0,
        "servers": 1500,
        "horizon": 2.0,
        "lambdas": [0.4595, 0.4533, 0.2637, 1.6573],
        "rewards": [5.0, 2.375, 1.75, 1.25],
    },
    {"policy": "pfi", "param": 0.0, "lambdas": [0.2, 0.3, 0.7, 0.5], "rewards": [4, 3, 2, 1]},
    {"lambdas": [0.3, 0.9], "param": [0, 1]},
    {"lambdas": [0.3]},
    {"lambdas": [0.1] * 33},
    {"lambdas": [0.3, math.nan, 0.6]},
    {"lambdas": 0.3},
    {"rewards": ["a", 2.0, 1.0]},
    {"rewards": [3.0, 2.0, 2.0]},
    {"servers": 0},
    {"servers": "x"},
    {"mu": -1.0},
    {"horizon": math.inf},
    {"horizon": 1e300},
    {"warmup": 20.0},
    {"policy": "x"},
    {"param": [0, 4, 1]},
    {"param": [0, 1]},
    {"param": [0, 1, 13]},
    {"param": 3},
    {"policy": "sss", "param": 0.0},
    {"policy": "sss", "param": 1e300},
    {"policy": "pfi", "param": "x"},
]


class Fake:
    lock = threading.Lock()
    capsule = None


bit_generator = np.random.PCG64(0)
for _ in range(20):
    for overrides in variants:
        for generator in (bit_generator, Fake(), None):
            for trace in (False, True):
                try:
                    core.lossnet_classes_simulate(generator, **(good | overrides), trace=trace)
                except (ValueError, TypeError):
                    pass
print("leak workload done")
