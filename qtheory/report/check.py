r"""``qtheory check``: one claim of the package, checked at your own parameters.

The reproduce run checks every claim on the package's fixed grids; this command (and
:func:`check` from Python) checks one of a handful of them at the parameters of your own
lemma, and prints the claim, its hypotheses, both sides, the verdict and the kind of
evidence that decides it.  ``qtheory check --list`` lists the checkable claims.

Checkable claims (``--list`` prints the same, one line each):

``gated.optimal_gate``
    S_GA(τ) has a unique maximiser τ*, and σ*, τ*, S_GA*, λ*, S_RR*, PoF lie in
    certified intervals (Arb).
``gated.pof_at_least_one``
    memory never hurts: PoF = S_GA*/S_RR* ≥ 1, certified at the point.
``gated.pof_light_rate``
    the light-traffic remainder bound
    |PoF ε log(1/ε)/4 − 1| ≤ (3/2) log log(1/ε)/log(1/ε), ν = 1 + ε, decided in Arb at
    the point; claimed for 0 < ε ≤ 1/10 and Λ ≥ 6μ/5 (:mod:`qtheory.gated.remainder`).
``gated.pof_heavy_rate``
    the heavy-traffic remainder bound |(PoF − 1)√ν/(2(1 − √γ)) − 1| ≤ (5/2)ν^{-1/2},
    γ = (1 + μ²/Λ²)/2, decided in Arb at the point; claimed for ν ≥ 4 and Λ ≥ 2μ.
``gated.dominance``
    at equal throughput GA's root is below RR's load, σ_GA < λ/μ (certified), at the
    load ``--load`` or, by default, at the load of GA's optimal throughput.
``lossnet.fluid``
    the fluid LP optimum equals N[r_H λ_H + r_L(μ − λ_H)], by exact duality.
``lossnet.trunk_reservation``
    trunk reservation with k* is optimal among all admission policies (N ≤ 400), by the
    exact optimality equations.
``lossnet.online_optimum``
    trunk reservation with the certified reserve k* is optimal among all admission
    policies and the only optimal reserve, R_on and R_fluid − R_on enclosed, at any N.
``lossnet.regret_identity``
    R_fluid − R_on = r_L μ E[idle] + (r_H − r_L) λ_H N P(full) (Sympy identity), both
    sides enclosed at the optimal trunk reserve.
``walks.sss_failure_bound``
    the SSS failure bound B_1 lies above the exact failure probability sup_h ε_h after
    an admission that leaves h servers idle, for the window W = c log N/N; ball
    arithmetic (N ≤ 10⁴).
``walks.ruin``
    the ruin probability P_i(hit 0 before b) of the idle process lies between the
    bounds of the walks with p_∞ and p_b, and below (q_b/p_b)^i; decided in exact
    rationals.

Names may be written with ``-`` or ``_`` (``lossnet.regret-identity``).  Parameters are
read as the exact decimals typed (``0.6`` is 3/5) by the certified routes.  Exit status
0 when the claim holds, 1 when it does not (or cannot be certified), 2 on bad input (a
missing, unknown or out-of-range option, named in the message).

Text output prints the mathematics in Unicode (``σ_GA < λ/μ``,
:func:`qtheory.core.notation.terminal`); ``--json`` prints the record as one JSON
object (:func:`claim_json`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from qtheory.core.arguments import dps_arg, positive_int_arg, real_arg
from qtheory.core.notation import terminal

if TYPE_CHECKING:  # qtheory.core.claims imports scipy.stats: only when a check runs
    from qtheory.core.claims import Claim

__all__ = [
    "CHECKS",
    "OPTIONS",
    "canonical_name",
    "certificate_file",
    "check",
    "claim_json",
    "claim_text",
    "parse_region",
]

#: The scope of every claim checked here.
SCOPE = "at the given parameters"


@dataclass(frozen=True)
class _Check:
    summary: str
    required: tuple[str, ...]
    optional: tuple[str, ...]
    function: Callable[..., Claim]
    #: (params, region, dps) -> Claim over a region of parameters, where supported.
    region: Callable[..., Claim] | None = None


#: Command-line option and help of every parameter (Python name -> (option, help, type)).
OPTIONS = {
    "arrival_rate": ("--arrival-rate", "potential arrival rate Λ ('inf' allowed)", str),
    "service_rate": ("--service-rate", "service rate μ of the gated queue", str),
    "reward": ("--reward", "reward R per served customer", str),
    "cost": ("--cost", "cost C per customer per unit time", str),
    "load": ("--load", "gated.dominance: the load λ/μ in (0, 1) (default: GA's optimum)", str),
    "servers": ("--servers", "number of servers N", positive_int_arg),
    "lambda_h": ("--lambda-h", "per-server arrival rate λ_H of class H", real_arg),
    "lambda_l": ("--lambda-l", "per-server arrival rate λ_L of class L", real_arg),
    "mu": ("--mu", "service rate μ of the loss network", real_arg),
    "r_h": ("--r-h", "reward r_H of class H", real_arg),
    "r_l": ("--r-l", "reward r_L of class L", real_arg),
    "level": ("--level", "walks.ruin: start level i of the idle process", positive_int_arg),
    "band": ("--band", "walks.ruin: barrier b (default floor(sqrt N))", positive_int_arg),
    "window": ("--window", "walks.sss_failure_bound: c of the window W = c log N/N", real_arg),
    "dps": ("--dps", "digits of the enclosures (default 30; 20 for lossnet)", dps_arg),
}

_GATED = ("arrival_rate", "service_rate", "reward", "cost")
_LOSSNET = ("servers", "lambda_h", "lambda_l", "mu", "r_h", "r_l")


def canonical_name(name: object) -> str:
    """The key of a checkable claim in :data:`CHECKS`: ``name`` with ``-`` read as ``_``.

    Parameters
    ----------
    name : str
        A claim name as typed, e.g. ``lossnet.regret-identity``.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If ``name`` is not a string or names no checkable claim.

    Examples
    --------
    >>> canonical_name(" lossnet.regret-identity")
    'lossnet.regret_identity'
    """
    if not isinstance(name, str):
        raise ValueError(f"name must be a claim name (see qtheory check --list), got {name!r}")
    key = name.strip().replace("-", "_")
    if key not in CHECKS:
        raise ValueError(
            f"name must be one of {', '.join(CHECKS)} (qtheory check --list), got {name!r}"
        )
    return key


def _interval(enclosure) -> str:
    return f"[{enclosure.lower}, {enclosure.upper}]"


def _given(params: Mapping[str, object]) -> str:
    return ", ".join(f"{name} = {value}" for name, value in params.items())


def _queue(params):
    from qtheory.model.gated import GatedQueue

    return GatedQueue(*(params[name] for name in _GATED))


def _optimum(params, dps):
    from qtheory.gated.certified import certified_optimum

    return certified_optimum(_queue(params), dps=dps)


def _gated_hypotheses():
    from qtheory.gated.claims import MODEL, NU_ABOVE_ONE

    return (MODEL, NU_ABOVE_ONE)


def _optimal_gate(params, dps):
    from qtheory.gated.welfare import optimal_gate

    opt = _optimum(params, dps)
    floats = [math.inf if str(v).strip().lower() == "inf" else float(v)
              for v in (params[name] for name in _GATED)]  # fmt: skip
    from qtheory.model.gated import GatedQueue

    gate64 = float(optimal_gate(GatedQueue(*floats)).gate)
    parts = ", ".join(
        f"{label} in {_interval(e)}"
        for label, e in zip(
            (r"\sigma^*", r"\tau^*", r"S_{\mathrm{GA}}^*", r"\lambda^*", r"S_{\mathrm{RR}}^*",
             r"\mathrm{PoF}"),
            (opt.root, opt.gate, opt.welfare_ga, opt.rate_rr, opt.welfare_rr,
             opt.price_of_forgetting),
            strict=True,
        )
    )  # fmt: skip
    return _claim(
        name="gated.optimal_gate",
        statement=(
            r"$S_{\mathrm{GA}}(\tau)$ has a unique maximiser $\tau^*$ over $\tau \ge 0$"
            + (" (the gate constraint binds, $\\tau^* = 0$)" if opt.at_boundary else "")
            + f"; certified ({dps} digits): ${parts}$"
        ),
        kind="certified",
        passed=True,
        origin="PACKAGE",
        hypotheses=_gated_hypotheses(),
        scope=f"{SCOPE}: {_given({n: params[n] for n in _GATED})}",
        quantity=r"$\tau^*$ (enclosure midpoint; reference: the float64 optimum)",
        value=opt.gate.midpoint,
        reference=gate64,
        certificate=opt.certificate,
    )


def _claim(kind: str, origin: str, **fields) -> Claim:
    from qtheory.core.claims import Claim, Evidence, Origin

    return Claim(kind=Evidence(kind), origin=Origin[origin], **fields)


def _pof(params, dps):
    from qtheory.gated.certified import grid_point

    opt = _optimum(params, dps)
    exact_one = opt.at_boundary and opt.routing_at_boundary
    low = Fraction(opt.price_of_forgetting.lower)
    return _claim(
        name="gated.pof_at_least_one",
        statement=(
            r"memory never hurts: $\mathrm{PoF} = S_{\mathrm{GA}}^*/S_{\mathrm{RR}}^* \ge 1$; "
            rf"certified $\mathrm{{PoF}} \in {_interval(opt.price_of_forgetting)}$"
            + (" (exactly 1: both rules admit everybody)" if exact_one else "")
        ),
        kind="certified",
        passed=bool(exact_one or low >= 1),
        origin="PAPER",
        citation="[HR26]",
        hypotheses=_gated_hypotheses(),
        scope=f"{SCOPE}: {_given({n: params[n] for n in _GATED})}",
        quantity=r"$\mathrm{PoF}$ (lower end of its enclosure)",
        value=float(low),
        reference=1.0,
        certificate={"checker": "gated.pof_grid", "data": {"points": [grid_point(opt)]}},
    )


def _remainder(params, dps, regime):
    queue = _queue(params)
    from qtheory.gated import remainder

    if regime == "light":
        remainder.require_light_hypotheses(queue)
        point = remainder.light_remainder(queue, dps=dps)
        hypothesis, bound = remainder.LIGHT_HYPOTHESIS, remainder.LIGHT_BOUND
    else:
        remainder.require_heavy_hypotheses(queue)
        point = remainder.heavy_remainder(queue, dps=dps)
        hypothesis, bound = remainder.HEAVY_HYPOTHESIS, remainder.HEAVY_BOUND
    return _claim(
        name=f"gated.pof_{regime}_rate",
        statement=(
            f"at this point {bound}; certified ({dps} digits): left side in "
            f"${_interval(point.remainder)}$, right side in ${_interval(point.bound)}$ "
            rf"($\mathrm{{PoF}} \in {_interval(point.optimum.price_of_forgetting)}$)"
        ),
        kind="certified",
        passed=point.holds,
        origin="PACKAGE",
        hypotheses=_gated_hypotheses()[:1] + (hypothesis,),
        scope=f"{SCOPE}: {_given({n: params[n] for n in _GATED})}",
        quantity=(
            r"the remainder $|\mathrm{ratio} - 1|$ (upper end of its enclosure; reference: "
            "the lower end of the bound's)"
        ),
        value=float(Fraction(point.remainder.upper)),
        reference=float(Fraction(point.bound.lower)),
        certificate=point.certificate,
        reason=(
            ""
            if point.decided
            else f"the enclosures of both sides overlap at {dps} digits: not certified "
            "either way (raise --dps)"
        ),
    )


def _light_rate(params, dps):
    return _remainder(params, dps, "light")


def _heavy_rate(params, dps):
    return _remainder(params, dps, "heavy")


def _dominance(params, dps):
    from qtheory.core.enclosure import exact
    from qtheory.gated.certified import certified_dominance
    from qtheory.gated.gim1_root import root

    arrival, mu_text = str(params["arrival_rate"]).strip(), str(params["service_rate"])
    mu = exact(mu_text, name="service_rate")
    if not mu > 0:
        raise ValueError(f"service_rate must be > 0, got {mu_text!r}")
    infinite = arrival.lower() in ("inf", "+inf", "infinity")
    big = None if infinite else exact(arrival, name="arrival_rate")
    if big is not None and not big > 0:
        raise ValueError(f"arrival_rate must be > 0, got {arrival!r}")
    if params.get("load") is not None:
        load_text = str(params["load"]).strip()
        load = exact(load_text, name="load")
        where = "the given load"
    else:
        for name in ("reward", "cost"):
            if params.get(name) is None:
                raise ValueError(
                    f"{name} is required by gated.dominance unless load is given "
                    f"({OPTIONS[name][0]} or --load)"
                )
        opt = _optimum(params, dps)
        if opt.at_boundary:
            raise ValueError(
                "load must be given: at these parameters the optimal gate is 0 (GA admits "
                "everybody, as RR does), so GA's optimum has no gate to compare"
            )
        load_text = str(Fraction(opt.throughput.lower) / Fraction(str(mu)))
        load = exact(load_text, name="load")
        where = "GA's optimal throughput, lower end of its enclosure"
    if not 0 < load < 1:
        raise ValueError(f"load must be in (0, 1) (a stable queue), got {load_text!r}")
    if big is not None and not load * mu < big:
        raise ValueError(f"load must be below Λ/μ (a positive gate), got {load_text!r}")
    rho = Fraction(int(load.p), int(load.q))
    passed, certificate = certified_dominance(
        [load_text], ["inf" if infinite else str(big)], service_rate=str(mu)
    )
    mu_f = float(Fraction(int(mu.p), int(mu.q)))
    lam = float(rho) * mu_f
    gate = 1 / lam - (0.0 if infinite else 1 / float(Fraction(int(big.p), int(big.q))))
    sigma = float(root(gate, math.inf if infinite else float(Fraction(int(big.p), int(big.q))),
                       mu_f))  # fmt: skip
    return _claim(
        name="gated.dominance",
        statement=(
            r"at equal throughput $\lambda$, GA's root is below RR's load, "
            r"$\sigma_{\mathrm{GA}} < \lambda/\mu$, so GA's sojourn time is stochastically "
            rf"smaller; checked at $\lambda/\mu = {float(rho):.12g}$ ({where}), gate "
            r"$\tau = 1/\lambda - 1/\Lambda$, by the sign of the convex root residual "
            r"$f(\lambda/\mu) < 0$ in Arb"
        ),
        kind="certified",
        passed=bool(passed),
        origin="PAPER",
        citation="[HR26]",
        hypotheses=_gated_hypotheses()[:1]
        + (r"$\lambda < \mu$ (stable), $\tau = 1/\lambda - 1/\Lambda > 0$",),
        scope=f"{SCOPE}: {_given({n: params[n] for n in _GATED if params.get(n) is not None})}",
        quantity=r"$\sigma_{\mathrm{GA}}$ (float64; reference: $\lambda/\mu$)",
        value=sigma,
        reference=float(rho),
        certificate=certificate,
    )


def _network(params):
    from qtheory.model.lossnet import LossNetwork

    return LossNetwork(*(params[name] for name in _LOSSNET))


def _lossnet_scope(params):
    return f"{SCOPE}: {_given({n: params[n] for n in _LOSSNET})}"


def _fluid(params, dps):
    from dataclasses import replace

    from qtheory.lossnet.claims import fluid_claim

    return replace(fluid_claim(_network(params)), scope=_lossnet_scope(params))


def _trunk(params, dps):
    from dataclasses import replace

    net = _network(params)  # the values checked before the claim's code loads
    from qtheory.lossnet.certified import MAX_EXACT_SERVERS

    if params["servers"] > MAX_EXACT_SERVERS:
        raise ValueError(
            f"servers must be <= {MAX_EXACT_SERVERS} for the exact optimality equations, "
            f"got {params['servers']}"
        )
    from qtheory.lossnet.claims import trunk_reservation_claim

    claim = trunk_reservation_claim(net)
    return replace(claim, scope=_lossnet_scope(params))


def _online(params, dps):
    from dataclasses import replace

    from qtheory.lossnet.claims import online_optimum_claim

    claim = online_optimum_claim(_network(params), [params["servers"]], dps=dps)
    return replace(claim, scope=_lossnet_scope(params))


def _regret(params, dps):
    from qtheory.core.enclosure import Enclosure, exact
    from qtheory.lossnet.certified import certified_online_optimum
    from qtheory.lossnet.claims import OVERLOADED, regret_identity_claim

    net = _network(params)
    identity = regret_identity_claim()
    opt = certified_online_optimum(net, dps=dps)

    def frac(value) -> Fraction:
        q = exact(value)
        return Fraction(int(q.p), int(q.q))

    r_h, r_l, lam, mu = (frac(params[n]) for n in ("r_h", "r_l", "lambda_h", "mu"))
    n = params["servers"]

    def rhs(end: str) -> Fraction:
        idle, full = Fraction(getattr(opt.mean_idle, end)), Fraction(getattr(opt.prob_full, end))
        return r_l * mu * idle + (r_h - r_l) * lam * n * full  # coefficients > 0: monotone

    low, high = rhs("lower"), rhs("upper")
    left_low, left_high = Fraction(opt.regret.lower), Fraction(opt.regret.upper)
    overlap = left_low <= high and low <= left_high
    return _claim(
        name="lossnet.regret_identity",
        statement=(
            r"$R_{\mathrm{fluid}} - R_{\mathrm{on}} = r_L\mu\,E[\mathrm{idle}] + (r_H - r_L)"
            r"\lambda_H N\,P(\mathrm{full})$ (proved by Sympy for every policy that admits H "
            rf"whenever a server is idle); at the optimal reserve $k^* = {opt.reserve}$ the "
            rf"left side is in ${_interval(opt.regret)}$ and the right side in "
            rf"${_interval(Enclosure.from_bounds(low, high, dps))}$ "
            f"({dps}-digit enclosures)"
        ),
        kind="identity",
        passed=bool(identity.passed and overlap),
        origin="PACKAGE",
        hypotheses=OVERLOADED + identity.hypotheses,
        scope=_lossnet_scope(params),
        quantity=r"$R_{\mathrm{fluid}} - R_{\mathrm{on}}$ (reference: the right side)",
        value=opt.regret.midpoint,
        reference=float((low + high) / 2),
        tolerance=float(max(left_high, high) - min(left_low, low)),
    )


def _ruin(params, dps):
    n, level, band = params["servers"], params["level"], params.get("band")
    if n < 4:
        raise ValueError(f"servers must be >= 4 for walks.ruin, got {n}")
    top = math.isqrt(n) if band is None else band
    if band is not None and not 2 <= band <= n - 1:
        raise ValueError(f"band must be in 2..{n - 1} (servers - 1), got {band}")
    if not 1 <= level <= top - 1:
        raise ValueError(f"level must be in 1..{top - 1} (barrier b - 1), got {level}")
    from qtheory.walks.certify import certify
    from qtheory.walks.idle import IdleWalk
    from qtheory.walks.ruin import ruin_checks

    walk = IdleWalk(n, params["lambda_h"], params["mu"])
    checks = ruin_checks(walk, [level], band)
    lambda_l = params.get("lambda_l") or params["mu"]  # the idle process ignores L
    done, certificate = certify(checks, params["lambda_h"], params["mu"], lambda_l)
    if len(done) != len(checks):
        raise ArithmeticError("a ruin bound carries no spec to certify")
    labels = ("upper bound of the walk with $p_b$", "lower bound of the walk with "
              r"$p_\infty$", r"upper bound $(q_b/p_b)^i$ of the unbounded walk")  # fmt: skip
    sides = "; ".join(
        f"{label}: ${_interval(c.bound)}$" for label, c in zip(labels, done, strict=True)
    )
    return _claim(
        name="walks.ruin",
        statement=(
            rf"the ruin probability $P_i(\text{{hit }} 0 \text{{ before }} b)$ of the "
            rf"reject-all-L idle process at $i = {level}$, $b = {top}$ lies in "
            rf"${_interval(done[0].exact)}$ and on the right side of each bound: {sides}"
        ),
        kind="certified",
        passed=all(c.certified for c in done),
        origin="PAPER",
        citation="[Bra26]",
        hypotheses=(
            r"$\lambda_H < \mu$; the idle process of N servers that rejects every L "
            r"job, started at $i$ idle servers",
        ),  # fmt: skip
        scope=f"{SCOPE}: N = {n}, lambda_h = {params['lambda_h']}, mu = {params['mu']}, "
        f"i = {level}, b = {top}",
        quantity=r"$P_i(\text{hit } 0 \text{ before } b)$ (reference: the $p_b$ upper bound)",
        value=done[0].check.exact,
        reference=done[0].check.bound,
        certificate=certificate,
    )


def parse_region(text: str) -> dict[str, tuple[str, str]]:
    """The ranges of ``--region 'reward=1.001:1000,arrival_rate=0.5:inf'``.

    Parameters
    ----------
    text : str
        Comma-separated ``name=lower:upper`` (names as the Python parameters or the
        options without ``--``).

    Returns
    -------
    dict of str to (str, str)

    Raises
    ------
    ValueError
        Naming ``--region`` and what is wrong.

    Examples
    --------
    >>> parse_region("reward=1.001:1000, arrival-rate=0.5:inf")
    {'reward': ('1.001', '1000'), 'arrival_rate': ('0.5', 'inf')}
    >>> parse_region("arrival_rate=inf:inf")  # the degenerate range: Λ = ∞ fixed
    {'arrival_rate': ('inf', 'inf')}
    >>> parse_region("reward=3:2")
    Traceback (most recent call last):
    ...
    ValueError: --region: reward=3:2 needs lower <= upper
    """
    from qtheory.core.precision import decimal_fraction

    ranges: dict[str, tuple[str, str]] = {}
    for part in (p.strip() for p in str(text).split(",") if p.strip()):
        name, _, span = part.partition("=")
        key = name.strip().replace("-", "_")
        low, colon, high = span.partition(":")
        if key not in _GATED or not colon:
            raise ValueError(
                f"--region: {part!r} must be NAME=LOWER:UPPER with NAME one of {', '.join(_GATED)}"
            )
        if key in ranges:
            raise ValueError(f"--region: {key} is given twice")
        lower, upper = (decimal_fraction(t, name=f"--region {key}") for t in (low, high))
        if upper is not None and (lower is None or upper < lower):  # None is inf: inf:inf holds
            raise ValueError(f"--region: {part} needs lower <= upper")
        ranges[key] = (low.strip(), high.strip())
    if not ranges:
        raise ValueError("--region: give at least one NAME=LOWER:UPPER")
    return ranges


def _box(params, region) -> dict[str, list[str]]:
    """Every gated parameter as a range: the region's, else the fixed value twice."""
    box = {}
    for name in _GATED:
        if name in region:
            box[name] = list(region[name])
        elif params.get(name) is not None:
            box[name] = [str(params[name])] * 2
        else:
            raise ValueError(f"{name} is required ({OPTIONS[name][0]} or in --region)")
    return box


