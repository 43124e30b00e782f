r"""Stationary distributions of birth--death chains, stable for millions of states.

A birth--death chain on states :math:`0, \dots, n` moves :math:`i \to i+1` at rate
``birth[i]`` and :math:`i+1 \to i` at rate ``death[i]`` (:math:`i = 0, \dots, n-1`).
Detailed balance gives the unnormalised stationary weights

.. math::

   w_0 = 1, \qquad w_{i+1} = w_i \, \frac{\lambda_i}{\mu_{i+1}}, \qquad
   \pi_i = w_i \Big/ \sum_j w_j ,

with :math:`\lambda_i` = ``birth[i]`` and :math:`\mu_{i+1}` = ``death[i]``.  For a
loss system with :math:`10^7` servers the weights span thousands of orders of
magnitude, far outside float64.  :func:`birth_death_stationary` with ``dps=D`` does the
product in mpmath, whose exponent range is unbounded, as an independent high-precision
reference correct to D significant digits (the :mod:`qtheory.core.precision` convention).

Float64 algorithm: products with a separate exponent
-----------------------------------------------------
The float64 routines keep every weight as :math:`w_i = M_i\, 2^{E_i}` with a float
mantissa :math:`M_i \in [\tfrac12, 1)` and an exact integer exponent :math:`E_i`:

1. each ratio :math:`\lambda_i/\mu_{i+1}` is rounded once and split exactly
   (``frexp``) into a mantissa in :math:`[\tfrac12, 1)` and an integer exponent
   (where the ratio itself would overflow or underflow, the rates are split first and
   the mantissa ratio, in :math:`(\tfrac12, 2)`, is rounded instead);
2. the mantissas are multiplied cumulatively in blocks of 256 (the products stay
   within :math:`2^{\pm 256}`, far from overflow), each block's product is carried
   into the next ones by the same procedure applied recursively to the block totals,
   and ``frexp`` renormalises; the exponents are summed exactly (as integer-valued
   floats, exact below :math:`2^{53}`).

So nothing overflows or underflows, and :math:`M_i` carries a relative error of at
most about :math:`3i` units of roundoff :math:`u = 2^{-53}` (:math:`i` roundings of
ratios, :math:`i` products and the block carries), typically :math:`\sqrt{i}\,u`
since the roundings do not conspire, whatever the magnitude of :math:`w_i`.
Summing :math:`\log(\lambda_i/\mu_{i+1})` instead (the log-space route) leaves an
absolute error of order :math:`u \sum_{j \le i} |\log w_j|` in :math:`\log w_i`,
which grows with the size of the logs: for a geometric chain of 120 states it gives
:math:`10^{-12}` relative errors at :math:`\pi_0 = 10^{-240}`, against
:math:`10^{-14}` here.

:func:`birth_death_log_weights` returns :math:`\log M_i + E_i \log 2`, with an
absolute error of about :math:`u(|\log w_i| + \sqrt{i})`.
:func:`birth_death_stationary` rescales all weights by the exact power of two that
brings the largest to :math:`[\tfrac14, 1)` (``ldexp``) and normalises with one
pairwise sum: every probability above the float64 underflow threshold
(:math:`\approx 2.2 \times 10^{-308}`) has a relative error of order
:math:`\sqrt{n}\,u` -- measured :math:`4 \times 10^{-14}` at :math:`n = 10^7`
against mpmath (see the tests, which also check GTH and the Poisson law of the
M/M/:math:`\infty` queue).  Smaller probabilities are 0 or subnormal.  Cost: about a
dozen vectorised passes over the states (about 0.4 s for :math:`n = 10^7`; see
``benchmarks/bench_exact.py``).

Cost guards: the float64 routes allocate about :data:`FLOAT_BYTES_PER_STATE` bytes per
state, the mpmath route about :data:`MP_BYTES_PER_STATE` bytes and
:data:`MP_CELLS_PER_STATE` ``dp_cells`` per state; a call whose estimate exceeds a
:mod:`qtheory.core.limits` limit is refused before anything is allocated.

References
----------
.. [1] S. Asmussen, Applied Probability and Queues, 2nd ed. (Springer 2003),
   birth-death processes and their stationary distributions.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
from numpy.typing import ArrayLike, NDArray

from qtheory.core import limits, precision

__all__ = ["TAIL_EPS", "birth_death_log_weights", "birth_death_stationary", "geometric_tail_states"]

#: Relative size below which a left-out part of a sum no longer matters (2^-60, below
#: half an ulp of float64): the bound :func:`geometric_tail_states` holds the tails under.
TAIL_EPS = 2.0**-60

#: Peak memory of the float64 routes per state, in bytes (about six float64 arrays).
FLOAT_BYTES_PER_STATE = 56
#: Memory of the mpmath route per state, in bytes (three lists of mpf values).
MP_BYTES_PER_STATE = 400
#: Cost of the mpmath route per state in ``dp_cells`` (a multiply, a divide, an add
#: and a division at about a microsecond, taken as 1000 float64 cells).
MP_CELLS_PER_STATE = 1000


#: Block length of the cumulative products: products of 256 factors in (1/2, 2)
#: stay within 2^(+-256), far inside the float64 range.
_BLOCK = 256


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
        raise ValueError(f"{name} must be finite and > 0, got {name}[{i}] = {float(array[i])!r}")
    return array


def _same_length(births: int, deaths: int) -> None:
    if births != deaths:
        raise ValueError(
            "birth and death must have the same length (birth[i] is the rate i -> i+1, "
            f"death[i] the rate i+1 -> i), got {births} and {deaths}"
        )


def _validated(birth: ArrayLike, death: ArrayLike):
    birth = _rate_vector("birth", birth)
    death = _rate_vector("death", death)
    _same_length(birth.size, death.size)
    limits.require(
        "memory",
        FLOAT_BYTES_PER_STATE * (birth.size + 1.0),
        parameter="birth",
        what=f"a birth-death chain of {birth.size + 1} states",
    )
    return birth, death


def _ratios(
    birth: NDArray[np.float64], death: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.int32]]:
    """``birth / death`` as (mantissa in [1/2, 2), int32 exponent): one rounding, no
    overflow or underflow for any positive inputs."""
    mantissa = np.empty_like(birth)
    exponent = np.empty(birth.shape, dtype=np.int32)
    with np.errstate(over="ignore", under="ignore"):
        np.divide(birth, death, out=mantissa)
    np.frexp(mantissa, out=(mantissa, exponent))
    # fast path unless some ratio overflowed, underflowed or is subnormal
    if mantissa.size and not (
        mantissa.min() >= 0.5 and mantissa.max() < 1.0 and exponent.min() > -1021
    ):
        top, top_exp = np.frexp(birth)
        bottom, bottom_exp = np.frexp(death)
        mantissa = top / bottom  # in (1/2, 2)
        exponent = top_exp - bottom_exp
    return mantissa, exponent


def _scaled_cumprod(
    factors: NDArray[np.float64],
    exponents: NDArray[np.integer],
    mantissa_out: NDArray[np.float64],
    exponent_out: NDArray[np.float64],
) -> None:
    """Cumulative products of ``factors * 2**exponents`` (factors in [1/2, 2),
    integer exponents) written as ``mantissa_out * 2**exponent_out``
    with the mantissa in [1/2, 1) and the exponent an exact integer-valued float
    (exact while below 2**53); see the module notes."""
    n = factors.size
    if n == 0:
        return
    full = n - n % _BLOCK
    blocks = -(-n // _BLOCK)
    products = mantissa_out  # computed in place
    if full:
        np.cumprod(
            factors[:full].reshape(-1, _BLOCK), axis=1, out=products[:full].reshape(-1, _BLOCK)
        )
    if full < n:
        np.cumprod(factors[full:], out=products[full:])
    carried = np.zeros(blocks)
    if blocks > 1:
        # carry the product of all earlier blocks into each block
        totals, total_exponents = np.frexp(products[_BLOCK - 1 : (blocks - 1) * _BLOCK : _BLOCK])
        prefix = np.empty(blocks - 1)
        prefix_exponents = np.empty(blocks - 1)
        _scaled_cumprod(totals, total_exponents, prefix, prefix_exponents)
        if full > _BLOCK:
            products[_BLOCK:full].reshape(-1, _BLOCK)[...] *= prefix[: full // _BLOCK - 1, None]
        if full < n:
            products[full:] *= prefix[-1]
        carried[1:] = prefix_exponents
    within = np.empty(n, dtype=np.int32)
    np.frexp(products, out=(mantissa_out, within))
    np.cumsum(exponents, dtype=np.float64, out=exponent_out)  # exact: integers < 2**53
    exponent_out += within
    if full:
        exponent_out[:full].reshape(-1, _BLOCK)[...] += carried[: full // _BLOCK, None]
    if full < n:
        exponent_out[full:] += carried[-1]


def _scaled_weights(
    birth: NDArray[np.float64], death: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Weights ``w_i = M_i 2**E_i`` of states 0..n, with ``w_0 = 1``."""
    factors, exponents = _ratios(birth, death)
    mantissa = np.empty(birth.size + 1)
    exponent = np.empty(birth.size + 1)
    mantissa[0], exponent[0] = 0.5, 1.0
    _scaled_cumprod(factors, exponents, mantissa[1:], exponent[1:])
    return mantissa, exponent


