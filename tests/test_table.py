"""``qtheory table`` and :mod:`qtheory.report.tables`: correctly rounded values (checked against
closed forms and independent mpmath computations at higher precision, and against
``qtheory gated --dps``), the LaTeX compiles, and bad input names the option."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
from decimal import Decimal
from types import SimpleNamespace

import mpmath
import pytest
from test_startup import heavy, modules_after

from qtheory.cli import main
from qtheory.core.enclosure import Enclosure
from qtheory.report import tables as tab

GATED = ["table", "gated", "--reward", "1.5,2,4", "--arrival-rate", "inf,3",
         "--columns", "tau_star,welfare_ga,welfare_rr,pof", "--dps", "20"]  # fmt: skip
LOSSNET = ["table", "lossnet", "--servers", "10,100", "--lambda-h", "0.6", "--lambda-l",
           "0.8", "--mu", "1", "--r-h", "2", "--r-l", "1"]  # fmt: skip


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def reference_round(value: mpmath.mpf, digits: int) -> Decimal:
    """``value`` (known to many more digits) rounded half-even to ``digits`` digits."""
    exact = Decimal(mpmath.nstr(value, digits + 25, strip_zeros=False))
    return Decimal(tab._round(exact, digits))


# --- correct rounding ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("lower", "upper", "digits", "expected"),
    [
        ("2.5e+0", "2.5e+0", 1, "2e+0"),  # an exact tie goes to even
        ("3.5e+0", "3.5e+0", 1, "4e+0"),
        ("9.9996e+0", "9.99961e+0", 4, "1.000e+1"),  # the carry adds a digit
        ("-1.23456e-7", "-1.23455e-7", 3, "-1.23e-7"),
        ("1.2345e+0", "1.2355e+0", 3, None),  # 1.23 | 1.24: undecidable
        ("0", "0", 5, "0"),
    ],
)
def test_correctly_rounded(lower, upper, digits, expected):
    assert tab.correctly_rounded(lower, upper, digits) == expected


@pytest.mark.parametrize(
    ("lower", "upper", "digits", "error", "message"),
    [
        ("abc", "abc", 5, ValueError, "^lower must be a finite decimal string, got 'abc'$"),
        ("1e+0", "x1", 5, ValueError, "^upper must be a finite decimal string, got 'x1'$"),
        ("nan", "nan", 5, ValueError, "^lower must be a finite decimal"),
        ("1e+0", "Infinity", 5, ValueError, "^upper must be a finite decimal"),
        (1.5, "1.5", 5, TypeError, "^lower must be a decimal string, got float$"),
        ("2e+0", "1e+0", 5, ValueError, "^lower must be <= upper, got '2e"),
        ("1e+0", "1e+0", 0, ValueError, "^digits must be >= 1, got 0$"),
        ("1e+0", "1e+0", 2.0, TypeError, "^digits must be an int, got float$"),
    ],
)
def test_correctly_rounded_names_a_bad_parameter(lower, upper, digits, error, message):
    """Before: decimal.InvalidOperation (an ArithmeticError: exit status 1 on the command
    line, as if a numerical method had given up)."""
    with pytest.raises(error, match=message):
        tab.correctly_rounded(lower, upper, digits)


def test_an_undecidable_value_raises_after_raising_the_precision():
    calls = []

    def compute(digits):
        calls.append(digits)
        return SimpleNamespace(gate=Enclosure("1.4999999e+0", "1.5000001e+0"))

    with pytest.raises(ArithmeticError, match="tau_star"):
        tab._rounded_values(compute, ["tau_star"], tab.GATED_COLUMNS, 1)
    assert len(calls) == 3 and calls == sorted(calls)


def test_raising_the_precision_stops_at_the_digit_limit():
    def compute(digits):
        if digits > 10:
            raise ValueError("dps: above the limit")
        return SimpleNamespace(gate=Enclosure("1.4999999e+0", "1.5000001e+0"))

    with pytest.raises(ArithmeticError, match="boundary to 6 digits"):
        tab._rounded_values(compute, ["tau_star"], tab.GATED_COLUMNS, 1)
    with pytest.raises(ValueError, match="limit"):  # the first try itself: bad input
        tab._rounded_values(compute, ["tau_star"], tab.GATED_COLUMNS, 8)


# --- values against independent references -------------------------------------------


def _gated_reference(reward: str) -> dict[str, mpmath.mpf]:
    """Λ = ∞, μ = C = 1 at 60 digits: S_GA*(σ) = (R(1 − σ) − 1)/(−log σ) maximised over
    σ (τ = −log σ/(1 − σ)); S_RR* = (√R − 1)², PoF their ratio."""
    with mpmath.workdps(60):
        r = mpmath.mpf(reward)

        def s(x):
            return (r * (1 - x) - 1) / (-mpmath.log(x))

        sigma = mpmath.findroot(lambda x: mpmath.diff(s, x), mpmath.mpf("0.15"))
        welfare_rr = (mpmath.sqrt(r) - 1) ** 2
        return {
            "tau_star": -mpmath.log(sigma) / (1 - sigma),
            "welfare_ga": s(sigma),
            "welfare_rr": welfare_rr,
            "pof": s(sigma) / welfare_rr,
        }


@pytest.mark.parametrize("reward", ["1.5", "2", "4"])
def test_gated_values_are_the_reference_correctly_rounded(reward):
    frame = tab.gated_table(arrival_rate="inf", reward=reward, dps=20)
    reference = _gated_reference(reward)
    for column, value in reference.items():
        assert Decimal(frame[column].iloc[0]) == reference_round(value, 20), column


def _online_reference(servers: int, digits: int = 50) -> tuple[int, mpmath.mpf, mpmath.mpf]:
    """Best trunk reservation of the loss network (λ_H = .6, λ_L = .8, μ = 1, r_H = 2,
    r_L = 1 per server) from the birth-death chain of busy servers, in mpmath."""
    with mpmath.workdps(digits):
        lam_h, lam_l, r_h, r_l = (mpmath.mpf(x) * servers for x in (".6", ".8", 2, 1))
        r_h, r_l = mpmath.mpf(2), mpmath.mpf(1)
        best = None
        for reserve in range(servers):
            weights = [mpmath.mpf(1)]
            for busy in range(servers):
                rate = lam_h + (lam_l if servers - busy > reserve else 0)
                weights.append(weights[-1] * rate / (busy + 1))
            total = mpmath.fsum(weights)
            admit_l = mpmath.fsum(w for b, w in enumerate(weights[:-1]) if servers - b > reserve)
            reward = lam_h * (1 - weights[-1] / total) * r_h + lam_l * admit_l / total * r_l
            if best is None or reward > best[1]:
                best = (reserve, reward, mpmath.mpf(16 * servers) / 10 - reward)
        return best


def test_lossnet_values_are_the_reference_correctly_rounded():
    frame = tab.lossnet_table(
        servers=[10, 100],
        lambda_h=0.6,
        lambda_l=0.8,
        mu=1,
        r_h=2,
        r_l=1,
        columns="reserve,fluid,online,regret",
        dps=15,
    )
    for servers, row in zip((10, 100), frame.itertuples(), strict=True):
        reserve, online, regret = _online_reference(servers)
        assert row.reserve == reserve
        assert Decimal(row.fluid) == Decimal(16 * servers // 10)
        assert Decimal(row.online) == reference_round(online, 15)
        assert Decimal(row.regret) == reference_round(regret, 15)


def test_latex_agrees_with_qtheory_gated_dps():
    status, latex, _ = run_cli([*GATED, "--format", "latex"])
    assert status == 0
    rows = [
        line.strip().removesuffix(r"\\").split("&")
        for line in latex.splitlines()
        if line.strip().startswith(("\\infty", "3 &"))
    ]
    assert len(rows) == 6
    names = ["tau_star", "welfare_ga", "welfare_rr", "pof"]
    for cells in rows:
        arrival = "inf" if "infty" in cells[0] else cells[0].strip()
        status, out, _ = run_cli(
            [
                "gated",
                "--arrival-rate",
                arrival,
                "--service-rate",
                "1",
                "--reward",
                cells[1].strip(),
                "--cost",
                "1",
                "--dps",
                "20",
            ]
        )
        assert status == 0
        printed = dict(line.split() for line in out.splitlines())
        for name, cell in zip(names, cells[2:], strict=True):
            ours, theirs = cell.strip(), printed[name]
            assert Decimal(ours) == Decimal(theirs), name
            assert len(ours.replace(".", "").lstrip("0")) == 20  # 20 significant digits


# --- formats --------------------------------------------------------------------------


def test_latex_headers_caption_and_label():
    status, latex, _ = run_cli([*GATED, "--caption", "My table.", "--label", "tab:mine"])
    assert status == 0
    assert r"\caption{My table.}" in latex and r"\label{tab:mine}" in latex
    centred = [rf"\multicolumn{{1}}{{c}}{{{h}}}" for h in
               (r"$\Lambda$", "$R$", r"$\tau^*$", r"$S_{\mathrm{GA}}(\tau^*)$")]  # fmt: skip
    assert " & ".join(centred) in latex
    assert r"\toprule" in latex and r"\bottomrule" in latex and "_star" not in latex
    _, default, _ = run_cli(GATED)
    assert r"\label{tab:gated}" in default
    assert r"$\mu = 1$, $C = 1$" in default and "20 significant digits" in default


def test_markdown_and_csv():
    status, markdown, _ = run_cli([*LOSSNET, "--format", "markdown"])
    assert status == 0
    lines = markdown.splitlines()
    assert r"at $\lambda_H = 0.6$, $\lambda_L = 0.8$, $\mu = 1$, $r_H = 2$, $r_L = 1$;" in lines[0]
    assert (
        lines[2] == r"| $N$ | $k^*$ | $R_{\mathrm{on}}$ | $R_{\mathrm{fluid}} - R_{\mathrm{on}}$ |"
    )
    assert lines[4] == "| 10 | 2 | 13.1306 | 2.86937 |"
    status, csv, _ = run_cli([*LOSSNET, "--format", "csv"])
    assert csv.splitlines()[0] == "servers,lambda_h,lambda_l,mu,r_h,r_l,reserve,online,regret"
    assert csv.splitlines()[1] == "10,0.6,0.8,1.0,2.0,1.0,2,13.1306,2.86937"  # plain decimals


def test_small_and_large_values_in_scientific_notation():
    frame = tab.gated_table(arrival_rate="inf", reward="1.0001", columns="welfare_rr", dps=3)
    value = frame["welfare_rr"].iloc[0]  # (√1.0001 − 1)² = 2.4999...e-9
    assert isinstance(value, Decimal) and value.as_tuple() == Decimal("2.50e-9").as_tuple()
    assert r"    2.50\times 10^{-9} \\" in tab.to_latex(frame)  # a decimal column: math mode
    assert tab.to_csv(frame).splitlines()[1].endswith(",2.50e-9")


def test_columns_are_numbers_that_keep_their_digits():
    """The frame holds Decimals: a reduction needs no cast, the trailing zeros of a
    correctly rounded value survive (S_RR* = (√4 − 1)² = 1 exactly), and the CSV reads
    back as the same numbers."""
    frame = tab.gated_table(arrival_rate=["inf", "3"], reward=["4", "2"], dps=6)
    assert frame.pof.max() == max(frame.pof) and isinstance(frame.pof.max(), Decimal)
    assert str(frame.loc[(frame.reward == 4) & frame.arrival_rate.isin([Decimal("inf")]),
                         "welfare_rr"].item()) == "1.00000"  # fmt: skip
    assert frame.astype({"pof": float}).pof.dtype == float
    lines = tab.to_csv(frame).splitlines()[1:]
    read = [[Decimal(cell) for cell in line.split(",")] for line in lines]
    assert read == frame.values.tolist()


@pytest.mark.skipif(
    shutil.which("pdflatex") is None and not os.environ.get("CI"), reason="no pdflatex"
)
def test_latex_compiles(tmp_path):
    _, gated, _ = run_cli(GATED)
    _, lossnet, _ = run_cli([*LOSSNET, "--columns", "reserve,online,regret,p_full"])
    preamble = "\\documentclass[a4paper]{article}\n\\usepackage[margin=1in]{geometry}\n"
    assert_compiles_without_overfull(tmp_path, preamble, f"{gated}\n{lossnet}")


def assert_compiles_without_overfull(folder, preamble: str, body: str) -> None:
    """pdflatex on ``body`` after ``preamble`` and the packages a table needs: it
    compiles, and no box is overfull."""
    packages = "".join(
        f"\\usepackage{{{name}}}\n" for name in ("booktabs", "dcolumn", "amsmath", "graphicx")
    )
    (folder / "t.tex").write_text(
        f"{preamble}{packages}\\begin{{document}}\n{body}\n\\end{{document}}\n"
    )
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
        cwd=folder, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:]
    assert (folder / "t.pdf").exists()
    assert "Overfull" not in (folder / "t.log").read_text(errors="replace")


@pytest.mark.skipif(
    shutil.which("pdflatex") is None and not os.environ.get("CI"), reason="no pdflatex"
)
def test_eight_columns_fit_a_default_article_page(tmp_path):
    """Two varying parameters and all six quantities at 10 digits: about 400 pt at normal
    size, wider than article's default 345 pt text, so the table shrinks to fit."""
    status, latex, _ = run_cli(
        ["table", "lossnet", "--servers", "100,1000", "--lambda-h", "0.6,0.7",
         "--lambda-l", "0.8", "--mu", "1", "--r-h", "2", "--r-l", "1", "--dps", "10",
         "--columns", "fluid,online,regret,reserve,p_full,mean_idle"]
    )  # fmt: skip
    assert status == 0 and latex.count(" & ") >= 7 * 5  # eight columns, header and 4 rows
    assert_compiles_without_overfull(tmp_path, "\\documentclass{article}\n", latex)


