"""The two tables of a scan and their files on disk.

``occurrences``: one row per ``name=name`` keyword argument.
``files``: one row per discovered file, with its status.
A stored scan is a directory holding ``occurrences.parquet``,
``files.parquet`` and ``summary.json`` (optionally CSV copies of the
tables).  Each parquet file also carries the scan's provenance in its
key-value metadata under ``punstats``, so a table copied on its own still
says what it measured.
"""
from __future__ import annotations

import dataclasses
import json
import os
from typing import Any, Dict, Sequence, Tuple

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from punstats.classify import TestRule
from punstats.extract import Extraction, FileRecord, Occurrence

OCCURRENCES_FILE = "occurrences.parquet"
FILES_FILE = "files.parquet"
SUMMARY_FILE = "summary.json"

OCCURRENCE_COLUMNS = [f.name for f in dataclasses.fields(Occurrence)] + ["in_test", "test_rule"]
FILE_COLUMNS = [f.name for f in dataclasses.fields(FileRecord)] + ["in_test", "test_rule"]

_INT_COLUMNS = {
    "line", "col", "end_line", "end_col", "name_len", "call_line", "call_col",
    "call_keywords", "call_punnable", "depth", "bytes", "lines", "calls", "keywords",
    "double_star", "punnable", "class_keywords", "class_punnable",
}
_BOOL_COLUMNS = {"in_fstring", "in_test"}


class StoreError(ValueError):
    """A directory that does not hold a readable stored scan."""


def _frame(rows: Sequence[Any], columns: Sequence[str]) -> pd.DataFrame:
    data: Dict[str, Any] = {}
    for name in columns:
        values = [getattr(row, name) for row in rows]
        if name in _INT_COLUMNS:
            data[name] = pd.array(values, dtype="int64")
        elif name in _BOOL_COLUMNS:
            data[name] = pd.array(values, dtype="bool")
        elif name == "error_line":
            data[name] = pd.array(values, dtype="Int64")
        else:
            data[name] = pd.array(values, dtype="str")
    return pd.DataFrame(data, columns=list(columns))


def frames(extractions: Sequence[Extraction], rule: TestRule) -> Tuple[pd.DataFrame, pd.DataFrame]:
    """(occurrences, files) DataFrames, with the test flag of ``rule``."""
    records = [e.record for e in extractions]
    occurrences = [o for e in extractions for o in e.occurrences]
    files = _frame(records, FILE_COLUMNS[:-2])
    occ = _frame(occurrences, OCCURRENCE_COLUMNS[:-2])
    return apply_rule(occ, rule), apply_rule(files, rule)


def apply_rule(table: pd.DataFrame, rule: TestRule) -> pd.DataFrame:
    """``table`` with ``in_test`` and ``test_rule`` set by ``rule``."""
    table = table.copy()
    flags = {path: rule.is_test(path) for path in table["path"].unique()}
    table["in_test"] = pd.array([flags[p] for p in table["path"]], dtype="bool")
    table["test_rule"] = pd.array([rule.label] * len(table), dtype="str")
    return table


def provenance_metadata(summary: Dict[str, Any]) -> Dict[str, Any]:
    """The part of a summary that describes what was measured, not when."""
    keep = ("corpus", "root", "source", "revision", "commit_date", "python",
            "python_implementation", "punstats_version", "extractor_version", "rules")
    return {key: summary[key] for key in keep if key in summary}


def _write_parquet(table: pd.DataFrame, path: str, summary: Dict[str, Any]) -> None:
    arrow = pa.Table.from_pandas(table, preserve_index=False)
    metadata = dict(arrow.schema.metadata or {})
    metadata[b"punstats"] = json.dumps(provenance_metadata(summary), sort_keys=True).encode()
    pq.write_table(arrow.replace_schema_metadata(metadata), path)


def write(directory: str, occurrences: pd.DataFrame, files: pd.DataFrame,
          summary: Dict[str, Any], csv: bool = False) -> None:
    os.makedirs(directory, exist_ok=True)
    _write_parquet(occurrences, os.path.join(directory, OCCURRENCES_FILE), summary)
    _write_parquet(files, os.path.join(directory, FILES_FILE), summary)
    if csv:
        occurrences.to_csv(os.path.join(directory, "occurrences.csv"), index=False)
        files.to_csv(os.path.join(directory, "files.csv"), index=False)
    with open(os.path.join(directory, SUMMARY_FILE), "w", encoding="utf-8") as handle:
        json.dump(summary, handle, indent=2, ensure_ascii=False)
        handle.write("\n")


def read(directory: str) -> Tuple[pd.DataFrame, pd.DataFrame, Dict[str, Any]]:
    paths = [os.path.join(directory, name) for name in (OCCURRENCES_FILE, FILES_FILE, SUMMARY_FILE)]
    missing = [os.path.basename(p) for p in paths if not os.path.isfile(p)]
    if missing:
        raise StoreError("%s is not a stored scan (missing %s)" % (directory, ", ".join(missing)))
    with open(paths[2], encoding="utf-8") as handle:
        summary = json.load(handle)
    return pd.read_parquet(paths[0]), pd.read_parquet(paths[1]), summary
