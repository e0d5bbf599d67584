"""The stored scan: results spilled as they arrive and stored in order, row
group by row group; a stored scan replaced whole or not at all; readers that
say what is wrong with a directory; ``-o`` checked before any work."""
import errno
import json
import os
import random
import signal
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import punstats
from punstats.cli import main
from punstats.engines import base
from punstats.engines.local import batches
from punstats.model.discovery import Candidate
from punstats.model.records import Extraction, FileRecord, FunctionShape, Occurrence, failure
from punstats.store import disk, frames, schema, spill


def extraction(number):
    path = "pkg/m%03d.py" % number
    record = FileRecord(path, "ok", "", None, 10 + number, 3, "utf-8", "%064d" % number,
                        counts={"calls": number % 3})
    occurrences = tuple(Occurrence(path, line, 0, line, 3, "x%d" % line, 2, "call", "f", line, 0, 1, 1, 0,
                                   False, "x", "", "", False) for line in range(number % 4))
    functions = tuple(FunctionShape(path, line, 0, "g", "def", 0, line, 0, False, False, 0, 0)
                      for line in range(number % 3))
    return Extraction(record, occurrences, functions)


def test_results_in_any_order_are_stored_in_candidate_order(tmp_path, monkeypatch):
    monkeypatch.setattr(base, "BUCKET_FILES", 7)
    extractions = [extraction(n) for n in range(60)] + [failure("bad.py", "syntax_error", "oops", 2)]
    arrival = list(range(len(extractions)))
    random.Random(5).shuffle(arrival)
    pieces = []
    store = spill.Spill(str(tmp_path / "spill"), len(extractions))
    assert store.buckets == 9
    for start in range(0, len(arrival), 4):
        batch = arrival[start:start + 4]
        store.add(batch, [extractions[i] for i in batch])
    store.drain(lambda name, table: pieces.append((name, table)))
    expected = frames.raw_tables(extractions)
    for name, frame in zip(schema.RAW, expected):
        columns = schema.arrow_schema(schema.RAW[name])
        got = pa.concat_tables([t for n, t in pieces if n == name]).combine_chunks()
        if name == "occurrences":  # user patterns' fields travel beside the stored columns
            assert got.column(schema.FIELDS).null_count == got.num_rows
            got = got.drop_columns([schema.FIELDS])
        assert got.num_rows == len(frame) > 0
        assert got.equals(pa.Table.from_pandas(frame, schema=columns, preserve_index=False))
    assert os.listdir(tmp_path / "spill") == []


