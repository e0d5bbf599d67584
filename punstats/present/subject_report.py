"""The Markdown report about one kind: ``report DIR --kind NAME`` (by default a run's or scans' one pattern).

This module owns the wording of a report whose subject is not ``f(x=x)``: it
is headed by the kind's label, says where its definition comes from (source,
sha256, the ``ast`` classes its matcher is called for) and quotes that
definition in its own words (the pattern's docstring), gives its count
measured against its unit (``analysis.subject``: a share in % of a unit of
syntax, a rate per million lines or files) pooled and outside tests, then per
project (``present.subject``), and keeps what was measured and how to
reproduce it.  The ``f(x=x)`` sections (identifier lengths, identifiers,
callees) are left out: a kind need not have names.  A run's report fits one
forum post as ``present.ecosystem_report`` fits it; the text of the pattern
(its label, its docstring) is escaped for Markdown.
"""
from __future__ import annotations

import os
import re
import shlex
from typing import Any, List, Optional, Sequence

from punstats.analysis import subject, units
from punstats.model.escape import markdown_code, markdown_text, visible
from punstats.model.intervals import DEFAULT_BOOTSTRAP, Bootstrap
from punstats.model.kinds import Kind
from punstats.present import ecosystem_report
from punstats.present.commands import commands, shown_source
from punstats.present.formats import Table, count_text, percent_text, rate_text, render
from punstats.present.provenance import column_names
from punstats.present.report import REPRODUCE, portable, what_was_measured
from punstats.present.run_labels import labels_section, sheets_in
from punstats.present.subject import project_table, scan_counts, scans_table
from punstats.store.ecosystem import population

DEFAULT_DIRECTORY = "reports"

#: The confidence of the upper bound given when nothing was found (the rule of three: 3/n).
NONE_FOUND_BOUND = 3.0


#: How a run's headline begins: how many projects were pooled, and the weighting.
POOLED_OVER = "Pooled over the %s scanned projects (every occurrence counts once, so big projects weigh more), "


def report_path(name: str, kind: Kind, directory: str = DEFAULT_DIRECTORY) -> str:
    """Where the report about ``kind`` of a run or scans called ``name`` goes by default:
    ``reports/top-pypi-30-return-in-finally.md``."""
    return os.path.join(directory, "%s-%s.md" % (name, kind.name.replace("_", "-")))


def measure_text(value: float, kind: Kind) -> str:
    """A measure in words: "1.23 per million lines of code", "4.56% of `Try` nodes"; "n/a" for NaN."""
    if value != value:
        return "n/a"
    if units.is_share(kind.per):
        return "%s of %s" % (percent_text(value), units.unit_words(kind.per))
    return "%s per million %s" % (rate_text(value), units.unit_words(kind.per))


def definition_lines(kind: Kind) -> List[str]:
    """Where the kind comes from and what it counts, its definition quoted in its own words."""
    if not kind.user:
        lines = ["- **The kind:** %s, built into punstats, defined in %s; its count is measured against %s." % (
            markdown_code(kind.name), markdown_code(kind.module or "punstats"), units.unit_words(kind.per))]
        return lines + _quoted(kind, "as written in its module")
    on = ", ".join(markdown_code("ast." + cls.__name__) for cls in kind.on) if kind.on else "every node"
    lines = ["- **The kind:** %s, a pattern given with `--pattern`: %s, sha256 %s; its matcher is called for %s. "
             "Files are parsed with `ast`, never imported or run." % (
                 markdown_code(kind.name), markdown_code(shown_source(kind.source)),
                 markdown_code(kind.sha256 or "not recorded"), on),
             "- **Measured against:** %s." % ("its share in % of " + units.unit_words(kind.per)
                                              if units.is_share(kind.per)
                                              else "its rate per million " + units.unit_words(kind.per))]
    return lines + _quoted(kind, "the pattern's docstring")


def _quoted(kind: Kind, whose: str) -> List[str]:
    """The kind's definition in its own words (``whose``: where they are written), quoted; none if it has none."""
    if not kind.doc:
        return []
    quoted = "\n>\n".join("> " + prose(" ".join(paragraph.split()))
                          for paragraph in kind.doc.split("\n\n") if paragraph.strip())
    return ["- **Its definition, in its own words** (%s):" % whose, "", quoted]


