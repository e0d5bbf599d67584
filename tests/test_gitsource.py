"""Scanning a git revision without a checkout; the --python worker; the per-blob cache."""
import json
import os
import shutil
import sys
import sysconfig

import pytest
from gitrepo import commit, git, init, two_commit_origin

import punstats
from punstats import cli
from punstats.cache import BlobCache, blob_id
from punstats.engines import interp
from punstats.model.records import from_plain
from punstats.model.statuses import SUBMODULE, SYMLINK
from punstats.sources import git as gitsource
from punstats.sources import gitprocess

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


@pytest.fixture
def repo(tmp_path):
    path = tmp_path / "proj"
    init(path)
    first = commit(path, {"a.py": "f(x=x)\n", "old.py": "g(y=y)\n"}, date="2023-09-01T10:00:00+00:00")
    second = commit(path, {
        "a.py": "f(x=x)\nf(long_name_1=long_name_1)\n",
        "old.py": None,
        "asv_bench/bench.py": "h(z=z)\n",
        ".gitattributes": "asv_bench/ export-ignore\n",
        "tests/test_a.py": "t(case=case)\n",
        "bad.py": "def (:\n",
        "README.md": "f(x=x)\n",
    }, date="2023-10-01T10:00:00+00:00", links={"link.py": "a.py"})
    # a submodule entry, without any network
    git(path, "update-index", "--add", "--cacheinfo", "160000,%s,vendored" % first)
    git(path, "commit", "-q", "-m", "submodule")
    return path, first, second


def test_revision_scan_reads_every_blob_of_the_commit(repo):
    path, first, second = repo
    result = punstats.scan(str(path), rev=second, jobs=1)
    s = result.summary
    assert s["revision"] == second
    assert s["commit_date"].startswith("2023-10-01T10:00:00")
    files = dict(zip(result.files["path"], result.files["status"]))
    # export-ignore paths are scanned (git archive would drop them)
    assert files["asv_bench/bench.py"] == "ok"
    assert files["link.py"] == SYMLINK
    assert files["bad.py"] == "syntax_error"
    assert "old.py" not in files and "README.md" not in files
    assert s["punnable"] == 4  # x, long_name_1, z, case; the link is not followed


def test_older_revision_and_submodule(repo):
    path, first, second = repo
    s = punstats.scan(str(path), rev=first, jobs=1).summary
    assert s["revision"] == first and s["punnable"] == 2
    head = punstats.scan(str(path), rev="HEAD", jobs=1)
    assert head.summary["skipped_dirs"].get("submodule") == 1
    entries = gitsource.list_tree(gitsource.git_dir(str(path)), "HEAD")
    assert any(e.mode == gitsource.MODE_SUBMODULE and e.path == "vendored" for e in entries)
    assert SUBMODULE  # a submodule named *.py would become a candidate with this status


def test_revision_scan_equals_directory_scan_of_a_checkout(repo, tmp_path):
    path, first, second = repo
    checkout = tmp_path / "checkout"
    init(checkout)
    git(checkout, "fetch", "-q", str(path), second)
    git(checkout, "checkout", "-q", "FETCH_HEAD")
    from_git = punstats.scan(str(path), rev=second, jobs=1)
    from_dir = punstats.scan(str(checkout), jobs=1)
    assert from_git.occurrences.drop(columns=[]).equals(from_dir.occurrences)
    for column in ("path", "status", "punnable", "keywords", "sha256"):
        assert list(from_git.files[column]) == list(from_dir.files[column]), column


def test_cli_scan_rev(repo, capsys):
    path, first, second = repo
    assert cli.main(["scan", str(path), "--rev", second, "--no-save", "--json", "-q"]) == 0
    [out] = json.loads(capsys.readouterr().out)
    assert out["revision"] == second and out["punnable"] == 4


