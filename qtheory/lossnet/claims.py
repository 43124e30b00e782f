"""Claims about the fluid bound and the online optimum, as checks.

Sources: Xie, Gurvich and Küçükyavuz (2025), R_fluid − R_on = Θ(log N); Miller (1969),
trunk reservation is optimal; Bray (arXiv:2601.14538) for the setting.

References
----------
.. [1] X. Xie, I. Gurvich and S. Küçükyavuz, "Dynamic allocation of reusable resources:
   logarithmic regret in overloaded networks", Operations Research 73(4) (2025).
.. [2] B. L. Miller, "A queueing reward system with several customer classes",
   Management Science 16(3):234-245 (1969).
.. [3] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
   overloaded loss network", arXiv:2601.14538 (2026).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from qtheory.claims import Claim
from qtheory.lossnet.fluid import fluid_bound, fluid_lp
from qtheory.lossnet.mdp import solve_admission_mdp
from qtheory.lossnet.model import LossNetwork, as_network
from qtheory.lossnet.online import online_optimum
from qtheory.lossnet.regret import RegretPoint, _regret_points, fit_log_slope, leading_constant

__all__ = [
    "bounded_offset_claim",
    "fluid_claim",
    "log_regret_claim",
    "lossnet_claims",
    "trunk_reservation_claim",
]

XGK = "Xie, Gurvich & Kucukyavuz, Oper. Res. 73(4), 2025"


def fluid_claim(net: LossNetwork) -> Claim:
    """Sympy's closed-form fluid bound equals the HiGHS solution of the fluid LP.

    Parameters
    ----------
    net : LossNetwork
        The network.

    Returns
    -------
    Claim
        ``lossnet.fluid``: the LP optimum against the closed form, relative tolerance
        1e-9.

    Raises
    ------
    TypeError
        If ``net`` is not a :class:`LossNetwork`.

    References
    ----------
    .. [1] X. Xie, I. Gurvich and S. Küçükyavuz, Operations Research 73(4) (2025).

    Examples
    --------
    >>> fluid_claim(LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)).passed
    True
    """
    net = as_network(net)
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
    """The unrestricted MDP optimum is trunk reservation with the searched reserve.

    Parameters
    ----------
    net : LossNetwork
        The network (N states + 1: keep N in the hundreds).

    Returns
    -------
    Claim
        ``lossnet.trunk_reservation``: the MDP's gain against the O(N) search, and
        whether its policy is trunk reservation with the same reserve.

    Raises
    ------
    TypeError
        If ``net`` is not a :class:`LossNetwork`.

    References
    ----------
    .. [1] B. L. Miller, Management Science 16(3):234-245 (1969).

    Examples
    --------
    >>> trunk_reservation_claim(LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0)).passed
    True
    """
    net = as_network(net)
    mdp = solve_admission_mdp(net)
    search = online_optimum(net)
    passed = mdp.reserve == search.reserve and abs(mdp.online - search.online) <= (
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


def log_regret_claim(net: LossNetwork, points: Sequence[RegretPoint]) -> Claim:
    """The regret grows like c log N with c = r_L μ / log(μ/λ_H).

    The half-width is that of the 95% regression interval of the slope (the
    :class:`~qtheory.stats.Estimate` of :func:`fit_log_slope`): the regret is exact,
    so it measures how well a line fits the O(1) wobble of the integer reserve, not
    sampling error.

    Parameters
    ----------
    net : LossNetwork
        Rates and rewards.
    points : sequence of RegretPoint
        From :func:`~qtheory.lossnet.regret.regret_curve`; at least 3 with N >= 1000.

    Returns
    -------
    Claim
        ``lossnet.log_regret``: the fitted slope against c, relative tolerance 1%.

    Raises
    ------
    TypeError
        If ``net`` or ``points`` has the wrong type.
    ValueError
        If fewer than 3 points have N >= 1000.

    References
    ----------
    .. [1] X. Xie, I. Gurvich and S. Küçükyavuz, Operations Research 73(4) (2025).

    Examples
    --------
    >>> from qtheory.lossnet.regret import regret_curve
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> points = regret_curve(net, [10**3, 10**4, 10**5, 10**6])
    >>> log_regret_claim(net, points).passed
    True
    """
    c = leading_constant(net)
    fit = fit_log_slope(points, min_servers=10**3)
    return Claim(
        "lossnet.log_regret",
        "slope of R_fluid - R_on against log N (N >= 1e3) equals r_L mu / log(mu/lambda_H) "
        "within 1% (at these parameters; where lambda_H + lambda_L - mu is small the O(1) "
        "term settles slowly and a finite-N slope differs more)",
        fit.slope.mean,
        c,
        0.01 * c,
        abs(fit.slope.mean - c) <= 0.01 * c,
        XGK,
        quantity="least-squares slope of the exact regret on log N over N >= 1e3",
        ci_halfwidth=fit.slope.halfwidth,
    )


def bounded_offset_claim(net: LossNetwork, points: Sequence[RegretPoint]) -> Claim:
    """R_fluid − R_on − c log N stays bounded (it converges up to the O(1) wobble of the
    integer reserve).

    Parameters
    ----------
    net : LossNetwork
        Rates and rewards.
    points : sequence of RegretPoint
        From :func:`~qtheory.lossnet.regret.regret_curve` (non-empty).

    Returns
    -------
    Claim
        ``lossnet.bounded_offset``: the spread of regret − c log N over the top three
        decades of N, which must be below 0.1.

    Raises
    ------
    TypeError
        If ``net`` or ``points`` has the wrong type.
    ValueError
        If ``points`` is empty.

    References
    ----------
    .. [1] X. Xie, I. Gurvich and S. Küçükyavuz, Operations Research 73(4) (2025).

    Examples
    --------
    >>> from qtheory.lossnet.regret import regret_curve
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> bounded_offset_claim(net, regret_curve(net, [10**4, 10**5])).passed
    True
    """
    c = leading_constant(net)
    points = _regret_points(points)
    if not points:
        raise ValueError("points must hold at least one RegretPoint, got none")
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


def lossnet_claims(net: LossNetwork, points: Sequence[RegretPoint]) -> list[Claim]:
    """Every claim of this part, checked.

    Parameters
    ----------
    net : LossNetwork
        Rates and rewards (the fluid and MDP claims run at N = 100).
    points : sequence of RegretPoint
        From :func:`~qtheory.lossnet.regret.regret_curve`, reaching N >= 1000.

    Returns
    -------
    list of Claim
        ``lossnet.fluid``, ``lossnet.trunk_reservation``, ``lossnet.log_regret`` and
        ``lossnet.bounded_offset``.

    Raises
    ------
    TypeError
        If ``net`` or ``points`` has the wrong type.
    ValueError
        If ``points`` has fewer than 3 points with N >= 1000.

    References
    ----------
    .. [1] X. Xie, I. Gurvich and S. Küçükyavuz, Operations Research 73(4) (2025).
    .. [2] B. L. Miller, Management Science 16(3):234-245 (1969).

    Examples
    --------
    >>> from qtheory.lossnet.regret import regret_curve
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> claims = lossnet_claims(net, regret_curve(net, [10**3, 10**4, 10**5, 10**6]))
    >>> [claim.passed for claim in claims]
    [True, True, True, True]
    """
    net = as_network(net)
    return [
        fluid_claim(net.with_servers(100)),
        trunk_reservation_claim(net.with_servers(100)),
        log_regret_claim(net, points),
        bounded_offset_claim(net, points),
    ]
