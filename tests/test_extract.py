"""The definition of a punnable keyword argument, context by context."""
import ast
import codecs
import sys
import textwrap
import warnings

import pytest

from punstats.extract.text import CALLEE_MAX_CHARS
from punstats.extract.traversal import extract
from punstats.model.records import count_lines
from punstats.model.statuses import (
    DECODE_ERROR,
    NULL_BYTES,
    OK,
    SYNTAX_ERROR,
    TOO_DEEP,
    TOO_LARGE,
)


def run(source: str):
    return extract("m.py", textwrap.dedent(source).encode("utf-8"))


def names(source: str, kind: str = "call"):
    return [o.name for o in run(source).occurrences if o.kind == kind]


@pytest.mark.parametrize("context, source, expected", [
    ("plain call", "f(x=x)", ["x"]),
    ("not punnable: other name", "f(x=y)", []),
    ("not punnable: attribute", "f(x=self.x)", []),
    ("not punnable: constant", "f(x='x')", []),
    ("not punnable: positional", "f(x)", []),
    ("double star is not a keyword", "f(**x)", []),
    ("nested in an argument", "f(g(y=y), x=x)", ["y", "x"]),
    ("nested on one line", "f(a=a, b=g(b=b, c=h(c=c)))", ["a", "b", "c"]),
    ("called result", "f(a=a)(b=b)", ["a", "b"]),
    ("attribute chain around calls", "a.b(c=c).d.e(f=f)", ["c", "f"]),
    ("call in an attribute's base", "g(h(k=k)).attr[m(m=m)].n", ["k", "m"]),
    ("decorator", "@dec(flag=flag)\ndef f(): pass", ["flag"]),
    ("class decorator", "@dataclass(frozen=frozen)\nclass A: pass", ["frozen"]),
    ("lambda body", "g = lambda v: f(v=v)", ["v"]),
    ("list comprehension", "[f(i=i) for i in r]", ["i"]),
    ("generator condition", "(i for i in r if ok(i=i))", ["i"]),
    ("dict comprehension", "{k: f(k=k) for k in r}", ["k"]),
    ("default value", "def f(a=g(a=a)): pass", ["a"]),
    ("keyword-only default", "def f(*, a=g(a=a)): pass", ["a"]),
    ("annotation", "def f(a: T(a=a)) -> R(r=r): pass", ["a", "r"]),
    ("f-string field", "s = f'{f(x=x)}'", ["x"]),
    ("f-string format spec", "s = f'{v:{w(w=w)}}'", ["w"]),
    ("nested f-string", "s = f'{f\"{g(y=y)}\"}'", ["y"]),
    ("class body", "class A:\n    x = f(x=x)", ["x"]),
    ("class bases", "class A(make(base=base)): pass", ["base"]),
    ("method body", "class A:\n    def m(self):\n        return f(key=key)", ["key"]),
    ("async", "async def m():\n    await f(t=t)\n    async with g(c=c): pass", ["t", "c"]),
    ("with item", "with open(p, mode=mode) as h: pass", ["mode"]),
    ("match subject", "match f(s=s):\n    case _: pass", ["s"]),
    ("slice", "a[f(i=i):g(j=j)]", ["i", "j"]),
    ("starred", "f(*g(a=a), **h(b=b))", ["a", "b"]),
    ("walrus", "(y := f(y=y))", ["y"]),
    ("global scope assert", "assert f(m=m), g(n=n)", ["m", "n"]),
    ("try/except", "try:\n    pass\nexcept E(e=e):\n    raise X(x=x) from Y(y=y)", ["e", "x", "y"]),
    ("return and yield", "def g():\n    yield f(a=a)\n    return h(b=b)", ["a", "b"]),
    ("del and subscript", "del d[k(k=k)]", ["k"]),
    ("ternary and boolean", "z = f(a=a) if c(c=c) else g(b=b) or h(d=d)", ["a", "c", "b", "d"]),
    ("unicode identifier", "f(größe=größe)", ["größe"]),
])
def test_contexts(context, source, expected):
    assert sorted(names(source)) == sorted(expected), context


