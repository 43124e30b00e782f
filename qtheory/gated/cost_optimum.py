r"""Optimal gate, optimal routing and the Price of Forgetting under any per-customer cost
(:mod:`qtheory.gated.costs`) and any admitted-stream model (:mod:`qtheory.gated.streams`).

Both policies make a GI/M/1 queue whose root :math:`\sigma = e^{-w}` fixes the expected
cost :math:`g(w)` of an admitted customer, so each policy's welfare is a function of
:math:`w` alone,

.. math:: F_{GA}(w) = \lambda_{GA}(w)\,(R - g(w)),\qquad
          F_{RR}(w) = \lambda_{RR}(w)\,(R - g(w)),

over :math:`w > w_{\min}` (:math:`w_{\min}` itself when everybody can be admitted
stably).  :math:`g` decreases in :math:`w` to its light-traffic limit :math:`g(\infty)`,
so the net reward :math:`R - g` is positive exactly on :math:`w > w_N` (Sympy's families,
or a nondecreasing callable).

Welfare dominance, for every cost that depends on the policy only through σ (any sojourn
cost, monotone or not, and any holding cost).  At equal σ the two queues have the same
cost per customer, and GA admits at least as many: the gate :math:`\tau = 1/\lambda -
1/\Lambda` that gives GA the throughput :math:`\lambda` has root below :math:`\lambda/\mu`
(:func:`qtheory.gated.derivation.dominance_identity`), and σ increases with the
throughput, so :math:`\lambda_{GA}(w) \ge \mu e^{-w} = \lambda_{RR}(w)`.  Where
:math:`R - g(w) \ge 0` this gives :math:`F_{GA}(w) \ge F_{RR}(w)`; RR's optimum lies there
(or admits nobody, welfare 0, which GA matches as τ → ∞).  Hence
:math:`S_{GA}^* \ge S_{RR}^*` and PoF ≥ 1 whenever PoF is defined
(:func:`cost_dominance_identities` gives Sympy the step).

The search.  Where :math:`R \le g(\infty)` no admission earns positive welfare: both
optima admit nobody (GA's gate τ → ∞, RR's rate 0, welfare 0) and PoF is undefined.
Otherwise :math:`F` is evaluated at 121 points :math:`w_L + 10^{x}\max(1, w_L)`,
:math:`x` from −12 to 3 (8 per decade; :math:`w_L = \max(w_{\min}, w_N)`), and the best is
refined by Brent's method (parabolic interpolation safeguarded by golden-section
steps) between its neighbours, to a relative :math:`10^{-(D+3)}` in w.  The refinement
computes in mpmath at :math:`2D + 20` digits plus the queue's guard digits (D = 17 for
float64 output), the digits a maximiser needs; the grid, which only ranks, at half as
many.  When the refinement ends at the left end :math:`w_{\min}` the optimum is the
boundary (τ* = 0, or λ* = Λ); when :math:`w_{\min} = 0` is not attainable (Λ ≥ μ) and
:math:`g` stays bounded there, the supremum :math:`\mu(R - g(0^+))` is approached as
σ → 1 (a deadline cost) and reported with ``attained=False``.

Evidence.  For the families where :mod:`qtheory.gated.cost_derivation` proves one
critical point (GA: :math:`u^2|g'(u)|` nonincreasing; RR: :math:`g` convex in u) and
Poisson arrivals, the grid only brackets the unique maximiser, and the record says
``evidence="proved unique"``; otherwise the maximum is the grid's best, refined, and the
record says so (a peak narrower than the grid spacing would be missed).  A callable's
:math:`g` is a float64 quadrature (:func:`scipy.integrate.quad`, error estimate below
:data:`qtheory.gated.costs.QUADRATURE_TOLERANCE` relative): its optimum is float64 only,
its welfare as accurate as that quadrature and its maximiser about the square root of it.

References
----------
.. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026).
.. [2] L. Kleinrock, Queueing Systems, Vol. I, Wiley (1975), Sec. 6.4.
.. [3] R. P. Brent, Algorithms for Minimization without Derivatives, Prentice-Hall
   (1973), ch. 5.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import mpmath

from qtheory.core import limits
from qtheory.core.numerics import bracketed_root_mp
from qtheory.core.phase_type import PhaseType, arrival_law
from qtheory.core.precision import check_dps, rounded
from qtheory.gated.costs import CustomerCost, holding_cost, sojourn_cost
from qtheory.gated.optima import GateOptimum, Real, RoutingOptimum, as_float64, float64_value
from qtheory.gated.renewal import RenewalStreams
from qtheory.gated.streams import AdmittedStreams, PoissonStreams
from qtheory.model.gated import GatedQueue, checked_queue

__all__ = [
    "arrival_streams",
    "customer_cost",
    "optima_under",
    "optimal_gate_under",
    "optimal_routing_under",
    "price_of_forgetting_under",
]

FLOAT64_DIGITS = 17
GRID_DECADES = (-12, 3)
GRID_PER_DECADE = 8
GRID_POINTS = (GRID_DECADES[1] - GRID_DECADES[0]) * GRID_PER_DECADE + 1
PROVED = "proved unique"
NUMERICAL = f"numerical ({GRID_POINTS}-point grid in w, Brent refinement)"

Streams = Callable[[GatedQueue], AdmittedStreams]


def customer_cost(
    sojourn: str | Callable | None = None, holding: str | None = None
) -> CustomerCost | None:
    """The cost of the keywords ``sojourn_cost`` and ``holding_cost`` (at most one), or
    None for the linear cost C·W (either spelled ``linear``, or neither given), which
    :mod:`qtheory.gated.welfare` computes in closed form.

    Parameters
    ----------
    sojourn : str, callable or None
        See :func:`qtheory.gated.costs.sojourn_cost`.
    holding : str or None
        See :func:`qtheory.gated.costs.holding_cost`.

    Returns
    -------
    CustomerCost or None

    Raises
    ------
    ValueError
        Both given, or either malformed (naming it).

    Examples
    --------
    >>> customer_cost() is None, customer_cost("linear") is None
    (True, True)
    >>> customer_cost(holding="power:2").spec
    'holding power:2'
    """
    if sojourn is not None and holding is not None:
        raise ValueError("give sojourn_cost or holding_cost, not both")
    if holding is not None:
        return None if _is_linear_word(holding) else holding_cost(holding)
    if sojourn is None or _is_linear_word(sojourn):
        return None
    return sojourn_cost(sojourn)


def arrival_streams(arrivals: str | PhaseType | None = None) -> Streams | None:
    """The admitted-stream model of the keyword ``arrivals``, or None for Poisson
    arrivals (None or ``poisson``), which :class:`~qtheory.gated.streams.PoissonStreams`
    and the closed forms of :mod:`qtheory.gated.welfare` serve.

    Parameters
    ----------
    arrivals : str, PhaseType or None
        A law of :func:`qtheory.core.phase_type.arrival_law` (``erlang:K``,
        ``hyperexp:SCV``, ``fit:SCV``), the shape of the inter-arrival time of mean 1/Λ.

    Returns
    -------
    callable or None
        queue -> :class:`~qtheory.gated.renewal.RenewalStreams` at the precision current
        when it is called.

    Raises
    ------
    ValueError
        A malformed law, naming ``arrivals``.

    Examples
    --------
    >>> arrival_streams("poisson") is None, callable(arrival_streams("erlang:2"))
    (True, True)
    """
    if arrivals is None or (isinstance(arrivals, str) and arrivals.strip().lower() == "poisson"):
        return None
    law = arrival_law(arrivals)

    def streams(queue: GatedQueue) -> RenewalStreams:
        return RenewalStreams(queue, law, dps=mpmath.mp.dps)

    return streams


def _is_linear_word(spec: object) -> bool:
    return isinstance(spec, str) and spec.strip().lower() == "linear"


@dataclass(frozen=True)
class _Found:
    """Where a policy's welfare peaks: ``kind`` is ``interior``, ``boundary`` (at
    w_min: everybody admitted), ``supremum`` (as w → 0, not attained) or ``nobody``."""

    kind: str
    w: mpmath.mpf
    welfare: mpmath.mpf


class _Problem:
    """One queue, cost and arrival law at the working precision."""

    def __init__(self, queue: GatedQueue, cost: CustomerCost, streams: Streams):
        p = queue.parameters(mpmath.mp.dps)
        self.mu, self.reward, self.scale = p.mu, p.reward, p.cost
        self.cost = cost
        self.streams = streams(queue)
        self._net: dict[tuple[mpmath.mpf, int], mpmath.mpf] = {}

    def net(self, w: mpmath.mpf) -> mpmath.mpf:
        """R − g(w), remembered: the two policies search the same grid."""
        key = (w, mpmath.mp.prec)
        if key not in self._net:
            self._net[key] = self.reward - self.cost.expected(w, self.mu, self.scale)
        return self._net[key]

    def throughput(self, policy: str, w: mpmath.mpf) -> mpmath.mpf:
        if policy == "ga":
            return self.streams.ga_throughput(w)
        return self.streams.rr_throughput(w)

    def welfare(self, policy: str, w: mpmath.mpf) -> mpmath.mpf:
        return self.throughput(policy, w) * self.net(w)

    def positive_from(self) -> tuple[mpmath.mpf, bool] | None:
        """(w_L, whether the net reward is positive at w_L itself), or None when it is
        positive nowhere."""
        if self.reward <= self.cost.light_traffic_limit(self.mu, self.scale):
            return None
        start = max(self.streams.w_min, self.cost.finite_from(self.mu))
        if start > 0:
            if self.net(start) > 0:
                return start, True
            lo = start
        else:
            if self.reward > self.cost.heavy_traffic_limit(self.scale):
                return start, True
            lo = None
        hi = start + 1
        while self.net(hi) <= 0:
            hi = 2 * hi
        if lo is None:  # the net reward tends to a value <= 0 as w -> 0: find a w with net <= 0
            lo = hi / 2
            while self.net(lo) > 0:
                lo = lo / 2
        # w_N only bounds the search: a callable's float64 quadrature verifies 8 digits
        digits = 8 if self.cost.family == "callable" else mpmath.mp.dps // 2
        return bracketed_root_mp(self.net, lo, hi, digits), False

    def maximise(self, policy: str, digits: int) -> _Found:
        region = self.positive_from()
        if region is None:
            return _Found("nobody", mpmath.inf, mpmath.mpf(0))
        left, positive_at_left = region
        scale = max(1, left)
        offsets = [
            scale * mpmath.mpf(10) ** (GRID_DECADES[0] + mpmath.mpf(k) / GRID_PER_DECADE)
            for k in range(GRID_POINTS)
        ]
        with mpmath.workdps(mpmath.mp.dps // 2 + 10):  # enough to rank the grid points
            values = [self.welfare(policy, left + offset) for offset in offsets]
        best = max(range(GRID_POINTS), key=values.__getitem__)
        lo = left if best == 0 else left + offsets[best - 1]
        hi = left + offsets[min(best + 1, GRID_POINTS - 1)]
        relative = mpmath.mpf(10) ** -(digits + 3)
        w = _brent(lambda x: self.welfare(policy, x), lo, hi, relative, relative**2 * hi)
        value = self.welfare(policy, w)
        if best == 0 and positive_at_left:  # is the left end better than any inner point?
            if left > 0:  # everybody admitted, stably: the boundary optimum
                at_left = self.welfare(policy, left)
                if at_left >= value:
                    return _Found("boundary", left, at_left)
            else:
                heavy = self.mu * (self.reward - self.cost.heavy_traffic_limit(self.scale))
                if heavy >= value:
                    return _Found("supremum", mpmath.mpf(0), heavy)
        return _Found("interior", w, value)


def _brent(f, lo, hi, relative, absolute) -> mpmath.mpf:
    """A maximiser of ``f`` on [lo, hi] to ``relative |x| + absolute``: Brent's method,
    parabolic interpolation safeguarded by golden-section steps (Brent 1973, ch. 5, in
    the form of Press et al., *Numerical Recipes*, Sec. 10.3)."""
    golden = (3 - mpmath.sqrt(5)) / 2
    x = w = v = lo + golden * (hi - lo)
    fx = fw = fv = -f(x)
    step = previous = mpmath.mpf(0)
    while True:
        middle = (lo + hi) / 2
        tol = relative * abs(x) + absolute
        if abs(x - middle) <= 2 * tol - (hi - lo) / 2:
            return x
        parabolic = False
        if abs(previous) > tol:
            r = (x - w) * (fx - fv)
            q = (x - v) * (fx - fw)
            p = (x - v) * q - (x - w) * r
            q = 2 * (q - r)
            if q > 0:
                p = -p
            q = abs(q)
            older, previous = previous, step
            parabolic = abs(p) < abs(q * older / 2) and q * (lo - x) < p < q * (hi - x)
            if parabolic:
                step = p / q
                if x + step - lo < 2 * tol or hi - x - step < 2 * tol:
                    step = tol if middle > x else -tol
        if not parabolic:
            previous = (lo - x) if x >= middle else (hi - x)
            step = golden * previous
        u = x + (step if abs(step) >= tol else (tol if step > 0 else -tol))
        fu = -f(u)
        if fu <= fx:
            if u >= x:
                lo = x
            else:
                hi = x
            v, fv, w, fw, x, fx = w, fw, x, fx, u, fu
        else:
            if u < x:
                lo = u
            else:
                hi = u
            if fu <= fw or w == x:
                v, fv, w, fw = w, fw, u, fu
            elif fu <= fv or v in (x, w):
                v, fv = u, fu


def _working(queue: GatedQueue, cost: CustomerCost, dps: object):
    """(queue, digits, working digits) after every check, before any work."""
    queue = checked_queue(queue)
    dps = check_dps(dps)
    if dps is not None and cost.family == "callable":
        raise ValueError(
            "dps applies to the built-in sojourn costs: a callable's E[c(W)] is a float64 "
            "quadrature (use dps=None)"
        )
    digits = FLOAT64_DIGITS if dps is None else dps
    working = 2 * digits + 20 + queue.guard_digits()
    limits.require("dps", working, parameter="dps", what="the optimum (with guard digits)")
    with mpmath.workdps(working):
        cost.check(queue.parameters(working).mu)
    return queue, dps, digits, working


def _evidence(cost: CustomerCost, streams: Streams, policy: str) -> str:
    unique = cost.unique_gate if policy == "ga" else cost.unique_routing
    return PROVED if unique and streams is PoissonStreams else NUMERICAL


def _finish(record, dps):
    return as_float64(record) if dps is None else rounded(record, dps)


def optimal_gate_under(
    queue: GatedQueue, cost: CustomerCost, *, streams: Streams = PoissonStreams, dps=None
) -> GateOptimum:
    """GA's optimum under ``cost``: the gate τ* that maximises λ_GA(τ)(R − E[cost]).

    Parameters
    ----------
    queue : GatedQueue
        Λ, μ, R and C (the cost's scale).
    cost : CustomerCost
        :func:`qtheory.gated.costs.sojourn_cost` or :func:`~qtheory.gated.costs.holding_cost`.
    streams : callable, keyword-only
        queue -> :class:`~qtheory.gated.streams.AdmittedStreams` (default Poisson arrivals).
    dps : int or None, keyword-only
        None: float64.  D: mpf values correct to D digits (for a callable cost, to the
        accuracy of its quadrature).

    Returns
    -------
    GateOptimum
        With ``attained`` and ``evidence`` (module notes); admitting nobody is
        ``gate=inf``, ``welfare=0``, ``attained=False``.

    Examples
    --------
    The linear cost by this route equals the closed-form route of
    :mod:`qtheory.gated.welfare` (τ* = 2.063581 at Λ = ∞, μ = C = 1, R = 2):

    >>> q = GatedQueue("inf", 1, 2, 1)
    >>> opt = optimal_gate_under(q, sojourn_cost("power:1"))
    >>> round(opt.gate, 6), opt.evidence
    (2.063581, 'proved unique')
    """
    return _optima(queue, cost, streams, dps, ("ga",))[0]


def _gate_record(problem: _Problem, found: _Found, evidence: str) -> GateOptimum:
    mu, s = problem.mu, problem.streams
    if found.kind == "nobody":
        return GateOptimum(
            mpmath.inf, mpmath.mpf(0), mpmath.inf, found.welfare, mpmath.mpf(0), 1 / mu,
            False, attained=False, evidence=evidence,
        )  # fmt: skip
    if found.kind == "supremum":
        tiny = mpmath.mpf(10) ** -(mpmath.mp.dps // 2)  # τ(w) → its limit as w ↓ 0
        return GateOptimum(
            s.ga_gate(tiny), mpmath.mpf(1), mpmath.mpf(0), found.welfare, mu, mpmath.inf,
            False, attained=False, evidence=evidence,
        )  # fmt: skip
    w = found.w
    boundary = found.kind == "boundary"
    return GateOptimum(
        gate=mpmath.mpf(0) if boundary else s.ga_gate(w),
        root=mpmath.exp(-w),
        log_root=w,
        welfare=found.welfare,
        throughput=s.ga_throughput(w),
        mean_sojourn=-1 / (mu * mpmath.expm1(-w)),
        at_boundary=boundary,
        evidence=evidence,
    )


def _routing_record(problem: _Problem, found: _Found, evidence: str) -> RoutingOptimum:
    if found.kind == "nobody":
        return RoutingOptimum(mpmath.mpf(0), found.welfare, False, evidence=evidence)
    if found.kind == "supremum":
        return RoutingOptimum(problem.mu, found.welfare, False, False, evidence)
    rate = problem.streams.rr_throughput(found.w)
    return RoutingOptimum(rate, found.welfare, found.kind == "boundary", True, evidence)


def optima_under(
    queue: GatedQueue, cost: CustomerCost, *, streams: Streams = PoissonStreams, dps=None
) -> tuple[GateOptimum, RoutingOptimum, Real | None]:
    """Both optima and PoF (None when undefined) from one computation.

    PoF is the ratio of the unrounded welfares, so it is correct to D digits as well.

    Parameters
    ----------
    queue, cost, streams, dps
        As for :func:`optimal_gate_under`.

    Returns
    -------
    (GateOptimum, RoutingOptimum, float or mpmath.mpf or None)

    Examples
    --------
    >>> gate, routing, pof = optima_under(GatedQueue("inf", 1, 2, 1), sojourn_cost("power:2"))
    >>> gate.gate, gate.attained, routing.rate, pof is None
    (inf, False, 0.0, True)
    """
    gate, routing, pof, _ = _optima(queue, cost, streams, dps, ("ga", "rr"))
    return gate, routing, pof


def _optima(queue, cost, streams, dps, policies):
    """The optima of ``policies`` (``"ga"``, ``"rr"``) rounded to the output precision,
    and S_GA*/S_RR* from the unrounded welfares when both are there (None when RR's
    welfare is 0, where it is undefined)."""
    queue, dps, digits, working = _working(queue, cost, dps)
    records = {"ga": None, "rr": None}
    pof = None
    with mpmath.workdps(working):
        problem = _Problem(queue, cost, streams)
        for policy in policies:
            build = _gate_record if policy == "ga" else _routing_record
            found = problem.maximise(policy, digits)
            records[policy] = build(problem, found, _evidence(cost, streams, policy))
        if None not in records.values() and records["rr"].welfare != 0:
            pof = records["ga"].welfare / records["rr"].welfare
            pof = float64_value("price_of_forgetting", pof) if dps is None else rounded(pof, dps)
        undefined = _undefined_pof(problem)
    finished = tuple(None if r is None else _finish(r, dps) for r in records.values())
    return (*finished, pof, undefined)


def _undefined_pof(problem: _Problem) -> str:
    least = problem.cost.light_traffic_limit(problem.mu, problem.scale)
    return (
        f"price_of_forgetting is undefined: no admission earns positive welfare (reward "
        f"{mpmath.nstr(problem.reward, 10)} <= E[cost] = {mpmath.nstr(least, 10)} of a "
        "customer alone), so both optima admit nobody"
    )


def optimal_routing_under(
    queue: GatedQueue, cost: CustomerCost, *, streams: Streams = PoissonStreams, dps=None
) -> RoutingOptimum:
    """RR's optimum under ``cost``: the admission rate λ* that maximises λ(R − E[cost]).

    Parameters
    ----------
    queue, cost, streams, dps
        As for :func:`optimal_gate_under`.

    Returns
    -------
    RoutingOptimum
        With ``attained`` and ``evidence``; admitting nobody is ``rate=0``,
        ``welfare=0``.

    Examples
    --------
    The exponential cost C(e^{θW} − 1)/θ costs C/(μ − λ − θ) per customer, the linear
    cost at service rate μ − θ: λ* = (μ − θ)(1 − 1/√ν'), ν' = R(μ − θ)/C.  At μ = 2,
    θ = 1, R = 4, C = 1: λ* = 1/2 and S_RR* = C(√ν' − 1)² = 1.

    >>> opt = optimal_routing_under(GatedQueue("inf", 2, 4, 1), sojourn_cost("exponential:1"))
    >>> round(opt.rate, 9), round(opt.welfare, 9), opt.evidence
    (0.5, 1.0, 'proved unique')
    """
    return _optima(queue, cost, streams, dps, ("rr",))[1]


def price_of_forgetting_under(
    queue: GatedQueue, cost: CustomerCost, *, streams: Streams = PoissonStreams, dps=None
):
    """PoF = S_GA*/S_RR* under ``cost`` (a ratio of suprema where one is not attained).

    Parameters
    ----------
    queue, cost, streams, dps
        As for :func:`optimal_gate_under`.

    Returns
    -------
    float or mpmath.mpf

    Raises
    ------
    ValueError
        When no admission earns positive welfare: both optima admit nobody and PoF is
        undefined.

    Examples
    --------
    With C W² per customer at Λ = ∞, μ = C = 1, R = 4 (GA: max over τ of
    (4 − 2/(1 − σ(τ))²)/τ; RR: max of λ(4 − 2/(1 − λ)²)):

    >>> round(price_of_forgetting_under(GatedQueue("inf", 1, 4, 1), sojourn_cost("power:2")), 6)
    3.208913

    At R = 2 a customer alone already costs E[W²] = 2/μ² = R:

    >>> price_of_forgetting_under(GatedQueue("inf", 1, 2, 1), sojourn_cost("power:2"))
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: price_of_forgetting is undefined: no admission earns positive welfare ...
    """
    _, _, pof, undefined = _optima(queue, cost, streams, dps, ("ga", "rr"))
    if pof is None:
        raise ValueError(undefined)
    return pof
