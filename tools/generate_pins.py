"""Write ``qtheory/verify/pins.json``: the set each certified claim of ``qtheory reproduce``
quantifies over, for the quick and the full (standard and paper) sizes.

The sets are read from the certificates of two runs, which must certify the same claims:

    qtheory reproduce --quick --out /tmp/quick
    qtheory reproduce --out /tmp/full          # or --paper, or the committed derivations/
    python tools/generate_pins.py /tmp/quick /tmp/full

``tests/verify/test_pins.py`` checks that a quick run writes exactly the quick sets and
that the committed (paper-size) certificates have the full ones, so a changed grid
cannot go unnoticed: rerun this script after changing one on purpose.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from qtheory.verify import certificate_files
from qtheory.verify.expected import REPRODUCED, index_of

PINS = Path(__file__).resolve().parent.parent / "qtheory" / "verify" / "pins.json"


def sets(folder: Path) -> dict[str, object]:
    """claim -> index of its certificate in the reproduce output ``folder``."""
    found = {path.stem: json.loads(path.read_text()) for path in certificate_files(folder)}
    missing = sorted(set(REPRODUCED) - set(found))
    if missing:
        raise SystemExit(f"{folder}: no certificate for {', '.join(missing)}")
    return {name: index_of(name, found[name]["data"]) for name in REPRODUCED}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("quick", type=Path, help="output folder of a --quick run")
    parser.add_argument("full", type=Path, help="output folder of a standard or --paper run")
    args = parser.parse_args()
    quick, full = sets(args.quick), sets(args.full)
    pins = {name: {"quick": quick[name], "full": full[name]} for name in REPRODUCED}
    PINS.write_text(json.dumps(pins, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {PINS} ({PINS.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
