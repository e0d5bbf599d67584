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

from punstats.analysis.ecosystem import not_scanned_reason, per_project, pooled, pooled_summary, row_counts, shares
from punstats.analysis.uncertainty import RunIntervals, run_intervals
from punstats.analysis.units import is_share, share, stored_share, unit_words
from punstats.model.escape import terminal
from punstats.model.intervals import DEFAULT_BOOTSTRAP, Bootstrap
from punstats.model.kinds import KIND_CALL, Kind
from punstats.present.formats import (
    Cell,
    Code,
    Label,
    Percent,
    Rate,
    Table,
    count_cell,
    percent_text,
    rate_text,
    render_all,
)
from punstats.present.intervals import PER_PROJECT_WORDS, POOLED_WORDS, WEIGHTING_NOTE, interval_lines, interval_rows
from punstats.present.provenance import PUBLIC_SOURCE, rules_text
from punstats.sources.pypi import PACKAGE_WORDS, REASON_WORDS
from punstats.store.ecosystem import drawn_at_random, population, run_name


def run_provenance(ecosystem: Dict[str, Any], release: Optional[str] = None) -> str:
    """One sentence saying what a run measured: the list (its source and date), the releases
    (``release``: which one of each project, in words), the parser and punstats versions, the
    test rule and every other rule that changes a count (``provenance.rules_text``), as a scan's
    footnote or caption does."""
    listed = ecosystem["list"]
    rules = ecosystem.get("rules") or {}
    source = list_text(str(listed["list"]))
    year = (ecosystem.get("releases") or {}).get("year")  # one year of a run over years (runs.years)
    release = release or ("latest release" if year is None else "release as it stood at the end of %s" % year)
    return ("%s: %s, list %s of %s, each project's %s, its sdist or else its pure-Python wheel; parsed by %s %s "
            "with punstats %s; test rule %s; %s."
            % (run_name(ecosystem), population(ecosystem), source, str(listed["last_update"])[:10], release,
               ecosystem.get("python_implementation", "Python"), ecosystem.get("python", "?"),
               ecosystem.get("punstats_version", "?"), rules.get("test_rule", "?"),
               rules_text(rules, rules.get("long_threshold", "?"), rules.get("patterns") or ())))


def _rate(value: float) -> Cell:
    return Rate(value)  # NaN (no line of code): n/a


def _counts_cells(counts: Dict[str, Any]) -> List[Cell]:
    """Files, lines of code, ``f(x=x)``, share, share outside tests, per million lines of code."""
    rates = shares(counts)
    return [count_cell(counts["files"]), count_cell(counts["code_lines"]), count_cell(counts["punnable"]),
            Percent(rates["pct"]), Percent(rates["nontest_pct"]), _rate(rates["per_million"])]  # NaN: n/a


def not_scanned_words(row: Dict[str, Any]) -> str:
    """Why a project of a run's tables was not scanned: "skipped: only platform wheels", "failed (...)"."""
    if row["status"] == "skipped":
        return "skipped: %s" % REASON_WORDS.get(row["reason"], row["reason"])
    return "failed (%s)" % row["reason"]


def _project_row(row: Dict[str, Any]) -> Tuple[Cell, ...]:
    if row["status"] != "scanned":
        return (row["rank"], Code(row["project"]), Label(not_scanned_words(row)), *[Label("")] * 6)
    return (row["rank"], Code(row["project"]), row["version"], *_counts_cells(row_counts(row)))


