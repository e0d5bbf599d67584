"""The sides of a comparison: scans, ecosystem runs and histories reduced to one kind's counts.

``table A B``, ``plot A B`` and ``report A B`` line up inputs of any sort, each
reduced here to a ``Side``: one kind's count and its unit's total, in all code
and outside tests, overall and per unit of resampling:

- a stored scan is one project: its parsed files are the units, so its
  intervals say how much another set of files of the same kind could move it;
- an ecosystem run: its scanned projects are the units (a cluster bootstrap,
  ``analysis.uncertainty``), and it also has a per-project median;
- a stored history: its newest revision.  A history keeps totals per revision,
  not files, so it has no interval.

``compare`` computes, for every side, the pooled measure with its 95 %
interval (and a run's per-project median with its own), and for every side
after the first the difference first minus it: its interval (each side
resampled on its own) and, where both sides have units of the same sort, a
permutation test's p-value.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from punstats.analysis import units
from punstats.analysis.summary import scanned_files
from punstats.analysis.uncertainty import difference, median, median_difference, pooled, unit_ratios
from punstats.model.intervals import DEFAULT_BOOTSTRAP, NOTHING, Bootstrap, Difference, Interval
from punstats.model.kinds import KIND_CALL, Kind
from punstats.model.statuses import OK
from punstats.store.schema import NODE_PREFIX

#: The sorts of input (``cli.compare`` names them too, without importing pandas).
SCAN, RUN, HISTORY = "scan", "run", "history"

#: A side's counts per unit (and in total): the kind's, its unit's, outside tests, lines of code.
COUNTS = ("count", "unit", "count_nontest", "unit_nontest", "code_lines")

#: A scan's per-file column: whether the file is outside tests (the units of its share outside tests).
NONTEST = "nontest"

#: The measures compared, in order: name -> (numerator, denominator) among ``COUNTS``;
#: ``per_million`` only for a kind that is a share of its unit (a kind counted per line
#: already is a rate per line).
MEASURES = {"measure": ("count", "unit"), "measure_nontest": ("count_nontest", "unit_nontest"),
            "per_million": ("count", "code_lines")}


@dataclass(frozen=True)
class Side:
    """One input of a comparison, about one kind.

    ``per_unit``: one row per unit (a scan's parsed file, a run's scanned project) with the
    ``COUNTS`` (a scan's also ``NONTEST``); None where the input keeps no such rows (a history) or
    they do not add up to its totals.  ``totals``: the ``COUNTS`` summed (None where unknown);
    ``stored``: measures the input stores without their counts (a history's share outside tests)."""

    name: str
    sort: str
    kind: Kind
    totals: Dict[str, Optional[int]]
    per_unit: Optional[pd.DataFrame]
    projects: int
    files: Optional[int]
    provenance: str
    stored: Dict[str, float]
    #: How many projects the input listed (a run's records, scanned or not; 1 for a scan or a history).
    asked: int = 1

    @property
    def unit(self) -> str:
        """What was resampled: a scan's files or a run's projects ("" for none)."""
        return {SCAN: "files", RUN: "projects"}.get(self.sort, "") if self.per_unit is not None else ""

    def measures(self) -> Tuple[str, ...]:
        """The names of the ``MEASURES`` this side's kind has."""
        return tuple(name for name in MEASURES if name != "per_million" or units.is_share(self.kind.per))

    def scale(self, measure: str) -> float:
        """100 for a share in %, a million for a rate per million."""
        return 100.0 if measure != "per_million" and units.is_share(self.kind.per) else 1e6

    def quartiles(self, measure: str) -> Optional[Tuple[float, float]]:
        """The first and third quartile of the units' own values of ``measure`` (units with some of
        its denominator), as ``analysis.ecosystem.quantile`` computes a run's; None without units."""
        columns = self.columns(measure)
        if columns is None:
            return None
        values = unit_ratios(columns[0], columns[1], self.scale(measure))
        if not len(values):
            return None
        # linear interpolation, as pandas' quantile (analysis.ecosystem.quantile) takes them
        low, high = np.quantile(values, (0.25, 0.75))
        return float(low), float(high)

    def estimate(self, measure: str) -> float:
        """The pooled ``measure`` from the totals, or as the input stored it; NaN where unknown."""
        part, whole = MEASURES[measure]
        num, den = self.totals.get(part), self.totals.get(whole)
        if num is None or not den:
            return self.stored.get(measure, float("nan"))
        return self.scale(measure) * num / den

    def columns(self, measure: str) -> Optional[Tuple[Any, Any]]:
        """The per-unit numerators and denominators of ``measure`` (None without units)."""
        if self.per_unit is None:
            return None
        part, whole = MEASURES[measure]
        rows = self.per_unit
        if measure == "measure_nontest" and NONTEST in rows.columns:
            # a scan's share outside tests is one of its files outside tests: those are its units
            rows = rows[rows[NONTEST]]
        if rows[[part, whole]].isna().any().any():
            return None
        return rows[part].to_numpy("float64"), rows[whole].to_numpy("float64")


def _totals(frame: pd.DataFrame) -> Dict[str, Optional[int]]:
    return {column: None if frame[column].isna().any() else int(frame[column].sum()) for column in COUNTS}


def _file_counts(result: Any, parsed: pd.DataFrame, kind: Kind) -> Optional[pd.DataFrame]:
    """The kind's count per parsed file, in all code and outside tests (None where the scan
    keeps no per-file count of it)."""
    if kind.name == KIND_CALL:
        count = parsed["punnable"].astype("int64")
    elif kind.occurrence:
        rows = result.occurrences
        rows = rows[rows["kind"] == kind.name]
        count = parsed["path"].map(rows.groupby("path", observed=True).size()).fillna(0).astype("int64")
    elif kind.name in parsed.columns:
        count = parsed[kind.name].astype("int64")
    else:
        return None
    nontest = ~parsed["in_test"].astype(bool)
    return pd.DataFrame({"count": count, "count_nontest": count.where(nontest, 0)})


def _file_units(parsed: pd.DataFrame, per: str) -> Optional[pd.Series]:
    """The total of the unit ``per`` in each parsed file (None where the files table has no column of it)."""
    if per == "files":
        return pd.Series(1, index=parsed.index, dtype="int64")
    for column in (per, NODE_PREFIX + per):
        if column in parsed.columns:
            return parsed[column].astype("int64")
    return None


def _scan_units(result: Any, kind: Kind) -> Optional[pd.DataFrame]:
    """A scan's ``COUNTS`` per parsed file, or None where its tables cannot give them, or give
    totals other than its summary's (then an interval over its files would be of something else)."""
    files = result.files
    parsed = scanned_files(files)
    parsed = parsed[parsed["status"] == OK].reset_index(drop=True)
    counts = _file_counts(result, parsed, kind)
    whole = _file_units(parsed, kind.per)
    if counts is None or whole is None or "code_lines" not in parsed.columns:
        return None
    nontest = ~parsed["in_test"].astype(bool)
    frame = counts.assign(unit=whole, unit_nontest=whole.where(nontest, 0),
                          code_lines=parsed["code_lines"].astype("int64"))[list(COUNTS)].assign(**{NONTEST: nontest})
    summary = result.summary
    expected = (units.count(summary, kind), units.denominator(summary, kind.per),
                units.count(summary, kind, True), units.denominator(summary, kind.per, True))
    found = tuple(int(frame[column].sum()) for column in COUNTS[:4])
    return frame if expected == found else None


def scan_side(result: Any, kind: Kind, name: str, provenance: str) -> Side:
    """A stored scan (``runs.scan.ScanResult``) as a side about ``kind``."""
    summary = result.summary
    per_unit = _scan_units(result, kind)
    totals = {"count": units.count(summary, kind), "unit": units.denominator(summary, kind.per),
              "count_nontest": units.count(summary, kind, True),
              "unit_nontest": units.denominator(summary, kind.per, True),
              "code_lines": units.denominator(summary, "code_lines")}
    return Side(name, SCAN, kind, totals, per_unit, 1, int(summary.get("parsed", 0)), provenance, {})


def run_side(stored: Any, kind: Kind, name: str, provenance: str) -> Side:
    """An ecosystem run (``store.ecosystem.StoredRun``) as a side about ``kind``: its scanned projects."""
    from punstats.analysis.ecosystem import per_project as project_counts
    from punstats.analysis.subject import per_project

    frame = per_project(stored.records, kind)
    scanned = frame["status"] == "scanned"
    sizes = project_counts(stored.records)
    frame["code_lines"] = sizes["code_lines"]
    per_unit = frame[scanned].reset_index(drop=True)[list(COUNTS)]
    files = sizes.loc[scanned, "files"]
    return Side(name, RUN, kind, _totals(per_unit), per_unit, int(scanned.sum()),
                None if files.isna().any() else int(files.sum()), provenance, {}, len(frame))


def history_side(table: pd.DataFrame, kind: Kind, name: str, provenance: str, columns: Sequence[str] = ()) -> Side:
    """A stored history's newest revision (the last row of its table) as a side about ``kind``:
    its totals only (a history keeps no files).  ``columns``: the history's columns of a kind
    other than ``f(x=x)`` (its count in all code and outside tests, then its measures:
    ``runs.history.pattern_columns``)."""
    last = table.iloc[-1]

    def value(column: str) -> Optional[int]:
        return None if column not in table.columns or pd.isna(last[column]) else int(last[column])

    if kind.name == KIND_CALL:
        totals = {"count": value("punnable"), "unit": value("keywords")}
        stored = {"measure_nontest": float(last["punnable_nontest_pct"])}
    else:
        count, count_nontest, *measured = columns
        totals = {"count": value(count), "count_nontest": value(count_nontest)}
        stored = {measure: float(last[column]) for measure, column in zip(("measure", "measure_nontest"), measured)
                  if column in table.columns}
    return Side(name, HISTORY, kind, totals, None, 1, value("parsed"), provenance, stored)


@dataclass(frozen=True)
class Compared:
    """A side's numbers: by measure, the pooled value with its interval, and (a run) the per-unit
    median with its; ``method`` says how they were made (its unit: the side's)."""

    side: Side
    method: Bootstrap
    pooled: Dict[str, Interval]
    median: Dict[str, Interval]


@dataclass(frozen=True)
class Comparison:
    """Sides about one kind, their numbers, and each later side's ``differences`` from the first
    (by measure: first minus it): of the pooled values, and between two runs ``median_differences``,
    of the per-project medians."""

    kind: Kind
    sides: Tuple[Compared, ...]
    differences: Tuple[Dict[str, Difference], ...]
    median_differences: Tuple[Dict[str, Difference], ...]
    method: Bootstrap
    permutations: int

    def measures(self) -> Tuple[str, ...]:
        return self.sides[0].side.measures()


def _compared(side: Side, method: Bootstrap) -> Compared:
    method = replace(method, unit=side.unit or "nothing")
    pooled_by: Dict[str, Interval] = {}
    median_by: Dict[str, Interval] = {}
    for measure in side.measures():
        columns = side.columns(measure)
        estimate = side.estimate(measure)
        if columns is None:
            pooled_by[measure] = Interval(estimate, float("nan"), float("nan"))
        else:
            pooled_by[measure] = pooled(*columns, method, side.scale(measure))
        median_by[measure] = median(*columns, method, side.scale(measure)) \
            if columns is not None and side.sort == RUN else NOTHING
    return Compared(side, method, pooled_by, median_by)


NO_DIFFERENCE = Difference(float("nan"), float("nan"), float("nan"), float("nan"), 0)


def _difference(first: Side, other: Side, measure: str, method: Bootstrap, permutations: int) -> Difference:
    """``first``'s pooled ``measure`` minus ``other``'s: with an interval where both have units, and a
    p-value where their units are of one sort (files against files, projects against projects)."""
    estimate = first.estimate(measure) - other.estimate(measure)
    a, b = first.columns(measure), other.columns(measure)
    if a is None or b is None:
        return Difference(estimate, float("nan"), float("nan"), float("nan"), 0)
    found = difference(a, b, method, permutations if first.unit == other.unit else 0, first.scale(measure))
    return found if first.unit == other.unit else replace(found, p_value=float("nan"), permutations=0)


def compare(sides: Sequence[Side], method: Bootstrap = DEFAULT_BOOTSTRAP, permutations: Optional[int] = None
            ) -> Comparison:
    """The numbers of ``sides`` (about one kind) and of each later side's difference from the first."""
    from punstats.model.intervals import DEFAULT_PERMUTATIONS
    permutations = DEFAULT_PERMUTATIONS if permutations is None else permutations
    first = sides[0]
    differences: List[Dict[str, Difference]] = []
    medians: List[Dict[str, Difference]] = []
    for other in sides[1:]:
        differences.append({measure: _difference(first, other, measure, method, permutations)
                            if measure in other.measures() else NO_DIFFERENCE for measure in first.measures()})
        medians.append({measure: _median_difference(first, other, measure, method, permutations)
                        for measure in first.measures()})
    return Comparison(first.kind, tuple(_compared(side, method) for side in sides), tuple(differences),
                      tuple(medians), method, permutations)


def _median_difference(first: Side, other: Side, measure: str, method: Bootstrap, permutations: int) -> Difference:
    """The difference of two runs' per-project medians of ``measure``; nothing unless both are runs."""
    a, b = first.columns(measure), other.columns(measure)
    if first.sort != RUN or other.sort != RUN or a is None or b is None:
        return NO_DIFFERENCE
    return median_difference(a, b, method, permutations, first.scale(measure))
