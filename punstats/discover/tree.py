"""Walking a directory tree: which files, in what order, and why others were skipped.

The walk is deterministic (the result is sorted by relative POSIX path, in
code-point order, as ``find | LC_ALL=C sort`` lists it), never executes anything
and never leaves the root.  Symbolic links are not followed by default; with
``follow_links`` a link is followed only when its target resolves inside the
root, and each real directory is entered once, so link loops cannot hang it.

Entries with a matching name that are not scanned become ``Candidate`` rows
with a status saying why; excluded directories are counted by reason.
Reading a candidate's bytes (``read_source``) lives here too, since it is the
last step that touches the file system.
"""
from __future__ import annotations

import errno
import os
import stat
from collections import Counter
from typing import Callable, List, Optional, Sequence, Tuple

from punstats.model.corpus import SourceError
from punstats.model.discovery import Candidate, Discovery, Threshold
from punstats.model.limits import DEFAULT_MAX_BYTES
from punstats.model.statuses import (
    BROKEN_LINK,
    DIRECTORY,
    NOT_REGULAR,
    OUTSIDE_ROOT,
    SYMLINK,
    SYMLINK_LOOP,
    TOO_LARGE,
    UNREADABLE,
)
from punstats.sources.local import printable

DEFAULT_EXTENSIONS = (".py",)


EXTRA_EXTENSIONS = (".pyw", ".pyi")


def check_named_file(root: str, shown: str, endings: Sequence[str], hint: str = "") -> None:
    """A file named on its own (``root``, written ``shown``) must end as one of ``endings``
    (a directory is walked for them): else a one-line ``SourceError``, ``hint`` after it
    (``scan`` and ``rewrite`` both check a lone file here, in the same words)."""
    if not os.path.isfile(root) or root.endswith(tuple(endings)):
        return
    ending = os.path.splitext(root)[1]
    if not ending and _python_script(root):
        return
    script = "" if ending else ", or a script whose first line is #!...python"
    raise SourceError("%s is not a Python file (%s%s)%s" % (shown, ", ".join(endings), script, hint))


def _python_script(path: str) -> bool:
    """Whether the file ``path`` starts with a ``#!`` line naming python (``#!/usr/bin/env python3``)."""
    from punstats.sources.local import open_regular  # non-blocking: a FIFO swapped in cannot hang it
    try:
        fd = open_regular(path, "the file", 1 << 62)
    except SourceError:
        return False
    try:
        first = os.read(fd, 256).split(b"\n", 1)[0]
    except OSError:
        return False
    finally:
        os.close(fd)
    return first.startswith(b"#!") and b"python" in first


#: Version-control metadata directories, skipped by name.
VCS_DIRS = frozenset({".git", ".hg", ".svn", ".bzr", "_darcs"})


#: Environment and cache directories, skipped by name.  A directory holding a
#: ``pyvenv.cfg`` is a virtual environment and skipped too, whatever its name.
#: (``venv`` is deliberately absent: it is also a standard-library package.)
ENVIRONMENT_DIRS = frozenset({".venv", ".tox", ".nox", "site-packages", "dist-packages"})


#: Byte-code caches, skipped by name.
CACHE_DIRS = frozenset({"__pycache__"})


def excluded_name(name: str) -> Optional[str]:
    """Why a directory of this name is skipped (``vcs``, ``environment``, ``cache``), or None."""
    if name in VCS_DIRS:
        return "vcs"
    if name in ENVIRONMENT_DIRS:
        return "environment"
    if name in CACHE_DIRS:
        return "cache"
    return None


