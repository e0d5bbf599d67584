"""``punstats.patterns.return_in_finally`` (PEP 765), checked against a count of tokens over the
standard library: logical lines and indentation give the blocks (a header's kind is its first
keyword: ``finally``, a loop, a ``def`` or ``class``), and each ``return``, ``break`` or
``continue`` that starts a statement is looked up in the blocks around it, innermost first."""
import io
import tokenize

import patternwalk

_SKIPPED = {tokenize.ENCODING, tokenize.ENDMARKER, tokenize.NL, tokenize.COMMENT}
_COMPOUND = {"if", "elif", "else", "for", "while", "try", "except", "finally", "with", "def", "class", "async"}
_KINDS = {"finally": "finally", "for": "loop", "while": "loop", "def": "scope", "class": "scope"}


def _logical_lines(data):
    """``(indentation depth, tokens)`` of each logical line."""
    depth, line = 0, []
    for tok in tokenize.tokenize(io.BytesIO(data).readline):
        if tok.type == tokenize.INDENT:
            depth += 1
        elif tok.type == tokenize.DEDENT:
            depth -= 1
        elif tok.type == tokenize.NEWLINE:
            yield depth, line
            line = []
        elif tok.type not in _SKIPPED:
            line.append(tok)
    if line:
        yield depth, line


def _cut(line, start, strings):
    """The index of the first of ``strings`` (an operator outside brackets and lambdas) from ``start``."""
    nesting, in_lambda = 0, False
    for index in range(start, len(line)):
        tok = line[index]
        if tok.type == tokenize.NAME and tok.string == "lambda" and not nesting:
            in_lambda = True
        elif tok.type == tokenize.OP and tok.string in ("(", "[", "{"):
            nesting += 1
        elif tok.type == tokenize.OP and tok.string in (")", "]", "}"):
            nesting -= 1
        elif tok.type == tokenize.OP and tok.string == ":" and in_lambda and not nesting:
            in_lambda = False
        elif tok.type == tokenize.OP and tok.string in strings and not nesting:
            return index
    return len(line)


def _leaves(statement, blocks):
    """Whether the simple statement starting with ``statement`` leaves a ``finally`` block."""
    if statement not in ("return", "break", "continue"):
        return False
    for kind in reversed(blocks):
        if kind == "scope" or (kind == "loop" and statement != "return"):
            return False
        if kind == "finally":
            return True
    return False


def token_count(data):
    found, blocks = 0, []  # blocks: (kind, depth of its header)
    for depth, line in _logical_lines(data):
        while blocks and blocks[-1][1] >= depth:
            blocks.pop()
        start, kind = 0, None
        first = line[0].string if line[0].type == tokenize.NAME else ""
        if first in _COMPOUND:
            keyword = line[1].string if first == "async" else first
            kind = _KINDS.get(keyword)
            start = _cut(line, 0, (":",)) + 1
            if start == len(line):
                blocks.append((kind, depth))
                continue
        kinds = [k for k, _ in blocks] + [kind]
        while start < len(line):
            tok = line[start]
            found += tok.type == tokenize.NAME and _leaves(tok.string, kinds)
            start = _cut(line, start, (";",)) + 1
    return found


CASES = [
    ("def f():\n    try: g()\n    finally: return 1\n", [3]),
    ("for x in y:\n    try: g()\n    finally: x = {1: 2}; g(lambda: 3); break\n", [3]),
    ("def f():\n    try:\n        g()\n    finally:\n        def h(): return 1\n        class C: pass\n"
     "        if (lambda: x)(): return\n        with a as b: return b\n", [7, 8]),
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
    count = staticmethod(token_count)
    cases = CASES
    at_least = 10
