r"""Claims about the fluid bound and the online optimum, as checkable records.

- ``lossnet.regret_identity`` (identity): for a policy that admits H whenever a server
  is idle, :math:`R_{fluid} - R = r_L\mu E[\text{idle}] + (r_H - r_L)\lambda_H N
  P(\text{full})`, by Sympy from rate balance.
- ``lossnet.fluid`` (certified): the fluid LP optimum equals
  :math:`N[r_H\lambda_H + r_L(\mu-\lambda_H)]`, by exact primal and dual solutions.
- ``lossnet.trunk_reservation`` (certified): at N = 100, trunk reservation with the
  reserve :math:`k^*` is optimal among all admission policies and the only optimal
  reserve, by the exact gain and bias of the optimality equations.
- ``lossnet.online_optimum`` (certified): for every N of the regret curve, enclosures of
  :math:`R_{on}` and the regret, and :math:`k^*` certified optimal (the O(k* + T)
  argument of :mod:`qtheory.lossnet.certified`).
- ``lossnet.bounded_offset`` (finite-range, heuristic): regret :math:`- c\log N` stays
  within 0.1 over the top three decades of N, where
  :math:`c = r_L\mu/\log(\mu/\lambda_H)` is the package's heuristic balance
  (:mod:`qtheory.lossnet.regret`); Xie, Gurvich and Küçükyavuz prove
  regret :math:`= \Theta(\log N)` but do not state :math:`c`.

References
----------
.. [1] X. Xie, I. Gurvich and S. Küçükyavuz, "Dynamic allocation of reusable resources:
   logarithmic regret in overloaded networks", Operations Research 73(4) (2025).
.. [2] B. L. Miller, "A queueing reward system with several customer classes",
   Management Science 16(3):234-245 (1969).
.. [3] M. L. Puterman, Markov Decision Processes (Wiley 1994).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np
import sympy as sp

from qtheory.claims import Claim, Evidence, Origin
from qtheory.lossnet.certified import (
    _exact_optimality,
    _optimality_data,
    _parameters,
    certified_fluid_lp,
    certified_online_optimum,
)
from qtheory.lossnet.fluid import derive_fluid
from qtheory.lossnet.model import LossNetwork, as_network
from qtheory.lossnet.online import REGRET_IDENTITY, mean_idle_symbol, prob_full_symbol
from qtheory.lossnet.regret import RegretPoint, _regret_points, leading_constant

__all__ = [
    "OVERLOADED",
    "bounded_offset_claim",
    "fluid_claim",
    "lossnet_claims",
    "online_optimum_claim",
    "regret_identity_claim",
    "trunk_reservation_claim",
]

#: The model's standing hypotheses, in the claims' text form.
OVERLOADED = (r"$\lambda_H < \mu < \lambda_H + \lambda_L$ (overloaded) and $r_H > r_L > 0$",)
#: The information model of the online policies.
ONLINE_POLICIES = (
    "admission policies that see the current number of busy servers and the past "
    "(non-anticipating), rewards paid on admission, long-run average reward",
)


def _float(value) -> float:
    return float(Fraction(str(value)))


def _at(net: LossNetwork) -> str:
    """The parameters as claim text."""
    return (
        rf"$N = {net.servers}$, $\lambda_H = {net.lambda_h:g}$, $\lambda_L = {net.lambda_l:g}$, "
        rf"$\mu = {net.mu:g}$, $r_H = {net.r_h:g}$, $r_L = {net.r_l:g}$"
    )


def _power(n: int) -> str:
    """``n`` as LaTeX: ``10^{9}`` for a power of ten from 10^4 on, else its digits."""
    text = str(n)
    if n >= 10**4 and text == "1" + "0" * (len(text) - 1):
        return f"10^{{{len(text) - 1}}}"
    return text


def _rates(net: LossNetwork) -> str:
    """The rates and rewards (not N) as claim text."""
    return (
        rf"$\lambda_H = {net.lambda_h:g}$, $\lambda_L = {net.lambda_l:g}$, $\mu = {net.mu:g}$, "
        rf"$r_H = {net.r_h:g}$, $r_L = {net.r_l:g}$"
    )


def regret_identity_claim() -> Claim:
    """R_fluid − R = r_L μ E[idle] + (r_H − r_L) λ_H N P(full), proved by Sympy.

    For a policy that admits H whenever a server is idle and has a stationary regime:
    H is lost at rate λ_H N P(full) (PASTA), every admitted job leaves at rate μ, so the
    admitted rate is μ E[busy] = μ(N − E[idle]) and L's is that minus H's.  Sympy
    simplifies R_fluid − R − (r_L μ E[idle] + (r_H − r_L) λ_H N P(full)) to 0 with
    R_fluid the overloaded closed form of :func:`~qtheory.lossnet.fluid.derive_fluid`.

    Returns
    -------
    Claim
        ``lossnet.regret_identity``, kind identity.

    References
    ----------
    .. [1] X. Xie, I. Gurvich and S. Küçükyavuz, Operations Research 73(4) (2025).

    Examples
    --------
    >>> claim = regret_identity_claim()
    >>> claim.passed, str(claim.kind)
    (True, 'identity')
    """
    from qtheory.lossnet.symbols import lambda_h, mu, r_h, r_l, servers

    admitted = mu * (servers - mean_idle_symbol)  # rate balance: every admitted job leaves
    admitted_h = lambda_h * servers * (1 - prob_full_symbol)  # PASTA
    reward = r_h * admitted_h + r_l * (admitted - admitted_h)
    difference = sp.simplify(derive_fluid().bound.expr - reward - REGRET_IDENTITY.expr)
    return Claim(
        name="lossnet.regret_identity",
        statement=(
            r"$R_{\mathrm{fluid}} - R = r_L\mu\,E[\mathrm{idle}] + (r_H - r_L)\lambda_H N\,"
            r"P(\mathrm{full})$ for the reward rate $R$ of every admission policy that admits "
            r"H whenever a server is idle, with $R_{\mathrm{fluid}} = N[r_H\lambda_H + "
            r"r_L(\mu - \lambda_H)]$: Sympy simplifies the difference of the two sides to "
            r"$0$ once the admitted rate is written $\mu(N - E[\mathrm{idle}])$ and H's "
            r"$\lambda_H N(1 - P(\mathrm{full}))$"
        ),
        kind=Evidence.IDENTITY,
        passed=bool(difference == 0),
        origin=Origin.PACKAGE,
        hypotheses=(
            "a stationary regime in which the admitted rate equals $\\mu$ times the mean "
            "number of busy servers (rate balance) and H arrivals see the stationary law "
            "(PASTA)",
        ),
        quantity="the simplified difference",
        value=float(difference) if difference.is_number else float("nan"),
        reference=0.0,
    )


def fluid_claim(net: LossNetwork) -> Claim:
    """The fluid LP optimum equals the closed form, certified by exact duality.

    Parameters
    ----------
    net : LossNetwork
        The network (rates and rewards read as exact rationals).

    Returns
    -------
    Claim
        ``lossnet.fluid``, certified: exact primal and dual solutions (checker
        ``lossnet.fluid``), the value compared exactly with
        N[r_H λ_H + r_L(μ − λ_H)].

    Raises
    ------
    TypeError
        If ``net`` is not a :class:`LossNetwork`.

    References
    ----------
    .. [1] X. Xie, I. Gurvich and S. Küçükyavuz, Operations Research 73(4) (2025).

    Examples
    --------
    >>> claim = fluid_claim(LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> claim.passed, str(claim.kind), claim.value
    (True, 'certified', 160.0)
    """
    net = as_network(net)
    sol = certified_fluid_lp(
        [net.lambda_h, net.lambda_l], [net.r_h, net.r_l], [net.mu, net.mu], net.servers
    )
    p = _parameters(net)
    closed = net.servers * (p["r_h"] * p["lambda_h"] + p["r_l"] * (p["mu"] - p["lambda_h"]))
    certificate = {"checker": sol.certificate["checker"],
                   "data": {**sol.certificate["data"], "closed_form": True}}  # fmt: skip
    return Claim(
        name="lossnet.fluid",
        statement=(
            r"The fluid LP $N\max\{r_H x_H + r_L x_L : x_H + x_L \le \mu,\ "
            r"0 \le x_i \le \lambda_i\}$ has optimum "
            r"$R_{\mathrm{fluid}} = N[r_H\lambda_H + r_L(\mu - \lambda_H)] = "
            f"{_float(closed):g}$ at " + _at(net) + ", proved by exact primal and dual "
            "solutions (feasibility and complementary slackness in rationals)"
        ),
        kind=Evidence.CERTIFIED,
        passed=bool(sol.value == closed),
        origin=Origin.PAPER,
        citation="[XGK25]",
        hypotheses=OVERLOADED,
        quantity=r"$R_{\mathrm{fluid}}$ (exact)",
        value=_float(sol.value),
        reference=_float(closed),
        tolerance=0.0,
        certificate=certificate,
    )


def trunk_reservation_claim(net: LossNetwork) -> Claim:
    """Trunk reservation with k* is optimal among all policies, by the exact optimality
    equations.

    Parameters
    ----------
    net : LossNetwork
        The network (N at most :data:`~qtheory.lossnet.certified.MAX_EXACT_SERVERS`;
        the reproduce run uses N = 100).

    Returns
    -------
    Claim
        ``lossnet.trunk_reservation``, certified (checker ``lossnet.optimality``): the
        exact gain and bias of the reserve of
        :func:`~qtheory.lossnet.certified.certified_online_optimum` satisfy
        the average-reward optimality equations, strictly against the other L action.

    Raises
    ------
    TypeError
        If ``net`` is not a :class:`LossNetwork`.
    ValueError
        If N exceeds :data:`~qtheory.lossnet.certified.MAX_EXACT_SERVERS`.

    References
    ----------
    .. [1] B. L. Miller, Management Science 16(3):234-245 (1969).
    .. [2] M. L. Puterman, Markov Decision Processes (Wiley 1994), Sec. 8.4.

    Examples
    --------
    >>> claim = trunk_reservation_claim(LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> claim.passed, claim.certificate["data"]["reserve"], round(claim.value, 6)
    (True, 2, 28.185693)
    """
    from qtheory.lossnet.certified import MAX_EXACT_SERVERS

    net = as_network(net)
    if net.servers > MAX_EXACT_SERVERS:
        raise ValueError(
            f"net.servers must be <= {MAX_EXACT_SERVERS} for the exact optimality "
            f"certificate, got {net.servers}"
        )
    k = certified_online_optimum(net, dps=20).reserve
    gain, bias, problem = _exact_optimality(net, k)
    data = _optimality_data(net, k, gain, bias)
    return Claim(
        name="lossnet.trunk_reservation",
        statement=(
            f"At {_at(net)}, trunk reservation with reserve $k^* = {k}$ (admit L only while "
            f"more than $k^*$ servers are idle) is optimal among all admission policies and "
            f"is the only optimal reserve: its exact gain $g = R_{{\\mathrm{{on}}}}$ and "
            f"bias $h$ satisfy the average-reward optimality equations, with strict "
            f"inequality for the other L action in every state"
        ),
        kind=Evidence.CERTIFIED,
        passed=not problem,
        origin=Origin.PAPER,
        citation="[Mil69]",
        hypotheses=OVERLOADED + ONLINE_POLICIES,
        quantity=r"$R_{\mathrm{on}}$ (the exact gain)",
        value=_float(gain),
        certificate={"checker": "lossnet.optimality", "data": data},
    )


def online_optimum_claim(net: LossNetwork, servers: Sequence[int], *, dps: int = 20) -> Claim:
    """For every N of ``servers``: R_on and the regret enclosed, k* certified optimal.

    Parameters
    ----------
    net : LossNetwork
        Rates and rewards (its own N is ignored).
    servers : sequence of int
        The server counts N >= 1 (non-empty).
    dps : int, keyword-only
        Digits of the enclosures (default 20).

    Returns
    -------
    Claim
        ``lossnet.online_optimum``, certified (checker ``lossnet.online``, one case per
        N); ``value`` is R_on at the largest N.

    Raises
    ------
    TypeError
        If ``net`` is not a :class:`LossNetwork`.
    ValueError
        If ``servers`` is empty or holds an entry that is not an integer >= 1.
    ArithmeticError
        If no N could be certified (one that cannot makes the claim fail).

    References
    ----------
    .. [1] B. L. Miller, Management Science 16(3):234-245 (1969).
    .. [2] M. L. Puterman, Markov Decision Processes (Wiley 1994), Sec. 8.4.

    Examples
    --------
    >>> claim = online_optimum_claim(LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0), [10, 10**6])
    >>> claim.passed, [case["reserve"] for case in claim.certificate["data"]["cases"]]
    (True, [2, 22])
    """
    net = as_network(net)
    sizes = [int(n) for n in servers]
    if not sizes:
        raise ValueError("servers must hold at least one server count, got none")
    results, failed = [], []
    for n in sizes:
        try:
            results.append(certified_online_optimum(net.with_servers(n), dps=dps))
        except ArithmeticError:  # no certificate at four times the digits: a failed claim
            failed.append(n)
    if not results:
        raise ArithmeticError(f"no online optimum could be certified at N = {sizes}")
    top = max(results, key=lambda r: r.certificate["data"]["servers"])
    return Claim(
        name="lossnet.online_optimum",
        statement=(
            f"For each of the {len(sizes)} values of $N$ from ${_power(min(sizes))}$ to "
            f"${_power(max(sizes))}$ ("
            f"{_rates(net)}), trunk reservation with the reserve $k^*(N)$ of the "
            "certificate is optimal among all admission policies and "
            r"is the only optimal reserve, and $R_{\mathrm{on}}(N)$ and "
            r"$R_{\mathrm{fluid}} - R_{\mathrm{on}}(N)$ lie in the enclosures of the "
            f"certificate ({dps} significant digits)"
        ),
        kind=Evidence.CERTIFIED,
        passed=not failed,
        origin=Origin.PACKAGE,
        hypotheses=OVERLOADED + ONLINE_POLICIES,
        scope=f"{len(sizes)} values of $N$ from ${_power(min(sizes))}$ to ${_power(max(sizes))}$",
        quantity=rf"$R_{{\mathrm{{on}}}}$ at $N = {_power(top.certificate['data']['servers'])}$ "
        "(enclosure midpoint)",
        value=top.online.midpoint,
        certificate={
            "checker": "lossnet.online",
            "data": {"cases": [r.certificate["data"] for r in results]},
        },
    )


def bounded_offset_claim(
    net: LossNetwork, points: Sequence[RegretPoint], min_servers: int = 1000
) -> Claim:
    """R_fluid − R_on − c log N stays within 0.1 over every N >= ``min_servers``.

    c = r_L μ / log(μ/λ_H) is the package's heuristic balance
    (:func:`~qtheory.lossnet.regret.derive_leading_constant`); the check is on the
    regret of :func:`~qtheory.lossnet.regret.regret_curve` (rounded from certified
    enclosures) over a finite range of N, so it is ``finite-range`` evidence and never
    proof that the offset stays bounded beyond it.

    Parameters
    ----------
    net : LossNetwork
        Rates and rewards.
    points : sequence of RegretPoint
        From :func:`~qtheory.lossnet.regret.regret_curve`, at least one with
        N >= ``min_servers``.
    min_servers : int, optional
        The smallest N checked (default 1000: below it the offset still drifts).

    Returns
    -------
    Claim
        ``lossnet.bounded_offset``, finite-range, origin heuristic: the spread (max −
        min) of regret − c log N over the points with N >= ``min_servers``, which
        must be below 0.1.

    Raises
    ------
    TypeError
        If ``net`` or ``points`` has the wrong type.
    ValueError
        If ``min_servers`` is not an integer >= 1 or no point has N >= ``min_servers``.

    References
    ----------
    .. [1] X. Xie, I. Gurvich and S. Küçükyavuz, Operations Research 73(4) (2025).

    Examples
    --------
    >>> from qtheory.lossnet.regret import regret_curve
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> claim = bounded_offset_claim(net, regret_curve(net, [10**4, 10**8, 10**12]))
    >>> claim.passed, str(claim.kind), str(claim.origin), round(claim.value, 3)
    (True, 'finite-range', 'heuristic, confirmed numerically', 0.015)
    """
    from qtheory import _validation

    c = leading_constant(net)
    points = _regret_points(points)
    min_servers = _validation.positive_int("min_servers", min_servers)
    chosen = [p for p in points if p.servers >= min_servers]
    if not chosen:
        raise ValueError(
            f"points must hold at least one RegretPoint with N >= min_servers = {min_servers}"
        )
    offsets = [p.regret - c * np.log(p.servers) for p in chosen]
    spread = float(np.ptp(offsets))
    low, top = min(p.servers for p in chosen), max(p.servers for p in chosen)
    where = f"{len(chosen)} values of $N$ from ${_power(low)}$ to ${_power(top)}$"
    return Claim(
        name="lossnet.bounded_offset",
        statement=(
            r"$R_{\mathrm{fluid}} - R_{\mathrm{on}}(N) - c\log N$ with "
            rf"$c = r_L\mu/\log(\mu/\lambda_H) = {c:.6g}$ varies by less than $0.1$ over "
            f"the {where} ({_rates(net)}): the regret grows like "
            r"$c\log N$ plus a bounded offset on this range"
        ),
        kind=Evidence.FINITE_RANGE,
        passed=bool(spread < 0.1),
        origin=Origin.HEURISTIC,
        hypotheses=OVERLOADED,
        scope=where + " (a log grid)",
        quantity=r"max $-$ min of $R_{\mathrm{fluid}} - R_{\mathrm{on}} - c\log N$",
        value=spread,
        reference=0.0,
        tolerance=0.1,
    )


def lossnet_claims(net: LossNetwork, points: Sequence[RegretPoint]) -> list[Claim]:
    """Every claim of this part, checked.

    Parameters
    ----------
    net : LossNetwork
        Rates and rewards (the fluid and optimality claims run at N = 100).
    points : sequence of RegretPoint
        From :func:`~qtheory.lossnet.regret.regret_curve` (non-empty); the online
        optimum is certified at each of their N.

    Returns
    -------
    list of Claim
        ``lossnet.regret_identity``, ``lossnet.fluid``, ``lossnet.trunk_reservation``,
        ``lossnet.online_optimum`` and ``lossnet.bounded_offset``.

    Raises
    ------
    TypeError
        If ``net`` or ``points`` has the wrong type.
    ValueError
        If ``points`` is empty.

    References
    ----------
    .. [1] X. Xie, I. Gurvich and S. Küçükyavuz, Operations Research 73(4) (2025).
    .. [2] B. L. Miller, Management Science 16(3):234-245 (1969).

    Examples
    --------
    >>> from qtheory.lossnet.regret import regret_curve
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> claims = lossnet_claims(net, regret_curve(net, [10**3, 10**4, 10**5, 10**6]))
    >>> [(claim.name, claim.passed) for claim in claims]  # doctest: +NORMALIZE_WHITESPACE
    [('lossnet.regret_identity', True), ('lossnet.fluid', True),
     ('lossnet.trunk_reservation', True), ('lossnet.online_optimum', True),
     ('lossnet.bounded_offset', True)]
    """
    net = as_network(net)
    points = _regret_points(points)
    return [
        regret_identity_claim(),
        fluid_claim(net.with_servers(100)),
        trunk_reservation_claim(net.with_servers(100)),
        online_optimum_claim(net, [p.servers for p in points]),
        bounded_offset_claim(net, points),
    ]
