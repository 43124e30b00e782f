r"""Single-use resources: the online and offline optima of the two-class dynamic
stochastic knapsack, the fluid LP, and the fixed-count variant.

The model (:class:`~qtheory.model.single_use.SingleUseNetwork`): N units, horizon T,
H and L arrive Poisson(Λ_H = λ_H N) and Poisson(Λ_L = λ_L N) on [0, T], rewards
r_H > r_L > 0, and an accepted job keeps its unit for ever.

**Online optimum.**  With s the time to go and c the units left, the value V_c(s) solves
the finite-horizon HJB equation

.. math:: \frac{dV_c}{ds} = \Lambda_H (r_H - \Delta_c) + \Lambda_L (r_L - \Delta_c)^+,
          \qquad \Delta_c = V_c - V_{c-1},\quad V_0 \equiv 0,\quad V_c(0) = 0,

and the optimal policy accepts every H while a unit is left and an L iff
r_L ≥ Δ_c(s).  Δ_c(s) is nondecreasing in s and nonincreasing in c (Lee and Hersh
1993; Liang 1999), so units c ≤ k(s) reject L and units c > k(s) accept it, and k(s)
grows by one at each *switching time* s_c* (Δ_c(s_c*) = r_L): with c units left, L is
accepted iff s ≤ s_c* (``switch_times``; ∞ when Δ_c stays below r_L up to T).

The system is lower-triangular and, between switching times, linear: with
G_c = r_H min(c, k) + ρ̄ (c − k)^+, ρ̄ = (Λ_H r_H + Λ_L r_L)/Λ, Λ = Λ_H + Λ_L, the
difference U = V − G solves dU_c/ds = a_c (U_{c−1} − U_c), the backward equation of a
pure-death chain with rate a_c = Λ above k and Λ_H at or below it.  So
U(s + h) = e^{−Ah} U(s) exactly, and :func:`single_use_optimum` computes it by
uniformisation at rate Λ: nonnegative Poisson weights, truncated where the neglected
mass is below 10⁻²⁰, a Poisson convolution for the paths that stay above k and the
binomial law of the deaths below k for those that reach it.  Each switching time is
found by safeguarded Newton on Δ_{k+1}(s + h) = r_L, whose value and derivative come
from the same exact solution.  That is the exact piecewise solution of the HJB, not a
time-stepping scheme; its errors are the truncated Poisson mass, rounding, and the tie
tolerance τ = 4 ε r_H (1 + ΛT) (ε the float64 epsilon): a unit whose Δ_c is within τ of
r_L is switched, and accepting or rejecting there changes the HJB by at most Λ_L τ.
The HJB's right-hand side is nonexpansive in the sup norm (a Bellman operator), so a
perturbation e(s) moves V_N(T) by at most ∫‖e‖_∞ ds; ``error_bound`` adds the
truncated mass times max|U|, a worst-case rounding bound (γ_n for each sum of n terms)
and Λ_L times the largest misclassification |Δ_c − r_L| seen in each interval, times
its length.  At large N, Δ_c(s) − r_L is exponentially small in N over a wide range of
(c, s) (there the chance that an H needs the unit balances the chance that nobody
does), so from N ≈ 10³ on most switching times are decided to τ only: float64 cannot
tell accepting from rejecting there, and the value does not depend on it beyond
``error_bound``.

**Offline optimum.**  Knowing the arrival counts H ~ Poisson(λ_H N T) and
L ~ Poisson(λ_L N T), the best choice takes min(H, N) H jobs and fills with L, so
R_off = E[r_H min(H, N) + r_L min(L, N − min(H, N))]
= (r_H − r_L) E[min(H, N)] + r_L E[min(H + L, N)], H + L ~ Poisson((λ_H + λ_L) N T),
with E[min(X, N)] = min(m, N) − D(m), D(m) = E[(X − N)^+] = m P(X ≥ N) − N P(X > N)
for m = E X ≤ N and D(m) = E[(N − X)^+] = N P(X ≤ N) − m P(X ≤ N − 1) otherwise: each a
difference of two nonnegative terms from the regularised incomplete gamma function
(:func:`scipy.special.pdtr`), so its absolute error is rounding at any N.

**Fluid LP.**  max r_H x_H + r_L x_L s.t. x_H ≤ λ_H N T, x_L ≤ λ_L N T,
x_H + x_L ≤ N: x_H = min(λ_H N T, N), x_L = min(λ_L N T, N − x_H), the value
(r_H − r_L) min(λ_H N T, N) + r_L min((λ_H + λ_L) N T, N); by Jensen
R_fluid ≥ R_off ≥ R_on, and R_fluid − R_off = (r_H − r_L) D(λ_H N T) + r_L D(Λ T).

**Fixed count** (:func:`fixed_count_optimum`).  n arrivals, each H with probability p
independently, C units.  The online optimum is the DP
W(c, m) = p max(r_H + W(c−1, m−1), W(c, m−1)) + (1−p) max(r_L + W(c−1, m−1), W(c, m−1)),
and the offline optimum (r_H − r_L) E[min(K, C)] + r_L min(n, C), K ~ Bin(n, p).
*With two types the gap is exactly 0*: accept every H while a unit is left, and an L
only once the units left c are at least the arrivals left m (this one included).  Each
arrival lowers m by one and c by at most one, so c − m never decreases.  If c < m at
every decision, no L is accepted and at the last arrival c < 1: the units all went to
H, min(K, C) = C of them, which is what the offline optimum takes.  Otherwise, from the
first decision with c ≥ m on everything is accepted; before it a unit was always left
(c = 0 would keep c < m for ever), so every H was accepted (K ≤ C).  As c − m rises by
one only at a refusal, it is exactly 0 at that decision unless it is the first one
(C ≥ n: everything fits), so the units run out exactly: min(n − K, C − K) L jobs, again
the offline choice.  The policy is online and pathwise
offline-optimal, so online = offline; :func:`fixed_count_optimum` computes both (exactly
in rationals when p, r_H and r_L are) and the tests check the identity.  With Poisson
arrivals the count is unknown online, and the gap is positive; the literature bounds
it by a constant in N (Arlotto and Gurvich 2019; Vera and Banerjee 2021), which
:mod:`qtheory.report.single_use` measures on a finite range of N.

References
----------
.. [1] A. J. Kleywegt and J. D. Papastavrou, "The dynamic and stochastic knapsack
   problem", Operations Research 46(1):17-35 (1998).
.. [2] T. C. Lee and M. Hersh, "A model for dynamic airline seat inventory control with
   multiple seat bookings", Transportation Science 27(3):252-265 (1993).
.. [3] Y. Liang, "Solution to the continuous time dynamic yield management model",
   Transportation Science 33(1):117-123 (1999).
.. [4] A. Arlotto and I. Gurvich, "Uniformly bounded regret in the multisecretary
   problem", Stochastic Systems 9(3):231-260 (2019).
.. [5] A. Vera and S. Banerjee, "The Bayesian prophet: a low-regret framework for online
   decision making", Management Science 67(3):1368-1391 (2021).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy.special import gammaln, pdtr, pdtrc
from tqdm import tqdm

from qtheory.core import limits, validation
from qtheory.model.single_use import SingleUseNetwork

__all__ = [
    "FixedCountOptimum",
    "SingleUseResult",
    "fixed_count_optimum",
    "single_use_fluid",
    "single_use_offline",
    "single_use_optimum",
]

#: Neglected Poisson mass per uniformised step.
TAIL = 1e-20
#: A stretch of time to go with no switching time is advanced in pieces of Λh <= CHUNK.
CHUNK = 64.0
#: Units whose Δ is within TIE_ULPS * eps * (scale of V) of r_L are ties.
TIE_ULPS = 4
#: A unit above the reserve whose Δ exceeds r_L by this much (relative to the scale of V)
#: means the switching structure failed: an error, not a tie.
STRUCTURE = 1e-8
#: Operations per interval, a generous count for the cost estimate (cells).
CELLS_PER_UNIT = 30
EPS = float(np.finfo(float).eps)
#: The progress bar: the share of the horizon done (time to go s from 0 to T).
BAR = "{desc}: {percentage:3.0f}%|{bar}| {elapsed}<{remaining}"


@dataclass(frozen=True)
class SingleUseResult:
    """Online and offline optima and fluid bound of a single-use network
    (:func:`single_use_optimum`).

    Attributes
    ----------
    online : float
        R_on = V_N(T), the exact online optimum (the HJB's piecewise solution).
    offline : float
        R_off, the expected reward of the offline optimum (knows every arrival).
    fluid : float
        R_fluid, the fluid LP's value.
    offline_online_gap : float
        R_off − R_on (>= 0 up to ``error_bound``).
    fluid_offline_gap : float
        R_fluid − R_off (>= 0), computed without cancellation.
    error_bound : float
        A bound on |R_on − V_N(T)| from truncation, rounding and ties (module
        docstring); it also bounds the error of ``offline_online_gap`` up to the
        rounding of R_off.
    switch_times : numpy.ndarray
        s_c* for c = 1..N (entry c − 1): with c units left, L is accepted iff the time to
        go is <= s_c*; ``inf`` when it is accepted over the whole horizon.
    tie_tolerance : float
        τ: a unit whose Δ_c is within τ of r_L counts as switched (module docstring).
    intervals : int
        The number of exact pieces (intervals between switching times, or chunks).

    Examples
    --------
    >>> net = SingleUseNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> result = single_use_optimum(net)
    >>> result.offline >= result.online, result.switch_times.shape
    (True, (10,))
    """

    online: float
    offline: float
    fluid: float
    offline_online_gap: float
    fluid_offline_gap: float
    error_bound: float
    switch_times: np.ndarray
    tie_tolerance: float
    intervals: int


@dataclass(frozen=True)
class FixedCountOptimum:
    """Online and offline optima of the fixed-count knapsack (:func:`fixed_count_optimum`).

    Attributes
    ----------
    online : float or fractions.Fraction
        W(C, n), the optimal online expected reward (the DP).
    offline : float or fractions.Fraction
        (r_H − r_L) E[min(K, C)] + r_L min(n, C), K ~ Bin(n, p).
    gap : float or fractions.Fraction
        offline − online: exactly 0 in rationals (module docstring), rounding in floats.

    Examples
    --------
    >>> from fractions import Fraction
    >>> fixed_count_optimum(2, 3, Fraction(1, 2), 2, 1).gap
    Fraction(0, 1)
    """

    online: float | Fraction
    offline: float | Fraction
    gap: float | Fraction


def _as_single_use(net: object) -> SingleUseNetwork:
    return validation.instance("net", net, SingleUseNetwork)


def _mean_shortfall(mean: float, n: int) -> float:
    """D(m) = min(m, N) − E[min(X, N)] for X ~ Poisson(m): E[(X − N)^+] if m <= N,
    else E[(N − X)^+], each as two nonnegative terms (module docstring)."""
    if mean <= n:
        return max(0.0, mean * float(pdtrc(n - 1, mean)) - n * float(pdtrc(n, mean)))
    below = float(pdtr(n - 1, mean)) if n >= 1 else 0.0
    return max(0.0, n * float(pdtr(n, mean)) - mean * below)


def single_use_fluid(net: SingleUseNetwork) -> float:
    """The fluid LP's value: max r_H x_H + r_L x_L s.t. x_H <= λ_H N T, x_L <= λ_L N T,
    x_H + x_L <= N (closed form, module docstring).

    Parameters
    ----------
    net : SingleUseNetwork
        The network.

    Returns
    -------
    float
        (r_H − r_L) min(λ_H N T, N) + r_L min((λ_H + λ_L) N T, N).

    Raises
    ------
    TypeError
        If ``net`` is not a :class:`~qtheory.model.single_use.SingleUseNetwork`.

    Examples
    --------
    >>> single_use_fluid(SingleUseNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0))  # 60 H, 40 L
    160.0
    """
    net = _as_single_use(net)
    n = net.servers
    return (net.r_h - net.r_l) * min(net.mean_h, n) + net.r_l * min(net.mean_h + net.mean_l, n)


def single_use_offline(net: SingleUseNetwork) -> tuple[float, float]:
    """The offline optimum E[r_H min(H, N) + r_L min(L, N − min(H, N))], exactly.

    Parameters
    ----------
    net : SingleUseNetwork
        The network.

    Returns
    -------
    offline : float
        (r_H − r_L) E[min(H, N)] + r_L E[min(H + L, N)] (module docstring).
    fluid_offline_gap : float
        R_fluid − R_off = (r_H − r_L) D(λ_H N T) + r_L D((λ_H + λ_L) N T), each D a
        difference of two nonnegative terms, so small gaps keep their accuracy.

    Raises
    ------
    TypeError
        If ``net`` is not a :class:`~qtheory.model.single_use.SingleUseNetwork`.

    Examples
    --------
    >>> net = SingleUseNetwork(1, 1.0, 1.0, 1.0, 2.0, 1.0)  # one unit: r_H P(H>0) + r_L P(H=0, L>0)
    >>> offline, gap = single_use_offline(net)
    >>> import math
    >>> math.isclose(offline, 2 * (1 - math.exp(-1)) + math.exp(-1) * (1 - math.exp(-1)))
    True
    """
    net = _as_single_use(net)
    n = net.servers
    gap = (net.r_h - net.r_l) * _mean_shortfall(net.mean_h, n) + net.r_l * _mean_shortfall(
        net.mean_h + net.mean_l, n
    )
    return single_use_fluid(net) - gap, gap


def _weights(x: float) -> tuple[np.ndarray, float]:
    """Poisson(x) pmf at 0..n, n the first index past x whose tail bound
    w_n r/(1 − r), r = x/(n + 1), is below TAIL; and that bound."""
    if x == 0.0:
        return np.ones(1), 0.0
    size = int(x + 12.0 * math.sqrt(x) + 30.0)
    ratios = np.empty(size)
    ratios[0] = math.exp(-x)
    ratios[1:] = x / np.arange(1, size)
    w = np.cumprod(ratios)
    first = int(x) + 1
    r = x / np.arange(first + 1, size + 1)
    tails = w[first:] * r / (1.0 - r)
    cut = int(np.argmax(tails <= TAIL))
    if not tails[cut] <= TAIL:  # never at these sizes; a guard against a changed formula
        raise ArithmeticError(f"Poisson({x}) truncation left mass {tails[-1]}")
    return w[: first + cut + 1], float(tails[cut])


class _Hjb:
    """The piecewise-exact solution of the HJB (module docstring), one interval at a time.

    Uniformised at rate Λ, a unit c <= k loses a unit at each event with probability
    q = Λ_H/Λ and a unit c > k at every event.  After n events from unit k the chain is
    at k − i with probability Bin(n, q)(i), so z_n = Σ_i Bin(n, q)(i) U_{k−i} (the
    matrix ``binomial``) gives, for unit k + d, d >= 1,
    U_{k+d}(s + h) = Σ_{n<d} w_n U_{k+d−n} + Σ_{n>=d} w_n z_{n−d},  w = Poisson(Λh),
    and for c <= k, U_c(s + h) = Σ_i Poisson(Λ_H h)(i) U_{c−i} (U_0 = 0 absorbs).
    """

    def __init__(self, net: SingleUseNetwork) -> None:
        self.n = net.servers
        self.lam_h, self.lam_l = net.arrival_rate_h, net.arrival_rate_l
        self.lam = self.lam_h + self.lam_l
        q = self.lam_h / self.lam
        self.r_h, self.r_l = net.r_h, net.r_l
        self.rbar = (self.lam_h * net.r_h + self.lam_l * net.r_l) / self.lam
        self.units = np.arange(self.n + 1, dtype=float)
        self.scale = net.r_h * (1.0 + self.lam * net.horizon)
        self.tie = TIE_ULPS * EPS * self.scale
        size = _weights(CHUNK + 1.0)[0].size  # Λh <= CHUNK up to rounding
        self.binomial = np.zeros((size, size))  # Bin(n, q)(i), rows n
        self.binomial[0, 0] = 1.0
        for row in range(1, size):
            self.binomial[row, 1:] = q * self.binomial[row - 1, :-1]
            self.binomial[row] += (1 - q) * self.binomial[row - 1]

    def potential(self, k: int, units: np.ndarray) -> np.ndarray:
        """G_c = r_H min(c, k) + ρ̄ (c − k)^+."""
        return self.r_h * np.minimum(units, k) + self.rbar * np.maximum(units - k, 0.0)

    def reserve_series(self, u: np.ndarray, top: int, count: int) -> np.ndarray:
        """z_0..z_{count−1} from unit ``top`` down (``u`` indexed by unit, u[0] = 0)."""
        below = u[top::-1][:count] if top >= 0 else np.zeros(0)
        return self.binomial[:count, : below.size] @ below

    def advance(self, v: np.ndarray, k: int, h: float) -> tuple[np.ndarray, float]:
        """V(s + h) from V(s) with units 1..k rejecting L; and this step's error bound."""
        g = self.potential(k, self.units)
        u = v - g
        w, tail = _weights(self.lam * h)
        w_h, tail_h = _weights(self.lam_h * h)
        out = np.empty_like(u)
        out[: k + 1] = np.convolve(u[: k + 1], w_h)[: k + 1]  # u[0] = 0: absorbed at 0
        if k < self.n:
            out[k + 1 :] = np.convolve(u[k + 1 :], w)[: self.n - k]  # paths that stay above k
            z = self.reserve_series(u, k, w.size)
            # paths that reach k: Σ_{n>=d} w_n z_{n−d} for d = 1..len(w) − 1
            reach = np.convolve(w[::-1], z)[w.size - 2 :: -1] if w.size > 1 else np.zeros(0)
            span = min(reach.size, self.n - k)
            out[k + 1 : k + 1 + span] += reach[:span]
        size = np.abs(u).max()
        rounding = (2 * w.size + w_h.size + 8) * EPS * (size + np.abs(g).max())
        return out + g, (tail + tail_h) * size + rounding

    def local(self, v: np.ndarray, k: int, h: float) -> tuple[float, float]:
        """f(h) = Δ_{k+1}(s + h) − r_L and f'(h), from the units at and below k + 1."""
        if h == 0.0:
            top, mid, low = v[k + 1], v[k], v[k - 1] if k >= 1 else 0.0
        else:
            w = _weights(self.lam * h)[0]
            start = max(0, k + 1 - w.size)
            units = self.units[start : k + 2]
            u = np.zeros(k + 2)
            u[start:] = v[start : k + 2] - self.potential(k, units)
            z = self.reserve_series(u, k, w.size)
            g = self.potential(k, np.array([k + 1.0, k, max(k - 1.0, 0.0)]))
            top = g[0] + w[0] * u[k + 1] + w[1:] @ z[:-1]
            mid = g[1] + w @ z
            low = g[2] + w @ self.reserve_series(u, k - 1, w.size) if k >= 1 else 0.0
        slope = self.lam * (self.rbar + mid - top)
        if k >= 1:
            slope -= self.lam_h * (self.r_h + low - mid)
        return top - mid - self.r_l, slope

    def next_switch(self, v: np.ndarray, k: int, h_max: float) -> float | None:
        """The time h in (0, h_max] at which Δ_{k+1} reaches r_L (to the tie tolerance),
        or None if it stays below: safeguarded Newton on an increasing f."""
        f, slope = self.local(v, k, 0.0)
        lo, hi = 0.0, None
        h = min(-f / slope, h_max) if slope > 0 else h_max
        for _ in range(200):
            f, slope = self.local(v, k, h)
            if abs(f) <= self.tie:
                return h
            if f < 0:
                if h >= h_max:
                    return None
                lo = h
            else:
                hi = h
            step = h - f / slope if slope > 0 else math.inf
            if hi is None:  # no bracket yet: forward, at most to h_max
                h = min(step, h_max) if step > lo else h_max
            else:
                h = step if lo < step < hi else 0.5 * (lo + hi)
            if hi is not None and hi - lo <= 4 * EPS * hi:
                return hi
        raise ArithmeticError(f"no switching time found for unit {k + 1} within 200 steps")


