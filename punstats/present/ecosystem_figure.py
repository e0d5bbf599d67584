"""The figure of an ecosystem run: each project's ``f(x=x)`` share, and identifier lengths pooled.

The left panel is the per-project distribution of the share of keyword
arguments that are ``f(x=x)`` (a box plot with every project as a point), in
all code and outside tests, beside the pooled share and the median, each with
its 95 % interval as an error bar (``analysis.uncertainty``); the right panel the share of the pooled
``f(x=x)`` arguments whose identifier has at least n characters, for every n,
as ``plots.length_cumulative`` draws it for a scan.  The colours of all code
and outside tests are those of ``plots.projects``, and the caption states what
was measured (``present.ecosystem.run_provenance``), as every figure's does.
"""
from __future__ import annotations

from typing import Any, Dict, Optional, Sequence

import matplotlib
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from punstats.analysis import subject, units
from punstats.analysis.ecosystem import at_least, per_project, row_counts, shares
from punstats.analysis.uncertainty import RunIntervals, run_intervals
from punstats.model.escape import figure_text
from punstats.model.intervals import DEFAULT_BOOTSTRAP, Bootstrap
from punstats.model.kinds import Kind
from punstats.present.ecosystem import run_provenance
from punstats.present.figure import ALL_CODE_COLOUR, DPI, OUTSIDE_TESTS_COLOUR, STYLE, WIDTH, Plot, caption
from punstats.present.intervals import PER_PROJECT_WORDS, POOLED_WORDS
from punstats.store.ecosystem import population, run_name

#: (scope, colour, label) of the two series of both panels.
SERIES = (("all", ALL_CODE_COLOUR, "all code"), ("nontest", OUTSIDE_TESTS_COLOUR, "outside tests"))


def project_shares(records: Sequence[Dict[str, Any]]) -> pd.DataFrame:
    """Per scanned project its ``f(x=x)`` share of keyword arguments, in all code (``all``) and
    outside tests (``nontest``); NaN where it had none."""
    frame = per_project(records)
    frame = frame[frame["status"] == "scanned"]
    rates = [shares(row_counts(row)) for row in frame.to_dict("records")]
    return pd.DataFrame({"project": list(frame["project"]), "all": [r["pct"] for r in rates],
                         "nontest": [r["nontest_pct"] for r in rates]}).set_index("project")


def _per_project_panel(axes: Any, data: pd.DataFrame, ylabel: str = "% of keyword arguments",
                       title: str = "f(x=x) share per project with keyword arguments", unit: str = "%") -> None:
    values = [[float(v) for v in data[scope] if v == v] for scope, _, _ in SERIES]
    axes.boxplot(values, showfliers=False, widths=0.5, medianprops={"color": "#444444"})
    for position, (points, (_, colour, _)) in enumerate(zip(values, SERIES), 1):
        jitter = [position + 0.18 * (((i * 7919) % 101) / 100.0 - 0.5) for i in range(len(points))]
        axes.scatter(jitter, points, s=12, alpha=0.6, color=colour, linewidths=0)
    axes.set_xticks([1, 2], ["%s\n(%d projects)" % (label, len(points))  # those with some of the unit there
                             for points, (_, _, label) in zip(values, SERIES)])
    axes.set_ylabel(ylabel)
    axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: "%g%s" % (value, unit)))
    axes.set_title(title)


#: What the caption says of the error bars.
WEIGHTING_CAPTION = ("Error bars: 95%% intervals of the %s share and of the median of the projects' shares, %s."
                     % (POOLED_WORDS, PER_PROJECT_WORDS))

#: Where, beside a series' box, its pooled share and its median are drawn with their intervals.
POOLED_OFFSET, MEDIAN_OFFSET = 0.36, -0.36


