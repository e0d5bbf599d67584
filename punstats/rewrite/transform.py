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

Two spellings (``style``): ``postfix`` ``f(x=)`` (PEP 736, the default) and
``prefix`` ``f(=x)`` (the PEP author's 2024 "Apply sugar" commits); either
way spaces around the ``=`` go (``x = x`` becomes ``x=``, as the author's
commits did), and ``expand`` reads both (not both in one file).
``delimited_only`` rewrites only a bare ``x=x`` between ``(``/``,`` and
``,``/``)`` with nothing but blanks around it, as the author's scripts did.

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
import re
import tokenize
from typing import List, Optional, Sequence, Tuple

from punstats.extract.text import SourceText, between_delimiters, line_starts
from punstats.model.errors import OptionError
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
    SKIP_NOT_DELIMITED,
    Edit,
    Rewrite,
    Skipped,
    apply_edits,
    calls_and_classes,
    decode_bytes,
    encode_text,
    parse_text,
    punnable_keywords,
    same_tree,
    untouched_rewrite,
)

#: The spellings of a punned argument: ``x=`` (PEP 736) and ``=x`` (the 2024 commits).
STYLES = ("postfix", "prefix")


def _check_style(style: str) -> None:
    if style not in STYLES:
        raise OptionError("style must be one of %s, not %r" % (", ".join(STYLES), style))


def _delimited(text: str, start: int, end: int, name: str) -> bool:
    """The bare-delimited rule (``punstats.extract.definitions``): ``name\\s*=\\s*name`` after
    ``(`` or ``,`` and before ``,`` or ``)``, with only whitespace (no comment) in between."""
    if re.fullmatch(r"%s\s*=\s*%s" % (re.escape(name), re.escape(name)), text[start:end]) is None:
        return False
    return between_delimiters(text, start, end)


def _spelling(text: str, start: int, equals: int, name: str, style: str) -> Optional[str]:
    """The new text of ``text[start:end]`` (``name`` ... ``=`` ... value): ``name=`` or ``=name``,
    spaces around ``=`` gone; None when something other than blanks precedes the ``=`` (a line
    continuation) and the prefix spelling could not keep it."""
    head = text[start:equals]
    if head.startswith(name) and head[len(name):].strip(" \t\f") == "":
        return name + "=" if style == "postfix" else "=" + name
    if style == "postfix":
        return text[start:equals + 1]  # e.g. a line continuation before '=': keep it
    return None


def _pun_edits(text: str, tree: ast.AST, style: str = "postfix",
               delimited_only: bool = False) -> Tuple[List[Edit], List[Skipped]]:
    _check_style(style)
    pos = SourceText(text)
    edits: List[Edit] = []
    skipped: List[Skipped] = []
    for node, in_fstring in calls_and_classes(tree):
        if isinstance(node, ast.ClassDef):
            for kw in punnable_keywords(node.keywords):
                line, col = pos.line_col(pos.offset(kw.lineno, kw.col_offset))
                skipped.append(Skipped(line, col, kw.arg, SKIP_CLASS))
            continue
        if not isinstance(node, ast.Call):
            continue
        for kw in punnable_keywords(node.keywords):
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
            if delimited_only and not _delimited(text, start, end, kw.arg):
                skipped.append(Skipped(line, col, kw.arg, SKIP_NOT_DELIMITED))
                continue
            new = _spelling(text, start, equals, kw.arg, style)
            if new is None:
                skipped.append(Skipped(line, col, kw.arg, SKIP_COMMENT))
                continue
            edits.append(Edit(line, col, kw.arg, start, end, old, new))
    edits.sort(key=lambda e: e.start)
    skipped.sort(key=lambda s: (s.line, s.col))
    return edits, skipped


def pun_text(text: str, style: str = "postfix") -> Tuple[str, List[Edit], List[Skipped]]:
    """Pun decoded source text (which must parse); no safety check."""
    edits, skipped = _pun_edits(text, parse_text(text), style)
    return apply_edits(text, edits), edits, skipped