def project_table(records: Sequence[Dict[str, Any]], ecosystem: Dict[str, Any], top: Optional[int] = None,
                  method: Bootstrap = DEFAULT_BOOTSTRAP, intervals: Optional[RunIntervals] = None) -> Table:
    """Every project of the run (or the first ``top``, then one row pooling the others), then the
    run pooled and the median project, each with its 95 % interval (``interval_rows``, bootstrapped
    as ``method`` says, or ``intervals`` when the caller has them already: a report renders this
    table for several ``top``): rank, project, release, parsed files, lines of code, ``f(x=x)``, its
    share of the keyword arguments in all code and outside tests, and per million lines of code."""
    frame = per_project(records)
    shown = frame if top is None else frame.head(top)
    rows: List[Tuple[Cell, ...]] = [_project_row(row) for row in shown.to_dict("records")]
    rest = frame.iloc[len(shown):]
    if len(rest):
        more = pooled(rest)
        rows.append((Label(""), Label("%d more projects (%d scanned), pooled" % (len(rest), more["projects"])),
                     Label(""), *_counts_cells(more)))
    everything = pooled(frame)
    rows.append((Label(""), Label("All %d scanned projects, %s" % (everything["projects"], POOLED_WORDS)), Label(""),
                 *_counts_cells(everything)))
    intervals = intervals if intervals is not None else run_intervals(frame, method)
    rows.extend(interval_rows(intervals))
    notes = ("%s Not scanned: %s. %s %s" % (run_provenance(ecosystem), _not_scanned(ecosystem), WEIGHTING_NOTE,
                                           intervals.method.words()),)
    first = Label("Drawn" if drawn_at_random(ecosystem) else "Rank")  # random-pypi:N: the draw's order
    return Table(header=(first, Label("Project"), Label("Release"), Label("Files"), Label("Lines of code"),
                         Label("`f(x=x)`"), Label("Share"), Label("Share outside tests"),
                         Label("Per million lines of code")),
                 rows=tuple(rows), notes=notes, title_note=0, note_links=(list_url(ecosystem),),
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


def list_url(ecosystem: Dict[str, Any]) -> Optional[str]:
    """The public address of a run's list (its tables' notes link to it), or None."""
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
    return replace(table, notes=(run_provenance(ecosystem),), note_links=(list_url(ecosystem),),
                   title=(Label("Patterns counted in %s, pooled" % population(ecosystem, short=True)),))


#: ``table --by`` of a run (``pooled_table``); a scan's other tables (its directories, its labels)
#: are per project, and pooling them would mix different projects' places under one name.
POOLED_BY = ("length", "identifier", "callee")


def pooled_table(stored: Any, by: str, n: int) -> Table:
    """``table DIR --by length|identifier|callee`` of a run: the scan's table (``present.tables``) of
    every ``f(x=x)`` of its scanned projects pooled as one corpus, read from the run's combined
    dataset (``store.ecosystem.pooled_calls``); the most common identifiers and callees (``n`` rows)
    also say how many projects use each.  Its note says it is pooled, and the run's provenance."""
    from types import SimpleNamespace

    from punstats.analysis.breakdowns import top_split
    from punstats.present import tables
    from punstats.store.ecosystem import pooled_calls
    ecosystem = stored.ecosystem
    rules = ecosystem.get("rules") or {}
    calls = pooled_calls(stored)
    result = SimpleNamespace(occurrences=calls, summary={  # what a scan's table reads; its note is replaced
        "corpus": run_name(ecosystem), "long_threshold": rules.get("long_threshold", 0),
        "python": ecosystem.get("python", "?"), "test_rule": rules.get("test_rule", "?")})
    scanned = sum(1 for r in stored.records if r["status"] == "scanned")
    note = "Pooled over the run's %d scanned projects, as one corpus. %s" % (
        scanned, run_provenance(ecosystem))
    if by == "length":
        table = tables.length_table(result)
    else:
        column = "name" if by == "identifier" else "callee"
        table = tables.top_table(result, column, n)
        ranked = top_split(calls, column, n).index
        projects = calls.groupby(column, observed=True)["project"].nunique().reindex(ranked, fill_value=0)
        table = replace(table, header=(*table.header, Label("Projects")),
                        rows=tuple((*row, int(used)) for row, used in zip(table.rows, projects)))
    return replace(table, notes=(note,), note_links=(list_url(ecosystem),),
                   title=(*table.title[:1], Label("%s, pooled" % population(ecosystem, short=True))))


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
                 and not_scanned_reason(r) == reason]
        shown = ", ".join(quote(name) for name in which[:names])
        more = " and %d more" % (len(which) - names) if len(which) > names else ""
        parts.append("%s %d%s" % (REASON_WORDS.get(reason, reason), count,
                                  " (%s%s)" % (shown, more) if shown else ""))
    return ", ".join(parts)


