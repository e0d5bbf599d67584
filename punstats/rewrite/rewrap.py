"""Re-wrapping calls that punning made short enough to fit on one line.

The rule is the one the PEP 736 author's pandas commit (18687393d66e)
follows, found by comparing that commit with punning alone; it reproduces
every re-wrapped call of that commit (``reports/rewrite.md``).  A call is
joined onto one line when

- it has a punned keyword argument of its own (calls that merely contain
  one are left as they are),
- its parentheses span several lines,
- no other call with a punned argument of its own lies on any of its lines
  (counting from the start of its callee to its closing parenthesis),
- no bracket inside its parentheses spans lines, and its lines hold no
  comment, no string spanning lines and no backslash continuation,
- and the joined line is at most ``LINE_LENGTH`` (79) characters long.

Joining puts the text from the line of the call's ``(`` to the end of the
line of its ``)`` on one line: no space after an opening or before a closing
bracket, one space after anything else at a line break, and a trailing
comma before the ``)`` goes (as with ``black --skip-magic-trailing-comma``;
a one-element tuple's comma stays).  Nothing else moves.  This is not black:
black at any line length re-wraps far more (see the report).

Works on the original text and its syntax tree (punned code does not parse
before PEP 736), mapping positions through the pun edits.  Standard library
only.
"""
from __future__ import annotations

import ast
import bisect
import io
import tokenize
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple

from punstats.extract.text import SourceText

#: Longest joined line, in characters (PEP 8's 79, as the author's commit).
LINE_LENGTH = 79


_OPENERS = frozenset("([{")


_CLOSERS = frozenset(")]}")


@dataclass(frozen=True)
class Join:
    """One call joined onto one line (lines of the punned text, 1-based)."""

    line: int
    end_line: int
    start: int  # character offsets in the punned text of the replaced lines
    end: int
    old: str
    new: str

    @property
    def lines_saved(self) -> int:
        return self.end_line - self.line


@dataclass(frozen=True)
class _Token:
    type: int
    string: str
    start: int  # character offsets in the text
    end: int
    line: int
    end_line: int


def _tokens(new: SourceText, line_start: int, line_end: int) -> List[_Token]:
    """The tokens of whole lines ``text[line_start:line_end]``, with offsets into ``text``."""
    out = []
    text, starts = new.text, new.starts
    first = new.line_of(line_start) - 1  # lines before the region
    readline = io.StringIO(text[line_start:line_end], newline="").readline
    for tok in tokenize.generate_tokens(readline):
        if tok.type in (tokenize.ENDMARKER, tokenize.INDENT, tokenize.DEDENT):
            continue
        (l1, c1), (l2, c2) = tok.start, tok.end
        out.append(_Token(tok.type, tok.string, starts[first + l1 - 1] + c1, starts[first + l2 - 1] + c2,
                          first + l1, first + l2))
    return out


def rewrap(old_text: str, tree: ast.AST, new: SourceText, deltas: Sequence[Tuple[int, int]],
           old_offset, line_length: int = LINE_LENGTH) -> Tuple[str, List[Join]]:
    """Join the calls of ``new.text`` (the punned text) that hold a pun and now fit on one line.

    ``deltas``: (original offset of an edit's end, cumulative length change
    up to and including it), sorted; ``old_offset(line, byte_col)`` maps an
    ``ast`` position to a character offset of ``old_text``.
    """
    edit_ends = [end for end, _ in deltas]

    def new_offset(offset: int) -> int:
        i = bisect.bisect_right(edit_ends, offset)
        return offset + (deltas[i - 1][1] if i else 0)

    keep = set()
    punned: List[ast.Call] = []  # calls with a punned argument of their own
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple) and len(node.elts) == 1:
            elt = node.elts[0]
            comma = old_text.find(",", old_offset(elt.end_lineno, elt.end_col_offset))
            if comma >= 0:
                keep.add(new_offset(comma))
        elif isinstance(node, ast.Call) and _direct(node, old_offset, edit_ends):
            punned.append(node)
    # lines holding a call with a punned argument of its own, and how many such calls
    claims: dict = {}
    for node in punned:
        for line in range(node.lineno, node.end_lineno + 1):
            claims[line] = claims.get(line, 0) + 1
    calls = []
    for node in punned:
        if node.lineno == node.end_lineno:
            continue
        if any(claims[line] > 1 for line in range(node.lineno, node.end_lineno + 1)):
            continue  # shares a line with another punned call: left as it is
        opening = _opening_paren(old_text, old_offset, node)
        end = old_offset(node.end_lineno, node.end_col_offset)
        calls.append((new_offset(opening), new_offset(end)))
    if not calls:
        return new.text, []
    calls.sort(key=lambda span: (span[0], -span[1]))

    joins: List[Join] = []
    covered_until = -1
    for start, end in calls:
        if start < covered_until:
            continue  # inside a call already joined
        join = _join(new, start, end, line_length, frozenset(keep))
        if join is not None:
            joins.append(join)
            covered_until = end
    text = new.text
    for join in reversed(joins):
        text = text[:join.start] + join.new + text[join.end:]
    return text, joins


