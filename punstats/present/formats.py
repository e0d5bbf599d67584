"""Writing a ``Table`` as reST (PEP simple table), Markdown, CSV or LaTeX.
"""
from __future__ import annotations

import csv
import io
import textwrap
import unicodedata
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple, Union

from punstats.model.errors import OptionError
from punstats.model.escape import (
    csv_cell,
    latex_text,
    markdown_code,
    markdown_text,
    rest_code,
    rest_text,
    visible,
)

FORMATS = ("rst", "markdown", "csv", "latex")


#: What a share of nothing (0 of 0, NaN) is written as; CSV leaves its cell empty, which
#: ``pandas.read_csv``, R's ``read.csv`` and spreadsheets all read as a missing number.
NOT_AVAILABLE = "n/a"


@dataclass(frozen=True)
class _Decimal:
    """A cell holding a float (a share with two decimals, a rate by ``rate_text``); NaN is ``n/a``."""

    value: float

    @property
    def known(self) -> bool:
        return self.value == self.value


class Percent(_Decimal):
    """A percentage cell: ``10.70%``; NaN (a share of nothing) is ``n/a``."""


class Rate(_Decimal):
    """A rate cell (per million lines of code): ``18,784`` or ``4.25`` (``rate_text``); NaN is ``n/a``."""


#: The cells that are numbers: right-aligned, written plain in CSV.
NUMBERS = (int, Percent, Rate)


@dataclass(frozen=True)
class Code:
    """A cell or text part shown as source code (an identifier, a callee)."""

    text: str


@dataclass(frozen=True)
class Label:
    """Fixed wording written by this module; `backticks` mark code."""

    text: str


@dataclass(frozen=True)
class Span(Label):
    """An interval written by this module (``9.10% to 10.40%``): wording, aligned as the numbers
    of its column."""


Text = Union[str, Label, Code]  # a plain str is user data: always escaped

Cell = Union[Text, int, Percent, Rate]


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
    note_links: Tuple[Optional[str], ...] = ()  # per note: an address for what it describes, if public

    def _repr_markdown_(self) -> str:
        """A notebook shows the table as Markdown, its notes without footnote syntax
        (JupyterLab renders no ``[^1]``)."""
        return render(self, "markdown", note_style="inline")


#: How Markdown marks a note: GFM footnotes (``[^1]``, which GitHub renders), or ``inline``:
#: a superscript ``<sup>1</sup>`` and the notes as a numbered list under the table, for
#: renderers without footnotes (JupyterLab's).
NOTE_STYLES = ("footnotes", "inline")


def render(table: Table, fmt: str = "rst", notes: bool = True, first_note: int = 1,
           links: bool = False, note_style: str = "footnotes") -> str:
    """``table`` as text in ``fmt``; footnotes numbered from ``first_note``
    (reST uses auto-numbered footnotes, which number themselves).
    ``links`` (Markdown): no footnotes; a header that has a note links to the
    public address of its scan, and the notes follow the table as plain text.
    ``note_style`` (Markdown): one of ``NOTE_STYLES``."""
    if note_style not in NOTE_STYLES:
        raise OptionError("unknown note style %r (choose from %s)" % (note_style, ", ".join(NOTE_STYLES)))
    markdown = _markdown_links if links else _markdown_inline if note_style == "inline" else _markdown
    writers = {"rst": _rst, "markdown": markdown, "csv": _csv, "latex": _latex}
    if fmt not in writers:
        raise OptionError("unknown table format %r (choose from %s)" % (fmt, ", ".join(FORMATS)))
    if not notes:
        table = Table(table.header, table.rows, title=table.title)
    return writers[fmt](table, first_note)


def render_all(tables: Sequence[Table], fmt: str = "rst", links: bool = False,
               note_style: str = "footnotes") -> str:
    """Several tables one after another, footnote numbers running on."""
    parts, first = [], 1
    for table in tables:
        parts.append(render(table, fmt, first_note=first, links=links, note_style=note_style).rstrip("\n"))
        first += len(table.notes)
    return "\n\n".join(parts) + "\n"


