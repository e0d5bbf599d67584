"""Running the per-file extraction over many files: in process or in a process pool.

Whatever the number of workers, results come back in the discovery order,
so stored results are identical for any ``jobs``.  Within each bucket of
consecutive candidates (the store spills results by bucket), large files are
handed out first and small ones are batched, which keeps both cores busy without
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

User patterns are the user's code: they are matched only in workers (a pool of one
for ``-j 1`` or a few files), never in this process, so that a matcher calling
``os._exit`` costs its batch (``worker_died``), not the run.  Each worker leads a
process group of its own: a Ctrl-C at the terminal reaches this process only (a
``KeyboardInterrupt`` in a worker is a matcher's), and what a matcher forks is
killed with its group when the pool closes (``close``); a forked copy returning
to punstats' code exits at once.  A worker's standard output is its standard
error, so a matcher's ``print`` cannot get into ``scan --json``.  A file's pattern
walk has ``timeout`` seconds (``model.processes.deadline``: ``pattern_timeout``);
a pool in which no batch has come back for longer than that and its grace
(``stall_seconds``: a matcher that ignores the deadline) is killed, and its batches
retried alone as after a death; a batch that stalls again is recorded as
``pattern_timeout``.  A worker's address space is limited at its first batch of
patterns (``memory`` megabytes more than it held, ``model.processes.limit_memory``), so a
matcher that leaks meets ``MemoryError`` (its file's ``pattern_error``) before the machine
runs out.  A process that may start none (a daemon, as a Dask worker is: ``may_fork``)
extracts in itself, patterns too, without a pool to kill.
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import itertools
import multiprocessing
import operator
import os
import signal
import sys
import tempfile
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from punstats.discover.read import candidate_bytes
from punstats.engines.base import MAX_JOBS, Progress, Sink, bucket_span, default_jobs
from punstats.extract import plugins
from punstats.extract.parts import share_lock
from punstats.extract.plugins import Wire
from punstats.extract.traversal import extract
from punstats.model.discovery import Candidate
from punstats.model.kinds import Kind, PatternError
from punstats.model.limits import DEFAULT_MAX_BYTES
from punstats.model.processes import die_with_parent, limit_memory
from punstats.model.records import Extraction, failure
from punstats.model.statuses import PATTERN_ERROR, PATTERN_TIMEOUT, WORKER_DIED

#: Below this many files a pool costs more than it saves.
MIN_FILES_FOR_POOL = 64


#: Batches sent ahead per worker: enough to keep it busy, few enough to hold little.
IN_FLIGHT_PER_WORKER = 3


#: Target bytes of source per task sent to a worker.
BATCH_BYTES = 512 * 1024


WORKER_DIED_REASON = ("the worker process extracting this file's batch died twice "
                      "(killed, e.g. by the out-of-memory killer, or a pattern that ended it)")

MEMORY_REASON = "the worker ran out of its memory limit (--pattern-memory) while extracting this file"

#: Seconds past a file's pattern deadline before a pool that stopped answering is killed.
STALL_GRACE = 30.0


def stall_seconds(timeout: Optional[float]) -> Optional[float]:
    """How long a pool matching patterns may return nothing before it is killed (None: forever)."""
    return timeout + STALL_GRACE if timeout else None


def stalled_reason(timeout: Optional[float]) -> str:
    return ("the worker extracting this file's batch did not answer within %g s, twice (a pattern that "
            "ignores its deadline of %g s per file); it was killed" % (stall_seconds(timeout) or 0, timeout or 0))


def extract_candidate(candidate: Candidate, max_bytes: int = DEFAULT_MAX_BYTES,
                      patterns: Sequence[Kind] = (), timeout: Optional[float] = None) -> Extraction:
    """Read and extract one candidate (matching ``patterns``, loaded); never raises for a bad file."""
    data = candidate_bytes(candidate, max_bytes)
    return data if isinstance(data, Extraction) else extract(candidate.path, data, max_bytes, patterns, timeout)


#: The pid of this worker once its memory was limited (``_limited``).
_LIMITED: List[int] = []


def _limited(memory: Optional[float]) -> None:
    """Limit this worker's memory (``model.processes.limit_memory``) at its first batch of patterns."""
    if memory and os.getpid() not in _LIMITED:
        _LIMITED[:] = [os.getpid()]
        limit_memory(memory)


