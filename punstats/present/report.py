"""The Markdown report of stored scans: ``reports/<corpus>.md`` (or ``<A>+<B>.md``).

This module owns the report's layout and its wording: what was measured,
the definitions and rules the numbers depend on, and how to reproduce them.
The tables come from ``present.tables``, the figures from
``present.plots`` (imported only when figures are wanted, so a report
without figures needs no matplotlib), every number from the scans.

A report is meant to be pasted as one forum post: by default it fits one
Discourse post (``POST_LIMIT`` characters), its figures are PNG and SVG files
in ``<report>-figures/`` beside it, linked by relative paths, and it names no
path of the machine it was written on.  ``embed`` puts the PNGs in the file
as ``data:`` URIs instead (one self-contained file, far larger).
"""
from __future__ import annotations

import base64
import os
from typing import Any, Callable, Dict, List, Optional, Sequence

from punstats.analysis.units import stored_share
from punstats.model.escape import visible
from punstats.present import tables
from punstats.present.commands import commands
from punstats.present.formats import count_text, percent_text
from punstats.present.provenance import column_names, source_text, subject_of
from punstats.store.rules import TEST_DIRS, TEST_FILE_PATTERNS

DEFAULT_DIRECTORY = "reports"


#: Discourse's default maximum post length (characters); GitHub's comments allow 65,536.
POST_LIMIT = 32000


#: Rows of the identifier and callee tables in a report over several scans.
COMPARE_TOP_ROWS = 10


#: Figures in the order the report shows them: (plot kind, caption).
FIGURES = (
    ("lengths", "Identifier lengths of the f(x=x) keyword arguments, in tests and outside them; "
                "the dashed line is the long threshold."),
    ("cumulative", "Share of the f(x=x) keyword arguments whose identifier has at least n characters."),
    ("identifiers", "The most common identifiers in f(x=x) keyword arguments."),
    ("callees", "The callees that receive the most f(x=x) keyword arguments."),
    ("directories", "Where the f(x=x) keyword arguments are, per top-level directory or file."),
)


#: The figures of a report over several scans.
COMPARE_FIGURES = (
    ("projects", "f(x=x) as a share of the keyword arguments, in all code and outside tests, per scan."),
    ("overlay", "Share of the f(x=x) keyword arguments whose identifier has at least n characters, "
                "per scan, in all code (solid) and outside tests (dashed)."),
)


def report_path(summary: Any, directory: str = DEFAULT_DIRECTORY) -> str:
    """Where ``punstats report`` writes the report of a scan's summary (or of
    several summaries) by default."""
    summaries = summary if isinstance(summary, (list, tuple)) else [summary]
    return os.path.join(directory, subject_of(column_names(summaries)) + ".md")


def _text(text: str) -> str:
    return tables.markdown_text(text)


def _counts(mapping: Dict[str, int]) -> str:
    return ", ".join("%s %s" % (key, count_text(value)) for key, value in sorted(mapping.items())) or "none"


def test_rule_text(label: str) -> str:
    """What a test rule (``store.rules``) counts as test code, in words."""
    if label == "components":
        return ("a file is test code when one of its directories is named %s, or its name matches %s."
                % (", ".join("`%s`" % d for d in sorted(TEST_DIRS)),
                   ", ".join("`%s`" % p for p in TEST_FILE_PATTERNS)))
    if label == "substring":
        return "a file is test code when its path contains `test` anywhere (what `grep -v test` removes)."
    if label == "none":
        return "nothing is test code."
    if label.startswith("regex:"):
        return ("a file is test code when %s matches its path."
                % tables.markdown_code("re.search(%r, path)" % label[len("regex:"):]))
    return "rule `%s`." % label


