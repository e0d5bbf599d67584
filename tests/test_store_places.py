"""A scan only ever removes what it wrote (store/places.py, store/staging.py): an
output place that resolves to the current directory, a parent, the home directory
or the corpus is refused before anything is read; a corpus name or ``--name`` that
is not one plain path component is refused; an existing directory is replaced only
when it is empty or a stored scan, checked again when it is swapped out."""
import io
import json
import os
import tarfile

import pytest

from punstats import cli
from punstats.store import places, staging
from punstats.store.staging import Staging, StoreError


def snapshot(root):
    """Every path below ``root`` with its bytes (None for a directory)."""
    return {str(p.relative_to(root)): (None if p.is_dir() else p.read_bytes()) for p in root.rglob("*")}


@pytest.fixture
def workdir(tmp_path, monkeypatch):
    """A current directory holding a user's files, a corpus and an archive named ``...tar.gz``."""
    home = tmp_path / "home"
    work = home / "work"
    (work / "src").mkdir(parents=True)
    (work / "src" / "a.py").write_text("f(x=x)\n")
    (work / "precious.txt").write_text("the user's own file\n")
    with tarfile.open(str(work / "...tar.gz"), "w:gz") as archive:
        data = b"f(alpha=alpha)\n"
        member = tarfile.TarInfo("pkg/m.py")
        member.size = len(data)
        archive.addfile(member, io.BytesIO(data))
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    return work


def run(capsys, *argv):
    status = cli.main(list(argv))
    return status, capsys.readouterr().err.strip()


def test_an_archive_whose_name_makes_the_output_the_current_directory_deletes_nothing(workdir, capsys):
    before = snapshot(workdir.parent)
    status, err = run(capsys, "scan", "-q", "...tar.gz")
    assert status == 2
    assert err == ("punstats: error: the corpus name '..' is not one plain path component "
                   "(it names the parent directory): give --name NAME or -o DIR")
    assert snapshot(workdir.parent) == before


@pytest.mark.parametrize("name, problem", [
    ("..", "it names the parent directory"),
    (".", "it names the directory itself"),
    ("a/../..", "it holds a path separator"),
    ("", "it is empty"),
    ("a\\b", "it holds a path separator"),
    ("x" * 256, "longer than 255 bytes"),
])
def test_a_name_that_is_not_one_plain_path_component_is_refused(workdir, capsys, name, problem):
    before = snapshot(workdir.parent)
    status, err = run(capsys, "scan", "-q", "src", "--name", name)
    assert status == 2 and err.startswith("punstats: error: the --name ") and err.endswith("(%s)" % problem)
    assert snapshot(workdir.parent) == before


@pytest.mark.parametrize("output, what", [
    ("missing/..", "it is the current directory"),
    (".", "it is the current directory"),
    ("..", "it is the home directory"),  # the fixture's current directory is in its home
    ("data/../..", "it is the home directory"),
    ("~", "it is the home directory"),
    ("../..", "it holds the current directory"),
])
def test_an_output_place_that_is_or_holds_the_current_or_home_directory_is_refused(workdir, capsys, output, what):
    output = os.path.expanduser(output)
    before = snapshot(workdir.parent)
    status, err = run(capsys, "scan", "-q", "src", "-o", output)
    assert status == 2
    assert err.startswith("punstats: error: refusing to store a scan in %s (" % output)
    assert err.endswith("%s, which replacing it would delete" % what)
    assert snapshot(workdir.parent) == before


def test_the_file_systems_root_is_refused(workdir, capsys):
    status, err = run(capsys, "scan", "-q", "src", "-o", "/")
    assert (status, err) == (2, "punstats: error: refusing to store a scan in /: it is the file system's root")


def test_an_output_place_holding_the_corpus_is_refused(tmp_path, monkeypatch, capsys):
    corpus = tmp_path / "elsewhere" / "corpus"
    corpus.mkdir(parents=True)
    (corpus / "a.py").write_text("f(x=x)\n")
    monkeypatch.chdir(tmp_path)
    before = snapshot(tmp_path / "elsewhere")
    status, err = run(capsys, "scan", "-q", str(corpus), "-o", str(corpus))
    assert status == 2 and err.endswith("it is the corpus, which replacing it would delete")
    assert snapshot(tmp_path / "elsewhere") == before


def test_an_empty_corpus_is_not_replaced_by_its_own_scan(tmp_path, monkeypatch, capsys):
    """An empty directory may take a scan, but not when it is the corpus being scanned."""
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path)
    status, err = run(capsys, "scan", "-q", "empty", "-o", "empty")
    assert status == 2 and err.endswith("it is the corpus, which replacing it would delete")


def test_a_summary_json_not_written_by_punstats_is_not_a_stored_scan(workdir, capsys):
    out = workdir / "out"
    out.mkdir()
    (out / "summary.json").write_text(json.dumps({"mine": 1}))
    status, err = run(capsys, "scan", "-q", "src", "-o", "out")
    assert (status, err) == (2, "punstats: error: cannot store the scan in out: it holds no summary.json "
                                "written by punstats, so it is not a stored scan")
    assert json.loads((out / "summary.json").read_text()) == {"mine": 1}


