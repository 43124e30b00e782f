"""Estimates with confidence intervals, and how replications get their seeds.

One confidence level, one estimate record and one seed rule for every simulation,
sweep and study in the package.

Estimates
---------
An :class:`Estimate` is a mean (or a ratio, or a slope) with the half-width of its
two-sided :data:`CONFIDENCE` = 95% interval, the number of observations behind it and
the method that made the interval:

``"t"``
    Independent replications: mean ± t_{0.975, n-1} s / √n (Student; exact for normal
    data, conservative enough for the replication counts used here).
``"normal"``
    A central-limit interval ± z_{0.975} · standard error, for estimators whose
    standard error comes from a large-sample formula (ratio estimators of
    renewal-reward theory, regenerative batches).
``"regression"``
    A regression coefficient: ± t_{0.975, n-p} · its standard error.  The one line fit
    of the package, value ≈ slope · log N + intercept over a range of sizes N (the
    regret's Θ(log N), the decomposition's bounded terms), is :func:`slope_on_log`
    (ordinary least squares on exact values, weighted on estimates) and its record
    :class:`SlopeFit`.

Seeds
-----
Replication ``i`` of a root seed ``s`` runs on the ``SeedSequence`` with ``s``'s
entropy and spawn key ``s.spawn_key + (s.n_children_spawned + i,)``
(:func:`replication_seed`): the child that ``s.spawn`` would give next, computed
without touching the caller's ``SeedSequence`` (``spawn`` advances it, so passing one
object twice would replay different paths).  For an integer seed ``s`` this is
``SeedSequence(s, spawn_key=(i,))``, which is ``SeedSequence(s).spawn(R)[i]`` for every
``R > i``.

>>> e = Estimate.of([1.0, 2.0, 3.0])
>>> e.mean, round(e.halfwidth, 4), round(e.stderr, 4), e.n, e.method
(2.0, 2.4841, 0.5774, 3, 't')
>>> e.contains(0.0), e.contains(-1.0)
(True, False)
>>> root = np.random.SeedSequence(7)
>>> a = replication_seeds(root, 3)
>>> b = replication_seeds(root, 3)  # same root, same children: root is not advanced
>>> [bool(x.generate_state(1)[0] == y.generate_state(1)[0]) for x, y in zip(a, b)]
[True, True, True]
>>> bool(a[2].generate_state(1)[0] == np.random.SeedSequence(7).spawn(3)[2].generate_state(1)[0])
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from types import ModuleType

import numpy as np

from qtheory.core.printing import estimate_latex, mean_and_halfwidth
from qtheory.core.validation import nonnegative_int, positive_int

__all__ = [
    "CONFIDENCE",
    "Estimate",
    "METHODS",
    "SlopeFit",
    "normal_quantile",
    "replication_seed",
    "replication_seeds",
    "root_seed",
    "slope_on_log",
    "t_halfwidth",
    "t_quantile",
]

#: The confidence level of every interval the package reports.
CONFIDENCE = 0.95
METHODS = ("t", "normal", "regression")


def t_quantile(dof: int) -> float:
    """t_{(1 + CONFIDENCE)/2, dof}, the two-sided Student quantile.

    Parameters
    ----------
    dof : int
        Degrees of freedom, >= 1.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``dof`` is not an integer >= 1.

    Examples
    --------
    >>> round(t_quantile(1), 3), round(t_quantile(10**6), 3)  # 12.706 and 1.960
    (12.706, 1.96)
    """
    return _t_quantile(positive_int("dof", dof))


@cache
def _t_quantile(dof: int) -> float:
    # scipy.special's stdtrit is what scipy.stats.t.ppf evaluates (the same values), without
    # the 0.3 s import of scipy.stats
    from scipy.special import stdtrit

    return float(stdtrit(dof, 0.5 + CONFIDENCE / 2))


def _scipy_stats() -> ModuleType:
    """:mod:`scipy.stats`, imported on first use (the regression fits): it costs about
    0.4 s, more than the rest of a command that only prints a claim (``qtheory check``)."""
    from scipy import stats

    return stats


def normal_quantile() -> float:
    """z_{(1 + CONFIDENCE)/2} = 1.959..., the two-sided normal quantile.

    Returns
    -------
    float

    Examples
    --------
    >>> round(normal_quantile(), 4)
    1.96
    """
    return _normal_quantile()


@cache
def _normal_quantile() -> float:
    from scipy.special import ndtri  # what scipy.stats.norm.ppf evaluates

    return float(ndtri(0.5 + CONFIDENCE / 2))


def t_halfwidth(values: Sequence[float] | np.ndarray) -> float:
    """Half-width t_{0.975, n-1} s / √n of the 95% interval for the mean of ``values``
    (NaN for fewer than two values).

    Parameters
    ----------
    values : array_like
        Independent replications.

    Returns
    -------
    float

    Examples
    --------
    >>> round(t_halfwidth([1.0, 2.0, 3.0]), 4)  # t_{0.975,2} = 4.3027 times 1/sqrt(3)
    2.4841
    """
    values = np.asarray(values, dtype=float)
    if values.size < 2:
        return math.nan
    return t_quantile(values.size - 1) * float(values.std(ddof=1)) / math.sqrt(values.size)


@dataclass(frozen=True)
class Estimate:
    """An estimate with the half-width of its 95% interval.

    Attributes
    ----------
    mean : float
        The point estimate.
    halfwidth : float
        Half-width of the two-sided :data:`CONFIDENCE` interval (NaN when it cannot be
        computed, e.g. from one replication).
    n : int
        Observations behind it (replications, batches or fitted points).
    method : str
        How the interval was made, one of :data:`METHODS`.
    dof : int or None
        Degrees of freedom of the t quantile (``"t"``: n - 1; ``"regression"``: n - p);
        None for ``"normal"``.

    Examples
    --------
    >>> e = Estimate.from_stderr(10.0, 0.5, 100)  # a normal interval: ± 1.96 * 0.5
    >>> round(e.lower, 3), round(e.upper, 3), e.method
    (9.02, 10.98, 'normal')
    >>> e.shifted(1.0).contains(11.0), round(e.scaled(-2.0).halfwidth, 3)
    (True, 1.96)
    >>> print(Estimate(229.93, 3.412, 10, "t", 9))  # also IPython's LaTeX and HTML displays
    229.9 ± 3.4 (95%)
    """

    mean: float
    halfwidth: float
    n: int
    method: str = "t"
    dof: int | None = None

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")

    @classmethod
    def of(cls, values: Sequence[float] | np.ndarray) -> Estimate:
        """The Student t estimate of the mean of independent replications."""
        values = np.asarray(values, dtype=float)
        if values.ndim != 1 or values.size == 0 or not np.all(np.isfinite(values)):
            raise ValueError("values must be a non-empty 1-D array of finite numbers")
        n = int(values.size)
        return cls(float(values.mean()), t_halfwidth(values), n, "t", n - 1 if n > 1 else None)

    @classmethod
    def from_stderr(
        cls, mean: float, stderr: float, n: int, *, method: str = "normal", dof: int | None = None
    ) -> Estimate:
        """An estimate from a standard error: ± z · stderr (``"normal"``) or
        ± t_{0.975, dof} · stderr (``"t"``, ``"regression"``)."""
        quantile = normal_quantile() if method == "normal" else t_quantile(dof)
        return cls(float(mean), quantile * float(stderr), int(n), method, dof)

    @property
    def stderr(self) -> float:
        """The standard error: half-width divided by the quantile used."""
        if not math.isfinite(self.halfwidth):
            return math.nan
        if self.method == "normal":
            return self.halfwidth / normal_quantile()
        return self.halfwidth / t_quantile(self.dof)

    @property
    def lower(self) -> float:
        return self.mean - self.halfwidth

    @property
    def upper(self) -> float:
        return self.mean + self.halfwidth

    def contains(self, value: float) -> bool:
        """Whether the 95% interval contains ``value``."""
        return abs(self.mean - value) <= self.halfwidth

    def shifted(self, constant: float) -> Estimate:
        """``constant + self`` (an exact shift keeps the half-width)."""
        return Estimate(constant + self.mean, self.halfwidth, self.n, self.method, self.dof)

    def scaled(self, factor: float) -> Estimate:
        """``factor * self`` (an exact scale multiplies the half-width by |factor|)."""
        return Estimate(
            factor * self.mean, abs(factor) * self.halfwidth, self.n, self.method, self.dof
        )

    def negated(self) -> Estimate:
        return self.scaled(-1.0)

    # displays: the half-width to two significant digits, the mean to the same place

    def __str__(self) -> str:
        """``mean ± half-width (95%)``, e.g. ``229.9 ± 3.4 (95%)``."""
        mean, half = mean_and_halfwidth(self.mean, self.halfwidth)
        return f"{mean} ± {half} ({CONFIDENCE:.0%})"

    def _repr_latex_(self) -> str:
        """IPython's LaTeX display: ``$229.9 \\pm 3.4$ (95%)``."""
        return f"${estimate_latex(self.mean, self.halfwidth)}$ ({CONFIDENCE:.0%})"

    def _repr_html_(self) -> str:
        """IPython's HTML display: the text of ``str``, with the method and n."""
        return f"<span>{self}</span> <small>({self.method}, n = {self.n})</small>"