def test_a_large_bucket_is_handed_on_in_pieces_of_drain_rows_in_candidate_order(tmp_path, monkeypatch):
    """A bucket of a few huge files is not copied whole to put its rows in order: at most
    ``DRAIN_ROWS`` rows at a time, which together are the bucket's rows in candidate order."""
    monkeypatch.setattr(base, "BUCKET_FILES", 100)
    monkeypatch.setattr(spill, "DRAIN_ROWS", 4)
    extractions = [extraction(n) for n in range(40)]
    arrival = list(range(len(extractions)))
    random.Random(3).shuffle(arrival)
    store = spill.Spill(str(tmp_path / "spill"), len(extractions))
    assert store.buckets == 1
    for start in range(0, len(arrival), 6):
        store.add(arrival[start:start + 6], [extractions[i] for i in arrival[start:start + 6]])
    pieces = []
    store.drain(lambda name, table: pieces.append((name, table)))
    for name, frame in zip(schema.RAW, frames.raw_tables(extractions)):
        got = [t for n, t in pieces if n == name]
        assert [t.num_rows for t in got] == [4] * (len(frame) // 4) + ([len(frame) % 4] if len(frame) % 4 else [])
        whole = pa.concat_tables(got).combine_chunks()
        if name == "occurrences":
            whole = whole.drop_columns([schema.FIELDS])
        assert whole.equals(pa.Table.from_pandas(frame, schema=schema.arrow_schema(schema.RAW[name]),
                                                 preserve_index=False))


def _spilled(directory, extractions, groups):
    """(the drained tables, the record batches spilled per table) of ``extractions`` arriving in ``groups``."""
    store = spill.Spill(str(directory), len(extractions))
    for group in groups:
        store.add(group, [extractions[i] for i in group])
    store.close()
    writes = {name: sum(1 for path in os.listdir(directory) if path.startswith(name)
                        for _ in pa.ipc.open_stream(pa.OSFile(os.path.join(directory, path))))
              for name in schema.RAW}
    pieces = []
    store.drain(lambda name, table: pieces.append((name, table)))
    return {name: pa.concat_tables([t for n, t in pieces if n == name]) for name in schema.RAW}, writes


def test_stored_tables_do_not_depend_on_the_batch_order_and_a_batch_is_one_write(tmp_path, monkeypatch):
    monkeypatch.setattr(base, "BUCKET_FILES", 10)
    extractions = [extraction(n) for n in range(95)]
    candidates = [Candidate(e.record.path, "x", (n * 37) % 101 + 1) for n, e in enumerate(extractions)]
    groups = batches(candidates, batch_bytes=150)
    bucketed, writes = _spilled(tmp_path / "bucketed", extractions, groups)
    # every batch within one bucket: one record batch per table it has rows of, whatever the corpus size
    assert writes["files"] == len(groups) and writes["occurrences"] <= len(groups)
    scattered = list(range(95))
    random.Random(7).shuffle(scattered)
    across, writes = _spilled(tmp_path / "across", extractions, [scattered[s:s + 8] for s in range(0, 95, 8)])
    assert writes["files"] > 2 * len(range(0, 95, 8))  # batches across buckets: a write per bucket
    for name in schema.RAW:
        assert bucketed[name].combine_chunks().equals(across[name].combine_chunks())
        assert bucketed[name].num_rows == across[name].num_rows > 0


def test_row_groups_do_not_change_the_data(tmp_path, stdlib_subset_scan_dir, monkeypatch):
    monkeypatch.setattr(disk, "ROW_GROUP_ROWS", dict.fromkeys(disk.ROW_GROUP_ROWS, 1000))
    stored = punstats.load(stdlib_subset_scan_dir)
    stored.with_rules().save(str(tmp_path / "small-groups"))
    assert pq.ParquetFile(tmp_path / "small-groups" / "functions.parquet").metadata.num_row_groups > 1
    for name in ("occurrences", "files", "functions"):
        again = pq.read_table(tmp_path / "small-groups" / (name + ".parquet")).combine_chunks()
        before = pq.read_table(os.path.join(stdlib_subset_scan_dir, name + ".parquet")).combine_chunks()
        assert again.equals(before)


def row_groups(directory):
    return {name: [pq.ParquetFile(os.path.join(directory, name + ".parquet")).metadata.row_group(i).num_rows
                   for i in range(pq.ParquetFile(os.path.join(directory, name + ".parquet")).metadata.num_row_groups)]
            for name in ("occurrences", "files", "functions")}


def test_row_groups_end_at_the_same_rows_whether_results_came_from_the_cache_or_the_workers(tmp_path, monkeypatch):
    monkeypatch.setattr(disk, "ROW_GROUP_ROWS", dict.fromkeys(disk.ROW_GROUP_ROWS, 7))
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "tree"
    root.mkdir()
    for i in range(90):
        (root / ("m%02d.py" % i)).write_text("def f%d(a, b=1):\n    g(a=a, b=b)\n" % i * (i % 4 + 1))
    assert main(["scan", "-q", "-j", "2", "-o", str(tmp_path / "first"), str(root)]) == 0
    (root / "m00.py").write_text("h(c=c)\n")  # the corpus changed: every other file's result comes from the cache
    assert main(["scan", "-q", "-j", "2", "-o", str(tmp_path / "cached"), str(root)]) == 0
    assert json.load(open(tmp_path / "cached" / "summary.json"))["cache"]["cached"] == 89
    assert main(["scan", "-q", "-j", "2", "--no-cache", "-o", str(tmp_path / "cold"), str(root)]) == 0
    groups = row_groups(tmp_path / "cold")
    assert all(len(sizes) > 2 and set(sizes[:-1]) == {7} for sizes in groups.values())
    assert row_groups(tmp_path / "cached") == groups
    for name in groups:
        assert pq.read_table(tmp_path / "cached" / (name + ".parquet")).equals(
            pq.read_table(tmp_path / "cold" / (name + ".parquet")))


def small_tree(root, text="f(a=a)\n"):
    root.mkdir(exist_ok=True)
    (root / "a.py").write_text(text)
    (root / "b.py").write_text("g(b=b, c=c)\n")
    return str(root)


def snapshot(directory):
    return {name: open(os.path.join(directory, name), "rb").read() for name in sorted(os.listdir(directory))}


def test_a_scan_that_fails_while_writing_leaves_the_previous_scan_whole(tmp_path, monkeypatch, capsys):
    corpus, out = small_tree(tmp_path / "src"), str(tmp_path / "out")
    assert main(["scan", "-q", "--no-cache", "-o", out, corpus]) == 0
    before = snapshot(out)
    (tmp_path / "src" / "c.py").write_text("h(d=d)\n")

    def full(self, name, table):
        raise OSError(errno.ENOSPC, "No space left on device")
    monkeypatch.setattr(disk.TableFiles, "put", full)
    capsys.readouterr()
    assert main(["scan", "-q", "--no-cache", "-o", out, corpus]) == 2
    err = capsys.readouterr().err
    assert err == "punstats: error: cannot store the scan in %s: No space left on device\n" % out
    assert snapshot(out) == before
    assert sorted(os.listdir(tmp_path)) == ["out", "src"]  # no staging directory left
    assert punstats.load(out).summary["files"] == 2


def test_a_scan_killed_while_saving_leaves_the_previous_scan_readable(tmp_path):
    corpus, out = small_tree(tmp_path / "src"), str(tmp_path / "out")
    assert main(["scan", "-q", "--no-cache", "-o", out, corpus]) == 0
    before = snapshot(out)
    (tmp_path / "src" / "c.py").write_text("h(d=d)\n")
    killed = ("import os, signal, sys\n"
              "from punstats.store import disk\n"
              "close = disk.TableFiles.close\n"
              "def close_and_die(self):\n"
              "    close(self)\n"
              "    os.kill(os.getpid(), signal.SIGKILL)\n"
              "disk.TableFiles.close = close_and_die\n"
              "from punstats.cli import main\n"
              "main(sys.argv[1:])\n")
    proc = subprocess.run([sys.executable, "-c", killed, "scan", "-q", "--no-cache", "-o", out, corpus])
    assert proc.returncode == -signal.SIGKILL
    assert snapshot(out) == before  # the tables were written, but only beside it
    leftovers = [name for name in os.listdir(tmp_path) if name.startswith(".out.partial-")]
    assert len(leftovers) == 1
    with pytest.raises(disk.StoreError, match="never finished"):
        punstats.load(str(tmp_path / leftovers[0]))
    assert main(["scan", "-q", "--no-cache", "-o", out, corpus]) == 0  # the next scan clears it away
    assert sorted(os.listdir(tmp_path)) == ["out", "src"]
    assert punstats.load(out).summary["files"] == 3


def test_a_directory_whose_tables_are_from_another_scan_is_refused(tmp_path, capsys):
    out = str(tmp_path / "out")
    assert main(["scan", "-q", "--no-cache", "-o", out, small_tree(tmp_path / "src")]) == 0
    other = str(tmp_path / "other")
    assert main(["scan", "-q", "--no-cache", "-o", other, small_tree(tmp_path / "src2", "f(a=a, b=b)\n")]) == 0
    os.replace(os.path.join(other, "occurrences.parquet"), os.path.join(out, "occurrences.parquet"))
    capsys.readouterr()
    assert main(["table", out]) == 2
    assert capsys.readouterr().err == (
        "punstats: error: %s holds 4 rows where its summary.json counts 3: the tables and the summary are "
        "from different scans; scan again\n" % os.path.join(out, "occurrences.parquet"))


def test_a_table_that_is_not_parquet_is_named(tmp_path, capsys):
    out = str(tmp_path / "out")
    assert main(["scan", "-q", "--no-cache", "-o", out, small_tree(tmp_path / "src")]) == 0
    with open(os.path.join(out, "files.parquet"), "wb") as handle:
        handle.write(b"not parquet")
    capsys.readouterr()
    assert main(["table", out]) == 2
    err = capsys.readouterr().err
    assert err.startswith("punstats: error: %s: not a readable table: " % os.path.join(out, "files.parquet"))
    assert err.count("\n") == 1


@pytest.fixture
def no_extraction(monkeypatch):
    """Fails the test if discovery (the start of the work) is reached."""
    from punstats.runs import pipeline

    def never(*args, **kwargs):
        raise AssertionError("the work started")
    monkeypatch.setattr(pipeline, "discover", never)


@pytest.mark.parametrize("target", ["file", "devnull", "below-a-file", "other-files"])
def test_an_output_that_cannot_take_the_scan_is_refused_before_any_work(tmp_path, capsys, no_extraction, target):
    corpus = small_tree(tmp_path / "src")
    (tmp_path / "taken").write_text("keep me\n")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("keep me too\n")
    out, reason = {
        "file": (str(tmp_path / "taken"), "it exists and is not a directory"),
        "devnull": (os.devnull, "it exists and is not a directory"),
        "below-a-file": (str(tmp_path / "taken" / "out"), "[Errno 17] File exists: '%s'" % (tmp_path / "taken")),
        "other-files": (str(tmp_path / "notes"), "it holds other files than a stored scan (todo.txt)"),
    }[target]
    assert main(["scan", "-q", "--no-cache", "-o", out, corpus]) == 2
    assert capsys.readouterr().err == "punstats: error: cannot store the scan in %s: %s\n" % (out, reason)
    assert (tmp_path / "taken").read_text() == "keep me\n"
    assert os.listdir(tmp_path / "notes") == ["todo.txt"]


def test_a_read_only_output_is_refused_before_any_work(tmp_path, capsys, no_extraction):
    if os.geteuid() == 0:
        pytest.skip("root writes to read-only directories")
    corpus = small_tree(tmp_path / "src")
    (tmp_path / "locked").mkdir()
    os.chmod(tmp_path / "locked", 0o555)
    try:
        assert main(["scan", "-q", "--no-cache", "-o", str(tmp_path / "locked" / "out"), corpus]) == 2
    finally:
        os.chmod(tmp_path / "locked", 0o755)
    err = capsys.readouterr().err
    assert err.startswith("punstats: error: cannot store the scan in %s: [Errno 13]" % (tmp_path / "locked" / "out"))


def test_a_full_file_system_keeps_the_previous_scan(tmp_path, capsys):
    mount = tmp_path / "small"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mount)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a small file system here")
    try:
        out = str(mount / "out")
        corpus = small_tree(tmp_path / "src")
        assert main(["scan", "-q", "--no-cache", "-o", out, corpus]) == 0
        before = snapshot(out)
        with open(mount / "filler", "wb", buffering=0) as handle:  # fill the file system up
            try:
                while True:
                    handle.write(b"x" * 4096)
            except OSError:
                pass
        capsys.readouterr()
        assert main(["scan", "-q", "--no-cache", "-o", out, corpus]) == 2
        err = capsys.readouterr().err
        assert err.startswith("punstats: error: cannot store the scan in %s: [Errno 28]" % out)
        assert err.count("\n") == 1
        assert snapshot(out) == before
        assert sorted(os.listdir(mount)) == ["filler", "out"]
    finally:
        subprocess.run(["umount", str(mount)])


