"""The certificates committed under ``derivations/certificates`` hold: the checker accepts
what the last full ``qtheory reproduce`` wrote (a changed certificate format or checker
that no longer accepts them shows here until the outputs are regenerated)."""

from __future__ import annotations

from pathlib import Path

from qtheory.verify import verify

COMMITTED = Path(__file__).resolve().parents[2] / "derivations" / "certificates"


def test_the_committed_certificates_verify():
    assert len(list(COMMITTED.glob("*.json"))) >= 10
    assert verify(COMMITTED) == []
