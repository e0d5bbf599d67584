"""The ecosystem run shown: its tables, the console lines and the figure.

``project_table`` lists every project of a run (rank, release, parsed files,
lines of code, ``f(x=x)``, its share of the keyword arguments in all code and
outside tests, per million lines of code), or the first K and one row pooling
the others, then the run pooled; ``kinds_table`` every pattern of the run's
registry pooled over its projects, as ``table --kinds`` shows a scan.  Both
are ``formats.Table`` values (reST for a PEP, Markdown for a report, CSV,
LaTeX); a share of nothing is "n/a", never 0 %.  ``run_provenance`` is the
sentence their notes and the figure's caption (``present.ecosystem_figure``,
where matplotlib is imported) give.  Every number comes from the records and
the summary that ``analysis.ecosystem`` made.
"""
from __future__ import annotations

import os
from dataclasses import replace
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import pandas as pd

from punstats.analysis.ecosystem import PROJECT_COUNTS, per_project, pooled, pooled_summary, shares
from punstats.analysis.units import unit_words
from punstats.model.escape import terminal
from punstats.present.formats import Cell, Code, Label, Percent, Rate, Table, render_all
from punstats.present.provenance import PUBLIC_SOURCE
from punstats.sources.pypi import PACKAGE_WORDS, REASON_WORDS
from punstats.store.ecosystem import drawn_at_random, population, run_name


def run_provenance(ecosystem: Dict[str, Any]) -> str:
    """One sentence saying what a run measured: the list (its source and date), the releases,
    the parser and punstats versions and the test rule, as a scan's footnote or caption does."""
    listed = ecosystem["list"]
    rules = ecosystem.get("rules") or {}
    source = list_text(str(listed["list"]))
    return ("%s: %s, list %s of %s, each project's latest "
            "release, its sdist or else its pure-Python wheel; parsed by %s %s with punstats %s; test rule %s."
            % (run_name(ecosystem), population(ecosystem), source, str(listed["last_update"])[:10],
               ecosystem.get("python_implementation", "Python"), ecosystem.get("python", "?"),
               ecosystem.get("punstats_version", "?"), rules.get("test_rule", "?")))


def _share(value: float) -> Cell:
    """A share of something, or "n/a" where there was nothing to divide (0/0 is not 0.00%)."""
    return Percent(value) if value == value else Label("n/a")


def _rate(value: float) -> Cell:
    return Rate(value)  # NaN (no line of code): n/a


def _count(value: Any) -> Cell:
    return Label("n/a") if value is None else int(value)


def _counts_cells(counts: Dict[str, Any]) -> List[Cell]:
    """Files, lines of code, ``f(x=x)``, share, share outside tests, per million lines of code."""
    rates = shares(counts)
    return [_count(counts["files"]), _count(counts["code_lines"]), _count(counts["punnable"]),
            _share(rates["pct"]), _share(rates["nontest_pct"]), _rate(rates["per_million"])]


def _project_row(row: Dict[str, Any]) -> Tuple[Cell, ...]:
    if row["status"] != "scanned":
        why = "skipped: %s" % REASON_WORDS.get(row["reason"], row["reason"]) if row["status"] == "skipped" \
            else "failed (%s)" % row["reason"]
        return (row["rank"], Code(row["project"]), Label(why),
                *[Label("")] * 6)
    counts = {column: None if pd.isna(row[column]) else int(row[column]) for column in PROJECT_COUNTS}
    return (row["rank"], Code(row["project"]), row["version"], *_counts_cells(counts))


