"""Running extraction over many files: order, pooling, and read failures."""
import errno
import random

import pytest

from punstats import engines as engine
from punstats.discover import read as read_module
from punstats.discover.tree import discover
from punstats.engines import base, local
from punstats.engines.local import batches, extract_candidate, run
from punstats.extract.plugins import load
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


PATTERN = """\
import ast

import punstats


@punstats.pattern("named_calls", per="calls", on=ast.Call)
def match(node, parents):
    return {"name": node.func.id} if isinstance(node.func, ast.Name) else False
"""


def test_a_daemon_process_matches_patterns_itself_as_a_pool_would(tmp_path, monkeypatch):
    (tmp_path / "tree").mkdir()
    make_tree(tmp_path / "tree", 5)
    (tmp_path / "named.py").write_text(PATTERN)
    candidates = discover(str(tmp_path / "tree")).candidates
    patterns = load([str(tmp_path / "named.py")])
    pooled = run(candidates, jobs=2, patterns=patterns)
    assert sum(o.kind == "named_calls" for e in pooled for o in e.occurrences) == 15
    # a Dask worker is a daemon: it may start no process, so it extracts in its own
    monkeypatch.setattr(local.multiprocessing.current_process(), "daemon", True)
    monkeypatch.setattr(local, "new_pool", lambda jobs: pytest.fail("a daemon started a pool"))
    assert run(candidates, jobs=2, patterns=patterns) == pooled


def _workers_seen(monkeypatch):
    """The number of worker processes alive each time a scan's discovery ends and its engine runs."""
    import multiprocessing

    from punstats.runs import pipeline
    seen = []
    real_discover = pipeline._discover

    def discovering(*args):
        found = real_discover(*args)
        seen.append(("discovered", len(found.candidates), len(multiprocessing.active_children())))
        return found
    monkeypatch.setattr(pipeline, "_discover", discovering)
    return seen


def test_a_scan_starts_its_workers_as_soon_as_discovery_has_found_enough_files(tmp_path, monkeypatch):
    """Not after: then they would inherit the list of every discovered file."""
    import multiprocessing

    import punstats
    make_tree(tmp_path, engine.MIN_FILES_FOR_POOL * 3)
    started = []
    real_start = local.Workers.start

    def start(self):
        started.append(len(multiprocessing.active_children()))
        return real_start(self)
    monkeypatch.setattr(local.Workers, "start", start)
    seen = _workers_seen(monkeypatch)
    assert punstats.scan(str(tmp_path), jobs=2, cache=False).summary["files"] == engine.MIN_FILES_FOR_POOL * 3
    assert started == [0]  # once, from within discovery
    assert seen == [("discovered", engine.MIN_FILES_FOR_POOL * 3, 2)]
    assert multiprocessing.active_children() == []  # and closed with the scan


def test_a_small_scan_or_one_process_starts_no_workers(tmp_path, monkeypatch):
    import punstats
    make_tree(tmp_path, engine.MIN_FILES_FOR_POOL - 1)
    seen = _workers_seen(monkeypatch)
    punstats.scan(str(tmp_path), jobs=2, cache=False)
    make_tree(tmp_path, engine.MIN_FILES_FOR_POOL + 5)
    punstats.scan(str(tmp_path), jobs=1, cache=False)
    assert seen == [("discovered", engine.MIN_FILES_FOR_POOL - 1, 0), ("discovered", engine.MIN_FILES_FOR_POOL + 5, 0)]


def test_discovery_calls_its_threshold_once_when_it_reaches_it(tmp_path):
    make_tree(tmp_path, 30)
    heard = []
    walk_order = [c.path for c in discover(str(tmp_path), threshold=(10, heard.append)).candidates]
    assert heard == [10] and len(walk_order) == 30
    assert discover(str(tmp_path), threshold=(31, heard.append)) and heard == [10]


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