def test_a_stored_scan_is_replaced_by_one_rename(tmp_path):
    corpus, out = small_tree(tmp_path / "src"), str(tmp_path / "out")
    punstats.scan(corpus, jobs=1, output=out)
    inode = os.stat(out).st_ino
    (tmp_path / "src" / "c.py").write_text("h(d=d)\n")
    result = punstats.scan(corpus, jobs=1, output=out)
    assert os.stat(out).st_ino != inode  # a new directory, not the old one rewritten
    assert result.summary["files"] == 3 and len(result.files) == 3
    assert json.load(open(os.path.join(out, "summary.json")))["rows"] == {"occurrences": 4, "files": 3, "functions": 0}
    assert "rows" not in punstats.load(out).summary


def test_an_output_named_through_a_link_is_replaced_where_the_link_points(tmp_path):
    corpus = small_tree(tmp_path / "src")
    real = str(tmp_path / "real")
    punstats.scan(corpus, jobs=1, output=real)
    os.symlink(real, str(tmp_path / "link"))
    (tmp_path / "src" / "c.py").write_text("h(d=d)\n")
    punstats.scan(corpus, jobs=1, output=str(tmp_path / "link"))
    assert os.path.islink(tmp_path / "link")
    assert punstats.load(real).summary["files"] == 3
    assert sorted(os.listdir(tmp_path)) == ["link", "real", "src"]