def project_line(record: Dict[str, Any], reused: bool = False, kind: Optional[Kind] = None) -> str:
    """One console line per finished project: its parsed files (as the projects table counts them;
    those that failed to parse after them), keyword arguments, ``f(x=x)`` and each user pattern's count;
    about another ``kind`` (``corpus --kind NAME``): its files, then the kind's count and measure."""
    head = "%5d %-28s" % (record["rank"], record["project"][:28])
    if record["status"] != "scanned":
        return terminal("%s %s: %s" % (head, record["status"], record["message"]))
    s = record["summary"]
    if kind is not None and kind.name != KIND_CALL:
        from punstats.present.console import kind_count_text
        return terminal("%s %-5s %-14s files %6s  %s%s" % (
            head, PACKAGE_WORDS.get(record["distribution"], "wheel"), record["version"][:14],
            format(s.get("parsed", s["files"]), ","), kind_count_text(s, kind), "  (already stored)" if reused else ""))
    patterns = "".join("  %s %s" % (p["name"], format(s.get("kinds", {}).get(p["name"], 0), ","))
                       for p in s.get("patterns", []))
    pct = percent_text(stored_share(s, "punnable_pct")).rjust(6)  # 0/0 is n/a, not 0 %
    failed = "  not parsed %s" % format(s["failed"], ",") if s.get("failed") else ""
    return terminal("%s %-5s %-14s files %6s  keywords %8s  f(x=x) %6s (%s)%s%s%s" % (
        head, PACKAGE_WORDS.get(record["distribution"], "wheel"), record["version"][:14],
        format(s.get("parsed", s["files"]), ","), format(s["keywords"], ","), format(s["punnable"], ","), pct,
        failed, patterns, "  (already stored)" if reused else ""))


#: How ``left_out`` (``analysis.ecosystem.LEFT_OUT``) names each thing left out, in prose.
LEFT_OUT_WORDS = {"directories": "directories skipped", "files": "files skipped",
                  "unparsed_files": "files not parsed", "archive_members": "archive members refused"}


def left_out_text(ecosystem: Dict[str, Any]) -> str:
    """What the scanned projects left out, by reason, in one sentence (the run report's "What was
    measured" and the console lines): e.g. ``directories skipped 12 in 5 projects (vcs 12)``."""
    left_out = ecosystem.get("left_out")
    if left_out is None:
        return "not recorded (a run summarised by an earlier punstats: punstats corpus ... --skip-existing " \
               "summarises it again)"
    parts = []
    for name, words in LEFT_OUT_WORDS.items():
        got = left_out.get(name)
        if got is None or not (got["total"] or got["unrecorded"]):
            continue
        reasons = ", ".join("%s %s" % (reason, format(n, ",")) for reason, n in got["by_reason"].items())
        text = "%s %s in %d project%s%s" % (words, format(got["total"], ","), got["projects"],
                                          "" if got["projects"] == 1 else "s", " (%s)" % reasons if reasons else "")
        if got["unrecorded"]:
            text += " (not recorded for %d project%s, stored by an earlier punstats)" % (
                got["unrecorded"], "" if got["unrecorded"] == 1 else "s")
        parts.append(text)
    return "; ".join(parts) or "nothing"