def _pof_region(params, region, dps):
    from qtheory.core.precision import decimal_fraction
    from qtheory.gated.claims import pof_identity_claim
    from qtheory.verify import CertificateError
    from qtheory.verify.gated import check_pof_region
    from qtheory.verify.statements import certificate, render

    def exact(text):
        value = decimal_fraction(text, name="--region")
        return "inf" if value is None else str(value)

    data = {"box": {k: [exact(t) for t in ends] for k, ends in _box(params, region).items()}}
    try:
        check_pof_region(data)
    except CertificateError as error:
        rule = "rates in (0, inf], only Lambda infinite, nu > 1"
        raise ValueError(f"the region leaves the hypotheses ({rule}): {error}") from None
    identity = pof_identity_claim()
    return _claim(
        name="gated.pof_at_least_one",
        statement=render("gated.pof_region", data),
        kind="identity",
        passed=identity.passed,
        origin="PAPER",
        citation="[HR26]",
        hypotheses=identity.hypotheses,
        scope="for all points of the region: "
        + ", ".join(f"{k} in [{lo}, {hi}]" for k, (lo, hi) in data["box"].items()),
        certificate=certificate("gated.pof_region", "gated.pof_region", data),
    )


def _remainder_range(params, region, dps, regime):
    import sys

    from qtheory.core.precision import decimal_fraction
    from qtheory.gated import remainder
    from qtheory.gated.remainder_regions import remainder_region
    from qtheory.verify.statements import certificate, render

    if set(region) != {"reward"}:
        raise ValueError(
            f"--region: gated.pof_{regime}_rate is proved over a range of reward (of nu) "
            "at fixed arrival_rate, service_rate and cost; give only reward=LOWER:UPPER"
        )
    box = _box(params, region)
    mu, cost = (decimal_fraction(box[k][0], name=k) for k in ("service_rate", "cost"))
    ends = [decimal_fraction(t, name="reward") for t in box["reward"]]
    require = getattr(remainder, f"require_{regime}_hypotheses")
    for reward in box["reward"]:  # the hypotheses are monotone in R: both ends suffice
        require(_queue({**params, "reward": reward}))
    nus = [r * mu / cost for r in ends]
    low, high = ((nu - 1) if regime == "light" else nu for nu in nus)
    constant = str(getattr(remainder, f"{regime.upper()}_CONSTANT"))
    proof = remainder_region(regime, box["arrival_rate"][0], mu, cost, low, high,
                             constant=constant, progress=sys.stderr.isatty())  # fmt: skip
    variable = "epsilon = nu - 1" if regime == "light" else "nu"
    scope = f"for all {variable} in [{low}, {high}]: " + _given(
        {k: box[k][0] for k in ("arrival_rate", "service_rate", "cost")}
    )
    hypothesis = getattr(remainder, f"{regime.upper()}_HYPOTHESIS")
    if not proof.passed:
        return _claim(
            name=f"gated.pof_{regime}_rate",
            statement=f"the {regime}-traffic remainder bound on the whole range",
            kind="numerical",
            passed=False,
            origin="PACKAGE",
            hypotheses=_gated_hypotheses()[:1] + (hypothesis,),
            scope=scope,
            reason=f"a box narrower than 1e-9 relative near {variable} = {proof.failed_at} "
            "could not be decided: the bound is not proved there",
        )
    data = {"regime": regime, "constant": constant, "regions": [proof.data]}
    return _claim(
        name=f"gated.pof_{regime}_rate",
        statement=render("gated.remainder_region", data),
        kind="certified",
        passed=True,
        origin="PACKAGE",
        hypotheses=_gated_hypotheses()[:1] + (hypothesis,),
        scope=scope + f" ({proof.boxes} boxes)",
        quantity=r"largest scaled remainder $|\mathrm{ratio} - 1|/r$ at the box ends "
        "(reference: the constant K)",
        value=proof.worst,
        reference=float(Fraction(constant)),
        certificate=certificate("gated.remainder_region", "regions.remainder", data),
    )


