"""The house rules (``ARCHITECTURE.md``), checked on the package's source.

- ``model``, ``patterns`` and ``extract`` import only the standard library
  (and ``model``; ``extract`` and ``patterns`` also themselves, ``extract``
  the built-in kinds of ``patterns``, ``patterns`` the root ``punstats`` for
  ``punstats.pattern``) and parse as Python 3.8, so that a worker under an
  old interpreter can run them.
- A stage imports only earlier stages, ``model`` and ``punstats.cache``.  The
  order is ``model < patterns < cache < sources < discover < extract < engines
  < store < analysis < present < runs < cli``.  ``rewrite`` and ``reproduce`` sit beside
  the flow: they may use every stage up to ``present``, ``reproduce`` may use
  ``rewrite`` (it replays the author's rewrites), and only ``runs`` and ``cli``
  use them.  Imports inside functions
  count as much as those at the top of a module.
- No import cycles among modules (imports executed when a module is imported).
- No module over 400 lines, no function (or method) over 60 lines.  The
  walk (``extract/walk.py``, function ``walk``) is the one exception: its
  loop is the hot path of every scan, and a helper would cost a call per node.
- A module's private (``_underscore``) names stay in it: no module imports another's
  (``from punstats.x import _name``) or reaches for one (``x._name``); what two modules
  share is public in one of them.
- ``punstats --version`` and ``--help`` import no heavy library (pandas,
  pyarrow, matplotlib, dask, tqdm): those are imported where used.

The source is read, never imported, so a violation is reported even when it
would only show under another interpreter or in a function nobody calls.
"""
import ast
import os
import subprocess
import sys

import pytest

import punstats

PACKAGE_DIR = os.path.dirname(punstats.__file__)

#: the stages, earliest first; a module may import its own stage and earlier ones
STAGES = ("model", "patterns", "cache", "sources", "discover", "extract", "engines", "store", "analysis", "present",
          "rewrite", "reproduce", "runs", "cli")
#: stages whose modules parse as this Python version and import only the standard library
PORTABLE = {"model": (3, 8), "patterns": (3, 8), "extract": (3, 8)}
#: portable stages that may import the root ``punstats`` (the shipped patterns use ``punstats.pattern``,
#: as a user's pattern file does)
ROOT_IMPORT = {"patterns"}
#: the root's lazily imported names (``punstats.__getattr__``) and the modules they come from
ROOT_NAMES = {"scan": "punstats.runs.scan", "load": "punstats.runs.scan", "ScanResult": "punstats.runs.scan"}

MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 60
#: (file, function) that may be longer: the walk
LONG_FUNCTIONS_ALLOWED = {("extract/walk.py", "walk")}
#: known violations, each removed by the change that fixes it (a fixed entry fails the test, so the
#: list only shrinks); the value says what the fix is
PENDING = {
}


def _modules():
    """{dotted module name: path} of every module in the package."""
    found = {}
    for directory, dirs, files in os.walk(PACKAGE_DIR):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                path = os.path.join(directory, name)
                parts = os.path.relpath(path, os.path.dirname(PACKAGE_DIR))[:-3].split(os.sep)
                if parts[-1] == "__init__":
                    parts.pop()
                found[".".join(parts)] = path
    return found


MODULES = _modules()


def _source(module):
    with open(MODULES[module], encoding="utf-8") as handle:
        return handle.read()