def test_class_keywords_are_their_own_kind_and_outside_the_headline():
    result = run("""
        class A(Base, metaclass=metaclass, flag=True):
            pass
        f(metaclass=metaclass)
    """)
    assert names("class A(metaclass=metaclass): pass", "class") == ["metaclass"]
    record = result.record
    assert (record.punnable, record.keywords) == (1, 1)
    assert (record.class_punnable, record.class_keywords) == (1, 2)
    kinds = sorted((o.kind, o.callee) for o in result.occurrences)
    assert kinds == [("call", "f"), ("class", "A")]


def test_counts_denominator_and_double_star():
    record = run("f(a, b=b, c=1, **d)\ng(**e, **f)\nh()").record
    assert (record.calls, record.keywords, record.double_star, record.punnable) == (3, 2, 3, 1)


def test_occurrence_fields():
    (o,) = run("""
        x = 1
        obj.method(
            a, flag=True, frobnification_level=frobnification_level)
    """).occurrences
    assert (o.line, o.col, o.end_line, o.end_col) == (4, 18, 4, 59)
    assert (o.name, o.name_len, o.callee) == ("frobnification_level", 20, "obj.method")
    assert (o.call_line, o.call_col, o.call_keywords, o.call_punnable) == (3, 0, 2, 1)
    assert (o.depth, o.in_fstring, o.kind, o.path) == (0, False, "call", "m.py")


def test_depth_counts_enclosing_calls_and_fstring_flag():
    found = {o.name: o for o in run("f(a=a, b=g(b=b, c=h(c=c)), s=f'{k(d=d)}')").occurrences}
    assert {n: o.depth for n, o in found.items()} == {"a": 0, "b": 1, "c": 2, "d": 1}
    assert {n: o.in_fstring for n, o in found.items()} == {"a": False, "b": False, "c": False, "d": True}
    assert found["c"].callee == "h" and found["b"].call_punnable == 1


def test_columns_are_characters_not_utf8_bytes():
    source = "s = 'ééé'; f(x=x)\n"
    (o,) = run(source).occurrences
    assert source[o.col:o.end_col] == "x=x"
    assert (o.col, o.call_col) == (13, 11)


def test_columns_multibyte_multiline_callee_text():
    source = "d = {'ключ': f(ü=ü,\n  ö=ö)}\n"
    occ = run(source).occurrences
    lines = source.splitlines()
    assert [lines[o.line - 1][o.col:o.end_col] for o in occ] == ["ü=ü", "ö=ö"]


def test_long_callee_is_shortened_and_flattened():
    callee = "g(" + "a" * 30 + ",\n    " + "b" * 40 + ")"
    (o,) = run("%s(x=x)" % callee).occurrences
    assert len(o.callee) == CALLEE_MAX_CHARS and o.callee.endswith("\u2026")
    assert "\n" not in o.callee and o.callee.startswith("g(" + "a" * 30 + ", bbb")


def test_long_method_callee_keeps_the_method_name():
    message = "'{name}' must be a string of at most {limit} characters, not {value!r}"
    (o,) = run('raise TypeError("%s".format(name=name))' % message).occurrences
    assert len(o.callee) == CALLEE_MAX_CHARS
    assert o.callee == '"%s\u2026.format' % message[:CALLEE_MAX_CHARS - len('".format') - 1]


def test_long_method_callee_over_lines_keeps_the_method_name():
    source = '(\n    "%s"\n    "%s"\n).\\\n    format(x=x)' % ("a" * 40, "b" * 40)
    (o,) = run(source).occurrences
    assert o.callee == '( "%s\u2026.format' % ("a" * 40 + '" "' + "b" * 6)  # whitespace folded
    assert len(o.callee) == CALLEE_MAX_CHARS


def test_short_callees_are_unchanged():
    found = {o.name: o.callee for o in run('"{x}".format(x=x)\nself.obj . method(y=y)\n').occurrences}
    assert found == {"x": '"{x}".format', "y": "self.obj . method"}


