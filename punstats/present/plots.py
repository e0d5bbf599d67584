"""Figures of stored scans, drawn with matplotlib and written as PNG and SVG.

This module owns the pictures only: every number drawn comes from
``punstats.analysis`` (or a scan's summary), and every plot function returns
a ``Plot`` holding both the figure and the DataFrame it drew, so a test (or a
reader) can check the bars against the stored counts.

The figure machinery (style, caption, saving) is ``punstats.present.figure``;
the comparisons of several scans are ``punstats.present.compare``.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Dict, List, Optional, Sequence

import matplotlib
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from punstats import analysis
from punstats.analysis import units
from punstats.model.escape import figure_text
from punstats.patterns.built_in import KINDS
from punstats.present.figure import (  # noqa: F401  (part of this module's API)
    ALL_CODE_COLOUR,
    CAPTION_FONT_SIZE,
    DEFAULT_DIRECTORY,
    DPI,
    FORMATS,
    NONTEST_COLOUR,
    OUTSIDE_TESTS_COLOUR,
    SCAN_COLOURS,
    STYLE,
    TEST_COLOUR,
    THRESHOLD_COLOUR,
    TOP_BARS,
    WIDTH,
    Plot,
    caption,
    count_axis,
    finish_figure,
    new_figure,
    no_data,
    png_bytes,
    save,
)
from punstats.present.formats import percent_text
from punstats.present.provenance import column_names, history_note, subject_of


def length_histogram(result: Any) -> Plot:
    """Identifier lengths of the punnable arguments, stacked non-test / test,
    with the long threshold marked."""
    summary = result.summary
    data = analysis.length_distribution(result.occurrences)[["nontest", "test", "total"]]
    threshold = int(summary["long_threshold"])
    figure, axes = new_figure(5.2)
    with matplotlib.rc_context(STYLE):
        if not no_data(axes, summary):
            lengths = list(data.index)
            axes.bar(lengths, data["nontest"], width=0.85, color=NONTEST_COLOUR, label="outside tests")
            axes.bar(lengths, data["test"], width=0.85, bottom=data["nontest"], color=TEST_COLOUR, label="in tests")
            axes.axvline(threshold - 0.5, color=THRESHOLD_COLOUR, linestyle="--", linewidth=1.5,
                         label="long: %d or more characters (%s, %s outside tests)"
                         % (threshold, format(summary["long"], ","), format(summary["long_nontest"], ",")))
            axes.set_title("Identifier length of f(x=x) keyword arguments in %s (%s in all)"
                           % (figure_text(summary["corpus"]), format(int(data["total"].sum()), ",")))
            axes.set_xlabel("identifier length (characters)")
            axes.set_ylabel("f(x=x) keyword arguments")
            axes.set_xlim(0.4, max(lengths + [threshold]) + 0.6)
            axes.xaxis.set_major_locator(MaxNLocator(integer=True))
            count_axis(axes.yaxis)
            axes.legend(loc="best")
    finish_figure(figure, [summary])
    return Plot("lengths", summary["corpus"], figure, data)


def length_cumulative(result: Any) -> Plot:
    """Share of the punnable arguments whose identifier has at least n
    characters, for every n."""
    summary = result.summary
    data = analysis.length_distribution(result.occurrences)[["at_least", "at_least_pct"]]
    threshold = int(summary["long_threshold"])
    figure, axes = new_figure(5.2)
    with matplotlib.rc_context(STYLE):
        if not no_data(axes, summary):
            axes.plot(list(data.index), data["at_least_pct"], marker="o", markersize=4, color=NONTEST_COLOUR,
                      label="share with identifier length >= n")
            if threshold in data.index:
                share = float(data.at[threshold, "at_least_pct"])
                axes.axvline(threshold, color=THRESHOLD_COLOUR, linestyle="--", linewidth=1.5)
                axes.annotate("%.2f%% have %d or more characters\n(%s of %s)"
                              % (share, threshold, format(int(data.at[threshold, "at_least"]), ","),
                                 format(int(data["at_least"].iloc[0]), ",")),
                              xy=(threshold, share), xytext=(12, 30), textcoords="offset points",
                              arrowprops={"arrowstyle": "->", "color": THRESHOLD_COLOUR})
            axes.set_title("f(x=x) keyword arguments with identifiers at least n characters long, %s"
                           % figure_text(summary["corpus"]))
            axes.set_xlabel("n (identifier length, characters)")
            axes.set_ylabel("% of f(x=x) keyword arguments")
            axes.set_ylim(0, 102)
            axes.xaxis.set_major_locator(MaxNLocator(integer=True))
            axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: "%d%%" % value))
            axes.grid(axis="y", alpha=0.3)
    finish_figure(figure, [summary])
    return Plot("cumulative", summary["corpus"], figure, data)


def _stacked_bars(result: Any, data: pd.DataFrame, kind: str, title: str, ylabel: str,
                  width: float = WIDTH) -> Plot:
    """Horizontal bars, non-test then test, largest on top."""
    summary = result.summary
    figure, axes = new_figure(1.9 + 0.3 * max(len(data), 3), width)
    with matplotlib.rc_context(STYLE):
        if not no_data(axes, summary):
            positions = list(range(len(data)))
            axes.barh(positions, data["nontest"], color=NONTEST_COLOUR, label="outside tests")
            axes.barh(positions, data["test"], left=data["nontest"], color=TEST_COLOUR, label="in tests")
            for position, total in zip(positions, data["total"]):
                axes.annotate(format(int(total), ","), xy=(int(total), position), xytext=(3, 0),
                              textcoords="offset points", va="center", fontsize=9)
            axes.set_yticks(positions, [figure_text(label) for label in data.index], fontsize=10, family="monospace")
            axes.invert_yaxis()
            axes.set_title(figure_text(title))
            axes.set_xlabel("f(x=x) keyword arguments")
            axes.set_ylabel(ylabel)
            count_axis(axes.xaxis)
            axes.margins(x=0.08)
            axes.legend(loc="best")  # where it covers no bar
    finish_figure(figure, [summary])
    return Plot(kind, summary["corpus"], figure, data)


def top_identifiers(result: Any, n: int = TOP_BARS) -> Plot:
    """The ``n`` most common identifiers of punnable arguments."""
    data = analysis.top_split(result.occurrences, "name", n)
    return _stacked_bars(result, data, "identifiers",
                         "%d most common identifiers in f(x=x), %s" % (len(data), result.summary["corpus"]),
                         "identifier")


def top_callees(result: Any, n: int = TOP_BARS) -> Plot:
    """The ``n`` callees that receive the most punnable arguments."""
    data = analysis.top_split(result.occurrences, "callee", n)
    return _stacked_bars(result, data, "callees",
                         "%d callees receiving the most f(x=x), %s" % (len(data), result.summary["corpus"]),
                         "callee", width=WIDTH + 2)


def directories(result: Any, n: int = TOP_BARS) -> Plot:
    """Where the punnable arguments are: per top-level directory or root
    file, the ``n`` largest, the rest added up in one bar."""
    table = analysis.by_directory(result.occurrences, result.files, n=n)
    data = table.rename(columns={"punnable_nontest": "nontest", "punnable_test": "test", "punnable": "total"})
    data = data[["nontest", "test", "total", "keywords", "punnable_pct"]]
    data = data[data["total"] > 0]  # places without any are in the table, not drawn as empty rows
    return _stacked_bars(result, data, "directories",
                         "Where the f(x=x) keyword arguments are in %s" % result.summary["corpus"],
                         "top-level directory or file")


#: The share in all code and the share outside tests: (colour, marker, legend) of each, as
#: every figure draws them side by side (``projects``, ``history_trend``).
SHARE_LINES = {"punnable_pct": (ALL_CODE_COLOUR, "o", "all code"),
               "punnable_nontest_pct": (OUTSIDE_TESTS_COLOUR, "^", "outside tests")}


def projects(results: Sequence[Any]) -> Plot:
    """Punnable arguments as a share of the keyword arguments, two bars per
    scan: in all code, and outside tests (the scan's test rule)."""
    from punstats.present.tables import with_outside_tests
    summaries = [with_outside_tests(r) for r in results]
    names = column_names(summaries)
    data = analysis.compare(summaries).set_index(pd.Index(names, name="scan"))
    data["keywords_nontest"] = [int(s["keywords_nontest"]) for s in summaries]
    data["punnable_nontest"] = [int(s["punnable_nontest"]) for s in summaries]
    data["punnable_nontest_pct"] = [units.stored_share(s, "punnable_nontest_pct") for s in summaries]
    figure, axes = new_figure(5.4, max(WIDTH * 0.8, 1.6 + 2.2 * len(names)))
    with matplotlib.rc_context(STYLE):
        positions = list(range(len(names)))
        for offset, (column, count, whole) in zip((-0.2, 0.2), (("punnable_pct", "punnable", "keywords"), (
                "punnable_nontest_pct", "punnable_nontest", "keywords_nontest"))):
            colour, _, label = SHARE_LINES[column]
            heights = data[column].fillna(0.0)  # NaN: a share of nothing, labelled n/a
            axes.bar([p + offset for p in positions], heights, width=0.38, color=colour, label=label)
            for position, height, (_, row) in zip(positions, heights, data.iterrows()):
                axes.annotate("%s\n%s of\n%s" % (percent_text(row[column]), format(int(row[count]), ","),
                                                  format(int(row[whole]), ",")),
                              xy=(position + offset, height), xytext=(0, 4), textcoords="offset points",
                              ha="center", va="bottom", fontsize=9)
        axes.set_xlim(-0.8, len(names) - 0.2)
        axes.set_xticks(positions, [figure_text(name) for name in names], rotation=30 if len(names) > 4 else 0,
                        ha="right" if len(names) > 4 else "center")
        axes.set_title("f(x=x) among keyword arguments: all code and outside tests")
        axes.set_xlabel("scan")
        axes.set_ylabel("% of keyword arguments")
        top = max([float(v) for c in ("punnable_pct", "punnable_nontest_pct") for v in data[c] if v == v] + [1.0])
        axes.set_ylim(0, top * 1.6)  # room for the labels and the legend
        axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: "%g%%" % value))
        axes.legend(loc="upper center", ncols=2)
    finish_figure(figure, summaries)
    return Plot("projects", subject_of(names), figure, data)


