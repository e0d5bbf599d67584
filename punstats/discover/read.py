"""Reading one candidate's bytes: regular files of bounded size only, or its failure.
"""
from __future__ import annotations

import errno
import os
import stat
from typing import Union

from punstats.discover.tree import _kind
from punstats.model.discovery import Candidate
from punstats.model.limits import DEFAULT_MAX_BYTES
from punstats.model.records import Extraction, failure
from punstats.model.statuses import UNREADABLE


def read_source(location: str, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
    """The bytes of a regular file; never blocks on a FIFO, never follows a link.

    Raises OSError (with a message fit for a user) for anything else.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(location, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file (%s)" % _kind(info.st_mode))
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


def candidate_bytes(candidate: Candidate, max_bytes: int = DEFAULT_MAX_BYTES) -> Union[bytes, Extraction]:
    """A candidate's bytes (read now unless it carries them), or, when it has
    none to give, the failed extraction that records why."""
    if candidate.status:
        return failure(candidate.path, candidate.status, candidate.error, size=candidate.size)
    if candidate.data is not None:
        return candidate.data
    try:
        return read_source(candidate.location, max_bytes)
    except OSError as exc:
        return failure(candidate.path, UNREADABLE, exc.strerror or str(exc), size=candidate.size)

