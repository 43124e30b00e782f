"""Simulation of gated admission (GA) and random routing (RR) to a single FIFO server.

Both policies produce a GI/G/1 queue of admitted customers, simulated by the Lindley
recursion in the C extension :mod:`qtheory.sim._core`.  Potential customers arrive as a
Poisson stream or, with ``arrivals=``, as a renewal stream of phase-type gaps
(:func:`qtheory.core.phase_type.arrival_law`).  Service may be exponential,
deterministic, Erlang, hyperexponential or any phase-type law
(:class:`qtheory.core.phase_type.PhaseType`, rescaled to mean 1/μ), and the gate a fixed
length or a phase-type law (a random blocking period after each admission).  Both take a
:class:`qtheory.gated.GatedQueue` (Λ, μ; R and C for the welfare) like the exact routes.
Every estimate is a :class:`qtheory.core.stats.Estimate`: a 95% Student-t interval over batch
means.

References
----------
.. [1] S. Asmussen, Applied Probability and Queues, 2nd ed., Springer (2003).
.. [2] R. Hassin and L. Ravner, "Using memory to control admission to unobservable queues",
   arXiv:2606.02464 (2026).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from qtheory.core import limits
from qtheory.core.phase_type import PhaseType, arrival_law, parse_service, service_law
from qtheory.core.stats import Estimate
from qtheory.core.validation import nonnegative, nonnegative_int, positive, positive_int
from qtheory.model.gated import GatedQueue, checked_queue
from qtheory.sim import _core

__all__ = ["SojournEstimate", "simulate_gated", "simulate_random_routing"]  # fmt: skip

PH_MAX_PHASES = 256  # as QT_PH_MAX_PHASES in src/lindley.h


@dataclass(frozen=True)
class SojournEstimate:
    """Batch-means estimates for one simulated queue.

    Every interval is a :class:`qtheory.core.stats.Estimate` (95%, Student t with
    ``batches - 1`` degrees of freedom over the batch means).

    Attributes
    ----------
    mean_sojourn : Estimate
        Mean sojourn time (wait plus service).
    mean_wait : Estimate
        Mean waiting time before service.
    prob_no_wait : Estimate
        Fraction of customers served on arrival.
    throughput : float
        Admitted customers per unit time: customers / total inter-arrival time.
    customers, batches : int
        Recorded customers (after warm-up) and the number of batches.

    Examples
    --------
    M/M/1 at load 1/2 (random routing at λ = 1/2, μ = 1): P(no wait) = 1 − ρ = 1/2.

    >>> queue = GatedQueue(1.0, 1.0, 2.0, 1.0)
    >>> est = simulate_random_routing(queue, 0.5, customers=100_000, batches=20, seed=2)
    >>> abs(est.prob_no_wait.mean - 0.5) < 3 * est.prob_no_wait.halfwidth
    True
    >>> est.customers, est.batches
    (100000, 20)

    References
    ----------
    See the module's References: Asmussen (2003), Ch. IV (batch means).
    """

    mean_sojourn: Estimate
    mean_wait: Estimate
    prob_no_wait: Estimate
    throughput: float
    customers: int
    batches: int

    def welfare(self, queue: GatedQueue) -> float:
        """Social welfare per unit time, ``throughput * (R − C * mean_sojourn)`` with the
        reward R and cost C of ``queue``: a point estimate (no confidence interval).

        Parameters
        ----------
        queue : GatedQueue
            Supplies R and C (as float64).

        Returns
        -------
        float
            λ̂ (R − C Ŝ), with λ̂ the simulated throughput and Ŝ the mean sojourn.

        Raises
        ------
        TypeError
            ``queue`` not a GatedQueue.
        ValueError
            A field of ``queue`` beyond float64.

        Examples
        --------
        >>> from qtheory.core.stats import Estimate
        >>> sojourn = Estimate(2.0, 0.1, 10, "t", 9)
        >>> record = SojournEstimate(sojourn, sojourn, sojourn, 0.5, 100, 10)
        >>> record.welfare(GatedQueue(1.0, 1.0, 10.0, 1.0))  # 0.5 (10 − 2)
        4.0

        References
        ----------
        See the module's References: Hassin and Ravner (2026).
        """
        queue = checked_queue(queue)
        floats = queue.as_float64()
        return self.throughput * (floats.reward - floats.cost * self.mean_sojourn.mean)


def _rates(queue: object) -> tuple[float, float]:
    """(Λ, μ) of ``queue`` as float64."""
    queue = checked_queue(queue)
    floats = queue.as_float64()
    return floats.arrival_rate, floats.service_rate


def simulate_gated(
    queue: GatedQueue,
    gate: float | PhaseType,
    *,
    service: str | PhaseType = "exponential",
    arrivals: str | PhaseType = "poisson",
    customers: int = 1_000_000,
    warmup: int = 10_000,
    batches: int = 50,
    seed: object = None,
) -> SojournEstimate:
    """Simulate gated admission: after each admission the gate stays shut for ``gate``
    (a fixed length, or a draw from a phase-type law).

    Potential customers arrive as a Poisson process of rate Λ = ``queue.arrival_rate``;
    the first one after the gate reopens is admitted, so admitted inter-arrival times
    are ``T = gate + Exp(Λ)`` (``T = gate`` when Λ is ``inf``).  Waiting times follow the
    Lindley recursion

        W_1 = 0,   W_{n+1} = max(0, W_n + S_n - T_{n+1}),   sojourn_n = W_n + S_n,

    with i.i.d. service times ``S_n`` of mean ``1 / queue.service_rate``.

    Parameters
    ----------
    queue : GatedQueue
        Λ (``inf`` allowed) and μ of the queue (its reward and cost are not used here;
        see :meth:`SojournEstimate.welfare`).
    gate : float or PhaseType
        Gate length τ ≥ 0, or the phase-type law of the blocking period (used as given,
        at most 256 phases); the queue must be stable: ``E[gate] + 1/Λ > 1/μ``.
    service : str or PhaseType, keyword-only
        Service-time law with mean ``1/μ``: ``"exponential"``, ``"deterministic"``,
        ``"erlang:K"`` (K phases, integer >= 1), ``"hyperexp:SCV"`` (two phases with
        balanced means, squared coefficient of variation 1 < SCV <= 1e9), ``"fit:SCV"``
        or ``"fit:SCV:THIRD"`` (the grammar of
        :func:`~qtheory.core.phase_type.parse_service`), or a
        :class:`~qtheory.core.phase_type.PhaseType` (at most 256 phases) rescaled to mean
        1/μ.
    arrivals : str or PhaseType, keyword-only
        The potential customers' inter-arrival law, rescaled to mean 1/Λ (Λ finite
        unless Poisson): ``"poisson"`` (the default, the stream above) or a renewal
        stream of :func:`~qtheory.core.phase_type.arrival_law` (``"erlang:K"``, ``"hyperexp:SCV"``,
        ``"fit:SCV"``, a PhaseType of at most 256 phases).  Then the gate opens at an
        admission, itself an arrival, and ``T`` is the time from it to the first arrival
        after the gate (the gate a number); the queue must be stable,
        ``gate + E[R(gate)] > 1/μ`` with ``R(gate)`` the forward recurrence time of the
        renewal stream at ``gate``.
    customers : int, keyword-only
        Recorded customers, a multiple of ``batches``.
    warmup : int, keyword-only
        Customers simulated first (starting from an empty queue) and discarded.
    batches : int, keyword-only
        Number of batches (>= 2) for the batch-means confidence intervals.
    seed : None, int, SeedSequence, BitGenerator or Generator, keyword-only
        Anything :func:`numpy.random.default_rng` accepts.  A Generator is used (and
        advanced) in place.

    Returns
    -------
    SojournEstimate

    Raises
    ------
    TypeError
        ``queue`` not a GatedQueue.
    ValueError
        On an invalid parameter or an unstable queue.

    Examples
    --------
    D/M/1 (Λ = ∞) at load 1/2: the mean sojourn is 1 / (μ (1 - σ)) with σ the root of
    σ = exp(-2 (1 - σ)) (:func:`qtheory.gated.root`).

    >>> import math
    >>> from qtheory.gated.gim1_root import root
    >>> queue = GatedQueue(math.inf, 1.0, 2.0, 1.0)
    >>> est = simulate_gated(queue, 2.0, customers=200_000, batches=20, seed=1)
    >>> exact = 1 / (1 - float(root(2.0, math.inf, 1.0)))
    >>> abs(est.mean_sojourn.mean - exact) < 3 * est.mean_sojourn.halfwidth
    True
    >>> est.throughput
    0.5

    A phase-type gate and Erlang-2 service as a PhaseType:

    >>> from qtheory.core.phase_type import erlang
    >>> est = simulate_gated(GatedQueue(2.0, 1.0, 2.0, 1.0), erlang(3, 3.0),
    ...                      service=erlang(2, 1.0), customers=20_000, batches=20, seed=1)
    >>> round(est.throughput, 1)  # 1/(E[gate] + 1/Λ) = 1/1.5
    0.7

    References
    ----------
    See the module's References:

    - Hassin and Ravner (2026);
    - Asmussen (2003), Ch. III (the Lindley recursion) and Ch. IV (batch means).
    """
    arrival_rate, service_rate = _rates(queue)
    if isinstance(gate, PhaseType):
        gate_law, gate = gate, 0.0
    else:
        gate_law, gate = None, nonnegative("gate", gate)
    renewal = _renewal_law(arrivals)
    if renewal is not None and gate_law is not None:
        raise ValueError("gate must be a number (not a PhaseType) with renewal arrivals")
    return _simulate(
        gate, arrival_rate, service_rate, service, customers, warmup, batches, seed, gate_law,
        renewal,
    )  # fmt: skip


def simulate_random_routing(
    queue: GatedQueue,
    rate: float,
    *,
    service: str | PhaseType = "exponential",
    arrivals: str | PhaseType = "poisson",
    customers: int = 1_000_000,
    warmup: int = 10_000,
    batches: int = 50,
    seed: object = None,
) -> SojournEstimate:
    """Simulate random routing: each potential customer is admitted with probability
    ``rate / Λ``, so the admitted stream is Poisson(``rate``).

    Inter-arrival times are ``T = Exp(rate)`` (gated admission with a gate of length
    0); with renewal ``arrivals`` each arrival is admitted with probability
    q = ``rate / Λ``, so ``T`` is a Geometric(q) sum of inter-arrival times.  Waiting
    times follow the Lindley recursion

        W_1 = 0,   W_{n+1} = max(0, W_n + S_n - T_{n+1}),   sojourn_n = W_n + S_n.

    Parameters
    ----------
    queue : GatedQueue
        Λ and μ of the queue.
    rate : float
        Admitted arrival rate λ, with ``0 < rate <= Λ`` and ``rate < μ``.
    service, arrivals, customers, warmup, batches, seed : keyword-only
        As in :func:`simulate_gated`.

    Returns
    -------
    SojournEstimate

    Raises
    ------
    TypeError
        ``queue`` not a GatedQueue.
    ValueError
        On an invalid parameter, ``rate > Λ`` or an unstable queue.

    Examples
    --------
    M/M/1 at load 1/2 has mean sojourn 1 / (μ - λ) = 2.

    >>> queue = GatedQueue(1.0, 1.0, 2.0, 1.0)
    >>> est = simulate_random_routing(queue, 0.5, customers=200_000, batches=20, seed=1)
    >>> abs(est.mean_sojourn.mean - 2.0) < 3 * est.mean_sojourn.halfwidth
    True

    References
    ----------
    See the module's References:

    - Hassin and Ravner (2026);
    - Asmussen (2003), Ch. III (the Lindley recursion) and Ch. IV (batch means).
    """
    arrival_rate, service_rate = _rates(queue)
    rate = positive("rate", rate)
    if rate > arrival_rate:
        raise ValueError(
            f"rate must be <= arrival_rate ({arrival_rate!r}): random routing thins the "
            f"potential arrivals, got {rate!r}"
        )
    renewal = _renewal_law(arrivals)
    if renewal is None:
        return _simulate(0.0, rate, service_rate, service, customers, warmup, batches, seed)
    return _simulate(
        0.0, arrival_rate, service_rate, service, customers, warmup, batches, seed, None,
        renewal, rate / arrival_rate,
    )  # fmt: skip


def _simulate(
    gate: float,
    arrival_rate: float,
    service_rate: float,
    service: str | PhaseType,
    customers: int,
    warmup: int,
    batches: int,
    seed: object,
    gate_law: PhaseType | None = None,
    renewal: PhaseType | None = None,
    admit_probability: float = 1.0,
) -> SojournEstimate:
    kind, param, law = _parse_service(service)
    customers = positive_int("customers", customers)
    warmup = nonnegative_int("warmup", warmup)
    batches = positive_int("batches", batches)
    draws = 1 + (param if kind == "erlang" else 2 if kind == "hyperexp" else 1)
    laws = {}
    if kind == "ph":
        draws += _phase_draws(_checked_phases("service", law)) - 1
        laws |= {"service_alpha": law.alpha, "service_T": law.T}
    if gate_law is not None:
        draws += _phase_draws(_checked_phases("gate", gate_law))
        laws |= {"gate_alpha": gate_law.alpha, "gate_T": gate_law.T}
    if renewal is not None:
        draws += _arrival_draws(_checked_phases("arrivals", renewal), gate, arrival_rate,
                                admit_probability)  # fmt: skip
        laws |= {"arrival_alpha": renewal.alpha, "arrival_T": renewal.T,
                 "admit_probability": admit_probability}  # fmt: skip
    limits.require(
        "events", (customers + warmup) * draws, parameter="customers",
        what=f"simulating {customers + warmup} customers ({draws:g} random draws each)",
    )  # fmt: skip
    # The rules that tie parameters together (stability, customers a multiple of
    # batches) are stated once, in the C code, which raises ValueError for them.
    bit_generator = _bit_generator(seed)
    with bit_generator.lock:  # the C code releases the GIL while it draws
        sojourn, wait, no_wait, interarrival = _core.lindley(
            bit_generator, gate, arrival_rate, kind, service_rate, param,
            customers, warmup, batches, **laws,
        )  # fmt: skip
    return SojournEstimate(
        mean_sojourn=Estimate.of(sojourn),
        mean_wait=Estimate.of(wait),
        prob_no_wait=Estimate.of(no_wait),
        throughput=customers / float(interarrival.sum()),
        customers=customers,
        batches=sojourn.size,
    )


def _bit_generator(seed: object) -> np.random.BitGenerator:
    """The bit generator of ``numpy.random.default_rng(seed)``; a ValueError names
    ``seed`` when NumPy refuses it."""
    try:
        return np.random.default_rng(seed).bit_generator
    except (TypeError, ValueError) as error:
        raise ValueError(
            "seed must be None, an integer >= 0, a sequence of them, a SeedSequence, a "
            f"BitGenerator or a Generator, got {seed!r} ({error})"
        ) from None


def _checked_phases(name: str, law: PhaseType) -> PhaseType:
    """``law`` if it has at most ``PH_MAX_PHASES`` phases (the C sampler's limit)."""
    if law.phases > PH_MAX_PHASES:
        raise ValueError(f"{name} must have at most {PH_MAX_PHASES} phases, got {law.phases}")
    return law


def _renewal_law(arrivals: str | PhaseType) -> PhaseType | None:
    """None for Poisson arrivals (the simulator's exponential stream, unchanged), else the
    inter-arrival shape of :func:`~qtheory.core.phase_type.arrival_law`."""
    if isinstance(arrivals, str) and arrivals in ("poisson", "exponential"):
        return None
    return arrival_law(arrivals)


def _arrival_draws(law: PhaseType, gate: float, arrival_rate: float, q: float) -> float:
    """Expected random draws of one admitted gap with renewal arrivals, bounded above:
    the arrivals per gap, M(gate) + 1/q by Wald's identity, are at most
    Λ gate + E[X²]/E[X]² − 1 + 1/q (Lorden's bound on the renewal function M), each with
    its phase-type draws and, when thinned, a uniform."""
    if not math.isfinite(arrival_rate):
        raise ValueError("arrival_rate must be finite with renewal arrivals")
    arrivals = arrival_rate * gate + law.moment(2) / law.mean**2 - 1.0 + 1.0 / q
    return arrivals * (_phase_draws(law) + (q < 1))


def _phase_draws(law: PhaseType) -> float:
    """Expected random draws of one sample of ``law`` in the C sampler: one uniform for the
    start, then per visited phase an exponential and a uniform.  Phase j is visited
    (expected time in j) × (rate out of j) times, the time being [α(−T)^{-1}]_j."""
    time_in = np.linalg.solve(-law.T.T, law.alpha)
    return 1.0 + 2.0 * float(time_in @ -np.diag(law.T))


def _parse_service(service: str | PhaseType) -> tuple[str, float, PhaseType | None]:
    """The C kind of a service law, its parameter and, for a phase-type law (kind
    ``"ph"``), the law itself: the strings of :func:`qtheory.core.phase_type.parse_service`;
    exponential, deterministic, Erlang and hyperexponential laws are sampled natively,
    fitted laws as phase-type laws.

    >>> _parse_service("erlang:3"), _parse_service("exponential")
    (('erlang', 3.0, None), ('exponential', 0.0, None))
    """
    if isinstance(service, PhaseType):
        return "ph", 0.0, service
    kind, numbers = parse_service(service)
    if kind == "fit":
        return "ph", 0.0, service_law(service)
    return kind, (numbers[0] if numbers else 0.0), None
