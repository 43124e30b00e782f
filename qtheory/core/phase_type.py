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
.. [3] H. C. Tijms, A First Course in Stochastic Models, Wiley (2003).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from qtheory.core import limits, validation

__all__ = [
    "MAX_SCV",
    "SERVICE_FORMS",
    "PhaseType",
    "as_phase_type",
    "balanced_hyperexponential",
    "coxian",
    "erlang",
    "exponential",
    "fit_three_moments",
    "fit_two_moments",
    "hyperexponential",
    "parse_service",
    "require_phases",
    "service_law",
    "service_phases",
    "arrival_law",
]

#: Tolerance of the distribution checks (α sums to 1, row sums of T are ≤ 0).
_TOLERANCE = 1e-12
#: Dense m × m float64 arrays alive while a law of m phases is built and checked (T, its
#: copy, its off-diagonal part, the identity blocks and the comparisons): the memory
#: estimate of :func:`require_phases`.
_BUILD_ARRAYS = 6


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
    """Raise unless absorption is reachable from every phase (T non-singular): a
    breadth-first search backwards from the exits, each phase's column read once
    (O(m²); an Erlang chain took m sweeps of the whole matrix, O(m³), before)."""
    reaches = exits > 0
    frontier = np.flatnonzero(reaches)
    while frontier.size:
        grown = ~reaches & (off[:, frontier] > 0).any(axis=1)
        reaches |= grown
        frontier = np.flatnonzero(grown)
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
    require_phases(k, parameter="k", what=f"the Erlang-{k} law")
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
    return validation.instance(name, value, PhaseType)


# ------------------------------------------------------------------ fits and the grammar

#: Largest SCV of the balanced hyperexponential law (its slow phase has probability
#: about 1/(2 SCV)); the simulator has the same limit (QT_HYPEREXP_MAX_SCV in lindley.h).
MAX_SCV = 1e9


def balanced_hyperexponential(scv: float) -> PhaseType:
    r"""The two-phase hyperexponential law of mean 1 with balanced means
    (:math:`p_1/\mu_1 = p_2/\mu_2 = 1/2`) and squared coefficient of variation ``scv``.

    :math:`E[S^2] = 1/(2p_1p_2)`, so :math:`c^2 = 1/(2p_1p_2) - 1` and the slow phase
    has probability :math:`p_2 = (1 - \sqrt{r})/2 = 1/((c^2+1)(1+\sqrt r))`,
    :math:`r = (c^2-1)/(c^2+1)` (the second form does not cancel; Tijms 2003, Sec. 2.6).

    Parameters
    ----------
    scv : float
        c² with 1 < c² ≤ 1e9.

    Returns
    -------
    PhaseType
        H2 of mean 1.

    Raises
    ------
    ValueError
        ``scv`` outside (1, 1e9].

    Examples
    --------
    >>> h = balanced_hyperexponential(4.0)
    >>> round(h.mean, 12), round(h.moment(2) - 1, 12)
    (1.0, 4.0)

    References
    ----------
    See the module's References: Tijms (2003), Sec. 2.6.
    """
    scv = _hyperexponential_scv(validation.positive("scv", scv))
    slow = 1.0 / ((scv + 1.0) * (1.0 + math.sqrt((scv - 1.0) / (scv + 1.0))))
    return hyperexponential([1.0 - slow, slow], [2.0 * (1.0 - slow), 2.0 * slow])


def fit_two_moments(scv: float) -> PhaseType:
    r"""A phase-type law of mean 1 with squared coefficient of variation ``scv``.

    Tijms' (2003) fits: for :math:`c^2 < 1` the mixture of Erlang(k − 1) and Erlang(k) with
    one rate, :math:`1/k \le c^2 \le 1/(k-1)`, probability
    :math:`p = (kc^2 - \sqrt{k(1+c^2) - k^2c^2})/(1+c^2)` of the shorter one and rate
    :math:`k - p`; Exp(1) for :math:`c^2 = 1`; the balanced hyperexponential law for
    :math:`c^2 > 1`.

    Parameters
    ----------
    scv : float
        c², with 1e-3 ≤ c² ≤ 1e9 (below 1e-3 the fit needs more than 1000 phases).

    Returns
    -------
    PhaseType
        Mean 1, SCV ``scv``.

    Raises
    ------
    ValueError
        ``scv`` out of range.

    Examples
    --------
    >>> ph = fit_two_moments(0.4)  # a mix of Erlang-2 and Erlang-3
    >>> ph.phases, round(ph.mean, 12), round(ph.moment(2) - 1, 12)
    (3, 1.0, 0.4)

    References
    ----------
    See the module's References: Tijms (2003), Sec. 2.6.
    """
    scv = validation.positive("scv", scv)
    k = _fit_phases(scv)
    if scv > 1:
        return balanced_hyperexponential(scv)
    if k == 1:
        return exponential(1.0)
    p = (k * scv - math.sqrt(k * (1 + scv) - k * k * scv)) / (1 + scv)
    p = min(max(p, 0.0), 1.0)  # rounding at the ends c² = 1/k, 1/(k − 1)
    law = erlang(k, rate=k - p)
    return PhaseType([1 - p, p] + [0.0] * (k - 2), law.T)


