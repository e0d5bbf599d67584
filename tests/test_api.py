"""The Python API: scan, save, load, re-classify."""
import pytest

import punstats


def make_project(root):
    (root / "pkg").mkdir()
    (root / "pkg" / "core.py").write_text(
        "def run(verbosity, configuration):\n"
        "    return go(verbosity=verbosity, configuration=configuration, x=1)\n")
    (root / "pkg" / "tests").mkdir()
    (root / "pkg" / "tests" / "test_core.py").write_text("run(configuration=configuration)\n")
    (root / "pkg" / "attest.py").write_text("check(configuration=configuration)\n")


def test_scan_save_load_round_trip(tmp_path):
    make_project(tmp_path)
    result = punstats.scan(str(tmp_path), jobs=1)
    assert list(result.occurrences["name"]) == ["configuration", "verbosity", "configuration", "configuration"]
    assert result.summary["punnable"] == 4 and result.summary["keywords"] == 5
    assert result.summary["long_nontest"] == 2 and result.summary["calls_with_punnable"] == 3
    result.save(str(tmp_path / "out"))
    loaded = punstats.load(str(tmp_path / "out"))
    assert loaded.summary == result.summary
    assert loaded.occurrences.equals(result.occurrences) and loaded.files.equals(result.files)


def test_with_rules_reclassifies_without_rescanning(tmp_path):
    make_project(tmp_path)
    result = punstats.scan(str(tmp_path), jobs=1)
    grep = result.with_rules("substring", long_threshold=13)
    assert grep.summary["test_rule"] == "substring" and grep.summary["rules"]["long_threshold"] == 13
    assert (grep.summary["long"], grep.summary["long_nontest"]) == (3, 1)
    assert grep.occurrences["in_test"].tolist() == [True, False, False, True]
    assert result.summary["test_rule"] == "components"  # the original is unchanged
    assert grep.summary["corpus"] == result.summary["corpus"]
    from punstats.runs.scan import ScanResult  # what a scan of an installed package or a labelled one records
    said = dict(result.summary, distribution={"name": "demo", "version": "1.0"}, labels_carried={"call": {}})
    kept = ScanResult(result.occurrences, result.files, said, result.functions).with_rules("substring").summary
    assert (kept["distribution"], kept["labels_carried"]) == (said["distribution"], said["labels_carried"])


def test_parquet_carries_provenance(tmp_path):
    import json

    import pyarrow.parquet as pq
    make_project(tmp_path)
    punstats.scan(str(tmp_path), jobs=1).save(str(tmp_path / "out"))
    meta = json.loads(pq.read_schema(tmp_path / "out" / "files.parquet").metadata[b"punstats"])
    assert meta["punstats_version"] == punstats.__version__
    assert meta["rules"]["test_rule"] == "components" and meta["python"]


def test_lines_saved_are_measured_as_the_rewrite_measures_them(tmp_path):
    from punstats import rewrite
    from punstats.present import tables
    (tmp_path / "a.py").write_text("f(\n    alpha=alpha,\n    beta=beta,\n)\ng(x=x)\n")
    result = punstats.scan(str(tmp_path), jobs=1, lines_saved=True)
    saved = result.summary["lines_saved"]
    assert (saved["lines_removed"], saved["lines_added"], saved["lines_saved"]) == (5, 2, 3)
    assert saved["lines_saved"] == rewrite.summarize(rewrite.rewrite_tree(str(tmp_path), rewrap=True)).lines_saved
    assert (tmp_path / "a.py").read_text().startswith("f(\n")  # nothing written
    text = tables.render(tables.summary_table([result, punstats.scan(str(tmp_path), jobs=1)]), "markdown")
    row = [line for line in text.splitlines() if line.startswith("| Lines saved by punning")]
    assert [cell.strip() for cell in row[0].strip("|").split("|")] == [
        "Lines saved by punning (`rewrite --rewrap`)", "3", "n/a"]


def test_lines_saved_measure_the_files_the_scan_counted(tmp_path):
    (tmp_path / "a.py").write_text("f(\n    alpha=alpha,\n)\n")
    (tmp_path / ".tox").mkdir()  # skipped by default, scanned with exclude_dirs=False
    (tmp_path / ".tox" / "b.py").write_text("g(\n    beta=beta,\n    gamma=gamma,\n)\n")
    default = punstats.scan(str(tmp_path), jobs=1, lines_saved=True)
    everything = punstats.scan(str(tmp_path), jobs=1, lines_saved=True, exclude_dirs=False)
    assert (default.summary["files"], everything.summary["files"]) == (1, 2)
    assert default.summary["lines_saved"]["files_changed"] == 1
    assert everything.summary["lines_saved"]["files_changed"] == 2
    assert everything.summary["lines_saved"]["lines_saved"] == default.summary["lines_saved"]["lines_saved"] + 3


