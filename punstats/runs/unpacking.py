"""Archives unpacked in processes of their own, beside an ecosystem run's scans.

A run over many releases (``corpus top-pypi:N``, ``runs.ecosystem``) unpacked
each archive in its fetch threads: decompressing it, checking every member and
writing the files the scan reads cost the run's main process as much CPU as
scanning and storing, all under one lock (the GIL), and the scan's workers
waited for it.  ``Unpackers`` forks a few processes as the run starts (before
its threads), and each fetch thread hands its downloaded archive to them
(``unpack``: ``sources.trees.unpack_cached``, the same unpack with the same
checks, refusals and counts, its tree renamed into place only when complete),
waiting without holding the lock.  What the unpack raises (a damaged archive,
a bomb) is raised here as it was, and is the project's failure as before.  A
process that dies (killed, as the out-of-memory killer does) breaks the pool:
it is replaced, and each archive that was in it is unpacked once more, alone in
a process of its own, so that one bad archive cannot take others down; if that
one dies too, its project fails with ``DIED``; the run goes on.  The processes die
with the run (``engines.local.new_pool``).
"""
from __future__ import annotations

import contextlib
import functools
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Iterator, Optional, Tuple

from punstats.engines import local
from punstats.engines.base import MAX_JOBS, default_jobs
from punstats.model.corpus import SourceError
from punstats.sources.archives import Limits, Unpacked
from punstats.sources.trees import unpack_cached

#: The failure of a project whose archive killed the process unpacking it, twice.
DIED = ("cannot read %s: the process unpacking it died twice (killed, e.g. by the out-of-memory killer)")


class Unpackers:
    """A pool of ``processes`` that unpack archives (``unpack``), started by ``start``."""

    def __init__(self, processes: int) -> None:
        self.processes = max(1, processes)
        self.pool: Optional[ProcessPoolExecutor] = None
        self.lock = threading.Lock()

    def start(self) -> "Unpackers":
        """The pool's processes forked now (a fork pool starts every one at its first task)."""
        with self.lock:
            if self.pool is None:
                self.pool = local.new_pool(self.processes)
                self.pool.submit(int).result()
        return self

    def unpack(self, archive: str, sha256: str, directory: Optional[str] = None,
               limits: Optional[Limits] = None, only: Tuple[str, ...] = ()) -> Unpacked:
        """``sources.trees.unpack_cached`` of these arguments, run in one of the processes; once
        more in a process of its own if the pool broke meanwhile (whichever archive broke it)."""
        task = functools.partial(unpack_cached, archive, sha256, directory, limits, only)
        pool = self.sound()
        try:
            return pool.submit(task).result()
        except BrokenProcessPool:
            self.replace(pool)
        alone = local.new_pool(1)
        try:
            return alone.submit(task).result()
        except BrokenProcessPool:
            raise SourceError(DIED % os.path.basename(archive)) from None
        finally:
            local.close(alone)

    def sound(self) -> ProcessPoolExecutor:
        self.start()
        assert self.pool is not None
        return self.pool

    def replace(self, broken: ProcessPoolExecutor) -> None:
        """A pool a process of which died, closed and started again (once, whichever thread saw it first)."""
        with self.lock:
            if self.pool is not broken:
                return
            self.pool = None
        local.close(broken, failed=True)
        self.start()

    def __enter__(self) -> "Unpackers":
        return self

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            pool, self.pool = self.pool, None
        if pool is not None:
            local.close(pool, failed=exc[0] is not None)


def processes(download_jobs: int, jobs: Optional[int]) -> int:
    """How many processes unpack: as many as scan (``jobs``, None: all cores), no more than fetch."""
    return max(1, min(download_jobs, MAX_JOBS, default_jobs() if jobs is None else jobs))


@contextlib.contextmanager
def unpackers(download_jobs: int, jobs: Optional[int]) -> Iterator[Any]:
    """``Unpackers`` started now, closed on leaving; None in a process that may start none
    (``engines.local.may_fork``: a daemon), which then unpacks in its fetch threads."""
    if not local.may_fork():
        yield None
        return
    with Unpackers(processes(download_jobs, jobs)) as pool:
        yield pool.start()
