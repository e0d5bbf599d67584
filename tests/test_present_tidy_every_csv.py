"""Every CSV punstats writes reads with a plain ``pd.read_csv(path)``: one header row of unique
snake_case names, no comment line, typed columns, and what was measured in columns of its own.

Each command that writes a CSV runs on small fixtures (a scan of a tiny tree with ``--csv``,
the same tree with ``--exclude``, ``--no-ignore`` and ``--extensions``, a corpus of it with
``--csv``, the fake ecosystem run of ``fakerun``, a two-commit history and the labels sheets
of a scan and a run); each file is read back with nothing but its path.  A run's projects
CSV has one row per project and kind; a 95 % interval a table shows is in ``_low`` and
``_high`` columns, the same numbers; footnotes, figure captions and CSV columns name every
rule that changes a count (``--exclude`` among them).
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
    run_cli("scan", tree, "-q", "-o", root / "b", "--exclude", "sub", "--pattern", plugin, "--no-ignore",
            "--extensions", ".py,.pyi")
    (root / "c.toml").write_text('name = "c"\n\n[[project]]\nname = "tree"\npath = "src"\n')
    run_cli("corpus", root / "c.toml", "-q", "--csv", "-o", root / "c", "--long", "5", "--pattern", plugin)
    (root / "run").mkdir()
    run_dir, _ = make_run(root / "run", "--no-figure")
    paths = {"scan_" + name: root / "a" / (name + ".csv") for name in ("occurrences", "files", "functions")}
    paths.update({"corpus_" + name: root / "c" / "tree" / (name + ".csv") for name in ("occurrences", "files")})
    tables = {"scans_summary": ["--kind", "call"], "scans_kinds": ["--kinds"], "scans_length": ["--by", "length"],
              "scans_identifier": ["--by", "identifier"], "scans_callee": ["--by", "callee"],
              "scans_directory": ["--by", "directory"], "scans_kind": ["--kind", "try_finally"]}
    for name, options in tables.items():
        paths[name] = root / (name + ".csv")
        run_cli("table", root / "a", root / "b", "--format", "csv", "-o", paths[name], *options)
    for name, options in {"run_projects": [], "run_call": ["--kind", "call"], "run_try": ["--kind", "try_finally"],
                          "run_seeded": ["--kind", "call", "--seed", "3", "--resamples", "500"],
                          "run_top": ["--top", "2"], "run_kinds": ["--kinds"],
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
    compared = {"compared_run_scan": [run_dir, root / "a"], "compared_history": [root / "h", root / "b"]}
    for name, dirs in compared.items():
        paths[name] = root / (name + ".csv")
        run_cli("table", *dirs, "--kind", "call", "--format", "csv", "--resamples", "200", "-o", paths[name])
    paths["_run"] = run_dir  # not a CSV: the run itself, for its footnotes
    return paths


#: The columns a scan's CSV copies end with: what it measured (as the tables' own ``table --format csv``).
SCAN_COPY = {"test_rule": "str", "source": "str", "python": "str", "punstats_version": "str", "long_threshold": "int",
             "extensions": "str", "gitignore": "bool", "exclude_dirs": "bool", "max_bytes": "int", "patterns": "str"}

#: The columns of a run's projects table with every kind stacked.
STACKED = {"rank": "int", "project": "str", "status": "str", "kind": "str", "unit": "str", "measure_name": "str",
           "count": "num", "unit_count": "num", "measure": "float", "measure_nontest": "float",
           "pooled_measure": "float", "pooled_measure_low": "float", "pooled_measure_high": "float",
           "median_measure_nontest": "float", "median_measure_nontest_low": "float",
           "median_measure_nontest_high": "float", "bootstrap_resamples": "int", "bootstrap_seed": "int",
           "bootstrap_unit": "str", "run": "str", "list_sha256": "str", "python": "str", "test_rule": "str",
           "long_threshold": "int", "gitignore": "bool", "patterns": "str"}

#: The columns of inputs side by side (``table A B`` of a run or a history), every input's provenance included.
COMPARED = {"input": "str", "sort": "str", "kind": "str", "measure": "str", "count": "num", "pooled": "float",
            "pooled_low": "float", "pooled_high": "float", "difference": "float", "resamples": "int", "seed": "int",
            "source": "str", "python": "str", "punstats_version": "str", "test_rule": "str", "long_threshold": "int",
            "extensions": "str", "gitignore": "bool", "patterns": "str"}

#: Per CSV: columns that must be there, with the dtype family a plain read gives them.
EXPECTED = {
    "scan_occurrences": {"line": "int", "name": "str", "in_test": "bool", **SCAN_COPY},
    "scan_files": {"path": "str", "keywords": "int", "punnable": "int", **SCAN_COPY},
    "scan_functions": {"name": "str", "line": "int", **SCAN_COPY},
    "corpus_occurrences": {"line": "int", "name": "str", **SCAN_COPY},
    "corpus_files": {"path": "str", "punnable": "int", **SCAN_COPY},
    "scans_summary": {"scan": "str", "punnable": "int", "punnable_pct": "float", "punnable_nontest_pct": "float",
                      "punnable_pct_low": "float", "punnable_pct_high": "float",
                      "punnable_nontest_pct_low": "float", "punnable_nontest_pct_high": "float",
                      "bootstrap_resamples": "int", "bootstrap_seed": "int", "bootstrap_unit": "str",
                      "keywords": "int", "long_threshold": "int", "extensions": "str", "gitignore": "bool",
                      "max_bytes": "int", "patterns": "str"},
    "scans_kinds": {"scan": "str", "pattern": "str", "count": "int", "pct": "float", "per_million_code_lines": "float"},
    "scans_length": {"scan": "str", "name_len": "int", "total": "int", "at_least_pct": "float"},
    "scans_identifier": {"scan": "str", "identifier": "str", "total": "int"},
    "scans_callee": {"scan": "str", "callee": "str", "total": "int"},
    "scans_directory": {"scan": "str", "files": "int", "punnable_pct": "float"},
    "scans_kind": {"scan": "str", "kind": "str", "count": "int", "pct_of_try_nodes": "float"},
    "run_projects": STACKED,
    "run_call": {"rank": "int", "project": "str", "pct_of_keywords": "float", "pct_of_keywords_nontest": "float",
                 "pooled_pct_of_keywords": "float", "pooled_pct_of_keywords_low": "float",
                 "median_pct_of_keywords_nontest_high": "float", "code_lines": "num",
                 "per_million_code_lines": "float", "pooled_per_million_code_lines_low": "float",
                 "median_per_million_code_lines_high": "float", "bootstrap_unit": "str", "run": "str",
                 "gitignore": "bool"},
    "run_try": {"rank": "int", "project": "str", "kind": "str", "pct_of_try_nodes": "float",
                "pooled_pct_of_try_nodes_low": "float", "median_pct_of_try_nodes_high": "float",
                "bootstrap_seed": "int", "run": "str", "list_sha256": "str", "long_threshold": "int",
                "patterns": "str"},
    "run_seeded": {"project": "str", "pooled_pct_of_keywords_low": "float", "bootstrap_resamples": "int",
                   "bootstrap_seed": "int"},
    "run_top": STACKED,
    "run_kinds": {"pattern": "str", "count": "int", "pct": "float", "per_million_code_lines": "float", "run": "str"},
    "run_length": {"name_len": "int", "total": "int", "at_least_pct": "float", "run": "str"},
    "run_identifier": {"identifier": "str", "total": "int", "projects": "int", "run": "str"},
    "run_callee": {"callee": "str", "total": "int", "projects": "int", "run": "str"},
    "scan_labels_sheet": {"key": "str", "path": "str", "line": "int", "source": "str"},
    "run_labels_sheet": {"key": "str", "rank": "int", "project": "str", "source": "str"},
    "scans_labels": {"scan": "str", "label": "str", "total": "int", "test_rule": "str"},
    "run_and_scan_labels": {"scan": "str", "label": "str", "total": "int"},
    "compared_run_scan": {**COMPARED, "count": "int", "median": "float", "q1": "float", "p_value": "float"},
    "compared_history": COMPARED,
    "history": {"commit": "str", "punnable": "int", "punnable_pct": "float", "try_finally": "int",
                "repo": "str", "python": "str", "test_rule": "str", "long_threshold": "int", "patterns": "str"},
}

#: ``num``: a count some rows lack (a project not scanned), which a plain read gives as float.
FAMILIES = {"int": pd.api.types.is_integer_dtype, "float": pd.api.types.is_float_dtype,
            "num": pd.api.types.is_numeric_dtype,
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


def test_a_run_s_csv_has_one_row_per_project_and_kind_and_its_provenance(made):
    from punstats.store.ecosystem import read_run
    projects = pd.read_csv(made["run_projects"])
    kinds = [kind.name for kind in read_run(str(made["_run"])).registry if kind.per]
    assert "call" in kinds and "near_miss" in kinds and "attribute" in kinds and "try_finally" in kinds
    assert list(projects["kind"].drop_duplicates()) == kinds  # every kind with a unit, in the registry's order
    order = ["alpha", "beta", "gamma", "delta", "iota", "kappa", "stdunit"]
    assert all(list(rows["project"]) == order for _, rows in projects.groupby("kind"))
    assert len(projects) == len(order) * len(kinds) and not projects.duplicated(["project", "kind"]).any()
    tries = projects[projects["kind"] == "try_finally"]
    assert set(tries["unit"]) == {"try_nodes"} and set(tries["measure_name"]) == {"pct_of_try_nodes"}
    assert tries["measure"].iloc[0] == 100.0
    assert projects["patterns"].iloc[0].startswith("try_finally tries.py sha256:")
    assert len(projects["patterns"].iloc[0].split("sha256:")[1]) == 64
    assert not any(column.startswith("share") for column in projects)  # no display headers, no duplicated Share
    kinds_table = pd.read_csv(made["run_kinds"]).set_index("pattern")
    assert kinds_table.loc["call", "count"] == 82 and kinds_table.loc["call", "pct"] == pytest.approx(7.6707)


def test_top_cuts_a_run_s_projects_not_its_pooled_measures(made):
    stacked, top = pd.read_csv(made["run_projects"]), pd.read_csv(made["run_top"])
    assert top.groupby("kind")["project"].apply(list).map(tuple).unique().tolist() == [("alpha", "beta")]
    first = stacked.groupby("kind", sort=False).head(2).reset_index(drop=True)
    pd.testing.assert_frame_equal(top, first, check_dtype=False)  # the pooled and median: the whole run's


@pytest.mark.parametrize("kind, name", [("call", "run_call"), ("try_finally", "run_try")])
def test_the_stacked_rows_of_a_kind_are_its_own_table_renamed(made, kind, name):
    from punstats.present.run_tidy import generic_names
    from punstats.store.ecosystem import read_run
    stacked = pd.read_csv(made["run_projects"])
    one = pd.read_csv(made[name])
    renamed = one.rename(columns=generic_names(read_run(str(made["_run"])).registry[kind]))
    rows = stacked[stacked["kind"] == kind].reset_index(drop=True)
    for column in renamed.columns:
        pd.testing.assert_series_equal(rows[column], renamed[column], check_dtype=False, obj=column)


def _shown(capsys, *args):
    run_cli("table", *args, "--format", "markdown")
    return capsys.readouterr().out


def test_a_run_s_csv_intervals_are_the_table_s(made, capsys):
    call = pd.read_csv(made["run_call"]).iloc[0]
    shown = _shown(capsys, made["_run"], "--kind", "call")
    for words in ("pooled", "median"):
        line = next(line for line in shown.splitlines() if "95%% interval of the %s" % words in line)
        assert "%.2f%% to %.2f%%" % (call[words + "_pct_of_keywords_low"],
                                     call[words + "_pct_of_keywords_high"]) in line
        assert "%.2f%% to %.2f%%" % (call[words + "_pct_of_keywords_nontest_low"],
                                     call[words + "_pct_of_keywords_nontest_high"]) in line
        assert "%s to %s" % (format(round(call[words + "_per_million_code_lines_low"]), ","),
                             format(round(call[words + "_per_million_code_lines_high"]), ",")) in line
    assert (call["bootstrap_resamples"], call["bootstrap_seed"], call["bootstrap_unit"]) == (2000, 0, "projects")
    tries = pd.read_csv(made["run_try"]).iloc[0]
    line = next(line for line in _shown(capsys, made["_run"], "--kind", "try_finally").splitlines()
                if "95% interval of the pooled" in line)
    assert "%.2f%% to %.2f%%" % (tries["pooled_pct_of_try_nodes_low"], tries["pooled_pct_of_try_nodes_high"]) in line
    seeded = pd.read_csv(made["run_seeded"]).iloc[0]
    assert (seeded["bootstrap_resamples"], seeded["bootstrap_seed"]) == (500, 3)
    assert seeded["pooled_pct_of_keywords_low"] != call["pooled_pct_of_keywords_low"]  # --seed and --resamples used


def test_a_scan_s_csv_intervals_are_the_summary_table_s(made, capsys):
    summary = pd.read_csv(made["scans_summary"])
    shown = [line for line in _shown(capsys, made["scan_files"].parent, made["scan_files"].parent.parent / "b",
                                     "--kind", "call").splitlines() if "95% interval" in line]
    assert len(shown) == 2 and all("bootstrap over files, 2,000 resamples, seed 0" in line for line in shown)
    for line, share in zip(shown, ("punnable_pct", "punnable_nontest_pct")):
        for _, scan in summary.iterrows():
            assert "%.2f%% to %.2f%%" % (scan[share + "_low"], scan[share + "_high"]) in line
    assert set(summary["bootstrap_unit"]) == {"files"} and set(summary["bootstrap_resamples"]) == {2000}


@pytest.mark.parametrize("name", ["scan_occurrences", "scan_files", "scan_functions", "corpus_files"])
def test_a_scan_s_csv_copies_end_with_what_it_measured(made, name):
    import json
    import platform
    copy = pd.read_csv(made[name])
    summary = json.loads((made[name].parent / "summary.json").read_text())
    assert len(copy) == summary["rows"][name.split("_")[1]]
    row = copy.iloc[0]
    assert row["python"] == "%s %s" % (platform.python_implementation(), summary["python"])
    assert row["punstats_version"] == summary["punstats_version"] and row["source"] == "a local directory"
    assert row["long_threshold"] == (5 if name.startswith("corpus") else 10) and row["extensions"] == ".py"
    assert row["test_rule"] == "components" and bool(row["gitignore"]) and pd.isna(row["exclude"])
    assert re.fullmatch(r"try_finally tries\.py sha256:[0-9a-f]{64}", row["patterns"])
    assert list(copy.columns).index("patterns") == len(copy.columns) - 1  # after the table's own


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


#: What every caption of a figure of scan ``b`` says: the parser and every rule that changes a number.
B_RULES = (r"parsed by CPython \d", r"test rule components", r"\.py \.pyi files", r"\.gitignore not read",
           r"--exclude sub", r"long identifiers from 10 characters",
           r"pattern try_finally \(tries\.py, sha256 [0-9a-f]{12}\)")


def _caption(plot):
    return " ".join(" ".join(text.get_text() for text in plot.figure.texts).split())


def test_every_figure_s_caption_names_every_rule_that_changes_a_number(made):
    import punstats
    from punstats.patterns.built_in import registry_of
    from punstats.present import compare, ecosystem_figure, kind_figures, plots
    from punstats.store.ecosystem import read_run
    a, b = (punstats.load(str(made["scan_files"].parent.parent / name)) for name in ("a", "b"))
    kinds = registry_of(b.summary)
    figures = plots.all_plots([b]) + [plots.projects([a, b]), plots.kinds([a, b]), compare.length_overlay([a, b])]
    figures += kind_figures.kind_plots([b], kinds["near_miss"]) + kind_figures.kind_plots([a, b], kinds["try_finally"])
    assert len(figures) == 13
    for plot in figures:
        text = _caption(plot)
        assert all(re.search(rule, text) for rule in B_RULES), (plot.name, text)
    stored = read_run(str(made["_run"]))
    run_figures = [ecosystem_figure.ecosystem_plot(stored.records, stored.ecosystem),
                   ecosystem_figure.kind_plot(stored, stored.registry["try_finally"])]
    for plot in run_figures:
        text = _caption(plot)
        assert re.search(r"parsed by CPython \d.*test rule components; \.py files, \.gitignore not read, nothing "
                         r"excluded, long identifiers from 10 characters, pattern try_finally \(tries\.py, sha256 "
                         r"[0-9a-f]{12}\)", text), (plot.name, text)
    assert "95% intervals: percentile bootstrap over projects (2,000 resamples" in _caption(run_figures[0])
