"""Statistics computed from the two tables of a scan.

Everything here reads the ``occurrences`` and ``files`` DataFrames only, so
a stored scan loaded from parquet gives the same numbers as a fresh one.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Union

import pandas as pd

from punstats.analysis.summary import TOP_N, call_occurrences, percent, top
from punstats.model.statuses import OK


def split_counts(calls: pd.DataFrame, key: Union[str, pd.Series]) -> pd.DataFrame:
    """Occurrences per value of ``key`` (a column of ``calls`` or a Series
    aligned with it), as columns ``nontest``, ``test`` and ``total``."""
    keys = calls[key] if isinstance(key, str) else key
    test = calls["in_test"].astype(bool)
    table = pd.DataFrame({"nontest": (~test).groupby(keys, observed=True).sum(),
                          "test": test.groupby(keys, observed=True).sum()})
    table["total"] = table["nontest"] + table["test"]
    return table.astype("int64")


def _add_cumulative(table: pd.DataFrame) -> pd.DataFrame:
    """``table`` (one row per length, ascending) with the counts at least that long."""
    table["at_least"] = table["total"][::-1].cumsum()[::-1]
    table["at_least_nontest"] = table["nontest"][::-1].cumsum()[::-1]
    return table.astype("int64")


def length_distribution(occurrences: pd.DataFrame, open_from: Optional[int] = None) -> pd.DataFrame:
    """Headline occurrences per identifier length, for every length from 1
    on (zeros included), split test / non-test, with the cumulative counts at
    least that long (``at_least``, ``at_least_nontest``) and ``at_least_pct``:
    the share (in %) of all headline occurrences that are at least that long.

    With ``open_from`` the last row, ``open_from``, counts every identifier
    of at least that many characters; without it the rows end at the longest
    identifier.
    """
    calls = call_occurrences(occurrences)
    lengths = calls["name_len"]
    last = int(lengths.max()) if open_from is None and len(calls) else (open_from or 0)
    if open_from is not None:
        lengths = lengths.clip(upper=open_from)
    table = split_counts(calls, lengths).reindex(range(1, last + 1), fill_value=0)
    table = _add_cumulative(table)
    table["at_least_pct"] = [percent(int(n), len(calls)) for n in table["at_least"]]
    table.index.name = "name_len"
    return table


def top_level(path: str) -> str:
    """Where a relative path sits at the top of the corpus: its top-level
    directory with a trailing slash (``email/``), or the file itself when it
    is at the root (``typing.py``)."""
    head, slash, _ = path.partition("/")
    return head + slash


def by_directory(occurrences: pd.DataFrame, files: pd.DataFrame, n: Optional[int] = None) -> pd.DataFrame:
    """Per top-level directory (or root-level file): parsed ``files``, their
    ``keywords``, the headline occurrences in them (``punnable``, split into
    ``punnable_nontest`` and ``punnable_test``) and ``punnable_pct``.  Most
    occurrences first, ties alphabetically.  With ``n``, the places after the
    first ``n`` are added up in one last row, ``(k others)``."""
    parsed = files[files["status"] == OK]
    places = parsed["path"].map(top_level)
    table = pd.DataFrame({"files": parsed.groupby(places).size(),
                          "keywords": parsed["keywords"].groupby(places).sum()})
    calls = call_occurrences(occurrences)
    split = split_counts(calls, calls["path"].map(top_level)).rename(
        columns={"nontest": "punnable_nontest", "test": "punnable_test", "total": "punnable"})
    table = table.join(split, how="outer").fillna(0).astype("int64")
    table = table[["files", "keywords", "punnable", "punnable_nontest", "punnable_test"]]
    order = sorted(table.index, key=lambda place: (-int(table.at[place, "punnable"]), place))
    table = table.loc[order]
    if n is not None and len(table) > n:
        rest = table.iloc[n:]
        others = pd.DataFrame([rest.sum()], index=["(%d other%s)" % (len(rest), "s" if len(rest) > 1 else "")])
        table = pd.concat([table.iloc[:n], others]).astype("int64")
    table["punnable_pct"] = [percent(int(p), int(k)) for p, k in zip(table["punnable"], table["keywords"])]
    table.index.name = "directory"
    return table


def top_split(occurrences: pd.DataFrame, column: str, n: int = TOP_N) -> pd.DataFrame:
    """The ``n`` most common values of ``column`` among headline occurrences
    (ranked as ``top`` ranks them), split test / non-test."""
    calls = call_occurrences(occurrences)
    ranked = [value for value, _ in top(calls[column], n)]
    table = split_counts(calls, column).reindex(ranked, fill_value=0)
    table.index.name = column
    return table


def compare(summaries: Sequence[Dict[str, Any]]) -> pd.DataFrame:
    """One row per scan (in the order given): keyword arguments, punnable
    ones, and their share."""
    return pd.DataFrame({
        "corpus": [s["corpus"] for s in summaries],
        "keywords": [int(s["keywords"]) for s in summaries],
        "punnable": [int(s["punnable"]) for s in summaries],
        "punnable_pct": [float(s["punnable_pct"]) for s in summaries],
    })


#: The patterns compared across scans: (key, label, denominator key, section).
#: Keys name entries of a summary's ``kinds`` (or ``parameters``) section.
KIND_ROWS = (
    ("call", "`f(x=x)` (the headline)", "keywords", "kinds"),
    ("dict_call_punnable", "of which `dict(x=x)`", "keywords", "kinds"),
    ("attribute", "`f(x=obj.x)`", "keywords", "kinds"),
    ("attribute_self", "of which `f(x=self.x)`", "keywords", "kinds"),
    ("attribute_cls", "of which `f(x=cls.x)`", "keywords", "kinds"),
    ("attribute_name", "of which `f(x=name.x)`", "keywords", "kinds"),
    ("attribute_expr", "of which `f(x=<expr>.x)`", "keywords", "kinds"),
    ("near_miss", "near miss `f(x=_x)`", "keywords", "kinds"),
    ("dict_literal", "`{\"x\": x}` dict entries", "dict_entries", "kinds"),
    ("class", "`class A(x=x)` class keywords", "class_keywords", "kinds"),
    ("calls_no_arguments", "calls without arguments", "calls", "kinds"),
    ("calls_positional_only", "calls with positional arguments only", "calls", "kinds"),
    ("calls_keyword_only", "calls with keyword arguments only", "calls", "kinds"),
    ("calls_mixed", "calls with both", "calls", "kinds"),
    ("calls_all_punnable", "calls whose every keyword argument is `x=x`", "calls", "kinds"),
    ("max_call_punnable", "most `x=x` arguments in one call", "", "kinds"),
    ("functions", "function definitions and lambdas", "", "parameters"),
    ("positional_only", "positional-only parameters", "", "parameters"),
    ("positional_or_keyword", "positional-or-keyword parameters", "", "parameters"),
    ("keyword_only", "keyword-only parameters", "", "parameters"),
    ("var_positional", "functions with `*args`", "functions", "parameters"),
    ("var_keyword", "functions with `**kwargs`", "functions", "parameters"),
    ("defaults", "parameters with a default", "", "parameters"),
)


def kinds_comparison(summaries: Sequence[Dict[str, Any]]) -> pd.DataFrame:
    """One row per pattern of ``KIND_ROWS``, per scan its count and its share
    of the row's denominator (keyword arguments, string-keyed dict entries,
    class keywords, calls or functions; NaN where a share means nothing)."""
    rows = []
    for key, label, denominator, _section in KIND_ROWS:
        row: Dict[str, Any] = {"kind": key, "label": label, "denominator": denominator}
        for index, s in enumerate(summaries):
            values = dict(s.get("kinds", {}), **s.get("parameters", {}))
            totals = dict(values, keywords=s["keywords"], calls=s["calls"],
                          class_keywords=s["class_keywords"])
            count = values.get(key)
            row["count_%d" % index] = count
            whole = totals.get(denominator) if denominator else None
            row["pct_%d" % index] = percent(count, whole) if count is not None and whole else float("nan")
        rows.append(row)
    return pd.DataFrame(rows).set_index("kind")

