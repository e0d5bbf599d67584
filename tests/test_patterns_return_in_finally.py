"""``punstats.patterns.return_in_finally`` (PEP 765), checked against a count made the other way
round over the standard library: a visitor that walks down carrying "inside a ``finally``" and
"inside a loop inside it", reset by functions, lambdas and classes (the pattern walks up from
each statement through its ancestors)."""
import ast

import patternwalk


class _Finally(ast.NodeVisitor):
    def __init__(self):
        self.found = 0
        self.in_finally = self.in_loop = False

    def _with(self, nodes, in_finally, in_loop):
        saved = self.in_finally, self.in_loop
        self.in_finally, self.in_loop = in_finally, in_loop
        for node in nodes:
            self.visit(node)
        self.in_finally, self.in_loop = saved

    def _scope(self, node):
        self._with(list(ast.iter_child_nodes(node)), False, False)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = _scope

    def _try(self, node):
        self._with(node.body + node.handlers + node.orelse, self.in_finally, self.in_loop)
        self._with(node.finalbody, True, False)

    visit_Try = visit_TryStar = _try

    def _loop(self, node):
        head = [node.test] if isinstance(node, ast.While) else [node.target, node.iter]
        self._with(head + node.orelse, self.in_finally, self.in_loop)
        self._with(node.body, self.in_finally, True)

    visit_For = visit_AsyncFor = visit_While = _loop

    def visit_Return(self, node):
        self.found += self.in_finally

    def _jump(self, node):
        self.found += self.in_finally and not self.in_loop

    visit_Break = visit_Continue = _jump


def visitor_count(data):
    counter = _Finally()
    counter.visit(patternwalk.parse(data))
    return counter.found


CASES = [
    ("def f():\n    try:\n        g()\n    finally:\n        return 1\n", [5]),
    ("for x in y:\n    try:\n        g()\n    finally:\n        if x:\n            break\n        continue\n", [6, 7]),
    ("try:\n    g()\nfinally:\n    for x in y:\n        break\n    while x:\n        continue\n", []),
    ("for z in w:\n    try:\n        g()\n    finally:\n        for x in y:\n            pass\n"
     "        else:\n            break\n", [8]),
    ("try:\n    g()\nfinally:\n    def h():\n        return 1\n    k = lambda: 2\n"
     "    class C:\n        def m(self):\n            return 3\n", []),
    ("def f():\n    try:\n        return 1\n    except E:\n        return 2\n    else:\n        return 3\n", []),
    ("def f():\n    try:\n        g()\n    finally:\n        try:\n            return 1\n"
     "        finally:\n            pass\n", [6]),
    ("def f():\n    for x in y:\n        try:\n            g()\n        finally:\n            try:\n"
     "                pass\n            except* E:\n                continue\n", [9]),
    ("def f():\n    try:\n        g()\n    finally:\n        async def h():\n            async for x in y:\n"
     "                return x\n", []),
]


class TestPattern(patternwalk.ShippedPatternTests):
    name = "return_in_finally"
    count = staticmethod(visitor_count)
    cases = CASES
    at_least = 10