def _interval_bars(axes: Any, intervals: RunIntervals) -> None:
    """Each series' pooled share (a diamond) right of its box and its median (a square) left of it,
    each with its 95 % interval as an error bar (``WEIGHTING_CAPTION`` names the weightings)."""
    for position, (scope, colour, _) in enumerate(SERIES, 1):
        measure = "pct" if scope == "all" else "nontest_pct"
        for offset, by, marker, words in ((POOLED_OFFSET, intervals.pooled, "D", "pooled"),
                                          (MEDIAN_OFFSET, intervals.median, "s", "median project")):
            interval = by[measure]
            if not interval.known:
                continue
            axes.errorbar([position + offset], [interval.estimate], capsize=4, fmt=marker, color=colour,
                          markeredgecolor="#444444", ecolor="#444444",
                          yerr=[[interval.estimate - interval.low], [interval.high - interval.estimate]],
                          label="%s, 95%% interval" % words if position == 1 else None)
    axes.set_xlim(0.4, len(SERIES) + 0.6)
    if axes.containers:  # room above the points for the legend, so that it hides none
        low, high = axes.get_ylim()
        axes.set_ylim(low, high + 0.3 * (high - low))
        axes.legend(loc="upper center", fontsize="small", framealpha=0.9)


def _length_panel(axes: Any, ecosystem: Dict[str, Any]) -> None:
    longest = 1
    for scope, colour, label in SERIES:
        curve = at_least(ecosystem[scope]["cumulative_by_length"])
        if curve:
            axes.plot([row[0] for row in curve], [row[2] for row in curve], marker="o", markersize=4,
                      color=colour, label="%s: share with identifier length >= n" % label)
            longest = max(longest, curve[-1][0])
    axes.set_xlabel("n (identifier length, characters)")
    axes.set_xlim(0.4, longest + 0.6)
    axes.set_ylabel("% of f(x=x) keyword arguments")
    axes.set_ylim(0, 102)
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: "%d%%" % value))
    axes.grid(axis="y", alpha=0.3)
    axes.set_title("Identifiers at least n characters long, pooled")
    if axes.get_lines():  # a run without any f(x=x) has no curve to name
        axes.legend(loc="upper right")


def ecosystem_plot(records: Sequence[Dict[str, Any]], ecosystem: Dict[str, Any],
                   method: Bootstrap = DEFAULT_BOOTSTRAP, intervals: Optional[RunIntervals] = None) -> Plot:
    """The run's figure (``kind`` ``ecosystem``) and the per-project shares it draws, with the pooled
    share and the median of each series and their 95 % intervals (bootstrapped as ``method`` says,
    or ``intervals`` made already)."""
    data = project_shares(records)
    intervals = intervals if intervals is not None else run_intervals(per_project(records), method)
    with matplotlib.rc_context(STYLE):
        figure = Figure(figsize=(WIDTH * 1.3, 5.6), dpi=DPI)
        FigureCanvasAgg(figure)
        left, right = figure.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.3]})
        _per_project_panel(left, data)
        _interval_bars(left, intervals)
        _length_panel(right, ecosystem)
        figure.suptitle("f(x=x) in %s (list of %s)"
                        % (figure_text(population(ecosystem, short=True)),
                           figure_text(str(ecosystem["list"]["last_update"])[:10])))
    caption(figure, [run_provenance(ecosystem), "%s %s" % (WEIGHTING_CAPTION, method.words())])
    return Plot("ecosystem", run_name(ecosystem), figure, data)


def kind_plot(stored: Any, kind: Kind) -> Plot:
    """The figure of one kind over a run (``kind`` ``<name>``): each project's count measured against
    the kind's unit (``analysis.subject``), in all code and outside tests, a box plot with every
    project a point."""
    frame = subject.per_project(stored.records, kind)
    frame = frame[frame["status"] == "scanned"]
    data = pd.DataFrame({"project": list(frame["project"]), "all": list(frame["measure"]),
                         "nontest": list(frame["measure_nontest"])}).set_index("project")
    words = units.unit_words(kind.per).replace("`", "")
    share = units.is_share(kind.per)
    label = figure_text(kind.label.replace("`", ""))
    with matplotlib.rc_context(STYLE):
        figure = Figure(figsize=(WIDTH, 5.6), dpi=DPI)
        FigureCanvasAgg(figure)
        axes = figure.subplots(1, 1)
        _per_project_panel(axes, data, ("%% of %s" if share else "per million %s") % words,
                           "Each project's %s" % ("share" if share else "rate"), "%" if share else "")
        axes.set_ylim(bottom=0)  # a count is never negative: no axis below 0 when every project has none
        figure.suptitle("%s in %s" % (label, figure_text(population(stored.ecosystem, short=True))))
    caption(figure, [run_provenance(stored.ecosystem)])
    return Plot(kind.name, run_name(stored.ecosystem), figure, data)
