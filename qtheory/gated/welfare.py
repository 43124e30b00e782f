r"""Welfare of gated admission (GA) and random routing (RR), their optima and the Price of
Forgetting.

Source: Hassin and Ravner, arXiv:2606.02464; RR optimum after Edelson and Hildebrand
(1975).  Formulas come from :mod:`qtheory.gated.derivation`:

.. math::
    S_{GA}(\tau) = \frac{R - C/(\mu(1-\sigma))}{\tau + 1/\Lambda},\qquad
    S_{RR}(\lambda) = \lambda\Bigl(R - \frac{C}{\mu-\lambda}\Bigr),

    \mathrm{PoF} = \max_{\tau\ge 0} S_{GA}(\tau) \Big/ \max_{0\le\lambda\le\Lambda} S_{RR}(\lambda).

The GA optimum is found in :math:`w = -\log\sigma`, where :math:`S_{GA}` is a smooth
function of one variable: the root of the first-order condition
:math:`N'(w)D(w) - N(w)D'(w) = 0` (:math:`S = N/D`) on a bracket whose left end is where
the net reward :math:`N` vanishes (:math:`\sigma = 1 - 1/\nu`; the slope is :math:`N'D>0`
there) or, when :math:`\Lambda < \mu`, the point :math:`\tau = 0` (:math:`\sigma = \Lambda/\mu`),
whichever is larger.  If the slope is already negative at :math:`\tau = 0`, the optimum
is the boundary :math:`\tau^* = 0`.

Accuracy.  The optima are scalars, so they are always computed in mpmath, at twice the
requested digits plus guard digits for the cancellation near :math:`\nu = 1` (about
:math:`\log_{10} 1/(\nu-1)` digits) and in heavy traffic (about :math:`\log_{10}\nu`):
with ``dps=None`` at 17 digits and rounded to float64 (full float64 accuracy at every
corner, a few milliseconds each); with ``dps=D`` the values carry guard digits beyond D,
to be rounded once when printed.  Welfare curves (:func:`welfare_ga`) are vectorised
float64.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import mpmath
import numpy as np

from qtheory.gated.derivation import derive
from qtheory.gated.model import GatedQueue
from qtheory.gated.root import log_root, root_mp
from qtheory.numerics import bracketed_root_mp

__all__ = [
    "GateOptimum",
    "RoutingOptimum",
    "optimal_gate",
    "optimal_routing",
    "price_of_forgetting",
    "welfare_ga",
    "welfare_rr",
]

Real = float | mpmath.mpf
FLOAT64_DIGITS = 17


@dataclass(frozen=True)
class GateOptimum:
    """The welfare-maximising gate τ* and the queue it produces."""

    gate: Real
    root: Real
    log_root: Real
    welfare: Real
    throughput: Real
    mean_sojourn: Real
    at_boundary: bool  # τ* = 0: the constraint τ ≥ 0 binds


@dataclass(frozen=True)
class RoutingOptimum:
    """The welfare-maximising random-routing admission rate λ*."""

    rate: Real
    welfare: Real
    at_boundary: bool  # λ* = Λ: admitting everybody is optimal


def _as_float(optimum):
    """The same record with every mpf field converted to float64."""
    values = {f.name: getattr(optimum, f.name) for f in fields(optimum)}
    return type(optimum)(
        **{k: float(v) if isinstance(v, mpmath.mpf) else v for k, v in values.items()}
    )


def _working_dps(queue: GatedQueue, dps: int) -> int:
    return 2 * dps + 20 + queue.guard_digits()


def welfare_ga(queue: GatedQueue, gate, dps: int | None = None):
    """S_GA(τ): vectorised over ``gate`` in float64, or one value with ``dps`` digits.

    >>> q = GatedQueue(arrival_rate=np.inf, service_rate=1.0, reward=3.0, cost=1.0)
    >>> float(welfare_ga(q, 2.0)) > float(welfare_rr(q, 0.5))  # same throughput 1/2
    True
    """
    f = derive().welfare_ga
    if dps is None:
        p = queue.parameters()
        w = log_root(gate, float(mpmath.mpf(queue.arrival_rate)), p["mu"])
        return f.float64(w, p["mu"], p["beta"], p["R"], p["C"])
    with mpmath.workdps(_working_dps(queue, dps)):
        p = queue.parameters(dps)
        sigma = root_mp(gate, queue.arrival_rate, queue.service_rate, mpmath.mp.dps)
        return f.mp(-mpmath.log(sigma), p["mu"], p["beta"], p["R"], p["C"])


def welfare_rr(queue: GatedQueue, rate) -> np.ndarray:
    """S_RR(λ) = λ(R − C/(μ − λ)) for 0 ≤ λ < μ, vectorised over ``rate``.

    >>> q = GatedQueue(arrival_rate=np.inf, service_rate=1.0, reward=3.0, cost=1.0)
    >>> float(welfare_rr(q, 0.5))
    0.5
    """
    p = queue.parameters()
    rate = np.asarray(rate, dtype=float)
    if not np.all((rate >= 0) & (rate < p["mu"]) & (rate <= float(mpmath.mpf(queue.arrival_rate)))):
        raise ValueError("rate must satisfy 0 <= rate < service_rate and rate <= arrival_rate")
    return derive().welfare_rr.float64(rate, p["mu"], p["R"], p["C"])[()]


def _optimal_gate_mp(queue: GatedQueue, dps: int) -> GateOptimum:
    f = derive()
    p = queue.parameters(dps)
    args = (p["mu"], p["beta"], p["R"], p["C"])

    def slope(w):
        return f.welfare_ga_first_order.mp(w, *args)

    nu = p["R"] * p["mu"] / p["C"]
    w_zero_net = -mpmath.log1p(-1 / nu)  # N = 0: σ = 1 - 1/ν
    mu_beta = p["mu"] * p["beta"]
    w_no_gate = mpmath.log(mu_beta) if mu_beta > 1 else mpmath.mpf(0)  # τ = 0: σ = Λ/μ
    at_boundary = w_no_gate >= w_zero_net and slope(w_no_gate) <= 0
    if at_boundary:
        w = w_no_gate
    else:
        lo = max(w_zero_net, w_no_gate)
        hi = lo + 1
        while slope(hi) > 0:
            hi = 2 * hi
        w = bracketed_root_mp(slope, lo, hi, dps + 2)
    return GateOptimum(
        gate=mpmath.mpf(0) if at_boundary else f.gate_of_root.mp(w, p["mu"], p["beta"]),
        root=mpmath.exp(-w),
        log_root=w,
        welfare=f.welfare_ga.mp(w, *args),
        throughput=f.throughput.mp(w, p["mu"], p["beta"]),
        mean_sojourn=f.mean_sojourn.mp(w, p["mu"], p["beta"]),
        at_boundary=bool(at_boundary),
    )


def optimal_gate(queue: GatedQueue, dps: int | None = None) -> GateOptimum:
    """The welfare-maximising gate τ* and S_GA(τ*).

    Examples
    --------
    >>> q = GatedQueue(arrival_rate=np.inf, service_rate=1.0, reward=3.0, cost=1.0)
    >>> opt = optimal_gate(q)
    >>> grid = np.linspace(1.05, 4.0, 20001)
    >>> bool(abs(opt.welfare - welfare_ga(q, grid).max()) < 1e-8)
    True
    """
    queue.require_worthwhile()
    digits = FLOAT64_DIGITS if dps is None else dps
    with mpmath.workdps(_working_dps(queue, digits)):
        optimum = _optimal_gate_mp(queue, digits)
    return _as_float(optimum) if dps is None else optimum


def _optimal_routing_mp(queue: GatedQueue, dps: int) -> RoutingOptimum:
    f = derive()
    p = queue.parameters(dps)
    unconstrained = f.rr_optimal_rate.mp(p["mu"], p["R"], p["C"])
    arrival = 1 / p["beta"] if p["beta"] else None
    if arrival is not None and arrival <= unconstrained:
        return RoutingOptimum(arrival, f.welfare_rr.mp(arrival, p["mu"], p["R"], p["C"]), True)
    nu = p["R"] * p["mu"] / p["C"]
    welfare = f.rr_optimal_welfare.mp(nu, p["C"])
    return RoutingOptimum(unconstrained, welfare, False)


def optimal_routing(queue: GatedQueue, dps: int | None = None) -> RoutingOptimum:
    """The Edelson–Hildebrand optimum λ* = min(Λ, μ − √(μC/R)) and S_RR(λ*).

    >>> q = GatedQueue(arrival_rate=np.inf, service_rate=1.0, reward=4.0, cost=1.0)
    >>> optimal_routing(q)
    RoutingOptimum(rate=0.5, welfare=1.0, at_boundary=False)
    """
    queue.require_worthwhile()
    digits = FLOAT64_DIGITS if dps is None else dps
    with mpmath.workdps(_working_dps(queue, digits)):
        optimum = _optimal_routing_mp(queue, digits)
    return _as_float(optimum) if dps is None else optimum


def price_of_forgetting(queue: GatedQueue, dps: int | None = None) -> Real:
    """PoF = S_GA(τ*) / S_RR(λ*) ≥ 1: the welfare ratio lost by forgetting admissions.

    >>> q = GatedQueue(arrival_rate=np.inf, service_rate=1.0, reward=4.0, cost=1.0)
    >>> 1 < price_of_forgetting(q) < 2
    True
    """
    queue.require_worthwhile()
    digits = FLOAT64_DIGITS if dps is None else dps
    with mpmath.workdps(_working_dps(queue, digits)):
        ratio = _optimal_gate_mp(queue, digits).welfare / _optimal_routing_mp(queue, digits).welfare
    return float(ratio) if dps is None else ratio
