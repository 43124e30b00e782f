r"""Events of the uniformised clock in a lookahead window of the loss network, and
their Chernoff bounds.

In the clock model every event of a window of length :math:`W` (an H or L arrival or a
potential departure of the uniformised clock) comes from a Poisson process of rate
:math:`(\lambda_H + \lambda_L + \mu)N`, so their number is Poisson with mean :math:`M =
(\lambda_H+\lambda_L+\mu)\,c\log N` when :math:`W = c\log N / N`, and
:math:`P(\text{events} \ge (1+\delta)M),\ P(\text{events} \le (1-\delta)M) \le
N^{-\kappa}` with :math:`\kappa = (\lambda_H+\lambda_L+\mu)\,c\,h(1\pm\delta)`
(:func:`derive_window`).

References
----------
.. [1] A. Dembo and O. Zeitouni, Large Deviations Techniques and Applications, 2nd ed.
   (Springer 1998).
.. [2] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the overloaded
   loss network", arXiv:2601.14538 (2026).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import sympy as sp

from qtheory.core import validation
from qtheory.core.symbolic import Formula
from qtheory.model.lossnet import LossNetwork, two_classes
from qtheory.model.lossnet_symbols import lambda_h, lambda_l, mu, servers
from qtheory.walks.chernoff import (
    check_tail,
    derive_poisson,
    log_poisson_tail_bound,
    mean,
    relative_deviation,
    tail_level,
    window_constant,
)

__all__ = [
    "WindowDerivation",
    "derive_window",
    "log_window_event_bound",
    "window_event_bound",
    "window_mean_events",
]


# ---------------------------------------------------------------------------
# events in a lookahead window


@dataclass(frozen=True)
class WindowDerivation:
    r"""The event count of a window W = c log N / N in the clock model.

    The count is Poisson with mean :math:`M = (\lambda_H + \lambda_L + \mu)NW
    = (\lambda_H + \lambda_L + \mu)c\log N`, so its Chernoff bounds
    :math:`e^{-M h(1 \pm \delta)}` are powers :math:`N^{-\kappa}` with
    :math:`\kappa = (\lambda_H + \lambda_L + \mu)\,c\,h(1 \pm \delta)`.

    Attributes
    ----------
    mean_events : Formula
        :math:`M`, in ``(N, lambda_H, lambda_L, mu, c)``.
    upper_power : Formula
        :math:`\kappa` with :math:`P(\text{events} \ge (1 + \delta)M) \le N^{-\kappa}`,
        in ``(lambda_H, lambda_L, mu, c, delta)``.
    lower_power : Formula
        :math:`\kappa` with :math:`P(\text{events} \le (1 - \delta)M) \le N^{-\kappa}`,
        in the same arguments.

    References
    ----------
    See the module's References:

    - Dembo and Zeitouni (1998), Sec. 2.2 (Chernoff bounds and the Legendre transform);
    - Bray (2026), "Analytical Tools".

    Examples
    --------
    >>> f = derive_window()
    >>> f.lower_power.expr
    -c*(lambda_H + lambda_L + mu)*(delta*log(1 - delta) - delta - log(1 - delta))
    """

    mean_events: Formula  # M = (λ_H + λ_L + μ) c log N, in (N, λ_H, λ_L, μ, c)
    upper_power: Formula  # κ: P(events >= (1 + δ) M) <= N^{-κ}, in (λ_H, λ_L, μ, c, δ)
    lower_power: Formula  # κ: P(events <= (1 − δ) M) <= N^{-κ}


@cache
def derive_window() -> WindowDerivation:
    r"""Sympy substitutes the window's Poisson mean into Λ*(x) = m h(x/m) and divides by
    log N: the Chernoff bounds are powers N^{-κ}.

    With :math:`m = M = (\lambda_H + \lambda_L + \mu)c\log N` and :math:`x = (1 \pm
    \delta)M`, :math:`\Lambda^*(x)/\log N = (\lambda_H + \lambda_L + \mu)\,c\,
    h(1 \pm \delta)`.  The result is cached.

    Returns
    -------
    WindowDerivation
        The window's mean event count and its upper and lower Chernoff powers.

    References
    ----------
    See the module's References:

    - Dembo and Zeitouni (1998), Sec. 2.2 (Chernoff bounds and the Legendre transform);
    - Bray (2026), "Analytical Tools".

    Examples
    --------
    >>> f = derive_window()
    >>> f.mean_events.expr
    c*(lambda_H + lambda_L + mu)*log(N)
    >>> f.upper_power.expr
    c*(lambda_H + lambda_L + mu)*(delta*log(delta + 1) - delta + log(delta + 1))
    """
    rate = lambda_h + lambda_l + mu
    window = window_constant * sp.log(servers) / servers
    events = sp.simplify(rate * servers * window)
    exponent = derive_poisson().exponent.expr.subs(mean, events)

    def power(scale):
        per_log = exponent.subs(tail_level, scale * events) / sp.log(servers)
        return sp.factor(sp.expand_log(sp.simplify(per_log), force=True))

    power_args = (lambda_h, lambda_l, mu, window_constant, relative_deviation)
    return WindowDerivation(
        mean_events=Formula(
            "window_mean_events", events, (servers, lambda_h, lambda_l, mu, window_constant)
        ),
        upper_power=Formula("window_upper_power", power(1 + relative_deviation), power_args),
        lower_power=Formula("window_lower_power", power(1 - relative_deviation), power_args),
    )


def window_mean_events(net: LossNetwork, c: float) -> float:
    """The mean number of clock-model events in the window W = c log N / N.

    Parameters
    ----------
    net : LossNetwork
        The network (N >= 2).
    c : float
        The window constant c > 0.

    Returns
    -------
    float
        M = (λ_H + λ_L + μ) N W = ``net.event_rate * net.window(c)`` (the Sympy form
        :func:`derive_window` is M = (λ_H + λ_L + μ) c log N).

    Raises
    ------
    TypeError
        If ``net`` is not a LossNetwork.
    ValueError
        If ``c`` is not > 0, N < 2, or W underflows.

    References
    ----------
    See the module's References: Bray (2026); docs/loss-network.md.

    Examples
    --------
    >>> net = LossNetwork(1000, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> round(window_mean_events(net, 2.0), 9) == round(2.4 * 2 * math.log(1000), 9)
    True
    """
    return checked_network(net).event_rate * net.window(c)


def checked_network(net: object) -> LossNetwork:
    return two_classes(net)


def log_window_event_bound(net: LossNetwork, c: float, delta: float, tail: str = "upper") -> float:
    """Log of the Chernoff bound on P(events in W >= (1 + δ) M) (``"upper"``) or
    P(events in W <= (1 − δ) M) (``"lower"``, 0 < δ <= 1): −κ log N, see
    :func:`derive_window`.

    Parameters
    ----------
    net : LossNetwork
        The network (N >= 2).
    c : float
        The window constant c > 0: W = ``net.window(c)``.
    delta : float
        The relative deviation δ > 0 (<= 1 for the lower tail).
    tail : {"upper", "lower"}, optional
        Which tail.

    Returns
    -------
    float
        The log of the bound (<= 0; −inf for an impossible event).

    Raises
    ------
    TypeError
        If ``net`` is not a LossNetwork.
    ValueError
        If ``c`` or ``delta`` is out of range or ``tail`` is invalid.

    References
    ----------
    See the module's References:

    - Dembo and Zeitouni (1998), Sec. 2.2 (Chernoff bounds, Cramér's theorem);
    - Bray (2026), "Analytical Tools"; docs/loss-network.md.

    Examples
    --------
    >>> net = LossNetwork(1000, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> round(log_window_event_bound(net, 2.0, 1.0, "upper") / math.log(1000), 10)  # 4.8 h(2)
    -1.8542129334
    """
    events = window_mean_events(net, c)
    delta = validation.positive("delta", delta)
    if check_tail(tail) == "lower" and delta > 1:
        raise ValueError(f"delta must be <= 1 for the lower tail, got {delta}")
    scale = 1 + delta if tail == "upper" else 1 - delta
    return float(log_poisson_tail_bound(events, scale * events, tail))


def window_event_bound(net: LossNetwork, c: float, delta: float, tail: str = "upper") -> float:
    """The bound N^{-κ} itself (see :func:`log_window_event_bound`).

    Parameters
    ----------
    net : LossNetwork
        The network (N >= 2).
    c : float
        The window constant c > 0: W = ``net.window(c)``.
    delta : float
        The relative deviation δ > 0 (<= 1 for the lower tail).
    tail : {"upper", "lower"}, optional
        Which tail.

    Returns
    -------
    float
        The bound in [0, 1].

    Raises
    ------
    TypeError
        If ``net`` is not a LossNetwork.
    ValueError
        If ``c`` or ``delta`` is out of range or ``tail`` is invalid.

    References
    ----------
    See the module's References:

    - Dembo and Zeitouni (1998), Sec. 2.2 (Chernoff bounds, Cramér's theorem);
    - Bray (2026), "Analytical Tools"; docs/loss-network.md.

    Examples
    --------
    >>> net = LossNetwork(1000, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> round(window_event_bound(net, 2.0, 0.5, "lower") * 1000 ** (4.8 * 0.1534264097), 6)
    1.0
    """
    return math.exp(log_window_event_bound(net, c, delta, tail))
