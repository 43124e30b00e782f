"""Tests of the average-reward CTMDP solvers: a hand-solved model, policy iteration
against the LP and against brute-force enumeration of all deterministic policies, and
an admission-control model whose optimum is a threshold (trunk reservation) policy,
checked against an exhaustive threshold search on the birth-death chain."""

from __future__ import annotations

import itertools
from dataclasses import FrozenInstanceError

import numpy as np
import pytest
import scipy.sparse as sparse
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.sparse.csgraph import breadth_first_order

from qtheory.exact import (
    CTMDP,
    MDPSolution,
    birth_death_stationary,
    evaluate_policy,
    linear_program,
    policy_iteration,
)
from qtheory.exact.mdp import _policy_rates

# ---------------------------------------------------------------------------
# models


def two_state(stay_reward: float, away_reward: float, go: float, back: float) -> CTMDP:
    """State 0: action 0 stays and earns ``stay_reward``; action 1 earns 0 and moves
    to state 1 at rate ``go``.  State 1 earns ``away_reward`` and returns at rate
    ``back`` (both actions alike)."""
    return CTMDP(
        rates=(
            np.array([[0.0, 0.0], [back, 0.0]]),
            np.array([[0.0, go], [back, 0.0]]),
        ),
        rewards=np.array([[stay_reward, away_reward], [0.0, away_reward]]),
    )


def admission(servers, arrival_h, arrival_l, service, reward_h, reward_l, choose_h=False):
    """Loss system with ``servers`` servers (states 0..N busy), H and L Poisson
    arrivals, Exp(service) holding times; reward on admission, folded into reward
    rates.  Actions: admit L or not (and, with ``choose_h``, admit H or not)."""
    n = servers + 1
    s = np.arange(n)
    free = s < servers
    down = sparse.csr_matrix((s[1:] * service, (s[1:], s[:-1])), shape=(n, n))
    options = [(1, 0), (1, 1)] if not choose_h else [(0, 0), (0, 1), (1, 0), (1, 1)]
    rates, rewards = [], []
    for admit_h, admit_l in options:
        up = (admit_h * arrival_h + admit_l * arrival_l) * free
        rates.append(sparse.csr_matrix((up[:-1], (s[:-1], s[1:])), shape=(n, n)) + down)
        rewards.append((admit_h * reward_h * arrival_h + admit_l * reward_l * arrival_l) * free)
    return CTMDP(tuple(rates), np.array(rewards))


def threshold_search(servers, arrival_h, arrival_l, service, reward_h, reward_l):
    """Best trunk-reservation policy (admit L iff fewer than c servers busy) by direct
    evaluation of every c on the birth-death chain: returns (gain, best c's)."""
    gains = []
    s = np.arange(servers)
    for c in range(servers + 1):
        birth = arrival_h + arrival_l * (s < c)
        pi = birth_death_stationary(birth, (s + 1) * service)
        reward = (reward_h * arrival_h + reward_l * arrival_l * (s < c)) @ pi[:-1]
        gains.append(reward)
    gains = np.array(gains)
    return gains.max(), np.flatnonzero(gains >= gains.max() * (1 - 1e-12))


def two_class(servers, arrival_h, arrival_l, service_h, service_l, reward_h, reward_l):
    """Two classes with their own service rates: state (i, j) busy with H and L jobs,
    i + j <= N; four actions (admit H?, admit L?)."""
    i_grid, j_grid = np.meshgrid(np.arange(servers + 1), np.arange(servers + 1), indexing="ij")
    keep = i_grid + j_grid <= servers
    i, j = i_grid[keep], j_grid[keep]
    n = i.size
    index = np.full((servers + 2, servers + 2), -1)
    index[i, j] = np.arange(n)
    s, free = np.arange(n), i + j < servers

    def move(mask, to, rate):
        return sparse.csr_matrix((rate[mask], (s[mask], to[mask])), shape=(n, n))

    departures = move(i > 0, index[np.maximum(i - 1, 0), j], service_h * i) + move(
        j > 0, index[i, np.maximum(j - 1, 0)], service_l * j
    )
    rates, rewards = [], []
    for admit_h, admit_l in itertools.product((0, 1), repeat=2):
        matrix = departures.copy()
        if admit_h:
            matrix = matrix + move(free, index[i + 1, j], np.full(n, arrival_h))
        if admit_l:
            matrix = matrix + move(free, index[i, j + 1], np.full(n, arrival_l))
        rates.append(matrix)
        rewards.append(free * (admit_h * reward_h * arrival_h + admit_l * reward_l * arrival_l))
    return CTMDP(tuple(rates), np.array(rewards, dtype=float))


