"""``punstats.engines.interp``: the per-file work under a chosen interpreter, with the cache.

The reference is ``engines.local.run``, the engine every scan uses: the same
candidates through ``engines.interp`` (in process, and in ``worker.py`` subprocesses
of this interpreter) give the same extractions in the same order.
"""
import os
import platform
import stat
import sys
import sysconfig

import pytest

from punstats.cache import BlobCache, blob_id
from punstats.discover.tree import discover
from punstats.engines import interp
from punstats.engines.local import run
from punstats.model.discovery import Candidate

JSON_DIR = os.path.join(sysconfig.get_path("stdlib"), "json")


@pytest.fixture(scope="module")
def candidates():
    found = list(discover(JSON_DIR).candidates)
    assert len(found) >= 5
    # a file discovery already refused, one too large, one given as bytes and a copy of another's bytes
    with open(found[0].location, "rb") as handle:
        first = handle.read()
    return found + [Candidate("gone.py", "", 0, status="broken_link", error="no target"),
                    Candidate("inline.py", "", 7, data=b"f(x=x)\n"),
                    Candidate("copy.py", "", len(first), data=first),
                    Candidate("huge.py", "", 120_000, data=b"y = 1\n" * 20_000)]


@pytest.mark.parametrize("python", [None, sys.executable])
def test_same_extractions_as_the_local_engine(candidates, python):
    expected = run(candidates, jobs=1, max_bytes=100_000)
    with interp.Pool(python, jobs=2) as pool:
        got = interp.extract_candidates(candidates, pool, max_bytes=100_000)
        assert pool.parser == "%s %s" % (platform.python_implementation(), platform.python_version())
    assert got == expected
    assert sum(e.record.punnable for e in got) > 10
    statuses = {e.record.path: e.record.status for e in got}
    assert statuses["gone.py"] == "broken_link" and statuses["huge.py"] == "too_large"
    assert statuses["inline.py"] == "ok"


def test_each_distinct_blob_is_read_once_and_the_cache_answers_the_second_time(tmp_path):
    reads = []

    def item(path, data):
        return (path, blob_id(data), lambda: reads.append(path) or data)

    items = [item("a.py", b"f(x=x)\n"), item("b.py", b"g(y=y)\n"), item("a-copy.py", b"f(x=x)\n")]
    ticks = []
    with BlobCache(str(tmp_path / "cache.sqlite3")) as cache, interp.Pool(None) as pool:
        first = interp.work_many(pool, items, ["extract", "compat"], cache=cache, progress=ticks.append)
        assert sorted(reads) == ["a.py", "b.py"] and sum(ticks) == 2
        reads.clear()
        second = interp.work_many(pool, items, ["extract", "compat"], cache=cache)
        assert reads == [] and second == first
        assert cache.count() == 4  # two blobs, two modes
    assert first[0] == first[2] and first[0] != first[1]
    assert [sorted(r) for r in first] == [["compat", "extract"]] * 3


def test_only_missing_modes_are_computed(tmp_path):
    data = b"f(x=x)\n"
    reads = []
    items = [("a.py", blob_id(data), lambda: reads.append(1) or data)]
    with BlobCache(str(tmp_path / "cache.sqlite3")) as cache, interp.Pool(None) as pool:
        interp.work_many(pool, items, ["extract"], cache=cache)
        both = interp.work_many(pool, items, ["extract", "compat"], cache=cache)
    assert len(reads) == 2 and sorted(both[0]) == ["compat", "extract"]


def test_an_interpreter_that_cannot_run_the_worker_says_why_in_one_line(tmp_path):
    fake = tmp_path / "python"
    fake.write_text("#!/bin/sh\necho 'SyntaxError: this is not a Python' >&2\nexit 1\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    with pytest.raises(interp.InterpreterError) as caught:
        interp.Pool(str(fake))
    assert str(caught.value) == ("%s could not run the worker: SyntaxError: this is not a Python "
                                 "(punstats' worker needs Python 3.8 or later)" % fake)
    with pytest.raises(interp.InterpreterError) as caught:
        interp.Pool(str(tmp_path / "missing"))
    assert str(caught.value).startswith("cannot run %s: " % (tmp_path / "missing"))


#: A fake interpreter: it answers the hello as the worker does, then does ``{act}`` on the first file.
FAKE = """#!/bin/sh
exec {python} -c '
import json, os, sys, time
sys.path.insert(0, "{root}")
from punstats.extract import worker
for line in sys.stdin:
    if json.loads(line)["op"] == "hello":
        print(json.dumps(worker.hello()), flush=True)
    else:
        {act}
'
"""


def fake_python(tmp_path, act):
    fake = tmp_path / "python"
    root = os.path.dirname(os.path.dirname(os.path.abspath(interp.__file__)))
    fake.write_text(FAKE.format(python=sys.executable, root=os.path.dirname(root), act=act))
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    return str(fake)


@pytest.mark.parametrize("act, said", [
    ("sys.exit(3)", "the worker under {python} died on this file"),
    ("time.sleep(600)", "the worker under {python} did not answer within 1 s on this file; it was ended"),
])
def test_a_worker_that_dies_or_stalls_costs_its_file_not_the_run(tmp_path, monkeypatch, capsys, act, said):
    import pandas as pd

    from punstats.cli import main
    monkeypatch.setattr(interp, "WORK_TIMEOUT", 1.0)
    python = fake_python(tmp_path, act)
    (tmp_path / "tree").mkdir()
    for name in ("a.py", "b.py"):
        (tmp_path / "tree" / name).write_text("f(x=x)\n")
    assert main(["scan", "-q", "--no-cache", "--python", python, "-o", str(tmp_path / "out"),
                 str(tmp_path / "tree")]) == 0
    files = pd.read_parquet(tmp_path / "out" / "files.parquet")
    assert files[["path", "status", "error"]].values.tolist() == [
        [name, "worker_died", said.format(python=python)] for name in ("a.py", "b.py")]
    assert not [line for line in os.popen("ps -eo args").read().splitlines() if "time.sleep(600)" in line]
