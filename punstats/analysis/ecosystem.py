"""Measures across many projects: each project's compact counts, and the ecosystem summary.

``measures`` reduces one scan to what the ecosystem needs (keywords and
punnable arguments, identifiers, callees and lengths), for all code and for
code outside tests; it is stored with each project, so the summary is built
by streaming over projects without holding any table.  ``aggregate`` merges
them:

- the pooled share: all punnable arguments over all keyword arguments;
- the per-project distribution of the punnable share (projects with at least
  one keyword argument): median and quartiles, unweighted (each project
  counts once) and weighted by keyword arguments (the weighted q-quantile is
  the smallest share at which the projects at or below it hold at least q of
  all keyword arguments; the weighted mean is the pooled share);
- the share of those projects above 10, 20 and 30 %;
- top identifiers and callees across projects, with how many projects use each,
  ranked by occurrences and by the number of projects using them;
- the cumulative share of punnable arguments by identifier length;
- every pattern of the projects' registries (``kinds``: built-in rows and user patterns), its
  count pooled from the projects' summaries and its pooled share of its unit;
- what the scanned projects left out (``left_out``): directories and files skipped, files not
  parsed and archive members refused, summed by reason.
"""
from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from punstats.analysis import units
from punstats.analysis.summary import percent
from punstats.model.kinds import KIND_CALL, Kind
from punstats.model.statuses import OK
from punstats.patterns.built_in import registry_of

if TYPE_CHECKING:  # pandas is imported where a run's tables are shown, not while its projects are scanned
    import pandas as pd

SCOPES = ("all", "nontest")

THRESHOLDS = (10, 20, 30)

TOP_N = 20


def not_scanned_reason(record: Dict[str, Any]) -> str:
    """Why a project was not scanned, as the summary counts it: ``failed``, or the skip's reason."""
    return "failed" if record["status"] == "failed" else str(record.get("reason") or "")


#: The columns of a scan's tables that ``measures`` reads, by table.
MEASURED_COLUMNS = {"occurrences": ("kind", "in_test", "name", "callee", "name_len"),
                    "files": ("status", "in_test", "keywords", "punnable")}


def measures(occurrences: Any, files: Any) -> Dict[str, Any]:
    """One project's counts for ``aggregate``, for all code and outside tests, from its stored
    tables (pyarrow Tables with at least ``MEASURED_COLUMNS``).  Counted in Python, so that a
    run's process imports no pandas while it scans (nor makes pyarrow import it, as a Python
    value in a compute call does): each value's count, most common first, ties in the order the
    values first appear, as pandas' ``value_counts`` orders them."""
    parsed = [row[1:] for row in _rows(files, MEASURED_COLUMNS["files"]) if row[0] == OK]
    calls = [row[1:] for row in _rows(occurrences, MEASURED_COLUMNS["occurrences"]) if row[0] == KIND_CALL]
    result: Dict[str, Any] = {}
    for scope in SCOPES:
        f = parsed if scope == "all" else [row for row in parsed if not row[0]]
        o = calls if scope == "all" else [row for row in calls if not row[0]]
        result[scope] = {
            "files": len(f),
            "keywords": sum(row[1] or 0 for row in f),
            "punnable": sum(row[2] or 0 for row in f),
            "identifiers": _counts(row[1] for row in o),
            "callees": _counts(row[2] for row in o),
            "lengths": {str(k): v for k, v in sorted(_counts(row[3] for row in o).items(), key=lambda kv: int(kv[0]))},
        }
    return result


def _rows(table: Any, columns: Sequence[str]) -> List[Tuple[Any, ...]]:
    """The rows of ``table`` (a pyarrow Table) in ``columns``, as tuples of Python values."""
    return list(zip(*(table.column(name).to_pylist() for name in columns)))


def _counts(values: Iterable[Any]) -> Dict[str, int]:
    """How often each of ``values`` occurs, most common first, ties in the order they first
    appear (``Counter.most_common`` sorts stably); missing values (None) left out."""
    counted = Counter(value for value in values if value is not None)
    return {str(value): count for value, count in counted.most_common()}


def quantile(values: Sequence[float], q: float) -> float:
    """The unweighted quantile (linear interpolation, as pandas)."""
    import pandas as pd
    return float(pd.Series(values, dtype="float64").quantile(q)) if len(values) else 0.0


def weighted_quantile(values: Sequence[float], weights: Sequence[int], q: float) -> float:
    """The smallest value at which the cumulative weight reaches ``q`` of the total."""
    pairs = sorted(zip(values, weights))
    total = sum(weights)
    if not total:
        return 0.0
    running = 0
    for value, weight in pairs:
        running += weight
        if running >= q * total:
            return float(value)
    return float(pairs[-1][0])


