"""The References section (:mod:`qtheory.report.bibliography`): its entries are those of
``docs/references.md`` word for word, every key cited in generated LaTeX is turned into
a ``\\cite`` that the section resolves, and the entries typeset (pdflatex)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from qtheory.report.bibliography import REFERENCES, cite, cited, entry_latex, references_section

DOCS = Path(__file__).resolve().parents[2] / "docs" / "references.md"


def documented() -> dict[str, str]:
    """Key -> entry as docs/references.md writes it (the text up to its year)."""
    text = DOCS.read_text(encoding="utf-8")
    pattern = re.compile(r"^\*\*\[(\w+)\]\*\* (.*?\(\d{4}\)\.)", re.MULTILINE | re.DOTALL)
    return {key: " ".join(entry.split()) for key, entry in pattern.findall(text)}


def test_the_entries_are_the_documented_ones():
    assert REFERENCES == documented()


def test_cite_turns_known_keys_only():
    text = cite(r"see [HR26] and [Kle75], not $[a, b]$ or [Nobody99]")
    assert text == r"see \cite{HR26} and \cite{Kle75}, not $[a, b]$ or [Nobody99]"
    assert cited(text + " (Bray, arXiv:2601.14538)") == ["Bra26", "HR26", "Kle75"]


def test_references_section_lists_the_cited_keys_in_order():
    section = references_section(["Kle75", "HR26"])
    items = re.findall(r"\\bibitem\[(\w+)\]\{(\w+)\}", section)
    assert items == [("HR26", "HR26"), ("Kle75", "Kle75")]  # the order of REFERENCES
    assert references_section([]) == ""
    with pytest.raises(KeyError, match="no reference 'Nobody99'"):
        references_section(["Nobody99"])


def test_entries_are_escaped_latex():
    assert entry_latex("Bra26").startswith(r"J. Bray, ``An \ensuremath{\Omega}(log N / N)")
    assert r"\emph{Econometrica}" in entry_latex("Nao69")


@pytest.mark.skipif(
    shutil.which("pdflatex") is None and not os.environ.get("CI"), reason="no pdflatex"
)
def test_every_entry_typesets(tmp_path):
    body = "\n\n".join(rf"\cite{{{key}}}" for key in REFERENCES)  # a paragraph each
    (tmp_path / "r.tex").write_text(
        "\\documentclass{article}\n\\usepackage{amsmath}\n\\begin{document}\n"
        f"{body}\n{references_section(REFERENCES)}\\end{{document}}\n",
        encoding="utf-8",
    )
    for _ in range(2):
        done = subprocess.run(
            ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "r.tex"],
            cwd=tmp_path, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout[-2000:]
    log = (tmp_path / "r.log").read_text(errors="replace")
    assert "undefined" not in log and "Overfull" not in log
