"""Reading tar streams with bounds: what a damaged stream raises, extended headers
and sparse maps refused before they are read into memory, the stream opened
through a ``bounded.Budget``, and a real end of archive told apart from damage
(``tarfile`` ends quietly at a damaged header or a cut-off block).
"""
from __future__ import annotations

import os
import tarfile
import zipfile
import zlib
from typing import Any

from punstats.model.corpus import SourceError
from punstats.model.errors import one_line
from punstats.sources.bounded import Budget, open_stream

try:
    from lzma import LZMAError
except ImportError:  # an interpreter built without lzma
    class LZMAError(Exception):  # type: ignore[no-redef]
        """Never raised."""


#: What reading a damaged compressed stream or archive raises.
STREAM_ERRORS = (OSError, EOFError, ValueError, zlib.error, LZMAError, zipfile.BadZipFile, tarfile.TarError)


#: The largest GNU long-name or pax header read (tarfile reads one whole into memory).
MAX_HEADER_BYTES = 1 << 20


_EXTENDED_HEADERS = {tarfile.GNUTYPE_LONGNAME: "GNU long-name", tarfile.GNUTYPE_LONGLINK: "GNU long-link",
                     tarfile.XHDTYPE: "pax", tarfile.XGLTYPE: "pax global", tarfile.SOLARIS_XHDTYPE: "pax"}


class _MapReader:
    """``tarfile.fileobj`` while a sparse map is read: at most ``MAX_HEADER_BYTES`` of it."""

    def __init__(self, fileobj: Any) -> None:
        self.fileobj, self.start, self.left = fileobj, fileobj.tell(), MAX_HEADER_BYTES

    def read(self, size: int) -> bytes:
        if size > self.left:
            raise tarfile.ReadError("a sparse map at byte %d over the limit of %d bytes"
                                    % (self.start, MAX_HEADER_BYTES))
        self.left -= size
        return self.fileobj.read(size)

    def tell(self) -> int:
        return self.fileobj.tell()


class _MapTar:
    """The ``TarFile`` as tarfile's sparse-map readers see it: its file a ``_MapReader``."""

    def __init__(self, tar: tarfile.TarFile) -> None:
        object.__setattr__(self, "tar", tar)
        object.__setattr__(self, "fileobj", _MapReader(tar.fileobj))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.tar, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self.tar, name, value)


class BoundedTarInfo(tarfile.TarInfo):
    """A header that refuses an extended header or a sparse map over ``MAX_HEADER_BYTES``
    before it is read (tarfile would read either whole into memory)."""

    def _proc_member(self, tar):  # type: ignore[no-untyped-def]
        kind = _EXTENDED_HEADERS.get(self.type)
        if kind and self.size > MAX_HEADER_BYTES:
            raise tarfile.ReadError("a %s header of %d bytes at byte %d, over the limit of %d"
                                    % (kind, self.size, self.offset, MAX_HEADER_BYTES))
        return super()._proc_member(tar)

    def _proc_sparse(self, tar):  # type: ignore[no-untyped-def]
        return super()._proc_sparse(_MapTar(tar))  # GNU sparse, old format: extension blocks

    def _proc_gnusparse_10(self, next, pax_headers, tar):  # type: ignore[no-untyped-def]
        return super()._proc_gnusparse_10(next, pax_headers, _MapTar(tar))  # the map before the data


def open_tar(path: str, budget: Budget) -> tarfile.TarFile:
    """The tar archive at ``path`` (compressed or not, by its content), read through ``budget``."""
    stream = open_stream(path, budget)
    try:
        return tarfile.open(fileobj=stream, mode="r:", tarinfo=BoundedTarInfo)  # type: ignore[call-overload]
    except STREAM_ERRORS as exc:
        stream.close()
        raise SourceError("cannot read %s: %s" % (os.path.basename(path), one_line(exc))) from None
    except BaseException:
        stream.close()
        raise


def check_end(tar: tarfile.TarFile) -> None:
    """Where reading stopped, the end-of-archive marker, then a stream that decompresses to its end.

    tarfile ends quietly at a damaged header or a cut-off block; this tells
    those apart from a real end.
    """
    assert tar.fileobj is not None
    tar.fileobj.seek(tar.offset)
    block = tar.fileobj.read(tarfile.BLOCKSIZE)
    if len(block) < tarfile.BLOCKSIZE:
        raise tarfile.ReadError("cut short at byte %d, before the end-of-archive marker" % tar.offset)
    if block.count(0) != len(block):
        raise tarfile.ReadError("a damaged header at byte %d" % tar.offset)
    while tar.fileobj.read(1 << 20):  # the compressed stream's own checks (CRC, end marker)
        pass
