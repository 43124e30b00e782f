r"""The observable bound: Naor's observable M/M/1 queue at its social optimum.

If the admission controller saw the queue length, the best policy admits an arrival iff
fewer than :math:`n` customers are in the system (Naor's threshold).  The queue is then
M/M/1/n with :math:`\rho = \Lambda/\mu`, :math:`\pi_k = \rho^k/\sum_{j=0}^n\rho^j`, and the
welfare per unit time is

.. math:: S(n) = \Lambda(1 - \pi_n)R - C\,E[L_n], \qquad
          E[L_n] = \frac{1}{e^{-x} - 1} - \frac{n+1}{e^{-(n+1)x} - 1},\quad x = \log\rho

(:math:`E[L_n] = n/2` when :math:`\rho = 1`), written with ``expm1`` so that nothing
cancels near :math:`\rho = 1`; when :math:`\rho > 1` the throughput
:math:`\Lambda(1 - \pi_n)` is evaluated as :math:`\mu(1 - \pi_0)`, which does not cancel
however large :math:`\Lambda/\mu` is (:math:`\pi_n \to 1`).  The social optimum is Naor's

.. math:: n^* = \max\Bigl\{n \ge 1 : \sum_{j=1}^{n}\frac{1-\rho^j}{1-\rho} \le \nu\Bigr\}
          \quad(\text{at least } 1), \qquad \nu = R\mu/C,

found by bisection on the closed form of the sum and confirmed against its neighbours.
No admission policy of the unobservable queue, however much it remembers, does better:
the queue length is all that matters for the future, so :math:`S(n^*)` is the ceiling
of the ladder RR ≤ PH(m) ≤ GA ≤ full memory ≤ observable.

The limit :math:`\Lambda\to\infty`.  Any departure is refilled instantly, so the system
holds :math:`n` customers at all times, the server is always busy (throughput
:math:`\mu`) and :math:`S(n) = \mu R - nC`: the optimum is :math:`n^* = 1` with
:math:`S = \mu R - C = C(\nu - 1)` (computed as :math:`C\varepsilon`, exact from the
inputs).  It is the limit of the finite-:math:`\Lambda` values: at :math:`n = 1`,
:math:`S = \Lambda\mu R/(\Lambda + \mu) - C\Lambda/(\Lambda + \mu)\to\mu R - C`.  It is
also an upper bound for every policy at every :math:`\Lambda`: a busy server earns at
most :math:`\mu R` and costs at least :math:`C`, so
:math:`S \le P(\text{busy})(\mu R - C)`.

References
----------
.. [1] P. Naor, "The regulation of queue size by levying tolls", Econometrica
   37(1):15-24 (1969).
.. [2] R. Hassin and M. Haviv, *To Queue or Not to Queue: Equilibrium Behavior in
   Queueing Systems*, Kluwer (2003), Section 2.4.
.. [3] L. Kleinrock, Queueing Systems, Vol. I, Wiley (1975), Sec. 3.6 (M/M/1/K).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath

from qtheory.core import limits
from qtheory.core.precision import check_dps, rounded
from qtheory.core.records import Records
from qtheory.core.validation import positive_int
from qtheory.gated.optima import as_float64
from qtheory.gated.welfare import working_dps
from qtheory.model.gated import GatedParameters, GatedQueue, checked_queue

__all__ = ["ObservableOptimum", "observable_claims", "observable_welfare", "optimal_observable"]


@dataclass(frozen=True)
class ObservableOptimum:
    """Naor's social optimum of the observable M/M/1 queue.

    Attributes
    ----------
    threshold : int
        n*: an arrival joins iff fewer than n* customers are in the system.
    welfare : float or mpmath.mpf
        S(n*), welfare per unit time.
    throughput : float or mpmath.mpf
        Λ(1 − π_{n*}) = μ(1 − π_0) (μ when Λ = ∞).
    mean_number : float or mpmath.mpf
        E[L] (n* when Λ = ∞).
    blocking : float or mpmath.mpf
        π_{n*}, the share of arrivals turned away (1 when Λ = ∞: all but the instant
        refills).

    Examples
    --------
    >>> opt = optimal_observable(GatedQueue("inf", 1, 3, 1))
    >>> opt.threshold, opt.welfare, opt.throughput, opt.mean_number
    (1, 2.0, 1.0, 1.0)
    """

    threshold: int
    welfare: float | mpmath.mpf
    throughput: float | mpmath.mpf
    mean_number: float | mpmath.mpf
    blocking: float | mpmath.mpf


def _log_load(p: GatedParameters) -> mpmath.mpf:
    return mpmath.log(1 / (p.beta * p.mu))  # x = log ρ, ρ = Λ/μ


def _guard(x) -> int:
    """Digits lost to E[L]'s cancellation near ρ = 1 (about log10 1/|x|)."""
    return 0 if x == 0 else max(0, math.ceil(float(-mpmath.log10(abs(x)))))