def _light_range(params, region, dps):
    return _remainder_range(params, region, dps, "light")


def _heavy_range(params, region, dps):
    return _remainder_range(params, region, dps, "heavy")


#: The claim names of the certificates that a check produces without one.
_CERTIFICATE_NAMES = {
    "gated.pof_grid": "gated.pof_grid",
    "gated.dominance": "gated.dominance_grid",
    "walks.bounds": "walks.bound_items",
    "lossnet.fluid": "lossnet.fluid_lp",
    "lossnet.online": "lossnet.online",
    "lossnet.optimality": "lossnet.optimality",
}


def certificate_file(claim: Claim) -> dict:
    """The certificate of a checked claim as ``qtheory check --certificate`` writes it:
    claim name, statement rendered from the data, checker, data and provenance.

    Parameters
    ----------
    claim : qtheory.core.claims.Claim
        A claim that carries a certificate.

    Returns
    -------
    dict

    Raises
    ------
    ValueError
        If the claim carries no certificate.

    Examples
    --------
    >>> claim = check("lossnet.fluid", servers=100, lambda_h=0.6, lambda_l=0.8, mu=1,
    ...               r_h=2, r_l=1)
    >>> sorted(certificate_file(claim)), certificate_file(claim)["claim"]
    (['checker', 'claim', 'data', 'provenance', 'statement'], 'lossnet.fluid_lp')
    """
    from qtheory.core.provenance import provenance
    from qtheory.verify.statements import certificate

    if claim.certificate is None:
        raise ValueError(f"--certificate: {claim.name} carries no certificate here")
    checker, data = claim.certificate["checker"], claim.certificate["data"]
    name = claim.certificate.get("claim") or _CERTIFICATE_NAMES[checker]
    return {**certificate(name, checker, data), "provenance": provenance()}


