r"""Checkers for the gated-admission certificates (:mod:`qtheory.gated.certified`).

The model (Hassin and Ravner, gated admission to an unobservable M/M/1 queue): potential
customers arrive at rate Λ (Λ = ∞ allowed), service is Exp(μ), reward R per customer
served, cost C per customer per unit time, ν = Rμ/C > 1.  After each admission the gate
stays shut for τ ≥ 0; admitted inter-arrival times are T = τ + Exp(Λ), so the admitted
customers form a GI/M/1 queue whose root σ ∈ (0, 1) solves

    σ = e^{−uτ} Λ/(Λ + u),   u = μ(1 − σ).

Taking logarithms and writing w = −log σ, β = 1/Λ (0 for Λ = ∞), the gate of a root is

    τ(w) = (w − log(1 + βu))/u.

Sojourn times are Exp(u), so the welfare per unit time (reward rate minus cost rate,
throughput 1/D with D = τ + β) is

    S(w) = N/D,   N = R − C/u = (Cε − Rμσ)/u,   Cε = Rμ − C.

Let h(w) = e^w − 1 − w and k(y) = log(1 + y) − y/(1 + y) (both ≥ 0).  Differentiating,

    D′ = μσ (h + k(βu))/u² > 0,
    S′ = μσ G/(u² D²)  with  G = C·D − N·(h + k(βu)),
    G′ = −N·(e^w − 1 + β² u μσ/(1 + βu)²).

(Since u′ = μσ: u²·τ′ = (u − wμσ) + μσ(log(1 + βu) − βu/(1 + βu)) = μσ(h + k), as
u − wμσ = μσ·h(w); S′ = (N′D − ND′)/D² with N′ = Cμσ/u²; and in
G′ = C·D′ − N′·(h + k) − N·(h + k)′ the first two terms cancel.)  So τ increases
with w, the gates τ ≥ 0 are w ≥ w₀ (w₀ = log μβ if μβ > 1, else 0), the welfare is
positive only for N > 0, i.e. w > w_N = log(ν/(ν − 1)), and on [w_N, ∞) G — which has the
sign of S′ — strictly decreases.  On [w_L, ∞), w_L = max(w₀, w_N), S therefore has at most
one critical point, and:

- ``case == "interior"``: w_L < c₀ < c₁ with G(c₀) > 0 > G(c₁) proves that the unique
  maximiser w* lies in [c₀, c₁]; σ* = e^{−w*}, τ* = τ(w*), the admission rate 1/D(w*)
  and S_GA* = S(w*) are enclosed by evaluating on the ball [c₀, c₁].
- ``case == "boundary"`` (only if μβ > 1 and w₀ > w_N, i.e. μβ·ε > ν): G(w₀) < 0 proves
  that S decreases on [w₀, ∞), so τ* = 0, σ* = Λ/μ, S_GA* = Λ(R − C/(μ − Λ)).

Random routing (Edelson and Hildebrand): S_RR(λ) = λ(R − C/(μ − λ)) is concave, with
stationary point μ − √(μC/R); so λ* = min(Λ, μ − √(μC/R)).  The case is decided exactly:
Λ ≥ μ − √(μC/R) iff μ ≤ Λ or (μ − Λ)² ≤ μC/R; then S_RR* = C(√ν − 1)² =
Cε²/(√ν + 1)² and λ* = με/(√ν(√ν + 1)); else λ* = Λ and S_RR* = Λ(R − C/(μ − Λ)).
PoF = S_GA*/S_RR*.

A certificate holds when every claimed interval of ``data["values"]`` contains the
checker's ball and has relative width at most 10^−dps.

Grids (``gated.optima``, ``gated.pof_grid``, ``gated.asymptotics``) repeat the optimum
check at each point of ``data["points"]`` (the same fields, ``values`` only for
``optima``):

- ``pof_grid``: PoF ≥ 1 at every point (exactly 1 when both rules admit everybody:
  then S_GA* and S_RR* are the same number Λ(R − C/(μ − Λ)));
- ``asymptotics``: with K = ``data["constant"]``, |PoF/L − 1| ≤ K·r at every point,
  where ``regime == "light"``: L = 4/(ε log(1/ε)), r = log log(1/ε)/log(1/ε); and
  ``regime == "heavy"``: L is replaced by the excess, (PoF − 1)/(2(1 − √γ)/√ν) with
  γ = (1 + μ²β²)/2, and r = ν^{−1/2}.
- ``dominance``: at each ``(load ρ, Λ)`` with gate τ = 1/(ρμ) − β > 0, the root
  residual f(s) = e^{−μ(1−s)τ}Λ/(Λ + μ(1 − s)) − s is convex on [0, 1] with f(0) > 0
  and f(1) = 0, so for a stable queue (ρ < 1) it is negative exactly between σ and 1:
  f(ρ) < 0 proves σ < ρ = λ/μ (GA's sojourn Exp(μ(1 − σ)) is stochastically smaller
  than RR's Exp(μ − λ) at the same throughput λ).

Examples
--------
>>> data = {"parameters": {"arrival_rate": "inf", "service_rate": "1", "reward": "2",
...                        "cost": "1"}, "dps": 5, "precision_bits": 128,
...         "case": "interior", "bracket": ["2", "3"], "routing_case": "interior",
...         "values": {}}
>>> CHECKS["optimum"](data)
Traceback (most recent call last):
...
qtheory.verify.CertificateError: S' > 0 is not proved at the lower end of the bracket of w* (c0 = 2)
"""