# --- errors and start-up ------------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["table", "gated", "--arrival-rate", "inf", "--reward", "1,,2"], "--reward"),
        (["table", "gated", "--arrival-rate", "inf", "--reward", "x"], "reward"),
        (
            ["table", "gated", "--arrival-rate", "inf", "--reward", "2", "--columns", "foo"],
            "columns",
        ),
        (["table", "gated", "--arrival-rate", "inf", "--reward", "2", "--dps", "0"], "--dps"),
        (
            ["table", "gated", "--arrival-rate", "inf", "--reward", "2", "--format", "html"],
            "--format",
        ),
        ([*LOSSNET[:3], "0,10", *LOSSNET[4:]], "--servers"),
    ],
)
def test_bad_input_exits_2_naming_the_option(argv, named):
    status, out, err = run_cli(argv)
    assert status == 2 and out == "" and named in err and err.count("\n") == 1


def test_grid_size_is_bounded():
    with pytest.raises(ValueError, match="rows"):
        tab.gated_table(arrival_rate=["inf"] * 101, reward=["2"] * 100)


@pytest.mark.parametrize(
    "argv",
    [["table", "--help"], *(["table", model, "--help"] for model in ("gated", "lossnet", "walks"))],
)
def test_help_imports_nothing_heavy(argv):
    out, modules = modules_after(f"from qtheory.cli import main\nassert main({argv!r}) == 0")
    assert heavy(modules) == [] and "usage: qtheory table" in out


