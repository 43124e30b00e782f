"""Cost of the region proofs and of verifying the committed certificates.

    python benchmarks/bench_certificates.py

In one process: the light- and heavy-traffic remainder bounds proved on their full
ranges at Λ ∈ {∞, 2}, μ = C = 1 (`qtheory.gated.remainder_regions.remainder_region`,
the ranges of the reproduce claims), each region re-decided by its independent checker
(`qtheory.verify.regions`), and `qtheory.verify.verify` of the committed
`derivations/certificates/`; every time also as a ratio to one certified optimum
(`certified_optimum`, ν = 2, 10 digits) measured in the same run.  Writes
`benchmarks/certificates.json`.
"""

from __future__ import annotations

import json
import platform
import time
from pathlib import Path

import flint
from timing import best_of

from qtheory.gated import GatedQueue
from qtheory.gated.certified import certified_optimum
from qtheory.gated.claims import REMAINDER_RANGES
from qtheory.gated.remainder_regions import remainder_region
from qtheory.verify import verify
from qtheory.verify.regions import check_remainder_region

ROOT = Path(__file__).resolve().parent.parent
CONSTANTS = {"light": "3/2", "heavy": "5/2"}


def seconds(function) -> tuple[float, object]:
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def main() -> None:
    unit = best_of(20, lambda: certified_optimum(GatedQueue("inf", 1, 2, 1), dps=10))
    rows = []
    for regime in ("light", "heavy"):
        low, high = REMAINDER_RANGES[regime, False]
        for arrival in ("inf", "2"):

            def prove_it(regime=regime, arrival=arrival, low=low, high=high):
                return remainder_region(regime, arrival, 1, 1, low, high,
                                        constant=CONSTANTS[regime])  # fmt: skip

            prove, region = seconds(prove_it)
            data = {"regime": regime, "constant": CONSTANTS[regime], "regions": [region.data]}
            check, _ = seconds(lambda data=data: check_remainder_region(data))
            rows.append({
                "regime": regime, "arrival_rate": arrival, "range": [low, high],
                "passed": region.passed, "boxes": region.boxes, "prove_s": prove,
                "check_s": check, "prove_per_optimum": prove / unit,
                "worst_scaled_remainder": region.worst,
            })  # fmt: skip
            print(f"{regime} Lambda={arrival} [{low}, {high}]: {region.boxes} boxes, "
                  f"proved in {prove:.1f} s, checked in {check:.2f} s")  # fmt: skip
    committed, failures = seconds(lambda: verify(ROOT / "derivations" / "certificates"))
    print(f"verify of the committed certificates: {committed:.1f} s, {len(failures)} failures")
    result = {
        "python": platform.python_version(),
        "python_flint": flint.__version__,
        "certified_optimum_s": unit,
        "regions": rows,
        "verify_committed_s": committed,
        "verify_committed_failures": len(failures),
        "verify_per_optimum": committed / unit,
    }
    out = Path(__file__).with_name("certificates.json")
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
