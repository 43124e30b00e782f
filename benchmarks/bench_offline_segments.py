"""The n-class offline optimum with one class below the marginal one: the programme of
segments against the full programme (issue 22, item 5).

Run from the repository root:

    python benchmarks/bench_offline_segments.py [--repeats R] [--quick]

Networks: the report's two sets whose marginal class is in the middle, 3a (lambda =
(0.3, 0.9, 0.6), r = (3, 2, 1)) and 4a (lambda = (0.2, 0.3, 0.7, 0.5), r = (4, 3, 2,
1)), mu = 1, horizon T = 10 from empty (statistics after a warm-up of 1).

- N = 1e3 and 1e4: the programme of segments (``param`` 0, the default) and the full
  programme (``param`` -1) on the same path (PCG64(1)); every statistic must be
  identical (the script stops otherwise); the thread CPU seconds of each, best of R, and
  their ratio.
- N = 1e5: the programme of segments alone (the full one would take some 280 s: events
  x (N + 1) cells at about 1e9 cells per second), best of 1.
- The two-class band at the same N (lambda = (0.6, 0.8), r = (2, 1), same horizon), for
  scale: its events per CPU second and the ratio of the segments' rate to it.

Writes ``benchmarks/offline_segments.json``.  Set OPENBLAS_NUM_THREADS=1 on a small
shared machine.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import time
from pathlib import Path

import numpy as np

from qtheory.sim import _core

NETWORKS = {
    "3a": ((0.3, 0.9, 0.6), (3.0, 2.0, 1.0)),
    "4a": ((0.2, 0.3, 0.7, 0.5), (4.0, 3.0, 2.0, 1.0)),
    "two-class band": ((0.6, 0.8), (2.0, 1.0)),
}
STATS = ("admitted", "rejected", "reward_total", "idle_area", "events")


def run(name: str, servers: int, horizon: float, param: float) -> tuple[float, dict]:
    """Thread CPU seconds and result of one offline run of network ``name``."""
    lambdas, rewards = NETWORKS[name]
    start = time.thread_time()
    out = _core.lossnet_classes_simulate(
        np.random.PCG64(1), "offline", param, servers, list(lambdas), list(rewards), 1.0,
        horizon, 1.0, max_cells=math.inf,
    )  # fmt: skip
    return time.thread_time() - start, out


def best(repeats: int, name: str, servers: int, horizon: float, param: float):
    runs = [run(name, servers, horizon, param) for _ in range(repeats)]
    return min(seconds for seconds, _ in runs), runs[0][1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="N = 1e3 and 1e4 only, T = 3")
    args = parser.parse_args()
    horizon = 3.0 if args.quick else 10.0
    rows = []
    for servers in (10**3, 10**4) if args.quick else (10**3, 10**4, 10**5):
        band_seconds, band = best(args.repeats, "two-class band", servers, horizon, 0.0)
        band_rate = band["events"] / band_seconds
        for name in ("3a", "4a"):
            repeats = args.repeats if servers <= 10**4 else 1
            seconds, segments = best(repeats, name, servers, horizon, 0.0)
            rate = segments["events"] / seconds
            row = {"network": name, "servers": servers, "events": int(segments["events"]),
                   "band_K": int(segments["offline_band"]), "segments_seconds": seconds,
                   "segments_events_per_s": rate, "two_class_band_events_per_s": band_rate,
                   "segments_over_two_class_band": rate / band_rate}  # fmt: skip
            if servers <= 10**4:
                full_seconds, full = best(repeats, name, servers, horizon, -1.0)
                for key in STATS:
                    if not np.array_equal(segments[key], full[key]):
                        raise SystemExit(f"{name} N = {servers}: {key} differs from the full")
                row |= {"full_seconds": full_seconds, "full_over_segments": full_seconds / seconds}
            rows.append(row)
            speedup = (f", full {row['full_seconds']:.3f} s ({row['full_over_segments']:.1f}x)"
                       if "full_seconds" in row else "")  # fmt: skip
            print(
                f"{name} N = {servers:>6}: {row['events']} events, K = {row['band_K']}, "
                f"segments {seconds:.3f} s{speedup}; "
                f"{row['segments_over_two_class_band']:.3f} of the two-class band's rate"
            )
    report = {
        "what": "issue 22, item 5: the n-class offline optimum with one class below the "
        "marginal one, programme of segments vs full programme on the same path",
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
        "horizon": horizon,
        "repeats": args.repeats,
        "timer": "time.thread_time",
        "rows": rows,
        "load_average_1min": os.getloadavg()[0],
    }
    out = Path(__file__).with_name("offline_segments.json")
    out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
