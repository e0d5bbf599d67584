"""Per-file extraction: bytes in, one FileRecord and its Occurrences out.

This module owns the definition of a punnable keyword argument and the one
traversal that finds them.  It is pure (no I/O beyond what the caller hands
it), imports only the standard library and avoids syntax newer than Python
3.8, so that any worker or any interpreter (``--python``) can run it on its
own.  Test classification, storage and statistics happen elsewhere.

Definition (the headline count, ``kind="call"``): an ``ast.keyword`` of an
``ast.Call`` whose ``arg`` is not None and whose ``value`` is an ``ast.Name``
with ``id == arg``.  The same pass records related patterns as other kinds,
none of which is part of the headline count:

``class``         a class-definition keyword with a ``Name`` value whose
                  ``id == arg`` (``class A(metaclass=metaclass)``);
``attribute``     a call keyword whose value is an ``ast.Attribute`` with
                  ``attr == arg`` (``f(x=self.x)``), its base classified as
                  ``self``, ``cls``, another ``name`` or any other ``expr``;
``dict_literal``  an ``ast.Dict`` entry whose key is a ``str`` constant equal
                  to the ``id`` of its ``Name`` value (``{"x": x}``);
``near_miss``     a call keyword whose value is a ``Name`` with a different
                  ``id`` that equals ``arg`` once leading and trailing
                  underscores are stripped from both (``f(x=_x)``).

``dict(x=x)`` is a ``call`` row flagged ``dict_call``.  Per file it also
counts call shapes (no arguments, positional only, keyword only, mixed) and
records each function's parameter kinds (``FunctionShape``).
"""
from __future__ import annotations

import ast
import dataclasses
import gc
import hashlib
import warnings
from typing import Dict, List, NamedTuple, Optional, Tuple

from punstats.extract.decode import DECODE_ERRORS, _decode_problem, decode_source
from punstats.extract.text import SourceText, shorten
from punstats.model.kinds import (
    BASE_CLS,
    BASE_EXPR,
    BASE_NAME,
    BASE_SELF,
    KIND_ATTRIBUTE,
    KIND_CALL,
    KIND_CLASS,
    KIND_DICT_LITERAL,
    KIND_NEAR_MISS,
)
from punstats.model.limits import DEFAULT_MAX_BYTES
from punstats.model.records import (
    Extraction,
    FileRecord,
    FunctionShape,
    Occurrence,
    count_lines,
    failure,
)
from punstats.model.statuses import (
    DECODE_ERROR,
    NULL_BYTES,
    OK,
    SYNTAX_ERROR,
    TOO_DEEP,
    TOO_LARGE,
)

#: Bumped whenever a change could alter any extracted value; cached results
#: from another extractor version are never reused.
EXTRACTOR_VERSION = 2


class _State(NamedTuple):
    """What the traversal knows about a node's surroundings (immutable)."""

    depth: int = 0
    in_fstring: bool = False


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
    except DECODE_ERRORS as exc:
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
    return _collect(path, data, encoding, tree, SourceText(text))


