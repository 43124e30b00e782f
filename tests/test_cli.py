"""The ``qtheory`` command: the JSON contract, digits with --dps, exit status 2 on bad
input with one line naming the option, 1 when a numerical method gives up, and
``reproduce --quick`` writing every expected file."""

import argparse
import json
import subprocess
import sys
import types

import mpmath
import numpy as np
import pytest
from _cli_testing import capped_memory
from scipy.optimize import minimize_scalar
from scipy.special import lambertw

from qtheory.cli import main
from qtheory.cli import program as cli
from qtheory.core import arguments as _cli_types
from qtheory.core import executor as executor_module
from qtheory.exact import birth_death_stationary
from qtheory.gated import GatedQueue, welfare_ga

BASE = ["gated", "--arrival-rate", "inf", "--service-rate", "1", "--reward", "3", "--cost", "1"]


def run_json(capsys, *extra):
    assert main([*BASE, *extra, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_gated_json_keys_and_values(capsys):
    out = run_json(capsys, "--gate", "2")
    assert set(out) == {
        "tau_star",
        "welfare_ga",
        "welfare_rr",
        "rate_rr",
        "throughput_ga",
        "pof",
        "sigma",
        "welfare_at_gate",
    }
    assert out["rate_rr"] == pytest.approx(1 - 1 / 3**0.5, rel=1e-15)  # mu - sqrt(mu C/R)
    assert out["welfare_rr"] == pytest.approx((3**0.5 - 1) ** 2, rel=1e-14)  # C(sqrt(nu)-1)^2
    lambert = float(np.real(-lambertw(-2 * np.exp(-2)) / 2))  # D/M/1 root at mu*tau = 2
    assert out["sigma"] == pytest.approx(lambert, rel=1e-14)
    # the optimum by direct maximisation of the welfare curve, not the first-order condition
    queue = GatedQueue("inf", 1, 3, 1)
    search = minimize_scalar(
        lambda t: -float(welfare_ga(queue, t)),
        bounds=(1.001, 10),
        method="bounded",
        options={"xatol": 1e-10},
    )
    assert out["tau_star"] == pytest.approx(search.x, rel=1e-6)
    assert out["welfare_ga"] == pytest.approx(-search.fun, rel=1e-12)
    assert out["pof"] == pytest.approx(-search.fun / (3**0.5 - 1) ** 2, rel=1e-12)


def significant_digits(text):
    mantissa = text.split("e")[0].replace("-", "").replace(".", "")
    return len(mantissa.lstrip("0"))


def test_dps_prints_decimal_strings_with_requested_digits(capsys):
    out = run_json(capsys, "--dps", "40", "--gate", "2")
    assert all(isinstance(v, str) and significant_digits(v) >= 40 for v in out.values())
    with mpmath.workdps(50):
        expected = -mpmath.lambertw(-2 * mpmath.exp(-2)) / 2
        assert abs(mpmath.mpf(out["sigma"]) / expected - 1) < mpmath.mpf(10) ** -39
        assert abs(mpmath.mpf(out["rate_rr"]) - (1 - 1 / mpmath.sqrt(3))) < mpmath.mpf(10) ** -39


@pytest.mark.parametrize(
    ("change", "name"),
    [
        (("--service-rate", "0"), "service_rate"),
        (("--arrival-rate", "-2"), "arrival_rate"),
        (("--reward", "nan"), "reward"),
        (("--reward", "0.5"), "nu"),
        (("--cost", "abc"), "cost"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, change, name):
    args = list(BASE)
    args[args.index(change[0]) + 1] = change[1]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert name in err and err.count("\n") == 1


def test_unstable_gate_exits_2(capsys):
    assert main([*BASE, "--gate", "0.5"]) == 2
    assert "unstable" in capsys.readouterr().err


def test_console_script_runs():
    result = subprocess.run(
        [sys.executable, "-m", "qtheory.cli", *BASE, "--json"], capture_output=True, text=True
    )
    assert result.returncode == 0 and "pof" in json.loads(result.stdout)


@pytest.mark.slow
def test_reproduce_quick_writes_every_expected_file(quick_reproduce):
    """The session's one ``qtheory reproduce --quick`` run (tests/conftest.py)."""
    assert quick_reproduce.status == 0
    tmp_path = quick_reproduce.out
    expected = {"derivations/main.tex", "derivations/gated.tex", "derivations/lossnet.tex"} | {
        f"figures/{name}.{ext}"
        for name in (
            "gated_welfare",
            "gated_pof",
            "gated_sojourn",
            "lossnet_regret",
            "lossnet_threshold",
        )
        for ext in ("pdf", "png")
    }
    written = {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()}
    assert expected <= written
    main_tex = (tmp_path / "derivations" / "main.tex").read_text()
    assert "\\input{gated}" in main_tex and "\\input{lossnet}" in main_tex
    assert all((tmp_path / f).stat().st_size > 0 for f in expected)


NET = [
    "lossnet",
    "online",
    "--servers",
    "100",
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


def test_lossnet_online_json(capsys):
    assert main([*NET, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # "threshold" is the documented alias of "reserve" (the old key, kept for scripts)
    assert set(out) == {"fluid", "online", "regret", "reserve", "threshold", "p_full"}
    assert out["threshold"] == out["reserve"]
    assert out["fluid"] == pytest.approx(100 * (2 * 0.6 + 1 * 0.4), rel=1e-15)
    assert isinstance(out["reserve"], int) and 0 <= out["reserve"] <= 100
    # the online reward from the chain of the printed reserve, solved independently
    k = out["reserve"]
    births = np.where(100 - np.arange(100) > k, 140.0, 60.0)
    pi = birth_death_stationary(births, np.arange(1, 101, dtype=float))
    reward = 2 * 60 * (1 - pi[-1]) + 1 * 80 * pi[: 100 - k].sum()
    assert out["online"] == pytest.approx(reward, rel=1e-12)
    assert out["p_full"] == pytest.approx(pi[-1], rel=1e-12)


def test_lossnet_online_dps(capsys):
    assert main([*NET, "--json", "--dps", "30"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["fluid"].startswith("160.0000000000000000000000000")
    assert all(
        significant_digits(v) >= 30 for k, v in out.items() if k not in ("reserve", "threshold")
    )
    # the float64 run agrees to its own precision
    assert main([*NET, "--json"]) == 0
    fast = json.loads(capsys.readouterr().out)
    assert float(out["online"]) == pytest.approx(fast["online"], rel=1e-14)


@pytest.mark.parametrize(
    ("flag", "value", "name"),
    [
        ("--servers", "0", "servers"),
        ("--lambda-h", "1.5", "lambda_h"),
        ("--lambda-l", "0.1", "overloaded"),
        ("--r-l", "3", "r_h"),
        ("--mu", "nan", "mu"),
    ],
)
def test_lossnet_bad_input_exits_2(capsys, flag, value, name):
    args = list(NET)
    args[args.index(flag) + 1] = value
    assert main(args) == 2
    err = capsys.readouterr().err
    assert name in err and err.count("\n") == 1


def test_extreme_naor_ratios_stay_finite(capsys):
    for reward in ("1e32", "1.0000000000000002"):
        args = list(BASE)
        args[args.index("--reward") + 1] = reward
        assert main([*args, "--json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert all(np.isfinite(v) and v >= 0 for v in out.values())
        assert out["pof"] >= 1 - 1e-15


def test_decimal_inputs_keep_their_digits_with_dps(capsys):
    args = list(BASE)
    args[args.index("--reward") + 1] = "1.00000000000000000001"  # nu - 1 = 1e-20
    assert main([*args, "--json", "--dps", "30"]) == 0
    out = json.loads(capsys.readouterr().out)
    with mpmath.workdps(60):  # S_RR* = C (sqrt(nu) - 1)^2, closed form
        expected = (mpmath.sqrt(mpmath.mpf("1.00000000000000000001")) - 1) ** 2
        assert abs(mpmath.mpf(out["welfare_rr"]) / expected - 1) < mpmath.mpf(10) ** -29


SIM = [
    *NET[:1],
    "simulate",
    *NET[2:],
    "--horizon",
    "100",
    "--warmup",
    "10",
    "--reps",
    "4",
    "--seed",
    "3",
]


@pytest.mark.parametrize("policy", ["threshold:4", "pfi", "sss:0.1", "offline"])
def test_lossnet_simulate_json_and_reproducible(capsys, policy):
    assert main([*SIM, "--policy", policy, "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert set(first) == {
        "reward_rate",
        "ci_halfwidth",
        "events",
        "admitted_h",
        "admitted_l",
        "mean_idle",
        "info",
    }
    assert first["info"] == "clock" and first["ci_halfwidth"] > 0
    assert 0 < first["reward_rate"] <= 100 * 2 * 0.6 + 100 * 0.8  # every arrival's reward
    assert main([*SIM, "--policy", policy, "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == first  # same seed, same numbers


@pytest.mark.parametrize(
    ("changes", "name"),
    [
        ({"--policy": "pfi", "--info": "job"}, "job model"),
        ({"--policy": "threshold:101"}, "threshold"),
        ({"--policy": "sss:0"}, "sss"),
        ({"--policy": "pfi", "--reps": "1"}, "reps"),
        ({"--policy": "pfi", "--warmup": "200"}, "warmup"),
    ],
)
def test_lossnet_simulate_bad_input_exits_2(capsys, changes, name):
    args = list(SIM)
    for flag, value in changes.items():
        if flag in args:
            args[args.index(flag) + 1] = value
        else:
            args += [flag, value]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert name in err and err.count("\n") == 1


WALKS = ["walks", "sss", "--lambda-h", "0.6", "--lambda-l", "0.8", "--mu", "1", "--r-h", "2",
         "--r-l", "1"]  # fmt: skip


def test_walks_sss_json(capsys):
    """The keys, the window c log N / N, eps_1 <= B_1, and kappa against its closed form
    (lambda_H/mu)/P_1(reach b before 0) with the chain's exact ruin probability."""
    from qtheory.walks.idle import IdleWalk
    from qtheory.walks.ruin import chain_ruin_probabilities

    assert main([*WALKS, "--servers", "1000", "--c", "8", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"window", "failure_exact", "failure_bound", "kappa",
                        "loss_rate_bound", "critical_c"}  # fmt: skip
    assert out["window"] == pytest.approx(8 * np.log(1000) / 1000, rel=1e-15)
    assert 0 < out["failure_exact"] <= out["failure_bound"] < 1
    walk = IdleWalk(1000, 0.6, 1.0)
    ruin = chain_ruin_probabilities(walk.up_rates(), walk.down_rates(), walk.band)
    assert out["kappa"] == pytest.approx(0.6 / (1 - ruin[1]), rel=1e-9)
    # lambda_L N B_1 (lambda_H/mu)/(1 - h_1), h_1 the ruin of the walk with
    # r = q_b/p_b = lambda_H N / (mu (N - b)) from 1 before b = 31
    r = 600 / 969
    kappa_bound = 0.6 / (1 - (r - r**31) / (1 - r**31))
    assert out["loss_rate_bound"] == pytest.approx(800 * out["failure_bound"] * kappa_bound)


@pytest.mark.parametrize(
    ("flag", "value", "name"), [("--c", "0", "c"), ("--servers", "3", "servers")]
)
def test_walks_bad_input_exits_2(capsys, flag, value, name):
    args = {"--servers": "1000", "--c": "2"} | {flag: value}
    assert main([*WALKS, *(x for kv in args.items() for x in kv)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and name in err


# ---------------------------------------------------------------------------
# exit status and one-line messages


def one_line_error(capsys, argv, status=2):
    """Run ``qtheory argv`` (memory capped, see tests/_cli_testing.py); check the exit
    status, that stderr is one line without a traceback, and return that line."""
    with capped_memory():
        got = main(argv)
    err = capsys.readouterr().err
    assert got == status, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.mark.parametrize(
    ("argv", "option"),
    [
        ([*NET[:3], "99999999999999999999999", *NET[4:]], "--servers"),
        ([*NET, "--dps", "99999999999999999999999"], "--dps"),
        ([*NET, "--dps", "1000000000000"], "--dps"),
        ([*NET, "--dps", "0"], "--dps"),
        ([*SIM, "--policy", "pfi", "--reps", "99999999999999999999999"], "--reps"),
        ([*SIM[:-2], "--seed", "-1", "--policy", "pfi"], "--seed"),
        ([*SIM[:-2], "--seed", "x", "--policy", "pfi"], "--seed"),
        ([*NET[:5], "nan", *NET[6:]], "--lambda-h"),
        ([*NET[:5], "1e999", *NET[6:]], "--lambda-h"),
        ([*WALKS, "--servers", "1000", "--c", "inf"], "--c"),
        (["reproduce", "--seed", "-1"], "--seed"),
        (["reproduce", "--seed", "1.5"], "--seed"),
        (["reproduce", "--cluster", "localhost:8786"], "--cluster"),
        (["reproduce", "--out", "/etc/hostname"], "--out"),
        (["reproduce", "--out", "/etc/hostname/sub"], "--out"),
        (["reproduce", "--bogus"], "--bogus"),
        (["lossnet"], "lossnet_command"),
    ],
)
def test_invalid_options_exit_2_naming_the_option(capsys, argv, option):
    """Before: tracebacks (NotADirectoryError for --out /etc/hostname), exit 1 for huge
    integers (OverflowError), messages without the option (--seed -1: 'expected
    non-negative integer')."""
    err = one_line_error(capsys, argv)
    assert option in err or option.lstrip("-").replace("-", "_") in err  # option or parameter


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        # a misspelled option: was "qtheory gated: error: argument view: invalid choice: '3'"
        (
            ["gated", "--arival-rate", "3", *BASE[3:]],
            "qtheory gated: error: unrecognized arguments: --arival-rate (did you mean "
            "--arrival-rate?)",
        ),
        (
            [*BASE, "--jsn"],
            "qtheory gated: error: unrecognized arguments: --jsn (did you mean --json?)",
        ),
        # an option of another subcommand: was reported by "qtheory: error: ..."
        ([*BASE, "--servers", "3"], "qtheory gated: error: unrecognized arguments: --servers ("),
        ([*NET, "--bogus"], "qtheory lossnet online: error: unrecognized arguments: --bogus ("),
        (
            [*NET[:2], "--servrs", *NET[3:]],
            "qtheory lossnet online: error: unrecognized arguments: --servrs (did you mean "
            "--servers?)",
        ),
        (
            ["gated", "ladder", *BASE[1:], "extra"],
            "qtheory gated: error: unrecognized arguments: extra (",
        ),
        (["--bogus", *BASE], "qtheory: error: unrecognized arguments: --bogus ("),
    ],
)
def test_unknown_arguments_are_named_by_their_subcommand(capsys, argv, expected):
    err = one_line_error(capsys, argv)
    assert err.startswith(expected), err


def test_negative_numbers_are_values_not_options(capsys):
    """The check for unknown options leaves option values alone: -2 and -0.5 reach the
    command, whose message names the parameter."""
    for value in ("-2", "-0.5"):
        args = list(BASE)
        args[args.index("--arrival-rate") + 1] = value
        assert one_line_error(capsys, args).startswith("qtheory gated: error: arrival_rate")


def test_unwritable_out_exits_2_naming_out(capsys, tmp_path, monkeypatch):
    """A directory that cannot be written (simulated: the tests may run as root, whom
    permissions do not stop): one line naming --out, before any step runs."""

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(_cli_types.tempfile, "TemporaryFile", refuse)
    err = one_line_error(capsys, ["reproduce", "--out", str(tmp_path / "out")])
    assert "--out" in err and "Permission denied" in err
    assert not any((tmp_path / "out").iterdir())


def test_unreachable_cluster_exits_2_naming_cluster(capsys, tmp_path, monkeypatch):
    """Before: a traceback after 57 s.  Now one line naming --cluster after the connect
    timeout (1 s here), before any step runs."""
    pytest.importorskip("distributed")
    monkeypatch.setattr(executor_module, "CONNECT_TIMEOUT", 1.0)
    argv = ["reproduce", "--out", str(tmp_path), "--cluster", "tcp://127.0.0.1:1"]
    err = one_line_error(capsys, argv)
    assert "--cluster tcp://127.0.0.1:1" in err
    assert not any(tmp_path.iterdir())


def fake_command(error: BaseException) -> types.ModuleType:
    """A command module whose subcommand ``boom`` raises ``error``."""

    def run(args: argparse.Namespace) -> int:
        raise error

    def register(parser) -> None:
        parser.set_defaults(run=run)

    module = types.ModuleType("qtheory_test_fake_command")
    module.register = register
    return module


@pytest.mark.parametrize(
    ("error", "status", "text"),
    [
        (ValueError("servers must be >= 1, got 0\nsecond line"), 2, "error: servers must be"),
        (TypeError("gate must be a real number"), 2, "error: gate must be"),
        (OverflowError("int too large to convert to float"), 2, "error: int too large"),
        (ArithmeticError("the root search gave up"), 1, "numerical failure: the root search"),
        (ZeroDivisionError("float division by zero"), 1, "numerical failure: float division"),
        (RuntimeError("no convergence"), 1, "numerical failure: no convergence"),
        (MemoryError(), 1, "not enough memory"),
        (OSError(28, "No space left on device"), 1, "error: [Errno 28] No space left"),
        (KeyboardInterrupt(), 130, "interrupted"),
    ],
)
def test_exit_status_of_each_kind_of_failure(capsys, monkeypatch, error, status, text):
    monkeypatch.setitem(sys.modules, "qtheory_test_fake_command", fake_command(error))
    monkeypatch.setattr(cli, "COMMANDS", {"boom": ("qtheory_test_fake_command", "fails")})
    err = one_line_error(capsys, ["boom"], status)
    assert err.startswith(f"qtheory boom: {text}")


def test_help_returns_0(capsys):
    assert main(["--help"]) == 0
    assert "reproduce" in capsys.readouterr().out


def test_reproduce_paper_reaches_the_run_and_excludes_quick(capsys, tmp_path, monkeypatch):
    from qtheory.cli import reproduce as reproduce_command

    calls = []
    monkeypatch.setattr(reproduce_command, "reproduce", lambda out, **kw: calls.append(kw) or [])
    assert main(["reproduce", "--out", str(tmp_path), "--paper"]) == 0
    assert calls[0]["paper"] is True and calls[0]["quick"] is False
    err = one_line_error(capsys, ["reproduce", "--out", str(tmp_path), "--quick", "--paper"])
    assert "--paper: not allowed with argument --quick" in err


def test_only_the_invoked_subcommand_is_imported():
    """``qtheory verify --help`` imports the verify command and no other command module."""
    commands = ("qtheory.cli.gated", "qtheory.cli.lossnet", "qtheory.cli.walks",
                "qtheory.cli.check", "qtheory.cli.table", "qtheory.cli.reproduce",
                "qtheory.report.reproduce", "qtheory.verify.command")  # fmt: skip
    code = (
        "import sys\nfrom qtheory.cli import main\nmain(['verify', '--help'])\n"
        f"print([m for m in sys.modules if m in {commands!r}])"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines()[-1] == "['qtheory.verify.command']"


def _parsers(parser, path=("qtheory",)):
    """Every parser of the command tree with its command words."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _parsers(sub, (*path, name))


SPHINX_MARKUP = ("``", ":class:", ":mod:", ":func:", ":data:", ":meth:", ":attr:", ".. ")


def test_every_help_is_plain_text_with_a_description_and_its_defaults():
    """What a person meets: every command and subcommand describes itself in plain text
    (no Sphinx markup), and every option with a default says what it is."""
    from qtheory.cli import build_parser

    problems = []
    for path, parser in _parsers(build_parser()):
        name = " ".join(path)
        if not (parser.description or "").strip():
            problems.append(f"{name}: no description")
        text = parser.format_help()
        problems += [f"{name}: help shows {mark!r}" for mark in SPHINX_MARKUP if mark in text]
        for action in parser._actions:
            default = action.default
            if action.help is argparse.SUPPRESS or default in (None, False, argparse.SUPPRESS):
                continue
            if isinstance(action, argparse._HelpAction | argparse._SubParsersAction):
                continue
            if "default" not in (action.help or ""):
                problems.append(f"{name} {'/'.join(action.option_strings)}: default not shown")
    assert problems == []


def test_ladder_at_a_huge_arrival_rate_is_the_limit(capsys):
    """Λ = 1e30 (once "Singular matrix", exit 2): the ladder finishes, and its RR and GA
    rungs are the Λ = ∞ optima in closed form, C(√ν − 1)² and, with S(w) = (1 − νe^{−w})/w
    at ν = 2 maximised where e^w = 2(w + 1), S* = −1/W₋₁(−1/(2e)) (Lambert W)."""
    argv = ["gated", "ladder", "--arrival-rate", "1e30", "--service-rate", "1", "--reward",
            "2", "--cost", "1", "--json"]  # fmt: skip
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rr"]["welfare"] == pytest.approx((np.sqrt(2) - 1) ** 2, rel=1e-12)
    ga = -1 / lambertw(-1 / (2 * np.e), k=-1).real
    assert out["ga"]["welfare"] == pytest.approx(ga, rel=1e-12)
    assert out["ordered"] is True
