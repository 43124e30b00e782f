"""An independent mpmath route to the Price of Forgetting and its remainder bounds, for
the tests: for each gate τ the GI/M/1 root σ is solved by bracketing, S_GA(τ) is
maximised over τ ≥ 0 by the root of its derivative (σ differentiated implicitly), and
S_RR* = λ(R − C/(μ − λ)) at λ = min(Λ, μ − √(μC/R)).  Nothing here calls the package."""

from __future__ import annotations

from fractions import Fraction

import mpmath
from mpmath import expm1, log, log1p, mpf, sqrt

DPS = 60


def _bisect(f, a, b):
    """The root of f on [a, b] (f(a), f(b) of opposite signs), Illinois steps."""
    fa, fb, side = f(a), f(b), 0
    assert fa * fb < 0, (a, b)
    tol = mpf(2) ** (-mpmath.mp.prec + 12)
    for _ in range(2000):
        c = (a * fb - b * fa) / (fb - fa)
        if not min(a, b) <= c <= max(a, b):
            c = (a + b) / 2
        fc = f(c)
        if fc == 0:
            return c
        if fc * fb < 0:
            a, fa, side = b, fb, 0
        else:
            fa, side = (fa / 2 if side else fa), 1
        b, fb = c, fc
        if abs(b - a) <= tol * max(abs(a), abs(b)):
            return b
    raise AssertionError("no convergence")


def gi_m_1_root(tau, lam, mu):
    """(σ, u = μ(1 − σ)) of σ = e^{−uτ} Λ/(Λ + u) in (0, 1), via s = log σ = −e^t."""

    def excess(t):  # (s + uτ + log(1 + u/Λ)) / (−s): > 0 above the root in t
        s = -mpmath.exp(t)
        u = -mu * expm1(s)
        return (s + u * tau + (0 if lam is None else log1p(u / lam))) / -s

    lo, hi = mpf(0), mpf(0)
    while excess(lo) <= 0:
        lo -= 4
    while excess(hi) >= 0:
        hi += 4
    s = -mpmath.exp(_bisect(excess, lo, hi))
    return mpmath.exp(s), -mu * expm1(s)


def _slope(tau, lam, mu, reward, cost):
    """D² dS_GA/dτ, D = τ + 1/Λ (the sign of S_GA')."""
    sigma, u = gi_m_1_root(tau, lam, mu)
    du = -u / (-1 / (mu * sigma) + tau + (0 if lam is None else 1 / (lam + u)))
    return cost * du * (tau + (0 if lam is None else 1 / lam)) / u**2 - (reward - cost / u)


def pof_direct(lam, mu, reward, cost):
    """PoF = max_τ S_GA(τ) / S_RR(λ*) at the current mpmath precision (Λ None: ∞)."""
    u0 = cost / reward  # S_GA < 0 below the τ where u = C/R
    lo = max((-log1p(-u0 / mu) - (0 if lam is None else log1p(u0 / lam))) / u0, mpf(0))
    if lo == 0 and _slope(lo, lam, mu, reward, cost) <= 0:
        tau = lo
    else:
        x_hi = log(max(lo, 1 / mu))
        while _slope(lo + mpmath.exp(x_hi), lam, mu, reward, cost) > 0:
            x_hi += 1
        x_lo = x_hi - 1
        while _slope(lo + mpmath.exp(x_lo), lam, mu, reward, cost) <= 0:
            x_lo -= 2
        x = _bisect(lambda x: _slope(lo + mpmath.exp(x), lam, mu, reward, cost), x_lo, x_hi)
        tau = lo + mpmath.exp(x)
    _, u = gi_m_1_root(tau, lam, mu)
    ga = (reward - cost / u) / (tau + (0 if lam is None else 1 / lam))
    rate = mu - sqrt(mu * cost / reward)
    rate = rate if lam is None or lam >= rate else lam
    return ga / (rate * (reward - cost / (mu - rate)))


def _mp(text):
    return None if text == "inf" else mpf(Fraction(text).numerator) / Fraction(text).denominator


def true_light(arrival, mu, reward, cost):
    """(|ratio − 1|, K r) of the light bound, independently, at DPS digits."""
    with mpmath.workdps(DPS):
        lam, mu, reward, cost = _mp(arrival), *(_mp(str(v)) for v in (mu, reward, cost))
        eps = (reward * mu - cost) / cost
        pof, big = pof_direct(lam, mu, reward, cost), log(1 / eps)
        return abs(pof * eps * big / 4 - 1), mpf(3) / 2 * log(big) / big


def true_heavy(arrival, mu, reward, cost):
    """(|ratio − 1|, K r) of the heavy bound, independently, at DPS digits."""
    with mpmath.workdps(DPS):
        lam, mu, reward, cost = _mp(arrival), *(_mp(str(v)) for v in (mu, reward, cost))
        nu = reward * mu / cost
        m = (1 + (0 if lam is None else (mu / lam) ** 2)) / 2
        pof = pof_direct(lam, mu, reward, cost)
        return abs((pof - 1) * sqrt(nu) / (2 * (1 - sqrt(m))) - 1), mpf(5) / 2 / sqrt(nu)
