"""How long the processes punstats starts may live: never longer than punstats.

``die_with_parent`` is called in a child (a worker process, or a program
between fork and exec): on Linux it asks the kernel to kill the child when its
parent dies, even by ``kill -9``, when no clean-up code of the parent can run.
Elsewhere it does nothing.  Standard library only.
"""
from __future__ import annotations

import ctypes
import os
import signal
from typing import Any, Optional

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
