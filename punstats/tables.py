"""Tables of stored scans, in the formats people paste numbers into.

This module owns presentation only: which rows and columns a table has, and
how a table is written as a reST simple table (the shape PEPs use, e.g. the
"Applicability" table of PEP 736), Markdown, CSV or LaTeX.  Every number
comes from a scan's summary or from ``punstats.analysis``.

Formatting rules: counts with thousands separators (``3,715``), percentages
with two decimals (``10.70%``); CSV holds the plain numbers instead
(``3715``, ``10.70``).  Each table states its corpus, revision and Python
version in a footnote (CSV: ``#`` comment lines, ``read_csv(comment="#")``).
"""
from __future__ import annotations

import csv
import io
import re
import textwrap
import unicodedata
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from punstats import analysis

FORMATS = ("rst", "markdown", "csv", "latex")
KINDS = ("summary", "kinds", "length", "identifier", "callee", "directory")

#: Lengths from this one on share the last row of a ``length`` table
#: (unless the long threshold is larger).
LENGTH_OPEN_FROM = 20

#: Rows of a ``top`` or ``directory`` table.
TOP_ROWS = 20


@dataclass(frozen=True)
class Percent:
    """A percentage cell: ``10.70%`` (two decimals)."""

    value: float


@dataclass(frozen=True)
class Code:
    """A cell or text part shown as source code (an identifier, a callee)."""

    text: str


@dataclass(frozen=True)
class Label:
    """Fixed wording written by this module; `backticks` mark code."""

    text: str


Text = Union[str, Label, Code]  # a plain str is user data: always escaped
Cell = Union[Text, int, Percent]


@dataclass(frozen=True)
class Table:
    """A table before formatting.

    ``header_notes`` gives, per header cell, the index of the note it refers
    to (or None); ``title_note`` the same for the title.  Notes are listed in
    the order they are referred to.
    """

    header: Tuple[Text, ...]
    rows: Tuple[Tuple[Cell, ...], ...]
    notes: Tuple[str, ...] = ()
    header_notes: Tuple[Optional[int], ...] = ()
    title: Tuple[Text, ...] = ()
    title_note: Optional[int] = None


# -- what the tables hold --------------------------------------------------

#: The rows of the ``summary`` table: (label, summary key).  ``{long}`` is
#: replaced by the long threshold; keys ending in ``_pct`` are percentages.
SUMMARY_ROWS = (
    ("Keyword arguments of the form `f(x=x)`", "punnable"),
    ("% of all keyword arguments", "punnable_pct"),
    ("All keyword arguments", "keywords"),
    ("Calls with at least one `f(x=x)` argument", "calls_with_punnable"),
    ("Long: identifier of {long} or more characters", "long"),
    ("Long, outside tests", "long_nontest"),
    ("Files parsed", "parsed"),
    ("Files that failed to parse", "failed"),
)
#: Shown when a scan measured it (``scan --lines-saved``); "n/a" for scans that did not.
LINES_SAVED_ROW = ("Lines saved by punning (`rewrite --rewrap`)", "lines_saved")


def provenance(summary: Dict[str, Any], name: Optional[str] = None) -> str:
    """One sentence saying what a scan measured: corpus, revision, Python.
    ``name`` is what the table or figure calls the scan (default: its corpus)."""
    revision = summary.get("revision") or "unknown"
    if summary.get("commit_date"):
        revision += " (%s)" % summary["commit_date"]
    return ("%s: %s at revision %s; parsed by %s %s with punstats %s; test rule %s."
            % (name or summary["corpus"], summary.get("source", summary["corpus"]), revision,
               summary.get("python_implementation", "Python"), summary["python"],
               summary.get("punstats_version", "?"), summary["test_rule"]))


def slug(text: str) -> str:
    """``text`` made safe as part of a file name."""
    return re.sub(r"[^\w.+-]+", "-", text).strip("-.") or "scan"


def column_names(summaries: Sequence[Dict[str, Any]]) -> List[str]:
    """Corpus names, made unique (``src``, ``src (2)``) for columns and bars."""
    names, seen = [], {}  # type: List[str], Dict[str, int]
    for summary in summaries:
        name = summary["corpus"]
        seen[name] = seen.get(name, 0) + 1
        names.append(name if seen[name] == 1 else "%s (%d)" % (name, seen[name]))
    return names


