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

from qtheory.gated.certified import CertifiedOptimum, certified_optimum
from qtheory.gated.derivation import derive
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

__all__ = [
    "CertifiedOptimum",
    "GateOptimum",
    "GatedQueue",
    "RoutingOptimum",
    "certified_optimum",
    "derive",
    "log_root",
    "optimal_gate",
    "optimal_routing",
    "price_of_forgetting",
    "root",
    "root_enclosure",
    "welfare_ga",
    "welfare_rr",
]
