"""Corpus files: validation, one stored scan per project, comparison with table."""
import hashlib
import json
import os
import shutil

import pytest
from gitrepo import commit, init, two_commit_origin

import punstats
from punstats import cli
from punstats.model.corpus import Corpus, SourceError
from punstats.present import console
from punstats.runs import projects as corpus
from punstats.sources import pypi, toppypi
from punstats.sources.projects import CorpusError

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "corpora")


def write(tmp_path, text, name="c.toml"):
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def project_tree(root, body="f(x=x)\n"):
    os.makedirs(root, exist_ok=True)
    (root / "m.py").write_text(body)
    return root


def test_the_shipped_corpus_files_are_valid():
    local = corpus.load(os.path.join(EXAMPLES, "local-example.toml"))
    assert [p.name for p in local.projects] == ["punstats", "punstats-tests", "benchmarks"]
    assert all(p.kind == "path" and os.path.isdir(p.target) for p in local.projects)
    top = corpus.load(os.path.join(EXAMPLES, "top-pypi.toml"))
    assert top.name == "top-pypi" and len(top.projects) == 20
    assert all(p.kind == "pypi" and "==" in p.target for p in top.projects)
    assert {"requests", "numpy", "django", "scikit-learn", "sympy"} <= {p.name for p in top.projects}


