"""The files of a git directory, checked before git opens any: nothing that blocks or never ends.

git opens the files of a repository without asking what they are: a FIFO
(``config``, ``packed-refs``, a ref, ``shallow``, ...) blocks it for ever, a
device (``/dev/zero``) gives it bytes without end, a huge sparse file keeps it
reading.  ``check_repository`` looks at every file git may open for the
plumbing punstats runs, without opening any of them, and raises ``GitError``
naming the first that is a FIFO or a device, or a metadata file over its size
limit (``LIMITS``).  Links are followed, as git follows them; sockets are let
through (git's ``open`` fails on them at once).

Checked: the git directory and its common directory (``commondir``), both
directories; every entry at their top level (``HEAD``, ``config``,
``config.worktree``, ``packed-refs``, ``shallow``, ``commondir``, ``index``,
``FETCH_HEAD`` and the other pseudo-refs, ...); everything below ``refs/``,
``logs/``, ``info/`` and ``worktrees/``; the object directories (loose objects,
``pack/``, ``info/``), the alternate object directories
``objects/info/alternates`` names, nested as git nests them; and the files
``include.path`` and ``includeIf.*.path`` name, nested too, listed by ``git
config --no-includes`` (which opens only the file it is given).
"""
from __future__ import annotations

import ast
import os
import stat
from typing import Dict, List, Optional, Set, Tuple

from punstats.sources.gitprocess import GIT, GitError, run
from punstats.sources.local import METADATA_BYTES, PACKED_REFS_BYTES, read_small

#: The most a configuration file (the repository's or an included one) may hold.
CONFIG_BYTES = 1 << 24

#: Size limits of the files git reads whole, by path relative to a git directory; any
#: other file at the top level (``FETCH_HEAD``, ``ORIG_HEAD``, ...) may hold ``PACKED_REFS_BYTES``,
#: a loose ref ``METADATA_BYTES``.
LIMITS: Dict[str, int] = {
    "config": CONFIG_BYTES, "config.worktree": CONFIG_BYTES, "HEAD": METADATA_BYTES,
    "commondir": METADATA_BYTES, "gitdir": METADATA_BYTES, "packed-refs": PACKED_REFS_BYTES,
    "shallow": PACKED_REFS_BYTES, "info/grafts": PACKED_REFS_BYTES,
}

#: Top-level files with no size limit: git maps or seeks them rather than reading them whole.
UNLIMITED = ("index", "sharedindex.")

#: Directories below which every file is checked; ``objects`` is checked as git reads it.
WALKED = ("refs", "logs", "info", "worktrees")

#: The most entries the walks of one repository may meet (links may lead anywhere).
MAX_ENTRIES = 1_000_000

#: How deeply alternates and includes may nest (git's own limits: 5 and 10).
MAX_ALTERNATES_DEPTH = 5
MAX_INCLUDE_DEPTH = 10

#: The configuration keys that include another file.
INCLUDE_KEYS = r"^include(if\..*)?\.path$"


def _what(mode: int) -> Optional[str]:
    """What a file that git must not open is, or None for one it may."""
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    return None


def _stat(path: str) -> Optional[os.stat_result]:
    """``os.stat`` (links followed), None for a path that does not resolve."""
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


def check_file(path: str, info: os.stat_result, limit: Optional[int]) -> None:
    """``GitError`` unless ``path`` is a directory, a socket or a regular file within ``limit``."""
    what = _what(info.st_mode)
    if what:
        raise GitError("cannot read the repository: %s is %s, not a regular file" % (path, what))
    if limit is not None and stat.S_ISREG(info.st_mode) and info.st_size > limit:
        raise GitError("cannot read the repository: %s holds %d bytes, over the limit of %d"
                       % (path, info.st_size, limit))


def check_path(path: str, limit: Optional[int]) -> None:
    """``check_file`` of ``path`` if it resolves."""
    info = _stat(path)
    if info is not None:
        check_file(path, info, limit)


def _directory(path: str, named_by: Optional[str] = None) -> None:
    """``GitError`` unless ``path`` is a directory (``named_by``: the file that names it)."""
    info = _stat(path)
    if info is None or not stat.S_ISDIR(info.st_mode):
        what = "nothing" if info is None else _what(info.st_mode) or "a file"
        if named_by is None:
            raise GitError("cannot read the repository: %s is %s, not a directory" % (path, what))
        raise GitError("cannot read the repository: %s names %s, which is %s, not a directory"
                       % (named_by, path, what))


def _entry(entry: os.DirEntry, limit: Optional[int]) -> Optional[os.stat_result]:
    """Check one entry of a listing; its ``stat`` if it is a directory, else None."""
    if limit is None and entry.is_file(follow_symlinks=False):
        return None  # a regular file, known from the listing: no stat needed
    info = _stat(entry.path)
    if info is None:
        return None
    if stat.S_ISDIR(info.st_mode):
        return info
    check_file(entry.path, info, limit)
    return None