def _state(p: GatedParameters, n: int, x) -> ObservableOptimum:
    """The M/M/1/n quantities at the current precision (Λ finite)."""
    if x == 0:
        blocking, mean = mpmath.mpf(1) / (n + 1), mpmath.mpf(n) / 2
    else:
        # π_n = ρ^n (1 − ρ)/(1 − ρ^{n+1}) = (ρ^{-1} − 1)/(ρ^{-(n+1)} − 1)
        blocking = mpmath.expm1(-x) / mpmath.expm1(-(n + 1) * x)
        mean = 1 / mpmath.expm1(-x) - (n + 1) / mpmath.expm1(-(n + 1) * x)
    if x > 0:  # ρ > 1: Λ(1 − π_n) = μ(1 − π_0), π_0 = (ρ − 1)/(ρ^{n+1} − 1), no cancellation
        throughput = p.mu * (1 - mpmath.expm1(x) / mpmath.expm1((n + 1) * x))
    else:
        throughput = (1 / p.beta) * (1 - blocking)
    welfare = p.reward * throughput - p.cost * mean
    return ObservableOptimum(n, welfare, throughput, mean, blocking)


def _infinite(p: GatedParameters, n: int) -> ObservableOptimum:
    """Λ = ∞: n customers at all times; S = μR − nC = C(ε + 1 − n)."""
    welfare = p.cost * (p.epsilon - (n - 1))
    return ObservableOptimum(n, welfare, p.mu, mpmath.mpf(n), mpmath.mpf(1))


def _evaluate(queue: GatedQueue, threshold: int, dps: int | None) -> ObservableOptimum:
    digits = working_dps(queue, 17 if dps is None else dps)
    with mpmath.workdps(digits):
        p = queue.parameters(digits)
        if p.beta == 0:
            result = _infinite(p, threshold)
        else:
            x = _log_load(p)
            with mpmath.workdps(digits + _guard(x) + math.ceil(math.log10(threshold + 1))):
                result = _state(queue.parameters(digits), threshold, x)
    return as_float64(result) if dps is None else rounded(result, dps)


def observable_welfare(queue: GatedQueue, threshold: int, *, dps: int | None = None):
    """S(n) = Λ(1 − π_n)R − C E[L_n], the welfare of Naor's threshold n (join iff fewer
    than n in the system); μR − nC when Λ = ∞.

    Parameters
    ----------
    queue : GatedQueue
        The queue (Λ, μ, R, C).
    threshold : int
        n ≥ 1.
    dps : int or None, keyword-only
        None: float64.  D ≥ 1: an mpf correct to D digits.

    Returns
    -------
    float or mpmath.mpf

    Raises
    ------
    TypeError
        ``queue`` not a GatedQueue.
    ValueError
        ``threshold`` < 1, a bad ``dps``.

    Examples
    --------
    n = 1 is M/M/1/1: S = Λμ(R − C/μ)/(Λ + μ); Λ = μ = 1, R = 3, C = 1 gives 1:

    >>> observable_welfare(GatedQueue(1, 1, 3, 1), 1)
    1.0
    >>> round(observable_welfare(GatedQueue(1, 1, 3, 1), 2), 12)  # π = (1/3, 1/3, 1/3)
    1.0

    References
    ----------
    See the module's References: Naor (1969).
    """
    queue = checked_queue(queue)
    n = positive_int("threshold", threshold)
    return _evaluate(queue, n, check_dps(dps)).welfare


