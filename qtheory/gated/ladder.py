r"""The value of memory, rung by rung, for one unobservable M/M/1 queue.

Every admission policy below sees only its own past admissions (never the queue),
except the last, which bounds them all:

====================  ==============================================================
rung                  policy
====================  ==============================================================
``rr``                random routing: admit a Poisson(λ) thinning (no memory)
``ph`` (per m)        Erlang-m gate after each admission (state: open, or closed in
                      one of m phases; no clock)
``ga``                deterministic gate τ after each admission (GA: one bit, open or
                      closed, plus a clock that times the gate)
``full_memory_*``     the best gate policy that knows every past admission time (a
                      gate, then the first arrival): a lower and an upper bound
                      (:mod:`qtheory.gated.history`; window rules, which also turn
                      away arrivals after the gate opens, only under Hajek's bound)
``observable``        Naor's observable queue at its social optimum (the ceiling)
====================  ==============================================================

Each rung carries its welfare per unit time, its Price of Forgetting PoF = S/S_RR*,
and the kind of evidence behind the number; :meth:`Ladder.gaps` gives the steps between
consecutive rungs in absolute terms and as ratios.  The order
RR ≤ PH(1) ≤ … ≤ PH(m) ≤ GA ≤ full memory ≤ observable is checked by
:meth:`Ladder.ordered` (RR = PH(1) when Λ = ∞).

References
----------
.. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026).
.. [2] P. Naor, "The regulation of queue size by levying tolls", Econometrica
   37(1):15-24 (1969).
.. [3] N. M. Edelson and D. K. Hildebrand, "Congestion tolls for Poisson queuing
   processes", Econometrica 43(1):81-92 (1975).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from qtheory.core.phase_type import PhaseType
from qtheory.core.printing import latex_number, number
from qtheory.core.records import Records
from qtheory.gated.observable import optimal_observable
from qtheory.gated.phase_gates import checked_phases, optimal_erlang_gate
from qtheory.gated.welfare import optimal_gate, optimal_routing
from qtheory.model.gated import GatedQueue, checked_queue

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["DEFAULT_PHASES", "Ladder", "Rung", "ladder"]

#: m = 1..DEFAULT_PHASES Erlang gates unless asked otherwise.
DEFAULT_PHASES = 8
#: Relative slack of :meth:`Ladder.ordered` (float64 optima).
ORDER_TOLERANCE = 1e-12
#: The module of the full-memory bracket (another part of the package).
HISTORY_MODULE = "qtheory.gated.history"
#: The evidence kinds of the rungs, values of :class:`qtheory.core.claims.Evidence`
#: (as text: that module imports the statistics stack, which no rung needs;
#: ``tests/gated/test_ladder.py`` checks that they are Evidence values).
IDENTITY, NUMERICAL = "identity", "numerical"
#: How a display names the rungs (``ph[m]`` is shown as ``PH(m)``).
_LABELS = {
    "rr": "RR",
    "ga": "GA",
    "full_memory_lower": "full memory (lower)",
    "full_memory_upper": "full memory (upper)",
}


def _label(name: str) -> str:
    if name.startswith("ph["):
        return f"PH({name[3:-1]})"
    return _LABELS.get(name, name)


@dataclass(frozen=True)
class Rung:
    """One rung of the ladder.

    Attributes
    ----------
    name : str
        ``"rr"``, ``"ph[m]"``, ``"ga"``, ``"full_memory_lower"``,
        ``"full_memory_upper"`` or ``"observable"``.
    welfare : float or None
        Welfare per unit time; None when the rung was not computed.
    pof : float or None
        welfare/S_RR*.
    kind : str
        The :class:`qtheory.core.claims.Evidence` kind behind the number, or
        ``"not computed"``.
    method : str
        How the number was obtained: a sentence of :mod:`qtheory.core.markup` (``$...$``
        mathematics, ```...``` code), which the CLI and the report render for their medium.

    Examples
    --------
    >>> Rung("ga", 1.5, 1.5, "numerical", "root of the first-order condition").to_json()["pof"]
    1.5
    """

    name: str
    welfare: float | None
    pof: float | None
    kind: str
    method: str

    def to_json(self) -> dict[str, object]:
        """The rung as a JSON-ready dict (keys ``welfare``, ``pof``, ``kind``, ``method``)."""
        return {"welfare": self.welfare, "pof": self.pof, "kind": self.kind, "method": self.method}


@dataclass(frozen=True)
class Ladder:
    """Every rung for one queue (see the module notes).

    Attributes
    ----------
    queue : GatedQueue
    rr, ga, observable : Rung
    ph : dict of int to Rung
        The Erlang-m gates, by m.
    full_memory_lower, full_memory_upper : Rung
        The bracket of the best full-memory policy (``welfare`` None when
        :mod:`qtheory.gated.history` is not available).
    observable_threshold : int or None
        Naor's n* (None when the observable rung is not computed).

    Examples
    --------
    >>> steps = ladder(GatedQueue("inf", 1, 4, 1), phases=2, full_memory=False).gaps()
    >>> [(s["lower"], s["upper"]) for s in steps]
    [('rr', 'ph[2]'), ('ph[2]', 'ga'), ('ga', 'observable')]
    """

    queue: GatedQueue
    rr: Rung
    ph: dict[int, Rung]
    ga: Rung
    full_memory_lower: Rung
    full_memory_upper: Rung
    observable: Rung
    observable_threshold: int | None

    def rungs(self) -> list[Rung]:
        """The rungs in ladder order (RR, PH(1..m), GA, full memory, observable)."""
        return [
            self.rr,
            *self.ph.values(),
            self.ga,
            self.full_memory_lower,
            self.full_memory_upper,
            self.observable,
        ]

    def gaps(self) -> list[dict[str, object]]:
        """Steps between consecutive computed rungs: RR → PH(largest m) → GA → full
        memory (lower, upper) → observable; each with ``absolute`` = upper − lower and
        ``ratio`` = upper/lower (welfare).

        Returns
        -------
        list of dict
            Keys ``lower``, ``upper`` (rung names), ``absolute``, ``ratio``.
        """
        chain = [self.rr, self.ph[max(self.ph)], self.ga, self.full_memory_lower]
        chain += [self.full_memory_upper, self.observable]
        chain = [r for r in chain if r.welfare is not None]
        return [
            {
                "lower": low.name,
                "upper": high.name,
                "absolute": high.welfare - low.welfare,
                "ratio": high.welfare / low.welfare,
            }
            for low, high in zip(chain, chain[1:], strict=False)
        ]

    def ordered(self, tolerance: float = ORDER_TOLERANCE) -> bool:
        """True when the computed rungs increase up the ladder (within ``tolerance``
        relative to the highest computed rung).

        >>> ladder(GatedQueue(2.0, 1, 5, 1), phases=3, full_memory=False).ordered()
        True
        """
        values = [r.welfare for r in self.rungs() if r.welfare is not None]
        slack = tolerance * abs(max(values))
        return all(low <= high + slack for low, high in zip(values, values[1:], strict=False))

    def to_frame(self) -> pd.DataFrame:
        """The rungs in ladder order as a DataFrame: columns ``name``, ``welfare``,
        ``pof``, ``kind``, ``method`` (:mod:`qtheory.core.records`).

        >>> frame = ladder(GatedQueue("inf", 1, 4, 1), phases=2, full_memory=False).to_frame()
        >>> frame.name.tolist()[:4], frame.pof.tolist()[0]
        (['rr', 'ph[1]', 'ph[2]', 'ga'], 1.0)
        """
        return Records(self.rungs()).to_frame()

    # displays (qtheory.core.printing): six digits; the rungs keep them all

    def _rows(self) -> list[tuple[str, str, str, str]]:
        """(rung, welfare, PoF, evidence) as display text, the rungs computed."""
        return [
            (_label(r.name), number(r.welfare), number(r.pof), r.kind)
            for r in self.rungs()
            if r.welfare is not None
        ]

    def __str__(self) -> str:
        """The computed rungs, one per line: label, welfare, PoF and evidence.

        >>> print(ladder(GatedQueue("inf", 1, 4, 1), phases=1, full_memory=False))
        rung        welfare      PoF  evidence
        RR                1        1  identity
        PH(1)             1        1  numerical
        GA          1.52961  1.52961  numerical
        observable        3        3  numerical
        """
        rows = [("rung", "welfare", "PoF", "evidence"), *self._rows()]
        widths = [max(len(row[j]) for row in rows) for j in range(4)]
        return "\n".join(
            f"{a:<{widths[0]}}  {b:>{widths[1]}}  {c:>{widths[2]}}  {d}" for a, b, c, d in rows
        )

    def _repr_html_(self) -> str:
        """IPython's HTML display: the table of :meth:`__str__`."""
        import html

        head = "".join(f"<th>{h}</th>" for h in ("rung", "welfare", "PoF", "evidence"))
        body = "".join(
            "<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>"
            for row in self._rows()
        )
        return f"<table><tr>{head}</tr>{body}</table>"

    def _repr_latex_(self) -> str:
        """IPython's LaTeX display: the table of :meth:`__str__` as an array."""
        lines = [
            rf"\text{{{label}}} & {latex_number(welfare)} & {latex_number(pof)} & \text{{{kind}}}"
            for label, welfare, pof, kind in self._rows()
        ]
        head = r"\text{rung} & S & \mathrm{PoF} & \text{evidence}"
        return r"$$\begin{array}{lrrl}" + r" \\ ".join([head, *lines]) + r"\end{array}$$"

    def to_json(self) -> dict[str, object]:
        """The ladder as a JSON-ready dict: keys ``rr``, ``ph`` (by m, as strings),
        ``ga``, ``full_memory_lower``, ``full_memory_upper``, ``observable`` (each a
        :meth:`Rung.to_json`, the observable with its ``threshold``), ``gaps`` and
        ``ordered``.

        >>> sorted(ladder(GatedQueue("inf", 1, 3, 1), 1, full_memory=False).to_json())[:4]
        ['full_memory_lower', 'full_memory_upper', 'ga', 'gaps']
        """
        return {
            "rr": self.rr.to_json(),
            "ph": {str(m): rung.to_json() for m, rung in self.ph.items()},
            "ga": self.ga.to_json(),
            "full_memory_lower": self.full_memory_lower.to_json(),
            "full_memory_upper": self.full_memory_upper.to_json(),
            "observable": {**self.observable.to_json(), "threshold": self.observable_threshold},
            "gaps": self.gaps(),
            "ordered": self.ordered(),
        }


