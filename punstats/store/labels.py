"""Labels a reader gave to occurrences, stored beside the scan: one CSV per kind.

A stored scan may hold, for an occurrence kind ``NAME``, the labels sheet
``labels-NAME.csv`` (the source of truth: a reader fills its ``label``
column), its readable form ``labels-NAME.md`` (written from the CSV) and
``labels-NAME.stale.csv`` (labels whose occurrence is gone from the scan,
kept aside).  Each row carries a ``key``: a digest of the file's path, its
sha256 (from the files table), the kind, the occurrence's span and name.  An
unchanged file keeps its keys from one scan to the next, so a re-scan that
replaces a stored scan carries its labels over (``carry``, and once it is in
place ``carry_saved``: what a reader saved meanwhile); a changed file's
labels go to the stale sheet.  Only ``key`` and ``label`` are read back from
a sheet; every other column is written by punstats.  A sheet is read only
from a regular file reached through no link, in UTF-8 (or UTF-16 with a byte
order mark), and written with its line breaks quoted and no other control
character (``model.escape.csv_text``, ``csv_cell``).
"""
from __future__ import annotations

import codecs
import csv
import hashlib
import io
import os
import re
import stat
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from punstats.model.escape import csv_cell, csv_text, from_csv_cell
from punstats.store.staging import FILES_FILE, LABEL_PATTERNS, OCCURRENCES_FILE, StoreError, write_atomic

#: The file names of labels in a stored scan's directory (part of ``staging.SCAN``).
PATTERNS = LABEL_PATTERNS

#: The columns of a labels sheet, in order.
COLUMNS = ("key", "path", "cell", "line", "col", "end_line", "end_col", "in_test", "name", "sha256", "label",
           "source")

#: The columns of an ecosystem run's sheet: each row's project (its rank and the release scanned) first.
RUN_COLUMNS = ("key", "rank", "project", "release") + COLUMNS[1:]

#: The columns an edited sheet must keep.
NEEDED = ("key", "label")

_KIND = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}\Z")

#: A row of a sheet (text cells), or an occurrence (its values as in the tables).
Row = Dict[str, Any]


class LabelError(StoreError):
    """A labels sheet that does not belong to its scan, or a kind that cannot name one."""


def check_kind(kind: str) -> str:
    """``kind`` if it can name a sheet (an identifier, as kinds are)."""
    if not _KIND.match(kind):
        raise LabelError("%r is not an occurrence kind (kinds are identifiers such as call)" % kind[:80])
    return kind


def csv_name(kind: str) -> str:
    return "labels-%s.csv" % check_kind(kind)


def markdown_name(kind: str) -> str:
    return "labels-%s.md" % check_kind(kind)


def stale_name(kind: str) -> str:
    return "labels-%s.stale.csv" % check_kind(kind)


def kinds_labelled(directory: str) -> List[str]:
    """The kinds ``directory`` holds a labels sheet of, sorted."""
    try:
        names = os.listdir(directory)
    except OSError:
        return []
    found = (name[len("labels-"):-len(".csv")] for name in names
             if name.startswith("labels-") and name.endswith(".csv") and not name.endswith(".stale.csv"))
    return sorted(kind for kind in found if _KIND.match(kind))


def key_of(path: str, sha256: str, kind: str, line: int, col: int, end_line: int, end_col: int,
           name: str, cell: Optional[int] = None) -> str:
    """The stable key of one occurrence: the same while its file is unchanged (a notebook's
    ``cell`` is part of it; a ``.py`` file's key is the one it had before notebooks were read)."""
    parts = (path, sha256, kind, str(line), str(col), str(end_line), str(end_col), name)
    text = "\0".join(parts + ((str(cell),) if cell is not None else ()))
    return "k" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:20]  # never read as a number


def occurrences_of(directory: str, kind: str) -> List[Row]:
    """The occurrences of ``kind`` in the stored tables of ``directory``, with their
    file's sha256 and key, in path, line, column order (values as in the tables)."""
    return occurrences_by_kind(directory, [kind])[kind]


def occurrences_by_kind(directory: str, kinds: Sequence[str]) -> Dict[str, List[Row]]:
    """``occurrences_of`` each of ``kinds``, the tables read once."""
    import pyarrow as pa
    try:
        occurrences = _rows(os.path.join(directory, OCCURRENCES_FILE), _OCCURRENCE_COLUMNS, optional=("cell",))
        files = _rows(os.path.join(directory, FILES_FILE), ("path", "sha256"))
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise StoreError("%s: cannot read the occurrences: %s" % (directory, " ".join(str(exc).split()))) from None
    sha = {row["path"]: row["sha256"] or "" for row in files}
    found: Dict[str, List[Row]] = {kind: [] for kind in kinds}
    for row in occurrences:
        if row["kind"] in found:
            row["sha256"] = sha.get(row["path"], "")
            row["key"] = key_of(row["path"], row["sha256"], row["kind"], row["line"], row["col"], row["end_line"],
                                row["end_col"], row["name"] or "", row["cell"])
            found[row["kind"]].append(row)
    for rows in found.values():
        rows.sort(key=lambda r: (r["path"], r["cell"] or 0, r["line"], r["col"], r["end_line"], r["end_col"],
                                 r["name"] or ""))
    return found


