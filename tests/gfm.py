"""Checking that the Markdown tables punstats writes are GitHub-flavoured Markdown tables.

``check_tables(text)`` reads every table of ``text`` as GFM does (a header row,
a delimiter row, body rows; cells split on pipes that no backslash escapes,
also inside code spans) and asserts its shape: as many cells in the delimiter
row and in every body row as in the header, each delimiter cell ``:?-+:?``.
A renderer would pad a short row or drop the cells of a long one silently;
this check does not.  ``rendered_tables(text)`` renders ``text`` with
markdown-it-py (CommonMark and GFM tables, in the ``test`` extra) and returns,
per ``<table>``, its header cells and the cell count of each body row.
"""
import re
from typing import List, Tuple

DELIMITER = re.compile(r"^:?-+:?$")

#: A line that belongs to a table: it starts with a pipe (punstats writes every row so).
ROW = re.compile(r"^\s{0,3}\|")


def cells(line: str) -> List[str]:
    """The cells of one table row, split on unescaped pipes; the outer pipes dropped."""
    text = line.strip()
    parts, current, escaped = [], "", False
    for ch in text:
        if ch == "|" and not escaped:
            parts.append(current)
            current = ""
        else:
            current += ch
        escaped = ch == "\\" and not escaped
    parts.append(current)
    if text.startswith("|"):
        parts = parts[1:]
    if text.endswith("|") and not text.endswith("\\|"):
        parts = parts[:-1]
    return [part.strip() for part in parts]


def tables(text: str) -> List[List[str]]:
    """The tables of ``text``: each its lines, header first (outside fenced code blocks)."""
    found, current, fenced = [], [], False  # type: List[List[str]], List[str], bool
    for line in text.splitlines() + [""]:
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and ROW.match(line):
            current.append(line)
            continue
        if current:
            found.append(current)
            current = []
    return found


def check_tables(text: str) -> int:
    """Assert every table of ``text`` is a well-formed GFM table; how many there are."""
    found = tables(text)
    for lines in found:
        assert len(lines) >= 2, "a table without a delimiter row: %r" % lines
        header, delimiter, body = cells(lines[0]), cells(lines[1]), [cells(line) for line in lines[2:]]
        assert len(delimiter) == len(header), "delimiter row %r does not match header %r" % (lines[1], lines[0])
        bad = [cell for cell in delimiter if not DELIMITER.match(cell)]
        assert not bad, "delimiter cells %r in %r" % (bad, lines[1])
        for line, row in zip(lines[2:], body):
            assert len(row) == len(header), "%d cells, header has %d: %r" % (len(row), len(header), line)
    return len(found)


def rendered_tables(text: str) -> List[Tuple[List[str], List[int]]]:
    """Per ``<table>`` markdown-it-py renders from ``text``: its header cells' text and the
    number of cells of each body row."""
    from markdown_it import MarkdownIt
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    result: List[Tuple[List[str], List[int]]] = []
    in_head = False
    for index, token in enumerate(tokens):
        if token.type == "table_open":
            result.append(([], []))
        elif token.type in ("thead_open", "thead_close"):
            in_head = token.type == "thead_open"
        elif token.type == "tr_open" and not in_head:
            result[-1][1].append(0)
        elif token.type == "th_open":
            result[-1][0].append(tokens[index + 1].content)
        elif token.type == "td_open":
            result[-1][1][-1] += 1
    return result


def check_rendered(text: str) -> None:
    """``check_tables``, then a real render: as many ``<table>`` as tables found, each with the
    header's columns in every row (skipped when markdown-it-py is not installed)."""
    found = tables(text)
    assert check_tables(text) == len(found)
    try:
        import markdown_it  # noqa: F401
    except ImportError:  # the structural check above still ran
        return
    rendered = rendered_tables(text)
    assert len(rendered) == len(found), "%d tables written, %d rendered" % (len(found), len(rendered))
    for lines, (header, rows) in zip(found, rendered):
        assert len(header) == len(cells(lines[0])), lines[0]
        assert rows == [len(header)] * (len(lines) - 2), lines[:3]
