"""The members an unpack reads but does not write: every file a scan would not read.

A run over many releases (``corpus top-pypi:N``) scans only the files with the
scan's endings, yet writing every member of an sdist and deleting it again cost
seven times the CPU of decompressing it (a file created per member, on a busy
disk mostly waiting).  ``unpack(..., only=ENDINGS)`` (``sources.archives``)
still reads every member through every check (its size, the budget, a damaged
stream), counts it and records its refusals exactly as a whole unpack would, but
writes only the files ending in ``ENDINGS`` and each ``pyvenv.cfg`` (which marks a
directory a scan leaves out), and every directory.  ``Unwritten`` remembers the
files it did not write, so that a later member that would have met one of them
on disk (a directory of the same name, a file under it) is refused with the
same reason and words, and the tree's single top-level directory
(``Unpacked.root``) is the same: the scan of the smaller tree is the scan of
the whole one.
"""
from __future__ import annotations

import errno
import os
from typing import Optional, Set, Tuple

#: Written whatever its ending: discovery reads it (a directory holding one is an environment).
ALWAYS_WRITTEN = ("pyvenv.cfg",)


class Unwritten:
    """The files of one unpack read but not written; all are written when ``only`` is empty."""

    def __init__(self, only: Tuple[str, ...] = ()) -> None:
        self.only = tuple(only)
        self.files: Set[Tuple[str, ...]] = set()
        self.top = 0  # of them, at the top level of the archive

    def wanted(self, parts: Tuple[str, ...]) -> bool:
        """Whether the file at ``parts`` is written."""
        return not self.only or parts[-1].endswith(self.only) or parts[-1] in ALWAYS_WRITTEN

    def sink(self, path: str) -> str:
        """Where a file not written goes (the null device), after the check writing it at ``path``
        would have failed (a directory there); that failure as ``OSError``."""
        if os.path.isdir(path):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        return os.devnull

    def add(self, parts: Tuple[str, ...]) -> None:
        self.files.add(parts)
        self.top += len(parts) == 1

    def conflict(self, parts: Tuple[str, ...]) -> Optional[str]:
        """What making the directory ``parts`` would have met, were the files not written there:
        one of them at ``parts`` itself or above it; None if none is."""
        for depth in range(1, len(parts) + 1):
            if parts[:depth] in self.files:
                return os.strerror(errno.EEXIST if depth == len(parts) else errno.ENOTDIR)
        return None
