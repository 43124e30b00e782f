r"""Claims as checkable records that say what kind of evidence stands behind them.

Every statement the package checks becomes a function that computes the quantities
involved and returns a :class:`Claim`: the report (:mod:`qtheory.report.claims`), the
generated derivations and the tests consume the same records, so the text never says
more than the record checked.

A claim's :class:`Evidence` is one of

``identity``
    Sympy proves it symbolically (the difference simplifies to 0).
``certified``
    A rigorous enclosure (ball arithmetic or exact rationals) decides it; the claim
    carries a *certificate*, the data that the independent checker
    :mod:`qtheory.verify` needs to decide it again.
``numerical``
    A float compared with a reference within a tolerance; allowed only where
    certification is impractical, and the claim says why (``reason``).
``statistical``
    A 95% confidence interval decides it (false-alarm rate 5% per interval unless the
    statement says otherwise); the claim carries the :class:`~qtheory.core.stats.Estimate`.
``finite-range``
    An asymptotic statement (O(1), Θ(log N), a limit) tested over the finite range
    ``scope`` states; never reported as proved.

and its :class:`Origin` says honestly whose statement it is.

Examples
--------
>>> exact = Claim(name="demo.sum", statement="$1 + 1 = 2$", kind=Evidence.IDENTITY,
...               passed=True, origin=Origin.TEXTBOOK)
>>> from qtheory.core.stats import Estimate
>>> fit = Claim(name="demo.slope", statement="the slope is 1", kind=Evidence.STATISTICAL,
...             passed=False, origin=Origin.PAPER, value=1.2, reference=1.0,
...             estimate=Estimate(1.2, 0.1, 12, "regression", 10))
>>> claims_summary([exact, fit])
'1 identity, 1 statistical; 1 FAIL: demo.slope'
>>> fit.ci_halfwidth
0.1
>>> print(fit)  # a short line; IPython shows the statement (LaTeX) or a table (HTML)
demo.slope: FAIL, statistical; 1.20 ± 0.10 (95%) against 1
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from qtheory.core.stats import Estimate

__all__ = ["Claim", "Evidence", "Origin", "claims_summary", "in_set"]


class Evidence(StrEnum):
    """The kind of evidence behind a claim (see the module docstring).

    Examples
    --------
    >>> Evidence("finite-range") is Evidence.FINITE_RANGE, str(Evidence.CERTIFIED)
    (True, 'certified')
    """

    IDENTITY = "identity"
    CERTIFIED = "certified"
    NUMERICAL = "numerical"
    STATISTICAL = "statistical"
    FINITE_RANGE = "finite-range"


class Origin(StrEnum):
    """Whose statement a claim is.

    ``PAPER``: stated in the cited paper.  ``TEXTBOOK``: a classical result.
    ``PACKAGE``: this package's own construction (a bound or form the papers do not
    state).  ``HEURISTIC``: a heuristic (e.g. a balance argument), not proved; whether
    the numbers bear it out is the claim's own verdict and kind, not its origin.

    Examples
    --------
    >>> str(Origin.HEURISTIC)
    'a heuristic, not proved'
    """

    PAPER = "stated in the paper"
    TEXTBOOK = "textbook result"
    PACKAGE = "this package's construction"
    HEURISTIC = "a heuristic, not proved"


@dataclass(frozen=True, kw_only=True)
class Claim:
    """One checked statement and the evidence behind it.

    Attributes
    ----------
    name
        Short identifier, e.g. ``"gated.dominance"``.
    statement
        What was checked, no more: text with inline ``$...$`` mathematics.
    kind
        The :class:`Evidence` that decides it.
    passed
        Whether the check held.
    origin
        Whose statement it is (:class:`Origin`).
    citation
        Where it is stated, e.g. ``"[HR26], Theorem 2"`` (labels of
        ``docs/references.md``); empty for the package's own constructions.
    hypotheses
        The conditions under which it is stated (parameter conditions, information
        model), each in the same text-and-``$...$`` form as ``statement``.
    scope
        The parameters and sizes the check covered, e.g. ``"N = 10^2..10^4, 3
        parameter sets"``; required for ``finite-range`` claims.
    quantity
        What ``value`` measures.
    value, reference, tolerance
        The measured number, what it is compared with, and the allowed discrepancy
        (NaN where they do not apply, e.g. for an identity).
    estimate
        The :class:`~qtheory.core.stats.Estimate` behind ``value`` (its ``mean``); required
        for ``statistical`` claims.
    certificate
        For ``certified`` claims: a JSON-serialisable mapping with the key
        ``"checker"`` (the name of a checker of :mod:`qtheory.verify`) and the data it
        needs under ``"data"``.
    reason
        For ``numerical`` claims: why the claim is not certified.

    Raises
    ------
    ValueError
        If the fields do not fit the kind (a certified claim without certificate, a
        statistical one without estimate, a numerical one without reason, a
        finite-range one without scope), or a field has the wrong type.

    Examples
    --------
    >>> Claim(name="demo.x", statement="x", kind=Evidence.NUMERICAL, passed=True,
    ...       origin=Origin.PACKAGE)
    Traceback (most recent call last):
    ...
    ValueError: claim demo.x: a numerical claim must say why it is not certified (reason)
    >>> Claim(name="demo.x", statement="x", kind="certified", passed=True,
    ...       origin=Origin.PACKAGE)
    Traceback (most recent call last):
    ...
    ValueError: claim demo.x: kind must be an Evidence, got 'certified'
    """

    name: str
    statement: str
    kind: Evidence
    passed: bool
    origin: Origin
    citation: str = ""
    hypotheses: tuple[str, ...] = ()
    scope: str = ""
    quantity: str = ""
    value: float = math.nan
    reference: float = math.nan
    tolerance: float = math.nan
    estimate: Estimate | None = None
    certificate: Mapping | None = None
    reason: str = ""

    def __post_init__(self) -> None:
        def fail(rule: str) -> ValueError:
            return ValueError(f"claim {self.name}: {rule}")

        if not isinstance(self.kind, Evidence):
            raise fail(f"kind must be an Evidence, got {self.kind!r}")
        if not isinstance(self.origin, Origin):
            raise fail(f"origin must be an Origin, got {self.origin!r}")
        if not isinstance(self.passed, bool):
            raise fail(f"passed must be True or False, got {self.passed!r}")
        hypotheses = self.hypotheses
        if not (isinstance(hypotheses, tuple) and all(isinstance(h, str) for h in hypotheses)):
            raise fail(f"hypotheses must be a tuple of str, got {self.hypotheses!r}")
        if self.estimate is not None and not isinstance(self.estimate, Estimate):
            raise fail(f"estimate must be a qtheory.core.stats.Estimate, got {self.estimate!r}")
        required = {
            Evidence.CERTIFIED: (self.certificate is not None, "carries a certificate"),
            Evidence.STATISTICAL: (self.estimate is not None, "carries its estimate"),
            Evidence.NUMERICAL: (bool(self.reason), "must say why it is not certified (reason)"),
            Evidence.FINITE_RANGE: (bool(self.scope), "must state the range it covered (scope)"),
        }
        present, rule = required.get(self.kind, (True, ""))
        if not present:
            if rule.startswith("carries"):
                rule = f"must carry {rule.removeprefix('carries ')}"
            raise fail(f"a {self.kind} claim {rule}")
        certificate = self.certificate
        if certificate is not None and not (
            isinstance(certificate, Mapping) and isinstance(certificate.get("checker"), str)
        ):
            raise fail(f"certificate must be a mapping with a 'checker' name, got {certificate!r}")

    @property
    def ci_halfwidth(self) -> float:
        """Half-width of the 95% confidence interval of ``value``; NaN when exact.

        Examples
        --------
        >>> Claim(name="x", statement="s", kind=Evidence.IDENTITY, passed=True,
        ...       origin=Origin.TEXTBOOK).ci_halfwidth
        nan
        """
        return math.nan if self.estimate is None else self.estimate.halfwidth

    # displays: a short line for print, the statement for notebooks

    @property
    def verdict(self) -> str:
        """``"HOLDS"`` or ``"FAIL"``."""
        return "HOLDS" if self.passed else "FAIL"

    def _measured(self) -> str:
        """``value (± half-width) against reference``, or empty when there is no value."""
        if self.estimate is not None:
            measured = str(self.estimate)
        elif math.isfinite(self.value):
            measured = f"{self.value:.6g}"
        else:
            return ""
        return measured + (
            f" against {self.reference:.6g}" if math.isfinite(self.reference) else ""
        )

    def to_row(self) -> dict[str, object]:
        """The claim as one row of :meth:`qtheory.core.records.Records.to_frame`: name,
        kind, verdict, origin, citation, scope, quantity, value with its half-width,
        reference and tolerance (the statement, hypotheses and certificate are left to
        the record itself).

        >>> Claim(name="x", statement="s", kind=Evidence.IDENTITY, passed=True,
        ...       origin=Origin.TEXTBOOK).to_row()["verdict"]
        'HOLDS'
        """
        return {
            "name": self.name,
            "kind": self.kind.value,
            "verdict": self.verdict,
            "origin": self.origin.value,
            "citation": self.citation,
            "scope": self.scope,
            "quantity": self.quantity,
            "value": self.value,
            "halfwidth": self.ci_halfwidth,
            "reference": self.reference,
            "tolerance": self.tolerance,
        }

    def __str__(self) -> str:
        """One line: the name, the verdict, the evidence and the measured value, e.g.
        ``gated.dominance: HOLDS, certified; 0.185697 against 0.474832``
        (``qtheory.report.check.claim_text`` gives the whole record as text)."""
        measured = self._measured()
        return f"{self.name}: {self.verdict}, {self.kind}" + (f"; {measured}" if measured else "")

    def _repr_latex_(self) -> str:
        """IPython's LaTeX display: the statement (text with ``$...$``) and the verdict."""
        return f"{self.statement} ({self.verdict}; {self.kind} evidence)"

    def _repr_html_(self) -> str:
        """IPython's HTML display: the record as a two-column table, mathematics in
        Unicode (:func:`qtheory.core.notation.terminal`)."""
        from qtheory.core.notation import terminal
        from qtheory.core.printing import html_table

        origin = str(self.origin) + (f", {self.citation}" if self.citation else "")
        rows = [("claim", self.name), ("statement", terminal(self.statement))]
        rows += [("hypothesis", terminal(h)) for h in self.hypotheses]
        rows += [("scope", terminal(self.scope))] if self.scope else []
        rows += [("origin", origin)]
        rows += [("quantity", terminal(self.quantity))] if self.quantity else []
        rows += [("measured", self._measured())] if self._measured() else []
        rows += [("verdict", self.verdict), ("evidence", str(self.kind))]
        return html_table(rows)


