"""Tables about one kind (``table --kind NAME``): an ecosystem run's projects, or stored scans.

``project_table`` lists every project of a run (or the first K and one row
pooling the others): its count of the kind and the count's measure against
the kind's unit (a share in % of a unit of syntax, a rate per million lines,
lines of code or files: ``analysis.units.is_share``), in all code and
outside tests, then the run pooled and the per-project median; when the run
holds a labels sheet of the kind (``punstats label``), the share of each
project's hits that are labelled.
``project_frame`` is the same as one tidy row per project for CSV.
``scans_table`` is the summary of stored scans about the kind, one column per
scan.  Their notes say what was measured and where the kind's definition
comes from (``definition_note``).  Every number comes from
``analysis.subject``; a user's label is escaped as every text from a corpus.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import pandas as pd

from punstats.analysis import subject, units
from punstats.analysis.subject import kind_intervals
from punstats.analysis.uncertainty import RunIntervals
from punstats.model.intervals import DEFAULT_BOOTSTRAP, Bootstrap
from punstats.model.kinds import Kind
from punstats.present.commands import shown_source
from punstats.present.ecosystem import list_url, not_scanned_text, not_scanned_words, run_provenance
from punstats.present.formats import Cell, Code, Label, Percent, Rate, Span, Table, Text, count_cell
from punstats.present.intervals import POOLED_WORDS, interval_text
from punstats.present.provenance import column_names, provenance, source_url
from punstats.store.ecosystem import drawn_at_random, population


def kind_text(kind: Kind) -> Text:
    """The kind's label as a table shows it: a user's words escaped, punstats' own as written."""
    return kind.label if kind.user else Label(kind.label)


def measure_header(kind: Kind, nontest: bool = False) -> Label:
    """The heading of a measure column: "Per million lines of code", "Share of `Try` nodes"."""
    words = units.unit_words(kind.per)
    head = ("Share of %s" if units.is_share(kind.per) else "Per million %s") % words
    return Label(head + (" outside tests" if nontest else ""))


def measure_cell(value: float, kind: Kind) -> Cell:
    """A measure as a cell: a share (``Percent``) or a rate (``Rate``); NaN: n/a."""
    return Percent(value) if units.is_share(kind.per) else Rate(value)


def definition_note(kind: Kind) -> str:
    """Where the kind's definition comes from: its source and the sha256 of that source."""
    if not kind.user:
        first = kind.doc.split("\n\n")[0].replace("`", "")
        return "%s (%s): built into punstats, defined in %s%s" % (
            kind.name, kind.label.replace("`", ""), kind.module or "punstats", ": " + first if first else ".")
    words = units.unit_words(kind.per).replace("`", "")
    return "%s: the pattern %s (sha256 %s), counted %s." % (
        kind.name, shown_source(kind.source), kind.sha256 or "not recorded",
        ("as a share of " if units.is_share(kind.per) else "per million ") + words)


def capital(text: str) -> str:
    """``text`` with its first letter a capital, the rest as written (a node class keeps its
    capitals: "`Try` nodes", where ``str.capitalize`` gives "`try` nodes")."""
    return text[:1].upper() + text[1:]


def _cells(counts: Dict[str, Any], kind: Kind) -> List[Cell]:
    """Count, the unit's total, the measure; the count and the measure outside tests."""
    return [count_cell(counts["count"]), count_cell(counts["unit"]), measure_cell(counts["measure"], kind),
            count_cell(counts["count_nontest"]), measure_cell(counts["measure_nontest"], kind)]


def _project_row(row: Dict[str, Any], kind: Kind) -> Tuple[Cell, ...]:
    if row["status"] != "scanned":
        return (row["rank"], Code(row["project"]), Label(not_scanned_words(row)), *[Label("")] * 5)
    return (row["rank"], Code(row["project"]), row["version"], *_cells(row, kind))


