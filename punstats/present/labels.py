"""The labels sheet of one occurrence kind, and the counts per label.

``write_labels`` writes, for each occurrence of a kind in a stored scan, a
row with its key, place, whether it is test code, its name and a few lines of
source around it (read from the scan's root when that is still there and the
file is unchanged; otherwise the cell says why not), and a ``label`` column
for a reader to fill: ``labels-NAME.csv`` (the source of truth, edited by
the reader) and ``labels-NAME.md`` (the same rows to read: a heading, the
source and the label per occurrence).  Writing it again keeps every label
already entered (merged by key, ``store.labels``), also those saved while it
is written (the sheet is checked just before it is replaced, and merged again).  The writing, and the
draw of a sample (``draw``: seeded, optionally with a quota per project), are
shared with an ecosystem run's sheet (``write`` over a ``Sheet``;
``present.run_labels`` makes a run's).  ``label_counts`` and ``label_tables``
count the occurrences per label, in and outside tests; ``labelled_share``
words how many are labelled, and with what, for the reports.
"""
from __future__ import annotations

import hashlib
import os
import random
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

from punstats.model.escape import markdown_code, markdown_text, visible
from punstats.store import labels as stored
from punstats.store.labels import Row

#: Lines of context above and below an occurrence (``punstats label --context``).
DEFAULT_CONTEXT = 3

#: Longer spans show this many lines at each end, and ``...`` between.
SPAN_ENDS = 6

#: Characters of one source line shown; longer lines are cut.
LINE_CHARS = 300

UNLABELLED = "(unlabelled)"


class Sources:
    """The files of a scan's root, read once each, checked against the scan's sha256; a path is
    followed through links only while it stays under the root."""

    def __init__(self, root: Any) -> None:
        self.root = root if isinstance(root, str) and os.path.isdir(root) else None
        self._lines: Dict[str, Any] = {}

    def lines(self, path: str, sha256: str, cell: Optional[int] = None) -> Any:
        """The file's lines (a notebook's: those of ``cell``), or a string saying why they cannot be shown."""
        if path not in self._lines:
            self._lines[path] = self._read(path, sha256)
        lines = self._lines[path]
        if isinstance(lines, dict):  # a notebook's cells
            return lines.get(cell, "(source not shown: the notebook has no Python code cell %s)" % cell)
        return lines

    def _location(self, path: str) -> Optional[str]:
        """Where ``path`` (relative, as the tables hold it) is, links resolved, or None when that is
        not under the root: a path from a table is never trusted to stay there (``..``, a link out)."""
        parts = path.replace("\\", "/").split("/")
        if self.root is None or os.path.isabs(path) or "\0" in path or any(p in ("", ".", "..") for p in parts):
            return None
        root = os.path.realpath(self.root)
        location = os.path.realpath(os.path.join(root, *parts))
        return location if location != root and os.path.commonpath([root, location]) == root else None

    def _read(self, path: str, sha256: str) -> Any:
        from punstats.discover.read import read_source
        from punstats.extract.decode import DECODE_ERRORS, decode_source
        from punstats.extract.notebook import NOTEBOOK_SUFFIX, cell_sources
        from punstats.extract.text import SourceText
        if self.root is None:
            return "(source not shown: the scanned directory is not there any more, e.g. an unpacked archive)"
        location = self._location(path)
        if location is None:
            return "(source not shown: the path does not name a file under the scanned directory)"
        try:
            data = read_source(location)
        except OSError as exc:
            return "(source not shown: cannot read the file: %s)" % (exc.strerror or exc)
        if hashlib.sha256(data).hexdigest() != sha256:
            return "(source not shown: the file changed since the scan)"
        if path.endswith(NOTEBOOK_SUFFIX):
            return cell_sources(data)
        try:
            lines = SourceText(decode_source(data)[0]).lines
        except DECODE_ERRORS:
            return "(source not shown: the file cannot be decoded)"
        return lines[:-1] if lines and lines[-1] == "" else lines  # no line after the last line break


