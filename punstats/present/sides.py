"""Any stored scans, ecosystem runs and histories side by side: one table, its tidy CSV and a report.

``cli.compare`` reads each directory as what it is and reduces it to an
``analysis.sides.Side`` about one kind, with what the report says of it (an
``Input``).  ``comparison_table`` lines them up, one column
per input and one per difference from the first (its 95 % interval and a
permutation test's p-value), every weighting named; ``comparison_frame`` is
the same numbers as a tidy table, one row per input and measure;
``render_report`` the Markdown report, sized for one forum post.
"""
from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from typing import Any, Dict, List, Sequence, Tuple

import pandas as pd

from punstats.analysis import units
from punstats.analysis.sides import HISTORY, MEASURES, RUN, SCAN, Compared, Comparison, Side
from punstats.model.intervals import Difference, Interval
from punstats.model.kinds import Kind
from punstats.present.formats import Cell, Label, Percent, Rate, Span, Table, count_cell, percent_text, rate_text
from punstats.present.intervals import PER_PROJECT_WORDS, POOLED_WORDS, WEIGHTING_NOTE
from punstats.present.subject import capital, kind_text

#: The sort of each input, in words.
SORT_WORDS = {SCAN: "one scan", RUN: "an ecosystem run", HISTORY: "a history's newest revision"}


@dataclass(frozen=True)
class Input:
    """A directory given to a comparison, read: its ``side`` and the commands that make it again."""

    directory: str
    side: Side
    commands: Tuple[str, ...]
    measured: Tuple[str, ...]
    #: What it measured as tidy columns (``present.tidy.PROVENANCE_COLUMNS``).
    columns: Dict[str, Any]


def _measure_cell(value: float, measure: str, kind: Kind) -> Cell:
    return Percent(value) if measure != "per_million" and units.is_share(kind.per) else Rate(value)


def _value_text(value: float, measure: str, kind: Kind) -> str:
    return percent_text(value) if measure != "per_million" and units.is_share(kind.per) else rate_text(value)


def interval_words(interval: Interval, measure: str, kind: Kind) -> str:
    """``9.10% to 10.40%``, or n/a."""
    if not interval.known:
        return "n/a"
    return "%s to %s" % (_value_text(interval.low, measure, kind), _value_text(interval.high, measure, kind))


def _signed(value: float, measure: str, kind: Kind) -> str:
    """A difference: ``+10.05 points`` (of a share in %) or ``+8,556`` (a rate); n/a for NaN."""
    if value != value:
        return "n/a"
    share = measure != "per_million" and units.is_share(kind.per)
    text = "%.2f" % abs(value) if share else rate_text(abs(value))
    return "%s%s%s" % ("-" if value < 0 else "+", text, " points" if share else "")


def difference_words(found: Difference, measure: str, kind: Kind) -> str:
    """A difference's 95 % interval: ``+8.10 to +12.00 points``, or n/a."""
    if found.low != found.low:
        return "n/a"
    low, high = _signed(found.low, measure, kind), _signed(found.high, measure, kind)
    return "%s to %s" % (low.replace(" points", ""), high)


def p_words(found: Difference) -> str:
    """A permutation test's p-value as written: ``0.0002`` (four decimals, never 0), or n/a."""
    if found.p_value != found.p_value:
        return "n/a"
    return "%.4f" % found.p_value if found.p_value >= 0.0001 else "< 0.0001"


def _measure_words(kind: Kind, measure: str) -> str:
    """What a measure row is: "share of keyword arguments, all code", "per million lines of code"."""
    if measure == "per_million":
        return "per million lines of code"
    scope = "outside tests" if measure.endswith("_nontest") else "all code"
    return "%s, %s" % (units.measure_words(kind.per).replace("`", "") if not units.is_share(kind.per)
                       else "share of " + units.unit_words(kind.per).replace("`", ""), scope)


