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

With n classes :func:`per_class_symbols` gives λ_1..λ_n and r_1..r_n (for n = 2 the names
H and L above).

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

__all__ = ["per_class_symbols", "lambda_h", "lambda_l", "mu", "r_h", "r_l", "servers"]

lambda_h, lambda_l, mu, r_h, r_l = sp.symbols("lambda_H lambda_L mu r_H r_L", positive=True)
servers = sp.Symbol("N", positive=True, integer=True)


def per_class_symbols(n: int, name: str = "") -> tuple[tuple[sp.Symbol, ...], ...]:
    """The per-class symbols of an n-class network: (λ_1..λ_n, r_1..r_n), and with
    ``name`` a third tuple name_1..name_n; for two classes the classes are H and L.

    Parameters
    ----------
    n : int
        The number of classes, >= 2.
    name : str, optional
        A further per-class symbol (positive), e.g. ``"K"`` for a scale constant; for two
        classes its H symbol is ``name`` alone, the one the two-class formulas print.

    Returns
    -------
    tuple of tuple of sympy.Symbol
        The lambdas and rewards (and the named symbols).

    Examples
    --------
    >>> per_class_symbols(2)
    ((lambda_H, lambda_L), (r_H, r_L))
    >>> per_class_symbols(3, "K")[2]
    (K_1, K_2, K_3)
    """
    if n == 2:
        lambdas, rewards = (lambda_h, lambda_l), (r_h, r_l)
        named = sp.symbols(f"{name} {name}_L", positive=True) if name else None
    else:
        lambdas = sp.symbols(f"lambda_1:{n + 1}", positive=True)
        rewards = sp.symbols(f"r_1:{n + 1}", positive=True)
        named = sp.symbols(f"{name}_1:{n + 1}", positive=True) if name else None
    return (lambdas, rewards) if named is None else (lambdas, rewards, named)
