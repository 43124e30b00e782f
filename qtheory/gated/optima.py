"""The records of the gated model's optima: the gate GA chooses and the rate RR chooses.

One record per policy for every route that optimises it (the linear-cost optimum of
:mod:`qtheory.gated.welfare`, the Erlang gates of :mod:`qtheory.gated.phase_gates`,
phase-type service and renewal arrivals of :mod:`qtheory.gated.service`, the observable
bound, and any cost or arrival law of :mod:`qtheory.gated.cost_optimum`); the variant is a
field of the record (``phases``, ``service``), not a record of its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import TypeVar

import mpmath

from qtheory.core.printing import html_table, number, quantities

__all__ = ["GateOptimum", "RoutingOptimum", "as_float64", "float64_value"]

Real = float | mpmath.mpf


class _Shown:
    """The displays of an optimum record (:mod:`qtheory.core.printing`, six digits; the
    record keeps every digit), from its ``_title()`` and ``_quantities()``."""

    def _title(self) -> str:
        raise NotImplementedError

    def _quantities(self) -> list[tuple[str, Real]]:
        raise NotImplementedError

    def __str__(self) -> str:
        """``GA gate (proved unique): τ* = 2.06358, S_GA(τ*) = …``."""
        return f"{self._title()}: {quantities(self._quantities())[0]}"

    def _repr_latex_(self) -> str:
        """IPython's LaTeX display: the quantities in mathematics."""
        return f"{self._title()}: {quantities(self._quantities())[1]}"

    def _repr_html_(self) -> str:
        """IPython's HTML display: a table of the quantities."""
        return _html(self._title(), self._quantities())


@dataclass(frozen=True)
class GateOptimum(_Shown):
    """The welfare-maximising gate τ* and the queue it produces.

    One record for every variant of the gate problem: the service law (``service``:
    exponential, where the waiting time is geometric with root σ, or a phase-type law)
    and the gate's law (``phases``).

    Attributes
    ----------
    gate : float or mpmath.mpf
        τ* ≥ 0.
    root, log_root : float, mpmath.mpf or None
        σ at τ* and w = −log σ; None when the service is not exponential (the waiting
        time of GI/PH/1 has no single geometric root).
    welfare : float or mpmath.mpf
        S_GA(τ*), welfare per unit time.
    throughput : float or mpmath.mpf
        Admitted customers per unit time, 1/(τ* + 1/Λ) (1/E[A] with renewal arrivals).
    mean_sojourn : float or mpmath.mpf
        E[W] + 1/μ at τ*: 1/(μ(1 − σ)) with exponential service.
    at_boundary : bool
        True when τ* = 0 (the constraint τ ≥ 0 binds).
    phases : int or None
        The gate's law: None for GA's deterministic gate, m for an Erlang-m blocking
        period of mean τ* (:func:`~qtheory.gated.phase_gates.optimal_erlang_gate`; there
        ``welfare`` is S_m(τ*)).
    attained : bool
        False when ``welfare`` is a supremum that no gate reaches: approached as σ → 1
        (a bounded cost in heavy traffic; then ``gate`` is the limit of τ(σ)), or as τ → ∞
        when no admission earns positive welfare (then ``gate`` is inf, ``welfare`` 0).
    evidence : str or None
        What makes it the optimum: ``"proved unique"`` (one critical point where the
        welfare is positive, proved for the model), or ``"numerical"`` followed by the
        search that found it (:mod:`qtheory.gated.cost_optimum`); None where the
        function that made it documents it.
    service : str or None
        The service law: None for exponential service, else the law of
        :func:`~qtheory.gated.service.optimal_gate_ph` (its spec, such as
        ``"erlang:4"``, or the ``str`` of its PhaseType).
    mean_wait, prob_wait : float or None
        E[W] and P(W > 0) at τ*, from the GI/PH/1 ladder heights
        (:func:`~qtheory.gated.service.optimal_gate_ph`); None where the record's maker
        does not compute them (with exponential service they are
        ``mean_sojourn − 1/μ`` and σ).

    Examples
    --------
    >>> from qtheory.gated.welfare import optimal_gate
    >>> from qtheory.model.gated import GatedQueue
    >>> opt = optimal_gate(GatedQueue(float("inf"), 1.0, 3.0, 1.0))
    >>> round(opt.throughput * opt.gate, 12), round(opt.mean_sojourn * (1 - opt.root), 12)
    (1.0, 1.0)
    >>> print(opt)
    GA gate: τ* = 1.70951, S_GA(τ*) = 0.913728, σ* = 0.304576, λ_GA(τ*) = 0.584963, E[S] = 1.43797

    References
    ----------
    .. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
       queues", arXiv:2606.02464 (2026).
    """

    gate: Real
    root: Real | None
    log_root: Real | None
    welfare: Real
    throughput: Real
    mean_sojourn: Real
    at_boundary: bool
    phases: int | None = None
    attained: bool = field(default=True, repr=False)
    evidence: str | None = field(default=None, repr=False)
    service: str | None = None
    mean_wait: Real | None = None
    prob_wait: Real | None = None

    # displays (qtheory.core.printing): six digits; the record keeps them all

    def _quantities(self) -> list[tuple[str, Real]]:
        pairs = [("tau_star", self.gate), ("welfare_ga", self.welfare)]
        pairs += [] if self.root is None else [("sigma_star", self.root)]
        return [*pairs, ("throughput_ga", self.throughput), ("E_S", self.mean_sojourn)]

    def _title(self) -> str:
        gate = "GA gate" if self.phases is None else f"Erlang-{self.phases} gate"
        gate += "" if self.service is None else f", {self.service} service"
        if mpmath.isinf(self.gate):  # no admission earns positive welfare
            return f"{gate} (nobody admitted{'; ' + self.evidence if self.evidence else ''})"
        return gate + _qualifier(self.attained, self.at_boundary, self.evidence)


