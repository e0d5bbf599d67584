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
"""
from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, List, Optional, Sequence

from punstats.discover.read import candidate_bytes
from punstats.engines.base import MAX_JOBS, Progress, Sink, default_jobs
from punstats.extract.traversal import extract
from punstats.model.discovery import Candidate
from punstats.model.limits import DEFAULT_MAX_BYTES
from punstats.model.records import Extraction, failure
from punstats.model.statuses import WORKER_DIED

#: Below this many files a pool costs more than it saves.
MIN_FILES_FOR_POOL = 64


#: Target bytes of source per task sent to a worker.
BATCH_BYTES = 512 * 1024


WORKER_DIED_REASON = ("the worker process extracting this file's batch died twice "
                      "(killed, e.g. by the out-of-memory killer)")


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
        on_batch: Optional[Sink] = None, keep: bool = True) -> List[Extraction]:
    """Extract every candidate; the result is in the order of ``candidates``.

    ``on_batch`` sees the results as they arrive (e.g. to store them before
    the run ends); with ``keep=False`` they go only there, the result is
    empty and nothing is held here."""
    jobs = default_jobs() if jobs is None else jobs
    if jobs < 1:
        raise ValueError("jobs must be at least 1")
    slots, take = _collector(len(candidates), progress, on_batch, keep)
    if jobs == 1 or len(candidates) < MIN_FILES_FOR_POOL:
        for index, candidate in enumerate(candidates):
            take([index], [extract_candidate(candidate, max_bytes)])
        return slots  # type: ignore[return-value]
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    lost = _run_pool(candidates, batches(candidates), min(jobs, MAX_JOBS), max_bytes, take, context)
    for group in lost:  # once more, each alone, so that one bad batch cannot take others down
        if not _run_pool(candidates, [group], 1, max_bytes, take, context):
            continue
        take(group, [failure(candidates[i].path, WORKER_DIED, WORKER_DIED_REASON, size=candidates[i].size)
                     for i in group])
    return slots  # type: ignore[return-value]


def _run_pool(candidates: Sequence[Candidate], groups: Sequence[Sequence[int]], jobs: int, max_bytes: int,
              take: Callable[[Sequence[int], Sequence[Extraction]], None], context) -> List[Sequence[int]]:
    """Run ``groups`` in a fresh pool, handing each result to ``take``; the groups whose
    results never came because a worker died."""
    lost = []
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = {pool.submit(_extract_batch, [candidates[i] for i in group], max_bytes): group
                   for group in groups}
        for future in as_completed(futures):
            group = futures.pop(future)  # popped: a finished batch is not held
            try:
                result = future.result()
            except BrokenProcessPool:
                lost.append(group)
                continue
            take(group, result)
    return lost
