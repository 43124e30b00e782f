"""``python -m qtheory.cli``: the ``qtheory`` command."""

import sys

from qtheory.cli import main

if __name__ == "__main__":
    sys.exit(main())
