"""What punstats counts: one registry in which each pattern is one row.

A ``Kind`` is one pattern: its name (the ``kind`` column of the occurrences
table, and its key in a summary), the label tables and figures print, what
it is a share of (``per``: a unit of ``UNITS`` or the name of an ``ast``
node class, "statements of a node type") and, for a pattern a user wrote,
its matcher.  The rows punstats ships are patterns too, declared with this
module's decorator in ``punstats.patterns.built_in`` (whose ``BUILT_IN``
collects them).  Schema, summary, tables, figures, console and report read
their rows from a ``Registry``; a scan's registry is ``BUILT_IN`` plus the
patterns it was given.

``pattern`` is the decorator of the public API (``punstats.pattern``)::

    @punstats.pattern("return_in_finally", label="return/break/continue in finally",
                      per="code_lines", on=(ast.Return, ast.Break, ast.Continue))
    def match(node, parents):   # parents: the node's ancestors, outermost first
        ...                     # True (or a dict of extra fields) for a match

``on`` declares the node classes the matcher is called for (all nodes when
it is left out); the matcher's signature is checked when it is decorated.

Standard library only, Python 3.8 syntax: workers import it.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple, cast

from punstats.model.errors import PunstatsError
from punstats.model.escape import UNSAFE

KIND_CALL = "call"  # f(x=x): the headline
KIND_CLASS = "class"  # class A(metaclass=metaclass)
KIND_ATTRIBUTE = "attribute"  # f(x=<expr>.x)
KIND_DICT_LITERAL = "dict_literal"  # {"x": x}
KIND_NEAR_MISS = "near_miss"  # f(x=_x), f(x_=x): equal once leading/trailing "_" are stripped

# Base of an ``attribute`` occurrence's value.
BASE_SELF, BASE_CLS, BASE_NAME, BASE_EXPR = "self", "cls", "name", "expr"

#: What a count can be a share of: unit -> its words in a table.  ``per`` may
#: also name an ``ast`` node class (``"ExceptHandler"``, ``"Try"``, ``"stmt"``):
#: the nodes of that class, counted in the same pass.
UNITS: Dict[str, str] = {
    "keywords": "keyword arguments",
    "calls": "calls",
    "class_keywords": "class keywords",
    "dict_entries": "string-keyed dict entries",
    "functions": "function definitions and lambdas",
    "files": "parsed files",
    "lines": "lines",
    "code_lines": "lines of code",
    "": "",  # a count that is a share of nothing (a maximum, a number of parameters)
}

#: A matcher: ``match(node, parents)``, parents outermost first; true, or a dict of extra fields, for a match.
Matcher = Callable[[ast.AST, Sequence[ast.AST]], Any]


class PatternError(PunstatsError, ValueError):
    """A pattern that cannot be used as written (its name, its ``per``, its file)."""


@dataclass(frozen=True)
class Kind:
    """One row of the registry."""

    name: str
    label: str
    per: str  # a key of UNITS, or an ast node class name
    section: str = "kinds"  # the summary section holding its count: "kinds" or "parameters"
    occurrence: bool = False  # stored as rows of the occurrences table (``kind`` == name)
    part_of: str = ""  # an "of which" row: the kind it is a part of
    matcher: Optional[Matcher] = field(default=None, compare=False, repr=False)
    source: str = "built-in"  # "built-in", a file, "module:name" or an entry point
    sha256: str = ""  # of the source that defines the matcher (user patterns)
    pooled: str = "sum"  # how counts over many files or projects combine: "sum", or "max" (the largest)
    #: The ``ast`` classes the matcher is called for (``pattern(on=...)``); None: every node.
    on: Optional[Tuple[type, ...]] = field(default=None, compare=False, repr=False)
    #: What it matches, in words: the matcher's docstring, else its module's (``definition``).
    doc: str = field(default="", compare=False, repr=False)
    #: The matcher is called as ``match(node, context)`` (``pattern(context=True)``).
    context: bool = field(default=False, compare=False, repr=False)
    #: The per-file counts it keeps (``Context.count``): columns of the files table.
    columns: Tuple[str, ...] = field(default=(), compare=False, repr=False)
    #: Rows it adds to the registry after its own (``row``).
    rows: Tuple["Kind", ...] = field(default=(), compare=False, repr=False)
    #: The module that defines it (a built-in row: ``punstats.patterns.built_in.call``); "" if unknown.
    module: str = field(default="", compare=False, repr=False)

    @property
    def user(self) -> bool:
        """A pattern a user gave (its matcher, or only its record read back from a stored result)."""
        return self.source != "built-in"

    def provenance(self) -> Dict[str, Any]:
        """What a stored result records of a user pattern (``on``: the node classes it was
        called for, by name; absent when it was called for every node)."""
        recorded: Dict[str, Any] = {"name": self.name, "label": self.label, "per": self.per,
                                    "source": self.source, "sha256": self.sha256}
        if self.on is not None:
            recorded["on"] = [cls.__name__ for cls in self.on]
        if self.doc:
            recorded["doc"] = self.doc
        return recorded


def row(name: str, label: str, per: str, section: str = "kinds", part_of: str = "", pooled: str = "sum",
        doc: str = "") -> Kind:
    """A row a pattern adds to the registry besides its own (``pattern(rows=...)``): a count kept in the
    files table (``pattern(columns=...)``) or derived from the stored rows, such as an "of which" part.
    ``doc``: what it counts, in words (left out: the definition of the pattern that adds it)."""
    return Kind(check_name(name), label, check_per(per), section, part_of=part_of, pooled=pooled, doc=doc)


def with_rows(kind: Kind) -> Tuple[Kind, ...]:
    """``kind`` without its matcher, then the rows it adds (``row``), each defined where it is and,
    when it has no words of its own, by its definition, said to be the pattern's."""
    own = replace(kind, matcher=None, rows=())
    said = "Counted by the ``%s`` pattern. %s" % (kind.name, kind.doc) if kind.doc else ""
    return (own, *(replace(extra, module=extra.module or kind.module, doc=extra.doc or said) for extra in kind.rows))


