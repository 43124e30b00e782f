"""Phase-type laws against their closed forms, and the validation of (α, T)."""

import math

import mpmath
import numpy as np
import pytest

from qtheory.core import numerics
from qtheory.core.phase_type import PhaseType, coxian, erlang, hyperexponential


@pytest.mark.parametrize("k", [1, 2, 5, 17])
def test_erlang_moments_and_transform_match_the_gamma_law(k):
    rate = 3.0
    ph = erlang(k, rate)
    for order in (1, 2, 3):
        gamma_moment = math.gamma(k + order) / math.gamma(k) / rate**order
        assert ph.moment(order) == pytest.approx(gamma_moment, rel=1e-11)
    assert ph.lst(0.7) == pytest.approx((rate / (rate + 0.7)) ** k, rel=1e-12)


def test_hyperexponential_transform_is_the_mixture_of_exponentials():
    p, rates = [0.2, 0.5, 0.3], [0.5, 2.0, 7.0]
    ph = hyperexponential(p, rates)
    assert ph.lst(1.3) == pytest.approx(
        sum(pi * r / (r + 1.3) for pi, r in zip(p, rates, strict=True)), rel=1e-12
    )
    assert ph.moment(2) == pytest.approx(
        sum(2 * pi / r**2 for pi, r in zip(p, rates, strict=True)), rel=1e-12
    )


def test_coxian_with_full_continuation_is_erlang_and_with_none_is_exponential():
    assert coxian([2.0] * 4, [1.0] * 3).moment(2) == pytest.approx(
        erlang(4, 2.0).moment(2), rel=1e-12
    )
    assert coxian([2.0, 5.0], [0.0]).mean == pytest.approx(0.5, rel=1e-12)


def test_sampler_mean_lies_within_four_standard_errors():
    """False-failure rate of a 4-sigma band: about 6e-5."""
    ph = coxian([1.0, 3.0, 0.5], [0.6, 0.3])
    draws = ph.sample(4000, np.random.default_rng(20261130))
    se = math.sqrt(ph.moment(2) - ph.mean**2) / math.sqrt(draws.size)
    assert abs(draws.mean() - ph.mean) < 4 * se


@pytest.mark.parametrize(
    ("alpha", "T", "message"),
    [
        ([0.5, 0.4], [[-1, 0], [0, -1]], "alpha must sum to 1"),
        ([-0.5, 1.5], [[-1, 0], [0, -1]], "alpha must be >= 0"),
        ([1.0], [[-1, 0], [0, -1]], "T must have shape"),
        ([1.0, 0.0], [[-1, 2], [0, -1]], "row sums <= 0"),
        ([1.0, 0.0], [[-1, -0.5], [0, -1]], "off-diagonal entries >= 0"),
        ([1.0, 0.0], [[-1, 1], [1, -1]], "reach absorption"),
        ([1.0], [[math.nan]], "finite"),
    ],
)
def test_a_representation_that_is_not_a_distribution_is_rejected(alpha, T, message):
    with pytest.raises(ValueError, match=message):
        PhaseType(alpha, T)


def test_constructors_name_their_parameters():
    with pytest.raises(ValueError, match="k must"):
        erlang(0, 1.0)
    with pytest.raises(ValueError, match="continue_probabilities must lie in"):
        coxian([1.0, 1.0], [1.5])
    with pytest.raises(ValueError, match=r"rates\[1\] must be > 0"):
        hyperexponential([0.5, 0.5], [1.0, -1.0])


@pytest.mark.parametrize("seed", range(5))
def test_expm_against_scipy(seed):
    """The Padé(13) kernel of the phase-type routes against SciPy's expm (an independent
    implementation), on generators scaled past θ₁₃ so that the squarings run."""
    from scipy.linalg import expm as scipy_expm

    from qtheory.core.numerics import expm

    rng = np.random.default_rng(seed)
    size = 2 + seed
    rates = rng.uniform(0.1, 20.0, (size, size))
    generator = rates - np.diag(rates.sum(axis=1) + rng.uniform(0.0, 3.0, size))
    ours, theirs = expm(generator), scipy_expm(generator)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14 * np.abs(theirs).max())


@pytest.mark.parametrize("dps", [15, 30, 60])
def test_arb_matrix_exponential_is_accurate_to_the_working_precision(dps):
    """numerics.expm_mp (Arb) against mpmath.expm at twice the digits, on random
    phase-type-like matrices (negative diagonals, either-signed off-diagonals) of sizes
    1 to 6 scaled by 0.01 to 20: norm-wise within 2^-prec of the reference, as mpmath's
    own expm at the working precision is."""
    rng = np.random.default_rng(20261202)
    with mpmath.workdps(dps):
        unit = mpmath.ldexp(1, -mpmath.mp.prec)
        for _ in range(40):
            n = int(rng.integers(1, 7))
            values = rng.uniform(-3, 3, (n, n)) - np.diag(rng.uniform(0, 5, n))
            A = mpmath.matrix(values.tolist()) * mpmath.mpf(float(rng.choice([0.01, 0.5, 3, 20])))
            ours = numerics.expm_mp(A)
            with mpmath.workdps(2 * dps):
                reference = mpmath.expm(A)
            scale = max(abs(reference[i, j]) for i in range(n) for j in range(n))
            error = max(abs(ours[i, j] - reference[i, j]) for i in range(n) for j in range(n))
            assert error <= 4 * unit * scale, (n, mpmath.nstr(error / scale, 3))


def test_arb_matrix_exponential_restores_arb_precision():
    import flint

    saved = flint.ctx.prec
    with mpmath.workdps(50):
        numerics.expm_mp(mpmath.matrix([[-1, 1], [0, -2]]))
    assert flint.ctx.prec == saved


def test_arb_matrix_exponential_falls_back_to_mpmath(monkeypatch):
    """A wide enclosure (here: guard bits so negative that Arb works at a few bits) goes
    to mpmath.expm; a non-finite entry is refused (Arb would read it as 0)."""
    A = mpmath.matrix([[-1, 0.5], [0.25, -2]])
    with mpmath.workdps(30):
        monkeypatch.setattr(numerics, "_EXPM_GUARD_BITS", -80)
        assert numerics.expm_mp(A) == mpmath.expm(A)
        monkeypatch.undo()
        for bad in (mpmath.inf, -mpmath.inf, mpmath.nan):
            with pytest.raises(ValueError, match="A: every entry must be finite"):
                numerics.expm_mp(mpmath.matrix([[-1, bad], [0, -2]]))
