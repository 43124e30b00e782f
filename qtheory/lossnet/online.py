r"""The online optimum: trunk reservation with the best reserve, found exactly.

:func:`online_optimum` takes two classes or n; with two the table below, restricted to
the reserves and states that matter, finds the reserve (float64 or mpmath), with more
the policy iteration of :mod:`qtheory.lossnet.nested` on the states that matter
(:func:`~qtheory.lossnet.nested.local_optimum`: the window near the full state, and the
bias far from it in closed form) finds the nested reserves k_1 = 0 <= … <= k_n, and
:func:`regret_of` is the regret identity for either.

Under trunk reservation with reserve :math:`k` (admit L only while more than :math:`k`
servers are idle, admit H whenever a server is idle; Miller 1969 shows a policy of this
form is optimal) the number of busy servers :math:`b` is a birth–death chain with birth
rate :math:`(\lambda_H+\lambda_L)N` for :math:`b < m = N-k`, :math:`\lambda_H N` for
:math:`m \le b < N`, and death rate :math:`b\mu`.  With
:math:`A_b = b\log\frac{(\lambda_H+\lambda_L)N}{\mu} - \log b!` and
:math:`H_b = b\log\frac{\lambda_H N}{\mu} - \log b!` its weights are :math:`e^{A_b}` for
:math:`b \le m` and :math:`e^{A_m - H_m + H_b}` for :math:`b \ge m`, so every threshold's
normaliser, blocking probability and mean idleness follow from one prefix sum of
:math:`e^{A_b}` and one suffix sum of :math:`e^{H_b}` (in log space, relative to the
full state :math:`b = N`): all :math:`N+1` thresholds in :math:`O(N)` total
(:func:`threshold_table`).

The regret splits exactly into idle capacity and lost H reward (admitted rate equals
departure rate :math:`\mu E[b]`):

.. math:: R_{fluid} - R_k = r_L\,\mu\,E[\text{idle}] + (r_H - r_L)\,\lambda_H N\,P(\text{full}),

which is also how it is computed (no cancellation between two :math:`O(N)` rewards).

The states and reserves that matter
-----------------------------------
The optimum does not need the whole table.  Indexed by the idle count :math:`i = N - b`,
the weight ratios :math:`w_{b-1}/w_b = b\mu/((\lambda_H+\lambda_L)N)` of the states past a
reserve are at most :math:`q = \mu/(\lambda_H+\lambda_L) < 1`, so for the reserves
:math:`0..K` the states beyond :math:`K + T` idle servers change every sum by less than
:math:`q^{T-1}\max(q/(1-q),\ Lq/(1-q) + q/(1-q)^2)` relative (:math:`L = K + T`), held
below :math:`2^{-60}`: :math:`T` depends on :math:`q` (and on :math:`\log K`), not on
:math:`N`.  The sums over those :math:`K + T + 1` states are the table's own arithmetic
(the log weights relative to the full state are the same numbers), so the values agree
with :func:`threshold_table` to an ulp or so.  Which :math:`K`: a larger reserve admits
fewer L, so the busy count is stochastically smaller and
:math:`E_k[\text{idle}] \ge E_K[\text{idle}]` for every :math:`k \ge K`, and the identity
bounds the regret of every such reserve below by :math:`r_L\mu E_K[\text{idle}]`.
:math:`K` starts at twice the balance guess
:math:`\log(\max(1, (r_H-r_L)\lambda_H N\theta/(r_L\mu)))/\theta`,
:math:`\theta = \log(\mu/\lambda_H)`, and doubles until that bound exceeds the best
regret among :math:`0..K` by a relative :math:`10^{-6}`: then no reserve beyond
:math:`K` is optimal or within :data:`TIE_GAP` of the optimum, with no assumption on the
shape of the regret in :math:`k`.  The cost is :math:`O(k^* + 1/\theta + T)` whatever
:math:`N` (0.11 ms at :math:`N = 10^7` for the default rates, against 3.4 s for the
whole table, ``benchmarks/bench_online.py``); only with :math:`q` close to 1 does
:math:`T` reach :math:`N`, and the route is then the table.

Precision and cost
------------------
:func:`online_optimum` takes ``dps`` (keyword-only; the convention of
:mod:`qtheory.core.precision`): ``None`` is float64, an integer ``D >= 1`` returns mpmath
values correct to ``D`` significant digits.  The high-precision route evaluates the
chain of the float64 optimum and of its two neighbours with ``D`` + 10 + (digits of
N) working digits (an N-term product and an N-term sum of positive terms lose at most
about log10 N digits) and rounds the results to ``D`` digits.  Both routes estimate
their cost first and refuse, with a ``ValueError`` naming ``net``, what exceeds
:mod:`qtheory.core.limits`: :data:`TABLE_BYTES_PER_SERVER` bytes per state summed (the
K + T + 1 states that matter for the optimum, N + 1 for :func:`threshold_table`),
:data:`MP_CELLS_PER_STEP` cells per mpmath step (three reserves of N + 1 steps).

References
----------
.. [1] B. L. Miller, "A queueing reward system with several customer classes",
   Management Science 16(3):234-245 (1969).
.. [2] X. Xie, I. Gurvich and S. Küçükyavuz, "Dynamic allocation of reusable resources:
   logarithmic regret in overloaded networks", Operations Research 73(4) (2025).
.. [3] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
   overloaded loss network", arXiv:2601.14538 (2026).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import mpmath
import numpy as np

from qtheory.core import limits, precision
from qtheory.exact.birth_death import geometric_tail_states
from qtheory.lossnet import _generated
from qtheory.lossnet.fluid import fluid_bound
from qtheory.lossnet.nested import (
    OnlineOptimum,
    initial_reserves,
    local_optimum,
    policy_iteration,
)
from qtheory.model.lossnet import LossNetwork, as_network, two_classes

__all__ = [
    "MP_CELLS_PER_STEP",
    "REGRET_IDENTITY",  # noqa: F822 (a Sympy object, made on first use by __getattr__)
    "TABLE_BYTES_PER_SERVER",
    "TIE_GAP",
    "WINDOW_STATES",
    "OnlineOptimum",
    "ThresholdTable",
    "online_optimum",
    "regret_of",
    "threshold_table",
]

#: Peak memory of :func:`threshold_table` per server, in bytes: about fifteen float64
#: arrays of N + 1 entries are alive at once (measured 120 bytes with tracemalloc at
#: N = 10^6); the optimum's table of the K + T + 1 states that matter takes as much per
#: state.
TABLE_BYTES_PER_SERVER = 128

#: Cost of one mpmath step of the high-precision chain (a multiply, a divide and three
#: additions) in the unit of the ``dp_cells`` limit (float64 cells at about 1e9 per
#: second): measured 11 to 14 microseconds up to 300 working digits and 40 at 1000 on
#: the 2-core machine of the benchmarks, so 12 000 cells, growing in proportion to the
#: working digits beyond 300 (:func:`_mp_step_cells`).
MP_CELLS_PER_STEP = 12_000


@dataclass(frozen=True)
class ThresholdTable:
    """Every trunk-reservation policy at once: index ``k`` is the reserve k = 0..N.

    Attributes
    ----------
    reserve : numpy.ndarray of int
        0..N (admit L only while more than ``reserve`` servers are idle).
    mean_idle : numpy.ndarray
        E[idle servers] under each reserve.
    prob_full : numpy.ndarray
        P(all servers busy), the H blocking probability (PASTA).
    prob_admit_l : numpy.ndarray
        P(more than k idle), the fraction of L arrivals admitted.
    regret : numpy.ndarray
        R_fluid − R_k, from :data:`REGRET_IDENTITY`.

    Examples
    --------
    >>> table = threshold_table(LossNetwork(5, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> table.reserve.tolist(), bool(table.prob_admit_l[-1] == 0.0)
    ([0, 1, 2, 3, 4, 5], True)
    """

    reserve: np.ndarray
    mean_idle: np.ndarray
    prob_full: np.ndarray
    prob_admit_l: np.ndarray
    regret: np.ndarray


@cache
def _regret_identity() -> dict[str, object]:
    """:data:`REGRET_IDENTITY` and its two symbols, built with Sympy on first use (the
    evaluators the numbers use are generated from it, ``qtheory/lossnet/_generated.py``)."""
    import sympy as sp

    from qtheory.core.symbolic import Formula
    from qtheory.model.lossnet_symbols import lambda_h, mu, r_h, r_l, servers

    mean_idle, prob_full = sp.symbols("E_idle P_full", nonnegative=True)
    identity = Formula(
        "regret_identity",
        r_l * mu * mean_idle + (r_h - r_l) * lambda_h * servers * prob_full,
        (mean_idle, prob_full, mu, lambda_h, servers, r_h, r_l),
    )
    return {
        "REGRET_IDENTITY": identity,
        "mean_idle_symbol": mean_idle,
        "prob_full_symbol": prob_full,
    }


def __getattr__(name: str) -> object:
    """``REGRET_IDENTITY`` (the :class:`~qtheory.core.symbolic.Formula` R_fluid − R_k =
    r_L μ E[idle] + (r_H − r_L) λ_H N P(full), see the module docstring) and its symbols
    ``mean_idle_symbol``, ``prob_full_symbol``: Sympy objects, made when first asked for so
    that importing this module does not import Sympy."""
    if name in ("REGRET_IDENTITY", "mean_idle_symbol", "prob_full_symbol"):
        return _regret_identity()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def regret_of(net: LossNetwork, mean_idle, blocking):
    """R_fluid − R of a policy with this mean idleness and blocking, by the regret
    identity (exact for every non-anticipating policy, whose admitted rate equals its
    departure rate μ E[busy]):

    r_m μ E[idle] + N Σ_{j<m} (r_j − r_m) λ_j B_j + N Σ_{j>m} (r_m − r_j) λ_j (1 − B_j),

    m the marginal class; for two classes r_L μ E[idle] + (r_H − r_L) λ_H N P(full)
    (:data:`REGRET_IDENTITY`, by its generated evaluator; B_L does not enter).

    Parameters
    ----------
    net : LossNetwork
        The network.
    mean_idle : float or numpy.ndarray
        E[idle servers].
    blocking : sequence of float or numpy.ndarray
        B_1, …, B_n, each class's blocking probability (first axis the class; arrays
        broadcast with ``mean_idle``); B_1 = P(full).

    Returns
    -------
    float or numpy.ndarray
        The regret.

    Raises
    ------
    TypeError
        If ``net`` is not a network.
    ValueError
        If ``blocking`` does not hold one entry per class.

    References
    ----------
    See the module's References: Xie, Gurvich and Küçükyavuz (2025).

    Examples
    --------
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> round(float(regret_of(net, 2.0, (0.1, 0.5))), 12)  # 1 * 1 * 2 + 1 * 0.6 * 10 * 0.1
    2.6

    Class 2 is marginal (0.3 < 1 < 0.3 + 0.9): 2·1·2 + 10·1·0.3·0.1 + 10·1·0.6·(1 − 0.9).

    >>> net = LossNetwork(10, (0.3, 0.9, 0.6), (3, 2, 1), 1.0)
    >>> round(float(regret_of(net, 2.0, [0.1, 0.5, 0.9])), 12)
    4.9
    """
    net = as_network(net)
    blocking = [np.asarray(b, dtype=float) for b in blocking]
    if len(blocking) != net.n_classes:
        raise ValueError(
            f"blocking must hold one probability per class ({net.n_classes}), got {len(blocking)}"
        )
    if net.n_classes == 2:
        return _two_class_regret(net, mean_idle, blocking[0])
    m, r_m = net.marginal, net.rewards[net.marginal]
    regret = r_m * net.mu * np.asarray(mean_idle, dtype=float)
    for j, (rate, reward, lost) in enumerate(zip(net.lambdas, net.rewards, blocking, strict=True)):
        if j < m:
            regret = regret + net.servers * (reward - r_m) * rate * lost
        elif j > m:
            regret = regret + net.servers * (r_m - reward) * rate * (1.0 - lost)
    return regret


def _two_class_regret(net: LossNetwork, mean_idle, prob_full):
    """:data:`REGRET_IDENTITY` in float64, by its generated evaluator."""
    return _generated.regret_identity_float64(
        mean_idle, prob_full, net.mu, net.lambda_h, net.servers, net.r_h, net.r_l
    )


def _regret_mp(net: LossNetwork, mean_idle: mpmath.mpf, prob_full: mpmath.mpf) -> mpmath.mpf:
    """:data:`REGRET_IDENTITY` in mpmath at the working precision, the parameters read
    as decimals."""
    p = _decimal_parameters(net)
    return _generated.regret_identity_mp(
        mean_idle, prob_full, p["mu"], p["lambda_h"], net.servers, p["r_h"], p["r_l"]
    )


def _reverse_logcumsumexp(values: np.ndarray) -> np.ndarray:
    return np.logaddexp.accumulate(values[::-1])[::-1]


def _log_weights_from_top(rate: float, mu: float, n: int, start: int = 0) -> np.ndarray:
    """log(w_b / w_N), b = ``start``..N, for births at ``rate`` and deaths bμ.

    Relative to the top state, near which every sum that decides the optimum lives, the
    values are small there and carry absolute errors of a few ulps (a reverse cumulative
    sum of log(μj/rate)); absolute logs such as b log(rate/μ) − log b! would carry
    errors of order 1e-8 at N = 10^7."""
    steps = np.log(mu * np.arange(start + 1, n + 1) / rate)  # log(w_{j-1}/w_j), j > start
    return np.concatenate((np.cumsum(steps[::-1])[::-1], [0.0]))


def _require_table_memory(net: LossNetwork, states: int) -> None:
    """Refuse a table over ``states`` + 1 states that would exceed the memory limit."""
    whole = states == net.servers
    limits.require(
        "memory",
        TABLE_BYTES_PER_SERVER * (states + 1.0),
        parameter="net.servers",
        what=(
            f"the threshold table of every reserve (net.servers = {net.servers})"
            if whole
            else f"the table of the {states + 1} states nearest the full state "
            f"(net.servers = {net.servers})"
        ),
    )


#: A reserve beyond K is left unevaluated once r_L μ E_K[idle], a lower bound of the
#: regret of every reserve >= K, exceeds the best regret found by this relative margin
#: (far above :data:`TIE_GAP` and the float64 error of the table's values).
_STOP_MARGIN = 1e-6


def _tail_states(net: LossNetwork, reserves: int) -> int:
    """The states beyond ``reserves`` idle servers that the sums of reserves 0..``reserves``
    need, T (:func:`~qtheory.exact.birth_death.geometric_tail_states`): every weight
    ratio past a reserve is at most q = μ/(λ_H + λ_L) < 1 (module docstring); a few
    hundred at most unless q is close to 1, and it does not grow with N."""
    return geometric_tail_states(net.mu / (net.lambda_h + net.lambda_l), reserves)


def threshold_table(net: LossNetwork) -> ThresholdTable:
    """Mean idleness, blocking and regret of every reserve k = 0..N, in O(N).

    Float64 in log space (see the module docstring).  Relative accuracy near the
    optimal reserve about 1e-13 up to N = 10^7 (tested against
    :func:`qtheory.exact.birth_death_stationary`); reserves far from the optimum are
    less accurate.  :func:`online_optimum` does not need it: it sums only the reserves
    and states that matter (module docstring), with the same arithmetic.

    Parameters
    ----------
    net : LossNetwork
        The network.

    Returns
    -------
    ThresholdTable
        One entry per reserve k = 0..N.

    Raises
    ------
    TypeError
        If ``net`` is not a :class:`LossNetwork`.
    ValueError
        If the table would need more memory than the ``memory`` limit
        (:data:`TABLE_BYTES_PER_SERVER` bytes per server), checked before anything
        is allocated.
    ArithmeticError
        If the regret overflows float64.

    References
    ----------
    See the module's References: Miller (1969).

    Examples
    --------
    >>> table = threshold_table(LossNetwork(50, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> int(np.argmin(table.regret))
    3
    """
    net = two_classes(net)
    _require_table_memory(net, net.servers)
    return _reserve_sums(net, net.servers, net.servers)


def _reserve_sums(net: LossNetwork, reserves: int, states: int) -> ThresholdTable:
    """The table of reserves 0..``reserves`` from the ``states`` + 1 states nearest the
    full state (b >= N − ``states``): the arithmetic of the whole table restricted to
    them (``states`` = N is :func:`threshold_table`).  The log weights relative to the
    full state are the same numbers (cumulative sums from the top); the sums over b < m
    start at b = N − ``states`` instead of 0, which leaves out less than
    :data:`~qtheory.exact.birth_death.TAIL_EPS` of each when ``states`` >= ``reserves`` +
    :func:`_tail_states`."""
    n = net.servers
    start = n - states
    busy = np.arange(start, n + 1, dtype=float)
    a = _log_weights_from_top(net.arrival_rate_h + net.arrival_rate_l, net.mu, n, start)
    h = _log_weights_from_top(net.arrival_rate_h, net.mu, n, start)
    with np.errstate(divide="ignore"):  # log(0 idle) = -inf at b = N
        log_idle = np.log(n - busy)
    # m = N - k; "below" sums run over start <= b < m, "above" over b >= m.
    below = np.concatenate(([-np.inf], np.logaddexp.accumulate(a)[:-1]))
    below_idle = np.concatenate(([-np.inf], np.logaddexp.accumulate(a + log_idle)[:-1]))
    shift = a - h  # log w_b = shift[m] + h[b] for b >= m
    above = shift + _reverse_logcumsumexp(h)
    above_idle = shift + _reverse_logcumsumexp(h + log_idle)
    kept = slice(states - reserves, None)  # m = N − reserves .. N
    log_norm = np.logaddexp(below[kept], above[kept])
    prob_full = np.exp(shift[kept] + h[-1] - log_norm)
    mean_idle = np.exp(np.logaddexp(below_idle[kept], above_idle[kept]) - log_norm)
    prob_admit_l = np.exp(below[kept] - log_norm)
    regret = _two_class_regret(net, mean_idle, prob_full)
    if not np.all(np.isfinite(regret)):
        raise ArithmeticError("the threshold table overflowed float64 for these parameters")
    reverse = slice(None, None, -1)  # index by k = N - m
    return ThresholdTable(
        reserve=np.arange(reserves + 1),
        mean_idle=mean_idle[reverse],
        prob_full=prob_full[reverse],
        prob_admit_l=prob_admit_l[reverse],
        regret=regret[reverse],
    )


#: Above this many states in the first window of the states that matter (a load close
#: to critical, where the geometric tail bound with ratio q decays slowly, although the
#: true ratios fall like q (1 − i/N)), ``method="auto"`` takes the certified route, which
#: sums with the true ratios.
WINDOW_STATES = 20_000


def _first_reserves(net: LossNetwork) -> int:
    """The reserves 0..K of the first window: twice the balance guess, plus 8."""
    return min(net.servers, 2 * initial_reserves(net)[1] + 8)


def _optimum_table(net: LossNetwork) -> ThresholdTable:
    """The reserves 0..K of the states that matter, K doubled from twice the first guess
    until the reserves beyond K cannot come within :data:`_STOP_MARGIN` of the best: a
    larger reserve admits fewer L, so its busy count is stochastically smaller and
    E_k[idle] >= E_K[idle] for k >= K, and its regret is at least r_L μ E_K[idle] (the
    identity's other term is >= 0).  Cost O(K + T), K about k* + 1/θ."""
    n = net.servers
    reserves = _first_reserves(net)
    while True:
        states = min(n, reserves + _tail_states(net, reserves))
        if states == n:  # the sums need every state: take every reserve with them
            reserves = n
        _require_table_memory(net, states)
        table = _reserve_sums(net, reserves, states)
        best = float(np.min(table.regret))
        bound = net.r_l * net.mu * float(table.mean_idle[-1])
        if reserves == n or bound > best * (1 + _STOP_MARGIN) + np.finfo(float).tiny:
            return table
        reserves = min(n, 2 * reserves)


def _decimal(value: float) -> mpmath.mpf:
    """A float read as its shortest decimal representation (0.6 means 6/10), so that
    high-precision results are those of the decimal parameters a user typed."""
    return mpmath.mpf(repr(value))


def _decimal_parameters(net: LossNetwork) -> dict[str, mpmath.mpf]:
    names = ("lambda_h", "lambda_l", "mu", "r_h", "r_l")
    return {name: _decimal(getattr(net, name)) for name in names}


def _reserve_mp(net: LossNetwork, reserve: int) -> tuple[mpmath.mpf, ...]:
    """Mean idleness, P(full) and class L's blocking P(idle <= k) of one reserve k, in
    mpmath at the current precision (the weights w_b by their product recursion, N + 1
    steps)."""
    n, m = net.servers, net.servers - reserve
    p = _decimal_parameters(net)
    rate_all = (p["lambda_h"] + p["lambda_l"]) * n / p["mu"]
    rate_h = p["lambda_h"] * n / p["mu"]
    weight, norm, idle, blocked = mpmath.mpf(1), mpmath.mpf(0), mpmath.mpf(0), mpmath.mpf(0)
    for b in range(n + 1):
        if b > 0:
            weight *= (rate_all if b <= m else rate_h) / b
        norm += weight
        idle += (n - b) * weight
        if b >= m:
            blocked += weight
    return idle / norm, weight / norm, blocked / norm


def _working_digits(net: LossNetwork, dps: int) -> int:
    """The digits the mpmath chains work at: ``dps`` plus guard digits for the N-term
    sums (module docstring)."""
    return dps + precision.GUARD_DIGITS + len(str(net.servers + 1))


def _mp_step_cells(net: LossNetwork, dps: int) -> float:
    """:data:`MP_CELLS_PER_STEP`, scaled by the working digits beyond 300."""
    return MP_CELLS_PER_STEP * max(1.0, _working_digits(net, dps) / 300)


def _optimum_mp(net: LossNetwork, guess: int, dps: int) -> OnlineOptimum:
    """The optimum at ``dps`` digits: the float64 reserve ``guess`` and its neighbours
    evaluated in mpmath, the best kept, every value rounded to ``dps`` digits."""
    neighbours = range(max(0, guess - 1), min(net.servers, guess + 1) + 1)
    with precision.working(dps, guard=_working_digits(net, dps) - dps):
        candidates = {}
        for k in neighbours:
            mean_idle, prob_full, blocked_l = _reserve_mp(net, k)
            regret = _regret_mp(net, mean_idle, prob_full)
            candidates[k] = (regret, mean_idle, (prob_full, blocked_l))
        best = min(candidates, key=lambda k: candidates[k][0])
        regret, mean_idle, blocking = candidates[best]
        p = _decimal_parameters(net)
        fluid = _generated.fluid_bound_mp(net.servers, p["lambda_h"], p["mu"], p["r_h"], p["r_l"])
        optimum = OnlineOptimum((0, best), fluid, fluid - regret, regret, mean_idle, blocking)
    return precision.rounded(optimum, dps)


#: Relative gap below which two reserves' float64 regrets are treated as a tie that
#: float64 cannot decide (the table is accurate to about 1e-13 near the optimum).
TIE_GAP = 1e-9


def _best_reserve(net: LossNetwork, regret: np.ndarray) -> int:
    """argmin of the regret; where another reserve comes within :data:`TIE_GAP` of it
    (a flat optimum, e.g. λ_H close to μ), the certified search decides."""
    best = int(np.argmin(regret))
    near = regret <= regret[best] * (1 + TIE_GAP) + np.finfo(float).tiny
    if np.count_nonzero(near) > 1:
        from qtheory.lossnet.certified import certified_online_optimum

        try:
            return certified_online_optimum(net, dps=20).reserve
        except ArithmeticError:  # an exact tie: any of them is optimal
            return best
    return best


def online_optimum(
    net: LossNetwork, *, dps: int | None = None, method: str = "auto"
) -> OnlineOptimum:
    """The optimal online policy (nested trunk reservation), its reserves and
    R_on(N) = R_fluid − regret, exactly.

    Four routes (``method``):

    - ``"certified"`` (two classes): the enclosures of
      :func:`~qtheory.lossnet.certified.certified_online_optimum`, O(k* + T) whatever N
      (milliseconds at N = 10^7), at 17 digits rounded to float64 or at ``dps`` digits
      rounded to mpmath numbers, with k* certified optimal; the rates and rewards are
      read as the decimals they print as (0.6 means 6/10), and class L's blocking comes
      from rate balance, B_L = 1 − (μ(N − E[idle]) − λ_H N (1 − P(full)))/(λ_L N).  An
      exact tie between two reserves, which the certificate cannot split, falls back to
      the table.
    - ``"table"`` (two classes): the reserves 0..K over the K + T + 1 states nearest the
      full state, K doubled until no larger reserve can be better (module docstring),
      O(k* + T) whatever N (0.11 ms at N = 10^7), float64 equal to the best entry of
      :func:`threshold_table` to an ulp or so.  Where the optimum is so flat that
      another reserve's float64 regret comes within :data:`TIE_GAP` (relative) of the
      best, float64 cannot tell them apart (found with λ_H close to μ, where neighbouring
      rewards differ by 1e-21 relative) and
      :func:`~qtheory.lossnet.certified.certified_online_optimum` decides the reserve.
      With ``dps`` the values are recomputed in mpmath: k* from that search, confirmed
      against its neighbours k* ± 1, with guard digits for the N-term sums (see the
      module docstring); practical to N ≈ 10^5 - 10^6.
    - ``"local"`` (any number of classes, float64):
      :func:`~qtheory.lossnet.nested.local_optimum`, policy iteration on the states that
      matter: the window of the k_m + T states nearest the full state, and the bias far
      from it, where the thresholds of the classes below the marginal one lie, from the
      local side of flux balance (:mod:`qtheory.lossnet.nested`), O(n(k_m + T) +
      n T log N) per iteration whatever N (2.2 ms at N = 10^6 and 10^7 with three
      classes).
      The same reserves as policy iteration, its values to a few ulps; where a decision
      is within rounding of a tie, or the window is the whole chain, policy iteration
      decides.
    - ``"policy-iteration"`` (any number of classes, float64):
      :func:`~qtheory.lossnet.nested.policy_iteration` on the whole busy-server chain,
      O(nN) per iteration (0.80 s at N = 10^6 with three classes, 9.3 s at 10^7).

    ``"auto"`` (the default) takes, for two classes, the table in float64 (no import of
    Arb) unless its first window holds more than :data:`WINDOW_STATES` states of a larger
    chain (a load close to critical: the certified route then, as for every ``dps``);
    for more classes ``"local"``.

    Parameters
    ----------
    net : LossNetwork
        The network.
    dps : int or None, keyword-only
        None (default): float64.  An integer D >= 1 (two classes): mpmath values
        correct to D significant digits, with the rates and rewards read as the
        decimals they print as (0.6 means 6/10).
    method : {"auto", "certified", "table", "local", "policy-iteration"}, keyword-only
        The route (default ``"auto"``).

    Returns
    -------
    OnlineOptimum
        The reserves (k_1, …, k_n) = (0, k*) for two classes, R_fluid, R_on, the
        regret, E[idle] and the blocking probabilities under them.

    Raises
    ------
    TypeError
        If ``net`` is not a network.
    ValueError
        If ``dps`` is not None or an integer >= 1 (or is above the ``dps`` limit),
        ``method`` is unknown or does not take this network or ``dps``, or the work
        exceeds the ``memory`` or ``dp_cells`` limits (:mod:`qtheory.core.limits`),
        checked before anything is computed.
    ArithmeticError
        If policy iteration does not converge or finds a non-monotone policy.

    References
    ----------
    See the module's References:

    - Miller (1969);
    - Xie, Gurvich and Küçükyavuz (2025).

    Examples
    --------
    >>> opt = online_optimum(LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0))
    >>> opt.reserve, round(opt.online / opt.fluid, 4)
    (4, 0.9586)
    >>> precise = online_optimum(LossNetwork(50, 0.6, 0.8, 1.0, 2.0, 1.0), dps=30)
    >>> mpmath.nstr(precise.online, 12)
    '74.6494696017'
    >>> online_optimum(LossNetwork(100, (0.3, 0.9, 0.6), (3, 2, 1), 1.0)).reserves
    (0, 1, 29)
    """
    net = as_network(net)
    dps = precision.check_dps(dps, cost="the online optimum in mpmath")
    if method not in _METHODS:
        raise ValueError(f"method must be one of {', '.join(_METHODS)}, got {method!r}")
    if method == "auto" and net.n_classes > 2:
        method = "local"
    elif method == "auto":
        first = _first_reserves(net)
        near = first + _tail_states(net, first) <= WINDOW_STATES or net.servers <= WINDOW_STATES
        method = "table" if dps is None and near else "certified"
    if method in ("local", "policy-iteration"):
        if dps is not None:
            raise ValueError(f"dps: method {method!r} is float64 only, got dps={dps}")
        return local_optimum(net) if method == "local" else policy_iteration(net)
    if net.n_classes != 2:
        raise ValueError(
            f"method {method!r} takes two classes, got {net.n_classes}; use 'local' or "
            "'policy-iteration'"
        )
    if method == "certified":
        try:
            return _certified_optimum(net, dps)
        except ArithmeticError:  # an exact tie between reserves: the table takes either
            pass
    return _table_optimum(net, dps)


#: The routes of :func:`online_optimum`.
_METHODS = ("auto", "certified", "table", "local", "policy-iteration")


def _certified_optimum(net: LossNetwork, dps: int | None) -> OnlineOptimum:
    """The two-class optimum from the certified enclosures (17 digits for float64),
    rounded; B_L from rate balance, 1 − (μ(N − E[idle]) − λ_H N (1 − P(full)))/(λ_L N)."""
    from qtheory.lossnet.certified import certified_online_optimum  # Arb: when used

    opt = certified_online_optimum(net, dps=17 if dps is None else dps)
    enclosures = (opt.fluid, opt.online, opt.regret, opt.mean_idle, opt.prob_full)
    with mpmath.workdps((dps or 0) + precision.GUARD_DIGITS):
        if dps is None:
            values = [e.midpoint for e in enclosures]
            rates = {name: getattr(net, name) for name in ("lambda_h", "lambda_l", "mu")}
        else:
            values = [(mpmath.mpf(e.lower) + mpmath.mpf(e.upper)) / 2 for e in enclosures]
            rates = _decimal_parameters(net)
        fluid, online, regret, idle, full = values
        n = net.servers
        admitted_l = rates["mu"] * (n - idle) - rates["lambda_h"] * n * (1 - full)
        blocked_l = 1 - admitted_l / (rates["lambda_l"] * n)
        optimum = OnlineOptimum((0, opt.reserve), fluid, online, regret, idle, (full, blocked_l))
    return optimum if dps is None else precision.rounded(optimum, dps)


def _table_optimum(net: LossNetwork, dps: int | None) -> OnlineOptimum:
    """The two-class optimum from the table of the reserves and states that matter,
    O(k* + T) (and mpmath with ``dps``: O(N) per reserve)."""
    if dps is not None:
        limits.require(
            "dp_cells",
            3 * _mp_step_cells(net, dps) * (net.servers + 1.0),
            parameter="net.servers",
            what=f"the mpmath chains of three reserves (net.servers = {net.servers}, dps={dps}; "
            "certified_online_optimum takes O(k* + T) at any N)",
        )
    table = _optimum_table(net)
    best = _best_reserve(net, table.regret)
    if dps is not None:
        return _optimum_mp(net, best, dps)
    fluid = fluid_bound(net)
    regret = float(table.regret[best])
    blocking = (float(table.prob_full[best]), 1.0 - float(table.prob_admit_l[best]))
    return OnlineOptimum(
        (0, best), fluid, fluid - regret, regret, float(table.mean_idle[best]), blocking
    )
