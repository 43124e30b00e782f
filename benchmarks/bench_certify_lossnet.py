"""Cost of certifying the online optimum R_on(N) against the float64 and mpmath routes,
and of checking its certificate.

    python benchmarks/bench_certify_lossnet.py

Routes, all measured here on the same network (λ_H = 0.6, λ_L = 0.8, μ = 1, r_H = 2,
r_L = 1):

- float64: :func:`qtheory.lossnet.online_optimum` (every reserve in one O(N) NumPy
  pass, no error bound);
- mpmath: ``online_optimum(net, dps=30)`` (the float64 search, then three reserves
  re-evaluated by an O(N) mpmath recursion, correct to 30 digits but not certified);
- certified: :func:`qtheory.lossnet.certified_online_optimum` at 30 digits
  (enclosures of R_on, the regret, P(full), E[idle], and k* certified optimal among all
  policies, in O(k* + T) Arb operations independent of N);
- check: :func:`qtheory.verify.check_certificate` on that certificate (JSON round trip).

Writes ``benchmarks/certify_lossnet.json`` next to this script.
"""

from __future__ import annotations

import json
import platform
from pathlib import Path

from timing import best_of

from qtheory.lossnet import LossNetwork, certified_online_optimum, online_optimum
from qtheory.verify import check_certificate

DPS = 30
SIZES = (10**4, 10**6)


def main() -> None:
    base = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    rows = []
    for n in SIZES:
        net = base.with_servers(n)
        float_time = best_of(5, lambda: online_optimum(net))  # noqa: B023
        mp_time = best_of(1 if n > 10**5 else 3, lambda: online_optimum(net, dps=DPS))  # noqa: B023
        certified = certified_online_optimum(net, dps=DPS)
        certify_time = best_of(5, lambda: certified_online_optimum(net, dps=DPS))  # noqa: B023
        certificate = json.loads(json.dumps({"claim": "bench", **certified.certificate}))
        check_time = best_of(5, lambda: check_certificate(certificate))  # noqa: B023
        row = {
            "servers": n,
            "reserve": certified.reserve,
            "float64_s": float_time,
            "mpmath_dps30_s": mp_time,
            "certified_dps30_s": certify_time,
            "check_s": check_time,
            "certified_over_float64": certify_time / float_time,
            "certified_over_mpmath": certify_time / mp_time,
            "online_relative_width": certified.online.relative_width,
            "regret_relative_width": certified.regret.relative_width,
            "certificate_bytes": len(json.dumps(certificate)),
        }
        rows.append(row)
        print(
            f"N = {n:>9,}: k* = {row['reserve']}, float64 {float_time * 1e3:8.2f} ms, "
            f"mpmath {mp_time * 1e3:9.1f} ms, certified {certify_time * 1e3:6.2f} ms, "
            f"check {check_time * 1e3:6.2f} ms; certified/float64 "
            f"{row['certified_over_float64']:.3g}, certified/mpmath "
            f"{row['certified_over_mpmath']:.3g}; widths {row['online_relative_width']:.1e} "
            f"(R_on), {row['regret_relative_width']:.1e} (regret); certificate "
            f"{row['certificate_bytes']} bytes"
        )
    out = Path(__file__).with_name("certify_lossnet.json")
    record = {
        "what": "certified online optimum vs float64 and mpmath routes",
        "dps": DPS,
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
        "rows": rows,
    }
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
