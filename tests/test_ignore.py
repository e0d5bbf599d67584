"""``punstats.discover.ignore``: .gitignore honoured by default, --no-ignore, --exclude, and the record of it."""
import json
import os
import shutil
import subprocess
import sys

import pytest
from fakeindex import sdist
from gitrepo import ENV, init

from punstats.cli import main
from punstats.discover.ignore import GITIGNORE_LINE, Ignore


def _write(root, files):
    for path, text in files.items():
        full = os.path.join(str(root), path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as handle:
            handle.write(text)


def _scan(args, capsys):
    assert main(["scan", *args, "--json", "--no-save", "-q", "-j", "1", "--no-cache"]) == 0
    [summary] = json.loads(capsys.readouterr().out)
    return summary


def test_an_ignored_build_copy_is_not_counted(tmp_path, capsys):
    """What `pip install .` leaves in a clone: build/lib holds a copy of the package."""
    init(tmp_path)
    _write(tmp_path, {".gitignore": "build/\n*.egg-info/\n", "pkg/core.py": "f(x=x)\ng(y=1)\n",
                      "build/lib/pkg/core.py": "f(x=x)\ng(y=1)\n", "pkg.egg-info/x.py": "h(z=z)\n"})
    honoured = _scan([str(tmp_path)], capsys)
    assert (honoured["files"], honoured["punnable"]) == (1, 1)
    assert honoured["skipped_dirs"]["gitignore"] == 2
    assert honoured["rules"]["gitignore"] is True and honoured["rules"]["exclude"] == []
    everything = _scan([str(tmp_path), "--no-ignore"], capsys)
    assert (everything["files"], everything["punnable"]) == (3, 3)
    assert everything["rules"]["gitignore"] is False and "gitignore" not in everything["skipped_dirs"]


def test_exclude_is_repeatable_and_recorded(tmp_path, capsys):
    _write(tmp_path, {"src/a.py": "f(x=x)\n", "docs_src/tutorial/t1.py": "f(x=x)\n", "examples/e.py": "f(x=x)\n",
                      "src/gen_x.py": "f(x=x)\n"})
    summary = _scan([str(tmp_path), "--exclude", "docs_src", "--exclude", "gen_*.py", "--exclude", "/examples/"],
                    capsys)
    assert summary["files"] == 1 and summary["skipped_dirs"]["excluded"] == 3
    assert summary["rules"]["exclude"] == ["docs_src", "gen_*.py", "/examples/"]


def test_gitignore_rules_of_git(tmp_path):
    init(tmp_path / "repo")
    _write(tmp_path / "repo", {".gitignore": "*.log\n/top_only.py\n", "sub/.gitignore": "*.py\n!keep.py\n"})
    below = Ignore(str(tmp_path / "repo"))
    assert below.reason("top_only.py", False) == "gitignore"
    assert below.reason("pkg/top_only.py", False) is None  # anchored to the directory of the .gitignore
    assert below.reason("sub/drop.py", False) == "gitignore" and below.reason("sub/keep.py", False) is None
    assert below.reason("a/b/c.log", False) == "gitignore" and below.reason("a/b/c.py", False) is None
    inner = Ignore(str(tmp_path / "repo" / "sub"))  # a directory inside a work tree: the top's .gitignore counts
    assert inner.reason("x.log", False) == "gitignore" and inner.reason("drop.py", False) == "gitignore"
    assert inner.reason("keep.py", False) is None
    assert Ignore(str(tmp_path / "repo"), gitignore=False).reason("top_only.py", False) is None


def test_a_root_that_a_gitignore_above_it_ignores_is_scanned_whole(tmp_path, capsys):
    """A pyenv clone ignores /versions/*: its standard libraries are still scanned when named."""
    init(tmp_path / "pyenv")
    _write(tmp_path / "pyenv", {".gitignore": "/versions/*\n*.pyc\n",
                                "versions/3.11.7/lib/python3.11/json/__init__.py": "f(x=x)\n",
                                "versions/3.11.7/lib/python3.11/json/x.pyc.py": "f(y=y)\n"})
    summary = _scan([str(tmp_path / "pyenv" / "versions" / "3.11.7" / "lib" / "python3.11")], capsys)
    assert summary["files"] == 2 and "gitignore" not in summary["skipped_dirs"]


def test_exclude_with_a_revision_is_a_usage_error(tmp_path, capsys):
    assert main(["scan", str(tmp_path), "--rev", "HEAD", "--exclude", "x", "--no-save"]) == 2
    assert capsys.readouterr().err == ("punstats: error: --exclude applies to directories; "
                                       "a revision is read from git as committed\n")


def test_a_gitignore_that_is_a_fifo_or_a_device_is_not_read(tmp_path):
    """Read, it would block for ever (a FIFO) or without end (/dev/zero): it is passed over."""
    (tmp_path / ".git").mkdir()
    os.mkfifo(str(tmp_path / ".gitignore"))  # above the root
    root = tmp_path / "corpus"
    (root / "sub").mkdir(parents=True)
    (root / "a.py").write_text("f(x=x)\n")
    (root / "sub" / "b.py").write_text("f(y=y)\n")
    os.mkfifo(str(root / ".gitignore"))
    (root / "sub" / ".gitignore").symlink_to("/dev/zero")
    done = subprocess.run([sys.executable, "-m", "punstats", "scan", str(root), "--no-save", "--json", "-j", "1"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)[0]["punnable"] == 2


def test_an_archive_s_own_gitignore_does_not_drop_what_it_shipped(tmp_path, capsys):
    """urllib3's sdist ships ``src/urllib3/_version.py`` and a ``.gitignore`` naming it: the file is
    counted; the same tree as a directory on disk still honours its ``.gitignore``."""
    files = {".gitignore": "src/pkg/_version.py\nbuild/\n", "src/pkg/_version.py": "v = f(version=version)\n",
             "src/pkg/core.py": "g(y=1)\n", "build/lib/pkg/core.py": "g(y=1)\n", "__pycache__/c.py": "h(z=z)\n"}
    archive = tmp_path / "pkg-1.0.tar.gz"
    archive.write_bytes(sdist("pkg", "1.0", files))
    shipped = _scan([str(archive)], capsys)
    assert (shipped["files"], shipped["punnable"]) == (3, 1)  # __pycache__ stays out, and says so
    assert shipped["skipped_dirs"] == {"cache": 1} and shipped["rules"]["gitignore"] is False
    _write(tmp_path / "tree", files)
    on_disk = _scan([str(tmp_path / "tree")], capsys)
    assert (on_disk["files"], on_disk["punnable"]) == (1, 0)
    assert on_disk["skipped_dirs"] == {"cache": 1, "gitignore": 2} and on_disk["rules"]["gitignore"] is True


#: Entries of the scratch repositories the .gitignore lines below are tried on ("/": a directory).
_ENTRIES = ("a.py", "foo", "foo\\", "foo ", "!", "!!", "a", "b", "a\x0cb", "#c", "bar", "sub/")

#: .gitignore contents git reads without complaint but pathspec refused, or that Python's
#: splitlines and a byte-order mark would read otherwise than git; each after nothing and after "*".
_GIT_READS = [b"!\n", b"foo\\\n", b"\\\n", b"*\\\n", b"!foo\\\n", b"!\\\n", b"sub\\/\n", b"foo\\\\\n",
              b"foo\\  \n", b"foo\\ \n", b"foo  \n", b"\\!\n", b"!!\n", b"\\#c\n", b"/\n", b"a\x0cb\n",
              b"\xef\xbb\xbfa.py\n", b"bar\r\n", b"\xff\xfe\n\x00\nbar\n"]


def _git_ignored(repo, entries):
    """The entries ``git check-ignore`` says are ignored, no configuration but the repository's read."""
    env = dict(ENV, HOME=str(repo))
    done = subprocess.run(["git", "check-ignore", "--no-index", "-z", "--stdin"], cwd=str(repo), env=env,
                          input="".join(e.rstrip("/") + "\0" for e in entries).encode(),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    assert done.returncode in (0, 1), done.stderr  # 1: none ignored
    return {e for e in entries if e.rstrip("/").encode() in done.stdout.split(b"\0")}


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("before", [b"", b"*\n"], ids=["alone", "after-star"])
@pytest.mark.parametrize("content", _GIT_READS)
def test_a_gitignore_line_means_what_it_means_to_git(tmp_path, content, before):
    """A lone ``!`` or a trailing backslash (black's sdist ships one) crashed the walk."""
    repo = tmp_path / "repo"
    init(repo)
    for entry in _ENTRIES:
        (repo / entry.rstrip("/")).mkdir() if entry.endswith("/") else (repo / entry).write_bytes(b"")
    (repo / ".gitignore").write_bytes(before + content)
    ignore = Ignore(str(repo))
    ours = {e for e in _ENTRIES if ignore.reason(e.rstrip("/"), e.endswith("/"))}
    assert ours == _git_ignored(repo, _ENTRIES)


def test_a_scan_reads_past_lines_git_matches_nothing_with(tmp_path, capsys):
    _write(tmp_path / "d", {".gitignore": "!\nfoo\\\nbuild/\n", "a.py": "f(x=x)\n", "build/b.py": "f(y=y)\n"})
    summary = _scan([str(tmp_path / "d")], capsys)
    assert (summary["files"], summary["punnable"], summary["calls_with_punnable"]) == (1, 1, 1)


def test_a_line_too_long_for_any_path_is_left_out(tmp_path):
    """Git would read ``a***…`` as ``a*``; pathspec would take minutes over a megabyte of it."""
    (tmp_path / ".gitignore").write_text("a" + "*" * GITIGNORE_LINE + "\nb.py\n")
    ignore = Ignore(str(tmp_path))
    assert ignore.reason("a.py", False) is None and ignore.reason("b.py", False) == "gitignore"


#: A tree of Python files (and directories of them) the re-includes below are tried on.
_TREE = ("a.py", "b.py", "sub/a.py", "sub/b.py", "sub/deep/c.py", "sub/deep/keep.py", "other/d.py",
         "other/sub/e.py", "keep/f.py", "keep/inner/g.py", "x/sub/h.py")

#: ``.gitignore`` files with re-includes ({directory: content}): ``*`` then ``!sub/`` then
#: ``!sub/*.py`` re-included nothing (``sub/`` stayed ignored: pathspec's order let ``*`` win).
_REINCLUDES = [
    {"": "*\n!sub/\n!sub/*.py\n"},
    {"": "*\n!sub/\n"},
    {"": "*\n!*/\n!*.py\n"},
    {"": "*\n!*/\n!keep.py\n"},
    {"": "/*\n!/sub/\n"},
    {"": "sub/**\n!sub/deep/\n!sub/deep/keep.py\n"},
    {"": "sub/\n!sub/a.py\n"},
    {"": "*.py\n!/sub/\n", "sub/": "!b.py\n"},
    {"": "*\n!keep/\n", "keep/": "!*\n"},
    {"": "**/sub/\n!x/sub/\n"},
    {"": "/*/\n!other/\n/other/*/\n"},
]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
@pytest.mark.parametrize("gitignores", _REINCLUDES, ids=lambda g: "|".join(g.values()).replace("\n", ","))
def test_a_walk_keeps_what_git_keeps_with_re_includes(tmp_path, gitignores):
    """The files a directory walk finds are those ``git ls-files --others --exclude-standard`` lists."""
    from punstats.discover.tree import discover
    repo = tmp_path / "repo"
    init(repo)
    _write(repo, {path: "f(x=x)\n" for path in _TREE})
    _write(repo, {directory + ".gitignore": content for directory, content in gitignores.items()})
    env = dict(ENV, HOME=str(repo))
    listed = subprocess.run(["git", "ls-files", "--others", "--exclude-standard", "-z"], cwd=str(repo), env=env,
                            stdout=subprocess.PIPE, check=True).stdout.decode().split("\0")
    found = discover(str(repo), ignore=Ignore(str(repo)).reason)
    assert {c.path for c in found.candidates} == {p for p in listed if p.endswith(".py")}
