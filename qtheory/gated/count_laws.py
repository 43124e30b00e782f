r"""The Poisson and geometric count laws of the gated queue's embedded chains, from
:mod:`scipy.special` alone.

The number of services during a gate τ is Poisson(μτ) and the number during the
exponential phase that follows is geometric; :mod:`qtheory.gated.embedded_chain`,
:mod:`qtheory.gated.relaxation` and :mod:`qtheory.gated.gap_gates` tabulate them.  They
used to call :mod:`scipy.stats`, whose import alone costs about as much as NumPy,
SciPy's optimiser and mpmath together (the whole start of ``qtheory gated ladder``).
These functions compute what ``scipy.stats.poisson.pmf``, ``scipy.stats.geom.pmf``
and ``scipy.stats.poisson.isf`` compute, by the same :mod:`scipy.special` functions in
the same order, so the values are the same floats (``tests/gated/test_count_laws.py``
compares them with :mod:`scipy.stats` bit for bit):

.. math:: P(\mathrm{Poisson}(m) = k) = \exp(k\log m - \log\Gamma(k + 1) - m), \qquad
          P(\mathrm{Geom}(p) = k) = (1 - p)^{k - 1} p .

Only valid arguments are taken (counts are integers, m ≥ 0, 0 < p ≤ 1): the callers
build them.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

__all__ = ["geometric_pmf", "poisson_isf", "poisson_pmf"]


def poisson_pmf(k: ArrayLike, mean: ArrayLike) -> NDArray[np.float64]:
    r"""P(Poisson(``mean``) = ``k``), broadcast over both arguments.

    Parameters
    ----------
    k : array_like of int
        Counts (a negative count has probability 0).
    mean : array_like of float
        Means m ≥ 0.

    Returns
    -------
    ndarray
        :math:`\exp(k \log m - \log\Gamma(k+1) - m)` clipped to [0, 1] (``xlogy``, so
        that m = 0 gives 1 at k = 0), as ``scipy.stats.poisson.pmf``.

    Examples
    --------
    >>> poisson_pmf([0, 1, 2], 2.0).round(6).tolist()
    [0.135335, 0.270671, 0.270671]
    >>> poisson_pmf(0, 0.0)
    array(1.)
    """
    k, mean = np.broadcast_arrays(np.asarray(k), np.asarray(mean, dtype=float))
    out = np.zeros(k.shape)
    good = k >= 0
    values = np.exp(special.xlogy(k[good], mean[good]) - special.gammaln(k[good] + 1) - mean[good])
    out[good] = np.clip(values, 0, 1)
    return out


def geometric_pmf(k: ArrayLike, p: float) -> NDArray[np.float64]:
    r"""P(Geom(``p``) = ``k``) on k = 1, 2, …: :math:`(1 - p)^{k-1} p`.

    Parameters
    ----------
    k : array_like of int
        Counts (below 1: probability 0).
    p : float
        Success probability, 0 < p ≤ 1.

    Returns
    -------
    ndarray
        As ``scipy.stats.geom.pmf``.

    Examples
    --------
    >>> geometric_pmf([0, 1, 2, 3], 0.5).tolist()
    [0.0, 0.5, 0.25, 0.125]
    """
    k, p = np.broadcast_arrays(np.asarray(k), np.asarray(p, dtype=float))
    out = np.zeros(k.shape)
    good = k >= 1
    out[good] = np.clip(np.power(1 - p[good], k[good] - 1) * p[good], 0, 1)
    return out


def poisson_isf(q: float, mean: float) -> float:
    r"""The least k with P(Poisson(``mean``) > k) ≤ ``q``, by the inverse of the
    regularised incomplete gamma function (``pdtrik``) and one check of the count
    below (``pdtr``), as ``scipy.stats.poisson.isf``.

    Parameters
    ----------
    q : float
        Tail probability, 0 < q < 1.
    mean : float
        m ≥ 0.

    Returns
    -------
    float
        k (an integer value).

    Examples
    --------
    >>> poisson_isf(1e-16, 2.0), poisson_isf(0.5, 10.0)
    (22.0, 10.0)
    """
    p = 1.0 - np.asarray(q, dtype=float)
    mean = np.asarray(mean, dtype=float)
    vals = np.ceil(special.pdtrik(p, mean))
    below = np.maximum(vals - 1, 0)
    return float(np.where(special.pdtr(below, mean) >= p, below, vals))
