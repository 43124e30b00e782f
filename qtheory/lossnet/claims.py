"""Claims about the fluid bound and the online optimum, as checks.

Sources: Xie, Gurvich and Küçükyavuz (2025), R_fluid − R_on = Θ(log N); Miller (1969),
trunk reservation is optimal; Bray (arXiv:2601.14538) for the setting.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from qtheory.claims import Claim
from qtheory.lossnet.fluid import fluid_bound, fluid_lp
from qtheory.lossnet.mdp import solve_admission_mdp
from qtheory.lossnet.model import LossNetwork
from qtheory.lossnet.online import online_optimum
from qtheory.lossnet.regret import RegretPoint, fit_log_slope, leading_constant

XGK = "Xie, Gurvich & Kucukyavuz, Oper. Res. 73(4), 2025"


def fluid_claim(net: LossNetwork) -> Claim:
    """Sympy's closed-form fluid bound equals the HiGHS solution of the fluid LP."""
    numeric = fluid_lp(
        [net.lambda_h, net.lambda_l], [net.r_h, net.r_l], [net.mu, net.mu], net.servers
    ).value
    exact = fluid_bound(net)
    return Claim(
        "lossnet.fluid",
        "R_fluid = N[r_H lambda_H + r_L(mu - lambda_H)] (HiGHS LP)",
        numeric,
        exact,
        1e-9 * exact,
        abs(numeric - exact) <= 1e-9 * exact,
        XGK,
        quantity=f"optimum of the fluid LP solved by HiGHS (N = {net.servers})",
    )


def trunk_reservation_claim(net: LossNetwork) -> Claim:
    """The unrestricted MDP optimum is trunk reservation with the searched reserve."""
    mdp = solve_admission_mdp(net)
    search = online_optimum(net)
    passed = mdp.reserve() == search.threshold and abs(mdp.online - search.online) <= (
        1e-9 * search.online
    )
    return Claim(
        "lossnet.trunk_reservation",
        f"the MDP optimum (N = {net.servers}, policy iteration) is trunk reservation with "
        "the reserve found by the O(N) search, and the same gain",
        float(mdp.online),
        float(search.online),
        1e-9 * search.online,
        bool(passed),
        "Miller, Management Science 1969",
        quantity=f"optimal gain of the admission MDP (N = {net.servers}, policy iteration)",
    )


def log_regret_claim(net: LossNetwork, points: list[RegretPoint]) -> Claim:
    """The regret grows like c log N with c = r_L μ / log(μ/λ_H).

    The half-width is the 95% regression interval of the slope, t_{0.975, n-2} times
    its standard error: the regret is exact, so it measures how well a line fits the
    O(1) wobble of the integer reserve, not sampling error.
    """
    c = leading_constant(net)
    fit = fit_log_slope(points, min_servers=10**3)
    fitted = sum(p.servers >= 10**3 for p in points)
    return Claim(
        "lossnet.log_regret",
        "slope of R_fluid - R_on against log N (N >= 1e3) equals r_L mu / log(mu/lambda_H) "
        "within 1% (at these parameters; where lambda_H + lambda_L - mu is small the O(1) "
        "term settles slowly and a finite-N slope differs more)",
        fit.slope,
        c,
        0.01 * c,
        abs(fit.slope - c) <= 0.01 * c,
        XGK,
        quantity="least-squares slope of the exact regret on log N over N >= 1e3",
        ci_halfwidth=float(stats.t.ppf(0.975, fitted - 2) * fit.slope_stderr),
    )


def bounded_offset_claim(net: LossNetwork, points: list[RegretPoint]) -> Claim:
    """R_fluid − R_on − c log N stays bounded (it converges up to the O(1) wobble of the
    integer reserve)."""
    c = leading_constant(net)
    top = max(p.servers for p in points)
    offsets = [p.regret - c * np.log(p.servers) for p in points if p.servers >= top / 1000]
    spread = float(np.ptp(offsets))
    return Claim(
        "lossnet.bounded_offset",
        "R_fluid - R_on - c log N varies by less than 0.1 over the top three decades of N",
        spread,
        0.0,
        0.1,
        spread < 0.1,
        XGK,
        quantity="max - min of the exact R_fluid - R_on - c log N over the top three decades",
    )


def lossnet_claims(net: LossNetwork, points: list[RegretPoint]) -> list[Claim]:
    """Every claim of this part, checked (``points`` from :func:`regret_curve`)."""
    return [
        fluid_claim(net.with_servers(100)),
        trunk_reservation_claim(net.with_servers(100)),
        log_regret_claim(net, points),
        bounded_offset_claim(net, points),
    ]
