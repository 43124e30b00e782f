"""LeakSanitizer workload for benchmarks/asan_check.sh: every success and error path of
the phase-type arguments of _core.lindley (service_alpha/service_T, gate_alpha/gate_T).

    bash benchmarks/asan_check.sh benchmarks/asan_workload_gated_ph.py \
        tests/sim/test_gated_sim_ph.py

Run from the sanitizer build directory; loads the extension on its own (no SciPy)."""

import glob
import importlib.util
import math

import numpy as np

spec = importlib.util.spec_from_file_location("_core", glob.glob("qtheory/sim/_core*.so")[0])
core = importlib.util.module_from_spec(spec)
spec.loader.exec_module(core)

erlang2 = {"service_alpha": [1.0, 0.0], "service_T": [[-2.0, 2.0], [0.0, -2.0]]}
good = dict(
    gate=1.0, arrival_rate=2.0, service_kind="ph", service_rate=1.0, service_param=0.0,
    customers=1000, warmup=10, batches=10, **erlang2,
)  # fmt: skip
variants = [
    {},
    {"arrival_rate": math.inf},
    {"gate": 0.0, "gate_alpha": [0.3, 0.7], "gate_T": [[-3.0, 1.0], [0.5, -2.0]]},
    {
        "service_kind": "exponential",
        "service_alpha": None,
        "service_T": None,
        "gate_alpha": [1.0],
        "gate_T": [[-1.0]],
    },
    {"service_alpha": np.full(256, 1 / 256), "service_T": -np.eye(256)},
    {"service_alpha": [0.5, 0.4]},
    {"service_alpha": [math.nan, 1.0]},
    {"service_alpha": "x"},
    {"service_alpha": [[1.0, 0.0]]},
    {"service_alpha": np.full(257, 1 / 257), "service_T": -np.eye(257)},
    {"service_alpha": []},
    {"service_T": [[-1.0, 1.0]]},
    {"service_T": [[-1.0, -1.0], [0.0, -1.0]]},
    {"service_T": [[-1.0, 2.0], [0.0, -1.0]]},
    {"service_T": [[0.0, 0.0], [0.0, -1.0]]},
    {"service_T": [[-1.0, 1.0], [1.0, -1.0]]},
    {"service_T": [[-1.0, math.inf], [0.0, -1.0]]},
    {"service_T": [[-1.0, 1.0], [1.0, -1.0 - 1e-9]]},
    {"service_T": None},
    {"service_T": object()},
    {"service_kind": "exponential"},
    {"gate_alpha": [1.0]},
    {"gate_alpha": [1.0], "gate_T": [[1.0]]},
    {"gate_alpha": [1.0, 0.0], "gate_T": [[-1.0, 1.0], [1.0, -1.0]]},
    {"gate": 0.0, "gate_alpha": [1.0], "gate_T": [[-3.0]]},
    {"customers": 1001},
]

bit_generator = np.random.PCG64(0)
for _ in range(50):
    for overrides in variants:
        try:
            core.lindley(bit_generator, **(good | overrides))
        except (ValueError, TypeError):
            pass
print("leak workload done")
