r"""Checker of the random-walk bounds: every bound lies on its side of the exact value.

The certificate ``walks.bounds`` lists *items*; each names a bound and the exact quantity
it bounds for the reject-all-L idle process of a loss network, with the parameters
(``data``: ``lambda_h``, ``mu``, ``lambda_l`` as exact rationals, ``prec`` bits) and the
producer's decimal enclosures of both.  For each item this module computes both sides
again in ball arithmetic, checks that its balls lie in the claimed enclosures (each at
most 10^-12 wide, relative), and that
``bound >= exact`` (side ``upper``) or ``bound <= exact`` (``lower``) holds for every
point of the balls.

The idle process.  Levels :math:`0..N`; up (a service ends) at rate
:math:`u_j = \mu(N-j)`, down (an H job is admitted) at :math:`d_j = \lambda N` for
:math:`j \ge 1`.  Jump chain: :math:`p(j) = u_j/(u_j+d_j)`, :math:`p(0) = 1`;
:math:`p_b = p(b)`, :math:`p_\infty = \mu/(\mu+\lambda)`, :math:`b = \lfloor\sqrt N\rfloor`.
A window is :math:`W = c\log N/N`; the coupled counts over a time :math:`t` are
:math:`U \sim \text{Poisson}(\mu(N-b)t)`, :math:`D \sim \text{Poisson}(\lambda N t)`.

Exact values (first-step analysis; Kolmogorov):

- ruin before :math:`b`: :math:`h_i = \sum_{j=i}^{b-1}\rho_j/\sum_{j=0}^{b-1}\rho_j`,
  :math:`\rho_j = \prod_{k=1}^{j} d_k/u_k` (exact rationals);
- mean climb to :math:`b`: :math:`\sum_{j=i}^{b-1}\tau_j`,
  :math:`\tau_j = (1 + d_j\tau_{j-1})/u_j` (in steps: :math:`p, q` in place of :math:`u, d`);
- mean descent to 0: :math:`\sum_{j=1}^{i} D_j`, :math:`D_j = (1 + u_j D_{j+1})/d_j`,
  :math:`D_{N+1} = 0`;
- transient probabilities: the row of :math:`e^{tQ}` (Arb's rigorous matrix exponential)
  for the chain on :math:`0..L` with :math:`L` absorbing; the original chain agrees with
  it until :math:`L` is hit, so a probability of the original lies between the truncated
  one and that plus the mass absorbed at :math:`L` (:math:`L = N` needs no correction);
- jump chain after :math:`n` jumps on :math:`0..b-1` (mass reaching :math:`b` dropped):
  the :math:`n`-th matrix power;
- Poisson and binomial tails: regularised incomplete gamma and beta functions; Skellam
  :math:`P(U-D \le x) = \sum_{j \le J} P(D=j)P(U \le x+j) + [0, P(D > J)]`;
- SSS failure :math:`\max_{1 \le h < b}\varepsilon_h`, :math:`\varepsilon_h =
  \sum_{x=1}^{b-1} P_h(J(W) = x, \text{no absorption})\, h_x` on :math:`0..b` with 0
  and :math:`b` absorbing (the vector :math:`e^{WQ} h`).

Bounds: walk ruin :math:`(r^i - r^b)/(1 - r^b)`, :math:`r = (1-p)/p` (:math:`1 - i/b` at
:math:`r = 1`), its limit :math:`\min(1, r)^i`; walk climb
:math:`(b-i)\frac{1+r}{1-r} - \frac{2r(r^i-r^b)}{(1-r)^2}` (:math:`b^2 - i^2`), over
:math:`\min_{j<b}(u_j+d_j)` or :math:`\max`; Chernoff :math:`e^{-\Lambda^*(x)}` on the tail
side of the mean (else 1): Poisson :math:`m\,h(x/m)`, :math:`h(r) = r\log r - r + 1`;
Skellam :math:`u + d - s + x\log\frac{x+s}{2u}`, :math:`s = \sqrt{x^2+4ud}`; walk
:math:`n\,\mathrm{KL}(\frac{1+x/n}{2}\,\|\,p)`.  SSS (item ``h`` = 1):
:math:`B_1 = e^{-\Lambda^*_{Sk}(m-1)} + \text{ruin}^{p_b}_{m+1}`, an upper bound on
:math:`\max_h \varepsilon_h`.
"""

