r"""Certified optimum of the gated queue under the built-in costs whose optimum is proved
unique: Arb enclosures of σ*, τ*, S_GA*, λ*, S_RR* and PoF, with a certificate.

A customer admitted to a GI/M/1 queue of root :math:`\sigma = e^{-w}` costs on average
:math:`g(u)`, :math:`u = \mu(1 - \sigma)` (:mod:`qtheory.gated.cost_derivation`:
the sojourn is Exp(u), Kleinrock 1975, Sec. 6.4).  With :math:`\beta = 1/\Lambda`
(0 for :math:`\Lambda = \infty`), :math:`\tau(w) = (w - \log(1+\beta u))/u` the gate of
root σ, :math:`N = R - g(u)`, :math:`D = \tau + \beta`, GA's welfare is
:math:`S = N/D`, and with :math:`m(u) = u^2|g'(u)|`, :math:`h = e^w - 1 - w`,
:math:`k(y) = \log(1+y) - y/(1+y)`,

.. math::
   S'(w) = \frac{\mu\sigma}{u^2D^2}\,G(w),\quad G = m(u)\,D - N\,(h + k(\beta u)),\quad
   G'(w) = m'(u)\,\mu\sigma\,D - N\,(h + k(\beta u))'.

Where :math:`N > 0`, :math:`(h + k)' > 0`; so where :math:`m' \le 0` the function G
decreases strictly and S has at most one critical point with :math:`S > 0`, the global
maximiser (:mod:`qtheory.gated.cost_derivation`).  Where :math:`N \le 0` (and
:math:`D > 0`), :math:`G \ge mD > 0`.  The families certified here, those with
:math:`m' \le 0` (``CustomerCost.unique_gate``):

==========================  =============================  ============================
family                      :math:`g(u)`                   :math:`m(u)`
==========================  =============================  ============================
sojourn ``power:p``, p ≥ 1  :math:`C\Gamma(p+1)u^{-p}`     :math:`pC\Gamma(p+1)u^{1-p}`
sojourn ``exponential:θ``   :math:`C/(u - \theta)`, u > θ  :math:`Cu^2/(u-\theta)^2`
holding ``power:1``         :math:`C/u`                    :math:`C`
holding ``power:2``         :math:`C(2\mu - u)/u^2`        :math:`C(4\mu/u - 1)`
==========================  =============================  ============================

The certificate of GA's optimum, as in :mod:`qtheory.gated.certified`: two decimal points
:math:`w_L < c_0 < c_1` (:math:`w_L` the larger of the gate bound
:math:`w_0 = \log(\mu/\Lambda)`, when :math:`\Lambda < \mu`, and :math:`w_N`, where
:math:`N = 0`) with :math:`N(c_0) > 0`, :math:`u(c_0) > \theta` for the exponential cost,
and :math:`G(c_0) > 0 > G(c_1)` decided in ball arithmetic; or, when
:math:`N(w_0) > 0`, the boundary :math:`G(w_0) < 0`: S decreases on
:math:`[w_0, \infty)`, :math:`\tau^* = 0`, :math:`S^* = \Lambda(R - g(\mu - \Lambda))`.

Random routing: :math:`F(\lambda) = \lambda(R - g(\mu - \lambda))` is strictly concave
(g decreasing and convex in u, true of every family above), with
:math:`F'(\lambda) = R - g(u) - \lambda|g'(u)|`, :math:`u = \mu - \lambda`,
:math:`F'(0) = R - g(\mu) > 0` and :math:`F' \to -\infty` as :math:`u \downarrow 0`
(or θ).  So :math:`\lambda^* = \Lambda` when :math:`\Lambda` lies below that end and
:math:`F'(\Lambda) \ge 0` (decided exactly in rationals when g is rational, else in
Arb), and otherwise :math:`\lambda^*` is bracketed by :math:`F'(c_0) > 0 > F'(c_1)`.

Refused (a ``ValueError`` naming the reason): the families without a uniqueness argument
(``deadline:d``, ``power:p`` with p < 1, holding ``power:p`` with p ∉ {1, 2}, a callable;
their optimum is numerical, :mod:`qtheory.gated.cost_optimum`), and costs under which no
admission earns positive welfare (:math:`R \le g(\mu)`).  Every certified family has
:math:`g \to \infty` in heavy traffic, so both suprema are attained.

The precision is managed as in :mod:`qtheory.gated.certified` (guard digits for the
light-traffic ratio :math:`R/g(\mu)`, its excess over 1 and :math:`\mu/\Lambda`; raised
and the brackets tightened when a sign or a width is undecided); the certificate
(claim ``gated.cost_optimum``) is decided again by :mod:`qtheory.verify.cost_optimum`
from its data alone.

Examples
--------
>>> from qtheory.gated.costs import sojourn_cost
>>> opt = certified_cost_optimum(GatedQueue("inf", 1, 4, 1), sojourn_cost("power:2"), dps=20)
>>> round(opt.price_of_forgetting.midpoint, 6), opt.gate.relative_width < 1e-20
(3.208913, True)

References
----------
.. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026).
.. [2] L. Kleinrock, Queueing Systems, Vol. I, Wiley (1975), Sec. 6.4.
.. [3] F. Johansson, "Arb: efficient arbitrary-precision midpoint-radius interval
   arithmetic", IEEE Transactions on Computers 66(8):1281-1292 (2017).
"""

