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
:math:`c = r_L\mu/\log(\mu/\lambda_H)`.  This is a heuristic, not a theorem of the
papers (which prove regret :math:`= \Theta(\log N)`): the claim
``lossnet.bounded_offset`` (:mod:`qtheory.lossnet.claims`) checks on the certified
regret of :func:`regret_curve` that regret :math:`- c\log N` stays within 0.1 over a
finite range of N; :func:`fit_log_slope` gives a least-squares slope for comparison.

With n classes and marginal class m the same balance, on the reserve of class m with
the classes above it admitted, gives :math:`c = r_m\mu/\log(\mu/\bar\lambda_{m-1})`,
:math:`\bar\lambda_{m-1} = \lambda_1 + \dots + \lambda_{m-1}`
(:func:`derive_leading_constant`): it depends on the marginal reward, μ and the
total rate above the marginal class only.  :func:`regret_curve` gives the regret
of the nested optimum (:mod:`qtheory.lossnet.nested`, float64); the claim
``lossnet.class_bounded_offset`` checks regret :math:`- c\log N` on it.

References
----------
.. [1] X. Xie, I. Gurvich and S. Küçükyavuz, "Dynamic allocation of reusable resources:
   logarithmic regret in overloaded networks", Operations Research 73(4) (2025).
.. [2] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
   overloaded loss network", arXiv:2601.14538 (2026).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import sympy as sp
from tqdm import tqdm

from qtheory.core import validation
from qtheory.core.records import Records
from qtheory.core.stats import SlopeFit, slope_on_log
from qtheory.core.symbolic import Formula
from qtheory.lossnet.certified import certified_online_optimum
from qtheory.lossnet.nested import local_optimum
from qtheory.model.lossnet import LossNetwork, as_network, number_of_classes
from qtheory.model.lossnet_symbols import mu, per_class_symbols, servers

__all__ = [
    "LeadingConstant",
    "RegretPoint",
    "derive_leading_constant",
    "fit_log_slope",
    "leading_constant",
    "regret_curve",
]


@dataclass(frozen=True)
class LeadingConstant:
    """The heuristic balance when class m is marginal (:func:`derive_leading_constant`).

    Attributes
    ----------
    marginal : int
        The 0-based marginal class m (>= 1).
    reserve : sympy.Expr
        k_m*(N), the marginal class's reserve minimising the heuristic regret.
    regret : sympy.Expr
        The heuristic regret at k_m*(N).
    constant : Formula
        c = lim regret / log N = r_m μ / log(μ/(λ_1 + … + λ_{m-1})), in
        (μ, r_m, λ_1, …, λ_{m-1}): the symbols it depends on.

    Examples
    --------
    >>> [case.constant.args for case in derive_leading_constant(3)]
    [(mu, r_2, lambda_1), (mu, r_3, lambda_1, lambda_2)]
    >>> derive_leading_constant()[0].constant.args
    (mu, r_L, lambda_H)
    """

    marginal: int
    reserve: sp.Expr
    regret: sp.Expr
    constant: Formula


@cache
def derive_leading_constant(n: int = 2) -> tuple[LeadingConstant, ...]:
    r"""The leading constant of the regret, one case per marginal class, by Sympy.

    Heuristic (module docstring).  With class m marginal the optimum admits the classes
    above m almost always (their reserves stay O(1); numerically 0 or 1) and keeps a
    reserve :math:`k` for class m; inside it only classes :math:`1..m-1` are admitted,
    so near full the idle count drifts up at rate about :math:`\mu N` and down at
    :math:`\bar\lambda_{m-1}N`, and class j < m is lost with probability about
    :math:`K_j e^{-\theta k}`, :math:`\theta = \log(\mu/\bar\lambda_{m-1})`.  Classes
    below m are admitted only with a fraction of the servers idle (reserves of order
    N), which costs O(1).  By the regret identity of :mod:`qtheory.lossnet.nested`

    .. math:: \text{regret}(k) \approx r_m\mu k
              + N e^{-\theta k}\sum_{j<m}(r_j - r_m)\lambda_j K_j,

    and Sympy minimises over k and takes lim regret/log N:
    :math:`c = r_m\mu/\log(\mu/\bar\lambda_{m-1})`.  It depends on the marginal class's
    reward, μ and the *total* rate of the classes above it, and on nothing else: not
    on their rewards or how the rate is split, nor on the classes below m.  For two
    classes (the default; symbols λ_H, r_H, r_L and one scale K) it is
    c = r_L μ / log(μ/λ_H).

    Parameters
    ----------
    n : int, optional
        The number of classes, >= 2 (default 2).

    Returns
    -------
    tuple of LeadingConstant
        Marginal class m = 1, …, n − 1 (0-based; class 1 alone fits, so it is never
        marginal in an overloaded network).

    Raises
    ------
    ValueError
        If ``n`` is not an integer >= 2.

    References
    ----------
    See the module's References: Xie, Gurvich and Küçükyavuz (2025).

    Examples
    --------
    >>> derive_leading_constant()[0].constant.expr
    mu*r_L/log(mu/lambda_H)
    >>> derive_leading_constant(3)[1].constant.expr
    mu*r_3/log(mu/(lambda_1 + lambda_2))
    """
    n = number_of_classes(n)
    lambdas, rewards, scales = per_class_symbols(n, "K")
    cases = []
    for m in range(1, n):
        loss = sum((rewards[j] - rewards[m]) * lambdas[j] * scales[j] for j in range(m))
        reserve, regret, constant = _balance(rewards[m] * mu, loss, mu / sum(lambdas[:m]))
        args = (mu, rewards[m], *lambdas[:m])
        formula = Formula(f"regret_constant_{m + 1}", constant, args)
        cases.append(LeadingConstant(m, reserve, regret, formula))
    return tuple(cases)