#: The largest N of walks.sss_failure_bound (its exact side is a transient of the full
#: N-server chain; the checker reads up to 10^5).
SSS_MAX_SERVERS = 10_000


def _sss(params, dps):
    from qtheory.model.lossnet import LossNetwork

    n, c = params["servers"], params["window"]
    if n > SSS_MAX_SERVERS:
        raise ValueError(
            f"servers must be <= {SSS_MAX_SERVERS} for walks.sss_failure_bound, got {n}"
        )
    if not (math.isfinite(c) and c > 0):
        raise ValueError(f"window must be a positive number, got {c!r}")
    net = LossNetwork(n, params["lambda_h"], params["lambda_l"], params["mu"], 2.0, 1.0)
    from qtheory.walks import sss
    from qtheory.walks.bounds import BoundCheck
    from qtheory.walks.certify import certify

    bound = sss.failure_bound(net, c)
    if not bound.total < 1:
        raise ValueError(
            f"window: at c = {c:g} and N = {n} the failure bound B_1 is the trivial 1 "
            "(c N too small); a larger window or N gives a bound that says something"
        )
    exact = float(sss.failure_probabilities(net, c).max())
    spec = {"family": "sss", "N": n, "c": repr(c), "h": 1, "m": bound.level}
    check_ = BoundCheck("SSS", n, f"c={c:g}", "upper", bound.total, exact, spec=spec)
    [done], certificate = certify([check_], params["lambda_h"], params["mu"], params["lambda_l"])
    return _claim(
        name="walks.sss_failure_bound",
        statement=(
            r"the SSS failure bound $B_1$ lies above the exact failure probability "
            r"$\max_h \varepsilon_h$ after an admission that leaves $h$ servers idle, "
            rf"window $W = c\log N/N$ with $c = {c:g}$: $B_1 \in {_interval(done.bound)}$, "
            rf"$\max_h \varepsilon_h \in {_interval(done.exact)}$"
        ),
        kind="certified",
        passed=done.certified,
        origin="PACKAGE",
        hypotheses=(r"$\lambda_H < \mu < \lambda_H + \lambda_L$ (overloaded)",),
        scope=f"{SCOPE}: N = {n}, lambda_h = {params['lambda_h']}, "
        f"lambda_l = {params['lambda_l']}, mu = {params['mu']}, c = {c:g}",
        quantity=r"$\max_h \varepsilon_h$ (reference: the bound $B_1$)",
        value=exact,
        reference=bound.total,
        certificate=certificate,
    )


