"""Fuzzing the ``qtheory`` command: hypothesis-generated argument lists for every
subcommand, run in this process (``qtheory.cli.program.main``).

The contract: the exit status is 0, 1 or 2; stderr never holds a traceback, and a failure
is one line; an option whose value is not a number at all, or a missing required option,
exits with 2.  Cost limits are lowered (``QTHEORY_LIMIT_*``) so that no example can run
long, the address space is capped (tests/_cli_testing.py) so that none can exhaust
memory, and each example has a wall-clock alarm.  About 125 examples, a few seconds.
"""

from __future__ import annotations

import os
import signal
from contextlib import contextmanager
from unittest import mock

from _cli_testing import run_cli
from conftest import FUZZ, special_reals
from hypothesis import given, settings
from hypothesis import strategies as st

#: Limits lowered for the fuzz run: small simulations, few digits, small exact solves.
LIMITS = {
    "QTHEORY_LIMIT_EVENTS": "2e6",
    "QTHEORY_LIMIT_DPS": "60",
    "QTHEORY_LIMIT_MEMORY": "5e8",
    "QTHEORY_LIMIT_DP_CELLS": "1e8",
}
#: Seconds one example may take before it counts as a hang.
ALARM = 20
CLI_FUZZ = settings(FUZZ, derandomize=True)  # fixed examples: a failure reproduces

NETWORK = {
    "--servers": "50",
    "--lambda-h": "0.6",
    "--lambda-l": "0.8",
    "--mu": "1",
    "--r-h": "2",
    "--r-l": "1",
}
COMMANDS = {
    ("gated",): {"--arrival-rate": "2", "--service-rate": "1", "--reward": "3", "--cost": "1"},
    ("lossnet", "online"): NETWORK,
    ("lossnet", "simulate"): NETWORK
    | {"--policy": "pfi", "--horizon": "20", "--warmup": "1", "--reps": "2", "--seed": "1"},
    ("walks", "sss"): NETWORK | {"--c": "2"},
}
OPTIONAL = {
    ("gated",): {"--gate": "2", "--dps": "20"},
    ("lossnet", "online"): {"--dps": "20"},
    ("lossnet", "simulate"): {"--info": "clock"},
    ("walks", "sss"): {},
}
#: Options whose value is a policy or a choice, not a number.
WORDS = {"--policy", "--info"}
#: Options of COMMANDS with a default (dropping them is not an error).
DEFAULTED = {"--warmup", "--reps", "--seed"}

# text with no digit and no letter of nan/inf: never a number
not_a_number = st.text(alphabet="abcxyz,;!_ ", max_size=5)
numbers = st.one_of(
    st.integers(-3, 200).map(str),
    st.integers(-(10**25), 10**25).map(str),
    special_reals.map(repr),
    st.sampled_from(["nan", "inf", "-inf", "1e999", "-0", "1_000", " 5 ", "2.5", "1e-300"]),
)
policies = st.sampled_from(
    ["pfi", "offline", "threshold:3", "threshold:-1", "threshold:x", "threshold:99999",
     "sss:0.1", "sss:-1", "sss:nan", "bogus", "", "job"]
)  # fmt: skip


@contextmanager
def alarm(seconds: int):
    """Fail an example that runs longer than ``seconds`` (a hang, not a slow answer)."""

    def hang(signum, frame):
        raise AssertionError(f"the command ran longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def check_contract(argv: list[str], must_fail: bool) -> None:
    with mock.patch.dict(os.environ, LIMITS), alarm(ALARM):
        status, _, err = run_cli(argv)
    assert status in (0, 1, 2), (argv, status, err)
    assert "Traceback" not in err, (argv, err)
    if status:
        assert err.count("\n") == 1 and err.strip(), (argv, err)
    if must_fail:
        assert status == 2, (argv, status, err)


@st.composite
def argument_lists(draw, command: tuple[str, ...]) -> tuple[list[str], bool]:
    """The command's valid options with some values replaced (numbers of every kind,
    text that is no number, policies), some optional options added, maybe one required
    option dropped; and whether the list is invalid for sure."""
    options = dict(COMMANDS[command])
    extra = OPTIONAL[command]
    if extra:
        options |= {name: extra[name] for name in draw(st.sets(st.sampled_from(sorted(extra))))}
    must_fail = False
    for name in draw(st.sets(st.sampled_from(sorted(options)), max_size=3)):
        if name in WORDS:
            options[name] = draw(policies if name == "--policy" else st.sampled_from(["job", "x"]))
            must_fail |= name == "--info" and options[name] == "x"
        elif draw(st.booleans()):
            options[name] = draw(not_a_number)
            must_fail = True
        else:
            options[name] = draw(numbers)
    if draw(st.integers(0, 9)) == 0:
        del options[draw(st.sampled_from(sorted(set(COMMANDS[command]) - DEFAULTED)))]
        must_fail = True
    argv = [*command]
    for name, value in options.items():
        argv.append(f"{name}={value}")  # '=' so that values such as '-3' stay values
    if draw(st.booleans()):
        argv.append("--json")
    return argv, must_fail


@CLI_FUZZ
@given(case=argument_lists(("gated",)))
def test_fuzz_gated(case):
    check_contract(*case)


@CLI_FUZZ
@given(case=argument_lists(("lossnet", "online")))
def test_fuzz_lossnet_online(case):
    check_contract(*case)


@CLI_FUZZ
@given(case=argument_lists(("lossnet", "simulate")))
def test_fuzz_lossnet_simulate(case):
    check_contract(*case)


@CLI_FUZZ
@given(case=argument_lists(("walks", "sss")))
def test_fuzz_walks_sss(case):
    check_contract(*case)


@CLI_FUZZ
@given(
    option=st.sampled_from(["--seed", "--out", "--cluster", "--bogus"]),
    value=st.one_of(not_a_number, st.integers(-(10**25), -1).map(str)),
)
def test_fuzz_reproduce_rejects_before_running(option, value):
    """Only invalid values (a run takes too long for a fuzz test): every one exits 2
    before any step runs (--out: a path below a regular file)."""
    if option == "--out":
        value = f"/etc/hostname/{value}"
    check_contract(["reproduce", f"{option}={value}"], must_fail=True)
