r"""The n-class online optimum: nested trunk reservation, found by policy iteration.

With a common service rate :math:`\mu` the number of busy servers :math:`b` is a
sufficient state (Miller 1969): an admission policy is a set :math:`S_b` of admitted
classes per state, and :math:`b` is a birth–death chain with birth rate
:math:`N\sum_{j\in S_b}\lambda_j` and death rate :math:`b\mu`.  In the average-reward
optimality equation

.. math:: g = \max_{S}\ \sum_{j\in S}\lambda_j N\,(r_j - \Delta_b) + b\mu\,\Delta_{b-1},
          \qquad \Delta_b = h(b) - h(b+1),

the greedy action admits :math:`\{j : r_j > \Delta_b\}`, a prefix of the classes
(:math:`r_1 > \dots > r_n`), so every improved policy is *nested within a state*.
Policy iteration over these prefix policies (class 1 always admitted, as in
:math:`k_1 = 0`) converges in a handful of iterations to the optimal policy; the
optimum found is *monotone* in every network tested (the admitted prefix shrinks as
:math:`b` grows, :math:`\Delta_b` increasing, as Lippman's concavity argument
predicts), so it is nested trunk reservation

.. math:: \text{admit class } j \iff \text{more than } k_j \text{ servers are idle},
          \qquad 0 = k_1 \le k_2 \le \dots \le k_n \le N

(:math:`k_j = N`: never admitted).  A non-monotone result would raise
``ArithmeticError`` instead of being reported as thresholds.  The full MDP of
:mod:`qtheory.lossnet.mdp` (any subset of classes in any multi-class state) confirms
the optimum for small N.

Regret identity
---------------
Let :math:`m` be the marginal class (:mod:`qtheory.model.lossnet`),
:math:`B_j` the probability that class j is rejected (PASTA: the fraction of its
arrivals lost) and :math:`A_j = \lambda_j N(1-B_j)` its admitted rate.  Every admitted
job leaves at rate :math:`\mu`, so :math:`\sum_j A_j = \mu(N - E[\text{idle}])`; writing
:math:`R = \sum_j r_j A_j` and
:math:`R_{fluid} = N[\sum_{j<m} r_j\lambda_j + r_m(\mu - \Lambda_{m-1})]` and adding
:math:`r_m(\mu N - \mu E[\text{idle}] - \sum_j A_j) = 0`,

.. math:: R_{fluid} - R = r_m\mu\,E[\text{idle}]
          + N\sum_{j<m}(r_j - r_m)\lambda_j B_j + N\sum_{j>m}(r_m - r_j)\lambda_j(1 - B_j),

three non-negative terms: idle capacity priced at the marginal reward, better classes
lost, worse classes admitted.  For n = 2 it is the identity of
:mod:`qtheory.lossnet.online`.  It holds for every non-anticipating policy with a
stationary regime; the claim ``lossnet.class_regret_identity``
(:mod:`qtheory.lossnet.claims`) proves it in Sympy.  The regret is computed this way
(no cancellation between two O(N) rewards): per state the *regret rate*

.. math:: c_b = r_m\mu(N-b) + N\sum_{j<m,\,j\notin S_b}(r_j-r_m)\lambda_j
          + N\sum_{j>m,\,j\in S_b}(r_m-r_j)\lambda_j

differs from :math:`R_{fluid}` minus the reward rate by :math:`r_m(\mu b - \text{birth
rate})`, the generator applied to :math:`-r_m b`, so it has the same optimal policies
and the bias differences shift by :math:`r_m`: :math:`D_b = \Delta_b - r_m` and class j is
admitted iff :math:`r_j - r_m > D_b`.  With the stationary law :math:`\pi` and
:math:`G = E_\pi[c]` (the regret), flux balance gives

.. math:: \beta_b\pi_b D_b = \sum_{k>b}\pi_k(c_k - G) = -\sum_{k\le b}\pi_k(c_k - G),

evaluated in log space (weights relative to the full state, as in
:mod:`qtheory.lossnet.online`), each state by the side with less cancellation.  Cost
O(nN) per iteration; N = 10^6 with n = 4 takes 5 iterations, 2.4 s of CPU (6.4 s wall
on a shared 2-core machine; ``benchmarks/bench_lossnet_classes.py``).

The states that matter
----------------------
:func:`local_optimum` runs the same iteration, on reserve vectors, at a cost that does
not grow with N (2.2 ms at :math:`N = 10^6` and at :math:`10^7` for the network
(0.3, 0.9, 0.6), rewards (3, 2, 1), μ = 1, against 0.80 s and 9.3 s on the whole chain;
``benchmarks/bench_online.py``).  Let :math:`k_m` be the marginal class's reserve and
:math:`\bar\lambda_m = \lambda_1 + \dots + \lambda_m > \mu`.  Below the marginal
threshold (:math:`b < N - k_m`) the classes :math:`1..m` are admitted, so every weight
ratio :math:`\pi_{b-1}/\pi_b = b\mu/\beta_{b-1}` is at most
:math:`q = \mu/\bar\lambda_m < 1`.

*Evaluation.*  The states :math:`b \ge N - k_m - T` are evaluated with the arithmetic
above restricted to them (the log weights relative to the full state are the same
numbers), :math:`T` the least with
:math:`q^{T-1}(\max(q/(1-q),\ Lq/(1-q) + q/(1-q)^2) + NCq/((1-q)r_m\mu)) < 2^{-60}`,
:math:`L = k_m + T`, :math:`C = \sum_j |r_j - r_m|\lambda_j` (the left-out sums of
weights, of idle counts and of costs relative to the kept ones): the regret, E[idle], the
blocking probabilities and :math:`D_b` for :math:`b \ge N - k_m` agree with the whole
chain's to an ulp or so.  :math:`T` depends on :math:`q` and on :math:`\log N`, not on N.

*Bias far from the full state.*  The classes below the marginal one have reserves of
order N (e.g. (0, 9, 200027) at :math:`N = 10^6`): their thresholds are where
:math:`D_b` crosses :math:`r_j - r_m < 0`, far from the full state, where the regret
changes by :math:`e^{-\Theta(N)}` with the reserve.  There the other side of flux
balance is local: for :math:`b < N - k_m`

.. math:: \beta_b D_b = -\sum_{k \le b} \frac{\pi_k}{\pi_b}(c_k - G),
          \qquad \frac{\pi_k}{\pi_b} = \prod_{i=k}^{b-1}\frac{(i+1)\mu}{\beta_i}
          \le q_b^{\,b-k},\quad q_b = \min(q,\ b\mu/(\bar\lambda_m N)),

(with fixed admitted classes, :math:`a = \beta`, :math:`\rho` the admitted reward rate
and g the gain, this is the closed form
:math:`d_b = -\frac{\rho-g}{a}\sum_{j\le b}(b)_j(\mu/a)^j` of
:mod:`qtheory.lossnet.certified`, :math:`d_b = -r_m - D_b`), and with
:math:`|c_k - G| \le N(r_m\mu + C) + G` the terms :math:`k < b - L` add less than
:math:`2^{-60}\beta_b r_1` once :math:`q_b^L(N(r_m\mu + C) + G)q_b/(1-q_b)` is below it:
:math:`D_b` at any b in O(nL) operations, L about :math:`42/\log(1/q)`.

*Improvement.*  :math:`D_b` increases with b (the concavity of the bias, Lippman), so
class j's new threshold :math:`N - k_j` is the least b with :math:`D_b \ge r_j - r_m`
(not admitted on equality, as the prefix argmax of policy iteration), found by a search
out from the current threshold and bisection: O(T log N) per class.  The reserves
settle after as many iterations as policy iteration's, and then the decisions are
checked: on both sides of every threshold
:math:`\lambda_j|r_j - r_m - D_b| > \Lambda(r_1 + |D_b|)(10^{-10} + 16\epsilon|\log(w_b/w_N)|)`
(:data:`DECISION_RTOL`; the second term covers policy iteration's own error, whose
weights are relative to the full state: measured about
:math:`\epsilon|\log(w_b/w_N)|`, 1e-10 relative at :math:`N = 10^7`), and the biases
evaluated increase with b.  Where a decision fails that test, float64 does not decide it
as policy iteration does, and policy iteration decides for that network (within the
memory limit).

References
----------
.. [1] B. L. Miller, "A queueing reward system with several customer classes",
   Management Science 16(3):234-245 (1969).
.. [2] S. A. Lippman, "Applying a new device in the optimization of exponential
   queuing systems", Operations Research 23(4):687-710 (1975).
.. [3] X. Xie, I. Gurvich and S. Küçükyavuz, "Dynamic allocation of reusable
   resources: logarithmic regret in overloaded networks", Operations Research 73(4)
   (2025).
.. [4] M. L. Puterman, Markov Decision Processes (Wiley 1994), Section 8.6.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from qtheory.core import limits, validation
from qtheory.exact.birth_death import TAIL_EPS, geometric_tail_states
from qtheory.lossnet.fluid import fluid_bound
from qtheory.model.lossnet import LossNetwork, as_network

__all__ = [
    "BYTES_PER_SERVER",
    "DECISION_RTOL",
    "NestedPolicy",
    "OnlineOptimum",
    "evaluate_nested",
    "initial_reserves",
    "local_optimum",
    "policy_iteration",
]

#: Peak memory per server and class, in bytes (about a dozen float64 arrays of N + 1
#: entries and one of N x n).
BYTES_PER_SERVER = 160

#: Relative margin below which policy iteration keeps the current action (ties that
#: float64 cannot resolve do not make it cycle).
TIE_RTOL = 1e-12


@dataclass(frozen=True)
class NestedPolicy:
    """A nested trunk-reservation policy and its stationary performance.

    Attributes
    ----------
    reserves : tuple of int
        k_1 = 0 <= k_2 <= … <= k_n <= N: class j is admitted iff more than k_j servers
        are idle (k_j = N: never).
    fluid : float
        R_fluid.
    online : float
        R = R_fluid − regret, the long-run reward rate.
    regret : float
        R_fluid − R, by the regret identity (module docstring).
    mean_idle : float
        E[idle servers].
    blocking : tuple of float
        B_j = P(class j rejected) = P(idle <= k_j).

    Examples
    --------
    >>> pol = evaluate_nested(LossNetwork(20, (0.3, 0.5, 0.6), (3, 2, 1), 1.0), (0, 1, 20))
    >>> pol.reserves, round(pol.blocking[0], 6) > 0
    ((0, 1, 20), True)
    """

    reserves: tuple[int, ...]
    fluid: float
    online: float
    regret: float
    mean_idle: float
    blocking: tuple[float, ...]

    @property
    def prob_full(self) -> float:
        """P(all servers busy) = B_1, class 1's blocking probability.

        >>> net = LossNetwork(20, (0.3, 0.5, 0.6), (3, 2, 1), 1.0)
        >>> evaluate_nested(net, (0, 1, 20)).prob_full > 0
        True
        """
        return self.blocking[0]


@dataclass(frozen=True)
class OnlineOptimum(NestedPolicy):
    """The optimal online (non-anticipating) policy: nested trunk reservation with the
    best reserves (:func:`qtheory.lossnet.online.online_optimum`).

    Attributes
    ----------
    iterations : int
        Policy evaluations of :func:`policy_iteration` (or :func:`local_optimum`) until
        the policy stopped changing (0 when the two-class table of every reserve found
        it).
    (the attributes of :class:`NestedPolicy`; with ``dps`` the values are mpmath numbers)

    Examples
    --------
    >>> opt = policy_iteration(LossNetwork(100, (0.3, 0.9, 0.6), (3, 2, 1), 1.0))
    >>> opt.reserves, round(opt.regret, 4)
    ((0, 1, 29), 10.0573)
    """

    iterations: int = 0

    @property
    def reserve(self) -> int:
        """k*, the reserve of class L of a two-class network: admit L only while more
        than k* servers are idle.

        >>> policy_iteration(LossNetwork(50, (0.6, 0.8), (2.0, 1.0), 1.0)).reserve
        3
        """
        if len(self.reserves) != 2:
            raise AttributeError(
                f"reserve is the reserve of class L of two classes; with "
                f"{len(self.reserves)} classes read reserves, {self.reserves}"
            )
        return self.reserves[1]


def _require_memory(net: LossNetwork) -> None:
    limits.require(
        "memory",
        BYTES_PER_SERVER * (net.servers + 1.0) * net.n_classes,
        parameter="net.servers",
        what=f"the nested policy iteration (net.servers = {net.servers}, {net.n_classes} classes)",
    )


@dataclass(frozen=True)
class _Evaluation:
    """One policy's stationary law (log weights) and bias differences D_b."""

    log_pi: np.ndarray  # log π_b, b = start..N
    regret: float
    mean_idle: float
    blocking: np.ndarray
    shifted_bias: np.ndarray  # D_b = Δ_b − r_m, b = start..N-1


