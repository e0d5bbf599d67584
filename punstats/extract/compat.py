"""Compatibility profiles: Chris Angelico's ``find_kwargs.py`` counting, quirks included.

``find_kwargs.py`` (github.com/Rosuav/shed, first version 2023-10-22) walks
``.`` with ``os.walk``, parses every ``*.py`` with ``ast.parse(bytes)`` and
prints ``PATH:LINE:COL: CALLEE(ARG=ARG)`` for every keyword whose value is a
``Name`` with the keyword's name.  Its published figures (3858 / 525 / 310)
were counts of those lines.  Its behaviour differs from punstats' definition
in ways that change the counts; each is a switch of ``Quirks``:

``walk``
    ``fs``: ``os.walk`` order as the file system returns it (not
    reproducible across machines); ``sorted``: ``os.walk`` order with names
    sorted (files of a directory, then its subdirectories).
``descend``
    ``visit_Call`` never calls ``generic_visit`` until 2024-01-18, so calls
    nested anywhere inside another call (arguments, the callee, lambdas,
    comprehensions) are never visited.  ``descend=True`` is the 2024 fix.
``stale_tree``
    After ``ast.parse`` fails, the script prints the error and visits
    ``node`` anyway: the previous file's tree, printed under the failing
    file's name.  A failure before any success raises ``NameError``.
``skip_function_bodies``
    The version of 2024-01-18 06:57 added ``visit_FunctionDef`` without
    ``generic_visit``: nothing inside a ``def`` was visited (fixed 07:09).
``path_style``
    ``full`` (``./Lib/x.py``, from 2023-10-22 06:26) or ``name`` (the first
    version printed the bare file name).
``stats``
    Which statistics block is printed after the lines: ``none`` (2023-10-22),
    ``2023-10-23a`` (calls), ``2023-10-23b`` (adds "Num params where x=x"),
    ``2024-01`` (adds function definitions).

The per-file part (``compat_file``) and the walk (``run``) use the standard
library only and avoid syntax newer than Python 3.8, so that the per-file
part runs under any interpreter (``--python``) exactly as his script did.
"""
from __future__ import annotations

import ast
import os
import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from punstats.model.errors import OptionError

#: Bumped whenever ``compat_file`` could return something different.
COMPAT_VERSION = 1


WALKS = ("fs", "sorted")


STATS_FORMATS = ("none", "2023-10-23a", "2023-10-23b", "2024-01")


@dataclass(frozen=True)
class Quirks:
    """One way of running ``find_kwargs.py``; every field is one quirk."""

    walk: str = "fs"
    descend: bool = False
    stale_tree: bool = True
    skip_function_bodies: bool = False
    path_style: str = "full"
    stats: str = "none"

    @property
    def label(self) -> str:
        parts = ["walk=" + self.walk, "descend" if self.descend else "no-descent",
                 "stale" if self.stale_tree else "no-stale"]
        if self.skip_function_bodies:
            parts.append("skip-def-bodies")
        if self.path_style != "full":
            parts.append("path=" + self.path_style)
        return ",".join(parts)


#: Named profiles: the versions of find_kwargs.py, by their commit in Rosuav/shed.
PROFILES: Dict[str, Quirks] = {
    # 2023-10-22 06:26 (0e0e886) .. 2023-10-23 (cab631f): what made the published figures
    "angelico-2023-10": Quirks(),
    # 2023-10-22 06:24 (04cee3b): the first commit printed bare file names
    "angelico-2023-10-22-first": Quirks(path_style="name"),
    # 2023-10-23 18:02 (cab631f): the same counting, with the statistics block
    "angelico-2023-10-23": Quirks(stats="2023-10-23b"),
    # 2024-01-18 06:57 (883163d): function bodies were not walked
    "angelico-2024-01-18-early": Quirks(skip_function_bodies=True, stats="2024-01"),
    # 2024-01-18 07:09 (93f3462) and later: full traversal, stale tree still there
    "angelico-2024-01": Quirks(descend=True, stats="2024-01"),
}


def profile(name: str, **overrides: Any) -> Quirks:
    if name not in PROFILES:
        raise OptionError("unknown compatibility profile %r (choose from %s)" % (name, ", ".join(PROFILES)))
    base = PROFILES[name]
    values = {f: getattr(base, f) for f in base.__dataclass_fields__}
    values.update({k: v for k, v in overrides.items() if v is not None})
    quirks = Quirks(**values)
    if quirks.walk not in WALKS:
        raise OptionError("unknown walk order %r (choose from %s)" % (quirks.walk, ", ".join(WALKS)))
    if quirks.stats not in STATS_FORMATS:
        raise OptionError("unknown statistics format %r" % quirks.stats)
    if quirks.descend and quirks.skip_function_bodies:
        raise OptionError("no version of the script descended into calls but skipped function bodies")
    return quirks


# A match: (line, col, callee, arg, nested, in_def); ``nested``: inside another call;
# ``in_def``: inside a (non-async) ``def``, which the 2024-01-18 06:57 version never entered.
# Per-call statistics are aggregated per visiting mode: "top" (no descent), "all" (descent),
# "nodef" (no descent and nothing inside a def).
_CALL_STATS = ("Calls", "Kwargs", "Matches", "MatchCount", "KwCount", "MaxMatch", "MaxKwargs")


