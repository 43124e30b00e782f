import dataclasses
import pickle
import re

import numpy as np
import pytest

from qtheory.lossnet import LossNetwork
from qtheory.model.lossnet import two_classes

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


def test_rates_beyond_float64_are_refused_by_name():
    with pytest.raises(ValueError, match=r"overflow float64 \(\(lambda_h \+ lambda_l\)"):
        LossNetwork(1, 1e308, 1e308, 1.5e308, 2.0, 1.0)


def test_scaling():
    net = LossNetwork(**GOOD).with_servers(1000)
    assert (net.servers, net.arrival_rate_h, net.arrival_rate_l) == (1000, 600.0, 800.0)


# ---------------------------------------------------------------- one record, two forms
THREE = dict(servers=10, lambdas=(0.3, 0.9, 0.6), rewards=(3.0, 2.0, 1.0), mu=1.0)


def test_two_input_forms_give_one_record():
    """The two-class keywords, the same numbers positionally, and the n-class form with
    two entries (lists, tuples or 1-D arrays) are equal records with equal hashes."""
    forms = [
        LossNetwork(**GOOD),
        LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0),
        LossNetwork(10, (0.6, 0.8), (2, 1), 1),
        LossNetwork(servers=10, lambdas=[0.6, 0.8], rewards=[2.0, 1.0], mu=1.0),
        LossNetwork(10, np.array([0.6, 0.8]), np.array([2.0, 1.0]), 1.0),
    ]
    assert all(net == forms[0] and hash(net) == hash(forms[0]) for net in forms)
    net = forms[-1]
    assert (net.lambda_h, net.lambda_l, net.r_h, net.r_l) == (0.6, 0.8, 2.0, 1.0)
    assert (net.n_classes, net.marginal) == (2, 1)
    assert dataclasses.replace(net, servers=3) == net.with_servers(3)
    assert pickle.loads(pickle.dumps(net)) == net


def test_more_classes_have_no_two_class_fields():
    net = LossNetwork(**THREE)
    assert (net.n_classes, net.marginal, net.arrival_rates) == (3, 1, (3.0, 9.0, 6.0))
    for name, entry in (("lambda_h", "lambdas[0]"), ("r_l", "rewards[1]")):
        with pytest.raises(ValueError, match=re.escape(f"{name} is defined for two classes")):
            getattr(net, name)
        with pytest.raises(ValueError, match=re.escape(f"use {entry}")):
            getattr(net, name)
    # an AttributeError too: hasattr and getattr with a default see no such field
    assert not hasattr(net, "lambda_h") and getattr(net, "r_h", None) is None
    with pytest.raises(ValueError, match="net must have two classes"):
        two_classes(net)
    assert two_classes(LossNetwork(**GOOD)) == LossNetwork(**GOOD)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"lambdas": (0.3, 0.9)}, "same length"),
        ({"lambdas": (0.3,), "rewards": (1.0,)}, "at least 2 classes"),
        ({"rewards": (3.0, 3.0, 1.0)}, "strictly decreasing"),
        ({"lambdas": (1.0, 0.9, 0.6)}, r"lambdas\[0\] must be < mu"),
        ({"lambdas": (0.3, 0.2, 0.1)}, "overloaded"),
        ({"lambdas": (0.25, 0.75, 0.6)}, "degenerate"),  # 0.25 + 0.75 = mu exactly
        ({"lambdas": (0.3, -0.9, 0.6)}, r"lambdas\[1\]"),
        ({"rewards": "321"}, "rewards must be a sequence"),
        ({"servers": 10**300, "rewards": (1e300, 2.0, 1.0)}, "overflow"),
        ({"lambdas": (1e308, 1e308, 1e308), "mu": 1.5e308}, "overflow"),  # sum beyond float64
        ({"lambdas": (x for x in (0.3, 0.9, 0.6))}, "lambdas must be a sequence"),
        ({"lambdas": np.ones((3, 1))}, "lambdas must be a sequence"),
    ],
)
def test_bad_class_parameters_are_rejected(change, message):
    with pytest.raises(ValueError, match=message):
        LossNetwork(**{**THREE, **change})


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((10,), {}),  # no rates at all
        ((10, 0.6, 0.8, 1.0, 2.0), {}),  # r_l missing
        ((10,), {"lambdas": (0.6, 0.8), "rewards": (2.0, 1.0), "mu": 1.0, "r_h": 2.0}),
    ],
)
def test_arguments_that_fit_neither_form_are_a_type_error(args, kwargs):
    with pytest.raises(TypeError, match="LossNetwork"):
        LossNetwork(*args, **kwargs)
