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
import dataclasses
import difflib
import io
import os
import re
import tokenize
import warnings
from dataclasses import dataclass
from typing import Iterator, List, Optional, Sequence, Tuple

from punstats.extract import child_nodes, decode_source, is_punnable
from punstats.rewrap import LINE_LENGTH, Join
from punstats.rewrap import rewrap as _rewrap

PUN = "pun"
EXPAND = "expand"

# Reasons an occurrence is not rewritten.
SKIP_CLASS = "class keyword: not a call"
SKIP_FSTRING = "inside an f-string: the tokenizer cannot expand it before Python 3.12"
SKIP_COMMENT = "comment inside the keyword argument"

# Reasons a whole file is left untouched.
FILE_DECODE = "decode_error"
FILE_SYNTAX = "syntax_error"
FILE_NULL = "null_bytes"
FILE_ROUND_TRIP = "round_trip_failed"
FILE_ENCODE = "encode_error"


@dataclass(frozen=True)
class Edit:
    """One keyword argument rewritten (positions in the original text)."""

    line: int  # 1-based
    col: int  # 0-based, characters
    name: str
    start: int  # character offset of the replaced text in the decoded source
    end: int
    old: str
    new: str


@dataclass(frozen=True)
class Skipped:
    """A punnable keyword argument left as it was, and why."""

    line: int
    col: int
    name: str
    reason: str


@dataclass(frozen=True)
class Rewrite:
    """The outcome for one source: the new bytes and what was done."""

    path: str
    mode: str  # "pun" or "expand"
    old: bytes
    new: bytes
    encoding: str
    edits: Tuple[Edit, ...]
    skipped: Tuple[Skipped, ...]
    error: str = ""  # non-empty: the file was left untouched (see FILE_*)
    detail: str = ""
    joins: Tuple["Join", ...] = ()  # calls re-wrapped onto one line (``rewrap=True``)
    location: str = ""  # the file it was read from, when it was read from one

    @property
    def changed(self) -> bool:
        return self.new != self.old

    def diff_counts(self) -> Tuple[int, int]:
        """(lines added, lines removed), as ``git diff --numstat`` counts them."""
        if not self.changed:
            return 0, 0
        added = removed = 0
        for tag, i1, i2, j1, j2 in _opcodes(self.old, self.new):
            if tag != "equal":
                removed += i2 - i1
                added += j2 - j1
        return added, removed

    @property
    def lines_saved(self) -> int:
        """Lines removed minus lines added."""
        added, removed = self.diff_counts()
        return removed - added


# ---------------------------------------------------------------- positions

_NEWLINE = re.compile(r"\r\n|\r|\n")


def _line_starts(text: str) -> List[int]:
    """Character offset of the start of every line, as the tokenizer splits them."""
    starts = [0]
    starts.extend(m.end() for m in _NEWLINE.finditer(text))
    return starts


class _Positions:
    """(line, UTF-8 byte column) from ``ast`` to a character offset in the text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = _line_starts(text)
        self.ascii = text.isascii()

    def line_text(self, line: int) -> str:
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        return self.text[start:end]

    def offset(self, line: int, byte_col: int) -> int:
        start = self.starts[line - 1]
        if self.ascii:
            return start + byte_col
        line_text = self.line_text(line)
        if line_text.isascii():
            return start + byte_col
        return start + len(line_text.encode("utf-8")[:byte_col].decode("utf-8", "strict"))

    def offset_chars(self, line: int, char_col: int) -> int:
        return self.starts[line - 1] + char_col

    def line_col(self, offset: int) -> Tuple[int, int]:
        lo, hi = 0, len(self.starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.starts[mid] <= offset:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1, offset - self.starts[lo]


# ---------------------------------------------------------------- parsing


def _parse(text: str, path: str = "<source>") -> ast.AST:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text, filename=path)


def same_tree(a: ast.AST, b: ast.AST) -> bool:
    """Whether ``ast.dump(a) == ast.dump(b)`` (positions ignored), without building the strings."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if type(x) is not type(y):
            return False
        if isinstance(x, ast.AST):
            for field in x._fields:
                stack.append((getattr(x, field, None), getattr(y, field, None)))
        elif isinstance(x, list):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y))
        elif isinstance(x, (float, complex)):
            if repr(x) != repr(y):
                return False
        elif x != y:
            return False
    return True


