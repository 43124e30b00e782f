"""The ladder of memory (qtheory.gated.ladder) and ``qtheory gated ladder``: every rung
against an independent value (closed forms at Λ = ∞), the order of the rungs, the
full-memory bracket when qtheory.gated.history is there and "not computed" when it is
not, and the command's output and errors (the plain ``qtheory gated`` unchanged)."""

import json
import subprocess
import sys
import time

import pytest
from _cli_testing import capped_memory

from qtheory.cli import main
from qtheory.core import limits
from qtheory.gated import GatedQueue, optimal_gate
from qtheory.gated import history as history_module
from qtheory.gated import ladder as ladder_module
from qtheory.gated.ladder import ladder

BASE = ["--arrival-rate", "inf", "--service-rate", "1", "--reward", "4", "--cost", "1"]


@pytest.fixture
def without_history(monkeypatch):
    """The ladder as if qtheory.gated.history were not installed (and fast)."""
    monkeypatch.setattr(ladder_module, "HISTORY_MODULE", "qtheory.gated._not_a_module")


@pytest.mark.parametrize("nu", [1.5, 4.0, 30.0])
def test_infinite_arrival_rate_rungs_against_closed_forms(nu, without_history):
    lad = ladder(GatedQueue("inf", 1, nu, 1), 6)
    rr = (nu**0.5 - 1) ** 2  # C(√ν − 1)²
    assert lad.rr.welfare == pytest.approx(rr, rel=1e-14)
    assert lad.ph[1].welfare == pytest.approx(rr, rel=1e-14)  # m = 1 is RR at Λ = ∞
    assert lad.observable.welfare == pytest.approx(nu - 1, rel=1e-15)  # μR − C, n* = 1
    assert lad.observable_threshold == 1
    for rung in lad.rungs():
        if rung.welfare is not None:
            assert rung.pof == pytest.approx(rung.welfare / rr, rel=1e-14)
    assert lad.ordered()


@pytest.mark.parametrize("arrival", [0.5, 1.0, 3.0, "inf"])
@pytest.mark.parametrize("nu", [1.1, 3.0, 12.0])
def test_rungs_are_ordered(arrival, nu, without_history):
    lad = ladder(GatedQueue(arrival, 1, nu, 1), (1, 2, 5, 17))
    assert lad.ordered()
    ph = [rung.welfare for rung in lad.ph.values()]
    if optimal_gate(lad.queue).at_boundary:  # admitting everybody is best: all gates equal
        assert ph[0] == pytest.approx(lad.ga.welfare, rel=1e-14)
    else:  # memory strictly helps
        assert all(a < b for a, b in zip(ph, ph[1:], strict=False)) and ph[-1] < lad.ga.welfare
    assert lad.ga.welfare < lad.observable.welfare


def test_gaps_are_differences_and_ratios(without_history):
    lad = ladder(GatedQueue(2.0, 1, 5, 1), 3)
    gaps = lad.gaps()
    assert [(g["lower"], g["upper"]) for g in gaps] == [
        ("rr", "ph[3]"),
        ("ph[3]", "ga"),
        ("ga", "observable"),
    ]
    assert gaps[1]["absolute"] == pytest.approx(lad.ga.welfare - lad.ph[3].welfare, rel=1e-15)
    assert gaps[2]["ratio"] == pytest.approx(lad.observable.pof / lad.ga.pof, rel=1e-14)


def test_missing_history_leaves_the_full_memory_rungs_not_computed(without_history):
    lad = ladder(GatedQueue("inf", 1, 4, 1), 2)
    for rung in (lad.full_memory_lower, lad.full_memory_upper):
        assert rung.welfare is None and rung.pof is None and rung.kind == "not computed"
    assert "not available" in lad.full_memory_lower.method


def test_full_memory_bracket_sits_between_ga_and_the_ceiling():
    pytest.importorskip("qtheory.gated.history")
    queue = GatedQueue(3.0, 1, 2, 1)
    lad = ladder(queue, 2)
    lower, upper = lad.full_memory_lower.welfare, lad.full_memory_upper.welfare
    assert optimal_gate(queue).welfare <= lower + 1e-12 <= upper + 1e-12
    assert upper <= lad.observable.welfare
    assert lad.ordered()


