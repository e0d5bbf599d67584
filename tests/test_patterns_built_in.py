"""``punstats.patterns.built_in``: each built-in kind is one module in the public form, and its
per-file counts equal an independent count (``ast.walk`` and plain loops, not the walk) on
packages of the running interpreter's standard library."""
import ast
import importlib.util
import os
import pkgutil

import pytest

import punstats.patterns.built_in as built_in
from punstats.extract.traversal import extract
from punstats.model import kinds

PACKAGE_DIR = os.path.dirname(built_in.__file__)
STDLIB = os.path.dirname(os.__file__)
CORPUS = ("email", "json", "asyncio", "unittest", "xml")


def _punnable(kw):
    return kw.arg is not None and isinstance(kw.value, ast.Name) and kw.value.id == kw.arg


def _named(keywords):
    return [kw for kw in keywords if kw.arg is not None]


def _calls(tree):
    return [node for node in ast.walk(tree) if isinstance(node, ast.Call)]


def _call(tree):
    puns = [[kw for kw in call.keywords if _punnable(kw)] for call in _calls(tree)]
    dict_calls = [p for p, call in zip(puns, _calls(tree))
                  if isinstance(call.func, ast.Name) and call.func.id == "dict"]
    return {"punnable": sum(map(len, puns)), "calls_with_punnable": sum(1 for p in puns if p),
            "dict_call_punnable": sum(map(len, dict_calls))}


def _attribute(tree):
    return {"attribute": sum(1 for call in _calls(tree) for kw in _named(call.keywords)
                             if isinstance(kw.value, ast.Attribute) and kw.value.attr == kw.arg)}


def _near_miss(tree):
    return {"near_miss": sum(1 for call in _calls(tree) for kw in _named(call.keywords)
                             if isinstance(kw.value, ast.Name) and kw.value.id != kw.arg
                             and kw.arg.strip("_") and kw.arg.strip("_") == kw.value.id.strip("_"))}


def _dict_literal(tree):
    entries = [(key, value) for node in ast.walk(tree) if isinstance(node, ast.Dict)
               for key, value in zip(node.keys, node.values)
               if isinstance(key, ast.Constant) and isinstance(key.value, str)]
    return {"dict_entries": len(entries),
            "dict_literal": sum(1 for key, value in entries if isinstance(value, ast.Name) and value.id == key.value)}


def _class_keywords(tree):
    named = [kw for node in ast.walk(tree) if isinstance(node, ast.ClassDef) for kw in _named(node.keywords)]
    return {"class_keywords": len(named), "class_punnable": sum(1 for kw in named if _punnable(kw))}


def _call_shapes(tree):
    calls = _calls(tree)
    shapes = [(bool(call.args), bool(call.keywords)) for call in calls]
    puns = [(len(_named(call.keywords)), sum(1 for kw in call.keywords if _punnable(kw))) for call in calls]
    return {"calls": len(calls), "keywords": sum(named for named, _ in puns),
            "double_star": sum(1 for call in calls for kw in call.keywords if kw.arg is None),
            "calls_no_arguments": shapes.count((False, False)), "calls_positional_only": shapes.count((True, False)),
            "calls_keyword_only": shapes.count((False, True)), "calls_mixed": shapes.count((True, True)),
            "calls_all_punnable": sum(1 for named, p in puns if p and p == named),
            "max_call_punnable": max([p for _, p in puns] + [0])}


def _function_shapes(tree):
    return {"functions": sum(1 for node in ast.walk(tree)
                             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)))}


#: Per module, its independent count: a module without one fails ``test_every_module_has_its_count``.
INDEPENDENT = {"call": _call, "attribute": _attribute, "near_miss": _near_miss, "dict_literal": _dict_literal,
               "class_keywords": _class_keywords, "call_shapes": _call_shapes, "function_shapes": _function_shapes}

MODULES = sorted(info.name for info in pkgutil.iter_modules([PACKAGE_DIR]))


def test_every_module_is_listed_and_has_its_count():
    assert sorted(built_in.MODULES) == MODULES == sorted(INDEPENDENT)


