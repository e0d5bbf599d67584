"""The incremental cache: reuse by content, partial changes, killed and concurrent scans."""
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

import punstats
from punstats.cache import BlobCache
from punstats.cli import main


def same_tables(a, b):
    for name in ("occurrences", "files", "functions"):
        assert getattr(a, name).equals(getattr(b, name)), name
    drop = ("created", "cache")
    assert ({k: v for k, v in a.summary.items() if k not in drop}
            == {k: v for k, v in b.summary.items() if k not in drop})


@pytest.fixture
def corpus(stdlib_subset_dir, tmp_path):
    """A private copy of real code, which the tests may change."""
    root = tmp_path / "corpus"
    shutil.copytree(stdlib_subset_dir, root)
    return root


def test_warm_scan_reuses_everything_and_equals_a_fresh_scan(corpus, tmp_path):
    cache = BlobCache(str(tmp_path / "c.sqlite3"))
    fresh = punstats.scan(str(corpus), jobs=1)
    cold = punstats.scan(str(corpus), jobs=1, cache=cache)
    warm = punstats.scan(str(corpus), jobs=1, cache=cache)
    files = cold.summary["files"]
    assert cold.summary["cache"] == {"cached": 0, "extracted": files, "tables_reused": 0}
    assert warm.summary["cache"] == {"cached": files, "extracted": 0, "tables_reused": 1}
    same_tables(fresh, cold)
    same_tables(fresh, warm)


def test_a_changed_file_is_the_only_one_extracted_again(corpus, tmp_path):
    cache = BlobCache(str(tmp_path / "c.sqlite3"))
    punstats.scan(str(corpus), jobs=1, cache=cache)
    target = corpus / "json" / "encoder.py"
    target.write_text(target.read_text() + "\nf(brand_new_name=brand_new_name)\n")
    shutil.copy(corpus / "json" / "decoder.py", corpus / "json" / "decoder_copy.py")  # known content, new path
    again = punstats.scan(str(corpus), jobs=1, cache=cache)
    assert again.summary["cache"] == {"cached": again.summary["files"] - 1, "extracted": 1, "tables_reused": 0}
    same_tables(punstats.scan(str(corpus), jobs=1), again)
    assert "brand_new_name" in set(again.occurrences["name"])
    copies = again.occurrences[again.occurrences["path"] == "json/decoder_copy.py"]
    originals = again.occurrences[again.occurrences["path"] == "json/decoder.py"]
    assert len(copies) == len(originals) > 0


def test_cache_is_keyed_by_size_cap_and_parser(corpus, tmp_path):
    cache = BlobCache(str(tmp_path / "c.sqlite3"))
    punstats.scan(str(corpus), jobs=1, cache=cache)
    capped = punstats.scan(str(corpus), jobs=1, cache=cache, max_bytes=2000)
    assert capped.summary["cache"]["cached"] == 0
    assert capped.files["status"].eq("too_large").any()
    same_tables(punstats.scan(str(corpus), jobs=1, max_bytes=2000), capped)


KILLABLE = """
import sys
from punstats import cli
from punstats.engines import cached
cached.CHUNK_FILES = 5   # store often, so a kill lands between two writes
sys.exit(cli.main(sys.argv[1:]))
"""


def entries(path):
    if not os.path.exists(path):
        return 0
    with sqlite3.connect(path, timeout=30) as db:
        try:
            return db.execute("SELECT COUNT(*) FROM results WHERE kind='extract'").fetchone()[0]
        except sqlite3.OperationalError:  # the table is not there yet
            return 0


def test_a_scan_killed_midway_leaves_a_cache_the_next_scan_uses(corpus, tmp_path):
    cache_dir = tmp_path / "cache"
    env = dict(os.environ, PUNSTATS_CACHE_DIR=str(cache_dir))
    command = [sys.executable, "-c", KILLABLE, "scan", str(corpus), "-q", "--no-save", "--jobs", "1"]
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    database = str(cache_dir / "blobs.sqlite3")
    deadline = time.time() + 60
    while entries(database) == 0 and proc.poll() is None and time.time() < deadline:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    partial = entries(database)
    total = punstats.scan(str(corpus), jobs=1).summary["files"]
    assert 0 < partial < total  # killed midway, with some results stored

    code = subprocess.run([sys.executable, "-m", "punstats", "scan", str(corpus), "-q", "--no-save", "--json"],
                          env=env, capture_output=True, text=True)
    assert code.returncode == 0, code.stderr
    [summary] = json.loads(code.stdout)
    assert summary["cache"]["cached"] >= partial and summary["cache"]["extracted"] == total - summary["cache"]["cached"]
    assert summary["punnable"] == punstats.scan(str(corpus), jobs=1).summary["punnable"]