def _evaluate(net: LossNetwork, admitted: np.ndarray, start: int = 0) -> _Evaluation:
    """Evaluate the policy admitting classes 0..admitted[b]-1 at b busy (admitted[N] = 0,
    admitted[b] >= 1 below N), over the states b = ``start``..N (``admitted`` indexed
    from ``start``): the chain cut below ``start``, the arithmetic of the whole chain
    restricted to those states (the log weights relative to the full state are the same
    numbers; ``start`` = 0 is the whole chain)."""
    n, lambdas, rewards = net.servers, np.array(net.lambdas), np.array(net.rewards)
    m, r_m = net.marginal, rewards[net.marginal]
    cumulative = np.concatenate(([0.0], np.cumsum(lambdas)))  # λ̄_0..λ̄_n
    birth = n * cumulative[admitted[:-1]]  # b = start..N-1, all > 0
    busy = np.arange(start, n + 1, dtype=float)
    # log(w_b / w_N) = Σ_{l=b}^{N-1} log((l+1)μ / β_l)
    steps = np.log(net.mu * busy[1:] / birth)
    log_w = np.concatenate((np.cumsum(steps[::-1])[::-1], [0.0]))
    log_pi = log_w - np.logaddexp.reduce(log_w)
    pi = np.exp(log_pi)
    # regret rate per state; class j is admitted at b iff admitted[b] > j
    weights = n * (rewards - r_m) * lambdas  # > 0 above m, < 0 below
    is_admitted = admitted[:, None] > np.arange(net.n_classes)[None, :]
    above = np.arange(net.n_classes) < m
    lost_above = (~is_admitted[:, above]) @ weights[above]
    admitted_below = is_admitted[:, ~above] @ -weights[~above]
    idle = n - busy
    cost = r_m * net.mu * idle + lost_above + admitted_below
    regret = float(pi @ cost)
    blocking = pi @ ~is_admitted
    excess = cost - regret
    with np.errstate(divide="ignore"):
        log_pos = log_w + np.log(np.maximum(excess, 0.0))
        log_neg = log_w + np.log(np.maximum(-excess, 0.0))
    head_pos, head_neg = np.logaddexp.accumulate(log_pos), np.logaddexp.accumulate(log_neg)
    tail_pos = np.logaddexp.accumulate(log_pos[::-1])[::-1]
    tail_neg = np.logaddexp.accumulate(log_neg[::-1])[::-1]
    # D_b for b = 0..N-1: tail over k > b (indices b+1..N), head over k <= b.
    tail_p, tail_n = tail_pos[1:], tail_neg[1:]
    head_p, head_n = head_pos[:-1], head_neg[:-1]
    use_tail = np.logaddexp(tail_p, tail_n) <= np.logaddexp(head_p, head_n)
    plus = np.where(use_tail, tail_p, head_n)
    minus = np.where(use_tail, tail_n, head_p)
    scale = log_w[:-1] + np.log(birth)
    shifted_bias = np.exp(plus - scale) - np.exp(minus - scale)
    mean_idle = float(pi @ idle)
    return _Evaluation(log_pi, regret, mean_idle, blocking, shifted_bias)


