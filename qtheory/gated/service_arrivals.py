r"""Renewal (phase-type) potential arrivals for :mod:`qtheory.gated.service`: the admitted
inter-arrival laws of gated admission (GA) and random routing (RR), as the phase-type
parts that the GI/PH/1 ladder-height engine takes.

Model.  Potential inter-arrival times are i.i.d. :math:`X\sim\mathrm{PH}(\alpha, T)`,
:math:`t = -T\mathbf 1`, of mean :math:`1/\Lambda` (:math:`\Lambda` finite; the shape is
an ``--arrivals`` law of :func:`qtheory.core.phase_type.arrival_law`, rescaled).  The
phase process of the renewal stream is the CTMC with generator :math:`Q = T + t\alpha`
(Neuts [1]_, Ch. 2), and :math:`Q(-T)^{-1}\mathbf 1 = -\mathbf 1 + t/\Lambda`.

Gated admission opens the gate :math:`\tau` after an admission, itself an arrival epoch,
so the phase process starts in :math:`\alpha` and is in :math:`\pi(\tau) = \alpha
e^{Q\tau}` when the gate opens; the admitted gap is :math:`A = \tau + R` with the wait
for the next arrival :math:`R\sim\mathrm{PH}(\pi(\tau), T)`, so

.. math:: \hat A(M) = E[e^{MA}] = e^{\tau M}\,E[e^{MR}], \qquad
          E[A] = \tau + \pi(\tau)(-T)^{-1}\mathbf 1, \qquad
          \frac{dE[A]}{d\tau} = \frac{\pi(\tau)\, t}{\Lambda},

the last from :math:`\pi' = \pi Q` (the renewal density at :math:`\tau` over
:math:`\Lambda`; 1 for Poisson input).  :math:`E[e^{MR}] = \sum_i \pi_i Y_i` is linear in
:math:`\pi` (the blocks :math:`Y_i` of :mod:`qtheory.gated.service` do not depend on the
initial vector), so its derivative in :math:`\tau` is :math:`\sum_i (\pi Q)_i Y_i`: the
*drift* :math:`\pi(\tau)Q` is returned with the law.

Random routing admits each potential customer with probability :math:`q` independently:
the admitted gap is a Geometric(:math:`q`) sum of :math:`X`'s, the phase-type law
:math:`\mathrm{PH}(\alpha, T + (1-q)t\alpha)` with exit vector :math:`qt` and mean
:math:`1/(q\Lambda)` (after each :math:`X` the next one starts with probability
:math:`1 - q`).  For Poisson input it is Exp(:math:`q\Lambda`).

Accuracy: float64; :math:`\pi(\tau)` by :func:`qtheory.core.numerics.expm`, its rounding
below 0 clipped and the vector renormalised.

References
----------
.. [1] M. F. Neuts, *Matrix-Geometric Solutions in Stochastic Models*, Johns Hopkins
   University Press (1981), Chapter 2 (phase-type renewal processes).
.. [2] S. Asmussen, Applied Probability and Queues, 2nd ed., Springer (2003), Ch. III
   (renewal theory) and Ch. VIII (the GI/PH/1 queue).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

from qtheory.core.numerics import expm
from qtheory.core.phase_type import PhaseType, arrival_law
from qtheory.core.validation import nonnegative

__all__ = ["RenewalArrivals", "maximise_on_interval"]

#: Grid points of :func:`maximise_on_interval` before the bounded refinement.
_GRID = 48


class RenewalArrivals:
    r"""The potential inter-arrival law PH(α, T) of mean 1/Λ and the admitted gaps it
    gives GA and RR (module notes).

    Parameters
    ----------
    arrivals : str or PhaseType
        The shape (:func:`~qtheory.core.phase_type.arrival_law`), rescaled to mean 1/Λ.
    arrival_rate : float
        Λ > 0, finite.

    Attributes
    ----------
    law : PhaseType
        PH(α, T) of mean 1/Λ.
    generator : numpy.ndarray
        Q = T + tα.

    Raises
    ------
    ValueError
        A bad law (naming ``arrivals``), or Λ infinite (naming ``arrival_rate``).

    Examples
    --------
    Poisson input as a one-phase law: the wait after any gate is Exp(Λ), and RR's gap is
    Exp(qΛ):

    >>> arr = RenewalArrivals("erlang:1", 2.0)
    >>> tail, drift, slope = arr.after_gate(0.7)
    >>> round(tail.mean, 12), round(slope, 12), round(arr.thinned(0.25).mean, 12)
    (0.5, 1.0, 2.0)
    """

    def __init__(self, arrivals: str | PhaseType, arrival_rate: float):
        shape = arrival_law(arrivals)
        if not (math.isfinite(arrival_rate) and arrival_rate > 0):
            raise ValueError(
                "arrival_rate must be finite and > 0 with renewal arrivals (a law of mean "
                f"1/arrival_rate = 0 has no shape), got {arrival_rate!r}"
            )
        self.law = shape.scaled(1.0 / arrival_rate)
        self.arrival_rate = float(arrival_rate)
        self.generator = self.law.T + np.outer(self.law.exit_rates, self.law.alpha)

    def phases_at(self, tau: float) -> NDArray[np.float64]:
        """π(τ) = α e^{Qτ}, clipped at 0 and renormalised.

        Parameters
        ----------
        tau : float
            τ ≥ 0.

        Returns
        -------
        numpy.ndarray

        Examples
        --------
        >>> arr = RenewalArrivals("erlang:2", 1.0)  # π(τ) → the stationary (1/2, 1/2)
        >>> np.round(arr.phases_at(50.0), 12).tolist()
        [0.5, 0.5]
        """
        tau = nonnegative("gate", tau)
        pi = self.law.alpha @ expm(self.generator * tau) if tau > 0 else self.law.alpha
        pi = np.maximum(pi, 0.0)
        return pi / pi.sum()

    def after_gate(self, tau: float) -> tuple[PhaseType, NDArray[np.float64], float]:
        r"""GA's wait after a gate τ, its drift and the slope of the mean gap.

        Parameters
        ----------
        tau : float
            τ ≥ 0.

        Returns
        -------
        (PhaseType, numpy.ndarray, float)
            R ~ PH(π(τ), T); dπ/dτ = π(τ)Q; dE[A]/dτ = π(τ)t/Λ.

        Examples
        --------
        Erlang-2 input has no arrivals at first (renewal density 0 at τ = 0):

        >>> tail, drift, slope = RenewalArrivals("erlang:2", 1.0).after_gate(0.0)
        >>> round(tail.mean, 12), slope
        (1.0, 0.0)
        """
        pi = self.phases_at(tau)
        slope = float(pi @ self.law.exit_rates) / self.arrival_rate
        return PhaseType(pi, self.law.T), pi @ self.generator, slope

    def gap_mean(self, tau: float) -> float:
        """E[A] = τ + π(τ)(−T)^{-1}1, GA's mean admitted gap.

        Parameters
        ----------
        tau : float
            τ ≥ 0.

        Returns
        -------
        float

        Examples
        --------
        >>> round(RenewalArrivals("hyperexp:4", 1.0).gap_mean(0.0), 12)
        1.0
        """
        return tau + self.after_gate(tau)[0].mean

    def gate_of_mean(self, mean: float) -> float:
        """The gate τ ≥ 0 with E[A(τ)] = ``mean`` (E[A] increases from 1/Λ, with
        E[A(τ)] ≥ τ): Brent's method on [0, mean].

        Parameters
        ----------
        mean : float
            ≥ 1/Λ.

        Returns
        -------
        float

        Raises
        ------
        ValueError
            ``mean`` < 1/Λ.

        Examples
        --------
        >>> arr = RenewalArrivals("erlang:2", 2.0)
        >>> round(arr.gap_mean(arr.gate_of_mean(1.5)), 12)
        1.5
        """
        floor = 1.0 / self.arrival_rate
        if not mean >= floor:
            raise ValueError(f"mean must be >= 1/arrival_rate = {floor!r}, got {mean!r}")
        if mean == floor:
            return 0.0
        from scipy.optimize import brentq

        return brentq(lambda x: self.gap_mean(x) - mean, 0.0, mean, xtol=1e-15 * mean,
                      rtol=4 * np.finfo(float).eps)  # fmt: skip

    def thinned(self, q: float) -> PhaseType:
        """RR's admitted gap, the Geometric(q) sum PH(α, T + (1 − q)tα) (exit qt).

        Parameters
        ----------
        q : float
            0 < q ≤ 1.

        Returns
        -------
        PhaseType
            Mean 1/(qΛ).

        Raises
        ------
        ValueError
            q outside (0, 1] (naming ``rate``, the admitted rate qΛ).

        Examples
        --------
        >>> round(RenewalArrivals("hyperexp:4", 2.0).thinned(0.5).mean, 12)
        1.0
        """
        if not 0 < q <= 1:
            raise ValueError(
                f"rate must be in (0, arrival_rate] (q = rate/arrival_rate in (0, 1]), got "
                f"q = {q!r}"
            )
        law = self.law
        return PhaseType(law.alpha, law.T + (1.0 - q) * np.outer(law.exit_rates, law.alpha))


def maximise_on_interval(
    f: Callable[[float], float], lo: float, hi: float, *, closed: bool = True
) -> float:
    """The maximiser of ``f`` on (lo, hi] (``closed``) or (lo, hi): a grid of 48 points
    first (lo + (hi − lo) i/48, i = 1 … 48, or i/49 so that ``hi`` is left out), then
    Brent's bounded method between the neighbours of the best one (``hi`` itself if that
    is the best point and no point below it does better).  Numerical: ``f`` is assumed
    unimodal between the grid's neighbours, not proved; the maximiser is found to about
    √eps relative (the maximum to about eps).

    Parameters
    ----------
    f : callable
        float → float, finite on the interval.
    lo, hi : float
        lo < hi.
    closed : bool, keyword-only
        Whether ``hi`` belongs to the interval.

    Returns
    -------
    float

    Examples
    --------
    >>> round(maximise_on_interval(lambda x: x * (1 - x), 0.0, 1.0), 6)
    0.5
    >>> maximise_on_interval(lambda x: x, 0.0, 1.0)
    1.0
    """
    from scipy.optimize import minimize_scalar

    grid = lo + (hi - lo) * np.arange(1, _GRID + 1) / (_GRID if closed else _GRID + 1)
    values = [f(x) for x in grid]
    best = int(np.argmax(values))
    left = grid[best - 1] if best > 0 else lo
    right = grid[best + 1] if best < _GRID - 1 else hi
    found = minimize_scalar(lambda x: -f(x), bounds=(left, right), method="bounded",
                            options={"xatol": 1e-12 * (hi - lo)})  # fmt: skip
    if closed and best == _GRID - 1 and values[best] >= -found.fun:
        return float(hi)
    return float(found.x)