@dataclass(frozen=True)
class _Decoded:
    text: str
    encoding: str
    error: str = ""
    detail: str = ""


def _decode(data: bytes) -> _Decoded:
    if b"\0" in data:
        return _Decoded("", "", FILE_NULL, "source contains a null byte")
    try:
        text, encoding = decode_source(data)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        return _Decoded("", "", FILE_DECODE, str(exc))
    return _Decoded(text, encoding)


def _encode(text: str, encoding: str) -> bytes:
    return text.encode(encoding)


# ---------------------------------------------------------------- pun


def _walk(tree: ast.AST) -> Iterator[Tuple[ast.AST, bool]]:
    """Every call and class definition, with whether it lies inside an f-string."""
    stack: List[Tuple[ast.AST, bool]] = [(tree, False)]
    push = stack.append
    while stack:
        node, in_fstring = stack.pop()
        kind = type(node)
        if kind is ast.Call or kind is ast.ClassDef:
            yield node, in_fstring
        elif kind is ast.JoinedStr:
            in_fstring = True
        for child in child_nodes(node):
            push((child, in_fstring))


def _punnable(keywords: Sequence[ast.keyword]) -> List[ast.keyword]:
    return [kw for kw in keywords if is_punnable(kw)]


def _pun_edits(text: str, tree: ast.AST) -> Tuple[List[Edit], List[Skipped]]:
    pos = _Positions(text)
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


def _apply(text: str, edits: Sequence[Edit]) -> str:
    """Apply non-overlapping edits from the end of the text backwards."""
    parts = []
    tail = len(text)
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        if edit.end > tail:
            raise ValueError("overlapping edits at line %d" % edit.line)
        parts.append(text[edit.end:tail])
        parts.append(edit.new)
        tail = edit.start
    parts.append(text[:tail])
    return "".join(reversed(parts))


def pun_text(text: str) -> Tuple[str, List[Edit], List[Skipped]]:
    """Pun decoded source text (which must parse); no safety check."""
    edits, skipped = _pun_edits(text, _parse(text))
    return _apply(text, edits), edits, skipped


def _untouched(path: str, mode: str, data: bytes, encoding: str, error: str, detail: str,
               skipped: Sequence[Skipped] = ()) -> Rewrite:
    return Rewrite(path, mode, data, data, encoding, (), tuple(skipped), error, detail)


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
        pos = _Positions(text)
        deltas, total = [], 0
        for edit in edits:
            total += len(edit.new) - len(edit.old)
            deltas.append((edit.end, total))
        try:
            new_text, join_list = _rewrap(text, tree, new_text, deltas, pos.offset,
                                          _line_starts(new_text), line_length)
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


# ---------------------------------------------------------------- expand

_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = frozenset(_OPENERS.values())


def _expand_edits(text: str) -> List[Edit]:
    """``name=`` directly followed by ``,`` or ``)`` inside parentheses.

    The name must open an argument (follow ``(`` or ``,`` in the same pair
    of parentheses), so ``f(x=...)``, lambda defaults, ``==``, ``:=``,
    ``!=`` and subscripts are never touched.  Raises ``tokenize.TokenError``
    for text the tokenizer cannot read.
    """
    pos = _Positions(text)
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


# ---------------------------------------------------------------- diffs


def _split(data: bytes) -> List[bytes]:
    """Lines as git sees them: split after every ``\\n``, endings kept."""
    return data.splitlines(True) if b"\r" not in data else re.findall(rb"[^\n]*\n|[^\n]+$", data)


def _opcodes(old: bytes, new: bytes):
    matcher = difflib.SequenceMatcher(None, _split(old), _split(new), autojunk=False)
    return matcher.get_opcodes()


