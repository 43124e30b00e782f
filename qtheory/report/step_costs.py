"""Measured seconds of each step of ``qtheory reproduce``, by run size, from an empty
result cache: the weights of its progress bar (:mod:`qtheory.report.reproduce`).

Written by ``benchmarks/bench_reproduce.py`` (do not edit by hand); a step missing here
weighs the median of the others.  The bar rescales these weights by the speed it
observes, so only their ratios matter.
"""

#: Seconds per step name, for each size (``"quick"``, ``"standard"``, ``"paper"``).
STEP_SECONDS: dict[str, dict[str, float]] = {}
