"""The Markdown report of one stored scan: ``reports/<corpus>.md``.

This module owns the report's layout and its wording: what was measured,
the definitions and rules the numbers depend on, and how to reproduce them.
The tables come from ``punstats.tables``, the figures from
``punstats.plots`` (imported only when figures are wanted, so a report
without figures needs no matplotlib), every number from the scan.

By default the figures are embedded in the file as PNG ``data:`` URIs, so the
report is one self-contained file; with ``figures_dir`` they are written
there (PNG and SVG) and linked instead.
"""
from __future__ import annotations

import base64
import os
import shlex
from typing import Any, Dict, List, Optional

from punstats.present import tables
from punstats.store.rules import TEST_DIRS, TEST_FILE_PATTERNS

DEFAULT_DIRECTORY = "reports"


#: Figures in the order the report shows them: (plot kind, caption).
FIGURES = (
    ("lengths", "Identifier lengths of the f(x=x) keyword arguments, in tests and outside them; "
                "the dashed line is the long threshold."),
    ("cumulative", "Share of the f(x=x) keyword arguments whose identifier has at least n characters."),
    ("identifiers", "The most common identifiers in f(x=x) keyword arguments."),
    ("callees", "The callees that receive the most f(x=x) keyword arguments."),
    ("directories", "Where the f(x=x) keyword arguments are, per top-level directory or file."),
)


def report_path(summary: Dict[str, Any], directory: str = DEFAULT_DIRECTORY) -> str:
    """Where ``punstats report`` writes a scan's report by default."""
    return os.path.join(directory, tables.slug(summary["corpus"]) + ".md")


def _text(text: str) -> str:
    return tables.markdown_text(text)


def _n(value: int) -> str:
    return format(int(value), ",")


def _counts(mapping: Dict[str, int]) -> str:
    return ", ".join("%s %s" % (key, _n(value)) for key, value in sorted(mapping.items())) or "none"


def test_rule_text(label: str) -> str:
    """What a test rule (``classify``) counts as test code, in words."""
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


def _what_was_measured(summary: Dict[str, Any], scan_dir: Optional[str]) -> List[str]:
    rules = summary.get("rules", {})
    revision = summary.get("revision") or "unknown"
    if summary.get("commit_date"):
        revision += " (%s)" % summary["commit_date"]
    skipped = dict(summary.get("skipped_dirs", {}))
    skipped.update(summary.get("skipped_files", {}))
    lines = [
        "| | |",
        "| --- | --- |",
        "| Corpus | %s (source: %s) |" % (_text(summary["corpus"]), _text(summary.get("source", ""))),
        "| Root | %s |" % tables.markdown_code(summary.get("root", "")),
        "| Revision | %s |" % _text(revision),
        "| Parsed by | %s %s, punstats %s (extractor %s) |" % (
            summary.get("python_implementation", "Python"), summary["python"],
            summary.get("punstats_version", "?"), summary.get("extractor_version", "?")),
        "| Scanned | %s |" % summary.get("created", "unknown"),
        "| Files | %s scanned: %s parsed, %s failed (%s) |" % (
            _n(summary["files"]), _n(summary["parsed"]), _n(summary["failed"]),
            _counts(summary.get("failed_by_reason", {}))),
        "| Skipped | %s |" % _counts(skipped),
        "| Extensions | %s |" % ", ".join("`%s`" % e for e in rules.get("extensions", [".py"])),
        "| Test rule | %s |" % tables.markdown_code(summary["test_rule"]),
        "| Long threshold | %d characters |" % summary["long_threshold"],
    ]
    if scan_dir:
        lines.append("| Stored scan | %s |" % tables.markdown_code(scan_dir))
    return lines


def _definitions(summary: Dict[str, Any]) -> List[str]:
    definition = summary.get("rules", {}).get(
        "definition", "ast.keyword of ast.Call, arg not None, value ast.Name with id == arg")
    return [
        "- **`f(x=x)` keyword argument (punnable):** %s. Calls are counted at every depth: nested "
        "calls, decorators, lambdas, comprehensions, default values, annotations, f-strings, class "
        "bodies. Files are parsed with `ast`, never imported or run." % definition,
        "- **All keyword arguments (the denominator):** every keyword argument of every call whose "
        "name is not None; `**mapping` unpackings (%s here) are not keyword arguments."
        % _n(summary["double_star"]),
        "- **Calls with at least one `f(x=x)` argument:** distinct calls (by file, line and column) "
        "that pass one or more.",
        "- **Class keywords** such as `class A(metaclass=metaclass)` are not calls and are not counted "
        "(%s class keywords, %s of them punnable)." % (_n(summary["class_keywords"]), _n(summary["class_punnable"])),
        "- **Long:** an `f(x=x)` keyword argument whose identifier has at least %d characters."
        % summary["long_threshold"],
        "- **Test code** (rule %s, decided from the path relative to the corpus root): %s"
        % (tables.markdown_code(summary["test_rule"]), test_rule_text(summary["test_rule"])),
        "- **Files:** only files that parse contribute counts; files that do not (Python 2 syntax, "
        "undecodable bytes, ...) are listed above by reason, not dropped silently.",
    ]


