r"""Checker for the certified optimum under a general cost (:mod:`qtheory.gated.cost_certified`).

The model of :mod:`qtheory.verify.gated` (gated admission to an unobservable M/M/1
queue: potential customers at rate Λ, Λ = ∞ allowed, service Exp(μ), reward R per
customer), except that an admitted customer costs on average g(u), where u = μ(1 − σ) is
the rate of its Exp(u) sojourn in the GI/M/1 queue of root σ (Kleinrock 1975, Sec. 6.4).
The families whose optimum is proved unique, with C the scale (``data["cost"]``):

- ``sojourn power:p``, p ≥ 1 (C W^p paid for a sojourn W): g = CΓ(p+1)u^{−p},
  |g'| = p g/u;
- ``sojourn exponential:θ``, 0 < θ < μ (C(e^{θW} − 1)/θ): g = C/(u − θ) for u > θ,
  |g'| = C/(u − θ)²;
- ``holding power:1`` (C n per unit time with n present): g = C/u, |g'| = C/u²;
- ``holding power:2`` (C n²): g = (C/μ)(1 + σ)/(1 − σ)² = 2Cμ/u² − C/u,
  |g'| = 4Cμ/u³ − C/u².

In w = −log σ, with β = 1/Λ (0 for Λ = ∞), the gate of root σ is
τ(w) = (w − log(1 + βu))/u, D = τ + β the mean admitted inter-arrival time, N = R − g(u)
and GA's welfare S = N/D.  With m(u) = u²|g'(u)|, h(w) = e^w − 1 − w and
k(y) = log(1 + y) − y/(1 + y), and since u'(w) = μσ and u²τ' = μσ(h + k(βu)),

    S′ = μσ G/(u² D²),   G = m(u)·D − N·(h + k(βu)),
    G′ = m′(u)·μσ·D − N·(h + k(βu))′,   (h + k)′ = e^w − 1 + β²uμσ/(1 + βu)² > 0.

Each family above has m′ ≤ 0 (m = pCΓ(p+1)u^{1−p}, Cu²/(u − θ)², C, C(4μ/u − 1)), so
where N > 0 the function G decreases strictly; where N ≤ 0 the welfare is ≤ 0.  Hence:

- ``case == "interior"``: c₀ < c₁ with c₀ above the gate bound w₀ = log(μ/Λ) (when
  Λ < μ), u(c₀) > θ (exponential), N(c₀) > 0 and G(c₀) > 0 > G(c₁) prove that GA's
  welfare has one maximiser w* over τ ≥ 0, in [c₀, c₁]; σ*, τ*, the throughput 1/D and
  S_GA* are enclosed on the ball [c₀, c₁];
- ``case == "boundary"``: Λ < μ, u₀ = μ − Λ (> θ), N(w₀) > 0 and G(w₀) < 0 prove that S
  decreases on [w₀, ∞): τ* = 0, σ* = Λ/μ, throughput Λ, S_GA* = Λ(R − g(μ − Λ)).

Random routing: F(λ) = λ(R − g(μ − λ)) is strictly concave for g decreasing and convex
in u (each family above), F′(λ) = R − g(u) − λ|g′(u)| at u = μ − λ, finite for
λ < λ_top = μ (μ − θ for the exponential cost).  ``routing_case == "boundary"``:
Λ < λ_top and F′(Λ) ≥ 0, so λ* = Λ and S_RR* = Λ(R − g(μ − Λ)); ``"interior"``:
0 < c₀ < c₁ < λ_top with F′(c₀) > 0 > F′(c₁) (and F′(Λ) < 0 when Λ < λ_top), so λ* is
the unique stationary point, in [c₀, c₁], and S_RR* = F on that ball.  F′(Λ) is decided
in exact rationals where g is rational (an integer p up to :data:`EXACT_POWER`, the
exponential and holding costs), else in Arb.  PoF = S_GA*/S_RR*.

A certificate holds when, in addition, every claimed interval of ``data["values"]``
contains the checker's ball and has relative width at most 10^−dps.

Examples
--------
>>> data = {"parameters": {"arrival_rate": "inf", "service_rate": "1", "reward": "4",
...                        "cost": "1"}, "cost": {"kind": "sojourn", "family": "deadline",
...         "shape": "1"}, "dps": 5, "precision_bits": 128, "case": "interior",
...         "bracket": ["2", "3"], "routing_case": "interior", "values": {}}
>>> check_cost_optimum(data)
Traceback (most recent call last):
...
qtheory.verify.CertificateError: the cost sojourn deadline:1 has no uniqueness argument ...

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
from collections.abc import Mapping

from flint import arb, fmpq

from qtheory.verify import CertificateError
from qtheory.verify._arith import (
    ball,
    certificate_digits,
    check_enclosures,
    precision,
    rate_or_inf,
    rational,
)
from qtheory.verify.gated import NAMES

__all__ = ["CHECKS", "EXACT_POWER", "check_cost_optimum", "cost_optimum_balls", "read_problem"]

#: The largest integer exponent p of ``power:p`` evaluated in exact rationals (beyond it,
#: in Arb: a certificate cannot make the checker build p! for a huge p).
EXACT_POWER = 64


def read_problem(data: Mapping) -> dict:
    """Exact rationals Λ (None for ∞), μ, R, C, β and the cost's kind, family and shape,
    after checking that the family is one whose optimum is proved unique.

    Parameters
    ----------
    data : mapping
        With ``parameters`` and ``cost`` (``kind``, ``family``, ``shape``).

    Returns
    -------
    dict

    Raises
    ------
    CertificateError
        A parameter that is not positive, or a family without the uniqueness property.

    Examples
    --------
    >>> q = read_problem({"parameters": {"arrival_rate": "3/2", "service_rate": "1",
    ...     "reward": "4", "cost": "1"}, "cost": {"kind": "holding", "family": "power",
    ...     "shape": "2"}})
    >>> q["beta"], q["shape"]
    (2/3, 2)
    """
    p = data["parameters"]
    arrival = rate_or_inf(p["arrival_rate"])
    mu, reward, cost = (rational(p[n]) for n in ("service_rate", "reward", "cost"))
    if not (mu > 0 and reward > 0 and cost > 0 and (arrival is None or arrival > 0)):
        raise CertificateError("parameters must be positive")
    kind, family, text = (str(data["cost"][k]) for k in ("kind", "family", "shape"))
    shape = rational(text)
    unique = (
        (kind == "sojourn" and family == "power" and shape >= 1)
        or (kind == "sojourn" and family == "exponential" and 0 < shape < mu)
        or (kind == "holding" and family == "power" and shape in (1, 2))
    )
    if not unique:
        raise CertificateError(
            f"the cost {kind} {family}:{text} has no uniqueness argument (proved unique: "
            "sojourn power:p with p >= 1, sojourn exponential:theta with theta < mu, "
            "holding power:1 and power:2)"
        )
    beta = fmpq(0) if arrival is None else 1 / arrival
    return {"arrival": arrival, "mu": mu, "R": reward, "C": cost, "beta": beta,
            "kind": kind, "family": family, "shape": shape}  # fmt: skip


def _cost(u, q: dict):
    """(g(u), |g'(u)|) of the module's families: exact rationals at a rational u where g
    is rational, else balls."""
    c, p = q["C"], q["shape"]
    if q["kind"] == "holding":
        if p == 1:
            return c / u, c / u**2
        return 2 * c * q["mu"] / u**2 - c / u, 4 * c * q["mu"] / u**3 - c / u**2
    if q["family"] == "exponential":
        return c / (u - p), c / (u - p) ** 2
    if p.q == 1 and p <= EXACT_POWER:
        g = c * math.factorial(int(p)) / u ** int(p)
    else:
        g = arb(c) * arb.gamma_fmpq(p + 1) * (-arb(p) * arb(u).log()).exp()
    return g, p * g / u


def _terms(w: arb, q: dict) -> dict:
    """u, N, σ, τ, S and G on the ball ``w`` (module formulas)."""
    mu, beta = arb(q["mu"]), arb(q["beta"])
    sigma = (-w).exp()
    u = -mu * (-w).expm1()
    y = beta * u
    g, slope = _cost(u, q)
    n = arb(q["R"]) - g
    tau = (w - y.log1p()) / u
    d = tau + beta
    hk = (w.expm1() - w) + (y.log1p() - y / (1 + y))
    return {"u": u, "N": n, "sigma": sigma, "tau": tau, "S": n / d,
            "G": u * u * slope * d - n * hk}  # fmt: skip


def _slope(lam, q: dict):
    """F'(λ) = R − g(μ − λ) − λ|g'(μ − λ)|."""
    g, slope = _cost(q["mu"] - lam, q)
    return q["R"] - g - lam * slope


def _gate_balls(data: Mapping, q: dict) -> dict[str, arb]:
    mu, lam = q["mu"], q["arrival"]
    exponential = q["family"] == "exponential"
    if data["case"] == "boundary":
        if lam is None or not lam < mu or (exponential and not mu - lam > q["shape"]):
            raise CertificateError(
                "case 'boundary' but tau = 0 is not a stable gate of finite cost"
            )
        w0 = arb(mu / lam).log()
        at = _terms(w0, q)
        if not at["N"] > 0:
            raise CertificateError("R > g(mu - Lambda) is not proved (case 'boundary')")
        if not at["G"] < 0:
            raise CertificateError("S' < 0 at tau = 0 is not proved (case 'boundary')")
        g, _ = _cost(mu - lam, q)
        welfare = arb(lam) * (arb(q["R"]) - arb(g))
        return {"root": arb(lam / mu), "gate": arb(0), "throughput": arb(lam),
                "welfare_ga": welfare}  # fmt: skip
    if data["case"] != "interior":
        raise CertificateError(f"unknown case {data['case']!r}")
    c0, c1 = data["bracket"]
    low, high = ball(c0), ball(c1)
    if not (0 < rational(c0) < rational(c1)):
        raise CertificateError(f"the bracket [{c0}, {c1}] is not ordered above 0")
    if lam is not None and lam < mu and not low > arb(mu / lam).log():
        raise CertificateError(f"c0 = {c0} is not proved above the gate bound log(mu/Lambda)")
    at = _terms(low, q)
    if exponential and not at["u"] > arb(q["shape"]):
        raise CertificateError(f"u > theta is not proved at c0 = {c0} (the cost is infinite)")
    if not at["N"] > 0:
        raise CertificateError(f"N = R - g(u) > 0 is not proved at c0 = {c0}")
    if not at["G"] > 0:
        raise CertificateError(f"S' > 0 is not proved at the lower end of the bracket (c0 = {c0})")
    if not _terms(high, q)["G"] < 0:
        raise CertificateError(f"S' < 0 is not proved at the upper end of the bracket (c1 = {c1})")
    terms = _terms(low.union(high), q)
    return {"root": terms["sigma"], "gate": terms["tau"], "welfare_ga": terms["S"],
            "throughput": 1 / (terms["tau"] + arb(q["beta"]))}  # fmt: skip


def _routing_balls(data: Mapping, q: dict) -> dict[str, arb]:
    mu, lam = q["mu"], q["arrival"]
    top = mu - q["shape"] if q["family"] == "exponential" else mu
    bounded = lam is not None and lam < top
    if data["routing_case"] == "boundary":
        if not bounded:
            raise CertificateError(
                "routing case 'boundary' but Lambda is not below the finite-cost end"
            )
        if not _slope(lam, q) >= 0:
            raise CertificateError("S_RR'(Lambda) >= 0 is not proved (routing case 'boundary')")
        g, _ = _cost(mu - lam, q)
        return {"rate_rr": arb(lam), "welfare_rr": arb(lam) * (arb(q["R"]) - arb(g))}
    if data["routing_case"] != "interior":
        raise CertificateError(f"unknown routing case {data['routing_case']!r}")
    if bounded and not _slope(lam, q) < 0:
        raise CertificateError("S_RR'(Lambda) < 0 is not proved (routing case 'interior')")
    c0, c1 = data["routing_bracket"]
    if not (0 < rational(c0) < rational(c1) < top):
        raise CertificateError(f"the routing bracket [{c0}, {c1}] is not ordered in (0, {top})")
    low, high = ball(c0), ball(c1)
    if not _slope(low, q) > 0:
        raise CertificateError(f"S_RR' > 0 is not proved at c0 = {c0} (routing bracket)")
    if not _slope(high, q) < 0:
        raise CertificateError(f"S_RR' < 0 is not proved at c1 = {c1} (routing bracket)")
    rate = low.union(high)
    g, _ = _cost(arb(mu) - rate, q)
    return {"rate_rr": rate, "welfare_rr": rate * (arb(q["R"]) - g)}


def cost_optimum_balls(data: Mapping) -> dict[str, arb]:
    """Decide the optimality part of a ``gated.cost_optimum`` certificate and return the
    checker's own balls of the seven values (call inside :func:`_arith.precision`).

    Parameters
    ----------
    data : mapping
        The certificate's ``data`` (see :func:`check_cost_optimum`).

    Returns
    -------
    dict of str to flint.arb
        ``root``, ``gate``, ``throughput``, ``welfare_ga``, ``rate_rr``, ``welfare_rr``,
        ``price_of_forgetting``.

    Raises
    ------
    CertificateError
        Naming the step that does not hold.

    Examples
    --------
    Λ = 1/2, μ = C = 1, R = 50 and C W² per customer: both rules admit everybody,
    S* = (1/2)(50 − 2/(1/2)²) = 21:

    >>> data = {"parameters": {"arrival_rate": "1/2", "service_rate": "1", "reward": "50",
    ...         "cost": "1"}, "cost": {"kind": "sojourn", "family": "power", "shape": "2"},
    ...         "case": "boundary", "routing_case": "boundary"}
    >>> with precision(128):
    ...     balls = cost_optimum_balls(data)
    >>> balls["welfare_ga"], balls["price_of_forgetting"]
    (21.0000000000000, 1.00000000000000)
    """
    q = read_problem(data)
    balls = {**_gate_balls(data, q), **_routing_balls(data, q)}
    balls["price_of_forgetting"] = balls["welfare_ga"] / balls["welfare_rr"]
    return balls


def check_cost_optimum(data: Mapping) -> None:
    """``cost_optimum.optimum``: GA's and RR's optima under the cost are unique and the
    seven values lie in their intervals (module docstring).

    Parameters
    ----------
    data : mapping
        ``parameters`` (exact rationals as text, ``"inf"`` for Λ = ∞), ``cost``
        (``kind``, ``family``, ``shape``), ``dps``, ``precision_bits``, ``case``,
        ``bracket``, ``routing_case``, ``routing_bracket`` and ``values``
        (name -> ``[lower, upper]``, decimal strings).

    Raises
    ------
    CertificateError
        Naming what fails.

    Examples
    --------
    >>> near = lambda x: [str(x * 0.9996), str(x * 1.0004)]
    >>> values = {"root": near(0.5), "gate": ["0", "0"], "throughput": near(0.5),
    ...           "welfare_ga": near(21), "rate_rr": near(0.5), "welfare_rr": near(21),
    ...           "price_of_forgetting": near(1)}
    >>> data = {"parameters": {"arrival_rate": "1/2", "service_rate": "1", "reward": "50",
    ...         "cost": "1"}, "cost": {"kind": "sojourn", "family": "power", "shape": "2"},
    ...         "dps": 3, "precision_bits": 64, "case": "boundary", "bracket": None,
    ...         "routing_case": "boundary", "routing_bracket": None, "values": values}
    >>> check_cost_optimum(data)  # holds: returns None
    >>> check_cost_optimum({**data, "values": {**values, "welfare_rr": near(20)}})
    Traceback (most recent call last):
    ...
    qtheory.verify.CertificateError: welfare_rr: the checker's enclosure ... is not inside ...
    """
    dps = certificate_digits(data)
    with precision(data["precision_bits"]):
        balls = cost_optimum_balls(data)
        values = data["values"]
        check_enclosures(balls, NAMES, lambda name: [values[name][0], values[name][1]], dps)


CHECKS = {"optimum": check_cost_optimum}
