r"""``qtheory verify``: re-check the certificates that ``qtheory reproduce`` writes.

A certified claim (:class:`qtheory.core.claims.Claim` of kind ``certified``) carries a
certificate: a JSON object ::

    {"claim": "gated.dominance", "statement": "...", "checker": "gated.dominance",
     "data": {...}, "provenance": {"qtheory": "...", "commit": "...", ...}}

``qtheory reproduce`` writes one file per certified claim under
``derivations/certificates/``, named after its claim (``gated.dominance.json``).
A certificate holds when its file is named after its claim, the claim pins its checker
and (for a claim of ``qtheory reproduce``) the exact set it quantifies over
(:mod:`qtheory.verify.expected`), its statement is the one rendered from its data
(:mod:`qtheory.verify.statements`), and its checker decides the data.

This package decides each certificate again from its data alone. It is deliberately
independent of the code that produced the numbers: its modules import nothing from
``qtheory`` outside ``qtheory.verify`` (a test checks the import graph), only the
standard library and python-flint's ball arithmetic, and each checker re-derives the few
formulas it needs from the mathematics stated in its docstring. It is kept short enough
to read in one sitting:

- :mod:`qtheory.verify._arith`: reading exact rationals and decimal intervals (of
  bounded size), and deciding "this ball lies inside that interval" rigorously;
- :mod:`qtheory.verify._read`: reading a certificate file with its size, encoding and
  nesting bounded before it is parsed, so that a damaged or hostile file is one failure;
- :mod:`qtheory.verify.expected`: the checker and the pinned set each claim name
  commits to; a certificate under an unknown claim name, run through another checker,
  or quantifying over another set fails;
- :mod:`qtheory.verify.statements`: each claim's statement, rendered from the data;
- one module per model (:mod:`qtheory.verify.gated`, :mod:`qtheory.verify.lossnet`,
  :mod:`qtheory.verify.walks`), each with a table ``CHECKS`` of checker functions
  ``check(data) -> None`` that raise :class:`CertificateError` naming what fails.

The checker named ``"model.kind"`` is ``CHECKS["kind"]`` of ``qtheory.verify.model``.

Examples
--------
>>> check_certificate({"claim": "demo", "statement": "", "checker": "nowhere.thing",
...                    "data": {}})
Traceback (most recent call last):
...
qtheory.verify.CertificateError: demo: no checker 'nowhere.thing' (known models: ...)
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from pathlib import Path

__all__ = [
    "CertificateError",
    "Report",
    "certificate_files",
    "check_certificate",
    "check_file",
    "verify",
]

MODELS = ("gated", "lossnet", "walks", "regions", "cost_optimum")
#: The fields of a certificate (``provenance`` may be absent from a user-level one).
FIELDS = frozenset({"claim", "statement", "checker", "data", "provenance"})


class CertificateError(Exception):
    """A certificate does not hold, or cannot be read; the message says which and why.

    Examples
    --------
    >>> str(CertificateError("demo: the bound is below the value"))
    'demo: the bound is below the value'
    """


def _fields(certificate, label: str = "<unnamed>") -> str:
    """The claim name, after checking the certificate's shape (messages start with
    ``label`` until the name is known)."""
    if not isinstance(certificate, Mapping):
        raise CertificateError(
            f"{label}: a certificate is a JSON object, got {type(certificate).__name__}"
        )
    name = certificate.get("claim")
    if not isinstance(name, str) or not name or len(name) > 200:
        raise CertificateError(f"{label}: the certificate names no claim")
    extra = sorted(set(certificate) - FIELDS)
    if extra:
        raise CertificateError(
            f"{name}: unknown fields {extra} (a certificate has {sorted(FIELDS)})"
        )
    if not isinstance(certificate.get("checker"), str):
        raise CertificateError(f"{name}: the certificate has no 'checker' name")
    if not isinstance(certificate.get("statement"), str):
        raise CertificateError(f"{name}: the certificate has no statement")
    provenance = certificate.get("provenance", {})
    if not isinstance(provenance, Mapping) or not all(
        isinstance(v, str) and len(v) <= 200 for v in provenance.values()
    ):
        raise CertificateError(f"{name}: provenance must map names to short strings")
    return name


def check_certificate(certificate: Mapping) -> frozenset[str] | None:
    """Decide one certificate; return if it holds.

    Parameters
    ----------
    certificate : mapping
        With ``"claim"``, ``"statement"``, ``"checker"`` and ``"data"`` and optionally
        ``"provenance"`` (see the module docstring).

    Returns
    -------
    frozenset of str, or None
        For a claim of ``qtheory reproduce``, the run sizes whose set it certifies
        (``"quick"``, ``"full"``); None for a user-level certificate.

    Raises
    ------
    CertificateError
        If it does not hold or is malformed; the message starts with the claim's name.

    Examples
    --------
    >>> check_certificate({"claim": "demo", "statement": ""})
    Traceback (most recent call last):
    ...
    qtheory.verify.CertificateError: demo: the certificate has no 'checker' name
    """
    name = _fields(certificate)
    checker = certificate["checker"]
    model, _, kind = checker.partition(".")
    checks = importlib.import_module(f"qtheory.verify.{model}").CHECKS if model in MODELS else {}
    if kind not in checks:
        raise CertificateError(
            f"{name}: no checker {checker!r} (known models: {', '.join(MODELS)})"
        )
    expected = importlib.import_module("qtheory.verify.expected")  # as the models: no cycle
    statements = importlib.import_module("qtheory.verify.statements")
    data = certificate.get("data")
    try:
        size = expected.check_expected(name, checker, data)
        checks[kind](data)
        rendered = statements.render(name, data)
        if certificate["statement"] != rendered:
            raise CertificateError(
                "the statement is not the one its data states; the data states: " + rendered
            )
    except CertificateError as error:
        raise CertificateError(f"{name}: {error}") from None
    except (KeyError, TypeError, ValueError, ZeroDivisionError, AttributeError, IndexError,
            OverflowError, RecursionError) as error:  # fmt: skip
        kind = type(error).__name__
        raise CertificateError(f"{name}: malformed data ({kind}: {error})") from None
    return size


def _labelled(label: str, error: CertificateError) -> CertificateError:
    """``error`` with its message starting ``label: `` (the file's claim)."""
    message = str(error)
    return CertificateError(message if message.startswith(f"{label}: ") else f"{label}: {message}")


def check_file(
    path: Path | str, *, named: bool = True
) -> tuple[str, frozenset[str] | None, Mapping]:
    """Read and decide the certificate file ``path``, which (``named``) must be named after
    its claim: in a folder a file's name is its claim, so that no certificate stands in
    for another's.

    Parameters
    ----------
    path : path
    named : bool, keyword-only, default True
        Require the file name ``CLAIM.json`` (False for one file verified on its own,
        whose verdict names the claim it holds).

    Returns
    -------
    (str, frozenset of str or None, mapping)
        The claim name, the run sizes (as :func:`check_certificate`) and the certificate.

    Raises
    ------
    CertificateError
        If the file cannot be read, is not named ``CLAIM.json`` or does not hold.

    Examples
    --------
    >>> check_file("/nonexistent/gated.dominance.json")
    Traceback (most recent call last):
    ...
    qtheory.verify.CertificateError: gated.dominance: cannot be read (...)
    """
    file = Path(path)
    label = file.name.removesuffix(".json")  # a file's name is its claim
    try:
        certificate = importlib.import_module("qtheory.verify._read").read_certificate(file)
        name = _fields(certificate, label)
    except CertificateError as error:
        raise _labelled(label, error) from None
    if named and file.name != f"{name}.json":
        raise CertificateError(
            f"{label}: the file holds the certificate of {name!r}, so it must be named {name}.json"
        )
    try:
        size = check_certificate(certificate)
    except CertificateError as error:
        raise _labelled(label, error) from None
    return name, size, certificate


def certificate_files(directory: Path | str) -> list[Path]:
    """The ``*.json`` files of ``directory``'s ``derivations/certificates``, else of its
    ``certificates``, else of ``directory`` itself (sorted); a file is itself.

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
    if not folder.is_dir():
        return [folder] if folder.exists() or folder.is_symlink() else []
    nested = [folder / "derivations" / "certificates", folder / "certificates"]
    here = next((place for place in nested if place.is_dir()), folder)
    return sorted(here.glob("*.json"))


class Report(list):
    """The failures of :func:`verify`, one line each (a list of str), with the
    ``provenance`` records of the certificates that were read (distinct, in order), the
    number of ``files`` checked and, for one file verified on its own, the
    ``statements`` it holds ((claim, statement) pairs).

    Examples
    --------
    >>> report = Report(["demo: fails"], files=2)
    >>> list(report), report.files, bool(Report())
    (['demo: fails'], 2, False)
    """

    def __init__(self, failures=(), provenance=(), files: int = 0, statements=()):
        super().__init__(failures)
        self.provenance = list(provenance)
        self.files = files
        self.statements = list(statements)


def verify(path: Path | str) -> Report:
    """Check one certificate file, or every ``*.json`` certificate under a folder.

    Parameters
    ----------
    path : path
        A certificate file; a folder of certificates (``derivations/certificates``); or a
        folder that holds ``derivations/certificates`` (the ``--out`` folder of
        ``qtheory reproduce``) or ``certificates`` (``derivations``).

    Returns
    -------
    Report
        One line per certificate that fails, ``"NAME: reason"`` (NAME: the file's claim,
        from its name); when the folder holds any certificate of ``qtheory reproduce``,
        one line ``"missing certificate: NAME"`` per reproduced claim whose file is
        absent, one per file that is not a reproduced claim's, and one if the
        certificates are of different run sizes; empty when all hold.

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
    files = certificate_files(path)
    if not files:
        raise FileNotFoundError(
            f"no certificates (*.json) in {path} or its derivations/certificates"
        )
    reproduced = importlib.import_module("qtheory.verify.expected").REPRODUCED
    failures, provenance, sizes, statements = [], [], {}, []
    present = {file.name.removesuffix(".json") for file in files}
    strangers: set[str] = set()
    if Path(path).is_dir() and present & set(reproduced):
        failures += [f"missing certificate: {name}" for name in reproduced if name not in present]
        strangers = present - set(reproduced)
        failures += [
            f"{name}: not a certificate of qtheory reproduce (a reproduce folder holds only "
            "its claims' certificates)"
            for name in sorted(strangers)
        ]
    single = not Path(path).is_dir()
    for file in files:
        if file.name.removesuffix(".json") in strangers:
            continue
        try:
            name, size, certificate = check_file(file, named=not single)
        except CertificateError as error:
            failures.append(str(error))
            continue
        except Exception as error:  # noqa: BLE001  a checker that cannot decide: a failure
            label = file.name.removesuffix(".json")
            failures.append(f"{label}: the checker could not decide it ({error!r:.200})")
            continue
        if size is not None:
            sizes[name] = size
        record = certificate.get("provenance", {})
        if record and record not in provenance:
            provenance.append(record)
        if single:
            statements.append((name, certificate["statement"]))
    if sizes and not frozenset.intersection(*sizes.values()):
        shown = "; ".join(f"{name}: {'/'.join(sorted(s))}" for name, s in sizes.items())
        failures.append(f"the certificates are of different run sizes ({shown})")
    return Report(failures, provenance, len(files), statements)
