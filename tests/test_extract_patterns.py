"""``extract/walk.py``, ``extract/patterns.py`` and ``extract/grammar.py``: the walk that matches user patterns.

Checked against plain recursive walks (every node, its ancestors as a tuple) on
fixtures and on the running interpreter's standard library.
"""
import ast
import json
import os
import warnings

import pytest

from punstats.extract import grammar
from punstats.extract.text import SourceText
from punstats.extract.traversal import extract
from punstats.extract.walk import walk
from punstats.model.kinds import Kind
from punstats.store.schema import CALL_COLUMNS

STDLIB = os.path.dirname(os.__file__)


def kind(match, name="p", per="lines", on=None):
    return Kind(name, name, per, occurrence=True, matcher=match, source="test", on=on)


def match_tree(path, tree, source, kinds):
    """The rows of ``kinds`` (user patterns only) in ``tree``, and the node counts their ``per`` ask for."""
    walked = walk(path, tree, source, kinds)
    walked.match(path, source)
    return walked.occurrences, walked.units


def every_node(tree, parents=()):
    """(node, parents) for every node but the expr_context markers, parents outermost first."""
    yield tree, parents
    inner = parents + (tree,)
    for child in ast.iter_child_nodes(tree):
        if not isinstance(child, ast.expr_context):
            yield from every_node(child, inner)


SAMPLE = '''\
def f(a, *, b=1):
    try:
        x = [g(y) for y in a]
    finally:
        return x
print(f"{f(1)!r}")
lambda: 0
'''


def test_every_node_is_visited_once_with_its_ancestors():
    seen = []

    def match(node, parents):
        seen.append((node, parents))
        return False

    tree = ast.parse(SAMPLE)
    found, units = match_tree("s.py", tree, SourceText(SAMPLE), [kind(match)])
    assert found == [] and units == ()
    expected = list(every_node(tree))
    assert sorted(map(id, (n for n, _ in seen))) == sorted(map(id, (n for n, _ in expected)))
    by_node = {id(n): p for n, p in seen}
    assert all(by_node[id(n)] == p for n, p in expected)
    assert all(type(p) is tuple for _, p in seen)


def test_a_match_is_an_occurrence_at_the_node_in_character_columns():
    text = 'é = 1\nif x:\n    s = "ü"; return é\n'
    data = text.encode("utf-8")

    def match(node, parents):
        return isinstance(node, ast.Return)

    extraction = extract("m.py", data, patterns=[kind(match, "ret")])
    [occurrence] = [o for o in extraction.occurrences if o.kind == "ret"]
    assert (occurrence.line, occurrence.col, occurrence.end_line, occurrence.end_col) == (3, 13, 3, 21)
    assert occurrence.name == "Return" and occurrence.value == "return é" and occurrence.fields is None
    # a pattern's node is no call: the columns about one are null
    assert [getattr(occurrence, column) for column in CALL_COLUMNS] == [None] * len(CALL_COLUMNS)
    assert (occurrence.depth, occurrence.in_fstring, occurrence.name_len) == (0, False, 6)
    assert extraction.record.status == "ok"


def test_a_dict_is_the_rows_fields_and_unpositioned_nodes_take_their_ancestor():
    def match(node, parents):
        if isinstance(node, ast.arguments):
            return {"parent": type(parents[-1]).__name__, "n": len(node.args)}
        return False

    found, _ = match_tree("s.py", ast.parse(SAMPLE), SourceText(SAMPLE), [kind(match)])
    by_line = {o.line: o for o in found}
    assert by_line[1].fields == '{"n": 1, "parent": "FunctionDef"}'  # JSON text, sorted keys
    assert by_line[1].value.startswith("def f(a, *, b=1):")  # the source, as for any match
    assert (by_line[1].col, by_line[1].end_line) == (0, 5)  # the def's position
    assert json.loads(by_line[7].fields) == {"n": 0, "parent": "Lambda"}


class Text(str):
    pass


def test_field_values_are_json_scalars_and_the_rest_their_json_text():
    result = {"b": True, "i": 2, "big": 2 ** 70, "f": 0.5, "s": "x", "none": None, "list": [1, "a"],
              "node": ast.Pass(), "sub": Text("t")}

    def match(node, parents):
        return result if isinstance(node, ast.Return) else False

    [row] = match_tree("s.py", ast.parse(SAMPLE), SourceText(SAMPLE), [kind(match)])[0]
    fields = json.loads(row.fields)
    assert fields == {"b": True, "i": 2, "big": str(2 ** 70), "f": 0.5, "s": "x", "none": None,
                      "list": '[1, "a"]', "node": json.dumps(str(result["node"])), "sub": '"t"'}


