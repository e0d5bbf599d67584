"""``punstats.patterns.except_tuple`` (PEP 758): ``except (A, B):`` handlers without ``as``,
checked against a count of tokens over the standard library: ``except`` (or ``except *``), then
the handler's expression up to its ``:``, parentheses enclosing all of it taken off one pair at a
time until a comma outside any bracket shows a tuple."""
import tokenize

import patternwalk


def _elements(toks, brackets, start, end):
    """The comma-separated parts of ``start:end`` (outside brackets; a lambda's parameters are
    one part; a bracketed group is its opening token), and whether there was a comma."""
    parts, current, in_lambda, comma = [], [], False, False
    for index in patternwalk.top_level(toks, brackets, start, end):
        tok = toks[index]
        if tok.type == tokenize.NAME and tok.string == "lambda":
            in_lambda = True
        elif tok.type == tokenize.OP and tok.string == ":" and in_lambda:
            in_lambda = False
        elif tok.type == tokenize.OP and tok.string == "," and not in_lambda:
            parts.append(current)
            current, comma = [], True
            continue
        current.append(tok)
    return (parts + [current] if current else parts), comma


def _is_several_types(toks, brackets, start, end):
    """Whether ``start:end`` is a parenthesized tuple of two or more plain expressions."""
    while toks[start].string == "(" and brackets.get(start) == end - 1:
        start, end = start + 1, end - 1
        if start == end or toks[start].string == "yield":
            return False  # ``()``, ``(yield a, b)``
        parts, comma = _elements(toks, brackets, start, end)
        if comma:
            return len(parts) >= 2 and not any(part[0].string == "*" or any(tok.string == ":=" for tok in part)
                                               for part in parts)
    return False


def token_count(data):
    toks = patternwalk.tokens(data)
    brackets = patternwalk.pairs(toks)
    found = 0
    for index, tok in enumerate(toks):
        if tok.type != tokenize.NAME or tok.string != "except":
            continue
        start = index + 2 if toks[index + 1].string == "*" else index + 1
        end = start
        while not (toks[end].type == tokenize.OP and toks[end].string == ":"):
            end = brackets.get(end, end) + 1  # to the handler's colon, outside brackets
        header = patternwalk.top_level(toks, brackets, start, end)
        if any(toks[i].type == tokenize.NAME and toks[i].string == "as" for i in header):
            continue
        found += start < end and _is_several_types(toks, brackets, start, end)
    return found


CASES = [
    ("try:\n    f()\nexcept (A, B):\n    pass\n", [3]),
    ("try:\n    f()\nexcept (A, B) as e:\n    pass\n", []),
    ("try:\n    f()\nexcept (A):\n    pass\nexcept (A,):\n    pass\nexcept ():\n    pass\n", []),
    ("try:\n    f()\nexcept (A, B,):\n    pass\nexcept ((A, B)):\n    pass\n", [3, 5]),
    ("try:\n    f()\nexcept ((A, B),):\n    pass\nexcept (A, B)[0]:\n    pass\n", []),
    ("try:\n    f()\nexcept* (A, B):\n    pass\nexcept *(C, D, E):\n    pass\n", [3, 5]),
    ("try:\n    f()\nexcept (\n    A,  # a comment\n    b.C,\n):\n    pass\n", [3]),
    ("try:\n    f()\nexcept (*errors, A):\n    pass\nexcept (*errors,):\n    pass\n", []),
    ("try:\n    f()\nexcept (x := A, B):\n    pass\nexcept (lambda a, b: E)(1, 2):\n    pass\n", []),
    ("try:\n    f()\nexcept (lambda a, b: E):\n    pass\nexcept (f(a, b)):\n    pass\n", []),
    ("try:\n    f()\nexcept ERRORS:\n    pass\nexcept:\n    pass\nexcept (A, B) if x else C:\n    pass\n", []),
    ("def f():\n    try: g()\n    except (A, B): return\n    def h():\n        try: g()\n"
     "        except (A, (B, C)): pass\n", [3, 6]),
]


class TestPattern(patternwalk.ShippedPatternTests):
    name = "except_tuple"
    count = staticmethod(token_count)
    cases = CASES
    at_least = 100
