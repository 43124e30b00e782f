r"""The GI/M/1 root of the gated queue: :math:`\sigma\in(0,1)` with
:math:`\sigma = A^*(\mu(1-\sigma))`, :math:`A^*(s) = e^{-s\tau}\Lambda/(\Lambda+s)`.

:math:`\sigma = 1` always solves the equation, so no solver here looks at it.  Instead we
solve :math:`\tau(w) = \tau` for :math:`w = -\log\sigma`, where :math:`\tau(w)` is the
closed-form inverse derived in :mod:`qtheory.gated.derivation`.  :math:`\tau(w)` increases
strictly from :math:`\tau(0^+) = 1/\mu - 1/\Lambda` (the stability boundary) to
:math:`\infty`, and the bracket

.. math:: 0 < w^* < \mu\tau + \log(1 + \mu/\Lambda) + 1

holds because :math:`\tau(w) \ge (w - \log(1+\mu/\Lambda))/\mu`.  The root is found on
that bracket, so the trivial root can never be returned.

Near the stability boundary :math:`\tau(w)` and :math:`\tau` agree to many digits, so the
float64 solver works with the distance from the boundary instead: with
:math:`u = \mu(1-e^{-w})` and :math:`\beta = 1/\Lambda`,

.. math:: \tau(w) - \Bigl(\frac1\mu - \beta\Bigr)
          = \frac{\bigl(w - (1 - e^{-w})\bigr) + \bigl(\beta u - \log(1+\beta u)\bigr)}{u},

whose two brackets are evaluated by the series kernels of :mod:`qtheory.numerics` (the
tests check this against the Sympy expression ``gate_excess`` in mpmath).  σ = e^{-w} and
1 − σ = −expm1(−w) then keep full relative accuracy from light traffic to the boundary
(for μτ ≳ 745 the float64 σ underflows to 0 while ``w`` stays exact; use
:func:`log_root` or the mpmath routes there).
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
from scipy.optimize import elementwise

from qtheory.gated.derivation import derive
from qtheory.gated.model import Number, exact_digits, to_mpf
from qtheory.numerics import bracketed_root_mp, w_plus_expm1_neg, x_minus_log1p
from qtheory.symbolic import lambdify_interval

__all__ = ["log_root", "root", "root_enclosure", "root_mp"]

_TINY_W = 1e-250  # lower end of every bracket; tau(w) is continuous down to w = 0
_UNSTABLE = (
    "unstable: gate + 1/arrival_rate must exceed 1/service_rate "
    "(the mean admitted inter-arrival time must exceed the mean service time)"
)


def validate_gate_parameters(gate, arrival_rate, service_rate):
    """Broadcast and check (gate, Λ, μ); return (gate, β = 1/Λ, μ, δ) as float arrays,
    where δ = gate + β − 1/μ > 0 is the distance from the stability boundary."""
    gate, arrival_rate, service_rate = np.broadcast_arrays(
        np.asarray(gate, dtype=float),
        np.asarray(arrival_rate, dtype=float),
        np.asarray(service_rate, dtype=float),
    )
    if not np.all(np.isfinite(gate) & (gate >= 0)):
        raise ValueError(f"gate must be finite and >= 0, got {gate[~(gate >= 0)][:3]}")
    if not np.all(arrival_rate > 0):  # NaN fails too
        raise ValueError("arrival_rate must be > 0 (inf allowed)")
    with np.errstate(over="ignore"):
        beta = 1.0 / arrival_rate
    if not np.all(np.isfinite(beta)):
        raise ValueError("arrival_rate is too small: 1/arrival_rate overflows")
    if not np.all(np.isfinite(service_rate) & (service_rate > 0)):
        raise ValueError("service_rate must be finite and > 0")
    # gate + beta - 1/mu, with the larger terms first to limit rounding
    excess = (gate - 1.0 / service_rate) + beta
    if not np.all(excess > 0):
        raise ValueError(_UNSTABLE)
    return gate, beta, service_rate, excess


def _boundary_distance(w, mu, beta):
    """τ(w) − (1/μ − β), accurate near w = 0 (see the module docstring)."""
    u = -mu * np.expm1(-w)
    return (w_plus_expm1_neg(w) + x_minus_log1p(beta * u)) / u


def log_root(gate, arrival_rate, service_rate) -> np.ndarray:
    """``w = -log σ`` for the gated queue, vectorised over broadcastable arrays.

    Examples
    --------
    Deterministic gate (Λ = ∞), μτ = 2: σ solves σ = exp(-2(1-σ)).

    >>> w = log_root(2.0, np.inf, 1.0)
    >>> sigma = float(np.exp(-w))
    >>> round(sigma, 12), bool(abs(sigma - np.exp(-2 * (1 - sigma))) < 1e-15)
    (0.20318786998, True)
    """
    gate, beta, mu, excess = validate_gate_parameters(gate, arrival_rate, service_rate)
    upper = mu * gate + np.log1p(mu * beta) + 1.0
    result = elementwise.find_root(
        lambda w, d, m, b: _boundary_distance(w, m, b) - d,
        (np.full_like(upper, _TINY_W), upper),
        args=(excess, mu, beta),
    )
    if not np.all(result.success):
        raise RuntimeError(f"root bracketing failed (status {np.unique(result.status)})")
    return result.x[()]


def root(gate, arrival_rate, service_rate) -> np.ndarray:
    """σ ∈ (0, 1), the GI/M/1 root of the gated queue (vectorised float64).

    Examples
    --------
    With Λ < μ and no gate the queue is M/M/1 with rate Λ, so σ = Λ/μ:

    >>> round(float(root(0.0, 0.5, 1.0)), 14)
    0.5
    """
    return np.exp(-log_root(gate, arrival_rate, service_rate))


def _mp_parameters(gate: Number, arrival_rate: Number, service_rate: Number):
    """(τ, β, μ, δ) in mpmath at the current precision, validated."""
    values = []
    for name, value in (
        ("gate", gate),
        ("arrival_rate", arrival_rate),
        ("service_rate", service_rate),
    ):
        try:
            values.append(to_mpf(value))
        except (TypeError, ValueError) as error:
            raise ValueError(f"{name} must be a real number, got {value!r}") from error
    tau, arrival, mu = values
    if mpmath.isnan(tau) or not 0 <= tau < mpmath.inf:
        raise ValueError(f"gate must be finite and >= 0, got {gate!r}")
    if mpmath.isnan(arrival) or not arrival > 0:
        raise ValueError(f"arrival_rate must be > 0 (inf allowed), got {arrival_rate!r}")
    if mpmath.isnan(mu) or not 0 < mu < mpmath.inf:
        raise ValueError(f"service_rate must be finite and > 0, got {service_rate!r}")
    beta = mpmath.mpf(0) if mpmath.isinf(arrival) else 1 / arrival
    excess = tau + beta - 1 / mu
    if not excess > 0:
        raise ValueError(_UNSTABLE)
    return tau, beta, mu, excess


def _working_digits(dps: int, gate: Number, arrival_rate: Number, service_rate: Number) -> int:
    """dps plus guard digits for the cancellation near the stability boundary."""
    with mpmath.workdps(exact_digits(gate, arrival_rate, service_rate)):
        tau, beta, mu, excess = _mp_parameters(gate, arrival_rate, service_rate)
        closeness = mpmath.log10((tau + beta) / excess)
    return dps + 10 + 2 * math.ceil(float(closeness))


def _log_root_mp(tau, beta, mu, digits: int):
    gate_of_root = derive().gate_of_root.mp
    upper = mu * tau + mpmath.log1p(mu * beta) + 1
    lower = mpmath.mpf(10) ** (-digits - 50)
    return bracketed_root_mp(lambda w: gate_of_root(w, mu, beta) - tau, lower, upper, digits)


def root_mp(gate: Number, arrival_rate: Number, service_rate: Number, dps: int = 50) -> mpmath.mpf:
    """σ with about ``dps`` correct significant digits (inputs may be strings or mpf).

    The result carries guard digits beyond ``dps``; round it when printing.

    >>> s = root_mp(2, "inf", 1, dps=30)
    >>> mpmath.nstr(s, 25)  # -W(-2 exp(-2))/2 by mpmath.lambertw agrees
    '0.2031878699799799538384791'
    """
    digits = _working_digits(dps, gate, arrival_rate, service_rate)
    with mpmath.workdps(digits):
        tau, beta, mu, _ = _mp_parameters(gate, arrival_rate, service_rate)
        return mpmath.exp(-_log_root_mp(tau, beta, mu, dps + 5))


def _interval(value: Number):
    """An interval that contains the input exactly (decimal strings are enclosed)."""
    iv = mpmath.iv
    if isinstance(value, str) and value.strip().lower() in ("inf", "+inf", "infinity"):
        return iv.mpf(mpmath.inf)
    return iv.mpf(value) if isinstance(value, str) else iv.mpf(mpmath.mpf(value))


def root_enclosure(gate: Number, arrival_rate: Number, service_rate: Number, dps: int = 50):
    """An interval certified to contain σ, of relative width about ``10**-dps`` in
    w = −log σ.

    The residual ``f(σ) = A*(μ(1-σ)) - σ`` is convex on [0, 1] with ``f(0) > 0`` and
    ``f(1) = 0``, so on a stable queue it is positive below the nontrivial root and
    negative between it and 1.  Interval arithmetic (inputs enclosed as intervals too)
    proves ``f(lo) > 0`` and ``f(hi) < 0`` for ``hi < 1``; by the intermediate value
    theorem σ lies in [lo, hi].

    >>> enclosure = root_enclosure(2, "inf", 1, dps=20)
    >>> bool(enclosure.delta < 1e-19)
    True
    """
    residual = derive().root_residual
    evaluate = lambdify_interval(residual.args, residual.numeric_expr)
    digits = _working_digits(dps, gate, arrival_rate, service_rate)
    with mpmath.workdps(digits):
        tau, beta, mu, _ = _mp_parameters(gate, arrival_rate, service_rate)
        w = _log_root_mp(tau, beta, mu, dps + 5)
        half_width = abs(w) * mpmath.mpf(10) ** (-dps - 2)
        lo, hi = mpmath.exp(-(w + half_width)), mpmath.exp(-(w - half_width))
    iv = mpmath.iv
    saved, iv.dps = iv.dps, 2 * digits
    try:
        arrival = _interval(arrival_rate)
        beta_iv = iv.mpf(0) if mpmath.isinf(arrival.a) else 1 / arrival
        inputs = (
            iv.mpf(service_rate) if isinstance(service_rate, str) else _interval(service_rate),
            _interval(gate),
            beta_iv,
        )
        at_lo = evaluate(iv.mpf(lo), *inputs)
        at_hi = evaluate(iv.mpf(hi), *inputs)
        if not (at_lo.a > 0 and at_hi.b < 0 and hi < 1):
            raise ArithmeticError("could not certify the enclosure of sigma; raise dps")
        return iv.mpf([lo, hi])
    finally:
        iv.dps = saved
