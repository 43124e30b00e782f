r"""The works the generated document cites, and its References section.

Text anywhere in the package cites a work by its key in brackets, ``[HR26]``, or by
author and arXiv number, ``(Bray, arXiv:2601.14538)``.  :func:`cite` turns every
bracketed key of :data:`REFERENCES` in a section's LaTeX into ``\cite{HR26}`` (so the
printed label links to its entry), :func:`cited` finds the works a document cites by
either form, and :func:`references_section` sets them as a ``thebibliography``
whose labels are the keys, so every bracketed key the reader sees resolves.

:data:`REFERENCES` holds the entries as ``docs/references.md`` writes them (Markdown
``*emphasis*``, Unicode); ``tests/report/test_bibliography.py`` checks the two agree.

Examples
--------
>>> print(cite(r"stated in the paper ([HR26], Theorem 2) and [Nobody99]"))
stated in the paper (\cite{HR26}, Theorem 2) and [Nobody99]
>>> cited(r"\cite{Kle75}; (Bray, arXiv:2601.14538)")
['Bra26', 'Kle75']
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from qtheory.report import latex

__all__ = ["REFERENCES", "cite", "cited", "entry_latex", "references_section"]

#: Key -> entry, in the order and words of ``docs/references.md``.
REFERENCES: dict[str, str] = {
    "HR26": 'R. Hassin and L. Ravner, "Using memory to control admission to unobservable '
    'queues", arXiv:2606.02464 (2026).',
    "Bra26": 'J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the '
    'overloaded loss network", arXiv:2601.14538 (2026).',
    "XGK25": 'X. Xie, I. Gurvich and S. Küçükyavuz, "Dynamic allocation of reusable '
    'resources: logarithmic regret in overloaded networks", *Operations Research* 73(4) '
    "(2025).",
    "Nao69": 'P. Naor, "The regulation of queue size by levying tolls", *Econometrica* '
    "37(1):15–24 (1969).",
    "EH75": 'N. M. Edelson and D. K. Hildebrand, "Congestion tolls for Poisson queuing '
    'processes", *Econometrica* 43(1):81–92 (1975).',
    "Mil69": 'B. L. Miller, "A queueing reward system with several customer classes", '
    "*Management Science* 16(3):234–245 (1969).",
    "Kle75": "L. Kleinrock, *Queueing Systems, Volume I: Theory*, Wiley (1975).",
    "AG19": 'A. Arlotto and I. Gurvich, "Uniformly bounded regret in the multisecretary '
    'problem", *Stochastic Systems* 9(3):231–260 (2019).',
    "VB21": 'A. Vera and S. Banerjee, "The Bayesian prophet: a low-regret framework for '
    'online decision making", *Management Science* 67(3):1368–1391 (2021).',
    "GTH85": 'W. K. Grassmann, M. I. Taksar and D. P. Heyman, "Regenerative analysis and '
    'steady state distributions for Markov chains", *Operations Research* '
    "33(5):1107–1116 (1985).",
    "Haj83": 'B. Hajek, "The proof of a folk theorem on queuing delay with applications to '
    'routing in networks", *Journal of the ACM* 30(4):834–851 (1983).',
    "Put94": "M. L. Puterman, *Markov Decision Processes: Discrete Stochastic Dynamic "
    "Programming*, Wiley (1994).",
    "Asm03": "S. Asmussen, *Applied Probability and Queues*, 2nd ed., Springer (2003).",
    "Fel68": "W. Feller, *An Introduction to Probability Theory and Its Applications*, "
    "Vol. I, 3rd ed., Wiley (1968).",
    "DZ98": "A. Dembo and O. Zeitouni, *Large Deviations Techniques and Applications*, "
    "2nd ed., Springer (1998).",
}

_KEY = re.compile(r"\[(" + "|".join(map(re.escape, REFERENCES)) + r")\]")
_CITE = re.compile(r"\\cite\{([^}]*)\}")
_ARXIV = {
    match.group(1): key
    for key, text in REFERENCES.items()
    if (match := re.search(r"arXiv:(\d{4}\.\d{4,5})", text))
}
_EMPHASIS = re.compile(r"\*([^*]+)\*")
_QUOTED = re.compile(r'"([^"]+)"')


def cite(tex: str) -> str:
    r"""``tex`` with every bracketed key of :data:`REFERENCES` as ``\cite{KEY}``.

    Parameters
    ----------
    tex : str
        LaTeX (a section's body).  Brackets around anything else are left alone.

    Returns
    -------
    str

    Examples
    --------
    >>> cite("[XGK25] and [Kle75]")
    '\\cite{XGK25} and \\cite{Kle75}'
    """
    return _KEY.sub(r"\\cite{\1}", tex)


def cited(tex: str) -> list[str]:
    r"""The keys ``tex`` cites, by ``\cite`` or by an entry's arXiv number, sorted.

    Parameters
    ----------
    tex : str

    Returns
    -------
    list of str

    Examples
    --------
    >>> cited(r"\cite{HR26,Nao69} and arXiv:2606.02464")
    ['HR26', 'Nao69']
    """
    keys = {key.strip() for group in _CITE.findall(tex) for key in group.split(",")}
    keys |= {key for number, key in _ARXIV.items() if f"arXiv:{number}" in tex}
    return sorted(keys)


def entry_latex(key: str) -> str:
    r"""The entry of ``key`` as LaTeX: emphasis as ``\emph``, quotations in TeX quotes,
    everything else escaped (:func:`qtheory.report.latex.escape`).

    Parameters
    ----------
    key : str
        A key of :data:`REFERENCES`.

    Returns
    -------
    str

    Raises
    ------
    KeyError
        Naming the key when it has no entry.

    Examples
    --------
    >>> print(entry_latex("Kle75"))
    L. Kleinrock, \emph{Queueing Systems, Volume I: Theory}, Wiley (1975).
    """
    if key not in REFERENCES:
        raise KeyError(f"no reference {key!r}; add it to qtheory.report.bibliography.REFERENCES")
    pieces = _EMPHASIS.split(REFERENCES[key])  # odd pieces were emphasised
    text = "".join(
        rf"\emph{{{_quoted(piece)}}}" if odd else _quoted(piece)
        for odd, piece in ((i % 2 == 1, p) for i, p in enumerate(pieces))
    )
    return text


def _quoted(text: str) -> str:
    pieces = _QUOTED.split(text)  # odd pieces were quoted
    return "".join(
        f"``{latex.escape(piece)}''" if i % 2 else latex.escape(piece)
        for i, piece in enumerate(pieces)
    )


def references_section(keys: Iterable[str]) -> str:
    r"""The References section: a ``thebibliography`` of ``keys`` in the order of
    :data:`REFERENCES`, each labelled by its key (``\bibitem[HR26]{HR26}``).

    Parameters
    ----------
    keys : iterable of str
        The keys cited (:func:`cited`).

    Returns
    -------
    str
        Empty when no key is given.

    Raises
    ------
    KeyError
        For a key without an entry.

    Examples
    --------
    >>> print(references_section(["Kle75"]))
    \begin{thebibliography}{Kle75}
    \bibitem[Kle75]{Kle75} L. Kleinrock, \emph{Queueing Systems, Volume I: Theory}, Wiley (1975).
    \end{thebibliography}
    <BLANKLINE>
    """
    entries = {key: entry_latex(key) for key in set(keys)}  # a KeyError names an unknown key
    ordered = [key for key in REFERENCES if key in entries]
    if not ordered:
        return ""
    widest = max(ordered, key=len)
    items = [rf"\bibitem[{key}]{{{key}}} {entries[key]}" for key in ordered]
    return (
        "\n".join([rf"\begin{{thebibliography}}{{{widest}}}", *items, r"\end{thebibliography}"])
        + "\n"
    )
