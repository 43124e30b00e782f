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

With n >= 3 classes the same builders (``n=`` or a :class:`LossNetwork` with more than two
classes) check the n-class forms (:mod:`qtheory.lossnet.nested`); for two classes, in
either input form, the regret identity and the bounded offset are the two-class claims
above, and the leading constant's claim covers n = 2 as well:

- ``lossnet.class_regret_identity`` (identity): :math:`R_{fluid} - R = r_m\mu
  E[\text{idle}] + N\sum_{j<m}(r_j-r_m)\lambda_j B_j + N\sum_{j>m}(r_m-r_j)\lambda_j
  (1-B_j)` with m the marginal class, by Sympy from rate balance, every marginal class
  of a symbolic n-class network.
- ``lossnet.class_leading_constant`` (identity, heuristic): the balance of
  :func:`~qtheory.lossnet.regret.derive_leading_constant` gives
  :math:`c = r_m\mu/\log(\mu/\bar\lambda_{m-1})` for every marginal class, and the
  two-class constant at n = 2.
- ``lossnet.class_bounded_offset`` (finite-range, heuristic): regret
  :math:`- c\log N` of the nested optimum varies by less than
  :math:`0.2\,c\log 10` over the N checked.

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

from qtheory.core.claims import Claim, Evidence, Origin
from qtheory.core.records import Records
from qtheory.lossnet.certified import (
    certified_fluid_lp,
    certified_online_optimum,
    exact_optimality,
    exact_parameters,
    optimality_data,
)
from qtheory.lossnet.fluid import derive_fluid
from qtheory.lossnet.online import REGRET_IDENTITY, mean_idle_symbol, prob_full_symbol
from qtheory.lossnet.regret import (
    RegretPoint,
    derive_leading_constant,
    leading_constant,
    regret_points,
)
from qtheory.model.lossnet import LossNetwork, as_network, number_of_classes, two_classes

