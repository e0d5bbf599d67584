"""Projects fetched ahead of the scan: resolved and downloaded in a thread pool, and unpacked.

This module owns the fetching side of ``corpus top-pypi:N`` (``runs.ecosystem``):
``Fetcher.fetch`` resolves a project's latest release (``pypi.resolve_latest``; with a
``year``, the release that stood at its end, ``sources.releases``),
downloads it (one retry after a network or server error) and unpacks it (writing
only the files the scan reads, ``sources.unwritten``, unless the trees are kept), and
returns the failure instead of raising; ``Fetcher.done_with`` deletes the
unpacked tree after the scan (unless ``keep``) and trims the downloaded archives
to the cap, never one in use; ``ahead`` keeps a bounded number of fetches
(and of unpacked bytes) running ahead of the consumer, in rank order.  An
ecosystem run has the archives unpacked in processes of their own
(``Fetcher.unpack``, ``runs.unpacking``), the threads only resolving and
downloading.  ``fetching`` is the pool of fetch threads: whatever ends the run (the last
project, an error, Ctrl-C, SIGTERM), the fetches queued are cancelled and those running are
stopped (``Fetcher.halt``): their requests end at once, their partial downloads are removed,
and the run ends without waiting for them.
"""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import threading
import time
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Any, Callable, Deque, Dict, Iterator, List, Optional, Sequence, Tuple

from punstats.cache import ARCHIVE_FOLDER
from punstats.sources import pypi
from punstats.sources.http import Stop
from punstats.sources.toppypi import Ranked
from punstats.sources.trees import Unpacker, tree_name


def _retry(call: Any, pause: Callable[[float], None]) -> Any:
    """``call(url, *handles)`` with one retry after a network or server error (handles emptied first)."""
    def retrying(url: str, *handles: Any) -> Any:
        try:
            return call(url, *handles)
        except pypi.FetchError as exc:
            if exc.status is not None and exc.status < 500:
                raise
            pause(1.0)
            for handle in handles:
                handle.seek(0)
                handle.truncate()
            return call(url, *handles)
    return retrying


def _getter(get: pypi.Getter, pause: Callable[[float], None]) -> pypi.Getter:
    """``get`` with one retry; a streaming getter (``pypi.http_get``) keeps streaming downloads to disk."""
    retrying = _retry(get, pause)
    if getattr(get, "stream", None) is not None:
        retrying.stream = _retry(get.stream, pause)  # type: ignore[attr-defined]
    return retrying


#: Seconds between the tries of a project while the network is down: the first, doubled up to the last.
OUTAGE_PAUSES = (5.0, 120.0)


def unreachable(exc: BaseException, get: pypi.Getter, index_url: str) -> bool:
    """Whether ``exc`` is the network being down rather than this project's failure: no answer at
    all (not an HTTP error), and none from the index either (any HTTP answer there, even a 404,
    says it is up)."""
    if not isinstance(exc, pypi.FetchError) or exc.status is not None:
        return False
    try:
        get(index_url.rstrip("/") + "/")
    except pypi.FetchError as probe:
        return probe.status is None
    return False


