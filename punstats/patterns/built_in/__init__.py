"""The kinds punstats counts without being asked: each module here is one pattern.

Each module declares its kind with the public decorator
(``@punstats.pattern(..., on=CLASSES, context=True)``) and is called by the
same walk as a user's patterns (``extract.walk``), with a ``Context`` through
which it records its rows and keeps its per-file counts (the files-table
``columns`` it declares).  ``MODULES`` lists them in the order tables list
their rows; a new built-in kind is one module here, its name in ``MODULES``,
and its test.

``PATTERNS`` are the kinds with their matchers; ``BUILT_IN`` the registry
rows they declare (each pattern's own, then its ``rows``, each keeping the
module that defines it and its definition: ``model.kinds.with_rows``); ``COUNT_COLUMNS``
the per-file counts, in order; ``KINDS`` the registry of a scan given no
pattern, and ``registry_of`` the registry a stored result was counted with.
Standard library only, Python 3.8 syntax: workers import it.
"""
import importlib
from dataclasses import replace
from typing import Any, Dict, Tuple

from punstats.model.kinds import PATTERN_ATTRIBUTE, Kind, Registry, recorded_patterns, with_rows

#: The modules, in the order of their rows.
MODULES = ("call", "attribute", "near_miss", "dict_literal", "class_keywords", "call_shapes", "function_shapes")


def _load(module: str) -> Kind:
    match = importlib.import_module("%s.%s" % (__name__, module)).match
    return replace(getattr(match, PATTERN_ATTRIBUTE), source="built-in")


#: The built-in kinds, with their matchers, in order.
PATTERNS: Tuple[Kind, ...] = tuple(_load(module) for module in MODULES)

#: The rows punstats ships, in the order tables list them.
BUILT_IN: Tuple[Kind, ...] = tuple(row for kind in PATTERNS for row in with_rows(kind))

#: The per-file counts of the files table, in order.
COUNT_COLUMNS: Tuple[str, ...] = tuple(column for kind in PATTERNS for column in kind.columns)

#: The registry of a scan given no pattern.
KINDS = Registry(BUILT_IN)


def registry_of(summary: Dict[str, Any]) -> Registry:
    """The registry a stored result was counted with: ``BUILT_IN`` and the user patterns its
    summary records (each without its matcher)."""
    return KINDS.with_kinds(recorded_patterns(summary, KINDS))
