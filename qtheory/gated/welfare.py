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

Every function takes ``dps``: ``None`` evaluates in float64; an integer evaluates with
mpmath and returns values correct to about that many significant digits.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import mpmath
import numpy as np
from scipy.optimize import elementwise

from qtheory.gated.derivation import derive
from qtheory.gated.model import GatedQueue
from qtheory.gated.root import log_root, root_mp
from qtheory.symbolic import Formula

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


def welfare_ga(queue: GatedQueue, gate, dps: int | None = None):
    """S_GA(τ): vectorised over ``gate`` in float64, or one value to ``dps`` digits.

    >>> q = GatedQueue(arrival_rate=np.inf, service_rate=1.0, reward=3.0, cost=1.0)
    >>> float(welfare_ga(q, 2.0)) > float(welfare_rr(q, 0.5))  # same throughput 1/2
    True
    """
    f = derive().welfare_ga
    if dps is None:
        p = queue.parameters()
        w = log_root(gate, float(queue.arrival_rate), p["mu"])
        return f.float64(w, p["mu"], p["beta"], p["R"], p["C"])
    with mpmath.workdps(_working_dps(dps)):
        p = queue.parameters(dps)
        w = -mpmath.log(root_mp(gate, queue.arrival_rate, queue.service_rate, _working_dps(dps)))
        value = f.mp(w, p["mu"], p["beta"], p["R"], p["C"])
    return _rounded(value, dps)


def welfare_rr(queue: GatedQueue, rate) -> np.ndarray:
    """S_RR(λ) = λ(R − C/(μ − λ)) for 0 ≤ λ < μ, vectorised over ``rate``.

    >>> q = GatedQueue(arrival_rate=np.inf, service_rate=1.0, reward=3.0, cost=1.0)
    >>> float(welfare_rr(q, 0.5))
    0.5
    """
    p = queue.parameters()
    rate = np.asarray(rate, dtype=float)
    if not np.all((rate >= 0) & (rate < p["mu"]) & (rate <= float(queue.arrival_rate))):
        raise ValueError("rate must satisfy 0 <= rate < service_rate and rate <= arrival_rate")
    return derive().welfare_rr.float64(rate, p["mu"], p["R"], p["C"])[()]


def _evaluate(formula: Formula, dps: int | None, *args: Real) -> Real:
    return formula.float64(*args) if dps is None else formula.mp(*args)


def _bracketed_root(f: Callable, lo: Real, hi: Real, dps: int | None) -> Real:
    if dps is None:
        result = elementwise.find_root(f, (lo, hi))
        if not result.success:
            raise RuntimeError(f"first-order condition: root search failed ({result.status})")
        return float(result.x)
    # The slope is not normalised, so mpmath's absolute residual check is meaningless;
    # a candidate counts only if the slope changes sign across a relative 10**-dps
    # neighbourhood.  Fast bracketing solvers first, bisection (always converges) last.
    delta = mpmath.mpf(10) ** (-dps - 2)
    for solver in ("anderson", "illinois", "bisect"):
        w = mpmath.findroot(f, (lo, hi), solver=solver, verify=False, maxsteps=4 * mpmath.mp.prec)
        if f(w * (1 - delta)) > 0 > f(w * (1 + delta)):
            return w
    raise ArithmeticError("first-order condition: could not verify the root; raise dps")


def _working_dps(dps: int | None) -> int:
    """Working precision for ``dps`` requested digits.  The first-order condition and the
    RR welfare cancel up to about log10(1/(ν-1)) digits near ν = 1 and log10(ν) digits in
    heavy traffic, so they are evaluated at twice the requested precision plus a guard."""
    return 2 * (dps or 0) + 20


def _rounded(value: Real, dps: int | None) -> Real:
    if dps is None:
        return float(value)
    with mpmath.workdps(dps):
        return +value


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
    f = derive()
    with mpmath.workdps(_working_dps(dps)):
        lib = np if dps is None else mpmath
        p = queue.parameters(dps)
        args = (p["mu"], p["beta"], p["R"], p["C"])

        def slope(w):
            return _evaluate(f.welfare_ga_first_order, dps, w, *args)

        nu = p["R"] * p["mu"] / p["C"]
        w_zero_net = -lib.log1p(-1 / nu)  # N = 0: σ = 1 - 1/ν
        zero = 0 * nu  # typed zero (float or mpf)
        w_no_gate = lib.log(p["mu"] * p["beta"]) if p["mu"] * p["beta"] > 1 else zero
        lo = max(w_zero_net, w_no_gate)
        at_boundary = w_no_gate >= w_zero_net and slope(w_no_gate) <= 0
        if at_boundary:
            w = w_no_gate
        else:
            hi = lo + 1
            while slope(hi) > 0:
                hi = 2 * hi
            w = _bracketed_root(slope, lo, hi, dps)
        gate = zero if at_boundary else _evaluate(f.gate_of_root, dps, w, p["mu"], p["beta"])
        values = {
            "gate": gate,
            "root": lib.exp(-w),
            "log_root": w,
            "welfare": _evaluate(f.welfare_ga, dps, w, *args),
            "throughput": _evaluate(f.throughput, dps, w, p["mu"], p["beta"]),
            "mean_sojourn": _evaluate(f.mean_sojourn, dps, w, p["mu"], p["beta"]),
        }
    rounded = {name: _rounded(value, dps) for name, value in values.items()}
    return GateOptimum(**rounded, at_boundary=bool(at_boundary))


def optimal_routing(queue: GatedQueue, dps: int | None = None) -> RoutingOptimum:
    """The Edelson–Hildebrand optimum λ* = min(Λ, μ − √(μC/R)) and S_RR(λ*).

    >>> q = GatedQueue(arrival_rate=np.inf, service_rate=1.0, reward=4.0, cost=1.0)
    >>> optimal_routing(q)
    RoutingOptimum(rate=0.5, welfare=1.0, at_boundary=False)
    """
    queue.require_worthwhile()
    f = derive()
    with mpmath.workdps(_working_dps(dps)):
        p = queue.parameters(dps)
        unconstrained = _evaluate(f.rr_optimal_rate, dps, p["mu"], p["R"], p["C"])
        arrival = 1 / p["beta"] if p["beta"] else None
        at_boundary = arrival is not None and arrival <= unconstrained
        rate = arrival if at_boundary else unconstrained
        welfare = _evaluate(f.welfare_rr, dps, rate, p["mu"], p["R"], p["C"])
    return RoutingOptimum(_rounded(rate, dps), _rounded(welfare, dps), bool(at_boundary))


def price_of_forgetting(queue: GatedQueue, dps: int | None = None) -> Real:
    """PoF = S_GA(τ*) / S_RR(λ*) ≥ 1: the welfare ratio lost by forgetting admissions.

    >>> q = GatedQueue(arrival_rate=np.inf, service_rate=1.0, reward=4.0, cost=1.0)
    >>> 1 < price_of_forgetting(q) < 2
    True
    """
    guard = None if dps is None else dps + 10
    with mpmath.workdps((dps or 0) + 15):
        ratio = optimal_gate(queue, guard).welfare / optimal_routing(queue, guard).welfare
    return _rounded(ratio, dps)
