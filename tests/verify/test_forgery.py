"""Forgeries of the committed certificates that ``qtheory verify`` must refuse.

Each case is a tampering a reviewer tried on a copy of ``derivations/certificates/``
(the paper-size run) and that once passed: dropped, added, swapped or edited elements of
a certified set, an edited or deleted statement, a valid certificate of another instance
or of another claim under a claim's file name, claimed enclosures of any width, and
hostile files.  Every one must make ``qtheory verify`` exit 1 with one ``FAIL`` line per
failing file that names it, while the untouched certificates still hold.

Every test verifies a whole folder, but the verdict on a file depends on its name and its
bytes only (:func:`qtheory.verify.check_file`), so each distinct (name, bytes) is decided
once per session (:func:`decided_once`): a tampered file is always decided afresh, and
an untouched copy of a committed file gets the verdict the committed file got.  (That
kept the module at 340-440 s of the suite's time.)
"""

from __future__ import annotations

import copy
import json
import os
import shutil
from pathlib import Path

import pytest

from qtheory.cli import main
from qtheory.gated import GatedQueue
from qtheory.gated.certified import certified_optimum
from qtheory.lossnet.certified import (
    certified_fluid_lp,
    certified_online_optimum,
    trunk_reservation_optimality,
)
from qtheory.model.lossnet import LossNetwork
from qtheory.verify import check_certificate, verify
from qtheory.verify.expected import PINS, REPRODUCED
from qtheory.verify.statements import render

COMMITTED = Path(__file__).resolve().parents[2] / "derivations" / "certificates"
NET = LossNetwork(100, 0.6, 0.8, 1.0, 2.0, 1.0)


def committed(name: str) -> dict:
    return json.loads((COMMITTED / f"{name}.json").read_text())


def restated(certificate: dict) -> dict:
    """A forger's best effort: the tampered data with the statement it states."""
    return {**certificate, "statement": render(certificate["claim"], certificate["data"])}


_VERDICTS: dict[tuple[str, bytes, bool], tuple] = {}


@pytest.fixture(autouse=True)
def decided_once(monkeypatch):
    """``qtheory.verify.check_file`` deciding each distinct (file name, bytes, named) once
    per session: the same outcome, a result or the same CertificateError, for the same
    input (see the module docstring)."""
    import qtheory.verify as verify_module

    decide = verify_module.check_file

    def check_file(path, *, named=True):
        file = Path(path)
        if not file.is_file():  # a directory or a device named like a certificate
            return decide(path, named=named)
        key = (file.name, file.read_bytes(), named)
        if key not in _VERDICTS:
            try:
                _VERDICTS[key] = ("held", decide(path, named=named))
            except verify_module.CertificateError as error:
                _VERDICTS[key] = ("failed", error)
        outcome, value = _VERDICTS[key]
        if outcome == "failed":
            raise value
        return value

    monkeypatch.setattr(verify_module, "check_file", check_file)


@pytest.fixture
def folder(tmp_path):
    """A copy of the committed certificates."""
    copy_ = tmp_path / "certificates"
    shutil.copytree(COMMITTED, copy_)
    return copy_


def write(folder: Path, name: str, certificate) -> None:
    (folder / f"{name}.json").write_text(json.dumps(certificate))


def refused(folder: Path, capsys, *names: str) -> list[str]:
    """``qtheory verify`` exits 1 with one FAIL line per name (each line naming its
    file's claim); the lines.  (How long verifying takes is measured by
    ``benchmarks/bench_certificates.py``, not asserted here.)"""
    assert main(["verify", str(folder)]) == 1
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("FAIL ")]
    assert len(lines) == len(names), lines
    for line, name in zip(sorted(lines), sorted(names), strict=True):
        assert line.startswith(f"FAIL {name}:"), line
    return lines


def test_the_committed_run_verifies(capsys):
    assert main(["verify", str(COMMITTED)]) == 0
    out = capsys.readouterr().out
    assert f"all {len(REPRODUCED)} certificates hold" in out
    assert "written by commit" in out and "python_flint" in out  # the provenance