from __future__ import annotations

import math
from fractions import Fraction

import flint
from flint import arb, fmpq

from qtheory.core.precision import required_dps
from qtheory.gated import _generated
from qtheory.gated.certified import (
    BRACKET_DIGITS,
    VALUE_NAMES,
    CertifiedOptimum,
    Undecided,
    ball_fraction,
    certified_enclosure,
    point_ball,
    rounded_decimal,
    with_rising_precision,
)
from qtheory.gated.costs import CustomerCost
from qtheory.model.gated import GatedParameters, GatedQueue, checked_queue
from qtheory.verify import statements
from qtheory.verify.cost_optimum import EXACT_POWER

__all__ = ["certified_cost_optimum", "cost_and_slope"]

#: The claim (and certificate) name, and the checker that decides it.
CLAIM = "gated.cost_optimum"
CHECKER = "cost_optimum.optimum"


def _certified_family(cost: CustomerCost) -> None:
    """Refuse a cost without a uniqueness argument, naming it."""
    if not isinstance(cost, CustomerCost):
        raise TypeError(f"cost must be a CustomerCost, got {type(cost).__name__}")
    if not (cost.unique_gate and cost.unique_routing):
        option = "holding_cost" if cost.kind == "holding" else "sojourn_cost"
        spec = cost.spec.split(" ", 1)[1]
        raise ValueError(
            f"{option} {spec} has no uniqueness argument: its optimum is numerical "
            "(qtheory.gated.cost_optimum); certified are sojourn power:p with p >= 1, "
            "exponential:theta and holding power:1, power:2"
        )


def cost_and_slope(u, cost: CustomerCost, params: GatedParameters[fmpq]):
    """(g(u), m(u) = u²|g'(u)|) of the module's table, at a rational or a ball u.

    At a rational u both are exact rationals, except for ``power:p`` with p not an
    integer up to :data:`qtheory.verify.cost_optimum.EXACT_POWER` (then Arb's Γ and
    powers); at a ball they enclose the values on the whole ball.

    Parameters
    ----------
    u : flint.fmpq or flint.arb
        u = μ(1 − σ), in (0, μ) (and > θ for ``exponential:θ``).
    cost : CustomerCost
        A certified family.
    params : GatedParameters of flint.fmpq
        The exact parameters (:meth:`GatedQueue.exact_parameters`).

    Returns
    -------
    (flint.fmpq or flint.arb, flint.fmpq or flint.arb)

    Examples
    --------
    E[C W²] = 2C/u², m = 4C/u:

    >>> from qtheory.gated.costs import sojourn_cost
    >>> p = GatedQueue("inf", 1, 4, 3).exact_parameters()
    >>> cost_and_slope(fmpq(1, 2), sojourn_cost("power:2"), p)
    (24, 24)
    """
    c, shape = params.cost, fmpq(cost.shape.numerator, cost.shape.denominator)
    if cost.kind == "holding":
        if shape == 1:
            return c / u, c
        return c * (2 * params.mu - u) / u**2, c * (4 * params.mu / u - 1)
    if cost.family == "exponential":
        return c / (u - shape), c * u**2 / (u - shape) ** 2
    if shape.q == 1 and shape <= EXACT_POWER:  # the checker's choice of exact rationals
        g = c * math.factorial(int(shape)) / u ** int(shape)
    else:
        g = arb(c) * arb.gamma_fmpq(shape + 1) / arb(u) ** arb(shape)
    return g, shape * g * u


