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
from typing import Dict, List, Optional, Sequence, Tuple

from punstats.extract import fields
from punstats.extract.codelines import code_lines
from punstats.extract.decode import DECODE_ERRORS, _decode_problem, decode_source
from punstats.extract.fields import SKIP, SPECS, child_nodes  # noqa: F401  (child_nodes: for punstats.rewrite)
from punstats.extract.notebook import NOTEBOOK_SUFFIX, extract_notebook
from punstats.extract.patterns import PatternFailure, match_tree
from punstats.extract.text import SourceText, short_segment
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
    Kind,
)
from punstats.model.limits import DEFAULT_MAX_BYTES
from punstats.model.processes import deadline
from punstats.model.records import Extraction, FileRecord, FunctionShape, Occurrence, count_lines, failure
from punstats.model.statuses import DECODE_ERROR, NULL_BYTES, OK, SYNTAX_ERROR, TOO_DEEP, TOO_LARGE

#: Bumped whenever a change could alter any extracted value; cached results
#: from another extractor version are never reused.  3: a shortened callee,
#: base or value that is an attribute keeps its name (``text.short_segment``);
#: 4: ``FileRecord.code_lines`` (``codelines``); 5: ``FileRecord.calls_with_punnable``.
#: Notebooks add their own version (``notebook.NOTEBOOK_VERSION``) to their cache key.
EXTRACTOR_VERSION = 5


