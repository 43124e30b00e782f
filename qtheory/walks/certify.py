r"""Certified comparisons of the random-walk bounds with the exact values they bound.

Every :class:`~qtheory.walks.bounds.BoundCheck` made by :mod:`qtheory.walks.ruin`,
:mod:`qtheory.walks.hitting`, :mod:`qtheory.walks.chernoff` and the SSS checks of
:mod:`qtheory.report.walks` carries a ``spec``: the family of the bound and its
arguments (integers and exact rationals).  :func:`enclose` evaluates both sides of the
spec in Arb ball arithmetic, at the parameters the user typed read as exact rationals
(:func:`qtheory.core.enclosure.exact`), and :func:`certify` decides ``bound >= exact``
(``bound <= exact`` for lower bounds) for every point of the two balls, and writes the
certificate that :mod:`qtheory.verify.walks` checks again by its own routes.

Routes (chosen to differ from the checker's where the mathematics allows):

- ruin probabilities, mean climbing times and every walk formula with rational
  :math:`p`: exact rationals (:class:`flint.fmpq`), so those comparisons are exact;
- mean descent times to 0: the recurrence :math:`D_j = (1 + u_j D_{j+1})/d_j` in balls
  (sums of positive terms over the :math:`N` levels);
- Poisson, Skellam and binomial probabilities: explicit sums of probability masses,
  with the rest of an infinite sum enclosed by the ratio bound
  :math:`P(X > K) \le P(X = K+1)/(1 - m/(K+2))` for :math:`X \sim \text{Poisson}(m)`,
  :math:`K + 2 > m`;
- transient probabilities of the idle process: uniformisation,
  :math:`\sum_{k \le K} e^{-\nu t}(\nu t)^k/k!\; e_i P^k` with :math:`P = I + Q/\nu`
  (non-negative, so no cancellation), the rest enclosed by the same Poisson ratio bound,
  on the levels :math:`0..i+K` that :math:`K` jumps can reach (exact, no truncation
  error);
- the jump chain after :math:`n` jumps: the distribution pushed forward :math:`n` times.

Examples
--------
>>> bound, exact = enclose({"family": "ruin", "N": 100, "i": 1, "bound": "walk_pb"},
...                        0.6, 1.0, 0.8)
>>> bound, round(float(exact), 4), bound > exact  # exact rationals: decided exactly
(38342/58025, 0.6118, True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import flint
from flint import arb, fmpq

from qtheory.core.enclosure import Enclosure, exact, working_precision
from qtheory.walks.bounds import BoundCheck

__all__ = ["CertifiedCheck", "certify", "enclose"]

#: The bound families :func:`enclose` knows.
FAMILIES = ("ruin", "climb", "descent", "poisson", "skellam", "walk", "events", "idle_window",
            "hit_zero", "climb_jumps", "climb_time", "sss")  # fmt: skip
#: Significant digits of the enclosures written into the certificate.
DIGITS = 9
#: Decimal digits of the working precision (about 130 bits with the guard bits).
DPS = 20


class _Net:
    """The reject-all-L idle process of N servers with exact rational rates."""

    def __init__(self, lambda_h, mu, lambda_l, servers: int) -> None:
        rates = (lambda_h, mu, lambda_l)
        self.lam, self.mu, self.lam_l = (x if isinstance(x, fmpq) else exact(x) for x in rates)
        self.n = servers
        self.b = math.isqrt(servers)

    def rates(self, j: int) -> tuple[fmpq, fmpq]:
        """(u_j, d_j): up and down rates at level j."""
        return self.mu * (self.n - j), (self.lam * self.n if j >= 1 else fmpq(0))

    def jump(self, j: int) -> tuple[fmpq, fmpq]:
        """(p(j), q(j)) of the jump chain."""
        up, down = self.rates(j)
        return up / (up + down), down / (up + down)

    def window(self, c: str) -> arb:
        return arb(fmpq(*_fraction(c))) * arb(self.n).log() / self.n

    def counts(self, time: arb) -> tuple[arb, arb]:
        """Means of U ~ Poisson(mu (N - b) t) and D ~ Poisson(lambda_H N t)."""
        return arb(self.mu * (self.n - self.b)) * time, arb(self.lam * self.n) * time


def _fraction(text: str) -> tuple[int, int]:
    value = exact(text)
    return int(value.p), int(value.q)


# --- exact rationals ------------------------------------------------------------------


def _walk_ruin(p: fmpq, i: int, b: int) -> fmpq:
    r = (1 - p) / p
    if r == 1:
        return 1 - fmpq(i, b)
    return (r**i - r**b) / (1 - r**b)


def _walk_climb(p: fmpq, i: int, b: int) -> fmpq:
    r = (1 - p) / p
    if r == 1:
        return fmpq(b * b - i * i)
    return (b - i) * (1 + r) / (1 - r) - 2 * r * (r**i - r**b) / (1 - r) ** 2


def _chain_ruin(net: _Net, b: int) -> list[fmpq]:
    """h_0..h_b of the chain: tail sums of rho_j = prod d_k / u_k."""
    rho = [fmpq(1)]
    for k in range(1, b):
        up, down = net.rates(k)
        rho.append(rho[-1] * down / up)
    tails = [fmpq(0)] * (b + 1)
    for j in range(b - 1, -1, -1):
        tails[j] = tails[j + 1] + rho[j]
    return [t / tails[0] for t in tails]


def _chain_climb(net: _Net, b: int, steps: bool) -> list[fmpq]:
    """E_i[T_b], i = 0..b: tau_j = (1 + d_j tau_{j-1}) / u_j summed from i to b - 1."""
    taus, tau = [], fmpq(0)
    for j in range(b):
        up, down = net.jump(j) if steps else net.rates(j)
        tau = (1 + down * tau) / up
        taus.append(tau)
    means = [fmpq(0)] * (b + 1)
    for j in range(b - 1, -1, -1):
        means[j] = means[j + 1] + taus[j]
    return means


def _chain_descent(net: _Net, steps: bool) -> list[arb]:
    """E_i[T_0], i = 0..N, in balls: D_j = (1 + u_j D_{j+1}) / d_j."""
    down_steps = [arb(0)] * (net.n + 2)
    for j in range(net.n, 0, -1):
        up, down = net.jump(j) if steps else net.rates(j)
        down_steps[j] = (1 + arb(up) * down_steps[j + 1]) / arb(down)
    means = [arb(0)]
    for j in range(1, net.n + 1):
        means.append(means[-1] + down_steps[j])
    return means


# --- probabilities in balls -----------------------------------------------------------


def _poisson_rest(mean: arb, last: int, mass_last: arb) -> arb:
    """Enclosure [0, bound] of P(X > last), X ~ Poisson(mean), from P(X = last)."""
    if not bool(arb(last + 2) > mean):
        raise ArithmeticError(f"the Poisson sum stops at {last}, below the mean {mean}")
    bound = mass_last * mean / (last + 1) / (1 - mean / (last + 2))
    return arb(0).union(bound)


def _poisson_masses(mean: arb, last: int) -> list[arb]:
    masses = [(-mean).exp()]
    for k in range(1, last + 1):
        masses.append(masses[-1] * mean / k)
    return masses


def _poisson_cdf(mean: arb, last: int) -> list[arb]:
    """P(X <= k) for k = 0..last (finite sums, no rest needed)."""
    cdf, total = [], arb(0)
    for mass in _poisson_masses(mean, last):
        total += mass
        cdf.append(total)
    return cdf


def _enough(mean: arb) -> int:
    mid = float(mean.mid())
    return math.ceil(mid + 14 * math.sqrt(mid) + 50)


def _poisson_tail(mean: arb, x: int, tail: str) -> arb:
    """P(X >= x) ("upper") or P(X <= x) ("lower")."""
    if tail == "lower":
        return _poisson_cdf(mean, x)[-1] if x >= 0 else arb(0)
    if x <= 0:
        return arb(1)
    last = max(_enough(mean), x)
    masses = _poisson_masses(mean, last)
    return sum(masses[x:], arb(0)) + _poisson_rest(mean, last, masses[-1])


def _skellam_lower(up: arb, down: arb, x: int) -> arb:
    """P(U - D <= x) = sum_u P(U = u) P(D >= u - x), with the rest of the sum over U."""
    last = _enough(up)
    masses = _poisson_masses(up, last)
    below = _poisson_cdf(down, max(last - x, 0))
    total = arb(0)
    for u, mass in enumerate(masses):
        need = u - x  # D >= need
        total += mass * (1 if need <= 0 else 1 - below[need - 1])
    return total + _poisson_rest(up, last, masses[-1])


def _skellam_tail(up: arb, down: arb, x: int, tail: str) -> arb:
    return _skellam_lower(up, down, x) if tail == "lower" else _skellam_lower(down, up, -x)


def _binomial_masses(n: int, p: fmpq) -> list[arb]:
    p_ball, q_ball = arb(p), arb(1 - p)
    return [arb(math.comb(n, k)) * p_ball**k * q_ball ** (n - k) for k in range(n + 1)]


def _walk_tail(n: int, p: fmpq, x: int, tail: str) -> arb:
    """P(S_n >= x) or P(S_n <= x), S_n = 2 K - n, K ~ Binomial(n, p)."""
    masses = _binomial_masses(n, p)
    if tail == "upper":
        return sum(masses[max(0, -(-(n + x) // 2)) :], arb(0))
    return sum(masses[: max(0, (n + x) // 2 + 1)], arb(0))


# --- Chernoff bounds ------------------------------------------------------------------


def _cramer(r: arb) -> arb:
    return arb(1) if r == 0 else r * r.log() - r + 1


def _on_tail_side(x: arb, mean: arb, tail: str) -> bool:
    beyond = x >= mean if tail == "upper" else x <= mean
    inside = x < mean if tail == "upper" else x > mean
    if not (beyond or inside):
        raise ArithmeticError(f"cannot decide on which side of the mean {mean} x = {x} lies")
    return bool(beyond)


def _poisson_chernoff(mean: arb, x: int, tail: str) -> arb:
    if not _on_tail_side(arb(x), mean, tail):
        return arb(1)
    return (-mean * _cramer(arb(x) / mean)).exp()


def _skellam_chernoff(up: arb, down: arb, x: int, tail: str) -> arb:
    if not _on_tail_side(arb(x), up - down, tail):
        return arb(1)
    root = (arb(x) ** 2 + 4 * up * down).sqrt()
    tilt = (x + root) / (2 * up)  # rho*: u rho^2 - x rho - d = 0
    return (-(up * _cramer(tilt) + down * _cramer(1 / tilt))).exp()


def _walk_chernoff(n: int, p: fmpq, x: int, tail: str) -> arb:
    if not _on_tail_side(arb(x), arb(n * (2 * p - 1)), tail):
        return arb(1)
    ups, downs = fmpq(n + x, 2), fmpq(n - x, 2)
    exponent = arb(n * p) * _cramer(arb(ups / (n * p))) + arb(n * (1 - p)) * _cramer(
        arb(downs / (n * (1 - p)))
    )
    return (-exponent).exp()


# --- the idle process in time ---------------------------------------------------------


def _transient(net: _Net, start: int, time: arb, top: int, absorbing: Sequence[int]) -> list[arb]:
    """P_start(X(t) = j), j = 0..top, for the chain on 0..top with ``absorbing`` levels,
    by uniformisation; ``top`` must be N or a level no path of the summed jumps reaches
    before being absorbed (the callers make it absorbing or out of reach)."""
    nu = arb((net.mu + net.lam) * net.n)
    mean = nu * time
    last = _enough(mean)
    top = min(top, start + last)  # K jumps reach no further
    moves = []
    for j in range(top + 1):
        if j in absorbing:
            moves.append((fmpq(0), fmpq(0)))
            continue
        up, down = net.rates(j)
        moves.append((up if j < net.n else fmpq(0), down))
    up_p = [arb(u) / nu for u, _ in moves]
    down_p = [arb(d) / nu for _, d in moves]
    stay = [1 - u - d for u, d in zip(up_p, down_p, strict=True)]
    vector = [arb(0)] * (top + 1)
    vector[start] = arb(1)
    weight = (-mean).exp()
    total = [v * weight for v in vector]
    for k in range(1, last + 1):
        moved = [vector[j] * stay[j] for j in range(top + 1)]
        for j in range(top):
            moved[j + 1] += vector[j] * up_p[j]
            moved[j] += vector[j + 1] * down_p[j + 1]
        vector = moved
        weight = weight * mean / k
        total = [t + v * weight for t, v in zip(total, vector, strict=True)]
    rest = _poisson_rest(mean, last, weight)
    return [t + rest for t in total]


def _failures(net: _Net, window: arb) -> list[arb]:
    """eps_h, h = 0..b: backward uniformisation sum_k Poisson(nu W; k) P^k r on 0..b with
    0 and b absorbing, r the chain's ruin probabilities (0 at 0 and b); P^k r <= 1, so
    the terms k > K add at most P(Poisson(nu W) > K)."""
    b = net.b
    nu = arb((net.mu + net.lam) * net.n)
    mean = nu * window
    last = _enough(mean)
    up_p, down_p = [arb(0)] * (b + 1), [arb(0)] * (b + 1)
    for j in range(1, b):
        up, down = net.rates(j)
        up_p[j], down_p[j] = arb(up) / nu, arb(down) / nu
    stay = [1 - u - d for u, d in zip(up_p, down_p, strict=True)]
    vector = [arb(x) for x in _chain_ruin(net, b)]
    vector[0] = arb(0)
    weight = (-mean).exp()
    total = [v * weight for v in vector]
    for k in range(1, last + 1):
        vector = (
            [stay[0] * vector[0]]
            + [
                stay[j] * vector[j] + up_p[j] * vector[j + 1] + down_p[j] * vector[j - 1]
                for j in range(1, b)
            ]
            + [stay[b] * vector[b]]
        )
        weight = weight * mean / k
        total = [t + v * weight for t, v in zip(total, vector, strict=True)]
    rest = _poisson_rest(mean, last, weight)
    return [t + rest for t in total]


@lru_cache(maxsize=64)
def _window_row(lam, mu, lam_l, n: int, c: str, start: int, zero_absorbing: bool, bits: int):
    net = _Net(lam, mu, lam_l, n)
    return _transient(net, start, net.window(c), n, (0,) if zero_absorbing else ())


def _jumps(net: _Net, start: int, b: int, steps: int) -> arb:
    """P(T > n): the jump chain on 0..b-1 pushed n jumps (mass reaching b dropped)."""
    p = [arb(net.jump(j)[0]) if j else arb(1) for j in range(b)]
    mass = [arb(0)] * b
    mass[start] = arb(1)
    for _ in range(steps):
        moved = [arb(0)] * b
        for j in range(b):
            if j + 1 < b:
                moved[j + 1] += mass[j] * p[j]
            if j:
                moved[j - 1] += mass[j] * (1 - p[j])
        mass = moved
    return sum(mass, arb(0))


# --- the families ---------------------------------------------------------------------


def _pick(coupled: bool, exact_value, chernoff):
    return exact_value() if coupled else chernoff()


def _enclose(net: _Net, spec: dict) -> tuple[arb, arb]:
    family, b, params = spec["family"], net.b, (net.lam, net.mu, net.lam_l)
    p_b, p_inf = net.jump(b)[0], net.mu / (net.mu + net.lam)
    if family == "ruin":
        i = spec["i"]
        bound = {
            "walk_pb": lambda: _walk_ruin(p_b, i, b),
            "walk_pinf": lambda: _walk_ruin(p_inf, i, b),
            "limit_pb": lambda: min(fmpq(1), (1 - p_b) / p_b) ** i,
        }[spec["bound"]]()
        return bound, _chain_ruin(net, b)[i]
    if family == "climb":
        i, kind = spec["i"], spec["bound"]
        bound = _walk_climb(p_b if kind.endswith("pb") else p_inf, i, b)
        if kind.startswith("time"):
            totals = [sum(net.rates(j), fmpq(0)) for j in range(b)]
            bound /= min(totals) if kind.endswith("pb") else max(totals)
        return bound, _chain_climb(net, b, kind.startswith("steps"))[i]
    if family == "descent":
        i, steps = spec["i"], spec["bound"] == "steps"
        bound = fmpq(i) if steps else fmpq(i) / (net.lam * net.n)
        return bound, _chain_descent(net, steps)[i]
    if family in ("poisson", "skellam"):
        up, down = net.counts(net.window(spec["c"]))
        x, tail = spec["x"], spec["tail"]
        if family == "poisson":
            return _poisson_chernoff(down, x, tail), _poisson_tail(down, x, tail)
        return _skellam_chernoff(up, down, x, tail), _skellam_tail(up, down, x, tail)
    if family == "walk":
        n, x, tail = spec["n"], spec["x"], spec["tail"]
        return _walk_chernoff(n, p_b, x, tail), _walk_tail(n, p_b, x, tail)
    if family == "events":
        mean = arb(net.lam + net.lam_l + net.mu) * net.n * net.window(spec["c"])
        delta, tail = exact(spec["delta"]), spec["tail"]
        scale = 1 + delta if tail == "upper" else 1 - delta
        edge = mean * arb(scale)
        x = (edge.ceil() if tail == "upper" else edge.floor()).unique_fmpz()
        if x is None:
            raise ArithmeticError(f"cannot decide the integer part of {edge}")
        return (-mean * _cramer(arb(scale))).exp(), _poisson_tail(mean, int(x), tail)
    coupled = spec.get("route") == "coupling"
    if family in ("idle_window", "hit_zero"):
        i, c = spec["i"], spec["c"]
        up, down = net.counts(net.window(c))
        bits = flint.ctx.prec
        if family == "hit_zero":
            row = _window_row(*params, net.n, c, i, True, bits)
            bound = _pick(coupled, lambda: _poisson_tail(down, i, "upper"),
                          lambda: _poisson_chernoff(down, i, "upper"))  # fmt: skip
            return bound, row[0]
        m = spec["m"]
        row = _window_row(*params, net.n, c, i, False, bits)
        drift = _pick(coupled, lambda: _skellam_tail(up, down, m - i, "lower"),
                      lambda: _skellam_chernoff(up, down, m - i, "lower"))  # fmt: skip
        escape = _pick(coupled, lambda: _poisson_tail(down, b + 1 - m, "upper"),
                       lambda: _poisson_chernoff(down, b + 1 - m, "upper"))  # fmt: skip
        return drift + escape, sum(row[: m + 1], arb(0))
    if family == "climb_jumps":
        i, n = spec["i"], spec["n"]
        below = b - i - 1
        bound = _pick(coupled, lambda: _walk_tail(n, p_b, below, "lower"),
                      lambda: _walk_chernoff(n, p_b, below, "lower"))  # fmt: skip
        return bound, _jumps(net, i, b, n)
    if family == "climb_time":
        i, time = spec["i"], arb(exact(spec["t"]))
        up, down = net.counts(time)
        below = b - 1 - i
        bound = _pick(coupled, lambda: _skellam_tail(up, down, below, "lower"),
                      lambda: _skellam_chernoff(up, down, below, "lower"))  # fmt: skip
        row = _transient(net, i, time, b, (b,))
        return bound, sum(row[:b], arb(0))
    if family == "sss":
        c, h, m = spec["c"], spec["h"], spec["m"]
        window = net.window(c)
        up, down = net.counts(window)
        bound = _skellam_chernoff(up, down, m - h, "lower") + arb(_walk_ruin(p_b, m + 1, b))
        failures = _failures(net, window)
        worst = failures[1]
        for value in failures[2:b]:
            worst = worst.max(value)
        return bound, worst
    raise ValueError(f"spec family must be a known family, got {family!r}")


def enclose(
    spec: dict, lambda_h: float, mu: float, lambda_l: float
) -> tuple[arb | fmpq, arb | fmpq]:
    """Balls that contain the bound and the exact value a check's ``spec`` names (exact
    rationals where both are rational: the ruin and climbing families, and the
    descent family's bound).

    Call inside :func:`qtheory.core.enclosure.working_precision` (or at the ambient Arb
    precision).

    Parameters
    ----------
    spec : dict
        ``family`` (``"ruin"``, ``"climb"``, ``"descent"``, ``"poisson"``,
        ``"skellam"``, ``"walk"``, ``"events"``, ``"idle_window"``, ``"hit_zero"``,
        ``"climb_jumps"``, ``"climb_time"``, ``"sss"``), ``N`` and the family's
        arguments (integers, rationals as text).
    lambda_h, mu, lambda_l : float
        The network's rates, read as the exact rationals they print as.

    Returns
    -------
    tuple of flint.arb or flint.fmpq
        (bound, exact value).

    Raises
    ------
    ValueError
        If ``spec`` is not a dict with a known ``family`` and an integer ``N >= 4``, or a
        rate is not a finite number.
    ArithmeticError
        If the precision cannot decide an integer part or a side of a mean.

    Examples
    --------
    >>> spec = {"family": "descent", "N": 16, "i": 1, "bound": "steps"}
    >>> bound, value = enclose(spec, 0.6, 1.0, 0.8)
    >>> bound, bool(value > bound)
    (1, True)
    >>> enclose({"family": "ruin", "N": 2}, 0.6, 1.0, 0.8)
    Traceback (most recent call last):
    ...
    ValueError: spec N must be an integer >= 4, got 2
    """
    if not isinstance(spec, dict) or spec.get("family") not in FAMILIES:
        raise ValueError(f"spec must be a dict whose family is one of {FAMILIES}, got {spec!r}")
    servers = spec.get("N")
    if not isinstance(servers, int) or isinstance(servers, bool) or servers < 4:
        raise ValueError(f"spec N must be an integer >= 4, got {servers!r}")
    return _enclose(_Net(lambda_h, mu, lambda_l, servers), spec)


class CertifiedCheck:
    """A check with its two enclosures and whether the comparison is certified.

    Parameters
    ----------
    check : BoundCheck
        The float check (with its ``spec``).
    bound, exact : Enclosure
        Decimal enclosures of the two sides.
    certified : bool
        Whether every point of the bound's ball is on its side of every point of the
        exact value's ball.

    Examples
    --------
    >>> check = BoundCheck("p", 16, "i=1", "upper", 0.5, 0.25)
    >>> CertifiedCheck(check, Enclosure("5e-1", "5e-1"), Enclosure("2.5e-1", "2.5e-1"),
    ...                True).certified
    True
    """

    def __init__(self, check: BoundCheck, bound: Enclosure, exact: Enclosure, certified: bool):
        self.check, self.bound, self.exact, self.certified = check, bound, exact, certified

    def item(self) -> dict:
        """The certificate item: the spec, the side and the two enclosures.

        Returns
        -------
        dict
            JSON-serialisable.

        Examples
        --------
        >>> check = BoundCheck("p", 16, "i=1", "upper", 0.5, 0.25, spec={"family": "x"})
        >>> item = CertifiedCheck(check, Enclosure("1", "1"), Enclosure("0", "0"), True).item()
        >>> item["side"], item["bound_enclosure"], item["exact_enclosure"]
        ('upper', ['1', '1'], ['0', '0'])
        """
        return {
            **self.check.spec,
            "side": self.check.direction,
            "bound_enclosure": [self.bound.lower, self.bound.upper],
            "exact_enclosure": [self.exact.lower, self.exact.upper],
        }


def certify(
    checks: Sequence[BoundCheck], lambda_h: float, mu: float, lambda_l: float
) -> tuple[list[CertifiedCheck], dict]:
    """Decide every check that carries a spec in ball arithmetic; write the certificate.

    Parameters
    ----------
    checks : sequence of BoundCheck
        Checks with a ``spec`` (those without are left out: the caller reports them).
    lambda_h, mu, lambda_l : float
        The network's rates.

    Returns
    -------
    tuple
        The :class:`CertifiedCheck` of each check with a spec, and the certificate
        ``{"checker": "walks.bounds", "data": {...}}`` (items of the certified
        comparisons only) for :class:`qtheory.core.claims.Claim`.

    Raises
    ------
    ValueError
        If a spec names an unknown family.

    Examples
    --------
    >>> from qtheory.walks.idle import IdleWalk
    >>> from qtheory.walks.ruin import ruin_checks
    >>> done, certificate = certify(ruin_checks(IdleWalk(100, 0.6, 1.0), [1]), 0.6, 1.0, 0.8)
    >>> [c.certified for c in done], certificate["checker"], len(certificate["data"]["items"])
    ([True, True, True], 'walks.bounds', 3)
    """
    done = []
    with working_precision(DPS) as bits:
        for check in checks:
            if check.spec is None:
                continue
            bound, value = enclose(check.spec, lambda_h, mu, lambda_l)
            if not (isinstance(bound, fmpq) and isinstance(value, fmpq)):
                bound, value = arb(bound), arb(value)  # else: decided exactly
            holds = bound >= value if check.direction == "upper" else bound <= value
            done.append(CertifiedCheck(check, _enclosure(bound), _enclosure(value),
                                       bool(holds)))  # fmt: skip
    data = {
        "lambda_h": _text(lambda_h),
        "mu": _text(mu),
        "lambda_l": _text(lambda_l),
        "prec": bits,
        "items": [c.item() for c in done if c.certified],
    }
    return done, {"checker": "walks.bounds", "data": data}


def _enclosure(value: arb | fmpq) -> Enclosure:
    if isinstance(value, fmpq):
        return Enclosure.from_arb(arb(value), DIGITS)
    return Enclosure.from_arb(value, DIGITS)


def _text(value: float) -> str:
    rational = exact(value)
    return str(rational)
