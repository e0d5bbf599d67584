"""The Markdown report of an ecosystem run (``punstats report DIR`` on a ``corpus top-pypi:N`` run).

This module owns the run report's layout and wording: the headline (the pooled
shares and the per-project distribution), the table of every project (or the
first K and one row pooling the others; by default as many as fit one forum
post, ``present.report.POST_LIMIT``), the figure, what was measured, every
pattern of the run's registry pooled, the labels of its sheets (``punstats label``),
and the commands that make it again.
The tables come from ``present.ecosystem``, the figure from
``present.ecosystem_figure`` (imported only when figures are wanted), every
number from the run's records and its ecosystem summary.  As the report of a
scan, it names no path of the machine it was written on.
"""
from __future__ import annotations

import base64
import os
import shlex
from typing import Any, Callable, Dict, List, Optional

from punstats.analysis.ecosystem import per_project
from punstats.analysis.uncertainty import RunIntervals, run_intervals
from punstats.model.escape import visible
from punstats.model.intervals import DEFAULT_BOOTSTRAP, Bootstrap
from punstats.present import ecosystem as shown
from punstats.present.commands import rule_options
from punstats.present.formats import Table, markdown_code, render
from punstats.present.intervals import interval_text
from punstats.present.provenance import PUBLIC_SOURCE
from punstats.present.report import POST_LIMIT
from punstats.present.run_labels import labels_section, sheets_in
from punstats.sources.pypi import INDEX_URL
from punstats.store.ecosystem import drawn_at_random, population, run_spec
from punstats.store.rules import DEFAULT_LONG_THRESHOLD, DEFAULT_TEST_RULE

DEFAULT_DIRECTORY = "reports"

CAPTION = ("Left: each project's share of keyword arguments that are f(x=x), in all code and outside tests "
           "(a box plot, every project a point). Right: the share of the pooled f(x=x) arguments whose "
           "identifier has at least n characters.")


def report_path(stored: Any, directory: str = DEFAULT_DIRECTORY) -> str:
    """Where ``punstats report`` writes a run's report by default: ``reports/top-pypi-N.md``."""
    return os.path.join(directory, stored.name + ".md")


def headline(ecosystem: Dict[str, Any], intervals: Optional[RunIntervals] = None) -> str:
    """The pooled shares, outside tests first, and how projects differ; with ``intervals`` (the run's,
    ``analysis.uncertainty.run_intervals``), each share's 95 % interval and how it was made."""
    a, n = ecosystem["all"], ecosystem["nontest"]
    per = n["per_project"]
    texts = {scope: shown.scope_shares(ecosystem[scope]) for scope in ("all", "nontest")}
    text = texts["nontest"]

    def within(by: str, measure: str) -> str:
        if intervals is None:
            return ""
        return "95%% interval %s; " % interval_text(getattr(intervals, by)[measure])

    method = " %s" % intervals.method.words() if intervals is not None else ""
    return ("Pooled over the %s scanned projects (every occurrence counts once, so big projects weigh more), "
            "**%s** of the keyword arguments outside tests are `f(x=x)` (%s%s of %s; test rule %s); in all "
            "code, **%s** (%s%s of %s). Per project (every project counts once), outside tests: median %s "
            "(%squartiles %s and %s) over the %s projects with keyword arguments.%s"
            % (format(ecosystem["scanned"], ","), text["pooled_pct"], within("pooled", "nontest_pct"),
               format(n["punnable"], ","),
               format(n["keywords"], ","), markdown_code(str((ecosystem.get("rules") or {}).get("test_rule", "?"))),
               texts["all"]["pooled_pct"], within("pooled", "pct"), format(a["punnable"], ","),
               format(a["keywords"], ","), text["median_pct"], within("median", "nontest_pct"), text["q1_pct"],
               text["q3_pct"], format(per["projects"], ","), method))


#: How many projects of each reason the report names.
NAMED_NOT_SCANNED = 8