def _marks(table: Table) -> Tuple[List[Optional[int]], Optional[int]]:
    header = list(table.header_notes) + [None] * (len(table.header) - len(table.header_notes))
    return header, table.title_note


#: Cells a column of numbers may hold besides numbers: nothing (a project not scanned) and ``n/a``.
_BLANKS = (Label(""), Label(NOT_AVAILABLE))


def _numeric(table: Table) -> List[bool]:
    """Per column, whether it holds numbers (right-aligned): at least one, and nothing else but blanks."""
    columns = list(zip(*table.rows)) if table.rows else [()] * len(table.header)
    return [any(isinstance(c, NUMBERS) for c in col)
            and all(isinstance(c, (*NUMBERS, Span)) or c in _BLANKS for c in col) for col in columns]


def _width(text: str) -> int:
    """Display width in a monospaced font (wide East Asian characters: 2)."""
    return sum(0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
               for ch in text)


def _pad(text: str, width: int, right: bool = False) -> str:
    fill = " " * (width - _width(text))
    return fill + text if right else text + fill


def _number(cell: Union[int, Percent, Rate], plain: bool = False) -> str:
    if isinstance(cell, (Percent, Rate)):
        if not cell.known:
            return "" if plain else NOT_AVAILABLE
        if plain:
            return "%.2f" % cell.value
        return "%.2f%%" % cell.value if isinstance(cell, Percent) else rate_text(cell.value)
    return str(cell) if plain else format(cell, ",")


#: Significant figures of a rate below ``WHOLE_RATE`` (``rate_text``); from it on, whole numbers.
RATE_FIGURES = 3
WHOLE_RATE = 10 ** (RATE_FIGURES - 1)


def rate_text(value: float) -> str:
    """A rate (per million lines, lines of code, files) as every output prints it: a whole number
    from 100 on (``52,694``), else three significant figures (``18.8``, ``4.25``, ``0.0456``);
    ``n/a`` for NaN (nothing to divide by).  More digits than a count over a corpus supports is
    noise a reader takes for precision."""
    import math
    if value != value:
        return NOT_AVAILABLE
    rounded = float("%.*g" % (RATE_FIGURES, value))  # 99.96 rounds up to 100: whole from there
    if rounded == 0 or abs(rounded) >= WHOLE_RATE:
        return format(round(value), ",")
    return "%.*f" % (RATE_FIGURES - 1 - math.floor(math.log10(abs(rounded))), rounded)


def count_text(value: Any) -> str:
    """A count as every output writes it: thousands separated (``3,715``); ``n/a`` for a count
    not known (None, NaN: a kind a stored result did not count)."""
    return NOT_AVAILABLE if value is None or value != value else format(int(value), ",")


def count_cell(value: Any) -> "Cell":
    """A count as a table cell: the number, or ``n/a`` when it is not known (None, NaN)."""
    return Label(NOT_AVAILABLE) if value is None or value != value else int(value)


def percent_text(value: float) -> str:
    """A share as every output writes it: ``10.70%``, or ``n/a`` for NaN (a share of nothing)."""
    return _number(Percent(value))


def _label_parts(text: str) -> List[Tuple[str, bool]]:
    """`backtick` markup -> [(text, is_code)]."""
    return [(part, i % 2 == 1) for i, part in enumerate(text.split("`")) if part]


def _text(cell: Cell, plain, code, numbers=_number) -> str:
    """A cell through a format's escapes: ``plain`` for text, ``code`` for code."""
    if isinstance(cell, NUMBERS):
        return numbers(cell)
    if isinstance(cell, Code):
        return code(cell.text)
    if isinstance(cell, Label):
        return "".join(code(part) if is_code else plain(part, False) for part, is_code in _label_parts(cell.text))
    return plain(cell, True)


def _join_text(parts: Sequence[Text], plain, code) -> str:
    return "".join(_text(part, plain, code) for part in parts)


def _rst_plain(text: str, user: bool) -> str:
    return rest_text(text) if user else text


