"""Loading user patterns: a file, ``module:name``, a module, an installed entry point.

A spec names where patterns are defined (``punstats.pattern``, ``model.kinds``):

- ``FILE.py`` (any existing file): the file is run as a module of its own and
  every pattern it defines is taken (``kinds.defined_since``);
- ``module:name``: the module is imported and the pattern of its decorated
  function ``name`` taken;
- ``NAME``: the entry point ``NAME`` of the group ``punstats.patterns`` when an
  installed distribution declares one (its value is ``module:name`` or
  ``module``), else the module ``NAME``, every pattern it defines; a name two
  plugins declare, or a plugin's that also names a module or a shipped pattern,
  is an error saying how to choose.

Each ``Kind`` loaded records its ``source`` (the spec as given; an entry
point's value) and ``sha256`` (of the defining file's bytes; for a function given
as a value, or one whose module has no file, a digest of its definition too:
``extract.definition``; "" when that cannot be digested, and such a scan is not
cached), which the cache key and every stored result hold.  Workers load the same patterns again from
these (``resolve``); a file whose bytes changed since is an error, never a
silently different count.  Everything wrong is a one-line ``PatternError``.
Standard library only, Python 3.8 syntax: workers under any interpreter import it.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
import os
import stat
import sys
import threading
import traceback
from dataclasses import replace
from typing import Any, Dict, List, Optional, Sequence, Tuple

from punstats.extract import definition
from punstats.extract.text import said, shorten
from punstats.model import kinds as kinds_module
from punstats.model.kinds import (
    PATTERN_ATTRIBUTE,
    Kind,
    PatternError,
    Registry,
    check_label,
    check_matcher,
    check_name,
    check_on,
    check_per,
)
from punstats.model.processes import interrupts_noted
from punstats.patterns.built_in import KINDS

#: The entry-point group of installed pattern plugins.
ENTRY_POINT_GROUP = "punstats.patterns"

#: What a worker is given of each pattern: (source, name, sha256).
Wire = Tuple[str, str, str]

#: Patterns loaded in this process, by source: forked workers inherit them.
_LOADED: Dict[str, List[Kind]] = {}
_LOCK = threading.Lock()


def load(specs: Sequence[object]) -> Tuple[Kind, ...]:
    """The patterns of ``specs`` (strings as above, or ``Kind`` values with a matcher), in order;
    ``PatternError`` for a spec that defines none, or two patterns of one name."""
    loaded: List[Kind] = []
    for spec in specs:
        if isinstance(spec, Kind):
            loaded.append(_given(spec))
        elif isinstance(spec, str) and spec.strip():
            loaded.extend(load_spec(spec.strip()))
        else:
            raise PatternError("a pattern is a file, module:name, a module or an installed plugin, not %r"
                               % (spec,))
    for kind in loaded:
        if kind.name in KINDS:
            raise PatternError("%s: %r names a built-in row; choose another name" % (kind.source, kind.name))
    Registry(loaded)  # the same name twice: PatternError
    return tuple(loaded)


def _given(kind: Kind) -> Kind:
    """A ``Kind`` passed as a value (the Python API): kept in this process (forked workers see it)."""
    check_name(kind.name)
    if kind.matcher is None or not kind.occurrence:
        raise PatternError("pattern %r has no matcher: give the function punstats.pattern decorated" % kind.name)
    kind = replace(kind, label=check_label(kind.name, kind.label))
    check_per(kind.per)
    check_on(kind.name, kind.on)
    check_matcher(kind.name, kind.matcher)
    kind = replace(kind, sha256=kind.sha256 or _value_digest(kind))
    # two matchers of one name (two lambdas, a cell run again) are both held, by digest; of those
    # without one (``definition``), the last given (workers are forked for each run)
    with _LOCK:
        held = _LOADED.setdefault(kind.source, [])
        held[:] = [k for k in held if (k.name, k.sha256) != (kind.name, kind.sha256)] + [kind]
    return kind


def _value_digest(kind: Kind) -> str:
    """What names a pattern given as a value: its file's bytes (if any), its matcher's definition
    and its ``on`` (``extract.definition``); "" when the definition cannot be digested."""
    described = definition.digest(kind.matcher)
    if not described:
        return ""
    on = [cls.__module__ + "." + cls.__qualname__ for cls in kind.on or ()]
    text = json.dumps([_file_digest(kind), described, on, kind.on is None], ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()


def load_spec(spec: str) -> List[Kind]:
    """The patterns one spec defines (loaded once per process)."""
    with _LOCK:
        if spec in _LOADED and _unchanged(spec, _LOADED[spec]):
            return list(_LOADED[spec])
        kinds = _load(spec)
        if not kinds:
            raise PatternError("%s defines no pattern (decorate a function with @punstats.pattern(NAME))" % spec)
        _LOADED[spec] = kinds
        return list(kinds)


def _is_file(spec: str) -> bool:
    """``spec`` names a file: it ends in ``.py`` or ``.pyc``, or is a path that exists (a bare name of a
    directory is a package to import, one with a path separator a directory given by mistake)."""
    if spec.endswith((".py", ".pyc")):
        return True
    try:
        mode = os.stat(spec).st_mode
    except (OSError, ValueError):
        return False
    return not stat.S_ISDIR(mode) or os.sep in spec or bool(os.altsep and os.altsep in spec)


#: The most bytes of a pattern file read (a plugin is a few kB; this stops a huge or endless one).
MAX_PLUGIN_BYTES = 16 * 1024 * 1024

_NOT_REGULAR = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
                (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"))


def _read_plugin(spec: str) -> bytes:
    """The bytes of the pattern file ``spec``: a regular file, opened without waiting (a FIFO is
    never read), at most ``MAX_PLUGIN_BYTES``; else a one-line ``PatternError``."""
    if spec.endswith(".pyc"):
        raise PatternError("pattern file %s: a compiled file; give the .py file it was compiled from" % spec)
    try:
        fd = os.open(spec, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0))
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        missing = isinstance(exc, FileNotFoundError)
        raise PatternError("pattern file %s: %s" % (spec, "no such file" if missing else
                                                    getattr(exc, "strerror", None) or exc)) from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        what = [name for test, name in _NOT_REGULAR if test(mode)] + ["not a regular file"]
        raise PatternError("pattern file %s: %s, not a Python file" % (spec, what[0]))
    with os.fdopen(fd, "rb") as handle:
        data = handle.read(MAX_PLUGIN_BYTES + 1)
    if len(data) > MAX_PLUGIN_BYTES:
        raise PatternError("pattern file %s: over %s bytes, not a pattern file" % (spec, format(MAX_PLUGIN_BYTES, ",")))
    return data


def _unchanged(spec: str, kinds: List[Kind]) -> bool:
    """A file loaded before still holds the same bytes (an edited plugin is loaded again)."""
    if not kinds or not _is_file(spec) or kinds[0].source != spec:
        return True
    try:
        return hashlib.sha256(_read_plugin(spec)).hexdigest() == kinds[0].sha256
    except PatternError:
        return False


def _load(spec: str) -> List[Kind]:
    if _is_file(spec):
        return _load_file(spec)
    if ":" in spec:
        module, _, name = spec.partition(":")
        return _load_attribute(spec, module, name)
    value = _entry_point(spec)
    if value is not None:
        module, _, name = value.partition(":")
        return [replace(k, source=value) for k in (_load_attribute(value, module, name) if name
                                                   else _load_module(value, module))]
    return _load_module(spec, spec)


def _load_file(spec: str) -> List[Kind]:
    """Run the file as a module named after its path and take what it defined."""
    data = _read_plugin(spec)
    name = "punstats_pattern_%s" % hashlib.sha256(os.path.abspath(spec).encode()).hexdigest()[:16]
    return run_source(spec, data, name)


def run_source(spec: str, data: bytes, name: str) -> List[Kind]:
    """The patterns ``data`` (the bytes of the pattern file ``spec``) defines, run as the module
    ``name``, each with ``spec`` as its source and the digest of ``data``; a one-line ``PatternError``
    for whatever running it raises."""
    module_spec = importlib.util.spec_from_file_location(name, spec)
    if module_spec is None or module_spec.loader is None:
        raise PatternError("pattern file %s: not a Python file" % spec)
    module = importlib.util.module_from_spec(module_spec)
    mark = kinds_module.defined_count()
    sys.modules[name] = module  # what it defines can be pickled by reference within this process
    with interrupts_noted() as ctrl_c:
        try:
            code = compile(data, spec, "exec", dont_inherit=True)
            exec(code, module.__dict__)  # noqa: S102 -- the user's own plugin, never corpus code
        except PatternError as exc:
            sys.modules.pop(name, None)
            raise PatternError("%s: %s" % (spec, exc)) from None
        # a syntax error, an import that fails, sys.exit(), a KeyboardInterrupt it raised: in one line
        except BaseException as exc:  # noqa: B036
            sys.modules.pop(name, None)
            if ctrl_c:  # the user's Ctrl-C while it loaded: punstats stops
                raise
            raise PatternError("pattern file %s: %s" % (spec, _where(exc, spec))) from None
    digest = hashlib.sha256(data).hexdigest()
    return [replace(k, source=spec, sha256=digest) for k in kinds_module.defined_since(mark)]


def _where(exc: BaseException, spec: str) -> str:
    """``exc`` in one line, with the line of ``spec`` it came from."""
    line = getattr(exc, "lineno", None) if isinstance(exc, SyntaxError) else None
    if line is None:
        frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == spec]
        line = frames[-1].lineno if frames else None
    text = shorten(exc.msg, ECHO_LIMIT) if isinstance(exc, SyntaxError) and exc.msg else said(exc, ECHO_LIMIT)
    return "%s%s%s" % ("line %d: " % line if line else "", type(exc).__name__, ": " + text if text else "")


#: The most characters of a user's text (a message, a name) an error repeats.
ECHO_LIMIT = 200


def _import(spec: str, module: str):
    with interrupts_noted() as ctrl_c:
        try:
            return importlib.import_module(module)
        except PatternError as exc:
            raise PatternError("%s: %s" % (spec, exc)) from None
        except ImportError as exc:
            raise PatternError("pattern %s: cannot import %s (%s)" % (spec, module, said(exc, ECHO_LIMIT))) from None
        except BaseException as exc:  # noqa: B036 -- whatever the user's module raises, sys.exit() too
            if ctrl_c:  # the user's Ctrl-C while it loaded: punstats stops
                raise
            raise PatternError("pattern %s: importing %s raised %s: %s"
                               % (spec, module, type(exc).__name__, said(exc, ECHO_LIMIT))) from None


def _load_attribute(spec: str, module: str, name: str) -> List[Kind]:
    found = getattr(_import(spec, module), name, None)
    if found is None:
        raise PatternError("pattern %s: module %s has no %r" % (spec, module, name))
    kind = getattr(found, PATTERN_ATTRIBUTE, None)
    if not isinstance(kind, Kind):
        raise PatternError("pattern %s: %s.%s is not decorated with @punstats.pattern" % (spec, module, name))
    return [replace(kind, source=spec, sha256=_file_digest(kind) or _value_digest(kind))]


def _load_module(spec: str, module: str) -> List[Kind]:
    mark = kinds_module.defined_count()
    imported = _import(spec, module)
    kinds = kinds_module.defined_since(mark)  # what importing it defined (its submodules too)
    if not kinds:  # imported before: the patterns its functions carry (defined there or imported)
        for value in vars(imported).values():
            kind = getattr(value, PATTERN_ATTRIBUTE, None)
            if isinstance(kind, Kind) and kind not in kinds:
                kinds.append(kind)
    return [replace(k, source=spec, sha256=_file_digest(k) or _value_digest(k)) for k in kinds]


def _file_digest(kind: Kind) -> str:
    """sha256 of the file defining ``kind``'s matcher ("" when it has none on disk: a module of
    ``python -c``, a notebook or ``exec``, which ``_value_digest`` names instead)."""
    module = sys.modules.get(getattr(kind.matcher, "__module__", "") or "")
    path = getattr(module, "__file__", None)
    if not path or not path.endswith(".py"):
        return ""
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return ""


def _entry_point(name: str) -> Optional[str]:
    """The value (``module:name``) of the installed entry point ``name`` of the group, or None;
    ``PatternError`` when the name is ambiguous: two plugins declare it, or it also names a
    module or a shipped pattern (the user says which one they mean)."""
    points = _points(name)
    if not points:
        return None
    if len(points) > 1:
        raise PatternError("pattern %s: %d installed plugins declare this name (%s); give the one you mean as "
                           "module:name" % (_cut(name), len(points), "; ".join(
                               "%s: %s" % (dist, value) for value, dist in points)))
    (value, dist), = points
    rival = _rival(name)
    if rival is not None:
        module, meant = rival
        raise PatternError("pattern %s names both %s and the installed plugin %s (%s: %s); give %s for the one "
                           "or %s for the other" % (_cut(name), module, _cut(name), dist, value, meant, value))
    return value


def _points(name: str) -> List[Tuple[str, str]]:
    """(value, distribution) of each installed entry point ``name`` of the group, one per value."""
    points: Dict[str, str] = {}
    for point in _group():
        if point.name == name:
            dist = getattr(getattr(point, "dist", None), "name", None) or "an installed distribution"
            points.setdefault(point.value, dist)
    return sorted(points.items())


#: The package of the patterns punstats ships.
SHIPPED_PACKAGE = "punstats.patterns"


def _rival(name: str) -> Optional[Tuple[str, str]]:
    """What else ``name`` names: (a shipped pattern or a module, the spec choosing it), or None."""
    if name.isidentifier() and _module_exists("%s.%s" % (SHIPPED_PACKAGE, name)):
        return "the shipped pattern %s.%s" % (SHIPPED_PACKAGE, name), "%s.%s" % (SHIPPED_PACKAGE, name)
    if name.startswith(SHIPPED_PACKAGE + ".") and _module_exists(name):
        return "the shipped pattern " + name, name + ":match"
    if _module_exists(name):
        return "the module " + name, name + ":FUNCTION (its decorated function)"
    return None


def _module_exists(name: str) -> bool:
    """A module ``name`` can be found (its parent packages are imported to look)."""
    if not all(part.isidentifier() for part in name.split(".")):
        return False
    with interrupts_noted() as ctrl_c:
        try:
            return importlib.util.find_spec(name) is not None
        except BaseException:  # noqa: B036 -- a parent package that fails or exits: not a module to choose
            if ctrl_c:
                raise
            return False


def _cut(text: str) -> str:
    return shorten(text, ECHO_LIMIT)


def installed() -> List[Tuple[str, str]]:
    """(name, value) of every installed plugin (entry points of ``ENTRY_POINT_GROUP``)."""
    return sorted({(point.name, point.value) for point in _group()})


def _group() -> List[Any]:
    """The installed entry points of ``ENTRY_POINT_GROUP``."""
    from importlib import metadata
    found = metadata.entry_points()
    return list(found.select(group=ENTRY_POINT_GROUP) if hasattr(found, "select")
                else found.get(ENTRY_POINT_GROUP, ()))


def wire(kinds: Sequence[Kind]) -> Tuple[Wire, ...]:
    """What a worker needs to load ``kinds`` again."""
    return tuple((k.source, k.name, k.sha256) for k in kinds)


def resolve(patterns: Sequence[Wire]) -> Tuple[Kind, ...]:
    """The patterns a worker was sent: loaded here (once) from their sources, and checked
    to be the ones the scan started with (the same bytes); one held already with those bytes'
    digest is used as it is (called for every batch or file: no file read, no hash)."""
    result = []
    for source, name, digest in patterns:
        with _LOCK:  # held already, as the scan started with it: its file is not read again
            held = [k for k in _LOADED.get(source, ()) if k.name == name and k.sha256 == digest]
        if held:
            result.append(held[0])
            continue
        found = [k for k in load_spec(source) if k.name == name]
        if not found:
            raise PatternError("%s no longer defines pattern %r" % (source, name))
        if found[0].sha256 != digest:
            raise PatternError("%s changed while the scan ran (pattern %r): run the scan again" % (source, name))
        result.append(found[0])
    return tuple(result)