def _improve(net: LossNetwork, current: np.ndarray, shifted_bias: np.ndarray) -> np.ndarray:
    """The greedy prefix per state (at least class 1), keeping the current one unless
    the best is better by more than :data:`TIE_RTOL` of the terms."""
    lambdas, rewards = np.array(net.lambdas), np.array(net.rewards)
    r_m = rewards[net.marginal]
    gain = (rewards - r_m)[None, :] - shifted_bias[:, None]  # r_j − Δ_b, shape (N, n)
    value = np.cumsum(lambdas[None, :] * gain, axis=1)  # prefix lengths 1..n
    best = np.argmax(value, axis=1)
    rows = np.arange(value.shape[0])
    old = value[rows, current[:-1] - 1]
    scale = lambdas.sum() * (rewards[0] + np.abs(shifted_bias))  # bounds every term
    keep = value[rows, best] <= old + TIE_RTOL * scale
    improved = current.copy()
    improved[:-1] = np.where(keep, current[:-1], best + 1)
    return improved


def _reserves(net: LossNetwork, admitted: np.ndarray) -> tuple[int, ...]:
    """k_j from the admitted prefix lengths, after checking they do not increase with b."""
    if np.any(np.diff(admitted) > 0):
        b = int(np.argmax(np.diff(admitted) > 0))
        raise ArithmeticError(
            "the optimal policy is not monotone in the number of busy servers "
            f"(at b = {b} it admits {admitted[b]} classes, at b = {b + 1} {admitted[b + 1]})"
        )
    n = net.servers
    # class j (0-based) is admitted at b iff admitted[b] > j iff b < first b with admitted <= j
    first = [int(np.argmax(admitted <= j)) for j in range(net.n_classes)]
    return tuple(n - b for b in first)