#: Name -> the check: one-line summary, required and optional parameters, function.
CHECKS: dict[str, _Check] = {
    "gated.optimal_gate": _Check(
        "S_GA(tau) has a unique maximiser tau*; sigma*, tau*, S_GA*, lambda*, S_RR*, PoF "
        "certified in intervals", _GATED, ("dps",), _optimal_gate),
    "gated.pof_at_least_one": _Check(
        "memory never hurts: PoF = S_GA*/S_RR* >= 1, certified at a point; over a --region "
        "by the dominance identity", _GATED, ("dps",), _pof, _pof_region),
    "gated.pof_light_rate": _Check(
        "|PoF eps log(1/eps)/4 - 1| <= (3/2) loglog(1/eps)/log(1/eps) for nu = 1 + eps, "
        "0 < eps <= 1/10, Lambda >= 6mu/5, certified at a point or over a --region of "
        "reward", _GATED, ("dps",), _light_rate, _light_range),
    "gated.pof_heavy_rate": _Check(
        "|(PoF - 1) sqrt(nu)/(2(1 - sqrt m)) - 1| <= (5/2)/sqrt(nu) for nu >= 4, "
        "Lambda >= 2mu, certified at a point or over a --region of reward", _GATED,
        ("dps",), _heavy_rate, _heavy_range),
    "gated.dominance": _Check(
        "at equal throughput sigma_GA < lambda/mu (GA's sojourn stochastically smaller), "
        "certified", ("arrival_rate", "service_rate"), ("reward", "cost", "load", "dps"),
        _dominance),
    "lossnet.fluid": _Check(
        "the fluid LP optimum is N[r_H lambda_H + r_L(mu - lambda_H)], exact duality",
        _LOSSNET, (), _fluid),
    "lossnet.trunk_reservation": _Check(
        "trunk reservation with k* is optimal among all policies (N <= 400), exact "
        "optimality equations", _LOSSNET, (), _trunk),
    "lossnet.online_optimum": _Check(
        "trunk reservation with the certified reserve k* is the unique optimum among all "
        "policies, R_on and the regret enclosed, any N (Arb, O(k* + T) work)", _LOSSNET,
        ("dps",), _online),
    "lossnet.regret_identity": _Check(
        "R_fluid - R_on = r_L mu E[idle] + (r_H - r_L) lambda_H N P(full) (Sympy identity, "
        "both sides enclosed)", _LOSSNET, ("dps",), _regret),
    "walks.sss_failure_bound": _Check(
        "the SSS failure bound B_1 lies above the exact failure probability sup_h eps_h "
        "(N <= 10^4), ball arithmetic", ("servers", "lambda_h", "lambda_l", "mu", "window"),
        (), _sss),
    "walks.ruin": _Check(
        "P_i(hit 0 before b) lies between the p_inf and p_b walk bounds and below "
        "(q_b/p_b)^i, exact rationals", ("servers", "lambda_h", "mu", "level"),
        ("band", "lambda_l"), _ruin),
}  # fmt: skip