def test_a_directory_named_as_a_table_is_not_part_of_a_stored_scan(workdir, capsys):
    assert run(capsys, "scan", "-q", "src", "-o", "out")[0] == 0
    (workdir / "out" / "files.csv").mkdir()
    (workdir / "out" / "files.csv" / "mine.txt").write_text("the user's\n")
    status, err = run(capsys, "scan", "-q", "src", "-o", "out")
    assert (status, err) == (2, "punstats: error: cannot store the scan in out: it holds other files than "
                                "a stored scan (files.csv)")
    assert (workdir / "out" / "files.csv" / "mine.txt").read_text() == "the user's\n"


def test_a_stored_scan_is_replaced_and_an_empty_directory_taken(workdir, capsys):
    (workdir / "out").mkdir()
    assert run(capsys, "scan", "-q", "src", "-o", "out")[0] == 0
    first = json.loads((workdir / "out" / "summary.json").read_text())["created"]
    assert run(capsys, "scan", "-q", "--no-cache", "src", "-o", "out")[0] == 0
    assert json.loads((workdir / "out" / "summary.json").read_text())["created"] >= first
    assert sorted(os.listdir(workdir)) == ["...tar.gz", "out", "precious.txt", "src"]


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2", "two renames"])
def test_a_directory_filled_after_the_check_is_put_back_not_deleted(tmp_path, monkeypatch, exchange):
    """The place is checked again once swapped out: a file that arrived meanwhile survives."""
    if not exchange:
        monkeypatch.setattr(staging, "_exchange", lambda a, b: False)  # a file system without renameat2
    out = tmp_path / "out"
    out.mkdir()
    writing = Staging(str(out))
    (out / "arrived.txt").write_text("written while the scan ran\n")
    with pytest.raises(StoreError, match="it holds other files than a stored scan \\(arrived.txt\\)"):
        writing.commit({"punstats_version": "0"})
    assert sorted(os.listdir(out)) == ["arrived.txt"]
    assert sorted(os.listdir(tmp_path)) == ["out"]  # the staged scan is gone too


def test_leftovers_are_removed_only_when_a_scan_left_them(tmp_path, monkeypatch):
    monkeypatch.setattr(staging, "STALE_SECONDS", 0)
    users = tmp_path / ".out.partial-mine"
    users.mkdir()
    (users / "notes.txt").write_text("a user's folder with a name like ours\n")
    killed = tmp_path / ".out.partial-killed"
    killed.mkdir()
    (killed / staging.WRITING_FILE).write_text("999999999\n")  # no such process
    (killed / "spill").mkdir()
    Staging(str(tmp_path / "out")).abort()
    assert sorted(os.listdir(tmp_path)) == [".out.partial-mine"]


def test_resolve_output_refuses_a_protected_place_and_its_ancestors(tmp_path):
    corpus = tmp_path / "a" / "corpus"
    corpus.mkdir(parents=True)
    protect = [("the corpus", str(corpus))]
    assert places.resolve_output(str(tmp_path / "a" / "out"), protect) == str(tmp_path / "a" / "out")
    for place in (corpus, corpus.parent, corpus / "x" / ".." / ".."):
        with pytest.raises(places.PlaceError, match="the corpus"):
            places.resolve_output(str(place), protect)
    (tmp_path / "link").symlink_to(corpus.parent)
    with pytest.raises(places.PlaceError, match="holds the corpus"):
        places.resolve_output(str(tmp_path / "link"), protect)


@pytest.fixture
def small_repo(tmp_path, monkeypatch):
    from gitrepo import commit, init
    repo = tmp_path / "repo"
    init(repo)
    commit(repo, {"a.py": "f(x=x)\n"})
    monkeypatch.chdir(tmp_path)
    return repo


@pytest.mark.parametrize("output, problem", [
    (".", "refusing to store a scan in . ("),
    ("repo", "it is the repository, which replacing it would delete"),
    ("notes", "cannot store the history in notes: it holds other files than a stored history (todo.txt)"),
])
def test_history_takes_only_a_place_that_holds_nothing_or_a_history(small_repo, capsys, output, problem):
    (small_repo.parent / "notes").mkdir()
    (small_repo.parent / "notes" / "todo.txt").write_text("mine\n")
    before = snapshot(small_repo.parent)
    status, err = run(capsys, "history", "-q", "--every", "commit", str(small_repo), "-o", output)
    assert status == 2 and problem in err
    assert snapshot(small_repo.parent) == before


def test_a_stored_history_is_marked_and_replaced_whole(small_repo, capsys):
    assert run(capsys, "history", "-q", "--every", "commit", "repo", "-o", "trend")[0] == 0
    about = json.loads((small_repo.parent / "trend" / "history.json").read_text())
    assert about["punstats_version"] and about["revisions"] == 1
    assert run(capsys, "history", "-q", "--every", "commit", "repo", "-o", "trend")[0] == 0
    assert {"history.parquet", "history.csv", "history.json"} <= set(os.listdir(small_repo.parent / "trend"))
    assert sorted(p for p in os.listdir(small_repo.parent) if p.startswith(".")) == []


def test_saving_a_result_never_replaces_its_corpus(tmp_path):
    import punstats
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.py").write_text("f(x=x)\n")
    result = punstats.scan(str(corpus), jobs=1)
    (corpus / "a.py").unlink()  # now an empty directory, which a scan could take were it not the corpus
    with pytest.raises(StoreError, match="it is the corpus"):
        result.save(str(corpus))
    assert os.listdir(corpus) == []