def test_cli_bad_revision_is_a_usage_error(repo, capsys):
    path, _, _ = repo
    assert cli.main(["scan", str(path), "--rev", "no-such-rev", "--no-save"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("punstats: error:") and len(err.strip().splitlines()) == 1


def test_not_a_repository(tmp_path, capsys):
    assert cli.main(["scan", str(tmp_path), "--rev", "HEAD", "--no-save"]) == 2


def test_python_option_matches_in_process_extraction(tmp_path):
    """The worker under another interpreter (here: this one) gives identical tables."""
    corpus = os.path.dirname(json.__file__)
    local = punstats.scan(corpus, jobs=1)
    cache = BlobCache(str(tmp_path / "c.sqlite3"))
    remote = punstats.scan(corpus, python=sys.executable, cache=cache)
    assert remote.occurrences.equals(local.occurrences)
    assert remote.files.equals(local.files)
    assert remote.functions.equals(local.functions) and len(local.functions) > 0
    assert remote.summary["python"] == local.summary["python"]
    again = punstats.scan(corpus, python=sys.executable, cache=cache)  # from the cache
    assert again.occurrences.equals(local.occurrences) and again.files.equals(local.files)
    assert again.functions.equals(local.functions)
    assert cache.count() > 0


def test_cache_reuses_results_without_a_worker(tmp_path):
    cache = BlobCache(str(tmp_path / "c.sqlite3"))
    data = b"f(x=x)\n"
    with interp.Pool(None) as pool:
        first = interp.work_many(pool, [("a.py", blob_id(data), lambda: data)], ["extract", "compat"],
                                 cache=cache)

        class Refuse:
            info = pool.info

            def work(self, *args):
                raise AssertionError("should come from the cache")

            def close(self):
                pass
        pool.workers = [Refuse()]
        second = interp.work_many(pool, [("b.py", blob_id(data), lambda: data)], ["extract", "compat"],
                                  cache=cache)
    extraction = from_plain(second[0]["extract"], "b.py")
    assert extraction.record.path == "b.py" and extraction.record.punnable == 1
    assert [(o.path, o.name) for o in extraction.occurrences] == [("b.py", "x")]
    assert first[0] == second[0]


def test_blob_id_is_gits(tmp_path):
    init(tmp_path / "r")
    (tmp_path / "r" / "x").write_bytes(b"hello\n")
    assert git(tmp_path / "r", "hash-object", "x") == blob_id(b"hello\n")


def test_bad_interpreter_is_reported(tmp_path):
    with pytest.raises(interp.InterpreterError):
        interp.Pool(str(tmp_path / "no-such-python"))


def test_git_url_is_cloned_into_the_cache_and_read_at_the_revision(tmp_path, monkeypatch):
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    url, first = two_commit_origin(tmp_path)
    old = punstats.scan("%s@%s" % (url, first[:10]), jobs=1)
    assert old.summary["revision"] == first and old.summary["punnable"] == 1
    assert old.summary["source"] == "%s@%s" % (url, first[:10]) and old.summary["corpus"] == "origin@" + first[:12]
    commit(tmp_path / "origin", {"c.py": "h(w=w)\n"})  # the clone is fetched again: the new commit is seen
    assert punstats.scan(url + "@main", jobs=1).summary["punnable"] == 4
    assert punstats.scan(url, jobs=1).summary["punnable"] == 4  # no @REV: HEAD
    clones = os.listdir(tmp_path / "cache" / "repos")
    assert len(clones) == 1 and not any(".partial" in name for name in clones)


@pytest.mark.parametrize("argument, message", [
    ("git+ext::sh -c touch% /tmp/x", "git+URL needs one of"),
    ("git+file:///no/such/repo@main", "cannot clone file:///no/such/repo"),
])
def test_bad_git_urls_are_one_line_usage_errors(argument, message, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    assert cli.main(["scan", argument, "--no-save"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("punstats: error: ") and message in err and err.count("\n") == 1


def test_remote_spec_parsing():
    assert gitsource.parse_remote("git+https://host/o/r.git@v1.2") == ("https://host/o/r.git", "v1.2")
    assert gitsource.parse_remote("git+ssh://git@host/o/r") == ("ssh://git@host/o/r", "HEAD")
    assert gitsource.parse_remote("git+ssh://git@host/o/r@abc123") == ("ssh://git@host/o/r", "abc123")


def test_python_option_with_two_workers_and_the_cache(tmp_path):
    root = os.path.join(sysconfig.get_path("stdlib"), "json")
    cache = BlobCache(str(tmp_path / "c.sqlite3"))
    local = punstats.scan(root, jobs=1)
    for _ in range(2):  # computed by two worker processes and stored, then read back
        remote = punstats.scan(root, python=sys.executable, jobs=2, cache=cache)
        assert remote.occurrences.equals(local.occurrences) and remote.files.equals(local.files)
    assert cache.count() >= local.summary["parsed"]


def test_blob_reader_sizes_asked_many_at_once_are_those_of_one_batch_call(tmp_path, monkeypatch):
    """More ids than one write holds, a missing one among them: each size as ``blob_sizes`` gives
    it, nothing shifted (an answer read for the wrong id would give another size)."""
    root = tmp_path / "r"
    init(root)
    commit(root, {"f%03d.py" % i: "x = %s\n" % ("1" * i) for i in range(40)})
    gitdir = str(root / ".git")
    oids = [entry.oid for entry in gitsource.list_tree(gitdir, "HEAD")]
    asked = oids[:17] + ["0" * 40] + oids[17:] + oids[:5]  # a missing object, and ids asked twice
    monkeypatch.setattr(gitprocess, "LINES_AT_ONCE", 7)  # several writes, one cut after the missing id
    with gitsource.BlobReader(gitdir) as reader:
        sizes = reader.sizes(asked)
    assert sizes == gitsource.blob_sizes(gitdir, oids) and len(set(sizes.values())) == 40