__all__ = [
    "CLASS_OVERLOADED",
    "OVERLOADED",
    "bounded_offset_claim",
    "fluid_claim",
    "leading_constant_claim",
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
    """An exact rational (``flint.fmpq``) correctly rounded to float64, through Python
    integers rather than text (an exact gain can exceed Python's 4300-digit limit)."""
    return float(Fraction(int(value.p), int(value.q)))


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


def regret_identity_claim(n: int = 2) -> Claim:
    """The regret identity of the n-class network, proved by Sympy.

    Two classes (the default): R_fluid − R = r_L μ E[idle] + (r_H − r_L) λ_H N P(full),
    claim ``lossnet.regret_identity``.  With n >= 3 classes, every marginal class of the
    symbolic n-class network (``lossnet.class_regret_identity``,
    :func:`_class_regret_identity`).

    For a two-class policy that admits H whenever a server is idle and has a stationary regime:
    H is lost at rate λ_H N P(full) (PASTA), every admitted job leaves at rate μ, so the
    admitted rate is μ E[busy] = μ(N − E[idle]) and L's is that minus H's.  Sympy
    simplifies R_fluid − R − (r_L μ E[idle] + (r_H − r_L) λ_H N P(full)) to 0 with
    R_fluid the overloaded closed form of :func:`~qtheory.lossnet.fluid.derive_fluid`.

    Parameters
    ----------
    n : int, optional
        The number of classes, >= 2 (default 2).

    Returns
    -------
    Claim
        ``lossnet.regret_identity`` (two classes) or ``lossnet.class_regret_identity``,
        kind identity.

    Raises
    ------
    ValueError
        If ``n`` is not an integer >= 2.

    References
    ----------
    See the module's References: Xie, Gurvich and Küçükyavuz (2025).

    Examples
    --------
    >>> claim = regret_identity_claim()
    >>> claim.name, claim.passed, str(claim.kind)
    ('lossnet.regret_identity', True, 'identity')
    >>> claim = regret_identity_claim(3)
    >>> claim.name, claim.passed, claim.value
    ('lossnet.class_regret_identity', True, 0.0)
    """
    if number_of_classes(n) > 2:
        return _class_regret_identity(n)
    from qtheory.model.lossnet_symbols import lambda_h, mu, r_h, r_l, servers

    admitted = mu * (servers - mean_idle_symbol)  # rate balance: every admitted job leaves
    admitted_h = lambda_h * servers * (1 - prob_full_symbol)  # PASTA
    reward = r_h * admitted_h + r_l * (admitted - admitted_h)
    difference = sp.simplify(derive_fluid().bound(1).expr - reward - REGRET_IDENTITY.expr)
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
    See the module's References: Xie, Gurvich and Küçükyavuz (2025).

    Examples
    --------
    >>> claim = fluid_claim(LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> claim.passed, str(claim.kind), claim.value
    (True, 'certified', 160.0)
    """
    net = two_classes(net)
    sol = certified_fluid_lp(
        [net.lambda_h, net.lambda_l], [net.r_h, net.r_l], [net.mu, net.mu], net.servers
    )
    p = exact_parameters(net)
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
    See the module's References:

    - Miller (1969);
    - Puterman (1994), Sec. 8.4.

    Examples
    --------
    >>> claim = trunk_reservation_claim(LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> claim.passed, claim.certificate["data"]["reserve"], round(claim.value, 6)
    (True, 2, 28.185693)
    """
    from qtheory.lossnet.certified import MAX_EXACT_SERVERS

    net = two_classes(net)
    if net.servers > MAX_EXACT_SERVERS:
        raise ValueError(
            f"net.servers must be <= {MAX_EXACT_SERVERS} for the exact optimality "
            f"certificate, got {net.servers}"
        )
    k = certified_online_optimum(net, dps=20).reserve
    gain, bias, problem = exact_optimality(net, k)
    data = optimality_data(net, k, gain, bias)
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
    See the module's References:

    - Miller (1969);
    - Puterman (1994), Sec. 8.4.

    Examples
    --------
    >>> claim = online_optimum_claim(LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0), [10, 10**6])
    >>> claim.passed, [case["reserve"] for case in claim.certificate["data"]["cases"]]
    (True, [2, 22])
    """
    net = two_classes(net)
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
    where = (
        f"At $N = {_power(sizes[0])}$"
        if len(sizes) == 1
        else f"For each of the {len(sizes)} values of $N$ from ${_power(min(sizes))}$ to "
        f"${_power(max(sizes))}$"
    )
    return Claim(
        name="lossnet.online_optimum",
        statement=(
            f"{where} ("
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
    """R_fluid − R_on − c log N stays within a band over every N >= ``min_servers``.

    Two classes (``lossnet.bounded_offset``): within 0.1, with
    c = r_L μ / log(μ/λ_H).  With n >= 3 classes (``lossnet.class_bounded_offset``):
    within 0.2 c log 10, a fifth of what c log N gains per decade (it allows the O(1)
    wobble of integer reserves), with c = r_m μ / log(μ/λ̄_{m−1}) for the marginal class
    m, on the float64 nested optimum; at least two distinct N.

    c is the package's heuristic balance
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
        N >= ``min_servers`` (two distinct N with more than two classes).
    min_servers : int, optional
        The smallest N checked (default 1000: below it the offset still drifts).

    Returns
    -------
    Claim
        ``lossnet.bounded_offset`` or ``lossnet.class_bounded_offset``, finite-range,
        origin heuristic: the spread (max − min) of regret − c log N over the points with
        N >= ``min_servers``, which must be below the tolerance.

    Raises
    ------
    TypeError
        If ``net`` or ``points`` has the wrong type.
    ValueError
        If ``min_servers`` is not an integer >= 1, no point has N >= ``min_servers``,
        or (more than two classes) fewer than two distinct N do.

    References
    ----------
    See the module's References: Xie, Gurvich and Küçükyavuz (2025).

    Examples
    --------
    >>> from qtheory.lossnet.regret import regret_curve
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> claim = bounded_offset_claim(net, regret_curve(net, [10**4, 10**8, 10**12]))
    >>> claim.passed, str(claim.kind), str(claim.origin), round(claim.value, 3)
    (True, 'finite-range', 'a heuristic, not proved', 0.015)
    >>> net = LossNetwork(10, (0.2, 0.3, 0.2, 0.9), (5, 3, 2, 1), 1.0)
    >>> claim = bounded_offset_claim(net, regret_curve(net, [10**3, 10**4]))
    >>> claim.name, claim.passed, round(claim.value, 2)
    ('lossnet.class_bounded_offset', True, 0.1)
    """
    from qtheory.core import validation

    c = leading_constant(net)
    points = regret_points(points)
    min_servers = validation.positive_int("min_servers", min_servers)
    chosen = [p for p in points if p.servers >= min_servers]
    if not chosen:
        raise ValueError(
            f"points must hold at least one RegretPoint with N >= min_servers = {min_servers}"
        )
    net = as_network(net)
    if net.n_classes > 2:
        return _class_bounded_offset(net, chosen, c)
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


def lossnet_claims(net: LossNetwork, points: Sequence[RegretPoint]) -> Records[Claim]:
    """Every claim of this part, checked.

    Parameters
    ----------
    net : LossNetwork
        Rates and rewards (with two classes the fluid and optimality claims run at
        N = 100).
    points : sequence of RegretPoint
        From :func:`~qtheory.lossnet.regret.regret_curve` (non-empty); with two classes
        the online optimum is certified at each of their N.

    Returns
    -------
    list of Claim
        Two classes: ``lossnet.regret_identity``, ``lossnet.fluid``,
        ``lossnet.trunk_reservation``, ``lossnet.online_optimum`` and
        ``lossnet.bounded_offset``.  n >= 3 classes: ``lossnet.class_regret_identity``,
        ``lossnet.class_leading_constant`` (for n classes) and
        ``lossnet.class_bounded_offset``.

    Raises
    ------
    TypeError
        If ``net`` or ``points`` has the wrong type.
    ValueError
        If ``points`` is empty, or as :func:`bounded_offset_claim` (no point with
        N >= 1000; with more than two classes, fewer than two distinct such N).

    References
    ----------
    See the module's References:

    - Xie, Gurvich and Küçükyavuz (2025);
    - Miller (1969).

    Examples
    --------
    >>> from qtheory.lossnet.regret import regret_curve
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> claims = lossnet_claims(net, regret_curve(net, [10**3, 10**4, 10**5, 10**6]))
    >>> [(claim.name, claim.passed) for claim in claims]  # doctest: +NORMALIZE_WHITESPACE
    [('lossnet.regret_identity', True), ('lossnet.fluid', True),
     ('lossnet.trunk_reservation', True), ('lossnet.online_optimum', True),
     ('lossnet.bounded_offset', True)]
    >>> net = LossNetwork(10, (0.2, 0.3, 0.2, 0.9), (5, 3, 2, 1), 1.0)
    >>> claims = lossnet_claims(net, regret_curve(net, [10**3, 10**4]))
    >>> [(claim.name, claim.passed) for claim in claims]  # doctest: +NORMALIZE_WHITESPACE
    [('lossnet.class_regret_identity', True), ('lossnet.class_leading_constant', True),
     ('lossnet.class_bounded_offset', True)]
    """
    points = regret_points(points)
    net = as_network(net)
    if net.n_classes > 2:
        return Records(
            [
                regret_identity_claim(net.n_classes),
                leading_constant_claim(net.n_classes),
                bounded_offset_claim(net, points),
            ]
        )
    claims = [
        regret_identity_claim(),
        fluid_claim(net.with_servers(100)),
        trunk_reservation_claim(net.with_servers(100)),
        online_optimum_claim(net, [p.servers for p in points]),
        bounded_offset_claim(net, points),
    ]
    return Records(claims)


#: The n-class model's standing hypotheses, in the claims' text form.
CLASS_OVERLOADED = (
    r"$\lambda_1 < \mu < \lambda_1 + \dots + \lambda_n$, no partial sum "
    r"$\bar\lambda_j = \lambda_1 + \dots + \lambda_j$ equal to $\mu$, "
    r"$r_1 > \dots > r_n > 0$, a common service rate $\mu$",
)


def _class_regret_identity(n: int) -> Claim:
    """The n-class regret identity, proved by Sympy for every marginal class.

    With admitted rates A_j = λ_j N (1 − B_j) (PASTA) and rate balance
    Σ_j A_j = μ (N − E[idle]), Sympy simplifies
    R_fluid − Σ_j r_j A_j − [r_m μ E[idle] + N Σ_{j<m} (r_j − r_m) λ_j B_j
    + N Σ_{j>m} (r_m − r_j) λ_j (1 − B_j)] to 0, R_fluid the case "class m marginal" of
    :func:`~qtheory.lossnet.fluid.derive_fluid`, for m = 2..n.

    Returns ``lossnet.class_regret_identity``, identity; ``value`` the number of
    marginal cases whose difference did not simplify to 0.
    """
    derivation = derive_fluid(n)
    lambdas, rewards, mu = derivation.lambdas, derivation.rewards, derivation.mu
    servers = sp.Symbol("N", positive=True)
    blocking = sp.symbols(f"B_1:{n + 1}", nonnegative=True)
    admitted = [lam * servers * (1 - b) for lam, b in zip(lambdas, blocking, strict=True)]
    mean_idle = servers - sum(admitted) / mu  # rate balance
    reward = sum(r * a for r, a in zip(rewards, admitted, strict=True))
    failures = 0
    for case in derivation.cases[1:n]:  # class 1 never marginal in an overloaded network
        m, r_m = case.marginal, rewards[case.marginal]
        identity = r_m * mu * mean_idle + servers * sum(
            (rewards[j] - r_m) * lambdas[j] * (blocking[j] if j < m else blocking[j] - 1)
            for j in range(n)
            if j != m
        )
        failures += sp.simplify(servers * case.value - reward - identity) != 0
    return Claim(
        name="lossnet.class_regret_identity",
        statement=(
            rf"For the {n}-class network with marginal class $m$ (any of $m = 2..{n}$), "
            r"$R_{\mathrm{fluid}} - R = r_m\mu\,E[\mathrm{idle}] + N\sum_{j<m}(r_j - r_m)"
            r"\lambda_j B_j + N\sum_{j>m}(r_m - r_j)\lambda_j(1 - B_j)$ for the reward rate "
            r"$R$ of every admission policy, $B_j$ the fraction of class $j$ rejected, with "
            r"$R_{\mathrm{fluid}} = N[\sum_{j<m} r_j\lambda_j + r_m(\mu - \bar\lambda_{m-1})]$: "
            r"Sympy simplifies the difference of the two sides to $0$ once the admitted "
            r"rate is written $\mu(N - E[\mathrm{idle}])$ and class $j$'s "
            r"$\lambda_j N(1 - B_j)$"
        ),
        kind=Evidence.IDENTITY,
        passed=failures == 0,
        origin=Origin.PACKAGE,
        hypotheses=CLASS_OVERLOADED
        + (
            "a stationary regime in which the admitted rate equals $\\mu$ times the mean "
            "number of busy servers (rate balance) and arrivals see the stationary law "
            "(PASTA)",
        ),
        quantity="marginal cases whose difference does not simplify to 0",
        value=float(failures),
        reference=0.0,
    )


def leading_constant_claim(n: int = 3) -> Claim:
    """The heuristic leading constant c = r_m μ / log(μ/λ̄_{m-1}), by Sympy, and its
    two-class case.

    Sympy's balance (:func:`~qtheory.lossnet.regret.derive_leading_constant`)
    is compared with the closed form for every marginal class m = 2..n, and at n = 2
    (in the two-class symbols) with r_L μ / log(μ/λ_H).
    The balance itself is a heuristic (origin heuristic); what is proved is that it
    yields this constant, which depends only on r_m, μ and λ_1 + … + λ_{m-1}.

    Parameters
    ----------
    n : int, optional
        The number of classes, >= 2 (default 3).

    Returns
    -------
    Claim
        ``lossnet.class_leading_constant``, identity, origin heuristic.

    Raises
    ------
    ValueError
        If ``n`` is not an integer >= 2.

    References
    ----------
    See the module's References: Xie, Gurvich and Küçükyavuz (2025).

    Examples
    --------
    >>> claim = leading_constant_claim(3)
    >>> claim.passed, str(claim.kind), str(claim.origin)
    (True, 'identity', 'a heuristic, not proved')
    """
    from qtheory.model.lossnet_symbols import lambda_h, mu, r_l

    n = number_of_classes(n)
    failures = 0
    for case in derive_leading_constant(n):
        _, r_m, *above = case.constant.args
        closed = r_m * mu / sp.log(mu / sum(above))
        failures += sp.simplify(case.constant.expr - closed) != 0
    (two,) = derive_leading_constant(2)  # in the two-class symbols
    failures += sp.simplify(two.constant.expr - r_l * mu / sp.log(mu / lambda_h)) != 0
    return Claim(
        name="lossnet.class_leading_constant",
        statement=(
            r"The heuristic balance $\min_k\,[r_m\mu k + N e^{-\theta k}\sum_{j<m}"
            r"(r_j - r_m)\lambda_j K_j]$, $\theta = \log(\mu/\bar\lambda_{m-1})$, has "
            r"$\lim \min/\log N = c = r_m\mu/\log(\mu/(\lambda_1 + \dots + \lambda_{m-1}))$ "
            rf"for every marginal class $m = 2..{n}$ of the {n}-class network (Sympy), and "
            r"for $n = 2$ this is the two-class constant $r_L\mu/\log(\mu/\lambda_H)$: $c$ "
            r"depends on the marginal class's reward, $\mu$ and the total rate of the "
            r"classes above it only"
        ),
        kind=Evidence.IDENTITY,
        passed=failures == 0,
        origin=Origin.HEURISTIC,
        hypotheses=CLASS_OVERLOADED,
        quantity="cases whose constant differs from the closed form",
        value=float(failures),
        reference=0.0,
    )


def _class_rates(net: LossNetwork) -> str:
    numbers = ", ".join(f"{v:g}" for v in net.lambdas)
    rewards = ", ".join(f"{v:g}" for v in net.rewards)
    return rf"$\lambda = ({numbers})$, $r = ({rewards})$, $\mu = {net.mu:g}$"


def _class_bounded_offset(net: LossNetwork, points: Sequence[RegretPoint], c: float) -> Claim:
    """``lossnet.class_bounded_offset`` (:func:`bounded_offset_claim` with more than two
    classes) on the chosen points; c from :func:`~qtheory.lossnet.regret.leading_constant`."""
    sizes = sorted({p.servers for p in points})
    if len(sizes) < 2:
        raise ValueError(f"points must hold at least 2 distinct server counts, got {sizes}")
    offsets = [p.regret - c * np.log(p.servers) for p in points]
    spread = float(np.ptp(offsets))
    tolerance = 0.2 * c * float(np.log(10.0))
    where = f"{len(sizes)} values of $N$ from ${_power(sizes[0])}$ to ${_power(sizes[-1])}$"
    m = net.marginal
    return Claim(
        name="lossnet.class_bounded_offset",
        statement=(
            r"$R_{\mathrm{fluid}} - R_{\mathrm{on}}(N) - c\log N$ with "
            rf"$c = r_{m + 1}\mu/\log(\mu/\bar\lambda_{m}) = {c:.6g}$ (marginal class {m + 1}) "
            rf"varies by less than $0.2\,c\log 10 = {tolerance:.4g}$ over the {where} "
            f"({_class_rates(net)}), $R_{{\\mathrm{{on}}}}$ the nested trunk-reservation "
            "optimum"
        ),
        kind=Evidence.FINITE_RANGE,
        passed=bool(spread < tolerance),
        origin=Origin.HEURISTIC,
        hypotheses=CLASS_OVERLOADED,
        scope=where + " (float64 policy iteration)",
        quantity=r"max $-$ min of $R_{\mathrm{fluid}} - R_{\mathrm{on}} - c\log N$",
        value=spread,
        reference=0.0,
        tolerance=tolerance,
    )
