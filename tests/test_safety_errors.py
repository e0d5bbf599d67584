"""One line, never a traceback: numbers out of range, stored files nested thousands deep
or of the wrong shape, a full disk, resource limits, absurd commit dates, huge names.

Each bad input ends as ``punstats: error: ...`` with exit status 2 (or a recorded
reason), and a stored scan that was there is left as it was.
"""
import contextlib
import errno
import json
import os
import resource
import subprocess
import sys

import pandas as pd
import pyarrow.parquet as pq
import pytest
from gitrepo import ENV, commit, git, init

import punstats
from punstats import cli
from punstats.store.disk import StoreError

HUGE = "1" * 34
DEEP = "[" * 100_000 + "]" * 100_000


def _error(capsys, argv, warnings=()):
    """The one line ``argv`` prints on standard error (besides warnings starting with one of
    ``warnings``); it must exit with status 2."""
    assert cli.main(argv) == 2
    lines = [line for line in capsys.readouterr().err.splitlines() if not warnings or not line.startswith(warnings)]
    assert len(lines) == 1 and lines[0].startswith("punstats: error: "), lines
    return lines[0]


@pytest.fixture
def stored(tmp_path):
    """A small stored scan (a copy per test: tests damage it)."""
    root = tmp_path / "tree"
    root.mkdir()
    (root / "a.py").write_text("f(alpha=alpha, beta=beta)\ndef g(x, *, y=1):\n    pass\n")
    (root / "b.py").write_text("g(gamma=gamma)\n")
    directory = str(tmp_path / "scan")
    punstats.scan(str(root), jobs=1, cache=False, output=directory)
    return directory


# -- numbers --------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["scan", ".", "--no-save", "--long", HUGE],
    ["scan", ".", "--no-save", "--max-bytes", HUGE],
    ["scan", ".", "--no-save", "-j", HUGE],
    ["table", "x", "--long", HUGE],
    ["table", "x", "-n", HUGE],
    ["history", ".", "--long", HUGE],
    ["corpus", "top-pypi:3", "--download-cap", HUGE],
    ["corpus", "top-pypi:3", "--download-jobs", HUGE],
    ["scan", ".", "--no-save", "--long", "9" * 5000],  # more digits than int() reads
])
def test_a_number_too_large_is_a_usage_error(capsys, argv):
    line = _error(capsys, argv)
    assert "at most" in line or "expected a whole number" in line
    assert len(line) < 200


# -- stored files nested thousands deep, or of the wrong shape ------------------------------------

def _set_summary(directory, text):
    with open(os.path.join(directory, "summary.json"), "w") as handle:
        handle.write(text)


def test_a_summary_nested_thousands_deep_is_one_line(stored, capsys):
    _set_summary(stored, DEEP)
    for argv in (["table", stored], ["report", stored, "--no-figures", "-o", stored + ".md"]):
        line = _error(capsys, argv)
        assert line == "punstats: error: %s: not a stored scan's summary (nested too deeply)" % os.path.join(
            stored, "summary.json")
    with pytest.raises(StoreError, match="nested too deeply"):
        punstats.load(stored)


def _summary(directory):
    with open(os.path.join(directory, "summary.json")) as handle:
        return json.load(handle)


WRONG_SHAPES = [
    ("list", lambda s: [s], "an object was expected, not a list"),
    ("null", lambda s: None, "an object was expected, not null"),
    ("missing", lambda s: {k: v for k, v in s.items() if k != "punnable"}, "missing punnable"),
    ("count-string", lambda s: dict(s, keywords="12"), "keywords should be a whole number, not a string"),
    ("count-null", lambda s: dict(s, files=None), "files should be a whole number, not null"),
    ("count-bool", lambda s: dict(s, parsed=True), "parsed should be a whole number, not a boolean"),
    ("corpus-list", lambda s: dict(s, corpus=["a"]), "corpus should be a string, not a list"),
    ("rules-list", lambda s: dict(s, rules=[1]), "rules should be an object, not a list"),
    ("rules-threshold", lambda s: dict(s, rules=dict(s["rules"], long_threshold="10")),
     "rules.long_threshold should be a whole number, not a string"),
    ("top-pairs", lambda s: dict(s, top_identifiers=[["x"]]), "top_identifiers should be a list of"),
    ("kinds", lambda s: dict(s, kinds=[]), "kinds should be an object of numbers, not a list"),
    ("kinds-values", lambda s: dict(s, kinds={"call": "many"}), "kinds should be an object of numbers"),
    ("cache", lambda s: dict(s, cache="yes"), "cache should be an object of numbers, not a string"),
    ("lines-saved", lambda s: dict(s, lines_saved={"lines_saved": "3"}), "lines_saved should be an object of"),
    ("python", lambda s: dict(s, python=3), "python should be a string, not a number"),
    # what a scan of an archive or an installed package records, which provenance and Reproduce read
    ("archive", lambda s: dict(s, archive="x.tar.gz"), "archive should be an object, not a string"),
    ("distribution", lambda s: dict(s, distribution="x"), "distribution should be an object of name and version"),
    ("distribution-version", lambda s: dict(s, distribution={"name": "x"}), "distribution should be an object"),
]


