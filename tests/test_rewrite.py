"""Tests of punstats.rewrite: pun, expand, diffs and whole trees (re-wrapping: test_rewrite_rewrap.py)."""
from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import sysconfig
from concurrent.futures import ProcessPoolExecutor

import pytest

from punstats import rewrite
from punstats.cli import main
from punstats.rewrite.diff import unified_diff
from punstats.rewrite.source import (
    FILE_ROUND_TRIP,
    FILE_SYNTAX,
    SKIP_CLASS,
    SKIP_COMMENT,
    SKIP_FSTRING,
)
from punstats.rewrite.transform import expand, expand_text, pun, pun_text


def punned(source: str, **kwargs) -> str:
    result = pun(source.encode("utf-8"), **kwargs)
    assert not result.error, result.detail
    return result.new.decode("utf-8")


def assert_round_trip(source: bytes) -> None:
    result = pun(source)
    assert not result.error, result.detail
    back = expand(result.new)
    assert not back.error, back.detail
    assert ast.dump(ast.parse(back.new)) == ast.dump(ast.parse(source))


# ---------------------------------------------------------------- contexts

CONTEXTS = [
    ("plain", "f(x=x)\n", "f(x=)\n"),
    ("several", "f(a, x=x, y=y, z=1, **kw)\n", "f(a, x=, y=, z=1, **kw)\n"),
    ("not punnable", "f(x=y, y=x.y, z=z(), w=w[0], v=1)\n", None),
    ("nested on one line", "f(g(x=x), h(y=y, z=k(z=z)), x=x)\n", "f(g(x=), h(y=, z=k(z=)), x=)\n"),
    ("decorator", "@deco(name=name)\ndef f():\n    pass\n", "@deco(name=)\ndef f():\n    pass\n"),
    ("lambda body", "g = lambda x: f(x=x)\n", "g = lambda x: f(x=)\n"),
    ("lambda default untouched", "g = lambda x=x: x\n", None),
    ("comprehension", "[f(k=k) for k in ks if p(k=k)]\n", "[f(k=) for k in ks if p(k=)]\n"),
    ("dict and generator", "{k: f(k=k) for k in ks}; (f(k=k) for k in ks)\n",
     "{k: f(k=) for k in ks}; (f(k=) for k in ks)\n"),
    ("default value", "def f(a=g(a=a)):\n    pass\n", "def f(a=g(a=)):\n    pass\n"),
    ("annotation", "def f(a: g(t=t)) -> h(r=r):\n    pass\n", "def f(a: g(t=)) -> h(r=):\n    pass\n"),
    ("class body", "class A:\n    x = f(x=x)\n    def m(self):\n        return g(self=self)\n",
     "class A:\n    x = f(x=)\n    def m(self):\n        return g(self=)\n"),
    ("class base call", "class A(make(base=base)):\n    pass\n", "class A(make(base=)):\n    pass\n"),
    ("multi-line", "f(\n    x=x,\n    y=y,\n)\n", "f(\n    x=,\n    y=,\n)\n"),
    ("spaces and parentheses", "f(x = x, y=(y), z=((z)))\n", "f(x=, y=, z=)\n"),
    ("method chain", "a.b(c=c).d(e=e)[0].f(g=g)\n", "a.b(c=).d(e=)[0].f(g=)\n"),
    ("walrus and comparisons untouched", "f(x == x, (y := y))\n", None),
]


@pytest.mark.parametrize("name,source,expected", CONTEXTS, ids=[c[0] for c in CONTEXTS])
def test_contexts(name, source, expected):
    assert punned(source) == (source if expected is None else expected)
    assert_round_trip(source.encode("utf-8"))


def test_edits_report_positions():
    result = pun(b"y = 1\nf(a, x=x)\n")
    (edit,) = result.edits
    assert (edit.line, edit.col, edit.name, edit.old, edit.new) == (2, 5, "x", "x=x", "x=")


def test_class_keywords_are_skipped_and_reported():
    source = b"class A(Base, metaclass=metaclass, x=f(y=y)):\n    pass\n"
    result = pun(source)
    assert result.new == b"class A(Base, metaclass=metaclass, x=f(y=)):\n    pass\n"
    assert [(s.name, s.reason, s.line, s.col) for s in result.skipped] == [("metaclass", SKIP_CLASS, 1, 14)]


def test_fstrings_are_skipped_and_reported():
    source = b'f(x=x, s=f"{g(y=y)!r:>{h(w=w)}}")\nprint(f"{x=}")\n'
    result = pun(source)
    assert result.new == b'f(x=, s=f"{g(y=y)!r:>{h(w=w)}}")\nprint(f"{x=}")\n'
    assert sorted((s.name, s.reason) for s in result.skipped) == [("w", SKIP_FSTRING), ("y", SKIP_FSTRING)]


