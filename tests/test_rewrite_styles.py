"""The two spellings (``style``: ``f(x=)`` and ``f(=x)``) and ``delimited_only``, in Python and
on the command line."""
from __future__ import annotations

import pytest
from test_rewrite import SAMPLE, _make_tree

from punstats import rewrite
from punstats.cli import main
from punstats.rewrite.source import SKIP_COMMENT


def test_prefix_style_round_trip():
    source = b"f(a=a, b = b, c=1)\ng(x=x)(y=y)\n"
    result = rewrite.pun(source, style="prefix")
    assert result.new == b"f(=a, =b, c=1)\ng(=x)(=y)\n"
    assert rewrite.expand(result.new).new == b"f(a=a, b=b, c=1)\ng(x=x)(y=y)\n"


def test_expand_refuses_both_spellings_in_one_file():
    assert rewrite.expand(b"f(x=, =y)\n").error == rewrite.FILE_ROUND_TRIP


def test_delimited_only_skips_what_the_author_skipped():
    source = "f(\n    a=1,  # note\n    x=x,\n    y=y,\n    z=(z),\n)\n"
    result = rewrite.pun(source.encode(), delimited_only=True)
    assert result.new.decode() == "f(\n    a=1,  # note\n    x=x,\n    y=,\n    z=(z),\n)\n"
    assert [s.name for s in result.skipped] == ["x", "z"]


def test_prefix_style_keeps_a_continuation_before_the_equals_sign_as_it_was():
    source = b"f(x \\\n  = x, y=y)\n"
    result = rewrite.pun(source, style="prefix")
    assert result.new == b"f(x \\\n  = x, =y)\n"
    assert [(s.name, s.reason) for s in result.skipped] == [("x", SKIP_COMMENT)]
    assert rewrite.pun(source).new == b"f(x \\\n  =, y=)\n"


def test_unknown_style_is_refused():
    with pytest.raises(ValueError, match="style must be one of postfix, prefix, not 'infix'"):
        rewrite.pun(b"f(x=x)\n", style="infix")


def test_cli_rewrite_style_prefix_and_expand(tmp_path, monkeypatch, capsys):
    _make_tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert main(["rewrite", "pkg", "--write", "--rewrap", "--style", "prefix", "-j", "1"]) == 0
    assert (tmp_path / "pkg/a.py").read_bytes() == b"def f(x, y):\n    return g(=x, =y)\n"
    assert main(["expand", "pkg", "--write", "-j", "1"]) == 0
    assert (tmp_path / "pkg/a.py").read_bytes() == b"def f(x, y):\n    return g(x=x, y=y)\n"
    for rel in ("pkg/b.py", "pkg/c.py", "pkg/d.py", "pkg/bad.py"):
        assert (tmp_path / rel).read_bytes() == SAMPLE[rel]
    capsys.readouterr()
    assert main(["rewrite", "pkg", "--style", "infix"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid choice: 'infix'" in err


def test_cli_delimited_only(tmp_path, monkeypatch, capsys):
    (tmp_path / "m.py").write_bytes(b"f(\n    a=1,  # note\n    x=x,\n    y=y,\n)\n")
    monkeypatch.chdir(tmp_path)
    assert main(["rewrite", "m.py", "--write", "--delimited-only", "-j", "1"]) == 0
    assert (tmp_path / "m.py").read_bytes() == b"f(\n    a=1,  # note\n    x=x,\n    y=,\n)\n"