def _balance(idle_price: sp.Expr, loss: sp.Expr, ratio: sp.Expr) -> tuple[sp.Expr, ...]:
    """Sympy's minimisation of idle_price·k + loss·N·e^{−θk} over k, θ = log(ratio), and
    the limit of the minimum over log N: (k*(N), the minimum, the constant)."""
    k = sp.Symbol("k", positive=True)
    theta = sp.Symbol("theta", positive=True)
    regret = idle_price * k + loss * servers * sp.exp(-theta * k)
    (reserve,) = sp.solve(sp.diff(regret, k), k)
    optimal = sp.simplify(regret.subs(k, reserve))
    constant = sp.limit(optimal / sp.log(servers), servers, sp.oo)
    log_ratio = sp.log(ratio)
    return (
        reserve.subs(theta, log_ratio),
        optimal.subs(theta, log_ratio),
        constant.subs(theta, log_ratio),
    )


def leading_constant(net: LossNetwork) -> float:
    """c = r_m μ / log(μ/(λ_1 + … + λ_{m-1})), the slope of the regret in log N, m the
    network's marginal class; for two classes c = r_L μ / log(μ/λ_H).

    Parameters
    ----------
    net : LossNetwork
        The network (its size N does not enter), evaluated by the formula of its
        marginal class in :func:`derive_leading_constant`.

    Returns
    -------
    float
        The leading constant c of regret ~ c log N.

    Raises
    ------
    TypeError
        If ``net`` is not a network.

    References
    ----------
    See the module's References: Xie, Gurvich and Küçükyavuz (2025).

    Examples
    --------
    >>> round(leading_constant(LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)), 6)
    1.957615
    >>> net = LossNetwork(10, (0.3, 0.5, 0.6, 0.2), (4, 3, 2, 1), 1.0)
    >>> round(leading_constant(net), 6)  # 2 / log(1 / 0.8)
    8.96284
    """
    net = as_network(net)
    m = net.marginal
    case = derive_leading_constant(net.n_classes)[m - 1]
    return float(case.constant.float64(net.mu, net.rewards[m], *net.lambdas[:m]))


@dataclass(frozen=True)
class RegretPoint:
    """The exact online optimum at one scale N.

    Attributes
    ----------
    servers : int
        N.
    fluid, online, regret : float
        R_fluid, R_on(N) and R_fluid − R_on(N).
    reserves : tuple of int
        The optimal nested reserves k_1 = 0 <= k_2 <= … <= k_n; for two classes
        (0, k*), k* the reserve of class L.
    mean_idle, prob_full : float
        E[idle] and P(all busy) (class 1's blocking probability) under them.

    Examples
    --------
    >>> point = regret_curve(LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0), [50])[0]
    >>> point.servers, point.reserves
    (50, (0, 3))
    """

    servers: int
    fluid: float
    online: float
    regret: float
    reserves: tuple[int, ...]
    mean_idle: float
    prob_full: float


def _servers_grid(grid: object) -> list[int]:
    if isinstance(grid, str | bytes) or not isinstance(grid, Sequence | np.ndarray):
        raise TypeError(f"grid must be a sequence of server counts, got {grid!r:.60}")
    return [validation.positive_int("grid entry", n) for n in np.asarray(grid).ravel().tolist()]


