"""One interface for running sweeps: in-process, on a local process pool, or on a Dask cluster.

A sweep is a list of *tasks*, each a dict of plain JSON values (parameters and a seed), and a
module-level *task function* that maps one task to a JSON-serialisable dict.  Every executor
has the same method ``map(fn, tasks)``, which returns ``[fn(task) for task in tasks]`` in
task order however the work was spread out, shows a progress bar over completions, and
re-raises the first exception a task raised, annotated (``add_note``) with that task.

Backends (choose with :func:`make_executor`)
--------------------------------------------
:class:`SerialExecutor`
    Runs every task in the calling process, in order; nothing is pickled.
:class:`ProcessExecutor`
    A :class:`concurrent.futures.ProcessPoolExecutor`, one pool per ``map`` call.  Workers
    start with the ``forkserver`` method where the platform has it (Linux and the other
    POSIX systems) and ``spawn`` elsewhere, never ``fork``.  A forked child copies the
    parent's memory, locks included, but only the thread that forked: a lock held at that
    moment stays locked in the child, where no thread will ever release it.  Locks held by
    other threads are common here - the threads of :func:`qtheory.sim.simulate`
    (``workers > 1``) hold a bit generator's lock while the C simulator runs without the
    GIL, tqdm runs a monitor thread, a Dask client runs an event-loop thread - and a child
    that touched such a lock would hang.  The fork server is a fresh interpreter started by
    exec that runs no threads (it only imports the main script, when there is one), so its
    children inherit no lock state; each child imports the task's module itself, with the
    parent's ``sys.path``.  As with ``spawn``, a script's ``__main__`` is re-imported as
    ``__mp_main__``, so scripts need the usual ``if __name__ == "__main__":`` guard.

    Workers exit when the process that made the pool dies.  Their parent is the fork
    server, not the caller, and a worker waiting for its next task holds both ends of the
    pool's pipes, so nothing would ever tell a worker that the caller was killed (SIGKILL,
    the OOM killer): the workers, the fork server and the resource tracker (which wait for
    the workers) would stay alive, a few hundred MB each.  So every worker starts a daemon
    thread (:func:`watch_parent`) that waits on a pidfd of the caller (Linux) or polls it
    every :data:`WATCH_INTERVAL` seconds elsewhere, and ends the worker with
    :func:`os._exit` when the caller is gone; the fork server and the resource tracker
    then see their pipes close and exit too.
:class:`DaskExecutor`
    A ``distributed.Client``: every task is a Dask future; the workers must be able to
    import the task function (install qtheory on them).  Needs the ``cluster`` extra
    (``pip install 'qtheory[cluster]'``).

Examples
--------
>>> with make_executor(workers=1) as executor:
...     executor.map(dict, [{"seed": 1}, {"seed": 2}], progress=False)
[{'seed': 1}, {'seed': 2}]
"""

from __future__ import annotations

import math
import multiprocessing
import os
import select
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from typing import Any
from urllib.parse import urlsplit

from tqdm import tqdm

from qtheory.core.validation import positive, positive_int

__all__ = [
    "CONNECT_TIMEOUT",
    "ClusterUnreachableError",
    "DaskExecutor",
    "Executor",
    "ProcessExecutor",
    "SerialExecutor",
    "TaskFunction",
    "check_cluster_address",
    "default_workers",
    "make_executor",
    "start_method",
    "watch_parent",
]

#: Seconds :func:`make_executor` waits for a Dask scheduler to answer.
CONNECT_TIMEOUT = 10.0
#: Seconds between two checks that the pool's creator is alive, where there is no pidfd.
WATCH_INTERVAL = 0.5

Task = dict[str, Any]
TaskFunction = Callable[[Task], dict[str, Any]]
ResultCallback = Callable[[int, dict[str, Any]], None]
Outcome = Callable[[], dict[str, Any]]  # returns the task's result or raises its exception


def default_workers() -> int:
    """CPUs this process may run on (its affinity mask where the OS has one, which is
    what a container or ``taskset`` limits), else :func:`os.cpu_count`.

    Returns
    -------
    int
        At least 1.

    Examples
    --------
    >>> default_workers() >= 1
    True
    """
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def start_method() -> str:
    """The multiprocessing start method of the process pools.

    Returns
    -------
    str
        ``"forkserver"`` where available, else ``"spawn"`` (never ``"fork"``; see the
        module docstring for why).

    Examples
    --------
    >>> start_method() in ("forkserver", "spawn")
    True
    """
    available = multiprocessing.get_all_start_methods()
    return "forkserver" if "forkserver" in available else "spawn"


