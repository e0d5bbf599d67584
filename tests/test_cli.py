"""The ``punstats scan`` command end to end, on fixtures and on the standard library."""
import ast
import json
import os
import subprocess
import sys
import sysconfig
import warnings

import pandas as pd
import pytest

from punstats.cli import main

STDLIB = sysconfig.get_path("stdlib")


def run_cli(*args, cwd=None):
    """``punstats ARGS`` as a user runs it: (exit status, stdout, stderr)."""
    proc = subprocess.run([sys.executable, "-m", "punstats", *args], capture_output=True,
                          text=True, cwd=cwd, env=dict(os.environ, PYTHONWARNINGS="error"))
    return proc.returncode, proc.stdout, proc.stderr


# -- the standard library: punstats against an independent count ---------------------------

def independent_stdlib_count():
    """A plain os.walk + ast.parse + ast.walk count, sharing no code with punstats.

    Same corpus definition as punstats' default: files ending in .py, no
    site-packages / dist-packages / __pycache__ directories, links not followed.
    Besides the headline it counts every related kind the scan records.
    """
    c = dict.fromkeys(["calls", "keywords", "punnable", "failed", "class", "attribute", "dict_literal",
                       "dict_entries", "dict_call_punnable", "near_miss", "calls_no_arguments",
                       "calls_positional_only", "calls_keyword_only", "calls_mixed",
                       "calls_all_punnable", "max_call_punnable", "functions", "keyword_only",
                       "positional_only", "var_keyword", "attribute_self"], 0)
    for directory, dirs, files in os.walk(STDLIB):
        dirs[:] = [d for d in dirs if d not in ("site-packages", "dist-packages", "__pycache__")]
        for name in files:
            path = os.path.join(directory, name)
            if not name.endswith(".py") or os.path.islink(path):
                continue
            with open(path, "rb") as handle:
                data = handle.read()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    tree = ast.parse(data)
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                c["failed"] += 1
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Call):
                    c["calls"] += 1
                    if node.args and node.keywords:
                        c["calls_mixed"] += 1
                    elif node.args:
                        c["calls_positional_only"] += 1
                    elif node.keywords:
                        c["calls_keyword_only"] += 1
                    else:
                        c["calls_no_arguments"] += 1
                    named = [kw for kw in node.keywords if kw.arg is not None]
                    same = [kw for kw in named if isinstance(kw.value, ast.Name) and kw.value.id == kw.arg]
                    c["keywords"] += len(named)
                    c["punnable"] += len(same)
                    if same and len(same) == len(named):
                        c["calls_all_punnable"] += 1
                    c["max_call_punnable"] = max(c["max_call_punnable"], len(same))
                    if isinstance(node.func, ast.Name) and node.func.id == "dict":
                        c["dict_call_punnable"] += len(same)
                    for kw in named:
                        v = kw.value
                        if isinstance(v, ast.Attribute) and v.attr == kw.arg:
                            c["attribute"] += 1
                            if isinstance(v.value, ast.Name) and v.value.id == "self":
                                c["attribute_self"] += 1
                        if (isinstance(v, ast.Name) and v.id != kw.arg and kw.arg.strip("_")
                                and v.id.strip("_") == kw.arg.strip("_")):
                            c["near_miss"] += 1
                elif isinstance(node, ast.ClassDef):
                    c["class"] += sum(1 for kw in node.keywords
                                      if isinstance(kw.value, ast.Name) and kw.value.id == kw.arg)
                elif isinstance(node, ast.Dict):
                    for key, value in zip(node.keys, node.values):
                        if isinstance(key, ast.Constant) and isinstance(key.value, str):
                            c["dict_entries"] += 1
                            if isinstance(value, ast.Name) and value.id == key.value:
                                c["dict_literal"] += 1
                elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    c["functions"] += 1
                    c["keyword_only"] += len(node.args.kwonlyargs)
                    c["positional_only"] += len(node.args.posonlyargs)
                    c["var_keyword"] += node.args.kwarg is not None
    return c


@pytest.fixture(scope="module")
def stdlib_scans(tmp_path_factory):
    """The standard library scanned twice through the CLI, with 2 workers and with 1."""
    out = tmp_path_factory.mktemp("scans")
    results = {}
    for jobs in ("2", "1"):
        code, stdout, stderr = run_cli("scan", "--json", "-q", "--no-cache", "--jobs", jobs, "-o", str(out / jobs))
        assert code == 0, stderr
        assert stderr == ""
        [results[jobs]] = json.loads(stdout)  # always an array, one summary per path
    return out, results


