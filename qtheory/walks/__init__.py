"""Random-walk, Chernoff and hitting-time bounds behind the PFI and SSS arguments.

The proofs that the cost of variability and the cost of long-run uncertainty are O(1)
(J. Bray, arXiv:2601.14538) reduce the idle-server process under "reject every L" to
random walks and renewal epochs.  Each step is a derived (Sympy), evaluated (float64 and
mpmath) and checked (against :mod:`qtheory.exact` and the simulator) object here:

- :mod:`~qtheory.walks.idle`: the reject-all-L idle process and its coupled walks;
- :mod:`~qtheory.walks.ruin`: gambler's ruin, exact and for the walks;
- :mod:`~qtheory.walks.hitting`: mean climbing and descent times;
- :mod:`~qtheory.walks.chernoff`: Chernoff bounds and hitting-time tails;
- :mod:`~qtheory.walks.epochs`: epochs between visits to a level and renewal reward;
- :mod:`~qtheory.walks.sss`: the failure probability of SSS(W) and its bound;
- :mod:`~qtheory.walks.lookahead_sweep`: the sweep of SSS(c log N / N) over c and N;
- :mod:`~qtheory.walks.certify`: every bound against its exact value in ball
  arithmetic, and the certificate that :mod:`qtheory.verify.walks` checks again.
"""

from qtheory.core.lazy import lazy_package

#: Where each public name is defined: imported on first use (PEP 562), so that
#: ``qtheory walks --help`` does not derive the Chernoff bounds or load the simulator.
_LAZY = {
    "BoundCheck": "bounds",
    "IdleWalk": "idle",
    "critical_window_constant": "sss",
    "epochs_from_trace": "epochs",
    "failure_bound": "sss",
    "failure_probabilities": "sss",
    "failure_probability": "sss",
    "loss_growth": "lookahead_sweep",
    "markov_epoch_means": "epochs",
    "renewal_reward": "epochs",
    "smallest_bounded_constant": "lookahead_sweep",
    "window_sweep": "lookahead_sweep",
}

__all__ = sorted(_LAZY)

lazy_package(__name__, _LAZY)