def _policy_of(net: LossNetwork, reserves) -> np.ndarray:
    n = net.servers
    reserves = [validation.nonnegative_int("reserves entry", k) for k in reserves]
    if len(reserves) != net.n_classes:
        raise ValueError(
            f"reserves must hold one reserve per class ({net.n_classes}), got {reserves}"
        )
    if reserves[0] != 0 or any(np.diff(reserves) < 0) or reserves[-1] > n:
        raise ValueError(
            f"reserves must satisfy 0 = k_1 <= k_2 <= ... <= k_n <= N = {n}, got {reserves}"
        )
    idle = n - np.arange(n + 1)
    return (idle[:, None] > np.array(reserves)[None, :]).sum(axis=1)


def initial_reserves(net: LossNetwork) -> list[int]:
    """The start of policy iteration: classes above the marginal one always admitted,
    those below never, and the marginal class's reserve from the balance of
    :mod:`qtheory.lossnet.regret` (r_m μ k against N A e^{-θk} with
    A = Σ_{j<m} (r_j − r_m) λ_j, θ = log(μ/λ̄_{m-1})).  Any start gives the optimum; this
    one needs a handful of iterations where all classes admitted needs dozens (the
    marginal reserve overshoots and oscillates).  With two classes the marginal reserve
    is the first guess of the two-class search (:mod:`qtheory.lossnet.online`).

    Parameters
    ----------
    net : LossNetwork
        The network.

    Returns
    -------
    list of int
        The reserves k_1, ..., k_n (0 above the marginal class, N below it).

    Examples
    --------
    The marginal class's guess is next to its optimal reserve:

    >>> net = LossNetwork(10**6, (0.3, 0.9, 0.6), (3, 2, 1), 1.0)
    >>> start, best = initial_reserves(net), local_optimum(net).reserves
    >>> start[0], start[2], abs(start[1] - best[1]) <= 1
    (0, 1000000, True)
    """
    m, n, r_m = net.marginal, net.servers, net.rewards[net.marginal]
    theta = math.log(net.mu / math.fsum(net.lambdas[:m]))
    loss = math.fsum(
        (r - r_m) * lam for r, lam in zip(net.rewards[:m], net.lambdas[:m], strict=True)
    )
    balance = math.log(max(loss * n * theta / (r_m * net.mu), 1.0)) / theta
    reserve = min(n, round(balance))
    return [0] * m + [reserve] + [n] * (net.n_classes - m - 1)


