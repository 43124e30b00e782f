r"""The Sympy derivation of the Chernoff bounds of :mod:`qtheory.walks.chernoff`.

Source: J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
overloaded loss network" (arXiv:2601.14538), "Analytical Tools"; A. Dembo and
O. Zeitouni, Large Deviations Techniques and Applications, 2nd ed. (Springer 1998),
Sec. 2.2.  For each family (Poisson, the ±1 walk, Skellam) Sympy solves
:math:`\Lambda'(\theta) = x` for the tilt :math:`\rho^* = e^{\theta^*}`, substitutes it
back and simplifies (:func:`derive_poisson`, :func:`derive_walk`, :func:`derive_skellam`;
the mathematics is in the notes of :mod:`qtheory.walks.chernoff`), and gives the
Formulas of the float64 route: the weights, the rationalised deviations, the tilted means
and the Cramér rate :data:`CRAMER_RATE` with its Taylor polynomial :data:`CRAMER_SERIES`.

The bounds themselves never run this module: they call the evaluators generated from
these Formulas, ``qtheory/walks/_generated.py`` (``tools/generate_evaluators.py``; the
same code each Formula compiles, and ``tests/test_codegen.py`` fails if it is stale), so
that a bound from the command line does not import Sympy.

>>> derive_poisson().exponent.expr  # m h(x/m)
m + x*log(x/m) - x

References
----------
.. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the overloaded
   loss network", arXiv:2601.14538 (2026).
.. [2] A. Dembo and O. Zeitouni, Large Deviations Techniques and Applications, 2nd ed.
   (Springer 1998).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import sympy as sp

from qtheory.core.symbolic import Formula

__all__ = [
    "CRAMER_AT_ZERO",
    "CRAMER_RATE",
    "CRAMER_SERIES",
    "Auxiliary",
    "ChernoffDerivation",
    "derive_poisson",
    "derive_skellam",
    "derive_walk",
]

theta = sp.Symbol("theta", real=True)  # the Chernoff parameter
tilt = sp.Symbol("rho", positive=True)  # e^theta: tilted mean / original mean
deviation = sp.Symbol("epsilon", real=True)  # rho - 1, the numerical parametrisation
tail_level = sp.Symbol("x", real=True)  # the x of P(X >= x) and P(X <= x)
mean = sp.Symbol("m", positive=True)  # Poisson mean
up_mean, down_mean = sp.symbols("u d", positive=True)  # Skellam: U - D
steps = sp.Symbol("n", positive=True)
up_probability = sp.Symbol("p", positive=True)
position = sp.Symbol("a", real=True)
sum_root = sp.Symbol("sigma_plus", positive=True)  # sqrt(x² + 4ud) + x
difference_root = sp.Symbol("sigma_minus", positive=True)  # sqrt(x² + 4ud) − x
window_constant = sp.Symbol("c", positive=True)  # W = c log N / N
relative_deviation = sp.Symbol("delta", positive=True)

CRAMER_RATE = Formula(
    "cramer_rate", tilt * sp.log(tilt) - tilt + 1, (deviation,), {tilt: 1 + deviation}
)
"""h(ρ) = ρ log ρ − ρ + 1, the Cramér rate of Poisson(1); evaluated at ρ = 1 + ε as
(1 + ε) log1p(ε) − ε."""

CRAMER_AT_ZERO = Formula("cramer_rate_at_zero", sp.limit(CRAMER_RATE.expr, tilt, 0, "+"), ())
"""h(0) = 1, Sympy's limit of h(ρ) as ρ → 0+: the edge of the support, where a tilted
mean is 0 (no arguments)."""

CRAMER_SERIES = Formula(
    "cramer_rate_series",
    sp.horner(sp.series(CRAMER_RATE.expr.subs(tilt, 1 + deviation), deviation, 0, 30).removeO()),
    (deviation,),
)
"""Sympy's Taylor polynomial of h(1 + ε) = Σ_{k>=2} (−ε)^k / (k(k − 1)) up to ε^29, in
Horner form.  For |ε| < 1/4 (where float64 evaluates it) its truncation error, at most
the first omitted term |ε|^30/870 (the terms alternate and decrease, or all have one
sign and decrease by a factor 4), is below 4e-20 relative to h >= ε²/2 − |ε|³/6; the
polynomial has no cancellation, where the closed form loses about log10(1/|ε|) digits."""


@dataclass(frozen=True)
class Auxiliary:
    r"""A quantity of the float64 route with two closed forms, each free of cancellation
    on one side of x = 0 (e.g. x + sqrt(x² + 4ud) and 4ud / (sqrt(x² + 4ud) − x)).

    For the Skellam family these are :math:`\sigma_\pm = \sqrt{x^2 + 4ud} \pm x`: the
    direct form is a sum of non-negative terms on one side of :math:`x = 0`, and the
    conjugate :math:`4ud/\sigma_\mp` is on the other (:mod:`qtheory.walks.chernoff`, "Numerics").

    Attributes
    ----------
    symbol : sympy.Symbol
        The name under which the deviations of :class:`ChernoffDerivation` take the
        quantity as an extra argument.
    nonnegative_x : Formula
        The closed form used for :math:`x \ge 0`, in the family's ``(parameters..., x)``.
    negative_x : Formula
        The closed form used for :math:`x < 0`, in the same arguments.

    References
    ----------
    See the module's References: Bray (2026), "Analytical Tools"; docs/precision.md.

    Examples
    --------
    >>> sigma_plus = derive_skellam().auxiliary[0]
    >>> sigma_plus.nonnegative_x.expr
    x + sqrt(4*d*u + x**2)
    >>> sigma_plus.negative_x.expr
    4*d*u/(-x + sqrt(4*d*u + x**2))
    >>> u, d, x = 2.0, 3.0, -5.0
    >>> direct = x + (x * x + 4 * u * d) ** 0.5
    >>> bool(abs(float(sigma_plus.negative_x.float64(u, d, x)) - direct) < 1e-12)
    True
    """

    symbol: sp.Symbol
    nonnegative_x: Formula
    negative_x: Formula


@dataclass(frozen=True)
class ChernoffDerivation:
    r"""One family of Chernoff bounds, derived by Sympy.

    For a cumulant generating function :math:`\Lambda(\theta) = \log E e^{\theta X}` the
    bound is :math:`P(X \ge x) \le e^{-\Lambda^*(x)}` above the mean (and
    :math:`P(X \le x) \le e^{-\Lambda^*(x)}` below it), with the Legendre transform
    :math:`\Lambda^*(x) = \sup_\theta (\theta x - \Lambda(\theta))
    = \sum_k w_k\, h(\rho_k)` and :math:`h(r) = r\log r - r + 1`.

    The evaluators' arguments are the family's parameters followed by the tail level x:
    ``(m, x)`` for Poisson, ``(n, p, a)`` for the walk, ``(u, d, x)`` for Skellam; the
    deviations take the auxiliary quantities after them.

    Attributes
    ----------
    name : str
        ``"poisson"``, ``"skellam"`` or ``"walk"``.
    log_mgf : sympy.Expr
        :math:`\Lambda(\theta)`, in the parameters and ``theta``.
    mean : Formula
        :math:`\Lambda'(0)`, in the parameters only.
    tilt : Formula
        :math:`\rho^* = e^{\theta^*}`, the positive root of :math:`\Lambda'(\theta) = x`.
    exponent : Formula
        :math:`\Lambda^*(x)` in closed form (the display form).
    weights : tuple of Formula
        :math:`w_k`, the mean of each type of jump, in the parameters.
    ratios : tuple of sympy.Expr
        :math:`\rho_k`, tilted over original mean of each type, in the symbol ``rho``.
    deviations : tuple of Formula
        :math:`\rho_k - 1` at :math:`\rho = \rho^*`, rationalised (the float64 route).
    tilted_means : tuple of Formula
        :math:`w_k \rho_k` at :math:`\rho = \rho^*`, in ``(parameters..., x)``.
    auxiliary : tuple of Auxiliary
        Extra arguments of the deviations (empty except for Skellam).

    References
    ----------
    See the module's References:

    - Dembo and Zeitouni (1998), Sec. 2.2 (Chernoff bounds and the Legendre transform);
    - Bray (2026), "Analytical Tools".

    Examples
    --------
    >>> f = derive_poisson()
    >>> f.name, f.mean.expr, f.weights[0].expr, f.ratios
    ('poisson', m, m, (rho,))
    >>> round(float(f.exponent.float64(2.0, 5.0)), 6)  # 2 h(5/2) = 5 log 2.5 - 3
    1.581454
    """

    name: str
    log_mgf: sp.Expr  # Λ(θ) = log E[e^{θX}]
    mean: Formula  # Λ'(0), in the parameters only
    tilt: Formula  # ρ* = e^{θ*}, the positive root of Λ'(θ) = x
    exponent: Formula  # Λ*(x) = sup_θ (θx − Λ(θ)) in closed form (the display form)
    weights: tuple[Formula, ...]  # w_k: mean of each type of jump, in the parameters
    ratios: tuple[sp.Expr, ...]  # ρ_k: tilted / original mean of each type, in ρ*
    deviations: tuple[Formula, ...]  # ρ_k − 1 at ρ = ρ*, rationalised (the float64 route)
    tilted_means: tuple[Formula, ...]  # w_k ρ_k at ρ = ρ*, in (parameters..., x)
    auxiliary: tuple[Auxiliary, ...] = ()

    def entropy_form(self) -> sp.Expr:
        r"""Σ_k w_k h(ρ_k) as a Sympy expression in the parameters and x.

        The relative entropy of the optimally tilted law, :math:`\sum_k w_k h(\rho_k)`
        with :math:`h(r) = r\log r - r + 1` and :math:`\rho_k` evaluated at
        :math:`\rho = \rho^*`; it equals :attr:`exponent` (the tests let Sympy prove it).

        Returns
        -------
        sympy.Expr
            The entropy form of :math:`\Lambda^*(x)`, in ``(parameters..., x)``.

        References
        ----------
        See the module's References: Dembo and Zeitouni (1998), Sec. 2.2.

        Examples
        --------
        >>> f = derive_poisson()
        >>> sp.simplify(f.entropy_form() - f.exponent.expr)
        0
        """
        tilted = [ratio.subs(tilt, self.tilt.expr) for ratio in self.ratios]
        return sum(
            weight.expr * CRAMER_RATE.expr.subs(tilt, ratio)
            for weight, ratio in zip(self.weights, tilted, strict=True)
        )


def _legendre(log_mgf: sp.Expr, x: sp.Expr, sample: dict) -> tuple[sp.Expr, sp.Expr]:
    """(ρ*, θx − Λ(θ)): the positive root ρ = e^θ of d/dθ (θx − Λ(θ)) = 0 (the other
    roots are negative: ``sample`` is a parameter point that tells them apart)."""
    objective = theta * x - log_mgf
    stationary = sp.diff(objective, theta).subs(theta, sp.log(tilt))
    (root,) = [r for r in sp.solve(stationary, tilt) if r.subs(sample) > 0]
    return root, objective


def _rationalised_deviation(ratio: sp.Expr) -> sp.Expr:
    """ratio − 1 with any square root moved to the denominator, where it is added to
    terms of its own sign: no cancellation in float64."""
    return sp.factor(1 / sp.radsimp(1 / sp.together(ratio - 1)))


def _tidy(expr: sp.Add) -> sp.Expr:
    """Each term's factors and log arguments over a common denominator (display only)."""
    expr = expr.replace(lambda e: isinstance(e, sp.log), lambda e: sp.log(sp.together(e.args[0])))
    return sp.Add(*(sp.Mul(*(sp.together(f) for f in term.args)) for term in expr.args))