def _history() -> object | None:
    """:mod:`qtheory.gated.history`, imported on use (None when it is not installed)."""
    if importlib.util.find_spec(HISTORY_MODULE) is None:
        return None
    return importlib.import_module(HISTORY_MODULE)


def _full_memory(bracket: object | None, rr: float) -> tuple[Rung, Rung]:
    """The full-memory rungs of a bracket of :func:`_bracket`; two "not computed" rungs
    for None.  The methods are the bracket's own evidence texts (``lower_evidence`` and
    ``lower_policy``, ``upper_evidence``; a single ``evidence`` text if that is all it
    has)."""
    names = ("full_memory_lower", "full_memory_upper")
    if bracket is None:
        method = f"not computed: {HISTORY_MODULE} is not available"
        return tuple(Rung(name, None, None, "not computed", method) for name in names)
    common = getattr(bracket, "evidence", "")
    lower_method = getattr(bracket, "lower_evidence", common)
    if getattr(bracket, "lower_policy", ""):
        lower_method = f"{bracket.lower_policy}; {lower_method}"
    methods = (lower_method, getattr(bracket, "upper_evidence", common))
    return tuple(
        Rung(name, float(value), float(value) / rr, NUMERICAL, method)
        for name, value, method in zip(names, (bracket.lower, bracket.upper), methods, strict=True)
    )


