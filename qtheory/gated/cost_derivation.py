r"""Sympy derivation of the expected cost of one admitted customer, for every built-in
sojourn cost and holding cost of the gated-admission model.

Both policies, gated admission (GA) and random routing (RR), turn the unobservable
queue into a GI/M/1 queue of admitted customers, whose root :math:`\sigma\in(0,1)` fixes
the two laws a cost can depend on:

- the sojourn time :math:`W` is Exp(:math:`u`), :math:`u = \mu(1-\sigma)`
  (Kleinrock, Vol. I, Sec. 6.4), so a customer who pays :math:`C\,\varphi(W)` costs on
  average :math:`g(u) = C\int_0^\infty \varphi(t)\,u e^{-ut}\,dt`;
- the number present, seen at a random time, is 0 with probability :math:`1-\rho` and
  :math:`n\ge 1` with probability :math:`\rho(1-\sigma)\sigma^{n-1}`, :math:`\rho =
  \lambda/\mu`, so a holding cost :math:`C n^p` per unit time costs
  :math:`C\,E[Q^p] = \lambda\,g`, per admitted customer

  .. math:: g(\sigma) = \frac{C}{\mu}(1-\sigma)\sum_{n\ge1} n^p\sigma^{n-1}
            = \frac{C}{\mu}\,\frac{(1-\sigma)\,\mathrm{Li}_{-p}(\sigma)}{\sigma}.

Welfare per unit time is then :math:`\lambda\,(R - g)` under either policy, with
:math:`\lambda` the admitted rate: the cost depends on the policy only through
:math:`\sigma` (:mod:`qtheory.gated.cost_optimum`).  The families, with :math:`C` the
scale (``power:1`` is the linear cost :math:`C\,W` of :mod:`qtheory.gated.welfare`):

==========================  ====================================  ================================
family                      :math:`C\varphi(t)`                   :math:`g(u)`
==========================  ====================================  ================================
``power:p``, p > 0          :math:`C t^p`                         :math:`C\,\Gamma(p+1)\,u^{-p}`
``deadline:d``, d > 0       :math:`C\,1\{t > d\}`                 :math:`C e^{-ud}`
``exponential:θ``, θ > 0    :math:`C(e^{\theta t}-1)/\theta`       :math:`C/(u-\theta)`, u > θ
==========================  ====================================  ================================

Sympy computes every integral (and the sum, as :math:`\mathrm{Li}_{-p}`); the evaluators
the optimiser calls are generated from these expressions into
``qtheory/gated/_generated.py`` (``tools/generate_evaluators.py``).

Uniqueness.  Write :math:`m(u) = u^2\,|g'(u)|`.  In :math:`w = -\log\sigma` GA's welfare
is :math:`S = N/D`, :math:`N = R - g`, :math:`D` the mean admitted inter-arrival time, and
(with :math:`h = e^w - 1 - w`, :math:`k(y) = \log(1+y) - y/(1+y)`, :math:`\beta = 1/\Lambda`,
the identities of :mod:`qtheory.gated.certified`)

.. math:: S'(w) = \frac{\mu\sigma}{u^2D^2}\,G(w),\qquad G = m(u)\,D - N\,(h + k(\beta u)),
          \qquad G'(w) = m'(u)\,\mu\sigma\,D - N\,(h + k(\beta u))'.

Where :math:`N > 0`, :math:`(h + k)' > 0`, so :math:`m' \le 0` makes :math:`G` strictly
decreasing: GA's welfare has at most one critical point where it is positive, and it is
the global maximiser.  :math:`m` is constant for the linear cost, :math:`\propto u^{1-p}`
for ``power:p`` (nonincreasing iff :math:`p \ge 1`), :math:`Cu^2/(u-\theta)^2` for
``exponential:θ`` (decreasing), :math:`C(4\mu/u - 1)` for the holding cost ``power:2``;
for ``deadline:d``, :math:`m = Cdu^2e^{-ud}` rises on :math:`u < 2/d`, and there the
optimum is numerical.  RR's welfare :math:`\lambda(R - g(\mu - \lambda))` is concave in
:math:`\lambda` whenever :math:`g` is nonincreasing and convex in :math:`u`, which every
sojourn family above and the holding costs ``power:1``, ``power:2`` are.
:func:`uniqueness_conditions` returns :math:`m'` and :math:`g''` for the tests to check.

References
----------
.. [1] L. Kleinrock, Queueing Systems, Vol. I, Wiley (1975), Sec. 6.4 (the GI/M/1
   sojourn and queue-length laws).
.. [2] R. Hassin and L. Ravner, "Using memory to control admission to unobservable
   queues", arXiv:2606.02464 (2026).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import sympy as sp

from qtheory.core.symbolic import Formula

__all__ = ["CostFormulas", "derive_costs", "uniqueness_conditions"]

decay = sp.Symbol("u", positive=True)  # u = μ(1 − σ), the sojourn law's rate
sojourn = sp.Symbol("t", positive=True)  # a sojourn time
exponent = sp.Symbol("p", positive=True)
deadline = sp.Symbol("d", positive=True)
tilt = sp.Symbol("theta", positive=True)
cost = sp.Symbol("C", positive=True)
service_rate = sp.Symbol("mu", positive=True)
root = sp.Symbol("sigma", positive=True)
log_decay = sp.Symbol("w", positive=True)  # w = −log σ
customers = sp.Symbol("n", integer=True, positive=True)

#: C φ(t) of each sojourn family, in the family's shape symbol.
SOJOURN_COSTS = {
    "power": (exponent, cost * sojourn**exponent),
    "deadline": (deadline, cost * sp.Heaviside(sojourn - deadline)),
    "exponential": (tilt, cost * (sp.exp(tilt * sojourn) - 1) / tilt),
}


@dataclass(frozen=True)
class CostFormulas:
    """The expected cost of one admitted customer for each built-in family.

    Attributes
    ----------
    sojourn : dict of str to Formula
        ``power``, ``deadline``, ``exponential``: :math:`g(u) = E[C\\varphi(W)]`,
        W ~ Exp(u), in (u, shape, C).
    holding_power : Formula
        :math:`g = (C/\\mu)(1-\\sigma)\\,\\mathrm{Li}_{-p}(\\sigma)/\\sigma` in (w, μ, p, C),
        σ = e^{−w}: the holding cost C n^p per unit time, per admitted customer.
    holding_sum : sympy.Expr
        The same before the sum is named: :math:`(C/\\mu)(1-\\sigma)\\sum_{n\\ge1}
        n^p\\sigma^{n-1}`.

    Examples
    --------
    >>> f = derive_costs()
    >>> f.sojourn["power"].expr
    C*gamma(p + 1)/u**p
    >>> f.sojourn["exponential"].expr
    C/(-theta + u)
    """

    sojourn: dict[str, Formula]
    holding_power: Formula
    holding_sum: sp.Expr


def _expected(shape: sp.Symbol, cost_of: sp.Expr) -> sp.Expr:
    density = decay * sp.exp(-decay * sojourn)
    value = sp.integrate(cost_of * density, (sojourn, 0, sp.oo), conds="none")
    return sp.simplify(value)


@cache
def derive_costs() -> CostFormulas:
    """Derive every family's expected cost per admitted customer (cached; about a
    second).

    Returns
    -------
    CostFormulas

    Examples
    --------
    >>> derive_costs().sojourn["deadline"].expr
    C*exp(-d*u)
    >>> derive_costs().holding_power.args
    (w, mu, p, C)

    References
    ----------
    See the module's References: Kleinrock (1975), Sec. 6.4.
    """
    sojourn_formulas = {
        family: Formula(f"sojourn_cost_{family}", _expected(shape, cost_of), (decay, shape, cost))
        for family, (shape, cost_of) in SOJOURN_COSTS.items()
    }
    scale = cost / service_rate * (1 - root)
    terms = customers**exponent * root ** (customers - 1)
    holding_sum = scale * sp.Sum(terms, (customers, 1, sp.oo))
    holding = Formula(
        "holding_cost_power",
        scale * sp.polylog(-exponent, root) / root,
        (log_decay, service_rate, exponent, cost),
        {root: sp.exp(-log_decay)},
    )
    return CostFormulas(sojourn_formulas, holding, holding_sum)


def uniqueness_conditions() -> dict[str, tuple[sp.Expr, sp.Expr]]:
    """(m'(u), g''(u)) for each family where GA's and RR's optima are proved unique.

    m(u) = u² |g'(u)|: GA's welfare has one critical point where m' ≤ 0; RR's welfare is
    concave where g'' ≥ 0 (module notes).  The holding costs ``power:1`` and ``power:2``
    are written in u through σ = 1 − u/μ.

    Returns
    -------
    dict of str to (sympy.Expr, sympy.Expr)
        Keys ``power``, ``exponential``, ``holding:1``, ``holding:2``.

    Examples
    --------
    >>> m_prime, _ = uniqueness_conditions()["exponential"]
    >>> sp.factor(m_prime)
    -2*C*theta*u/(-theta + u)**3
    """
    f = derive_costs()
    costs = {
        "power": f.sojourn["power"].expr,
        "exponential": f.sojourn["exponential"].expr,
    }
    for p in (1, 2):
        holding = f.holding_power.expr.subs(exponent, p)
        holding = sp.expand_func(holding).subs(root, 1 - decay / service_rate)
        costs[f"holding:{p}"] = sp.simplify(holding)
    conditions = {}
    for name, g in costs.items():
        m = decay**2 * -sp.diff(g, decay)
        conditions[name] = (sp.simplify(sp.diff(m, decay)), sp.simplify(sp.diff(g, decay, 2)))
    return conditions
