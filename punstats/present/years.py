"""A run over years shown: the trend table, its tidy CSV, the trend figure and the report.

Each takes the ``analysis.years.Trend`` its command computed once (the intervals' bootstrap
included), so a table, its figure and the report that holds both show the same numbers.
``trend_table`` has one row per year: how many of the run's projects had a release by the end of
the year and how many were scanned, how many of those use the kind, its pooled count and measure
against its unit in all code and outside tests, the per-project median, each measure's 95 %
interval (that year's projects resampled), and the files the blob cache answered.
``trend_frame`` is the same, tidy, for CSV (one row per year, the intervals as ``<measure>_low``
and ``<measure>_high`` with the bootstrap's columns).  ``trend_plot`` draws the pooled measure and
the median per year with their intervals above the share of projects using the kind;
``write_report`` writes both in Markdown.
"""
from __future__ import annotations

import os
import shlex
from typing import Any, List, Optional, Tuple

import pandas as pd

from punstats.analysis import units
from punstats.analysis.years import Trend
from punstats.model.escape import figure_text, visible
from punstats.model.intervals import Interval
from punstats.model.kinds import Kind
from punstats.present.ecosystem import run_provenance
from punstats.present.formats import Cell, Code, Label, Percent, Span, Table, count_cell, render_all
from punstats.present.intervals import interval_text
from punstats.present.run_tidy import with_run_columns
from punstats.present.subject import capital, column_words, definition_note, kind_text, measure_cell, measure_header
from punstats.present.tidy import bootstrap_columns, interval_columns
from punstats.sources.pypi import NO_RELEASE_YET
from punstats.store.ecosystem import drawn_at_random, population

#: How a run over years chose each release, in words (``sources.releases``).
RELEASE_WORDS = ("release as it stood at the end of each year (the highest version with a file uploaded by then "
                 "and not yanked, final releases first)")


def _provenance(stored: Any) -> str:
    """What was measured, from the first year's run (every year has the same list and rules)."""
    first = run_provenance(stored.runs[0][1].ecosystem, RELEASE_WORDS)
    return "%s: %s" % (stored.name, first.split(": ", 1)[1])


def _interval_of(row: Any, column: str) -> Interval:
    """The 95 % interval of ``column`` (of ``analysis.years.INTERVALS``) in a row of ``Trend.years``."""
    return Interval(row[column], row[column + "_low"], row[column + "_high"])


def _measure_cells(row: Any, column: str, kind: Kind) -> Tuple[Cell, Cell]:
    """A measure of the year and its 95 % interval."""
    return measure_cell(row[column], kind), Span(interval_text(_interval_of(row, column), not units.is_share(kind.per)))


def _row(row: Any, kind: Kind) -> Tuple[Cell, ...]:
    return (Label(str(row["year"])), row["released"], row["scanned"], row["with_matches"], Percent(row["using_pct"]),
            count_cell(row["count"]), count_cell(row["unit"]), *_measure_cells(row, "measure", kind),
            *_measure_cells(row, "measure_nontest", kind), *_measure_cells(row, "median", kind), row["files_cached"],
            row["files_extracted"])


def trend_table(stored: Any, trend: Trend) -> Table:
    """One row per year of the run over years ``stored``: the kind's ``trend`` (``analysis.years.trend``)."""
    kind, first = trend.kind, stored.runs[0][1].ecosystem
    interval = Label("95% interval")
    header = (Label("Year"), Label("With a release"), Label("Scanned"), Label("Using it"), Label("% using it"),
              Label("Count"), Label(capital(units.unit_words(kind.per))), measure_header(kind), interval,
              measure_header(kind, True), interval, Label("Per-project median"), interval, Label("Files cached"),
              Label("Files extracted"))
    absent = ("Each year holds the %d projects of the list; one with no release by the end of a year is absent "
              "that year (With a release: how many had one; Using it: the scanned projects with at least one; "
              "Files cached: the files the blob cache answered, unchanged since an earlier year or project)."
              % int(first["asked"]))
    # the same bootstrap as the year's folder alone: its table gives these intervals too
    intervals = ("A year's intervals resample that year's scanned projects, as the table of its folder alone "
                 "(with --kind) does. %s" % trend.method.words())
    notes = ("%s %s %s %s" % (_provenance(stored), absent, intervals, definition_note(kind)),)
    return Table(header=header, rows=tuple(_row(r, kind) for r in trend.years.to_dict("records")), notes=notes,
                 title_note=0, title=(kind_text(kind), Label(" per year in %s" % population(first, short=True))))


