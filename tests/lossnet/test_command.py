"""``qtheory lossnet online --certify``: enclosures as {"lower", "upper"}, the reserve as
an integer, against an independent route (exact rationals over every reserve)."""

import json
from fractions import Fraction

import numpy as np
import pytest
from _cli_testing import run_cli

from qtheory.cli import main
from qtheory.exact import birth_death_stationary

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


# --- n classes: --lambdas and --rewards -----------------------------------------------

BASE = ["lossnet", "online", "--servers", "40", "--mu", "1"]
THREE = [*BASE, "--lambdas", "0.3,0.9,0.6", "--rewards", "3,2,1"]


def test_two_classes_as_lists_print_what_the_two_class_options_print():
    for extra in ([], ["--json"], ["--dps", "25"], ["--certify", "--dps", "12"]):
        listed = run_cli([*BASE, "--lambdas", "0.6,0.8", "--rewards", "2,1", *extra])
        assert listed == run_cli([*NET, *extra]), extra
        assert listed[0] == 0


def test_three_classes_json_against_the_chain_of_the_printed_reserves():
    status, out, err = run_cli([*THREE, "--json"])
    assert status == 0, err
    values = json.loads(out)
    assert set(values) == {"fluid", "online", "regret", "reserve", "threshold", "p_full"}
    reserves = values["reserve"]
    assert values["threshold"] == reserves and reserves[0] == 0 and reserves == sorted(reserves)
    # class 2 marginal: R_fluid = N (r_1 lambda_1 + r_2 (mu - lambda_1)) = 40 * 2.3
    assert values["fluid"] == pytest.approx(92.0, rel=1e-14)
    n, lambdas, rewards = 40, np.array([0.3, 0.9, 0.6]), np.array([3.0, 2.0, 1.0])
    admitted = (n - np.arange(n))[:, None] > np.array(reserves)[None, :]
    pi = birth_death_stationary(n * admitted @ lambdas, np.arange(1, n + 1, dtype=float))
    reward = n * float(lambdas * rewards @ (pi[:-1] @ admitted))
    assert values["online"] == pytest.approx(reward, rel=1e-12)
    assert values["regret"] == pytest.approx(92.0 - reward, rel=1e-10)
    assert values["p_full"] == pytest.approx(pi[-1], rel=1e-10)


def test_three_classes_text_lists_the_reserves():
    status, out, _ = run_cli(THREE)
    lines = dict(line.split() for line in out.splitlines())
    assert status == 0 and list(lines) == ["fluid", "online", "regret", "reserve", "threshold",
                                           "p_full"]  # fmt: skip
    assert lines["reserve"] == lines["threshold"]
    assert [int(k) for k in lines["reserve"].split(",")][0] == 0


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        ([*THREE, "--lambda-h", "0.6"], ["--lambdas", "--lambda-h", "mutually exclusive"]),
        ([*THREE, "--r-l", "1"], ["--r-l", "mutually exclusive"]),
        ([*BASE, "--lambdas", "0.3,0.9,0.6"], ["--rewards"]),
        ([*BASE, "--rewards", "3,2,1"], ["--lambdas"]),
        ([*BASE, "--lambda-h", "0.6", "--r-h", "2"], ["--lambda-l", "--r-l"]),
        ([*BASE, "--lambdas", "0.3,,0.6", "--rewards", "3,2,1"], ["--lambdas"]),
        ([*BASE, "--lambdas", "0.3,0.9,0.6", "--rewards", "3,x,1"], ["--rewards"]),
        ([*BASE, "--lambdas", "0.3,0.9,0.6", "--rewards", "3,1,2"], ["rewards", "decreasing"]),
        ([*BASE, "--lambdas", "0.3,0.9", "--rewards", "3,2,1"], ["lambdas and rewards"]),
        ([*BASE, "--lambdas", "0.3,0.1,0.2", "--rewards", "3,2,1"], ["overloaded"]),
        ([*BASE, "--lambdas", "0.3,-0.9,0.6", "--rewards", "3,2,1"], ["lambdas[1]"]),
        ([*BASE, "--lambdas", "0.3,0.9,0.6", "--rewards", "3,2,0"], ["rewards[2]"]),
        ([*THREE, "--certify"], ["--certify"]),
        ([*THREE, "--dps", "20"], ["--dps"]),
    ],
)
def test_bad_class_options_exit_2_naming_the_option(argv, names):
    status, out, err = run_cli(argv)
    assert status == 2 and not out
    assert err.count("\n") == 1
    for name in names:
        assert name in err, (name, err)


# --- n classes: qtheory lossnet simulate --------------------------------------------

SIM_RUN = ["--horizon", "60", "--warmup", "5", "--reps", "4", "--seed", "3"]
SIM_BASE = ["lossnet", "simulate", "--servers", "40", "--mu", "1", *SIM_RUN]
SIM_TWO = [*SIM_BASE, "--lambda-h", "0.6", "--lambda-l", "0.8", "--r-h", "2", "--r-l", "1"]
SIM_THREE = [*SIM_BASE, "--lambdas", "0.3,0.9,0.6", "--rewards", "3,2,1"]