def root_seed(seed: object) -> np.random.SeedSequence:
    """``seed`` as a ``SeedSequence`` (a ``SeedSequence`` is returned as it is, never
    advanced).

    Parameters
    ----------
    seed : None, int, sequence of int or numpy.random.SeedSequence

    Returns
    -------
    numpy.random.SeedSequence

    Raises
    ------
    ValueError
        Naming ``seed`` for anything else (a ``Generator`` included: replications derive
        their own generators).

    Examples
    --------
    >>> root_seed(7).entropy
    7
    """
    if isinstance(seed, np.random.SeedSequence):
        return seed
    if isinstance(seed, np.random.Generator | np.random.BitGenerator):
        raise ValueError(
            "seed must be None, an integer >= 0, a sequence of them or a SeedSequence "
            f"(replications derive their own generators), got {type(seed).__name__}"
        )
    try:
        return np.random.SeedSequence(seed)
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"seed must be None, an integer >= 0, a sequence of them or a SeedSequence, "
            f"got {seed!r}"
        ) from error


def replication_seed(seed: object, rep: int) -> np.random.SeedSequence:
    """The seed of replication ``rep`` of the root ``seed``; see the module docstring.

    Parameters
    ----------
    seed : None, int, sequence of int or numpy.random.SeedSequence
        The root (a ``SeedSequence`` is not modified).  ``None`` draws fresh entropy, so
        two calls with ``None`` differ: use :func:`replication_seeds` for the
        replications of one run.
    rep : int
        The replication index, >= 0.

    Returns
    -------
    numpy.random.SeedSequence

    Raises
    ------
    ValueError
        Naming ``seed`` or ``rep``.

    Examples
    --------
    >>> s = replication_seed(7, 2)
    >>> s.spawn_key, bool(s.generate_state(1)[0] == np.random.SeedSequence(7).spawn(3)[2]
    ...                   .generate_state(1)[0])
    ((2,), True)
    """
    root = root_seed(seed)
    rep = nonnegative_int("rep", rep)
    return np.random.SeedSequence(
        root.entropy,
        spawn_key=(*root.spawn_key, root.n_children_spawned + rep),
        pool_size=root.pool_size,
    )