class Executor:
    """The common interface: :meth:`map`, and :meth:`close` (also via ``with``).

    Subclasses implement ``_outcomes`` (yield ``(index, outcome)`` as tasks complete);
    :class:`SerialExecutor`, :class:`ProcessExecutor` and :class:`DaskExecutor` are the
    backends, chosen by :func:`make_executor`.

    Raises
    ------
    NotImplementedError
        From :meth:`map` on the base class itself (it has no backend).

    Examples
    --------
    >>> with make_executor(workers=1) as executor:
    ...     isinstance(executor, Executor), executor.map(dict, [{"x": 1}], progress=False)
    (True, [{'x': 1}])
    """

    def map(
        self,
        fn: TaskFunction,
        tasks: Iterable[Task],
        *,
        desc: str | None = None,
        progress: bool = True,
        on_result: ResultCallback | None = None,
        weights: Sequence[float] | None = None,
    ) -> list[dict[str, Any]]:
        """Return ``[fn(task) for task in tasks]``, computed by this backend.

        Parameters
        ----------
        fn : callable
            A module-level function (importable by name in a worker) taking one task.
        tasks : iterable of dict
            The tasks; plain JSON values.
        desc : str, optional
            Label of the progress bar.
        progress : bool
            Show a tqdm progress bar (on stderr) that advances as tasks complete.
        on_result : callable, optional
            Called in the calling process as ``on_result(index, result)`` as soon as each
            task completes, in completion order (used to cache results before the whole
            sweep ends).
        weights : sequence of float, optional
            The expected cost of each task (any unit, >= 0, not all 0): the bar advances
            by a task's weight when it completes, so its ETA holds when the tasks differ
            (a sweep handing out its heavy tasks first would otherwise promise hours).
            Default: every task weighs 1.

        Returns
        -------
        list of dict
            The results, in the order of ``tasks``.

        Raises
        ------
        Exception
            The first exception a task raised (in completion order), with a note naming the
            task; tasks not yet started are cancelled.

        Examples
        --------
        >>> seen = []
        >>> SerialExecutor().map(dict, [{"a": 1}, {"a": 2}], progress=False,
        ...                      on_result=lambda i, result: seen.append(i))
        [{'a': 1}, {'a': 2}]
        >>> seen
        [0, 1]
        """
        tasks = list(tasks)
        weights = task_weights(weights, len(tasks))
        if not tasks:
            return []
        return _collect(self._outcomes(fn, tasks), tasks, desc, progress, on_result, weights)

    def _outcomes(self, fn: TaskFunction, tasks: list[Task]) -> Iterator[tuple[int, Outcome]]:
        """Yield ``(index, outcome)`` as tasks complete; clean up when closed early."""
        raise NotImplementedError

    def close(self) -> None:
        """Release the backend's resources (nothing to release by default).

        Called on leaving a ``with`` block.

        Examples
        --------
        >>> executor = SerialExecutor()
        >>> executor.close() is None
        True
        """

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


#: A progress bar over weighted work: the share done and the time left at the speed
#: observed so far (tqdm's rate over the weights).
WEIGHTED_BAR = "{l_bar}{bar}| {percentage:3.0f}% [{elapsed}<{remaining}{postfix}]"


def task_weights(weights: Sequence[float] | None, count: int) -> list[float]:
    """``weights`` checked against ``count`` tasks (finite, >= 0, not all 0 unless there
    are no tasks); None: 1 each.

    >>> task_weights(None, 2), task_weights([3, 0.5], 2)
    ([1.0, 1.0], [3.0, 0.5])
    >>> task_weights([1.0], 2)
    Traceback (most recent call last):
    ...
    ValueError: weights must hold one finite weight >= 0 per task (2 tasks), got [1.0]
    """
    if weights is None:
        return [1.0] * count
    values = [float(w) for w in weights] if isinstance(weights, Sequence) else []
    if (
        len(values) != count
        or not all(math.isfinite(w) and w >= 0 for w in values)
        or (count and not sum(values) > 0)
    ):
        raise ValueError(
            f"weights must hold one finite weight >= 0 per task ({count} tasks), "
            f"got {weights!r:.80}"
        )
    return values


