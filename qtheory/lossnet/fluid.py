r"""The fluid LP: an upper bound on the long-run reward of any admission policy.

Per server, admitting class :math:`i` at rate :math:`x_i N` (:math:`0\le x_i\le\lambda_i`)
keeps :math:`x_i/\mu_i` of the servers busy, so

.. math:: R_{fluid} = N \max\Bigl\{\sum_i r_i x_i :\ \sum_i x_i/\mu_i \le 1,\
          0 \le x_i \le \lambda_i\Bigr\}.

For the two-class network with a common :math:`\mu` Sympy solves it symbolically by
cases (:func:`derive_fluid`) and certifies each case by a dual solution with the same
objective (LP strong duality); :func:`fluid_lp` solves the general many-class LP, with
optional per-class service rates, with scipy's HiGHS.  In the overloaded case
:math:`\lambda_H<\mu<\lambda_H+\lambda_L`,
:math:`R_{fluid} = N[r_H\lambda_H + r_L(\mu-\lambda_H)]`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
import sympy as sp
from scipy.optimize import linprog

from qtheory.lossnet.model import LossNetwork
from qtheory.lossnet.symbols import lambda_h, lambda_l, mu, r_h, r_l, servers
from qtheory.symbolic import Formula

__all__ = ["FluidCase", "FluidSolution", "derive_fluid", "fluid_bound", "fluid_lp"]


@dataclass(frozen=True)
class FluidCase:
    """One regime of the two-class fluid LP, with its primal and dual solutions."""

    name: str
    condition: sp.Boolean
    admitted_h: sp.Expr  # x_H
    admitted_l: sp.Expr  # x_L
    capacity_price: sp.Expr  # dual of sum x_i <= mu
    surplus_price_h: sp.Expr  # dual of x_H <= lambda_H
    surplus_price_l: sp.Expr  # dual of x_L <= lambda_L

    @property
    def value(self) -> sp.Expr:
        """Primal objective per server, r_H x_H + r_L x_L."""
        return r_h * self.admitted_h + r_l * self.admitted_l

    @property
    def dual_value(self) -> sp.Expr:
        """Dual objective per server, μ y + λ_H z_H + λ_L z_L."""
        return (
            mu * self.capacity_price
            + lambda_h * self.surplus_price_h
            + (lambda_l * self.surplus_price_l)
        )


@dataclass(frozen=True)
class FluidDerivation:
    cases: tuple[FluidCase, ...]
    overloaded: FluidCase
    bound: Formula  # N (r_H λ_H + r_L (μ - λ_H)), in (N, λ_H, μ, r_H, r_L)


@cache
def derive_fluid() -> FluidDerivation:
    """Solve the two-class fluid LP by cases (r_H > r_L > 0, common μ).

    Each case lists a primal point and dual prices; the tests let Sympy check primal
    feasibility, dual feasibility (y + z_H ≥ r_H, y + z_L ≥ r_L, all prices ≥ 0) and
    equal objectives under the case's condition, which proves optimality.

    >>> derive_fluid().overloaded.value
    lambda_H*r_H + r_L*(-lambda_H + mu)
    """
    zero = sp.Integer(0)
    cases = (
        FluidCase(  # H alone saturates the servers
            "H saturates", sp.Ge(lambda_h, mu), mu, zero, r_h, zero, zero
        ),
        FluidCase(  # the paper's regime: all H, L fills the rest
            "overloaded",
            sp.And(sp.Lt(lambda_h, mu), sp.Lt(mu, lambda_h + lambda_l)),
            lambda_h,
            mu - lambda_h,
            r_l,
            r_h - r_l,
            zero,
        ),
        FluidCase(  # everybody fits
            "underloaded", sp.Le(lambda_h + lambda_l, mu), lambda_h, lambda_l, zero, r_h, r_l
        ),
    )
    overloaded = cases[1]
    bound = Formula("fluid_bound", servers * overloaded.value, (servers, lambda_h, mu, r_h, r_l))
    return FluidDerivation(cases, overloaded, bound)


def fluid_bound(net: LossNetwork) -> float:
    """R_fluid = N [r_H λ_H + r_L (μ − λ_H)] for the overloaded two-class network.

    >>> net = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> fluid_bound(net)
    160.0
    """
    evaluate = derive_fluid().bound.float64
    return float(evaluate(net.servers, net.lambda_h, net.mu, net.r_h, net.r_l))


@dataclass(frozen=True)
class FluidSolution:
    """Optimal fluid LP: total reward rate, admission rates (per class, total) and the
    shadow price of one server."""

    value: float
    admission_rates: np.ndarray
    server_price: float


def fluid_lp(arrival_rates, rewards, service_rates, servers: float = 1.0) -> FluidSolution:
    """Solve the single-pool, many-class fluid LP with HiGHS.

    Parameters
    ----------
    arrival_rates, rewards, service_rates
        Per-class λ_i (per server), r_i and μ_i, equal lengths, all > 0.
    servers
        N; arrival rates scale as λ_i N.

    Examples
    --------
    >>> sol = fluid_lp([0.6, 0.8], [2.0, 1.0], [1.0, 1.0], servers=100)
    >>> round(sol.value, 9), sol.admission_rates.round(9).tolist(), round(sol.server_price, 9)
    (160.0, [60.0, 40.0], 1.0)
    """
    rates, rewards, service = (
        np.asarray(v, dtype=float) for v in (arrival_rates, rewards, service_rates)
    )
    if (
        not rates.ndim == rewards.ndim == service.ndim == 1
        or not rates.size == rewards.size == service.size
    ):
        raise ValueError("arrival_rates, rewards and service_rates must be 1-D of equal length")
    for name, values in (
        ("arrival_rates", rates),
        ("rewards", rewards),
        ("service_rates", service),
    ):
        if not np.all(np.isfinite(values) & (values > 0)):
            raise ValueError(f"{name} must be finite and > 0")
    if not (np.isfinite(servers) and servers > 0):
        raise ValueError(f"servers must be finite and > 0, got {servers!r}")
    result = linprog(
        -rewards,
        A_ub=(1.0 / service)[None, :],
        b_ub=[1.0],
        bounds=list(zip(np.zeros_like(rates), rates, strict=True)),
        method="highs",
    )
    if not result.success:
        raise RuntimeError(f"HiGHS failed on the fluid LP: {result.message}")
    return FluidSolution(
        value=float(-result.fun * servers),
        admission_rates=result.x * servers,
        server_price=float(-result.ineqlin.marginals[0]),
    )
