"""Speed and accuracy of phase-type service: the GI/PH/1 ladder-height solver, the optimal
gate, the matrix-analytic engine and the C simulator's phase-type sampler.

Run from the repository root:

    python benchmarks/bench_service.py [--repeats R]

Writes benchmarks/service.json: per Erlang-k service (k = 1, 2, 4, 8, 16, 32) the time of
one ladder-height solve (D/E_k/1, load 2/3) and of one optimal gate (ν = 4, Λ = ∞), and
the Newton steps and residual; the time of an optimal Erlang-m gate (m = 2..64) with
Erlang-4 service; the time of qbd_solve (both methods) on E_m/E_m/1 QBDs
(m = 2, 4, 6, 8: blocks of size m²) and their residuals; the simulator's customers per second for
exponential, Erlang-4 (Gamma sampler) and the same law as a PhaseType (phase-by-phase
sampler), and a PH gate.  Times are the best of R runs, wall clock.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
from pathlib import Path

import numpy as np
from timing import best_of

from qtheory.core.phase_type import erlang
from qtheory.exact.matrix_analytic import qbd_solve
from qtheory.gated import GatedQueue
from qtheory.gated.service import ladder_height, optimal_gate_ph
from qtheory.sim import simulate_gated

OUTPUT = Path(__file__).with_name("service.json")


def bench_ladder(repeats: int) -> list[dict]:
    rows = []
    queue = GatedQueue(math.inf, 1.0, 4.0, 1.0)
    for k in (1, 2, 4, 8, 16, 32):
        law = erlang(k, float(k))
        lh = ladder_height(law, 1.5, math.inf)
        rows.append({
            "phases": k,
            "ladder_seconds": best_of(repeats, lambda law=law: ladder_height(law, 1.5, math.inf)),
            "newton_steps": lh.iterations,
            "residual": lh.residual,
            "optimal_gate_seconds": best_of(
                max(1, repeats // 3), lambda k=k: optimal_gate_ph(queue, f"erlang:{k}")
            ),
        })  # fmt: skip
    return rows


def bench_erlang_gates(repeats: int) -> list[dict]:
    """Optimal Erlang-m gate (mean optimised) with Erlang-4 service, ν = 4, Λ = ∞."""
    queue = GatedQueue(math.inf, 1.0, 4.0, 1.0)
    rows = []
    for m in (2, 8, 32, 64):
        shape = erlang(m, float(m))
        opt = optimal_gate_ph(queue, "erlang:4", gate_shape=shape)
        seconds = best_of(
            repeats, lambda shape=shape: optimal_gate_ph(queue, "erlang:4", gate_shape=shape)
        )
        rows.append({"gate_phases": m, "welfare": opt.welfare, "seconds": seconds})
    return rows


def phph1_blocks(m: int):
    """PH/PH/1 QBD with Erlang-m inter-arrivals (mean 1.5) and Erlang-m service (mean 1)."""
    arrival, service = erlang(m, m / 1.5), erlang(m, float(m))
    Ia, Is = np.eye(m), np.eye(m)
    A0 = np.kron(np.outer(arrival.exit_rates, arrival.alpha), Is)
    A1 = np.kron(arrival.T, Is) + np.kron(Ia, service.T)
    A2 = np.kron(Ia, np.outer(service.exit_rates, service.alpha))
    return A0, A1, A2


def bench_qbd(repeats: int) -> list[dict]:
    rows = []
    for m in (2, 4, 6, 8):
        blocks = phph1_blocks(m)
        for method in ("logarithmic", "cyclic"):
            sol = qbd_solve(*blocks, method=method)
            rows.append({
                "block_size": m * m, "method": method, "iterations": sol.iterations,
                "residual": sol.residual,
                "seconds": best_of(repeats, lambda b=blocks, me=method: qbd_solve(*b, method=me)),
            })  # fmt: skip
    return rows


def bench_simulator(repeats: int) -> list[dict]:
    customers = 2_000_000
    queue = GatedQueue(2.0, 1.0, 1.0, 1.0)
    cases = {
        "exponential service": (1.0, "exponential"),
        "erlang:4 (Gamma sampler)": (1.0, "erlang:4"),
        "Erlang-4 as PhaseType": (1.0, erlang(4, 4.0)),
        "Erlang-4 gate + Exp service": (erlang(4, 4.0), "exponential"),
    }
    rows = []
    for name, (gate, service) in cases.items():
        seconds = best_of(
            repeats,
            lambda g=gate, s=service: simulate_gated(
                queue, g, service=s, customers=customers, batches=20, warmup=0, seed=1
            ),
        )
        rows.append({"case": name, "customers_per_second": customers / seconds})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    result = {
        "machine": platform.machine(),
        "python": platform.python_version(),
        "ladder_height": bench_ladder(args.repeats),
        "erlang_gate_optimum": bench_erlang_gates(max(1, args.repeats // 3)),
        "qbd_solve": bench_qbd(args.repeats),
        "simulator": bench_simulator(args.repeats),
    }
    OUTPUT.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