def _resolve(module, node):
    """The modules an import statement in ``module`` names (absolute)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        parts = module.split(".")
        if not MODULES[module].endswith("__init__.py"):
            parts.pop()
        parts = parts[:len(parts) - node.level + 1]
        base = ".".join(parts + ([node.module] if node.module else []))
    names = []
    for alias in node.names:
        submodule = base + "." + alias.name
        if submodule in MODULES:
            names.append(submodule)
        elif base == "punstats" and alias.name in ROOT_NAMES:
            names.append(ROOT_NAMES[alias.name])
        else:
            names.append(base)
    return names


class _Imports(ast.NodeVisitor):
    """Every import of a module, and whether it runs when the module is imported."""

    def __init__(self, module):
        self.module = module
        self.found = []  # (imported module, at import time, line)
        self.depth = 0
        self.type_checking = 0

    def _visit_function(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _visit_function

    def visit_If(self, node):
        guarded = isinstance(node.test, (ast.Name, ast.Attribute)) and ast.unparse(node.test).endswith(
            "TYPE_CHECKING")
        self.type_checking += guarded
        for child in node.body:
            self.visit(child)
        self.type_checking -= guarded
        for child in node.orelse:
            self.visit(child)

    def visit_Import(self, node):
        at_import = self.depth == 0 and not self.type_checking
        for name in _resolve(self.module, node):
            self.found.append((name, at_import, node.lineno))

    visit_ImportFrom = visit_Import


IMPORTS = {}
for _module in MODULES:
    _visitor = _Imports(_module)
    _visitor.visit(ast.parse(_source(_module)))
    IMPORTS[_module] = _visitor.found


def _stage(module):
    """The stage index of a package module; None for the root and its helpers."""
    parts = module.split(".")
    if len(parts) < 2 or parts[1] == "__main__":
        return None
    for index, names in enumerate(STAGES):
        if parts[1] in names.split("|"):
            return index
    raise AssertionError("%s belongs to no stage: add its subpackage to STAGES" % module)


def test_every_module_belongs_to_a_stage():
    for module in MODULES:
        _stage(module)


@pytest.mark.parametrize("stage", sorted(PORTABLE))
def test_portable_stages_parse_as_old_python(stage):
    version = PORTABLE[stage]
    modules = [m for m in MODULES if m.split(".")[1:2] == [stage]]
    assert modules
    for module in modules:
        try:
            ast.parse(_source(module), MODULES[module], feature_version=version)
        except SyntaxError as exc:
            pytest.fail("%s does not parse as Python %d.%d: %s" % ((module,) + version + (exc,)))


@pytest.mark.parametrize("stage", sorted(PORTABLE))
def test_portable_stages_import_only_the_standard_library(stage):
    allowed = {"model", stage} | ({"patterns"} if stage == "extract" else set())
    bad = []
    for module in (m for m in MODULES if m.split(".")[1:2] == [stage]):
        for name, _, line in IMPORTS[module]:
            top = name.split(".")[0]
            if top == "punstats":
                if name.split(".")[1:2] and name.split(".")[1] in allowed:
                    continue
                if name == "punstats" and stage in ROOT_IMPORT:
                    continue
            elif top in sys.stdlib_module_names or top == "__future__":
                continue
            bad.append("%s:%d imports %s" % (module, line, name))
    assert bad == []


def test_imports_follow_the_flow():
    bad = []
    for module, imports in IMPORTS.items():
        mine = _stage(module)
        if mine is None:
            continue  # the root: the public facade and ``python -m``
        for name, _, line in imports:
            if not name.startswith("punstats"):
                continue
            if name == "punstats":
                continue  # ``from punstats import __version__`` (other names resolve to their modules)
            theirs = _stage(name)
            if theirs is None:
                bad.append("%s:%d imports %s" % (module, line, name))
            elif theirs > mine or (theirs == mine and name.split(".")[1] != module.split(".")[1]):
                bad.append("%s:%d imports %s (a later stage)" % (module, line, name))
    assert bad == []


def test_the_direction_check_can_fail():
    """The checks above see a function-level import and relative imports."""
    visitor = _Imports("punstats.model.kinds")
    visitor.visit(ast.parse("def f():\n    from ..present import tables\n    import punstats.runs.scan\n"))
    assert visitor.found == [("punstats.present.tables", False, 2), ("punstats.runs.scan", False, 3)]
    assert _stage("punstats.present.tables") > _stage("punstats.model.kinds")
    assert _stage("punstats.reproduce.angelico") > _stage("punstats.rewrite.tree")


def _cycles(edges):
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(edges.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.append(other)
                if other == node:
                    break
            if len(component) > 1 or node in edges.get(node, ()):
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles():
    edges = {module: {name for name, at_import, _ in imports if at_import and name in MODULES and name != module}
             for module, imports in IMPORTS.items()}
    assert _cycles(edges) == []
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def _long_functions(tree, relpath):
    """'file::function' of every function over the limit (nested ones and methods too)."""
    found = []

    def walk(node, classes):
        for child in ast.iter_child_nodes(node):
            inner = classes + (child.name,) if isinstance(child, ast.ClassDef) else classes
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = child.end_lineno - child.lineno + 1
                allowed = (relpath, child.name) in LONG_FUNCTIONS_ALLOWED
                if length > MAX_FUNCTION_LINES and not allowed:
                    found.append("%s::%s" % (relpath, child.name))
            walk(child, inner)

    walk(tree, ())
    return found


def test_modules_and_functions_are_short():
    long_modules, long_functions = [], []
    for module, path in MODULES.items():
        relpath = os.path.relpath(path, PACKAGE_DIR).replace(os.sep, "/")
        source = _source(module)
        if len(source.splitlines()) > MAX_MODULE_LINES:
            long_modules.append(relpath)
        long_functions.extend(_long_functions(ast.parse(source), relpath))
    assert long_modules == []
    assert sorted(set(long_functions) - set(PENDING)) == [], "functions over %d lines" % MAX_FUNCTION_LINES
    fixed = sorted(set(PENDING) - set(long_functions))
    assert fixed == [], "now short enough: remove from PENDING in tests/test_layering.py"


def test_the_length_check_can_fail():
    body = "\n".join("    x = %d" % i for i in range(MAX_FUNCTION_LINES))  # with its ``def``: one too many
    tree = ast.parse("class C:\n    def f(self):\n    %s\n" % body.replace("\n", "\n    "))
    assert _long_functions(tree, "a.py") == ["a.py::f"]
    assert _long_functions(tree, "extract/traversal.py") == ["extract/traversal.py::f"]
    assert _long_functions(ast.parse("def g():\n" + body.split("\n", 1)[1] + "\n"), "a.py") == []


def _private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


class _PrivateUses(ast.NodeVisitor):
    """Where a module imports another module's private name, or reads one as an attribute of a
    module it imported (``x._name``, ``punstats.x._name``)."""

    def __init__(self, module):
        self.module = module
        self.modules = {}  # a local name -> the package module it is bound to
        self.found = []

    def _use(self, owner, name, line):
        if owner in MODULES and owner != self.module and _private(name):
            self.found.append("%s:%d uses %s.%s" % (self.module, line, owner, name))

    def visit_Import(self, node):
        for alias in node.names:
            if alias.asname:
                self.modules[alias.asname] = alias.name

    def visit_ImportFrom(self, node):
        for alias, resolved in zip(node.names, _resolve(self.module, node)):
            if resolved in MODULES and resolved.endswith("." + alias.name):  # a module itself
                self.modules[alias.asname or alias.name] = resolved
            else:
                self._use(resolved, alias.name, node.lineno)

    def visit_Attribute(self, node):
        owner = node.value.id if isinstance(node.value, ast.Name) else None
        self._use(self.modules.get(owner, ast.unparse(node.value)), node.attr, node.lineno)
        self.generic_visit(node)


def _private_uses(module, source):
    visitor = _PrivateUses(module)
    visitor.visit(ast.parse(source))
    return visitor.found


def test_no_module_uses_another_module_s_private_names():
    found = [use for module in MODULES for use in _private_uses(module, _source(module))]
    assert found == [], "make the name public where it is defined, or move it where both can use it"


def test_the_private_name_check_can_fail():
    source = ("from punstats.store.staging import StoreError, _one_line\n"
              "from .git import _git\n"
              "from punstats.sources import git as gitsource\n"
              "import punstats.sources.local as local\n"
              "import punstats.sources.local\n"
              "def f(node):\n"
              "    return gitsource._git, local._x, punstats.sources.local._y, node._fields, _own, gitsource.__doc__\n")
    assert _private_uses("punstats.sources.gitdiff", source) == [
        "punstats.sources.gitdiff:1 uses punstats.store.staging._one_line",
        "punstats.sources.gitdiff:2 uses punstats.sources.git._git",
        "punstats.sources.gitdiff:7 uses punstats.sources.git._git",
        "punstats.sources.gitdiff:7 uses punstats.sources.local._x",
        "punstats.sources.gitdiff:7 uses punstats.sources.local._y"]


HEAVY = ("pandas", "pyarrow", "matplotlib", "dask", "distributed", "tqdm", "numpy")


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["scan", "--help"], ["table", "--help"],
                                  ["history", "--help"], ["reproduce", "angelico", "--help"]])
def test_help_and_version_import_no_heavy_library(argv):
    """``python -m punstats --version`` (and every ``--help``) leaves pandas & co. unimported."""
    probe = ("import runpy, sys\nsys.argv = ['punstats'] + sys.argv[1:]\n"
             "try:\n    runpy.run_module('punstats', run_name='__main__')\nexcept SystemExit:\n    pass\n"
             "sys.stderr.write(repr(sorted(m.split('.')[0] for m in sys.modules if m.split('.')[0] in %r)))\n"
             % (HEAVY,))
    proc = subprocess.run([sys.executable, "-c", probe, *argv], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout.startswith(("punstats ", "usage: punstats"))
    assert proc.stderr == "[]"


def test_the_heavy_import_probe_can_fail():
    proc = subprocess.run([sys.executable, "-c", "import sys, pandas; print('pandas' in sys.modules)"],
                          capture_output=True, text=True)
    assert proc.stdout.strip() == "True"


@pytest.mark.parametrize("old", ["api", "classify", "compat", "corpus", "engine", "gitsource", "history",
                                 "incremental", "interp", "plots", "pypi", "report", "rewrap", "tables", "worker"])
def test_the_flat_era_module_names_are_gone(old):
    """``punstats.tables`` and the other names of the flat layout are not aliases any more."""
    import importlib
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("punstats." + old)
    with pytest.raises(AttributeError):
        getattr(punstats, old)
