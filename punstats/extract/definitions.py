"""Per-file counters for the definition search: every keyword by depth, kind and shape.

``measure(data)`` counts, for one file, what each counting definition the
tool implements needs as a numerator or a denominator, split so that depth,
class keywords and ``**`` unpackings can be switched on and off afterwards
(``punstats.reproduce.definitions`` sums and combines them):

- ``{owner}_{what}_d{depth}``: ``owner`` ``call`` or ``class`` (a class
  definition's keywords); ``depth`` 0 (no enclosing call: what
  ``find_kwargs.py`` visited before 2024), 1 (inside one call) or 2 (deeper);
  ``what`` one of ``kw`` (named keywords), ``star`` (``**`` unpackings),
  ``kwdelim`` (named keywords between ``(``/``,`` and ``,``/``)``),
  ``kwoneline``, ``kwsimple`` (value a Name, Constant or Attribute), ``pun``
  (punnable: ``x=x``, the definition of ``punstats.extract``), ``punbare``
  (``x=x`` as text, blanks around ``=`` allowed, no parentheses or comment),
  ``pundelim`` (``punbare`` between ``(``/``,`` and ``,``/``)``: what the PEP
  author's commits rewrote);
- ``calls_d*``, ``callskw_d*``, ``callspun_d*``: calls, calls with any
  keyword, calls with any punnable keyword (``find_kwargs.py``'s Calls,
  Kwargs, Matches).

Standard library only, no syntax newer than Python 3.8: it runs in the worker
under the interpreter that parses (``--python``).
"""
from __future__ import annotations

import ast
import re
import warnings
from typing import Any, Dict, List, Tuple

from punstats.extract.decode import decode_source
from punstats.extract.text import between_delimiters

#: Bumped whenever ``measure`` could return something different.
DEFINITIONS_VERSION = 1


_LINE_SPLIT = re.compile(r"\r\n|\r|\n")


_BARE = re.compile(rb"(\w+)\s*=\s*(\w+)")


def _depth(depth: int) -> str:
    return "0" if depth == 0 else ("1" if depth == 1 else "2")


class _Counter:
    """Counts every call keyword by depth (enclosing calls), kind and textual shape."""

    def __init__(self, lines: List[bytes]) -> None:
        self.lines = lines  # UTF-8 bytes: ``ast`` columns are byte offsets
        self.data = b"\n".join(lines)  # the same lines as one text, for the delimiter rule
        self.starts = [0]
        for line in lines[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)
        self.c: Dict[str, int] = {}

    def add(self, key: str, n: int = 1) -> None:
        self.c[key] = self.c.get(key, 0) + n

    def _span(self, node: ast.AST) -> bytes:
        first, last = node.lineno - 1, node.end_lineno - 1
        if first == last:
            return self.lines[first][node.col_offset:node.end_col_offset]
        return b"\n".join([self.lines[first][node.col_offset:]] + self.lines[first + 1:last]
                          + [self.lines[last][:node.end_col_offset]])

    def _delimited(self, node: ast.AST) -> bool:
        """After ``(`` or ``,`` and before ``,`` or ``)`` (``extract.text.between_delimiters``, the
        rule ``rewrite --delimited-only`` reads the text by too)."""
        first, last = node.lineno - 1, node.end_lineno - 1
        if not (0 <= first <= last < len(self.lines)):
            return False
        return between_delimiters(self.data, self.starts[first] + node.col_offset,
                                  self.starts[last] + node.end_col_offset)

    def keyword(self, kw: ast.keyword, depth: int, owner: str) -> None:
        d = _depth(depth)
        if kw.arg is None:
            self.add("%s_star_d%s" % (owner, d))
            return
        self.add("%s_kw_d%s" % (owner, d))
        delimited = self._delimited(kw)
        if delimited:
            self.add("%s_kwdelim_d%s" % (owner, d))
        if kw.lineno == kw.end_lineno:
            self.add("%s_kwoneline_d%s" % (owner, d))
        if isinstance(kw.value, (ast.Name, ast.Constant, ast.Attribute)):
            self.add("%s_kwsimple_d%s" % (owner, d))
        if not (isinstance(kw.value, ast.Name) and kw.value.id == kw.arg):
            return
        self.add("%s_pun_d%s" % (owner, d))
        m = _BARE.fullmatch(self._span(kw))
        if m and m.group(1) == m.group(2) == kw.arg.encode("utf-8"):
            self.add("%s_punbare_d%s" % (owner, d))
            if delimited:
                self.add("%s_pundelim_d%s" % (owner, d))

    def call(self, node: ast.Call, depth: int) -> None:
        d = _depth(depth)
        self.add("calls_d%s" % d)
        if node.keywords:
            self.add("callskw_d%s" % d)
        if any(kw.arg is not None and isinstance(kw.value, ast.Name) and kw.value.id == kw.arg
               for kw in node.keywords):
            self.add("callspun_d%s" % d)
        for kw in node.keywords:
            self.keyword(kw, depth, "call")

    def run(self, tree: ast.AST) -> None:
        stack: List[Tuple[ast.AST, int]] = [(tree, 0)]
        while stack:
            node, depth = stack.pop()
            child_depth = depth
            if isinstance(node, ast.Call):
                self.call(node, depth)
                child_depth = depth + 1
            elif isinstance(node, ast.ClassDef):
                for kw in node.keywords:
                    self.keyword(kw, depth, "class")
            for child in ast.iter_child_nodes(node):
                stack.append((child, child_depth))


def measure(data: bytes) -> Dict[str, Any]:
    """``{"ok": True, "lines": N, KEY: count, ...}`` (keys as in the module docstring; a count
    of 0 is left out), or ``{"ok": False, "error": NAME}`` for a file that does not parse."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(data)
        text = decode_source(data)[0]
    except Exception as exc:  # what a counting script would skip
        return {"ok": False, "error": type(exc).__name__}
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = [line.encode("utf-8") for line in _LINE_SPLIT.split(text)]
    counter = _Counter(lines)
    try:
        counter.run(tree)
    except Exception as exc:  # RecursionError on absurdly deep trees, UnicodeEncodeError
        return {"ok": False, "error": type(exc).__name__}
    out: Dict[str, Any] = {"ok": True, "lines": len(lines)}
    out.update(counter.c)
    return out
