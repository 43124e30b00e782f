"""A clock-model path drawn once and replayed to several policies
(qtheory.sim._core.lossnet_source, qtheory.sim.lossnet.simulate_policies).

Independent reference: the same runs drawing their own path from a fresh bit generator
of the same seed (the route every policy took before the path was shared); a replayed
run must return the very same statistics, traces included, for every policy, two and n
classes, and across the horizon (look-ahead policies read events past T).
"""

from __future__ import annotations

import numpy as np
import pytest

from qtheory.model.lossnet import LossNetwork
from qtheory.sim import _core
from qtheory.sim.lossnet import compare, simulate, simulate_policies

TWO = LossNetwork(60, 0.6, 0.8, 1.0, 2.0, 1.0)
THREE = LossNetwork(60, (0.3, 0.9, 0.6), (3.0, 2.0, 1.0), 1.0)
POLICIES = [("threshold", 3.0), ("pfi", 0.0), ("sss", 0.2), ("offline", 0.0), ("sss", 5.0)]


def _two_class(draws, name, param, trace=False):
    return _core.lossnet_simulate(
        draws, "clock", name, param, TWO.servers, TWO.lambda_h, TWO.lambda_l, TWO.mu,
        TWO.r_h, TWO.r_l, 40.0, 3.0, trace=trace,
    )  # fmt: skip


def _three_class(draws, name, param):
    param = [0, 2, 9] if name == "threshold" else param
    return _core.lossnet_classes_simulate(
        draws, name, param, THREE.servers, THREE.lambdas, THREE.rewards, THREE.mu, 40.0, 3.0
    )


def _same(left: dict, right: dict) -> bool:
    assert left.keys() == right.keys()
    return all(
        np.array_equal(left[k], right[k])
        if isinstance(left[k], np.ndarray)
        else left[k] == right[k]
        for k in left
    )


@pytest.mark.parametrize("seed", [0, 7])
def test_a_replayed_path_gives_every_policy_its_own_run(seed):
    source = _core.lossnet_source(np.random.PCG64(seed), TWO.servers, [0.6, 0.8], 1.0)
    # the longest look-ahead last: the source grows past the horizon while replaying
    for name, param in POLICIES:
        replayed = _two_class(source, name, param, trace=True)
        fresh = _two_class(np.random.PCG64(seed), name, param, trace=True)
        assert _same(replayed, fresh), name
    classes = _core.lossnet_source(np.random.PCG64(seed), THREE.servers, THREE.lambdas, THREE.mu)
    for name, param in POLICIES:
        assert _same(
            _three_class(classes, name, param), _three_class(np.random.PCG64(seed), name, param)
        )


def test_a_source_refuses_another_network_the_job_model_and_bad_input():
    source = _core.lossnet_source(np.random.PCG64(1), TWO.servers, [0.6, 0.8], 1.0)
    with pytest.raises(ValueError, match="bit_generator: the path source was drawn for another"):
        _core.lossnet_simulate(source, "clock", "pfi", 0.0, 61, 0.6, 0.8, 1.0, 2.0, 1.0, 5.0, 0.0)
    with pytest.raises(ValueError, match="info: a path source holds a clock-model path"):
        _core.lossnet_simulate(source, "job", "threshold", 2, 60, 0.6, 0.8, 1.0, 2.0, 1.0, 5.0, 0.0)
    with pytest.raises(ValueError, match=r"lambdas\[1\] must be"):
        _core.lossnet_source(np.random.PCG64(1), 60, [0.6, -0.8], 1.0)
    with pytest.raises(ValueError, match="servers must be in 1.."):
        _core.lossnet_source(np.random.PCG64(1), 0, [0.6, 0.8], 1.0)
    with pytest.raises(TypeError, match="bit_generator must be a numpy.random.BitGenerator"):
        _core.lossnet_source(object(), 60, [0.6, 0.8], 1.0)


@pytest.mark.parametrize("net", [TWO, THREE], ids=["two", "three"])
def test_simulate_policies_equals_one_simulate_per_policy(net):
    policies = ["offline", "pfi", "sss:0.1", "threshold:2" if net is TWO else "threshold:0,2,9"]
    shared = simulate_policies(net, policies, horizon=30.0, warmup=2.0, reps=3, seed=5, workers=2)
    for policy, result in zip(policies, shared.values(), strict=True):
        alone = simulate(net, policy, horizon=30.0, warmup=2.0, reps=3, seed=5)
        assert np.array_equal(result.reward_rates, alone.reward_rates)
        assert (result.admitted, result.rejected, result.events) == (
            alone.admitted, alone.rejected, alone.events,
        )  # fmt: skip
        assert result.mean_idle.mean == alone.mean_idle.mean


def test_compare_still_pairs_the_same_paths():
    cmp = compare(TWO, ["offline", "threshold:3"], horizon=30.0, reps=3, seed=4)
    alone = simulate(TWO, "threshold:3", horizon=30.0, reps=3, seed=4)
    assert np.array_equal(cmp.results["threshold:3"].reward_rates, alone.reward_rates)
    assert cmp.difference("offline", "threshold:3").min_difference >= 0


def test_large_paths_are_drawn_per_policy_with_the_same_numbers(monkeypatch):
    """Past SHARED_PATH_BYTES (here 0) each policy draws its own path, as simulate does."""
    import qtheory.sim.lossnet as lossnet

    policies = ["pfi", "threshold:2"]
    shared = simulate_policies(TWO, policies, horizon=20.0, reps=2, seed=9)
    monkeypatch.setattr(lossnet, "SHARED_PATH_BYTES", 0)
    drawn = simulate_policies(TWO, policies, horizon=20.0, reps=2, seed=9)
    for policy in shared:
        assert np.array_equal(shared[policy].reward_rates, drawn[policy].reward_rates)


def test_a_replication_answers_every_spelling_of_a_policy():
    """Two strings of one policy ("sss:0.5", "sss:0.50") share its run (found by review:
    the shared-path route refused them as duplicates)."""
    from qtheory.lossnet.replication import replication
    from qtheory.lossnet.tasks import replication_task

    def task(policies):
        return replication_task(TWO, info="clock", horizon=5.0, warmup=1.0, seed=3, rep=0,
                                policies=policies)  # fmt: skip

    rates = replication(task(["sss:0.5", "sss:0.50"]))["reward_rate"]
    alone = replication(task(["sss:0.5"]))["reward_rate"]["sss:0.5"]
    assert rates["sss:0.5"] == rates["sss:0.50"] == alone
