r"""Checkers for the overloaded two-class loss network.

The network: N servers, class H arrives at rate :math:`\lambda_H N`, class L at rate
:math:`\lambda_L N`, every job holds a server for an Exp(:math:`\mu`) time and pays
:math:`r_H` (resp. :math:`r_L`) on admission; :math:`\lambda_H < \mu < \lambda_H +
\lambda_L` and :math:`r_H > r_L > 0`.  Parameters are exact rationals (``"3/5"``).

``fluid``
    The fluid LP :math:`\max\{N\sum_i r_i x_i : \sum_i x_i/\mu_i \le 1,\ 0 \le x_i \le
    \lambda_i\}` (any number of classes).  The data give a primal point :math:`x`, a
    capacity price :math:`y` and bound prices :math:`z_i`; the checker verifies in exact
    rationals primal feasibility, dual feasibility (:math:`y, z_i \ge 0`,
    :math:`y/\mu_i + z_i \ge r_i`) and complementary slackness, which together prove
    that :math:`x` is optimal (LP duality), and that ``value`` is its objective.  With
    ``"closed_form": true`` it also checks the two-class overloaded formula
    :math:`N[r_H\lambda_H + r_L(\mu - \lambda_H)]`.

``optimality``
    Exact average-reward optimality of trunk reservation with reserve :math:`k` (admit
    H whenever a server is idle, L only while more than :math:`k` are idle) among all
    admission policies.  State: the busy count :math:`b = 0..N`; in :math:`b < N` the
    actions admit-or-not H and L, in :math:`b = N` nothing.  The data give the gain
    :math:`g` and the bias :math:`h(0..N)`; the checker verifies in exact rationals, in
    every state and for every action :math:`a`,
    :math:`r(b, a) + \sum_{b'} q(b' \mid b, a)\,(h(b') - h(b)) \le g`, with equality
    for the action of reserve :math:`k`, and strict inequality for the action that
    differs from it in L.  By the optimality equations of average-reward MDPs
    (Puterman 1994, Sec. 8.4, through uniformisation) no policy earns more than
    :math:`g`, reserve :math:`k` earns :math:`g`, and every other reserve earns strictly
    less (its stationary law charges every state, and its slack is positive in the
    states where it differs).

``online``
    The same statement for any N, decided with Arb balls in :math:`O(k + T)`
    operations, :math:`T \approx p \ln 2/\ln((\lambda_H+\lambda_L)/\mu)` at
    :math:`p` bits (independent of N), plus enclosures of the
    reward :math:`R_k`, of the regret :math:`R_{fluid} - R_k` and the exact fluid value.
    Index states by the idle count :math:`i = N - b`.  The stationary weights relative
    to the full state are :math:`v_0 = 1`, :math:`v_i = v_{i-1}\,\tau_i` with
    :math:`\tau_i = (N-i+1)\mu/(\lambda_H N)` for :math:`i \le k` and
    :math:`(N-i+1)\mu/((\lambda_H+\lambda_L)N)` for :math:`i > k`.  For :math:`i > I \ge
    k`, :math:`\tau_i \le q = \mu/(\lambda_H+\lambda_L) < 1`, so
    :math:`\sum_{i>I} v_i \le v_I q/(1-q)` and
    :math:`\sum_{i>I} i\,v_i \le v_I(Iq/(1-q) + q/(1-q)^2)`: the sums are cut after
    their terms fall below the precision and the tails enter as balls
    :math:`[0, \text{bound}]`.  With :math:`Z = \sum_i v_i`:
    :math:`R_k = (r_H\lambda_H N (Z - 1) + r_L \lambda_L N \sum_{i>k} v_i)/Z` and
    :math:`R_{fluid} - R_k = (r_L\mu\sum_i i\,v_i + (r_H-r_L)\lambda_H N)/Z` (throughput
    equals :math:`\mu` times the mean busy count).

    Optimality over all policies, with :math:`g = R_k` and :math:`d_b = h(b+1) - h(b)`:
    TR's action is optimal in state :math:`b < N` iff :math:`r_L + d_b \ge 0` where it
    admits L (:math:`b < m = N - k`) and :math:`r_L + d_b \le 0 \le r_H + d_b` where it
    does not (the actions differ only by :math:`\lambda_c N (r_c + d_b)`).  The Poisson
    equation of TR at :math:`b = N` gives :math:`d_{N-1} = -g/(N\mu)`, at
    :math:`m \le b < N` it gives :math:`d_{b-1} = (\lambda_H N (r_H + d_b) - g)/(b\mu)`
    (:math:`k` steps, stable: the factor :math:`\lambda_H N/(b\mu)` is below 1 there).
    Below :math:`m` the Poisson equations from :math:`b = 0` up give
    :math:`d_b = -\frac{\rho - g}{a} \sum_{j=0}^{b} (b)_j (\mu/a)^j` with
    :math:`a = (\lambda_H+\lambda_L)N`, :math:`\rho = (\lambda_H r_H + \lambda_L r_L)N`
    and :math:`(b)_j` the falling factorial; each term grows with :math:`b`, so when
    :math:`\rho > g` the :math:`d_b` decrease on :math:`0..m-1` and
    :math:`r_L + d_b > 0` there follows from :math:`r_L + d_{m-1} > 0`.  The checker
    verifies :math:`\rho > g`, :math:`r_L + d_b < 0 \le r_H + d_b` for
    :math:`m \le b < N` and :math:`r_L + d_{m-1} > 0`, all strictly decided by the
    balls; strictness makes :math:`k` the unique optimal reserve (as for
    ``optimality``).

Examples
--------
>>> data = {"arrival_rates": ["3/5", "4/5"], "rewards": ["2", "1"],
...         "service_rates": ["1", "1"], "servers": "100", "admitted": ["3/5", "2/5"],
...         "capacity_price": "1", "bound_prices": ["1", "0"], "value": "160",
...         "closed_form": True}
>>> CHECKS["fluid"](data)
>>> CHECKS["fluid"]({**data, "admitted": ["3/5", "1/2"]})
Traceback (most recent call last):
...
qtheory.verify.CertificateError: admitted: the capacity sum(x_i / mu_i) = 11/10 exceeds 1
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import flint
from flint import arb, fmpq

from qtheory.verify import CertificateError
from qtheory.verify._arith import certificate_digits, inside, narrow, precision, rational

__all__ = ["CHECKS", "check_fluid", "check_online", "check_online_case", "check_optimality"]


#: Largest precision and reserve an ``online`` certificate may ask for: its cost is
#: O(reserve + bits) ball operations at that precision (a second at the limits).
MAX_BITS = 20_000
#: Significant digits of the ``online`` enclosure of an optimality certificate.
ONLINE_DIGITS = 20
MAX_RESERVE = 10**6


def _rationals(data: Mapping, key: str) -> list[fmpq]:
    values = data[key]
    if not isinstance(values, list) or not values:
        raise CertificateError(f"{key}: must be a non-empty list of rationals")
    return [rational(v) for v in values]


def _network(data: Mapping) -> tuple[int, fmpq, fmpq, fmpq, fmpq, fmpq, int]:
    """N, λ_H, λ_L, μ, r_H, r_L and the reserve k, after checking the model's
    conditions."""
    n, k = data["servers"], data["reserve"]
    if not (isinstance(n, int) and n >= 1 and isinstance(k, int) and 0 <= k <= n):
        raise CertificateError(f"servers, reserve: need integers N >= 1, 0 <= k <= N, got {n}, {k}")
    lh, ll, mu, rh, rl = (
        rational(data[name]) for name in ("lambda_h", "lambda_l", "mu", "r_h", "r_l")
    )
    if not (0 < lh < mu < lh + ll and ll > 0 and rh > rl > 0):
        raise CertificateError(
            "parameters: need 0 < lambda_h < mu < lambda_h + lambda_l and r_h > r_l > 0"
        )
    return n, lh, ll, mu, rh, rl, k


def check_fluid(data: Mapping) -> None:
    """Decide a ``fluid`` certificate (see the module docstring).

    Parameters
    ----------
    data : mapping
        ``arrival_rates``, ``rewards``, ``service_rates`` (lists of rationals),
        ``servers``, ``admitted``, ``capacity_price``, ``bound_prices``, ``value`` and
        optionally ``closed_form``.

    Raises
    ------
    CertificateError
        Naming the entry that fails.

    Examples
    --------
    >>> check_fluid({"arrival_rates": ["1/5"], "rewards": ["2"], "service_rates": ["1"],
    ...              "servers": "10", "admitted": ["1/5"], "capacity_price": "0",
    ...              "bound_prices": ["2"], "value": "4"})
    """
    lam, r, mu = (_rationals(data, key) for key in ("arrival_rates", "rewards", "service_rates"))
    x, z = _rationals(data, "admitted"), _rationals(data, "bound_prices")
    if not len(lam) == len(r) == len(mu) == len(x) == len(z):
        raise CertificateError("the class vectors have different lengths")
    n, y, value = (
        rational(data["servers"]),
        rational(data["capacity_price"]),
        rational(data["value"]),
    )
    if n <= 0 or min(lam) <= 0 or min(mu) <= 0:
        raise CertificateError("servers, arrival_rates, service_rates: must be > 0")
    for i, (xi, li) in enumerate(zip(x, lam, strict=True)):
        if not 0 <= xi <= li:
            raise CertificateError(f"admitted[{i}] = {xi} is outside [0, {li}]")
    used = sum((xi / mi for xi, mi in zip(x, mu, strict=True)), fmpq(0))
    if used > 1:
        raise CertificateError(f"admitted: the capacity sum(x_i / mu_i) = {used} exceeds 1")
    if y < 0 or min(z) < 0:
        raise CertificateError("capacity_price, bound_prices: prices must be >= 0")
    for i, (ri, mi, zi, xi, li) in enumerate(zip(r, mu, z, x, lam, strict=True)):
        reduced = y / mi + zi - ri
        if reduced < 0:
            raise CertificateError(
                f"capacity_price, bound_prices[{i}]: y/mu_i + z_i >= r_i fails by {-reduced}"
            )
        if xi * reduced != 0:
            raise CertificateError(
                f"admitted[{i}], capacity_price, bound_prices[{i}]: complementary slackness "
                "x_i (y/mu_i + z_i - r_i) = 0 fails"
            )
        if zi * (li - xi) != 0:
            raise CertificateError(
                f"admitted[{i}], bound_prices[{i}]: complementary slackness "
                "z_i (lambda_i - x_i) = 0 fails"
            )
    if y * (1 - used) != 0:
        raise CertificateError(
            "capacity_price: complementary slackness fails (price > 0, capacity slack)"
        )
    objective = n * sum((ri * xi for ri, xi in zip(r, x, strict=True)), fmpq(0))
    if value != objective:
        raise CertificateError(f"value {value} differs from the objective {objective}")
    if data.get("closed_form"):
        if (
            len(lam) != 2
            or mu[0] != mu[1]
            or not (lam[0] < mu[0] < lam[0] + lam[1] and r[0] > r[1] > 0)
        ):
            raise CertificateError(
                "closed_form: needs two classes, common mu, overloaded, r_H > r_L > 0"
            )
        formula = n * (r[0] * lam[0] + r[1] * (mu[0] - lam[0]))
        if value != formula:
            raise CertificateError(
                f"value {value} differs from N[r_H lambda_H + r_L(mu - lambda_H)] = {formula}"
            )


def _weights(n: int, lh: fmpq, ll: fmpq, mu: fmpq, k: int) -> tuple[arb, arb, arb]:
    """Z − 1, Σ_{i>k} v_i and Σ i v_i, each with its rigorous tail."""
    cut = arb(2) ** (-flint.ctx.prec)
    q = mu / (lh + ll)
    v, z1, above, moments = arb(1), arb(0), arb(0), arb(0)
    for i in range(1, n + 1):
        v = v * ((n - i + 1) * mu) / ((lh if i <= k else lh + ll) * n)
        z1, moments = z1 + v, moments + i * v
        if i > k:
            above += v
            tail0 = v * (q / (1 - q))
            tail1 = v * (i * q / (1 - q) + q / (1 - q) ** 2)
            if i < n and tail0 < cut * z1 and tail1 < cut * moments:
                z1, above = z1 + _upto(tail0), above + _upto(tail0)
                moments += _upto(tail1)
                break
    return z1, above, moments


def _upto(bound: arb) -> arb:
    """The ball that covers [0, bound]."""
    return arb(0).union(bound.upper())


def check_online(data: Mapping) -> None:
    """Decide an ``online`` certificate: one network, or several under ``"cases"``.

    Parameters
    ----------
    data : mapping
        One case (see :func:`check_online_case`), or ``{"cases": [case, ...]}``.

    Raises
    ------
    CertificateError
        Naming the case (``cases[j]``) and the entry that fails.

    Examples
    --------
    >>> check_online({"cases": []})
    Traceback (most recent call last):
    ...
    qtheory.verify.CertificateError: cases: must be a non-empty list
    """
    if "cases" not in data:
        check_online_case(data)
        return
    cases = data["cases"]
    if not isinstance(cases, list) or not cases:
        raise CertificateError("cases: must be a non-empty list")
    for j, case in enumerate(cases):
        try:
            check_online_case(case)
        except CertificateError as error:
            raise CertificateError(f"cases[{j}] (N = {case.get('servers')}): {error}") from None


def check_online_case(data: Mapping) -> None:
    """Decide one network of an ``online`` certificate (see the module docstring).

    Parameters
    ----------
    data : mapping
        ``servers``, ``reserve`` (integers), ``lambda_h``, ``lambda_l``, ``mu``, ``r_h``,
        ``r_l``, ``fluid`` (rationals), ``bits`` (the Arb precision), ``dps`` (an
        integer >= 1) and the claimed enclosures ``online`` and ``regret`` (``[lower,
        upper]`` decimals), each of relative width at most 10^-dps.

    Raises
    ------
    CertificateError
        Naming the entry that fails.

    Examples
    --------
    >>> data = {"servers": 2, "reserve": 0, "lambda_h": "3/5", "lambda_l": "4/5",
    ...         "mu": "1", "r_h": "2", "r_l": "1", "bits": 84, "fluid": "16/5", "dps": 9,
    ...         "online": ["1.968911917", "1.968911918"],
    ...         "regret": ["1.231088082", "1.231088083"]}
    >>> check_online_case(data)
    >>> check_online_case({**data, "reserve": 1})
    Traceback (most recent call last):
    ...
    qtheory.verify.CertificateError: reserve: at 1 idle servers rejecting L ...
    """
    n, lh, ll, mu, rh, rl, k = _network(data)
    dps = certificate_digits(data)
    bits = data["bits"]
    if not (isinstance(bits, int) and 16 <= bits <= MAX_BITS and k <= MAX_RESERVE):
        raise CertificateError(
            f"bits, reserve: this checker works to {MAX_BITS} bits and reserves up to "
            f"{MAX_RESERVE}, got {bits!r} and {k}"
        )
    if rational(data["fluid"]) != n * (rh * lh + rl * (mu - lh)):
        raise CertificateError(
            f"fluid {data['fluid']} differs from N[r_H lambda_H + r_L(mu - lambda_H)]"
        )
    with precision(bits):
        z1, above, moments = _weights(n, lh, ll, mu, k)
        z = 1 + z1
        gain = (rh * lh * n * z1 + rl * ll * n * above) / z
        regret = (rl * mu * moments + (rh - rl) * lh * n) / z
        if not gain < (lh * rh + ll * rl) * n:
            raise CertificateError("online: cannot decide g < (lambda_H r_H + lambda_L r_L) N")
        d = -gain / (n * mu)  # d_{N-1}
        for i in range(1, k + 1):  # state b = N - i rejects L
            if not (rl + d < 0 and rh + d >= 0):
                raise CertificateError(
                    f"reserve: at {i} idle servers rejecting L and admitting H is not "
                    f"certainly optimal (r_L + d = {rl + d}, r_H + d = {rh + d})"
                )
            if i < n:
                d = (lh * n * (rh + d) - gain) / ((n - i) * mu)
        if k < n and not rl + d > 0:
            raise CertificateError(
                f"reserve: at {k + 1} idle servers admitting L is not certainly optimal "
                f"(r_L + d = {rl + d})"
            )
        if not inside(gain, data["online"]):
            raise CertificateError(f"online: R_k = {gain} is not inside {data['online']}")
        if not inside(regret, data["regret"]):
            raise CertificateError(f"regret: {regret} is not inside {data['regret']}")
    for name in ("online", "regret"):
        if not narrow(data[name], dps):
            raise CertificateError(
                f"{name}: the interval {data[name]} is wider than 1e-{dps} relative"
            )


def check_optimality(data: Mapping) -> None:
    """Decide an ``optimality`` certificate (see the module docstring).

    Parameters
    ----------
    data : mapping
        ``servers``, ``reserve`` (integers), ``lambda_h``, ``lambda_l``, ``mu``, ``r_h``,
        ``r_l``, ``gain`` (rationals), ``online`` (a decimal enclosure ``[lower,
        upper]`` of the gain, for readers) and ``bias`` (N + 1 rationals, by busy
        count).

    Raises
    ------
    CertificateError
        Naming the entries that fail.

    Examples
    --------
    >>> data = {"servers": 2, "reserve": 0, "lambda_h": "3/5", "lambda_l": "4/5",
    ...         "mu": "1", "r_h": "2", "r_l": "1", "gain": "380/193",
    ...         "online": ["1.968911917098445595854", "1.968911917098445595855"],
    ...         "bias": ["0", "-140/193", "-330/193"]}
    >>> check_optimality(data)
    >>> check_optimality({**data, "gain": "1.9689119170984455958545"})
    Traceback (most recent call last):
    ...
    qtheory.verify.CertificateError: gain, bias[0..1]: in state b = 0 busy, r + Qh at ... gain
    """
    n, lh, ll, mu, rh, rl, k = _network(data)
    g, h = rational(data["gain"]), _rationals(data, "bias")
    if len(h) != n + 1:
        raise CertificateError(f"bias: needs N + 1 = {n + 1} values, got {len(h)}")
    low, high = (rational(t) for t in data["online"])
    if not low <= g <= high:
        raise CertificateError(f"online: the gain is not inside {data['online']}")
    if not narrow(data["online"], ONLINE_DIGITS):
        raise CertificateError(
            f"online: the interval {data['online']} is wider than 1e-{ONLINE_DIGITS} relative"
        )
    for b in range(n + 1):
        where = f"gain, bias[{max(b - 1, 0)}..{min(b + 1, n)}]: in state b = {b} busy"
        down = b * mu * (h[b - 1] - h[b]) if b else fmpq(0)
        if b == n:
            if down != g:
                raise CertificateError(f"{where}, r + Qh is not the gain")
            continue
        gain_h, gain_l = lh * n * (rh + h[b + 1] - h[b]), ll * n * (rl + h[b + 1] - h[b])
        admit_l = n - b > k
        if down + gain_h + (gain_l if admit_l else 0) != g:
            raise CertificateError(f"{where}, r + Qh at the reserve's action is not the gain")
        if gain_h < 0 or (gain_l < 0 if admit_l else gain_l > 0):
            raise CertificateError(f"{where}, another action beats the reserve's (reserve {k})")
        if gain_l == 0:
            raise CertificateError(f"{where}, admitting L or not ties (reserve {k} not unique)")


CHECKS: dict[str, Callable[[Mapping], None]] = {
    "fluid": check_fluid,
    "online": check_online,
    "optimality": check_optimality,
}