def shown_line(number: int, text: str, hit: bool) -> str:
    """Source line ``number`` as a sheet shows it: numbered, marked ``>`` when it holds the hit, cut, escaped."""
    text = visible(text.expandtabs(8))
    if len(text) > LINE_CHARS:
        text = text[:LINE_CHARS] + "..."
    return "%5d %s %s" % (number, ">" if hit else "|", text)


def context_text(lines: Any, line: int, end_line: int, context: int) -> str:
    """The lines ``line`` to ``end_line`` (marked ``>``) with ``context`` lines around them."""
    if isinstance(lines, str):
        return lines
    end_line = max(end_line, line)
    first, last = max(1, line - context), min(len(lines), end_line + context)
    numbers = list(range(first, last + 1))
    if end_line - line + 1 > 2 * SPAN_ENDS:
        numbers = [n for n in numbers if n < line + SPAN_ENDS or n > end_line - SPAN_ENDS]
    out, previous = [], None
    for number in numbers:
        if previous is not None and number != previous + 1:
            out.append("      ...")
        out.append(shown_line(number, lines[number - 1], line <= number <= end_line))
        previous = number
    return "\n".join(out) or "(source not shown: line %d is not in the file)" % line


def _test_rule(summary: Dict[str, Any]) -> Any:
    from punstats.store.rules import parse_test_rule
    return parse_test_rule(str(summary.get("test_rule", "components")))


def sheet_row(occurrence: Row, sources: Sources, rule: Any, context: int, label: str = "") -> Row:
    """One row of a scan's sheet (every cell a string)."""
    lines = sources.lines(occurrence["path"], occurrence["sha256"], occurrence.get("cell"))
    return row_of(occurrence, rule.is_test(occurrence["path"]), label,
                  context_text(lines, occurrence["line"], occurrence["end_line"], context))


def row_of(occurrence: Row, in_test: bool, label: str, source: str) -> Row:
    """A sheet's row (every cell a string): the occurrence's place, and a run's project, as stored."""
    row = {column: str(occurrence[column]) for column in stored.RUN_COLUMNS if column in occurrence}
    cell = occurrence.get("cell")
    row.update(cell="" if cell is None else str(cell), in_test=str(in_test), name=str(occurrence["name"] or ""),
               label=label, source=source)
    return row


@dataclass(frozen=True)
class Written:
    """A sheet written: its files, its rows, how many carry a label, and the kind's occurrences."""

    csv: str
    markdown: str
    rows: int
    labelled: int
    occurrences: int


@dataclass(frozen=True)
class Sheet:
    """What a labels sheet is made of: the ``occurrences`` of ``kind`` in the stored scan or run
    ``directory`` (in the sheet's order), its ``columns``, what its Markdown calls the corpus,
    and ``row``, which makes an occurrence's row from it and its label."""

    directory: str
    kind: str
    corpus: str
    occurrences: List[Row]
    columns: Sequence[str]
    row: Callable[[Row, str], Row]


def draw(occurrences: Sequence[Row], sample: Optional[int], seed: int, quota: Optional[int] = None,
         stratum: str = "project") -> Set[str]:
    """The keys of the occurrences drawn: every one when neither ``sample`` nor ``quota`` is given;
    ``sample`` alone: ``random.Random(seed).sample`` of them; with ``quota``: a shuffle by
    ``random.Random(seed)``, walked in order, taking each occurrence whose ``stratum`` (a run's
    project) holds fewer than ``quota`` taken so far, until ``sample`` are taken (or all that fit)."""
    if sample is None and quota is None:
        return {o["key"] for o in occurrences}
    if quota is None:
        return {o["key"] for o in random.Random(seed).sample(occurrences, min(sample or 0, len(occurrences)))}
    taken: Dict[Any, int] = {}
    keys: Set[str] = set()
    for occurrence in random.Random(seed).sample(occurrences, len(occurrences)):
        if sample is not None and len(keys) == sample:
            break
        if taken.get(occurrence[stratum], 0) < quota:
            taken[occurrence[stratum]] = taken.get(occurrence[stratum], 0) + 1
            keys.add(occurrence["key"])
    return keys


