r"""Stationary distributions of birth--death chains, stable for millions of states.

A birth--death chain on states :math:`0, \dots, n` moves :math:`i \to i+1` at rate
``birth[i]`` and :math:`i+1 \to i` at rate ``death[i]`` (:math:`i = 0, \dots, n-1`).
Detailed balance gives the unnormalised stationary weights

.. math::

   w_0 = 1, \qquad w_{i+1} = w_i \, \frac{\lambda_i}{\mu_{i+1}}, \qquad
   \pi_i = w_i \Big/ \sum_j w_j ,

with :math:`\lambda_i` = ``birth[i]`` and :math:`\mu_{i+1}` = ``death[i]``.  For a
loss system with :math:`10^7` servers the weights span thousands of orders of
magnitude, far outside float64, so the float64 routines work with
:math:`\log w_i` (a cumulative sum, :math:`O(n)`) and normalise with a log-sum-exp.
:func:`birth_death_stationary_mp` does the same product in mpmath, whose exponent
range is unbounded, as an independent high-precision reference.

Accuracy
--------
Each increment :math:`t_i = \log(\lambda_i / \mu_{i+1})` is computed as the log of one
correctly rounded ratio (absolute error about one unit roundoff :math:`u`), falling
back to :math:`\log \lambda_i - \log \mu_{i+1}` only where the ratio would overflow or
underflow.  A cumulative sum accumulates an absolute error of order
:math:`u \sum_k |s_k|` (at most; :math:`u \sqrt{n} \max_k |s_k|` typically) where
:math:`s_k` are its partial sums.  :func:`birth_death_log_weights` returns
:math:`\log w_i` relative to state 0, as specified, so its entries carry absolute
errors proportional to their own magnitude (:math:`\log w_i` can be :math:`\sim 10^7`).
:func:`birth_death_stationary` avoids this: it finds the mode :math:`m` with a first
pass and recomputes the sums *outwards from the mode*, so that the partial sums that
matter -- those of the states whose probability is representable, within about 745
nats of the mode for a unimodal chain -- stay small.  Its components are then accurate
to a relative error of about :math:`10^{-12}` even at :math:`n = 10^7` (checked in
the tests against mpmath and against the Poisson law of the M/M/:math:`\infty` queue).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import mpmath
import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["birth_death_log_weights", "birth_death_stationary", "birth_death_stationary_mp"]


#: Below this |log(ratio)| the ratio birth / death is a normal float64 (log of the
#: smallest normal is -708.4, of the largest +709.8).
_LOG_NORMAL = 708.0


def _rate_vector(name: str, rates: ArrayLike) -> NDArray[np.float64]:
    """Return ``rates`` as a 1-D float64 array after checking that every entry is a
    finite real number > 0."""
    try:
        array = np.asarray(rates)
    except (TypeError, ValueError) as exc:  # ragged nested sequences
        raise ValueError(f"{name} must be a 1-D array of real numbers: {exc}") from None
    if array.dtype == object:
        try:
            array = array.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a 1-D array of real numbers") from None
    if np.iscomplexobj(array):
        raise ValueError(f"{name} must be real, got dtype {array.dtype}")
    if array.dtype == np.bool_ or not np.issubdtype(array.dtype, np.number):
        raise ValueError(f"{name} must be a 1-D array of real numbers, got dtype {array.dtype}")
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {array.shape}")
    array = np.asarray(array, dtype=np.float64)
    bad = ~(np.isfinite(array) & (array > 0))
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{name} must be finite and > 0, got {name}[{i}] = {array[i]!r}")
    return array


def _validated(birth: ArrayLike, death: ArrayLike):
    birth = _rate_vector("birth", birth)
    death = _rate_vector("death", death)
    if birth.shape != death.shape:
        raise ValueError(
            "birth and death must have the same length (birth[i] is the rate i -> i+1, "
            f"death[i] the rate i+1 -> i), got {birth.size} and {death.size}"
        )
    return birth, death


def _log_ratios(birth: NDArray[np.float64], death: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log(birth / death)`` elementwise: the log of one rounded ratio where that ratio
    is a normal float, the difference of logs where it would overflow or underflow."""
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        out = np.divide(birth, death)
        np.log(out, out=out)
    # |log ratio| > 708 means the ratio overflowed, underflowed or is subnormal
    extreme = ~(np.abs(out) < _LOG_NORMAL)
    if extreme.any():
        out[extreme] = np.log(birth[extreme]) - np.log(death[extreme])
    return out


