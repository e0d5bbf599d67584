"""User patterns in the top-N run (``corpus top-pypi:N --pattern``, ``runs.ecosystem``), against a
fake PyPI on 127.0.0.1: each project's counts are ``punstats scan``'s of the same files, the pooled
counts their sums, and a run is not resumed with other patterns (an edited pattern file).
"""
import json
import os

import pandas as pd
import pytest
from fakeindex import sdist, top_list
from fakerun import TRIES  # the user pattern file the runs count (try with finally)

from punstats.cli import main
from punstats.runs import ecosystem as run
from punstats.runs.ecosystem_dask import shared_cache

FINALLY = "def f():\n    try:\n        pass\n    finally:\n        return 1\n"
EXCEPT = "try:\n    x = 1\nexcept E:\n    pass\n"

#: Three projects: try statements with and without finally, in and outside tests.
PROJECTS = {
    "alpha": {"alpha/core.py": FINALLY * 2 + "f(x=x)\n", "tests/test_core.py": FINALLY + EXCEPT},
    "beta": {"beta/__init__.py": EXCEPT * 3, "beta/m.py": FINALLY},
    "gamma": {"gamma/m.py": "g(y=y)\n", "gamma/tests/test_m.py": FINALLY * 4},
}
NAMES = sorted(PROJECTS)


@pytest.fixture
def setup(tmp_path, index, monkeypatch):
    """The projects on the fake index, the list, the pattern file; the run's command line."""
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    for name, files in PROJECTS.items():
        index.project(name, "1.0", [("%s-1.0.tar.gz" % name, sdist(name, "1.0", files), "sdist")])
    listing = top_list(tmp_path / "list.json", NAMES)
    plugin = tmp_path / "tries.py"
    plugin.write_text(TRIES)

    def command(*extra):
        return ["corpus", "top-pypi:3", "--top-pypi-list", listing, "--index-url", index.index_url,
                "-o", str(tmp_path / "out"), "-j", "1", "--no-figure", *extra]
    return command, plugin


def scanned_alone(tmp_path, capsys, name, plugin):
    """``punstats scan`` of the project's files, written to a directory, with the pattern."""
    root = tmp_path / "alone" / name
    for path, text in PROJECTS[name].items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    assert main(["scan", "--json", "--no-save", "-q", "--no-cache", str(root), "--pattern", str(plugin)]) == 0
    [summary] = json.loads(capsys.readouterr().out)
    return summary


def test_each_project_and_the_ecosystem_count_a_pattern_as_scan_does(tmp_path, capsys, setup):
    command, plugin = setup
    assert main(command("--pattern", str(plugin), "--json", "-q")) == 0
    result = json.loads(capsys.readouterr().out)
    records, ecosystem = {r["project"]: r for r in result["projects"]}, result["ecosystem"]
    alone = {name: scanned_alone(tmp_path, capsys, name, plugin) for name in NAMES}
    for name in NAMES:
        got, want = records[name]["summary"], alone[name]
        for key in ("kinds", "kinds_nontest", "units", "units_nontest", "patterns"):
            assert got[key] == want[key], (name, key)
    assert [alone[name]["kinds"]["try_finally"] for name in NAMES] == [3, 1, 4]  # the fixture as meant
    assert [alone[name]["kinds_nontest"]["try_finally"] for name in NAMES] == [2, 1, 0]
    for scope, kinds, units in (("all", "kinds", "units"), ("nontest", "kinds_nontest", "units_nontest")):
        count = sum(alone[name][kinds]["try_finally"] for name in NAMES)
        tries = sum(alone[name][units]["Try"] for name in NAMES)
        assert ecosystem["kinds"][scope]["try_finally"] == {"count": count, "pct": round(100.0 * count / tries, 4)}
    assert [p["sha256"] for p in ecosystem["patterns"]] == [alone["alpha"]["patterns"][0]["sha256"]]
    assert ecosystem["rules"]["patterns"] == ecosystem["patterns"]
    out = tmp_path / "out"
    files, occurrences = pd.read_parquet(out / "files"), pd.read_parquet(out / "occurrences")  # the pooled dataset
    assert files.groupby("project")["nodes_Try"].sum().to_dict() == {n: alone[n]["units"]["Try"] for n in NAMES}
    matches = occurrences[occurrences["kind"] == "try_finally"]
    assert matches.groupby("project").size().to_dict() == {n: alone[n]["kinds"]["try_finally"] for n in NAMES}
    assert int((~matches["in_test"]).sum()) == ecosystem["kinds"]["nontest"]["try_finally"]["count"]