@dataclass(frozen=True)
class RoutingOptimum(_Shown):
    """The welfare-maximising random-routing admission rate λ*.

    Attributes
    ----------
    rate : float or mpmath.mpf
        λ* = min(Λ, μ − √(μC/R)).
    welfare : float or mpmath.mpf
        S_RR(λ*).
    at_boundary : bool
        True when λ* = Λ (admitting everybody is optimal).
    attained, evidence : bool, str or None
        As for :class:`GateOptimum`: a supremum approached as λ → μ is not attained.

    Examples
    --------
    >>> from qtheory.gated.welfare import optimal_routing
    >>> from qtheory.model.gated import GatedQueue
    >>> opt = optimal_routing(GatedQueue(float("inf"), 1.0, 9.0, 1.0))  # λ* = 1 − 1/3
    >>> round(opt.rate, 6), round(opt.welfare, 6), opt.at_boundary  # C(√ν − 1)² = 4
    (0.666667, 4.0, False)
    >>> print(opt)
    RR rate: λ* = 0.666667, S_RR(λ*) = 4

    References
    ----------
    .. [1] N. M. Edelson and D. K. Hildebrand, "Congestion tolls for Poisson queuing
       processes", Econometrica 43(1):81-92 (1975).
    """

    rate: Real
    welfare: Real
    at_boundary: bool
    attained: bool = field(default=True, repr=False)
    evidence: str | None = field(default=None, repr=False)

    def _quantities(self) -> list[tuple[str, Real]]:
        return [("rate_rr", self.rate), ("welfare_rr", self.welfare)]

    def _title(self) -> str:
        return "RR rate" + _qualifier(self.attained, self.at_boundary, self.evidence)


def _qualifier(attained: bool, at_boundary: bool, evidence: str | None) -> str:
    """`` (at the boundary; proved unique)``: what a display says beside the numbers."""
    notes = [] if attained else ["a supremum, not attained"]
    notes += ["at the boundary"] if at_boundary else []
    notes += [evidence] if evidence else []
    return f" ({'; '.join(notes)})" if notes else ""


def _html(title: str, pairs: list[tuple[str, Real]]) -> str:
    from qtheory.core import notation

    return html_table([("", title), *((notation.text(k), number(v)) for k, v in pairs)])


Optimum = TypeVar("Optimum", GateOptimum, RoutingOptimum)


def as_float64(optimum: Optimum) -> Optimum:
    """The same record with every mpf field converted to float64.

    Parameters
    ----------
    optimum : GateOptimum or RoutingOptimum

    Returns
    -------
    The same type, float64 fields.

    Raises
    ------
    ValueError
        A field beyond float64 (named).

    Examples
    --------
    >>> as_float64(RoutingOptimum(mpmath.mpf(1) / 4, mpmath.mpf(2), False))
    RoutingOptimum(rate=0.25, welfare=2.0, at_boundary=False)
    """
    values = {}
    for item in fields(optimum):
        value = getattr(optimum, item.name)
        if isinstance(value, mpmath.mpf):
            value = float64_value(item.name, value)
        values[item.name] = value
    return type(optimum)(**values)


def float64_value(name: str, value: mpmath.mpf) -> float:
    """``value`` as float64; a ValueError naming ``name`` if it overflows.

    Parameters
    ----------
    name : str
        What ``value`` is, for the error.
    value : mpmath.mpf

    Returns
    -------
    float
        ``float(value)``; ±inf only when ``value`` itself is infinite.

    Examples
    --------
    >>> float64_value("welfare", mpmath.mpf("1e400"))
    Traceback (most recent call last):
    ...
    ValueError: welfare = 1.0e+400 overflows float64 for these parameters; use dps=D
    """
    result = float(value)
    if math.isinf(result) and mpmath.isfinite(value):
        raise ValueError(
            f"{name} = {mpmath.nstr(value, 5)} overflows float64 for these parameters; use dps=D"
        )
    return result
