"""A stored scan on disk: parquet tables with provenance metadata and ``summary.json``.

The tables are written chunk by chunk (``TableFiles``): row groups of
``ROW_GROUP_ROWS`` rows (a few MiB each, so that memory while writing stays
small whatever the corpus size), with the explicit schema of ``store.schema``, into
a ``staging.Staging`` directory.  Readers check that a directory holds a
whole scan whose tables belong to its summary (``read_summary``) and read
only the tables and columns asked for (``read_table``).
"""
from __future__ import annotations

import contextlib
import json
import os
import shlex
from typing import Any, Dict, Optional, Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from punstats.model import jsondata
from punstats.model.errors import one_line
from punstats.store import arrays, labels, schema, shape
from punstats.store import fields as spreading
from punstats.store.frames import as_stored, csv_ready
from punstats.store.provenance import provenance_metadata
from punstats.store.staging import (  # noqa: F401  (their home before staging)
    FILES_FILE,
    FUNCTIONS_FILE,
    OCCURRENCES_FILE,
    SUMMARY_FILE,
    TABLE_FILES,
    WRITING_FILE,
    Staging,
    StoreError,
    cannot_store,
    check_output,
)

#: Rows per parquet row group, by table: memory while writing is one group per table,
#: about 2.5 MiB each (a files row takes about 320 bytes in Arrow, an occurrence 210,
#: a function 130).  Fixed numbers of rows, so that where a group ends depends only on
#: the rows, never on how they arrived (from the cache or the engine).
ROW_GROUP_ROWS = {"files": 8 * 1024, "occurrences": 12 * 1024, "functions": 20 * 1024}


class ParquetTable:
    """One table written in row groups as its pieces arrive, in the explicit schema."""

    def __init__(self, path: str, columns: schema.Columns, provenance: Dict[str, Any],
                 row_group_rows: int) -> None:
        self.path, self.columns, self.provenance = path, columns, provenance
        self.schema = schema.arrow_schema(columns).with_metadata(self.metadata(columns))
        self.writer = pq.ParquetWriter(path, self.schema)
        self.row_group_rows = row_group_rows
        self.pending: list = []
        self.buffered = 0
        self.rows = 0

    def metadata(self, columns: schema.Columns) -> Dict[bytes, bytes]:
        """The schema metadata of the table with ``columns``: pandas dtypes and the provenance."""
        return {b"pandas": schema.pandas_metadata(columns),
                b"punstats": json.dumps(provenance_metadata(self.provenance), sort_keys=True).encode()}

    def put(self, table: pa.Table) -> None:
        self.pending.append(table.replace_schema_metadata(self.schema.metadata))
        self.buffered += table.num_rows
        while self.buffered >= self.row_group_rows:
            self._flush(self.row_group_rows)

    def _flush(self, rows: int) -> None:
        table = pa.concat_tables(self.pending) if self.pending else self._empty()
        self.writer.write_table(table.slice(0, rows), row_group_size=max(rows, 1))
        rest = table.slice(rows)
        self.pending, self.buffered = ([rest] if rest.num_rows else []), rest.num_rows
        self.rows += rows

    def _empty(self) -> pa.Table:
        """No rows, in one chunk (``Schema.empty_table`` would import pandas)."""
        return pa.Table.from_arrays([arrays.column([], field.type) for field in self.schema], schema=self.schema)

    def close(self) -> int:
        if self.buffered or not self.rows:  # an empty table is one empty row group, as pandas writes it
            self._flush(self.buffered)
        self.writer.close()
        return self.rows

    def discard(self) -> None:
        """Close the file after a failed write, quietly: it is removed with its directory."""
        with contextlib.suppress(OSError, pa.ArrowException):
            self.writer.close()
        self.writer.is_open = False  # else pyarrow closes it again when collected, and prints the error


