r"""The relaxation that observes the unobservable M/M/1 queue at admissions: an upper
bound on the best full-memory gate policy, with its certificate.

Nobody observes the queue: potential customers arrive Poisson(:math:`\Lambda`), service
is Exp(:math:`\mu`), and the controller only knows its own admission times.  After each
admission it closes a gate for :math:`\tau \ge 0` (chosen from the history) and admits
the first arrival after the gate reopens.  An admitted customer who finds :math:`M` in
the system costs :math:`C(M+1)/\mu` in expectation, so the welfare per unit time of
any policy is, by renewal-reward, (mean of :math:`R - C(M+1)/\mu` over admissions) /
(mean inter-admission time).

*Upper bound (relaxation, gate policies only).*  Give the controller, in addition, the
number :math:`k` in the system just after each admission.  Its information contains the
admission history and its actions are the same gates, so its optimum is
:math:`\ge S_{\mathrm{FM}}`; and since service is memoryless, :math:`k` is a
sufficient state: a semi-Markov decision problem with state :math:`k \ge 1`, action
:math:`\tau \ge 0`, expected sojourn :math:`T(\tau) = \tau + 1/\Lambda`, lump reward
:math:`r(k, \tau) = R - C(E[(k-D)^+] + 1)/\mu` and next state :math:`(k-D)^+ + 1`,
:math:`D` the service opportunities in :math:`\tau + \mathrm{Exp}(\Lambda)`.  Naor's
observable queue can emulate this controller, so it is a looser ceiling still.
(At :math:`\Lambda = \infty` the gate 0 takes no time; the capped problem below then
needs :math:`K \ge \nu`, else admitting at once into a full system pays without end.)

*Truncation.*  The *capped* problem keeps :math:`k \le K` by sending
:math:`(k-D)^+ + 1 = K + 1` to :math:`K` (a customer removed for free).  Its optimum is
an upper bound of the uncapped one: by induction on discounted value iteration the
uncapped values :math:`V_n(k)` are non-increasing in :math:`k` (the reward and, by the
coupling :math:`(k-D)^+ \le (k+1-D)^+`, the continuation are), hence
:math:`V_n(\min(x, K)) \ge V_n(x)` and the capped values dominate on
:math:`k \le K`; the vanishing-discount limit (Sennott 1999, Ch. 7; the Abel mean is
an average of Cesàro means) carries the order to the average reward.  So the bound
holds for every :math:`K`; larger :math:`K` only tightens it.

*Certificate.*  For any :math:`h` on :math:`\{1..K\}` and :math:`g'` with
:math:`r(k, \tau) - g' T(\tau) + E\,h(\text{next}) - h(k) \le 0` for all :math:`k` and
all :math:`\tau \ge 0`, every non-Zeno policy of the capped problem has average reward
:math:`\le g'` (sum the inequality along the path; :math:`h` is bounded; Puterman 1994,
Sec. 11.3).  :math:`h` comes from policy iteration on a fine gate grid; the smallest
such :math:`g'` over *all* :math:`\tau` comes in closed form from a bound on each grid
cell: :math:`F(\tau) = N_k(\tau) - g' T(\tau)`, :math:`N_k(\tau) = E\,\varphi_k(D_\tau)`
with :math:`\varphi_k(d) = v((k-d)^+) - h(k)`, :math:`v(m) = R - C(m+1)/\mu +
h(\min(m+1, K))`, and, because :math:`D_\tau` is a Poisson count,
:math:`N_k' = \mu E\,\Delta\varphi_k(D_\tau)`, :math:`N_k'' = \mu^2 E\,\Delta^2
\varphi_k(D_\tau)`.  On a cell :math:`[a, b]` of width :math:`\delta`, with
:math:`M_2 = \mu^2\max(0, \max_d \Delta^2\varphi_k(d))\,P(D_a < k) \ge \sup N_k''`
(:math:`\Delta^2\varphi_k(d) = 0` for :math:`d \ge k`, and :math:`P(D_\tau < k)`
decreases in :math:`\tau`), :math:`F` is below the smallest of
:math:`\max(F(a), F(b)) + M_2\delta^2/8`,
:math:`\max(F(a), F(a) + F'(a)\delta + M_2\delta^2/2)` (which handles
:math:`T(0) = 0` at :math:`\Lambda = \infty`) and
:math:`\max_d\varphi_k(d) - g' T(a)`; beyond the last grid point
:math:`F \le \max_d\varphi_k(d) - g' T(\tau)`.  The bound is exact mathematics
evaluated in float64 (rounding of order 1e-13 relative is not enclosed).

*Cost.*  About 16 arrays of (grid + 65) × (K + 1) floats, and up to 200
policy-iteration steps, each a (grid) × (K + 1) × K product and a K × K solve; both
are estimated before any work and refused above :mod:`qtheory.core.limits`
(:func:`require_relaxation`).  With K below ν − 1 and Λ > μ, admissions into a full
capped system pay, the policy that parks the capped system near K is nearly optimal,
and policy iteration meets nearly decomposable chains (it may fail, with a message to
raise K); the bracket leaves the relaxation out where gate 0 alone already earns the
regular-arrivals bound (:func:`dominated`).

This is the upper end of the full-memory bracket for gate policies
(:mod:`qtheory.gated.history`).

References
----------
.. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026).
.. [2] P. Naor, "The regulation of queue size by levying tolls", Econometrica
   37(1):15-24 (1969).
.. [3] M. L. Puterman, Markov Decision Processes: Discrete Stochastic Dynamic
   Programming, Wiley (1994), Chapters 8 and 11.
.. [4] L. I. Sennott, Stochastic Dynamic Programming and the Control of Queueing
   Systems, Wiley (1999), Chapter 7.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np

from qtheory.core import limits
from qtheory.core.validation import positive_int
from qtheory.exact.stationary import stationary_dtmc
from qtheory.gated.count_laws import geometric_pmf, poisson_pmf
from qtheory.gated.gap_gates import ga_optimum
from qtheory.gated.welfare import float64_rates
from qtheory.model.gated import GatedQueue, checked_queue

__all__ = [
    "ObservedRelaxation",
    "observed_relaxation",
]


# ---------------------------------------------------------------------------
# (b) the relaxation that observes the queue at admissions: an upper bound

#: The default cap K of the relaxation is max(48, ⌈5ν/4⌉ + 16), at most 400; grid points.
DEFAULT_STATES, MAX_DEFAULT_STATES = 48, 400
DEFAULT_GRID = 2400
#: Policy-iteration steps before giving up.
POLICY_STEPS = 200
#: Gate points the certificate adds to the grid (64 geometric ones beyond, τ = 0).
_EXTRA_POINTS = 65
#: Arrays of (grid points) × (K + 1) floats alive at once (count table, tails, the
#: certificate's cell bounds and their temporaries), and of (K + 1)² floats.
_GRID_ARRAYS, _SQUARE_ARRAYS = 16, 4
#: Cost of one state's row of a policy evaluation (a Python-level step), in dp_cells.
_ROW_CELLS = 1e4


@dataclass(frozen=True)
class ObservedRelaxation:
    """The controller that also sees the number in system at each admission.

    Attributes
    ----------
    upper : float
        A bound ≥ the optimum of the relaxation (hence of full memory), by the
        certificate of the module notes.
    gain : float
        Welfare of the best policy on the gate grid (≤ the relaxation's optimum, so
        ``upper - gain`` bounds the certificate's slack).
    gates : tuple of float
        That policy: the gate after an admission that leaves k = 1, ..., K in system.
    states : int
        K, the cap of the number in system.
    top_mass : float
        Stationary probability of k = K under that policy.

    Examples
    --------
    >>> r = observed_relaxation(GatedQueue(float("inf"), 1.0, 2.0, 1.0))
    >>> bool(0 <= r.upper - r.gain < 1e-4), r.states
    (True, 48)

    References
    ----------
    See the module's References: Puterman (1994), Chapter 11.
    """

    upper: float
    gain: float
    gates: tuple[float, ...]
    states: int
    top_mass: float


def _count_table(gates: np.ndarray, arrival: float, mu: float, size: int) -> np.ndarray:
    """a[t, d] = P(D = d) for the gate ``gates[t]``, d < size: the law of
    :func:`~qtheory.gated.embedded_chain.service_count_law` for a whole grid at once
    (Poisson(μτ) convolved with the geometric count in Exp(Λ); tested against it)."""
    counts = np.arange(size)
    during_gate = poisson_pmf(counts[None, :], mu * gates[:, None])
    if math.isinf(arrival):
        return during_gate
    after = geometric_pmf(counts + 1, arrival / (arrival + mu))
    lag = counts[None, :] - counts[:, None]  # d − i
    return during_gate @ np.where(lag >= 0, after[np.clip(lag, 0, size - 1)], 0.0)


class _CappedProblem:
    """The capped SMDP on k = 1..K with the gate-count table of a grid (module notes)."""

    def __init__(
        self, queue: GatedQueue, states: int, grid: np.ndarray, counts: np.ndarray | None = None
    ) -> None:
        self.arrival, self.mu, self.reward, self.cost = queue.float_rates()
        self.states = states
        self.grid = grid
        self.sojourn = grid + (0.0 if math.isinf(self.arrival) else 1.0 / self.arrival)
        if counts is None:
            counts = _count_table(grid, self.arrival, self.mu, states + 1)
        self.counts = counts
        below = np.cumsum(self.counts, axis=1)[:, :-1]
        self.tail = np.clip(1.0 - np.concatenate([np.zeros((grid.size, 1)), below], 1), 0.0, None)
        served = np.arange(states + 1)[:, None]
        state = np.arange(1, states + 1)[None, :]
        self.left = state - served  # m = k − d (valid where > 0)

    @classmethod
    def joined(cls, queue: GatedQueue, states: int, *pieces) -> _CappedProblem:
        """The problem on the concatenated grids of ``pieces`` = (grid, counts or None)."""
        arrival, mu = queue.float_rates()[:2]
        grids = [grid for grid, _ in pieces]
        tables = [
            _count_table(grid, arrival, mu, states + 1) if counts is None else counts
            for grid, counts in pieces
        ]
        return cls(queue, states, np.concatenate(grids), np.concatenate(tables))

    def _convolve(self, values: np.ndarray) -> np.ndarray:
        """Σ_{d<k} a[t, d] values[k − d], shape (grid, K), for ``values`` on m = 0..K."""
        matrix = np.where(self.left > 0, values[np.clip(self.left, 0, self.states)], 0.0)
        return self.counts @ matrix

    def continuation(self, bias: np.ndarray) -> np.ndarray:
        """v(m) = R − C(m + 1)/μ + h(min(m + 1, K)), m = 0..K."""
        found = np.arange(self.states + 1)
        return (
            self.reward
            - self.cost * (found + 1) / self.mu
            + bias[np.minimum(found, self.states - 1)]
        )

    def expected(self, bias: np.ndarray) -> np.ndarray:
        """N[t, k] = E v((k − D)^+) − h(k)."""
        v = self.continuation(bias)
        return self._convolve(v) + self.tail[:, 1:] * v[0] - bias[None, :]

    def evaluate(self, policy: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        """(g, h, P) of a policy (grid index per state), h(1) = 0."""
        k = np.arange(1, self.states + 1)
        transition = np.zeros((self.states, self.states))
        rewards = np.zeros(self.states)
        for row, (state, t) in enumerate(zip(k, policy, strict=True)):
            law = np.zeros(self.states + 1)  # found m = 0..K
            law[1 : state + 1] = self.counts[t, :state][::-1]
            law[0] = self.tail[t, state]
            np.add.at(transition[row], np.minimum(np.arange(self.states + 1), self.states - 1), law)
            rewards[row] = self.reward - self.cost * (law @ np.arange(1, self.states + 2)) / self.mu
        system = np.eye(self.states) - transition
        system[:, 0] = self.sojourn[policy]  # unknowns (g, h(2), ..., h(K))
        try:
            solution = np.linalg.solve(system, rewards)
        except np.linalg.LinAlgError as error:
            raise ArithmeticError(
                f"policy iteration met a policy whose capped chain (K = {self.states}) has "
                f"more than one closed class, so its gain is not defined ({error}); "
                f"{self._advice()}"
            ) from error
        return float(solution[0]), np.concatenate([[0.0], solution[1:]]), transition

    def solve(self, start: np.ndarray) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
        """Policy iteration from ``start`` (keeps an action unless beaten by 1e-12)."""
        policy = start
        for _ in range(POLICY_STEPS):
            gain, bias, transition = self.evaluate(policy)
            test = self.expected(bias) - gain * self.sojourn[:, None]
            best = np.argmax(test, axis=0)
            current = test[policy, np.arange(self.states)]
            better = test[best, np.arange(self.states)] > current + 1e-12 * (1 + np.abs(current))
            if not better.any():
                return gain, bias, policy, transition
            policy = np.where(better, best, policy)
        raise ArithmeticError(
            f"policy iteration did not converge in {POLICY_STEPS} steps (K = {self.states}); "
            f"{self._advice()}"
        )

    def _advice(self) -> str:
        """What to change when policy iteration fails."""
        excess = self.reward * self.mu / self.cost - 1
        return (
            f"raise states above nu - 1 = {excess:.6g}, where admissions into a full capped "
            "system stop paying (below it the policy that keeps the system near the cap is "
            "nearly optimal and its chain nearly decomposable)"
        )

    def certified_gain(self, bias: np.ndarray, gain: float) -> float:
        """The smallest g' that passes the cell bounds for ``bias`` (module notes), in
        closed form: each of a cell's three bounds, and the bound beyond the grid, is a
        maximum of functions a − b g' with b ≥ 0, so it is ≤ 0 from the largest of their
        roots a/b on (:func:`_least_root`); a cell passes from the smallest of its three
        roots, and g' passes where every cell of every state and the bound beyond do.
        An ArithmeticError if that is below ``gain`` − 1e-9 (1 + |gain|), which the
        gain of a grid policy contradicts, or beyond ``gain`` + 1e6 (1 + |gain|)."""
        v = self.continuation(bias)
        worth = self.expected(bias)  # N[t, k]
        step = np.concatenate([[0.0], v[:-1] - v[1:]])  # w(m) = v(m − 1) − v(m), m ≥ 1
        slope = self.mu * self._convolve(step)  # N'[t, k]
        k = np.arange(1, self.states + 1)
        convex = np.array([
            max(0.0, np.max(np.diff(np.concatenate([step[state:0:-1], [0.0]])), initial=0.0))
            for state in k
        ])  # fmt: skip
        # N'' ≤ μ² max(Δ²φ)^+ P(D_τ < k), and P(D_τ < k) decreases in τ
        curvature = self.mu**2 * convex * (1.0 - self.tail[:-1, 1:])
        best_phi = np.array([v[: state + 1].max() for state in k]) - bias
        width = np.diff(self.grid)[:, None]
        sojourn = self.sojourn[:, None]
        # F = N − g' T on a cell [a, b]: max(F(a), F(b)) + M₂δ²/8 ...
        interpolated = np.maximum(
            _least_root(worth[:-1] + curvature * width**2 / 8, sojourn[:-1]),
            _least_root(worth[1:] + curvature * width**2 / 8, sojourn[1:]),
        )
        # ... max(F(a), F(a) + F'(a)δ + M₂δ²/2), F'(a) = N'(a) − g' ...
        taylor = np.maximum(
            _least_root(worth[:-1], sojourn[:-1]),
            _least_root(worth[:-1] + slope[:-1] * width + curvature * width**2 / 2,
                        sojourn[:-1] + width),
        )  # fmt: skip
        # ... and max φ − g' T(a), since N ≤ max φ; beyond the grid max φ − g' T(τ)
        crude = _least_root(best_phi, sojourn[:-1])
        cells = np.minimum(np.minimum(interpolated, taylor), crude)
        least = float(max(cells.max(), _least_root(best_phi, self.sojourn[-1]).max()))
        scale = 1.0 + abs(gain)
        if least <= gain - 1e-9 * scale:
            raise ArithmeticError("the certificate passed below an achievable gain")
        if not least - gain <= 1e6 * scale:
            raise ArithmeticError("no finite certificate for this bias")
        return least


def _least_root(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The least g with a − b g ≤ 0, for b ≥ 0 (broadcast): a/b where b > 0; where
    b = 0, −∞ if a ≤ 0 (every g passes) and +∞ otherwise (none does)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b > 0, a / b, np.where(a <= 0, -np.inf, np.inf))


def default_states(queue: GatedQueue) -> int:
    """max(48, ⌈5ν/4⌉ + 16), at most 400: the relaxation keeps up to about ν customers
    when ν is large (and at Λ = ∞ a cap K ≤ ν − 1 makes instantaneous admissions pay)."""
    wanted = math.ceil(1.25 * min(queue.naor_ratio, MAX_DEFAULT_STATES)) + 16
    return min(MAX_DEFAULT_STATES, max(DEFAULT_STATES, wanted))


def zeno(queue: GatedQueue, states: int) -> bool:
    """At Λ = ∞, whether admitting at once into a full capped system (K in it) pays:
    R − C(K + 1)/μ ≥ 0, i.e. K + 1 ≤ ν; the capped problem then has no finite optimum."""
    return math.isinf(queue.float_rates()[0]) and states + 1 <= queue.naor_ratio


def dominated(queue: GatedQueue, states: int, bound: float) -> bool:
    """Whether the capped problem's optimum, hence the relaxation's bound, is known to be
    at least ``bound`` before it is solved: at Λ = ∞ when :func:`zeno` (no finite
    optimum); at finite Λ when gate 0 in every state, whose admissions each find at
    most K customers, already earns Λ(R − C(K + 1)/μ) ≥ ``bound`` per unit time (then
    the policy that parks the capped system near K is nearly as good as the optimum,
    and policy iteration meets a nearly decomposable chain).

    Parameters
    ----------
    queue : GatedQueue
    states : int
        The cap K.
    bound : float
        The welfare the relaxation would have to beat (the regular-arrivals bound).

    Returns
    -------
    bool

    Examples
    --------
    At Λ = 2, ν = 1000, K = 400 gate 0 earns at least 2(1000 − 401) = 1198, above
    every policy's μR − C = 999:

    >>> dominated(GatedQueue(2, 1, 1000, 1), 400, 999.0)
    True
    >>> dominated(GatedQueue(2, 1, 1000, 1), 1000, 999.0)
    False
    """
    arrival, mu, reward, cost = queue.float_rates()
    if math.isinf(arrival):
        return zeno(queue, states)
    return arrival * (reward - cost * (states + 1) / mu) >= bound


def require_relaxation(states: int, grid: int) -> None:
    """Refuse (``ValueError`` naming ``states``, or ``grid`` when K is within the default
    caps, all of which pass) a relaxation whose memory or work exceeds
    :mod:`qtheory.core.limits`, before any of it is allocated: about 16 arrays of
    (grid + 65) × (K + 1) floats, and at most :data:`POLICY_STEPS` policy-iteration
    steps of a (grid + 65) × (K + 1) × K product, a K × K solve and K Python-level
    rows, then the certificate's one pass over the cells.

    Parameters
    ----------
    states : int
        The cap K.
    grid : int
        Gate-grid points.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        Above the ``memory`` or the ``dp_cells`` limit.

    Examples
    --------
    >>> require_relaxation(400, 2400)  # the largest default: within the limits
    >>> require_relaxation(20000, 2400)
    Traceback (most recent call last):
    ...
    ValueError: states: the relaxation (K = 20000, 2400 gate points) needs ...
    """
    points, size = float(grid + _EXTRA_POINTS), float(states + 1)
    parameter = "grid" if states <= MAX_DEFAULT_STATES else "states"
    what = f"the relaxation (K = {states}, {grid} gate points)"
    memory = 8 * (_GRID_ARRAYS * points * size + _SQUARE_ARRAYS * size**2)
    limits.require("memory", memory, parameter=parameter, what=what)
    step = points * size * states + states**3 / 3 + _ROW_CELLS * states
    cells = POLICY_STEPS * step + _GRID_ARRAYS * points * size
    limits.require("dp_cells", cells, parameter=parameter, what=what)


def observed_relaxation(
    queue: GatedQueue, *, states: int | None = None, grid: int = DEFAULT_GRID
) -> ObservedRelaxation:
    r"""Upper bound from the controller that also observes the queue at admissions.

    Policy iteration on the capped SMDP (k ≤ ``states``) over a gate grid gives a bias
    h; the certificate of the module notes then bounds the capped optimum over *all*
    gates τ ≥ 0, and the capped optimum bounds the uncapped one for every K.

    Parameters
    ----------
    queue : GatedQueue
        Λ (``inf`` allowed), μ, R, C; ν > 1.
    states : int or None, keyword-only
        K ≥ 2, the cap on the number in system after an admission (at Λ = ∞ also
        K ≥ ν); None: max(48, ⌈5ν/4⌉ + 16), at most 400.
    grid : int, keyword-only
        Points (≥ 16) of the gate grid: three quarters on [0, 4τ* + 6/μ] (τ* GA's
        optimal gate), a quarter on the next 2K/μ, and 64 geometric points beyond.

    Returns
    -------
    ObservedRelaxation

    Raises
    ------
    TypeError
        ``queue`` not a GatedQueue.
    ValueError
        ν ≤ 1, ``states`` < 2 (or, at Λ = ∞, K + 1 ≤ ν: then admitting at once to a
        full capped system pays and the capped problem has no finite optimum),
        ``grid`` < 16, parameters that float64 cannot carry
        (:func:`~qtheory.gated.welfare.float64_rates`), or memory or work above
        :mod:`qtheory.core.limits` (:func:`require_relaxation`, naming ``states`` or
        ``grid``), refused before any work.
    ArithmeticError
        If policy iteration or the certificate fails: seen only with a cap K below
        ν − 1 and Λ > μ, where admissions into a full capped system pay and the capped
        chain is nearly decomposable (the message says to raise ``states``).

    Examples
    --------
    Observing the queue at admissions is worth more than GA, and less than Naor's
    observable queue (R μ − C = 1 at Λ = ∞):

    >>> from qtheory.gated.welfare import optimal_gate
    >>> q = GatedQueue(float("inf"), 1.0, 2.0, 1.0)
    >>> r = observed_relaxation(q)
    >>> bool(optimal_gate(q).welfare < r.upper < 1.0), round(r.upper, 4)
    (True, 0.4221)

    References
    ----------
    See the module's References:

    - Puterman (1994), Chapter 11;
    - Sennott (1999), Chapter 7.
    """
    queue = checked_queue(queue, worthwhile=True)
    float64_rates(queue)
    states = default_states(queue) if states is None else positive_int("states", states)
    grid = positive_int("grid", grid)
    if states < 2:
        raise ValueError(f"states must be >= 2, got {states}")
    if grid < 16:
        raise ValueError(f"grid must be >= 16, got {grid}")
    if zeno(queue, states):
        raise ValueError(
            f"states must be >= nu - 1 = {queue.naor_ratio - 1:.6g} at arrival_rate = inf "
            f"(else admitting at once to a full capped system pays), got {states}"
        )
    require_relaxation(states, grid)
    return _observed_relaxation(queue, states, grid)


def _top_mass(transition: np.ndarray) -> float:
    """Stationary probability of k = K under a policy's chain: the law of the closed
    class of k = 1 (every state reaches k = 1, through a long enough service count), on
    which the states a policy never reaches (transient) carry none."""
    reached = np.zeros(transition.shape[0], dtype=bool)
    reached[0], frontier = True, np.array([0])
    while frontier.size:
        new = (transition[frontier] > 0).any(axis=0) & ~reached
        reached |= new
        frontier = np.flatnonzero(new)
    if not reached[-1]:
        return 0.0
    if reached.all():
        return float(stationary_dtmc(transition)[-1])
    return float(stationary_dtmc(transition[np.ix_(reached, reached)])[-1])


@functools.lru_cache(maxsize=64)
def _observed_relaxation(queue: GatedQueue, states: int, grid: int) -> ObservedRelaxation:
    """:func:`observed_relaxation` after validation (cached: the ladder asks again)."""
    arrival, mu = queue.float_rates()[:2]
    ga = ga_optimum(queue)
    dense = 4 * ga.gate + 6 / mu
    middle = dense + 2 * states / mu
    near = np.concatenate(
        [np.linspace(0.0, dense, 3 * grid // 4), np.linspace(dense, middle, grid // 4 + 1)[1:]]
    )
    # at Λ = ∞ the gate 0 takes no time; the grid policy avoids it, the certificate not
    problem = _CappedProblem(queue, states, near[1:] if math.isinf(arrival) else near)
    start = np.full(states, int(np.argmin(np.abs(problem.grid - ga.gate))))
    gain, bias, policy, transition = problem.solve(start)
    v = problem.continuation(bias)
    best_phi = max(float(v[: k + 1].max() - bias[k - 1]) for k in range(1, states + 1))
    far = np.geomspace(middle, max(2 * middle, 1.01 * best_phi / gain), 65)[1:]
    head = ((near[:1], None),) if math.isinf(arrival) else ()  # τ = 0, left out above
    certificate = _CappedProblem.joined(
        queue, states, *head, (problem.grid, problem.counts), (far, None)
    )
    upper = certificate.certified_gain(bias, gain)
    return ObservedRelaxation(
        upper=float(upper),
        gain=gain,
        gates=tuple(float(problem.grid[t]) for t in policy),
        states=states,
        top_mass=_top_mass(transition),
    )
