"""Running the per-file extraction over many files: in process or in a process pool.

Whatever the number of workers, results come back in the discovery order,
so stored results are identical for any ``jobs``.  Large files are handed
out first and small ones are batched, which keeps both cores busy without
paying inter-process overhead per file.
"""
from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Callable, List, Optional, Sequence

from punstats.discover import UNREADABLE, Candidate, read_source
from punstats.extract import DEFAULT_MAX_BYTES, Extraction, extract, failure

#: Below this many files a pool costs more than it saves.
MIN_FILES_FOR_POOL = 64
#: Target bytes of source per task sent to a worker.
BATCH_BYTES = 512 * 1024

Progress = Callable[[int], None]


def default_jobs() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def extract_candidate(candidate: Candidate, max_bytes: int = DEFAULT_MAX_BYTES) -> Extraction:
    """Read and extract one candidate; never raises for a bad file."""
    if candidate.status:
        return failure(candidate.path, candidate.status, candidate.error, size=candidate.size)
    if candidate.data is not None:
        return extract(candidate.path, candidate.data, max_bytes)
    try:
        data = read_source(candidate.location, max_bytes)
    except OSError as exc:
        return failure(candidate.path, UNREADABLE, exc.strerror or str(exc), size=candidate.size)
    return extract(candidate.path, data, max_bytes)


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


def run(candidates: Sequence[Candidate], jobs: Optional[int] = None,
        max_bytes: int = DEFAULT_MAX_BYTES, progress: Optional[Progress] = None) -> List[Extraction]:
    """Extract every candidate; the result is in the order of ``candidates``."""
    jobs = default_jobs() if jobs is None else jobs
    if jobs < 1:
        raise ValueError("jobs must be at least 1")
    tick = progress or (lambda n: None)
    if jobs == 1 or len(candidates) < MIN_FILES_FOR_POOL:
        results = []
        for candidate in candidates:
            results.append(extract_candidate(candidate, max_bytes))
            tick(1)
        return results
    slots: List[Optional[Extraction]] = [None] * len(candidates)
    groups = batches(candidates)
    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = {pool.submit(_extract_batch, [candidates[i] for i in group], max_bytes): group
                   for group in groups}
        for future in as_completed(futures):
            group = futures[future]
            for index, extraction in zip(group, future.result()):
                slots[index] = extraction
            tick(len(group))
    return slots  # type: ignore[return-value]

