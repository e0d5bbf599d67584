"""Running the per-file work under a chosen interpreter, with the per-blob cache.

``Interpreter`` drives one ``worker.py`` subprocess (``PYTHON -I worker.py``);
``Local`` runs the same ``worker.handle`` in this process.  ``work_many``
sends files to one or more of them, consulting ``cache.BlobCache`` first, and
``extract_candidates`` turns discovery candidates into ``Extraction`` values
exactly as ``engines.run`` does, for the ``python`` engine
(``engines.registry``: ``scan --python``).

An interpreter must answer the worker's hello within ``HELLO_TIMEOUT``
seconds with what a Python 3.8 or later running punstats' worker answers;
anything else (not Python, too old, garbage, silence) is an
``InterpreterError`` naming it, and the process is ended.  A worker that
later dies on a file, or gives no answer for it within ``WORK_TIMEOUT`` (with
patterns: their deadline and its grace), is ended, the file recorded as
``worker_died`` or ``pattern_timeout`` (never cached), and a new one started
for the next file.  The worker dies
with this process, even by ``kill -9`` (``model.processes.die_with_parent``,
set between fork and exec); what a wrapper script starts in turn is in the
worker's process group and sees its input end.
"""
from __future__ import annotations

import base64
import contextlib
import functools
import json
import os
import selectors
import signal
import subprocess
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from punstats.cache import BlobCache, blob_id
from punstats.discover.read import candidate_bytes
from punstats.engines.base import EngineError
from punstats.engines.cached import blob_key, extract_version, parser_key
from punstats.engines.local import stall_seconds
from punstats.extract import worker
from punstats.extract.compat import COMPAT_VERSION
from punstats.extract.definitions import DEFINITIONS_VERSION
from punstats.extract.plugins import Wire, wire
from punstats.model.discovery import Candidate
from punstats.model.kinds import Kind
from punstats.model.limits import DEFAULT_MAX_BYTES
from punstats.model.processes import OVERRAN_EXIT, die_with_parent
from punstats.model.records import Extraction, failure, from_plain, to_plain
from punstats.model.statuses import PATTERN_TIMEOUT, WORKER_DIED

WORKER_PATH = os.path.abspath(worker.__file__)


#: Seconds an interpreter has to start the worker and say hello.
HELLO_TIMEOUT = 20.0


#: The oldest Python the worker runs on.
MIN_PYTHON = (3, 8)


#: The most bytes of a hello reply.
HELLO_BYTES = 1 << 16


class InterpreterError(EngineError):
    """An interpreter that cannot run the worker; the message is for the user."""


class Local:
    """The worker's functions in this process."""

    def __init__(self) -> None:
        self.info = worker.hello()

    def work(self, path: str, data: bytes, max_bytes: int, modes: Sequence[str],
             patterns: Sequence[Wire] = (), timeout: Optional[float] = None,
             memory: Optional[float] = None) -> Dict[str, Any]:
        """``worker.handle`` of the file (``memory`` is not limited in this process)."""
        # through JSON, so that results are the same values a subprocess returns
        return json.loads(json.dumps(worker.handle(path, data, max_bytes, modes, patterns, timeout)))

    def close(self) -> None:
        pass


#: Seconds a worker may take on one file before it is ended, without patterns (with them: their
#: deadline and ``engines.local.STALL_GRACE``).
WORK_TIMEOUT = 600.0


#: Seconds a worker has to end after its input is closed before it is killed.
CLOSE_TIMEOUT = 5.0