def test_latex_has_the_layout_of_the_report_tables():
    from qtheory.report.latex import Latex, table

    frame = tab.gated_table(arrival_rate=["inf", "3"], reward="2", columns="tau_star,pof")
    ours = tab.to_latex(frame, caption="C.", label="tab:x")
    rows = [[Latex(f"${tab._decimal_tex(v)}$") for v in row] for row in
            frame[["arrival_rate", "tau_star", "pof"]].values.tolist()]  # fmt: skip
    headers = [r"$\Lambda$", r"$\tau^*$", r"$\mathrm{PoF}$"]
    # a narrow table: not wrapped for shrinking (tables.NARROWEST_TEXT_WIDTH_PT)
    assert ours == table(headers, rows, caption="C.", label="tab:x", alignment="ddd", fit=False)


def test_a_table_does_not_import_the_report_stack():
    # The table is written by qtheory.report.latex.table, whose module loads Sympy only
    # for equations; neither Sympy nor matplotlib is needed for it.
    argv = [*LOSSNET, "--format", "latex"]
    out, modules = modules_after(f"from qtheory.cli import main\nassert main({argv!r}) == 0")
    assert r"\toprule" in out
    assert not {"sympy", "matplotlib", "qtheory.report.plots"} & modules


def _ruin_reference(servers: int, lam_h: str, mu: str, level: int):
    """P_i(0 before b) of the idle birth-death chain (up μ(N − j), down λ_H N) by the
    classical tail-sum formula at 60 digits -- an mpmath route, not the certifier's
    rationals -- and the walk bounds from the gambler's-ruin closed form."""
    with mpmath.workdps(60):
        lam, m = mpmath.mpf(lam_h), mpmath.mpf(mu)
        band = int(mpmath.floor(mpmath.sqrt(servers)))
        ratios = [lam * servers / (m * (servers - j)) for j in range(1, band)]
        rho = [mpmath.mpf(1)]
        for ratio in ratios:
            rho.append(rho[-1] * ratio)
        exact = mpmath.fsum(rho[level:]) / mpmath.fsum(rho)

        def walk(p):
            r = (1 - p) / p
            return (r**level - r**band) / (1 - r**band)

        p_b = m * (servers - band) / (m * (servers - band) + lam * servers)
        return exact, walk(p_b), walk(m / (m + lam))


