"""Shared test helpers: statistical comparisons with a stated false-failure rate, and the
fuzzing contract of public entry points.

Statistical comparisons
-----------------------
Every statistical test compares an estimate with an exact reference (or two estimates
with each other) at a two-sided false-failure probability ``alpha`` per comparison
(default :data:`ALPHA` = 1e-4), using the estimator's own standard error; seeds are
fixed, so a failure reproduces.  A test making k comparisons fails falsely with
probability at most k * alpha.

Fuzzing
-------
The fuzz-test modules share one settings profile (:data:`FUZZ`; a module needing another
example count or fixed examples derives from it: ``@settings(FUZZ, max_examples=N)``)
and the strategies for arguments a caller might pass by mistake: :data:`special_reals`,
:data:`wrong_types`, :data:`anything` (their union with small integers) and
:data:`dps_values`.  Module-specific strategies (networks, walks, CLI argument lists)
stay in the modules.

Under CI (the environment variable ``CI`` set to a non-empty value; ``.ci/run`` sets it) every
Hypothesis test is derandomized: the ``"ci"`` profile (:data:`CI_PROFILE`) gives each
test a fixed seed, the digest of its own code, so a CI run draws the same examples every
time until the test or Hypothesis changes (rerun a CI failure locally with ``CI=true``).
Elsewhere the examples are random and a failure prints how to reproduce it.  The session
header says which profile is in force (printed even under ``-q``).

Bounded runs
------------
Under CI the test process's data segment (heap and private mappings, ``RLIMIT_DATA``) is
capped at :data:`MEMORY_CAP` (2 GB; ``QTHEORY_TEST_MEMORY_CAP`` in bytes to change it):
a test that allocates past it gets a ``MemoryError`` and fails, instead of taking the
machine's memory.  (The address space, ``RLIMIT_AS``, is not capped: threads and NumPy
reserve gigabytes of it that they never use.)  Every session caches in a fresh directory
(``QTHEORY_CACHE_DIR``), so no result of an earlier run or of the user's own runs reaches
a test.

End-to-end runs
---------------
The fixture :func:`quick_reproduce` runs ``qtheory reproduce --out DIR --quick`` once per
session (once for all the workers of ``-n auto``); every test of a whole quick run reads
that one output (and writes nothing into it).  Checks that need it, or that take more
than a few seconds, are marked ``@pytest.mark.slow``: ``python -m pytest -m "not slow"``
skips them for a quick local loop; the README's command (and CI) runs everything.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import math
import os
import shutil
import tempfile
import types
from pathlib import Path

import hypothesis
import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from scipy import stats

try:
    import resource
except ImportError:  # not on Windows: no memory cap there
    resource = None

from qtheory.core.stats import Estimate

#: Default false-failure probability of one statistical comparison.
ALPHA = 1e-4


def t_tolerance(stderr: float, dof: int | None, alpha: float = ALPHA) -> float:
    """Two-sided (1 - alpha) allowance for an estimate with standard error ``stderr``:
    t_{1 - alpha/2, dof} * stderr, or the normal quantile when ``dof`` is None."""
    quantile = stats.norm.ppf(1 - alpha / 2) if dof is None else stats.t.ppf(1 - alpha / 2, dof)
    return float(quantile * stderr)


def assert_estimate_matches(
    estimate: Estimate, reference: float, alpha: float = ALPHA, *, max_relative_width=None
) -> None:
    """``estimate`` agrees with the exact ``reference`` at false-failure rate ``alpha``
    (and, with ``max_relative_width``, its 95% interval is narrow enough to test
    anything: halfwidth <= max_relative_width * max(|reference|, 0.1))."""
    allowance = t_tolerance(estimate.stderr, estimate.dof, alpha)
    assert abs(estimate.mean - reference) <= allowance, (estimate, reference, allowance)
    if max_relative_width is not None:
        assert estimate.halfwidth <= max_relative_width * max(abs(reference), 0.1), (
            "interval too wide to test anything",
            estimate,
        )


def assert_rejects(call, *args, match: str, **kwargs) -> None:
    """``call(*args, **kwargs)`` raises ValueError or TypeError whose message matches
    ``match`` (the parameter's name, usually)."""
    with pytest.raises((ValueError, TypeError), match=match):
        call(*args, **kwargs)


def assert_clean_outcome(call, *args, **kwargs):
    """The fuzzing contract of a public entry point: it returns, or it raises a
    ValueError or TypeError (never AttributeError, ZeroDivisionError, an exception from
    inside NumPy/SciPy/mpmath, or a silent NaN in a float result)."""
    try:
        result = call(*args, **kwargs)
    except (ValueError, TypeError) as error:
        assert str(error), "an error must say what is wrong"
        return None
    if isinstance(result, float):
        assert not math.isnan(result), (call, args, kwargs)
    return result


#: Is this a CI run (``CI`` set to anything but the empty string)?
IN_CI = bool(os.environ.get("CI"))

#: The Hypothesis profile loaded under CI, before :data:`FUZZ` and every module's settings
#: are built (they inherit from it): Hypothesis's own ``"ci"`` profile, stated in full
#: here: derandomized (each test's seed is the digest of its code), 100 examples where a
#: test names no count, no example database (a run depends on nothing a previous run
#: left), no deadline and no too-slow health check (a loaded runner is slow; the tests
#: make no assertion about time), and a failure prints its reproduction blob.
CI_PROFILE = "ci"
settings.register_profile(
    CI_PROFILE,
    settings.get_profile(CI_PROFILE),
    derandomize=True,
    max_examples=100,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
if IN_CI:
    settings.load_profile(CI_PROFILE)

#: The settings profile of every fuzz test: 25 examples, no deadline (the first call of
#: an entry point may compile or cache), no health check (the strategies are broad on
#: purpose) and no example database (a run depends on nothing a previous run left).
FUZZ = settings(
    max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), database=None
)

#: Reals at the edges: signed zeros, units, subnormals, the smallest and largest
#: magnitudes, infinities and NaN.
SPECIAL_REALS = (
    0.0, -0.0, 0.5, 1.0, -1.0, 2.0,
    5e-324, 1e-320, 1e-300, 1e-200, 1e200, 1e300, -1e300, 1e308,
    math.inf, -math.inf, math.nan,
)  # fmt: skip

#: Values of the wrong type for a number, or of the wrong shape for a vector: None,
#: booleans, strings, empty and ragged containers, a bare object, NumPy objects.
WRONG_TYPES = (
    None, True, False, "x", "", [], {}, {"a": 1}, (), (1.0, 2.0), [1.0, "a"],
    [[1.0, 2.0], [3.0]], object(), np.zeros((2, 2)), np.random.default_rng(0),
)  # fmt: skip

special_reals = st.one_of(
    st.sampled_from(SPECIAL_REALS), st.floats(allow_nan=True, allow_infinity=True)
)
"""Any float, with the edges of :data:`SPECIAL_REALS` drawn often."""

wrong_types = st.one_of(
    st.sampled_from(WRONG_TYPES).map(copy.deepcopy),  # a fresh copy: a call may mutate it
    st.text(max_size=4),
    st.lists(st.one_of(st.floats(-2, 2), st.just(math.nan)), max_size=3),
)
"""Anything but a number: :data:`WRONG_TYPES`, short text, short lists of floats (NaN
included)."""

small_integers = st.integers(-10, 40)
"""Small integers, negatives and zero included (sizes, counts, indices)."""

anything = st.one_of(special_reals, small_integers, wrong_types)
"""Any argument a caller might pass by mistake (or by design): reals, small integers,
wrong types."""

dps_values = st.one_of(
    st.none(),
    st.integers(-2, 40),
    st.sampled_from([2.5, True, "30", 10**9]),
    wrong_types,
)
"""Values of a ``dps=`` (decimal digits) argument: the default, small integers (0 and
negatives included), a non-integral real, a boolean, a numeric string, a huge request,
wrong types."""


# ---------------------------------------------------------------------------
# the session: memory cap, cache directory, header

#: The cap on the test process's data segment under CI, in bytes (2 GB; the whole suite
#: needed at most 1.44 GB in the last measurement).
MEMORY_CAP = int(float(os.environ.get("QTHEORY_TEST_MEMORY_CAP", 2e9)))

_session: dict = {}


def _cap_memory() -> str:
    """Lower the soft ``RLIMIT_DATA`` to :data:`MEMORY_CAP` under CI (never above the hard
    limit, never raising a lower one); what the header says about it."""
    if not IN_CI:
        return "memory: not capped (CI caps the data segment)"
    if resource is None or not hasattr(resource, "RLIMIT_DATA"):
        return "memory: not capped (no RLIMIT_DATA on this platform)"
    soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
    cap = MEMORY_CAP if hard == resource.RLIM_INFINITY else min(MEMORY_CAP, hard)
    if soft == resource.RLIM_INFINITY or soft > cap:
        _session["rlimit_data"] = (soft, hard)
        resource.setrlimit(resource.RLIMIT_DATA, (cap, hard))
    else:
        cap = soft
    return f"memory: data segment capped at {cap / 1e9:.3g} GB (RLIMIT_DATA)"


def pytest_configure(config):
    _session["memory"] = _cap_memory()
    _session["cache_env"] = os.environ.get("QTHEORY_CACHE_DIR")
    _session["cache"] = tempfile.mkdtemp(prefix="qtheory-test-cache-")
    os.environ["QTHEORY_CACHE_DIR"] = _session["cache"]


def pytest_unconfigure(config):
    if "cache" not in _session:
        return
    if _session["cache_env"] is None:
        os.environ.pop("QTHEORY_CACHE_DIR", None)
    else:
        os.environ["QTHEORY_CACHE_DIR"] = _session["cache_env"]
    shutil.rmtree(_session.pop("cache"), ignore_errors=True)
    if "rlimit_data" in _session:
        resource.setrlimit(resource.RLIMIT_DATA, _session.pop("rlimit_data"))


def header_lines() -> list[str]:
    """What the session header says: the Hypothesis profile and seed, the memory cap."""
    current = settings.default
    if current.derandomize:
        seed = "derandomized (each test's seed is the digest of its code)"
    else:
        seed = "random seeds (a failure prints how to reproduce it; CI=true derandomizes)"
    deadline = current.deadline
    return [
        f"hypothesis {hypothesis.__version__}, profile {settings.get_current_profile_name()!r}: "
        f"{seed}; {current.max_examples} examples unless a test names its count, "
        + ("no deadline" if deadline is None else f"deadline {deadline.total_seconds():g} s")
        + (", no example database" if current.database is None else ", example database"),
        _session.get("memory", "memory: not capped"),
    ]


def pytest_report_header(config):
    return header_lines()


@pytest.hookimpl(trylast=True)
def pytest_sessionstart(session):
    """Under ``-q`` (the project's default) pytest prints no header: print these lines."""
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and not reporter.showheader:
        for line in header_lines():
            reporter.write_line(line)


# ---------------------------------------------------------------------------
# one quick reproduce run for the session


@pytest.fixture(scope="session")
def quick_reproduce(tmp_path_factory):
    """``qtheory reproduce --out DIR --quick`` run once for the session, in this process
    (``qtheory.cli.main``), with the session's fresh cache directory.  Under pytest-xdist
    (``-n``) the workers share one run: the first to need it makes it under a lock in
    their common temporary folder and the others read its record.

    Returns a namespace: ``out`` (the output directory; read it, never write into it:
    copy what a test changes or compiles), ``status`` (the exit status, 0), ``written``
    (the list of paths :func:`qtheory.report.reproduce.reproduce` returned), ``printed``
    (its standard output: the claims summary and ``wrote N files under ...``) and
    ``errors`` (its standard error: the progress bars).
    """
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        run = _quick_run(tmp_path_factory.mktemp("reproduce-quick"))
    else:
        import fcntl  # xdist runs here on Linux only (CI); a lock file shared by the workers

        shared = tmp_path_factory.getbasetemp().parent  # each worker's basetemp is below it
        record = shared / "reproduce-quick.json"
        with open(shared / "reproduce-quick.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            if record.exists():
                run = json.loads(record.read_text())
            else:
                run = _quick_run(shared / "reproduce-quick")
                record.write_text(json.dumps(run))
    return types.SimpleNamespace(
        out=Path(run["out"]),
        status=run["status"],
        written=[Path(path) for path in run["written"]],
        printed=run["printed"],
        errors=run["errors"],
    )


def _quick_run(out: Path) -> dict:
    """Run ``qtheory reproduce --out OUT --quick`` and return what it did as JSON data."""
    import qtheory.cli.reproduce as command
    from qtheory.cli import main

    returned = []
    real = command.reproduce

    def recording(*args, **kwargs):
        returned.append(real(*args, **kwargs))
        return returned[-1]

    printed, errors = io.StringIO(), io.StringIO()
    with (
        pytest.MonkeyPatch.context() as patch,
        contextlib.redirect_stdout(printed),
        contextlib.redirect_stderr(errors),
    ):
        patch.setattr(command, "reproduce", recording)
        status = main(["reproduce", "--out", str(out), "--quick"])
    assert status == 0 and len(returned) == 1, (status, errors.getvalue()[-3000:])
    return {
        "out": str(out),
        "status": status,
        "written": [str(path) for path in returned[0]],
        "printed": printed.getvalue(),
        "errors": errors.getvalue(),
    }
