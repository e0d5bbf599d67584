"""Lines of code: the physical lines holding a token other than a comment or a line break.

Definition (``FileRecord.code_lines``): a line, as ``tokenize`` reads a
source (universal newlines), is a line of code when at least one token other
than ``COMMENT``, ``NL``, ``NEWLINE``, ``INDENT``, ``DEDENT`` and
``ENDMARKER`` starts, ends or lies on it.  So blank lines, comment-only lines
and lines holding only a backslash continuation are not code; every line of
a string literal that spans lines is (blank lines and ``#`` lines inside a
docstring too).  An f-string counts as one string token, as ``tokenize``
gave it before Python 3.12, so the count does not depend on the parser's
version.

Tokenizing every file would double a scan's time, so ``code_lines`` counts
in two steps.  The text rule: a line whose first character after blanks is
``#`` or a backslash, or that is blank, is set aside as not code; any other
line is code, because outside a string every other character of a parsed
file belongs to a token.  The correction: a line set aside is code after all
when it lies inside a string literal spanning lines, after its first line.
Such literals are found in the parsed tree: the docstrings (the first
statements of the module, classes and functions, which the traversal hands
over with the f-strings it met) and, from Python 3.12 on, every f-string
spanning lines (its replacement fields may span lines without any other
mark); then, unless the text shows that no other string spans lines (every
triple quote lies in one of those, no backslash ends a line), the string
nodes found by a walk that only enters nodes covering a line where such a
string may start (triple quotes, or a backslash ending a line holding a
quote).  A node that is one literal covers its lines; one made of several
literals joined by implicit concatenation (with comments or blank lines
between them) is tokenized to find its literals.  Standard library only,
Python 3.8 syntax.
"""
from __future__ import annotations

import ast
import bisect
import io
import itertools
import operator
import re
import sys
import tokenize
from typing import Any, Iterable, List, Optional, Sequence, Set

from punstats.extract.text import SourceText

#: One string literal (no concatenation): prefix, then a triple-quoted body, or a
#: single-quoted one continued across lines by backslashes.
_ONE_LITERAL = re.compile(
    r"""[A-Za-z]{0,2}(?:"""
    r'''"""[^"\\]*(?:(?:\\.|"(?!""))[^"\\]*)*"""'''
    r"""|'''[^'\\]*(?:(?:\\.|'(?!''))[^'\\]*)*'''"""
    r'''|"[^\n"\\]*(?:\\.[^\n"\\]*)*"'''
    r"""|'[^\n'\\]*(?:\\.[^\n'\\]*)*')""", re.S)

#: What a string spanning lines holds: triple quotes, a backslash before a line break or,
#: from Python 3.12 on, an f-string's replacement field (which may span lines).
_SPANNING = ('"""', "'''", "\\\n", "\\\r") + (("{",) if sys.version_info >= (3, 12) else ())

_FIRST = operator.itemgetter(slice(None, 1))

_NOT_CODE_START = "#\\"  # also holds "", the first character of a blank line

#: Tokens that open and close an f-string (t-string) from Python 3.12 (3.14) on.
_OPENING = frozenset(getattr(tokenize, name) for name in ("FSTRING_START", "TSTRING_START")
                     if hasattr(tokenize, name))
_CLOSING = frozenset(getattr(tokenize, name) for name in ("FSTRING_END", "TSTRING_END")
                     if hasattr(tokenize, name))