def common_long_threshold(summaries: Sequence[Dict[str, Any]]) -> int:
    thresholds = sorted({int(s["long_threshold"]) for s in summaries})
    if len(thresholds) != 1:
        raise ValueError("the scans use different long thresholds (%s); re-apply one to all of them"
                         % ", ".join(map(str, thresholds)))
    return thresholds[0]


def summary_table(results: Sequence[Any]) -> Table:
    """The PEP 736 "Applicability" table: one column per scan."""
    summaries = [r.summary for r in results]
    if not summaries:
        raise ValueError("no scans to tabulate")
    long_threshold = common_long_threshold(summaries)
    names = column_names(summaries)
    rows = []
    for label, key in SUMMARY_ROWS:
        values = [Percent(float(s[key])) if key.endswith("_pct") else int(s[key]) for s in summaries]
        rows.append((Label(label.format(long=long_threshold)), *values))
    if any("lines_saved" in s for s in summaries):
        rows.append((Label(LINES_SAVED_ROW[0]), *(int(s["lines_saved"]["lines_saved"]) if "lines_saved" in s
                                                   else Label("n/a") for s in summaries)))
    return Table(header=(Label("Statistic"), *names), rows=tuple(rows),
                 notes=tuple(provenance(s, name) for s, name in zip(summaries, names)),
                 header_notes=(None, *range(len(summaries))))


