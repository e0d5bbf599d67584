"""find_kwargs.py's counting, one quirk at a time."""
import os

import pytest

from punstats.extract import compat
from punstats.extract.compat import Quirks, compat_file, run

NESTED = b"outer(inner(deep=deep), top=top)\nx = [f(c=c) for c in g(d=d)]\n"
PLAIN = b"f(alpha=alpha, beta=beta)\n"
BROKEN = b"def (:\n"


def files(*pairs):
    return [(path, compat_file(data)) for path, data in pairs]


def args(result):
    return [ln.arg for ln in result.lines]


def test_no_descent_into_a_calls_children():
    r = run(files(("m.py", NESTED)), Quirks(walk="sorted"))
    assert args(r) == ["top", "c", "d"]  # deep is inside outer(...); a comprehension is not a call
    full = run(files(("m.py", NESTED)), Quirks(walk="sorted", descend=True))
    assert sorted(args(full)) == ["c", "d", "deep", "top"]


def test_descent_order_is_the_visitor_preorder():
    r = run(files(("m.py", b"a(b(y=y), x=x)\n")), Quirks(walk="sorted", descend=True))
    assert args(r) == ["x", "y"]  # the outer call prints before its children are visited


def test_class_keywords_are_not_calls():
    r = run(files(("m.py", b"class A(metaclass=metaclass): pass\n")), Quirks())
    assert r.lines == ()


def test_stale_tree_after_a_parse_failure():
    r = run(files(("a.py", PLAIN), ("b.py", BROKEN), ("c.py", BROKEN)), Quirks(walk="sorted"))
    assert [(ln.path, ln.arg) for ln in r.lines] == [
        ("a.py", "alpha"), ("a.py", "beta"),
        ("b.py", "alpha"), ("b.py", "beta"),  # a.py's tree, printed under b.py
        ("c.py", "alpha"), ("c.py", "beta")]  # and again: the last tree that parsed
    assert [ln.stale for ln in r.lines] == [False, False, True, True, True, True]
    assert r.stale_visits == (("b.py", "a.py"), ("c.py", "a.py"))
    assert [p for p, _ in r.failures] == ["b.py", "c.py"]
    off = run(files(("a.py", PLAIN), ("b.py", BROKEN)), Quirks(walk="sorted", stale_tree=False))
    assert args(off) == ["alpha", "beta"]


def test_first_file_failing_stops_the_script():
    r = run(files(("b.py", BROKEN), ("a.py", PLAIN)), Quirks())
    assert r.lines == () and "NameError" in r.crash
    ok = run(files(("b.py", BROKEN), ("a.py", PLAIN)), Quirks(stale_tree=False))
    assert args(ok) == ["alpha", "beta"] and ok.crash == ""


def test_unopenable_file_stops_the_script():
    r = run([("a.py", compat_file(PLAIN)), ("gone.py", None), ("c.py", compat_file(PLAIN))], Quirks())
    assert len(r.lines) == 2 and "gone.py" in r.crash


def test_function_bodies_skipped_by_the_2024_01_18_early_version():
    src = b"f(a=a)\ndef g():\n    h(b=b)\nasync def k():\n    h(c=c)\n"
    assert args(run(files(("m.py", src)), compat.PROFILES["angelico-2024-01-18-early"])) == ["a", "c"]
    assert args(run(files(("m.py", src)), compat.PROFILES["angelico-2023-10"])) == ["a", "b", "c"]


def test_printed_lines_match_the_script_format():
    r = run(files(("Lib/m.py", b"x = 1\nobj.meth(key=key)\n")), Quirks())
    assert r.lines[0].text("full") == "./Lib/m.py:2:0: obj.meth(key=key)"
    assert r.lines[0].text("name") == "m.py:2:0: obj.meth(key=key)"


def test_column_is_the_byte_offset_like_ast():
    r = run(files(("m.py", "s = 'é'; f(k=k)\n".encode())), Quirks())
    assert r.lines[0].col == len("s = 'é'; ".encode())


def test_sorted_walk_order_is_files_first_then_subdirectories():
    paths = ["b/z.py", "a.py", "b/c/d.py", "b/a.py", "c.py", "a/x.py"]
    assert compat.sorted_walk_order(paths) == ["a.py", "c.py", "a/x.py", "b/a.py", "b/z.py", "b/c/d.py"]


def test_fs_walk_order_is_os_walk(tmp_path):
    for rel in ("a.py", "d/b.py", "d/e/c.py", "d/n.txt"):
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("")
    expected = [os.path.relpath(os.path.join(r, f), tmp_path).replace(os.sep, "/")
                for r, _, fs in os.walk(tmp_path) for f in fs if f.endswith(".py")]
    assert compat.fs_walk_order(str(tmp_path)) == expected


def test_statistics_blocks():
    r = run(files(("m.py", b"f(a=a, b=1)\ng()\nh(**kw)\n")), Quirks(stats="2023-10-23b"))
    text = r.stats_text()
    assert "Total function calls: 3" in text
    assert "Calls with any kwarg: 2 66.67%" in text  # ** counts as a keyword for him
    assert "Total keyword params: 3 1.00 per call" in text
    assert "Num params where x=x: 1 33.33%" in text
    early = run(files(("m.py", b"f(a=a)\n")), Quirks(stats="2023-10-23a")).stats_text()
    assert "Num params" not in early and "Calls with any 'x=x': 1 100.00%" in early
    assert run(files(("m.py", b"f(a=a)\n")), Quirks()).stats_text() == ""
    defs = run(files(("m.py", b"def f(a, /, b, *c, d, **e): pass\n")),
               Quirks(descend=True, stats="2024-01"))
    assert defs.stats["FunctionDefs"] == 1 and defs.stats["Params"] == 5


def test_stale_visit_counts_statistics_again():
    r = run(files(("a.py", PLAIN), ("b.py", BROKEN)), Quirks(stats="2023-10-23b"))
    assert r.stats["MatchCount"] == 4 and r.stats["Calls"] == 2


def test_profiles_and_overrides():
    assert compat.profile("angelico-2023-10").descend is False
    assert compat.profile("angelico-2023-10", walk="sorted").walk == "sorted"
    assert compat.profile("angelico-2024-01").descend is True
    with pytest.raises(ValueError):
        compat.profile("nope")
    with pytest.raises(ValueError):
        compat.profile("angelico-2023-10", walk="random")


def test_parse_errors_are_exceptions_of_ast_parse_on_bytes():
    assert compat_file(b"\x00")["ok"] is False
    assert compat_file(b"# -*- coding: uft-8 -*-\n")["ok"] is False
    assert compat_file("# -*- coding: latin-1 -*-\nf(\xe9=\xe9)\n".encode("latin-1"))["matches"][0][3] == "é"