#: The patterns the ``kinds`` figure compares for a scan without user patterns
#: (``analysis.units.figure_rows``: each occurrence kind and its first "of which" row).
KIND_BARS = tuple(kind.name for kind in units.figure_rows(KINDS))


def kinds(results: Sequence[Any]) -> Plot:
    """Each recorded pattern as a share of its denominator, one bar per scan:
    how strict the proposal's rule is, and how projects differ.  The bars are
    ``units.figure_rows`` of the scans' registries that are shares (``units.is_share``),
    user patterns too: a rate per million lines is no percentage to draw beside them."""
    summaries = [r.summary for r in results]
    names = column_names(summaries)
    bars = [kind.name for kind in units.figure_rows(units.union(summaries)) if units.is_share(kind.per)]
    table = analysis.kinds_comparison(summaries).loc[bars]
    data = pd.DataFrame({name: table["pct_%d" % i] for i, name in enumerate(names)})
    data["label"] = [_bar_label(label, part_of, unit)
                     for label, part_of, unit in zip(table["label"], table["part_of"], table["denominator"])]
    figure, axes = new_figure(1.6 + 0.75 * len(bars) * max(1, len(names)) ** 0.5)
    height = 0.8 / len(names)
    with matplotlib.rc_context(STYLE):
        for index, name in enumerate(names):
            positions = [row + (index - (len(names) - 1) / 2) * height for row in range(len(bars))]
            shares = [float(v) for v in data[name]]
            values = [v if v == v else 0.0 for v in shares]  # NaN: nothing to divide by, labelled n/a
            axes.barh(positions, values, height=height * 0.95, label=figure_text(name),
                      color=SCAN_COLOURS[index % len(SCAN_COLOURS)])
            for position, value, share in zip(positions, values, shares):
                axes.annotate(percent_text(share) if share else "-", xy=(value, position), xytext=(3, 0),
                              textcoords="offset points", va="center", fontsize=9)
        axes.set_yticks(range(len(bars)), data["label"], fontsize=10)
        axes.invert_yaxis()
        axes.set_xlabel("% of the denominator named under each pattern")
        axes.set_xlim(0, max([float(v) for name in names for v in data[name] if v == v] + [1.0]) * 1.2)
        axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: "%g%%" % value))
        axes.set_title("f(x=x) and related keyword-argument patterns" if all(b in KIND_BARS for b in bars)
                       else "f(x=x), related patterns and the scans' own patterns")
        if len(names) > 1:
            axes.legend(loc="best")  # where it covers no bar
    finish_figure(figure, summaries)
    return Plot("kinds", subject_of(names), figure, data)