def _fit_phases(scv: float) -> int:
    """The phases of :func:`fit_two_moments` at ``scv`` (checked to lie in [1e-3, 1e9]):
    2 above 1, 1 at 1, else the k with 1/k <= scv <= 1/(k - 1)."""
    if not 1e-3 <= scv <= MAX_SCV:
        raise ValueError(f"scv must be in [0.001, {MAX_SCV:g}], got {scv!r}")
    if scv > 1:
        return 2
    if scv == 1:
        return 1
    return math.ceil(1.0 / scv - 1e-12)


def fit_three_moments(scv: float, third: float) -> PhaseType:
    r"""The two-phase hyperexponential law of mean 1 with squared coefficient of variation
    ``scv`` and third moment ``third`` (E[S³]/E[S]³), when one exists.

    With :math:`a_k = E[S^k]/k!` (:math:`a_0 = a_1 = 1`), an H2 law with means
    :math:`x_1, x_2` and probabilities :math:`p, 1-p` has :math:`a_k = px_1^k +
    (1-p)x_2^k`, so :math:`x_1, x_2` are the roots of :math:`x^2 = c_1x + c_0` with
    :math:`a_2 = c_1a_1 + c_0a_0` and :math:`a_3 = c_1a_2 + c_0a_1` (Prony's method), and
    :math:`p = (1 - x_2)/(x_1 - x_2)`.  The fit exists exactly when :math:`c^2 > 1` and
    :math:`E[S^3] > \tfrac32 E[S^2]^2` (Whitt [1]_); at E[S³] = 1.5 E[S²]² one phase has
    mean 0.

    Parameters
    ----------
    scv : float
        c² > 1.
    third : float
        E[S³] > 1.5 (1 + c²)² (mean 1).

    Returns
    -------
    PhaseType
        H2 of mean 1 with these three moments.

    Raises
    ------
    ValueError
        ``scv`` ≤ 1, or ``third`` outside the H2 region (naming the rule).

    Examples
    --------
    >>> ph = fit_three_moments(3.0, 40.0)
    >>> round(ph.mean, 12), round(ph.moment(2) - 1, 10), round(ph.moment(3), 9)
    (1.0, 3.0, 40.0)

    References
    ----------
    .. [1] W. Whitt, "Approximating a point process by a renewal process, I: two basic
       methods", Operations Research 30(1):125-147 (1982).
    """
    scv = validation.positive("scv", scv)
    third = validation.positive("third", third)
    if not scv > 1:
        raise ValueError(f"scv must be > 1 for a hyperexponential three-moment fit, got {scv!r}")
    second = 1.0 + scv
    if not third > 1.5 * second**2:
        raise ValueError(
            f"third must be > 1.5 * (1 + scv)**2 = {1.5 * second**2!r} (E[S^3] of an H2 law "
            f"of this scv), got {third!r}"
        )
    a2, a3 = second / 2.0, third / 6.0
    c0 = (a2 * a2 - a3) / (a2 - 1.0)  # solves [[1, 1], [a2, 1]] [c1, c0] = [a2, a3]
    c1 = a2 - c0
    root = math.sqrt(c1 * c1 + 4.0 * c0)
    x1, x2 = (c1 + root) / 2.0, (c1 - root) / 2.0
    p = (1.0 - x2) / (x1 - x2)
    return hyperexponential([p, 1.0 - p], [1.0 / x1, 1.0 / x2])


def _no_phase_type(parameter: str) -> str:
    """Why ``"deterministic"`` has no law of :func:`service_law`."""
    return (
        f"{parameter} 'deterministic' has no phase-type law (the simulator takes it; the "
        "formulas need a phase-type law)"
    )


