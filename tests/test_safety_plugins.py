"""Hostile and careless patterns (issue 27): whatever a user's matcher does, the run is not
hung, killed or corrupted; each thing it does wrong is a recorded file status with a reason
(``pattern_error``, ``pattern_timeout``, ``worker_died``) or a one-line error (exit 2)."""
import ast
import dataclasses
import json
import signal
import subprocess
import sys
import time

import pytest

from punstats.cli import main
from punstats.extract.traversal import extract
from punstats.model.kinds import Kind

SOURCE = b"def f(a):\n    g(a=a)\n    return a\n\n\ndef h():\n    return 2\n"


def kind(match, name="p", on=None):
    return Kind(name, name, "lines", occurrence=True, matcher=match, source="test", on=on)


def record_of(*matchers, source=SOURCE):
    return extract("m.py", source, patterns=[kind(m, "p%d" % i) for i, m in enumerate(matchers)])


class Truthy:
    def __init__(self, exc):
        self.exc = exc

    def __bool__(self):
        raise self.exc


def raising(exc):
    def match(node, parents):
        raise exc
    return match


@pytest.mark.parametrize("match, said", [
    (raising(SystemExit(3)), "pattern p0: SystemExit: 3"),
    (raising(KeyboardInterrupt()), "pattern p0: KeyboardInterrupt: "),
    (lambda node, parents: Truthy(SystemExit("bye")), "pattern p0: SystemExit: bye"),
    (lambda node, parents: Truthy(KeyboardInterrupt()), "pattern p0: KeyboardInterrupt: "),
    (lambda node, parents: Truthy(GeneratorExit()), "pattern p0: GeneratorExit: "),
])
def test_sys_exit_and_keyboard_interrupt_of_a_matcher_are_pattern_errors(match, said):
    record = record_of(match).record
    assert (record.status, record.error.rstrip()) == ("pattern_error", said.rstrip())


class Loud(Exception):
    def __str__(self):
        raise RuntimeError("no")


class BadRepr:
    def __repr__(self):
        raise RuntimeError("no")

    def __str__(self):
        raise RuntimeError("no")

    def __hash__(self):
        return 1


def at_return(value):
    return lambda node, parents: value if isinstance(node, ast.Return) else None


@pytest.mark.parametrize("match, said", [
    (raising(Loud()), "pattern p0: Loud: (its message raised RuntimeError)"),
    (raising(ValueError("x" * 1_000_000)), "pattern p0: ValueError: " + "x" * 499 + "\u2026"),
    (at_return({"k": BadRepr()}), "pattern p0: its fields cannot be stored as JSON (RuntimeError: no)"),
    (at_return({BadRepr(): 1}), "pattern p0: its fields must have string keys, not a BadRepr whose repr raised "
                                "RuntimeError"),
    (at_return({1: "a", "1": "b"}), "pattern p0: its fields must have string keys, not 1"),
    (at_return({"k": "v" * 20_000}), "pattern p0: its fields are 20,009 characters as JSON, over the limit of 10,000"),
    (at_return({"k": (lambda: 1)}), None),  # a value that does not pickle is stored as its str()
    (at_return({"two words": 1}), "pattern p0: its field names must be identifiers of at most 60 characters "
                                  "(columns field_<name>), not 'two words'"),
    (at_return({"k" * 61: 1}), "pattern p0: its field names must be identifiers of at most 60 characters "
                               "(columns field_<name>), not '" + "k" * 58 + "\u2026"),
    (at_return({"k%d" % i: i for i in range(65)}), "pattern p0: it returned 65 fields, over the limit of 64"),
])
def test_results_that_cannot_be_stored_are_pattern_errors(match, said):
    record = record_of(match).record
    if said is None:
        assert record.status == "ok"
    else:
        assert (record.status, record.error) == ("pattern_error", said)


def set_line(value):
    def match(node, parents):
        if isinstance(node, ast.Return):
            node.lineno = value
            return True
    return match


