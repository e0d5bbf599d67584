"""What punning and expanding share: edits, decoded source, positions, the walk.
"""
from __future__ import annotations

import ast
import difflib
import re
import warnings
from dataclasses import dataclass
from typing import Iterator, List, Sequence, Tuple

from punstats.extract.decode import DECODE_ERRORS, decode_source
from punstats.extract.traversal import child_nodes, is_punnable
from punstats.rewrite.rewrap import Join


def git_lines(data: bytes) -> List[bytes]:
    """Lines as git sees them: split after every ``\\n``, endings kept."""
    return data.splitlines(True) if b"\r" not in data else re.findall(rb"[^\n]*\n|[^\n]+$", data)


def line_opcodes(old: bytes, new: bytes):
    matcher = difflib.SequenceMatcher(None, git_lines(old), git_lines(new), autojunk=False)
    return matcher.get_opcodes()


PUN = "pun"


EXPAND = "expand"


# Reasons an occurrence is not rewritten.
SKIP_CLASS = "class keyword: not a call"


SKIP_FSTRING = "inside an f-string: the tokenizer cannot expand it before Python 3.12"


SKIP_COMMENT = "comment inside the keyword argument"


SKIP_NOT_DELIMITED = "not a bare x=x between (/, and ,/) (delimited_only, as the author's script)"


# Reasons a whole file is left untouched.
FILE_DECODE = "decode_error"


FILE_SYNTAX = "syntax_error"


FILE_NULL = "null_bytes"


FILE_ROUND_TRIP = "round_trip_failed"


FILE_ENCODE = "encode_error"


FILE_UNREADABLE = "unreadable"  # not a regular file, vanished, no permission


FILE_NOT_WRITTEN = "not_written"  # --write refused it: changed or vanished since read, or the write failed


#: Files left untouched because they could not be read or written back, not because of
#: what they hold: ``punstats rewrite`` and ``expand`` exit 1 when there is one.
FILE_FAULTS = frozenset({FILE_UNREADABLE, FILE_NOT_WRITTEN})


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
        for tag, i1, i2, j1, j2 in line_opcodes(self.old, self.new):
            if tag != "equal":
                removed += i2 - i1
                added += j2 - j1
        return added, removed

    @property
    def lines_saved(self) -> int:
        """Lines removed minus lines added."""
        added, removed = self.diff_counts()
        return removed - added


def parse_text(text: str, path: str = "<source>") -> ast.AST:
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


def decode_bytes(data: bytes) -> _Decoded:
    if b"\0" in data:
        return _Decoded("", "", FILE_NULL, "source contains a null byte")
    try:
        text, encoding = decode_source(data)
    except DECODE_ERRORS as exc:
        return _Decoded("", "", FILE_DECODE, str(exc))
    return _Decoded(text, encoding)


def encode_text(text: str, encoding: str) -> bytes:
    return text.encode(encoding)


def calls_and_classes(tree: ast.AST) -> Iterator[Tuple[ast.AST, bool]]:
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


def punnable_keywords(keywords: Sequence[ast.keyword]) -> List[ast.keyword]:
    return [kw for kw in keywords if is_punnable(kw)]


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
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


def untouched_rewrite(path: str, mode: str, data: bytes, encoding: str, error: str, detail: str,
               skipped: Sequence[Skipped] = ()) -> Rewrite:
    return Rewrite(path, mode, data, data, encoding, (), tuple(skipped), error, detail)

