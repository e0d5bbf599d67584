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
from typing import Callable, List, Optional, Tuple

from punstats.model.discovery import Candidate, Discovery
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
             ignore: Optional[Callable[[str, bool], Optional[str]]] = None) -> Discovery:
    """Every entry under ``root`` whose name ends with one of ``extensions``.

    ``root`` may also be a single file, which is then the only candidate.
    ``ignore(relpath, is_dir)`` (``discover.ignore``) names why an entry is
    left out (counted among the skipped), or None.
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
    candidates: List[Candidate] = []
    skipped: Counter = Counter()
    seen_dirs = {real_root}

    def matches(name: str) -> bool:
        return name.endswith(extensions)

    # walked under its real path, so that every location is one with no link in it
    # (``read_source`` refuses a link that has appeared on the way since)
    prefix = os.path.join(real_root, "")

    def add(entry_path: str, status: str = "", error: str = "", size: int = 0, location: str = "") -> None:
        rel = printable(entry_path[len(prefix):])  # every entry path is root + os.sep + ...
        candidates.append(Candidate(rel, location, size, status, error))

    def add_file(entry_path: str, info: os.stat_result, location: str) -> None:
        if info.st_size > max_bytes:
            add(entry_path, TOO_LARGE, "%d bytes, over the cap of %d" % (info.st_size, max_bytes), info.st_size)
        else:
            add(entry_path, size=info.st_size, location=location)

    stack = [real_root]
    while stack:
        directory = stack.pop()
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            skipped["unreadable"] += 1
            if directory != real_root and matches(os.path.basename(directory)):
                add(directory, UNREADABLE, exc.strerror or str(exc))
            continue
        subdirs = []
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
            except OSError as exc:  # e.g. a directory that is not searchable, a path over PATH_MAX
                if matches(entry.name):
                    add(entry.path, UNREADABLE, exc.strerror or str(exc))
                elif _is_dir_entry(entry):
                    skipped["unreadable"] += 1  # a subtree that cannot be examined, counted, never dropped
                continue
            if stat.S_ISLNK(info.st_mode):
                try:
                    target = os.stat(entry.path)
                except OSError as exc:
                    if exc.errno == errno.ELOOP:
                        if matches(entry.name):
                            add(entry.path, SYMLINK_LOOP, "symbolic link loop")
                        else:
                            skipped["symlink_loop"] += 1
                    elif matches(entry.name):
                        add(entry.path, BROKEN_LINK, "link to missing %s" % os.readlink(entry.path))
                    continue
                real = os.path.realpath(entry.path)
                if not follow_links:
                    if stat.S_ISDIR(target.st_mode):
                        skipped["symlink"] += 1
                    elif matches(entry.name):
                        add(entry.path, SYMLINK, "link to %s, not followed" % os.readlink(entry.path))
                    continue
                if not _inside(real, real_root):
                    if stat.S_ISDIR(target.st_mode):
                        skipped["outside_root"] += 1
                    elif matches(entry.name):
                        add(entry.path, OUTSIDE_ROOT, "link to %s, outside the root" % os.readlink(entry.path))
                    continue
                info, location = target, real
            else:
                location = entry.path
            left_out = ignore and ignore(printable(entry.path[len(prefix):]), stat.S_ISDIR(info.st_mode))
            if left_out:
                if stat.S_ISDIR(info.st_mode) or matches(entry.name):  # would have been walked or scanned
                    skipped[left_out] += 1
                continue
            if stat.S_ISDIR(info.st_mode):
                reason = excluded_reason(entry) if exclude_dirs else None
                if reason:
                    skipped[reason] += 1
                    continue
                if matches(entry.name):
                    add(entry.path, DIRECTORY, "a directory; its contents are walked")
                real = os.path.realpath(location)
                if real in seen_dirs:
                    skipped["already_walked"] += 1
                    continue
                seen_dirs.add(real)
                subdirs.append(entry.path)
            elif not matches(entry.name):
                continue
            elif stat.S_ISREG(info.st_mode):
                add_file(entry.path, info, location)
            else:
                add(entry.path, NOT_REGULAR, "not a regular file (%s)" % _kind(info.st_mode))
        stack.extend(reversed(subdirs))
    candidates.sort(key=lambda c: c.path)
    # the root as text (undecodable bytes escaped): it is recorded and a cache key, never read
    return Discovery(printable(root), tuple(candidates), dict(sorted(skipped.items())))


def _is_dir_entry(entry: os.DirEntry) -> bool:
    """Whether the directory listing says a directory (no stat needed), or cannot say."""
    try:
        return entry.is_dir(follow_symlinks=False)
    except OSError:
        return True


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "FIFO"), (stat.S_ISSOCK, "socket"),
                       (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device")):
        if test(mode):
            return name
    return "unknown type"

