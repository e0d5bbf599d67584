"""Matching user patterns: one walk of a parsed file calling each pattern's matcher.

``match_tree`` visits every node of the tree once, over an explicit stack,
and calls ``match(node, parents)`` of each pattern (``model.kinds.Kind``)
whose ``on`` holds the node's class (every node, for a pattern without ``on``);
``parents`` is a tuple of the node's ancestors, outermost first (the module
first), one tuple shared by all children of a node.  Every ``ast`` node is
visited except the ``expr_context`` singletons (``Load``, ``Store``,
``Del``), which carry no position and are shared by all nodes.

A match (a true result) becomes an ``Occurrence`` of kind = the pattern's
name: its position is the node's (character columns, ``SourceText``; a node
without one, such as ``arguments`` or an operator, takes its nearest
ancestor's); ``name`` is the node's class name (``Return``); ``value`` is the
node's source text, shortened; when the matcher returned a non-empty dict,
``fields`` is that dict as JSON text (sorted keys, each value a JSON scalar),
which the stored table spreads into one column per key (``store.fields``);
``depth`` counts the enclosing calls and ``in_fstring`` says whether an
f-string encloses it, as for the built-in kinds; the columns about a call
(``callee``, ``call_line`` ...) are None.

The same walk counts the nodes of each ``ast`` class a pattern's ``per``
names (``per="Try"``: the ``Try`` nodes; an abstract class such as ``stmt``
counts its subclasses), returned as ``{class name: count}``.  A matcher
that raises ends the walk with ``PatternFailure`` naming the pattern; the
file is then recorded as failed (``traversal``).  Standard library only,
Python 3.8 syntax.
"""
from __future__ import annotations

import ast
import json
from typing import Any, Dict, List, Sequence, Set, Tuple

from punstats.extract.fields import SPECS, learn
from punstats.extract.grammar import Reach, wanted_classes
from punstats.extract.text import SourceText, said, short_segment, shorten
from punstats.model.kinds import UNITS, Kind, node_class
from punstats.model.processes import DeadlinePassed
from punstats.model.records import Occurrence
from punstats.model.statuses import PATTERN_ERROR, PATTERN_TIMEOUT


class PatternFailure(Exception):
    """A matcher raised (or returned what cannot be stored): the pattern, why, and where."""

    def __init__(self, name: str, message: str, line: int, status: str = PATTERN_ERROR) -> None:
        super().__init__("pattern %s: %s" % (name, message))
        self.name, self.line, self.status = name, line, status


#: The most characters of a dict result's JSON text (the ``fields`` of its row).
VALUE_LIMIT = 10_000

#: The most characters of a matcher's exception message kept in a file's ``error``.
MESSAGE_LIMIT = 500


def node_units(kinds: Sequence[Kind]) -> Tuple[str, ...]:
    """The ``ast`` class names the patterns' ``per`` name (counted per file), in order, once each."""
    seen: List[str] = []
    for kind in kinds:
        if kind.per not in UNITS and kind.per not in seen and node_class(kind.per) is not None:
            seen.append(kind.per)
    return tuple(seen)


class _Exit:
    """Under a node's children on the stack: popping it leaves the node."""

    __slots__ = ()


_EXIT = _Exit()
_NOT_A_NODE: Tuple[Any, ...] = ((), (), ())


def match_tree(path: str, tree: ast.AST, source: SourceText,
               kinds: Sequence[Kind]) -> Tuple[List[Occurrence], Tuple[Tuple[str, int], ...]]:
    """The occurrences of ``kinds`` in ``tree`` and the node counts their ``per`` ask for
    (``(class name, count)``, sorted).

    Per node type, what to do is worked out once (``_Plan``): the fields that hold
    children, the matchers to call (those whose ``on`` holds the type), the units to count.  The
    path from the root is a list; the ``parents`` tuple is built from it only
    when a matcher is called, once for all the children of a node.
    """
    plan = _plan(kinds)
    table = plan.table
    counts = dict.fromkeys(plan.units, 0)
    found: List[Occurrence] = []
    add = found.append
    skip = plan.skip
    stack: List[Any] = [tree]
    route: List[ast.AST] = []
    pop, push, extend, enter, leave = stack.pop, stack.append, stack.extend, route.append, route.pop
    parents: Any = ()
    name, node = "", tree
    try:
        while stack:
            node = pop()
            node_type = type(node)
            if node_type in skip:
                continue
            todo = table.get(node_type)
            if todo is None:
                if node_type is _Exit:
                    leave()
                    parents = None
                    continue
                todo = plan.learn(node)
            spec, calls, units = todo
            if calls:
                if parents is None:
                    parents = tuple(route)
                for name, match in calls:
                    result = match(node, parents)
                    if result:  # its __bool__ is the user's code too, so inside the try
                        add(_occurrence(path, source, name, node, parents, result))
            if units:
                for unit in units:
                    counts[unit] += 1
            if spec:
                enter(node)
                parents = None
                push(_EXIT)
                for field, is_list in spec:
                    value = getattr(node, field)
                    if is_list:
                        extend(value)
                    elif value is not None:
                        push(value)
    except BaseException as exc:  # noqa: B036 -- whatever the matcher raises (``_failure``)
        raise exc if isinstance(exc, PatternFailure) else _failure(name, exc, node, route) from None
    return found, tuple(sorted(counts.items()))


