"""The summary of a scan: totals, shares, top identifiers and callees, kinds and parameters.

``Totals`` keeps them as running totals, fed the stored tables in pieces
(pyarrow), so a scan is summarized without holding its rows;
``summarize`` and ``parameters`` give the same counts for whole DataFrames.
"""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Set, Tuple, Union

from punstats.model.kinds import KIND_ATTRIBUTE, KIND_CALL, KIND_CLASS, Kind
from punstats.model.statuses import OK, PATTERN_ERROR, SKIPPED_STATUSES
from punstats.patterns.built_in import BUILT_IN

if TYPE_CHECKING:
    import pandas as pd

TOP_N = 10


#: Built-in rows of ``kinds`` whose count is not the sum of the files-table column of their
#: name: the headline and class keywords (summed as ``punnable`` and ``class_punnable``) and
#: the most ``x=x`` arguments in one call (a maximum); the parts of ``attribute`` are counted
#: from the occurrences (their ``base_kind``).
_COUNTED_ELSEWHERE = (KIND_CALL, KIND_CLASS, "max_call_punnable")

#: Units a summary has always held in ``kinds`` (the denominators of ``{"x": x}`` and ``*args``).
_UNITS_IN_KINDS = ("dict_entries", "functions")

#: The rows of ``kinds``: the built-in rows of that section (``patterns.built_in.BUILT_IN``).
_KIND_ROWS = tuple(kind.name for kind in BUILT_IN if kind.section == "kinds")

#: Per-file counters summed into ``kinds``: the built-in rows counted in the files table, and two units.
KIND_COUNTERS = tuple(kind.name for kind in BUILT_IN if kind.section == "kinds" and kind.part_of != KIND_ATTRIBUTE
                      and kind.name not in _COUNTED_ELSEWHERE) + _UNITS_IN_KINDS


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


def status_counts(statuses: Dict[str, int]) -> Dict[str, int]:
    """``files`` (meant to be scanned), ``parsed`` and ``failed`` of a summary, from the count of
    each file status (a scan's ``Totals``, a revision's running totals in ``runs.revisions``)."""
    return {"files": sum(v for k, v in statuses.items() if k not in SKIPPED_STATUSES),
            "parsed": statuses.get(OK, 0),
            "failed": sum(v for k, v in statuses.items() if k != OK and k not in SKIPPED_STATUSES)}


def failed_by_reason(statuses: Dict[str, int]) -> Dict[str, int]:
    """The files that failed, by status, sorted (a scan's totals, a revision's alike)."""
    return dict(sorted((k, v) for k, v in statuses.items() if k != OK and k not in SKIPPED_STATUSES and v))


def percent(part: int, whole: int) -> float:
    return round(100.0 * part / whole, 4) if whole else 0.0


def summarize(occurrences: pd.DataFrame, files: pd.DataFrame, long_threshold: int,
              patterns: Sequence[Union[Kind, str]] = ()) -> Dict[str, Any]:
    """The counts of a scan (provenance is added by the caller); ``patterns``: its user patterns."""
    import pyarrow as pa

    from punstats.store.frames import as_stored
    totals = Totals(long_threshold, patterns)
    totals.add_files(pa.Table.from_pandas(as_stored(files), preserve_index=False))
    totals.add_occurrences(pa.Table.from_pandas(as_stored(occurrences), preserve_index=False))
    return totals.counts()


def parameters(functions: pd.DataFrame, nontest: bool = False) -> Dict[str, int]:
    """Definition side: how functions (and lambdas) declare their parameters (``nontest``: those
    outside tests; ``functions`` then has the rule columns)."""
    import pyarrow as pa

    from punstats.store.frames import as_stored
    totals = Totals(0)
    totals.add_functions(pa.Table.from_pandas(as_stored(functions), preserve_index=False))
    return totals.parameters(nontest)


#: Columns of parsed files summed into the summary (``kinds`` adds ``KIND_COUNTERS``).
_FILE_SUMS = ("in_test", "lines", "calls", "keywords", "double_star", "punnable", "class_keywords",
              "class_punnable") + KIND_COUNTERS


#: Columns of parsed files that are units (what a count is a share of, ``model.kinds.UNITS``),
#: each among ``_FILE_SUMS``; ``code_lines`` and the ``nodes_<class>`` columns are summed when
#: the table has them.
_UNIT_SUMS = ("keywords", "calls", "class_keywords", "dict_entries", "functions", "lines")


_FUNCTION_SUMS = ("positional_only", "positional_or_keyword", "keyword_only", "var_positional",
                  "var_keyword", "defaults", "keyword_only_defaults")


