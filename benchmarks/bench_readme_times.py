"""Every time the README states, measured: run this after a change that could move them.

    python benchmarks/bench_readme_times.py

Measures, in one run on one machine:

(a) ``qtheory reproduce --quick`` into a temporary directory, with an empty result cache
    (``QTHEORY_CACHE_DIR`` pointed at a fresh temporary directory): wall time;
(b) time to first number of every subcommand, at the README's examples: ``qtheory gated
    ... --json`` (and issue 12's example without ``--gate``), ``qtheory gated ladder``
    (its table, which prints each rung as it is computed, and ``--json``, one object at
    the end), ``qtheory lossnet online`` and ``lossnet simulate``, ``qtheory walks sss``,
    ``qtheory check gated.dominance``, ``qtheory table`` of each model, ``qtheory verify``
    of a certificate file (written by ``qtheory check --certificate`` before the timing),
    and the first ``pof_asymptotics`` line of a fresh process (the README's ν = 1 +
    10^-30 example): wall time from starting the process to the first byte it prints,
    best of 5, and as a ratio to the baseline ``python -c "import numpy, scipy.optimize,
    mpmath"`` measured the same way in the same run (the ratio is what carries over to
    another machine: most of a command's start-up is importing the scientific stack;
    issues 12 and 22 ask for at most 1.5);
(c) ``qtheory --help`` and each subcommand's ``--help``, the same way, as ratios to
    ``python -c "import numpy"``;
(d) ``online_optimum`` at N = 10^7 in process (best of 3; float64, O(k* + T) since issue
22; recorded before it, the certified route), and the O(N) table of every reserve
(``threshold_table``, best of 1) with the ratio of the two;
(e) ``qtheory reproduce --quick``'s first output, its progress bar on stderr, in the run
of (a) (once; its stdout is the summary at the end).

The commands of (b) and (c) and their baselines are timed in turns (one of each, five
rounds), so that a burst of load from other jobs on a shared machine hits them alike.
qtheory's modules are byte-compiled first, as pip does when it installs a wheel: NumPy
and SciPy load their bytecode, and where ``PYTHONDONTWRITEBYTECODE`` is set (this
machine sets it) an editable checkout would otherwise compile every qtheory module from
source on every start (about 70 ms of ``gated ladder``).

It prints a small table and writes ``benchmarks/readme_times.json``: the raw seconds,
the machine (CPUs, Python, commit) and, under ``"readme"``, the rounded strings the
README quotes; ``tests/test_docs.py`` checks that each of them appears in README.md, so
a rerun that moves a number fails that test until the README is updated.

The full default ``qtheory reproduce`` (empty cache) is not measured here: it takes tens
of minutes on two cores, dominated by the decomposition sweep.
"""

from __future__ import annotations

import compileall
import datetime
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from timing import best_of

from qtheory.lossnet import LossNetwork, online_optimum, threshold_table

ROOT = Path(__file__).resolve().parent.parent
OUTPUT = Path(__file__).resolve().parent / "readme_times.json"
QTHEORY = str(Path(sys.executable).parent / "qtheory")

BASELINE = [sys.executable, "-c", "import numpy, scipy.optimize, mpmath; print(1)"]
HELP_BASELINE = [sys.executable, "-c", "import numpy; print(1)"]
GATED = [QTHEORY, "gated", "--arrival-rate", "inf", "--service-rate", "1", "--reward", "3",
         "--cost", "1", "--gate", "2", "--json"]  # fmt: skip
GATED_ISSUE = [QTHEORY, "gated", "--arrival-rate", "inf", "--service-rate", "1", "--reward",
               "2", "--cost", "1", "--json"]  # fmt: skip
LOSSNET = [QTHEORY, "lossnet", "online", "--servers", "1000", "--lambda-h", "0.6",
           "--lambda-l", "0.8", "--mu", "1", "--r-h", "2", "--r-l", "1", "--json"]  # fmt: skip
LADDER = [QTHEORY, "gated", "ladder", "--arrival-rate", "3", "--service-rate", "1", "--reward",
          "2", "--cost", "1", "--phases", "2"]  # fmt: skip