_DEFAULT_DPS = {"lossnet.regret_identity": 20, "lossnet.online_optimum": 20}


def check(name: str, *, region: Mapping[str, tuple] | None = None, **params: object) -> Claim:
    """Check the claim ``name`` at the given parameters, or over a region of them.

    Parameters
    ----------
    name : str
        A name of :data:`CHECKS` (``-`` and ``_`` are interchangeable).
    **params
        The claim's parameters by their Python names (``arrival_rate``,
        ``service_rate``, ``reward``, ``cost``, ``load``; ``servers``, ``lambda_h``,
        ``lambda_l``, ``mu``, ``r_h``, ``r_l``; ``level``, ``band``; ``dps``).  Numbers or
        decimal strings; the certified routes read them as the exact decimals they print
        as.
    region : mapping, keyword-only, optional
        Parameter name -> (lower, upper) (:func:`parse_region`): check the claim for every
        point of the box, the other parameters fixed by ``params``.  Supported by
        ``gated.pof_at_least_one`` (by identity) and the two remainder claims (a range
        of ``reward``, by boxes).

    Returns
    -------
    qtheory.core.claims.Claim
        The record, with scope ``"at the given parameters: ..."``.

    Raises
    ------
    ValueError
        Naming the parameter: an unknown name, a missing or unknown parameter, or a value
        out of range (ν ≤ 1, a network that is not overloaded, a level beyond the
        barrier, a point outside a remainder bound's hypotheses).
    ArithmeticError
        If a certified route cannot decide at the precision limit.

    Examples
    --------
    Λ = ∞, μ = C = 1, R = 4: S_RR* = C(√ν − 1)² = 1, so PoF = S_GA* = 1.529614:

    >>> claim = check("gated.pof_at_least_one", arrival_rate="inf", service_rate=1,
    ...               reward=4, cost=1)
    >>> claim.passed, str(claim.kind), round(claim.value, 6)
    (True, 'certified', 1.529614)
    >>> claim = check("lossnet.fluid", servers=100, lambda_h=0.6, lambda_l=0.8, mu=1,
    ...               r_h=2, r_l=1)
    >>> claim.passed, claim.value  # 100 (2 * 0.6 + 1 * 0.4)
    (True, 160.0)
    >>> check("gated.dominance", arrival_rate="inf")
    Traceback (most recent call last):
    ...
    ValueError: service_rate is required by gated.dominance (--service-rate)
    """
    key = canonical_name(name)
    spec = CHECKS[key]
    given = {k: v for k, v in params.items() if v is not None}
    allowed = spec.required + spec.optional
    for param in given:
        if param not in allowed:
            raise ValueError(f"{param} is not a parameter of {key} (it takes {', '.join(allowed)})")
    if region is not None and spec.region is None:
        raise ValueError(f"region: {key} is checked at a point only (no --region)")
    for param in spec.required:
        if param not in given and param not in (region or {}):
            raise ValueError(f"{param} is required by {key} ({OPTIONS[param][0]})")
    for param in region or {}:
        if param in given:
            raise ValueError(f"{param} is given both as a value and as a range of the region")
    for param in ("servers", "level", "band"):
        if param in given:
            value = given[param]
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{param} must be an integer >= 1, got {value!r}")
    for param in ("lambda_h", "lambda_l", "mu", "r_h", "r_l"):  # the float models
        if isinstance(given.get(param), str):
            try:
                given[param] = float(given[param])
            except ValueError:
                raise ValueError(f"{param} must be a real number, got {given[param]!r}") from None
    dps = given.pop("dps", _DEFAULT_DPS.get(key, 30))
    from qtheory.core.precision import required_dps

    dps = required_dps(dps)
    _validate(key, given, region)
    if region is not None:
        return spec.region(given, dict(region), dps)
    return spec.function(given, dps)


