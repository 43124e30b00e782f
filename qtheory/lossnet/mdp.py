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
(:mod:`qtheory.core.limits`).

With n classes (:func:`class_admission_mdp`, :func:`solve_class_mdp`) the state is the
number in service of each class, :math:`(b_1, \dots, b_n)` with
:math:`\sum_j b_j \le N` (:math:`\binom{N+n}{n}` states), each class may have its own
service rate, and action :math:`a` admits class :math:`j` iff bit :math:`n - j` of
:math:`a` is set (for n = 2 the numbering above); all :math:`2^n` subsets are allowed
wherever a server is idle.  With a common :math:`\mu` its optimal gain is the nested
trunk-reservation optimum of :mod:`qtheory.lossnet.nested`, and
:attr:`ClassAdmissionOptimum.nested_reserves` reports whether the optimal policy found
is nested trunk reservation (the tests find it is for every network tried with
n = 3, N <= 30, the marginal class in the middle or last).

References
----------
.. [1] B. L. Miller, "A queueing reward system with several customer classes",
   Management Science 16(3):234-245 (1969).
.. [2] M. L. Puterman, Markov Decision Processes (Wiley 1994).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from math import comb

import numpy as np
import scipy.sparse as sparse

from qtheory.core import limits, validation
from qtheory.exact.mdp import CTMDP, MDPSolution, linear_program, policy_iteration
from qtheory.lossnet.fluid import class_vectors, fluid_lp
from qtheory.model.classes import ClassNetwork, as_classes
from qtheory.model.lossnet import LossNetwork, as_network

__all__ = [
    "AdmissionMDP",
    "AdmissionOptimum",
    "ClassAdmissionMDP",
    "ClassAdmissionOptimum",
    "admission_mdp",
    "class_admission_mdp",
    "solve_admission_mdp",
    "solve_class_mdp",
]

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


def _class_states(servers: int, n_classes: int) -> np.ndarray:
    """Every (b_1..b_n) with Σ b_j <= N, in lexicographic order, one row each."""
    if n_classes == 1:
        return np.arange(servers + 1)[:, None]
    return np.vstack(
        [
            np.column_stack((np.full(len(rest), first), rest))
            for first in range(servers + 1)
            for rest in (_class_states(servers - first, n_classes - 1),)
        ]
    )


def _admission_ctmdp(busy: np.ndarray, servers: int, dimension, service, arrival, rewards) -> CTMDP:
    """The admission CTMDP on the states ``busy`` (rows; Σ of a row = busy servers):
    class j arrives at ``arrival[j]``, pays ``rewards[j]`` and adds one to column
    ``dimension[j]``; column d empties at ``service[d]`` per job.  Action a admits class j
    iff bit (n − 1 − j) of a is set; every action is allowed where a server is idle,
    only action 0 where none is."""
    index = {tuple(state): i for i, state in enumerate(busy.tolist())}
    n_states, n_classes = busy.shape[0], len(arrival)
    has_room = busy.sum(axis=1) < servers
    room = np.flatnonzero(has_room)
    unit = np.eye(busy.shape[1], dtype=int)
    ups = [np.array([index[tuple(busy[i] + unit[d])] for i in room], dtype=int) for d in dimension]
    downs = []
    for d in range(busy.shape[1]):
        rows = np.flatnonzero(busy[:, d] > 0)
        cols = np.array([index[tuple(busy[i] - unit[d])] for i in rows], dtype=int)
        downs.append((rows, cols, busy[rows, d] * float(service[d])))
    actions = 2**n_classes
    matrices, reward_rates = [], np.zeros((actions, n_states))
    for a in range(actions):
        admits = [(a >> (n_classes - 1 - j)) & 1 == 1 for j in range(n_classes)]
        moves = [
            *downs,
            *(
                (room, ups[j], np.full(room.size, float(arrival[j])))
                for j in range(n_classes)
                if admits[j]
            ),
        ]
        rows, cols, rates = (np.concatenate(parts) for parts in zip(*moves, strict=True))
        matrices.append(
            sparse.coo_matrix((rates, (rows, cols)), shape=(n_states, n_states)).tocsr()
        )
        reward_rates[a, room] = math.fsum(
            arrival[j] * rewards[j] for j in range(n_classes) if admits[j]
        )
    allowed = np.zeros((actions, n_states), dtype=bool)
    allowed[:, has_room] = True
    allowed[0] = True  # rejecting everybody is always possible (the only action when full)
    return CTMDP(tuple(matrices), reward_rates, allowed)


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
    mu_l = validation.positive("service_rate_l", service_rate_l) if two_dimensional else net.mu
    states = _state_count(net, two_dimensional)
    limits.require(
        "memory",
        BYTES_PER_STATE * states,
        parameter="net.servers",
        what=f"the admission MDP with {states} states (net.servers = {net.servers})",
    )
    if two_dimensional:
        busy, dimension = _class_states(net.servers, 2), (0, 1)
    else:
        busy, dimension = np.arange(net.servers + 1)[:, None], (0, 0)
    mdp = _admission_ctmdp(
        busy,
        net.servers,
        dimension,
        (mu_h, mu_l),
        (net.arrival_rate_h, net.arrival_rate_l),
        (net.r_h, net.r_l),
    )
    busy_l = busy[:, 1] if two_dimensional else np.zeros(busy.shape[0], dtype=int)
    return AdmissionMDP(mdp, busy[:, 0], busy_l, net.servers)


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