NETWORK = ["--lambda-h", "0.6", "--lambda-l", "0.8", "--mu", "1", "--r-h", "2", "--r-l", "1"]
#: The README's examples of the other subcommands, by name (README wording).
COMMANDS = {
    "qtheory gated ladder": LADDER,
    "qtheory gated ladder --json": [*LADDER, "--json"],
    "qtheory lossnet simulate": [QTHEORY, "lossnet", "simulate", "--servers", "100", *NETWORK,
                                 "--policy", "sss:0.05", "--horizon", "200", "--warmup", "10",
                                 "--reps", "10", "--seed", "1", "--json"],
    "qtheory walks sss": [QTHEORY, "walks", "sss", "--servers", "1000", *NETWORK, "--c", "8",
                          "--json"],
    "qtheory check": [QTHEORY, "check", "gated.dominance", "--arrival-rate", "3",
                      "--service-rate", "1", "--reward", "2", "--cost", "1"],
    "qtheory table lossnet": [QTHEORY, "table", "lossnet", "--servers", "100,1000,10000",
                              *NETWORK, "--columns", "reserve,online,regret", "--format",
                              "markdown"],
    "qtheory table gated": [QTHEORY, "table", "gated", "--arrival-rate", "inf,3", "--reward",
                            "1.5,2"],
    "qtheory table walks": [QTHEORY, "table", "walks", "--servers", "100", "--lambda-h", "0.6",
                            "--mu", "1", "--level", "1,3"],
    "pof_asymptotics (first call)": [sys.executable, "-c", (
        "from qtheory.gated import GatedQueue\n"
        "from qtheory.gated.asymptotics import pof_asymptotics\n"
        "queue = GatedQueue('inf', '1', '1.000000000000000000000000000001', '1')\n"
        "for line in pof_asymptotics(queue, dps=12):\n    print(line)")],
}  # fmt: skip
#: Written by ``qtheory check ... --certificate`` before the timing, read by ``verify``.
CERTIFICATE = [QTHEORY, "check", "gated.pof_at_least_one", "--arrival-rate", "3",
               "--service-rate", "1", "--reward", "2", "--cost", "1", "--certificate"]  # fmt: skip


def _command_words() -> list[list[str]]:
    """The words of the command and of every subcommand of its parser tree (and the
    ``gated ladder`` view, a positional choice rather than a subparser)."""
    import argparse

    from qtheory.cli import build_parser

    def walk(parser: argparse.ArgumentParser, words: list[str]):
        yield words
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from walk(sub, [*words, name])

    return [*walk(build_parser(), []), ["gated", "ladder"]]


#: ``--help`` of the command and of each subcommand, by name.
HELPS = {" ".join(["qtheory", *words]): [QTHEORY, *words, "--help"] for words in _command_words()}


def first_output(command: list[str], env: dict[str, str] | None = None) -> float:
    """Seconds from starting ``command`` to the first byte on its stdout (the process
    is then run to its end; a non-zero exit status is an error)."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, env=env, cwd=ROOT)
    assert process.stdout is not None
    first = process.stdout.read(1)
    elapsed = time.perf_counter() - start
    rest = process.stdout.read()
    if process.wait() != 0 or not first:
        raise RuntimeError(f"{command} failed: {(first + rest).decode(errors='replace')}")
    return elapsed


def best_first_outputs(commands: dict[str, list[str]], repeats: int = 5) -> dict[str, float]:
    """The best of ``repeats`` :func:`first_output` times of each command, timed in turns
    (each round runs every command once)."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeats):
        for name, command in commands.items():
            times[name].append(first_output(command))
    return {name: min(values) for name, values in times.items()}


def reproduce_quick() -> tuple[float, float, str]:
    """Wall time of ``qtheory reproduce --quick`` with an empty cache, the time to the
    first byte on its stderr (the progress bar), and its claims line."""
    with tempfile.TemporaryDirectory() as out, tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, QTHEORY_CACHE_DIR=cache)
        start = time.perf_counter()
        process = subprocess.Popen(
            [QTHEORY, "reproduce", "--quick", "--out", out],
            env=env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        assert process.stderr is not None
        first = process.stderr.read(1)
        first_output = time.perf_counter() - start
        stdout, stderr = process.communicate()
        elapsed = time.perf_counter() - start
    if process.returncode != 0:
        text = (first + stderr).decode(errors="replace")
        raise RuntimeError(f"qtheory reproduce --quick failed:\n{text[-2000:]}")
    lines = stdout.decode(errors="replace").splitlines()
    claims = [line for line in lines if line.startswith("claims:")]
    return elapsed, first_output, claims[-1] if claims else ""


#: The models of ``qtheory table``.
MODELS = ("gated", "lossnet", "walks")


def seconds(value: float) -> str:
    """Two significant digits: '38 s', '4.2 s', '0.61 s'."""
    return f"{float(f'{value:.2g}'):g} s"


def ratio(value: float) -> str:
    return f"{value:.1f}x"


def commit() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    )
    return done.stdout.strip() or "unknown"


