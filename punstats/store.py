"""The tables of a scan, built from extractions, and their files on disk.

``occurrences``: one row per occurrence (``name=name`` and the related kinds).
``files``: one row per discovered file, with its status.
``functions``: one row per function definition or lambda.
A stored scan is a directory holding ``occurrences.parquet``,
``files.parquet``, ``functions.parquet`` and ``summary.json`` (optionally
CSV copies of the tables).  Each parquet file also carries the scan's
provenance in its key-value metadata under ``punstats``, so a table copied
on its own still says what it measured.  Test flags are applied here
(``apply_rule``) and never stored in the cache, so a rule can change
without extracting anything again.
"""
from __future__ import annotations

import dataclasses
import json
import operator
import os
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from punstats.classify import TestRule
from punstats.extract import Extraction, FileRecord, FunctionShape, Occurrence

OCCURRENCES_FILE = "occurrences.parquet"
FILES_FILE = "files.parquet"
FUNCTIONS_FILE = "functions.parquet"
SUMMARY_FILE = "summary.json"

_RULE_COLUMNS = ["in_test", "test_rule"]


def field_names(record_type: type) -> List[str]:
    """The fields of a record type: a NamedTuple's or a dataclass's."""
    return list(getattr(record_type, "_fields", None) or (f.name for f in dataclasses.fields(record_type)))


OCCURRENCE_COLUMNS = field_names(Occurrence) + _RULE_COLUMNS
FILE_COLUMNS = field_names(FileRecord) + _RULE_COLUMNS
FUNCTION_COLUMNS = field_names(FunctionShape) + _RULE_COLUMNS

#: Column dtypes, from the record types' annotations.
_DTYPES = {"int": "int64", "bool": "bool", "str": "str", "Optional[int]": "Int64"}


class Tables(NamedTuple):
    """The three tables of a scan."""

    occurrences: pd.DataFrame
    files: pd.DataFrame
    functions: pd.DataFrame


class StoreError(ValueError):
    """A directory that does not hold a readable stored scan."""


def _frame(rows: Sequence[Any], record_type: type) -> pd.DataFrame:
    names = field_names(record_type)
    if not isinstance(rows[0] if rows else (), tuple):
        getter = operator.attrgetter(*names)
        rows = [getter(row) for row in rows]
    columns = list(zip(*rows)) if rows else [()] * len(names)
    return pd.DataFrame({name: pd.array(list(values), dtype=_DTYPES[_type_name(record_type, name)])
                         for name, values in zip(names, columns)})


def _type_name(record_type: type, name: str) -> str:
    """A field's annotation as written (``int``, ``Optional[int]``)."""
    annotation = record_type.__annotations__[name]
    return getattr(annotation, "__forward_arg__", annotation)


def raw_tables(extractions: Sequence[Extraction]) -> Tables:
    """(occurrences, files, functions) DataFrames, before any test rule."""
    return Tables(
        _frame([o for e in extractions for o in e.occurrences], Occurrence),
        _frame([e.record for e in extractions], FileRecord),
        _frame([f for e in extractions for f in e.functions], FunctionShape),
    )


def arrow_bytes(table: pd.DataFrame) -> bytes:
    """``table`` as an Arrow IPC stream: larger than parquet, but read without decoding."""
    arrow = pa.Table.from_pandas(table, preserve_index=False)
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, arrow.schema) as writer:
        writer.write_table(arrow)
    return sink.getvalue().to_pybytes()


def from_arrow_bytes(data: bytes) -> pd.DataFrame:
    return pa.ipc.open_stream(data).read_all().to_pandas()


def apply_rule(table: pd.DataFrame, rule: TestRule) -> pd.DataFrame:
    """``table`` with ``in_test`` and ``test_rule`` set by ``rule``."""
    table = table.copy()
    test_paths = [path for path in table["path"].unique() if rule.is_test(path)]
    table["in_test"] = table["path"].isin(test_paths).astype("bool")
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
          summary: Dict[str, Any], csv: bool = False,
          functions: Optional[pd.DataFrame] = None) -> None:
    os.makedirs(directory, exist_ok=True)
    tables = {OCCURRENCES_FILE: occurrences, FILES_FILE: files}
    if functions is not None:
        tables[FUNCTIONS_FILE] = functions
    for name, table in tables.items():
        _write_parquet(table, os.path.join(directory, name), summary)
        if csv:
            table.to_csv(os.path.join(directory, name.replace(".parquet", ".csv")), index=False)
    with open(os.path.join(directory, SUMMARY_FILE), "w", encoding="utf-8") as handle:
        json.dump(summary, handle, indent=2, ensure_ascii=False)
        handle.write("\n")


def read(directory: str) -> Tuple[pd.DataFrame, pd.DataFrame, Dict[str, Any], Optional[pd.DataFrame]]:
    """(occurrences, files, summary, functions or None) of a stored scan."""
    paths = [os.path.join(directory, name) for name in (OCCURRENCES_FILE, FILES_FILE, SUMMARY_FILE)]
    missing = [os.path.basename(p) for p in paths if not os.path.isfile(p)]
    if missing:
        raise StoreError("%s is not a stored scan (missing %s)" % (directory, ", ".join(missing)))
    with open(paths[2], encoding="utf-8") as handle:
        summary = json.load(handle)
    functions_path = os.path.join(directory, FUNCTIONS_FILE)
    functions = pd.read_parquet(functions_path) if os.path.isfile(functions_path) else None
    return pd.read_parquet(paths[0]), pd.read_parquet(paths[1]), summary, functions