def ladder(
    queue: GatedQueue,
    phases: int | Iterable[int] = DEFAULT_PHASES,
    *,
    full_memory: bool = True,
    service: str | PhaseType | None = None,
    on_rung: Callable[[Rung], object] | None = None,
) -> Ladder:
    """Compute every rung of the ladder for ``queue`` (float64).

    Every cost estimate comes first; then the rungs are computed in ladder order, each
    passed to ``on_rung`` as soon as it is known (``qtheory gated ladder`` prints it
    then: RR and the gates take milliseconds, the full-memory bracket about a second).

    Parameters
    ----------
    queue : GatedQueue
        The queue; ν = Rμ/C > 1.
    phases : int or iterable of int
        M (the Erlang gates m = 1..M) or the values of m themselves; default
        :data:`DEFAULT_PHASES`.
    full_memory : bool, keyword-only
        Compute the full-memory bracket (if :mod:`qtheory.gated.history` is
        available); False leaves those rungs "not computed".
    service : str or PhaseType, keyword-only, optional
        Phase-type service of mean 1/μ (``"erlang:4"``, ``"hyperexp:16"``, any spec of
        :func:`qtheory.core.phase_type.service_law`); default exponential.  Then RR is
        M/PH/1 (Pollaczek–Khinchine), GA and the Erlang gates GI/PH/1 (the ladder-height
        fixed point, :mod:`qtheory.gated.service`), and the full-memory and observable
        rungs, whose routes assume exponential service, are "not computed".
    on_rung : callable, keyword-only, optional
        Called with each :class:`Rung`, in the order of :meth:`Ladder.rungs`, as it is
        computed.

    Returns
    -------
    Ladder

    Raises
    ------
    TypeError
        ``queue`` not a GatedQueue.
    ValueError
        ν ≤ 1, an m < 1, or a ``service`` that is not a phase-type law (naming
        ``service``); with ``full_memory``, parameters that float64 cannot carry or a
        bracket above :mod:`qtheory.core.limits` (naming the parameter and the limit),
        refused before any rung is computed (see
        :func:`qtheory.gated.history.full_memory_bracket`); with ``service``, a law
        whose phases make the GI/PH/1 routes exceed the limits.
    ArithmeticError
        A numerical method that gave up (its message says what to change).

    Examples
    --------
    Λ = ∞, μ = C = 1, ν = 4: RR = PH(1) = 1, GA's PoF 1.5296, the ceiling C(ν − 1) = 3:

    >>> lad = ladder(GatedQueue("inf", 1, 4, 1), phases=4, full_memory=False)
    >>> [(r.name, round(r.pof, 4)) for r in lad.rungs() if r.pof is not None][1:5]
    [('ph[1]', 1.0), ('ph[2]', 1.2228), ('ph[3]', 1.3134), ('ph[4]', 1.3626)]
    >>> round(lad.ga.pof, 4), lad.observable.pof, lad.full_memory_lower.welfare
    (1.5296, 3.0, None)

    References
    ----------
    See the module's References: Hassin and Ravner (2026).
    """
    queue = checked_queue(queue)
    queue.require_worthwhile()
    ms = range(1, checked_phases(phases) + 1) if isinstance(phases, int) else sorted(set(phases))
    ms = [checked_phases(m) for m in ms]
    if not ms:
        raise ValueError("phases must name at least one m >= 1")
    emit = on_rung if on_rung is not None else _ignore
    if service is not None:
        return _phase_type_ladder(queue, ms, service, emit)
    # first: the bracket's estimates, which refuse what exceeds the limits
    history = _history() if full_memory else None
    if history is not None:
        history.require_full_memory_bracket(queue)
    observable = optimal_observable(queue)  # cheap; it too may refuse: before any rung
    s_rr = optimal_routing(queue).welfare

    def rung(name: str, welfare: float, kind: str, method: str) -> Rung:
        done = Rung(name, float(welfare), float(welfare) / s_rr, kind, method)
        emit(done)
        return done

    rr = rung(
        "rr",
        s_rr,
        IDENTITY,
        r"closed form $\lambda^* = \min(\Lambda, \mu - \sqrt{\mu C/R})$ (Sympy derivation)",
    )
    ph = {
        m: rung(
            f"ph[{m}]",
            optimal_erlang_gate(queue, m).welfare,
            NUMERICAL,
            f"Erlang-{m} gate: mpmath root of the first-order condition in "
            r"$w = -\log\sigma$, rounded to float64",
        )
        for m in ms
    }
    ga = rung(
        "ga",
        optimal_gate(queue).welfare,
        NUMERICAL,
        "mpmath root of the first-order condition, rounded to float64 (not certified "
        "here; `qtheory gated --certify` prints a certified enclosure)",
    )
    if full_memory:
        bracket = history.full_memory_bracket(queue) if history is not None else None
        lower, upper = _full_memory(bracket, s_rr)
    else:
        lower, upper = (
            Rung(name, None, None, "not computed", "not asked for (full_memory=False)")
            for name in ("full_memory_lower", "full_memory_upper")
        )
    emit(lower)
    emit(upper)
    return Ladder(
        queue=queue,
        rr=rr,
        ph=ph,
        ga=ga,
        full_memory_lower=lower,
        full_memory_upper=upper,
        observable=rung(
            "observable",
            observable.welfare,
            NUMERICAL,
            f"M/M/1/$n$ closed form at Naor's social threshold $n^* = {observable.threshold}$"
            + (
                r" ($\Lambda = \infty$: the system always holds $n^*$ customers)"
                if observable.blocking == 1
                else ""
            ),
        ),
        observable_threshold=observable.threshold,
    )


