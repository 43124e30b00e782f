"""The count laws of qtheory.gated.count_laws are scipy.stats' values, bit for bit, at
the arguments the embedded chains, the relaxation and the gap gates pass."""

import numpy as np
import pytest
from scipy import stats

from qtheory.gated.count_laws import geometric_pmf, poisson_isf, poisson_pmf


@pytest.mark.parametrize("seed", range(20))
def test_poisson_and_geometric_laws_are_scipy_stats_values(seed):
    rng = np.random.default_rng(seed)
    means = np.concatenate([rng.exponential(rng.choice([0.01, 1, 30, 300]), size=6), [0.0]])
    k = np.arange(int(rng.integers(1, 3000)))
    for counts, mean in [
        (k, means[0]),
        (k[None, :], means[:, None]),  # the relaxation's grid
        (k[:, None, None], means[None, :, None]),  # the gap gates' blocks
    ]:
        assert np.array_equal(poisson_pmf(counts, mean), stats.poisson.pmf(counts, mean))
    p = rng.uniform(1e-6, 1)
    assert np.array_equal(geometric_pmf(k + 1, p), stats.geom.pmf(k + 1, p))
    assert np.array_equal(geometric_pmf(k, p), stats.geom.pmf(k, p))  # k = 0: 0
    for mean in means:
        for q in (1e-16, 1e-10, 0.3):
            assert poisson_isf(q, mean) == stats.poisson.isf(q, mean)


def test_the_models_no_longer_import_scipy_stats():
    import subprocess
    import sys

    code = (
        "import qtheory.gated.gap_gates, qtheory.gated.relaxation, qtheory.gated.embedded_chain"
        "\nimport sys\nprint('scipy.stats' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"
