r"""Asymptotics of the optimal gate and the Price of Forgetting, derived with Sympy and
checked with mpmath.

Source: Hassin and Ravner, arXiv:2606.02464 (PoF unbounded as :math:`\nu\downarrow 1`,
absolute gain bounded; heavy-traffic behaviour).

**Nearly worthless service,** :math:`\nu = 1+\varepsilon`, :math:`\varepsilon\downarrow 0`.
The optimal queue is nearly empty (:math:`\sigma\to 0`).  With
:math:`K = \mu/\Lambda - \log(1+\mu/\Lambda)` (:math:`K=0` for :math:`\Lambda=\infty`) the
expansions :math:`\mu D = -\log\sigma + K + O(\sigma\log\sigma)` of the mean cycle
:math:`D = \tau + 1/\Lambda` and :math:`\mu N/C = \varepsilon - \sigma + O(\sigma^2)` of the net
reward reduce the welfare to :math:`C(\varepsilon-\sigma)/(K-\log\sigma)`, whose maximiser
solves :math:`\sigma(1 + K - \log\sigma) = \varepsilon`:

.. math:: \hat\sigma = \exp\bigl(K + 1 + W_{-1}(-\varepsilon e^{-K-1})\bigr),\qquad
          S_{GA}^* \sim C\hat\sigma,\qquad
          \mathrm{PoF} \sim \frac{\hat\sigma}{(\sqrt{\nu}-1)^2}
          \sim \frac{4}{\varepsilon\log(1/\varepsilon)}.

The last form has relative remainder :math:`O(\log\log(1/\varepsilon)/\log(1/\varepsilon))`
(:math:`\hat\sigma = \varepsilon/(\log(1/\varepsilon) + \log\log(1/\varepsilon) + K + 1 + o(1))`),
so it is approached slowly; :mod:`qtheory.gated.claims` certifies the bound
:math:`\tfrac32\log\log(1/\varepsilon)/\log(1/\varepsilon)` on a grid.
So PoF diverges while the absolute gain :math:`S_{GA}^*-S_{RR}^* \le S_{GA}^* \to 0` stays
bounded.  (Sympy's solver returns the principal branch :math:`W_0`; the root in (0, 1)
that tends to 0 is on the branch :math:`W_{-1}`, which :func:`derive_light_traffic`
selects and checks.)

**Valuable service,** :math:`\nu\to\infty` with :math:`\Lambda>\mu` (heavy traffic: the
optimal load tends to 1).  With :math:`u = \mu(1-\sigma)\to 0`,
:math:`D = 1/\mu + \gamma u/\mu^2 + O(u^2)` where :math:`\gamma = (1 + \mu^2/\Lambda^2)/2`
(:math:`m = (1 + c_a^2)/2` with :math:`c_a` the limiting coefficient of variation of
admitted inter-arrival times), and

.. math:: \tau^* = \frac1\mu - \frac1\Lambda + \frac{\sqrt m}{\mu\sqrt\nu} + O(1/\nu),\qquad
          \mathrm{PoF} = 1 + \frac{2(1-\sqrt m)}{\sqrt\nu} + O(1/\nu),\qquad
          S_{GA}^* - S_{RR}^* = 2C(1-\sqrt m)\sqrt\nu + O(1).

Here the ratio tends to 1 while the absolute gain grows like :math:`\sqrt\nu`; each leading
term has relative remainder :math:`O(\nu^{-1/2})` (certified on a grid for PoF − 1:
:mod:`qtheory.gated.claims`).  The expansions are this package's construction; the paper
states the limits.

:func:`pof_asymptotics` evaluates these forms with code generated from the derivations
(:func:`asymptotic_formulas`, written into ``qtheory/gated/_generated.py`` by
``tools/generate_evaluators.py`` and compared with a fresh generation by
``tests/test_codegen.py``): it needs neither Sympy nor the derivation, which only
:func:`derive_light_traffic`, :func:`derive_heavy_traffic` and
:func:`evaluate_asymptote` run.

References
----------
.. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026).
.. [2] N. M. Edelson and D. K. Hildebrand, "Congestion tolls for Poisson queuing
   processes", Econometrica 43(1):81-92 (1975) (the RR optimum).
.. [3] L. Kleinrock, Queueing Systems, Vol. I, Wiley (1975), Sec. 6.4 (GI/M/1).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

import mpmath

from qtheory.core import limits
from qtheory.core.precision import required_dps, rounded
from qtheory.core.validation import positive_int
from qtheory.gated import _generated
from qtheory.gated.welfare import optimal_gate, optimal_routing
from qtheory.model.gated import GatedQueue, checked_queue, to_mpf

if TYPE_CHECKING:  # Sympy loads with the derivations only
    import sympy as sp

    from qtheory.core.symbolic import Formula

__all__ = [
    "AsymptoticCheck",
    "asymptotic_formulas",
    "pof_asymptotics",
    "check_heavy_traffic",
    "check_light_traffic",
    "derive_heavy_traffic",
    "derive_light_traffic",
]

#: The derivation's symbols (and ``derive``) by the names this module's Sympy forms use
#: (``excess`` is ε = ν − 1); importable from here, loaded with Sympy on first use
#: (PEP 562), so that importing this module and :func:`pof_asymptotics` need no Sympy.
_DERIVATION_NAMES = {
    "arrival_rate": "arrival_rate",
    "cost": "cost",
    "derive": "derive",
    "excess": "naor_excess",
    "mean_exp_phase": "mean_exp_phase",
    "naor_ratio": "naor_ratio",
    "root": "root",
    "service_rate": "service_rate",
}


def __getattr__(name: str) -> object:
    if name in _DERIVATION_NAMES:
        from qtheory.gated import derivation

        return getattr(derivation, _DERIVATION_NAMES[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class LightTraffic:
    """Leading-order behaviour as ν = 1 + ε ↓ 1 (Sympy expressions in ε, μ, Λ, C).

    Attributes
    ----------
    shift : sympy.Expr
        K = μ/Λ − log(1 + μ/Λ), so that μD = −log σ + K + O(σ log σ).
    cycle_expansion : sympy.Expr
        The expansion of μD in σ (to O(σ⁰) terms).
    root : sympy.Expr
        σ̂ = exp(K + 1 + W₋₁(−ε e^{−K−1})), the asymptotic optimal root.
    welfare_ga : sympy.Expr
        S_GA* ~ Cσ̂.
    gate : sympy.Expr
        τ* ~ (K − log σ̂)/μ − 1/Λ.
    price_of_forgetting : sympy.Expr
        Cσ̂/S_RR*, with S_RR* = C(√ν − 1)² at ν = 1 + ε.
    price_of_forgetting_leading : sympy.Expr
        4/(ε log(1/ε)).

    Examples
    --------
    >>> import sympy as sp
    >>> from qtheory.gated.derivation import arrival_rate, service_rate
    >>> light = derive_light_traffic()
    >>> ratio = service_rate / arrival_rate  # μ/Λ
    >>> sp.simplify(light.shift - (ratio - sp.log(1 + ratio)))
    0

    References
    ----------
    See the module's References: Hassin and Ravner (2026).
    """

    shift: sp.Expr  # K
    cycle_expansion: sp.Expr  # series of μD in σ
    root: sp.Expr  # σ̂(ε)
    welfare_ga: sp.Expr  # S_GA* ~ C σ̂
    gate: sp.Expr  # τ* ~ (K - log σ̂)/μ - 1/Λ
    price_of_forgetting: sp.Expr  # σ̂ / (√ν − 1)², with ν = 1 + ε
    price_of_forgetting_leading: sp.Expr  # 4 / (ε log(1/ε))


@dataclass(frozen=True)
class HeavyTraffic:
    """Leading-order behaviour as ν → ∞ with Λ > μ (Sympy expressions in ν, μ, Λ, C).

    Attributes
    ----------
    variability : sympy.Expr
        γ = (1 + μ²/Λ²)/2, with D = 1/μ + γ u/μ² + O(u²) for u = μ(1 − σ).
    cycle_expansion : sympy.Expr
        The expansion of D in u to first order.
    gate : sympy.Expr
        τ* = 1/μ − 1/Λ + √γ/(μ√ν) + O(1/ν).
    price_of_forgetting : sympy.Expr
        1 + 2(1 − √γ)/√ν.
    welfare_gain : sympy.Expr
        S_GA* − S_RR* ~ 2C(1 − √γ)√ν.

    Examples
    --------
    With Λ = ∞, m = 1/2 and PoF ≈ 1 + 2(1 − 1/√2)/√ν; at ν = 100 that is 1.0585786…:

    >>> from qtheory.gated.derivation import cost, naor_ratio, service_rate
    >>> heavy = derive_heavy_traffic()
    >>> one = mpmath.mpf(1)
    >>> values = {naor_ratio: mpmath.mpf(100), service_rate: one, cost: one}
    >>> mpmath.nstr(evaluate_asymptote(heavy.price_of_forgetting, values, "inf"), 8)
    '1.0585786'

    References
    ----------
    See the module's References: Hassin and Ravner (2026).
    """

    variability: sp.Expr  # γ
    cycle_expansion: sp.Expr  # series of D in u
    gate: sp.Expr  # τ* to O(ν^{-1/2})
    price_of_forgetting: sp.Expr  # 1 + 2(1 − √γ)/√ν
    welfare_gain: sp.Expr  # 2C(1 − √γ)√ν


@cache
def derive_light_traffic() -> LightTraffic:
    """Derive the ν ↓ 1 asymptotics (see the module docstring).

    Returns
    -------
    LightTraffic
        Sympy expressions in ε, μ, Λ, C (cached).

    Examples
    --------
    >>> light = derive_light_traffic()
    >>> light.price_of_forgetting_leading
    -4/(epsilon*log(epsilon))

    References
    ----------
    See the module's References: Hassin and Ravner (2026).
    """
    import sympy as sp

    from qtheory.gated.derivation import arrival_rate, cost, derive, naor_ratio, root, service_rate
    from qtheory.gated.derivation import naor_excess as excess  # ε = ν − 1

    cycle = 1 / derive().throughput.expr
    expansion = sp.series(service_rate * cycle, root, 0, 1).removeO()
    shift = expansion + sp.log(root)  # μD = -log σ + K
    k = sp.Symbol("K", real=True)
    reduced = cost * (excess - root) / (k - sp.log(root))
    (solution,) = sp.solve(sp.diff(reduced, root), root)
    # Sympy returns the principal branch, whose σ tends to e^{K+1} ≥ 1 as ε → 0; the
    # root in (0, 1) that tends to 0 is on the branch W_{-1} (tests check both facts).
    lower_branch = solution.replace(sp.LambertW, lambda z: sp.LambertW(z, -1))
    sigma_hat = lower_branch.subs(k, shift)
    routing = derive().rr_optimal_welfare.expr.subs(naor_ratio, 1 + excess)
    # -W_{-1}(-x) ~ log(1/x) as x -> 0+, so sigma_hat ~ eps / log(1/eps); S_RR* ~ C eps^2/4.
    routing_leading = sp.series(routing, excess, 0, 3).removeO()
    return LightTraffic(
        shift=shift,
        cycle_expansion=expansion,
        root=sigma_hat,
        welfare_ga=cost * sigma_hat,
        gate=(shift - sp.log(sigma_hat)) / service_rate - 1 / arrival_rate,
        price_of_forgetting=cost * sigma_hat / routing,
        price_of_forgetting_leading=sp.simplify(
            cost * excess / sp.log(1 / excess) / routing_leading
        ),
    )


@cache
def derive_heavy_traffic() -> HeavyTraffic:
    """Derive the ν → ∞ asymptotics by a regular perturbation in h = ν^{-1/2}.

    Returns
    -------
    HeavyTraffic
        Sympy expressions in ν, μ, Λ, C (cached).

    Examples
    --------
    >>> import sympy as sp
    >>> from qtheory.gated.derivation import arrival_rate, service_rate
    >>> heavy = derive_heavy_traffic()
    >>> sp.simplify(heavy.variability - (1 + service_rate**2 / arrival_rate**2) / 2)
    0

    References
    ----------
    See the module's References: Hassin and Ravner (2026).
    """
    import sympy as sp

    from qtheory.gated.derivation import (
        arrival_rate,
        cost,
        derive,
        naor_ratio,
        root,
        service_rate,
    )

    decay = sp.Symbol("u", positive=True)  # μ(1 − σ)
    cycle = (1 / derive().throughput.expr).subs(root, 1 - decay / service_rate)
    expansion = sp.series(cycle, decay, 0, 2).removeO()
    m = sp.factor(sp.diff(expansion, decay) * service_rate**2)
    h = sp.Symbol("h", positive=True)
    reward = cost * naor_ratio / service_rate
    welfare = (reward - cost / decay) / expansion
    stationary = sp.solve(sp.numer(sp.together(sp.diff(welfare, decay))), decay)
    (u_star,) = [
        u
        for u in stationary
        if sp.limit(u.subs(naor_ratio, h**-2), h, 0, "+") == 0
        and u.subs({naor_ratio: 4, service_rate: 1, arrival_rate: 2, cost: 1}) > 0
    ]
    gate = sp.series(
        (expansion - 1 / arrival_rate).subs(decay, u_star).subs(naor_ratio, h**-2), h, 0, 2
    ).removeO()
    rr = derive().rr_optimal_welfare.expr.subs(naor_ratio, h**-2)
    optimal = welfare.subs(decay, u_star).subs(naor_ratio, h**-2)
    pof = sp.series(optimal / rr, h, 0, 2).removeO()
    gain = sp.series(optimal - rr, h, 0, 0).removeO()  # the O(h^-2) terms cancel
    root_nu = sp.sqrt(naor_ratio)
    return HeavyTraffic(
        variability=m,
        cycle_expansion=expansion,
        gate=sp.simplify(gate.subs(h, 1 / root_nu)),
        price_of_forgetting=sp.simplify(pof.subs(h, 1 / root_nu)),
        welfare_gain=sp.simplify(gain.subs(h, 1 / root_nu)),
    )


@dataclass(frozen=True)
class AsymptoticCheck:
    """One quantity, exact (mpmath) against its asymptotic form, at one point.

    Attributes
    ----------
    point : str
        Where, e.g. ``"nu-1=1e-20"``.
    quantity : str
        What, e.g. ``"PoF"``.
    exact, asymptotic, relative_error : mpmath.mpf
        The exact value, the asymptotic form and ``|exact/asymptotic − 1|``.
    remainder : str
        The order of the relative error as the regime's limit is approached, and whether
        it is derived or observed (e.g. ``"O(ν^(-1/2)), derived"``).
    digits : int
        Significant digits to which ``exact`` and ``asymptotic`` are correct, and to
        which ``str`` prints them (the relative error is printed to 3 digits).

    Examples
    --------
    >>> pof, gate, gain = check_light_traffic(8, dps=20)
    >>> pof.point, pof.quantity, bool(pof.relative_error < 1e-5)
    ('nu-1=1e-8', 'PoF', True)
    >>> print(check_light_traffic(8, dps=12)[0])
    PoF at nu-1=1e-8: exact 17749547.9951, asymptotic 17749548.0033, relative error 4.64e-10 (remainder O(ε/log(1/ε)), observed)

    References
    ----------
    See the module's References: Hassin and Ravner (2026).
    """  # noqa: E501

    point: str
    quantity: str
    exact: mpmath.mpf
    asymptotic: mpmath.mpf
    relative_error: mpmath.mpf
    remainder: str = ""
    digits: int = 15

    def __str__(self) -> str:
        remainder = f" (remainder {self.remainder})" if self.remainder else ""
        return (
            f"{self.quantity} at {self.point}: exact {mpmath.nstr(self.exact, self.digits)}, "
            f"asymptotic {mpmath.nstr(self.asymptotic, self.digits)}, relative error "
            f"{mpmath.nstr(self.relative_error, 3)}{remainder}"
        )

    @classmethod
    def compare(
        cls, point: str, quantity: str, exact, asymptotic, remainder: str = "", digits: int = 15
    ) -> AsymptoticCheck:
        """Build a check; call inside the working precision of ``exact``.

        Parameters
        ----------
        point, quantity : str
            Labels of the point and of the quantity.
        exact, asymptotic : mpmath.mpf
            The exact value and its asymptotic form.

        Returns
        -------
        AsymptoticCheck
            With ``relative_error = |exact/asymptotic − 1|``.

        Raises
        ------
        ValueError
            If ``asymptotic`` is zero (no relative error exists).

        Examples
        --------
        |2/4 − 1| = 0.5:

        >>> check = AsymptoticCheck.compare("x=1", "q", mpmath.mpf(2), mpmath.mpf(4))
        >>> float(check.relative_error)
        0.5
        """
        if asymptotic == 0:
            raise ValueError(
                f"the asymptotic form of {quantity} vanishes at {point}: no relative error "
                "(raise dps)"
            )
        return cls(
            point, quantity, exact, asymptotic, abs(exact / asymptotic - 1), remainder, digits
        )


def _arrival(arrival: object, *, above: float = 0.0) -> mpmath.mpf:
    """Λ as mpf (``"inf"`` allowed), checked to be a number > ``above``."""
    if isinstance(arrival, bool) or not isinstance(arrival, str | int | float | mpmath.mpf):
        raise TypeError(f"arrival must be a number or a decimal string, got {arrival!r}")
    try:
        value = mpmath.mpf(arrival.strip() if isinstance(arrival, str) else arrival)
    except (TypeError, ValueError):
        raise ValueError(f"arrival must be a number or 'inf', got {arrival!r}") from None
    if mpmath.isnan(value) or not value > above:
        raise ValueError(f"arrival must be > {above:g} (inf allowed), got {arrival!r}")
    return value


def _magnitude_digits(arrival: mpmath.mpf) -> int:
    """|log10 Λ| rounded up (0 for Λ = ∞): digits that terms of size 1/Λ cancel."""
    if mpmath.isinf(arrival):
        return 0
    with mpmath.workdps(15):
        return int(mpmath.ceil(abs(mpmath.log10(arrival))))


def evaluate_asymptote(expr: sp.Expr, values: dict, arrival: str) -> mpmath.mpf:
    """Evaluate an asymptotic form with mpmath at the current precision.

    Parameters
    ----------
    expr : sympy.Expr
        A form of :func:`derive_light_traffic` or :func:`derive_heavy_traffic`.
    values : dict
        Numbers for its symbols other than Λ.
    arrival : str or number
        Λ (``"inf"`` allowed).

    Returns
    -------
    mpmath.mpf
        The value; at Λ = ∞ the form is taken at β = 1/Λ = 0 (its limit β ↓ 0 if the
        substitution is undefined).

    Raises
    ------
    TypeError
        ``expr`` not a Sympy expression, ``values`` not a dict, ``arrival`` not a
        number or string.
    ValueError
        ``arrival`` not a number > 0.

    Examples
    --------
    >>> from qtheory.gated.derivation import naor_excess as excess
    >>> light = derive_light_traffic()
    >>> value = evaluate_asymptote(
    ...     light.price_of_forgetting_leading, {excess: mpmath.mpf("1e-6")}, "inf"
    ... )
    >>> round(float(value), 2)  # 4/(eps log(1/eps))
    289529.65

    References
    ----------
    See the module's References: Hassin and Ravner (2026).
    """
    import sympy as sp

    from qtheory.gated.derivation import arrival_rate

    if not isinstance(expr, sp.Expr):
        raise TypeError(f"expr must be a Sympy expression, got {type(expr).__name__}")
    if not isinstance(values, dict):
        raise TypeError(f"values must be a dict of symbols to numbers, got {values!r}")
    lam = _arrival(arrival)
    if mpmath.isinf(lam):  # Λ = ∞ is β = 1/Λ = 0
        expr = _at_infinite_arrival(expr)
    else:
        values = {**values, arrival_rate: lam}
    symbols = sorted(values, key=str)
    evaluator = sp.lambdify(symbols, expr, modules=[{"LambertW": mpmath.lambertw}, "mpmath"])
    return evaluator(*(values[symbol] for symbol in symbols))


def _at_infinite_arrival(expr: sp.Expr) -> sp.Expr:
    """``expr`` at Λ = ∞: at β = 1/Λ = 0, or its limit β ↓ 0 where that substitution
    is undefined (e.g. sqrt(2/β² + 2μ²)·β)."""
    import sympy as sp

    from qtheory.gated.derivation import arrival_rate, mean_exp_phase

    in_beta = expr.subs(arrival_rate, 1 / mean_exp_phase)
    at_zero = in_beta.subs(mean_exp_phase, 0)
    if at_zero.has(sp.nan, sp.zoo):
        return sp.limit(in_beta, mean_exp_phase, 0, "+")
    return at_zero


#: The asymptotic forms :func:`pof_asymptotics` evaluates: name -> (regime, field of
#: :class:`LightTraffic` or :class:`HeavyTraffic`, minus what, the regime's variable).
_FORMS = {
    "light_welfare_ga": ("light", "welfare_ga", 0, "excess"),
    "light_gate": ("light", "gate", 0, "excess"),
    "light_pof_leading": ("light", "price_of_forgetting_leading", 0, "excess"),
    "heavy_pof_excess": ("heavy", "price_of_forgetting", 1, "naor_ratio"),
    "heavy_gate": ("heavy", "gate", 0, "naor_ratio"),
    "heavy_welfare_gain": ("heavy", "welfare_gain", 0, "naor_ratio"),
}


@cache
def asymptotic_formulas() -> dict[str, Formula]:
    """The asymptotic forms of :func:`pof_asymptotics` as formulas, each at finite Λ
    and at Λ = ∞ (``NAME_at_infinite_arrival``, the form at β = 1/Λ = 0 as
    :func:`evaluate_asymptote` takes it), whose mpmath evaluators
    ``tools/generate_evaluators.py`` writes into ``qtheory/gated/_generated.py``.

    Light traffic (in ε, μ, Λ, C): ``light_welfare_ga`` (Cσ̂), ``light_gate`` (τ*) and
    ``light_pof_leading`` (4/(ε log(1/ε))); heavy traffic (in ν, μ, Λ, C):
    ``heavy_pof_excess`` (PoF − 1), ``heavy_gate`` (τ*) and ``heavy_welfare_gain``
    (S_GA* − S_RR*).  The Λ = ∞ forms take (ε or ν, μ, C).

    Returns
    -------
    dict of str to qtheory.core.symbolic.Formula
        By name (cached; derived with Sympy).

    Examples
    --------
    >>> forms = asymptotic_formulas()
    >>> [str(arg) for arg in forms["heavy_gate"].args]
    ['nu', 'mu', 'Lambda', 'C']
    >>> forms["light_pof_leading_at_infinite_arrival"].expr
    -4/(epsilon*log(epsilon))
    """
    from qtheory.core.symbolic import Formula
    from qtheory.gated import derivation

    derived = {"light": derive_light_traffic(), "heavy": derive_heavy_traffic()}
    variables = {"excess": derivation.naor_excess, "naor_ratio": derivation.naor_ratio}
    mu, lam, cost_symbol = derivation.service_rate, derivation.arrival_rate, derivation.cost
    formulas = {}
    for name, (regime, field, minus, variable) in _FORMS.items():
        expr = getattr(derived[regime], field) - minus
        first = variables[variable]
        formulas[name] = Formula(name, expr, (first, mu, lam, cost_symbol))
        formulas[f"{name}_at_infinite_arrival"] = Formula(
            f"{name}_at_infinite_arrival", _at_infinite_arrival(expr), (first, mu, cost_symbol)
        )
    return formulas


def _asymptote(name: str, variable, mu, cost_value, arrival) -> mpmath.mpf:
    """The form ``name`` of :func:`asymptotic_formulas` at the current precision, by its
    generated evaluator in :mod:`qtheory.gated._generated` (``NAME_mp`` of (ε or ν, μ,
    Λ, C), or ``NAME_at_infinite_arrival_mp`` of (ε or ν, μ, C) for ``arrival`` = ∞)."""
    lam = _arrival(arrival)
    if mpmath.isinf(lam):
        return getattr(_generated, f"{name}_at_infinite_arrival_mp")(variable, mu, cost_value)
    return getattr(_generated, f"{name}_mp")(variable, mu, lam, cost_value)


#: The order of each relative error, as ν ↓ 1 (light) or ν → ∞ (heavy), and how it is
#: known: "derived" in the module notes, or "observed" (measured on ε = 1e-2..1e-30).
REMAINDERS = {
    "light": {
        "PoF": "O(ε/log(1/ε)), observed",
        "PoF leading 4/(ε log(1/ε))": "O(log log(1/ε)/log(1/ε)), derived",
        "tau*": "O(ε/log(1/ε)), observed",
        "S_GA*-S_RR*": "O(ε/log(1/ε)), observed",
    },
    "heavy": {
        "PoF-1": "O(ν^(-1/2)), derived",
        "tau*-tau_min": "O(ν^(-1/2)), derived",
        "S_GA*-S_RR*": "O(ν^(-1/2)), derived",
    },
}


def _short(value: mpmath.mpf) -> str:
    """A point's coordinate for its label: 3 significant digits, ``1e-8`` style."""
    text = mpmath.nstr(value, 3, min_fixed=-4, max_fixed=6, strip_zeros=True)
    return text.replace("e-0", "e-").replace("e+", "e").replace(".0e", "e")