def what_was_measured(summaries: Sequence[Dict[str, Any]], scan_dirs: Sequence[Optional[str]]) -> List[str]:
    """One row per fact, one column per scan; nothing that names a path of this machine."""
    names = column_names(summaries)

    def revision(s: Dict[str, Any]) -> str:
        text = s.get("revision") or ""  # the standard library's is its interpreter
        return _text(text + (" (%s)" % s["commit_date"] if text and s.get("commit_date") else "")) or "none recorded"

    def skipped(s: Dict[str, Any]) -> str:
        counts = dict(s.get("skipped_dirs", {}))
        counts.update(s.get("skipped_files", {}))
        return _counts(counts)

    facts = [
        ("Source", lambda s: _text(source_text(s))),
        ("Revision", revision),
        ("Parsed by", lambda s: "%s %s, punstats %s (extractor %s)" % (
            s.get("python_implementation", "Python"), s["python"], s.get("punstats_version", "?"),
            s.get("extractor_version", "?"))),
        ("Scanned", lambda s: s.get("created", "unknown")),
        ("Files", lambda s: "%s scanned: %s parsed, %s failed (%s)" % (
            count_text(s["files"]), count_text(s["parsed"]), count_text(s["failed"]),
            _counts(s.get("failed_by_reason", {})))),
        ("Skipped", skipped),
        ("Extensions", lambda s: ", ".join(tables.markdown_code(e)
                                           for e in s.get("rules", {}).get("extensions", [".py"]))),
        ("Left out", _left_out),
        ("Test rule", lambda s: tables.markdown_code(s["test_rule"])),
        ("Long threshold", lambda s: "%d characters" % s["long_threshold"]),
    ]
    lines = ["| Scan | %s |" % " | ".join(_text(n) for n in names), "| --- |" + " --- |" * len(names)]
    lines += ["| %s | %s |" % (label, " | ".join(fact(s) for s in summaries)) for label, fact in facts]
    stored = [portable(d) for d in scan_dirs]
    if any(stored):
        lines.append("| Stored scan | %s |" % " | ".join(tables.markdown_code(d) if d else "" for d in stored))
    return lines


def _left_out(s: Dict[str, Any]) -> str:
    """What ``.gitignore`` and ``--exclude`` took out of the walk."""
    rules = s.get("rules", {})
    parts = ["nothing: read from git as committed" if s.get("revision_scan") else
             ".gitignore honoured" if rules.get("gitignore") else
             ".gitignore not applied (an unpacked archive)" if s.get("archive") else
             ".gitignore not read (--no-ignore)" if "gitignore" in rules else "scanned before .gitignore support"]
    parts += ["--exclude %s" % tables.markdown_code(g) for g in rules.get("exclude", [])]
    return ", ".join(parts)


def portable(path: Optional[str]) -> Optional[str]:
    """A path as a report may show it: relative ones only."""
    return path if path and not os.path.isabs(path) else None


def _per_scan(summaries: Sequence[Dict[str, Any]], value: Callable[[Dict[str, Any]], str]) -> str:
    """``value`` of one scan, or "name value, name value" for several."""
    if len(summaries) == 1:
        return value(summaries[0])
    return ", ".join("%s %s" % (_text(n), value(s)) for n, s in zip(column_names(summaries), summaries))


def _definitions(summaries: Sequence[Dict[str, Any]]) -> List[str]:
    first = summaries[0]
    definition = first.get("rules", {}).get(
        "definition", "ast.keyword of ast.Call, arg not None, value ast.Name with id == arg")
    rules = sorted({s["test_rule"] for s in summaries})
    return [
        "- **`f(x=x)` keyword argument (punnable):** %s. Calls are counted at every depth: nested "
        "calls, decorators, lambdas, comprehensions, default values, annotations, f-strings, class "
        "bodies. Files are parsed with `ast`, never imported or run." % definition,
        "- **All keyword arguments (the denominator):** every keyword argument of every call whose "
        "name is not None; `**mapping` unpackings (%s) are not keyword arguments."
        % _per_scan(summaries, lambda s: count_text(s["double_star"])),
        "- **Outside tests:** the keyword arguments of files that the test rule does not count as test code.",
        "- **Calls with at least one `f(x=x)` argument:** distinct calls (by file, line and column) "
        "that pass one or more.",
        "- **Class keywords** such as `class A(metaclass=metaclass)` are not calls and are not counted "
        "(class keywords, punnable: %s)." % _per_scan(summaries, lambda s: "%s, %s" % (
            count_text(s["class_keywords"]), count_text(s["class_punnable"]))),
        "- **Long:** an `f(x=x)` keyword argument whose identifier has at least %d characters."
        % first["long_threshold"],
    ] + ["- **Test code** (rule %s, decided from the path relative to the corpus root): %s"
         % (tables.markdown_code(rule), test_rule_text(rule)) for rule in rules] + [
        "- **Files:** only files that parse contribute counts; files that do not (Python 2 syntax, "
        "undecodable bytes, ...) are listed above by reason, not dropped silently.",
    ]


