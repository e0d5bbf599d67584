"""HTTP for the sources: one GET with a one-line error, in memory or streamed to disk.

This module owns how punstats talks to an index and a file server, and the
one rule for which URLs it may ask (``fetchable``): HTTPS to any host; plain
HTTP only to this machine (a local mirror, a test's fake index), decided by
the parsed host being exactly ``127.0.0.1``, ``::1`` or ``localhost`` (other
spellings of a loopback address, such as ``127.1`` or ``2130706433``, are
refused), and only when the document that named the URL is on this machine
too; no URL with user information (``user@host``).  The rule is checked for
the first URL and for every redirect, before any connection to it; the opener
has HTTP and HTTPS handlers only, so ``ftp:``, ``file:`` and ``data:`` are
never opened.

Every request has an overall deadline (``DEADLINE_SECONDS``, wall clock from
the request to the last byte, across redirects) besides the per-socket
timeout: when it passes, the connection is shut down, so a server trickling
its headers or body one byte at a time ends the request.  Each answer has a
size limit.  Every failure is a ``FetchError`` with one line (and the HTTP
status when there was one).  ``http_stream`` writes a body to a file as it
arrives, so a download of any size needs little memory.  A ``Stop`` ends, from
another thread, the requests made through its getter (``http_get.stoppable``) at
once, as the deadline would: a run told to end does not wait for its downloads.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import http.client
import socket
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, BinaryIO, Callable, Iterator, List, Optional, Set

from punstats import __version__
from punstats.model.corpus import SourceError

#: Seconds one socket operation (connect, one read) may wait.
TIMEOUT_SECONDS = 60

#: Seconds one request may take in all, from asking to the last byte (redirects included).
DEADLINE_SECONDS = 600

#: Archives larger than this are not downloaded.
MAX_DOWNLOAD_BYTES = 512 * 1024 * 1024

#: Redirects followed for one request.
MAX_REDIRECTS = 5

#: The hosts that are this machine: plain HTTP goes only to these, spelled exactly so.
_LOOPBACK = frozenset(("127.0.0.1", "::1", "localhost"))

_CHUNK = 1 << 16


class FetchError(SourceError):
    """The index or a download failed; ``status`` is the HTTP status when there was one."""

    def __init__(self, message: str, status: Optional[int] = None) -> None:
        super().__init__(message)
        self.status = status


def _host(url: str) -> Optional[str]:
    """The host of an http(s) URL without user information, blanks or control characters
    and with a valid port; else None."""
    if not url.isprintable() or any(c.isspace() for c in url):
        return None
    try:
        parts = urllib.parse.urlsplit(url)
        parts.port  # noqa: B018 (raises ValueError for a port that is not a number in range)
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or "@" in parts.netloc or not parts.hostname:
        return None
    return parts.hostname


def _on_this_machine(url: str) -> bool:
    return _host(url) in _LOOPBACK


def fetchable(url: str, base: Optional[str] = None) -> bool:
    """HTTPS, or plain HTTP to this machine (a local mirror, a test's index) when the
    document that named ``url`` (``base``: a page, or the URL that redirected to it;
    None: the user did) is on this machine too.  Nothing else: no other scheme, no
    ``user@`` in the address, no other spelling of a loopback address."""
    host = _host(url)
    if host is None:
        return False
    if urllib.parse.urlsplit(url).scheme == "https":
        return True
    return host in _LOOPBACK and (base is None or _on_this_machine(base))


def refusal(url: str) -> str:
    """The one-line reason a URL the user named is refused."""
    return "refusing to fetch %s: only https://, or http:// to 127.0.0.1, ::1 or localhost" % url


class _Watch:
    """One request's deadline: the connections it opened are shut down when it passes."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds
        self.lock = threading.Lock()
        self.sockets: List[socket.socket] = []
        self.expired = False
        self.timer = threading.Timer(max(seconds, 0.0), self.expire)
        self.timer.daemon = True

    def __enter__(self) -> "_Watch":
        self.timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.timer.cancel()

    def left(self, timeout: float) -> float:
        """``timeout``, shortened to what is left before the deadline (a little at least)."""
        return max(min(timeout, self.deadline - time.monotonic()), 0.01)

    def add(self, sock: socket.socket) -> None:
        with self.lock:
            self.sockets.append(sock)
            if self.expired:
                _shut(sock)

    def expire(self) -> None:
        with self.lock:
            self.expired = True
            for sock in self.sockets:
                _shut(sock)

    def check(self) -> None:
        if self.expired or time.monotonic() > self.deadline:
            self.expired = True
            raise _Expired()


def _shut(sock: socket.socket) -> None:
    """Wake any read of ``sock`` (an SSL socket too: the socket below it) with end of file."""
    try:
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except OSError:  # already closed
        pass


class _Expired(Exception):
    """The deadline passed while a body was read."""


class Stopped(BaseException):
    """The request was ended by its ``Stop``: not an ``Exception``, so that no handler of errors
    records it as the failure of what was being fetched."""


class Stop:
    """Ends requests from another thread: ``stop`` shuts the connections of those in flight (their
    reads end at once, as at the deadline), and each request made with it then or later raises
    ``Stopped``; ``wait`` sleeps until the stop, at most for the seconds given."""

    def __init__(self) -> None:
        self.event = threading.Event()
        self.lock = threading.Lock()
        self.watches: Set[_Watch] = set()

    def stop(self) -> None:
        with self.lock:
            self.event.set()
            watches = list(self.watches)
        for watch in watches:
            watch.expire()

    def check(self) -> None:
        """``Stopped`` if the stop came."""
        if self.event.is_set():
            raise Stopped()

    def wait(self, seconds: float) -> None:
        """Sleep ``seconds``; ``Stopped`` as soon as the stop comes (at once if it came before)."""
        if self.event.wait(seconds):
            raise Stopped()

    @contextlib.contextmanager
    def watching(self, watch: _Watch) -> Iterator[None]:
        """Within it, the stop ends ``watch``'s request; ``Stopped`` at once after the stop."""
        with self.lock:
            self.check()
            self.watches.add(watch)
        try:
            yield
        finally:
            with self.lock:
                self.watches.discard(watch)


def _watched(base: Any) -> Any:
    """``base`` (an HTTP(S) connection class) whose connections a ``_Watch`` can shut down."""
    class Watched(base):  # type: ignore[misc,valid-type]
        def __init__(self, *args: Any, watch: _Watch, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.watch = watch

        def connect(self) -> None:
            self.timeout = self.watch.left(self.timeout)  # type: ignore[has-type]
            super().connect()
            self.watch.add(self.sock)
    return Watched


_HTTPConnection = _watched(http.client.HTTPConnection)
_HTTPSConnection = _watched(http.client.HTTPSConnection)


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, watch: _Watch) -> None:
        super().__init__()
        self.watch = watch

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(functools.partial(_HTTPConnection, watch=self.watch), req)


@functools.cache
def tls_context() -> ssl.SSLContext:
    """The one TLS context of every HTTPS request: certificates verified against the system's
    authorities, as ``ssl.create_default_context`` does.  Made once, because making it loads every
    authority's certificate (about 10 ms of CPU; twice per project of an ecosystem run), and shared,
    which a context allows between threads."""
    return ssl.create_default_context()


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, watch: _Watch) -> None:
        super().__init__(context=tls_context())
        self.watch = watch

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(functools.partial(_HTTPSConnection, watch=self.watch), req,
                            context=self._context)  # type: ignore[attr-defined]


