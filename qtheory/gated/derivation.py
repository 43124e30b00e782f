r"""Sympy derivation of the gated-admission (GA) and random-routing (RR) model.

Source: R. Hassin and L. Ravner, "Using memory to control admission to unobservable
queues", arXiv:2606.02464; random routing after Edelson and Hildebrand (Econometrica
1975).  Every formula of the model is derived here once; the numerical modules evaluate
these expressions and the report prints them.

Model.  Potential customers arrive Poisson(:math:`\Lambda`), service is Exp(:math:`\mu`),
each served customer is worth :math:`R`, and each customer in the system costs :math:`C`
per unit time.  GA blocks arrivals for a time :math:`\tau` after each admission, so
admitted inter-arrival times are :math:`T = \tau + \mathrm{Exp}(\Lambda)` with

.. math:: A^*(s) = E[e^{-sT}] = e^{-s\tau}\,\frac{\Lambda}{\Lambda + s}.

The admitted stream makes a GI/M/1 queue; its root :math:`\sigma\in(0,1)` of
:math:`\sigma = A^*(\mu(1-\sigma))` gives the sojourn law Exp(:math:`\mu(1-\sigma)`).
:math:`\sigma = 1` is always a (trivial) root, so we never solve for :math:`\sigma` from
the equation directly: the equation is solved for :math:`\tau` instead,

.. math:: \tau(\sigma) = \frac{1}{\mu(1-\sigma)}
          \log\frac{\Lambda}{\sigma(\Lambda + \mu(1-\sigma))},

a closed form that is strictly decreasing in :math:`\sigma` on the stable range.

Numerical parametrisation.  Evaluators take :math:`w = -\log\sigma\in(0,\infty)` and
:math:`\beta = 1/\Lambda\in[0,\infty)`: then :math:`\sigma = e^{-w}` and
:math:`1-\sigma = -\mathrm{expm1}(-w)` both keep full relative accuracy in float64
(light traffic :math:`\sigma\to 0` and heavy traffic :math:`\sigma\to 1` alike), and
:math:`\beta = 0` is the deterministic limit :math:`\Lambda = \infty`.

References
----------
.. [1] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026).
.. [2] N. M. Edelson and D. K. Hildebrand, "Congestion tolls for Poisson queuing
   processes", Econometrica 43(1):81-92 (1975).
.. [3] L. Kleinrock, Queueing Systems, Vol. I, Wiley (1975).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import sympy as sp

from qtheory.core.symbolic import Formula

# Symbols of the paper (display forms) ...
arrival_rate = sp.Symbol("Lambda", positive=True)  # potential arrival rate Λ
service_rate = sp.Symbol("mu", positive=True)  # μ
gate = sp.Symbol("tau", nonnegative=True)  # τ, the gate length
reward = sp.Symbol("R", positive=True)
cost = sp.Symbol("C", positive=True)
root = sp.Symbol("sigma", positive=True)  # σ, the GI/M/1 root
transform_variable = sp.Symbol("s", positive=True)
admission_rate = sp.Symbol("lambda", positive=True)  # λ, RR admission rate
naor_ratio = sp.Symbol("nu", positive=True)  # ν = Rμ/C
naor_excess = sp.Symbol("epsilon", positive=True)  # ε = ν − 1, exact from the inputs
# ... and of the numerical parametrisation.
log_decay = sp.Symbol("w", positive=True)  # w = -log σ
mean_exp_phase = sp.Symbol("beta", nonnegative=True)  # β = 1/Λ

NUMERIC = {root: sp.exp(-log_decay), arrival_rate: 1 / mean_exp_phase}
"""Substitutions from display symbols to the numerical parametrisation (w, β)."""

ROOT_ARGS = (log_decay, service_rate, mean_exp_phase)
WELFARE_ARGS = (log_decay, service_rate, mean_exp_phase, reward, cost)
RR_ARGS = (admission_rate, service_rate, reward, cost)


@dataclass(frozen=True)
class GatedFormulas:
    """Every formula of the gated-admission model, derived by :func:`derive`.

    Fields of type :class:`qtheory.core.symbolic.Formula` carry a Sympy expression with
    float64 and mpmath evaluators in the numerical parametrisation (w, β); the others
    are plain Sympy expressions for display and tests.

    Attributes
    ----------
    interarrival_lst, interarrival_lst_deterministic : sympy.Expr
        A*(s) = e^{−sτ} Λ/(Λ + s) and its limit e^{−sτ} as Λ → ∞.
    mean_interarrival : sympy.Expr
        E[T] = −A*'(0) = τ + 1/Λ.
    root_equation : sympy.Eq
        σ = A*(μ(1 − σ)).
    root_residual : Formula
        A*(μ(1 − σ)) − σ in (σ, μ, τ, β).
    gate_of_root : Formula
        τ(σ) = log(Λ/(σ(Λ + μ(1 − σ))))/(μ(1 − σ)), in (w, μ, β).
    gate_excess : sympy.Expr
        τ(σ) − (1/μ − 1/Λ), the distance from the stability boundary.
    decay_rate, mean_sojourn : Formula
        μ(1 − σ) and the mean sojourn 1/μ + σ/(μ(1 − σ)) = 1/(μ(1 − σ)).
    sojourn_cdf : sympy.Expr
        P(sojourn ≤ t) = 1 − e^{−μ(1 − σ)t}.
    throughput : Formula
        1/(τ(σ) + 1/Λ).
    welfare_ga : Formula
        S_GA = N/D in (w, μ, β, R, C).
    net_reward, cycle : sympy.Expr
        N(σ) = R − C/μ − Cσ/(μ(1 − σ)) and D(σ) = τ(σ) + 1/Λ.
    welfare_ga_first_order_display : sympy.Eq
        N'(σ)D(σ) − N(σ)D'(σ) = 0.
    welfare_ga_first_order : Formula
        N'(w)D(w) − N(w)D'(w), whose root in w is the optimal gate.
    gate_slope : Formula
        τ'(w) = D'(w), in (w, μ, β): positive, so τ increases with w.
    welfare_ga_sign, welfare_ga_sign_slope : Formula
        G(w) = u²/(μσ)·(N'(w)D(w) − N(w)D'(w)), u = μ(1 − σ), which has the sign of
        S_GA'(w) (the certified optimum decides its sign), and G'(w); in (w, μ, β, R, C).
    welfare_rr : Formula
        S_RR(λ) = λ(R − C/(μ − λ)) in (λ, μ, R, C).
    rr_optimal_rate, rr_optimal_welfare : Formula
        μ − √(μC/R) in (μ, R, C) and C(√ν − 1)² in (ν, C).
    rr_optimal_rate_excess, rr_optimal_welfare_excess : Formula
        The same in ε = ν − 1 without cancellation, in (μ, ε) and (ε, C).
    price_of_forgetting : sympy.Expr
        S_GA*/S_RR*, with S_GA* a symbol.

    Examples
    --------
    >>> f = derive()
    >>> sp.simplify(f.rr_optimal_rate.expr - (service_rate - sp.sqrt(service_rate * cost / reward)))
    0
    >>> sp.simplify(f.rr_optimal_welfare.expr - cost * (sp.sqrt(naor_ratio) - 1) ** 2)
    0

    References
    ----------
    See the module's References:

    - Hassin and Ravner (2026);
    - Edelson and Hildebrand (1975).
    """

    interarrival_lst: sp.Expr  # A*(s)
    interarrival_lst_deterministic: sp.Expr  # lim_{Λ→∞} A*(s)
    mean_interarrival: sp.Expr  # E[T] = -A*'(0)
    root_equation: sp.Eq  # σ = A*(μ(1-σ))
    root_residual: Formula  # A*(μ(1-σ)) - σ, in (σ, μ, τ, β)
    gate_of_root: Formula  # τ(σ)
    gate_excess: sp.Expr  # τ(σ) − (1/μ − 1/Λ): distance from the stability boundary
    decay_rate: Formula  # μ(1-σ)
    mean_sojourn: Formula  # 1/(μ(1-σ))
    sojourn_cdf: sp.Expr  # P(sojourn ≤ t)
    throughput: Formula  # 1/(τ(σ) + 1/Λ)
    welfare_ga: Formula  # S_GA as a function of σ
    net_reward: sp.Expr  # N(σ) = R - C/μ - C E[W]
    cycle: sp.Expr  # D(σ) = τ(σ) + 1/Λ, the mean admitted inter-arrival time
    welfare_ga_first_order_display: sp.Eq  # N'(σ)D(σ) - N(σ)D'(σ) = 0 for S_GA = N/D
    welfare_ga_first_order: Formula  # N'(w)D(w) - N(w)D'(w), w = -log σ (evaluated)
    gate_slope: Formula  # τ'(w) = D'(w)
    welfare_ga_sign: Formula  # G(w) = u²/(μσ) (N'D - ND'), the sign of S_GA'(w)
    welfare_ga_sign_slope: Formula  # G'(w)
    welfare_rr: Formula  # S_RR(λ), in (λ, μ, R, C)
    rr_optimal_rate: Formula  # unconstrained argmax of S_RR: μ - sqrt(μC/R), in (μ, R, C)
    rr_optimal_welfare: Formula  # S_RR at that rate, in terms of (ν, C)
    rr_optimal_rate_excess: Formula  # the same rate without cancellation, in (μ, ε)
    rr_optimal_welfare_excess: Formula  # the same welfare without cancellation, in (ε, C)
    price_of_forgetting: sp.Expr  # S_GA*/S_RR*, with S_GA* a symbol


def _interarrival_lst() -> sp.Expr:
    s = transform_variable
    return sp.exp(-s * gate) * arrival_rate / (arrival_rate + s)


def _gate_of_root(root_equation: sp.Eq) -> sp.Expr:
    """Solve the root equation for τ (Sympy finds the unique real solution) and write it
    with ``log(1 + μ(1-σ)/Λ)``, the form that stays finite as Λ → ∞."""
    (solution,) = sp.solve(root_equation, gate)
    extra = sp.Wild("extra", exclude=[arrival_rate])
    return sp.expand_log(solution, force=True).replace(
        sp.log(arrival_rate + extra), sp.log(arrival_rate) + sp.log(1 + extra / arrival_rate)
    )


def _first_order_numerator(net_reward: sp.Expr, cycle: sp.Expr, variable: sp.Symbol) -> sp.Expr:
    """Numerator of dS/dx for S = N/D, i.e. N'D - ND' (same sign as dS/dx)."""
    return sp.diff(net_reward, variable) * cycle - net_reward * sp.diff(cycle, variable)


def _numeric_form(expr: sp.Expr) -> sp.Expr:
    return expr.subs(NUMERIC)


def _without_cancellation(expr: sp.Expr) -> sp.Expr:
    """``expr`` (in μ, R, C or ν) in ε = ν − 1 with every √ν − 1 written as
    ε/(√(1+ε) + 1): C(√ν − 1)² in float or mpmath loses 2 log10(1/ε) digits when ν ↓ 1
    (it is (ν + 1) − 2√ν), the rewritten form none.  The tests check the two agree."""
    root_nu = sp.Symbol("r", positive=True)  # √ν, as an atom
    in_nu = expr.subs(reward, naor_ratio * cost / service_rate)
    in_root = sp.factor(sp.simplify(in_nu.subs(naor_ratio, root_nu**2)))
    conjugate = naor_excess / (sp.sqrt(1 + naor_excess) + 1)
    return in_root.subs(root_nu - 1, conjugate).subs(root_nu, sp.sqrt(1 + naor_excess))


@cache
def derive() -> GatedFormulas:
    """Derive every formula of the model (cached; takes about a second).

    The root equation σ = A*(μ(1 − σ)) is solved for τ (not σ), the welfare of GA is
    N/D with N the net reward and D the mean cycle, and the RR optimum is the
    stationary point of λ(R − C/(μ − λ)) below μ (see the module notes).

    Returns
    -------
    GatedFormulas
        The formulas (the same object on every call).

    Examples
    --------
    >>> f = derive()
    >>> f.mean_interarrival
    tau + 1/Lambda
    >>> f.interarrival_lst_deterministic
    exp(-s*tau)
    >>> sp.simplify(f.decay_rate.expr - service_rate * (1 - root))
    0

    References
    ----------
    See the module's References:

    - Hassin and Ravner (2026);
    - Edelson and Hildebrand (1975);
    - Kleinrock (1975), Sec. 6.4 (GI/M/1).
    """
    lst = _interarrival_lst()
    s = transform_variable
    mean_interarrival = sp.simplify(-sp.diff(lst, s).subs(s, 0))
    decay = service_rate * (1 - root)
    root_equation = sp.Eq(root, lst.subs(s, decay))
    gate_of_root = _gate_of_root(root_equation)
    cycle = mean_interarrival.subs(gate, gate_of_root)
    throughput = 1 / cycle
    mean_wait = root / decay  # E[W] = σ/(μ(1-σ)); sojourn = wait + service
    mean_sojourn = 1 / service_rate + mean_wait
    # R - C/μ - C E[W]: written as a sum so that float64 keeps full relative accuracy of
    # the net reward when R ≈ C/μ (ν ↓ 1).
    net_reward = reward - cost / service_rate - cost * mean_wait
    welfare_ga = net_reward / cycle
    welfare_rr = admission_rate * (reward - cost / (service_rate - admission_rate))
    stationary = sp.solve(sp.diff(welfare_rr, admission_rate), admission_rate)
    rr_rate = next(
        r for r in stationary if sp.simplify(r - service_rate).could_extract_minus_sign()
    )
    rr_welfare = sp.factor(
        sp.simplify(
            welfare_rr.subs(admission_rate, rr_rate).subs(reward, naor_ratio * cost / service_rate)
        )
    )
    welfare_ga_optimal = sp.Symbol("S_GA^*", positive=True)
    # The evaluators differentiate in w = -log σ (dσ/dw = -σ < 0: the same root).
    first_order = _first_order_numerator(_numeric_form(net_reward), _numeric_form(cycle), log_decay)
    sign = _numeric_form(decay**2 / (service_rate * root)) * first_order  # times u²/(μσ) > 0
    t = sp.Symbol("t", positive=True)
    residual_args = (root, service_rate, gate, mean_exp_phase)
    return GatedFormulas(
        interarrival_lst=lst,
        interarrival_lst_deterministic=sp.limit(lst, arrival_rate, sp.oo),
        mean_interarrival=mean_interarrival,
        root_equation=root_equation,
        root_residual=Formula(
            "root_residual",
            sp.simplify(
                (root_equation.rhs - root_equation.lhs).subs(arrival_rate, 1 / mean_exp_phase)
            ),
            residual_args,
        ),
        gate_of_root=Formula("gate_of_root", gate_of_root, ROOT_ARGS, NUMERIC),
        gate_excess=gate_of_root - (1 / service_rate - 1 / arrival_rate),
        decay_rate=Formula("decay_rate", decay, ROOT_ARGS, NUMERIC),
        mean_sojourn=Formula("mean_sojourn", mean_sojourn, ROOT_ARGS, NUMERIC),
        sojourn_cdf=1 - sp.exp(-decay * t),
        throughput=Formula("throughput", throughput, ROOT_ARGS, NUMERIC),
        welfare_ga=Formula("welfare_ga", welfare_ga, WELFARE_ARGS, NUMERIC),
        net_reward=net_reward,
        cycle=cycle,
        welfare_ga_first_order_display=sp.Eq(_first_order_numerator(net_reward, cycle, root), 0),
        welfare_ga_first_order=Formula("welfare_ga_first_order", first_order, WELFARE_ARGS),
        gate_slope=Formula(
            "gate_slope", sp.diff(_numeric_form(gate_of_root), log_decay), ROOT_ARGS
        ),
        welfare_ga_sign=Formula("welfare_ga_sign", sign, WELFARE_ARGS),
        welfare_ga_sign_slope=Formula(
            "welfare_ga_sign_slope", sp.diff(sign, log_decay), WELFARE_ARGS
        ),
        welfare_rr=Formula("welfare_rr", welfare_rr, RR_ARGS),
        rr_optimal_rate=Formula("rr_optimal_rate", rr_rate, RR_ARGS[1:]),
        rr_optimal_welfare=Formula("rr_optimal_welfare", rr_welfare, (naor_ratio, cost)),
        rr_optimal_rate_excess=Formula(
            "rr_optimal_rate_excess",
            _without_cancellation(rr_rate),
            (service_rate, naor_excess),
        ),
        rr_optimal_welfare_excess=Formula(
            "rr_optimal_welfare_excess",
            _without_cancellation(rr_welfare),
            (naor_excess, cost),
        ),
        price_of_forgetting=welfare_ga_optimal / rr_welfare,
    )


def dominance_identity() -> tuple[sp.Expr, sp.Expr]:
    r"""The identity behind GA's stochastic dominance over RR at equal throughput.

    At equal throughput :math:`\lambda = 1/(\tau + 1/\Lambda)`, GA's root is below RR's
    :math:`\rho = \lambda/\mu` iff :math:`A^*_{GA}(s) < \lambda/(\lambda+s)` at
    :math:`s = \mu - \lambda` (the residual :math:`A^*(\mu(1-x)) - x` is convex with
    zeros at :math:`\sigma` and 1).  With :math:`a = s\tau`, :math:`b = s/\Lambda`
    that inequality reads :math:`1 + a + b < e^{a}(1 + b)`, and

    .. math:: e^{a}(1+b) - (1+a+b) = (e^{a} - 1 - a)(1 + b) + ab,

    a sum of non-negative terms, positive when :math:`a > 0`.  Returns the two sides
    of the identity; ``sympy.simplify(lhs - rhs) == 0`` proves it, and
    :math:`e^a - 1 - a = \sum_{k\ge2} a^k/k! > 0`.

    Returns
    -------
    tuple of sympy.Expr
        (lhs, rhs) = (e^a(1 + b) − (1 + a + b), (e^a − 1 − a)(1 + b) + ab) in
        non-negative symbols a, b.

    Examples
    --------
    >>> lhs, rhs = dominance_identity()
    >>> sp.simplify(lhs - rhs)
    0

    References
    ----------
    See the module's References:

    - Hassin and Ravner (2026);
    - Kleinrock (1975), Sec. 6.4 (the GI/M/1 root as the smaller zero of the convex
      residual).
    """
    a, b = sp.symbols("a b", nonnegative=True)
    return sp.exp(a) * (1 + b) - (1 + a + b), (sp.exp(a) - 1 - a) * (1 + b) + a * b


def welfare_dominance_identities() -> list[tuple[sp.Expr, sp.Expr]]:
    r"""The identities that carry dominance to welfare: PoF ≥ 1 for all parameters.

    Let λ* = min(Λ, μ − √(μC/R)) be RR's optimal rate (ν = Rμ/C > 1, so λ* > 0).  If
    λ* < Λ, the gate τ = 1/λ* − 1/Λ > 0 gives GA the throughput λ*, and with
    s = μ − λ*, a = sτ, b = s/Λ (b = 0 for Λ = ∞)

    .. math:: 1 + a + b = \mu/\lambda^*,

    so :func:`dominance_identity` proves σ_GA < λ*/μ; then

    .. math:: S_{GA}(\tau) - S_{RR}(\lambda^*)
              = \lambda^* C\,\frac{\lambda^* - \mu\sigma}{(\mu - \lambda^*)\,\mu(1 - \sigma)} > 0.

    If λ* = Λ, the gate τ = 0 is random routing itself.  Either way S_GA* ≥ S_RR* > 0,
    i.e. PoF ≥ 1.  Returns both identities as (lhs, rhs) pairs, in positive symbols
    (β = 1/Λ ≥ 0 stands for Λ); ``sympy.simplify(lhs - rhs) == 0`` proves each.

    Returns
    -------
    list of (sympy.Expr, sympy.Expr)

    Examples
    --------
    >>> [sp.simplify(lhs - rhs) for lhs, rhs in welfare_dominance_identities()]
    [0, 0]
    """
    lam, mu, reward, cost, sigma = sp.symbols("lambda mu R C sigma", positive=True)
    beta = sp.Symbol("beta", nonnegative=True)
    s = mu - lam
    tau = 1 / lam - beta
    throughput = (1 + s * tau + s * beta, mu / lam)
    ga = lam * (reward - cost / (mu * (1 - sigma)))
    rr = lam * (reward - cost / (mu - lam))
    welfare = (ga - rr, lam * cost * (lam - mu * sigma) / ((mu - lam) * mu * (1 - sigma)))
    return [throughput, welfare]