def _collect(
    outcomes: Iterator[tuple[int, Outcome]],
    tasks: list[Task],
    desc: str | None,
    progress: bool,
    on_result: ResultCallback | None,
    weights: list[float],
) -> list[dict[str, Any]]:
    results: list[Any] = [None] * len(tasks)
    with tqdm(total=sum(weights), desc=desc, bar_format=WEIGHTED_BAR, disable=not progress) as bar:
        try:
            for index, outcome in outcomes:
                try:
                    results[index] = outcome()
                    if on_result is not None:
                        on_result(index, results[index])
                except Exception as error:
                    error.add_note(f"task {index} of {len(tasks)}: {tasks[index]!r}")
                    raise
                bar.update(weights[index])
        finally:
            close = getattr(outcomes, "close", None)
            if close is not None:
                close()  # runs the generator's cleanup now, not at garbage collection
    return results


class SerialExecutor(Executor):
    """Run every task in the calling process, in order (no pickling, no workers).

    Examples
    --------
    >>> SerialExecutor().map(dict, [{"n": 1}], progress=False)
    [{'n': 1}]
    """

    def _outcomes(self, fn: TaskFunction, tasks: list[Task]) -> Iterator[tuple[int, Outcome]]:
        for index, task in enumerate(tasks):
            yield index, lambda task=task: fn(task)

    def __repr__(self) -> str:
        return "SerialExecutor()"


def watch_parent(pid: int) -> threading.Thread:
    """Start a daemon thread that ends this process (:func:`os._exit`, status 1) once the
    process ``pid`` has exited; the initializer of every :class:`ProcessExecutor` worker.

    On Linux the thread blocks on a pidfd of ``pid`` (:func:`os.pidfd_open`, Linux 5.3),
    which becomes readable when that process exits and cannot be fooled by a reused
    process id; elsewhere it checks every :data:`WATCH_INTERVAL` seconds whether
    ``pid`` still exists (:func:`os.kill` with signal 0).  If ``pid`` is already gone the
    process exits at once.

    Parameters
    ----------
    pid : int
        The process to outlive no longer than it takes to notice (the pool's creator).

    Returns
    -------
    threading.Thread
        The started watchdog thread (a daemon: it never keeps the process alive).

    Raises
    ------
    ValueError
        If ``pid`` is not an integer >= 1.

    Examples
    --------
    >>> watch_parent(os.getpid()).is_alive()  # this process is alive: nothing happens
    True
    """
    pid = positive_int("pid", pid)
    try:
        handle = os.pidfd_open(pid) if hasattr(os, "pidfd_open") else None
    except ProcessLookupError:
        os._exit(1)  # the creator died before this worker started
    except OSError:  # no pidfd support (old kernel, seccomp): poll instead
        handle = None
    thread = threading.Thread(
        target=_wait_for_exit, args=(pid, handle), name="qtheory-watch-parent", daemon=True
    )
    thread.start()
    return thread


def _wait_for_exit(pid: int, handle: int | None) -> None:
    """Block until process ``pid`` exits (pidfd ``handle``, else polling), then exit."""
    if handle is not None:
        select.select([handle], [], [])
    else:
        while _exists(pid):
            time.sleep(WATCH_INTERVAL)
    os._exit(1)


def _exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by someone else
        return True
    return True


class ProcessExecutor(Executor):
    """Run tasks on ``workers`` local processes.

    A new pool for each :meth:`map` call, started with :func:`start_method`, at most one
    worker per task; each worker runs :func:`watch_parent` on the calling process, so no
    worker outlives it (see the module docstring).

    Parameters
    ----------
    workers : int, optional
        Processes, ``>= 1``; default :func:`default_workers`.

    Raises
    ------
    ValueError
        If ``workers`` is not an integer >= 1.

    Examples
    --------
    >>> ProcessExecutor(workers=2)
    ProcessExecutor(workers=2)
    """

    def __init__(self, workers: int | None = None) -> None:
        self.workers = default_workers() if workers is None else positive_int("workers", workers)

    def _outcomes(self, fn: TaskFunction, tasks: list[Task]) -> Iterator[tuple[int, Outcome]]:
        context = multiprocessing.get_context(start_method())
        pool = ProcessPoolExecutor(
            min(self.workers, len(tasks)),
            mp_context=context,
            initializer=watch_parent,
            initargs=(os.getpid(),),
        )
        try:
            index: dict[Future, int] = {pool.submit(fn, task): i for i, task in enumerate(tasks)}
            for future in as_completed(index):
                yield index[future], future.result
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def __repr__(self) -> str:
        return f"ProcessExecutor(workers={self.workers})"