_PLURAL = {Evidence.IDENTITY: "identities"}


def claims_summary(claims: Sequence[Claim]) -> str:
    """One line: how many claims of each kind were checked, and which fail.

    Parameters
    ----------
    claims : sequence of Claim

    Returns
    -------
    str
        The counts by kind, in the order of :class:`Evidence`, then ``"; 0 fail"`` or
        ``"; k FAIL: name, ..."``.

    Examples
    --------
    >>> a = Claim(name="a", statement="s", kind=Evidence.IDENTITY, passed=True,
    ...           origin=Origin.TEXTBOOK)
    >>> b = Claim(name="b", statement="s", kind=Evidence.FINITE_RANGE, passed=True,
    ...           origin=Origin.PAPER, scope="N = 10..100")
    >>> claims_summary([a, a, b])
    '2 identities, 1 finite-range; 0 fail'
    """
    counts = Counter(c.kind for c in claims)
    parts = [
        f"{counts[kind]} {_PLURAL.get(kind, kind.value) if counts[kind] > 1 else kind.value}"
        for kind in Evidence
        if counts[kind]
    ]
    failed = [c.name for c in claims if not c.passed]
    verdict = f"{len(failed)} FAIL: {', '.join(failed)}" if failed else "0 fail"
    return f"{', '.join(parts) or 'no claims'}; {verdict}"