def extract_batch(batch: Sequence[tuple], max_bytes: int, patterns: Sequence[Wire] = (),
                   timeout: Optional[float] = None, memory: Optional[float] = None) -> List[Extraction]:
    """A worker's task; ``patterns`` as ``plugins.wire`` sends them, loaded here (once per process);
    ``memory``: the megabytes more this worker may take, limited at its first batch."""
    candidates = [Candidate(*fields) for fields in batch]
    if patterns:
        _limited(memory)
    try:
        kinds = plugins.resolve(patterns)
    except PatternError as exc:  # e.g. the plugin file was edited while the scan ran
        return pattern_failures(candidates, exc)
    return extract_kinds(candidates, max_bytes, kinds, timeout)


def pattern_failures(candidates: Sequence[Candidate], exc: PatternError) -> List[Extraction]:
    """Each candidate's ``pattern_error``: its patterns could not be loaded where it was to be extracted."""
    return [failure(c.path, PATTERN_ERROR, str(exc), size=c.size) for c in candidates]


def extract_kinds(candidates: Sequence[Candidate], max_bytes: int, kinds: Sequence[Kind],
                  timeout: Optional[float] = None) -> List[Extraction]:
    """A worker's batch with its patterns loaded (``extract_batch``, ``engines.dask``)."""
    pid = os.getpid()
    done = []
    for candidate in candidates:
        try:
            done.append(extract_candidate(candidate, max_bytes, kinds, timeout))
        except MemoryError:  # out of the worker's limit outside a matcher (a matcher's own is its file's error)
            done.append(failure(candidate.path, PATTERN_ERROR, MEMORY_REASON, size=candidate.size))
        if os.getpid() != pid:  # a copy a matcher forked, back in punstats: it must not answer for the worker
            os._exit(0)
    return done


#: ``candidate`` as the tuple ``extract_batch`` takes (``Candidate(*fields)``), in field order.
candidate_fields = operator.attrgetter(*(field.name for field in dataclasses.fields(Candidate)))


def may_fork() -> bool:
    """This process may start worker processes: it is not a daemon (as a Dask worker is, which
    then extracts in this process, matching patterns too: without their deadline or memory limit)."""
    return not multiprocessing.current_process().daemon


def _context():
    return multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)


def _worker_started(parent: int, lock: Optional[int] = None) -> None:
    """In a new worker: die with ``parent``, lead a process group, write its output to standard error,
    parse large parts one worker at a time (``lock``: the descriptor of the pools' lock file)."""
    if lock is not None:
        share_lock(lock)
    die_with_parent(parent)
    with contextlib.suppress(OSError):
        os.setpgid(0, 0)
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
        os.dup2(2, 1)
        sys.stdout = sys.stderr


def new_pool(jobs: int) -> ProcessPoolExecutor:
    """A process pool of ``jobs`` workers (fork where there is fork) that die with this process and
    parse a large part one at a time (``extract.parts.one_at_a_time``)."""
    return ProcessPoolExecutor(jobs, _context(), initializer=_worker_started, initargs=(os.getpid(), _large_lock()))


#: The descriptor of the file this process's pools lock around a large parse (``new_pool``), made
#: once and kept open for the process's life.
_LOCK_FILE: List[int] = []


def _large_lock() -> Optional[int]:
    """The descriptor of an unnamed file the workers of this process's pools lock (``share_lock``);
    None where workers are not forked (they could not reach it)."""
    if _context().get_start_method() != "fork":
        return None
    if not _LOCK_FILE:
        descriptor, name = tempfile.mkstemp(prefix="punstats-lock-")
        os.unlink(name)
        _LOCK_FILE.append(descriptor)
    return _LOCK_FILE[0]


