"""Model 2: the overloaded two-class loss network.

Sources: Bray, arXiv:2601.14538; Xie, Gurvich and Küçükyavuz, Operations Research 73(4),
2025; Miller, Management Science 1969 (optimality of trunk reservation).

>>> from qtheory.lossnet import LossNetwork, online_optimum
>>> online_optimum(LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)).reserve
4
"""

from qtheory.lossnet.certified import (
    CertifiedFluid,
    CertifiedOnlineOptimum,
    OptimalityCertificate,
    certified_fluid,
    certified_fluid_lp,
    certified_online_optimum,
    trunk_reservation_optimality,
)
from qtheory.lossnet.fluid import FluidSolution, derive_fluid, fluid_bound, fluid_lp
from qtheory.lossnet.model import LossNetwork
from qtheory.lossnet.online import OnlineOptimum, ThresholdTable, online_optimum, threshold_table
from qtheory.lossnet.regret import (
    LogFit,
    RegretPoint,
    derive_leading_constant,
    fit_log_slope,
    leading_constant,
    regret_curve,
)

__all__ = [
    "CertifiedFluid",
    "CertifiedOnlineOptimum",
    "OptimalityCertificate",
    "certified_fluid",
    "certified_fluid_lp",
    "certified_online_optimum",
    "trunk_reservation_optimality",
    "FluidSolution",
    "LogFit",
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
    "regret_curve",
    "threshold_table",
]
