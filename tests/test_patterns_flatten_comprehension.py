"""``punstats.patterns.flatten_comprehension`` (PEP 798), checked against a count of tokens over
the standard library: each bracket pair whose content, outside inner brackets, holds two or more
``for`` keywords is a comprehension; its element, last clause's target and iterable are read
off the tokens between them."""
import keyword
import tokenize

import patternwalk


def _is(tok, string, kind=tokenize.NAME):
    return tok.type == kind and tok.string == string


def _name(toks, brackets, start, end):
    """The name ``start:end`` is (parentheses around it taken off), or None."""
    start, end = patternwalk.unwrap(toks, brackets, start, end)
    tok = toks[start]
    return tok.string if end - start == 1 and tok.type == tokenize.NAME and not keyword.iskeyword(tok.string) else None


def _split(toks, brackets, start, end, string):
    """``start:end`` cut at each ``string`` operator outside brackets: a list of ranges."""
    cuts = [i for i in patternwalk.top_level(toks, brackets, start, end) if _is(toks[i], string, tokenize.OP)]
    bounds = [start - 1] + cuts + [end]
    return [(a + 1, b) for a, b in zip(bounds, bounds[1:])]


def _pair(toks, brackets, start, end):
    """``(k, v)`` when ``start:end`` is two names (``k, v``, ``(k, v)``, ``[k, v]``), else None."""
    start, end = patternwalk.unwrap(toks, brackets, start, end)
    if toks[start].string == "[" and brackets.get(start) == end - 1:
        start, end = start + 1, end - 1
    parts = [part for part in _split(toks, brackets, start, end, ",") if part[0] < part[1]]
    names = [_name(toks, brackets, a, b) for a, b in parts]
    return tuple(names) if len(names) == 2 and None not in names and names[0] != names[1] else None


def _reads(toks, start, end, names):
    """Whether a name of ``names`` is used in ``start:end`` (not as ``.attr`` nor ``keyword=``)."""
    return any(toks[i].type == tokenize.NAME and toks[i].string in names and not _is(toks[i - 1], ".", tokenize.OP)
               and not _is(toks[i + 1], "=", tokenize.OP) for i in range(start, end))


def _items_of(toks, brackets, start, end):
    """``E`` of ``E.items()`` (a primary: names, literals, ``.`` and brackets only), or None."""
    if not (end - start >= 5 and brackets.get(end - 2) == end - 1 and _is(toks[end - 3], "items")
            and _is(toks[end - 4], ".", tokenize.OP)):
        return None
    primary = all(i in brackets or _is(toks[i], ".", tokenize.OP) or toks[i].type in (tokenize.NUMBER, tokenize.STRING)
                  or (toks[i].type == tokenize.NAME and not keyword.iskeyword(toks[i].string))
                  for i in patternwalk.top_level(toks, brackets, start, end - 4))
    return (start, end - 4) if primary else None


def _flattens(toks, brackets, opening, closing):
    top = patternwalk.top_level(toks, brackets, opening + 1, closing)
    fors = [i for i in top if _is(toks[i], "for")]
    if len(fors) < 2 or _is(toks[fors[-1] - 1], "async") or any(_is(toks[i], "if") for i in top if i > fors[-1]):
        return False
    element = (opening + 1, fors[0] - 1 if _is(toks[fors[0] - 1], "async") else fors[0])
    in_ = next(i for i in top if i > fors[-1] and _is(toks[i], "in"))
    target, iterable = (fors[-1] + 1, in_), (in_ + 1, closing)
    key_value = _split(toks, brackets, element[0], element[1], ":")
    if toks[opening].string == "{" and len(key_value) == 2:
        names = _pair(toks, brackets, *target)
        if names is None or names != tuple(_name(toks, brackets, *part) for part in key_value):
            return False
        iterable = _items_of(toks, brackets, *iterable)
    else:
        names = (_name(toks, brackets, *target),)
        if names[0] is None or names[0] != _name(toks, brackets, *element):
            return False
    return iterable is not None and not _reads(toks, iterable[0], iterable[1], names)


def token_count(data):
    toks = patternwalk.tokens(data)
    brackets = patternwalk.pairs(toks)
    return sum(1 for opening, closing in brackets.items() if _flattens(toks, brackets, opening, closing))


CASES = [
    ("a = [y for x in xs for y in x]\n", [1]),
    ("a = {y for x in xs for y in x}\nb = (y for x in xs for y in x)\nc = f(y for x in xs for y in x)\n", [1, 2, 3]),
    ("a = {k: v for d in ds for k, v in d.items()}\nb = {k: v for d in ds for (k, v) in d.items()}\n", [1, 2]),
    ("a = [y for a in A if p(a) for b in f(a) if b for y in g(a, b)]\n", [1]),
    ("a = [(y) for x in xs for (y) in x]\nb = [\n    y\n    for x in xs  # rows\n    for y in x\n]\n", [1, 2]),
    ("a = [y for y in x]\nb = [y for x in xs for y in x if y]\nc = [y + 1 for x in xs for y in x]\n", []),
    ("a = [x for x in xs for y in x]\nb = [y for x in xs for y, z in x]\nc = [y for x in xs for y in f(y)]\n", []),
    ("async def f():\n    a = [y async for x in xs for y in x]\n    b = [y for x in xs async for y in x]\n", [2]),
    ("a = {k: v for d in ds for k, v in d.items(1)}\nb = {k: v for d in ds for v, k in d.items()}\n", []),
    ("a = {k: v for d in ds for k, v in d.values()}\nb = {v: k for d in ds for k, v in d.items()}\n", []),
    ("a = {k: v for d in ds for k, v in x + d.items()}\nb = {k: v for k, v in d.items()}\n", []),
    ("a = [y for x in xs for y in x.y]\nb = [y for x in xs for y in f(x, y=1)]\n", [1, 2]),
    ("a = [[y for x in xs for y in x] for z in zs]\nb = [s for s in [y for x in xs for y in x]]\n", [1, 2]),
    ("a = [y for x in xs for y in x][0]\nb = x[[y for x in xs for y in x]]\n", [1, 2]),
]


class TestPattern(patternwalk.ShippedPatternTests):
    name = "flatten_comprehension"
    count = staticmethod(token_count)
    cases = CASES
    at_least = 5