def headline(counts: dict, kind: Kind, test_rule: str, where: str) -> str:
    """The sentence a PEP author quotes: the measure outside tests, then in all code; for none
    found, the upper bound the lines (or nodes) read put on it."""
    text = ("%s**%s** outside tests (%s in %s %s; test rule %s); in all code, **%s** (%s in %s)." % (
        where, measure_text(counts["measure_nontest"], kind), count_text(counts["count_nontest"]),
        count_text(counts["unit_nontest"]),
        units.unit_words(kind.per), markdown_code(test_rule), measure_text(counts["measure"], kind),
        count_text(counts["count"]), count_text(counts["unit"])))
    if counts["count"] == 0 and counts["unit"]:
        bound = (100.0 if units.is_share(kind.per) else 1e6) * NONE_FOUND_BOUND / counts["unit"]
        text += (" None was found: with none in %s %s, the rate is below %s at 95%% confidence (the rule of "
                 "three, 3/n, treating each as an independent chance)." % (
                     count_text(counts["unit"]), units.unit_words(kind.per), measure_text(bound, kind)))
    return text


#: A code span in a pattern's words: reST's ``code`` (a docstring) or Markdown's `code` (a label).
_CODE = re.compile(r"``(.+?)``|`([^`]+)`")


def prose(text: str) -> str:
    """A pattern's own words (its label, its docstring) as Markdown on one line: its code spans as
    code spans (``markdown_code``), the rest escaped (``markdown_text``), so no markup of its own.
    Words whose backticks do not pair up (``a ` b``) are no code at all: every backtick is shown."""
    parts, start = [], 0
    for match in _CODE.finditer(text):
        between = text[start:match.start()]
        if "`" in between:
            break
        parts += [markdown_text(between), markdown_code(match.group(1) or match.group(2))]
        start = match.end()
    rest = text[start:]
    return markdown_text(text) if "`" in rest else "".join(parts) + markdown_text(rest)


def render_run(stored: Any, kind: Kind, figure: Optional[str] = None, top: Optional[int] = None,
               links: bool = False, method: Bootstrap = DEFAULT_BOOTSTRAP) -> str:
    """The report of a run about ``kind``; ``figure``: the figure's address; ``top``: the projects
    listed (default: as many as fit one post, ``ecosystem_report.fitted``); ``method``: the bootstrap
    of its table's intervals."""
    def table(t: Table) -> str:
        return render(t, "markdown", links=links).rstrip("\n")

    ecosystem = stored.ecosystem
    frame = subject.per_project(stored.records, kind)
    pooled = subject.pooled(frame, kind)
    intervals = subject.kind_intervals(frame, kind, method)  # once, for every length the listing is tried at
    rule = str((ecosystem.get("rules") or {}).get("test_rule", "?"))
    spread = ("%s of the %s scanned projects %s. Per project (every project counts once), the median is %s "
              "(outside tests, %s)."
              % (format(pooled["with_matches"], ",") if pooled["with_matches"] else "None",
                 format(pooled["projects"], ","),
                 "has one" if pooled["with_matches"] < 2 else "have at least one",
                 measure_text(pooled["median"], kind), measure_text(pooled["median_nontest"], kind)))
    head = ["# %s in %s" % (prose(kind.label), population(ecosystem, short=True)),
            "Written by `punstats report`: one kind over a run of `punstats corpus`.",
            "\n".join(definition_lines(kind)), "## Headline",
            headline(pooled, kind, rule, POOLED_OVER % format(pooled["projects"], ",")) + " " + spread,
            "## Projects"]
    caption = "Each project's %s, in all code and outside tests (a box plot, every project a point)." % (
        _measured(kind))
    again = ecosystem_report.reproduce_commands(stored)[:1] + [
        shlex.join(["punstats", "report", os.path.join("data", stored.name), "--kind", kind.name])]
    tail = ["![%s](%s)\n\n*%s*" % (caption, figure, caption) if figure else "",
            *labels_section(sheets_in([stored.directory], [None], kind.name), table),
            "## What was measured", "\n".join(ecosystem_report.measured_lines(stored)),
            "## Reproduce", "```sh\n%s\n```" % "\n".join(visible(line) for line in again)]

    def listing(shown_top: Optional[int], fitted: bool = False) -> str:
        note = ecosystem_report.fitted_note(stored, shown_top) if fitted and shown_top is not None else ""
        parts = head + [note, table(project_table(stored, kind, shown_top, method, intervals))] + tail
        return "\n\n".join(part for part in parts if part) + "\n"

    return ecosystem_report.fitted(stored, listing, figure, top)


