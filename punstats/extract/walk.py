"""The one walk of a parsed file: every pattern, built-in or a user's, dispatched by node class.

``walk`` visits the nodes of a tree once, over an explicit stack, in the
order of a plain depth-first walk (children in field order).  Per node class
it calls the patterns whose ``on`` holds it (every node, for a pattern
without ``on``):

- a pattern declared with ``context=True`` (the built-in kinds,
  ``punstats.patterns.built_in``) as ``match(node, context)``, where
  ``context`` is the file's ``Context``: it records rows and keeps counts;
- any other pattern as ``match(node, parents)`` (``parents``: the node's
  ancestors, outermost first, one tuple shared by all children of a node);
  a true result becomes a row (``patterns.matched_row``).  These calls are
  made once the walk is over (``Walked.match``), in the walk's order, on
  the nodes it kept for them: a user's matcher that changes the tree cannot
  change what the built-in kinds counted, nor the lines of code.

The same walk counts the nodes of the ``ast`` classes a pattern's ``per``
names and keeps the classes, functions and f-strings ``codelines`` needs.
A matcher that raises ends the walk with ``patterns.PatternFailure`` naming
the pattern.  Standard library only, Python 3.8 syntax.
"""
from __future__ import annotations

import ast
from typing import Any, Dict, List, Optional, Sequence, Set, Tuple

from punstats.extract.fields import SPECS, learn
from punstats.extract.grammar import Reach, wanted_classes
from punstats.extract.patterns import PatternFailure, failure_at, matched_row, node_units
from punstats.extract.text import SourceText, short_segment
from punstats.model.kinds import Kind, node_class
from punstats.model.records import FunctionShape, Occurrence


class Context:
    """What a pattern declared with ``context=True`` is given with each node.

    ``path``: the file's path; ``depth``: the calls enclosing the node;
    ``in_fstring``: whether an f-string encloses it; ``parents``: its
    ancestors, outermost first (given only when a user's pattern is declared
    with ``context=True``; else empty).  ``count`` and ``most`` keep the per-file counts the pattern
    declared (``columns``); ``record`` adds a row to the occurrences table,
    ``function`` one to the functions table; ``text`` is a node's source
    text, shortened, and ``char_col`` a column in characters.
    """

    __slots__ = ("path", "source", "depth", "in_fstring", "parents", "counts", "occurrences", "functions")

    def __init__(self, path: str, source: SourceText, columns: Sequence[str]) -> None:
        self.path = path
        self.source = source
        self.depth = 0
        self.in_fstring = False
        self.parents: Tuple[ast.AST, ...] = ()
        self.counts: Dict[str, int] = dict.fromkeys(columns, 0)
        self.occurrences: List[Occurrence] = []
        self.functions: List[FunctionShape] = []

    def count(self, column: str, n: int = 1) -> None:
        self.counts[column] += n

    def most(self, column: str, value: int) -> None:
        """Keep ``value`` in ``column`` if it is the largest yet (a per-file maximum)."""
        if value > self.counts[column]:
            self.counts[column] = value

    def text(self, node: ast.AST) -> str:
        return short_segment(self.source, node)

    def char_col(self, line: int, col: int) -> int:
        return self.source.char_col(line, col)

    def record(self, node: Any, name: str, kind: str, owner: Any, callee: str = "", keywords: int = 0,
               punnable: int = 0, base: Optional[ast.AST] = None, base_kind: str = "", dict_call: bool = False,
               start: Any = None) -> None:
        """A row of ``kind`` for ``node`` (a keyword, or a value whose key is ``start``) named
        ``name``, in ``owner`` (the call, class or dict display) of ``keywords`` entries,
        ``punnable`` of them punnable."""
        source = self.source
        first = start if start is not None else node
        # keyword positions exist from Python 3.9; older parsers give the value's
        anchor = first if getattr(first, "lineno", None) is not None else node.value
        end = node if getattr(node, "end_lineno", None) is not None else node.value
        value = node.value if isinstance(node, ast.keyword) else node
        self.occurrences.append(Occurrence(
            path=self.path, line=anchor.lineno, col=source.char_col(anchor.lineno, anchor.col_offset),
            end_line=end.end_lineno, end_col=source.char_col(end.end_lineno, end.end_col_offset),
            name=name, name_len=len(name), kind=kind, callee=callee,
            call_line=owner.lineno, call_col=source.char_col(owner.lineno, owner.col_offset),
            call_keywords=keywords, call_punnable=punnable, depth=self.depth, in_fstring=self.in_fstring,
            value=value.id if type(value) is ast.Name else short_segment(source, value),
            base=short_segment(source, base) if base is not None else "", base_kind=base_kind, dict_call=dict_call))

    def function(self, node: Any, name: str, kind: str, positional_only: int, positional_or_keyword: int,
                 keyword_only: int, var_positional: bool, var_keyword: bool, defaults: int,
                 keyword_only_defaults: int) -> None:
        """A row of the functions table for the definition (or lambda) ``node``."""
        line = node.lineno
        self.functions.append(FunctionShape(
            self.path, line, self.source.char_col(line, node.col_offset), name, kind,
            positional_only, positional_or_keyword, keyword_only, var_positional, var_keyword, defaults,
            keyword_only_defaults))