def in_set(names: str, values: Iterable[object]) -> str:
    r"""A claim's grid as inline mathematics, ``$(\Lambda, \nu) \in \{(\infty, 2),$ …\}$``
    (one span per element, so that a long set breaks between elements):
    the text-and-``$...$`` form of :attr:`Claim.scope`, so that no ASCII stand-in
    (``inf``, ``in {``) reaches a document.

    Parameters
    ----------
    names : str
        LaTeX of the variable or tuple of variables (``r"(\Lambda, \nu)"``, ``"m"``).
    values : iterable
        Numbers, or tuples of numbers; an infinite one is :math:`\infty`, an integral
        float is written as an integer.

    Returns
    -------
    str

    Examples
    --------
    >>> print(in_set(r"(\Lambda, \nu)", [(float("inf"), 2), (2.0, 1.5)]))
    $(\Lambda, \nu) \in \{(\infty, 2),$ $(2, 1.5)\}$
    >>> print(in_set("m", (2, 3)))
    $m \in \{2,$ $3\}$
    """
    shown = [
        "(" + ", ".join(map(_number_tex, value)) + ")"
        if isinstance(value, tuple)
        else _number_tex(value)
        for value in values
    ]
    # one math span per element, so that a long set can break between them
    return "$" + f"{names} \\in \\{{" + ",$ $".join(shown) + "\\}$"


def _number_tex(value: object) -> str:
    if isinstance(value, str):
        value = float(value) if value.strip().lower() in ("inf", "+inf", "infinity") else value
    if isinstance(value, float):
        if math.isinf(value):
            return r"\infty" if value > 0 else r"-\infty"
        return str(int(value)) if value.is_integer() else repr(value)
    return str(value)
