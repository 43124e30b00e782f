r"""The policy strings of the loss-network simulator (:func:`parse_policy`: ``threshold:K``
for two classes, ``threshold:k_1,...,k_n`` for n, ``pfi``, ``sss:W``, ``offline``) and the
checks of its run arguments (network, information model, horizon and warm-up), for
:mod:`qtheory.sim.lossnet`.
"""

from __future__ import annotations

import math

from qtheory.core.validation import nonnegative, positive, positive_int
from qtheory.model.lossnet import LossNetwork, as_network

__all__ = [
    "parse_policy",
]


# ------------------------------------------------------------------ arguments

INFO_MODELS = ("clock", "job")


def parse_policy(policy: str, net: LossNetwork | int) -> tuple[str, float | tuple[int, ...]]:
    """Split a policy string into the C policy name and its parameter.

    Parameters
    ----------
    policy : str
        ``"threshold:K"`` (two classes: trunk reservation with reserve K, an integer in
        0..N), ``"threshold:k_1,...,k_n"`` (an n-class network: n nested integer reserves
        0 <= k_1 <= … <= k_n <= N), ``"pfi"``, ``"sss:W"`` (a finite window W > 0) or
        ``"offline"``.
    net : LossNetwork or int
        The network, or (two classes) its number of servers N >= 1.

    Returns
    -------
    tuple
        The C name (``"threshold"``, ``"pfi"``, ``"sss"``, ``"offline"``) and the reserve
        K (a float), the reserves (a tuple of int), the window W, or 0.0 for ``pfi`` and
        ``offline``.

    Raises
    ------
    ValueError
        For anything else, naming ``policy`` (or ``servers``) and the rule.

    References
    ----------
    .. [1] J. Bray, "An Ω(log N / N) lookahead is sufficient to bound costs in the
       overloaded loss network", arXiv:2601.14538 (2026): PFI and SSS(W).

    Examples
    --------
    >>> parse_policy("threshold:3", 50), parse_policy("sss:0.1", 50), parse_policy("pfi", 50)
    (('threshold', 3.0), ('sss', 0.1), ('pfi', 0.0))
    >>> parse_policy("threshold:60", 50)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: policy 'threshold:K' needs an integer reserve K in 0..servers = 0..50, ...
    >>> net = LossNetwork(50, (0.3, 0.9, 0.6), (3.0, 2.0, 1.0), 1.0)
    >>> parse_policy("threshold:0,2,7", net)
    ('threshold', (0, 2, 7))
    >>> parse_policy("threshold:0,7,2", net)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: policy 'threshold:k_1,...,k_n' needs nested reserves k_1 <= ... <= k_n, ...
    """
    servers = net.servers if isinstance(net, LossNetwork) else positive_int("servers", net)
    classes = net if isinstance(net, LossNetwork) and net.n_classes > 2 else None
    if not isinstance(policy, str):
        raise ValueError(f"policy must be a string, got {policy!r}")
    name, colon, arg = policy.partition(":")
    if name == "threshold" and classes is not None:
        return name, _nested_reserves(policy, arg if colon else "", classes)
    if name == "threshold":
        # At most 19 digits: int() of a huge string is slow and itself refused.
        if colon and arg.isascii() and arg.isdigit() and len(arg) <= 19 and int(arg) <= servers:
            return name, float(int(arg))
        raise ValueError(
            f"policy 'threshold:K' needs an integer reserve K in 0..servers = 0..{servers}, "
            f"got {policy!r}"
        )
    if name == "sss":
        try:
            window = float(arg) if len(arg) <= 100 else math.nan
        except ValueError:
            window = math.nan
        if colon and 0 < window < math.inf:
            return name, window
        raise ValueError(f"policy 'sss:W' needs a finite window W > 0, got {policy!r}")
    if name in ("pfi", "offline") and not colon:
        return name, 0.0
    threshold = "threshold:K" if classes is None else "threshold:k_1,...,k_n"
    raise ValueError(f"policy must be '{threshold}', 'pfi', 'sss:W' or 'offline', got {policy!r}")


def _nested_reserves(policy: str, arg: str, net: LossNetwork) -> tuple[int, ...]:
    """The reserves of ``threshold:k_1,...,k_n``, checked: n integers in 0..N, nested."""
    parts = arg.split(",") if arg and len(arg) <= 20 * net.n_classes else []
    if len(parts) != net.n_classes or not all(
        p.isascii() and p.isdigit() and len(p) <= 19 and int(p) <= net.servers for p in parts
    ):
        raise ValueError(
            f"policy 'threshold:k_1,...,k_n' needs n = {net.n_classes} integer reserves in "
            f"0..servers = 0..{net.servers}, got {policy!r}"
        )
    reserves = tuple(int(p) for p in parts)
    if any(a > b for a, b in zip(reserves, reserves[1:], strict=False)):
        raise ValueError(
            "policy 'threshold:k_1,...,k_n' needs nested reserves k_1 <= ... <= k_n, "
            f"got {policy!r}"
        )
    return reserves


def normalised_policy(name: str, param: float | tuple[int, ...]) -> str:
    if name == "threshold":
        reserves = param if isinstance(param, tuple) else (int(param),)
        return "threshold:" + ",".join(str(k) for k in reserves)
    if name == "sss":
        return f"sss:{param!r}"
    return name


def check_net(net: object) -> LossNetwork:
    """``net`` if it is a :class:`LossNetwork`, else the TypeError of
    :func:`~qtheory.model.lossnet.as_network`."""
    return as_network(net)


def check_info(info: object) -> str:
    if not isinstance(info, str) or info not in INFO_MODELS:
        raise ValueError(f"info must be 'clock' or 'job', got {info!r}")
    return info


def check_run(net: LossNetwork, info: str, horizon: float, warmup: float) -> tuple[float, float]:
    check_net(net)
    check_info(info)
    if info == "job" and net.n_classes > 2:
        raise ValueError(
            "info: the job model is simulated for two classes only, got "
            f"info='job' with a {net.n_classes}-class LossNetwork (use info='clock')"
        )
    horizon = positive("horizon", horizon)
    return horizon, check_warmup(warmup, horizon)


def check_warmup(warmup: float, horizon: float) -> float:
    warmup = nonnegative("warmup", warmup)
    if not warmup < horizon:
        raise ValueError(f"warmup must be < horizon, got warmup={warmup}, horizon={horizon}")
    return warmup


def check_job_policy(name: str, policy: str, info: str) -> None:
    if info == "job" and name != "threshold":
        raise ValueError(
            f"policy {policy!r} is not simulated in the job model (threshold:K only; the "
            "job-model offline optimum is a min-cost-flow LP solved in Python: "
            "qtheory.lossnet.offline_job.simulate_offline_job)"
        )