def _regime(queue: GatedQueue, regime: object) -> str:
    if regime is None:
        return "light" if queue.naor_excess() < 1 else "heavy"
    if regime not in ("light", "heavy"):
        raise ValueError(f"regime must be 'light' (nu -> 1) or 'heavy' (nu -> inf), got {regime!r}")
    return regime


def pof_asymptotics(queue: GatedQueue, *, regime: str | None = None, dps: int):
    r"""Exact against asymptotic Price of Forgetting, optimal gate and welfare gain, at
    the parameters of ``queue``.

    ``regime="light"`` compares with the expansions as ν = Rμ/C ↓ 1 (σ̂ of the module
    notes, and the leading form 4/(ε log(1/ε))), ``"heavy"`` with those as ν → ∞ (which
    need Λ > μ).  Every parameter may be a decimal string, read exactly at the working
    precision, so that ν = 1 + 10^-30 is representable: ``reward="1.000…001"``.

    Parameters
    ----------
    queue : GatedQueue
        Λ (``"inf"`` allowed), μ, R, C with ν > 1.
    regime : {"light", "heavy"}, optional
        Default: ``"light"`` when ν < 2, else ``"heavy"``.
    dps : int, keyword-only, required
        Significant digits D of the exact and asymptotic values (both correct to D
        digits; the working precision adds the digits lost to cancellation, about
        log10 1/(ν − 1) or log10 ν, and |log10 Λ/μ|).

    Returns
    -------
    tuple of AsymptoticCheck
        Light: PoF, PoF against its leading form, τ*, S_GA* − S_RR*.  Heavy: PoF − 1,
        τ* − (1/μ − 1/Λ), S_GA* − S_RR*.  Each with its relative error and the order of
        the remainder (:data:`REMAINDERS`); ``str`` prints them to D digits.

    Raises
    ------
    TypeError, ValueError
        A bad ``queue``, ``regime`` or ``dps``; ν ≤ 1; Λ ≤ μ in the heavy regime; or a
        working precision above the ``dps`` limit (:mod:`qtheory.core.limits`).

    Examples
    --------
    ν = 1 + 10^-30 with μ = 2, C = 3 and Λ = 5 (R = 1.5 + 1.5·10^-30):

    >>> queue = GatedQueue("5", "2", "1.5" + "0" * 28 + "15", "3")
    >>> for check in pof_asymptotics(queue, dps=10):
    ...     print(check)
    PoF at nu-1=1e-30: exact 5.372644994e+28, asymptotic 5.372644994e+28, relative error 1.36e-32 (remainder O(ε/log(1/ε)), observed)
    PoF leading 4/(ε log(1/ε)) at nu-1=1e-30: exact 5.372644994e+28, asymptotic 5.790593092e+28, relative error 0.0722 (remainder O(log log(1/ε)/log(1/ε)), derived)
    tau* at nu-1=1e-30: exact 36.52561238, asymptotic 36.52561238, relative error 2.73e-32 (remainder O(ε/log(1/ε)), observed)
    S_GA*-S_RR* at nu-1=1e-30: exact 4.029483745e-32, asymptotic 4.029483745e-32, relative error 1.36e-32 (remainder O(ε/log(1/ε)), observed)
    """  # noqa: E501
    queue = checked_queue(queue)
    dps = required_dps(dps, cost="an asymptotic check")
    queue.require_worthwhile()
    regime = _regime(queue, regime)
    with mpmath.workdps(30):
        excess_30 = queue.naor_excess()
        lam, mu = _arrival(queue.arrival_rate), to_mpf(queue.service_rate)
        if regime == "heavy" and not lam > mu:
            raise ValueError(
                "arrival_rate must be > service_rate in the heavy regime (nu -> inf needs "
                f"more potential customers than the server takes), got {queue.arrival_rate!r}"
            )
        lost = abs(mpmath.log10(excess_30)) if regime == "light" else mpmath.log10(1 + excess_30)
        scale = 0 if mpmath.isinf(lam) else abs(mpmath.log10(lam / mu))
        digits = dps + 10 + int(mpmath.ceil(lost)) + int(mpmath.ceil(scale))
    limits.require(
        "dps", 2 * digits + 20, parameter="dps", what=f"the {regime}-traffic asymptotics"
    )
    with mpmath.workdps(2 * digits + 20):
        checks = _compare(queue, regime, digits, dps)
    return tuple(rounded(check, dps) for check in checks)


