r"""The one markup of the package's sentences: text, mathematics and code, typed once.

A claim's statement, a rung's method, a scope or a caption fragment is a string of three
kinds of piece:

* **mathematics** between dollars, ``$\lambda < \mu$`` (LaTeX, with the symbols of
  :mod:`qtheory.core.notation`);
* **code** between backticks, ```qtheory gated --certify```, a command, an option, a
  module or a claim name, set verbatim (typewriter type in LaTeX, a code span in
  Markdown, as it is in the terminal);
* **text**, everything else, which each renderer escapes for its medium (bracketed
  reference keys such as ``[HR26]`` stay text; the LaTeX renderer cites them).

:func:`pieces` cuts a string into typed :class:`Piece` s, once; the renderers
(:func:`qtheory.report.claims.latex_text`, :func:`~qtheory.report.claims.markdown_text`,
:func:`qtheory.core.notation.terminal`) decide each piece by its kind, so nothing is
escaped twice or not at all: text is escaped, mathematics is not, code is escaped as code.

Examples
--------
>>> for piece in pieces("run `qtheory gated --certify` where $\\nu > 1$"):
...     print(piece.kind.name, repr(piece.content))
TEXT 'run '
CODE 'qtheory gated --certify'
TEXT ' where '
MATH '\\nu > 1'
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass

__all__ = ["Kind", "Piece", "pieces"]


class Kind(enum.Enum):
    """What a piece of a sentence is.

    Examples
    --------
    >>> [kind.value for kind in Kind]
    ['text', 'math', 'code']
    """

    TEXT = "text"
    MATH = "math"
    CODE = "code"


@dataclass(frozen=True)
class Piece:
    """One typed piece of a sentence.

    Attributes
    ----------
    kind : Kind
    content : str
        The piece without its delimiters (no dollars, no backticks).

    Examples
    --------
    >>> pieces("`x`")[0] == Piece(Kind.CODE, "x")
    True
    """

    kind: Kind
    content: str


_SPAN = re.compile(r"(\$[^$]*\$|`[^`]*`)")


def pieces(text: str) -> list[Piece]:
    r"""``text`` cut at its ``$...$`` and ```...``` spans into typed pieces.

    Parameters
    ----------
    text : str

    Returns
    -------
    list of Piece
        In order; empty pieces are left out.

    Raises
    ------
    TypeError
        If ``text`` is not a string.

    Examples
    --------
    >>> [(p.kind.value, p.content) for p in pieces("$x$ and `x_1`")]
    [('math', 'x'), ('text', ' and '), ('code', 'x_1')]
    """
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    out = []
    for part in _SPAN.split(text):
        if not part:
            continue
        if _SPAN.fullmatch(part):
            kind = Kind.MATH if part[0] == "$" else Kind.CODE
            out.append(Piece(kind, part[1:-1]))
        else:
            out.append(Piece(Kind.TEXT, part))
    return out