def test_batches_give_each_worker_one_when_there_are_as_many_files():
    """A small project (under one batch's bytes) would keep one worker busy, the other waiting."""
    candidates = [Candidate("f%d.py" % i, "x", size) for i, size in enumerate([300, 40, 200, 100, 10])]
    assert len(batches(candidates)) == 1
    groups = batches(candidates, parts=2)
    assert groups == [[0, 2], [3, 1, 4]]
    assert len(batches(candidates, parts=3)) == 3
    assert batches(candidates[:1], parts=2) == [[0]]


def test_a_started_pool_extracts_even_a_few_files(tmp_path, monkeypatch):
    """An ecosystem run's small projects go to its workers, not to the run's own process."""
    make_tree(tmp_path, 5)
    candidates = discover(str(tmp_path)).candidates
    expected = run(candidates, jobs=1)
    with local.Workers(2) as workers:
        workers.start()
        # forked before this: the workers extract with the real function
        monkeypatch.setattr(local, "extract_candidate", lambda *a: pytest.fail("extracted in the run's process"))
        assert run(candidates, jobs=2, workers=workers) == expected


def test_batches_stay_within_one_bucket_in_order_largest_first_in_each(monkeypatch):
    monkeypatch.setattr(base, "BUCKET_FILES", 10)
    sizes = [random.Random(3).randrange(1, 100) for _ in range(95)]
    candidates = [Candidate("f%d.py" % i, "x", size) for i, size in enumerate(sizes)]
    groups = batches(candidates, batch_bytes=150)
    assert sorted(i for g in groups for i in g) == list(range(95))
    # one bucket per batch: its results are one write per table in the store's spill
    assert all(len({i // 10 for i in g}) == 1 for g in groups)
    handed = [i for g in groups for i in g]
    assert [i // 10 for i in handed] == sorted(i // 10 for i in handed)
    for bucket in range(10):
        within = [sizes[i] for i in handed if i // 10 == bucket]
        assert within == sorted(within, reverse=True)


def test_unreadable_file_is_recorded_and_others_are_kept(tmp_path, monkeypatch):
    (tmp_path / "good.py").write_text("f(x=x)\n")
    (tmp_path / "locked.py").write_text("f(y=y)\n")
    real_read = read_module.read_source

    def read(location, max_bytes, reader=None):
        if location.endswith("locked.py"):
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_read(location, max_bytes, reader)

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


def test_a_revision_hears_its_threshold_before_any_blob_is_read(tmp_path, monkeypatch):
    from gitrepo import commit, init

    from punstats.discover import revision
    init(tmp_path)
    sha = commit(tmp_path, {"m%02d.py" % i: "f(a=a)\n" for i in range(12)})
    events = []
    real_read = revision.read_entries
    monkeypatch.setattr(revision, "read_entries", lambda *args: events.append("read") or real_read(*args))
    found = revision.discover_git(str(tmp_path / ".git"), sha, threshold=(10, lambda n: events.append(n)))
    assert events == [10, "read"] and len(found.candidates) == 12
    events.clear()
    revision.discover_git(str(tmp_path / ".git"), sha, threshold=(13, lambda n: events.append(n)))
    assert events == ["read"]


def test_a_shared_pool_broken_by_a_dead_worker_is_replaced_for_the_next_run(tmp_path):
    """An ecosystem run shares one pool between its projects: a worker killed in one project
    must not leave every later project to fork a pool of its own."""
    import os
    from concurrent.futures.process import BrokenProcessPool
    make_tree(tmp_path, engine.MIN_FILES_FOR_POOL + 10)
    candidates = discover(str(tmp_path)).candidates
    with local.Workers(2) as workers:
        first = workers.start().pool
        assert run(candidates, jobs=2, workers=workers) == run(candidates, jobs=1)
        with pytest.raises(BrokenProcessPool):  # a worker dies: the whole pool is broken
            first.submit(os._exit, 1).result(timeout=30)
        assert workers.take() is None
        assert run(candidates, jobs=2, workers=workers) == run(candidates, jobs=1)
        assert workers.take() is not None and workers.pool is not first