@pytest.mark.parametrize("value, said", [
    ("3", "pattern p0: the Return node's lineno is '3', not a position (a matcher must not change the tree)"),
    (None, None),  # a node without a line takes its ancestor's
    (10**9, "pattern p0: the Return node's lines 1000000000-7 are not in the file"),
])
def test_a_matcher_that_breaks_positions_fails_its_file(value, said):
    record = record_of(set_line(value)).record
    if said is None:
        assert record.status == "ok"
    else:
        assert record.status == "pattern_error" and record.error.startswith(said), record.error


def test_a_matcher_that_changes_the_tree_changes_no_other_row():
    honest = extract("m.py", SOURCE)

    def vandal(node, parents):
        if isinstance(node, ast.Module):
            for other in ast.walk(node):
                if hasattr(other, "lineno") and not isinstance(other, ast.Return):
                    other.lineno = other.end_lineno = 1
            node.body[:] = node.body[:1]
        return isinstance(node, ast.Return)

    def returns(node, parents):
        if isinstance(node, ast.Return):
            node.lineno = node.end_lineno = 1  # after the vandal's row was made: that row keeps its place
        return isinstance(node, ast.Return)

    result = record_of(vandal, returns)
    assert result.record.status == "ok"
    builtin = [o for o in result.occurrences if o.kind not in ("p0", "p1")]
    assert builtin == list(honest.occurrences) and result.functions == honest.functions
    assert result.record.code_lines == honest.record.code_lines
    # matchers are called once the walk is over, on every node of the tree as parsed: the returns the
    # vandal cut off are still met by both, and the row made before ``returns`` moved a node keeps its place
    assert [(o.kind, o.line) for o in result.occurrences if o.kind in ("p0", "p1")] == [
        ("p1", 1), ("p1", 1), ("p0", 3), ("p0", 7)]


LOADS = "import punstats\n{top}\n@punstats.pattern('p')\ndef match(node, parents):\n    return False\n"


@pytest.mark.parametrize("top, said", [
    ("raise SystemExit(0)", "line 2: SystemExit: 0"),
    ("import sys; sys.exit('bye')", "line 2: SystemExit: bye"),
    ("raise KeyboardInterrupt", "line 2: KeyboardInterrupt"),
])
def test_a_plugin_that_exits_while_loaded_is_a_one_line_error(tmp_path, capsys, top, said):
    plugin = tmp_path / "exits.py"
    plugin.write_text(LOADS.format(top=top))
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "a.py").write_text("f(x=x)\n")
    assert main(["scan", "-q", "--no-save", str(tmp_path / "tree"), "--pattern", str(plugin)]) == 2
    assert capsys.readouterr().err == "punstats: error: pattern file %s: %s\n" % (plugin, said)


def punstats_process(args, cwd, **kwargs):
    return subprocess.Popen([sys.executable, "-m", "punstats", *args], cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, **kwargs)


def test_a_ctrl_c_while_a_plugin_loads_still_stops_punstats(tmp_path):
    plugin = tmp_path / "slow.py"
    plugin.write_text(LOADS.format(top="import pathlib, time; pathlib.Path('started').touch(); time.sleep(60)"))
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "a.py").write_text("f(x=x)\n")
    proc = punstats_process(["scan", "-q", "--no-save", "tree", "--pattern", str(plugin)], tmp_path)
    try:
        deadline = time.monotonic() + 30
        while not (tmp_path / "started").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, err


MATCHER = """\
import ast, os, sys, time

import punstats


@punstats.pattern("p", on=ast.Return)
def match(node, parents):
    if node.lineno == 3:
{body}
    return True
"""


def tree_of(tmp_path, files=3):
    """``files`` files, each with a return at line 3 (where the matcher misbehaves) and one at line 7."""
    root = tmp_path / "tree"
    root.mkdir()
    for i in range(files):
        (root / ("m%d.py" % i)).write_bytes(SOURCE)
    return root


