r"""One replication of the loss network's sweeps: :func:`replication` simulates every
policy of a task (:mod:`qtheory.lossnet.tasks`) on one common sample path.  The sweeps of
:mod:`qtheory.lossnet.decomposition` and their designs (:mod:`qtheory.lossnet.designs`)
are lists of these tasks, run by the executor and cached by the task.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from qtheory.core.stats import replication_seed
from qtheory.lossnet.duration_fluid import (
    duration_fluid_solution,
    pathwise_dual_bound,
)
from qtheory.lossnet.offline_job import simulate_offline_job
from qtheory.lossnet.rolling_horizon import rolling_horizon
from qtheory.lossnet.tasks import (
    CLASS_NETWORK_FIELDS,
    NETWORK_FIELDS,
    OFFLINE,
    TASK_VERSION,
    replication_task,
    task_network,
)
from qtheory.model.lossnet import LossNetwork
from qtheory.sim.lossnet import job_path, simulate_policies
from qtheory.sim.lossnet_policies import normalised_policy, parse_policy

__all__ = [
    "replication",
]


def _replication_root(seed: int, rep: int) -> np.random.SeedSequence:
    """The root whose replication 0 is replication ``rep`` of ``seed``
    (:func:`qtheory.core.stats.replication_seed`): run with ``reps=1``, it replays that path."""
    child = replication_seed(seed, rep)
    *parent, index = child.spawn_key
    return np.random.SeedSequence(child.entropy, spawn_key=tuple(parent), n_children_spawned=index)


def replication(task: dict[str, Any]) -> dict[str, Any]:
    """Run every policy of ``task`` on one common sample path (the unit of a sweep).

    Parameters
    ----------
    task : dict
        From :func:`replication_task`: the network (``servers``, ``lambda_h``,
        ``lambda_l``, ``mu``, ``r_h``, ``r_l``; n classes: ``servers``, ``lambdas``,
        ``rewards``, ``mu``), ``info`` (``"clock"`` or ``"job"``),
        ``horizon`` T and ``warmup`` T0, the root ``seed`` and replication index ``rep``
        (path from ``default_rng(SeedSequence(seed, spawn_key=(rep,)))``, see the module
        docstring), the ``policies`` and the task ``version``.

    Returns
    -------
    dict
        ``reward_rate``, ``admitted_h``, ``admitted_l``, ``mean_idle``: dicts from policy
        to the reward per unit time in (T0, T], the H and L admissions in (T0, T] and the
        time-average idle count.  In the job model also ``dual_bound``, the path-wise dual
        bound D_θ*/(T - T0) at the optimal price of the duration-aware fluid LP (an upper
        bound on the offline reward rate of this very path).  With rolling-horizon
        windows also ``rolling_horizon``: dict from ``repr(W)`` to the reward rate of
        :func:`rolling_horizon` with window W on the same path.  For an n-class network
        ``admitted`` (policy to the list of admissions of each class, by
        :func:`qtheory.sim.lossnet.simulate_policies`) replaces ``admitted_h``
        and ``admitted_l``.

    Raises
    ------
    ValueError
        If ``task`` is not a dict, has another ``version``, misses a field or does not
        pass :func:`replication_task`.

    Examples
    --------
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> task = replication_task(net, info="clock", horizon=30.0, warmup=0.0, seed=3, rep=1,
    ...                         policies=["offline", "threshold:2"])
    >>> out = replication(task)
    >>> from qtheory.sim import compare
    >>> cmp = compare(net, ["offline", "threshold:2"], horizon=30.0, reps=2, seed=3)
    >>> bool(out["reward_rate"]["offline"] == cmp.results["offline"].reward_rates[1])
    True
    >>> from qtheory.model.lossnet import LossNetwork
    >>> from qtheory.sim.lossnet import compare
    >>> three = LossNetwork(10, (0.3, 0.9, 0.6), (3.0, 2.0, 1.0), 1.0)
    >>> out = replication(replication_task(three, info="clock", horizon=30.0, warmup=0.0,
    ...                                    seed=3, rep=1, policies=["offline", "pfi"]))
    >>> cmp = compare(three, ["offline", "pfi"], horizon=30.0, reps=2, seed=3)
    >>> bool(out["reward_rate"]["pfi"] == cmp.results["pfi"].reward_rates[1])
    True
    """
    if not isinstance(task, dict):
        raise ValueError(f"task must be a dict, got {task!r}")
    if task.get("version") != TASK_VERSION:
        raise ValueError(f"task version must be {TASK_VERSION}, got {task.get('version')!r}")
    fields = CLASS_NETWORK_FIELDS if "lambdas" in task else NETWORK_FIELDS
    missing = [name for name in (*fields, "info", "horizon", "warmup", "seed", "rep",
                                 "policies") if name not in task]  # fmt: skip
    if missing:
        raise ValueError(f"task is missing {missing}")
    net = task_network(task)
    if net.n_classes > 2:
        return _class_replication(net, task)
    checked = replication_task(
        net,
        **{name: task[name] for name in ("info", "horizon", "warmup", "seed", "rep", "policies")},
        rolling_horizon=task.get("rolling_horizon", ()),
    )
    out: dict[str, Any] = {"reward_rate": {}, "admitted_h": {}, "admitted_l": {}, "mean_idle": {}}
    run = dict(horizon=checked["horizon"], warmup=checked["warmup"], reps=1,
               seed=_replication_root(checked["seed"], checked["rep"]))  # fmt: skip
    job = checked["info"] == "job"
    simulated = [policy for policy in checked["policies"] if not (job and policy == OFFLINE)]
    results = _on_one_path(net, simulated, info=checked["info"], **run) if simulated else {}
    for policy in checked["policies"]:
        res = simulate_offline_job(net, **run) if job and policy == OFFLINE else results[policy]
        out["reward_rate"][policy] = res.reward_rate.mean
        out["admitted_h"][policy] = res.admitted_h
        out["admitted_l"][policy] = res.admitted_l
        out["mean_idle"][policy] = res.mean_idle.mean
    if checked["info"] == "job":
        out["dual_bound"] = _dual_bound_rate(net, checked)
    if "rolling_horizon" in checked:
        run = {name: checked[name] for name in ("horizon", "warmup", "seed", "rep")}
        out["rolling_horizon"] = {
            repr(w): rolling_horizon(net, w, **run)["reward_rate"]
            for w in checked["rolling_horizon"]
        }
    return out


def _on_one_path(net: LossNetwork, policies: list[str], **run: Any) -> dict[str, Any]:
    """Each of ``policies`` (strings as the task gives them) on the same replication
    (:func:`qtheory.sim.lossnet.simulate_policies`, keyword arguments ``run``), by the
    given string; strings that name one policy ("sss:0.5", "sss:0.50") share its run.
    A replication reports rewards, admissions and idle counts only, so it runs without
    the look-ahead statistics (PFI about 1.7 times as fast, two-class SSS up to 1.5
    times)."""
    names = {policy: normalised_policy(*parse_policy(policy, net)) for policy in policies}
    shared = simulate_policies(net, list(dict.fromkeys(names.values())), **run,
                               lookahead_stats=False)  # fmt: skip
    return {policy: shared[name] for policy, name in names.items()}


def _class_replication(net: LossNetwork, task: dict[str, Any]) -> dict[str, Any]:
    """:func:`replication` of an n-class task (clock model, no rolling horizon)."""
    names = ("info", "horizon", "warmup", "seed", "rep", "policies")
    checked = replication_task(net, **{name: task[name] for name in names},
                               rolling_horizon=task.get("rolling_horizon", ()))  # fmt: skip
    out: dict[str, Any] = {"reward_rate": {}, "admitted": {}, "mean_idle": {}}
    root = _replication_root(checked["seed"], checked["rep"])
    results = _on_one_path(net, checked["policies"], info="clock", horizon=checked["horizon"],
                           warmup=checked["warmup"], reps=1, seed=root)  # fmt: skip
    for policy, res in results.items():
        out["reward_rate"][policy] = res.reward_rate.mean
        out["admitted"][policy] = list(res.admitted)
        out["mean_idle"][policy] = res.mean_idle.mean
    return out


def _dual_bound_rate(net: LossNetwork, task: dict[str, Any]) -> float:
    """D_θ*/(T - T0) on the job path of this replication."""
    horizon, warmup = task["horizon"], task["warmup"]
    path = job_path(net, horizon, replication_seed(task["seed"], task["rep"]))
    bound = pathwise_dual_bound(
        path.arrival_times, path.classes, path.service_times,
        servers=net.servers, r_h=net.r_h, r_l=net.r_l, horizon=horizon, warmup=warmup,
        price=duration_fluid_solution(net).server_price,
    )  # fmt: skip
    return bound / (horizon - warmup)