@pytest.mark.slow  # the whole standard library
def test_stdlib_counts_equal_an_independent_ast_walk(stdlib_scans):
    _, results = stdlib_scans
    summary = results["2"]
    expected = independent_stdlib_count()
    headline = ("calls", "keywords", "punnable", "failed")
    assert {key: summary[key] for key in headline} == {key: expected[key] for key in headline}
    assert summary["punnable"] > 1000 and summary["parsed"] > 1000  # a real corpus
    assert summary["root"] == os.path.abspath(STDLIB)
    measured = dict(summary["kinds"], **{k: summary["parameters"][k] for k in
                                          ("keyword_only", "positional_only", "var_keyword")})
    kinds = {key: measured[key] for key in expected if key not in headline + ("punnable",)}
    assert kinds == {key: expected[key] for key in kinds}
    assert summary["kinds"]["call"] == summary["punnable"]
    assert all(value > 0 for value in kinds.values()), kinds  # each kind occurs in the stdlib


@pytest.mark.slow  # the whole standard library
def test_stdlib_summary_has_the_documented_keys(stdlib_scans):
    _, results = stdlib_scans
    summary = results["2"]
    for key in ("files", "parsed", "failed", "calls", "keywords", "punnable", "punnable_pct", "long",
                "long_nontest", "long_threshold", "test_rule", "python", "punstats_version", "root"):
        assert key in summary, key
    assert summary["punnable_pct"] == pytest.approx(100 * summary["punnable"] / summary["keywords"], abs=1e-4)
    assert summary["files"] == summary["parsed"] + summary["failed"]
    assert summary["failed"] == sum(summary["failed_by_reason"].values())
    assert summary["python"] == "%d.%d.%d" % sys.version_info[:3]
    assert summary["test_rule"] == "components" and summary["long_threshold"] == 10
    assert summary["long_nontest"] < summary["long"] < summary["punnable"]


@pytest.mark.slow  # the whole standard library
def test_jobs_1_and_2_store_identical_results(stdlib_scans):
    out, results = stdlib_scans
    for name in ("occurrences.parquet", "files.parquet"):
        two, one = pd.read_parquet(out / "2" / name), pd.read_parquet(out / "1" / name)
        pd.testing.assert_frame_equal(two, one)
    summaries = [json.loads((out / jobs / "summary.json").read_text()) for jobs in ("2", "1")]
    for summary in summaries:
        summary.pop("created")
    assert summaries[0] == summaries[1]


@pytest.mark.slow  # the whole standard library
def test_stored_tables_agree_with_the_summary(stdlib_scans):
    out, results = stdlib_scans
    occ = pd.read_parquet(out / "2" / "occurrences.parquet")
    files = pd.read_parquet(out / "2" / "files.parquet")
    summary = results["2"]
    assert (occ["kind"] == "call").sum() == summary["punnable"] == files["punnable"].sum()
    long = occ[(occ["kind"] == "call") & (occ["name_len"] >= 10)]
    assert (len(long), (~long["in_test"]).sum()) == (summary["long"], summary["long_nontest"])
    assert (occ["name_len"] == occ["name"].str.len()).all()


# -- bad input never stops a scan ------------------------------------------------------------

GOOD = {"good.py": "f(x=x)\n", "pkg/mod.py": "g(alpha=alpha, beta=beta)\n"}


def bad_tree(root):
    for rel, text in GOOD.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    bad = {
        "py2.py": b"print 'hello'\nf(a=a)\n",
        "latin.py": b"s = '\xe9'\nf(b=b)\n",
        "cookie.py": b"# -*- coding: latin-1 -*-\ns = '\xe9'\nf(c=c)\n",
        "bom.py": b"\xef\xbb\xbff(d=d)\n",
        "nul.py": b"f(e=e)\0\n",
        "binary.py": bytes(range(256)),
        "empty.py": b"",
        "huge.py": b"f(g=g)\n" * 200000,
        "deep.py": b"x = " + b"(" * 300 + b")" * 300 + b"\n",
        "recursive.py": b"x = 1" + b" + 1" * 100000 + b"\n",
    }
    for name, data in bad.items():
        (root / name).write_bytes(data)
    (root / "dir.py").mkdir()
    os.mkfifo(root / "fifo.py")
    os.symlink(root / "loop.py", root / "loop.py")
    os.symlink(root, root / "subloop")