def _validate(key: str, params: Mapping[str, object], region) -> None:
    """Check the parameter values by the model's own record (GatedQueue, LossNetwork:
    numbers, ranges, ν > 1 where the claim needs it) before the claim's code, with Arb,
    Sympy or the statistics stack behind it, is imported: a typo is reported at once."""
    family = key.partition(".")[0]
    if family == "gated" and region is None and all(params.get(n) is not None for n in _GATED):
        queue = _queue(params)
        if key != "gated.dominance":  # dominance at a given load needs no optimum
            queue.require_worthwhile()
    elif family == "lossnet":
        _network(params)


def claim_json(claim: Claim) -> dict:
    """The record as a JSON-serialisable dict (NaN as None, enums as their values).

    Parameters
    ----------
    claim : qtheory.core.claims.Claim

    Returns
    -------
    dict

    Examples
    --------
    >>> from qtheory.core.claims import Claim, Evidence, Origin
    >>> record = claim_json(Claim(name="x", statement="$1 = 1$", kind=Evidence.IDENTITY,
    ...                           passed=True, origin=Origin.TEXTBOOK))
    >>> record["kind"], record["passed"], record["value"]
    ('identity', True, None)
    """

    def number(value: float):
        return None if value is None or math.isnan(value) else value

    record = {
        "name": claim.name,
        "statement": claim.statement,
        "kind": str(claim.kind),
        "passed": claim.passed,
        "origin": str(claim.origin),
        "citation": claim.citation,
        "hypotheses": list(claim.hypotheses),
        "scope": claim.scope,
        "quantity": claim.quantity,
        "value": number(claim.value),
        "reference": number(claim.reference),
        "tolerance": number(claim.tolerance),
        "reason": claim.reason,
        "certificate": claim.certificate,
    }
    return json.loads(json.dumps(record, default=str))


