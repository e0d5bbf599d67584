"""The hits of one kind as lines a reader can jump to, as ripgrep and ast-grep print matches.

This module owns what ``punstats hits`` shows of a stored scan or an
ecosystem run (``store.ecosystem.is_run`` tells them apart, as for
``table``; which kind, ``analysis.asked.occurrence_kind`` decides: the rows
of the scan's registry stored as occurrences), each hit's place in the form
editors and ``grep -n`` read (``path:line:col:``, 1-based; a notebook's
``path:cell N:line:col:``, as ``ruff check`` names cells; a run's path
under ``PROJECT-VERSION/``, where its sdist unpacks), its source line and
the JSON object of a hit.  The source line is read from the scanned file
when the recorded root still holds it unchanged (``present.labels.Sources``:
same sha256, never outside the root), else it is the stored ``value``.
"""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from typing import Any, Dict, List, Optional, Sequence, Tuple

from punstats.analysis.asked import occurrence_kind
from punstats.model.escape import terminal
from punstats.model.records import FIELD_PREFIX
from punstats.patterns.built_in import registry_of
from punstats.present.labels import LINE_CHARS, Sources

#: The stored columns of ``occurrences`` a hit is made of (``cell``: not in a scan stored before
#: notebooks were read).
COLUMNS = ("path", "line", "col", "end_line", "end_col", "kind", "name", "value", "in_test", "cell")

#: Characters of a source line shown before the hit's column, when the line is cut.
BEFORE = LINE_CHARS // 3


@dataclass(frozen=True)
class Hit:
    """One occurrence as a reader finds it: lines 1-based, columns 1-based characters
    (``end_column``: just after its last character, as ``ruff`` reports an end)."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    kind: str
    name: str
    value: str
    in_test: bool
    cell: Optional[int]
    source_line: Optional[str]  # None: the file was not read (changed, gone, outside the root, a run)
    project: Optional[str] = None  # an ecosystem run's project, its rank, the version scanned and its file
    rank: Optional[int] = None
    release: Optional[str] = None
    file: Optional[str] = None
    #: a user pattern's fields (its ``field_<key>`` columns, by key), those the hit has
    fields: Tuple[Tuple[str, Any], ...] = ()

    @property
    def shown_path(self) -> str:
        """The path, a run's under ``PROJECT-VERSION/``: the folder an sdist unpacks to (the paths
        of a release file are relative to its single top-level folder, when it has one)."""
        return self.path if self.project is None else "%s-%s/%s" % (self.project, self.release, self.path)

    def location(self) -> str:
        cell = "" if self.cell is None else "cell %d:" % self.cell
        return "%s:%s%d:%d:" % (self.shown_path, cell, self.line, self.column)

    def text(self) -> str:
        """The hit's line for a terminal: its place, then its source line (or stored value)."""
        shown = self.value if self.source_line is None else around(self.source_line, self.column - 1)
        return terminal("%s %s" % (self.location(), shown.expandtabs(8)))

    def as_json(self) -> Dict[str, Any]:
        data = {"path": self.path, "line": self.line, "column": self.column, "end_line": self.end_line,
                "end_column": self.end_column, "kind": self.kind, "name": self.name, "value": self.value,
                "in_test": self.in_test, "cell": self.cell, "source_line": self.source_line}
        if self.project is not None:
            data.update(project=self.project, rank=self.rank, release=self.release, file=self.file)
        if self.fields:
            data["fields"] = dict(self.fields)
        return data


def around(line: str, column: int) -> str:
    """``line``, or, when longer than ``LINE_CHARS``, the part of it around ``column`` (0-based),
    cut ends marked ``...``: a minified file's one line would fill the screen."""
    if len(line) <= LINE_CHARS:
        return line
    start = max(0, min(column - BEFORE, len(line) - LINE_CHARS))
    end = start + LINE_CHARS
    return ("..." if start else "") + line[start:end] + ("..." if end < len(line) else "")


@dataclass(frozen=True)
class Hits:
    """The hits of ``kind`` in ``directory``, in the order they are printed."""

    directory: str
    kind: str
    hits: Tuple[Hit, ...]


def _hit(row: Dict[str, Any], source_line: Optional[str]) -> Hit:
    cell = row.get("cell")
    cut = len(FIELD_PREFIX)
    fields = tuple((name[cut:], value) for name, value in row.items()
                   if name.startswith(FIELD_PREFIX) and value is not None and value == value)  # NaN: none
    return Hit(str(row["path"]), int(row["line"]), int(row["col"]) + 1, int(row["end_line"]), int(row["end_col"]) + 1,
               str(row["kind"]), str(row["name"] or ""), str(row["value"] or ""), bool(row["in_test"]),
               None if cell is None else int(cell), source_line, fields=fields)


