#!/usr/bin/env bash
# Memory check of the C simulator qtheory.sim._core under AddressSanitizer,
# UndefinedBehaviorSanitizer and LeakSanitizer.
#
# Usage (from anywhere; VENV defaults to /work/venv; needs gcc with libasan):
#
#     bash benchmarks/asan_gated_sim.sh
#
# It copies the package and tests/sim to a scratch directory (the working tree's
# in-place extension is not touched), builds the extension there with
# -fsanitize=address,undefined, and runs tests/sim plus the doctests of qtheory/sim
# with libasan preloaded and PYTHONMALLOC=malloc so that every Python and NumPy
# allocation goes through the sanitizer.  The tests cover every error path of
# _core.lindley, the GIL-free run and simulations of every service law; any invalid
# access or undefined behaviour aborts the run.  Then a small workload calling every
# success and error path runs under LeakSanitizer with full stack unwinding.  The
# Python interpreter does not free everything at exit, so that leak report is
# filtered for allocations made from qtheory/sim/src: any such leak fails the script.
# Takes about a minute.  Prints "ASan/UBSan/LSan: clean" on success.
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
if ! python -m pytest -p no:cacheprovider -q tests/sim qtheory/sim; then
    cat "$scratch"/asan.* "$scratch"/ubsan.* 2>/dev/null || true
    exit 1
fi

# 2. Leaks: every path of _core.lindley, with the extension loaded on its own (no SciPy)
#    so that the slow but complete stack unwinding that attributes allocations stays
#    affordable.
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

good = dict(gate=1.0, arrival_rate=2.0, service_kind="exponential", service_rate=1.0,
            service_param=0.0, customers=1000, warmup=10, batches=10)
variants = [{}, {"arrival_rate": math.inf}, {"service_kind": "deterministic"},
            {"service_kind": "erlang", "service_param": 3.0},
            {"service_kind": "hyperexp", "service_param": 4.0},
            {"gate": math.nan}, {"arrival_rate": 0.0}, {"service_rate": math.inf},
            {"service_kind": "weibull"}, {"service_kind": "erlang", "service_param": 0.5},
            {"service_kind": "hyperexp", "service_param": 1.0}, {"service_param": math.nan},
            {"customers": 0}, {"warmup": -1}, {"batches": 1}, {"customers": 5},
            {"customers": 1001}, {"gate": 0.2}, {"arrival_rate": 1e-320}, {"customers": "x"}]


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
PYTHON

if grep -l "qtheory/sim/src" "$scratch"/lsan.* >/dev/null 2>&1; then
    echo "LeakSanitizer: leaks allocated from qtheory/sim/src:"
    grep -h -B2 -A30 "qtheory/sim/src" "$scratch"/lsan.*
    exit 1
fi
records=$(cat "$scratch"/lsan.* 2>/dev/null | grep -c "leak of" || true)
echo "ASan/UBSan/LSan: clean (LeakSanitizer: $records leak records at interpreter exit," \
    "none allocated from qtheory/sim/src)"
