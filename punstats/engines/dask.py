"""The Dask engine: the local engine's batches on a Dask cluster, results in the same order.

A scheduler address is checked before a ``Client`` is made: its form, then a
probe (connect, handshake, ``identity``) under one deadline, so that an address
that accepts and never answers, or answers with something else (an SSH
banner), or is malformed, is one ``EngineError`` within ``CONNECT_TIMEOUT``.
"""
from __future__ import annotations

import contextlib
from typing import Iterator, List, Optional, Sequence

from punstats.engines.base import (
    EngineError,
    Progress,
    Sink,
    default_jobs,
    distributed_module,
)
from punstats.engines.local import (
    BATCH_BYTES,
    batches,
    candidate_fields,
    collector,
    extract_kinds,
    pattern_failures,
)
from punstats.extract.shipping import Shipped, receive, ship
from punstats.model.discovery import Candidate
from punstats.model.errors import one_line
from punstats.model.kinds import Kind, PatternError
from punstats.model.limits import DEFAULT_MAX_BYTES
from punstats.model.records import Extraction

#: Seconds to reach a scheduler and to wait for a first worker.
CONNECT_TIMEOUT = 30.0


def _refused(address: str, timeout: float) -> None:
    """``EngineError`` at once when nothing listens at a TCP ``address`` (distributed's
    ``connect`` would retry until its timeout); addresses it cannot parse are left to it."""
    import socket

    from distributed.comm.addressing import parse_address, parse_host_port
    try:
        scheme, location = parse_address(address)
        host, port = parse_host_port(location)
    except (ValueError, TypeError):
        return
    if scheme != "tcp":
        return
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except ConnectionRefusedError as exc:
        raise EngineError("cannot connect to the Dask scheduler at %s: %s" % (address, one_line(exc))) from None
    except OSError:
        return  # unreachable, slow, a name that does not resolve: the probe below says which


def probe_scheduler(address: str, timeout: float) -> None:
    """``EngineError`` unless a Dask scheduler answers at ``address`` within ``timeout`` seconds."""
    import asyncio

    from distributed.comm import connect

    _refused(address, timeout)

    async def identity() -> object:
        # distributed's own timeout is the longer one, so that a silent port is always our TimeoutError
        comm = await connect(address, timeout=2 * timeout)
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            comm.abort()

    try:
        reply = asyncio.run(asyncio.wait_for(identity(), timeout))
    except TimeoutError:
        raise EngineError("the Dask scheduler at %s did not answer within %g s" % (address, timeout)) from None
    except ValueError as exc:  # the address itself
        raise EngineError("bad Dask scheduler address %r: %s" % (address, one_line(exc))) from None
    except OSError as exc:
        raise EngineError("cannot connect to the Dask scheduler at %s: %s" % (address, one_line(exc))) from None
    except Exception as exc:  # noqa: BLE001 -- whatever a non-scheduler's bytes make of the protocol
        raise EngineError("%s is not a Dask scheduler: it answered what Dask cannot read (%s: %s)"
                          % (address, type(exc).__name__, one_line(exc))) from None
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        raise EngineError("%s is not a Dask scheduler: it answered %.80r" % (address, reply))


def _worker_identity() -> tuple:
    import platform

    from punstats.extract.notebook import NOTEBOOK_VERSION
    from punstats.extract.traversal import EXTRACTOR_VERSION
    # a worker whose punstats reads no notebooks (or reads them otherwise) differs too
    return ("%d (notebooks %d)" % (EXTRACTOR_VERSION, NOTEBOOK_VERSION), platform.python_implementation(),
            platform.python_version())


def check_workers(client, timeout: float) -> None:
    """Every worker must extract exactly as this process would (same extractor, same parser)."""
    try:
        client.wait_for_workers(1, timeout=timeout)
        identities = client.run(_worker_identity)
    except Exception as exc:  # unpickling punstats on a worker, a timeout, a lost connection
        raise EngineError("the Dask workers cannot run punstats' extractor: %s" % one_line(exc)) from None
    mine = _worker_identity()
    for worker, identity in sorted(identities.items()):
        if tuple(identity) != mine:
            raise EngineError("Dask worker %s runs extractor %s on %s %s; this process runs extractor %s "
                              "on %s %s: results would differ" % (worker, *identity, *mine))


