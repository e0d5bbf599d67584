"""Rewriting a whole tree: which files, in parallel, the totals, and writing back.

Files are read as ``scan`` reads them (regular files only, through no link).
Writing back (``write_back``) is atomic and never goes elsewhere: the
directory is opened through no symbolic link, the file must still hold the
bytes that were read (a file edited or deleted meanwhile is refused, never
overwritten or re-created), the new bytes go to a temporary file in the same
directory, flushed and synced, with the old owner, mode (all of it: setuid,
setgid and sticky bits too) and extended attributes (``rewrite.metadata``),
which then replaces the file (``os.replace`` relative to the opened
directory).  A failure, or anything of the file the replacement could not
keep (a hard link, an owner only root may give), leaves the file as it was
and is recorded for it (``not_written``).
"""
from __future__ import annotations

import contextlib
import dataclasses
import errno
import os
import stat
from dataclasses import dataclass
from typing import Callable, Optional, Sequence, Tuple

from punstats.discover.read import open_parent, read_source
from punstats.model.discovery import Candidate
from punstats.model.limits import DEFAULT_MAX_BYTES
from punstats.model.processes import signals_deferred
from punstats.rewrite.metadata import Identity, give, identity, unkeepable
from punstats.rewrite.rewrap import LINE_LENGTH
from punstats.rewrite.source import EXPAND, FILE_NOT_WRITTEN, FILE_UNREADABLE, PUN, Rewrite
from punstats.rewrite.transform import expand, pun


@dataclass(frozen=True)
class Summary:
    """Totals over the files of one rewrite run."""

    files: int  # source files read
    changed: int
    edits: int
    joins: int
    skipped: int  # occurrences left as they were (class keywords, f-strings, ...)
    untouched: int  # files left untouched because of an error
    lines_added: int
    lines_removed: int

    @property
    def lines_saved(self) -> int:
        return self.lines_removed - self.lines_added


def summarize(results: Sequence[Rewrite]) -> Summary:
    added = removed = 0
    for result in results:
        a, r = result.diff_counts()
        added += a
        removed += r
    return Summary(
        files=len(results),
        changed=sum(1 for r in results if r.changed),
        edits=sum(len(r.edits) for r in results),
        joins=sum(len(r.joins) for r in results),
        skipped=sum(len(r.skipped) for r in results),
        untouched=sum(1 for r in results if r.error),
        lines_added=added,
        lines_removed=removed,
    )


def _display_path(location: str, rel: str, root: str) -> str:
    """The path shown in diffs: relative to the working directory when inside it."""
    here = os.getcwd()
    full = os.path.abspath(location)
    if full == here or full.startswith(here.rstrip(os.sep) + os.sep):
        return os.path.relpath(full, here).replace(os.sep, "/")
    return rel


def _rewrite_one(job: Tuple[str, str, str, bool, int, str, bool]) -> Rewrite:
    location, path, mode, rewrap, line_length, style, delimited_only = job
    try:
        data = read_source(location, DEFAULT_MAX_BYTES)
    except OSError as exc:
        return Rewrite(path, mode, b"", b"", "", (), (), FILE_UNREADABLE, exc.strerror or str(exc), location=location)
    if mode == EXPAND:
        result = expand(data, path)
    else:
        result = pun(data, path, rewrap=rewrap, line_length=line_length, style=style,
                     delimited_only=delimited_only)
    return dataclasses.replace(result, location=location)


def rewrite_tree(root: str, mode: str = PUN, rewrap: bool = False, line_length: int = LINE_LENGTH,
                 jobs: Optional[int] = 1, extensions: Sequence[str] = (".py",), style: str = "postfix",
                 delimited_only: bool = False, progress: Optional[Callable[[int], None]] = None,
                 on_discovered: Optional[Callable[[int], None]] = None) -> Tuple[Rewrite, ...]:
    """Pun (or expand) every source file under ``root`` (or the file ``root``); writes nothing.

    A file named on its own ends as Python files do (``.py``, ``.pyw``, ``.pyi``) or as
    ``extensions`` says: else a ``SourceError``, in ``scan``'s words (a notebook's cells are
    not rewritten).
    Files are found as ``punstats scan`` finds them (``punstats.discover``);
    results come in that order, with paths relative to the working directory
    when the files are inside it (as ``git apply`` wants them).
    ``on_discovered`` is called with the number of files, ``progress`` with 1 per file done.
    """
    from punstats.discover.tree import DEFAULT_EXTENSIONS, EXTRA_EXTENSIONS, check_named_file, discover
    from punstats.extract.notebook import NOTEBOOK_SUFFIX
    if mode not in (PUN, EXPAND):
        raise ValueError("mode must be %r or %r, not %r" % (PUN, EXPAND, mode))
    check_named_file(root, root, tuple(dict.fromkeys((*DEFAULT_EXTENSIONS, *EXTRA_EXTENSIONS, *extensions))),
                     "; a notebook's cells are not rewritten" if root.endswith(NOTEBOOK_SUFFIX) else "")
    found = discover(root, tuple(extensions))
    return rewrite_candidates(found.candidates, found.root, mode, rewrap, line_length, jobs, style=style,
                              delimited_only=delimited_only, progress=progress, on_discovered=on_discovered)