def claim_text(claim: Claim) -> str:
    """The record as plain text: the claim, its hypotheses, both sides, the verdict and
    the evidence kind; mathematics in Unicode (:func:`qtheory.core.notation.terminal`).

    Parameters
    ----------
    claim : qtheory.core.claims.Claim

    Returns
    -------
    str

    Examples
    --------
    >>> from qtheory.core.claims import Claim, Evidence, Origin
    >>> print(claim_text(Claim(name="demo", statement="$1 + 1 = 2$",
    ...                        kind=Evidence.IDENTITY, passed=True, origin=Origin.TEXTBOOK,
    ...                        quantity="left side", value=2.0, reference=2.0)))
    claim:      demo
    statement:  1 + 1 = 2
    origin:     textbook result
    quantity:   left side
    value:      2
    reference:  2
    verdict:    HOLDS
    evidence:   identity
    """
    rows = [("claim", claim.name), ("statement", terminal(claim.statement))]
    rows += [("hypothesis", terminal(h)) for h in claim.hypotheses]
    origin = str(claim.origin) + (f", {claim.citation}" if claim.citation else "")
    rows += [("scope", terminal(claim.scope))] if claim.scope else []
    rows.append(("origin", origin))
    rows += [("quantity", terminal(claim.quantity))] if claim.quantity else []
    for label in ("value", "reference", "tolerance"):
        value = getattr(claim, label)
        if not math.isnan(value):
            rows.append((label, f"{value:.17g}"))
    rows.append(("verdict", "HOLDS" if claim.passed else "FAILS"))
    rows.append(("evidence", str(claim.kind)))
    if claim.reason:
        rows.append(("reason", claim.reason))
    return "\n".join(f"{label + ':':<11} {text}" for label, text in rows)