from __future__ import annotations

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

__all__ = [
    "CHECKS",
    "check_asymptotics",
    "check_dominance",
    "check_optima",
    "check_optimum",
    "check_pof_grid",
    "check_pof_region",
    "optimum_balls",
]

NAMES = (
    "root",
    "gate",
    "throughput",
    "welfare_ga",
    "rate_rr",
    "welfare_rr",
    "price_of_forgetting",
)


def read_parameters(data: Mapping) -> dict:
    """Exact rationals Λ (None for ∞), μ, R, C from ``data["parameters"]``."""
    p = data["parameters"]
    arrival = rate_or_inf(p["arrival_rate"])
    mu, reward, cost = (rational(p[n]) for n in ("service_rate", "reward", "cost"))
    if not (mu > 0 and reward > 0 and cost > 0 and (arrival is None or arrival > 0)):
        raise CertificateError("parameters must be positive")
    if not reward * mu > cost:
        raise CertificateError(f"nu = R mu / C = {reward * mu / cost} is not > 1")
    beta = fmpq(0) if arrival is None else 1 / arrival
    return {"arrival": arrival, "mu": mu, "R": reward, "C": cost, "beta": beta}


def _terms(w: arb, q: dict) -> dict:
    """σ, τ, S and G on the ball ``w`` (module formulas)."""
    mu, beta = arb(q["mu"]), arb(q["beta"])
    sigma = (-w).exp()
    u = -mu * (-w).expm1()
    y = beta * u
    n = (arb(q["R"] * q["mu"] - q["C"]) - arb(q["R"]) * mu * sigma) / u
    tau = (w - y.log1p()) / u
    d = tau + beta
    g = arb(q["C"]) * d - n * ((w.expm1() - w) + (y.log1p() - y / (1 + y)))
    return {"sigma": sigma, "tau": tau, "S": n / d, "G": g}


def optimum_balls(data: Mapping) -> dict[str, arb]:
    """Decide the optimality part of a ``gated.optimum`` certificate and return the
    checker's own balls of the six values (call inside :func:`_arith.precision`).

    Parameters
    ----------
    data : mapping
        The certificate's ``data`` (see the module docstring).

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
    >>> data = {"parameters": {"arrival_rate": "1/5", "service_rate": "1", "reward": "3",
    ...                        "cost": "1"}, "case": "boundary", "routing_case": "boundary"}
    >>> with precision(128):
    ...     balls = optimum_balls(data)
    >>> balls["gate"], round(float(balls["price_of_forgetting"].mid()), 12)
    (0, 1.0)
    """
    q = read_parameters(data)
    mu, lam, beta = q["mu"], q["arrival"], q["beta"]
    eps = (q["R"] * mu - q["C"]) / q["C"]
    nu = q["R"] * mu / q["C"]
    binds = mu * beta > 1 and mu * beta * eps > nu
    w_low = arb(mu * beta).log() if binds else arb(1 / eps).log1p()
    if data["case"] == "boundary":
        if not binds:
            raise CertificateError(
                "case 'boundary' but the gate constraint cannot bind (mu beta eps <= nu)"
            )
        if not _terms(w_low, q)["G"] < 0:
            raise CertificateError("S' < 0 at tau = 0 is not proved (case 'boundary')")
        s_ga = lam * (q["R"] - q["C"] / (mu - lam))
        balls = {"root": arb(lam / mu), "gate": arb(0), "welfare_ga": arb(s_ga)}
        balls["throughput"] = arb(lam)
    elif data["case"] == "interior":
        c0, c1 = data["bracket"]
        low, high = ball(c0), ball(c1)
        if not (rational(c0) < rational(c1) and low > w_low):
            raise CertificateError(
                f"the bracket [{c0}, {c1}] is not ordered above w_L = {w_low.str(10)}"
            )
        if not _terms(low, q)["G"] > 0:
            raise CertificateError(
                f"S' > 0 is not proved at the lower end of the bracket of w* (c0 = {c0})"
            )
        if not _terms(high, q)["G"] < 0:
            raise CertificateError(
                f"S' < 0 is not proved at the upper end of the bracket of w* (c1 = {c1})"
            )
        terms = _terms(low.union(high), q)
        balls = {"root": terms["sigma"], "gate": terms["tau"], "welfare_ga": terms["S"]}
        balls["throughput"] = 1 / (terms["tau"] + arb(beta))
    else:
        raise CertificateError(f"unknown case {data['case']!r}")
    interior = lam is None or mu <= lam or (mu - lam) ** 2 <= mu * q["C"] / q["R"]
    if data["routing_case"] != ("interior" if interior else "boundary"):
        raise CertificateError(
            f"routing case {data['routing_case']!r} is wrong: Lambda >= mu - sqrt(mu C/R) "
            f"is {interior}"
        )
    if interior:
        root_nu = arb(nu).sqrt()
        balls["rate_rr"] = arb(mu) * arb(eps) / (root_nu * (root_nu + 1))
        balls["welfare_rr"] = arb(q["C"]) * arb(eps) ** 2 / (root_nu + 1) ** 2
    else:
        balls["rate_rr"] = arb(lam)
        balls["welfare_rr"] = arb(lam * (q["R"] - q["C"] / (mu - lam)))
    balls["price_of_forgetting"] = balls["welfare_ga"] / balls["welfare_rr"]
    return balls