#: Node types that can contain no call, class, dict, function or f-string: never visited.
_LEAVES = frozenset([ast.Name, ast.Constant, ast.alias] + [
    cls for base in (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
    for cls in base.__subclasses__()])


#: Per node type, the fields that may hold child nodes (``ctx`` never does).
_CHILD_FIELDS: Dict[type, Tuple[str, ...]] = {}


def _child_fields(node_type: type) -> Tuple[str, ...]:
    fields = _CHILD_FIELDS[node_type] = tuple(f for f in node_type._fields if f != "ctx")
    return fields


def child_nodes(node: ast.AST) -> List[ast.AST]:
    """The children of ``node`` that a traversal looking for calls, classes,
    dicts, functions or f-strings must visit (names, constants and operators
    never hold one), in field order."""
    children = []
    for field in _CHILD_FIELDS.get(type(node)) or _child_fields(type(node)):
        value = getattr(node, field, None)
        if isinstance(value, list):
            children.extend(item for item in value if isinstance(item, ast.AST) and type(item) not in _LEAVES)
        elif isinstance(value, ast.AST) and type(value) not in _LEAVES:
            children.append(value)
    return children


def is_punnable(kw: ast.keyword) -> bool:
    """The definition: a named keyword whose value is the ``Name`` it names."""
    return kw.arg is not None and type(kw.value) is ast.Name and kw.value.id == kw.arg


def _near(arg: str, name: str) -> bool:
    """The near-miss rule: different names, equal once leading and trailing
    underscores are stripped from both (``x=_x``, ``x_=x``, ``_x=x__``)."""
    stripped = arg.strip("_")
    return arg != name and stripped != "" and stripped == name.strip("_")


def _base_kind(base: ast.expr) -> str:
    if isinstance(base, ast.Name):
        return base.id if base.id in (BASE_SELF, BASE_CLS) else BASE_NAME
    return BASE_EXPR


class _Collector:
    """One file's counts, occurrences and function shapes.

    ``run`` is the one traversal: an explicit stack whose entries carry the
    immutable ``_State`` of their node's surroundings.  As in pyflakes, each
    node type that matters has one handler, which records what it sees and
    returns the state for the node's children; every other node is only
    descended into.
    """

    def __init__(self, path: str, source: SourceText) -> None:
        self.path = path
        self.source = source
        self.counts: Dict[str, int] = dict.fromkeys(_COUNT_FIELDS, 0)
        self.occurrences: List[Occurrence] = []
        self.functions: List[FunctionShape] = []
        self.handlers = {
            ast.Call: self.call,
            ast.ClassDef: self.class_def,
            ast.Dict: self.dict_display,
            ast.JoinedStr: self.fstring,
            ast.FunctionDef: self.function,
            ast.AsyncFunctionDef: self.function,
            ast.Lambda: self.function,
        }

    def run(self, tree: ast.AST) -> None:
        handlers = self.handlers
        stack: List[Tuple[ast.AST, _State]] = [(tree, _State())]
        push = stack.append
        while stack:
            node, state = stack.pop()
            handler = handlers.get(type(node))
            child_state = handler(node, state) if handler else state
            # child_nodes(node), inlined: this loop runs once per node of every file
            fields = _CHILD_FIELDS.get(type(node)) or _child_fields(type(node))
            for field in fields:
                value = getattr(node, field, None)
                if isinstance(value, list):
                    for item in value:
                        if isinstance(item, ast.AST) and type(item) not in _LEAVES:
                            push((item, child_state))
                elif isinstance(value, ast.AST) and type(value) not in _LEAVES:
                    push((value, child_state))

    # -- handlers: each returns the state of the node's children ---------------------------

    def call(self, node: ast.Call, state: _State) -> _State:
        counts = self.counts
        counts["calls"] += 1
        if node.keywords:
            shape = "calls_mixed" if node.args else "calls_keyword_only"
        else:
            shape = "calls_positional_only" if node.args else "calls_no_arguments"
        counts[shape] += 1
        named = 0
        puns: List[ast.keyword] = []
        others: List[Tuple[ast.keyword, str]] = []
        for kw in node.keywords:
            arg, value = kw.arg, kw.value
            if arg is None:
                counts["double_star"] += 1
                continue
            named += 1
            if type(value) is ast.Name:
                if value.id == arg:
                    puns.append(kw)
                elif _near(arg, value.id):
                    others.append((kw, KIND_NEAR_MISS))
            elif type(value) is ast.Attribute and value.attr == arg:
                others.append((kw, KIND_ATTRIBUTE))
        counts["keywords"] += named
        if puns or others:
            callee = shorten(self.source.segment(node.func))
            dict_call = type(node.func) is ast.Name and node.func.id == "dict"
            for kw in puns:
                self.add(kw, kw.arg, KIND_CALL, callee, node, named, len(puns), state, dict_call=dict_call)
            for kw, kind in others:
                self.add(kw, kw.arg, kind, callee, node, named, len(puns), state)
                counts[kind] += 1
            if puns:
                counts["punnable"] += len(puns)
                if named == len(puns):
                    counts["calls_all_punnable"] += 1
                if len(puns) > counts["max_call_punnable"]:
                    counts["max_call_punnable"] = len(puns)
                if dict_call:
                    counts["dict_call_punnable"] += len(puns)
        return _State(state.depth + 1, state.in_fstring)

    def class_def(self, node: ast.ClassDef, state: _State) -> _State:
        named = [kw for kw in node.keywords if kw.arg is not None]
        puns = [kw for kw in named if is_punnable(kw)]
        self.counts["class_keywords"] += len(named)
        self.counts["class_punnable"] += len(puns)
        for kw in puns:
            self.add(kw, kw.arg, KIND_CLASS, node.name, node, len(named), len(puns), state)
        return state

    def dict_display(self, node: ast.Dict, state: _State) -> _State:
        entries = [(key, value) for key, value in zip(node.keys, node.values)
                   if type(key) is ast.Constant and isinstance(key.value, str)]
        matches = [(key, value) for key, value in entries
                   if type(value) is ast.Name and value.id == key.value]
        self.counts["dict_entries"] += len(entries)
        self.counts["dict_literal"] += len(matches)
        for key, value in matches:
            self.add(value, key.value, KIND_DICT_LITERAL, "{}", node, len(entries), len(matches), state,
                     start=key)
        return state

    def fstring(self, node: ast.JoinedStr, state: _State) -> _State:
        return state if state.in_fstring else _State(state.depth, True)

    def function(self, node: ast.AST, state: _State) -> _State:
        args = node.args
        kind = "lambda" if type(node) is ast.Lambda else (
            "async def" if type(node) is ast.AsyncFunctionDef else "def")
        self.counts["functions"] += 1
        self.functions.append(FunctionShape(
            path=self.path,
            line=node.lineno,
            col=self.source.char_col(node.lineno, node.col_offset),
            name="<lambda>" if kind == "lambda" else node.name,
            kind=kind,
            positional_only=len(getattr(args, "posonlyargs", ())),
            positional_or_keyword=len(args.args),
            keyword_only=len(args.kwonlyargs),
            var_positional=args.vararg is not None,
            var_keyword=args.kwarg is not None,
            defaults=len(args.defaults),
            keyword_only_defaults=sum(1 for d in args.kw_defaults if d is not None),
        ))
        return state

    # -- recording ---------------------------------------------------------------------------

    def add(self, node: ast.AST, name: str, kind: str, callee: str, owner: ast.AST, keywords: int,
            punnable: int, state: _State, dict_call: bool = False, start: Optional[ast.AST] = None) -> None:
        """Record ``node`` (a keyword, or a dict value whose key is ``start``)."""
        source = self.source
        first = start if start is not None else node
        # keyword positions exist from Python 3.9; older parsers give the value's
        anchor = first if getattr(first, "lineno", None) is not None else node.value
        end = node if getattr(node, "end_lineno", None) is not None else node.value
        value = node.value if isinstance(node, ast.keyword) else node
        base = value.value if kind == KIND_ATTRIBUTE else None
        self.occurrences.append(Occurrence(
            path=self.path,
            line=anchor.lineno,
            col=source.char_col(anchor.lineno, anchor.col_offset),
            end_line=end.end_lineno,
            end_col=source.char_col(end.end_lineno, end.end_col_offset),
            name=name,
            name_len=len(name),
            kind=kind,
            callee=callee,
            call_line=owner.lineno,
            call_col=source.char_col(owner.lineno, owner.col_offset),
            call_keywords=keywords,
            call_punnable=punnable,
            depth=state.depth,
            in_fstring=state.in_fstring,
            value=value.id if type(value) is ast.Name else shorten(source.segment(value)),
            base=shorten(source.segment(base)) if base is not None else "",
            base_kind=_base_kind(base) if base is not None else "",
            dict_call=dict_call,
        ))


#: The per-file counters: the FileRecord fields that default to zero.
_COUNT_FIELDS = tuple(f.name for f in dataclasses.fields(FileRecord) if f.default == 0)


def _collect(path: str, data: bytes, encoding: str, tree: ast.AST, source: SourceText) -> Extraction:
    collector = _Collector(path, source)
    collector.run(tree)
    record = FileRecord(
        path=path, status=OK, error="", error_line=None,
        bytes=len(data), lines=count_lines(data), encoding=encoding,
        sha256=hashlib.sha256(data).hexdigest(), **collector.counts,
    )
    occurrences = sorted(collector.occurrences, key=lambda o: (o.line, o.col, o.kind))
    functions = sorted(collector.functions, key=lambda f: (f.line, f.col))
    return Extraction(record, tuple(occurrences), tuple(functions))

