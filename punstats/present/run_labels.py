"""The labels of an ecosystem run, and the labels tables of several scans and runs.

A run's sheet is a scan's (``present.labels.write``, stored by ``store.labels``):
``labels-NAME.csv``, the source of truth, and ``labels-NAME.md``, written into the
run's folder as a scan's are beside its tables (``corpus --skip-existing`` leaves
them there), each row placed in its project first (``store.labels.RUN_COLUMNS``:
rank, project, release), in rank, then path, line and column order.  A run keeps
no release files, so a row's source is its stored value.  ``--per-project K``
draws a sample stratified by project (``present.labels.draw``): no project
gives more than K rows.  This module also counts a run's labels (pooled and
per project) and writes ``table --by label`` of any mix of scans and runs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from punstats.model.escape import markdown_code, markdown_text
from punstats.present.labels import (
    UNLABELLED,
    Sheet,
    Written,
    counts_table,
    labelled_counts,
    labelled_share,
    ordered,
    row_of,
    sheet_labels,
    shown_line,
    tally,
    write,
)
from punstats.store import labels as stored
from punstats.store.labels import Row

#: What a run's sheet says in place of the source it does not have.
NO_SOURCE = "(source not shown: an ecosystem run keeps no release files; the stored value:)"

#: Counts per label: (label, outside tests, in tests), as ``present.labels.tally`` gives them.
Counts = List[Tuple[str, int, int]]


def _run_row(occurrence: Row, label: str) -> Row:
    source = "%s\n%s" % (NO_SOURCE, shown_line(occurrence["line"], str(occurrence["value"] or ""), True))
    return row_of(occurrence, bool(occurrence["in_test"]), label, source)


def _kind_of(stored_run: Any, kind: str) -> str:
    """``kind`` when the run stores it as occurrences, else the one-line ``OptionError`` of ``hits``."""
    from punstats.analysis.asked import occurrence_kind
    return occurrence_kind(stored_run.registry, stored.check_kind(kind), stored_run.directory)


def write_run_labels(directory: str, kind: str, sample: Optional[int] = None, seed: int = 0,
                     per_project: Optional[int] = None, output: Optional[str] = None) -> Written:
    """Write the labels sheet of ``kind`` for the ecosystem run in ``directory`` (into ``output`` when
    given), keeping the labels its sheet holds; ``sample`` and ``per_project`` as ``present.labels.draw``
    (``sample`` and ``quota``).  There is no ``context``: a run has no source to show around a row."""
    from punstats.store.ecosystem import read_run
    run = read_run(directory)  # a StoreError for a run that never finished
    kind = _kind_of(run, kind)
    sheet = Sheet(directory, kind, run.name, stored.run_occurrences(run, kind), stored.RUN_COLUMNS, _run_row)
    return write(sheet, output, sample, seed, per_project)


@dataclass(frozen=True)
class RunLabels:
    """The labels of ``kind`` in a run: pooled over its projects, and per project (project, rank,
    counts) in rank order, projects without an occurrence of the kind left out."""

    kind: str
    pooled: Counts
    projects: Tuple[Tuple[str, int, Counts], ...]


def run_labels(stored_run: Any, kind: Optional[str] = None, required: bool = True) -> List[RunLabels]:
    """The ``RunLabels`` of ``kind``, or of every kind the run holds a sheet of; ``required``:
    ``LabelError`` when there are none.  A sheet's key that is not an occurrence: ``LabelError``."""
    kinds = [_kind_of(stored_run, kind)] if kind is not None else stored.kinds_labelled(stored_run.directory)
    if required and not kinds:
        raise stored.LabelError("no labels in %s: punstats label DIR --kind NAME writes a sheet to fill"
                                % stored_run.directory)
    found = []
    for name in kinds:
        occurrences = stored.run_occurrences(stored_run, name)
        labels = sheet_labels(stored_run.directory, name, occurrences)
        by_project: Dict[Tuple[int, str], List[Row]] = {}
        for occurrence in occurrences:
            by_project.setdefault((occurrence["rank"], occurrence["project"]), []).append(occurrence)
        projects = tuple((project, rank, tally(rows, labels, _in_test))
                         for (rank, project), rows in sorted(by_project.items()))
        found.append(RunLabels(name, tally(occurrences, labels, _in_test), projects))
    return found


def _in_test(occurrence: Row) -> bool:
    return bool(occurrence["in_test"])


@dataclass(frozen=True)
class Labelled:
    """One column of a labels table: a scan's or a run's ``counts`` of ``kind``, what it is called
    (``name``), its provenance note and address; ``run``: the run's ``RunLabels``, else None."""

    name: str
    kind: str
    counts: Counts
    note: str
    link: Optional[str]
    summary: Dict[str, Any]  # a scan's summary; a run's: its ecosystem summary
    run: Optional[RunLabels] = None
    projects: Dict[str, Dict[str, Any]] = field(default_factory=dict)  # a run's project summaries by name


