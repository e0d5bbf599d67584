"""Local sources: the running interpreter's standard library and directories,
with the git commit of a work tree read from ``.git`` files (never by running git).
"""
from __future__ import annotations

import datetime
import os
import platform
import stat
import sys
import sysconfig
from typing import Optional

from punstats.model.corpus import Corpus, SourceError


def stdlib_corpus() -> Corpus:
    root = sysconfig.get_path("stdlib")
    version = "%d.%d" % sys.version_info[:2]
    revision = "%s %s" % (platform.python_implementation(), platform.python_version())
    return Corpus("stdlib-" + version, root, "stdlib", revision)


def printable(relpath: str) -> str:
    """A path as text: POSIX separators, undecodable bytes escaped."""
    text = relpath.replace(os.sep, "/")
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


#: The most bytes a file name may hold (a scan's default folder is named after its corpus).
NAME_BYTES = 255


def corpus_name(path: str, default: str = "root") -> str:
    """What a scan of ``path`` is called by default: its last component, as one plain folder
    name (``places.plain_name``) so that ``data/<name>/`` can hold it without ``--name``: a byte
    that is not UTF-8 and a backslash are written ``%XX`` (``caf%E9``, ``a%5Cb``), and a name
    that grows past ``NAME_BYTES`` so is cut; ``default`` for none (``/``)."""
    text = os.path.basename(path.rstrip(os.sep))
    pieces = ["%%%02X" % (ord(c) - 0xDC00) if 0xDC80 <= ord(c) <= 0xDCFF else "%5C" if c == "\\" else c
              for c in text]
    while len("".join(pieces).encode("utf-8", "surrogatepass")) > NAME_BYTES:
        pieces.pop()
    return "".join(pieces) or default


def check_path(argument: str) -> str:
    """The absolute path of a directory or regular file to read (a link named is followed);
    ``SourceError`` for anything else: missing, a FIFO or device, a directory that cannot be listed."""
    path = os.path.abspath(argument)
    if not os.path.exists(path):
        raise SourceError("no such file or directory: %s" % argument)
    if not (os.path.isdir(path) or os.path.isfile(path)):
        raise SourceError("not a directory or a regular file: %s" % argument)
    if os.path.isdir(path):
        try:
            os.scandir(path).close()
        except OSError as exc:
            raise SourceError("cannot list the directory %s: %s" % (argument, exc.strerror or exc)) from None
    return path


#: The most a metadata file (``.git``, ``HEAD``, a ref) may hold; ``packed-refs`` may hold more.
METADATA_BYTES = 1 << 16
PACKED_REFS_BYTES = 1 << 28


def read_small(path: str, limit: int = METADATA_BYTES) -> Optional[str]:
    """The text of a regular file of at most ``limit`` bytes, else None (``read_regular``:
    a FIFO, a device or a file over the limit is refused before any read)."""
    try:
        return read_regular(path, "file", limit).decode("utf-8", "replace")
    except SourceError:
        return None


#: The most a file argument read whole (a corpus file, a project list) may hold.
ARGUMENT_BYTES = 64 * 1024 * 1024


def read_regular(path: str, what: str, limit: Optional[int] = None) -> bytes:
    """The bytes of ``path``, a file the user named (``what`` it is, for the message);
    a one-line ``SourceError`` when it is missing, not a regular file (a FIFO, a device,
    a directory: refused before any read, the open non-blocking so a FIFO swapped in
    cannot hang it) or over ``limit`` bytes (None: ``ARGUMENT_BYTES``)."""
    limit = ARGUMENT_BYTES if limit is None else limit
    fd = open_regular(path, what, limit)
    try:
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)
    except OSError as exc:
        raise SourceError("cannot read %s %s: %s" % (what, path, exc.strerror or exc)) from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise SourceError("%s %s is over %d bytes" % (what, path, limit))
    return data


def open_regular(path: str, what: str, limit: int) -> int:
    """A descriptor of ``path`` open for reading, checked as ``read_regular`` checks it
    (for a caller that reads it in chunks, stopping at ``limit`` bytes); the caller closes it."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise SourceError("%s %s is not a regular file" % (what, path))
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except SourceError:
        raise
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        raise SourceError("cannot read %s %s: %s" % (what, path, getattr(exc, "strerror", None) or exc)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SourceError("%s %s is not a regular file" % (what, path))
        if info.st_size > limit:
            raise SourceError("%s %s is over %d bytes" % (what, path, limit))
    except BaseException as exc:
        os.close(fd)
        if isinstance(exc, OSError):
            raise SourceError("cannot read %s %s: %s" % (what, path, exc.strerror or exc)) from None
        raise
    return fd


def git_head(directory: str) -> "tuple[str, str]":
    """(commit, committer date) of a git work tree's HEAD, read from files.

    Reads ``.git`` directly rather than running git: running git in a corpus
    could run programs its configuration names, and scanning never runs
    anything from the corpus.  Only regular files of bounded size are read
    (``read_small``).  The date is left empty (it needs the object store); git
    sources record it.
    """
    git = os.path.join(directory, ".git")
    if os.path.isfile(git):  # a worktree or submodule: "gitdir: PATH"
        line = (read_small(git) or "").strip()
        if not line.startswith("gitdir:"):
            return "", ""
        git = os.path.normpath(os.path.join(directory, line[len("gitdir:"):].strip()))
    head = (read_small(os.path.join(git, "HEAD")) or "").strip()
    if not head.startswith("ref:"):
        return head if _is_oid(head) else "", ""
    ref = head[len("ref:"):].strip()
    for base in (git, _common_dir(git)):
        loose = read_small(os.path.join(base, *ref.split("/")))
        if loose is not None:
            return (loose.strip() if _is_oid(loose.strip()) else ""), ""
        for entry in (read_small(os.path.join(base, "packed-refs"), PACKED_REFS_BYTES) or "").splitlines():
            parts = entry.split()
            if len(parts) == 2 and parts[1] == ref and _is_oid(parts[0]):
                return parts[0], ""
    return "", ""


def _is_oid(text: str) -> bool:
    return len(text) in (40, 64) and all(c in "0123456789abcdef" for c in text)


def _common_dir(git: str) -> str:
    common = read_small(os.path.join(git, "commondir"))
    return os.path.normpath(os.path.join(git, common.strip())) if common else git


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")

