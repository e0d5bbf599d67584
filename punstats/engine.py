"""Running the per-file extraction over many files: in process or in a process pool.

Whatever the number of workers, results come back in the discovery order,
so stored results are identical for any ``jobs``.  Large files are handed
out first and small ones are batched, which keeps both cores busy without
paying inter-process overhead per file.  ``run_dask`` sends the same
batches to a Dask cluster instead (``dask[distributed]``, imported only then).
"""
from __future__ import annotations

import contextlib
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Callable, Iterator, List, Optional, Sequence, Union

from punstats.discover import UNREADABLE, Candidate, read_source
from punstats.extract import DEFAULT_MAX_BYTES, Extraction, extract, failure

#: Below this many files a pool costs more than it saves.
MIN_FILES_FOR_POOL = 64
#: Target bytes of source per task sent to a worker.
BATCH_BYTES = 512 * 1024

Progress = Callable[[int], None]
#: Called in this process as results arrive: (candidate indices, their extractions).
Sink = Callable[[Sequence[int], Sequence[Extraction]], None]


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def candidate_bytes(candidate: Candidate, max_bytes: int = DEFAULT_MAX_BYTES) -> Union[bytes, Extraction]:
    """A candidate's bytes (read now unless it carries them), or, when it has
    none to give, the failed extraction that records why."""
    if candidate.status:
        return failure(candidate.path, candidate.status, candidate.error, size=candidate.size)
    if candidate.data is not None:
        return candidate.data
    try:
        return read_source(candidate.location, max_bytes)
    except OSError as exc:
        return failure(candidate.path, UNREADABLE, exc.strerror or str(exc), size=candidate.size)


def extract_candidate(candidate: Candidate, max_bytes: int = DEFAULT_MAX_BYTES) -> Extraction:
    """Read and extract one candidate; never raises for a bad file."""
    data = candidate_bytes(candidate, max_bytes)
    return data if isinstance(data, Extraction) else extract(candidate.path, data, max_bytes)


def _extract_batch(batch: Sequence[Candidate], max_bytes: int) -> List[Extraction]:
    return [extract_candidate(candidate, max_bytes) for candidate in batch]


def batches(candidates: Sequence[Candidate], batch_bytes: int = BATCH_BYTES) -> List[List[int]]:
    """Indices of ``candidates`` grouped into tasks, largest files first."""
    order = sorted(range(len(candidates)), key=lambda i: (-candidates[i].size, i))
    groups: List[List[int]] = []
    current: List[int] = []
    total = 0
    for index in order:
        current.append(index)
        total += candidates[index].size
        if total >= batch_bytes:
            groups.append(current)
            current, total = [], 0
    if current:
        groups.append(current)
    return groups


def _collector(count: int, progress: Optional[Progress], on_batch: Optional[Sink]):
    """(slots, take): ``take(indices, extractions)`` files results as they
    arrive, in any order, into ``slots`` (in candidate order)."""
    slots: List[Optional[Extraction]] = [None] * count

    def take(group: Sequence[int], extractions: Sequence[Extraction]) -> None:
        for index, extraction in zip(group, extractions):
            slots[index] = extraction
        if on_batch:
            on_batch(group, extractions)
        if progress:
            progress(len(group))
    return slots, take


def run(candidates: Sequence[Candidate], jobs: Optional[int] = None,
        max_bytes: int = DEFAULT_MAX_BYTES, progress: Optional[Progress] = None,
        on_batch: Optional[Sink] = None) -> List[Extraction]:
    """Extract every candidate; the result is in the order of ``candidates``.

    ``on_batch`` sees the results as they arrive (e.g. to store them before
    the run ends)."""
    jobs = default_jobs() if jobs is None else jobs
    if jobs < 1:
        raise ValueError("jobs must be at least 1")
    slots, take = _collector(len(candidates), progress, on_batch)
    if jobs == 1 or len(candidates) < MIN_FILES_FOR_POOL:
        for index, candidate in enumerate(candidates):
            take([index], [extract_candidate(candidate, max_bytes)])
        return slots  # type: ignore[return-value]
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = {pool.submit(_extract_batch, [candidates[i] for i in group], max_bytes): group
                   for group in batches(candidates)}
        for future in as_completed(futures):
            take(futures[future], future.result())
    return slots  # type: ignore[return-value]


# -- the Dask engine: the same batches on a Dask cluster ----------------------

