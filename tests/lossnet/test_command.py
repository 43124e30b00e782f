"""``qtheory lossnet online --certify``: enclosures as {"lower", "upper"}, the reserve as
an integer, against an independent route (exact rationals over every reserve)."""

import json
from fractions import Fraction

import pytest

from qtheory.cli import main

NET = [
    "lossnet",
    "online",
    "--servers",
    "40",
    "--lambda-h",
    "0.6",
    "--lambda-l",
    "0.8",
    "--mu",
    "1",
    "--r-h",
    "2",
    "--r-l",
    "1",
]


def exact_rewards(n, lh, ll, mu, rh, rl):
    """R_k for every reserve k from the product-form weights, in exact rationals."""
    rewards = []
    for k in range(n + 1):
        w, weights = Fraction(1), [Fraction(1)]
        for b in range(1, n + 1):
            w *= ((lh + ll) if n - (b - 1) > k else lh) * n / (mu * b)
            weights.append(w)
        total = sum(weights)
        admitted_l = sum(weights[: n - k]) / total
        rewards.append(rh * lh * n * (1 - weights[n] / total) + rl * ll * n * admitted_l)
    return rewards


def test_certify_json(capsys):
    assert main([*NET, "--certify", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"fluid", "online", "regret", "reserve", "threshold", "p_full"}
    rewards = exact_rewards(40, Fraction(3, 5), Fraction(4, 5), 1, 2, 1)
    best = max(range(41), key=rewards.__getitem__)
    assert out["reserve"] == out["threshold"] == best
    fluid = 40 * (2 * Fraction(3, 5) + Fraction(2, 5))
    for name, value in (
        ("online", rewards[best]),
        ("regret", fluid - rewards[best]),
        ("fluid", fluid),
    ):
        low, high = Fraction(out[name]["lower"]), Fraction(out[name]["upper"])
        assert low <= value <= high, name
        assert high - low <= abs(value) * Fraction(1, 10**30), name  # the default 30 digits


def test_certify_dps_sets_the_width(capsys):
    assert main([*NET, "--certify", "--dps", "60", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    low, high = Fraction(out["online"]["lower"]), Fraction(out["online"]["upper"])
    assert 0 < high - low < low * Fraction(1, 10**60)


def test_certify_text_lines(capsys):
    assert main([*NET, "--certify", "--dps", "10"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == [
        "fluid",
        "online",
        "regret",
        "reserve",
        "threshold",
        "p_full",
    ]
    assert lines[1].split(maxsplit=1)[1].startswith("[") and lines[3].split()[1].isdigit()


@pytest.mark.parametrize("dps", ["0", "-3", "2.5"])
def test_certify_bad_dps_exits_2(capsys, dps):
    assert main([*NET, "--certify", "--dps", dps]) == 2
    assert "dps" in capsys.readouterr().err