def _figures(results: Sequence[Any]) -> List[Any]:
    """The report's figures: five of one scan, or the comparisons of several."""
    from punstats.present import compare, plots

    if len(results) > 1:
        return [plots.projects(results), compare.length_overlay(results)]
    return [make(results[0]) for make in (plots.length_histogram, plots.length_cumulative,
                                          plots.top_identifiers, plots.top_callees, plots.directories)]


def _figure_sources(results: Sequence[Any], figures_dir: Optional[str], report_dir: str) -> Dict[str, str]:
    """Plot kind -> image address: a path relative to the report, or (no
    ``figures_dir``) a data URI."""
    from punstats.present import plots

    sources = {}
    for plot in _figures(results):
        if figures_dir is None:
            sources[plot.kind] = "data:image/png;base64," + base64.b64encode(plots.png_bytes(plot)).decode("ascii")
        else:
            png = plots.save(plot, figures_dir)[0]
            sources[plot.kind] = os.path.relpath(png, report_dir).replace(os.sep, "/")
    return sources


def render(results: Any, figure_sources: Optional[Dict[str, str]] = None,
           scan_dirs: Any = None, links: bool = False) -> str:
    """The report as Markdown; ``figure_sources`` maps plot kinds to image
    addresses (no figures when None); ``links``: provenance as plain text
    under each table instead of footnotes (for sites without footnotes)."""
    results = list(results) if isinstance(results, (list, tuple)) else [results]
    scan_dirs = list(scan_dirs) if isinstance(scan_dirs, (list, tuple)) else [scan_dirs] * len(results)
    summaries = [tables.with_outside_tests(r) for r in results]
    sources = figure_sources or {}
    figure = {kind: ("![%s](%s)\n\n*%s*" % (caption, sources[kind], caption) if kind in sources else "")
              for kind, caption in FIGURES + COMPARE_FIGURES}

    def table(t: tables.Table, notes: bool = False) -> str:
        return tables.render(t, "markdown", notes=notes, links=links).rstrip("\n")

    names = column_names(summaries)
    parts = [
        "# `f(x=x)` keyword arguments in %s" % _text(", ".join(names)),
        "Written by `punstats report`. Keyword arguments of the form `f(x=x)` are the ones "
        "[PEP 736](https://peps.python.org/pep-0736/) proposed to shorten to `f(x=)`.",
        "## Headline",
        "\n\n".join(headline(r, n if len(results) > 1 else None) for r, n in zip(results, names)),
        table(tables.summary_table(results), notes=True),
        figure["projects"],
        "## What was measured",
        "\n".join(what_was_measured(summaries, scan_dirs)),
        "## Definitions and rules",
        "\n".join(_definitions(summaries)),
    ]
    parts += _single_sections(results[0], figure, table) if len(results) == 1 else \
        _compare_sections(results, figure, table)
    parts += ["## Patterns", _PATTERNS, table(tables.kinds_table(results))]
    parts += _labels_section(results, scan_dirs, table)
    parts += ["## Reproduce", REPRODUCE, "```sh\n%s\n```" % "\n".join(
        visible(line) for line in commands(summaries, [portable(d) for d in scan_dirs]))]
    return "\n\n".join(part for part in parts if part) + "\n"


