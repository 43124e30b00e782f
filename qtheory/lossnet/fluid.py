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

With n classes, :math:`r_1 > \dots > r_n` and a common :math:`\mu`, the LP is a
fractional knapsack: with :math:`\Lambda_j = \lambda_1 + \dots + \lambda_j` and the
marginal class :math:`m` (:math:`\Lambda_{m-1} < \mu < \Lambda_m`) it admits
:math:`x_j = \lambda_j` for :math:`j < m`, :math:`x_m = \mu - \Lambda_{m-1}` and nothing
below :math:`m`, so

.. math:: R_{fluid} = N\Bigl[\sum_{j<m} r_j\lambda_j + r_m(\mu - \Lambda_{m-1})\Bigr];

the dual prices are :math:`y = r_m` for the capacity :math:`\sum_j x_j \le \mu` (one
server, serving :math:`\mu` jobs per unit time, is worth :math:`r_m\mu`) and
:math:`z_j = (r_j - r_m)^+` for :math:`x_j \le \lambda_j`.  :func:`derive_class_fluid`
states every case (which class is marginal) with its primal and dual solutions in
Sympy for a fixed n (3 by default); :func:`class_fluid` solves the LP of a
:class:`~qtheory.model.classes.ClassNetwork` with HiGHS and reads the marginal class
off the dual.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from qtheory.core import validation
from qtheory.lossnet import _generated
from qtheory.model.classes import ClassNetwork, as_classes
from qtheory.model.lossnet import LossNetwork, as_network

if TYPE_CHECKING:  # the Sympy side is imported by derive_fluid, when it runs
    import sympy as sp

    from qtheory.core.symbolic import Formula

__all__ = [
    "ClassFluid",
    "ClassFluidCase",
    "ClassFluidDerivation",
    "FluidCase",
    "FluidDerivation",
    "FluidSolution",
    "class_fluid",
    "class_vectors",
    "derive_class_fluid",
    "derive_fluid",
    "fluid_bound",
    "fluid_lp",
]


def class_vectors(**named: object) -> tuple[np.ndarray, ...]:
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
    >>> class_vectors(arrival_rates=[0.6, 0.8], rewards=[2, 1])
    (array([0.6, 0.8]), array([2., 1.]))
    >>> class_vectors(arrival_rates=[], rewards=[])
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
    """One regime of the two-class fluid LP, with its primal and dual solutions.

    Attributes
    ----------
    name : str
        The regime.
    condition : sympy.Boolean
        Where it applies.
    admitted_h, admitted_l : sympy.Expr
        Primal solution x_H, x_L (per server).
    capacity_price, surplus_price_h, surplus_price_l : sympy.Expr
        Dual prices of x_H + x_L <= μ, x_H <= λ_H and x_L <= λ_L.

    Examples
    --------
    >>> derive_fluid().overloaded.admitted_l
    -lambda_H + mu
    """

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
        from qtheory.model.lossnet_symbols import r_h, r_l

        return r_h * self.admitted_h + r_l * self.admitted_l

    @property
    def dual_value(self) -> sp.Expr:
        """Dual objective per server, μ y + λ_H z_H + λ_L z_L."""
        from qtheory.model.lossnet_symbols import lambda_h, lambda_l, mu

        return (
            mu * self.capacity_price
            + lambda_h * self.surplus_price_h
            + (lambda_l * self.surplus_price_l)
        )


@dataclass(frozen=True)
class FluidDerivation:
    """The fluid LP solved by cases (:func:`derive_fluid`).

    Attributes
    ----------
    cases : tuple of FluidCase
        H saturates, overloaded, underloaded.
    overloaded : FluidCase
        The paper's regime λ_H < μ < λ_H + λ_L.
    bound : Formula
        R_fluid = N (r_H λ_H + r_L (μ − λ_H)), in (N, λ_H, μ, r_H, r_L).

    Examples
    --------
    >>> [case.name for case in derive_fluid().cases]
    ['H saturates', 'overloaded', 'underloaded']
    """

    cases: tuple[FluidCase, ...]
    overloaded: FluidCase
    bound: Formula  # N (r_H λ_H + r_L (μ - λ_H)), in (N, λ_H, μ, r_H, r_L)