def test_comment_inside_a_keyword_is_skipped():
    source = b"f(x=(  # why\n    x))\n"
    result = pun(source)
    assert result.new == source
    assert [(s.name, s.reason) for s in result.skipped] == [("x", SKIP_COMMENT)]


def test_comments_quotes_and_layout_stay():
    source = "f( 'a',  \"b\", x=x ,  # keep\n  z=r'q',\ty=y)  # end\n"
    assert punned(source) == "f( 'a',  \"b\", x= ,  # keep\n  z=r'q',\ty=)  # end\n"


def test_multibyte_characters_before_an_edit():
    source = "s = f('Grüße, 日本語 😀', été=été, x=x)  # ü\nt = 'ä'; g(y=y)\n"
    expected = "s = f('Grüße, 日本語 😀', été=, x=)  # ü\nt = 'ä'; g(y=)\n"
    assert punned(source) == expected
    result = pun(source.encode("utf-8"))
    first, second = source.split("\n")[:2]
    assert [(e.line, e.col) for e in result.edits] == [  # character columns
        (1, first.index("été=été")), (1, first.index("x=x")), (2, second.index("y=y"))]
    assert_round_trip(source.encode("utf-8"))


def test_crlf_and_lone_cr_line_endings():
    source = b"a = 1\r\nf(\r\n    x=x,\r\n    y=y,\r\n)\r\ng(z=z)\r\n"
    result = pun(source)
    assert result.new == b"a = 1\r\nf(\r\n    x=,\r\n    y=,\r\n)\r\ng(z=)\r\n"
    assert expand(result.new).new == source
    joined = pun(source, rewrap=True)
    assert joined.new == b"a = 1\r\nf(x=, y=)\r\ng(z=)\r\n"
    assert joined.lines_saved == 3
    assert pun(b"a = 1\rf(x=x)\rg(y=y)\r").new == b"a = 1\rf(x=)\rg(y=)\r"


def test_latin1_coding_cookie():
    source = "# -*- coding: latin-1 -*-\ns = 'café'; f(naïve=naïve, x=x)\n".encode("latin-1")
    result = pun(source)
    assert result.encoding == "iso-8859-1"
    assert result.new == "# -*- coding: latin-1 -*-\ns = 'café'; f(naïve=, x=)\n".encode("latin-1")
    assert expand(result.new).new == source


def test_utf8_bom_is_kept():
    source = "f(x=x)  # é\n".encode("utf-8-sig")
    result = pun(source)
    assert result.new == "f(x=)  # é\n".encode("utf-8-sig") and result.new.startswith(b"\xef\xbb\xbff(")
    assert expand(result.new).new == source


def test_no_final_newline():
    assert pun(b"f(x=x)").new == b"f(x=)"


def test_files_that_do_not_parse_are_untouched():
    for source, error in ((b"print 'py2'\nf(x=x)\n", FILE_SYNTAX), (b"f(x=x)\0", rewrite.FILE_NULL),
                          (b"# coding: nonsense\nf(x=x)\n", rewrite.FILE_DECODE)):
        result = pun(source)
        assert (result.error, result.new, result.changed) == (error, source, False)


def test_round_trip_failure_leaves_the_file_untouched(monkeypatch):
    monkeypatch.setattr(rewrite.transform, "expand_text", lambda text: (text.replace("x=", "x=1"), [1]))
    result = pun(b"f(x=x)\n")
    assert result.error == FILE_ROUND_TRIP
    assert result.new == b"f(x=x)\n"
    assert not result.changed


# ---------------------------------------------------------------- expand


@pytest.mark.parametrize("source", [
    "f(x=1, y=g(z=2))\n",
    "g = lambda x=1, y=2: f(x, y=y)\n",
    "def f(a=1, *, b=2):\n    return a == b\n",
    "x = y = 3\nd[k] = v\n",
    "f(x == y, z != w, (q := 1), a<=b, c>=d)\n",
    "print(f'{x=}', f'{y = }')\n",
    "s = 'f(x=, y=)'  # f(x=)\n",
    "f(**{'x': 1}, *args)\n",
])
def test_expand_leaves_ordinary_code_alone(source):
    text, edits = expand_text(source)
    assert (text, edits) == (source, [])


def test_expand_is_the_inverse():
    punned_text = "f(x=, y=1, z=)\ng(a, b=,\n  c=\n)\nh(i=)(j=)\n@d(k=)\nclass A(metaclass=):\n    pass\n"
    text, edits = expand_text(punned_text)
    assert text == ("f(x=x, y=1, z=z)\ng(a, b=b,\n  c=c\n)\nh(i=i)(j=j)\n@d(k=k)\n"
                    "class A(metaclass=metaclass):\n    pass\n")
    assert [e.name for e in edits] == ["x", "z", "b", "c", "i", "j", "k", "metaclass"]


