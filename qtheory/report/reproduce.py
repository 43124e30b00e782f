"""``qtheory reproduce``: regenerate every table, derivation, figure and the claims report.

Writes ``derivations/`` (LaTeX; ``derivations/main.tex`` inputs every generated part and
compiles with pdflatex) and ``figures/`` (PDF and PNG) under ``--out``. Each model
contributes a ``steps(run)`` generator of named steps that read the run context
:class:`~qtheory.report.run.Run` and append the :class:`~qtheory.core.claims.Claim` records
they check to ``run.claims``; add a model by appending it to :data:`MODELS`. After the last
step the claims report is written as ``derivations/claims.md`` and
``derivations/claims.tex`` (the final section of ``main.tex``), each certified claim's
certificate as ``derivations/certificates/NAME.json`` (re-checked by ``qtheory verify``),
and the report's one-line summary (claims counted by kind of evidence) is printed.

Every random number is drawn from a stream derived from ``--seed`` (see
:meth:`~qtheory.report.run.Run.seed_sequence`), so the output is deterministic for a given
seed.
"""

from __future__ import annotations

import importlib
import json
import os
import statistics
import time
from pathlib import Path
from typing import TYPE_CHECKING

from qtheory.core.arguments import (
    DEFAULT_SEED,
    check_output_directory,
)

if TYPE_CHECKING:
    from qtheory.report.run import Run

# The report stack (matplotlib, Sympy, SciPy) is imported by reproduce(), not here, so
# that ``qtheory reproduce --help`` starts as fast as the other subcommands.

MODELS = (
    "qtheory.report.gated",
    "qtheory.report.lossnet",
    "qtheory.report.lossnet_decomposition",
    "qtheory.report.lossnet_classes",
    "qtheory.report.walks",
    "qtheory.report.gated_ladder",
    "qtheory.report.gated_costs",
    "qtheory.report.gated_arrivals",
    "qtheory.report.single_use",
)


def _run_note(run: Run) -> str:
    """What size of run wrote the claims report, and by which qtheory (version and
    commit, :func:`qtheory.core.provenance.provenance`), as text with inline ``$...$``
    mathematics (the convention of :func:`qtheory.report.claims.latex_text` and
    :func:`~qtheory.report.claims.markdown_text`, which typeset it for each report)."""
    from qtheory.core.provenance import provenance

    record = provenance()
    made = f"qtheory {record['qtheory']} (commit {record['commit']})"
    if run.quick:
        return (
            f"Reproduced by a quick (CI-sized) run with seed {run.seed}, {made}.  Its sweeps "
            "stop at $N = 1000$ with few replications, too little for the slope claims of "
            "the decompositions (two and n classes; equivalence tests need narrow "
            "intervals), which then FAIL for lack of power; the standard and paper-grade "
            "runs are the test of the claims."
        )
    if run.paper:
        return f"Reproduced by a paper-grade run (--paper) with seed {run.seed}, {made}."
    return (
        f"Reproduced by a standard run with seed {run.seed}, {made} (the job model and the "
        "rolling horizon at fewer N, the SSS window sweep to $N = 10^5$; --paper runs "
        "them to $N = 10^4$, $100$ and $10^6$)."
    )


def _write_claims(run: Run, derivations: Path) -> list[Path]:
    from qtheory import report
    from qtheory.report.claims import (
        claims_latex,
        claims_markdown,
        latex_text,
        markdown_text,
        write_certificates,
    )

    note = _run_note(run)
    return [
        *write_certificates(run.claims, derivations / "certificates"),
        report.write_text(
            derivations / "claims.md", claims_markdown(run.claims, note=markdown_text(note))
        ),
        report.write_text(
            derivations / "claims.tex", claims_latex(run.claims, note=latex_text(note))
        ),
    ]