def _result(net: LossNetwork, admitted: np.ndarray, evaluation: _Evaluation) -> dict:
    fluid = fluid_bound(net)
    return dict(
        reserves=_reserves(net, admitted),
        fluid=fluid,
        online=fluid - evaluation.regret,
        regret=evaluation.regret,
        mean_idle=evaluation.mean_idle,
        blocking=tuple(float(b) for b in evaluation.blocking),
    )


def evaluate_nested(net, reserves) -> NestedPolicy:
    """Reward, regret, idleness and blocking of one nested trunk-reservation policy.

    Parameters
    ----------
    net : LossNetwork
        The network.
    reserves : sequence of int
        0 = k_1 <= … <= k_n <= N.

    Returns
    -------
    NestedPolicy
        The policy's performance (regret by the identity of the module docstring).

    Raises
    ------
    TypeError
        If ``net`` is not a network.
    ValueError
        If ``reserves`` is not a valid nested reserve vector, or the memory limit is
        exceeded.

    Examples
    --------
    >>> net = LossNetwork(100, (0.3, 0.5, 0.6), (3, 2, 1), 1.0)
    >>> round(evaluate_nested(net, (0, 3, 100)).online, 4)
    188.8885
    """
    net = as_network(net)
    _require_memory(net)
    admitted = _policy_of(net, reserves)
    return NestedPolicy(**_result(net, admitted, _evaluate(net, admitted)))