def geometric_tail_states(ratio: float, first: int, extra: float = 0.0) -> int:
    r"""T, the states past index ``first`` that sums over a chain's weights must keep when
    every weight ratio past ``first`` is at most ``ratio`` = q < 1: the sums of the
    weights and of the weights times their index left out beyond ``first`` + T are, in
    units of the kept ones, at most

    .. math:: q^{T-1}\left(\max\left(\frac{q}{1-q},\ \frac{Lq}{1-q} +
              \frac{q}{(1-q)^2}\right) + e\right), \qquad L = \text{first} + T,

    (geometric sums; ``extra`` = e is a further term of the caller's bound with the same
    factor), and T is the least with this below :data:`TAIL_EPS` (L depends on T only
    through log L: a fixed point in four steps).  T depends on q and log L, not on the
    chain's length.

    Parameters
    ----------
    ratio : float
        q, in (0, 1).
    first : int
        The index past which the bound on the ratios holds (>= 0).
    extra : float, default 0.0
        A further term of the bound, >= 0.

    Returns
    -------
    int
        T >= 1.

    Examples
    --------
    >>> geometric_tail_states(0.5, 0) < geometric_tail_states(0.5, 10**6) < 100
    True
    >>> geometric_tail_states(0.9, 0) > geometric_tail_states(0.5, 0)
    True
    """
    decay, terms = -math.log(ratio), 1
    for _ in range(4):
        last = first + terms
        factor = max(ratio / (1 - ratio), last * ratio / (1 - ratio) + ratio / (1 - ratio) ** 2)
        factor += extra
        terms = max(1, math.ceil(1 + (math.log(factor) - math.log(TAIL_EPS)) / decay))
    return terms


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
        spread.  Entry :math:`i` has an absolute error of at most about
        :math:`u(|\log w_i| + 3i)`, typically :math:`u(|\log w_i| + \sqrt{i})`,
        :math:`u = 2^{-53}` (see the module notes); for normalised probabilities use
        :func:`birth_death_stationary`, which keeps the weights' exponents exact.

    Raises
    ------
    ValueError
        If the lengths differ, a rate is not finite and > 0, or the estimated memory
        exceeds the :mod:`qtheory.core.limits` (checked before any allocation).

    References
    ----------
    See the module's References: Asmussen (2003), birth-death processes and their stationary
    distributions.

    Examples
    --------
    M/M/1/3 with arrival rate 1 and service rate 2: :math:`w_i = 2^{-i}`.

    >>> import numpy as np
    >>> np.exp(birth_death_log_weights([1.0, 1.0, 1.0], [2.0, 2.0, 2.0])).round(12)
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
    mantissa, exponent = _scaled_weights(birth, death)
    log_w = np.log(mantissa)
    log_w += exponent * math.log(2.0)
    log_w[0] = 0.0  # exactly
    return log_w


