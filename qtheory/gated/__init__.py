"""Model 1: memory-based (gated) admission to an unobservable M/M/1 queue.

Source: Hassin and Ravner, "Using memory to control admission to unobservable queues",
arXiv:2606.02464.

>>> from qtheory.gated import GatedQueue, optimal_gate, price_of_forgetting
>>> q = GatedQueue(arrival_rate=float("inf"), service_rate=1.0, reward=2.0, cost=1.0)
>>> round(optimal_gate(q).gate, 6), round(price_of_forgetting(q), 6)
(2.063581, 2.176128)

Certified: enclosures of relative width <= 10^-dps, the optimum proved unique.

>>> from qtheory.gated import certified_optimum
>>> pof = certified_optimum(q, dps=30).price_of_forgetting
>>> pof.lower[:14], pof.relative_width < 1e-30
('2.176128465232', True)
"""

from qtheory.core.lazy import lazy_package

#: Every public name -> its module, imported on first use (PEP 562), so that importing a
#: submodule (the command line's, say) loads neither NumPy nor mpmath nor Sympy.
_LAZY = {
    "GatedQueue": "qtheory.model.gated",
    "RenewalStreams": "renewal",
    "log_root": "gim1_root",
    "root": "gim1_root",
    "root_enclosure": "gim1_root",
    "GateOptimum": "optima",
    "RoutingOptimum": "optima",
    "optimal_gate": "welfare",
    "optimal_routing": "welfare",
    "price_of_forgetting": "welfare",
    "welfare_ga": "welfare",
    "welfare_rr": "welfare",
    "BeliefThreshold": "belief",
    "FullMemoryBracket": "history",
    "GapGate": "gap_gates",
    "ObservedRelaxation": "relaxation",
    "belief_threshold_welfare": "belief",
    "belief_update": "belief",
    "full_memory_bracket": "history",
    "gap_gate_welfare": "gap_gates",
    "history_claims": "history",
    "observed_relaxation": "relaxation",
    "optimal_belief_threshold": "belief",
    "optimal_gap_gate": "gap_gates",
    "ladder_height": "service",
    "optimal_gate_ph": "service",
    "optimal_routing_ph": "service",
    "price_of_forgetting_ph": "service",
    "service_law": "service",
    "CertifiedOptimum": "certified",
    "certified_optimum": "certified",
    "certified_cost_optimum": "cost_certified",
    "derive": "derivation",
    "optimal_erlang_gate": "phase_gates",
    "optimal_observable": "observable",
    "pof_by_phases": "phase_gates",
}

__all__ = [
    "BeliefThreshold",
    "FullMemoryBracket",
    "GapGate",
    "ObservedRelaxation",
    "belief_threshold_welfare",
    "belief_update",
    "full_memory_bracket",
    "gap_gate_welfare",
    "history_claims",
    "observed_relaxation",
    "optimal_belief_threshold",
    "optimal_gap_gate",
    "CertifiedOptimum",
    "ladder_height",
    "optimal_gate_ph",
    "optimal_routing_ph",
    "price_of_forgetting_ph",
    "service_law",
    "GateOptimum",
    "GatedQueue",
    "RenewalStreams",
    "RoutingOptimum",
    "certified_cost_optimum",
    "certified_optimum",
    "derive",
    "log_root",
    "optimal_erlang_gate",
    "optimal_gate",
    "optimal_observable",
    "optimal_routing",
    "pof_by_phases",
    "price_of_forgetting",
    "root",
    "root_enclosure",
    "welfare_ga",
    "welfare_rr",
]

lazy_package(__name__, _LAZY)
