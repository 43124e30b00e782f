r"""Where the remainder bounds of the Price of Forgetting's asymptotics hold, and their
certified evaluation at a point.

PoF = S_GA*/S_RR* depends on the queue only through :math:`\Lambda/\mu` and
:math:`\nu = R\mu/C` (measure time in units of :math:`1/\mu` and money in units of C).
The two leading forms of :mod:`qtheory.gated.asymptotics` come with remainder bounds
:math:`|\mathrm{ratio} - 1| \le K r`:

- *light traffic,* :math:`\nu = 1 + \varepsilon \downarrow 1`:
  :math:`\mathrm{ratio} = \mathrm{PoF}\,\varepsilon\log(1/\varepsilon)/4`,
  :math:`r = \log\log(1/\varepsilon)/\log(1/\varepsilon)`, :math:`K = 3/2`
  (:data:`LIGHT_CONSTANT`);
- *heavy traffic,* :math:`\nu \to \infty`, :math:`\Lambda > \mu`:
  :math:`\mathrm{ratio} = (\mathrm{PoF} - 1)\sqrt\nu/(2(1 - \sqrt m))`,
  :math:`\gamma = (1 + \mu^2/\Lambda^2)/2`, :math:`r = \nu^{-1/2}`, :math:`K = 5/2`
  (:data:`HEAVY_CONSTANT`).

Both are asymptotic statements, false far from their limits: at :math:`\Lambda = \infty`
the light bound fails at ε = 1/5 (:math:`|\mathrm{ratio} - 1| = 0.583 > Kr = 0.444`) and
the heavy one at Λ = 2μ, ν = 3 (:math:`2.83\,\nu^{-1/2} > 2.5\,\nu^{-1/2}`).  This module
states where they hold (:data:`LIGHT_EPSILON_MAX`, :data:`LIGHT_ARRIVAL_RATIO_MIN`,
:data:`HEAVY_NU_MIN`, :data:`HEAVY_ARRIVAL_RATIO_MIN`) and decides them at one point in
ball arithmetic (:func:`light_remainder`, :func:`heavy_remainder`, on
:func:`~qtheory.gated.certified.certified_optimum`).

**How the thresholds were found.**  The scaled remainder :math:`|\mathrm{ratio} - 1|/r`
(to be compared with K) was computed by an mpmath route independent of the certified
one, at 100 digits: for each gate τ the GI/M/1 root
:math:`\sigma = e^{-\mu(1-\sigma)\tau}\Lambda/(\Lambda + \mu(1 - \sigma))` solved by
bracketing, :math:`S_{\mathrm{GA}}(\tau) = (R - C/(\mu(1-\sigma)))/(\tau + 1/\Lambda)`
maximised over τ ≥ 0 by the root of its derivative (implicit differentiation of σ), and
:math:`S_{\mathrm{RR}}^* = \lambda(R - C/(\mu - \lambda))` at
:math:`\lambda = \min(\Lambda, \mu - \sqrt{\mu C/R})`; it agrees with
:func:`~qtheory.gated.welfare.price_of_forgetting` (``dps=60``) to 60 digits.  It was
scanned at μ = C = 1 (and spot-checked at μ = 2, C = 3) on 20 points per decade of
ε ∈ [10^-30, 10^-1] and of ν ∈ [10^0.2, 10^30] for Λ ∈ {∞, 2}, 5 per decade for
Λ ∈ {100, 10, 5, 1.2, 0.5, 0.2, 0.1} (light) and {100, 10, 5, 1.5, 1.2, 1.1, 1.05, 1.01}
(heavy), all with ε = 1/3, …, 1/20, 0.10, 0.11, …, 0.36 and ν = 2, …, 20, 25, …, 100
added, and 4 per decade for Λ ∈ {20, 3, 1.5, 1.3, 1.2} (light, ε ≤ 1/10) and
{20, 3, 2.5, 2} (heavy, ν ≥ 4); the crossings of K were then located by bisection.

Light traffic, :math:`|\mathrm{ratio} - 1|/r` (K = 3/2):

==========  ========  ========  ========  ========  ========  ========
ε           Λ = ∞     Λ = 2μ    Λ = 1.2μ  Λ = μ/2   Λ = μ/5   Λ = μ/10
==========  ========  ========  ========  ========  ========  ========
0.35        14.32     14.54     14.83     15.99     18.01
0.3         4.134     4.203     4.293     4.658     5.304
0.2         1.971     2.008     2.058     2.259     2.634     2.916
1/8         1.522     1.553     1.594     1.766     2.102     2.369
1/9         1.468     1.498     1.539     1.707     2.040     2.310
1/10        1.429     1.459     1.498     1.664     1.996     2.268
10^-2       1.191     1.217     1.251     1.407     1.774     2.142
10^-5       1.151     1.175     1.207     1.363     1.803     2.380
10^-10      1.157     1.179     1.210     1.362     1.827     2.537
10^-30      1.164     1.184     1.211     1.348     1.798     2.585
==========  ========  ========  ========  ========  ========  ========

(Blank: random routing's optimum is at Λ there.)  The scaled remainder increases with ε on
[10^-2, 0.36] and with μ/Λ; below 10^-2 it is flat within a few per cent.  It crosses
3/2 at ε = 0.1195 (Λ = ∞), 0.1115 (Λ = 2μ), 0.1006 (Λ = 1.2μ); at ε = 1/10 it is 1.429
(Λ = ∞, also 20μ), 1.444 (3μ), 1.459 (2μ), 1.477 (1.5μ), 1.490 (1.3μ), 1.498 (1.2μ)
and equals 3/2 at Λ = 1.179μ.  Asymptotically
:math:`\hat\sigma = \varepsilon/(\log(1/\varepsilon) + \log\log(1/\varepsilon) + K_\Lambda
+ 1 + o(1))`, :math:`K_\Lambda = \mu/\Lambda - \log(1 + \mu/\Lambda)`, so the scaled
remainder is :math:`1 + (K_\Lambda + 1)/\log\log(1/\varepsilon) + o(\cdot)`: it tends to 1,
but so slowly that for small Λ/μ (Λ = μ/5, μ/10) the constant 3/2 fails at every
ε ∈ [10^-30, 1/10] (and it still fails at Λ = μ/2 for ε ≥ 0.05).

Heavy traffic, :math:`|\mathrm{ratio} - 1|\sqrt\nu` (K = 5/2):

==========  ========  ========  ========  ========  ========  ========  ========
ν           Λ = ∞     Λ = 5μ    Λ = 2μ    Λ = 1.5μ  Λ = 1.2μ  Λ = 1.1μ  Λ = 1.01μ
==========  ========  ========  ========  ========  ========  ========  ========
2           2.601     2.748     3.812     5.536     10.99     20.22     187.0
3           1.879     1.992     2.831     4.203     8.562     15.94     149.5
4           1.616     1.718     2.479     3.728     7.709     14.46     136.5
10          1.219     1.303     1.950     3.025     6.466     12.31     118.1
100         0.949     1.022     1.597     2.556     5.626     10.84     105.3
10^6        0.863     0.932     1.484     2.400     5.326     10.30     100.3
10^30       0.862     0.932     1.483     2.398     5.323     10.29     100.3
==========  ========  ========  ========  ========  ========  ========  ========

It decreases in ν (every scanned Λ) and increases as Λ ↓ μ (at ν = 4: 1.616 at Λ = ∞,
1.931 at 3μ, 2.101 at 2.5μ, 2.479 at 2μ); it crosses 5/2 at ν = 2.078 (Λ = ∞), 3.914
(Λ = 2μ), 227.5 (Λ = 1.5μ).  Its limit as ν → ∞ grows like :math:`1/(1 - \sqrt m)` as
Λ ↓ μ and equals 5/2 at Λ = 1.4746μ: below that the constant 5/2 fails for every ν up to
10^30 (and in the limit).

Both scans are grids: between grid points the thresholds rest on the smoothness and
monotonicity seen there.  :func:`light_remainder` and :func:`heavy_remainder` decide a
given point in Arb instead.

Examples
--------
>>> from qtheory.model.gated import GatedQueue
>>> point = light_remainder(GatedQueue("inf", 1, "1.1", 1))
>>> point.holds, round(point.remainder.midpoint, 4), round(point.bound.midpoint, 4)
(True, 0.5176, 0.5433)
>>> heavy_remainder(GatedQueue("2", 1, "3", 1)).holds  # nu = 3 < HEAVY_NU_MIN: fails
False

References
----------
.. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint
from flint import arb, fmpq

from qtheory.core.enclosure import Enclosure
from qtheory.gated.certified import CertifiedOptimum, certified_optimum, grid_point
from qtheory.model.gated import GatedParameters, GatedQueue, checked_queue
from qtheory.verify import statements

__all__ = [
    "HEAVY_ARRIVAL_RATIO_MIN",
    "HEAVY_BOUND",
    "HEAVY_CONSTANT",
    "HEAVY_HYPOTHESIS",
    "HEAVY_NU_CHECKED_MAX",
    "HEAVY_NU_MIN",
    "LIGHT_ARRIVAL_RATIO_MIN",
    "LIGHT_BOUND",
    "LIGHT_CONSTANT",
    "LIGHT_EPSILON_CHECKED_MIN",
    "LIGHT_EPSILON_MAX",
    "LIGHT_HYPOTHESIS",
    "Remainder",
    "heavy_remainder",
    "light_remainder",
    "require_heavy_hypotheses",
    "require_light_hypotheses",
]

#: K of the light-traffic bound |PoF ε log(1/ε)/4 − 1| ≤ K log log(1/ε)/log(1/ε).
LIGHT_CONSTANT = Fraction(3, 2)
#: K of the heavy-traffic bound |(PoF − 1)√ν/(2(1 − √γ)) − 1| ≤ K ν^{-1/2}.
HEAVY_CONSTANT = Fraction(5, 2)

#: Largest ε = ν − 1 of the light bound: it holds for ε ∈ [10^-30, 1/10] at every
#: scanned Λ ≥ LIGHT_ARRIVAL_RATIO_MIN·μ (worst 1.498 < 3/2 at Λ = 1.2μ, ε = 1/10;
#: 1.459 at Λ = 2μ, 1.429 at Λ = ∞) and fails just above (crossing at ε = 0.1195 for
#: Λ = ∞, 0.1115 for Λ = 2μ, 0.1006 for Λ = 1.2μ).  See the module docstring.
LIGHT_EPSILON_MAX = Fraction(1, 10)
#: Smallest Λ/μ of the light bound on ε ≤ LIGHT_EPSILON_MAX: at ε = 1/10 the scaled
#: remainder reaches 3/2 at Λ = 1.179μ; for Λ ≤ μ/5 the constant 3/2 fails at every
#: ε ∈ [10^-30, 1/10].  It also makes random routing's optimum interior (Λ > μ).
LIGHT_ARRIVAL_RATIO_MIN = Fraction(6, 5)
#: Smallest ε of the scans behind LIGHT_EPSILON_MAX (the bound is asymptotic: below it,
#: the scaled remainder tends to 1 < 3/2, but no point below was computed).
LIGHT_EPSILON_CHECKED_MIN = Fraction(1, 10**30)

#: Smallest ν of the heavy bound: it holds for ν ∈ [4, 10^30] at every scanned
#: Λ ≥ HEAVY_ARRIVAL_RATIO_MIN·μ (worst 2.479 < 5/2 at Λ = 2μ, ν = 4; 1.616 at Λ = ∞) and
#: fails just below (crossing at ν = 3.914 for Λ = 2μ, 2.078 for Λ = ∞).
HEAVY_NU_MIN = Fraction(4)
#: Smallest Λ/μ of the heavy bound on ν ≥ HEAVY_NU_MIN: below 2μ the crossing moves up
#: (ν = 227.5 at Λ = 1.5μ), and for Λ < 1.4746μ the constant 5/2 fails for every ν up to
#: 10^30 (the scaled remainder tends to a limit that grows like 1/(1 − √γ) as Λ ↓ μ).
HEAVY_ARRIVAL_RATIO_MIN = Fraction(2)
#: Largest ν of the scans behind HEAVY_NU_MIN.
HEAVY_NU_CHECKED_MAX = Fraction(10**30)


def _text(value: Fraction) -> str:
    return str(value) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


#: The hypothesis of the light bound, in LaTeX (from the constants above).
LIGHT_HYPOTHESIS = (
    rf"$0 < \varepsilon = \nu - 1 \le {_text(LIGHT_EPSILON_MAX)}$ and "
    rf"$\Lambda \ge {_text(LIGHT_ARRIVAL_RATIO_MIN)}\,\mu$ (so "
    r"$S_{\mathrm{RR}}^* = C(\sqrt{\nu} - 1)^2$)"
)
#: The hypothesis of the heavy bound, in LaTeX (from the constants above).
HEAVY_HYPOTHESIS = (
    rf"$\Lambda \ge {_text(HEAVY_ARRIVAL_RATIO_MIN)}\,\mu$ (so $\Lambda > \mu$) and "
    rf"$\nu \ge {_text(HEAVY_NU_MIN)}$"
)


def _tfrac(value: Fraction) -> str:
    return rf"\tfrac{{{value.numerator}}}{{{value.denominator}}}"


#: The light bound, in LaTeX (from :data:`LIGHT_CONSTANT`).
LIGHT_BOUND = (
    r"$|\mathrm{PoF}\,\varepsilon\log(1/\varepsilon)/4 - 1| \le "
    rf"{_tfrac(LIGHT_CONSTANT)} \log\log(1/\varepsilon)/\log(1/\varepsilon)$"
)
#: The heavy bound, in LaTeX (from :data:`HEAVY_CONSTANT`).
HEAVY_BOUND = (
    rf"$|(\mathrm{{PoF}} - 1)\sqrt{{\nu}}/(2(1-\sqrt{{\gamma}})) - 1| \le {_tfrac(HEAVY_CONSTANT)} "
    r"\nu^{-1/2}$, $\gamma = (1 + \mu^2/\Lambda^2)/2$"
)


@dataclass(frozen=True)
class Remainder:
    """Both sides of a remainder bound |ratio − 1| ≤ K r at one point, certified.

    Attributes
    ----------
    regime : str
        ``"light"`` or ``"heavy"`` (module docstring).
    ratio : Enclosure
        PoF divided by its leading form.
    remainder : Enclosure
        |ratio − 1|.
    order : Enclosure
        r: log log(1/ε)/log(1/ε) (light) or ν^{-1/2} (heavy).
    bound : Enclosure
        K·r.
    holds : bool
        Whether |ratio − 1| < K r is decided (the whole remainder ball below the bound's).
    decided : bool
        Whether either |ratio − 1| < K r or |ratio − 1| ≥ K r is decided; False when the
        balls overlap at this precision.
    optimum : CertifiedOptimum
        The certified optimum whose PoF the ratio is built on.
    certificate : dict
        The ``gated.asymptotics`` certificate of this one point (claim, statement,
        checker, data), for :mod:`qtheory.verify` (which decides |ratio − 1| ≤ K r again).

    Examples
    --------
    >>> point = heavy_remainder(GatedQueue("inf", 1, "100", 1))
    >>> point.regime, point.holds, round(point.ratio.midpoint, 4), point.bound.contains("1/4")
    ('heavy', True, 1.0949, True)
    """

    regime: str
    ratio: Enclosure
    remainder: Enclosure
    order: Enclosure
    bound: Enclosure
    holds: bool
    decided: bool
    optimum: CertifiedOptimum
    certificate: dict


def _arb(value: fmpq | Fraction) -> arb:
    if isinstance(value, Fraction):
        value = fmpq(value.numerator, value.denominator)
    return arb(value)


def _ball(enclosure: Enclosure) -> arb:
    """A ball containing the decimal interval of ``enclosure`` (endpoints exact)."""
    return _arb(Fraction(enclosure.lower)).union(_arb(Fraction(enclosure.upper)))


def _digits(value: fmpq) -> int:
    """About log10 of ``value`` > 0 (± 1), from the lengths of numerator and denominator."""
    return len(str(abs(value.p))) - len(str(value.q))


def _evaluate(regime: str, params: GatedParameters[fmpq], queue: GatedQueue, dps: int) -> Remainder:
    extra = 2 + (max(_digits(params.nu), 0) + 1 if regime == "heavy" else 0)
    opt = certified_optimum(queue, dps=dps + extra)  # heavy: PoF − 1 and ratio − 1 cancel
    constant = LIGHT_CONSTANT if regime == "light" else HEAVY_CONSTANT
    saved = flint.ctx.prec
    try:
        flint.ctx.prec = opt.certificate["data"]["precision_bits"]
        pof = _ball(opt.price_of_forgetting)
        if regime == "light":
            eps = _arb(params.epsilon)
            log = (1 / eps).log()
            ratio, order = pof * eps * log / 4, log.log() / log
        else:
            m = (1 + _arb(params.mu * params.beta) ** 2) / 2
            root_nu = _arb(params.nu).sqrt()
            ratio, order = (pof - 1) * root_nu / (2 * (1 - m.sqrt())), 1 / root_nu
        remainder, bound = abs(ratio - 1), _arb(constant) * order
        holds = bool(remainder < bound)
        decided = holds or bool(remainder >= bound)
        enclosures = [Enclosure.from_arb(ball, dps) for ball in (ratio, remainder, order, bound)]
    finally:
        flint.ctx.prec = saved
    data = {"regime": regime, "constant": str(constant), "points": [grid_point(opt)]}
    certificate = statements.certificate("gated.asymptotics", "gated.asymptotics", data)
    return Remainder(regime, *enclosures, holds, decided, opt, certificate)


def light_remainder(queue: GatedQueue, *, dps: int = 20) -> Remainder:
    r"""Both sides of the light-traffic bound
    :math:`|\mathrm{PoF}\,\varepsilon\log(1/\varepsilon)/4 - 1| \le
    \tfrac32\log\log(1/\varepsilon)/\log(1/\varepsilon)` at ``queue``, in Arb.

    The bound is only claimed under :func:`require_light_hypotheses`; this function
    evaluates it at any ε = ν − 1 in (0, 1), so that its failures can be shown too.

    Parameters
    ----------
    queue : GatedQueue
        Λ (``"inf"`` allowed), μ, R, C, read as the exact rationals they print as.
    dps : int, keyword-only, default 20
        Digits of the enclosures (PoF is certified to ``dps`` + 2 digits).

    Returns
    -------
    Remainder

    Raises
    ------
    TypeError
        If ``queue`` is not a GatedQueue.
    ValueError
        If ν ≤ 1, or ε = ν − 1 ≥ 1 (log log(1/ε) undefined), or a bad ``dps``.
    ArithmeticError
        If the optimum cannot be certified within the precision limit.

    Examples
    --------
    ε = 10^-30 (Λ = ∞, μ = C = 1) and the counterexample ε = 0.3 of the unrestricted claim:

    >>> tiny = light_remainder(GatedQueue("inf", 1, "1." + "0" * 29 + "1", 1))
    >>> tiny.holds, round(tiny.ratio.midpoint, 4), round(tiny.bound.midpoint, 4)
    (True, 0.9286, 0.092)
    >>> wide = light_remainder(GatedQueue("inf", 1, "1.3", 1))
    >>> wide.holds, round(wide.remainder.midpoint, 3), round(wide.bound.midpoint, 3)
    (False, 0.637, 0.231)
    """
    params = checked_queue(queue).exact_parameters(worthwhile=True)
    eps = params.epsilon
    if not eps < 1:
        raise ValueError(
            "epsilon = reward*service_rate/cost - 1 must be < 1 for the light-traffic "
            f"remainder (log log(1/epsilon) must exist), got epsilon = {eps}"
        )
    return _evaluate("light", params, queue, dps)


def heavy_remainder(queue: GatedQueue, *, dps: int = 20) -> Remainder:
    r"""Both sides of the heavy-traffic bound
    :math:`|(\mathrm{PoF} - 1)\sqrt\nu/(2(1 - \sqrt m)) - 1| \le \tfrac52\nu^{-1/2}`,
    :math:`\gamma = (1 + \mu^2/\Lambda^2)/2`, at ``queue``, in Arb.

    The bound is only claimed under :func:`require_heavy_hypotheses`; this function
    evaluates it at any ν > 1 with Λ > μ, so that its failures can be shown too.

    Parameters
    ----------
    queue : GatedQueue
        Λ (``"inf"`` allowed), μ, R, C, read as the exact rationals they print as.
    dps : int, keyword-only, default 20
        Digits of the enclosures (PoF is certified to ``dps`` + log10 ν + 3 digits, for
        the cancellation in PoF − 1 and in ratio − 1).

    Returns
    -------
    Remainder

    Raises
    ------
    TypeError
        If ``queue`` is not a GatedQueue.
    ValueError
        If ν ≤ 1, Λ ≤ μ (then 1 − √γ ≤ 0), or a bad ``dps``.
    ArithmeticError
        If the optimum cannot be certified within the precision limit.

    Examples
    --------
    >>> far = heavy_remainder(GatedQueue("2", 1, "1e30", 1))
    >>> far.holds, round(far.remainder.midpoint * 1e15, 4), far.bound.contains("2.5e-15")
    (True, 1.4827, True)
    >>> near = heavy_remainder(GatedQueue("2", 1, "3", 1))
    >>> near.holds, round(near.remainder.midpoint * 3**0.5, 3)
    (False, 2.831)
    """
    params = checked_queue(queue).exact_parameters(worthwhile=True)
    if not (params.arrival is None or params.arrival > params.mu):
        raise ValueError(
            "arrival_rate must be > service_rate for the heavy-traffic remainder "
            f"(1 - sqrt(gamma) > 0), got arrival_rate = {params.arrival}, "
            f"service_rate = {params.mu}"
        )
    return _evaluate("heavy", params, queue, dps)


def _arrival_ratio(params: GatedParameters[fmpq]) -> fmpq | None:
    return None if params.arrival is None else params.arrival / params.mu


def require_light_hypotheses(queue: GatedQueue) -> None:
    """Raise ValueError unless ``queue`` satisfies the light bound's hypotheses:
    0 < ε = ν − 1 ≤ :data:`LIGHT_EPSILON_MAX`, random routing's optimum interior
    (Λ ≥ μ − √(μC/R)) and Λ ≥ :data:`LIGHT_ARRIVAL_RATIO_MIN`·μ (decided exactly).

    Parameters
    ----------
    queue : GatedQueue
        Read as the exact rationals its parameters print as.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        If ``queue`` is not a GatedQueue.
    ValueError
        Naming the first hypothesis broken and the value.

    Examples
    --------
    >>> require_light_hypotheses(GatedQueue("inf", 1, "1.1", 1))
    >>> require_light_hypotheses(GatedQueue("inf", 1, "1.3", 1))
    Traceback (most recent call last):
    ...
    ValueError: epsilon = reward*service_rate/cost - 1 must be in (0, 1/10] (the light-traffic hypothesis), got epsilon = 3/10
    """  # noqa: E501
    params = checked_queue(queue).exact_parameters(worthwhile=True)  # ν > 1
    eps = params.epsilon
    if not eps <= _fmpq(LIGHT_EPSILON_MAX):
        raise ValueError(
            f"epsilon = reward*service_rate/cost - 1 must be in (0, {LIGHT_EPSILON_MAX}] "
            f"(the light-traffic hypothesis), got epsilon = {eps}"
        )
    mu, lam = params.mu, params.arrival
    if not (lam is None or mu <= lam or (mu - lam) ** 2 <= mu * params.cost / params.reward):
        raise ValueError(
            "arrival_rate must be >= service_rate - sqrt(service_rate*cost/reward) "
            "(random routing's optimum interior, S_RR* = C(sqrt(nu) - 1)^2), got "
            f"arrival_rate = {lam}"
        )
    ratio = _arrival_ratio(params)
    if ratio is not None and not ratio >= _fmpq(LIGHT_ARRIVAL_RATIO_MIN):
        raise ValueError(
            f"arrival_rate/service_rate must be >= {LIGHT_ARRIVAL_RATIO_MIN} (below it the "
            f"constant {LIGHT_CONSTANT} fails near epsilon = {LIGHT_EPSILON_MAX}), got "
            f"arrival_rate/service_rate = {ratio}"
        )


def require_heavy_hypotheses(queue: GatedQueue) -> None:
    """Raise ValueError unless ``queue`` satisfies the heavy bound's hypotheses:
    Λ > μ, Λ ≥ :data:`HEAVY_ARRIVAL_RATIO_MIN`·μ and ν ≥ :data:`HEAVY_NU_MIN` (decided
    exactly).

    Parameters
    ----------
    queue : GatedQueue
        Read as the exact rationals its parameters print as.

    Returns
    -------
    None

    Raises
    ------
    TypeError
        If ``queue`` is not a GatedQueue.
    ValueError
        Naming the first hypothesis broken and the value.

    Examples
    --------
    >>> require_heavy_hypotheses(GatedQueue("inf", 1, "10", 1))
    >>> require_heavy_hypotheses(GatedQueue("2", 1, "3", 1))
    Traceback (most recent call last):
    ...
    ValueError: nu = reward*service_rate/cost must be >= 4 (the heavy-traffic hypothesis), got nu = 3
    """  # noqa: E501
    params = checked_queue(queue).exact_parameters(worthwhile=True)
    ratio = _arrival_ratio(params)
    if ratio is not None and not ratio > 1:
        raise ValueError(
            "arrival_rate must be > service_rate (heavy traffic: 1 - sqrt(gamma) > 0), got "
            f"arrival_rate = {params.arrival}, service_rate = {params.mu}"
        )
    if ratio is not None and not ratio >= _fmpq(HEAVY_ARRIVAL_RATIO_MIN):
        raise ValueError(
            f"arrival_rate/service_rate must be >= {HEAVY_ARRIVAL_RATIO_MIN} (below it the "
            f"constant {HEAVY_CONSTANT} fails at nu = {HEAVY_NU_MIN}, and for every nu "
            f"when it is below 1.47), got arrival_rate/service_rate = {ratio}"
        )
    if not params.nu >= _fmpq(HEAVY_NU_MIN):
        raise ValueError(
            f"nu = reward*service_rate/cost must be >= {HEAVY_NU_MIN} (the heavy-traffic "
            f"hypothesis), got nu = {params.nu}"
        )


def _fmpq(value: Fraction) -> fmpq:
    return fmpq(value.numerator, value.denominator)