class _Checker:
    """One repository's check: the directories already seen and the entries met."""

    def __init__(self) -> None:
        self.seen: Set[Tuple[int, int]] = set()
        self.entries = 0

    def first_visit(self, info: os.stat_result) -> bool:
        key = (info.st_dev, info.st_ino)
        if key in self.seen:
            return False
        self.seen.add(key)
        return True

    def top_level(self, gitdir: str) -> None:
        """Every file directly in a git directory, and the directories below it git reads."""
        for entry in _listing(gitdir):
            info = _stat(entry.path)
            if info is None:
                continue
            if stat.S_ISDIR(info.st_mode):
                if entry.name in WALKED:
                    self.walk(entry.path, METADATA_BYTES if entry.name == "refs" else None)
                elif entry.name == "objects":
                    self.objects(entry.path, 0)
                continue
            unlimited = entry.name.startswith(UNLIMITED)
            check_file(entry.path, info, None if unlimited else LIMITS.get(entry.name, PACKED_REFS_BYTES))

    def walk(self, directory: str, limit: Optional[int]) -> None:
        """Every file below ``directory`` (links followed, each directory once)."""
        stack = [directory]
        while stack:
            for entry in _listing(stack.pop()):
                self.entries += 1
                if self.entries > MAX_ENTRIES:
                    raise GitError("cannot read the repository: more than %d files below %s"
                                   % (MAX_ENTRIES, directory))
                info = _entry(entry, LIMITS.get(_limit_key(entry.path, directory), limit))
                if info is not None and self.first_visit(info):
                    stack.append(entry.path)

    def objects(self, directory: str, depth: int) -> None:
        """An object directory as git reads it: loose objects, ``pack/``, ``info/``, alternates."""
        info = _stat(directory)
        if info is None or not self.first_visit(info):
            return
        for entry in _listing(directory):
            if _entry(entry, None) is None:
                continue
            if entry.name == "info":
                self.walk(entry.path, None)
            elif entry.name == "pack" or _is_fanout(entry.name):
                for inner in _listing(entry.path):  # files only: git looks no deeper
                    _entry(inner, None)
        for name in ("alternates", "http-alternates"):
            path = os.path.join(directory, "info", name)
            info = _stat(path)
            if info is not None:
                check_file(path, info, METADATA_BYTES)
        if depth < MAX_ALTERNATES_DEPTH:
            for alternate in alternates(directory):
                if _stat(alternate) is not None:
                    _directory(alternate, os.path.join(directory, "info", "alternates"))
                    self.objects(alternate, depth + 1)


def _limit_key(path: str, walked: str) -> str:
    """``path`` relative to the git directory, as ``LIMITS`` names it (a linked worktree's
    ``worktrees/NAME/HEAD`` as ``HEAD``)."""
    relative = os.path.relpath(path, os.path.dirname(walked)).replace(os.sep, "/")
    parts = relative.split("/", 2)
    return parts[2] if parts[0] == "worktrees" and len(parts) == 3 else relative


def _is_fanout(name: str) -> bool:
    return len(name) == 2 and all(c in "0123456789abcdef" for c in name)


def _listing(directory: str) -> List[os.DirEntry]:
    """The entries of a directory; none when it cannot be listed (git cannot list it either)."""
    try:
        with os.scandir(directory) as entries:
            return list(entries)
    except OSError:
        return []


def alternates(objects: str) -> List[str]:
    """The alternate object directories ``objects/info/alternates`` names, absolute."""
    text = read_small(os.path.join(objects, "info", "alternates")) or ""
    found = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith('"'):  # C-quoted, as git writes a path with special characters
            try:
                line = os.fsdecode(ast.literal_eval("b" + line))
            except (ValueError, SyntaxError):
                continue
        found.append(os.path.normpath(os.path.join(objects, line)))
    return found


def common_dir(gitdir: str) -> str:
    """The directory ``gitdir/commondir`` names (a linked worktree's main git directory), or ``gitdir``."""
    path = os.path.join(gitdir, "commondir")
    if _stat(path) is None:
        return gitdir
    text = (read_small(path) or "").strip()
    common = os.path.normpath(os.path.join(gitdir, text))
    _directory(common, path)
    return common


def _includes(config: str, env: Dict[str, str]) -> List[str]:
    """The files ``config`` includes, absolute, read by git without following any include."""
    argv = [GIT, "config", "--file", config, "--no-includes", "--null", "--get-regexp", INCLUDE_KEYS]
    status, out, err = run(argv, dict(env, GIT_DIR=os.devnull))  # no repository: only that file is read
    if status == 1:  # no include
        return []
    if status != 0:
        message = err.decode("utf-8", "replace").strip().splitlines()
        raise GitError("cannot read the repository: bad configuration %s: %s"
                       % (config, message[-1] if message else status))
    paths = []
    for record in out.split(b"\0"):
        _, _, value = record.partition(b"\n")
        if value:
            path = os.path.expanduser(os.fsdecode(value))
            paths.append(os.path.normpath(os.path.join(os.path.dirname(config), path)))
    return paths


def check_includes(config: str, env: Dict[str, str], depth: int = 0) -> None:
    """``GitError`` if ``config`` includes, at any depth, a file that is no small regular file."""
    if depth > MAX_INCLUDE_DEPTH or _stat(config) is None:
        return
    text = read_small(config, CONFIG_BYTES)
    if text is not None and "include" not in text.lower():  # no include section: git need not be asked
        return
    for included in _includes(config, env):
        info = _stat(included)
        if info is None:  # git skips a missing include
            continue
        if not stat.S_ISREG(info.st_mode):
            what = _what(info.st_mode) or "a directory"
            raise GitError("cannot read the repository: %s includes %s, which is %s, not a regular file"
                           % (config, included, what))
        check_file(included, info, CONFIG_BYTES)
        check_includes(included, env, depth + 1)


def check_repository(gitdir: str, env: Dict[str, str]) -> None:
    """``GitError`` naming the first file of the repository at ``gitdir`` that git could block
    on or read without end; ``env`` is git's environment (for ``git config``)."""
    _directory(gitdir)
    checker = _Checker()
    checker.top_level(gitdir)
    common = common_dir(gitdir)
    if os.path.samefile(common, gitdir):
        directories = [gitdir]
    else:
        checker.top_level(common)
        directories = [gitdir, common]
    for directory in directories:
        for name in ("config", "config.worktree"):
            check_includes(os.path.join(directory, name), env)
