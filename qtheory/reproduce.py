"""``qtheory reproduce``: regenerate every table, derivation and figure.

Writes ``derivations/`` (LaTeX; ``derivations/main.tex`` inputs every generated part)
and ``figures/`` (PDF and PNG) under ``--out``.  Each model contributes a ``steps(out,
quick)`` generator of named steps; add a model by appending it to :data:`MODELS`.
"""

from __future__ import annotations

import argparse
import importlib
from pathlib import Path

from tqdm import tqdm

from qtheory import report

MODELS = ("qtheory.gated.outputs", "qtheory.lossnet.outputs")


def reproduce(out: Path | str = ".", *, quick: bool = False, progress: bool = True) -> list[Path]:
    """Write every output under ``out``; return the files written, ``main.tex`` last."""
    out = Path(out)
    steps = [step for model in MODELS for step in importlib.import_module(model).steps(out, quick)]
    written: list[Path] = []
    with tqdm(steps, desc="qtheory reproduce", unit="step", disable=not progress) as bar:
        for name, step in bar:
            bar.set_postfix_str(name)
            written.extend(step())
    derivations = out / "derivations"
    parts = [
        p.relative_to(derivations).with_suffix("").as_posix() for p in written if p.suffix == ".tex"
    ]
    main = report.document("qtheory: generated derivations, tables and figures", parts)
    written.append(report.write_text(derivations / "main.tex", main))
    return written


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "reproduce", help="regenerate every table, derivation and figure", description=__doc__
    )
    parser.add_argument("--out", default=".", help="output directory (default: current directory)")
    parser.add_argument("--quick", action="store_true", help="CI-sized run (smaller grids)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    written = reproduce(args.out, quick=args.quick)
    print(f"wrote {len(written)} files under {Path(args.out).resolve()}")
    return 0
