"""The per-blob cache never fails a run: simultaneous opens of an empty cache, and a
cache that is corrupt, of another schema, read-only, full or not a directory, or
holds damaged rows (one warning line, the scan goes on and counts the same)."""
import json
import os
import sqlite3
import threading
import zlib

import pytest

import punstats
from punstats import cache as caches
from punstats import cli
from punstats.cache import BlobCache

SOURCES = {"a.py": "f(x=x)\nf(y=1)\n", "b.py": "g(alpha=alpha, beta=beta)\n", "bad.py": "def (:\n"}


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "tree"
    root.mkdir()
    for name, text in SOURCES.items():
        (root / name).write_text(text)
    return root


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    directory = tmp_path / "cache"
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(directory))
    return directory


def scan_json(tree, capsys, *extra):
    """(summary, stderr lines) of ``punstats scan TREE --no-save --json``."""
    assert cli.main(["scan", str(tree), "--no-save", "--json", "-q", "-j", "1", *extra]) == 0
    captured = capsys.readouterr()
    summary, = json.loads(captured.out)  # scan --json: an array of summaries
    return summary, captured.err.splitlines()


def counts(summary):
    return summary["files"], summary["punnable"], summary["failed_by_reason"]


def test_simultaneous_opens_of_an_empty_cache_never_fail(tmp_path):
    """Four connections at one barrier on a new database, many times: SQLite answers
    "database is locked" without waiting to one of two readers that both upgrade to a write."""
    failures = []

    def open_one(path, barrier):
        barrier.wait()
        try:
            with BlobCache(path) as cache:
                assert not cache.problem, cache.problem
                cache.put_many("k", "1", "p", [("blob", 1)])
        except BaseException as exc:  # noqa: B902 -- every failure is the finding
            failures.append(repr(exc))

    for number in range(150):
        path = str(tmp_path / ("c%d" % number) / caches.FILE_NAME)
        barrier = threading.Barrier(4)
        threads = [threading.Thread(target=open_one, args=(path, barrier)) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert failures == []


def test_a_corrupt_database_is_one_warning_and_cache_clear_repairs_it(tree, cache_dir, capsys):
    plain, _ = scan_json(tree, capsys, "--no-cache")
    cache_dir.mkdir()
    (cache_dir / caches.FILE_NAME).write_bytes(b"this is not an SQLite database, only text " * 100)
    summary, err = scan_json(tree, capsys)
    assert err == ["punstats: warning: cache %s: file is not a database; going on without it "
                   "(punstats cache --clear starts it afresh)" % (cache_dir / caches.FILE_NAME)]
    assert counts(summary) == counts(plain)
    assert cli.main(["cache", "--clear"]) == 0
    captured = capsys.readouterr()
    assert "removed 0 entries" in captured.out
    summary, err = scan_json(tree, capsys)  # a working cache again: stores, then serves
    assert err == [] and counts(summary) == counts(plain)
    summary, err = scan_json(tree, capsys)
    assert err == [] and summary["cache"]["cached"] == 3


@pytest.mark.parametrize("ddl, reason", [
    ("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('schema', '99')",
     "schema 99, this version of punstats uses 1"),
    ("CREATE TABLE results (kind TEXT, blob TEXT, value BLOB)",
     "its results table is not the one this version of punstats uses"),
])
def test_a_database_of_another_schema_is_left_alone(tree, cache_dir, capsys, ddl, reason):
    cache_dir.mkdir()
    db = sqlite3.connect(str(cache_dir / caches.FILE_NAME))
    db.executescript(ddl)
    db.close()
    before = (cache_dir / caches.FILE_NAME).read_bytes()
    summary, err = scan_json(tree, capsys)
    assert len(err) == 1 and (": %s; going on without it" % reason) in err[0]
    assert summary["punnable"] == 3
    assert (cache_dir / caches.FILE_NAME).read_bytes() == before  # nothing written into it
    assert cli.main(["cache", "--clear"]) == 0


def test_damaged_rows_are_computed_again_and_replaced(tree, cache_dir, capsys):
    plain, _ = scan_json(tree, capsys)
    path = str(cache_dir / caches.FILE_NAME)
    db = sqlite3.connect(path)
    blobs = [row[0] for row in db.execute("SELECT blob FROM results WHERE kind='extract' ORDER BY blob")]
    assert len(blobs) == 3
    db.execute("UPDATE results SET value=x'00ff' WHERE blob=?", (blobs[0],))  # not zlib
    db.execute("UPDATE results SET value=? WHERE blob=?", (zlib.compress(b"[1, 2]"), blobs[1]))  # wrong shape
    db.commit()
    db.close()
    (tree / "c.py").write_text("k(gamma=gamma)\n")  # the whole tables cannot be reused: per-file rows are read
    summary, err = scan_json(tree, capsys)
    assert err == [] and summary["punnable"] == plain["punnable"] + 1 and summary["files"] == 4
    assert (summary["cache"]["cached"], summary["cache"]["extracted"]) == (1, 3)
    (tree / "c.py").write_text("k(gamma=gamma, delta=delta)\n")
    summary, err = scan_json(tree, capsys)  # the damaged rows were replaced
    assert (summary["cache"]["cached"], summary["cache"]["extracted"]) == (3, 1)
    assert summary["punnable"] == plain["punnable"] + 2


def test_a_read_only_cache_directory(tree, cache_dir, capsys, monkeypatch):
    """Root ignores permissions, so the refusal SQLite gives a read-only directory is simulated."""
    real = sqlite3.connect

    def refuse(path, *args, **kwargs):
        if str(path).startswith(str(cache_dir)):
            raise sqlite3.OperationalError("unable to open database file")
        return real(path, *args, **kwargs)

    monkeypatch.setattr(sqlite3, "connect", refuse)
    summary, err = scan_json(tree, capsys)
    assert err == ["punstats: warning: cache %s: unable to open database file; going on without it "
                   "(punstats cache --clear starts it afresh)" % (cache_dir / caches.FILE_NAME)]
    assert summary["punnable"] == 3


def test_a_full_cache_stops_storing_and_the_scan_goes_on(tree, tmp_path, capsys):
    cache = BlobCache(str(tmp_path / "full.sqlite3"))
    pages = cache._db.execute("PRAGMA page_count").fetchone()[0]
    cache._db.execute("PRAGMA max_page_count=%d" % pages)  # SQLite's own "database or disk is full"
    (tree / "big.py").write_text("h(%s)\n" % ", ".join("k%d=k%d" % (i, i) for i in range(3000)))
    result = punstats.scan(str(tree), jobs=1, cache=cache)
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and ": database or disk is full; going on without it" in err[0]
    assert result.summary["punnable"] == 3003 and result.summary["files"] == 4
    assert cache.problem == "database or disk is full"


def test_a_cache_path_that_is_a_file(tree, tmp_path, capsys, monkeypatch):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("keep me\n")
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(blocker))
    summary, err = scan_json(tree, capsys)
    assert len(err) == 1 and err[0].startswith("punstats: warning: cache %s/" % blocker)
    assert "going on without it" in err[0] and summary["punnable"] == 3
    assert cli.main(["cache", "--clear"]) == 0
    assert blocker.read_text() == "keep me\n"
    assert os.path.isfile(str(blocker))