class TableFiles:
    """The tables of one stored scan, each written as its pieces arrive (and
    copied to CSV with ``csv``, through pandas, as ``DataFrame.to_csv``, each
    row followed by ``csv_columns``: what was measured, one value per column,
    which a Parquet file keeps in its metadata and a CSV cannot).  The
    occurrences' ``fields`` (user patterns' dicts) become ``field_<key>`` columns
    when the tables close (``store.fields``); ``fields``: such columns known beforehand."""

    def __init__(self, directory: str, provenance: Dict[str, Any], csv: bool = False,
                 functions: bool = True, units: Sequence[str] = (), fields: schema.Columns = (),
                 csv_columns: Optional[Dict[str, Any]] = None) -> None:
        names = [name for name in schema.RAW if functions or name != "functions"]
        self.directory, self.csv, self.csv_columns = directory, csv, dict(csv_columns or {})
        self.raw = schema.raw(units)  # with units: the node-class columns of user patterns
        known = {"occurrences": fields}  # field columns of the occurrences, last
        self.tables = {name: ParquetTable(os.path.join(directory, TABLE_FILES[name]),
                                          self.raw[name] + schema.RULE_COLUMNS + known.get(name, ()),
                                          provenance, ROW_GROUP_ROWS[name])
                       for name in names}
        self.spreader = spreading.Spreader(os.path.join(directory, spreading.SIDE_FILE))
        self._csv_started: set = set()

    def put(self, name: str, table: pa.Table) -> None:
        if name == "occurrences":
            table = self.spreader.take(table)
        self.tables[name].put(table)
        if self.csv:
            self._put_csv(name, table)

    def _put_csv(self, name: str, table: pa.Table) -> None:
        path = os.path.join(self.directory, TABLE_FILES[name].replace(".parquet", ".csv"))
        parquet = self.tables[name]
        frame = table.replace_schema_metadata(parquet.metadata(parquet.columns)).to_pandas()
        # a column of the table's own (the rows' test rule) keeps its values
        frame = csv_ready(frame.assign(**{k: v for k, v in self.csv_columns.items() if k not in frame.columns}))
        frame.to_csv(path, index=False, mode="a" if name in self._csv_started else "w",
                     header=name not in self._csv_started)
        self._csv_started.add(name)

    def discard(self) -> None:
        """Every table closed quietly after a failed write."""
        for table in self.tables.values():
            table.discard()
        with contextlib.suppress(OSError, pa.ArrowException):
            self.spreader.close()

    def close(self) -> Dict[str, int]:
        """Rows written, per table."""
        rows = {name: table.close() for name, table in self.tables.items()}
        self._spread()
        if self.csv:
            for name in self.tables:
                if name not in self._csv_started:
                    self._put_csv(name, schema.arrow_schema(self.tables[name].columns).empty_table())
        return rows

    def _spread(self) -> None:
        """The occurrences' fields, set aside as they were written, added as ``field_<key>`` columns."""
        texts = self.spreader.close()
        if texts is None:
            return
        table, added = self.tables["occurrences"], self.spreader.columns()
        table.columns += added
        spreading.spread(table.path, texts, added, table.metadata(table.columns))
        if self.csv:  # written again, with the columns
            self._csv_started.discard("occurrences")
            source = pq.ParquetFile(table.path)
            for group in range(source.metadata.num_row_groups):
                self._put_csv("occurrences", source.read_row_group(group))
            source.close()


def _not_a_scan(directory: str) -> Optional[str]:
    """What a place that is no stored scan is instead, when it is near one: a file of a stored
    scan (its folder is meant), a run over years or a folder holding stored scans (one of them is
    meant); else None."""
    parent = os.path.dirname(directory.rstrip(os.sep)) or "."
    if os.path.isfile(directory) and os.path.isfile(os.path.join(parent, SUMMARY_FILE)):
        return "%s is a file of a stored scan: give its folder, %s" % (directory, parent)
    try:
        names = sorted(entry.name for entry in os.scandir(directory) if entry.is_dir())
    except OSError:  # missing, a file, unreadable: said as before
        return None
    from punstats.store.years import is_years
    if is_years(directory):  # its years are runs: one of them is meant
        years = [os.path.join(directory, name) for name in names if name.isdigit()]
        return "%s is a run over years: table, plot and report show it whole; give this command one year's " \
               "folder, e.g. %s" % (directory, shlex.quote(years[0] if years else os.path.join(directory, "YEAR")))
    scans = [os.path.join(directory, name) for name in names
             if os.path.isfile(os.path.join(directory, name, SUMMARY_FILE))]
    if not scans:
        return None
    return "%s holds stored scans but is not one: give one of them, e.g. %s%s" % (
        directory, ", ".join(shlex.quote(scan) for scan in scans[:3]), ", ..." * (len(scans) > 3))


