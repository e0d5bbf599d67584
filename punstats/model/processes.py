"""How long the processes punstats starts may live: never longer than punstats.

``die_with_parent`` is called in a child (a worker process, or a program
between fork and exec): on Linux it asks the kernel to kill the child when its
parent dies, even by ``kill -9``, when no clean-up code of the parent can run.
Elsewhere it does nothing.  ``terminated_raises`` makes a SIGTERM (``kill``,
``timeout``, a scheduler ending a job) end the command as Ctrl-C does, by an
exception (``Terminated``), so that its clean-up runs: a scan's temporary or
half-written directory is removed.  Standard library only.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import threading
from typing import Any, Iterator, Optional


class Terminated(BaseException):
    """The process was asked to end (SIGTERM); not an ``Exception``, so no handler of errors takes it."""


def _raise_terminated(pid: int) -> Any:
    def handler(signum: int, frame: Any) -> None:
        if os.getpid() != pid:  # a forked worker that inherited the handler: end as SIGTERM asks
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        raise Terminated()
    return handler


@contextlib.contextmanager
def terminated_raises() -> Iterator[None]:
    """Within it, a SIGTERM to this process raises ``Terminated`` in its main thread (the
    handler before it is put back after; off the main thread, nothing changes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated(os.getpid()))
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)

_PR_SET_PDEATHSIG = 1


def _prctl() -> Optional[Any]:
    """The C library's ``prctl`` from this process's own symbols (no program is run to find it)."""
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # not Linux
        return None


#: Looked up once, at import, so that a child between fork and exec only calls it.
_PRCTL = _prctl()


def die_with_parent(parent: int = 0) -> bool:
    """Have this process killed (SIGKILL) when its parent dies; True where the kernel took it.

    ``parent``: the pid the caller forked from (0: the current parent).  If
    that parent is already gone when this runs, the process kills itself at once.

    The kernel sends the signal when the *thread* that forked this process
    ends, so fork from a thread that lives as long as the run (the main
    thread), not from a short-lived one.
    """
    expected = parent or os.getppid()
    if _PRCTL is None:
        return False
    taken = _PRCTL(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    if taken and os.getppid() != expected:  # the parent died before the request was made
        os.kill(os.getpid(), signal.SIGKILL)
    return taken
