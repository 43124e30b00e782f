"""``python -m qtheory``: the ``qtheory`` command (:func:`qtheory.cli.program.main`)."""

import sys

from qtheory.cli.program import main

if __name__ == "__main__":
    sys.exit(main())
