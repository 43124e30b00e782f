r"""Every Chernoff bound of :mod:`qtheory.walks.chernoff`, :mod:`qtheory.walks.idle_tails`
and :mod:`qtheory.walks.window_events` next to an exact value from an independent route
(:func:`chernoff_checks`): ``scipy.stats`` for the pure distributions, the exact CTMC
(:func:`qtheory.exact.ctmc.transient`, :func:`qtheory.exact.ctmc.hitting_time_cdf`) and
the exact distribution of the jump chain for the idle process.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats

from qtheory.core import limits, validation
from qtheory.exact.ctmc import generator, hitting_time_cdf, transient
from qtheory.model.lossnet import LossNetwork
from qtheory.walks.bounds import BoundCheck
from qtheory.walks.chernoff import (
    log_poisson_tail_bound,
    log_skellam_tail_bound,
    log_walk_tail_bound,
)
from qtheory.walks.idle import IdleWalk
from qtheory.walks.idle_tails import (
    CoupledBound,
    climb_steps_tail_bound,
    climb_time_tail_bound,
    coupled_means,
    hit_zero_time_bound,
    idle_after_window_bound,
)
from qtheory.walks.window_events import checked_network, window_event_bound, window_mean_events

__all__ = [
    "chernoff_checks",
]


# ---------------------------------------------------------------------------
# exact values from independent routes

_TINY = 1e-300  # uniformisation tolerance: relative accuracy for tiny probabilities


def _exact_idle_at_most(walk: IdleWalk, start: int, level: int, time: float) -> float:
    """P(I(t) <= m | I(0) = i) from the exact CTMC (uniformisation)."""
    row = transient(walk.generator(), start, time, tolerance=_TINY)[0]
    return float(row[: level + 1].sum())


def _exact_climb_time_survival(walk: IdleWalk, start: int, band: int, time: float) -> float:
    """P(T_b > t | I(0) = i < b): mass below b at time t with b made absorbing (the chain
    is skip-free, so the levels above b are never visited before T_b)."""
    rates = walk.generator()[: band + 1, : band + 1].tolil()
    rates[band, :] = 0.0
    row = transient(generator(rates), start, time, tolerance=_TINY)[0]
    return float(row[:band].sum())


def _exact_hit_zero_time_cdf(walk: IdleWalk, start: int, time: float) -> float:
    """P(T_0 <= t | I(0) = i) from :func:`qtheory.exact.ctmc.hitting_time_cdf`."""
    return float(hitting_time_cdf(walk.generator(), 0, start, time, tolerance=_TINY)[0])


def _exact_climb_steps_survival(walk: IdleWalk, start: int, band: int, steps: int) -> float:
    """P(T > n): the embedded chain's distribution on 0..b − 1 pushed n jumps forward
    (mass that reaches b is dropped); only sums of non-negative products."""
    up = walk.up_probabilities()[:band]
    mass = np.zeros(band)
    mass[start] = 1.0
    for _ in range(steps):
        moved = np.zeros(band + 1)
        moved[1:] += mass * up
        moved[:-2] += mass[1:] * (1.0 - up[1:])
        mass = moved[:band]
    return float(mass.sum())


# ---------------------------------------------------------------------------
# checks


def _scipy_tail(distribution, k: int, tail: str) -> float:
    """P(X >= k) or P(X <= k) for a frozen integer-valued ``scipy.stats`` law."""
    return float(distribution.sf(k - 1) if tail == "upper" else distribution.cdf(k))


def _skellam_exact(up: float, down: float, k: int, tail: str) -> float:
    """P(U − D >= k) or P(U − D <= k) from ``scipy.stats.skellam``'s lower tail only (its
    ``sf`` is 1 − cdf and loses small upper tails; P(U − D >= k) = P(D − U <= −k))."""
    if tail == "upper":
        return float(stats.skellam.cdf(-k, down, up))
    return float(stats.skellam.cdf(k, up, down))


@dataclass(frozen=True)
class _Tails:
    """A distribution whose tails are checked at its mean ± 2 standard deviations."""

    label: str  # the law, e.g. "X ~ Poisson(m)"
    parameters: str  # its parameter values (they go to the check's point)
    centre: float
    spread: float
    support: tuple[float, float]
    log_bound: Callable[[int, str], float]
    exact: Callable[[int, str], float]
    spec: dict  # the certified family and its arguments, without x and tail

    def checks(self, servers_count: int) -> list[BoundCheck]:
        """Both tails at integer points strictly inside the support (at its edge a bound
        can be attained exactly, and a rounding error would decide the comparison)."""
        points = (
            ("upper", ">=", math.ceil(self.centre + 2 * self.spread)),
            ("lower", "<=", math.floor(self.centre - 2 * self.spread)),
        )
        return [
            BoundCheck(
                f"P(X {sign} x), {self.label}",
                servers_count,
                f"{self.parameters}, x={x}",
                "upper",
                math.exp(self.log_bound(x, tail)),
                self.exact(x, tail),
                spec={**self.spec, "N": servers_count, "x": x, "tail": tail},
            )
            for tail, sign, x in points
            if self.support[0] < x < self.support[1]
        ]


def _pure_tails(walk: IdleWalk, window: float, c: float) -> list[_Tails]:
    """The window's counts: D ~ Poisson(λ_H N W); U − D with U ~ Poisson(μ(N − b)W); the
    walk with p_b over the mean number of jumps in W."""
    up, down = coupled_means(walk, walk.band, window)
    n = math.ceil((walk.mu + walk.lambda_h) * walk.servers * window)
    p = walk.coupled_up_probability()
    binomial = stats.binom(n, p)
    return [
        _Tails(
            "X ~ Poisson(m)",
            f"m={down:.4g}",
            down,
            math.sqrt(down),
            (0, math.inf),
            lambda x, tail: float(log_poisson_tail_bound(down, x, tail)),
            lambda x, tail: _scipy_tail(stats.poisson(down), x, tail),
            {"family": "poisson", "c": repr(float(c))},
        ),
        _Tails(
            "X = U - D ~ Skellam(u, d)",
            f"u={up:.4g}, d={down:.4g}",
            up - down,
            math.sqrt(up + down),
            (-math.inf, math.inf),
            lambda x, tail: float(log_skellam_tail_bound(up, down, x, tail)),
            lambda x, tail: _skellam_exact(up, down, x, tail),
            {"family": "skellam", "c": repr(float(c))},
        ),
        _Tails(
            "X = S_n, the walk after n steps",
            f"n={n}, p={p:.4g}",
            n * (2 * p - 1),
            2 * math.sqrt(n * p * (1 - p)),
            (-n, n),
            lambda x, tail: float(log_walk_tail_bound(n, p, x, tail)),
            lambda x, tail: _scipy_tail(
                binomial, math.ceil((n + x) / 2) if tail == "upper" else (n + x) // 2, tail
            ),
            {"family": "walk", "n": n},
        ),
    ]


def _window_checks(net: LossNetwork, c: float, delta: float = 0.5) -> list[BoundCheck]:
    events = window_mean_events(net, c)
    law = stats.poisson(events)
    return [
        BoundCheck(
            f"P(events in W {sign} {scale:g} M), M = mean events",
            net.servers,
            f"c={c:g}, M={events:.4g}",
            "upper",
            window_event_bound(net, c, delta, tail),
            _scipy_tail(law, rounded(scale * events), tail),
            spec={
                "family": "events",
                "N": net.servers,
                "c": repr(float(c)),
                "delta": repr(float(delta)),
                "tail": tail,
            },
        )  # fmt: skip
        for tail, sign, scale, rounded in (
            ("upper", ">=", 1 + delta, math.ceil),
            ("lower", "<=", 1 - delta, math.floor),
        )
    ]


def _coupled_checks(
    name: str, servers_count: int, point: str, bound: CoupledBound, exact: float, spec: dict
) -> list[BoundCheck]:
    """The coupled probability and its Chernoff bound, each against the exact value
    (``spec``: the certified family and its arguments, without the route)."""
    spec = {**spec, "N": servers_count}
    return [
        BoundCheck(f"{name} via coupling", servers_count, point, "upper", bound.coupled, exact,
                   spec={**spec, "route": "coupling"}),
        BoundCheck(f"{name} via Chernoff", servers_count, point, "upper", bound.chernoff, exact,
                   spec={**spec, "route": "chernoff"}),
    ]  # fmt: skip


def _window_idle_checks(walk: IdleWalk, window: float, c: float) -> list[BoundCheck]:
    """P(I(W) <= 0) and P(T_0 <= W) from i = ceil(b/2), b = floor(sqrt N)."""
    band = walk.band
    start = -(-band // 2)
    point = f"i={start}, b={band}, W={window:.4g}"
    return [
        *_coupled_checks(
            "P(I(W) <= 0)",
            walk.servers,
            point,
            idle_after_window_bound(walk, window, start, 0).total,
            _exact_idle_at_most(walk, start, 0, window),
            {"family": "idle_window", "c": repr(float(c)), "i": start, "m": 0},
        ),
        *_coupled_checks(
            "P(T_0 <= W)",
            walk.servers,
            point,
            hit_zero_time_bound(walk, start, window),
            _exact_hit_zero_time_cdf(walk, start, window),
            {"family": "hit_zero", "c": repr(float(c)), "i": start},
        ),
    ]


def _climb_checks(walk: IdleWalk, multiples: Sequence[float] = (2.0, 4.0)) -> list[BoundCheck]:
    """The climb from 1 to b = floor(sqrt N) after ``multiples`` of its drift time: the
    jumps (b − 1)/(2p_b − 1) of the coupled walk and the time (b − 1)/(μ(N − b) − λ_H N)
    of the coupled counts.  Skipped when the coupled drift is not upwards (the bounds are
    then the trivial 1)."""
    band, checks = walk.band, []
    up, down = coupled_means(walk, band, 1.0)
    drift_jumps = 2 * walk.coupled_up_probability() - 1
    for k in multiples if up > down else ():
        jumps = math.ceil(k * (band - 1) / drift_jumps)
        checks += _coupled_checks(
            f"P(T_b > {k:g} x drift time), in jumps",
            walk.servers,
            f"i=1, b={band}, {jumps} jumps",
            climb_steps_tail_bound(walk, 1, jumps),
            _exact_climb_steps_survival(walk, 1, band, jumps),
            {"family": "climb_jumps", "i": 1, "n": jumps},
        )
        time = k * (band - 1) / (up - down)
        checks += _coupled_checks(
            f"P(T_b > {k:g} x drift time), in real time",
            walk.servers,
            f"i=1, b={band}, t={time:.4g}",
            climb_time_tail_bound(walk, 1, time),
            _exact_climb_time_survival(walk, 1, band, time),
            {"family": "climb_time", "i": 1, "t": repr(time)},
        )
    return checks


def chernoff_checks(
    net: LossNetwork, c_values: Sequence[float] = (0.5, 1.0, 2.0, 4.0)
) -> list[BoundCheck]:
    """Every bound of this module next to an exact value from an independent route.

    For each window W = c log N / N (``c`` in ``c_values``): the Poisson, Skellam and walk
    tails of the window's counts at mean ± 2 standard deviations against ``scipy.stats``;
    the event count of the window (δ = 1/2) against ``scipy.stats.poisson``; and, from
    i = ceil(b/2) with
    b = floor(sqrt N), P(I(W) <= 0) and P(T_0 <= W) against the exact CTMC.  Once: the
    climb from 1 to b after 2 and 4 times its drift time, in jumps (against the exact jump
    chain) and in real time (against the exact CTMC).  Each idle-process bound appears
    twice, through the coupling and through Chernoff.  The exact CTMC makes this
    practical for N up to a few thousand.

    Parameters
    ----------
    net : LossNetwork
        The network; its reject-all-L idle process (:class:`IdleWalk`) is checked.
        N >= 4.
    c_values : sequence of float, optional
        Window constants c > 0.

    Returns
    -------
    list of BoundCheck
        Every bound with its exact value (all ``"upper"``).

    Raises
    ------
    TypeError
        If ``net`` is not a LossNetwork or ``c_values`` not a sequence.
    ValueError
        If N < 4, a c is not > 0, or the exact CTMC work exceeds
        :mod:`qtheory.core.limits` (``"memory"``, ``"dp_cells"``).

    References
    ----------
    .. [1] J. Bray, arXiv:2601.14538 (2026), "Analytical Tools"; docs/loss-network.md.
    .. [2] A. Dembo and O. Zeitouni, Large Deviations Techniques and Applications, 2nd
       ed. (Springer 1998), Sec. 2.2 (Chernoff bounds, Cramér's theorem).

    Examples
    --------
    >>> checks = chernoff_checks(LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0), c_values=[2.0])
    >>> len(checks), all(check.holds for check in checks)
    (19, True)
    """
    net = checked_network(net)
    walk = IdleWalk.from_network(net)
    if walk.servers < 4:
        raise ValueError(f"servers must be >= 4 (a band 2 <= b < N), got {walk.servers}")
    windows = [net.window(c) for c in _constants(c_values)]
    _require_exact_work(walk, windows)
    checks = _climb_checks(walk)
    for c, window in zip(c_values, windows, strict=True):
        for tails in _pure_tails(walk, window, c):
            checks += tails.checks(walk.servers)
        checks += _window_checks(net, c)
        checks += _window_idle_checks(walk, window, c)
    return checks


def _constants(c_values: object) -> list[float]:
    if isinstance(c_values, str) or not isinstance(c_values, Sequence | np.ndarray):
        raise TypeError(f"c_values must be a sequence of numbers, got {c_values!r}")
    return [validation.positive("c", c) for c in c_values]


def _require_exact_work(walk: IdleWalk, windows: Sequence[float]) -> None:
    """Refuse, before any work, exact checks beyond :mod:`qtheory.core.limits`: every
    uniformisation step touches the N + 1 levels (about (μ + λ_H) N W steps per window,
    and the climb checks about 4 b (μ + λ_H)/(μ − λ_H) more), and the generator holds
    about 100 bytes per level."""
    levels = walk.servers + 1.0
    rate = (walk.mu + walk.lambda_h) * walk.servers
    climb = 4.0 * (walk.band + 1) * (walk.mu + walk.lambda_h) / (walk.mu - walk.lambda_h)
    steps = sum(rate * w + 10.0 * math.sqrt(rate * w) + 20.0 for w in windows) + 3 * climb
    limits.require("memory", 100.0 * levels, parameter="servers", what="the exact CTMC")
    limits.require(
        "dp_cells", 2.0 * steps * levels, parameter="servers", what="the exact CTMC checks"
    )
