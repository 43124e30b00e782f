r"""The experiment designs of the regret decomposition (:mod:`qtheory.lossnet.decomposition`)
and the records of their results: which networks, sizes N, replications, horizons and
policies a sweep runs (``ClockDesign``, ``JobDesign``, ``RollingHorizonDesign``), and the
estimates of each size (``ClockDecomposition``, ``JobDecomposition``,
``RollingHorizonResult``).

References
----------
.. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the overloaded
   loss network", arXiv:2601.14538 (2026).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from qtheory.core import limits, validation
from qtheory.core.stats import Estimate
from qtheory.lossnet.duration_fluid import (
    duration_fluid_solution,
    expected_dual_bound,
)
from qtheory.lossnet.rolling_horizon import require_rolling
from qtheory.lossnet.tasks import (
    OFFLINE,
    exact_optimum,
    lookahead_window,
    replication_task,
    threshold_policy,
)
from qtheory.model.lossnet import LossNetwork, as_network
from qtheory.sim.lossnet_costs import require_path, require_run

__all__ = [
    "ClockDecomposition",
    "ClockDesign",
    "JobDecomposition",
    "JobDesign",
    "LookaheadPoint",
    "RollingHorizonDesign",
    "RollingHorizonPoint",
    "RollingHorizonResult",
]


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


def _sss_policy(net: LossNetwork, c: float) -> str:
    return f"sss:{lookahead_window(net, c)!r}"


@dataclass(frozen=True)
class Design:
    """A sweep point: the network, the run (horizon T, warm-up T0, replications, seed)."""

    net: LossNetwork
    horizon: float
    warmup: float
    reps: int
    seed: int

    info = "clock"

    def __post_init__(self) -> None:
        as_network(self.net)
        if self.net.n_classes > 2 and not isinstance(self, ClockDesign):
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
            if self.net.n_classes > 2:
                require_run(self.net, policy, horizon=self.horizon)
            elif self.info == "job" and policy == OFFLINE:
                require_path(self.net, info="job", horizon=self.horizon)
            else:
                require_run(self.net, policy, info=self.info, horizon=self.horizon)
        for window in self.windows():
            require_rolling(self.net, window, self.horizon)

    def tasks(self) -> list[dict[str, Any]]:
        """One :func:`replication` task per replication, after :meth:`check_cost`."""
        policies = self.policies(exact_optimum(self.net)["reserve"])
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
            **exact_optimum(self.net),
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
    two add up to :math:`R_{off} - R_{k^*}` (Bray 2026).

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
    >>> from qtheory.model.lossnet import LossNetwork
    >>> import math
    >>> from qtheory.lossnet.decomposition import decomposition
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
    See the module's References: Bray (2026).
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

    net: LossNetwork
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
    exact regret :math:`R_{fluid} - R_{on}` (Bray 2026; the regret is
    :math:`\Theta(\log N)` by Xie, Gurvich & Küçükyavuz [1]_).

    Attributes
    ----------
    net, horizon, warmup, reps, seed
        The run: the network, T, T0, the number of replications and the root seed.
    fluid : float
        R_fluid (:func:`~qtheory.lossnet.fluid.fluid_bound`; n classes
        :func:`~qtheory.lossnet.fluid.fluid_bound`), exact.
    online : float
        R_on, the reward rate of the online optimum, exact.
    regret : float
        R_fluid − R_on, exact.
    reserve : int or tuple of int
        k*: the online optimum admits L only while more than k* servers are idle.  With
        n classes the nested reserves (k_1, …, k_n) of
        :func:`~qtheory.lossnet.online.online_optimum`, and R_k* is nested trunk
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
    >>> from qtheory.model.lossnet import LossNetwork
    >>> from qtheory.lossnet.decomposition import decomposition
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
    See the module's References: Bray (2026).

    .. [1] X. Xie, I. Gurvich and S. Küçükyavuz, "Dynamic allocation of reusable
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
        >>> from qtheory.model.lossnet import LossNetwork
        >>> from qtheory.lossnet.decomposition import decomposition
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
class _LookaheadDesign(Design):
    """A clock-model design with lookahead constants ``cs`` (W = c log N / N each)."""

    cs: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "cs", _lookahead_constants(self.cs))
        lookahead_window(self.net, self.cs[0])  # N >= 2

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
    net : LossNetwork
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
    >>> from qtheory.model.lossnet import LossNetwork
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
        >>> from qtheory.model.lossnet import LossNetwork
        >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
        >>> policies = ClockDesign(net, 43.0, 3.0, 4, 1, cs=[1.0]).policies(2)
        >>> policies[:3], round(float(policies[3].split(":")[1]), 6)  # log(10) / 10
        (['offline', 'pfi', 'threshold:2'], 0.230259)
        """
        return [OFFLINE, "pfi", threshold_policy(reserve), *self.sss_policies()]

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
        >>> from qtheory.model.lossnet import LossNetwork
        >>> from qtheory.lossnet.decomposition import run_designs
        >>> from qtheory.lossnet.replication import replication
        >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
        >>> design = ClockDesign(net, 23.0, 3.0, 3, 1, cs=[1.0])
        >>> result = design.estimate([replication(task) for task in design.tasks()])
        >>> result == run_designs([design])[0]
        True
        """
        exact = self._exact()
        off = _rates(results, OFFLINE)
        base = _rates(results, threshold_policy(exact["reserve"]))
        points = []
        for c in self.cs:
            sss = _rates(results, _sss_policy(self.net, c))
            window = lookahead_window(self.net, c)
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
    >>> from qtheory.model.lossnet import LossNetwork
    >>> from qtheory.lossnet.decomposition import run_designs
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
class JobDesign(Design):
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
    >>> from qtheory.model.lossnet import LossNetwork
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
        >>> from qtheory.model.lossnet import LossNetwork
        >>> JobDesign(LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0), 8.0, 3.0, 2, 2).policies(3)
        ['offline', 'threshold:3']
        """
        return [OFFLINE, threshold_policy(reserve)]

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
        >>> from qtheory.model.lossnet import LossNetwork
        >>> from qtheory.lossnet.replication import replication
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
        base = _rates(results, threshold_policy(exact["reserve"]))
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
    >>> from qtheory.model.lossnet import LossNetwork
    >>> import math
    >>> from qtheory.lossnet.decomposition import run_designs
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
    >>> from qtheory.model.lossnet import LossNetwork
    >>> from qtheory.lossnet.decomposition import run_designs
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
    >>> from qtheory.model.lossnet import LossNetwork
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
        >>> from qtheory.model.lossnet import LossNetwork
        >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
        >>> RollingHorizonDesign(net, 23.0, 3.0, 3, 5, cs=[1.0]).policies(2)[:2]
        ['offline', 'threshold:2']
        """
        return [OFFLINE, threshold_policy(reserve), *self.sss_policies()]

    def windows(self) -> list[float]:
        """W = c log N / N for each c.

        Returns
        -------
        list of float
            One window per c, in the order of ``cs``.

        Examples
        --------
        >>> from qtheory.model.lossnet import LossNetwork
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
        >>> from qtheory.model.lossnet import LossNetwork
        >>> from qtheory.lossnet.decomposition import run_designs
        >>> from qtheory.lossnet.replication import replication
        >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
        >>> design = RollingHorizonDesign(net, 13.0, 3.0, 2, 5, cs=[1.0])
        >>> result = design.estimate([replication(task) for task in design.tasks()])
        >>> result == run_designs([design])[0]
        True
        """
        exact = self._exact()
        off = _rates(results, OFFLINE)
        base = _rates(results, threshold_policy(exact["reserve"]))
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
