"""HTTP for the sources: one GET with a one-line error, in memory or streamed to disk.

This module owns how punstats talks to an index and a file server: HTTPS
only, except plain HTTP to this machine (a local mirror, a test's fake index);
a size limit; a timeout; every failure a ``FetchError`` with one line (and the
HTTP status when there was one).  ``http_stream`` writes a body to a file as
it arrives, so a download of any size needs little memory.
"""
from __future__ import annotations

import hashlib
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, BinaryIO, Callable, List, Optional

from punstats import __version__
from punstats.model.corpus import SourceError

TIMEOUT_SECONDS = 60

#: Archives larger than this are not downloaded.
MAX_DOWNLOAD_BYTES = 512 * 1024 * 1024

_LOOPBACK = ("127.0.0.1", "::1", "localhost")


class FetchError(SourceError):
    """The index or a download failed; ``status`` is the HTTP status when there was one."""

    def __init__(self, message: str, status: Optional[int] = None) -> None:
        super().__init__(message)
        self.status = status


def fetchable(url: str, base: Optional[str] = None) -> bool:
    """HTTPS, or plain HTTP to this machine (a local mirror, a test's index) when the
    document that named ``url`` (``base``; None: the user did) is on this machine too."""
    if url.startswith("https://"):
        return True
    loopback = lambda u: u.startswith("http://") and urllib.parse.urlsplit(u).hostname in _LOOPBACK  # noqa: E731
    return loopback(url) and (base is None or loopback(base))


def _read(url: str, timeout: float, max_bytes: int, write: Callable[[bytes], Any]) -> None:
    """GET ``url`` and hand its body to ``write`` in chunks; ``FetchError`` with one line otherwise."""
    if not fetchable(url):
        raise FetchError("refusing to fetch a non-HTTPS URL: %s" % url)
    request = urllib.request.Request(url, headers={"User-Agent": "punstats/%s" % __version__})
    total = 0
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            for chunk in iter(lambda: response.read(1 << 20), b""):
                total += len(chunk)
                if total > max_bytes:
                    raise FetchError("%s: larger than %d bytes" % (url, max_bytes))
                write(chunk)
    except urllib.error.HTTPError as exc:
        raise FetchError("%s: HTTP %d %s" % (url, exc.code, exc.reason), exc.code) from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise FetchError("cannot reach %s: %s" % (urllib.parse.urlsplit(url).netloc, reason)) from None


def http_get(url: str, timeout: float = TIMEOUT_SECONDS, max_bytes: int = MAX_DOWNLOAD_BYTES) -> bytes:
    """The body of an HTTPS GET; ``FetchError`` with a one-line message otherwise."""
    parts: List[bytes] = []
    _read(url, timeout, max_bytes, parts.append)
    return b"".join(parts)


def http_stream(url: str, handle: BinaryIO, timeout: float = TIMEOUT_SECONDS,
                max_bytes: int = MAX_DOWNLOAD_BYTES) -> str:
    """Write the body of an HTTPS GET to ``handle`` as it arrives (memory stays small); its sha256."""
    digest = hashlib.sha256()
    _read(url, timeout, max_bytes, lambda chunk: _both(digest.update, handle.write, chunk))
    return digest.hexdigest()


def _both(first: Callable[[bytes], object], second: Callable[[bytes], object], chunk: bytes) -> None:
    first(chunk)
    second(chunk)


#: A getter with a ``stream`` attribute (``http_get``'s is ``http_stream``) downloads to disk as it reads.
http_get.stream = http_stream  # type: ignore[attr-defined]
