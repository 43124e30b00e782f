r"""Remainder bounds of the Price of Forgetting proved on whole ranges, by boxes.

The light- and heavy-traffic forms of PoF (:mod:`qtheory.gated.asymptotics`) come with
remainder bounds, K = 3/2 and K = 5/2:

- light, ε = ν − 1 ↓ 0: |PoF·ε log(1/ε)/4 − 1| ≤ K log log(1/ε)/log(1/ε);
- heavy, ν → ∞, Λ > μ: |(PoF − 1)√ν/(2(1 − √γ)) − 1| ≤ K ν^{−1/2}, γ = (1 + μ²/Λ²)/2.

:func:`remainder_region` proves one of them for every ε (or ν) in a closed range at
fixed Λ, μ, C: it cuts the range into boxes, certifies the optimum at each box end
(:func:`~qtheory.gated.certified.certified_optimum`), and decides the bound on the whole
box from the two ends, because S_GA* and S_RR* are nondecreasing in R
(:mod:`qtheory.verify.regions` states the argument and is the independent checker that
re-decides every box).  A box that is not decided is halved (geometrically) until it is,
or until it is narrower than ``min_width`` relative: then the bound is not proved there
and the region fails, naming where.  The number of boxes is bounded by ``max_boxes``.

Examples
--------
>>> region = remainder_region("light", "inf", 1, 1, "1e-4", "1/10", constant="3/2")
>>> region.passed, region.boxes > 10
(True, True)
>>> remainder_region("light", "inf", 1, 1, "1/10", "3/10", constant="3/2").failed_at
'0.1...'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, fmpq

from qtheory.gated.certified import certified_optimum, grid_point
from qtheory.model.gated import GatedQueue
from qtheory.verify._arith import precision
from qtheory.verify.regions import box_holds, end_welfares

__all__ = ["Region", "remainder_region"]

#: Boxes of the first cut of a range (refined where the bound is tight).
INITIAL_BOXES = 64


@dataclass(frozen=True)
class Region:
    """A remainder bound decided on a range.

    Attributes
    ----------
    passed : bool
        Every box decided.
    boxes : int
        Boxes of the proof.
    failed_at : str or None
        Where a box narrower than ``min_width`` could not be decided (a decimal of the
        variable), or None.
    worst : float
        The largest scaled remainder |ratio − 1|/r at the box ends (to compare with K).
    data : dict
        The region of a ``regions.remainder`` certificate: ``parameters`` (Λ, μ, C),
        ``range``, ``points`` and ``boxes``.

    Examples
    --------
    >>> region = remainder_region("heavy", "inf", 1, 1, "4", "10", constant="5/2")
    >>> region.passed, region.failed_at, sorted(region.data)
    (True, None, ['boxes', 'parameters', 'points', 'range'])
    """

    passed: bool
    boxes: int
    failed_at: str | None
    worst: float
    data: dict


def _scaled(regime: str, value: Fraction, welfares: tuple[arb, arb], beta: fmpq) -> float:
    """|ratio − 1|/r at one end (float): the quantity the bound compares with K."""
    ga, rr = welfares
    pof, v = ga / rr, arb(fmpq(value.numerator, value.denominator))
    if regime == "light":
        log = (1 / v).log()
        ratio, order = pof * v * log / 4, log.log() / log
    else:
        scale = 2 * (1 - ((1 + arb(beta) ** 2) / 2).sqrt())
        ratio, order = (pof - 1) * v.sqrt() / scale, 1 / v.sqrt()
    return float(abs(ratio - 1).mid() / order.mid())


def _text(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value}"


def _between(a: Fraction, b: Fraction) -> Fraction:
    """A short rational strictly between a < b, near their geometric mean."""
    mean = math.exp((math.log(a) + math.log(b)) / 2)
    for digits in range(3, 40):
        candidate = Fraction(f"{mean:.{digits}g}")
        if a < candidate < b:
            return candidate
    return (a + b) / 2


def remainder_region(
    regime: str,
    arrival_rate,
    service_rate,
    cost,
    low,
    high,
    *,
    constant: str,
    max_boxes: int = 100_000,
    min_width: float = 1e-9,
    progress: bool = False,
) -> Region:
    """Prove the ``regime`` remainder bound for every value in ``[low, high]``.

    Parameters
    ----------
    regime : {"light", "heavy"}
        The variable is ε = ν − 1 (light) or ν (heavy).
    arrival_rate, service_rate, cost
        Λ (``"inf"`` allowed), μ, C: fixed on the range.
    low, high : str or number
        The range, read as exact decimals (``"1e-30"``, ``"1/10"``).
    constant : str
        K, a rational.
    max_boxes : int, default 100000
        Cost guard: refuse (``ValueError``) rather than cut more boxes.
    min_width : float, default 1e-9
        A box this narrow (relative) that is not decided fails the region.
    progress : bool, default False
        Show a progress bar over the range (tqdm).

    Returns
    -------
    Region

    Raises
    ------
    ValueError
        If the regime is unknown, the range is empty or not positive, or the proof
        needs more than ``max_boxes`` boxes.

    Examples
    --------
    >>> region = remainder_region("light", "2", 1, 1, "1e-3", "1/10", constant="3/2")
    >>> region.passed, region.data["range"], region.worst < 1.5
    (True, ['1/1000', '1/10'], True)
    >>> remainder_region("light", "inf", 1, 1, "1e-30", "1/10", constant="3/2",
    ...                  max_boxes=10)
    Traceback (most recent call last):
    ...
    ValueError: max_boxes: proving the light bound on [1e-30, 1/10] needs more than 10 boxes ...
    """
    if regime not in ("light", "heavy"):
        raise ValueError(f"regime must be 'light' or 'heavy', got {regime!r}")
    lo, hi = Fraction(str(low)), Fraction(str(high))
    if not 0 < lo < hi:
        raise ValueError(f"the range must satisfy 0 < low < high, got [{low}, {high}]")
    mu, c = Fraction(str(service_rate)), Fraction(str(cost))
    points: list[dict] = []
    index: dict[Fraction, int] = {}
    welfares: dict[int, tuple[arb, arb]] = {}  # a point's (S_GA*, S_RR*), decided once

    def welfare(k: int) -> tuple[arb, arb]:
        if k not in welfares:
            welfares[k] = end_welfares(points[k])
        return welfares[k]

    def point(value: Fraction) -> int:
        if value not in index:
            nu = 1 + value if regime == "light" else value
            reward = nu * c / mu
            queue = GatedQueue(arrival_rate, _text(mu), _text(reward), _text(c))
            index[value] = len(points)
            points.append(grid_point(certified_optimum(queue, dps=5)))
        return index[value]

    ratio = (hi / lo) ** (1 / INITIAL_BOXES) if hi / lo > 1 else 1
    cuts = [lo] + [_between(lo * ratio**k, lo * ratio ** (k + 1)) for k in range(1, INITIAL_BOXES)]
    cuts = sorted({v for v in cuts if lo <= v < hi}) + [hi]
    pending = list(zip(cuts, cuts[1:], strict=False))[::-1]
    boxes: list[tuple[Fraction, Fraction]] = []
    k_const = fmpq(*Fraction(constant).as_integer_ratio())
    arrival = str(arrival_rate).strip().lower()
    beta = (
        fmpq(0)
        if arrival in ("inf", "infinity")
        else 1 / fmpq(*Fraction(arrival).as_integer_ratio())
    )
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=1.0, desc=f"remainder region ({regime})", unit="range")
    span = math.log(hi / lo)
    while pending:
        a, b = pending.pop()
        i, j = point(a), point(b)
        ends = (fmpq(a.numerator, a.denominator), fmpq(b.numerator, b.denominator))
        with precision(128):
            holds = box_holds(regime, k_const, ends, (welfare(i), welfare(j)), beta)
        if holds:
            boxes.append((a, b))
            if bar is not None:
                bar.update(math.log(b / a) / span)
            continue
        if (b - a) / a < min_width:
            if bar is not None:
                bar.close()
            return Region(False, len(boxes), f"{float(a):.3g}", math.nan, {})
        if len(boxes) + len(pending) + 2 > max_boxes:
            raise ValueError(
                f"max_boxes: proving the {regime} bound on [{low}, {high}] needs more than "
                f"{max_boxes} boxes (raise max_boxes, or narrow the range)"
            )
        middle = _between(a, b)
        pending += [(middle, b), (a, middle)]
    if bar is not None:
        bar.close()
    data = {
        "parameters": {
            "arrival_rate": str(arrival_rate),
            "service_rate": _text(mu),
            "cost": _text(c),
        },
        "range": [_text(lo), _text(hi)],
        "points": points,
        "boxes": [[index[a], index[b]] for a, b in boxes],
    }
    with precision(128):
        worst = max(_scaled(regime, v, welfare(k), beta) for v, k in index.items())
    return Region(True, len(boxes), None, worst, data)
