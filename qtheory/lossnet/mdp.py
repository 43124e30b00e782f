r"""The online optimum as a full average-reward MDP, solved by the exact engine.

This route assumes nothing about the form of the optimal policy: in every state the
controller may admit or reject each class.  It checks the trunk-reservation search of
:mod:`qtheory.lossnet.online` (Miller 1969: the optimum is a threshold policy) and
extends to per-class service rates :math:`\mu_H \ne \mu_L`, where the state must count
busy servers of each class, :math:`(b_H, b_L)` with :math:`b_H + b_L \le N`.

Actions are numbered ``2*admit_h + admit_l``: 0 rejects both, 1 admits L only, 2 admits
H only, 3 admits both.  Rewards are paid on admission, so an admitting action earns the
reward rate :math:`\lambda_H N r_H` (resp. :math:`\lambda_L N r_L`) while it is used.

Cost: the model has N + 1 states, or (N + 1)(N + 2)/2 with per-class service rates;
:func:`admission_mdp` refuses (``ValueError`` naming ``net``) a model whose memory
(:data:`BYTES_PER_STATE` per state) exceeds the ``memory`` limit, and
:func:`solve_admission_mdp` one whose solves (about :data:`SOLVE_CELLS_PER_STATE`
times states^1.5 cells: sparse LU of a grid fills in like n^1.5) exceed ``dp_cells``
(:mod:`qtheory.limits`).

References
----------
.. [1] B. L. Miller, "A queueing reward system with several customer classes",
   Management Science 16(3):234-245 (1969).
.. [2] M. L. Puterman, Markov Decision Processes (Wiley 1994).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sparse

from qtheory import _validation, limits
from qtheory.exact.mdp import CTMDP, MDPSolution, linear_program, policy_iteration
from qtheory.lossnet.fluid import fluid_lp
from qtheory.lossnet.model import LossNetwork, as_network

__all__ = ["AdmissionMDP", "AdmissionOptimum", "admission_mdp", "solve_admission_mdp"]

ACTIONS = ((0, 0), (0, 1), (1, 0), (1, 1))  # (admit_h, admit_l) by action index

#: Memory of the model per state, in bytes: the state index (a dict of tuples, about
#: 250 bytes), four sparse rate matrices of up to four entries a row, rewards and masks.
BYTES_PER_STATE = 600

#: Policy iterations budgeted by the cost estimate of :func:`solve_admission_mdp`.
SOLVE_CELLS_PER_STATE = 20


@dataclass(frozen=True)
class AdmissionMDP:
    """The admission-control MDP and the busy counts (b_H, b_L) of its states.

    Attributes
    ----------
    mdp : qtheory.exact.CTMDP
        Actions 0..3 = 2 admit_H + admit_L, reward rates paid on admission.
    busy_h, busy_l : numpy.ndarray of int
        Busy servers of each class in each state (``busy_l`` is 0 on the
        one-dimensional model, whose state is the busy count).
    servers : int
        N.

    References
    ----------
    .. [1] M. L. Puterman, Markov Decision Processes (Wiley 1994).

    Examples
    --------
    >>> model = admission_mdp(LossNetwork(2, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> model.busy_h.tolist(), model.admits_l(np.array([0, 1, 3])).tolist()
    ([0, 1, 2], [False, True, True])
    """

    mdp: CTMDP
    busy_h: np.ndarray
    busy_l: np.ndarray
    servers: int

    def admits_l(self, policy: np.ndarray) -> np.ndarray:
        """Mask of the states where ``policy`` (an action per state) admits L.

        Parameters
        ----------
        policy : numpy.ndarray of int
            Actions 0..3 (``2 admit_H + admit_L``), one per state.

        Returns
        -------
        numpy.ndarray of bool
            True where the action is 1 or 3.

        Examples
        --------
        >>> model = admission_mdp(LossNetwork(2, 0.6, 0.8, 1.0, 2.0, 1.0))
        >>> model.admits_l(np.array([3, 2, 0])).tolist()
        [True, False, False]
        """
        return np.isin(policy, [a for a, (_, admit_l) in enumerate(ACTIONS) if admit_l])

    def admits_h(self, policy: np.ndarray) -> np.ndarray:
        """Mask of the states where ``policy`` (an action per state) admits H.

        Parameters
        ----------
        policy : numpy.ndarray of int
            Actions 0..3 (``2 admit_H + admit_L``), one per state.

        Returns
        -------
        numpy.ndarray of bool
            True where the action is 2 or 3.

        Examples
        --------
        >>> model = admission_mdp(LossNetwork(2, 0.6, 0.8, 1.0, 2.0, 1.0))
        >>> model.admits_h(np.array([3, 2, 0])).tolist()
        [True, True, False]
        """
        return np.isin(policy, [a for a, (admit_h, _) in enumerate(ACTIONS) if admit_h])


def _states(servers: int, two_dimensional: bool) -> tuple[np.ndarray, np.ndarray]:
    if not two_dimensional:
        return np.arange(servers + 1), np.zeros(servers + 1, dtype=int)
    high, low = np.meshgrid(np.arange(servers + 1), np.arange(servers + 1), indexing="ij")
    keep = high + low <= servers
    return high[keep], low[keep]


def _state_count(net: LossNetwork, two_dimensional: bool) -> int:
    n = net.servers
    return (n + 1) * (n + 2) // 2 if two_dimensional else n + 1


def admission_mdp(net: LossNetwork, service_rate_l: float | None = None) -> AdmissionMDP:
    """Build the admission-control MDP of the loss network.

    Parameters
    ----------
    net : LossNetwork
        The network.
    service_rate_l : float or None, optional
        With a rate, L jobs are served at that rate (H at ``net.mu``) and the state is
        two-dimensional, (b_H, b_L); None (default): the busy count.

    Returns
    -------
    AdmissionMDP
        The model and the busy counts of its states.

    Raises
    ------
    TypeError
        If ``net`` is not a :class:`LossNetwork`.
    ValueError
        If ``service_rate_l`` is not a finite number > 0, or the model would exceed the
        ``memory`` limit (checked before it is built).

    References
    ----------
    .. [1] M. L. Puterman, Markov Decision Processes (Wiley 1994).

    Examples
    --------
    >>> model = admission_mdp(LossNetwork(3, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> model.mdp.rewards.shape
    (4, 4)
    """
    net = as_network(net)
    two_dimensional = service_rate_l is not None
    mu_h = net.mu
    mu_l = _validation.positive("service_rate_l", service_rate_l) if two_dimensional else net.mu
    states = _state_count(net, two_dimensional)
    limits.require(
        "memory",
        BYTES_PER_STATE * states,
        parameter="net.servers",
        what=f"the admission MDP with {states} states (net.servers = {net.servers})",
    )
    busy_h, busy_l = _states(net.servers, two_dimensional)
    index = {state: i for i, state in enumerate(zip(busy_h.tolist(), busy_l.tolist(), strict=True))}
    n_states = busy_h.size
    has_room = busy_h + busy_l < net.servers
    room = np.flatnonzero(has_room)
    if two_dimensional:
        up_h = np.array([index[(busy_h[i] + 1, busy_l[i])] for i in room])
        up_l = np.array([index[(busy_h[i], busy_l[i] + 1)] for i in room])
    else:
        up_h = up_l = room + 1
    departures = [
        (np.flatnonzero(busy_h > 0), busy_h[busy_h > 0] * mu_h, (-1, 0)),
        (np.flatnonzero(busy_l > 0), busy_l[busy_l > 0] * mu_l, (0, -1)),
    ]
    down_rows, down_cols, down_rates = [], [], []
    for rows, rates, (dh, dl) in departures:
        down_rows.append(rows)
        down_cols.append(
            np.array([index[(busy_h[i] + dh, busy_l[i] + dl)] for i in rows], dtype=int)
        )
        down_rates.append(rates.astype(float))
    rate_matrices, rewards = [], np.zeros((len(ACTIONS), n_states))
    for a, (admit_h, admit_l) in enumerate(ACTIONS):
        rows = [*down_rows, room, room]
        cols = [*down_cols, up_h, up_l]
        rates = [
            *down_rates,
            np.full(room.size, admit_h * net.arrival_rate_h),
            np.full(room.size, admit_l * net.arrival_rate_l),
        ]
        matrix = sparse.coo_matrix(
            (np.concatenate(rates), (np.concatenate(rows), np.concatenate(cols))),
            shape=(n_states, n_states),
        ).tocsr()
        matrix.eliminate_zeros()
        rate_matrices.append(matrix)
        rewards[a, room] = (
            admit_h * net.arrival_rate_h * net.r_h + admit_l * net.arrival_rate_l * net.r_l
        )
    allowed = np.zeros((len(ACTIONS), n_states), dtype=bool)
    allowed[:, has_room] = True
    allowed[0, ~has_room] = True  # full: nothing can be admitted
    return AdmissionMDP(CTMDP(tuple(rate_matrices), rewards, allowed), busy_h, busy_l, net.servers)


@dataclass(frozen=True)
class AdmissionOptimum:
    """Optimal online reward from the MDP, with the fluid bound of the same model.

    Attributes
    ----------
    model : AdmissionMDP
        The model solved.
    solution : qtheory.exact.MDPSolution
        Optimal gain, bias and policy.
    fluid : float
        The fluid bound of the same model (per-class service rates included).

    References
    ----------
    .. [1] B. L. Miller, "A queueing reward system with several customer classes",
       Management Science 16(3):234-245 (1969).
    .. [2] X. Xie, I. Gurvich and S. Küçükyavuz, "Dynamic allocation of reusable
       resources: logarithmic regret in overloaded networks", Operations Research
       73(4) (2025).

    Examples
    --------
    N = 20, λ_H = 0.6, λ_L = 0.8, μ = 1, r_H = 2, r_L = 1: the fluid bound is
    N (λ_H r_H + (μ − λ_H) r_L) = 32, and the optimum is trunk reservation with
    reserve 2 (the birth-death chain with birth rates 12 + 16·[N − b > 2] and death
    rates b gives the same regret).

    >>> opt = solve_admission_mdp(LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> opt.reserve, round(opt.regret, 6), round(opt.fluid, 9)
    (2, 3.814307, 32.0)
    """

    model: AdmissionMDP
    solution: MDPSolution
    fluid: float

    @property
    def online(self) -> float:
        """The optimal long-run reward rate (the MDP's gain).

        Returns
        -------
        float
            ``solution.gain``.

        Examples
        --------
        >>> opt = solve_admission_mdp(LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0))
        >>> round(opt.online, 6)  # 32 - 3.814307
        28.185693
        """
        return self.solution.gain

    @property
    def regret(self) -> float:
        """The fluid bound minus the optimal gain.

        Returns
        -------
        float
            ``fluid - solution.gain`` (non-negative: the fluid bound is an upper bound).

        Examples
        --------
        >>> opt = solve_admission_mdp(LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0))
        >>> round(opt.regret, 6)
        3.814307
        """
        return self.fluid - self.solution.gain

    @property
    def reserve(self) -> int | None:
        """k if the policy is trunk reservation with reserve k on the busy count (H
        admitted whenever there is room, L exactly while more than k servers are idle);
        None otherwise (e.g. with per-class service rates).

        Returns
        -------
        int or None
            The reserve k, or None if the policy is not of that form.

        References
        ----------
        .. [1] B. L. Miller, Management Science 16(3):234-245 (1969).

        Examples
        --------
        >>> solve_admission_mdp(LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0)).reserve
        2
        """
        policy, model = self.solution.policy, self.model
        idle = model.servers - model.busy_h - model.busy_l
        room = idle > 0
        if not np.all(model.admits_h(policy)[room]):
            return None
        admitted_idle = idle[model.admits_l(policy) & room]
        rejected_idle = idle[~model.admits_l(policy) & room]
        reserve = int(rejected_idle.max()) if rejected_idle.size else 0
        if admitted_idle.size and admitted_idle.min() <= reserve:
            return None
        return reserve


def solve_admission_mdp(
    net: LossNetwork, service_rate_l: float | None = None, method: str = "policy_iteration"
) -> AdmissionOptimum:
    """Solve the admission MDP by policy iteration or by the LP over occupation measures.

    Parameters
    ----------
    net : LossNetwork
        The network.
    service_rate_l : float or None, optional
        Per-class service rate of L (see :func:`admission_mdp`).
    method : {"policy_iteration", "lp"}, optional
        The solver of :mod:`qtheory.exact.mdp` (default policy iteration).

    Returns
    -------
    AdmissionOptimum
        The model, its optimal solution and the fluid bound.

    Raises
    ------
    TypeError
        If ``net`` is not a :class:`LossNetwork`.
    ValueError
        If ``method`` is unknown, ``service_rate_l`` invalid, or the model exceeds the
        ``memory`` or ``dp_cells`` limits (checked before it is built).

    References
    ----------
    .. [1] B. L. Miller, Management Science 16(3):234-245 (1969).
    .. [2] M. L. Puterman, Markov Decision Processes (Wiley 1994).

    Examples
    --------
    >>> opt = solve_admission_mdp(LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> opt.reserve
    2
    """
    net = as_network(net)
    solvers = {"policy_iteration": policy_iteration, "lp": linear_program}
    if method not in solvers:
        raise ValueError(f"method must be one of {sorted(solvers)}, got {method!r}")
    states = _state_count(net, service_rate_l is not None)
    limits.require(
        "dp_cells",
        SOLVE_CELLS_PER_STATE * float(states) ** 1.5,
        parameter="net.servers",
        what=f"solving the admission MDP with {states} states (net.servers = {net.servers})",
    )
    model = admission_mdp(net, service_rate_l)
    mu_l = net.mu if service_rate_l is None else service_rate_l
    fluid = fluid_lp([net.lambda_h, net.lambda_l], [net.r_h, net.r_l], [net.mu, mu_l], net.servers)
    return AdmissionOptimum(model, solvers[method](model.mdp), fluid.value)
