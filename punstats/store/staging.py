"""Where a stored scan is written: a hidden sibling of its directory, swapped in whole.

A scan is written into a ``Staging`` directory beside its final place and
swapped in when complete (one ``renameat2`` exchange on Linux, else two
renames), so a reader sees the previous scan or the new one, never a mix; a
scan stopped midway (killed, disk full) leaves the previous one as it was,
and the next scan of the same place removes what it left.  ``check_output``
runs before any extraction work.  Standard library only.
"""
from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import errno
import functools
import json
import os
import shutil
import stat
import tempfile
import time
from typing import Any, Callable, Dict, FrozenSet, Iterable, Optional, Tuple

from punstats.model.errors import PunstatsError, one_line
from punstats.store import places

OCCURRENCES_FILE = "occurrences.parquet"


FILES_FILE = "files.parquet"


FUNCTIONS_FILE = "functions.parquet"


SUMMARY_FILE = "summary.json"


#: Present while a stored scan is being written; a directory holding it was never finished.
WRITING_FILE = ".writing"


TABLE_FILES = {"occurrences": OCCURRENCES_FILE, "files": FILES_FILE, "functions": FUNCTIONS_FILE}


#: The labels a reader gave, beside the tables (``store.labels``): ``labels-NAME.csv``,
#: ``labels-NAME.stale.csv`` and ``labels-NAME.md`` per kind, and a sheet being written.
LABEL_PATTERNS = ("labels-*.csv", "labels-*.md", ".labels-*.tmp")


class StoreError(PunstatsError, ValueError):
    """A directory that does not hold a readable stored scan, or cannot receive one."""


#: errno of a write that found no room: a full device, a quota, the file size limit (``ulimit -f``)
NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def why(exc: OSError) -> str:
    """What failed, in the system's words (``No space left on device``): pyarrow's
    messages say it twice, after a number."""
    return os.strerror(exc.errno) if exc.errno else one_line(exc)


def cannot_store(exc: BaseException, name: str, what: str = "scan") -> StoreError:
    """The one-line error of a result (``what``: a scan, a history) that could not be stored
    in ``name`` (a write that failed)."""
    return StoreError("cannot store the %s in %s: %s" % (what, name, why(exc) if isinstance(exc, OSError) else exc))


def _stored_names() -> FrozenSet[str]:
    names = set(TABLE_FILES.values()) | {SUMMARY_FILE}
    return frozenset(names | {name.replace(".parquet", ".csv") for name in TABLE_FILES.values()})


#: A stored scan's directory.
SCAN = places.Layout("scan", _stored_names(), SUMMARY_FILE, WRITING_FILE, LABEL_PATTERNS)


def check_output(directory: str, protect: Iterable[Tuple[str, str]] = (), layout: places.Layout = SCAN) -> str:
    """The resolved path of ``directory`` if a stored scan can be put there, else ``StoreError``.

    The path is resolved first (``missing/..`` is where it leads); the place must not be
    the file system's root, the current, home or cache directory, an entry of ``protect``
    (what, path), or an ancestor of one; and what is there must be nothing, an empty
    directory, or a stored scan (which is then replaced)."""
    try:
        target = places.resolve_output(directory, protect)
    except places.PlaceError as exc:
        raise StoreError(str(exc)) from None
    if os.path.lexists(target):
        problem = places.replaceable_problem(target, layout)
        if problem:
            raise StoreError("cannot store the %s in %s: %s" % (layout.what, directory, problem))
    return target


