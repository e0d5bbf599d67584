"""Corpus resolution and provenance."""
import os
import subprocess
import sys
import sysconfig

import pytest

from punstats.model.corpus import SourceError
from punstats.sources import resolve
from punstats.sources.local import git_head


def test_default_corpus_is_this_interpreters_standard_library():
    corpus = resolve(None)
    assert corpus.root == sysconfig.get_path("stdlib")
    assert corpus.name == "stdlib-%d.%d" % sys.version_info[:2]
    assert corpus.revision.endswith("%d.%d.%d" % sys.version_info[:3])


def test_missing_path_is_a_source_error(tmp_path):
    with pytest.raises(SourceError, match="no such file or directory"):
        resolve(str(tmp_path / "nope"))


def git(cwd, *args):
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout.strip()


def test_git_head_is_read_from_files_loose_and_packed(tmp_path):
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "a.py").write_text("f(x=x)\n")
    git(tmp_path, "add", "a.py")
    git(tmp_path, "commit", "-q", "-m", "one")
    head = git(tmp_path, "rev-parse", "HEAD")
    assert git_head(str(tmp_path))[0] == head
    assert resolve(str(tmp_path)).revision == head
    git(tmp_path, "pack-refs", "--all")
    assert git_head(str(tmp_path))[0] == head
    git(tmp_path, "checkout", "-q", "--detach")
    assert git_head(str(tmp_path))[0] == head
    assert git_head(str(tmp_path / "nowhere")) == ("", "")


# -- the table of sources: what resolve dispatches on and what --help prints -------------------

def _help(command):
    return subprocess.run([sys.executable, "-m", "punstats", command, "--help"], capture_output=True,
                          text=True, check=True).stdout


@pytest.mark.parametrize("command", ["scan", "corpus"])
def test_help_prints_each_row_of_the_table_its_command_takes(command):
    from punstats.sources import SOURCES
    text = " ".join(_help(command).split())
    rows = [source for source in SOURCES if source.command == command]
    assert rows
    for source in SOURCES:
        shown = "%s %s e.g. %s" % (source.form, " ".join(source.what.split()), source.example)
        assert (shown in text) == (source in rows)


def test_scan_help_shows_a_pypi_a_git_and_an_sdist_example():
    text = _help("scan")
    for example in ("punstats scan pypi:requests==2.32.3", "punstats scan git+https://",
                    "punstats scan requests-2.32.3.tar.gz"):
        assert example in text


def test_resolve_dispatches_on_the_table(tmp_path):
    import tarfile

    from punstats.sources import source_of
    sdist = tmp_path / "pkg-1.0.tar.gz"
    (tmp_path / "pkg-1.0").mkdir()
    (tmp_path / "pkg-1.0" / "m.py").write_text("f(x=x)\n")
    with tarfile.open(sdist, "w:gz") as tar:
        tar.add(tmp_path / "pkg-1.0", arcname="pkg-1.0")
    assert source_of("pypi:requests").form == "pypi:NAME[==VERSION]"
    assert source_of("git+https://example.org/r.git").form == "git+URL[@REV]"
    assert source_of(str(sdist)).form.startswith("FILE.tar.gz")
    assert source_of(str(tmp_path / "missing.tar.gz")).form == "DIR|FILE"  # not a file: a path that is missing
    corpus = resolve(str(sdist))
    assert corpus.name == "pkg-1.0" and corpus.archive is not None


def test_an_argument_of_another_command_says_which(tmp_path, capsys):
    from punstats import cli
    with pytest.raises(SourceError, match="punstats corpus top-pypi:5"):
        resolve("top-pypi:5")
    assert cli.main(["scan", "top-pypi:5", "--no-save"]) == 2
    assert capsys.readouterr().err == ("punstats: error: top-pypi:5 is an argument of punstats corpus (the N "
                                       "most-downloaded PyPI projects, into one dataset): punstats corpus "
                                       "top-pypi:5\n")


