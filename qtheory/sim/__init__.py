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
    trace,
)
from qtheory.sim.lossnet_classes import (
    ClassSimulationResult,
    compare_classes,
    simulate_classes,
    trace_classes,
)

__all__ = [
    "ClassSimulationResult",
    "ClockPath",
    "Comparison",
    "JobPath",
    "PairedDifference",
    "SimulationResult",
    "SojournEstimate",
    "Trace",
    "clock_path",
    "compare",
    "compare_classes",
    "job_path",
    "simulate",
    "simulate_classes",
    "simulate_gated",
    "simulate_random_routing",
    "trace",
    "trace_classes",
]
