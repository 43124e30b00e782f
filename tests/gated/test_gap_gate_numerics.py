"""The fast routes of the full-memory bracket against slow, sequential oracles.

The gap-dependent gate's rate matrix (qtheory.gated.gap_gates: doubling sums, Newton's
method from a nearby matrix) against the plain U-based fixed-point iteration from 0,
run until it stops moving (monotone towards the minimal solution, with Horner's sums
block by block); and the relaxation's certificate (qtheory.gated.relaxation: the
smallest passing g' in closed form) against a bisection on the cell test itself.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from qtheory.exact.matrix_analytic import _tails, gim1_rate
from qtheory.gated.gap_gates import _blocks, gap_gate_welfare
from qtheory.gated.relaxation import _CappedProblem
from qtheory.model.gated import GatedQueue

INF = math.inf
#: (Λ, μ, thresholds, gates): one, two and three levels, finite and infinite Λ.
POLICIES = [
    (3.0, 1.0, (), (1.2,)),
    (3.0, 1.0, (2.2,), (1.8, 1.6)),
    (0.5, 1.0, (1.0, 4.0), (0.5, 2.0, 0.2)),
    (10.0, 2.0, (0.4,), (0.3, 0.9)),
    (INF, 1.0, (2.1,), (3.0, 1.6)),
]


def blocks_of(arrival, mu, thresholds, gates):
    return _blocks(np.array(thresholds, dtype=float), np.array(gates, dtype=float), arrival, mu)


def horner_tails(blocks, rate):
    """W[i] = A_i + R W[i+1], from the top, one block at a time."""
    tails = np.empty_like(blocks)
    tails[-1] = blocks[-1]
    for i in range(blocks.shape[0] - 2, -1, -1):
        tails[i] = blocks[i] + rate @ tails[i + 1]
    return tails


def minimal_rate(blocks):
    """The U-based iteration R ← A_0 (I − Σ_{d≥1} R^{d−1} A_d)^{-1} from 0 until it no
    longer moves: increasing towards the minimal solution (Latouche and Ramaswami 1999)."""
    size = blocks.shape[1]
    rate = np.zeros((size, size))
    for _ in range(100_000):
        following = blocks[0] @ np.linalg.inv(np.eye(size) - horner_tails(blocks, rate)[1])
        if np.max(np.abs(following - rate)) < 1e-17:
            return following
        rate = following
    raise AssertionError("the U-based iteration did not settle")


@pytest.mark.parametrize("policy", POLICIES, ids=str)
def test_doubling_tails_are_horner(policy):
    blocks = blocks_of(*policy)
    rate = minimal_rate(blocks)
    np.testing.assert_allclose(_tails(blocks, rate), horner_tails(blocks, rate), atol=1e-15)


@pytest.mark.parametrize("policy", POLICIES, ids=str)
def test_rate_matrix_is_the_minimal_solution(policy):
    blocks = blocks_of(*policy)
    np.testing.assert_allclose(gim1_rate(blocks)[0], minimal_rate(blocks), atol=1e-13)


@pytest.mark.parametrize("policy", POLICIES, ids=str)
def test_rate_matrix_from_a_nearby_policy(policy):
    """Newton from the rate matrix of a policy with 5% longer gates lands on this one's."""
    arrival, mu, thresholds, gates = policy
    nearby = gim1_rate(blocks_of(arrival, mu, thresholds, [1.05 * g for g in gates]))[0]
    blocks = blocks_of(*policy)
    np.testing.assert_allclose(gim1_rate(blocks, start=nearby)[0], minimal_rate(blocks), atol=1e-13)


def test_rate_matrix_from_a_start_that_fails():
    """From the other solution σ = 1 of the scalar equation (J = 1, GA), Newton stays
    there (spectral radius 1); from a large matrix it wanders: the minimal solution is
    found from 0 all the same."""
    scalar = blocks_of(3.0, 1.0, (), (1.2,))
    np.testing.assert_allclose(gim1_rate(scalar, start=np.ones((1, 1)))[0], minimal_rate(scalar),
                               atol=1e-13)  # fmt: skip
    blocks = blocks_of(3.0, 1.0, (2.2,), (1.8, 1.6))
    far = np.full((2, 2), 50.0)
    np.testing.assert_allclose(gim1_rate(blocks, start=far)[0], minimal_rate(blocks), atol=1e-13)