def code_lines(tree: ast.Module, source: SourceText, total: int, scopes: Optional[Sequence[Any]] = None,
               first: int = 1) -> int:
    """The lines of code of a parsed source: ``tree`` its syntax tree, ``source``
    its text, ``total`` its line count (``records.count_lines``); ``scopes`` its
    classes, functions and f-strings, if known (the traversal met them all):
    their docstrings and f-strings are then found without a walk.  ``first``: the
    source's first line, after as many blank lines (a part, ``extract.parts``)."""
    # all C-level: the first character after blanks of each line, in "#\\" (or none)
    text, lines = source.text, source.lines
    flags = list(map(_NOT_CODE_START.__contains__, map(_FIRST, map(str.lstrip, lines[first - 1:total]))))
    aside = list(itertools.compress(range(first, total + 1), flags))
    total -= first - 1
    if not aside:
        return total
    if not any(mark in text for mark in _SPANNING):
        return total - len(aside)
    if scopes is None:
        scopes = [node for node in ast.walk(tree) if type(node) in _SCOPES]
    known = _docstrings([tree, *scopes])
    skip = {id(node) for node in known}
    if _FSTRING_FIELDS:  # replacement fields may span lines without a mark: take every f-string spanning lines
        fstrings = [node for node in scopes if type(node) is ast.JoinedStr]
        known += _outermost([node for node in fstrings if node.lineno != node.end_lineno and id(node) not in skip])
        skip.update(id(node) for node in fstrings)
    found = in_strings([node for node in known if node.lineno != node.end_lineno], source, aside)
    if "\\\n" not in text and "\\\r" not in text and _triple_quotes(text) == sum(
            _triple_quotes(source.segment(node)) for node in known):
        return total - len(aside) + found  # no string spans lines but those
    marks = _marked_lines(source, [node for node in known if type(node) is not ast.JoinedStr])
    if marks:
        found += in_strings(_strings_over(tree, marks, skip), source, aside)
    return total - len(aside) + found


def _triple_quotes(text: str) -> int:
    return text.count('"""') + text.count("'''")


def _outermost(nodes: List[Any]) -> List[Any]:
    """``nodes`` but for those inside another (nested f-strings)."""
    kept: List[Any] = []
    for node in sorted(nodes, key=lambda node: (node.lineno, node.col_offset)):
        if not kept or (node.end_lineno, node.end_col_offset) > (kept[-1].end_lineno, kept[-1].end_col_offset):
            kept.append(node)
    return kept


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.JoinedStr)

#: From Python 3.12 on, an f-string's replacement fields may span lines (PEP 701).
_FSTRING_FIELDS = sys.version_info >= (3, 12)

#: Where a string spanning lines may start: triple quotes, or a backslash ending a line.
_MARKS = re.compile(r'''"""|\'\'\'|\\\n''')


def _docstrings(scopes: Iterable[Any]) -> List[Any]:
    """The string nodes that open the bodies of ``scopes`` (a module, classes and functions)."""
    found = []
    Expr, Constant, JoinedStr = ast.Expr, ast.Constant, ast.JoinedStr
    for scope in scopes:
        body = getattr(scope, "body", None)  # an f-string has none
        if body and type(body[0]) is Expr:
            value = body[0].value
            if type(value) is JoinedStr or (type(value) is Constant and isinstance(value.value, (str, bytes))):
                found.append(value)
    return found


def _marked_lines(source: SourceText, docstrings: List[Any]) -> List[int]:
    """The lines on which a string spanning lines, other than the ``docstrings``,
    may start: lines holding triple quotes, or ending with a backslash and holding
    a quote.  A docstring's lines are not marked, but for its last line when a
    statement follows the docstring there."""
    text, lines = source.text, source.lines
    if "\r" in text:
        text = "\n".join(lines)
    marked = set()
    line, position = 1, 0
    for match in _MARKS.finditer(text):
        start = match.start()
        line += text.count("\n", position, start)
        position = start
        if match.group() != "\\\n" or "'" in lines[line - 1] or '"' in lines[line - 1]:
            marked.add(line)
    for node in docstrings:
        marked.difference_update(range(node.lineno, node.end_lineno))
        after = lines[node.end_lineno - 1][source.char_col(node.end_lineno, node.end_col_offset):]
        if after.lstrip()[:1] in _NOT_CODE_START:
            marked.discard(node.end_lineno)
    return sorted(marked)