class Fetcher:
    """Resolves and downloads projects in a thread pool, a few ahead, and has them unpacked (``unpack``)."""

    def __init__(self, options: Any, get: pypi.Getter) -> None:  # runs.ecosystem.Options
        # ends the requests in flight (those of a getter that can be stopped: ``http_get``'s) and the pauses
        self.stop = Stop()
        stoppable = getattr(get, "stoppable", None)
        self.probe = stoppable(self.stop) if stoppable is not None else get
        self.options, self.get = options, _getter(self.probe, self.pause)
        self.on_wait: Optional[Callable[[str], None]] = None  # told each pause, in words
        # where archives are unpacked (``runs.unpacking``); None: in the fetch thread
        self.unpack: Optional[Unpacker] = None
        self.directory = options.downloads or pypi.default_dir()
        # only the files the scan reads are written (a tree kept for the user is whole)
        self.only: Tuple[str, ...] = () if options.keep else tuple(options.scan.extensions)
        self.active: Dict[str, int] = {}  # sha256 of archives in use -> users
        self.holds: Dict[str, Optional[int]] = {}  # sha256 of archives in use -> their in-use lock
        self.lock = threading.Lock()
        self.listed: Optional[int] = None  # bytes of archives at the last listing
        self.fetched = 0  # bytes of archives fetched since

    def fetch(self, project: Ranked) -> Tuple[Any, Any, float]:
        """(release, corpus, seconds) or (the exception, None, seconds).  While the network is
        down (``unreachable``), the project is tried again after a pause, for up to
        ``options.outage_wait`` seconds in all, instead of failing."""
        start, pause, waited = time.perf_counter(), OUTAGE_PAUSES[0], 0.0
        while True:
            self.stop.check()
            try:
                release, corpus = self.fetch_once(project)
                return release, corpus, time.perf_counter() - start
            except Exception as exc:  # recorded for this project; the run goes on
                if waited >= self.options.outage_wait or not unreachable(exc, self.probe, self.options.index_url):
                    return exc, None, time.perf_counter() - start
                down = str(exc)
            if self.on_wait:
                self.on_wait("the network is down (%s); %s is tried again in %d s (waited %d s of at most %d)"
                             % (down, project.name, pause, waited, self.options.outage_wait))
            self.pause(pause)
            waited, pause = waited + pause, min(2 * pause, OUTAGE_PAUSES[1])

    def pause(self, seconds: float) -> None:
        """Wait ``seconds`` between tries; ``http.Stopped`` as soon as the fetches are halted."""
        self.stop.wait(seconds)

    def halt(self) -> None:
        """End the fetches: the requests in flight and the pauses at once (``http.Stopped``), any begun later too."""
        self.stop.stop()

    def fetch_once(self, project: Ranked) -> Tuple[Any, Any]:
        release = self.resolve(project.name)
        self.hold(release)
        try:
            corpus = pypi.release_corpus(release, self.get, self.directory, self.options.limits, self.only,
                                         self.unpack)
        except BaseException:
            self.release(release)
            raise
        with self.lock:
            self.fetched += os.path.getsize(os.path.join(self.directory, release.sha256, release.stored_name))
        return release, corpus

    def resolve(self, name: str) -> Any:
        """The release of ``name`` to read: the latest, or the one that stood at the end of the run's ``year``."""
        if self.options.year is None:
            return pypi.resolve_latest(name, self.get, self.options.index_url)
        if self.options.year_releases is not None:  # one read of the project's page for every year
            return self.options.year_releases.release(name, self.options.year, self.get, self.options.index_url)
        from punstats.sources.releases import release_as_of
        return release_as_of(name, self.options.year, self.get, self.options.index_url)

    def hold(self, release: Any) -> None:
        """``release``'s archive in use: by this run (``active``), and for other runs sharing the
        downloads (a shared lock on its folder's ``IN_USE`` file, taken once per archive)."""
        with self.lock:
            # the lock taken before the count: a failure to take it leaves nothing counted
            if release.sha256 not in self.active:
                self.holds[release.sha256] = in_use(os.path.join(self.directory, release.sha256))
            self.active[release.sha256] = self.active.get(release.sha256, 0) + 1

    def release(self, release: Any) -> None:
        with self.lock:
            self.active[release.sha256] -= 1
            if not self.active[release.sha256]:
                del self.active[release.sha256]
                held = self.holds.pop(release.sha256, None)
                if held is not None:
                    os.close(held)

    def done_with(self, release: Any) -> None:
        """The project is scanned: drop its tree unless kept, trim the downloads."""
        self.release(release)
        if not self.options.keep:
            shutil.rmtree(os.path.join(self.directory, release.sha256, tree_name(self.options.limits, self.only)),
                          ignore_errors=True)
        self.trim()

    def trim(self) -> None:
        """Delete the oldest archives not in use until the downloads fit the cap.

        The folder is listed again only when the archives added since the last
        listing could have brought it over the cap.  A listing that finds it over
        trims it to ``TRIM_TO`` of the cap: a run of many small releases would
        otherwise list thousands of archives again after each project."""
        if self.listed is not None and self.listed + self.added() <= self.options.download_cap:
            return
        archives = self.archives()
        total = sum(a[1] for a in archives)
        goal = self.options.download_cap if total <= self.options.download_cap \
            else int(self.options.download_cap * TRIM_TO)
        for _, size, sha, path in sorted(archives):
            if total <= goal:
                break
            with self.lock:
                if sha in self.active:
                    continue
            if unlink_unused(os.path.join(self.directory, sha), path):
                total -= size
        self.listed, self.fetched = total, 0

    def added(self) -> int:
        with self.lock:
            return self.fetched

    def archives(self) -> List[Tuple[float, int, str, str]]:
        """(mtime, size, sha256 folder, path) of every downloaded archive: only in the
        folders punstats names (an archive's sha256), never in anything else there."""
        found: List[Tuple[float, int, str, str]] = []
        try:
            folders = [e for e in os.scandir(self.directory) if e.is_dir(follow_symlinks=False)
                       and re.fullmatch(ARCHIVE_FOLDER, e.name)]
        except OSError:
            return found
        for folder in folders:
            # another run sharing the downloads may delete a file while it is listed: it is gone
            with contextlib.suppress(FileNotFoundError), os.scandir(folder.path) as entries:
                for entry in entries:
                    with contextlib.suppress(FileNotFoundError):
                        if entry.is_file(follow_symlinks=False) and not entry.name.startswith("."):
                            stat = entry.stat(follow_symlinks=False)
                            found.append((stat.st_mtime, stat.st_size, folder.name, entry.path))
        return found


