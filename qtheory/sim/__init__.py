"""Simulators written in C (``qtheory.sim._core``) and their Python wrappers."""

from qtheory.sim.gated import SojournEstimate, simulate_gated, simulate_random_routing
from qtheory.sim.lossnet import (
    ClockPath,
    Comparison,
    JobPath,
    PairedDifference,
    SimulationResult,
    Trace,
    clock_path,
    compare,
    job_path,
    simulate,
    simulate_policies,
    trace,
)

__all__ = [
    "ClockPath",
    "Comparison",
    "JobPath",
    "PairedDifference",
    "SimulationResult",
    "SojournEstimate",
    "Trace",
    "clock_path",
    "compare",
    "job_path",
    "simulate",
    "simulate_gated",
    "simulate_policies",
    "simulate_random_routing",
    "trace",
]
