"""The summary of a scan: totals, shares, top identifiers and callees, kinds and parameters.

``Totals`` keeps them as running totals, fed the stored tables in pieces
(pyarrow), so a scan is summarized without holding its rows;
``summarize`` and ``parameters`` give the same counts for whole DataFrames.
"""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Set, Tuple

from punstats.model.kinds import KIND_CALL
from punstats.model.statuses import OK, SKIPPED_STATUSES
from punstats.store.frames import as_stored
from punstats.store.schema import scalar

if TYPE_CHECKING:
    import pandas as pd

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


def nonzero_counts(values: pd.Series) -> Dict[Any, int]:
    """How often each value occurs, most common first; a categorical's unused
    categories (``value_counts`` lists them with 0) left out."""
    return {value: int(count) for value, count in values.value_counts().items() if count}


def top(values: pd.Series, n: int = TOP_N) -> List[List[Any]]:
    """The ``n`` most common values, ties broken alphabetically."""
    return _top(Counter(nonzero_counts(values)), n)


def percent(part: int, whole: int) -> float:
    return round(100.0 * part / whole, 4) if whole else 0.0


def summarize(occurrences: pd.DataFrame, files: pd.DataFrame, long_threshold: int) -> Dict[str, Any]:
    """The counts of a scan (provenance is added by the caller)."""
    import pyarrow as pa
    totals = Totals(long_threshold)
    totals.add_files(pa.Table.from_pandas(as_stored(files), preserve_index=False))
    totals.add_occurrences(pa.Table.from_pandas(as_stored(occurrences), preserve_index=False))
    return totals.counts()


def parameters(functions: pd.DataFrame) -> Dict[str, int]:
    """Definition side: how functions (and lambdas) declare their parameters."""
    import pyarrow as pa
    totals = Totals(0)
    totals.add_functions(pa.Table.from_pandas(as_stored(functions), preserve_index=False))
    return totals.parameters()


#: Columns of parsed files summed into the summary (``kinds`` adds ``KIND_COUNTERS``).
_FILE_SUMS = ("in_test", "lines", "calls", "keywords", "double_star", "punnable", "class_keywords",
              "class_punnable") + KIND_COUNTERS


#: The units of ``units`` counted here, from the files table (``model.kinds.UNITS``): parsed files,
#: their physical lines and their lines of code.
FILE_UNITS = ("files", "lines", "code_lines")


def merge_units(summary: Dict[str, Any], units: Dict[str, int], units_nontest: Dict[str, int]) -> Dict[str, Any]:
    """``summary`` with ``units`` and ``units_nontest`` added to those it has (a unit's
    total over parsed files, and outside tests); units it has keep their values unless given."""
    summary["units"] = {**summary.get("units", {}), **units}
    summary["units_nontest"] = {**summary.get("units_nontest", {}), **units_nontest}
    return summary


_FUNCTION_SUMS = ("positional_only", "positional_or_keyword", "keyword_only", "var_positional",
                  "var_keyword", "defaults", "keyword_only_defaults")


_ATTRIBUTE_BASES = ("self", "cls", "name", "expr")


