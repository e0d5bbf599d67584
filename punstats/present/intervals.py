"""How a run's 95 % intervals and its two weightings are said: in words, as table rows, as console lines.

The intervals themselves are computed in ``analysis.uncertainty`` (a bootstrap over projects,
or over files for one scan); this module only words them, for ``present.ecosystem``,
``present.subject``, the run report and the run figure alike.
"""
from __future__ import annotations

from typing import Dict, List, Tuple

from punstats.analysis.uncertainty import RunIntervals
from punstats.model.intervals import Interval
from punstats.present.formats import Cell, Label, Percent, Rate, Span, percent_text, rate_text

#: How a run's two weightings are named wherever its share appears.
POOLED_WORDS = "pooled (every occurrence counts once)"
PER_PROJECT_WORDS = "per project (every project counts once)"

#: What the two weightings mean, in a table's note.
WEIGHTING_NOTE = ("Pooled: all the projects' occurrences over all their keyword arguments (or lines), so a big "
                  "project weighs more; per project: the median of the projects' own shares, each project "
                  "counting once (projects with none of the denominator left out).")


def interval_text(interval: Interval, rate: bool = False) -> str:
    """A 95 % interval in words: ``9.10% to 10.40%`` (a rate: ``1,234 to 1,560``), or n/a."""
    if not interval.known:
        return "n/a"
    text = rate_text if rate else percent_text
    return "%s to %s" % (text(interval.low), text(interval.high))


def interval_rows(intervals: RunIntervals) -> List[Tuple[Cell, ...]]:
    """The rows under a run's pooled row of ``project_table``: the pooled share's 95 % interval, the
    median project's share and its interval, in the share, outside-tests and per-million columns."""
    def cells(by: Dict[str, Interval], estimate: bool) -> List[Cell]:
        if estimate:
            return [Percent(by["pct"].estimate), Percent(by["nontest_pct"].estimate), Rate(by["per_million"].estimate)]
        return [Span(interval_text(by["pct"])), Span(interval_text(by["nontest_pct"])),
                Span(interval_text(by["per_million"], rate=True))]

    blank: List[Cell] = [Label("")] * 3
    unit = intervals.method.unit
    return [(Label(""), Label("95%% interval of the pooled (bootstrap over %s)" % unit), *[Label("")] * 4,
             *cells(intervals.pooled, False)),
            (Label(""), Label("Median, %s" % PER_PROJECT_WORDS), Label(""), *blank, *cells(intervals.median, True)),
            (Label(""), Label("95%% interval of the median (bootstrap over %s)" % unit), *[Label("")] * 4,
             *cells(intervals.median, False))]


def interval_lines(intervals: RunIntervals) -> List[str]:
    """The console lines of a run's 95 % intervals: pooled and per-project median, in all code and
    outside tests, then how they were made."""
    lines = []
    for measure, label in (("pct", "all code"), ("nontest_pct", "outside tests")):
        lines.append("  %-13s 95%% interval: pooled %s, per-project median %s" % (
            label, interval_text(intervals.pooled[measure]), interval_text(intervals.median[measure])))
    return lines + ["  %s" % intervals.method.words()]