@pytest.mark.parametrize("change, expected", [(c, e) for _, c, e in WRONG_SHAPES],
                         ids=[name for name, _, _ in WRONG_SHAPES])
def test_a_summary_of_the_wrong_shape_is_one_line(stored, capsys, change, expected):
    _set_summary(stored, json.dumps(change(_summary(stored))))
    path = os.path.join(stored, "summary.json")
    for argv in (["table", stored], ["table", stored, "--format", "markdown", "--links"],
                 ["table", stored, "--format", "csv"], ["table", stored, "--kinds"],
                 ["report", stored, "--no-figures", "-o", stored + ".md"]):
        line = _error(capsys, argv)
        assert line.startswith("punstats: error: %s: not a stored scan's summary (" % path), line
        assert expected in line, line
    with pytest.raises(StoreError, match="not a stored scan's summary"):
        punstats.load(stored)


def test_every_key_of_a_summary_of_another_type_is_one_line_or_presented(stored, capsys):
    """Each key of a real summary set to a value of each other JSON type: ``table`` and
    ``report`` print it or give one line, never a traceback."""
    good = _summary(stored)
    changes = [(key, lambda value, key=key: dict(good, **{key: value})) for key in good]
    changes += [("rules." + key, lambda value, key=key: dict(good, rules=dict(good["rules"], **{key: value})))
                for key in good["rules"]]
    for key, change in changes:
        for value in (None, [1], "x", {"a": 1}, 1.5):
            _set_summary(stored, json.dumps(change(value)))
            for argv in (["table", stored], ["report", stored, "--no-figures", "-o", stored + ".md"]):
                try:
                    status = cli.main(argv)
                except Exception as exc:
                    raise AssertionError((key, value, argv[0])) from exc
                err = capsys.readouterr().err
                assert status == 0 or (status == 2 and len(err.splitlines()) == 1), (key, value, err)


def _set_metadata(directory, table, key, value):
    path = os.path.join(directory, table + ".parquet")
    data = pq.read_table(path)
    pq.write_table(data.replace_schema_metadata({**data.schema.metadata, key: value}), path)


@pytest.mark.parametrize("value", [DEEP.encode(), b'{"columns": 5}', b'{"columns": [5], "index_columns": {}}',
                                   b"null", b'"x"', b"not json"],
                         ids=["deep", "columns-number", "columns-wrong", "null", "string", "not-json"])
@pytest.mark.parametrize("key", [b"pandas", b"punstats"])
def test_a_tables_metadata_is_not_interpreted(stored, capsys, key, value):
    """The ``pandas`` metadata of a stored table is punstats' own, not the file's: the
    table reads as before whatever the file says (and ``punstats`` metadata is not read)."""
    before = punstats.load(stored).occurrences
    for table in ("occurrences", "files", "functions"):
        _set_metadata(stored, table, key, value)
    after = punstats.load(stored)
    assert after.occurrences.equals(before) and list(after.occurrences.dtypes) == list(before.dtypes)
    assert len(after.files) == 2 and after.functions is not None
    assert cli.main(["table", stored, "--by", "identifier"]) == 0
    assert "alpha" in capsys.readouterr().out


# -- a full disk ----------------------------------------------------------------------------------

