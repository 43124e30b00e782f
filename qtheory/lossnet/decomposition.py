r"""The regret decomposition of the overloaded loss network, estimated on common paths.

Bray (arXiv:2601.14538) splits the regret of the online optimum into three costs,

.. math:: R_{fluid} - R_{on} = \underbrace{R_{fluid} - R_{off}}_{C_{vol}}
          + \underbrace{R_{off} - R_W}_{C_{long}} + \underbrace{R_W - R_{on}}_{C_{short}},

and claims :math:`C_{vol} = O(1)`, :math:`C_{long} = O(1)` once the lookahead is
:math:`W \ge c\log N/N` (for a large enough constant :math:`c`), hence
:math:`C_{short} = \Theta(\log N)` because the left side is :math:`\Theta(\log N)` (Xie,
Gurvich and Küçükyavuz 2025).  This module measures each term in the ``clock``
information model (``docs/information-models.md``), where the offline optimum is the exact dynamic
programme of :func:`qtheory.sim.simulate`, and contrasts the ``job`` model.

What is exact and what is simulated (clock model)
-------------------------------------------------
:math:`R_{fluid}` (:func:`~qtheory.lossnet.fluid.fluid_bound`), :math:`R_{on}` and the
optimal reserve :math:`k^*` (:func:`~qtheory.lossnet.online.online_optimum`) are exact.
:math:`R_{off}`, :math:`R_{PFI}`, :math:`R_{SSS(W)}` (:math:`W = c\log N/N` for each
:math:`c`) and trunk reservation at :math:`k^*` are simulated on the *same* replications
(common random numbers).  :math:`R_W` itself is not computable; SSS(W) is a W-lookahead
policy, so :math:`R_{SSS(W)} \le R_W` and

* :math:`\hat C_{vol} = (R_{fluid} - R_{on}) - \overline{(R_{off} - R_{k^*})}`, the
  simulated :math:`R_{k^*}` being a control variate whose mean :math:`R_{on}` is known
  exactly;
* :math:`\hat C_{long}^{+} = \overline{R_{off} - R_{SSS}}`, an upper estimate of
  :math:`C_{long}`;
* :math:`\hat C_{short}^{-} = \overline{R_{SSS} - R_{k^*}}`, a lower estimate of
  :math:`C_{short}` (an unbiased estimate of :math:`R_{SSS} - R_{on}`);
* :math:`\overline{R_{off} - R_{PFI}}`, the cost of PFI's infinite-lookahead heuristic.

Bars are means over replications; each interval is a 95% Student t interval of the mean
of the per-replication values.  On every replication the three per-path terms add up to
the exact regret, so the three estimates do too (to rounding).

Why the variance is small
-------------------------
Each simulated reward rate is :math:`\Theta(N)` and fluctuates by
:math:`O(\sqrt{N/T'})` over a window of length :math:`T' = T - T_0` (the Poisson counts
of admitted H jobs).  On a common path every policy admits almost the same H jobs and
differs only in a few L decisions near the boundary, so a *difference* of two policies
fluctuates by far less.  Measured in the full sweep of
:mod:`qtheory.report.lossnet_decomposition` (default network λ_H = 0.6, λ_L = 0.8,
μ = 1, r_H = 2, r_L = 1), the per-path standard deviation times :math:`\sqrt{T'}` is
about 0.9 (N = 10), 1.8 (100), 3.6 (1000) and 4.4 (10^4) for
:math:`R_{off} - R_{k^*}`, against about 4, 12, 26 and 100 for :math:`R_{off}` alone:
the control variate saves a factor of about 20 (N = 10) to several hundred
(N >= 10^3) in replications.  Its coefficient is fixed at 1 (not fitted), so it adds no
bias and keeps the decomposition exactly additive.  The unpaired estimate
:math:`R_{fluid} - \overline{R_{off}}` is kept as ``c_vol_direct`` for comparison.

What bias the warm-up and the horizon leave
-------------------------------------------
* Start: every run starts with all servers idle and fills in about
  :math:`\log\frac{\lambda_H+\lambda_L}{\lambda_H+\lambda_L-\mu}/\mu` time units (1.25 for
  the default network); the clock-model state is the busy count alone, which then stays
  near full.  A warm-up :math:`T_0` of a few time units leaves no detectable bias (with
  :math:`T_0 = 1` the window still contains the fill and the estimates are visibly off;
  with :math:`T_0 = 3` they are not).  The threshold control variate sees the same start
  and absorbs most of what is left.
* End: the offline DP maximises the reward of the whole run (0, T] and knows that no H
  arrives after T, so near T it admits L jobs it would otherwise have turned away: an end
  bonus of O(1) reward in total, a bias :math:`+b/T'` in :math:`R_{off}`.  Measured at
  N = 1000 (default network, :math:`T_0 = 3`): :math:`\hat C_{vol}` is 2.35, 2.59, 2.79,
  2.89 for :math:`T'` = 2, 5, 20, 80, i.e. :math:`b \approx 1`.  So
  :math:`\hat C_{vol}` is biased down and :math:`\hat C_{long}^{+}` up by about
  :math:`1/T'` (0.01 at :math:`T' = 100`).  PFI and SSS scan the path past T (it is
  generated on demand), so they get no end bonus.

The job model
-------------
Every job shows its service time (``info="job"``); the offline optimum is the
min-cost-flow LP of :mod:`qtheory.lossnet.offline_job` (through
``simulate(..., info="job")``), which may prefer short jobs and beats the ordinary fluid
bound by :math:`\Theta(N)`: the paper's ordering :math:`R_{fluid} \ge R_{off}` belongs
to the clock model.  The proper upper bound is the duration-aware fluid bound
:math:`Nv` (:func:`~qtheory.lossnet.duration_fluid.duration_fluid_bound`); over a finite
window its rigorous form is :math:`E[D_{\theta^*}]/T'` with the path-wise dual bound
:math:`D_{\theta^*} \ge \mathrm{OFF}` (:mod:`qtheory.lossnet.duration_fluid`), whose
mean is known exactly.  :math:`D_{\theta^*}` is the control variate here:
:math:`\hat R_{off} = E[D]/T' - \overline{(D/T' - R_{off})}` (intervals 2.5 to 6 times
narrower than the plain mean's, N = 10 to 10^4).

n classes
---------
:class:`ClockDesign`, :func:`decomposition`, :func:`replication` and
:func:`fit_decomposition` also take an n-class
:class:`~qtheory.model.classes.ClassNetwork` (clock model): the same sweep, task by
task through the same executor and cache, with :math:`R_{fluid}`
(:func:`~qtheory.lossnet.fluid.class_fluid_bound`, the fluid LP's value by the marginal
class), :math:`R_{on}` and the nested reserves :math:`(k_1, \dots, k_n)`
(:func:`~qtheory.lossnet.nested.nested_optimum`) exact, and the policies of
:mod:`qtheory.sim.lossnet_classes` simulated on common paths: the offline dynamic
programme, PFI and SSS(W) generalised (class j judged on the future in which only the
classes better than j are admitted) and nested trunk reservation at the optimal reserves
as the control variate.  The estimators are those above; SSS(W) is still a W-lookahead
policy, so :math:`\hat C_{long}^{+} \ge C_{long}` and :math:`\hat C_{short}^{-}` is a
lower estimate of :math:`C_{short}`.  :func:`fit_decomposition` compares the regret's
slope with :math:`c(n) = r_m\mu/\log(\mu/(\lambda_1 + \dots + \lambda_{m-1}))`
(:func:`~qtheory.lossnet.regret.class_leading_constant`, m the marginal class).  A
task of an n-class network holds ``servers``, ``lambdas``, ``rewards`` and ``mu`` in
place of the six two-class fields (so two-class tasks keep their cache keys).  The job
model and the rolling-horizon policy stay two-class.  The offline programme of a
network whose marginal class is not the last runs in full (O(events x N) work, see
:mod:`qtheory.sim.lossnet_classes`), which bounds the N a sweep can reach (N = 1000
with a window of 100 is about 3e8 cells per replication).

A stronger lower bound on R_W: the rolling-horizon policy
--------------------------------------------------------
:func:`rolling_horizon` (RH) is a W-lookahead policy: at each L arrival it solves the
exact dynamic programme over the path's events in the next W time units, with the
online optimum's relative values (:func:`relative_values`) as terminal values, and
admits iff that says so (H is always admitted when a server is idle).  As W -> 0 it is
trunk reservation at :math:`k^*`; like SSS it sees no further than W, so
:math:`R_{RH} \le R_W` and :math:`\overline{R_{off} - R_{RH}}` is another upper estimate
of :math:`C_{long}` (:class:`RollingHorizonDesign`).  It is NumPy over the exported
:func:`~qtheory.sim.clock_path`: one backward pass over (events in the window) x (a band
of busy counts) per L arrival.  Measured CPU seconds per unit of simulated time (default
network, c = 16): 0.007 (N = 10), 0.035 (30), 0.16 (100), 0.65 (300), 2.8 (1000); about
proportional to c, so it is practical up to N of a few hundred.  In the full sweep
(N <= 100, 6 paths of length 100 each), RH with c = 16 comes within 0.02 of the offline
reward (:math:`\overline{R_{off} - R_{RH}} \le 0.02 \pm 0.02`) where SSS(W) stays about
1 below it: SSS is a loose lower bound on :math:`R_W`.

Seeds
-----
Replication ``rep`` of root seed ``seed`` draws its path from
``default_rng(qtheory.core.stats.replication_seed(seed, rep))`` =
``default_rng(SeedSequence(seed, spawn_key=(rep,)))`` -- exactly replication ``rep`` of
``simulate(..., reps=R, seed=seed)`` and ``compare(...)`` for any R > rep.  It is run as
``simulate(..., reps=1, seed=root)`` with the root whose replication 0 is that seed
(``SeedSequence(seed, n_children_spawned=rep)``), afresh for each policy, so every
policy sees the same path and each replication is a self-contained task that any
process can compute.

Costs
-----
A sweep is a batch of independent, cached replications: every design checks, before
any task runs, that one replication of each of its policies is within the limits of
:mod:`qtheory.core.limits` (:func:`qtheory.sim.lossnet.require_run`; the rolling-horizon
programme's cells too) and that its task list fits in memory.  Totals over many
replications are not limited (the full reproduce sweep runs for about half an hour).

References
----------
.. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
   overloaded loss network", arXiv:2601.14538 (2026).
.. [2] X. Xie, I. Gurvich and S. Küçükyavuz, "Dynamic allocation of reusable resources:
   logarithmic regret in overloaded networks", Operations Research 73(4) (2025).
.. [3] M. L. Puterman, Markov Decision Processes, Wiley (1994): relative values of an
   average-reward policy (:func:`relative_values`).

Examples
--------
>>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
>>> d = decomposition(net, cs=[1.0, 8.0], horizon=40.0, warmup=3.0, reps=4, seed=1)
>>> d.reserve, round(d.regret, 4)
(2, 2.8694)
>>> total = d.c_vol.mean + d.at(8.0).c_long.mean + d.at(8.0).c_short.mean
>>> bool(abs(total - d.regret) < 1e-9)
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.stats import linregress

from qtheory.core import limits, validation
from qtheory.core.cache import ResultCache, cached_map
from qtheory.core.executor import Executor, SerialExecutor
from qtheory.core.stats import Estimate, replication_seed
from qtheory.exact.mdp import evaluate_policy
from qtheory.lossnet.duration_fluid import (
    duration_fluid_solution,
    expected_dual_bound,
    pathwise_dual_bound,
)
from qtheory.lossnet.fluid import class_fluid_bound, fluid_bound
from qtheory.lossnet.mdp import admission_mdp
from qtheory.lossnet.nested import nested_optimum
from qtheory.lossnet.offline_job import simulate_offline_job
from qtheory.lossnet.online import online_optimum
from qtheory.lossnet.regret import class_leading_constant, leading_constant
from qtheory.model.classes import ClassNetwork
from qtheory.model.lossnet import LossNetwork, as_network
from qtheory.sim.lossnet import (
    clock_path,
    job_path,
    parse_policy,
    require_path,
    require_run,
    simulate,
)
from qtheory.sim.lossnet_classes import parse_class_policy, require_class_run, simulate_classes

__all__ = [
    "ClockDecomposition",
    "ClockDesign",
    "DecompositionFits",
    "JobDecomposition",
    "JobDesign",
    "LookaheadPoint",
    "RollingHorizonDesign",
    "RollingHorizonPoint",
    "RollingHorizonResult",
    "SlopeFit",
    "decomposition",
    "fit_decomposition",
    "job_decomposition",
    "relative_values",
    "replication",
    "replication_task",
    "rolling_horizon",
    "run_designs",
    "slope_on_log",
]

#: Part of every task, hence of every cache key: bump it when a task's result changes
#: meaning (see :mod:`qtheory.core.cache`).
TASK_VERSION = 1
NETWORK_FIELDS = ("servers", "lambda_h", "lambda_l", "mu", "r_h", "r_l")
#: The fields of an n-class network's task (``lambdas`` and ``rewards`` as lists).
CLASS_NETWORK_FIELDS = ("servers", "lambdas", "rewards", "mu")
OFFLINE = "offline"

#: A network of the sweeps: two classes, or n classes (clock model only).
Network = LossNetwork | ClassNetwork


# ------------------------------------------------------------ networks


def _check_network(net: object) -> Network:
    """``net`` if it is a :class:`ClassNetwork`, else :func:`as_network` of it."""
    return net if isinstance(net, ClassNetwork) else as_network(net)


def _network_fields(net: Network) -> dict[str, Any]:
    if isinstance(net, ClassNetwork):
        return {"servers": net.servers, "lambdas": list(net.lambdas),
                "rewards": list(net.rewards), "mu": net.mu}  # fmt: skip
    return {name: getattr(net, name) for name in NETWORK_FIELDS}


def _task_network(task: dict[str, Any]) -> Network:
    """The network of a task: n classes if it has ``lambdas``, else two."""
    if "lambdas" in task:
        return ClassNetwork(*(task[name] for name in CLASS_NETWORK_FIELDS))
    return LossNetwork(*(task[name] for name in NETWORK_FIELDS))


def _optimum(net: Network) -> dict[str, Any]:
    """The exact R_fluid, R_on, regret and optimal reserve: k* (int) of
    :func:`~qtheory.lossnet.online.online_optimum` for two classes, the nested reserves
    (k_1, …, k_n) of :func:`~qtheory.lossnet.nested.nested_optimum` for n."""
    if isinstance(net, ClassNetwork):
        opt = nested_optimum(net)
        return {"fluid": class_fluid_bound(net), "online": float(opt.online),
                "regret": float(opt.regret), "reserve": opt.reserves}  # fmt: skip
    opt = online_optimum(net)
    return {"fluid": fluid_bound(net), "online": float(opt.online),
            "regret": float(opt.regret), "reserve": opt.reserve}  # fmt: skip


def _threshold_policy(reserve: int | tuple[int, ...]) -> str:
    """``threshold:k*`` (two classes) or ``threshold:k_1,...,k_n``."""
    if isinstance(reserve, tuple):
        return "threshold:" + ",".join(str(k) for k in reserve)
    return f"threshold:{reserve}"


def _window(net: Network, c: float) -> float:
    """W = c log N / N by :meth:`LossNetwork.window`, whose rule reads only N (so it
    serves n classes too)."""
    return LossNetwork.window(net, c)


def _leading_constant(net: Network) -> float:
    if isinstance(net, ClassNetwork):
        return class_leading_constant(net)
    return leading_constant(net)


# ------------------------------------------------------------ one replication


def _policy_list(policies: object, net: Network) -> list[str]:
    if isinstance(policies, str) or not isinstance(policies, Sequence) or not policies:
        raise ValueError(f"policies must be a non-empty list of policy strings, got {policies!r}")
    for policy in policies:
        if isinstance(net, ClassNetwork):
            parse_class_policy(policy, net)
        else:
            parse_policy(policy, net.servers)
    if len(set(policies)) != len(policies):
        raise ValueError(f"policies must be distinct, got {policies!r}")
    return list(policies)


def replication_task(
    net: Network,
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
    net : LossNetwork or ClassNetwork
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
        Distinct, non-empty list of policy strings (:func:`qtheory.sim.lossnet.parse_policy`,
        plus ``"offline"``; n classes: :func:`qtheory.sim.lossnet_classes.parse_class_policy`).
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
    net = _check_network(net)
    if not isinstance(info, str) or info not in ("clock", "job"):
        raise ValueError(f"info must be 'clock' or 'job', got {info!r}")
    if isinstance(net, ClassNetwork) and info != "clock":
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
        if info != "clock" or isinstance(net, ClassNetwork):
            raise ValueError("rolling_horizon runs in the two-class clock model only")
        windows = [validation.positive("rolling_horizon window", w) for w in rolling_horizon]
        task["rolling_horizon"] = windows
    return task


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
        :func:`qtheory.sim.lossnet_classes.simulate_classes`) replaces ``admitted_h``
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
    >>> from qtheory.model.classes import ClassNetwork
    >>> from qtheory.sim.lossnet_classes import compare_classes
    >>> three = ClassNetwork(10, (0.3, 0.9, 0.6), (3.0, 2.0, 1.0), 1.0)
    >>> out = replication(replication_task(three, info="clock", horizon=30.0, warmup=0.0,
    ...                                    seed=3, rep=1, policies=["offline", "pfi"]))
    >>> cmp = compare_classes(three, ["offline", "pfi"], horizon=30.0, reps=2, seed=3)
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
    net = _task_network(task)
    if isinstance(net, ClassNetwork):
        return _class_replication(net, task)
    checked = replication_task(
        net,
        **{name: task[name] for name in ("info", "horizon", "warmup", "seed", "rep", "policies")},
        rolling_horizon=task.get("rolling_horizon", ()),
    )
    out: dict[str, Any] = {"reward_rate": {}, "admitted_h": {}, "admitted_l": {}, "mean_idle": {}}
    run = dict(horizon=checked["horizon"], warmup=checked["warmup"], reps=1,
               seed=_replication_root(checked["seed"], checked["rep"]))  # fmt: skip
    for policy in checked["policies"]:
        if checked["info"] == "job" and policy == OFFLINE:
            res = simulate_offline_job(net, **run)
        else:
            res = simulate(net, policy, info=checked["info"], **run)
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


def _class_replication(net: ClassNetwork, task: dict[str, Any]) -> dict[str, Any]:
    """:func:`replication` of an n-class task (clock model, no rolling horizon)."""
    names = ("info", "horizon", "warmup", "seed", "rep", "policies")
    checked = replication_task(net, **{name: task[name] for name in names},
                               rolling_horizon=task.get("rolling_horizon", ()))  # fmt: skip
    out: dict[str, Any] = {"reward_rate": {}, "admitted": {}, "mean_idle": {}}
    root = _replication_root(checked["seed"], checked["rep"])
    for policy in checked["policies"]:
        res = simulate_classes(net, policy, horizon=checked["horizon"],
                               warmup=checked["warmup"], reps=1, seed=root)  # fmt: skip
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


# -------------------------------------------------------------------- designs


def _lookahead_constants(cs: object) -> tuple[float, ...]:
    if isinstance(cs, str) or not isinstance(cs, Sequence | np.ndarray) or len(cs) == 0:
        raise ValueError(
            f"cs must be a non-empty sequence of constants c > 0 (W = c log N / N), got {cs!r}"
        )
    values = tuple(validation.positive(f"cs[{i}]", c) for i, c in enumerate(cs))
    if len(set(values)) != len(values):
        raise ValueError(f"cs must be distinct, got {list(values)}")
    return values


def _sss_policy(net: Network, c: float) -> str:
    return f"sss:{_window(net, c)!r}"


@dataclass(frozen=True)
class _Design:
    """A sweep point: the network, the run (horizon T, warm-up T0, replications, seed)."""

    net: Network
    horizon: float
    warmup: float
    reps: int
    seed: int

    info = "clock"

    def __post_init__(self) -> None:
        _check_network(self.net)
        if isinstance(self.net, ClassNetwork) and not isinstance(self, ClockDesign):
            raise ValueError(
                f"net: an n-class network runs in a ClockDesign only, not a {type(self).__name__}"
            )
        object.__setattr__(self, "horizon", validation.positive("horizon", self.horizon))
        object.__setattr__(self, "warmup", validation.nonnegative("warmup", self.warmup))
        if not self.warmup < self.horizon:
            raise ValueError(
                f"warmup must be < horizon, got warmup={self.warmup}, horizon={self.horizon}"
            )
        reps = validation.positive_int("reps", self.reps)
        if reps < 2:
            raise ValueError(f"reps must be >= 2 for confidence intervals, got {reps}")
        object.__setattr__(self, "reps", reps)
        object.__setattr__(self, "seed", validation.nonnegative_int("seed", self.seed))

    def policies(self, reserve: int | tuple[int, ...]) -> list[str]:
        """The policy strings run in every replication, given the optimal reserve k*
        (n classes: the nested reserves)."""
        raise NotImplementedError

    def windows(self) -> list[float]:
        """Rolling-horizon windows run in every replication (none by default)."""
        return []

    def check_cost(self, policies: Sequence[str]) -> None:
        """Refuse (ValueError, before any task runs) a design one of whose replications
        exceeds the limits of :mod:`qtheory.core.limits`, or whose task list does not fit in
        memory (about 2 kB per replication)."""
        limits.require("memory", 2e3 * self.reps, parameter="reps",
                       what=f"the task list of {self.reps} replications")  # fmt: skip
        for policy in policies:
            if isinstance(self.net, ClassNetwork):
                require_class_run(self.net, policy, horizon=self.horizon)
            elif self.info == "job" and policy == OFFLINE:
                require_path(self.net, info="job", horizon=self.horizon)
            else:
                require_run(self.net, policy, info=self.info, horizon=self.horizon)
        for window in self.windows():
            _require_rolling(self.net, window, self.horizon)

    def tasks(self) -> list[dict[str, Any]]:
        """One :func:`replication` task per replication, after :meth:`check_cost`."""
        policies = self.policies(_optimum(self.net)["reserve"])
        self.check_cost(policies)
        return [
            replication_task(
                self.net,
                info=self.info,
                horizon=self.horizon,
                warmup=self.warmup,
                seed=self.seed,
                rep=rep,
                policies=policies,
                rolling_horizon=self.windows(),
            )
            for rep in range(self.reps)
        ]

    def _exact(self) -> dict[str, Any]:
        return {
            "net": self.net,
            "horizon": self.horizon,
            "warmup": self.warmup,
            "reps": self.reps,
            "seed": self.seed,
            **_optimum(self.net),
        }


def _rates(results: Sequence[dict[str, Any]], policy: str) -> np.ndarray:
    return np.array([r["reward_rate"][policy] for r in results], dtype=float)


@dataclass(frozen=True)
class LookaheadPoint:
    r"""SSS(W) at W = c log N / N: the upper estimate of C_long = R_off − R_W and the lower
    estimate of C_short = R_W − R_on (95% intervals).

    Since SSS(W) sees no further than W, :math:`R_{SSS(W)} \le R_W`, hence
    :math:`\overline{R_{off} - R_{SSS}} \ge C_{long}` and
    :math:`\overline{R_{SSS} - R_{k^*}} \le C_{short}` in expectation; on every path the
    two add up to :math:`R_{off} - R_{k^*}` (Bray [1]_).

    Attributes
    ----------
    c : float
        The lookahead constant.
    window : float
        W = c log N / N.
    c_long : qtheory.core.stats.Estimate
        Mean of R_off − R_SSS over the replications (upper estimate of C_long).
    c_short : qtheory.core.stats.Estimate
        Mean of R_SSS − R_k* (lower estimate of C_short; unbiased for R_SSS − R_on).

    Examples
    --------
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> d = decomposition(net, cs=[1.0], horizon=40.0, warmup=3.0, reps=4, seed=1)
    >>> point = d.at(1.0)
    >>> round(point.window, 6), round(math.log(10) / 10, 6)  # W = c log N / N
    (0.230259, 0.230259)
    >>> # C_long + C_short = mean(R_off - R_k*) = offline - R_on, path by path
    >>> total = point.c_long.mean + point.c_short.mean
    >>> bool(abs(total - (d.offline.mean - d.online)) < 1e-9)
    True

    References
    ----------
    .. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
       overloaded loss network", arXiv:2601.14538 (2026).
    """

    c: float
    window: float
    c_long: Estimate  # mean of R_off - R_SSS
    c_short: Estimate  # mean of R_SSS - R_k*


@dataclass(frozen=True)
class _SweepResult:
    """What every result of one N holds: the run (network, horizon, warm-up, replications,
    seed) and the exact R_fluid, R_on, regret = R_fluid − R_on and reserve k* (admit L
    only while more than k* servers are idle; n classes: the nested reserves
    (k_1, …, k_n))."""

    net: Network
    horizon: float
    warmup: float
    reps: int
    seed: int
    fluid: float
    online: float
    regret: float
    reserve: int | tuple[int, ...]

    @property
    def servers(self) -> int:
        return self.net.servers


@dataclass(frozen=True)
class ClockDecomposition(_SweepResult):
    r"""The decomposition at one N in the clock model (see the module docstring).

    ``fluid``, ``online``, ``regret`` and ``reserve`` (k*) are exact; ``offline`` is
    R_on + mean(R_off − R_k*); ``c_vol`` the control-variate estimate and ``c_vol_direct``
    R_fluid − mean(R_off); ``pfi_gap`` mean(R_off − R_PFI); ``threshold_check``
    mean(R_k*) − R_on (the simulator against the exact value: should contain 0);
    ``offline_idle`` the offline optimum's time-average idle count; ``lookahead`` one
    :class:`LookaheadPoint` per c.

    The estimators are :math:`\hat C_{vol} = (R_{fluid} - R_{on}) -
    \overline{(R_{off} - R_{k^*})}` (a control variate with known mean :math:`R_{on}`),
    :math:`\hat C_{long}^{+}` and :math:`\hat C_{short}^{-}` per c, and they add up to the
    exact regret :math:`R_{fluid} - R_{on}` (Bray [1]_; the regret is
    :math:`\Theta(\log N)` by Xie, Gurvich & Küçükyavuz [2]_).

    Attributes
    ----------
    net, horizon, warmup, reps, seed
        The run: the network, T, T0, the number of replications and the root seed.
    fluid : float
        R_fluid (:func:`~qtheory.lossnet.fluid.fluid_bound`; n classes
        :func:`~qtheory.lossnet.fluid.class_fluid_bound`), exact.
    online : float
        R_on, the reward rate of the online optimum, exact.
    regret : float
        R_fluid − R_on, exact.
    reserve : int or tuple of int
        k*: the online optimum admits L only while more than k* servers are idle.  With
        n classes the nested reserves (k_1, …, k_n) of
        :func:`~qtheory.lossnet.nested.nested_optimum`, and R_k* is nested trunk
        reservation with them.
    offline : qtheory.core.stats.Estimate
        R_on + mean(R_off − R_k*).
    c_vol : qtheory.core.stats.Estimate
        The control-variate estimate of C_vol = R_fluid − R_off.
    c_vol_direct : qtheory.core.stats.Estimate
        R_fluid − mean(R_off) (unpaired, for comparison).
    pfi_gap : qtheory.core.stats.Estimate
        mean(R_off − R_PFI).
    threshold_check : qtheory.core.stats.Estimate
        mean(R_k*) − R_on (should contain 0).
    offline_idle : qtheory.core.stats.Estimate
        The offline optimum's time-average number of idle servers.
    lookahead : tuple of LookaheadPoint
        One per c, in the order of ``cs``.
    samples : dict
        Policy string to the per-replication reward rates (left out of the repr).
    servers : int
        N (a property).

    Examples
    --------
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> d = decomposition(net, cs=[1.0], horizon=40.0, warmup=3.0, reps=4, seed=1)
    >>> # R_fluid = r_H lambda_H N + r_L (mu - lambda_H) N = 12 + 4
    >>> d.servers, d.fluid, d.reserve
    (10, 16.0, 2)
    >>> bool(abs(d.c_vol.mean - (d.regret - (d.offline.mean - d.online))) < 1e-9)
    True
    >>> sorted(d.samples)[:2]
    ['offline', 'pfi']

    References
    ----------
    .. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
       overloaded loss network", arXiv:2601.14538 (2026).
    .. [2] X. Xie, I. Gurvich and S. Küçükyavuz, "Dynamic allocation of reusable
       resources: logarithmic regret in overloaded networks", Operations Research 73(4)
       (2025).
    """

    offline: Estimate
    c_vol: Estimate
    c_vol_direct: Estimate
    pfi_gap: Estimate
    threshold_check: Estimate
    offline_idle: Estimate
    lookahead: tuple[LookaheadPoint, ...]
    samples: dict[str, tuple[float, ...]] = field(repr=False, compare=True)

    def at(self, c: float) -> LookaheadPoint:
        """The lookahead point of constant ``c``.

        Parameters
        ----------
        c : float
            One of the constants of the design (compared exactly).

        Returns
        -------
        LookaheadPoint

        Raises
        ------
        ValueError
            If ``c`` is not one of the constants.

        Examples
        --------
        >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
        >>> d = decomposition(net, cs=[1.0, 8.0], horizon=40.0, warmup=3.0, reps=4, seed=1)
        >>> d.at(8.0).c
        8.0
        >>> d.at(2.0)
        Traceback (most recent call last):
        ...
        ValueError: c must be one of [1.0, 8.0], got 2.0
        """
        for point in self.lookahead:
            if point.c == c:
                return point
        raise ValueError(f"c must be one of {[p.c for p in self.lookahead]}, got {c!r}")


@dataclass(frozen=True)
class _LookaheadDesign(_Design):
    """A clock-model design with lookahead constants ``cs`` (W = c log N / N each)."""

    cs: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "cs", _lookahead_constants(self.cs))
        _window(self.net, self.cs[0])  # N >= 2

    def sss_policies(self) -> list[str]:
        """The SSS(c log N / N) policy strings, one per c."""
        return [_sss_policy(self.net, c) for c in self.cs]


@dataclass(frozen=True)
class ClockDesign(_LookaheadDesign):
    """A clock-model sweep point: offline, PFI, trunk reservation at k* and SSS(c log N/N)
    for each c in ``cs``.

    Run it with :func:`run_designs` (several designs share one executor); its result is
    a :class:`ClockDecomposition`.

    Parameters
    ----------
    net : LossNetwork or ClassNetwork
        N >= 2 (n classes: clock model, see the module docstring).
    horizon : float
        T > 0.
    warmup : float
        T0 with 0 <= T0 < T.
    reps : int
        Replications (>= 2, for confidence intervals).
    seed : int
        Root seed (>= 0).
    cs : sequence of float
        Distinct lookahead constants c > 0 (stored as a tuple).

    Attributes
    ----------
    net, horizon, warmup, reps, seed, cs
        The validated parameters.
    info : str
        ``"clock"``.

    Raises
    ------
    ValueError
        For an invalid network, T, T0 (also T0 >= T), ``reps < 2``, a negative seed,
        an empty or repeated ``cs``, a c <= 0, or N < 2.

    Examples
    --------
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> design = ClockDesign(net, 43.0, 3.0, 4, 1, cs=[1.0, 8.0])
    >>> design.cs, design.info, design.policies(2)[:3]
    ((1.0, 8.0), 'clock', ['offline', 'pfi', 'threshold:2'])
    >>> ClockDesign(net, 43.0, 3.0, 1, 1, cs=[1.0])
    Traceback (most recent call last):
    ...
    ValueError: reps must be >= 2 for confidence intervals, got 1
    """

    def policies(self, reserve: int | tuple[int, ...]) -> list[str]:
        """Offline, PFI, trunk reservation at ``reserve`` and SSS for each c.

        Parameters
        ----------
        reserve : int or tuple of int
            k*, the online optimum's reserve (n classes: its nested reserves).

        Returns
        -------
        list of str
            ``["offline", "pfi", "threshold:<reserve>", "sss:<W>", ...]``, W = c log N / N
            for each c (n classes: ``threshold:k_1,...,k_n``).

        Examples
        --------
        >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
        >>> policies = ClockDesign(net, 43.0, 3.0, 4, 1, cs=[1.0]).policies(2)
        >>> policies[:3], round(float(policies[3].split(":")[1]), 6)  # log(10) / 10
        (['offline', 'pfi', 'threshold:2'], 0.230259)
        """
        return [OFFLINE, "pfi", _threshold_policy(reserve), *self.sss_policies()]

    def estimate(self, results: Sequence[dict[str, Any]]) -> ClockDecomposition:
        """The estimators from the replications' results (in replication order).

        Parameters
        ----------
        results : sequence of dict
            The outputs of :func:`replication` on :meth:`tasks` of this design, in
            replication order (at least 2).

        Returns
        -------
        ClockDecomposition

        Examples
        --------
        >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
        >>> design = ClockDesign(net, 23.0, 3.0, 3, 1, cs=[1.0])
        >>> result = design.estimate([replication(task) for task in design.tasks()])
        >>> result == run_designs([design])[0]
        True
        """
        exact = self._exact()
        off = _rates(results, OFFLINE)
        base = _rates(results, _threshold_policy(exact["reserve"]))
        points = []
        for c in self.cs:
            sss = _rates(results, _sss_policy(self.net, c))
            window = _window(self.net, c)
            points.append(
                LookaheadPoint(c, window, Estimate.of(off - sss), Estimate.of(sss - base))
            )
        idle = np.array([r["mean_idle"][OFFLINE] for r in results])
        return ClockDecomposition(
            **exact,
            offline=Estimate.of(off - base).shifted(exact["online"]),
            c_vol=Estimate.of(exact["regret"] - (off - base)),
            c_vol_direct=Estimate.of(exact["fluid"] - off),
            pfi_gap=Estimate.of(off - _rates(results, "pfi")),
            threshold_check=Estimate.of(base - exact["online"]),
            offline_idle=Estimate.of(idle),
            lookahead=tuple(points),
            samples={p: tuple(_rates(results, p)) for p in results[0]["reward_rate"]},
        )


@dataclass(frozen=True)
class JobDecomposition(_SweepResult):
    r"""The job model at one N (see the module docstring).

    Exact: ``fluid``, ``online``, ``regret``, ``reserve`` (k*), ``duration_bound`` (N v,
    the duration-aware fluid bound) and ``window_bound`` (E[D_θ*]/T', its rigorous form
    over the window, N v plus the end effect).  Estimated (95% intervals): ``offline``
    (control variate D_θ*), ``offline_direct`` (plain mean), ``offline_minus_fluid``,
    ``duration_gap`` = N v − R_off, ``window_gap`` = E[D]/T' − R_off (≥ 0),
    ``offline_minus_online`` = mean(R_off − R_k*) (paired) and ``threshold_check`` =
    mean(R_k*) − R_on.  ``min_dual_slack`` is min over paths of D_θ*/T' − R_off (≥ 0 by
    weak duality).

    With the path-wise dual bound :math:`D_{\theta^*} \ge \mathrm{OFF}` as control
    variate, :math:`\hat R_{off} = E[D]/T' - \overline{(D/T' - R_{off})}`, so
    ``offline + window_gap = window_bound`` and ``offline + duration_gap =
    duration_bound`` exactly (``docs/information-models.md``).

    Attributes
    ----------
    net, horizon, warmup, reps, seed, fluid, online, regret, reserve
        As in :class:`ClockDecomposition`.
    duration_bound : float
        N v, the duration-aware fluid bound.
    window_bound : float
        E[D_θ*]/T', its rigorous form over the window T' = T − T0.
    offline, offline_direct : qtheory.core.stats.Estimate
        R_off by the control variate and by the plain mean.
    offline_minus_fluid, duration_gap, window_gap : qtheory.core.stats.Estimate
        R_off − R_fluid, N v − R_off and E[D]/T' − R_off.
    offline_minus_online, threshold_check : qtheory.core.stats.Estimate
        mean(R_off − R_k*) and mean(R_k*) − R_on.
    min_dual_slack : float
        The smallest D_θ*/T' − R_off over the paths.

    Examples
    --------
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> (j,) = run_designs([JobDesign(net, 8.0, 3.0, 2, 2)])
    >>> j.fluid, j.reserve, j.min_dual_slack >= 0
    (16.0, 2, True)
    >>> bool(abs(j.offline.mean + j.window_gap.mean - j.window_bound) < 1e-9)
    True
    """

    duration_bound: float
    window_bound: float
    offline: Estimate
    offline_direct: Estimate
    offline_minus_fluid: Estimate
    duration_gap: Estimate
    window_gap: Estimate
    offline_minus_online: Estimate
    threshold_check: Estimate
    min_dual_slack: float


@dataclass(frozen=True)
class JobDesign(_Design):
    """A job-model sweep point: the offline LP and trunk reservation at k*.

    Parameters
    ----------
    net : LossNetwork
        The network.
    horizon, warmup : float
        T > 0 and 0 <= T0 < T.
    reps : int
        Replications (>= 2).
    seed : int
        Root seed (>= 0).

    Attributes
    ----------
    net, horizon, warmup, reps, seed
        The validated parameters.
    info : str
        ``"job"``.

    Raises
    ------
    ValueError
        For invalid parameters (as :class:`ClockDesign`) or an n-class network (two
        classes only).

    Examples
    --------
    >>> design = JobDesign(LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0), 8.0, 3.0, 2, 2)
    >>> design.info, design.policies(2)
    ('job', ['offline', 'threshold:2'])
    """

    info = "job"

    def policies(self, reserve: int) -> list[str]:
        """The offline LP and trunk reservation at ``reserve``.

        Parameters
        ----------
        reserve : int
            k*.

        Returns
        -------
        list of str
            ``["offline", "threshold:<reserve>"]``.

        Examples
        --------
        >>> JobDesign(LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0), 8.0, 3.0, 2, 2).policies(3)
        ['offline', 'threshold:3']
        """
        return [OFFLINE, f"threshold:{reserve}"]

    def estimate(self, results: Sequence[dict[str, Any]]) -> JobDecomposition:
        """The estimators from the replications' results (in replication order).

        Parameters
        ----------
        results : sequence of dict
            The outputs of :func:`replication` on :meth:`tasks` (with ``dual_bound``).

        Returns
        -------
        JobDecomposition

        Examples
        --------
        >>> design = JobDesign(LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0), 8.0, 3.0, 2, 2)
        >>> j = design.estimate([replication(task) for task in design.tasks()])
        >>> j.offline_direct.n, j.min_dual_slack >= 0
        (2, True)
        """
        exact = self._exact()
        solution = duration_fluid_solution(self.net)
        window = self.horizon - self.warmup
        window_bound = expected_dual_bound(solution, window) / window
        off = _rates(results, OFFLINE)
        base = _rates(results, f"threshold:{exact['reserve']}")
        slack = np.array([r["dual_bound"] for r in results]) - off
        offline = Estimate.of(slack).negated().shifted(window_bound)
        return JobDecomposition(
            **exact,
            duration_bound=float(solution.value),
            window_bound=float(window_bound),
            offline=offline,
            offline_direct=Estimate.of(off),
            offline_minus_fluid=offline.shifted(-exact["fluid"]),
            duration_gap=offline.negated().shifted(float(solution.value)),
            window_gap=Estimate.of(slack),
            offline_minus_online=Estimate.of(off - base),
            threshold_check=Estimate.of(base - exact["online"]),
            min_dual_slack=float(slack.min()),
        )


@dataclass(frozen=True)
class RollingHorizonPoint:
    """At W = c log N / N: the rolling-horizon policy RH(W) against the offline optimum
    and SSS(W) on the same paths (95% intervals).  ``c_long`` = mean(R_off − R_RH), an
    upper estimate of C_long; ``c_short`` = mean(R_RH − R_k*), a lower estimate of
    C_short; ``sss_c_long`` = mean(R_off − R_SSS); ``gain_over_sss`` =
    mean(R_RH − R_SSS).

    Attributes
    ----------
    c : float
        The lookahead constant.
    window : float
        W = c log N / N.
    c_long, c_short, sss_c_long, gain_over_sss : qtheory.core.stats.Estimate
        The paired estimates above; path by path ``c_long + gain_over_sss =
        sss_c_long``.

    Examples
    --------
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> (r,) = run_designs([RollingHorizonDesign(net, 23.0, 3.0, 3, 5, cs=[4.0])])
    >>> p = r.points[0]
    >>> round(p.window, 6), round(4 * math.log(10) / 10, 6)
    (0.921034, 0.921034)
    >>> bool(abs(p.c_long.mean + p.gain_over_sss.mean - p.sss_c_long.mean) < 1e-9)
    True
    """

    c: float
    window: float
    c_long: Estimate
    c_short: Estimate
    sss_c_long: Estimate
    gain_over_sss: Estimate


@dataclass(frozen=True)
class RollingHorizonResult(_SweepResult):
    """The rolling-horizon study at one N (clock model): exact ``regret`` and ``reserve``
    and one :class:`RollingHorizonPoint` per c.

    Attributes
    ----------
    net, horizon, warmup, reps, seed, fluid, online, regret, reserve
        As in :class:`ClockDecomposition`.
    points : tuple of RollingHorizonPoint
        One per c, in the order of ``cs``.

    Examples
    --------
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> (r,) = run_designs([RollingHorizonDesign(net, 23.0, 3.0, 3, 5, cs=[1.0, 4.0])])
    >>> r.reserve, [p.c for p in r.points]
    (2, [1.0, 4.0])
    """

    points: tuple[RollingHorizonPoint, ...]


@dataclass(frozen=True)
class RollingHorizonDesign(_LookaheadDesign):
    """A clock-model point for :func:`rolling_horizon` with W = c log N / N for each c in
    ``cs``, run with the offline optimum, trunk reservation at k* and SSS(W) on the same
    paths (small N: the DP costs O(N c log N) per L arrival).

    Parameters
    ----------
    net : LossNetwork
        N >= 2.
    horizon, warmup : float
        T > 0 and 0 <= T0 < T.
    reps : int
        Replications (>= 2).
    seed : int
        Root seed (>= 0).
    cs : sequence of float
        Distinct constants c > 0.

    Attributes
    ----------
    net, horizon, warmup, reps, seed, cs
        The validated parameters.
    info : str
        ``"clock"``.

    Raises
    ------
    ValueError
        For invalid parameters (as :class:`ClockDesign`) or an n-class network (two
        classes only); :func:`run_designs` also refuses a design whose rolling-horizon
        DP exceeds the ``"dp_cells"`` limit of :mod:`qtheory.core.limits`.

    Examples
    --------
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> design = RollingHorizonDesign(net, 23.0, 3.0, 3, 5, cs=[1.0, 4.0])
    >>> design.policies(2)[:2], [round(w, 6) for w in design.windows()]
    (['offline', 'threshold:2'], [0.230259, 0.921034])
    """

    def policies(self, reserve: int) -> list[str]:
        """Offline, trunk reservation at ``reserve`` and SSS for each c.

        Parameters
        ----------
        reserve : int
            k*.

        Returns
        -------
        list of str
            ``["offline", "threshold:<reserve>", "sss:<W>", ...]``.

        Examples
        --------
        >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
        >>> RollingHorizonDesign(net, 23.0, 3.0, 3, 5, cs=[1.0]).policies(2)[:2]
        ['offline', 'threshold:2']
        """
        return [OFFLINE, f"threshold:{reserve}", *self.sss_policies()]

    def windows(self) -> list[float]:
        """W = c log N / N for each c.

        Returns
        -------
        list of float
            One window per c, in the order of ``cs``.

        Examples
        --------
        >>> net = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)
        >>> [round(w, 6) for w in RollingHorizonDesign(net, 23.0, 3.0, 3, 5, cs=[2.0]).windows()]
        [0.092103]
        """
        return [self.net.window(c) for c in self.cs]

    def estimate(self, results: Sequence[dict[str, Any]]) -> RollingHorizonResult:
        """The paired estimates from the replications' results.

        Parameters
        ----------
        results : sequence of dict
            The outputs of :func:`replication` on :meth:`tasks` (with
            ``rolling_horizon``), in replication order.

        Returns
        -------
        RollingHorizonResult

        Examples
        --------
        >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
        >>> design = RollingHorizonDesign(net, 13.0, 3.0, 2, 5, cs=[1.0])
        >>> result = design.estimate([replication(task) for task in design.tasks()])
        >>> result == run_designs([design])[0]
        True
        """
        exact = self._exact()
        off = _rates(results, OFFLINE)
        base = _rates(results, f"threshold:{exact['reserve']}")
        points = []
        for c, window in zip(self.cs, self.windows(), strict=True):
            rh = np.array([r["rolling_horizon"][repr(window)] for r in results])
            sss = _rates(results, _sss_policy(self.net, c))
            points.append(
                RollingHorizonPoint(
                    c,
                    window,
                    c_long=Estimate.of(off - rh),
                    c_short=Estimate.of(rh - base),
                    sss_c_long=Estimate.of(off - sss),
                    gain_over_sss=Estimate.of(rh - sss),
                )
            )
        return RollingHorizonResult(**exact, points=tuple(points))


# ------------------------------------------------------------------- running


def _task_cost(task: dict[str, Any]) -> float:
    """Rough seconds of one replication (the offline DP at ~1e9 cells/s, the job LP at
    ~4e-5 s per job, ~1e-7 s per event for the other policies): the most expensive tasks
    are handed out first, so that a pool does not finish on one long task."""
    net = _task_network(task)
    rate = net.event_rate
    events = rate * task["horizon"]
    cost = 1e-7 * events * len(task["policies"])
    if OFFLINE in task["policies"]:
        per_offline = (task["servers"] + 1) * 1e-9 if task["info"] == "clock" else 4e-5
        cost += per_offline * events
    for window in task.get("rolling_horizon", ()):  # one DP step (~5 us) per window event
        cost += 5e-6 * task["lambda_l"] * task["servers"] * task["horizon"] * rate * window
    return cost


def run_designs(
    designs: Sequence[ClockDesign | JobDesign | RollingHorizonDesign],
    *,
    executor: Executor | None = None,
    cache: ResultCache | None = None,
    desc: str | None = None,
    progress: bool = False,
) -> list[ClockDecomposition | JobDecomposition | RollingHorizonResult]:
    """Estimate every design, with all their replications in one sweep.

    The replications of all designs go to ``executor`` together (so a pool works on
    several sweep points at once), the most expensive first; with ``cache``
    (:class:`qtheory.core.cache.ResultCache`) only the replications it lacks are computed.

    Parameters
    ----------
    designs
        :class:`ClockDesign`, :class:`JobDesign` and :class:`RollingHorizonDesign` points.
    executor
        From :func:`qtheory.core.executor.make_executor`; default: in this process.
    cache
        Default: none (everything is computed).
    desc, progress
        Progress-bar label and switch.

    Returns
    -------
    list
        One :class:`ClockDecomposition`, :class:`JobDecomposition` or
        :class:`RollingHorizonResult` per design, in the order of ``designs``.

    Raises
    ------
    ValueError
        If ``designs`` is not a sequence of designs, or (before any task runs) a design
        exceeds the limits of :mod:`qtheory.core.limits` (:meth:`_Design.check_cost`).

    Examples
    --------
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> designs = [ClockDesign(net.with_servers(n), 13.0, 3.0, 2, 7, cs=[1.0]) for n in (10, 20)]
    >>> [type(r).__name__ for r in run_designs(designs)]
    ['ClockDecomposition', 'ClockDecomposition']
    >>> run_designs(designs[0])
    Traceback (most recent call last):
    ...
    ValueError: designs must be a sequence of designs, got ClockDesign(...)
    """
    if isinstance(designs, _Design) or not isinstance(designs, Sequence):
        raise ValueError(f"designs must be a sequence of designs, got {designs!r}")
    for design in designs:
        if not isinstance(design, _Design):
            raise ValueError(
                f"designs must hold ClockDesign, JobDesign or RollingHorizonDesign, got {design!r}"
            )
    executor = SerialExecutor() if executor is None else executor
    per_design = [design.tasks() for design in designs]
    tasks = [task for group in per_design for task in group]
    order = sorted(range(len(tasks)), key=lambda i: -_task_cost(tasks[i]))
    ordered = [tasks[i] for i in order]
    if cache is None:
        done = executor.map(replication, ordered, desc=desc, progress=progress)
    else:
        done = cached_map(executor, replication, ordered, cache=cache, desc=desc, progress=progress)
    results: list[dict[str, Any]] = [{}] * len(tasks)
    for position, index in enumerate(order):
        results[index] = done[position]
    estimates, start = [], 0
    for design, group in zip(designs, per_design, strict=True):
        estimates.append(design.estimate(results[start : start + len(group)]))
        start += len(group)
    return estimates


def decomposition(
    net: LossNetwork | ClassNetwork,
    *,
    cs: Sequence[float],
    horizon: float,
    warmup: float,
    reps: int,
    seed: int,
    executor: Executor | None = None,
    cache: ResultCache | None = None,
    progress: bool = False,
) -> ClockDecomposition:
    """The clock-model decomposition at one N (see the module docstring).

    Parameters
    ----------
    net : LossNetwork or ClassNetwork
        N >= 2 (n classes: see the module docstring).
    cs : sequence of float
        Distinct constants c > 0; SSS runs with W = c log N / N for each.
    horizon, warmup : float
        T and T0 < T of every replication; statistics over (T0, T].
    reps : int
        Replications (>= 2).
    seed : int
        Root seed (>= 0); replication i draws its path from
        ``default_rng(SeedSequence(seed, spawn_key=(i,)))``.
    executor, cache, progress
        As in :func:`run_designs`.

    Returns
    -------
    ClockDecomposition

    Raises
    ------
    ValueError
        For invalid arguments (:class:`ClockDesign`) or a run over the limits of
        :mod:`qtheory.core.limits`.

    Examples
    --------
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> d = decomposition(net, cs=[1.0], horizon=13.0, warmup=3.0, reps=2, seed=7)
    >>> d.reserve, len(d.lookahead), d.c_vol.n
    (2, 1, 2)
    >>> from qtheory.model.classes import ClassNetwork
    >>> three = ClassNetwork(100, (0.3, 0.9, 0.6), (3.0, 2.0, 1.0), 1.0)
    >>> d = decomposition(three, cs=[8.0], horizon=13.0, warmup=3.0, reps=2, seed=7)
    >>> d.reserve, round(d.regret, 4)
    ((0, 1, 29), 10.0573)
    """
    design = ClockDesign(net, horizon, warmup, reps, seed, cs=cs)
    (result,) = run_designs([design], executor=executor, cache=cache, progress=progress)
    return result


def job_decomposition(
    net: LossNetwork,
    *,
    horizon: float,
    warmup: float,
    reps: int,
    seed: int,
    executor: Executor | None = None,
    cache: ResultCache | None = None,
    progress: bool = False,
) -> JobDecomposition:
    """The job-model comparison at one N: offline LP, trunk reservation at k*, the
    duration-aware bound (arguments as in :func:`decomposition`).

    Parameters
    ----------
    net : LossNetwork
        The network.
    horizon, warmup : float
        T and T0 < T; statistics over (T0, T].
    reps : int
        Replications (>= 2).
    seed : int
        Root seed (>= 0).
    executor, cache, progress
        As in :func:`run_designs`.

    Returns
    -------
    JobDecomposition

    Raises
    ------
    ValueError
        For invalid arguments (:class:`JobDesign`) or a run over the limits of
        :mod:`qtheory.core.limits`.

    Examples
    --------
    >>> net = LossNetwork(20, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> j = job_decomposition(net, horizon=23.0, warmup=3.0, reps=3, seed=2)
    >>> j.offline_minus_fluid.mean > 0, j.min_dual_slack >= 0
    (True, True)
    """
    design = JobDesign(net, horizon, warmup, reps, seed)
    (result,) = run_designs([design], executor=executor, cache=cache, progress=progress)
    return result


# ------------------------------------------------------- rolling-horizon lookahead


def relative_values(net: LossNetwork) -> np.ndarray:
    r"""Relative values h(b), b = 0..N busy servers, of the online optimum (trunk
    reservation at k*) with h(N) = 0: the solution of
    g = r(b) + Σ_b' q(b, b') (h(b') − h(b)) for that policy (one sparse solve,
    :func:`qtheory.exact.mdp.evaluate_policy` on :func:`qtheory.lossnet.mdp.admission_mdp`).

    These are the relative (bias) values of an average-reward policy (Puterman [1]_);
    the online optimum admits L in state b iff :math:`r_L + h(b+1) - h(b) \ge 0`.

    Parameters
    ----------
    net : LossNetwork
        The network.

    Returns
    -------
    numpy.ndarray
        h(0), ..., h(N), with h(N) = 0.

    Examples
    --------
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> h = relative_values(net)
    >>> # in state N only departures (rate N mu = 10): g = 10 (h(N - 1) - h(N))
    >>> float(h[10]), round(float(h[9]), 6), round(online_optimum(net).online / 10, 6)
    (0.0, 1.313063, 1.313063)
    >>> h = relative_values(LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> # k* = 2: admit L (reward 1) iff h(b + 1) - h(b) >= -1, i.e. with b < 8 busy
    >>> [bool(1.0 + h[b + 1] - h[b] >= 0) for b in range(6, 10)]
    [True, True, False, False]

    References
    ----------
    .. [1] M. L. Puterman, Markov Decision Processes, Wiley (1994).
    """
    n, reserve = net.servers, online_optimum(net).reserve
    busy = np.arange(n + 1)
    admit_l = (n - busy > reserve).astype(int)
    policy = np.where(busy < n, 2 + admit_l, 0)  # action 2*admit_h + admit_l
    _, bias = evaluate_policy(admission_mdp(net).mdp, policy, reference_state=n)
    return bias


def _require_rolling(net: LossNetwork, window: float, horizon: float) -> None:
    """Refuse a rolling-horizon run whose DP cells, (L arrivals) x (window events) x
    (a band of 2 (window events) + 2 busy counts), exceed the "dp_cells" limit, or whose
    terminal values (a sparse solve over N + 1 states) do not fit in memory."""
    window_events = net.event_rate * window
    cells = net.arrival_rate_l * horizon * window_events * (2 * window_events + 2)
    what = f"the rolling-horizon DP (N = {net.servers}, W = {window:g}, horizon = {horizon:g})"
    limits.require("dp_cells", cells, parameter="window", what=what)
    require_path(net, info="clock", horizon=horizon + window)


def _window_values(net: LossNetwork, codes: np.ndarray, terminal: np.ndarray, lo: int):
    """Backward induction over the known events ``codes`` of a window, on busy counts
    lo..lo + len(terminal) − 1: H admitted when there is room, L admitted or not
    (maximised), a departure slot s ends a service iff s < b.  Values at the band's
    edges use clipped neighbours; the error moves inward one state per event, so after
    len(codes) events the states at distance >= len(codes) from both edges are exact."""
    busy = np.arange(lo, lo + terminal.size)
    room = busy < net.servers
    value = terminal.copy()
    for code in codes[::-1]:
        up = np.append(value[1:], value[-1])
        if code == -1:
            value = np.where(room, net.r_h + up, value)
        elif code == -2:
            value = np.where(room, np.maximum(value, net.r_l + up), value)
        else:
            down = np.insert(value[:-1], 0, value[0])
            value = np.where(code < busy, down, value)
    return value


def rolling_horizon(
    net: LossNetwork, window: float, *, horizon: float, warmup: float, seed: int, rep: int
) -> dict[str, float]:
    """The rolling-horizon W-lookahead policy on replication ``rep`` of ``seed`` (the path
    of :func:`replication`), clock model.

    H is admitted whenever a server is idle.  At each L arrival the policy solves the
    dynamic programme over the path's events in the next ``window`` time units
    (:func:`_window_values`), with the online optimum's :func:`relative_values` as terminal
    values, and admits iff r_L + V(b + 1) >= V(b).  It sees only (t, t + W], so its
    reward is <= R_W: with W = c log N / N, R_off − R_RH is an upper estimate of C_long
    that is at least as good as SSS's wherever the DP beats SSS.  As W -> 0 it is trunk
    reservation at k* (h satisfies the optimality equation), and it never beats the
    offline optimum on a path (warmup = 0).

    Cost: one backward pass over the window's events, on a band of at most
    2 (events) + 2 busy counts, per L arrival: O(λ_L N · (λ_H + λ_L + μ) c log N) NumPy
    vector operations per unit time (0.16 CPU seconds per unit time at N = 100, c = 16;
    see the module docstring).

    Parameters
    ----------
    net : LossNetwork
        The network.
    window : float
        W > 0.
    horizon, warmup : float
        T and T0 < T; statistics over (T0, T].
    seed, rep : int
        Root seed and replication index (>= 0): the path of :func:`replication`.

    Returns
    -------
    dict
        ``reward_rate`` (float), ``admitted_h`` and ``admitted_l`` (int) over
        (warmup, horizon]; reward_rate = (r_H admitted_h + r_L admitted_l) / (T − T0).

    Raises
    ------
    ValueError
        For invalid arguments (:func:`replication_task`), a window <= 0, or a DP over
        the ``"dp_cells"`` limit of :mod:`qtheory.core.limits`.

    References
    ----------
    .. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
       overloaded loss network", arXiv:2601.14538 (2026).
    .. [2] M. L. Puterman, Markov Decision Processes, Wiley (1994).

    Examples
    --------
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> out = rolling_horizon(net, 0.5, horizon=13.0, warmup=3.0, seed=3, rep=0)
    >>> out["admitted_h"], out["admitted_l"], round(out["reward_rate"], 6)  # (2*51 + 24) / 10
    (51, 24, 12.6)
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> rh = rolling_horizon(net, 1e-9, horizon=30.0, warmup=0.0, seed=3, rep=0)
    >>> task = replication_task(net, info="clock", horizon=30.0, warmup=0.0, seed=3, rep=0,
    ...                         policies=["threshold:2"])
    >>> bool(rh["reward_rate"] == replication(task)["reward_rate"]["threshold:2"])
    True
    """
    window = validation.positive("window", window)
    task = replication_task(net, info="clock", horizon=horizon, warmup=warmup, seed=seed,
                            rep=rep, policies=["pfi"])  # fmt: skip
    _require_rolling(net, window, task["horizon"])
    # The path up to T is a prefix of the path up to T + W (drawn event by event).
    path = clock_path(net, task["horizon"] + window, replication_seed(task["seed"], rep))
    times, codes = path.times, path.codes
    last = int(np.searchsorted(times, task["horizon"], side="right"))
    ends = np.searchsorted(times, times[:last] + window, side="right")
    terminal, n = relative_values(net), net.servers
    busy, admitted = 0, {"h": 0, "l": 0}
    for i in range(last):
        code = codes[i]
        counted = bool(times[i] > task["warmup"])
        if code >= 0:
            busy -= code < busy
            continue
        if busy == n:
            continue
        if code == -2:
            future = codes[i + 1 : ends[i]]
            lo, hi = max(0, busy - future.size), min(n, busy + 1 + future.size)
            value = _window_values(net, future, terminal[lo : hi + 1], lo)
            if net.r_l + value[busy + 1 - lo] < value[busy - lo]:
                continue
        busy += 1
        admitted["l" if code == -2 else "h"] += counted
    length = task["horizon"] - task["warmup"]
    reward = net.r_h * admitted["h"] + net.r_l * admitted["l"]
    return {"reward_rate": float(reward / length), "admitted_h": admitted["h"],
            "admitted_l": admitted["l"]}  # fmt: skip


# ----------------------------------------------------------------------- fits


@dataclass(frozen=True)
class SlopeFit:
    """A straight line value ≈ slope · log N + intercept (:func:`slope_on_log`).

    Attributes
    ----------
    slope : qtheory.core.stats.Estimate
        The fitted slope with its 95% interval (``method="regression"``, ``n`` points,
        t quantile with ``dof`` = n − 2 degrees of freedom).
    intercept : float
        The fitted intercept.
    weighting : str
        ``"ols"`` (exact values, ordinary least squares) or ``"wls"`` (estimates
        weighted by 1/stderr²).
    chi2_dof : float
        The weighted fit's reduced χ² (NaN for OLS).

    Examples
    --------
    >>> fit = slope_on_log([10, 100, 1000], [1.0, 2.1, 2.9], [0.1, 0.1, 0.1])
    >>> fit.slope.method, fit.slope.n, fit.slope.dof, fit.weighting
    ('regression', 3, 1, 'wls')
    >>> fit.bounded  # t_{0.975, 1} = 12.7: one degree of freedom proves nothing
    True
    """

    slope: Estimate
    intercept: float
    weighting: str
    chi2_dof: float

    def contains(self, value: float) -> bool:
        """Whether the slope's 95% interval contains ``value``.

        Parameters
        ----------
        value : float
            The slope to test.

        Returns
        -------
        bool

        Examples
        --------
        >>> fit = slope_on_log([10, 100, 1000], [1.0, 2.1, 2.9], [0.1, 0.1, 0.1])
        >>> fit.contains(0.0), fit.contains(1.0 / math.log(10))
        (True, True)
        """
        return self.slope.contains(value)

    @property
    def lower(self) -> float:
        """Lower end of the slope's 95% interval.

        Examples
        --------
        >>> fit = slope_on_log([10, 100, 1000], [1.0, 2.0, 3.0])  # an exact line: width 0
        >>> round(fit.lower * math.log(10), 12)
        1.0
        """
        return self.slope.lower

    @property
    def upper(self) -> float:
        """Upper end of the slope's 95% interval.

        Examples
        --------
        >>> fit = slope_on_log([10, 100, 1000], [1.0, 2.0, 3.0])  # an exact line: width 0
        >>> round(fit.upper * math.log(10), 12)
        1.0
        """
        return self.slope.upper

    @property
    def bounded(self) -> bool:
        """No significant growth: the 95% interval contains 0 or lies below it (a wide
        interval passes; the claims use :meth:`negligible`).

        Examples
        --------
        >>> slope_on_log([10, 100, 1000], [3.0, 2.0, 1.0]).bounded  # decreasing
        True
        >>> slope_on_log([10, 100, 1000], [1.0, 2.0, 3.0]).bounded
        False
        """
        return self.lower <= 0

    def negligible(self, scale: float, fraction: float = 0.1) -> bool:
        """Equivalence test: the whole 95% interval lies below ``fraction * scale`` (e.g.
        a term that grows at most a tenth as fast as the regret's c log N).  A wide
        interval fails, unlike "the interval contains 0".

        Parameters
        ----------
        scale : float
            The reference slope (e.g. the regret's c).
        fraction : float, default 0.1
            The share of ``scale`` the interval must stay below.

        Returns
        -------
        bool
            ``upper < fraction * scale``.

        Examples
        --------
        >>> fit = slope_on_log([10, 100, 1000], [1.0, 1.01, 1.02])  # slope 0.01 / log 10
        >>> fit.negligible(1.0), fit.negligible(0.01)
        (True, False)
        """
        return self.upper < fraction * scale


def slope_on_log(
    servers: Sequence[int], values: Sequence[float], stderrs: Sequence[float] | None = None
) -> SlopeFit:
    """Fit value ≈ slope · log N + intercept.

    Without ``stderrs`` (exact values): ordinary least squares
    (:func:`scipy.stats.linregress`), half-width t_{0.975, n-2} times the slope's
    standard error, which then measures how well a line fits, not sampling error.

    With ``stderrs`` (estimates): weighted least squares with weights 1/stderr_i², the
    slope's variance from (XᵀWX)⁻¹ multiplied by the Birge ratio max(1, χ²/(n − 2)) (the
    Particle Data Group's scale factor: a scatter beyond the error bars, e.g. curvature,
    widens the interval instead of being ignored), half-width t_{0.975, n-2} standard
    errors (the per-point errors are themselves estimated from a few replications; with
    the normal quantile the coverage fell to about 0.90 at 6 replications per point).

    Parameters
    ----------
    servers : sequence of int
        N >= 1 of each point (at least 3 points, not all equal).
    values : sequence of float
        Finite values, one per point.
    stderrs : sequence of float, optional
        Standard errors of the values (finite, > 0), for a weighted fit.

    Returns
    -------
    SlopeFit

    Raises
    ------
    ValueError
        For fewer than 3 points, mismatched lengths, non-finite values or errors.

    Examples
    --------
    >>> fit = slope_on_log([10, 100, 1000], [1.0, 2.0, 3.0], [0.1, 0.1, 0.1])
    >>> round(fit.slope.mean * math.log(10), 12), fit.weighting, round(fit.chi2_dof, 12)
    (1.0, 'wls', 0.0)
    """
    try:
        n = np.asarray(servers, dtype=float)
        y = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError("servers and values must be sequences of numbers") from error
    if n.ndim != 1 or n.shape != y.shape or n.size < 3:
        raise ValueError("servers and values must be 1-D of equal length >= 3")
    if not (np.all((n >= 1) & np.isfinite(n)) and np.all(np.isfinite(y))) or np.ptp(n) == 0:
        raise ValueError("servers must be >= 1 and not all equal; values must be finite")
    x = np.log(n)
    dof = x.size - 2
    if stderrs is None:
        fit = linregress(x, y)
        slope = Estimate.from_stderr(
            float(fit.slope), float(fit.stderr), x.size, method="regression", dof=dof
        )
        return SlopeFit(slope, float(fit.intercept), "ols", math.nan)
    try:
        se = np.asarray(stderrs, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError("stderrs must be a sequence of numbers") from error
    if se.shape != x.shape or not np.all(np.isfinite(se) & (se > 0)):
        raise ValueError("stderrs must be finite, > 0 and one per point")
    weight = 1.0 / se**2
    design = np.column_stack([np.ones_like(x), x])
    normal = design.T @ (weight[:, None] * design)
    intercept, slope = np.linalg.solve(normal, design.T @ (weight * y))
    chi2_dof = float(np.sum(weight * (y - intercept - slope * x) ** 2)) / dof
    variance = np.linalg.inv(normal)[1, 1] * max(1.0, chi2_dof)
    estimate = Estimate.from_stderr(
        float(slope), math.sqrt(variance), x.size, method="regression", dof=dof
    )
    return SlopeFit(estimate, float(intercept), "wls", chi2_dof)


@dataclass(frozen=True)
class DecompositionFits:
    """Slopes on log N over the points with N >= ``min_servers`` (one network).

    ``regret``: OLS on the exact regret R_fluid − R_on at ``regret_servers`` (a dense log
    grid: it is exact and costs O(N)), to compare with ``leading_constant``
    c = r_L μ / log(μ/λ_H) (n classes: c(n) = r_m μ / log(μ/(λ_1 + … + λ_{m−1})), m the
    marginal class); ``c_vol`` and ``c_short`` (at ``table_c``): WLS on the
    estimates; ``c_long``: WLS for each c, as ``(c, fit)`` pairs.

    Bray [1]_ claims C_vol = O(1) and, for W = c log N / N with c large enough,
    C_long = O(1), hence C_short = Θ(log N) since the regret is Θ(log N) with the
    leading constant above (Xie, Gurvich & Küçükyavuz [2]_).

    Attributes
    ----------
    min_servers : int
        Only points with N >= ``min_servers`` are fitted.
    fit_servers : tuple of int
        The N of the points the estimate fits (``c_vol``, ``c_short``, ``c_long``)
        used: those with N >= ``min_servers``, in the order given.
    table_c : float
        The constant c of the ``c_short`` fit.
    leading_constant : float
        c = r_L μ / log(μ/λ_H) (:func:`qtheory.lossnet.regret.leading_constant`); n
        classes: :func:`qtheory.lossnet.regret.class_leading_constant`.
    regret_servers : tuple of int
        The N of the exact-regret fit.
    regret : SlopeFit
        OLS of the exact regret on log N.
    c_vol, c_short : SlopeFit
        WLS of the C_vol and C_short (at ``table_c``) estimates.
    c_long : tuple of (float, SlopeFit)
        WLS of the C_long estimate for each c.

    Examples
    --------
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> points = run_designs(
    ...     [ClockDesign(net.with_servers(n), 13.0, 3.0, 3, 7, cs=[1.0, 8.0]) for n in (10, 20, 40)]
    ... )
    >>> fits = fit_decomposition(points, min_servers=10)
    >>> fits.table_c, round(fits.leading_constant, 6), round(1 / math.log(1 / 0.6), 6)
    (8.0, 1.957615, 1.957615)
    >>> fits.regret_servers[0], fits.regret_servers[-1], fits.regret.weighting
    (10, 40, 'ols')
    >>> fits.fit_servers, fits.c_vol.slope.n
    ((10, 20, 40), 3)

    References
    ----------
    .. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
       overloaded loss network", arXiv:2601.14538 (2026).
    .. [2] X. Xie, I. Gurvich and S. Küçükyavuz, "Dynamic allocation of reusable
       resources: logarithmic regret in overloaded networks", Operations Research 73(4)
       (2025).
    """

    min_servers: int
    fit_servers: tuple[int, ...]
    table_c: float
    leading_constant: float
    regret_servers: tuple[int, ...]
    regret: SlopeFit
    c_vol: SlopeFit
    c_short: SlopeFit
    c_long: tuple[tuple[float, SlopeFit], ...]

    def c_long_at(self, c: float) -> SlopeFit:
        """The C_long fit of constant ``c``.

        Parameters
        ----------
        c : float
            One of the fitted constants.

        Returns
        -------
        SlopeFit

        Raises
        ------
        KeyError
            If ``c`` was not fitted.

        Examples
        --------
        >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
        >>> points = run_designs(
        ...     [ClockDesign(net.with_servers(n), 13.0, 3.0, 3, 7, cs=[1.0]) for n in (10, 20, 40)]
        ... )
        >>> fit_decomposition(points, min_servers=10).c_long_at(1.0).weighting
        'wls'
        """
        return dict(self.c_long)[c]

    @property
    def bounded_from(self) -> float:
        """The smallest c from which on no fitted C_long slope shows significant growth
        (:attr:`SlopeFit.bounded`; NaN if even the largest c's does).

        Examples
        --------
        >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
        >>> designs = [
        ...     ClockDesign(net.with_servers(n), 13.0, 3.0, 3, 7, cs=[1.0, 8.0])
        ...     for n in (10, 20, 40)
        ... ]
        >>> fits = fit_decomposition(run_designs(designs), min_servers=10)
        >>> [(c, fit.bounded) for c, fit in fits.c_long], fits.bounded_from
        ([(1.0, True), (8.0, True)], 1.0)
        """
        bounded = math.nan
        for c, fit in sorted(self.c_long, reverse=True):
            if not fit.bounded:
                break
            bounded = c
        return bounded


def _estimate_fit(points: Sequence[ClockDecomposition], pick: Callable) -> SlopeFit:
    """WLS of the estimates ``pick(point)`` on log N.  A zero standard error (every
    replication equal, which a discrete reward allows with few replications) is raised to
    the smallest positive one among the points rather than given infinite weight."""
    estimates = [pick(p) for p in points]
    stderrs = np.array([e.stderr for e in estimates])
    positive = stderrs[stderrs > 0]
    if positive.size == 0:
        raise ValueError("every estimate has a zero standard error: nothing to weight by")
    stderrs = np.maximum(stderrs, positive.min())
    return slope_on_log([p.servers for p in points], [e.mean for e in estimates], stderrs)


def fit_decomposition(
    points: Sequence[ClockDecomposition],
    *,
    min_servers: int = 100,
    table_c: float | None = None,
    regret_top: int | None = None,
) -> DecompositionFits:
    """Fit every term of the decomposition against log N (see :class:`DecompositionFits`).

    ``points`` share one network and the constants c; ``table_c`` defaults to the largest
    c; the exact regret is fitted on 40 log-spaced N from ``min_servers`` to
    ``regret_top`` (default: the largest N of the points).

    Parameters
    ----------
    points : sequence of ClockDecomposition
        One network (any N) and the same constants c.
    min_servers : int, default 100
        Fit only the points with N >= ``min_servers`` (at least 3 of them).
    table_c : float, optional
        The c of the C_short fit; default the largest c.
    regret_top : int, optional
        Largest N of the exact-regret grid (> ``min_servers``).

    Returns
    -------
    DecompositionFits

    Raises
    ------
    ValueError
        For fewer than 3 points with N >= ``min_servers``, points of different networks
        or constants, a ``table_c`` that is not one of the constants, a ``regret_top`` <=
        ``min_servers``, or estimates that all have a zero standard error.

    Examples
    --------
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> points = run_designs(
    ...     [ClockDesign(net.with_servers(n), 13.0, 3.0, 3, 7, cs=[1.0]) for n in (10, 20, 40)]
    ... )
    >>> fits = fit_decomposition(points, min_servers=10, regret_top=100)
    >>> fits.regret_servers[-1], fits.c_vol.slope.n
    (100, 3)
    >>> fit_decomposition(points)  # min_servers=100: no point qualifies
    Traceback (most recent call last):
    ...
    ValueError: need at least 3 points with servers >= min_servers=100
    """
    chosen = [p for p in points if p.servers >= min_servers]
    if len(chosen) < 3:
        raise ValueError(f"need at least 3 points with servers >= min_servers={min_servers}")
    cs = [point.c for point in chosen[0].lookahead]
    nets = {p.net.with_servers(1) for p in chosen}
    if len(nets) != 1 or any([q.c for q in p.lookahead] != cs for p in chosen):
        raise ValueError("points must share one network and the same constants cs")
    table_c = max(cs) if table_c is None else table_c
    if table_c not in cs:
        raise ValueError(f"table_c must be one of {cs}, got {table_c!r}")
    top = max(p.servers for p in chosen) if regret_top is None else regret_top
    top = validation.positive_int("regret_top", top)
    if top <= min_servers:
        raise ValueError(f"regret_top must be > min_servers={min_servers}, got {top}")
    grid = tuple(int(n) for n in np.unique(np.round(np.geomspace(min_servers, top, 40))))
    net = chosen[0].net
    regret = [_optimum(net.with_servers(n))["regret"] for n in grid]
    return DecompositionFits(
        min_servers=min_servers,
        fit_servers=tuple(p.servers for p in chosen),
        table_c=table_c,
        leading_constant=_leading_constant(net),
        regret_servers=grid,
        regret=slope_on_log(grid, regret),
        c_vol=_estimate_fit(chosen, lambda p: p.c_vol),
        c_short=_estimate_fit(chosen, lambda p: p.at(table_c).c_short),
        c_long=tuple((c, _estimate_fit(chosen, lambda p, c=c: p.at(c).c_long)) for c in cs),
    )