def excluded_reason(entry: os.DirEntry) -> Optional[str]:
    """Why a directory is skipped: its name, or a ``pyvenv.cfg`` inside it."""
    reason = excluded_name(entry.name)
    if reason is None and os.path.isfile(os.path.join(entry.path, "pyvenv.cfg")):
        reason = "environment"
    return reason


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def discover(root: str, extensions: Tuple[str, ...] = DEFAULT_EXTENSIONS,
             follow_links: bool = False, max_bytes: int = DEFAULT_MAX_BYTES,
             exclude_dirs: bool = True,
             ignore: Optional[Callable[[str, bool], Optional[str]]] = None,
             threshold: Optional[Threshold] = None) -> Discovery:
    """Every entry under ``root`` whose name ends with one of ``extensions``.

    ``root`` may also be a single file, which is then the only candidate.
    ``ignore(relpath, is_dir)`` (``discover.ignore``) names why an entry is
    left out (counted among the skipped), or None.  ``threshold``: see
    ``model.discovery.Threshold``.
    """
    root = os.path.abspath(root)
    if os.path.isfile(root):  # a link the user named is followed
        parent, name = os.path.split(root)
        size = os.stat(root).st_size
        status, error = (TOO_LARGE, "%d bytes, over the cap of %d" % (size, max_bytes)) \
            if size > max_bytes else ("", "")
        return Discovery(printable(parent), (Candidate(printable(name), os.path.realpath(root), size, status, error),))
    real_root = os.path.realpath(root)
    if not os.path.isdir(real_root):
        raise NotADirectoryError(errno.ENOTDIR, "not a directory or a regular file", root)
    try:
        os.scandir(real_root).close()
    except OSError as exc:
        raise PermissionError(exc.errno, "cannot list the root directory: %s" % (exc.strerror or exc), root) from None
    walk = _Walk(real_root, extensions, follow_links, max_bytes, exclude_dirs, ignore, threshold)
    walk.run()
    walk.candidates.sort(key=lambda c: c.path)
    # the root as text (undecodable bytes escaped): it is recorded and a cache key, never read
    return Discovery(printable(root), tuple(walk.candidates), dict(sorted(walk.skipped.items())))