@pytest.mark.parametrize("policy", ["threshold:4", "pfi", "sss:0.1", "offline"])
def test_simulate_two_classes_as_lists_print_what_the_two_class_options_print(policy):
    for extra in ([], ["--json"], ["--info", "job"] if policy.startswith("threshold") else []):
        listed = run_cli([*SIM_BASE, "--lambdas", "0.6,0.8", "--rewards", "2,1",
                          "--policy", policy, *extra])  # fmt: skip
        assert listed == run_cli([*SIM_TWO, "--policy", policy, *extra]), extra
        assert listed[0] == 0


@pytest.mark.parametrize("policy", ["threshold:0,1,40", "pfi", "sss:0.1", "offline"])
def test_simulate_three_classes_json(policy):
    """The keys of the two-class output plus the per-class list; the reward rate is the
    rewards times the admissions per unit of window and replication (every replication
    has the same window); the same seed replays the same numbers."""
    status, out, err = run_cli([*SIM_THREE, "--policy", policy, "--json"])
    assert status == 0, err
    values = json.loads(out)
    assert list(values) == ["reward_rate", "ci_halfwidth", "events", "admitted_h", "admitted_l",
                            "admitted", "mean_idle", "info"]  # fmt: skip
    admitted = values["admitted"]
    assert values["admitted_h"] == admitted[0] and values["admitted_l"] == sum(admitted[1:])
    reward = (3 * admitted[0] + 2 * admitted[1] + admitted[2]) / (4 * 55)
    assert values["reward_rate"] == pytest.approx(reward, rel=1e-12)
    assert values["info"] == "clock" and values["ci_halfwidth"] > 0
    assert 0 <= values["mean_idle"] <= 40
    if policy.startswith("threshold"):
        assert admitted[2] == 0  # k_3 = N: class 3 never admitted
    assert run_cli([*SIM_THREE, "--policy", policy, "--json"])[1] == out


def test_simulate_three_classes_nested_reserves_match_the_exact_reward():
    """Nested trunk reservation at the optimal reserves, simulated, against the exact
    reward of the birth-death chain of those reserves (closed form below, not the
    package's evaluator): within 4 standard errors (false-failure rate about 2% with 4
    replications, t_3 tails, plus a warm-up bias far below the error)."""
    status, out, _ = run_cli([*THREE, "--json"])
    reserves = json.loads(out)["reserve"]
    policy = "threshold:" + ",".join(map(str, reserves))
    argv = [*SIM_THREE, "--policy", policy, "--json", "--horizon", "400", "--warmup", "10"]
    status, out, err = run_cli(argv)
    assert status == 0, err
    values = json.loads(out)
    n, lambdas, rewards = 40, np.array([0.3, 0.9, 0.6]), np.array([3.0, 2.0, 1.0])
    admit = (n - np.arange(n))[:, None] > np.array(reserves)[None, :]
    pi = birth_death_stationary(n * admit @ lambdas, np.arange(1, n + 1, dtype=float))
    exact = n * float(lambdas * rewards @ (pi[:-1] @ admit))
    stderr = values["ci_halfwidth"] / 3.182446  # t_{0.975, 3}
    assert abs(values["reward_rate"] - exact) < 4 * stderr


@pytest.mark.parametrize(
    ("changes", "names"),
    [
        ({"--policy": "threshold:3"}, ["policy", "3 integer reserves"]),
        ({"--policy": "threshold:0,5,2"}, ["policy", "nested"]),
        ({"--policy": "threshold:0,1,41"}, ["policy", "0..40"]),
        ({"--policy": "sss:0"}, ["sss"]),
        ({"--policy": "pfi", "--info": "job"}, ["--info", "clock model only"]),
        ({"--policy": "pfi", "--reps": "1"}, ["reps"]),
        ({"--policy": "pfi", "--r-h": "2"}, ["--r-h", "mutually exclusive"]),
        ({"--policy": "pfi", "--rewards": "3,1,2"}, ["rewards", "decreasing"]),
        ({"--policy": "pfi", "--rewards": "3,2"}, ["lambdas and rewards"]),
        ({"--policy": "pfi", "--lambdas": "0.3,0.1,0.2"}, ["overloaded"]),
        ({"--policy": "pfi", "--lambdas": "0.3,x,0.2"}, ["--lambdas"]),
    ],
)
def test_simulate_bad_class_options_exit_2_naming_the_option(changes, names):
    argv = list(SIM_THREE)
    for flag, value in changes.items():
        if flag in argv:
            argv[argv.index(flag) + 1] = value
        else:
            argv += [flag, value]
    status, out, err = run_cli(argv)
    assert status == 2 and not out
    assert err.count("\n") == 1
    for name in names:
        assert name in err, (name, err)
