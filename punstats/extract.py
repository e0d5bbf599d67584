"""Per-file extraction: bytes in, one FileRecord and its Occurrences out.

This module owns the definition of a punnable keyword argument and the one
traversal that finds them.  It is pure (no I/O beyond what the caller hands
it), imports only the standard library and avoids syntax newer than Python
3.8, so that any worker or any interpreter (``--python``) can run it on its
own.  Test classification, storage and statistics happen elsewhere.

Definition (the headline count): an ``ast.keyword`` of an ``ast.Call`` whose
``arg`` is not None and whose ``value`` is an ``ast.Name`` with
``id == arg``.  Class-definition keywords (``class A(metaclass=metaclass)``)
are recorded with ``kind="class"`` and kept out of the headline count.
"""
from __future__ import annotations

import ast
import gc
import hashlib
import io
import re
import tokenize
import warnings
from dataclasses import dataclass
from typing import List, Optional, Tuple

#: Bumped whenever a change could alter any extracted value; cached results
#: from another extractor version are never reused.
EXTRACTOR_VERSION = 1

#: Callee source text longer than this is shortened with an ellipsis.
CALLEE_MAX_CHARS = 60

#: Default size cap in bytes; larger files are recorded as ``too_large``.
DEFAULT_MAX_BYTES = 20 * 1024 * 1024

# File statuses.  ``ok`` files were parsed; every other status says why not.
OK = "ok"
SYNTAX_ERROR = "syntax_error"
DECODE_ERROR = "decode_error"
NULL_BYTES = "null_bytes"
TOO_LARGE = "too_large"
TOO_DEEP = "too_deep"

KIND_CALL = "call"
KIND_CLASS = "class"


@dataclass(frozen=True)
class Occurrence:
    """One keyword argument ``name=name`` (a call's, or a class's)."""

    path: str
    line: int
    col: int  # characters, 0-based
    end_line: int
    end_col: int  # characters, 0-based, exclusive
    name: str
    name_len: int
    kind: str  # "call" or "class"
    callee: str  # source text of the called expression (or the class name)
    call_line: int
    call_col: int
    call_keywords: int  # keyword arguments (arg not None) of this call
    call_punnable: int  # punnable keyword arguments of this call
    depth: int  # enclosing calls
    in_fstring: bool


@dataclass(frozen=True)
class FileRecord:
    """What one file contributed, or why it contributed nothing."""

    path: str
    status: str
    error: str
    error_line: Optional[int]
    bytes: int
    lines: int
    encoding: str
    sha256: str
    calls: int
    keywords: int  # keyword arguments of calls with arg not None
    double_star: int  # ``**mapping`` unpackings in calls
    punnable: int  # headline: punnable keyword arguments of calls
    class_keywords: int
    class_punnable: int


@dataclass(frozen=True)
class Extraction:
    record: FileRecord
    occurrences: Tuple[Occurrence, ...]


@dataclass(frozen=True)
class _State:
    """What the traversal knows about a node's surroundings."""

    depth: int = 0
    in_fstring: bool = False


_NEWLINE = re.compile(r"\r\n|\r|\n")
_NEWLINE_BYTES = re.compile(rb"\r\n|\r|\n")
_WHITESPACE = re.compile(r"\s+")


def count_lines(data: bytes) -> int:
    """Lines as the tokenizer sees them (universal newlines)."""
    if not data:
        return 0
    ends = len(_NEWLINE_BYTES.findall(data))
    return ends if data.endswith((b"\n", b"\r")) else ends + 1


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


def failure(path: str, status: str, error: str, error_line: Optional[int] = None,
            data: bytes = b"", encoding: str = "", size: Optional[int] = None) -> Extraction:
    """The extraction of a file that could not be read or parsed.

    ``data`` is whatever was read (nothing for files never opened, whose
    ``size`` then comes from the directory entry).
    """
    record = FileRecord(
        path=path, status=status, error=error, error_line=error_line,
        bytes=len(data) if size is None else size, lines=count_lines(data), encoding=encoding,
        sha256=hashlib.sha256(data).hexdigest() if data else "",
        calls=0, keywords=0, double_star=0, punnable=0,
        class_keywords=0, class_punnable=0,
    )
    return Extraction(record, ())


def decode_source(data: bytes) -> Tuple[str, str]:
    """Decode as the interpreter would: BOM, then coding cookie, else UTF-8."""
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    return data.decode(encoding), encoding


def _decode_problem(data: bytes, exc: Exception) -> Tuple[str, Optional[int]]:
    """A message naming the bad bytes, and their line, for a failed decode."""
    if isinstance(exc, SyntaxError):  # bad cookie, or undecodable bytes in the first two lines
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as utf8:
            exc = utf8
        else:
            return str(exc.msg), exc.lineno
    if isinstance(exc, UnicodeDecodeError):
        return str(exc), data[: exc.start].count(b"\n") + 1
    return str(exc), None


