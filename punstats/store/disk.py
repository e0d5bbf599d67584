"""A stored scan on disk: parquet tables with provenance metadata and ``summary.json``.
"""
from __future__ import annotations

import json
import os
from typing import Any, Dict, Optional, Tuple

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from punstats.store import schema

OCCURRENCES_FILE = "occurrences.parquet"


FILES_FILE = "files.parquet"


FUNCTIONS_FILE = "functions.parquet"


SUMMARY_FILE = "summary.json"


class StoreError(ValueError):
    """A directory that does not hold a readable stored scan."""


def provenance_metadata(summary: Dict[str, Any]) -> Dict[str, Any]:
    """The part of a summary that describes what was measured, not when."""
    keep = ("corpus", "root", "source", "revision", "commit_date", "python",
            "python_implementation", "punstats_version", "extractor_version", "rules")
    return {key: summary[key] for key in keep if key in summary}


def _write_parquet(table: pd.DataFrame, path: str, summary: Dict[str, Any], columns: schema.Columns) -> None:
    arrow = pa.Table.from_pandas(table, schema=schema.arrow_schema(columns), preserve_index=False)
    metadata = {b"pandas": schema.pandas_metadata(columns)}
    metadata[b"punstats"] = json.dumps(provenance_metadata(summary), sort_keys=True).encode()
    pq.write_table(arrow.replace_schema_metadata(metadata), path)


def write(directory: str, occurrences: pd.DataFrame, files: pd.DataFrame,
          summary: Dict[str, Any], csv: bool = False,
          functions: Optional[pd.DataFrame] = None) -> None:
    os.makedirs(directory, exist_ok=True)
    tables = {OCCURRENCES_FILE: (occurrences, schema.OCCURRENCES), FILES_FILE: (files, schema.FILES)}
    if functions is not None:
        tables[FUNCTIONS_FILE] = (functions, schema.FUNCTIONS)
    for name, (table, columns) in tables.items():
        _write_parquet(table, os.path.join(directory, name), summary, columns + schema.RULE_COLUMNS)
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

