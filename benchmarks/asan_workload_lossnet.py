"""LeakSanitizer workload for benchmarks/asan_check.sh: every success and error
path of _core.lossnet_simulate, _core.lossnet_path and _core.lossnet_source (a path
replayed to several runs, and dropped half-drawn).

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
    info="clock",
    policy="threshold",
    param=2.0,
    servers=12,
    lambda_h=0.6,
    lambda_l=0.8,
    mu=1.0,
    r_h=2.0,
    r_l=1.0,
    horizon=20.0,
    warmup=2.0,
)
variants = [
    {},
    {"info": "job"},
    {"policy": "pfi"},
    {"policy": "sss", "param": 0.2},
    {"policy": "offline"},
    {"policy": "pfi", "servers": 400, "horizon": 3.0},
    {"policy": "pfi", "servers": 400, "horizon": 3.0, "lookahead_stats": False},
    {"policy": "sss", "param": 0.2, "lookahead_stats": False},
    # sss deciding by thresholds: windows of about 25 and 100 events over many refills,
    # and of under one event at N = 30 (windows read backward)
    {"policy": "sss", "param": 1e-4, "servers": 100_000, "horizon": 2.0, "lookahead_stats": False},
    {"policy": "sss", "param": 8.3e-4, "servers": 50_000, "horizon": 3.0, "lookahead_stats": False},
    {"policy": "sss", "param": 0.01, "servers": 30, "horizon": 200.0, "lookahead_stats": False},
    # each twin of the refill and of the offline kernels (a cap on the instruction set)
    *(
        {
            "policy": "sss",
            "param": 1e-4,
            "servers": 100_000,
            "horizon": 0.5,
            "lookahead_stats": False,
            "isa": isa,
        }
        for isa in ("generic", "avx2", "avx512")
    ),
    *({"policy": "offline", "servers": 300, "isa": isa} for isa in ("generic", "avx2")),
    {"isa": "sse9"},
    {"servers": 1},
    {"servers": 0},
    {"lambda_h": math.nan},
    {"mu": -1.0},
    {"r_l": 0.0},
    {"horizon": math.inf},
    {"warmup": 20.0},
    {"info": "x"},
    {"policy": "x"},
    {"param": 13.0},
    {"policy": "sss", "param": 0.0},
    {"policy": "pfi", "info": "job"},
    {"servers": "x"},
    {"horizon": 1e300},  # beyond 1e15 expected events
    {"policy": "sss", "param": 1e300},  # window beyond 1e9 expected events
    {"info": "job", "servers": 10**9, "horizon": 1e-6},  # heap grows with the busy count
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
                    core.lossnet_simulate(generator, **(good | overrides), trace=trace)
                except (ValueError, TypeError):
                    pass
    for info in ("clock", "job", "bad"):
        for horizon in (5.0, 1e-9, -1.0):
            try:
                core.lossnet_path(bit_generator, info, 12, 0.6, 0.8, 1.0, horizon)
            except ValueError:
                pass
for _ in range(20):
    source = core.lossnet_source(np.random.PCG64(3), 12, [0.6, 0.8], 1.0)
    for overrides in variants:
        for trace in (False, True):
            try:
                core.lossnet_simulate(source, **(good | overrides), trace=trace)
            except (ValueError, TypeError):
                pass
    for lambdas in ([0.6, 0.8], [0.6, -1.0], [0.6], "x"):
        try:
            core.lossnet_source(bit_generator, 12, lambdas, 1.0)
        except (ValueError, TypeError):
            pass
try:  # checkpoints of 12 TB: refused before the allocator is called
    core.lossnet_simulate(
        bit_generator,
        **(good | {"policy": "offline", "servers": 10**9, "horizon": 1e-3, "warmup": 0.0}),
    )
except MemoryError:
    pass
print("leak workload done")
