r"""The tasks of the loss network's sweeps: a task is a dict of plain JSON values (the
network, the information model, horizon, warm-up, seed, replication and policies), so the
executor can ship it and the cache can key its result; :func:`replication_task` builds
and checks one, and the helpers here read the network back and name its exact optimum,
threshold policy and lookahead window.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from qtheory.core import validation
from qtheory.lossnet.fluid import fluid_bound
from qtheory.lossnet.online import online_optimum
from qtheory.model.lossnet import LossNetwork, as_network
from qtheory.sim.lossnet_policies import parse_policy

__all__ = [
    "regret_point",
    "regret_point_task",
    "replication_task",
]


#: Part of every task, hence of every cache key: bump it when a task's result changes
#: meaning (see :mod:`qtheory.core.cache`).
TASK_VERSION = 1
NETWORK_FIELDS = ("servers", "lambda_h", "lambda_l", "mu", "r_h", "r_l")
#: The fields of an n-class network's task (``lambdas`` and ``rewards`` as lists).
CLASS_NETWORK_FIELDS = ("servers", "lambdas", "rewards", "mu")
OFFLINE = "offline"


# ------------------------------------------------------------ networks


def _network_fields(net: LossNetwork) -> dict[str, Any]:
    if net.n_classes > 2:
        return {"servers": net.servers, "lambdas": list(net.lambdas),
                "rewards": list(net.rewards), "mu": net.mu}  # fmt: skip
    return {name: getattr(net, name) for name in NETWORK_FIELDS}


def task_network(task: dict[str, Any]) -> LossNetwork:
    """The network of a task, from the fields of either input form of :class:`LossNetwork`
    (``lambdas``, ``rewards`` for more than two classes)."""
    if "lambdas" in task:
        return LossNetwork(*(task[name] for name in CLASS_NETWORK_FIELDS))
    return LossNetwork(*(task[name] for name in NETWORK_FIELDS))


def exact_optimum(net: LossNetwork) -> dict[str, Any]:
    """The exact R_fluid, R_on, regret and optimal reserve of
    :func:`~qtheory.lossnet.online.online_optimum`: k* (int) for two classes, the nested
    reserves (k_1, …, k_n) for more."""
    opt = online_optimum(net)
    reserve = opt.reserves if net.n_classes > 2 else opt.reserve
    return {"fluid": fluid_bound(net), "online": float(opt.online),
            "regret": float(opt.regret), "reserve": reserve}  # fmt: skip


def threshold_policy(reserve: int | tuple[int, ...]) -> str:
    """``threshold:k*`` (two classes) or ``threshold:k_1,...,k_n``."""
    if isinstance(reserve, tuple):
        return "threshold:" + ",".join(str(k) for k in reserve)
    return f"threshold:{reserve}"


def lookahead_window(net: LossNetwork, c: float) -> float:
    """W = c log N / N by :meth:`LossNetwork.window`, whose rule reads only N (so it
    serves n classes too)."""
    return LossNetwork.window(net, c)


# ------------------------------------------------------------ one replication


def _policy_list(policies: object, net: LossNetwork) -> list[str]:
    if isinstance(policies, str) or not isinstance(policies, Sequence) or not policies:
        raise ValueError(f"policies must be a non-empty list of policy strings, got {policies!r}")
    for policy in policies:
        parse_policy(policy, net)
    if len(set(policies)) != len(policies):
        raise ValueError(f"policies must be distinct, got {policies!r}")
    return list(policies)


def replication_task(
    net: LossNetwork,
    *,
    info: str,
    horizon: float,
    warmup: float,
    seed: int,
    rep: int,
    policies: Sequence[str],
    rolling_horizon: Sequence[float] = (),
) -> dict[str, Any]:
    """The task (plain JSON values) of one replication of :func:`replication`.

    With ``rolling_horizon`` windows (clock model) the task also runs
    :func:`rolling_horizon` with each.  The task is validated here, so that a bad sweep
    fails before any replication runs, and it is the cache key of the replication
    (:mod:`qtheory.core.cache`), together with :data:`TASK_VERSION`.

    Parameters
    ----------
    net : LossNetwork
        The network: its six fields go into the task, or for n classes ``servers``,
        ``lambdas``, ``rewards`` and ``mu`` (clock model only, no rolling horizon).
    info : {"clock", "job"}
        The information model (``docs/information-models.md``).
    horizon : float
        T > 0, the end of the run.
    warmup : float
        T0 with 0 <= T0 < T; statistics are taken over (T0, T].
    seed : int
        Root seed (>= 0).
    rep : int
        Replication index (>= 0): the path is drawn from
        ``default_rng(SeedSequence(seed, spawn_key=(rep,)))``.
    policies : sequence of str
        Distinct, non-empty list of policy strings
        (:func:`qtheory.sim.lossnet_policies.parse_policy`, ``"offline"`` included).
    rolling_horizon : sequence of float, default ()
        Windows W > 0 of :func:`rolling_horizon` (clock model only); left out of the
        task when empty, so the tasks of plain runs keep their cache keys.

    Returns
    -------
    dict
        The network fields, ``info``, ``horizon``, ``warmup``, ``seed``, ``rep``,
        ``policies``, ``version`` and, if given, ``rolling_horizon``.

    Raises
    ------
    ValueError
        For an invalid network, ``info``, horizon, warm-up (also ``warmup >= horizon``),
        seed, index, policy list (empty, a string, unknown or repeated policies) or
        window list, or windows in the job model; an n-class network in the job model
        or with windows.

    Examples
    --------
    >>> task = replication_task(LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0), info="clock",
    ...                         horizon=5.0, warmup=1.0, seed=3, rep=0, policies=["pfi"])
    >>> sorted(task)  # doctest: +NORMALIZE_WHITESPACE
    ['horizon', 'info', 'lambda_h', 'lambda_l', 'mu', 'policies', 'r_h', 'r_l', 'rep',
     'seed', 'servers', 'version', 'warmup']
    """
    net = as_network(net)
    if not isinstance(info, str) or info not in ("clock", "job"):
        raise ValueError(f"info must be 'clock' or 'job', got {info!r}")
    if net.n_classes > 2 and info != "clock":
        raise ValueError(f"info must be 'clock' for an n-class network, got {info!r}")
    horizon = validation.positive("horizon", horizon)
    warmup = validation.nonnegative("warmup", warmup)
    if not warmup < horizon:
        raise ValueError(f"warmup must be < horizon, got warmup={warmup}, horizon={horizon}")
    task = {
        **_network_fields(net),
        "info": info,
        "horizon": horizon,
        "warmup": warmup,
        "seed": validation.nonnegative_int("seed", seed),
        "rep": validation.nonnegative_int("rep", rep),
        "policies": _policy_list(policies, net),
        "version": TASK_VERSION,
    }
    if isinstance(rolling_horizon, str) or not isinstance(rolling_horizon, Sequence):
        raise ValueError(f"rolling_horizon must be a sequence of windows, got {rolling_horizon!r}")
    if rolling_horizon:  # absent otherwise: the tasks (and cache keys) of plain runs
        if info != "clock" or net.n_classes > 2:
            raise ValueError("rolling_horizon runs in the two-class clock model only")
        windows = [validation.positive("rolling_horizon window", w) for w in rolling_horizon]
        task["rolling_horizon"] = windows
    return task


# ------------------------------------------------------------ regret curve


def regret_point_task(net: LossNetwork, servers: int) -> dict[str, Any]:
    """The task of one point of the exact regret curve (:func:`regret_point`): the
    network's fields at N = ``servers`` and :data:`TASK_VERSION`.

    Parameters
    ----------
    net : LossNetwork
        The network (its own N is replaced).
    servers : int
        N >= 1.

    Returns
    -------
    dict
        Plain JSON values: the cache key of the point.

    Examples
    --------
    >>> regret_point_task(LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0), 100)["servers"]
    100
    """
    net = as_network(net).with_servers(validation.positive_int("servers", servers))
    return {**_network_fields(net), "version": TASK_VERSION}


def regret_point(task: dict[str, Any]) -> dict[str, Any]:
    """One point of :func:`~qtheory.lossnet.regret.regret_curve` as plain data: a task
    function of the sweeps (the executor ships it, the cache keys its result), so the
    points of a curve run in parallel and a rerun reads them back.

    Parameters
    ----------
    task : dict
        From :func:`regret_point_task`.

    Returns
    -------
    dict
        The fields of the :class:`~qtheory.lossnet.regret.RegretPoint` (``reserves`` a
        tuple; a list once read back from the cache).

    Examples
    --------
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> point = regret_point(regret_point_task(net, 1000))
    >>> point["reserves"], round(point["regret"], 4)
    ((0, 8), 11.052)
    """
    from qtheory.lossnet.regret import regret_curve  # Sympy: only in the task's process

    net = task_network(task)
    return dataclasses.asdict(regret_curve(net, [net.servers])[0])