def _naor_sum(x, n: int):
    """Σ_{j=1}^{n} (1 − ρ^j)/(1 − ρ) = (n − ρ(1 − ρ^n)/(1 − ρ))/(1 − ρ), ρ = e^x, in a
    form that does not cancel badly (n(n + 1)/2 at ρ = 1)."""
    if x == 0:
        return mpmath.mpf(n) * (n + 1) / 2
    one_minus_rho = -mpmath.expm1(x)
    return (n - mpmath.exp(x) * (-mpmath.expm1(n * x)) / one_minus_rho) / one_minus_rho


def _naor_threshold(p: GatedParameters, x) -> int:
    """Largest n ≥ 1 with Σ_{j≤n} [j]_ρ ≤ ν (1 if none), by doubling and bisection."""
    nu = 1 + p.epsilon
    low, high = 1, 2
    while _naor_sum(x, high) <= nu:
        low, high = high, 2 * high
        limits.require("dp_cells", high, parameter="reward", what="Naor's threshold")
    while high - low > 1:
        middle = (low + high) // 2
        if _naor_sum(x, middle) <= nu:
            low = middle
        else:
            high = middle
    return low


def optimal_observable(queue: GatedQueue, *, dps: int | None = None) -> ObservableOptimum:
    """Naor's social optimum n* of the observable queue and its welfare, the ceiling of
    the ladder (module notes).

    n* comes from Naor's characterisation (largest n with Σ_{j≤n}(1 − ρ^j)/(1 − ρ) ≤ ν)
    and is then compared with n* ± 1 by their welfare (the best is kept, the smaller on
    a tie).  With Λ = ∞: n* = 1 and S = C(ν − 1).

    Parameters
    ----------
    queue : GatedQueue
        The queue; ν = Rμ/C > 1.
    dps : int or None, keyword-only
        None: float64 fields.  D ≥ 1: mpf fields correct to D digits.

    Returns
    -------
    ObservableOptimum

    Raises
    ------
    TypeError
        ``queue`` not a GatedQueue.
    ValueError
        ν ≤ 1, a bad ``dps``, or n* beyond the ``dp_cells`` limit.

    Examples
    --------
    Λ = μ = 1, ν = 4: Σ_{j≤n} j = n(n + 1)/2 ≤ 4 gives n* = 2; π is uniform on
    {0, 1, 2}, so S = 4 · 2/3 − 1 = 5/3:

    >>> opt = optimal_observable(GatedQueue(1, 1, 4, 1))
    >>> opt.threshold, round(opt.welfare, 12), round(opt.blocking, 12)
    (2, 1.666666666667, 0.333333333333)

    References
    ----------
    See the module's References:

    - Naor (1969);
    - Hassin and Haviv (2003), Sec. 2.4.
    """
    queue = checked_queue(queue)
    dps = check_dps(dps)
    queue.require_worthwhile()
    digits = working_dps(queue, 17 if dps is None else dps)
    with mpmath.workdps(digits):
        p = queue.parameters(digits)
        candidate = 1 if p.beta == 0 else _naor_threshold(p, _log_load(p))
    neighbours = [n for n in (candidate - 1, candidate, candidate + 1) if n >= 1]
    exact = [_evaluate(queue, n, 2 * (17 if dps is None else dps)) for n in neighbours]
    best = neighbours[max(range(len(exact)), key=lambda i: (exact[i].welfare, -i))]
    return _evaluate(queue, best, dps)