class _Scope:
    """Running totals of one scope while projects stream past."""

    def __init__(self) -> None:
        self.keywords = self.punnable = self.files = 0
        self.shares: List[float] = []
        self.weights: List[int] = []
        self.identifiers: Counter = Counter()
        self.identifier_projects: Counter = Counter()
        self.callees: Counter = Counter()
        self.callee_projects: Counter = Counter()
        self.lengths: Counter = Counter()
        self.without_keywords = 0

    def add(self, m: Dict[str, Any]) -> None:
        self.files += m["files"]
        self.keywords += m["keywords"]
        self.punnable += m["punnable"]
        if m["keywords"]:
            self.shares.append(100.0 * m["punnable"] / m["keywords"])
            self.weights.append(m["keywords"])
        else:
            self.without_keywords += 1
        for counts, projects, key in ((self.identifiers, self.identifier_projects, "identifiers"),
                                      (self.callees, self.callee_projects, "callees")):
            counts.update(m[key])
            projects.update(m[key].keys())
        self.lengths.update({int(k): v for k, v in m["lengths"].items()})

    def summary(self) -> Dict[str, Any]:
        shares, weights = self.shares, self.weights
        return {
            "files": self.files,
            "keywords": self.keywords,
            "punnable": self.punnable,
            "pooled_pct": percent(self.punnable, self.keywords),
            "per_project": {
                "projects": len(shares),
                "projects_without_keywords": self.without_keywords,
                "median_pct": round(quantile(shares, 0.5), 4),
                "q1_pct": round(quantile(shares, 0.25), 4),
                "q3_pct": round(quantile(shares, 0.75), 4),
                "mean_pct": round(sum(shares) / len(shares), 4) if shares else 0.0,
                "weighted_median_pct": round(weighted_quantile(shares, weights, 0.5), 4),
                "weighted_q1_pct": round(weighted_quantile(shares, weights, 0.25), 4),
                "weighted_q3_pct": round(weighted_quantile(shares, weights, 0.75), 4),
                "weighted_mean_pct": percent(self.punnable, self.keywords),
            },
            "projects_above_pct": {str(t): percent(sum(1 for s in shares if s > t), len(shares))
                                   for t in THRESHOLDS},
            "top_identifiers": _top(self.identifiers, self.identifier_projects),
            "top_callees": _top(self.callees, self.callee_projects),
            "widest_identifiers": _top(self.identifiers, self.identifier_projects, by_projects=True),
            "widest_callees": _top(self.callees, self.callee_projects, by_projects=True),
            "cumulative_by_length": _cumulative(self.lengths),
        }


def _top(counts: Counter, projects: Counter, n: int = TOP_N, by_projects: bool = False) -> List[List[Any]]:
    """[name, occurrences, projects] of the ``n`` most common (or used by the most projects:
    one large project cannot dominate these), ties alphabetically."""
    key = (lambda item: (-projects[item[0]], -item[1], item[0])) if by_projects else \
        (lambda item: (-item[1], item[0]))
    ordered = sorted(counts.items(), key=key)[:n]
    return [[name, int(count), int(projects[name])] for name, count in ordered]


def _cumulative(lengths: Counter) -> List[List[Any]]:
    """[length, punnable arguments of that length, cumulative % up to it] for each length seen."""
    total = sum(lengths.values())
    rows, running = [], 0
    for length in sorted(lengths):
        running += lengths[length]
        rows.append([int(length), int(lengths[length]), percent(running, total)])
    return rows


class _Kinds:
    """Each registry row's count pooled over the projects' summaries (``patterns.built_in.registry_of``),
    in all code and outside tests, and its pooled share of its unit: null where a project did not
    record the count (or the unit), since a sum over some projects would pass for all of them."""

    def __init__(self) -> None:
        self.rows: Dict[str, Kind] = {}
        self.sums: Counter = Counter()  # (scope, name, "count" or "whole") -> sum over projects
        self.unknown: Set[Tuple[str, str, str]] = set()  # the same keys, where some project had nothing

    def add(self, summary: Dict[str, Any]) -> None:
        for kind in registry_of(summary):
            self.rows.setdefault(kind.name, kind)
            for scope in SCOPES:
                nontest = scope == "nontest"
                for what, value in (("count", units.count(summary, kind, nontest)),
                                    ("whole", units.denominator(summary, kind.per, nontest))):
                    key = (scope, kind.name, what)
                    if what == "count" and kind.pooled == "max":  # the largest of the projects', not a sum
                        self.sums[key] = max(self.sums[key], value or 0)
                    else:
                        self.sums[key] += value or 0
                    if value is None:
                        self.unknown.add((scope, kind.name, what))

    def _pooled(self, scope: str, name: str) -> Dict[str, Any]:
        count, whole = ((scope, name, what) for what in ("count", "whole"))
        known = count not in self.unknown
        return {"count": self.sums[count] if known else None,
                "pct": percent(self.sums[count], self.sums[whole])
                if known and whole not in self.unknown and self.sums[whole] else None}

    def summary(self) -> Dict[str, Any]:
        """``kinds``: per scope, each row's pooled ``count`` and ``pct``; ``patterns``: the user patterns."""
        return {"kinds": {scope: {name: self._pooled(scope, name) for name in self.rows} for scope in SCOPES},
                "patterns": [kind.provenance() for kind in self.rows.values() if kind.user]}