def extract(path: str, data: bytes, max_bytes: int = DEFAULT_MAX_BYTES, patterns: Sequence[Kind] = (),
            timeout: Optional[float] = None) -> Extraction:
    """Parse ``data`` (the bytes of ``path``) and collect its keyword arguments.

    Never raises for bad input: every failure becomes a FileRecord status.  Never executes anything
    from the source.  ``patterns``: user patterns, matched in one more walk (``extract.patterns``) of
    at most ``timeout`` seconds (``processes.deadline``).  The cyclic garbage collector is paused
    meanwhile: a syntax tree has no cycles, and collections triggered by its many allocations would
    otherwise scan the caller's whole heap.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _extract(path, data, max_bytes, patterns, timeout)
    finally:
        if enabled:
            gc.enable()


def _extract(path: str, data: bytes, max_bytes: int, patterns: Sequence[Kind], timeout: Optional[float]) -> Extraction:
    if len(data) > max_bytes:
        return failure(path, TOO_LARGE, "%d bytes, over the cap of %d" % (len(data), max_bytes), size=len(data))
    if path.endswith(NOTEBOOK_SUFFIX):  # its code cells (``notebook``), collected here
        return extract_notebook(path, data, lambda text, tree: _collect(
            path, text.encode("utf-8", "surrogatepass"), "utf-8", tree, SourceText(text), patterns, timeout))
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
    return _collect(path, data, encoding, tree, SourceText(text), patterns, timeout)


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

    ``run`` is the one traversal, over an explicit stack.  What a node's
    surroundings matter for (the enclosing calls, being inside an f-string)
    is kept in two counters: a call or an f-string pushes an exit marker
    under its children, and popping the marker, after all its descendants,
    undoes its increment.  Calls are handled inline (they are the most
    frequent node that matters), and push their keyword values themselves;
    class definitions, dict displays and function definitions have a method
    each; every other node is only descended into, along the fields
    ``fields.learn`` found for its type.  Names, constants and operators hold
    nothing that matters and are popped without looking inside; attribute
    chains and plain callee names are not pushed at all.  Children are
    pushed in field order, as ``child_nodes`` lists them, so nodes are met
    in the same order as by a plain walk of the stack.
    """

    def __init__(self, path: str, source: SourceText) -> None:
        self.path = path
        self.source = source
        self.counts: Dict[str, int] = dict.fromkeys(_COUNT_FIELDS, 0)
        self.occurrences: List[Occurrence] = []
        self.functions: List[FunctionShape] = []
        self.scopes: List[ast.AST] = []  # classes, functions and f-strings (for ``codelines``)

    def run(self, tree: ast.AST) -> None:
        handlers = {
            ast.ClassDef: self.class_def,
            ast.Dict: self.dict_display,
            ast.FunctionDef: self.function,
            ast.AsyncFunctionDef: self.function,
            ast.Lambda: self.function,
        }
        handled = frozenset(handlers)
        specs, skip, learn = SPECS, SKIP, fields.learn
        Call, JoinedStr, Name, Attribute = ast.Call, ast.JoinedStr, ast.Name, ast.Attribute
        ExitCall, ExitFString = fields.ExitCall, fields.ExitFString
        exit_call, exit_fstring = fields.EXIT_CALL, fields.EXIT_FSTRING
        depth = fstrings = 0
        calls = no_arguments = positional_only = keyword_only = mixed = 0
        keywords = double_star = 0
        stack: list = [tree]
        pop, push, extend = stack.pop, stack.append, stack.extend
        while stack:
            node = pop()
            node_type = type(node)
            if node_type in skip:
                continue
            if node_type is Attribute:
                value = node.value
                if type(value) is not Name:
                    push(value)
                continue
            if node_type is Call:
                calls += 1
                push(exit_call)  # under every child
                func = node.func
                if type(func) is not Name:
                    push(func)
                args = node.args
                extend(args)
                kws = node.keywords
                if kws:
                    if args:
                        mixed += 1
                    else:
                        keyword_only += 1
                    named = 0
                    found = False
                    for kw in kws:
                        value = kw.value
                        value_type = type(value)
                        if value_type not in skip:  # a keyword holds nothing else
                            push(value)
                        arg = kw.arg
                        if arg is None:
                            double_star += 1
                            continue
                        named += 1
                        if (value_type is Name and (value.id == arg or _near(arg, value.id))) or (
                                value_type is Attribute and value.attr == arg):
                            found = True
                    keywords += named
                    if found:
                        self.call(node, named, depth, fstrings > 0)
                elif args:
                    positional_only += 1
                else:
                    no_arguments += 1
                depth += 1
                continue
            spec = specs.get(node_type)
            if spec is None:
                if node_type is ExitCall:
                    depth -= 1
                    continue
                if node_type is ExitFString:
                    fstrings -= 1
                    continue
                spec = learn(node)
                if spec is None:
                    if node_type is list:  # never met in a parsed tree; descended into all the same
                        extend(node)
                    continue
            if node_type in handled:
                handlers[node_type](node, depth, fstrings > 0)
            elif node_type is JoinedStr:
                push(exit_fstring)
                fstrings += 1
                self.scopes.append(node)
            for field, is_list in spec:
                if is_list:
                    extend(getattr(node, field))
                else:
                    value = getattr(node, field)
                    if type(value) not in skip:
                        push(value)
        counts = self.counts
        counts["calls"] += calls
        counts["calls_no_arguments"] += no_arguments
        counts["calls_positional_only"] += positional_only
        counts["calls_keyword_only"] += keyword_only
        counts["calls_mixed"] += mixed
        counts["keywords"] += keywords
        counts["double_star"] += double_star

    # -- handlers ------------------------------------------------------------------------------

    def call(self, node: ast.Call, named: int, depth: int, in_fstring: bool) -> None:
        """A call with at least one punnable, near-miss or attribute keyword (already counted)."""
        counts = self.counts
        puns: List[ast.keyword] = []
        others: List[Tuple[ast.keyword, str]] = []
        for kw in node.keywords:
            arg, value = kw.arg, kw.value
            if arg is None:
                continue
            if type(value) is ast.Name:
                if value.id == arg:
                    puns.append(kw)
                elif _near(arg, value.id):
                    others.append((kw, KIND_NEAR_MISS))
            elif type(value) is ast.Attribute and value.attr == arg:
                others.append((kw, KIND_ATTRIBUTE))
        callee = short_segment(self.source, node.func)
        dict_call = type(node.func) is ast.Name and node.func.id == "dict"
        for kw in puns:
            self.add(kw, kw.arg, KIND_CALL, callee, node, named, len(puns), depth, in_fstring,
                     dict_call=dict_call)
        for kw, kind in others:
            self.add(kw, kw.arg, kind, callee, node, named, len(puns), depth, in_fstring)
            counts[kind] += 1
        if puns:
            counts["punnable"] += len(puns)
            counts["calls_with_punnable"] += 1
            if named == len(puns):
                counts["calls_all_punnable"] += 1
            if len(puns) > counts["max_call_punnable"]:
                counts["max_call_punnable"] = len(puns)
            if dict_call:
                counts["dict_call_punnable"] += len(puns)

    def class_def(self, node: ast.ClassDef, depth: int, in_fstring: bool) -> None:
        self.scopes.append(node)
        named = [kw for kw in node.keywords if kw.arg is not None]
        puns = [kw for kw in named if is_punnable(kw)]
        self.counts["class_keywords"] += len(named)
        self.counts["class_punnable"] += len(puns)
        for kw in puns:
            self.add(kw, kw.arg, KIND_CLASS, node.name, node, len(named), len(puns), depth, in_fstring)

    def dict_display(self, node: ast.Dict, depth: int, in_fstring: bool) -> None:
        entries = [(key, value) for key, value in zip(node.keys, node.values)
                   if type(key) is ast.Constant and isinstance(key.value, str)]
        if not entries:
            return
        matches = [(key, value) for key, value in entries
                   if type(value) is ast.Name and value.id == key.value]
        self.counts["dict_entries"] += len(entries)
        self.counts["dict_literal"] += len(matches)
        for key, value in matches:
            self.add(value, key.value, KIND_DICT_LITERAL, "{}", node, len(entries), len(matches), depth,
                     in_fstring, start=key)

    def function(self, node: ast.AST, depth: int, in_fstring: bool) -> None:
        args = node.args
        node_type = type(node)
        if node_type is ast.Lambda:
            kind, name = "lambda", "<lambda>"
        else:
            kind, name = "async def" if node_type is ast.AsyncFunctionDef else "def", node.name
            self.scopes.append(node)
        self.counts["functions"] += 1
        kw_defaults = args.kw_defaults
        self.functions.append(FunctionShape(
            path=self.path,
            line=node.lineno,
            col=self.source.char_col(node.lineno, node.col_offset),
            name=name,
            kind=kind,
            positional_only=len(getattr(args, "posonlyargs", ())),
            positional_or_keyword=len(args.args),
            keyword_only=len(args.kwonlyargs),
            var_positional=args.vararg is not None,
            var_keyword=args.kwarg is not None,
            defaults=len(args.defaults),
            keyword_only_defaults=len(kw_defaults) - kw_defaults.count(None) if kw_defaults else 0,
        ))

    # -- recording ---------------------------------------------------------------------------

    def add(self, node: ast.AST, name: str, kind: str, callee: str, owner: ast.AST, keywords: int,
            punnable: int, depth: int, in_fstring: bool, dict_call: bool = False,
            start: Optional[ast.AST] = None) -> None:
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
            depth=depth,
            in_fstring=in_fstring,
            value=value.id if type(value) is ast.Name else short_segment(source, value),
            base=short_segment(source, base) if base is not None else "",
            base_kind=_base_kind(base) if base is not None else "",
            dict_call=dict_call,
        ))