_OCCURRENCE_COLUMNS = ("path", "line", "col", "end_line", "end_col", "name", "kind")


def run_occurrences(stored: Any, kind: str) -> List[Row]:
    """The occurrences of ``kind`` in the ecosystem run ``stored`` (``store.ecosystem.StoredRun``), each
    with its ``project``, ``rank``, ``release`` (the version scanned), ``in_test`` and ``value`` as stored,
    its file's sha256 and its key, in rank, path, line, column order.  The key is that of the path
    under ``PROJECT-VERSION/``: two projects may ship the same file at the same path."""
    from punstats.store.ecosystem import pooled_files, pooled_rows, stored_columns
    wanted = ("project", "rank", "in_test", "value") + _OCCURRENCE_COLUMNS + ("cell",)
    frame = pooled_rows(stored, kind, stored_columns(stored.directory, wanted))
    files = pooled_files(stored, ("project", "rank", "path", "sha256"))
    sha = {(str(p), str(path)): str(h or "") for p, path, h in zip(files["project"], files["path"], files["sha256"])}
    release = {str(r["project"]): str(r.get("version", "")) for r in stored.records}
    rows = frame.astype(object).where(frame.notna(), None).to_dict("records")
    for row in rows:
        project = row["project"] = str(row["project"])
        row.update(rank=int(row["rank"]), release=release[project], cell=row.get("cell"),
                   sha256=sha.get((project, row["path"]), ""))
        row["key"] = key_of("%s-%s/%s" % (project, row["release"], row["path"]), row["sha256"], kind, row["line"],
                            row["col"], row["end_line"], row["end_col"], row["name"] or "", row["cell"])
    rows.sort(key=lambda r: (r["rank"], r["path"], r["cell"] or 0, r["line"], r["col"], r["end_line"],
                             r["end_col"], r["name"] or ""))
    return rows


def _rows(path: str, columns: Sequence[str], optional: Sequence[str] = ()) -> List[Row]:
    """The rows of a stored table, only ``columns`` and those of ``optional`` it has (None
    in each row if not: a scan stored before they were), as dicts.  Read column by column:
    ``pyarrow.dataset`` (``read_table``) and Python scalars (``pyarrow.compute``) would
    import pandas, a second of a re-scan answered from the cache."""
    import pyarrow.parquet as pq
    stored = pq.ParquetFile(path)
    present = [name for name in optional if name in stored.schema_arrow.names]
    table = stored.read(columns=list(columns) + present)
    names = list(columns) + list(optional)
    values = [table.column(name).to_pylist() if name in table.column_names else [None] * table.num_rows
              for name in names]
    return [dict(zip(names, row)) for row in zip(*values)]


#: A labels sheet larger than this is refused unread (a sheet of a million rows is well under it).
MAX_SHEET_BYTES = 1 << 30

#: The columns a reader fills and punstats reads back, kept as written (line breaks too).
READ_BACK = ("label", "source")


def read_sheet(path: str) -> List[Row]:
    """The rows of a labels sheet (every cell a string); ``LabelError`` naming the
    file when it is not one.  A missing file has no rows."""
    return parse_sheet(sheet_bytes(path), os.path.basename(path))


def parse_sheet(data: Optional[bytes], name: str) -> List[Row]:
    """The rows of the sheet ``name`` whose bytes are ``data`` (None: there is none, no rows)."""
    if data is None:
        return []
    try:
        reader = csv.DictReader(io.StringIO(_sheet_text(data, name), newline=""))
        if reader.fieldnames is None:  # an empty file: no rows
            return []
        for column in NEEDED:
            if column not in reader.fieldnames:
                raise LabelError("%s is not a labels sheet: it has no %s column" % (name, column))
            if reader.fieldnames.count(column) > 1:
                raise LabelError("%s has %d %s columns: keep one" % (name, reader.fieldnames.count(column), column))
        rows = [{key: from_csv_cell(value or "") for key, value in row.items() if isinstance(key, str)}
                for row in reader]
    except csv.Error as exc:
        raise LabelError("%s: cannot read the labels sheet: %s" % (name, " ".join(str(exc).split()))) from None
    return [row for row in rows if any(value.strip() for value in row.values())]  # a spreadsheet's blank rows