def main() -> None:
    compileall.compile_dir(ROOT / "qtheory", quiet=1)  # as a wheel install has it
    with tempfile.TemporaryDirectory() as folder:
        certificate = str(Path(folder) / "certificate.json")
        subprocess.run([*CERTIFICATE, certificate], cwd=ROOT, capture_output=True, check=True)
        commands = {**COMMANDS, "qtheory verify": [QTHEORY, "verify", certificate]}
        starts = best_first_outputs(
            {"baseline": BASELINE, "gated": GATED, "gated_issue": GATED_ISSUE,
             "lossnet": LOSSNET, **commands}
        )  # fmt: skip
    baseline, gated, lossnet = starts["baseline"], starts["gated"], starts["lossnet"]
    firsts = {
        "qtheory gated ... --gate 2 --json": gated,
        "qtheory gated ... --json (issue 12)": starts["gated_issue"],
        "qtheory lossnet online": lossnet,
        **{name: starts[name] for name in commands},
    }
    helps = best_first_outputs({"import numpy": HELP_BASELINE, **HELPS})
    help_baseline = helps.pop("import numpy")
    big = LossNetwork(10**7, 0.6, 0.8, 1.0, 2.0, 1.0)
    online = best_of(3, lambda: online_optimum(big))
    table = best_of(1, lambda: threshold_table(big))
    quick, quick_first, claims = reproduce_quick()
    firsts["qtheory reproduce --quick (stderr, once)"] = quick_first
    ratios = {name: round(value / baseline, 2) for name, value in firsts.items()}
    rows = [
        ("python -c 'import numpy, scipy.optimize, mpmath'", baseline, 1.0),
        *((f"{name} (first byte)", value, value / baseline) for name, value in firsts.items()),
        ("python -c 'import numpy'", help_baseline, 1.0),
        *((f"{name} --help", value, value / help_baseline) for name, value in helps.items()),
        ("online_optimum, N = 10^7 (in process)", online, None),
        ("threshold_table (every reserve), N = 10^7", table, table / online),
        ("qtheory reproduce --quick (empty cache)", quick, None),
    ]  # fmt: skip
    for name, value, share in rows:
        print(f"{name:60s} {value:8.2f} s" + (f"   {share:5.2f}x baseline" if share else ""))
    print(claims)
    record = {
        "measured": datetime.date.today().isoformat(),
        "commit": commit(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "note": "one run on a machine shared with other jobs; wall-clock seconds, best of 5 "
        "timed in turns with their baseline",
        "import_baseline_s": baseline,
        "gated_json_s": gated,
        "gated_issue_json_s": starts["gated_issue"],
        "lossnet_online_json_s": lossnet,
        "first_output_s": firsts,
        "first_output_ratios": ratios,
        "import_numpy_s": help_baseline,
        "help_s": helps,
        "help_ratios": {name: round(value / help_baseline, 2) for name, value in helps.items()},
        "online_optimum_1e7_s": online,
        "online_optimum_table_1e7_s": table,
        "reproduce_quick_s": quick,
        "reproduce_quick_claims": claims,
        "readme": {
            "gated_ratio": ratio(gated / baseline),
            "gated_issue_ratio": ratio(starts["gated_issue"] / baseline),
            "lossnet_ratio": ratio(lossnet / baseline),
            "ladder_ratio": ratio(ratios["qtheory gated ladder"]),
            "ladder_json_ratio": ratio(ratios["qtheory gated ladder --json"]),
            "check_ratio": ratio(ratios["qtheory check"]),
            "table_ratio": ratio(max(ratios[f"qtheory table {m}"] for m in MODELS)),
            "walks_ratio": ratio(ratios["qtheory walks sss"]),
            "simulate_ratio": ratio(ratios["qtheory lossnet simulate"]),
            "verify_ratio": ratio(ratios["qtheory verify"]),
            "pof_asymptotics_ratio": ratio(ratios["pof_asymptotics (first call)"]),
            "pof_asymptotics": seconds(firsts["pof_asymptotics (first call)"]),
            "reproduce_first": seconds(quick_first),
            "import_baseline": seconds(baseline),
            "help_ratio": ratio(helps["qtheory"] / help_baseline),
            "help_max_ratio": ratio(
                max(v for k, v in helps.items() if k != "qtheory") / help_baseline
            ),
            "online_optimum_1e7": seconds(online),
            "online_optimum_table_1e7": seconds(table),
            "reproduce_quick": seconds(quick),
        },
    }
    OUTPUT.write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {OUTPUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