def test_the_console_shows_the_pattern_per_project_and_pooled(tmp_path, capsys, setup):
    command, plugin = setup
    assert main(command("--pattern", str(plugin), "-q", "--kind", "call")) == 0  # the one pattern is the default
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("  ")[-1] for line in lines[:3]] == ["try_finally 3", "try_finally 1", "try_finally 4"]
    ecosystem = json.loads((tmp_path / "out" / run.ECOSYSTEM_FILE).read_text())
    pct = ecosystem["kinds"]["all"]["try_finally"]["pct"]
    assert "  pattern try_finally: all code 8 (%.2f%% of Try nodes)" % pct in "\n".join(lines)


def snapshot(out):
    return {path: path.read_bytes() for path in sorted(out.rglob("*")) if path.is_file() and path.name != "run.json"}


def test_a_run_resumes_with_its_pattern_file_only_as_it_was(tmp_path, capsys, setup):
    command, plugin = setup
    assert main(command("--pattern", str(plugin), "--json", "-q")) == 0
    first = json.loads(capsys.readouterr().out)
    before = snapshot(tmp_path / "out")
    plugin.write_text(TRIES.replace("bool(node.finalbody)", "bool(node.handlers)"))  # edited: counts others
    assert main(command("--pattern", str(plugin), "--skip-existing", "-q")) == 2
    err = capsys.readouterr().err
    assert err.startswith("punstats: error: %s was made with other patterns (try_finally from %s, sha256 "
                          % (tmp_path / "out", plugin)) and err.endswith("; use another -o\n")
    assert err.count("\n") == 1
    assert main(command("--skip-existing", "-q")) == 2  # and without it
    assert "sha256 %s; now none); use another -o\n" % first["ecosystem"]["patterns"][0]["sha256"][:12] \
        in capsys.readouterr().err
    assert snapshot(tmp_path / "out") == before  # nothing lost, nothing mixed in
    plugin.write_text(TRIES)
    assert main(command("--pattern", str(plugin), "--skip-existing", "--json", "-q")) == 0
    again = json.loads(capsys.readouterr().out)
    assert dict(again["ecosystem"], cache=None) == dict(first["ecosystem"], cache=None)


def test_a_run_recorded_before_every_rule_was_still_resumes_without_patterns(tmp_path, capsys, setup):
    command, _ = setup
    assert main(command("-q")) == 0
    recorded = json.loads((tmp_path / "out" / run.RUN_FILE).read_text())
    assert "patterns" not in recorded["rules"] and recorded["rules"]["test_rule"]
    recorded["rules"] = {k: recorded["rules"][k] for k in ("test_rule", "long_threshold")}
    (tmp_path / "out" / run.RUN_FILE).write_text(json.dumps(recorded))
    capsys.readouterr()
    assert main(command("--skip-existing", "-q")) == 0
    assert capsys.readouterr().out.count("(already stored)") == 3
    assert main(command("--skip-existing", "-q", "--long", "7")) == 2
    assert "was made with another rules (long_threshold " in capsys.readouterr().err


def test_rules_changed_names_what_differs():
    rules = {"test_rule": "default", "long_threshold": 3,
             "patterns": [{"name": "p", "label": "p", "per": "lines", "source": "a/p.py", "sha256": "ab" * 32}]}
    moved = dict(rules, patterns=[dict(rules["patterns"][0], source="/b/p.py")])
    assert run.rules_changed(rules, moved) is None  # the same file read from elsewhere
    assert run.rules_changed(rules, dict(rules, long_threshold=4)) == "another rules (long_threshold 3, now 4)"
    assert run.rules_changed({"long_threshold": 3}, dict(rules, patterns=[])) is None
    assert run.rules_changed(rules, dict(rules, patterns=[])) == (
        "other patterns (p from a/p.py, sha256 abababababab; now none)")


def stored_tables(out):
    """Each project's stored tables, as bytes."""
    return {str(path.relative_to(out)): path.read_bytes() for table in run.TABLES
            for path in sorted((out / table).glob("*.parquet"))}


