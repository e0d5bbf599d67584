"""A registry row's numbers in a stored summary: its count, what it is a share of, its rates.

One place decides what a row of ``model.kinds`` counts in a summary and
what that count is a share of, so that tables, figures, the console and the
report print the same numbers:

- ``count``: the row's count in all code (``kinds``, or ``parameters`` for
  the definition-side rows) or outside tests (``kinds_nontest``);
- ``denominator``: the total of a unit (``Kind.per``) in all code or outside
  tests, from the summary's ``units`` / ``units_nontest`` when the scan
  recorded them, else from the keys summaries stored before held
  (``keywords``, ``calls``, ``class_keywords``, ``kinds["dict_entries"]``,
  ``parameters["functions"]``, ``parsed``, ``lines``, ``code_lines``);
  0 of every unit in a scan that parsed no file (its summary records no
  units: an sdist of stubs only, say); None when the summary does not know it;
- ``share`` (in %) and ``per_million`` (per million lines of code);
- ``is_share``: whether a count is a share of its unit in % (the unit counts
  syntax: keyword arguments, calls, ``Try`` nodes) or a rate per million of it
  (lines, lines of code, files: a construct is no part of a line), ``rate``;
- ``stored_share``: a share the summary stores (``punnable_pct``), NaN when
  its denominator is 0 (``summary.json`` holds 0.0 there: JSON has no NaN);
- ``union``: the rows of several scans, in order.

Standard library only (``table --help`` imports it): the console summary uses it without pandas.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Sequence, Tuple

from punstats.model.kinds import UNITS, Kind, Registry
from punstats.patterns.built_in import registry_of

Summary = Dict[str, Any]


def _kinds(summary: Summary, key: str) -> Optional[Any]:
    return (summary.get("kinds") or {}).get(key)


def _functions(summary: Summary) -> Optional[Any]:
    """Definitions counted from the functions table, else from the files table."""
    value = (summary.get("parameters") or {}).get("functions")
    return value if value is not None else _kinds(summary, "functions")


#: Where a summary stored before ``units`` holds the total of each unit (all code).
_STORED_BEFORE: Dict[str, Callable[[Summary], Optional[Any]]] = {
    "keywords": lambda s: s.get("keywords"),
    "calls": lambda s: s.get("calls"),
    "class_keywords": lambda s: s.get("class_keywords"),
    "dict_entries": lambda s: _kinds(s, "dict_entries"),
    "functions": _functions,
    "files": lambda s: s.get("parsed"),
    "lines": lambda s: s.get("lines"),
    "code_lines": lambda s: s.get("code_lines"),
}

#: The same, outside tests.
_STORED_BEFORE_NONTEST: Dict[str, Callable[[Summary], Optional[Any]]] = {
    "keywords": lambda s: s.get("keywords_nontest"),
}

def denominator(summary: Summary, unit: str, nontest: bool = False) -> Optional[int]:
    """The total of ``unit`` in the scan's parsed files (``nontest``: outside
    tests), or None when there is no unit or the summary does not hold it."""
    if not unit:
        return None
    recorded = summary.get("units_nontest" if nontest else "units") or {}
    if unit in recorded:
        value = recorded[unit]
    else:
        found = (_STORED_BEFORE_NONTEST if nontest else _STORED_BEFORE).get(unit)
        value = found(summary) if found else None
        if value is None and summary.get("parsed") == 0:  # nothing parsed: none of any unit
            value = 0
    return None if value is None else int(value)


def count(summary: Summary, kind: Kind, nontest: bool = False) -> Optional[int]:
    """``kind``'s count in all code (``nontest``: outside tests), or None when not recorded."""
    sections: Tuple[str, ...]
    if nontest:  # a parameter row outside tests: in parameters_nontest (a summary stored before has none)
        sections = ("kinds_nontest", "parameters_nontest") if kind.section == "parameters" else ("kinds_nontest",)
    else:
        sections = (kind.section, "kinds", "parameters")
    value = next((summary[s][kind.name] for s in sections
                  if isinstance(summary.get(s), dict) and kind.name in summary[s]), None)
    return None if value is None else int(value)


def share(part: Optional[int], whole: Optional[int]) -> float:
    """``part`` in % of ``whole`` (four decimals); NaN where a share means nothing."""
    from punstats.analysis.summary import percent  # its module imports pyarrow; ``--help`` imports this one
    return percent(part, whole) if part is not None and whole else float("nan")


#: The shares a summary stores, and the unit each is a share of (all code, or outside tests).
STORED_SHARES: Dict[str, Any] = {"punnable_pct": ("keywords", False), "punnable_nontest_pct": ("keywords", True)}


def stored_share(summary: Summary, key: str) -> float:
    """``summary[key]``, a share it stores, as tables, the console and figures show it: NaN
    ("n/a") when its denominator is 0 or unknown, since ``summary.json`` holds 0.0 for 0 of 0."""
    unit, nontest = STORED_SHARES[key]
    return float(summary[key]) if key in summary and denominator(summary, unit, nontest) else float("nan")


#: The units that count syntax (nodes), besides ``ast`` classes: a count of matches among them is a share.
SHARE_UNITS = ("keywords", "calls", "class_keywords", "dict_entries", "functions")


def is_share(unit: str) -> bool:
    """A count per ``unit`` is a share in % (a unit of syntax) rather than a rate per million (lines, files)."""
    return unit in SHARE_UNITS or (bool(unit) and unit not in UNITS)


def rate(part: Optional[int], whole: Optional[int]) -> float:
    """``part`` per million of ``whole`` (four decimals, as a share has: a rate below 1 keeps the
    three significant figures every output prints, ``present.formats.rate_text``); NaN where it
    means nothing."""
    return round(1e6 * part / whole, 4) if part is not None and whole else float("nan")


def per_million(summary: Summary, part: Optional[int], nontest: bool = False) -> float:
    """``part`` per million lines of code (four decimals); NaN when lines of code are unknown."""
    return rate(part, denominator(summary, "code_lines", nontest))


def union(summaries: Sequence[Summary]) -> Registry:
    """The rows of every scan's registry (``patterns.built_in.registry_of``), each once, in order."""
    rows: Dict[str, Kind] = {}
    for summary in summaries:
        for kind in registry_of(summary):
            rows.setdefault(kind.name, kind)
    return Registry(list(rows.values()))


def unit_words(unit: str) -> str:
    """What a table says a share is of: ``UNITS``' words, or "``Try`` nodes" for a node class."""
    return UNITS[unit] if unit in UNITS else "`%s` nodes" % unit


def measure_words(unit: str) -> str:
    """What a row's share or rate is of: the unit's words, "per million" before a unit of rates."""
    return unit_words(unit) if is_share(unit) or not unit else "per million " + unit_words(unit)


def parts_of(registry: Registry, name: str) -> Sequence[Kind]:
    """The "of which" rows of ``name``, in order."""
    return tuple(kind for kind in registry if kind.part_of == name)


def figure_rows(registry: Registry) -> Sequence[Kind]:
    """The rows a comparison of patterns shows: each occurrence kind and its
    first "of which" row (the registry lists the most telling first)."""
    rows = []
    for kind in registry:
        if kind.occurrence:
            rows.append(kind)
            rows += list(parts_of(registry, kind.name))[:1]
    return tuple(rows)
