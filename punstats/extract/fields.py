"""What the traversal descends into: per ``ast`` node type, the fields that may hold nodes.

``LEAVES`` are the node types that can hold no call, class, dict, function
or f-string (names, constants, operators): never looked inside.
``child_nodes`` gives a node's children worth visiting (for ``punstats.rewrite``);
``learn`` gives the traversal (``punstats.extract.traversal``) the fields to
push for a node type, learned from its first node and remembered in
``SPECS``.  ``SKIP`` holds the types of stack entries that are popped
unread; ``EXIT_CALL`` and ``EXIT_FSTRING`` are the markers a call or an
f-string leaves under its children.  Standard library only, Python 3.8 syntax.
"""
from __future__ import annotations

import ast
import re
from typing import Dict, FrozenSet, List, Optional, Set, Tuple, Type

#: Node types that can contain no call, class, dict, function or f-string: never visited.
LEAVES = frozenset([ast.Name, ast.Constant, ast.alias] + [
    cls for base in (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
    for cls in base.__subclasses__()])

#: Per node type, the fields that may hold child nodes (``ctx`` never does).
_CHILD_FIELDS: Dict[type, Tuple[str, ...]] = {}


def _child_fields(node_type: Type[ast.AST]) -> Tuple[str, ...]:
    fields = _CHILD_FIELDS[node_type] = tuple(f for f in node_type._fields if f != "ctx")
    return fields


def child_nodes(node: ast.AST) -> List[ast.AST]:
    """The children of ``node`` that a traversal looking for calls, classes,
    dicts, functions or f-strings must visit (names, constants and operators
    never hold one), in field order."""
    children: List[ast.AST] = []
    for field in _CHILD_FIELDS.get(type(node)) or _child_fields(type(node)):
        value = getattr(node, field, None)
        if isinstance(value, list):
            children.extend(item for item in value if isinstance(item, ast.AST) and type(item) not in LEAVES)
        elif isinstance(value, ast.AST) and type(value) not in LEAVES:
            children.append(value)
    return children


class Exit:
    """A stack entry popped once all of a node's descendants were visited."""

    __slots__ = ()


class ExitCall(Exit):
    """Under a call's children: popping it leaves the call (one enclosing call less)."""

    __slots__ = ()


class ExitFString(Exit):
    """Under an f-string's children: popping it leaves the f-string."""

    __slots__ = ()


EXIT_CALL = ExitCall()
EXIT_FSTRING = ExitFString()

#: A node type's fields that may hold child nodes, each with whether it holds a list.
Spec = Tuple[Tuple[str, bool], ...]
#: Per node type, its ``Spec``.  Learned from the first node of each type, which is safe
#: because the parser gives a field one shape for all nodes: a list field is always a
#: list, and a field holding text or a number never holds a node (a field that is None
#: might, so it is kept).
SPECS: Dict[type, Spec] = {}
#: Types of stack entries that are not descended into: leaves, and non-node field values
#: (None, and the text and number types met on the way).
SKIP: Set[type] = set(LEAVES) | {type(None)}

#: The grammar's types of fields that never hold a node (``ast`` documents each class as
#: ``Name(type field, ...)`` from Python 3.9 on).
_TEXT_TYPES = frozenset(["identifier", "string", "int", "constant", "expr_context"])
_SIGNATURE = re.compile(r"\w+\((.*)\)$")


def text_fields(node_type: type) -> FrozenSet[str]:
    """The fields that the grammar says hold text or numbers (none known without documentation)."""
    match = _SIGNATURE.match(node_type.__doc__ or "")
    if not match:
        return frozenset()
    declared = [part.split() for part in match.group(1).split(",") if part.strip()]
    return frozenset(name for kind, name in (d for d in declared if len(d) == 2)
                     if kind.rstrip("*?") in _TEXT_TYPES)


def learn(node: object) -> Optional[Spec]:
    """The ``Spec`` of ``node``'s type, remembered in ``SPECS``.

    None for a value that is not a node: its type joins ``SKIP``, except ``list``
    (never popped from a parsed tree's stack, but if it were, it is descended into)."""
    if not isinstance(node, ast.AST):
        if type(node) is not list:
            SKIP.add(type(node))
        return None
    node_type = type(node)
    text = text_fields(node_type)
    spec = []
    for field in node_type._fields:
        value = getattr(node, field, None)
        if field != "ctx" and field not in text and (value is None or isinstance(value, (list, ast.AST))):
            spec.append((field, isinstance(value, list)))
    SPECS[node_type] = result = tuple(spec)
    return result