def write(sheet: Sheet, output: Optional[str] = None, sample: Optional[int] = None, seed: int = 0,
          quota: Optional[int] = None) -> Written:
    """Write ``sheet`` as ``labels-KIND.csv`` and ``.md`` into ``output`` (default: its directory),
    keeping the labels the CSV there holds: the rows ``draw`` chooses and every row already in it.
    Nothing is written when it holds a key that is not an occurrence of the kind (``LabelError``)."""
    target = output or sheet.directory
    csv_path = os.path.join(target, stored.csv_name(sheet.kind))
    drawn = draw(sheet.occurrences, sample, seed, quota)
    os.makedirs(target, exist_ok=True)
    rows = _merged(sheet, csv_path, drawn)
    md_path = os.path.join(target, stored.markdown_name(sheet.kind))
    from punstats.store.staging import write_atomic
    write_atomic(md_path, markdown(sheet.kind, rows, {"corpus": sheet.corpus}).encode("utf-8"))
    return Written(csv_path, md_path, len(rows), sum(1 for r in rows if r["label"]), len(sheet.occurrences))


#: How many times a sheet saved by someone else while it is written is read and merged again.
MERGES = 5


def _merged(sheet: Sheet, csv_path: str, drawn: Set[str]) -> List[Row]:
    """Write the rows of ``drawn`` and of the sheet at ``csv_path`` with its labels, merged with the
    sheet as it is when it is replaced (read again if it was saved meanwhile); the rows written."""
    name = stored.csv_name(sheet.kind)
    for _ in range(MERGES):
        read = stored.sheet_bytes(csv_path)
        existing = stored.labels_of(stored.parse_sheet(read, name), (o["key"] for o in sheet.occurrences), name,
                                    sheet.kind)
        rows = [sheet.row(o, existing.get(o["key"], {}).get("label", "")) for o in sheet.occurrences
                if o["key"] in drawn or o["key"] in existing]
        try:
            stored.replace_sheet(csv_path, rows, sheet.columns, read)
            return rows
        except stored.SheetChanged:
            continue
    raise stored.LabelError("%s changed each of the %d times punstats wrote it: nothing was written; save it "
                            "and run punstats label again" % (name, MERGES))


def write_labels(directory: str, kind: str, context: int = DEFAULT_CONTEXT, sample: Optional[int] = None,
                 seed: int = 0, output: Optional[str] = None) -> Written:
    """Write the labels sheet of ``kind`` for the stored scan ``directory`` (into
    ``output`` when given), keeping the labels its sheet there holds already.
    ``sample``: a random ``sample`` of the occurrences (drawn with ``seed``), and
    the rows already in the sheet.  Nothing is written when the sheet holds a
    key that is not an occurrence of the kind in the scan (``LabelError``)."""
    from punstats.store.disk import read_summary
    summary = read_summary(directory)
    occurrences = stored.occurrences_of(directory, stored.check_kind(kind))
    if not occurrences:
        _check_known(directory, summary, kind)
    sources, rule = Sources(summary.get("root")), _test_rule(summary)
    sheet = Sheet(directory, kind, str(summary.get("corpus", "")), occurrences, stored.COLUMNS,
                  lambda o, label: sheet_row(o, sources, rule, context, label))
    return write(sheet, output, sample, seed)


def _check_known(directory: str, summary: Dict[str, Any], kind: str) -> None:
    """A kind without occurrences must be one the scan stores as occurrences, else the one-line
    ``OptionError`` of ``analysis.asked.occurrence_kind`` (a count such as ``calls_mixed`` has no
    places to label; an unknown name gets the nearest one)."""
    from punstats.analysis.asked import occurrence_kind
    from punstats.patterns.built_in import registry_of
    occurrence_kind(registry_of(summary), kind, directory)


def _fence(text: str) -> str:
    return "`" * max(3, max((len(run) + 1 for run in re.findall("`+", text)), default=0))


