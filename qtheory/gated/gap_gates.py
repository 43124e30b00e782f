r"""Gap-dependent gates for the unobservable M/M/1 queue: exact welfare by the
matrix-geometric method, and the best gate of the family.

Nobody observes the queue: potential customers arrive Poisson(:math:`\Lambda`), service
is Exp(:math:`\mu`), and the controller only knows its own admission times.  After each
admission it closes a gate for :math:`\tau \ge 0` (chosen from the history) and admits
the first arrival after the gate reopens.  An admitted customer who finds :math:`M` in
the system costs :math:`C(M+1)/\mu` in expectation, so the welfare per unit time of
any policy is, by renewal-reward, (mean of :math:`R - C(M+1)/\mu` over admissions) /
(mean inter-admission time).

The family: thresholds :math:`0 < \theta_1 < \dots < \theta_{J-1}` and gates
:math:`\tau_1, \dots, \tau_J \ge 0`; after an admission whose preceding gap :math:`G`
lies in :math:`(\theta_{j-1}, \theta_j]` (:math:`\theta_0 = 0`, :math:`\theta_J = \infty`)
the gate is :math:`\tau_j`, a piecewise-constant function of the previous gap
(:class:`GapGate`).  :math:`J = 1` is GA.  The number found :math:`M_n` by the n-th
admitted customer and the bin :math:`j_n` of the gap before it form a Markov chain of
GI/M/1 type: :math:`M_{n+1} = (M_n + 1 - D_n)^+`, where given :math:`j_n = j` the
next gap is :math:`G = \tau_j + E`, :math:`E \sim \mathrm{Exp}(\Lambda)`, and
:math:`D_n` counts the Poisson(:math:`\mu`) service opportunities in it.  The blocks
:math:`A_d(j, j') = P(D = d, G \in \text{bin } j')` are closed forms,

.. math::
    A_d(j, j') = \frac{\Lambda}{\Lambda+\mu}\Bigl(\frac{\mu}{\Lambda+\mu}\Bigr)^{d}
        e^{\Lambda\tau_j}\Bigl[F_d\bigl((\Lambda+\mu)(\tau_j + e_1)\bigr)
                              - F_d\bigl((\Lambda+\mu)(\tau_j + e_2)\bigr)\Bigr],

with :math:`F_d(y) = P(\mathrm{Poisson}(y) \le d)` and :math:`(e_1, e_2]` the values of
:math:`E` that put :math:`G` in bin :math:`j'`.  The stationary law is matrix-geometric
without truncation of the queue (Neuts 1981): :math:`\pi_M = \pi_0 R^M`, :math:`R` the
minimal solution of :math:`R = \sum_{d \ge 0} R^d A_d` (the U-based fixed point,
then Newton's method, whose sums over the blocks run by doubling; in the search, Newton
starts from the previous point's R; checked by its residual and its spectral radius),
:math:`\pi_0` stationary for
:math:`\sum_M R^M B_M` with :math:`B_M = \sum_{d > M} A_d`, so that
:math:`E[M] = \pi_0 R (I - R)^{-2}\mathbf 1`.  Welfare is exact up to float64 rounding
and the tail of D beyond ``d_max`` (below 2e-16).  :func:`optimal_gap_gate`
maximises over the family by Nelder–Mead started at GA, so it never returns less than
GA.

Cost.  d_max is the Poisson(μτ) quantile plus about 37/log(1 + Λ/μ) (the geometric
count), so it grows with μτ and, when Λ ≪ μ, like 37 μ/Λ; one welfare evaluation holds
about a dozen arrays of d_max J² floats (and d_max J⁴ for Newton's derivative) and
takes 15 to 30 µs per block at J = 2 (about 0.5 ms at the ladder's example), and the
search makes up to 400 J of them.  Both are estimated before any work and refused above
:mod:`qtheory.core.limits` (:func:`require_gap_gate`).

One rung of the ladder of memory: the lower end of the full-memory bracket
(:mod:`qtheory.gated.history`).

References
----------
.. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026).
.. [2] M. F. Neuts, Matrix-Geometric Solutions in Stochastic Models, Johns Hopkins
   University Press (1981), Chapter 1; G. Latouche and V. Ramaswami, Introduction to
   Matrix Analytic Methods in Stochastic Modeling, SIAM (1999), Chapter 8.
.. [3] H. R. Gail, S. L. Hantler and B. A. Taylor, "Spectral analysis of M/G/1 and
   G/M/1 type Markov chains", Advances in Applied Probability 28(1):114-165 (1996).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

from qtheory.core import limits
from qtheory.core.validation import positive_int
from qtheory.exact.matrix_analytic import gim1_rate
from qtheory.gated.count_laws import poisson_isf, poisson_pmf
from qtheory.gated.welfare import GateOptimum, float64_rates, optimal_gate
from qtheory.model.gated import GatedQueue, checked_queue

__all__ = [
    "GapGate",
    "ga_optimum",
    "gap_gate_welfare",
    "optimal_gap_gate",
]


# ---------------------------------------------------------------------------
# (a) gap-dependent gates: exact welfare by the matrix-geometric method

#: Row mass of the blocks A_d allowed to fall beyond d_max.
_TAIL_MASS = 1e-16
#: Cost estimates of one welfare evaluation: arrays of d_max × J × J floats alive at
#: once (the blocks, their log partial sums and temporaries, the tails, the powers of
#: R); dp_cells per block (set when the rate-matrix iterations stepped through the
#: blocks one by one, 50 to 160 µs for J ≤ 16; the doubling sums take 15 to 30 µs at
#: J = 2, so the estimate errs on the safe side); Newton steps counted for the J² × J²
#: Kronecker sums and solves.
BLOCK_ARRAYS, BLOCK_CELLS, NEWTON_STEPS = 12, 1e5, 10
#: Nelder–Mead iterations per gate level (each evaluates the welfare at least once).
ITERATIONS_PER_LEVEL = 400


@dataclass(frozen=True)
class GapGate:
    """A gate that depends on the previous inter-admission gap, and its welfare.

    After an admission whose preceding gap G lies in bin j, i.e.
    ``thresholds[j-1] < G <= thresholds[j]`` (0 and ∞ at the ends), the gate is
    ``gates[j]``.

    Attributes
    ----------
    thresholds : tuple of float
        Increasing gap thresholds θ_1 < ... < θ_{J-1} (empty: GA).
    gates : tuple of float
        Gates τ_1, ..., τ_J ≥ 0.
    welfare : float
        Its exact welfare per unit time (:func:`gap_gate_welfare`).

    Examples
    --------
    >>> q = GatedQueue(3.0, 1.0, 2.0, 1.0)
    >>> g = optimal_gap_gate(q)
    >>> len(g.thresholds), len(g.gates), bool(g.welfare > optimal_gate(q).welfare)
    (1, 2, True)

    References
    ----------
    See the module's References: Hassin and Ravner (2026).
    """

    thresholds: tuple[float, ...]
    gates: tuple[float, ...]
    welfare: float

    def describe(self) -> str:
        r"""A one-line description of the gate function, as text with inline ``$...$``
        mathematics (:func:`qtheory.core.notation.terminal` prints it in Unicode).

        Returns
        -------
        str

        Examples
        --------
        >>> print(GapGate((1.5,), (2.0, 0.5), 0.3).describe())
        gap-dependent gate: $\tau = 2$ if the previous gap $g \le 1.5$, $\tau = 0.5$ otherwise
        """
        if not self.thresholds:
            return f"constant gate (GA): $\\tau = {self.gates[0]:.6g}$"
        first = (
            f"$\\tau = {self.gates[0]:.6g}$ if the previous gap $g \\le {self.thresholds[0]:.6g}$"
        )
        parts = [first]
        for low, high, gate in zip(
            self.thresholds, self.thresholds[1:], self.gates[1:], strict=False
        ):
            parts.append(f"$\\tau = {gate:.6g}$ if ${low:.6g} < g \\le {high:.6g}$")
        parts.append(f"$\\tau = {self.gates[-1]:.6g}$ otherwise")
        return "gap-dependent gate: " + ", ".join(parts)


def _checked_family(thresholds, gates) -> tuple[np.ndarray, np.ndarray]:
    gates = np.atleast_1d(np.asarray(gates, dtype=float))
    thresholds = np.atleast_1d(np.asarray(thresholds, dtype=float))
    if gates.ndim != 1 or gates.size == 0:
        raise ValueError("gates must be a non-empty sequence of gate lengths")
    if not np.all(np.isfinite(gates) & (gates >= 0)):
        raise ValueError(f"gates must be finite and >= 0, got {gates.tolist()}")
    if thresholds.size != gates.size - 1:
        raise ValueError(
            f"thresholds must hold len(gates) - 1 = {gates.size - 1} values, got {thresholds.size}"
        )
    if not (np.all(np.isfinite(thresholds) & (thresholds > 0)) and np.all(np.diff(thresholds) > 0)):
        raise ValueError(
            f"thresholds must be finite, > 0 and strictly increasing, got {thresholds.tolist()}"
        )
    return thresholds, gates


def _log_partial_exponential(size: int, y: np.ndarray) -> np.ndarray:
    """L[d, ...] = log Σ_{i≤d} y^i/i!, d < size (so that log P(Poisson(y) ≤ d) = L − y),
    by a running log-sum-exp: no term underflows however large y is."""
    i = np.arange(size).reshape((size,) + (1,) * y.ndim)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(i == 0, 0.0, i * np.log(y)) - gammaln(i + 1)
    return np.logaddexp.accumulate(terms, axis=0)


def _service_counts(top_gate: float, arrival: float, mu: float) -> tuple[int, int]:
    """(d_max, the Poisson part of it): the blocks A_d kept, d < d_max.  D is
    Poisson(μτ) plus a geometric count in Exp(Λ), P(geometric ≥ n) = (μ/(Λ+μ))^n; each
    part lies beyond its share of d_max with probability below the tail mass."""
    poisson = int(poisson_isf(_TAIL_MASS, mu * top_gate)) + 2
    if math.isinf(arrival):
        return poisson, poisson
    return poisson + math.ceil(-math.log(_TAIL_MASS) / math.log1p(arrival / mu)), poisson


def _block_costs(d_max: int, levels: int, evaluations: int) -> tuple[float, float]:
    """(bytes, dp_cells) of ``evaluations`` welfare evaluations with d_max blocks of
    J × J = ``levels``²: the blocks' arrays, Newton's d_max Kronecker products of
    J² × J² and its matrix (memory); :data:`BLOCK_CELLS` per block plus
    :data:`NEWTON_STEPS` Kronecker sums and solves per evaluation (work)."""
    size = float(levels) ** 2
    memory = 8 * (BLOCK_ARRAYS * d_max * size + (d_max + 3) * size**2)
    one = d_max * (BLOCK_CELLS + NEWTON_STEPS * size**2) + NEWTON_STEPS * size**3
    return memory, evaluations * one


def _require_blocks(costs: tuple[float, float], *, parameter: str, what: str) -> None:
    """Refuse :func:`_block_costs` above the ``memory`` or ``dp_cells`` limit."""
    memory, cells = costs
    limits.require("memory", memory, parameter=parameter, what=what)
    limits.require("dp_cells", cells, parameter=parameter, what=what)


@functools.lru_cache(maxsize=64)
def ga_optimum(queue: GatedQueue) -> GateOptimum:
    """GA's optimum (:func:`~qtheory.gated.welfare.optimal_gate`, float64), cached per
    queue: the full-memory bracket's estimates and bounds, the gap-gate search (which
    starts there) and the relaxation (whose gate grid scales with τ*) all ask for it.

    Parameters
    ----------
    queue : GatedQueue
        ν > 1.

    Returns
    -------
    GateOptimum

    Examples
    --------
    >>> q = GatedQueue(3.0, 1.0, 2.0, 1.0)
    >>> ga_optimum(q) == optimal_gate(q)
    True
    """
    return optimal_gate(queue)


def require_gap_gate(queue: GatedQueue, levels: int) -> None:
    """Refuse, before any work, a search (:func:`optimal_gap_gate`) whose welfare
    evaluations would exceed :mod:`qtheory.core.limits`: up to
    :data:`ITERATIONS_PER_LEVEL` · J Nelder–Mead evaluations, each with the d_max
    blocks of GA's gate, where the search starts (a ``ValueError`` naming ``levels``
    when two levels would pass, else ``service_rate``: d_max grows with μτ* and with
    μ/Λ).

    Parameters
    ----------
    queue : GatedQueue
        Finite Λ; ν > 1 (checked by the caller).
    levels : int
        J ≥ 1 (J = 1 is GA: no evaluation).

    Returns
    -------
    None

    Raises
    ------
    ValueError
        Above the ``memory`` or the ``dp_cells`` limit.

    Examples
    --------
    >>> require_gap_gate(GatedQueue(3.0, 1.0, 2.0, 1.0), 2)  # 51 blocks: within
    >>> require_gap_gate(GatedQueue(1e-6, 1, 1000, 0.001), 2)
    Traceback (most recent call last):
    ...
    ValueError: service_rate: the best gap-dependent gate (d_max = 36841382 service ...
    """
    if levels == 1:
        return
    arrival, mu = float64_rates(queue)[:2]
    d_max = _service_counts(float(ga_optimum(queue).gate), arrival, mu)[0]
    memory, cells = _block_costs(d_max, 2, 2 * ITERATIONS_PER_LEVEL)
    two_pass = memory <= limits.limit("memory") and cells <= limits.limit("dp_cells")
    _require_blocks(
        _block_costs(d_max, levels, ITERATIONS_PER_LEVEL * levels),
        parameter="levels" if two_pass else "service_rate",
        what=f"the best gap-dependent gate (d_max = {d_max} service counts, J = {levels})",
    )


def _blocks(thresholds, gates, arrival, mu) -> np.ndarray:
    """A[d, j, j'] = P(D = d, next gap in bin j' | gate τ_j), d < d_max."""
    d_max = _service_counts(float(gates.max()), arrival, mu)[0]
    d = np.arange(d_max)[:, None, None]
    tau = gates[None, :, None]
    edges = np.concatenate([[0.0], thresholds, [np.inf]])
    if math.isinf(arrival):
        bins = np.searchsorted(thresholds, gates, side="left")  # gap = gate, in bin j'
        into = (np.arange(gates.size)[None, :] == bins[:, None]).astype(float)
        return poisson_pmf(d, mu * tau) * into[None]
    rate = arrival + mu
    low = np.maximum(edges[None, :-1] - gates[:, None], 0.0)  # E in (low, high]: bin j'
    high = np.maximum(edges[None, 1:] - gates[:, None], 0.0)
    # P(D = d, E ∈ (low, high]) = (Λ/r)(μ/r)^d e^{Λτ} [F_d(r(τ + low)) − F_d(r(τ + high))],
    # r = Λ + μ, F_d(y) = e^{−y} S_d(y), S_d the partial exponential sum; in logs
    # e^{Λτ − r(τ + low)} = e^{−μτ − r low} has no cancellation
    partial_low = _log_partial_exponential(d_max, rate * (gates[:, None] + low))
    with np.errstate(invalid="ignore"):
        partial_high = _log_partial_exponential(d_max, rate * (gates[:, None] + high))
        ratio = np.where(np.isinf(high), -np.inf, partial_high - partial_low - rate * (high - low))
    log_scale = math.log(arrival / rate) + d * math.log(mu / rate) - mu * tau - rate * low[None]
    return np.where(high > low, np.exp(log_scale + partial_low) * -np.expm1(ratio), 0.0)


def _stationary(matrix: np.ndarray) -> np.ndarray:
    """The stationary row vector of a unichain stochastic matrix (ValueError otherwise)."""
    size = matrix.shape[0]
    system = (matrix - np.eye(size)).T
    system[-1] = 1.0
    right = np.zeros(size)
    right[-1] = 1.0
    if np.linalg.cond(system) > 1e12:
        raise ValueError("the gap bins form more than one closed class (multichain policy)")
    return np.linalg.solve(system, right)


def gap_gate_welfare(queue: GatedQueue, thresholds, gates) -> float:
    r"""Exact welfare per unit time of a gap-dependent gate (module notes, part (a)).

    Parameters
    ----------
    queue : GatedQueue
        Λ, μ, R, C; ν > 1.
    thresholds : sequence of float
        θ_1 < ... < θ_{J-1}, all > 0 (empty for GA).
    gates : sequence of float
        τ_1, ..., τ_J ≥ 0: the gate after a gap in bin j.

    Returns
    -------
    float
        (R − C(E[M] + 1)/μ) / E[T], M the number an admitted customer finds and T the
        inter-admission time, both under the stationary law of (M, bin).

    Raises
    ------
    TypeError
        ``queue`` not a GatedQueue.
    ValueError
        ν ≤ 1, bad thresholds or gates, a multichain bin chain (possible only at
        Λ = ∞), an unstable policy (mean inter-admission time ≤ 1/μ), parameters that
        float64 cannot carry, or blocks whose memory or work exceed
        :mod:`qtheory.core.limits` (naming ``gates`` when the Poisson(μτ) counts set
        d_max, else ``service_rate``), refused before they are built.

    Examples
    --------
    One level is GA, and gives :func:`qtheory.gated.welfare_ga`:

    >>> from qtheory.gated.welfare import welfare_ga
    >>> q = GatedQueue(3.0, 1.0, 2.0, 1.0)
    >>> round(gap_gate_welfare(q, (), (1.2,)), 10) == round(float(welfare_ga(q, 1.2)), 10)
    True

    References
    ----------
    See the module's References: Neuts (1981), Chapter 1.
    """
    queue = checked_queue(queue, worthwhile=True)
    return _welfare(float64_rates(queue), *_checked_family(thresholds, gates))[0]


def _welfare(
    rates: tuple[float, float, float, float],
    thresholds: np.ndarray,
    gates: np.ndarray,
    start: np.ndarray | None = None,
) -> tuple[float, np.ndarray]:
    """:func:`gap_gate_welfare` after validation, from the rates (Λ, μ, R, C): the
    welfare and the rate matrix R (found by Newton's method from ``start``, if given:
    :func:`~qtheory.exact.matrix_analytic.gim1_rate`)."""
    arrival, mu, reward, cost = rates
    d_max, poisson = _service_counts(float(gates.max()), arrival, mu)
    _require_blocks(
        _block_costs(d_max, gates.size, 1),
        parameter="gates" if 2 * poisson >= d_max else "service_rate",
        what=f"a gap-dependent gate's welfare (d_max = {d_max} service counts, J = {gates.size})",
    )
    blocks = _blocks(thresholds, gates, arrival, mu)
    lost = np.max(np.abs(blocks.sum(axis=(0, 2)) - 1.0))
    if not lost < 1e-12:
        raise ArithmeticError(f"the blocks A_d lose {lost:.3g} of their mass")
    transitions = blocks.sum(axis=0)  # of the bins
    bins = _stationary(transitions)
    cycle = gates + (0.0 if math.isinf(arrival) else 1.0 / arrival)
    mean_gap = float(bins @ cycle)
    if not mean_gap > 1.0 / mu:
        raise ValueError(
            f"gates give mean inter-admission time {mean_gap:.6g} <= 1/service_rate: unstable"
        )
    try:
        rate, total = gim1_rate(blocks, start=start)
    except ArithmeticError as error:
        raise ArithmeticError(f"{error}; longer gates converge") from None
    inverse = np.linalg.inv(np.eye(rate.shape[0]) - rate)
    # Σ_M R^M B_M with B_M = Σ_{d>M} A_d is Σ_d (I + R + ... + R^{d-1}) A_d
    # = (I − R)^{-1} Σ_d (I − R^d) A_d
    boundary = inverse @ (transitions - total)
    empty = _stationary(boundary / boundary.sum(axis=1, keepdims=True))
    empty = empty / (empty @ inverse).sum()
    mean_found = float(empty @ rate @ inverse @ inverse @ np.ones(rate.shape[0]))
    return (reward - cost * (mean_found + 1.0) / mu) / mean_gap, rate


def optimal_gap_gate(queue: GatedQueue, *, levels: int = 2) -> GapGate:
    r"""The best gap-dependent gate with ``levels`` gate values (part (a) of the notes).

    Nelder–Mead over the thresholds (log-increments) and the gates (as squares, so
    that they stay ≥ 0), started at GA with the thresholds at quantiles of GA's gap;
    unstable points count as −∞.  The simplex keeps its best vertex, so the result is
    never below GA.  Only for Λ < ∞: at Λ = ∞ the gaps are the gates themselves, the
    family consists of deterministic gap sequences, and GA is optimal among them (module
    notes).

    Parameters
    ----------
    queue : GatedQueue
        Finite Λ; ν > 1.
    levels : int, keyword-only
        J ≥ 1 gate values (J = 1 returns GA); J − 1 thresholds.

    Returns
    -------
    GapGate
        The best gate found and its exact welfare.

    Raises
    ------
    TypeError
        ``queue`` not a GatedQueue.
    ValueError
        ν ≤ 1, ``levels`` < 1, Λ = ∞, parameters that float64 cannot carry, or a
        search above :mod:`qtheory.core.limits` (:func:`require_gap_gate`), refused
        before it starts.

    Examples
    --------
    A short previous gap (the queue probably still busy) calls for a longer gate:

    >>> g = optimal_gap_gate(GatedQueue(3.0, 1.0, 2.0, 1.0))
    >>> bool(g.gates[0] > g.gates[1])
    True

    References
    ----------
    .. [1] J. A. Nelder and R. Mead, "A simplex method for function minimization",
       The Computer Journal 7(4):308-313 (1965).
    """
    queue = checked_queue(queue, worthwhile=True)
    levels = positive_int("levels", levels)
    if math.isinf(float64_rates(queue)[0]):
        raise ValueError(
            "arrival_rate must be finite for gap-dependent gates (at inf the gaps are the "
            "gates: GA is optimal, see the module notes)"
        )
    require_gap_gate(queue, levels)
    return _optimal_gap_gate(queue, levels)


@functools.lru_cache(maxsize=64)
def _optimal_gap_gate(queue: GatedQueue, levels: int) -> GapGate:
    """:func:`optimal_gap_gate` after validation (cached: the ladder asks again)."""
    from scipy.optimize import minimize

    arrival = queue.float_rates()[0]
    ga = ga_optimum(queue)
    start_thresholds = ga.gate - np.log1p(-np.arange(1, levels) / levels) / arrival
    start = np.concatenate(
        [np.log(np.diff(np.concatenate([[0.0], start_thresholds]))),
         np.full(levels, math.sqrt(ga.gate))]
    )  # fmt: skip

    def unpack(x):
        return np.cumsum(np.exp(x[: levels - 1])), x[levels - 1 :] ** 2

    rates = float64_rates(queue)
    previous = None  # the last rate matrix found: Newton's start at the next point

    def loss(x):
        nonlocal previous
        try:
            welfare, previous = _welfare(rates, *_checked_family(*unpack(x)), previous)
        except (ValueError, ArithmeticError):
            return math.inf
        return -welfare

    if levels == 1:
        return GapGate((), (float(ga.gate),), float(ga.welfare))
    result = minimize(loss, start, method="Nelder-Mead",
                      options={"xatol": 1e-7, "fatol": 1e-13 * abs(ga.welfare),
                               "maxiter": ITERATIONS_PER_LEVEL * levels})  # fmt: skip
    thresholds, gates = unpack(result.x)
    return GapGate(tuple(map(float, thresholds)), tuple(map(float, gates)), -float(result.fun))
