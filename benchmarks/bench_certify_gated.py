"""Cost of certifying the gated optimum, against the float64 and mpmath routes.

    python benchmarks/bench_certify_gated.py

For several queues (ν = 2, ν = 1 + 1e-20, ν = 1e20, Λ = 2 and Λ = 0.5 < μ), in one
process: PoF by float64 (`price_of_forgetting(q)`), by mpmath at 50 and 100 digits
(`price_of_forgetting(q, dps=D)`, no certificate), and certified by Arb
(`certified_optimum(q, dps=D)`: enclosures of σ*, τ*, S_GA*, λ*, S_RR*, PoF of relative
width <= 10^-D, uniqueness proved) plus the independent check of its certificate
(`qtheory.verify.check_certificate`).  Prints the ratios and writes them, with the
widths and certificate sizes, to `benchmarks/certify_gated.json`.
"""

from __future__ import annotations

import json
import platform
from pathlib import Path

import flint
from timing import best_of

from qtheory.gated import GatedQueue, price_of_forgetting
from qtheory.gated.certified import certified_optimum
from qtheory.verify import check_certificate

QUEUES = {
    "nu=2, Lambda=inf": ("inf", "1", "2", "1"),
    "nu=3, Lambda=2": ("2", "1", "3", "1"),
    "nu-1=1e-20, Lambda=inf": ("inf", "1", "1.00000000000000000001", "1"),
    "nu=1e20, Lambda=2": ("2", "1", "1e20", "1"),
    "nu=10, Lambda=0.5 (tau*=0)": ("0.5", "1", "10", "1"),
}
DIGITS = (50, 100)


def measure(name: str, params: tuple[str, ...]) -> dict:
    queue = GatedQueue(*params)
    row: dict = {"queue": name}
    float_queue = queue  # dps=None: float64 result (strings keep nu - 1 exact)
    price_of_forgetting(float_queue)  # warm-up (derive, lambdify)
    row["float64_s"] = best_of(5, lambda: price_of_forgetting(float_queue))
    for dps in DIGITS:
        mp = best_of(3, lambda d=dps: price_of_forgetting(queue, dps=d))
        optimum = certified_optimum(queue, dps=dps)
        cert = best_of(5, lambda d=dps: certified_optimum(queue, dps=d))
        certificate = {"claim": "bench", **optimum.certificate}
        check = best_of(5, lambda c=certificate: check_certificate(c))
        row[f"dps{dps}"] = {
            "mpmath_s": mp,
            "certified_s": cert,
            "check_s": check,
            "certified_over_mpmath": cert / mp,
            "certified_over_float64": cert / row["float64_s"],
            "pof_relative_width": optimum.price_of_forgetting.relative_width,
            "gate_relative_width": optimum.gate.relative_width,
            "precision_bits": optimum.certificate["data"]["precision_bits"],
            "certificate_bytes": len(json.dumps(optimum.certificate)),
        }
    return row


def main() -> None:
    rows = [measure(name, params) for name, params in QUEUES.items()]
    for row in rows:
        print(f"{row['queue']}: float64 {row['float64_s'] * 1e3:.2f} ms")
        for dps in DIGITS:
            r = row[f"dps{dps}"]
            print(
                f"  {dps} digits: mpmath {r['mpmath_s'] * 1e3:8.2f} ms, certified "
                f"{r['certified_s'] * 1e3:6.2f} ms ({r['certified_over_mpmath']:.3f}x mpmath, "
                f"{r['certified_over_float64']:.1f}x float64), check {r['check_s'] * 1e3:.2f} "
                f"ms; PoF width {r['pof_relative_width']:.1e}, {r['certificate_bytes']} bytes"
            )
    out = Path(__file__).with_name("certify_gated.json")
    meta = {"python": platform.python_version(), "python_flint": flint.__version__}
    out.write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
