r"""The claims about phase-type gates (:mod:`qtheory.gated.phase_gates`): PoF of the best
Erlang-m gate against m, the Erlang gate against searches over Coxian gates of the same
order, and the Sympy derivation of the Erlang gate's welfare against the numerical
route, each returned as a :class:`~qtheory.core.claims.Claim`.
"""

from __future__ import annotations

import math

import numpy as np

from qtheory.core.claims import Claim, Evidence, Origin, in_set
from qtheory.core.records import Records
from qtheory.gated.phase_gates import (
    MODEL,
    PHASES,
    coxian_search,
    derive_erlang_gate,
    optimal_erlang_gate,
    pof_by_phases,
)
from qtheory.gated.welfare import (
    optimal_routing,
)
from qtheory.model.gated import GatedQueue

__all__ = [
    "erlang_order_residuals",
    "phase_gate_claims",
]


# ---- claims ------------------------------------------------------------------------------


def erlang_order_residuals() -> tuple:
    r"""The identities behind PoF(m) nondecreasing in m (Sympy; each simplifies to 0).

    At equal mean θ the Erlang-m gate's transform is (1 + θs/m)^{−m} = exp(−m log(1 + x/m))
    with x = θs > 0; it decreases in m because

    .. math:: \partial_m\,[m\log(1 + x/m)] = k(x/m), \qquad
              k(y) = \log(1+y) - \frac{y}{1+y}, \quad k(0) = 0, \quad
              k'(y) = \frac{y}{(1+y)^2} > 0.

    Returns
    -------
    tuple of sympy.Expr
        ∂_m[m log(1 + x/m)] − k(x/m) and k'(y) − y/(1 + y)².

    Examples
    --------
    >>> import sympy as sp
    >>> [sp.simplify(r) for r in erlang_order_residuals()]
    [0, 0]
    """
    import sympy as sp

    m, x, y = sp.symbols("m x y", positive=True)

    def k(t):
        return sp.log(1 + t) - t / (1 + t)

    return (sp.diff(m * sp.log(1 + x / m), m) - k(x / m), sp.diff(k(y), y) - y / (1 + y) ** 2)


def _identity_claim(name: str, statement: str, residuals, quantity: str) -> Claim:
    import sympy as sp

    passed = all(sp.simplify(r) == 0 for r in residuals)
    return Claim(
        name=name,
        statement=statement,
        kind=Evidence.IDENTITY,
        passed=passed,
        origin=Origin.PACKAGE,
        hypotheses=(MODEL,),
        quantity=quantity,
    )


