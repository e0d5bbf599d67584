"""Archives unpacked in processes of their own during a top-N run (``runs.unpacking``), against a
fake PyPI on 127.0.0.1: not in the run's process, every check and failure as before, the stored
run the same as one unpacking in its fetch threads, and a process that dies costs one project only.
"""
import contextlib
import io
import json
import os
import tarfile

import pandas as pd
from fakeindex import sdist, top_list, wheel

from punstats.runs import ecosystem as run
from punstats.runs import projects, unpacking
from punstats.sources import trees

NAMES = ["alpha", "beta", "cut", "iota"]


def odd_sdist():
    """An sdist with members every unpack refuses (a link, a path out of the tree) beside its files."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data in (("iota-4.0/iota/a.py", b"f(x=x)\n"), ("iota-4.0/README", b"text\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("iota-4.0/iota/link.py")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
        escape = tarfile.TarInfo("iota-4.0/../../escaped.py")
        escape.size = 2
        tar.addfile(escape, io.BytesIO(b"x\n"))
    return buffer.getvalue()


def populate(index):
    index.project("alpha", "1.0", [("alpha-1.0.tar.gz", sdist("alpha", "1.0", {
        "alpha/core.py": "def f(v):\n    g(v=v)\n", "tests/test_core.py": "h(k=1)\n"}), "sdist")])
    index.project("beta", "2.0", [("beta-2.0-py3-none-any.whl", wheel({"beta/__init__.py": "g(b=b)\n"}),
                                   "bdist_wheel")])
    whole = sdist("cut", "1.0", {"cut/m%d.py" % i: "x = %d\n" % i * 400 for i in range(6)})
    index.project("cut", "1.0", [("cut-1.0.tar.gz", whole[:len(whole) // 2], "sdist")])  # damaged
    index.project("iota", "4.0", [("iota-4.0.tar.gz", odd_sdist(), "sdist")])


def run_top(tmp_path, index, name="out"):
    listing = top_list(tmp_path / "list.json", NAMES)
    go, _ = projects.top_pypi_run("top-pypi:%d" % len(NAMES), listing, output=str(tmp_path / name),
                                  index_url=index.index_url, downloads=str(tmp_path / (name + "-downloads")),
                                  cache=False, jobs=1)
    records, _ = go()
    return {r["project"]: r for r in records}


def stored(tmp_path, name):
    """Each project's stored record (but when it was made) and the run's tables."""
    records = {}
    for project in NAMES:
        with open(str(tmp_path / name / "projects" / (project + ".json")), encoding="utf-8") as handle:
            record = json.load(handle)
        record.get("summary", {}).pop("created", None)
        records[project] = record
    tables = {table: pd.read_parquet(str(tmp_path / name / table)) for table in run.TABLES}
    return records, tables


def pids_of_unpacks(monkeypatch, tmp_path, then=None):
    """The file that each unpack (``sources.archives.unpack``, as ``trees`` calls it) appends its
    process id to; ``then(archive)`` is called first, in that process."""
    log = tmp_path / "unpacked-in"
    real = trees.unpack

    def logged(archive, *args):
        with open(str(log), "a") as handle:
            handle.write("%d\n" % os.getpid())
        if then:
            then(archive)
        return real(archive, *args)
    monkeypatch.setattr(trees, "unpack", logged)
    return log


def test_archives_are_unpacked_in_other_processes_with_every_check_and_failure_as_before(
        tmp_path, index, monkeypatch):
    populate(index)
    log = pids_of_unpacks(monkeypatch, tmp_path)
    by = run_top(tmp_path, index)
    pids = {int(line) for line in log.read_text().split()}
    assert pids and os.getpid() not in pids
    assert {n: r["status"] for n, r in by.items()} == {"alpha": "scanned", "beta": "scanned", "cut": "failed",
                                                       "iota": "scanned"}
    assert by["cut"]["message"].startswith("cannot read cut-1.0.tar.gz: damaged or truncated after ")
    records, _ = stored(tmp_path, "out")
    refused = records["iota"]["summary"]["refused_members"]
    assert [(r["member"], r["reason"]) for r in refused] == [
        ("iota-4.0/iota/link.py", "symlink"), ("iota-4.0/../../escaped.py", "path_traversal")]
    assert records["iota"]["summary"]["archive"]["files"] == 2


def test_the_stored_run_is_the_one_unpacking_in_the_fetch_threads_gives(tmp_path, index, monkeypatch):
    populate(index)
    run_top(tmp_path, index, "processes")
    monkeypatch.setattr(unpacking, "unpackers", lambda *args: contextlib.nullcontext())
    log = pids_of_unpacks(monkeypatch, tmp_path)
    run_top(tmp_path, index, "threads")
    assert {int(line) for line in log.read_text().split()} == {os.getpid()}  # unpacked here this time
    (records, tables), (alike, alike_tables) = stored(tmp_path, "processes"), stored(tmp_path, "threads")
    assert records == alike
    for table in run.TABLES:
        pd.testing.assert_frame_equal(tables[table], alike_tables[table])


def dying(marker=None):
    """What an unpack calls first: its process ends for alpha's archive (only while ``marker``
    does not exist, then created: once), never in the test's own process."""
    test = os.getpid()

    def then(archive):
        if os.getpid() != test and os.path.basename(archive).startswith("alpha"):
            if marker is None or not os.path.exists(marker):
                if marker is not None:
                    open(marker, "w").close()
                os._exit(1)
    return then


def test_a_process_that_dies_twice_unpacking_fails_its_project_only(tmp_path, index, monkeypatch):
    populate(index)
    pids_of_unpacks(monkeypatch, tmp_path, dying())
    by = run_top(tmp_path, index)
    assert {n: r["status"] for n, r in by.items()} == {"alpha": "failed", "beta": "scanned", "cut": "failed",
                                                       "iota": "scanned"}
    assert by["alpha"]["message"] == unpacking.DIED % "alpha-1.0.tar.gz"


def test_a_process_that_dies_once_unpacking_costs_nothing(tmp_path, index, monkeypatch):
    populate(index)
    pids_of_unpacks(monkeypatch, tmp_path, dying(str(tmp_path / "died")))
    by = run_top(tmp_path, index)
    assert os.path.exists(str(tmp_path / "died"))
    assert {n: r["status"] for n, r in by.items()} == {"alpha": "scanned", "beta": "scanned", "cut": "failed",
                                                       "iota": "scanned"}
