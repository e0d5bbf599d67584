"""``corpus top-pypi:N --engine dask``: whole projects on the Dask workers.

Each task resolves, downloads, unpacks and scans one project on a worker
(``runs.downloads`` into the worker's own downloads folder, the local engine
in the worker's process), and returns the project's record and its tables as
parquet bytes; ``runs.ecosystem`` stores them in rank order, so the output is
the local run's.  The run's user patterns travel as their files' source
(``extract.shipping``), checked on each worker against their sha256.  Workers
that all see the run's blob cache (``shared_cache``: they share its disk) use
it, so a file met in an earlier project is extracted once across the cluster;
otherwise none is used.  A few tasks per worker are kept in flight.  A task
that is lost with its worker is recorded as that project's failure.
"""
from __future__ import annotations

import contextlib
import dataclasses
import os
import secrets
import time
from collections import deque
from typing import Any, Deque, Dict, Iterator, Optional, Sequence, Tuple

from punstats.cache import FILE_NAME, default_dir
from punstats.extract.shipping import Shipped, receive, ship
from punstats.model.kinds import PatternError
from punstats.sources import pypi
from punstats.sources.toppypi import Ranked

TIMEOUT_SECONDS = 30

TASKS_PER_WORKER = 2


def project_task(project: Ranked, options: Any, shipped: Sequence[Shipped] = (),
                 cache: Optional[str] = None) -> Tuple[Dict[str, Any], Dict[str, bytes]]:
    """Run on a worker: one project, from its name to its record and tables; ``shipped``: the
    run's patterns (``extract.shipping``); ``cache``: the blob cache's path, when this worker sees it."""
    from punstats.runs import ecosystem
    from punstats.runs.downloads import Fetcher
    try:
        patterns = receive(shipped)
    except PatternError as exc:  # bytes that are not the run's: the project's failure, recorded
        return ecosystem.not_scanned(project, exc), {}
    scan = dataclasses.replace(options.scan, engine="local", scheduler=None, jobs=1, patterns=patterns,
                               pattern_memory=0.0)  # the worker is Dask's: it keeps its own memory limit
    local = dataclasses.replace(options, scan=scan, cache=cache)
    fetcher = Fetcher(local, pypi.http_get)
    return ecosystem.outcome(project, fetcher.fetch(project), fetcher, local, cache)


def cache_path(cache: Any) -> Optional[str]:
    """The file of the blob cache ``cache`` (as ``ecosystem.Options`` takes it), or None for none."""
    if cache is None or cache is False:
        return None
    if cache is True:
        return os.path.join(default_dir(), FILE_NAME)
    return cache if isinstance(cache, str) else getattr(cache, "path", None)


def _sees(path: str, token: str) -> bool:
    """On a worker: the file ``path`` holds ``token`` (this worker shares the disk it was written on)."""
    try:
        with open(path, encoding="ascii") as handle:
            return handle.read() == token
    except (OSError, ValueError):
        return False


def shared_cache(client: Any, cache: Any) -> Optional[str]:
    """The blob cache's path when every worker sees the disk it is on (a token written beside it is read
    back by each), so that a file seen in an earlier project is extracted once; else None."""
    path = cache_path(cache)
    if path is None:
        return None
    token, marker = secrets.token_hex(16), "%s.%s.dask-probe" % (path, os.getpid())
    try:
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        with open(marker, "x", encoding="ascii") as handle:
            handle.write(token)
    except OSError:  # no place to write (a read-only folder): no cache, as a cache never stops a run
        return None
    try:
        seen = client.run(_sees, marker, token)
    except Exception:  # noqa: BLE001 -- a worker that could not answer: each extracts on its own
        return None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(marker)
    return path if seen and all(seen.values()) else None


def outcomes(projects: Sequence[Ranked], options: Any,
             timing: Any) -> Iterator[Tuple[Ranked, Dict[str, Any], Dict[str, bytes]]]:
    """(project, record, tables) in rank order, computed on the cluster at ``options.scan.scheduler``."""
    from punstats.engines.base import distributed_module
    from punstats.engines.dask import check_patterns, check_workers
    from punstats.runs.ecosystem import not_scanned
    distributed = distributed_module()
    shipped = ship(options.scan.patterns)
    sent = dataclasses.replace(options, scan=dataclasses.replace(options.scan, patterns=()), cache=None)
    with distributed.Client(options.scan.scheduler, timeout=TIMEOUT_SECONDS, set_as_default=False) as client:
        check_workers(client, TIMEOUT_SECONDS)
        check_patterns(client, shipped)
        cache = shared_cache(client, options.cache)
        depth = TASKS_PER_WORKER * max(1, len(client.scheduler_info()["workers"]))
        queue = iter(projects)
        pending: Deque[Tuple[Ranked, Any]] = deque()

        def submit() -> None:
            project = next(queue, None)
            if project is not None:
                pending.append((project, client.submit(project_task, project, sent, shipped, cache, pure=False)))

        for _ in range(depth):
            submit()
        while pending:
            project, future = pending.popleft()
            submit()
            waited = time.perf_counter()
            try:
                record, tables = future.result()
            except Exception as exc:  # the worker died, or the task could not run there
                record, tables = not_scanned(project, exc), {}
            timing.waiting += time.perf_counter() - waited
            yield project, record, tables