def in_strings(strings: Iterable[Any], source: SourceText, aside: List[int]) -> int:
    """How many of the lines in ``aside`` (sorted) lie inside the string literals
    of ``strings`` (string nodes spanning lines, none inside another)."""
    found = 0
    right = bisect.bisect_right
    for node in strings:
        start, end = node.lineno, node.end_lineno
        first, last = right(aside, start), right(aside, end)
        if first == last:  # no aside line after its first
            continue
        if type(node) is ast.Constant and _ONE_LITERAL.fullmatch(source.segment(node)):
            found += last - first
        else:
            covered = _literal_lines(source.segment(node), start, end)
            found += sum(1 for line in aside[first:last] if line in covered)
    return found


def _strings_over(tree: ast.Module, marks: List[int], skip: Set[int]) -> Iterable[Any]:
    """The outermost string nodes (``Constant`` or ``JoinedStr``) spanning lines
    whose lines (with their decorators) hold one of ``marks`` (sorted), but for
    those whose id is in ``skip``."""
    left = bisect.bisect_left
    Constant, JoinedStr, AST = ast.Constant, ast.JoinedStr, ast.AST
    stack: list = _multiline(tree.body)
    while stack:
        node: Any = stack.pop()
        if node is None or type(node) is str:  # ``**`` in a dict display, a ``global``'s names
            continue
        end = getattr(node, "end_lineno", None)
        if end is not None:
            decorators = getattr(node, "decorator_list", None)
            start = decorators[0].lineno if decorators else node.lineno
            if start == end:
                continue
            i = left(marks, start)
            if i == len(marks) or marks[i] > end:
                continue
            node_type = type(node)
            if node_type is Constant or node_type is JoinedStr:
                if id(node) not in skip and (node_type is JoinedStr or isinstance(node.value, (str, bytes))):
                    yield node
                continue
            body = getattr(node, "body", None)
            if type(body) is list and body and isinstance(body[0], ast.stmt):  # a compound statement
                _push_compound(node, stack, marks[i] < body[0].lineno)
                continue
        for field in node._fields:
            value = getattr(node, field, None)
            if type(value) is list:
                stack.extend(value)
            elif isinstance(value, AST):
                stack.append(value)


#: The fields of compound statements (and ``except`` clauses) holding statements.
_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


def _push_compound(node: Any, stack: list, header: bool) -> None:
    """Push the parts of a compound statement worth a look: its statements
    spanning lines, its decorators, and the rest of its header (``def``'s
    parameters, ``if``'s test...) only when an aside line lies in it."""
    for field in node._fields:
        value = getattr(node, field, None)
        if field in _BODIES:
            if value:
                stack.extend(_multiline(value) if isinstance(value[0], ast.stmt) else value)
        elif field == "decorator_list" or header:
            if type(value) is list:
                stack.extend(value)
            elif isinstance(value, ast.AST):
                stack.append(value)


def _multiline(body: List[Any]) -> List[Any]:
    """The statements of ``body`` spanning more than one line (most span one)."""
    return [statement for statement in body if statement.lineno != statement.end_lineno]


def _literal_lines(segment: str, first: int, last: int) -> Set[int]:
    """The lines covered by the string literals of ``segment`` (the text of a
    string node starting on line ``first``), tokenized in parentheses as in its
    file; an f-string, from its opening to its closing quote.  Should the
    tokenizer refuse (it never should), every line of the node."""
    covered: Set[int] = set()
    depth = 0
    opened = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO("(" + segment + ")").readline):
            kind = token.type
            if kind in _OPENING:
                if not depth:
                    opened = token.start[0]
                depth += 1
            elif kind in _CLOSING:
                depth -= 1
                if not depth:
                    covered.update(range(opened, token.end[0] + 1))
            elif kind == tokenize.STRING and not depth:
                covered.update(range(token.start[0], token.end[0] + 1))
    except (tokenize.TokenError, SyntaxError):
        return set(range(first, last + 1))
    return {first - 1 + row for row in covered}
