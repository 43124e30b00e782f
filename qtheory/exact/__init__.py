"""Exact engines: stationary distributions of finite Markov chains (GTH) and, later,
birth-death chains, first passage and MDPs.  These are the package's ground truth."""

from qtheory.exact.stationary import stationary_ctmc, stationary_dtmc

__all__ = ["stationary_ctmc", "stationary_dtmc"]