def kill_workers(pool: ProcessPoolExecutor) -> None:
    """Kill the pool's workers and whatever they started (their process groups)."""
    for pid in list(getattr(pool, "_processes", None) or ()):
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)


def close(pool: ProcessPoolExecutor, failed: bool = False) -> None:
    """Shut ``pool`` down (at once, its workers killed, if ``failed``: a stalled matcher must not hold
    a Ctrl-C up), then kill what its workers left behind (a matcher's children, in their groups)."""
    pids = list(getattr(pool, "_processes", None) or ())
    if failed:
        kill_workers(pool)
    pool.shutdown(wait=not failed, cancel_futures=True)
    for pid in pids:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)


class Workers:
    """A pool of ``jobs`` worker processes, started by ``start`` (while the corpus
    is discovered, or once for a whole ecosystem run) and used by ``run``; closed on
    leaving the ``with`` block.  A pool that broke (a worker died) is not used again:
    the next ``run`` starts another."""

    def __init__(self, jobs: Optional[int] = None) -> None:
        self.jobs = min(default_jobs() if jobs is None else jobs, MAX_JOBS)
        self.pool: Optional[ProcessPoolExecutor] = None

    def start(self) -> "Workers":
        """The pool, started if it is not yet; a pool that broke (a worker died) is replaced, so that
        a pool shared by many scans (an ecosystem run's) outlives one bad batch."""
        if self.pool is not None and getattr(self.pool, "_broken", False):
            close(self.pool, failed=True)
            self.pool = None
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
            close(self.pool, failed=exc[0] is not None)
            self.pool = None


