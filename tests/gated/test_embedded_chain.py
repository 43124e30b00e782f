"""The exact embedded chain (GTH, no root equation) against the sigma formula."""

import numpy as np
import pytest

from qtheory.gated import root
from qtheory.gated.embedded_chain import embedded_chain_law


@pytest.mark.parametrize(
    ("gate", "arrival"), [(2.0, np.inf), (1.2, np.inf), (0.6, 2.0), (0.0, 0.8), (3.0, 0.5)]
)
def test_found_law_is_geometric_in_sigma(gate, arrival):
    sigma = float(root(gate, arrival, 1.0))
    law = embedded_chain_law(gate, arrival, 1.0)
    n = np.arange(20)
    expected = (1 - sigma) * sigma**n
    significant = expected > 1e-12
    assert np.allclose(law.found[:20][significant], expected[significant], rtol=1e-9)
    assert law.prob_no_wait == pytest.approx(1 - sigma, rel=1e-12)
    assert law.mean_sojourn(1.0) == pytest.approx(1 / (1 - sigma), rel=1e-11)


def test_unstable_input_is_rejected():
    with pytest.raises(ValueError, match="unstable"):
        embedded_chain_law(0.1, 1.5, 1.0)
