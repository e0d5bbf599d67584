"""Figures about one kind a user asked for (``--kind NAME``): per scan, and a pattern's own trend.

``kind_projects`` draws a kind in each of several stored scans: two bars per
scan, its measure against its unit in all code and outside tests, each
labelled with the count it is made of; ``kind_lengths`` the identifier
lengths of a kind named by identifiers (``f(x=obj.x)``, near misses, ``{"x": x}``).
``kind_trend`` draws a user pattern over a repository's history (a
``runs.history`` table): its count in all code and outside tests (upper
panel), and its measure against the unit it declared (lower panel), a share
in % of a unit of syntax or a rate per million lines, lines of code or files
(``analysis.units.is_share``), in the colours and markers every other
figure gives all code and outside tests.  Revisions without a commit date
are left out, and the caption says how many.
"""
from __future__ import annotations

import textwrap
from typing import Any, Dict, List, Optional, Sequence

import matplotlib
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from punstats.analysis import units
from punstats.analysis.breakdowns import split_counts
from punstats.model.escape import figure_text
from punstats.model.kinds import KIND_CALL, Kind
from punstats.present.commands import shown_source
from punstats.present.figure import DPI, STYLE, WIDTH, Plot, caption, count_axis, finish_figure, new_figure
from punstats.present.formats import percent_text, rate_text
from punstats.present.plots import NONTEST_COLOUR, SHARE_LINES, TEST_COLOUR
from punstats.present.provenance import column_names, history_note, subject_of


def kind_projects(results: Sequence[Any], kind: Kind) -> Plot:
    """``kind`` in each scan of ``results``: its share of its unit (a unit of syntax) or its rate per
    million of it (lines, lines of code, files), in all code and outside tests."""
    summaries = [r.summary for r in results]
    names = column_names(summaries)
    data = pd.DataFrame(_measures(summaries, kind), index=pd.Index(names, name="scan"))
    share = units.is_share(kind.per)
    figure, axes = new_figure(5.4, max(WIDTH * 0.8, 1.6 + 2.2 * len(names)))
    with matplotlib.rc_context(STYLE):
        positions = list(range(len(names)))
        for offset, (colour, _, label), prefix in zip((-0.2, 0.2), SHARE_LINES.values(), ("", "nontest_")):
            heights = data[prefix + "measure"].fillna(0.0)  # NaN: of nothing, labelled n/a
            axes.bar([p + offset for p in positions], heights, width=0.38, color=colour, label=label)
            for position, height, (_, row) in zip(positions, heights, data.iterrows()):
                count = int(row[prefix + "count"])
                axes.annotate("%s\n%s match%s" % (_measure_text(row[prefix + "measure"], share),
                                                  format(count, ","), "" if count == 1 else "es"),
                              xy=(position + offset, height), xytext=(0, 4), textcoords="offset points",
                              ha="center", va="bottom", fontsize=9)
        axes.set_xlim(-0.8, len(names) - 0.2)
        axes.set_xticks(positions, [figure_text(name) for name in names], rotation=30 if len(names) > 4 else 0,
                        ha="right" if len(names) > 4 else "center")
        axes.set_title("\n".join(textwrap.wrap(figure_text("%s: all code and outside tests"
                                                            % kind.label.replace("`", "")), 64)))
        axes.set_xlabel("scan")
        words = units.unit_words(kind.per).replace("`", "")
        axes.set_ylabel("%% of %s" % words if share else "per million %s" % words)
        top = max([float(v) for c in ("measure", "nontest_measure") for v in data[c] if v == v] + [1.0])
        axes.set_ylim(0, top * 1.6)  # room for the labels and the legend
        axes.yaxis.set_major_formatter(FuncFormatter(
            (lambda value, _: "%g%%" % value) if share else (lambda value, _: format(value, ",g"))))
        axes.legend(loc="upper center", ncols=2)
    finish_figure(figure, summaries)
    return Plot("%s-projects" % kind.name, subject_of(names), figure, data)


def kind_plots(results: Sequence[Any], kind: Kind) -> List[Plot]:
    """The figures of ``kind`` in stored scans: per scan (``kind_projects``), then, for a kind named
    by identifiers other than ``f(x=x)`` (whose figures ``plot`` draws anyway), their lengths per scan."""
    plots = [kind_projects(results, kind)]
    if has_names(kind) and kind.name != KIND_CALL:
        plots += [kind_lengths(result, kind) for result in results]
    return plots


def has_names(kind: Kind) -> bool:
    """Whether ``kind``'s occurrences are named by an identifier (a keyword's, a dict key's), whose
    length ``kind_lengths`` draws: punstats' own occurrence kinds (a pattern's names its node class)."""
    return kind.occurrence and not kind.user