def phase_gate_claims(quick: bool = False) -> Records[Claim]:
    r"""The Erlang-m gate claims: the two limits (identities), m = 1 equal to RR, PoF(m)
    nondecreasing in m for all parameters (identity, :func:`erlang_order_residuals`) and
    increasing towards GA's PoF on a grid (finite range), and the Erlang gate optimal
    among Coxian-m gates (numerical, multi-start local search).

    Parameters
    ----------
    quick : bool
        Fewer queues and starts (the tests); the full run is the report's.

    Returns
    -------
    list of qtheory.core.claims.Claim

    Examples
    --------
    >>> claims = phase_gate_claims(quick=True)
    >>> [c.passed for c in claims], sorted({str(c.kind) for c in claims})
    ([True, True, True, True, True, True], ['finite-range', 'identity', 'numerical'])
    """
    f = derive_erlang_gate()
    arrivals, ratios = (("inf", 2.0), (2, 5)) if quick else (("inf", 2.0, 0.5), (1.5, 2, 5, 20))
    queues = [GatedQueue(a, 1, nu, 1) for a in arrivals for nu in ratios]
    phases = (1, 2, 4, 8, 16, 32, 64) if quick else PHASES
    tables = [pof_by_phases(q, phases) for q in queues]
    rr_errors = [
        abs(optimal_erlang_gate(q, 1, dps=30).welfare / optimal_routing(q, dps=30).welfare - 1)
        for q in queues
        if q.arrival_rate == "inf"
    ]
    increasing = all(
        np.allclose(t.welfare, t.welfare_ga, rtol=1e-14, atol=0)
        if t.ga_at_boundary
        else np.all(np.diff(t.welfare) > 0) and t.welfare[-1] < t.welfare_ga
        for t in tables
    )
    pairs = in_set(r"(\Lambda, \nu)", [(a, nu) for a in arrivals for nu in ratios])
    scope = (
        f"$m = {phases[0]}, \\dots, {phases[-1]}$ ({len(phases)} values); {pairs}; $\\mu = C = 1$"
    )
    coxian_phases, starts = ((2,), 2) if quick else ((2, 3, 4), 8)
    searches = [coxian_search(q, m, starts=starts) for q in queues for m in coxian_phases]
    worst_gap = max(s.relative_gap for s in searches)
    claims = [
        _identity_claim(
            "gated.ph.m1_is_rr",
            r"with $m = 1$ and $\Lambda = \infty$ the admitted stream is Poisson of rate "
            r"$1/\tau$ and $S_1(\tau) = S_{RR}(1/\tau)$",
            (f.stream_residual, f.routing_residual),
            r"$A^*(s) - \lambda/(\lambda+s)$ and $S_1 - S_{RR}$ at $\tau = 1/\lambda$",
        ),
        _identity_claim(
            "gated.ph.erlang_limit_is_ga",
            r"as $m\to\infty$ the Erlang-$m$ gate's transform tends to $e^{-s\tau}$ and "
            r"$\tau_m(w)$ to GA's $\tau(w)$",
            (f.gate_lst_limit_residual, f.gate_of_root_limit_residual),
            r"$\lim_{m\to\infty}\tau_m(w) - \tau_{GA}(w)$",
        ),
        Claim(
            name="gated.ph.m1_equals_rr",
            statement=r"at $\Lambda = \infty$ the optimal Erlang-1 gate attains exactly "
            r"$S_{RR}^* = C(\sqrt\nu - 1)^2$",
            kind=Evidence.FINITE_RANGE,
            passed=float(max(rr_errors)) < 1e-25,
            origin=Origin.PACKAGE,
            hypotheses=(MODEL, r"$\Lambda = \infty$"),
            scope=scope + "; RR comparison at Λ = ∞ only, 30 digits",
            quantity=r"largest $|S_1^*/S_{RR}^* - 1|$",
            value=float(max(rr_errors)),
            reference=0.0,
            tolerance=1e-25,
        ),
        _identity_claim(
            "gated.ph.pof_monotone",
            r"for every $\Lambda$, $\mu$, $R$, $C$ with $\nu > 1$ and every $m \ge 1$, "
            r"$S_{m+1}^* \ge S_m^*$ and $S_{\mathrm{GA}}^* \ge S_m^*$, so $\mathrm{PoF}(m)$ "
            r"is nondecreasing in $m$ (strictly where the Erlang-$m$ optimum has a positive "
            r"gate): at equal mean $\theta$ the gate's transform $(1 + \theta s/m)^{-m}$ "
            r"decreases in $m$ towards $e^{-\theta s}$ for every $s > 0$, since "
            r"$\partial_m[m\log(1 + x/m)] = k(x/m)$ with $k(y) = \log(1+y) - y/(1+y)$, "
            r"$k(0) = 0$, $k'(y) = y/(1+y)^2 > 0$; a pointwise smaller $A^*(s)$ makes the "
            r"convex residual $A^*(\mu(1-x)) - x$ negative at the old root, so the GI/M/1 "
            r"root $\sigma$ falls and the welfare at the same throughput rises: "
            r"$S_{m+1}^* \ge S_{m+1}(\theta_m^*) > S_m(\theta_m^*) = S_m^*$",
            erlang_order_residuals(),
            r"$\partial_m[m\log(1+x/m)] - k(x/m)$ and $k'(y) - y/(1+y)^2$",
        ),
        Claim(
            name="gated.ph.pof_increasing",
            statement=r"$\mathrm{PoF}(m) = S_m^*/S_{RR}^*$ increases strictly with $m$ and "
            r"stays below GA's PoF where GA's optimal gate is positive; where it is "
            r"$\tau^* = 0$ (admit everybody) every Erlang gate's optimum equals GA's",
            kind=Evidence.FINITE_RANGE,
            passed=bool(increasing),
            origin=Origin.PACKAGE,
            hypotheses=(MODEL, r"$\nu = R\mu/C > 1$"),
            scope=scope,
            quantity=r"smallest $\mathrm{PoF}_{GA} - \mathrm{PoF}(m_{\max})$ over interior optima",
            value=min(
                (t.pof_ga - t.pof[-1] for t in tables if not t.ga_at_boundary), default=math.nan
            ),
        ),
        Claim(
            name="gated.ph.erlang_optimal_among_coxian",
            statement=r"no Coxian-$m$ gate found beats the optimal Erlang-$m$ gate by more "
            r"than a relative $10^{-9}$",
            kind=Evidence.NUMERICAL,
            passed=worst_gap < 1e-9,
            origin=Origin.PACKAGE,
            hypotheses=(MODEL, r"gates: Coxian-$m$ laws (every acyclic PH($m$) law)"),
            scope=f"Coxian {in_set('m', coxian_phases)}; {pairs}; $\\mu = C = 1$; "
            f"{starts} starts each",
            quantity=r"largest relative welfare gain of a Coxian gate over Erlang-$m$",
            value=worst_gap,
            reference=0.0,
            tolerance=1e-9,
            reason=(
                "multi-start local optimisation (L-BFGS-B, float64) finds local optima "
                "only; it does not prove that no better PH(m) gate exists"
            ),
        ),
    ]
    return Records(claims)
