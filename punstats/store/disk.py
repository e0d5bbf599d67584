"""A stored scan on disk: parquet tables with provenance metadata and ``summary.json``.

A scan is written into a hidden sibling of its directory (``Staging``) and
swapped in whole when complete, so a reader sees the previous scan or the
new one, never a mix; a scan stopped midway (killed, disk full) leaves the
previous one as it was.  ``check_output`` runs before any extraction work.
The tables are written chunk by chunk (``TableFiles``): row groups of
``ROW_GROUP_ROWS`` rows, with the explicit schema of ``store.schema``.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import errno
import json
import os
import shutil
import tempfile
import time
from typing import Any, Dict, Optional

import pyarrow as pa
import pyarrow.parquet as pq

from punstats.store import schema

OCCURRENCES_FILE = "occurrences.parquet"


FILES_FILE = "files.parquet"


FUNCTIONS_FILE = "functions.parquet"


SUMMARY_FILE = "summary.json"


#: Present while a stored scan is being written; a directory holding it was never finished.
WRITING_FILE = ".writing"


#: Rows per parquet row group: memory while writing is one group per table.
ROW_GROUP_ROWS = 64 * 1024


TABLE_FILES = {"occurrences": OCCURRENCES_FILE, "files": FILES_FILE, "functions": FUNCTIONS_FILE}


class StoreError(ValueError):
    """A directory that does not hold a readable stored scan, or cannot receive one."""


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def provenance_metadata(summary: Dict[str, Any]) -> Dict[str, Any]:
    """The part of a summary that describes what was measured, not when."""
    keep = ("corpus", "root", "source", "revision", "commit_date", "python",
            "python_implementation", "punstats_version", "extractor_version", "rules")
    return {key: summary[key] for key in keep if key in summary}


def _stored_names() -> set:
    names = set(TABLE_FILES.values()) | {SUMMARY_FILE}
    return names | {name.replace(".parquet", ".csv") for name in TABLE_FILES.values()}


def check_output(directory: str) -> None:
    """``StoreError`` unless a stored scan can be put at ``directory``: nothing
    there, an empty directory, or a stored scan (which is then replaced)."""
    if os.path.lexists(directory) and not os.path.isdir(directory):
        raise StoreError("cannot store the scan in %s: it exists and is not a directory" % directory)
    if os.path.isdir(directory):
        others = sorted(set(os.listdir(directory)) - _stored_names())
        if others:
            raise StoreError("cannot store the scan in %s: it holds other files than a stored scan (%s)"
                             % (directory, ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")))


class Staging:
    """A stored scan being written next to ``directory``, swapped in by ``commit``."""

    def __init__(self, directory: Optional[str]) -> None:
        """``directory`` None: a private temporary directory (the tables are read back, then removed)."""
        self.target = os.path.abspath(directory) if directory is not None else None
        try:
            if self.target is None:
                self.path = tempfile.mkdtemp(prefix="punstats-scan-")
            else:
                check_output(self.target)
                parent = os.path.dirname(self.target)
                os.makedirs(parent, exist_ok=True)
                _remove_stale(self.target)
                self.path = tempfile.mkdtemp(prefix="." + os.path.basename(self.target) + ".partial-", dir=parent)
                os.chmod(self.path, 0o777 & ~_umask())  # as os.makedirs would create it
            _write_synced(os.path.join(self.path, WRITING_FILE), b"%d\n" % os.getpid())
        except OSError as exc:
            self.abort()
            raise StoreError("cannot store the scan in %s: %s" % (directory or "a temporary directory",
                                                                  _one_line(exc))) from None

    def file(self, name: str) -> str:
        return os.path.join(self.path, name)

    def commit(self, summary: Dict[str, Any]) -> None:
        """Write ``summary.json``, then put the whole directory in place at once."""
        try:
            _write_synced(self.file(SUMMARY_FILE),
                          (json.dumps(summary, indent=2, ensure_ascii=False) + "\n").encode("utf-8"))
            for name in os.listdir(self.path):
                if name != WRITING_FILE:
                    _fsync(self.file(name))
            os.remove(self.file(WRITING_FILE))
            if self.target is not None:
                _swap_in(self.path, self.target)
        except OSError as exc:
            self.abort()
            raise StoreError("cannot store the scan in %s: %s" % (self.target, _one_line(exc))) from None

    def abort(self) -> None:
        if getattr(self, "path", None):
            shutil.rmtree(self.path, ignore_errors=True)


def _remove_stale(target: str) -> None:
    """Remove what scans of ``target`` that were killed left beside it."""
    parent, name = os.path.split(target)
    for entry in os.listdir(parent):
        if not entry.startswith(("." + name + ".partial-", "." + name + ".old-")):
            continue
        path = os.path.join(parent, entry)
        try:
            with open(os.path.join(path, WRITING_FILE), "rb") as handle:
                pid = int(handle.read().strip())
            if pid > 0:
                os.kill(pid, 0)  # raises unless a scan still writes it
                continue
        except ProcessLookupError:
            pass
        except PermissionError:  # alive, another user's
            continue
        except (OSError, ValueError):  # no marker: swapped out, or just created
            if time.time() - os.lstat(path).st_mtime < STALE_SECONDS:
                continue
        shutil.rmtree(path, ignore_errors=True)


#: A staging directory without its marker is left alone for this long (it may be just created).
STALE_SECONDS = 60


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _fsync(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


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


def _swap_in(staged: str, target: str) -> None:
    """``staged`` becomes ``target``; a previous ``target`` is removed only once replaced."""
    if not os.path.isdir(target):
        os.rename(staged, target)
    elif _exchange(staged, target):
        shutil.rmtree(staged, ignore_errors=True)  # now the previous scan
    else:
        old = tempfile.mkdtemp(prefix="." + os.path.basename(target) + ".old-", dir=os.path.dirname(target))
        os.rename(target, os.path.join(old, "scan"))
        os.rename(staged, target)
        shutil.rmtree(old, ignore_errors=True)
    parent = os.open(os.path.dirname(target), os.O_RDONLY)
    try:
        os.fsync(parent)
    finally:
        os.close(parent)


class ParquetTable:
    """One table written in row groups as its pieces arrive, in the explicit schema."""

    def __init__(self, path: str, columns: schema.Columns, provenance: Dict[str, Any],
                 row_group_rows: Optional[int] = None) -> None:
        metadata = {b"pandas": schema.pandas_metadata(columns),
                    b"punstats": json.dumps(provenance_metadata(provenance), sort_keys=True).encode()}
        self.schema = schema.arrow_schema(columns).with_metadata(metadata)
        self.writer = pq.ParquetWriter(path, self.schema)
        self.row_group_rows = row_group_rows or ROW_GROUP_ROWS
        self.pending: list = []
        self.buffered = 0
        self.rows = 0

    def put(self, table: pa.Table) -> None:
        self.pending.append(table.replace_schema_metadata(self.schema.metadata))
        self.buffered += table.num_rows
        while self.buffered >= self.row_group_rows:
            self._flush(self.row_group_rows)

    def _flush(self, rows: int) -> None:
        table = pa.concat_tables(self.pending) if self.pending else self.schema.empty_table()
        self.writer.write_table(table.slice(0, rows), row_group_size=max(rows, 1))
        rest = table.slice(rows)
        self.pending, self.buffered = ([rest] if rest.num_rows else []), rest.num_rows
        self.rows += rows

    def close(self) -> int:
        if self.buffered or not self.rows:  # an empty table is one empty row group, as pandas writes it
            self._flush(self.buffered)
        self.writer.close()
        return self.rows


class TableFiles:
    """The tables of one stored scan, each written as its pieces arrive (and
    copied to CSV with ``csv``, through pandas, as ``DataFrame.to_csv``)."""

    def __init__(self, directory: str, provenance: Dict[str, Any], csv: bool = False,
                 functions: bool = True) -> None:
        names = [name for name in schema.RAW if functions or name != "functions"]
        self.directory, self.csv = directory, csv
        self.tables = {name: ParquetTable(os.path.join(directory, TABLE_FILES[name]),
                                          schema.RAW[name] + schema.RULE_COLUMNS, provenance)
                       for name in names}
        self._csv_started: set = set()

    def put(self, name: str, table: pa.Table) -> None:
        self.tables[name].put(table)
        if self.csv:
            self._put_csv(name, table)

    def _put_csv(self, name: str, table: pa.Table) -> None:
        path = os.path.join(self.directory, TABLE_FILES[name].replace(".parquet", ".csv"))
        frame = table.replace_schema_metadata(self.tables[name].schema.metadata).to_pandas()
        frame.to_csv(path, index=False, mode="a" if name in self._csv_started else "w",
                     header=name not in self._csv_started)
        self._csv_started.add(name)

    def close(self) -> Dict[str, int]:
        """Rows written, per table."""
        rows = {name: table.close() for name, table in self.tables.items()}
        if self.csv:
            for name in self.tables:
                if name not in self._csv_started:
                    self._put_csv(name, schema.arrow_schema(schema.RAW[name] + schema.RULE_COLUMNS).empty_table())
        return rows


def read_summary(directory: str) -> Dict[str, Any]:
    """The summary of a stored scan, after checking that its tables are there and belong to it."""
    if os.path.exists(os.path.join(directory, WRITING_FILE)):
        raise StoreError("%s is a stored scan that was never finished (the scan writing it stopped); "
                         "scan again" % directory)
    paths = [os.path.join(directory, name) for name in (OCCURRENCES_FILE, FILES_FILE, SUMMARY_FILE)]
    missing = [os.path.basename(p) for p in paths if not os.path.isfile(p)]
    if missing:
        raise StoreError("%s is not a stored scan (missing %s)" % (directory, ", ".join(missing)))
    try:
        with open(paths[2], encoding="utf-8") as handle:
            summary = json.load(handle)
    except (OSError, ValueError) as exc:
        raise StoreError("%s: %s" % (paths[2], _one_line(exc))) from None
    if not isinstance(summary, dict):
        raise StoreError("%s: not a scan summary" % paths[2])
    rows = summary.get("rows") or {}
    for name, file_name in TABLE_FILES.items():
        path = os.path.join(directory, file_name)
        if not os.path.isfile(path):
            continue  # functions: stored before functions were recorded
        try:
            stored = pq.ParquetFile(path).metadata.num_rows
        except (OSError, pa.ArrowException) as exc:
            raise StoreError("%s: not a readable table: %s" % (path, _one_line(exc))) from None
        if name in rows and stored != rows[name]:
            raise StoreError("%s holds %d rows where its summary.json counts %d: the tables and the summary "
                             "are from different scans; scan again" % (path, stored, rows[name]))
    summary.pop("rows", None)  # checked; a summary in memory does not carry it
    return summary


def read_table(directory: str, name: str, columns: Optional[list] = None) -> Any:
    """One table of a stored scan as a DataFrame (only ``columns`` when given); None when absent."""
    import pandas as pd
    path = os.path.join(directory, TABLE_FILES[name])
    if name == "functions" and not os.path.isfile(path):
        return None  # stored before functions were recorded
    try:
        return pd.read_parquet(path, columns=columns)
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise StoreError("%s: %s" % (path, _one_line(exc))) from None


def write(directory: str, occurrences: Any, files: Any, summary: Dict[str, Any], csv: bool = False,
          functions: Any = None) -> Dict[str, int]:
    """Store DataFrames (with their rule columns) as a scan in ``directory``, replacing it whole."""
    staging = Staging(directory)
    try:
        out = TableFiles(staging.path, summary, csv=csv, functions=functions is not None)
        frames = {"occurrences": occurrences, "files": files, "functions": functions}
        for name, table in out.tables.items():
            columns = table.schema.remove_metadata()
            out.put(name, pa.Table.from_pandas(frames[name], schema=columns, preserve_index=False))
        rows = out.close()
    except OSError as exc:
        staging.abort()
        raise StoreError("cannot store the scan in %s: %s" % (directory, _one_line(exc))) from None
    staging.commit(dict(summary, rows=rows))
    return rows


def read(directory: str):
    """(occurrences, files, summary, functions or None) DataFrames of a stored scan."""
    summary = read_summary(directory)
    return (read_table(directory, "occurrences"), read_table(directory, "files"), summary,
            read_table(directory, "functions"))
