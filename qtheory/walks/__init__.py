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
- :mod:`~qtheory.walks.window_sweep`: the sweep of SSS(c log N / N) over c and N;
- :mod:`~qtheory.walks.certify`: every bound against its exact value in ball
  arithmetic, and the certificate that :mod:`qtheory.verify.walks` checks again.
"""

import importlib
import sys
import types

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
    "loss_growth": "window_sweep",
    "markov_epoch_means": "epochs",
    "renewal_reward": "epochs",
    "smallest_bounded_constant": "window_sweep",
    "window_sweep": "window_sweep",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> object:
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


class _Package(types.ModuleType):
    """This package's type: importing the submodule ``window_sweep`` binds it as the
    package's attribute, which would hide the function of the same name; the binding of
    a submodule over a public name is dropped (the submodule stays in ``sys.modules``)."""

    def __setattr__(self, name: str, value: object) -> None:
        if not (name in _LAZY and isinstance(value, types.ModuleType)):
            super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
