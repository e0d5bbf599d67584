"""Every CSV punstats writes reads with a plain ``pd.read_csv(path)``: one header row of unique
snake_case names, no comment line, typed columns, and what was measured in columns of its own.

Each command that writes a CSV runs on small fixtures (a scan of a tiny tree with ``--csv``,
the same tree with ``--exclude``, the fake ecosystem run of ``fakerun``, a two-commit history
and the labels sheets of a scan and a run); each file is read back with nothing but its path.
Footnotes and CSV columns name every rule that changes a count (``--exclude`` among them).
"""
import re

import pandas as pd
import pytest
from fakerun import TRIES, make_run
from gitrepo import commit, init

from punstats.cli import main

#: snake_case; a unit count per file of a node class keeps the class's name (``nodes_Try``), as stored.
SNAKE = re.compile(r"^[a-z][a-z0-9_]*$|^nodes_[A-Z][A-Za-z0-9]*$")

TREE = {"pkg/m.py": "def f(a, b):\n    g(a=a, b=b)\n    h(c=1)\n    try:\n        pass\n    finally:\n        pass\n",
        "pkg/tests/test_m.py": "def t(x):\n    g(x=x)\n",
        "pkg/sub/s.py": "def s(y):\n    g(y=y, z=1)\n"}

def write_tree(root):
    for path, text in TREE.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def run_cli(*args):
    assert main([str(a) for a in args]) == 0, args


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """Every CSV the commands write, by a name for the test: {name: path}."""
    root = tmp_path_factory.mktemp("tidy")
    tree = write_tree(root / "src")
    plugin = root / "tries.py"
    plugin.write_text(TRIES)
    run_cli("scan", tree, "-q", "--csv", "-o", root / "a", "--pattern", plugin)
    run_cli("scan", tree, "-q", "-o", root / "b", "--exclude", "sub", "--pattern", plugin)
    (root / "run").mkdir()
    run_dir, _ = make_run(root / "run", "--no-figure")
    paths = {"scan_" + name: root / "a" / (name + ".csv") for name in ("occurrences", "files", "functions")}
    tables = {"scans_summary": ["--kind", "call"], "scans_kinds": ["--kinds"], "scans_length": ["--by", "length"],
              "scans_identifier": ["--by", "identifier"], "scans_callee": ["--by", "callee"],
              "scans_directory": ["--by", "directory"], "scans_kind": ["--kind", "try_finally"]}
    for name, options in tables.items():
        paths[name] = root / (name + ".csv")
        run_cli("table", root / "a", root / "b", "--format", "csv", "-o", paths[name], *options)
    for name, options in {"run_projects": [], "run_call": ["--kind", "call"], "run_kinds": ["--kinds"],
                          "run_length": ["--by", "length"], "run_identifier": ["--by", "identifier"],
                          "run_callee": ["--by", "callee"]}.items():
        paths[name] = root / (name + ".csv")
        run_cli("table", run_dir, "--format", "csv", "-o", paths[name], *options)
    run_cli("label", root / "a", "--kind", "call")
    run_cli("label", run_dir, "--kind", "try_finally")
    paths["scan_labels_sheet"] = root / "a" / "labels-call.csv"
    paths["run_labels_sheet"] = root / "run" / "out" / "labels-try_finally.csv"
    for name, dirs in {"scans_labels": [root / "a"], "run_and_scan_labels": [root / "a", run_dir]}.items():
        paths[name] = root / (name + ".csv")
        run_cli("table", *dirs, "--by", "label", "--format", "csv", "-o", paths[name])
    repo = root / "repo"
    init(repo)
    commit(repo, {"a.py": "def f(x):\n    g(x=x)\n"}, date="2023-01-01T12:00:00+00:00")
    commit(repo, TREE, date="2023-02-01T12:00:00+00:00")
    run_cli("history", repo, "-q", "--every", "commit", "-o", root / "h", "--pattern", plugin)
    paths["history"] = root / "h" / "history.csv"
    paths["_run"] = run_dir  # not a CSV: the run itself, for its footnotes
    return paths


