"""The definition search: every numerator x denominator x file set the tool can compute.

For one tree (and one parser), ``search`` computes every count, percentage
and lines-saved figure that a counting definition the tool implements gives:

- counts and percentages from the per-file counters of
  ``punstats.extract.definitions`` (punstats' own punnable count, with and
  without class keywords; the bare ``x=x`` the PEP author's commits rewrote;
  calls with any ``x=x``), over three depths (all calls; top-level calls, as
  ``find_kwargs.py`` visited them before 2024; at most one enclosing call)
  and 64 file sets (``.py`` or ``.py`` + ``.pyi``; tests kept or dropped in
  three ways; docs kept or dropped; benchmarks and examples kept or dropped;
  all files or the files holding an ``x=x``), each numerator over nine
  denominators computed on the same files and depth;
- each ``find_kwargs.py`` compatibility profile (``punstats.extract.compat``,
  replayed over the tree in sorted walk order, quirks included): the
  numerators and denominators its statistics block printed;
- lines saved: the punning commit's net lines over the same file sets, and
  ``rewrite --rewrap``'s own estimate on the tree (with and without
  ``delimited_only``).

Published numbers never enter these computations: ``hits`` compares them
with the results afterwards, at the printed precision.
"""
from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from punstats.extract import compat
from punstats.store.rules import parse_test_rule

_Counters = Dict[str, Any]

#: Depths: which enclosing-call levels of ``extract.definitions`` count.
DEPTHS: Dict[str, Tuple[str, ...]] = {"all": ("0", "1", "2"), "top": ("0",), "le1": ("0", "1")}


def _sum(c: _Counters, key: str, depth: str) -> int:
    return sum(c.get("%s_d%s" % (key, d), 0) for d in DEPTHS[depth])


#: Numerators: a file's counters and a depth -> a count.
NUMERATORS: Dict[str, Callable[[_Counters, str], int]] = {
    "punnable (punstats)": lambda c, d: _sum(c, "call_pun", d),
    "punnable + class keywords": lambda c, d: _sum(c, "call_pun", d) + _sum(c, "class_pun", d),
    "bare x=x after ( or , before , or )": lambda c, d: _sum(c, "call_pundelim", d),
    "bare x=x (not delimited)": lambda c, d: _sum(c, "call_punbare", d),
    "calls with any x=x (find_kwargs Matches)": lambda c, d: _sum(c, "callspun", d),
}

#: Denominators.  find_kwargs' "Total keyword params" is ``named + **`` (``len(node.keywords)``).
DENOMINATORS: Dict[str, Callable[[_Counters, str], int]] = {
    "named keywords (punstats)": lambda c, d: _sum(c, "call_kw", d),
    "named + ** (find_kwargs KwCount)": lambda c, d: _sum(c, "call_kw", d) + _sum(c, "call_star", d),
    "named + class keywords": lambda c, d: _sum(c, "call_kw", d) + _sum(c, "class_kw", d),
    "named + ** + class": lambda c, d: (_sum(c, "call_kw", d) + _sum(c, "call_star", d)
                                        + _sum(c, "class_kw", d) + _sum(c, "class_star", d)),
    "named, after ( or , before , or )": lambda c, d: _sum(c, "call_kwdelim", d),
    "named, on one line": lambda c, d: _sum(c, "call_kwoneline", d),
    "named, value Name/Constant/Attribute": lambda c, d: _sum(c, "call_kwsimple", d),
    "calls with any keyword (find_kwargs Kwargs)": lambda c, d: _sum(c, "callskw", d),
    "calls (find_kwargs Calls)": lambda c, d: _sum(c, "calls", d),
}

_COMPONENTS = parse_test_rule("components")
_TEST_DIRS = re.compile(r"(^|/)tests?/")
_DOCS = re.compile(r"(^|/)docs?(_src)?/")
_EXTRAS = re.compile(r"(^|/)(asv_bench|benchmarks?|examples?|docs?_src)/")

#: File filters: per dimension, (label, predicate on the path); a file set takes one of each.
FILTERS: Dict[str, Dict[str, Callable[[str], bool]]] = {
    "ext": {".py": lambda p: p.endswith(".py"), ".py+.pyi": lambda p: p.endswith((".py", ".pyi"))},
    "tests": {"with tests": lambda p: True,
              "no tests (components)": lambda p: not _COMPONENTS.is_test(p),
              "no tests (substring)": lambda p: "test" not in p,
              "no test dirs": lambda p: _TEST_DIRS.search(p) is None},
    "docs": {"with docs": lambda p: True, "no doc(s)/": lambda p: _DOCS.search(p) is None},
    "extras": {"with benchmarks/examples": lambda p: True,
               "no benchmarks/examples": lambda p: _EXTRAS.search(p) is None},
}

#: The last dimension: every file, or only the files holding an ``x=x``.
ONLY_PUNNED = ("all files", "files with x=x")


def file_sets(dimensions: Sequence[str] = tuple(FILTERS)) -> List[Dict[str, str]]:
    """Every choice of one filter per dimension."""
    out: List[Dict[str, str]] = [{}]
    for dim in dimensions:
        out = [dict(o, **{dim: choice}) for o in out for choice in FILTERS[dim]]
    return out


def _label(choice: Dict[str, str]) -> str:
    return " | ".join(choice.values())


