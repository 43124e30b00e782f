r"""Long-run average-reward continuous-time MDPs on finite state spaces (unichain).

Model
-----
States :math:`s = 0, \dots, n-1`, actions :math:`a = 0, \dots, A-1`.  Under action
:math:`a` in state :math:`s` the process jumps to :math:`s' \ne s` at rate
:math:`q_a(s, s') \ge 0` and earns reward at rate :math:`r_a(s)`; action :math:`a` is
available in :math:`s` iff ``allowed[a, s]``.  Lump-sum rewards paid on transitions
are folded into reward rates by the caller (a reward :math:`c` on each :math:`s \to
s'` jump adds :math:`c\, q_a(s, s')` to :math:`r_a(s)`).  A stationary deterministic
policy :math:`\pi` picks one available action per state; its gain :math:`g` (long-run
reward per unit time) and bias :math:`h` solve

.. math::

   g = r_{\pi(s)}(s) + \sum_{s'} q_{\pi(s)}(s, s') \bigl(h(s') - h(s)\bigr)
   \quad \text{for all } s, \qquad h(\text{reference}) = 0 .

*Unichain*: every stationary deterministic policy must have a single closed
(recurrent) class, so that :math:`g` is a constant.  The solvers check the policies
they evaluate and raise ``ValueError`` on a multichain one.

Algorithms
----------
:func:`policy_iteration` is Howard's algorithm on the uniformised model.  With any
:math:`\nu \ge \max_{s,a} q_a(s)` (exit rates :math:`q_a(s) = \sum_{s'} q_a(s,s')`),
the discrete-time MDP with transition matrix :math:`P_a = I + Q_a / \nu` and
reward :math:`r_a / \nu` per step has gain :math:`g / \nu` per step and the same bias
:math:`h` for every policy, and its improvement step maximises
:math:`r_a(s)/\nu + \sum_{s'} P_a(s, s') h(s') = h(s) + \bigl(r_a(s) + (Q_a h)(s)\bigr)/\nu`,
i.e. the continuous-time test quantity :math:`r_a(s) + (Q_a h)(s)`.  So the iterates
do not depend on :math:`\nu`, and the code evaluates policies with the
continuous-time equations above (one sparse LU solve of an ``n x n`` bordered
system per iteration) and improves with the continuous-time test quantity.  The
current action is kept unless another beats it by more than ``rtol`` times the
magnitude of the terms in the test quantity, so rounding cannot make it cycle;
each accepted switch then strictly increases the gain or, at equal gain, the bias
(Puterman, *Markov Decision Processes*, 1994, Sections 8.6 and 11.5), and the
algorithm stops after finitely many steps.

:func:`linear_program` solves the dual LP over occupation measures
:math:`x(s, a) \ge 0` (the long-run fraction of time spent in :math:`s` using
:math:`a`):

.. math::

   \max \sum_{s,a} r_a(s)\, x(s,a) \quad \text{s.t.} \quad
   \sum_{s,a} x(s,a)\, q_a(s,s') = 0 \ (\text{all } s'), \quad \sum_{s,a} x(s,a) = 1,

with :math:`q_a(s,s) = -q_a(s)`, by HiGHS (:func:`scipy.optimize.linprog`, sparse
constraints, one redundant balance equation dropped).

References
----------
.. [1] M. L. Puterman, Markov Decision Processes: Discrete Stochastic Dynamic
   Programming (Wiley 1994), Chapters 8 and 11 (average reward, uniformisation,
   policy iteration and linear programming).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sparse
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import linprog
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import spsolve

from qtheory.core import validation
from qtheory.exact.stationary import real_csr

__all__ = ["CTMDP", "MDPSolution", "evaluate_policy", "linear_program", "policy_iteration"]

#: Default relative tolerance below which policy iteration keeps the current action.
DEFAULT_RTOL = 1e-9
EPS = np.finfo(float).eps

#: HiGHS primal and dual feasibility tolerances used by :func:`linear_program`.
LP_TOLERANCE = 1e-10

#: States whose LP occupation :math:`\sum_a x(s, a)` is at most this are not resolved
#: by the LP (HiGHS returns such values only to within its tolerances, and they may be
#: slightly negative); :func:`linear_program` chooses their actions by policy
#: improvement instead.
OCCUPATION_RESOLUTION = 1e-8


def _rate_matrix(a: int, matrix, n: int | None) -> sparse.csr_matrix:
    name = f"rates[{a}]"
    if sparse.issparse(matrix):
        csr = real_csr(name, matrix)
    else:
        try:
            array = np.asarray(matrix)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{name} must be a 2-D array of real numbers: {exc}") from None
        if (
            np.iscomplexobj(array)
            or array.dtype == np.bool_
            or not np.issubdtype(array.dtype, np.number)
        ):
            raise ValueError(f"{name} must be a 2-D array of real numbers, got {array.dtype}")
        if array.ndim != 2:
            raise ValueError(f"{name} must be a square 2-D matrix, got shape {array.shape}")
        csr = sparse.csr_matrix(array.astype(np.float64))
    if csr.shape[0] != csr.shape[1] or csr.shape[0] == 0:
        raise ValueError(f"{name} must be a non-empty square matrix, got shape {csr.shape}")
    if n is not None and csr.shape != (n, n):
        raise ValueError(f"{name} must have the shape of rates[0], {(n, n)}, got shape {csr.shape}")
    csr.sum_duplicates()
    coo = csr.tocoo()
    bad = ~(np.isfinite(coo.data) & (coo.data >= 0))
    if bad.any():
        k = int(np.argmax(bad))
        raise ValueError(
            f"{name} must be finite and >= 0, got {name}[{coo.row[k]}, {coo.col[k]}] = "
            f"{float(coo.data[k])!r}"
        )
    diagonal = (coo.row == coo.col) & (coo.data != 0)
    if diagonal.any():
        k = int(np.argmax(diagonal))
        raise ValueError(
            f"{name} must hold off-diagonal rates only (zero diagonal), got "
            f"{name}[{coo.row[k]}, {coo.col[k]}] = {float(coo.data[k])!r}"
        )
    csr.eliminate_zeros()
    csr.sort_indices()
    return csr


@dataclass(frozen=True)
class CTMDP:
    r"""A finite continuous-time MDP with reward rates (see the module notes).

    Parameters
    ----------
    rates : sequence of (n, n) matrices, one per action
        ``rates[a][s, s']`` is the rate of :math:`s \to s'` under action :math:`a`:
        finite and >= 0, with a zero diagonal.  Any scipy.sparse format or dense;
        stored as a tuple of float64 ``scipy.sparse.csr_matrix``.
    rewards : array_like, shape (A, n)
        ``rewards[a, s]``: reward *rate* while in :math:`s` using :math:`a`.  Must be
        finite wherever the action is allowed; other entries are ignored.
    allowed : array_like of bool, shape (A, n), optional
        ``allowed[a, s]``: whether :math:`a` is available in :math:`s`.  Every state
        needs at least one.  Default: everything allowed.

    Raises
    ------
    ValueError
        If a shape disagrees, a rate is negative, NaN, infinite or on the diagonal, an
        allowed reward is not finite, or a state has no allowed action.

    References
    ----------
    See the module's References: Puterman (1994), Section 11.5.

    Examples
    --------
    Two states; in state 0 action 0 earns 1 per unit time and action 1 earns 0 but
    moves to state 1 (which earns 3) at rate 1; state 1 returns at rate 2.

    >>> import numpy as np
    >>> mdp = CTMDP(
    ...     rates=(np.zeros((2, 2)), np.array([[0.0, 1.0], [2.0, 0.0]])),
    ...     rewards=np.array([[1.0, 0.0], [0.0, 3.0]]),
    ...     allowed=np.array([[True, False], [True, True]]),
    ... )
    >>> mdp.n_states, mdp.n_actions
    (2, 2)
    """

    rates: tuple[sparse.csr_matrix, ...]
    rewards: NDArray[np.float64]
    allowed: NDArray[np.bool_] = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        rates = self.rates
        if sparse.issparse(rates) or isinstance(rates, np.ndarray) and rates.ndim == 2:
            raise ValueError("rates must be a sequence of matrices, one per action")
        try:
            rates = tuple(rates)
        except TypeError:
            raise ValueError("rates must be a sequence of matrices, one per action") from None
        if not rates:
            raise ValueError("rates must hold at least one action's rate matrix")
        matrices: list[sparse.csr_matrix] = []
        for a, matrix in enumerate(rates):
            matrices.append(_rate_matrix(a, matrix, matrices[0].shape[0] if matrices else None))
        n, actions = matrices[0].shape[0], len(matrices)

        if self.allowed is None:
            allowed = np.ones((actions, n), dtype=bool)
        else:
            allowed = np.asarray(self.allowed)
            if allowed.dtype != np.bool_:
                raise ValueError(f"allowed must be a boolean array, got dtype {allowed.dtype}")
            if allowed.shape != (actions, n):
                raise ValueError(
                    f"allowed must have shape (actions, states) = {(actions, n)}, got shape "
                    f"{allowed.shape}"
                )
            allowed = allowed.copy()
        stuck = ~allowed.any(axis=0)
        if stuck.any():
            raise ValueError(
                f"allowed must allow at least one action in every state, but state "
                f"{int(np.argmax(stuck))} has none"
            )

        try:
            rewards = np.array(self.rewards, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError("rewards must be a real (actions, states) array") from None
        if rewards.shape != (actions, n):
            raise ValueError(
                f"rewards must have shape (actions, states) = {(actions, n)}, got shape "
                f"{rewards.shape}"
            )
        bad = allowed & ~np.isfinite(rewards)
        if bad.any():
            a, s = np.argwhere(bad)[0]
            raise ValueError(
                f"rewards must be finite where the action is allowed, got rewards[{a}, {s}] "
                f"= {rewards[a, s]!r}"
            )
        rewards[~allowed] = 0.0  # never read; keeps arithmetic on them harmless
        rewards.flags.writeable = False
        allowed.flags.writeable = False
        object.__setattr__(self, "rates", tuple(matrices))
        object.__setattr__(self, "rewards", rewards)
        object.__setattr__(self, "allowed", allowed)

    @property
    def n_states(self) -> int:
        """Number of states ``n``.

        Returns
        -------
        int

        Examples
        --------
        >>> CTMDP(rates=(np.zeros((3, 3)),), rewards=np.zeros((1, 3))).n_states
        3
        """
        return self.rates[0].shape[0]

    @property
    def n_actions(self) -> int:
        """Number of actions ``A``.

        Returns
        -------
        int

        Examples
        --------
        >>> CTMDP(rates=(np.zeros((3, 3)),), rewards=np.zeros((1, 3))).n_actions
        1
        """
        return len(self.rates)

    def exit_rates(self) -> NDArray[np.float64]:
        r"""Total rate out of each state under each action, shape (A, n).

        :math:`q_a(s) = \sum_{s' \ne s} q_a(s, s')`, computed for every pair, allowed
        or not.

        Returns
        -------
        numpy.ndarray, shape (A, n)
            ``exit_rates()[a, s]`` is :math:`q_a(s)`.

        Examples
        --------
        >>> mdp = CTMDP(
        ...     rates=(np.zeros((2, 2)), np.array([[0.0, 1.0], [2.0, 0.0]])),
        ...     rewards=np.zeros((2, 2)),
        ... )
        >>> mdp.exit_rates().tolist()
        [[0.0, 0.0], [1.0, 2.0]]
        """
        return np.vstack([np.asarray(m.sum(axis=1)).ravel() for m in self.rates])


@dataclass(frozen=True)
class MDPSolution:
    """Result of :func:`policy_iteration` or :func:`linear_program`.

    Attributes
    ----------
    gain : float
        Optimal long-run average reward per unit time.
    bias : numpy.ndarray, shape (n,)
        Relative value function :math:`h` of ``policy``, with ``h[reference_state] = 0``.
    policy : numpy.ndarray of int, shape (n,)
        An optimal action per state.
    iterations : int
        Policy evaluations (policy iteration) or simplex/IPM iterations (LP).

    Examples
    --------
    >>> sol = MDPSolution(gain=1.5, bias=np.zeros(2), policy=np.array([0, 1]), iterations=2)
    >>> sol.gain, sol.policy.tolist()
    (1.5, [0, 1])
    """

    gain: float
    bias: NDArray[np.float64]
    policy: NDArray[np.int64]
    iterations: int


# ---------------------------------------------------------------------------
# validation helpers


def _check_mdp(mdp) -> CTMDP:
    if not isinstance(mdp, CTMDP):
        raise ValueError(f"mdp must be a CTMDP, got {type(mdp).__name__}")
    return mdp


def _check_state(name: str, state, n: int) -> int:
    if isinstance(state, bool) or not isinstance(state, int | np.integer):
        raise ValueError(f"{name} must be a state index (integer), got {state!r}")
    if not 0 <= state < n:
        raise ValueError(f"{name} must be in 0..{n - 1}, got {state}")
    return int(state)


def _check_policy(mdp: CTMDP, policy: ArrayLike, name: str = "policy") -> NDArray[np.int64]:
    array = np.asarray(policy)
    n, actions = mdp.n_states, mdp.n_actions
    if array.shape != (n,):
        raise ValueError(f"{name} must have shape ({n},), got shape {array.shape}")
    if not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"{name} must hold integer actions, got dtype {array.dtype}")
    outside = (array < 0) | (array >= actions)
    if outside.any():
        s = int(np.argmax(outside))
        raise ValueError(
            f"{name} must hold actions in 0..{actions - 1}, got {name}[{s}] = {array[s]}"
        )
    array = array.astype(np.int64)
    forbidden = ~mdp.allowed[array, np.arange(n)]
    if forbidden.any():
        s = int(np.argmax(forbidden))
        raise ValueError(
            f"{name} must use allowed actions, but action {array[s]} is not allowed in state {s}"
        )
    return array


# ---------------------------------------------------------------------------
# policy evaluation


def _policy_rates(mdp: CTMDP, policy: NDArray[np.int64]) -> sparse.csr_matrix:
    """Off-diagonal rate matrix of the chain under ``policy`` (rows picked per action)."""
    n = mdp.n_states
    total = None
    for a, matrix in enumerate(mdp.rates):
        chosen = policy == a
        if not chosen.any():
            continue
        part = sparse.diags_array(chosen.astype(np.float64)) @ matrix
        total = part if total is None else total + part
    out = sparse.csr_matrix(total, shape=(n, n))
    out.eliminate_zeros()
    return out


def _check_unichain(rates: sparse.csr_matrix) -> None:
    """Raise ValueError if the chain has more than one closed class."""
    count, labels = connected_components(rates, directed=True, connection="strong")
    if count == 1:
        return
    coo = rates.tocoo()
    leaving = labels[coo.row] != labels[coo.col]
    open_class = np.zeros(count, dtype=bool)
    open_class[labels[coo.row[leaving]]] = True
    closed = np.flatnonzero(~open_class)
    if closed.size > 1:
        first = int(np.argmax(labels == closed[0]))
        second = int(np.argmax(labels == closed[1]))
        raise ValueError(
            f"policy must be unichain (one closed class), but it has {closed.size} closed "
            f"classes, e.g. those of states {first} and {second}; these solvers assume a "
            "unichain MDP"
        )


def _evaluate(
    mdp: CTMDP, policy: NDArray[np.int64], reference: int
) -> tuple[float, NDArray[np.float64]]:
    n = mdp.n_states
    rates = _policy_rates(mdp, policy)
    _check_unichain(rates)
    exit_rates = np.asarray(rates.sum(axis=1)).ravel()
    reward = mdp.rewards[policy, np.arange(n)]
    # row s:  g + q(s) h(s) - sum_{s'} q(s,s') h(s') = r(s); unknown h[reference] is
    # replaced by g (h[reference] = 0), i.e. column `reference` becomes all ones.
    coo = rates.tocoo()
    keep = coo.col != reference
    rows = np.concatenate([coo.row[keep], np.arange(n), np.arange(n)])
    cols = np.concatenate([coo.col[keep], np.arange(n), np.full(n, reference)])
    diagonal = np.where(np.arange(n) == reference, 0.0, exit_rates)
    data = np.concatenate([-coo.data[keep], diagonal, np.ones(n)])
    system = sparse.csc_matrix((data, (rows, cols)), shape=(n, n))
    solution = np.atleast_1d(spsolve(system, reward))
    if not np.all(np.isfinite(solution)):  # pragma: no cover - excluded by the unichain check
        raise FloatingPointError("policy evaluation: the linear system is singular")
    gain = float(solution[reference])
    bias = solution.copy()
    bias[reference] = 0.0
    return gain, bias


def evaluate_policy(
    mdp: CTMDP, policy: ArrayLike, reference_state: int = 0
) -> tuple[float, NDArray[np.float64]]:
    r"""Gain and bias of a stationary deterministic policy.

    Parameters
    ----------
    mdp : CTMDP
        The model.
    policy : array_like of int, shape (n,)
        An allowed action per state.
    reference_state : int, optional
        State whose bias is set to 0 (default 0).

    Returns
    -------
    gain : float
        Long-run average reward per unit time (the same from every initial state).
    bias : numpy.ndarray, shape (n,)
        :math:`h` with ``h[reference_state] = 0`` solving
        :math:`g = r(s) + \sum_{s'} q(s,s') (h(s') - h(s))` for every state :math:`s`
        (one sparse LU solve).

    Raises
    ------
    ValueError
        If ``mdp`` is not a :class:`CTMDP`, ``policy`` has the wrong shape or uses a
        disallowed action, ``reference_state`` is out of range, or the policy is not
        unichain (the message names states in two different closed classes).

    References
    ----------
    See the module's References: Puterman (1994), Chapter 8 (evaluation equations).

    Examples
    --------
    Always staying in state 0 earns 1; moving on earns
    :math:`(2 \cdot 0 + 1 \cdot 3) / 3 = 1` as well (fractions of time 2/3 and 1/3).

    >>> import numpy as np
    >>> mdp = CTMDP(
    ...     rates=(np.zeros((2, 2)), np.array([[0.0, 1.0], [2.0, 0.0]])),
    ...     rewards=np.array([[1.0, 0.0], [0.0, 3.0]]),
    ...     allowed=np.array([[True, False], [True, True]]),
    ... )
    >>> gain, bias = evaluate_policy(mdp, [1, 1])
    >>> round(gain, 12), bias.round(12)
    (1.0, array([0., 1.]))
    """
    mdp = _check_mdp(mdp)
    reference = _check_state("reference_state", reference_state, mdp.n_states)
    return _evaluate(mdp, _check_policy(mdp, policy), reference)


# ---------------------------------------------------------------------------
# policy iteration


def _test_values(
    mdp: CTMDP, exit_rates: NDArray[np.float64], bias: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Test quantities r_a(s) + (Q_a h)(s), shape (A, n), -inf where not allowed, and
    the magnitude (R_a |h|)(s) + q_a(s) |h(s)| of the terms that carry the bias's
    numerical error (rewards are exact data: a reward shared by every action, however
    large, must not widen the tie margin)."""
    size = np.abs(bias)
    values = np.empty((mdp.n_actions, mdp.n_states))
    scale = np.empty_like(values)
    for a, matrix in enumerate(mdp.rates):
        values[a] = mdp.rewards[a] + matrix @ bias - exit_rates[a] * bias
        scale[a] = matrix @ size + exit_rates[a] * size + 64 * EPS * np.abs(mdp.rewards[a])
    values[~mdp.allowed] = -np.inf
    scale[~mdp.allowed] = 0.0
    return values, scale


def _improve(
    mdp: CTMDP,
    exit_rates: NDArray[np.float64],
    policy: NDArray[np.int64],
    bias: NDArray[np.float64],
    rtol: float,
    states: NDArray[np.bool_] | None = None,
) -> NDArray[np.int64]:
    """One improvement step: switch to the best action wherever it beats the current
    one by more than ``rtol`` times the magnitude of the terms (on ``states`` only,
    if given)."""
    n = mdp.n_states
    values, scale = _test_values(mdp, exit_rates, bias)
    best = np.argmax(values, axis=0)
    current = values[policy, np.arange(n)]
    margin = rtol * scale.max(axis=0)
    switch = values[best, np.arange(n)] > current + margin
    if states is not None:
        switch &= states
    return np.where(switch, best, policy)


def _initial_policy(mdp: CTMDP) -> NDArray[np.int64]:
    """Greedy for the immediate reward rate (lowest action index on ties)."""
    masked = np.where(mdp.allowed, mdp.rewards, -np.inf)
    return np.argmax(masked, axis=0).astype(np.int64)


def policy_iteration(
    mdp: CTMDP,
    initial_policy: ArrayLike | None = None,
    reference_state: int = 0,
    max_iterations: int = 1000,
    *,
    rtol: float = DEFAULT_RTOL,
) -> MDPSolution:
    r"""Optimal gain, bias and policy by Howard's policy iteration.

    Parameters
    ----------
    mdp : CTMDP
        A unichain model.
    initial_policy : array_like of int, shape (n,), optional
        Starting policy; default: in each state the allowed action with the largest
        reward rate.
    reference_state : int, optional
        State whose bias is 0 (default 0).
    max_iterations : int, optional
        Maximum number of policy evaluations (default 1000).
    rtol : float, optional
        An action replaces the current one only if its test quantity
        :math:`r_a(s) + (Q_a h)(s)` is larger by more than ``rtol`` times the
        magnitude of the terms in it (default 1e-9).  Smaller differences are
        treated as ties, so rounding cannot make the algorithm cycle.

    Returns
    -------
    MDPSolution
        ``gain`` and ``bias`` are those of the final ``policy``; ``iterations`` is the
        number of policy evaluations.  The final policy satisfies the optimality
        equation :math:`g = \max_a [r_a(s) + (Q_a h)(s)]` to within ``rtol``, or (when
        rounding makes the iteration return to a policy it has already evaluated, which
        exact policy iteration never does) to within the bias's rounding error: the
        policy of largest gain on that cycle is returned.

    Raises
    ------
    ValueError
        If ``mdp`` is not a :class:`CTMDP`, on an invalid ``initial_policy``,
        ``reference_state``, ``max_iterations`` or ``rtol``, or if a policy met on the
        way is multichain.
    RuntimeError
        If the policy still changes after ``max_iterations`` evaluations.

    References
    ----------
    See the module's References: Puterman (1994), Sections 8.6 and 11.5.

    Examples
    --------
    In state 0, moving on (action 1) is worth more than staying (action 0) once
    state 1 earns 4: gain :math:`(2 \cdot 0 + 1 \cdot 4)/3 = 4/3 > 1`.

    >>> import numpy as np
    >>> mdp = CTMDP(
    ...     rates=(np.zeros((2, 2)), np.array([[0.0, 1.0], [2.0, 0.0]])),
    ...     rewards=np.array([[1.0, 0.0], [0.0, 4.0]]),
    ...     allowed=np.array([[True, False], [True, True]]),
    ... )
    >>> solution = policy_iteration(mdp)
    >>> solution.policy, round(solution.gain * 3, 12), solution.iterations
    (array([1, 1]), 4.0, 2)
    """
    mdp = _check_mdp(mdp)
    n = mdp.n_states
    reference = _check_state("reference_state", reference_state, n)
    max_iterations = validation.positive_int("max_iterations", max_iterations)
    if not (isinstance(rtol, int | float | np.floating) and 0 <= rtol < 1):
        raise ValueError(f"rtol must be a number in [0, 1), got {rtol!r}")
    if initial_policy is None:
        policy = _initial_policy(mdp)
    else:
        policy = _check_policy(mdp, initial_policy, "initial_policy")
    exit_rates = mdp.exit_rates()
    visited: dict[bytes, MDPSolution] = {}
    for iteration in range(1, int(max_iterations) + 1):
        gain, bias = _evaluate(mdp, policy, reference)
        visited[policy.tobytes()] = MDPSolution(gain, bias, policy, iteration)
        improved = _improve(mdp, exit_rates, policy, bias, float(rtol))
        if np.array_equal(improved, policy):
            return visited[policy.tobytes()]
        if improved.tobytes() in visited:
            # Exact policy iteration never returns to a policy (gain, then bias, improve
            # strictly), so a cycle means that the policies on it differ by rounding only:
            # their test quantities tie to within the bias's evaluation error.  Keep the
            # one of largest gain.
            cycle = list(visited.values())[list(visited).index(improved.tobytes()) :]
            best = max(cycle, key=lambda solution: solution.gain)
            return MDPSolution(best.gain, best.bias, best.policy, iteration)
        policy = improved
    raise RuntimeError(
        f"policy iteration did not converge in max_iterations = {max_iterations} evaluations"
    )


# ---------------------------------------------------------------------------
# linear programming


def linear_program(mdp: CTMDP, reference_state: int = 0) -> MDPSolution:
    r"""Optimal gain and policy from the LP over occupation measures (HiGHS).

    Parameters
    ----------
    mdp : CTMDP
        A unichain model.
    reference_state : int, optional
        State whose bias is 0 (default 0).

    Returns
    -------
    MDPSolution
        ``policy``: from the LP optimum (HiGHS, primal and dual feasibility
        tolerances :data:`LP_TOLERANCE` = 1e-10), on each state whose occupation
        :math:`\sum_a x(s,a)` exceeds :data:`OCCUPATION_RESOLUTION` (1e-8), the action
        with the largest :math:`x(s,a)`.  On the other states -- transient ones, and
        recurrent ones too rare for the LP to resolve (their :math:`x` is at the
        level of HiGHS's tolerances, so the LP's choice there is arbitrary) -- the
        actions are completed by policy improvement using the bias of the policy so
        far, repeated until they no longer change (usually once or twice), with the
        resolved states' actions held fixed.  On transient states this cannot change
        the gain, and an improvement step never lowers it.  ``gain`` and ``bias`` are
        those of the returned policy (:func:`evaluate_policy`, one sparse solve), so
        they satisfy the evaluation equations together; ``gain`` equals the LP
        optimum up to HiGHS's tolerances, but is exact for the policy, whereas the LP
        objective is only accurate to about ``LP_TOLERANCE`` times the scale of the
        rates and rewards (it reports 0 for a gain of 2e-9 earned through a rate of
        2e-9, say).  ``iterations`` is HiGHS's iteration count.

    Raises
    ------
    ValueError
        If ``mdp`` is not a :class:`CTMDP`, on an invalid ``reference_state``, or if
        the policy found is multichain.
    RuntimeError
        If HiGHS does not report an optimal solution.

    References
    ----------
    See the module's References: Puterman (1994), Chapter 8 (the dual LP over occupation
    measures).

    Examples
    --------
    The model of :func:`policy_iteration`: the LP picks the same policy and gain 4/3.

    >>> import numpy as np
    >>> mdp = CTMDP(
    ...     rates=(np.zeros((2, 2)), np.array([[0.0, 1.0], [2.0, 0.0]])),
    ...     rewards=np.array([[1.0, 0.0], [0.0, 4.0]]),
    ...     allowed=np.array([[True, False], [True, True]]),
    ... )
    >>> solution = linear_program(mdp)
    >>> solution.policy, round(solution.gain * 3, 9)
    (array([1, 1]), 4.0)
    """
    mdp = _check_mdp(mdp)
    n, actions = mdp.n_states, mdp.n_actions
    reference = _check_state("reference_state", reference_state, n)
    exit_rates = mdp.exit_rates()

    # one variable per allowed pair (s, a), ordered by action then state; its column
    # in the balance equations is row s of the generator Q_a
    pair_action, pair_state = np.nonzero(mdp.allowed)
    blocks = []
    for a, matrix in enumerate(mdp.rates):
        states = np.flatnonzero(mdp.allowed[a])
        generator_rows = matrix[states] - sparse.csr_matrix(
            (exit_rates[a, states], (np.arange(states.size), states)), shape=(states.size, n)
        )
        blocks.append(generator_rows)
    columns = sparse.vstack(blocks, format="csr")  # (pairs, n): row k is row s of Q_a
    balance = columns.T.tocsr()[:-1]  # the n balance equations sum to 0: drop one
    normalisation = sparse.csr_matrix(np.ones((1, pair_state.size)))
    constraints = sparse.vstack([balance, normalisation], format="csc")
    rhs = np.zeros(n)
    rhs[-1] = 1.0
    result = linprog(
        -mdp.rewards[pair_action, pair_state],
        A_eq=constraints,
        b_eq=rhs,
        bounds=(0, None),
        method="highs",
        options={
            "primal_feasibility_tolerance": LP_TOLERANCE,
            "dual_feasibility_tolerance": LP_TOLERANCE,
        },
    )
    if result.status != 0:
        raise RuntimeError(f"linear_program: HiGHS did not solve the LP: {result.message}")
    occupation = np.zeros((actions, n))
    occupation[pair_action, pair_state] = result.x
    resolved = occupation.sum(axis=0) > OCCUPATION_RESOLUTION
    # unresolved states start from their lowest allowed action
    policy = np.where(resolved, np.argmax(occupation, axis=0), np.argmax(mdp.allowed, axis=0))
    policy = policy.astype(np.int64)
    gain, bias = _evaluate(mdp, policy, reference)
    for _ in range(n + 1):  # policy iteration on the unresolved states only
        if resolved.all():
            break
        improved = _improve(mdp, exit_rates, policy, bias, DEFAULT_RTOL, states=~resolved)
        if np.array_equal(improved, policy):
            break
        policy = improved
        gain, bias = _evaluate(mdp, policy, reference)
    return MDPSolution(gain=gain, bias=bias, policy=policy, iterations=int(result.nit))
