"""Measured seconds of each step of ``qtheory reproduce``, by run size, from an empty
result cache: the weights of its progress bar (:mod:`qtheory.report.reproduce`).

Written by ``benchmarks/bench_reproduce.py`` (do not edit by hand); a step missing here
weighs the median of the others.  The bar rescales these weights by the speed it
observes, so only their ratios matter.
"""

#: Seconds per step name, for each size (``"quick"``, ``"standard"``, ``"paper"``).
STEP_SECONDS: dict[str, dict[str, float]] = {
    "quick": {
        "gated: derivations and tables": 10.81,
        "gated: welfare figure": 1.25,
        "gated: PoF figure": 1.68,
        "gated: sojourn figure": 0.48,
        "lossnet: online optimum over N": 0.02,
        "lossnet: derivations and tables": 0.46,
        "lossnet: regret figure": 0.84,
        "lossnet: threshold figure": 0.94,
        "lossnet decomposition: sweep": 17.96,
        "lossnet decomposition: tables and claims": 0.0,
        "lossnet decomposition: figure": 0.51,
        "lossnet decomposition: lookahead figure": 0.5,
        "lossnet classes: sweep": 3.97,
        "lossnet classes: tables and claims": 0.21,
        "lossnet classes: figure": 0.75,
        "lossnet classes: lookahead figure": 0.43,
        "walks: bounds against the exact CTMC": 5.03,
        "walks: ruin figure": 0.92,
        "walks: PFI epochs": 0.85,
        "walks: SSS window sweep": 3.65,
        "walks: section": 0.07,
        "memory: Erlang-m gates": 0.45,
        "memory: the ladder": 1.7,
        "memory: section": 4.33,
    },
}