def truncated_welfare(arrival, mu, reward, cost, thresholds, gates, top=400):
    """The welfare from the chain of (number found M ≤ ``top``, bin) itself: from (M, j)
    to (M + 1 − d, j') with probability A_d(j, j') for d ≤ M, to (0, j') with
    Σ_{d>M} A_d(j, j'), kept at ``top`` beyond it; its stationary law by a dense solve."""
    blocks = blocks_of(arrival, mu, thresholds, gates)
    levels = blocks.shape[1]
    chain = np.zeros((top + 1, levels, top + 1, levels))
    for found in range(top + 1):
        for d in range(min(found + 1, blocks.shape[0])):
            chain[found, :, min(found + 1 - d, top), :] += blocks[d]
        chain[found, :, 0, :] += blocks[found + 1 :].sum(axis=0)
    chain = chain.reshape((top + 1) * levels, -1)
    system = (chain - np.eye(chain.shape[0])).T
    system[-1] = 1.0
    law = np.linalg.solve(system, np.eye(chain.shape[0])[-1]).reshape(top + 1, levels)
    cycle = np.asarray(gates) + (0.0 if math.isinf(arrival) else 1.0 / arrival)
    mean_found = law.sum(axis=1) @ np.arange(top + 1)
    return (reward - cost * (mean_found + 1.0) / mu) / (law.sum(axis=0) @ cycle)


@pytest.mark.parametrize("policy", POLICIES, ids=str)
def test_welfare_is_that_of_the_truncated_chain(policy):
    arrival, mu, thresholds, gates = policy
    queue = GatedQueue(arrival, mu, 3.0, 1.0)
    assert gap_gate_welfare(queue, thresholds, gates) == pytest.approx(
        truncated_welfare(arrival, mu, 3.0, 1.0, thresholds, gates), rel=1e-11
    )


def bisected_gain(problem, bias, gain):
    """The smallest g' that passes the cell test, by doubling then bisection to 1e-15
    relative, on the test written out cell by cell (module notes of the relaxation)."""
    v = problem.continuation(bias)
    worth = problem.expected(bias)
    step = np.concatenate([[0.0], v[:-1] - v[1:]])
    slope = problem.mu * problem._convolve(step)
    states = range(1, problem.states + 1)
    convex = np.array([
        max(0.0, np.max(np.diff(np.concatenate([step[k:0:-1], [0.0]])), initial=0.0))
        for k in states
    ])  # fmt: skip
    curvature = problem.mu**2 * convex * (1.0 - problem.tail[:-1, 1:])
    best_phi = np.array([v[: k + 1].max() for k in states]) - bias
    width = np.diff(problem.grid)[:, None]
    sojourn = problem.sojourn[:, None]

    def passes(candidate):
        f = worth - candidate * sojourn
        interpolated = np.maximum(f[:-1], f[1:]) + curvature * width**2 / 8
        taylor = np.maximum(
            f[:-1], f[:-1] + (slope[:-1] - candidate) * width + curvature * width**2 / 2
        )
        crude = best_phi - candidate * sojourn[:-1]
        cells = np.minimum(np.minimum(interpolated, taylor), crude) <= 0
        return bool(cells.all() and (best_phi - candidate * problem.sojourn[-1] <= 0).all())

    scale = 1.0 + abs(gain)
    low, high = gain - 1e-9 * scale, gain + 1e-9 * scale
    assert not passes(low)
    while not passes(high):
        high = gain + 2 * (high - gain)
    while high - low > 1e-15 * scale:
        middle = 0.5 * (low + high)
        low, high = (low, middle) if passes(middle) else (middle, high)
    return high


@pytest.mark.parametrize("arrival", [3.0, 0.5, INF])
def test_certified_gain_is_the_bisection(arrival):
    """The closed form is the smallest passing g' (a bisection of the test finds it), for
    the optimal bias and for a perturbed one; the grid holds τ = 0, where T(0) = 0 at
    Λ = ∞ (policy iteration leaves that point out, the certificate not)."""
    queue = GatedQueue(arrival, 1.0, 2.0, 1.0)
    grid = np.linspace(0.0, 30.0, 600)
    solved = _CappedProblem(queue, 16, grid[1:] if math.isinf(arrival) else grid)
    gain, bias, _, _ = solved.solve(np.full(16, 60))
    problem = _CappedProblem(queue, 16, grid)
    perturbed = bias + np.random.default_rng(3).normal(0.0, 0.05, bias.size)
    for trial in (bias, perturbed):
        expected = bisected_gain(problem, trial, gain)
        assert problem.certified_gain(trial, gain) == pytest.approx(expected, rel=1e-13)