def _opening_paren(text: str, old_offset, node: ast.Call) -> int:
    """Offset of the call's ``(``: after its callee, closing parentheses, blanks, comments."""
    i = old_offset(node.func.end_lineno, node.func.end_col_offset)
    while i < len(text):
        char = text[i]
        if char == "(":
            return i
        if char == "#":
            while i < len(text) and text[i] not in "\r\n":
                i += 1
            continue
        if char not in " \t\f\r\n\\)":
            break
        i += 1
    raise ValueError("no opening parenthesis after the callee at line %d" % node.lineno)


def _direct(node: ast.Call, old_offset, edit_ends: Sequence[int]) -> List[int]:
    """Ends (original offsets) of the pun edits that are ``node``'s own keywords."""
    ends = []
    for kw in node.keywords:
        if kw.arg is not None and isinstance(kw.value, ast.Name) and kw.value.id == kw.arg:
            end = old_offset(kw.end_lineno, kw.end_col_offset)
            i = bisect.bisect_left(edit_ends, end)
            if i < len(edit_ends) and edit_ends[i] == end:
                ends.append(end)
    return ends


def _join(new: SourceText, start: int, end: int, line_length: int, keep_commas: frozenset) -> Optional[Join]:
    text, starts = new.text, new.starts
    line, end_line = new.line_of(start), new.line_of(end - 1)
    if line == end_line:
        return None
    line_start = starts[line - 1]
    line_end = starts[end_line] if end_line < len(starts) else len(text)
    try:
        region = _tokens(new, line_start, line_end)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None  # e.g. a string that goes on past the call's last line
    pieces: List[str] = []
    previous: Optional[_Token] = None
    open_lines: List[int] = []  # lines of the brackets open inside the call
    for tok in region:
        if tok.type == tokenize.OP and start <= tok.start < end:
            if tok.string in _OPENERS:
                open_lines.append(tok.line)
            elif tok.string in _CLOSERS and open_lines:
                opened = open_lines.pop()
                if open_lines and opened != tok.line:
                    return None  # a bracket inside the call spans lines: left as it is
        if tok.type == tokenize.COMMENT:
            return None
        if tok.type == tokenize.STRING and tok.end_line != tok.line:
            return None
        if tok.type in (tokenize.NL, tokenize.NEWLINE):
            continue
        if previous is None:
            pieces.append(text[line_start:tok.start])
        else:
            gap = text[previous.end:tok.start]
            if "\\" in gap:
                return None
            if "\n" in gap or "\r" in gap:
                if previous.type == tokenize.OP and previous.string in _OPENERS:
                    gap = ""
                elif tok.type == tokenize.OP and tok.string in _CLOSERS:
                    gap = ""
                    if previous.string == "," and previous.start not in keep_commas:
                        pieces[-1] = ""
                else:
                    gap = " "
            pieces.append(gap)
        pieces.append(tok.string)
        previous = tok
    if previous is None:
        return None
    rest = text[previous.end:line_end]
    body = rest.rstrip("\r\n")
    pieces.append(body)
    new_line = "".join(pieces)
    if len(new_line) > line_length:
        return None
    return Join(line, end_line, line_start, line_end, text[line_start:line_end], new_line + rest[len(body):])