def _measured(kind: Kind) -> str:
    """What a figure of ``kind`` draws: "share of `Try` nodes", "rate per million lines of code"."""
    words = units.unit_words(kind.per)
    return "share of %s" % words if units.is_share(kind.per) else "rate per million " + words


def _caption(kind: Kind) -> str:
    """The caption of the figure of stored scans (``kind_figures.kind_projects``)."""
    return ("Each scan's %s, in all code and outside tests, each bar labelled with the count it is made of."
            % _measured(kind))


def _figures(results: Sequence[Any], kind: Kind) -> List[Any]:
    """(caption, plot) of the figures of ``kind`` in stored scans (``kind_figures.kind_plots``)."""
    from punstats.present.kind_figures import kind_plots
    plots = kind_plots(results, kind)
    names = column_names([r.summary for r in results])
    lengths = ["Identifier lengths of %s in %s, outside tests and in tests." % (
        markdown_text(kind.label.replace("`", "")), markdown_text(name)) for name in names]
    return list(zip([_caption(kind)] + lengths, plots))


def render_scans(results: Sequence[Any], kind: Kind, scan_dirs: Sequence[Optional[str]], links: bool = False,
                 figures: Sequence[Any] = ()) -> str:
    """The report of stored scans about ``kind``: its headline per scan, the scans' table, its figures
    (``figures``: (caption, address) of each of ``_figures``), the labels, what was measured and the
    commands that make it again."""
    def table(t: Table) -> str:
        return render(t, "markdown", links=links).rstrip("\n")

    summaries = [r.summary for r in results]
    names = column_names(summaries)
    lines = commands(summaries, [portable(d) for d in scan_dirs])
    lines[-1] = shlex.join([*shlex.split(lines[-1]), "--kind", kind.name])
    several = len(summaries) > 1
    parts = ["# %s in %s" % (prose(kind.label), markdown_text(", ".join(names))),
             "Written by `punstats report`: one kind over stored scans.", "\n".join(definition_lines(kind)),
             "## Headline",
             "\n\n".join(headline(scan_counts(s, kind), kind, str(s.get("test_rule", "?")),
                                  "%s: " % markdown_text(name) if several else "")
                         for s, name in zip(summaries, names)),
             table(scans_table(results, kind)),
             *("![%s](%s)\n\n*%s*" % (caption, address, caption) for caption, address in figures),
             *labels_section(sheets_in(scan_dirs, results, kind.name), table),
             "## What was measured", "\n".join(what_was_measured(summaries, scan_dirs)),
             "## Reproduce", REPRODUCE, "```sh\n%s\n```" % "\n".join(visible(line) for line in lines)]
    return "\n\n".join(part for part in parts if part) + "\n"


def write_run_report(stored: Any, kind: Kind, path: Optional[str] = None, figures: bool = True,
                     figures_dir: Optional[str] = None, embed: bool = False, links: bool = False,
                     top: Optional[int] = None, method: Bootstrap = DEFAULT_BOOTSTRAP) -> str:
    """Write the report of a run about ``kind`` (default ``reports/<run>-<kind>.md``), its figure
    (``present.ecosystem_figure.kind_plot``) beside it or embedded, its intervals bootstrapped as
    ``method`` says; the path written."""
    path = path or report_path(stored.name, kind)
    address = None
    if figures:
        from punstats.present.ecosystem_figure import kind_plot
        address = ecosystem_report.figure_address(kind_plot(stored, kind), path, figures_dir, embed)
    return ecosystem_report.write_text(path, render_run(stored, kind, address, top, links, method))


def write_scans_report(results: Sequence[Any], kind: Kind, path: Optional[str] = None,
                       scan_dirs: Sequence[Optional[str]] = (), links: bool = False, figures: bool = True,
                       figures_dir: Optional[str] = None, embed: bool = False) -> str:
    """Write the report of stored scans about ``kind`` (default ``reports/<corpus>-<kind>.md``), its
    figures (``present.kind_figures.kind_plots``) in ``figures_dir`` (default ``<report>-figures``)
    or embedded; the path written."""
    from punstats.present.provenance import subject_of
    path = path or report_path(subject_of(column_names([r.summary for r in results])), kind)
    drawn = [(caption, ecosystem_report.figure_address(plot, path, figures_dir, embed))
             for caption, plot in (_figures(results, kind) if figures else [])]
    return ecosystem_report.write_text(path, render_scans(results, kind, list(scan_dirs) or [None] * len(results),
                                                          links, drawn))
