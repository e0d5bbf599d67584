"""The hits of one kind (present/hits.py): their places checked against a plain ``ast`` walk,
notebooks named by cell, the source line read only from an unchanged file under the recorded
root (else the stored value), the default kind, unknown kinds, JSON lines, and an ecosystem run."""
import ast
import hashlib
import json
import os
import shutil

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import punstats
from punstats.model.errors import OptionError
from punstats.present import hits as shown
from punstats.present.labels import LINE_CHARS

A = ("def f(x, y, é):\n"
     "    g(x=x, é=é, y=1)\n"
     "\n"
     "\n"
     "h(\n"
     "    y=y,\n"
     ")\n"
     "s = '\x1b[31m'; k(s=s)\n")
B = "k(w=w)\nif 1:\n\tk(v=v)\n"
FINALLY = "def fin():\n    try:\n        pass\n    finally:\n        return 1\n"


def scan(root, out, **options):
    punstats.scan(str(root), output=str(out), jobs=1, **options)
    return str(out)


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "src"
    (root / "tests").mkdir(parents=True)
    (root / "a.py").write_text(A, encoding="utf-8")
    (root / "tests" / "test_b.py").write_text(B)
    (root / "c.py").write_text(FINALLY)
    return root, scan(root, tmp_path / "out")


def punned(root):
    """(path, line, column) of every f(x=x) under ``root`` by a plain walk: columns 1-based characters."""
    found = []
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8") as handle:
                text = handle.read()
            lines = text.splitlines()
            for node in ast.walk(ast.parse(text)):
                if isinstance(node, ast.keyword) and isinstance(node.value, ast.Name) and node.value.id == node.arg:
                    column = len(lines[node.lineno - 1].encode("utf-8")[:node.col_offset].decode("utf-8")) + 1
                    found.append((os.path.relpath(path, root).replace(os.sep, "/"), node.lineno, column))
    return sorted(found)


def test_places_are_those_of_a_plain_walk_sorted_one_based_in_characters(tree):
    root, out = tree
    found = shown.hits_of(out)
    assert found.kind == "call"
    assert [(h.path, h.line, h.column) for h in found.hits] == punned(root)
    assert ("a.py", 2, 12) in [(h.path, h.line, h.column) for h in found.hits]  # é=é: characters, not bytes
    assert shown.text_lines(found.hits)[:2] == ["a.py:2:7:     g(x=x, é=é, y=1)", "a.py:2:12:     g(x=x, é=é, y=1)"]


def test_a_line_is_read_from_the_file_escaped_for_a_terminal_tabs_expanded(tree):
    _, out = tree
    lines = shown.text_lines(shown.hits_of(out).hits)
    assert "a.py:8:16: s = '\\x1b[31m'; k(s=s)" in lines
    assert "tests/test_b.py:3:4:         k(v=v)" in lines
    assert not any("\x1b" in line for line in lines)


def test_hits_in_or_outside_tests(tree):
    _, out = tree
    every = shown.hits_of(out).hits
    outside, inside = shown.hits_of(out, tests=False).hits, shown.hits_of(out, tests=True).hits
    assert [h.path for h in inside] == ["tests/test_b.py"] * 2 and not any(h.in_test for h in outside)
    assert sorted(outside + inside, key=every.index) == list(every)


def test_the_stored_value_stands_in_when_the_file_changed_or_is_gone(tree):
    root, out = tree
    (root / "a.py").write_text(A.replace("g(x=x", "g(x=x "), encoding="utf-8")  # same lines, other bytes
    lines = shown.text_lines(shown.hits_of(out).hits)
    assert lines[0] == "a.py:2:7: x" and "tests/test_b.py:1:3: k(w=w)" in lines
    assert [h.source_line for h in shown.hits_of(out).hits if h.path == "a.py"] == [None] * 4
    (root / "tests" / "test_b.py").unlink()
    assert "tests/test_b.py:1:3: w" in shown.text_lines(shown.hits_of(out).hits)
    shutil.rmtree(root)
    assert all(h.source_line is None for h in shown.hits_of(out).hits)


def _repath(out, old, new, sha256):
    """The stored tables with file ``old`` called ``new`` (its sha256 ``sha256``), as a crafted scan could."""
    for name in ("occurrences.parquet", "files.parquet"):
        path = os.path.join(out, name)
        table = pq.read_table(path)
        paths = [new if p == old else p for p in table.column("path").to_pylist()]
        table = table.set_column(table.schema.get_field_index("path"), "path", pa.array(paths, pa.string()))
        if name == "files.parquet":
            shas = [sha256 if p == new else s for p, s in zip(paths, table.column("sha256").to_pylist())]
            table = table.set_column(table.schema.get_field_index("sha256"), "sha256", pa.array(shas, pa.string()))
        pq.write_table(table, path)


@pytest.mark.parametrize("escape", ["../secret.py", "link.py", "tests/../../secret.py"])
def test_a_path_that_leaves_the_root_is_never_read(tree, escape):
    root, out = tree
    secret = "SECRET\n" * 10  # what a.py's rows would show if its path were followed out of the root
    (root.parent / "secret.py").write_text(secret)
    (root / "link.py").symlink_to(root.parent / "secret.py")
    _repath(out, "a.py", escape, hashlib.sha256(secret.encode()).hexdigest())
    lines = shown.text_lines(shown.hits_of(out).hits)
    assert not any("SECRET" in line for line in lines)
    assert [line for line in lines if not line.startswith("tests/test_b.py")] == [
        "%s:2:7: x" % escape, "%s:2:12: é" % escape, "%s:6:5: y" % escape, "%s:8:16: s" % escape]


