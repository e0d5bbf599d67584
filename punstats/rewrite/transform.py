"""Rewriting source: ``f(x=x)`` to the PEP 736 spelling ``f(x=)``, and back.

``pun`` turns every punnable keyword argument of a call (the definition of
``punstats.extract``: an ``ast.keyword`` of an ``ast.Call`` with ``arg`` not
None and an ``ast.Name`` value whose ``id == arg``) into ``name=`` by deleting
the text after its ``=``; every other byte of the file stays as it was
(comments, quotes, line endings, encoding, coding cookie, BOM).  ``expand``
is the inverse: punned code is a syntax error for today's parsers, so it
finds ``name=`` followed by ``,`` or ``)`` with the ``tokenize`` module.

Positions come from the syntax tree (``ast`` columns are UTF-8 byte offsets
of the decoded line); edits are made in the decoded text by character offset,
applied from the end backwards, and the text is encoded again with the
file's own encoding.  A rewrite is kept only when ``expand(pun(src))`` parses
to the same tree as ``src`` (and, for ``expand``, when punning its result
gives the input back); otherwise the file is left untouched and the reason
reported.

Not rewritten, and reported as skipped: class-definition keywords
(``class A(metaclass=metaclass)``; not calls, outside the headline count)
and occurrences inside f-string replacement fields (before Python 3.12 the
tokenizer sees an f-string as one token, so ``expand`` could not undo them;
the PEP author's pandas commit has no occurrence of either kind).

Standard library only, no syntax newer than Python 3.8: any interpreter can
run it.
"""
from __future__ import annotations

import ast
import io
import tokenize
from typing import List, Tuple

from punstats.extract.text import SourceText
from punstats.rewrite.rewrap import LINE_LENGTH, Join
from punstats.rewrite.rewrap import rewrap as _rewrap
from punstats.rewrite.source import (
    EXPAND,
    FILE_ENCODE,
    FILE_ROUND_TRIP,
    FILE_SYNTAX,
    PUN,
    SKIP_CLASS,
    SKIP_COMMENT,
    SKIP_FSTRING,
    Edit,
    Rewrite,
    Skipped,
    _apply,
    _decode,
    _encode,
    _parse,
    _punnable,
    _untouched,
    _walk,
    same_tree,
)


def _pun_edits(text: str, tree: ast.AST) -> Tuple[List[Edit], List[Skipped]]:
    pos = SourceText(text)
    edits: List[Edit] = []
    skipped: List[Skipped] = []
    for node, in_fstring in _walk(tree):
        if isinstance(node, ast.ClassDef):
            for kw in _punnable(node.keywords):
                line, col = pos.line_col(pos.offset(kw.lineno, kw.col_offset))
                skipped.append(Skipped(line, col, kw.arg, SKIP_CLASS))
            continue
        if not isinstance(node, ast.Call):
            continue
        for kw in _punnable(node.keywords):
            start = pos.offset(kw.lineno, kw.col_offset)
            line, col = pos.line_col(start)
            if in_fstring:
                skipped.append(Skipped(line, col, kw.arg, SKIP_FSTRING))
                continue
            end = pos.offset(kw.end_lineno, kw.end_col_offset)
            equals = text.index("=", start, end)  # identifiers hold no '='
            old = text[start:end]
            if "#" in text[equals:end]:
                skipped.append(Skipped(line, col, kw.arg, SKIP_COMMENT))
                continue
            edits.append(Edit(line, col, kw.arg, start, end, old, text[start:equals + 1]))
    edits.sort(key=lambda e: e.start)
    skipped.sort(key=lambda s: (s.line, s.col))
    return edits, skipped


def pun_text(text: str) -> Tuple[str, List[Edit], List[Skipped]]:
    """Pun decoded source text (which must parse); no safety check."""
    edits, skipped = _pun_edits(text, _parse(text))
    return _apply(text, edits), edits, skipped