from __future__ import annotations

import math
from functools import lru_cache

import flint
from flint import arb, arb_mat, fmpq

from qtheory.verify import CertificateError
from qtheory.verify._arith import inside, narrow, precision, rational

__all__ = ["CHECKS", "FAMILIES", "LOWER_BOUNDS", "check_bounds", "item_values", "side_of"]

#: The largest N the checker accepts (its exact routes cost O(N) to O(sqrt(N)^3)), and the
#: most terms of a Poisson series or steps of a walk it sums.
MAX_SERVERS = 10**5
#: Working precision the checker accepts (the reproduce certificates ask for 131 bits).
MAX_BITS = 20_000
#: Significant digits every claimed enclosure fixes (the statement says so).
ENCLOSURE_DIGITS = 12
MAX_TERMS = 10**6


def _ball(x) -> arb:
    return x if isinstance(x, arb) else arb(x)


class _Model:
    """The idle process of one network: rates as exact rationals."""

    def __init__(self, lam: fmpq, mu: fmpq, lam_l: fmpq, n: int) -> None:
        self.lam, self.mu, self.lam_l, self.n = lam, mu, lam_l, n
        self.b = math.isqrt(n)

    def up(self, j: int) -> fmpq:
        return self.mu * (self.n - j)

    def down(self, j: int) -> fmpq:
        return self.lam * self.n if j >= 1 else fmpq(0)

    def p(self, j: int) -> fmpq:
        return fmpq(1) if j == 0 else self.up(j) / (self.up(j) + self.down(j))

    def window(self, c: fmpq) -> arb:
        return arb(c) * arb(self.n).log() / self.n

    def means(self, t: arb) -> tuple[arb, arb]:
        """(E U, E D) over a time t."""
        return arb(self.mu * (self.n - self.b)) * t, arb(self.lam * self.n) * t

    def generator(self, top: int, absorbing: tuple[int, ...]) -> arb_mat:
        rows = [[arb(0)] * (top + 1) for _ in range(top + 1)]
        for j in range(top + 1):
            if j in absorbing:
                continue
            up, down = (self.up(j) if j < top else fmpq(0)), self.down(j)
            if j < top:
                rows[j][j + 1] = arb(up)
            if j >= 1:
                rows[j][j - 1] = arb(down)
            rows[j][j] = -arb(up + down)
        return arb_mat(rows)


def _transient(model: _Model, start: int, t: arb, top: int, absorbing: tuple[int, ...]):
    """Row ``start`` of exp(tQ) on 0..top (top absorbing when top < N) and the mass
    absorbed at the truncation level top (0 when top = N)."""
    truncated = top < model.n
    generator = model.generator(top, absorbing + ((top,) if truncated else ()))
    row = [arb(x) for x in (generator * t).exp().tolist()[start]]
    return row, (row[top] if truncated else arb(0))


def _uniformised(model: _Model, start: int, t: arb, top: int, absorbing: tuple[int, ...]):
    """As :func:`_transient`, by uniformisation: with nu >= every exit rate and
    P = I + Q/nu, the row is sum_k Poisson(nu t; k) e_start P^k; the terms k > K add at
    most P(Poisson(nu t) > K) to each entry."""
    truncated = top < model.n
    generator = model.generator(top, absorbing + ((top,) if truncated else ()))
    nu = arb((model.mu + model.lam) * model.n)
    jump = arb_mat.convert(generator) * (1 / nu)
    for j in range(top + 1):
        jump[j, j] += 1
    mean = nu * t
    steps = _terms(mean)
    vector = arb_mat([[arb(1) if j == start else arb(0) for j in range(top + 1)]])
    weight, total = (-mean).exp(), vector * (-mean).exp()
    for k in range(1, steps + 1):
        vector = vector * jump
        weight = weight * mean / k
        total += vector * weight
    rest = 1 - mean.gamma_upper(arb(steps + 1), regularized=1)
    row = [_widen(arb(x), rest) for x in total.tolist()[0]]
    return row, (row[top] if truncated else arb(0))