class Registry:
    """Kinds by name, in order: the built-in rows, then a scan's own patterns."""

    def __init__(self, kinds: Sequence[Kind] = ()) -> None:
        self._kinds: Dict[str, Kind] = {}
        for kind in kinds:
            if kind.name in self._kinds:
                raise PatternError("two patterns are named %r (%s and %s)"
                                   % (kind.name, self._kinds[kind.name].source, kind.source))
            self._kinds[kind.name] = kind

    def __iter__(self) -> Iterator[Kind]:
        return iter(self._kinds.values())

    def __len__(self) -> int:
        return len(self._kinds)

    def __contains__(self, name: object) -> bool:
        return name in self._kinds

    def __getitem__(self, name: str) -> Kind:
        return self._kinds[name]

    def with_kinds(self, kinds: Sequence[Kind]) -> "Registry":
        """This registry and ``kinds`` after it (a name may not repeat)."""
        return Registry(list(self) + list(kinds))

    @property
    def user(self) -> Tuple[Kind, ...]:
        """The patterns a user gave, in order."""
        return tuple(kind for kind in self if kind.user)

    @property
    def occurrence_kinds(self) -> Tuple[str, ...]:
        return tuple(kind.name for kind in self if kind.occurrence)


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}\Z")


def name_problem(name: object) -> Optional[str]:
    """What is wrong with ``name`` as a pattern's or a row's name, in words; None when it is an
    identifier of at most 64 characters (a name file names, columns and tables can carry as it is)."""
    if isinstance(name, str) and _NAME.match(name):
        return None
    return "an identifier of at most 64 characters, not %s" % _short_repr(name)


def check_name(name: object) -> str:
    """A pattern's name: an identifier of at most 64 characters (a built-in row's name is refused
    when the pattern is loaded beside them, ``extract.plugins``)."""
    wrong = name_problem(name)
    if wrong:
        raise PatternError("a pattern's name is %s" % wrong)
    return cast(str, name)


#: The most characters of a pattern's label (``clean_label``).
LABEL_LIMIT = 200

