"""Tests of qtheory.exact.matrix_analytic against independent routes: closed forms
(M/M/1: R = ρ, G = 1; a discrete random walk: R = p/q; the D/M/1 root by the Lambert W
function), the stationary law of the truncated CTMC solved by GTH
(qtheory.exact.stationary_ctmc), and the natural fixed-point iteration for GI/M/1 R."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special

from qtheory.exact import stationary_ctmc
from qtheory.exact.matrix_analytic import gim1_rate, gim1_solve, qbd_solve, qbd_stationary

METHODS = ["logarithmic", "cyclic"]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("rho", [0.01, 0.5, 0.9, 0.999])
def test_mm1_rate_matrix_is_the_load(method, rho):
    sol = qbd_solve([[rho]], [[-1.0 - rho]], [[1.0]], method=method)
    assert sol.R[0, 0] == pytest.approx(rho, rel=1e-12)
    assert sol.G[0, 0] == pytest.approx(1.0, rel=1e-13)
    assert sol.residual < 1e-13
    assert sol.method == method


@pytest.mark.parametrize("method", METHODS)
def test_discrete_random_walk(method):
    p, q = 0.2, 0.5  # up, down; stays with 0.3
    sol = qbd_solve([[p]], [[0.3]], [[q]], method=method, discrete=True)
    assert sol.R[0, 0] == pytest.approx(p / q, rel=1e-12)


def random_qbd(m: int, seed: int):
    """A positive recurrent QBD: random rates, downward rates doubled."""
    rng = np.random.default_rng(seed)
    A0 = rng.uniform(0.0, 1.0, (m, m))
    A2 = 2.5 * rng.uniform(0.0, 1.0, (m, m))
    A1 = rng.uniform(0.0, 1.0, (m, m))
    np.fill_diagonal(A1, 0.0)
    np.fill_diagonal(A1, -(A0.sum(1) + A1.sum(1) + A2.sum(1)))
    return A0, A1, A2


def truncated_generator(A0, A1, A2, levels: int) -> np.ndarray:
    """Levels 0..levels-1 with level 0 local block A1 + A2 (reflecting) and the top level's
    A1 + A0 (up moves suppressed)."""
    m = A0.shape[0]
    Q = np.zeros((levels * m, levels * m))
    for n in range(levels):
        block = slice(n * m, (n + 1) * m)
        local = A1 + (A2 if n == 0 else 0) + (A0 if n == levels - 1 else 0)
        Q[block, block] = local
        if n + 1 < levels:
            Q[block, (n + 1) * m : (n + 2) * m] = A0
        if n > 0:
            Q[block, (n - 1) * m : n * m] = A2
    return Q


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(("m", "seed"), [(2, 1), (3, 2), (5, 3)])
def test_stationary_law_matches_truncated_ctmc(method, m, seed):
    A0, A1, A2 = random_qbd(m, seed)
    sol = qbd_solve(A0, A1, A2, method=method)
    assert sol.residual < 1e-13
    assert sol.spectral_radius < 1
    law = qbd_stationary(sol, A1 + A2, A0, A2)
    levels = int(math.log(1e-17) / math.log(sol.spectral_radius)) + 20
    pi = stationary_ctmc(truncated_generator(A0, A1, A2, levels)).reshape(levels, m)
    for n in range(8):
        np.testing.assert_allclose(law.level(n), pi[n], rtol=1e-10, atol=1e-15)
    truncated_mean = float(np.arange(levels) @ pi.sum(axis=1))
    assert law.mean_level() == pytest.approx(truncated_mean, rel=1e-9)


def test_methods_agree_and_g_is_stochastic():
    A0, A1, A2 = random_qbd(6, 7)
    log, cyc = (qbd_solve(A0, A1, A2, method=m) for m in METHODS)
    np.testing.assert_allclose(log.R, cyc.R, atol=1e-13)
    np.testing.assert_allclose(log.G.sum(axis=1), 1.0, atol=1e-13)
    assert log.iterations <= 20 and cyc.iterations <= 20  # quadratic convergence


def test_boundary_with_other_phases_mph1():
    """M/H2/1 as a QBD whose empty level has one phase; P(empty) = 1 − ρ and the mean
    number in system by Pollaczek–Khinchine, L = ρ + λ² E[S²] / (2(1 − ρ))."""
    lam, p, rates = 0.6, np.array([0.3, 0.7]), np.array([0.5, 2.5])
    T = -np.diag(rates)
    t = rates
    A0, A1, A2 = lam * np.eye(2), T - lam * np.eye(2), np.outer(t, p)
    law = qbd_stationary(qbd_solve(A0, A1, A2), [[-lam]], lam * p[None, :], t[:, None])
    mean_s, second = float(p @ (1 / rates)), float(p @ (2 / rates**2))
    rho = lam * mean_s
    assert law.pi0[0] == pytest.approx(1 - rho, rel=1e-12)
    assert law.mean_level() == pytest.approx(rho + lam**2 * second / (2 * (1 - rho)), rel=1e-11)


def test_gim1_dm1_root_is_lambert_w():
    x = 1.7  # μτ
    a = [math.exp(-x) * x**k / math.factorial(k) for k in range(60)]
    a[-1] += 1 - sum(a)
    sigma = -special.lambertw(-x * math.exp(-x)).real / x
    for method in METHODS:
        sol = gim1_solve([[[v]] for v in a], discrete=True, method=method)
        assert sol.R[0, 0] == pytest.approx(sigma, rel=1e-12)
        assert sol.G is None and sol.residual < 1e-13


def test_gim1_matrix_blocks_match_natural_iteration():
    rng = np.random.default_rng(5)
    m, K = 3, 4
    blocks = [rng.uniform(0, 1, (m, m)) for _ in range(K + 1)]
    blocks[0] *= 0.4
    np.fill_diagonal(blocks[1], 0.0)
    np.fill_diagonal(blocks[1], -sum(b.sum(axis=1) for b in blocks))
    sol = gim1_solve(blocks)
    R = np.zeros((m, m))  # R <- (A0 + sum_{k>=2} R^k A_k)(-A1)^{-1}, monotone from 0
    for _ in range(5000):
        rest = blocks[0] + sum(np.linalg.matrix_power(R, k) @ blocks[k] for k in range(2, K + 1))
        R = rest @ np.linalg.inv(-blocks[1])
    np.testing.assert_allclose(sol.R, R, atol=1e-12)
    assert sol.residual < 1e-12


@pytest.mark.parametrize("seed", range(4))
def test_gim1_rate_by_newton_is_gim1_solve(seed):
    """Newton's method on R = Σ R^d A_d (gim1_rate, from 0 and from a perturbed start)
    against reblocking into a QBD and logarithmic reduction (gim1_solve): a discrete
    chain with m = 2 phases and 12 blocks, positive recurrent (A_0 scaled down)."""
    rng = np.random.default_rng(seed)
    blocks = rng.uniform(0, 1, (12, 2, 2))
    blocks[0] *= 0.05
    blocks /= blocks.sum(axis=(0, 2))[None, :, None]  # rows of Σ A_d add to 1
    reference = gim1_solve(list(blocks), discrete=True).R
    rate, total = gim1_rate(blocks)
    np.testing.assert_allclose(rate, reference, atol=1e-13)
    np.testing.assert_allclose(total, rate, atol=1e-12)
    np.testing.assert_allclose(gim1_rate(blocks, start=1.1 * rate)[0], reference, atol=1e-13)


def test_gim1_rate_refuses_a_transient_chain():
    """Drift up (A_0 heavy): no R with sp(R) < 1, so an ArithmeticError, not a wrong R."""
    blocks = np.array([[[0.9]], [[0.05]], [[0.05]]])
    with pytest.raises(ArithmeticError, match="stability boundary"):
        gim1_rate(blocks)


@pytest.mark.parametrize(
    ("blocks", "kwargs", "match"),
    [
        (([[1.0]], [[-2.0]], [[1.0]]), {}, "A0 must drift less than A2"),  # null recurrent
        (([[2.0]], [[-3.0]], [[1.0]]), {}, "A0 must drift less than A2"),
        (([[0.5]], [[-1.5, 0.0]], [[1.0]]), {}, "A1 must be a square matrix"),
        (([[-0.5]], [[-0.5]], [[1.0]]), {}, "A0 must have non-negative entries"),
        (([[0.5]], [[-1.0]], [[1.0]]), {}, "must sum to 0"),
        (([[0.5]], [[np.nan]], [[1.0]]), {}, "A1 must have finite entries"),
        (([[0.5]], [[-1.5]], [[1.0]]), {"method": "newton"}, "method must be one of"),
        (([[0.5]], [[-1.5]], [[1.0]]), {"tolerance": 0.0}, "tolerance must be"),
    ],
)
def test_bad_input_names_the_parameter(blocks, kwargs, match):
    with pytest.raises(ValueError, match=match):
        qbd_solve(*blocks, **kwargs)


def test_gim1_needs_three_blocks():
    with pytest.raises(ValueError, match="at least three"):
        gim1_solve([[[0.5]], [[-0.5]]])
