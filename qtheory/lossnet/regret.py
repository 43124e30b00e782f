r"""Regret of the online optimum, R_fluid − R_on(N) = Θ(log N), and its leading constant.

Heuristic balance (Xie, Gurvich and Küçükyavuz 2025; Bray 2026).  Under reserve
:math:`k` the idle count lives near :math:`k`; inside the reserve only H is admitted
and, near full, idle servers are created at rate about :math:`\mu N` and used at rate
:math:`\lambda_H N`, so :math:`P(\text{full}) \approx K\rho^k` with
:math:`\rho = \lambda_H/\mu`.  The exact identity of :mod:`qtheory.lossnet.online`
then gives

.. math:: \text{regret}(k) \approx r_L\mu k + (r_H - r_L)\lambda_H N K e^{-\theta k},
          \qquad \theta = \log(\mu/\lambda_H),

minimised at :math:`k^* = \log\bigl((r_H-r_L)\lambda_H K\theta N/(r_L\mu)\bigr)/\theta`
with value :math:`(r_L\mu/\theta)(\log N + O(1))`.  :func:`derive_leading_constant`
lets Sympy do this minimisation and the limit, giving
:math:`c = r_L\mu/\log(\mu/\lambda_H)`; :func:`regret_curve` and :func:`fit_log_slope`
confirm it on the exact regret for N up to 10^7.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import sympy as sp
from scipy import stats
from tqdm import tqdm

from qtheory.lossnet.model import LossNetwork
from qtheory.lossnet.online import online_optimum
from qtheory.lossnet.symbols import lambda_h, mu, r_h, r_l, servers
from qtheory.symbolic import Formula

__all__ = [
    "LeadingConstant",
    "LogFit",
    "RegretPoint",
    "derive_leading_constant",
    "fit_log_slope",
    "leading_constant",
    "regret_curve",
]


@dataclass(frozen=True)
class LeadingConstant:
    reserve: sp.Expr  # k*(N) of the heuristic balance
    regret: sp.Expr  # its regret
    constant: Formula  # c = lim regret / log N, in (μ, λ_H, r_L)


@cache
def derive_leading_constant() -> LeadingConstant:
    """Sympy minimises the heuristic regret over k and takes lim regret/log N.

    >>> derive_leading_constant().constant.expr
    mu*r_L/log(mu/lambda_H)
    """
    k, scale = sp.symbols("k K", positive=True)
    theta = sp.Symbol("theta", positive=True)  # log(mu/lambda_H)
    regret = r_l * mu * k + (r_h - r_l) * lambda_h * servers * scale * sp.exp(-theta * k)
    (reserve,) = sp.solve(sp.diff(regret, k), k)
    optimal = sp.simplify(regret.subs(k, reserve))
    constant = sp.limit(optimal / sp.log(servers), servers, sp.oo)
    log_ratio = sp.log(mu / lambda_h)
    return LeadingConstant(
        reserve=reserve.subs(theta, log_ratio),
        regret=optimal.subs(theta, log_ratio),
        constant=Formula("regret_constant", constant.subs(theta, log_ratio), (mu, lambda_h, r_l)),
    )


def leading_constant(net: LossNetwork) -> float:
    """c = r_L μ / log(μ/λ_H) for this network."""
    return float(derive_leading_constant().constant.float64(net.mu, net.lambda_h, net.r_l))


@dataclass(frozen=True)
class RegretPoint:
    """The exact online optimum at one scale N."""

    servers: int
    fluid: float
    online: float
    regret: float
    threshold: int
    prob_full: float
    mean_idle: float


def regret_curve(
    net: LossNetwork, grid: Sequence[int], progress: bool = False
) -> list[RegretPoint]:
    """Exact R_fluid, R_on, regret and k* for each N in ``grid`` (float64, O(N) each).

    >>> points = regret_curve(LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0), [10, 100, 1000])
    >>> [p.threshold for p in points]
    [2, 4, 8]
    """
    points = []
    for n in tqdm(grid, desc="online optimum", unit="N", disable=not progress):
        opt = online_optimum(net.with_servers(int(n)))
        points.append(
            RegretPoint(
                int(n),
                opt.fluid,
                opt.online,
                opt.regret,
                opt.threshold,
                opt.prob_full,
                opt.mean_idle,
            )
        )
    return points


@dataclass(frozen=True)
class LogFit:
    slope: float
    intercept: float
    slope_stderr: float


def fit_log_slope(points: Sequence[RegretPoint], min_servers: int = 1) -> LogFit:
    """Least-squares fit regret ≈ slope · log N + intercept over points with N ≥ min_servers.

    The residuals are not independent noise (k* moves in integer steps, so the regret
    oscillates by O(1)); the standard error describes the fit, not sampling error.
    """
    chosen = [p for p in points if p.servers >= min_servers]
    if len(chosen) < 3:
        raise ValueError("fit_log_slope needs at least 3 points with servers >= min_servers")
    fit = stats.linregress(np.log([p.servers for p in chosen]), [p.regret for p in chosen])
    return LogFit(float(fit.slope), float(fit.intercept), float(fit.stderr))