def sheet_bytes(path: str) -> Optional[bytes]:
    """The bytes of the sheet at ``path`` (None when there is none), read through no link and only
    from a regular file of at most ``MAX_SHEET_BYTES``: a FIFO there would hang the read, and a link
    would make another file the sheet."""
    name = os.path.basename(path)
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        return None
    except OSError as exc:
        what = "a symbolic link" if os.path.islink(path) else exc.strerror or str(exc)
        raise LabelError("%s: cannot read the labels sheet: %s (keep it a regular file)" % (name, what)) from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            from punstats.discover.tree import file_kind
            raise LabelError("%s is not a labels sheet: it is a %s (keep it a regular file)"
                             % (name, file_kind(info.st_mode)))
        if info.st_size > MAX_SHEET_BYTES:
            raise LabelError("%s is not a labels sheet: %s bytes, over the limit of %s"
                             % (name, format(info.st_size, ","), format(MAX_SHEET_BYTES, ",")))
        return handle.read(MAX_SHEET_BYTES + 1)


def _sheet_text(data: bytes, name: str) -> str:
    """A sheet's text: UTF-8 (with or without a byte order mark), or UTF-16 with its byte order mark,
    as spreadsheets save "CSV UTF-8" and "Unicode text"; ``LabelError`` saying how to save it otherwise."""
    encoding = "utf-16" if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE) else "utf-8-sig"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        raise LabelError("%s: cannot read the labels sheet: not %s text (byte %d); save it as CSV UTF-8"
                         % (name, encoding.upper().replace("-SIG", ""), exc.start)) from None
    if "\0" in text:
        raise LabelError("%s: cannot read the labels sheet: it holds a NUL character (line %d); save it as "
                         "CSV UTF-8" % (name, text[:text.index("\0")].count("\n") + 1))
    return text


def sheet_text(rows: Iterable[Row], columns: Sequence[str] = COLUMNS) -> str:
    """``rows`` as a labels sheet: ``columns`` (a run's: ``RUN_COLUMNS``), text cells guarded against
    spreadsheets and terminals (``model.escape``); the label and source keep their line breaks."""
    lines = [_csv_line(columns)]
    for row in rows:
        lines.append(_csv_line([(csv_text if column in READ_BACK else csv_cell)(str(row.get(column, "")))
                                for column in columns]))
    return "".join(lines)