def _compare(queue: GatedQueue, regime: str, digits: int, dps: int) -> tuple[AsymptoticCheck, ...]:
    """The checks of :func:`pof_asymptotics`, at the current (working) precision."""
    mu, cost_value = to_mpf(queue.service_rate), to_mpf(queue.cost)
    eps = queue.naor_excess()
    gate, routing = optimal_gate(queue, dps=digits), optimal_routing(queue, dps=digits)
    arrival = queue.arrival_rate

    def check(quantity, exact, asymptotic):
        return AsymptoticCheck.compare(
            point, quantity, exact, asymptotic, REMAINDERS[regime][quantity], dps
        )

    if regime == "light":

        def light(name):
            return _asymptote(name, eps, mu, cost_value, arrival)

        welfare, leading = light("light_welfare_ga"), light("light_pof_leading")
        point = f"nu-1={_short(eps)}"
        return (
            check("PoF", gate.welfare / routing.welfare, welfare / routing.welfare),
            check("PoF leading 4/(ε log(1/ε))", gate.welfare / routing.welfare, leading),
            check("tau*", gate.gate, light("light_gate")),
            check("S_GA*-S_RR*", gate.welfare - routing.welfare, welfare - routing.welfare),
        )

    def heavy(name):
        return _asymptote(name, 1 + eps, mu, cost_value, arrival)

    boundary = 1 / mu - 1 / _arrival(arrival)
    point = f"nu={_short(1 + eps)}"
    return (
        check("PoF-1", gate.welfare / routing.welfare - 1, heavy("heavy_pof_excess")),
        check("tau*-tau_min", gate.gate - boundary, heavy("heavy_gate") - boundary),
        check("S_GA*-S_RR*", gate.welfare - routing.welfare, heavy("heavy_welfare_gain")),
    )


