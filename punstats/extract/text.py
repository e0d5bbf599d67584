"""Source text for records: ``ast`` positions (UTF-8 byte columns) as character
columns and offsets, source segments, and shortened one-line text (an
attribute's text keeps its name: ``short_segment``).

``SourceText`` is the one mapping from ``ast`` positions to the decoded text;
the extraction and the rewrite (``punstats.rewrite``) both use it.
"""
from __future__ import annotations

import ast
import bisect
import re
from typing import AnyStr, List, Optional, Sequence, Tuple

#: Callee (and value, base) source text longer than this is shortened with an ellipsis.
CALLEE_MAX_CHARS = 60


#: Line breaks as the tokenizer and ``ast`` count lines.
NEWLINE = re.compile(r"\r\n|\r|\n")


_WHITESPACE = re.compile(r"\s+")


def _fold(text: str) -> str:
    """``text`` on one line: every run of whitespace one blank, none at either end."""
    return _WHITESPACE.sub(" ", text).strip()


def line_starts(text: str) -> List[int]:
    """Character offset of the start of every line of ``text``."""
    starts = [0]
    starts.extend(m.end() for m in NEWLINE.finditer(text))
    return starts


def between_delimiters(text: AnyStr, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` stands after ``(`` or ``,`` and before ``,`` or ``)``, with
    only blanks (line breaks too, no comment) in between: the bare-delimited rule the PEP
    author's scripts counted by.  ``text`` is a ``str`` (character offsets) or ``bytes``."""
    blanks, opening, closing = (b" \t\n\r\x0b\f", b"(,", b",)") if isinstance(text, bytes) \
        else (" \t\n\r\x0b\f", "(,", ",)")
    i = start - 1
    while i >= 0 and text[i:i + 1] in blanks:
        i -= 1
    j = end
    while j < len(text) and text[j:j + 1] in blanks:
        j += 1
    return i >= 0 and j < len(text) and text[i:i + 1] in opening and text[j:j + 1] in closing


def line_of(starts: Sequence[int], offset: int) -> int:
    """The 1-based line holding ``offset``, given the lines' start offsets (``line_starts``)."""
    return bisect.bisect_right(starts, offset)


class SourceText:
    """Positions in a decoded source: ``ast`` (line, UTF-8 byte column) to character
    columns and offsets, offsets back to (line, character column), and segments."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.ascii = text.isascii()
        self._lines: Optional[List[str]] = None
        self._starts: Optional[List[int]] = None

    @property
    def lines(self) -> List[str]:
        """The lines, without their line breaks."""
        if self._lines is None:
            text = self.text
            self._lines = text.split("\n") if "\r" not in text else NEWLINE.split(text)
        return self._lines

    @property
    def starts(self) -> List[int]:
        """Character offset of the start of every line."""
        if self._starts is None:
            self._starts = line_starts(self.text)
        return self._starts

    def char_col(self, lineno: int, byte_col: int) -> int:
        if self.ascii:
            return byte_col
        line = self.lines[lineno - 1] if 0 < lineno <= len(self.lines) else ""
        if line.isascii():
            return byte_col
        return len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace"))

    def offset(self, lineno: int, byte_col: int) -> int:
        """The character offset in the text of an ``ast`` position."""
        return self.starts[lineno - 1] + self.char_col(lineno, byte_col)

    def offset_chars(self, lineno: int, char_col: int) -> int:
        """The character offset of a (line, character column) position (``tokenize``'s)."""
        return self.starts[lineno - 1] + char_col

    def line_of(self, offset: int) -> int:
        """The line (1-based) holding a character offset."""
        return line_of(self.starts, offset)

    def line_col(self, offset: int) -> Tuple[int, int]:
        """(line, character column) of a character offset."""
        line = self.line_of(offset)
        return line, offset - self.starts[line - 1]

    def segment(self, node: ast.AST) -> str:
        start, end = node.lineno, node.end_lineno
        if start is None or end is None or start > len(self.lines):
            return ""
        col = self.char_col(start, node.col_offset)
        end_col = self.char_col(end, node.end_col_offset)
        if start == end:
            return self.lines[start - 1][col:end_col]
        parts = [self.lines[start - 1][col:]]
        parts.extend(self.lines[start:end - 1])
        parts.append(self.lines[end - 1][:end_col] if end <= len(self.lines) else "")
        return "\n".join(parts)


def shorten(text: str, limit: int = CALLEE_MAX_CHARS) -> str:
    """``text`` on one line (whitespace folded), cut to ``limit`` characters with an ellipsis."""
    flat = _fold(text)
    return flat if len(flat) <= limit else flat[: limit - 1] + "\u2026"


def said(exc: BaseException, limit: int) -> str:
    """``str(exc)`` of a user's exception as ``shorten`` gives it; one whose ``__str__`` raises is said so."""
    try:
        return shorten(str(exc), limit)
    except Exception as inner:  # noqa: BLE001 -- the user's __str__
        return "(its message raised %s)" % type(inner).__name__


def shorten_attribute(text: str, attr: str, limit: int = CALLEE_MAX_CHARS) -> str:
    """``shorten`` of ``text``, the source of an attribute ``<value>.attr``, keeping ``.attr``
    whole and cutting the value instead: ``"'{name}' must be\u2026".format``.  When ``.attr``
    leaves no room for a character of the value and the ellipsis, it is plain ``shorten``."""
    flat = _fold(text)
    tail = "." + attr
    if len(flat) <= limit or len(tail) + 2 > limit or not flat.endswith(attr):
        return shorten(flat, limit)
    head = flat[:-len(attr)].rstrip(" \\")  # the value and the dot, with blanks or ``\`` around it
    if not head.endswith("."):  # a comment between the dot and the name
        return shorten(flat, limit)
    return shorten(head[:-1].rstrip(" \\"), limit - len(tail)) + tail


def short_segment(source: SourceText, node: ast.AST, limit: int = CALLEE_MAX_CHARS) -> str:
    """The source text of ``node`` on one line, within ``limit`` characters; an attribute
    (``obj.method``) keeps its name (``shorten_attribute``)."""
    text = source.segment(node)
    if isinstance(node, ast.Attribute):
        return shorten_attribute(text, node.attr, limit)
    return shorten(text, limit)