def extract_shipped(batch: Sequence[tuple], max_bytes: int, shipped: Sequence[Shipped] = (),
                    timeout: Optional[float] = None) -> List[Extraction]:
    """A worker's task: ``engines.local.extract_batch``'s, its patterns loaded from the source sent
    (``extract.shipping``); bytes that are not the scan's are each file's ``pattern_error``."""
    candidates = [Candidate(*fields) for fields in batch]
    try:
        kinds = receive(shipped)
    except PatternError as exc:
        return pattern_failures(candidates, exc)
    return extract_kinds(candidates, max_bytes, kinds, timeout)


def _received(shipped: Sequence[Shipped]) -> str:
    """On a worker: why the patterns sent cannot be loaded there ("" when they are)."""
    try:
        receive(shipped)
    except PatternError as exc:
        return str(exc)
    return ""


def check_patterns(client, shipped: Sequence[Shipped]) -> None:
    """Every worker loads the patterns sent (a worker that joins later loads them at its first task)."""
    if not shipped:
        return
    try:
        problems = client.run(_received, shipped)
    except Exception as exc:  # noqa: BLE001 -- a lost connection, a worker that cannot unpickle the call
        raise EngineError("the Dask workers cannot load the patterns: %s" % one_line(exc)) from None
    for worker, problem in sorted(problems.items()):
        if problem:
            raise EngineError("Dask worker %s cannot load the patterns: %s" % (worker, problem))


@contextlib.contextmanager
def local_cluster(jobs: Optional[int] = None) -> Iterator[str]:
    """A Dask ``LocalCluster`` of ``jobs`` single-threaded worker processes; yields its address.

    Reused across scans (``corpus``) so that each does not start its own.
    """
    distributed = distributed_module()
    with distributed.LocalCluster(n_workers=jobs or default_jobs(), threads_per_worker=1, processes=True,
                                  dashboard_address=None,
                                  scheduler_kwargs={"dashboard_address": ":0"}) as cluster:  # any free port
        yield cluster.scheduler_address


def run_dask(candidates: Sequence[Candidate], scheduler: Optional[str] = None, jobs: Optional[int] = None,
             max_bytes: int = DEFAULT_MAX_BYTES, progress: Optional[Progress] = None,
             timeout: Optional[float] = None, batch_bytes: Optional[int] = None,
             on_batch: Optional[Sink] = None, keep: bool = True, patterns: Sequence[Kind] = (),
             pattern_timeout: Optional[float] = None) -> List[Extraction]:
    """Extract every candidate on a Dask cluster; same results, same order as ``run``.

    ``scheduler``: the address of a running scheduler (``tcp://host:8786``);
    None starts a ``LocalCluster`` of ``jobs`` worker processes (default: all
    cores) for this call.  The tasks are ``batches`` of ``extract_batch``:
    workers read files by path (so they need the same file system) and
    receive in-memory candidates (git blobs) as bytes.  Workers need
    punstats installed, with this extractor version and Python version.
    ``timeout``: seconds to connect and to wait for a first worker (default
    ``CONNECT_TIMEOUT``);
    ``batch_bytes``: source bytes per task (default ``BATCH_BYTES``);
    ``on_batch``, ``keep``: as ``run``;
    ``patterns``: user patterns, sent as their files' source (``extract.shipping``) and
    matched on the workers (``pattern_timeout`` seconds per file where a worker can keep it: in its
    main thread; Dask runs tasks in others, so a matcher that never returns holds its task).
    """
    distributed = distributed_module()
    if not candidates:
        return []
    shipped = ship(patterns)
    timeout = CONNECT_TIMEOUT if timeout is None else timeout
    if scheduler is not None:
        probe_scheduler(scheduler, timeout)
    slots, take = collector(len(candidates), progress, on_batch, keep)
    with contextlib.ExitStack() as stack:
        address = scheduler if scheduler is not None else stack.enter_context(local_cluster(jobs))
        try:
            client = stack.enter_context(distributed.Client(address, timeout=timeout, set_as_default=False))
        except Exception as exc:  # noqa: BLE001 -- it answered the probe, then went away
            raise EngineError("cannot connect to the Dask scheduler at %s: %s" % (address, one_line(exc))) from None
        check_workers(client, timeout)
        check_patterns(client, shipped)
        futures = {client.submit(extract_shipped, [candidate_fields(candidates[i]) for i in group], max_bytes,
                                 shipped, pattern_timeout or None, pure=False): group
                   for group in batches(candidates, batch_bytes or BATCH_BYTES)}
        try:
            for future in distributed.as_completed(futures, loop=client.loop):
                take(futures.pop(future), future.result())
        except distributed.KilledWorker as exc:
            raise EngineError("a Dask worker died while extracting: %s" % one_line(exc)) from None
    return slots  # type: ignore[return-value]

