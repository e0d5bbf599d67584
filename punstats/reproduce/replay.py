"""Replaying a counting script over a directory or a git revision: its files and lines.
"""
from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from punstats.cache import BlobCache, blob_id
from punstats.discover.read import read_source
from punstats.engines import interp
from punstats.extract import compat
from punstats.sources import git as gitsource
from punstats.store.rules import (
    TestRule,
    parse_test_rule,
)

EXTENSIONS = (".py",)


@dataclass(frozen=True)
class LineRule:
    """What "eliminating the unit tests" removed from his output.

    ``path``/``line``/``name``: the rule looks at the printed path, the whole
    printed line (``grep -v``), or the bare file name (what the first version
    printed).  ``rule``: a punstats ``TestRule`` (``substring`` = contains
    ``test``; ``regex:RE``; ``components``; ``none``).
    """

    target: str
    rule: TestRule

    @property
    def label(self) -> str:
        if self.rule.name == "none":
            return "none"
        return "%s:%s" % (self.target, self.rule.label)

    def removes(self, path: str, rest: str) -> bool:
        if self.target == "path":
            return self.rule.is_test(path)
        if self.target == "name":
            return self.rule.is_test(path.rsplit("/", 1)[-1])
        # the whole printed line "./PATH:L:C: CALLEE(ARG=ARG)"; components make no sense here
        text = "./%s:%s" % (path, rest)
        if self.rule.name == "substring":
            return "test" in text
        if self.rule.name == "regex":
            return re.search(self.rule.pattern, text) is not None
        return self.rule.is_test(path)


def parse_line_rule(text: str) -> LineRule:
    """``[path:|line:|name:]RULE``; RULE as for ``--test-rule`` (default target: path)."""
    target = "path"
    for prefix in ("path:", "line:", "name:"):
        if text.startswith(prefix):
            target, text = prefix[:-1], text[len(prefix):]
            break
    return LineRule(target, parse_test_rule(text))


#: Rules the search tries: grep -v test over the path, the line, the bare name; punstats' default.
#: What "eliminating the unit tests" may have meant, tried by the revision search: a grep for
#: ``test`` on the path, the printed line or the file name; punstats' default rule; and dropping
#: the test directories (CPython's ``Lib/test/``, or any ``test/`` or ``tests/``).
SEARCH_RULES = ("path:substring", "line:substring", "name:substring", "path:components",
                "path:regex:^(\\./)?Lib/test/", "path:regex:/tests?/")


@dataclass(frozen=True)
class SourceFile:
    path: str  # relative to the scanned directory, POSIX
    blob: str  # git blob id of the bytes; "" when unreadable (a broken link)


def _resolve_link(entries_by_path: Dict[str, gitsource.TreeEntry], entry: gitsource.TreeEntry,
                  reader: Callable[[str], bytes], depth: int = 0) -> str:
    """The blob a symbolic link in the tree ends at, as ``open`` would; "" if none."""
    if depth > 40:
        return ""
    target = reader(entry.oid).decode("utf-8", "surrogateescape")
    base = entry.path.rpartition("/")[0]
    joined = os.path.normpath(os.path.join(base, target)).replace(os.sep, "/")
    found = entries_by_path.get(joined)
    if found is None or found.kind != "blob":
        return ""
    if found.mode == gitsource.MODE_SYMLINK:
        return _resolve_link(entries_by_path, found, reader, depth + 1)
    return found.oid


class GitSource:
    """A repository read through one ``cat-file --batch`` process (thread-safe)."""

    def __init__(self, path: str) -> None:
        self.gitdir = gitsource.git_dir(path)
        self._reader: Optional[gitsource.BlobReader] = None
        self._lock = threading.Lock()

    def read(self, oid: str) -> bytes:
        with self._lock:
            if self._reader is None:
                self._reader = gitsource.BlobReader(self.gitdir)
            return self._reader.read(oid)

    def files(self, commit: str, subdir: str = "",
              entries: Optional[List[gitsource.TreeEntry]] = None) -> List[SourceFile]:
        """Every ``*.py`` of ``commit`` below ``subdir`` (all of them: his walk excluded nothing)."""
        entries = entries if entries is not None else gitsource.list_tree(self.gitdir, commit)
        prefix = subdir.strip("/") + "/" if subdir else ""
        by_path = {e.path: e for e in entries}
        out = []
        for e in entries:
            if not e.path.startswith(prefix) or not e.path.endswith(EXTENSIONS) or e.kind != "blob":
                continue
            blob = _resolve_link(by_path, e, self.read) if e.mode == gitsource.MODE_SYMLINK else e.oid
            out.append(SourceFile(e.path[len(prefix):], blob))
        return out

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()


def directory_files(root: str, walk: str) -> Tuple[List[SourceFile], Dict[str, bytes]]:
    """Files of a checkout in ``os.walk`` order (``fs``) or sorted walk order, with their bytes.

    A link to a file is read (his script opened it) only when its target lies
    inside the root; one that leads out of it counts as unreadable.
    """
    order = compat.fs_walk_order(root, EXTENSIONS)
    if walk == "sorted":
        order = compat.sorted_walk_order(order)
    real_root = os.path.join(os.path.realpath(root), "")
    files, data = [], {}
    for rel in order:
        target = os.path.realpath(os.path.join(root, rel))
        try:
            if not target.startswith(real_root):
                raise OSError("a link out of the root")
            raw = read_source(target)
        except OSError:
            files.append(SourceFile(rel, ""))
            continue
        blob = blob_id(raw)
        data[blob] = raw
        files.append(SourceFile(rel, blob))
    return files, data


@dataclass(frozen=True)
class Triple:
    total: int
    long: int
    long_nontest: int

    def distance(self, other: "Triple") -> int:
        return abs(self.total - other.total) + abs(self.long - other.long) + \
            abs(self.long_nontest - other.long_nontest)

    def as_dict(self) -> Dict[str, int]:
        return {"total": self.total, "long": self.long, "long_nontest": self.long_nontest}


def count_lines(lines: Iterable[compat.Line], rule: LineRule, threshold: int) -> Triple:
    lines = list(lines)
    long = [ln for ln in lines if len(ln.arg) >= threshold]
    kept = [ln for ln in long if not rule.removes(ln.path, "%d:%d: %s(%s=%s)" % (
        ln.line, ln.col, ln.callee, ln.arg, ln.arg))]
    return Triple(len(lines), len(long), len(kept))


def compat_results(pool: interp.Pool, files: Sequence[SourceFile], read: Callable[[str], bytes],
                    cache: Optional[BlobCache], modes: Sequence[str] = ("compat",),
                    progress: Optional[Callable[[int], None]] = None) -> Dict[str, Dict[str, Any]]:
    """{blob: {mode: result}} for the distinct readable blobs of ``files``."""
    blobs = sorted({f.blob for f in files if f.blob})
    items = [(b, b, (lambda b=b: read(b))) for b in blobs]
    done = interp.work_many(pool, items, list(modes), cache=cache, progress=progress)
    return dict(zip(blobs, done))