def policy_iteration(net, *, max_iterations: int = 100) -> OnlineOptimum:
    """The optimal admission policy of the n-class network (common μ): nested trunk
    reservation, by policy iteration on the busy-server chain (module docstring); the
    route of :func:`qtheory.lossnet.online.online_optimum` for more than two classes.

    Parameters
    ----------
    net : LossNetwork
        The network.
    max_iterations : int, keyword-only
        Policy evaluations allowed (default 100; a handful are used).

    Returns
    -------
    OnlineOptimum
        The reserves k_j, R_fluid, R_on, the regret, E[idle], the blocking
        probabilities and the number of iterations.

    Raises
    ------
    TypeError
        If ``net`` is not a network.
    ValueError
        If the memory limit is exceeded (checked first).
    ArithmeticError
        If policy iteration has not converged after ``max_iterations``, or the
        optimum is not monotone in the busy count.

    References
    ----------
    See the module's References:

    - Miller (1969);
    - Puterman (1994), Section 8.6.

    Examples
    --------
    >>> opt = policy_iteration(LossNetwork(1000, (0.3, 0.5, 0.6, 0.2), (4, 3, 2, 1), 1.0))
    >>> opt.reserves, round(opt.online / opt.fluid, 4)
    ((0, 1, 13, 431), 0.9896)
    """
    net = as_network(net)
    _require_memory(net)
    admitted = _policy_of(net, initial_reserves(net))
    for iteration in range(1, max_iterations + 1):
        evaluation = _evaluate(net, admitted)
        improved = _improve(net, admitted, evaluation.shifted_bias)
        if np.array_equal(improved, admitted):
            return OnlineOptimum(**_result(net, admitted, evaluation), iterations=iteration)
        admitted = improved
    raise ArithmeticError(f"policy iteration did not converge in {max_iterations} iterations")


# ---------------------------------------------------------------------------
# the local route: the states that matter, the bias far from the full state in closed form

#: Half an ulp of 1 in float64.
_EPS = 2.0**-53

#: Relative margin (of λ_j (r_j − r_m − D_b) against Λ (r_1 + |D_b|), the scale of
#: :func:`_improve`'s tie rule) below which the local route does not decide a class's
#: reserve and :func:`policy_iteration` does.
DECISION_RTOL = 1e-10


def _window_states(net: LossNetwork, reserve: int) -> int:
    """T: the states beyond ``reserve`` idle servers (the marginal class admitted there)
    that the window's sums need.  Every weight ratio there is at most q = μ/λ̄_m < 1
    (λ̄_m the arrival rate of the classes up to the marginal one), the costs at most
    r_m μ i + N C (C = Σ_j |r_j − r_m| λ_j): the left-out sums relative to the kept ones
    are at most q^(T−1) (max(q/(1−q), L q/(1−q) + q/(1−q)^2) + N C q/((1−q) r_m μ)),
    L = ``reserve`` + T (:func:`~qtheory.exact.birth_death.geometric_tail_states`, the
    costs its extra term)."""
    m, r_m = net.marginal, net.rewards[net.marginal]
    q = net.mu / math.fsum(net.lambdas[: m + 1])
    spread = math.fsum(abs(r - r_m) * lam for r, lam in zip(net.rewards, net.lambdas, strict=True))
    return geometric_tail_states(q, reserve, net.servers * spread * q / ((1 - q) * r_m * net.mu))


@dataclass(frozen=True)
class _Local:
    """One nested policy evaluated on the window b = start..N, and its bias D_b at any b."""

    net: LossNetwork
    reserves: tuple[int, ...]
    start: int
    evaluation: _Evaluation

    def prefix(self, busy: np.ndarray) -> np.ndarray:
        """Admitted prefix lengths at the busy counts ``busy``."""
        idle = self.net.servers - busy
        return (idle[:, None] > np.array(self.reserves)[None, :]).sum(axis=1)

    def bias(self, b: int) -> float:
        """D_b: from the window at and above the marginal class's threshold
        N − k_m, below it from the head sum β_b π_b D_b = −Σ_{k<=b} π_k (c_k − G) over
        the states k >= b − L, each ratio π_{k}/π_{k+1} = (k+1)μ/β_k at most
        q_b = min(q, bμ/(λ̄_m N)) there (the marginal class admitted), L such that the
        left-out part is below :data:`~qtheory.exact.birth_death.TAIL_EPS` β_b r_1."""
        net, n = self.net, self.net.servers
        if b >= n - self.reserves[net.marginal]:
            return float(self.evaluation.shifted_bias[b - self.start])
        lambdas, rewards = np.array(net.lambdas), np.array(net.rewards)
        m, r_m = net.marginal, rewards[net.marginal]
        cumulative = np.concatenate(([0.0], np.cumsum(lambdas)))
        regret = self.evaluation.regret
        low = cumulative[m + 1] * n
        q = min(net.mu / cumulative[m + 1], max(b, 1) * net.mu / low)
        bound = n * (r_m * net.mu + float(np.abs(rewards - r_m) @ lambdas)) + regret
        scale = TAIL_EPS * low * rewards[0] * (1 - q) / (q * bound)
        length = b if scale >= 1 else min(b, math.ceil(math.log(scale) / math.log(q)) + 1)
        busy = np.arange(b - length, b + 1, dtype=float)
        prefix = self.prefix(busy)
        birth = n * cumulative[prefix]
        # log(π_k/π_b) = Σ_{i=k}^{b-1} log((i+1)μ/β_i)
        steps = np.log(net.mu * busy[1:] / birth[:-1])
        log_ratio = np.concatenate((np.cumsum(steps[::-1])[::-1], [0.0]))
        ratio = np.exp(log_ratio)
        weights = n * (rewards - r_m) * lambdas
        is_admitted = prefix[:, None] > np.arange(net.n_classes)[None, :]
        above = np.arange(net.n_classes) < m
        lost_above = (~is_admitted[:, above]) @ weights[above]
        admitted_below = is_admitted[:, ~above] @ -weights[~above]
        cost = r_m * net.mu * (n - busy) + lost_above + admitted_below
        excess = cost - regret
        plus = ratio @ np.maximum(-excess, 0.0)
        minus = ratio @ np.maximum(excess, 0.0)
        return float((plus - minus) / birth[-1])


