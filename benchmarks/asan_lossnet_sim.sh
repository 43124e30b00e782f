#!/usr/bin/env bash
# Memory check of the loss-network simulator in qtheory.sim._core (lossnet_simulate,
# lossnet_path) under AddressSanitizer, UndefinedBehaviorSanitizer and LeakSanitizer.
#
# Usage (from anywhere; VENV defaults to /work/venv; needs gcc with libasan):
#
#     bash benchmarks/asan_lossnet_sim.sh
#
# It copies the package and tests/sim to a scratch directory (the working tree's
# in-place extension is not touched), builds the extension there with
# -fsanitize=address,undefined, and runs tests/sim/test_lossnet_sim.py plus the doctests
# of qtheory/sim/lossnet.py with libasan preloaded and PYTHONMALLOC=malloc so that every
# Python and NumPy allocation goes through the sanitizer.  The tests cover every error
# path of _core.lossnet_simulate and _core.lossnet_path, every policy in both
# information models (traces, lookahead ring-buffer growth, the checkpointed offline
# DP) and the GIL-free run; any invalid access or undefined behaviour aborts the run.
# Then a workload calling every success and error path runs under LeakSanitizer with
# full stack unwinding.  The
# Python interpreter does not free everything at exit, so that leak report is
# filtered for allocations made from qtheory/sim/src: any such leak fails the script.
# Takes about 20 seconds.  Prints "ASan/UBSan/LSan: clean" on success.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck disable=SC1091
. "${VENV:-/work/venv}/bin/activate"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

mkdir -p "$scratch/tests"
cp "$repo/setup.py" "$repo/pyproject.toml" "$scratch/"
cp -r "$repo/qtheory" "$scratch/"
cp -r "$repo/tests/sim" "$scratch/tests/"
find "$scratch" \( -name '*.so' -o -name __pycache__ \) -prune -exec rm -rf {} +
cd "$scratch"

flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
if ! CFLAGS="$flags" LDFLAGS="$flags" python setup.py build_ext --inplace >build.log 2>&1; then
    cat build.log
    exit 1
fi

LD_PRELOAD="$(gcc -print-file-name=libasan.so)"
export LD_PRELOAD
export PYTHONMALLOC=malloc

# 1. Invalid accesses and undefined behaviour: the whole test module and the doctests.
#    Sanitizer reports go to files: pytest captures stderr and would swallow them.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:log_path=$scratch/asan"
export UBSAN_OPTIONS="print_stacktrace=1:log_path=$scratch/ubsan"
python -c "import qtheory.sim._core as c, sys; sys.exit(not c.__file__.startswith('$scratch'))"
if ! python -m pytest -p no:cacheprovider -q tests/sim/test_lossnet_sim.py qtheory/sim/lossnet.py; then
    cat "$scratch"/asan.* "$scratch"/ubsan.* 2>/dev/null || true
    exit 1
fi

# 2. Leaks: every path of _core.lossnet_simulate / lossnet_path, with the extension
#    loaded on its own (no SciPy) so that full stack unwinding stays affordable.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0"
export LSAN_OPTIONS="exitcode=0:log_path=$scratch/lsan"
python - <<'PYTHON'
import glob
import importlib.util
import math
import threading

import numpy as np

spec = importlib.util.spec_from_file_location("_core", glob.glob("qtheory/sim/_core*.so")[0])
core = importlib.util.module_from_spec(spec)
spec.loader.exec_module(core)

good = dict(info="clock", policy="threshold", param=2.0, servers=12, lambda_h=0.6,
            lambda_l=0.8, mu=1.0, r_h=2.0, r_l=1.0, horizon=20.0, warmup=2.0)
variants = [{}, {"info": "job"}, {"policy": "pfi"}, {"policy": "sss", "param": 0.2},
            {"policy": "offline"}, {"policy": "pfi", "servers": 400, "horizon": 3.0},
            {"servers": 1}, {"servers": 0}, {"lambda_h": math.nan}, {"mu": -1.0},
            {"r_l": 0.0}, {"horizon": math.inf}, {"warmup": 20.0}, {"info": "x"},
            {"policy": "x"}, {"param": 13.0}, {"policy": "sss", "param": 0.0},
            {"policy": "pfi", "info": "job"}, {"servers": "x"}]


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
print("leak workload done")
PYTHON

if grep -l "qtheory/sim/src" "$scratch"/lsan.* >/dev/null 2>&1; then
    echo "LeakSanitizer: leaks allocated from qtheory/sim/src:"
    grep -h -B2 -A30 "qtheory/sim/src" "$scratch"/lsan.*
    exit 1
fi
records=$(cat "$scratch"/lsan.* 2>/dev/null | grep -c "leak of" || true)
echo "ASan/UBSan/LSan: clean (LeakSanitizer: $records leak records at interpreter exit," \
    "none allocated from qtheory/sim/src)"
