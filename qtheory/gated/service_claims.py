r"""The claims about general service laws (:mod:`qtheory.gated.service`): GA against RR
and the Price of Forgetting when service is phase-type (Erlang, hyperexponential,
Coxian fits of a given mean and squared coefficient of variation), each checked against
an independent route and returned as a :class:`~qtheory.core.claims.Claim`.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from numpy.typing import NDArray

from qtheory.core.claims import Claim, Evidence, Origin
from qtheory.core.phase_type import service_law
from qtheory.core.records import Records
from qtheory.gated.service import (
    optimal_gate_ph,
    optimal_routing_ph,
    price_of_forgetting_ph,
    squared_cv,
)
from qtheory.model.gated import GatedQueue

__all__ = [
    "SERVICE_SHAPES",
    "memory_ladder_ph_claim",
    "pof_decreases_with_scv_claim",
    "service_claims",
    "service_dominance_claim",
    "simulated_wait_claim",
]


# ------------------------------------------------------------------ claims

#: Service shapes of the claims, by increasing SCV: 0.1, 0.25, 0.5, 0.75 (a mixed-Erlang
#: fit), 1, then balanced hyperexponential laws with SCV 2, 4, 10, 50.
SERVICE_SHAPES = (
    "erlang:10", "erlang:4", "erlang:2", "fit:0.75", "exponential",
    "hyperexp:2", "hyperexp:4", "hyperexp:10", "hyperexp:50",
)  # fmt: skip
#: (ν values, Λ values) of the claim grids (μ = C = 1), full and quick.
GRID = ((1.2, 2.0, 4.0, 10.0, 30.0), (math.inf, 5.0, 2.0, 1.2))
QUICK_GRID = ((2.0, 10.0), (math.inf, 2.0))
MODEL = (
    r"potential customers Poisson($\Lambda$), one FIFO server with phase-type service "
    r"of mean $1/\mu$; GA blocks arrivals for a gate $\tau$ after each admission, RR admits "
    r"a Poisson($\lambda$) stream"
)


def _flag(quick: object) -> bool:
    if not isinstance(quick, bool):
        raise TypeError(f"quick must be True or False, got {quick!r}")
    return quick


@functools.cache
def _pof_table(quick: bool) -> tuple[tuple, tuple, NDArray[np.float64]]:
    """PoF over (ν, Λ, shape) of the grid, with μ = C = 1 (computed once per process;
    read-only)."""
    nus, arrivals = QUICK_GRID if quick else GRID
    shapes = SERVICE_SHAPES[::2] if quick else SERVICE_SHAPES
    table = np.empty((len(nus), len(arrivals), len(shapes)))
    for index in np.ndindex(table.shape):
        nu, arrival, shape = nus[index[0]], arrivals[index[1]], shapes[index[2]]
        table[index] = price_of_forgetting_ph(GatedQueue(arrival, 1.0, nu, 1.0), shape)
    table.flags.writeable = False
    return (nus, arrivals), shapes, table


def _scope(grid, shapes) -> str:
    nus, arrivals = grid
    lams = ", ".join(r"\infty" if math.isinf(a) else f"{a:g}" for a in arrivals)
    return (
        rf"$\nu \in \{{{', '.join(f'{n:g}' for n in nus)}\}}$, $\Lambda \in \{{{lams}\}}$, "
        rf"$\mu = C = 1$; service {', '.join(shapes)} "
        r"(SCV $c^2$ = " + ", ".join(f"{squared_cv(service_law(s)):.3g}" for s in shapes) + ")"
    )


def service_dominance_claim(quick: bool = False) -> Claim:
    r"""GA's optimum beats RR's, PoF > 1, for non-exponential service, on a grid.

    PoF = S_GA(τ*)/S_RR(λ*) with both optima exact (:func:`optimal_gate_ph`,
    :func:`optimal_routing_ph`), over ν, Λ and the service shapes of
    :data:`SERVICE_SHAPES` (Erlang-k, a mixed-Erlang fit, exponential, balanced H2).  A
    statement about all PH laws checked on a finite grid: finite-range.

    Parameters
    ----------
    quick : bool
        A 2 × 2 grid of (ν, Λ) and every second shape (for tests).

    Returns
    -------
    qtheory.core.claims.Claim
        Finite-range; value: the least PoF on the grid (reference 1).

    Examples
    --------
    >>> claim = service_dominance_claim(quick=True)
    >>> claim.passed, str(claim.kind), claim.value > 1
    (True, 'finite-range', True)
    """
    grid, shapes, table = _pof_table(_flag(quick))
    return Claim(
        name="gated.service.dominance",
        statement=(
            r"with phase-type service of every shape on the grid, the optimal gate earns "
            r"more welfare than optimal random routing: $\mathrm{PoF} = S_{\mathrm{GA}}^* / "
            r"S_{\mathrm{RR}}^* > 1$"
        ),
        kind=Evidence.FINITE_RANGE,
        passed=bool(np.all(table > 1)),
        origin=Origin.PACKAGE,
        hypotheses=(MODEL, r"$\nu = R\mu/C > 1$"),
        scope=_scope(grid, shapes),
        quantity=r"least PoF on the grid",
        value=float(table.min()),
        reference=1.0,
    )


def pof_decreases_with_scv_claim(quick: bool = False) -> Claim:
    r"""The Price of Forgetting decreases as the service SCV grows, at every grid point.

    At each (ν, Λ) the PoF of the shapes of :data:`SERVICE_SHAPES`, ordered by SCV, is
    strictly decreasing: memory of the last admission is worth less when service times
    are more variable (the gate regularises arrivals, which matters less when service
    dominates the variability).

    Parameters
    ----------
    quick : bool
        The small grid of :func:`service_dominance_claim`.

    Returns
    -------
    qtheory.core.claims.Claim
        Finite-range; value: grid points where PoF decreases strictly in the SCV
        (reference: all of them).

    Examples
    --------
    >>> claim = pof_decreases_with_scv_claim(quick=True)
    >>> claim.passed, claim.value == claim.reference
    (True, True)
    """
    grid, shapes, table = _pof_table(_flag(quick))
    decreasing = np.all(np.diff(table, axis=2) < 0, axis=2)
    return Claim(
        name="gated.service.pof_decreases_with_scv",
        statement=(
            r"at every $(\nu, \Lambda)$ of the grid the Price of Forgetting decreases "
            r"strictly as the squared coefficient of variation $c^2$ of the service time grows "
            r"(so GA's advantage is largest for nearly deterministic service and shrinks, "
            r"staying above 1, for highly variable service)"
        ),
        kind=Evidence.FINITE_RANGE,
        passed=bool(decreasing.all()),
        origin=Origin.PACKAGE,
        hypotheses=(MODEL, r"$\nu = R\mu/C > 1$"),
        scope=_scope(grid, shapes),
        quantity=r"grid points $(\nu, \Lambda)$ where PoF decreases strictly in $c^2$",
        value=float(decreasing.sum()),
        reference=float(decreasing.size),
    )


def simulated_wait_claim(service: str = "hyperexp:4", *, customers: int = 2_000_000) -> Claim:
    r"""The simulated mean wait of GA at its optimal gate agrees with the GI/PH/1 value.

    At ν = 4, Λ = ∞, μ = C = 1 the optimal gate τ* of :func:`optimal_gate_ph` is
    simulated by the C Lindley simulator (:func:`qtheory.sim.simulate_gated`, 20 batches,
    seed 11) and the exact E[W] (ladder height) must lie in the estimate's 99.9%
    Student-t interval (false-alarm rate 1e-3 for a random seed).

    Parameters
    ----------
    service : str
        The service shape (:func:`service_law`).
    customers : int, keyword-only
        Simulated customers (a multiple of 20).

    Returns
    -------
    qtheory.core.claims.Claim
        Statistical; value: the simulated E[W], reference: the exact one.

    Examples
    --------
    >>> claim = simulated_wait_claim("erlang:4", customers=400_000)
    >>> claim.passed, str(claim.kind)
    (True, 'statistical')
    """
    from scipy import stats

    from qtheory.sim import simulate_gated

    queue = GatedQueue(math.inf, 1.0, 4.0, 1.0)
    opt = optimal_gate_ph(queue, service)
    exact = opt.mean_wait
    assert exact is not None  # the ladder-height route always gives E[W]
    est = simulate_gated(
        queue, opt.gate, service=service_law(service), customers=customers, batches=20, seed=11
    ).mean_wait
    allowance = float(stats.t.ppf(1 - 1e-3 / 2, est.dof) * est.stderr)
    return Claim(
        name=f"gated.service.simulated_wait.{service.replace(':', '_')}",
        statement=(
            rf"with {service} service at $\nu = 4$, $\Lambda = \infty$, the simulated mean "
            r"wait at the optimal gate $\tau^*$ agrees with the exact GI/PH/1 value (ladder "
            r"height) within its 99.9% confidence interval"
        ),
        kind=Evidence.STATISTICAL,
        passed=bool(abs(est.mean - exact) <= allowance),
        origin=Origin.PACKAGE,
        hypotheses=(MODEL,),
        scope=rf"$\tau^* = {opt.gate:.6g}$, {customers} customers in 20 batches, seed 11",
        quantity=r"mean waiting time $E[W]$",
        value=est.mean,
        reference=exact,
        tolerance=allowance,
        estimate=est,
    )


def memory_ladder_ph_claim(quick: bool = False) -> Claim:
    r"""With phase-type service, more gate memory earns more: RR ≤ Erlang-1 < Erlang-2 <
    … < Erlang-32 gate < GA, at ν = 4 for Erlang-3 and H2(4) service and Λ ∈ {∞, 2}.

    Each Erlang-m gate (mean optimised, :func:`optimal_gate_ph` with ``gate_shape``)
    needs no clock: its state is whether it is open and, while closed, which of its m
    phases it is in; the deterministic gate (GA, the one-bit rule timed by a clock) is
    the m → ∞ limit, and the exponential gate with Λ = ∞ is random routing.

    Parameters
    ----------
    quick : bool
        m = 1, 2, 4 only.

    Returns
    -------
    qtheory.core.claims.Claim
        Finite-range; value: the (service, Λ) pairs where the chain of inequalities holds
        (reference: all four).

    Examples
    --------
    >>> memory_ladder_ph_claim(quick=True).passed
    True
    """
    from qtheory.core.phase_type import erlang as erlang_law

    phases = (1, 2, 4) if _flag(quick) else (1, 2, 4, 8, 16, 32)
    held = 0
    cases = [(s, a) for s in ("erlang:3", "hyperexp:4") for a in (math.inf, 2.0)]
    for service, arrival in cases:
        queue = GatedQueue(arrival, 1.0, 4.0, 1.0)
        rungs = [optimal_routing_ph(queue, service).welfare]
        rungs += [
            optimal_gate_ph(queue, service, gate_shape=erlang_law(m, 1.0)).welfare for m in phases
        ]
        rungs.append(optimal_gate_ph(queue, service).welfare)
        slack = 1e-12 * abs(rungs[0])  # RR = Erlang-1 exactly when Λ = ∞
        held += bool(rungs[0] <= rungs[1] + slack and np.all(np.diff(rungs[1:]) > 0))
    return Claim(
        name="gated.service.memory_ladder",
        statement=(
            r"with phase-type service, the optimal welfare increases with the gate's memory: "
            r"$S_{\mathrm{RR}}^* \le S_{\mathrm{Erl}(1)}^* < S_{\mathrm{Erl}(2)}^* < \dots "
            r"< S_{\mathrm{GA}}^*$ (Erlang-$m$ gates of optimised mean)"
        ),
        kind=Evidence.FINITE_RANGE,
        passed=held == len(cases),
        origin=Origin.PACKAGE,
        hypotheses=(MODEL, r"$\nu = R\mu/C > 1$"),
        scope=(
            rf"$m \in \{{{', '.join(map(str, phases))}\}}$, $\nu = 4$, $\mu = C = 1$, "
            r"$\Lambda \in \{\infty, 2\}$, service erlang:3 and hyperexp:4"
        ),
        quantity=r"(service, $\Lambda$) pairs where the chain holds",
        value=float(held),
        reference=float(len(cases)),
    )


def service_claims(quick: bool = False) -> Records[Claim]:
    """Every claim of this module: dominance and the SCV trend on the grid, the memory
    ladder of Erlang-m gates, and the simulation check for an Erlang and a
    hyperexponential law.

    Parameters
    ----------
    quick : bool
        Small grids and shorter simulations (for tests).

    Returns
    -------
    list of qtheory.core.claims.Claim

    Examples
    --------
    >>> from qtheory.core.claims import claims_summary
    >>> claims_summary(service_claims(quick=True))
    '2 statistical, 3 finite-range; 0 fail'
    """
    customers = 400_000 if _flag(quick) else 4_000_000
    claims = [
        service_dominance_claim(quick),
        pof_decreases_with_scv_claim(quick),
        memory_ladder_ph_claim(quick),
        simulated_wait_claim("erlang:4", customers=customers),
        simulated_wait_claim("hyperexp:4", customers=customers),
    ]
    return Records(claims)