def test_two_scans_at_once_share_the_cache(corpus, tmp_path):
    env = dict(os.environ, PUNSTATS_CACHE_DIR=str(tmp_path / "cache"))
    command = [sys.executable, "-m", "punstats", "scan", str(corpus), "-q", "--no-save", "--json", "--jobs", "1"]
    procs = [subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outputs = [proc.communicate(timeout=300) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], [err for _, err in outputs]
    first, second = (json.loads(out)[0] for out, _ in outputs)
    assert first["punnable"] == second["punnable"] == punstats.scan(str(corpus), jobs=1).summary["punnable"]


def test_cache_command_shows_and_clears(corpus, capsys):
    assert main(["scan", str(corpus), "-q", "--no-save", "--jobs", "1"]) == 0
    capsys.readouterr()
    assert main(["cache", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["path"].startswith(os.environ["PUNSTATS_CACHE_DIR"])
    assert stats["entries"]["extract"]["count"] > 0 and stats["bytes"] > 0
    # a folder named as punstats names a clone (a hash of its URL)
    clone = os.path.join(os.environ["PUNSTATS_CACHE_DIR"], "repos", "0123456789abcdef01234567")
    os.makedirs(clone)
    with open(os.path.join(clone, "HEAD"), "w") as handle:
        handle.write("ref: refs/heads/main\n")
    assert main(["cache", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["downloads"]["repos"] == len("ref: refs/heads/main\n")
    assert main(["cache", "--clear"]) == 0
    assert "removed" in capsys.readouterr().out
    assert main(["cache", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["entries"] == {} and stats["downloads"] == {"sdists": 0, "repos": 0}
    assert not os.path.exists(clone)


def test_no_cache_leaves_no_trace(corpus, tmp_path):
    env = dict(os.environ, PUNSTATS_CACHE_DIR=str(tmp_path / "unused"))
    result = subprocess.run([sys.executable, "-m", "punstats", "scan", str(corpus), "-q", "--no-save", "--no-cache",
                             "--json"], env=env, capture_output=True, text=True)
    assert result.returncode == 0 and "cache" not in json.loads(result.stdout)[0]
    assert not (tmp_path / "unused").exists()


def test_a_missing_git_blob_is_unreadable_and_not_remembered(tmp_path):
    from gitrepo import commit, git, init
    repo = tmp_path / "repo"
    init(repo)
    sha = commit(repo, {"good.py": "f(x=x)\n", "lost.py": "g(y=y)\n"})
    lost = git(repo, "rev-parse", "HEAD:lost.py")
    os.remove(repo / ".git" / "objects" / lost[:2] / lost[2:])  # as in a partial or damaged clone
    cache = BlobCache(str(tmp_path / "c.sqlite3"))
    for _ in range(2):
        result = punstats.scan(str(repo), rev=sha, jobs=1, cache=cache)
        status = dict(zip(result.files["path"], result.files["status"]))
        assert status == {"good.py": "ok", "lost.py": "unreadable"}
        assert result.summary["punnable"] == 1
        assert result.summary["cache"]["unread"] == 1 and result.summary["cache"]["tables_reused"] == 0


def test_a_warm_scan_stores_the_same_bytes_as_a_cold_one(corpus, tmp_path):
    cache = str(tmp_path / "cache.sqlite3")
    cold = str(tmp_path / "cold")
    punstats.scan(str(corpus), jobs=2, output=cold)
    for name in ("first", "warm"):
        result = punstats.scan(str(corpus), jobs=2, cache=cache, output=str(tmp_path / name))
    assert result.summary["cache"] == {"cached": result.summary["files"], "extracted": 0, "tables_reused": 1}
    for table in ("occurrences.parquet", "files.parquet", "functions.parquet"):
        data = [open(os.path.join(tmp_path, d, table), "rb").read() for d in ("cold", "first", "warm")]
        assert data[0] == data[1] == data[2]


def test_an_unchanged_rescan_writes_the_stored_files_back_without_building_tables(corpus, tmp_path):
    env = dict(os.environ, PUNSTATS_CACHE_DIR=str(tmp_path / "cache"))
    check = ("import sys\nfrom punstats.cli import main\nstatus = main(sys.argv[1:])\n"
             "print(status, sorted(m for m in ('pyarrow', 'pandas') if m in sys.modules))\n")
    outputs = []
    for name in ("first", "again", "substring"):
        outputs.append(str(tmp_path / name))
        rule = ["--test-rule", "substring"] if name == "substring" else []
        proc = subprocess.run([sys.executable, "-c", check, "scan", "-q", "--json", "-o", outputs[-1], *rule,
                               str(corpus)], capture_output=True, text=True, env=env, check=True)
        *payload, last = proc.stdout.splitlines()
        summary, = json.loads("\n".join(payload))  # scan --json: an array of summaries
        if name == "again":
            assert last == "0 []"  # neither pyarrow nor pandas imported
            assert summary["cache"] == {"cached": summary["files"], "extracted": 0, "tables_reused": 1}
        if name == "substring":
            assert last == "0 ['pyarrow']" and summary["test_rule"] == "substring"
    for table in ("occurrences.parquet", "files.parquet", "functions.parquet"):
        first, again, other = (open(os.path.join(d, table), "rb").read() for d in outputs)
        assert first == again != other
    assert punstats.load(outputs[2]).files["test_rule"].unique().tolist() == ["substring"]


def test_a_file_changed_after_it_was_named_is_not_cached_under_the_old_blob(tmp_path):
    from punstats import engines
    from punstats.discover.tree import discover
    from punstats.engines.cached import prepare, run_cached
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("f(a=a)\n")
    (tmp_path / "src" / "b.py").write_text("g(b=b)\n")
    prepared = prepare(discover(str(tmp_path / "src")).candidates)
    (tmp_path / "src" / "a.py").write_text("f(a=a, b=b)\n")  # between naming and extraction
    seen = {}
    with BlobCache(str(tmp_path / "cache.sqlite3")) as cache:
        counts = run_cached(prepared, cache, lambda c, sink: engines.run(c, jobs=1, on_batch=sink, keep=False),
                            lambda indices, extractions: seen.update(zip(indices, extractions)))
        assert counts == {"cached": 0, "extracted": 2, "changed": 1}
        assert seen[0].record.punnable == 2  # what the file now holds is what is counted
        assert cache.count() == 1  # only b.py's result is kept


def test_the_raw_tables_kept_for_a_corpus_are_compressed_and_read_back_whole(corpus, tmp_path):
    """A large project's raw tables are tens of MB: kept compressed, they pass through the scan's
    process (and sit in the cache) at a fraction of that; a warm scan reads them back as they were."""
    import pyarrow as pa
    path = str(tmp_path / "c.sqlite3")
    cold = punstats.scan(str(corpus), jobs=1, cache=BlobCache(path))
    with sqlite3.connect(path) as db:
        kept = dict(db.execute("SELECT kind, value FROM results WHERE kind LIKE 'tables/%' AND kind NOT LIKE "
                               "'tables/%manifest' AND kind != 'tables/stored'").fetchall())
    assert sorted(kept) == ["tables/files", "tables/functions", "tables/occurrences"]
    for value in kept.values():
        table = pa.ipc.open_stream(value).read_all()
        raw = pa.BufferOutputStream()
        with pa.ipc.new_stream(raw, table.schema) as writer:
            writer.write_table(table)
        assert len(value) < 0.6 * len(raw.getvalue())
    warm = punstats.scan(str(corpus), jobs=1, cache=BlobCache(path))
    assert warm.summary["cache"]["tables_reused"] == 1
    same_tables(cold, warm)