def batches(candidates: Sequence[Candidate], batch_bytes: Optional[int] = None, parts: int = 1) -> List[List[int]]:
    """Indices of ``candidates`` grouped into tasks of about ``batch_bytes`` (default
    ``BATCH_BYTES``), each within one bucket (``base.bucket_span``): buckets in order,
    largest files first within each.  Ordered across the whole corpus instead, a batch of
    small files would fall in every bucket, and its results cost a write per bucket.
    ``parts``: the workers sharing them; tasks are made small enough that each gets one
    when there are as many files, since an ecosystem run's small projects, each under
    ``batch_bytes``, would otherwise keep one worker busy while the others wait."""
    batch_bytes = batch_bytes or BATCH_BYTES
    if parts > 1:
        batch_bytes = max(1, min(batch_bytes, -(-sum(c.size for c in candidates) // parts)))
    span = bucket_span(len(candidates))
    order = sorted(range(len(candidates)), key=lambda i: (i // span, -candidates[i].size, i))
    groups: List[List[int]] = []
    current: List[int] = []
    total = 0
    for index in order:
        if current and index // span != current[0] // span:
            groups.append(current)
            current, total = [], 0
        current.append(index)
        total += candidates[index].size
        if total >= batch_bytes:
            groups.append(current)
            current, total = [], 0
    if current:
        groups.append(current)
    return groups


def collector(count: int, progress: Optional[Progress], on_batch: Optional[Sink], keep: bool = True):
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
        workers: Optional[Workers] = None, patterns: Sequence[Kind] = (),
        timeout: Optional[float] = None, memory: Optional[float] = None) -> List[Extraction]:
    """Extract every candidate; the result is in the order of ``candidates``.

    ``on_batch`` sees the results as they arrive (e.g. to store them before
    the run ends); with ``keep=False`` they go only there, the result is
    empty and nothing is held here.  ``workers``: the pool to use (started
    here when it is not yet, and kept for the next run; without it, a pool of ``jobs``
    workers is forked for this run only).  ``patterns``: user
    patterns to match too, ``timeout`` seconds per file at most, only ever in workers (each taking at most
    ``memory`` megabytes more than when it began matching, ``model.processes.limit_memory``); they load
    them again from their source (``plugins.resolve``: a forked worker has them already)."""
    jobs = default_jobs() if jobs is None else jobs
    if jobs < 1:
        raise ValueError("jobs must be at least 1")
    slots, take = collector(len(candidates), progress, on_batch, keep)
    # a few files are extracted here rather than pay a pool's start, unless a started pool waits
    pooled = workers is not None and workers.take() is not None
    if not patterns and (jobs == 1 or len(candidates) < MIN_FILES_FOR_POOL and not pooled) or not may_fork():
        for index, candidate in enumerate(candidates):
            take([index], extract_kinds([candidate], max_bytes, patterns, timeout) if patterns
                 else [extract_candidate(candidate, max_bytes)])
        return slots  # type: ignore[return-value]
    if workers is not None and jobs > 1 and workers.take() is None:  # started (again, if broken) for the next runs too
        workers.start()
    started = workers.take() if workers is not None else None
    task = functools.partial(extract_batch, max_bytes=max_bytes, patterns=plugins.wire(patterns),
                             timeout=timeout or None, memory=memory or None)
    stall = stall_seconds(timeout) if patterns else None
    jobs = min(jobs, MAX_JOBS, len(candidates)) or 1
    lost = _run_pool(candidates, batches(candidates, parts=jobs), jobs, task, take, started, stall)
    for group, _ in lost:  # once more, each alone, so that one bad batch cannot take others down
        for _, stalled in _run_pool(candidates, [group], 1, task, take, stall=stall):
            status, reason = (PATTERN_TIMEOUT, stalled_reason(timeout)) if stalled else (WORKER_DIED,
                                                                                         WORKER_DIED_REASON)
            take(group, [failure(candidates[i].path, status, reason, size=candidates[i].size) for i in group])
    return slots  # type: ignore[return-value]


def _run_pool(candidates: Sequence[Candidate], groups: Sequence[Sequence[int]], jobs: int,
              task: Callable[[Sequence[tuple]], List[Extraction]],
              take: Callable[[Sequence[int], Sequence[Extraction]], None],
              started: Optional[ProcessPoolExecutor] = None,
              stall: Optional[float] = None) -> List[Tuple[Sequence[int], bool]]:
    """Run ``task`` on ``groups`` in ``started`` (else in a fresh pool of ``jobs``), handing each result
    to ``take``; the groups whose results never came, each with whether the pool was killed for
    returning nothing for ``stall`` seconds (else a worker died).  Only a few batches are in flight
    at a time: the others are not yet copied for the workers."""
    lost: List[Tuple[Sequence[int], bool]] = []
    waiting = iter(groups)
    executor = started or new_pool(jobs)
    running: Dict[Future, Sequence[int]] = {}
    stalled = False

    def submit(group: Sequence[int]) -> None:
        try:
            running[executor.submit(task, [candidate_fields(candidates[i]) for i in group])] = group
        except BrokenProcessPool:
            lost.append((group, stalled))
    try:
        for group in itertools.islice(waiting, IN_FLIGHT_PER_WORKER * jobs):
            submit(group)
        while running:
            done, _ = wait(running, timeout=stall, return_when=FIRST_COMPLETED)
            if not done:  # nothing came back for ``stall`` seconds: a matcher ignores its deadline
                stalled = True
                kill_workers(executor)
                done, _ = wait(running)
            for future in done:
                group = running.pop(future)  # popped: a finished batch is not held
                try:
                    take(group, future.result())
                except (BrokenProcessPool, MemoryError):  # MemoryError: its results could not be sent back
                    lost.append((group, stalled))
                for group in itertools.islice(waiting, 1):
                    submit(group)
    finally:
        if not started:
            close(executor, failed=sys.exc_info()[0] is not None)
    lost.extend((group, stalled) for group in waiting)  # never sent: the pool broke first
    return lost