def test_scan_options_are_one_frozen_value():
    import dataclasses

    import pytest

    from punstats.runs.options import ScanOptions
    options = ScanOptions.of(test_rule="substring", extensions=[".py", ".pyi"], jobs=2)
    assert options.test_rule.label == "substring" and options.extensions == (".py", ".pyi")
    assert options.rules()["extensions"] == [".py", ".pyi"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.jobs = 3


def test_a_loaded_scan_reads_a_table_only_when_used_and_only_the_columns_asked(tmp_path, monkeypatch):
    from punstats.store import disk
    make_project(tmp_path)
    out = str(tmp_path / "out")
    punstats.scan(str(tmp_path), jobs=1, output=out)
    reads = []
    read_table = disk.read_table
    monkeypatch.setattr(disk, "read_table", lambda d, name, columns=None: reads.append((name, columns))
                        or read_table(d, name, columns))
    result = punstats.load(out, columns={"occurrences": ["name", "kind"]})
    assert reads == []
    assert list(result.occurrences.columns) == ["name", "kind"] and len(result.occurrences) == 4
    assert reads == [("occurrences", ["name", "kind"])]
    regrouped = result.with_rules("substring")  # needs every column: reads them all
    assert regrouped.summary["punnable"] == 4 and "callee" in regrouped.occurrences
    assert ("functions", None) in reads


def test_a_lazy_scan_keeps_its_tables_on_disk_until_used_and_removes_them_with_it(tmp_path):
    import gc
    import os
    make_project(tmp_path)
    result = punstats.scan(str(tmp_path), jobs=1, eager=False)
    directory = result.directory
    assert os.path.isdir(directory) and result.summary["punnable"] == 4
    assert list(result.occurrences["name"]) == ["configuration", "verbosity", "configuration", "configuration"]
    del result
    gc.collect()
    assert not os.path.exists(directory)
    assert punstats.scan(str(tmp_path), jobs=1).directory is None  # eager: in memory, nothing left on disk


CATEGORICAL = {"occurrences": ["kind", "base_kind", "test_rule"], "files": ["status", "encoding", "test_rule"],
               "functions": ["kind", "test_rule"]}


def make_mixed_project(root):
    """``make_project`` plus an attribute occurrence, a lambda and a file that does not parse."""
    make_project(root)
    (root / "pkg" / "more.py").write_text("f(configuration=self.configuration)\ng = lambda: 0\n")
    (root / "pkg" / "broken.py").write_text("def (:\n")


def categorical_columns(result):
    import pandas as pd
    return {name: [c for c in getattr(result, name).columns
                   if isinstance(getattr(result, name)[c].dtype, pd.CategoricalDtype)] for name in CATEGORICAL}


def test_low_cardinality_columns_are_categoricals_whatever_made_the_result(tmp_path):
    import pandas as pd
    make_mixed_project(tmp_path)
    out = str(tmp_path / "out")
    results = {"scan": punstats.scan(str(tmp_path), jobs=1), "stored": punstats.scan(str(tmp_path), jobs=1, output=out),
               "lazy": punstats.scan(str(tmp_path), jobs=1, eager=False), "load": punstats.load(out)}
    for how, result in results.items():
        assert categorical_columns(result) == CATEGORICAL, how
        assert sorted(result.files["status"].cat.categories) == ["ok", "syntax_error"], how
        assert not any(isinstance(frame[column].dtype, pd.CategoricalDtype) for frame, column in (
            (result.occurrences, "name"), (result.occurrences, "callee"), (result.files, "path"))), how
    assert categorical_columns(results["load"].with_rules("substring")) == CATEGORICAL
    some = punstats.load(out, columns={"occurrences": ["name", "kind"]})
    assert categorical_columns(some)["occurrences"] == ["kind"]


def test_a_summary_of_categoricals_counts_only_what_occurs(tmp_path):
    from punstats import analysis
    make_mixed_project(tmp_path)
    result = punstats.load(punstats.scan(str(tmp_path), jobs=1, output=str(tmp_path / "out")).directory)
    assert result.summary["failed_by_reason"] == {"syntax_error": 1}
    again = result.with_rules("substring")
    assert again.summary["failed_by_reason"] == {"syntax_error": 1}
    assert again.files["test_rule"].cat.categories.tolist() == ["substring"]
    counts = analysis.summarize(result.occurrences, result.files, result.summary["long_threshold"])
    assert counts == {key: result.summary[key] for key in counts}  # as the scan counted, streaming
    parsed = result.files[result.files["status"] == "ok"]  # "syntax_error" stays a category, with no row
    assert parsed["status"].value_counts().to_dict() == {"ok": 4, "syntax_error": 0}  # what pandas lists
    assert analysis.summarize(result.occurrences, parsed, 10)["failed_by_reason"] == {}
    assert analysis.top(parsed["status"]) == [["ok", 4]]
    calls = analysis.call_occurrences(result.occurrences)
    assert analysis.split_counts(calls, "kind").index.tolist() == ["call"]


def test_a_result_of_categoricals_is_saved_as_the_scan_stored_it(tmp_path):
    make_mixed_project(tmp_path)
    first, second = str(tmp_path / "first"), str(tmp_path / "second")
    punstats.scan(str(tmp_path), jobs=1, output=first)
    loaded = punstats.load(first)
    loaded.with_rules("components").save(second)  # in memory, categoricals and all
    for name in CATEGORICAL:
        assert (tmp_path / "first" / (name + ".parquet")).read_bytes() == \
            (tmp_path / "second" / (name + ".parquet")).read_bytes(), name
        again = getattr(punstats.load(second), name)
        assert again.equals(getattr(loaded, name)) and (again.dtypes == getattr(loaded, name).dtypes).all(), name


def test_a_result_is_shown_in_one_short_line_without_reading_a_table(stdlib_subset_scan_dir, monkeypatch):
    from punstats import store
    result = punstats.load(stdlib_subset_scan_dir)
    monkeypatch.setattr(store, "read_table", lambda *args, **kwargs: 1 / 0)  # repr reads no table
    text = repr(result)
    s = result.summary
    occurrences = sum(s["kinds"][k] for k in ("call", "attribute", "near_miss", "dict_literal", "class"))
    assert len(text) < 250 and "\n" not in text
    for number in (s["parsed"], s["files"], occurrences, s["punnable"]):
        assert format(number, ",") in text
    assert text.endswith("stored in %s>" % stdlib_subset_scan_dir) and s["corpus"] in text


def test_the_calls_view_holds_the_headline_rows_only(stdlib_subset_scan_dir, stdlib_subset_dir):
    import ast
    import pathlib
    result = punstats.load(stdlib_subset_scan_dir)
    kinds = result.summary["kinds"]
    assert len(result.calls) == kinds["call"] == result.summary["punnable"]
    assert set(result.calls["kind"]) == {"call"} and set(result.occurrences["kind"]) > {"call"}
    for kind in ("attribute", "near_miss", "dict_literal", "class"):
        assert len(result.of_kind(kind)) == kinds[kind]
    independent = 0  # ast.walk over the same files, sharing no code with punstats
    for path in pathlib.Path(stdlib_subset_dir).rglob("*.py"):
        try:
            tree = ast.parse(path.read_bytes())
        except (SyntaxError, ValueError):
            continue
        independent += sum(isinstance(k.value, ast.Name) and k.value.id == k.arg
                           for node in ast.walk(tree) if isinstance(node, ast.Call) for k in node.keywords)
    assert len(result.calls) == independent
    with pytest.raises(KeyError, match="'calls_mixed' is not a kind of occurrence"):
        result.of_kind("calls_mixed")


def test_load_or_scan_loads_the_stored_scan_named_else_scans_the_path_named(tmp_path, monkeypatch,
                                                                             stdlib_subset_scan_dir):
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "a.py").write_text("f(x=x, y=z)\n")
    (tmp_path / "notebooks").mkdir()
    monkeypatch.chdir(tmp_path / "notebooks")  # where Jupyter runs a notebook
    monkeypatch.setenv("PWD", str(tmp_path / "notebooks"))
    monkeypatch.delenv("PUNSTATS_SCAN", raising=False)
    monkeypatch.setenv("PUNSTATS_SCAN_PATH", "proj")  # found from the parent: the repository root
    scanned = punstats.load_or_scan()
    assert scanned.summary["punnable"] == 1 and scanned.summary["keywords"] == 2
    monkeypatch.setenv("PUNSTATS_SCAN", stdlib_subset_scan_dir)  # a stored scan comes first
    assert punstats.load_or_scan().summary == punstats.load(stdlib_subset_scan_dir).summary
    assert punstats.load_or_scan(path="proj").summary["punnable"] == 1  # what the caller names comes first


