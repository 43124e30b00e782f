"""The ``qtheory`` command.

Each model contributes a subcommand through a ``register(subparsers)`` function that
adds its parser and sets ``run``; add a new model by appending its module to
:data:`COMMANDS`.  Invalid input exits with status 2 and a one-line message.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

COMMANDS = ("qtheory.reproduce", "qtheory.gated.command", "qtheory.lossnet.command")


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
    except ValueError as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        print(f"qtheory {args.command}: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
