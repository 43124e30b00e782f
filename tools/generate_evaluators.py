"""Write the committed evaluator modules from the Sympy derivations.

    python tools/generate_evaluators.py          # rewrite every module of TARGETS
    python tools/generate_evaluators.py --check  # exit 1, naming them, if any is stale

The numerical modules of a model call evaluators from a generated module
(``qtheory/gated/_generated.py``, ``qtheory/lossnet/_generated.py``,
``qtheory/walks/_generated.py``) instead of deriving
their formulas with Sympy on every run: the source of each evaluator is
:meth:`qtheory.core.symbolic.Formula.source`, the same code :attr:`Formula.float64`,
:attr:`Formula.mp` and :attr:`Formula.arb` compile, so the derivation stays the one
source of every formula.  Run this after changing a derivation; ``tests/test_codegen.py``
runs ``--check``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from qtheory.core.symbolic import Formula, generated_module

ROOT = Path(__file__).resolve().parent.parent

Evaluators = list[tuple[Formula, str]]


def gated() -> Evaluators:
    """The evaluators :mod:`qtheory.gated.welfare`, :mod:`qtheory.gated.gim1_root`,
    :mod:`qtheory.gated.asymptotics` and :mod:`qtheory.gated.costs` call, and the Arb
    evaluators of S_GA and the throughput that :mod:`qtheory.gated.certified` and
    :mod:`qtheory.gated.cost_certified` call."""
    from qtheory.gated.asymptotics import asymptotic_formulas
    from qtheory.gated.cost_derivation import derive_costs
    from qtheory.gated.derivation import derive

    f = derive()
    asymptotic = [(formula, "mp") for formula in asymptotic_formulas().values()]
    costs = derive_costs()
    customer_costs = [(formula, "mp") for formula in costs.sojourn.values()]
    return [
        (f.welfare_ga, "float64"),
        (f.welfare_ga, "mp"),
        (f.welfare_ga_first_order, "mp"),
        (f.welfare_ga, "arb"),
        (f.throughput, "arb"),
        (f.gate_of_root, "mp"),
        (f.throughput, "mp"),
        (f.mean_sojourn, "mp"),
        (f.welfare_rr, "float64"),
        (f.welfare_rr, "mp"),
        (f.rr_optimal_rate_excess, "mp"),
        (f.rr_optimal_welfare_excess, "mp"),
        *asymptotic,
        *customer_costs,
        (costs.holding_power, "mp"),
    ]


def lossnet() -> Evaluators:
    """The evaluators :mod:`qtheory.lossnet.fluid` and :mod:`qtheory.lossnet.online` call."""
    from qtheory.lossnet.fluid import derive_fluid
    from qtheory.lossnet.online import REGRET_IDENTITY

    bound = derive_fluid().bound(1)
    return [
        (bound, "float64"),
        (bound, "mp"),
        (REGRET_IDENTITY, "float64"),
        (REGRET_IDENTITY, "mp"),
    ]


def walks() -> Evaluators:
    """The evaluators :mod:`qtheory.walks.chernoff`, :mod:`qtheory.walks.ruin` and
    :mod:`qtheory.walks.idle` call: for each Chernoff family its mean, weights, deviations
    and auxiliary quantities in both backends and its tilted means in float64, named as
    the derivation names them (the chernoff module finds them by those names)."""
    from qtheory.walks import chernoff_derivation as chernoff
    from qtheory.walks.idle import UP_PROBABILITY
    from qtheory.walks.ruin import WALK_LOG_ODDS, derive_walk_ruin

    both = ("float64", "mp")
    families = []
    for f in (chernoff.derive_poisson(), chernoff.derive_skellam(), chernoff.derive_walk()):
        auxiliary = [form for a in f.auxiliary for form in (a.nonnegative_x, a.negative_x)]
        route = [f.mean, *f.weights, *f.deviations, *auxiliary]
        families += [(formula, backend) for formula in route for backend in both]
        families += [(formula, "float64") for formula in f.tilted_means]
    ruin = derive_walk_ruin()
    return [
        (chernoff.CRAMER_RATE, "float64"),
        (chernoff.CRAMER_RATE, "mp"),
        (chernoff.CRAMER_SERIES, "float64"),
        (chernoff.CRAMER_AT_ZERO, "float64"),
        *families,
        *((formula, backend) for formula in (WALK_LOG_ODDS, ruin.probability, ruin.fair,
                                             ruin.limit) for backend in both),
        (UP_PROBABILITY, "float64"),
    ]  # fmt: skip


#: Generated module -> (what it is generated from, its evaluators).
TARGETS: dict[str, tuple[str, Callable[[], Evaluators]]] = {
    "qtheory/gated/_generated.py": (
        "qtheory.gated.derivation.derive(), qtheory.gated.asymptotics.asymptotic_formulas() "
        "and qtheory.gated.cost_derivation.derive_costs()",
        gated,
    ),
    "qtheory/lossnet/_generated.py": (
        "qtheory.lossnet.fluid.derive_fluid() and qtheory.lossnet.online.REGRET_IDENTITY",
        lossnet,
    ),
    "qtheory/walks/_generated.py": (
        "qtheory.walks.chernoff_derivation (derive_poisson(), derive_skellam(), derive_walk() "
        "and the Cramér rate), qtheory.walks.ruin.derive_walk_ruin() and WALK_LOG_ODDS, and "
        "qtheory.walks.idle.UP_PROBABILITY",
        walks,
    ),
}


def source(path: str) -> str:
    """The text the module at ``path`` (a key of :data:`TARGETS`) must have."""
    origin, evaluators = TARGETS[path]
    docstring = (
        f"Evaluators of the formulas of {origin}.\n\n"
        "Generated by tools/generate_evaluators.py from the Sympy derivation; do not edit:\n"
        "tests/test_codegen.py regenerates this file and fails if it differs.  Importing it\n"
        "needs neither Sympy nor the derivation (the command line starts fast); the\n"
        "derivation's Formula objects compile the same code.\n"
    )
    return generated_module(evaluators(), docstring=docstring)


def stale() -> list[str]:
    """The modules of :data:`TARGETS` whose committed text differs from :func:`source`."""
    return [path for path in TARGETS if (ROOT / path).read_text() != source(path)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only check; exit 1 if stale")
    args = parser.parse_args(argv)
    if args.check:
        paths = stale()
        for path in paths:
            print(f"{path} is stale: run python tools/generate_evaluators.py", file=sys.stderr)
        return 1 if paths else 0
    for path in TARGETS:
        (ROOT / path).write_text(source(path))
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