def _exponent(exponent: object) -> int:
    return positive_int("exponent", exponent)


def check_light_traffic(exponent: int, arrival: str = "inf", *, dps: int):
    """Exact against asymptotic PoF, τ* and welfare gain at ν = 1 + 10**-exponent
    (μ = C = 1): :func:`pof_asymptotics` on that queue, without the leading-form row.

    Parameters
    ----------
    exponent : int
        ε = ν − 1 = 10^-exponent, exponent ≥ 1.
    arrival : str or number
        Λ > 0 (``"inf"`` allowed).
    dps : int, keyword-only, required
        Digits D ≥ 1 of the returned values (each correct to D digits).

    Returns
    -------
    tuple of AsymptoticCheck
        PoF against σ̂/S_RR*, τ* against its asymptote, and S_GA* − S_RR* against
        Cσ̂ − S_RR*.

    Raises
    ------
    TypeError, ValueError
        For a bad ``exponent``, ``arrival`` or ``dps``, or a precision above the
        ``dps`` limit.

    Examples
    --------
    >>> pof, gate, gain = check_light_traffic(12, dps=40)
    >>> pof.relative_error < 1e-9, gain.exact < 1e-12
    (True, True)
    """
    exponent = _exponent(exponent)
    # ν = 1 + 10^-exponent needs exponent digits to be told from 1, and the check works
    # with more (pof_asymptotics adds the digits lost): refuse before spelling it out.
    limits.require(
        "dps",
        exponent + required_dps(dps, cost="an asymptotic check"),
        parameter="exponent",
        what=f"nu = 1 + 10^-{exponent} (at least exponent + dps working digits)",
    )
    reward = "1." + "0" * (exponent - 1) + "1"  # 1 + 10^-exponent, exactly
    pof, _, gate, gain = pof_asymptotics(
        GatedQueue(_arrival_text(arrival), 1, reward, 1), regime="light", dps=dps
    )
    return pof, gate, gain