class Totals:
    """Running totals of a scan, fed its tables in chunks (pyarrow tables, with
    the rule columns) in any number of pieces: the summary without holding
    every row.  Occurrences must come in file order (as stored)."""

    def __init__(self, long_threshold: int) -> None:
        self.long_threshold = long_threshold
        self.sums: Counter = Counter()
        self.statuses: Counter = Counter()
        self.max_call_punnable = 0
        self.names: Counter = Counter()
        self.callees: Counter = Counter()
        self.functions: Counter = Counter()
        self._call_path: Optional[str] = None  # the file whose distinct calls are in _calls
        self._calls: Set[Tuple[int, int]] = set()
        self.code_lines = True  # every files table seen had the column (stored before extractor 4: not)

    def add_files(self, files: Any) -> None:
        import pyarrow.compute as pc
        self.statuses.update(_value_counts(files["status"]))
        parsed = files.filter(pc.equal(files["status"], scalar(OK)))
        for name in _FILE_SUMS:
            self.sums[name] += _sum(parsed[name])
        outside = parsed.filter(pc.invert(parsed["in_test"]))
        self.sums["keywords_nontest"] += _sum(outside["keywords"])
        self.sums["punnable_files_nontest"] += _sum(outside["punnable"])
        self.sums["parsed_nontest"] += len(outside)
        self.sums["lines_nontest"] += _sum(outside["lines"])
        if "code_lines" in parsed.column_names:
            self.sums["code_lines"] += _sum(parsed["code_lines"])
            self.sums["code_lines_nontest"] += _sum(outside["code_lines"])
        else:
            self.code_lines = False
        if len(parsed):
            self.max_call_punnable = max(self.max_call_punnable, pc.max(parsed["max_call_punnable"]).as_py())

    def add_occurrences(self, occurrences: Any) -> None:
        import pyarrow.compute as pc
        calls = occurrences.filter(pc.equal(occurrences["kind"], scalar(KIND_CALL)))
        in_test = _sum(calls["in_test"])
        self.sums["punnable_test"] += in_test
        self.sums["punnable_nontest"] += len(calls) - in_test
        long = calls.filter(pc.greater_equal(calls["name_len"], scalar(self.long_threshold)))
        self.sums["long"] += len(long)
        self.sums["long_nontest"] += len(long) - _sum(long["in_test"])
        self.names.update(_value_counts(calls["name"]))
        self.callees.update(_value_counts(calls["callee"]))
        attributes = occurrences.filter(pc.equal(occurrences["kind"], scalar("attribute")))
        self.sums.update({"attribute_" + k: v for k, v in _value_counts(attributes["base_kind"]).items()})
        for path, line, col in zip(*(calls[c].to_pylist() for c in ("path", "call_line", "call_col"))):
            if path != self._call_path:
                self._call_path, self._calls = path, set()
            if (line, col) not in self._calls:
                self._calls.add((line, col))
                self.sums["calls_with_punnable"] += 1

    def add_functions(self, functions: Any) -> None:
        import pyarrow.compute as pc
        self.functions["functions"] += len(functions)
        self.functions["lambdas"] += _sum(pc.equal(functions["kind"], scalar("lambda")))
        for name in _FUNCTION_SUMS:
            self.functions[name] += _sum(functions[name])
        for name in ("positional_only", "keyword_only"):
            self.functions["functions_with_" + name] += _sum(pc.greater(functions[name], scalar(0)))

    def counts(self) -> Dict[str, Any]:
        """What ``summarize`` returns."""
        s = self.sums
        failed = {k: v for k, v in self.statuses.items() if k != OK and k not in SKIPPED_STATUSES}
        return {
            "files": sum(v for k, v in self.statuses.items() if k not in SKIPPED_STATUSES),
            "parsed": self.statuses[OK],
            "failed": sum(failed.values()),
            "failed_by_reason": dict(sorted(failed.items())),
            "skipped_files": dict(sorted((k, v) for k, v in self.statuses.items() if k in SKIPPED_STATUSES)),
            "test_files": s["in_test"],
            **{name: s[name] for name in ("lines", "calls", "keywords", "double_star", "punnable")},
            "punnable_pct": percent(s["punnable"], s["keywords"]),
            **{name: s[name] for name in ("punnable_test", "punnable_nontest", "calls_with_punnable",
                                          "long", "long_nontest")},
            "long_threshold": int(self.long_threshold),
            "class_keywords": s["class_keywords"],
            "class_punnable": s["class_punnable"],
            "top_identifiers": _top(self.names),
            "top_callees": _top(self.callees),
            "kinds": self.kinds(),
            "keywords_nontest": s["keywords_nontest"],
            "punnable_nontest_pct": percent(s["punnable_files_nontest"], s["keywords_nontest"]),
            **self.units(),
        }

    def units(self) -> Dict[str, Any]:
        """``code_lines`` and the ``units`` of the files table (``FILE_UNITS``), in and outside tests;
        without lines of code for tables stored before they were counted."""
        s = self.sums
        units = {"files": self.statuses[OK], "lines": s["lines"], "code_lines": s["code_lines"]}
        nontest = {"files": s["parsed_nontest"], "lines": s["lines_nontest"], "code_lines": s["code_lines_nontest"]}
        counted = [unit for unit in FILE_UNITS if self.code_lines or unit != "code_lines"]
        return merge_units({"code_lines": s["code_lines"]} if self.code_lines else {},
                           {unit: units[unit] for unit in counted}, {unit: nontest[unit] for unit in counted})

    def kinds(self) -> Dict[str, int]:
        """Counts of every recorded pattern besides the headline, from the same scan."""
        result = {"call": self.sums["punnable"], "class": self.sums["class_punnable"]}
        result.update({name: self.sums[name] for name in KIND_COUNTERS})
        result.update({"attribute_" + b: self.sums["attribute_" + b] for b in _ATTRIBUTE_BASES})
        result["max_call_punnable"] = self.max_call_punnable
        return result

    def parameters(self) -> Dict[str, int]:
        """What ``parameters`` returns."""
        keys = ("functions", "lambdas") + _FUNCTION_SUMS + ("functions_with_positional_only",
                                                            "functions_with_keyword_only")
        return {key: self.functions[key] for key in keys}


def _sum(column: Any) -> int:
    import pyarrow.compute as pc
    return int(pc.sum(column, min_count=0).as_py() or 0) if len(column) else 0


def _value_counts(column: Any) -> Dict[str, int]:
    import pyarrow.compute as pc
    return {str(item["values"]): int(item["counts"]) for item in pc.value_counts(column).to_pylist()}


def _top(counts: Counter, n: int = TOP_N) -> List[List[Any]]:
    """The ``n`` most common values, ties broken alphabetically (as ``top``)."""
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return [[str(value), int(count)] for value, count in ordered[:n]]


def outside_tests(files: pd.DataFrame) -> Dict[str, Any]:
    """The share a PEP author wants most, for a scan stored before the summary
    recorded it: ``f(x=x)`` among the keyword arguments of parsed files outside
    tests (the scan's test rule), from its files table."""
    parsed = scanned_files(files)
    parsed = parsed[(parsed["status"] == OK) & ~parsed["in_test"].astype(bool)]
    keywords, punnable = int(parsed["keywords"].sum()), int(parsed["punnable"].sum())
    return {"keywords_nontest": keywords, "punnable_nontest_pct": percent(punnable, keywords)}