def test_the_dask_engine_counts_a_pattern_as_the_local_engine_and_shares_the_blob_cache(tmp_path, capsys, setup):
    distributed = pytest.importorskip("distributed")
    command, plugin = setup
    runs = {}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  scheduler_kwargs={"dashboard_address": ":0"}) as cluster:
        dask = "dask:" + cluster.scheduler_address
        for name, engine in (("first", dask), ("again", dask), ("local", "local")):
            args = command("--pattern", str(plugin), "--engine", engine, "--json", "-q")
            args[args.index("-o") + 1] = str(tmp_path / name)
            assert main(args + (["--no-cache"] if engine == "local" else [])) == 0
            runs[name] = json.loads(capsys.readouterr().out)["ecosystem"]
    assert stored_tables(tmp_path / "first") == stored_tables(tmp_path / "local")
    assert stored_tables(tmp_path / "again") == stored_tables(tmp_path / "local")
    # the workers see the run's blob cache (one disk): the second run extracts nothing again
    assert runs["first"]["cache"] == {"cached": 0, "extracted": 6} and runs["again"]["cache"] == {
        "cached": 6, "extracted": 0}
    assert {k: v for k, v in runs["first"].items() if k not in ("cache", "list")} == {
        k: v for k, v in runs["local"].items() if k not in ("cache", "list")}


def test_workers_that_do_not_see_the_blob_cache_run_without_it(tmp_path):
    class Client:
        def run(self, function, *args):
            return {"tcp://w1": function(*args), "tcp://w2": False}  # w2: another machine

    class Everywhere(Client):
        def run(self, function, *args):
            return {"tcp://w1": function(*args), "tcp://w2": function(*args)}

    path = str(tmp_path / "cache" / "blobs.sqlite3")
    assert shared_cache(Everywhere(), path) == path
    assert shared_cache(Client(), path) is None and shared_cache(Everywhere(), False) is None
    assert os.listdir(tmp_path / "cache") == []  # the token it wrote is gone


#: A pattern whose fields differ by project: alpha's calls (f) have no ``g`` and an int ``n``,
#: gamma's (g) a bool ``g`` and a text ``n``; beta has no call.
FIELDED = '''\
import ast

import punstats


@punstats.pattern("named_calls", label="calls of a name", per="calls", on=ast.Call)
def match(node, parents):
    if node.func.id == "f":
        return {"name": "f", "n": 1}
    return {"name": node.func.id, "n": "one", "g": True}
'''


def test_every_projects_table_has_the_runs_field_columns(tmp_path, capsys, setup):
    command, _ = setup
    plugin = tmp_path / "fielded.py"
    plugin.write_text(FIELDED)
    assert main(command("--pattern", str(plugin), "-q")) == 0
    out = tmp_path / "out"
    occurrences = pd.read_parquet(out / "occurrences")  # as the README reads it: one file's columns
    rows = occurrences[occurrences["kind"] == "named_calls"].set_index("project")
    got = {project: {k: (None if pd.isna(v) else v) for k, v in row.items()}
           for project, row in rows[["field_name", "field_n", "field_g"]].to_dict("index").items()}
    assert got == {"alpha": {"field_name": "f", "field_n": "1", "field_g": None},  # the int 1 as text beside "one"
                   "gamma": {"field_name": "g", "field_n": "one", "field_g": True}}
    assert str(occurrences["field_g"].dtype) == "boolean" and str(occurrences["field_n"].dtype) == "str"
    assert occurrences[occurrences["kind"] == "call"]["field_name"].isna().all()
    capsys.readouterr()
    assert main(["hits", str(out), "--json"]) == 0  # the run's one pattern
    assert [json.loads(line)["fields"] for line in capsys.readouterr().out.splitlines()] == [
        {"name": "f", "n": "1"}, {"name": "g", "n": "one", "g": True}]
    assert main(["table", str(out), "--kind", "named_calls"]) == 0 and "alpha" in capsys.readouterr().out
    assert main(["label", str(out), "--kind", "named_calls", "-o", str(tmp_path / "labels")]) == 0
    assert main(["report", str(out), "--kind", "named_calls", "-o", str(tmp_path / "report.md")]) == 0
    capsys.readouterr()
    before = snapshot(out)
    assert main(command("--pattern", str(plugin), "--skip-existing", "-q")) == 0  # resumed: as it was
    assert snapshot(out) == before
