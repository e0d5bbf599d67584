"""What a field of an ``ast`` node can hold, from the grammar the ``ast`` module documents.

From Python 3.9 on each node class documents its fields as ``If(expr test,
stmt* body, stmt* orelse)``.  ``Reach`` answers, for a set of wanted node
classes, whether a field declared as ``expr`` (or ``stmt``, ``arguments``, ...)
can hold one of them anywhere below it: an expression never holds a statement,
so a walk looking for ``Return`` nodes need not enter any expression.  Without
documented fields (Python 3.8, a class it does not know) the answer is always
yes: nothing is left out that could hold a wanted node.  Standard library
only, Python 3.8 syntax.
"""
from __future__ import annotations

import ast
import re
from typing import Dict, FrozenSet, List, Optional, Set, Tuple

#: One constructor of the grammar: ``Name`` or ``Name(type field, ...)``.
_CONSTRUCTOR = re.compile(r"\s*(\w+)\s*(?:\(([^()]*)\))?\s*\Z")

#: Field types that hold text or numbers, never a node.
_LEAF_TYPES = frozenset(["identifier", "string", "int", "constant", "expr_context"])

Fields = Dict[str, str]  # field -> declared type (``expr``, ``stmt``, ``identifier``, ...)


def _fields(text: Optional[str]) -> Optional[Fields]:
    """The fields of one constructor's text (``If(expr test, stmt* body)``, ``Pass``), or None."""
    if text is None:
        return None
    fields: Fields = {}
    for part in text.split(","):
        words = part.split()
        if len(words) != 2:
            return None
        fields[words[1]] = words[0].rstrip("*?")
    return fields


def constructors(type_name: str) -> Optional[List[Tuple[str, Fields]]]:
    """What the parser builds for a field of type ``type_name``: (class name, its fields) for
    each constructor the ``ast`` documentation lists, or None when it does not say."""
    base = getattr(ast, type_name, None)
    doc = (getattr(base, "__doc__", None) or "").strip() if isinstance(base, type) else ""
    head, equals, rest = doc.partition("=")
    parts = rest.split("|") if equals and "(" not in head else [doc]
    found = []
    for part in parts:
        match = _CONSTRUCTOR.match(part)
        fields = _fields(match.group(2)) if match and match.group(2) is not None else {} if match else None
        if match is None or fields is None:
            return None
        found.append((match.group(1), fields))
    return found


def declared(node_type: type) -> Optional[Fields]:
    """The declared fields of a node class (the one constructor its documentation lists), or None."""
    listed = constructors(node_type.__name__) if getattr(ast, node_type.__name__, None) is node_type else None
    return listed[0][1] if listed and len(listed) == 1 and listed[0][0] == node_type.__name__ else None


class Reach:
    """Whether a declared field type can hold, anywhere below, a node of the ``wanted`` classes."""

    def __init__(self, wanted: Tuple[type, ...]) -> None:
        self.wanted = wanted
        self._known: Dict[str, bool] = {}

    def field_can_hold(self, type_name: str) -> bool:
        if type_name in _LEAF_TYPES:
            return False
        known = self._known.get(type_name)
        if known is None:
            known = self._known[type_name] = self._search(type_name)
        return known

    def _search(self, start: str) -> bool:
        """Breadth-first over declared field types from ``start``: exact, whatever the cycles."""
        seen: Set[str] = {start}
        todo = [start]
        while todo:
            listed = constructors(todo.pop())
            if listed is None:
                return True  # a type the documentation does not describe: it may hold anything
            for name, fields in listed:
                cls = getattr(ast, name, None)
                if not isinstance(cls, type) or issubclass(cls, self.wanted):
                    return True
                for type_name in fields.values():
                    if type_name not in _LEAF_TYPES and type_name not in seen:
                        seen.add(type_name)
                        todo.append(type_name)
        return False

    def fields(self, node_type: type, spec: Tuple[Tuple[str, bool], ...]) -> Tuple[Tuple[str, bool], ...]:
        """The fields of ``spec`` (a node type's child fields) that can hold a wanted node."""
        types = declared(node_type)
        if types is None:
            return spec
        return tuple((name, is_list) for name, is_list in spec
                     if name not in types or self.field_can_hold(types[name]))


def wanted_classes(groups: List[Optional[Tuple[type, ...]]]) -> Optional[FrozenSet[type]]:
    """The union of the classes each matcher or unit wants; None when any wants every node."""
    found: Set[type] = set()
    for group in groups:
        if group is None:
            return None
        found.update(group)
    return frozenset(found)