def _bar_label(label: str, part_of: str, unit: str) -> str:
    """A bar's label: the row's label ("of which ..." for a part of the row above) and its unit."""
    text = figure_text(label.replace("`", ""))  # a user pattern's label is the user's text
    if part_of and not text.startswith("of which "):
        text = "of which " + text
    return text + ("\n(%% of %s)" % figure_text(units.unit_words(unit).replace("`", "")) if unit else "")


def history_trend(table: pd.DataFrame, name: str, about: Optional[Dict[str, Any]] = None) -> Plot:
    """f(x=x) over a repository's history, one point per revision: the count
    (upper panel) and the share of keyword arguments in all code and outside
    tests (lower panel; no point where there are none), each on its own axis
    starting at zero.  Revisions without a commit date are left out (a note says how many);
    ``about`` (``history.json``) gives the caption the parser and the rules."""
    undated = int(table["date"].isna().sum())
    table = table[table["date"].notna()]
    with matplotlib.rc_context(STYLE):
        figure = Figure(figsize=(WIDTH, 6.4), dpi=DPI)
        FigureCanvasAgg(figure)
        counts, shares = figure.subplots(2, 1, sharex=True)
        dates = list(table["date"])
        counts.plot(dates, table["punnable"], marker="s", markersize=3, color=TEST_COLOUR)
        counts.set_ylabel("f(x=x) keyword\narguments")
        counts.set_ylim(0, max([int(v) for v in table["punnable"]] + [1]) * 1.1)
        count_axis(counts.yaxis)
        shown = [column for column in SHARE_LINES if column in table]  # a history stored before: all code only
        for column in shown:
            colour, marker, label = SHARE_LINES[column]
            shares.plot(dates, table[column], marker=marker, markersize=3, color=colour, label=label)
        if len(shown) > 1:
            shares.legend(loc="best")
        shares.set_ylabel("% of keyword\narguments")
        shares.set_ylim(0, max([float(v) for c in shown for v in table[c] if v == v] + [1.0]) * 1.1)  # NaN: 0 of 0
        shares.yaxis.set_major_formatter(FuncFormatter(lambda value, _: "%g%%" % value))
        counts.set_title("f(x=x) over the history of %s" % figure_text(name))
        shares.set_xlabel("commit date")
        figure.autofmt_xdate()
    notes = []
    if len(table):
        first, last = table.iloc[0], table.iloc[-1]
        notes.append("%s: %d first-parent revisions from %s (%s) to %s (%s)."
                     % (name, len(table), first["commit"][:12], str(first["date"])[:10],
                        last["commit"][:12], str(last["date"])[:10]))
    if undated:
        notes.append("%d revisions without a readable commit date are left out." % undated)
    caption(figure, notes + [note for note in [history_note(about)] if note])
    return Plot("history", name, figure, table[["commit", "date", "punnable", *shown]])


def all_plots(results: Sequence[Any]) -> List[Plot]:
    """Every figure: five per scan, then the comparison of all scans."""
    names = column_names([r.summary for r in results])
    plots = []
    for result, name in zip(results, names):
        for make in (length_histogram, length_cumulative, top_identifiers, top_callees, directories):
            plots.append(dataclasses.replace(make(result), subject=name))
    plots.append(projects(results))
    if all("kinds" in r.summary for r in results):
        plots.append(kinds(results))
    if len(results) > 1:
        from punstats.present.compare import length_overlay
        plots.append(length_overlay(results))
    return plots


def write_plots(results: Sequence[Any], directory: str = DEFAULT_DIRECTORY,
                formats: Sequence[str] = FORMATS) -> List[str]:
    """Draw every figure of ``results`` and write it; the paths written."""
    return [path for plot in all_plots(results) for path in save(plot, directory, formats)]