class DaskExecutor(Executor):
    """Run tasks on a Dask cluster through a ``distributed.Client``.

    Parameters
    ----------
    client : distributed.Client
        A connected client, e.g. ``Client("tcp://scheduler:8786")`` or
        ``Client(LocalCluster())``.
    close_client : bool
        Close ``client`` in :meth:`close` (True when :func:`make_executor` created it).

    Raises
    ------
    ValueError
        If ``client`` is not a ``distributed.Client``.
    ImportError
        If ``distributed`` (the ``cluster`` extra) is not installed.

    Examples
    --------
    >>> import distributed
    >>> with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=":0"
    ...                               ) as cluster, distributed.Client(cluster) as client:
    ...     DaskExecutor(client).map(dict, [{"seed": 1}], progress=False)
    [{'seed': 1}]
    """

    def __init__(self, client: Any, *, close_client: bool = False) -> None:
        distributed = _import_distributed()
        if not isinstance(client, distributed.Client):
            raise ValueError(f"client must be a distributed.Client, got {client!r}")
        self.client = client
        self.close_client = close_client

    def _outcomes(self, fn: TaskFunction, tasks: list[Task]) -> Iterator[tuple[int, Outcome]]:
        distributed = _import_distributed()
        futures = self.client.map(fn, tasks, pure=False)
        index = {future.key: i for i, future in enumerate(futures)}
        try:
            done = distributed.as_completed(futures, with_results=True, raise_errors=False)
            for future, result in done:
                yield index[future.key], _dask_outcome(future, result)
        finally:
            self.client.cancel(futures)  # frees finished results; stops unfinished tasks

    def close(self) -> None:
        """Close the client if this executor created it (``close_client=True``, as
        :func:`make_executor` does for an address); a client passed in stays open.

        Examples
        --------
        >>> import distributed
        >>> with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=":0"
        ...                               ) as cluster, distributed.Client(cluster) as client:
        ...     DaskExecutor(client).close()
        ...     client.status
        'running'
        """
        if self.close_client:
            self.client.close()

    def __repr__(self) -> str:
        return f"DaskExecutor({self.client.scheduler.address!r})"


def _dask_outcome(future: Any, result: Any) -> Outcome:
    """Turn an item of ``as_completed(..., with_results=True, raise_errors=False)`` into an
    outcome: a failed future comes with ``(type, exception, traceback)``, a cancelled one
    with its ``CancelledError``."""
    if future.status == "error":
        _, error, traceback = result
        error = error.with_traceback(traceback)
    elif isinstance(result, BaseException):
        error = result
    else:
        return lambda: result

    def reraise() -> dict[str, Any]:
        raise error

    return reraise


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError as error:
        raise ImportError(
            "a Dask cluster needs the 'distributed' package, which is qtheory's 'cluster' "
            "extra: pip install 'qtheory[cluster]'"
        ) from error
    return distributed


def check_cluster_address(address: str) -> str:
    """Return ``address`` after checking it names a Dask scheduler: ``scheme://host:port``
    with a scheme that ``distributed`` has a transport for (``tcp``, ``tls``, ``ws``,
    ``wss``, ...), or ``inproc://...`` (in-process clusters).  The scheme is required.

    Parameters
    ----------
    address : str
        The address to check.

    Returns
    -------
    str
        ``address`` unchanged.

    Raises
    ------
    ValueError
        If ``address`` is not such an address (the message shows the expected form).

    Examples
    --------
    >>> check_cluster_address("tcp://10.0.0.5:8786")
    'tcp://10.0.0.5:8786'
    >>> check_cluster_address("10.0.0.5:8786")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: cluster must be a scheduler address like 'tcp://host:port', ...
    """
    from distributed.comm.registry import backends

    rule = (
        "cluster must be a scheduler address like 'tcp://host:port', with a scheme in "
        f"{sorted(backends)}; got {address!r}"
    )
    if not isinstance(address, str):
        raise ValueError(rule)
    scheme, separator, location = address.partition("://")
    if not separator or scheme not in backends or not location:
        raise ValueError(rule)
    if scheme != "inproc":
        parts = urlsplit(address)
        try:
            port = parts.port
        except ValueError:  # not an integer in 0..65535
            port = None
        if not parts.hostname or not port:
            raise ValueError(rule)
    return address