def place(row: Row) -> str:
    """A row's path; a run's under ``PROJECT-VERSION/``, where its release unpacks (as ``punstats hits`` shows it)."""
    path = str(row.get("path", ""))
    return "%s-%s/%s" % (row["project"], row.get("release", ""), path) if row.get("project") else path


def markdown(kind: str, rows: Sequence[Row], summary: Optional[Dict[str, Any]] = None) -> str:
    """The sheet to read: one heading, source block and ``label:`` line per row."""
    corpus = " in %s" % markdown_text(str(summary.get("corpus", ""))) if summary else ""
    labelled = sum(1 for row in rows if row.get("label", "").strip())
    parts = ["# Labels of `%s` occurrences%s" % (kind, corpus),
             "Written by `punstats label`: %d occurrences, %d labelled. Enter labels in the `label` column "
             "of `%s`, the source of truth; this file is written from it." % (len(rows), labelled,
                                                                             stored.csv_name(kind))]
    for number, row in enumerate(rows, start=1):
        test = " (test code)" if str(row.get("in_test", "")).lower() == "true" else ""
        source = "\n".join(visible(line) for line in str(row.get("source", "")).split("\n"))
        fence = _fence(source)
        label = row.get("label", "").strip()
        cell = " cell %s," % markdown_text(str(row["cell"])) if row.get("cell") else ""
        parts += ["## %d. %s,%s line %s, column %s%s" % (number, markdown_code(place(row)), cell,
                                                         markdown_text(str(row.get("line", ""))),
                                                         markdown_text(str(row.get("col", ""))), test),
                  "%spython\n%s\n%s" % (fence, source, fence),
                  "label: %s  \nkey: `%s`" % (markdown_text(label) if label else "(none yet)",
                                              visible(str(row.get("key", ""))).replace("`", ""))]
    return "\n\n".join(parts) + "\n"


def label_counts(directory: str, summary: Dict[str, Any], kind: str) -> List[Tuple[str, int, int]]:
    """(label, outside tests, in tests) for the occurrences of ``kind``: the labels of
    the sheet stored in ``directory``, most common first, then ``UNLABELLED``."""
    occurrences = stored.occurrences_of(directory, stored.check_kind(kind))
    rule = _test_rule(summary)
    return tally(occurrences, sheet_labels(directory, kind, occurrences), lambda o: rule.is_test(o["path"]))


def sheet_labels(directory: str, kind: str, occurrences: Sequence[Row]) -> Dict[str, str]:
    """The labels of the sheet of ``kind`` stored in ``directory``, by key, once every key is one of
    ``occurrences`` (``LabelError`` naming the first row that is not)."""
    sheet = stored.labels_of(stored.read_sheet(os.path.join(directory, stored.csv_name(kind))),
                             (o["key"] for o in occurrences), stored.csv_name(kind), kind)
    return {key: row["label"] for key, row in sheet.items()}


def tally(occurrences: Sequence[Row], labels: Dict[str, str],
          in_test: Callable[[Row], bool]) -> List[Tuple[str, int, int]]:
    """(label, outside tests, in tests) of ``occurrences`` (``labels`` by key; none: ``UNLABELLED``),
    most common first, then ``UNLABELLED``."""
    counts: Dict[str, List[int]] = {}
    for occurrence in occurrences:
        label = labels.get(occurrence["key"], "") or UNLABELLED
        counts.setdefault(label, [0, 0])[1 if in_test(occurrence) else 0] += 1
    return [(label, counts[label][0], counts[label][1]) for label in ordered({k: sum(v) for k, v in counts.items()})]


def ordered(counts: Dict[str, int]) -> List[str]:
    """The labels of ``counts`` (label: occurrences), most common first, then ``UNLABELLED``."""
    order = sorted((label for label in counts if label != UNLABELLED), key=lambda text: (-counts[text], text))
    return order + ([UNLABELLED] if UNLABELLED in counts else [])


