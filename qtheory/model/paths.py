"""Sample paths of the loss network's two information models (see
:mod:`qtheory.sim.lossnet`, which draws them, for the conventions): the ``clock`` future
(:class:`ClockPath`) and the ``job`` arrivals with their service times
(:class:`JobPath`).

The two models are described in ``docs/information-models.md``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ClockPath", "JobPath"]


@dataclass(frozen=True)
class ClockPath:
    """The clock-model future of (0, T]: event times and codes (-1 H, -2 L, else the
    departure slot floor(U N); a departure ends a service iff slot < busy).

    In the ``clock`` model the departures come from a uniformised clock: potential
    departures form a Poisson stream of rate Nμ, each with an independent mark
    U ~ Uniform(0, 1) whose slot floor(U N) is stored; one ends a service iff the slot is
    below the busy count b, so real departures happen at rate Nμ · b/N = bμ
    (``docs/information-models.md``).

    Attributes
    ----------
    times : numpy.ndarray of float, shape (k,)
        Event times in (0, T], increasing.
    codes : numpy.ndarray of int, shape (k,)
        -1 for an H arrival, -2 for an L arrival, else the departure slot in 0..N-1.

    Examples
    --------
    >>> path = ClockPath(np.array([0.5, 1.0, 1.5]), np.array([-1, 0, -2]))
    >>> int((path.codes == -1).sum()), int((path.codes >= 0).sum())
    (1, 1)
    """

    times: np.ndarray
    codes: np.ndarray


@dataclass(frozen=True)
class JobPath:
    """The job-model arrivals of (0, T]: times, class (True for L) and service times.

    Attributes
    ----------
    arrival_times : numpy.ndarray of float, shape (k,)
        Arrival times in (0, T], non-decreasing.
    is_l : numpy.ndarray of bool, shape (k,)
        True for a class-L job, False for class H.
    service_times : numpy.ndarray of float, shape (k,)
        The service time each job would need if admitted (> 0).

    Examples
    --------
    >>> path = JobPath(np.array([0.2, 0.7]), np.array([False, True]), np.array([1.5, 0.3]))
    >>> path.classes.tolist()
    [0, 1]
    """

    arrival_times: np.ndarray
    is_l: np.ndarray
    service_times: np.ndarray

    @property
    def classes(self) -> np.ndarray:
        """0 for H, 1 for L (the encoding of :mod:`qtheory.lossnet.offline_job`).

        Returns
        -------
        numpy.ndarray of int8, shape (k,)
            ``is_l`` as integers.

        Examples
        --------
        >>> JobPath(np.zeros(3), np.array([True, False, True]), np.ones(3)).classes.tolist()
        [1, 0, 1]
        """
        return self.is_l.astype(np.int8)