def _count_rows(comparison: Comparison, blank: List[Cell]) -> List[Tuple[Cell, ...]]:
    kind = comparison.kind
    unit = units.unit_words(kind.per)
    rows: List[Tuple[Cell, ...]] = [
        (Label("What it is"), *[Label(SORT_WORDS[c.side.sort]) for c in comparison.sides], *blank),
        (Label("Projects scanned"), *[_projects(c.side) for c in comparison.sides], *blank),
        (Label("Parsed files"), *[count_cell(c.side.files) for c in comparison.sides], *blank),
        (Label("Lines of code"), *[count_cell(c.side.totals.get("code_lines")) for c in comparison.sides], *blank)]
    for scope, suffix in (("all code", ""), ("outside tests", "_nontest")):
        rows.append((Label("%s, %s" % (capital(unit), scope)),
                     *[count_cell(c.side.totals.get("unit" + suffix)) for c in comparison.sides], *blank))
        rows.append((_with(kind_text(kind), ", " + scope),
                     *[count_cell(c.side.totals.get("count" + suffix)) for c in comparison.sides], *blank))
    return rows


def _measure_rows(comparison: Comparison, measure: str) -> List[Tuple[Cell, ...]]:
    kind, sides, differences = comparison.kind, comparison.sides, comparison.differences
    words = _measure_words(kind, measure)
    pooled_row = (Label("%s, %s" % (capital(words), POOLED_WORDS)),
                  *[_measure_cell(c.pooled[measure].estimate, measure, kind) for c in sides],
                  *[Label(_signed(d[measure].estimate, measure, kind)) for d in differences])
    interval_row = (Label("95% interval"), *[Span(interval_words(c.pooled[measure], measure, kind)) for c in sides],
                    *[Span(difference_words(d[measure], measure, kind)) for d in differences])
    p_row = (Label("p-value, permutation test"), *[Label("")] * len(sides), *[Label(p_words(d[measure]))
                                                                            for d in differences])
    rows = [pooled_row, interval_row, p_row] if differences else [pooled_row, interval_row]
    if any(c.side.sort == RUN for c in sides):
        medians = comparison.median_differences
        rows += [(Label("%s, median %s" % (capital(words), PER_PROJECT_WORDS)),
                  *[_median_cell(c, measure, kind) for c in sides],
                  *[Label(_signed(d[measure].estimate, measure, kind)) for d in medians]),
                 (Label("95% interval of the median"),
                  *[Span(interval_words(c.median[measure], measure, kind)) for c in sides],
                  *[Span(difference_words(d[measure], measure, kind)) for d in medians]),
                 (Label("p-value of the medians' difference, permutation test"), *[Label("")] * len(sides),
                  *[Label(p_words(d[measure])) for d in medians]),
                 (Label("Quartiles of the projects' own"), *[Span(_quartiles(c, measure, kind)) for c in sides],
                  *[Label("")] * len(differences))]
    return rows


def _projects(side: Side) -> Cell:
    """A run's scanned projects of those it listed (``494 of 500``); 1 for a scan or a history."""
    return Label("%s of %s" % (format(side.projects, ","), format(side.asked, ","))) \
        if side.asked != side.projects else side.projects


def _quartiles(compared: Compared, measure: str, kind: Kind) -> str:
    """A run's first and third quartile of its projects' own values (those with some of the unit)."""
    found = compared.side.quartiles(measure) if compared.side.sort == RUN else None
    if found is None:
        return "n/a"
    return "%s to %s" % (_value_text(found[0], measure, kind), _value_text(found[1], measure, kind))


def _with(text: Any, words: str) -> Any:
    """``text`` (a kind's label as ``kind_text`` gives it) followed by punstats' own ``words``."""
    return Label(text.text + words) if isinstance(text, Label) else text + words


def _median_cell(compared: Compared, measure: str, kind: Kind) -> Cell:
    if compared.side.sort != RUN:
        return Label("n/a (one project)")
    return _measure_cell(compared.median[measure].estimate, measure, kind)


def comparison_table(comparison: Comparison) -> Table:
    """The inputs side by side: their counts, then per measure the pooled value and its interval, the
    per-project median of runs and its interval; one column per difference from the first input."""
    sides = comparison.sides
    first = sides[0].side.name
    header: Tuple[Any, ...] = (Label(""), *[c.side.name for c in sides],
                               *["%s - %s" % (first, c.side.name) for c in sides[1:]])
    blank: List[Cell] = [Label("")] * (len(sides) - 1)
    rows = _count_rows(comparison, blank)
    for measure in comparison.measures():
        rows += _measure_rows(comparison, measure)
    notes = tuple(c.side.provenance for c in sides) + (method_note(comparison),)
    kind = comparison.kind
    return Table(header=header, rows=tuple(rows), notes=notes,
                 header_notes=(len(notes) - 1, *range(len(sides)), *[None] * (len(sides) - 1)),
                 title=(kind_text(kind), Label(" side by side")))


