"""``--pattern`` (``cli/common.py: pattern_options``) end to end: ``scan``, ``corpus``,
``history`` and ``punstats.scan(patterns=...)``, every engine, the cache, and the
README's example as written.
"""
import ast
import json
import os
import re
import sys
import warnings

import pandas as pd
import pytest
from gitrepo import commit, init

import punstats
from punstats.cli import main
from punstats.present.formats import rate_text

README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")

TRIES = '''\
import ast

import punstats


@punstats.pattern("try_finally", label="try with finally", per="Try")
def match(node, parents):
    if not isinstance(node, ast.Try):
        return False
    return bool(node.finalbody)
'''

SOURCE = '''\
def f():
    try:
        pass
    finally:
        return 1


def g(items):
    for item in items:
        try:
            pass
        finally:
            if item:
                break
            continue
    try:
        pass
    finally:
        for other in items:
            break

        def h():
            return 2
'''


def readme_pattern():
    """The code block of the README's "Your own patterns" section, as written there."""
    with open(README, encoding="utf-8") as handle:
        text = handle.read()
    return re.search(r"```python\n(.*?)```", text[text.index("## Your own patterns"):], re.S).group(1)


@pytest.fixture
def fixture_dir(tmp_path):
    """A project with three matches of the README pattern outside tests and three in tests."""
    root = tmp_path / "project"
    (root / "tests").mkdir(parents=True)
    (root / "mod.py").write_text(SOURCE)
    (root / "tests" / "test_mod.py").write_text(SOURCE)
    (root / "plain.py").write_text("try:\n    x = 1\nexcept E:\n    pass\n")
    return root


def scan_json(capsys, *args):
    assert main(["scan", "--json", "--no-save", "-q", *args]) == 0
    [summary] = json.loads(capsys.readouterr().out)
    return summary


def test_the_readme_example_runs_as_written(tmp_path, fixture_dir, capsys):
    plugin = tmp_path / "return_in_finally.py"
    plugin.write_text(readme_pattern())
    summary = scan_json(capsys, str(fixture_dir), "--pattern", str(plugin))
    assert summary["kinds"]["return_in_finally"] == 6
    assert summary["kinds_nontest"]["return_in_finally"] == 3
    assert summary["units"]["lines"] == 2 * SOURCE.count("\n") + 4
    assert summary["units_nontest"]["files"] == 2
    [recorded] = summary["patterns"]
    assert (recorded["name"], recorded["per"], recorded["source"]) == ("return_in_finally", "lines", str(plugin))
    assert summary["rules"]["patterns"] == summary["patterns"]


def test_stored_rows_and_node_units(tmp_path, fixture_dir, capsys):
    plugin = tmp_path / "tries.py"
    plugin.write_text(TRIES)
    out = tmp_path / "out"
    assert main(["scan", "-q", "--no-cache", "-o", str(out), str(fixture_dir), "--pattern", str(plugin)]) == 0
    occurrences = pd.read_parquet(out / "occurrences.parquet")
    rows = occurrences[occurrences["kind"] == "try_finally"]
    assert sorted(zip(rows["path"], rows["line"], rows["name"])) == sorted(
        (path, line, "Try") for path in ("mod.py", "tests/test_mod.py") for line in (2, 10, 16))
    files = pd.read_parquet(out / "files.parquet").set_index("path")
    assert files["nodes_Try"].to_dict() == {"mod.py": 3, "plain.py": 1, "tests/test_mod.py": 3}
    summary = punstats.load(str(out)).summary
    assert (summary["units"]["Try"], summary["units_nontest"]["Try"]) == (7, 4)
    again = punstats.load(str(out)).with_rules("none")
    assert again.summary["kinds_nontest"]["try_finally"] == 6 and again.summary["patterns"] == summary["patterns"]
    assert (again.summary["units"]["Try"], again.summary["units_nontest"]["Try"]) == (7, 7)


def summary_rows(text):
    """The console summary as {label: value} (labels are the left column)."""
    return dict(re.match(r"(\S.*?)\s{2,}(.*)", line).groups() for line in text.splitlines())


