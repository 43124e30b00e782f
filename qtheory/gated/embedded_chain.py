r"""An exact route to the gated queue that never uses the root equation.

The number of customers an admitted customer finds in the system is a Markov chain at
admission epochs (the GI/M/1 embedded chain).  During an inter-admission time
:math:`T = \tau + \mathrm{Exp}(\Lambda)` the server, if busy throughout, completes
:math:`K` services with

.. math:: a_k = P(K = k) = \bigl(\mathrm{Poisson}(\mu\tau) * \mathrm{Geometric}\bigr)_k,
          \qquad \mathrm{Geometric}_j = \frac{\Lambda}{\Lambda+\mu}
          \Bigl(\frac{\mu}{\Lambda+\mu}\Bigr)^{j},

(the Poisson part alone when :math:`\Lambda=\infty`), so from state :math:`n` the chain
moves to :math:`n+1-k` with probability :math:`a_k` (:math:`k\le n`) and to 0 with the
remaining probability.  The chain is truncated at ``states`` states (the arrival that
would push it past the top stays at the top), solved by GTH
(:func:`qtheory.exact.stationary_dtmc`), and the truncation is enlarged until the mass
at the top is below ``1e-15``.  Theory says the law is geometric, :math:`(1-\sigma)\sigma^n`,
and the mean sojourn :math:`E[N+1]/\mu = 1/(\mu(1-\sigma))`; the tests compare.

References
----------
.. [1] L. Kleinrock, Queueing Systems, Vol. I, Wiley (1975), Sec. 6.4 (the GI/M/1
   embedded chain).
.. [2] W. K. Grassmann, M. I. Taksar and D. P. Heyman, "Regenerative analysis and steady
   state distributions for Markov chains", Operations Research 33(5) (1985) (GTH).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from qtheory.core import limits
from qtheory.core.validation import positive_int
from qtheory.exact.stationary import stationary_dtmc
from qtheory.gated.count_laws import geometric_pmf, poisson_pmf
from qtheory.gated.gim1_root import float_array, validate_gate_parameters

__all__ = ["EmbeddedChainLaw", "embedded_chain_law", "service_count_law"]

_TOP_MASS = 1e-15
_MAX_STATES = 2048


@dataclass(frozen=True)
class EmbeddedChainLaw:
    """Stationary law of the number found in system by an admitted customer.

    Attributes
    ----------
    found : numpy.ndarray
        ``found[n]`` = P(an admitted customer finds n in system), n < truncation.
        In theory the law is geometric, ``found[n] = (1 − σ) σ**n``.

    Examples
    --------
    D/M/1 with μτ = 2 (Λ = ∞): the law is geometric with σ = 0.2031878699...:

    >>> law = embedded_chain_law(2.0, np.inf, 1.0)
    >>> round(1 - law.prob_no_wait, 10), round(float(law.found[1] / law.found[0]), 10)
    (0.20318787, 0.20318787)

    References
    ----------
    See the module's References: Kleinrock (1975), Sec. 6.4.
    """

    found: np.ndarray  # found[n] = P(an admitted customer finds n in system)

    @property
    def prob_no_wait(self) -> float:
        """P(an admitted customer finds the system empty) = found[0] (1 − σ in theory).

        Returns
        -------
        float
            ``found[0]``.

        Examples
        --------
        >>> EmbeddedChainLaw(np.array([0.25, 0.75])).prob_no_wait
        0.25
        """
        return float(self.found[0])

    def mean_sojourn(self, service_rate: float) -> float:
        """E[(N + 1) service times] = E[N + 1]/μ for exponential service.

        An admitted customer who finds N in system waits for their N (memoryless)
        services and then its own; with the geometric law this is 1/(μ(1 − σ)).

        Parameters
        ----------
        service_rate : float
            μ > 0 (finite).

        Returns
        -------
        float
            The mean sojourn time Σ (n + 1) found[n] / μ.

        Raises
        ------
        TypeError, ValueError
            ``service_rate`` not a real scalar, or not finite and > 0.

        Examples
        --------
        E[N + 1] = 0.5 · 1 + 0.5 · 2 = 1.5, divided by μ = 2:

        >>> round(EmbeddedChainLaw(np.array([0.5, 0.5])).mean_sojourn(2.0), 6)
        0.75
        """
        service_rate = _scalars(0.0, np.inf, service_rate)[2]
        return float(np.dot(np.arange(1, self.found.size + 1), self.found) / service_rate)


def service_count_law(gate: float, arrival_rate: float, service_rate: float, size: int):
    """a_k, k < size: the law of Poisson(μ) events during τ + Exp(Λ).

    Parameters
    ----------
    gate : float
        τ ≥ 0.
    arrival_rate : float
        Λ > 0 (``inf`` allowed).
    service_rate : float
        μ > 0.
    size : int
        Number of probabilities returned (≥ 1; memory checked against the limit).

    Returns
    -------
    numpy.ndarray
        a_0, ..., a_{size-1}.

    Raises
    ------
    TypeError, ValueError
        For a parameter of the wrong type or out of range.

    Examples
    --------
    >>> a = service_count_law(1.0, np.inf, 2.0, 40)
    >>> bool(abs(a[3] - np.exp(-2) * 2**3 / 6) < 1e-15)
    True

    References
    ----------
    See the module's References:

    - Kleinrock (1975), Sec. 6.4;
    - Grassmann, Taksar and Heyman (1985).
    """
    size = positive_int("size", size)
    limits.require("memory", 32.0 * size, parameter="size", what="the service-count law")
    gate, arrival_rate, service_rate = _scalars(gate, arrival_rate, service_rate)
    counts = np.arange(size)
    mean = service_rate * gate
    if not np.isfinite(mean):
        raise ValueError(
            f"service_rate*gate must be finite (the mean count during the gate), got "
            f"service_rate={service_rate!r}, gate={gate!r}"
        )
    during_gate = poisson_pmf(counts, mean)
    if np.isinf(arrival_rate):
        return during_gate
    during_exp_phase = geometric_pmf(counts + 1, arrival_rate / (arrival_rate + service_rate))
    return np.convolve(during_gate, during_exp_phase)[:size]


def _scalars(gate, arrival_rate, service_rate) -> tuple[float, float, float]:
    """(τ, Λ, μ) as floats after the range checks (stability is not required)."""
    values = []
    for name, value in (
        ("gate", gate),
        ("arrival_rate", arrival_rate),
        ("service_rate", service_rate),
    ):
        array = float_array(name, value)
        if array.ndim:
            raise TypeError(f"{name} must be a scalar, got an array of shape {array.shape}")
        values.append(float(array))
    gate, arrival_rate, service_rate = values
    if not 0 <= gate < math.inf:
        raise ValueError(f"gate must be finite and >= 0, got {gate!r}")
    if not arrival_rate > 0:
        raise ValueError(f"arrival_rate must be > 0 (inf allowed), got {arrival_rate!r}")
    if not 0 < service_rate < math.inf:
        raise ValueError(f"service_rate must be finite and > 0, got {service_rate!r}")
    return gate, arrival_rate, service_rate


def _transition_matrix(a: np.ndarray) -> np.ndarray:
    """P[n, n+1-k] = a_k for k <= n (capped at the top state), P[n, 0] += P(K > n)."""
    states = a.size
    matrix = np.zeros((states, states))
    all_served = np.clip(1.0 - np.cumsum(a), 0.0, None)  # P(K > n), rounding kept >= 0
    for n in range(states):
        targets = np.minimum(n + 1 - np.arange(n + 1), states - 1)
        np.add.at(matrix[n], targets, a[: n + 1])
        matrix[n, 0] += all_served[n]
    return matrix


def embedded_chain_law(gate: float, arrival_rate: float, service_rate: float) -> EmbeddedChainLaw:
    """Solve the truncated embedded chain exactly (GTH), enlarging the truncation until
    the top state holds less than 1e-15 of the mass.

    Parameters
    ----------
    gate : float
        τ ≥ 0 with μτ ≤ 700.
    arrival_rate : float
        Λ > 0 (``inf`` allowed).
    service_rate : float
        μ > 0; the queue must be stable: τ + 1/Λ > 1/μ.

    Returns
    -------
    EmbeddedChainLaw

    Raises
    ------
    TypeError, ValueError
        For a bad parameter, an unstable queue, μτ > 700, or a queue so close to
        instability that 2048 states do not hold the law.

    Examples
    --------
    >>> law = embedded_chain_law(0.0, 0.5, 1.0)  # M/M/1 with load 1/2
    >>> bool(np.allclose(law.found[:4], [0.5, 0.25, 0.125, 0.0625], rtol=1e-12))
    True

    References
    ----------
    See the module's References:

    - Kleinrock (1975), Sec. 6.4;
    - Grassmann, Taksar and Heyman (1985).
    """
    gate, arrival_rate, service_rate = _scalars(gate, arrival_rate, service_rate)
    validate_gate_parameters(gate, arrival_rate, service_rate)  # stability
    if service_rate * gate > 700:
        raise ValueError(
            "service_rate*gate must be <= 700 for the float64 embedded chain "
            "(P(no service in a gate) underflows; sigma < 1e-300 there)"
        )
    states = 64
    while True:
        a = service_count_law(gate, arrival_rate, service_rate, states)
        found = stationary_dtmc(_transition_matrix(a))
        if found[-1] < _TOP_MASS:
            return EmbeddedChainLaw(found)
        if states >= _MAX_STATES:
            raise ValueError("the queue is too close to instability for the exact chain")
        states *= 2