class ClusterUnreachableError(ValueError):
    """No Dask scheduler answered at the address given as ``cluster`` (a ValueError: the
    address the caller gave leads nowhere).

    Attributes
    ----------
    address : str
        The scheduler address tried.
    timeout : float
        Seconds waited.
    reason : str
        What the connection attempt reported.

    Examples
    --------
    >>> error = ClusterUnreachableError("tcp://127.0.0.1:1", 10.0, "connection refused")
    >>> isinstance(error, ValueError), str(error).startswith("cluster: no Dask scheduler")
    (True, True)
    """

    def __init__(self, address: str, timeout: float, reason: str) -> None:
        self.address, self.timeout, self.reason = address, timeout, reason
        super().__init__(
            f"cluster: no Dask scheduler answered at {address!r} within {timeout:g} s "
            f"({reason}); start one (dask scheduler) or check the address"
        )


def _connect(address: str, timeout: float) -> Any:
    """A ``distributed.Client`` of the scheduler at ``address``, or
    :class:`ClusterUnreachableError` after ``timeout`` seconds."""
    distributed = _import_distributed()
    try:
        return distributed.Client(address, timeout=timeout)
    except (OSError, TimeoutError) as error:  # refused, unreachable, timed out
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise ClusterUnreachableError(address, timeout, reason) from error


def make_executor(
    cluster: Any = None, *, workers: int | None = None, timeout: float | None = None
) -> Executor:
    """The executor for a sweep: Dask when ``cluster`` is given, else a local pool.

    Parameters
    ----------
    cluster : None, str or distributed.Client
        ``None``: run locally.  A scheduler address (``"tcp://host:port"``, see
        :func:`check_cluster_address`): connect a new client now, closed by
        :meth:`Executor.close`.  A ``distributed.Client``: use it (it stays open).
    workers : int, optional
        Local processes, ``>= 1``; default :func:`default_workers`.  ``workers=1`` runs in
        the calling process (:class:`SerialExecutor`).  Not allowed with ``cluster``
        (the cluster has its own workers).
    timeout : float, optional
        Seconds to wait for the scheduler at a ``cluster`` address to answer; default
        :data:`CONNECT_TIMEOUT`.

    Returns
    -------
    Executor
        :class:`SerialExecutor`, :class:`ProcessExecutor` or :class:`DaskExecutor`.

    Raises
    ------
    ValueError
        ``workers < 1``, ``workers`` together with ``cluster``, a malformed address, or
        ``timeout`` not > 0.
    ClusterUnreachableError
        (a ValueError) no scheduler answered at the address within ``timeout`` seconds.
    ImportError
        ``cluster`` given but ``distributed`` (the ``cluster`` extra) is not installed.

    Examples
    --------
    >>> make_executor(workers=1), make_executor(workers=3)
    (SerialExecutor(), ProcessExecutor(workers=3))
    >>> make_executor(workers=0)
    Traceback (most recent call last):
    ...
    ValueError: workers must be >= 1, got 0
    """
    if cluster is None:
        workers = default_workers() if workers is None else positive_int("workers", workers)
        return SerialExecutor() if workers == 1 else ProcessExecutor(workers)
    if workers is not None:
        raise ValueError(
            f"workers applies to the local pool only; with cluster={cluster!r} the cluster's "
            "own workers run the tasks, so leave workers unset"
        )
    timeout = positive("timeout", CONNECT_TIMEOUT if timeout is None else timeout)
    distributed = _import_distributed()
    if isinstance(cluster, distributed.Client):
        return DaskExecutor(cluster)
    if not isinstance(cluster, str):
        raise ValueError(
            f"cluster must be None, a scheduler address string or a distributed.Client, "
            f"got {cluster!r}"
        )
    client = _connect(check_cluster_address(cluster), timeout)
    return DaskExecutor(client, close_client=True)