def birth_death_log_weights(birth: ArrayLike, death: ArrayLike) -> NDArray[np.float64]:
    r"""Logarithms of the unnormalised stationary weights of a birth--death chain.

    Parameters
    ----------
    birth : array_like, shape (n,)
        ``birth[i]`` is the rate of :math:`i \to i+1`; finite and > 0.
    death : array_like, shape (n,)
        ``death[i]`` is the rate of :math:`i+1 \to i`; finite and > 0.

    Returns
    -------
    numpy.ndarray, shape (n + 1,)
        :math:`\log w_i` with :math:`\log w_0 = 0` and
        :math:`\log w_{i+1} = \log w_i + \log(\text{birth}[i] / \text{death}[i])`.
        Work and memory are :math:`O(n)`; nothing overflows however far the weights
        spread.  Entry :math:`i` has an absolute error of order
        :math:`u \sqrt{n}\,\max_{k \le i} |\log w_k|` (see the module notes); for
        normalised probabilities use :func:`birth_death_stationary`, which is more
        accurate.

    Raises
    ------
    ValueError
        If the lengths differ or a rate is not finite and > 0.

    Examples
    --------
    M/M/1/3 with arrival rate 1 and service rate 2: :math:`w_i = 2^{-i}`.

    >>> import numpy as np
    >>> np.exp(birth_death_log_weights([1.0, 1.0, 1.0], [2.0, 2.0, 2.0]))
    array([1.   , 0.5  , 0.25 , 0.125])

    The M/M/:math:`\infty` queue with offered load 1000 truncated at :math:`10^6`
    customers: :math:`\log w_i = i \log 1000 - \log i!`.

    >>> n = 10**6
    >>> log_w = birth_death_log_weights(np.full(n, 1000.0), np.arange(1.0, n + 1))
    >>> import math
    >>> exact = n * math.log(1000) - math.lgamma(n + 1)  # w_n is about 10^-2565700
    >>> round(float(log_w[-1]), 2), bool(abs(log_w[-1] / exact - 1) < 1e-12)
    (-5907763.11, True)
    """
    birth, death = _validated(birth, death)
    log_w = np.empty(birth.size + 1)
    log_w[0] = 0.0
    np.cumsum(_log_ratios(birth, death), out=log_w[1:])
    return log_w


def _centred_log_weights(
    birth: NDArray[np.float64], death: NDArray[np.float64]
) -> NDArray[np.float64]:
    """``log w_i - log w_m`` with ``m`` the (approximate) mode, summed outwards from
    ``m`` so that the partial sums near the mode stay small."""
    steps = _log_ratios(birth, death)
    log_w = np.empty(steps.size + 1)
    log_w[0] = 0.0
    np.cumsum(steps, out=log_w[1:])
    mode = int(np.argmax(log_w))
    # recompute in place, outwards from the mode
    log_w[mode] = 0.0
    np.cumsum(steps[mode:], out=log_w[mode + 1 :])
    # log w_i = log w_{i+1} - steps[i]: sum backwards from the mode
    below = log_w[:mode][::-1]
    np.cumsum(steps[:mode][::-1], out=below)
    np.negative(below, out=below)
    return log_w


def birth_death_stationary(birth: ArrayLike, death: ArrayLike) -> NDArray[np.float64]:
    r"""Stationary distribution of a birth--death chain in float64, via log space.

    Parameters
    ----------
    birth : array_like, shape (n,)
        ``birth[i]`` is the rate of :math:`i \to i+1`; finite and > 0.
    death : array_like, shape (n,)
        ``death[i]`` is the rate of :math:`i+1 \to i`; finite and > 0.

    Returns
    -------
    numpy.ndarray, shape (n + 1,)
        :math:`\pi_0, \dots, \pi_n`, summing to 1.  Probabilities below the float64
        range (about :math:`10^{-308}`, or :math:`10^{-324}` subnormal) are 0; all
        others have a small relative error (see the module notes).  :math:`O(n)`.

    Raises
    ------
    ValueError
        If the lengths differ or a rate is not finite and > 0.

    See Also
    --------
    birth_death_stationary_mp : the same distribution in mpmath at any precision.

    Examples
    --------
    Erlang's loss system M/M/2/2 with offered load 2: :math:`\pi \propto (1, 2, 2)`.

    >>> birth_death_stationary([2.0, 2.0], [1.0, 2.0]) * 5
    array([1., 2., 2.])

    Ten million servers at offered load :math:`5 \times 10^6`: the probability that
    all are busy is about :math:`10^{-470\,000}`, which underflows, while the
    probabilities near the mode are accurate.

    >>> import numpy as np
    >>> n = 10**7
    >>> pi = birth_death_stationary(np.full(n, 5e6), np.arange(1.0, n + 1))
    >>> float(pi[-1]), round(float(pi[5_000_000] * np.sqrt(2 * np.pi * 5e6)), 6)
    (0.0, 1.0)
    """
    birth, death = _validated(birth, death)
    weights = _centred_log_weights(birth, death)
    weights -= weights.max()  # the max is 0 up to rounding; subtract it anyway
    np.exp(weights, out=weights)
    weights /= weights.sum()
    return weights