class Totals:
    """Running totals of a scan, fed its tables in chunks (pyarrow tables, with
    the rule columns) in any number of pieces: the summary without holding
    every row.  Occurrences must come in file order (as stored)."""

    def __init__(self, long_threshold: int, patterns: Sequence[Union[Kind, str]] = ()) -> None:
        self.long_threshold = long_threshold
        self.patterns = tuple(p.name if isinstance(p, Kind) else p for p in patterns)  # user pattern names
        self.sums: Counter = Counter()
        self.outside: Counter = Counter()  # the same sums over parsed files outside tests
        self.units: Dict[str, str] = {}  # unit -> its key in sums and outside (tables may lack some columns)
        self.max_nontest = 0
        self.statuses: Counter = Counter()
        self.max_call_punnable = 0
        self.names: Counter = Counter()
        self.callees: Counter = Counter()
        self.functions: Counter = Counter()
        self.functions_outside: Counter = Counter()  # the same, of definitions outside tests
        # a files table stored before extractor version 5 has no calls_with_punnable: its calls
        # are then told apart by their start, as they were (a chain f(a=a).g(b=b) counted once)
        self._per_file_calls = False
        self._call_path: Optional[str] = None  # the file whose distinct calls are in _calls
        self._calls: Set[Tuple[int, int]] = set()
        self.first_pattern_error: Optional[Dict[str, Any]] = None
        self.pattern_paths: Dict[str, Counter] = {name: Counter() for name in self.patterns}


    def add_files(self, files: Any) -> None:
        import pyarrow.compute as pc
        self.statuses.update(_value_counts(files["status"]))
        if self.first_pattern_error is None and self.statuses[PATTERN_ERROR]:
            self.first_pattern_error = _first_failure(files, PATTERN_ERROR)
        parsed = files.filter(pc.equal(files["status"], _scalar(OK)))
        for name in _FILE_SUMS:
            self.sums[name] += _sum(parsed[name])
        outside = parsed.filter(pc.invert(parsed["in_test"]))
        for name in _FILE_SUMS[1:]:
            self.outside[name] += _sum(outside[name])
        self._add_units(parsed, outside)
        if "calls_with_punnable" in parsed.column_names:
            self._per_file_calls = True
            self.sums["calls_with_punnable"] += _sum(parsed["calls_with_punnable"])
        if len(parsed):
            self.max_call_punnable = max(self.max_call_punnable, pc.max(parsed["max_call_punnable"]).as_py())
        if len(outside):
            self.max_nontest = max(self.max_nontest, pc.max(outside["max_call_punnable"]).as_py())

    def _add_units(self, parsed: Any, outside: Any) -> None:
        """The units of parsed files, in and outside tests: files, the unit columns (summed
        already as file sums), lines of code (a files table that has them) and the nodes user
        patterns count per."""
        from punstats.store.schema import NODE_PREFIX
        self.units["files"] = "unit:files"
        self.sums["unit:files"] += len(parsed)
        self.outside["unit:files"] += len(outside)
        for column in parsed.column_names:
            if column in _UNIT_SUMS:
                self.units[column] = column
            elif column == "code_lines" or column.startswith(NODE_PREFIX):
                key = "unit:" + (column[len(NODE_PREFIX):] if column.startswith(NODE_PREFIX) else column)
                self.units[key[len("unit:"):]] = key
                self.sums[key] += _sum(parsed[column])
                self.outside[key] += _sum(outside[column])

    def add_occurrences(self, occurrences: Any) -> None:
        import pyarrow.compute as pc
        calls = occurrences.filter(pc.equal(occurrences["kind"], _scalar(KIND_CALL)))
        in_test = _sum(calls["in_test"])
        self.sums["punnable_test"] += in_test
        self.sums["punnable_nontest"] += len(calls) - in_test
        long = calls.filter(pc.greater_equal(calls["name_len"], _scalar(self.long_threshold)))
        self.sums["long"] += len(long)
        self.sums["long_nontest"] += len(long) - _sum(long["in_test"])
        self.names.update(_value_counts(calls["name"]))
        self.callees.update(_value_counts(calls["callee"]))
        attributes = occurrences.filter(pc.equal(occurrences["kind"], _scalar("attribute")))
        self.sums.update({"attribute_" + k: v for k, v in _value_counts(attributes["base_kind"]).items()})
        attributes = attributes.filter(pc.invert(attributes["in_test"]))
        self.outside.update({"attribute_" + k: v for k, v in _value_counts(attributes["base_kind"]).items()})
        if self.patterns:  # the occurrences of user patterns, in and outside tests, and their files
            self.sums.update({"kind:" + k: v for k, v in _value_counts(occurrences["kind"]).items()})
            outside = occurrences.filter(pc.invert(occurrences["in_test"]))
            self.outside.update({"kind:" + k: v for k, v in _value_counts(outside["kind"]).items()})
            self._add_pattern_paths(occurrences)
        for path, line, col in zip(*(calls[c].to_pylist() for c in ("path", "call_line", "call_col"))):
            if path != self._call_path:
                self._call_path, self._calls = path, set()
            if (line, col) not in self._calls:
                self._calls.add((line, col))
                self.sums["call_starts"] += 1

    def _add_pattern_paths(self, occurrences: Any) -> None:
        import pyarrow.compute as pc
        for name, paths in self.pattern_paths.items():
            rows = occurrences.filter(pc.equal(occurrences["kind"], _scalar(name)))
            paths.update(_value_counts(rows["path"]))

    def add_functions(self, functions: Any) -> None:
        import pyarrow.compute as pc
        _add_parameters(self.functions, functions)
        if "in_test" in functions.column_names:
            _add_parameters(self.functions_outside, functions.filter(pc.invert(functions["in_test"])))

    def counts(self) -> Dict[str, Any]:
        """What ``summarize`` returns."""
        s = self.sums
        return {
            **status_counts(self.statuses),
            "failed_by_reason": failed_by_reason(self.statuses),
            "skipped_files": dict(sorted((k, v) for k, v in self.statuses.items() if k in SKIPPED_STATUSES)),
            "test_files": s["in_test"],
            **{name: s[name] for name in ("lines", "calls", "keywords", "double_star", "punnable")},
            "punnable_pct": percent(s["punnable"], s["keywords"]),
            **{name: s[name] for name in ("punnable_test", "punnable_nontest", "long", "long_nontest")},
            "calls_with_punnable": s["calls_with_punnable" if self._per_file_calls else "call_starts"],
            "long_threshold": int(self.long_threshold),
            "class_keywords": s["class_keywords"],
            "class_punnable": s["class_punnable"],
            "top_identifiers": _top(self.names),
            "top_callees": _top(self.callees),
            "kinds": self.kinds(),
            "kinds_nontest": self.kinds(nontest=True),
            "units": {unit: s[key] for unit, key in self.units.items()},
            "units_nontest": {unit: self.outside[key] for unit, key in self.units.items()},
            "keywords_nontest": self.outside["keywords"],
            "punnable_nontest_pct": percent(self.outside["punnable"], self.outside["keywords"]),
            **({"code_lines": s[self.units["code_lines"]]} if "code_lines" in self.units else {}),
            **({"first_pattern_error": self.first_pattern_error} if self.first_pattern_error else {}),
            **({"pattern_files": {name: {"files": len(paths), "top": _top(paths)}
                                  for name, paths in self.pattern_paths.items()}} if self.patterns else {}),
        }

    def kinds(self, nontest: bool = False) -> Dict[str, int]:
        """Counts of every row of the registry, from the same scan (``nontest``: outside tests),
        in its order; the user patterns' after the built-in ones."""
        sums = self.outside if nontest else self.sums
        elsewhere = {KIND_CALL: sums["punnable"], KIND_CLASS: sums["class_punnable"],
                     "max_call_punnable": self.max_nontest if nontest else self.max_call_punnable}
        result = {name: elsewhere.get(name, sums[name]) for name in _KIND_ROWS}
        result.update({name: sums[name] for name in _UNITS_IN_KINDS})
        result.update({name: sums["kind:" + name] for name in self.patterns})
        return result

    def parameters(self, nontest: bool = False) -> Dict[str, int]:
        """What ``parameters`` returns (``nontest``: of the definitions outside tests)."""
        keys = ("functions", "lambdas") + _FUNCTION_SUMS + ("functions_with_positional_only",
                                                            "functions_with_keyword_only")
        counted = self.functions_outside if nontest else self.functions
        return {key: counted[key] for key in keys}


def _add_parameters(counted: Counter, functions: Any) -> None:
    """The parameter counts of ``functions`` (a pyarrow table) added to ``counted``."""
    import pyarrow.compute as pc
    counted["functions"] += len(functions)
    counted["lambdas"] += _sum(pc.equal(functions["kind"], _scalar("lambda")))
    for name in _FUNCTION_SUMS:
        counted[name] += _sum(functions[name])
    for name in ("positional_only", "keyword_only"):
        counted["functions_with_" + name] += _sum(pc.greater(functions[name], _scalar(0)))


def _first_failure(files: Any, status: str) -> Dict[str, Any]:
    """Where the first file of ``files`` (a pyarrow table) with ``status`` failed, and why."""
    import pyarrow.compute as pc
    [row] = files.filter(pc.equal(files["status"], _scalar(status))).slice(0, 1).to_pylist()
    return {"path": row["path"], "line": row["error_line"], "error": row["error"]}


def _scalar(value: Any) -> Any:
    """``store.arrays.scalar``, imported when a table is summed (runs.revisions sums no table:
    it needs no pyarrow)."""
    from punstats.store.arrays import scalar
    return scalar(value)


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
