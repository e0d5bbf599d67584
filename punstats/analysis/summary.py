"""The summary of a scan: totals, shares, top identifiers and callees, kinds and parameters.
"""
from __future__ import annotations

from typing import Any, Dict, List

import pandas as pd

from punstats.model.kinds import KIND_CALL
from punstats.model.statuses import OK, SKIPPED_STATUSES

TOP_N = 10


#: Per-file counters summed into ``kinds`` (see extract.py for each definition).
KIND_COUNTERS = (
    "attribute", "dict_literal", "dict_entries", "dict_call_punnable", "near_miss",
    "calls_no_arguments", "calls_positional_only", "calls_keyword_only", "calls_mixed",
    "calls_all_punnable", "functions",
)


def scanned_files(files: pd.DataFrame) -> pd.DataFrame:
    """Files that were meant to be scanned (not deliberately skipped)."""
    return files[~files["status"].isin(SKIPPED_STATUSES)]


def call_occurrences(occurrences: pd.DataFrame) -> pd.DataFrame:
    """The headline occurrences: punnable keyword arguments of calls."""
    return occurrences[occurrences["kind"] == KIND_CALL]


def long_occurrences(occurrences: pd.DataFrame, threshold: int) -> pd.DataFrame:
    calls = call_occurrences(occurrences)
    return calls[calls["name_len"] >= threshold]


def top(values: pd.Series, n: int = TOP_N) -> List[List[Any]]:
    """The ``n`` most common values, ties broken alphabetically."""
    counts = values.value_counts()
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [[str(value), int(count)] for value, count in ordered[:n]]


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
        "kinds": kinds(occurrences, parsed),
        **outside_tests(files),
    }


def kinds(occurrences: pd.DataFrame, parsed: pd.DataFrame) -> Dict[str, int]:
    """Counts of every recorded pattern besides the headline, from the same scan."""
    result = {"call": int(parsed["punnable"].sum()), "class": int(parsed["class_punnable"].sum())}
    for name in KIND_COUNTERS:
        result[name] = int(parsed[name].sum()) if name in parsed else 0
    attributes = occurrences[occurrences["kind"] == "attribute"]
    for base in ("self", "cls", "name", "expr"):
        result["attribute_" + base] = int((attributes["base_kind"] == base).sum())
    result["max_call_punnable"] = int(parsed["max_call_punnable"].max()) if len(parsed) else 0
    return result


def parameters(functions: pd.DataFrame) -> Dict[str, int]:
    """Definition side: how functions (and lambdas) declare their parameters."""
    return {
        "functions": int(len(functions)),
        "lambdas": int((functions["kind"] == "lambda").sum()),
        "positional_only": int(functions["positional_only"].sum()),
        "positional_or_keyword": int(functions["positional_or_keyword"].sum()),
        "keyword_only": int(functions["keyword_only"].sum()),
        "var_positional": int(functions["var_positional"].sum()),
        "var_keyword": int(functions["var_keyword"].sum()),
        "defaults": int(functions["defaults"].sum()),
        "keyword_only_defaults": int(functions["keyword_only_defaults"].sum()),
        "functions_with_positional_only": int((functions["positional_only"] > 0).sum()),
        "functions_with_keyword_only": int((functions["keyword_only"] > 0).sum()),
    }



def outside_tests(files: pd.DataFrame) -> Dict[str, Any]:
    """The share a PEP author wants most: ``f(x=x)`` among the keyword
    arguments of files outside tests (the scan's test rule), from the files table."""
    parsed = scanned_files(files)
    parsed = parsed[(parsed["status"] == OK) & ~parsed["in_test"].astype(bool)]
    keywords, punnable = int(parsed["keywords"].sum()), int(parsed["punnable"].sum())
    return {"keywords_nontest": keywords, "punnable_nontest_pct": percent(punnable, keywords)}