#: Engines ``api.scan`` accepts.
ENGINES = ("local", "dask")


class EngineError(ValueError):
    """An engine that cannot run (not installed, cluster unreachable); the message is for the user."""


def _distributed():
    """``distributed``, imported only when the Dask engine is asked for."""
    try:
        import distributed
    except ImportError:
        raise EngineError("--engine dask needs dask[distributed], which is not installed: "
                          "pip install 'punstats[dask]'") from None
    return distributed


def check_engine(name: str) -> None:
    """``EngineError`` unless ``name`` is an engine that can run here."""
    if name not in ENGINES:
        raise EngineError("unknown engine %r (choose from %s)" % (name, ", ".join(ENGINES)))
    if name == "dask":
        _distributed()


def _worker_identity() -> tuple:
    import platform

    from punstats.extract import EXTRACTOR_VERSION
    return (EXTRACTOR_VERSION, platform.python_implementation(), platform.python_version())


def _check_workers(client, timeout: float) -> None:
    """Every worker must extract exactly as this process would (same extractor, same parser)."""
    try:
        client.wait_for_workers(1, timeout=timeout)
        identities = client.run(_worker_identity)
    except Exception as exc:  # unpickling punstats on a worker, a timeout, a lost connection
        raise EngineError("the Dask workers cannot run punstats' extractor: %s"
                          % (" ".join(str(exc).split()) or type(exc).__name__)) from None
    mine = _worker_identity()
    for worker, identity in sorted(identities.items()):
        if tuple(identity) != mine:
            raise EngineError("Dask worker %s runs extractor %s on %s %s; this process runs extractor %s "
                              "on %s %s: results would differ" % (worker, *identity, *mine))


@contextlib.contextmanager
def local_cluster(jobs: Optional[int] = None) -> Iterator[str]:
    """A Dask ``LocalCluster`` of ``jobs`` single-threaded worker processes; yields its address.

    Reused across scans (``corpus``) so that each does not start its own.
    """
    distributed = _distributed()
    with distributed.LocalCluster(n_workers=jobs or default_jobs(), threads_per_worker=1, processes=True,
                                  dashboard_address=None,
                                  scheduler_kwargs={"dashboard_address": ":0"}) as cluster:  # any free port
        yield cluster.scheduler_address


def run_dask(candidates: Sequence[Candidate], scheduler: Optional[str] = None, jobs: Optional[int] = None,
             max_bytes: int = DEFAULT_MAX_BYTES, progress: Optional[Progress] = None,
             timeout: float = 30, batch_bytes: Optional[int] = None,
             on_batch: Optional[Sink] = None) -> List[Extraction]:
    """Extract every candidate on a Dask cluster; same results, same order as ``run``.

    ``scheduler``: the address of a running scheduler (``tcp://host:8786``);
    None starts a ``LocalCluster`` of ``jobs`` worker processes (default: all
    cores) for this call.  The tasks are ``batches`` of ``_extract_batch``:
    workers read files by path (so they need the same file system) and
    receive in-memory candidates (git blobs) as bytes.  Workers need
    punstats installed, with this extractor version and Python version.
    ``timeout``: seconds to connect and to wait for a first worker;
    ``batch_bytes``: source bytes per task (default ``BATCH_BYTES``).
    """
    distributed = _distributed()
    if not candidates:
        return []
    slots, take = _collector(len(candidates), progress, on_batch)
    with contextlib.ExitStack() as stack:
        address = scheduler if scheduler is not None else stack.enter_context(local_cluster(jobs))
        try:
            client = stack.enter_context(distributed.Client(address, timeout=timeout, set_as_default=False))
        except (OSError, TimeoutError, ValueError) as exc:
            raise EngineError("cannot connect to the Dask scheduler at %s: %s"
                              % (scheduler, " ".join(str(exc).split()) or type(exc).__name__)) from None
        _check_workers(client, timeout)
        futures = {client.submit(_extract_batch, [candidates[i] for i in group], max_bytes, pure=False): group
                   for group in batches(candidates, batch_bytes or BATCH_BYTES)}
        try:
            for future in distributed.as_completed(futures, loop=client.loop):
                take(futures[future], future.result())
        except distributed.KilledWorker as exc:
            raise EngineError("a Dask worker died while extracting: %s" % " ".join(str(exc).split())) from None
    return slots  # type: ignore[return-value]
