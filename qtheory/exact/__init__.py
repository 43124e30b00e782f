"""Exact engines: stationary distributions of finite Markov chains (GTH), birth-death
chains in log space and mpmath, sparse CTMCs (stationary, transient, first passage) and
average-reward continuous-time MDPs.  These are the package's ground truth.

The sparse-CTMC stationary solver is ``qtheory.exact.ctmc.stationary`` (not re-exported
here, to keep it apart from the dense GTH ``stationary_ctmc`` it delegates to)."""

from qtheory.core.lazy import lazy_package

#: Where each public name is defined: imported on first use (PEP 562), so that a
#: command that needs one birth-death helper (``qtheory lossnet online``) does not load
#: the sparse CTMC and MDP engines and their SciPy.
_LAZY = {
    "MatrixAnalyticSolution": "matrix_analytic",
    "QBDStationary": "matrix_analytic",
    "gim1_rate": "matrix_analytic",
    "gim1_solve": "matrix_analytic",
    "qbd_solve": "matrix_analytic",
    "qbd_stationary": "matrix_analytic",
    "CTMDP": "mdp",
    "MDPSolution": "mdp",
    "accumulated_reward": "ctmc",
    "birth_death_log_weights": "birth_death",
    "birth_death_stationary": "birth_death",
    "evaluate_policy": "mdp",
    "generator": "ctmc",
    "hitting_probabilities": "ctmc",
    "hitting_time_cdf": "ctmc",
    "linear_program": "mdp",
    "mean_hitting_times": "ctmc",
    "policy_iteration": "mdp",
    "stationary_ctmc": "stationary",
    "stationary_dtmc": "stationary",
    "transient": "ctmc",
}

__all__ = sorted(_LAZY)

lazy_package(__name__, _LAZY)
