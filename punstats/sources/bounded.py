"""Bounds on reading one archive: the decompressed bytes it may yield and the time it may take.

A decompression bomb is a small archive that decompresses to far more than it
holds (a 1 MB ``.tar.bz2`` of zeros is terabytes) or that is slow to
decompress.  ``Budget`` counts the bytes a decompressor yields and the time
since unpacking began; ``BoundedReader`` reads a stream through it in chunks of
bounded size, so every byte tarfile reads (a member's data, a refused member
skipped, extended headers, the end-of-archive check) is counted, and an archive
over either limit ends within one chunk of it with ``LimitExceeded``.
"""
from __future__ import annotations

import bz2
import gzip
import lzma
import struct
import time
import zipfile
from typing import Any, BinaryIO, Callable, Optional, Tuple

#: The most decompressed bytes read from one archive (somewhat above ``Limits.max_total_bytes``,
#: so that a member refused as too large can still be skipped).
MAX_DECOMPRESSED_BYTES = 1536 * 1024 * 1024

#: The longest one archive may take to unpack, in seconds (wall clock).
MAX_UNPACK_SECONDS = 180.0

#: The most bytes one read asks the decompressor for: the time between two deadline checks.
CHUNK = 1 << 20

#: How far back a seek is served from what was read (tarfile steps back one header at the end).
TAIL = 64 * 1024


class LimitExceeded(Exception):
    """An archive went over its decompressed bytes or its time; the message says which."""


#: The clock of the deadline (tests replace it).
now: Callable[[], float] = time.monotonic


class Budget:
    """Decompressed bytes and wall-clock time left for one archive."""

    def __init__(self, max_bytes: int, seconds: float) -> None:
        self.max_bytes, self.seconds = max_bytes, seconds
        self.deadline = now() + seconds
        self.used = 0

    def check_time(self) -> None:
        if now() > self.deadline:
            raise LimitExceeded("unpacking took over the limit of %g seconds" % self.seconds)

    def charge(self, size: int) -> None:
        self.used += size
        if self.used > self.max_bytes:
            raise LimitExceeded("decompressed data over the limit of %d bytes" % self.max_bytes)


class _Timed:
    """A raw file whose every read first checks the deadline (gzip skips padding inside one read)."""

    def __init__(self, raw: BinaryIO, budget: Budget) -> None:
        self.raw, self.budget = raw, budget

    def read(self, size: int = -1) -> bytes:
        self.budget.check_time()
        return self.raw.read(size)

    def seek(self, offset: int, whence: int = 0) -> int:
        return self.raw.seek(offset, whence)

    def tell(self) -> int:
        return self.raw.tell()

    def close(self) -> None:
        self.raw.close()


