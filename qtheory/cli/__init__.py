"""The ``qtheory`` command: :mod:`qtheory.cli.program` (the entry point ``main``), one
module per subcommand (``gated``, ``lossnet``, ``walks``, ``reproduce``, ``table``,
``check``), (option types: :mod:`qtheory.core.arguments`) and the printing of numbers
(:mod:`qtheory.cli.output`).  The top layer: nothing in the package imports it.
"""

from qtheory.core.lazy import lazy_package

_LAZY = {"build_parser": "program", "main": "program"}

__all__ = ["build_parser", "main"]

lazy_package(__name__, _LAZY)