def method_note(comparison: Comparison) -> str:
    """How the intervals, the differences and the p-values were made, and what the weightings mean."""
    method = comparison.method
    units_used = sorted({c.side.unit for c in comparison.sides if c.side.unit})
    unit_text = " and ".join(units_used) if units_used else "nothing"
    no_interval = [c.side.name for c in comparison.sides if not c.side.unit]
    return ("95%% intervals: percentile bootstrap, %s resamples with replacement of each input's units (a "
            "run's projects, a scan's files; here %s), seed %d. A difference is the first input's pooled value minus "
            "the other's; its interval resamples each input on its own; its p-value is that of a two-sided "
            "permutation test (%s shuffles of the units between the two inputs), given where both have units "
            "of one sort. %s%s" % (
                format(method.resamples, ","), unit_text, method.seed, format(comparison.permutations, ","),
                WEIGHTING_NOTE,
                " No interval for %s: a history keeps each revision's totals, not its files." % ", ".join(no_interval)
                if no_interval else ""))


def comparison_frame(comparison: Comparison, inputs: Sequence[Input] = ()) -> pd.DataFrame:
    """The comparison as a tidy table: one row per input and measure, with its counts, the pooled
    value (``pooled``, ``pooled_low``, ``pooled_high``), a run's median, its interval and quartiles, the
    difference of the first input minus it with its interval and p-value, and how all were made
    (with ``inputs``, also what each measured, in ``present.tidy.PROVENANCE_COLUMNS``)."""
    rows = []
    first = comparison.sides[0].side.name
    for index, compared in enumerate(comparison.sides):
        side = compared.side
        for measure in comparison.measures():
            found = comparison.differences[index - 1][measure] if index else None
            medians = comparison.median_differences[index - 1][measure] if index else None
            quartiles = side.quartiles(measure) if side.sort == RUN else None
            part, whole = MEASURES[measure]
            rows.append({
                "input": side.name, "sort": side.sort, "kind": comparison.kind.name, "measure": measure,
                "count": side.totals.get(part), "of": side.totals.get(whole), "projects": side.projects,
                "files": side.files, "pooled": compared.pooled[measure].estimate,
                "pooled_low": compared.pooled[measure].low, "pooled_high": compared.pooled[measure].high,
                "median": compared.median[measure].estimate, "median_low": compared.median[measure].low,
                "median_high": compared.median[measure].high,
                "q1": quartiles[0] if quartiles else float("nan"), "q3": quartiles[1] if quartiles else float("nan"),
                "difference_from": first if found else "",
                "difference": found.estimate if found else float("nan"),
                "difference_low": found.low if found else float("nan"),
                "difference_high": found.high if found else float("nan"),
                "p_value": found.p_value if found else float("nan"),
                "median_difference": medians.estimate if medians else float("nan"),
                "median_difference_low": medians.low if medians else float("nan"),
                "median_difference_high": medians.high if medians else float("nan"),
                "median_p_value": medians.p_value if medians else float("nan"),
                "permutations": found.permutations if found else 0, "resampled": side.unit,
                "resamples": comparison.method.resamples, "seed": comparison.method.seed,
                "provenance": side.provenance, **(inputs[index].columns if inputs else {})})
    frame = pd.DataFrame(rows)
    for column in ("count", "of", "files"):
        frame[column] = frame[column].astype("Int64")
    return frame