def test_rung_methods_say_no_more_than_their_kind():
    """At Λ = 0.5 the relaxation is the bracket's upper end: that rung is numerical, so
    its method says "not certified" and never "certified bound", and says that it
    covers gate policies only (window rules: Hajek's bound); GA's rung is numerical
    too, its certified enclosure is another command's."""
    pytest.importorskip("qtheory.gated.history")
    lad = ladder(GatedQueue(0.5, 1, 2, 1), 2)
    upper = lad.full_memory_upper
    assert upper.kind == "numerical" and lad.full_memory_lower.welfare <= upper.welfare
    assert "not certified" in upper.method and "gate policies" in upper.method
    assert "window rule" in upper.method and "Hajek" in upper.method
    for rung in lad.rungs():
        assert "certified bound" not in rung.method
        if rung.kind == "numerical" and "certified" in rung.method:
            assert "not certified" in rung.method
    assert "not certified here" in lad.ga.method


def test_memory_is_described_consistently():
    """GA is the one-bit rule (open or closed, with a clock); an Erlang-m gate's state is
    its phase, never "log2 m bits" (which would make GA, its limit, unbounded)."""
    from qtheory.report import gated_ladder as ladder_outputs

    texts = [ladder_module.__doc__, ladder_outputs.__doc__, ladder_outputs._derivation()]
    for text in texts:
        assert "log_2 m" not in text and "log₂ m" not in text and "bits" not in text
    assert "one bit" in ladder_module.__doc__ and "one-bit" in ladder_outputs.__doc__
    assert "one-bit" in ladder_outputs._derivation()
    assert "m phases" in ladder_module.__doc__ and "clock" in ladder_module.__doc__


def run(capsys, argv):
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_cli_json_has_every_rung(capsys, without_history):
    status, out, _ = run(capsys, ["gated", "ladder", *BASE, "--phases", "3", "--json"])
    assert status == 0
    values = json.loads(out)
    expected = {"rr", "ph", "ga", "full_memory_lower", "full_memory_upper", "observable"}
    assert expected <= set(values)
    assert sorted(values["ph"]) == ["1", "2", "3"]
    assert values["rr"]["pof"] == 1.0 and values["observable"]["threshold"] == 1
    assert values["ga"]["pof"] == pytest.approx(1.5296142784, rel=1e-9)  # docs of gated
    assert values["full_memory_lower"]["welfare"] is None


def test_cli_text_lists_every_rung(capsys, without_history):
    status, out, _ = run(capsys, ["gated", "ladder", *BASE, "--phases", "2"])
    names = [line.split()[0] for line in out.splitlines()[1:7]]
    assert status == 0 and names == ["rr", "ph[1]", "ph[2]", "ga", "full_memory_lower",
                                     "full_memory_upper"]  # fmt: skip
    assert "ordered: True" in out


def test_plain_gated_command_is_unchanged(capsys):
    status, out, _ = run(capsys, ["gated", *BASE, "--json"])
    assert status == 0
    assert set(json.loads(out)) == {
        "tau_star", "welfare_ga", "welfare_rr", "rate_rr", "throughput_ga", "pof"
    }  # fmt: skip


@pytest.mark.parametrize(
    "argv, named",
    [
        (["ladder", *BASE, "--phases", "0"], "--phases"),
        (["ladder", *BASE[:1], "-1", *BASE[2:]], "arrival_rate"),
        (["ladder", *BASE[:3], "0", *BASE[4:]], "service_rate"),
        (["ladder", *BASE[:5], "1", *BASE[6:]], "nu"),
        ([*BASE, "--phases", "2"], "--phases"),
        (["ladder", *BASE, "--dps", "20"], "--dps"),
        (["ladder", *BASE, "--gate", "2"], "--gate"),
        (["lader", *BASE], "invalid choice"),
        (["ladder", *BASE, "--service", "erlang:0"], "service"),
        (["ladder", *BASE, "--service", "gamma:2"], "service"),
        ([*BASE, "--service", "erlang:3"], "--service"),
    ],
)
def test_cli_bad_input_exits_2_naming_the_option(capsys, argv, named, without_history):
    status, _, err = run(capsys, ["gated", *argv])
    assert status == 2 and named in err and err.count("\n") == 1