def test_long_plain_callee_is_cut_at_the_limit():
    (o,) = run("%s(x=x)" % ("n" * 70)).occurrences
    assert o.callee == "n" * (CALLEE_MAX_CHARS - 1) + "\u2026"


def test_long_attribute_base_keeps_its_name():
    (o,) = run("f(x=make(%s).config.x)" % ("v" * 60)).occurrences
    assert (o.kind, o.base_kind) == ("attribute", "expr")
    assert o.base == "make(%s\u2026.config" % ("v" * (CALLEE_MAX_CHARS - len(".config") - 6))
    assert len(o.base) == CALLEE_MAX_CHARS


def test_long_attribute_value_keeps_the_name_it_puns():
    (o,) = run("f(x=make(%s).config.x)" % ("v" * 60)).occurrences
    assert o.value == "make(%s\u2026.x" % ("v" * (CALLEE_MAX_CHARS - len(".x") - 6))
    assert len(o.value) == CALLEE_MAX_CHARS


def test_coding_cookie_latin1_and_columns():
    source = "# -*- coding: latin-1 -*-\ns = '\xe9\xe9'; f(x=x)\n"
    result = extract("m.py", source.encode("latin-1"))
    assert result.record.status == OK and result.record.encoding == "iso-8859-1"
    (o,) = result.occurrences
    assert source.splitlines()[1][o.col:o.end_col] == "x=x"


def test_bom():
    result = extract("m.py", codecs.BOM_UTF8 + "f(é=é)\n".encode())
    assert result.record.status == OK and result.record.encoding == "utf-8-sig"
    assert [(o.name, o.col) for o in result.occurrences] == [("é", 2)]


def test_crlf_and_cr_lines():
    result = extract("m.py", b"a = 1\r\nf(x=x)\r\n")
    assert [(o.line, o.col) for o in result.occurrences] == [(2, 2)]
    assert result.record.lines == 2
    assert count_lines(b"a\rb\r\nc") == 3 and count_lines(b"") == 0


