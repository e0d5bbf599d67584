"""``runs.options.ScanOptions``: the one value ``scan``, ``corpus``, ``history`` and the
ecosystem run pass along, instead of each setting copied by name."""
import pytest
from gitrepo import commit, init

import punstats
from punstats import cli
from punstats.model.corpus import SourceError
from punstats.runs.options import ScanOptions

EXPECTED = ScanOptions.of(jobs=1, test_rule="substring", long_threshold=5)


def _project(tmp_path):
    root = tmp_path / "p"
    (root / "tests").mkdir(parents=True)
    (root / "m.py").write_text("f(abcdef=abcdef, x=x)\n")
    (root / "tests" / "t.py").write_text("g(y=y)\n")
    return root


def test_scan_takes_the_settings_as_one_value_or_as_keywords(tmp_path):
    root = _project(tmp_path)
    by_value = punstats.scan(str(root), options=EXPECTED)
    by_keywords = punstats.scan(str(root), jobs=1, test_rule="substring", long_threshold=5)
    for key in ("punnable", "punnable_nontest", "long", "test_rule", "rules"):
        assert by_value.summary[key] == by_keywords.summary[key]
    assert by_value.summary["long"] == 1 and by_value.summary["test_rule"] == "substring"


def test_settings_given_both_ways_are_refused(tmp_path):
    with pytest.raises(TypeError, match=r"not both \(jobs, long_threshold\)"):
        punstats.scan(str(tmp_path), options=ScanOptions(), jobs=2, long_threshold=3)


def _capture(monkeypatch, module, name):
    """Replace ``module.name`` by a function that records its keywords and stops the command."""
    seen = {}

    class Stop(Exception):
        pass

    def record(*args, **kwargs):
        seen.update(kwargs)
        raise Stop
    monkeypatch.setattr(module, name, record)
    return seen, Stop


def test_the_scan_command_passes_one_scan_options(tmp_path, monkeypatch):
    from punstats.runs import scan as scans
    seen, stop = _capture(monkeypatch, scans, "scan")
    with pytest.raises(stop):
        cli.main(["scan", str(_project(tmp_path)), "--no-save", "-q", "-j", "1", "--test-rule", "substring",
                  "--long", "5"])
    assert seen["options"] == EXPECTED
    assert not set(seen) & {"jobs", "test_rule", "long_threshold", "engine"}


def test_the_corpus_command_passes_one_scan_options(tmp_path, monkeypatch):
    from punstats.runs import projects
    root = _project(tmp_path)
    corpus_file = tmp_path / "c.toml"
    corpus_file.write_text('name = "c"\n[[project]]\npath = "%s"\n' % root)
    seen, stop = _capture(monkeypatch, projects, "scan_corpus")
    with pytest.raises(stop):
        cli.main(["corpus", str(corpus_file), "-q", "-j", "1", "--test-rule", "substring", "--long", "5"])
    assert seen["options"] == EXPECTED and seen["cache"] is True


def test_the_history_command_passes_one_scan_options(tmp_path, monkeypatch):
    from punstats.runs import history
    repo = tmp_path / "repo"
    init(repo)
    commit(repo, {"m.py": "f(x=x)\n"})
    seen, stop = _capture(monkeypatch, history, "history_rows")
    with pytest.raises(stop):
        cli.main(["history", str(repo), "-q", "-j", "1", "--test-rule", "substring", "--long", "5",
                  "--every", "commit", "-o", str(tmp_path / "out")])
    assert seen["options"] == EXPECTED


def test_history_and_corpus_scan_with_the_options_given(tmp_path):
    from punstats.runs import history, projects
    from punstats.sources.projects import load
    repo = tmp_path / "repo"
    init(repo)
    commit(repo, {"m.py": "f(abcdef=abcdef)\n", "tests/t.py": "g(y=y)\n"})
    table = history.history(str(repo), history.commits_of(str(repo)), cache=False, options=EXPECTED)
    assert list(table["long"]) == [1] and list(table["long_nontest"]) == [1]
    corpus_file = tmp_path / "c.toml"
    corpus_file.write_text('name = "c"\n[[project]]\npath = "%s"\n' % _project(tmp_path))
    [stored] = projects.scan_corpus(load(str(corpus_file)), str(tmp_path / "out"), options=EXPECTED)
    assert stored.summary["test_rule"] == "substring" and stored.summary["long"] == 1


# -- a file named on its own: Python, or an ending --extensions gives --------------------------

def _named_files(tmp_path):
    (tmp_path / "a.py").write_text("f(x=x)\n")
    (tmp_path / "stub.pyi").write_text("def g(y: int = ...) -> None: ...\nh(y=y)\n")
    (tmp_path / "notes.txt").write_text("f(x=x) is what PEP 736 shortens\n")


def test_a_file_named_that_is_not_python_is_refused_before_any_scan(tmp_path, monkeypatch, capsys):
    _named_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["scan", "-q", "-o", "kept", "a.py"]) == 0
    before = {p.name: p.read_bytes() for p in (tmp_path / "kept").iterdir()}
    capsys.readouterr()
    assert cli.main(["scan", "-q", "-o", "kept", "notes.txt"]) == 2
    out, err = capsys.readouterr()
    assert err == ("punstats: error: notes.txt is not a Python file (.py, .pyw, .pyi, .ipynb); "
                   "to scan it as one, add --extensions .txt\n") and out == ""
    assert {p.name: p.read_bytes() for p in (tmp_path / "kept").iterdir()} == before  # nothing lost
    # several paths: all are checked before the first is scanned, so nothing is stored
    assert cli.main(["scan", "-q", "a.py", "notes.txt"]) == 2
    assert not (tmp_path / "data").exists()
    assert "notes.txt is not a Python file" in capsys.readouterr().err
    with pytest.raises(SourceError, match="notes.txt is not a Python file"):
        punstats.scan("notes.txt")


def test_a_named_stub_is_python_and_extensions_take_any_other_ending(tmp_path, monkeypatch):
    _named_files(tmp_path)
    monkeypatch.chdir(tmp_path)
    assert punstats.scan("stub.pyi").summary["punnable"] == 1
    as_python = punstats.scan("notes.txt", extensions=[".txt"]).summary
    assert (as_python["files"], as_python["failed"]) == (1, 1)  # scanned as asked: not Python, a syntax error


def test_a_named_script_without_an_ending_is_python_when_its_first_line_says_so(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tool").write_text("#!/usr/bin/env python3\nf(x=x)\n")
    (tmp_path / "Makefile").write_text("all:\n\tpython -c 'f(x=x)'\n")
    assert punstats.scan("tool").summary["punnable"] == 1  # as before files named alone were checked
    assert cli.main(["scan", "-q", "--no-save", "Makefile"]) == 2
    assert capsys.readouterr().err == ("punstats: error: Makefile is not a Python file (.py, .pyw, .pyi, .ipynb, "
                                       "or a script whose first line is #!...python)\n")
