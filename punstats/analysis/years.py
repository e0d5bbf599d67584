"""A run over years in numbers: a kind's trend per year, pooled and per project, with 95 % intervals.

``per_project`` stacks each year's per-project frame (``analysis.subject.per_project``: the
kind's count and its unit, in all code and outside tests) with a ``year`` column: one row per
project and year.  ``trend`` reduces it to one row per year (``TREND``): how many projects the
year holds, how many had a release by then (``released``) and how many were scanned, the kind's
pooled count and measure (``analysis.subject.pooled``), how many scanned projects use the kind
at all, the per-project median, and the files the blob cache answered that year; then the 95 %
intervals of the pooled measures and of the medians (``INTERVALS``), that year's scanned
projects resampled by ``analysis.subject.kind_intervals``, as a single run's table does it for
the year's folder alone.  A command computes the ``Trend`` once and hands it to every output.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List

import pandas as pd

from punstats.analysis import subject, units
from punstats.analysis.uncertainty import RunIntervals
from punstats.model.intervals import DEFAULT_BOOTSTRAP, Bootstrap
from punstats.model.kinds import Kind
from punstats.sources.pypi import NO_RELEASE_YET

#: The columns of ``trend``, in order.
TREND = ("year", "projects", "released", "scanned", "with_matches", "using_pct", "count", "unit", "measure",
         "count_nontest", "unit_nontest", "measure_nontest", "median", "median_nontest", "measured",
         "files_cached", "files_extracted")

#: The measures of ``TREND`` with a 95 % interval: (column, weighting, scope) as
#: ``analysis.subject.kind_intervals`` names them; each has ``<column>_low`` and ``<column>_high``.
INTERVALS = (("measure", "pooled", "all"), ("measure_nontest", "pooled", "nontest"),
             ("median", "median", "all"), ("median_nontest", "median", "nontest"))

#: The columns of ``Trend.years``: those of ``TREND``, each measure of ``INTERVALS`` followed by its bounds.
COLUMNS = tuple(name for column in TREND for name in (
    (column, column + "_low", column + "_high") if column in {row[0] for row in INTERVALS} else (column,)))


@dataclass(frozen=True, eq=False)
class Trend:
    """A kind's trend over a run over years, computed once for every output of a command: one row
    per project and year (``projects``, ``per_project``), one per year (``years``: ``COLUMNS``)
    and the bootstrap that made the intervals."""

    kind: Kind
    method: Bootstrap
    projects: pd.DataFrame
    years: pd.DataFrame


def per_project(stored: Any, kind: Kind) -> pd.DataFrame:
    """One row per project and year of the run over years ``stored`` (``store.years.StoredYears``):
    ``year``, then ``analysis.subject.per_project``'s columns."""
    frames = []
    for year, run in stored.runs:
        frame = subject.per_project(run.records, kind)
        frame.insert(0, "year", year)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def _year_row(year: int, frame: pd.DataFrame, ecosystem: Dict[str, Any], kind: Kind) -> Dict[str, Any]:
    pooled = subject.pooled(frame, kind)
    released = int((frame["reason"] != NO_RELEASE_YET).sum())
    cache = ecosystem.get("cache") or {}
    # the pool's "projects" are those scanned; the year's are every project of the list
    row = {key: pooled[key] for key in TREND if key in pooled}
    row.update(year=year, projects=int(len(frame)), released=released, scanned=pooled["projects"],
               using_pct=units.share(pooled["with_matches"], pooled["projects"]),
               files_cached=int(cache.get("cached", 0)), files_extracted=int(cache.get("extracted", 0)))
    return row


def _bounds(intervals: RunIntervals) -> Dict[str, float]:
    """The ``<column>_low`` and ``<column>_high`` of each of ``INTERVALS`` (NaN: not defined)."""
    bounds = {}
    for column, weighting, scope in INTERVALS:
        interval = getattr(intervals, weighting)[scope]
        bounds.update({column + "_low": interval.low, column + "_high": interval.high})
    return bounds


def trend(stored: Any, kind: Kind, method: Bootstrap = DEFAULT_BOOTSTRAP) -> Trend:
    """The trend of ``kind`` in ``stored``: one row per year, the ``COLUMNS`` (counts as ``Int64``,
    missing where a project did not record one; measures and bounds as floats, NaN where they mean
    nothing), each year's projects resampled as ``method`` says."""
    frames = per_project(stored, kind)
    rows: List[Dict[str, Any]] = []
    for year, run in stored.runs:
        # the year's frame as its own folder's table has it, so its intervals are that table's
        alone = frames[frames["year"] == year].drop(columns="year").reset_index(drop=True)
        row = _year_row(year, alone, run.ecosystem, kind)
        row.update(_bounds(subject.kind_intervals(alone, kind, method)))
        rows.append(row)
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    for column in ("count", "unit", "count_nontest", "unit_nontest"):
        frame[column] = frame[column].astype("Int64")
    return Trend(kind, method, frames, frame)
