r"""Phase-type distributions: the time to absorption of a finite Markov chain.

A phase-type law PH(α, T) with m phases starts in phase i with probability α_i, moves
between transient phases at the off-diagonal rates of the sub-generator T and is
absorbed at the exit rates t = −T 1.  Its density, moments and Laplace–Stieltjes
transform are

.. math:: f(x) = \alpha e^{Tx} t, \qquad
          E[X^k] = k!\, \alpha (-T)^{-k} 1, \qquad
          \tilde F(s) = E[e^{-sX}] = \alpha (sI - T)^{-1} t ,

a rational function of s of degree at most m.  (α, T) is a distribution exactly when
α ≥ 0 sums to 1 (no mass at zero), T has non-negative off-diagonal entries, row sums
≤ 0, and every phase can reach absorption (then T is non-singular).

Phase-type laws are dense among distributions on (0, ∞) and keep the queues built on
them Markovian: a gate or service time that is PH(m) adds m states of memory.

References
----------
.. [1] M. F. Neuts, *Matrix-Geometric Solutions in Stochastic Models*, Johns Hopkins
   University Press (1981), Chapter 2.
.. [2] G. Latouche and V. Ramaswami, *Introduction to Matrix Analytic Methods in
   Stochastic Modeling*, SIAM (1999), Chapter 2.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from qtheory.core import validation

__all__ = ["PhaseType", "as_phase_type", "coxian", "erlang", "exponential", "hyperexponential"]

#: Tolerance of the distribution checks (α sums to 1, row sums of T are ≤ 0).
_TOLERANCE = 1e-12


@dataclass(frozen=True, eq=False)
class PhaseType:
    """A phase-type distribution PH(α, T), validated on construction.

    Parameters
    ----------
    alpha : array_like, shape (m,)
        Initial probabilities of the m transient phases: α_i ≥ 0, Σ α_i = 1.
    T : array_like, shape (m, m)
        Sub-generator: T_ij ≥ 0 for i ≠ j, row sums ≤ 0, and absorption reachable from
        every phase (T non-singular).

    Attributes
    ----------
    phases : int
        m.
    exit_rates : ndarray
        t = −T 1, the absorption rate from each phase.
    mean : float
        E[X] = α (−T)^{-1} 1.

    Raises
    ------
    ValueError
        Naming ``alpha`` or ``T`` and the rule broken: wrong shapes, non-finite
        entries, α negative or not summing to 1, a negative off-diagonal rate, a
        positive row sum, or a phase from which absorption cannot be reached.

    Examples
    --------
    >>> ph = erlang(3, rate=6.0)
    >>> ph.phases, round(ph.mean, 12), round(ph.moment(2), 12)
    (3, 0.5, 0.333333333333)
    >>> round(ph.lst(1.0), 12) == round((6 / 7) ** 3, 12)
    True
    >>> PhaseType([0.5, 0.4], [[-1.0, 0.0], [0.0, -2.0]])
    Traceback (most recent call last):
    ...
    ValueError: alpha must sum to 1 (no mass at zero), got sum(alpha)=0.9
    """

    alpha: NDArray[np.float64]
    T: NDArray[np.float64]

    def __post_init__(self) -> None:
        alpha = np.array(self.alpha, dtype=float, ndmin=1)
        T = np.array(self.T, dtype=float, ndmin=2)
        m = alpha.shape[0]
        if alpha.ndim != 1 or m < 1:
            raise ValueError(f"alpha must be a non-empty vector, got shape {alpha.shape}")
        if T.shape != (m, m):
            raise ValueError(f"T must have shape ({m}, {m}) to match alpha, got {T.shape}")
        if not (np.all(np.isfinite(alpha)) and np.all(np.isfinite(T))):
            raise ValueError("alpha and T must have finite entries")
        if np.any(alpha < 0):
            raise ValueError(f"alpha must be >= 0, got alpha={alpha.tolist()}")
        if abs(alpha.sum() - 1) > _TOLERANCE:
            raise ValueError(
                f"alpha must sum to 1 (no mass at zero), got sum(alpha)={alpha.sum():.12g}"
            )
        off = T - np.diag(np.diag(T))
        if np.any(off < 0):
            raise ValueError("T must have off-diagonal entries >= 0 (rates between phases)")
        rows = T.sum(axis=1)
        if np.any(rows > _TOLERANCE * np.abs(np.diag(T)).max(initial=1.0)):
            raise ValueError(f"T must have row sums <= 0 (exit rates >= 0), got {rows.tolist()}")
        _require_absorbing(off, np.maximum(-rows, 0.0))
        alpha.flags.writeable = False
        T.flags.writeable = False
        object.__setattr__(self, "alpha", alpha)
        object.__setattr__(self, "T", T)

    @property
    def phases(self) -> int:
        """m, the number of transient phases."""
        return self.alpha.shape[0]

    @property
    def exit_rates(self) -> NDArray[np.float64]:
        """t = −T 1, the absorption rate from each phase."""
        return np.maximum(-self.T.sum(axis=1), 0.0)

    @property
    def mean(self) -> float:
        """E[X] = α (−T)^{-1} 1."""
        return self.moment(1)

    def moment(self, k: int) -> float:
        """E[X^k] = k! α (−T)^{-k} 1 for an integer k >= 1.

        >>> round(exponential(2.0).moment(3), 12)  # 3!/2^3
        0.75
        """
        k = validation.positive_int("k", k)
        vector = np.ones(self.phases)
        for _ in range(k):
            vector = np.linalg.solve(-self.T, vector)
        return math.factorial(k) * float(self.alpha @ vector)

    def lst(self, s: float) -> float:
        """The Laplace–Stieltjes transform E[e^{−sX}] = α (sI − T)^{-1} t at s >= 0.

        >>> round(exponential(2.0).lst(1.0), 12)
        0.666666666667
        """
        s = validation.nonnegative("s", s)
        return float(
            self.alpha @ np.linalg.solve(s * np.eye(self.phases) - self.T, self.exit_rates)
        )

    def scaled(self, factor: float) -> PhaseType:
        """The law of ``factor · X`` (rates divided by ``factor``).

        >>> round(erlang(2, rate=4.0).scaled(3.0).mean, 12)
        1.5
        """
        factor = validation.positive("factor", factor)
        return PhaseType(self.alpha, self.T / factor)

    def sample(self, size: int, rng: np.random.Generator) -> NDArray[np.float64]:
        """``size`` independent draws, by running the absorbing chain (a reference
        sampler for tests; the C simulator has its own)."""
        size = validation.positive_int("size", size)
        m = self.phases
        holding = -np.diag(self.T)
        jump = np.concatenate([self.T - np.diag(np.diag(self.T)), self.exit_rates[:, None]], axis=1)
        jump = jump / holding[:, None]
        out = np.empty(size)
        for draw in range(size):
            phase, total = rng.choice(m, p=self.alpha), 0.0
            while phase < m:
                total += rng.exponential(1.0 / holding[phase])
                phase = rng.choice(m + 1, p=jump[phase])
            out[draw] = total
        return out

    def __repr__(self) -> str:
        return f"PhaseType(alpha={self.alpha.tolist()}, T={self.T.tolist()})"


def _require_absorbing(off: NDArray[np.float64], exits: NDArray[np.float64]) -> None:
    """Raise unless absorption is reachable from every phase (T non-singular)."""
    reaches = exits > 0
    while True:
        grown = reaches | ((off > 0) & reaches[None, :]).any(axis=1)
        if np.array_equal(grown, reaches):
            break
        reaches = grown
    if not reaches.all():
        stuck = np.flatnonzero(~reaches).tolist()
        raise ValueError(f"T must let every phase reach absorption; phases {stuck} cannot")


def exponential(rate: float) -> PhaseType:
    """Exp(rate) as PH with one phase.

    Parameters
    ----------
    rate : float
        > 0.

    Returns
    -------
    PhaseType

    Examples
    --------
    >>> exponential(4.0).mean
    0.25
    """
    rate = validation.positive("rate", rate)
    return PhaseType([1.0], [[-rate]])


def erlang(k: int, rate: float) -> PhaseType:
    """Erlang(k, rate): k exponential phases of the same rate in series (mean k/rate,
    squared coefficient of variation 1/k, the least of any PH law with k phases).

    Parameters
    ----------
    k : int
        Phases, >= 1.
    rate : float
        Rate of each phase, > 0.

    Returns
    -------
    PhaseType

    Examples
    --------
    >>> round(erlang(4, rate=8.0).mean, 12)
    0.5
    """
    k = validation.positive_int("k", k)
    rate = validation.positive("rate", rate)
    T = -rate * np.eye(k) + rate * np.eye(k, k=1)
    return PhaseType(np.eye(1, k)[0], T)


def hyperexponential(probabilities: Sequence[float], rates: Sequence[float]) -> PhaseType:
    """The mixture Σ p_i Exp(rate_i).

    Parameters
    ----------
    probabilities : sequence of float
        p_i >= 0 summing to 1.
    rates : sequence of float
        rate_i > 0, as many as ``probabilities``.

    Returns
    -------
    PhaseType

    Examples
    --------
    >>> round(hyperexponential([0.5, 0.5], [1.0, 3.0]).mean, 12)
    0.666666666667
    """
    probabilities = np.asarray(probabilities, dtype=float)
    rates = [validation.positive(f"rates[{i}]", r) for i, r in enumerate(rates)]
    if probabilities.shape != (len(rates),):
        raise ValueError(
            "probabilities and rates must have the same length, "
            f"got {probabilities.size} and {len(rates)}"
        )
    return PhaseType(probabilities, -np.diag(rates))


def coxian(rates: Sequence[float], continue_probabilities: Sequence[float]) -> PhaseType:
    """The Coxian law: phase i (rate ``rates[i]``) moves on to phase i + 1 with
    probability ``continue_probabilities[i]`` and is absorbed otherwise; m phases need
    m − 1 continuation probabilities in [0, 1].  Every acyclic PH law has a Coxian
    representation with the same number of phases.

    Parameters
    ----------
    rates : sequence of float
        Phase rates, > 0.
    continue_probabilities : sequence of float
        m − 1 probabilities in [0, 1].

    Returns
    -------
    PhaseType

    Examples
    --------
    >>> round(coxian([2.0, 2.0], [1.0]).mean, 12)  # Erlang(2, 2)
    1.0
    """
    rates = [validation.positive(f"rates[{i}]", r) for i, r in enumerate(rates)]
    p = np.asarray(continue_probabilities, dtype=float)
    if p.shape != (len(rates) - 1,):
        raise ValueError(
            f"continue_probabilities must have len(rates) - 1 = {len(rates) - 1} entries, "
            f"got {p.size}"
        )
    if np.any((p < 0) | (p > 1)) or not np.all(np.isfinite(p)):
        raise ValueError(f"continue_probabilities must lie in [0, 1], got {p.tolist()}")
    m = len(rates)
    T = -np.diag(rates) + np.diag(np.asarray(rates[:-1]) * p, k=1)
    return PhaseType(np.eye(1, m)[0], T)


def as_phase_type(value: ArrayLike | PhaseType, name: str = "distribution") -> PhaseType:
    """``value`` after checking that it is a :class:`PhaseType`.

    Parameters
    ----------
    value : object
        The value passed by the caller.
    name : str, optional
        The parameter's name, for the error message.

    Returns
    -------
    PhaseType

    Raises
    ------
    TypeError
        If ``value`` is not a :class:`PhaseType`.

    Examples
    --------
    >>> as_phase_type(1.0)
    Traceback (most recent call last):
    ...
    TypeError: distribution must be a PhaseType, got float 1.0
    """
    if not isinstance(value, PhaseType):
        raise TypeError(f"{name} must be a PhaseType, got {type(value).__name__} {value!r:.60}")
    return value
