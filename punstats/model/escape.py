"""Text from a corpus made safe for each output medium: one function per medium.

Names from a corpus (paths, directory and corpus names, callee and value
source text, revisions, error messages quoting source) can hold anything.
Every renderer passes such text through the function of its medium, at its
boundary: ``terminal`` for lines printed to a terminal, ``csv_cell`` for CSV
cells (OWASP "CSV injection", and no control character: a CSV is read in a
terminal too; ``csv_text`` for cells read back, which keep their line
breaks), ``markdown_text``/``markdown_code``,
``rest_text``/``rest_code`` and ``latex_text`` for the table formats and the
report, ``figure_text`` for figure labels.  It lives in ``model`` because the
stored CSV copies (``store``), the renderers (``present``) and the command
line (``cli``) all use it.  Standard library only, Python 3.8 syntax.
"""
import re
from typing import Any

#: What must never reach an output raw: C0 and C1 control characters (ESC, CSI,
#: BEL, CR, LF, backspace, ...), DEL, line and paragraph separators, and the
#: Unicode bidirectional controls that reorder what a reader sees.
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(match: "re.Match[str]") -> str:
    code = ord(match.group())
    return "\\x%02x" % code if code < 0x100 else "\\u%04x" % code


def visible(text: str) -> str:
    """``text`` on one line with every control character shown escaped
    (ESC as ``\\x1b``, a newline as ``\\x0a``, U+202E as ``\\u202e``)."""
    return UNSAFE.sub(_escape, text)


def terminal(text: Any) -> str:
    """Text for a terminal line (standard output or error): no control sequence,
    no line break, no bidi override reaches the terminal."""
    return visible(str(text))


#: The first characters that make a spreadsheet read a cell as a formula (OWASP).
CSV_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")

#: What ``csv_text`` shows escaped: ``_UNSAFE`` but tabs and line breaks, which a quoted cell holds.
_UNSAFE_IN_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e"
                             "\u2066-\u2069]")


def csv_cell(value: Any) -> Any:
    """A CSV cell: a string on one line with every control character shown escaped
    (``visible``: no escape sequence or link reaches a terminal showing the file), with a
    leading ``'`` where a spreadsheet would take it for a formula; anything else (numbers,
    missing values) is returned as it is."""
    return _guarded(visible(value)) if isinstance(value, str) else value


def csv_text(text: str) -> str:
    """A CSV cell that punstats reads back (a labels sheet's label, a source block): its
    tabs and line breaks kept (the writer quotes the cell), every other control character
    shown escaped, and guarded as ``csv_cell``; ``from_csv_cell`` gives the text back."""
    return _guarded(_UNSAFE_IN_TEXT.sub(_escape, text))


def _guarded(text: str) -> str:
    """``text`` with a leading ``'`` when a spreadsheet would read it as a formula, or when it
    starts with such a ``'`` already (so that ``from_csv_cell`` gives back exactly ``text``)."""
    return "'" + text if text.lstrip("'")[:1] in CSV_FORMULA_START and text.lstrip("'") else text


def from_csv_cell(cell: str) -> str:
    """A cell as it was before ``csv_cell`` or ``csv_text`` guarded it (a CSV punstats wrote, read back)."""
    return cell[1:] if cell[:1] == "'" and cell[1:].lstrip("'")[:1] in CSV_FORMULA_START and cell.lstrip("'") else cell


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|#~])")


def markdown_text(text: str) -> str:
    """Plain text for Markdown, also inside a table cell: every character that
    could be markup escaped, on one line."""
    return _MD_SPECIAL.sub(r"\\\1", visible(text))


def markdown_code(text: str) -> str:
    """A Markdown code span holding ``text``, on one line (also inside a table cell)."""
    text = visible(text)
    ticks = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return ticks + pad + text.replace("|", "\\|") + pad + ticks


_RST_SPECIAL = re.compile(r"([\\`*_|\[\]<>])")


_RST_LIST_START = re.compile(r"^([-+*#(:]|\.\.|\w+[.)](\s|$))")  # a list, field list, directive


#: A run of one punctuation character: a border, a transition, a title's underline, ``::``.
_RST_ADORNMENT = re.compile(r"""([!"#$%&'()*+,\-./:;<=>?@^_`{|}~])\1+""")


def rest_text(text: str) -> str:
    """Plain text for reStructuredText, also a simple table's cell: on one line,
    inline markup escaped, and never the start of a list, a directive (``..``),
    a comment, a border or section underline, or a literal block's ``::``."""
    escaped = _RST_ADORNMENT.sub(lambda m: "".join("\\" + c for c in m.group()),
                                 _RST_SPECIAL.sub(r"\\\1", visible(text)))
    if _RST_LIST_START.match(escaped):
        escaped = "\\" + escaped
    if not escaped.strip():  # a blank first cell would continue the row above
        return "\\\\x20" * len(escaped) or "(empty)"
    if re.fullmatch(r"[^\w\s]+(\s+[^\w\s]+)*", escaped.strip()):  # punctuation only: a transition, a border
        escaped = "\\ " + escaped  # an escaped space, which reST removes
    return escaped


def rest_code(text: str) -> str:
    """An inline literal holding ``text``, or escaped text when no inline literal can hold it."""
    shown = visible(text)
    if not shown.strip() or "`" in shown or shown != shown.strip():
        return rest_text(text)
    return "``%s``" % shown


_LATEX_ESCAPES = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
    "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    "<": r"\textless{}", ">": r"\textgreater{}",
    # a backtick pair is LaTeX's opening quote, and ``|`` an em dash in its default font encoding
    "`": r"\textasciigrave{}", "|": r"\textbar{}",
}


def latex_text(text: str) -> str:
    """Text for LaTeX: every special character escaped, on one line."""
    return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in visible(text))


def figure_text(text: Any) -> str:
    """Text for a figure (a title, a tick label, a legend entry, a caption line):
    on one line, with no control character (an SVG is XML, which cannot hold
    them, and matplotlib's missing-glyph warning would print them raw).  ``$``
    is left alone: figures are drawn with ``text.parse_math`` off, so that no
    name is read as mathtext (which could fail the drawing)."""
    return visible(str(text))