def test_bad_input_is_recorded_and_good_files_are_counted(tmp_path):
    root = tmp_path / "corpus"
    root.mkdir()
    bad_tree(root)
    code, stdout, stderr = run_cli("scan", str(root), "--json", "-q", "--max-bytes", "1000000",
                                   "-o", str(tmp_path / "out"))
    assert code == 0, stderr
    [summary] = json.loads(stdout)
    files = pd.read_parquet(tmp_path / "out" / "files.parquet").set_index("path")
    assert files["status"].to_dict() == {
        "binary.py": "null_bytes", "bom.py": "ok", "cookie.py": "ok", "deep.py": "syntax_error",
        "dir.py": "directory", "empty.py": "ok", "fifo.py": "not_regular", "good.py": "ok",
        "huge.py": "too_large", "latin.py": "decode_error", "loop.py": "symlink_loop",
        "nul.py": "null_bytes", "pkg/mod.py": "ok", "py2.py": "syntax_error",
        "recursive.py": "too_deep",
    }
    assert "Missing parentheses" in files.loc["py2.py", "error"]
    assert files.loc["latin.py", "error_line"] == 1
    assert files.loc["huge.py", "bytes"] == 1400000
    occ = pd.read_parquet(tmp_path / "out" / "occurrences.parquet")
    assert sorted(occ["name"]) == ["alpha", "beta", "c", "d", "x"]
    assert summary["punnable"] == 5 and summary["parsed"] == 5
    assert summary["failed_by_reason"] == {"decode_error": 1, "not_regular": 1, "null_bytes": 2,
                                           "symlink_loop": 1, "syntax_error": 2, "too_deep": 1,
                                           "too_large": 1}
    assert summary["skipped_files"] == {"directory": 1} and summary["skipped_dirs"] == {"symlink": 1}


# -- usage errors and outputs ----------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    (["scan", "/no/such/dir"], "no such file or directory: /no/such/dir"),
    (["scan", "--jobs", "0"], "expected a number of at least 1"),
    (["scan", "--test-rule", "nonsense"], "unknown test rule 'nonsense'"),
    (["scan", "--test-pattern", "("], "bad test pattern"),
    (["frobnicate"], "invalid choice"),
])
def test_usage_errors_are_one_line_exit_2(args, message, tmp_path):
    code, stdout, stderr = run_cli(*args, cwd=tmp_path)
    assert code == 2
    assert stderr.count("\n") == 1 and stderr.startswith("punstats: error: ") and message in stderr
    assert "Traceback" not in stderr and stdout == ""
    assert list(tmp_path.iterdir()) == []  # nothing stored


def test_default_output_directory_csv_and_readable_summary(tmp_path):
    corpus = tmp_path / "proj"
    corpus.mkdir()
    (corpus / "a.py").write_text("f(frobnication=frobnication, x=x)\nclass A(metaclass=metaclass): pass\n")
    (corpus / "test_a.py").write_text("f(frobnication=frobnication)\n")
    code, stdout, stderr = run_cli("scan", str(corpus), "--csv", cwd=tmp_path)
    assert code == 0, stderr
    stored = tmp_path / "data" / "proj"
    assert sorted(os.listdir(stored)) == ["files.csv", "files.parquet", "functions.csv", "functions.parquet",
                                          "occurrences.csv", "occurrences.parquet", "summary.json"]
    assert len(pd.read_csv(stored / "occurrences.csv")) == 4
    lines = dict(line.split("  ", 1) for line in stdout.splitlines())
    assert lines["punnable f(x=x)"].strip().startswith("3 ")
    assert lines["long (>= 10 chars)"].strip() == "2"
    assert lines["long outside tests"].strip().startswith("1 ") and "components" in stdout
    summary = json.loads((stored / "summary.json").read_text())
    assert (summary["class_punnable"], summary["punnable"]) == (1, 3)


def test_several_paths_each_stored_json_array(tmp_path, capsys):
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "m.py").write_text("f(%s=%s)\n" % (name, name))
    code = main(["scan", str(tmp_path / "one"), str(tmp_path / "two"), "--json", "-q",
                 "-o", str(tmp_path / "out")])
    assert code == 0
    summaries = json.loads(capsys.readouterr().out)
    assert [s["corpus"] for s in summaries] == ["one", "two"]
    assert sorted(os.listdir(tmp_path / "out")) == ["one", "two"]


