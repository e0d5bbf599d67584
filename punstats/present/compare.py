"""Comparisons across scans: identifier lengths of several projects in one table and one figure.

Every number comes from ``punstats.analysis.length_distribution`` of each
scan; this module lines the scans up, one column (or one pair of curves) per
scan, for all code and for code outside tests.
"""
from __future__ import annotations

from typing import Any, List, Sequence

import pandas as pd

from punstats import analysis
from punstats.analysis.units import share
from punstats.present.formats import Label, Percent, Table
from punstats.present.provenance import column_names, provenance, source_url, subject_of

#: The longest n compared (the last row counts identifiers of at least this many characters).
COMPARE_UP_TO = 20


def length_shares(results: Sequence[Any], up_to: int = COMPARE_UP_TO) -> pd.DataFrame:
    """Rows n = 1 .. ``up_to``; per scan, the share (in %) of its ``f(x=x)``
    keyword arguments whose identifier has at least n characters, in all
    code (column ``<name>``) and outside tests (``<name> outside tests``);
    NaN where the scan has none."""
    names = column_names([r.summary for r in results])
    columns = {}
    for name, result in zip(names, results):
        table = analysis.length_distribution(result.occurrences, open_from=up_to)
        nontest = int(table["at_least_nontest"].iloc[0]) if len(table) else 0
        columns[name] = table["at_least_pct"].astype(float)
        columns[name + " outside tests"] = pd.Series(
            [share(int(v), nontest) for v in table["at_least_nontest"]], index=table.index)
    frame = pd.DataFrame(columns).reindex(range(1, up_to + 1))
    frame.index.name = "n"
    return frame


def length_comparison_table(results: Sequence[Any], up_to: int = COMPARE_UP_TO) -> Table:
    """``table --by length`` over several scans: per n, each scan's share of
    ``f(x=x)`` with an identifier of at least n characters, in all code and
    outside tests."""
    summaries = [r.summary for r in results]
    names = column_names(summaries)
    frame = length_shares(results, up_to)
    threshold = {int(s["long_threshold"]) for s in summaries}
    rows = []
    for n, row in frame.iterrows():
        label = ">= %d" % n + (" (long)" if n in threshold else "")
        cells: List[Any] = [Label(label)]
        for name in names:
            cells += [Percent(float(row[name])), Percent(float(row[name + " outside tests"]))]
        rows.append(tuple(cells))
    header: List[Any] = [Label("Identifier length")]
    for name in names:
        header += [name, Label("outside tests")]
    return Table(header=tuple(header), rows=tuple(rows),
                 notes=tuple(provenance(s, name) for s, name in zip(summaries, names)),
                 note_links=tuple(source_url(s) for s in summaries),
                 header_notes=(None, *[i // 2 if i % 2 == 0 else None for i in range(2 * len(names))]),
                 title=(Label("Share of `f(x=x)` keyword arguments with an identifier of at least n characters"),))


def length_overlay(results: Sequence[Any], up_to: int = COMPARE_UP_TO) -> Any:
    """One figure, one colour per scan: the share with identifier length >=
    n, in all code (solid) and outside tests (dashed)."""
    import matplotlib
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    from punstats.model.escape import figure_text
    from punstats.present import figure as plots

    summaries = [r.summary for r in results]
    names = column_names(summaries)
    data = length_shares(results, up_to)
    figure, axes = plots.new_figure(5.6)
    with matplotlib.rc_context(plots.STYLE):
        for index, name in enumerate(names):
            colour = plots.SCAN_COLOURS[index % len(plots.SCAN_COLOURS)]
            axes.plot(list(data.index), data[name], color=colour, marker="o", markersize=3, label=figure_text(name))
            axes.plot(list(data.index), data[name + " outside tests"], color=colour, linestyle="--",
                      label=figure_text(name + ", outside tests"))
        axes.set_title("f(x=x) keyword arguments with identifiers at least n characters long")
        axes.set_xlabel("n (identifier length, characters)")
        axes.set_ylabel("% of f(x=x) keyword arguments")
        axes.set_ylim(0, 102)
        axes.set_xlim(0.5, up_to + 0.5)
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: "%d%%" % value))
        axes.grid(axis="y", alpha=0.3)
        axes.legend(loc="upper right", fontsize=10)
    plots.finish_figure(figure, summaries)
    return plots.Plot("overlay", subject_of(names), figure, data)
