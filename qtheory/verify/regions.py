r"""Checker of the remainder bounds of the Price of Forgetting over whole ranges.

A ``regions.remainder`` certificate proves a remainder bound for *every* value of
the asymptotic variable in a closed range, not at sampled points.  Write ν = Rμ/C and,
for fixed Λ, μ, C, let S_GA*(R) and S_RR*(R) be the optimal welfares of gated admission
and random routing (module docstring of :mod:`qtheory.verify.gated`).

Lemma (monotonicity).  S_GA* and S_RR* are nondecreasing in R: for every fixed gate τ
(rate λ) the welfare (R − C/u)/D (λ(R − C/(μ − λ))) increases with R, and a supremum
of nondecreasing functions is nondecreasing.  So on a box R ∈ [R_a, R_b]

    S_GA*(R_a)/S_RR*(R_b) ≤ PoF(R) ≤ S_GA*(R_b)/S_RR*(R_a),

and the certified optima at the two ends of the box (each decided as in
:func:`qtheory.verify.gated.optimum_balls`) enclose PoF on the whole box.

The two bounds (``regime``), with K = ``constant``:

- ``light``: ε = ν − 1 ∈ [ε_lo, ε_hi] ⊂ (0, 1/e) and
  |X − 1| ≤ K r(ε), X = PoF·g(ε)/4, g(ε) = ε log(1/ε), r(ε) = log log(1/ε)/log(1/ε).
  g increases on (0, 1/e), so X ∈ [PoF_lo g(ε_a)/4, PoF_hi g(ε_b)/4]; r increases and
  then decreases in ε (it is log t/t in t = log(1/ε)), so min r on a box is
  min(r(ε_a), r(ε_b)).
- ``heavy``: ν ∈ [ν_lo, ν_hi], Λ > μ, γ = (1 + μ²/Λ²)/2 and
  |X − 1| ≤ K ν^{−1/2}, X = (PoF − 1)√ν/(2(1 − √γ)).  PoF − 1 ≥ 0
  (``gated.pof_identity``), √ν increases, so
  X ∈ [(PoF_lo − 1)⁺√ν_a, (PoF_hi − 1)√ν_b]/(2(1 − √γ)), and the bound is least at ν_b.

A box holds when both sides of |X − 1| ≤ K r are decided in ball arithmetic.  The
certificate lists the optima (``points``) and the boxes as pairs of point indices; the
checker decides every point and every box, and checks in exact rationals that the
boxes tile the stated range: the first starts at its lower end, each starts where the
previous ended, the last ends at its upper end.  Removing a box leaves a gap.

Examples
--------
>>> check_remainder_region({"regime": "light", "constant": "3/2", "regions": []})
Traceback (most recent call last):
...
qtheory.verify.CertificateError: the certificate lists no regions
"""

from __future__ import annotations

from collections.abc import Mapping

from flint import arb, fmpq

from qtheory.verify import CertificateError
from qtheory.verify._arith import precision, rate_or_inf, rational
from qtheory.verify.gated import optimum_balls, read_parameters

__all__ = ["CHECKS", "box_holds", "check_remainder_region", "end_welfares", "variable"]

#: The most boxes one region may hold (a cost bound on the checker's work).
MAX_BOXES = 200_000


def variable(regime: str, point: Mapping) -> fmpq:
    """The asymptotic variable of an optimum's parameters: ε = Rμ/C − 1 (light) or
    ν = Rμ/C (heavy), exactly.

    Parameters
    ----------
    regime : {"light", "heavy"}
    point : mapping
        With ``parameters`` (Λ, μ, R, C as rationals in text).

    Examples
    --------
    >>> point = {"parameters": {"arrival_rate": "inf", "service_rate": "1",
    ...                         "reward": "11/10", "cost": "1"}}
    >>> variable("light", point), variable("heavy", point)
    (1/10, 11/10)
    """
    q = read_parameters(point)
    nu = q["R"] * q["mu"] / q["C"]
    return nu - 1 if regime == "light" else nu


def end_welfares(point: Mapping) -> tuple[arb, arb]:
    """(S_GA*, S_RR*) of one optimum, decided as :func:`~qtheory.verify.gated.optimum_balls`.

    Parameters
    ----------
    point : mapping
        Optimum data without values (``parameters``, ``precision_bits``, ``case``,
        ``bracket``, ``routing_case``).

    Examples
    --------
    >>> point = {"parameters": {"arrival_rate": "1/5", "service_rate": "1", "reward": "3",
    ...          "cost": "1"}, "precision_bits": 64, "case": "boundary",
    ...          "routing_case": "boundary"}
    >>> [round(float(ball.mid()), 6) for ball in end_welfares(point)]  # 0.2 (3 - 1/0.8)
    [0.35, 0.35]
    """
    with precision(int(point["precision_bits"])):
        balls = optimum_balls(point)
        return balls["welfare_ga"], balls["welfare_rr"]