def _claimed(data: Mapping, name: str) -> list[str]:
    value = data["values"][name]
    return [value["lower"], value["upper"]] if isinstance(value, Mapping) else list(value)


def check_optimum(data: Mapping) -> None:
    """``gated.optimum``: the unique optimal gate and the seven values lie in their intervals.

    Parameters
    ----------
    data : mapping
        ``parameters`` (exact rationals as text, ``"inf"`` for Λ = ∞), ``dps``,
        ``precision_bits``, ``case``, ``bracket``, ``routing_case`` and ``values``
        (name -> ``[lower, upper]``, decimal strings).

    Raises
    ------
    CertificateError
        Naming what fails.

    Examples
    --------
    Λ = 1/5, μ = C = 1, R = 3: both rules admit everybody, S* = 0.2 (3 − 1/0.8) = 0.35:

    >>> near = lambda x: [str(x * 0.9996), str(x * 1.0004)]
    >>> values = {"root": near(0.2), "gate": ["0", "0"],
    ...           "throughput": near(0.2), "welfare_ga": near(0.35), "rate_rr": near(0.2),
    ...           "welfare_rr": near(0.35),
    ...           "price_of_forgetting": near(1)}
    >>> data = {"parameters": {"arrival_rate": "1/5", "service_rate": "1", "reward": "3",
    ...                        "cost": "1"}, "dps": 3, "precision_bits": 64,
    ...         "case": "boundary", "bracket": None, "routing_case": "boundary",
    ...         "values": values}
    >>> check_optimum(data)  # holds: returns None
    >>> check_optimum({**data, "values": {**values, "welfare_ga": near(0.36)}})
    Traceback (most recent call last):
    ...
    qtheory.verify.CertificateError: welfare_ga: the checker's enclosure ... is not inside ...
    """
    dps = certificate_digits(data)
    with precision(int(data["precision_bits"])):
        balls = optimum_balls(data)
        check_enclosures(balls, NAMES, lambda name: _claimed(data, name), dps)


def _points(data: Mapping) -> list:
    points = data["points"]
    if not points:
        raise CertificateError("the grid has no points")
    return points


def _at(index: int, point: Mapping) -> str:
    p = point["parameters"]
    return f"point {index} (Lambda = {p['arrival_rate']}, R = {p['reward']})"


def check_optima(data: Mapping) -> None:
    """``gated.optima``: :func:`check_optimum` at every point of ``data["points"]``.

    Parameters
    ----------
    data : mapping
        ``{"points": [optimum data, ...]}``.

    Raises
    ------
    CertificateError
        Naming the point and what fails there.

    Examples
    --------
    >>> check_optima({"points": []})
    Traceback (most recent call last):
    ...
    qtheory.verify.CertificateError: the grid has no points
    """
    for index, point in enumerate(_points(data)):
        try:
            check_optimum(point)
        except CertificateError as error:
            raise CertificateError(f"{_at(index, point)}: {error}") from None