def test_the_console_summary_is_about_the_one_pattern_given(tmp_path, fixture_dir, capsys):
    plugin = tmp_path / "return_in_finally.py"
    plugin.write_text(readme_pattern())
    out = tmp_path / "out"
    assert main(["scan", "-q", "-o", str(out), str(fixture_dir), "--pattern", str(plugin)]) == 0
    rows = summary_rows(capsys.readouterr().out)
    summary = punstats.load(str(out)).summary
    hits = pd.read_parquet(out / "occurrences.parquet").query("kind == 'return_in_finally'")
    lines, nontest_lines = summary["units"]["lines"], summary["units_nontest"]["lines"]
    assert rows["pattern"] == "return_in_finally: return/break/continue in finally"
    assert rows["defined by"].startswith("%s (sha256 %s), called on Return, Break, Continue"
                                         % (plugin, summary["patterns"][0]["sha256"][:12]))
    assert rows["matches"] == "%d   (%s per million lines)" % (len(hits), rate_text(1e6 * len(hits) / lines))
    outside = int((~hits["in_test"]).sum())
    assert rows["outside tests"] == "%d   (%s per million lines; test rule: components)" % (
        outside, rate_text(1e6 * outside / nontest_lines))
    per_file = hits["path"].value_counts()
    assert rows["in files"] == "%d   (most: %s)" % (len(per_file), ", ".join(
        "%s %d" % (path, n) for path, n in sorted(per_file.items(), key=lambda item: (-item[1], item[0]))))
    assert rows["see them"] == "punstats hits %s" % out
    assert "punnable f(x=x)" not in rows and rows["also counted"].startswith("f(x=x) 0 (")
    assert main(["scan", "-q", "--no-save", str(fixture_dir), "--pattern", str(plugin), "--kind", "call"]) == 0
    rows = summary_rows(capsys.readouterr().out)
    assert "pattern" not in rows and rows["punnable f(x=x)"].startswith("0   (")
    assert rows["pattern return_in_finally"].startswith("6   (")


def test_a_kind_the_scan_does_not_count_is_refused_before_it_runs(tmp_path, fixture_dir, capsys):
    out = tmp_path / "out"
    assert main(["scan", "-q", "-o", str(out), str(fixture_dir), "--kind", "return_in_finaly"]) == 2
    err = capsys.readouterr().err  # the kinds a summary can be about: every count with a unit
    assert err.startswith("punstats: error: unknown kind 'return_in_finaly'; choose from call, dict_call_punnable, ")
    assert err.endswith(", calls_mixed, calls_all_punnable, var_positional, var_keyword\n") and err.count("\n") == 1
    assert not out.exists()


def test_a_scan_without_patterns_stores_what_it_did(tmp_path, fixture_dir, capsys):
    summary = scan_json(capsys, str(fixture_dir))
    assert summary["patterns"] == [] and "patterns" not in summary["rules"]
    out = tmp_path / "out"
    assert main(["scan", "-q", "-o", str(out), str(fixture_dir)]) == 0
    assert not [c for c in pd.read_parquet(out / "files.parquet").columns if c.startswith("nodes_")]


