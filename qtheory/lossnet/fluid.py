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
from typing import TYPE_CHECKING

import numpy as np

from qtheory import _validation
from qtheory.lossnet import _generated
from qtheory.lossnet.model import LossNetwork, as_network

if TYPE_CHECKING:  # the Sympy side is imported by derive_fluid, when it runs
    import sympy as sp

    from qtheory.symbolic import Formula

__all__ = [
    "FluidCase",
    "FluidDerivation",
    "FluidSolution",
    "class_vectors",
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
        from qtheory.lossnet.symbols import r_h, r_l

        return r_h * self.admitted_h + r_l * self.admitted_l

    @property
    def dual_value(self) -> sp.Expr:
        """Dual objective per server, μ y + λ_H z_H + λ_L z_L."""
        from qtheory.lossnet.symbols import lambda_h, lambda_l, mu

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

    from qtheory.lossnet.symbols import lambda_h, lambda_l, mu, r_h, r_l, servers
    from qtheory.symbolic import Formula

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

    The float bound; :func:`fluid_lp` gives the LP's details (admission rates, the
    server's shadow price).  :func:`~qtheory.lossnet.duration_fluid.duration_fluid_bound`
    follows the same convention.

    Parameters
    ----------
    net : LossNetwork
        The network.

    Returns
    -------
    float
        R_fluid.

    Raises
    ------
    TypeError
        If ``net`` is not a :class:`LossNetwork`.

    References
    ----------
    .. [1] X. Xie, I. Gurvich and S. Küçükyavuz, Operations Research 73(4) (2025).

    Examples
    --------
    >>> net = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> fluid_bound(net)
    160.0
    """
    net = as_network(net)
    bound = _generated.fluid_bound_float64(net.servers, net.lambda_h, net.mu, net.r_h, net.r_l)
    return float(bound)


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
    from scipy.optimize import linprog  # loaded by the first LP (not by --help)

    rates, rewards, service = class_vectors(
        arrival_rates=arrival_rates, rewards=rewards, service_rates=service_rates
    )
    servers = _validation.positive("servers", servers)
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
