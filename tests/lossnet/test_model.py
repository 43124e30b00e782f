import pytest

from qtheory.lossnet import LossNetwork

GOOD = dict(servers=10, lambda_h=0.6, lambda_l=0.8, mu=1.0, r_h=2.0, r_l=1.0)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"servers": 0}, "servers"),
        ({"servers": 2.5}, "servers"),
        ({"lambda_h": 1.0}, "lambda_h must be < mu"),
        ({"lambda_l": 0.3}, "overloaded"),
        ({"r_l": 2.0}, "r_h must be > r_l"),
        ({"mu": float("nan")}, "mu"),
        ({"r_l": -1.0}, "r_l"),
        ({"lambda_l": float("inf")}, "lambda_l"),
    ],
)
def test_bad_parameters_are_rejected(change, message):
    with pytest.raises(ValueError, match=message):
        LossNetwork(**{**GOOD, **change})


def test_scaling():
    net = LossNetwork(**GOOD).with_servers(1000)
    assert (net.servers, net.arrival_rate_h, net.arrival_rate_l) == (1000, 600.0, 800.0)
