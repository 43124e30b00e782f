r"""The GI/M/1 root of the gated queue: :math:`\sigma\in(0,1)` with
:math:`\sigma = A^*(\mu(1-\sigma))`, :math:`A^*(s) = e^{-s\tau}\Lambda/(\Lambda+s)`.

:math:`\sigma = 1` always solves the equation, so no solver here looks at it.  Instead we
solve :math:`\tau(w) = \tau` for :math:`w = -\log\sigma`, where :math:`\tau(w)` is the
closed-form inverse derived in :mod:`qtheory.gated.derivation`.  :math:`\tau(w)` increases
strictly from :math:`\tau(0^+) = 1/\mu - 1/\Lambda` (the stability boundary) to
:math:`\infty`, and since :math:`\tau(w) \ge (w - \log(1+\mu/\Lambda))/\mu`, the bracket

.. math:: 0 < w^* < 2\bigl(\mu\tau + \log(1 + \mu/\Lambda)\bigr) + 1

holds with room to spare: at its upper end :math:`\tau(w) - \tau \ge \tau + 1/\mu`, a
gap that float64 resolves whatever the size of :math:`\mu\tau` (the tighter end
:math:`\mu\tau + \log(1+\mu/\Lambda) + 1` is only :math:`1/\mu` above :math:`\tau`, which
rounding erases once :math:`\mu\tau \gtrsim 10^{16}`).  The root is found on that
bracket, so the trivial root can never be returned.  Away from the boundary
(:math:`w^* > 1`) the float64 solver uses the direct form
:math:`h(w) = w - u\tau - \log(1+\beta u) = u(\tau(w) - \tau)`, whose terms are at most
:math:`w`, on :math:`[1, \text{upper end}]`.

Near the stability boundary :math:`\tau(w)` and :math:`\tau` agree to many digits, so the
float64 solver works with the distance from the boundary instead: with
:math:`u = \mu(1-e^{-w})` and :math:`\beta = 1/\Lambda`,

.. math:: \tau(w) - \Bigl(\frac1\mu - \beta\Bigr)
          = \frac{\bigl(w - (1 - e^{-w})\bigr) + \bigl(\beta u - \log(1+\beta u)\bigr)}{u},

whose two brackets are evaluated by the series kernels of :mod:`qtheory.core.numerics` (the
tests check this against the Sympy expression ``gate_excess`` in mpmath).  σ = e^{-w} and
1 − σ = −expm1(−w) then keep full relative accuracy from light traffic to the boundary.
Where float64 cannot evaluate that distance (``μ/Λ`` or ``μτ`` beyond float64), the
element is solved in mpmath instead and rounded to float64; σ underflows to 0 for
``μτ > 800`` (``w`` stays exact in :func:`log_root` while it is a float64 number).

Parameters are read as in :mod:`qtheory.model.gated`: with ``dps=D`` (and in
:func:`root_enclosure`) a float is its ``repr`` decimal (0.6 = 3/5), a string the
decimal it spells, an mpf its binary value; the float64 routes solve at the floats
themselves (their mpmath fallback too).

High precision (``dps=D``): the same equation in mpmath, at ``D`` digits plus guard
digits for the cancellation near the boundary (``2 log10((τ + 1/Λ)/δ)``, δ the distance
from it) and for the size of ``w`` (σ = e^{−w} is correct to D digits only if ``w`` is
correct to ``D + log10 w``); the estimate is checked against
:func:`qtheory.core.limits.limit` ``("dps")`` before any work.

References
----------
.. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026).
.. [2] L. Kleinrock, Queueing Systems, Vol. I: Theory, Wiley (1975), Sec. 6.4 (GI/M/1).
"""

from __future__ import annotations

import math
import numbers

import mpmath
import numpy as np

from qtheory.core import limits
from qtheory.core.numerics import bracketed_root_mp, w_plus_expm1_neg, x_minus_log1p
from qtheory.core.precision import check_dps, required_dps, rounded
from qtheory.gated import _generated
from qtheory.model.gated import Number, exact_digits, to_mpf

__all__ = ["log_root", "root", "root_enclosure"]