@pytest.mark.parametrize("args, message", [
    (["https://github.com/psf/requests"],
     "https://github.com/psf/requests is a URL: to scan a git repository, write git+https://github.com/psf/requests"),
    (["https://github.com/psf/requests", "--rev", "v2.32.3"],
     "write git+https://github.com/psf/requests@v2.32.3 without --rev"),
    (["ssh://git@example.org/r.git"], "write git+ssh://git@example.org/r.git"),
    (["https://github.com/psf/requests/tree/v2.32.3"],
     "is a web page: to scan its git repository, write git+https://github.com/psf/requests@v2.32.3"),
    (["https://pypi.org/project/requests/"],
     "https://pypi.org/project/requests/ is a PyPI page: to scan the project's sdist, write pypi:requests"),
    (["https://pypi.org/project/requests/2.32.3/"], "write pypi:requests==2.32.3"),
    (["pypi:requests", "--rev", "v1"], "pypi: takes a version, not --rev: write pypi:requests==v1"),
    (["pypi:requests==2", "--rev", "v1"], "write pypi:requests==v1"),
    (["git+https://example.org/r.git@main", "--rev", "v1"],
     "git+URL takes its revision after @, not --rev: write git+https://example.org/r.git@v1"),
    (["git@github.com:psf/requests.git"],  # issue 27: git's scp-like address
     "punstats: error: git@github.com:psf/requests.git is an scp-style git address: to scan its repository, "
     "write git+ssh://git@github.com/psf/requests.git (or git+https://github.com/psf/requests.git)"),
    (["git@github.com:psf/requests.git", "--rev", "v1"],
     "write git+ssh://git@github.com/psf/requests.git@v1 (or git+https://github.com/psf/requests.git@v1) "
     "without --rev"),
    (["requests"], "punstats: error: no such file or directory: requests (a PyPI project? write pypi:requests)"),
    (["requests==2.32.3"], "no such file or directory: requests==2.32.3 (a PyPI project? write pypi:requests==2.32.3)"),
])
def test_a_url_or_a_revision_in_the_wrong_form_says_what_to_write(args, message, tmp_path, monkeypatch, capsys):
    from punstats import cli
    monkeypatch.chdir(tmp_path)
    assert cli.main(["scan", "-q", *args]) == 2
    out, err = capsys.readouterr()
    assert err.startswith("punstats: error: ") and err.endswith(message + "\n") and err.count("\n") == 1
    assert out == "" and list(tmp_path.iterdir()) == []  # nothing stored, nothing fetched
    if "--rev" not in args:
        with pytest.raises(SourceError, match="write "):
            resolve(args[0])  # the Python API and corpus files say the same


def test_a_path_named_like_a_url_is_still_a_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "https:" / "example.org").mkdir(parents=True)
    corpus = resolve("https://example.org")  # the path https:/example.org
    assert corpus.root == str(tmp_path / "https:" / "example.org")


@pytest.mark.parametrize("argument", ["missing.py", "src/requests", "-"])
def test_a_missing_file_or_path_is_not_taken_for_a_pypi_project(argument, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SourceError) as caught:
        resolve(argument)
    assert str(caught.value) == "no such file or directory: %s" % argument


@pytest.mark.parametrize("folder, name", [(b"a\\b", "a%5Cb"), (b"caf\xe9", "caf%E9"), (b"r\\\xe9", "r%5C%E9")])
def test_a_folder_not_named_in_utf8_or_with_a_backslash_is_scanned_without_name(folder, name, tmp_path,
                                                                                 monkeypatch, capsys):
    """``punstats scan DIR`` asked for ``--name`` there (a regression): its name is now escaped."""
    from punstats.cli import main
    root = tmp_path / os.fsdecode(folder)
    root.mkdir()
    (root / "a.py").write_text("f(x=x)\n")
    monkeypatch.chdir(tmp_path)
    assert resolve(os.fsdecode(folder)).name == name
    assert main(["scan", os.fsdecode(folder), "-q", "-j", "1", "--no-cache"]) == 0
    assert "stored in             %s" % os.path.join("data", name) in capsys.readouterr().out
    assert os.listdir(tmp_path / "data") == [name]
    assert main(["scan", os.fsdecode(folder), "-q", "-j", "1", "--no-cache", "--no-save"]) == 0


def test_an_escaped_name_fits_a_folder():
    from punstats.sources.local import NAME_BYTES, corpus_name
    name = corpus_name(os.fsdecode(b"/x/" + b"\xe9" * 255))
    assert name == "%E9" * (NAME_BYTES // 3) and corpus_name("/") == "root"
