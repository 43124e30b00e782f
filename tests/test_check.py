"""``qtheory check`` and :func:`qtheory.report.check.check`: each claim at user parameters
against independent references (closed forms, exact rationals), the exit statuses
(0 holds, 1 fails, 2 bad input naming the option), ``--list``, ``--json`` and a
``--help`` that imports nothing heavy."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest
from scipy.optimize import minimize_scalar
from scipy.special import lambertw

from qtheory.cli import main
from qtheory.core.claims import Claim, Evidence, Origin
from qtheory.report import check as check_module
from qtheory.report.check import CHECKS, check, claim_json, claim_text

NET = {"lambda_h": 0.6, "lambda_l": 0.8, "mu": 1.0, "r_h": 2.0, "r_l": 1.0}
NET_ARGS = ["--lambda-h", "0.6", "--lambda-l", "0.8", "--mu", "1", "--r-h", "2", "--r-l", "1"]


def sigma_infinite(gate: float, mu: float = 1.0) -> float:
    """σ = e^{−μ(1−σ)τ} for Λ = ∞: σ = −W(−μτ e^{−μτ})/(μτ)."""
    x = mu * gate
    return float(-lambertw(-x * math.exp(-x)).real / x)


def welfare_infinite(gate: float, reward: float, mu: float = 1.0, cost: float = 1.0) -> float:
    """S_GA(τ) for Λ = ∞: throughput 1/τ times the net reward R − C/(μ(1 − σ))."""
    return (reward - cost / (mu * (1 - sigma_infinite(gate, mu)))) / gate


def pof_infinite_mp(reward: str, dps: int = 50) -> mpmath.mpf:
    """PoF for Λ = ∞, μ = C = 1, in mpmath: S_GA(σ) = (R(1 − σ) − 1)/(−log σ) is
    stationary where Rσ log σ + R(1 − σ) = 1 (the left side decreases in σ), and there
    S_GA* = Rσ*; S_RR* = (√R − 1)²."""
    with mpmath.workdps(dps):
        r = mpmath.mpf(Fraction(reward).numerator) / Fraction(reward).denominator
        lo, hi = mpmath.mpf(0), 1 - 1 / r
        for _ in range(4 * dps):
            mid = (lo + hi) / 2
            if r * mid * mpmath.log(mid) + r * (1 - mid) - 1 > 0:
                lo = mid
            else:
                hi = mid
        return r * (lo + hi) / 2 / (mpmath.sqrt(r) - 1) ** 2


def stationary(n: int, reserve: int) -> list[Fraction]:
    """Stationary law of the busy servers under trunk reserve k (exact rationals)."""
    lam_h, lam_l, mu = Fraction(3, 5), Fraction(4, 5), Fraction(1)
    weights = [Fraction(1)]
    for j in range(n):  # j busy -> j + 1
        up = lam_h * n + (lam_l * n if n - j > reserve else 0)
        weights.append(weights[-1] * up / (mu * (j + 1)))
    total = sum(weights)
    return [w / total for w in weights]


def reward_rate(n: int, reserve: int) -> Fraction:
    pi = stationary(n, reserve)
    return sum(
        p * (2 * Fraction(3, 5) * n * (j < n) + 1 * Fraction(4, 5) * n * (n - j > reserve))
        for j, p in enumerate(pi)
    )


def test_pof_at_least_one_against_the_closed_forms():
    # Λ = ∞, μ = C = 1, R = 4: S_RR* = C(√ν − 1)² = 1, so PoF = max_τ S_GA(τ).
    best = minimize_scalar(lambda t: -welfare_infinite(t, 4.0), bounds=(0.5, 5), method="bounded",
                           options={"xatol": 1e-12})  # fmt: skip
    claim = check("gated.pof_at_least_one", arrival_rate="inf", service_rate=1, reward=4, cost=1)
    assert claim.passed and claim.kind is Evidence.CERTIFIED and claim.reference == 1.0
    assert claim.value == pytest.approx(-best.fun, rel=1e-9)
    assert claim.scope.startswith("at the given parameters")
    # few potential customers: both rules admit everybody, PoF = 1 exactly
    one = check("gated.pof_at_least_one", arrival_rate="0.2", service_rate=1, reward=3, cost=1)
    assert one.passed and "exactly 1" in one.statement


def test_optimal_gate_encloses_the_maximiser():
    best = minimize_scalar(lambda t: -welfare_infinite(t, 4.0), bounds=(0.5, 5), method="bounded",
                           options={"xatol": 1e-12})  # fmt: skip
    claim = check("gated.optimal_gate", arrival_rate="inf", service_rate="1", reward="4",
                  cost="1", dps=20)  # fmt: skip
    assert claim.passed and claim.certificate["checker"] == "gated.optimum"
    assert claim.value == pytest.approx(best.x, rel=1e-6)
    assert claim.value == pytest.approx(claim.reference, rel=1e-12)  # float64 route agrees
    # S_RR* = (√4 − 1)² = 1 and λ* = 1 − 1/√4 = 1/2 lie in the certified intervals
    values = claim.certificate["data"]["values"]
    for name, exact in (("welfare_rr", 1), ("rate_rr", Fraction(1, 2))):
        low, high = map(Fraction, values[name])
        assert low <= exact <= high and high - low < Fraction(1, 10**19)


def test_dominance_at_a_given_load_and_at_the_optimum():
    # load 1/2, Λ = ∞, μ = 1: τ = 2, σ = −W(−2e^{−2})/2 = 0.203188 < 1/2
    claim = check("gated.dominance", arrival_rate="inf", service_rate="1", load="0.5")
    assert claim.passed and claim.reference == 0.5
    assert claim.value == pytest.approx(sigma_infinite(2.0), rel=1e-12)
    assert claim.value == pytest.approx(0.2031878699, rel=1e-9)
    at_optimum = check("gated.dominance", arrival_rate="3", service_rate="1", reward="2", cost="1")
    assert at_optimum.passed and at_optimum.value < at_optimum.reference < 1
    assert at_optimum.certificate["checker"] == "gated.dominance"


def test_pof_rates_hold_inside_their_hypotheses_against_mpmath():
    from qtheory.verify.gated import check_asymptotics

    # light: ε = 1/10 = ε₀, Λ = ∞: |PoF ε log(1/ε)/4 − 1| against (3/2) log log 10/log 10
    claim = check("gated.pof_light_rate", arrival_rate="inf", service_rate=1, reward="1.1",
                  cost=1)  # fmt: skip
    with mpmath.workdps(50):
        eps, big = mpmath.mpf(1) / 10, mpmath.log(10)
        true = abs(pof_infinite_mp("1.1") * eps * big / 4 - 1)
        bound = mpmath.mpf(3) / 2 * mpmath.log(big) / big
    assert claim.passed and claim.kind is Evidence.CERTIFIED and claim.origin is Origin.PACKAGE
    assert true < bound and claim.value < claim.reference  # both sides, both routes
    assert claim.value == pytest.approx(float(true), rel=1e-12)
    assert claim.reference == pytest.approx(float(bound), rel=1e-12)
    assert claim.scope.startswith("at the given parameters") and "1/10" in claim.hypotheses[1]
    check_asymptotics(claim.certificate["data"])
    # heavy: ν = 4 = ν₀ and ν = 10^30, Λ = ∞ (m = 1/2)
    for reward, digits in (("4", 50), ("1e30", 90)):
        claim = check("gated.pof_heavy_rate", arrival_rate="inf", service_rate="1",
                      reward=reward, cost="1")  # fmt: skip
        with mpmath.workdps(digits):
            nu = mpmath.mpf(reward)
            ratio = (pof_infinite_mp(reward, digits) - 1) * mpmath.sqrt(nu)
            true = abs(ratio / (2 * (1 - mpmath.sqrt(mpmath.mpf(1) / 2))) - 1)
            bound = mpmath.mpf(5) / 2 / mpmath.sqrt(nu)
        assert claim.passed and true < bound and claim.value < claim.reference
        assert claim.value == pytest.approx(float(true), rel=1e-12)
        assert claim.reference == pytest.approx(float(bound), rel=1e-12)
        assert claim.certificate["checker"] == "gated.asymptotics"
        check_asymptotics(claim.certificate["data"])


@pytest.mark.parametrize(
    ("name", "params", "named"),
    [  # the README's counterexamples are outside the hypotheses: exit 2, not HOLDS
        ("gated.pof_light_rate", ("inf", "1", "1.3", "1"), "epsilon = 3/10"),
        ("gated.pof_heavy_rate", ("2", "1", "3", "1"), "nu = 3"),
        ("gated.pof_light_rate", ("inf", "1", "1", "1"), "nu"),  # ε = 0
        ("gated.pof_light_rate", ("0.01", "1", "1.1", "1"), "random routing"),
        ("gated.pof_light_rate", ("1", "1", "1.05", "1"), "arrival_rate/service_rate"),
        ("gated.pof_heavy_rate", ("1", "1", "10", "1"), "arrival_rate must be > service_rate"),
        ("gated.pof_heavy_rate", ("1.5", "1", "100", "1"), "arrival_rate/service_rate"),
    ],
)
def test_pof_rates_outside_their_hypotheses_exit_2(name, params, named, capsys):
    options = ("--arrival-rate", "--service-rate", "--reward", "--cost")
    argv = ["check", name, *(x for pair in zip(options, params, strict=True) for x in pair)]
    assert main(argv) == 2
    assert named in capsys.readouterr().err
    with pytest.raises(ValueError, match=named):
        check(name, **dict(zip(check_module._GATED, params, strict=True)))


def test_pof_rates_fail_where_the_bound_is_below_the_remainder(capsys, monkeypatch):
    # with the hypothesis bypassed, ν = 3, Λ = 2μ reaches the Arb decision: the true
    # remainder 2.83/√3 (mpmath, tests/gated/test_remainder.py) exceeds 2.5/√3
    from qtheory.gated import remainder

    monkeypatch.setattr(remainder, "require_heavy_hypotheses", lambda queue: None)
    argv = ["check", "gated.pof_heavy_rate", "--arrival-rate", "2", "--service-rate", "1",
            "--reward", "3", "--cost", "1"]  # fmt: skip
    assert main(argv) == 1
    out = capsys.readouterr().out
    assert "verdict:    FAILS" in out and "left side in" in out and "right side in" in out
    claim = check("gated.pof_heavy_rate", arrival_rate="2", service_rate=1, reward=3, cost=1)
    assert not claim.passed and claim.value > claim.reference
    assert claim.value * 3**0.5 == pytest.approx(2.831, abs=1e-3)
    assert claim.reference * 3**0.5 == pytest.approx(2.5, rel=1e-12)


def test_pof_rate_summaries_state_the_thresholds():
    from qtheory.gated import remainder

    light, heavy = CHECKS["gated.pof_light_rate"].summary, CHECKS["gated.pof_heavy_rate"].summary
    assert f"eps <= {remainder.LIGHT_EPSILON_MAX}" in light
    assert f"Lambda >= {remainder.LIGHT_ARRIVAL_RATIO_MIN.numerator}mu/5" in light
    assert remainder.LIGHT_ARRIVAL_RATIO_MIN.denominator == 5
    assert f"nu >= {remainder.HEAVY_NU_MIN}" in heavy
    assert f"Lambda >= {remainder.HEAVY_ARRIVAL_RATIO_MIN}mu" in heavy


def test_lossnet_fluid_is_the_closed_form():
    claim = check("lossnet.fluid", servers=1000, **NET)
    assert claim.passed and claim.value == 1000 * (2 * 0.6 + 1 * (1 - 0.6))
    assert claim.scope.startswith("at the given parameters")
    text = {name: str(value) for name, value in NET.items()}
    assert check("lossnet.fluid", servers=1000, **text).value == claim.value


def test_trunk_reservation_against_exact_reward_rates():
    n = 20
    rates = {k: reward_rate(n, k) for k in range(n + 1)}
    best = max(rates, key=rates.get)
    claim = check("lossnet.trunk_reservation", servers=n, **NET)
    assert claim.passed and claim.certificate["data"]["reserve"] == best
    assert claim.value == pytest.approx(float(rates[best]), rel=1e-14)


def test_regret_identity_both_sides_against_exact_rationals():
    n = 20
    rates = {k: reward_rate(n, k) for k in range(n + 1)}
    best = max(rates, key=rates.get)
    pi = stationary(n, best)
    fluid = n * (2 * Fraction(3, 5) + 1 * Fraction(2, 5))
    idle = sum((n - j) * p for j, p in enumerate(pi))
    right = 1 * 1 * idle + (2 - 1) * Fraction(3, 5) * n * pi[n]
    assert fluid - rates[best] == right  # the identity itself, in exact rationals
    claim = check("lossnet.regret-identity", servers=n, **NET)
    assert claim.passed and claim.kind is Evidence.IDENTITY
    assert claim.value == pytest.approx(float(fluid - rates[best]), rel=1e-14)
    assert claim.reference == pytest.approx(float(right), rel=1e-14)


def test_walks_ruin_against_the_gambler_ruin_formula():
    n, lam, mu, level = 500, Fraction(3, 5), Fraction(1), 3
    b = math.isqrt(n)
    # idle level j: up (a server frees) mu (N − j), down (an H job arrives) lambda_H N
    rho = [Fraction(1)]
    for m in range(1, b):
        rho.append(rho[-1] * (lam * n) / (mu * (n - m)))
    ruin = sum(rho[level:]) / sum(rho)
    claim = check("walks.ruin", servers=n, lambda_h=0.6, mu=1.0, level=level)
    assert claim.passed and claim.certificate["checker"] == "walks.bounds"
    assert claim.value == pytest.approx(float(ruin), rel=1e-12)
    assert claim.reference >= claim.value


@pytest.mark.parametrize(
    ("name", "params", "named"),
    [
        ("gated.nothing", {}, "name"),
        ("gated.dominance", {"arrival_rate": "inf"}, "service_rate"),
        ("gated.dominance", {"arrival_rate": "inf", "service_rate": 1, "load": "1.5"}, "load"),
        (
            "gated.pof_at_least_one",
            {"arrival_rate": "2", "service_rate": 1, "reward": "x", "cost": 1},
            "reward",
        ),  # fmt: skip
        ("lossnet.fluid", {"servers": 0, **NET}, "servers"),
        ("lossnet.fluid", {"servers": 10, "dps": 5, **NET}, "dps"),
        ("lossnet.trunk_reservation", {"servers": 1000, **NET}, "servers"),
        ("walks.ruin", {"servers": 100, "lambda_h": 0.6, "mu": 1.0, "level": 10}, "level"),
    ],
)
def test_bad_input_raises_value_error_naming_the_parameter(name, params, named):
    with pytest.raises(ValueError, match=named):
        check(name, **params)


def test_cli_exit_statuses_and_output(capsys):
    argv = ["check", "lossnet.regret-identity", "--servers", "1000", *NET_ARGS]
    assert main(argv) == 0
    out = capsys.readouterr().out
    for label in ("claim:", "statement:", "hypothesis:", "value:", "reference:", "verdict:",
                  "evidence:"):  # fmt: skip
        assert label in out
    assert "verdict:    HOLDS" in out and "$" not in out
    assert main([*argv, "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["passed"] is True and record["kind"] == "identity"
    assert main(["check", "lossnet.fluid", "--servers", "10", *NET_ARGS, "--level", "2"]) == 2
    assert "--level" in capsys.readouterr().err
    assert main(["check", "walks.ruin", "--servers", "500", "--mu", "1", "--level", "3"]) == 2
    assert "--lambda-h" in capsys.readouterr().err
    assert main(["check"]) == 2


def test_cli_exits_1_when_the_claim_fails(capsys, monkeypatch):
    failed = Claim(name="gated.dominance", statement="s", kind=Evidence.IDENTITY, passed=False,
                   origin=Origin.PAPER)  # fmt: skip
    from qtheory.cli import check as check_command

    monkeypatch.setattr(check_command, "check", lambda name, **params: failed)
    assert main(["check", "gated.dominance", "--arrival-rate", "inf", "--service-rate", "1",
                 "--load", "0.5"]) == 1  # fmt: skip
    assert "verdict:    FAILS" in capsys.readouterr().out


def test_list_names_every_check(capsys):
    assert main(["check", "--list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(CHECKS)


def test_text_and_json_of_a_record():
    claim = Claim(name="demo", statement=r"$x \ge 1$", kind=Evidence.NUMERICAL, passed=True,
                  origin=Origin.PACKAGE, reason="floats", value=1.5)  # fmt: skip
    assert "statement:  x ≥ 1" in claim_text(claim)  # mathematics in Unicode
    record = claim_json(claim)
    assert record["reference"] is None and record["value"] == 1.5 and record["reason"] == "floats"


@pytest.mark.parametrize("argv", [["check", "--help"], ["check", "--list"]])
def test_help_and_list_import_nothing_heavy(argv):
    script = (
        f"from qtheory.cli import main\nmain({argv!r})\nimport sys\n"
        "print('MODULES', ' '.join(sorted(sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    assert "MODULES " in out and ("usage: qtheory check" in out or "walks.ruin" in out)
    modules = set(out.rpartition("MODULES ")[2].split())
    heavy = ("sympy", "matplotlib", "scipy.stats", "flint", "qtheory.core.claims")
    assert not [m for m in modules if any(m == h or m.startswith(h + ".") for h in heavy)]


# ---------------------------------------------------------------------------
# regions and certificate files

GATED_FIXED = ["--service-rate", "1", "--cost", "1"]


def test_pof_over_a_region_is_an_identity_whose_certificate_verifies(tmp_path, capsys):
    file = tmp_path / "F.json"
    region = "reward=1.001:1000,arrival_rate=0.5:inf"
    argv = ["check", "gated.pof_at_least_one", "--region", region, *GATED_FIXED,
            "--certificate", str(file)]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "evidence:   identity" in out and "R ∈ [1001/1000, 1000]" in out
    assert main(["verify", str(file)]) == 0
    assert "gated.pof_region: For every point of the box" in capsys.readouterr().out
    certificate = json.loads(file.read_text())
    del certificate["data"]["box"]  # the one box removed: nothing is proved
    file.write_text(json.dumps(certificate))
    assert main(["verify", str(file)]) == 1
    # a box reaching nu = 1 leaves the hypothesis: bad input, exit 2
    assert main(["check", "gated.pof_at_least_one", "--region", "reward=1:10",
                 "--arrival-rate", "inf", *GATED_FIXED]) == 2  # fmt: skip
    assert "nu > 1" in capsys.readouterr().err


def test_pof_over_a_region_at_a_fixed_infinite_arrival_rate(tmp_path, capsys):
    # regression: --arrival-rate inf is the degenerate range [inf, inf] of Lambda in (0, inf],
    # accepted as arrival_rate=0.5:inf is, with the same evidence (the identity)
    file = tmp_path / "F.json"
    argv = ["check", "gated.pof_at_least_one", "--region", "reward=1.001:1000",
            "--arrival-rate", "inf", *GATED_FIXED, "--certificate", str(file)]  # fmt: skip
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Λ = ∞" in out and "verdict:    HOLDS" in out and "evidence:   identity" in out
    assert json.loads(file.read_text())["data"]["box"]["arrival_rate"] == ["inf", "inf"]
    assert main(["verify", str(file)]) == 0
    assert "the certificate holds" in capsys.readouterr().out
    reward = {"reward": ("1.001", "1000")}
    fixed = check("gated.pof_at_least_one", region=reward, arrival_rate="inf",
                  service_rate=1, cost=1)  # fmt: skip
    ranged = check("gated.pof_at_least_one", region={**reward, "arrival_rate": ("0.5", "inf")},
                   service_rate=1, cost=1)  # fmt: skip
    assert fixed.kind == ranged.kind and fixed.hypotheses == ranged.hypotheses
    assert fixed.passed and ranged.passed
    spelled = check("gated.pof_at_least_one", region={**reward, "arrival_rate": ("inf", "inf")},
                    service_rate=1, cost=1)  # fmt: skip
    assert spelled.certificate["data"] == fixed.certificate["data"]


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--region", "reward=2:3,arrival_rate=inf:3"], "arrival_rate=inf:3 needs lower <= upper"),
        (["--region", "reward=2:3,arrival_rate=0:inf"], "arrival_rate: the range [0, inf] must"),
        (["--region", "reward=2:3,arrival_rate=-1:inf"], "arrival_rate: the range [-1, inf] must"),
        (["--region", "reward=2:3", "--arrival-rate", "0"], "arrival_rate: the range [0, 0] must"),
        (["--region", "reward=2:3", "--arrival-rate", "-1"], "arrival_rate: the range [-1, -1]"),
        (["--region", "reward=inf:inf", "--arrival-rate", "inf"], "reward: only the arrival rate"),
    ],
)
def test_an_infinite_lower_end_below_a_finite_upper_or_an_end_at_most_0_is_refused(
    option, message, capsys
):
    assert main(["check", "gated.pof_at_least_one", *option, *GATED_FIXED]) == 2
    assert message in capsys.readouterr().err


def test_a_remainder_bound_over_a_range_of_reward(tmp_path, capsys):
    file = tmp_path / "light.json"
    argv = ["check", "gated.pof_light_rate", "--region", "reward=1.0001:1.1",
            "--arrival-rate", "inf", *GATED_FIXED, "--certificate", str(file)]  # fmt: skip
    assert main(argv) == 0
    assert "for all epsilon = nu - 1 in [1/10000, 1/10]" in capsys.readouterr().out
    assert main(["verify", str(file)]) == 0
    # a range leaving the hypothesis (epsilon <= 1/10) is refused, not decided
    argv[3] = "reward=1.0001:1.3"
    assert main(argv[:-2]) == 2
    assert "epsilon" in capsys.readouterr().err
    # ranges over other parameters, or regions for point-only claims, are refused
    assert main(["check", "gated.pof_heavy_rate", "--region", "arrival_rate=2:5",
                 "--reward", "10", *GATED_FIXED]) == 2  # fmt: skip
    assert "range of reward" in capsys.readouterr().err
    assert main(["check", "lossnet.fluid", "--region", "reward=1:2", "--servers", "10",
                 *NET_ARGS]) == 2  # fmt: skip
    assert "checked at a point only" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["gated.optimal_gate", "--arrival-rate", "inf", "--reward", "2", *GATED_FIXED],
        ["gated.pof_at_least_one", "--arrival-rate", "3", "--reward", "2", *GATED_FIXED],
        ["gated.dominance", "--arrival-rate", "3", "--reward", "2", *GATED_FIXED],
        ["gated.pof_heavy_rate", "--arrival-rate", "inf", "--reward", "10", *GATED_FIXED],
        ["lossnet.fluid", "--servers", "100", *NET_ARGS],
        ["lossnet.trunk_reservation", "--servers", "30", *NET_ARGS],
        ["lossnet.online_optimum", "--servers", "1000000", *NET_ARGS],
        ["walks.ruin", "--servers", "400", "--lambda-h", "0.6", "--mu", "1", "--level", "3"],
        ["walks.sss_failure_bound", "--servers", "1000", *NET_ARGS[:6], "--window", "8"],
    ],
)
def test_every_certified_check_writes_a_certificate_that_verifies(argv, tmp_path, capsys):
    file = tmp_path / "certificate.json"
    assert main(["check", *argv, "--certificate", str(file)]) == 0
    capsys.readouterr()
    assert main(["verify", str(file)]) == 0
    assert "the certificate holds" in capsys.readouterr().out


def test_online_optimum_against_every_reserve_by_birth_death_sums():
    # independent route: the busy count of trunk reservation with reserve k is a birth-death
    # chain (births lambda_H N + lambda_L N while more than k servers are idle, deaths b mu);
    # its reward rate by stationary sums in mpmath, maximised over every k
    n, lam_h, lam_l, mu, r_h, r_l = 60, 0.6, 0.8, 1, 2, 1
    with mpmath.workdps(40):

        def rate(k):
            weights, w = [mpmath.mpf(1)], mpmath.mpf(1)
            for b in range(n):
                birth = lam_h * n + (lam_l * n if n - b > k else 0)
                w = w * birth / ((b + 1) * mu)
                weights.append(w)
            total = mpmath.fsum(weights)
            return (
                mpmath.fsum(
                    weights[b] * (r_h * lam_h * n + (r_l * lam_l * n if n - b > k else 0))
                    for b in range(n)
                )
                / total
            )

        rates = [rate(k) for k in range(n + 1)]
        best = max(range(n + 1), key=lambda k: rates[k])
        claim = check("lossnet.online_optimum", servers=n, lambda_h=lam_h, lambda_l=lam_l,
                      mu=mu, r_h=r_h, r_l=r_l)  # fmt: skip
        assert claim.passed and claim.certificate["data"]["cases"][0]["reserve"] == best
        assert abs(mpmath.mpf(claim.value) / rates[best] - 1) < 1e-12


def test_sss_failure_bound_refuses_a_vacuous_window_and_a_large_n(capsys):
    base = ["check", "walks.sss_failure_bound", *NET_ARGS[:6]]
    assert main([*base, "--servers", "100", "--window", "0.5"]) == 2
    assert "trivial 1" in capsys.readouterr().err
    assert main([*base, "--servers", "20000", "--window", "8"]) == 2
    assert "servers must be <= 10000" in capsys.readouterr().err