_DEF_STATS = ("FunctionDefs", "Params", "ParamsKwPos", "ParamsKwOnly", "ParamsPosOnly",
              "Vararg", "Kwarg")


class _Finder(ast.NodeVisitor):
    """His visitor, descending everywhere but noting what each version would skip.

    Recursive like ``ast.NodeVisitor``, so that a tree too deep for his
    script is too deep here as well.
    """

    def __init__(self) -> None:
        self.calls = 0
        self.defs = 0
        self.matches: List[list] = []
        self.stats = {mode: dict.fromkeys(_CALL_STATS, 0) for mode in ("top", "all", "nodef")}
        self.def_stats = {mode: dict.fromkeys(_DEF_STATS, 0) for mode in ("top", "all")}

    def visit_Call(self, node: ast.Call) -> None:
        nested, in_def = self.calls > 0, self.defs > 0
        matches = 0
        for arg in node.keywords:
            if isinstance(arg.value, ast.Name) and arg.value.id == arg.arg:
                unparse = getattr(ast, "unparse", None)
                callee = unparse(node.func) if unparse else ast.dump(node.func)
                self.matches.append([node.lineno, node.col_offset, callee, arg.arg, nested, in_def])
                matches += 1
        modes = ["all"] + ([] if nested else ["top"]) + ([] if nested or in_def else ["nodef"])
        for mode in modes:
            s = self.stats[mode]
            s["Calls"] += 1
            if node.keywords:
                s["Kwargs"] += 1
            if matches:
                s["Matches"] += 1
            s["MatchCount"] += matches
            s["KwCount"] += len(node.keywords)
            s["MaxMatch"] = max(s["MaxMatch"], matches)
            s["MaxKwargs"] = max(s["MaxKwargs"], len(node.keywords))
        self.calls += 1
        self.generic_visit(node)
        self.calls -= 1

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        a = node.args
        for mode in ["all"] + ([] if self.defs or self.calls else ["top"]):
            s = self.def_stats[mode]
            s["FunctionDefs"] += 1
            s["Params"] += (len(a.args) + len(a.kwonlyargs) + len(getattr(a, "posonlyargs", []))
                            + bool(a.vararg) + bool(a.kwarg))
            s["ParamsKwPos"] += len(a.args)
            s["ParamsKwOnly"] += len(a.kwonlyargs)
            s["ParamsPosOnly"] += len(getattr(a, "posonlyargs", []))
            s["Vararg"] += bool(a.vararg)
            s["Kwarg"] += bool(a.kwarg)
        self.defs += 1
        self.generic_visit(node)
        self.defs -= 1


def compat_file(data: bytes) -> Dict[str, Any]:
    """What ``find_kwargs.py`` sees in one file's bytes (JSON-serialisable).

    ``ok`` False: ``ast.parse`` raised (``error`` names it).  ``crash``: the
    visitor itself raised (his script would have stopped there).
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(data)
    except Exception as exc:  # exactly what his script caught
        return {"ok": False, "error": "%s: %s" % (type(exc).__name__, exc)}
    finder = _Finder()
    try:
        finder.visit(tree)
    except Exception as exc:  # RecursionError on absurdly deep trees
        return {"ok": True, "crash": "%s: %s" % (type(exc).__name__, exc), "matches": [],
                "stats": finder.stats, "def_stats": finder.def_stats}
    return {"ok": True, "matches": finder.matches, "stats": finder.stats, "def_stats": finder.def_stats}


def sorted_walk_order(paths: Sequence[str]) -> List[str]:
    """``paths`` (relative, POSIX) in the order ``os.walk`` with sorted names visits them:
    a directory's files first, then each subdirectory in turn."""
    tree: Dict[str, Any] = {}
    for path in paths:
        node = tree
        *dirs, name = path.split("/")
        for d in dirs:
            node = node.setdefault(d + "/", {})
        node.setdefault("", []).append(path)
    order: List[str] = []

    def visit(node: Dict[str, Any]) -> None:
        order.extend(sorted(node.get("", []), key=lambda p: p.rsplit("/", 1)[-1]))
        for key in sorted(k for k in node if k):
            visit(node[key])

    visit(tree)
    return order


def fs_walk_order(root: str, extensions: Tuple[str, ...] = (".py",)) -> List[str]:
    """Relative paths in the order ``os.walk(root)`` returns them on this machine."""
    order = []
    for directory, _dirs, files in os.walk(root):
        for name in files:
            if name.endswith(extensions):
                rel = os.path.relpath(os.path.join(directory, name), root)
                order.append(rel.replace(os.sep, "/"))
    return order


@dataclass(frozen=True)
class Line:
    """One printed occurrence line."""

    path: str  # the relative path of the file printed (for a stale visit: the failing file)
    line: int
    col: int
    callee: str
    arg: str
    source_path: str  # the file whose tree produced it (differs for a stale visit)
    nested: bool

    @property
    def stale(self) -> bool:
        return self.path != self.source_path

    def text(self, path_style: str = "full") -> str:
        shown = "./" + self.path if path_style == "full" else self.path.rsplit("/", 1)[-1]
        return "%s:%d:%d: %s(%s=%s)" % (shown, self.line, self.col, self.callee, self.arg, self.arg)