def project_table(stored: Any, kind: Kind, top: Optional[int] = None, method: Bootstrap = DEFAULT_BOOTSTRAP,
                  intervals: Optional[RunIntervals] = None) -> Table:
    """Every project of the run ``stored`` (or the first ``top``, then one row pooling the others),
    then the run pooled and the median of the projects' measures: the kind's count and measure
    against its unit in all code and outside tests; then the 95 % intervals of the pooled measures
    and of the medians (bootstrapped over projects as ``method`` says: ``analysis.subject.kind_intervals``, or
    ``intervals`` when the caller has them already)."""
    frame = subject.per_project(stored.records, kind)
    shown = frame if top is None else frame.head(top)
    rows: List[Tuple[Cell, ...]] = [_project_row(row, kind) for row in shown.to_dict("records")]
    rest = frame.iloc[len(shown):]
    if len(rest):
        more = subject.pooled(rest, kind)
        rows.append((Label(""), Label("%d more projects (%d scanned), pooled" % (len(rest), more["projects"])),
                     Label(""), *_cells(more, kind)))
    everything = subject.pooled(frame, kind)
    rows.append((Label(""), Label("All %d scanned projects, %s" % (everything["projects"], POOLED_WORDS)), Label(""),
                 *_cells(everything, kind)))
    median = Label("Per-project median (%d projects, every project counts once)" % everything["measured"])
    rows.append((Label(""), median, Label(""), Label(""), Label(""), measure_cell(everything["median"], kind),
                 Label(""), measure_cell(everything["median_nontest"], kind)))
    ecosystem = stored.ecosystem
    notes = ("%s Not scanned: %s. %s" % (run_provenance(ecosystem), not_scanned_text(ecosystem) or "none",
                                         definition_note(kind)),)
    header: Tuple[Label, ...] = (Label("Drawn" if drawn_at_random(ecosystem) else "Rank"), Label("Project"),
                                 Label("Release"), Label("Count"), Label(capital(units.unit_words(kind.per))),
                                 measure_header(kind), Label("Count outside tests"), measure_header(kind, True))
    labels = _labels_by_project(stored, kind)
    if labels is not None:  # the run holds a sheet of the kind: the share of each project's hits labelled
        header += (Label("Hits labelled"),)
        rows = [row + (cell,) for row, cell in zip(rows, _labelled_cells(labels, shown, rest))]
    found = intervals if intervals is not None else kind_intervals(frame, kind, method)
    rows += [row + (Label(""),) * (len(header) - len(row)) for row in _interval_rows(found, kind)]
    notes = (notes[0] + " " + found.method.words(),)
    return Table(header=header, rows=tuple(rows), notes=notes, title_note=0, note_links=(list_url(ecosystem),),
                 title=(kind_text(kind), Label(" in %s" % population(ecosystem, short=True))))


def _interval_rows(intervals: RunIntervals, kind: Kind) -> List[Tuple[Cell, ...]]:
    """The rows of ``project_table`` giving the 95 % intervals of the pooled measure and of the median,
    in all code and outside tests."""
    rate, unit = not units.is_share(kind.per), intervals.method.unit
    rows: List[Tuple[Cell, ...]] = []
    for words, by in (("pooled", intervals.pooled), ("median", intervals.median)):
        rows.append((Label(""), Label("95%% interval of the %s (bootstrap over %s)" % (words, unit)),
                     *[Label("")] * 3, Span(interval_text(by["all"], rate)), Label(""),
                     Span(interval_text(by["nontest"], rate))))
    return rows


def _labels_by_project(stored: Any, kind: Kind) -> Optional[Dict[str, Tuple[int, int]]]:
    """Per project, (its hits of ``kind`` labelled, its hits), from the run's sheet of the kind;
    None when the run holds none (``punstats label RUN --kind NAME`` writes it)."""
    from punstats.present.labels import UNLABELLED
    from punstats.present.run_labels import run_labels
    from punstats.store.labels import kinds_labelled
    if not kind.occurrence or kind.name not in kinds_labelled(stored.directory):
        return None
    found, = run_labels(stored, kind.name)
    return {project: (sum(n + t for label, n, t in counts if label != UNLABELLED), sum(n + t for _, n, t in counts))
            for project, _, counts in found.projects}


def _labelled_cells(labels: Dict[str, Tuple[int, int]], shown: pd.DataFrame, rest: pd.DataFrame) -> List[Cell]:
    """The "Hits labelled" column of ``project_table``: the share of each scanned project's hits that are
    labelled (n/a without hits), of the projects pooled in the "more" row, of all, then none (median)."""
    def share(projects: Any) -> Cell:
        done, hits = (sum(labels.get(str(p), (0, 0))[i] for p in projects) for i in (0, 1))
        return Percent(units.share(done, hits))

    cells = [share([row["project"]]) if row["status"] == "scanned" else Label("") for row in shown.to_dict("records")]
    more = [share(rest["project"])] if len(rest) else []
    return cells + more + [share(list(shown["project"]) + list(rest["project"])), Label("")]