def _terms(w: arb, cost: CustomerCost, params: GatedParameters[fmpq]) -> dict[str, arb]:
    """σ, u, N, τ, S, G and D' = τ'(w) at a ball w (module formulas)."""
    mu, beta = arb(params.mu), arb(params.beta)
    sigma = (-w).exp()
    u = -mu * (-w).expm1()  # μ(1 − σ) without cancellation
    y = beta * u
    g, m = cost_and_slope(u, cost, params)
    n = arb(params.reward) - g
    tau = (w - y.log1p()) / u
    d = tau + beta
    hk = (w.expm1() - w) + (y.log1p() - y / (1 + y))
    return {"sigma": sigma, "u": u, "N": n, "tau": tau, "S": n / d, "G": m * d - n * hk,
            "D1": mu * sigma * hk / (u * u)}  # fmt: skip


def _bisect(below, lo: arb, hi: arb, width: Fraction, relative: bool) -> tuple[arb, arb]:
    """[lo, hi] bisected (geometric means while hi/lo > 2, then arithmetic) until
    hi − lo ≤ width (times lo if ``relative``), keeping ``below(lo)`` and not
    ``below(hi)`` (midpoints, no claim)."""
    lo, hi = lo.mid(), hi.mid()
    while ball_fraction(hi - lo) > width * (ball_fraction(lo) if relative else 1):
        mid = ((lo * hi).sqrt() if lo > 0 and hi > 2 * lo else (lo + hi) / 2).mid()
        if below(mid):
            lo = mid
        else:
            hi = mid
    return lo, hi


def _bracket(centre: Fraction, spread: Fraction, digits: int) -> list[str]:
    return [rounded_decimal(centre - spread, digits), rounded_decimal(centre + spread, digits)]


def _gate(cost, params, dps, tighten) -> tuple[dict[str, arb], dict]:
    """GA's optimum: values and the certificate's case and bracket."""
    mu, lam = params.mu, params.arrival
    theta = fmpq(cost.shape.numerator, cost.shape.denominator)
    exponential = cost.family == "exponential"
    binds = lam is not None and lam < mu and not (exponential and mu - lam <= theta)
    if binds:
        g0, _ = cost_and_slope(mu - lam, cost, params)
        binds = bool(params.reward - g0 > 0)  # N(w0) > 0: w0 = log(μ/Λ) > w_N
        if not binds and not params.reward - g0 <= 0:
            raise Undecided("the sign of N at tau = 0 is undecided")
    if binds:
        w_low = arb(mu / lam).log()
        at_low = _terms(w_low, cost, params)["G"]
        if not at_low > 0:
            if not at_low < 0:
                raise Undecided("the sign of S' at tau = 0 is undecided")
            welfare = arb(lam) * (arb(params.reward) - arb(g0))
            values = {"root": arb(lam / mu), "gate": arb(0), "throughput": arb(lam),
                      "welfare_ga": welfare}  # fmt: skip
            return values, {"case": "boundary", "bracket": None}
    else:
        w_low = -(-_root_of_net(cost, params) / arb(mu)).log1p()  # w_N
    lo, hi = w_low, 2 * w_low
    for _ in range(4000):
        if not _terms(hi, cost, params)["G"] > 0:
            break
        lo, hi = hi, 2 * hi
    else:
        raise Undecided("no point with S' <= 0 found")

    def below(w):
        return _terms(w, cost, params)["G"] > 0

    lo, hi = _bisect(below, lo, hi, Fraction(2) ** -40, relative=True)
    centre = ball_fraction((lo + hi) / 2)
    terms = _terms((lo + hi) / 2, cost, params)
    # keep the bracket small against τ*/τ'(w*) too, so that a gate τ* close to 0 keeps
    # its digits (qtheory.gated.certified)
    scale = min(centre, ball_fraction(terms["tau"] / terms["D1"]))
    if not scale > 0:
        raise Undecided("the scale of the bracket of w* is not positive")
    exponent = dps + BRACKET_DIGITS + 8 * tighten
    spread = scale / 10**exponent
    lo, hi = _bisect(below, lo, hi, spread / 4, relative=False)
    centre = ball_fraction((lo + hi) / 2)
    lost = max(0, round(math.log10(centre / scale)))
    bracket = _bracket(centre, spread, exponent + 8 + lost)
    low, high = (point_ball(c) for c in bracket)
    at_low = _terms(low, cost, params)
    if not (low > 0 and at_low["N"] > 0 and at_low["tau"] >= 0):  # above w_N and w_0
        raise Undecided("the lower end of the bracket of w* is not proved admissible")
    if exponential and not at_low["u"] > arb(theta):
        raise Undecided("u > theta is undecided at the lower end of the bracket of w*")
    if not at_low["G"] > 0:
        raise Undecided("S' > 0 is undecided at the lower end of the bracket of w*")
    if not _terms(high, cost, params)["G"] < 0:
        raise Undecided("S' < 0 is undecided at the upper end of the bracket of w*")
    box = low.union(high)
    terms = _terms(box, cost, params)
    throughput = _generated.throughput_arb(box, arb(params.mu), arb(params.beta))
    values = {"root": terms["sigma"], "gate": terms["tau"], "welfare_ga": terms["S"],
              "throughput": throughput}  # fmt: skip
    return values, {"case": "interior", "bracket": bracket}


