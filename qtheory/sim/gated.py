"""Simulation of gated admission (GA) and random routing (RR) to a single FIFO server.

Both policies produce a GI/G/1 queue of admitted customers, simulated by the Lindley
recursion in the C extension :mod:`qtheory.sim._core`.  Estimates come with 95%
confidence intervals from batch means.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from qtheory._validation import nonnegative, nonnegative_int, positive, positive_int
from qtheory.sim import _core

__all__ = ["SojournEstimate", "simulate_gated", "simulate_random_routing"]

CONFIDENCE = 0.95
HYPEREXP_MAX_SCV = 1e9  # as QT_HYPEREXP_MAX_SCV in src/lindley.h


@dataclass(frozen=True)
class SojournEstimate:
    """Batch-means estimates for one simulated queue.

    Attributes
    ----------
    mean_sojourn, mean_sojourn_halfwidth : float
        Mean sojourn time (wait plus service) and the half-width of its 95% confidence
        interval (Student t with ``batches - 1`` degrees of freedom).
    mean_wait, mean_wait_halfwidth : float
        Mean waiting time before service and its 95% half-width.
    prob_no_wait, prob_no_wait_halfwidth : float
        Fraction of customers served on arrival and its 95% half-width.
    throughput : float
        Admitted customers per unit time: customers / total inter-arrival time.
    customers, batches : int
        Recorded customers (after warm-up) and the number of batches.
    """

    mean_sojourn: float
    mean_sojourn_halfwidth: float
    mean_wait: float
    mean_wait_halfwidth: float
    prob_no_wait: float
    prob_no_wait_halfwidth: float
    throughput: float
    customers: int
    batches: int

    def welfare(self, reward: float, cost: float) -> float:
        """Social welfare per unit time, ``throughput * (reward - cost * mean_sojourn)``.

        A point estimate (no confidence interval).

        >>> SojournEstimate(2.0, 0.1, 1.0, 0.1, 0.5, 0.01, 0.5, 100, 10).welfare(10, 1)
        4.0
        """
        return self.throughput * (reward - cost * self.mean_sojourn)


def simulate_gated(
    gate: float,
    arrival_rate: float,
    service_rate: float,
    *,
    service: str = "exponential",
    customers: int = 1_000_000,
    warmup: int = 10_000,
    batches: int = 50,
    seed: object = None,
) -> SojournEstimate:
    """Simulate gated admission: after each admission the gate stays shut for ``gate``.

    Potential customers arrive as a Poisson process of rate ``arrival_rate``; the first
    one after the gate reopens is admitted, so admitted inter-arrival times are
    ``T = gate + Exp(arrival_rate)`` (``T = gate`` when ``arrival_rate`` is ``inf``).
    Waiting times follow the Lindley recursion

        W_1 = 0,   W_{n+1} = max(0, W_n + S_n - T_{n+1}),   sojourn_n = W_n + S_n,

    with i.i.d. service times ``S_n`` of mean ``1 / service_rate``.

    Parameters
    ----------
    gate : float
        Gate length tau >= 0.
    arrival_rate : float
        Poisson rate Lambda > 0 of potential customers; ``math.inf`` is allowed.
    service_rate : float
        mu > 0; the queue must be stable: ``gate + 1/arrival_rate > 1/service_rate``.
    service : str
        Service-time law with mean ``1/service_rate``: ``"exponential"``,
        ``"deterministic"``, ``"erlang:K"`` (K phases, integer >= 1) or
        ``"hyperexp:SCV"`` (two phases with balanced means, squared coefficient of
        variation 1 < SCV <= 1e9).
    customers : int
        Recorded customers, a multiple of ``batches``.
    warmup : int
        Customers simulated first (starting from an empty queue) and discarded.
    batches : int
        Number of batches (>= 2) for the batch-means confidence intervals.
    seed : None, int, SeedSequence, BitGenerator or Generator
        Anything :func:`numpy.random.default_rng` accepts.  A Generator is used (and
        advanced) in place.

    Returns
    -------
    SojournEstimate

    Raises
    ------
    ValueError
        On an invalid parameter or an unstable queue.

    Examples
    --------
    D/M/1 (``arrival_rate=inf``) at load 1/2: the mean sojourn is 1 / (mu (1 - sigma))
    with sigma ~ 0.2032 the root of sigma = exp(-2 (1 - sigma)).

    >>> import math
    >>> est = simulate_gated(2.0, math.inf, 1.0, customers=200_000, batches=20, seed=1)
    >>> abs(est.mean_sojourn - 1 / (1 - 0.2032)) < 3 * est.mean_sojourn_halfwidth
    True
    >>> est.throughput
    0.5
    """
    gate = nonnegative("gate", gate)
    arrival_rate = positive("arrival_rate", arrival_rate, allow_inf=True)
    return _simulate(gate, arrival_rate, service_rate, service, customers, warmup, batches, seed)


def simulate_random_routing(
    rate: float,
    service_rate: float,
    *,
    service: str = "exponential",
    customers: int = 1_000_000,
    warmup: int = 10_000,
    batches: int = 50,
    seed: object = None,
) -> SojournEstimate:
    """Simulate random routing: the admitted stream is Poisson(``rate``).

    Inter-arrival times are ``T = Exp(rate)`` (gated admission with a gate of length
    0) and waiting times follow the Lindley recursion

        W_1 = 0,   W_{n+1} = max(0, W_n + S_n - T_{n+1}),   sojourn_n = W_n + S_n.

    Parameters
    ----------
    rate : float
        Admitted arrival rate lambda, finite, with ``rate < service_rate``.
    service_rate, service, customers, warmup, batches, seed
        As in :func:`simulate_gated`.

    Returns
    -------
    SojournEstimate

    Examples
    --------
    M/M/1 at load 1/2 has mean sojourn 1 / (mu - lambda) = 2.

    >>> est = simulate_random_routing(0.5, 1.0, customers=200_000, batches=20, seed=1)
    >>> abs(est.mean_sojourn - 2.0) < 3 * est.mean_sojourn_halfwidth
    True
    """
    rate = positive("rate", rate)
    return _simulate(0.0, rate, service_rate, service, customers, warmup, batches, seed)


def _simulate(
    gate: float,
    arrival_rate: float,
    service_rate: float,
    service: str,
    customers: int,
    warmup: int,
    batches: int,
    seed: object,
) -> SojournEstimate:
    service_rate = positive("service_rate", service_rate)
    kind, param = _parse_service(service)
    customers = positive_int("customers", customers)
    warmup = nonnegative_int("warmup", warmup)
    batches = positive_int("batches", batches)
    # The rules that tie parameters together (stability, customers a multiple of
    # batches) are stated once, in the C code, which raises ValueError for them.
    bit_generator = np.random.default_rng(seed).bit_generator
    with bit_generator.lock:  # the C code releases the GIL while it draws
        sojourn, wait, no_wait, interarrival = _core.lindley(
            bit_generator, gate, arrival_rate, kind, service_rate, param,
            customers, warmup, batches,
        )  # fmt: skip
    return _estimate(sojourn, wait, no_wait, interarrival, customers)


def _parse_service(service: str) -> tuple[str, float]:
    """Split a service law such as ``"erlang:3"`` into the C kind and its parameter.

    >>> _parse_service("erlang:3"), _parse_service("exponential")
    (('erlang', 3.0), ('exponential', 0.0))
    """
    if isinstance(service, str):
        kind, colon, arg = service.partition(":")
        if kind in ("exponential", "deterministic") and not colon:
            return kind, 0.0
        if kind == "erlang" and arg.isascii() and arg.isdigit() and int(arg) >= 1:
            return kind, float(int(arg))
        if kind == "hyperexp" and 1 < _float_or_nan(arg) <= HYPEREXP_MAX_SCV:
            return kind, float(arg)
    raise ValueError(
        "service must be 'exponential', 'deterministic', 'erlang:K' with an integer K >= 1 "
        f"or 'hyperexp:SCV' with 1 < SCV <= {HYPEREXP_MAX_SCV:g}, got {service!r}"
    )


def _float_or_nan(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan


def _halfwidth(batch_means: np.ndarray) -> float:
    """Half-width of the Student t confidence interval for the mean of batch means."""
    b = batch_means.size
    quantile = stats.t.ppf(0.5 + CONFIDENCE / 2, b - 1)
    return float(quantile * batch_means.std(ddof=1) / math.sqrt(b))


def _estimate(
    sojourn: np.ndarray,
    wait: np.ndarray,
    no_wait: np.ndarray,
    interarrival: np.ndarray,
    customers: int,
) -> SojournEstimate:
    return SojournEstimate(
        mean_sojourn=float(sojourn.mean()),
        mean_sojourn_halfwidth=_halfwidth(sojourn),
        mean_wait=float(wait.mean()),
        mean_wait_halfwidth=_halfwidth(wait),
        prob_no_wait=float(no_wait.mean()),
        prob_no_wait_halfwidth=_halfwidth(no_wait),
        throughput=customers / float(interarrival.sum()),
        customers=customers,
        batches=sojourn.size,
    )
