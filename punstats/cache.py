"""A per-blob result cache: SQLite in the user's cache directory.

Results are keyed by (kind, content id, producer version, parser version):
``kind`` names what was computed (``extract``, ``compat``), the content id
is the git blob id of the file's bytes (computed for files outside git
too), the producer version is ``EXTRACTOR_VERSION`` or ``COMPAT_VERSION``
and the parser version is the interpreter's (implementation and version).
A sweep over many commits therefore costs little more than its distinct
blobs.  Values are zlib-compressed JSON.

Safe under concurrency: the database is created and switched to WAL under a
file lock, with a busy timeout set first and the switch retried (SQLite
answers "database is locked" at once, without waiting, when two connections
that both read the new file try to upgrade to a write); every write is one
transaction (``INSERT OR IGNORE``: the same key always holds the same value).

Never fatal: a cache that cannot be opened or used (a corrupt database, a
wrong schema, a read-only or full directory, a path that is a file) prints one
warning line and acts as an empty cache that stores nothing, so the run goes
on without it; rows that do not decode are dropped and recomputed;
``clear`` removes a database it cannot open and starts afresh.
Location: ``$PUNSTATS_CACHE_DIR``, else ``$XDG_CACHE_HOME/punstats``, else
``~/.cache/punstats``.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import random
import re
import sqlite3
import sys
import time
import zlib
from typing import Any, Callable, Dict, Iterable, Iterator, Optional, Sequence, Tuple

from punstats.model.errors import PunstatsError, one_line

FILE_NAME = "blobs.sqlite3"
SCHEMA = 1
COLUMNS = ("kind", "blob", "version", "parser", "value")
BUSY_SECONDS = 60


class CacheError(PunstatsError):
    """A database that is not a cache of this version; the message is for the user."""


def default_dir() -> str:
    explicit = os.environ.get("PUNSTATS_CACHE_DIR")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "punstats")


#: Folders beside the database: downloaded sdists (``pypi``) and bare clones (``git+URL``).
DOWNLOAD_DIRS = ("sdists", "repos")


def downloads(directory: Optional[str] = None) -> Dict[str, int]:
    """Bytes held in each download folder of the cache directory."""
    base = directory or default_dir()
    sizes = {}
    for name in DOWNLOAD_DIRS:
        total = 0
        for folder, _, files in os.walk(os.path.join(base, name)):
            total += sum(os.lstat(os.path.join(folder, f)).st_size for f in files)
        sizes[name] = total
    return sizes


#: The folder of one downloaded archive (and its unpacked trees): the archive's sha256.
ARCHIVE_FOLDER = r"[0-9a-f]{64}"

#: The names punstats gives what it puts in each download folder: an archive's sha256 (the
#: archive and its unpacked trees), a wheel's scratch folder, a URL's hash (a bare clone) and
#: a clone being made.  ``clear_downloads`` removes these and nothing else.
DOWNLOAD_NAMES = {"sdists": re.compile(ARCHIVE_FOLDER + r"|\.wheel-[A-Za-z0-9_]+"),
                  "repos": re.compile(r"[0-9a-f]{24}(\.partial-[0-9]+)?")}


def clear_downloads(directory: Optional[str] = None) -> None:
    """Remove what punstats downloaded; a folder that also holds anything else keeps it."""
    import shutil
    for name in DOWNLOAD_DIRS:
        folder = os.path.join(directory or default_dir(), name)
        if os.path.islink(folder) or not os.path.isdir(folder):
            continue
        for entry in os.listdir(folder):
            if DOWNLOAD_NAMES[name].fullmatch(entry):
                path = os.path.join(folder, entry)
                if os.path.islink(path) or not os.path.isdir(path):
                    os.unlink(path)
                else:
                    shutil.rmtree(path, ignore_errors=True)
        with contextlib.suppress(OSError):
            os.rmdir(folder)  # only if empty


def blob_id(data: bytes) -> str:
    """git's object id of a blob with these bytes."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@contextlib.contextmanager
def _init_lock(path: str) -> Iterator[None]:
    """An exclusive lock on ``PATH.lock`` while a connection creates or migrates the database."""
    try:
        import fcntl
    except ImportError:  # not POSIX: the retries alone
        yield
        return
    handle = open(path + ".lock", "a")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        handle.close()