def test_local_example_corpus_stores_one_scan_per_project_that_table_compares(tmp_path, capsys):
    out = tmp_path / "out"
    assert cli.main(["corpus", os.path.join(EXAMPLES, "local-example.toml"), "-o", str(out), "-j", "1"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # no progress bar when stderr is not a terminal
    lines = captured.out.splitlines()
    assert [line.split()[0] for line in lines[:3]] == ["punstats", "punstats-tests", "benchmarks"]
    assert lines[3] == "compare: punstats table %s" % " ".join(
        str(out / name) for name in ("punstats", "punstats-tests", "benchmarks"))
    tests_scan = punstats.load(str(out / "punstats-tests"))
    direct = punstats.scan(os.path.join(os.path.dirname(EXAMPLES), "tests"), jobs=1)
    assert tests_scan.summary["punnable"] == direct.summary["punnable"] > 0
    assert tests_scan.summary["corpus"] == "punstats-tests"  # the entry's name names the column
    assert punstats.load(str(out / "punstats")).summary["corpus"] == "punstats"
    assert cli.main(["table", str(out / "punstats"), str(out / "punstats-tests"), "--format", "csv"]) == 0
    assert "punstats-tests" in capsys.readouterr().out


def test_git_and_pypi_entries(tmp_path, monkeypatch, capsys):
    repo = tmp_path / "repo"
    init(repo)
    first = commit(repo, {"a.py": "f(x=x, y=y)\n"})
    commit(repo, {"a.py": "f(x=1)\n"})
    sdist = project_tree(tmp_path / "unpacked" / "demo-1.0", "g(z=z)\n")

    def fake_pypi(argument):  # what sources.resolve delegates pypi: arguments to
        assert argument == "pypi:demo==1.0"
        return Corpus("demo-1.0", str(sdist), argument, "demo-1.0.tar.gz sha256:" + "a" * 64,
                      archive={"file": "demo-1.0.tar.gz", "sha256": "a" * 64, "files": 1, "bytes": 7},
                      refused_members=(("demo-1.0/link.py", "symlink", "link to /etc/passwd"),))

    monkeypatch.setattr(pypi, "pypi_corpus", fake_pypi)
    path = write(tmp_path, 'name = "mixed"\n'
                           '[[project]]\ngit = "repo"\nrev = "%s"\n'
                           '[[project]]\npypi = "demo==1.0"\n'
                           '[[project]]\ngit = "repo"\nname = "repo-head"\n' % first[:10])
    results = corpus.scan_corpus(corpus.load(path), str(tmp_path / "out"), jobs=1)
    assert [(r.project.name, r.summary["punnable"]) for r in results] == [("repo", 2), ("demo", 1), ("repo-head", 0)]
    assert results[0].summary["revision"] == first and results[0].summary["corpus"] == "repo@" + first[:12]
    assert results[1].summary["refused_members"] == [
        {"member": "demo-1.0/link.py", "reason": "symlink", "detail": "link to /etc/passwd"}]
    assert punstats.load(str(tmp_path / "out" / "demo")).summary["source"] == "pypi:demo==1.0"
    assert "refused 1" in console.format_corpus_line(results[1])


@pytest.mark.parametrize("text, message", [
    ("", "no [[project]] entries"),
    ("project = 3\n", "no [[project]] entries"),
    ("nam = 'x'\n[[project]]\npath = '.'\n", "unknown key 'nam'"),
    ("[[project]]\npath = '.'\npypi = 'x==1'\n", "project 1: needs exactly one of pypi, path, git, has pypi and path"),
    ("[[project]]\nname = 'a'\n", "project 1 (a): needs exactly one of pypi, path, git, has none"),
    ("[[project]]\npath = '.'\n[[project]]\npath = 'nowhere'\n", "project 2: no such file or directory: nowhere"),
    ("[[project]]\npypi = 'x>=1'\n", "project 1: only exact pins NAME==VERSION are supported, not x>=1"),
    ("[[project]]\npath = '.'\nrev = 'HEAD'\n", "project 1: rev goes with git only"),
    ("[[project]]\npath = '.'\nname = '../up'\n", "project 1 (../up): '../up' cannot be a folder name"),
    ("[[project]]\npath = '.'\nname = 'a'\n[[project]]\npypi = 'b==1'\nname = 'a'\n",
     "project 2: name 'a' is already used by project 1"),
    ("[[project]]\npath = 3\n", "project 1: path must be a non-empty string"),
    ("[[project]]\npath = '.'\nbranch = 'main'\n", "project 1: unknown key 'branch'"),
    ("[[project]\n", "is not valid TOML"),
    ("[[project]]\ngit = 'https://github.com/psf/requests'\n",  # scan's own hints, naming the entry
     "project 1: https://github.com/psf/requests is a URL: to scan a git repository, write "
     "git+https://github.com/psf/requests"),
    ("[[project]]\npypi = 'https://pypi.org/project/requests/2.32.3/'\n",
     "project 1: https://pypi.org/project/requests/2.32.3/ is a PyPI page: to scan the project's sdist, "
     "write pypi:requests==2.32.3"),
    ("[[project]]\npath = 'https://github.com/psf/requests/tree/v2.32.3'\n",
     "write git+https://github.com/psf/requests@v2.32.3 (in git = \"...\")"),
    ("[[project]]\npath = 'git+https://github.com/psf/requests'\n",
     "project 1: a git+URL goes in git = \"git+https://github.com/psf/requests\""),
    ("[[project]]\ngit = 'git+https://github.com/psf/requests@v1'\nrev = 'v2'\n",
     "project 1: give the revision once: git+https://github.com/psf/requests@v1 names v1, and rev = 'v2'"),
    ("[[project]]\ngit = 'git+ext::sh -c x'\n", "project 1: git+URL needs one of"),
])
def test_bad_corpus_files_are_one_line_errors_naming_the_entry(tmp_path, capsys, text, message):
    path = write(tmp_path, text)
    with pytest.raises(CorpusError) as info:
        corpus.load(path)
    assert message in str(info.value) and "\n" not in str(info.value)
    assert cli.main(["corpus", path]) == 2
    err = capsys.readouterr().err
    assert err.startswith("punstats: error: ") and message in err and err.count("\n") == 1


def test_a_git_url_entry_is_cloned_as_scan_clones_it(tmp_path, monkeypatch):
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    url, first = two_commit_origin(tmp_path)
    path = write(tmp_path, '[[project]]\ngit = "%s@%s"\n[[project]]\ngit = "%s"\nrev = "%s"\nname = "old"\n'
                           '[[project]]\ngit = "%s"\nname = "head"\n' % (url, first[:10], url, first[:10], url))
    spec = corpus.load(path)
    assert [(p.name, p.target, p.rev) for p in spec.projects] == [
        ("origin", url, first[:10]), ("old", url, first[:10]), ("head", url, "HEAD")]
    results = corpus.scan_corpus(spec, str(tmp_path / "out"), jobs=1)
    assert [r.summary["punnable"] for r in results] == [1, 1, 3]
    direct = punstats.scan("%s@%s" % (url, first[:10]), jobs=1).summary  # what scan git+URL@REV counts
    assert results[0].summary["revision"] == direct["revision"] == first
    assert results[0].summary["source"] == direct["source"]


def test_missing_corpus_file(tmp_path, capsys):
    assert cli.main(["corpus", str(tmp_path / "none.toml")]) == 2
    assert capsys.readouterr().err == "punstats: error: no such corpus file: %s\n" % (tmp_path / "none.toml")


@pytest.mark.parametrize("argument, hint", [
    ("top-pypi", "to scan PyPI's most-downloaded N projects, write top-pypi:N, e.g. top-pypi:30"),
    ("top_pypi:30", "to scan PyPI's most-downloaded N projects, write top-pypi:N, e.g. top-pypi:30"),
    ("Top-PyPI-100", "to scan PyPI's most-downloaded N projects, write top-pypi:N, e.g. top-pypi:100"),
    ("random_pypi:5", "to scan PyPI's randomly drawn N projects, write random-pypi:N --seed S, "
                      "e.g. random-pypi:5 --seed 1"),
])
def test_a_missing_corpus_file_named_like_a_run_says_how_to_write_it(argument, hint, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["corpus", argument]) == 2
    assert capsys.readouterr() == ("", "punstats: error: no such corpus file: %s (%s)\n" % (argument, hint))
    assert list(tmp_path.iterdir()) == []


def test_a_failing_project_stops_the_run_and_skip_existing_resumes_it(tmp_path, capsys):
    project_tree(tmp_path / "one")
    project_tree(tmp_path / "two")
    path = write(tmp_path, "[[project]]\npath = 'one'\n[[project]]\npath = 'two'\n")
    spec = corpus.load(path)
    shutil.rmtree(tmp_path / "two")  # disappears after validation
    out = str(tmp_path / "out")
    with pytest.raises(CorpusError, match=r"^project 2 \(two, path .*two\): no such file or directory"):
        corpus.scan_corpus(spec, out, jobs=1)
    assert os.path.isfile(os.path.join(out, "one", "summary.json"))  # the first one stays stored
    project_tree(tmp_path / "two")
    assert cli.main(["corpus", path, "-o", out, "--skip-existing", "-j", "1", "--json"]) == 0
    summaries = json.loads(capsys.readouterr().out)
    assert [s["stored"] for s in summaries] == [os.path.join(out, "one"), os.path.join(out, "two")]
    results = corpus.scan_corpus(spec, out, skip_existing=True, jobs=1)
    assert [r.reused for r in results] == [True, True]
    assert "(already stored)" in console.format_corpus_line(results[0])


# -- corpus top-pypi:N (the streaming run itself: test_ecosystem.py) ------------------------------------

def test_the_pinned_list_is_ranked_normalised_and_dated():
    from punstats.sources import toppypi
    ranked = toppypi.load_list()
    assert len(ranked.projects) == toppypi.MAX_N
    assert [p.rank for p in ranked.projects] == list(range(1, toppypi.MAX_N + 1))
    assert all(p.name == pypi.canonical_name(p.name) for p in ranked.projects)
    downloads = [p.downloads for p in ranked.projects]
    assert downloads == sorted(downloads, reverse=True)
    assert ranked.last_update[:4].isdigit() and "hugovk/top-pypi-packages" in ranked.source


@pytest.mark.parametrize("argument, rows, message", [
    ("top-pypi:0", None, "expected top-pypi:N with N from 1 to 15000, got top-pypi:0"),
    ("top-pypi:x", None, "expected top-pypi:N with N from 1 to 15000, got top-pypi:x"),
    ("top-pypi:15001", None, "expected top-pypi:N with N from 1 to 15000, got top-pypi:15001"),
    ("top-pypi:3", [{"project": "a"}], "top-pypi:3 asks for more projects than the list holds (1)"),
    ("top-pypi:1", [{"project": "../x"}], "{list}: row 1: not a valid project name (PEP 508, at most 200 "
                                          "characters): '../x'"),
    ("top-pypi:1", [{"project": "a/b"}], "{list}: row 1: not a valid project name (PEP 508, at most 200 "
                                         "characters): 'a/b'"),
    ("top-pypi:1", [{"project": "a\0b"}], "{list}: row 1: not a valid project name (PEP 508, at most 200 "
                                          "characters): 'a\\x00b'"),
    ("top-pypi:1", [{"project": "a" * 10 ** 6}], "{list}: row 1: not a valid project name (PEP 508, at most 200 "
                                                 "characters): '%s'... (1000000 characters)" % ("a" * 80)),
    ("top-pypi:%d" % 10 ** 12, None, "expected top-pypi:N with N from 1 to 15000, got top-pypi:%d" % 10 ** 12),
    ("top-pypi:\uff13", None, "expected top-pypi:N with N from 1 to 15000, got top-pypi:\uff13"),

    ("top-pypi:2", [{"project": "A_b"}, {"project": "a-B"}], "{list}: a-b is listed twice (rows 1 and 2)"),
    ("top-pypi:1", [["x"]], "{list}: row 1 is neither [rank, project, downloads] nor {{\"project\": ...}}"),
    ("top-pypi:1", [], "{list}: the project list is empty"),
    ("top-pypi:1", "not json", "{list}: the project list is not JSON"),
])
def test_bad_top_pypi_arguments_and_lists_are_one_line_errors(tmp_path, capsys, argument, rows, message):
    listing = tmp_path / "list.json"
    listing.write_text(rows if isinstance(rows, str) else json.dumps({"rows": rows or [{"project": "a"}]}))
    if rows == []:
        listing.write_text(json.dumps({"rows": []}))
    assert cli.main(["corpus", argument, "--top-pypi-list", str(listing), "-o", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == "punstats: error: %s\n" % message.format(list=listing)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("n", ["0", str(10 ** 12), "\uff13"])
def test_a_random_n_out_of_range_says_the_range(tmp_path, capsys, n):
    assert cli.main(["corpus", "random-pypi:" + n, "--seed", "1", "-o", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == ("punstats: error: expected random-pypi:N with N a whole number from 1 to "
                                       "999999999, got random-pypi:%s\n" % n)
    assert not (tmp_path / "out").exists()


def test_top_pypi_prints_a_line_per_project_then_the_ecosystem(tmp_path, capsys):
    from fakeindex import FakePyPI, sdist, top_list
    index = FakePyPI()
    try:
        index.project("one", "1.0", [("one-1.0.tar.gz", sdist("one", "1.0", {"one/m.py": "f(x=x, y=1)\n"}), "sdist")])
        index.raw("/pypi/two/json", "{not json")  # a failure (a project the index does not know is a skip)
        listing = top_list(tmp_path / "list.json", ["one", "two"])
        out = str(tmp_path / "out")
        argv = ["corpus", "top-pypi:2", "--top-pypi-list", listing, "--index-url", index.index_url, "-o", out,
                "-j", "1", "--no-figure"]
        assert cli.main(argv) == 0
        lines = capsys.readouterr().out.splitlines()
        assert lines[0].split() == ["1", "one", "sdist", "1.0", "files", "1", "keywords", "2", "f(x=x)", "1",
                                    "(50.00%)"]
        assert lines[1].split() == ["2", "two", "failed:", "%s/two/json:" % index.index_url, "the", "index", "did",
                                    "not", "answer", "with", "JSON"]
        assert lines[2] == "ecosystem: 2 projects, 1 scanned (sdist 1), 0 skipped, 1 failed"
        assert lines[3].split()[:5] == ["all", "code", "pooled", "50.00%", "(1"]
        assert lines[-1] == "dataset: pd.read_parquet(%r) (and %r); summary: %s" % (
            os.path.join(out, "occurrences"), os.path.join(out, "files"), os.path.join(out, "ecosystem.json"))
        assert lines[-3] == "tables (every project, every pattern): %s" % ", ".join(
            os.path.join(out, "ecosystem-table." + ending) for ending in ("rst", "md", "tex"))
        assert lines[-2].startswith("show it again: punstats table %s " % out)
        rst = open(os.path.join(out, "ecosystem-table.rst")).read()
        assert "1 ``one`` 1.0 1 1 1 50.00% 50.00% 1,000,000" in " ".join(rst.split())
        # a row whose first cell is empty starts with an empty comment, so reST keeps it a row of its own
        assert "2 ``two`` failed (error) .. All 1 scanned projects" in " ".join(rst.split())
        assert "All 1 scanned projects" in rst and "Not scanned: failed 1." in rst
        assert cli.main(argv + ["--skip-existing", "--json"]) == 0
        printed = json.loads(capsys.readouterr().out)
        assert sorted(printed) == ["ecosystem", "projects"]
        assert [p["project"] for p in printed["projects"]] == ["one", "two"]
        assert printed["ecosystem"]["all"]["pooled_pct"] == 50.0
        assert printed["ecosystem"]["list"]["last_update"] == "2024-06-01 00:00:00"
    finally:
        index.close()


def test_top_pypi_into_a_file_is_one_line(tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    listing = tmp_path / "list.json"
    listing.write_text(json.dumps({"rows": [{"project": "a"}]}))
    assert cli.main(["corpus", "top-pypi:1", "--top-pypi-list", str(listing), "-o", str(tmp_path / "file")]) == 2
    expected = "punstats: error: cannot write the run to %s: Not a directory\n" % (tmp_path / "file")
    assert capsys.readouterr().err == expected
    assert (tmp_path / "file").read_text() == "x"


def test_top_pypi_list_from_an_url(tmp_path, capsys):
    from fakeindex import FakePyPI
    index = FakePyPI()
    try:
        body = json.dumps({"last_update": "2024-07-01", "rows": [{"project": "Gone_Pkg"}]}).encode()
        index.raw("/list.json", body)
        out = str(tmp_path / "out")
        assert cli.main(["corpus", "top-pypi:1", "--top-pypi-list", index.base + "/list.json", "--index-url",
                         index.index_url, "-o", out, "--json"]) == 0
        printed = json.loads(capsys.readouterr().out)
        assert printed["projects"][0]["project"] == "gone-pkg"  # PEP 503 normalised
        assert printed["ecosystem"]["list"] == {"list": index.base + "/list.json", "last_update": "2024-07-01",
                                                "projects_in_list": 1, "sha256": hashlib.sha256(body).hexdigest()}
        index.raw("/bad.json", "[1]")
        assert cli.main(["corpus", "top-pypi:1", "--top-pypi-list", index.base + "/bad.json", "-o", out]) == 2
        assert capsys.readouterr().err == ("punstats: error: %s/bad.json: a project list needs \"rows\" "
                                           "(hugovk/top-pypi-packages' format)\n" % index.base)
    finally:
        index.close()


def test_corpus_lines_saved_fills_the_pep_tables_row(tmp_path, capsys):
    """``corpus --lines-saved``: each project's lines saved (as ``scan --lines-saved``) in the
    stored summary and the PEP table's "Lines saved" row."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.py").write_text("f(\n    x=x,\n    y=y,\n)\n")  # re-wrapped to one line: 3 lines saved
    (tmp_path / "c.toml").write_text('[[project]]\npath = "tree"\n')
    out = tmp_path / "out"
    assert cli.main(["corpus", str(tmp_path / "c.toml"), "-o", str(out), "-j", "1", "--lines-saved"]) == 0
    capsys.readouterr()
    stored = punstats.load(str(out / "tree")).summary["lines_saved"]
    assert (stored["lines_saved"], stored["files_changed"]) == (3, 1)
    assert cli.main(["table", str(out / "tree"), "--format", "markdown"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if "Lines saved" in line)
    assert row.split("|")[2].strip() == "3"


def test_a_project_without_python_files_is_said_as_scan_says_it(tmp_path, capsys):
    import warnings
    project_tree(tmp_path / "code")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.rst").write_text("words\n")
    path = write(tmp_path, "[[project]]\npath = 'code'\n[[project]]\npath = 'docs'\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert cli.main(["corpus", path, "-o", str(tmp_path / "out"), "-j", "1", "-q"]) == 0
    assert not [w for w in caught if issubclass(w.category, punstats.NoPythonFilesWarning)]
    captured = capsys.readouterr()
    summary = punstats.load(str(tmp_path / "out" / "docs")).summary
    from punstats.runs.scan import nothing_found
    assert captured.err == "punstats: warning: docs: %s\n" % nothing_found(summary)
    assert "no Python files found in %s" % (tmp_path / "docs") in captured.err
    assert len(captured.out.splitlines()) == 3  # both projects' lines, then compare:


def test_only_the_first_n_rows_of_a_long_list_are_checked(tmp_path):
    """A list of a million names took 11 s (8 of them checking names never used) and 600 MB; past N
    a row is only counted, so a bad one there does not stop the run."""
    rows = [{"project": "p%d" % i} for i in range(100000)] + [{"project": "../x"}]
    listing = tmp_path / "list.json"
    listing.write_text(json.dumps({"rows": rows, "last_update": "2024-01-01"}))
    ranked, first = toppypi.top(3, str(listing))
    assert [p.name for p in first] == ["p0", "p1", "p2"] and ranked.provenance()["projects_in_list"] == 100001
    (tmp_path / "short.json").write_text(json.dumps({"rows": rows[:3]}))
    with pytest.raises(SourceError, match=r"top-pypi:4 asks for more projects than the list holds \(3\)"):
        toppypi.top(4, str(tmp_path / "short.json"))


def test_a_project_folder_that_is_a_link_is_refused_before_any_scan(tmp_path, capsys):
    """The folder ``-o DIR/<name>`` named by the corpus file was followed: the scan was stored
    outside ``-o``."""
    project_tree(tmp_path / "one")
    path = write(tmp_path, "[[project]]\npath = 'one'\n")
    (tmp_path / "out").mkdir()
    (tmp_path / "elsewhere").mkdir()
    os.symlink(str(tmp_path / "elsewhere"), str(tmp_path / "out" / "one"))
    assert cli.main(["corpus", path, "-o", str(tmp_path / "out"), "-q", "-j", "1", "--no-cache"]) == 2
    assert capsys.readouterr().err == (
        "punstats: error: project 1 (one): %s is a symbolic link, and a corpus run stores only inside its folder; "
        "remove the link, or choose another -o\n" % os.path.join(str(tmp_path / "out"), "one"))
    assert os.listdir(tmp_path / "elsewhere") == []