#: The per-file counters: the FileRecord fields that default to zero.
_COUNT_FIELDS = tuple(f.name for f in dataclasses.fields(FileRecord) if f.default == 0 and f.name != "code_lines")


def _collect(path: str, data: bytes, encoding: str, tree: ast.AST, source: SourceText, patterns: Sequence[Kind] = (),
             timeout: Optional[float] = None) -> Extraction:
    collector = _Collector(path, source)
    collector.run(tree)
    lines = count_lines(data)
    code = code_lines(tree, source, lines, collector.scopes)  # before a matcher can change the tree
    try:  # user patterns: one more walk, within the deadline
        with deadline(timeout):
            matched, units = match_tree(path, tree, source, patterns) if patterns else ([], ())
    except PatternFailure as exc:
        return failure(path, exc.status, str(exc), exc.line, data, encoding)
    record = FileRecord(path=path, status=OK, error="", error_line=None, bytes=len(data), lines=lines,
                        encoding=encoding, sha256=hashlib.sha256(data).hexdigest(), **collector.counts, code_lines=code)
    occurrences = sorted(collector.occurrences + matched, key=lambda o: (o.line, o.col, o.kind))
    functions = sorted(collector.functions, key=lambda f: (f.line, f.col))
    return Extraction(record, tuple(occurrences), tuple(functions), units)