@st.composite
def random_mdps(draw, max_states: int = 5, max_actions: int = 3):
    """Random unichain CTMDPs: every action in every state other than 0 has a
    positive rate to state 0, so state 0 is recurrent under every policy and the
    states it can reach form the single closed class.  Some actions are disallowed."""
    n = draw(st.integers(2, max_states))
    actions = draw(st.integers(1, max_actions))
    rate = st.floats(0.0, 5.0, allow_nan=False)
    rates = []
    for _ in range(actions):
        matrix = draw(arrays(np.float64, (n, n), elements=rate))
        matrix *= draw(arrays(np.bool_, (n, n)))
        matrix[1:, 0] += draw(st.floats(0.05, 5.0))
        np.fill_diagonal(matrix, 0.0)
        rates.append(matrix)
    rewards = draw(arrays(np.float64, (actions, n), elements=st.floats(-10.0, 10.0)))
    allowed = draw(arrays(np.bool_, (actions, n)))
    allowed[draw(st.integers(0, actions - 1)), :] = True  # at least one action each
    return CTMDP(tuple(rates), rewards, allowed)


def recurrent_states(mdp: CTMDP, policy: np.ndarray) -> np.ndarray:
    """States of the closed class containing state 0 (every state reaches 0 here)."""
    order = breadth_first_order(_policy_rates(mdp, policy), 0, return_predecessors=False)
    mask = np.zeros(mdp.n_states, dtype=bool)
    mask[order] = True
    return mask


def all_policies(mdp: CTMDP):
    choices = [np.flatnonzero(mdp.allowed[:, s]) for s in range(mdp.n_states)]
    for policy in itertools.product(*choices):
        yield np.array(policy)


# ---------------------------------------------------------------------------
# by hand


@pytest.mark.parametrize(
    ("stay", "away", "go", "back"),
    [(1.0, 4.0, 1.0, 2.0), (2.0, 4.0, 1.0, 2.0), (1.0, 3.0, 0.5, 0.25), (0.0, -1.0, 3.0, 1.0)],
)
def test_two_state_by_hand(stay, away, go, back):
    """Moving on earns go * away / (go + back) (fraction of time in state 1); staying
    earns ``stay``.  Bias with h(0) = 0: h(1) = g / go when moving on (from
    g = 0 + go (h(1) - h(0))), and h(1) = (away - stay) / back when staying."""
    mdp = two_state(stay, away, go, back)
    move = go * away / (go + back)
    for solution in (policy_iteration(mdp), linear_program(mdp)):
        assert isinstance(solution, MDPSolution)
        assert solution.gain == pytest.approx(max(stay, move), rel=1e-12, abs=1e-12)
        if move > stay:
            assert solution.policy[0] == 1
            np.testing.assert_allclose(solution.bias, [0.0, move / go], rtol=1e-12, atol=1e-14)
        else:
            assert solution.policy[0] == 0
            np.testing.assert_allclose(solution.bias, [0.0, (away - stay) / back], rtol=1e-12)
    gain, bias = evaluate_policy(mdp, [1, 0])
    assert gain == pytest.approx(move, rel=1e-13)
    gain, bias = evaluate_policy(mdp, [0, 1], reference_state=1)
    assert gain == pytest.approx(stay, rel=1e-13)
    np.testing.assert_allclose(bias, [-(away - stay) / back, 0.0], rtol=1e-12)