class Walked:
    """What one walk found: per-file counts, rows of both tables, code-line scopes, node counts."""

    __slots__ = ("context", "counts", "occurrences", "functions", "scopes", "units", "pending")

    def __init__(self, context: Context, pending: List[Tuple[Any, ...]], scopes: List[ast.AST],
                 units: Dict[str, int]) -> None:
        self.context = context
        self.counts = context.counts
        self.occurrences = context.occurrences
        self.functions = context.functions
        self.scopes = scopes
        self.units = tuple(sorted(units.items()))
        self.pending = pending

    def match(self, path: str, source: SourceText) -> None:
        """Call the user matchers on the nodes the walk kept for them; their rows join ``occurrences``."""
        add = self.occurrences.append
        name, node, parents = "", None, ()
        try:
            for matchers, node, parents in self.pending:
                for name, match in matchers:
                    result = match(node, parents)
                    if result:  # its __bool__ is the user's code too, so inside the try
                        add(matched_row(path, source, name, node, parents, result))
        except BaseException as exc:  # noqa: B036 -- whatever a matcher raises (``patterns.failure_at``)
            raise exc if isinstance(exc, PatternFailure) else failure_at(name, exc, node, parents) from None
        self.pending = []


class _Exit:
    """Under a node's children on the stack: popping it leaves the node (``parents``)."""

    __slots__ = ()


class _ExitCall:
    """Under a call's children: one enclosing call less."""

    __slots__ = ()


class _ExitFString:
    """Under an f-string's children: one enclosing f-string less."""

    __slots__ = ()


_EXIT, _EXIT_CALL, _EXIT_FSTRING = _Exit(), _ExitCall(), _ExitFString()

#: What a node's class is to the walk besides its patterns: nothing, a call, an f-string, a scope.
_PLAIN, _CALL, _FSTRING, _SCOPE = 0, 1, 2, 3
_ROLES = {ast.Call: _CALL, ast.JoinedStr: _FSTRING, ast.ClassDef: _SCOPE, ast.FunctionDef: _SCOPE,
          ast.AsyncFunctionDef: _SCOPE}
_NOT_A_NODE: Tuple[Any, ...] = ((), (), (), (), _PLAIN, False)


def walk(path: str, tree: ast.AST, source: SourceText, kinds: Sequence[Kind],
         context: Optional[Context] = None) -> Walked:
    """Call every pattern of ``kinds`` (with a matcher) on the nodes of ``tree`` it is declared for.
    ``context``: that of the walk of the file's previous part (``extract.parts``), whose counts and
    rows this walk adds to; the node counts (``Walked.units``) are this tree's alone."""
    plan = _plan(kinds)
    if context is None:
        context = Context(path, source, plan.columns)
    table, skip, plain = plan.table, plan.skip, plan.plain
    pending: List[Tuple[Any, ...]] = []
    scopes: List[ast.AST] = []
    counts = dict.fromkeys(plan.units, 0)
    stack: List[Any] = [tree]
    route: List[ast.AST] = []
    pop, push, extend, enter, leave = stack.pop, stack.append, stack.extend, route.append, route.pop
    depth = fstrings = 0
    parents: Any = ()
    name, node = "", tree
    try:
        while stack:
            node = pop()
            node_type = type(node)
            # most nodes only lead to others: their fields, and nothing else to do
            spec = plain.get(node_type)
            if spec is not None:
                for field, is_list in spec:
                    value = getattr(node, field)
                    if is_list:
                        extend(value)
                    elif type(value) not in skip:  # None, a name, a constant: nothing to do there
                        push(value)
                continue
            if node_type in skip:
                continue
            todo = table.get(node_type)
            if todo is None:
                if node_type is _Exit:
                    leave()
                    parents = None
                    continue
                if node_type is _ExitCall:
                    depth -= 1
                    continue
                if node_type is _ExitFString:
                    fstrings -= 1
                    continue
                if node_type is list:  # never met in a parsed tree; descended into all the same
                    extend(node)
                    continue
                todo = plan.learn(node)
            spec, handlers, matchers, units, role, enters = todo
            if parents is None and (matchers or handlers and plan.user_context):
                parents = tuple(route)
            if handlers:
                context.depth, context.in_fstring, context.parents = depth, fstrings > 0, parents or ()
                # ``name`` names the pattern in a failure (the ``except`` below)
                for name, match in handlers:  # noqa: B007
                    match(node, context)
            if units:
                for unit in units:
                    counts[unit] += 1
            if matchers:
                pending.append((matchers, node, parents))
            if role:
                if role == _CALL:
                    push(_EXIT_CALL)
                    depth += 1
                elif role == _FSTRING:
                    push(_EXIT_FSTRING)
                    fstrings += 1
                    scopes.append(node)
                else:
                    scopes.append(node)
            if enters:
                push(_EXIT)
                enter(node)
                parents = None
            for field, is_list in spec:
                value = getattr(node, field)
                if is_list:
                    extend(value)
                elif value is not None:
                    push(value)
    except BaseException as exc:  # noqa: B036 -- whatever a matcher raises (``patterns.failure_at``)
        raise exc if isinstance(exc, PatternFailure) else failure_at(name, exc, node, route) from None
    return Walked(context, pending, scopes, counts)