#: What a scanned project's summary says it left out, by reason: (the ecosystem's key, the summary's key).
LEFT_OUT = (("directories", "skipped_dirs"), ("files", "skipped_files"), ("unparsed_files", "failed_by_reason"),
            ("archive_members", "refused_members"))


class _LeftOut:
    """What the scanned projects left out, summed by reason over their summaries: directories skipped
    (``skipped_dirs``), files skipped (``skipped_files``) and not parsed (``failed_by_reason``), archive
    members refused (``refused_members``), each with how many projects left out any.  A record that
    does not hold one (stored by an earlier punstats) is counted as ``unrecorded``, not as nothing."""

    def __init__(self) -> None:
        self.counts: Dict[str, Counter] = {name: Counter() for name, _ in LEFT_OUT}
        self.projects: Counter = Counter()
        self.unrecorded: Counter = Counter()

    def add(self, summary: Dict[str, Any]) -> None:
        for name, key in LEFT_OUT:
            if key not in summary:
                self.unrecorded[name] += 1
                continue
            value = summary[key] or {}
            counts = Counter(str(m.get("reason", "")) for m in value) if key == "refused_members" else \
                Counter({str(k): int(v) for k, v in value.items()})
            self.counts[name].update(counts)
            self.projects[name] += bool(sum(counts.values()))

    def summary(self) -> Dict[str, Any]:
        return {name: {"total": sum(self.counts[name].values()), "by_reason": dict(sorted(self.counts[name].items())),
                       "projects": self.projects[name], "unrecorded": self.unrecorded[name]}
                for name, _ in LEFT_OUT}


def aggregate(projects: Iterable[Dict[str, Any]]) -> Dict[str, Any]:
    """The ecosystem summary of project records (``status`` and, when scanned, ``measures``)."""
    scopes = {scope: _Scope() for scope in SCOPES}
    statuses: Counter = Counter()
    reasons: Counter = Counter()
    kinds: Counter = Counter()
    cache: Counter = Counter()  # files answered by the blob cache (seen in an earlier project) or extracted
    patterns = _Kinds()
    left_out = _LeftOut()
    lines = 0
    for record in projects:
        statuses[record["status"]] += 1
        if record["status"] != "scanned":
            reasons[not_scanned_reason(record)] += 1
            continue
        kinds[record.get("distribution", "")] += 1
        lines += int(record.get("lines", 0))
        cache.update({k: int(v) for k, v in (record["summary"].get("cache") or {}).items()
                      if k in ("cached", "extracted")})
        for scope in SCOPES:
            scopes[scope].add(record["measures"][scope])
        patterns.add(record["summary"])
        left_out.add(record["summary"])
    return {
        "projects": sum(statuses.values()),
        "scanned": statuses["scanned"],
        "skipped": statuses["skipped"],
        "failed": statuses["failed"],
        "not_scanned_by_reason": dict(sorted(reasons.items())),
        "distributions": dict(sorted(kinds.items())),
        "lines": lines,
        "cache": dict(sorted(cache.items())),
        "left_out": left_out.summary(),
        **{scope: scopes[scope].summary() for scope in SCOPES},
        **patterns.summary(),
    }


#: The columns of ``per_project``: the counts a project's record holds, in all code and outside tests.
PROJECT_COUNTS = ("files", "code_lines", "keywords", "punnable", "keywords_nontest", "punnable_nontest")


def row_counts(row: Dict[str, Any]) -> Dict[str, Optional[int]]:
    """A row of ``per_project``'s counts (``PROJECT_COUNTS``) as numbers, None where missing."""
    import pandas as pd
    return {column: None if pd.isna(row[column]) else int(row[column]) for column in PROJECT_COUNTS}


