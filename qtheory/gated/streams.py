r"""GA's and RR's admitted streams, indexed by the GI/M/1 root they produce.

Gated admission with gate τ and random routing with admission probability q both make
the admitted customers a GI/M/1 queue, with root :math:`\sigma = e^{-w}` of
:math:`\sigma = A^*(\mu(1-\sigma))`.  Every cost of :mod:`qtheory.gated.costs` depends on
the policy only through σ, so the optimiser (:mod:`qtheory.gated.cost_optimum`) searches
over :math:`w` and needs, for each arrival law, the gate and the admission rates that give
each σ: an :class:`AdmittedStreams`.

Poisson(Λ) potential arrivals (:class:`PoissonStreams`), with :math:`u = \mu(1-\sigma)` and
:math:`\beta = 1/\Lambda` (0 for :math:`\Lambda = \infty`):

.. math:: \tau(w) = \frac{w - \log(1 + \beta u)}{u},\qquad
          \lambda_{GA}(w) = \frac{1}{\tau(w) + \beta},\qquad
          \lambda_{RR}(w) = \mu\sigma

(GA: :mod:`qtheory.gated.derivation`; RR: the thinned stream is Poisson, M/M/1,
:math:`\sigma = \rho`).  Admitting everybody (τ = 0, q = 1) gives the smallest w,
:math:`w_{\min} = \log(\mu/\Lambda)` when :math:`\Lambda < \mu`; otherwise that stream is
unstable and :math:`w \downarrow 0` (σ ↑ 1) is approached but not reached.

References
----------
.. [1] L. Kleinrock, Queueing Systems, Vol. I, Wiley (1975), Sec. 6.4 (GI/M/1).
.. [2] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import mpmath

from qtheory.gated import _generated
from qtheory.model.gated import GatedQueue

__all__ = ["AdmittedStreams", "PoissonStreams"]


@runtime_checkable
class AdmittedStreams(Protocol):
    """GA's and RR's admitted streams of one queue, indexed by w = −log σ.

    Every method takes and returns mpmath numbers at the current precision.

    Attributes
    ----------
    service_rate : mpmath.mpf
        μ.
    w_min : mpmath.mpf
        −log σ₀, σ₀ the root when everybody is admitted (τ = 0, q = 1); 0 when that
        stream is unstable.

    Examples
    --------
    >>> isinstance(PoissonStreams(GatedQueue(2, 1, 3, 1)), AdmittedStreams)
    True
    """

    service_rate: mpmath.mpf
    w_min: mpmath.mpf

    def ga_gate(self, w: mpmath.mpf) -> mpmath.mpf:
        """τ(w) ≥ 0, the gate whose admitted stream has root e^{−w} (w ≥ w_min)."""
        ...

    def ga_throughput(self, w: mpmath.mpf) -> mpmath.mpf:
        """1/E[admitted inter-arrival time] under the gate τ(w)."""
        ...

    def rr_throughput(self, w: mpmath.mpf) -> mpmath.mpf:
        """q(w) Λ, the random-routing admission rate whose stream has root e^{−w}."""
        ...


class PoissonStreams:
    """The admitted streams of Poisson(Λ) potential arrivals (module notes).

    Parameters
    ----------
    queue : GatedQueue
        Λ and μ (R and C are not used); read at the current mpmath precision.

    Examples
    --------
    >>> import mpmath
    >>> streams = PoissonStreams(GatedQueue(0.5, 1, 2, 1))
    >>> mpmath.nstr(streams.w_min, 6), mpmath.nstr(streams.ga_gate(streams.w_min), 6)
    ('0.693147', '0.0')
    >>> mpmath.nstr(streams.rr_throughput(streams.w_min), 6)  # everybody: λ = Λ
    '0.5'
    """

    def __init__(self, queue: GatedQueue):
        p = queue.parameters(mpmath.mp.dps)
        self.service_rate = p.mu
        self._beta = p.beta
        mu_beta = self.service_rate * self._beta
        self.w_min = mpmath.log(mu_beta) if mu_beta > 1 else mpmath.mpf(0)

    def ga_gate(self, w: mpmath.mpf) -> mpmath.mpf:
        """τ(w) = (w − log(1 + βu))/u."""
        return _generated.gate_of_root_mp(w, self.service_rate, self._beta)

    def ga_throughput(self, w: mpmath.mpf) -> mpmath.mpf:
        """1/(τ(w) + 1/Λ)."""
        return _generated.throughput_mp(w, self.service_rate, self._beta)

    def rr_throughput(self, w: mpmath.mpf) -> mpmath.mpf:
        """μσ = μe^{−w} (M/M/1: σ = ρ)."""
        return self.service_rate * mpmath.exp(-w)