def test_ladder_help_imports_nothing_heavy():
    script = (
        "from qtheory.cli import main\nassert main(['gated', 'ladder', '--help']) == 0\n"
        "import sys\nprint('MODULES', *sorted(sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    modules = set(out.stdout.rpartition("MODULES ")[2].split())
    heavy = {"sympy", "scipy", "qtheory.gated.ladder", "qtheory.gated.phase_gates"}
    assert not heavy & {m if m.startswith("qtheory") else m.split(".")[0] for m in modules}
    assert "ladder" in out.stdout


@pytest.mark.parametrize("arrival", ["inf", "2"])
def test_phase_type_ladder_with_exponential_service_is_the_exponential_ladder(arrival):
    """Independent routes: Pollaczek-Khinchine and the GI/PH/1 ladder-height fixed point
    with one exponential phase against the M/M/1 closed form and the GI/M/1 root."""
    queue = GatedQueue(arrival, 1, 4, 1)
    plain = ladder(queue, (1, 3), full_memory=False)
    ph = ladder(queue, (1, 3), service="exponential")
    for name in ("rr", "ga"):
        assert getattr(ph, name).welfare == pytest.approx(getattr(plain, name).welfare, rel=1e-9)
    for m in (1, 3):
        assert ph.ph[m].welfare == pytest.approx(plain.ph[m].welfare, rel=1e-9)
    assert ph.observable.welfare is None and ph.full_memory_lower.welfare is None


def test_phase_type_ladder_orders_its_rungs_and_less_variable_service_gains_more():
    queue = GatedQueue("inf", 1, 2, 1)
    erlang4, h2 = ladder(queue, 4, service="erlang:4"), ladder(queue, 4, service="hyperexp:4")
    assert erlang4.ordered() and h2.ordered()
    assert erlang4.ph[1].pof == pytest.approx(1.0, rel=1e-9)  # Lambda = inf: m = 1 is RR
    assert erlang4.ga.pof > h2.ga.pof > 1


def ladder_args(arrival, service, reward, cost, *extra):
    return ["gated", "ladder", "--arrival-rate", arrival, "--service-rate", service,
            "--reward", reward, "--cost", cost, *extra]  # fmt: skip


@pytest.mark.parametrize(
    ("argv", "named", "limit"),
    [
        # the gap-gate search: 800 evaluations of 18442 blocks each
        (ladder_args("2", "1e3", "1.000001", "0.001"), "service_rate", "QTHEORY_LIMIT_DP_CELLS"),
        # its blocks: 36841382 of them, 14 GB
        (ladder_args("1e-6", "1", "1000", "0.001"), "service_rate", "QTHEORY_LIMIT_MEMORY"),
        # nu = 2e320 overflows float64 (was: "cannot convert float infinity to integer")
        (ladder_args("2", "1", "2", "1e-320"), "cost", "beyond float64"),
        # 300 service phases: Jacobians of 300 directions of 600 x 600 matrix exponentials
        (ladder_args("2", "1", "2", "1", "--service", "erlang:300"), "service", "DP_CELLS"),
    ],
)
def test_ladders_out_of_all_proportion_are_refused_before_they_start(capsys, argv, named, limit):
    """Before: the first ran past 60 s, the second reached 4.75 GB at 60 s, the third
    failed naming no option.  Now one line, exit 2, naming the option and the limit."""
    start = time.perf_counter()
    with capped_memory():
        status = main(argv)
    err = capsys.readouterr().err
    assert time.perf_counter() - start < 2.0
    assert status == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"qtheory gated: error: {named}") and limit in err


def test_lowered_limits_refuse_an_ordinary_ladder():
    """The estimates are wired in: rungs that take a second are refused, before any
    work, under limits far below their estimates, each naming its parameter."""
    queue = GatedQueue(3.0, 1, 2, 1)
    with limits.raised(dp_cells=1e6), pytest.raises(ValueError, match="^grid: the relaxation"):
        ladder(queue, 2)
    with limits.raised(dp_cells=1e9), pytest.raises(ValueError, match="^service_rate: the best"):
        history_module.full_memory_bracket(queue, states=24, grid=400)
    with limits.raised(dp_cells=1e6), pytest.raises(ValueError, match="^service: .* cells"):
        ladder(queue, 2, service="erlang:2")


def test_huge_arrival_rate_is_computed(capsys):
    """Λ = 1e30 (reported as "Singular matrix", exit 2): the rungs are those of Λ = ∞
    to float64 and in order, the observable ceiling μR − C = 1 (before: −1 at
    Λ = 1e100, the ladder out of order)."""
    status = main([*ladder_args("1e30", "1", "2", "1"), "--json"])
    values = json.loads(capsys.readouterr().out)
    assert status == 0 and values["ordered"]
    limit = ladder(GatedQueue("inf", 1, 2, 1), 8, full_memory=False)
    assert values["ga"]["welfare"] == pytest.approx(limit.ga.welfare, rel=1e-12)
    assert values["observable"]["welfare"] == 1.0
    lower, upper = values["full_memory_lower"]["welfare"], values["full_memory_upper"]["welfare"]
    assert upper == pytest.approx(limit.ga.welfare, rel=1e-12)  # Hajek's bound: GA at inf
    assert lower <= upper * (1 + 1e-12)
    assert ladder(GatedQueue(1e100, 1, 2, 1), 2, full_memory=False).ordered()


