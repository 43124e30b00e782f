r"""The online optimum as a full average-reward MDP, solved by the exact engine.

This route assumes nothing about the form of the optimal policy: in every state the
controller may admit or reject each of the n classes (action :math:`a` admits class
:math:`j` iff bit :math:`n - j` of :math:`a` is set: for two classes
``2*admit_H + admit_L``, 0 rejects both, 3 admits both), and all :math:`2^n` subsets
are allowed wherever a server is idle.  Rewards are paid on admission, so an admitting
action earns the reward rate :math:`\lambda_j N r_j` of each class it admits.  It checks
the trunk-reservation search of :mod:`qtheory.lossnet.online` (Miller 1969: the optimum
is nested trunk reservation) and extends to per-class service rates.

The state: with a common :math:`\mu` the number of busy servers :math:`b` (N + 1 states;
it is a sufficient state because every job leaves at the same rate); with per-class
service rates (``service_rates``) the number in service of each class,
:math:`(b_1, \dots, b_n)` with :math:`\sum_j b_j \le N` (:math:`\binom{N+n}{n}`
states).  Passing the common rate as ``service_rates`` builds the per-class state anyway,
a check of that sufficiency.  :attr:`AdmissionOptimum.reserves` reports whether the
optimal policy found is nested trunk reservation (the tests find it is for every network
tried with n = 3, N <= 30, the marginal class in the middle or last).

Cost: :func:`admission_mdp` refuses (``ValueError`` naming ``net``) a model whose memory
(:data:`BYTES_PER_STATE` per state and four actions) exceeds the ``memory`` limit, and
:func:`solve_admission_mdp` one whose solves (about :data:`SOLVE_CELLS_PER_STATE`
times states^1.5 cells per four actions: sparse LU of a grid fills in like n^1.5)
exceed ``dp_cells`` (:mod:`qtheory.core.limits`).

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

from qtheory.core import limits
from qtheory.exact.mdp import CTMDP, MDPSolution, linear_program, policy_iteration
from qtheory.lossnet.fluid import fluid_lp, per_class_vectors
from qtheory.model.lossnet import LossNetwork, as_network

__all__ = [
    "AdmissionMDP",
    "AdmissionOptimum",
    "admission_mdp",
    "solve_admission_mdp",
]

#: Memory of the model per state, in bytes: the state index (a dict of tuples, about
#: 250 bytes), four sparse rate matrices of up to four entries a row, rewards and masks.
BYTES_PER_STATE = 600

#: Policy iterations budgeted by the cost estimate of :func:`solve_admission_mdp`.
SOLVE_CELLS_PER_STATE = 20


@dataclass(frozen=True)
class AdmissionMDP:
    """The admission-control MDP and the number in service in each state.

    Attributes
    ----------
    mdp : qtheory.exact.CTMDP
        Action a admits class j (0-based) iff bit n − 1 − j of a is set; rewards paid on
        admission.
    busy : numpy.ndarray of int, shape (states, 1) or (states, n)
        The busy count b (common μ) or b_1..b_n (per-class service rates) in each state.
    servers : int
        N.
    n_classes : int
        n.

    References
    ----------
    See the module's References: Puterman (1994).

    Examples
    --------
    >>> model = admission_mdp(LossNetwork(2, (0.3, 0.9, 0.6), (3, 2, 1), 1.0), [1, 1, 1])
    >>> model.busy.shape, model.mdp.n_actions
    ((10, 3), 8)
    >>> admission_mdp(LossNetwork(2, 0.6, 0.8, 1.0, 2.0, 1.0)).busy[:, 0].tolist()
    [0, 1, 2]
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
        >>> model = admission_mdp(LossNetwork(1, (0.3, 0.9, 0.6), (3, 2, 1), 1.0))
        >>> model.admitted(np.array([6, 0])).astype(int).tolist()
        [[1, 1, 0], [0, 0, 0]]
        """
        bits = self.n_classes - 1 - np.arange(self.n_classes)
        return (np.asarray(policy)[:, None] >> bits[None, :]) & 1 == 1


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


def _service_rates(net: LossNetwork, service_rates) -> np.ndarray | None:
    """The per-class service rates checked (None: the common μ)."""
    if service_rates is None:
        return None
    (service,) = per_class_vectors(service_rates=service_rates)
    if service.size != net.n_classes:
        raise ValueError(
            f"service_rates must hold one rate per class ({net.n_classes}), got {service.size}"
        )
    return service


def _state_count(net: LossNetwork, per_class: bool) -> int:
    return comb(net.servers + net.n_classes, net.n_classes) if per_class else net.servers + 1


def admission_mdp(net: LossNetwork, service_rates=None) -> AdmissionMDP:
    """Build the admission-control MDP of the loss network (module docstring).

    Parameters
    ----------
    net : LossNetwork
        The network.
    service_rates : sequence of float or None, optional
        μ_1..μ_n (one per class, > 0): the state counts each class in service
        (C(N + n, n) states); None (default): every job at ``net.mu``, the state is the
        busy count (N + 1 states).

    Returns
    -------
    AdmissionMDP
        The model, with 2^n actions.

    Raises
    ------
    TypeError
        If ``net`` is not a network.
    ValueError
        If ``service_rates`` is not one positive finite rate per class, or the model
        would exceed the ``memory`` limit (checked before it is built).

    References
    ----------
    See the module's References: Puterman (1994).

    Examples
    --------
    >>> model = admission_mdp(LossNetwork(3, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> model.mdp.rewards.shape
    (4, 4)
    >>> model = admission_mdp(LossNetwork(3, (0.3, 0.9, 0.6), (3, 2, 1), 1.0), [1, 1, 2])
    >>> model.mdp.n_states, model.mdp.n_actions
    (20, 8)
    """
    net = as_network(net)
    n, k = net.servers, net.n_classes
    service = _service_rates(net, service_rates)
    states = _state_count(net, service is not None)
    limits.require(
        "memory",
        BYTES_PER_STATE * float(states) * 2**k / 4,
        parameter="net.servers",
        what=f"the {k}-class admission MDP with {states} states (net.servers = {n})",
    )
    if service is None:
        busy, dimension, service = np.arange(n + 1)[:, None], (0,) * k, (net.mu,) * k
    else:
        busy, dimension = _class_states(n, k), range(k)
    mdp = _admission_ctmdp(busy, n, dimension, service, net.arrival_rates, net.rewards)
    return AdmissionMDP(mdp, busy, n, k)


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
        The fluid LP bound with the same (per-class) service rates.

    References
    ----------
    See the module's References: Miller (1969).

    .. [1] X. Xie, I. Gurvich and S. Küçükyavuz, "Dynamic allocation of reusable
       resources: logarithmic regret in overloaded networks", Operations Research
       73(4) (2025).

    Examples
    --------
    N = 20, λ_H = 0.6, λ_L = 0.8, μ = 1, r_H = 2, r_L = 1: the fluid bound is
    N (λ_H r_H + (μ − λ_H) r_L) = 32, and the optimum is trunk reservation with
    reserve 2 (the birth-death chain with birth rates 12 + 16·[N − b > 2] and death
    rates b gives the same regret).

    >>> opt = solve_admission_mdp(LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> opt.reserves, round(opt.regret, 6), round(opt.fluid, 9)
    ((0, 2), 3.814307, 32.0)
    >>> opt = solve_admission_mdp(LossNetwork(8, (0.3, 0.9, 0.6), (3, 2, 1), 1.0))
    >>> opt.reserves, round(opt.regret, 6)
    ((0, 0, 5), 3.691231)
    """

    model: AdmissionMDP
    solution: MDPSolution
    fluid: float

    @property
    def online(self) -> float:
        """The optimal long-run reward rate (the MDP's gain).

        >>> opt = solve_admission_mdp(LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0))
        >>> round(opt.online, 6)  # 32 - 3.814307
        28.185693
        """
        return self.solution.gain

    @property
    def regret(self) -> float:
        """The fluid bound minus the optimal gain (non-negative: the fluid bound is an
        upper bound).

        >>> opt = solve_admission_mdp(LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0))
        >>> round(opt.regret, 6)
        3.814307
        """
        return self.fluid - self.solution.gain

    @property
    def reserves(self) -> tuple[int, ...] | None:
        """(k_1, …, k_n) if the optimal policy is nested trunk reservation on the busy
        count (class j admitted exactly in the states with more than k_j idle servers,
        0 = k_1 <= … <= k_n; k_j = N: never); None otherwise (e.g. with per-class
        service rates, where the optimum may depend on the mix in service).

        References
        ----------
        See the module's References: Miller (1969).

        Examples
        --------
        >>> solve_admission_mdp(LossNetwork(8, (0.3, 0.9, 0.6), (3, 2, 1), 1.0)).reserves
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

    @property
    def reserve(self) -> int | None:
        """k, class L's reserve, if the two-class optimum is trunk reservation (H admitted
        whenever a server is idle, L exactly while more than k are); None otherwise.

        >>> solve_admission_mdp(LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0)).reserve
        2
        """
        if self.model.n_classes != 2:
            raise AttributeError(
                f"reserve is class L's reserve of two classes; with {self.model.n_classes} "
                "classes read reserves"
            )
        reserves = self.reserves
        return None if reserves is None else reserves[1]


def solve_admission_mdp(
    net: LossNetwork, service_rates=None, method: str = "policy_iteration"
) -> AdmissionOptimum:
    """Solve the admission MDP by policy iteration or by the LP over occupation measures.

    Parameters
    ----------
    net : LossNetwork
        The network.
    service_rates : sequence of float or None, optional
        Per-class service rates (see :func:`admission_mdp`).
    method : {"policy_iteration", "lp"}, optional
        The solver of :mod:`qtheory.exact.mdp` (default policy iteration).

    Returns
    -------
    AdmissionOptimum
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
    See the module's References:

    - Miller (1969);
    - Puterman (1994).

    Examples
    --------
    >>> opt = solve_admission_mdp(LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> opt.reserve
    2
    >>> net = LossNetwork(8, (0.3, 0.9, 0.6), (3, 2, 1), 1.0)
    >>> round(solve_admission_mdp(net, [1, 1, 1], method="lp").online, 6)
    14.708769
    """
    net = as_network(net)
    solvers = {"policy_iteration": policy_iteration, "lp": linear_program}
    if method not in solvers:
        raise ValueError(f"method must be one of {sorted(solvers)}, got {method!r}")
    service = _service_rates(net, service_rates)
    states = _state_count(net, service is not None)
    limits.require(
        "dp_cells",
        SOLVE_CELLS_PER_STATE * float(states) ** 1.5 * 2**net.n_classes / 4,
        parameter="net.servers",
        what=f"solving the {net.n_classes}-class admission MDP with {states} states "
        f"(net.servers = {net.servers})",
    )
    model = admission_mdp(net, service)
    rates = np.full(net.n_classes, net.mu) if service is None else service
    fluid = fluid_lp(net.lambdas, net.rewards, rates, net.servers)
    return AdmissionOptimum(model, solvers[method](model.mdp), fluid.value)
