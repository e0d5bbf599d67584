"""Figures of stored scans, drawn with matplotlib and written as PNG and SVG.

This module owns the pictures only: every number drawn comes from
``punstats.analysis`` (or a scan's summary), and every plot function returns
a ``Plot`` holding both the figure and the DataFrame it drew, so a test (or a
reader) can check the bars against the stored counts.

Figures are built with ``matplotlib.figure.Figure`` on the Agg canvas, never
through ``pyplot``, so importing this module changes no global backend (a
notebook keeps its own) and no figure is kept alive by a registry.  Each
figure's caption names the corpus, its revision and the Python version that
parsed it.
"""
from __future__ import annotations

import dataclasses
import hashlib
import io
import os
import textwrap
from dataclasses import dataclass
from typing import Any, Dict, List, Sequence

import matplotlib
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from punstats import analysis
from punstats.present.provenance import column_names, provenance, slug

FORMATS = ("png", "svg")


DEFAULT_DIRECTORY = os.path.join("reports", "figures")


TOP_BARS = 20


DPI = 150


# Okabe-Ito colours: distinguishable with the common colour-vision deficiencies.
NONTEST_COLOUR = "#0072B2"


TEST_COLOUR = "#E69F00"


THRESHOLD_COLOUR = "#D55E00"


#: Sizes chosen so that text stays readable when a forum shrinks the PNG to
#: about 700 pixels wide.
STYLE = {
    "font.size": 12,
    "axes.titlesize": 13,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "svg.hashsalt": "punstats",  # the same SVG for the same data
}


CAPTION_FONT_SIZE = 9


WIDTH = 9.0  # inches


@dataclass(frozen=True)
class Plot:
    """A figure and the data it shows.

    ``kind`` says what is drawn (``lengths``, ``cumulative``, ``identifiers``,
    ``callees``, ``directories``, ``projects``); ``subject`` is the corpus (or
    the corpora compared); ``name`` is the file name without extension.
    """

    kind: str
    subject: str
    figure: Figure
    data: pd.DataFrame

    @property
    def name(self) -> str:
        return "%s-%s" % (slug(self.subject), self.kind)


def _figure(height: float, width: float = WIDTH):
    with matplotlib.rc_context(STYLE):
        figure = Figure(figsize=(width, height), dpi=DPI)
        FigureCanvasAgg(figure)
        axes = figure.add_subplot()
    return figure, axes


def _finish(figure: Figure, summaries: Sequence[Dict[str, Any]]) -> None:
    """Add the provenance caption under the axes and lay the figure out."""
    width, height = figure.get_size_inches()
    chars = int(width * 72 / (CAPTION_FONT_SIZE * 0.52))
    names = column_names(summaries)
    lines = [line for s, name in zip(summaries, names)
             for line in textwrap.wrap(provenance(s, name), chars, break_on_hyphens=False)]
    line_inches = CAPTION_FONT_SIZE * 1.35 / 72
    caption_inches = 0.12 + line_inches * len(lines)
    figure.text(0.01, 0.06 / height, "\n".join(lines), fontsize=CAPTION_FONT_SIZE, color="#444444",
                ha="left", va="bottom", linespacing=1.35)
    with matplotlib.rc_context(STYLE):
        figure.tight_layout(rect=(0, caption_inches / height, 1, 1))


def _count_axis(axis) -> None:
    axis.set_major_locator(MaxNLocator(integer=True, steps=[1, 2, 2.5, 5, 10]))
    axis.set_major_formatter(FuncFormatter(lambda value, _: format(int(value), ",")))


def length_histogram(result: Any) -> Plot:
    """Identifier lengths of the punnable arguments, stacked non-test / test,
    with the long threshold marked."""
    summary = result.summary
    data = analysis.length_distribution(result.occurrences)[["nontest", "test", "total"]]
    threshold = int(summary["long_threshold"])
    figure, axes = _figure(5.2)
    with matplotlib.rc_context(STYLE):
        lengths = list(data.index)
        axes.bar(lengths, data["nontest"], width=0.85, color=NONTEST_COLOUR, label="outside tests")
        axes.bar(lengths, data["test"], width=0.85, bottom=data["nontest"], color=TEST_COLOUR, label="in tests")
        axes.axvline(threshold - 0.5, color=THRESHOLD_COLOUR, linestyle="--", linewidth=1.5,
                     label="long: %d or more characters (%s, %s outside tests)"
                     % (threshold, format(summary["long"], ","), format(summary["long_nontest"], ",")))
        axes.set_title("Identifier length of f(x=x) keyword arguments in %s (%s in all)"
                       % (summary["corpus"], format(int(data["total"].sum()), ",")))
        axes.set_xlabel("identifier length (characters)")
        axes.set_ylabel("f(x=x) keyword arguments")
        axes.set_xlim(0.4, max(lengths + [threshold]) + 0.6)
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        _count_axis(axes.yaxis)
        axes.legend(loc="upper right")
    _finish(figure, [summary])
    return Plot("lengths", summary["corpus"], figure, data)