@cache
def derive_fluid() -> FluidDerivation:
    """Solve the two-class fluid LP by cases (r_H > r_L > 0, common μ).

    Each case lists a primal point and dual prices; the tests let Sympy check primal
    feasibility, dual feasibility (y + z_H ≥ r_H, y + z_L ≥ r_L, all prices ≥ 0) and
    equal objectives under the case's condition, which proves optimality.

    Returns
    -------
    FluidDerivation
        The cases, the overloaded one, and the bound as a :class:`Formula`.

    References
    ----------
    .. [1] X. Xie, I. Gurvich and S. Küçükyavuz, Operations Research 73(4) (2025).

    Examples
    --------
    >>> derive_fluid().overloaded.value
    lambda_H*r_H + r_L*(-lambda_H + mu)
    """
    import sympy as sp

    from qtheory.core.symbolic import Formula
    from qtheory.model.lossnet_symbols import lambda_h, lambda_l, mu, r_h, r_l, servers

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


def fluid_bound(net: LossNetwork | ClassNetwork) -> float:
    """R_fluid = N [Σ_{j<m} r_j λ_j + r_m (μ − Λ_{m-1})], m the marginal class: the
    fluid LP's value (the case "class m marginal" of :func:`derive_class_fluid`); for
    two classes N [r_H λ_H + r_L (μ − λ_H)].

    The float bound; :func:`fluid_lp` and :func:`class_fluid` give the LP's details
    (admission rates, the server's shadow price).
    :func:`~qtheory.lossnet.duration_fluid.duration_fluid_bound` follows the same
    convention.

    Parameters
    ----------
    net : LossNetwork or ClassNetwork
        The network: a :class:`LossNetwork` is evaluated by the generated two-class
        closed form, a :class:`ClassNetwork` by the n-class one summed with
        ``math.fsum`` (the two agree to rounding at n = 2; tests).

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
    .. [1] X. Xie, I. Gurvich and S. Küçükyavuz, Operations Research 73(4) (2025).

    Examples
    --------
    >>> fluid_bound(LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0))
    160.0
    >>> round(fluid_bound(ClassNetwork(100, (0.3, 0.9, 0.6), (3, 2, 1), 1.0)), 9)
    230.0
    """
    if isinstance(net, ClassNetwork):
        return _class_fluid_bound(net)
    net = as_network(net)
    bound = _generated.fluid_bound_float64(net.servers, net.lambda_h, net.mu, net.r_h, net.r_l)
    return float(bound)


def _class_fluid_bound(net: ClassNetwork) -> float:
    m = net.marginal
    above = [r * lam for r, lam in zip(net.rewards[:m], net.lambdas[:m], strict=True)]
    left = math.fsum((net.mu, *(-lam for lam in net.lambdas[:m])))
    return net.servers * math.fsum((*above, net.rewards[m] * left))