def _rst_code(text: str) -> str:
    return rest_code(text)


def _rst(table: Table, first_note: int) -> str:
    header_marks, title_mark = _marks(table)
    header = [_text(cell, _rst_plain, _rst_code) + (" [#]_" if mark is not None else "")
              for cell, mark in zip(table.header, header_marks)]
    body = [[_text(cell, _rst_plain, _rst_code) for cell in row] for row in table.rows]
    # a row whose first cell is blank continues the row above it in a simple table: an empty
    # comment ("..") starts a row of its own with an empty first cell (docutils' own advice)
    body = [[".." if i == 0 and not cell.strip() else cell for i, cell in enumerate(row)] for row in body]
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


def _md_plain(text: str, user: bool) -> str:
    return markdown_text(text) if user else text.replace("|", "\\|")


def _markdown(table: Table, first_note: int, mark_format: str = "[^%d]") -> str:
    header_marks, title_mark = _marks(table)
    header = [_text(cell, _md_plain, markdown_code) + (mark_format % (first_note + mark) if mark is not None else "")
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
        lines += ["**%s**%s" % (title, mark_format % (first_note + title_mark) if title_mark is not None else ""), ""]
    lines += [line(header), rule] + [line(row) for row in body]
    if table.notes:
        lines.append("")
        item = "[^%d]: %s" if mark_format == "[^%d]" else "%d. %s"  # inline: a numbered list, from first_note
        lines += [item % (first_note + i, _md_plain(note, True)) for i, note in enumerate(table.notes)]
    return "\n".join(lines) + "\n"


def _markdown_inline(table: Table, first_note: int) -> str:
    """Markdown whose notes are marked ``<sup>N</sup>`` and listed under the table (no footnotes)."""
    return _markdown(table, first_note, "<sup>%d</sup>")


def _md_link(address: str) -> str:
    """An address as a Markdown link target: nothing in it can end the link or the cell."""
    from urllib.parse import quote
    return quote(address, safe=":/?#@!$&'*+,;=%~")


def _markdown_links(table: Table, first_note: int) -> str:
    """Markdown without footnotes, for sites that do not render them (Discourse)."""
    header_marks, _ = _marks(table)
    header = []
    for cell, mark in zip(table.header, header_marks):
        link = table.note_links[mark] if mark is not None and mark < len(table.note_links) else None
        header.append(Code(cell.text) if isinstance(cell, Code) else cell if link is None else
                      Label("[%s](%s)" % (_text(cell, _md_plain, markdown_code), _md_link(link))))
    plain = Table(tuple(header), table.rows, title=table.title)
    text = _markdown(plain, first_note)
    if table.notes:
        text += "\n" + "\n".join("*%s*  " % _md_plain(note, True) for note in table.notes).rstrip() + "\n"
    return text


def _csv_plain(text: str, user: bool) -> str:
    return text


def _csv_code(text: str) -> str:
    return text


def _csv_cell(cell: Cell) -> Union[str, int]:
    """A cell as written: text through ``csv_cell`` (no formula), numbers plain."""
    if isinstance(cell, NUMBERS):
        return _number(cell, plain=True)
    return csv_cell(_text(cell, _csv_plain, _csv_code))


def _csv(table: Table, first_note: int) -> str:
    out = io.StringIO()
    if table.title:  # comment lines: one line each, whatever a name holds
        out.write("# %s\n" % visible(_join_text(table.title, _csv_plain, _csv_code)))
    for i, note in enumerate(table.notes):
        out.write("# [%d] %s\n" % (first_note + i, visible(note)))
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([_csv_cell(cell) for cell in table.header])
    for row in table.rows:
        writer.writerow([_csv_cell(cell) for cell in row])
    return out.getvalue()


def _latex_plain(text: str, user: bool) -> str:
    if user:
        return latex_text(text)
    return "$\\geq$".join(latex_text(part) for part in text.split(">="))


def _latex_code(text: str) -> str:
    return r"\texttt{%s}" % _latex_plain(text, True)


def _latex_number(cell: Union[int, Percent, Rate]) -> str:
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