def _solve_hjb(
    net: SingleUseNetwork, progress: bool
) -> tuple[float, float, np.ndarray, float, int]:
    """V_N(T), its error bound, the switching times, the tie tolerance, the pieces."""
    hjb = _Hjb(net)
    n, horizon = net.servers, net.horizon
    limits.require(
        "dp_cells",
        float(n) * (n + hjb.lam * horizon / CHUNK + 1) * CELLS_PER_UNIT,
        parameter="servers",
        what="the single-use HJB's exact pieces",
    )
    v = np.zeros(n + 1)
    switch = np.full(n, np.inf)
    s, k, pieces, bound = 0.0, 0, 0, 0.0
    deltas = np.diff(v)
    with tqdm(total=1.0, desc="single-use HJB", bar_format=BAR, disable=not progress) as bar:
        while s < horizon:
            while k < n and deltas[k] >= net.r_l - hjb.tie:  # ties switch now
                switch[k] = s
                k += 1
            short = max(0.0, net.r_l - deltas[:k].min()) if k else 0.0
            h_max = min(horizon - s, CHUNK / hjb.lam)
            root = hjb.next_switch(v, k, h_max) if k < n else None
            h = h_max if root is None else root
            v, step_error = hjb.advance(v, k, h)
            deltas = np.diff(v)
            over = max(0.0, deltas[k:].max() - net.r_l) if k < n else 0.0
            if over > STRUCTURE * hjb.scale:
                raise ArithmeticError(
                    f"a unit above {k + 1} crossed r_L first (Δ − r_L = {over:.3g}): the "
                    "switching structure failed"
                )
            bound += step_error + hjb.lam_l * h * (short + over)
            s = horizon if root is None and h == horizon - s else s + h
            if root is not None:
                switch[k] = s
                k += 1
            pieces += 1
            bar.update(h / horizon)
    return float(v[n]), bound, switch, hjb.tie, pieces