def pun(data: bytes, path: str = "<source>", rewrap: bool = False,
        line_length: int = LINE_LENGTH) -> Rewrite:
    """Rewrite every punnable keyword argument of a call as ``name=``.

    With ``rewrap``, calls that now fit on one line of at most
    ``line_length`` characters are joined (see ``punstats.rewrap``).
    The file is left untouched (``error`` set) when it does not decode or
    parse, or when ``expand`` of the result does not give the same tree.
    """
    decoded = _decode(data)
    if decoded.error:
        return _untouched(path, PUN, data, "", decoded.error, decoded.detail)
    text, encoding = decoded.text, decoded.encoding
    try:
        tree = _parse(text, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return _untouched(path, PUN, data, encoding, FILE_SYNTAX, "%s: %s" % (type(exc).__name__, exc))
    edits, skipped = _pun_edits(text, tree)
    if not edits:
        return Rewrite(path, PUN, data, data, encoding, (), tuple(skipped))
    new_text = _apply(text, edits)
    joins: Tuple[Join, ...] = ()
    if rewrap:
        pos = SourceText(text)
        deltas, total = [], 0
        for edit in edits:
            total += len(edit.new) - len(edit.old)
            deltas.append((edit.end, total))
        try:
            new_text, join_list = _rewrap(text, tree, SourceText(new_text), deltas, pos.offset, line_length)
        except ValueError:  # a call whose parenthesis cannot be found: pun without re-wrapping
            join_list = []
        joins = tuple(join_list)
    problem = _check_pun(text, tree, new_text, len(edits))
    if problem:
        return _untouched(path, PUN, data, encoding, FILE_ROUND_TRIP, problem, skipped)
    try:
        new = _encode(new_text, encoding)
    except UnicodeEncodeError as exc:
        return _untouched(path, PUN, data, encoding, FILE_ENCODE, str(exc), skipped)
    return Rewrite(path, PUN, data, new, encoding, tuple(edits), tuple(skipped), joins=joins)


def _check_pun(text: str, tree: ast.AST, new_text: str, count: int) -> str:
    """Why ``expand(new_text)`` is not ``text``'s tree, or '' when it is."""
    try:
        expanded, expansions = expand_text(new_text)
    except (tokenize.TokenError, IndentationError, SyntaxError, ValueError) as exc:
        return "expand failed: %s" % exc
    if len(expansions) != count:
        return "expand found %d punned arguments, pun made %d" % (len(expansions), count)
    if expanded == text:
        return ""  # the very same text: the very same tree
    try:
        again = _parse(expanded)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return "expanded text does not parse: %s" % exc
    if not same_tree(again, tree):
        return "expanded text parses to a different tree"
    return ""


_OPENERS = {"(": ")", "[": "]", "{": "}"}


_CLOSERS = frozenset(_OPENERS.values())


def _expand_edits(text: str) -> List[Edit]:
    """``name=`` directly followed by ``,`` or ``)`` inside parentheses.

    The name must open an argument (follow ``(`` or ``,`` in the same pair
    of parentheses), so ``f(x=...)``, lambda defaults, ``==``, ``:=``,
    ``!=`` and subscripts are never touched.  Raises ``tokenize.TokenError``
    for text the tokenizer cannot read.
    """
    pos = SourceText(text)
    edits: List[Edit] = []
    brackets: List[str] = []
    significant: List[tokenize.TokenInfo] = []  # last three significant tokens
    skip = (tokenize.NL, tokenize.COMMENT, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENCODING)
    readline = io.StringIO(text, newline="").readline
    for tok in tokenize.generate_tokens(readline):
        if tok.type in skip:
            continue
        if tok.type == tokenize.OP and tok.string in (",", ")") and len(significant) >= 3:
            name, equals, before = significant[-2], significant[-1], significant[-3]
            if (equals.type == tokenize.OP and equals.string == "="
                    and name.type == tokenize.NAME and brackets and brackets[-1] == "("
                    and before.type == tokenize.OP and before.string in ("(", ",")):
                start = pos.offset_chars(*name.start)
                end = pos.offset_chars(*equals.end)
                edits.append(Edit(name.start[0], name.start[1], name.string, start, end,
                                  text[start:end], text[start:end] + name.string))
        if tok.type == tokenize.OP:
            if tok.string in _OPENERS:
                brackets.append(tok.string)
            elif tok.string in _CLOSERS and brackets:
                brackets.pop()
        significant.append(tok)
        if len(significant) > 3:
            del significant[0]
    return edits


def expand_text(text: str) -> Tuple[str, List[Edit]]:
    """Expand decoded punned text; no safety check."""
    edits = _expand_edits(text)
    return _apply(text, edits), edits


def expand(data: bytes, path: str = "<source>") -> Rewrite:
    """Rewrite every ``name=`` argument (PEP 736) back to ``name=name``.

    Kept only when the result parses and punning it gives the input back;
    otherwise the file is left untouched with ``error`` set.
    """
    decoded = _decode(data)
    if decoded.error:
        return _untouched(path, EXPAND, data, "", decoded.error, decoded.detail)
    text, encoding = decoded.text, decoded.encoding
    try:
        new_text, edits = expand_text(text)
    except (tokenize.TokenError, IndentationError, SyntaxError) as exc:
        return _untouched(path, EXPAND, data, encoding, FILE_SYNTAX, "tokenize: %s" % exc)
    if not edits:
        return Rewrite(path, EXPAND, data, data, encoding, (), ())
    try:
        punned, _, _ = pun_text(new_text)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return _untouched(path, EXPAND, data, encoding, FILE_SYNTAX,
                          "expanded text does not parse: %s" % exc)
    if punned != text:
        return _untouched(path, EXPAND, data, encoding, FILE_ROUND_TRIP,
                          "punning the expanded text does not give the input back")
    try:
        new = _encode(new_text, encoding)
    except UnicodeEncodeError as exc:
        return _untouched(path, EXPAND, data, encoding, FILE_ENCODE, str(exc))
    return Rewrite(path, EXPAND, data, new, encoding, tuple(edits), ())