def _mean_of(log_mgf: sp.Expr) -> sp.Expr:
    return sp.simplify(sp.diff(log_mgf, theta).subs(theta, 0))


def _family(
    name: str,
    parameters: tuple[sp.Symbol, ...],
    x: sp.Symbol,
    log_mgf: sp.Expr,
    exponent: sp.Expr,
    tilt_root: sp.Expr,
    weights: Sequence[sp.Expr],
    ratios: Sequence[sp.Expr],
    deviations: Sequence[sp.Expr] | None = None,
    auxiliary: tuple[Auxiliary, ...] = (),
) -> ChernoffDerivation:
    """Wrap a family's expressions in Formulas; the deviations default to the rationalised
    ρ_k(ρ*) − 1."""
    args = (*parameters, x)
    if deviations is None:
        deviations = [_rationalised_deviation(r.subs(tilt, tilt_root)) for r in ratios]
    deviation_args = (*args, *(a.symbol for a in auxiliary))
    tilted_means = [
        sp.simplify(sp.radsimp(w * r.subs(tilt, tilt_root)))
        for w, r in zip(weights, ratios, strict=True)
    ]
    return ChernoffDerivation(
        name=name,
        log_mgf=log_mgf,
        mean=Formula(f"{name}_mean", _mean_of(log_mgf), parameters),
        tilt=Formula(f"{name}_tilt", tilt_root, args),
        exponent=Formula(f"{name}_chernoff_exponent", exponent, args),
        weights=tuple(Formula(f"{name}_weight_{k}", w, parameters) for k, w in enumerate(weights)),
        ratios=tuple(ratios),
        deviations=tuple(
            Formula(f"{name}_deviation_{k}", dev, deviation_args)
            for k, dev in enumerate(deviations)
        ),
        tilted_means=tuple(
            Formula(f"{name}_tilted_mean_{k}", t, args) for k, t in enumerate(tilted_means)
        ),
        auxiliary=auxiliary,
    )