def rewrite_candidates(candidates: Sequence[Candidate], root: str, mode: str = PUN, rewrap: bool = False,
                       line_length: int = LINE_LENGTH, jobs: Optional[int] = 1, style: str = "postfix",
                       delimited_only: bool = False, progress: Optional[Callable[[int], None]] = None,
                       on_discovered: Optional[Callable[[int], None]] = None) -> Tuple[Rewrite, ...]:
    """``rewrite_tree`` of files already discovered (a scan's own list); writes nothing."""
    jobs_list = [(c.location, _display_path(c.location, c.path, root), mode, rewrap, line_length,
                  style, delimited_only)
                 for c in candidates if not c.status and c.location]
    (on_discovered or (lambda n: None))(len(jobs_list))
    tick = progress or (lambda n: None)
    if jobs == 1 or len(jobs_list) < 2:
        return tuple(_ticked(_rewrite_one(job), tick) for job in jobs_list)
    from punstats.engines.base import default_jobs  # what "all cores" (jobs=None) means
    from punstats.engines.local import new_pool  # workers that die with this process
    with new_pool(jobs or default_jobs()) as pool:
        return tuple(_ticked(r, tick) for r in pool.map(_rewrite_one, jobs_list, chunksize=4))


def _ticked(result: Rewrite, tick: Callable[[int], None]) -> Rewrite:
    tick(1)
    return result


def write(results: Sequence[Rewrite]) -> int:
    """Write every changed file back where it was read from; returns how many."""
    return sum(1 for before, after in zip(results, write_back(results)) if before.changed and after.changed)


def write_back(results: Sequence[Rewrite]) -> Tuple[Rewrite, ...]:
    """Write every changed file back (atomically, see the module); the results, with
    each file that could not be written marked ``not_written`` and left unchanged."""
    out = []
    for result in results:
        if result.changed:
            problem = _replace(result.location or os.path.abspath(result.path), result.old, result.new)
            if problem:
                result = dataclasses.replace(result, new=result.old, error=FILE_NOT_WRITTEN, detail=problem)
        out.append(result)
    return tuple(out)


def _replace(location: str, old: bytes, new: bytes) -> str:
    """Replace the file at ``location``, which must still hold ``old``, by ``new``; "" or why not."""
    try:
        directory, name = open_parent(location)
    except OSError as exc:
        return "cannot open its directory: %s" % (exc.strerror or exc)
    try:
        info, kept, problem = _unchanged(directory, name, old)
        if problem:
            return problem
        return _swap_in(directory, name, new, info, kept)
    finally:
        os.close(directory)


def _unchanged(directory: int, name: str, old: bytes) -> Tuple[Optional[os.stat_result], Optional[Identity], str]:
    """(its status, its identity, "") when ``name`` still is a regular file holding ``old``,
    else (None, None, why not)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(name, flags, dir_fd=directory)
    except FileNotFoundError:
        return None, None, "vanished since it was read: not re-created"
    except OSError as exc:
        return None, None, "cannot read it again: %s" % (exc.strerror or exc)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, None, "no longer a regular file"
        kept = identity(fd)
        current = b""
        while len(current) <= len(old):
            chunk = os.read(fd, max(1 << 20, len(old) + 1 - len(current)))
            if not chunk:
                break
            current += chunk
    finally:
        os.close(fd)
    if current != old:
        return None, None, "changed since it was read: left as it is now"
    return info, kept, ""


def _swap_in(directory: int, name: str, data: bytes, info: os.stat_result, kept: Identity) -> str:
    """Write ``data`` to a temporary file beside ``name`` with the identity ``kept`` of the
    file, then put it in its place; "" or why not."""
    refused = unkeepable(kept)
    if refused:
        return refused
    temp = ".%s.punstats-%d.tmp" % (name, os.getpid())
    # Ctrl-C or SIGTERM between creating the temporary file and renaming or removing it would
    # leave it beside the source: they are delivered once it is gone (renamed or removed)
    with signals_deferred():
        problem = _write_beside(directory, name, temp, data, info, kept)
    if problem:
        return problem
    try:
        os.fsync(directory)
    except OSError:
        pass
    return ""


def _write_beside(directory: int, name: str, temp: str, data: bytes, info: os.stat_result, kept: Identity) -> str:
    """``data`` into the new file ``temp`` beside ``name``, then renamed over it; "" or why not,
    ``temp`` removed whatever happens (an error, an exception)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(temp, flags, 0o600, dir_fd=directory)  # its own mode once it is whole
    except OSError as exc:
        return "cannot create a temporary file beside it: %s" % (exc.strerror or exc)
    renamed = False
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            problem = give(fd, kept)
            if problem:
                raise OSError(errno.EPERM, problem)
            os.fsync(fd)
        finally:
            os.close(fd)
        now = os.stat(name, dir_fd=directory, follow_symlinks=False)
        if (now.st_ino, now.st_size, now.st_mtime_ns) != (info.st_ino, info.st_size, info.st_mtime_ns):
            raise OSError(errno.EAGAIN, "changed while it was being written: left as it is now")
        os.replace(temp, name, src_dir_fd=directory, dst_dir_fd=directory)
        renamed = True
    except OSError as exc:
        return exc.strerror or str(exc)
    finally:
        if not renamed:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=directory)
    return ""