def _evaluate_local(net: LossNetwork, reserves: tuple[int, ...]) -> _Local | None:
    """The nested policy ``reserves`` on the window of the states that matter, or None
    when the window is the whole chain."""
    n = net.servers
    reserve = reserves[net.marginal]
    states = reserve + _window_states(net, reserve)
    if states >= n:
        return None
    limits.require(
        "memory",
        BYTES_PER_SERVER * (states + 1.0) * net.n_classes,
        parameter="net.servers",
        what=f"the nested optimum's {states + 1} states nearest the full state "
        f"(net.servers = {n}, {net.n_classes} classes)",
    )
    start = n - states
    idle = n - np.arange(start, n + 1)
    admitted = (idle[:, None] > np.array(reserves)[None, :]).sum(axis=1)
    return _Local(net, tuple(reserves), start, _evaluate(net, admitted, start))


def _crossing(local: _Local, level: float, guess: int, cache: dict[int, float]) -> int:
    """The least b in 0..N−1 with D_b >= ``level`` (N if none), D_b increasing in b: a
    search out from ``guess`` by doubling steps, then bisection."""
    n = local.net.servers

    def above(b: int) -> bool:  # D_b >= level, with D_{-1} = −∞ and D_N = +∞
        if b < 0 or b >= n:
            return b >= n
        if b not in cache:
            cache[b] = local.bias(b)
        return cache[b] >= level

    guess, step = min(max(guess, 0), n), 1
    if above(guess):
        low, high = guess - 1, guess
        while not (low < 0 or not above(low)):
            high, low, step = low, max(guess - 2 * step, -1), 2 * step
    else:
        low, high = guess, guess + 1
        while not above(high):
            low, high, step = high, min(guess + 2 * step, n), 2 * step
    while high - low > 1:
        middle = (low + high) // 2
        if above(middle):
            high = middle
        else:
            low = middle
    return high


def _local_improve(local: _Local, cache: dict[int, float]) -> tuple[int, ...]:
    """The greedy nested reserves of the policy's bias: class j's threshold is the least
    b with D_b >= r_j − r_m (class 1 always admitted)."""
    net, n = local.net, local.net.servers
    shifted = np.array(net.rewards) - net.rewards[net.marginal]
    return (0,) + tuple(
        n - _crossing(local, float(s), n - k, cache)
        for s, k in zip(shifted[1:], local.reserves[1:], strict=True)
    )


def _log_weight(net: LossNetwork, reserves: tuple[int, ...], b: int) -> float:
    """log(w_b / w_N) = Σ_{i=b+1}^{N} log(iμ/β_{i−1}) of the policy, in O(n) (log
    Gamma for the departures, β constant between thresholds)."""
    n = net.servers
    cumulative = np.cumsum(net.lambdas)
    log_birth = 0.0
    for p in range(1, net.n_classes + 1):  # states b..N−1 admitting at least p classes
        at_least = max(0, n - reserves[p - 1] - b)
        more = max(0, n - reserves[p] - b) if p < net.n_classes else 0
        log_birth += (at_least - more) * math.log(n * cumulative[p - 1])
    return math.lgamma(n + 1) - math.lgamma(b + 1) + (n - b) * math.log(net.mu) - log_birth