def projects_table(stored: Any, trend: Trend, top: Optional[int] = None) -> Table:
    """Each project of ``stored`` (the first ``top``) and its measure of the kind in each year: blank
    where it had no release by the end of that year, n/a where it was not scanned or had none of the unit."""
    kind, frame = trend.kind, trend.projects
    absent = frame["reason"] == NO_RELEASE_YET
    cells = {(row["rank"], year): Label("") if gone else measure_cell(row["measure"], kind)
             for (year, gone), row in zip(zip(frame["year"], absent), frame.to_dict("records"))}
    first = stored.runs[0][1].records
    shown = first if top is None else first[:top]
    rows = tuple((r["rank"], Code(r["project"]), *[cells[r["rank"], year] for year, _ in stored.runs]) for r in shown)
    rank = Label("Drawn" if drawn_at_random(stored.runs[0][1].ecosystem) else "Rank")
    header = (rank, Label("Project"), *[Label(str(year)) for year, _ in stored.runs])
    note = ("%s of each project at the end of each year: blank, no release by then; n/a, not scanned or none of "
            "the unit.%s" % (measure_header(kind).text, "" if len(shown) == len(first) else
                             " The first %d of the %d projects." % (len(shown), len(first))))
    return Table(header=header, rows=rows, notes=(note,), title_note=0,
                 title=(kind_text(kind), Label(" per project and year")))


def trend_frame(stored: Any, trend: Trend) -> pd.DataFrame:
    """``trend_table`` as a tidy frame: one row per year, snake_case names, numbers as numbers, each
    interval as ``<measure>_low`` and ``<measure>_high`` (as a run's CSV has them), then the bootstrap's
    columns."""
    kind, frame = trend.kind, trend.years.copy()
    unit, measured = column_words(kind)
    names = {"measure": measured, "measure_nontest": measured + "_nontest", "median": "median_" + measured,
             "median_nontest": "median_%s_nontest" % measured}
    rows = frame.to_dict("records")
    for column, name in names.items():  # each interval rounded as every CSV's (``tidy.interval_columns``)
        bounds = pd.DataFrame([interval_columns(name, _interval_of(row, column)) for row in rows], index=frame.index)
        frame[column + "_low"], frame[column + "_high"] = bounds[name + "_low"], bounds[name + "_high"]
    renamed = {old + end: new + end for old, new in names.items() for end in ("", "_low", "_high")}
    frame = frame.rename(columns={"unit": unit, "unit_nontest": unit + "_nontest", **renamed})
    frame.insert(1, "kind", kind.name)
    frame.insert(0, "run", stored.name)
    frame["releases"] = stored.description["releases"]
    frame = frame.assign(**bootstrap_columns(trend.method))
    # what was measured, in the columns a run's CSV says it in
    return with_run_columns(frame, stored.runs[0][1].ecosystem)


def trend_plot(stored: Any, trend: Trend) -> Any:
    """The kind per year: its pooled measure (all code, outside tests) and the per-project median,
    each with its 95 % interval, above the share of scanned projects using it below."""
    import matplotlib
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from punstats.present.figure import DPI, STYLE, WIDTH, Plot, caption
    kind, frame = trend.kind, trend.years
    with matplotlib.rc_context(STYLE):
        figure = Figure(figsize=(WIDTH, 6.4), dpi=DPI)
        FigureCanvasAgg(figure)
        axes, below = figure.subplots(2, 1, sharex=True)
        _draw(axes, below, frame, kind)
        label = figure_text(kind.label.replace("`", ""))
        figure.suptitle("%s per year in %s" % (label, figure_text(population(stored.runs[0][1].ecosystem,
                                                                                   short=True))))
    caption(figure, [_provenance(stored), "Vertical bars: %s" % trend.method.words(),
                     "Above each bar: projects scanned / projects with a release that year."])
    return Plot("%s-trend" % kind.name, stored.name, figure, frame.set_index("year"))