def _run_hit(row: Dict[str, Any], record: Dict[str, Any]) -> Hit:
    """A hit of a run's project (``record``): no source line, the run keeps no release file."""
    return replace(_hit(row, None), project=str(record["project"]), rank=int(record["rank"]),
                               release=str(record.get("version", "")), file=str(record.get("file", "")))


def _wanted(row: Dict[str, Any], tests: Optional[bool]) -> bool:
    """``tests``: None for every hit, True for those in tests only, False for those outside."""
    return tests is None or bool(row["in_test"]) == tests


def _table_rows(path: str, columns: Sequence[str], kind: Optional[str] = None) -> List[Dict[str, Any]]:
    """The rows of a stored table (of ``kind`` only, when given), in those of ``columns`` it has
    and, with ``kind``, its ``field_<key>`` columns."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from punstats.store.staging import StoreError
    try:
        names = pq.ParquetFile(path).schema_arrow.names
        wanted = [c for c in columns if c in names] + [c for c in names if kind and c.startswith(FIELD_PREFIX)]
        table = pq.read_table(path, columns=wanted,
                              filters=None if kind is None else [("kind", "==", kind)])
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise StoreError("%s: not a readable table: %s" % (path, " ".join(str(exc).split()))) from None
    return table.to_pylist()


def _source_line(sources: Sources, row: Dict[str, Any], sha256: Dict[str, str]) -> Optional[str]:
    """The hit's line of its file, when ``sources`` can read the file unchanged, else None."""
    lines = sources.lines(row["path"], sha256.get(row["path"], ""), row.get("cell"))
    return None if isinstance(lines, str) or not 0 < row["line"] <= len(lines) else lines[row["line"] - 1]


def _scan_hits(directory: str, kind: Optional[str], tests: Optional[bool]) -> Hits:
    from punstats.store.disk import read_summary
    from punstats.store.staging import FILES_FILE, OCCURRENCES_FILE
    summary = read_summary(directory)  # a StoreError for what is not a finished scan
    chosen = occurrence_kind(registry_of(summary), kind, directory)
    rows = [r for r in _table_rows(os.path.join(directory, OCCURRENCES_FILE), COLUMNS, chosen) if _wanted(r, tests)]
    paths = {row["path"] for row in rows}
    sha256 = {f["path"]: f["sha256"] or "" for f in _table_rows(os.path.join(directory, FILES_FILE),
                                                                ("path", "sha256")) if f["path"] in paths}
    sources = Sources(summary.get("root"))
    rows.sort(key=lambda r: (r["path"], r.get("cell") or 0, r["line"], r["col"]))
    return Hits(directory, chosen, tuple(_hit(row, _source_line(sources, row, sha256)) for row in rows))


def _run_hits(directory: str, kind: Optional[str], tests: Optional[bool]) -> Hits:
    """An ecosystem run's hits, its projects in rank order."""
    from punstats.store.ecosystem import pooled_rows, read_run
    stored = read_run(directory)  # a StoreError for a run that never finished
    chosen = occurrence_kind(stored.registry, kind, directory)
    frame = pooled_rows(stored, chosen, ("project", "rank") + _run_columns(directory))
    rows = [r for r in frame.astype(object).where(frame.notna(), None).to_dict("records") if _wanted(r, tests)]
    records = {str(r["project"]): r for r in stored.records if r["status"] == "scanned"}
    rows.sort(key=lambda r: (r["rank"], r["path"], r.get("cell") or 0, r["line"], r["col"]))
    return Hits(directory, chosen, tuple(_run_hit(row, records[str(row["project"])]) for row in rows))


def _run_columns(directory: str) -> Tuple[str, ...]:
    """``COLUMNS`` that the run's combined dataset holds (a run made before notebooks were read has no ``cell``),
    and its ``field_<key>`` columns."""
    from punstats.store.ecosystem import field_columns, stored_columns
    return stored_columns(directory, COLUMNS) + field_columns(directory)


def hits_of(directory: str, kind: Optional[str] = None, tests: Optional[bool] = None) -> Hits:
    """The hits of ``kind`` (default: ``analysis.asked.default_kind``) in the stored scan or ecosystem
    run ``directory``; ``tests``: None for all, True for those in test code only, False for those outside it."""
    from punstats.store.ecosystem import is_run
    return (_run_hits if is_run(directory) else _scan_hits)(directory, kind, tests)


def text_lines(hits: Sequence[Hit]) -> List[str]:
    """One terminal line per hit: ``path:line:col: source line``."""
    return [hit.text() for hit in hits]


def json_lines(hits: Sequence[Hit]) -> List[str]:
    """One JSON object per hit and line (JSON lines); ``ensure_ascii``: no control character or
    bidi override of a corpus reaches a terminal raw."""
    return [json.dumps(hit.as_json(), ensure_ascii=True) for hit in hits]