def test_walks_values_are_the_reference_correctly_rounded():
    frame = tab.walks_table(
        servers=[100, 2500], lambda_h="0.6", mu="1", level=[1, 4], dps=12,
        columns="ruin,ruin_walk_pb,ruin_walk_pinf",
    )  # fmt: skip
    for row in frame.itertuples():
        exact, upper, lower = _ruin_reference(row.servers, "0.6", "1", row.level)
        assert Decimal(row.ruin) == reference_round(exact, 12)
        assert Decimal(row.ruin_walk_pb) == reference_round(upper, 12)
        assert Decimal(row.ruin_walk_pinf) == reference_round(lower, 12)
        assert Decimal(row.ruin_walk_pinf) < Decimal(row.ruin) < Decimal(row.ruin_walk_pb)
    caption = tab.to_latex(frame)  # exact rationals, not Arb balls: the caption says which
    assert "values exact (rational arithmetic)" in caption and "Arb" not in caption


def test_walks_table_from_the_command_line_and_its_errors():
    argv = ["table", "walks", "--servers", "100", "--lambda-h", "0.6", "--mu", "1",
            "--level", "1,2", "--format", "csv", "--columns", "ruin,climb_time"]  # fmt: skip
    status, out, err = run_cli(argv)
    assert status == 0 and out.splitlines()[0] == "servers,lambda_h,mu,level,ruin,climb_time"
    status, out, err = run_cli([*argv[:9], "10", *argv[10:]])  # b = 10: level 10 is out
    assert status == 2 and "level must be an integer in 1..9" in err