#: The lines of the trend figure: (column of ``Trend.years``, its code (the colour), style, label,
#: offset in years).
SERIES = (("measure", "all", "-", "pooled, all code", -0.08),
          ("measure_nontest", "nontest", "-", "pooled, outside tests", 0.0),
          ("median", "all", ":", "per-project median, all code", 0.08))


def _draw(axes: Any, below: Any, frame: pd.DataFrame, kind: Kind) -> None:
    """The measures per year on ``axes``, the share of projects using the kind on ``below``."""
    from punstats.present.figure import ALL_CODE_COLOUR, OUTSIDE_TESTS_COLOUR
    share = units.is_share(kind.per)
    colours = {"all": ALL_CODE_COLOUR, "nontest": OUTSIDE_TESTS_COLOUR}
    for column, scope, style, label, offset in SERIES:
        colour = colours[scope]
        # side by side, so that the intervals of one year do not hide each other
        x = frame["year"] + offset
        axes.plot(x, frame[column], style, marker="o", color=colour, label=label)
        axes.vlines(x, frame[column + "_low"], frame[column + "_high"], color=colour, linewidth=1.5, alpha=0.7)
    words = units.unit_words(kind.per).replace("`", "")
    axes.set_ylabel(("%% of %s" if share else "per million %s") % words)
    axes.set_ylim(bottom=0)
    axes.legend(loc="best", fontsize="small")
    # a year with no project scanned has no bar
    using = frame["using_pct"].fillna(0.0)
    below.bar(frame["year"], using, color=ALL_CODE_COLOUR)
    below.set_ylabel("% of projects using it")
    # room for the counts above a full bar
    below.set_ylim(0, 115)
    below.set_xlabel("year (each project's release at its end)")
    below.set_xticks(list(frame["year"]))
    for x, height, scanned, released in zip(frame["year"], using, frame["scanned"], frame["released"]):
        below.annotate("%d/%d" % (scanned, released), (x, height + 2), ha="center", fontsize="x-small")


#: The projects a report lists by default (it fits one forum post); ``--top`` chooses another number.
REPORT_PROJECTS = 20


def report_text(stored: Any, trend: Trend, figure: Optional[str] = None, links: bool = False,
                top: Optional[int] = None) -> str:
    """The Markdown report of a run over years about ``trend``'s kind: the trend table and its figure."""
    from punstats.present.ecosystem_report import reproduce_commands
    from punstats.present.subject_report import prose
    kind = trend.kind
    lines: List[str] = ["# %s per year in %s" % (prose(kind.label), population(stored.runs[0][1].ecosystem, True)),
                        ""]
    if figure:
        lines += ["![%s per year](%s)" % (kind.name, figure), ""]
    tables = [trend_table(stored, trend), projects_table(stored, trend, top or REPORT_PROJECTS)]
    lines += [render_all(tables, "markdown", links=links).rstrip("\n"), "",
              "Each year is an ordinary run in its own folder (`%s/YEAR`): `punstats table`, `plot` and `report` "
              "of that folder show the year alone, project by project." % stored.name, ""]
    again = reproduce_commands(stored.runs[0][1], stored.name, stored.description["releases"])[:1] + [
        shlex.join(["punstats", "report", os.path.join("data", stored.name), "--kind", kind.name])]
    lines += ["## Reproduce", "", "```sh\n%s\n```" % "\n".join(visible(line) for line in again), ""]
    return "\n".join(lines)


def write_report(stored: Any, trend: Trend, path: Optional[str] = None, figures: bool = True,
                 figures_dir: Optional[str] = None, embed: bool = False, links: bool = False,
                 top: Optional[int] = None) -> str:
    """The report of ``stored`` about ``trend``'s kind written to ``path`` (default ``reports/<name>.md``),
    its figure and its tables made of the one ``trend``; the path."""
    from punstats.present.ecosystem_report import DEFAULT_DIRECTORY, figure_address, write_text
    path = path or os.path.join(DEFAULT_DIRECTORY, "%s.md" % stored.name)
    figure = figure_address(trend_plot(stored, trend), path, figures_dir, embed) if figures else None
    return write_text(path, report_text(stored, trend, figure, links, top))