#: The forms of a service-law string (:func:`parse_service`), for error messages.
SERVICE_FORMS = (
    "'exponential', 'deterministic', 'erlang:K' (an integer K >= 1), "
    f"'hyperexp:SCV' (1 < SCV <= {MAX_SCV:g}), 'fit:SCV', 'fit:SCV:THIRD'"
)


def parse_service(text: str, parameter: str = "service") -> tuple[str, tuple[float, ...]]:
    """The one grammar of a service-law string: its kind and its numbers.

    ``"exponential"`` and ``"deterministic"`` (no numbers), ``"erlang:K"`` (K ≥ 1 an
    integer), ``"hyperexp:SCV"`` (1 < SCV ≤ :data:`MAX_SCV`, the rule
    :func:`balanced_hyperexponential` states), ``"fit:SCV"`` and
    ``"fit:SCV:THIRD"`` (finite numbers; :func:`fit_two_moments` and
    :func:`fit_three_moments` check their ranges).  The model reads the laws through
    :func:`service_law`; the simulator samples exponential, deterministic, Erlang and
    hyperexponential laws natively and the rest as phase-type laws.

    Parameters
    ----------
    text : str
    parameter : str, default ``"service"``
        The option the text came from, named by every error (``"arrivals"`` for
        :func:`arrival_law`).

    Returns
    -------
    (str, tuple of float)

    Raises
    ------
    ValueError
        Any other text, naming ``parameter`` and the forms; K < 1 or an SCV out of range,
        naming the rule.

    Examples
    --------
    >>> parse_service("erlang:3"), parse_service("fit:2:9")
    (('erlang', (3.0,)), ('fit', (2.0, 9.0)))
    >>> parse_service("gamma:2")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: service must be 'exponential', 'deterministic', ... or a PhaseType, got 'gamma:2'
    """
    if isinstance(text, str):
        kind, colon, arg = text.partition(":")
        if kind in ("exponential", "deterministic") and not colon:
            return kind, ()
        if kind == "erlang" and arg.isascii() and arg.isdigit():
            phases = validation.positive_int(f"{parameter} (Erlang phases K)", int(arg))
            return kind, (float(phases),)
        numbers = tuple(_finite_or_nan(x) for x in arg.split(":")) if colon else ()
        if numbers and all(math.isfinite(x) for x in numbers):
            if kind == "hyperexp" and len(numbers) == 1:
                return kind, (_hyperexponential_scv(numbers[0], f"{parameter} {text!r}: "),)
            if kind == "fit" and len(numbers) in (1, 2):
                return kind, numbers
    raise ValueError(f"{parameter} must be {SERVICE_FORMS} or a PhaseType, got {text!r}")


def service_law(service: str | PhaseType, *, parameter: str = "service") -> PhaseType:
    """The service shape, as a phase-type law of mean 1.

    Parameters
    ----------
    service : str or PhaseType
        A string of :func:`parse_service` other than ``"deterministic"`` (which has no
        phase-type law): ``"exponential"``, ``"erlang:K"``, ``"hyperexp:SCV"``
        (:func:`balanced_hyperexponential`), ``"fit:SCV"`` (:func:`fit_two_moments`),
        ``"fit:SCV:THIRD"`` (:func:`fit_three_moments`, THIRD = E[S³]/E[S]³); or a
        PhaseType (rescaled to mean 1).
    parameter : str, keyword-only, default ``"service"``
        The option named by every error.

    Returns
    -------
    PhaseType

    Raises
    ------
    ValueError
        Any other string (naming ``parameter``), ``"deterministic"``, or a bad K or SCV.

    Examples
    --------
    >>> service_law("erlang:3").phases, round(service_law("hyperexp:2").moment(2), 12)
    (3, 3.0)
    >>> round(service_law("fit:3:40").moment(3), 9)
    40.0
    >>> service_law("deterministic")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: service 'deterministic' has no phase-type law ...
    """
    if isinstance(service, PhaseType):
        return service.scaled(1.0 / service.mean)
    kind, numbers = parse_service(service, parameter)
    phases = service_phases(service, parameter=parameter)
    require_phases(phases, parameter=parameter, what=f"the law {service!r}")
    if kind == "exponential":
        return exponential(1.0)
    if kind == "erlang":
        k = int(numbers[0])
        return erlang(k, rate=float(k))
    if kind == "hyperexp":
        return balanced_hyperexponential(*numbers)
    if kind == "fit":
        return fit_two_moments(*numbers) if len(numbers) == 1 else fit_three_moments(*numbers)
    raise ValueError(_no_phase_type(parameter))