def single_use_optimum(net: SingleUseNetwork, *, progress: bool = False) -> SingleUseResult:
    """The exact online and offline optima and the fluid bound of a single-use network,
    with the online optimum's switching times and error bound (module docstring).

    Parameters
    ----------
    net : SingleUseNetwork
        The network.
    progress : bool, keyword-only
        Show a tqdm progress bar over the horizon (default False); N = 10⁴ takes
        seconds.

    Returns
    -------
    SingleUseResult

    Raises
    ------
    TypeError
        If ``net`` is not a :class:`~qtheory.model.single_use.SingleUseNetwork`.
    ValueError
        If the HJB's cost (about 30 N (N + ΛT/64) operations) exceeds the ``dp_cells``
        limit (:mod:`qtheory.core.limits`), naming ``servers``.
    ArithmeticError
        If the switching structure fails (a unit above the reserve crosses r_L first), or
        Newton finds no switching time.

    References
    ----------
    See the module's References:

    - Liang (1999);
    - Kleywegt and Papastavrou (1998).

    Examples
    --------
    >>> net = SingleUseNetwork(servers=100, lambda_h=0.6, lambda_l=0.8, horizon=1.0,
    ...                        r_h=2.0, r_l=1.0)
    >>> result = single_use_optimum(net)
    >>> round(result.online, 6), round(result.offline_online_gap, 4), result.fluid
    (158.881979, 1.1175, 160.0)
    >>> bool(result.error_bound < 1e-8), int(np.isfinite(result.switch_times).sum())
    (True, 94)
    """
    net = _as_single_use(net)
    online, error, switch, tie, pieces = _solve_hjb(net, bool(progress))
    offline, fluid_gap = single_use_offline(net)
    return SingleUseResult(
        online=online,
        offline=offline,
        fluid=single_use_fluid(net),
        offline_online_gap=offline - online,
        fluid_offline_gap=fluid_gap,
        error_bound=error,
        switch_times=switch,
        tie_tolerance=tie,
        intervals=pieces,
    )


