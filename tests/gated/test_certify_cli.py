"""``qtheory gated --certify``: enclosures of relative width <= 10^-dps that contain the
true values (mpmath's optimum at 70 digits), at nu = 2 and nu = 1.01; bad input exits
with status 2 and one line naming the option."""

import json
from fractions import Fraction

import mpmath
import pytest

from qtheory.cli import main
from qtheory.gated import GatedQueue, optimal_gate, optimal_routing

BASE = ["gated", "--arrival-rate", "inf", "--service-rate", "1", "--cost", "1"]


def _reference(reward: str) -> dict[str, str]:
    queue = GatedQueue("inf", 1, reward, 1)
    gate, routing = optimal_gate(queue, dps=70), optimal_routing(queue, dps=70)
    with mpmath.workdps(80):
        values = {
            "sigma_star": gate.root,
            "tau_star": gate.gate,
            "throughput_ga": gate.throughput,
            "welfare_ga": gate.welfare,
            "rate_rr": routing.rate,
            "welfare_rr": routing.welfare,
            "pof": gate.welfare / routing.welfare,
        }
        return {name: mpmath.nstr(value, 70) for name, value in values.items()}


@pytest.mark.parametrize("reward", ["2", "1.01"])
def test_certified_json_contains_the_true_values(capsys, reward):
    assert main([*BASE, "--reward", reward, "--dps", "40", "--certify", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    reference = _reference(reward)
    assert set(out) == set(reference)
    for name, enclosure in out.items():
        low, high = Fraction(enclosure["lower"]), Fraction(enclosure["upper"])
        assert low <= Fraction(reference[name]) <= high, name
        assert (high - low) <= Fraction(1, 10**40) * min(abs(low), abs(high)), name


def test_certify_defaults_to_30_digits(capsys):
    assert main([*BASE, "--reward", "2", "--certify"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("sigma_star") and len(lines) == 7
    low, high = (Fraction(t) for t in lines[-1].split("[")[1].rstrip("]").split(", "))
    assert 0 < high - low <= Fraction(1, 10**30) * low


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--reward", "abc"], "reward must be a real number"),
        (["--reward", "0.5"], "Naor's ratio nu"),
        (["--reward", "2", "--gate", "3"], "--gate cannot be combined with --certify"),
        (["--reward", "2", "--dps", "0"], "--dps"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, extra, message):
    assert main([*BASE, *extra, "--certify"]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