def check_heavy_traffic(exponent: int, arrival: str = "inf", *, dps: int):
    """Exact against asymptotic PoF − 1, τ* − (1/μ − 1/Λ) and welfare gain at
    ν = 10**exponent (μ = C = 1): :func:`pof_asymptotics` on that queue.

    Parameters
    ----------
    exponent : int
        ν = 10^exponent, exponent ≥ 1.
    arrival : str or number
        Λ > μ = 1 (``"inf"`` allowed): heavy traffic needs more potential customers
        than the server can take.
    dps : int, keyword-only, required
        Digits D ≥ 1 of the returned values (each correct to D digits).

    Returns
    -------
    tuple of AsymptoticCheck
        PoF − 1, τ* − τ_min and S_GA* − S_RR* against their asymptotic forms.

    Raises
    ------
    TypeError, ValueError
        For a bad ``exponent``, ``arrival`` (≤ 1) or ``dps``, or a precision above the
        ``dps`` limit.

    Examples
    --------
    >>> excess_pof, excess_gate, gain = check_heavy_traffic(12, dps=40)
    >>> excess_pof.relative_error < 1e-5
    True
    """
    exponent = _exponent(exponent)
    queue = GatedQueue(_arrival_text(arrival), 1, f"1e{exponent}", 1)
    return pof_asymptotics(queue, regime="heavy", dps=dps)


def _arrival_text(arrival: object):
    """``arrival`` validated (a number > 0, ``"inf"`` allowed) and passed on unchanged."""
    _arrival(arrival)
    return arrival
