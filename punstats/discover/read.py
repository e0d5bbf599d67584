"""Reading one candidate's bytes: regular files of bounded size only, or its failure.

A location from discovery is a real path (no link in it).  It is opened one
component at a time, each relative to the directory before it and with
``O_NOFOLLOW``, so that a directory on the way swapped for a link after
discovery is refused rather than read through.
"""
from __future__ import annotations

import errno
import os
import stat
from typing import Optional, Tuple, Union

from punstats.discover.tree import file_kind
from punstats.model.discovery import Candidate
from punstats.model.limits import DEFAULT_MAX_BYTES
from punstats.model.records import Extraction, failure
from punstats.model.statuses import UNREADABLE


def read_source(location: str, max_bytes: int = DEFAULT_MAX_BYTES, reader: Optional["Reader"] = None) -> bytes:
    """The bytes of a regular file; never blocks on a FIFO, never follows a link.

    Raises OSError (with a message fit for a user) for anything else.  A
    ``reader`` keeps the directory of the last file read open for the next.
    """
    if reader is None:
        with Reader() as own:
            return read_source(location, max_bytes, own)
    fd = reader.open(location, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file (%s)" % file_kind(info.st_mode))
        chunks = []
        remaining = max_bytes + 1
        while remaining > 0:
            chunk = os.read(fd, min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


_DIRECTORY = getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


_BY_COMPONENT = os.open in os.supports_dir_fd and bool(_NOFOLLOW and getattr(os, "O_DIRECTORY", 0))


def open_parent(location: str) -> Tuple[int, str]:
    """(descriptor of the directory holding ``location``, the last component), the
    directory reached through no symbolic link: each directory of the absolute
    path is opened relative to its parent with ``O_NOFOLLOW``.  A link on the way
    is ``OSError`` (ELOOP or ENOTDIR) naming the location."""
    head, name = os.path.split(location)
    if not _BY_COMPONENT:
        return os.open(head or os.curdir, os.O_RDONLY | _DIRECTORY), name
    parts = [p for p in os.path.abspath(head).split(os.sep) if p]
    directory = os.open(os.sep, os.O_RDONLY | _DIRECTORY)
    try:
        for part in parts:
            try:
                step = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=directory)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise OSError(exc.errno, "a directory on its path is no longer a directory "
                                  "(replaced by a link or a file since discovery)", location) from None
                raise
            os.close(directory)
            directory = step
    except BaseException:
        os.close(directory)
        raise
    return directory, name


class Reader:
    """Opens files one after another through no link, keeping the last one's directory open.

    Discovery lists a directory's files together, so a run of reads walks each
    directory's path once rather than once a file.  The directory kept was
    reached through no link when it was opened; a file in it is opened relative
    to it with ``O_NOFOLLOW``, so nothing is ever read through a link.
    """

    def __init__(self) -> None:
        self.head: Optional[str] = None
        self.directory = -1

    def open(self, location: str, flags: int) -> int:
        head, name = os.path.split(location)
        if not _BY_COMPONENT or not os.path.isabs(location):
            return os.open(location, flags | _NOFOLLOW)
        if head != self.head:
            self.close()
            self.directory, _ = open_parent(location)
            self.head = head
        return os.open(name, flags | _NOFOLLOW, dir_fd=self.directory)

    def close(self) -> None:
        if self.directory >= 0:
            os.close(self.directory)
        self.head, self.directory = None, -1

    def __enter__(self) -> "Reader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def candidate_bytes(candidate: Candidate, max_bytes: int = DEFAULT_MAX_BYTES,
                    reader: Optional[Reader] = None) -> Union[bytes, Extraction]:
    """A candidate's bytes (read now unless it carries them), or, when it has
    none to give, the failed extraction that records why (``reader``: see ``read_source``)."""
    if candidate.status:
        return failure(candidate.path, candidate.status, candidate.error, size=candidate.size)
    if candidate.data is not None:
        return candidate.data
    try:
        return read_source(candidate.location, max_bytes, reader)
    except OSError as exc:
        return failure(candidate.path, UNREADABLE, exc.strerror or str(exc), size=candidate.size)