def _figure_sources(result: Any, figures_dir: Optional[str], report_dir: str) -> Dict[str, str]:
    """Plot kind -> image address: a data URI, or a path relative to the report."""
    from punstats.present import plots

    sources = {}
    for make in (plots.length_histogram, plots.length_cumulative, plots.top_identifiers,
                 plots.top_callees, plots.directories):
        plot = make(result)
        if figures_dir is None:
            sources[plot.kind] = "data:image/png;base64," + base64.b64encode(plots.png_bytes(plot)).decode("ascii")
        else:
            png = plots.save(plot, figures_dir)[0]
            sources[plot.kind] = os.path.relpath(png, report_dir).replace(os.sep, "/")
    return sources


def render(result: Any, figure_sources: Optional[Dict[str, str]] = None,
           scan_dir: Optional[str] = None) -> str:
    """The report as Markdown; ``figure_sources`` maps plot kinds to image
    addresses (no figures when None)."""
    summary = result.summary
    sources = figure_sources or {}
    figure = {kind: ("![%s](%s)\n\n*%s*" % (caption, sources[kind], caption) if kind in sources else "")
              for kind, caption in FIGURES}

    def table(t: tables.Table, notes: bool = False) -> str:
        return tables.render(t, "markdown", notes=notes).rstrip("\n")

    n = tables.TOP_ROWS
    parts = [
        "# `f(x=x)` keyword arguments in %s" % _text(summary["corpus"]),
        "Written by `punstats report`. Keyword arguments of the form `f(x=x)` are the ones "
        "[PEP 736](https://peps.python.org/pep-0736/) proposed to shorten to `f(x=)`.",
        "## What was measured",
        "\n".join(_what_was_measured(summary, scan_dir)),
        "## Headline",
        headline(result),
        table(tables.summary_table([result]), notes=True),
        "## Definitions and rules",
        "\n".join(_definitions(summary)),
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
        "## Reproduce",
        "```sh\n%s\n```" % "\n".join(_commands(summary, scan_dir)),
    ]
    return "\n\n".join(part for part in parts if part) + "\n"


def headline(result: Any) -> str:
    """The sentence a PEP author quotes: the share outside tests, then in all code."""
    s = tables.with_outside_tests(result)
    return ("**%.2f%%** of the keyword arguments outside tests are `f(x=x)` (%s of %s; test rule %s); "
            "in all code, **%.2f%%** (%s of %s)." % (
                s["punnable_nontest_pct"], _n(s["punnable_nontest"]), _n(s["keywords_nontest"]),
                tables.markdown_code(s["test_rule"]), s["punnable_pct"], _n(s["punnable"]), _n(s["keywords"])))


def _commands(summary: Dict[str, Any], scan_dir: Optional[str]) -> List[str]:
    directory = scan_dir or os.path.join("data", summary["corpus"])
    rules = summary.get("rules", {})
    scan = ["punstats", "scan"]
    if summary.get("source") not in (None, "stdlib"):
        scan.append(summary["source"])
    scan += ["-o", directory]
    if summary["test_rule"] != "components":
        scan += ["--test-rule", summary["test_rule"]]
    if summary["long_threshold"] != 10:
        scan += ["--long", str(summary["long_threshold"])]
    if rules.get("extensions", [".py"]) != [".py"]:
        scan += ["--extensions", ",".join(rules["extensions"])]
    lines = []
    if summary.get("revision") and summary.get("source") != "stdlib":
        lines.append("# at revision %s" % summary["revision"])
    elif summary.get("source") == "stdlib":
        lines.append("# with %s %s" % (summary.get("python_implementation", "Python"), summary["python"]))
    return lines + [shlex.join(scan), shlex.join(["punstats", "report", directory])]


def write_report(result: Any, path: Optional[str] = None, figures: bool = True,
                 figures_dir: Optional[str] = None, scan_dir: Optional[str] = None) -> str:
    """Write the report of ``result`` (default ``reports/<corpus>.md``);
    the path written.  ``figures_dir``: write the figures there and link
    them instead of embedding them."""
    path = path or report_path(result.summary)
    report_dir = os.path.dirname(os.path.abspath(path))
    sources = _figure_sources(result, figures_dir, report_dir) if figures else None
    text = render(result, sources, scan_dir)
    os.makedirs(report_dir, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path

