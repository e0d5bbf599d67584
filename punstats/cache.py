"""A per-blob result cache: SQLite in the user's cache directory.

Results are keyed by (kind, content id, producer version, parser version):
``kind`` names what was computed (``extract``, ``compat``), the content id
is the git blob id of the file's bytes (computed for files outside git
too), the producer version is ``EXTRACTOR_VERSION`` or ``COMPAT_VERSION``
and the parser version is the interpreter's (implementation and version).
A sweep over many commits therefore costs little more than its distinct
blobs.  Values are zlib-compressed JSON.

Safe under concurrency: WAL journal, a busy timeout, and every write in one
transaction (``INSERT OR IGNORE``: the same key always holds the same value).
Location: ``$PUNSTATS_CACHE_DIR``, else ``$XDG_CACHE_HOME/punstats``, else
``~/.cache/punstats``.
"""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import zlib
from typing import Any, Dict, Iterable, Optional, Sequence, Tuple

FILE_NAME = "blobs.sqlite3"
SCHEMA = 1


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


def clear_downloads(directory: Optional[str] = None) -> None:
    import shutil
    for name in DOWNLOAD_DIRS:
        shutil.rmtree(os.path.join(directory or default_dir(), name), ignore_errors=True)


def blob_id(data: bytes) -> str:
    """git's object id of a blob with these bytes."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class BlobCache:
    """Get and put per-blob results; ``path=None``: the default location."""

    def __init__(self, path: Optional[str] = None) -> None:
        if path is None:
            path = os.path.join(default_dir(), FILE_NAME)
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, timeout=60, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA busy_timeout=60000")
        with self._transaction():
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS results ("
                " kind TEXT NOT NULL, blob TEXT NOT NULL, version TEXT NOT NULL, parser TEXT NOT NULL,"
                " value BLOB NOT NULL, PRIMARY KEY (kind, blob, version, parser)) WITHOUT ROWID")
            self._db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            self._db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA),))

    def _transaction(self):
        db = self._db

        class _Tx:
            def __enter__(self):
                db.execute("BEGIN IMMEDIATE")

            def __exit__(self, kind, *rest):
                db.execute("COMMIT" if kind is None else "ROLLBACK")
        return _Tx()

    def get_many(self, kind: str, version: str, parser: str, blobs: Sequence[str]) -> Dict[str, Any]:
        found: Dict[str, Any] = {}
        unique = sorted(set(blobs))
        for start in range(0, len(unique), 500):
            chunk = unique[start:start + 500]
            rows = self._db.execute(
                "SELECT blob, value FROM results WHERE kind=? AND version=? AND parser=? AND blob IN (%s)"
                % ",".join("?" * len(chunk)), (kind, version, parser, *chunk))
            for blob, value in rows:
                found[blob] = json.loads(zlib.decompress(value))
        return found

    def put_many(self, kind: str, version: str, parser: str, items: Iterable[Tuple[str, Any]]) -> None:
        rows = [(kind, blob, version, parser, zlib.compress(json.dumps(value).encode(), 6))
                for blob, value in items]
        if not rows:
            return
        with self._transaction():
            self._db.executemany("INSERT OR IGNORE INTO results VALUES (?, ?, ?, ?, ?)", rows)

    def get_bytes(self, kind: str, version: str, parser: str, key: str) -> Optional[bytes]:
        """A raw entry (``put_bytes``), or None."""
        row = self._db.execute("SELECT value FROM results WHERE kind=? AND version=? AND parser=? AND blob=?",
                               (kind, version, parser, key)).fetchone()
        return bytes(row[0]) if row else None

    def put_bytes(self, kind: str, version: str, parser: str, key: str, value: bytes) -> None:
        """Store ``value`` as it is (for values with a format of their own, e.g. parquet)."""
        with self._transaction():
            self._db.execute("INSERT OR REPLACE INTO results VALUES (?, ?, ?, ?, ?)",
                             (kind, key, version, parser, value))

    def delete(self, kinds: Sequence[str], version: str, parser: str, key: str) -> None:
        with self._transaction():
            self._db.executemany("DELETE FROM results WHERE kind=? AND version=? AND parser=? AND blob=?",
                                 [(kind, version, parser, key) for kind in kinds])

    def stats(self) -> Dict[str, Any]:
        """Where the cache is, its size on disk and its entries per kind."""
        files = [self.path + suffix for suffix in ("", "-wal", "-shm")]
        rows = self._db.execute("SELECT kind, COUNT(*), SUM(LENGTH(value)) FROM results GROUP BY kind ORDER BY kind")
        return {"path": self.path, "bytes": sum(os.path.getsize(f) for f in files if os.path.exists(f)),
                "entries": {kind: {"count": int(n), "bytes": int(size or 0)} for kind, n, size in rows}}

    def clear(self) -> int:
        """Remove every entry; the number removed."""
        with self._transaction():
            removed = self._db.execute("DELETE FROM results").rowcount
        self._db.execute("VACUUM")
        return int(removed)

    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM results").fetchone()[0])

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "BlobCache":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
