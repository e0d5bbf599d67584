"""Figures about one kind a user asked for (``--kind NAME``): a pattern's own trend.

``kind_trend`` draws a user pattern over a repository's history (a
``runs.history`` table): its count in all code and outside tests (upper
panel), and its measure against the unit it declared (lower panel), a share
in % of a unit of syntax or a rate per million lines, lines of code or files
(``analysis.units.is_share``), in the colours and markers every other
figure gives all code and outside tests.  Revisions without a commit date
are left out, and the caption says how many.
"""
from __future__ import annotations

from typing import Any, List, Sequence

import matplotlib
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from punstats.analysis import units
from punstats.model.escape import figure_text
from punstats.model.kinds import Kind
from punstats.present.figure import DPI, STYLE, WIDTH, Plot, _count_axis, caption
from punstats.present.plots import SHARE_LINES


def kind_trend(table: pd.DataFrame, name: str, kind: Kind, counted: Sequence[str], measured: Sequence[str]) -> Plot:
    """``kind`` (a user pattern of the history) over the revisions of ``table`` (``runs.history``),
    whose columns ``counted`` and ``measured`` hold its counts and measures, in all code and
    outside tests (``runs.history.pattern_columns``)."""
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
        _count_axis(counts.yaxis)
        words = units.unit_words(kind.per).replace("`", "")
        measures.set_ylabel("%% of %s" % words if share else "per million\n%s" % words)
        measures.yaxis.set_major_formatter(FuncFormatter(
            (lambda value, _: "%g%%" % value) if share else (lambda value, _: format(value, ",g"))))
        counts.set_title(figure_text("%s over the history of %s" % (kind.label.replace("`", ""), name)))
        measures.set_xlabel("commit date")
        figure.autofmt_xdate()
    caption(figure, _notes(table, name, kind, undated))
    return Plot("%s-history" % kind.name, name, figure, table[["commit", "date", *counted, *measured]])


def _notes(table: pd.DataFrame, name: str, kind: Kind, undated: int) -> List[str]:
    notes: List[Any] = []
    if len(table):
        first, last = table.iloc[0], table.iloc[-1]
        notes.append("%s: %d first-parent revisions from %s (%s) to %s (%s)."
                     % (name, len(table), first["commit"][:12], str(first["date"])[:10],
                        last["commit"][:12], str(last["date"])[:10]))
    notes.append("Pattern %s from %s (sha256 %s)." % (kind.name, kind.source, kind.sha256[:12] or "n/a"))
    if undated:
        notes.append("%d revisions without a readable commit date are left out." % undated)
    return notes