_TINY_W = 1e-250  # lower end of every bracket; tau(w) is continuous down to w = 0
_UNDERFLOW_MU_TAU = 800.0  # mu*tau above this: w > 745, so sigma = e^-w is 0 in float64
_FALLBACK_DIGITS = 20  # mpmath digits of the float64 fallback (then rounded to float64)
_UNSTABLE = (
    "unstable: gate + 1/arrival_rate must exceed 1/service_rate "
    "(the mean admitted inter-arrival time must exceed the mean service time)"
)
_NAMES = ("gate", "arrival_rate", "service_rate")


def float_array(name: str, value: object) -> np.ndarray:
    """``value`` as a float64 array; strings, booleans and non-numbers are TypeErrors.

    Parameters
    ----------
    name : str
        The argument's name, used in error messages.
    value : object
        A real number, an array_like of them, or an mpf (or object array of mpf).

    Returns
    -------
    numpy.ndarray
        ``value`` converted to float64 (0-d for a scalar); no range check.

    Raises
    ------
    TypeError
        A string, a boolean, None, or anything that is not real numbers.
    ValueError
        A finite mpf that overflows float64.

    Examples
    --------
    >>> float_array("gate", [1, 2.5]).tolist(), float(float_array("gate", mpmath.mpf(2)))
    ([1.0, 2.5], 2.0)
    >>> float_array("gate", "1")
    Traceback (most recent call last):
    ...
    TypeError: gate must be a real number or an array of them (decimal strings ...
    """
    if isinstance(value, str | bool | np.bool_) or value is None:
        raise TypeError(
            f"{name} must be a real number or an array of them (decimal strings need "
            f"dps=D), got {value!r}"
        )
    try:
        array = np.asarray(value)
        if array.dtype.kind not in "iuf" and not (
            array.dtype.kind == "O" and all(isinstance(v, mpmath.mpf) for v in array.flat)
        ):
            raise TypeError
        converted = np.asarray(array, dtype=float)
    except (TypeError, ValueError, OverflowError):
        message = f"{name} must be a real number or an array of them, got {value!r}"
        raise TypeError(message) from None
    if isinstance(value, mpmath.mpf) and mpmath.isfinite(value) and np.isinf(converted):
        raise ValueError(f"{name} overflows float64 ({mpmath.nstr(value, 5)}); use dps=D")
    return converted


def validate_gate_parameters(gate, arrival_rate, service_rate):
    """Broadcast and check (gate, Λ, μ); return (gate, β = 1/Λ, μ, δ) as float arrays,
    where δ = gate + β − 1/μ > 0 is the distance from the stability boundary.

    Stability of the GI/M/1 queue of admitted customers means that the mean admitted
    inter-arrival time E[T] = τ + 1/Λ exceeds the mean service time 1/μ.

    Parameters
    ----------
    gate, arrival_rate, service_rate : float or array_like
        τ ≥ 0 (finite), Λ > 0 (``inf`` allowed) and μ > 0 (finite), broadcastable.

    Returns
    -------
    tuple of numpy.ndarray
        (τ, β, μ, δ), broadcast to one shape (β = 0 for Λ = ∞).

    Raises
    ------
    TypeError
        For non-numbers.
    ValueError
        Naming the parameter for out-of-range values, shapes that do not broadcast,
        or an unstable queue (δ ≤ 0).

    Examples
    --------
    >>> tau, beta, mu, delta = validate_gate_parameters([1.5, 2.0], np.inf, 1.0)
    >>> beta.tolist(), delta.tolist()  # δ = τ + 0 − 1
    ([0.0, 0.0], [0.5, 1.0])
    >>> validate_gate_parameters(0.5, np.inf, 1.0)
    Traceback (most recent call last):
    ...
    ValueError: unstable: gate + 1/arrival_rate must exceed 1/service_rate ...

    References
    ----------
    See the module's References: Kleinrock (1975), Sec. 6.4 (GI/M/1).
    """
    arrays = [
        float_array(n, v) for n, v in zip(_NAMES, (gate, arrival_rate, service_rate), strict=True)
    ]
    try:
        gate, arrival_rate, service_rate = np.broadcast_arrays(*arrays)
    except ValueError as error:
        raise ValueError(f"gate, arrival_rate and service_rate must broadcast: {error}") from None
    if not np.all(np.isfinite(gate) & (gate >= 0)):
        raise ValueError(f"gate must be finite and >= 0, got {gate[~(gate >= 0)][:3]}")
    if not np.all(arrival_rate > 0):  # NaN fails too
        raise ValueError(f"arrival_rate must be > 0 (inf allowed), got {arrival_rate.min()}")
    with np.errstate(over="ignore", divide="ignore"):
        beta = 1.0 / arrival_rate
    if not np.all(np.isfinite(beta)):
        raise ValueError("arrival_rate is too small: 1/arrival_rate overflows float64")
    if not np.all(np.isfinite(service_rate) & (service_rate > 0)):
        raise ValueError("service_rate must be finite and > 0")
    # gate + beta - 1/mu, with the larger terms first to limit rounding
    with np.errstate(over="ignore"):
        excess = (gate - 1.0 / service_rate) + beta
    if not np.all(excess > 0):
        raise ValueError(_UNSTABLE)
    if not np.all(np.isfinite(excess)):
        raise ValueError("gate + 1/arrival_rate overflows float64")
    return gate, beta, service_rate, excess