def test_tie_keeps_current_action_and_terminates():
    """Both actions in state 0 are worth exactly 1: policy iteration keeps its
    starting action and stops after one evaluation."""
    mdp = two_state(1.0, 3.0, 1.0, 2.0)  # moving on earns 1 * 3 / 3 = 1
    for start in ([0, 0], [1, 1]):
        solution = policy_iteration(mdp, initial_policy=start)
        assert solution.iterations == 1
        np.testing.assert_array_equal(solution.policy, start)
        assert solution.gain == pytest.approx(1.0, rel=1e-14)


# ---------------------------------------------------------------------------
# against each other and against enumeration


@settings(max_examples=60, deadline=None)
@given(random_mdps())
def test_random_mdp_pi_lp_and_enumeration_agree(mdp):
    pi_solution = policy_iteration(mdp)
    lp_solution = linear_program(mdp)
    best = max(evaluate_policy(mdp, policy)[0] for policy in all_policies(mdp))
    scale = 1.0 + abs(best)
    assert pi_solution.gain == pytest.approx(best, rel=1e-9, abs=1e-9 * scale)
    assert lp_solution.gain == pytest.approx(best, rel=1e-9, abs=1e-9 * scale)
    # both policies are optimal and their biases are their own
    for solution in (pi_solution, lp_solution):
        gain, bias = evaluate_policy(mdp, solution.policy)
        assert gain == pytest.approx(best, rel=1e-9, abs=1e-9 * scale)
        np.testing.assert_array_equal(bias, solution.bias)
        assert solution.bias[0] == 0.0
    # same action on recurrent states wherever the optimal action is unique by a margin
    recurrent = recurrent_states(mdp, pi_solution.policy)
    exit_rates = mdp.exit_rates()
    h = pi_solution.bias
    values = np.where(
        mdp.allowed,
        mdp.rewards + np.array([m @ h for m in mdp.rates]) - exit_rates * h,
        -np.inf,
    )
    ordered = np.sort(values, axis=0)
    margin = ordered[-1] - (ordered[-2] if len(values) > 1 else -np.inf)
    clear = recurrent & (margin > 1e-6 * scale)
    np.testing.assert_array_equal(lp_solution.policy[clear], pi_solution.policy[clear])


@settings(max_examples=30, deadline=None)
@given(random_mdps(max_states=4), st.data())
def test_policy_iteration_from_any_start(mdp, data):
    start = np.array(
        [
            data.draw(st.sampled_from(np.flatnonzero(mdp.allowed[:, s]).tolist()))
            for s in range(mdp.n_states)
        ]
    )
    reference = data.draw(st.integers(0, mdp.n_states - 1))
    solution = policy_iteration(mdp, initial_policy=start, reference_state=reference)
    default = policy_iteration(mdp)
    assert solution.gain == pytest.approx(default.gain, rel=1e-9, abs=1e-9)
    assert solution.bias[reference] == 0.0


def test_two_class_model_pi_and_lp_agree():
    """Two classes with per-class service rates (66 states, 4 actions)."""
    mdp = two_class(10, 6.0, 6.0, 1.0, 1.5, 2.0, 1.0)
    pi_solution = policy_iteration(mdp)
    lp_solution = linear_program(mdp)
    assert lp_solution.gain == pytest.approx(pi_solution.gain, rel=1e-10)
    assert evaluate_policy(mdp, lp_solution.policy)[0] == pytest.approx(pi_solution.gain, rel=1e-12)
    np.testing.assert_allclose(lp_solution.bias, pi_solution.bias, rtol=1e-9, atol=1e-9)


# ---------------------------------------------------------------------------
# admission control: trunk reservation