@pytest.mark.parametrize("name, text, message", [
    ("missing.py", None, "pattern file {dir}/missing.py: no such file"),
    ("syntax.py", "import punstats\ndef (:\n", "pattern file {dir}/syntax.py: line 2: SyntaxError: invalid syntax"),
    ("none.py", "import punstats\n", "{dir}/none.py defines no pattern"),
    ("per.py", TRIES.replace('per="Try"', 'per="Tyr"'), "{dir}/per.py: per='Tyr' is neither a unit"),
    ("one.py", TRIES.replace("def match(node, parents):", "def match(node):"),
     "{dir}/one.py: pattern 'try_finally': its function is called as match(node, parents), but match(node) "
     "takes other arguments"),
    ("on.py", TRIES.replace('per="Try")', 'per="Try", on="Try")'),
     "{dir}/on.py: pattern 'try_finally': on='Try' is not an ast node class or a tuple of them"),
])
def test_bad_patterns_are_one_line_usage_errors(tmp_path, fixture_dir, capsys, name, text, message):
    if text is not None:
        (tmp_path / name).write_text(text)
    out = tmp_path / "out"
    assert main(["scan", "-q", "-o", str(out), str(fixture_dir), "--pattern", str(tmp_path / name)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("punstats: error: " + message.format(dir=tmp_path)) and err.count("\n") == 1
    assert not out.exists()


def test_a_name_clash_is_refused(tmp_path, fixture_dir, capsys):
    (tmp_path / "a.py").write_text(TRIES)
    (tmp_path / "b.py").write_text(TRIES)
    assert main(["scan", "-q", "--no-save", str(fixture_dir), "--pattern", str(tmp_path / "a.py"),
                 "--pattern", str(tmp_path / "b.py")]) == 2
    assert "two patterns are named 'try_finally'" in capsys.readouterr().err


@pytest.mark.parametrize("cache", [False, True])
def test_a_pattern_that_raises_is_said_and_ends_the_scan_with_status_1(tmp_path, fixture_dir, capsys, cache):
    plugin = tmp_path / "bad.py"
    plugin.write_text(TRIES.replace("return bool(node.finalbody)", "return bool(node.finalbody) and 1 / 0"))
    out = tmp_path / "out"
    command = ["scan", "-q", "-o", str(out), str(fixture_dir), "--pattern", str(plugin)] + ["--no-cache"] * (not cache)
    for _ in range(1 + cache):  # with the cache, the second scan is answered from the kept stored scan
        assert main(command) == 1
        captured = capsys.readouterr()
        assert re.fullmatch(r"punstats: error: project: mod\.py:(2|10|16): pattern try_finally: ZeroDivisionError: "
                            r"division by zero \(2 of 3 files failed so: status pattern_error, not counted; fix the "
                            r"pattern and scan again\)\n", captured.err), captured.err
        assert "failed 2 (pattern_error 2)" in captured.out
    files = pd.read_parquet(out / "files.parquet").set_index("path")
    assert list(files["status"]) == ["pattern_error", "ok", "pattern_error"]
    assert files.loc["mod.py", "error"] == "pattern try_finally: ZeroDivisionError: division by zero"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["first_pattern_error"] == {"path": "mod.py", "line": int(files.loc["mod.py", "error_line"]),
                                              "error": files.loc["mod.py", "error"]}
    assert (summary["failed_by_reason"], summary["parsed"], summary["kinds"]["try_finally"]) == (
        {"pattern_error": 2}, 1, 0)


def test_a_corpus_whose_pattern_raises_ends_with_status_1(tmp_path, fixture_dir, capsys):
    plugin = tmp_path / "bad.py"
    plugin.write_text(TRIES.replace("return bool(node.finalbody)", "return bool(node.finalbody) and 1 / 0"))
    corpus = tmp_path / "corpus.toml"
    corpus.write_text('name = "c"\n[[project]]\nname = "p"\npath = "%s"\n' % fixture_dir)
    assert main(["corpus", str(corpus), "-q", "-o", str(tmp_path / "data"), "--pattern", str(plugin)]) == 1
    assert capsys.readouterr().err.startswith("punstats: error: p: mod.py:")
    assert (tmp_path / "data" / "p" / "summary.json").exists()


def test_editing_the_plugin_invalidates_the_cache(tmp_path, fixture_dir, capsys):
    plugin = tmp_path / "tries.py"
    plugin.write_text(TRIES)
    first = scan_json(capsys, str(fixture_dir), "--pattern", str(plugin))
    again = scan_json(capsys, str(fixture_dir), "--pattern", str(plugin))
    assert again["kinds"]["try_finally"] == first["kinds"]["try_finally"] == 6
    assert again["cache"]["extracted"] == 0
    plugin.write_text(TRIES.replace("return bool(node.finalbody)", "return not node.finalbody"))
    edited = scan_json(capsys, str(fixture_dir), "--pattern", str(plugin))
    assert edited["kinds"]["try_finally"] == 1 and edited["cache"]["extracted"] == 3
    assert edited["patterns"][0]["sha256"] != first["patterns"][0]["sha256"]
    plain = scan_json(capsys, str(fixture_dir))
    assert "try_finally" not in plain["kinds"]


def independent_tries(root, paths=None):
    """Try nodes with a finally block in the files under ``root`` that parse (only ``paths``,
    relative to it, when given): os.walk, ast.parse, ast.walk."""
    count = 0
    warnings.simplefilter("ignore")
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            if not name.endswith(".py") or (paths is not None and os.path.relpath(path, root) not in paths):
                continue
            with open(path, "rb") as handle:
                data = handle.read()
            try:
                tree = ast.parse(data)
            except (SyntaxError, ValueError):
                continue
            count += sum(1 for node in ast.walk(tree) if isinstance(node, ast.Try) and node.finalbody)
    return count


def test_process_pool_and_another_interpreter_agree(tmp_path, stdlib_subset_dir):
    plugin = tmp_path / "tries.py"
    plugin.write_text(TRIES)
    counts = []
    for settings in ({"jobs": 1}, {"jobs": 2}, {"jobs": 2, "python": sys.executable}):
        result = punstats.scan(stdlib_subset_dir, patterns=[str(plugin)], **settings)
        counts.append((result.summary["kinds"]["try_finally"], result.summary["units"]["Try"],
                       result.summary["kinds_nontest"]["try_finally"]))
    assert counts[0] == counts[1] == counts[2]
    summary = result.summary  # the built-in rows' new keys agree with the counts summaries had before
    assert summary["kinds_nontest"]["call"] == summary["punnable_nontest"]
    assert (summary["units"]["keywords"], summary["units_nontest"]["keywords"]) == (
        summary["keywords"], summary["keywords_nontest"])
    assert (summary["units"]["files"], summary["units"]["lines"]) == (summary["parsed"], summary["lines"])
    assert counts[0][0] == independent_tries(stdlib_subset_dir) > 10
    assert counts[0][2] < counts[0][0]  # unittest's own tests hold some


def test_a_decorated_function_is_a_pattern_in_the_python_api(tmp_path, fixture_dir):
    @punstats.pattern("api_returns", per="functions")
    def match(node, parents):
        return isinstance(node, ast.Return)

    result = punstats.scan(str(fixture_dir), patterns=[match], jobs=1)
    assert result.summary["kinds"]["api_returns"] == 4
    assert result.summary["patterns"][0]["per"] == "functions"


def test_corpus_and_history_take_patterns(tmp_path, fixture_dir, capsys):
    plugin = tmp_path / "tries.py"
    plugin.write_text(TRIES)
    corpus = tmp_path / "corpus.toml"
    corpus.write_text('name = "c"\n[[project]]\nname = "p"\npath = "%s"\n' % fixture_dir)
    assert main(["corpus", str(corpus), "-q", "--json", "-o", str(tmp_path / "data"), "--pattern", str(plugin)]) == 0
    [summary] = json.loads(capsys.readouterr().out)
    assert summary["kinds"]["try_finally"] == 6
    repo = tmp_path / "repo"
    init(repo)
    commit(repo, {"a.py": SOURCE}, date="2023-01-01T12:00:00+00:00")
    commit(repo, {"b.py": SOURCE}, date="2023-02-01T12:00:00+00:00")
    assert main(["history", str(repo), "-q", "--json", "--every", "commit", "-o", str(tmp_path / "h"),
                 "--pattern", str(plugin)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["try_finally"], r["try_finally_nontest"]) for r in rows] == [(3, 3), (6, 6)]


@pytest.mark.slow
def test_a_history_measures_its_pattern_as_a_scan_of_each_revision_does(tmp_path, fixture_dir, capsys):
    plugin = tmp_path / "return_in_finally.py"
    plugin.write_text(readme_pattern().replace('per="lines"', 'per="code_lines"'))
    repo = tmp_path / "repo"
    init(repo)
    commit(repo, {"a.py": SOURCE}, date="2023-01-01T12:00:00+00:00")
    commit(repo, {"tests/test_b.py": SOURCE, "c.py": "x = 1\n"}, date="2023-02-01T12:00:00+00:00")
    out = tmp_path / "h"
    assert main(["history", str(repo), "-q", "--json", "--every", "commit", "-o", str(out),
                 "--pattern", str(plugin)]) == 0
    rows = json.loads(capsys.readouterr().out)
    for row in rows:  # each revision scanned whole, through the scan pipeline, not the sweep
        scanned = scan_json(capsys, str(repo), "--rev", row["commit"], "--pattern", str(plugin))
        assert (row["return_in_finally"], row["return_in_finally_nontest"]) == (
            scanned["kinds"]["return_in_finally"], scanned["kinds_nontest"]["return_in_finally"])
        assert row["return_in_finally_per_million_code_lines"] == pytest.approx(
            1e6 * scanned["kinds"]["return_in_finally"] / scanned["units"]["code_lines"], abs=0.01)
        assert row["return_in_finally_nontest_per_million_code_lines"] == pytest.approx(
            1e6 * scanned["kinds_nontest"]["return_in_finally"] / scanned["units_nontest"]["code_lines"], abs=0.01)
        assert row["pattern_errors"] == 0
    assert [r["return_in_finally"] for r in rows] == [3, 6]
    assert sorted(p.name for p in out.iterdir() if p.suffix == ".png") == ["repo-return_in_finally-history.png"]
    assert main(["history", str(repo), "-q", "--every", "commit", "-o", str(tmp_path / "h2"),
                 "--pattern", str(plugin), "--kind", "calls_mixed"]) == 2
    assert capsys.readouterr().err == (
        "punstats: error: calls_mixed is not counted by a history (it follows the kinds with places: f(x=x), "
        "the other built-in kinds of occurrences and its --pattern ones); a history counts call, attribute, "
        "near_miss, dict_literal, class, return_in_finally\n")
    assert not (tmp_path / "h2").exists()


def test_a_history_follows_a_built_in_kind_as_a_scan_of_each_revision_counts_it(tmp_path, capsys):
    repo = tmp_path / "repo"
    init(repo)
    commit(repo, {"a.py": "f(x=_x, y=self.y)\n"}, date="2023-01-01T12:00:00+00:00")
    commit(repo, {"tests/test_b.py": "g(x=_x)\nh(z=z__)\n", "c.py": "k(q=q)\n"}, date="2023-02-01T12:00:00+00:00")
    out = tmp_path / "h"
    assert main(["history", str(repo), "-q", "--json", "--every", "commit", "-o", str(out), "--kind", "near_miss"]) == 0
    rows = json.loads(capsys.readouterr().out)
    for row in rows:  # each revision scanned whole, through the scan pipeline, not the sweep
        scanned = scan_json(capsys, str(repo), "--rev", row["commit"])
        assert (row["near_miss"], row["near_miss_nontest"]) == (scanned["kinds"]["near_miss"],
                                                                scanned["kinds_nontest"]["near_miss"])
        assert row["near_miss_pct"] == pytest.approx(100 * scanned["kinds"]["near_miss"] / scanned["keywords"])
    assert [(r["near_miss"], r["near_miss_nontest"]) for r in rows] == [(1, 1), (3, 1)]
    assert "pattern_errors" not in rows[0]
    assert sorted(p.name for p in out.iterdir() if p.suffix == ".png") == ["repo-near_miss-history.png"]


def test_a_history_whose_pattern_raises_ends_with_status_1(tmp_path, capsys):
    plugin = tmp_path / "bad.py"
    plugin.write_text(TRIES.replace("return bool(node.finalbody)", "return 1 / 0"))
    repo = tmp_path / "repo"
    init(repo)
    commit(repo, {"a.py": "x = 1\n"}, date="2023-01-01T12:00:00+00:00")
    commit(repo, {"b.py": SOURCE}, date="2023-02-01T12:00:00+00:00")
    out = tmp_path / "h"
    assert main(["history", str(repo), "-q", "--every", "commit", "-o", str(out), "--pattern", str(plugin)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("punstats: error: a pattern raised on files of 1 of 2 revisions (the first, ")
    assert (out / "history.csv").exists()
    assert list(pd.read_csv(out / "history.csv")["pattern_errors"]) == [0, 1]


def test_standard_library_count_equals_an_independent_walk(tmp_path, capsys):
    plugin = tmp_path / "tries.py"
    plugin.write_text(TRIES)
    out = tmp_path / "out"
    assert main(["scan", "-q", "--no-cache", "-o", str(out), "--pattern", str(plugin)]) == 0
    summary = punstats.load(str(out)).summary
    files = pd.read_parquet(out / "files.parquet")
    parsed = set(files.loc[files["status"] == "ok", "path"])
    assert len(parsed) > 1000
    assert summary["kinds"]["try_finally"] == independent_tries(summary["root"], parsed) > 500
    assert summary["units"]["Try"] >= summary["kinds"]["try_finally"]