def read_summary(directory: str) -> Dict[str, Any]:
    """The summary of a stored scan, after checking that its tables are there and belong to it."""
    if os.path.exists(os.path.join(directory, WRITING_FILE)):
        raise StoreError("%s is a stored scan that was never finished (the scan writing it stopped); "
                         "scan again" % directory)
    paths = [os.path.join(directory, name) for name in (OCCURRENCES_FILE, FILES_FILE, SUMMARY_FILE)]
    missing = [os.path.basename(p) for p in paths if not os.path.isfile(p)]
    if missing:
        raise StoreError(_not_a_scan(directory) or "%s is not a stored scan (missing %s): make one with punstats "
                         "scan PATH -o %s, or give the directory of a punstats corpus top-pypi:N -o DIR run"
                         % (directory, ", ".join(missing), shlex.quote(directory)))
    try:
        with open(paths[2], encoding="utf-8") as handle:
            summary = jsondata.load(handle)
    except jsondata.TooDeep:  # arrays or objects nested thousands deep
        raise StoreError("%s: not a stored scan's summary (nested too deeply)" % paths[2]) from None
    except (OSError, ValueError) as exc:
        raise StoreError("%s: %s" % (paths[2], one_line(exc))) from None
    wrong = shape.problem(summary)
    if wrong:
        raise StoreError("%s: not a stored scan's summary (%s)" % (paths[2], wrong))
    rows = summary.get("rows") or {}
    for name, file_name in TABLE_FILES.items():
        path = os.path.join(directory, file_name)
        if not os.path.isfile(path):
            continue  # functions: stored before functions were recorded
        try:
            stored = pq.ParquetFile(path).metadata.num_rows
        except (OSError, pa.ArrowException) as exc:
            raise StoreError("%s: not a readable table: %s" % (path, one_line(exc))) from None
        if name in rows and stored != rows[name]:
            raise StoreError("%s holds %d rows where its summary.json counts %d: the tables and the summary "
                             "are from different scans; scan again" % (path, stored, rows[name]))
    summary.pop("rows", None)  # checked; a summary in memory does not carry it
    return summary


def read_table(directory: str, name: str, columns: Optional[list] = None) -> Any:
    """One table of a stored scan as a DataFrame (only ``columns`` when given); None when absent."""
    path = os.path.join(directory, TABLE_FILES[name])
    if name == "functions" and not os.path.isfile(path):
        return None  # stored before functions were recorded
    try:
        table = pq.read_table(path, columns=columns)
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise StoreError("%s: %s" % (path, one_line(exc))) from None
    return table.replace_schema_metadata(_pandas_metadata(name, table.schema)).to_pandas()


def _pandas_metadata(name: str, stored: pa.Schema) -> Dict[bytes, bytes]:
    """The ``pandas`` metadata of a table's columns (``stored``) as punstats writes it: the
    file's own is never read (it is JSON from disk: nested thousands deep, or of any shape)."""
    kinds = dict(schema.raw(schema.node_units(stored.names))[name] + schema.RULE_COLUMNS)
    kinds.update((field.name, schema.field_kind(field.type)) for field in stored
                 if name == "occurrences" and field.name.startswith(schema.FIELD_PREFIX))
    return {b"pandas": schema.pandas_metadata(tuple((column, kinds[column]) for column in stored.names
                                                    if column in kinds))}


def write(directory: str, occurrences: Any, files: Any, summary: Dict[str, Any], csv: bool = False,
          functions: Any = None, csv_columns: Optional[Dict[str, Any]] = None) -> Dict[str, int]:
    """Store DataFrames (with their rule columns) as a scan in ``directory``, replacing it whole
    (``csv``: with CSV copies, ``csv_columns`` after each row's own: ``TableFiles``)."""
    root = summary.get("root")
    staging = Staging(directory, [("the corpus", root)] if isinstance(root, str) else ())
    out = None
    try:
        out = TableFiles(staging.path, summary, csv=csv, functions=functions is not None,
                         units=schema.node_units(list(files.columns)), fields=spreading.frame_columns(occurrences),
                         csv_columns=csv_columns)
        frames = {"occurrences": occurrences, "files": files, "functions": functions}
        for name, table in out.tables.items():
            columns = table.schema.remove_metadata()
            out.put(name, pa.Table.from_pandas(as_stored(frames[name]), schema=columns, preserve_index=False))
        rows = out.close()
    except OSError as exc:
        if out is not None:
            out.discard()
        staging.abort()
        raise cannot_store(exc, directory) from None
    stored = dict(summary, rows=rows)
    try:
        before = labels.labels_state(staging.target)
        carried = labels.carry(staging.target, staging.path)  # the labels of the scan it replaces
    except BaseException:
        staging.abort()
        raise

    def carry_saved(previous: str) -> None:  # labels saved into the replaced scan meanwhile
        again = labels.carry_saved(before, previous, str(staging.target))
        if again:
            staging.restate(dict(stored, labels_carried={c.kind: c.as_dict() for c in again}))
    staging.commit(dict(stored, **({"labels_carried": {c.kind: c.as_dict() for c in carried}} if carried else {})),
                   carry_saved)
    return rows


def read(directory: str):
    """(occurrences, files, summary, functions or None) DataFrames of a stored scan."""
    summary = read_summary(directory)
    return (read_table(directory, "occurrences"), read_table(directory, "files"), summary,
            read_table(directory, "functions"))
