"""The ``punstats.patterns`` package: each module is one pattern in the public form, named after
its module, citing the proposal it informs, and listed where users read about them."""
import ast
import importlib.util
import os
import pkgutil
import re

import patternwalk
import pytest

import punstats.patterns
from punstats.model import kinds

PACKAGE_DIR = os.path.dirname(punstats.patterns.__file__)
MODULES = sorted(info.name for info in pkgutil.iter_modules([PACKAGE_DIR]) if not info.ispkg)
README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")


def test_the_shipped_patterns_are_the_modules_of_the_package():
    assert MODULES == sorted(patternwalk.SHIPPED)


@pytest.mark.parametrize("name", MODULES)
def test_a_module_defines_one_pattern_named_after_it(name):
    """Run afresh (a module imported before defines nothing new), a module defines exactly one
    pattern through ``punstats.pattern``, with a valid unit, and its ``match`` is that matcher."""
    spec = importlib.util.spec_from_file_location("shipped_" + name, os.path.join(PACKAGE_DIR, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    mark = kinds.defined_count()
    spec.loader.exec_module(module)
    [kind] = kinds.defined_since(mark)
    assert (kind.name, kind.matcher, kind.occurrence) == (name, module.match, True)
    assert kind.per == kinds.check_per(kind.per) and kind.label != name
    assert kind.on and all(issubclass(cls, ast.AST) for cls in kind.on)


@pytest.mark.parametrize("name", MODULES)
def test_a_module_uses_the_public_form_and_cites_its_pep(name):
    with open(os.path.join(PACKAGE_DIR, name + ".py"), encoding="utf-8") as handle:
        source = handle.read()
    tree = ast.parse(source, feature_version=(3, 8))
    imports = {alias.name for node in tree.body if isinstance(node, ast.Import) for alias in node.names}
    assert imports == {"ast", "punstats"} and not any(isinstance(node, ast.ImportFrom) for node in tree.body)
    [decorated] = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.decorator_list]
    assert decorated.name == "match" and [a.arg for a in decorated.args.args] == ["node", "parents"]
    assert ast.unparse(decorated.decorator_list[0].func) == "punstats.pattern"
    pep = re.search(r"https://peps\.python\.org/pep-(\d{4})/", ast.get_docstring(tree))
    assert pep and "PEP %d" % int(pep.group(1)) in ast.get_docstring(tree)


def test_the_package_docstring_and_the_readme_list_every_pattern():
    with open(README, encoding="utf-8") as handle:
        readme = handle.read()
    start = re.search(r"^#+ Shipped patterns$", readme, re.M).end()
    shipped = readme[start:readme.index("\n#", start)]
    for name in MODULES:
        assert "``%s``" % name in punstats.patterns.__doc__
        assert "punstats.patterns.%s" % name in shipped