#: A terminal escape sequence: OSC (a hyperlink, a title) up to its end, CSI (colours, cursor moves), others.
_ESCAPE_SEQUENCE = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\|$)|\x1b\[[0-?]*[ -/]*[@-~]|\x1b[@-_]?")


def clean_label(label: object) -> str:
    """A label as tables, figures and reports print it: text without escape sequences (an OSC 8
    hyperlink keeps its text), each other control character a space, runs of spaces one, at most
    ``LABEL_LIMIT`` characters (cut with an ellipsis)."""
    text = _ESCAPE_SEQUENCE.sub("", label if isinstance(label, str) else str(label))
    text = " ".join(UNSAFE.sub(" ", text).split())
    return text if len(text) <= LABEL_LIMIT else text[:LABEL_LIMIT - 1].rstrip() + "\u2026"


def check_label(name: str, label: object) -> str:
    """A pattern's label (``clean_label``): text, else a one-line ``PatternError``."""
    if not isinstance(label, str):
        raise PatternError("pattern %r: its label is text, not %s" % (name, _short_repr(label)))
    return clean_label(label)


def check_per(per: object) -> str:
    """A unit of ``UNITS``, or the name of an ``ast`` node class."""
    if isinstance(per, str) and (per in UNITS or node_class(per) is not None):
        return per
    raise PatternError("per=%r is neither a unit (%s) nor an ast node class such as 'Try'"
                       % (per, ", ".join(unit for unit in UNITS if unit)))


def node_class(name: str) -> Optional[type]:
    """The ``ast`` node class ``name`` names, or None."""
    value = getattr(ast, name, None) if name[:1].isupper() or name in ("stmt", "expr") else None
    return value if isinstance(value, type) and issubclass(value, ast.AST) else None


#: The attribute of a decorated function holding its ``Kind``.
PATTERN_ATTRIBUTE = "punstats_pattern"

#: Patterns the ``pattern`` decorator defined, in order; a loader takes them (``defined_since``).
_DEFINED: List[Kind] = []


def pattern(name: str, label: Optional[str] = None, per: str = "lines", on: Any = None, context: bool = False,
            occurrence: bool = True, section: str = "kinds", columns: Sequence[str] = (),
            rows: Sequence[Kind] = ()) -> Callable[[Matcher], Matcher]:
    """Decorator: ``match(node, parents)`` becomes the pattern ``name``.

    ``match`` is called with a node of a parsed file and the node's
    ancestors, outermost first; it returns something true (or a dict of
    extra fields to store) for a match.  ``on``: an ``ast`` class or a tuple
    of them, the nodes ``match`` is called for (left out: every node); the
    walk then skips what cannot hold one.  ``per`` says what a count is
    measured against: a unit of ``UNITS`` or an ``ast`` node class name.

    ``context=True``: ``match(node, context)`` is given an
    ``extract.walk.Context`` instead of the ancestors, records its own rows
    (``context.record``) and keeps per-file counts (``context.count``) in the
    files-table ``columns`` it declares; its return value is ignored.  The
    built-in kinds (``punstats.patterns.built_in``) are written this way;
    ``occurrence=False`` says it records no rows, ``section`` where a
    summary lists it, ``rows`` the further registry rows it keeps (``row``).
    """
    if section not in ("kinds", "parameters"):
        raise PatternError("pattern %r: section=%r is neither 'kinds' nor 'parameters'" % (name, section))
    kind = Kind(check_name(name), check_label(name, label if label is not None else name), check_per(per),
                section, occurrence,
                on=check_on(name, on), context=bool(context), columns=tuple(check_name(c) for c in columns),
                rows=tuple(rows))

    def decorate(match: Matcher) -> Matcher:
        check_matcher(name, match)
        module = getattr(match, "__module__", "") or ""
        defined = replace(kind, matcher=match, source=module, module=module, doc=definition(match))
        _DEFINED.append(defined)
        try:  # ``module:name`` finds the pattern on the function
            setattr(match, PATTERN_ATTRIBUTE, defined)
        except (AttributeError, TypeError):  # a callable that takes no attributes: found by defined_since
            pass
        return match

    return decorate


def check_on(name: str, on: Any) -> Optional[Tuple[type, ...]]:
    """``on=``: None, an ``ast`` class, or a non-empty tuple or list of them."""
    classes = tuple(on) if isinstance(on, (tuple, list)) else (on,)
    if on is None:
        return None
    if classes and all(isinstance(cls, type) and issubclass(cls, ast.AST) for cls in classes):
        return classes
    raise PatternError("pattern %r: on=%s is not an ast node class or a tuple of them, such as "
                       "on=(ast.Return, ast.Break)" % (name, _short_repr(on)))


def check_matcher(name: str, match: Any) -> None:
    """A matcher can be called as ``match(node, parents)``; else a one-line ``PatternError``."""
    import inspect  # not at import: ``punstats --help`` reads this module

    if not callable(match):
        raise PatternError("@pattern(%r) decorates a function match(node, parents), not %s"
                           % (name, _short_repr(match)))
    try:
        signature = inspect.signature(match)
    except (TypeError, ValueError):  # a built-in callable without a readable signature: tried when called
        return
    try:
        signature.bind(None, None)
    except TypeError:
        raise PatternError("pattern %r: its function is called as match(node, parents), but %s%s takes "
                           "other arguments" % (name, getattr(match, "__name__", "it"), signature)) from None


#: The most of a pattern's docstring a stored result keeps.
DOC_LIMIT = 2000


def definition(match: Any) -> str:
    """What ``match`` matches, in words: its docstring, else the docstring of the module defining it
    (as the shipped patterns write it), its lines joined into paragraphs, at most ``DOC_LIMIT`` characters."""
    import sys
    text = getattr(match, "__doc__", None)
    if not isinstance(text, str) or not text.strip():
        text = getattr(sys.modules.get(getattr(match, "__module__", None) or ""), "__doc__", None)
    if not isinstance(text, str):
        return ""
    paragraphs = (" ".join(part.split()) for part in re.split(r"\n\s*\n", text))
    joined = "\n\n".join(part for part in paragraphs if part)
    return joined if len(joined) <= DOC_LIMIT else joined[:DOC_LIMIT - 3].rstrip() + "..."


def _short_repr(value: Any, width: int = 60) -> str:
    try:
        text = repr(value)
    except Exception as exc:  # noqa: BLE001 -- the user's __repr__
        return "a %s whose repr raised %s" % (type(value).__name__, type(exc).__name__)
    return text if len(text) <= width else text[:width - 3] + "..."


def defined_since(mark: int) -> List[Kind]:
    """The patterns defined after ``len(_DEFINED)`` was ``mark``."""
    return list(_DEFINED[mark:])


def defined_count() -> int:
    return len(_DEFINED)


def recorded_patterns(summary: Dict[str, Any], built_in: Registry) -> List[Kind]:
    """The user patterns a stored result's summary records (each without its matcher), those not
    named like a row of ``built_in`` (the registry a stored result was counted with is
    ``built_in`` and these: ``patterns.built_in.registry_of``).  An entry whose name is not a
    pattern's (``name_problem``: a summary edited by hand, or written by something else) or
    repeats one before it is left out: names become file names, columns and figure names."""
    recorded = summary.get("patterns")
    kept: Dict[str, Dict[str, Any]] = {}
    for p in recorded if isinstance(recorded, list) else []:
        if isinstance(p, dict) and name_problem(p.get("name")) is None and p["name"] not in built_in:
            kept.setdefault(p["name"], p)
    return [Kind(name, clean_label(p.get("label") or name), str(p.get("per") or ""), occurrence=True,
                 source=str(p.get("source") or "user"), sha256=str(p.get("sha256") or ""), on=_recorded_on(p),
                 doc=p["doc"] if isinstance(p.get("doc"), str) else "")
            for name, p in kept.items()]


def _recorded_on(recorded: Dict[str, Any]) -> Optional[Tuple[type, ...]]:
    """The node classes a stored pattern records (``on``), those this parser knows; None if none."""
    names = recorded.get("on")
    if not isinstance(names, list):
        return None
    classes = tuple(cls for cls in (node_class(n) if isinstance(n, str) else None for n in names) if cls)
    return classes or None