@pytest.mark.parametrize("data, status, message", [
    (b"print 'python 2'\n", SYNTAX_ERROR, "Missing parentheses"),
    (b"def f(:\n", SYNTAX_ERROR, "invalid syntax"),
    (b"x = '\xff\xfe'\n", DECODE_ERROR, "'utf-8' codec can't decode byte 0xff"),
    (b"x = 1\n\n\ny = '\xff'\n", DECODE_ERROR, "'utf-8' codec can't decode byte 0xff"),
    (b"# coding: no-such-codec\nx = 1\n", DECODE_ERROR, "unknown encoding"),
    (b"x = 1\ny = 2\0\n", NULL_BYTES, "null byte"),
    (b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR", NULL_BYTES, "null byte"),
    (b"x = " + b"(" * 300 + b")" * 300 + b"\n", SYNTAX_ERROR, "too many nested parentheses"),
])
def test_bad_input_is_a_status_not_an_exception(data, status, message):
    result = extract("bad.py", data)
    assert result.record.status == status
    assert message in result.record.error
    assert result.occurrences == () and result.record.bytes == len(data)


def test_error_line_is_recorded():
    result = extract("bad.py", b"x = 1\ny = 2\ndef f(:\n")
    assert (result.record.status, result.record.error_line) == (SYNTAX_ERROR, 3)
    assert extract("n.py", b"a\nb\0").record.error_line == 2
    assert extract("d.py", b"x = 1\n\n\ny = '\xff'\n").record.error_line == 4


@pytest.mark.parametrize("data", [
    b"x = " + b"-" * 200000 + b"1\n",  # MemoryError on CPython 3.11
    b"x = 1" + b" + 1" * 100000 + b"\n",  # RecursionError
    b"x = f" + b"()" * 100000 + b"\n",
])
def test_deep_nesting_is_too_deep_not_a_crash(data):
    result = extract("deep.py", data)
    assert result.record.status == TOO_DEEP
    assert result.record.error.split(":")[0] in ("MemoryError", "RecursionError")
    assert extract("after.py", b"f(x=x)\n").record.punnable == 1  # the interpreter is fine


def test_size_cap():
    result = extract("big.py", b"f(x=x)\n" * 100, max_bytes=50)
    assert result.record.status == TOO_LARGE and "over the cap of 50" in result.record.error
    assert result.record.bytes == 700


def test_empty_file():
    result = extract("e.py", b"")
    assert result.record.status == OK
    assert (result.record.lines, result.record.calls, result.record.bytes) == (0, 0, 0)


def test_never_executes_the_source(tmp_path):
    marker = tmp_path / "ran"
    source = "open(%r, 'w').write('x')\nf(x=x)\n" % str(marker)
    result = extract("m.py", source.encode())
    assert result.record.punnable == 1 and not marker.exists()


# -- related patterns (kinds besides the headline) ----------------------------------------------

def kinds_of(source: str):
    return sorted((o.kind, o.name) for o in run(source).occurrences)


@pytest.mark.parametrize("source, expected", [
    ("f(x=self.x)", [("attribute", "x")]),
    ("f(x=cfg.opts.x)", [("attribute", "x")]),
    ("f(x=y.x_)", []),
    ("f(x=y.X)", []),
    ("f(x=self.x())", []),
    ("f(**self.x)", []),
    ("d = {'x': x}", [("dict_literal", "x")]),
    ("d = {'x': y}", []),
    ("d = {x: x}", []),
    ("d = {b'x': x}", []),
    ("d = {**x, 'y': y}", [("dict_literal", "y")]),
    ("d = {'x': x.x}", []),
    ("f(x=_x)", [("near_miss", "x")]),
    ("f(_x=x__)", [("near_miss", "_x")]),
    ("f(x_=x)", [("near_miss", "x_")]),
    ("f(_=__)", []),
    ("f(x=xx)", []),
    ("f(_x=_x)", [("call", "_x")]),
    ("dict(x=x, y=self.y)", [("attribute", "y"), ("call", "x")]),
])
def test_kinds_and_negatives(source, expected):
    assert kinds_of(source) == expected


def test_attribute_base_kinds_and_values():
    occ = run("f(a=self.a, b=cls.b, c=cfg.c, d=get().d, e=self.e)").occurrences
    assert [(o.name, o.base_kind, o.base, o.value) for o in occ] == [
        ("a", "self", "self", "self.a"), ("b", "cls", "cls", "cls.b"), ("c", "name", "cfg", "cfg.c"),
        ("d", "expr", "get()", "get().d"), ("e", "self", "self", "self.e")]
    record = run("f(a=self.a, b=b)").record
    assert (record.attribute, record.punnable, record.keywords) == (1, 1, 2)


def test_dict_literal_position_and_counts():
    result = run("d = {'key': key, 'n': 1, 2: x}\n")
    (o,) = result.occurrences
    assert (o.line, o.col, o.end_col, o.callee, o.call_keywords) == (1, 5, 15, "{}", 2)
    assert (result.record.dict_entries, result.record.dict_literal) == (2, 1)


def test_dict_call_is_a_flagged_headline_row():
    result = run("dict(x=x)\nmydict(y=y)\n")
    assert [(o.name, o.kind, o.dict_call) for o in result.occurrences] == [("x", "call", True), ("y", "call", False)]
    assert (result.record.punnable, result.record.dict_call_punnable) == (2, 1)


def test_call_shapes():
    record = run("""
        a()
        b(1, *c)
        d(k=1, **kw)
        e(1, k=k)
        g(x=x, y=y, z=z)
        h(p=p, q=1)
    """).record
    assert (record.calls_no_arguments, record.calls_positional_only, record.calls_keyword_only,
            record.calls_mixed) == (1, 1, 3, 1)
    assert (record.calls_all_punnable, record.max_call_punnable) == (2, 3)


def test_function_shapes():
    result = run("""
        def f(a, /, b, c=1, *args, d, e=2, **kw): pass
        async def g(self): pass
        h = lambda x, y=0: x
        class A:
            def m(self, *, k): pass
    """)
    shapes = [(s.name, s.kind, s.positional_only, s.positional_or_keyword, s.keyword_only,
               s.var_positional, s.var_keyword, s.defaults, s.keyword_only_defaults)
              for s in result.functions]
    assert shapes == [
        ("f", "def", 1, 2, 2, True, True, 1, 1),
        ("g", "async def", 0, 1, 0, False, False, 0, 0),
        ("<lambda>", "lambda", 0, 2, 0, False, False, 1, 0),
        ("m", "def", 0, 1, 1, False, False, 0, 0),
    ]
    assert result.record.functions == 4


def test_kinds_do_not_change_the_headline():
    record = run("f(x=self.x, y=_y, z=z)\nd = {'a': a}\nclass A(metaclass=metaclass): pass").record
    assert (record.punnable, record.keywords, record.calls) == (1, 3, 1)


def test_plain_form_round_trips_without_the_path():
    import json

    from punstats.model.records import from_plain, to_plain
    result = run("def f(a, *, b=1): return g(a=a, b=self.b, c={'d': d})\n")
    plain = json.loads(json.dumps(to_plain(result)))
    assert "m.py" not in json.dumps(plain)  # content-keyed: the same bytes anywhere give the same value
    again = from_plain(plain, "elsewhere.py")
    assert again.record.path == "elsewhere.py" and again.record.punnable == result.record.punnable
    assert [o.path for o in again.occurrences] == ["elsewhere.py"] * 3
    assert [o.name for o in again.occurrences] == [o.name for o in result.occurrences]
    assert [f.keyword_only for f in again.functions] == [1]


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="the parser knows Python 3.12 syntax")
@pytest.mark.parametrize("data", [
    b"type Alias = list[int]\nf(x=x)\n",  # PEP 695
    b"s = f\"{'a' + \"b\"}\"\nf(x=x)\n",  # PEP 701: the same quotes inside an f-string
])
def test_syntax_newer_than_the_parser_is_a_syntax_error(data):
    result = extract("new.py", data)
    assert result.record.status == SYNTAX_ERROR and result.record.error_line == 1
    assert result.occurrences == ()