def column_words(kind: Kind) -> Tuple[str, str]:
    """The snake_case names of a tidy table's unit and measure columns: ``code_lines`` and
    ``per_million_code_lines``, or ``try_nodes`` and ``pct_of_try_nodes``."""
    unit = kind.per if kind.per in units.UNITS else "%s_nodes" % kind.per.lower()
    return unit, ("pct_of_%s" if units.is_share(kind.per) else "per_million_%s") % unit


def project_frame(stored: Any, kind: Kind, top: Optional[int] = None,
                  counted: Optional[pd.DataFrame] = None) -> pd.DataFrame:
    """``project_table`` as one tidy row per project (the first ``top``): rank, project, release,
    status, kind, and the counts and measures, numbers as numbers (empty: not scanned, or n/a); with a
    labels sheet of the kind, ``labelled``: the project's hits labelled.  ``counted``: the run's
    ``analysis.subject.per_project`` of the kind, when the caller has it."""
    frame = counted if counted is not None else subject.per_project(stored.records, kind)
    frame = frame if top is None else frame.head(top)
    unit, measured = column_words(kind)
    tidy = pd.DataFrame({
        "rank": frame["rank"], "project": frame["project"], "release": frame["version"],
        "status": frame["status"], "kind": kind.name, "count": frame["count"], unit: frame["unit"],
        measured: frame["measure"], "count_nontest": frame["count_nontest"], unit + "_nontest": frame["unit_nontest"],
        measured + "_nontest": frame["measure_nontest"]})
    labels = _labels_by_project(stored, kind)
    if labels is not None:  # its hits labelled (empty: not scanned)
        scanned = frame["status"] == "scanned"
        tidy["labelled"] = pd.Series([labels.get(str(p), (0, 0))[0] for p in frame["project"]],
                                     index=frame.index, dtype="Int64").where(scanned)
    return tidy


def scan_counts(summary: Dict[str, Any], kind: Kind) -> Dict[str, Any]:
    """One scan's counts of the kind (``analysis.subject.COUNTS``) and their measures."""
    counts: Dict[str, Any] = {"count": units.count(summary, kind), "unit": units.denominator(summary, kind.per),
              "count_nontest": units.count(summary, kind, True),
              "unit_nontest": units.denominator(summary, kind.per, True)}
    for suffix in ("", "_nontest"):
        counts["measure" + suffix] = subject.measure(counts["count" + suffix], counts["unit" + suffix], kind.per)
    return counts


def scans_table(results: Sequence[Any], kind: Kind) -> Table:
    """The summary of stored scans about ``kind``, one column per scan: its count and measure in all
    code and outside tests, the unit's totals, the files parsed and the lines of code."""
    summaries = [r.summary for r in results]
    names = column_names(summaries)
    counts = [scan_counts(s, kind) for s in summaries]
    unit = capital(units.unit_words(kind.per))
    rows: List[Tuple[Cell, ...]] = [
        (Label("Count"), *[count_cell(c["count"]) for c in counts]),
        (measure_header(kind), *[measure_cell(c["measure"], kind) for c in counts]),
        (Label("Count outside tests"), *[count_cell(c["count_nontest"]) for c in counts]),
        (measure_header(kind, True), *[measure_cell(c["measure_nontest"], kind) for c in counts]),
        (Label(unit), *[count_cell(c["unit"]) for c in counts]),
        (Label(unit + " outside tests"), *[count_cell(c["unit_nontest"]) for c in counts])]
    rows += [(Label(words), *[count_cell(units.denominator(s, key)) for s in summaries])
             for key, words in (("files", "Files parsed"), ("code_lines", "Lines of code")) if key != kind.per]
    notes = tuple(provenance(s, name) for s, name in zip(summaries, names)) + (definition_note(kind),)
    return Table(header=(Label("Statistic"), *names), rows=tuple(rows), notes=notes,
                 note_links=tuple(source_url(s) for s in summaries) + (None,),
                 header_notes=(None, *range(len(summaries))), title=(kind_text(kind),), title_note=len(summaries))
