r"""Welfare of gated admission (GA) and random routing (RR), their optima and the Price of
Forgetting.

Source: Hassin and Ravner, arXiv:2606.02464; RR optimum after Edelson and Hildebrand
(1975).  Formulas come from :mod:`qtheory.gated.derivation`, evaluated by the code
generated from it (``qtheory/gated/_generated.py``, so no Sympy runs here):

.. math::
    S_{GA}(\tau) = \frac{R - C/(\mu(1-\sigma))}{\tau + 1/\Lambda},\qquad
    S_{RR}(\lambda) = \lambda\Bigl(R - \frac{C}{\mu-\lambda}\Bigr),

    \mathrm{PoF} = \max_{\tau\ge 0} S_{GA}(\tau) \Big/ \max_{0\le\lambda\le\Lambda} S_{RR}(\lambda).

The GA optimum is found in :math:`w = -\log\sigma`, where :math:`S_{GA}` is a smooth
function of one variable: the root of the first-order condition
:math:`N'(w)D(w) - N(w)D'(w) = 0` (:math:`S = N/D`) on a bracket whose left end is where
the net reward :math:`N` vanishes (:math:`\sigma = 1 - 1/\nu`; the slope is :math:`N'D>0`
there) or, when :math:`\Lambda < \mu`, the point :math:`\tau = 0` (:math:`\sigma = \Lambda/\mu`),
whichever is larger.  If the slope is already negative at :math:`\tau = 0`, the optimum
is the boundary :math:`\tau^* = 0`.

Accuracy.  The optima are scalars, so they are always computed in mpmath, at twice the
requested digits plus guard digits for the cancellation near :math:`\nu = 1` (about
:math:`\log_{10} 1/(\nu-1)` digits) and in heavy traffic (about :math:`\log_{10}\nu`):
with ``dps=None`` at 17 digits and rounded to float64 (full float64 accuracy at every
corner, a few milliseconds each; a value beyond float64 is a ``ValueError`` asking for
``dps``); with ``dps=D`` every returned mpf is correct to D digits and rounded to D
(:mod:`qtheory.core.precision`).  The working digits are estimated first and refused above
:func:`qtheory.core.limits.limit` ``("dps")``.  The RR optimum is evaluated in
:math:`\varepsilon = \nu - 1` (exact from the inputs), e.g.
:math:`C(\sqrt\nu-1)^2 = C\varepsilon^2/(\sqrt{1+\varepsilon}+1)^2`, so it never cancels.
Welfare curves (:func:`welfare_ga`, :func:`welfare_rr`) are vectorised float64, or one
value with ``dps`` (S_RR, a rational function, exactly at the decimals, then rounded).

Parameters are read as the decimals they stand for on every route
(:mod:`qtheory.model.gated`: a float as its ``repr``, 0.6 = 3/5), the reading of
:func:`qtheory.gated.certified.certified_optimum`: the optima, computed in mpmath on
both routes, are the values at those decimals (float64: rounded once).  The float64
welfare curves (:func:`welfare_ga` and :func:`welfare_rr` with ``dps=None``) evaluate
the net reward R − P, P = C/(μ(1 − σ)) or C/(μ − λ), from the float64 parameters: its
relative condition (R + P)/|R − P|, at least ν/(ν − 1) where the welfare is positive,
times the unit roundoff 2^-53 is the relative error that rounding the parameters to
float64 can cause, and above 1e-8 (so wherever the welfare is positive and ν − 1 is
below about 1.1e-8) they warn (:class:`~qtheory.model.gated.IllConditionedWarning`).

References
----------
.. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026).
.. [2] N. M. Edelson and D. K. Hildebrand, "Congestion tolls for Poisson queuing
   processes", Econometrica 43(1):81-92 (1975).
.. [3] P. Naor, "The regulation of queue size by levying tolls", Econometrica
   37(1):15-24 (1969).
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Callable

import mpmath
import numpy as np

from qtheory.core import limits
from qtheory.core.numerics import bracketed_root_mp
from qtheory.core.phase_type import PhaseType
from qtheory.core.precision import check_dps, decimal_fraction, rounded
from qtheory.gated import _generated
from qtheory.gated.cost_optimum import (
    arrival_streams,
    customer_cost,
    optimal_gate_under,
    optimal_routing_under,
    price_of_forgetting_under,
)
from qtheory.gated.costs import LINEAR
from qtheory.gated.gim1_root import float_array, log_root, log_root_at_dps
from qtheory.gated.optima import GateOptimum, RoutingOptimum, as_float64, float64_value
from qtheory.gated.streams import PoissonStreams
from qtheory.model.gated import (
    ILL_CONDITIONED,
    UNIT_ROUNDOFF,
    GatedParameters,
    GatedQueue,
    checked_queue,
    exact_digits,
)

__all__ = [
    "GateOptimum",
    "RoutingOptimum",
    "optimal_gate",
    "optimal_routing",
    "price_of_forgetting",
    "renewal_welfare",
    "welfare_ga",
    "welfare_rr",
]

Real = float | mpmath.mpf
FLOAT64_DIGITS = 17


def renewal_welfare(reward: Real, cost: Real, sojourn_rate: Real, mean_gap: Real) -> Real:
    r"""The welfare of a renewal gate, :math:`S = (R - C/u)/E[G]`: the admission rate
    1/E[G] times an admitted customer's net value R − C E[W], whose sojourn W in the
    GI/M/1 queue is exponential with rate u = μ(1 − σ) (σ the root of the gate's
    interarrival law).  Every gate of the ladder (deterministic, Erlang, phase-type,
    Coxian) is priced by this one expression, in float64 or mpmath as given.

    Parameters
    ----------
    reward, cost : float or mpmath.mpf
        R and C.
    sojourn_rate : float or mpmath.mpf
        u = μ(1 − σ) > 0.
    mean_gap : float or mpmath.mpf
        E[G] = E[gate] + 1/Λ, the mean time between admissions.

    Returns
    -------
    float or mpmath.mpf

    Examples
    --------
    >>> renewal_welfare(3.0, 1.0, 0.5, 2.0)  # (3 - 1/0.5) / 2
    0.5
    """
    return (reward - cost / sojourn_rate) / mean_gap


def float64_rates(queue: GatedQueue) -> tuple[float, float, float, float]:
    """(Λ, μ, R, C) as float64 for a route that computes in float64 (the full-memory
    bracket and the rest of the ladder's float64 routes), after refusing what float64
    cannot carry: Naor's ratio ν = Rμ/C beyond float64, or μ, R, C or a finite Λ below
    the smallest normal float64 (which keeps fewer than 16 of its digits).

    Parameters
    ----------
    queue : GatedQueue

    Returns
    -------
    tuple of float
        :meth:`GatedQueue.float_rates` (Λ may be ``inf``).

    Raises
    ------
    ValueError
        Naming the parameter that puts ν beyond float64 (the one of R, μ and 1/C
        farthest from 1) or the subnormal parameter, with the rule.

    Examples
    --------
    >>> float64_rates(GatedQueue(2, 1, 3, 1))
    (2.0, 1.0, 3.0, 1.0)
    >>> float64_rates(GatedQueue(2, 1, 2, 1e-320))
    Traceback (most recent call last):
    ...
    ValueError: cost: nu = reward*service_rate/cost = 2.0e+320 is beyond float64 ...
    """
    with mpmath.workdps(30):
        p = queue.parameters(30)
        nu = 1 + p.epsilon
        if not nu < sys.float_info.max:
            size = {
                "reward": abs(mpmath.log(p.reward)),
                "service_rate": abs(mpmath.log(p.mu)),
                "cost": abs(mpmath.log(p.cost)),
            }
            name = max(size, key=size.__getitem__)
            raise ValueError(
                f"{name}: nu = reward*service_rate/cost = {mpmath.nstr(nu, 2)} is beyond "
                f"float64 (at most {sys.float_info.max:.3g}), which this float64 route needs; "
                f"{'raise' if name == 'cost' else 'reduce'} {name}"
            )
        values = {"service_rate": p.mu, "reward": p.reward, "cost": p.cost}
        if p.beta != 0:
            values["arrival_rate"] = 1 / p.beta
        for name, value in values.items():
            if abs(value) < sys.float_info.min:
                raise ValueError(
                    f"{name} = {mpmath.nstr(value, 3)} is below the smallest normal float64 "
                    f"{sys.float_info.min:.3g}, where float64 keeps fewer than 16 digits; "
                    "this float64 route needs normal numbers (rescale the time or money unit)"
                )
    return queue.float_rates()


def working_dps(queue: GatedQueue, dps: int) -> int:
    """Working digits for ``dps`` correct digits: 2 dps + 20 + the queue's guard digits,
    refused above the ``dps`` limit (before any work)."""
    digits = 2 * dps + 20 + queue.guard_digits()
    limits.require("dps", digits, parameter="dps", what="the optimum (with guard digits)")
    return digits


def welfare_ga(queue: GatedQueue, gate, *, dps: int | None = None):
    """S_GA(τ) = (R − C/(μ(1 − σ)))/(τ + 1/Λ), the welfare per unit time of gate τ.

    Parameters
    ----------
    queue : GatedQueue
        The queue (Λ, μ, R, C).
    gate : float or array_like (or str / mpf with ``dps``)
        Gate length(s) τ ≥ 0 with τ + 1/Λ > 1/μ (stable).
    dps : int or None, keyword-only
        None: vectorised float64 over ``gate``.  D ≥ 1: one mpf correct to D digits.

    Returns
    -------
    numpy.ndarray, float or mpmath.mpf

    Raises
    ------
    TypeError
        ``queue`` not a GatedQueue, ``gate`` not a number.
    ValueError
        Bad ``gate`` or ``dps``, an unstable queue, a parameter beyond float64 with
        ``dps=None``, or a precision above the ``dps`` limit.

    Warns
    -----
    IllConditionedWarning
        With ``dps=None``, when the relative condition (R + P)/|R − P| of the net
        reward (P = C/(μ(1 − σ)); ≥ ν/(ν − 1) where S_GA > 0) times the unit roundoff
        exceeds 1e-8 at some gate: the float64 parameters leave S_GA fewer digits
        than that (use ``dps``).

    Examples
    --------
    >>> q = GatedQueue(arrival_rate=np.inf, service_rate=1.0, reward=3.0, cost=1.0)
    >>> float(welfare_ga(q, 2.0)) > float(welfare_rr(q, 0.5))  # same throughput 1/2
    True
    >>> mpmath.nstr(welfare_ga(q, 2, dps=30), 30)[:12]
    '0.8724995125'

    References
    ----------
    See the module's References:

    - Hassin and Ravner (2026);
    - Edelson and Hildebrand (1975).
    """
    queue = checked_queue(queue)
    dps = check_dps(dps)
    if dps is None:
        p = queue.parameters()
        arrival = math.inf if p.beta == 0 else 1 / p.beta
        w = log_root(gate, arrival, p.mu)
        with np.errstate(divide="ignore", over="ignore"):
            penalty = p.cost / (-p.mu * np.expm1(-w))  # C/(μ(1 − σ))
        _warn_if_cancelled(queue, "welfare_ga", p.reward, penalty)
        return _generated.welfare_ga_float64(w, p.mu, p.beta, p.reward, p.cost)
    digits = working_dps(queue, dps)
    w = log_root_at_dps(gate, queue.arrival_rate, queue.service_rate, digits)
    with mpmath.workdps(digits):
        p = queue.parameters(dps)
        return rounded(_generated.welfare_ga_mp(w, p.mu, p.beta, p.reward, p.cost), dps)


def welfare_rr(queue: GatedQueue, rate, *, dps: int | None = None):
    """S_RR(λ) = λ(R − C/(μ − λ)) for 0 ≤ λ < μ, λ ≤ Λ, vectorised over ``rate``.

    Parameters
    ----------
    queue : GatedQueue
        The queue (Λ, μ, R, C).
    rate : float or array_like (or str / mpf with ``dps``)
        Admission rate(s) λ of random routing.
    dps : int or None, keyword-only
        None: vectorised float64 over ``rate``.  D ≥ 1: one mpf correct to D digits
        (S_RR is a rational function: evaluated exactly at the decimals, then rounded).

    Returns
    -------
    numpy.ndarray, float or mpmath.mpf
        S_RR(λ).

    Raises
    ------
    TypeError
        ``queue`` not a GatedQueue, ``rate`` not a number (or an array with ``dps``).
    ValueError
        ``rate`` outside [0, min(μ, Λ)] (μ excluded), a bad ``dps``, or (``dps=None``)
        a parameter beyond float64.

    Warns
    -----
    IllConditionedWarning
        With ``dps=None``, when the relative condition (R + P)/|R − P| of the net
        reward (P = C/(μ − λ); ≥ ν/(ν − 1) where S_RR > 0) times the unit roundoff
        exceeds 1e-8 at some rate: the float64 parameters leave S_RR fewer digits
        than that (use ``dps``).

    Examples
    --------
    >>> q = GatedQueue(arrival_rate=np.inf, service_rate=1.0, reward=3.0, cost=1.0)
    >>> float(welfare_rr(q, 0.5))
    0.5

    With ``dps`` the value is exact at the decimals, rounded: at R = 1.000000000001
    (ν − 1 = 1e-12) and λ = 5e-13 it is 5e-13·(1e-12 − 5e-13/(1 − 5e-13)):

    >>> near = GatedQueue(np.inf, 1.0, 1 + 1e-12, 1.0)
    >>> mpmath.nstr(welfare_rr(near, 5e-13, dps=20), 20)
    '2.49999999999875e-25'

    References
    ----------
    See the module's References:

    - Hassin and Ravner (2026);
    - Edelson and Hildebrand (1975).
    """
    queue = checked_queue(queue)
    dps = check_dps(dps)
    if dps is not None:
        return _welfare_rr_exact(queue, rate, dps)
    p = queue.parameters()
    rate = float_array("rate", rate)
    arrival = math.inf if p.beta == 0 else 1 / p.beta
    if not np.all((rate >= 0) & (rate < p.mu) & (rate <= arrival)):
        raise ValueError(
            "rate must satisfy 0 <= rate < service_rate and rate <= arrival_rate, got "
            f"{rate[~((rate >= 0) & (rate < p.mu) & (rate <= arrival))][:3]}"
        )
    with np.errstate(divide="ignore", over="ignore"):
        penalty = p.cost / (p.mu - rate)
    _warn_if_cancelled(queue, "welfare_rr", p.reward, penalty)
    return _generated.welfare_rr_float64(rate, p.mu, p.reward, p.cost)[()]


def _warn_if_cancelled(queue: GatedQueue, what: str, reward: float, penalty) -> None:
    """Warn (``IllConditionedWarning``, at the caller's caller) when the float64 net
    reward R − P (P = C/u or C/(μ − λ)) is ill-conditioned at some element: its
    relative condition (R + P)/|R − P| (ν/(ν − 1) where it is exactly 0) times the
    unit roundoff above 1e-8.  Checked in float64 first, so an ordinary call costs no
    mpmath."""
    penalty = np.asarray(penalty, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        net = np.abs(reward - penalty)
        condition = (abs(reward) + np.abs(penalty)) / net
    finite = np.isfinite(condition) & (net > 0)
    worst = float(np.max(condition[finite], initial=1.0))
    if np.any(net == 0) and worst * UNIT_ROUNDOFF <= ILL_CONDITIONED:
        worst = max(worst, abs(queue.condition()))  # a zero: ν/(ν − 1) decides
    if worst * UNIT_ROUNDOFF > ILL_CONDITIONED:
        queue.warn_if_ill_conditioned(what, worst, stacklevel=3)


def _welfare_rr_exact(queue: GatedQueue, rate, dps: int) -> mpmath.mpf:
    """S_RR(λ) in exact rationals at the decimals
    (:func:`~qtheory.core.precision.decimal_fraction`), rounded to ``dps`` digits."""
    if isinstance(rate, bool) or not isinstance(rate, str | mpmath.mpf | numbers.Real):
        raise TypeError(f"rate must be a real number, a decimal string or an mpf, got {rate!r}")
    limits.require("dps", exact_digits(rate), parameter="rate", what="reading rate exactly")
    lam = decimal_fraction(rate, name="rate")
    arrival, mu, reward, cost = (
        decimal_fraction(getattr(queue, name), name=name)
        for name in ("arrival_rate", "service_rate", "reward", "cost")
    )
    if lam is None or not (0 <= lam < mu and (arrival is None or lam <= arrival)):
        raise ValueError(
            f"rate must satisfy 0 <= rate < service_rate and rate <= arrival_rate, got {rate!r}"
        )
    value = lam * (reward - cost / (mu - lam))
    with mpmath.workdps(dps + 10):
        return rounded(mpmath.mpf(value.numerator) / value.denominator, dps)


def optimal_log_root(slope: Callable[[mpmath.mpf], mpmath.mpf], p: GatedParameters, dps: int):
    """The log-root w* = −log σ of a welfare-maximising gate, and whether it is τ = 0.

    The search starts where the net reward N turns positive (σ = 1 − 1/ν) or where the
    gate is 0 (σ = Λ/μ), whichever is larger: τ* = 0 when that is the no-gate point and
    the first-order condition ``slope`` (N'D − ND') is already ≤ 0 there; otherwise the
    bracket doubles until ``slope`` turns ≤ 0 and its root is found to ``dps + 2``
    digits (:func:`~qtheory.core.numerics.bracketed_root_mp`).  Call it inside
    ``mpmath.workdps`` with guard digits beyond ``dps`` (:func:`working_dps`).

    Parameters
    ----------
    slope : callable
        w -> the first-order condition in mpf, positive below w* and negative above.
    p : GatedParameters
        The queue's parameters in mpf (``queue.parameters(dps)``).
    dps : int
        Digits of the root.

    Returns
    -------
    tuple of (mpmath.mpf, bool)
        w* and whether τ* = 0.

    Examples
    --------
    >>> q = GatedQueue(arrival_rate=np.inf, service_rate=1.0, reward=3.0, cost=1.0)
    >>> with mpmath.workdps(working_dps(q, 20)):
    ...     p = q.parameters(20)
    ...     args = (p.mu, p.beta, p.reward, p.cost)
    ...     w, at_boundary = optimal_log_root(
    ...         lambda w: _generated.welfare_ga_first_order_mp(w, *args), p, 20)
    >>> round(float(mpmath.exp(-w)), 6), at_boundary
    (0.304576, False)
    """
    w_zero_net = mpmath.log1p(1 / p.epsilon)  # N = 0: σ = 1 - 1/ν, w = log(ν/(ν - 1))
    mu_beta = p.mu * p.beta
    w_no_gate = mpmath.log(mu_beta) if mu_beta > 1 else mpmath.mpf(0)  # τ = 0: σ = Λ/μ
    at_boundary = w_no_gate >= w_zero_net and slope(w_no_gate) <= 0
    if at_boundary:
        return w_no_gate, at_boundary
    lo = max(w_zero_net, w_no_gate)
    hi = lo + 1
    while slope(hi) > 0:
        hi = 2 * hi
    return bracketed_root_mp(slope, lo, hi, dps + 2), at_boundary


def _optimal_gate_mp(queue: GatedQueue, dps: int) -> GateOptimum:
    p = queue.parameters(dps)
    args = (p.mu, p.beta, p.reward, p.cost)

    def slope(w):
        return _generated.welfare_ga_first_order_mp(w, *args)

    w, at_boundary = optimal_log_root(slope, p, dps)
    return GateOptimum(
        gate=mpmath.mpf(0) if at_boundary else _generated.gate_of_root_mp(w, p.mu, p.beta),
        root=mpmath.exp(-w),
        log_root=w,
        welfare=_generated.welfare_ga_mp(w, *args),
        throughput=_generated.throughput_mp(w, p.mu, p.beta),
        mean_sojourn=_generated.mean_sojourn_mp(w, p.mu, p.beta),
        at_boundary=bool(at_boundary),
    )


def _optimal_routing_mp(queue: GatedQueue, dps: int) -> RoutingOptimum:
    p = queue.parameters(dps)
    unconstrained = _generated.rr_optimal_rate_excess_mp(p.mu, p.epsilon)
    arrival = 1 / p.beta if p.beta else None
    if arrival is not None and arrival <= unconstrained:
        welfare = _generated.welfare_rr_mp(arrival, p.mu, p.reward, p.cost)
        return RoutingOptimum(arrival, welfare, True)
    welfare = _generated.rr_optimal_welfare_excess_mp(p.epsilon, p.cost)
    return RoutingOptimum(unconstrained, welfare, False)


def _price_of_forgetting_mp(queue: GatedQueue, dps: int) -> mpmath.mpf:
    return _optimal_gate_mp(queue, dps).welfare / _optimal_routing_mp(queue, dps).welfare


def _optimum(queue: object, dps: object, compute: Callable[[GatedQueue, int], object]):
    """``compute(queue, digits)`` at the working precision: float64 (``dps=None``) or
    rounded to ``dps`` digits; validation and the cost check come first."""
    queue = checked_queue(queue)
    dps = check_dps(dps)
    queue.require_worthwhile()
    digits = FLOAT64_DIGITS if dps is None else dps
    with mpmath.workdps(working_dps(queue, digits)):
        optimum = compute(queue, digits)
    if dps is not None:
        return rounded(optimum, dps)
    if isinstance(optimum, mpmath.mpf):
        return float64_value("price_of_forgetting", optimum)
    return as_float64(optimum)


def _dispatch(queue, dps, model, closed_form, general):
    """The linear-cost Poisson model by its closed form (``closed_form`` through
    :func:`_optimum`), any other ``model = (sojourn_cost, holding_cost, arrivals)`` by the
    cost optimiser's ``general`` (:mod:`qtheory.gated.cost_optimum`)."""
    sojourn, holding, arrivals = model
    cost, streams = customer_cost(sojourn, holding), arrival_streams(arrivals)
    if cost is None and streams is None:
        return _optimum(queue, dps, closed_form)
    return general(queue, cost or LINEAR, streams=streams or PoissonStreams, dps=dps)


def optimal_gate(
    queue: GatedQueue,
    *,
    dps: int | None = None,
    sojourn_cost: str | Callable | None = None,
    holding_cost: str | None = None,
    arrivals: str | PhaseType | None = None,
) -> GateOptimum:
    """The welfare-maximising gate τ* and S_GA(τ*).

    τ* maximises S_GA(τ) = N/D over τ ≥ 0, with N = R − C/(μ(1 − σ)) the net reward of
    an admitted customer and D = τ + 1/Λ the mean admitted inter-arrival time; in
    w = −log σ the optimum is the root of N'(w)D(w) − N(w)D'(w) = 0, or τ* = 0 when
    the slope is already ≤ 0 there (see the module notes).

    Parameters
    ----------
    queue : GatedQueue
        The queue; Naor's ratio ν = Rμ/C must exceed 1.
    dps : int or None, keyword-only
        None: float64.  D ≥ 1: mpf values correct to D digits.
    sojourn_cost, holding_cost : str, callable or None, keyword-only
        Another cost than C per customer per unit time (at most one): each admitted
        customer pays C φ(W) for its sojourn W (``power:p``, ``deadline:d``,
        ``exponential:θ`` or a nondecreasing callable φ), or C n^p per unit time while
        n are present (``power:p``); None or ``linear`` is the model above.  Computed by
        :mod:`qtheory.gated.cost_optimum`, whose record says whether the optimum is
        proved unique or numerical and whether a supremum is attained.
    arrivals : str, PhaseType or None, keyword-only
        Renewal potential arrivals of mean gap 1/Λ instead of Poisson: ``erlang:K``,
        ``hyperexp:SCV``, ``fit:SCV`` or a PhaseType (:mod:`qtheory.gated.renewal`);
        None or ``poisson`` is the model above.  Computed by the same optimiser
        (numerical evidence), with any of the costs.

    Returns
    -------
    GateOptimum
        τ*, σ, w, S_GA(τ*), the throughput, the mean sojourn and whether τ* = 0;
        float64 fields (``dps=None``) or mpf fields correct to D digits.

    Raises
    ------
    TypeError
        ``queue`` not a GatedQueue.
    ValueError
        ν ≤ 1, a bad ``dps``, a precision above the ``dps`` limit, or (``dps=None``) a
        value beyond float64.

    Examples
    --------
    >>> q = GatedQueue(arrival_rate=np.inf, service_rate=1.0, reward=3.0, cost=1.0)
    >>> opt = optimal_gate(q)
    >>> grid = np.linspace(1.05, 4.0, 20001)
    >>> bool(abs(opt.welfare - welfare_ga(q, grid).max()) < 1e-8)
    True
    >>> round(opt.gate, 6), opt.at_boundary
    (1.70951, False)

    With Λ = ∞ and μ = 1 the welfare in σ is C(ν − 1 − νσ)/(−log σ), maximised at
    σ ≈ 0.304576 (then τ* = −log σ/(1 − σ)):

    >>> round(opt.root, 6), round(opt.welfare, 6)
    (0.304576, 0.913728)

    References
    ----------
    See the module's References: Hassin and Ravner (2026).
    """
    model = (sojourn_cost, holding_cost, arrivals)
    return _dispatch(queue, dps, model, _optimal_gate_mp, optimal_gate_under)


def optimal_routing(
    queue: GatedQueue,
    *,
    dps: int | None = None,
    sojourn_cost: str | Callable | None = None,
    holding_cost: str | None = None,
    arrivals: str | PhaseType | None = None,
) -> RoutingOptimum:
    """The Edelson–Hildebrand optimum λ* = min(Λ, μ − √(μC/R)) and S_RR(λ*).

    S_RR(λ) = λ(R − C/(μ − λ)) is concave on [0, μ); its stationary point is
    μ − √(μC/R) = μ(1 − 1/√ν), where S_RR = C(√ν − 1)², evaluated in ε = ν − 1 as
    Cε²/(√(1 + ε) + 1)² so that it does not cancel when ν ↓ 1.  When Λ is below that
    point, λ* = Λ (everybody is admitted).

    Parameters
    ----------
    queue : GatedQueue
        The queue; Naor's ratio ν = Rμ/C must exceed 1.
    dps : int or None, keyword-only
        None: float64.  D ≥ 1: mpf values correct to D digits.
    sojourn_cost, holding_cost : str, callable or None, keyword-only
        Another cost than C per customer per unit time (at most one): each admitted
        customer pays C φ(W) for its sojourn W (``power:p``, ``deadline:d``,
        ``exponential:θ`` or a nondecreasing callable φ), or C n^p per unit time while
        n are present (``power:p``); None or ``linear`` is the model above.  Computed by
        :mod:`qtheory.gated.cost_optimum`, whose record says whether the optimum is
        proved unique or numerical and whether a supremum is attained.
    arrivals : str, PhaseType or None, keyword-only
        Renewal potential arrivals of mean gap 1/Λ instead of Poisson: ``erlang:K``,
        ``hyperexp:SCV``, ``fit:SCV`` or a PhaseType (:mod:`qtheory.gated.renewal`);
        None or ``poisson`` is the model above.  Computed by the same optimiser
        (numerical evidence), with any of the costs.

    Returns
    -------
    RoutingOptimum
        λ*, S_RR(λ*) and whether λ* = Λ; float64 fields (``dps=None``) or mpf fields
        correct to D digits.

    Raises
    ------
    TypeError
        ``queue`` not a GatedQueue.
    ValueError
        ν ≤ 1, a bad ``dps``, a precision above the ``dps`` limit, or (``dps=None``) a
        value beyond float64.

    Examples
    --------
    >>> q = GatedQueue(arrival_rate=np.inf, service_rate=1.0, reward=4.0, cost=1.0)
    >>> optimal_routing(q)
    RoutingOptimum(rate=0.5, welfare=1.0, at_boundary=False)
    >>> opt = optimal_routing(GatedQueue(0.25, 1.0, 4.0, 1.0))  # Λ < μ(1 − 1/√ν)
    >>> opt.rate, round(opt.welfare, 6), opt.at_boundary  # 0.25 (4 − 1/0.75) = 2/3
    (0.25, 0.666667, True)

    References
    ----------
    See the module's References:

    - Hassin and Ravner (2026);
    - Edelson and Hildebrand (1975).
    """
    model = (sojourn_cost, holding_cost, arrivals)
    return _dispatch(queue, dps, model, _optimal_routing_mp, optimal_routing_under)


def price_of_forgetting(
    queue: GatedQueue,
    *,
    dps: int | None = None,
    sojourn_cost: str | Callable | None = None,
    holding_cost: str | None = None,
    arrivals: str | PhaseType | None = None,
) -> Real:
    """PoF = S_GA(τ*) / S_RR(λ*) ≥ 1: the welfare ratio lost by forgetting admissions.

    Gated admission remembers the time of the last admission, random routing does
    not; PoF is the ratio of their optimal welfares (:func:`optimal_gate`,
    :func:`optimal_routing`).  It diverges like 4/(ε log(1/ε)) as ν = 1 + ε ↓ 1 and
    tends to 1 as ν → ∞ (:mod:`qtheory.gated.asymptotics`).

    Parameters
    ----------
    queue : GatedQueue
        The queue; Naor's ratio ν = Rμ/C must exceed 1.
    dps : int or None, keyword-only
        None: float64.  D ≥ 1: mpf values correct to D digits.
    sojourn_cost, holding_cost : str, callable or None, keyword-only
        Another cost than C per customer per unit time (at most one): each admitted
        customer pays C φ(W) for its sojourn W (``power:p``, ``deadline:d``,
        ``exponential:θ`` or a nondecreasing callable φ), or C n^p per unit time while
        n are present (``power:p``); None or ``linear`` is the model above.  Computed by
        :mod:`qtheory.gated.cost_optimum`, whose record says whether the optimum is
        proved unique or numerical and whether a supremum is attained.
    arrivals : str, PhaseType or None, keyword-only
        Renewal potential arrivals of mean gap 1/Λ instead of Poisson: ``erlang:K``,
        ``hyperexp:SCV``, ``fit:SCV`` or a PhaseType (:mod:`qtheory.gated.renewal`);
        None or ``poisson`` is the model above.  Computed by the same optimiser
        (numerical evidence), with any of the costs.

    Returns
    -------
    float or mpmath.mpf
        PoF ≥ 1: float64 (``dps=None``) or an mpf correct to D digits.

    Raises
    ------
    TypeError
        ``queue`` not a GatedQueue.
    ValueError
        ν ≤ 1, a bad ``dps``, a precision above the ``dps`` limit, or (``dps=None``) a
        value beyond float64.

    Examples
    --------
    >>> q = GatedQueue(arrival_rate=np.inf, service_rate=1.0, reward=4.0, cost=1.0)
    >>> round(price_of_forgetting(q), 6)
    1.529614
    >>> mpmath.nstr(price_of_forgetting(q, dps=30), 30)[:8]
    '1.529614'

    Here S_RR* = C(√ν − 1)² = 1, so PoF is S_GA* = max over σ of (3 − 4σ)/(−log σ).

    References
    ----------
    See the module's References:

    - Hassin and Ravner (2026);
    - Edelson and Hildebrand (1975).
    """
    model = (sojourn_cost, holding_cost, arrivals)
    return _dispatch(queue, dps, model, _price_of_forgetting_mp, price_of_forgetting_under)