def _widen(value: arb, extra: arb) -> arb:
    """The ball holding [value, value + extra] for extra >= 0."""
    return value.union(value + extra)


def _chain_ruin(model: _Model, b: int) -> list[fmpq]:
    rho = [fmpq(1)]
    for k in range(1, b):
        rho.append(rho[-1] * model.down(k) / model.up(k))
    total = sum(rho, fmpq(0))
    return [sum(rho[i:], fmpq(0)) / total for i in range(b)] + [fmpq(0)]


def _walk_ruin(p: fmpq, i: int, b: int) -> fmpq:
    r = (1 - p) / p
    return 1 - fmpq(i, b) if r == 1 else (r**i - r**b) / (1 - r**b)


def _walk_climb(p: fmpq, i: int, b: int) -> fmpq:
    r = (1 - p) / p
    if r == 1:
        return fmpq(b * b - i * i)
    return (b - i) * (1 + r) / (1 - r) - 2 * r * (r**i - r**b) / (1 - r) ** 2


def _chain_climb(model: _Model, i: int, b: int, steps: bool) -> fmpq:
    tau, total = fmpq(0), fmpq(0)
    for j in range(b):
        up, down = (model.p(j), 1 - model.p(j)) if steps else (model.up(j), model.down(j))
        tau = (1 + down * tau) / up
        total += tau if j >= i else 0
    return total


def _chain_descent(model: _Model, i: int, steps: bool) -> arb:
    d_next, values = arb(0), {}
    for j in range(model.n, 0, -1):
        up, down = (model.p(j), 1 - model.p(j)) if steps else (model.up(j), model.down(j))
        d_next = (1 + arb(up) * d_next) / arb(down)
        values[j] = d_next
    return sum((values[j] for j in range(1, i + 1)), arb(0))


def _h(r: arb) -> arb:
    return arb(1) if r == 0 else r * r.log() - r + 1


def _tail_side(x, mean, tail: str) -> bool:
    """Whether x lies certainly on the tail side of the mean (else the bound is 1)."""
    if tail == "upper":
        return bool(_ball(x) >= mean)
    if tail == "lower":
        return bool(_ball(x) <= mean)
    raise CertificateError(f"tail must be 'upper' or 'lower', got {tail!r}")


def _chernoff(exponent, x, mean, tail: str) -> arb:
    if _tail_side(x, mean, tail):
        return (-exponent()).exp()
    if tail == "upper" and _ball(x) < mean or tail == "lower" and _ball(x) > mean:
        return arb(1)
    raise CertificateError(f"cannot decide the side of x = {x} against the mean {mean}")


def _poisson_chernoff(m: arb, x: int, tail: str) -> arb:
    return _chernoff(lambda: m * _h(arb(x) / m), x, m, tail)


def _skellam_chernoff(u: arb, d: arb, x: int, tail: str) -> arb:
    def exponent() -> arb:
        s = (arb(x) ** 2 + 4 * u * d).sqrt()
        return u + d - s + x * ((x + s) / (2 * u)).log()

    return _chernoff(exponent, x, u - d, tail)


def _walk_chernoff(n: int, p: fmpq, x: int, tail: str) -> arb:
    def exponent() -> arb:
        q = arb(fmpq(n + x, 2 * n))
        terms = [a * (a / arb(b)).log() for a, b in ((q, p), (1 - q, 1 - p)) if a != 0]
        return n * sum(terms, arb(0))

    return _chernoff(exponent, x, arb(n * (2 * p - 1)), tail)


def _poisson_at_most(m: arb, k: int) -> arb:
    """P(X <= k), X ~ Poisson(m): Q(k + 1, m)."""
    return arb(0) if k < 0 else m.gamma_upper(arb(k + 1), regularized=1)


def _poisson_tail(m: arb, x: int, tail: str) -> arb:
    return _poisson_at_most(m, x) if tail == "lower" else 1 - _poisson_at_most(m, x - 1)


def _skellam_at_most(u: arb, d: arb, x: int) -> arb:
    """P(U - D <= x) = sum_j P(D = j) P(U <= x + j), truncated with its remainder."""
    top = _terms(d)
    total, pmf = arb(0), (-d).exp()
    for j in range(top + 1):
        if j:
            pmf = pmf * d / j
        total += pmf * _poisson_at_most(u, x + j)
    return _widen(total, 1 - _poisson_at_most(d, top))


