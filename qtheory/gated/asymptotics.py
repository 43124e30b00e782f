r"""Asymptotics of the optimal gate and the Price of Forgetting, derived with Sympy and
checked with mpmath.

Source: Hassin and Ravner, arXiv:2606.02464 (PoF unbounded as :math:`\nu\downarrow 1`,
absolute gain bounded; heavy-traffic behaviour).

**Nearly worthless service,** :math:`\nu = 1+\varepsilon`, :math:`\varepsilon\downarrow 0`.
The optimal queue is nearly empty (:math:`\sigma\to 0`).  With
:math:`K = \mu/\Lambda - \log(1+\mu/\Lambda)` (:math:`K=0` for :math:`\Lambda=\infty`) the
expansions :math:`\mu D = -\log\sigma + K + O(\sigma\log\sigma)` of the mean cycle
:math:`D = \tau + 1/\Lambda` and :math:`\mu N/C = \varepsilon - \sigma + O(\sigma^2)` of the net
reward reduce the welfare to :math:`C(\varepsilon-\sigma)/(K-\log\sigma)`, whose maximiser
solves :math:`\sigma(1 + K - \log\sigma) = \varepsilon`:

.. math:: \hat\sigma = \exp\bigl(K + 1 + W_{-1}(-\varepsilon e^{-K-1})\bigr),\qquad
          S_{GA}^* \sim C\hat\sigma,\qquad
          \mathrm{PoF} \sim \frac{\hat\sigma}{(\sqrt{\nu}-1)^2}
          \sim \frac{4}{\varepsilon\log(1/\varepsilon)}.

So PoF diverges while the absolute gain :math:`S_{GA}^*-S_{RR}^* \le S_{GA}^* \to 0` stays
bounded.  (Sympy's solver returns the principal branch :math:`W_0`; the root in (0, 1)
that tends to 0 is on the branch :math:`W_{-1}`, which :func:`derive_light_traffic`
selects and checks.)

**Valuable service,** :math:`\nu\to\infty` with :math:`\Lambda>\mu` (heavy traffic: the
optimal load tends to 1).  With :math:`u = \mu(1-\sigma)\to 0`,
:math:`D = 1/\mu + m u/\mu^2 + O(u^2)` where :math:`m = (1 + \mu^2/\Lambda^2)/2`
(:math:`m = (1 + c_a^2)/2` with :math:`c_a` the limiting coefficient of variation of
admitted inter-arrival times), and

.. math:: \tau^* = \frac1\mu - \frac1\Lambda + \frac{\sqrt m}{\mu\sqrt\nu} + O(1/\nu),\qquad
          \mathrm{PoF} = 1 + \frac{2(1-\sqrt m)}{\sqrt\nu} + O(1/\nu),\qquad
          S_{GA}^* - S_{RR}^* = 2C(1-\sqrt m)\sqrt\nu + O(1).

Here the ratio tends to 1 while the absolute gain grows like :math:`\sqrt\nu`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import mpmath
import sympy as sp

from qtheory.gated.derivation import (
    arrival_rate,
    cost,
    derive,
    mean_exp_phase,
    naor_ratio,
    root,
    service_rate,
)
from qtheory.gated.model import GatedQueue
from qtheory.gated.welfare import optimal_gate, optimal_routing

__all__ = [
    "AsymptoticCheck",
    "check_heavy_traffic",
    "check_light_traffic",
    "derive_heavy_traffic",
    "derive_light_traffic",
]

excess = sp.Symbol("epsilon", positive=True)  # ν − 1
decay = sp.Symbol("u", positive=True)  # μ(1 − σ)


@dataclass(frozen=True)
class LightTraffic:
    """Leading-order behaviour as ν = 1 + ε ↓ 1 (Sympy expressions in ε, μ, Λ, C)."""

    shift: sp.Expr  # K
    cycle_expansion: sp.Expr  # series of μD in σ
    root: sp.Expr  # σ̂(ε)
    welfare_ga: sp.Expr  # S_GA* ~ C σ̂
    gate: sp.Expr  # τ* ~ (K - log σ̂)/μ - 1/Λ
    price_of_forgetting: sp.Expr  # σ̂ / (√ν − 1)², with ν = 1 + ε
    price_of_forgetting_leading: sp.Expr  # 4 / (ε log(1/ε))


@dataclass(frozen=True)
class HeavyTraffic:
    """Leading-order behaviour as ν → ∞ with Λ > μ."""

    variability: sp.Expr  # m
    cycle_expansion: sp.Expr  # series of D in u
    gate: sp.Expr  # τ* to O(ν^{-1/2})
    price_of_forgetting: sp.Expr  # 1 + 2(1 − √m)/√ν
    welfare_gain: sp.Expr  # 2C(1 − √m)√ν


@cache
def derive_light_traffic() -> LightTraffic:
    """Derive the ν ↓ 1 asymptotics (see the module docstring)."""
    cycle = 1 / derive().throughput.expr
    expansion = sp.series(service_rate * cycle, root, 0, 1).removeO()
    shift = expansion + sp.log(root)  # μD = -log σ + K
    k = sp.Symbol("K", real=True)
    reduced = cost * (excess - root) / (k - sp.log(root))
    (solution,) = sp.solve(sp.diff(reduced, root), root)
    # Sympy returns the principal branch, whose σ tends to e^{K+1} ≥ 1 as ε → 0; the
    # root in (0, 1) that tends to 0 is on the branch W_{-1} (tests check both facts).
    lower_branch = solution.replace(sp.LambertW, lambda z: sp.LambertW(z, -1))
    sigma_hat = lower_branch.subs(k, shift)
    routing = derive().rr_optimal_welfare.expr.subs(naor_ratio, 1 + excess)
    # -W_{-1}(-x) ~ log(1/x) as x -> 0+, so sigma_hat ~ eps / log(1/eps); S_RR* ~ C eps^2/4.
    routing_leading = sp.series(routing, excess, 0, 3).removeO()
    return LightTraffic(
        shift=shift,
        cycle_expansion=expansion,
        root=sigma_hat,
        welfare_ga=cost * sigma_hat,
        gate=(shift - sp.log(sigma_hat)) / service_rate - 1 / arrival_rate,
        price_of_forgetting=cost * sigma_hat / routing,
        price_of_forgetting_leading=sp.simplify(
            cost * excess / sp.log(1 / excess) / routing_leading
        ),
    )


@cache
def derive_heavy_traffic() -> HeavyTraffic:
    """Derive the ν → ∞ asymptotics by a regular perturbation in h = ν^{-1/2}."""
    cycle = (1 / derive().throughput.expr).subs(root, 1 - decay / service_rate)
    expansion = sp.series(cycle, decay, 0, 2).removeO()
    m = sp.factor(sp.diff(expansion, decay) * service_rate**2)
    h = sp.Symbol("h", positive=True)
    reward = cost * naor_ratio / service_rate
    welfare = (reward - cost / decay) / expansion
    stationary = sp.solve(sp.numer(sp.together(sp.diff(welfare, decay))), decay)
    (u_star,) = [
        u
        for u in stationary
        if sp.limit(u.subs(naor_ratio, h**-2), h, 0, "+") == 0
        and u.subs({naor_ratio: 4, service_rate: 1, arrival_rate: 2, cost: 1}) > 0
    ]
    gate = sp.series(
        (expansion - 1 / arrival_rate).subs(decay, u_star).subs(naor_ratio, h**-2), h, 0, 2
    ).removeO()
    rr = derive().rr_optimal_welfare.expr.subs(naor_ratio, h**-2)
    optimal = welfare.subs(decay, u_star).subs(naor_ratio, h**-2)
    pof = sp.series(optimal / rr, h, 0, 2).removeO()
    gain = sp.series(optimal - rr, h, 0, 0).removeO()  # the O(h^-2) terms cancel
    root_nu = sp.sqrt(naor_ratio)
    return HeavyTraffic(
        variability=m,
        cycle_expansion=expansion,
        gate=sp.simplify(gate.subs(h, 1 / root_nu)),
        price_of_forgetting=sp.simplify(pof.subs(h, 1 / root_nu)),
        welfare_gain=sp.simplify(gain.subs(h, 1 / root_nu)),
    )


@dataclass(frozen=True)
class AsymptoticCheck:
    """One quantity, exact (mpmath) against its asymptotic form, at one point."""

    point: str  # e.g. "nu-1=1e-20"
    quantity: str  # e.g. "PoF"
    exact: mpmath.mpf
    asymptotic: mpmath.mpf
    relative_error: mpmath.mpf

    @classmethod
    def compare(cls, point: str, quantity: str, exact, asymptotic) -> AsymptoticCheck:
        """Build a check; call inside the working precision of ``exact``."""
        return cls(point, quantity, exact, asymptotic, abs(exact / asymptotic - 1))


def evaluate_asymptote(expr: sp.Expr, values: dict, arrival: str) -> mpmath.mpf:
    """Evaluate an asymptotic form with mpmath at the current precision; ``values``
    maps its symbols (other than Λ) to numbers, ``arrival`` is Λ (``"inf"`` allowed)."""
    if mpmath.isinf(mpmath.mpf(arrival)):  # Λ = ∞ is β = 1/Λ = 0
        in_beta = expr.subs(arrival_rate, 1 / mean_exp_phase)
        expr = in_beta.subs(mean_exp_phase, 0)
        if expr.has(sp.nan, sp.zoo):  # e.g. sqrt(2/β² + 2μ²)·β: take the limit instead
            expr = sp.limit(in_beta, mean_exp_phase, 0, "+")
    else:
        values = {**values, arrival_rate: mpmath.mpf(arrival)}
    symbols = sorted(values, key=str)
    evaluator = sp.lambdify(symbols, expr, modules=[{"LambertW": mpmath.lambertw}, "mpmath"])
    return evaluator(*(values[symbol] for symbol in symbols))


def check_light_traffic(exponent: int, arrival: str = "inf", dps: int = 60):
    """Exact against asymptotic PoF, τ* and welfare gain at ν = 1 + 10**-exponent
    (μ = C = 1).

    >>> pof, gate, gain = check_light_traffic(12, dps=40)
    >>> pof.relative_error < 1e-9, gain.exact < 1e-12
    (True, True)
    """
    light = derive_light_traffic()
    with mpmath.workdps(2 * dps + 20 + exponent):  # the forms cancel ~log10(1/eps) digits
        eps = mpmath.mpf(10) ** (-exponent)
        queue = GatedQueue(arrival, 1, 1 + eps, 1)
        gate, routing = optimal_gate(queue, dps), optimal_routing(queue, dps)
        values = {excess: eps, service_rate: mpmath.mpf(1), cost: mpmath.mpf(1)}
        point = f"nu-1=1e-{exponent}"
        return (
            AsymptoticCheck.compare(
                point,
                "PoF",
                gate.welfare / routing.welfare,
                evaluate_asymptote(light.price_of_forgetting, values, arrival),
            ),
            AsymptoticCheck.compare(
                point, "tau*", gate.gate, evaluate_asymptote(light.gate, values, arrival)
            ),
            AsymptoticCheck.compare(
                point,
                "S_GA*-S_RR*",
                gate.welfare - routing.welfare,
                evaluate_asymptote(light.welfare_ga, values, arrival) - routing.welfare,
            ),
        )


def check_heavy_traffic(exponent: int, arrival: str = "inf", dps: int = 60):
    """Exact against asymptotic PoF − 1, τ* − (1/μ − 1/Λ) and welfare gain at
    ν = 10**exponent (μ = C = 1).

    >>> excess_pof, excess_gate, gain = check_heavy_traffic(12, dps=40)
    >>> excess_pof.relative_error < 1e-5
    True
    """
    heavy = derive_heavy_traffic()
    with mpmath.workdps(2 * dps + 20 + exponent):  # PoF - 1 cancels about log10(nu) digits
        nu = mpmath.mpf(10) ** exponent
        queue = GatedQueue(arrival, 1, nu, 1)
        gate, routing = optimal_gate(queue, dps), optimal_routing(queue, dps)
        values = {naor_ratio: nu, service_rate: mpmath.mpf(1), cost: mpmath.mpf(1)}
        boundary = 1 - 1 / mpmath.mpf(arrival)
        point = f"nu=1e{exponent}"
        return (
            AsymptoticCheck.compare(
                point,
                "PoF-1",
                gate.welfare / routing.welfare - 1,
                evaluate_asymptote(heavy.price_of_forgetting - 1, values, arrival),
            ),
            AsymptoticCheck.compare(
                point,
                "tau*-tau_min",
                gate.gate - boundary,
                evaluate_asymptote(heavy.gate, values, arrival) - boundary,
            ),
            AsymptoticCheck.compare(
                point,
                "S_GA*-S_RR*",
                gate.welfare - routing.welfare,
                evaluate_asymptote(heavy.welfare_gain, values, arrival),
            ),
        )
