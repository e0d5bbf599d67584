"""Running the per-file extraction over many files: in process or in a process pool.

Whatever the number of workers, results come back in the discovery order,
so stored results are identical for any ``jobs``.  Large files are handed
out first and small ones are batched, which keeps both cores busy without
paying inter-process overhead per file.  ``run_dask`` sends the same
batches to a Dask cluster instead (``dask[distributed]``, imported only then).

A worker that dies (killed, as the out-of-memory killer does) breaks the whole
pool; the batches whose results had not come are retried once, each alone in
a fresh one-worker pool, and the files of a batch that kills its worker again
are recorded as ``worker_died``; the run goes on.  Never more than
``MAX_JOBS`` workers: more processes than cores only cost memory and start-up.

``Workers`` forks the pool before there is anything to extract: a scan starts
it as soon as discovery has found ``MIN_FILES_FOR_POOL`` files, before it looks
for the rest, so that the workers do not inherit (and the memory of the process
tree does not count once per worker) the list of every discovered file.
Candidates travel to the workers as plain tuples: pickling the records
themselves would give each one a ``__dict__`` that stays.

Every worker dies with the process that forked it (``model.processes.die_with_parent``,
its pid passed down, so a parent that died first is seen too): a scan killed
with ``kill -9`` leaves no worker behind holding its output pipe.  Pools are
forked by the thread that uses them (the run's), which outlives them.
"""
from __future__ import annotations

import contextlib
import dataclasses
import itertools
import multiprocessing
import operator
import os
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Dict, List, Optional, Sequence

from punstats.discover.read import candidate_bytes
from punstats.engines.base import MAX_JOBS, Progress, Sink, default_jobs
from punstats.extract import plugins
from punstats.extract.plugins import Wire
from punstats.extract.traversal import extract
from punstats.model.discovery import Candidate
from punstats.model.kinds import Kind, PatternError
from punstats.model.limits import DEFAULT_MAX_BYTES
from punstats.model.processes import die_with_parent
from punstats.model.records import Extraction, failure
from punstats.model.statuses import PATTERN_ERROR, WORKER_DIED

#: Below this many files a pool costs more than it saves.
MIN_FILES_FOR_POOL = 64


#: Batches sent ahead per worker: enough to keep it busy, few enough to hold little.
IN_FLIGHT_PER_WORKER = 3


#: Target bytes of source per task sent to a worker.
BATCH_BYTES = 512 * 1024


WORKER_DIED_REASON = ("the worker process extracting this file's batch died twice "
                      "(killed, e.g. by the out-of-memory killer)")


def extract_candidate(candidate: Candidate, max_bytes: int = DEFAULT_MAX_BYTES,
                      patterns: Sequence[Kind] = ()) -> Extraction:
    """Read and extract one candidate (matching ``patterns``, loaded); never raises for a bad file."""
    data = candidate_bytes(candidate, max_bytes)
    return data if isinstance(data, Extraction) else extract(candidate.path, data, max_bytes, patterns)


def _extract_batch(batch: Sequence[tuple], max_bytes: int, patterns: Sequence[Wire] = ()) -> List[Extraction]:
    """A worker's task; ``patterns`` as ``plugins.wire`` sends them, loaded here (once per process)."""
    candidates = [Candidate(*fields) for fields in batch]
    try:
        kinds = plugins.resolve(patterns)
    except PatternError as exc:  # e.g. the plugin file was edited while the scan ran
        return [failure(c.path, PATTERN_ERROR, str(exc), size=c.size) for c in candidates]
    return [extract_candidate(candidate, max_bytes, kinds) for candidate in candidates]


#: ``candidate`` as the tuple ``_extract_batch`` takes (``Candidate(*fields)``), in field order.
_fields = operator.attrgetter(*(field.name for field in dataclasses.fields(Candidate)))


def _context():
    return multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)


def new_pool(jobs: int) -> ProcessPoolExecutor:
    """A process pool of ``jobs`` workers (fork where there is fork) that die with this process."""
    return ProcessPoolExecutor(jobs, _context(), initializer=die_with_parent,
                               initargs=(os.getpid(),))


class Workers:
    """A pool of ``jobs`` worker processes, started by ``start`` (while the corpus
    is discovered) and used by ``run``; closed on leaving the ``with`` block.  A pool
    that broke (a worker died) is not used again."""

    def __init__(self, jobs: Optional[int] = None) -> None:
        self.jobs = min(default_jobs() if jobs is None else jobs, MAX_JOBS)
        self.pool: Optional[ProcessPoolExecutor] = None

    def start(self) -> "Workers":
        if self.pool is None and self.jobs > 1:
            self.pool = new_pool(self.jobs)
            self.pool.submit(int).result()  # a fork pool starts every worker at its first task
        return self

    def take(self) -> Optional[ProcessPoolExecutor]:
        """The started pool, if it is still sound."""
        return None if self.pool is None or getattr(self.pool, "_broken", False) else self.pool

    def __enter__(self) -> "Workers":
        return self

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None


