"""Flattening comprehensions: what PEP 798 lets be written ``[*x for x in xs]``.

PEP 798, "Unpacking in Comprehensions" (Adam Hartz, Erik Demaine; accepted,
Python 3.15), https://peps.python.org/pep-0798/: a comprehension may start
with ``*`` (list, set, generator) or ``**`` (dict), and the PEP names the
two-loop comprehensions it replaces::

    [x for it in its for x in it]                           ->  [*it for it in its]
    {x for it in its for x in it}                           ->  {*it for it in its}
    (x for it in its for x in it)                           ->  (*it for it in its)
    {key: value for d in dicts for key, value in d.items()} ->  {**d for d in dicts}

A match is a comprehension of that shape: at least two ``for`` clauses (the
earlier ones, and their ``if`` conditions, stay as they are: ``[y for a in A
if p(a) for y in f(a)]`` is ``[*f(a) for a in A if p(a)]``); the last one is
not ``async`` (the PEP unpacks with a plain ``for``), has no ``if``, and binds
one name that is the whole element (``[y for ... for y in E]``), or, in a dict
comprehension, two names ``k, v`` drawn from ``E.items()`` (no arguments)
that are the key and the value (``{k: v for ... for k, v in E.items()}``);
and ``E`` does not read the names the last clause binds (``for y in f(y)``
reads a ``y`` of an earlier round, which ``*f(y)`` would not).  The count is
a share of lines of code.
"""
import ast

import punstats

_SEQUENCES = (ast.ListComp, ast.SetComp, ast.GeneratorExp)


def _reads(expression, names):
    """Whether ``expression`` uses one of ``names`` as a variable."""
    return any(isinstance(node, ast.Name) and node.id in names for node in ast.walk(expression))


def _items_of(iterable):
    """``E`` of ``E.items()``, or None."""
    if (isinstance(iterable, ast.Call) and not iterable.args and not iterable.keywords
            and isinstance(iterable.func, ast.Attribute) and iterable.func.attr == "items"):
        return iterable.func.value
    return None


def _binds(node, last):
    """The names the last clause binds, when the comprehension's element is exactly them; else None."""
    target = last.target
    if isinstance(node, _SEQUENCES):
        if isinstance(target, ast.Name) and isinstance(node.elt, ast.Name) and node.elt.id == target.id:
            return (target.id,)
        return None
    if not (isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 2):
        return None
    key, value = target.elts
    if (isinstance(key, ast.Name) and isinstance(value, ast.Name) and key.id != value.id
            and isinstance(node.key, ast.Name) and node.key.id == key.id
            and isinstance(node.value, ast.Name) and node.value.id == value.id):
        return (key.id, value.id)
    return None


@punstats.pattern("flatten_comprehension", label="flattening comprehensions `[y for x in xs for y in x]` (PEP 798)",
                  per="code_lines", on=_SEQUENCES + (ast.DictComp,))
def match(node, parents):
    if len(node.generators) < 2:
        return False
    last = node.generators[-1]
    if last.is_async or last.ifs:
        return False
    names = _binds(node, last)
    if names is None:
        return False
    iterable = last.iter if isinstance(node, _SEQUENCES) else _items_of(last.iter)
    return iterable is not None and not _reads(iterable, names)