def test_one_file_verifies_on_its_own(capsys):
    assert main(["verify", str(COMMITTED / "lossnet.fluid.json")]) == 0
    out = capsys.readouterr().out
    assert "the certificate holds" in out and out.startswith("written by")
    assert "lossnet.fluid: At $N = 100$" in out  # one file: the verdict names its statement


# 1. the set a claim quantifies over: drop, add, swap, edit


@pytest.mark.parametrize(
    ("name", "key", "keep"),
    [
        ("gated.dominance", "points", 3),
        ("gated.pof_at_least_one", "points", 2),
        ("gated.optimal_gate", "points", 1),
        ("lossnet.online_optimum", "cases", 2),
        ("walks.sss_failure_bound", "items", 1),
        ("walks.bounds", "items", 10),
    ],
)
def test_dropped_points_fail(folder, capsys, name, key, keep):
    certificate = committed(name)
    certificate["data"][key] = certificate["data"][key][:keep]
    write(folder, name, restated(certificate))
    [line] = refused(folder, capsys, name)
    # the first element that differs from the set of the size nearest in count
    assert f"data['{key}'][" in line and "the claim fixes" in line


@pytest.mark.parametrize("name", ["gated.pof_light_rate", "gated.pof_heavy_rate"])
def test_a_region_with_a_box_removed_or_a_range_moved_fails(folder, capsys, name):
    genuine = committed(name)
    region = genuine["data"]["regions"][0]
    for position in (0, len(region["boxes"]) // 2, len(region["boxes"]) - 1):
        gap = copy.deepcopy(genuine)
        del gap["data"]["regions"][0]["boxes"][position]
        write(folder, name, restated(gap))
        [line] = refused(folder, capsys, name)
        assert "region 0" in line and ("do not cover" in line or "boxes end at" in line), line
    wider = copy.deepcopy(genuine)
    wider["data"]["regions"][0]["range"][0] = "1e-40" if name.endswith("light_rate") else "3"
    write(folder, name, restated(wider))
    assert "data['regions'][0]['range'][0]: the claim fixes" in refused(folder, capsys, name)[0]


def test_added_swapped_and_edited_points_fail(folder, capsys):
    dominance = committed("gated.dominance")
    points = dominance["data"]["points"]
    added = copy.deepcopy(dominance)
    added["data"]["points"] = [*points, ["1/200", "inf"]]
    write(folder, "gated.dominance", restated(added))
    [line] = refused(folder, capsys, "gated.dominance")
    assert f"the claim fixes {len(points)} elements, the data has {len(points) + 1}" in line
    swapped = copy.deepcopy(dominance)
    swapped["data"]["points"][0], swapped["data"]["points"][1] = points[1], points[0]
    write(folder, "gated.dominance", restated(swapped))
    [line] = refused(folder, capsys, "gated.dominance")
    assert "data['points'][0][0]: the claim fixes '1/100'" in line
    edited = copy.deepcopy(dominance)
    edited["data"]["points"][7][0] = "0.5"
    write(folder, "gated.dominance", restated(edited))
    assert "data['points'][7][0]" in refused(folder, capsys, "gated.dominance")[0]


def test_optimal_gate_points_at_other_parameters_fail(folder, capsys):
    # valid certificates at nu = 4 and nu = 10 where the claim fixes nu = 3
    certificate = committed("gated.optimal_gate")
    others = [certified_optimum(GatedQueue("inf", 1, nu, 1), dps=30) for nu in (4, 10)]
    certificate["data"]["points"][:2] = [o.certificate["data"] for o in others]
    for other in others:  # each of them holds under its own user-level name
        check_certificate(other.certificate)
    write(folder, "gated.optimal_gate", restated(certificate))
    [line] = refused(folder, capsys, "gated.optimal_gate")
    assert "data['points'][0]['parameters']['reward']: the claim fixes '3'" in line


# 2. the statement


def test_an_edited_or_deleted_statement_fails(folder, capsys):
    certificate = committed("gated.optimal_gate")
    assert "(30 significant digits)" in certificate["statement"]
    edited = {**certificate, "statement": certificate["statement"].replace("30 sig", "40 sig")}
    write(folder, "gated.optimal_gate", edited)
    [line] = refused(folder, capsys, "gated.optimal_gate")
    assert "the statement is not the one its data states" in line
    deleted = {k: v for k, v in certificate.items() if k != "statement"}
    write(folder, "gated.optimal_gate", deleted)
    assert "has no statement" in refused(folder, capsys, "gated.optimal_gate")[0]


# 3. valid certificates under another claim's name


def test_one_trivial_certificate_over_every_file_fails(folder, capsys):
    trivial = certified_fluid_lp([0.1], [1.0], [1.0]).certificate
    check_certificate(trivial)  # valid under its own name
    for name in REPRODUCED:
        write(folder, name, trivial)
    lines = refused(folder, capsys, *REPRODUCED)
    assert all("it must be named lossnet.fluid_lp.json" in line for line in lines)
    for name in REPRODUCED:  # relabelled as each claim, it meets that claim's checker or set
        write(folder, name, restated_or_same({**trivial, "claim": name}))
    refused(folder, capsys, *REPRODUCED)


def test_another_claims_certificate_under_a_name_fails(folder, capsys):
    fluid = committed("lossnet.fluid")
    write(folder, "gated.dominance", fluid)
    assert "must be named lossnet.fluid.json" in refused(folder, capsys, "gated.dominance")[0]
    write(folder, "gated.dominance", restated_or_same({**fluid, "claim": "gated.dominance"}))
    line = refused(folder, capsys, "gated.dominance")[0]
    assert "checked by 'gated.dominance', not 'lossnet.fluid'" in line


def test_another_instances_valid_data_fails(folder, capsys):
    # N = 10 where the trunk-reservation claim fixes N = 100, k* = 4
    small = trunk_reservation_optimality(NET.with_servers(10)).certificate
    small = restated({**small, "claim": "lossnet.trunk_reservation"})
    write(folder, "lossnet.trunk_reservation", small)
    line = refused(folder, capsys, "lossnet.trunk_reservation")[0]
    assert "data['reserve']: the claim fixes 4, the data says 2" in line
    # a 3-digit gate certificate where the claim fixes 30 digits
    gate = committed("gated.optimal_gate")
    shutil.copy(COMMITTED / "lossnet.trunk_reservation.json", folder)
    few = certified_optimum(GatedQueue("inf", 1, 3, 1), dps=3).certificate["data"]
    gate["data"]["points"][0] = few
    write(folder, "gated.optimal_gate", restated(gate))
    line = refused(folder, capsys, "gated.optimal_gate")[0]
    assert "data['points'][0]['dps']: the claim fixes 30, the data says 3" in line
    # eleven copies of the N = 10 case as the values of N of the online claim
    online = committed("lossnet.online_optimum")
    shutil.copy(COMMITTED / "gated.optimal_gate.json", folder)
    case = certified_online_optimum(NET.with_servers(10), dps=20).certificate["data"]
    online["data"]["cases"] = [case] * len(online["data"]["cases"])
    write(folder, "lossnet.online_optimum", restated(online))
    line = refused(folder, capsys, "lossnet.online_optimum")[0]
    assert "data['cases'][1]['servers']: the claim fixes" in line


# 4. claimed enclosures of any width


def test_wide_claimed_enclosures_fail(folder, capsys):
    bounds = committed("walks.bounds")
    bounds["data"]["items"][0]["exact_enclosure"] = ["0", "1"]
    write(folder, "walks.bounds", bounds)
    assert "wider than 1e-12 relative" in refused(folder, capsys, "walks.bounds")[0]
    shutil.copy(COMMITTED / "walks.bounds.json", folder)
    trunk = committed("lossnet.trunk_reservation")
    trunk["data"]["online"] = ["0", "1000"]
    write(folder, "lossnet.trunk_reservation", trunk)
    line = refused(folder, capsys, "lossnet.trunk_reservation")[0]
    assert "wider than 1e-20 relative" in line


# 5. hostile files: one failure each, never a hang, a traceback or an aborted run


def test_a_huge_exponent_is_refused_at_once(folder, capsys):
    certificate = committed("walks.sss_failure_bound")
    certificate["data"]["items"][0]["bound_enclosure"] = ["1e-999999999", "1"]
    write(folder, "walks.sss_failure_bound", certificate)
    line = refused(folder, capsys, "walks.sss_failure_bound")[0]  # at once, not after 60 s
    assert "exponent must be at most" in line


@pytest.mark.parametrize(
    "content",
    [b"[1, 2, 3]", b"null", b"\xff\xfe not utf-8", b"[" * 100_000 + b"]" * 100_000,
     b'{"claim": "gated.dominance", "statement": "", "checker": "gated.dominance", '
     b'"data": [1, 2]}', b'{"claim": "gated.dominance", "x": NaN}', b"1" * 5000],
    ids=["list", "null", "not-utf-8", "deep", "data-not-mapping", "nan", "huge-integer"],
)  # fmt: skip
def test_a_hostile_file_is_one_failure(folder, capsys, content):
    (folder / "gated.dominance.json").write_bytes(content)
    refused(folder, capsys, "gated.dominance")


def test_a_directory_or_a_device_named_as_a_certificate_is_one_failure(folder, capsys):
    (folder / "gated.dominance.json").unlink()
    (folder / "gated.dominance.json").mkdir()
    assert "not a regular file" in refused(folder, capsys, "gated.dominance")[0]
    (folder / "gated.dominance.json").rmdir()
    os.symlink("/dev/zero", folder / "gated.dominance.json")
    assert "not a regular file" in refused(folder, capsys, "gated.dominance")[0]


def test_a_stranger_in_a_reproduce_folder_fails(folder, capsys):
    shutil.copy(COMMITTED / "lossnet.fluid.json", folder / "x.json")
    assert "not a certificate of qtheory reproduce" in refused(folder, capsys, "x")[0]


def test_certificates_of_two_run_sizes_do_not_mix(folder):
    # the online claim's certificate of a quick run beside the full run's others
    online = committed("lossnet.online_optimum")
    quick_sizes = [c["servers"] for c in PINS["lossnet.online_optimum"]["quick"]["cases"]]
    online["data"]["cases"] = [
        certified_online_optimum(NET.with_servers(n), dps=20).certificate["data"]
        for n in quick_sizes
    ]
    write(folder, "lossnet.online_optimum", restated(online))
    check_certificate(restated(online))  # a valid quick-size certificate on its own
    failures = verify(folder)
    assert len(failures) == 1 and "different run sizes" in failures[0]


# 6. half of any list, in any committed certificate


def lists(value, path=()):
    """Every (path, list) in ``value``, one per distinct path shape (indices of items
    collapsed), the first instance of each."""
    seen = set()

    def walk(node, where):
        if isinstance(node, dict):
            for key, child in node.items():
                yield from walk(child, (*where, key))
        elif isinstance(node, list):
            shape = tuple("*" if isinstance(k, int) else k for k in where)
            if shape not in seen and len(node) > 1:
                seen.add(shape)
                yield where, node
            for index, child in enumerate(node):
                yield from walk(child, (*where, index))

    yield from walk(value, path)


@pytest.mark.parametrize("name", REPRODUCED)
def test_dropping_half_of_any_list_fails(name):
    genuine = committed(name)
    for where, values in lists(genuine["data"]):
        tampered = copy.deepcopy(genuine)
        node = tampered["data"]
        for key in where[:-1]:
            node = node[key]
        node[where[-1]] = values[: len(values) // 2]
        for forged in (tampered, restated_or_same(tampered)):
            with pytest.raises(Exception) as error:  # noqa: PT011  CertificateError
                check_certificate(forged)
            assert type(error.value).__name__ == "CertificateError", (where, error.value)


def restated_or_same(certificate: dict) -> dict:
    try:
        return restated(certificate)
    except Exception:  # noqa: BLE001  data the statement cannot even state
        return certificate