def replication_seeds(seed: object, reps: int) -> list[np.random.SeedSequence]:
    """The seeds of replications ``0..reps-1`` of one root (one draw of entropy when
    ``seed`` is None).

    Parameters
    ----------
    seed : None, int, sequence of int or numpy.random.SeedSequence
        The root (see :func:`replication_seed`).
    reps : int
        Number of replications, >= 1.

    Returns
    -------
    list of numpy.random.SeedSequence

    Raises
    ------
    ValueError
        Naming ``seed`` or ``reps``.

    Examples
    --------
    >>> [s.spawn_key for s in replication_seeds(7, 3)]
    [(0,), (1,), (2,)]
    """
    reps = positive_int("reps", reps)
    root = root_seed(seed)
    return [replication_seed(root, rep) for rep in range(reps)]


@dataclass(frozen=True)
class SlopeFit:
    """A straight line value ≈ slope · log N + intercept (:func:`slope_on_log`).

    Attributes
    ----------
    slope : qtheory.core.stats.Estimate
        The fitted slope with its 95% interval (``method="regression"``, ``n`` points,
        t quantile with ``dof`` = n − 2 degrees of freedom).
    intercept : float
        The fitted intercept.
    weighting : str
        ``"ols"`` (exact values, ordinary least squares) or ``"wls"`` (estimates
        weighted by 1/stderr²).
    chi2_dof : float
        The weighted fit's reduced χ² (NaN for OLS).

    Examples
    --------
    >>> fit = slope_on_log([10, 100, 1000], [1.0, 2.1, 2.9], [0.1, 0.1, 0.1])
    >>> fit.slope.method, fit.slope.n, fit.slope.dof, fit.weighting
    ('regression', 3, 1, 'wls')
    >>> fit.bounded  # t_{0.975, 1} = 12.7: one degree of freedom proves nothing
    True
    """

    slope: Estimate
    intercept: float
    weighting: str
    chi2_dof: float

    def contains(self, value: float) -> bool:
        """Whether the slope's 95% interval contains ``value``.

        Parameters
        ----------
        value : float
            The slope to test.

        Returns
        -------
        bool

        Examples
        --------
        >>> fit = slope_on_log([10, 100, 1000], [1.0, 2.1, 2.9], [0.1, 0.1, 0.1])
        >>> fit.contains(0.0), fit.contains(1.0 / math.log(10))
        (True, True)
        """
        return self.slope.contains(value)

    @property
    def lower(self) -> float:
        """Lower end of the slope's 95% interval.

        Examples
        --------
        >>> fit = slope_on_log([10, 100, 1000], [1.0, 2.0, 3.0])  # an exact line: width 0
        >>> round(fit.lower * math.log(10), 12)
        1.0
        """
        return self.slope.lower

    @property
    def upper(self) -> float:
        """Upper end of the slope's 95% interval.

        Examples
        --------
        >>> fit = slope_on_log([10, 100, 1000], [1.0, 2.0, 3.0])  # an exact line: width 0
        >>> round(fit.upper * math.log(10), 12)
        1.0
        """
        return self.slope.upper

    @property
    def bounded(self) -> bool:
        """No significant growth: the 95% interval contains 0 or lies below it (a wide
        interval passes; the claims use :meth:`negligible`).

        Examples
        --------
        >>> slope_on_log([10, 100, 1000], [3.0, 2.0, 1.0]).bounded  # decreasing
        True
        >>> slope_on_log([10, 100, 1000], [1.0, 2.0, 3.0]).bounded
        False
        """
        return self.lower <= 0

    def negligible(self, scale: float, fraction: float = 0.1) -> bool:
        """Equivalence test: the whole 95% interval lies below ``fraction * scale`` (e.g.
        a term that grows at most a tenth as fast as the regret's c log N).  A wide
        interval fails, unlike "the interval contains 0".

        Parameters
        ----------
        scale : float
            The reference slope (e.g. the regret's c).
        fraction : float, default 0.1
            The share of ``scale`` the interval must stay below.

        Returns
        -------
        bool
            ``upper < fraction * scale``.

        Examples
        --------
        >>> fit = slope_on_log([10, 100, 1000], [1.0, 1.01, 1.02])  # slope 0.01 / log 10
        >>> fit.negligible(1.0), fit.negligible(0.01)
        (True, False)
        """
        return self.upper < fraction * scale


