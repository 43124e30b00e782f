"""Parameters of the unobservable M/M/1 queue with admission control."""

from __future__ import annotations

from dataclasses import dataclass

import mpmath

Number = float | int | str | mpmath.mpf


def _checked(name: str, value: Number, *, allow_inf: bool = False) -> float | mpmath.mpf:
    """Validate ``value > 0``; keep strings and mpf at full precision, floats as floats."""
    try:
        exact = mpmath.mpf(value)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{name} must be a real number, got {value!r}") from error
    if mpmath.isnan(exact):
        raise ValueError(f"{name} must not be NaN")
    if not exact > 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    if mpmath.isinf(exact) and not allow_inf:
        raise ValueError(f"{name} must be finite, got {value!r}")
    return float(value) if isinstance(value, int | float) else exact


@dataclass(frozen=True)
class GatedQueue:
    """An unobservable M/M/1 queue with reward and waiting cost.

    Parameters may be floats, or strings / ``mpmath.mpf`` to keep more digits than
    float64 for the high-precision routes (``dps=``).

    Parameters
    ----------
    arrival_rate
        Rate Λ of potential customers; ``math.inf`` (or ``"inf"``) is the deterministic
        limit.
    service_rate
        Exponential service rate μ.
    reward
        Reward R of each served customer.
    cost
        Cost C per customer per unit time in the system.

    Examples
    --------
    >>> q = GatedQueue(arrival_rate=2.0, service_rate=1.0, reward=5.0, cost=1.0)
    >>> q.naor_ratio
    5.0
    >>> GatedQueue(arrival_rate=-1.0, service_rate=1.0, reward=5.0, cost=1.0)
    Traceback (most recent call last):
    ...
    ValueError: arrival_rate must be > 0, got -1.0
    """

    arrival_rate: Number
    service_rate: Number
    reward: Number
    cost: Number

    def __post_init__(self) -> None:
        object.__setattr__(
            self, "arrival_rate", _checked("arrival_rate", self.arrival_rate, allow_inf=True)
        )
        for name in ("service_rate", "reward", "cost"):
            object.__setattr__(self, name, _checked(name, getattr(self, name)))

    @property
    def naor_ratio(self) -> float:
        """ν = Rμ/C (float64): serving anybody is worth it only if ν > 1."""
        return float(self.reward) * float(self.service_rate) / float(self.cost)

    def require_worthwhile(self) -> None:
        """Raise ``ValueError`` unless ν = Rμ/C > 1 (otherwise the optimum serves nobody)."""
        nu = mpmath.mpf(self.reward) * mpmath.mpf(self.service_rate) / mpmath.mpf(self.cost)
        if not nu > 1:
            raise ValueError(
                "reward*service_rate/cost (Naor's ratio nu) must be > 1 for an optimum to "
                f"exist, got {float(nu)!r}"
            )

    def parameters(self, dps: int | None = None) -> dict[str, float | mpmath.mpf]:
        """μ, β = 1/Λ, R, C as float64 (``dps=None``) or as mpf at the current precision."""
        convert = float if dps is None else mpmath.mpf
        arrival = convert(self.arrival_rate)
        return {
            "mu": convert(self.service_rate),
            "beta": convert(0) if arrival == convert("inf") else 1 / arrival,
            "R": convert(self.reward),
            "C": convert(self.cost),
        }