def box_holds(regime: str, constant: fmpq, ends: tuple, welfares: tuple, beta: fmpq) -> bool:
    """Whether |X − 1| ≤ K r is proved on the box between two optima (module docstring).

    Parameters
    ----------
    regime : {"light", "heavy"}
    constant : fmpq
        K.
    ends : (fmpq, fmpq)
        The variable at the box's two ends, a < b.
    welfares : ((arb, arb), (arb, arb))
        (S_GA*, S_RR*) at the two ends.
    beta : fmpq
        1/Λ (0 for Λ = ∞).

    Returns
    -------
    bool

    Examples
    --------
    A box of zero width at ε = 1/100, Λ = ∞ (PoF = 33.4…): |X − 1| = 0.395 ≤ 0.497.

    >>> import flint
    >>> from qtheory.gated import GatedQueue
    >>> from qtheory.gated.certified import certified_optimum
    >>> o = certified_optimum(GatedQueue("inf", 1, "101/100", 1), dps=20)
    >>> s = (arb(o.welfare_ga.midpoint), arb(o.welfare_rr.midpoint))
    >>> box_holds("light", fmpq(3, 2), (fmpq(1, 100), fmpq(1, 100)), (s, s), fmpq(0))
    True
    >>> box_holds("light", fmpq(1, 2), (fmpq(1, 100), fmpq(1, 100)), (s, s), fmpq(0))
    False
    """
    (ga_a, rr_a), (ga_b, rr_b) = welfares
    a, b = (arb(v) for v in ends)
    pof_lo = ga_a.lower() / rr_b.upper()
    pof_hi = ga_b.upper() / rr_a.lower()
    k = arb(constant)
    if regime == "light":
        g = lambda e: e * (1 / e).log()  # noqa: E731
        r = lambda e: (1 / e).log().log() / (1 / e).log()  # noqa: E731
        x_lo, x_hi = pof_lo * g(a).lower() / 4, pof_hi * g(b).upper() / 4
        bound = k * arb.min(r(a).lower(), r(b).lower())
    else:
        scale = 2 * (1 - ((1 + arb(beta) ** 2) / 2).sqrt())  # m = (1 + mu^2 beta^2)/2
        excess_lo = pof_lo - 1
        x_lo = (excess_lo * a.sqrt() if excess_lo >= 0 else excess_lo * b.sqrt()) / scale.upper()
        x_hi = (pof_hi - 1) * b.sqrt() / scale.lower()
        bound = k / b.sqrt()
    return bool(x_hi - 1 <= bound and 1 - x_lo <= bound)


def _region(regime: str, constant: fmpq, region: Mapping, where: str) -> None:
    points, boxes = region["points"], region["boxes"]
    if not isinstance(points, list) or not isinstance(boxes, list) or not boxes:
        raise CertificateError(f"{where}: the region lists no boxes")
    if len(boxes) > MAX_BOXES:
        raise CertificateError(f"{where}: more than {MAX_BOXES} boxes")
    low, high = (rational(t) for t in region["range"])
    fixed = region["parameters"]
    for index, point in enumerate(points):
        given = point["parameters"]
        for key in ("arrival_rate", "service_rate", "cost"):
            if rate_or_inf(given[key]) != rate_or_inf(fixed[key]):
                raise CertificateError(
                    f"{where}: point {index} has {key} = {given[key]}, the region {fixed[key]}"
                )
    values = [variable(regime, p) for p in points]
    beta = read_parameters(points[0])["beta"]
    if regime == "light" and not (0 < low and arb(high) < arb(-1).exp()):
        raise CertificateError(f"{where}: the light range must lie in (0, 1/e)")
    if regime == "heavy" and not (beta * read_parameters(points[0])["mu"] < 1 and low > 1):
        raise CertificateError(f"{where}: the heavy bound needs Lambda > mu and nu > 1")
    welfares: dict[int, tuple[arb, arb]] = {}
    expected = low
    for number, box in enumerate(boxes):
        if not (isinstance(box, list) and len(box) == 2 and all(type(i) is int for i in box)):
            raise CertificateError(f"{where}: box {number} is not a pair of point indices")
        i, j = box
        if not (0 <= i < len(points) and 0 <= j < len(points)):
            raise CertificateError(f"{where}: box {number} names no point")
        a, b = values[i], values[j]
        if a != expected:
            raise CertificateError(
                f"{where}: box {number} starts at {a}, not where the boxes before it end "
                f"({expected}): the boxes do not cover the range"
            )
        if not a < b:
            raise CertificateError(f"{where}: box {number} is empty ({a} to {b})")
        for k in (i, j):
            if k not in welfares:
                try:
                    welfares[k] = end_welfares(points[k])
                except CertificateError as error:
                    raise CertificateError(f"{where}: point {k}: {error}") from None
        with precision(128):
            if not box_holds(regime, constant, (a, b), (welfares[i], welfares[j]), beta):
                raise CertificateError(
                    f"{where}: box {number} ({regime} variable from {a} to {b}): "
                    "|X - 1| <= K r is not proved"
                )
        expected = b
    if expected != high:
        raise CertificateError(
            f"{where}: the boxes end at {expected}, not at the range's upper end {high}"
        )


def check_remainder_region(data: Mapping) -> None:
    """``regions.remainder``: the bound on every box of every region.

    Parameters
    ----------
    data : mapping
        ``regime``, ``constant`` K and ``regions``: each with ``parameters`` (Λ, μ, C),
        ``range`` (two rationals), ``points`` (optimum data without values) and
        ``boxes`` (pairs of point indices, in order).

    Raises
    ------
    CertificateError
        Naming the region and the first box or point that fails.

    Examples
    --------
    >>> check_remainder_region({"regime": "medium", "constant": "1", "regions": []})
    Traceback (most recent call last):
    ...
    qtheory.verify.CertificateError: regime must be 'light' or 'heavy', got 'medium'
    """
    regime = data["regime"]
    if regime not in ("light", "heavy"):
        raise CertificateError(f"regime must be 'light' or 'heavy', got {regime!r}")
    constant = rational(data["constant"])
    regions = data["regions"]
    if not isinstance(regions, list) or not regions:
        raise CertificateError("the certificate lists no regions")
    for index, region in enumerate(regions):
        _region(regime, constant, region, f"region {index}")


CHECKS = {"remainder": check_remainder_region}
