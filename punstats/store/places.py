"""Which places a stored scan may take, and what it may replace there.

A scan replaces its output directory whole, so this module decides, before
any file is read, that the place is safe to replace: its path is resolved
first (``missing/..``, ``data/..`` and links count as where they lead), a
place that is the file system's root, the current directory, the home
directory, the cache directory, a corpus or one of their ancestors is
refused, and an existing directory is replaced only when it is empty or
carries the marks of a stored scan (a punstats ``summary.json`` and nothing
but the files a scan writes, and the labels kept with it: ``Layout.patterns``).  Names that become one folder of a path
(corpus names, ``--name``) must be one plain path component.  Standard
library only.
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import FrozenSet, Iterable, List, Optional, Tuple

from punstats.model import jsondata
from punstats.model.errors import PunstatsError

#: A name longer than this (in bytes) cannot be one path component on common file systems.
NAME_MAX = 255

#: Where a result goes without ``-o``: ``data/<name>/`` under the current directory.
DEFAULT_ROOT = "data"

#: A summary larger than this is not one punstats wrote.
SUMMARY_MAX_BYTES = 64 * 1024 * 1024


class PlaceError(PunstatsError, ValueError):
    """A place a stored scan must not take, or a name that cannot be one folder."""


def plain_name(name: str, what: str = "name") -> str:
    """``name`` if it is one plain path component; ``PlaceError`` naming ``what`` otherwise."""
    shown = name if len(name) <= 80 else name[:77] + "..."
    problem = _name_problem(name)
    if problem:
        raise PlaceError("the %s %r is not one plain path component (%s)" % (what, shown, problem))
    return name


def _name_problem(name: str) -> str:
    if not name:
        return "it is empty"
    if name in (".", ".."):
        return "it names the directory itself" if name == "." else "it names the parent directory"
    if "\0" in name:
        return "it holds a NUL character"
    if "/" in name or "\\" in name:
        return "it holds a path separator"
    if len(os.fsencode(name)) > NAME_MAX:
        return "longer than %d bytes" % NAME_MAX
    return ""


def _real(path: str) -> str:
    return os.path.realpath(os.path.abspath(path))


def _within(path: str, ancestor: str) -> bool:
    """``path`` is ``ancestor`` or below it (both resolved)."""
    return path == ancestor or path.startswith(ancestor.rstrip(os.sep) + os.sep)


def protected_places(extra: Iterable[Tuple[str, str]] = ()) -> List[Tuple[str, str]]:
    """(what, resolved path) of every place whose ancestors a scan must never replace."""
    from punstats.cache import default_dir
    places = [("the current directory", os.getcwd()), ("the home directory", os.path.expanduser("~")),
              ("the cache directory", default_dir())]
    return [(what, _real(path)) for what, path in list(places) + list(extra) if path]


def resolve_output(directory: str, protect: Iterable[Tuple[str, str]] = ()) -> str:
    """The resolved path of ``directory``, once it is known not to hold anything a scan must keep.

    ``protect``: further (what, path) pairs, such as the corpus being scanned."""
    target = _real(directory)
    if target == os.path.dirname(target):
        raise PlaceError("refusing to store a scan in %s: it is the file system's root" % directory)
    found = [(place != target, n, what, place)
             for n, (what, place) in enumerate(protected_places(protect)) if _within(place, target)]
    for _, _, what, place in sorted(found)[:1]:  # what it is, before what it holds
        relation = "is" if place == target else "holds"
        raise PlaceError("refusing to store a scan in %s (%s): it %s %s, which replacing it would delete"
                         % (directory, target, relation, what))
    return target


@dataclass(frozen=True)
class Layout:
    """What a stored result's directory holds: ``names`` and names matching ``patterns``
    (globs), of which ``summary`` is the JSON file that marks it as punstats' (it names
    the punstats version), and, while it is being written, ``marker``.  ``what``: what
    the result is called in errors."""
    what: str
    names: FrozenSet[str]
    summary: str
    marker: str
    patterns: Tuple[str, ...] = ()

    def holds(self, name: str) -> bool:
        return name in self.names or name == self.marker or any(fnmatchcase(name, p) for p in self.patterns)


def replaceable_problem(directory: str, layout: Layout) -> Optional[str]:
    """Why the existing ``directory`` must not be replaced by a result of ``layout``; None when it may be.

    It may be when it is empty, or holds only the layout's names and either
    its summary, written by punstats, or its marker (a result being written)."""
    if os.path.islink(directory) or not os.path.isdir(directory):
        return "it exists and is not a directory"
    entries = set(os.listdir(directory))
    if not entries:
        return None
    others = sorted(name for name in entries if not layout.holds(name)
                    or (name != layout.marker and _is_directory(os.path.join(directory, name))))
    if others:
        return "it holds other files than a stored %s (%s)" % (layout.what, ", ".join(others[:3])
                                                                + (", ..." if len(others) > 3 else ""))
    if layout.marker in entries or _is_summary(os.path.join(directory, layout.summary)):
        return None
    return "it holds no %s written by punstats, so it is not a stored %s" % (layout.summary, layout.what)


def _is_directory(path: str) -> bool:
    """A directory, not a link to one: a result writes files only, so one is not its own."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _is_summary(path: str) -> bool:
    """A regular JSON file that punstats wrote as a result's summary (it names the punstats version)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return False
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not (stat.S_ISREG(info.st_mode) and info.st_size <= SUMMARY_MAX_BYTES):
            return False
        try:
            summary = jsondata.loads(handle.read())
        except (ValueError, MemoryError):  # TooDeep included
            return False
    return isinstance(summary, dict) and isinstance(summary.get("punstats_version"), str)