def check_pof_grid(data: Mapping) -> None:
    """``gated.pof_grid``: PoF ≥ 1 at every point of ``data["points"]``.

    Parameters
    ----------
    data : mapping
        ``{"points": [optimum data without values, ...]}``.

    Raises
    ------
    CertificateError
        Naming the point where PoF ≥ 1 is not proved.

    Examples
    --------
    >>> point = {"parameters": {"arrival_rate": "1/5", "service_rate": "1", "reward": "3",
    ...          "cost": "1"}, "precision_bits": 64, "case": "boundary",
    ...          "routing_case": "boundary"}
    >>> check_pof_grid({"points": [point]})  # PoF = 1 exactly: holds
    """
    for index, point in enumerate(_points(data)):
        with precision(int(point["precision_bits"])):
            try:
                balls = optimum_balls(point)
            except CertificateError as error:
                raise CertificateError(f"{_at(index, point)}: {error}") from None
            both = point["case"] == "boundary" and point["routing_case"] == "boundary"
            if not (both or balls["price_of_forgetting"] >= 1):
                raise CertificateError(
                    f"{_at(index, point)}: PoF >= 1 is not proved "
                    f"(PoF in {balls['price_of_forgetting'].str(10)})"
                )


def check_asymptotics(data: Mapping) -> None:
    """``gated.asymptotics``: |PoF/L − 1| ≤ K·r at every point (module docstring).

    Parameters
    ----------
    data : mapping
        ``regime`` (``"light"`` or ``"heavy"``), ``constant`` K (a rational as text) and
        ``points`` (optimum data without values).

    Raises
    ------
    CertificateError
        Naming the point where the bound is not proved.

    Examples
    --------
    >>> point = {"parameters": {"arrival_rate": "inf", "service_rate": "1",
    ...          "reward": "101/100", "cost": "1"}, "precision_bits": 128,
    ...          "case": "interior", "bracket": ["2", "3"], "routing_case": "interior"}
    >>> check_asymptotics({"regime": "light", "constant": "3/2", "points": [point]})
    Traceback (most recent call last):
    ...
    qtheory.verify.CertificateError: point 0 (Lambda = inf, R = 101/100): the bracket [2, 3] is ...
    """
    regime, constant = data["regime"], arb(rational(data["constant"]))
    if regime not in ("light", "heavy"):
        raise CertificateError(f"unknown regime {regime!r}")
    for index, point in enumerate(_points(data)):
        with precision(int(point["precision_bits"])):
            try:
                pof = optimum_balls(point)["price_of_forgetting"]
            except CertificateError as error:
                raise CertificateError(f"{_at(index, point)}: {error}") from None
            q = read_parameters(point)
            nu = arb(q["R"] * q["mu"] / q["C"])
            if regime == "light":
                eps = arb((q["R"] * q["mu"] - q["C"]) / q["C"])
                log = (1 / eps).log()
                ratio, order = pof * eps * log / 4, log.log() / log
                if not eps < 1 / arb(1).exp():
                    raise CertificateError(f"{_at(index, point)}: nu - 1 >= 1/e")
            else:
                if not q["mu"] * q["beta"] < 1:
                    raise CertificateError(f"{_at(index, point)}: heavy traffic needs Lambda > mu")
                m = (1 + arb(q["mu"] * q["beta"]) ** 2) / 2
                ratio = (pof - 1) * nu.sqrt() / (2 * (1 - m.sqrt()))
                order = 1 / nu.sqrt()
            if not abs(ratio - 1) <= constant * order:
                raise CertificateError(
                    f"{_at(index, point)}: |ratio - 1| <= K r is not proved "
                    f"(ratio in {ratio.str(10)}, K r in {(constant * order).str(10)})"
                )