def test_expand_checks_its_result():
    result = expand(b"f(x=, y=)\n")
    assert result.new == b"f(x=x, y=y)\n" and not result.error
    broken = expand(b"f(x=, y=\n")  # does not tokenize
    assert broken.error == FILE_SYNTAX and broken.new == b"f(x=, y=\n"
    kept = expand(b"f(x=)(\n")
    assert kept.error and not kept.changed


def test_pun_then_expand_gives_the_bytes_back():
    source = "import os\n\ndef f(path, mode):\n    return open(path, mode=mode, encoding='é')  # c\n"
    data = source.encode("utf-8")
    assert expand(pun(data).new).new == data


# ---------------------------------------------------------------- the standard library


def _stdlib_files():
    root = sysconfig.get_path("stdlib")
    out = []
    for base, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in ("site-packages", "dist-packages", "__pycache__"))
        out.extend(os.path.join(base, name) for name in sorted(files) if name.endswith(".py"))
    return out


def _stdlib_round_trip(path):
    with open(path, "rb") as f:
        data = f.read()
    decoded = rewrite.source.decode_bytes(data)
    if decoded.error:
        return path, "skipped", 0
    try:
        original = ast.parse(decoded.text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return path, "skipped", 0
    new, edits, _ = pun_text(decoded.text)
    if not edits:
        return path, "unchanged", 0
    back, expansions = expand_text(new)
    if len(expansions) != len(edits):
        return path, "expand found %d of %d" % (len(expansions), len(edits)), len(edits)
    if back != decoded.text and ast.dump(ast.parse(back)) != ast.dump(original):
        return path, "different tree", len(edits)
    return path, "ok", len(edits)


@pytest.mark.slow  # the whole standard library
def test_standard_library_round_trip():
    files = _stdlib_files()
    assert len(files) > 500
    with ProcessPoolExecutor(max(2, os.cpu_count() or 1)) as pool:
        results = list(pool.map(_stdlib_round_trip, files, chunksize=16))
    failures = [r for r in results if r[1] not in ("ok", "unchanged", "skipped")]
    assert failures == []
    assert sum(r[2] for r in results) > 1000  # the standard library has thousands of x=x
    assert sum(1 for r in results if r[1] == "skipped") < 50


# ---------------------------------------------------------------- command line and diffs


SAMPLE = {
    "pkg/a.py": b"def f(x, y):\n    return g(\n        x=x,\n        y=y,\n    )\n",
    "pkg/b.py": b"# -*- coding: latin-1 -*-\ns = '\xe9'\nh(s=s)\r\n",
    "pkg/c.py": b"nothing = 1\n",
    "pkg/d.py": b"f(z=z)",  # no final newline
    "pkg/bad.py": b"print 'old'\n",
}


def _make_tree(root):
    for rel, data in SAMPLE.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
@pytest.mark.parametrize("rewrap", [False, True])
def test_git_apply_accepts_the_diff(tmp_path, rewrap):
    _make_tree(tmp_path)
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", HOME=str(tmp_path))
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True, env=env)
    subprocess.run(["git", "add", "."], cwd=tmp_path, check=True, env=env)
    command = [sys.executable, "-m", "punstats", "rewrite", "pkg", "--diff"] + (["--rewrap"] if rewrap else [])
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, check=True)
    assert done.stdout.startswith(b"diff --git a/pkg/a.py b/pkg/a.py\n")
    assert b"\\ No newline at end of file" in done.stdout
    assert b"lines" in done.stderr and b"untouched  pkg/bad.py" in done.stderr
    results = rewrite.rewrite_tree(str(tmp_path / "pkg"), rewrap=rewrap)
    patch = tmp_path / "punning.diff"
    patch.write_bytes(done.stdout)
    subprocess.run(["git", "apply", "--check", str(patch)], cwd=tmp_path, check=True, env=env)
    subprocess.run(["git", "apply", str(patch)], cwd=tmp_path, check=True, env=env)
    expected = {rel: pun(data, rewrap=rewrap).new for rel, data in SAMPLE.items()}
    for rel, data in expected.items():
        assert (tmp_path / rel).read_bytes() == data
    numstat = subprocess.run(["git", "diff", "--numstat"], cwd=tmp_path, capture_output=True, check=True,
                             env=env).stdout.decode()
    git_saved = sum(int(d) - int(a) for a, d, _ in (line.split("\t") for line in numstat.splitlines()))
    assert rewrite.summarize(results).lines_saved == git_saved == (3 if rewrap else 0)


