"""Model 2: the overloaded loss network with two classes or n (one record,
:class:`LossNetwork`): one fluid LP :func:`fluid_lp`, one online optimum
:func:`online_optimum` (trunk reservation; nested for n classes), one regret curve
:func:`regret_curve`, and the full MDP :func:`solve_admission_mdp`; and the single-use
contrast (no departures, :class:`SingleUseNetwork`): :func:`single_use_optimum`.

Sources: Bray, arXiv:2601.14538; Xie, Gurvich and Küçükyavuz, Operations Research 73(4),
2025; Miller, Management Science 1969 (optimality of trunk reservation).

>>> from qtheory.lossnet import LossNetwork, online_optimum
>>> online_optimum(LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)).reserve
4
"""

from qtheory.core.lazy import lazy_package

#: Every public name -> its module, imported on first use (PEP 562), so that importing
#: a submodule (the command line's model, say) does not load NumPy, SciPy or Arb.
_LAZY = {
    "LossNetwork": "qtheory.model.lossnet",
    "FluidSolution": "fluid",
    "derive_fluid": "fluid",
    "fluid_bound": "fluid",
    "fluid_lp": "fluid",
    "OnlineOptimum": "nested",
    "regret_of": "online",
    "ThresholdTable": "online",
    "online_optimum": "online",
    "threshold_table": "online",
    "CertifiedFluid": "certified",
    "CertifiedOnlineOptimum": "certified",
    "OptimalityCertificate": "certified",
    "certified_fluid": "certified",
    "certified_fluid_lp": "certified",
    "certified_online_optimum": "certified",
    "trunk_reservation_optimality": "certified",
    "RegretPoint": "regret",
    "derive_leading_constant": "regret",
    "fit_log_slope": "regret",
    "leading_constant": "regret",
    "regret_curve": "regret",
    "evaluate_nested": "nested",
    "solve_admission_mdp": "mdp",
    "Replay": "policies",
    "pfi_promise": "policies",
    "replay": "policies",
    "sss_promise": "policies",
    "SingleUseNetwork": "qtheory.model.single_use",
    "FixedCountOptimum": "single_use",
    "SingleUseResult": "single_use",
    "fixed_count_optimum": "single_use",
    "single_use_fluid": "single_use",
    "single_use_offline": "single_use",
    "single_use_optimum": "single_use",
}

__all__ = [
    "CertifiedFluid",
    "evaluate_nested",
    "solve_admission_mdp",
    "CertifiedOnlineOptimum",
    "OptimalityCertificate",
    "certified_fluid",
    "certified_fluid_lp",
    "certified_online_optimum",
    "trunk_reservation_optimality",
    "FluidSolution",
    "LossNetwork",
    "OnlineOptimum",
    "RegretPoint",
    "ThresholdTable",
    "derive_fluid",
    "derive_leading_constant",
    "fit_log_slope",
    "fluid_bound",
    "fluid_lp",
    "leading_constant",
    "online_optimum",
    "regret_of",
    "regret_curve",
    "threshold_table",
    "Replay",
    "pfi_promise",
    "replay",
    "sss_promise",
    "SingleUseNetwork",
    "FixedCountOptimum",
    "SingleUseResult",
    "fixed_count_optimum",
    "single_use_fluid",
    "single_use_offline",
    "single_use_optimum",
]

lazy_package(__name__, _LAZY)
