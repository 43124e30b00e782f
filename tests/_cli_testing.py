"""Helpers for the command-line tests (tests/test_cli.py, tests/test_fuzz_cli.py).

The commands run in the test process (``qtheory.cli.program.main``), under a cap on the address
space: a command that tries to allocate for an absurd size (``--reps 10**22``) then gets a
``MemoryError`` (exit status 1, which the tests report as a failure) instead of waking
the kernel's OOM killer, which would kill the test run without a word and could take
other processes on a shared machine with it.
"""

from __future__ import annotations

import contextlib
import io
import resource
from collections.abc import Iterator, Sequence
from pathlib import Path

from qtheory.cli import main

#: Address space a command may add to the test process's own (bytes).
MEMORY_HEADROOM = 3e9


def _address_space() -> int:
    """This process's virtual memory size in bytes (``VmSize`` of /proc/self/status)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    raise OSError("no VmSize in /proc/self/status")


@contextlib.contextmanager
def capped_memory(headroom: float = MEMORY_HEADROOM) -> Iterator[None]:
    """Lower the soft ``RLIMIT_AS`` to the current address space plus ``headroom`` for the
    block, and restore it after (no cap where /proc is missing)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    try:
        cap = _address_space() + int(headroom)
    except OSError:
        yield
        return
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def run_cli(argv: Sequence[str]) -> tuple[int, str, str]:
    """``qtheory argv`` in this process under :func:`capped_memory`: (status, stdout,
    stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with capped_memory(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(argv))
    return status, out.getvalue(), err.getvalue()