def labelled_share(counts: Sequence[Tuple[str, int, int]], escape: Callable[[str], str] = markdown_text) -> str:
    """How many occurrences are labelled, of how many, and with which labels, in words:
    "37 of 203 labelled (18.23%): 12 bug, 25 fine" (``counts``: a ``label_counts`` list; each label
    as the readers wrote it, passed through ``escape``, the medium's function of ``model.escape``)."""
    total = sum(nontest + test for _, nontest, test in counts)
    labelled = [(label, nontest + test) for label, nontest, test in counts if label != UNLABELLED]
    done = sum(n for _, n in labelled)
    from punstats.analysis.units import share
    from punstats.present.formats import percent_text
    text = "%s of %s labelled (%s)" % (format(done, ","), format(total, ","), percent_text(share(done, total)))
    return text + (": " + ", ".join("%s %s" % (format(n, ","), escape(label)) for label, n in labelled)
                   if labelled else "")


def labelled_kinds(directory: Optional[str], kind: Optional[str] = None) -> List[str]:
    """The kinds to count for a scan: ``kind`` when given, else those it holds a sheet of."""
    if kind is not None:
        return [stored.check_kind(kind)]
    return stored.kinds_labelled(directory) if directory else []


def labelled_counts(results: Sequence[Any], directories: Sequence[Optional[str]], kind: Optional[str] = None,
                    required: bool = True) -> List[Tuple[int, str, List[Tuple[str, int, int]]]]:
    """(the scan's index in ``results``, a labelled kind, its ``label_counts``) for every scan
    stored in a directory and every kind labelled there (or ``kind``), each sheet read once;
    ``required``: ``LabelError`` when there are none; a ``kind`` none of them stores as occurrences:
    the one-line ``OptionError`` of ``analysis.asked.occurrence_kind``."""
    if kind is not None and results:
        from punstats.analysis.asked import occurrence_kind
        from punstats.analysis.units import union
        where = ", ".join(d for d in directories if d) or "the scans"
        occurrence_kind(union([r.summary for r in results]), kind, where)
    found = [(index, name, label_counts(directory, result.summary, name))
             for index, (result, directory) in enumerate(zip(results, directories)) if directory
             for name in labelled_kinds(directory, kind)]
    if required and not found:
        raise stored.LabelError("no labels in %s: punstats label DIR --kind NAME writes a sheet to fill"
                                % ", ".join(d for d in directories if d))
    return found


def label_table(summary: Dict[str, Any], kind: str, counts: Sequence[Tuple[str, int, int]]) -> Any:
    """The table of one scan's ``label_counts`` of ``kind`` (``counts_table``)."""
    from punstats.present.provenance import provenance, source_url
    return counts_table(kind, counts, summary["corpus"], provenance(summary), source_url(summary))


def counts_table(kind: str, counts: Sequence[Tuple[str, int, int]], name: str, note: str, link: Optional[str],
                 projects: Optional[Dict[str, int]] = None) -> Any:
    """The counts per label of ``kind`` in the scan or run ``name``: outside tests, in tests and in all
    (``projects``, a run's: in how many projects, by label); ``note``: its provenance, ``link``: its address."""
    from punstats.present.formats import Label, Table
    rows = tuple((Label(label) if label == UNLABELLED else label, nontest, test, nontest + test)
                 + (() if projects is None else (projects.get(label, 0),)) for label, nontest, test in counts)
    header = (Label("Label"), Label("Non-test"), Label("Test"), Label("All"))
    return Table(header=header + (() if projects is None else (Label("Projects"),)), rows=rows,
                 notes=(note,), note_links=(link,), title=(Label("Labels of `%s` occurrences in " % kind), name),
                 title_note=0)


def label_tables(results: Sequence[Any], directories: Sequence[Optional[str]], kind: Optional[str] = None,
                 required: bool = True) -> List[Any]:
    """One table per scan and labelled kind (``label_table``); ``required``: ``LabelError`` when there are none."""
    return [label_table(results[index].summary, name, counts)
            for index, name, counts in labelled_counts(results, directories, kind, required)]