def kinds_table(results: Sequence[Any]) -> Table:
    """One row per recorded pattern, per scan its count and its share of the
    row's denominator (stated in the last column)."""
    summaries = [r.summary for r in results]
    if not summaries:
        raise ValueError("no scans to tabulate")
    names = column_names(summaries)
    table = analysis.kinds_comparison(summaries)
    denominators = {"keywords": "keyword arguments", "dict_entries": "string-keyed dict entries",
                    "class_keywords": "class keywords", "calls": "calls", "functions": "functions", "": ""}
    rows = []
    for _, row in table.iterrows():
        cells: List[Cell] = [Label(row["label"])]
        for index in range(len(summaries)):
            count, share = row["count_%d" % index], row["pct_%d" % index]
            cells.append(int(count) if count == count and count is not None else Label("n/a"))
            cells.append(Percent(float(share)) if share == share else Label(""))
        cells.append(Label(denominators[row["denominator"]]))
        rows.append(tuple(cells))
    header: List[Text] = [Label("Pattern")]
    for name in names:
        header += [name, Label("Share")]  # a lone "%" would read as a reST transition
    header.append(Label("Share of"))
    return Table(header=tuple(header), rows=tuple(rows),
                 notes=tuple(provenance(s, name) for s, name in zip(summaries, names)),
                 header_notes=(None, *[i // 2 if i % 2 == 0 else None for i in range(2 * len(summaries))]),
                 title=(Label("Keyword-argument patterns besides `f(x=x)`"),))


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
                 notes=(provenance(result.summary),), header_notes=(),
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
                 notes=(provenance(result.summary),),
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
                 notes=(provenance(result.summary),),
                 title=(Label("Where the `f(x=x)` keyword arguments are in "), result.summary["corpus"]),
                 title_note=0)


def tables_of(kind: str, results: Sequence[Any], n: int = TOP_ROWS) -> List[Table]:
    """The tables of one kind: the summary compares all scans in one table,
    the other kinds give one table per scan."""
    if kind == "summary":
        return [summary_table(results)]
    if kind == "kinds":
        return [kinds_table(results)]
    if kind == "length":
        return [length_table(r) for r in results]
    if kind in ("identifier", "callee"):
        return [top_table(r, "name" if kind == "identifier" else "callee", n) for r in results]
    if kind == "directory":
        return [directory_table(r, n) for r in results]
    raise ValueError("unknown table kind %r (choose from %s)" % (kind, ", ".join(KINDS)))


# -- writing them ----------------------------------------------------------

def render(table: Table, fmt: str = "rst", notes: bool = True, first_note: int = 1) -> str:
    """``table`` as text in ``fmt``; footnotes numbered from ``first_note``
    (reST uses auto-numbered footnotes, which number themselves)."""
    writers = {"rst": _rst, "markdown": _markdown, "csv": _csv, "latex": _latex}
    if fmt not in writers:
        raise ValueError("unknown table format %r (choose from %s)" % (fmt, ", ".join(FORMATS)))
    if not notes:
        table = Table(table.header, table.rows, title=table.title)
    return writers[fmt](table, first_note)


def render_all(tables: Sequence[Table], fmt: str = "rst") -> str:
    """Several tables one after another, footnote numbers running on."""
    parts, first = [], 1
    for table in tables:
        parts.append(render(table, fmt, first_note=first).rstrip("\n"))
        first += len(table.notes)
    return "\n\n".join(parts) + "\n"


def _marks(table: Table) -> Tuple[List[Optional[int]], Optional[int]]:
    header = list(table.header_notes) + [None] * (len(table.header) - len(table.header_notes))
    return header, table.title_note


def _numeric(table: Table) -> List[bool]:
    columns = list(zip(*table.rows)) if table.rows else [()] * len(table.header)
    return [bool(col) and all(isinstance(c, (int, Percent)) for c in col) for col in columns]


def _width(text: str) -> int:
    """Display width in a monospaced font (wide East Asian characters: 2)."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def _pad(text: str, width: int, right: bool = False) -> str:
    fill = " " * (width - _width(text))
    return fill + text if right else text + fill


def _number(cell: Union[int, Percent], plain: bool = False) -> str:
    if isinstance(cell, Percent):
        return "%.2f" % cell.value if plain else "%.2f%%" % cell.value
    return str(cell) if plain else format(cell, ",")


def _label_parts(text: str) -> List[Tuple[str, bool]]:
    """`backtick` markup -> [(text, is_code)]."""
    return [(part, i % 2 == 1) for i, part in enumerate(text.split("`")) if part]


def _text(cell: Cell, plain, code, numbers=_number) -> str:
    """A cell through a format's escapes: ``plain`` for text, ``code`` for code."""
    if isinstance(cell, (int, Percent)):
        return numbers(cell)
    if isinstance(cell, Code):
        return code(cell.text)
    if isinstance(cell, Label):
        return "".join(code(part) if is_code else plain(part, False) for part, is_code in _label_parts(cell.text))
    return plain(cell, True)


def _join_text(parts: Sequence[Text], plain, code) -> str:
    return "".join(_text(part, plain, code) for part in parts)


# reST ----------------------------------------------------------------------

_RST_SPECIAL = re.compile(r"([\\`*_|\[\]<>])")
_RST_LIST_START = re.compile(r"^([-+*#(]|\w+[.)](\s|$))")


def _rst_plain(text: str, user: bool) -> str:
    escaped = _RST_SPECIAL.sub(r"\\\1", text) if user else text
    if _RST_LIST_START.match(escaped):  # would start a list or an enumeration
        escaped = "\\" + escaped
    return escaped


def _rst_code(text: str) -> str:
    return "``%s``" % text


def _rst(table: Table, first_note: int) -> str:
    header_marks, title_mark = _marks(table)
    header = [_text(cell, _rst_plain, _rst_code) + (" [#]_" if mark is not None else "")
              for cell, mark in zip(table.header, header_marks)]
    body = [[_text(cell, _rst_plain, _rst_code) for cell in row] for row in table.rows]
    widths = [max(_width(row[i]) for row in [header] + body) for i in range(len(header))]
    border = " ".join("=" * w for w in widths)

    def line(cells: Sequence[str]) -> str:
        return " ".join(_pad(c, w) for c, w in zip(cells, widths)).rstrip()

    lines = []
    if table.title:
        title = _join_text(table.title, _rst_plain, _rst_code)
        lines += [title + (" [#]_" if title_mark is not None else ""), ""]
    lines += [border, line(header), border] + [line(row) for row in body] + [border]
    if table.notes:
        lines.append("")
        for note in table.notes:
            lines += textwrap.wrap(_rst_plain(note, True), 79, initial_indent=".. [#] ", subsequent_indent="   ",
                                   break_long_words=False, break_on_hyphens=False)
    return "\n".join(lines) + "\n"


# Markdown ------------------------------------------------------------------

_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#])")


def markdown_text(text: str) -> str:
    """Plain text for Markdown: every character that could be markup escaped."""
    return _MD_SPECIAL.sub(r"\\\1", text)


def _md_plain(text: str, user: bool) -> str:
    return markdown_text(text) if user else text.replace("|", "\\|")


def markdown_code(text: str) -> str:
    """A Markdown code span holding ``text`` (also inside a table cell)."""
    ticks = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return ticks + pad + text.replace("|", "\\|") + pad + ticks


def _markdown(table: Table, first_note: int) -> str:
    header_marks, title_mark = _marks(table)
    header = [_text(cell, _md_plain, markdown_code) + ("[^%d]" % (first_note + mark) if mark is not None else "")
              for cell, mark in zip(table.header, header_marks)]
    body = [[_text(cell, _md_plain, markdown_code) for cell in row] for row in table.rows]
    right = _numeric(table)
    widths = [max(3, *(_width(row[i]) for row in [header] + body)) for i in range(len(header))]

    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(_pad(c, w, r) for c, w, r in zip(cells, widths, right)) + " |"

    rule = "| " + " | ".join(("-" * (w - 1) + ":") if r else "-" * w for w, r in zip(widths, right)) + " |"
    lines = []
    if table.title:
        title = _join_text(table.title, _md_plain, markdown_code)
        lines += ["**%s**%s" % (title, "[^%d]" % (first_note + title_mark) if title_mark is not None else ""), ""]
    lines += [line(header), rule] + [line(row) for row in body]
    if table.notes:
        lines.append("")
        lines += ["[^%d]: %s" % (first_note + i, _md_plain(note, True)) for i, note in enumerate(table.notes)]
    return "\n".join(lines) + "\n"


# CSV -----------------------------------------------------------------------

def _csv_plain(text: str, user: bool) -> str:
    return text


def _csv(table: Table, first_note: int) -> str:
    out = io.StringIO()
    if table.title:
        out.write("# %s\n" % _join_text(table.title, _csv_plain, str))
    for i, note in enumerate(table.notes):
        out.write("# [%d] %s\n" % (first_note + i, note))
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([_text(cell, _csv_plain, str) for cell in table.header])
    for row in table.rows:
        writer.writerow([_text(cell, _csv_plain, str, lambda c: _number(c, plain=True)) for cell in row])
    return out.getvalue()


# LaTeX ---------------------------------------------------------------------

_LATEX_ESCAPES = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}",
}