def measured_lines(stored: Any) -> List[str]:
    ecosystem = stored.ecosystem
    rules = ecosystem.get("rules") or {}
    reasons = shown.not_scanned_text(ecosystem, stored.records, NAMED_NOT_SCANNED, markdown_code)
    return [
        "- Projects: %s, list %s of %s; each project's latest release, its "
        "sdist or else its pure-Python wheel (%s)." % (
            population(ecosystem), shown.list_text(str(ecosystem["list"]["list"])),
            str(ecosystem["list"]["last_update"])[:10], shown.distributions_text(ecosystem)),
        "- Scanned %d, skipped %d, failed %d%s." % (
            ecosystem["scanned"], ecosystem["skipped"], ecosystem["failed"], ": %s" % reasons if reasons else ""),
        "- Left out of the scanned projects: %s." % shown.left_out_text(ecosystem),
        "- Parsed by %s %s with punstats %s; files ending in %s; test rule %s, long threshold %s; "
        "patterns of your own: %s." % (
            ecosystem.get("python_implementation", "Python"), ecosystem.get("python", "?"),
            ecosystem.get("punstats_version", "?"), _endings(rules.get("extensions") or [".py"]),
            markdown_code(str(rules.get("test_rule", "?"))), rules.get("long_threshold", "?"),
            ", ".join(markdown_code(str(p.get("name"))) for p in ecosystem.get("patterns", [])) or "none"),
    ] + _draw(ecosystem)


def _draw(ecosystem: Dict[str, Any]) -> List[str]:
    """For a random sample: the list it was drawn from (its size and sha256) and how to draw it again."""
    listed = ecosystem["list"]
    if not drawn_at_random(ecosystem):
        return []
    return ["- The sample: `random.Random(%s).sample` of the list's %s names (of %s, %s bytes, sha256 "
            "`%s`); `ecosystem.json` lists the names drawn. The index's list changes every minute: to draw "
            "the same sample, give a copy of that list with `--random-pypi-list FILE`." % (
                listed["seed"], format(int(listed.get("projects_in_list", 0)), ","), listed["last_update"],
                format(int(listed.get("bytes", 0)), ","), listed.get("sha256", "?"))]


def _endings(extensions: List[str]) -> str:
    """The file endings a run read, as code spans (``.ipynb``: said to be the notebooks' code cells)."""
    notebooks = " (the code cells of notebooks)" if any(e.endswith(".ipynb") for e in extensions) else ""
    return ", ".join(markdown_code(str(e)) for e in extensions) + notebooks


def reproduce_commands(stored: Any, name: Optional[str] = None, releases: Optional[str] = None) -> List[str]:
    """The commands that make the run and this report again, from any machine (``name``: of the
    run's folder, default the run's; ``releases``: the ``--releases`` of a run over years)."""
    ecosystem, rules = stored.ecosystem, stored.run.get("rules") or {}
    directory = os.path.join("data", name or stored.name)
    run = ["punstats", "corpus", run_spec(ecosystem), "-o", directory]
    run += ["--releases", releases] if releases else []
    location = str(ecosystem["list"]["list"]).partition(" ")[0]
    if drawn_at_random(ecosystem):  # the same seed; the index's list as it was then: its sha256 is recorded
        run += ["--seed", str(ecosystem["list"]["seed"])]
        if not location.startswith("https://pypi.org/"):
            run += ["--random-pypi-list", location if PUBLIC_SOURCE.match(location) else os.path.basename(location)]
    elif not location.startswith("https://github.com/hugovk/"):  # not the snapshot punstats ships
        run += ["--top-pypi-list", location if PUBLIC_SOURCE.match(location) else os.path.basename(location)]
    if stored.run.get("index") not in (None, INDEX_URL):  # the releases came from another index
        run += ["--index-url", str(stored.run["index"])]
    # the options that change the numbers, as a scan's Reproduce gives them (every project is an archive:
    # no option that applies to a directory only)
    summary = {"test_rule": rules.get("test_rule", DEFAULT_TEST_RULE.label), "rules": rules,
               "long_threshold": rules.get("long_threshold", DEFAULT_LONG_THRESHOLD), "patterns": rules.get("patterns")}
    run += rule_options(summary, from_git=True)
    # a run of one pattern reports on that pattern unless told otherwise: this report is f(x=x)'s
    report = ["punstats", "report", directory] + (["--kind", "call"] if rules.get("patterns") else [])
    return [shlex.join(run), shlex.join(report)]


