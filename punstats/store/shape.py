"""The shape a stored scan's ``summary.json`` must have to be presented.

A summary is read from disk, where anything may have been written: a list
where an object belongs, a string for a count, a key missing or null.
``check_summary`` is the one place that checks it, when it is read
(``disk.read_summary``), so that ``table``, ``plot``, ``report`` and
``punstats.load`` use its values without checking each again.  Keys a
summary of an older scan may lack are checked only when present.  The
names of rows (the keys of ``kinds``, each pattern's name) are identifiers,
as a scan writes them: they become file, column and figure names.
Standard library and ``model`` only.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

from punstats.model.kinds import name_problem

Check = Callable[[Any], bool]


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _text(value: Any) -> bool:
    return isinstance(value, str)


def _counts(value: Any) -> bool:
    """An object of counts (``kinds``, ``failed_by_reason``, ...)."""
    return isinstance(value, dict) and all(isinstance(v, (int, float)) for v in value.values())


def _lines_saved(value: Any) -> bool:
    """``{"lines_saved": N, "lines_removed": N, ...}``: its counts are numbers."""
    return isinstance(value, dict) and all(_count(value.get(key)) for key in LINES_SAVED)


LINES_SAVED = ("lines_saved", "lines_removed", "lines_added")


def _pairs(value: Any) -> bool:
    """``[[name, count], ...]`` (``top_identifiers``, ``top_callees``)."""
    return isinstance(value, list) and all(
        isinstance(pair, list) and len(pair) == 2 and _text(pair[0]) and _count(pair[1]) for pair in value)


def _object(value: Any) -> bool:
    return isinstance(value, dict)


def _list(value: Any) -> bool:
    return isinstance(value, list)


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(_text(v) for v in value)


_COUNTS = ("files", "parsed", "failed", "calls", "keywords", "punnable", "punnable_nontest", "long",
           "long_nontest", "long_threshold")


#: key -> (its check, what it should be); every scan's summary has these
REQUIRED: Dict[str, Tuple[Check, str]] = {
    **{key: (_count, "a whole number") for key in _COUNTS},
    "punnable_pct": (_number, "a number"),
    "corpus": (_text, "a string"),
    "test_rule": (_text, "a string"),
    "rules": (_object, "an object"),
}


_OPTIONAL_COUNTS = ("test_files", "lines", "double_star", "punnable_test", "calls_with_punnable",
                    "class_keywords", "class_punnable", "keywords_nontest", "extractor_version", "code_lines")


#: key -> (its check, what it should be), when present
OPTIONAL: Dict[str, Tuple[Check, str]] = {
    **{key: (_count, "a whole number") for key in _OPTIONAL_COUNTS},
    "punnable_nontest_pct": (_number, "a number"),
    **{key: (_text, "a string") for key in ("root", "source", "revision", "commit_date", "python",
                                                    "python_implementation", "punstats_version", "created",
                                                    "stored")},
    **{key: (_counts, "an object of numbers") for key in ("failed_by_reason", "skipped_files", "kinds",
                                                          "parameters", "parameters_nontest", "skipped_dirs", "cache",
                                                          "kinds_nontest", "units", "units_nontest")},
    "patterns": (lambda v: isinstance(v, list) and all(isinstance(p, dict) for p in v), "a list of objects"),
    "lines_saved": (_lines_saved, "an object of %s" % ", ".join(LINES_SAVED)),
    **{key: (_pairs, "a list of [name, count] pairs") for key in ("top_identifiers", "top_callees")},
    "archive": (lambda v: v is None or isinstance(v, dict), "an object"),  # file, sha256 (provenance)
    "distribution": (lambda v: isinstance(v, dict) and _text(v.get("name")) and _text(v.get("version")),
                     "an object of name and version"),  # an installed package (provenance, Reproduce)
    "refused_members": (_list, "a list"),
    "rows": (_counts, "an object of numbers"),
    "labels_carried": (lambda v: isinstance(v, dict) and all(
        isinstance(c, dict) and _count(c.get("carried")) and _count(c.get("stale")) for c in v.values()),
        "an object of {carried, stale} counts"),
}


#: key of ``rules`` -> (its check, what it should be), when present
RULES: Dict[str, Tuple[Check, str]] = {
    "test_rule": (_text, "a string"),
    "long_threshold": (_count, "a whole number"),
    "extensions": (_texts, "a list of strings"),
    "exclude": (_texts, "a list of strings"),
    "max_bytes": (_count, "a whole number"),
    "definition": (_text, "a string"),
}


def problem(summary: Any) -> Optional[str]:
    """What is wrong with ``summary`` (parsed JSON) as a scan's summary, or None."""
    if not isinstance(summary, dict):
        return "an object was expected, not %s" % _kind(summary)
    missing = [key for key in REQUIRED if key not in summary]
    if missing:
        return "missing %s" % ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
    for key, value in summary.items():
        wrong = _wrong(REQUIRED.get(key) or OPTIONAL.get(key), key, value)
        if wrong:
            return wrong
    for key, value in summary["rules"].items():
        wrong = _wrong(RULES.get(key), "rules." + key, value)
        if wrong:
            return wrong
    return names_problem(summary)


#: Keys whose own keys are the names of rows (built-in or a pattern's): names that become file names.
NAMED_BY_ROW = ("kinds", "kinds_nontest", "labels_carried")


def names_problem(summary: Dict[str, Any]) -> Optional[str]:
    """What is wrong with the names of rows ``summary`` holds (``NAMED_BY_ROW``' keys, each user
    pattern's ``name``, which must not repeat), or None: each is an identifier of at most 64
    characters (``model.kinds.name_problem``), as a scan writes them, since file names (the labels
    sheet ``labels-NAME.csv``, a figure's), columns and tables are made of them."""
    for key in NAMED_BY_ROW:
        named = summary.get(key)
        for name in named if isinstance(named, dict) else {}:
            wrong = name_problem(name)
            if wrong:
                return "a name in %s should be %s" % (key, wrong)
    patterns = summary.get("patterns")
    return patterns_problem(patterns) if isinstance(patterns, list) else None


def patterns_problem(patterns: List[Any]) -> Optional[str]:
    """What is wrong with user patterns as a scan or a run records them, or None: each an object
    named as a pattern is (``model.kinds.name_problem``: names become file and figure names), no
    name twice."""
    seen = set()
    for index, pattern in enumerate(patterns):
        wrong = name_problem(pattern.get("name")) if isinstance(pattern, dict) else "an object"
        if wrong:
            return "patterns[%d]%s should be %s" % (index, ".name" if isinstance(pattern, dict) else "", wrong)
        if pattern["name"] in seen:
            return "two patterns are named %s" % pattern["name"]
        seen.add(pattern["name"])
    return None


def _wrong(check: Optional[Tuple[Check, str]], key: str, value: Any) -> Optional[str]:
    if check is None or check[0](value):
        return None
    return "%s should be %s, not %s" % (key[:40], check[1], _kind(value))


def _kind(value: Any) -> str:
    """What a JSON value is, in a few words."""
    names = {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null",
             int: "a number", float: "a number"}
    return names.get(type(value), type(value).__name__)