#: Per CSV: columns that must be there, with the dtype family a plain read gives them.
EXPECTED = {
    "scan_occurrences": {"line": "int", "name": "str", "in_test": "bool"},
    "scan_files": {"path": "str", "keywords": "int", "punnable": "int"},
    "scan_functions": {"name": "str", "line": "int"},
    "scans_summary": {"scan": "str", "punnable": "int", "punnable_pct": "float", "punnable_nontest_pct": "float",
                      "keywords": "int", "long_threshold": "int", "extensions": "str", "gitignore": "bool",
                      "max_bytes": "int", "patterns": "str"},
    "scans_kinds": {"scan": "str", "pattern": "str", "count": "int", "pct": "float", "per_million_code_lines": "float"},
    "scans_length": {"scan": "str", "name_len": "int", "total": "int", "at_least_pct": "float"},
    "scans_identifier": {"scan": "str", "identifier": "str", "total": "int"},
    "scans_callee": {"scan": "str", "callee": "str", "total": "int"},
    "scans_directory": {"scan": "str", "files": "int", "punnable_pct": "float"},
    "scans_kind": {"scan": "str", "kind": "str", "count": "int", "pct_of_try_nodes": "float"},
    "run_projects": {"rank": "int", "project": "str", "status": "str", "kind": "str", "pct_of_try_nodes": "float",
                     "run": "str", "list_sha256": "str", "long_threshold": "int", "patterns": "str"},
    "run_call": {"rank": "int", "project": "str", "pct_of_keywords": "float", "pct_of_keywords_nontest": "float",
                 "run": "str", "gitignore": "bool"},
    "run_kinds": {"pattern": "str", "count": "int", "pct": "float", "per_million_code_lines": "float", "run": "str"},
    "run_length": {"name_len": "int", "total": "int", "at_least_pct": "float", "run": "str"},
    "run_identifier": {"identifier": "str", "total": "int", "projects": "int", "run": "str"},
    "run_callee": {"callee": "str", "total": "int", "projects": "int", "run": "str"},
    "scan_labels_sheet": {"key": "str", "path": "str", "line": "int", "source": "str"},
    "run_labels_sheet": {"key": "str", "rank": "int", "project": "str", "source": "str"},
    "scans_labels": {"scan": "str", "label": "str", "total": "int", "test_rule": "str"},
    "run_and_scan_labels": {"scan": "str", "label": "str", "total": "int"},
    "history": {"commit": "str", "punnable": "int", "punnable_pct": "float", "try_finally": "int",
                "repo": "str", "python": "str", "test_rule": "str", "long_threshold": "int", "patterns": "str"},
}

FAMILIES = {"int": pd.api.types.is_integer_dtype, "float": pd.api.types.is_float_dtype,
            "bool": pd.api.types.is_bool_dtype,
            "str": lambda dtype: pd.api.types.is_string_dtype(dtype) or pd.api.types.is_object_dtype(dtype)}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_csv_reads_with_plain_read_csv(made, name):
    path = made[name]
    text = path.read_text(encoding="utf-8")
    assert not text.startswith("#") and "\n#" not in text.replace("\r\n", "\n").split("\n", 1)[0], name
    frame = pd.read_csv(path)  # nothing but the path
    columns = list(frame.columns)
    assert len(frame) >= 1, name
    assert len(set(columns)) == len(columns) and all(SNAKE.match(c) for c in columns), (name, columns)
    assert not any(c.startswith("Unnamed") for c in columns), name
    for column, family in EXPECTED[name].items():
        assert column in frame, (name, column)
        assert FAMILIES[family](frame[column].dtype), (name, column, frame[column].dtype)


def test_a_run_s_csv_has_one_row_per_project_of_its_kind_and_its_provenance(made):
    projects = pd.read_csv(made["run_projects"])
    assert list(projects["project"]) == ["alpha", "beta", "gamma", "delta", "iota", "kappa", "stdunit"]
    assert set(projects["kind"]) == {"try_finally"} and projects["pct_of_try_nodes"].iloc[0] == 100.0
    assert projects["patterns"].iloc[0].startswith("try_finally tries.py sha256:")
    assert len(projects["patterns"].iloc[0].split("sha256:")[1]) == 64
    assert not any(column.startswith("share") for column in projects)  # no display headers, no duplicated Share
    kinds = pd.read_csv(made["run_kinds"]).set_index("pattern")
    assert kinds.loc["call", "count"] == 82 and kinds.loc["call", "pct"] == pytest.approx(7.6707)


def test_exclude_is_a_column_and_a_footnote_of_the_scans_it_changed(made, capsys):
    summary = pd.read_csv(made["scans_summary"]).set_index("scan")
    assert summary["exclude"].fillna("").tolist() == ["", "sub"]
    assert summary["punnable"].tolist() == [4, 3]  # the rule changed the count, and the row says which
    run_cli("table", made["scan_files"].parent, made["scan_files"].parent.parent / "b", "--kind", "call")
    notes = [" ".join(note.replace("\\", "").split()) for note in capsys.readouterr().out.split(".. [#]")[1:]]
    assert "nothing excluded" in notes[0] and "--exclude sub" in notes[1]  # the same footnote before
    assert all("long identifiers from 10 characters" in note for note in notes)
    assert all(re.search(r"pattern try_finally \(tries.py, sha256 [0-9a-f]{12}\)", note) for note in notes)
    history = pd.read_csv(made["history"])
    assert set(history["test_rule"]) == {"components"} and history["patterns"].str.startswith("try_finally ").all()


def test_a_run_s_footnote_names_its_rules_and_pattern(made, capsys):
    for options in ([], ["--kinds"], ["--by", "length"], ["--kind", "call"]):
        run_cli("table", made["_run"], *options)
        note = " ".join(capsys.readouterr().out.split(".. [#]")[1].replace("\\", "").split())
        assert "test rule components; .py files, .gitignore not read, nothing excluded, long identifiers from 10 " \
               "characters, pattern try_finally (tries.py, sha256 " in note, options