class Staging:
    """A stored scan being written next to ``directory``, swapped in by ``commit``."""

    def __init__(self, directory: Optional[str], protect: Iterable[Tuple[str, str]] = (),
                 layout: places.Layout = SCAN) -> None:
        """``directory`` None: a private temporary directory (the tables are read back, then removed).

        ``protect``: (what, path) pairs the place must not be, nor hold (the corpus);
        ``layout``: what the directory holds (a stored scan, a history)."""
        self.target: Optional[str] = None
        self.layout = layout
        self.name = directory or "a temporary directory"  # as the user wrote it
        if directory is not None:
            self.target = check_output(directory, protect, layout)  # resolved, through links and ..
        try:
            if self.target is None:
                self.path = tempfile.mkdtemp(prefix="punstats-scan-")
            else:
                parent = os.path.dirname(self.target)
                os.makedirs(parent, exist_ok=True)
                _remove_stale(self.target, layout)
                self.path = tempfile.mkdtemp(prefix="." + os.path.basename(self.target) + ".partial-", dir=parent)
                os.chmod(self.path, 0o777 & ~_umask())  # as os.makedirs would create it
            _write_synced(os.path.join(self.path, WRITING_FILE), b"%d\n" % os.getpid())
        except OSError as exc:
            self.abort()
            raise StoreError("cannot store the scan in %s: %s" % (directory or "a temporary directory",
                                                                  one_line(exc))) from None

    def file(self, name: str) -> str:
        return os.path.join(self.path, name)

    def commit(self, summary: Dict[str, Any], after_swap: Optional[Callable[[str], None]] = None) -> None:
        """Write ``summary.json``, then put the whole directory in place at once.  ``after_swap``:
        called with the directory of the scan it replaced, moved aside, before that is removed (what
        was saved into it until the swap is still there); if it fails, that directory is kept, named
        in the error."""
        try:
            _write_synced(self.file(self.layout.summary), _summary_bytes(summary))
            for name in os.listdir(self.path):
                if name != WRITING_FILE:
                    _fsync(self.file(name))
            os.remove(self.file(WRITING_FILE))
            replaced = _swap_in(self.path, self.target, self.name, self.layout) if self.target else None
        except StoreError:
            self.abort()
            raise
        except OSError as exc:
            self.abort()
            raise cannot_store(exc, self.name, self.layout.what) from None
        if self.target:
            self.path = ""  # swapped: it names the replaced scan now, or nothing
        if replaced is not None and self.target:
            _hand_over(replaced, after_swap, self.target, self.name, self.layout)

    def restate(self, summary: Dict[str, Any]) -> None:
        """Replace the ``summary.json`` of the committed scan (``after_swap`` changed what it says)."""
        if self.target:
            write_atomic(os.path.join(self.target, self.layout.summary), _summary_bytes(summary))

    def abort(self) -> None:
        if getattr(self, "path", None):
            shutil.rmtree(self.path, ignore_errors=True)


