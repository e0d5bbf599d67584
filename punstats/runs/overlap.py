"""One job behind: a project stored in a thread of its own while the next one is scanned.

``Behind`` runs the jobs given to ``submit`` one at a time, in order, in one
thread: ``submit`` first waits for the job before it (raising what that job
raised), so at most one job runs behind the caller, a failure stops the caller
at its next ``submit``, and no more than two projects' results are held at once.
Leaving the ``with`` block waits for the last job (its error raised, unless the
block itself is failing).
"""
from __future__ import annotations

from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable, Optional


class Behind:
    """Jobs run in order in one thread, at most one behind the caller."""

    def __init__(self, name: str = "behind") -> None:
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix=name)
        self.pending: Optional[Future] = None

    def wait(self) -> None:
        """Wait for the job running behind, if any; raise what it raised."""
        pending, self.pending = self.pending, None
        if pending is not None:
            pending.result()

    def submit(self, job: Callable[[], Any]) -> None:
        self.wait()
        self.pending = self.pool.submit(job)

    def __enter__(self) -> "Behind":
        return self

    def __exit__(self, kind: Any, *exc: object) -> None:
        try:
            if kind is None:
                self.wait()
        finally:  # a failing block still lets the running job finish its writes
            self.pool.shutdown(wait=True)
