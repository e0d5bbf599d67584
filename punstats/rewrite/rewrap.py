"""Re-wrapping calls that punning made short enough to fit on one line.

The rule is the one the PEP 736 author's punning commits follow (pandas
18687393d66e, numpy 9c1d05f5, scikit-learn ce5ede12 and the 2024 "Apply
sugar" commits), found by comparing those commits with punning alone
(``reports/rewrite.md``).  A call is joined onto one line when

- it has a punned keyword argument of its own (calls that merely contain
  one are left as they are),
- its parentheses span several lines,
- no other call with a punned argument of its own *shows* on its lines
  (from the start of its callee to its closing parenthesis): another call
  shows on the lines of its ``(``, of its ``)`` and of its own punned
  arguments, so a punned call on lines of its own inside another one does
  not block it,
- no bracket inside its parentheses spans lines with a magic trailing comma
  (``{\\n 'a': 1,\\n}``), and its lines hold no comment, no string spanning
  lines and no backslash continuation (text before the ``(``, such as the
  end of a string spanning lines, and brackets opened before the call and
  closed after it do not count),
- and the joined line is at most ``LINE_LENGTH`` (79) characters long.

Joining puts the text from the line of the call's ``(`` to the end of the
line of its ``)`` on one line: no space after an opening or before a closing
bracket, one space after anything else at a line break, and a trailing
comma before the ``)`` goes (as with ``black --skip-magic-trailing-comma``;
a one-element tuple's comma stays).  Inside the call, runs of blanks become
one space and a comma gets a space after it (not inside parentheses nested
in the call); the same spacing is given to calls with a punned argument of
their own that were on one line already.  Nothing else moves.  This is not
black: black at any line length re-wraps far more (see the report).

Works on the original text and its syntax tree (punned code does not parse
before PEP 736), mapping positions through the pun edits; the tokens come
from ``punstats.rewrite.join``.  Standard library only.
"""
from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple

from punstats.extract.text import line_of
from punstats.extract.traversal import is_punnable
from punstats.rewrite.join import join_call, normalize_spacing

#: Longest joined line, in characters (PEP 8's 79, as the author's commit).
LINE_LENGTH = 79


_Offset = Callable[[int], int]


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


def rewrap(old_text: str, tree: ast.AST, new_text: str, deltas: Sequence[Tuple[int, int]],
           old_offset, new_starts: Sequence[int], line_length: int = LINE_LENGTH,
           old_starts: Optional[Sequence[int]] = None) -> Tuple[str, List[Join]]:
    """Join the calls of ``new_text`` that hold a pun and now fit on one line.

    ``deltas``: (original offset of an edit's end, cumulative length change
    up to and including it), sorted; ``old_offset(line, byte_col)`` maps an
    ``ast`` position to a character offset of ``old_text``, whose lines
    start at ``old_starts``.
    """
    edit_ends = [end for end, _ in deltas]

    def new_offset(offset: int) -> int:
        i = bisect.bisect_right(edit_ends, offset)
        return offset + (deltas[i - 1][1] if i else 0)

    if old_starts is None:
        old_starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", old_text)]
    keep, punned = _punned_calls(old_text, tree, old_offset, new_offset, edit_ends)
    calls = _joinable(old_text, old_offset, new_offset, old_starts, punned)
    joins: List[Join] = []
    covered_until = -1
    for start, end in calls:
        if start < covered_until:
            continue  # inside a call already joined
        joined = join_call(new_text, new_starts, start, end, line_length, frozenset(keep))
        if joined is not None:
            line, end_line, line_start, line_end, new_lines = joined
            joins.append(Join(line, end_line, line_start, line_end, new_text[line_start:line_end], new_lines))
            covered_until = end
    spacing = _spacing(old_text, old_offset, new_offset, new_text, new_starts, punned, joins)
    text = new_text
    for edit in sorted(joins + spacing, key=lambda j: j.start, reverse=True):
        text = text[:edit.start] + edit.new + text[edit.end:]
    return text, joins


def _punned_calls(old_text: str, tree: ast.AST, old_offset, new_offset: _Offset,
                  edit_ends: Sequence[int]) -> Tuple[Set[int], List[ast.Call]]:
    """(new offsets of one-element tuples' commas, calls with a punned argument of their own)."""
    keep: Set[int] = set()
    punned: List[ast.Call] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple) and len(node.elts) == 1:
            elt = node.elts[0]
            comma = old_text.find(",", old_offset(elt.end_lineno, elt.end_col_offset))
            if comma >= 0:
                keep.add(new_offset(comma))
        elif isinstance(node, ast.Call) and _direct(node, old_offset, edit_ends):
            punned.append(node)
    return keep, punned


def _joinable(old_text: str, old_offset, new_offset: _Offset, old_starts: Sequence[int],
              punned: Sequence[ast.Call]) -> List[Tuple[int, int]]:
    """(new offset of ``(``, of the end of ``)``) of the multi-line punned calls that no other
    punned call shows on, outermost first; raises ValueError for a ``(`` not found."""
    spans = [(node, _opening_paren(old_text, old_offset, node)) for node in punned
             if node.lineno != node.end_lineno]
    shows: Dict[int, Set[int]] = {}
    for node in punned:
        shows[id(node)] = {node.end_lineno} | {kw.lineno for kw in node.keywords if is_punnable(kw)}
    for node, opening in spans:
        shows[id(node)].add(line_of(old_starts, opening))
    calls = []
    for node, opening in spans:
        lo, hi = node.lineno, node.end_lineno  # from the callee: method chains stay as they are
        if any(other is not node and any(lo <= k <= hi for k in shows[id(other)]) for other in punned):
            continue
        end = old_offset(node.end_lineno, node.end_col_offset)
        calls.append((new_offset(opening), new_offset(end)))
    calls.sort(key=lambda span: (span[0], -span[1]))
    return calls


def _spacing(old_text: str, old_offset, new_offset: _Offset, new_text: str, new_starts: Sequence[int],
             punned: Sequence[ast.Call], joins: Sequence[Join]) -> List[Join]:
    """Spacing inside one-line calls with a punned argument of their own, normalised as the
    author's tool did (numpy: ``[1,   3]`` -> ``[1, 3]``, ``(a,b=)`` -> ``(a, b=)``)."""
    single = []
    for node in punned:
        if node.lineno != node.end_lineno:
            continue
        try:
            opening = _opening_paren(old_text, old_offset, node)
        except ValueError:
            continue
        single.append((new_offset(opening), new_offset(old_offset(node.end_lineno, node.end_col_offset))))
    single.sort(key=lambda span: (span[0], -span[1]))
    out: List[Join] = []
    done_until = -1
    for start, end in single:
        if start < done_until or any(j.start <= start < j.end for j in joins):
            continue
        fixed = normalize_spacing(new_text[start:end])
        done_until = end
        if fixed is not None and fixed != new_text[start:end]:
            line = line_of(new_starts, start)
            out.append(Join(line, line, start, end, new_text[start:end], fixed))
    return out


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
        if is_punnable(kw):
            end = old_offset(kw.end_lineno, kw.end_col_offset)
            i = bisect.bisect_left(edit_ends, end)
            if i < len(edit_ends) and edit_ends[i] == end:
                ends.append(end)
    return ends