def labelled(directories: Sequence[str], scans: Sequence[Any], kind: Optional[str] = None,
             required: bool = True) -> List[Labelled]:
    """Every labelled kind (or ``kind``) of each of ``directories``, in their order: the ecosystem runs
    read here, the stored scans from ``scans`` (their ``ScanResult``, in order); ``required``:
    ``LabelError`` when none holds labels."""
    from punstats.present.ecosystem import run_provenance
    from punstats.present.provenance import column_names, provenance, source_url
    from punstats.store.ecosystem import is_run, read_run
    runs = {d: read_run(d) for d in directories if is_run(d)}
    results = iter(scans)
    subjects: List[Any] = [runs[d] if d in runs else next(results) for d in directories]
    names = column_names([{"corpus": s.name} if d in runs else s.summary for d, s in zip(directories, subjects)])
    found = []
    for directory, subject, name in zip(directories, subjects, names):
        if directory in runs:
            summaries = {str(r["project"]): r["summary"] for r in subject.records if r["status"] == "scanned"}
            found += [Labelled(name, r.kind, r.pooled, run_provenance(subject.ecosystem), None, subject.ecosystem, r,
                               summaries) for r in run_labels(subject, kind, required=False)]
        else:
            found += [Labelled(name, k, counts, provenance(subject.summary, name), source_url(subject.summary),
                               subject.summary)
                      for _, k, counts in labelled_counts([subject], [directory], kind, required=False)]
    if required and not found:
        raise stored.LabelError("no labels in %s: punstats label DIR --kind NAME writes a sheet to fill"
                                % ", ".join(directories))
    return found


def sheets_in(directories: Sequence[Optional[str]], scans: Sequence[Any], kind: Optional[str] = None) -> List[Labelled]:
    """What a report shows of labels: ``labelled`` for the scans or runs of ``directories`` (None: a
    scan not stored; ``scans``: the ``ScanResult`` of each, None for a run) that hold a sheet of
    ``kind`` (None: of any kind), only those sheets; none without a sheet."""
    found: List[Labelled] = []
    for directory, scan in zip(directories, scans):
        if not directory:
            continue
        for name in stored.kinds_labelled(directory):
            if kind is None or name == kind:
                found += labelled([directory], [] if scan is None else [scan], name, required=False)
    return found


#: What the "Labels" section of a report says before its tables.
LABELS_INTRO = ("Occurrences read and labelled by hand with `punstats label`: per label, how many are "
                "outside tests and in tests (of a run: and in how many projects); (unlabelled) counts those "
                "not labelled yet. The labels are the readers' own words.")


def labels_section(found: Sequence[Labelled], table: Callable[[Any], str]) -> List[str]:
    """A report's "Labels" section of ``sheets_in``: each labelled kind's share in words
    (``labelled_share``: "37 of 203 labelled (18.23%): 12 bug, 25 fine") above its table (``table``
    renders one); nothing when there are no labels.  The tables go without notes: the report says
    what was measured, and a second note numbered 1 would clash with its first table's."""
    from punstats.present.formats import Table
    if not found:
        return []
    parts = ["## Labels", LABELS_INTRO]
    for one in found:
        counts = _single_table(one)
        parts += ["%s in %s: %s." % (markdown_code(one.kind), markdown_text(one.name), labelled_share(one.counts)),
                  table(Table(counts.header, counts.rows, title=counts.title))]
    return parts


def _single_table(one: Labelled) -> Any:
    """One scan's or run's counts per label (``present.labels.counts_table``; a run's: in how many projects)."""
    return counts_table(one.kind, one.counts, one.name, one.note, one.link,
                        None if one.run is None else _projects_per_label(one.run))


def _projects_per_label(run: RunLabels) -> Dict[str, int]:
    found: Dict[str, int] = {}
    for _, _, counts in run.projects:
        for label, _, _ in counts:
            found[label] = found.get(label, 0) + 1
    return found


def _compared(kind: str, columns: Sequence[Labelled]) -> Any:
    """One table of ``kind``: a row per label, a column per scan or run (its occurrences in all code)."""
    from punstats.present.formats import Label, Table
    totals = [{label: nontest + test for label, nontest, test in c.counts} for c in columns]
    labels: Dict[str, int] = {}
    for counts in totals:
        for label, n in counts.items():
            labels[label] = labels.get(label, 0) + n
    rows = tuple((Label(x) if x == UNLABELLED else x, *(counts.get(x, 0) for counts in totals))
                 for x in ordered(labels))
    return Table(header=(Label("Label"), *(c.name for c in columns)), rows=rows,
                 notes=tuple(c.note for c in columns), note_links=tuple(c.link for c in columns),
                 header_notes=(None, *range(len(columns))),
                 title=(Label("Labels of `%s` occurrences, in all code" % kind),))


def label_tables_of(found: Sequence[Labelled], several: bool) -> List[Any]:
    """The tables of ``labelled``: one per scan or run and kind, or (``several`` directories)
    one per kind comparing them, a column each."""
    if not several:
        return [_single_table(one) for one in found]
    kinds = sorted({one.kind for one in found})
    return [_compared(kind, [one for one in found if one.kind == kind]) for kind in kinds]


def labels_frame(found: Sequence[Labelled]) -> Any:
    """The tidy frame of ``labelled``: a row per scan (or run and project), kind and label, and each
    scan's or project's provenance; with a run among them, ``project`` and ``rank`` columns (empty for a scan)."""
    import pandas as pd

    from punstats.present.tidy import provenance_columns
    parts = []
    for one in found:
        places = [("", None, one.counts, one.summary)] if one.run is None else [
            (project, rank, counts, one.projects[project]) for project, rank, counts in one.run.projects]
        for project, rank, counts, summary in places:
            part = pd.DataFrame({"scan": one.name, "project": project, "rank": rank, "kind": one.kind,
                                 "label": [c[0] for c in counts], "nontest": [c[1] for c in counts],
                                 "test": [c[2] for c in counts], "total": [c[1] + c[2] for c in counts]})
            for key, value in provenance_columns(summary).items():
                part[key] = value
            parts.append(part)
    frame = pd.concat(parts, ignore_index=True)
    if all(one.run is None for one in found):  # scans alone: the table scans had before runs were labelled
        return frame.drop(columns=["project", "rank"])
    frame["rank"] = frame["rank"].astype("Int64")
    return frame