@contextlib.contextmanager
def file_size_limit(size):
    """Writes past ``size`` bytes fail with EFBIG, as under ``ulimit -f`` (Python ignores SIGXFSZ)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


def _contents(directory):
    return {name: open(os.path.join(directory, name), "rb").read() for name in sorted(os.listdir(directory))}


@pytest.fixture
def big_tree(tmp_path):
    """Files whose tables take from a few to a few hundred KiB (the CSV copy about 1.5 MiB)."""
    root = tmp_path / "big"
    root.mkdir()
    for i in range(30):
        (root / ("m%d.py" % i)).write_text("".join("f(x%d=x%d, yy=yy, zzzzz=zzzzz)\n" % (j, j) for j in range(200)))
    return str(root)


@pytest.mark.parametrize("cache", [True, False], ids=["cache", "no-cache"])
@pytest.mark.parametrize("limit", [1000, 20_000, 100_000])
def test_a_full_disk_while_storing_is_one_line_and_the_previous_scan_stays(
        tmp_path, capsys, monkeypatch, big_tree, limit, cache):
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    out = str(tmp_path / "out")
    assert cli.main(["scan", big_tree, "-o", out, "-q", "-j", "1", "--csv"]) == 0
    before = _contents(out)
    capsys.readouterr()
    with file_size_limit(limit):
        line = _error(capsys, ["scan", big_tree, "-o", out, "-q", "-j", "1", "--csv"]
                      + ([] if cache else ["--no-cache"]), warnings=("punstats: warning: cache ",))
    assert line == "punstats: error: cannot store the scan in %s: File too large" % out
    assert _contents(out) == before
    assert sorted(os.listdir(tmp_path)) == ["big", "cache", "out"]  # no staging directory left


def test_no_space_for_the_summary_is_one_line(tmp_path, capsys, monkeypatch, big_tree):
    from punstats.store import staging
    out = str(tmp_path / "out")
    assert cli.main(["scan", big_tree, "-o", out, "-q", "-j", "1", "--no-cache"]) == 0
    before = _contents(out)
    real = staging._write_synced

    def full(path, data):
        if path.endswith("summary.json"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)
        real(path, data)

    monkeypatch.setattr(staging, "_write_synced", full)
    line = _error(capsys, ["scan", big_tree, "-o", out, "-q", "-j", "1", "--no-cache"])
    assert line == "punstats: error: cannot store the scan in %s: No space left on device" % out
    assert _contents(out) == before


def test_saving_a_result_on_a_full_disk_is_a_store_error(tmp_path, big_tree):
    result = punstats.scan(big_tree, jobs=1, cache=False)
    out = str(tmp_path / "out")
    with file_size_limit(20_000), pytest.raises(StoreError, match="^cannot store the scan in .*: File too large$"):
        result.save(out, csv=True)
    assert not os.path.exists(out)


# -- faults of the machine: limits, memory ---------------------------------------------------------

def _raising(exc):
    def handler(args):
        raise exc
    return handler


@pytest.mark.parametrize("exc, expected", [
    (MemoryError(), "out of memory (ulimit -v, or the machine's memory)"),
    (OSError(errno.EMFILE, "Too many open files", "some/file.py"), "Too many open files (ulimit -n): some/file.py"),
    (OSError(errno.ENFILE, "Too many open files in system"), "Too many open files in system"),
    (OSError(errno.EFBIG, "File too large", "x" * 10_000), "File too large (ulimit -f): " + "x" * 200 + "..."),
    (OSError(errno.ENOSPC, "No space left on device", "out/history.csv"), "No space left on device: out/history.csv"),
    (OSError(errno.ENOMEM, "Cannot allocate memory"), "Cannot allocate memory"),
    (ImportError("libarrow.so: failed to map segment from shared object", name="pyarrow.lib"),
     "out of memory while loading pyarrow.lib (ulimit -v, or the machine's memory)"),
])
def test_a_fault_of_the_machine_is_one_line(capsys, monkeypatch, exc, expected):
    from punstats.cli import cache
    monkeypatch.setattr(cache, "cmd_cache", _raising(exc))
    assert _error(capsys, ["cache"]) == "punstats: error: " + expected


@pytest.mark.parametrize("exc", [OSError(errno.ENOENT, "No such file or directory", "x"), ImportError("no module x"),
                                 KeyError("a bug"), RecursionError()])
def test_a_bug_stays_a_traceback(monkeypatch, exc):
    from punstats.cli import cache
    monkeypatch.setattr(cache, "cmd_cache", _raising(exc))
    with pytest.raises(type(exc)):
        cli.main(["cache"])


@pytest.mark.parametrize("limit", [7, 9])
def test_a_limit_of_open_files_is_one_line(tmp_path, limit):
    """``ulimit -n``: whatever runs out of file descriptors (an import, the output, the
    workers), the command ends with one line and exit status 2, or runs."""
    root = tmp_path / "tree"
    root.mkdir()
    for i in range(20):
        (root / ("m%d.py" % i)).write_text("f(x=x)\n")

    def limited():
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))

    run = subprocess.run([sys.executable, "-m", "punstats", "scan", str(root), "-q", "-j", "2", "--csv", "-o",
                          str(tmp_path / "out")], preexec_fn=limited, capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    lines = run.stderr.splitlines()
    assert run.returncode == 2 and len(lines) == 1 and lines[0].startswith("punstats: error: "), run.stderr
    assert "Too many open files" in lines[0]


# -- history: commit dates that do not parse -------------------------------------------------------

def _commit_with_date(repo, committer_date, subject):
    """A commit object written as given (``hash-object --literally``), made the branch's head."""
    tree, parent = git(repo, "rev-parse", "HEAD^{tree}"), git(repo, "rev-parse", "HEAD")
    raw = ("tree %s\nparent %s\nauthor t <t@example.org> 1700000000 +0000\ncommitter t <t@example.org> %s\n\n%s\n"
           % (tree, parent, committer_date, subject)).encode()
    sha = subprocess.run(["git", "-C", str(repo), "hash-object", "-t", "commit", "--literally", "-w", "--stdin"],
                         input=raw, env=ENV, check=True, capture_output=True).stdout.decode().strip()
    git(repo, "update-ref", "refs/heads/main", sha)
    return sha