class _Walk:
    """One walk of a directory tree: the candidates found and the entries skipped, by reason.

    The tree is walked under its real path, so that every location is one with no
    link in it (``read_source`` refuses a link that has appeared on the way since).
    """

    def __init__(self, real_root: str, extensions: Tuple[str, ...], follow_links: bool, max_bytes: int,
                 exclude_dirs: bool, ignore: Optional[Callable[[str, bool], Optional[str]]],
                 threshold: Optional[Threshold] = None) -> None:
        self.real_root = real_root
        self.extensions = extensions
        self.follow_links = follow_links
        self.max_bytes = max_bytes
        self.exclude_dirs = exclude_dirs
        self.ignore = ignore
        self.threshold = threshold
        self.prefix = os.path.join(real_root, "")
        self.candidates: List[Candidate] = []
        self.skipped: Counter = Counter()
        self.seen_dirs = {real_root}

    def matches(self, name: str) -> bool:
        return name.endswith(self.extensions)

    def add(self, entry_path: str, status: str = "", error: str = "", size: int = 0, location: str = "") -> None:
        rel = printable(entry_path[len(self.prefix):])  # every entry path is root + os.sep + ...
        self.candidates.append(Candidate(rel, location, size, status, error))
        if self.threshold is not None and len(self.candidates) == self.threshold[0]:
            self.threshold[1](self.threshold[0])

    def run(self) -> None:
        stack = [self.real_root]
        while stack:
            stack.extend(reversed(self.directory(stack.pop())))

    def directory(self, directory: str) -> List[str]:
        """Look at every entry of ``directory``; its subdirectories to walk, in order."""
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            self.skipped["unreadable"] += 1
            if directory != self.real_root and self.matches(os.path.basename(directory)):
                self.add(directory, UNREADABLE, exc.strerror or str(exc))
            return []
        subdirs: List[str] = []
        for entry in entries:
            self.entry(entry, subdirs)
        return subdirs

    def entry(self, entry: os.DirEntry, subdirs: List[str]) -> None:
        # most entries are files the scan never reads: the listing says so without a stat
        # or a look at the ignore rules, and nothing below records such a file
        if not self.matches(entry.name) and not _is_dir_entry(entry) and not _is_link_entry(entry):
            return
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError as exc:  # e.g. a directory that is not searchable, a path over PATH_MAX
            if self.matches(entry.name):
                self.add(entry.path, UNREADABLE, exc.strerror or str(exc))
            elif _is_dir_entry(entry):
                self.skipped["unreadable"] += 1  # a subtree that cannot be examined, counted, never dropped
            return
        location = entry.path
        if stat.S_ISLNK(info.st_mode):
            followed = self.link(entry)
            if followed is None:
                return
            info, location = followed
        left_out = self.ignore and self.ignore(printable(entry.path[len(self.prefix):]), stat.S_ISDIR(info.st_mode))
        if left_out:
            if stat.S_ISDIR(info.st_mode) or self.matches(entry.name):  # would have been walked or scanned
                self.skipped[left_out] += 1
        elif stat.S_ISDIR(info.st_mode):
            self.subdirectory(entry, location, subdirs)
        elif not self.matches(entry.name):
            pass
        elif not stat.S_ISREG(info.st_mode):
            self.add(entry.path, NOT_REGULAR, "not a regular file (%s)" % file_kind(info.st_mode))
        elif info.st_size > self.max_bytes:
            self.add(entry.path, TOO_LARGE, "%d bytes, over the cap of %d" % (info.st_size, self.max_bytes),
                     info.st_size)
        else:
            self.add(entry.path, size=info.st_size, location=location)

    def link(self, entry: os.DirEntry) -> Optional[Tuple[os.stat_result, str]]:
        """(what it points to, its real path) for a link to follow; None once recorded or skipped."""
        try:
            target = os.stat(entry.path)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                if self.matches(entry.name):
                    self.add(entry.path, SYMLINK_LOOP, "symbolic link loop")
                else:
                    self.skipped["symlink_loop"] += 1
            elif self.matches(entry.name):
                self.add(entry.path, BROKEN_LINK, "link to missing %s" % os.readlink(entry.path))
            return None
        real = os.path.realpath(entry.path)
        if not self.follow_links:
            if stat.S_ISDIR(target.st_mode):
                self.skipped["symlink"] += 1
            elif self.matches(entry.name):
                self.add(entry.path, SYMLINK, "link to %s, not followed" % os.readlink(entry.path))
            return None
        if not _inside(real, self.real_root):
            if stat.S_ISDIR(target.st_mode):
                self.skipped["outside_root"] += 1
            elif self.matches(entry.name):
                self.add(entry.path, OUTSIDE_ROOT, "link to %s, outside the root" % os.readlink(entry.path))
            return None
        return target, real

    def subdirectory(self, entry: os.DirEntry, location: str, subdirs: List[str]) -> None:
        reason = excluded_reason(entry) if self.exclude_dirs else None
        if reason:
            self.skipped[reason] += 1
            return
        if self.matches(entry.name):
            self.add(entry.path, DIRECTORY, "a directory; its contents are walked")
        real = os.path.realpath(location)
        if real in self.seen_dirs:
            self.skipped["already_walked"] += 1
            return
        self.seen_dirs.add(real)
        subdirs.append(entry.path)


def _is_dir_entry(entry: os.DirEntry) -> bool:
    """Whether the directory listing says a directory (no stat needed), or cannot say."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return True


def _is_link_entry(entry: os.DirEntry) -> bool:
    """Whether the directory listing says a symbolic link, or cannot say."""
    try:
        return entry.is_symlink()
    except OSError:
        return True


def file_kind(mode: int) -> str:
    """What a file that is not a regular file is, in words (``FIFO``, ``character device``)."""
    for test, name in ((stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket"), (stat.S_ISDIR, "directory"),
                       (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device")):
        if test(mode):
            return name
    return "unknown type"