def check_dominance(data: Mapping) -> None:
    """``gated.dominance``: σ < λ/μ at every (load, Λ) point (module docstring).

    Parameters
    ----------
    data : mapping
        ``service_rate`` μ, ``precision_bits`` and ``points``: pairs ``[load ρ, Λ]`` of
        rationals as text (``"inf"`` allowed for Λ), 0 < ρ < 1.

    Raises
    ------
    CertificateError
        Naming the point where f(ρ) < 0 is not proved.

    Examples
    --------
    >>> check_dominance({"service_rate": "1", "precision_bits": 64,
    ...                  "points": [["1/2", "inf"], ["9/10", "2"]]})  # holds
    >>> check_dominance({"service_rate": "1", "precision_bits": 64, "points": [["1", "inf"]]})
    Traceback (most recent call last):
    ...
    qtheory.verify.CertificateError: point 0 (load 1, Lambda = inf): the load must lie in (0, 1)
    """
    mu = rational(data["service_rate"])
    if not mu > 0:
        raise CertificateError(f"the service rate mu = {data['service_rate']} must be positive")
    with precision(int(data["precision_bits"])):
        for index, (load_text, arrival_text) in enumerate(_points(data)):
            at = f"point {index} (load {load_text}, Lambda = {arrival_text})"
            load = rational(load_text)
            if arrival_text != "inf" and not rational(arrival_text) > 0:
                raise CertificateError(f"{at}: the arrival rate Lambda must be positive")
            beta = fmpq(0) if arrival_text == "inf" else 1 / rational(arrival_text)
            if not 0 < load < 1:
                raise CertificateError(f"{at}: the load must lie in (0, 1)")
            gate = 1 / (load * mu) - beta
            if not gate > 0:
                raise CertificateError(f"{at}: the gate 1/lambda - 1/Lambda is not positive")
            s = arb(mu * (1 - load))
            residual = (-s * arb(gate)).exp() / (1 + arb(beta) * s) - arb(load)
            if not residual < 0:
                raise CertificateError(f"{at}: f(load) < 0 is not proved ({residual.str(5)})")


def _box(data: Mapping, key: str) -> tuple[fmpq | None, fmpq | None]:
    """The range [lower, upper] of one parameter of a box (None for ∞): 0 < lower <= upper
    on (0, ∞], so [x, ∞] and the degenerate [∞, ∞] (Λ = ∞ fixed) are ranges, [∞, x] is not."""
    low, high = data["box"][key]
    lower, upper = rate_or_inf(low), rate_or_inf(high)
    if upper is None and key != "arrival_rate":
        raise CertificateError(f"{key}: only the arrival rate may be infinite")
    ordered = upper is None or (lower is not None and lower <= upper)
    if not ordered or (lower is not None and not lower > 0):
        raise CertificateError(f"{key}: the range [{low}, {high}] must satisfy 0 < lower <= upper")
    return lower, upper


def check_pof_region(data: Mapping) -> None:
    """``gated.pof_region``: the box lies inside the hypotheses of ``gated.pof_identity``.

    PoF ≥ 1 holds for every Λ ∈ (0, ∞], μ, R, C > 0 with ν = Rμ/C > 1 by the dominance
    identity (e^a(1 + b) − (1 + a + b) = (e^a − 1 − a)(1 + b) + ab with 1 + a + b = μ/λ*
    at RR's optimal rate; module docstring).  A box of parameters is covered when every
    range is positive and ν > 1 at its worst corner: R_lo μ_lo > C_hi.

    Parameters
    ----------
    data : mapping
        ``box``: ``arrival_rate``, ``service_rate``, ``reward``, ``cost`` each
        ``[lower, upper]`` (rationals as text; the arrival rate's upper end may be
        ``"inf"``, and both ends for Λ = ∞ fixed).

    Raises
    ------
    CertificateError
        Naming the range that leaves the hypotheses.

    Examples
    --------
    >>> box = {"arrival_rate": ["1/2", "inf"], "service_rate": ["1", "1"],
    ...        "reward": ["1001/1000", "1000"], "cost": ["1", "1"]}
    >>> check_pof_region({"box": box})
    >>> check_pof_region({"box": {**box, "arrival_rate": ["inf", "inf"]}})  # Λ = ∞ fixed
    >>> check_pof_region({"box": {**box, "reward": ["1", "1000"]}})
    Traceback (most recent call last):
    ...
    qtheory.verify.CertificateError: reward, service_rate, cost: nu = R mu/C = 1 at the ...
    """
    keys = ("arrival_rate", "service_rate", "reward", "cost")
    if not isinstance(data.get("box"), Mapping) or set(data["box"]) != set(keys):
        raise CertificateError(f"box: needs the ranges of {', '.join(keys)}")
    ranges = {key: _box(data, key) for key in keys}
    nu = ranges["reward"][0] * ranges["service_rate"][0] / ranges["cost"][1]
    if not nu > 1:
        raise CertificateError(
            f"reward, service_rate, cost: nu = R mu/C = {nu} at the box's worst corner, not > 1"
        )


CHECKS = {
    "optimum": check_optimum,
    "optima": check_optima,
    "pof_grid": check_pof_grid,
    "asymptotics": check_asymptotics,
    "dominance": check_dominance,
    "pof_region": check_pof_region,
}