@dataclass(frozen=True)
class ClassAdmissionMDP:
    """The n-class admission MDP and the number in service of each class per state.

    Attributes
    ----------
    mdp : qtheory.exact.CTMDP
        Action a admits class j (0-based) iff bit n − 1 − j of a is set; rewards paid on
        admission.
    busy : numpy.ndarray of int, shape (states, n)
        b_1..b_n in each state.
    servers : int
        N.
    n_classes : int
        n.

    Examples
    --------
    >>> model = class_admission_mdp(ClassNetwork(2, (0.3, 0.9, 0.6), (3, 2, 1), 1.0))
    >>> model.busy.shape, model.mdp.n_actions
    ((10, 3), 8)
    """

    mdp: CTMDP
    busy: np.ndarray
    servers: int
    n_classes: int

    def admitted(self, policy: np.ndarray) -> np.ndarray:
        """Which classes each action of ``policy`` admits.

        Parameters
        ----------
        policy : numpy.ndarray of int
            One action per state.

        Returns
        -------
        numpy.ndarray of bool, shape (states, n)
            True where the state's action admits the class.

        Examples
        --------
        >>> model = class_admission_mdp(ClassNetwork(1, (0.3, 0.9, 0.6), (3, 2, 1), 1.0))
        >>> model.admitted(np.array([6, 0, 0, 0])).astype(int).tolist()[0]
        [1, 1, 0]
        """
        bits = self.n_classes - 1 - np.arange(self.n_classes)
        return (np.asarray(policy)[:, None] >> bits[None, :]) & 1 == 1


def class_admission_mdp(net, service_rates=None) -> ClassAdmissionMDP:
    """Build the n-class admission-control MDP on the number in service of each class.

    Parameters
    ----------
    net : ClassNetwork or LossNetwork
        The network.
    service_rates : sequence of float or None, optional
        μ_1..μ_n (one per class, > 0); None (default): ``net.mu`` for every class.

    Returns
    -------
    ClassAdmissionMDP
        The model with C(N + n, n) states and 2^n actions.

    Raises
    ------
    TypeError
        If ``net`` is not a network.
    ValueError
        If ``service_rates`` is not one positive finite rate per class, or the model
        would exceed the ``memory`` limit (checked before it is built).

    References
    ----------
    .. [1] M. L. Puterman, Markov Decision Processes (Wiley 1994).

    Examples
    --------
    >>> model = class_admission_mdp(ClassNetwork(3, (0.3, 0.9, 0.6), (3, 2, 1), 1.0))
    >>> model.mdp.n_states, model.mdp.n_actions
    (20, 8)
    """
    net = as_classes(net)
    n, k = net.servers, net.n_classes
    service = _service_rates(net, service_rates)
    actions = 2**k
    states = comb(n + k, k)
    limits.require(
        "memory",
        BYTES_PER_STATE * float(states) * actions / 4,
        parameter="net.servers",
        what=f"the {k}-class admission MDP with {states} states (net.servers = {n})",
    )
    busy = _class_states(n, k)
    mdp = _admission_ctmdp(busy, n, range(k), service, net.arrival_rates, net.rewards)
    return ClassAdmissionMDP(mdp, busy, n, k)


def _service_rates(net: ClassNetwork, service_rates) -> np.ndarray:
    if service_rates is None:
        return np.full(net.n_classes, net.mu)
    (service,) = class_vectors(service_rates=service_rates)
    if service.size != net.n_classes:
        raise ValueError(
            f"service_rates must hold one rate per class ({net.n_classes}), got {service.size}"
        )
    return service


