"""Which entries of a work tree a scan leaves out: ``.gitignore`` files and ``--exclude`` globs.

As ruff and ripgrep do, a walk honours the ``.gitignore`` files it finds
(in the root, in every directory below it, and in the directories above it
up to the work tree's top, the one holding ``.git``, unless those ignore the
root itself: a directory the user names is scanned), with git's own rules
(``pathspec``'s ``GitIgnoreSpec``: a deeper file overrides a shallower one,
``!pattern`` re-includes, a pattern with ``/`` is anchored).  ``--exclude``
patterns use the same syntax, relative to the scan's root.  The files are
only read, never run; a ``.gitignore`` that cannot be read is treated as empty.
"""
from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence, Tuple

from punstats.sources.local import read_small

#: The reasons an entry is left out, as counted among the skipped entries.
GITIGNORE = "gitignore"
EXCLUDED = "excluded"


def _spec(lines: Sequence[str]):
    import pathspec
    return pathspec.GitIgnoreSpec.from_lines(lines)


#: A ``.gitignore`` larger than this is not read (none of a real project's comes near it).
GITIGNORE_BYTES = 16 * 1024 * 1024


def _read_lines(path: str) -> List[str]:
    """The lines of a ``.gitignore`` that is a regular file; none for a FIFO, a device or a
    file over ``GITIGNORE_BYTES``, which are never opened for a read that could block."""
    text = read_small(path, GITIGNORE_BYTES)
    return text.splitlines() if text is not None else []


def _work_tree_ancestors(root: str) -> List[str]:
    """The directories above ``root``, up to the one holding ``.git`` (top first); none outside a work tree."""
    found, here = [], os.path.dirname(root)
    if os.path.exists(os.path.join(root, ".git")):
        return []
    while here and here != os.path.dirname(here):
        found.append(here)
        if os.path.exists(os.path.join(here, ".git")):
            return found[::-1]
        here = os.path.dirname(here)
    return []


class Ignore:
    """A matcher for one walk: ``reason(relpath, is_dir)`` says why an entry
    (a POSIX path relative to the root) is left out, or None."""

    def __init__(self, root: str, gitignore: bool = True, exclude: Sequence[str] = ()) -> None:
        self.root = os.path.abspath(root)
        self.gitignore = gitignore
        self.exclude = tuple(exclude)
        self._exclude = _spec(self.exclude) if self.exclude else None
        self._specs: Dict[str, Any] = {}
        self._above: List[Tuple[str, Any]] = []
        if gitignore:
            for directory in _work_tree_ancestors(self.root):
                lines = _read_lines(os.path.join(directory, ".gitignore"))
                if lines:
                    prefix = os.path.relpath(self.root, directory).replace(os.sep, "/") + "/"
                    self._above.append((prefix, _spec(lines)))
            if self._root_ignored():  # the user named it: scanned, and the rules above it do not apply
                self._above = []

    def _root_ignored(self) -> bool:
        """Whether a ``.gitignore`` above the root ignores the root or a directory on the way to it
        (``/versions/*`` in a pyenv clone ignores every installed standard library)."""
        for prefix, spec in self._above:
            parts = prefix.rstrip("/").split("/")
            if any(spec.match_file("/".join(parts[:i]) + "/") for i in range(1, len(parts) + 1)):
                return True
        return False

    def _directory_spec(self, rel_dir: str):
        if rel_dir not in self._specs:
            lines = _read_lines(os.path.join(self.root, *rel_dir.split("/"), ".gitignore")) if rel_dir \
                else _read_lines(os.path.join(self.root, ".gitignore"))
            self._specs[rel_dir] = _spec(lines) if lines else None
        return self._specs[rel_dir]

    def reason(self, relpath: str, is_dir: bool) -> Optional[str]:
        path = relpath + "/" if is_dir else relpath
        if self._exclude is not None and self._exclude.match_file(path):
            return EXCLUDED
        if not self.gitignore:
            return None
        decision = None
        for prefix, spec in self._above:
            result = spec.check_file(prefix + path).include
            decision = result if result is not None else decision
        parts = relpath.split("/")
        for depth in range(len(parts)):  # the root's .gitignore, then each directory's down to the entry's
            spec = self._directory_spec("/".join(parts[:depth]))
            if spec is not None:
                result = spec.check_file("/".join(parts[depth:]) + ("/" if is_dir else "")).include
                decision = result if result is not None else decision
        return GITIGNORE if decision else None

    def provenance(self) -> Dict[str, object]:
        """What a stored scan records about it."""
        return {"gitignore": self.gitignore, "exclude": list(self.exclude)}


def matcher(root: str, gitignore: bool = True, exclude: Sequence[str] = ()) -> Optional[Ignore]:
    """The matcher for a walk of ``root``, or None when nothing is left out."""
    if not gitignore and not exclude:
        return None
    return Ignore(root, gitignore, exclude)