def _boundary_distance(w, mu, beta):
    """τ(w) − (1/μ − β), accurate near w = 0 (see the module docstring)."""
    u = -mu * np.expm1(-w)
    return (w_plus_expm1_neg(w) + x_minus_log1p(beta * u)) / u


def _direct_residual(w, mu, beta, tau):
    """h(w) = w − uτ − log(1 + βu) = u (τ(w) − τ), u = μ(1 − e^{−w}): accurate for
    w ≥ 1 (its terms are at most w; ``log(1 + βu)`` without overflowing βu)."""
    u = -mu * np.expm1(-w)
    return w - u * tau - np.logaddexp(0.0, np.log(beta) + np.log(u))


def _bracketed(residual, lower, upper, args) -> np.ndarray:
    """find_root on [lower, upper]; NaN where it failed."""
    from scipy.optimize import elementwise  # loaded by the first root (not by --help)

    result = elementwise.find_root(residual, (lower, upper), args=args)
    return np.where(result.success, result.x, np.nan)


def _solve_float64(gate, beta, mu, excess) -> np.ndarray:
    """w by float64 bracketing; NaN where float64 cannot evaluate it.

    w* ≤ 1 forces μτ < 1.6 and μβ < e (so nothing is large) and the boundary distance
    resolves the cancellation there; w* > 1 (h(1) < 0) is solved in the direct form on
    [1, 2(μτ + log(1 + μβ)) + 1], which the boundary distance cannot do when μβ ≫ 1
    (δ = τ + β − 1/μ then rounds 1/μ away)."""
    w = np.full(gate.shape, np.nan)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        far = _direct_residual(1.0, mu, beta, gate) < 0
        near = ~far & np.isfinite(mu * beta)
        if np.any(near):
            w[near] = _bracketed(
                lambda x, d, m, b: _boundary_distance(x, m, b) - d,
                np.full(np.count_nonzero(near), _TINY_W),
                np.ones(np.count_nonzero(near)),
                (excess[near], mu[near], beta[near]),
            )
        upper = 2.0 * (mu * gate + np.logaddexp(0.0, np.log(mu) + np.log(beta))) + 1.0
        far &= np.isfinite(upper)
        if np.any(far):
            w[far] = _bracketed(
                lambda x, m, b, t: _direct_residual(x, m, b, t),
                np.ones(np.count_nonzero(far)),
                upper[far],
                (mu[far], beta[far], gate[far]),
            )
    return w