def test_test_rule_and_threshold_options(tmp_path, capsys):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "attestation.py").write_text("f(long_name_here=long_name_here)\n")
    (tmp_path / "src" / "tests").mkdir()
    (tmp_path / "src" / "tests" / "t.py").write_text("f(long_name_here=long_name_here)\n")
    summaries = {}
    for rule in (["--test-rule", "components"], ["--test-rule", "substring"], ["--test-pattern", "^src/a"]):
        assert main(["scan", str(tmp_path / "src"), "--json", "--no-save", "-q", *rule]) == 0
        [summaries[rule[-1]]] = json.loads(capsys.readouterr().out)
    assert {k: s["long_nontest"] for k, s in summaries.items()} == {"components": 1, "substring": 0, "^src/a": 2}
    assert summaries["^src/a"]["test_rule"] == "regex:^src/a"
    assert main(["scan", str(tmp_path / "src"), "--json", "--no-save", "-q", "--long", "20"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["long"] == 0


def test_scan_json_has_one_shape_for_any_number_of_paths(tmp_path, capsys):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("f(x=x)\n")
    for paths in ([str(tmp_path / "src")], [str(tmp_path / "src")] * 2):
        assert main(["scan", *paths, "--json", "--no-save", "-q"]) == 0
        summaries = json.loads(capsys.readouterr().out)
        assert isinstance(summaries, list) and len(summaries) == len(paths)
        assert all(s["punnable"] == 1 and type(s["cache"]["tables_reused"]) is bool for s in summaries)


def test_no_save_never_reads_the_tables_back_and_leaves_no_temporary_directory(tmp_path, monkeypatch, capsys):
    import tempfile

    from punstats import store
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("f(x=x, y=y)\n")
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    monkeypatch.setattr(store, "read_table", lambda *args, **kwargs: 1 / 0)  # the tables stay on disk
    assert main(["scan", str(tmp_path / "src"), "--json", "--no-save", "-q", "--no-cache"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["punnable"] == 2
    assert list((tmp_path / "tmp").iterdir()) == []  # written there as the scan ran, removed at the end


@pytest.mark.parametrize("extra", [["--csv"], ["-o", "kept"]])
def test_no_save_with_an_option_that_stores_is_one_line_before_any_scan(tmp_path, monkeypatch, capsys, extra):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("f(x=x)\n")
    monkeypatch.chdir(tmp_path)
    assert main(["scan", "src", "--no-save", "-q", *extra]) == 2
    out, err = capsys.readouterr()
    assert err == "punstats: error: --no-save stores nothing: %s writes a stored scan's files (drop one)\n" % extra[0]
    assert out == "" and sorted(p.name for p in tmp_path.iterdir()) == ["src"]


@pytest.mark.parametrize("where", ["-o", "--no-save"])
def test_a_scan_ended_by_sigterm_removes_what_it_had_started_to_write(tmp_path, where):
    """``kill`` or ``timeout`` ends a scan as Ctrl-C does: exit 143 after its clean-up, no
    half-written output beside ``-o`` and no temporary directory left."""
    import signal
    import textwrap
    import time
    started = tmp_path / "started"
    stall = tmp_path / "stall.py"  # a pattern that says when the scan is under way, then waits to be ended
    stall.write_text(textwrap.dedent("""
        import time
        import punstats

        @punstats.pattern("stall")
        def match(node, parents):
            open(%r, "w").close()
            time.sleep(120)
            return False
    """ % str(started)))
    corpus, out, temporary = tmp_path / "corpus", tmp_path / "out" / "scan", tmp_path / "tmp"
    corpus.mkdir()
    (corpus / "a.py").write_text("f(x=x)\n")
    temporary.mkdir()
    command = [sys.executable, "-m", "punstats", "scan", str(corpus), "-j", "1", "--no-cache", "-q",
               "--pattern", str(stall)] + (["-o", str(out)] if where == "-o" else ["--no-save"])
    proc = subprocess.Popen(command, env=dict(os.environ, TMPDIR=str(temporary)), stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while not started.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # polls for the scan's own signal that it is under way
    assert started.exists(), proc.stderr.read().decode() if proc.poll() is not None else "not started"
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=120) == 143
    assert proc.stderr.read().decode().strip().splitlines()[-1] == "punstats: terminated"
    assert os.listdir(temporary) == []
    if where == "-o":
        assert not out.exists() and os.listdir(out.parent) == []  # no .scan.partial-* beside it


LEFT_CHILD = """
import argparse, multiprocessing, sys, time
from punstats import cli
from punstats.model.processes import Terminated

def handler(args):
    # a worker left waiting, as when a SIGTERM lands while a pool is started or closed
    multiprocessing.get_context("fork").Process(target=time.sleep, args=(600,)).start()
    raise Terminated()

built = cli.build_parser
def build():
    parser = built()
    parser.parse_args = lambda argv: argparse.Namespace(handler=handler)
    return parser
cli.build_parser = build
sys.exit(cli.main([]))
"""


def test_a_terminated_command_leaves_no_child_process_for_its_exit_to_wait_for():
    """At exit, multiprocessing waits for every child process it started: one left waiting for
    work would hold the command up forever after "terminated"."""
    done = subprocess.run([sys.executable, "-c", LEFT_CHILD], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stderr) == (143, "punstats: terminated\n")