def service_phases(service: str | PhaseType, *, parameter: str = "service") -> int:
    """The number of phases of :func:`service_law`'s law for ``service``, read from the
    spec without building the law (whose m × m arrays an Erlang-100000 spec could not
    hold), so that a caller estimates its cost first.

    Parameters
    ----------
    service : str or PhaseType
        As :func:`service_law`.
    parameter : str, keyword-only, default ``"service"``
        The option named by every error.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        As :func:`service_law` (a spec that is not a phase-type law, or out of range).

    Examples
    --------
    >>> [service_phases(s) for s in ("exponential", "erlang:100000", "hyperexp:1e9",
    ...                               "fit:0.4", "fit:3:40")]
    [1, 100000, 2, 3, 2]
    """
    if isinstance(service, PhaseType):
        return service.phases
    kind, numbers = parse_service(service, parameter)
    if kind == "exponential":
        return 1
    if kind == "erlang":
        return int(numbers[0])
    if kind == "hyperexp":
        return 2
    if kind == "fit":
        if len(numbers) == 2:
            return 2
        return _fit_phases(validation.positive(f"{parameter} (fit:SCV, the SCV)", numbers[0]))
    raise ValueError(_no_phase_type(parameter))  # "deterministic"


def arrival_law(arrivals: str | PhaseType) -> PhaseType:
    """The shape of the potential customers' inter-arrival time, as a phase-type law of
    mean 1: the grammar and the laws of :func:`service_law` (Erlang-K, the balanced-means
    hyperexponential law, the two- and three-moment fits), with ``"poisson"`` for Exp(1).

    Parameters
    ----------
    arrivals : str or PhaseType
        ``"poisson"`` (or ``"exponential"``), ``"erlang:K"``, ``"hyperexp:SCV"``,
        ``"fit:SCV"``, ``"fit:SCV:THIRD"``; or a PhaseType (rescaled to mean 1).

    Returns
    -------
    PhaseType
        Mean 1.

    Raises
    ------
    ValueError
        Naming ``arrivals``: an unknown form, ``"deterministic"`` (no phase-type law),
        K < 1, an SCV ≤ 0 or out of its form's range, or a law too large to build.

    Examples
    --------
    >>> arrival_law("poisson").phases, round(arrival_law("hyperexp:4").moment(2) - 1, 12)
    (1, 4.0)
    >>> arrival_law("fit:0")
    Traceback (most recent call last):
    ...
    ValueError: arrivals (fit:SCV, the SCV) must be > 0, got 0.0
    """
    return service_law("exponential" if arrivals == "poisson" else arrivals, parameter="arrivals")


def require_phases(phases: int, *, parameter: str, what: str) -> None:
    """Refuse, before any array is allocated, a law of ``phases`` phases whose dense
    arrays (about six m × m float64 arrays while it is built and checked) exceed the
    ``memory`` limit of :mod:`qtheory.core.limits`, naming ``parameter``.

    Parameters
    ----------
    phases : int
        m.
    parameter : str, keyword-only
        The option or argument to reduce (``"service"``, ``"k"``).
    what : str, keyword-only
        The law, for the message.

    Returns
    -------
    None

    Raises
    ------
    ValueError
        Above the limit (:func:`qtheory.core.limits.require`).

    Examples
    --------
    >>> require_phases(1000, parameter="service", what="the law 'erlang:1000'")
    >>> require_phases(100000, parameter="service", what="the law 'erlang:100000'")
    Traceback (most recent call last):
    ...
    ValueError: service: the law 'erlang:100000' needs 4.8e+11 bytes, above the limit ...
    """
    limits.require("memory", 8.0 * _BUILD_ARRAYS * float(phases) ** 2, parameter=parameter,
                   what=what)  # fmt: skip


def _hyperexponential_scv(scv: float, where: str = "") -> float:
    """``scv`` if a balanced hyperexponential law has it (1 < SCV <= MAX_SCV): the one
    statement of the rule, for the law and for the grammar."""
    if not 1 < scv <= MAX_SCV:
        raise ValueError(
            f"{where}scv must be > 1 and <= {MAX_SCV:g} (hyperexponential), got {scv!r}"
        )
    return scv


def _finite_or_nan(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return math.nan