@dataclass(frozen=True)
class Run:
    """The result of one walk: the printed lines, what failed, and the statistics."""

    quirks: Quirks
    lines: Tuple[Line, ...]
    failures: Tuple[Tuple[str, str], ...]  # (path, error)
    stale_visits: Tuple[Tuple[str, str], ...]  # (failing path, path of the tree visited again)
    crash: str = ""  # why his script would have stopped; lines are those printed before
    stats: Dict[str, int] = field(default_factory=dict)

    def stats_text(self) -> str:
        return format_stats(self.stats, self.quirks.stats)


def _mode(quirks: Quirks) -> str:
    if quirks.descend:
        return "all"
    return "nodef" if quirks.skip_function_bodies else "top"


def run(files: Sequence[Tuple[str, Optional[Dict[str, Any]]]], quirks: Quirks) -> Run:
    """Replay his script over ``files``: (relative path, ``compat_file`` result) in walk order.

    A result of None is a file his ``open`` would have failed on (a broken
    link): the script stops there.
    """
    mode = _mode(quirks)
    lines: List[Line] = []
    failures: List[Tuple[str, str]] = []
    stale: List[Tuple[str, str]] = []
    stats: Dict[str, int] = dict.fromkeys(_CALL_STATS + _DEF_STATS, 0)
    previous: Optional[Tuple[str, Dict[str, Any]]] = None
    crash = ""

    def visit(path: str, source_path: str, result: Dict[str, Any]) -> None:
        for line, col, callee, arg, nested, in_def in result["matches"]:
            if (nested and not quirks.descend) or (in_def and quirks.skip_function_bodies):
                continue
            lines.append(Line(path, line, col, callee, arg, source_path, bool(nested)))
        s = result["stats"][mode]
        for key in _CALL_STATS:
            if key.startswith("Max"):
                stats[key] = max(stats[key], s[key])
            else:
                stats[key] += s[key]
        d = result["def_stats"]["all" if quirks.descend else "top"]
        for key in _DEF_STATS:
            stats[key] += d[key]

    for path, result in files:
        if result is None:
            crash = "cannot open %s" % path
            break
        if not result["ok"]:
            failures.append((path, result["error"]))
            if not quirks.stale_tree:
                continue
            if previous is None:
                crash = "NameError: name 'node' is not defined (first file %s failed to parse)" % path
                break
            stale.append((path, previous[0]))
            visit(path, previous[0], previous[1])
            continue
        if result.get("crash"):
            crash = "%s in %s" % (result["crash"], path)
            break
        previous = (path, result)
        visit(path, path, result)
    return Run(quirks, tuple(lines), tuple(failures), tuple(stale), crash, stats)


def format_stats(stats: Dict[str, int], version: str) -> str:
    """The statistics block a version of the script printed (empty for ``none``)."""
    if version == "none" or not stats.get("Calls"):
        return ""
    s = stats
    out = ["", "Total function calls: %d" % s["Calls"],
           "Calls with any kwarg: %d %.2f%%" % (s["Kwargs"], s["Kwargs"] / s["Calls"] * 100.0)]
    if version == "2023-10-23a":
        out.append("Calls with any 'x=x': %d %.2f%%" % (s["Matches"], s["Matches"] / s["Calls"] * 100.0))
        if s["Kwargs"]:
            out.append(" - compared to kwarg: %d %.2f%%" % (s["Matches"], s["Matches"] / s["Kwargs"] * 100.0))
        return "\n".join(out)
    out.append("Maximum kwargs count: %d" % s["MaxKwargs"])
    out.append("Calls with any 'x=x': %d %.2f%%" % (s["Matches"], s["Matches"] / s["Calls"] * 100.0))
    if s["Kwargs"]:
        out.append(" - compared to kwarg: %d %.2f%%" % (s["Matches"], s["Matches"] / s["Kwargs"] * 100.0))
        out.append("Maximum num of 'x=x': %d" % s["MaxMatch"])
        out.append("Total keyword params: %d %.2f per call" % (s["KwCount"], s["KwCount"] / s["Calls"]))
        out.append("Num params where x=x: %d %.2f%%" % (s["MatchCount"], s["MatchCount"] / s["KwCount"] * 100.0))
    if version == "2024-01" and s["FunctionDefs"]:
        params = s["Params"] or 1
        out.append("Total function defns: %d" % s["FunctionDefs"])
        out.append("Function params: pos: %d %.2f%%" % (s["ParamsPosOnly"], s["ParamsPosOnly"] / params * 100.0))
        out.append("Function params: kwd: %d %.2f%%" % (s["ParamsKwOnly"], s["ParamsKwOnly"] / params * 100.0))
        out.append("Function params: any: %d %.2f%%" % (s["ParamsKwPos"], s["ParamsKwPos"] / params * 100.0))
    return "\n".join(out)