def kind_lengths(result: Any, kind: Kind) -> Plot:
    """The identifier lengths of ``kind``'s occurrences in one scan (``has_names``), stacked outside
    and in tests, as ``plots.length_histogram`` draws those of ``f(x=x)``."""
    summary = result.summary
    rows = result.of_kind(kind.name)
    data = split_counts(rows, rows["name_len"].astype("int64"))
    data = data.reindex(range(1, int(max(data.index, default=0)) + 1), fill_value=0)
    data.index.name = "name_len"
    figure, axes = new_figure(5.2)
    label = kind.label.replace("`", "")
    with matplotlib.rc_context(STYLE):
        if len(rows):
            lengths = list(data.index)
            axes.bar(lengths, data["nontest"], width=0.85, color=NONTEST_COLOUR, label="outside tests")
            axes.bar(lengths, data["test"], width=0.85, bottom=data["nontest"], color=TEST_COLOUR, label="in tests")
            axes.set_xlabel("identifier length (characters)")
            axes.set_ylabel(figure_text(label))
            axes.xaxis.set_major_locator(MaxNLocator(integer=True))
            count_axis(axes.yaxis)
            axes.legend(loc="best")
        else:
            axes.set_axis_off()
        axes.set_title(figure_text("Identifier length of %s in %s (%s in all)" % (
            label, summary["corpus"], format(len(rows), ","))))
    finish_figure(figure, [summary])
    return Plot("%s-lengths" % kind.name, summary["corpus"], figure, data)


def _measures(summaries: Sequence[Any], kind: Kind) -> dict:
    """Per scan: ``kind``'s count and measure (``units``), in all code and outside tests."""
    columns: dict = {"count": [], "measure": [], "nontest_count": [], "nontest_measure": []}
    for summary in summaries:
        for prefix, nontest in (("", False), ("nontest_", True)):
            part = units.count(summary, kind, nontest)
            whole = units.denominator(summary, kind.per, nontest)
            columns[prefix + "count"].append(part or 0)
            columns[prefix + "measure"].append(
                units.share(part, whole) if units.is_share(kind.per) else units.rate(part, whole))
    return columns


def _measure_text(value: float, share: bool) -> str:
    """A bar's label: ``1.25%``, ``39.4`` per million, or ``n/a``."""
    if share or value != value:
        return percent_text(value)
    return rate_text(value)


def kind_trend(table: pd.DataFrame, name: str, kind: Kind, counted: Sequence[str], measured: Sequence[str],
               about: Optional[Dict[str, Any]] = None) -> Plot:
    """``kind`` (a user pattern of the history) over the revisions of ``table`` (``runs.history``),
    whose columns ``counted`` and ``measured`` hold its counts and measures, in all code and
    outside tests (``runs.history.pattern_columns``); ``about`` (``history.json``) gives the
    caption the parser and the rules."""
    undated = int(table["date"].isna().sum())
    table = table[table["date"].notna()]
    counted, measured = list(counted), [c for c in measured if c in table]
    share = units.is_share(kind.per)
    styles = list(SHARE_LINES.values())
    with matplotlib.rc_context(STYLE):
        figure = Figure(figsize=(WIDTH, 6.4), dpi=DPI)
        FigureCanvasAgg(figure)
        counts, measures = figure.subplots(2, 1, sharex=True)
        dates = list(table["date"])
        for axes, columns in ((counts, counted), (measures, measured)):
            for (colour, marker, label), series in zip(styles, columns):
                axes.plot(dates, table[series], marker=marker, markersize=3, color=colour, label=label)
            axes.set_ylim(0, max([float(v) for c in columns for v in table[c] if v == v] + [1.0]) * 1.1)
        counts.legend(loc="best")
        counts.set_ylabel("matches")
        count_axis(counts.yaxis)
        words = units.unit_words(kind.per).replace("`", "")
        measures.set_ylabel("%% of %s" % words if share else "per million\n%s" % words)
        measures.yaxis.set_major_formatter(FuncFormatter(
            (lambda value, _: "%g%%" % value) if share else (lambda value, _: format(value, ",g"))))
        counts.set_title(figure_text("%s over the history of %s" % (kind.label.replace("`", ""), name)))
        measures.set_xlabel("commit date")
        figure.autofmt_xdate()
    caption(figure, _notes(table, name, kind, undated) + [note for note in [history_note(about)] if note])
    return Plot("%s-history" % kind.name, name, figure, table[["commit", "date", *counted, *measured]])


def _notes(table: pd.DataFrame, name: str, kind: Kind, undated: int) -> List[str]:
    notes: List[Any] = []
    if len(table):
        first, last = table.iloc[0], table.iloc[-1]
        notes.append("%s: %d first-parent revisions from %s (%s) to %s (%s)."
                     % (name, len(table), first["commit"][:12], str(first["date"])[:10],
                        last["commit"][:12], str(last["date"])[:10]))
    notes.append("Pattern %s from %s (sha256 %s)." % (kind.name, shown_source(kind.source), kind.sha256[:12] or "n/a"))
    if undated:
        notes.append("%d revisions without a readable commit date are left out." % undated)
    return notes