def length_cumulative(result: Any) -> Plot:
    """Share of the punnable arguments whose identifier has at least n
    characters, for every n."""
    summary = result.summary
    data = analysis.length_distribution(result.occurrences)[["at_least", "at_least_pct"]]
    threshold = int(summary["long_threshold"])
    figure, axes = _figure(5.2)
    with matplotlib.rc_context(STYLE):
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
                       % summary["corpus"])
        axes.set_xlabel("n (identifier length, characters)")
        axes.set_ylabel("% of f(x=x) keyword arguments")
        axes.set_ylim(0, 102)
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: "%d%%" % value))
        axes.grid(axis="y", alpha=0.3)
    _finish(figure, [summary])
    return Plot("cumulative", summary["corpus"], figure, data)


def _stacked_bars(result: Any, data: pd.DataFrame, kind: str, title: str, ylabel: str,
                  width: float = WIDTH) -> Plot:
    """Horizontal bars, non-test then test, largest on top."""
    summary = result.summary
    figure, axes = _figure(1.9 + 0.3 * max(len(data), 3), width)
    with matplotlib.rc_context(STYLE):
        positions = list(range(len(data)))
        axes.barh(positions, data["nontest"], color=NONTEST_COLOUR, label="outside tests")
        axes.barh(positions, data["test"], left=data["nontest"], color=TEST_COLOUR, label="in tests")
        for position, total in zip(positions, data["total"]):
            axes.annotate(format(int(total), ","), xy=(int(total), position), xytext=(3, 0),
                          textcoords="offset points", va="center", fontsize=9)
        axes.set_yticks(positions, [str(label) for label in data.index], fontsize=10, family="monospace")
        axes.invert_yaxis()
        axes.set_title(title)
        axes.set_xlabel("f(x=x) keyword arguments")
        axes.set_ylabel(ylabel)
        _count_axis(axes.xaxis)
        axes.margins(x=0.08)
        axes.legend(loc="lower right")
    _finish(figure, [summary])
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
    return _stacked_bars(result, data, "directories",
                         "Where the f(x=x) keyword arguments are in %s" % result.summary["corpus"],
                         "top-level directory or file")


def projects(results: Sequence[Any]) -> Plot:
    """Punnable arguments as a share of the keyword arguments, two bars per
    scan: in all code, and outside tests (the scan's test rule)."""
    from punstats.present.tables import with_outside_tests
    summaries = [with_outside_tests(r) for r in results]
    names = column_names(summaries)
    data = analysis.compare(summaries).set_index(pd.Index(names, name="scan"))
    data["keywords_nontest"] = [int(s["keywords_nontest"]) for s in summaries]
    data["punnable_nontest"] = [int(s["punnable_nontest"]) for s in summaries]
    data["punnable_nontest_pct"] = [float(s["punnable_nontest_pct"]) for s in summaries]
    figure, axes = _figure(5.4, max(WIDTH * 0.8, 1.6 + 2.2 * len(names)))
    with matplotlib.rc_context(STYLE):
        positions = list(range(len(names)))
        for offset, (column, count, whole, colour, label) in zip((-0.2, 0.2), (
                ("punnable_pct", "punnable", "keywords", NONTEST_COLOUR, "all code"),
                ("punnable_nontest_pct", "punnable_nontest", "keywords_nontest", TEST_COLOUR, "outside tests"))):
            axes.bar([p + offset for p in positions], data[column], width=0.38, color=colour, label=label)
            for position, (_, row) in zip(positions, data.iterrows()):
                axes.annotate("%.2f%%\n%s of\n%s" % (row[column], format(int(row[count]), ","),
                                                      format(int(row[whole]), ",")),
                              xy=(position + offset, row[column]), xytext=(0, 4), textcoords="offset points",
                              ha="center", va="bottom", fontsize=9)
        axes.set_xlim(-0.8, len(names) - 0.2)
        axes.set_xticks(positions, names, rotation=30 if len(names) > 4 else 0,
                        ha="right" if len(names) > 4 else "center")
        axes.set_title("f(x=x) among keyword arguments: all code and outside tests")
        axes.set_xlabel("scan")
        axes.set_ylabel("% of keyword arguments")
        top = max([float(v) for c in ("punnable_pct", "punnable_nontest_pct") for v in data[c]] + [1.0])
        axes.set_ylim(0, top * 1.6)  # room for the labels and the legend
        axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: "%g%%" % value))
        axes.legend(loc="upper center", ncols=2)
    _finish(figure, summaries)
    return Plot("projects", _projects_subject(names), figure, data)


#: The patterns the ``kinds`` figure compares (keys of analysis.KIND_ROWS).
KIND_BARS = ("call", "attribute", "attribute_self", "near_miss", "dict_call_punnable", "dict_literal", "class")


#: One colour per scan in the ``kinds`` figure (Okabe-Ito, then matplotlib's cycle).
SCAN_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")