def unified_diff(rewrite: Rewrite, context: int = 3) -> bytes:
    """A git-style unified diff (``a/PATH`` ``b/PATH``) that ``git apply`` accepts."""
    if not rewrite.changed:
        return b""
    old, new = _split(rewrite.old), _split(rewrite.new)
    path = rewrite.path.encode("utf-8", "surrogateescape")
    out = [b"diff --git a/%s b/%s\n" % (path, path), b"--- a/%s\n" % path, b"+++ b/%s\n" % path]
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(b"@@ -%s +%s @@\n" % (_range(i1, i2), _range(j1, j2)))
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.extend(_prefixed(b" ", old[a1:a2]))
                continue
            out.extend(_prefixed(b"-", old[a1:a2]))
            out.extend(_prefixed(b"+", new[b1:b2]))
    return b"".join(out)


def _range(start: int, stop: int) -> bytes:
    length = stop - start
    first = start + 1 if length else start
    return b"%d" % first if length == 1 else b"%d,%d" % (first, length)


def _prefixed(prefix: bytes, lines: Sequence[bytes]) -> Iterator[bytes]:
    for line in lines:
        yield prefix + line
        if not line.endswith(b"\n"):
            yield b"\n\\ No newline at end of file\n"


# ---------------------------------------------------------------- trees


@dataclass(frozen=True)
class Summary:
    """Totals over the files of one rewrite run."""

    files: int  # source files read
    changed: int
    edits: int
    joins: int
    skipped: int  # occurrences left as they were (class keywords, f-strings, ...)
    untouched: int  # files left untouched because of an error
    lines_added: int
    lines_removed: int

    @property
    def lines_saved(self) -> int:
        return self.lines_removed - self.lines_added


def summarize(results: Sequence[Rewrite]) -> Summary:
    added = removed = 0
    for result in results:
        a, r = result.diff_counts()
        added += a
        removed += r
    return Summary(
        files=len(results),
        changed=sum(1 for r in results if r.changed),
        edits=sum(len(r.edits) for r in results),
        joins=sum(len(r.joins) for r in results),
        skipped=sum(len(r.skipped) for r in results),
        untouched=sum(1 for r in results if r.error),
        lines_added=added,
        lines_removed=removed,
    )


def _display_path(location: str, rel: str, root: str) -> str:
    """The path shown in diffs: relative to the working directory when inside it."""
    here = os.getcwd()
    full = os.path.abspath(location)
    if full == here or full.startswith(here.rstrip(os.sep) + os.sep):
        return os.path.relpath(full, here).replace(os.sep, "/")
    return rel


def _rewrite_one(job: Tuple[str, str, str, bool, int]) -> Rewrite:
    location, path, mode, rewrap, line_length = job
    with open(location, "rb") as f:
        data = f.read()
    if mode == EXPAND:
        result = expand(data, path)
    else:
        result = pun(data, path, rewrap=rewrap, line_length=line_length)
    return dataclasses.replace(result, location=location)


def rewrite_tree(root: str, mode: str = PUN, rewrap: bool = False, line_length: int = LINE_LENGTH,
                 jobs: Optional[int] = 1, extensions: Sequence[str] = (".py",)) -> Tuple[Rewrite, ...]:
    """Pun (or expand) every source file under ``root`` (or the file ``root``); writes nothing.

    Files are found as ``punstats scan`` finds them (``punstats.discover``);
    results come in that order, with paths relative to the working directory
    when the files are inside it (as ``git apply`` wants them).
    """
    from punstats.discover import discover  # not needed by the per-file functions
    if mode not in (PUN, EXPAND):
        raise ValueError("mode must be %r or %r, not %r" % (PUN, EXPAND, mode))
    found = discover(root, tuple(extensions))
    jobs_list = [(c.location, _display_path(c.location, c.path, found.root), mode, rewrap, line_length)
                 for c in found.candidates if not c.status and c.location]
    if jobs == 1 or len(jobs_list) < 2:
        return tuple(_rewrite_one(job) for job in jobs_list)
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(jobs) as pool:
        return tuple(pool.map(_rewrite_one, jobs_list, chunksize=4))


def write(results: Sequence[Rewrite]) -> int:
    """Write every changed file back where it was read from; returns how many."""
    count = 0
    for result in results:
        if result.changed:
            with open(result.location or result.path, "wb") as f:
                f.write(result.new)
            count += 1
    return count
