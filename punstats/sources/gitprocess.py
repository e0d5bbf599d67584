"""Running git: every call with a deadline, in its own process group, never outliving punstats.

Each git process starts a new session (``start_new_session``), so that it and
whatever it starts form one process group; on a deadline, on an interrupt, on
any exception and at exit (``atexit``) the whole group is killed (SIGKILL) and
the process reaped.  Started from the main thread, git also asks the kernel to
kill it when punstats dies, even by ``kill -9`` (``model.processes.die_with_parent``;
from another thread it does not, as the kernel would kill it when that thread
ends).  A call over its deadline is a ``GitAborted`` naming the command.

``Batch`` is a long-lived process answering requests (``git cat-file --batch``),
read with ``selectors`` and a deadline per answer, never with a blocking read.
"""
from __future__ import annotations

import atexit
import os
import selectors
import signal
import subprocess
import sys
import threading
import time
from typing import IO, Any, Dict, Iterator, Optional, Sequence, Tuple

from punstats.model.errors import PunstatsError
from punstats.model.processes import die_with_parent

#: Seconds a plumbing call (rev-parse, rev-list, ls-tree, diff-tree, cat-file) may take.
DEADLINE = 600.0

#: Seconds a clone or fetch may take.
FETCH_DEADLINE = 3600.0

#: Seconds ``Batch`` may wait for one answer (an object's header and contents).
READ_DEADLINE = 120.0

#: What runs git: looked up on ``PATH``, never chosen by a repository.
GIT = "git"


class GitError(PunstatsError, ValueError):
    """A repository or revision that cannot be read; the message is for the user."""


class GitAborted(GitError):
    """git ran over its deadline or ended unexpectedly: the call cannot go on."""


#: git processes running, each with the pid of the process that started it (a forked
#: worker inherits the table, and must not end its parent's git)
_LIVE: Dict[subprocess.Popen, int] = {}
_LOCK = threading.Lock()


def _kill_live() -> None:
    """At exit: end every git process this process started that still runs, with its group."""
    with _LOCK:
        live = [proc for proc, owner in _LIVE.items() if owner == os.getpid()]
    for proc in live:
        end(proc)


atexit.register(_kill_live)


def start(argv: Sequence[str], env: Dict[str, str], stdin: Any, stderr: Any = subprocess.PIPE) -> subprocess.Popen:
    """git, started in its own session (a new process group), its output piped."""
    # the kernel's parent-death signal is Linux's; it is tied to the thread that forks
    in_main = sys.platform.startswith("linux") and threading.current_thread() is threading.main_thread()
    parent = os.getpid()
    try:
        proc = subprocess.Popen(list(argv), stdin=stdin, stdout=subprocess.PIPE, stderr=stderr,
                                env=env, start_new_session=True,
                                preexec_fn=(lambda: die_with_parent(parent)) if in_main else None)
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    with _LOCK:
        _LIVE[proc] = os.getpid()
    return proc


def end(proc: subprocess.Popen) -> None:
    """Kill ``proc``'s process group (unless reaped: then its id may name another) and reap it."""
    if proc.returncode is None:  # not reaped yet: its pid, and so its group, are still its own
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            try:
                pipe.close()
            except OSError:
                pass
    proc.wait()
    with _LOCK:
        _LIVE.pop(proc, None)


def command(argv: Sequence[str]) -> str:
    """``git rev-parse``: the program and its subcommand, for messages (options left out)."""
    words = [word for word in argv[1:] if not word.startswith("-")]
    skip = {argv[i + 1] for i, word in enumerate(argv[:-1]) if word in ("-c", "--git-dir")}
    sub = next((word for word in words if word not in skip), "")
    return "git %s" % sub if sub else "git"


def run(argv: Sequence[str], env: Dict[str, str], input: Optional[bytes] = None,
        deadline: Optional[float] = None) -> Tuple[int, bytes, bytes]:
    """(exit status, stdout, stderr) of one git call, killed with its group past ``deadline``
    seconds (default ``DEADLINE``, looked up at the call)."""
    limit = DEADLINE if deadline is None else deadline
    proc = start(argv, env, subprocess.PIPE if input is not None else subprocess.DEVNULL)
    try:
        out, err = proc.communicate(input, timeout=limit)
    except subprocess.TimeoutExpired:
        end(proc)
        raise GitAborted("%s did not finish within %g s and was stopped" % (command(argv), limit)) from None
    except BaseException:
        end(proc)
        raise
    with _LOCK:
        _LIVE.pop(proc, None)
    return proc.returncode, out, err


#: Requests ``Batch.answers`` sends in one write: their answers (one short line each, such as
#: ``cat-file --batch-check``'s) fit in a pipe's buffer, so git never waits for them to be read.
LINES_AT_ONCE = 256


class Batch:
    """A long-lived git process: a request line in, an answer read within ``READ_DEADLINE``."""

    def __init__(self, argv: Sequence[str], env: Dict[str, str]) -> None:
        self.name = command(argv)
        self._proc = start(argv, env, subprocess.PIPE, stderr=subprocess.DEVNULL)  # answers say what failed
        assert self._proc.stdout is not None
        self._fd = self._proc.stdout.fileno()
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._fd, selectors.EVENT_READ)
        self._buffer = bytearray()
        self._until = 0.0

    def request(self, line: bytes) -> None:
        """Send one request and start the deadline of its answer."""
        stdin: Optional[IO[bytes]] = self._proc.stdin
        if stdin is None or stdin.closed:
            raise GitAborted("%s was stopped" % self.name)
        try:
            stdin.write(line + b"\n")
            stdin.flush()
        except OSError:
            self.close()
            raise GitAborted("%s ended unexpectedly" % self.name) from None
        self._until = time.monotonic() + READ_DEADLINE

    def answers(self, requests: Sequence[bytes]) -> Iterator[bytes]:
        """The answer line of each request, in order: ``LINES_AT_ONCE`` requests sent in one
        write, then their answers read, with no round trip for each."""
        for start in range(0, len(requests), LINES_AT_ONCE):
            chunk = requests[start:start + LINES_AT_ONCE]
            self.request(b"\n".join(chunk))
            for _ in chunk:
                yield self.readline()

    def _fill(self) -> None:
        """More of the answer, waiting no longer than the deadline."""
        left = self._until - time.monotonic()
        if left <= 0 or not self._selector.select(left):
            self.close()
            raise GitAborted("%s did not answer within %g s and was stopped" % (self.name, READ_DEADLINE))
        try:
            chunk = os.read(self._fd, 1 << 20)
        except OSError:
            chunk = b""
        if not chunk:
            self.close()
            raise GitAborted("%s ended unexpectedly" % self.name)
        self._buffer += chunk

    def readline(self) -> bytes:
        """The next line of the answer, its newline included."""
        while True:
            end_of_line = self._buffer.find(b"\n")
            if end_of_line >= 0:
                line = bytes(self._buffer[:end_of_line + 1])
                del self._buffer[:end_of_line + 1]
                return line
            self._fill()

    def read(self, size: int) -> bytes:
        """The next ``size`` bytes of the answer."""
        while len(self._buffer) < size:
            self._fill()
        data = bytes(self._buffer[:size])
        del self._buffer[:size]
        return data

    def close(self) -> None:
        """End the process and its group (a closed stdin would let it finish; it is not waited for)."""
        if self._selector.get_map() is not None:
            self._selector.close()
        end(self._proc)
