"""``python -m qtheory.cli``: the same as ``python -m qtheory`` (:mod:`qtheory.__main__`,
which runs :func:`qtheory.cli.program.main`)."""

import runpy

if __name__ == "__main__":
    runpy.run_module("qtheory", run_name="__main__", alter_sys=True)