@pytest.mark.parametrize(
    ("servers", "arrival_h", "arrival_l", "service", "reward_h", "reward_l"),
    [
        (30, 18.0, 18.0, 1.0, 2.0, 1.0),  # the overloaded loss network, N = 30
        (50, 20.0, 40.0, 1.0, 5.0, 1.0),
        (20, 5.0, 30.0, 0.5, 10.0, 1.0),
        (10, 1.0, 1.0, 1.0, 2.0, 1.0),  # light load: admit everything
    ],
)
def test_admission_control_is_trunk_reservation(
    servers, arrival_h, arrival_l, service, reward_h, reward_l
):
    params = (servers, arrival_h, arrival_l, service, reward_h, reward_l)
    best_gain, best_thresholds = threshold_search(*params)
    for choose_h in (False, True):
        mdp = admission(*params, choose_h=choose_h)
        for solution in (policy_iteration(mdp), linear_program(mdp)):
            assert solution.gain == pytest.approx(best_gain, rel=1e-10)
            policy = solution.policy[:servers]  # in state N no admission is possible
            admit_l = policy % 2 == 1
            if choose_h:
                assert np.all(policy >= 2), "H is always admitted while a server is free"
            # a threshold: admit L exactly while fewer than c servers are busy
            c = int(admit_l.sum())
            np.testing.assert_array_equal(admit_l, np.arange(servers) < c)
            assert c in best_thresholds


def test_loss_network_size_301_states():
    mdp = admission(300, 180.0, 180.0, 1.0, 2.0, 1.0)
    solution = policy_iteration(mdp)
    best_gain, best_thresholds = threshold_search(300, 180.0, 180.0, 1.0, 2.0, 1.0)
    assert solution.gain == pytest.approx(best_gain, rel=1e-11)
    assert int((solution.policy[:300] == 1).sum()) in best_thresholds
    assert linear_program(mdp).gain == pytest.approx(best_gain, rel=1e-10)


# ---------------------------------------------------------------------------
# bad input


def test_multichain_policy_is_rejected():
    # action 0 makes both states absorbing: two closed classes
    mdp = CTMDP((np.zeros((2, 2)), np.array([[0.0, 1.0], [1.0, 0.0]])), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="policy must be unichain .* states 0 and 1"):
        evaluate_policy(mdp, [0, 0])
    assert evaluate_policy(mdp, [1, 0])[0] == 0.0  # 1 -> 0 absorbing: one closed class


def test_max_iterations():
    mdp = two_state(1.0, 4.0, 1.0, 2.0)
    with pytest.raises(RuntimeError, match="did not converge in max_iterations = 1"):
        policy_iteration(mdp, initial_policy=[0, 0], max_iterations=1)
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match="max_iterations must be"):
            policy_iteration(mdp, max_iterations=bad)
    with pytest.raises(ValueError, match=r"rtol must be a number in \[0, 1\)"):
        policy_iteration(mdp, rtol=-1.0)


def test_solution_and_model_are_immutable():
    mdp = two_state(1.0, 4.0, 1.0, 2.0)
    with pytest.raises(FrozenInstanceError):
        mdp.rewards = np.zeros((2, 2))
    with pytest.raises(ValueError, match="read-only"):
        mdp.rewards[0, 0] = 5.0
    assert all(isinstance(m, sparse.csr_matrix) for m in mdp.rates)
    assert mdp.allowed.dtype == bool and mdp.allowed.all()


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (dict(rates=()), "rates must hold at least one action"),
        (dict(rates=np.zeros((2, 2))), "rates must be a sequence of matrices"),
        (dict(rates=(np.zeros((2, 3)),)), r"rates\[0\] must be a non-empty square matrix"),
        (dict(rates=(np.zeros((2, 2)), np.zeros((3, 3)))), r"rates\[1\] must have the shape"),
        (dict(rates=([[0.0, -1.0], [1.0, 0.0]],)), r"rates\[0\] must be finite and >= 0, got"),
        (dict(rates=([[0.0, np.nan], [1.0, 0.0]],)), r"rates\[0\] must be finite and >= 0"),
        (dict(rates=([[1.0, 1.0], [1.0, 0.0]],)), r"rates\[0\] must hold off-diagonal rates only"),
        (dict(rates=([["a", "b"], ["c", "d"]],)), r"rates\[0\] must be a 2-D array of real"),
        (dict(rewards=np.zeros((1, 3))), r"rewards must have shape \(actions, states\)"),
        (dict(rewards=[[np.nan, 0.0]]), r"rewards must be finite where the action is allowed"),
        (dict(allowed=np.ones((1, 2))), "allowed must be a boolean array"),
        (dict(allowed=np.ones((2, 2), dtype=bool)), r"allowed must have shape"),
        (dict(allowed=np.array([[True, False]])), "state 1 has none"),
    ],
)
def test_model_bad_input(kwargs, message):
    arguments = dict(rates=(np.array([[0.0, 1.0], [1.0, 0.0]]),), rewards=np.zeros((1, 2)))
    arguments.update(kwargs)
    with pytest.raises(ValueError, match=message):
        CTMDP(**arguments)