def _summary_bytes(summary: Dict[str, Any]) -> bytes:
    return (json.dumps(summary, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _hand_over(replaced: Tuple[str, str], after_swap: Optional[Callable[[str], None]], target: str, name: str,
               layout: places.Layout) -> None:
    """Give the replaced scan (its directory, what holds it) to ``after_swap``, then remove it; if that
    fails, keep it beside ``target`` under a name no later scan removes, and say where."""
    previous, holder = replaced
    if after_swap is not None:
        try:
            after_swap(previous)
        except (OSError, PunstatsError) as exc:
            reason = why(exc) if isinstance(exc, OSError) else one_line(exc)
            kept = tempfile.mkdtemp(prefix=os.path.basename(target) + ".kept-", dir=os.path.dirname(target))
            os.rename(previous, os.path.join(kept, os.path.basename(target)))
            shutil.rmtree(holder, ignore_errors=True)
            raise StoreError("the %s is stored in %s, but what was saved into the one it replaced meanwhile "
                             "could not be taken over (%s): that one is kept in %s"
                             % (layout.what, name, reason, kept)) from None
    shutil.rmtree(holder, ignore_errors=True)


def _remove_stale(target: str, layout: places.Layout) -> None:
    """Remove what scans of ``target`` that were killed left beside it: only directories
    of the names they use, holding only what a scan writes (or a swapped-out scan)."""
    parent, name = os.path.split(target)
    for entry in os.listdir(parent):
        if not entry.startswith(("." + name + ".partial-", "." + name + ".old-")):
            continue
        path = os.path.join(parent, entry)
        if _ours(path, layout) and not _still_written(path):
            shutil.rmtree(path, ignore_errors=True)


def _ours(path: str, layout: places.Layout) -> bool:
    """A directory a scan left: a stored scan being written or swapped out, or an ``.old-`` holder of one."""
    if os.path.islink(path) or not os.path.isdir(path):
        return False
    entries = os.listdir(path)
    if WRITING_FILE in entries:  # a scan wrote its pid there first thing: what else is there is its own
        return True
    if entries == ["scan"]:  # .old-*: the previous scan, moved aside
        path = os.path.join(path, "scan")
    return places.replaceable_problem(path, layout) is None


def _still_written(path: str) -> bool:
    """A scan that is alive may still be writing ``path``."""
    try:
        with open(os.path.join(path, WRITING_FILE), "rb") as handle:
            pid = int(handle.read(32).strip())
        if pid > 0:
            os.kill(pid, 0)  # raises unless a scan still writes it
            return True
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    except (OSError, ValueError):  # no marker: swapped out, or just created
        return time.time() - os.lstat(path).st_mtime < STALE_SECONDS
    return False


#: A staging directory without its marker is left alone for this long (it may be just created).
STALE_SECONDS = 60


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@functools.lru_cache(maxsize=1)
def _new_file_mode() -> int:
    """The mode a new file gets here; read once, since reading the umask sets it for a moment."""
    return 0o666 & ~_umask()


def _fsync(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomic(path: str, data: bytes, before_replace: Optional[Callable[[], None]] = None) -> None:
    """``data`` at ``path``, whole or not at all: a temporary file in the same
    directory, flushed and synced, then renamed over ``path``.  A path that is
    there but is no regular file (a FIFO, a device, a directory, or a link to
    one) is ``StoreError``, never opened: a FIFO would hold the write until a
    reader came, and a device or what a link leads to is not punstats' to
    write.  A link to a regular file is replaced, what it led to left as it was.
    ``before_replace``: called once the data are on disk, just before the rename;
    if it raises, nothing is replaced."""
    check_writable(path)
    directory, name = os.path.split(os.path.abspath(path))
    fd, partial = tempfile.mkstemp(dir=directory, prefix="." + name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(partial, _new_file_mode())  # what open() would have made, not mkstemp's 0600
        if before_replace is not None:
            before_replace()
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(partial)
        raise


def check_writable(path: str) -> None:
    """``StoreError`` when ``path`` is there and is no regular file, through links (``write_atomic``)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:  # nothing there, a dangling link: the file written takes its place
        return
    if not stat.S_ISREG(mode):
        through = " (through a symbolic link)" if os.path.islink(path) else ""
        raise StoreError("cannot write %s: it is a %s%s, not a regular file: choose another path"
                         % (_shown(path), _file_kind(mode), through))


def _file_kind(mode: int) -> str:
    from punstats.discover.tree import file_kind
    return file_kind(mode)


def append_synced(path: str, line: str) -> None:
    """``line`` added at the end of the file ``path`` (made if missing), synced; ``StoreError`` when
    ``path`` is no regular file or a link, which are never written through (``write_atomic``)."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENXIO):  # a link; a FIFO without a reader
            check_writable(path)
            raise StoreError("cannot write %s: it is a symbolic link, not a regular file" % _shown(path)) from None
        raise
    with os.fdopen(fd, "a", encoding="utf-8") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise StoreError("cannot write %s: it is a %s, not a regular file"
                             % (_shown(path), _file_kind(os.fstat(fd).st_mode)))
        handle.write(line)
        handle.flush()
        os.fsync(handle.fileno())


def _shown(path: str) -> str:
    """``path`` for a one-line error: at most 200 characters."""
    return path if len(path) <= 200 else path[:200] + "..."


def _write_synced(path: str, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


_RENAME_EXCHANGE = 2


def _exchange(a: str, b: str) -> bool:
    """Swap two directories in one step (Linux ``renameat2``); False where not available."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd = -100
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):  # old kernel, a file system without it
        return False
    raise OSError(code, os.strerror(code), b)


def _swap_in(staged: str, target: str, name: str, layout: places.Layout) -> Optional[Tuple[str, str]]:
    """``staged`` becomes ``target``; a previous ``target`` is only moved aside, once replaced, and
    only if it is still what may be replaced (checked again once it is out of the way, so a
    directory filled since the check is put back and the scan refused): (where it is, what to
    remove), or None when there was none."""
    replaced: Optional[Tuple[str, str]] = None
    if not os.path.lexists(target):
        os.rename(staged, target)
    elif _exchange(staged, target):
        problem = places.replaceable_problem(staged, layout)  # now the previous content
        if problem:
            _exchange(staged, target)
            raise StoreError("cannot store the %s in %s: %s" % (layout.what, name, problem))
        replaced = (staged, staged)
    else:
        old = tempfile.mkdtemp(prefix="." + os.path.basename(target) + ".old-", dir=os.path.dirname(target))
        os.rename(target, os.path.join(old, "scan"))
        problem = places.replaceable_problem(os.path.join(old, "scan"), layout)
        if problem:
            os.rename(os.path.join(old, "scan"), target)
            os.rmdir(old)
            raise StoreError("cannot store the %s in %s: %s" % (layout.what, name, problem))
        os.rename(staged, target)
        replaced = (os.path.join(old, "scan"), old)
    parent = os.open(os.path.dirname(target), os.O_RDONLY)
    try:
        os.fsync(parent)
    finally:
        os.close(parent)
    return replaced
