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
  count pooled from the projects' summaries and its pooled share of its unit.
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Dict, Iterable, List, Sequence, Set, Tuple

import pandas as pd

from punstats.analysis import units
from punstats.analysis.summary import call_occurrences, nonzero_counts, percent, scanned_files
from punstats.model.kinds import Kind, registry_of
from punstats.model.statuses import OK

SCOPES = ("all", "nontest")

THRESHOLDS = (10, 20, 30)

TOP_N = 20


def measures(occurrences: pd.DataFrame, files: pd.DataFrame) -> Dict[str, Any]:
    """One project's counts for ``aggregate``, for all code and outside tests."""
    parsed = scanned_files(files)
    parsed = parsed[parsed["status"] == OK]
    calls = call_occurrences(occurrences)
    result: Dict[str, Any] = {}
    for scope in SCOPES:
        f = parsed if scope == "all" else parsed[~parsed["in_test"]]
        o = calls if scope == "all" else calls[~calls["in_test"]]
        result[scope] = {
            "files": int(len(f)),
            "keywords": int(f["keywords"].sum()),
            "punnable": int(f["punnable"].sum()),
            "identifiers": _counts(o["name"]),
            "callees": _counts(o["callee"]),
            "lengths": {str(k): v for k, v in sorted(_counts(o["name_len"]).items(), key=lambda kv: int(kv[0]))},
        }
    return result


def _counts(values: pd.Series) -> Dict[str, int]:
    return {str(k): v for k, v in nonzero_counts(values).items()}


def quantile(values: Sequence[float], q: float) -> float:
    """The unweighted quantile (linear interpolation, as pandas)."""
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
    """Each registry row's count pooled over the projects' summaries (``model.kinds.registry_of``),
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
                    self.sums[scope, kind.name, what] += value or 0
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


def aggregate(projects: Iterable[Dict[str, Any]]) -> Dict[str, Any]:
    """The ecosystem summary of project records (``status`` and, when scanned, ``measures``)."""
    scopes = {scope: _Scope() for scope in SCOPES}
    statuses: Counter = Counter()
    reasons: Counter = Counter()
    kinds: Counter = Counter()
    cache: Counter = Counter()  # files answered by the blob cache (seen in an earlier project) or extracted
    patterns = _Kinds()
    lines = 0
    for record in projects:
        statuses[record["status"]] += 1
        if record["status"] != "scanned":
            reasons["failed" if record["status"] == "failed" else record.get("reason", "")] += 1
            continue
        kinds[record.get("distribution", "")] += 1
        lines += int(record.get("lines", 0))
        cache.update({k: int(v) for k, v in (record["summary"].get("cache") or {}).items()
                      if k in ("cached", "extracted")})
        for scope in SCOPES:
            scopes[scope].add(record["measures"][scope])
        patterns.add(record["summary"])
    return {
        "projects": sum(statuses.values()),
        "scanned": statuses["scanned"],
        "skipped": statuses["skipped"],
        "failed": statuses["failed"],
        "not_scanned_by_reason": dict(sorted(reasons.items())),
        "distributions": dict(sorted(kinds.items())),
        "lines": lines,
        "cache": dict(sorted(cache.items())),
        **{scope: scopes[scope].summary() for scope in SCOPES},
        **patterns.summary(),
    }
