"""A run over years in numbers: a kind's trend per year, pooled and per project.

``per_project`` stacks each year's per-project frame (``analysis.subject.per_project``: the
kind's count and its unit, in all code and outside tests) with a ``year`` column: one row per
project and year.  ``trend`` reduces it to one row per year (``TREND``): how many projects the
year holds, how many had a release by then (``released``) and how many were scanned, the kind's
pooled count and measure (``analysis.subject.pooled``), how many scanned projects use the kind
at all, the per-project median, and the files the blob cache answered that year.
"""
from __future__ import annotations

from typing import Any, Dict, List

import pandas as pd

from punstats.analysis import subject, units
from punstats.model.kinds import Kind
from punstats.sources.pypi import NO_RELEASE_YET

#: The columns of ``trend``, in order.
TREND = ("year", "projects", "released", "scanned", "with_matches", "using_pct", "count", "unit", "measure",
         "count_nontest", "unit_nontest", "measure_nontest", "median", "median_nontest", "measured",
         "files_cached", "files_extracted")


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


def trend(stored: Any, kind: Kind) -> pd.DataFrame:
    """One row per year of ``stored``: the columns of ``TREND`` (counts as ``Int64``, missing where a
    project did not record one; measures as floats, NaN where they mean nothing)."""
    frames = per_project(stored, kind)
    rows: List[Dict[str, Any]] = [_year_row(year, frames[frames["year"] == year], run.ecosystem, kind)
                                  for year, run in stored.runs]
    frame = pd.DataFrame(rows, columns=list(TREND))
    for column in ("count", "unit", "count_nontest", "unit_nontest"):
        frame[column] = frame[column].astype("Int64")
    return frame
