"""Tidy tables of an ecosystem run, for ``table RUN --format csv``.

As a scan's (``present.tidy``): one header line of unique snake_case names,
one row per observation, numbers as numbers (an empty cell: not scanned, or a
share of nothing), and what the run measured in columns of its own
(``RUN_COLUMNS``: the run, its list, the parser, every rule that changes a
count, each user pattern with its sha256), so that a plain
``pandas.read_csv`` reads it and runs stack into one long table.  The
projects table has one row per project of the kind asked; ``--kinds`` one row
per pattern pooled over the projects; ``--by length|identifier|callee`` the
run's occurrences pooled.  Every number comes from ``analysis``.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import pandas as pd

from punstats.model.kinds import Kind
from punstats.present.provenance import rule_columns
from punstats.store.ecosystem import population, run_name

#: The columns that say what a run measured, after each row's own.
RUN_COLUMNS = ("run", "population", "list", "list_date", "list_sha256", "python", "punstats_version",
               "test_rule", "long_threshold", "extensions", "gitignore", "exclude", "exclude_dirs",
               "follow_links", "max_bytes", "patterns")


def run_columns(ecosystem: Dict[str, Any]) -> Dict[str, Any]:
    """The ``RUN_COLUMNS`` of a run (its ``ecosystem`` summary) and their values."""
    from punstats.present.ecosystem import list_text
    listed, rules = ecosystem["list"], ecosystem.get("rules") or {}
    return {"run": run_name(ecosystem), "population": population(ecosystem), "list": list_text(str(listed["list"])),
            "list_date": str(listed.get("last_update", ""))[:10], "list_sha256": listed.get("sha256", ""),
            "python": "%s %s" % (ecosystem.get("python_implementation", "Python"), ecosystem.get("python", "?")),
            "punstats_version": ecosystem.get("punstats_version", ""), "test_rule": rules.get("test_rule", ""),
            "long_threshold": rules.get("long_threshold", ""),
            **rule_columns(rules, rules.get("patterns") or ())}


def with_run_columns(frame: pd.DataFrame, ecosystem: Dict[str, Any]) -> pd.DataFrame:
    """``frame`` with the run's ``RUN_COLUMNS`` after its own (a name it has already keeps its own)."""
    added = {key: value for key, value in run_columns(ecosystem).items() if key not in frame.columns}
    return frame.assign(**added)


def projects_frame(stored: Any, kind: Kind, top: Optional[int] = None) -> pd.DataFrame:
    """One row per project of the run (the first ``top``) about ``kind``: its rank, release, status,
    count and measure in all code and outside tests (``present.subject.project_frame``), then the run."""
    from punstats.present.subject import project_frame
    return with_run_columns(project_frame(stored, kind, top), stored.ecosystem)


def kinds_frame(stored: Any) -> pd.DataFrame:
    """One row per pattern of the run's registry pooled over its scanned projects, with the columns
    of a scan's ``--kinds`` CSV (``present.tidy.kinds_frame``), then the run."""
    from types import SimpleNamespace

    from punstats.analysis.ecosystem import pooled_summary
    from punstats.present import tidy
    ecosystem, rules = stored.ecosystem, stored.ecosystem.get("rules") or {}
    summary = dict(pooled_summary(r["summary"] for r in stored.records if r["status"] == "scanned"),
                   corpus=run_name(ecosystem), python=ecosystem.get("python", "?"),
                   test_rule=rules.get("test_rule", "?"), long_threshold=rules.get("long_threshold", 0))
    frame = tidy.kinds_frame([SimpleNamespace(summary=summary)])
    own = [c for c in frame.columns if c not in tidy.PROVENANCE_COLUMNS and c != "scan"]
    return with_run_columns(frame[own], ecosystem)


def pooled_frame(stored: Any, by: str, n: int) -> pd.DataFrame:
    """``--by length|identifier|callee`` of the run: every ``f(x=x)`` of its scanned projects pooled
    as one corpus (``store.ecosystem.pooled_calls``), as a scan's tidy table of it; the most common
    identifiers and callees (``n`` rows) also say in how many projects each is used."""
    from punstats import analysis
    from punstats.store.ecosystem import pooled_calls
    calls = pooled_calls(stored)
    if by == "length":
        frame = analysis.length_distribution(calls).reset_index()
    else:
        column = "name" if by == "identifier" else "callee"
        frame = analysis.top_split(calls, column, n).rename_axis(by)
        projects = calls.groupby(column, observed=True)["project"].nunique()
        frame["projects"] = projects.reindex(frame.index, fill_value=0).astype("int64").to_numpy()
        frame = frame.reset_index()
    return with_run_columns(frame, stored.ecosystem)


def frame_of(stored: Any, by: str, n: int, kind: Optional[Kind] = None, top: Optional[int] = None) -> pd.DataFrame:
    """The tidy frame of ``table RUN --format csv``: ``by`` ``summary`` (the projects, about ``kind``),
    ``kinds`` or one of ``present.ecosystem.POOLED_BY``."""
    if by == "kinds":
        return kinds_frame(stored)
    if by == "summary":
        return projects_frame(stored, kind if kind is not None else stored.registry["call"], top)
    return pooled_frame(stored, by, n)


__all__: List[str] = ["RUN_COLUMNS", "frame_of", "kinds_frame", "pooled_frame", "projects_frame", "run_columns",
                      "with_run_columns"]
