"""Which kind an output is about (``analysis.asked``): one rule for the default of ``--kind`` (the one
user pattern, else ``call``), the kinds each output may name, and the one-line error (with the nearest
name) for any other; every command decides it here, so a count with a unit (``calls_mixed``) is a subject
of the console summary as it is of ``table`` and ``plot``."""
import ast
import os
import re

import pytest

import punstats
from punstats.analysis import asked
from punstats.cli import main
from punstats.model.errors import OptionError
from punstats.model.kinds import Kind
from punstats.patterns.built_in import KINDS

PACKAGE = os.path.dirname(punstats.__file__)


def user(name):
    return Kind(name, name, "lines", occurrence=True, source="mine.py")


def test_the_default_is_the_one_user_pattern_else_call():
    assert asked.default_kind(KINDS) == "call"
    assert asked.default_kind(KINDS.with_kinds([user("mine")])) == "mine"
    assert asked.default_kind(KINDS.with_kinds([user("mine"), user("other")])) == "call"
    assert asked.subject(KINDS.with_kinds([user("mine")])).name == "mine"
    assert asked.occurrence_kind(KINDS.with_kinds([user("mine")]), None, "the scan") == "mine"


def test_the_default_rule_is_written_once():
    """No other module of the package works out the default itself (``registry.user[0]`` when there is one)."""
    written = []
    for directory, _, names in os.walk(PACKAGE):
        for name in names:
            if name.endswith(".py"):
                with open(os.path.join(directory, name), encoding="utf-8") as handle:
                    if re.search(r"\.user\) == 1|user\[0\]", handle.read()):
                        written.append(os.path.relpath(os.path.join(directory, name), PACKAGE))
    assert written == [os.path.join("analysis", "asked.py")]


@pytest.mark.parametrize("choose, name, message", [
    (lambda r, n: asked.subject(r, n), "mien", r"unknown kind 'mien' \(did you mean mine\?\); choose from call, "),
    (lambda r, n: asked.subject(r, n), "max_call_punnable", "max_call_punnable is a count without a unit"),
    (lambda r, n: asked.occurrence_kind(r, n, "d"), "calls_mixed", "calls_mixed is a count, not stored as "
                                                                   "occurrences .*; d holds hits of call, "),
    (lambda r, n: asked.occurrence_kind(r, n, "d"), "near_mis", r"did you mean near_miss\?"),
])
def test_a_kind_that_cannot_be_shown_is_one_line_naming_the_choices(choose, name, message):
    with pytest.raises(OptionError, match=message) as caught:
        choose(KINDS.with_kinds([user("mine")]), name)
    assert "\n" not in str(caught.value)


def test_the_console_summary_is_about_any_kind_with_a_unit(tmp_path, capsys):
    """``scan --kind calls_mixed`` was refused ("not stored as occurrences"), while ``table --kind
    calls_mixed`` showed it: the summary is about a count with a unit; a count has no hits to list."""
    (tmp_path / "a.py").write_text("f(1, k=2)\ng(x=x)\n")
    out = tmp_path / "out"
    assert main(["scan", str(tmp_path / "a.py"), "-o", str(out), "-q", "--kind", "calls_mixed"]) == 0
    printed = capsys.readouterr().out
    assert "kind           calls_mixed: calls with both" in printed
    assert re.search(r"matches +1 +\(50\.00% of calls\)", printed)
    assert "see them" not in printed  # a count without places
    assert main(["scan", str(tmp_path / "a.py"), "--no-save", "-q", "--kind", "calls_no_arguments"]) == 0
    assert re.search(r"matches +0 +\(0\.00% of calls\)", capsys.readouterr().out)  # none: not 0.0000%
    assert main(["table", str(out), "--kind", "calls_mixed", "--format", "csv"]) == 0
    assert "calls_mixed,1,2,50.0," in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["scan", "{src}", "--no-save", "--kind", "max_call_punnable"], "max_call_punnable is a count without a unit"),
    (["scan", "{src}", "--no-save", "--kind", "cal"], r"unknown kind 'cal' \(did you mean call\?\)"),
    (["hits", "{out}", "--kind", "calls_mixed"], "calls_mixed is a count, not stored as occurrences"),
    (["plot", "{out}", "--kind", "clas", "-o", "{figs}"], r"unknown kind 'clas' \(did you mean class\?\)"),
    (["report", "{out}", "--kind", "max_call_punnable", "--no-figures"], "is a count without a unit"),
])
def test_every_command_refuses_a_kind_it_cannot_show_in_one_line(tmp_path, capsys, argv, message):
    (tmp_path / "a.py").write_text("g(x=x)\n")
    out = tmp_path / "out"
    assert main(["scan", str(tmp_path / "a.py"), "-o", str(out), "-q"]) == 0
    capsys.readouterr()
    words = {"src": str(tmp_path / "a.py"), "out": str(out), "figs": str(tmp_path / "figs")}
    assert main([arg.format(**words) for arg in argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and re.search(message, captured.err)
    assert not (tmp_path / "figs").exists()  # refused before any figure


def test_the_module_imports_only_the_standard_library_and_the_model():
    with open(os.path.join(PACKAGE, "analysis", "asked.py"), encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert {m for m in imported if m.startswith("punstats")} <= {"punstats.model.errors", "punstats.model.kinds"}
