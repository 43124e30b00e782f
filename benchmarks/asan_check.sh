#!/usr/bin/env bash
# Memory check of the C extension qtheory.sim._core under AddressSanitizer,
# UndefinedBehaviorSanitizer and LeakSanitizer.
#
#     bash benchmarks/asan_check.sh WORKLOAD.py TEST_PATH...
#     bash benchmarks/asan_check.sh benchmarks/asan_workload_gated.py tests/sim/test_gated_sim.py qtheory/sim/gated.py
#     bash benchmarks/asan_check.sh benchmarks/asan_workload_lossnet.py tests/sim/test_lossnet_sim.py qtheory/sim/lossnet.py
#
# Copies the package to a scratch directory (the working tree's .so is untouched),
# builds the extension with -fsanitize=address,undefined, and runs the given tests and
# doctests with libasan preloaded and PYTHONMALLOC=malloc, so that every Python and NumPy
# allocation goes through the sanitizer; any invalid access or undefined behaviour
# aborts the run.  Then WORKLOAD.py, which should call every success and error path of
# the extension, runs under LeakSanitizer with full stack unwinding; a leak allocated
# from qtheory/sim/src fails the check (CPython's own records at exit are counted only).
# Prints "ASan/UBSan/LSan: clean" on success.  Needs gcc with libasan.
set -euo pipefail

workload="$(realpath "$1")"
shift
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck disable=SC1091
. "${VENV:-$repo/.venv}/bin/activate"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

mkdir -p "$scratch/tests"
cp "$repo/setup.py" "$scratch/"
cp -r "$repo/qtheory" "$scratch/"
cp -r "$repo/tests/sim" "$repo/tests/conftest.py" "$scratch/tests/"
find "$scratch" \( -name '*.so' -o -name __pycache__ \) -prune -exec rm -rf {} +
cd "$scratch"

# Build before pyproject.toml is there: an older setuptools in the venv rejects its
# PEP 639 license field; the tests then need it for their pytest settings.
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
if ! CFLAGS="$flags" LDFLAGS="$flags" python setup.py build_ext --inplace >build.log 2>&1; then
    cat build.log
    exit 1
fi
cp "$repo/pyproject.toml" "$scratch/"

LD_PRELOAD="$(gcc -print-file-name=libasan.so)"
export LD_PRELOAD
export PYTHONMALLOC=malloc

# 1. Invalid accesses and undefined behaviour.  Sanitizer reports go to files: pytest
#    captures stderr and would swallow them.
export ASAN_OPTIONS="detect_leaks=0:abort_on_error=1:log_path=$scratch/asan"
export UBSAN_OPTIONS="print_stacktrace=1:log_path=$scratch/ubsan"
python -c "import qtheory.sim._core as c, sys; sys.exit(not c.__file__.startswith('$scratch'))"
if ! python -m pytest -p no:cacheprovider -q "$@"; then
    cat "$scratch"/asan.* "$scratch"/ubsan.* 2>/dev/null || true
    exit 1
fi

# 2. Leaks.
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:fast_unwind_on_malloc=0"
export LSAN_OPTIONS="exitcode=0:log_path=$scratch/lsan"
python "$workload"

if grep -l "qtheory/sim/src" "$scratch"/lsan.* >/dev/null 2>&1; then
    echo "LeakSanitizer: leaks allocated from qtheory/sim/src:"
    grep -h -B2 -A30 "qtheory/sim/src" "$scratch"/lsan.*
    exit 1
fi
records=$(cat "$scratch"/lsan.* 2>/dev/null | grep -c "leak of" || true)
echo "ASan/UBSan/LSan: clean (LeakSanitizer: $records leak records at interpreter exit," \
    "none allocated from qtheory/sim/src)"
