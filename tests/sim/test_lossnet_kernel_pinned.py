"""Pinned sample paths of the C loss-network kernel (issue 22, item 5).

The kernel is tuned for speed (batched loops on locals, PFI's walks read back over
chunks of events, SSS's window end moved eight events at a time, the offline band's
steps in SSE2, AVX2 or AVX-512 registers), and every such change must leave every sample
path bit for bit as it was.  The event-by-event tests against the Python references run
small networks; these runs are large enough for the ring, the walk ring and the band's
stack to grow, the SSS window to cross the ring's tail, PFI's walks to stay pending
across chunks and its thresholds to be refilled many times.  Expected: the statistics
(floats as hex) and the PCG64 state after the run (the numbers drawn; not for PFI, see
``_record``), recorded with the kernel as it was before the tuning (commit 492d0ed).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from qtheory.sim import _core

TWO_CLASS = [
    ("pfi", 0.0, 2500, 40.0),
    ("pfi", 0.0, 40000, 2.0),
    ("sss", math.log(2500) / 2500, 2500, 40.0),
    ("sss", 0.002, 2500, 40.0),
    ("sss", 0.05, 400, 60.0),
    ("offline", 0.0, 2500, 20.0),
    ("offline", -1.0, 300, 20.0),
    ("threshold", 51.0, 2500, 40.0),
    ("sss", 0.5, 2500, 10.0),  # a window of about 3000 events: the ring doubles
]
THREE_CLASS = [("pfi", 0.0), ("sss", 0.004), ("offline", 0.0)]
SEED = 3

EXPECTED = [
    {
        "admitted_h": 44793,
        "admitted_l": 29932,
        "events": 239134,
        "idle_area": "0x1.fac961b603697p+6",
        "l_arrivals_scored": 59682,
        "lookahead_events": 8518729,
        "lookahead_time": "0x1.644ba3fbd00c4p+10",
        "offline_band": 0,
        "rejected_h": 0,
        "rejected_l": 29750,
        "reward_total": "0x1.39fa800000000p+17",
    },
    {
        "admitted_h": 35800,
        "admitted_l": 35875,
        "events": 191270,
        "idle_area": "0x1.75587baf5ec97p+12",
        "l_arrivals_scored": 47954,
        "lookahead_events": 14316931,
        "lookahead_time": "0x1.2bc4c3674a395p+7",
        "offline_band": 0,
        "rejected_h": 0,
        "rejected_l": 12079,
        "reward_total": "0x1.2031800000000p+17",
    },
    {
        "admitted_h": 43638,
        "admitted_l": 31096,
        "events": 239134,
        "idle_area": "0x1.b8b402fb94d09p+6",
        "l_arrivals_scored": 59682,
        "lookahead_events": 230017,
        "lookahead_time": "0x1.1e507d61d605bp+5",
        "offline_band": 0,
        "rejected_h": 1155,
        "rejected_l": 28586,
        "reward_total": "0x1.3705000000000p+17",
        "rng": [174871077554058773452045428943992704414, 222003063171874261427395693950637096479],
    },
    {
        "admitted_h": 43010,
        "admitted_l": 31730,
        "events": 239134,
        "idle_area": "0x1.a7e28c0cf330ap+6",
        "l_arrivals_scored": 59682,
        "lookahead_events": 120681,
        "lookahead_time": "0x1.1d29c53d6fa6ep+4",
        "offline_band": 0,
        "rejected_h": 1783,
        "rejected_l": 27952,
        "reward_total": "0x1.356d000000000p+17",
        "rng": [196429385923300658016985609902492766138, 222003063171874261427395693950637096479],
    },
    {
        "admitted_h": 10790,
        "admitted_l": 7066,
        "events": 57511,
        "idle_area": "0x1.5fb68941cef04p+7",
        "l_arrivals_scored": 14359,
        "lookahead_events": 194818,
        "lookahead_time": "0x1.8b3b8de331765p+7",
        "offline_band": 0,
        "rejected_h": 84,
        "rejected_l": 7293,
        "reward_total": "0x1.2b46000000000p+15",
        "rng": [14903633402783474340596031676309165775, 222003063171874261427395693950637096479],
    },
    {
        "admitted_h": 22294,
        "admitted_l": 15128,
        "events": 119610,
        "idle_area": "0x1.79529bf3fc2b6p+5",
        "l_arrivals_scored": 0,
        "lookahead_events": 0,
        "lookahead_time": "0x0.0p+0",
        "offline_band": 32,
        "rejected_h": 2,
        "rejected_l": 14837,
        "reward_total": "0x1.3c6a000000000p+16",
        "rng": [275894820519568088396503520369369363254, 222003063171874261427395693950637096479],
    },
    {
        "admitted_h": 2662,
        "admitted_l": 1730,
        "events": 14241,
        "idle_area": "0x1.79b95b9391e46p+5",
        "l_arrivals_scored": 0,
        "lookahead_events": 0,
        "lookahead_time": "0x0.0p+0",
        "offline_band": 300,
        "rejected_h": 5,
        "rejected_l": 1777,
        "reward_total": "0x1.2d68000000000p+13",
        "rng": [242538660955656741309346122757734560661, 222003063171874261427395693950637096479],
    },
    {
        "admitted_h": 44793,
        "admitted_l": 28493,
        "events": 239134,
        "idle_area": "0x1.8464918698e54p+10",
        "l_arrivals_scored": 0,
        "lookahead_events": 0,
        "lookahead_time": "0x0.0p+0",
        "offline_band": 0,
        "rejected_h": 0,
        "rejected_l": 31189,
        "reward_total": "0x1.364b800000000p+17",
        "rng": [196429385923300658016985609902492766138, 222003063171874261427395693950637096479],
    },
    {
        "admitted_h": 11278,
        "admitted_l": 7482,
        "events": 59832,
        "idle_area": "0x1.024591a94775ap+5",
        "l_arrivals_scored": 14937,
        "lookahead_events": 14308948,
        "lookahead_time": "0x1.29ef72d8c72cfp+11",
        "offline_band": 0,
        "rejected_h": 0,
        "rejected_l": 7455,
        "reward_total": "0x1.422e000000000p+15",
        "rng": [253014716135899569418619231485793495906, 222003063171874261427395693950637096479],
    },
    {
        "admitted": [6121, 10081, 4000],
        "arrivals_scored": 18102,
        "events": 59243,
        "idle_area": "0x1.66140b7674feap+7",
        "lookahead_events": 1803744,
        "lookahead_time": "0x1.c80d278b21267p+9",
        "offline_band": 0,
        "rejected": [0, 2, 4019],
        "reward_total": "0x1.bc70000000000p+15",
    },
    {
        "admitted": [6091, 8673, 5466],
        "arrivals_scored": 18102,
        "events": 59243,
        "idle_area": "0x1.0fb0f622fe390p+7",
        "lookahead_events": 14094,
        "lookahead_time": "0x1.787e86a9f6a14p+2",
        "offline_band": 0,
        "rejected": [30, 1410, 2553],
        "reward_total": "0x1.ae0a000000000p+15",
        "rng": [40708051596166509592178442347163728374, 222003063171874261427395693950637096479],
    },
    {
        "admitted": [6121, 10076, 4032],
        "arrivals_scored": 0,
        "events": 59243,
        "idle_area": "0x1.3736735afe6b5p+7",
        "lookahead_events": 0,
        "lookahead_time": "0x0.0p+0",
        "offline_band": 64,
        "rejected": [0, 7, 3987],
        "reward_total": "0x1.bcba000000000p+15",
        "rng": [305855030379976755902331601887291373858, 222003063171874261427395693950637096479],
    },
]


def _record(out: dict, generator: np.random.PCG64, policy: str) -> dict:
    """The run's statistics and, except for PFI, the generator's state after it.

    PFI refills its thresholds a whole span of events ahead of the decisions, so how
    many events past the horizon it draws follows the refill schedule, which changed
    (in 2026-12) without changing a decision or a statistic; it is not pinned."""
    record = {key: value.hex() if isinstance(value, float) else value
              for key, value in sorted(out.items())}  # fmt: skip
    if policy != "pfi":
        state = generator.state["state"]
        record["rng"] = [state["state"], state["inc"]]
    return record


@pytest.mark.parametrize("case", range(len(TWO_CLASS)))
def test_two_class_runs_are_pinned(case):
    policy, param, servers, horizon = TWO_CLASS[case]
    generator = np.random.PCG64(SEED)
    out = _core.lossnet_simulate(generator, "clock", policy, param, servers, 0.6, 0.8, 1.0,
                                 2.0, 1.0, horizon, horizon / 4)  # fmt: skip
    assert _record(out, generator, policy) == EXPECTED[case]


@pytest.mark.parametrize("case", range(len(THREE_CLASS)))
def test_three_class_runs_are_pinned(case):
    policy, param = THREE_CLASS[case]
    generator = np.random.PCG64(SEED)
    out = _core.lossnet_classes_simulate(generator, policy, param, 900, [0.3, 0.5, 0.4],
                                         [3.0, 2.0, 1.0], 1.0, 30.0, 7.5)  # fmt: skip
    assert _record(out, generator, policy) == EXPECTED[len(TWO_CLASS) + case]
