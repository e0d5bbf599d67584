"""What a stored ecosystem run's files must hold to be shown: the shape of a project record's
counts and of the ecosystem summary (``ecosystem.json``), as ``runs.ecosystem`` writes them.

``table``, ``plot`` and ``report`` read these files as they are; a file edited by hand (a count
of 10**30, a value set to null, a list where an object was) is refused here, in one line
naming the field, instead of failing in pandas or matplotlib.  Standard library and ``model`` only.
"""
from __future__ import annotations

import math
from typing import Any, Callable, Dict, Optional

from punstats.model.kinds import name_problem
from punstats.store.shape import patterns_problem

#: The largest count a stored run holds (what a 64-bit column takes).
MAX_COUNT = 2 ** 63 - 1


def is_count(value: Any) -> bool:
    """A whole number from 0 to ``MAX_COUNT`` (not a boolean)."""
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT


def is_number(value: Any) -> bool:
    """A finite number (a share, a rate), or a count."""
    return is_count(value) or (isinstance(value, float) and math.isfinite(value))


def _share(value: Any) -> bool:
    return value is None or is_number(value)


def _each(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    """The values of a JSON object, each passing ``check``."""
    return lambda value: isinstance(value, dict) and all(isinstance(k, str) and check(v) for k, v in value.items())


def _rows(*checks: Callable[[Any], bool]) -> Callable[[Any], bool]:
    """A list of rows, each a list starting with values passing ``checks`` in turn."""
    return lambda value: isinstance(value, list) and all(
        isinstance(row, list) and len(row) >= len(checks) and all(c(v) for c, v in zip(checks, row)) for row in value)


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _per_project(value: Any) -> bool:
    return _each(is_number)(value) and is_count(value.get("projects"))


#: Each field of a scope (``all``, ``nontest``) of the summary, and what it must hold.
SCOPE = {"files": is_count, "keywords": is_count, "punnable": is_count, "pooled_pct": _share,
         "per_project": _per_project, "projects_above_pct": _each(is_number),
         "top_identifiers": _rows(_text, is_count), "top_callees": _rows(_text, is_count),
         "cumulative_by_length": _rows(is_count, is_count)}

#: The fields of the summary outside its scopes.
SUMMARY = {"projects": is_count, "scanned": is_count, "skipped": is_count, "failed": is_count,
           "lines": is_count, "distributions": _each(is_count), "not_scanned_by_reason": _each(is_count),
           "kinds": _each(_each(lambda v: isinstance(v, dict) and _share(v.get("pct"))
                                and (v.get("count") is None or is_count(v.get("count")))))}


#: Fields a run made by an earlier punstats may lack (what reads them takes their absence).
OPTIONAL = frozenset({"lines", "kinds"})


def summary_problem(ecosystem: Dict[str, Any]) -> Optional[str]:
    """The first field of an ecosystem summary that is missing or not of its shape, as
    ``all.punnable``; None when every field is."""
    for key, check in SUMMARY.items():
        if not check(ecosystem.get(key)) and (key in ecosystem or key not in OPTIONAL):
            return key
    for scope in ("all", "nontest"):
        part = ecosystem.get(scope)
        if not isinstance(part, dict):
            return scope
        for key, check in SCOPE.items():
            if not check(part.get(key)):
                return "%s.%s" % (scope, key)
    if "rules" in ecosystem and rules_problem(ecosystem["rules"]):
        return rules_problem(ecosystem["rules"])
    if not _patterns(ecosystem.get("patterns", [])):
        return "patterns"
    if any(name_problem(name) for scope in ecosystem.get("kinds", {}).values() for name in scope):
        return "kinds"
    return None


def _patterns(value: Any) -> bool:
    """User patterns as a run records them (``store.shape.patterns_problem``: objects, each named
    as a pattern is, no name twice)."""
    return isinstance(value, list) and patterns_problem(value) is None


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _flag(value: Any) -> bool:
    return isinstance(value, bool)


#: The rules a run records (``ScanOptions.rules()``), those a report repeats, and their shape.
RULES = {"test_rule": _text, "long_threshold": is_count, "max_bytes": is_count, "extensions": _texts,
         "exclude": _texts, "follow_links": _flag, "exclude_dirs": _flag, "gitignore": _flag, "definition": _text,
         "patterns": _patterns}


def rules_problem(rules: Any) -> Optional[str]:
    """The first rule of a run's ``run.json`` (``rules``) that is not of the shape written (a run
    made by an earlier punstats may lack some); None when each is."""
    if not isinstance(rules, dict):
        return "rules"
    for key, check in RULES.items():
        if key in rules and not check(rules[key]):
            return "rules.%s" % key
    return None