@cache
def derive_poisson() -> ChernoffDerivation:
    r"""Chernoff bound of X ~ Poisson(m): Λ*(x) = m h(x/m).

    With :math:`\Lambda(\theta) = m(e^\theta - 1)`, Sympy solves
    :math:`\Lambda'(\theta) = x` for :math:`\rho^* = e^{\theta^*} = x/m` and substitutes
    it back: :math:`\Lambda^*(x) = m + x\log(x/m) - x = m\,h(x/m)`.  The result is cached.

    Returns
    -------
    ChernoffDerivation
        The Poisson family, evaluators in ``(m, x)``.

    References
    ----------
    See the module's References:

    - Dembo and Zeitouni (1998), Sec. 2.2 (Chernoff bounds and the Legendre transform);
    - Bray (2026), "Analytical Tools".

    Examples
    --------
    >>> f = derive_poisson()
    >>> f.tilt.expr, f.exponent.expr
    (x/m, m + x*log(x/m) - x)
    """
    log_mgf = mean * (sp.exp(theta) - 1)
    root, objective = _legendre(log_mgf, tail_level, {mean: 1, tail_level: 1})
    exponent = sp.simplify(objective.subs(theta, sp.log(root)))
    return _family("poisson", (mean,), tail_level, log_mgf, exponent, root, (mean,), (tilt,))