def run_scan(tmp_path, body, *args, files=3, timeout=120):
    """``punstats scan --json`` of a small tree with a matcher doing ``body`` at line 3; (exit status,
    {path: (status, error)} of the stored files, stdout, stderr)."""
    import pandas as pd
    plugin = tmp_path / "plugin.py"
    plugin.write_text(MATCHER.format(body="\n".join("        " + line for line in body.splitlines())))
    root = tree_of(tmp_path, files)
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "punstats", "scan", "--json", "-q", "--no-cache", "-o", str(out),
                           str(root), "--pattern", str(plugin), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=tmp_path)
    files_table = pd.read_parquet(out / "files.parquet") if (out / "files.parquet").exists() else None
    statuses = {} if files_table is None else dict(zip(files_table["path"], zip(files_table["status"],
                                                                                 files_table["error"])))
    return proc.returncode, statuses, proc.stdout, proc.stderr


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("body, status", [
    ("os._exit(3)", "worker_died"),
    ("sys.exit(3)", "pattern_error"),
    ("raise KeyboardInterrupt", "pattern_error"),
    ("time.sleep(600)", "pattern_timeout"),
    ("while True:\n    pass", "pattern_timeout"),
    ("while True:\n    try:\n        time.sleep(600)\n    except BaseException:\n        pass", "worker_died"),
])
def test_a_matcher_that_exits_or_stalls_costs_its_files_not_the_run(tmp_path, jobs, body, status):
    code, files, out, err = run_scan(tmp_path, body, "-j", jobs, "--pattern-timeout", "1")
    assert {path: s for path, (s, _) in files.items()} == dict.fromkeys(("m0.py", "m1.py", "m2.py"), status), err
    [summary] = json.loads(out)
    assert summary["failed_by_reason"] == {status: 3}
    if status == "worker_died":  # as when the out-of-memory killer ends a worker: said in the summary
        assert code == 0
    else:
        assert code == 1 and err.count("\n") == 1 and "status %s" % status in err, err


def test_a_timeout_says_the_deadline(tmp_path):
    code, files, out, err = run_scan(tmp_path, "time.sleep(600)", "--pattern-timeout", "0.5", files=1)
    assert files["m0.py"] == ("pattern_timeout", "pattern p: took longer than the deadline of 0.5 s per file "
                                                 "(--pattern-timeout)")


def test_prints_and_forks_of_a_matcher_do_not_reach_the_json_nor_outlive_the_scan(tmp_path):
    marker = tmp_path / "children.txt"
    body = ("print('noise', flush=True); os.write(1, b'raw noise\\n')\n"
            "if os.fork() == 0:\n"
            "    with open(%r, 'a') as f: f.write('%%d\\n' %% os.getpid())\n"
            "    if node.col_offset >= 0: time.sleep(600)\n" % str(marker))
    code, files, out, err = run_scan(tmp_path, body, files=2)
    assert code == 0, err
    [summary] = json.loads(out)
    assert summary["kinds"]["p"] == 4 and set(s for s, _ in files.values()) == {"ok"}
    assert "noise" in err and "raw noise" in err
    children = [int(pid) for pid in marker.read_text().split()]
    assert len(children) == 2
    until = time.monotonic() + 10  # SIGKILL is delivered asynchronously
    while not all(map(gone, children)) and time.monotonic() < until:
        time.sleep(0.1)
    assert all(map(gone, children))


def gone(pid):
    """The process ended (a zombie left for init to reap counts as ended)."""
    try:
        with open("/proc/%d/stat" % pid) as handle:
            return handle.read().rpartition(")")[2].split()[0] in ("Z", "X")
    except OSError:
        return True


@pytest.mark.parametrize("label, shown", [
    ("\x1b]8;;https://example.com\x1b\\click\x1b]8;;\x1b\\ here", "click here"),  # an OSC 8 hyperlink: its text
    ("red\x1b[31m\x1b[0m\rover\x00written\nline\u202eevil", "red over written line evil"),
    ("x" * 2_000_000, "x" * 199 + "\u2026"),
    ("", ""),
])
def test_a_label_is_cut_and_holds_no_control_character(label, shown):
    from punstats.model.kinds import LABEL_LIMIT, pattern
    match = pattern("p", label=label)(lambda node, parents: False)
    assert match.punstats_pattern.label == shown and len(shown) <= LABEL_LIMIT