def _root_of_net(cost: CustomerCost, params: GatedParameters[fmpq]) -> arb:
    """u_N, where g(u_N) = R (closed forms of the module's table)."""
    c, r, shape = params.cost, params.reward, fmpq(cost.shape.numerator, cost.shape.denominator)
    if cost.kind == "holding":
        if shape == 1:
            return arb(c / r)
        return ((arb(c * c + 8 * r * c * params.mu)).sqrt() - arb(c)) / arb(2 * r)
    if cost.family == "exponential":
        return arb(shape + c / r)
    return (arb(c) * arb.gamma_fmpq(shape + 1) / arb(r)) ** (1 / arb(shape))


def _slope(lam, cost, params):
    """F'(λ) = R − g(μ − λ) − λ m(μ − λ)/(μ − λ)² (exact at a rational λ where g is)."""
    u = params.mu - lam
    g, m = cost_and_slope(u, cost, params)
    return params.reward - g - lam * m / u**2


def _routing(cost, params, dps, tighten) -> tuple[arb, arb, dict]:
    """RR's optimum: λ*, S_RR* and the certificate's routing case and bracket."""
    mu, lam = params.mu, params.arrival
    theta = fmpq(cost.shape.numerator, cost.shape.denominator)
    top = mu - theta if cost.family == "exponential" else mu  # F is finite below it
    if lam is not None and lam < top:
        slope = _slope(lam, cost, params)
        if slope >= 0:
            g, _ = cost_and_slope(mu - lam, cost, params)
            rate, welfare = arb(lam), arb(lam * (params.reward - g))
            return rate, welfare, {"routing_case": "boundary", "routing_bracket": None}
        if not slope < 0:
            raise Undecided("the sign of S_RR' at lambda = Lambda is undecided")
        top = lam

    def below(x):
        return _slope(x, cost, params) > 0

    lo, hi = _bisect(below, arb(0), arb(top), Fraction(2) ** -40, relative=True)
    exponent = dps + BRACKET_DIGITS + 8 * tighten
    lo, hi = _bisect(below, lo, hi, Fraction(1, 4 * 10**exponent), relative=True)
    centre = ball_fraction((lo + hi) / 2)
    spread = centre / 10**exponent
    bracket = _bracket(centre, spread, exponent + 8)
    low, high = (point_ball(c) for c in bracket)
    if not (low > 0 and high < arb(top) and _slope(low, cost, params) > 0):
        raise Undecided("S_RR' > 0 is undecided at the lower end of the bracket of lambda*")
    if not _slope(high, cost, params) < 0:
        raise Undecided("S_RR' < 0 is undecided at the upper end of the bracket of lambda*")
    rate = low.union(high)
    g, _ = cost_and_slope(mu - rate, cost, params)
    welfare = rate * (arb(params.reward) - g)
    return rate, welfare, {"routing_case": "interior", "routing_bracket": bracket}