@cache
def derive_skellam() -> ChernoffDerivation:
    r"""Chernoff bound of U − D, U ~ Poisson(u), D ~ Poisson(d) independent.

    With :math:`\Lambda(\theta) = u(e^\theta - 1) + d(e^{-\theta} - 1)` the stationarity
    condition is :math:`u\rho^2 - x\rho - d = 0`, whose positive root is
    :math:`\rho^* = (x + \sqrt{x^2 + 4ud})/(2u)`, and
    :math:`\Lambda^*(x) = u + d - \sqrt{x^2 + 4ud} + x\log\rho^*
    = u\,h(\rho^*) + d\,h(1/\rho^*)`.  The float64 route evaluates the deviations
    through the auxiliary quantities :math:`\sigma_\pm = \sqrt{x^2 + 4ud} \pm x`
    (:class:`Auxiliary`).  The result is cached.

    Returns
    -------
    ChernoffDerivation
        The Skellam family, evaluators in ``(u, d, x)``.

    References
    ----------
    See the module's References:

    - Dembo and Zeitouni (1998), Sec. 2.2 (Chernoff bounds and the Legendre transform);
    - Bray (2026), "Analytical Tools".

    Examples
    --------
    >>> f = derive_skellam()
    >>> f.tilt.expr
    (x + sqrt(4*d*u + x**2))/(2*u)
    >>> f.exponent.expr
    d + u + x*log((x + sqrt(4*d*u + x**2))/(2*u)) - sqrt(4*d*u + x**2)
    """
    log_mgf = up_mean * (sp.exp(theta) - 1) + down_mean * (sp.exp(-theta) - 1)
    root, _ = _legendre(log_mgf, tail_level, {up_mean: 1, down_mean: 1, tail_level: 0})
    # at ρ*: θ*x − Λ = x log ρ* − (uρ* + d/ρ*) + u + d, and uρ* + d/ρ* = sqrt(x² + 4ud)
    exponent = tail_level * sp.log(root) - sp.simplify(
        sp.radsimp(up_mean * (root - 1) + down_mean * (1 / root - 1))
    )
    # The rationalised deviations have sqrt(x² + 4ud) − x (up) and sqrt(x² + 4ud) + x
    # (down) in their denominators: name them σ₋ and σ₊, each evaluated by its direct
    # form on the side of x where it is a sum, and by its conjugate on the other.
    square_root = sp.sqrt(tail_level**2 + 4 * up_mean * down_mean)
    args = (up_mean, down_mean, tail_level)
    auxiliary = tuple(
        Auxiliary(
            symbol,
            Formula(f"skellam_{symbol}", form if sign > 0 else conjugate, args),
            Formula(f"skellam_{symbol}_negative_x", conjugate if sign > 0 else form, args),
        )
        for symbol, sign in ((sum_root, 1), (difference_root, -1))
        for form in [square_root + sign * tail_level]
        for conjugate in [1 / sp.radsimp(1 / form)]
    )
    deviations = (
        _rationalised_deviation(root).subs(square_root, difference_root + tail_level),
        _rationalised_deviation(1 / root).subs(square_root, sum_root - tail_level),
    )
    return _family(
        "skellam",
        (up_mean, down_mean),
        tail_level,
        log_mgf,
        sp.simplify(exponent),
        root,
        (up_mean, down_mean),
        (tilt, 1 / tilt),
        deviations,
        auxiliary,
    )