def _log_root_float64(gate, arrival_rate, service_rate, *, underflow_ok: bool) -> np.ndarray:
    """w as a float array; elements float64 cannot solve go to mpmath (20 digits).

    With ``underflow_ok`` (for σ), elements with μτ > 800 are set to +inf (σ = 0)."""
    gate, beta, mu, excess = validate_gate_parameters(gate, arrival_rate, service_rate)
    with np.errstate(over="ignore"):
        huge = (mu * gate > _UNDERFLOW_MU_TAU) if underflow_ok else np.zeros(gate.shape, bool)
    w = np.full(gate.shape, np.inf)
    solve = ~huge
    if np.any(solve):
        w[solve] = _solve_float64(gate[solve], beta[solve], mu[solve], excess[solve])
    for index in np.ndindex(w.shape):
        if not np.isnan(w[index]):
            continue
        arrival = np.inf if beta[index] == 0 else 1.0 / beta[index]
        # the float64 inputs themselves (mpf: binary), as the float64 solver sees them
        binary = (mpmath.mpf(float(v)) for v in (gate[index], arrival, mu[index]))
        precise = log_root_at_dps(*binary, _FALLBACK_DIGITS)
        w[index] = float(precise)
        if not np.isfinite(w[index]):
            raise ValueError(
                f"-log(sigma) = {mpmath.nstr(precise, 5)} overflows float64 "
                f"(service_rate*gate is too large); use root(..., dps=D)"
            )
    return w[()]


def log_root(gate, arrival_rate, service_rate) -> np.ndarray:
    """``w = -log σ`` for the gated queue, vectorised over broadcastable arrays.

    Parameters
    ----------
    gate : float or array_like
        Gate length τ ≥ 0 (finite).
    arrival_rate : float or array_like
        Rate Λ > 0 of potential customers; ``numpy.inf`` is the deterministic limit.
    service_rate : float or array_like
        Exponential service rate μ > 0 (finite).  The queue must be stable:
        τ + 1/Λ > 1/μ.

    Returns
    -------
    numpy.ndarray or float
        ``w = -log σ > 0`` with full relative accuracy (a 0-d result is a NumPy scalar).

    Raises
    ------
    TypeError
        For an argument that is not a real number or array (strings need ``dps=D``:
        use :func:`root`).
    ValueError
        For an out-of-range argument, an unstable queue, or ``w`` beyond float64.

    Examples
    --------
    Deterministic gate (Λ = ∞), μτ = 2: σ solves σ = exp(-2(1-σ)).

    >>> w = log_root(2.0, np.inf, 1.0)
    >>> sigma = float(np.exp(-w))
    >>> round(sigma, 12), bool(abs(sigma - np.exp(-2 * (1 - sigma))) < 1e-15)
    (0.20318786998, True)

    Light traffic, where σ = e^{-w} underflows but ``w`` does not:

    >>> round(float(log_root(1000.0, np.inf, 1.0)), 6)
    1000.0

    References
    ----------
    See the module's References:

    - Hassin and Ravner (2026);
    - Kleinrock (1975), Sec. 6.4.
    """
    return _log_root_float64(gate, arrival_rate, service_rate, underflow_ok=False)


def root(gate, arrival_rate, service_rate, *, dps: int | None = None):
    """σ ∈ (0, 1), the GI/M/1 root of the gated queue.

    Parameters
    ----------
    gate : float, array_like, str or mpmath.mpf
        Gate length τ ≥ 0.  Arrays with ``dps=None`` only; strings and mpf are read at
        the working precision with ``dps=D``.
    arrival_rate : float, array_like, str or mpmath.mpf
        Rate Λ > 0 of potential customers (``inf`` or ``"inf"`` allowed).
    service_rate : float, array_like, str or mpmath.mpf
        Exponential service rate μ > 0; the queue must be stable: τ + 1/Λ > 1/μ.
    dps : int or None, keyword-only
        None: vectorised float64 (σ underflows to 0.0 below about 1e-308).  An integer
        D ≥ 1: one ``mpmath.mpf`` correct to D significant digits (rounded to D).

    Returns
    -------
    numpy.ndarray, float or mpmath.mpf
        σ, of the broadcast shape with ``dps=None``.

    Raises
    ------
    TypeError
        For an argument that is not a number (or an array with ``dps=D``).
    ValueError
        For an out-of-range argument or ``dps``, an unstable queue, or a precision
        (``dps`` plus guard digits) above :func:`qtheory.core.limits.limit` ``("dps")``.

    Examples
    --------
    With Λ < μ and no gate the queue is M/M/1 with rate Λ, so σ = Λ/μ:

    >>> round(float(root(0.0, 0.5, 1.0)), 14)
    0.5

    D/M/1 at μτ = 2 to 25 digits (mpmath's Lambert W gives -W(-2e^{-2})/2, the same):

    >>> mpmath.nstr(root(2, "inf", 1, dps=25), 25)
    '0.2031878699799799538384791'

    References
    ----------
    See the module's References:

    - Hassin and Ravner (2026);
    - Kleinrock (1975), Sec. 6.4.
    """
    dps = check_dps(dps)
    if dps is None:
        return np.exp(-_log_root_float64(gate, arrival_rate, service_rate, underflow_ok=True))
    digits, target = _precision(dps, gate, arrival_rate, service_rate)
    with mpmath.workdps(digits):
        tau, beta, mu, _ = _mp_parameters(gate, arrival_rate, service_rate)
        sigma = mpmath.exp(-_log_root_mp(tau, beta, mu, target))
    return rounded(sigma, dps)


