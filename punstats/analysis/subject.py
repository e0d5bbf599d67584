"""The kind a table or report is about (its subject), and that kind's numbers per project.

The subject itself (``--kind NAME``, or the default) is chosen by
``analysis.asked.subject``: only a row measured against a unit
(``Kind.per``) can be one.

``per_project`` lists, for every project of an ecosystem run, the kind's
count and its unit's total in all code and outside tests, read from the
project's stored summary (``analysis.units``, as the run's kinds table);
``measure`` turns a count and its unit into what the tables print: a share
in % for a unit of syntax, a rate per million for lines or files
(``units.is_share``); ``pooled`` sums the scanned projects and gives the
per-project median of the measure (projects with some of the unit);
``kind_intervals`` their 95 % intervals, the scanned projects resampled
(``analysis.uncertainty.run_intervals``).
"""
from __future__ import annotations

from typing import Any, Dict, Iterable

import pandas as pd

from punstats.analysis import units
from punstats.analysis.ecosystem import project_identity
from punstats.analysis.uncertainty import RunIntervals, run_intervals
from punstats.model.intervals import DEFAULT_BOOTSTRAP, Bootstrap
from punstats.model.kinds import Kind

#: The counts of ``per_project``: the kind's and its unit's, in all code and outside tests.
COUNTS = ("count", "unit", "count_nontest", "unit_nontest")


def measure(part: Any, whole: Any, unit: str) -> float:
    """``part`` against ``whole`` of ``unit``: in % (a unit of syntax) or per million (lines,
    files); NaN where it means nothing (no unit known, none of it)."""
    part = None if part is None or pd.isna(part) else int(part)
    whole = None if whole is None or pd.isna(whole) else int(whole)
    return units.share(part, whole) if units.is_share(unit) else units.rate(part, whole)


def per_project(records: Iterable[Dict[str, Any]], kind: Kind) -> pd.DataFrame:
    """One row per project of a run, in rank order: ``rank``, ``project``, ``status``, ``reason``,
    ``version``, the ``COUNTS`` (missing for a project not scanned, or a count its summary did
    not record) and ``measure``, ``measure_nontest`` (``measure``)."""
    rows = []
    for record in records:
        row = project_identity(record)
        if record["status"] == "scanned":
            summary = record["summary"]
            row.update(count=units.count(summary, kind), unit=units.denominator(summary, kind.per),
                       count_nontest=units.count(summary, kind, True),
                       unit_nontest=units.denominator(summary, kind.per, True))
        rows.append(row)
    frame = pd.DataFrame(rows, columns=["rank", "project", "status", "reason", "version", *COUNTS])
    for column in COUNTS:
        frame[column] = frame[column].astype("Int64")
    return with_measures(frame, kind)


def with_measures(frame: pd.DataFrame, kind: Kind) -> pd.DataFrame:
    """``frame`` (the ``COUNTS`` columns) with ``measure`` and ``measure_nontest`` added."""
    for suffix in ("", "_nontest"):
        frame["measure" + suffix] = pd.Series(
            [measure(c, u, kind.per) for c, u in zip(frame["count" + suffix], frame["unit" + suffix])],
            index=frame.index, dtype="float64")
    return frame


def pooled(frame: pd.DataFrame, kind: Kind) -> Dict[str, Any]:
    """The ``COUNTS`` summed over the scanned projects of a ``per_project`` frame (None where some
    project did not record one: a sum over the others would pass for all), their ``measure``s,
    ``projects`` (how many), ``with_matches`` (how many with a match) and ``median`` /
    ``median_nontest``: the per-project median measure over the projects with some of the unit
    (``measured``: how many, in all code)."""
    scanned = frame[frame["status"] == "scanned"]
    result: Dict[str, Any] = {"projects": int(len(scanned)), "with_matches": int((scanned["count"] > 0).sum())}
    for column in COUNTS:
        values = scanned[column]
        result[column] = None if values.isna().any() else int(values.sum())
    for suffix in ("", "_nontest"):
        result["measure" + suffix] = measure(result["count" + suffix], result["unit" + suffix], kind.per)
        known = scanned["measure" + suffix].dropna()
        result["median" + suffix] = float(known.median()) if len(known) else float("nan")
    result["measured"] = int(scanned["measure"].notna().sum())
    return result


def kind_intervals(frame: pd.DataFrame, kind: Kind, method: Bootstrap = DEFAULT_BOOTSTRAP) -> RunIntervals:
    """The 95 % intervals of a run's pooled measure of ``kind`` and of its median, in all code
    (``all``) and outside tests (``nontest``), from its ``per_project`` frame."""
    scale = 100.0 if units.is_share(kind.per) else 1e6
    return run_intervals(frame, method, (("all", "count", "unit", scale),
                                         ("nontest", "count_nontest", "unit_nontest", scale)))