def pun(data: bytes, path: str = "<source>", rewrap: bool = False,
        line_length: int = LINE_LENGTH, style: str = "postfix", delimited_only: bool = False) -> Rewrite:
    """Rewrite every punnable keyword argument of a call as ``name=`` (``style="prefix"``:
    ``=name``; ``delimited_only``: only bare ``x=x`` between ``(``/``,`` and ``,``/``)``).

    With ``rewrap``, calls that now fit on one line of at most
    ``line_length`` characters are joined (see ``punstats.rewrite.rewrap``).
    The file is left untouched (``error`` set) when it does not decode or
    parse, or when ``expand`` of the result does not give the same tree.
    """
    _check_style(style)
    decoded = decode_bytes(data)
    if decoded.error:
        return untouched_rewrite(path, PUN, data, "", decoded.error, decoded.detail)
    text, encoding = decoded.text, decoded.encoding
    try:
        tree = parse_text(text, path)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return untouched_rewrite(path, PUN, data, encoding, FILE_SYNTAX, "%s: %s" % (type(exc).__name__, exc))
    edits, skipped = _pun_edits(text, tree, style, delimited_only)
    if not edits:
        return Rewrite(path, PUN, data, data, encoding, (), tuple(skipped))
    new_text = apply_edits(text, edits)
    joins: Tuple[Join, ...] = ()
    if rewrap:
        pos = SourceText(text)
        deltas, total = [], 0
        for edit in edits:
            total += len(edit.new) - len(edit.old)
            deltas.append((edit.end, total))
        try:
            new_text, join_list = _rewrap(text, tree, new_text, deltas, pos.offset,
                                          line_starts(new_text), line_length, pos.starts)
        except ValueError:  # a call whose parenthesis cannot be found: pun without re-wrapping
            join_list = []
        joins = tuple(join_list)
    problem = _check_pun(text, tree, new_text, len(edits))
    if problem:
        return untouched_rewrite(path, PUN, data, encoding, FILE_ROUND_TRIP, problem, skipped)
    try:
        new = encode_text(new_text, encoding)
    except UnicodeEncodeError as exc:
        return untouched_rewrite(path, PUN, data, encoding, FILE_ENCODE, str(exc), skipped)
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
        again = parse_text(expanded)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return "expanded text does not parse: %s" % exc
    if not same_tree(again, tree):
        return "expanded text parses to a different tree"
    return ""


_OPENERS = {"(": ")", "[": "]", "{": "}"}


_CLOSERS = frozenset(_OPENERS.values())


def _shorthand(before: tokenize.TokenInfo, a: tokenize.TokenInfo, b: tokenize.TokenInfo,
               brackets: Sequence[str]) -> str:
    """``postfix`` for ``name =``, ``prefix`` for ``= name`` opening an argument (after ``(`` or
    ``,`` inside parentheses), else ''."""
    if not (brackets and brackets[-1] == "(" and before.type == tokenize.OP and before.string in ("(", ",")):
        return ""
    if a.type == tokenize.NAME and b.type == tokenize.OP and b.string == "=":
        return "postfix"
    if a.type == tokenize.OP and a.string == "=" and b.type == tokenize.NAME:
        return "prefix"
    return ""


def _expand_edits(text: str) -> List[Edit]:
    """``name=`` directly followed by ``,`` or ``)`` inside parentheses, or ``=name``.

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
            before, a, b = significant[-3:]
            spelling = _shorthand(before, a, b, brackets)
            if spelling:
                start, end = pos.offset_chars(*a.start), pos.offset_chars(*b.end)
                name = a.string if spelling == "postfix" else b.string
                full = text[start:end] + name if spelling == "postfix" else name + "=" + name
                edits.append(Edit(a.start[0], a.start[1], name, start, end, text[start:end], full))
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
    return apply_edits(text, edits), edits


def expand(data: bytes, path: str = "<source>") -> Rewrite:
    """Rewrite every ``name=`` (PEP 736) or ``=name`` argument back to ``name=name``.

    Kept only when the result parses and punning it gives the input back;
    otherwise the file is left untouched with ``error`` set.
    """
    decoded = decode_bytes(data)
    if decoded.error:
        return untouched_rewrite(path, EXPAND, data, "", decoded.error, decoded.detail)
    text, encoding = decoded.text, decoded.encoding
    try:
        new_text, edits = expand_text(text)
    except (tokenize.TokenError, IndentationError, SyntaxError) as exc:
        return untouched_rewrite(path, EXPAND, data, encoding, FILE_SYNTAX, "tokenize: %s" % exc)
    if not edits:
        return Rewrite(path, EXPAND, data, data, encoding, (), ())
    styles = {"prefix" if e.old.startswith("=") else "postfix" for e in edits}
    if len(styles) > 1:
        return untouched_rewrite(path, EXPAND, data, encoding, FILE_ROUND_TRIP,
                          "both spellings (x= and =x) in one file")
    try:
        punned, _, _ = pun_text(new_text, styles.pop())
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return untouched_rewrite(path, EXPAND, data, encoding, FILE_SYNTAX,
                          "expanded text does not parse: %s" % exc)
    if punned != text:
        return untouched_rewrite(path, EXPAND, data, encoding, FILE_ROUND_TRIP,
                          "punning the expanded text does not give the input back")
    try:
        new = encode_text(new_text, encoding)
    except UnicodeEncodeError as exc:
        return untouched_rewrite(path, EXPAND, data, encoding, FILE_ENCODE, str(exc))
    return Rewrite(path, EXPAND, data, new, encoding, tuple(edits), ())