def sees_module(kinds: Sequence[Kind]) -> bool:
    """Whether a pattern of ``kinds`` is called on, or counts, the module node itself: a file is
    then walked whole, never in parts (``extract.parts``), whose every part has a module of its own."""
    declared = [kind.on for kind in kinds if kind.matcher is not None]
    counted = [node_class(unit) for unit in node_units(kinds)]
    return any(on is None or issubclass(ast.Module, on) for on in declared) \
        or any(cls is not None and issubclass(ast.Module, cls) for cls in counted)


#: The plans of the pattern sets of the last files walked.
_PLANS: Dict[Tuple[Any, ...], "_Plan"] = {}


def _plan(kinds: Sequence[Kind]) -> "_Plan":
    key = tuple((kind.name, kind.per, id(kind.matcher), kind.on) for kind in kinds)
    plan = _PLANS.get(key)
    if plan is None:
        if len(_PLANS) > 16:
            _PLANS.clear()
        plan = _PLANS[key] = _Plan(kinds)
    return plan


class _Plan:
    """Per node type: (fields holding children, context matchers, plain matchers, units counted, role,
    whether it enters the route).  Only the fields that can hold a node some pattern (or unit, or
    role) wants are entered (``grammar.Reach``); a type with nothing to do and no such field is
    skipped unread.  The route (the ``parents`` of a user's matcher) holds only the ancestors that
    can hold a node a user's pattern is declared for: no other kind of node can be one's ancestor."""

    def __init__(self, kinds: Sequence[Kind]) -> None:
        callable_kinds = [kind for kind in kinds if kind.matcher is not None]
        self.matchers = [(kind.name, kind.matcher, kind.on, kind.context) for kind in callable_kinds]
        self.columns = [column for kind in callable_kinds for column in kind.columns]
        users = [kind for kind in callable_kinds if kind.user]
        self.user_context = any(kind.context for kind in users)
        self.units = node_units(kinds)
        self.classes = [(unit, node_class(unit)) for unit in self.units]
        self.table: Dict[type, Tuple[Any, ...]] = {}
        wanted = wanted_classes([on for _, _, on, _ in self.matchers] + [tuple(_ROLES)]
                                + [(cls,) if cls is not None else None for _, cls in self.classes])
        self.reach = Reach(tuple(wanted)) if wanted is not None else None
        user_wanted = wanted_classes([kind.on for kind in users]) if users else frozenset()
        self.route = Reach(tuple(user_wanted)) if user_wanted else None
        self.track_all = users and user_wanted is None
        self.skip: Set[type] = {type(None)}
        #: The types whose nodes the walk only descends through: their fields to enter.
        self.plain: Dict[type, Tuple[Tuple[str, bool], ...]] = {}

    def learn(self, node: Any) -> Tuple[Any, ...]:
        node_type = type(node)
        spec = SPECS.get(node_type) or learn(node)
        if spec is None:  # not a node: None, text, a number in a field that may hold a node
            todo = _NOT_A_NODE
        else:
            called = [(name, match, context) for name, match, on, context in self.matchers
                      if on is None or issubclass(node_type, on)]
            fields = self.reach.fields(node_type, spec) if self.reach is not None else spec
            enters = bool(fields) and bool(self.track_all or self.route is not None
                                           and self.route.fields(node_type, fields))
            todo = (fields,
                    tuple((name, match) for name, match, context in called if context),
                    tuple((name, match) for name, match, context in called if not context),
                    tuple(unit for unit, cls in self.classes if cls is not None and issubclass(node_type, cls)),
                    _ROLES.get(node_type, _PLAIN), enters)
        self.table[node_type] = todo
        if not any(todo):
            self.skip.add(node_type)
        elif not any(todo[1:]):
            self.plain[node_type] = todo[0]
        return todo
