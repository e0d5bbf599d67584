"""``runs.revisions``: a history counted from the changes between revisions, against each
revision scanned whole (``punstats.scan``, no cache), the way history counted before."""
import contextlib
import os
import sqlite3
import sysconfig
import zlib

import pandas as pd
import pytest
from gitrepo import commit, git, init

import punstats
import punstats.patterns.bare_except as bare_except
from punstats.cache import BlobCache
from punstats.cli import main
from punstats.runs import history

STDLIB = sysconfig.get_path("stdlib")

#: How a row's files were got: not a count, it differs from a scan of the revision alone.
HOW = ["files_from_cache", "files_extracted"]

#: Settings that make every rule matter: a small size cap, a short "long" name, a user pattern.
SETTINGS = dict(max_bytes=3000, long_threshold=5, patterns=[bare_except.__file__], jobs=1)


def _stdlib(name: str) -> str:
    with open(os.path.join(STDLIB, name), encoding="utf-8") as handle:
        return handle.read()


def _submodule(root, path: str, sha: str) -> None:
    """Commit a submodule entry (mode 160000) at ``path`` without a work tree for it."""
    git(root, "update-index", "--add", "--cacheinfo", "160000,%s,%s" % (sha, path))
    git(root, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-q", "-m", "submodule")


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """Revisions that add, edit, delete, rename and move files into and out of tests, break and
    mend one, grow one past the size cap, add a link and a submodule, and put a virtual
    environment's ``pyvenv.cfg`` in and out of a folder (its files then skipped)."""
    root = tmp_path_factory.mktemp("revisions") / "repo"
    init(root)
    base = {"pkg/a.py": "f(name=name, other=other)\ntry:\n    g(value=value)\nexcept:\n    pass\n",
            "pkg/b.py": "h(x=x, y=2)\n", "tests/test_a.py": "f(name=name)\n", "big.py": "k(z=z)\n",
            "env/lib/c.py": "m(w=w)\n", "json/decoder.py": _stdlib("json/decoder.py"),
            "notes.txt": "not python\n"}
    steps = [base,
             {"pkg/b.py": "h(x=x, y=y, longname=longname)\n", "pkg/new.py": "n(q=q)\n"},  # edit, add
             {"pkg/a.py": None, "pkg/renamed.py": base["pkg/a.py"]},  # a rename: same blob, new path
             {"pkg/b.py": None, "tests/test_b.py": "h(x=x, y=y, longname=longname)\n"},  # into tests
             {"tests/test_a.py": None, "pkg/was_test.py": "f(name=name)\n"},  # out of tests
             {"pkg/new.py": "def broken(:\n"},  # stops parsing
             {"big.py": "k(z=z)\n" + "# padding\n" * 400, "env/pyvenv.cfg": "home = /usr\n"},  # over the cap; env
             {"env/pyvenv.cfg": None, "json/decoder.py": None, "notes.txt": "still not python\n"},
             {"pkg/new.py": "n(q=q)\n", "big.py": "k(z=z)\n"}]  # mended, under the cap again
    shas = []
    for i, files in enumerate(steps):
        shas.append(commit(root, files, "step %d" % i, "2024-01-%02dT12:00:00+00:00" % (i + 1),
                           links={"pkg/link.py": "a.py"} if i == 2 else None))
    _submodule(root, "vendored.py", shas[0])
    shas.append(git(root, "rev-parse", "HEAD"))
    shas.append(commit(root, {"tests/test_c.py": "f(aaaaaa=aaaaaa)\n"}, "after the submodule",
                       "2024-02-01T12:00:00+00:00"))  # ``add -A`` drops the submodule (no work tree)
    return str(root), shas


def _scanned_whole(root, commits, **settings):
    """The history table of each revision scanned on its own, as history did before."""
    return history.table_of([history.row(c, punstats.scan(root, rev=c.sha, **settings).summary) for c in commits])


@pytest.mark.parametrize("every", ["commit", "2"])
def test_counts_from_the_changes_equal_each_revision_scanned_whole(repo, tmp_path, every):
    root, shas = repo
    commits = history.select(history.commits_of(root), every)
    assert len(commits) >= 5
    expected = _scanned_whole(root, commits, **SETTINGS)
    assert expected["failed"].max() >= 1 and expected["bare_except"].max() >= 1  # the cases are there
    for cache in (False, str(tmp_path / "c.sqlite3"), str(tmp_path / "c.sqlite3")):  # none, cold, warm
        table = history.history(root, commits, cache=cache, **SETTINGS)
        pd.testing.assert_frame_equal(table.drop(columns=HOW), expected.drop(columns=HOW))
    assert table["files_extracted"].sum() == 0  # warm: every blob from the cache
    assert (table["files_from_cache"] > 0).all()


def test_every_status_and_rule_is_met_along_the_way(repo):
    """The repository exercises what the incremental counts must follow: the statuses of a
    revision scanned whole change as files go over the cap, links, submodules and environments come."""
    root, shas = repo
    statuses = [punstats.scan(root, rev=sha, **SETTINGS).summary for sha in shas]
    assert any(s["skipped_files"].get("symlink") for s in statuses)
    assert any(s["skipped_files"].get("submodule") for s in statuses)
    assert any(s["failed_by_reason"].get("too_large") for s in statuses)
    assert any("environment" in s["skipped_dirs"] for s in statuses)
    assert any(s["failed_by_reason"].get("syntax_error") for s in statuses)


def test_a_warm_history_extracts_only_what_it_never_saw(repo, tmp_path):
    root, shas = repo
    commits = history.commits_of(root)
    with BlobCache(str(tmp_path / "c.sqlite3")) as cache:
        cold = history.history(root, commits, cache=cache, jobs=1)
        assert cold["files_extracted"].iloc[0] == cold["parsed"].iloc[0]  # every file of the first, once
        assert cold["files_extracted"].iloc[1:].max() <= 2  # then what changed, and no blob twice
        assert (cold.loc[2, "files_extracted"], cold.loc[2, "files_from_cache"]) == (0, cold.loc[2, "files"])
    assert cold["files_extracted"].iloc[1:].sum() < cold["files"].sum() / 5


def test_the_repository_is_checked_once_per_run(repo, tmp_path, monkeypatch):
    """Its files are checked (``gitcheck.check_repository``) once, not once per revision."""
    from punstats.sources import git as gitsource
    root, _ = repo
    calls = []
    check = gitsource.check_repository
    monkeypatch.setattr(gitsource, "check_repository", lambda *a: calls.append(a) or check(*a))
    assert main(["history", root, "-q", "-j", "1", "--every", "commit", "--no-cache", "-o", str(tmp_path / "h"),
                 "--json"]) == 0
    assert len(calls) == 1


def test_outside_tests_share_is_a_column_and_n_a_without_keyword_arguments(tmp_path, capsys):
    root = tmp_path / "repo"
    init(root)
    commit(root, {"tests/test_x.py": "f(x=x)\n", "a.py": "g(1)\n"}, date="2024-01-01T12:00:00+00:00")
    commit(root, {"a.py": "g(y=y, z=1)\n"}, date="2024-02-01T12:00:00+00:00")
    out = tmp_path / "h"
    assert main(["history", str(root), "-q", "-j", "1", "--every", "commit", "-o", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert "punnable_nontest_pct" in printed[0].split()
    assert printed[1].split()[7] == "n/a" and printed[2].split()[7] == "50.00"  # 0 of 0 outside tests; 1 of 2
    table = pd.read_parquet(out / "history.parquet")
    assert pd.isna(table.loc[0, "punnable_nontest_pct"]) and table.loc[1, "punnable_nontest_pct"] == 50.0
    assert list(table["punnable_pct"]) == [100.0, 66.6667]
    assert main(["history", str(root), "-q", "-j", "1", "--every", "commit", "-o", str(out), "--json"]) == 0
    import json
    rows = json.loads(capsys.readouterr().out)  # strict JSON: no NaN
    assert [row["punnable_nontest_pct"] for row in rows] == [None, 50.0]


@pytest.mark.slow
def test_history_of_standard_library_files_equals_each_revision_scanned_whole(tmp_path):
    """Real code: three packages of the standard library, edited, moved into tests and deleted."""
    root = tmp_path / "repo"
    init(root)
    names = [os.path.join(package, name) for package in ("json", "email", "unittest")
             for name in sorted(os.listdir(os.path.join(STDLIB, package))) if name.endswith(".py")]
    commit(root, {name: _stdlib(name) for name in names})
    commit(root, {names[0]: _stdlib(names[0]) + "\nf(x=x)\n", names[1]: None})
    commit(root, {names[2]: None, "tests/" + names[2]: _stdlib(names[2])})
    commit(root, {names[3]: "def broken(:\n", "email/" + "copy.py": _stdlib(names[5])})
    commits = history.commits_of(str(root))
    table = history.history(str(root), commits, cache=str(tmp_path / "c.sqlite3"), jobs=2)
    expected = _scanned_whole(str(root), commits, jobs=2)
    pd.testing.assert_frame_equal(table.drop(columns=HOW), expected.drop(columns=HOW))


def test_revisions_that_need_a_pool_share_one_forked_for_the_first(tmp_path, monkeypatch):
    """Each revision changes enough files to be extracted by a pool: one pool serves them all."""
    from punstats.engines import local
    forked = []

    def new_pool(jobs):
        forked.append(jobs)
        return made(jobs)
    made = local.new_pool
    monkeypatch.setattr(local, "new_pool", new_pool)
    root = tmp_path / "repo"
    init(root)
    many = local.MIN_FILES_FOR_POOL + 6
    for n in range(3):
        commit(root, {"m%03d.py" % i: "f(x=x)\n" * (n + 1) for i in range(many)}, date="2024-0%d-01T12:00:00+00:00"
               % (n + 1))
    table = history.history(str(root), history.commits_of(str(root)), cache=False, jobs=2)
    assert list(table["punnable"]) == [many, 2 * many, 3 * many] and list(table["files_extracted"]) == [many] * 3
    assert forked == [2]


def test_a_warm_history_reads_each_files_numbers_not_its_whole_result(repo, tmp_path, monkeypatch):
    """Warm, a history asks the cache for the numbers it counts per file (``NUMBERS_KIND``), never
    for a whole extraction, and asks git for blob sizes once per chunk of revisions, not once
    per revision; its counts are the cold run's (every rule in play: a pattern, a size cap, a
    short long name), and a damaged numbers row is deleted and counted from the result again."""
    from punstats.runs import revisions
    from punstats.sources.git import BlobReader
    root, _ = repo
    commits = history.commits_of(root)
    asked, sized = [], []
    get_many, sizes = BlobCache.get_many, BlobReader.sizes
    monkeypatch.setattr(BlobCache, "get_many",
                        lambda self, kind, *rest: asked.append(kind) or get_many(self, kind, *rest))
    monkeypatch.setattr(BlobReader, "sizes", lambda self, oids: sized.append(oids) or sizes(self, oids))
    with BlobCache(str(tmp_path / "c.sqlite3")) as cache:
        cold = history.history(root, commits, cache=cache, **SETTINGS)
        asked.clear(), sized.clear()
        warm = history.history(root, commits, cache=cache, **SETTINGS)
        assert set(asked) == {revisions.NUMBERS_KIND} and len(sized) == 1
        pd.testing.assert_frame_equal(warm.drop(columns=HOW), cold.drop(columns=HOW))
        assert warm["files_extracted"].sum() == 0
        with contextlib.closing(sqlite3.connect(str(tmp_path / "c.sqlite3"))) as db:
            blob, version, parser = db.execute("SELECT blob, version, parser FROM results WHERE kind=?",
                                               (revisions.NUMBERS_KIND,)).fetchone()
        cache.put_bytes(revisions.NUMBERS_KIND, version, parser, blob, zlib.compress(b'["ok", 1]'))
        asked.clear()
        again = history.history(root, commits, cache=cache, **SETTINGS)
        assert "extract" in asked
    pd.testing.assert_frame_equal(again.drop(columns=HOW), cold.drop(columns=HOW))
    assert again["files_extracted"].sum() == 0