def observable_claims(quick: bool = False) -> Records:
    r"""The observable bound's claims: its Λ → ∞ limit (identity) and that it is the
    ceiling of the ladder RR ≤ PH(m) ≤ GA ≤ observable (finite range).

    Parameters
    ----------
    quick : bool
        A smaller grid (the tests); the full one is the report's.

    Returns
    -------
    list of qtheory.core.claims.Claim

    Examples
    --------
    >>> [(c.name, c.passed) for c in observable_claims(quick=True)]
    [('gated.observable.limit', True), ('gated.observable.ceiling', True)]
    """
    import numpy as np
    import sympy as sp

    from qtheory.core.claims import Claim, Evidence, Origin, in_set
    from qtheory.gated.phase_gates import optimal_erlang_gate
    from qtheory.gated.welfare import optimal_gate, optimal_routing

    arrival, mu, reward, cost = sp.symbols("Lambda mu R C", positive=True)
    n = sp.Symbol("n", positive=True, integer=True)
    rho = arrival / mu
    # M/M/1/n at n = 1: throughput Λ/(1 + ρ), E[L] = ρ/(1 + ρ)
    at_one = reward * arrival / (1 + rho) - cost * rho / (1 + rho)
    limit_residual = sp.limit(at_one, arrival, sp.oo) - (mu * reward - cost)
    refill = mu * reward - n * cost  # Λ = ∞: n in system always, server always busy
    limit_ok = (
        sp.simplify(limit_residual) == 0 and sp.simplify(refill.subs(n, n + 1) - refill + cost) == 0
    )
    arrivals = ("inf", 2.0, 0.5) if quick else ("inf", 10.0, 3.0, 1.0, 0.5, 0.2)
    ratios = (1.5, 5.0) if quick else (1.05, 1.5, 2.0, 5.0, 20.0, 100.0)
    phases = (1, 8, 64) if quick else (1, 2, 4, 8, 16, 32, 64)
    slack = []
    ordered = True
    for a in arrivals:
        for nu in ratios:
            queue = GatedQueue(a, 1, nu, 1)
            values = [optimal_routing(queue).welfare]
            values += [optimal_erlang_gate(queue, m).welfare for m in phases]
            values += [optimal_gate(queue).welfare, optimal_observable(queue).welfare]
            ordered &= bool(np.all(np.diff(values) >= -1e-12 * values[-1]))
            slack.append(values[-1] / values[-2] - 1)
    pairs = in_set(r"(\Lambda, \nu)", [(a, nu) for a in arrivals for nu in ratios])
    model = r"unobservable M/M/1 ($\Lambda$, $\mu$, $R$, $C$), $\nu = R\mu/C > 1$"
    claims = [
        Claim(
            name="gated.observable.limit",
            statement=r"at $\Lambda = \infty$ threshold $n$ earns $\mu R - nC$, so $n^* = 1$ "
            r"and $S_{\mathrm{obs}}^* = \mu R - C$, the limit of $S(1)$ as "
            r"$\Lambda\to\infty$",
            kind=Evidence.IDENTITY,
            passed=bool(limit_ok),
            origin=Origin.PACKAGE,
            citation="[Nao69]",
            hypotheses=(model,),
            quantity=r"$\lim_{\Lambda\to\infty} S(1) - (\mu R - C)$",
        ),
        Claim(
            name="gated.observable.ceiling",
            statement=r"$S_{RR}^* \le S_1^* \le \dots \le S_m^* \le S_{GA}^* \le "
            r"S_{\mathrm{obs}}^*$ (Erlang-$m$ gates, Naor's observable optimum)",
            kind=Evidence.FINITE_RANGE,
            passed=ordered,
            origin=Origin.PACKAGE,
            hypotheses=(model,),
            scope=f"{pairs}; {in_set('m', phases)}; $\\mu = C = 1$; float64 optima",
            quantity=r"smallest $S_{\mathrm{obs}}^*/S_{GA}^* - 1$",
            value=float(min(slack)),
        ),
    ]
    return Records(claims)