def _admission_guard(cost: CustomerCost, params: GatedParameters[fmpq]) -> int:
    """Refuse R ≤ g(μ) (nobody is worth admitting); else the guard digits for R/g(μ) near
    1 or large and μ/Λ far from 1 (as :func:`qtheory.gated.certified.certified_optimum`
    guards ν)."""
    saved = flint.ctx.prec
    try:
        flint.ctx.prec = 128
        least = arb(cost_and_slope(params.mu, cost, params)[0])  # g(μ), a customer alone
        if not params.reward > least:
            raise ValueError(
                f"reward must exceed E[cost] of a customer alone, g(service_rate) = "
                f"{least.str(10)}, got reward = {params.reward}: no admission earns positive "
                "welfare (nobody is admitted), so there is no optimum to certify"
            )
        ratios = [float(arb(params.reward) / least), float(arb(params.reward) / least - 1)]
        if params.arrival is not None:
            ratios.append(float(params.mu / params.arrival))
    finally:
        flint.ctx.prec = saved
    return sum(math.ceil(abs(math.log10(x))) for x in ratios)


def certified_cost_optimum(
    queue: GatedQueue, cost: CustomerCost, *, dps: int = 30
) -> CertifiedOptimum:
    """Certified enclosures of σ*, τ*, S_GA*, λ*, S_RR* and PoF under ``cost`` (module
    docstring).

    Parameters
    ----------
    queue : GatedQueue
        Λ, μ, R and C (the cost's scale), read as the exact rationals they print as.
    cost : CustomerCost
        :func:`qtheory.gated.costs.sojourn_cost` ``power:p`` (p ≥ 1) or
        ``exponential:θ`` (θ < μ), or :func:`~qtheory.gated.costs.holding_cost`
        ``power:1`` or ``power:2``.
    dps : int, keyword-only, default 30
        Each enclosure has relative width ≤ 10^-dps (or is an exact zero).

    Returns
    -------
    qtheory.gated.certified.CertifiedOptimum
        Its ``certificate`` is ``{"claim": "gated.cost_optimum", "statement",
        "checker": "cost_optimum.optimum", "data"}``.

    Raises
    ------
    TypeError
        If ``queue`` is not a GatedQueue or ``cost`` not a CustomerCost.
    ValueError
        A family without a uniqueness argument (naming it), θ ≥ μ, R ≤ g(μ) (nobody is
        admitted), or ``dps`` not an integer in 1..the ``dps`` limit.
    ArithmeticError
        If the optimum cannot be certified within the precision limit.

    Examples
    --------
    The holding cost C n² per unit time at Λ = 3/2, μ = C = 1, R = 4:

    >>> from qtheory.gated.costs import holding_cost
    >>> opt = certified_cost_optimum(GatedQueue("1.5", 1, 4, 1), holding_cost("power:2"),
    ...                              dps=15)
    >>> opt.at_boundary, opt.certificate["data"]["cost"]
    (False, {'kind': 'holding', 'family': 'power', 'shape': '2'})
    >>> opt.price_of_forgetting > 1
    True
    """
    dps = required_dps(dps, cost="a certified optimum")
    params = checked_queue(queue).exact_parameters()  # no condition on ν: the cost decides
    _certified_family(cost)
    if cost.family == "exponential" and not cost.shape < Fraction(str(params.mu)):
        raise ValueError(
            f"sojourn_cost exponential:theta needs theta < service_rate (E[exp(theta W)] is "
            f"infinite at every load otherwise), got theta = {cost.shape}, service_rate = "
            f"{params.mu}"
        )
    digits = dps + BRACKET_DIGITS + 20 + 2 * _admission_guard(cost, params)

    def attempt(k: int):
        values, data = _gate(cost, params, dps, k)
        rate, welfare, routing = _routing(cost, params, dps, k)
        values.update(rate_rr=rate, welfare_rr=welfare,
                      price_of_forgetting=values["welfare_ga"] / welfare)  # fmt: skip
        return data, routing, {n: certified_enclosure(values[n], dps) for n in VALUE_NAMES}

    (data, routing, enclosures), bits = with_rising_precision(digits, attempt)
    data = {
        "parameters": params.to_json(),
        "cost": {"kind": cost.kind, "family": cost.family, "shape": str(cost.shape)},
        "dps": dps,
        "precision_bits": bits,
        **data,
        **routing,
        "values": {name: [e.lower, e.upper] for name, e in enclosures.items()},
    }
    return CertifiedOptimum(
        **enclosures,
        at_boundary=data["case"] == "boundary",
        routing_at_boundary=data["routing_case"] == "boundary",
        dps=dps,
        certificate=statements.certificate(CLAIM, CHECKER, data),
    )