def test_cli_write_and_expand(tmp_path, monkeypatch, capsys):
    _make_tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["rewrite", "pkg", "--write", "--rewrap", "-j", "1"]) == 0
    out = capsys.readouterr().out
    assert "lines      6 removed, 3 added, 3 saved" in out
    assert "files      5   changed 3" in out and "untouched  pkg/bad.py: syntax_error" in out
    assert (tmp_path / "pkg/a.py").read_bytes() == b"def f(x, y):\n    return g(x=, y=)\n"
    assert (tmp_path / "pkg/b.py").read_bytes() == b"# -*- coding: latin-1 -*-\ns = '\xe9'\nh(s=)\r\n"
    assert main(["expand", "pkg", "--write", "-j", "1"]) == 0
    assert (tmp_path / "pkg/a.py").read_bytes() == b"def f(x, y):\n    return g(x=x, y=y)\n"
    for rel in ("pkg/b.py", "pkg/c.py", "pkg/d.py", "pkg/bad.py"):
        assert (tmp_path / rel).read_bytes() == SAMPLE[rel]


def test_cli_usage_errors(tmp_path, capsys):
    assert main(["rewrite", str(tmp_path / "missing")]) == 2
    assert main(["rewrite", str(tmp_path), "--diff", "--write"]) == 2
    assert main(["expand", str(tmp_path), "--rewrap"]) == 2
    err = capsys.readouterr().err
    assert err.count("punstats: error:") == 3 and all(len(line) < 200 for line in err.splitlines())


def test_a_file_named_alone_must_be_python_as_scan_says(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("notes.txt", "nb.ipynb", "stub.pyi", "m.py"):
        (tmp_path / name).write_text("f(x=x)\n")
    for command in ("rewrite", "expand"):
        assert main([command, "notes.txt", "--write"]) == 2
    assert main(["scan", "notes.txt", "--no-save"]) == 2  # scan's words, with its own hint
    err = capsys.readouterr().err.splitlines()
    assert err[:2] == ["punstats: error: notes.txt is not a Python file (.py, .pyw, .pyi)"] * 2
    assert err[2].startswith("punstats: error: notes.txt is not a Python file (.py, .pyw, .pyi, .ipynb); ")
    assert main(["rewrite", "nb.ipynb", "--write"]) == 2
    assert capsys.readouterr().err == ("punstats: error: nb.ipynb is not a Python file (.py, .pyw, .pyi); a "
                                       "notebook's cells are not rewritten\n")
    assert (tmp_path / "notes.txt").read_text() == (tmp_path / "nb.ipynb").read_text() == "f(x=x)\n"  # untouched
    assert main(["rewrite", "stub.pyi", "--write"]) == 0 and main(["rewrite", "m.py", "--write"]) == 0
    assert (tmp_path / "stub.pyi").read_text() == (tmp_path / "m.py").read_text() == "f(x=)\n"
    assert main(["rewrite", ".", "--diff"]) == 0  # a directory: its .py files, the others left alone
    assert rewrite.rewrite_tree("notes.txt", extensions=(".txt",))[0].edits  # asked for, in Python


def test_unified_diff_format():
    result = pun(b"a\nf(x=x)\nb\n", "dir/m.py")
    assert unified_diff(result) == (b"diff --git a/dir/m.py b/dir/m.py\n--- a/dir/m.py\n+++ b/dir/m.py\n"
                                    b"@@ -1,3 +1,3 @@\n a\n-f(x=x)\n+f(x=)\n b\n")
    assert unified_diff(pun(b"nothing\n")) == b""
# ---------------------------------------------------------------- the prefix spelling on the standard library


def _stdlib_prefix_round_trip(path):
    with open(path, "rb") as f:
        data = f.read()
    result = pun(data, path, rewrap=True, style="prefix")
    if result.error in (FILE_SYNTAX, "decode_error", "null_bytes"):
        return path, "skipped", 0
    if result.error:
        return path, result.error + ": " + result.detail, 0
    if not result.edits:
        return path, "unchanged", 0
    back = expand(result.new, path)
    if back.error:
        return path, "expand: " + back.error, len(result.edits)
    if not rewrite.same_tree(ast.parse(back.new), ast.parse(data)):
        return path, "different tree", len(result.edits)
    compact = all(e.old == e.name + "=" + e.name for e in result.edits) and not result.joins
    if compact and expand(rewrite.pun(data, path, style="prefix").new).new != data:
        return path, "bytes differ", len(result.edits)
    return path, "ok", len(result.edits)


@pytest.mark.slow
def test_standard_library_prefix_round_trip_with_rewrap():
    """``expand(pun(src, style="prefix", rewrap=True))`` parses to ``src``'s tree for every file
    of the standard library, and gives ``src``'s very bytes back where nothing was re-spelled."""
    files = _stdlib_files()
    with ProcessPoolExecutor(max(2, os.cpu_count() or 1)) as pool:
        results = list(pool.map(_stdlib_prefix_round_trip, files, chunksize=16))
    failures = [r for r in results if r[1] not in ("ok", "unchanged", "skipped")]
    assert failures == []
    assert sum(r[2] for r in results) > 1000
