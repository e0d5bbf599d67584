"""Running extraction over many files: order, pooling, and read failures."""
import errno

import pytest

from punstats import engines as engine
from punstats.discover import read as read_module
from punstats.discover.tree import discover
from punstats.engines import local
from punstats.engines.local import batches, extract_candidate, run
from punstats.model.discovery import Candidate
from punstats.model.statuses import UNREADABLE


def make_tree(root, n):
    for i in range(n):
        (root / ("m%03d.py" % i)).write_text("f(a%d=a%d, b=c)\n" % (i, i) * (i % 7 + 1))


def test_pool_and_in_process_give_the_same_results_in_the_same_order(tmp_path, monkeypatch):
    make_tree(tmp_path, engine.MIN_FILES_FOR_POOL + 30)
    candidates = discover(str(tmp_path)).candidates
    monkeypatch.setattr(local, "BATCH_BYTES", 100)  # many small batches, finishing out of order
    assert len(batches(candidates)) > 2 * local.IN_FLIGHT_PER_WORKER * 2  # more than are ever in flight
    pooled = run(candidates, jobs=2)
    assert pooled == run(candidates, jobs=1)
    assert [e.record.path for e in pooled] == [c.path for c in candidates]


def test_a_scan_starts_its_workers_before_it_discovers_the_corpus(tmp_path, monkeypatch):
    """So that the workers do not inherit the list of discovered files."""
    import multiprocessing

    import punstats
    from punstats.runs import pipeline
    make_tree(tmp_path, engine.MIN_FILES_FOR_POOL + 5)
    seen = []
    real = pipeline._discover

    def discovering(*args):
        seen.append(len(multiprocessing.active_children()))
        return real(*args)
    monkeypatch.setattr(pipeline, "_discover", discovering)
    assert punstats.scan(str(tmp_path), jobs=2, cache=False).summary["files"] == engine.MIN_FILES_FOR_POOL + 5
    assert punstats.scan(str(tmp_path), jobs=1, cache=False).summary["files"] == engine.MIN_FILES_FOR_POOL + 5
    assert seen == [2, 0]
    assert multiprocessing.active_children() == []  # and closed with the scan


def test_progress_counts_every_file(tmp_path):
    make_tree(tmp_path, engine.MIN_FILES_FOR_POOL + 5)
    candidates = discover(str(tmp_path)).candidates
    ticks = []
    run(candidates, jobs=2, progress=ticks.append)
    assert sum(ticks) == len(candidates)


def test_batches_cover_every_index_once_largest_first():
    candidates = [Candidate("f%d.py" % i, "x", size) for i, size in enumerate([5, 50, 1, 500])]
    groups = batches(candidates, batch_bytes=60)
    assert sorted(i for g in groups for i in g) == [0, 1, 2, 3]
    assert groups[0] == [3]


def test_unreadable_file_is_recorded_and_others_are_kept(tmp_path, monkeypatch):
    (tmp_path / "good.py").write_text("f(x=x)\n")
    (tmp_path / "locked.py").write_text("f(y=y)\n")
    real_read = read_module.read_source

    def read(location, max_bytes):
        if location.endswith("locked.py"):
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_read(location, max_bytes)

    monkeypatch.setattr(read_module, "read_source", read)
    good, locked = run(discover(str(tmp_path)).candidates, jobs=1)
    assert (locked.record.status, locked.record.error) == (UNREADABLE, "Permission denied")
    assert (good.record.status, good.record.punnable) == ("ok", 1)


def test_a_file_removed_after_discovery_is_unreadable(tmp_path):
    path = tmp_path / "gone.py"
    path.write_text("f(x=x)\n")
    (candidate,) = discover(str(tmp_path)).candidates
    path.unlink()
    record = extract_candidate(candidate).record
    assert record.status == UNREADABLE and "No such file" in record.error


def test_jobs_must_be_positive():
    with pytest.raises(ValueError):
        run([], jobs=0)


def test_on_batch_sees_every_result_once_as_it_arrives(tmp_path, monkeypatch):
    make_tree(tmp_path, engine.MIN_FILES_FOR_POOL + 10)
    candidates = discover(str(tmp_path)).candidates
    monkeypatch.setattr(engine, "BATCH_BYTES", 100)
    for jobs in (1, 2):
        seen = []
        results = run(candidates, jobs=jobs,
                      on_batch=lambda group, extractions, seen=seen: seen.extend(zip(group, extractions)))
        assert sorted(index for index, _ in seen) == list(range(len(candidates)))
        assert all(results[index] == extraction for index, extraction in seen)