@pytest.mark.parametrize(
    ("arrival", "nu"), [(2, 1000), (3, 800), (3, 600), (30, 450), (100, 1000), (1.5, 3000)]
)
def test_relaxation_is_left_out_where_it_cannot_lower_the_bracket(arrival, nu):
    """Each of these failed after 5-28 s ("policy iteration did not converge" or
    "Singular matrix"): with the cap K = 400 below ν − 1 and Λ > μ, gate 0 alone earns
    Λ(R − C(K + 1)/μ) ≥ the regular-arrivals bound in the capped problem, so the
    relaxation cannot be the upper end and is left out (one gap level: no search)."""
    start = time.perf_counter()
    queue = GatedQueue(arrival, 1, nu, 1)
    bracket = history_module.full_memory_bracket(queue, levels=1)
    assert time.perf_counter() - start < 2.0
    assert bracket.relaxation is None and bracket.upper == bracket.regular
    assert arrival * (nu - 401) >= bracket.regular  # the rule, at K = 400, mu = C = 1
    assert bracket.ga <= bracket.lower <= bracket.upper < nu - 1  # below mu R - C


def test_rung_kinds_are_evidence_values():
    """The ladder names its evidence kinds as text (qtheory.core.claims loads the
    statistics stack): they are values of Evidence."""
    from qtheory.core.claims import Evidence

    kinds = {e.value for e in Evidence}
    assert {ladder_module.IDENTITY, ladder_module.NUMERICAL} <= kinds
    lad = ladder(GatedQueue(3.0, 1, 2, 1), 2)
    assert {r.kind for r in lad.rungs()} <= kinds


@pytest.mark.parametrize("service", [None, "erlang:3"])
def test_on_rung_sees_every_rung_in_ladder_order_as_it_is_computed(service):
    seen = []
    lad = ladder(GatedQueue(3.0, 1, 2, 1), 2, service=service, on_rung=seen.append)
    assert seen == lad.rungs()


def test_ladder_prints_its_first_rung_before_the_bracket_is_computed(capsys, monkeypatch):
    """``qtheory gated ladder`` prints the RR, gate and GA rungs before the full-memory
    bracket (about a second) is computed; the text is render_ladder's, byte for byte."""
    from qtheory.cli.gated import render_ladder

    printed_before = []
    real = history_module.full_memory_bracket

    def bracket(queue, **kwargs):
        printed_before.append(capsys.readouterr().out)
        return real(queue, **kwargs)

    monkeypatch.setattr(history_module, "full_memory_bracket", bracket)
    argv = ["gated", "ladder", "--arrival-rate", "3", "--service-rate", "1", "--reward", "2",
            "--cost", "1", "--phases", "2"]  # fmt: skip
    assert main(argv) == 0
    out = printed_before[0] + capsys.readouterr().out
    names = [line.split()[0] for line in printed_before[0].splitlines()]
    assert names == ["rung", "rr", "ph[1]", "ph[2]", "ga"]
    expected = render_ladder(ladder(GatedQueue(3.0, 1, 2, 1), 2), False)
    assert out == expected + "\n"


@pytest.mark.parametrize(
    ("service", "limit"),
    [("erlang:2000", "DP_CELLS"), ("erlang:100000", "MEMORY"), ("fit:0.001", "DP_CELLS")],
)
def test_large_service_laws_are_refused_from_their_spec(capsys, service, limit):
    """Before: erlang:2000 was refused after building its law (6 s), erlang:100000 ran
    out of memory building it.  Now the spec's phase count is priced first."""
    start = time.perf_counter()
    with capped_memory():
        status = main(ladder_args("3", "1", "2", "1", "--phases", "2", "--service", service))
    err = capsys.readouterr().err
    assert time.perf_counter() - start < 2.0
    assert status == 2 and err.startswith("qtheory gated: error: service:") and limit in err


def test_a_fixed_point_that_cannot_settle_gives_up_at_once(capsys):
    """hyperexp:1e9: Newton leaves the feasible set and the natural iteration contracts
    by 1 - 1e-9 per step; it gave up after 200000 steps (27 s), now after its first
    forecast, in well under 2 s."""
    start = time.perf_counter()
    status = main(ladder_args("3", "1", "2", "1", "--phases", "2", "--service", "hyperexp:1e9"))
    err = capsys.readouterr().err
    assert time.perf_counter() - start < 2.0
    assert status == 1 and "would need about" in err and "squared coefficient" in err
