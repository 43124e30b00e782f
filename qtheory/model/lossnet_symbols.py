"""The Sympy symbols of the loss network, shared by its formulas (:mod:`qtheory.lossnet`)
and the random-walk bounds behind its proofs (:mod:`qtheory.walks`).

N servers; class H arrives at rate λ_H N and class L at λ_L N; service rate μ; rewards
r_H > r_L.  Every symbol is positive, N is an integer.

Attributes
----------
lambda_h, lambda_l : sympy.Symbol
    λ_H and λ_L, the arrival rates per server (positive).
mu : sympy.Symbol
    μ, the service rate (positive).
r_h, r_l : sympy.Symbol
    r_H and r_L, the rewards paid on admission (positive).
servers : sympy.Symbol
    N, the number of servers (a positive integer).

References
----------
.. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
   overloaded loss network", arXiv:2601.14538 (2026); see ``docs/loss-network.md``.

Examples
--------
The fluid reward of the overloaded network, N (λ_H r_H + (μ − λ_H) r_L):

>>> fluid = servers * (lambda_h * r_h + (mu - lambda_h) * r_l)
>>> fluid.subs({servers: 100, lambda_h: sp.Rational(3, 5), mu: 1, r_h: 2, r_l: 1})
160
>>> bool(servers.is_integer and mu.is_positive)
True
"""

import sympy as sp

__all__ = ["lambda_h", "lambda_l", "mu", "r_h", "r_l", "servers"]

lambda_h, lambda_l, mu, r_h, r_l = sp.symbols("lambda_H lambda_L mu r_H r_L", positive=True)
servers = sp.Symbol("N", positive=True, integer=True)