def _failure(name: str, exc: BaseException, node: Any, route: Sequence[ast.AST]) -> PatternFailure:
    """What the matcher of ``name`` raising ``exc`` at ``node`` is recorded as: anything, SystemExit and
    KeyboardInterrupt too, fails the file.  Matchers run in worker processes of their own process group,
    which a Ctrl-C at the terminal does not reach (``engines.local``), so a KeyboardInterrupt here is
    the matcher's own; ``DeadlinePassed`` (``model.processes.deadline``) is a timeout."""
    line = _line_of(node, route)
    if isinstance(exc, DeadlinePassed):
        return PatternFailure(name, "took longer than the deadline of %s s per file (--pattern-timeout)"
                              % format(exc.seconds, "g"), line, PATTERN_TIMEOUT)
    return PatternFailure(name, "%s: %s" % (type(exc).__name__, said(exc, MESSAGE_LIMIT)), line)


def _line_of(node: Any, route: Sequence[ast.AST]) -> int:
    """The line of ``node``, else of its nearest ancestor with one, for a failure (1 when none is whole)."""
    for candidate in (node, *reversed(route)):
        line = getattr(candidate, "lineno", None)
        if type(line) is int:
            return line
    return 1


#: The plan of the patterns of the last files walked, by their names and matchers.
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
    """Per node type: (fields holding children, matchers to call, units to count).  When every
    pattern declares the classes it is called for (``Kind.on``), only the fields that can hold
    one of them (or of the classes counted) are entered (``grammar.Reach``)."""

    def __init__(self, kinds: Sequence[Kind]) -> None:
        self.matchers = [(kind.name, kind.matcher, kind.on) for kind in kinds if kind.matcher is not None]
        self.units = node_units(kinds)
        self.classes = [(unit, node_class(unit)) for unit in self.units]
        self.table: Dict[type, Tuple[Any, ...]] = {}
        wanted = wanted_classes([types for _, _, types in self.matchers]
                                + [(cls,) if cls is not None else None for _, cls in self.classes])
        self.reach = Reach(tuple(wanted)) if wanted is not None else None
        self.skip: Set[type] = set()  # types with nothing to do: not nodes, or leaves nobody matches

    def learn(self, node: Any) -> Tuple[Any, ...]:
        node_type = type(node)
        spec = SPECS.get(node_type) or learn(node)
        if spec is None:  # not a node: None, text, a number in a field that may hold a node
            todo = _NOT_A_NODE
        else:
            todo = (self.reach.fields(node_type, spec) if self.reach is not None else spec,
                    tuple((name, match) for name, match, types in self.matchers
                          if types is None or issubclass(node_type, types)),
                    tuple(unit for unit, cls in self.classes if cls is not None and issubclass(node_type, cls)))
        self.table[node_type] = todo
        if not any(todo):
            self.skip.add(node_type)
        return todo


def _anchor(node: Any, parents: Sequence[ast.AST]) -> Tuple[Any, Any, Any, Any, Any]:
    """(line, byte col, end line, end byte col, positioned node): the node's, else its nearest
    positioned ancestor's, else the start of the file."""
    for candidate in (node, *reversed(parents)):
        line = getattr(candidate, "lineno", None)
        if line is not None:
            end_line = getattr(candidate, "end_lineno", None) or line
            end_col = getattr(candidate, "end_col_offset", None)
            col = getattr(candidate, "col_offset", None)
            return line, col, end_line, end_col if end_col is not None else col, candidate
    return 1, 0, 1, 0, None


