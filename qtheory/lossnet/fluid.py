r"""The fluid LP: an upper bound on the long-run reward of any admission policy.

Per server, admitting class :math:`i` at rate :math:`x_i N` (:math:`0\le x_i\le\lambda_i`)
keeps :math:`x_i/\mu_i` of the servers busy, so

.. math:: R_{fluid} = N \max\Bigl\{\sum_i r_i x_i :\ \sum_i x_i/\mu_i \le 1,\
          0 \le x_i \le \lambda_i\Bigr\}.

With a common :math:`\mu` Sympy solves it symbolically by cases (:func:`derive_fluid`)
and certifies each case by a dual solution with the same objective (LP strong duality);
:func:`fluid_lp` solves it numerically with scipy's HiGHS for a network or for per-class
vectors (optionally with per-class service rates).  For two classes, in the overloaded case
:math:`\lambda_H<\mu<\lambda_H+\lambda_L`,
:math:`R_{fluid} = N[r_H\lambda_H + r_L(\mu-\lambda_H)]`.

With n classes, :math:`r_1 > \dots > r_n` and a common :math:`\mu`, the LP is a
fractional knapsack: with :math:`\bar\lambda_j = \lambda_1 + \dots + \lambda_j` and the
marginal class :math:`m` (:math:`\bar\lambda_{m-1} < \mu < \bar\lambda_m`) it admits
:math:`x_j = \lambda_j` for :math:`j < m`, :math:`x_m = \mu - \bar\lambda_{m-1}` and nothing
below :math:`m`, so

.. math:: R_{fluid} = N\Bigl[\sum_{j<m} r_j\lambda_j + r_m(\mu - \bar\lambda_{m-1})\Bigr];

the dual prices are :math:`y = r_m` for the capacity :math:`\sum_j x_j \le \mu` (one
server, serving :math:`\mu` jobs per unit time, is worth :math:`r_m\mu`) and
:math:`z_j = (r_j - r_m)^+` for :math:`x_j \le \lambda_j`.  :func:`derive_fluid`
states every case (which class is marginal) with its primal and dual solutions for a
fixed n (2 by default), and :func:`fluid_lp` reads the marginal class off HiGHS's dual.

References
----------
.. [1] X. Xie, I. Gurvich and S. Küçükyavuz, "Dynamic allocation of reusable resources:
   logarithmic regret in overloaded networks", Operations Research 73(4) (2025).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from qtheory.core import validation
from qtheory.lossnet import _generated
from qtheory.model.lossnet import LossNetwork, as_network, number_of_classes

if TYPE_CHECKING:  # the Sympy side is imported by derive_fluid, when it runs
    import sympy as sp

    from qtheory.core.symbolic import Formula

__all__ = [
    "FluidCase",
    "FluidDerivation",
    "FluidSolution",
    "derive_fluid",
    "fluid_bound",
    "fluid_lp",
    "per_class_vectors",
]


def per_class_vectors(**named: object) -> tuple[np.ndarray, ...]:
    """Per-class parameters as float64 vectors, checked: each 1-D, non-empty, finite and
    > 0, all of the same length.

    Parameters
    ----------
    **named : array_like
        The vectors by parameter name, in the order they are returned.

    Returns
    -------
    tuple of numpy.ndarray
        One float64 vector per argument.

    Raises
    ------
    ValueError
        Naming the first parameter that is not a non-empty 1-D sequence of finite
        numbers > 0, or the lengths if they differ.

    Examples
    --------
    >>> per_class_vectors(arrival_rates=[0.6, 0.8], rewards=[2, 1])
    (array([0.6, 0.8]), array([2., 1.]))
    >>> per_class_vectors(arrival_rates=[], rewards=[])
    Traceback (most recent call last):
    ...
    ValueError: arrival_rates must be a non-empty 1-D sequence of numbers, got []
    """
    vectors = []
    for name, values in named.items():
        try:
            vector = np.asarray(values, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(
                f"{name} must be a non-empty 1-D sequence of numbers, got {values!r:.60}"
            ) from None
        if isinstance(values, str | bytes) or vector.ndim != 1 or vector.size == 0:
            raise ValueError(
                f"{name} must be a non-empty 1-D sequence of numbers, got {values!r:.60}"
            )
        if not np.all(np.isfinite(vector) & (vector > 0)):
            raise ValueError(f"{name} must be finite and > 0, got {values!r:.60}")
        vectors.append(vector)
    if len({v.size for v in vectors}) > 1:
        sizes = ", ".join(f"{name}: {v.size}" for name, v in zip(named, vectors, strict=True))
        raise ValueError(f"{' and '.join(named)} must have equal lengths, got {sizes}")
    return tuple(vectors)


@dataclass(frozen=True)
class FluidCase:
    """One case of the fluid LP (common μ): which class is marginal, with the primal
    point and the dual prices that certify it.

    Attributes
    ----------
    name : str
        ``"class j marginal"`` (1-based j) or ``"underloaded"``; with two classes the
        cases are called ``"H saturates"``, ``"overloaded"`` and ``"underloaded"``.
    marginal : int or None
        The 0-based marginal class (None when everybody fits).
    condition : sympy.Boolean
        Where the case applies: λ̄_{m-1} < μ < λ̄_m (class 1: λ_1 >= μ).
    admitted : tuple of sympy.Expr
        x_1, …, x_n per server.
    capacity_price : sympy.Expr
        y, the dual price of Σ x_j <= μ.
    surplus_prices : tuple of sympy.Expr
        z_1, …, z_n, the dual prices of x_j <= λ_j.
    lambdas, rewards : tuple of sympy.Symbol
        The symbols λ_j and r_j the expressions use.
    mu : sympy.Symbol
        The service rate's symbol.

    Examples
    --------
    >>> derive_fluid(3).cases[1].admitted
    (lambda_1, -lambda_1 + mu, 0)
    >>> derive_fluid().case(1).admitted
    (lambda_H, -lambda_H + mu)
    """

    name: str
    marginal: int | None
    condition: sp.Boolean
    admitted: tuple[sp.Expr, ...]
    capacity_price: sp.Expr
    surplus_prices: tuple[sp.Expr, ...]
    lambdas: tuple[sp.Symbol, ...]
    rewards: tuple[sp.Symbol, ...]
    mu: sp.Symbol

    @property
    def value(self) -> sp.Expr:
        """Primal objective per server, Σ r_j x_j."""
        return sum(r * x for r, x in zip(self.rewards, self.admitted, strict=True))

    @property
    def dual_value(self) -> sp.Expr:
        """Dual objective per server, μ y + Σ λ_j z_j."""
        return self.mu * self.capacity_price + sum(
            lam * z for lam, z in zip(self.lambdas, self.surplus_prices, strict=True)
        )


@dataclass(frozen=True)
class FluidDerivation:
    """The fluid LP solved by cases (:func:`derive_fluid`).

    Attributes
    ----------
    cases : tuple of FluidCase
        Class 1, …, class n marginal, then underloaded.
    lambdas, rewards : tuple of sympy.Symbol
        λ_1..λ_n and r_1..r_n (λ_H, λ_L and r_H, r_L for two classes).
    mu : sympy.Symbol
        μ.

    Examples
    --------
    >>> [case.name for case in derive_fluid(3).cases]
    ['class 1 marginal', 'class 2 marginal', 'class 3 marginal', 'underloaded']
    >>> [case.name for case in derive_fluid().cases]
    ['H saturates', 'overloaded', 'underloaded']
    """

    cases: tuple[FluidCase, ...]
    lambdas: tuple[sp.Symbol, ...]
    rewards: tuple[sp.Symbol, ...]
    mu: sp.Symbol

    def case(self, marginal: int) -> FluidCase:
        """The case in which the 0-based class ``marginal`` is marginal."""
        n = len(self.rewards)
        if isinstance(marginal, bool) or not isinstance(marginal, int) or not 0 <= marginal < n:
            raise ValueError(f"marginal must be a class index in 0..{n - 1}, got {marginal!r}")
        return self.cases[marginal]

    def bound(self, marginal: int) -> Formula:
        """R_fluid = N [Σ_{j<m} r_j λ_j + r_m (μ − λ̄_{m-1})] when class ``marginal`` (m,
        0-based) is marginal, as a :class:`~qtheory.core.symbolic.Formula` in
        (N, λ_1..λ_{m-1}, μ, r_1..r_m), the symbols it uses; with two classes and
        ``marginal=1``, N (r_H λ_H + r_L (μ − λ_H)) in (N, λ_H, μ, r_H, r_L).

        >>> derive_fluid().bound(1).args
        (N, lambda_H, mu, r_H, r_L)
        """
        from qtheory.core.symbolic import Formula
        from qtheory.model.lossnet_symbols import servers

        case = self.case(marginal)
        m = case.marginal
        args = (servers, *self.lambdas[:m], self.mu, *self.rewards[: m + 1])
        return Formula("fluid_bound", servers * case.value, args)


#: The two-class names of the cases (class H marginal, class L marginal).
_TWO_CLASS_CASES = ("H saturates", "overloaded")


@cache
def derive_fluid(n: int = 2) -> FluidDerivation:
    """The fluid LP (r_1 > … > r_n > 0, common μ) by cases, in Sympy.

    Case "class m marginal" (λ̄_{m-1} < μ < λ̄_m): x_j = λ_j above m, x_m = μ − λ̄_{m-1},
    0 below; y = r_m, z_j = r_j − r_m above m, 0 otherwise.  Primal feasibility, dual
    feasibility (y + z_j >= r_j, prices >= 0) and equal objectives under the case's
    condition prove optimality (the tests let Sympy check all three); the dual is
    unique inside each case, so the marginal class is the one whose reward is the
    capacity price.  With two classes (the default) the symbols are λ_H, λ_L, r_H, r_L
    of :mod:`qtheory.model.lossnet_symbols` and the case "class 2 marginal" is the
    overloaded regime λ_H < μ < λ_H + λ_L.

    Parameters
    ----------
    n : int, optional
        The number of classes, >= 2 (default 2).

    Returns
    -------
    FluidDerivation
        The n + 1 cases.

    Raises
    ------
    ValueError
        If ``n`` is not an integer >= 2.

    References
    ----------
    See the module's References: Xie, Gurvich and Küçükyavuz (2025).

    Examples
    --------
    >>> derive_fluid().case(1).value
    lambda_H*r_H + r_L*(-lambda_H + mu)
    >>> case = derive_fluid(3).cases[2]
    >>> case.condition
    (lambda_1 + lambda_2 < mu) & (mu < lambda_1 + lambda_2 + lambda_3)
    >>> case.value
    lambda_1*r_1 + lambda_2*r_2 + r_3*(-lambda_1 - lambda_2 + mu)
    """
    import sympy as sp

    from qtheory.model import lossnet_symbols

    n = number_of_classes(n)
    mu = lossnet_symbols.mu
    lambdas, rewards = lossnet_symbols.per_class_symbols(n)
    names = _TWO_CLASS_CASES if n == 2 else tuple(f"class {m + 1} marginal" for m in range(n))
    zero = sp.Integer(0)
    partial = [sum(lambdas[:j], zero) for j in range(n + 1)]  # λ̄_0 = 0, …, λ̄_n
    cases = []
    for m in range(n):
        above = sp.Lt(partial[m], mu) if m else sp.true
        condition = sp.And(above, sp.Lt(mu, partial[m + 1])) if m else sp.Ge(lambdas[0], mu)
        cases.append(
            FluidCase(
                names[m],
                m,
                condition,
                tuple(
                    lambdas[j] if j < m else mu - partial[m] if j == m else zero for j in range(n)
                ),
                rewards[m],
                tuple(rewards[j] - rewards[m] if j < m else zero for j in range(n)),
                lambdas,
                rewards,
                mu,
            )
        )
    cases.append(
        FluidCase(
            "underloaded", None, sp.Le(partial[n], mu), lambdas, zero, rewards, lambdas, rewards, mu
        )
    )
    return FluidDerivation(tuple(cases), lambdas, rewards, mu)


def fluid_bound(net: LossNetwork) -> float:
    """R_fluid = N [Σ_{j<m} r_j λ_j + r_m (μ − λ̄_{m-1})], m the marginal class: the
    fluid LP's value (the case "class m marginal" of :func:`derive_fluid`); for
    two classes N [r_H λ_H + r_L (μ − λ_H)].

    The float bound; :func:`fluid_lp` gives the LP's details
    (admission rates, the server's shadow price).
    :func:`~qtheory.lossnet.duration_fluid.duration_fluid_bound` follows the same
    convention.

    Parameters
    ----------
    net : LossNetwork
        The network: two classes are evaluated by the generated two-class closed form,
        more by the n-class one summed with ``math.fsum`` (the two agree to rounding at
        n = 2; tests).

    Returns
    -------
    float
        R_fluid.

    Raises
    ------
    TypeError
        If ``net`` is not a network.

    References
    ----------
    See the module's References: Xie, Gurvich and Küçükyavuz (2025).

    Examples
    --------
    >>> fluid_bound(LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0))
    160.0
    >>> round(fluid_bound(LossNetwork(100, (0.3, 0.9, 0.6), (3, 2, 1), 1.0)), 9)
    230.0
    """
    net = as_network(net)
    if net.n_classes > 2:
        return _class_fluid_bound(net)
    bound = _generated.fluid_bound_float64(net.servers, net.lambda_h, net.mu, net.r_h, net.r_l)
    return float(bound)


def _class_fluid_bound(net: LossNetwork) -> float:
    m = net.marginal
    above = [r * lam for r, lam in zip(net.rewards[:m], net.lambdas[:m], strict=True)]
    left = math.fsum((net.mu, *(-lam for lam in net.lambdas[:m])))
    return net.servers * math.fsum((*above, net.rewards[m] * left))


@dataclass(frozen=True)
class FluidSolution:
    """The optimal fluid LP: total reward rate, admission rates, the dual prices and the
    marginal class.

    Attributes
    ----------
    value : float
        N times the optimum per server.
    admission_rates : numpy.ndarray
        x_i N, the admitted rate of each class.
    server_price : float
        y, the dual price of the capacity Σ x_i/μ_i <= 1 (one server's worth); with a
        common μ it is r_m μ, m the marginal class.
    bound_prices : numpy.ndarray
        z_i, the dual prices of x_i <= λ_i: (r_i − y/μ_i)^+.
    marginal : int or None
        The 0-based marginal class, the one whose reward per server r_i μ_i is the
        server price; None when the capacity is slack (everybody fits).

    Examples
    --------
    >>> sol = fluid_lp(LossNetwork(10, (0.3, 0.9, 0.6), (3, 2, 1), 1.0))
    >>> sol.marginal, round(sol.server_price, 9), round(sol.value, 9)
    (1, 2.0, 23.0)
    """

    value: float
    admission_rates: np.ndarray
    server_price: float
    bound_prices: np.ndarray
    marginal: int | None


def fluid_lp(
    arrival_rates, rewards=None, service_rates=None, servers: float | None = None
) -> FluidSolution:
    """Solve the single-pool fluid LP with HiGHS and read the marginal class off its dual.

    Two input forms: a network (a :class:`LossNetwork`, common μ, its N servers), or the
    per-class vectors with optional per-class service rates.

    Parameters
    ----------
    arrival_rates : LossNetwork or array_like
        The network, or the per-class λ_i (per server).
    rewards, service_rates : array_like
        With vectors: r_i and μ_i, of the length of ``arrival_rates``, all > 0.
    servers : float, optional
        With vectors: N > 0 (default 1); arrival rates scale as λ_i N.

    Returns
    -------
    FluidSolution
        The optimum, admission rates, dual prices and the marginal class.

    Raises
    ------
    ValueError
        If a vector is empty, not 1-D, has a non-finite or non-positive entry, the
        lengths differ, ``servers`` is not a finite number > 0, or a network comes with
        vectors.
    RuntimeError
        If HiGHS fails, or (for a network) its dual names no class as marginal (the
        server price is no class's r_i μ_i to 1e-9 relative).

    References
    ----------
    See the module's References: Xie, Gurvich and Küçükyavuz (2025).

    Examples
    --------
    >>> sol = fluid_lp([0.6, 0.8], [2.0, 1.0], [1.0, 1.0], servers=100)
    >>> round(sol.value, 9), sol.admission_rates.round(9).tolist(), round(sol.server_price, 9)
    (160.0, [60.0, 40.0], 1.0)
    >>> sol = fluid_lp(LossNetwork(100, (0.3, 0.5, 0.6, 0.2), (4, 3, 2, 1), 1.0))
    >>> sol.marginal, sol.admission_rates.round(9).tolist()
    (2, [30.0, 50.0, 20.0, 0.0])
    """
    network = isinstance(arrival_rates, LossNetwork)
    if network:
        if rewards is not None or service_rates is not None or servers is not None:
            raise ValueError(
                "rewards, service_rates, servers: give a network or the vectors, not both"
            )
        net = arrival_rates
        rates, rewards = np.array(net.lambdas), np.array(net.rewards)
        service, servers = np.full(rates.size, net.mu), float(net.servers)
    else:
        rates, rewards, service = per_class_vectors(
            arrival_rates=arrival_rates, rewards=rewards, service_rates=service_rates
        )
        servers = 1.0 if servers is None else validation.positive("servers", servers)
    result = _highs(rates, rewards, service)
    # The minimisation's marginals are <= 0: minus them are the maximisation's prices.
    price = float(-result.ineqlin.marginals[0])
    worth = rewards * service  # r_i μ_i, one server's reward rate on class i
    gaps = np.abs(worth - price)
    marginal = int(np.argmin(gaps))
    if not (price > 0 and gaps[marginal] <= 1e-9 * worth.max()):
        if network:
            raise RuntimeError(
                f"HiGHS's server price {price} is no class's reward rate r_i mu = {worth}"
            )
        marginal = None
    return FluidSolution(
        value=float(-result.fun * servers),
        admission_rates=result.x * servers,
        server_price=price,
        bound_prices=-np.asarray(result.upper.marginals, dtype=float),
        marginal=marginal,
    )


def _highs(rates: np.ndarray, rewards: np.ndarray, service: np.ndarray):
    """scipy's HiGHS result for max Σ r_i x_i s.t. Σ x_i/μ_i <= 1, 0 <= x_i <= λ_i (per
    server; ``result.fun`` is minus the optimum, the marginals are those of the
    minimisation)."""
    from scipy.optimize import linprog  # loaded by the first LP (not by --help)

    result = linprog(
        -rewards,
        A_ub=(1.0 / service)[None, :],
        b_ub=[1.0],
        bounds=list(zip(np.zeros_like(rates), rates, strict=True)),
        method="highs",
    )
    if not result.success:
        raise RuntimeError(f"HiGHS failed on the fluid LP: {result.message}")
    return result
