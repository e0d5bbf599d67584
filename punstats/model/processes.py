"""How long the processes punstats starts may live: never longer than punstats.

``die_with_parent`` is called in a child (a worker process, or a program
between fork and exec): on Linux it asks the kernel to kill the child when its
parent dies, even by ``kill -9``, when no clean-up code of the parent can run.
Elsewhere it does nothing.  ``terminated_raises`` makes a SIGTERM (``kill``,
``timeout``, a scheduler ending a job) end the command as Ctrl-C does, by an
exception (``Terminated``), so that its clean-up runs: a scan's temporary or
half-written directory is removed; ``signals_deferred`` holds them back over steps that must
all run or none.  ``deadline`` bounds code of the user's that
runs in a worker (a pattern's matcher): past it, ``DeadlinePassed`` is raised in
it, and a process that goes on regardless is ended.  Standard library only.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import threading
from typing import Any, Dict, Iterator, List, Optional, Sequence


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


def _raised_again(pid: int, previous: Any) -> Any:
    """A ``sys.unraisablehook`` that sends a ``Terminated`` Python ignored (raised in an object's
    ``__del__`` or a fork callback, where exceptions are only printed) as SIGTERM once more, to be
    raised at the next point that can take it: else the SIGTERM would be lost, and the command
    would run on to its end; anything else goes to ``previous``.  It is sent from another thread
    a moment later: sent here, its handler would run at once, in this hook, and be ignored too."""
    def hook(unraisable: Any) -> None:
        if isinstance(unraisable.exc_value, Terminated) and os.getpid() == pid:
            again = threading.Timer(0.01, os.kill, (pid, signal.SIGTERM))
            again.daemon = True
            again.start()
            return
        previous(unraisable)
    return hook


@contextlib.contextmanager
def terminated_raises() -> Iterator[None]:
    """Within it, a SIGTERM to this process raises ``Terminated`` in its main thread (the
    handler before it is put back after; off the main thread, nothing changes), raised again
    where Python would ignore it (``_raised_again``)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pid = os.getpid()
    previous = signal.signal(signal.SIGTERM, _raise_terminated(pid))
    previous_hook, sys.unraisablehook = sys.unraisablehook, _raised_again(pid, sys.unraisablehook)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
        sys.unraisablehook = previous_hook


@contextlib.contextmanager
def interrupts_noted() -> Iterator[List[int]]:
    """Within it, a SIGINT (Ctrl-C) to this process is noted in the list it gives, then handled as
    before (``KeyboardInterrupt``): a ``KeyboardInterrupt`` that code raised itself is told from
    the user's Ctrl-C by the list being empty.  Off the main thread, nothing is noted."""
    received: List[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield received
        return
    previous = signal.getsignal(signal.SIGINT)

    def note(signum: int, frame: Any) -> None:
        received.append(signum)
        if callable(previous):
            previous(signum, frame)
        elif previous == signal.SIG_DFL:
            raise KeyboardInterrupt
    signal.signal(signal.SIGINT, note)
    try:
        yield received
    finally:
        signal.signal(signal.SIGINT, previous)


@contextlib.contextmanager
def signals_deferred(signums: Sequence[int] = (signal.SIGINT, signal.SIGTERM)) -> Iterator[None]:
    """Within it, ``signums`` (Ctrl-C, SIGTERM) are only noted; each is delivered again once it
    ends, to the handler there before (so ``KeyboardInterrupt`` or ``Terminated`` is raised
    after it, not in the middle of it): for a few steps that must all run or none (a file
    written beside another, then renamed over it).  Off the main thread, where no signal
    handler runs, nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: List[int] = []
    previous: Dict[int, Any] = {}
    try:
        for signum in signums:
            if signal.getsignal(signum) is not None:  # None: a handler not set from Python, which cannot be put back
                previous[signum] = signal.signal(signum, lambda number, frame: received.append(number))
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        for signum in received:
            signal.raise_signal(signum)


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


class DeadlinePassed(BaseException):
    """Code under ``deadline`` ran past it; not an ``Exception``, so that an ``except Exception``
    of that code does not take it."""

    def __init__(self, seconds: float) -> None:
        super().__init__("over the deadline of %g s" % seconds)
        self.seconds = seconds


#: The exit status of a process that ran on past its deadline and its grace (``deadline``).
OVERRAN_EXIT = 124


def _on_alarm(seconds: float, grace: float) -> Any:
    fired: List[bool] = []

    def handler(signum: int, frame: Any) -> None:
        if fired:  # it caught DeadlinePassed and went on: nothing short of ending the process stops it
            os._exit(OVERRAN_EXIT)
        fired.append(True)
        signal.setitimer(signal.ITIMER_REAL, grace)
        raise DeadlinePassed(seconds)
    return handler


@contextlib.contextmanager
def deadline(seconds: Optional[float], grace: float = 5.0) -> Iterator[None]:
    """Within it, ``seconds`` after it began, ``DeadlinePassed`` is raised in the code running
    (SIGALRM); if that code is still running ``grace`` seconds later (it caught the exception),
    the process exits at once (``OVERRAN_EXIT``).  Only in the main thread of a POSIX process,
    and only given ``seconds``: elsewhere nothing changes (the process running it is then
    watched from outside, ``engines.local``)."""
    if not seconds or threading.current_thread() is not threading.main_thread() \
            or not hasattr(signal, "setitimer") or sys.platform == "win32":
        yield
        return
    previous = signal.signal(signal.SIGALRM, _on_alarm(seconds, grace))
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def limit_memory(megabytes: Optional[float]) -> bool:
    """Let this process take at most ``megabytes`` more address space than it holds now
    (``RLIMIT_AS``, never raised above a limit already set): past it, allocations fail with
    ``MemoryError`` instead of the machine running out.  Only where there are ``resource`` and
    ``/proc/self/statm`` (Linux); elsewhere, or without ``megabytes``, nothing changes.  Whether
    a limit was set."""
    try:
        import resource
        with open("/proc/self/statm", "rb") as handle:
            held = int(handle.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (ImportError, OSError, ValueError, IndexError):
        return False
    if not megabytes or megabytes <= 0:
        return False
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    wanted = held + int(megabytes * 1024 * 1024)
    for limit in (soft, hard):
        if limit != resource.RLIM_INFINITY:
            wanted = min(wanted, limit)
    resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))
    return True
