"""LeakSanitizer workload for benchmarks/asan_check.sh: every success and error
path of _core.lindley.

Run from the sanitizer build directory; loads the extension on its own (no SciPy)
so that full stack unwinding stays affordable."""

import glob
import importlib.util
import math
import threading

import numpy as np

spec = importlib.util.spec_from_file_location("_core", glob.glob("qtheory/sim/_core*.so")[0])
core = importlib.util.module_from_spec(spec)
spec.loader.exec_module(core)

good = dict(
    gate=1.0,
    arrival_rate=2.0,
    service_kind="exponential",
    service_rate=1.0,
    service_param=0.0,
    customers=1000,
    warmup=10,
    batches=10,
)
variants = [
    {},
    {"arrival_rate": math.inf},
    {"service_kind": "deterministic"},
    {"service_kind": "erlang", "service_param": 3.0},
    {"service_kind": "hyperexp", "service_param": 4.0},
    {"gate": math.nan},
    {"arrival_rate": 0.0},
    {"service_rate": math.inf},
    {"service_kind": "weibull"},
    {"service_kind": "erlang", "service_param": 0.5},
    {"service_kind": "hyperexp", "service_param": 1.0},
    {"service_param": math.nan},
    {"customers": 0},
    {"warmup": -1},
    {"batches": 1},
    {"customers": 5},
    {"customers": 1001},
    {"gate": 0.2},
    {"arrival_rate": 1e-320},
    {"customers": "x"},
]


class Fake:
    lock = threading.Lock()
    capsule = None


bit_generator = np.random.PCG64(0)
for _ in range(50):
    for overrides in variants:
        for generator in (bit_generator, Fake(), None):
            try:
                core.lindley(generator, **(good | overrides))
            except (ValueError, TypeError):
                pass
print("leak workload done")