def regret_curve(
    net: LossNetwork, grid: Sequence[int], *, progress: bool = False
) -> Records[RegretPoint]:
    """R_fluid, R_on, regret and the optimal reserves for each N in ``grid``.

    Two classes: certified.  Each point is rounded to float64 from the enclosures of
    :func:`~qtheory.lossnet.certified.certified_online_optimum` (17 digits, so every
    value is the float nearest to the exact one up to one rounding, and k* is certified
    the optimal reserve); the cost is O(k* + T) per N with T independent of N, so
    N = 10^7 takes milliseconds.  More classes: float64, from
    :func:`~qtheory.lossnet.nested.local_optimum` (policy iteration on the states that
    matter, the reserves of whole-chain policy iteration: milliseconds at N = 10^6 with
    n = 4), not certified.

    Parameters
    ----------
    net : LossNetwork
        Rates and rewards (its own N is ignored).
    grid : sequence of int
        The server counts N >= 1.
    progress : bool, keyword-only
        Show a tqdm progress bar (default False).

    Returns
    -------
    Records of RegretPoint
        One per entry of ``grid``, in order (a list; ``.to_frame()`` makes it a
        DataFrame, :mod:`qtheory.core.records`).

    Raises
    ------
    TypeError
        If ``net`` is not a network or ``grid`` not a sequence.
    ValueError
        If an entry of ``grid`` is not an integer >= 1, or (n > 2) exceeds the memory
        limit.
    ArithmeticError
        If a two-class reserve cannot be certified (an exact tie between two reserves).

    References
    ----------
    See the module's References: Xie, Gurvich and Küçükyavuz (2025).

    Examples
    --------
    >>> points = regret_curve(LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0), [10, 100, 1000])
    >>> [p.reserves[1] for p in points]
    [2, 4, 8]
    >>> print(points.to_frame()[["servers", "reserves", "regret"]].round(4).to_string(index=False))
     servers reserves  regret
          10   (0, 2)  2.8694
         100   (0, 4)  6.6173
        1000   (0, 8) 11.0520
    >>> net = LossNetwork(10, (0.3, 0.5, 0.6, 0.2), (4, 3, 2, 1), 1.0)
    >>> [p.reserves[2] for p in regret_curve(net, [10, 100, 1000])]
    [2, 6, 13]
    """
    net = as_network(net)
    sizes = _servers_grid(grid)
    point = _certified_point if net.n_classes == 2 else _nested_point
    label = "online optimum" if net.n_classes == 2 else "nested optimum"
    bar = tqdm(sizes, desc=label, unit="N", disable=not progress)
    return Records(point(net, n) for n in bar)


def _certified_point(net: LossNetwork, servers: int) -> RegretPoint:
    """The two-class point, rounded from the certified optimum."""
    opt = certified_online_optimum(net.with_servers(servers), dps=17)
    fluid, online, regret = (value.midpoint for value in (opt.fluid, opt.online, opt.regret))
    reserves = (0, opt.reserve)
    return RegretPoint(
        servers, fluid, online, regret, reserves, opt.mean_idle.midpoint, opt.prob_full.midpoint
    )


def _nested_point(net: LossNetwork, servers: int) -> RegretPoint:
    """The n-class point, from the float64 nested optimum."""
    opt = local_optimum(net.with_servers(servers))
    return RegretPoint(
        servers, opt.fluid, opt.online, opt.regret, opt.reserves, opt.mean_idle, opt.prob_full
    )


def regret_points(points: object) -> list[RegretPoint]:
    """``points`` as a list, checked to hold :class:`RegretPoint` records.

    >>> regret_points(())
    []
    >>> regret_points([1])
    Traceback (most recent call last):
    ...
    TypeError: points must hold RegretPoint records, got 1
    """
    if isinstance(points, str | bytes) or not isinstance(points, Sequence):
        raise TypeError(f"points must be a sequence of RegretPoint, got {points!r:.60}")
    for p in points:
        if not isinstance(p, RegretPoint):
            raise TypeError(f"points must hold RegretPoint records, got {p!r:.60}")
    return list(points)


def fit_log_slope(points: Sequence[RegretPoint], min_servers: int = 1) -> SlopeFit:
    """Least-squares fit regret ≈ slope · log N + intercept over points with N ≥ min_servers.

    The residuals are not independent noise (k* moves in integer steps, so the regret
    oscillates by O(1)); the interval describes how well a line fits that wobble, not
    sampling error.

    Parameters
    ----------
    points : sequence of RegretPoint
        From :func:`regret_curve`.
    min_servers : int, optional
        Fit only the points with N >= ``min_servers`` (default 1).

    Returns
    -------
    SlopeFit
        The slope as an :class:`~qtheory.core.stats.Estimate` (``method="regression"``)
        and the intercept.

    Raises
    ------
    TypeError
        If ``points`` is not a sequence of :class:`RegretPoint`.
    ValueError
        If ``min_servers`` is not an integer >= 1, or fewer than 3 points with
        distinct N remain (a line through 2 points has no interval).

    Examples
    --------
    >>> points = regret_curve(LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0), [10, 100, 1000, 10**4])
    >>> fit = fit_log_slope(points, min_servers=100)
    >>> fit.slope.n, fit.slope.dof
    (3, 1)
    """
    chosen = regret_points(points)
    min_servers = validation.positive_int("min_servers", min_servers)
    chosen = [p for p in chosen if p.servers >= min_servers]
    if len({p.servers for p in chosen}) < 3:
        raise ValueError(
            "points must hold at least 3 distinct servers counts >= min_servers "
            f"(min_servers={min_servers}), got {len(chosen)} points"
        )
    return slope_on_log([p.servers for p in chosen], [p.regret for p in chosen])