class WorkerLost(Exception):
    """A worker that died or stopped answering on a file: the status and reason to record."""

    def __init__(self, status: str, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


class Interpreter:
    """A ``worker.py`` subprocess under ``python``; one that dies or stops answering on a file is
    ended, the file recorded as failed (``work``), and a new one started for the next file."""

    def __init__(self, python: str) -> None:
        self.python = python
        self._lock = threading.Lock()
        self._start()

    def _start(self) -> None:
        python = self.python
        self._stderr = tempfile.TemporaryFile()
        try:
            self._proc = subprocess.Popen([python, "-I", WORKER_PATH], stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=self._stderr,
                                          start_new_session=True,  # its own group: ended whole
                                          preexec_fn=functools.partial(die_with_parent, os.getpid()))
        except OSError as exc:
            raise InterpreterError("cannot run %s: %s" % (python, exc.strerror or exc)) from None
        self._running = True
        try:
            self.info = self._hello()
        except BaseException:
            self._end()
            raise

    def _hello(self) -> Dict[str, Any]:
        """The worker's first reply, read with a deadline and checked."""
        assert self._proc.stdin and self._proc.stdout
        try:
            self._proc.stdin.write(json.dumps({"op": "hello"}).encode() + b"\n")
            self._proc.stdin.flush()
        except BrokenPipeError:
            pass
        line = _line_within(self._proc.stdout.fileno(), HELLO_TIMEOUT)
        if line is None:
            raise InterpreterError("%s did not answer within %g s: not a Python that can run punstats' worker"
                                   % (self.python, HELLO_TIMEOUT))
        if not line:
            raise InterpreterError("%s could not run the worker%s" % (self.python, self._last_error()))
        try:
            info = json.loads(line)
            version = tuple(int(part) for part in info["python"].split(".")[:2])
            if not isinstance(info["implementation"], str) or "extractor_version" not in info:
                raise ValueError(line)
        except (ValueError, KeyError, TypeError, AttributeError):
            raise InterpreterError("%s is not a Python that can run punstats' worker: it answered %r"
                                   % (self.python, line[:80].decode("utf-8", "replace"))) from None
        if "error" in info:
            raise InterpreterError("worker under %s failed: %s" % (self.python, info["error"]))
        if version < MIN_PYTHON:
            raise InterpreterError("%s is Python %s; punstats' worker needs %d.%d or later"
                                   % (self.python, info["python"], *MIN_PYTHON))
        return info

    def _last_error(self) -> str:
        self._stderr.seek(0)
        tail = self._stderr.read().decode("utf-8", "replace").strip().splitlines()
        if tail and "SyntaxError" in tail[-1]:  # worker.py is Python 3.8 syntax
            return ": %s (punstats' worker needs Python %d.%d or later)" % (tail[-1], *MIN_PYTHON)
        return ": " + tail[-1] if tail else ""

    def _kill(self) -> None:
        """Kill the process and whatever it started (a wrapper script's children too)."""
        with contextlib.suppress(OSError):
            os.killpg(self._proc.pid, signal.SIGKILL)
        self._proc.kill()

    def _end(self) -> None:
        """End the process and its group, and let go of them."""
        self._kill()
        self._proc.wait()
        self._stderr.close()
        self._running = False

    def _ask(self, request: Dict[str, Any], seconds: Optional[float] = None) -> Dict[str, Any]:
        """The worker's reply to ``request``; ``WorkerLost`` when it dies first or gives none within
        ``seconds`` (it is then killed)."""
        assert self._proc.stdin and self._proc.stdout
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            self._kill()
        with self._lock:
            watchdog = threading.Timer(seconds, expire) if seconds else None
            if watchdog is not None:
                watchdog.daemon = True
                watchdog.start()
            try:
                self._proc.stdin.write(json.dumps(request).encode() + b"\n")
                self._proc.stdin.flush()
                line = self._proc.stdout.readline()
            except BrokenPipeError:
                line = b""
            finally:
                if watchdog is not None:
                    watchdog.cancel()
        if not line:
            try:
                self._proc.wait(CLOSE_TIMEOUT)
            except subprocess.TimeoutExpired:  # it closed its output but goes on: ended
                self._kill()
                self._proc.wait()
            if expired.is_set():
                raise WorkerLost("", "the worker under %s did not answer within %g s on this file; it was ended"
                                 % (self.python, seconds or 0))
            if self._proc.returncode == OVERRAN_EXIT:  # a matcher that went on past its deadline
                raise WorkerLost(PATTERN_TIMEOUT, "the worker under %s went on past the deadline of its patterns "
                                 "on this file; it was ended" % self.python)
            raise WorkerLost(WORKER_DIED, "the worker under %s died on this file%s" % (self.python, self._last_error()))
        try:
            reply = json.loads(line)
        except ValueError:
            raise InterpreterError("the worker under %s answered %r" % (
                self.python, line[:80].decode("utf-8", "replace"))) from None
        if "error" in reply:
            raise InterpreterError("worker under %s failed: %s" % (self.python, reply["error"]))
        return reply

    def work(self, path: str, data: bytes, max_bytes: int, modes: Sequence[str],
             patterns: Sequence[Wire] = (), timeout: Optional[float] = None,
             memory: Optional[float] = None) -> Dict[str, Any]:
        """The worker's results for the file; ``memory``: megabytes more it may take, with patterns."""
        request = {"op": "work", "path": path, "data": base64.b64encode(data).decode(),
                   "max_bytes": max_bytes, "modes": list(modes)}
        if patterns:  # the worker loads them itself, under its interpreter
            request["patterns"] = [list(p) for p in patterns]
            request["timeout"] = timeout
            request["memory"] = memory
        if not self._running:  # the last one died or was ended on a file
            self._start()
        try:
            return self._ask(request, stall_seconds(timeout) if patterns and timeout else WORK_TIMEOUT)
        except WorkerLost as lost:
            self._end()
            if list(modes) != ["extract"]:  # a result of another kind has no failed form
                raise InterpreterError(lost.reason) from None
            status = lost.status or (PATTERN_TIMEOUT if patterns else WORKER_DIED)
            return {"extract": to_plain(failure(path, status, lost.reason, size=len(data))), LOST: True}

    def close(self) -> None:
        if not self._running:
            return
        assert self._proc.stdin
        with contextlib.suppress(OSError):
            self._proc.stdin.close()
        try:
            self._proc.wait(CLOSE_TIMEOUT)
        except subprocess.TimeoutExpired:  # a worker stuck in a file: not waited for
            pass
        self._end()


#: The key of a reply made here for a worker lost on its file: such a reply is not cached.
LOST = "lost"


def _line_within(fd: int, timeout: float) -> Optional[bytes]:
    """One line from ``fd`` (b"" at end of file) within ``timeout`` seconds, else None;
    at most ``HELLO_BYTES``.  Reads the descriptor itself: nothing is left in a buffer."""
    deadline = time.monotonic() + timeout
    data = b""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while b"\n" not in data and len(data) <= HELLO_BYTES:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not selector.select(remaining):
                return None
            chunk = os.read(fd, 1)  # byte by byte: the hello is short, and nothing may be read past it
            if not chunk:
                return data
            data += chunk
    return data


def parser_label(info: Dict[str, Any]) -> str:
    return parser_key(info["implementation"], info["python"])


def _versions(max_bytes: int, patterns: Sequence[Kind] = ()) -> Dict[str, str]:
    return {"extract": extract_version(max_bytes, patterns), "compat": str(COMPAT_VERSION),
            "definitions": str(DEFINITIONS_VERSION)}


class Pool:
    """``jobs`` workers under one interpreter (None: this process)."""

    def __init__(self, python: Optional[str] = None, jobs: int = 1) -> None:
        self.python = python
        self.workers: List[Any] = [Local()] if python is None else [Interpreter(python)]
        try:
            for _ in range(1, max(1, jobs) if python is not None else 1):
                self.workers.append(Interpreter(python))  # type: ignore[arg-type]
        except Exception:
            self.close()
            raise
        self.info = self.workers[0].info
        self.parser = parser_label(self.info)

    def close(self) -> None:
        for w in self.workers:
            w.close()

    def __enter__(self) -> "Pool":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def work_many(pool: Pool, items: Sequence[Tuple[str, str, Callable[[], bytes]]],
              modes: Sequence[str], max_bytes: int = DEFAULT_MAX_BYTES,
              cache: Optional[BlobCache] = None,
              progress: Optional[Callable[[int], None]] = None,
              patterns: Sequence[Kind] = (), timeout: Optional[float] = None,
              memory: Optional[float] = None) -> List[Dict[str, Any]]:
    """Per item (path, blob id, a function giving its bytes): {mode: result}.

    Each distinct blob is computed once per mode, cached results are reused.
    ``patterns``: user patterns matched by ``extract`` (each worker loads them).
    """
    versions = _versions(max_bytes, patterns)
    sent = wire(patterns)
    tick = progress or (lambda n: None)
    blobs = sorted({blob for _, blob, _ in items})
    known: Dict[str, Dict[str, Any]] = {mode: {} for mode in modes}
    if cache is not None:
        for mode in modes:
            known[mode] = cache.get_many(mode, versions[mode], pool.parser, blobs)
    first: Dict[str, Tuple[str, Callable[[], bytes]]] = {}
    for path, blob, read in items:
        first.setdefault(blob, (path, read))
    todo = [blob for blob in blobs if any(blob not in known[mode] for mode in modes)]
    lock = threading.Lock()

    def compute(index: int) -> List[Tuple[str, Dict[str, Any]]]:
        """Worker ``index``'s share of ``todo``: (blob, {mode: result}) as computed."""
        w = pool.workers[index]
        fresh: List[Tuple[str, Dict[str, Any]]] = []
        for blob in todo[index::len(pool.workers)]:
            path, read = first[blob]
            need = [mode for mode in modes if blob not in known[mode]]
            with lock:  # the bytes may come from one shared git reader
                data = read()
            reply = w.work(path, data, max_bytes, need, sent, timeout, memory)
            with lock:
                for mode in need:
                    known[mode][blob] = reply[mode]
            fresh.append((blob, dict({mode: reply[mode] for mode in need}, **{LOST: bool(reply.get(LOST))})))
            tick(1)
        return fresh

    if todo:
        if len(pool.workers) == 1:
            shares = [compute(0)]
        else:
            with ThreadPoolExecutor(len(pool.workers)) as executor:
                shares = list(executor.map(compute, range(len(pool.workers))))
        if cache is not None:  # here, in the thread that opened the cache (sqlite3 wants that)
            fresh = [item for share in shares for item in share if not item[1].get(LOST)]
            for mode in modes:
                cache.put_many(mode, versions[mode], pool.parser, [(b, r[mode]) for b, r in fresh if mode in r])
    return [{mode: known[mode][blob] for mode in modes}
            for path, blob, _ in items]


def extract_candidates(candidates: Sequence[Candidate], pool: Pool,
                       max_bytes: int = DEFAULT_MAX_BYTES, cache: Optional[BlobCache] = None,
                       progress: Optional[Callable[[int], None]] = None,
                       patterns: Sequence[Kind] = (), timeout: Optional[float] = None,
                       memory: Optional[float] = None) -> List[Extraction]:
    """``engines.run``'s result, computed by ``pool`` (and the cache), in candidate order."""
    results: List[Optional[Extraction]] = [None] * len(candidates)
    items = []
    for index, candidate in enumerate(candidates):
        data = candidate_bytes(candidate, max_bytes)
        if isinstance(data, Extraction):
            results[index] = data
        else:
            items.append((index, candidate.path, data))
    done = work_many(pool, [(path, blob_key(path, blob_id(data)), (lambda d=data: d)) for _, path, data in items],
                     ["extract"], max_bytes, cache, progress, patterns, timeout or None, memory or None)
    for (index, path, _), result in zip(items, done):
        results[index] = from_plain(result["extract"], path)
    return results  # type: ignore[return-value]

