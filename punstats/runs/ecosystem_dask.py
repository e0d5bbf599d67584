"""``corpus top-pypi:N --engine dask``: whole projects on the Dask workers.

Each task resolves, downloads, unpacks and scans one project on a worker
(``runs.downloads`` into the worker's own downloads folder, the local engine
with one process, no blob cache), and returns the project's record and its
tables as parquet bytes; ``runs.ecosystem`` stores them in rank order, so the
output is the local run's.  A few tasks per worker are kept in flight.  A task
that is lost with its worker is recorded as that project's failure.
"""
from __future__ import annotations

import dataclasses
import time
from collections import deque
from typing import Any, Deque, Dict, Iterator, Sequence, Tuple

from punstats.sources import pypi
from punstats.sources.toppypi import Ranked

TIMEOUT_SECONDS = 30

TASKS_PER_WORKER = 2


def project_task(project: Ranked, options: Any) -> Tuple[Dict[str, Any], Dict[str, bytes]]:
    """Run on a worker: one project, from its name to its record and tables."""
    from punstats.runs import ecosystem
    from punstats.runs.downloads import Fetcher
    local = dataclasses.replace(options, scan=dataclasses.replace(options.scan, engine="local", scheduler=None, jobs=1),
                                cache=None)
    fetcher = Fetcher(local, pypi.http_get)
    return ecosystem.outcome(project, fetcher.fetch(project), fetcher, local, None)


def outcomes(projects: Sequence[Ranked], options: Any,
             timing: Any) -> Iterator[Tuple[Ranked, Dict[str, Any], Dict[str, bytes]]]:
    """(project, record, tables) in rank order, computed on the cluster at ``options.scan.scheduler``."""
    from punstats.engines.base import distributed_module
    from punstats.engines.dask import check_workers
    from punstats.runs.ecosystem import not_scanned
    distributed = distributed_module()
    with distributed.Client(options.scan.scheduler, timeout=TIMEOUT_SECONDS, set_as_default=False) as client:
        check_workers(client, TIMEOUT_SECONDS)
        depth = TASKS_PER_WORKER * max(1, len(client.scheduler_info()["workers"]))
        queue = iter(projects)
        pending: Deque[Tuple[Ranked, Any]] = deque()

        def submit() -> None:
            project = next(queue, None)
            if project is not None:
                pending.append((project, client.submit(project_task, project, options, pure=False)))

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
