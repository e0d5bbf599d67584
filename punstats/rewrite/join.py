"""Joining one call onto one line, and the spacing inside a one-line call.

``join_call`` puts the text from the line of a call's ``(`` to the end of the
line of its ``)`` on one line, or says (None) why it must stay as it is;
``normalize_spacing`` gives a one-line call the spacing the PEP author's tool
wrote.  Both read tokens (``tokenize``) of the punned text, which the
tokenizer reads although it does not parse.  ``punstats.rewrite.rewrap``
chooses the calls.  Standard library only.
"""
from __future__ import annotations

import io
import tokenize
from dataclasses import dataclass
from typing import FrozenSet, List, Optional, Sequence, Tuple

from punstats.extract.text import line_of

OPENERS = frozenset("([{")


CLOSERS = frozenset(")]}")


_TOKEN_ERRORS = (tokenize.TokenError, IndentationError, SyntaxError)


@dataclass(frozen=True)
class _Token:
    type: int
    string: str
    start: int  # character offsets in the text
    end: int
    line: int
    end_line: int


def _tokens(text: str, region_start: int, line_end: int, starts: Sequence[int],
            stop: Optional[int] = None) -> List[_Token]:
    """The tokens of ``text[region_start:line_end]`` (``region_start`` may lie inside a line,
    e.g. at a call's ``(`` after the end of a string that spans lines), with offsets into
    ``text``.  Tokens from ``stop`` on are not needed: an error the tokenizer raises after it
    (a bracket opened before the region and closed after it, a string that starts after the
    call) is ignored."""
    out: List[_Token] = []
    first_line = line_of(starts, region_start)
    col0 = region_start - starts[first_line - 1]
    readline = io.StringIO(text[region_start:line_end], newline="").readline

    def offset(line: int, col: int) -> int:
        return starts[first_line + line - 2] + col + (col0 if line == 1 else 0)
    try:
        for tok in tokenize.generate_tokens(readline):
            if tok.type in (tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT):
                continue
            (l1, c1), (l2, c2) = tok.start, tok.end
            t = _Token(tok.type, tok.string, offset(l1, c1), offset(l2, c2),
                       first_line + l1 - 1, first_line + l2 - 1)
            if stop is not None and t.start >= stop:
                break
            out.append(t)
    except _TOKEN_ERRORS:
        if stop is None or not out or out[-1].end < stop:
            raise
    return out


class _Blocked(Exception):
    """The call stays as it is."""


class _Joiner:
    """The pieces of the joined line, token by token (``add``); raises ``_Blocked``."""

    def __init__(self, text: str, start: int, end: int, keep_commas: FrozenSet[int]) -> None:
        self.text, self.start, self.end, self.keep = text, start, end, keep_commas
        self.pieces: List[str] = []
        self.previous: Optional[_Token] = None
        self.open_lines: List[int] = []  # lines of the brackets open inside the call
        self.open_kinds: List[str] = []
        self.last_significant: Optional[_Token] = None

    def _brackets(self, tok: _Token) -> None:
        if tok.type != tokenize.OP or not self.start <= tok.start < self.end:
            return
        if tok.string in OPENERS:
            self.open_lines.append(tok.line)
            self.open_kinds.append(tok.string)
        elif tok.string in CLOSERS and self.open_lines:
            opened = self.open_lines.pop()
            self.open_kinds.pop()
            last = self.last_significant
            if self.open_lines and opened != tok.line and last is not None and last.string == ",":
                raise _Blocked("an inner bracket spanning lines with a magic trailing comma")

    def add(self, tok: _Token) -> None:
        in_parens = "(" in self.open_kinds[1:]
        self._brackets(tok)
        if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
            self.last_significant = tok
        if tok.type == tokenize.COMMENT:
            raise _Blocked("a comment")
        if tok.type == tokenize.STRING and tok.end_line != tok.line:
            raise _Blocked("a string spanning lines")
        if tok.type in (tokenize.NL, tokenize.NEWLINE):
            return
        if self.previous is not None:
            self.pieces.append(self._gap(self.previous, tok, in_parens))
        self.pieces.append(tok.string)
        self.previous = tok

    def _gap(self, previous: _Token, tok: _Token, in_parens: bool) -> str:
        gap = self.text[previous.end:tok.start]
        if "\\" in gap:
            raise _Blocked("a backslash continuation")
        if "\n" not in gap and "\r" not in gap:
            return spaced(previous, tok, gap, in_parens) if self.start < tok.start < self.end else gap
        if previous.type == tokenize.OP and previous.string in OPENERS:
            return ""
        if tok.type == tokenize.OP and tok.string in CLOSERS:
            if previous.string == "," and previous.start not in self.keep:
                self.pieces[-1] = ""  # a trailing comma goes
            return ""
        return " "


