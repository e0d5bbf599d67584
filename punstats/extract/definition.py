"""What a matcher given as a Python value is identified by: a digest of its definition.

A pattern loaded from a file is named by the file's bytes (``plugins``).  A
function given from Python (``punstats.scan(patterns=[match])``) may have no
file (``python -c``, a REPL, Jupyter, ``exec``) or share one with another
matcher of the same name (two lambdas), so it is named by what defines it:
its code (the bytecode, constants, names and argument counts of it and of
the functions nested in it), its defaults, the values its closure holds, and
the module-level values its code names (a helper function in turn by its
definition, a module or a class by name).  Line numbers and the file name
are left out: the same code written elsewhere is the same matcher.

A value that cannot be described so that the same description means the same
behaviour (an object whose ``repr`` shows only its address, a ``repr`` that
raises, a definition nested too deep) makes the whole definition
undigestable: ``digest`` returns "", and a scan of such a pattern is not
cached rather than risk sharing another matcher's results.  Standard library
only, Python 3.8 syntax.
"""
from __future__ import annotations

import hashlib
import json
import re
import types
from typing import Any, Iterator, List, Set

#: How deep a definition is followed (helper calling helper ...) before it counts as undigestable.
MAX_DEPTH = 8

#: The most elements a container value may hold to be described.
MAX_ITEMS = 10_000

#: The code object attributes that say what it does (present in some Python versions only: ``getattr``).
_CODE_FIELDS = ("co_argcount", "co_posonlyargcount", "co_kwonlyargcount", "co_flags", "co_code", "co_names",
                "co_varnames", "co_freevars", "co_cellvars", "co_exceptiontable")

#: A ``repr`` showing an object's address: the object is not described by it.
_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+|0x[0-9a-fA-F]{8,}")

_PLAIN = (type(None), bool, int, float, complex, str, bytes, type(Ellipsis))


class Undigestable(Exception):
    """A value whose description would not say what it does."""


def digest(value: Any) -> str:
    """sha256 of the definition of ``value`` (a function, a ``functools.partial``, a bound method,
    a built-in), or "" when it cannot be described."""
    try:
        described = _describe(value, 0, set())
    except (Undigestable, RecursionError):
        return ""
    return hashlib.sha256(json.dumps(described, ensure_ascii=True).encode()).hexdigest()


def _describe(value: Any, depth: int, seen: Set[int]) -> Any:
    if depth > MAX_DEPTH:
        raise Undigestable("nested too deep")
    if isinstance(value, _PLAIN):
        return [type(value).__name__, repr(value)]
    if id(value) in seen:  # a function naming itself, a class its methods name
        return ["again", getattr(value, "__qualname__", type(value).__name__)]
    seen = seen | {id(value)}
    if isinstance(value, types.FunctionType):
        return _function(value, depth + 1, seen)
    if isinstance(value, types.ModuleType):
        return ["module", value.__name__]
    if isinstance(value, type):
        return _class(value, depth + 1, seen)
    if isinstance(value, types.MethodType):
        return ["method", _describe(value.__func__, depth + 1, seen), _describe(value.__self__, depth + 1, seen)]
    if isinstance(value, (types.BuiltinFunctionType, types.WrapperDescriptorType, types.MethodDescriptorType)):
        return ["builtin", _repr(value)]
    if isinstance(value, types.CodeType):
        return _code(value)
    if isinstance(value, (staticmethod, classmethod)):
        return [type(value).__name__, _describe(value.__func__, depth + 1, seen)]
    if isinstance(value, property):
        return ["property"] + [_describe(f, depth + 1, seen) for f in (value.fget, value.fset, value.fdel)]
    return _container(value, depth + 1, seen)


def _container(value: Any, depth: int, seen: Set[int]) -> Any:
    """A tuple, list, set or dict by its items; a ``functools.partial`` by its parts; else by ``repr``."""
    import functools
    if isinstance(value, functools.partial):
        return ["partial", _describe(value.func, depth, seen), _describe(value.args, depth, seen),
                _describe(value.keywords, depth, seen)]
    if isinstance(value, (tuple, list, set, frozenset, dict)) and len(value) > MAX_ITEMS:
        raise Undigestable("too many items")
    if isinstance(value, (tuple, list)):
        return [type(value).__name__, [_describe(item, depth, seen) for item in value]]
    if isinstance(value, (set, frozenset)):
        items = [json.dumps(_describe(item, depth, seen)) for item in value]
        return [type(value).__name__, sorted(items)]
    if isinstance(value, dict):
        pairs = [json.dumps([_describe(k, depth, seen), _describe(v, depth, seen)]) for k, v in value.items()]
        return ["dict", sorted(pairs)]
    return ["repr", type(value).__module__, type(value).__qualname__, _repr(value)]


def _repr(value: Any) -> str:
    try:
        text = repr(value)
    except Exception as exc:  # noqa: BLE001 -- the user's __repr__
        raise Undigestable("its repr raised") from exc
    if not isinstance(text, str) or _ADDRESS.search(text):
        raise Undigestable("its repr shows only where it is")
    return text


def _function(function: types.FunctionType, depth: int, seen: Set[int]) -> Any:
    """Its code, defaults, closure values and the module-level values its code names."""
    code = function.__code__
    cells = []
    for cell in function.__closure__ or ():
        try:
            cells.append(_describe(cell.cell_contents, depth, seen))
        except ValueError:  # a cell not filled yet
            cells.append(["empty"])
    scope = function.__globals__
    named = sorted({name for name in _names(code) if name in scope})
    return ["function", _code(code), _describe(function.__defaults__, depth, seen),
            _describe(function.__kwdefaults__, depth, seen), cells,
            [[name, _describe(scope[name], depth, seen)] for name in named]]


def _names(code: types.CodeType) -> Iterator[str]:
    """The global (and attribute) names ``code`` and the code nested in it use."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _names(const)


def _code(code: types.CodeType) -> List[Any]:
    fields: List[Any] = [repr(getattr(code, name, None)) for name in _CODE_FIELDS]
    fields.append([_code(c) if isinstance(c, types.CodeType) else [type(c).__name__, repr(c)]
                   for c in code.co_consts])
    return ["code", fields]


def _class(cls: type, depth: int, seen: Set[int]) -> Any:
    """A class of a module read from a file (or built in) by its name; one defined where no file is
    (``__main__`` of ``python -c``, a notebook, ``exec``) by what it holds."""
    import sys
    module = sys.modules.get(cls.__module__)
    if cls.__module__ == "builtins" or (getattr(module, "__file__", None) and cls.__module__ != "__main__"):
        return ["class", cls.__module__, cls.__qualname__]
    own = sorted(((name, value) for name, value in vars(cls).items()
                  if name not in ("__dict__", "__weakref__", "__module__", "__doc__")), key=lambda item: item[0])
    return ["class", cls.__qualname__, [_describe(base, depth, seen) for base in cls.__bases__ if base is not object],
            [[name, _describe(value, depth, seen)] for name, value in own]]
