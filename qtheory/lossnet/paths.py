"""Sample paths of the loss network's two information models (see
:mod:`qtheory.sim.lossnet`, which draws them, for the conventions): the ``clock`` future
(:class:`ClockPath`) and the ``job`` arrivals with their service times
(:class:`JobPath`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ClockPath", "JobPath"]


@dataclass(frozen=True)
class ClockPath:
    """The clock-model future of (0, T]: event times and codes (-1 H, -2 L, else the
    departure slot floor(U N); a departure ends a service iff slot < busy)."""

    times: np.ndarray
    codes: np.ndarray


@dataclass(frozen=True)
class JobPath:
    """The job-model arrivals of (0, T]: times, class (True for L) and service times."""

    arrival_times: np.ndarray
    is_l: np.ndarray
    service_times: np.ndarray

    @property
    def classes(self) -> np.ndarray:
        """0 for H, 1 for L (the encoding of :mod:`qtheory.lossnet.offline_job`)."""
        return self.is_l.astype(np.int8)
