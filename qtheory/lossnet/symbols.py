"""The Sympy symbols of the loss network, shared by its formulas (:mod:`qtheory.lossnet`)
and the random-walk bounds behind its proofs (:mod:`qtheory.walks`).

N servers; class H arrives at rate λ_H N and class L at λ_L N; service rate μ; rewards
r_H > r_L.  Every symbol is positive, N is an integer.
"""

import sympy as sp

__all__ = ["lambda_h", "lambda_l", "mu", "r_h", "r_l", "servers"]

lambda_h, lambda_l, mu, r_h, r_l = sp.symbols("lambda_H lambda_L mu r_H r_L", positive=True)
servers = sp.Symbol("N", positive=True, integer=True)