def test_depth_and_fstring_of_a_match():
    def match(node, parents):
        return isinstance(node, ast.Constant) and node.value == 1

    found, _ = match_tree("s.py", ast.parse(SAMPLE), SourceText(SAMPLE), [kind(match)])
    [inner] = [o for o in found if o.line == 6]
    assert (inner.depth, inner.in_fstring) == (2, True)


def test_a_matcher_that_raises_fails_the_file_naming_the_pattern():
    def match(node, parents):
        if isinstance(node, ast.Return):
            raise KeyError("boom")
        return False

    extraction = extract("s.py", SAMPLE.encode(), patterns=[kind(match, "broken")])
    assert extraction.record.status == "pattern_error"
    assert extraction.record.error == "pattern broken: KeyError: 'boom'"
    assert extraction.record.error_line == 5 and extraction.occurrences == ()


def test_node_class_units_are_counted_in_the_same_walk():
    def never(node, parents):
        return False

    tree = ast.parse(SAMPLE)
    kinds = [kind(never, "a", per="Try"), kind(never, "b", per="stmt"), kind(never, "c", per="Try")]
    _, units = match_tree("s.py", tree, SourceText(SAMPLE), kinds)
    walked = [type(n) for n in ast.walk(tree)]
    assert dict(units) == {"Try": walked.count(ast.Try),
                           "stmt": sum(issubclass(t, ast.stmt) for t in walked)}
    assert extract("s.py", SAMPLE.encode(), patterns=kinds).units == units


def unguarded(node, parents):
    return isinstance(node, (ast.Return, ast.Break)) and any(isinstance(p, ast.Try) for p in parents)


def test_a_pattern_is_called_for_the_classes_it_declares_only():
    called = []

    def match(node, parents):
        called.append(type(node))
        return True

    tree = ast.parse(SAMPLE)
    found, _ = match_tree("s.py", tree, SourceText(SAMPLE), [kind(match, on=(ast.Return, ast.Lambda))])
    assert sorted(t.__name__ for t in called) == ["Lambda", "Return"]
    assert sorted((o.line, o.name) for o in found) == [(5, "Return"), (7, "Lambda")]
    called.clear()
    match_tree("s.py", tree, SourceText(SAMPLE), [kind(match, on=(ast.stmt,))])
    assert called and all(issubclass(t, ast.stmt) for t in called)
    assert len(called) == sum(isinstance(n, ast.stmt) for n in ast.walk(tree))


def test_the_grammar_says_expressions_hold_no_statements():
    reach = grammar.Reach((ast.Return,))
    assert not reach.field_can_hold("expr") and reach.field_can_hold("stmt")
    assert reach.field_can_hold("excepthandler") and not reach.field_can_hold("arguments")
    assert grammar.Reach((ast.Name,)).field_can_hold("arguments")
    assert grammar.declared(ast.If) == {"test": "expr", "body": "stmt", "orelse": "stmt"}


def naive_matches(match, tree):
    """Positions of the matches of ``match`` by a plain walk: an explicit stack of (node, parents)."""
    found, stack = [], [(tree, ())]
    while stack:
        node, parents = stack.pop()
        if match(node, parents):
            found.append((node.lineno, node.col_offset))
        inner = parents + (node,)
        stack.extend((child, inner) for child in ast.iter_child_nodes(node)
                     if not isinstance(child, ast.expr_context))
    return sorted(found)


def stdlib_trees():
    warnings.simplefilter("ignore")
    for directory, _, names in os.walk(STDLIB):
        for name in sorted(names):
            if name.endswith(".py"):
                path = os.path.join(directory, name)
                with open(path, "rb") as handle:
                    data = handle.read()
                try:
                    text = data.decode("utf-8")
                    yield path, text, ast.parse(text)
                except (SyntaxError, ValueError):
                    continue


@pytest.mark.slow
def test_declared_and_pruned_walk_equals_a_plain_walk_on_the_standard_library():
    total = 0
    for path, text, tree in stdlib_trees():
        source = SourceText(text)
        expected = sorted((line, source.char_col(line, col)) for line, col in naive_matches(unguarded, tree))
        for declared in (kind(unguarded, on=(ast.Return, ast.Break)), kind(unguarded)):
            found, _ = match_tree(path, tree, source, [declared])
            assert sorted((o.line, o.col) for o in found) == expected, path
        total += len(expected)
    assert total > 100
