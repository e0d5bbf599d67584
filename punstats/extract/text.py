"""Source text for records: ``ast`` positions (UTF-8 byte columns) as character
columns, source segments, and shortened one-line text.
"""
from __future__ import annotations

import ast
import re
from typing import List, Optional

#: Callee source text longer than this is shortened with an ellipsis.
CALLEE_MAX_CHARS = 60


_NEWLINE = re.compile(r"\r\n|\r|\n")


_WHITESPACE = re.compile(r"\s+")


class _SourceText:
    """Maps ``ast`` positions (UTF-8 byte columns) to character columns."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.ascii = text.isascii()
        self._lines: Optional[List[str]] = None

    @property
    def lines(self) -> List[str]:
        if self._lines is None:
            self._lines = _NEWLINE.split(self.text)
        return self._lines

    def char_col(self, lineno: int, byte_col: int) -> int:
        if self.ascii:
            return byte_col
        line = self.lines[lineno - 1] if 0 < lineno <= len(self.lines) else ""
        if line.isascii():
            return byte_col
        return len(line.encode("utf-8")[:byte_col].decode("utf-8", "replace"))

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
    flat = _WHITESPACE.sub(" ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 1] + "\u2026"

