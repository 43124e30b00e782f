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
Let :math:`m` be the marginal class (:mod:`qtheory.model.classes`),
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
from qtheory.lossnet.fluid import fluid_bound
from qtheory.model.classes import ClassNetwork, as_classes

__all__ = [
    "BYTES_PER_SERVER",
    "NestedPolicy",
    "OnlineOptimum",
    "evaluate_nested",
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
    >>> pol = evaluate_nested(ClassNetwork(20, (0.3, 0.5, 0.6), (3, 2, 1), 1.0), (0, 1, 20))
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

        >>> net = ClassNetwork(20, (0.3, 0.5, 0.6), (3, 2, 1), 1.0)
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
        Policy evaluations of :func:`policy_iteration` until the policy stopped changing
        (0 when the two-class table of every reserve found it).
    (the attributes of :class:`NestedPolicy`; with ``dps`` the values are mpmath numbers)

    Examples
    --------
    >>> opt = policy_iteration(ClassNetwork(100, (0.3, 0.9, 0.6), (3, 2, 1), 1.0))
    >>> opt.reserves, round(opt.regret, 4)
    ((0, 1, 29), 10.0573)
    """

    iterations: int = 0

    @property
    def reserve(self) -> int:
        """k*, the reserve of class L of a two-class network: admit L only while more
        than k* servers are idle.

        >>> policy_iteration(ClassNetwork(50, (0.6, 0.8), (2.0, 1.0), 1.0)).reserve
        3
        """
        if len(self.reserves) != 2:
            raise AttributeError(
                f"reserve is the reserve of class L of two classes; with "
                f"{len(self.reserves)} classes read reserves, {self.reserves}"
            )
        return self.reserves[1]


def _require_memory(net: ClassNetwork) -> None:
    limits.require(
        "memory",
        BYTES_PER_SERVER * (net.servers + 1.0) * net.n_classes,
        parameter="net.servers",
        what=f"the nested policy iteration (net.servers = {net.servers}, {net.n_classes} classes)",
    )


@dataclass(frozen=True)
class _Evaluation:
    """One policy's stationary law (log weights) and bias differences D_b."""

    log_pi: np.ndarray  # log π_b, b = 0..N
    regret: float
    mean_idle: float
    blocking: np.ndarray
    shifted_bias: np.ndarray  # D_b = Δ_b − r_m, b = 0..N-1


def _evaluate(net: ClassNetwork, admitted: np.ndarray) -> _Evaluation:
    """Evaluate the policy admitting classes 0..admitted[b]-1 at b busy (admitted[N] = 0,
    admitted[b] >= 1 below N)."""
    n, lambdas, rewards = net.servers, np.array(net.lambdas), np.array(net.rewards)
    m, r_m = net.marginal, rewards[net.marginal]
    cumulative = np.concatenate(([0.0], np.cumsum(lambdas)))  # λ̄_0..λ̄_n
    birth = n * cumulative[admitted[:-1]]  # b = 0..N-1, all > 0
    busy = np.arange(n + 1, dtype=float)
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


def _improve(net: ClassNetwork, current: np.ndarray, shifted_bias: np.ndarray) -> np.ndarray:
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


def _reserves(net: ClassNetwork, admitted: np.ndarray) -> tuple[int, ...]:
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


def _policy_of(net: ClassNetwork, reserves) -> np.ndarray:
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


def _initial_reserves(net: ClassNetwork) -> list[int]:
    """The start of policy iteration: classes above the marginal one always admitted,
    those below never, and the marginal class's reserve from the balance of
    :mod:`qtheory.lossnet.regret` (r_m μ k against N A e^{-θk} with
    A = Σ_{j<m} (r_j − r_m) λ_j, θ = log(μ/λ̄_{m-1})).  Any start gives the optimum; this
    one needs a handful of iterations where all classes admitted needs dozens (the
    marginal reserve overshoots and oscillates)."""
    m, n, r_m = net.marginal, net.servers, net.rewards[net.marginal]
    theta = math.log(net.mu / math.fsum(net.lambdas[:m]))
    loss = math.fsum(
        (r - r_m) * lam for r, lam in zip(net.rewards[:m], net.lambdas[:m], strict=True)
    )
    balance = math.log(max(loss * n * theta / (r_m * net.mu), 1.0)) / theta
    reserve = min(n, round(balance))
    return [0] * m + [reserve] + [n] * (net.n_classes - m - 1)


def _result(net: ClassNetwork, admitted: np.ndarray, evaluation: _Evaluation) -> dict:
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
    net : ClassNetwork or LossNetwork
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
    >>> net = ClassNetwork(100, (0.3, 0.5, 0.6), (3, 2, 1), 1.0)
    >>> round(evaluate_nested(net, (0, 3, 100)).online, 4)
    188.8885
    """
    net = as_classes(net)
    _require_memory(net)
    admitted = _policy_of(net, reserves)
    return NestedPolicy(**_result(net, admitted, _evaluate(net, admitted)))


def policy_iteration(net, *, max_iterations: int = 100) -> OnlineOptimum:
    """The optimal admission policy of the n-class network (common μ): nested trunk
    reservation, by policy iteration on the busy-server chain (module docstring); the
    route of :func:`qtheory.lossnet.online.online_optimum` for more than two classes.

    Parameters
    ----------
    net : ClassNetwork or LossNetwork
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
    >>> opt = policy_iteration(ClassNetwork(1000, (0.3, 0.5, 0.6, 0.2), (4, 3, 2, 1), 1.0))
    >>> opt.reserves, round(opt.online / opt.fluid, 4)
    ((0, 1, 13, 431), 0.9896)
    """
    net = as_classes(net)
    _require_memory(net)
    admitted = _policy_of(net, _initial_reserves(net))
    for iteration in range(1, max_iterations + 1):
        evaluation = _evaluate(net, admitted)
        improved = _improve(net, admitted, evaluation.shifted_bias)
        if np.array_equal(improved, admitted):
            return OnlineOptimum(**_result(net, admitted, evaluation), iterations=iteration)
        admitted = improved
    raise ArithmeticError(f"policy iteration did not converge in {max_iterations} iterations")