def step_weights(names: list[str], size: str) -> list[float]:
    """The expected seconds of each step of a run of ``size``
    (:data:`qtheory.report.step_costs.STEP_SECONDS`); a step not measured weighs the
    median of those that are (1 each when none is).

    Parameters
    ----------
    names : list of str
        The steps' names, in order.
    size : str
        ``"quick"``, ``"standard"`` or ``"paper"``.

    Returns
    -------
    list of float
        One weight per name.

    Examples
    --------
    >>> step_weights(["a", "b"], "no such size")
    [1.0, 1.0]
    """
    from qtheory.report.step_costs import STEP_SECONDS

    known = STEP_SECONDS.get(size, {})
    default = statistics.median(known.values()) if known else 1.0
    return [float(known.get(name, default)) for name in names]


def reproduce(
    out: Path | str = ".",
    *,
    quick: bool = False,
    paper: bool = False,
    progress: bool = True,
    seed: int = DEFAULT_SEED,
    cluster: str | None = None,
) -> list[Path]:
    """Write every output under ``out`` and print the claims summary.

    Parameters
    ----------
    out : path
        Output folder; ``derivations/`` and ``figures/`` are written below it.
    quick : bool, default False
        CI-sized run (smaller grids; some sweep claims fail for lack of power).
    paper : bool, default False
        Paper-grade run: the sweeps with more N and more replications (the outputs the
        repository commits).  The times of the three sizes are in the README, measured
        by ``benchmarks/bench_readme_times.py``.
    progress : bool, default True
        Show a progress bar over the steps, each weighted by its measured cost
        (:func:`step_weights`).  With the environment variable ``QTHEORY_STEP_TIMES`` set
        to a path, the seconds each step took are written there as JSON (how
        ``benchmarks/bench_reproduce.py`` measures the weights).
    seed : int, default :data:`DEFAULT_SEED`
        Root seed of every random stream (see :meth:`~qtheory.report.run.Run.seed_sequence`).
    cluster : str, optional
        Dask scheduler address for sweep steps; ``None`` for a local process pool.

    Returns
    -------
    list of pathlib.Path
        The files written, ``derivations/main.tex`` last.

    Raises
    ------
    ValueError
        Before any step runs: ``quick`` and ``paper`` are both set; ``seed`` is not an
        integer >= 0; ``out`` is a file, lies
        below one or cannot be written; ``cluster`` is not a scheduler address, or no
        scheduler answers there (:class:`~qtheory.core.executor.ClusterUnreachableError`).

    Examples
    --------
    >>> reproduce("/etc/hostname", progress=False)
    Traceback (most recent call last):
    ...
    ValueError: out must be a directory, but /etc/hostname is a file
    """
    from tqdm import tqdm

    from qtheory import report
    from qtheory.core.claims import claims_summary
    from qtheory.core.executor import WEIGHTED_BAR, make_executor
    from qtheory.report.run import Run

    run = Run(check_output_directory(out, name="out"), quick, seed, cluster, paper=paper)
    if run.cluster is not None:
        make_executor(run.cluster).close()  # fail now, not after the first steps
    steps = [step for model in MODELS for step in importlib.import_module(model).steps(run)]
    weights = step_weights([name for name, _ in steps], run.size)
    written: list[Path] = []
    seconds: dict[str, float] = {}
    with tqdm(
        total=sum(weights), desc="qtheory reproduce", bar_format=WEIGHTED_BAR, disable=not progress
    ) as bar:
        for (name, step), weight in zip(steps, weights, strict=True):
            bar.set_postfix_str(name)
            start = time.perf_counter()
            written.extend(step())
            seconds[name] = time.perf_counter() - start
            bar.update(weight)
    if times := os.environ.get("QTHEORY_STEP_TIMES"):
        Path(times).write_text(json.dumps({"size": run.size, "seconds": seconds}, indent=2))
    derivations = run.out / "derivations"
    written.extend(_write_claims(run, derivations))
    parts = [
        p.relative_to(derivations).with_suffix("").as_posix() for p in written if p.suffix == ".tex"
    ]
    main = report.document("qtheory: generated derivations, tables and figures", parts)
    written.append(report.write_text(derivations / "main.tex", main))
    print(f"claims: {claims_summary(run.claims)}")
    return written