@dataclass(frozen=True)
class FluidSolution:
    """Optimal fluid LP: total reward rate, admission rates (per class, total) and the
    shadow price of one server.

    Attributes
    ----------
    value : float
        N times the optimum per server.
    admission_rates : numpy.ndarray
        x_i N, the admitted rate of each class.
    server_price : float
        The dual price of the capacity constraint.

    Examples
    --------
    >>> fluid_lp([0.6, 0.8], [2.0, 1.0], [1.0, 1.0]).server_price
    1.0
    """

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
        N > 0; arrival rates scale as λ_i N.

    Returns
    -------
    FluidSolution
        The optimum, admission rates and the server's shadow price.

    Raises
    ------
    ValueError
        If a vector is empty, not 1-D, has a non-finite or non-positive entry, the
        lengths differ, or ``servers`` is not a finite number > 0.
    RuntimeError
        If HiGHS fails.

    References
    ----------
    .. [1] X. Xie, I. Gurvich and S. Küçükyavuz, Operations Research 73(4) (2025).

    Examples
    --------
    >>> sol = fluid_lp([0.6, 0.8], [2.0, 1.0], [1.0, 1.0], servers=100)
    >>> round(sol.value, 9), sol.admission_rates.round(9).tolist(), round(sol.server_price, 9)
    (160.0, [60.0, 40.0], 1.0)
    """
    rates, rewards, service = class_vectors(
        arrival_rates=arrival_rates, rewards=rewards, service_rates=service_rates
    )
    servers = validation.positive("servers", servers)
    result = _highs(rates, rewards, service)
    return FluidSolution(
        value=float(-result.fun * servers),
        admission_rates=result.x * servers,
        server_price=float(-result.ineqlin.marginals[0]),
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


@dataclass(frozen=True)
class ClassFluid:
    """The fluid LP of an n-class network (common μ), solved by HiGHS, with its dual.

    Attributes
    ----------
    value : float
        R_fluid = N max Σ r_j x_j.
    admission_rates : numpy.ndarray
        x_j N, the admitted rate of each class.
    capacity_price : float
        y, the dual price of Σ x_j <= μ; it equals r_m, the marginal class's reward.
    surplus_prices : numpy.ndarray
        z_j, the dual prices of x_j <= λ_j (r_j − r_m above the marginal class, else 0).
    marginal : int
        The 0-based marginal class m: the class whose reward is the capacity price.

    Examples
    --------
    >>> sol = class_fluid(ClassNetwork(10, (0.3, 0.9, 0.6), (3, 2, 1), 1.0))
    >>> sol.marginal, round(sol.capacity_price, 9), round(sol.value, 9)
    (1, 2.0, 23.0)
    """

    value: float
    admission_rates: np.ndarray
    capacity_price: float
    surplus_prices: np.ndarray
    marginal: int


def class_fluid(net: ClassNetwork | LossNetwork) -> ClassFluid:
    """Solve the fluid LP of an n-class network with HiGHS and read the marginal class
    off the dual: the class whose reward equals the capacity price y.

    Parameters
    ----------
    net : ClassNetwork or LossNetwork
        The network (a :class:`LossNetwork` is read as classes (H, L)).

    Returns
    -------
    ClassFluid
        Value, admission rates, the dual prices and the marginal class.

    Raises
    ------
    TypeError
        If ``net`` is not a network.
    RuntimeError
        If HiGHS fails, or its dual names no class as marginal (the capacity price is
        no class's reward to 1e-9 relative).

    References
    ----------
    .. [1] X. Xie, I. Gurvich and S. Küçükyavuz, Operations Research 73(4) (2025).

    Examples
    --------
    >>> sol = class_fluid(ClassNetwork(100, (0.3, 0.5, 0.6, 0.2), (4, 3, 2, 1), 1.0))
    >>> sol.marginal, sol.admission_rates.round(9).tolist()
    (2, [30.0, 50.0, 20.0, 0.0])
    """
    net = as_classes(net)
    rates, rewards = np.array(net.lambdas), np.array(net.rewards)
    result = _highs(rates, rewards, np.full(rates.size, net.mu))
    # The minimisation's marginals are <= 0: minus them are the maximisation's prices.
    price = float(-result.ineqlin.marginals[0]) / net.mu  # per unit of Σ x_j, not per server
    gaps = np.abs(rewards - price)
    marginal = int(np.argmin(gaps))
    if not gaps[marginal] <= 1e-9 * rewards[0]:
        raise RuntimeError(f"HiGHS's capacity price {price} is no class's reward {net.rewards}")
    return ClassFluid(
        value=float(-result.fun * net.servers),
        admission_rates=result.x * net.servers,
        capacity_price=price,
        surplus_prices=-np.asarray(result.upper.marginals, dtype=float),
        marginal=marginal,
    )


@dataclass(frozen=True)
class ClassFluidCase:
    """One case of the n-class fluid LP (common μ): which class is marginal, with the
    primal point and dual prices that certify it.

    Attributes
    ----------
    name : str
        ``"class j marginal"`` (1-based j) or ``"underloaded"``.
    marginal : int or None
        The 0-based marginal class (None when everybody fits).
    condition : sympy.Boolean
        Where the case applies: Λ_{m-1} < μ < Λ_m (class 1: λ_1 >= μ).
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
    >>> derive_class_fluid(3).cases[1].admitted
    (lambda_1, -lambda_1 + mu, 0)
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
class ClassFluidDerivation:
    """The n-class fluid LP solved by cases (:func:`derive_class_fluid`).

    Attributes
    ----------
    cases : tuple of ClassFluidCase
        Class 1, …, class n marginal, then underloaded.
    lambdas, rewards : tuple of sympy.Symbol
        λ_1..λ_n and r_1..r_n.
    mu : sympy.Symbol
        μ.

    Examples
    --------
    >>> [case.name for case in derive_class_fluid(3).cases]
    ['class 1 marginal', 'class 2 marginal', 'class 3 marginal', 'underloaded']
    """

    cases: tuple[ClassFluidCase, ...]
    lambdas: tuple[sp.Symbol, ...]
    rewards: tuple[sp.Symbol, ...]
    mu: sp.Symbol


@cache
def derive_class_fluid(n: int = 3) -> ClassFluidDerivation:
    """The n-class fluid LP (r_1 > … > r_n > 0, common μ) by cases, in Sympy.

    Case "class m marginal" (Λ_{m-1} < μ < Λ_m): x_j = λ_j above m, x_m = μ − Λ_{m-1},
    0 below; y = r_m, z_j = r_j − r_m above m, 0 otherwise.  Primal feasibility, dual
    feasibility (y + z_j >= r_j, prices >= 0) and equal objectives under the case's
    condition prove optimality (the tests let Sympy check all three); the dual is
    unique inside each case, so the marginal class is the one whose reward is the
    capacity price.

    Parameters
    ----------
    n : int, optional
        The number of classes, >= 2 (default 3).

    Returns
    -------
    ClassFluidDerivation
        The n + 1 cases.

    Raises
    ------
    ValueError
        If ``n`` is not an integer >= 2.

    References
    ----------
    .. [1] X. Xie, I. Gurvich and S. Küçükyavuz, Operations Research 73(4) (2025).

    Examples
    --------
    >>> case = derive_class_fluid(3).cases[2]
    >>> case.condition
    (lambda_1 + lambda_2 < mu) & (mu < lambda_1 + lambda_2 + lambda_3)
    >>> case.value
    lambda_1*r_1 + lambda_2*r_2 + r_3*(-lambda_1 - lambda_2 + mu)
    """
    import sympy as sp

    n = validation.positive_int("n", n)
    if n < 2:
        raise ValueError(f"n must be >= 2, got {n}")
    lambdas = sp.symbols(f"lambda_1:{n + 1}", positive=True)
    rewards = sp.symbols(f"r_1:{n + 1}", positive=True)
    mu = sp.Symbol("mu", positive=True)
    zero = sp.Integer(0)
    partial = [sum(lambdas[:j], zero) for j in range(n + 1)]  # Λ_0 = 0, …, Λ_n
    cases = []
    for m in range(n):
        above = sp.Lt(partial[m], mu) if m else sp.true
        condition = sp.And(above, sp.Lt(mu, partial[m + 1])) if m else sp.Ge(lambdas[0], mu)
        cases.append(
            ClassFluidCase(
                f"class {m + 1} marginal",
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
        ClassFluidCase(
            "underloaded",
            None,
            sp.Le(partial[n], mu),
            lambdas,
            zero,
            rewards,
            lambdas,
            rewards,
            mu,
        )
    )
    return ClassFluidDerivation(tuple(cases), lambdas, rewards, mu)
