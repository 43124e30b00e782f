"""Exact engines: stationary distributions of finite Markov chains (GTH), birth-death
chains in log space and mpmath, sparse CTMCs (stationary, transient, first passage) and
average-reward continuous-time MDPs.  These are the package's ground truth.

The sparse-CTMC stationary solver is ``qtheory.exact.ctmc.stationary`` (not re-exported
here, to keep it apart from the dense GTH ``stationary_ctmc`` it delegates to)."""

from qtheory.exact.birth_death import (
    birth_death_log_weights,
    birth_death_stationary,
)
from qtheory.exact.ctmc import (
    accumulated_reward,
    generator,
    hitting_probabilities,
    hitting_time_cdf,
    mean_hitting_times,
    transient,
)
from qtheory.exact.matrix_analytic import (
    MatrixAnalyticSolution,
    QBDStationary,
    gim1_rate,
    gim1_solve,
    qbd_solve,
    qbd_stationary,
)
from qtheory.exact.mdp import (
    CTMDP,
    MDPSolution,
    evaluate_policy,
    linear_program,
    policy_iteration,
)
from qtheory.exact.stationary import stationary_ctmc, stationary_dtmc

__all__ = [
    "MatrixAnalyticSolution",
    "QBDStationary",
    "gim1_rate",
    "gim1_solve",
    "qbd_solve",
    "qbd_stationary",
    "CTMDP",
    "MDPSolution",
    "accumulated_reward",
    "birth_death_log_weights",
    "birth_death_stationary",
    "evaluate_policy",
    "generator",
    "hitting_probabilities",
    "hitting_time_cdf",
    "linear_program",
    "mean_hitting_times",
    "policy_iteration",
    "stationary_ctmc",
    "stationary_dtmc",
    "transient",
]
