"""The ``qtheory`` command.

Each model contributes a subcommand through a ``register(subparsers)`` function that
adds its parser and sets ``run``; add a new model by appending its module to
:data:`COMMANDS`.  Invalid input exits with status 2 and a one-line message; a numerical
method that gives up exits with status 1 and a one-line message.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

COMMANDS = (
    "qtheory.reproduce",
    "qtheory.gated.command",
    "qtheory.lossnet.command",
    "qtheory.walks.command",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="qtheory",
        description="Executable, verifiable queueing theory: formulas, exact solvers, "
        "simulation, LaTeX tables and figures.",
    )
    subparsers = parser.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
        importlib.import_module(module).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except ValueError as error:  # bad input
        print(f"qtheory {args.command}: error: {_one_line(error)}", file=sys.stderr)
        return 2
    except (ArithmeticError, RuntimeError) as error:  # a numerical method gave up
        print(f"qtheory {args.command}: numerical failure: {_one_line(error)}", file=sys.stderr)
        return 1
    except MemoryError:
        print(f"qtheory {args.command}: not enough memory for this size", file=sys.stderr)
        return 1


def _one_line(error: Exception) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__


if __name__ == "__main__":
    sys.exit(main())