def headline(comparison: Comparison) -> str:
    """The sentence a forum post quotes: the outside-tests measure of each input with its interval,
    then each difference from the first with its interval and p-value, then each run's median."""
    kind = comparison.kind
    measure = "measure_nontest"
    name = kind_name(kind)
    unit = units.unit_words(kind.per)
    subject = ("the share of %s that are %s" % (unit, name) if units.is_share(kind.per)
               else "%s per million %s" % (name, unit))
    parts = ["**%s** in %s (95%% interval %s)" % (
        _value_text(c.pooled[measure].estimate, measure, kind), c.side.name,
        interval_words(c.pooled[measure], measure, kind)) for c in comparison.sides]
    text = "Outside tests, pooled (every occurrence counts once), %s is %s." % (subject, "; ".join(parts))
    for compared, by_measure in zip(comparison.sides[1:], comparison.differences):
        found = by_measure[measure]
        tested = "permutation test p = %s" % p_words(found) if found.p_value == found.p_value else \
            "no permutation test: %s against %s" % (comparison.sides[0].side.unit or "no units",
                                                    compared.side.unit or "no units")
        text += " %s minus %s: **%s** (95%% interval %s; %s)." % (
            comparison.sides[0].side.name, compared.side.name, _signed(found.estimate, measure, kind),
            difference_words(found, measure, kind), tested)
    medians = [c for c in comparison.sides if c.side.sort == RUN]
    if medians:
        text += " Per project (every project counts once), the median is %s." % "; ".join(
            "%s in %s (95%% interval %s)" % (_value_text(c.median[measure].estimate, measure, kind), c.side.name,
                                             interval_words(c.median[measure], measure, kind)) for c in medians)
    for compared, by_measure in zip(comparison.sides[1:], comparison.median_differences):
        found = by_measure[measure]
        if found.estimate == found.estimate:
            text += " %s's median minus %s's: **%s** (95%% interval %s; permutation test p = %s)." % (
                comparison.sides[0].side.name, compared.side.name, _signed(found.estimate, measure, kind),
                difference_words(found, measure, kind), p_words(found))
    return text


def kind_name(kind: Kind) -> str:
    """What prose calls a kind: ``f(x=x)`` for the headline, a pattern by its name, a built-in row by
    its label."""
    from punstats.model.kinds import KIND_CALL
    return "`f(x=x)`" if kind.name == KIND_CALL else "`%s`" % kind.name if kind.user else kind.label


#: What a report about ``f(x=x)`` says the kind is.
PEP_736 = ("Keyword arguments of the form `f(x=x)` are the ones [PEP 736](https://peps.python.org/pep-0736/) "
           "proposed to shorten to `f(x=)`.")


def render_report(comparison: Comparison, inputs: Sequence[Input], figures: Sequence[Tuple[str, str]] = (),
                  links: bool = False, output: str = "") -> str:
    """The comparison as Markdown sized for one forum post: the headline, the table, the figures
    (``(address, caption)``), what each input measured, the method and the commands (``output``:
    where the report was asked to be written, given again in its command when relative)."""
    from punstats.model.escape import visible
    from punstats.model.kinds import KIND_CALL
    from punstats.present.formats import render
    from punstats.present.report import portable
    from punstats.present.subject import definition_note

    kind = comparison.kind
    names = [c.side.name for c in comparison.sides]
    report = ["punstats", "report", *[_shown_dir(i) for i in inputs]]
    if output and portable(output):
        report += ["-o", portable(output) or output]
    parts = ["# %s in %s" % (kind_name(kind), ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1
                             else names[0]),
             "Written by `punstats report`. %s" % (PEP_736 if kind.name == KIND_CALL else definition_note(kind)),
             "## Headline", headline(comparison),
             render(comparison_table(comparison), "markdown", links=links).rstrip("\n")]
    parts += ["![%s](%s)\n\n*%s*" % (caption, address, caption) for address, caption in figures]
    parts += ["## What was measured", "\n".join(line for found in inputs for line in found.measured),
              "## How the uncertainty was measured", METHOD,
              "## Reproduce", "```sh\n%s\n```" % "\n".join(
                  visible(line) for line in [*[c for i in inputs for c in i.commands], shlex.join(report)])]
    return "\n\n".join(parts) + "\n"


def _shown_dir(found: Input) -> str:
    from punstats.present.report import portable
    return portable(found.directory) or os.path.basename(found.directory.rstrip("/"))


#: The method in a few sentences, with references, as the README gives it.
METHOD = ("A run's projects are a sample, and one project's occurrences are not independent of each other, so "
          "the unit of resampling is the project: a cluster bootstrap (Field & Welsh 2007, \"Bootstrapping "
          "clustered data\", JRSS B 69(3); Davison & Hinkley 1997, *Bootstrap Methods and their Application*, "
          "ch. 3.8). A single scan is one project: its files are resampled instead, so its interval says how "
          "much another set of files of the same kind could move its share, not another project. The pooled "
          "value counts every occurrence once (big projects weigh more); the median counts every project "
          "once. A difference's p-value comes from a permutation test: the units' labels are shuffled between "
          "the two inputs and the pooled difference computed again (Good 2005, *Permutation, Parametric and "
          "Bootstrap Tests of Hypotheses*).")
