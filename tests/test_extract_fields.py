"""``punstats.extract.fields``: the fields the traversal descends into, and the order it meets nodes.

The fields said to hold text (from each node class's documentation) are
checked against real code, the running interpreter's standard library; the
traversal's order is checked against a plain stack walk over ``child_nodes``.
"""
import ast
import glob
import os
import textwrap

from punstats.extract import fields
from punstats.extract.text import SourceText
from punstats.extract.traversal import extract
from punstats.extract.walk import walk
from punstats.patterns.built_in import PATTERNS

#: code in which functions (their shapes are recorded in the order they are met) sit in every kind of child
ORDERED = textwrap.dedent("""\
    @deco(lambda: 1, key=lambda: 2)
    def outer(a=lambda: 3, *, b=lambda: 4):
        f(lambda: 5, g(lambda: 6)(lambda: 7), k=lambda: 8, **{"m": lambda: 9})
        h.attr(lambda: 10).other(x=lambda: 11)
        class C(Base(lambda: 12), meta=lambda: 13):
            def method(self): return f"{(lambda: 14)()!r:{(lambda: 15)()}}"
        return [lambda: 16 for _ in (lambda: 17)()]
    """)


def _walk_order(tree):
    """The functions of ``tree`` in the order a stack walk over ``child_nodes`` meets them."""
    found, stack = [], [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            found.append((node.lineno, node.col_offset))
        stack.extend(fields.child_nodes(node))
    return found


def test_the_traversal_meets_nodes_in_the_order_of_a_plain_walk():
    """So that records equal in their sort key keep the order they always had."""
    tree = ast.parse(ORDERED)
    walked = walk("m.py", tree, SourceText(ORDERED), PATTERNS)
    met = [(f.line, f.col) for f in walked.functions]
    assert len(met) == 19 == len(set(met))
    assert met == _walk_order(tree)
    assert sorted(met) != met  # the order checked is not simply the sorted one


def test_text_fields_follow_the_grammar():
    assert fields.text_fields(ast.Call) == frozenset()
    assert fields.text_fields(ast.Attribute) == {"attr", "ctx"}
    assert fields.text_fields(ast.ImportFrom) == {"module", "level"}
    assert fields.text_fields(ast.Constant) >= {"value"}
    assert fields.text_fields(ast.FunctionDef) >= {"name", "type_comment"}
    assert "body" not in fields.text_fields(ast.FunctionDef)
    undocumented = type("Undocumented", (ast.expr,), {"_fields": ("value",)})
    assert fields.text_fields(undocumented) == frozenset()


def test_fields_said_to_hold_text_never_hold_a_node_in_the_standard_library():
    held = {}  # (node type, field) -> what its values were
    for path in sorted(glob.glob(os.path.join(os.path.dirname(ast.__file__), "*.py"))):
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read())
        for node in ast.walk(tree):
            for field in fields.text_fields(type(node)):
                value = getattr(node, field, None)
                items = value if isinstance(value, list) else [value]
                held.setdefault((type(node).__name__, field), set()).update(
                    "node" if isinstance(item, ast.AST) and not isinstance(item, ast.expr_context)
                    else type(item).__name__ for item in items)
    assert ("Attribute", "attr") in held and ("ImportFrom", "level") in held and ("Global", "names") in held
    assert sorted(key for key, kinds in held.items() if "node" in kinds) == []


def test_learn_keeps_node_and_list_fields_and_skips_what_is_no_node():
    call = ast.parse("f(a, k=v)").body[0].value
    assert fields.learn(call) == (("func", False), ("args", True), ("keywords", True))
    assert fields.SPECS[ast.Call] == (("func", False), ("args", True), ("keywords", True))
    assert fields.learn("text") is None and str in fields.SKIP
    assert fields.learn([call]) is None and list not in fields.SKIP


def test_a_list_where_a_node_was_expected_is_still_descended_into():
    """Never made by the parser: the traversal visits it all the same instead of dropping it."""
    tree = ast.parse("x = f(a=a)\n")
    assign = tree.body[0]
    assign.value = [assign.value]  # a list in a field the traversal knows as holding one node
    if ast.Assign not in fields.SPECS:
        fields.learn(ast.parse("x = 1").body[0])
    assert ("value", False) in fields.SPECS[ast.Assign]
    walked = walk("m.py", tree, SourceText("x = f(a=a)\n"), PATTERNS)
    assert [o.name for o in walked.occurrences] == ["a"]
    assert extract("m.py", b"x = f(a=a)\n").record.punnable == 1
