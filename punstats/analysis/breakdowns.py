"""Statistics computed from the two tables of a scan.

Everything here reads the ``occurrences`` and ``files`` DataFrames only, so
a stored scan loaded from parquet gives the same numbers as a fresh one.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence, Union

import pandas as pd

from punstats.analysis import units
from punstats.analysis.summary import TOP_N, call_occurrences, top
from punstats.model.kinds import Registry
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
    the share (in %) of all headline occurrences that are at least that long
    (NaN when there are none).

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
    table["at_least_pct"] = [units.share(int(n), len(calls)) for n in table["at_least"]]
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
    ``punnable_nontest`` and ``punnable_test``) and ``punnable_pct`` (NaN
    where there are no keyword arguments).  Most
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
    table["punnable_pct"] = [units.share(int(p), int(k)) for p, k in zip(table["punnable"], table["keywords"])]
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
    ones, and their share (NaN for none of none)."""
    return pd.DataFrame({
        "corpus": [s["corpus"] for s in summaries],
        "keywords": [int(s["keywords"]) for s in summaries],
        "punnable": [int(s["punnable"]) for s in summaries],
        "punnable_pct": [units.stored_share(s, "punnable_pct") for s in summaries],
    })


def kinds_comparison(summaries: Sequence[Dict[str, Any]], registry: Optional[Registry] = None) -> pd.DataFrame:
    """One row per row of ``registry`` (default: the union of the scans' own,
    ``units.union``): its ``label``, the unit it is a share of
    (``denominator``), the row it is a part of (``part_of``), and per scan
    ``i`` its count (``count_i``), its share of the unit in % (``pct_i``: a unit of
    syntax, ``units.is_share``) or its rate per million of the unit (``per_unit_i``:
    lines, lines of code, files), the same outside tests (``nontest_i``,
    ``nontest_pct_i``, ``nontest_per_unit_i``) and its rate per million lines of code
    (``per_million_i``; for rows that have a unit, not for a maximum or a number of
    parameters).  A count a scan did not record is None, a share or rate that means
    nothing, cannot be known or is not the row's measure NaN."""
    rows = []
    for kind in registry if registry is not None else units.union(summaries):
        row: Dict[str, Any] = {"kind": kind.name, "label": kind.label, "denominator": kind.per,
                               "part_of": kind.part_of}
        for index, s in enumerate(summaries):
            count, outside = units.count(s, kind), units.count(s, kind, nontest=True)
            row["count_%d" % index], row["nontest_%d" % index] = count, outside
            for prefix, part, nontest in (("", count, False), ("nontest_", outside, True)):
                whole = units.denominator(s, kind.per, nontest)
                share = units.is_share(kind.per)
                row[prefix + "pct_%d" % index] = units.share(part, whole) if share else float("nan")
                row[prefix + "per_unit_%d" % index] = units.rate(part, whole) if not share else float("nan")
            row["per_million_%d" % index] = units.per_million(s, count) if kind.per else float("nan")
        rows.append(row)
    return pd.DataFrame(rows).set_index("kind")
