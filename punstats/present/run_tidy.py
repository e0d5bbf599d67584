"""Tidy tables of an ecosystem run, for ``table RUN --format csv``.

As a scan's (``present.tidy``): one header line of unique snake_case names,
one row per observation, numbers as numbers (an empty cell: not scanned, or a
share of nothing), and what the run measured in columns of its own
(``RUN_COLUMNS``: the run, its list, the parser, every rule that changes a
count, each user pattern with its sha256), so that a plain
``pandas.read_csv`` reads it and runs stack into one long table.  The
projects table has one row per project and kind: every kind of the run's
registry measured against a unit (f(x=x), the other built-in kinds, each user
pattern), a ``kind`` column naming it and generic names for its unit and
measure (``stacked_frame``), or with ``--kind`` one row per project of that
kind, its columns named after its unit (``projects_frame``).  Either way each
row also carries the kind's run pooled and per-project median measures with
their 95 % intervals (``<measure>_low``, ``<measure>_high``) and how the
bootstrap made them.  ``--kinds`` has one row per pattern pooled over the
projects; ``--by length|identifier|callee`` the run's occurrences pooled.
Every number comes from ``analysis``.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import pandas as pd

from punstats.model.intervals import DEFAULT_BOOTSTRAP, Bootstrap
from punstats.model.kinds import KIND_CALL, Kind
from punstats.present.provenance import rule_columns
from punstats.present.tidy import RULE_COLUMNS, bootstrap_columns, interval_columns
from punstats.store.ecosystem import population, run_name

#: The columns that say what a run measured, after each row's own.
RUN_COLUMNS = ("run", "population", "list", "list_date", "list_sha256", "python", "punstats_version") + RULE_COLUMNS


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


def run_measures(stored: Any, kind: Kind, measured: str, method: Bootstrap = DEFAULT_BOOTSTRAP,
                 frame: Optional[pd.DataFrame] = None) -> Dict[str, Any]:
    """The kind's measure (``measured``: its column's name) of the run pooled and the median of its
    projects' own, in all code and outside tests, each with its 95 % interval (its scanned projects
    resampled as ``method`` says, ``analysis.subject.kind_intervals``), as ``project_table`` shows
    them: ``pooled_<measured>``, ``pooled_<measured>_low``, ..., ``median_<measured>_nontest_high``;
    then ``bootstrap_columns``.  ``frame``: the run's ``analysis.subject.per_project`` of the kind,
    when the caller has it."""
    from punstats.analysis import subject
    frame = frame if frame is not None else subject.per_project(stored.records, kind)
    intervals = subject.kind_intervals(frame, kind, method)
    columns: Dict[str, Any] = {}
    for words, by in (("pooled", intervals.pooled), ("median", intervals.median)):
        for scope, interval in by.items():
            name = "%s_%s%s" % (words, measured, "_nontest" if scope == "nontest" else "")
            columns[name] = round(interval.estimate, 4)
            columns.update(interval_columns(name, interval))
    return dict(columns, **bootstrap_columns(method))


def _kind_rows(stored: Any, kind: Kind, top: Optional[int], method: Bootstrap) -> pd.DataFrame:
    """``present.subject.project_frame`` of the kind, with the kind's ``run_measures``; f(x=x) also
    per million lines of code (``lines_rates``), as its projects table shows it.  The run's
    projects are counted once for both."""
    from punstats.analysis import subject
    from punstats.present.subject import column_words, project_frame
    counted = subject.per_project(stored.records, kind)
    frame = project_frame(stored, kind, top, counted).assign(
        **run_measures(stored, kind, column_words(kind)[1], method, counted))
    return frame.assign(**lines_rates(stored, kind, top, method)) if kind.name == KIND_CALL else frame


def lines_rates(stored: Any, kind: Kind, top: Optional[int] = None,
                method: Bootstrap = DEFAULT_BOOTSTRAP) -> Dict[str, Any]:
    """The kind per million lines of code, as columns of ``projects_frame`` (the first ``top``
    projects): each project's ``code_lines`` and ``per_million_code_lines``, in all code and
    outside tests, and the run's pooled and median rates with their intervals (``run_measures``)."""
    from dataclasses import replace

    from punstats.analysis import subject
    per_lines = replace(kind, per="code_lines")
    counted = subject.per_project(stored.records, per_lines)
    frame = counted if top is None else counted.head(top)
    columns: Dict[str, Any] = {}
    for suffix in ("", "_nontest"):
        columns["code_lines" + suffix] = frame["unit" + suffix].to_numpy()
        columns["per_million_code_lines" + suffix] = frame["measure" + suffix].to_numpy()
    measures = run_measures(stored, per_lines, "per_million_code_lines", method, counted)
    return dict(columns, **{key: value for key, value in measures.items() if not key.startswith("bootstrap_")})


