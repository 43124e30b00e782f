r"""The duration-aware fluid bound: the right upper bound in the ``job`` model.

In the ``job`` information model every job shows its service time to offline and
lookahead policies, which can then prefer short jobs.  The ordinary fluid LP
(:mod:`qtheory.lossnet.fluid`) ignores that, and the offline optimum beats it by
:math:`\Theta(N)`.  The duration-aware fluid LP lets the admission probability depend
on the class *and* on the duration :math:`s`: per server,

.. math:: v = \max_{0 \le x_i(s) \le 1} \sum_i r_i \lambda_i \int x_i(s) f(s)\,ds
          \quad\text{s.t.}\quad \sum_i \lambda_i \int x_i(s)\, s\, f(s)\,ds \le 1,

with :math:`f(s) = \mu e^{-\mu s}`.  It is a fractional knapsack whose items are
(class, duration) pairs of value :math:`r_i` and weight :math:`s`: admit a job iff its
reward per unit of server time is at least a price :math:`\theta`,
:math:`r_i / s \ge \theta`, i.e. iff :math:`s \le c_i = r_i/\theta`, with :math:`\theta`
set so that capacity is exactly used, or :math:`\theta = 0` when everybody fits
(:math:`\sum_i \lambda_i \le \mu`).  The LP dual is
:math:`v = \min_{\theta\ge 0}\ \theta + \sum_i \lambda_i E(r_i - \theta S)^+`.

Sympy derives the closed forms (:func:`derive_duration_fluid`):
:math:`P(S\le c) = 1-e^{-\mu c}`, :math:`E[S;\,S\le c] = (1-e^{-\mu c}(1+\mu c))/\mu`,
:math:`E(r-\theta S)^+`, and the end effect of a finite horizon; :math:`\theta` is then
found by a bracketed root search (:func:`duration_aware_fluid`).

What is guaranteed about the offline optimum
--------------------------------------------
For a path on the window :math:`(T_0, T]` of length :math:`T'` and any
:math:`\theta \ge 0`, weak duality gives, *on every path*,

.. math:: \mathrm{OFF} \le D_\theta = \theta N T' + \sum_{j:\ a_j\in(T_0,T]}
          \bigl(r_j - \theta \min(s_j, T - a_j)\bigr)^+

(:func:`pathwise_dual_bound`): the selected jobs keep at most :math:`N` servers busy,
so their busy time inside the window, :math:`\sum_j \min(s_j, T-a_j)`, is at most
:math:`NT'`.  With Poisson arrivals its mean is (:func:`expected_dual_bound`)
:math:`E D_{\theta^*} = N(T' v + e)`, where the end effect
:math:`e = \sum_i \lambda_i \int_0^{\min(c_i, T')} [E(r_i-\theta\min(S,u))^+ -
E(r_i-\theta S)^+]\,du \le \theta^*/\mu` accounts for jobs cut by the horizon.  Hence
:math:`E[\mathrm{OFF}]/T' \le N v + N e / T'`: a rigorous bound in expectation, and a
deterministic one per path through :math:`D_\theta`.  That a *single* path's
``OFF / T'`` lies below :math:`Nv` up to the end effect is only true with high
probability (:math:`D_\theta` fluctuates by :math:`O(\sqrt{N T'})`).

Measured (``job`` model, :math:`\lambda_H=\lambda_L=0.6`, :math:`\mu=1`, rewards 2 and 1,
window 200, 8 paths with :math:`D_{\theta^*}` as control variate): per server, ordinary
fluid 1.6, :math:`v = 1.7413`; offline 1.604 (N = 20), 1.660 (50), 1.685 (100), 1.703
(200), each ±0.001 — a gap to :math:`v` close to :math:`0.55/\sqrt{N}`.

Conventions: :func:`duration_fluid_bound` returns the float bound :math:`Nv`, like
:func:`qtheory.lossnet.fluid.fluid_bound`; :func:`duration_fluid_solution` (two-class
network) and :func:`duration_aware_fluid` (any classes) return the
:class:`DurationFluidSolution` record with the price, cut-offs and admitted fractions,
as :func:`qtheory.lossnet.fluid.fluid_lp` does for the ordinary LP.

References
----------
.. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
   overloaded loss network", arXiv:2601.14538 (2026).
.. [2] X. Xie, I. Gurvich and S. Küçükyavuz, "Dynamic allocation of reusable resources:
   logarithmic regret in overloaded networks", Operations Research 73(4) (2025).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import numpy as np
import sympy as sp
from scipy.optimize import brentq, linprog

from qtheory.core import validation
from qtheory.lossnet.fluid import per_class_vectors
from qtheory.lossnet.offline_job import job_window
from qtheory.model.lossnet import LossNetwork, two_classes
from qtheory.model.lossnet_symbols import mu

__all__ = [
    "DurationFluidDerivation",
    "DurationFluidSolution",
    "MonteCarloPolicy",
    "derive_duration_fluid",
    "discretised_duration_lp",
    "duration_aware_fluid",
    "duration_fluid_bound",
    "duration_fluid_solution",
    "expected_dual_bound",
    "monte_carlo_policy",
    "pathwise_dual_bound",
]

duration, cutoff, remaining, theta, reward, reach = sp.symbols("s c u theta r m", positive=True)


@dataclass(frozen=True)
class DurationFluidDerivation:
    """Closed forms for Exp(μ) durations, derived by Sympy integration.

    ``admitted_fraction`` P(S ≤ c) and ``admitted_work`` E[S; S ≤ c] in (c, μ);
    ``surplus`` E(r − θS)^+ in (r, θ, μ); ``end_effect`` in (m, c, θ, μ), the integral
    over u ∈ [0, m] (m ≤ c = r/θ) of E(r − θ min(S, u))^+ − E(r − θS)^+.

    Attributes
    ----------
    density : sympy.Expr
        μ e^{−μs}, the density of S in the symbol ``s``.
    admitted_fraction : sympy.Expr
        P(S ≤ c) = 1 − e^{−μc}.
    admitted_work : sympy.Expr
        E[S; S ≤ c] = (1 − e^{−μc}(1 + μc))/μ.
    surplus : sympy.Expr
        E(r − θS)^+ = r − θ(1 − e^{−μr/θ})/μ.
    end_effect : sympy.Expr
        The horizon's end effect per unit arrival rate, in (m, c, θ, μ).

    Examples
    --------
    >>> d = derive_duration_fluid()
    >>> sp.simplify(d.surplus - (reward - theta * (1 - sp.exp(-mu * reward / theta)) / mu))
    0
    """

    density: sp.Expr
    admitted_fraction: sp.Expr
    admitted_work: sp.Expr
    surplus: sp.Expr
    end_effect: sp.Expr


@cache
def derive_duration_fluid() -> DurationFluidDerivation:
    """Derive the integrals of the duration-aware fluid LP with Sympy.

    Cached: the integration runs once per process.

    Returns
    -------
    DurationFluidDerivation
        The density and the closed forms of the module docstring.

    References
    ----------
    See the module's References: Bray (2026).

    Examples
    --------
    At m = c the end effect is (θ/μ) E[S; S ≤ c]:

    >>> d = derive_duration_fluid()
    >>> d.admitted_fraction
    1 - exp(-c*mu)
    >>> sp.simplify(d.admitted_work - (1 - sp.exp(-mu * cutoff) * (1 + mu * cutoff)) / mu)
    0
    >>> sp.simplify(d.end_effect.subs(reach, cutoff) - theta / mu * d.admitted_work)
    0
    """
    density = mu * sp.exp(-mu * duration)
    admitted_fraction = sp.integrate(density, (duration, 0, cutoff))
    admitted_work = sp.expand(sp.integrate(duration * density, (duration, 0, cutoff)))
    # E(r - θS)^+ integrates over S < r/θ, where the reward beats the price of the time.
    surplus = sp.expand(
        sp.integrate((reward - theta * duration) * density, (duration, 0, reward / theta))
    )
    # A job with u time units left before the horizon is charged θ min(S, u); for u < c
    # the charge never exceeds r, so E(r - θ min(S, u))^+ = r - θ E min(S, u), and
    # E min(S, u) = ∫_0^u P(S > v) dv.
    survival = sp.integrate(density, (duration, remaining, sp.oo))
    expected_min = sp.integrate(survival.subs(remaining, duration), (duration, 0, remaining))
    excess = (reward - theta * expected_min - surplus).subs(reward, theta * cutoff)
    end_effect = sp.expand(sp.integrate(sp.expand(excess), (remaining, 0, reach)))
    return DurationFluidDerivation(density, admitted_fraction, admitted_work, surplus, end_effect)


def _evaluator(expr: sp.Expr, args: tuple[sp.Symbol, ...]) -> Callable[..., np.ndarray]:
    # Plain lambdify of the expanded sum of exponentials.  (qtheory.core.symbolic.Formula's
    # rewriting recombines E[S; S <= c] into (expm1(mu c) - mu c) exp(-mu c), which
    # overflows to nan for mu c > 709; the expanded form only underflows, harmlessly, and
    # loses relative accuracy only where it is below ~1e-8 / mu, far from the root.)
    return sp.lambdify(args, expr, modules="numpy")


@cache
def _evaluators() -> dict[str, Callable[..., np.ndarray]]:
    d = derive_duration_fluid()
    return {
        "fraction": _evaluator(d.admitted_fraction, (cutoff, mu)),
        "work": _evaluator(d.admitted_work, (cutoff, mu)),
        "surplus": _evaluator(d.surplus, (reward, theta, mu)),
        "end_effect": _evaluator(d.end_effect, (reach, cutoff, theta, mu)),
    }


@dataclass(frozen=True)
class DurationFluidSolution:
    """The duration-aware fluid LP solved.

    ``value`` = N v (reward per unit time), ``per_server`` = v, ``server_price`` = θ,
    ``cutoffs`` c_i = r_i / θ (``inf`` when θ = 0), ``admitted_fraction`` P(S ≤ c_i),
    ``work_per_server`` Σ λ_i E[S; S ≤ c_i] (1 when θ > 0).

    Attributes
    ----------
    value : float
        N v, the bound on the reward per unit time.
    per_server : float
        v = Σ_i λ_i r_i P(S ≤ c_i).
    server_price : float
        θ, the optimal dual price of a unit of server time (0 when everybody fits).
    cutoffs : numpy.ndarray, shape (k,)
        c_i = r_i / θ: a class-i job is admitted iff its duration is at most c_i.
    admitted_fraction : numpy.ndarray, shape (k,)
        P(S ≤ c_i) = 1 − e^{−μ c_i}.
    work_per_server : float
        Σ_i λ_i E[S; S ≤ c_i], the server time used per server and unit time.
    arrival_rates, rewards : numpy.ndarray, shape (k,)
        The validated λ_i (per server) and r_i.
    mu : float
        μ.
    servers : float
        N.

    References
    ----------
    See the module's References: Bray (2026).

    Examples
    --------
    >>> sol = duration_aware_fluid([0.6, 0.6], [2.0, 1.0], 1.0, servers=50)
    >>> round(sol.work_per_server, 9), sol.admitted_fraction.round(6).tolist()
    (1.0, [0.992982, 0.916224])
    """

    value: float
    per_server: float
    server_price: float
    cutoffs: np.ndarray
    admitted_fraction: np.ndarray
    work_per_server: float
    arrival_rates: np.ndarray
    rewards: np.ndarray
    mu: float
    servers: float

    def dual_per_server(self, price: float) -> float:
        """θ + Σ λ_i E(r_i − θS)^+, an upper bound on ``per_server`` for every θ ≥ 0
        (weak duality), equal to it at θ = ``server_price``.

        Parameters
        ----------
        price : float
            θ ≥ 0.

        Returns
        -------
        float
            The dual objective per server; at θ = 0 it is Σ λ_i r_i.

        Raises
        ------
        ValueError
            If ``price`` is not a finite number ≥ 0.

        Examples
        --------
        With E(r − θS)^+ = r − θ(1 − e^{−μr/θ})/μ, at θ = 1 the dual is
        1 + 0.6 (1 + e^{−2}) + 0.6 e^{−1} = 1.901929:

        >>> sol = duration_aware_fluid([0.6, 0.6], [2.0, 1.0], 1.0)
        >>> round(sol.dual_per_server(1.0), 6)
        1.901929
        >>> bool(abs(sol.dual_per_server(sol.server_price) - sol.per_server) < 1e-12)
        True
        """
        price = validation.nonnegative("price", price)
        if price == 0:
            return float(self.arrival_rates @ self.rewards)
        surplus = _evaluators()["surplus"](self.rewards, price, self.mu)
        return float(price + self.arrival_rates @ surplus)


def duration_aware_fluid(
    arrival_rates, rewards, mu: float, servers: float = 1.0
) -> DurationFluidSolution:
    """Solve the duration-aware fluid LP for classes sharing Exp(μ) durations.

    The price θ solves Σ_i λ_i E[S; S ≤ r_i/θ] = 1 (a bracketed root search,
    :func:`scipy.optimize.brentq`) when Σ_i λ_i > μ; otherwise θ = 0 and every job is
    admitted.

    Parameters
    ----------
    arrival_rates, rewards : array_like of float, shape (k,)
        Per-class λ_i (per server) and r_i, equal lengths, all finite and > 0.
    mu : float
        Service rate μ > 0 (durations Exp(μ), observed on arrival).
    servers : float, optional
        N > 0 (default 1); the bound scales as N v.

    Returns
    -------
    DurationFluidSolution
        The bound N v, the price θ, the cut-offs and the admitted fractions.

    Raises
    ------
    ValueError
        If the rates or rewards are invalid or of different lengths, or ``mu`` or
        ``servers`` is not a finite number > 0.

    References
    ----------
    See the module's References: Bray (2026).

    Examples
    --------
    Two classes with λ = 0.6 each, rewards 2 and 1, μ = 1: θ solves
    Σ_i 0.6 (1 − e^{−c_i}(1 + c_i)) = 1 with c_i = r_i/θ, and v = Σ_i 0.6 r_i (1 − e^{−c_i}).

    >>> sol = duration_aware_fluid([0.6, 0.6], [2.0, 1.0], 1.0, servers=50)
    >>> round(sol.per_server, 6), round(sol.server_price, 6), sol.cutoffs.round(4).tolist()
    (1.741312, 0.40329, [4.9592, 2.4796])
    >>> round(sol.value / (50 * 1.6) - 1, 4)  # over the ordinary fluid bound
    0.0883
    >>> duration_aware_fluid([0.3, 0.2], [2.0, 1.0], 1.0).server_price  # everybody fits
    0.0
    """
    rates, rewards = per_class_vectors(arrival_rates=arrival_rates, rewards=rewards)
    service_rate = validation.positive("mu", mu)
    scale = validation.positive("servers", servers)
    ev = _evaluators()

    def excess_work(price: float) -> float:
        return float(rates @ ev["work"](rewards / price, service_rate)) - 1.0

    # E[S; S <= c] <= mu c^2 / 2, so excess_work < 0 at `upper`; as the price falls to 0
    # it increases to sum(rates) / mu - 1.  Halve down to a positive value, if any.
    upper = float(np.sqrt(service_rate * (rates @ rewards**2)))
    lower = upper / 2
    overloaded = rates.sum() > service_rate
    while overloaded and excess_work(lower) <= 0:
        lower /= 2
        # sum(rates) / mu - 1 lost in rounding: everybody fits to working precision
        overloaded = lower > upper * 1e-200
    if not overloaded:
        price = 0.0
        cutoffs = np.full(rates.size, np.inf)
        fraction = np.ones(rates.size)
        work = float(rates.sum() / service_rate)
    else:
        price = brentq(excess_work, lower, upper, xtol=1e-300, rtol=4 * np.finfo(float).eps)
        cutoffs = rewards / price
        fraction = ev["fraction"](cutoffs, service_rate)
        work = float(rates @ ev["work"](cutoffs, service_rate))
    per_server = float(rates @ (rewards * fraction))
    return DurationFluidSolution(
        value=scale * per_server,
        per_server=per_server,
        server_price=float(price),
        cutoffs=cutoffs,
        admitted_fraction=fraction,
        work_per_server=work,
        arrival_rates=rates,
        rewards=rewards,
        mu=service_rate,
        servers=scale,
    )


def duration_fluid_solution(net: LossNetwork) -> DurationFluidSolution:
    """The duration-aware fluid LP of the two-class network (classes H, L), solved.

    Parameters
    ----------
    net : LossNetwork
        The network.

    Returns
    -------
    DurationFluidSolution
        The bound N v with the price θ, the cut-offs and the admitted fractions.

    Raises
    ------
    TypeError
        If ``net`` is not a :class:`LossNetwork`.

    References
    ----------
    See the module's References: Bray (2026).

    Examples
    --------
    >>> sol = duration_fluid_solution(LossNetwork(100, 0.6, 0.6, 1.0, 2.0, 1.0))
    >>> round(sol.value, 4), round(sol.server_price, 5)
    (174.1312, 0.40329)
    """
    net = two_classes(net)
    return duration_aware_fluid(
        [net.lambda_h, net.lambda_l], [net.r_h, net.r_l], net.mu, net.servers
    )


def duration_fluid_bound(net: LossNetwork) -> float:
    """The duration-aware fluid bound N v of the two-class network, a float like
    :func:`~qtheory.lossnet.fluid.fluid_bound` (details: :func:`duration_fluid_solution`).

    Parameters
    ----------
    net : LossNetwork
        The network.

    Returns
    -------
    float
        N v, the reward rate no policy in the ``job`` model beats in expectation (up to
        the end effect of a finite horizon).

    Raises
    ------
    TypeError
        If ``net`` is not a :class:`LossNetwork`.

    References
    ----------
    See the module's References: Bray (2026).

    Examples
    --------
    >>> net = LossNetwork(100, 0.6, 0.6, 1.0, 2.0, 1.0)
    >>> round(duration_fluid_bound(net), 4)
    174.1312
    """
    return duration_fluid_solution(net).value


WORK_MODES = ("bin_mean", "left_end")


def discretised_duration_lp(
    arrival_rates, rewards, mu: float, grid, *, servers: float = 1.0, work: str = "bin_mean"
) -> float:
    """The duration-aware LP on duration bins, solved by HiGHS (a check of the closed form).

    The bins are ``[grid[k], grid[k+1])`` and the tail ``[grid[-1], inf)``, with their
    exact Exp(μ) masses; one admission probability per (class, bin).  With
    ``work="bin_mean"`` a bin's server time is its exact E[S; bin]: a restriction of the
    continuous LP (x constant on bins), so a **lower** bound on v·N.  With
    ``work="left_end"`` it is the bin's mass times its left end: a relaxation (any x(s)
    averaged over bins uses no more capacity), so an **upper** bound.  Both converge to
    the closed form as the grid is refined.

    Parameters
    ----------
    arrival_rates, rewards : array_like of float, shape (k,)
        Per-class λ_i (per server) and r_i, all finite and > 0.
    mu : float
        Service rate μ > 0.
    grid : array_like of float
        Bin edges: finite, strictly increasing, starting at 0.
    servers : float, optional
        N > 0 (default 1); the value scales with N.
    work : {"bin_mean", "left_end"}, optional
        How a bin's server time is counted (default ``"bin_mean"``).

    Returns
    -------
    float
        N times the optimum of the discretised LP.

    Raises
    ------
    ValueError
        On invalid rates, rewards, ``mu``, ``servers``, ``grid`` or ``work``.
    RuntimeError
        If HiGHS fails.

    Examples
    --------
    The two bounds bracket v = 1.741312 (:func:`duration_aware_fluid`):

    >>> grid = np.linspace(0.0, 30.0, 3001)
    >>> low = discretised_duration_lp([0.6, 0.6], [2.0, 1.0], 1.0, grid)
    >>> high = discretised_duration_lp([0.6, 0.6], [2.0, 1.0], 1.0, grid, work="left_end")
    >>> round(low, 4), round(high, 4)
    (1.7413, 1.7436)
    """
    rates, rewards = per_class_vectors(arrival_rates=arrival_rates, rewards=rewards)
    service_rate = validation.positive("mu", mu)
    scale = validation.positive("servers", servers)
    grid = np.asarray(grid, dtype=float)
    if grid.ndim != 1 or grid.size < 1 or grid[0] != 0 or not np.all(np.isfinite(grid)):
        raise ValueError("grid must be a finite 1-D array starting at 0")
    if np.any(np.diff(grid) <= 0):
        raise ValueError("grid must be strictly increasing")
    if work not in WORK_MODES:
        raise ValueError(f"work must be one of {WORK_MODES}, got {work!r}")
    ev = _evaluators()
    edges = np.append(grid, np.inf)
    survival = np.exp(-service_rate * edges)  # P(S > edge); exp(-inf) = 0
    mass = survival[:-1] - survival[1:]
    if work == "bin_mean":
        below = np.append(ev["work"](grid, service_rate), 1.0 / service_rate)
        bin_work = np.diff(below)
    else:
        bin_work = mass * grid
    gain = (rates * rewards)[:, None] * mass[None, :]
    load = rates[:, None] * bin_work[None, :]
    result = linprog(
        -gain.ravel(), A_ub=load.ravel()[None, :], b_ub=[1.0], bounds=(0.0, 1.0), method="highs"
    )
    if not result.success:
        raise RuntimeError(f"HiGHS failed on the discretised LP: {result.message}")
    return float(-result.fun * scale)


@dataclass(frozen=True)
class MonteCarloPolicy:
    """Monte Carlo estimates, per server, of the cut-off policy's reward rate and of
    the server time it uses, with their standard errors.

    Attributes
    ----------
    reward_per_server, reward_se : float
        Estimate of Λ E[r_I 1{S ≤ c_I}] and its standard error.
    work_per_server, work_se : float
        Estimate of Λ E[S 1{S ≤ c_I}] and its standard error.
    samples : int
        Number of sampled jobs.

    Examples
    --------
    >>> MonteCarloPolicy(1.74, 0.01, 1.0, 0.01, 1000).samples
    1000
    """

    reward_per_server: float
    reward_se: float
    work_per_server: float
    work_se: float
    samples: int


def monte_carlo_policy(solution: DurationFluidSolution, rng, samples: int) -> MonteCarloPolicy:
    """Sample jobs (class ∝ λ_i, S ~ Exp(μ)) and apply the cut-off policy of ``solution``.

    Per server, arrivals come at rate Λ = Σ λ_i, so the reward rate is
    Λ E[r_I 1{S ≤ c_I}] and the server time used per unit time Λ E[S 1{S ≤ c_I}].

    Parameters
    ----------
    solution : DurationFluidSolution
        The solved LP whose cut-offs are applied.
    rng : numpy.random.Generator or seed
        Anything :func:`numpy.random.default_rng` accepts.
    samples : int
        Number of jobs to sample, ≥ 1.

    Returns
    -------
    MonteCarloPolicy
        Sample means and standard errors (0 for a single sample).

    Raises
    ------
    ValueError
        If ``samples`` is not an integer ≥ 1.

    Examples
    --------
    The estimate agrees with v within four standard errors:

    >>> sol = duration_aware_fluid([0.6, 0.6], [2.0, 1.0], 1.0)
    >>> mc = monte_carlo_policy(sol, np.random.default_rng(3), 200_000)
    >>> bool(abs(mc.reward_per_server - sol.per_server) < 4 * mc.reward_se)
    True
    """
    samples = validation.positive_int("samples", samples)
    rng = np.random.default_rng(rng)
    total = float(solution.arrival_rates.sum())
    kind = rng.choice(solution.arrival_rates.size, samples, p=solution.arrival_rates / total)
    length = rng.exponential(1.0 / solution.mu, samples)
    admitted = length <= solution.cutoffs[kind]
    gain = total * np.where(admitted, solution.rewards[kind], 0.0)
    used = total * np.where(admitted, length, 0.0)
    root = np.sqrt(samples)
    spread = (float(gain.std(ddof=1)), float(used.std(ddof=1))) if samples > 1 else (0.0, 0.0)
    return MonteCarloPolicy(
        float(gain.mean()), spread[0] / root, float(used.mean()), spread[1] / root, samples
    )


def pathwise_dual_bound(
    arrival_times,
    classes,
    service_times,
    *,
    servers: int,
    r_h: float,
    r_l: float,
    horizon: float,
    warmup: float = 0.0,
    price: float,
) -> float:
    """D_θ = θ N T' + Σ_j (r_j − θ min(s_j, T − a_j))^+ over arrivals in (T0, T].

    An upper bound, on this very path and for every θ ≥ 0, on the ``job``-model offline
    optimum :func:`~qtheory.lossnet.offline_job.offline_job_optimum` with the same
    arguments (weak duality; see the module docstring).  Its mean over Poisson paths is
    :func:`expected_dual_bound`.

    Parameters
    ----------
    arrival_times, classes, service_times : array_like, shape (n,)
        The path, as for :func:`~qtheory.lossnet.offline_job.offline_job_optimum`.
    servers : int
        N ≥ 1.
    r_h, r_l : float
        Rewards on admission, > 0.
    horizon, warmup : float
        The window ``(warmup, horizon]`` of length T' (``warmup`` defaults to 0).
    price : float
        θ ≥ 0.

    Returns
    -------
    float
        D_θ.

    Raises
    ------
    ValueError
        If the path or a parameter is invalid (see
        :func:`~qtheory.lossnet.offline_job.job_window`) or ``price`` is not a finite
        number ≥ 0.

    References
    ----------
    See the module's References: Bray (2026).

    Examples
    --------
    Window (−1, 1], T' = 2, θ = 1: 2 + (2 − min(1, 1))^+ + (1 − min(1, 0.5))^+ = 3.5.

    >>> pathwise_dual_bound([0.0, 0.5], [0, 1], [1.0, 1.0], servers=1, r_h=2.0, r_l=1.0,
    ...                     horizon=1.0, warmup=-1.0, price=1.0)
    3.5
    """
    jobs = job_window(arrival_times, classes, service_times, servers, r_h, r_l, horizon, warmup)
    price = validation.nonnegative("price", price)
    charged = np.minimum(jobs.service, jobs.horizon - jobs.start)
    surplus = np.maximum(jobs.weight - price * charged, 0.0)
    return float(price * jobs.servers * (jobs.horizon - jobs.warmup) + surplus.sum())


def expected_dual_bound(
    solution: DurationFluidSolution, window: float, price: float | None = None
) -> float:
    """E[D_θ] for Poisson arrivals (λ_i N) over a window of length T', by default at the
    optimal price θ*: N [θ T' + Σ λ_i (T' E(r_i − θS)^+ + end effect_i)].

    At θ* it is N (T' v + e) with end effect e ≤ θ*/μ, so it bounds the mean offline
    reward over the window, and E[OFF]/T' ≤ N v + N e / T'.

    Parameters
    ----------
    solution : DurationFluidSolution
        The solved LP (rates, rewards, μ and N).
    window : float
        T' > 0.
    price : float or None, optional
        θ ≥ 0; None (default) uses ``solution.server_price``.

    Returns
    -------
    float
        E[D_θ] over Poisson paths.

    Raises
    ------
    ValueError
        If ``window`` is not a finite number > 0 or ``price`` is not a finite
        number ≥ 0.

    References
    ----------
    See the module's References: Bray (2026).

    Examples
    --------
    Here T' exceeds both cut-offs, so e = (θ*/μ) Σ λ_i E[S; S ≤ c_i] = θ* and the
    bound is 50 (100 · 1.741312 + 0.40329):

    >>> sol = duration_aware_fluid([0.6, 0.6], [2.0, 1.0], 1.0, servers=50)
    >>> bound = expected_dual_bound(sol, 100.0)
    >>> round(bound, 3), round((bound - 100.0 * sol.value) / 50, 6)  # total, e per server
    (8726.724, 0.40329)
    """
    window = validation.positive("window", window)
    price = solution.server_price if price is None else validation.nonnegative("price", price)
    rates, rewards, scale = solution.arrival_rates, solution.rewards, solution.servers
    if price == 0:
        return float(scale * window * (rates @ rewards))
    ev = _evaluators()
    cut = rewards / price
    surplus = ev["surplus"](rewards, price, solution.mu)
    end = ev["end_effect"](np.minimum(cut, window), cut, price, solution.mu)
    return float(scale * (price * window + rates @ (window * surplus + end)))