def test_scanning_nothing_warns_with_the_words_the_command_line_prints(tmp_path, capsys):
    import warnings

    from punstats.cli import main
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("no code here\n")
    with pytest.warns(punstats.NoPythonFilesWarning) as said:
        result = punstats.scan(str(tmp_path / "empty"), jobs=1)
    assert result.summary["files"] == 0 and len(result.files) == 0  # a result all the same
    assert len(said) == 1 and said[0].filename == __file__  # it points at the caller's line
    text = str(said[0].message)
    assert text == "no Python files found in %s (files ending in .py); every share is n/a" % (tmp_path / "empty")
    assert issubclass(punstats.NoPythonFilesWarning, UserWarning)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(["scan", str(tmp_path / "empty"), "--no-save", "-q"]) == 0
    assert not [w for w in caught if issubclass(w.category, punstats.NoPythonFilesWarning)]  # said once
    assert capsys.readouterr().err == "punstats: warning: %s\n" % text


def test_scanning_files_warns_of_nothing_and_a_revision_of_nothing_names_it(tmp_path):
    import warnings

    from gitrepo import commit, init
    (tmp_path / "p").mkdir()
    make_project(tmp_path / "p")
    with warnings.catch_warnings():
        warnings.simplefilter("error", punstats.NoPythonFilesWarning)
        punstats.scan(str(tmp_path / "p"), jobs=1)
    init(tmp_path / "repo")
    sha = commit(tmp_path / "repo", {"README": "words\n", "lib/.venv/pyvenv.cfg": "x\n"})
    with pytest.warns(punstats.NoPythonFilesWarning, match="^no Python files found in the revision %s of "
                      % sha[:12]):
        assert punstats.scan(str(tmp_path / "repo"), rev=sha, jobs=1).summary["files"] == 0