def test_a_name_or_label_a_pattern_error_echoes_is_cut():
    from punstats.model.kinds import PatternError, pattern
    for bad in ("n" * 1_000_000, "../x", "a/b", "é\x1b[2J" * 100_000):
        with pytest.raises(PatternError) as caught:
            pattern(bad)
        assert len(str(caught.value)) < 200 and "\x1b" not in str(caught.value)
    with pytest.raises(PatternError, match=r"^pattern 'p': its label is text, not b'xxxxxx"):
        pattern("p", label=b"x" * 1_000_000)


def test_a_label_from_python_or_a_stored_scan_is_cleaned_and_no_formula_in_csv(tmp_path, capsys):
    import punstats
    from punstats.patterns.built_in import registry_of
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "a.py").write_bytes(SOURCE)
    given = Kind("p", '=HYPERLINK("https://example.com")\x1b[2J' + "y" * 500, "lines", occurrence=True,
                 matcher=lambda node, parents: isinstance(node, ast.Return))
    result = punstats.scan(str(tmp_path / "t"), jobs=1, patterns=[given])
    [recorded] = result.summary["patterns"]
    assert recorded["label"] == '=HYPERLINK("https://example.com")' + "y" * 166 + "\u2026"
    result.save(str(tmp_path / "out"))
    assert main(["table", str(tmp_path / "out"), "--kinds", "--format", "csv"]) == 0
    [row] = [line for line in capsys.readouterr().out.splitlines() if line.startswith("t,p,")]
    assert row.startswith('t,p,"\'=HYPERLINK(""https://example.com"")yyy')
    tampered = dict(result.summary, patterns=[dict(recorded, label="\x1b]0;title\x07" + "z" * 3_000_000)])
    assert registry_of(tampered)["p"].label == "z" * 199 + "\u2026"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the limit is RLIMIT_AS over /proc/self/statm")
@pytest.mark.parametrize("engine, megabytes", [
    (["-j", "1"], 120), (["-j", "2"], 120),
    (["--python", sys.executable], 300),  # its files are one blob, matched once: over the limit at once
])
def test_a_matcher_that_leaks_memory_meets_the_worker_s_limit(tmp_path, engine, megabytes):
    leak = "match.__dict__.setdefault('leak', []).append(bytearray(%d * 2 ** 20))" % megabytes  # kept: a leak
    code, files, out, err = run_scan(tmp_path, leak, *engine, "--pattern-memory", "200", files=4)
    [summary] = json.loads(out)
    assert set(files) == {"m0.py", "m1.py", "m2.py", "m3.py"}
    failed = {path: error for path, (status, error) in files.items() if status != "ok"}
    assert failed and all(error.startswith("pattern p: MemoryError") for error in failed.values()), files
    assert summary["failed_by_reason"] == {"pattern_error": len(failed)} and summary["files"] == 4
    assert code == 1 and err.count("\n") == 1 and "MemoryError" in err, err


@pytest.mark.parametrize("body, status", [
    ("os._exit(3)", "worker_died"),
    ("while True:\n    try:\n        time.sleep(600)\n    except BaseException:\n        pass", "pattern_timeout"),
])
def test_a_matcher_that_ends_or_outlasts_its_python_worker_costs_its_file(tmp_path, body, status):
    code, files, out, err = run_scan(tmp_path, body, "--python", sys.executable, "--pattern-timeout", "1", files=2)
    assert {path: s for path, (s, _) in files.items()} == {"m0.py": status, "m1.py": status}, err
    [summary] = json.loads(out)
    assert summary["failed_by_reason"] == {status: 2}


def replaces_children(node, parents):
    if isinstance(node, ast.FunctionDef):
        node.body = ast.parse("k(z=z)\nreturn z\n").body  # a new call, a new return: not counted as built-ins
        node.args.args.clear()
    return isinstance(node, ast.Return)


def clears_ancestors(node, parents):
    if isinstance(node, ast.Return):
        for parent in parents:
            for field in ("body", "decorator_list"):
                if isinstance(getattr(parent, field, None), list):
                    getattr(parent, field).clear()
    return isinstance(node, ast.Return)


