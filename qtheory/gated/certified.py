r"""Certified optimum of the gated queue: Arb enclosures of σ*, τ*, S_GA*, λ*, S_RR* and
PoF, with optimality and uniqueness proved, not assumed.

The welfare is parametrised by :math:`w = -\log\sigma` (σ the GI/M/1 root), in which
the gate is explicit.  With :math:`\sigma = e^{-w}`, :math:`u = \mu(1 - \sigma)`,
:math:`\beta = 1/\Lambda` (0 for :math:`\Lambda = \infty`) and
:math:`C\varepsilon = R\mu - C` (an exact rational, :math:`\varepsilon = \nu - 1`),

.. math::
   \tau(w) = \frac{w - \log(1 + \beta u)}{u},\qquad
   N(w) = R - \frac{C}{u} = \frac{C\varepsilon - R\mu\sigma}{u},\qquad
   D(w) = \tau(w) + \beta,\qquad S(w) = \frac{N(w)}{D(w)}

(:math:`\tau(w)` solves the root equation :math:`\sigma = e^{-u\tau}\Lambda/(\Lambda + u)`
for τ; :math:`D` is the mean admitted inter-arrival time).  With
:math:`h(w) = e^{w} - 1 - w` and :math:`k(y) = \log(1 + y) - y/(1 + y)`, both
:math:`\ge 0`, differentiation gives (Sympy checks all three, ``tests/gated``)

.. math::
   D'(w) = \frac{\mu\sigma\,(h + k(\beta u))}{u^2} > 0,\qquad
   S'(w) = \frac{\mu\sigma}{u^2 D^2}\,G(w),\quad G = C D - N\,(h + k(\beta u)),\qquad
   G'(w) = -N\Bigl(e^{w} - 1 + \frac{\beta^2 u\,\mu\sigma}{(1 + \beta u)^2}\Bigr).

So τ(w) increases strictly (the gates :math:`\tau \ge 0` are the :math:`w \ge w_0`,
:math:`w_0 = \log(\mu\beta)` when :math:`\mu\beta > 1`, else 0); the welfare is positive
only where :math:`N > 0`, i.e. :math:`w > w_N = \log(\nu/(\nu - 1))`; and on
:math:`[w_N, \infty)` the function G, which has the sign of S', *decreases strictly*.
Hence on :math:`[w_L, \infty)`, :math:`w_L = \max(w_0, w_N)`, S has at most one
critical point and it is the unique maximiser.  The certificate is then:

- *interior optimum:* two points :math:`w_L < c_0 < c_1`, a relative
  :math:`10^{-(D+12)}` apart (relative to :math:`w^* - w_0` when that is smaller, so
  that a gate :math:`\tau^*` close to 0 keeps D digits), with
  :math:`G(c_0) > 0 > G(c_1)` decided in ball arithmetic: the maximiser :math:`w^*` is
  unique and lies in :math:`[c_0, c_1]`, and σ*, τ*, S* are enclosed by evaluating the
  formulas on that box;
- *gate constraint binds* (only if :math:`\mu\beta > 1` and :math:`w_0 > w_N`):
  :math:`G(w_0) < 0`, so S decreases on :math:`[w_0, \infty)` and :math:`\tau^* = 0`,
  :math:`\sigma^* = \Lambda/\mu`, :math:`S^* = \Lambda(R - C/(\mu - \Lambda))` exactly.

No grid or cover of the w-axis is needed: the monotonicity of G replaces it (and has
no tail to close).

Random routing: :math:`\lambda^* = \min(\Lambda, \mu - \sqrt{\mu C/R})`, decided exactly
(:math:`\Lambda \ge \mu - \sqrt{\mu C/R}` iff :math:`\mu \le \Lambda` or
:math:`(\mu - \Lambda)^2 \le \mu C / R`); in that interior case
:math:`S_{RR}^* = C(\sqrt\nu - 1)^2 = C\varepsilon^2/(\sqrt\nu + 1)^2`, else
:math:`S_{RR}^* = \Lambda(R - C/(\mu - \Lambda))`.

Everything runs at one Arb precision (the requested digits plus guard digits for
:math:`\log_{10}\nu`, :math:`\log_{10} 1/\varepsilon` and :math:`|\log_{10}\mu/\Lambda|`),
raised (and the bracket tightened) until every enclosure has relative width at most
:math:`10^{-D}`; the certificate records it, and :mod:`qtheory.verify.gated` decides it
again from its data alone.

Examples
--------
>>> opt = certified_optimum(GatedQueue("inf", 1, 2, 1), dps=30)
>>> opt.gate.lower[:10], opt.price_of_forgetting.lower[:10], opt.at_boundary
('2.06358106', '2.17612846', False)
>>> opt.gate.relative_width < 1e-30, opt.certificate["checker"]
(True, 'gated.optimum')

References
----------
.. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026).
.. [2] N. M. Edelson and D. K. Hildebrand, "Congestion tolls for Poisson queuing
   processes", Econometrica 43(1):81-92 (1975).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import flint
from flint import arb, fmpq

from qtheory.core import limits
from qtheory.core.enclosure import Enclosure, exact
from qtheory.core.precision import required_dps
from qtheory.gated import _generated
from qtheory.model.gated import GatedParameters, GatedQueue, checked_queue
from qtheory.verify import statements

if TYPE_CHECKING:
    import sympy

__all__ = [
    "AsymptoticGrid",
    "CertifiedOptimum",
    "Undecided",
    "ball_fraction",
    "certified_asymptotics",
    "certified_dominance",
    "certified_enclosure",
    "certified_optimum",
    "grid_point",
    "point_ball",
    "rounded_decimal",
    "uniqueness_identities",
    "welfare_terms",
    "with_rising_precision",
]

#: Relative distance of the bracket points from w*, in units of 10^-dps.
BRACKET_DIGITS = 12
#: Attempts before giving up; each raises the precision 1.5-fold and tightens the
#: bracket of w* by 10^-8.
MAX_ATTEMPTS = 6

VALUE_NAMES = (
    "root",
    "gate",
    "throughput",
    "welfare_ga",
    "rate_rr",
    "welfare_rr",
    "price_of_forgetting",
)


def welfare_terms(w: arb, params: GatedParameters[fmpq]) -> dict[str, arb]:
    """σ, τ, S, G, G' and D' at a ball ``w`` (the formulas of the module docstring).

    Every returned ball contains the value at every point of ``w``, so a sign decided
    here holds on the whole ball.  G has the sign of S'(w).

    S is the derivation's welfare (``welfare_ga`` of
    :class:`qtheory.gated.derivation.GatedFormulas`) through its generated Arb evaluator.
    τ, G, G' and D' are written here in the cancellation-free form whose identities
    :func:`uniqueness_identities` proves (N = (Cε − Rμσ)/u with Cε exact, h + k as two
    non-negative differences): the
    derivation's G = u²/(μσ)·(N'D − ND'), G' and τ' evaluated in Arb enclose the same
    values (``tests/gated/test_certified.py``) but with other roundings, and the
    maximiser's Newton iterate, hence a certificate's bracket digits, follow the last
    bits of G, G', τ and τ' (the derivation's forms changed the bracket of 3 of the 5
    optima of the committed ``gated.optimal_gate`` certificate).  At a point near
    ν = 1 the generated S is wider than N/D (it forms R − C/μ: about log2(1/ε) bits
    fewer), which is harmless: S is only read on the bracket of w*, whose own width
    dominates.

    Parameters
    ----------
    w : flint.arb
        A ball of values of w = −log σ > 0.
    params : GatedParameters of flint.fmpq
        The exact parameters (:meth:`GatedQueue.exact_parameters`).

    Returns
    -------
    dict
        Keys ``"sigma"``, ``"tau"``, ``"S"``, ``"G"``, ``"G1"`` and ``"D1"`` = τ'(w)
        (flint.arb).

    Examples
    --------
    Λ = ∞, μ = C = 1, R = 2: S(w) = (1 − 2e^{−w})/w, so S(1) = 1 − 2/e:

    >>> terms = welfare_terms(arb(1), GatedQueue("inf", 1, 2, 1).exact_parameters())
    >>> round(float(terms["S"].mid()), 12), round(1 - 2 / math.e, 12)
    (0.264241117657, 0.264241117657)
    """
    mu, beta, reward, cost = (arb(v) for v in (params.mu, params.beta, params.reward, params.cost))
    sigma = (-w).exp()
    u = -mu * (-w).expm1()  # μ(1 − σ) without cancellation
    y = beta * u
    n = (arb(params.net) - reward * mu * sigma) / u  # Cε exact: no cancellation near ν = 1
    tau = (w - y.log1p()) / u
    hk = (w.expm1() - w) + (y.log1p() - y / (1 + y))  # h(w) + k(βu)
    return {
        "sigma": sigma,
        "tau": tau,
        "S": _generated.welfare_ga_arb(w, mu, beta, reward, cost),
        "G": cost * (tau + beta) - n * hk,
        "G1": -n * (w.expm1() + beta * y * mu * sigma / (1 + y) ** 2),
        "D1": mu * sigma * hk / (u * u),
    }


def rounded_decimal(value: Fraction, digits: int) -> str:
    """``value`` rounded to about ``digits`` significant digits (its magnitude read from
    the lengths of numerator and denominator, so one digit fewer at times), as
    ``"<int>e<exp>"``.

    Parameters
    ----------
    value : fractions.Fraction
    digits : int

    Returns
    -------
    str

    Examples
    --------
    >>> rounded_decimal(Fraction(2, 3), 4), rounded_decimal(Fraction(0), 4)
    ('667e-3', '0')
    """
    if value == 0:
        return "0"
    shift = digits - 1 - (len(str(abs(value.numerator))) - len(str(value.denominator)))
    return f"{round(value * Fraction(10) ** shift)}e{-shift}"


def ball_fraction(ball: arb) -> Fraction:
    """The exact midpoint of ``ball``.

    Parameters
    ----------
    ball : flint.arb

    Returns
    -------
    fractions.Fraction

    Examples
    --------
    >>> ball_fraction(arb(3) / 4)
    Fraction(3, 4)
    """
    man, exp = ball.mid().man_exp()
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def point_ball(text: str) -> arb:
    """The exact ball of a decimal or fraction ``text`` (a bracket point).

    Parameters
    ----------
    text : str

    Returns
    -------
    flint.arb

    Examples
    --------
    >>> point_ball("125e-3").is_exact(), float(point_ball("125e-3"))
    (True, 0.125)
    """
    value = Fraction(text)
    return arb(fmpq(value.numerator, value.denominator))


class Undecided(ArithmeticError):
    """This precision could not decide a step; the caller raises the precision.

    Examples
    --------
    >>> issubclass(Undecided, ArithmeticError)
    True
    """


def _maximiser(lo: arb, params: GatedParameters[fmpq]) -> arb:
    """w* (a midpoint, no claim) above lo = w_L, where G > 0 and G decreases: doubling
    to a bracket [lo, hi] with G(lo) > 0 >= G(hi), then Newton on G's root at the working
    precision (on H of :func:`_newton_step`), safeguarded by the bracket (Press et al.,
    ``rtsafe``): a step that leaves it, or fails to halve the previous one, is a
    bisection in log scale instead (each sign decided shrinks the bracket), until a
    step (Newton's or the one taken) is below the working precision, or G's sign is
    undecided at w (w is then the root to within G's rounding: bisecting on would only
    halve a bracket whose far end no sign can move)."""
    lo = lo.mid()
    hi = 2 * lo
    for _ in range(4000):
        if not welfare_terms(hi, params)["G"] > 0:
            break
        lo, hi = hi, 2 * hi
    else:
        raise Undecided("no point with S' <= 0 found")
    w, previous = (lo * hi).sqrt().mid(), hi - lo
    tolerance = arb(2) ** (-flint.ctx.prec + 8)
    for _ in range(4000):
        terms = welfare_terms(w, params)
        if terms["G"] > 0:
            lo = w
        elif terms["G"] < 0:
            hi = w
        step = _newton_step(terms, params)
        newton = (w - step).mid()
        if abs(step) < abs(w) * tolerance:  # below an ulp or two of w: converged
            return newton
        if not (terms["G"] > 0 or terms["G"] < 0):  # w is within G's rounding of the root
            return w
        if not (lo < newton < hi and 2 * abs(step) < previous):
            newton = (lo * hi).sqrt().mid()
        step = newton - w
        w, previous = newton, abs(step)
        if abs(step) < abs(w) * tolerance:  # the bracket has closed on w
            return w
    raise Undecided("Newton's method on S' did not converge")


def _newton_step(terms: dict[str, arb], params: GatedParameters[fmpq]) -> arb:
    """The Newton step of H(w) = log(C d) − log(n hk) at a point of ``terms`` (d = τ + β;
    H has G's root, as G = C d − n hk).  Where the gate is long G is dominated by the
    e^w of hk and H is close to linear (Newton on G itself would crawl there); with
    (n hk)' = C D' − G', H' = D'/d − (C D' − G')/(n hk)."""
    cost = arb(params.cost)
    d = terms["tau"] + arb(params.beta)
    nk = cost * d - terms["G"]
    if not (d > 0 and nk > 0):  # not reached above w_L; Newton on G is still a step
        return (terms["G"] / terms["G1"]).mid()
    slope = terms["D1"] / d - (cost * terms["D1"] - terms["G1"]) / nk
    return ((cost * d / nk).log() / slope).mid()


def _routing(params: GatedParameters[fmpq]) -> tuple[arb, arb, bool]:
    """(λ*, S_RR*, at boundary) with the exact case split."""
    mu, lam = params.mu, params.arrival
    interior = lam is None or mu <= lam or (mu - lam) ** 2 <= mu * params.cost / params.reward
    if interior:
        root_nu = arb(params.nu).sqrt()
        eps = arb(params.epsilon)
        rate = arb(mu) * eps / (root_nu * (root_nu + 1))  # μ(1 − 1/√ν)
        return rate, arb(params.cost) * eps**2 / (root_nu + 1) ** 2, False
    return arb(lam), arb(lam * (params.reward - params.cost / (mu - lam))), True


def _fmpq(value: Fraction) -> fmpq:
    return fmpq(value.numerator, value.denominator)


def _attempt(
    params: GatedParameters[fmpq], dps: int, tighten: int = 0
) -> tuple[dict[str, arb], dict, bool]:
    """One certification at the current precision, the bracket 10^(8 tighten) tighter
    than its default; raises Undecided when undecided."""
    mu_beta = params.mu * params.beta
    eps = params.epsilon
    gate_binds = mu_beta > 1 and mu_beta * eps > params.nu  # w0 = log(μβ) > w_N
    w_low = arb(mu_beta).log() if gate_binds else arb(1 / eps).log1p()
    data: dict = {"parameters": params.to_json(), "dps": dps, "precision_bits": flint.ctx.prec}
    at_w_low = welfare_terms(w_low, params)["G"]
    boundary = gate_binds and not at_w_low > 0
    if boundary:
        if not at_w_low < 0:
            raise Undecided("the sign of S' at tau = 0 is undecided")
        s_star = params.arrival * (params.reward - params.cost / (params.mu - params.arrival))
        data.update(case="boundary", bracket=None)
        values = {"root": arb(1 / mu_beta), "gate": arb(0), "throughput": arb(params.arrival),
                  "welfare_ga": arb(s_star)}  # fmt: skip
    else:
        w_star = _maximiser(w_low, params)
        centre = ball_fraction(w_star)
        terms = welfare_terms(w_star, params)
        # τ(w) changes by D'(w)·δ: keep the bracket small against τ*/D'(w*) too, so that
        # a gate τ* close to 0 (near τ = 0 or near 1/μ − 1/Λ ≈ 0) keeps its digits
        scale = min(centre, ball_fraction(terms["tau"] / terms["D1"]))
        if not scale > 0:
            raise Undecided("the scale of the bracket of w* is not positive")
        spread = scale / 10 ** (dps + BRACKET_DIGITS + 8 * tighten)
        lost = _magnitude(fmpq(centre.numerator, centre.denominator) / _fmpq(scale))
        digits = dps + BRACKET_DIGITS + 8 * tighten + 8 + lost
        c0, c1 = rounded_decimal(centre - spread, digits), rounded_decimal(centre + spread, digits)
        if not (point_ball(c0) > w_low and welfare_terms(point_ball(c0), params)["G"] > 0):
            raise Undecided("S' > 0 is undecided at the lower end of the bracket of w*")
        if not welfare_terms(point_ball(c1), params)["G"] < 0:
            raise Undecided("S' < 0 is undecided at the upper end of the bracket of w*")
        data.update(case="interior", bracket=[c0, c1])
        box = point_ball(c0).union(point_ball(c1))
        terms = welfare_terms(box, params)
        throughput = _generated.throughput_arb(box, arb(params.mu), arb(params.beta))
        values = {"root": terms["sigma"], "gate": terms["tau"], "welfare_ga": terms["S"],
                  "throughput": throughput}  # fmt: skip
    rate, welfare_rr, rr_boundary = _routing(params)
    values.update(rate_rr=rate, welfare_rr=welfare_rr)
    values["price_of_forgetting"] = values["welfare_ga"] / welfare_rr
    data["routing_case"] = "boundary" if rr_boundary else "interior"
    return values, data, boundary


@dataclass(frozen=True)
class CertifiedOptimum:
    """Enclosures of the optima and the certificate that proves them.

    Attributes
    ----------
    root, gate, throughput, welfare_ga : Enclosure
        σ*, τ*, the admission rate 1/(τ* + 1/Λ) and S_GA* = S_GA(τ*).
    rate_rr, welfare_rr : Enclosure
        λ* and S_RR* = S_RR(λ*).
    price_of_forgetting : Enclosure
        S_GA*/S_RR*.
    at_boundary : bool
        True when τ* = 0 (the gate constraint binds).
    routing_at_boundary : bool
        True when λ* = Λ (Λ < μ − √(μC/R)).
    dps : int
        Every enclosure has relative width ≤ 10^-dps (or is an exact zero).
    certificate : dict
        ``{"claim", "statement", "checker": "gated.optimum", "data"}`` for
        :func:`qtheory.verify.check_certificate`.

    Examples
    --------
    >>> opt = certified_optimum(GatedQueue("inf", 1, 4, 1), dps=20)
    >>> opt.welfare_rr.contains(1), round(opt.throughput.midpoint * opt.gate.midpoint, 12)
    (True, 1.0)
    """

    root: Enclosure
    gate: Enclosure
    throughput: Enclosure
    welfare_ga: Enclosure
    rate_rr: Enclosure
    welfare_rr: Enclosure
    price_of_forgetting: Enclosure
    at_boundary: bool
    routing_at_boundary: bool
    dps: int
    certificate: dict

    def values(self) -> dict[str, Enclosure]:
        """The seven enclosures by name (σ* is ``root``).

        Returns
        -------
        dict of str to Enclosure

        Examples
        --------
        >>> opt = certified_optimum(GatedQueue("inf", 1, 4, 1), dps=10)
        >>> list(opt.values())
        ['root', 'gate', 'throughput', 'welfare_ga', 'rate_rr', 'welfare_rr', 'price_of_forgetting']
        """
        return {name: getattr(self, name) for name in VALUE_NAMES}


def with_rising_precision(digits: int, attempt: Callable[[int], Any]) -> tuple[Any, int]:
    """``attempt(k)`` under Arb at ``digits`` decimal digits plus 64 bits, the precision
    raised 1.5-fold plus 64 bits after each :class:`Undecided`, for attempts
    k = 0, …, :data:`MAX_ATTEMPTS` − 1; Arb's precision is restored afterwards.

    Both certified optima (this module's and :mod:`qtheory.gated.cost_certified`'s) try
    their argument this way: an attempt that cannot decide a sign at one precision may
    at a higher one (and ``k`` tells it to tighten its bracket).

    Parameters
    ----------
    digits : int
        The working digits of the first attempt (guard digits included).
    attempt : callable
        ``attempt(k)``, raising :class:`Undecided` when it cannot decide.

    Returns
    -------
    (result, int)
        The first decided attempt's result and the Arb precision in bits it ran at.

    Raises
    ------
    ValueError
        If the digits, first or raised, exceed the ``dps`` limit of
        :mod:`qtheory.core.limits` (naming ``dps``).
    ArithmeticError
        If no attempt decides.

    Examples
    --------
    >>> def attempt(k):
    ...     if flint.ctx.prec < 300:
    ...         raise Undecided("not yet")
    ...     return k
    >>> with_rising_precision(20, attempt)  # 131 and 261 bits undecided; 456 decides
    (2, 456)
    """
    limits.require("dps", digits, parameter="dps", what="a certified optimum (with guard digits)")
    bits = math.ceil(digits * math.log2(10)) + 64
    saved = flint.ctx.prec
    reason = ""
    try:
        for k in range(MAX_ATTEMPTS):
            flint.ctx.prec = bits
            try:
                return attempt(k), bits
            except Undecided as failure:
                reason = str(failure)
                bits = math.ceil(1.5 * bits) + 64
                limits.require("dps", bits / math.log2(10), parameter="dps",
                               what="a certified optimum (raised precision)")  # fmt: skip
        raise ArithmeticError(f"could not certify the optimum: {reason}")
    finally:
        flint.ctx.prec = saved


def certified_optimum(queue: GatedQueue, *, dps: int = 30) -> CertifiedOptimum:
    """Certified enclosures of σ*, τ*, S_GA*, λ*, S_RR* and PoF (module docstring).

    Parameters
    ----------
    queue : GatedQueue
        The queue, ν = Rμ/C > 1; parameters are read as the exact rationals they print
        as (:meth:`GatedQueue.exact_parameters`).
    dps : int, keyword-only, default 30
        Each enclosure has relative width ≤ 10^-dps.

    Returns
    -------
    CertifiedOptimum

    Raises
    ------
    TypeError
        If ``queue`` is not a GatedQueue.
    ValueError
        If ν ≤ 1, or ``dps`` is not an integer in 1..the ``dps`` limit.
    ArithmeticError
        If the optimum cannot be certified within the precision limit (e.g. S has a
        degenerate critical point on the gate boundary).

    Examples
    --------
    Λ = ∞, μ = C = 1, R = 2: S_RR* = (√2 − 1)² exactly, and the enclosures contain
    the mpmath values of :func:`qtheory.gated.optimal_gate`:

    >>> import mpmath
    >>> opt = certified_optimum(GatedQueue("inf", 1, 2, 1), dps=40)
    >>> mpmath.mp.dps = 60
    >>> opt.welfare_rr.contains(str((mpmath.sqrt(2) - 1) ** 2))
    True
    >>> mpmath.mp.dps = 15
    >>> opt.price_of_forgetting.relative_width < 1e-40
    True

    With few potential customers the gate constraint binds (τ* = 0, PoF = 1):

    >>> slow = certified_optimum(GatedQueue(0.2, 1, 3, 1), dps=20)
    >>> slow.at_boundary, slow.gate.to_json(), slow.price_of_forgetting.contains(1)
    (True, {'lower': '0', 'upper': '0', 'width': '0'}, True)
    """
    dps = required_dps(dps, cost="a certified optimum")
    params = checked_queue(queue).exact_parameters(worthwhile=True)
    guard = _magnitude(params.epsilon) + _magnitude(params.nu)
    if params.arrival is not None:
        guard += _magnitude(params.mu / params.arrival)
    digits = dps + BRACKET_DIGITS + 20 + 2 * guard

    def attempt(k: int):
        values, data, boundary = _attempt(params, dps, tighten=k)
        return data, boundary, {n: certified_enclosure(values[n], dps) for n in VALUE_NAMES}

    (data, boundary, enclosures), _ = with_rising_precision(digits, attempt)
    data["values"] = {name: [e.lower, e.upper] for name, e in enclosures.items()}
    certificate = statements.certificate("gated.optimum", "gated.optimum", data)
    return CertifiedOptimum(
        **enclosures,
        at_boundary=boundary,
        routing_at_boundary=data["routing_case"] == "boundary",
        dps=dps,
        certificate=certificate,
    )


def _magnitude(value: fmpq) -> int:
    """About |log10 value| (± 1), from the lengths of numerator and denominator."""
    return abs(len(str(abs(value.p))) - len(str(value.q)))


def certified_enclosure(ball: arb, dps: int) -> Enclosure:
    """``ball`` as an Enclosure of relative width ≤ 10^-dps (an exact zero as itself).

    Parameters
    ----------
    ball : flint.arb
    dps : int

    Returns
    -------
    Enclosure

    Raises
    ------
    Undecided
        The ball is wider than that, or contains 0.

    Examples
    --------
    >>> certified_enclosure(arb(1) / 3, 10).relative_width < 1e-10
    True
    """
    if ball.is_exact() and ball.is_zero():
        return Enclosure("0", "0")
    enclosure = Enclosure.from_arb(ball, dps)
    low, high = Fraction(enclosure.lower), Fraction(enclosure.upper)
    if low <= 0 <= high or (high - low) * 10**dps > min(abs(low), abs(high)):
        raise Undecided(f"an enclosure is wider than 1e-{dps} relative")
    return enclosure


def uniqueness_identities() -> list[tuple[sympy.Expr, sympy.Expr]]:
    """The three identities behind the uniqueness argument (module docstring), as
    Sympy pairs (lhs, rhs) in w, μ, β, R, C; ``sympy.simplify(lhs - rhs) == 0``
    proves each.

    Returns
    -------
    list of (sympy.Expr, sympy.Expr)
        D'(w) = μσ(h + k)/u², S'(w) = μσG/(u²D²) and G'(w) = −N(e^w − 1 + β²uμσ/(1 + βu)²).

    Examples
    --------
    >>> import sympy
    >>> [sympy.simplify(lhs - rhs) for lhs, rhs in uniqueness_identities()]
    [0, 0, 0]
    """
    import sympy  # the identities only: the enclosures need no Sympy

    w, mu, beta, reward, cost = sympy.symbols("w mu beta R C", positive=True)
    sigma = sympy.exp(-w)
    u = mu * (1 - sigma)
    y = beta * u
    d = (w - sympy.log(1 + y)) / u + beta
    n = reward - cost / u
    hk = sympy.exp(w) - 1 - w + sympy.log(1 + y) - y / (1 + y)
    g = cost * d - n * hk
    slope = sympy.exp(w) - 1 + beta**2 * u * mu * sigma / (1 + y) ** 2
    return [
        (sympy.diff(d, w), mu * sigma * hk / u**2),
        (sympy.diff(n / d, w), mu * sigma * g / (u**2 * d**2)),
        (sympy.diff(g, w), -n * slope),
    ]


def grid_point(optimum: CertifiedOptimum) -> dict:
    """The part of an optimum's certificate data that a grid certificate repeats per
    point: parameters, precision, case, bracket and routing case (no values).

    Parameters
    ----------
    optimum : CertifiedOptimum

    Returns
    -------
    dict

    Examples
    --------
    >>> sorted(grid_point(certified_optimum(GatedQueue("inf", 1, 2, 1), dps=5)))
    ['bracket', 'case', 'parameters', 'precision_bits', 'routing_case']
    """
    keep = ("parameters", "precision_bits", "case", "bracket", "routing_case")
    return {key: optimum.certificate["data"][key] for key in keep}


@dataclass(frozen=True)
class AsymptoticGrid:
    """PoF against its leading form L on a grid, certified at every point.

    Attributes
    ----------
    regime : str
        ``"light"`` (ν = 1 + ε, ε ↓ 0): ratio PoF·ε log(1/ε)/4, order
        r = log log(1/ε)/log(1/ε).  ``"heavy"`` (ν → ∞, Λ > μ): ratio
        (PoF − 1)√ν/(2(1 − √γ)), γ = (1 + μ²/Λ²)/2, order r = ν^{−1/2}.
    constant : fractions.Fraction
        K of the bound |ratio − 1| ≤ K·r.
    points : tuple of (str, int, Enclosure, float, CertifiedOptimum, float)
        (Λ, exponent, enclosure of the ratio, r, the optimum, an upper bound of
        |ratio − 1|/r) per point (ε = 10^-exponent or ν = 10^exponent; μ = C = 1).
    passed : bool
        Whether |ratio − 1| ≤ K·r is certified at every point.
    certificate : dict
        ``{"checker": "gated.asymptotics", "data": ...}``.

    Examples
    --------
    >>> grid = certified_asymptotics("heavy", ("inf",), (2, 4), constant="5/2", dps=10)
    >>> grid.passed, [round(point[2].midpoint, 4) for point in grid.points]
    (True, [1.0949, 1.0087])
    """

    regime: str
    constant: Fraction
    points: tuple
    passed: bool
    certificate: dict


def certified_asymptotics(
    regime: str, arrivals, exponents, *, constant: str, dps: int = 20
) -> AsymptoticGrid:
    """Enclose PoF divided by its leading form on a grid and certify
    |ratio − 1| ≤ K·r at every point (:class:`AsymptoticGrid` defines both).

    Parameters
    ----------
    regime : {"light", "heavy"}
        ν = 1 + 10^-k (light) or ν = 10^k (heavy), μ = C = 1.
    arrivals : sequence of str
        Values of Λ (``"inf"`` allowed; heavy traffic needs Λ > μ = 1).
    exponents : sequence of int
        The k, each ≥ 1.
    constant : str
        K, a rational as text (``"3/2"``).
    dps : int, default 20
        Digits of each optimum (heavy traffic adds k/2 for the cancellation in PoF − 1).

    Returns
    -------
    AsymptoticGrid

    Raises
    ------
    ValueError
        An unknown regime, an exponent < 1, or Λ ≤ 1 in heavy traffic.

    Examples
    --------
    >>> grid = certified_asymptotics("light", ("inf",), (10,), constant="3/2")
    >>> grid.passed, round(grid.points[0][2].midpoint, 3)
    (True, 0.842)
    """
    if regime not in ("light", "heavy"):
        raise ValueError(f"regime must be 'light' or 'heavy', got {regime!r}")
    bound = Fraction(constant)
    points, data_points, passed = [], [], True
    for arrival in arrivals:
        if regime == "heavy" and arrival != "inf" and not Fraction(arrival) > 1:
            raise ValueError(
                f"arrivals must exceed service_rate = 1 in heavy traffic, got {arrival!r}"
            )
        for k in exponents:
            if isinstance(k, bool) or not isinstance(k, int) or k < 1:
                raise ValueError(f"exponents must be integers >= 1, got {k!r}")
            reward = f"1{'.' + '0' * (k - 1) + '1'}" if regime == "light" else f"1e{k}"
            digits = dps + (k // 2 + 2 if regime == "heavy" else 0)
            opt = certified_optimum(GatedQueue(arrival, 1, reward, 1), dps=digits)
            data_points.append(grid_point(opt))
            pof = opt.price_of_forgetting
            saved = flint.ctx.prec
            try:
                flint.ctx.prec = opt.certificate["data"]["precision_bits"]
                low, high = point_ball(pof.lower), point_ball(pof.upper)
                value = low.union(high)
                if regime == "light":
                    eps = arb(10) ** -k
                    log = (1 / eps).log()
                    ratio, order = value * eps * log / 4, log.log() / log
                else:
                    m = arb(1) / 2
                    if arrival != "inf":
                        m = (1 + 1 / arb(point_ball(arrival)) ** 2) / 2
                    ratio = (value - 1) * (arb(10) ** k).sqrt() / (2 * (1 - m.sqrt()))
                    order = 1 / (arb(10) ** k).sqrt()
                limit = arb(fmpq(bound.numerator, bound.denominator)) * order
                passed = passed and bool(abs(ratio - 1) <= limit)
                ratio_enclosure = Enclosure.from_arb(ratio, 10)
                remainder = float((abs(ratio - 1) / order).upper())
                points.append((arrival, k, ratio_enclosure, float(order.mid()), opt, remainder))
            finally:
                flint.ctx.prec = saved
    certificate = {
        "checker": "gated.asymptotics",
        "data": {"regime": regime, "constant": str(bound), "points": data_points},
    }
    return AsymptoticGrid(regime, bound, tuple(points), passed, certificate)


def certified_dominance(loads, arrivals, *, service_rate: str = "1") -> tuple[bool, dict]:
    """Certify σ < λ/μ at equal throughput λ on a grid of loads and Λ.

    At load ρ = λ/μ the gate with throughput λ is τ = 1/λ − 1/Λ; the root residual
    f(s) = e^{−μ(1−s)τ}Λ/(Λ + μ(1 − s)) − s is convex with f(0) > 0 = f(1), so
    f(ρ) < 0 (decided in Arb) proves σ < ρ.

    Parameters
    ----------
    loads : sequence of str
        ρ in (0, 1), as exact decimals.
    arrivals : sequence of str
        Λ (``"inf"`` allowed); points with τ ≤ 0 (λ ≥ Λ, where τ = 0 is random
        routing itself) are skipped.
    service_rate : str, keyword-only, default "1"

    Returns
    -------
    (bool, dict)
        Whether every point is certified, and the certificate
        ``{"checker": "gated.dominance", "data": ...}``.

    Examples
    --------
    >>> passed, certificate = certified_dominance(["0.5", "0.99"], ["inf", "2"])
    >>> passed, len(certificate["data"]["points"])
    (True, 4)
    """
    mu = exact(service_rate, name="service_rate")
    points, passed = [], True
    saved = flint.ctx.prec
    try:
        flint.ctx.prec = 128
        for arrival in arrivals:
            beta = fmpq(0) if arrival == "inf" else 1 / exact(arrival, name="arrival")
            for text in loads:
                load = exact(text, name="load")
                gate = 1 / (load * mu) - beta
                if not gate > 0:  # λ ≥ Λ: no gate gives this throughput (τ = 0 is RR)
                    continue
                s = arb(mu * (1 - load))
                residual = (-s * arb(gate)).exp() / (1 + arb(beta) * s) - arb(load)
                passed = passed and bool(residual < 0)
                points.append([str(load), arrival if arrival == "inf" else str(1 / beta)])
    finally:
        flint.ctx.prec = saved
    data = {"service_rate": str(mu), "precision_bits": 128, "points": points}
    return passed, {"checker": "gated.dominance", "data": data}
