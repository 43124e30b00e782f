"""Speed of the n-class loss-network simulator (issue 14) against the two-class one.

Run from the repository root:

    python benchmarks/bench_lossnet_classes_sim.py [--repeats R] [--quick]

Both entry points run the same C kernel (the two-class ``lossnet_simulate`` is its
n = 2 case), so the comparison measures what n classes cost: the class of an event is
found by a scan of n cumulative probabilities, PFI keeps one threshold recursion and
one set of walk groups per class 2..n, SSS one prefix count per class 2..n and event.

- Nested trunk reservation at N = 1e4 and 1e6 (horizon: 5e7 events): events per second
  of the two-class entry (lambda = (0.6, 0.8), reserve floor(sqrt N)) and of the n-class
  entry for n = 2 (same network), n = 3 (lambda = (0.3, 0.9, 0.6)) and n = 4
  (lambda = (0.2, 0.3, 0.7, 0.5)), reserves 0, floor(sqrt N), 3 floor(sqrt N), ...
  Interleaved, best of R runs each, per wall second and per CPU second (the latter is
  the kernel's own speed on a loaded machine).  Target (issue 14): >= 3e7 events/s.
- PFI and SSS(W = log N / N) at N = 1e4 (5e6 events): events per second for the same
  networks.
- Offline DP at N = 1e3: seconds for the same path length, for n = 2, 3 and 4, and
  whether the certified band ran (it does when the marginal class is the last one).

Writes ``benchmarks/lossnet_classes_sim.json`` (with the load average: on a shared
machine the absolute rates fall with the load, the ratio to the two-class entry measured
in the same run does not).  Set OPENBLAS_NUM_THREADS=1 on a small shared machine.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import best_of  # noqa: E402

from qtheory.sim import _core  # noqa: E402

NETWORKS = {
    2: ((0.6, 0.8), (2.0, 1.0)),
    3: ((0.3, 0.9, 0.6), (3.0, 2.0, 1.0)),
    4: ((0.2, 0.3, 0.7, 0.5), (4.0, 3.0, 2.0, 1.0)),
}
MU = 1.0


def horizon_for(n_classes: int, servers: int, events: float) -> float:
    lambdas, _ = NETWORKS[n_classes]
    return events / ((sum(lambdas) + MU) * servers)


def run_classes(n_classes, policy, param, servers, horizon, seed=0) -> dict:
    lambdas, rewards = NETWORKS[n_classes]
    return _core.lossnet_classes_simulate(
        np.random.PCG64(seed), policy, param, servers, list(lambdas), list(rewards), MU,
        horizon, 0.0,
    )  # fmt: skip


def run_two(policy, param, servers, horizon, seed=0) -> dict:
    return _core.lossnet_simulate(
        np.random.PCG64(seed), "clock", policy, param, servers, 0.6, 0.8, MU, 2.0, 1.0, horizon,
        0.0,
    )  # fmt: skip


def timed(run) -> tuple[float, float, dict]:
    """Wall and CPU seconds of ``run()`` (one thread runs: the CPU time is the run's own,
    whatever else the machine is doing), and its result."""
    start, cpu = time.perf_counter(), time.process_time()
    out = run()
    return time.perf_counter() - start, time.process_time() - cpu, out


def rates(cases: dict, repeats: int) -> dict:
    """Events per wall second and per CPU second of each case (best of ``repeats``, the
    cases interleaved)."""
    wall = {name: math.inf for name in cases}
    cpu = dict(wall)
    events = {}
    for _ in range(repeats):
        for name, run in cases.items():
            seconds, cpu_seconds, out = timed(run)
            wall[name] = min(wall[name], seconds)
            cpu[name] = min(cpu[name], cpu_seconds)
            events[name] = out["events"]
    return {name: {"events": events[name], "seconds": wall[name],
                   "events_per_s": events[name] / wall[name],
                   "events_per_cpu_s": events[name] / cpu[name]} for name in cases}  # fmt: skip


def reserves(n_classes: int, servers: int) -> list[int]:
    k = math.isqrt(servers)
    return [0] + [min(servers, (2 * j - 1) * k) for j in range(1, n_classes)]


def threshold_cases(servers: int, events: float) -> dict:
    k = math.isqrt(servers)
    horizon = horizon_for(2, servers, events)
    cases = {"two-class entry, n = 2": lambda: run_two("threshold", float(k), servers, horizon)}
    for n in (2, 3, 4):
        horizon = horizon_for(n, servers, events)
        param = [0, k] if n == 2 else reserves(n, servers)
        cases[f"n-class entry, n = {n}"] = lambda n=n, horizon=horizon, param=param: run_classes(
            n, "threshold", param, servers, horizon
        )
    return cases


def lookahead_cases(servers: int, events: float) -> dict:
    window = math.log(servers) / servers
    cases = {}
    for policy, param in (("pfi", 0.0), ("sss", window)):
        cases[f"{policy}, two-class entry"] = lambda policy=policy, param=param: run_two(
            policy, param, servers, horizon_for(2, servers, events)
        )
        for n in (3, 4):
            cases[f"{policy}, n = {n}"] = lambda policy=policy, param=param, n=n: run_classes(
                n, policy, param, servers, horizon_for(n, servers, events)
            )
    return cases


def offline_rows(servers: int, events: float, repeats: int) -> list[dict]:
    rows = []
    for n in (2, 3, 4):
        horizon = horizon_for(n, servers, events)
        seconds = best_of(repeats, lambda n=n, horizon=horizon: run_classes(
            n, "offline", 0.0, servers, horizon))  # fmt: skip
        out = run_classes(n, "offline", 0.0, servers, horizon)
        rows.append({"classes": n, "servers": servers, "events": out["events"],
                     "seconds": seconds, "band_K": out["offline_band"]})  # fmt: skip
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="ten times fewer events")
    args = parser.parse_args()
    scale = 0.1 if args.quick else 1.0
    report = {
        "what": "issue 14: n-class C simulator vs the two-class entry (same kernel)",
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
        "load_average_at_start": os.getloadavg(),
        "repeats": args.repeats,
        "quick": args.quick,
        "threshold": {},
        "lookahead": {},
    }
    for servers in (10**4, 10**6):
        table = rates(threshold_cases(servers, 5e7 * scale), args.repeats)
        report["threshold"][str(servers)] = table
        for name, row in table.items():
            rate, cpu = row["events_per_s"] / 1e6, row["events_per_cpu_s"] / 1e6
            print(f"threshold N = {servers:>7}  {name:<24} {rate:6.1f} M events/s "
                  f"({cpu:.1f} per CPU second)")  # fmt: skip
    table = rates(lookahead_cases(10**4, 5e6 * scale), args.repeats)
    report["lookahead"]["10000"] = table
    for name, row in table.items():
        rate, cpu = row["events_per_s"] / 1e6, row["events_per_cpu_s"] / 1e6
        print(f"lookahead N =   10000  {name:<24} {rate:6.1f} M events/s ({cpu:.1f} per CPU s)")
    report["offline"] = offline_rows(1000, 2e5 * scale, args.repeats)
    for row in report["offline"]:
        print(f"offline N = 1000 n = {row['classes']}: {row['seconds']:.3f} s for "
              f"{row['events']} events, band K = {row['band_K']}")  # fmt: skip
    slowest = min(row["events_per_cpu_s"] for table in report["threshold"].values()
                  for name, row in table.items() if name.startswith("n-class"))  # fmt: skip
    two_class = min(table["two-class entry, n = 2"]["events_per_cpu_s"]
                    for table in report["threshold"].values())  # fmt: skip
    report["threshold_target_events_per_s"] = 3e7
    report["threshold_slowest_n_class_events_per_cpu_s"] = slowest
    report["threshold_slowest_two_class_events_per_cpu_s"] = two_class
    report["load_average_at_end"] = os.getloadavg()
    out = Path(__file__).with_name("lossnet_classes_sim.json")
    out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"slowest n-class trunk reservation: {slowest / 1e6:.1f} M events per CPU second "
          f"(two-class entry: {two_class / 1e6:.1f}); wrote {out}")  # fmt: skip


if __name__ == "__main__":
    main()
