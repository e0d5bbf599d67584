"""``punstats.cache``: the per-blob result cache (SQLite) and the download folders beside it."""
import os
import subprocess
import sys

import pytest

from punstats import cache as caches
from punstats.cache import BlobCache, blob_id


@pytest.fixture
def cache(tmp_path):
    with BlobCache(str(tmp_path / "c" / "blobs.sqlite3")) as c:
        yield c


def test_blob_id_is_gits():
    assert blob_id(b"") == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"  # git hash-object /dev/null
    assert blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"


def test_values_round_trip_under_their_whole_key(cache):
    cache.put_many("extract", "7", "CPython 3.11.7", [("a" * 40, {"n": 1, "s": "é"}), ("b" * 40, [1, 2])])
    assert cache.get_many("extract", "7", "CPython 3.11.7", ["a" * 40, "b" * 40, "c" * 40]) == {
        "a" * 40: {"n": 1, "s": "é"}, "b" * 40: [1, 2]}
    for other in (("compat", "7", "CPython 3.11.7"), ("extract", "8", "CPython 3.11.7"),
                  ("extract", "7", "CPython 3.12.1")):
        assert cache.get_many(*other, ["a" * 40]) == {}


def test_a_key_keeps_its_first_value_and_many_keys_are_asked_in_chunks(cache):
    keys = ["%040x" % i for i in range(1234)]
    cache.put_many("extract", "1", "p", [(k, i) for i, k in enumerate(keys)])
    cache.put_many("extract", "1", "p", [(keys[0], "other")])  # the same key always holds the same value
    found = cache.get_many("extract", "1", "p", keys + keys[:3])
    assert len(found) == 1234 and found[keys[0]] == 0 and found[keys[-1]] == 1233
    assert cache.count() == 1234


def test_asking_for_any_number_of_keys_uses_a_few_statements_so_the_connection_s_memory_stays_bounded(cache):
    keys = ["%040x" % i for i in range(700)]
    cache.put_many("extract", "1", "p", [(k, i) for i, k in enumerate(keys)])
    statements = set()
    cache._db.set_trace_callback(lambda sql: statements.add(sql.split(" IN (")[1].count(",") + 1)
                                 if " IN (" in sql else None)  # the SQL as run, its values bound
    for n in range(1, 701):
        found = cache.get_many("extract", "1", "p", keys[:n])
        assert len(found) == n and found[keys[n - 1]] == n - 1
    assert statements == {1 << k for k in range(10)}  # one per power of two up to 512, not one per length


def test_raw_entries_are_replaced_and_deleted(cache):
    assert cache.get_bytes("tables", "1", "p", "k") is None
    cache.put_bytes("tables", "1", "p", "k", b"\x00first")
    cache.put_bytes("tables", "1", "p", "k", b"\x00second")
    assert cache.get_bytes("tables", "1", "p", "k") == b"\x00second"
    cache.put_bytes("files", "1", "p", "k", b"x")
    cache.delete(["tables", "files"], "1", "p", "k")
    assert cache.get_bytes("tables", "1", "p", "k") is None and cache.count() == 0


def test_stats_and_clear(cache):
    cache.put_many("extract", "1", "p", [("a", 1), ("b", 2)])
    cache.put_many("compat", "1", "p", [("a", 3)])
    stats = cache.stats()
    assert stats["path"] == cache.path and stats["bytes"] > 0
    assert {kind: e["count"] for kind, e in stats["entries"].items()} == {"compat": 1, "extract": 2}
    assert cache.clear() == 3
    assert cache.count() == 0 and cache.stats()["entries"] == {}


def test_a_failed_write_leaves_nothing_behind(cache):
    with pytest.raises(TypeError):
        cache.put_many("extract", "1", "p", [("a", 1), ("b", object())])  # not JSON: nothing is written
    assert cache.count() == 0
    cache.put_many("extract", "1", "p", [("a", 1)])
    assert cache.count() == 1


def test_two_processes_share_one_cache(tmp_path):
    path = str(tmp_path / "blobs.sqlite3")
    code = ("import sys\nfrom punstats.cache import BlobCache\n"
            "with BlobCache(sys.argv[1]) as c:\n"
            "    c.put_many('extract', '1', 'p', [('%s-%d' % (sys.argv[2], i), i) for i in range(200)])\n")
    procs = [subprocess.Popen([sys.executable, "-c", code, path, name]) for name in ("x", "y")]
    assert [p.wait(timeout=120) for p in procs] == [0, 0]
    with BlobCache(path) as c:
        assert c.count() == 400 and c.get_many("extract", "1", "p", ["x-5", "y-199"]) == {"x-5": 5, "y-199": 199}


def test_where_the_cache_lives(monkeypatch, tmp_path):
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "explicit"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert caches.default_dir() == str(tmp_path / "explicit")
    monkeypatch.delenv("PUNSTATS_CACHE_DIR")
    assert caches.default_dir() == os.path.join(str(tmp_path / "xdg"), "punstats")
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert caches.default_dir() == os.path.join(str(tmp_path / "home"), ".cache", "punstats")
    with BlobCache() as c:
        assert c.path == os.path.join(str(tmp_path / "home"), ".cache", "punstats", caches.FILE_NAME)


def test_downloads_are_measured_and_cleared_and_the_results_stay(tmp_path):
    (tmp_path / "sdists" / ("ab" * 32)).mkdir(parents=True)
    (tmp_path / "sdists" / ("ab" * 32) / "a.tar.gz").write_bytes(b"x" * 100)
    (tmp_path / "repos" / ("cd" * 12)).mkdir(parents=True)
    (tmp_path / "repos" / ("cd" * 12) / "HEAD").write_bytes(b"y" * 7)
    with BlobCache(str(tmp_path / caches.FILE_NAME)) as c:
        c.put_many("extract", "1", "p", [("a", 1)])
    assert caches.downloads(str(tmp_path)) == {"sdists": 100, "repos": 7}
    caches.clear_downloads(str(tmp_path))
    assert caches.downloads(str(tmp_path)) == {"sdists": 0, "repos": 0}
    assert not (tmp_path / "sdists").exists() and (tmp_path / caches.FILE_NAME).exists()
    with BlobCache(str(tmp_path / caches.FILE_NAME)) as c:
        assert c.count() == 1


def test_clearing_removes_only_what_punstats_downloaded(tmp_path):
    """A cache directory pointed at a folder of the user's keeps the user's files."""
    (tmp_path / "repos" / "my-project" / ".git").mkdir(parents=True)
    (tmp_path / "repos" / "my-project" / "setup.py").write_text("mine\n")
    (tmp_path / "repos" / ("cd" * 12)).mkdir()
    (tmp_path / "sdists").mkdir()
    (tmp_path / "sdists" / "notes.txt").write_text("mine\n")
    caches.clear_downloads(str(tmp_path))
    assert sorted(os.listdir(tmp_path / "repos")) == ["my-project"]
    assert (tmp_path / "repos" / "my-project" / "setup.py").read_text() == "mine\n"
    assert sorted(os.listdir(tmp_path / "sdists")) == ["notes.txt"]