@pytest.mark.parametrize("name", MODULES)
def test_a_module_declares_one_context_pattern_in_the_public_form(name):
    """Run afresh, a module defines exactly one pattern, through ``punstats.pattern``, called with a
    context for the node classes it declares, keeping the columns it declares (no other module's)."""
    spec = importlib.util.spec_from_file_location("built_in_" + name, os.path.join(PACKAGE_DIR, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    mark = kinds.defined_count()
    spec.loader.exec_module(module)
    [kind] = kinds.defined_since(mark)
    assert kind.matcher is module.match and kind.context and kind.on
    assert all(issubclass(cls, ast.AST) for cls in kind.on) and kind.per == kinds.check_per(kind.per)
    with open(os.path.join(PACKAGE_DIR, name + ".py"), encoding="utf-8") as handle:
        tree = ast.parse(handle.read(), feature_version=(3, 8))
    [decorated] = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.decorator_list]
    assert ast.unparse(decorated.decorator_list[0].func) == "punstats.pattern"
    assert [a.arg for a in decorated.args.args] == ["node", "context"]
    others = [column for other in built_in.PATTERNS if other.name != kind.name for column in other.columns]
    assert kind.columns and not set(kind.columns) & set(others)
    assert ast.get_docstring(tree)


def _corpus():
    for package in CORPUS:
        for directory, dirs, names in os.walk(os.path.join(STDLIB, package)):
            dirs.sort()
            for name in sorted(names):
                if name.endswith(".py"):
                    path = os.path.join(directory, name)
                    with open(path, "rb") as handle:
                        yield path, handle.read()


@pytest.mark.parametrize("name", MODULES)
def test_per_file_counts_equal_an_independent_count(name):
    count = INDEPENDENT[name]
    [kind] = [k for k in built_in.PATTERNS if k.matcher.__module__.endswith("." + name)]
    files = total = 0
    for path, data in _corpus():
        record = extract(path, data).record
        if record.status != "ok":
            continue
        expected = count(ast.parse(data))
        assert set(expected) == set(kind.columns)
        assert {column: record.count(column) for column in kind.columns} == expected, path
        files += 1
        total += sum(expected.values())
    assert files > 100 and total > 0


def test_every_built_in_row_says_where_it_is_defined_and_what_it_counts():
    by_module = {kind.name: kind for kind in built_in.PATTERNS}
    for kind in built_in.BUILT_IN:
        assert kind.module.startswith("punstats.patterns.built_in.") and kind.doc, kind.name
        module = importlib.import_module(kind.module)
        assert not kind.user and kind.source == "built-in"
        if kind.name in by_module:  # a pattern's own row: its module's docstring, in paragraphs
            assert kind.doc == kinds.definition(module.match), kind.name
    rows = {kind.name: kind for kind in built_in.BUILT_IN}
    # a row without words of its own: the pattern's, said to be the pattern's
    assert rows["calls_mixed"].module == "punstats.patterns.built_in.call_shapes"
    assert rows["calls_mixed"].doc == "Counted by the ``calls_no_arguments`` pattern. " + rows["calls_no_arguments"].doc
    assert rows["var_keyword"].doc.startswith("Counted by the ``functions`` pattern. How functions declare")
    # a row given doc= keeps it
    assert rows["dict_call_punnable"].doc.startswith("``dict(x=x)``: the ``call`` matches")
    assert rows["attribute_self"].doc.startswith("``f(x=self.x)``: the ``attribute`` matches")
    assert "classified as ``self``" in rows["attribute_self"].doc


def test_a_row_given_no_words_takes_its_pattern_s():
    extra, worded = kinds.row("extra_count", "extra", "calls"), kinds.row("worded", "w", "calls", doc="Its own.")
    pattern = kinds.Kind("p", "p", "calls", doc="What p counts.", module="pkg.p", rows=(extra, worded))
    own, first, second = kinds.with_rows(pattern)
    assert own.rows == () and (first.module, first.doc) == ("pkg.p", "Counted by the ``p`` pattern. What p counts.")
    assert (second.module, second.doc) == ("pkg.p", "Its own.")
    assert kinds.with_rows(kinds.Kind("q", "q", "calls", rows=(extra,)))[1].doc == ""  # nothing to say: nothing said


def test_recorded_patterns_leave_out_names_that_are_no_identifiers_or_repeat():
    """What a stored summary names a pattern becomes file and figure names: a run's ``run.json``
    and an ecosystem summary go through ``registry_of`` too."""
    recorded = [{"name": name, "per": "Try"} for name in ("../../x", "a/b", "n" * 100, "x\ny", "", 5, "ok", "ok")]
    recorded += ["not an object", {"label": "no name"}, {"name": "call"}]
    registry = built_in.registry_of({"patterns": recorded})
    assert [kind.name for kind in registry.user] == ["ok"]
    assert built_in.registry_of({"patterns": "not a list"}).user == ()