def join_call(text: str, starts: Sequence[int], start: int, end: int, line_length: int,
              keep_commas: FrozenSet[int]) -> Optional[Tuple[int, int, int, int, str]]:
    """(first line, last line, offset of the first line, end of the last, the joined lines) for
    the call whose ``(`` is at ``start`` and whose ``)`` ends at ``end``; None: left as it is."""
    line, end_line = line_of(starts, start), line_of(starts, end - 1)
    if line == end_line:
        return None
    line_start = starts[line - 1]
    line_end = starts[end_line] if end_line < len(starts) else len(text)
    try:
        region = _tokens(text, start, line_end, starts, stop=end)
    except _TOKEN_ERRORS:
        return None  # e.g. a string that goes on past the call's last line
    joiner = _Joiner(text, start, end, keep_commas)
    joiner.pieces.append(text[line_start:start])
    try:
        for tok in region:
            joiner.add(tok)
    except _Blocked:
        return None
    if joiner.previous is None or _rest_blocks(text[joiner.previous.end:line_end]):
        return None
    rest = text[joiner.previous.end:line_end]
    body = rest.rstrip("\r\n")
    new_line = "".join(joiner.pieces) + body
    if len(new_line) > line_length:
        return None
    return line, end_line, line_start, line_end, new_line + rest[len(body):]


def _rest_blocks(rest: str) -> bool:
    """Whether the text after the call's ``)`` on its line holds a comment or starts a string
    that goes on past the line (brackets opened there and closed later are fine)."""
    try:
        for tok in tokenize.generate_tokens(io.StringIO(rest, newline="").readline):
            if tok.type == tokenize.COMMENT:
                return True
    except tokenize.TokenError as exc:
        return "string" in str(exc)
    except (IndentationError, SyntaxError):
        return True
    return False


def spaced(previous, tok, gap: str, in_parens: bool = False) -> str:
    """A same-line gap between two tokens inside a call, as the author's tool wrote it: runs of
    blanks become one space, and a comma is followed by a space (not before a closing bracket,
    and not inside parentheses nested in the call: numpy's ``(features,1)``, ``axis=(0,1)``
    stayed, ``[l,h]`` and ``(_ndat_zeros,axis=)`` did not)."""
    if gap and not gap.strip(" \t") and len(gap) > 1:
        return " "
    if not gap and not in_parens and previous.type == tokenize.OP and previous.string == "," and not (
            tok.type == tokenize.OP and tok.string in CLOSERS):
        return " "
    return gap


def normalize_spacing(call: str) -> Optional[str]:
    """``call`` (from its ``(`` to its ``)``, on one line) with ``spaced`` gaps; None when it
    holds an f-string (3.12 tokenizes inside them) or does not tokenize."""
    try:
        toks = [t for t in tokenize.generate_tokens(io.StringIO(call, newline="").readline)
                if t.type not in (tokenize.ENDMARKER, tokenize.NEWLINE, tokenize.NL)]
    except _TOKEN_ERRORS:
        return None
    if any(tokenize.tok_name.get(t.type, "").startswith("FSTRING") for t in toks):
        return None
    out = []
    previous = None
    stack: List[str] = []
    for t in toks:
        if t.start[0] != 1:
            return None
        if previous is not None:
            out.append(spaced(previous, t, call[previous.end[1]:t.start[1]], "(" in stack[1:]))
        if t.type == tokenize.OP and t.string in OPENERS:
            stack.append(t.string)
        elif t.type == tokenize.OP and t.string in CLOSERS and stack:
            stack.pop()
        out.append(t.string)
        previous = t
    return "".join(out) + call[previous.end[1]:] if previous else None