#: The share of the cap a trim that must delete brings the downloads down to.
TRIM_TO = 0.9


#: The file in an archive's folder that every run using the archive holds a shared lock on.
IN_USE = ".in-use"


def _lock_file(folder: str) -> int:
    return os.open(os.path.join(folder, IN_USE), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o644)


def in_use(folder: str) -> Optional[int]:
    """A shared lock on ``folder``'s ``IN_USE`` file (created, with the folder, if absent): no run
    trims the archive while it is held (``unlink_unused``).  None where there are no such locks."""
    try:
        import fcntl
    except ImportError:  # not POSIX: each run knows only its own archives in use
        return None
    os.makedirs(folder, exist_ok=True)
    fd = _lock_file(folder)
    fcntl.flock(fd, fcntl.LOCK_SH)
    return fd


def unlink_unused(folder: str, path: str) -> bool:
    """Delete the archive ``path`` of ``folder`` unless a run holds it (``in_use``), in this
    process or another; whether it was deleted here (not if another run deleted it first)."""
    try:
        import fcntl
    except ImportError:
        fcntl = None  # type: ignore[assignment]
    try:
        fd = _lock_file(folder) if fcntl is not None else None
    except OSError:  # the folder is gone: another run trimmed it
        return False
    try:
        if fd is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.unlink(path)
        return True
    except (BlockingIOError, FileNotFoundError):  # in use by a run, or deleted by another
        return False
    finally:
        if fd is not None:
            os.close(fd)


@contextlib.contextmanager
def fetching(fetcher: Fetcher, jobs: int) -> Iterator[ThreadPoolExecutor]:
    """A pool of ``jobs`` threads for ``fetcher``'s fetches; on leaving, for whatever reason, those
    queued are cancelled and those running halted (``Fetcher.halt``), then the threads are joined:
    a stopped run waits for no download in flight, and leaves no partial one behind."""
    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="fetch")
    try:
        yield pool
    finally:
        fetcher.halt()
        pool.shutdown(wait=True, cancel_futures=True)


def held(pending: Sequence[Tuple[Ranked, Future]]) -> int:
    """The unpacked bytes of the projects in ``pending`` already fetched (one still fetching counts 0)."""
    total = 0
    for _, future in pending:
        if future.done() and not future.cancelled() and future.exception() is None:
            corpus = future.result()[1]
            total += int(((corpus.archive if corpus is not None else None) or {}).get("bytes") or 0)
    return total


#: Projects fetched ahead of the consumer, at most (besides the unpacked bytes they may hold).
MAX_AHEAD = 64

#: Seconds between looks at the fetches while the consumer waits for the first in order.
LOOK_SECONDS = 0.5


def ahead(projects: Sequence[Ranked], fetcher: Fetcher, pool: ThreadPoolExecutor, depth: int,
          held_bytes: Optional[int] = None) -> Iterator[Tuple[Ranked, "Future[Tuple[Any, Any, float]]"]]:
    """Futures in rank order, with at most ``depth`` fetches running at once.  While the consumer
    waits for the first in order (a large release), the threads that are done fetch the next ones:
    up to ``MAX_AHEAD`` projects ahead, and none more while those fetched ahead and not yet taken
    hold over ``held_bytes`` unpacked (``held``), so that a few huge releases cannot fill the disk
    ahead of the scan; the next one in order is always fetched."""
    pending: Deque[Tuple[Ranked, Future]] = deque()
    queue = iter(projects)

    def fill() -> None:
        while len(pending) < MAX_AHEAD and sum(not f.done() for _, f in pending) < depth and (
                not pending or held_bytes is None or held(pending) <= held_bytes):
            project = next(queue, None)
            if project is None:
                return
            pending.append((project, pool.submit(fetcher.fetch, project)))
    fill()
    while pending:
        head = pending[0]
        while not head[1].done():
            wait([f for _, f in pending if not f.done()], LOOK_SECONDS, FIRST_COMPLETED)
            fill()
        pending.popleft()
        fill()
        yield head
