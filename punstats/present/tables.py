"""Tables of stored scans, in the formats people paste numbers into.

This module owns presentation only: which rows and columns a table has, and
how a table is written as a reST simple table (the shape PEPs use, e.g. the
"Applicability" table of PEP 736), Markdown, CSV or LaTeX.  Every number
comes from a scan's summary or from ``punstats.analysis``.

Formatting rules: counts with thousands separators (``3,715``), percentages
with two decimals (``10.70%``), a share of nothing (0 of 0) ``n/a``; CSV holds
the plain numbers instead (``3715``, ``10.70``, an empty cell); a rate per million prints by
``formats.rate_text``.  Each table states its corpus, revision, Python version and every rule
that changes a count in a footnote (``provenance.provenance``).  ``table --format csv`` writes
``present.tidy`` frames instead, provenance in columns; ``render(table, "csv")`` keeps the
notes as ``#`` comment lines, for a reader of that one table.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from punstats import analysis
from punstats.analysis import units as analysis_units
from punstats.model.errors import OptionError
from punstats.model.intervals import FILES_BOOTSTRAP, SCAN_SHARES, Bootstrap, Interval
from punstats.model.kinds import Registry

# part of this module's API since it held them: the renderers and the provenance slug
from punstats.present.formats import (  # noqa: F401
    FORMATS,
    NOT_AVAILABLE,
    Cell,
    Code,
    Label,
    Percent,
    Rate,
    Span,
    Table,
    Text,
    markdown_code,
    markdown_text,
    percent_text,
    render,
    render_all,
)
from punstats.present.provenance import (
    column_names,
    provenance,
    slug,  # noqa: F401
    source_url,
)

KINDS = ("summary", "kinds", "length", "identifier", "callee", "directory")


#: ``table --by``: the kinds above, and the counts per label of the labels stored with a scan
#: (``present.labels``), which need the scans' directories.
BY = KINDS + ("label",)


#: Lengths from this one on share the last row of a ``length`` table
#: (unless the long threshold is larger).
LENGTH_OPEN_FROM = 20


#: Rows of a ``top`` or ``directory`` table.
TOP_ROWS = 20


#: The rows of the ``summary`` table: (label, summary key).  ``{long}`` is
#: replaced by the long threshold; keys ending in ``_pct`` are percentages.
SUMMARY_ROWS = (
    ("Keyword arguments of the form `f(x=x)`", "punnable"),
    ("% of all keyword arguments", "punnable_pct"),
    ("% of keyword arguments outside tests", "punnable_nontest_pct"),
    ("All keyword arguments", "keywords"),
    ("Calls with at least one `f(x=x)` argument", "calls_with_punnable"),
    ("Long: identifier of {long} or more characters", "long"),
    ("Long, outside tests", "long_nontest"),
    ("Files parsed", "parsed"),
    ("Files that failed to parse", "failed"),
)


#: Shown when a scan measured it (``scan --lines-saved``); "n/a" for scans that did not.
LINES_SAVED_ROW = ("Lines saved by punning (`rewrite --rewrap`)", "lines_saved")


def common_long_threshold(summaries: Sequence[Dict[str, Any]]) -> int:
    thresholds = sorted({int(s["long_threshold"]) for s in summaries})
    if len(thresholds) != 1:
        raise OptionError("the scans use different long thresholds (%s); re-apply one to all of them"
                         % ", ".join(map(str, thresholds)))
    return thresholds[0]


def with_outside_tests(result: Any) -> Dict[str, Any]:
    """The summary of ``result``, with the outside-tests share computed from
    its files table when the scan was stored before punstats recorded it."""
    if "punnable_nontest_pct" in result.summary:
        return result.summary
    return dict(result.summary, **analysis.outside_tests(result.files))


#: What ``table --rows`` chooses from: the keys of the summary table's rows.
ROW_KEYS = tuple(key for _, key in SUMMARY_ROWS) + (LINES_SAVED_ROW[1],)


def check_rows(rows: Optional[Sequence[str]]) -> None:
    """``table --rows``: every key names a row of the summary table."""
    unknown = [key for key in rows or () if key not in ROW_KEYS]
    if unknown:
        raise OptionError("unknown row %r (choose from %s)" % (unknown[0], ", ".join(ROW_KEYS)))


def interval_row(intervals: Sequence[Interval], method: Bootstrap) -> Tuple[Cell, ...]:
    """The row under a share of ``summary_table``: each scan's 95 % interval, labelled with how it
    was made (over a scan's files)."""
    return (Label("95%% interval (bootstrap over %s, %s resamples, seed %d)" % (
        method.unit, format(method.resamples, ","), method.seed)),
        *[Span("%s to %s" % (percent_text(i.low), percent_text(i.high)) if i.known else NOT_AVAILABLE)
          for i in intervals])


def summary_table(results: Sequence[Any], rows: Optional[Sequence[str]] = None,
                  method: Bootstrap = FILES_BOOTSTRAP) -> Table:
    """The PEP 736 "Applicability" table: one column per scan; ``rows``
    chooses and orders the rows by key (``ROW_KEYS``); under each share, its 95 % interval
    (``analysis.uncertainty.scan_intervals``, bootstrapped as ``method`` says)."""
    summaries = [with_outside_tests(r) for r in results]
    if not summaries:
        raise OptionError("no scans to tabulate")
    long_threshold = common_long_threshold(summaries)
    names = column_names(summaries)
    check_rows(rows)
    chosen = list(rows) if rows else [key for _, key in SUMMARY_ROWS] + (
        [LINES_SAVED_ROW[1]] if any("lines_saved" in s for s in summaries) else [])
    labels = {key: label for label, key in SUMMARY_ROWS + (LINES_SAVED_ROW,)}
    body = []
    values: List[Any]
    scan_shares: List[Dict[str, Any]] = []
    for key in chosen:
        if key == LINES_SAVED_ROW[1]:
            values = [int(s["lines_saved"]["lines_saved"]) if "lines_saved" in s else Label("n/a")
                      for s in summaries]
        else:
            values = [Percent(analysis_units.stored_share(s, key)) if key.endswith("_pct") else int(s[key])
                      for s in summaries]
        body.append((Label(labels[key].format(long=long_threshold)), *values))
        if key in dict(SCAN_SHARES):  # numpy is imported only when a table is made, not for --help
            from punstats.analysis.uncertainty import scan_intervals
            # both shares' intervals come from one bootstrap per scan, made for the first row asking
            scan_shares = scan_shares or [scan_intervals(r.files, method) for r in results]
            body.append(interval_row([shares[key] for shares in scan_shares], method))
    return Table(header=(Label("Statistic"), *names), rows=tuple(body),
                 notes=tuple(provenance(s, name) for s, name in zip(summaries, names)),
                 note_links=tuple(source_url(s) for s in summaries),
                 header_notes=(None, *range(len(summaries))))


def kinds_table(results: Sequence[Any], registry: Optional[Registry] = None) -> Table:
    """One row per row of the registry (default: the scans' own), per scan its
    count and its share of the row's unit (stated in the last column); then,
    where the scans recorded them, the counts outside tests and their shares,
    and the rates per million lines of code."""
    summaries = [r.summary for r in results]
    if not summaries:
        raise OptionError("no scans to tabulate")
    names = column_names(summaries)
    registry = registry if registry is not None else analysis_units.union(summaries)
    table = analysis.kinds_comparison(summaries, registry)
    blocks = _kinds_blocks(table, len(summaries))
    rows = []
    for kind, row in table.iterrows():
        cells: List[Cell] = [row["label"] if registry[kind].user else Label(row["label"])]  # a user's text: escaped
        for block in blocks:
            for index in range(len(summaries)):
                cells += _kinds_cells(row, block, index)
        cells.append(Label(analysis_units.measure_words(row["denominator"])))
        rows.append(tuple(cells))
    # a pattern counted per line or file has a rate where the others have a share: the headers say both
    rates = any(kind.per and not analysis_units.is_share(kind.per) for kind in registry if kind.name in table.index)
    measure = Label("Share or rate" if rates else "Share")
    header: List[Text] = [Label("Pattern")]
    header_notes: List[Optional[int]] = [None]
    for block in blocks:
        for index, name in enumerate(names):
            header += [name + _KINDS_BLOCKS[block]] + ([measure] if block != "per_million" else [])
            header_notes += [index if block == "count" else None] + ([None] if block != "per_million" else [])
    header.append(Label("Share of, or rate" if rates else "Share of"))  # a lone "%" would read as a reST transition
    title = "Patterns counted in the scans" if registry.user else "Keyword-argument patterns besides `f(x=x)`"
    return Table(header=tuple(header), rows=tuple(rows),
                 notes=tuple(provenance(s, name) for s, name in zip(summaries, names)),
                 note_links=tuple(source_url(s) for s in summaries), header_notes=tuple(header_notes),
                 title=(Label(title),))


#: The column groups of the kinds table: the count and share in all code, outside tests, per million lines of code.
_KINDS_BLOCKS = {"count": "", "nontest": ", outside tests", "per_million": ", per million lines of code"}


def _kinds_blocks(table: Any, scans: int) -> List[str]:
    """The column groups the scans hold numbers for (all code always)."""
    known = {"nontest": any(table["nontest_%d" % i].notna().any() for i in range(scans)),
             "per_million": any(table["per_million_%d" % i].notna().any() for i in range(scans))}
    return ["count"] + [block for block in ("nontest", "per_million") if known[block]]


def _kinds_cells(row: Any, block: str, index: int) -> List[Cell]:
    """One scan's cells of one column group of a kinds table row."""
    if block == "per_million":
        rate = row["per_million_%d" % index]
        return [Rate(float(rate)) if rate == rate else Label("")]
    prefix = "" if block == "count" else "nontest_"
    count = row[("count_%d" if block == "count" else "nontest_%d") % index]
    unit = row["denominator"]
    # NaN: a share of nothing, n/a; a unit of lines or files takes a rate per million, not a share
    measure = Percent(float(row[prefix + "pct_%d" % index])) if analysis_units.is_share(unit) \
        else Rate(float(row[prefix + "per_unit_%d" % index])) if unit else Label("")
    return [int(count) if count == count and count is not None else Label("n/a"), measure]


def length_table(result: Any, open_from: Optional[int] = None) -> Table:
    """Occurrences per identifier length, test / non-test, with the
    cumulative counts of identifiers at least that long."""
    threshold = int(result.summary["long_threshold"])
    last = open_from if open_from is not None else max(LENGTH_OPEN_FROM, threshold)
    table = analysis.length_distribution(result.occurrences, open_from=last)
    rows = []
    for length, row in table.iterrows():
        label = ">= %d" % length if length == last else str(length)
        if length == threshold:
            label += " (long)"
        rows.append((Label(label), int(row["nontest"]), int(row["test"]), int(row["total"]),
                     int(row["at_least"]), int(row["at_least_nontest"]), Percent(float(row["at_least_pct"]))))
    header = ("Length", "Non-test", "Test", "All", ">= length", ">= length, non-test", "% >= length")
    return Table(header=tuple(Label(h) for h in header), rows=tuple(rows),
                 notes=(provenance(result.summary),), note_links=(source_url(result.summary),), header_notes=(),
                 title=(Label("Identifier lengths of `f(x=x)` keyword arguments in "), result.summary["corpus"]),
                 title_note=0)


def top_table(result: Any, column: str, n: int = TOP_ROWS) -> Table:
    """The ``n`` most common identifiers (``column="name"``) or callees."""
    what = {"name": "identifiers", "callee": "callees"}[column]
    table = analysis.top_split(result.occurrences, column, n)
    rows = tuple((Code(str(value)), int(row["nontest"]), int(row["test"]), int(row["total"]))
                 for value, row in table.iterrows())
    heading = {"name": "Identifier", "callee": "Callee"}[column]
    return Table(header=(Label(heading), Label("Non-test"), Label("Test"), Label("All")), rows=rows,
                 notes=(provenance(result.summary),), note_links=(source_url(result.summary),),
                 title=(Label("Most common %s of `f(x=x)` keyword arguments in " % what),
                        result.summary["corpus"]),
                 title_note=0)


def directory_table(result: Any, n: int = TOP_ROWS) -> Table:
    """Where the occurrences are: per top-level directory or root file."""
    table = analysis.by_directory(result.occurrences, result.files, n=n)
    rows = tuple((Code(str(place)) if i < n else str(place),  # row n adds up the others
                  int(row["files"]), int(row["keywords"]), int(row["punnable"]),
                  int(row["punnable_nontest"]), int(row["punnable_test"]), Percent(float(row["punnable_pct"])))
                 for i, (place, row) in enumerate(table.iterrows()))
    header = ("Top-level directory or file", "Files parsed", "Keyword arguments", "`f(x=x)`",
              "Non-test", "Test", "% of keyword arguments")
    return Table(header=tuple(Label(h) for h in header), rows=rows,
                 notes=(provenance(result.summary),), note_links=(source_url(result.summary),),
                 title=(Label("Where the `f(x=x)` keyword arguments are in "), result.summary["corpus"]),
                 title_note=0)


def tables_of(kind: str, results: Sequence[Any], n: int = TOP_ROWS,
              rows: Optional[Sequence[str]] = None, directories: Optional[Sequence[Optional[str]]] = None,
              label_kind: Optional[str] = None, method: Bootstrap = FILES_BOOTSTRAP) -> List[Table]:
    """The tables of one kind: the summary (its intervals bootstrapped as ``method`` says), the
    kinds and (for several scans) the lengths compare all scans in one table, the other kinds give
    one table per scan (``label``: per scan and labelled kind, or ``label_kind``; the labels are
    read from the scans' ``directories``)."""
    if kind == "label":
        from punstats.present.labels import label_tables
        return label_tables(results, directories or [getattr(r, "directory", None) for r in results], label_kind)
    if kind == "summary":
        return [summary_table(results, rows, method)]
    if kind == "kinds":
        return [kinds_table(results)]
    if kind == "length":
        if len(results) > 1:  # one column per scan
            from punstats.present.compare import length_comparison_table
            return [length_comparison_table(results)]
        return [length_table(r) for r in results]
    if kind in ("identifier", "callee"):
        return [top_table(r, "name" if kind == "identifier" else "callee", n) for r in results]
    if kind == "directory":
        return [directory_table(r, n) for r in results]
    raise OptionError("unknown table kind %r (choose from %s)" % (kind, ", ".join(KINDS)))