class BoundedReader:
    """``stream`` read through ``budget``: at most ``CHUNK`` bytes a read, each counted.

    Forward seeks of a compressed stream read (and count) what they skip; a
    short backward seek is served from the last ``TAIL`` bytes read; a longer
    one starts the decompression again and counts it again.
    """

    def __init__(self, stream: Any, budget: Budget, compressed: bool = True, raw: Any = None) -> None:
        self.stream, self.budget, self.compressed, self.raw = stream, budget, compressed, raw
        self.position = 0
        self.tail = b""  # the last bytes read, ending at ``position`` (unless ``back`` holds some)
        self.back = b""  # bytes a backward seek gave back, read again first

    def read(self, size: Optional[int] = -1) -> bytes:
        left = -1 if size is None or size < 0 else size
        parts = []
        if self.back and left:
            again = self.back if left < 0 else self.back[:left]
            self.back = self.back[len(again):]
            parts.append(again)
            left -= len(again) if left > 0 else 0
        while left:
            self.budget.check_time()
            chunk = self.stream.read(CHUNK if left < 0 else min(left, CHUNK))
            if not chunk:
                break
            self.budget.charge(len(chunk))
            self.tail = (self.tail + chunk)[-TAIL:] if len(chunk) < TAIL else chunk[-TAIL:]
            parts.append(chunk)
            left -= len(chunk) if left > 0 else 0
        data = b"".join(parts)
        self.position += len(data)
        return data

    def tell(self) -> int:
        return self.position

    def seek(self, offset: int, whence: int = 0) -> int:
        target = offset + (self.position if whence == 1 else 0)
        if whence not in (0, 1) or target < 0:
            raise OSError("cannot seek to %r (whence %r) in an archive stream" % (offset, whence))
        if target < self.position:
            self._seek_back(target)
        elif not self.compressed and target > self.position:  # a plain file: no need to read it
            self.budget.check_time()
            self.stream.seek(target)
            self.position, self.tail, self.back = target, b"", b""
        while self.position < target:
            if not self.read(min(target - self.position, CHUNK)):
                break  # past the end: as with a file, the next read is empty
        return self.position

    def _seek_back(self, target: int) -> None:
        behind = self.position + len(self.back) - target  # from ``target`` to where the stream is
        if behind <= len(self.tail):
            self.back = self.tail[len(self.tail) - behind:]
            self.position = target
            return
        self.stream.seek(0 if self.compressed else target)  # a compressed stream starts again
        self.position = 0 if self.compressed else target
        self.tail = self.back = b""

    def close(self) -> None:
        """The stream, and the file under it (a decompressor given a file object leaves it open)."""
        try:
            self.stream.close()
        finally:
            if self.raw is not None:
                self.raw.close()


#: Compressed formats by their first bytes (the file name's ending is not trusted).
_MAGIC: Tuple[Tuple[bytes, Callable[[Any], Any]], ...] = (
    (b"\x1f\x8b", lambda raw: gzip.GzipFile(fileobj=raw, mode="rb")),
    (b"BZh", lambda raw: bz2.BZ2File(raw, "rb")),
    (b"\xfd7zXZ\x00", lambda raw: lzma.LZMAFile(raw, "rb")),
    (b"\x5d\x00\x00", lambda raw: lzma.LZMAFile(raw, "rb")))  # .lzma, as tarfile's r:xz reads it


def open_stream(path: str, budget: Budget) -> BoundedReader:
    """The decompressed content of the file at ``path`` (or the file, if it is not compressed)."""
    raw = open(path, "rb")
    try:
        head = raw.read(6)
        raw.seek(0)
        opener = next((o for magic, o in _MAGIC if head.startswith(magic)), None)
        if opener is None:
            return BoundedReader(_Timed(raw, budget), budget, compressed=False)
        return BoundedReader(opener(_Timed(raw, budget)), budget, raw=raw)
    except BaseException:
        raw.close()
        raise


#: A central directory entry (zipfile.structCentralDir); its name, extra and comment follow.
_CENTRAL = struct.Struct("<4s4B4HL2L5H2L")


def zip_entries_over(handle: BinaryIO, limit: int) -> Optional[int]:
    """How many entries the zip's central directory holds, if more than ``limit`` (else None).

    Counted from the raw directory, found as ``zipfile`` finds it, before
    ``zipfile`` makes an object of each entry: a directory of millions of tiny
    entries is refused in bounded memory.
    """
    end = zipfile._EndRecData(handle)  # type: ignore[attr-defined]
    if not end:
        return None  # not a zip: zipfile says so
    size, start = end[5], end[9] - end[5]  # the directory's size; where it ends, its start
    if end[0] == b"PK\x06\x06":  # a zip64 end record and its locator come between
        start -= 56 + 20
    if start < 0:
        return None
    handle.seek(start)
    count, position, data = 0, 0, handle.read(size)
    while position + _CENTRAL.size <= len(data) and count <= limit:
        fields = _CENTRAL.unpack_from(data, position)
        position += _CENTRAL.size + fields[12] + fields[13] + fields[14]  # name, extra, comment lengths
        count += 1
    return count if count > limit else None