@cache
def derive_walk() -> ChernoffDerivation:
    r"""Chernoff bound of the position S_n of n steps of a ±1 walk with up-probability p.

    Sympy works with k = (n + a)/2 up-steps, j = (n − a)/2 down-steps and q = 1 − p as
    positive symbols (so that the square roots simplify), then returns to (n, p, a).
    With :math:`\Lambda(\theta) = n\log(pe^\theta + qe^{-\theta})` the tilt is
    :math:`\rho^{*2} = kq/(jp)` and the exponent is the Bernoulli Kullback–Leibler form
    :math:`\Lambda^*(a) = k\log\frac{k}{np} + j\log\frac{j}{nq}`, which Sympy is
    checked to reach (an ``ArithmeticError`` otherwise).  The result is cached.

    Returns
    -------
    ChernoffDerivation
        The walk family, evaluators in ``(n, p, a)``.

    References
    ----------
    See the module's References:

    - Dembo and Zeitouni (1998), Sec. 2.2 (Chernoff bounds and the Legendre transform);
    - Bray (2026), "Analytical Tools".

    Examples
    --------
    >>> f = derive_walk()
    >>> f.mean.expr
    n*(2*p - 1)
    >>> f.exponent.expr
    (-a + n)*log((-a + n)/(2*n*(1 - p)))/2 + (a + n)*log((a + n)/(2*n*p))/2
    """
    ups, downs, down_probability = sp.symbols("k j q", positive=True)
    step_mgf = up_probability * sp.exp(theta) + down_probability * sp.exp(-theta)
    root, objective = _legendre(
        (ups + downs) * sp.log(step_mgf),
        ups - downs,
        {ups: 1, downs: 1, up_probability: 1, down_probability: 1},
    )
    total = ups + downs
    kl = sp.expand_log(sp.simplify(objective.subs(theta, sp.log(root))), force=True)
    # collect Sympy's k log k − k log p − (k + j) log(k + j) + ... into the KL form
    collected = ups * sp.log(ups / (total * up_probability)) + downs * sp.log(
        downs / (total * down_probability)
    )
    if sp.simplify(sp.expand_log(kl - collected, force=True)) != 0:  # pragma: no cover
        raise ArithmeticError("walk: Sympy's exponent is not the KL form")
    display = {
        ups: (steps + position) / 2,
        downs: (steps - position) / 2,
        down_probability: 1 - up_probability,
    }
    tilted_mgf = step_mgf.subs(theta, sp.log(tilt))  # M(ρ): normalises the tilted step law
    return _family(
        "walk",
        (steps, up_probability),
        position,
        (steps * sp.log(step_mgf)).subs(down_probability, 1 - up_probability),
        _tidy(collected.subs(display)),
        root.subs(display),
        (steps * up_probability, steps * (1 - up_probability)),
        tuple(
            (r / tilted_mgf).subs(down_probability, 1 - up_probability) for r in (tilt, 1 / tilt)
        ),
    )
