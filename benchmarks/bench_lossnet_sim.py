"""Speed of the C loss-network simulator: near the limit of its random numbers, and
against pure NumPy/Python baselines.

Run from the repository root:

    python benchmarks/bench_lossnet_sim.py [--repeats R] [--quick] [--limit-only]

Model: lambda_H = 0.6, lambda_L = 0.8, mu = 1, r_H = 2, r_L = 1 (overloaded).

- Issue 22, item 5 ("simulator near the limit"), first and written to
  ``benchmarks/lossnet_sim.json`` under "limit": at N = 1e4 and 1e6, the events/s of
  trunk reservation (k = floor(sqrt N) + 1), PFI and SSS(W = log N / N) (each with its
  look-ahead statistics, and deciding only: ``lookahead_stats=False``) and the offline
  optimum (certified band), and the PCG64 ceiling: NumPy drawing the numbers trunk reservation
  draws per event (one standard exponential and one uniform double) in bulk
  (``Generator.standard_exponential`` and ``Generator.random`` into preallocated blocks
  of 2^16).  Reported as ratios measured in the same process, interleaved, best of R:
  TR / ceiling, PFI / TR (both), SSS / TR (both), offline / TR, against the targets
  0.6, 0.7, 0.7 and 0.5, and each policy's events/s at the two N (flat in N: their
  ratio near 1).  Each rate is of the steady state: (events of a run to T0 + T minus
  those of a run to T0) / (the difference of their times), T0 = 2 (the fill-up from
  empty takes about ln(1.4 / 0.4) = 1.25), T = about 2e7 events (4e6 with --quick).
  Times are the thread's CPU time (time.thread_time: the C code runs on the calling
  thread), so other processes on a shared machine slow the ratios less than wall time
  would.  The JSON's "docs" holds the rows of the speed table in docs/loss-network.md
  ("How fast the C simulator runs"), which tests/test_docs.py checks the page quotes.

- Trunk reservation (k = ceil(sqrt N)) at N = 1e2, 1e4, 1e6: the C clock model (events:
  H, L and potential departures at total rate N (lambda_H + lambda_L + mu)) against a
  Gillespie simulation of the same policy written with NumPy (random numbers drawn in
  vectorised blocks, the state-dependent loop in Python; events: admitted arrivals and
  departures at rate ~ 2 mu b).  The two count events differently, so the ratio is
  reported per unit of SIMULATED TIME: (baseline seconds per time unit) / (C seconds per
  time unit).  Events per second of each are reported too.
- PFI and SSS(W = log N / N) at N = 1e2, 1e4: the C lookahead against the same policy
  in Python over a NumPy-generated clock stream (the literal reference of the tests), on
  the same horizon (which includes the fill-up from empty; the mean lookahead is
  reported after a warm-up of 1.5), same ratio.
- Offline DP: the C DP against a NumPy DP (one vectorised step per event over the
  N + 1 busy counts), ratio of wall times on the same path length.
- Issue 12: the certified banded offline programme against the full one on the SAME
  path (N = 1e3, 1e4, 1e5; same seed, C layer's param 0 vs -1), checking that every
  statistic is identical and reporting full seconds / banded seconds; written to
  ``benchmarks/lossnet_sim.json`` under "offline" (PFI's ratio to trunk reservation,
  measured here for issue 12, is now part of "limit").
Reported: best of R runs; the JSON also records the 1-minute load average before and
after the run ("load_average_1min").  Set OPENBLAS_NUM_THREADS=1 on a small shared machine: idle
OpenBLAS threads from the SciPy import otherwise compete for the cores.
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

from qtheory.model.lossnet import LossNetwork  # noqa: E402
from qtheory.sim import _core, simulate  # noqa: E402

BASE = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)
BLOCK = 1 << 16

#: Issue 22, item 5: the targets of the ratios reported under "limit".  PFI and SSS are
#: measured twice: with their look-ahead statistics (the default) and deciding only
#: (``lookahead_stats=False``, as the decomposition sweeps run them).
TARGETS = {"tr_over_ceiling": 0.6, "pfi_over_tr": 0.7, "pfi_decisions_over_tr": 0.7,
           "sss_over_tr": 0.7, "sss_decisions_over_tr": 0.7,
           "offline_over_tr": 0.5}  # fmt: skip
FILL_UP = 2.0  # T0 of the steady-state rates (time units)


def machine() -> str:
    """The machine as the record names it: cores, architecture, whether the processor
    has AVX-512 (the C kernels' widest twins), Python and NumPy."""
    flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    avx512 = "with" if " avx512f" in flags else "without"
    return (f"{os.cpu_count()} cores, {platform.machine()} {avx512} AVX-512, "
            f"Python {platform.python_version()}, NumPy {np.__version__}")  # fmt: skip


def ceiling_rate(count: int) -> float:
    """Pairs (standard exponential, uniform double) per CPU second that NumPy draws in
    bulk from PCG64: the numbers trunk reservation draws per event."""
    gen = np.random.Generator(np.random.PCG64(1))
    exps, uniforms = np.empty(BLOCK), np.empty(BLOCK)
    blocks = max(count // BLOCK, 1)
    start = time.thread_time()
    for _ in range(blocks):
        gen.standard_exponential(out=exps)
        gen.random(out=uniforms)
    return blocks * BLOCK / (time.thread_time() - start)


def limit_run(
    net: LossNetwork, policy: str, param: float, horizon: float
) -> tuple[int, float, dict]:
    """One C run from empty to ``horizon`` on PCG64(1): (events, CPU seconds, stats);
    ``"pfi_decisions"`` and ``"sss_decisions"`` run without look-ahead statistics."""
    kernel, _, decisions = policy.partition("_")
    start = time.thread_time()
    out = _core.lossnet_simulate(
        np.random.PCG64(1), "clock", kernel, param, net.servers, net.lambda_h, net.lambda_l,
        net.mu, net.r_h, net.r_l, horizon, min(FILL_UP, horizon / 2),
        lookahead_stats=not decisions,
    )  # fmt: skip
    return out["events"], time.thread_time() - start, out


def near_the_limit(events: float, repeats: int) -> dict:
    """Issue 22, item 5: steady-state events/s of every policy and the PCG64 ceiling at
    N = 1e4 and 1e6, as ratios measured in this process (see the module docstring)."""
    rows = []
    for n in (10_000, 1_000_000):
        net = BASE.with_servers(n)
        span = events / net.event_rate
        window = math.log(n) / n
        policies = {"threshold": float(math.isqrt(n) + 1), "pfi": 0.0, "pfi_decisions": 0.0,
                    "sss": window, "sss_decisions": window, "offline": 0.0}  # fmt: skip
        best = {name: [math.inf, math.inf] for name in policies}  # seconds to T0, T0 + T
        counted, band = {}, None
        ceiling = 0.0
        for _ in range(repeats):  # interleaved, so that a slow spell hits every policy
            ceiling = max(ceiling, ceiling_rate(int(events)), ceiling_rate(int(events)))
            for name, param in policies.items():
                for i, horizon in enumerate((FILL_UP, FILL_UP + span)):
                    count, seconds, out = limit_run(net, name, param, horizon)
                    best[name][i] = min(best[name][i], seconds)
                    counted[name, i] = count
                    if name == "offline":
                        band = out["offline_band"]
        rate = {name: (counted[name, 1] - counted[name, 0]) / (best[name][1] - best[name][0])
                for name in policies}  # fmt: skip
        tr = rate["threshold"]
        row = {
            "servers": n,
            "steady_events": counted["threshold", 1] - counted["threshold", 0],
            "ceiling_pairs_per_s": ceiling,
            "events_per_s": rate,
            "offline_band_K": band,
            "tr_over_ceiling": tr / ceiling,
            "pfi_over_tr": rate["pfi"] / tr,
            "pfi_decisions_over_tr": rate["pfi_decisions"] / tr,
            "sss_over_tr": rate["sss"] / tr,
            "sss_decisions_over_tr": rate["sss_decisions"] / tr,
            "offline_over_tr": rate["offline"] / tr,
        }
        print(
            f"N={n:<9g} ceiling {ceiling / 1e6:6.1f} M pairs/s; M events/s: "
            + ", ".join(f"{name} {value / 1e6:.1f}" for name, value in rate.items())
        )
        print("    " + ", ".join(f"{key} {row[key]:.2f} (target {target})"
                                 for key, target in TARGETS.items()))  # fmt: skip
        rows.append(row)
    flat = {name: rows[1]["events_per_s"][name] / rows[0]["events_per_s"][name]
            for name in rows[0]["events_per_s"]}  # fmt: skip
    print(
        "events/s at N = 1e6 over N = 1e4: "
        + ", ".join(f"{name} {value:.2f}" for name, value in flat.items())
    )
    met = {key: all(row[key] >= target for row in rows) for key, target in TARGETS.items()}
    return {"rows": rows, "flat_1e6_over_1e4": flat, "targets": TARGETS, "met": met,
            "timer": "time.thread_time"}  # fmt: skip


#: The rows of the table in docs/loss-network.md ("How fast the C simulator runs"):
#: (label, the events/s key, the ratio key, what the ratio is of).
DOCS_ROWS = (
    ("trunk reservation", "threshold", "tr_over_ceiling", "the PCG64 ceiling"),
    ("PFI", "pfi", "pfi_over_tr", "trunk reservation"),
    ("PFI, deciding only", "pfi_decisions", "pfi_decisions_over_tr", "trunk reservation"),
    ("SSS(log N / N)", "sss", "sss_over_tr", "trunk reservation"),
    ("SSS(log N / N), deciding only", "sss_decisions", "sss_decisions_over_tr",
     "trunk reservation"),
    ("offline optimum, band K = {band}", "offline", "offline_over_tr", "trunk reservation"),
)  # fmt: skip


def docs_table(record: dict) -> dict[str, str]:
    """The lines of the speed section of docs/loss-network.md, from the record this
    script writes (tests/test_docs.py checks that the page has them, the table's rows in
    order): how the rates were measured, M events/s at N = 1e4 and 1e6 with the ratio at
    each and its target, and how much the rates move between the two N."""
    limit = record["limit"]
    small, large = limit["rows"]
    flat = limit["flat_1e6_over_1e4"].values()
    lines = {
        "run": f"in thread CPU time, best of {record['repeats']} runs (the ceiling: best of "
        f"{2 * record['repeats']}), on {record['machine']}",
        "events": f"a run about {small['steady_events'] / 1e7:.0f} × 10⁷ events longer",
        "ceiling": (f"| PCG64 ceiling (pairs/s) | {small['ceiling_pairs_per_s'] / 1e6:.1f} "
                    f"| {large['ceiling_pairs_per_s'] / 1e6:.1f} | | |"),
    }  # fmt: skip
    for label, rate, ratio, of in DOCS_ROWS:
        lines[rate] = (
            f"| {label.format(band=small['offline_band_K'])} "
            f"| {small['events_per_s'][rate] / 1e6:.1f} "
            f"| {large['events_per_s'][rate] / 1e6:.1f} "
            f"| {small[ratio]:.2f} / {large[ratio]:.2f} of {of} | {limit['targets'][ratio]} |"
        )
    lines["flat"] = f"{min(flat):.2f} to {max(flat):.2f} times"
    return lines


def gillespie_threshold(net: LossNetwork, reserve: int, horizon: float, seed: int) -> int:
    """Trunk reservation by a NumPy-drawn Gillespie simulation; returns the number of
    events (the reward is accumulated as the C code does)."""
    rng = np.random.default_rng(seed)
    n = net.servers
    arrival_h, arrival_l = net.arrival_rate_h, net.arrival_rate_l
    p_h = arrival_h / (arrival_h + arrival_l)
    t, busy, reward, events = 0.0, 0, 0.0, 0
    while True:
        exps = rng.standard_exponential(BLOCK).tolist()
        us = rng.random(BLOCK).tolist()
        for e, u in zip(exps, us, strict=True):
            up = arrival_h + arrival_l if busy < n - reserve else (arrival_h if busy < n else 0.0)
            down = net.mu * busy
            total = up + down
            t += e / total
            if t > horizon:
                return events
            events += 1
            if u * total < up:
                busy += 1
                # the admitted arrival is H with its share of the admissible stream
                if busy <= n - reserve and u * total >= p_h * up:
                    reward += net.r_l
                else:
                    reward += net.r_h
            else:
                busy -= 1


def numpy_clock_stream(net: LossNetwork, horizon: float, seed: int):
    rng = np.random.default_rng(seed)
    rate = net.servers * (net.lambda_h + net.lambda_l + net.mu)
    count = int(rate * horizon * 1.2 + 1000)
    times = np.cumsum(rng.standard_exponential(count) / rate)
    u = rng.random(count)
    total = net.lambda_h + net.lambda_l + net.mu
    codes = np.where(
        u < net.lambda_h / total,
        -1,
        np.where(u < (net.lambda_h + net.lambda_l) / total, -2, 0),
    )
    slots = rng.integers(0, net.servers, count)
    codes = np.where(codes == 0, slots, codes)
    return times.tolist(), codes.tolist()


def python_lookahead(net: LossNetwork, policy: str, window: float, horizon: float, seed: int):
    """PFI or SSS by the literal Python reference over a NumPy-generated clock stream."""
    times, codes = numpy_clock_stream(net, horizon, seed)
    n, target = net.servers, math.isqrt(net.servers)
    busy, reward, i = 0, 0.0, 0
    while times[i] <= horizon:
        code = codes[i]
        if code == -1:
            if busy < n:
                busy += 1
                reward += net.r_h
        elif code == -2:
            h, ok, m = n - busy - 1, None, i + 1
            if h < 1:
                ok = False
            elif policy == "pfi" and h >= target:
                ok = True
            while ok is None:
                if policy == "sss" and times[m] > times[i] + window:
                    ok = True
                    break
                c = codes[m]
                m += 1
                if c == -1:
                    h -= 1
                elif c >= 0 and c < n - h:
                    h += 1
                if h == 0:
                    ok = False
                elif policy == "pfi" and h >= target:
                    ok = True
            if ok:
                busy += 1
                reward += net.r_l
        elif code < busy:
            busy -= 1
        i += 1
    return reward / horizon


def numpy_offline(net: LossNetwork, horizon: float, seed: int) -> float:
    """Backward DP with one vectorised NumPy step per event (value only)."""
    times, codes = numpy_clock_stream(net, horizon, seed)
    events = [c for t, c in zip(times, codes, strict=True) if t <= horizon]
    v = np.zeros(net.servers + 1)
    for c in reversed(events):
        if c < 0:
            r = net.r_h if c == -1 else net.r_l
            v[:-1] = np.maximum(v[:-1], r + v[1:])
        else:
            v[c + 1 :] = v[c:-1].copy()
    return float(v[0])


def row(label: str, c_seconds: float, c_events: int, c_time: float, base_seconds: float,
        base_events: int | None, base_time: float) -> None:  # fmt: skip
    c_per_time = c_seconds / c_time
    base_per_time = base_seconds / base_time
    base_rate = f"{base_events / base_seconds / 1e6:9.2f}" if base_events else "        -"
    print(
        f"{label:<28} {c_events / c_seconds / 1e6:9.2f} {base_rate} "
        f"{base_per_time / c_per_time:9.1f}x"
    )


def core_run(net: LossNetwork, policy: str, param: float, horizon: float, warmup: float,
             seed: int) -> tuple[dict, float]:  # fmt: skip
    """One C run on PCG64(seed): (its statistics, wall seconds)."""
    start = time.perf_counter()
    out = _core.lossnet_simulate(
        np.random.PCG64(seed), "clock", policy, param, net.servers, net.lambda_h,
        net.lambda_l, net.mu, net.r_h, net.r_l, horizon, warmup,
    )  # fmt: skip
    return out, time.perf_counter() - start


def banded_vs_full(scale: float, repeats: int) -> list[dict]:
    """The certified band (param 0) and the full programme (param -1) on the same path.
    Horizons: 2.4e5 events for N <= 1e4 (x scale, so 2.4e9 cells of the full programme at
    N = 1e4), 1 time unit at N = 1e5 (2.4e10 cells, one to two minutes; 0.3 with --quick),
    which covers the fill-up from empty."""
    rows = []
    for n, horizon in ((1000, 100.0 * scale), (10_000, 10.0 * scale),
                       (100_000, 1.0 if scale == 1.0 else 0.3)):  # fmt: skip
        net = BASE.with_servers(n)
        warmup = horizon / 5
        band = min(
            (core_run(net, "offline", 0.0, horizon, warmup, 1) for _ in range(repeats)),
            key=lambda run: run[1],
        )
        full = min(
            (core_run(net, "offline", -1.0, horizon, warmup, 1)
             for _ in range(repeats if n <= 10_000 else 1)),
            key=lambda run: run[1],
        )  # fmt: skip
        same = all(band[0][k] == full[0][k] for k in full[0] if k != "offline_band")
        row = {
            "servers": n,
            "horizon": horizon,
            "events": band[0]["events"],
            "band_K": band[0]["offline_band"],
            "banded_s": band[1],
            "full_s": full[1],
            "full_over_banded": full[1] / band[1],
            "identical": same,
        }
        print(f"offline N={n:<7g} events {row['events']:>9}  band K={row['band_K']:<3} "
              f"{band[1]:8.3f} s  full {full[1]:8.3f} s  ratio {row['full_over_banded']:7.1f}x"
              f"  identical {same}")  # fmt: skip
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="shorter runs")
    parser.add_argument(
        "--limit-only", action="store_true", help="only the issue 22 ratios (written to JSON)"
    )
    parser.add_argument(
        "--json-only",
        action="store_true",
        help="only the measurements written to JSON (issue 22 ratios, issue 12 band vs full)",
    )
    args = parser.parse_args()
    scale = 0.1 if args.quick else 1.0
    load_before = os.getloadavg()
    record = {
        "what": "issue 22, item 5: events/s of every policy as ratios measured in one run "
        "(TR / PCG64 ceiling, PFI / TR, SSS / TR, offline band / TR) at N = 1e4 and 1e6; "
        "issue 12: certified banded offline DP vs full DP on the same path",
        "machine": machine(),
        "repeats": args.repeats,
        "quick": args.quick,
        "limit": near_the_limit(4e6 if args.quick else 2e7, args.repeats),
    }
    record["docs"] = docs_table(record)
    if not args.limit_only:
        record["offline"] = banded_vs_full(scale, args.repeats)
    # the 1-minute load average before and after: the ratios are of CPU time, but a busy
    # machine (shared caches and memory) still moves them by 10-20%
    record["load_average_1min"] = [round(load_before[0], 2), round(os.getloadavg()[0], 2)]
    out = Path(__file__).with_name("lossnet_sim.json")
    out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {out}")
    if args.limit_only or args.json_only:
        return
    print(f"{'policy / N':<28} {'C Mev/s':>9} {'base Mev/s':>9} {'ratio':>10}  (per sim. time)")

    for n in (100, 10_000, 1_000_000):
        net = BASE.with_servers(n)
        k = math.isqrt(n) + 1
        horizon = 5e7 * scale / (2.4 * n)
        result = {}

        def c_run(net=net, k=k, horizon=horizon, result=result):
            result["res"] = simulate(net, f"threshold:{k}", horizon=horizon, seed=1)

        c_seconds = best_of(args.repeats, c_run)
        base_horizon = horizon / 50
        counted = {}

        def base_run(net=net, k=k, h=base_horizon, counted=counted):
            counted["events"] = gillespie_threshold(net, k, h, 2)

        base_seconds = best_of(1, base_run)
        row(f"threshold:{k}  N={n:g}", c_seconds, result["res"].events, horizon,
            base_seconds, counted["events"], base_horizon)  # fmt: skip

    for n, horizon in ((100, 200.0), (10_000, 2.5)):
        net = BASE.with_servers(n)
        window = math.log(n) / n
        for policy in ("pfi", f"sss:{window:.6g}"):
            result = {}

            def c_run(net=net, policy=policy, horizon=horizon, result=result):
                result["res"] = simulate(net, policy, horizon=horizon, warmup=1.5, seed=1)

            c_seconds = best_of(args.repeats, c_run)
            name = policy.partition(":")[0]
            base_seconds = best_of(1, lambda net=net, name=name, w=window, h=horizon * scale: (
                python_lookahead(net, name, w, h, 2)))  # fmt: skip
            res = result["res"]
            row(f"{policy}  N={n:g}", c_seconds, res.events, horizon,
                base_seconds, None, horizon * scale)  # fmt: skip
            print(f"    mean lookahead after warm-up: {res.mean_lookahead:.1f} events, "
                  f"{res.mean_lookahead_time:.3g} time units")  # fmt: skip

    for n in (100, 1000):
        net = BASE.with_servers(n)
        horizon = 2e8 * scale / (2.4 * n * n)
        result = {}

        def c_run(net=net, horizon=horizon, result=result):
            result["res"] = simulate(net, "offline", horizon=horizon, seed=1)

        c_seconds = best_of(args.repeats, c_run)
        base_seconds = best_of(1, lambda net=net, h=horizon / 10: numpy_offline(net, h, 2))
        res = result["res"]
        row(f"offline  N={n:g}", c_seconds, res.events, horizon, base_seconds, None, horizon / 10)
        print(f"    DP cells per second: {res.events * (n + 1) / c_seconds / 1e6:.0f} M")


if __name__ == "__main__":
    main()