def projects_frame(stored: Any, kind: Kind, top: Optional[int] = None,
                   method: Bootstrap = DEFAULT_BOOTSTRAP) -> pd.DataFrame:
    """One row per project of the run (the first ``top``) about ``kind``: its rank, release, status,
    count and measure in all code and outside tests (``present.subject.project_frame``), the run's
    pooled and median measures with their intervals (``run_measures``), then the run."""
    return with_run_columns(_kind_rows(stored, kind, top, method), stored.ecosystem)


def generic_names(kind: Kind) -> Dict[str, str]:
    """How ``stacked_frame`` renames a kind's own columns, so that every kind has the same: its
    unit's total ``unit_count`` (``keywords``, ``try_nodes``), its measure ``measure``
    (``pct_of_keywords``, ``per_million_code_lines``), and so on outside tests and for the run."""
    from punstats.present.subject import column_words
    unit, measured = column_words(kind)
    names = {unit: "unit_count", unit + "_nontest": "unit_count_nontest"}
    for words in ("", "pooled_", "median_"):
        for suffix in ("", "_nontest"):
            for end in ("", "_low", "_high"):
                names[words + measured + suffix + end] = words + "measure" + suffix + end
    return names


def stacked_frame(stored: Any, top: Optional[int] = None, method: Bootstrap = DEFAULT_BOOTSTRAP) -> pd.DataFrame:
    """One row per project (the first ``top``) and kind of the run's registry that is measured against
    a unit, in the registry's order: ``projects_frame``'s columns with generic names (``generic_names``),
    ``unit`` and ``measure_name`` saying what they were (``keywords``, ``pct_of_keywords``)."""
    from punstats.present.subject import column_words
    parts = []
    for kind in stored.registry:
        if not kind.per:
            continue
        unit, measured = column_words(kind)
        frame = _kind_rows(stored, kind, top, method).rename(columns=generic_names(kind))
        at = list(frame.columns).index("kind") + 1
        frame.insert(at, "unit", unit)
        frame.insert(at + 1, "measure_name", measured)
        parts.append(frame)
    frame = pd.concat(parts, ignore_index=True)
    if "labelled" in frame:  # only kinds with a labels sheet have it: empty for the others
        frame["labelled"] = frame["labelled"].astype("Int64")
    return with_run_columns(frame, stored.ecosystem)


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


def frame_of(stored: Any, by: str, n: int, kind: Optional[Kind] = None, top: Optional[int] = None,
             method: Bootstrap = DEFAULT_BOOTSTRAP) -> pd.DataFrame:
    """The tidy frame of ``table RUN --format csv``: ``by`` ``summary`` (the projects: every kind
    stacked, or only ``kind``), ``kinds`` or one of ``present.ecosystem.POOLED_BY``; ``method``: the
    bootstrap of the projects' intervals."""
    if by == "kinds":
        return kinds_frame(stored)
    if by == "summary":
        return stacked_frame(stored, top, method) if kind is None else projects_frame(stored, kind, top, method)
    return pooled_frame(stored, by, n)


__all__: List[str] = ["RUN_COLUMNS", "frame_of", "generic_names", "kinds_frame", "lines_rates", "pooled_frame",
                      "projects_frame", "run_columns", "run_measures", "stacked_frame", "with_run_columns"]