def slope_on_log(
    servers: Sequence[int], values: Sequence[float], stderrs: Sequence[float] | None = None
) -> SlopeFit:
    """Fit value ≈ slope · log N + intercept.

    Without ``stderrs`` (exact values): ordinary least squares
    (:func:`scipy.stats.linregress`), half-width t_{0.975, n-2} times the slope's
    standard error, which then measures how well a line fits, not sampling error.

    With ``stderrs`` (estimates): weighted least squares with weights 1/stderr_i², the
    slope's variance from (XᵀWX)⁻¹ multiplied by the Birge ratio max(1, χ²/(n − 2)) (the
    Particle Data Group's scale factor: a scatter beyond the error bars, e.g. curvature,
    widens the interval instead of being ignored), half-width t_{0.975, n-2} standard
    errors (the per-point errors are themselves estimated from a few replications; with
    the normal quantile the coverage fell to about 0.90 at 6 replications per point).

    Parameters
    ----------
    servers : sequence of int
        N >= 1 of each point (at least 3 points, not all equal).
    values : sequence of float
        Finite values, one per point.
    stderrs : sequence of float, optional
        Standard errors of the values (finite, > 0), for a weighted fit.

    Returns
    -------
    SlopeFit

    Raises
    ------
    ValueError
        For fewer than 3 points, mismatched lengths, non-finite values or errors.

    Examples
    --------
    >>> fit = slope_on_log([10, 100, 1000], [1.0, 2.0, 3.0], [0.1, 0.1, 0.1])
    >>> round(fit.slope.mean * math.log(10), 12), fit.weighting, round(fit.chi2_dof, 12)
    (1.0, 'wls', 0.0)
    """
    try:
        n = np.asarray(servers, dtype=float)
        y = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError("servers and values must be sequences of numbers") from error
    if n.ndim != 1 or n.shape != y.shape or n.size < 3:
        raise ValueError("servers and values must be 1-D of equal length >= 3")
    if not (np.all((n >= 1) & np.isfinite(n)) and np.all(np.isfinite(y))) or np.ptp(n) == 0:
        raise ValueError("servers must be >= 1 and not all equal; values must be finite")
    x = np.log(n)
    dof = x.size - 2
    if stderrs is None:
        fit = _scipy_stats().linregress(x, y)
        slope = Estimate.from_stderr(
            float(fit.slope), float(fit.stderr), x.size, method="regression", dof=dof
        )
        return SlopeFit(slope, float(fit.intercept), "ols", math.nan)
    try:
        se = np.asarray(stderrs, dtype=float)
    except (TypeError, ValueError) as error:
        raise ValueError("stderrs must be a sequence of numbers") from error
    if se.shape != x.shape or not np.all(np.isfinite(se) & (se > 0)):
        raise ValueError("stderrs must be finite, > 0 and one per point")
    weight = 1.0 / se**2
    design = np.column_stack([np.ones_like(x), x])
    normal = design.T @ (weight[:, None] * design)
    intercept, slope = np.linalg.solve(normal, design.T @ (weight * y))
    chi2_dof = float(np.sum(weight * (y - intercept - slope * x) ** 2)) / dof
    variance = np.linalg.inv(normal)[1, 1] * max(1.0, chi2_dof)
    estimate = Estimate.from_stderr(
        float(slope), math.sqrt(variance), x.size, method="regression", dof=dof
    )
    return SlopeFit(estimate, float(intercept), "wls", chi2_dof)