def _latex_plain(text: str, user: bool) -> str:
    if not user:
        text = text.replace(">=", "\0")
    escaped = "".join(_LATEX_ESCAPES.get(ch, ch) for ch in text)
    return escaped.replace("\0", r"$\geq$")


def _latex_code(text: str) -> str:
    return r"\texttt{%s}" % _latex_plain(text, True)


def _latex_number(cell: Union[int, Percent]) -> str:
    return _number(cell).replace("%", r"\%")


def _latex(table: Table, first_note: int) -> str:
    header_marks, title_mark = _marks(table)

    def mark(index: Optional[int]) -> str:
        return r"\textsuperscript{%d}" % (first_note + index) if index is not None else ""

    lines = ["% booktabs table written by punstats; needs \\usepackage{booktabs}"]
    if table.title:
        lines.append(r"\noindent %s%s\par\smallskip" % (_join_text(table.title, _latex_plain, _latex_code),
                                                         mark(title_mark)))
    spec = "".join("r" if numeric else "l" for numeric in _numeric(table))
    lines += [r"\begin{tabular}{%s}" % spec, r"\toprule",
              " & ".join(_text(c, _latex_plain, _latex_code) + mark(m)
                         for c, m in zip(table.header, header_marks)) + r" \\",
              r"\midrule"]
    for row in table.rows:
        lines.append(" & ".join(_text(c, _latex_plain, _latex_code, _latex_number) for c in row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    if table.notes:
        lines.append(r"\par\smallskip")
        lines += [r"{\footnotesize %s %s\par}" % (mark(i), _latex_plain(note, True))
                  for i, note in enumerate(table.notes)]
    return "\n".join(lines) + "\n"