def extract(path: str, data: bytes, max_bytes: int = DEFAULT_MAX_BYTES) -> Extraction:
    """Parse ``data`` (the bytes of ``path``) and collect its keyword arguments.

    Never raises for bad input: every failure becomes a FileRecord status.
    Never executes anything from the source.  The cyclic garbage collector is
    paused meanwhile: a syntax tree has no cycles, and collections triggered
    by its many allocations would otherwise scan the caller's whole heap.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _extract(path, data, max_bytes)
    finally:
        if enabled:
            gc.enable()


def _extract(path: str, data: bytes, max_bytes: int) -> Extraction:
    if len(data) > max_bytes:
        return failure(path, TOO_LARGE, "%d bytes, over the cap of %d" % (len(data), max_bytes), size=len(data))
    if b"\0" in data:
        line = data[: data.index(b"\0")].count(b"\n") + 1
        return failure(path, NULL_BYTES, "source contains a null byte", line, data)
    try:
        text, encoding = decode_source(data)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        message, line = _decode_problem(data, exc)
        return failure(path, DECODE_ERROR, message, line, data)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text, filename=path)
    except SyntaxError as exc:
        return failure(path, SYNTAX_ERROR, str(exc.msg), exc.lineno, data, encoding)
    except (RecursionError, MemoryError) as exc:
        message = "%s: %s" % (type(exc).__name__, exc or "the parser gave up on deeply nested code")
        return failure(path, TOO_DEEP, message, None, data, encoding)
    except ValueError as exc:  # e.g. null bytes on interpreters that say so this way
        return failure(path, SYNTAX_ERROR, str(exc), None, data, encoding)
    return _collect(path, data, encoding, tree, _SourceText(text))


#: Node types that can contain no call, class or f-string: never visited.
_LEAVES = frozenset([ast.Name, ast.Constant, ast.alias] + [
    cls for base in (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
    for cls in base.__subclasses__()])
#: Per node type, the fields that may hold child nodes (``ctx`` never does).
_CHILD_FIELDS: dict = {}


def _split_keywords(keywords: List[ast.keyword]) -> Tuple[int, int, List[ast.keyword]]:
    """(named keywords, ``**`` unpackings, punnable keywords) of one call or class."""
    named = double_star = 0
    puns = []
    for kw in keywords:
        if kw.arg is None:
            double_star += 1
            continue
        named += 1
        if isinstance(kw.value, ast.Name) and kw.value.id == kw.arg:
            puns.append(kw)
    return named, double_star, puns


def _collect(path: str, data: bytes, encoding: str, tree: ast.AST, source: _SourceText) -> Extraction:
    calls = keywords = double_star = punnable = class_keywords = class_punnable = 0
    found: List[Occurrence] = []

    def record_puns(node: ast.AST, named: int, puns: List[ast.keyword], kind: str,
                    callee: str, state: _State) -> None:
        call_line, call_col = node.lineno, source.char_col(node.lineno, node.col_offset)
        for kw in puns:
            # keyword positions exist from Python 3.9; older parsers give the value's
            line = getattr(kw, "lineno", None) or kw.value.lineno
            col = getattr(kw, "col_offset", None)
            col = kw.value.col_offset if col is None else col
            end_line = getattr(kw, "end_lineno", None) or kw.value.end_lineno
            end_col = getattr(kw, "end_col_offset", None)
            end_col = kw.value.end_col_offset if end_col is None else end_col
            found.append(Occurrence(
                path=path,
                line=line,
                col=source.char_col(line, col),
                end_line=end_line,
                end_col=source.char_col(end_line, end_col),
                name=kw.arg,
                name_len=len(kw.arg),
                kind=kind,
                callee=callee,
                call_line=call_line,
                call_col=call_col,
                call_keywords=named,
                call_punnable=len(puns),
                depth=state.depth,
                in_fstring=state.in_fstring,
            ))

    # One explicit traversal; each stack entry carries the immutable state of
    # its node's surroundings.  The branches below are the only node-specific
    # code: a handler per node type that matters, generic descent for the rest.
    stack: List[Tuple[ast.AST, _State]] = [(tree, _State())]
    push = stack.append
    while stack:
        node, state = stack.pop()
        child_state = state
        if isinstance(node, ast.Call):
            calls += 1
            named, stars, puns = _split_keywords(node.keywords)
            keywords += named
            double_star += stars
            if puns:
                punnable += len(puns)
                record_puns(node, named, puns, KIND_CALL, shorten(source.segment(node.func)), state)
            child_state = _State(state.depth + 1, state.in_fstring)
        elif isinstance(node, ast.ClassDef):
            named, _, puns = _split_keywords(node.keywords)
            class_keywords += named
            if puns:
                class_punnable += len(puns)
                record_puns(node, named, puns, KIND_CLASS, node.name, state)
        elif isinstance(node, ast.JoinedStr) and not state.in_fstring:
            child_state = _State(state.depth, True)
        fields = _CHILD_FIELDS.get(type(node))
        if fields is None:
            fields = _CHILD_FIELDS[type(node)] = tuple(f for f in node._fields if f != "ctx")
        for field in fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                for item in value:
                    if isinstance(item, ast.AST) and type(item) not in _LEAVES:
                        push((item, child_state))
            elif isinstance(value, ast.AST) and type(value) not in _LEAVES:
                push((value, child_state))

    found.sort(key=lambda o: (o.line, o.col, o.kind))
    record = FileRecord(
        path=path, status=OK, error="", error_line=None,
        bytes=len(data), lines=count_lines(data), encoding=encoding,
        sha256=hashlib.sha256(data).hexdigest(),
        calls=calls, keywords=keywords, double_star=double_star, punnable=punnable,
        class_keywords=class_keywords, class_punnable=class_punnable,
    )
    return Extraction(record, tuple(found))
