"""Random-walk, Chernoff and hitting-time bounds behind the PFI and SSS arguments.

The proofs that the cost of variability and the cost of long-run uncertainty are O(1)
(J. Bray, arXiv:2601.14538) reduce the idle-server process under "reject every L" to
random walks and renewal epochs.  Each step is a derived (Sympy), evaluated (float64 and
mpmath) and checked (against :mod:`qtheory.exact` and the simulator) object here.
"""

from qtheory.walks.idle import IdleWalk

__all__ = ["IdleWalk"]