def render_report(stored: Any, figure: Optional[str] = None, top: Optional[int] = None, links: bool = False,
                  method: Bootstrap = DEFAULT_BOOTSTRAP, intervals: Optional[RunIntervals] = None) -> str:
    """The report as Markdown; ``figure``: the figure's address (none when None); ``top``: the
    projects listed (default: every project if the report then fits one post, else as many as fit);
    ``method``: the bootstrap of its intervals (``intervals``: made already).  Only the projects
    table depends on how many are listed: the rest, the intervals among it, is made once."""
    def table(t: Table, notes: bool = True) -> str:
        return render(t, "markdown", notes=notes, links=links).rstrip("\n")

    records, ecosystem = stored.records, stored.ecosystem
    intervals = intervals if intervals is not None else run_intervals(per_project(records), method)
    head = ["# `f(x=x)` keyword arguments in %s" % population(ecosystem, short=True),
            "Written by `punstats report`. Keyword arguments of the form `f(x=x)` are the ones "
            "[PEP 736](https://peps.python.org/pep-0736/) proposed to shorten to `f(x=)`.",
            "## Headline", headline(ecosystem, intervals), "## Projects"]
    tail = ["![%s](%s)\n\n*%s*" % (CAPTION, figure, CAPTION) if figure else "",
            "## What was measured", "\n".join(measured_lines(stored)),
            "## Patterns", "Each pattern of the run (its own patterns too), pooled over the scanned projects "
                           "(the projects as in the note above).",
            table(shown.kinds_table(records, ecosystem), notes=False),
            *labels_section(sheets_in([stored.directory], [None]), table),
            "## Reproduce", "```sh\n%s\n```" % "\n".join(visible(line) for line in reproduce_commands(stored))]

    def listing(shown_top: Optional[int], fitted: bool = False) -> str:
        note = fitted_note(stored, shown_top) if fitted and shown_top is not None else ""
        parts = head + [note, table(shown.project_table(records, ecosystem, shown_top, method, intervals))] + tail
        return "\n\n".join(part for part in parts if part) + "\n"

    return fitted(stored, listing, figure, top)


def fitted(stored: Any, listing: Callable[..., str], figure: Optional[str], top: Optional[int]) -> str:
    """A run's report listing ``top`` projects, or by default every project if the report then fits
    one post, else as many as fit: ``listing(top, fitted)`` renders it with the first ``top``
    projects (None: all), ``fitted`` when it says the others are pooled to fit."""
    if top is not None:
        return listing(top)
    limit = POST_LIMIT + (len(figure) if figure and figure.startswith("data:") else 0)  # --embed: the text fits
    whole = listing(None)
    if len(whole) <= limit:
        return whole
    low, high = 0, len(stored.records)  # the most projects that fit: the text grows with them
    while low < high:
        middle = (low + high + 1) // 2
        if len(listing(middle, fitted=True)) <= limit:
            low = middle
        else:
            high = middle - 1
    return listing(low, fitted=True)


def fitted_note(stored: Any, top: int) -> str:
    """What a report cut to fit one post says about the projects it does not list."""
    order = "in the order drawn" if drawn_at_random(stored.ecosystem) else "by rank"
    return ("The first %d of the %d projects %s, then the others pooled, so that this report fits one "
            "forum post; `%s` lists every project." % (
                top, len(stored.records), order,
                shlex.join(["punstats", "table", os.path.join("data", stored.name), "--format", "markdown"])))


def write_report(stored: Any, path: Optional[str] = None, figures: bool = True, figures_dir: Optional[str] = None,
                 embed: bool = False, links: bool = False, top: Optional[int] = None,
                 method: Bootstrap = DEFAULT_BOOTSTRAP) -> str:
    """Write the report of a run (``store.ecosystem.StoredRun``; default ``reports/top-pypi-N.md``), its
    figure in ``figures_dir`` (default ``<report>-figures``) or embedded; the path written."""
    from punstats.store.staging import check_writable
    path = path or report_path(stored)
    check_writable(path)  # before the figure is drawn
    address = None
    intervals = run_intervals(per_project(stored.records), method)  # the figure's and the report's
    if figures:
        from punstats.present.ecosystem_figure import ecosystem_plot
        address = figure_address(ecosystem_plot(stored.records, stored.ecosystem, method, intervals), path,
                                 figures_dir, embed)
    return write_text(path, render_report(stored, address, top, links, method, intervals))


def figure_address(plot: Any, path: str, figures_dir: Optional[str], embed: bool) -> str:
    """Where the report at ``path`` finds ``plot``: its PNG saved in ``figures_dir`` (default
    ``<report>-figures``), relative to the report, or with ``embed`` a ``data:`` URI."""
    from punstats.present.figure import png_bytes, save
    if embed:
        return "data:image/png;base64," + base64.b64encode(png_bytes(plot)).decode("ascii")
    figures_dir = figures_dir or os.path.splitext(os.path.abspath(path))[0] + "-figures"
    report_dir = os.path.dirname(os.path.abspath(path))
    return os.path.relpath(save(plot, figures_dir)[0], report_dir).replace(os.sep, "/")


def write_text(path: str, text: str) -> str:
    """``text`` written to the report at ``path`` (its directory made); the path."""
    from punstats.store.staging import write_atomic
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    write_atomic(path, text.encode("utf-8"))
    return path
