"""The C runs behind :mod:`qtheory.sim.lossnet`: one policy on one bit generator
(:func:`run_one`), and every policy of a replication on one path drawn once
(:func:`run_policies`, the ``_core.lossnet_source`` of the C kernel).  Arguments are
validated by the callers in :mod:`qtheory.sim.lossnet`; a ``ValueError`` of the offline
programme's cell limit is reworded to name ``horizon``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from qtheory.core import limits
from qtheory.model.lossnet import LossNetwork
from qtheory.sim import _core

__all__ = ["SHARED_PATH_BYTES", "run_one", "run_policies"]


def run_one(
    net: LossNetwork,
    name: str,
    param: float,
    info: str,
    horizon: float,
    warmup: float,
    seed: np.random.SeedSequence,
    trace: bool = False,
    lookahead_stats: bool = True,
) -> dict:
    """One C run on the bit generator ``default_rng(seed)`` (PCG64 on ``seed``): the
    two-class entry point for two classes, the n-class one (clock model, same kernel) for
    more.

    Parameters
    ----------
    net : LossNetwork
    name : str
        The policy's kernel name (``"threshold"``, ``"pfi"``, ``"sss"``, ``"offline"``).
    param : float or tuple of int
        Its parameter (reserve, window, band; the nested reserves for n classes).
    info : str
        ``"clock"`` or ``"job"``.
    horizon, warmup : float
        T and T0 (validated by the caller).
    seed : numpy.random.SeedSequence
        The seed of this run's path.
    trace : bool, default False
        Also return the per-event trace arrays.
    lookahead_stats : bool, default True
        Record the look-ahead statistics of PFI and SSS (False: they are 0, the
        decisions the same, PFI about 1.7 times as fast, two-class SSS up to 1.5
        times).

    Returns
    -------
    dict
        The kernel's statistics (see :func:`qtheory.sim.lossnet.summarise`).

    Examples
    --------
    >>> import numpy as np
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> out = run_one(net, "threshold", 2, "clock", 20.0, 2.0, np.random.SeedSequence(1))
    >>> out["admitted_h"] > 0, out["events"] > 0
    (True, True)
    """
    bit_generator = np.random.PCG64(seed)
    with bit_generator.lock:  # the C code releases the GIL while it runs
        return _run(net, name, param, info, horizon, warmup, bit_generator, trace,
                    lookahead_stats)  # fmt: skip


#: :func:`qtheory.sim.lossnet.simulate_policies` shares each replication's clock-model
#: path among its policies while the paths alive at once (one per worker) take at most
#: this many bytes (peak, :func:`qtheory.sim.lossnet_costs.path_cost`); beyond it each
#: policy draws the path again, as :func:`qtheory.sim.lossnet.simulate` does.
SHARED_PATH_BYTES = 2**29


def run_policies(
    net: LossNetwork,
    parsed: Sequence[tuple[str, float]],
    info: str,
    horizon: float,
    warmup: float,
    seed: np.random.SeedSequence,
    share: bool = True,
    lookahead_stats: bool = True,
) -> list[dict]:
    """One replication of each policy of ``parsed`` ((name, param) pairs) on the path of
    ``seed``: :func:`run_one` of each, except that with ``share`` in the clock model they
    all read one path drawn once (``_core.lossnet_source``: the events every run would
    draw from ``default_rng(seed)``, kept and replayed) instead of each drawing it again;
    the results are the same numbers.  The job model draws its path again for each
    policy.

    Parameters
    ----------
    net : LossNetwork
    parsed : sequence of (str, float)
        The policies' kernel names and parameters.
    info : str
        ``"clock"`` or ``"job"``.
    horizon, warmup : float
        T and T0 (validated by the caller).
    seed : numpy.random.SeedSequence
        The seed of the replication's path.
    share : bool, default True
        Share the clock-model path (False: each policy draws it, as :func:`run_one`).
    lookahead_stats : bool, default True
        As in :func:`run_one`.

    Returns
    -------
    list of dict
        The kernel's statistics of each policy, in order.

    Examples
    --------
    >>> import numpy as np
    >>> net = LossNetwork(10, 0.6, 0.8, 1.0, 2.0, 1.0)
    >>> seed = np.random.SeedSequence(1)
    >>> both = run_policies(net, [("pfi", 0.0), ("offline", 0.0)], "clock", 20.0, 2.0, seed)
    >>> both[0] == run_one(net, "pfi", 0.0, "clock", 20.0, 2.0, seed)
    True
    """
    if info != "clock" or len(parsed) == 1 or not share:
        return [run_one(net, name, param, info, horizon, warmup, seed,
                        lookahead_stats=lookahead_stats) for name, param in parsed]  # fmt: skip
    bit_generator = np.random.PCG64(seed)
    with bit_generator.lock:
        source = _core.lossnet_source(bit_generator, net.servers, net.lambdas, net.mu)
        return [_run(net, name, param, info, horizon, warmup, source,
                     lookahead_stats=lookahead_stats) for name, param in parsed]  # fmt: skip


def _run(net, name, param, info, horizon, warmup, draws, trace=False, lookahead_stats=True) -> dict:
    """The C run of one policy on ``draws``: a bit generator (whose lock the caller
    holds) or a path source of it."""
    max_cells = limits.limit("dp_cells")
    try:
        if net.n_classes > 2:
            return _core.lossnet_classes_simulate(
                draws, name, param, net.servers, net.lambdas, net.rewards, net.mu,
                horizon, warmup, trace=trace, max_cells=max_cells,
                lookahead_stats=lookahead_stats,
            )  # fmt: skip
        return _core.lossnet_simulate(
            draws, info, name, param, net.servers, net.lambda_h, net.lambda_l,
            net.mu, net.r_h, net.r_l, horizon, warmup, trace=trace, max_cells=max_cells,
            lookahead_stats=lookahead_stats,
        )  # fmt: skip
    except ValueError as error:
        if not str(error).startswith("max_cells"):
            raise
        raise ValueError(
            f'horizon: {error}: more than the "dp_cells" limit allows (lift it with '
            "qtheory.core.limits.raised)"
        ) from error