def _decided(local: _Local, cache: dict[int, float]) -> bool:
    """Whether float64 decides every class's reserve as policy iteration does: on both
    sides of each threshold λ_j |r_j − r_m − D_b| exceeds Λ (r_1 + |D_b|) times
    :data:`DECISION_RTOL` plus 16 ε |log(w_b/w_N)| (the error of policy iteration's
    D_b, whose weights are relative to the full state), and the biases evaluated
    increase with b."""
    net, n = local.net, local.net.servers
    lambdas, rewards = np.array(net.lambdas), np.array(net.rewards)
    total = lambdas.sum()
    for j in range(1, net.n_classes):
        s_j = rewards[j] - rewards[net.marginal]
        threshold = n - local.reserves[j]
        for b in (threshold - 1, threshold):
            if 0 <= b < n:
                if b not in cache:
                    cache[b] = local.bias(b)
                d = cache[b]
                rtol = DECISION_RTOL + 16 * _EPS * abs(_log_weight(net, local.reserves, b))
                if lambdas[j] * abs(s_j - d) <= rtol * total * (rewards[0] + abs(d)):
                    return False
    known = sorted(cache)
    window = local.evaluation.shifted_bias[n - local.reserves[net.marginal] - local.start :]
    values = [cache[b] for b in known]
    return bool(np.all(np.diff(values) >= 0) and np.all(np.diff(window) >= 0))


def _local_search(net: LossNetwork, max_iterations: int) -> tuple[OnlineOptimum | None, bool]:
    """(optimum, decided) of the local route; None when the window is the whole chain or
    the reserves did not settle."""
    reserves = tuple(initial_reserves(net))
    for iteration in range(1, max_iterations + 1):
        local = _evaluate_local(net, reserves)
        if local is None:
            return None, False
        cache: dict[int, float] = {}
        improved = _local_improve(local, cache)
        if improved == reserves:
            evaluation, fluid = local.evaluation, fluid_bound(net)
            optimum = OnlineOptimum(
                reserves=reserves,
                fluid=fluid,
                online=fluid - evaluation.regret,
                regret=evaluation.regret,
                mean_idle=evaluation.mean_idle,
                blocking=tuple(float(b) for b in evaluation.blocking),
                iterations=iteration,
            )
            return optimum, _decided(local, cache)
        reserves = improved
    return None, False


def local_optimum(net, *, max_iterations: int = 100) -> OnlineOptimum:
    """The optimal nested reserves by policy iteration on the states that matter, in
    O(n(k_m + T) + n T log N) per iteration whatever N (module docstring, "The states
    that matter"): the same reserves as :func:`policy_iteration` and its values to a few
    ulps; the float64 route of :func:`qtheory.lossnet.online.online_optimum` for more
    than two classes.

    :func:`policy_iteration` decides instead where the window of the states that matter
    is the whole chain (small N, or λ̄_m close to μ), where the reserves do not settle
    in ``max_iterations``, and where a decision is within :data:`DECISION_RTOL` (plus
    policy iteration's own rounding) of a tie, as long as its O(nN) memory fits the
    ``memory`` limit; beyond that limit the local decision is kept (the two candidate
    reserves are then a tie within float64 rounding).

    Parameters
    ----------
    net : LossNetwork
        The network.
    max_iterations : int, keyword-only
        Policy evaluations allowed (default 100; a handful are used).

    Returns
    -------
    OnlineOptimum
        As :func:`policy_iteration`.

    Raises
    ------
    TypeError
        If ``net`` is not a network.
    ValueError
        If the window, or policy iteration where it decides, exceeds the memory limit.
    ArithmeticError
        If policy iteration decides and does not converge or finds a non-monotone policy.

    References
    ----------
    See the module's References: Lippman (1975) (the bias differences increase with b,
    so each class's threshold is one sign change).

    Examples
    --------
    >>> net = LossNetwork(10**6, (0.3, 0.9, 0.6), (3, 2, 1), 1.0)
    >>> opt = local_optimum(net)
    >>> opt.reserves, round(opt.regret, 6)
    ((0, 9, 200027), 28.060401)
    """
    net = as_network(net)
    optimum, decided = _local_search(net, max_iterations)
    if optimum is not None and (decided or not _fits_memory(net)):
        return optimum
    return policy_iteration(net)


def _fits_memory(net: LossNetwork) -> bool:
    """Whether :func:`policy_iteration` fits the memory limit."""
    return BYTES_PER_SERVER * (net.servers + 1.0) * net.n_classes <= limits.limit("memory")
