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
- :mod:`qtheory.verify.expected`: the checker and the pinned data fields each claim
  name commits to; a certificate under an unknown claim name, run through another
  checker, or with data contradicting its claim's statement fails;
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

__all__ = ["CertificateError", "certificate_files", "check_certificate", "verify"]

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
    expected = importlib.import_module("qtheory.verify.expected")  # as the models: no cycle
    try:
        expected.check_expected(name, checker, certificate.get("data"))
        checks[kind](certificate.get("data"))
    except CertificateError as error:
        raise CertificateError(f"{name}: {error}") from None
    except (KeyError, TypeError, ValueError, ZeroDivisionError) as error:
        kind = type(error).__name__
        raise CertificateError(f"{name}: malformed data ({kind}: {error})") from None


def certificate_files(directory: Path | str) -> list[Path]:
    """The ``*.json`` files of ``directory``'s ``derivations/certificates``, else of its
    ``certificates``, else of ``directory`` itself (sorted).

    Parameters
    ----------
    directory : path
        As for :func:`verify`.

    Examples
    --------
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     certificate_files(folder)
    []
    """
    folder = Path(directory)
    nested = [folder / "derivations" / "certificates", folder / "certificates"]
    here = next((place for place in nested if place.is_dir()), folder)
    return sorted(here.glob("*.json"))


def verify(directory: Path | str) -> list[str]:
    """Check every ``*.json`` certificate under ``directory``.

    Parameters
    ----------
    directory : path
        A folder of certificates (``derivations/certificates``), or a folder that holds
        ``derivations/certificates`` (the ``--out`` folder of ``qtheory reproduce``) or
        ``certificates`` (``derivations``).

    Returns
    -------
    list of str
        One line per certificate that fails, ``"claim: reason"``, and, when the folder
        holds any certificate of ``qtheory reproduce``, one line ``"missing certificate:
        NAME"`` per reproduced claim whose file ``NAME.json`` is absent; empty when all
        hold.

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
    files = certificate_files(folder)
    if not files:
        raise FileNotFoundError(
            f"no certificates (*.json) in {folder} or its derivations/certificates"
        )
    reproduced = importlib.import_module("qtheory.verify.expected").REPRODUCED
    present = {file.stem for file in files}
    failures = []
    if present & set(reproduced):
        failures += [f"missing certificate: {name}" for name in reproduced if name not in present]
    for file in files:
        try:
            check_certificate(json.loads(file.read_text()))
        except CertificateError as error:
            failures.append(str(error))
        except json.JSONDecodeError as error:
            failures.append(f"{file.name}: not JSON ({error})")
    return failures