def summary_lines(ecosystem: Dict[str, Any], records: Optional[Sequence[Dict[str, Any]]] = None,
                  method: Bootstrap = DEFAULT_BOOTSTRAP) -> List[str]:
    """The ecosystem summary as a few console lines, naming its two weightings; ``records``: the run's,
    whose summaries give each pattern's unit (else its measure is the share the ecosystem summary
    stores) and the shares' 95 % intervals (bootstrapped as ``method`` says)."""
    lines = ["ecosystem: %d projects, %d scanned (%s), %d skipped, %d failed" % (
        ecosystem["projects"], ecosystem["scanned"],
        distributions_text(ecosystem),
        ecosystem["skipped"], ecosystem["failed"])]
    for scope, label in (("all", "all code"), ("nontest", "outside tests")):
        s, text = ecosystem[scope], scope_shares(ecosystem[scope])
        lines.append("  %-13s pooled %7s (%s of %s)  per project: median %s (IQR %s to %s), "
                     "weighted median %s; above 10/20/30%%: %s" % (
                         label, text["pooled_pct"], format(s["punnable"], ","), format(s["keywords"], ","),
                         text["median_pct"], text["q1_pct"], text["q3_pct"], text["weighted_median_pct"],
                         "/".join(text["above"])))
    lines.append("  weighting: %s; %s" % (POOLED_WORDS, PER_PROJECT_WORDS))
    if records is not None:
        lines += interval_lines(run_intervals(per_project(records), method))
    lines.append(terminal("  left out: %s" % left_out_text(ecosystem)))
    pool = None if records is None else pooled_summary(r["summary"] for r in records if r["status"] == "scanned")
    from punstats.patterns.built_in import registry_of
    # the patterns a stored ecosystem summary names as a scan would (``model.kinds.recorded_patterns``)
    patterns = registry_of({"patterns": ecosystem.get("patterns")}).user
    return lines + [_pattern_line(ecosystem, kind, pool) for kind in patterns]


def kind_summary_lines(ecosystem: Dict[str, Any], records: Sequence[Dict[str, Any]], kind: Kind) -> List[str]:
    """The ecosystem summary about ``kind`` (``corpus top-pypi:N --kind NAME``, a kind other than
    ``f(x=x)``): the projects read, what the kind is and where it is defined, its count pooled and its
    measure against its unit (``console.measure_text``) with the per-project median, in all code and
    outside tests, the projects it is in, what was left out, and one line for the rest counted."""
    from punstats.analysis import subject
    from punstats.present.console import definition_rows, measure_text
    from punstats.present.subject_report import measure_text as median_text
    lines = summary_lines(ecosystem)[:1]
    pool = pooled_summary(r["summary"] for r in records if r["status"] == "scanned")
    frame = subject.per_project(records, kind)
    counts = subject.pooled(frame, kind)
    rows = [("pattern" if kind.user else "kind", "%s: %s" % (kind.name, kind.label.replace("`", ""))),
            *definition_rows(kind)]
    for suffix, label in (("", "all code"), ("_nontest", "outside tests")):
        count = counts["count" + suffix]
        if count is None:  # a project stored by an earlier punstats did not record it (outside tests)
            rows.append((label, "n/a   (not recorded by every project: some were stored by an earlier punstats)"))
            continue
        rows.append((label, "%s   (%s; per project: median %s)" % (
            format(count, ","), measure_text(pool, kind.per, count, bool(suffix)),
            median_text(counts["median" + suffix], kind).replace("`", ""))))
    found = frame[(frame["status"] == "scanned") & (frame["count"] > 0)].sort_values("count", ascending=False)
    most = ", ".join("%s %s" % (row.project, format(int(row.count), ",")) for row in found.head(5).itertuples())
    rows.append(("in projects", "%d of %d scanned%s" % (counts["with_matches"], counts["projects"],
                                                        "   (most: %s)" % most if most else "")))
    rows.append(("left out", left_out_text(ecosystem)))
    rows.append(("also counted", _also_counted(pool, kind)))
    width = max(len(label) for label, _ in rows)
    return lines + [terminal("  %-*s  %s" % (width, label, value)) for label, value in rows]


def _also_counted(pool: Dict[str, Any], kind: Kind) -> str:
    """``f(x=x)`` and the user patterns besides ``kind``, pooled, in one line."""
    from punstats.analysis.units import count, union
    others = ["f(x=x) %s (%s of keyword arguments)" % (
        format(pool["kinds"].get(KIND_CALL, 0), ","),
        percent_text(share(pool["kinds"].get(KIND_CALL), (pool.get("units") or {}).get("keywords"))))]
    others += ["%s %s" % (other.name, format(count(pool, other) or 0, ",")) for other in union([pool]).user
               if other.name != kind.name]
    return ", ".join(others) + "; --kind NAME for a summary about one"