class _Redirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only to a URL ``fetchable`` from the one that redirected,
    checked before urllib looks at it (it would follow ``ftp:``) and again as built."""

    max_redirections = MAX_REDIRECTS

    def http_error_302(self, req: urllib.request.Request, fp: Any, code: int, msg: str,
                       headers: Any) -> Any:
        location = headers.get("location") or headers.get("uri")
        if location is not None:
            _check_redirect(req.full_url, urllib.parse.urljoin(req.full_url, location), fp, code)
        return super().http_error_302(req, fp, code, msg, headers)

    http_error_301 = http_error_303 = http_error_307 = http_error_308 = http_error_302

    def redirect_request(self, req: urllib.request.Request, fp: Any, code: int, msg: str, headers: Any,
                         newurl: str) -> Optional[urllib.request.Request]:
        _check_redirect(req.full_url, newurl, fp, code)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _check_redirect(url: str, target: str, fp: Any, code: int) -> None:
    if not fetchable(target, url):
        fp.close()
        raise FetchError("%s redirects to %s, which punstats does not fetch (only https://, or http:// "
                         "from and to 127.0.0.1, ::1 or localhost)" % (url, " ".join(target.split())), code)


def _opener(watch: _Watch) -> urllib.request.OpenerDirector:
    """HTTP and HTTPS only (no FTP, file or data handler), redirects checked, connections watched."""
    opener = urllib.request.OpenerDirector()
    for handler in (urllib.request.ProxyHandler(), urllib.request.UnknownHandler(), _HTTPHandler(watch),
                    _HTTPSHandler(watch), _Redirects(), urllib.request.HTTPDefaultErrorHandler(),
                    urllib.request.HTTPErrorProcessor()):
        opener.add_handler(handler)
    return opener


def _read(url: str, timeout: float, max_bytes: int, write: Callable[[bytes], Any],
          stop: Optional[Stop] = None) -> None:
    """GET ``url`` and hand its body to ``write`` in chunks; ``FetchError`` with one line otherwise
    (``Stopped`` once ``stop`` has ended it)."""
    if not fetchable(url):
        raise FetchError(refusal(url))
    request = urllib.request.Request(url, headers={"User-Agent": "punstats/%s" % __version__})
    watch = _Watch(DEADLINE_SECONDS)
    with stop.watching(watch) if stop is not None else contextlib.nullcontext():
        try:
            _answer(url, request, timeout, watch, max_bytes, write)
        except FetchError:
            if stop is not None:  # ended by the stop, not by the server or the deadline: Stopped
                stop.check()
            raise


def _answer(url: str, request: urllib.request.Request, timeout: float, watch: _Watch, max_bytes: int,
            write: Callable[[bytes], Any]) -> None:
    """``request``'s body handed to ``write``, within ``watch``'s deadline; every failure a ``FetchError``."""
    try:
        with watch, _opener(watch).open(request, timeout=timeout) as response:
            _body(url, response, watch, max_bytes, write)
        if watch.expired:  # a body cut short by the deadline is no body
            raise _Expired()
    except FetchError:
        raise
    except urllib.error.HTTPError as exc:
        raise FetchError("%s: HTTP %d %s" % (url, exc.code, exc.reason), exc.code) from None
    except (_Expired, urllib.error.URLError, OSError, http.client.HTTPException, ValueError) as exc:
        if watch.expired or isinstance(exc, _Expired):
            raise FetchError("%s: no complete answer within the deadline of %g s" % (url, watch.seconds)) from None
        reason = getattr(exc, "reason", None) or exc
        raise FetchError("cannot reach %s: %s" % (urllib.parse.urlsplit(url).netloc, reason)) from None


def _body(url: str, response: Any, watch: _Watch, max_bytes: int, write: Callable[[bytes], Any]) -> None:
    """The body in chunks as they arrive, each one checked against the size limit and the deadline."""
    total = 0
    while True:
        watch.check()
        chunk = response.read1(_CHUNK)
        if not chunk:
            return
        total += len(chunk)
        if total > max_bytes:
            raise FetchError("%s: larger than %d bytes" % (url, max_bytes))
        write(chunk)


def http_get(url: str, timeout: float = TIMEOUT_SECONDS, max_bytes: int = MAX_DOWNLOAD_BYTES,
             stop: Optional[Stop] = None) -> bytes:
    """The body of an HTTPS GET; ``FetchError`` with a one-line message otherwise (``Stopped``: ``stop`` ended it)."""
    parts: List[bytes] = []
    _read(url, timeout, max_bytes, parts.append, stop)
    return b"".join(parts)


def http_stream(url: str, handle: BinaryIO, timeout: float = TIMEOUT_SECONDS,
                max_bytes: int = MAX_DOWNLOAD_BYTES, stop: Optional[Stop] = None) -> str:
    """Write the body of an HTTPS GET to ``handle`` as it arrives (memory stays small); its sha256."""
    digest = hashlib.sha256()
    _read(url, timeout, max_bytes, lambda chunk: _both(digest.update, handle.write, chunk), stop)
    return digest.hexdigest()


def _both(first: Callable[[bytes], object], second: Callable[[bytes], object], chunk: bytes) -> None:
    first(chunk)
    second(chunk)


def stoppable(stop: Stop) -> Any:
    """``http_get``, with its ``stream``, whose requests ``stop`` ends."""
    get = functools.partial(http_get, stop=stop)
    get.stream = functools.partial(http_stream, stop=stop)  # type: ignore[attr-defined]
    return get


#: A getter with a ``stream`` attribute (``http_get``'s is ``http_stream``) downloads to disk as it reads;
#: one with a ``stoppable`` attribute gives, for a ``Stop``, a getter whose requests the stop ends.
http_get.stream = http_stream  # type: ignore[attr-defined]
http_get.stoppable = stoppable  # type: ignore[attr-defined]
