"""Statistics computed from the two tables of a scan.

Everything here reads the ``occurrences`` and ``files`` DataFrames only, so
a stored scan loaded from parquet gives the same numbers as a fresh one.
"""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

import pandas as pd

from punstats.discover import SKIPPED_STATUSES
from punstats.extract import KIND_CALL, OK

TOP_N = 10


def scanned_files(files: pd.DataFrame) -> pd.DataFrame:
    """Files that were meant to be scanned (not deliberately skipped)."""
    return files[~files["status"].isin(SKIPPED_STATUSES)]


def call_occurrences(occurrences: pd.DataFrame) -> pd.DataFrame:
    """The headline occurrences: punnable keyword arguments of calls."""
    return occurrences[occurrences["kind"] == KIND_CALL]


def long_occurrences(occurrences: pd.DataFrame, threshold: int) -> pd.DataFrame:
    calls = call_occurrences(occurrences)
    return calls[calls["name_len"] >= threshold]


def top(values: pd.Series, n: int = TOP_N) -> List[Tuple[str, int]]:
    """The ``n`` most common values, ties broken alphabetically."""
    counts = values.value_counts()
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [(str(value), int(count)) for value, count in ordered[:n]]


def percent(part: int, whole: int) -> float:
    return round(100.0 * part / whole, 4) if whole else 0.0


def summarize(occurrences: pd.DataFrame, files: pd.DataFrame, long_threshold: int) -> Dict[str, Any]:
    """The counts of a scan (provenance is added by the caller)."""
    scanned = scanned_files(files)
    parsed = scanned[scanned["status"] == OK]
    failed = scanned[scanned["status"] != OK]
    skipped = files[files["status"].isin(SKIPPED_STATUSES)]
    calls = call_occurrences(occurrences)
    long = long_occurrences(occurrences, long_threshold)
    keywords = int(parsed["keywords"].sum())
    punnable = int(parsed["punnable"].sum())
    return {
        "files": int(len(scanned)),
        "parsed": int(len(parsed)),
        "failed": int(len(failed)),
        "failed_by_reason": {str(k): int(v) for k, v in sorted(failed["status"].value_counts().items())},
        "skipped_files": {str(k): int(v) for k, v in sorted(skipped["status"].value_counts().items())},
        "test_files": int(parsed["in_test"].sum()),
        "lines": int(parsed["lines"].sum()),
        "calls": int(parsed["calls"].sum()),
        "keywords": keywords,
        "double_star": int(parsed["double_star"].sum()),
        "punnable": punnable,
        "punnable_pct": percent(punnable, keywords),
        "punnable_test": int(calls["in_test"].sum()),
        "punnable_nontest": int((~calls["in_test"]).sum()),
        "calls_with_punnable": int(len(calls.drop_duplicates(["path", "call_line", "call_col"]))),
        "long": int(len(long)),
        "long_nontest": int((~long["in_test"]).sum()),
        "long_threshold": int(long_threshold),
        "class_keywords": int(parsed["class_keywords"].sum()),
        "class_punnable": int(parsed["class_punnable"].sum()),
        "top_identifiers": top(calls["name"]),
        "top_callees": top(calls["callee"]),
    }


def by_length(occurrences: pd.DataFrame) -> pd.DataFrame:
    """Headline occurrences per identifier length, split test / non-test,
    with the cumulative count of occurrences at least that long."""
    calls = call_occurrences(occurrences)
    table = (calls.assign(where=calls["in_test"].map({True: "test", False: "nontest"}))
             .pivot_table(index="name_len", columns="where", values="name", aggfunc="count", fill_value=0)
             .reindex(columns=["nontest", "test"], fill_value=0))
    table["total"] = table["nontest"] + table["test"]
    table["at_least"] = table["total"][::-1].cumsum()[::-1]
    table.columns.name = None
    return table.astype("int64")
