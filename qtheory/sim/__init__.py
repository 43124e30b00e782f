"""Simulators written in C (``qtheory.sim._core``) and their Python wrappers."""

from qtheory.sim.gated import SojournEstimate, simulate_gated, simulate_random_routing

__all__ = ["SojournEstimate", "simulate_gated", "simulate_random_routing"]
