r"""``qtheory verify``: re-check the certificates that ``qtheory reproduce`` writes.

A certified claim (:class:`qtheory.claims.Claim` of kind ``certified``) carries a
certificate: a JSON object ::

    {"claim": "gated.optimum[...]", "statement": "...",
     "checker": "gated.optimum", "data": {...}}

``qtheory reproduce`` writes one file per certified claim under
``derivations/certificates/``.  This package decides each certificate again from its
data alone.  It is deliberately independent of the code that produced the numbers: its
modules import nothing from ``qtheory`` outside ``qtheory.verify`` (a test checks the
import graph), only the standard library and python-flint's ball arithmetic, and each
checker re-derives the few formulas it needs from the mathematics stated in its
docstring.  It is kept short enough to read in one sitting:

- :mod:`qtheory.verify._arith`: reading exact rationals and decimal intervals, and
  deciding "this ball lies inside that interval" rigorously;
- one module per model (:mod:`qtheory.verify.gated`, :mod:`qtheory.verify.lossnet`,
  :mod:`qtheory.verify.walks`), each with a table ``CHECKS`` of checker functions
  ``check(data) -> None`` that raise :class:`CertificateError` naming what fails.

The checker named ``"model.kind"`` is ``CHECKS["kind"]`` of ``qtheory.verify.model``.

Examples
--------
>>> check_certificate({"claim": "demo", "checker": "nowhere.thing", "data": {}})
Traceback (most recent call last):
...
qtheory.verify.CertificateError: demo: no checker 'nowhere.thing' (known models: ...)
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from pathlib import Path

__all__ = ["CertificateError", "check_certificate", "verify"]

MODELS = ("gated", "lossnet", "walks")


class CertificateError(Exception):
    """A certificate does not hold, or cannot be read; the message says which and why.

    Examples
    --------
    >>> str(CertificateError("demo: the bound is below the value"))
    'demo: the bound is below the value'
    """


def check_certificate(certificate: Mapping) -> None:
    """Decide one certificate; return if it holds.

    Parameters
    ----------
    certificate : mapping
        With ``"claim"``, ``"checker"`` and ``"data"`` (see the module docstring).

    Raises
    ------
    CertificateError
        If it does not hold or is malformed; the message starts with the claim's name.

    Examples
    --------
    >>> check_certificate({"claim": "demo"})
    Traceback (most recent call last):
    ...
    qtheory.verify.CertificateError: demo: the certificate has no 'checker' name
    """
    name = str(certificate.get("claim", "<unnamed>"))
    checker = certificate.get("checker")
    if not isinstance(checker, str):
        raise CertificateError(f"{name}: the certificate has no 'checker' name")
    model, _, kind = checker.partition(".")
    checks = importlib.import_module(f"qtheory.verify.{model}").CHECKS if model in MODELS else {}
    if kind not in checks:
        raise CertificateError(
            f"{name}: no checker {checker!r} (known models: {', '.join(MODELS)})"
        )
    try:
        checks[kind](certificate.get("data"))
    except CertificateError as error:
        raise CertificateError(f"{name}: {error}") from None
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as error:
        kind = type(error).__name__
        raise CertificateError(f"{name}: malformed data ({kind}: {error})") from None


def verify(directory: Path | str) -> list[str]:
    """Check every ``*.json`` certificate under ``directory``.

    Parameters
    ----------
    directory : path
        A folder of certificates (``derivations/certificates``), or a folder that holds
        ``derivations/certificates`` (the ``--out`` folder of ``qtheory reproduce``).

    Returns
    -------
    list of str
        One line per certificate that fails, ``"claim: reason"``; empty when all hold.

    Raises
    ------
    FileNotFoundError
        If no certificate is found there.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     verify(folder)
    Traceback (most recent call last):
    ...
    FileNotFoundError: no certificates (*.json) in ... or its derivations/certificates
    """
    folder = Path(directory)
    nested = folder / "derivations" / "certificates"
    files = sorted((nested if nested.is_dir() else folder).glob("*.json"))
    if not files:
        raise FileNotFoundError(
            f"no certificates (*.json) in {folder} or its derivations/certificates"
        )
    failures = []
    for file in files:
        try:
            check_certificate(json.loads(file.read_text()))
        except CertificateError as error:
            failures.append(str(error))
        except json.JSONDecodeError as error:
            failures.append(f"{file.name}: not JSON ({error})")
    return failures
