"""The rows of user patterns' matches, and how a failing matcher is recorded.

The walk (``extract.walk``) calls a user's ``match(node, parents)``; a
match (a true result) becomes a row (``matched_row``) of kind = the
pattern's name: its position is the node's
(character columns, ``SourceText``; a node without one, such as
``arguments`` or an operator, takes its nearest ancestor's); ``name`` is the
node's class name (``Return``); ``value`` is the node's source text,
shortened; when the matcher returned a non-empty dict, ``fields`` is that
dict as JSON text (sorted keys, each value a JSON scalar), which the stored
table spreads into one column per key (``store.fields``); ``depth`` counts
the enclosing calls and ``in_fstring`` says whether an f-string encloses it,
as for the built-in kinds; the columns about a call (``callee``,
``call_line`` ...) are None.

``node_units`` names the ``ast`` classes the patterns' ``per`` count per
file.  A matcher that raises ends the walk with ``PatternFailure``
(``failure_at``) naming the pattern; the file is then recorded as failed
(``traversal``).  Standard library only, Python 3.8 syntax.
"""
from __future__ import annotations

import ast
import json
from typing import Any, Dict, List, Sequence, Tuple

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


def failure_at(name: str, exc: BaseException, node: Any, route: Sequence[ast.AST]) -> PatternFailure:
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


def matched_row(path: str, source: SourceText, name: str, node: ast.AST, parents: Tuple[ast.AST, ...],
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