def _position(name: str, source: SourceText, node: Any, parents: Sequence[ast.AST]) -> Tuple[int, int, int, int, Any]:
    """``_anchor``, checked to be whole numbers: a matcher that set ``lineno`` to text fails its file."""
    position = _anchor(node, parents)
    for field, value in zip(_POSITION_FIELDS, position):
        if type(value) is not int or value < 0:
            raise PatternFailure(name, "the %s node's %s is %s, not a position (a matcher must not change the "
                                 "tree)" % (type(position[4]).__name__, field, _short(value)), 1)
    if not 1 <= position[0] <= position[2] <= len(source.lines) + 1:
        raise PatternFailure(name, "the %s node's lines %d-%d are not in the file (a matcher must not change "
                             "the tree)" % (type(position[4]).__name__, position[0], position[2]), 1)
    return position


_POSITION_FIELDS = ("lineno", "col_offset", "end_lineno", "end_col_offset")


def _fields(name: str, result: Dict[Any, Any], line: int) -> str:
    """A dict result as the JSON text of ``Occurrence.fields`` (sorted keys, each value a JSON
    scalar: ``_scalar``): at most ``FIELD_KEYS`` keys, each an identifier of at most
    ``FIELD_NAME_LIMIT`` characters, and at most ``VALUE_LIMIT`` characters in all."""
    odd = [key for key in result if not isinstance(key, str)]
    if odd:
        raise PatternFailure(name, "its fields must have string keys, not %s" % _short(odd[0]), line)
    if len(result) > FIELD_KEYS:
        raise PatternFailure(name, "it returned %d fields, over the limit of %d" % (len(result), FIELD_KEYS), line)
    bad = [key for key in result if not key.isidentifier() or len(key) > FIELD_NAME_LIMIT]
    if bad:
        raise PatternFailure(name, "its field names must be identifiers of at most %d characters (columns "
                             "field_<name>), not %s" % (FIELD_NAME_LIMIT, _short(bad[0])), line)
    try:
        value = json.dumps({key: _scalar(item) for key, item in result.items()}, sort_keys=True,
                           ensure_ascii=False)
    except Exception as exc:  # noqa: BLE001 -- a value whose str() raises, a cycle
        raise PatternFailure(name, "its fields cannot be stored as JSON (%s: %s)"
                             % (type(exc).__name__, said(exc, MESSAGE_LIMIT)), line) from None
    if len(value) > VALUE_LIMIT:
        raise PatternFailure(name, "its fields are %s characters as JSON, over the limit of %s"
                             % (format(len(value), ","), format(VALUE_LIMIT, ",")), line)
    return value


#: The most fields one match may have, and the most characters of a field's name.
FIELD_KEYS, FIELD_NAME_LIMIT = 64, 60

_INT64 = 2 ** 63


def _scalar(value: Any) -> Any:
    """A field's value as one cell holds it: None, a bool, an int of 64 bits, a float and text
    as they are (exactly those types, not subclasses, whose methods are the user's code); anything
    else as its JSON text (``str()`` for what JSON does not know), as the cell of a text column."""
    kind = type(value)
    if value is None or kind in (bool, float, str) or (kind is int and -_INT64 <= value < _INT64):
        return value
    return json.dumps(value, sort_keys=True, default=str, ensure_ascii=False)


def _short(value: Any) -> str:
    """``repr(value)``, cut short; a ``repr`` that raises is said so."""
    try:
        return shorten(repr(value), 60)
    except Exception as exc:  # noqa: BLE001 -- the user's __repr__
        return "a %s whose repr raised %s" % (type(value).__name__, type(exc).__name__)


def _occurrence(path: str, source: SourceText, name: str, node: ast.AST, parents: Tuple[ast.AST, ...],
                result: Any) -> Occurrence:
    """The row of a match, made when it matched (a later matcher changing the tree cannot move it):
    the columns about a call are None (a pattern's node is no call), its dict, ``fields``."""
    line, col, end_line, end_col, anchor = _position(name, source, node, parents)
    fields = _fields(name, result, line) if isinstance(result, dict) and result else None
    kind_name = type(node).__name__
    return Occurrence(
        path=path, line=line, col=source.char_col(line, col), end_line=end_line,
        end_col=source.char_col(end_line, end_col), name=kind_name, name_len=len(kind_name), kind=name,
        callee=None, call_line=None, call_col=None, call_keywords=None, call_punnable=None,
        depth=sum(1 for p in parents if type(p) is ast.Call),
        in_fstring=any(type(p) is ast.JoinedStr for p in parents),
        value=short_segment(source, anchor) if anchor is not None else "",
        base=None, base_kind=None, dict_call=None, fields=fields)