BAD_DATES = {"year 5138": "100000000000 +0000", "20 digits": "99999999999999999999 +0000",
             "year 1019": "-30000000000 +0000", "zone": "1700000000 +99999", "garbage": "1700000000 garbage"}


def test_history_keeps_a_commit_whose_date_does_not_parse_without_a_date(tmp_path, capsys):
    repo, out = tmp_path / "repo", str(tmp_path / "out")
    init(repo)
    commit(repo, {"a.py": "f(x=x)\n"}, "first", "2023-01-01T00:00:00+00:00")
    bad = [_commit_with_date(repo, date, name) for name, date in BAD_DATES.items()]
    commit(repo, {"b.py": "g(y=y)\n"}, "last", "2023-03-01T00:00:00+00:00")
    assert cli.main(["history", str(repo), "--every", "commit", "-q", "-j", "1", "-o", out]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == ["punstats: warning: 5 commits have no readable commit date (%s, ...): kept without one, "
                   "left out of the figure" % ", ".join(sha[:12] for sha in bad[:3])]
    table = pd.read_parquet(os.path.join(out, "history.parquet"))
    assert len(table) == 7 and list(table["commit"][table["date"].isna()]) == bad
    assert str(table["date"].iloc[-1]) == "2023-03-01 00:00:00+00:00"
    assert any(name.endswith(".png") for name in os.listdir(out))  # the figure of the other two
    assert cli.main(["history", str(repo), "--every", "commit", "-q", "-j", "1", "-o", out, "--json"]) == 0
    assert [row["date"] for row in json.loads(capsys.readouterr().out)][1:3] == [None, None]


def test_history_on_a_full_disk_is_one_line(tmp_path, capsys, big_tree, monkeypatch):
    monkeypatch.chdir(tmp_path)
    repo = tmp_path / "repo"
    init(repo)
    commit(repo, {"m%d.py" % i: open(os.path.join(big_tree, "m%d.py" % i)).read() for i in range(30)}, "first")
    with file_size_limit(20_000):
        line = _error(capsys, ["history", str(repo), "-q", "-j", "1", "--no-cache", "-o", "out"])
    assert line == "punstats: error: cannot write out: File too large"  # revisions are not stored: the history is
    assert not os.path.exists("out")  # nothing half-written left


# -- names of rows read back: they become file, figure and column names ----------------------------

def _with_pattern(name, kinds_name=None):
    """A change giving a summary a user pattern ``name``, counted in ``kinds`` under ``kinds_name``."""
    def change(summary):
        pattern = {"name": name, "label": "x", "per": "Try", "source": "p.py", "sha256": "0" * 64}
        counted = name if kinds_name is None else kinds_name
        kinds = dict(summary["kinds"], **{counted: 1}) if isinstance(counted, str) else summary["kinds"]
        return dict(summary, patterns=[pattern], kinds=kinds, kinds_nontest=kinds)
    return change


BAD_NAMES = [
    ("dotdot", _with_pattern("../../x"), "a name in kinds should be an identifier of at most 64 characters, "
                                         "not '../../x'"),
    ("slash", _with_pattern("a/b"), "not 'a/b'"),
    ("megabyte", _with_pattern("n" * 1_000_000), "not 'nnnnnnnnnnnn"),
    ("control", _with_pattern("x\x1b]8;;http://e\x07y\nz"), "not 'x\\x1b]8;;http://e\\x07y\\nz'"),
    ("formula", _with_pattern("=cmd|' /C calc'!A0"), "not \"=cmd|' /C calc'!A0\""),
    ("empty", _with_pattern(""), "not ''"),
    ("number", _with_pattern(5), "patterns[0].name should be an identifier of at most 64 characters, not 5"),
    ("pattern-only", _with_pattern("../x", kinds_name="fine"), "patterns[0].name should be an identifier"),
    ("twice", lambda s: dict(_with_pattern("tries")(s), patterns=_with_pattern("tries")(s)["patterns"] * 2),
     "two patterns are named tries"),
    ("labels-carried", lambda s: dict(s, labels_carried={"../x": {"carried": 1, "stale": 0}}),
     "a name in labels_carried should be"),
]


@pytest.mark.parametrize("change, expected", [(c, e) for _, c, e in BAD_NAMES], ids=[n for n, _, _ in BAD_NAMES])
def test_a_row_name_that_is_no_identifier_is_one_line_in_every_command_and_names_no_file(
        stored, tmp_path, capsys, change, expected):
    """A pattern named ``../../x`` or ``a/b`` in an edited summary made ``report`` and ``plot``
    try to write figures in other folders (``d-a/b-projects.png``) and echoed a 1 MB name; each
    command now refuses the summary in one line naming it, and writes nothing."""
    _set_summary(stored, json.dumps(change(_summary(stored))))
    before = sorted(os.listdir(stored))
    path = os.path.join(stored, "summary.json")
    for argv in (["table", stored], ["table", stored, "--kinds"], ["report", stored, "-o", str(tmp_path / "r.md")],
                 ["plot", stored, "-o", str(tmp_path / "figures")], ["hits", stored], ["label", stored],
                 ["label", stored, "--kind", "call"]):
        line = _error(capsys, argv)
        assert line.startswith("punstats: error: %s: not a stored scan's summary (" % path), line
        assert expected in line and len(line) < 300, line
    assert sorted(os.listdir(stored)) == before and sorted(os.listdir(tmp_path)) == ["scan", "tree"]


def test_a_pattern_named_like_a_built_in_row_is_that_row(stored, capsys):
    """A stored pattern named ``call`` (a built-in row now, or an edited summary) is left out:
    ``call`` is the built-in row, its count as stored."""
    _set_summary(stored, json.dumps(_with_pattern("call", kinds_name=None)(_summary(stored))))
    from punstats.patterns.built_in import registry_of
    assert registry_of(punstats.load(stored).summary)["call"].user is False
    assert cli.main(["label", stored]) == 0
    assert sorted(n for n in os.listdir(stored) if n.startswith("labels-")) == ["labels-call.csv", "labels-call.md"]


# -- a corpus name of megabytes -----------------------------------------------------------------------

def test_a_corpus_name_of_megabytes_is_shown_cut_and_names_files_within_name_max(stored, tmp_path, capsys):
    summary = _summary(stored)
    _set_summary(stored, json.dumps(dict(summary, corpus="é/" * 2_500_000)))  # 5 M characters, 7.5 MB
    report = str(tmp_path / "reports" / "r.md")
    assert cli.main(["report", stored, "--no-figures", "-o", report]) == 0
    assert os.path.getsize(report) < 50_000
    assert cli.main(["table", stored]) == 0 and len(capsys.readouterr().out) < 5_000
    assert cli.main(["plot", stored, "-o", str(tmp_path / "figures"), "--format", "png"]) == 0
    names = os.listdir(tmp_path / "figures")
    assert len(names) == 7 and all(len(name.encode()) <= 255 and "/" not in name for name in names), names
    assert len(punstats.load(stored).summary["corpus"]) == 5_000_000  # the API's summary is as stored


def test_a_slug_is_one_path_component_within_name_max():
    from punstats.present.provenance import slug
    for text in ("a" * 1000, "é" * 1000, "\U0001f600" * 1000, "../" * 300, "x\x00y" * 300):
        name = slug(text) + "-directories.svg"
        assert len(name.encode()) <= 255 and os.sep not in name and "\x00" not in name, name
    assert slug("numpy 1.26") == "numpy-1.26"


# -- JSON nested thousands deep elsewhere --------------------------------------------------------------

def test_a_project_list_nested_thousands_deep_is_one_line(tmp_path, capsys):
    listing = tmp_path / "top.json"
    listing.write_text('{"rows": %s}' % DEEP)
    line = _error(capsys, ["corpus", "top-pypi:3", "--top-pypi-list", str(listing), "-o", str(tmp_path / "out")])
    assert line == "punstats: error: %s: the project list is not JSON (nested too deeply)" % listing


def test_an_index_answer_nested_thousands_deep_is_a_fetch_error():
    from punstats.sources import pypi
    with pytest.raises(pypi.FetchError, match="did not answer with JSON"):
        pypi._json(lambda url: DEEP.encode(), "https://index.example/pypi/x/json")


def test_a_run_journal_line_nested_thousands_deep_is_skipped(tmp_path):
    from punstats.runs import ecosystem
    os.makedirs(tmp_path / "projects")
    (tmp_path / "projects" / "a.json").write_text("{}")
    (tmp_path / ecosystem.JOURNAL).write_text(DEEP + "\n" + json.dumps({"project": "a"}) + "\n")
    assert list(ecosystem.read_journal(str(tmp_path))) == ["a"]


def test_history_every_with_more_digits_than_int_reads_is_one_short_line(tmp_path, capsys):
    init(tmp_path / "repo")
    commit(tmp_path / "repo", {"a.py": "f(x=x)\n"})
    line = _error(capsys, ["history", str(tmp_path / "repo"), "--every", "9" * 5000])
    assert line == "punstats: error: --every takes commit, month or a number, not %r" % ("9" * 40 + "...")


@pytest.mark.parametrize("command", [["report", "--no-figures"], ["report"], ["plot"], ["table"]])
def test_no_room_for_a_report_figures_or_a_table_is_one_line(stored, tmp_path, capsys, command):
    out = str(tmp_path / ("out.md" if command[0] != "plot" else "figures"))
    with file_size_limit(500):  # the summary table takes about 1,200 bytes
        line = _error(capsys, [command[0], stored, "-o", out] + command[1:])
    what = {"report": "the report", "plot": "the figures", "table": out}[command[0]]
    assert line.startswith("punstats: error: cannot write %s: File too large" % what), line


# -- a damaged cache entry of a whole stored scan ------------------------------------------------------

@pytest.mark.parametrize("header", [DEEP.encode(), b"[1]", b'{"files": 3}', b'{"files": [["../escaped", 2]], '
                                    b'"totals": {}, "rows": {}}', b'{"files": [["summary.json", 99]]}'],
                         ids=["deep", "list", "files-number", "outside", "short"])
def test_a_damaged_entry_of_a_kept_stored_scan_is_built_again(tmp_path, monkeypatch, capsys, header):
    import sqlite3
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "tree"
    root.mkdir()
    (root / "a.py").write_text("f(alpha=alpha)\n")
    argv = ["scan", str(root), "-q", "-j", "1", "-o", str(tmp_path / "out")]
    assert cli.main(argv) == 0
    with sqlite3.connect(str(tmp_path / "cache" / "blobs.sqlite3")) as db:
        assert db.execute("UPDATE results SET value=? WHERE kind='tables/stored'",
                          (b"%012d" % len(header) + header + b"xx",)).rowcount == 1
    capsys.readouterr()
    assert cli.main(argv + ["--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["punnable"] == 1
    assert punstats.load(str(tmp_path / "out")).summary["punnable"] == 1
    assert not os.path.exists(tmp_path / "escaped")
