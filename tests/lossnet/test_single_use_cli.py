"""``qtheory lossnet single-use``: its keys and values (against sums written here), its
text lines, and bad input exiting 2 with one line naming the option."""

import json
import math
import subprocess
import sys

import pytest
from _cli_testing import run_cli
from scipy.stats import poisson

COMMAND = ["lossnet", "single-use", "--servers", "20", "--horizon", "1", "--lambda-h", "0.6",
           "--lambda-l", "0.8", "--r-h", "2", "--r-l", "1"]  # fmt: skip
KEYS = ["online", "offline", "fluid", "offline_online_gap", "fluid_offline_gap",
        "online_error_bound"]  # fmt: skip


def with_option(flag, value):
    args = list(COMMAND)
    args[args.index(flag) + 1] = value
    return args


def test_json_keys_and_values():
    status, out, err = run_cli([*COMMAND, "--json"])
    assert status == 0 and err == ""
    values = json.loads(out)
    assert list(values) == KEYS
    # fluid: 12 H (of 12 expected), then 8 of the 16 expected L fill the 20 units
    assert values["fluid"] == pytest.approx(2 * 12 + 1 * 8, rel=1e-15)
    # offline: Σ_h Σ_l P(h) P(l) (2 min(h, 20) + min(l, 20 − min(h, 20))), direct sums
    h, x = range(120), range(120)
    ph, pl = poisson.pmf(h, 12.0), poisson.pmf(x, 16.0)
    offline = math.fsum(
        ph[i] * pl[j] * (2 * min(i, 20) + min(j, 20 - min(i, 20))) for i in h for j in x
    )
    assert values["offline"] == pytest.approx(offline, rel=1e-12)
    assert values["offline_online_gap"] == pytest.approx(values["offline"] - values["online"])
    assert values["fluid_offline_gap"] == pytest.approx(values["fluid"] - values["offline"])
    assert 0 < values["offline_online_gap"] < values["offline"]
    assert 0 <= values["online_error_bound"] < 1e-9


def test_text_lines():
    status, out, _ = run_cli(COMMAND)
    assert status == 0
    lines = out.splitlines()
    assert [line.split()[0] for line in lines] == KEYS
    assert all(math.isfinite(float(line.split()[1])) for line in lines)


@pytest.mark.parametrize(
    ("flag", "value", "name"),
    [
        ("--servers", "0", "--servers"),
        ("--servers", "1.5", "--servers"),
        ("--horizon", "0", "--horizon"),
        ("--horizon", "-1", "--horizon"),
        ("--horizon", "inf", "--horizon"),
        ("--lambda-h", "0", "lambda_h"),
        ("--lambda-l", "-0.5", "lambda_l"),
        ("--lambda-l", "nan", "--lambda-l"),
        ("--r-h", "1", "r_h must be > r_l"),
        ("--r-l", "0", "r_l"),
    ],
)
def test_bad_input_exits_2_naming_the_option(flag, value, name):
    status, out, err = run_cli(with_option(flag, value))
    assert status == 2 and out == ""
    assert name in err and err.count("\n") == 1
    assert err.startswith("qtheory lossnet single-use: error: ")


def test_a_missing_option_exits_2():
    args = COMMAND[:-2]  # without --r-l 1
    status, _, err = run_cli(args)
    assert status == 2 and "--r-l" in err and err.count("\n") == 1


def test_help_imports_no_numpy():
    code = (
        "import sys\nfrom qtheory.cli import main\n"
        "main(['lossnet', 'single-use', '--help'])\nprint('numpy' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "--horizon" in done.stdout
    assert done.stdout.splitlines()[-1] == "False"