def test_a_link_that_stays_under_the_root_is_read(tree):
    root, out = tree
    (root / "real").mkdir()
    (root / "real" / "a.py").write_text(A, encoding="utf-8")
    (root / "alias.py").symlink_to(root / "real" / "a.py")
    _repath(out, "a.py", "alias.py", hashlib.sha256(A.encode()).hexdigest())
    assert shown.text_lines(shown.hits_of(out).hits)[0] == "alias.py:2:7:     g(x=x, é=é, y=1)"


def test_the_default_kind_is_the_one_user_pattern_else_call(tmp_path):
    root = tmp_path / "src"
    root.mkdir()
    (root / "m.py").write_text(FINALLY + "f(x=x)\n")
    one = scan(root, tmp_path / "one", patterns=["punstats.patterns.return_in_finally"])
    assert shown.hits_of(one).kind == "return_in_finally"
    assert shown.text_lines(shown.hits_of(one).hits) == ["m.py:5:9:         return 1"]
    two = scan(root, tmp_path / "two", patterns=["punstats.patterns.return_in_finally",
                                                 "punstats.patterns.bare_except"])
    assert shown.hits_of(two).kind == "call" and shown.hits_of(two, "bare_except").hits == ()


def test_an_unknown_kind_or_a_count_is_one_line_naming_the_kinds_it_can_show(tree):
    _, out = tree
    with pytest.raises(OptionError) as raised:
        shown.hits_of(out, "atribute")
    assert str(raised.value) == ("unknown kind 'atribute' (did you mean attribute?); %s holds hits of call, "
                                 "attribute, near_miss, dict_literal, class" % out)
    with pytest.raises(OptionError, match=r"^calls_mixed is a count, not stored as occurrences"):
        shown.hits_of(out, "calls_mixed")
    with pytest.raises(OptionError, match=r"^unknown kind 'zzz'; "):
        shown.hits_of(out, "zzz")


def test_json_lines_parse_and_hold_every_field(tree):
    _, out = tree
    found = shown.hits_of(out).hits
    objects = [json.loads(line) for line in shown.json_lines(found)]
    first = objects[0]
    assert first == {"path": "a.py", "line": 2, "column": 7, "end_line": 2, "end_column": 10, "kind": "call",
                     "name": "x", "value": "x", "in_test": False, "cell": None,
                     "source_line": "    g(x=x, é=é, y=1)"}
    assert [o["in_test"] for o in objects] == [h.in_test for h in found]
    assert all(line.isascii() for line in shown.json_lines(found))


def test_a_long_line_is_shown_around_its_hit():
    line = "a" * 1000 + "f(x=x)" + "b" * 1000
    text = shown.around(line, 1000)
    assert text.startswith("...") and text.endswith("...") and "f(x=x)" in text
    assert len(text) == LINE_CHARS + 6
    assert shown.around("short", 2) == "short" and shown.around(line, 0).startswith("aaa")


def test_a_notebooks_hits_name_their_cell_as_ruff_does(tmp_path):
    from test_extract_notebook import notebook
    root = tmp_path / "src"
    root.mkdir()
    (root / "n.ipynb").write_bytes(notebook(("markdown", "# N"), "%matplotlib inline\nimport os\n\ng(y=y)\n",
                                            "h(\n    z=z)\n"))
    out = scan(root, tmp_path / "out", extensions=[".ipynb"])
    found = shown.hits_of(out).hits
    assert [(h.cell, h.line, h.column) for h in found] == [(2, 4, 3), (3, 2, 5)]
    assert shown.text_lines(found) == ["n.ipynb:cell 2:4:3: g(y=y)", "n.ipynb:cell 3:2:5:     z=z)"]
    assert [json.loads(line)["cell"] for line in shown.json_lines(found)] == [2, 3]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    from fakerun import make_run
    directory, _ = make_run(tmp_path_factory.mktemp("run"), "--no-figure")
    return directory


def test_a_runs_hits_are_under_their_release_in_rank_order_with_their_value(run_dir):
    from punstats.store.ecosystem import read_run
    stored = read_run(run_dir)
    found = shown.hits_of(run_dir)
    assert found.kind == "try_finally"  # the run's one pattern
    lines = shown.text_lines(found.hits)
    assert lines[:4] == ["alpha-1.0/alpha/core.py:7:5: try: pass finally: return 1",
                         "alpha-1.0/tests/test_core.py:6:5: try: pass finally: return 1",
                         "alpha-1.0/tests/test_core.py:11:5: try: pass finally: return 1",
                         "iota-4.0/iota/b.py:5:5: try: pass finally: return 1"]
    calls = shown.hits_of(run_dir, "call").hits
    scanned = {r["project"]: r for r in stored.records if r["status"] == "scanned"}
    assert len(calls) == sum(r["summary"]["punnable"] for r in scanned.values())
    assert [h.rank for h in calls] == sorted(h.rank for h in calls)
    assert {h.project for h in calls} == {p for p, r in scanned.items() if r["summary"]["punnable"]}
    assert all(h.source_line is None and h.release == scanned[h.project]["version"] for h in calls)
    first = json.loads(shown.json_lines(calls)[0])
    assert (first["project"], first["rank"], first["release"], first["file"], first["path"]) == (
        "alpha", 1, "1.0", "alpha-1.0.tar.gz", "alpha/core.py")
    outside = shown.hits_of(run_dir, "call", tests=False).hits
    assert len(outside) == sum(r["measures"]["nontest"]["punnable"] for r in scanned.values())