def _skellam_tail(u: arb, d: arb, x: int, tail: str) -> arb:
    return _skellam_at_most(u, d, x) if tail == "lower" else _skellam_at_most(d, u, -x)


def _binomial_at_least(n: int, p: fmpq, k: int) -> arb:
    """P(K >= k), K ~ Binomial(n, p): the regularised incomplete beta I_p(k, n - k + 1)."""
    if k <= 0:
        return arb(1)
    if k > n:
        return arb(0)
    return arb(p).beta_lower(arb(k), arb(n - k + 1), regularized=1)


def _walk_tail(n: int, p: fmpq, x: int, tail: str) -> arb:
    if tail == "upper":
        return _binomial_at_least(n, p, -((-(n + x)) // 2))
    return 1 - _binomial_at_least(n, p, (n + x) // 2 + 1)


@lru_cache(maxsize=64)
def _window_row(lam, mu, lam_l, n, c, start, absorbing_zero: bool, bits: int, least: int = 0):
    """Probabilities at W of the full chain from ``start`` (0 absorbing or not): the
    truncated chain's row and the mass absorbed at the truncation level (at least
    ``least``, or N)."""
    model = _Model(lam, mu, lam_l, n)
    w = model.window(c)
    top = min(n, max(start + _terms(arb(mu * n) * w), least))
    return _uniformised(model, start, w, top, (0,) if absorbing_zero else ())


def _int(item: dict, key: str, low: int, high: int) -> int:
    value = item[key]
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise CertificateError(f"{key} must be an integer in {low}..{high}, got {value!r}")
    return value


def _terms(mean: arb) -> int:
    """Terms of a Poisson series of this mean that leave a negligible rest (the rest is
    enclosed anyway); refused beyond MAX_TERMS."""
    top = (mean + 12 * mean.sqrt() + 40).upper().ceil().unique_fmpz()
    if top is None or not mean.is_finite() or int(top) > MAX_TERMS:
        raise CertificateError(f"a Poisson series of mean {mean} needs more than {MAX_TERMS} terms")
    return int(top)


def _choice(item: dict, key: str, options: tuple[str, ...]) -> str:
    if item[key] not in options:
        raise CertificateError(f"{key} must be one of {options}, got {item[key]!r}")
    return item[key]


def _positive(item: dict, key: str) -> fmpq:
    value = rational(item[key])
    if not value > 0:
        raise CertificateError(f"{key} must be a rational > 0, got {item[key]!r}")
    return value


def _coupled(item: dict) -> bool:
    """Whether the item's route is the coupled probability (else its Chernoff bound)."""
    return _choice(item, "route", ("coupling", "chernoff")) == "coupling"


def _tail(item: dict) -> str:
    return _choice(item, "tail", ("upper", "lower"))


def _ruin_item(model: _Model, item: dict):
    b = model.b
    i, kind = _int(item, "i", 0, b), _choice(item, "bound", ("walk_pb", "walk_pinf", "limit_pb"))
    p = model.mu / (model.mu + model.lam) if kind == "walk_pinf" else model.p(b)
    bound = min(fmpq(1), (1 - p) / p) ** i if kind == "limit_pb" else _walk_ruin(p, i, b)
    return bound, _chain_ruin(model, b)[i]


def _climb_item(model: _Model, item: dict):
    b = model.b
    i = _int(item, "i", 0, b)
    kind = _choice(item, "bound", ("steps_pb", "steps_pinf", "time_pb", "time_pinf"))
    p = model.p(b) if kind.endswith("pb") else model.mu / (model.mu + model.lam)
    bound = _walk_climb(p, i, b)
    if kind.startswith("time"):
        rates = [model.up(j) + model.down(j) for j in range(b)]
        bound = bound / (min(rates) if kind.endswith("pb") else max(rates))
    return bound, _chain_climb(model, i, b, kind.startswith("steps"))


def _descent_item(model: _Model, item: dict):
    i = _int(item, "i", 0, model.n)
    steps = _choice(item, "bound", ("steps", "time")) == "steps"
    bound = fmpq(i) if steps else fmpq(i) / (model.lam * model.n)
    return bound, _chain_descent(model, i, steps)


def _poisson_item(model: _Model, item: dict):
    _, d = model.means(model.window(_positive(item, "c")))
    x, tail = _int(item, "x", -MAX_TERMS, MAX_TERMS), _tail(item)
    return _poisson_chernoff(d, x, tail), _poisson_tail(d, x, tail)


def _skellam_item(model: _Model, item: dict):
    u, d = model.means(model.window(_positive(item, "c")))
    x, tail = _int(item, "x", -MAX_TERMS, MAX_TERMS), _tail(item)
    return _skellam_chernoff(u, d, x, tail), _skellam_tail(u, d, x, tail)


def _walk_item(model: _Model, item: dict):
    n = _int(item, "n", 1, MAX_TERMS)
    x, tail, p = _int(item, "x", -n, n), _tail(item), model.p(model.b)
    return _walk_chernoff(n, p, x, tail), _walk_tail(n, p, x, tail)


def _events_item(model: _Model, item: dict):
    """Events of the window, Poisson with mean (lambda_H + lambda_L + mu) N W, beyond
    (1 + delta) M (upper; x = its ceiling) or below (1 - delta) M (lower; the floor)."""
    m = arb(model.lam + model.lam_l + model.mu) * model.n * model.window(_positive(item, "c"))
    delta, tail = _positive(item, "delta"), _tail(item)
    if tail == "lower" and delta > 1:
        raise CertificateError(f"delta must be <= 1 for the lower tail, got {item['delta']!r}")
    ratio = arb(1 + delta) if tail == "upper" else arb(1 - delta)
    edge = m * ratio
    x = (edge.ceil() if tail == "upper" else edge.floor()).unique_fmpz()
    if x is None or x > MAX_TERMS:
        raise CertificateError(f"cannot decide the integer part of {edge} (at most {MAX_TERMS})")
    return (-m * _h(ratio)).exp(), _poisson_tail(m, int(x), tail)


def _idle_window_item(model: _Model, item: dict):
    """P(I(W) <= m) <= P(i + U - D <= m) + P(D >= b + 1 - m)."""
    c, coupled = _positive(item, "c"), _coupled(item)
    i, m = _int(item, "i", 0, model.b), _int(item, "m", 0, model.b)
    u, d = model.means(model.window(c))
    rates = (model.lam, model.mu, model.lam_l, model.n)
    row, escape = _window_row(*rates, c, i, False, flint.ctx.prec, m + 1)  # needs m < top
    jump = model.b + 1 - m
    if coupled:
        bound = _skellam_tail(u, d, m - i, "lower") + _poisson_tail(d, jump, "upper")
    else:
        bound = _skellam_chernoff(u, d, m - i, "lower") + _poisson_chernoff(d, jump, "upper")
    return bound, _widen(sum(row[: m + 1], arb(0)), escape)


def _hit_zero_item(model: _Model, item: dict):
    """P(T_0 <= W) <= P(D >= i)."""
    c, i, coupled = _positive(item, "c"), _int(item, "i", 1, model.n), _coupled(item)
    _, d = model.means(model.window(c))
    rates = (model.lam, model.mu, model.lam_l, model.n)
    row, escape = _window_row(*rates, c, i, True, flint.ctx.prec)
    bound = _poisson_tail(d, i, "upper") if coupled else _poisson_chernoff(d, i, "upper")
    return bound, _widen(row[0], escape)


def _climb_jumps_item(model: _Model, item: dict):
    """P(T > n) <= P(S_n <= b - i - 1), S the walk with p_b."""
    b = model.b
    i, n = _int(item, "i", 0, b - 1), _int(item, "n", 1, MAX_TERMS)
    p, below = model.p(b), b - i - 1
    if _coupled(item):
        bound = _walk_tail(n, p, below, "lower")
    else:
        bound = _walk_chernoff(n, p, below, "lower")
    move = [[arb(0)] * b for _ in range(b)]
    for j in range(b):
        if j + 1 < b:
            move[j][j + 1] = arb(model.p(j))
        if j >= 1:
            move[j][j - 1] = arb(1 - model.p(j))
    row = (arb_mat(move) ** n).tolist()[i]
    return bound, sum((arb(x) for x in row), arb(0))


def _climb_time_item(model: _Model, item: dict):
    """P(T_b > t) <= P(i + U - D <= b - 1) over the time t."""
    b, i, t = model.b, _int(item, "i", 0, model.b - 1), arb(_positive(item, "t"))
    u, d = model.means(t)
    if _coupled(item):
        bound = _skellam_tail(u, d, b - 1 - i, "lower")
    else:
        bound = _skellam_chernoff(u, d, b - 1 - i, "lower")
    row, _ = _transient(model, i, t, b, (b,))
    return bound, sum(row[:b], arb(0))


def _sss_item(model: _Model, item: dict):
    """B_h (h = item's h) against max over starts 1..b-1 of eps = exp(W Q) r."""
    b, c = model.b, _positive(item, "c")
    h, m = _int(item, "h", 1, b - 1), _int(item, "m", 0, b - 1)
    u, d = model.means(model.window(c))
    bound = _skellam_chernoff(u, d, m - h, "lower") + arb(_walk_ruin(model.p(b), m + 1, b))
    rows = (model.generator(b, (0, b)) * model.window(c)).exp()
    ruin = arb_mat([[arb(x)] for x in _chain_ruin(model, b)[:-1]] + [[arb(0)]])
    ruin[0, 0] = arb(0)  # a path absorbed at 0 within the window is no failure
    failures = (rows * ruin).tolist()
    worst = arb(failures[1][0])
    for start in range(2, b):
        worst = worst.max(arb(failures[start][0]))
    return bound, worst


FAMILIES = {
    "ruin": _ruin_item,
    "climb": _climb_item,
    "descent": _descent_item,
    "poisson": _poisson_item,
    "skellam": _skellam_item,
    "walk": _walk_item,
    "events": _events_item,
    "idle_window": _idle_window_item,
    "hit_zero": _hit_zero_item,
    "climb_jumps": _climb_jumps_item,
    "climb_time": _climb_time_item,
    "sss": _sss_item,
}


def item_values(data: dict, item: dict) -> tuple[arb | fmpq, arb | fmpq]:
    """The checker's (bound, exact) for one item of a ``walks.bounds`` certificate.

    Parameters
    ----------
    data : dict
        The certificate data (``lambda_h``, ``mu``, ``lambda_l``, ``prec``).
    item : dict
        One entry of ``data["items"]``: ``family``, ``N`` and the family's arguments.

    Returns
    -------
    tuple of flint.arb or flint.fmpq
        Balls that contain the bound and the exact value (at the current precision), or
        the exact rationals themselves (ruin and climbing families).

    Examples
    --------
    >>> data = {"lambda_h": "3/5", "mu": "1", "lambda_l": "4/5"}
    >>> bound, exact = item_values(data, {"family": "ruin", "N": 100, "i": 1,
    ...                                    "bound": "walk_pb"})
    >>> round(float(bound), 4), round(float(exact), 4)
    (0.6608, 0.6118)
    """
    rates = tuple(rational(data[key]) for key in ("lambda_h", "mu", "lambda_l"))
    n = item["N"]
    if not isinstance(n, int) or isinstance(n, bool) or not 4 <= n <= MAX_SERVERS:
        raise CertificateError(f"N must be an integer in 4..{MAX_SERVERS}, got {n!r}")
    family = FAMILIES.get(item["family"])
    if family is None:
        raise CertificateError(f"unknown family {item['family']!r}")
    return family(_Model(*rates, n), item)


def _inside(value: arb | fmpq, pair) -> bool:
    """Whether ``value`` (a ball, or an exact rational) lies in the decimal interval."""
    if isinstance(value, fmpq):
        low, high = (rational(t) for t in pair)
        return low <= value <= high
    return inside(value, pair)


def _label(item: dict) -> str:
    skip = ("bound_enclosure", "exact_enclosure", "side")
    keys = ", ".join(f"{k}={v}" for k, v in item.items() if k not in skip)
    return f"item ({keys})"


#: The (family, bound) pairs whose bound is a lower bound; every other bound is an upper one.
LOWER_BOUNDS = frozenset(
    {("ruin", "walk_pinf"), ("climb", "steps_pinf"), ("climb", "time_pinf"),
     ("descent", "steps"), ("descent", "time")}
)  # fmt: skip


def side_of(item: dict) -> str:
    """The side of an item's bound, from its family and bound (not from the certificate).

    Parameters
    ----------
    item : dict
        A certificate item, with ``family`` and (for some families) ``bound``.

    Examples
    --------
    >>> side_of({"family": "ruin", "bound": "walk_pinf"}), side_of({"family": "sss"})
    ('lower', 'upper')
    """
    return "lower" if (item["family"], item.get("bound")) in LOWER_BOUNDS else "upper"


def check_bounds(data: dict) -> None:
    """Decide a ``walks.bounds`` certificate (see the module docstring).

    Parameters
    ----------
    data : dict
        ``lambda_h``, ``mu``, ``lambda_l`` (rationals as text), ``prec`` (bits) and
        ``items``: each with ``family``, ``N``, the family's arguments, optionally ``side``
        (``"upper"``: bound >= exact; ``"lower"``: bound <= exact; it must agree with
        :func:`side_of`, which the checker uses) and the claimed
        enclosures ``bound_enclosure`` and ``exact_enclosure`` (``[lower, upper]``).

    Raises
    ------
    CertificateError
        Naming the first item whose enclosure or comparison fails.

    Examples
    --------
    >>> item = {"family": "ruin", "N": 100, "i": 1, "bound": "walk_pb", "side": "upper",
    ...         "bound_enclosure": ["6.6078414476518e-1", "6.6078414476519e-1"],
    ...         "exact_enclosure": ["6.118318810317e-1", "6.1183188103171e-1"]}
    >>> data = {"lambda_h": "3/5", "mu": "1", "lambda_l": "4/5", "prec": 128,
    ...         "items": [item]}
    >>> check_bounds(data)
    >>> check_bounds({**data, "items": [{**item, "side": "lower"}]})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    qtheory.verify.CertificateError: item (family=ruin, N=100, i=1, bound=walk_pb): side must be ...
    """
    items = data["items"]
    if not isinstance(items, list) or not items:
        raise CertificateError("the certificate lists no items")
    lam, mu, lam_l = (rational(data[key]) for key in ("lambda_h", "mu", "lambda_l"))
    if not (lam > 0 and lam_l > 0 and mu > 0 and lam < mu < lam + lam_l):
        raise CertificateError(
            "lambda_h, lambda_l, mu: the rates must be positive with "
            f"lambda_h < mu < lambda_h + lambda_l, got {lam}, {lam_l}, {mu}"
        )
    bits = data["prec"]
    if not isinstance(bits, int) or isinstance(bits, bool) or not 16 <= bits <= MAX_BITS:
        raise CertificateError(f"prec must be an integer of bits in 16..{MAX_BITS}, got {bits!r}")
    with precision(bits):
        for item in items:
            bound, exact = item_values(data, item)
            label = _label(item)
            if not (isinstance(bound, fmpq) and isinstance(exact, fmpq)):
                bound, exact = _ball(bound), _ball(exact)  # else: compared exactly
            sides = (("bound", bound, "bound_enclosure"), ("exact value", exact, "exact_enclosure"))
            for what, ball, key in sides:
                if not _inside(ball, item[key]):
                    shown = _ball(ball).str(10, radius=False)
                    raise CertificateError(
                        f"{label}: the {what} {shown} is not in the claimed enclosure {item[key]}"
                    )
                if not narrow(item[key], ENCLOSURE_DIGITS):
                    raise CertificateError(
                        f"{label}: the claimed enclosure {item[key]} of the {what} is wider "
                        f"than 1e-{ENCLOSURE_DIGITS} relative"
                    )
            side = side_of(item)
            if item.get("side", side) != side:
                raise CertificateError(
                    f"{label}: side must be {side!r} for this bound, got {item['side']!r}"
                )
            holds = bound >= exact if side == "upper" else bound <= exact
            if not holds:
                relation = ">=" if side == "upper" else "<="
                raise CertificateError(f"{label}: the bound is not {relation} the exact value")


CHECKS = {"bounds": check_bounds}
