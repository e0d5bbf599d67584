"""Tables for other tools: one tidy DataFrame per table kind, written as CSV.

``punstats table --format csv`` writes these: one header line, one row per
observation (a scan, or a scan and a length, identifier, callee, directory
or pattern), a ``scan`` column first, typed columns (counts are integers,
shares floats in %, an empty cell for a share of nothing: 0 of 0), and the
provenance of each scan in columns of its own, so a plain ``pandas.read_csv`` reads it and several scans stack into one
long table.  A text cell that a spreadsheet would read as a formula (one that
starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return) is written
with a leading ``'`` (OWASP, "CSV injection"); numeric columns are never
touched.  Every number comes from a scan's summary or ``punstats.analysis``.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import pandas as pd

from punstats import analysis
from punstats.analysis import units
from punstats.model.errors import OptionError
from punstats.model.intervals import FILES_BOOTSTRAP, SCAN_SHARES, Bootstrap, Interval
from punstats.model.kinds import Kind, Registry
from punstats.present.provenance import column_names, rule_columns, scan_patterns, source_text

#: The columns of every rule that changes a count (``provenance.rule_columns``).
RULE_COLUMNS = ("test_rule", "long_threshold", "extensions", "gitignore", "exclude", "exclude_dirs",
                "follow_links", "max_bytes", "patterns")


#: The columns that say what each scan measured: where the code came from, the parser, the rules.
PROVENANCE_COLUMNS = ("source", "revision", "commit_date", "python", "punstats_version") + RULE_COLUMNS


def provenance_columns(summary: Dict[str, Any]) -> Dict[str, Any]:
    """The ``PROVENANCE_COLUMNS`` of a scan (or of a run's project, its summary) and their values."""
    return {"source": source_text(summary),
            "revision": "" if summary.get("source") == "stdlib" else summary.get("revision") or "",
            "commit_date": summary.get("commit_date") or "",
            "python": "%s %s" % (summary.get("python_implementation", "Python"), summary["python"]),
            "punstats_version": summary.get("punstats_version", ""), "test_rule": summary["test_rule"],
            "long_threshold": int(summary["long_threshold"]),
            **rule_columns(summary.get("rules"), scan_patterns(summary))}


def bootstrap_columns(method: Bootstrap) -> Dict[str, Any]:
    """How a table's 95 % intervals were made, as columns: ``bootstrap_resamples``,
    ``bootstrap_seed`` and ``bootstrap_unit`` (what was resampled: files, projects)."""
    return {"bootstrap_resamples": method.resamples, "bootstrap_seed": method.seed, "bootstrap_unit": method.unit}


def interval_columns(name: str, interval: Interval) -> Dict[str, float]:
    """A 95 % interval as the columns ``<name>_low`` and ``<name>_high`` (empty: not defined), to
    4 decimals as a stored share."""
    return {name + "_low": round(interval.low, 4), name + "_high": round(interval.high, 4)}


def _stack(results: Sequence[Any], frame_of) -> pd.DataFrame:
    """``frame_of(result)`` for each scan, with its name first and its provenance last."""
    from punstats.present.tables import with_outside_tests
    names = column_names([r.summary for r in results])
    parts = []
    for name, result in zip(names, results):
        frame = frame_of(result).reset_index()
        frame.insert(0, "scan", name)
        for key, value in provenance_columns(with_outside_tests(result)).items():
            frame[key] = value
        parts.append(frame)
    return pd.concat(parts, ignore_index=True)


def summary_frame(results: Sequence[Any], rows: Optional[Sequence[str]] = None,
                  method: Bootstrap = FILES_BOOTSTRAP) -> pd.DataFrame:
    """One row per scan, one column per statistic of the summary table (``rows`` chooses them);
    after each share the table gives an interval of, its 95 % interval (``<share>_low``,
    ``<share>_high``: its files resampled as ``method`` says, named in ``bootstrap_columns``)."""
    from punstats.present.tables import SUMMARY_ROWS, check_rows, with_outside_tests
    check_rows(rows)
    keys = list(rows) if rows else [key for _, key in SUMMARY_ROWS] + ["keywords_nontest", "punnable_nontest"]

    def one(result: Any) -> pd.DataFrame:
        s = with_outside_tests(result)
        intervals = _scan_intervals(result, [key for key in keys if key in dict(SCAN_SHARES)], method)
        values: Dict[str, Any] = {}
        for key in keys:
            values[key] = _summary_value(s, key)
            values.update(interval_columns(key, intervals[key]) if key in intervals else {})
        values.update(bootstrap_columns(method) if intervals else {})
        return pd.DataFrame([values])
    frame = _stack(results, one).drop(columns="index")
    if "lines_saved" in frame:
        frame["lines_saved"] = frame["lines_saved"].astype("Int64")
    return frame


def _summary_value(summary: Dict[str, Any], key: str) -> Any:
    """A statistic of the summary table: a count, a share in % (None: of nothing), lines saved."""
    if key == "lines_saved":
        return summary["lines_saved"]["lines_saved"] if "lines_saved" in summary else None
    return units.stored_share(summary, key) if key.endswith("_pct") else int(summary[key])


def _scan_intervals(result: Any, shares: Sequence[str], method: Bootstrap) -> Dict[str, Interval]:
    """The 95 % intervals of a scan's ``shares`` (of ``SCAN_SHARES``), its files resampled; none asked: {}."""
    if not shares:
        return {}
    from punstats.analysis.uncertainty import scan_intervals
    intervals = scan_intervals(result.files, method)
    return {key: intervals[key] for key in shares}


def kinds_frame(results: Sequence[Any], registry: Optional[Registry] = None) -> pd.DataFrame:
    """One row per scan and registry row (default: the scans' own): its count and
    its share of the named unit (``denominator``) in % (``pct``: a unit of syntax) or
    per million of it (``per_million_unit``: lines, lines of code, files), the same
    outside tests (``count_nontest``, ``pct_nontest``, ``per_million_unit_nontest``;
    empty where not recorded or not the row's measure) and per million lines of code."""
    summaries = [r.summary for r in results]
    table = analysis.kinds_comparison(summaries, registry)
    names = column_names(summaries)
    parts = []
    for index, (name, result) in enumerate(zip(names, results)):
        part = pd.DataFrame({"scan": name, "pattern": table.index, "label": table["label"].str.replace("`", ""),
                             "count": table["count_%d" % index].astype("Int64"),
                             "pct": table["pct_%d" % index].astype(float), "denominator": table["denominator"],
                             "part_of": table["part_of"],
                             "count_nontest": table["nontest_%d" % index].astype("Int64"),
                             "pct_nontest": table["nontest_pct_%d" % index].astype(float),
                             "per_million_unit": table["per_unit_%d" % index].astype(float),
                             "per_million_unit_nontest": table["nontest_per_unit_%d" % index].astype(float),
                             "per_million_code_lines": table["per_million_%d" % index].astype(float)})
        for key, value in provenance_columns(result.summary).items():
            part[key] = value
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def kind_frame(results: Sequence[Any], kind: Kind) -> pd.DataFrame:
    """One row per scan about ``kind`` (``table --kind NAME``): its count and its unit's total, the
    measure (``per_million_code_lines``, ``pct_of_try_nodes``: ``present.subject.column_words``), the
    same outside tests, the files parsed and the lines of code."""
    from punstats.present.subject import column_words, scan_counts
    unit, measured = column_words(kind)

    def one(result: Any) -> pd.DataFrame:
        c = scan_counts(result.summary, kind)
        row = {"kind": kind.name, "count": c["count"], unit: c["unit"], measured: c["measure"],
               "count_nontest": c["count_nontest"], unit + "_nontest": c["unit_nontest"],
               measured + "_nontest": c["measure_nontest"], "files_parsed": units.denominator(result.summary, "files"),
               "code_lines": units.denominator(result.summary, "code_lines")}
        return pd.DataFrame([row])
    frame = _stack(results, one).drop(columns="index")
    for column in ("count", unit, "count_nontest", unit + "_nontest", "files_parsed", "code_lines"):
        frame[column] = frame[column].astype("Int64")
    return frame


def labels_frame(results: Sequence[Any], directories: Sequence[Optional[str]],
                 kind: Optional[str] = None) -> pd.DataFrame:
    """One row per scan, labelled kind and label: the occurrences outside tests, in tests, in all."""
    from punstats.present.labels import labelled_counts
    names = column_names([r.summary for r in results])
    parts = []
    for index, labelled, counts in labelled_counts(results, directories, kind):  # LabelError when none
        part = pd.DataFrame({"scan": names[index], "kind": labelled, "label": [c[0] for c in counts],
                             "nontest": [c[1] for c in counts], "test": [c[2] for c in counts],
                             "total": [c[1] + c[2] for c in counts]})
        for key, value in provenance_columns(results[index].summary).items():
            part[key] = value
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def frame_of(kind: str, results: Sequence[Any], n: int, rows: Optional[Sequence[str]] = None,
             directories: Optional[Sequence[Optional[str]]] = None, label_kind: Optional[str] = None,
             method: Bootstrap = FILES_BOOTSTRAP) -> pd.DataFrame:
    """The tidy frame of a ``table --by`` kind over ``results`` (``method``: the summary's intervals)."""
    if kind == "label":
        return labels_frame(results, directories or [getattr(r, "directory", None) for r in results], label_kind)
    if kind == "summary":
        return summary_frame(results, rows, method)
    if kind == "kinds":
        return kinds_frame(results)
    if kind == "length":
        return _stack(results, lambda r: analysis.length_distribution(r.occurrences))
    if kind in ("identifier", "callee"):
        column = "name" if kind == "identifier" else "callee"
        return _stack(results, lambda r: analysis.top_split(r.occurrences, column, n).rename_axis(kind))
    if kind == "directory":
        return _stack(results, lambda r: analysis.by_directory(r.occurrences, r.files, n=n))
    raise OptionError("unknown table kind %r" % kind)


def to_csv(frame: pd.DataFrame) -> str:
    """``frame`` as CSV; string cells that a spreadsheet would take for a formula start with ``'``."""
    from punstats.store.frames import csv_ready
    return csv_ready(frame).to_csv(index=False, lineterminator="\n")


__all__: List[str] = ["PROVENANCE_COLUMNS", "RULE_COLUMNS", "bootstrap_columns", "frame_of", "interval_columns",
                      "kind_frame", "kinds_frame", "labels_frame", "provenance_columns", "summary_frame", "to_csv"]