@pytest.mark.parametrize("vandal", [replaces_children, clears_ancestors])
def test_a_matcher_that_rewrites_the_tree_changes_no_built_in_count(vandal):
    honest = extract("m.py", SOURCE)
    result = record_of(vandal)
    assert result.record.status == "ok"
    assert [o for o in result.occurrences if o.kind != "p0"] == list(honest.occurrences)
    assert result.functions == honest.functions
    assert dataclasses.replace(result.record, code_lines=0) == dataclasses.replace(honest.record, code_lines=0)


def test_parents_cannot_be_changed_by_a_matcher():
    def grows(node, parents):
        parents.append(node)

    record = record_of(grows).record
    assert (record.status, record.error) == ("pattern_error", "pattern p0: AttributeError: 'tuple' object has no "
                                                              "attribute 'append'")


def test_a_matcher_that_rewrites_the_tree_changes_no_other_pattern():
    """Matchers are called once the walk is over, on the nodes of the tree as parsed."""
    def returns(node, parents):
        return isinstance(node, ast.Return)

    def empties(node, parents):
        if isinstance(node, ast.Module):
            node.body.clear()  # before the walk enters it

    alone = record_of(returns)
    after_vandal = extract("m.py", SOURCE, patterns=[kind(empties, "p0"), kind(returns, "p1")])
    assert [o.line for o in after_vandal.occurrences if o.kind == "p1"] == \
        [o.line for o in alone.occurrences if o.kind == "p0"]



#: A matcher's body that appends a line to its own file, once (the test is of an actual newline).
EDITS_ITS_FILE = 'if "\\n# edited\\n" not in open(__file__).read():\n    open(__file__, "a").write("\\n# edited\\n")'


def run_edited(tmp_path, body, *args, files=6):
    """``run_scan`` of ``files`` files of distinct bytes (each one extracted, none reused by its
    blob); also the sha256 of the plugin file as the scan began."""
    import hashlib
    (tmp_path / "tree").mkdir()
    for i in range(files):
        (tmp_path / "tree" / ("m%d.py" % i)).write_bytes(SOURCE + b"# %d\n" % i)
    plugin = tmp_path / "plugin.py"
    plugin.write_text(MATCHER.format(body="\n".join("        " + line for line in body.splitlines())))
    began = hashlib.sha256(plugin.read_bytes()).hexdigest()
    proc = subprocess.run([sys.executable, "-m", "punstats", "scan", "--json", "-q", "--no-cache", "--no-save",
                           str(tmp_path / "tree"), "--pattern", str(plugin), *args], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    return proc.returncode, proc.stdout, proc.stderr, began


def test_a_plugin_file_edited_while_a_pool_scans_is_not_read_again(tmp_path):
    """The pool's workers are forked holding the patterns as the scan loaded them: an edit
    midway (here, by the matcher itself at its first file) changes no count and fails no file."""
    code, out, err, began = run_edited(tmp_path, EDITS_ITS_FILE, "-j", "2")
    assert (tmp_path / "plugin.py").read_text().endswith("\n# edited\n")
    [summary] = json.loads(out)
    assert code == 0 and summary["failed"] == 0 and summary["kinds"]["p"] == 12, err
    assert summary["patterns"][0]["sha256"] == began


def test_a_worker_loading_a_plugin_file_edited_while_the_scan_ran_stops_it_in_one_line(tmp_path):
    """A worker under another interpreter loads the patterns itself: one started after the
    file changed (here the first died after its matcher edited the file) refuses the new bytes,
    and the scan stops in one line rather than count files with two versions of a pattern."""
    code, out, err, _ = run_edited(tmp_path, EDITS_ITS_FILE + "\n    os._exit(3)", "--python", sys.executable,
                                   "-j", "1", files=2)
    assert (tmp_path / "plugin.py").read_text().endswith("\n# edited\n")
    assert code == 2 and err.count("\n") == 1 and out == "", err
    assert "plugin.py changed while the scan ran (pattern 'p'): run the scan again" in err, err