def _ignore(rung: Rung) -> None:
    """The default ``on_rung`` of :func:`ladder`: nothing."""


def _phase_type_ladder(
    queue: GatedQueue, ms: list[int], service: str | PhaseType, emit: Callable[[Rung], object]
) -> Ladder:
    """The ladder under phase-type service: RR, the Erlang gates and GA by the GI/PH/1
    and M/PH/1 routes of :mod:`qtheory.gated.service`; the rungs whose routes assume
    exponential service are "not computed"."""
    from qtheory.core.phase_type import erlang, service_law
    from qtheory.gated.service import optimal_gate_ph, optimal_routing_ph, require_phase_type

    require_phase_type(service, [*ms, None])  # every gate's cost, before the law is built
    law = service_law(service)
    s_rr = optimal_routing_ph(queue, law).welfare
    gi_ph = "GI/PH/1 waiting time by the ladder-height fixed point (float64)"

    def rung(name: str, welfare: float, method: str) -> Rung:
        done = Rung(name, float(welfare), float(welfare) / s_rr, NUMERICAL, method)
        emit(done)
        return done

    def missing(name: str) -> Rung:
        method = "not computed: this route assumes exponential service"
        done = Rung(name, None, None, "not computed", method)
        emit(done)
        return done

    rr = rung("rr", s_rr, "M/PH/1 by Pollaczek-Khinchine, closed-form optimal rate")
    ph = {
        m: rung(
            f"ph[{m}]",
            optimal_gate_ph(queue, law, gate_shape=erlang(m, m)).welfare,
            f"Erlang-{m} gate: {gi_ph}",
        )
        for m in ms
    }
    return Ladder(
        queue=queue,
        rr=rr,
        ph=ph,
        ga=rung("ga", optimal_gate_ph(queue, law).welfare, f"deterministic gate: {gi_ph}"),
        full_memory_lower=missing("full_memory_lower"),
        full_memory_upper=missing("full_memory_upper"),
        observable=missing("observable"),
        observable_threshold=None,
    )