def test_disallowed_rewards_are_ignored():
    mdp = CTMDP(
        (np.array([[0.0, 1.0], [1.0, 0.0]]),) * 2,
        np.array([[1.0, 1.0], [np.nan, 2.0]]),
        np.array([[True, True], [False, True]]),
    )
    assert policy_iteration(mdp).gain == pytest.approx(1.5, rel=1e-14)


@pytest.mark.parametrize(
    ("policy", "message"),
    [
        ([0], r"policy must have shape \(2,\)"),
        ([0, 2], r"policy must hold actions in 0..1, got policy\[1\] = 2"),
        ([0.0, 1.0], "policy must hold integer actions"),
        ([1, 0], "action 1 is not allowed in state 0"),
    ],
)
def test_policy_bad_input(policy, message):
    mdp = CTMDP(
        (np.array([[0.0, 1.0], [1.0, 0.0]]),) * 2,
        np.zeros((2, 2)),
        np.array([[True, True], [False, True]]),
    )
    with pytest.raises(ValueError, match=message):
        evaluate_policy(mdp, policy)
    with pytest.raises(ValueError, match=message.replace("policy", "initial_policy", 2)):
        policy_iteration(mdp, initial_policy=policy)


def test_reference_state_and_mdp_type():
    mdp = two_state(1.0, 4.0, 1.0, 2.0)
    for call in (
        lambda: evaluate_policy(mdp, [0, 0], reference_state=2),
        lambda: policy_iteration(mdp, reference_state=-1),
        lambda: linear_program(mdp, reference_state=5),
    ):
        with pytest.raises(ValueError, match=r"reference_state must be in 0..1"):
            call()
    with pytest.raises(ValueError, match="reference_state must be a state index"):
        evaluate_policy(mdp, [0, 0], reference_state=0.5)
    with pytest.raises(ValueError, match="mdp must be a CTMDP"):
        policy_iteration("not an mdp")


def test_policy_iteration_stops_on_rounding_ties():
    """Found by hypothesis: every state can earn the same reward rate r, so every policy
    that never takes the one bad action has gain r and bias 0 exactly; the evaluated
    biases are rounding noise (~1e-27) and once made policy iteration alternate between
    two such policies until max_iterations.  It must stop with gain r."""
    r = -6.325688287839111e-11
    stay = np.array([[0.0, 1.2038442313408440, 4.9582728261436166, 1.0684083013063541],
                     [4.0646154915763937, 0.0, 1.0684083013063541, 4.6378359944793814],
                     [4.0646154915763990, 0.0, 0.0, 1e-12],
                     [5.0635735153026502, 0.0, 2.7092842249990561, 0.0]])  # fmt: skip
    move = np.array([[0.0, 7.605212506078712e-243, 4.805320739101148, 0.0],
                     [0.7728325699948999, 0.0, 1e-8, 0.0],
                     [0.7728936051511499, 0.0, 0.0, 1.5],
                     [0.7728325699948999, 0.0, 0.0, 0.0]])  # fmt: skip
    rewards = np.array([[r, r, r, r], [0.0, r, -9.798771573491170, r]])
    allowed = np.array([[True, True, True, True], [False, True, True, True]])
    mdp = CTMDP((stay, move), rewards, allowed)
    solution = policy_iteration(mdp, initial_policy=[0, 0, 0, 0], reference_state=2)
    assert solution.gain == pytest.approx(r, rel=1e-9)
    assert solution.policy[2] == 0  # never the bad action