@dataclass(frozen=True)
class ClassAdmissionOptimum:
    """Optimal online reward of the n-class MDP, with the fluid bound of the same model.

    Attributes
    ----------
    model : ClassAdmissionMDP
        The model solved.
    solution : qtheory.exact.MDPSolution
        Optimal gain, bias and policy.
    fluid : float
        The fluid LP bound with the same (per-class) service rates.

    Examples
    --------
    >>> opt = solve_class_mdp(ClassNetwork(8, (0.3, 0.9, 0.6), (3, 2, 1), 1.0))
    >>> opt.nested_reserves, round(opt.regret, 6)
    ((0, 0, 5), 3.691231)
    """

    model: ClassAdmissionMDP
    solution: MDPSolution
    fluid: float

    @property
    def online(self) -> float:
        """The optimal long-run reward rate (the MDP's gain).

        >>> round(solve_class_mdp(ClassNetwork(8, (0.3, 0.9, 0.6), (3, 2, 1), 1.0)).online, 6)
        14.708769
        """
        return self.solution.gain

    @property
    def regret(self) -> float:
        """The fluid bound minus the optimal gain.

        >>> round(solve_class_mdp(ClassNetwork(8, (0.3, 0.9, 0.6), (3, 2, 1), 1.0)).regret, 6)
        3.691231
        """
        return self.fluid - self.solution.gain

    @property
    def nested_reserves(self) -> tuple[int, ...] | None:
        """(k_1, …, k_n) if the optimal policy is nested trunk reservation on the busy
        count (class j admitted exactly in the states with more than k_j idle servers,
        0 = k_1 <= … <= k_n; k_j = N: never); None otherwise.

        Returns
        -------
        tuple of int or None
            The reserves, or None if the policy is not of that form.

        References
        ----------
        .. [1] B. L. Miller, Management Science 16(3):234-245 (1969).

        Examples
        --------
        >>> solve_class_mdp(ClassNetwork(8, (0.3, 0.9, 0.6), (3, 2, 1), 1.0)).nested_reserves
        (0, 0, 5)
        """
        model = self.model
        idle = model.servers - model.busy.sum(axis=1)
        room = idle > 0
        admitted = model.admitted(self.solution.policy)[room]
        idle = idle[room]
        reserves = []
        for j in range(model.n_classes):
            rejected = idle[~admitted[:, j]]
            reserve = int(rejected.max()) if rejected.size else 0
            if np.any(admitted[:, j] & (idle <= reserve)):
                return None
            reserves.append(reserve)
        if reserves[0] != 0 or any(np.diff(reserves) < 0):
            return None
        return tuple(reserves)


def solve_class_mdp(net, service_rates=None, method: str = "policy_iteration"):
    """Solve the n-class admission MDP by policy iteration or by the LP over occupation
    measures.

    Parameters
    ----------
    net : ClassNetwork or LossNetwork
        The network.
    service_rates : sequence of float or None, optional
        Per-class service rates (see :func:`class_admission_mdp`).
    method : {"policy_iteration", "lp"}, optional
        The solver of :mod:`qtheory.exact.mdp` (default policy iteration).

    Returns
    -------
    ClassAdmissionOptimum
        The model, its optimal solution and the fluid bound.

    Raises
    ------
    TypeError
        If ``net`` is not a network.
    ValueError
        If ``method`` is unknown, ``service_rates`` invalid, or the model exceeds the
        ``memory`` or ``dp_cells`` limits (checked before it is built).

    References
    ----------
    .. [1] B. L. Miller, Management Science 16(3):234-245 (1969).
    .. [2] M. L. Puterman, Markov Decision Processes (Wiley 1994).

    Examples
    --------
    >>> opt = solve_class_mdp(ClassNetwork(8, (0.3, 0.9, 0.6), (3, 2, 1), 1.0), method="lp")
    >>> round(opt.online, 6)
    14.708769
    """
    net = as_classes(net)
    solvers = {"policy_iteration": policy_iteration, "lp": linear_program}
    if method not in solvers:
        raise ValueError(f"method must be one of {sorted(solvers)}, got {method!r}")
    states = comb(net.servers + net.n_classes, net.n_classes)
    limits.require(
        "dp_cells",
        SOLVE_CELLS_PER_STATE * float(states) ** 1.5 * 2**net.n_classes / 4,
        parameter="net.servers",
        what=f"solving the {net.n_classes}-class admission MDP with {states} states "
        f"(net.servers = {net.servers})",
    )
    model = class_admission_mdp(net, service_rates)
    service = _service_rates(net, service_rates)
    fluid = fluid_lp(net.lambdas, net.rewards, service, net.servers)
    return ClassAdmissionOptimum(model, solvers[method](model.mdp), fluid.value)