def project_identity(record: Dict[str, Any]) -> Dict[str, Any]:
    """What a row of a run's per-project tables says of its project: ``rank``, ``project``, ``status``,
    ``reason`` (why it was not scanned) and ``version`` (the release read)."""
    return {"rank": int(record["rank"]), "project": str(record["project"]), "status": record["status"],
            "reason": record.get("reason", ""), "version": str(record.get("version", ""))}


def per_project(records: Iterable[Dict[str, Any]]) -> pd.DataFrame:
    """One row per project of a run, in the records' order (rank): ``rank``, ``project``, ``status``,
    ``reason``, ``version`` and the counts of ``PROJECT_COUNTS`` (parsed files, lines of code, keyword
    and ``f(x=x)`` arguments, in all code and outside tests); the counts of a project not scanned
    are missing (``pd.NA``), as is the lines of code of a project stored before they were counted."""
    import pandas as pd
    rows = []
    for record in records:
        row = project_identity(record)
        if record["status"] == "scanned":
            a, n = record["measures"]["all"], record["measures"]["nontest"]
            row.update(files=a["files"], code_lines=units.denominator(record["summary"], "code_lines"),
                       keywords=a["keywords"], punnable=a["punnable"], keywords_nontest=n["keywords"],
                       punnable_nontest=n["punnable"])
        rows.append(row)
    frame = pd.DataFrame(rows, columns=["rank", "project", "status", "reason", "version", *PROJECT_COUNTS])
    for column in PROJECT_COUNTS:
        frame[column] = frame[column].astype("Int64")
    return frame


def pooled(frame: pd.DataFrame) -> Dict[str, Any]:
    """The counts of ``per_project`` rows summed over their scanned projects (``projects``: how many);
    a count some scanned project lacks is None, since a sum over the others would pass for all."""
    scanned = frame[frame["status"] == "scanned"]
    result: Dict[str, Any] = {"projects": int(len(scanned))}
    for column in PROJECT_COUNTS:
        values = scanned[column]
        result[column] = None if values.isna().any() else int(values.sum())
    return result


def shares(counts: Dict[str, Any]) -> Dict[str, float]:
    """``pct`` and ``nontest_pct`` (``f(x=x)`` in % of keyword arguments) and ``per_million`` (per
    million lines of code) of a ``pooled`` or ``per_project`` row's counts; NaN where the
    denominator is 0 or unknown (a share of nothing is not 0 %)."""
    return {"pct": units.share(counts["punnable"], counts["keywords"]),
            "nontest_pct": units.share(counts["punnable_nontest"], counts["keywords_nontest"]),
            "per_million": round(1e6 * counts["punnable"] / counts["code_lines"], 2)
            if counts["punnable"] is not None and counts["code_lines"] else float("nan")}


def pooled_summary(summaries: Iterable[Dict[str, Any]]) -> Dict[str, Any]:
    """The projects' summaries pooled into the sections of one summary that ``analysis.units`` reads
    (``kinds``, ``kinds_nontest``, ``units``, ``units_nontest``, ``patterns``), so that a run's
    patterns are tabulated as a scan's are (``present.tables.kinds_table``).  A count or unit some
    project did not record is None in the pool."""
    kinds = _Kinds()
    unit_sums: Counter = Counter()
    unknown: Set[Tuple[str, str]] = set()
    for summary in summaries:
        kinds.add(summary)
        for scope, nontest in (("units", False), ("units_nontest", True)):
            for unit in {kind.per for kind in registry_of(summary) if kind.per} | {"code_lines"}:
                value = units.denominator(summary, unit, nontest)
                unit_sums[scope, unit] += value or 0
                if value is None:
                    unknown.add((scope, unit))
    result: Dict[str, Any] = {"patterns": kinds.summary()["patterns"]}
    for scope, key in (("all", "kinds"), ("nontest", "kinds_nontest")):
        result[key] = {name: (None if (scope, name, "count") in kinds.unknown else kinds.sums[scope, name, "count"])
                       for name in kinds.rows}
    for scope in ("units", "units_nontest"):
        result[scope] = {unit: None if (scope, unit) in unknown else unit_sums[scope, unit]
                         for (s, unit) in list(unit_sums) if s == scope}
    return result


def at_least(curve: Sequence[Sequence[Any]]) -> List[List[Any]]:
    """[n, arguments with an identifier of at least n characters, their % of all] for each length of a
    ``cumulative_by_length`` curve ([length, count, ...]): the "at least n" share the scan figures draw."""
    total = sum(int(row[1]) for row in curve)
    rows, remaining = [], total
    for row in sorted(curve, key=lambda r: int(r[0])):
        rows.append([int(row[0]), remaining, percent(remaining, total)])
        remaining -= int(row[1])
    return rows
