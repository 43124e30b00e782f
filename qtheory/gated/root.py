r"""The GI/M/1 root of the gated queue: :math:`\sigma\in(0,1)` with
:math:`\sigma = A^*(\mu(1-\sigma))`, :math:`A^*(s) = e^{-s\tau}\Lambda/(\Lambda+s)`.

:math:`\sigma = 1` always solves the equation, so no solver here looks at it.  Instead we
solve :math:`\tau(w) = \tau` for :math:`w = -\log\sigma`, where :math:`\tau(w)` is the
closed-form inverse derived in :mod:`qtheory.gated.derivation`.  :math:`\tau(w)` increases
strictly from :math:`\tau(0^+) = 1/\mu - 1/\Lambda` (the stability boundary) to
:math:`\infty`, and the bracket

.. math:: 0 < w^* < \mu\tau + \log(1 + \mu/\Lambda) + 1

holds because :math:`\tau(w) \ge (w - \log(1+\mu/\Lambda))/\mu`.  The root is found on
that bracket, so the trivial root can never be returned; :math:`\sigma = e^{-w}` and
:math:`1-\sigma = -\operatorname{expm1}(-w)` keep full relative accuracy at both ends
(for :math:`\mu\tau \gtrsim 745` the float64 value of σ underflows to 0 while ``w``
stays exact; use :func:`log_root` or the mpmath routes there).
"""

from __future__ import annotations

import mpmath
import numpy as np
from scipy.optimize import elementwise

from qtheory.gated.derivation import derive
from qtheory.symbolic import lambdify_interval

__all__ = ["log_root", "root", "root_mp", "root_enclosure"]

_TINY_W = 1e-250  # lower end of every bracket; tau(w) is continuous down to w = 0


def validate_gate_parameters(gate, arrival_rate, service_rate):
    """Broadcast and check (gate, Λ, μ); return (gate, β = 1/Λ, μ) as float arrays."""
    gate, arrival_rate, service_rate = np.broadcast_arrays(
        np.asarray(gate, dtype=float),
        np.asarray(arrival_rate, dtype=float),
        np.asarray(service_rate, dtype=float),
    )
    if not np.all(np.isfinite(gate) & (gate >= 0)):
        raise ValueError("gate must be finite and >= 0")
    if not np.all(arrival_rate > 0):  # NaN fails too
        raise ValueError("arrival_rate must be > 0 (inf allowed)")
    if not np.all(np.isfinite(service_rate) & (service_rate > 0)):
        raise ValueError("service_rate must be finite and > 0")
    beta = 1.0 / arrival_rate
    if not np.all(gate + beta > 1.0 / service_rate):
        raise ValueError(
            "unstable: gate + 1/arrival_rate must exceed 1/service_rate "
            "(mean admitted inter-arrival time longer than a mean service time)"
        )
    return gate, beta, service_rate


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
    gate, beta, mu = validate_gate_parameters(gate, arrival_rate, service_rate)
    gate_of_root = derive().gate_of_root.float64
    upper = mu * gate + np.log1p(mu * beta) + 1.0
    result = elementwise.find_root(
        lambda w, g, m, b: gate_of_root(w, m, b) - g,
        (np.full_like(upper, _TINY_W), upper),
        args=(gate, mu, beta),
    )
    if not np.all(result.success):
        raise RuntimeError(f"root bracketing failed (status {np.unique(result.status)})")
    return result.x[()]


def root(gate, arrival_rate, service_rate) -> np.ndarray:
    """σ ∈ (0, 1), the GI/M/1 root of the gated queue (vectorised float64).

    Examples
    --------
    With Λ < μ and no gate the queue is M/M/1 with rate Λ, so σ = Λ/μ:

    >>> float(root(0.0, 0.5, 1.0))
    0.5
    """
    return np.exp(-log_root(gate, arrival_rate, service_rate))


def _mp_parameters(gate, arrival_rate, service_rate):
    validate_gate_parameters(float(gate), float(arrival_rate), float(service_rate))
    beta = mpmath.mpf(0) if mpmath.isinf(mpmath.mpf(arrival_rate)) else 1 / mpmath.mpf(arrival_rate)
    return mpmath.mpf(gate), beta, mpmath.mpf(service_rate)


def _log_root_mp(gate, beta, mu):
    gate_of_root = derive().gate_of_root.mp
    start = mpmath.mpf(float(log_root(float(gate), float(1 / beta) if beta else np.inf, float(mu))))
    return mpmath.findroot(lambda w: gate_of_root(w, mu, beta) - gate, start, solver="secant")


def root_mp(gate, arrival_rate, service_rate, dps: int = 50) -> mpmath.mpf:
    """σ to ``dps`` significant digits (mpmath; inputs may be strings or mpf).

    >>> import mpmath
    >>> s = root_mp(2, "inf", 1, dps=30)
    >>> mpmath.nstr(s, 25)  # -W(-2 exp(-2))/2 by mpmath.lambertw agrees
    '0.2031878699799799538384791'
    """
    with mpmath.workdps(dps + 10):
        gate, beta, mu = _mp_parameters(gate, arrival_rate, service_rate)
        sigma = mpmath.exp(-_log_root_mp(gate, beta, mu))
    with mpmath.workdps(dps):
        return +sigma


def root_enclosure(gate, arrival_rate, service_rate, dps: int = 50) -> mpmath.ctx_iv.ivmpf:
    """An interval, of relative width about ``10**-dps``, certified to contain σ.

    The residual ``f(σ) = A*(μ(1-σ)) - σ`` is convex on [0, 1] with ``f(0) > 0`` and
    ``f(1) = 0``, so on a stable queue it is positive below the nontrivial root and
    negative between it and 1.  Interval arithmetic proves ``f(lo) > 0`` and
    ``f(hi) < 0`` for ``hi < 1``; by the intermediate value theorem σ lies in [lo, hi].

    >>> enclosure = root_enclosure(2, "inf", 1, dps=20)
    >>> enclosure.delta < 1e-19
    True
    """
    residual = derive().root_residual
    evaluate = lambdify_interval(residual.args, residual.numeric_expr)
    with mpmath.workdps(dps + 10):
        gate, beta, mu = _mp_parameters(gate, arrival_rate, service_rate)
        w = _log_root_mp(gate, beta, mu)
        half_width = abs(w) * mpmath.mpf(10) ** (-dps - 2)
        lo, hi = mpmath.exp(-(w + half_width)), mpmath.exp(-(w - half_width))
    iv = mpmath.iv
    saved, iv.dps = iv.dps, dps + 10
    try:
        at_lo = evaluate(iv.mpf(lo), iv.mpf(mu), iv.mpf(gate), iv.mpf(beta))
        at_hi = evaluate(iv.mpf(hi), iv.mpf(mu), iv.mpf(gate), iv.mpf(beta))
        if not (at_lo.a > 0 and at_hi.b < 0 and hi < 1):
            raise ArithmeticError("could not certify the enclosure of sigma; raise dps")
        return iv.mpf([lo, hi])
    finally:
        iv.dps = saved
