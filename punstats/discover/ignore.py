"""Which entries of a work tree a scan leaves out: ``.gitignore`` files and ``--exclude`` globs.

As ruff and ripgrep do, a walk honours the ``.gitignore`` files it finds
(in the root, in every directory below it, and in the directories above it
up to the work tree's top, the one holding ``.git``, unless those ignore the
root itself: a directory the user names is scanned), with git's own rules
(a deeper file overrides a shallower one, the last matching line of a file
decides, ``!pattern`` re-includes, a pattern with ``/`` is anchored, a pattern
ending in ``/`` matches directories only).  ``pathspec`` turns each line into a
regular expression; which line decides is worked out here (``Rules``), since
``pathspec``'s own order (``GitIgnoreSpec``) lets a line that ignores a directory's
entries win over a later ``!dir/`` re-including the directory itself.  As in git,
a line matches an entry itself, never through a directory above it: the walk
does not enter an ignored directory, so what is in it stays out whatever later
lines say, and ``!sub/`` re-includes the directory ``sub``, not what ``*``
ignores in it.  ``--exclude``
patterns use the same syntax, relative to the scan's root.  The files are
only read, never run; a ``.gitignore`` that cannot be read is treated as empty.

Each line is read as git reads it (``_as_git_reads``): split on ``\n`` only, trailing
spaces trimmed unless escaped, and a line git matches nothing with (a lone ``!``, a
trailing unescaped backslash, any other line ``pathspec`` refuses) left out, as is a
line over ``GITIGNORE_LINE`` characters, so no content of a ``.gitignore`` stops a scan.
"""
from __future__ import annotations

import os
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

from punstats.sources.local import read_small

#: The reasons an entry is left out, as counted among the skipped entries.
GITIGNORE = "gitignore"
EXCLUDED = "excluded"


def _trim_trailing_spaces(line: str) -> str:
    """``line`` without its trailing spaces (not tabs), as git's ``trim_trailing_spaces``:
    a space escaped by a backslash stays, the spaces after it go."""
    stripped = line.rstrip(" ")
    if stripped == line:
        return line
    backslashes = len(stripped) - len(stripped.rstrip("\\"))
    return stripped + " " if backslashes % 2 else stripped


#: A longer line is left out, where git would read it: no path is this long, so only its
#: wildcards could match, and pathspec takes time quadratic in a line's length (minutes
#: for a line of a megabyte).
GITIGNORE_LINE = 4096


def _as_git_reads(line: str) -> Optional[str]:
    """The pattern git makes of a line, or None for one it matches nothing with (or longer
    than ``GITIGNORE_LINE``)."""
    if len(line) > GITIGNORE_LINE:
        return None
    line = _trim_trailing_spaces(line)
    # git's wildmatch fails on a pattern ending in an unescaped backslash, and the
    # pattern of a lone "!" is empty: such a line neither ignores nor re-includes
    if line == "!" or (len(line) - len(line.rstrip("\\"))) % 2:
        return None
    return line


def _compiled(line: str) -> List[Any]:
    """The pathspec pattern of one line; none for a line it refuses (git matches nothing with those)."""
    import pathspec
    try:
        return list(pathspec.GitIgnoreSpec.from_lines([line]).patterns)
    except ValueError:  # GitWildMatchPatternError (pathspec < 1), GitIgnorePatternError
        return []


class Rules:
    """The lines of one ``.gitignore`` (or the ``--exclude`` globs), compiled: ``check(path)``
    says what the last line matching ``path`` itself says (``path`` relative to the file's
    directory, ending in ``/`` for a directory)."""

    def __init__(self, patterns: Sequence[Any]) -> None:
        self.rules = [(_itself(p.regex), bool(p.include)) for p in patterns[::-1]
                      if p.include is not None and p.regex is not None]

    def check(self, path: str) -> Optional[bool]:
        """True: ignored, False: re-included, None: no line matches ``path`` itself."""
        for regex, include in self.rules:
            found = regex.search(path)
            # the group ends the directory a line names: at the end of the path, or it named a directory above
            if found and (found.groupdict().get("ps_d") is None or found.end("ps_d") == len(path)):
                return include
        return None

    def match_file(self, path: str) -> bool:
        return bool(self.check(path))


def _itself(regex: Any) -> Any:
    """``regex`` (pathspec's, of one line) matching a path itself, never only as an entry of a
    directory it matches: pathspec's expressions match a prefix (``sub/`` matches ``sub/a.py``),
    ending where the directory a line names ends (the group ``ps_d``), so they are anchored at
    the end; ``a/**`` (``^a/``) matches what is in ``a``, not ``a/`` itself."""
    text = regex.pattern
    if "ps_d" in regex.groupindex:
        text += "$"
    elif text.endswith("/"):
        text += "."
    return re.compile(text, regex.flags)


def _spec(lines: Sequence[str]) -> Rules:
    kept = (_as_git_reads(line) for line in lines)
    # one line at a time, so that a line pathspec refuses leaves out that line only
    return Rules([pattern for line in kept if line is not None for pattern in _compiled(line)])


#: A ``.gitignore`` larger than this is not read (none of a real project's comes near it).
GITIGNORE_BYTES = 16 * 1024 * 1024


def _read_lines(path: str) -> List[str]:
    """The lines of a ``.gitignore`` that is a regular file; none for a FIFO, a device or a
    file over ``GITIGNORE_BYTES``, which are never opened for a read that could block."""
    text = read_small(path, GITIGNORE_BYTES)
    if not text:
        return []
    # as git splits them: on "\n" only (not on "\f" or "\x1c", as splitlines would), one
    # "\r" before it dropped, and a byte-order mark at the start skipped
    lines = text[1:].split("\n") if text.startswith("\ufeff") else text.split("\n")
    return [line[:-1] if line.endswith("\r") else line for line in lines]


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
            result = spec.check(prefix + path)
            decision = result if result is not None else decision
        parts = relpath.split("/")
        for depth in range(len(parts)):  # the root's .gitignore, then each directory's down to the entry's
            spec = self._directory_spec("/".join(parts[:depth]))
            if spec is not None:
                result = spec.check("/".join(parts[depth:]) + ("/" if is_dir else ""))
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