def _retry(step: Callable[[], Any]) -> Any:
    """``step()``, again after a short random pause while SQLite answers busy or locked."""
    deadline, pause = time.monotonic() + BUSY_SECONDS, 0.005
    while True:
        try:
            return step()
        except sqlite3.OperationalError as exc:
            if not any(word in str(exc) for word in ("locked", "busy")) or time.monotonic() > deadline:
                raise
        time.sleep(pause * (1 + random.random()))
        pause = min(pause * 2, 0.25)


def _check(db: sqlite3.Connection) -> None:
    """Refuse (before writing anything) a database that is not this version's cache."""
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    if "meta" in tables:
        schema = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        if schema is None or schema[0] != str(SCHEMA):
            raise CacheError("schema %s, this version of punstats uses %d" % (schema and schema[0], SCHEMA))
    if "results" in tables and tuple(row[1] for row in db.execute("PRAGMA table_info(results)")) != COLUMNS:
        raise CacheError("its results table is not the one this version of punstats uses")


def _setup(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA busy_timeout=%d" % (BUSY_SECONDS * 1000))  # before anything reads the file
    _check(db)
    if db.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    db.execute("BEGIN IMMEDIATE")
    try:
        db.execute(
            "CREATE TABLE IF NOT EXISTS results ("
            " kind TEXT NOT NULL, blob TEXT NOT NULL, version TEXT NOT NULL, parser TEXT NOT NULL,"
            " value BLOB NOT NULL, PRIMARY KEY (kind, blob, version, parser)) WITHOUT ROWID")
        db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
        db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA),))
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def _open(path: str) -> sqlite3.Connection:
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with _init_lock(path):
        db = sqlite3.connect(path, timeout=BUSY_SECONDS, isolation_level=None)
        try:
            _retry(lambda: _setup(db))
        except BaseException:
            db.close()
            raise
    return db


def _one_line(exc: BaseException) -> str:
    text = one_line(exc)
    return text if isinstance(exc, (CacheError, sqlite3.Error)) else "%s (%s)" % (text, type(exc).__name__)


def _guarded(default: Callable[[], Any]) -> Callable:
    """A method that, on a cache given up or on an SQLite error (then giving it up), returns ``default()``."""
    def wrap(method: Callable) -> Callable:
        @functools.wraps(method)
        def run(self: "BlobCache", *args: Any, **kwargs: Any) -> Any:
            if self._db is None:
                return default()
            try:
                return method(self, *args, **kwargs)
            except sqlite3.Error as exc:
                self._give_up(exc)
                return default()
        return run
    return wrap


def _padded(chunk: Sequence[str]) -> Sequence[str]:
    """``chunk`` repeating its last key up to a power of two: a few distinct statements, not one per
    length (each length is one more prepared statement in the connection's cache, up to 128 of them)."""
    size = 1 << (len(chunk) - 1).bit_length()
    return list(chunk) + [chunk[-1]] * (size - len(chunk))