def batches(candidates: Sequence[Candidate], batch_bytes: Optional[int] = None) -> List[List[int]]:
    """Indices of ``candidates`` grouped into tasks of about ``batch_bytes`` (default
    ``BATCH_BYTES``), largest files first."""
    batch_bytes = batch_bytes or BATCH_BYTES
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


def _collector(count: int, progress: Optional[Progress], on_batch: Optional[Sink], keep: bool = True):
    """(slots, take): ``take(indices, extractions)`` files results as they
    arrive, in any order, into ``slots`` (in candidate order), unless not
    ``keep`` (then ``slots`` stays empty), and hands them to ``on_batch``."""
    slots: List[Optional[Extraction]] = [None] * count if keep else []

    def take(group: Sequence[int], extractions: Sequence[Extraction]) -> None:
        if keep:
            for index, extraction in zip(group, extractions):
                slots[index] = extraction
        if on_batch:
            on_batch(group, extractions)
        if progress:
            progress(len(group))
    return slots, take


def run(candidates: Sequence[Candidate], jobs: Optional[int] = None,
        max_bytes: int = DEFAULT_MAX_BYTES, progress: Optional[Progress] = None,
        on_batch: Optional[Sink] = None, keep: bool = True,
        workers: Optional[Workers] = None, patterns: Sequence[Kind] = ()) -> List[Extraction]:
    """Extract every candidate; the result is in the order of ``candidates``.

    ``on_batch`` sees the results as they arrive (e.g. to store them before
    the run ends); with ``keep=False`` they go only there, the result is
    empty and nothing is held here.  ``workers``: the pool to use (started
    here when it is not yet, and kept for the next run; without it, a pool of ``jobs``
    workers is forked for this run only).  ``patterns``: user
    patterns to match too; workers load them again from their source
    (``plugins.resolve``: a forked worker has them already)."""
    jobs = default_jobs() if jobs is None else jobs
    if jobs < 1:
        raise ValueError("jobs must be at least 1")
    slots, take = _collector(len(candidates), progress, on_batch, keep)
    if jobs == 1 or len(candidates) < MIN_FILES_FOR_POOL:
        for index, candidate in enumerate(candidates):
            take([index], [extract_candidate(candidate, max_bytes, patterns)])
        return slots  # type: ignore[return-value]
    if workers is not None and workers.pool is None:  # not started yet: started for this run and the next
        workers.start()
    started = workers.take() if workers is not None else None
    sent = plugins.wire(patterns)
    lost = _run_pool(candidates, batches(candidates), min(jobs, MAX_JOBS), max_bytes, take, started, sent)
    for group in lost:  # once more, each alone, so that one bad batch cannot take others down
        if not _run_pool(candidates, [group], 1, max_bytes, take, patterns=sent):
            continue
        take(group, [failure(candidates[i].path, WORKER_DIED, WORKER_DIED_REASON, size=candidates[i].size)
                     for i in group])
    return slots  # type: ignore[return-value]


def _run_pool(candidates: Sequence[Candidate], groups: Sequence[Sequence[int]], jobs: int, max_bytes: int,
              take: Callable[[Sequence[int], Sequence[Extraction]], None],
              started: Optional[ProcessPoolExecutor] = None, patterns: Sequence[Wire] = ()) -> List[Sequence[int]]:
    """Run ``groups`` in ``started`` (else in a fresh pool of ``jobs``), handing each result
    to ``take``; the groups whose results never came because a worker died.  Only a few
    batches are in flight at a time: the others are not yet copied for the workers."""
    lost: List[Sequence[int]] = []
    waiting = iter(groups)
    with contextlib.nullcontext(started) if started else new_pool(jobs) as executor:
        running: Dict[Future, Sequence[int]] = {}

        def submit(group: Sequence[int]) -> None:
            try:
                running[executor.submit(_extract_batch, [_fields(candidates[i]) for i in group], max_bytes,
                                        patterns)] = group
            except BrokenProcessPool:
                lost.append(group)
        for group in itertools.islice(waiting, IN_FLIGHT_PER_WORKER * jobs):
            submit(group)
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                group = running.pop(future)  # popped: a finished batch is not held
                try:
                    take(group, future.result())
                except BrokenProcessPool:
                    lost.append(group)
                for group in itertools.islice(waiting, 1):
                    submit(group)
    lost.extend(waiting)  # never sent: the pool broke first
    return lost