def kinds(results: Sequence[Any]) -> Plot:
    """Each recorded pattern as a share of its denominator, one bar per scan:
    how strict the proposal's rule is, and how projects differ."""
    summaries = [r.summary for r in results]
    names = column_names(summaries)
    table = analysis.kinds_comparison(summaries).loc[list(KIND_BARS)]
    data = pd.DataFrame({name: table["pct_%d" % i] for i, name in enumerate(names)})
    data["label"] = [label.replace("`", "") + "\n(%% of %s)" % {
        "keywords": "keyword arguments", "dict_entries": "string-keyed dict entries",
        "class_keywords": "class keywords"}[denominator]
        for label, denominator in zip(table["label"], table["denominator"])]
    figure, axes = _figure(1.6 + 0.75 * len(KIND_BARS) * max(1, len(names)) ** 0.5)
    height = 0.8 / len(names)
    with matplotlib.rc_context(STYLE):
        for index, name in enumerate(names):
            positions = [row + (index - (len(names) - 1) / 2) * height for row in range(len(KIND_BARS))]
            values = [float(v) for v in data[name]]
            axes.barh(positions, values, height=height * 0.95, label=name,
                      color=SCAN_COLOURS[index % len(SCAN_COLOURS)])
            for position, value in zip(positions, values):
                axes.annotate("%.2f%%" % value, xy=(value, position), xytext=(3, 0), textcoords="offset points",
                              va="center", fontsize=9)
        axes.set_yticks(range(len(KIND_BARS)), data["label"], fontsize=10)
        axes.invert_yaxis()
        axes.set_xlabel("% of the denominator named under each pattern")
        axes.set_xlim(0, max([float(v) for name in names for v in data[name]] + [1.0]) * 1.2)
        axes.xaxis.set_major_formatter(FuncFormatter(lambda value, _: "%g%%" % value))
        axes.set_title("Keyword-argument patterns besides f(x=x)")
        if len(names) > 1:
            axes.legend(loc="lower right")
    _finish(figure, summaries)
    return Plot("kinds", _projects_subject(names), figure, data)


def history_trend(table: pd.DataFrame, name: str) -> Plot:
    """f(x=x) over a repository's history: the share of keyword arguments
    (left axis) and the count (right axis), one point per revision."""
    figure, axes = _figure(5.0)
    with matplotlib.rc_context(STYLE):
        dates = list(table["date"])
        axes.plot(dates, table["punnable_pct"], marker="o", markersize=3, color=NONTEST_COLOUR,
                  label="% of keyword arguments")
        axes.set_ylabel("% of keyword arguments", color=NONTEST_COLOUR)
        axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: "%g%%" % value))
        counts = axes.twinx()
        counts.plot(dates, table["punnable"], marker="s", markersize=3, color=TEST_COLOUR, label="count")
        counts.set_ylabel("f(x=x) keyword arguments", color=TEST_COLOUR)
        _count_axis(counts.yaxis)
        axes.set_title("f(x=x) over the history of %s" % name)
        axes.set_xlabel("commit date")
        figure.autofmt_xdate()
    if len(table):
        first, last = table.iloc[0], table.iloc[-1]
        caption = ("%s: %d first-parent revisions from %s (%s) to %s (%s)."
                   % (name, len(table), first["commit"][:12], str(first["date"])[:10],
                      last["commit"][:12], str(last["date"])[:10]))
        figure.text(0.01, 0.01, caption, fontsize=CAPTION_FONT_SIZE, color="#444444", ha="left", va="bottom")
    with matplotlib.rc_context(STYLE):
        figure.tight_layout(rect=(0, 0.05, 1, 1))
    return Plot("history", name, figure, table[["commit", "date", "punnable", "punnable_pct"]])


def _projects_subject(names: Sequence[str]) -> str:
    joined = "+".join(names)
    if len(joined) <= 60:
        return joined
    return "%d-scans-%s" % (len(names), hashlib.sha1(joined.encode()).hexdigest()[:8])


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
    return plots


def save(plot: Plot, directory: str = DEFAULT_DIRECTORY, formats: Sequence[str] = FORMATS) -> List[str]:
    """Write ``plot`` as ``directory/<name>.<format>``; the paths written."""
    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise ValueError("unknown figure format %r (choose from %s)" % (unknown[0], ", ".join(FORMATS)))
    os.makedirs(directory, exist_ok=True)
    paths = []
    for fmt in formats:
        path = os.path.join(directory, "%s.%s" % (plot.name, fmt))
        _savefig(plot, path, fmt)
        paths.append(path)
    return paths


def png_bytes(plot: Plot) -> bytes:
    """``plot`` as a PNG image in memory (for embedding)."""
    buffer = io.BytesIO()
    _savefig(plot, buffer, "png")
    return buffer.getvalue()


def _savefig(plot: Plot, target: Any, fmt: str) -> None:
    metadata = {"Date": None} if fmt == "svg" else {}  # no time stamp: same data, same file
    with matplotlib.rc_context(STYLE):
        plot.figure.savefig(target, format=fmt, dpi=DPI, metadata=metadata)


def write_plots(results: Sequence[Any], directory: str = DEFAULT_DIRECTORY,
                formats: Sequence[str] = FORMATS) -> List[str]:
    """Draw every figure of ``results`` and write it; the paths written."""
    return [path for plot in all_plots(results) for path in save(plot, directory, formats)]

