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

import importlib

from qtheory.gated.model import GatedQueue
from qtheory.gated.root import log_root, root, root_enclosure
from qtheory.gated.welfare import (
    GateOptimum,
    RoutingOptimum,
    optimal_gate,
    optimal_routing,
    price_of_forgetting,
    welfare_ga,
    welfare_rr,
)

#: Names imported from their module on first use (PEP 562): the Sympy derivation, the
#: Arb certificates, the phase-type gates and the observable bound, which the float64
#: numbers of GA and RR (and the command line) do not need.
_LAZY = {
    "CertifiedOptimum": "certified",
    "certified_optimum": "certified",
    "derive": "derivation",
    "optimal_erlang_gate": "phase_gates",
    "optimal_observable": "observable",
    "pof_by_phases": "phase_gates",
}

__all__ = [
    "CertifiedOptimum",
    "GateOptimum",
    "GatedQueue",
    "RoutingOptimum",
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


def __getattr__(name: str) -> object:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