def birth_death_stationary_mp(
    birth: Sequence | ArrayLike, death: Sequence | ArrayLike, dps: int = 50
) -> list:
    r"""Stationary distribution of a birth--death chain in mpmath.

    Parameters
    ----------
    birth, death : sequence of float, int, str or mpmath.mpf, length n each
        Rates as in :func:`birth_death_stationary` (finite and > 0).  Floats are taken
        as the exact binary numbers they are; pass strings (``"0.1"``) or ``mpf``
        values for decimal rates.
    dps : int, optional
        Decimal digits of the result (default 50).

    Returns
    -------
    list of mpmath.mpf, length n + 1
        :math:`\pi_0, \dots, \pi_n` to about ``dps`` significant digits each, however
        small (mpmath's exponent range is unbounded).  The products and the sum are
        done with ``dps + 10 + log10(n)`` digits and rounded once to ``dps`` digits.
        Practical up to :math:`n \approx 10^5`-:math:`10^6` (pure Python, about a
        microsecond per state).

    Raises
    ------
    ValueError
        If the lengths differ, a rate is not a finite number > 0, or ``dps`` is not
        an integer >= 1.

    Examples
    --------
    >>> pi = birth_death_stationary_mp([1, 1], [3, 3], dps=30)
    >>> print(mpmath.nstr(pi[2], 30))  # 1 / 13
    0.0769230769230769230769230769231
    """
    if isinstance(dps, bool) or not isinstance(dps, int | np.integer) or dps < 1:
        raise ValueError(f"dps must be an integer >= 1, got {dps!r}")
    dps = int(dps)
    birth_values = _raw_values("birth", birth)
    death_values = _raw_values("death", death)
    if len(birth_values) != len(death_values):
        raise ValueError(
            "birth and death must have the same length (birth[i] is the rate i -> i+1, "
            f"death[i] the rate i+1 -> i), got {len(birth_values)} and {len(death_values)}"
        )
    guard = 10 + int(math.log10(len(birth_values) + 1))
    with mpmath.workdps(dps + guard):
        birth_list = _mp_rates("birth", birth_values)
        death_list = _mp_rates("death", death_values)
        weights = [mpmath.mpf(1)]
        for up, down in zip(birth_list, death_list, strict=True):
            weights.append(weights[-1] * up / down)
        total = mpmath.fsum(weights)
        probabilities = [w / total for w in weights]
    with mpmath.workdps(dps):
        return [+p for p in probabilities]  # unary plus rounds to the working precision


def _raw_values(name: str, rates) -> list:
    """``rates`` as a plain list (a 1-D array or any sequence)."""
    if isinstance(rates, np.ndarray):
        if rates.ndim != 1:
            raise ValueError(f"{name} must be 1-D, got shape {rates.shape}")
        return rates.tolist()
    if isinstance(rates, str):
        raise ValueError(f"{name} must be a sequence of rates, got {rates!r}")
    try:
        return list(rates)
    except TypeError:
        raise ValueError(f"{name} must be a sequence of rates, got {rates!r}") from None


def _mp_rates(name: str, values: list) -> list:
    """Convert ``values`` to mpf at the working precision (exactly, for floats),
    checking that each is a finite number > 0."""
    out = []
    for i, value in enumerate(values):
        if isinstance(value, bool):
            raise ValueError(f"{name} must hold numbers, got {name}[{i}] = {value!r}")
        try:
            rate = mpmath.mpf(value)
        except (TypeError, ValueError):
            raise ValueError(
                f"{name} must hold real numbers, got {name}[{i}] = {value!r}"
            ) from None
        if not (mpmath.isfinite(rate) and rate > 0):
            raise ValueError(f"{name} must be finite and > 0, got {name}[{i}] = {value!r}")
        out.append(rate)
    return out