#: What the "Reproduce" section says before its commands.
REPRODUCE = ("The commands that make these numbers again, with `punstats` installed from a clone of its "
              "repository: each names what was scanned, pinned to the version or commit read, and the "
              "options that change the numbers.")


#: What the patterns table of a report holds.
_PATTERNS = ("Each pattern punstats counts (and each pattern given with `--pattern`), its count and its "
             "share of what it is a part of; outside tests and per million lines of code where the scan "
             "recorded them.")


def _single_sections(result: Any, figure: Dict[str, str], table: Callable[..., str]) -> List[str]:
    n = tables.TOP_ROWS
    return [
        "## Identifier lengths",
        figure["lengths"],
        figure["cumulative"],
        table(tables.length_table(result)),
        "## Most common identifiers and callees",
        figure["identifiers"],
        table(tables.top_table(result, "name", n)),
        figure["callees"],
        table(tables.top_table(result, "callee", n)),
        "## Where they are",
        figure["directories"],
        table(tables.directory_table(result, n)),
    ]


def _compare_sections(results: Sequence[Any], figure: Dict[str, str], table: Callable[..., str]) -> List[str]:
    from punstats.present import compare

    parts = ["## Identifier lengths", figure["overlay"], table(compare.length_comparison_table(results)),
             "## Most common identifiers and callees"]
    for result in results:
        parts += [table(tables.top_table(result, "name", COMPARE_TOP_ROWS)),
                  table(tables.top_table(result, "callee", COMPARE_TOP_ROWS))]
    return parts


def _labels_section(results: Sequence[Any], scan_dirs: Sequence[Optional[str]],
                    table: Callable[..., str]) -> List[str]:
    """"Labels" (``present.run_labels.labels_section``) for the scans whose directories hold labels."""
    from punstats.present.run_labels import labels_section, sheets_in
    return labels_section(sheets_in(scan_dirs, results), table)


def headline(result: Any, name: Optional[str] = None) -> str:
    """The sentence a PEP author quotes: the share outside tests, then in all code."""
    s = tables.with_outside_tests(result)
    return ("%s**%s** of the keyword arguments outside tests are `f(x=x)` (%s of %s; test rule %s); "
            "in all code, **%s** (%s of %s)." % (
                "%s: " % _text(name) if name else "",
                percent_text(stored_share(s, "punnable_nontest_pct")), count_text(s["punnable_nontest"]),
                count_text(s["keywords_nontest"]), tables.markdown_code(s["test_rule"]),
                percent_text(stored_share(s, "punnable_pct")), count_text(s["punnable"]), count_text(s["keywords"])))


def write_report(results: Any, path: Optional[str] = None, figures: bool = True,
                 figures_dir: Optional[str] = None, scan_dir: Any = None, embed: bool = False,
                 links: bool = False) -> str:
    """Write the report of ``results`` (one scan or several; default
    ``reports/<corpus>.md``); the path written.  Figures go to
    ``figures_dir`` (default: ``<report>-figures`` beside the report) and
    are linked, or with ``embed`` are embedded in the file."""
    from punstats.store.staging import check_writable, write_atomic
    results = list(results) if isinstance(results, (list, tuple)) else [results]
    path = path or report_path([r.summary for r in results])
    check_writable(path)  # before the figures are drawn
    report_dir = os.path.dirname(os.path.abspath(path))
    if figures and not embed and figures_dir is None:
        figures_dir = os.path.splitext(os.path.abspath(path))[0] + "-figures"
    sources = _figure_sources(results, None if embed else figures_dir, report_dir) if figures else None
    text = render(results, sources, scan_dir, links=links)
    os.makedirs(report_dir, exist_ok=True)
    write_atomic(path, text.encode("utf-8"))
    return path
