"""The run context of ``qtheory reproduce``: output folder, size, seed and cluster, read
by every model's steps, which append the claims they check to it."""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from qtheory.core.arguments import DEFAULT_SEED
from qtheory.core.claims import Claim
from qtheory.core.executor import check_cluster_address

__all__ = ["DEFAULT_SEED", "Run"]


@dataclass(frozen=True)
class Run:
    """The context every step of ``qtheory reproduce`` reads.

    Attributes
    ----------
    out
        Output folder (``derivations/`` and ``figures/`` are written below it).
    quick
        CI-sized run (smaller grids and simulations; some sweep claims fail for lack
        of power at this size).
    paper
        Paper-grade run: the sweeps with more sizes N and more replications (the
        committed outputs).  Neither ``quick`` nor ``paper``: the standard run, sized to
        finish in a few minutes on two cores with every claim decided.
    seed
        Root seed (an integer >= 0) of every random stream; see :meth:`seed_sequence`.
    cluster
        Address of a Dask scheduler (e.g. ``"tcp://host:8786"``) for sweep steps, or
        ``None`` for a local process pool.
    claims
        The claim records checked so far; steps append to it.
    pending
        Work started ahead of the step that needs it, by the name of that work (the
        sweeps' background process:
        :func:`~qtheory.report.lossnet_decomposition_sweep.start_in_background`); not
        compared.

    Raises
    ------
    ValueError
        If ``seed`` is not an integer >= 0, ``quick`` and ``paper`` are both set, or
        ``cluster`` is not a well-formed scheduler address
        (:func:`qtheory.core.executor.check_cluster_address`; no connection is tried).

    Examples
    --------
    >>> run = Run(Path("build"), quick=True, seed=7)
    >>> a = np.random.default_rng(run.seed_sequence("gated.simulation")).random()
    >>> b = np.random.default_rng(Run("x", seed=7).seed_sequence("gated.simulation")).random()
    >>> c = np.random.default_rng(run.seed_sequence("another step")).random()
    >>> a == b, a == c
    (True, False)
    >>> Run("build", seed=-1)
    Traceback (most recent call last):
    ...
    ValueError: seed must be an integer >= 0, got -1
    >>> Run("build").size, Run("build", paper=True).size, run.size
    ('standard', 'paper', 'quick')
    """

    out: Path
    quick: bool = False
    seed: int = DEFAULT_SEED
    cluster: str | None = None
    claims: list[Claim] = field(default_factory=list)
    paper: bool = False
    pending: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "out", Path(self.out))
        if self.quick and self.paper:
            raise ValueError("quick and paper exclude each other: choose one size of run")
        integer = isinstance(self.seed, int | np.integer) and not isinstance(self.seed, bool)
        if not (integer and self.seed >= 0):
            raise ValueError(f"seed must be an integer >= 0, got {self.seed!r}")
        if self.cluster is not None:
            check_cluster_address(self.cluster)  # fail before any step runs

    @property
    def size(self) -> str:
        """``"quick"``, ``"standard"`` or ``"paper"``: the size of run the steps plan for."""
        return "quick" if self.quick else "paper" if self.paper else "standard"

    def seed_sequence(self, step: str) -> np.random.SeedSequence:
        """The seed of the step named ``step``.

        ``SeedSequence(seed, spawn_key=(crc32(step),))``: the child of the root seed
        whose spawn key is the CRC-32 of the step's name.  Each step's stream depends
        only on ``(seed, step)``, not on the order of the steps or on which other steps
        run, and streams of differently named steps are independent (the entropy
        mixing of :class:`numpy.random.SeedSequence`, which is how ``spawn`` makes
        children).

        Parameters
        ----------
        step : str
            The step's name.

        Returns
        -------
        numpy.random.SeedSequence

        Examples
        --------
        >>> Run("build", seed=1).seed_sequence("gated.simulation").spawn_key[0] > 0
        True
        """
        return np.random.SeedSequence(self.seed, spawn_key=(zlib.crc32(step.encode()),))