def project_table(records: Sequence[Dict[str, Any]], ecosystem: Dict[str, Any], top: Optional[int] = None) -> Table:
    """Every project of the run (or the first ``top``, then one row pooling the others), then the
    run pooled: rank, project, release, parsed files, lines of code, ``f(x=x)``, its share of the
    keyword arguments in all code and outside tests, and per million lines of code."""
    frame = per_project(records)
    shown = frame if top is None else frame.head(top)
    rows: List[Tuple[Cell, ...]] = [_project_row(row) for row in shown.to_dict("records")]
    rest = frame.iloc[len(shown):]
    if len(rest):
        more = pooled(rest)
        rows.append((Label(""), Label("%d more projects (%d scanned), pooled" % (len(rest), more["projects"])),
                     Label(""), *_counts_cells(more)))
    everything = pooled(frame)
    rows.append((Label(""), Label("All %d scanned projects, pooled" % everything["projects"]), Label(""),
                 *_counts_cells(everything)))
    notes = ("%s Not scanned: %s." % (run_provenance(ecosystem), _not_scanned(ecosystem)),)
    first = Label("Drawn" if drawn_at_random(ecosystem) else "Rank")  # random-pypi:N: the draw's order
    return Table(header=(first, Label("Project"), Label("Release"), Label("Files"), Label("Lines of code"),
                         Label("`f(x=x)`"), Label("Share"), Label("Share outside tests"),
                         Label("Per million lines of code")),
                 rows=tuple(rows), notes=notes, title_note=0, note_links=(_list_url(ecosystem),),
                 title=(Label("`f(x=x)` in %s" % population(ecosystem, short=True)),))


def pep_table(records: Sequence[Dict[str, Any]], ecosystem: Dict[str, Any], top: Optional[int] = None) -> Table:
    """The table a PEP quotes: ``project_table`` (its name before every project was listed)."""
    return project_table(records, ecosystem, top)


def list_text(source: str) -> str:
    """Where a run's list came from, in words anyone can follow: a public address as given, a
    local file by its name only (and the public list it copies, when it says)."""
    location, copied, upstream = source.partition(" (from ")
    if PUBLIC_SOURCE.match(location):
        return source
    return "in a local file (%s)%s" % (os.path.basename(location), ", a copy of " + upstream[:-1] if copied else "")


def _list_url(ecosystem: Dict[str, Any]) -> Optional[str]:
    location = str(ecosystem["list"]["list"]).partition(" ")[0]
    return location if location.startswith(("https://", "http://")) else None


def kinds_table(records: Sequence[Dict[str, Any]], ecosystem: Dict[str, Any]) -> Table:
    """Every pattern of the run's registry (user patterns included), pooled over its scanned
    projects, as ``table --kinds`` shows a scan: count and share in all code, outside tests,
    per million lines of code."""
    from types import SimpleNamespace

    from punstats.present.tables import kinds_table as scan_kinds_table
    summary = dict(pooled_summary(r["summary"] for r in records if r["status"] == "scanned"),
                   corpus=run_name(ecosystem), python=ecosystem.get("python", "?"),
                   test_rule=(ecosystem.get("rules") or {}).get("test_rule", "?"))  # its note is replaced
    table = scan_kinds_table([SimpleNamespace(summary=summary)])
    return replace(table, notes=(run_provenance(ecosystem),), note_links=(_list_url(ecosystem),),
                   title=(Label("Patterns counted in %s, pooled" % population(ecosystem, short=True)),))


def _not_scanned(ecosystem: Dict[str, Any]) -> str:
    return not_scanned_text(ecosystem) or "none"


def distributions_text(ecosystem: Dict[str, Any]) -> str:
    """What was read of the scanned projects, in words: "sdist 489, wheel 5"."""
    return ", ".join("%s %d" % (PACKAGE_WORDS.get(k, k), v) for k, v in ecosystem["distributions"].items()) or "none"


def not_scanned_text(ecosystem: Dict[str, Any], records: Sequence[Dict[str, Any]] = (), names: int = 0,
                     quote: Callable[[str], str] = str) -> str:
    """Why projects were not scanned, in words, each reason with its count ("only platform wheels
    6"); with ``records`` and ``names``, each reason's first ``names`` projects (``quote``d) too."""
    parts = []
    for reason, count in ecosystem["not_scanned_by_reason"].items():
        which = [r["project"] for r in records if r["status"] != "scanned"
                 and ("failed" if r["status"] == "failed" else r.get("reason")) == reason]
        shown = ", ".join(quote(name) for name in which[:names])
        more = " and %d more" % (len(which) - names) if len(which) > names else ""
        parts.append("%s %d%s" % (REASON_WORDS.get(reason, reason), count,
                                  " (%s%s)" % (shown, more) if shown else ""))
    return ", ".join(parts)