def mp_value(name: str, value: object) -> mpmath.mpf:
    """``value`` (a real number, decimal string or mpf) as mpf at the current precision."""
    if isinstance(value, bool) or not isinstance(value, str | mpmath.mpf | numbers.Real):
        raise TypeError(f"{name} must be a real number, a decimal string or an mpf, got {value!r}")
    try:
        return to_mpf(value.strip() if isinstance(value, str) else value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number, got {value!r}") from None


def _mp_parameters(gate: Number, arrival_rate: Number, service_rate: Number):
    """(τ, β, μ, δ) in mpmath at the current precision, validated."""
    tau, arrival, mu = (
        mp_value(n, v) for n, v in zip(_NAMES, (gate, arrival_rate, service_rate), strict=True)
    )
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


def _upper_bracket(tau, beta, mu):
    """2(μτ + log(1 + μβ)) + 1 > w* (module docstring)."""
    return 2 * (mu * tau + mpmath.log1p(mu * beta)) + 1


def _precision(
    dps: int, gate: Number, arrival_rate: Number, service_rate: Number
) -> tuple[int, int]:
    """(working digits, relative digits of w) for σ to ``dps`` digits: guard digits for
    the cancellation near the stability boundary and for the size of ``w`` (σ = e^{-w}
    needs ``w`` to ``dps + log10 w`` digits); refused (ValueError naming dps) above the
    ``dps`` limit before any work."""
    limits.require(
        "dps", exact_digits(gate, arrival_rate, service_rate), parameter="dps",
        what="reading gate, arrival_rate and service_rate exactly",
    )  # fmt: skip
    with mpmath.workdps(exact_digits(gate, arrival_rate, service_rate)):
        tau, beta, mu, excess = _mp_parameters(gate, arrival_rate, service_rate)
        closeness = mpmath.log10((tau + beta) / excess)
        size = mpmath.log10(_upper_bracket(tau, beta, mu))
    target = dps + 5 + max(0, math.ceil(float(size)))
    digits = target + 5 + 2 * max(0, math.ceil(float(closeness)))
    limits.require("dps", digits, parameter="dps", what="the GI/M/1 root (with guard digits)")
    return digits, target


def _log_root_mp(tau, beta, mu, digits: int):
    gate_of_root = _generated.gate_of_root_mp
    lower = mpmath.mpf(10) ** (-digits - 50)
    upper = _upper_bracket(tau, beta, mu)
    return bracketed_root_mp(lambda w: gate_of_root(w, mu, beta) - tau, lower, upper, digits)


def log_root_at_dps(gate, arrival_rate, service_rate, dps: int) -> mpmath.mpf:
    """w to ``dps`` digits (the float64 fallback), inputs validated, precision guarded."""
    digits, target = _precision(dps, gate, arrival_rate, service_rate)
    with mpmath.workdps(digits):
        tau, beta, mu, _ = _mp_parameters(gate, arrival_rate, service_rate)
        return _log_root_mp(tau, beta, mu, target)


def _interval(value: Number):
    """An interval that contains the input exactly, read as :func:`to_mpf` reads it:
    decimal strings and the ``repr`` decimals of floats are enclosed, an mpf is exact."""
    iv = mpmath.iv
    if isinstance(value, float):
        value = repr(float(value))
    if isinstance(value, str):
        text = value.strip()
        if text.lower().lstrip("+") in ("inf", "infinity"):
            return iv.mpf(mpmath.inf)
        return iv.mpf(text)
    return iv.mpf(mpmath.mpf(value))


def root_enclosure(gate: Number, arrival_rate: Number, service_rate: Number, *, dps: int):
    """An interval certified to contain σ, of relative width about ``10**-dps`` in
    w = −log σ.

    The residual ``f(σ) = A*(μ(1-σ)) - σ`` is convex on [0, 1] with ``f(0) > 0`` and
    ``f(1) = 0``, so on a stable queue it is positive below the nontrivial root and
    negative between it and 1.  Interval arithmetic (inputs enclosed as intervals too)
    proves ``f(lo) > 0`` and ``f(hi) < 0`` for ``hi < 1``; by the intermediate value
    theorem σ lies in [lo, hi].

    Parameters
    ----------
    gate, arrival_rate, service_rate : float, str or mpmath.mpf
        τ ≥ 0, Λ > 0 (``"inf"`` allowed) and μ > 0 of a stable queue, as in :func:`root`;
        decimal strings are enclosed exactly.
    dps : int, keyword-only, required
        Digits D ≥ 1 of the enclosure (relative width about 10^-D in w).

    Returns
    -------
    qtheory.core.enclosure.Enclosure
        Decimal bounds lower ≤ σ ≤ upper (rounded outward, D + 5 significant digits,
        so that the printed bounds show where they differ) and their ``width``.

    Raises
    ------
    TypeError, ValueError
        As :func:`root`; ``dps`` must be an integer ≥ 1 (not None).
    ArithmeticError
        If interval arithmetic cannot certify the enclosure (never seen; raise dps).

    Examples
    --------
    >>> enclosure = root_enclosure(2, "inf", 1, dps=20)
    >>> enclosure.lower[:12], enclosure.upper[:12], enclosure.relative_width < 1e-19
    ('2.0318786997', '2.0318786997', True)
    >>> with mpmath.workdps(30):  # -W(-2 exp(-2))/2 (mpmath.lambertw) lies inside
    ...     sigma = -mpmath.lambertw(-2 * mpmath.exp(-2)).real / 2
    >>> enclosure.contains(mpmath.nstr(sigma, 30))
    True

    References
    ----------
    See the module's References: Kleinrock (1975), Sec. 6.4 (the GI/M/1 root and the
    convexity of the residual).
    """
    dps = required_dps(dps, cost="a certified enclosure of sigma")
    from qtheory.core.enclosure import Enclosure  # python-flint: only here
    from qtheory.core.precision import binary_fraction
    from qtheory.core.symbolic import lambdify_interval
    from qtheory.gated.derivation import derive  # interval evaluation: Sympy's lambdify

    residual = derive().root_residual
    evaluate = lambdify_interval(residual.args, residual.numeric_expr)
    digits, target = _precision(dps, gate, arrival_rate, service_rate)
    limits.require("dps", 2 * digits, parameter="dps", what="a certified enclosure of sigma")
    with mpmath.workdps(digits):
        tau, beta, mu, _ = _mp_parameters(gate, arrival_rate, service_rate)
        w = _log_root_mp(tau, beta, mu, target)
        half_width = abs(w) * mpmath.mpf(10) ** (-dps - 2)
        lo, hi = mpmath.exp(-(w + half_width)), mpmath.exp(-(w - half_width))
    iv = mpmath.iv
    saved, iv.dps = iv.dps, 2 * digits
    try:
        arrival = _interval(arrival_rate)
        beta_iv = iv.mpf(0) if mpmath.isinf(arrival.a) else 1 / arrival
        inputs = (_interval(service_rate), _interval(gate), beta_iv)
        at_lo = evaluate(iv.mpf(lo), *inputs)
        at_hi = evaluate(iv.mpf(hi), *inputs)
        if not (at_lo.a > 0 and at_hi.b < 0 and hi < 1):
            raise ArithmeticError("could not certify the enclosure of sigma; raise dps")
    finally:
        iv.dps = saved
    return Enclosure.from_bounds(binary_fraction(lo), binary_fraction(hi), dps)
