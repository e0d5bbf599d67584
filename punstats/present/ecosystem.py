"""The ecosystem run shown: the PEP table, the console lines and the figure.

``pep_table`` is the top ten scanned projects (by downloads) plus one row for
the whole ecosystem, as a ``formats.Table`` (reST for a PEP, Markdown for a
report).  ``figure`` draws the per-project distribution of the punnable share
(a box plot with every project as a point, for all code and outside tests)
beside the cumulative share by identifier length; matplotlib is imported only
there.  Every number comes from the records and the summary that
``analysis.ecosystem`` made.
"""
from __future__ import annotations

from typing import Any, Dict, List, Sequence

from punstats.analysis.units import unit_words
from punstats.model.escape import figure_text, terminal
from punstats.present.formats import Code, Label, Percent, Table, render

NONTEST_COLOUR = "#0072B2"
ALL_COLOUR = "#E69F00"


def _pct(part: int, whole: int) -> Percent:
    return Percent(round(100.0 * part / whole, 4) if whole else 0.0)


def pep_table(records: Sequence[Dict[str, Any]], ecosystem: Dict[str, Any], top: int = 10) -> Table:
    """Rank, project, release file, keyword arguments, punnable and share (all; outside tests)."""
    rows: List[Any] = []
    for record in [r for r in records if r["status"] == "scanned"][:top]:
        a, n = record["measures"]["all"], record["measures"]["nontest"]
        rows.append((record["rank"], Code(record["project"]), record["version"], a["keywords"], a["punnable"],
                     _pct(a["punnable"], a["keywords"]), _pct(n["punnable"], n["keywords"])))
    a, n = ecosystem["all"], ecosystem["nontest"]
    rows.append((Label(""), Label("All %d scanned projects" % ecosystem["scanned"]), Label(""),
                 a["keywords"], a["punnable"], Percent(a["pooled_pct"]), Percent(n["pooled_pct"])))
    population = _population(ecosystem)
    notes = ("%s (%s, list of %s); each project's latest release, "
             "its sdist or else its pure-Python wheel. Not scanned: %s." % (
                 population[:1].upper() + population[1:], ecosystem["list"]["list"],
                 ecosystem["list"]["last_update"], _not_scanned(ecosystem)),)
    first = Label("Drawn" if "seed" in ecosystem["list"] else "Rank")  # random-pypi:N: the draw's order
    return Table(header=(first, Label("Project"), Label("Version"), Label("Keyword arguments"),
                         Label("`f(x=x)`"), Label("Share"), Label("Share outside tests")),
                 rows=tuple(rows), notes=notes, title_note=0,
                 title=(Label("Punnable keyword arguments in %s PyPI projects"
                              % ("randomly drawn" if "seed" in ecosystem["list"] else "the top")),))


def _population(ecosystem: Dict[str, Any]) -> str:
    """Which projects a run scanned, in words: the top N, or N drawn at random (``random-pypi:N``)."""
    if "seed" in ecosystem["list"]:
        return "%d PyPI projects drawn at random (seed %s)" % (ecosystem["asked"], ecosystem["list"]["seed"])
    return "the %d most-downloaded PyPI projects" % ecosystem["asked"]


def _not_scanned(ecosystem: Dict[str, Any]) -> str:
    reasons = ecosystem["not_scanned_by_reason"]
    return ", ".join("%s %d" % (k, v) for k, v in reasons.items()) or "none"


def project_line(record: Dict[str, Any], reused: bool = False) -> str:
    """One console line per finished project (with each user pattern's count)."""
    head = "%5d %-28s" % (record["rank"], record["project"][:28])
    if record["status"] != "scanned":
        return terminal("%s %s: %s" % (head, record["status"], record["message"]))
    s = record["summary"]
    patterns = "".join("  %s %s" % (p["name"], format(s.get("kinds", {}).get(p["name"], 0), ","))
                       for p in s.get("patterns", []))
    return terminal("%s %-5s %-14s files %6s  keywords %8s  f(x=x) %6s (%5.2f%%)%s%s" % (
        head, "sdist" if record["distribution"] == "sdist" else "wheel", record["version"][:14],
        format(s["files"], ","), format(s["keywords"], ","), format(s["punnable"], ","), s["punnable_pct"],
        patterns, "  (already stored)" if reused else ""))


def summary_lines(ecosystem: Dict[str, Any]) -> List[str]:
    """The ecosystem summary as a few console lines."""
    lines = ["ecosystem: %d projects, %d scanned (%s), %d skipped, %d failed" % (
        ecosystem["projects"], ecosystem["scanned"],
        ", ".join("%s %d" % kv for kv in ecosystem["distributions"].items()) or "none",
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
    """The per-project distribution and the cumulative length curve, side by side (a Figure)."""
    from matplotlib.figure import Figure
    fig = Figure(figsize=(11, 4.6), dpi=150)
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.3]})
    scanned = [r for r in records if r["status"] == "scanned"]
    data = []
    for scope in ("all", "nontest"):
        data.append([100.0 * r["measures"][scope]["punnable"] / r["measures"][scope]["keywords"]
                     for r in scanned if r["measures"][scope]["keywords"]])
    left.boxplot(data, showfliers=False, widths=0.5)
    for position, (values, colour) in enumerate(zip(data, (ALL_COLOUR, NONTEST_COLOUR)), 1):
        jitter = [position + 0.18 * (((i * 7919) % 101) / 100.0 - 0.5) for i in range(len(values))]
        left.scatter(jitter, values, s=9, alpha=0.55, color=colour, linewidths=0)
    left.set_xticks([1, 2], ["all code", "outside tests"])
    left.set_ylabel("f(x=x) share of keyword arguments (%)")
    left.set_title("Per project (%d projects)" % len(scanned))
    for scope, colour, label in (("all", ALL_COLOUR, "all code"), ("nontest", NONTEST_COLOUR, "outside tests")):
        curve = ecosystem[scope]["cumulative_by_length"]
        right.step([row[0] for row in curve], [row[2] for row in curve], where="post", color=colour, label=label)
    right.set_xlabel("identifier length (characters)")
    right.set_xlim(0, max([row[0] for row in ecosystem["all"]["cumulative_by_length"]] + [1]) + 1)
    right.set_ylabel("cumulative share of f(x=x) (%)")
    right.set_ylim(0, 100)
    right.set_title("Identifier length, pooled")
    right.legend(loc="lower right", frameon=False)
    fig.suptitle("PEP 736 punnable arguments in %s (list of %s)"
                 % (_population(ecosystem), figure_text(ecosystem["list"]["last_update"][:10])), fontsize=12,
                 parse_math=False)
    fig.tight_layout()
    return fig


def table_texts(records: Sequence[Dict[str, Any]], ecosystem: Dict[str, Any]) -> Dict[str, str]:
    """The PEP table as reST and Markdown, by file ending."""
    table = pep_table(records, ecosystem)
    return {"rst": render(table, "rst"), "md": render(table, "markdown")}


def save_figure(records: Sequence[Dict[str, Any]], ecosystem: Dict[str, Any], path: str) -> str:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    fig = figure(records, ecosystem)
    FigureCanvasAgg(fig)
    fig.savefig(path)
    return path