class BlobCache:
    """Get and put per-blob results; ``path=None``: the default location."""

    def __init__(self, path: Optional[str] = None) -> None:
        if path is None:
            path = os.path.join(default_dir(), FILE_NAME)
        self.path = path
        self.problem = ""  # why the cache was given up, if it was
        self._db: Optional[sqlite3.Connection] = None
        try:
            self._db = _open(path)
        except (sqlite3.Error, OSError, CacheError) as exc:
            self._give_up(exc)

    def _give_up(self, exc: BaseException) -> None:
        """Go on as an empty cache that stores nothing, after one warning line."""
        if self._db is not None:
            with contextlib.suppress(sqlite3.Error):
                self._db.close()
            self._db = None
        if not self.problem:
            self.problem = _one_line(exc)
            sys.stderr.write("punstats: warning: cache %s: %s; going on without it "
                             "(punstats cache --clear starts it afresh)\n" % (self.path, self.problem))

    def _transaction(self):
        db = self._db

        class _Tx:
            def __enter__(self):
                db.execute("BEGIN IMMEDIATE")

            def __exit__(self, kind, *rest):
                if kind is None:
                    db.execute("COMMIT")
                elif db.in_transaction:  # SQLite may have rolled back already (a full disk does)
                    db.execute("ROLLBACK")
        return _Tx()

    @_guarded(dict)
    def get_many(self, kind: str, version: str, parser: str, blobs: Sequence[str]) -> Dict[str, Any]:
        found: Dict[str, Any] = {}
        poisoned = []
        unique = sorted(set(blobs))
        for start in range(0, len(unique), 512):
            chunk = _padded(unique[start:start + 512])
            rows = self._db.execute(
                "SELECT blob, value FROM results WHERE kind=? AND version=? AND parser=? AND blob IN (%s)"
                % ",".join("?" * len(chunk)), (kind, version, parser, *chunk))
            for blob, value in rows:
                try:
                    found[blob] = json.loads(zlib.decompress(value))
                except (zlib.error, ValueError, TypeError, RecursionError):  # a damaged row: computed again
                    poisoned.append(blob)
        if poisoned:
            self.delete([kind], version, parser, *poisoned)
        return found

    @_guarded(lambda: None)
    def put_many(self, kind: str, version: str, parser: str, items: Iterable[Tuple[str, Any]]) -> None:
        rows = [(kind, blob, version, parser, zlib.compress(json.dumps(value).encode(), 6))
                for blob, value in items]
        if not rows:
            return
        with self._transaction():
            self._db.executemany("INSERT OR IGNORE INTO results VALUES (?, ?, ?, ?, ?)", rows)

    @_guarded(lambda: None)
    def get_bytes(self, kind: str, version: str, parser: str, key: str) -> Optional[bytes]:
        """A raw entry (``put_bytes``), or None."""
        row = self._db.execute("SELECT value FROM results WHERE kind=? AND version=? AND parser=? AND blob=?",
                               (kind, version, parser, key)).fetchone()
        return bytes(row[0]) if row and isinstance(row[0], bytes) else None

    @_guarded(lambda: None)
    def put_bytes(self, kind: str, version: str, parser: str, key: str, value: bytes) -> None:
        """Store ``value`` as it is (for values with a format of their own, e.g. parquet)."""
        with self._transaction():
            self._db.execute("INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?)",
                             (kind, key, version, parser, value))

    @_guarded(lambda: None)
    def delete(self, kinds: Sequence[str], version: str, parser: str, *keys: str) -> None:
        with self._transaction():
            self._db.executemany("DELETE FROM results WHERE kind=? AND version=? AND parser=? AND blob=?",
                                 [(kind, version, parser, key) for kind in kinds for key in keys])

    def stats(self) -> Dict[str, Any]:
        """Where the cache is, its size on disk, its entries per kind (and why it was given up)."""
        files = [self.path + suffix for suffix in ("", "-wal", "-shm")]
        stats = {"path": self.path, "bytes": sum(os.path.getsize(f) for f in files if os.path.isfile(f)),
                 "entries": self._entries()}
        if self.problem:
            stats["problem"] = self.problem
        return stats

    @_guarded(dict)
    def _entries(self) -> Dict[str, Dict[str, int]]:
        rows = self._db.execute("SELECT kind, COUNT(*), SUM(LENGTH(value)) FROM results GROUP BY kind ORDER BY kind")
        return {kind: {"count": int(n), "bytes": int(size or 0)} for kind, n, size in rows}

    def clear(self) -> int:
        """Remove every entry; the number removed.  A database that cannot be used is
        deleted and made afresh."""
        removed = self._delete_all()
        if removed is None:
            if self._db is not None:
                self._db.close()
                self._db = None
            for suffix in ("", "-wal", "-shm"):
                with contextlib.suppress(FileNotFoundError, IsADirectoryError, NotADirectoryError):
                    os.remove(self.path + suffix)
            self.problem = ""
            try:
                self._db = _open(self.path)
            except (sqlite3.Error, OSError, CacheError) as exc:
                self._give_up(exc)
            removed = 0
        return removed

    @_guarded(lambda: None)
    def _delete_all(self) -> Optional[int]:
        with self._transaction():
            removed = self._db.execute("DELETE FROM results").rowcount
        self._db.execute("VACUUM")
        return int(removed)

    @_guarded(int)
    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM results").fetchone()[0])

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self) -> "BlobCache":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
