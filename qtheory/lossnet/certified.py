r"""Certified results of the loss network: exact fluid LP, enclosed online optimum.

Three certified routes, each returning its certificate for the independent checker
:mod:`qtheory.verify.lossnet` (which re-derives everything from the certificate's data):

- :func:`certified_fluid_lp` / :func:`certified_fluid`: the fluid LP in exact rationals.
  HiGHS solves it in float64; its capacity price is snapped to the nearest breakpoint of
  the dual function (0 or some :math:`r_i\mu_i`: the dual of this LP is
  :math:`\min_{y\ge0} y + \sum_i \lambda_i (r_i - y/\mu_i)^+`, piecewise linear with
  those breakpoints, so an optimal :math:`y` lies at one), the primal is rebuilt
  exactly from it (classes with :math:`r_i\mu_i > y` at their bound, those with
  :math:`r_i\mu_i = y` filling the remaining capacity in order, the rest at 0), and
  primal feasibility, dual feasibility and complementary slackness are checked in exact
  rationals, which proves optimality.
- :func:`certified_online_optimum`: :math:`R_{on}(N)`, the regret and the fluid bound as
  enclosures, and the optimal trunk reserve :math:`k^*` certified optimal among *all*
  admission policies (and the unique optimal reserve), for any N, in
  :math:`O(k^* + T)` Arb operations, where
  :math:`T \approx p \ln 2/\ln((\lambda_H+\lambda_L)/\mu)` at :math:`p` bits of
  precision (a few hundred at 30 digits and these rates) does not grow with N.
- :func:`trunk_reservation_optimality`: for small N, the same optimality statement by
  the exact gain and bias of the average-reward optimality equations.

The argument of :func:`certified_online_optimum`
------------------------------------------------
Index states by the idle count :math:`i`.  Under reserve :math:`k` the stationary
weights relative to the full state are :math:`v_0 = 1`, :math:`v_i = v_{i-1}\tau_i`,
:math:`\tau_i = (N-i+1)\mu/(\lambda_H N)` for :math:`i\le k` and
:math:`(N-i+1)\mu/((\lambda_H+\lambda_L)N)` beyond.  Past :math:`k` every
:math:`\tau_i \le q = \mu/(\lambda_H+\lambda_L) < 1`, so the sums of :math:`v_i` and
:math:`i v_i` beyond a cut :math:`I` are at most :math:`v_I q/(1-q)` and
:math:`v_I(Iq/(1-q) + q/(1-q)^2)`: the sums stop once these fall below the precision,
and the tails enter as balls :math:`[0, \text{bound}]`.  That gives
:math:`R_k`, :math:`P(\text{full}) = 1/Z`, :math:`E[\text{idle}]` and the regret
:math:`r_L\mu E[\text{idle}] + (r_H - r_L)\lambda_H N P(\text{full})` as balls.

Optimality over every policy uses the average-reward optimality equations (Puterman
1994, Sec. 8.4): if :math:`g` and :math:`h` satisfy
:math:`r(b, a) + \sum_{b'} q(b'\mid b, a)(h(b') - h(b)) \le g` for every state and
action, no policy earns more than :math:`g`.  Take :math:`g = R_k` and :math:`h` the
bias of reserve :math:`k` (equality for its actions); with
:math:`d_b = h(b+1) - h(b)` the actions in state :math:`b < N` differ only by
:math:`\lambda_c N (r_c + d_b)` for admitting class :math:`c`, so reserve :math:`k` is
optimal iff :math:`r_L + d_b \ge 0` for :math:`b < m = N - k` and
:math:`r_L + d_b \le 0 \le r_H + d_b` for :math:`m \le b < N`.  The Poisson equations
at :math:`b = N, \dots, m` give :math:`d_{N-1}, \dots, d_{m-1}` by a stable
:math:`k`-step recursion; below :math:`m` they give
:math:`d_b = -\frac{\rho-g}{a}\sum_{j\le b}(b)_j(\mu/a)^j`
(:math:`a = (\lambda_H+\lambda_L)N`, :math:`\rho = (\lambda_H r_H + \lambda_L r_L)N`),
decreasing in :math:`b` when :math:`\rho > g`, so :math:`r_L + d_{m-1} > 0` covers
every :math:`b < m`.  Strict inequalities make every other reserve strictly worse: its
stationary law charges every state and its slack is positive where it differs.  The
candidate :math:`k^*` comes from a float64 search on :math:`R_k` from a heuristic start;
the certificate does not depend on how it was found.

Parameters are read as the exact rationals they print as
(:func:`qtheory.core.enclosure.exact`: 0.6 is 3/5).

Examples
--------
>>> from qtheory.lossnet import LossNetwork
>>> opt = certified_online_optimum(LossNetwork(10**6, 0.6, 0.8, 1.0, 2.0, 1.0), dps=20)
>>> opt.reserve, opt.online.lower[:14], opt.regret.relative_width < 1e-20
(22, '1.599975420323', True)

References
----------
.. [1] B. L. Miller, "A queueing reward system with several customer classes",
   Management Science 16(3):234-245 (1969).
.. [2] M. L. Puterman, Markov Decision Processes (Wiley 1994), Sec. 8.4.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import flint
from flint import arb, fmpq

from qtheory.core import validation
from qtheory.core.enclosure import GUARD_BITS, Enclosure, exact, working_precision
from qtheory.core.precision import required_dps
from qtheory.lossnet.fluid import fluid_lp, per_class_vectors
from qtheory.model.lossnet import LossNetwork, two_classes
from qtheory.verify.statements import certificate

__all__ = [
    "MAX_EXACT_SERVERS",
    "CertifiedFluid",
    "CertifiedOnlineOptimum",
    "OptimalityCertificate",
    "certified_fluid",
    "certified_fluid_lp",
    "certified_online_optimum",
    "trunk_reservation_optimality",
]

#: Largest N for :func:`trunk_reservation_optimality`: its exact bias values have
#: numerators and denominators of about N log10(λN/μ) digits each.
MAX_EXACT_SERVERS = 400


def _text(value: fmpq) -> str:
    return str(value)


# ---------------------------------------------------------------------------
# the fluid LP in exact rationals


@dataclass(frozen=True)
class CertifiedFluid:
    """An exactly optimal fluid LP solution and its certificate.

    Attributes
    ----------
    value : flint.fmpq
        N times the optimum per server, exactly.
    admitted : tuple of flint.fmpq
        The optimal admission rates x_i per server.
    capacity_price : flint.fmpq
        The dual price y of the capacity constraint.
    bound_prices : tuple of flint.fmpq
        The dual prices z_i of x_i <= λ_i.
    certificate : dict
        ``{"claim": "lossnet.fluid_lp", "statement", "checker": "lossnet.fluid", "data"}``.

    Examples
    --------
    >>> sol = certified_fluid_lp([0.6, 0.8], [2, 1], [1, 1], servers=100)
    >>> sol.value, sol.admitted, sol.capacity_price
    (160, (3/5, 2/5), 1)
    """

    value: fmpq
    admitted: tuple[fmpq, ...]
    capacity_price: fmpq
    bound_prices: tuple[fmpq, ...]
    certificate: dict


def _rebuild(lam, r, mu, price):
    """The primal and bound prices that go with capacity price ``price``."""
    remaining, x = fmpq(1), [fmpq(0)] * len(lam)
    for i in sorted(range(len(lam)), key=lambda i: -(r[i] * mu[i])):
        if r[i] * mu[i] > price:
            x[i] = lam[i]
        elif r[i] * mu[i] == price:
            x[i] = max(fmpq(0), min(lam[i], mu[i] * remaining))
        remaining -= x[i] / mu[i]
    z = [max(ri - price / mi, fmpq(0)) for ri, mi in zip(r, mu, strict=True)]
    return x, z


def _fluid_optimal(lam, r, mu, x, y, z) -> bool:
    used = sum((xi / mi for xi, mi in zip(x, mu, strict=True)), fmpq(0))
    if used > 1 or y < 0 or y * (1 - used) != 0:
        return False
    for li, ri, mi, xi, zi in zip(lam, r, mu, x, z, strict=True):
        reduced = y / mi + zi - ri
        if not (0 <= xi <= li and zi >= 0 and reduced >= 0):
            return False
        if xi * reduced != 0 or zi * (li - xi) != 0:
            return False
    return True


def certified_fluid_lp(arrival_rates, rewards, service_rates, servers: int = 1) -> CertifiedFluid:
    """Solve the many-class fluid LP exactly and certify optimality by duality.

    HiGHS (:func:`~qtheory.lossnet.fluid.fluid_lp`) gives the capacity price; the exact
    solution is rebuilt from it as the module docstring describes, and checked.

    Parameters
    ----------
    arrival_rates, rewards, service_rates : sequence of float, str or Fraction
        Per-class λ_i, r_i and μ_i (> 0, equal lengths), read as exact rationals
        (0.6 is 3/5).
    servers : int, optional
        N >= 1 (default 1).

    Returns
    -------
    CertifiedFluid
        The exact optimum, primal and dual solutions and the certificate.

    Raises
    ------
    ValueError
        If the vectors are invalid (as in :func:`~qtheory.lossnet.fluid.fluid_lp`) or
        ``servers`` is not an integer >= 1.
    ArithmeticError
        If no exactly optimal solution is found next to HiGHS's (not expected).

    Examples
    --------
    >>> sol = certified_fluid_lp(["3/5", "4/5", "1/2"], [3, 2, 1], [1, 2, 1])
    >>> sol.value, sol.admitted
    (17/5, (3/5, 4/5, 0))
    """
    servers = validation.positive_int("servers", servers)
    named = {"arrival_rates": arrival_rates, "rewards": rewards, "service_rates": service_rates}
    for name, values in named.items():
        if isinstance(values, str | bytes):
            raise ValueError(
                f"{name} must be a non-empty 1-D sequence of numbers, got {values!r:.60}"
            )
    lam, r, mu = ([exact(v, name=name) for v in values] for name, values in named.items())
    floats = [[float(Fraction(str(v))) for v in vector] for vector in (lam, r, mu)]
    per_class_vectors(**dict(zip(named, floats, strict=True)))
    highs = fluid_lp(*floats)
    candidates = {fmpq(0), *(ri * mi for ri, mi in zip(r, mu, strict=True))}
    for price in sorted(
        candidates, key=lambda c: abs(float(Fraction(str(c))) - highs.server_price)
    ):
        x, z = _rebuild(lam, r, mu, price)
        if _fluid_optimal(lam, r, mu, x, price, z):
            break
    else:
        raise ArithmeticError("no exactly optimal fluid solution at the breakpoints of the dual")
    value = servers * sum((ri * xi for ri, xi in zip(r, x, strict=True)), fmpq(0))
    data = {
        "arrival_rates": [_text(v) for v in lam],
        "rewards": [_text(v) for v in r],
        "service_rates": [_text(v) for v in mu],
        "servers": str(servers),
        "admitted": [_text(v) for v in x],
        "capacity_price": _text(price),
        "bound_prices": [_text(v) for v in z],
        "value": _text(value),
    }
    return CertifiedFluid(
        value,
        tuple(x),
        price,
        tuple(z),
        certificate("lossnet.fluid_lp", "lossnet.fluid", data),
    )


def certified_fluid(net: LossNetwork) -> CertifiedFluid:
    """The two-class fluid bound R_fluid exactly, certified, with the closed form
    N[r_H λ_H + r_L(μ − λ_H)] checked too.

    Parameters
    ----------
    net : LossNetwork
        The network; rates and rewards read as exact rationals.

    Returns
    -------
    CertifiedFluid
        Its certificate also asks the checker to confirm the closed form.

    Raises
    ------
    TypeError
        If ``net`` is not a :class:`LossNetwork`.
    ArithmeticError
        If the optimum differs from the closed form (not expected).

    Examples
    --------
    >>> certified_fluid(LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)).value
    160
    """
    net = two_classes(net)
    sol = certified_fluid_lp(
        [net.lambda_h, net.lambda_l], [net.r_h, net.r_l], [net.mu, net.mu], net.servers
    )
    p = exact_parameters(net)
    if sol.value != net.servers * (p["r_h"] * p["lambda_h"] + p["r_l"] * (p["mu"] - p["lambda_h"])):
        raise ArithmeticError(f"the fluid optimum {sol.value} differs from the closed form")
    sol.certificate.update(
        certificate(
            "lossnet.fluid_lp", "lossnet.fluid", {**sol.certificate["data"], "closed_form": True}
        )
    )
    return sol


# ---------------------------------------------------------------------------
# the online optimum with Arb balls


def exact_parameters(net: LossNetwork) -> dict[str, fmpq]:
    names = ("lambda_h", "lambda_l", "mu", "r_h", "r_l")
    return {name: exact(getattr(net, name), name=name) for name in names}


@dataclass(frozen=True)
class _Chain:
    """Balls of the sums of one reserve: Z − 1, Σ_{i>k} v_i and Σ i v_i (relative to
    the full state), and the terms summed."""

    z1: arb
    above: arb
    moments: arb
    terms: int


def _chain(n: int, p: dict[str, fmpq], k: int) -> _Chain:
    lh, total, mu = p["lambda_h"], p["lambda_h"] + p["lambda_l"], p["mu"]
    ratio = mu / total
    tail0_factor = ratio / (1 - ratio)
    tail1_extra = ratio / (1 - ratio) ** 2
    threshold = arb(2) ** (-flint.ctx.prec)
    weight, z1, above, moments = arb(1), arb(0), arb(0), arb(0)
    for i in range(1, n + 1):
        rate = lh if i <= k else total
        weight = weight * (mu * (n - i + 1)) / (rate * n)
        z1 += weight
        moments += weight * i
        if i <= k:
            continue
        above += weight
        if i == n:
            break
        tail0, tail1 = weight * tail0_factor, weight * (tail0_factor * i + tail1_extra)
        if tail0 < threshold * z1 and tail1 < threshold * moments:
            cover0, cover1 = arb(0).union(tail0.upper()), arb(0).union(tail1.upper())
            return _Chain(z1 + cover0, above + cover0, moments + cover1, i)
    return _Chain(z1, above, moments, n)


def _reward(n: int, p: dict[str, fmpq], chain: _Chain) -> arb:
    paid_h = p["r_h"] * p["lambda_h"] * n * chain.z1
    paid_l = p["r_l"] * p["lambda_l"] * n * chain.above
    return (paid_h + paid_l) / (1 + chain.z1)


def _bias_margins(n: int, p: dict[str, fmpq], k: int, gain: arb) -> list[tuple[int, arb, arb]]:
    """(idle count i, r_L + d, r_H + d) in the states i = 1..k + 1 (b = N − i), from the
    Poisson equations of reserve k downward from the full state."""
    margins, d = [], -gain / (n * p["mu"])
    for i in range(1, min(k + 1, n) + 1):
        margins.append((i, p["r_l"] + d, p["r_h"] + d))
        if i < n:
            d = (p["lambda_h"] * n * (p["r_h"] + d) - gain) / (p["mu"] * (n - i))
    return margins


def _certifies(n: int, p: dict[str, fmpq], k: int, gain: arb) -> bool:
    if not gain < (p["lambda_h"] * p["r_h"] + p["lambda_l"] * p["r_l"]) * n:
        return False
    for i, low, high in _bias_margins(n, p, k, gain):
        if i <= k and not (low < 0 and high >= 0):
            return False
        if i == k + 1 and not low > 0:
            return False
    return True


def _relative_width(enclosure: Enclosure) -> Fraction:
    """(upper − lower) / min(|lower|, |upper|) exactly (the float property underflows
    past 300 digits); the enclosures here never hold 0."""
    low, high = Fraction(enclosure.lower), Fraction(enclosure.upper)
    return (high - low) / min(abs(low), abs(high))


def _start(net: LossNetwork) -> int:
    """Heuristic k*: log N / log(μ/λ_H), clipped to 0..N."""
    guess = math.log(net.servers) / math.log(net.mu / net.lambda_h) if net.servers > 1 else 0
    return max(0, min(net.servers, round(guess)))


def _float_reward(n: int, p: dict[str, float], k: int) -> float:
    """R_k in float64 by the sums of :func:`_chain` (no error bound), for the search."""
    lh, total, mu = p["lambda_h"], p["lambda_h"] + p["lambda_l"], p["mu"]
    one, weight, z1, above = 1.0, 1.0, 0.0, 0.0
    for i in range(1, n + 1):
        weight *= mu * (n - i + 1) / ((lh if i <= k else total) * n)
        z1 += weight
        if i > k:
            above += weight
            if weight < 1e-18 * z1:
                break
        if weight > 1e250:  # rescale every sum alike: the ratios below do not change
            one, weight, z1, above = one * 1e-250, weight * 1e-250, z1 * 1e-250, above * 1e-250
    paid = p["r_h"] * lh * n * z1 + p["r_l"] * p["lambda_l"] * n * above
    return paid / (one + z1)


def _climb(n: int, reward: Callable[[int], object], start: int) -> int:
    """The first k with R_{k+1} > R_k not certain, searched from ``start`` by doubling
    steps and bisection (O(log distance) evaluations of ``reward``; for unimodal R_k its
    maximum)."""
    rewards: dict[int, object] = {}

    def rises(k: int) -> bool:  # -1 stands below 0 (rises), n above the range (does not)
        if k < 0:
            return True
        if k >= n:
            return False
        for j in (k, k + 1):
            if j not in rewards:
                rewards[j] = reward(j)
        return bool(rewards[k + 1] > rewards[k])

    step = 1
    if rises(start):  # low rises, high does not
        low, high = start, start + 1
        while rises(high):
            low, high, step = high, min(high + 2 * step, n), 2 * step
    else:
        low, high = start - 1, start
        while not rises(low):
            low, high, step = max(low - 2 * step, -1), low, 2 * step
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if rises(middle) else (low, middle)
    return high


@dataclass(frozen=True)
class CertifiedOnlineOptimum:
    """The online optimum as enclosures, with k* certified optimal among all policies.

    Attributes
    ----------
    reserve : int
        k*, certified the unique optimal trunk reserve, and trunk reservation with it
        optimal among all admission policies.
    fluid, online, regret : Enclosure
        R_fluid (exact), R_on(N) = R_{k*} and R_fluid − R_on.
    prob_full, mean_idle : Enclosure
        P(all servers busy) and E[idle servers] under k*.
    dps : int
        The digits asked for: every enclosure has relative width below 10^-dps.
    certificate : dict
        ``{"claim": "lossnet.online", "statement", "checker": "lossnet.online", "data"}``.

    Examples
    --------
    >>> opt = certified_online_optimum(LossNetwork(50, 0.6, 0.8, 1.0, 2.0, 1.0), dps=15)
    >>> opt.reserve, opt.online.contains("74.64946960170")
    (3, False)
    >>> opt.online.lower[:13]
    '7.46494696017'
    """

    reserve: int
    fluid: Enclosure
    online: Enclosure
    regret: Enclosure
    prob_full: Enclosure
    mean_idle: Enclosure
    dps: int
    certificate: dict


def certified_online_optimum(net: LossNetwork, *, dps: int = 30) -> CertifiedOnlineOptimum:
    """R_on(N), the regret and the optimal reserve k*, certified.

    Enclosures from Arb ball arithmetic; k* certified optimal among all admission
    policies by the argument of the module docstring, in O(k* + T) operations whatever
    N; the candidate k* from a float64 search over the same truncated sums (doubling
    steps, then bisection on the sign of R_{k+1} − R_k), repeated with balls at more
    digits if it cannot be certified.  About 1.3 ms at N = 10^6 and 30 digits, where
    the float64 table of every reserve (:func:`~qtheory.lossnet.online.threshold_table`)
    takes 0.29 s
    (``benchmarks/bench_certify_lossnet.py``).

    Parameters
    ----------
    net : LossNetwork
        The network; rates and rewards read as exact rationals (0.6 is 3/5).
    dps : int, keyword-only
        Significant digits of the enclosures (default 30): each has relative width
        below 10^-dps.

    Returns
    -------
    CertifiedOnlineOptimum
        k*, the enclosures and the certificate for :mod:`qtheory.verify`.

    Raises
    ------
    TypeError
        If ``net`` is not a :class:`LossNetwork`.
    ValueError
        If ``dps`` is not an integer >= 1 (or is above the ``dps`` limit).
    ArithmeticError
        If the certificate cannot be completed at four times the precision (an exact
        tie between two reserves would do that).

    References
    ----------
    See the module's References:

    - Miller (1969);
    - Puterman (1994), Sec. 8.4.

    Examples
    --------
    >>> opt = certified_online_optimum(LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0), dps=20)
    >>> opt.reserve, opt.fluid.to_json(), opt.regret.lower[:10]
    (4, {'lower': '1.6e+2', 'upper': '1.6e+2', 'width': '0'}, '6.61729032')
    """
    net = two_classes(net)
    digits = required_dps(dps, cost="a certified online optimum")
    n, p = net.servers, exact_parameters(net)
    fluid = n * (p["r_h"] * p["lambda_h"] + p["r_l"] * (p["mu"] - p["lambda_h"]))
    floats = {name: float(Fraction(int(v.p), int(v.q))) for name, v in p.items()}
    k = _climb(n, lambda j: _float_reward(n, floats, j), _start(net))  # float64 candidate
    for extra_digits in (0, digits, 3 * digits):
        guard = GUARD_BITS + math.ceil((extra_digits + len(str(n))) * math.log2(10))
        with working_precision(digits, guard_bits=guard) as bits:
            if extra_digits:  # float64 could not resolve the optimum: search with balls
                k = _climb(n, lambda j: _reward(n, p, _chain(n, p, j)), k)
            chain = _chain(n, p, k)
            gain = _reward(n, p, chain)
            z = 1 + chain.z1
            regret = (
                p["r_l"] * p["mu"] * chain.moments + (p["r_h"] - p["r_l"]) * p["lambda_h"] * n
            ) / z
            balls = {
                "fluid": arb(fluid),
                "online": gain,
                "regret": regret,
                "prob_full": 1 / z,
                "mean_idle": chain.moments / z,
            }
            enclosures = {name: Enclosure.from_arb(ball, digits) for name, ball in balls.items()}
            tight = all(
                _relative_width(enclosures[name]) < Fraction(1, 10**digits)
                for name in balls
                if name != "fluid"
            )
            if tight and _certifies(n, p, k, gain):
                break
    else:
        raise ArithmeticError(
            f"could not certify the optimal reserve of {net} at {digits * 4} digits"
        )
    data = {
        "servers": n,
        "reserve": k,
        **{name: _text(value) for name, value in p.items()},
        "bits": bits,
        "dps": digits,
        "fluid": _text(fluid),
        "online": [enclosures["online"].lower, enclosures["online"].upper],
        "regret": [enclosures["regret"].lower, enclosures["regret"].upper],
    }
    return CertifiedOnlineOptimum(
        k,
        enclosures["fluid"],
        enclosures["online"],
        enclosures["regret"],
        enclosures["prob_full"],
        enclosures["mean_idle"],
        digits,
        certificate("lossnet.online", "lossnet.online", data),
    )


# ---------------------------------------------------------------------------
# exact optimality equations for small N


@dataclass(frozen=True)
class OptimalityCertificate:
    """Exact gain and bias proving trunk reservation with ``reserve`` optimal.

    Attributes
    ----------
    reserve : int
        k, the unique optimal trunk reserve.
    gain : flint.fmpq
        g = R_on(N), the optimal long-run reward rate, exactly.
    bias : tuple of flint.fmpq
        h(b), b = 0..N busy servers, with h(0) = 0.
    certificate : dict
        ``{"claim": "lossnet.optimality", "checker": "lossnet.optimality",
        "data": {...}}``.

    Examples
    --------
    >>> cert = trunk_reservation_optimality(LossNetwork(5, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> cert.reserve, round(float(Fraction(str(cert.gain))), 6), len(cert.bias)
    (1, 5.99406, 6)
    """

    reserve: int
    gain: fmpq
    bias: tuple[fmpq, ...]
    certificate: dict


def exact_optimality(net: LossNetwork, k: int) -> tuple[fmpq, list[fmpq], str]:
    """Exact gain and bias (h(0) = 0) of reserve ``k``, and what makes it not the unique
    optimum ("" if nothing)."""
    n, p = net.servers, exact_parameters(net)
    admit_h, admit_l = p["lambda_h"] * n, p["lambda_l"] * n
    birth = [admit_h + (admit_l if n - b > k else 0) for b in range(n)]
    reward = [admit_h * p["r_h"] + (admit_l * p["r_l"] if n - b > k else 0) for b in range(n)]
    weights = [fmpq(1)]
    for b in range(1, n + 1):
        weights.append(weights[-1] * birth[b - 1] / (p["mu"] * b))
    paid = sum((w * r for w, r in zip(weights, reward, strict=False)), fmpq(0))
    gain = paid / sum(weights, fmpq(0))
    bias, d, problem = [fmpq(0)], fmpq(0), ""
    for b in range(n):
        d = (gain - reward[b] + p["mu"] * b * d) / birth[b]  # Poisson equation in state b
        bias.append(bias[-1] + d)
        idle, margin = n - b, admit_l * (p["r_l"] + d)
        if not problem and ((margin <= 0) if idle > k else (margin >= 0)):
            approx = float(Fraction(int(margin.p), int(margin.q)))
            problem = (
                f"reserve {k} is not the unique optimum: at {idle} idle servers admitting L "
                f"gains {approx:.3g} ({'must be > 0' if idle > k else 'must be < 0'})"
            )
        if not problem and p["r_h"] + d < 0:
            problem = f"reserve {k}: at {idle} idle servers rejecting H would be better"
    return gain, bias, problem


def optimality_data(net: LossNetwork, k: int, gain: fmpq, bias: list[fmpq]) -> dict:
    """The data of a ``lossnet.optimality`` certificate, with a 20-digit decimal
    enclosure of the gain (``online``) for readers."""
    with working_precision(20):
        online = Enclosure.from_arb(arb(gain), 20)
    return {
        "servers": net.servers,
        "reserve": k,
        **{name: _text(value) for name, value in exact_parameters(net).items()},
        "gain": _text(gain),
        "online": [online.lower, online.upper],
        "bias": [_text(h) for h in bias],
    }


def trunk_reservation_optimality(
    net: LossNetwork, reserve: int | None = None
) -> OptimalityCertificate:
    """Exact average-reward optimality certificate of trunk reservation (small N).

    Computes the exact gain g of reserve k (a ratio of sums of rational stationary
    weights) and its bias h from the Poisson equations (forward from the empty state),
    and checks in exact rationals that in every state the reserve's action attains
    max_a [r(b, a) + Σ q(b'|b, a)(h(b') − h(b))] = g, strictly against the action that
    differs in L.  Then no policy beats g (Puterman 1994, Sec. 8.4) and k is the unique
    optimal reserve.

    Parameters
    ----------
    net : LossNetwork
        The network, N <= :data:`MAX_EXACT_SERVERS`; parameters read as exact rationals.
    reserve : int or None, optional
        The reserve to certify; None (default): that of
        :func:`certified_online_optimum`.

    Returns
    -------
    OptimalityCertificate
        k, g, h and the certificate.

    Raises
    ------
    TypeError
        If ``net`` is not a :class:`LossNetwork`.
    ValueError
        If N exceeds :data:`MAX_EXACT_SERVERS`, ``reserve`` is not an integer in 0..N,
        or the reserve is not the unique optimum (the message names the state).

    References
    ----------
    See the module's References: Puterman (1994), Sec. 8.4.

    Examples
    --------
    >>> cert = trunk_reservation_optimality(LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> cert.reserve, round(float(Fraction(str(cert.gain))), 6)
    (2, 28.185693)
    """
    net = two_classes(net)
    n = net.servers
    if n > MAX_EXACT_SERVERS:
        raise ValueError(
            f"net.servers must be <= {MAX_EXACT_SERVERS} for the exact optimality "
            f"certificate (its rationals grow like N digits), got {n}"
        )
    k = (
        certified_online_optimum(net, dps=20).reserve
        if reserve is None
        else validation.nonnegative_int("reserve", reserve)
    )
    if k > n:
        raise ValueError(f"reserve must be <= net.servers = {n}, got {k}")
    gain, bias, problem = exact_optimality(net, k)
    if problem:
        raise ValueError(problem)
    data = optimality_data(net, k, gain, bias)
    return OptimalityCertificate(
        k,
        gain,
        tuple(bias),
        certificate("lossnet.optimality", "lossnet.optimality", data),
    )