def _aggregate(per_file: Dict[str, _Counters], only_punned: bool) -> Dict[Tuple[bool, ...], _Counters]:
    """Counters summed over the files that pass the same filters (one key per combination of
    filter results), so that each file set sums a few groups instead of every file."""
    preds = [pred for dim in FILTERS.values() for pred in dim.values()]
    groups: Dict[Tuple[bool, ...], _Counters] = {}
    for path, c in per_file.items():
        if not c.get("ok") or (only_punned and not _sum(c, "call_pun", "all")):
            continue
        key = tuple(pred(path) for pred in preds)
        group = groups.setdefault(key, {})
        for k, v in c.items():
            if k.startswith(("call", "class")):
                group[k] = group.get(k, 0) + v
    return groups


def _select(groups: Dict[Tuple[bool, ...], _Counters], choice: Dict[str, str]) -> _Counters:
    names = [(dim, label) for dim, labels in FILTERS.items() for label in labels]
    wanted = [i for i, (dim, label) in enumerate(names) if choice.get(dim) == label]
    total: _Counters = {}
    for key, group in groups.items():
        if all(key[i] for i in wanted):
            for k, v in group.items():
                total[k] = total.get(k, 0) + v
    return total


def percent(num: int, den: int) -> Optional[float]:
    return round(100.0 * num / den, 2) if den else None


def combinations(per_file: Dict[str, _Counters]) -> Tuple[List[Dict[str, Any]], List[Dict[str, Any]]]:
    """(counts, percentages): every (file set, depth, numerator) with its value, and every
    (file set, depth, numerator, denominator); numerator and denominator always on the same
    files and depth (a script computes both in one walk)."""
    counts, percents = [], []
    for only in ONLY_PUNNED:
        groups = _aggregate(per_file, only == ONLY_PUNNED[1])
        for choice in file_sets():
            label = _label(choice) + " | " + only
            total = _select(groups, choice)
            for depth in DEPTHS:
                nums = {n: f(total, depth) for n, f in NUMERATORS.items()}
                dens = {n: f(total, depth) for n, f in DENOMINATORS.items()}
                for nn, nv in nums.items():
                    counts.append({"files": label, "depth": depth, "numerator": nn, "value": nv})
                    for dn, dv in dens.items():
                        percents.append({"files": label, "depth": depth, "numerator": nn,
                                         "denominator": dn, "num": nv, "den": dv,
                                         "value": percent(nv, dv)})
    return counts, percents


#: What a profile's statistics block printed: numerators and denominators (``compat.run`` stats).
PROFILE_NUMERATORS = {"Num params where x=x": "MatchCount", "Calls with any 'x=x'": "Matches"}


PROFILE_DENOMINATORS = {"Total keyword params": "KwCount", "Calls with any kwarg": "Kwargs",
                        "Total function calls": "Calls"}


def profile_rows(order: Sequence[Tuple[str, Optional[Dict[str, Any]]]]
                 ) -> Tuple[List[Dict[str, Any]], List[Dict[str, Any]]]:
    """(counts, percentages) of every ``find_kwargs.py`` profile replayed over ``order``
    ((path, ``compat_file`` result) in walk order): its printed lines, and each numerator of its
    statistics block over each denominator.  A profile whose script would have stopped is left out."""
    counts, percents = [], []
    for name in compat.PROFILES:
        run = compat.run(order, compat.profile(name, walk="sorted"))
        if run.crash:
            continue
        files, depth = "every .py (the script's walk)", "profile " + name
        counts.append({"files": files, "depth": depth, "numerator": "lines printed",
                       "value": len(run.lines)})
        for nn, nk in PROFILE_NUMERATORS.items():
            counts.append({"files": files, "depth": depth, "numerator": nn, "value": run.stats[nk]})
            for dn, dk in PROFILE_DENOMINATORS.items():
                percents.append({"files": files, "depth": depth, "numerator": nn, "denominator": dn,
                                 "num": run.stats[nk], "den": run.stats[dk],
                                 "value": percent(run.stats[nk], run.stats[dk])})
    return counts, percents


#: Lines-saved file sets: the count's filters without ``.pyi`` (every file of a diff, or ``.py``).
SAVED_FILTERS = {"all files": lambda p: True, ".py": lambda p: p.endswith(".py")}


def saved_rows(per_path: Dict[str, int], source: str) -> List[Dict[str, Any]]:
    """Lines saved (``per_path``: path -> net lines) summed over every lines-saved file set."""
    rows = []
    for ext, ext_pred in SAVED_FILTERS.items():
        for choice in file_sets(("tests", "docs", "extras")):
            preds = [ext_pred] + [FILTERS[d][c] for d, c in choice.items()]
            value = sum(n for p, n in per_path.items() if all(pred(p) for pred in preds))
            rows.append({"source": source, "files": ext + " | " + _label(choice), "value": value})
    return rows


def printed_as(value: Any, published: Any) -> bool:
    """Whether ``value`` prints as ``published`` does (two decimals for a percentage)."""
    if value is None or published is None:
        return False
    if isinstance(published, float):
        return "%.2f" % value == "%.2f" % published
    return value == published


def hits(rows: Sequence[Dict[str, Any]], published: Any, nearest: int = 3) -> Dict[str, Any]:
    """The rows whose value prints as the published one, and the ``nearest`` others (the
    published value is used here only, to compare)."""
    exact = [r for r in rows if printed_as(r["value"], published)]
    others = sorted((r for r in rows if r["value"] is not None and not printed_as(r["value"], published)),
                    key=lambda r: abs(r["value"] - published)) if published is not None else []
    return {"published": published, "tried": len(rows), "hits": exact, "nearest": others[:nearest]}