def scope_shares(s: Dict[str, Any]) -> Dict[str, Any]:
    """A scope of the ecosystem summary's shares as text (``percent_text``): the pooled share, the
    per-project quartiles and the shares of projects above 10/20/30 % (``above``); "n/a" for a share
    of nothing (no keyword argument pooled, no project with one), which the summary stores as 0.0."""
    per = s["per_project"]
    nothing = float("nan")
    text: Dict[str, Any] = {"pooled_pct": percent_text(share(s["punnable"], s["keywords"]))}
    for key in ("median_pct", "q1_pct", "q3_pct", "weighted_median_pct"):
        text[key] = percent_text(per[key] if per["projects"] else nothing)
    return dict(text, above=[percent_text(v if per["projects"] else nothing) for v in s["projects_above_pct"].values()])


def _pattern_line(ecosystem: Dict[str, Any], kind: Kind, pool: Optional[Dict[str, Any]]) -> str:
    """A user pattern pooled over the projects: its count and its measure against its unit, in all code
    and outside tests: a share of a unit of syntax, a rate per million lines or files
    (``console.measure_text`` over ``pool``, the projects' ``pooled_summary``); without ``pool``, the
    share the ecosystem summary stores."""
    from punstats.present.console import measure_text
    parts = []
    for scope, label in (("all", "all code"), ("nontest", "outside tests")):
        pooled = ecosystem["kinds"][scope].get(kind.name, {})
        count, pct = pooled.get("count"), pooled.get("pct")
        words = unit_words(kind.per).replace("`", "")
        if pool is not None and count is not None:
            measure = " (%s)" % measure_text(pool, kind.per, count, scope == "nontest")
        elif pct is None:
            measure = ""
        else:  # a share stored in % to four decimals; a rate as every rate is printed
            measure = " (%.4f%% of %s)" % (pct, words) if is_share(kind.per) else " (%s per million %s)" % (
                rate_text(pct * 1e4), words)
        parts.append("%s %s%s" % (label, "n/a" if count is None else format(count, ","), measure))
    return terminal("  pattern %s: %s" % (kind.name, ", ".join(parts)))


def figure(records: Sequence[Dict[str, Any]], ecosystem: Dict[str, Any]):
    """The run's figure (``present.ecosystem_figure``; matplotlib is imported there)."""
    from punstats.present.ecosystem_figure import ecosystem_plot
    return ecosystem_plot(records, ecosystem).figure


def table_texts(records: Sequence[Dict[str, Any]], ecosystem: Dict[str, Any],
                top: Optional[int] = None, more: Sequence[Table] = ()) -> Dict[str, str]:
    """The run's tables (every project, or the first ``top`` and a row for the others; ``more``,
    such as the projects table of each user pattern; then every pattern of its registry pooled) as
    reST, Markdown and LaTeX, by file ending."""
    tables = [project_table(records, ecosystem, top), *more, kinds_table(records, ecosystem)]
    return {ending: render_all(tables, fmt) for ending, fmt in (("rst", "rst"), ("md", "markdown"),
                                                                ("tex", "latex"))}


def save_figure(records: Sequence[Dict[str, Any]], ecosystem: Dict[str, Any], path: str, cache: bool = False
                ) -> str:
    """The run's figure written to ``path`` (PNG, or SVG by its ending); with ``cache``, the figure
    of these records and summary drawn before is written again, not drawn (``present.kept_figures``:
    a run resumed with nothing left to do)."""
    from punstats.present.kept_figures import drawn_once, figure_key

    def draw(directory: str) -> List[str]:
        from punstats.present.ecosystem_figure import ecosystem_plot
        from punstats.present.figure import save_plot
        save_plot(ecosystem_plot(records, ecosystem), path, "svg" if path.endswith(".svg") else "png")
        return [path]
    key = figure_key("ecosystem", os.path.basename(path), list(records), ecosystem)
    drawn_once(draw, key, cache)(os.path.dirname(path) or ".")
    return path