def _exact_or_float(name: str, value: object) -> float | Fraction:
    if isinstance(value, int | Fraction) and not isinstance(value, bool):
        return Fraction(value)
    return validation.real(name, value)


def fixed_count_optimum(capacity: int, arrivals: int, p_high, r_h, r_l) -> FixedCountOptimum:
    """Online (DP) and offline optima of the fixed-count two-type knapsack.

    Parameters
    ----------
    capacity : int
        C >= 1 units.
    arrivals : int
        n >= 0 arrivals, each H with probability ``p_high`` independently.
    p_high : float or fractions.Fraction
        p in [0, 1].
    r_h, r_l : float or fractions.Fraction
        Rewards, r_H > r_L > 0.

    Returns
    -------
    FixedCountOptimum
        Exact rationals when ``p_high``, ``r_h`` and ``r_l`` are ints or Fractions;
        float64 otherwise.

    Raises
    ------
    ValueError
        Naming the parameter: C < 1, n < 0, p outside [0, 1], r_H <= r_L or r_L <= 0,
        or C n above the ``dp_cells`` limit.

    References
    ----------
    See the module's References: Arlotto and Gurvich (2019).

    Examples
    --------
    >>> from fractions import Fraction
    >>> opt = fixed_count_optimum(3, 5, Fraction(2, 5), 2, 1)
    >>> opt.online == opt.offline, opt.online
    (True, Fraction(15321, 3125))
    >>> abs(fixed_count_optimum(3, 5, 0.4, 2.0, 1.0).gap) < 1e-12  # float64: rounding only
    True
    """
    c_max = validation.positive_int("capacity", capacity)
    n = validation.nonnegative_int("arrivals", arrivals)
    p, high, low = (
        _exact_or_float(k, x) for k, x in (("p_high", p_high), ("r_h", r_h), ("r_l", r_l))
    )
    exact = all(isinstance(x, Fraction) for x in (p, high, low))
    if not exact:
        p, high, low = float(p), float(high), float(low)
    if not 0 <= p <= 1:
        raise ValueError(f"p_high must be in [0, 1], got {p_high!r}")
    if not low > 0:
        raise ValueError(f"r_l must be > 0, got {r_l!r}")
    if not high > low:
        raise ValueError(f"r_h must be > r_l, got r_h={r_h!r}, r_l={r_l!r}")
    limits.require("dp_cells", c_max * max(n, 1), parameter="arrivals", what="the fixed-count DP")
    zero = Fraction(0) if exact else 0.0
    w = [zero] * (c_max + 1)  # W(c, m) for the current m, c = 0..C
    for _ in range(n):
        w = [zero] + [
            p * max(high + w[c - 1], w[c]) + (1 - p) * max(low + w[c - 1], w[c])
            for c in range(1, c_max + 1)
        ]
    if exact:
        pmf = [math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(n + 1)]
        mean_min = sum((pj * min(j, c_max) for j, pj in enumerate(pmf)), Fraction(0))
    else:
        j = np.arange(n + 1)
        log_pmf = gammaln(n + 1) - gammaln(j + 1) - gammaln(n - j + 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            log_pmf = (
                log_pmf
                + np.where(j > 0, j * np.log(p), 0.0)
                + np.where(n - j > 0, (n - j) * np.log1p(-p), 0.0)
            )
        mean_min = math.fsum(np.exp(log_pmf) * np.minimum(j, c_max))
    offline = (high - low) * mean_min + low * min(n, c_max)
    return FixedCountOptimum(online=w[c_max], offline=offline, gap=offline - w[c_max])