def _per_call(tree):
    """(calls with an ``x=x`` keyword, calls whose every named keyword is one, most in one call)
    with ``ast.walk`` alone."""
    with_one = all_of_them = most = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            named = [kw for kw in node.keywords if kw.arg is not None]
            same = sum(isinstance(kw.value, ast.Name) and kw.value.id == kw.arg for kw in named)
            with_one += same > 0
            all_of_them += 0 < same == len(named)
            most = max(most, same)
    return with_one, all_of_them, most


def _measured(record):
    return record.calls_with_punnable, record.calls_all_punnable, record.max_call_punnable


@pytest.mark.parametrize("source, expected", [
    ("f(a=a).g(b=b)", (2, 2, 1)),  # a chain: both calls start at column 0
    ("x.f(a=a).g(b=b, c=1)", (2, 1, 1)),
    ("f(a=a)(b=b)", (2, 2, 1)),  # a call of a call's result, the same start again
    ("f(a=a)(b=b)(c=c, d=d)", (3, 3, 2)),
    ("f(a=g(b=b), c=c)", (2, 1, 1)),  # nested: the outer call's a= is not punnable
    ("@d(x=x)\ndef f(y=y): pass", (1, 1, 1)),  # a decorator's call; a default is no call
    ("@d(x=x)(y=y)\nclass C(m=m): pass", (2, 2, 1)),  # class keywords are not calls
])
def test_per_call_figures_count_each_call_node(source, expected):
    """``calls_with_punnable`` counted ``f(a=a).g(b=b)`` once: two calls at one (line, col)."""
    record = run(source).record
    assert _measured(record) == _per_call(ast.parse(source)) == expected


@pytest.mark.slow  # the whole standard library
def test_per_call_figures_equal_an_ast_walk_file_by_file():
    from patternwalk import stdlib_files
    warnings.simplefilter("ignore")
    differ, calls = {}, 0
    for path, data in stdlib_files():
        record = extract(path, data).record
        if record.status == OK:
            expected = _per_call(ast.parse(data))
            calls += expected[0]
            if _measured(record) != expected:
                differ[path] = (_measured(record), expected)
    assert differ == {} and calls > 1000