def _csv_line(cells: Sequence[str]) -> str:
    """One CSV line, ended by a newline, any cell holding a line break quoted: the csv module
    quotes only the characters of its line terminator, so it is given CR LF, and the CR dropped."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\r\n").writerow(cells)
    return out.getvalue()[:-2] + "\n"


def write_sheet(path: str, rows: Sequence[Row], columns: Sequence[str] = COLUMNS) -> None:
    write_atomic(path, sheet_text(rows, columns).encode("utf-8"))


class SheetChanged(LabelError):
    """A sheet saved by someone else while punstats was writing it: nothing was replaced."""


def replace_sheet(path: str, rows: Sequence[Row], columns: Sequence[str], read: Optional[bytes]) -> None:
    """``write_sheet``, once the sheet at ``path`` is checked, just before it is replaced, to be still
    ``read`` (the bytes the labels of ``rows`` came from); ``SheetChanged`` if not: labels entered
    meanwhile are never written over."""
    def unchanged() -> None:
        if sheet_bytes(path) != read:
            raise SheetChanged("%s changed while punstats wrote it" % os.path.basename(path))
    write_atomic(path, sheet_text(rows, columns).encode("utf-8"), before_replace=unchanged)


def labels_of(rows: Sequence[Row], known: Iterable[str], sheet: str, kind: str) -> Dict[str, Row]:
    """The rows of a sheet by key, once each key is known to be an occurrence of
    ``kind`` (``known``: the scan's keys) and no key repeats; ``LabelError`` naming
    the first row that is not (rows count from 2, after the header, as a spreadsheet shows them)."""
    known = set(known)
    by_key: Dict[str, Row] = {}
    for number, row in enumerate(rows, start=2):
        key = row.get("key", "").strip()
        if key not in known:
            raise LabelError("%s row %d: key %r is not an occurrence of kind %s in this scan (fix or remove "
                             "the row)" % (sheet, number, key[:40], kind))
        if key in by_key:
            raise LabelError("%s row %d: key %s is on an earlier row too (keep one)" % (sheet, number, key))
        by_key[key] = dict(row, key=key, label=row.get("label", "").strip())
    return by_key


@dataclass(frozen=True)
class Carried:
    """What a re-scan did with the labels of one kind: ``carried`` labelled rows
    kept (their files unchanged) of ``rows`` rows kept, ``stale`` labelled rows set
    aside in the stale sheet."""

    kind: str
    carried: int
    stale: int
    rows: int = 0

    def as_dict(self) -> Dict[str, int]:
        return {"carried": self.carried, "stale": self.stale, "rows": self.rows}


#: Writes the Markdown form of a kind's sheet: (kind, rows) -> text.
Markdown = Callable[[str, Sequence[Row]], str]


def carry(previous: Optional[str], staged: str, markdown: Optional[Markdown] = None) -> List[Carried]:
    """Carry the labels of the stored scan ``previous`` into the scan being written in
    ``staged``: rows whose key is still an occurrence are kept, labelled rows whose
    key is gone go to the stale sheet (with the stale rows kept before, unless their
    key is back).  ``StoreError`` when a sheet of ``previous`` cannot be read: the
    previous scan, and its labels, then stay as they are."""
    if previous is None or not os.path.isdir(previous):
        return []
    done: List[Carried] = []
    kinds = kinds_labelled(previous)
    occurrences = occurrences_by_kind(staged, kinds) if kinds else {}
    for kind in kinds:
        rows = read_sheet(os.path.join(previous, csv_name(kind)))
        stale = read_sheet(os.path.join(previous, stale_name(kind)))
        known = {row["key"] for row in occurrences[kind]}
        kept, aside = _split(rows, stale, known)
        write_sheet(os.path.join(staged, csv_name(kind)), kept)
        if aside:
            write_sheet(os.path.join(staged, stale_name(kind)), aside)
        if markdown is not None:
            write_atomic(os.path.join(staged, markdown_name(kind)), markdown(kind, kept).encode("utf-8"))
        before = {row.get("key") for row in stale}
        newly = sum(1 for row in aside if row["key"] not in before)
        done.append(Carried(kind, sum(1 for row in kept if row.get("label", "").strip()), newly, len(kept)))
    return done


def labels_state(directory: Optional[str]) -> Dict[str, Optional[bytes]]:
    """The bytes of each labels sheet and stale sheet in ``directory`` (what ``carry`` reads), by
    file name; None for one that is not there or cannot be read."""
    state: Dict[str, Optional[bytes]] = {}
    if directory is None or not os.path.isdir(directory):
        return state
    for kind in kinds_labelled(directory):
        for name in (csv_name(kind), stale_name(kind)):
            try:
                state[name] = sheet_bytes(os.path.join(directory, name))
            except LabelError:
                state[name] = None
    return state


def carry_saved(before: Dict[str, Optional[bytes]], previous: str, target: str,
                markdown: Optional[Markdown] = None) -> Optional[List[Carried]]:
    """Once a re-scan is in place in ``target``: labels saved into the scan it replaced (``previous``,
    moved aside) after ``carry`` read them (``before``: its ``labels_state`` then), carried again into
    ``target``; None when nothing was saved meanwhile.  A sheet saved so that it cannot be carried is
    copied as it was saved (``label`` and ``table`` then say what is wrong with it): nothing is lost."""
    now = labels_state(previous)
    if now == before:
        return None
    try:
        return carry(previous, target, markdown)
    except StoreError:
        for name, data in now.items():
            if data is not None and data != before.get(name):
                write_atomic(os.path.join(target, name), data)
        return None


def _split(rows: Sequence[Row], stale: Sequence[Row], known: Iterable[str]) -> Tuple[List[Row], List[Row]]:
    """(rows kept, labelled rows set aside): a stale row whose key is back is kept again."""
    known = set(known)
    kept: Dict[str, Row] = {}
    aside: Dict[str, Row] = {}
    for row in list(rows) + list(stale):
        key, label = row.get("key", ""), row.get("label", "").strip()
        if key in known:
            if key not in kept or (label and not kept[key].get("label", "").strip()):
                kept[key] = row
        elif label and key not in aside:
            aside[key] = row
    return list(kept.values()), list(aside.values())


def describe(carried: Sequence[Any]) -> List[str]:
    """One line per kind (``Carried`` or (kind, its ``as_dict``)): what a re-scan did with its labels."""
    lines = []
    for item in carried:
        kind, counts = (item.kind, item.as_dict()) if isinstance(item, Carried) else item
        line = "%s: %d labels carried into the new scan (in %s rows)" % (kind, counts["carried"],
                                                                          format(counts.get("rows", 0), ","))
        if counts["stale"]:
            line += ", %d set aside in %s (their files changed)" % (counts["stale"], stale_name(kind))
        lines.append(line)
    return lines