def no_file_matcher(text):
    """A pattern ``p`` defined by ``exec`` in a module without a file (as in ``python -c``, a notebook)."""
    namespace = {"__name__": "punstats_test_no_file", "punstats": punstats, "ast": __import__("ast")}
    exec("@punstats.pattern('p')\n" + text, namespace)  # noqa: S102 -- test code
    return namespace["match"]


def test_two_matchers_of_one_name_without_a_file_never_share_results(tmp_path):
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "a.py").write_text("def f():\n    return 1\nx = 2\n")
    cache = str(tmp_path / "cache.sqlite")

    def hits(match):
        result = punstats.scan(str(tmp_path / "tree"), jobs=1, patterns=[match], cache=cache)
        return result.of_kind("p")["name"].tolist(), result.summary.get("cache", {}).get("extracted")

    returns = "def match(node, parents):\n    return isinstance(node, ast.Return)\n"
    assert hits(no_file_matcher(returns)) == (["Return"], 1)
    assert hits(no_file_matcher(returns.replace("Return", "Assign"))) == (["Assign"], 1)
    assert hits(no_file_matcher(returns)) == (["Return"], 0)  # the same definition: its results reused

    def named(name):  # two lambdas of one code, told apart by the value their closure holds
        return punstats.pattern("p")(lambda node, parents: type(node).__name__ == name)

    assert [hits(named(name))[0] for name in ("Return", "Assign")] == [["Return"], ["Assign"]]


class Matches:
    """A matcher whose behaviour is its state, which no digest describes."""

    def __init__(self, name):
        self.name = name

    def __call__(self, node, parents):
        return type(node).__name__ == self.name


def test_a_matcher_that_cannot_be_digested_is_not_cached(tmp_path):
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "a.py").write_text("def f():\n    return 1\nx = 2\n")
    found = []
    for name in ("Return", "Assign"):
        result = punstats.scan(str(tmp_path / "tree"), jobs=1, cache=str(tmp_path / "cache.sqlite"),
                               patterns=[punstats.pattern("p")(Matches(name))])
        assert "cache" not in result.summary and result.summary["patterns"][0]["sha256"] == ""
        found.append(result.of_kind("p")["name"].tolist())
    assert found == [["Return"], ["Assign"]]