def project_line(record: Dict[str, Any], reused: bool = False) -> str:
    """One console line per finished project: its parsed files (as the projects table counts them;
    those that failed to parse after them), keyword arguments, ``f(x=x)`` and each user pattern's count."""
    head = "%5d %-28s" % (record["rank"], record["project"][:28])
    if record["status"] != "scanned":
        return terminal("%s %s: %s" % (head, record["status"], record["message"]))
    s = record["summary"]
    patterns = "".join("  %s %s" % (p["name"], format(s.get("kinds", {}).get(p["name"], 0), ","))
                       for p in s.get("patterns", []))
    share = "%5.2f%%" % s["punnable_pct"] if s["keywords"] else "   n/a"  # 0/0 is not 0 %
    failed = "  not parsed %s" % format(s["failed"], ",") if s.get("failed") else ""
    return terminal("%s %-5s %-14s files %6s  keywords %8s  f(x=x) %6s (%s)%s%s%s" % (
        head, "sdist" if record["distribution"] == "sdist" else "wheel", record["version"][:14],
        format(s.get("parsed", s["files"]), ","), format(s["keywords"], ","), format(s["punnable"], ","), share,
        failed, patterns, "  (already stored)" if reused else ""))


def summary_lines(ecosystem: Dict[str, Any]) -> List[str]:
    """The ecosystem summary as a few console lines."""
    lines = ["ecosystem: %d projects, %d scanned (%s), %d skipped, %d failed" % (
        ecosystem["projects"], ecosystem["scanned"],
        distributions_text(ecosystem),
        ecosystem["skipped"], ecosystem["failed"])]
    for scope, label in (("all", "all code"), ("nontest", "outside tests")):
        s = ecosystem[scope]
        p = s["per_project"]
        lines.append("  %-13s pooled %6.2f%% (%s of %s)  per project: median %.2f%% (IQR %.2f-%.2f%%), "
                     "weighted median %.2f%%; above 10/20/30%%: %s" % (
                         label, s["pooled_pct"], format(s["punnable"], ","), format(s["keywords"], ","),
                         p["median_pct"], p["q1_pct"], p["q3_pct"], p["weighted_median_pct"],
                         "/".join("%.1f%%" % v for v in s["projects_above_pct"].values())))
    return lines + [_pattern_line(ecosystem, p) for p in ecosystem.get("patterns", [])]


def _pattern_line(ecosystem: Dict[str, Any], pattern: Dict[str, Any]) -> str:
    """A user pattern pooled over the projects: its count and share of its unit, in all code and outside tests."""
    parts = []
    for scope, label in (("all", "all code"), ("nontest", "outside tests")):
        pooled = ecosystem["kinds"][scope].get(pattern["name"], {})
        count, pct = pooled.get("count"), pooled.get("pct")
        parts.append("%s %s%s" % (label, "n/a" if count is None else format(count, ","),
                                  "" if pct is None else " (%.4f%% of %s)" % (pct, unit_words(pattern["per"]))))
    return terminal("  pattern %s: %s" % (pattern["name"], ", ".join(parts)))


def figure(records: Sequence[Dict[str, Any]], ecosystem: Dict[str, Any]):
    """The run's figure (``present.ecosystem_figure``; matplotlib is imported there)."""
    from punstats.present.ecosystem_figure import ecosystem_plot
    return ecosystem_plot(records, ecosystem).figure


def table_texts(records: Sequence[Dict[str, Any]], ecosystem: Dict[str, Any],
                top: Optional[int] = None) -> Dict[str, str]:
    """The run's tables (every project, or the first ``top`` and a row for the others; then
    every pattern of its registry) as reST, Markdown and LaTeX, by file ending."""
    tables = [project_table(records, ecosystem, top), kinds_table(records, ecosystem)]
    return {ending: render_all(tables, fmt) for ending, fmt in (("rst", "rst"), ("md", "markdown"),
                                                                ("tex", "latex"))}


def save_figure(records: Sequence[Dict[str, Any]], ecosystem: Dict[str, Any], path: str) -> str:
    """The run's figure written to ``path`` (PNG, or SVG by its ending)."""
    from punstats.present.ecosystem_figure import ecosystem_plot
    from punstats.present.figure import _savefig
    _savefig(ecosystem_plot(records, ecosystem), path, "svg" if path.endswith(".svg") else "png")
    return path