def birth_death_stationary(
    birth: ArrayLike, death: ArrayLike, *, dps: int | None = None
) -> NDArray[np.float64] | list:
    r"""Stationary distribution of a birth--death chain, in float64 or in mpmath.

    Parameters
    ----------
    birth : array_like, shape (n,)
        ``birth[i]`` is the rate of :math:`i \to i+1`; finite and > 0.  With ``dps``
        the entries may also be strings (``"0.1"``) or ``mpf`` values; floats are
        taken as the exact binary numbers they are.
    death : array_like, shape (n,)
        ``death[i]`` is the rate of :math:`i+1 \to i`; finite and > 0.
    dps : int or None, keyword-only
        None (default): float64.  An integer D >= 1: mpmath probabilities correct to
        D significant digits however small (mpmath's exponent range is unbounded):
        the products and the sum run with D + 10 + log10(n) digits and each result is
        rounded once to D digits.  Pure Python, about a microsecond per state.

    Returns
    -------
    numpy.ndarray, shape (n + 1,), or list of mpmath.mpf
        :math:`\pi_0, \dots, \pi_n`, summing to 1.  In float64, probabilities below
        the normal range (about :math:`2.2 \times 10^{-308}`) are 0 or subnormal; all
        others have a small relative error (see the module notes).  :math:`O(n)`.

    Raises
    ------
    ValueError
        If the lengths differ, a rate is not finite and > 0, ``dps`` is not None or an
        integer >= 1, or the estimated memory (or, with ``dps``, work) exceeds the
        :mod:`qtheory.core.limits` (checked before any allocation).

    References
    ----------
    See the module's References: Asmussen (2003).

    Examples
    --------
    Erlang's loss system M/M/2/2 with offered load 2: :math:`\pi \propto (1, 2, 2)`.

    >>> (birth_death_stationary([2.0, 2.0], [1.0, 2.0]) * 5).round(12)
    array([1., 2., 2.])

    A million servers at offered load :math:`5 \times 10^5`: the probability that all
    are busy, about :math:`10^{-83\,886}`, underflows to 0, while the probability of
    the mode is :math:`\approx 1/\sqrt{2\pi \cdot 5 \times 10^5}`.

    >>> import numpy as np
    >>> n = 10**6
    >>> pi = birth_death_stationary(np.full(n, 5e5), np.arange(1.0, n + 1))
    >>> float(pi[-1]), round(float(pi[500_000] * np.sqrt(2 * np.pi * 5e5)), 6)
    (0.0, 1.0)

    In mpmath, to 30 digits:

    >>> pi = birth_death_stationary([1, 1], [3, 3], dps=30)
    >>> print(mpmath.nstr(pi[2], 30))  # 1 / 13
    0.0769230769230769230769230769231
    """
    dps = precision.check_dps(dps, cost="a birth-death chain in mpmath")
    if dps is not None:
        return _stationary_mp(birth, death, dps)
    birth, death = _validated(birth, death)
    mantissa, exponent = _scaled_weights(birth, death)
    # scale by an exact power of two so that the largest weight is in [1/4, 1)
    exponent -= exponent.max()
    np.maximum(exponent, -1100.0, out=exponent)  # below 2**-1075 everything is 0 anyway
    with np.errstate(under="ignore"):
        weights = np.ldexp(mantissa, exponent.astype(np.int32), out=mantissa)
    weights /= weights.sum()
    return weights


def _stationary_mp(birth, death, dps: int) -> list:
    """The mpmath route of :func:`birth_death_stationary` (``dps`` already checked)."""
    birth_values = _raw_values("birth", birth)
    death_values = _raw_values("death", death)
    _same_length(len(birth_values), len(death_values))
    states = len(birth_values) + 1.0
    limits.require(
        "memory", MP_BYTES_PER_STATE * states, parameter="birth",
        what=f"a birth-death chain of {int(states)} states in mpmath",
    )  # fmt: skip
    limits.require(
        "dp_cells", MP_CELLS_PER_STATE * states, parameter="birth",
        what=f"a birth-death chain of {int(states)} states in mpmath",
    )  # fmt: skip
    with precision.working(dps, guard=precision.GUARD_DIGITS + len(str(int(states)))):
        birth_list = _mp_rates("birth", birth_values)
        death_list = _mp_rates("death", death_values)
        weights = [mpmath.mpf(1)]
        for up, down in zip(birth_list, death_list, strict=True):
            weights.append(weights[-1] * up / down)
        total = mpmath.fsum(weights)
        probabilities = [w / total for w in weights]
    return precision.rounded(probabilities, dps)


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
