"""The top-N run (runs.ecosystem) and its summary (analysis.ecosystem), against a fake PyPI on 127.0.0.1.

Every project is built here (sdists, wheels); nothing touches the network.
"""
import errno
import json
import os
import signal
import subprocess
import sys
import threading
import time

import pandas as pd
import pytest
from fakeindex import sdist, top_list, wheel

from punstats.analysis import ecosystem as eco
from punstats.runs import downloads, projects
from punstats.runs import ecosystem as run
from punstats.sources import pypi
from punstats.store.ecosystem import read_journal

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SHARED = "def shared(verbose, name):\n    return g(verbose=verbose, name=name, other=1)\n"


def code(n):
    """A module with ``n`` punnable arguments of growing length, one call with a non-punnable one."""
    calls = "".join("    f(%s=%s)\n" % ("v" * (i + 1), "v" * (i + 1)) for i in range(n))
    return "def m(%s):\n%s    h(k=1)\n" % (", ".join("v" * (i + 1) for i in range(n)) or "", calls or "    pass\n")


def populate(index):
    """Nine projects: four readable, five not, each for another reason."""
    index.project("alpha", "1.0", [("alpha-1.0.tar.gz", sdist("alpha", "1.0", {
        "alpha/core.py": code(3), "alpha/shared.py": SHARED, "tests/test_core.py": code(2)}), "sdist"),
        ("alpha-1.0-py3-none-any.whl", wheel({"alpha/core.py": "x = 1\n"}), "bdist_wheel")])
    index.project("beta", "2.0", [
        ("beta-2.0-cp312-cp312-manylinux_2_17_x86_64.whl", wheel({"beta/fast.py": code(9)}), "bdist_wheel"),
        ("beta-2.0-py2.py3-none-any.whl", wheel({"beta/__init__.py": code(1), "beta/shared.py": SHARED}),
         "bdist_wheel")])
    index.project("gamma", "3.0", [
        ("gamma-3.0-cp312-cp312-win_amd64.whl", wheel({"gamma/x.py": code(1)}), "bdist_wheel")])
    index.project("delta", "0.1", [])
    index.project("epsilon", "1.0", [("epsilon-1.0-py2.7.egg", b"egg", "bdist_egg")])
    index.raw("/pypi/eta/json", "{not json")
    index.project("theta", "1.0", [("theta-1.0.tar.gz", sdist("theta", "1.0", {"t.py": code(1)}), "sdist")],
                  sha256="0" * 64)
    index.project("iota", "4.0", [("iota-4.0.tar.gz", sdist("iota", "4.0", {
        "iota/a.py": code(6), "iota/b.py": code(0), "iota/shared.py": SHARED}), "sdist")])
    index.raw("/pypi/kappa/json", json.dumps({"info": {"version": "1.0/../../../ESCAPED"}, "urls": []}))


NAMES = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]


def run_top(tmp_path, index, names=NAMES, n=None, on_done=None, **options):
    listing = top_list(tmp_path / "list.json", names)
    options.setdefault("downloads", str(tmp_path / "downloads"))
    options.setdefault("cache", str(tmp_path / "cache.sqlite3"))  # a blob cache of this test
    options.setdefault("jobs", 1)
    go, opts = projects.top_pypi_run("top-pypi:%d" % (n or len(names)), listing, output=str(tmp_path / "out"),
                                     index_url=index.index_url, **options)
    return go(on_done=on_done)


def test_each_project_is_scanned_or_recorded_with_its_reason_and_the_run_goes_on(tmp_path, index):
    populate(index)
    records, summary = run_top(tmp_path, index)
    by = {r["project"]: r for r in records}
    assert [r["project"] for r in records] == NAMES
    assert {n: (r["status"], r.get("reason")) for n, r in by.items()} == {
        "alpha": ("scanned", None), "beta": ("scanned", None), "iota": ("scanned", None),
        "gamma": ("skipped", pypi.PLATFORM_WHEELS_ONLY), "delta": ("skipped", pypi.NO_FILES),
        "epsilon": ("skipped", pypi.NO_READABLE_FILE),
        "zeta": ("skipped", pypi.NO_PROJECT), "eta": ("failed", "error"), "theta": ("failed", "error"),
        "kappa": ("failed", "error")}
    assert by["gamma"]["message"] == "gamma==3.0 has no sdist and only platform wheels"
    assert by["zeta"]["message"] == "no project zeta on PyPI"
    assert by["eta"]["message"] == "%s/eta/json: the index did not answer with JSON" % index.index_url
    assert by["theta"]["message"].startswith("sha256 mismatch for theta-1.0.tar.gz")
    assert by["kappa"]["message"] == ("%s/kappa/json: not a valid version from the index: "
                                      "'1.0/../../../ESCAPED'" % index.index_url)
    assert (by["alpha"]["distribution"], by["beta"]["distribution"]) == ("sdist", "bdist_wheel")
    assert by["beta"]["file"] == "beta-2.0-py2.py3-none-any.whl"  # the pure wheel, not the platform one
    assert by["alpha"]["summary"]["punnable"] == 3 + 2 + 2 and by["alpha"]["measures"]["nontest"]["punnable"] == 5
    assert by["beta"]["summary"]["punnable"] == 1 + 2 and by["iota"]["summary"]["punnable"] == 6 + 2
    assert (summary["scanned"], summary["skipped"], summary["failed"]) == (3, 4, 3)
    assert summary["not_scanned_by_reason"] == {"failed": 3, pypi.NO_FILES: 1, pypi.NO_READABLE_FILE: 1,
                                                pypi.PLATFORM_WHEELS_ONLY: 1, pypi.NO_PROJECT: 1}
    assert summary["distributions"] == {"bdist_wheel": 1, "sdist": 2}
    assert summary["cache"] == {"cached": 2, "extracted": 6}  # shared.py, in all three, extracted once
    downloads = str(tmp_path / "downloads")
    assert os.listdir(downloads)
    assert not [d for d, _, _ in os.walk(downloads) if os.path.basename(d).startswith("tree-")]  # trees deleted
    assert not list((tmp_path / "out").rglob("ESCAPED*")) and not os.path.exists(tmp_path / "ESCAPED")
    journal = (tmp_path / "out" / run.JOURNAL).read_text().splitlines()
    assert [json.loads(line)["project"] for line in journal] == NAMES
    index.project("eta", "1.0", [("eta-1.0.tar.gz", sdist("eta", "1.0", {"e.py": code(2)}), "sdist")])
    index.project("zeta", "1.0", [("zeta-1.0.tar.gz", sdist("zeta", "1.0", {"z.py": code(2)}), "sdist")])
    seen = []
    records, again = run_top(tmp_path, index, skip_existing=True,
                             on_done=lambda record, reused: seen.append((record["project"], reused)))
    assert [name for name, reused in seen if not reused] == ["eta", "theta", "kappa"]  # failures again, skips not
    status = {r["project"]: r["status"] for r in records}
    assert (status["eta"], status["zeta"]) == ("scanned", "skipped")  # the index answers now; a skip stays one
    assert (again["scanned"], again["skipped"], again["failed"]) == (4, 4, 2)


def by_hand(out):
    """The ecosystem measures computed directly from the combined dataset with pandas."""
    files = pd.read_parquet(os.path.join(out, "files"))
    occ = pd.read_parquet(os.path.join(out, "occurrences"))
    files = files[files["status"] == "ok"]
    calls = occ[occ["kind"] == "call"]
    result = {}
    for scope, keep_f, keep_o in (("all", files.index == files.index, calls.index == calls.index),
                                  ("nontest", ~files["in_test"], ~calls["in_test"])):
        f, o = files[keep_f], calls[keep_o]
        per = f.groupby("project")[["keywords", "punnable"]].sum()
        per = per[per["keywords"] > 0]
        share = 100 * per["punnable"] / per["keywords"]
        lengths = o["name_len"].value_counts().sort_index()
        ordered = pd.DataFrame({"share": share, "weight": per["keywords"]}).sort_values("share")
        reached = ordered["weight"].cumsum() >= 0.5 * ordered["weight"].sum()
        result[scope] = {
            "weighted_median": ordered["share"][reached].iloc[0],
            "pooled": 100 * f["punnable"].sum() / f["keywords"].sum(),
            "median": share.median(), "q1": share.quantile(0.25), "q3": share.quantile(0.75),
            "above": {t: 100 * (share > t).mean() for t in (10, 20, 30)},
            "top": o.groupby("name").agg(n=("name", "size"), p=("project", "nunique"))
                    .reset_index().sort_values(["n", "name"], ascending=[False, True]).head(5).values.tolist(),
            "cumulative": (100 * lengths.cumsum() / lengths.sum()).round(4).tolist(),
        }
    return result


def test_the_ecosystem_summary_matches_a_pandas_computation_on_the_combined_dataset(tmp_path, index):
    populate(index)
    records, summary = run_top(tmp_path, index)
    expected = by_hand(str(tmp_path / "out"))
    assert set(pd.read_parquet(str(tmp_path / "out" / "files"))["project"]) == {"alpha", "beta", "iota"}
    for scope in eco.SCOPES:
        got, want = summary[scope], expected[scope]
        assert got["pooled_pct"] == pytest.approx(want["pooled"], abs=1e-4)
        per = got["per_project"]
        assert (per["median_pct"], per["q1_pct"], per["q3_pct"]) == pytest.approx(
            (want["median"], want["q1"], want["q3"]), abs=1e-4)
        assert per["weighted_median_pct"] == pytest.approx(want["weighted_median"], abs=1e-4)
        assert [got["projects_above_pct"][str(t)] for t in (10, 20, 30)] == pytest.approx(
            [want["above"][t] for t in (10, 20, 30)], abs=1e-4)
        assert [row for row in got["top_identifiers"][:5]] == want["top"]
        assert [row[2] for row in got["cumulative_by_length"]] == want["cumulative"]
    assert summary["all"]["top_identifiers"][:4] == [  # [identifier, occurrences, projects]
        ["v", 4, 3], ["name", 3, 3], ["verbose", 3, 3], ["vv", 3, 2]]
    assert summary["all"]["widest_identifiers"][:4] == [
        ["v", 4, 3], ["name", 3, 3], ["verbose", 3, 3], ["vv", 3, 2]]
    assert summary["all"]["widest_callees"][:2] == [["f", 12, 3], ["g", 6, 3]]
    assert summary["all"]["per_project"]["weighted_mean_pct"] == summary["all"]["pooled_pct"]
    occurrences = pd.read_parquet(str(tmp_path / "out" / "occurrences"))
    for name in ("call", "attribute", "dict_literal", "near_miss"):  # every row of the registry, pooled
        assert summary["kinds"]["all"][name]["count"] == int((occurrences["kind"] == name).sum()), name
    assert summary["kinds"]["all"]["call"]["pct"] == summary["all"]["pooled_pct"]
    assert summary["patterns"] == []


def test_a_user_pattern_is_pooled_over_the_projects_that_recorded_it():
    def record(name, count, nontest=None):
        measure = {"files": 1, "keywords": 10, "punnable": 1, "identifiers": {}, "callees": {}, "lengths": {}}
        summary = {"patterns": [{"name": "ret", "label": "r", "per": "lines"}], "kinds": {"ret": count},
                   "lines": 1000, "keywords": 10, "keywords_nontest": 10}
        if nontest is not None:
            summary.update(kinds_nontest={"ret": nontest})
        return {"status": "scanned", "rank": 1, "project": name, "measures": {"all": measure, "nontest": measure},
                "summary": summary}

    summary = eco.aggregate([record("a", 3, 1), record("b", 5)])
    assert summary["kinds"]["all"]["ret"] == {"count": 8, "pct": 0.4}
    assert summary["kinds"]["nontest"]["ret"] == {"count": None, "pct": None}  # b did not record it
    assert [p["name"] for p in summary["patterns"]] == ["ret"]
    from punstats.present.ecosystem import summary_lines
    # per="lines": a rate per million lines, not a share of them (from the stored share, or the records' units)
    assert summary_lines(summary)[-1] == "  pattern ret: all code 8 (4,000 per million lines), outside tests n/a"
    records = [record("a", 3, 1), record("b", 5)]
    assert summary_lines(summary, records)[-1] == \
        "  pattern ret: all code 8 (4,000 per million lines), outside tests n/a"


def test_widest_ranks_by_projects_so_one_large_project_cannot_dominate():
    scope = eco._Scope()
    for identifiers in ({"dtype": 500, "name": 1}, {"name": 2}, {"name": 1, "other": 1}):
        scope.add({"files": 1, "keywords": 10, "punnable": 1, "identifiers": identifiers, "callees": {},
                   "lengths": {}})
    summary = scope.summary()
    assert summary["top_identifiers"] == [["dtype", 500, 1], ["name", 4, 3], ["other", 1, 1]]
    assert summary["widest_identifiers"] == [["name", 4, 3], ["dtype", 500, 1], ["other", 1, 1]]


def test_weighted_quantiles():
    assert eco.weighted_quantile([10.0, 50.0, 1.0], [1, 1, 98], 0.5) == 1.0
    assert eco.weighted_quantile([10.0, 50.0, 1.0], [1, 98, 1], 0.5) == 50.0
    assert eco.weighted_quantile([5.0, 7.0], [1, 1], 0.5) == 5.0
    assert eco.weighted_quantile([], [], 0.5) == 0.0


def test_a_project_stored_without_its_journal_line_is_done_again_and_counted_once(tmp_path, index):
    populate(index)
    names = ["alpha", "beta", "iota"]
    _, whole = run_top(tmp_path, index, names)
    out = tmp_path / "out"
    lines = (out / run.JOURNAL).read_text().splitlines()
    (out / run.JOURNAL).write_text(lines[0] + "\n" + lines[1][:7])  # killed while writing beta's line
    (out / "files" / ".iota.parquet.123.tmp").write_bytes(b"partial")  # and iota's table half written
    seen = []
    go, _ = projects.top_pypi_run("top-pypi:3", str(tmp_path / "list.json"), output=str(out),
                                  index_url=index.index_url, jobs=1, skip_existing=True)
    records, again = go(on_done=lambda record, reused: seen.append((record["project"], reused)))
    assert seen == [("alpha", True), ("beta", False), ("iota", False)]
    assert dict(again, cache=None) == dict(whole, cache=None)  # the cache says how results came, not what
    assert not list((out / "files").glob(".*"))
    assert len(pd.read_parquet(str(out / "files"))) == len(pd.read_parquet(str(out / "files")).drop_duplicates(
        ["project", "path"]))


def test_one_worker_pool_serves_every_project_and_each_is_stored_while_the_next_is_scanned(
        tmp_path, index, monkeypatch):
    """Not a pool forked and closed per project; the results are those of one process."""
    import threading

    from punstats.engines import local
    names = ["p%d" % i for i in range(3)]
    for i, name in enumerate(names):
        files = {"%s/m%03d.py" % (name, k): code(k % 4 + i) for k in range(local.MIN_FILES_FOR_POOL + 5)}
        index.project(name, "1.0", [("%s-1.0.tar.gz" % name, sdist(name, "1.0", files), "sdist")])
    (tmp_path / "one").mkdir()
    (tmp_path / "two").mkdir()
    _, alone = run_top(tmp_path / "one", index, names, cache=False)
    pools, stored_in = [], []
    real = local.new_pool

    def new_pool(jobs):
        pools.append(jobs)
        return real(jobs)
    monkeypatch.setattr(local, "new_pool", new_pool)
    records, pooled = run_top(tmp_path / "two", index, names, cache=False, jobs=2,
                              on_done=lambda record, reused: stored_in.append(threading.current_thread().name))
    assert pools == [2, 2]  # the scan's workers, and the processes that unpack (runs.unpacking)
    assert [r["status"] for r in records] == ["scanned"] * 3
    assert all(name.startswith("store") for name in stored_in) and len(stored_in) == 3
    assert dict(pooled, list=None) == dict(alone, list=None)
    for table in run.TABLES:
        pd.testing.assert_frame_equal(pd.read_parquet(str(tmp_path / "two" / "out" / table)),
                                      pd.read_parquet(str(tmp_path / "one" / "out" / table)))


def test_keep_keeps_each_unpacked_tree(tmp_path, index):
    populate(index)
    run_top(tmp_path, index, ["alpha", "beta"], keep=True)
    trees = [d for d, _, _ in os.walk(tmp_path / "downloads") if os.path.basename(d).startswith("tree-")]
    assert len(trees) == 2 and all(os.path.isdir(os.path.join(t, "src")) for t in trees)


def test_the_projects_are_scanned_with_arrow_on_the_system_allocator_and_its_pool_is_restored_after(
        tmp_path, index):
    import pyarrow as pa
    populate(index)
    before = pa.default_memory_pool().backend_name
    seen = []
    run_top(tmp_path, index, ["alpha", "iota"], on_done=lambda record, reused: seen.append(
        pa.default_memory_pool().backend_name))
    assert seen == ["system", "system"]  # runs.memory: freed memory goes back between projects
    assert pa.default_memory_pool().backend_name == before


def test_a_second_run_in_the_same_directory_needs_skip_existing(tmp_path, index):
    populate(index)
    run_top(tmp_path, index, ["alpha"])
    with pytest.raises(run.RunError, match="already holds a run: resume it with --skip-existing"):
        run_top(tmp_path, index, ["alpha"])
    with pytest.raises(run.RunError, match="was made with another rules"):
        run_top(tmp_path, index, ["alpha"], skip_existing=True, long_threshold=3)


def test_a_run_refuses_a_directory_of_other_files_and_removes_none_of_them(tmp_path, index):
    """A run cleans what a killed run left (hidden .tmp files) only in a directory that holds a run."""
    populate(index)
    mine = tmp_path / "out" / "projects"
    mine.mkdir(parents=True)
    (mine / ".draft.tmp").write_text("the user's\n")
    (tmp_path / "out" / "thesis.tex").write_text("the user's\n")
    with pytest.raises(run.RunError, match=r"out holds other files than a run \(thesis.tex\); choose an empty"):
        run_top(tmp_path, index, ["alpha"])
    assert (mine / ".draft.tmp").read_text() == "the user's\n" and sorted(os.listdir(mine)) == [".draft.tmp"]


def three_archives(folder):
    """Archives of 100 bytes in three sha256 folders, oldest first: p0, p1, p2."""
    for i, sha in enumerate(("a" * 64, "b" * 64, "c" * 64)):
        (folder / sha).mkdir(parents=True)
        path = folder / sha / ("p%d.tar.gz" % i)
        path.write_bytes(b"x" * 100)
        os.utime(path, (1000 + i, 1000 + i))
    return folder


def test_trim_keeps_the_downloads_under_the_cap_and_never_deletes_one_in_use(tmp_path):
    folder = three_archives(tmp_path / "dl")
    fetcher = downloads.Fetcher(run.Options(output=str(tmp_path), downloads=str(folder), download_cap=250), None)
    fetcher.active["a" * 64] = 1  # the oldest is being scanned
    fetcher.trim()
    assert sorted(p.name for p in folder.rglob("*.tar.gz")) == ["p0.tar.gz", "p2.tar.gz"]
    (folder / ("d" * 64)).mkdir()
    (folder / ("d" * 64) / "p3.tar.gz").write_bytes(b"x" * 100)  # not counted as fetched: no listing
    fetcher.trim()
    assert len(list(folder.rglob("*.tar.gz"))) == 3
    fetcher.fetched = 100  # a download of 100 bytes: the folder is listed again, the oldest unused goes
    fetcher.active.clear()
    fetcher.trim()
    assert sorted(p.name for p in folder.rglob("*.tar.gz")) == ["p2.tar.gz", "p3.tar.gz"]


def test_a_trim_that_must_delete_makes_room_so_the_next_projects_list_nothing(tmp_path):
    """Many small releases (a random sample): the folder is not listed again after each one."""
    folder = tmp_path / "dl"
    for i in range(20):
        (folder / ("%064x" % i)).mkdir(parents=True)
        (folder / ("%064x" % i) / "p.tar.gz").write_bytes(b"x" * 10)
        os.utime(folder / ("%064x" % i) / "p.tar.gz", (1000 + i, 1000 + i))
    fetcher = downloads.Fetcher(run.Options(output=str(tmp_path), downloads=str(folder), download_cap=195), None)
    listings, real = [], fetcher.archives
    fetcher.archives = lambda: listings.append(1) or real()
    fetcher.trim()
    # 200 bytes over a cap of 195: the oldest go until 90% of the cap is left
    assert len(list(folder.rglob("*.tar.gz"))) == 17 and not (folder / ("%064x" % 2)).joinpath("p.tar.gz").exists()
    for _ in range(2):  # two more downloads of 10 bytes fit without a look at the folder
        fetcher.fetched += 10
        fetcher.trim()
    assert len(listings) == 1


def test_trim_deletes_only_downloaded_archives(tmp_path):
    """A downloads folder shared with other files keeps them, however old and large."""
    folder = tmp_path / "dl"
    (folder / "my-sdists").mkdir(parents=True)
    (folder / "my-sdists" / "mine.tar.gz").write_bytes(b"x" * 1000)
    os.utime(folder / "my-sdists" / "mine.tar.gz", (1000, 1000))
    (folder / ("a" * 64)).mkdir()
    (folder / ("a" * 64) / "p.tar.gz").write_bytes(b"x" * 100)
    downloads.Fetcher(run.Options(output=str(tmp_path), downloads=str(folder), download_cap=50), None).trim()
    assert sorted(p.name for p in folder.rglob("*.tar.gz")) == ["mine.tar.gz"]


def test_trim_spares_an_archive_another_run_uses_and_one_another_run_deleted(tmp_path):
    """Two runs sharing one downloads folder (a top and a random sample at once)."""
    folder = three_archives(tmp_path / "dl")
    # the other run unpacks the oldest archive: its shared lock, taken in another process
    other = subprocess.Popen([sys.executable, "-c", (
        "import sys; from punstats.runs.downloads import in_use; in_use(sys.argv[1]); "
        "print('held', flush=True); sys.stdin.read()"), str(folder / ("a" * 64))],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert other.stdout.readline() == "held\n"
        fetcher = downloads.Fetcher(run.Options(output=str(tmp_path), downloads=str(folder), download_cap=150), None)
        real_listing = fetcher.archives

        def listed_then_deleted_by_the_other_run():
            found = real_listing()
            os.unlink(str(folder / ("b" * 64) / "p1.tar.gz"))
            return found

        fetcher.archives = listed_then_deleted_by_the_other_run
        fetcher.trim()
    finally:
        other.communicate("")
    # the one in use stays, the one the other run deleted is no error, the newest goes for the cap
    assert sorted(p.name for p in folder.rglob("*.tar.gz")) == ["p0.tar.gz"]


def test_a_run_that_stops_on_an_error_closes_its_fetch_threads_before_it_returns(tmp_path, index, monkeypatch):
    populate(index)

    def disk_gone(self):
        raise FileNotFoundError(errno.ENOENT, "No such file or directory", "downloads")

    monkeypatch.setattr(downloads.Fetcher, "trim", disk_gone)
    with pytest.raises(FileNotFoundError):
        run_top(tmp_path, index, ["alpha", "iota"], download_jobs=2)
    assert [t.name for t in threading.enumerate() if t.name.startswith("fetch")] == []


def cli_run(tmp_path, index, out, *extra, jobs="1"):
    return [sys.executable, "-m", "punstats", "corpus", "top-pypi:6", "--top-pypi-list",
            str(tmp_path / "list.json"), "--index-url", index.index_url, "-o", str(out), "-j", jobs,
            "--no-figure", *extra]


@pytest.mark.parametrize("jobs", ["1", "2"])  # 2: one worker pool for the run, each project stored behind
def test_resume_after_kill_9_loses_and_doubles_nothing(tmp_path, index, jobs):
    names = ["p%d" % i for i in range(6)]
    for i, name in enumerate(names):
        many = {"%s/more/m%03d.py" % (name, k): code(k % 3) for k in range(70 if i % 2 else 0)}  # a pool's worth
        index.project(name, "1.0", [("%s-1.0.tar.gz" % name, sdist(name, "1.0", dict(many, **{
            "%s/m.py" % name: code(i + 1), "%s/shared.py" % name: SHARED})), "sdist")])
    top_list(tmp_path / "list.json", names)
    env = dict(os.environ, PYTHONPATH=ROOT)
    assert subprocess.run(cli_run(tmp_path, index, tmp_path / "whole", "--json"), env=env,
                          capture_output=True, check=True).returncode == 0
    path = next(p for p in index.routes if p.endswith("/p4-1.0.tar.gz"))
    index.hold(path)
    # a cache of its own: the first run's downloads would let p4 past the held route
    env = dict(env, PUNSTATS_CACHE_DIR=str(tmp_path / "cut-cache"))
    process = subprocess.Popen(cli_run(tmp_path, index, tmp_path / "cut", jobs=jobs), env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    journal = tmp_path / "cut" / run.JOURNAL
    deadline = time.time() + 60
    while time.time() < deadline and (not journal.exists() or len(journal.read_text().splitlines()) < 4):
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.communicate()
    index.release(path)
    assert len(journal.read_text().splitlines()) == 4  # p4 was never downloaded: killed midway
    resumed = subprocess.run(cli_run(tmp_path, index, tmp_path / "cut", "--skip-existing", "--json", jobs=jobs),
                             env=env, capture_output=True, check=True)
    whole = json.loads(subprocess.run(cli_run(tmp_path, index, tmp_path / "whole", "--skip-existing", "--json"),
                                      env=env, capture_output=True, check=True).stdout)
    cut = json.loads(resumed.stdout)
    assert set(cut) == {"projects", "ecosystem"}
    assert dict(cut["ecosystem"], cache=None) == dict(whole["ecosystem"], cache=None)  # cache: how, not what
    assert [p["project"] for p in cut["projects"]] == names
    for table in run.TABLES:
        a = pd.read_parquet(str(tmp_path / "cut" / table)).sort_values(["project", "path"]).reset_index(drop=True)
        b = pd.read_parquet(str(tmp_path / "whole" / table)).sort_values(["project", "path"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(a, b)
    assert [json.loads(line)["project"] for line in journal.read_text().splitlines()] == names


#: Seconds the slow download of the SIGTERM test would take: the run must stop long before.
SLOW_SECONDS = 30


def leftovers(folder):
    """What an interrupted download or unpack may leave in the downloads folder: partial files and trees."""
    return sorted(entry for _, dirs, files in os.walk(folder) for entry in dirs + files
                  if entry.startswith((".download-", ".partial-")))


@pytest.mark.parametrize("slow", ["dribbled", "held"])  # a body a byte at a time; no answer at all
def test_sigterm_stops_a_run_at_once_not_after_its_downloads(tmp_path, index, slow):
    names = ["p%d" % i for i in range(6)]
    for i, name in enumerate(names):
        index.project(name, "1.0", [("%s-1.0.tar.gz" % name, sdist(name, "1.0", {"%s/m.py" % name: code(i + 1)}),
                                     "sdist")])
    top_list(tmp_path / "list.json", names)
    path = next(p for p in index.routes if p.endswith("/p2-1.0.tar.gz"))
    asked = index.dribble(path, SLOW_SECONDS) if slow == "dribbled" else index.hold(path)
    env = dict(os.environ, PYTHONPATH=ROOT, PUNSTATS_CACHE_DIR=str(tmp_path / "cache"))
    out, journal = tmp_path / "out", tmp_path / "out" / run.JOURNAL
    process = subprocess.Popen(cli_run(tmp_path, index, out, "--download-jobs", "4"), env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert asked.wait(60)
        deadline = time.time() + 60  # p0 and p1 stored; the run waits for p2, first in order
        while time.time() < deadline and (not journal.exists() or len(journal.read_text().splitlines()) < 2):
            time.sleep(0.05)
        start = time.monotonic()
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=2 * SLOW_SECONDS)
        stopped = time.monotonic() - start
    finally:
        process.kill()
        index.release(path)
    assert process.returncode == 143 and err.decode().splitlines()[-1] == "punstats: terminated"
    assert stopped < 5, "stopped after %.1f s" % stopped
    assert [json.loads(line)["project"] for line in journal.read_text().splitlines()] == ["p0", "p1"]
    assert leftovers(tmp_path / "cache") == []  # no half-written archive, taken later as whole
    resumed = subprocess.run(cli_run(tmp_path, index, out, "--skip-existing", "--json"), env=env,
                             capture_output=True, check=True)
    records = json.loads(resumed.stdout)["projects"]
    assert [(r["project"], r["status"]) for r in records] == [(name, "scanned") for name in names]
    assert [json.loads(line)["project"] for line in journal.read_text().splitlines()] == names
    punnable = pd.read_parquet(str(out / "files")).groupby("project")["punnable"].sum()
    assert punnable.to_dict() == {name: i + 1 for i, name in enumerate(names)}  # each project counted once
    assert leftovers(tmp_path / "cache") == []


def test_strict_stops_at_the_first_failure_with_one_line(tmp_path, index):
    populate(index)
    top_list(tmp_path / "list.json", ["alpha", "gamma", "zeta", "eta"])
    command = cli_run(tmp_path, index, tmp_path / "out", "--strict")
    command[command.index("top-pypi:6")] = "top-pypi:4"
    result = subprocess.run(command, env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr == ("punstats: error: project 4 (eta) failed: %s/eta/json: the index did not answer "
                             "with JSON\n" % index.index_url)
    done = [json.loads(line)["project"] for line in (tmp_path / "out" / run.JOURNAL).read_text().splitlines()]
    assert done == ["alpha", "gamma", "zeta"]  # a skip is not a failure: no release, no project on the index


def test_the_dask_engine_gives_the_local_run_s_results(tmp_path, index):
    pytest.importorskip("distributed")
    populate(index)
    names = ["alpha", "beta", "gamma", "iota"]
    (tmp_path / "local").mkdir()
    (tmp_path / "dask").mkdir()
    _, local = run_top(tmp_path / "local", index, names, cache=False)
    _, dask = run_top(tmp_path / "dask", index, names, cache=False, engine="dask")
    assert dict(dask, list=None) == dict(local, list=None)  # all but where each list file was
    for table in run.TABLES:
        pd.testing.assert_frame_equal(pd.read_parquet(str(tmp_path / "dask" / "out" / table)),
                                      pd.read_parquet(str(tmp_path / "local" / "out" / table)))


def test_the_figure_draws_each_project_s_share_and_the_pooled_length_curve(tmp_path, index):
    pytest.importorskip("matplotlib")
    from punstats.present import ecosystem as shown
    populate(index)
    records, summary = run_top(tmp_path, index, ["alpha", "beta", "gamma", "iota"])
    figure = shown.figure(records, summary)
    left, right = figure.axes
    scanned = [r for r in records if r["status"] == "scanned"]
    for collection, scope in zip(left.collections, eco.SCOPES):
        shares = [100 * r["measures"][scope]["punnable"] / r["measures"][scope]["keywords"] for r in scanned]
        assert list(collection.get_offsets()[:, 1]) == pytest.approx(shares)
    for line, scope in zip(right.get_lines(), eco.SCOPES):  # the share at least n long, as the scan figures
        counts = {row[0]: row[1] for row in summary[scope]["cumulative_by_length"]}
        assert list(line.get_xdata()) == sorted(counts)
        total = sum(counts.values())
        assert list(line.get_ydata()) == pytest.approx(
            [100 * sum(c for length, c in counts.items() if length >= n) / total for n in sorted(counts)], abs=1e-4)
    table = shown.pep_table(records, summary)
    assert [row[1] for row in table.rows[:-4]] == [shown.Code(n) for n in ("alpha", "beta", "gamma", "iota")]
    assert table.rows[-4][5:7] == (summary["all"]["punnable"], shown.Percent(summary["all"]["pooled_pct"]))


def network(down):
    """A getter through which nothing answers for the next ``down[0]`` requests (the probe's too)."""
    def get(url, *handles):
        if down[0] > 0:
            down[0] -= 1
            raise pypi.FetchError("cannot reach 127.0.0.1: [Errno 101] Network is unreachable")
        return pypi.http_get(url, *handles)
    return get


def test_leaving_the_fetch_threads_halts_a_fetch_waiting_for_the_network_and_cancels_the_queued(tmp_path):
    from punstats.sources.http import Stopped
    from punstats.sources.toppypi import Ranked
    asked = threading.Event()

    def down(url, *handles):
        asked.set()
        raise pypi.FetchError("cannot reach 127.0.0.1: [Errno 101] Network is unreachable")
    fetcher = downloads.Fetcher(run.Options(output=str(tmp_path), downloads=str(tmp_path / "dl")), down)
    with downloads.fetching(fetcher, 1) as pool:
        waiting = pool.submit(fetcher.fetch, Ranked(1, "alpha"))  # would wait hours for the network
        queued = pool.submit(fetcher.fetch, Ranked(2, "beta"))
        assert asked.wait(10)
        start = time.monotonic()
    assert time.monotonic() - start < 2  # its pauses are 1 s, then OUTAGE_PAUSES
    assert isinstance(waiting.exception(), Stopped) and queued.cancelled()


def test_a_run_waits_out_a_network_outage_and_scans_every_project(tmp_path, index, monkeypatch):
    populate(index)
    pauses, said = [], []
    monkeypatch.setattr(downloads.Fetcher, "pause", lambda fetcher, seconds: pauses.append(seconds))
    records, _ = run_top(tmp_path, index, ["alpha", "iota"], get=network([9]), download_jobs=1)
    assert [r["status"] for r in records] == ["scanned", "scanned"]  # not failed: waited for
    assert pauses[:2] == [1.0, downloads.OUTAGE_PAUSES[0]]  # its one retry, then a pause for the network
    go, _ = projects.top_pypi_run("top-pypi:2", str(tmp_path / "list.json"), output=str(tmp_path / "again"),
                                  index_url=index.index_url, jobs=1, get=network([3]), download_jobs=1,
                                  downloads=str(tmp_path / "dl2"), cache=False)
    go(on_wait=said.append)
    assert said and said[0].startswith("the network is down (cannot reach 127.0.0.1") and "alpha" in said[0]


def test_a_project_that_does_not_answer_while_the_index_does_fails_at_once(tmp_path, index, monkeypatch):
    populate(index)
    pauses = []
    monkeypatch.setattr(downloads.Fetcher, "pause", lambda fetcher, seconds: pauses.append(seconds))
    file_url = index.project("alpha", "1.0", [("alpha-1.0.tar.gz", sdist("alpha", "1.0", {"a.py": "x = 1\n"}),
                                                "sdist")])[0]["url"]

    def get(url, *handles):
        if url == file_url:
            raise pypi.FetchError("cannot reach 127.0.0.1: Connection reset by peer")
        return pypi.http_get(url, *handles)
    records, _ = run_top(tmp_path, index, ["alpha", "iota"], get=get, download_jobs=1)
    assert [(r["status"], r.get("reason")) for r in records] == [("failed", "error"), ("scanned", None)]
    assert pauses == [1.0]  # the one retry; no wait for a network that is up


def test_downloads_stream_to_disk_and_are_retried_once_after_a_network_error(tmp_path, index):
    data = sdist("big", "1.0", {"big/m.py": code(3) * 50})
    entries = index.project("big", "1.0", [("big-1.0.tar.gz", data, "sdist")])
    release = pypi.resolve_latest("big", pypi.http_get, index.index_url)
    calls = []

    def flaky_stream(url, handle):
        calls.append(url)
        if len(calls) == 1:
            handle.write(b"half a body")
            raise pypi.FetchError("cannot reach 127.0.0.1: Connection reset by peer")
        return pypi.http_stream(url, handle)

    def no_bytes(url):
        raise AssertionError("a download must not be read into memory")
    no_bytes.stream = flaky_stream
    fetcher = downloads.Fetcher(run.Options(output=str(tmp_path), downloads=str(tmp_path / "dl")), no_bytes)
    corpus = pypi.release_corpus(release, fetcher.get, str(tmp_path / "dl"))
    assert calls == [entries[0]["url"]] * 2
    with open(os.path.join(str(tmp_path / "dl"), release.sha256, "big-1.0.tar.gz"), "rb") as handle:
        assert handle.read() == data  # the half body of the first try is gone
    assert corpus.archive["files"] == 1


def test_the_combined_dataset_holds_the_stored_types_not_the_notebook_categoricals(tmp_path, index):
    import pyarrow.parquet as pq

    from punstats.store import schema
    populate(index)
    run_top(tmp_path, index, names=["alpha", "iota"])
    for name, column in (("files", "status"), ("occurrences", "kind")):
        for path in sorted((tmp_path / "out" / name).iterdir()):
            assert pq.read_schema(path).field(column).type == schema.ARROW_TYPES[schema.STR]
    frame = pd.read_parquet(tmp_path / "out" / "occurrences")
    assert sorted(frame["project"].unique()) == ["alpha", "iota"]
    assert (frame["kind"] == "call").sum() == (3 + 2 + 2) + (6 + 2)  # the punnable counts the run recorded


@pytest.mark.parametrize("garble", ["{", "[1]", "measures", "no-status"])
def test_a_resume_scans_again_a_project_whose_record_or_journal_line_was_garbled(tmp_path, index, garble):
    """An edited or cut record is not a finished project: it is scanned again and counted once; a
    journal line without a status, beside an intact record, is one.  Never a traceback."""
    populate(index)
    names = ["alpha", "beta", "iota"]
    _, whole = run_top(tmp_path, index, names)
    out = tmp_path / "out"
    record = out / "projects" / "beta.json"
    if garble == "measures":
        record.write_text(json.dumps(dict(json.loads(record.read_text()), measures=[1])))
    elif garble == "no-status":
        lines = (out / run.JOURNAL).read_text().splitlines()
        (out / run.JOURNAL).write_text("\n".join(lines[:1] + ['{"rank": 2, "project": "beta"}'] + lines[2:]) + "\n")
    else:
        record.write_text(garble)
    seen = []
    records, again = run_top(tmp_path, index, names, skip_existing=True,
                             on_done=lambda record, reused: seen.append((record["project"], reused)))
    kept = garble == "no-status"
    assert seen == [("alpha", True), ("beta", True), ("iota", True)] if kept else \
        [("alpha", True), ("iota", True), ("beta", False)]
    assert dict(again, cache=None) == dict(whole, cache=None)
    assert len(pd.read_parquet(str(out / "files"))) == len(pd.read_parquet(str(out / "files")).drop_duplicates(
        ["project", "path"]))


@pytest.mark.parametrize("text", ["[1]", '"x"', "RULES-LIST", "PATTERNS", "PATTERNS-INT"])
def test_a_resume_with_an_edited_run_json_is_one_line_and_changes_nothing(tmp_path, index, text):
    populate(index)
    run_top(tmp_path, index, ["alpha"])
    path = tmp_path / "out" / run.RUN_FILE
    good = json.loads(path.read_text())
    if text == "RULES-LIST":
        text = json.dumps(dict(good, rules=[1]))
    elif text == "PATTERNS":
        text = json.dumps(dict(good, rules=dict(good["rules"], patterns=[1, "x"])))
    elif text == "PATTERNS-INT":
        text = json.dumps(dict(good, rules=dict(good["rules"], patterns=5)))
    path.write_text(text)
    with pytest.raises(run.RunError, match="run.json is missing or unreadable; cannot resume this run") as caught:
        run_top(tmp_path, index, ["alpha"], skip_existing=True)
    assert "\n" not in str(caught.value) and path.read_text() == text


@pytest.mark.parametrize("entry", ["projects", "occurrences", "files", "journal.jsonl"])
def test_a_folder_of_the_run_that_is_a_link_is_refused_and_nothing_outside_is_touched(tmp_path, index, entry):
    """A link in place of ``projects/`` was followed: records written outside ``-o``, and the
    hidden ``.tmp`` files there removed as a killed run's."""
    populate(index)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / ".draft.tmp").write_text("the user's\n")
    (tmp_path / "out").mkdir()
    os.symlink(str(outside), str(tmp_path / "out" / entry))
    with pytest.raises(run.RunError, match=r"out/%s is a symbolic link, and a run reads and writes only inside "
                                           r"its folder; remove it, or choose another -o" % entry):
        run_top(tmp_path, index, ["alpha", "iota"])
    assert sorted(os.listdir(outside)) == [".draft.tmp"] and (outside / ".draft.tmp").read_text() == "the user's\n"


def test_a_folder_swapped_for_a_link_during_the_run_stops_it_before_writing_there(tmp_path, index):
    populate(index)
    outside = tmp_path / "outside"
    outside.mkdir()

    def swap(record, reused):
        if record["project"] == "alpha":
            os.rename(str(tmp_path / "out" / "occurrences"), str(tmp_path / "moved"))
            os.symlink(str(outside), str(tmp_path / "out" / "occurrences"))

    with pytest.raises(run.RunError, match="out/occurrences is a symbolic link"):
        run_top(tmp_path, index, ["alpha", "iota"], on_done=swap)
    assert os.listdir(outside) == [] and os.listdir(tmp_path / "moved") == ["alpha.parquet"]
    assert list(read_journal(str(tmp_path / "out"))) == ["alpha"]  # what was stored stays, to resume


def test_skip_existing_notices_a_list_edited_in_place_and_the_run_stays_readable(tmp_path, index):
    """The same size and date, two names swapped: the run was resumed with the other list, and
    its folder then read as 'its journal holds 4 of the 3 projects'."""
    from punstats.store.ecosystem import read_run
    populate(index)
    run_top(tmp_path, index, ["alpha", "iota", "gamma"], n=2)
    listing = tmp_path / "list.json"
    before = os.stat(str(listing))
    listing.write_text(listing.read_text().replace('"alpha"', '"gamma"', 1).replace(
        '"gamma", "download_count": 998', '"alpha", "download_count": 998'))
    os.utime(str(listing), ns=(before.st_atime_ns, before.st_mtime_ns))
    assert os.stat(str(listing)).st_size == before.st_size
    with pytest.raises(run.RunError, match=r"out was made with the project list .*list.json as it was before an "
                                           r"edit \(sha256 [0-9a-f]{12}, now [0-9a-f]{12}\); use another -o"):
        go, _ = projects.top_pypi_run("top-pypi:2", str(listing), output=str(tmp_path / "out"),
                                      index_url=index.index_url, jobs=1, skip_existing=True,
                                      downloads=str(tmp_path / "downloads"), cache=str(tmp_path / "cache.sqlite3"))
        go()
    assert [r["project"] for r in read_run(str(tmp_path / "out")).records] == ["alpha", "iota"]


def test_a_run_recorded_without_the_list_s_sha256_still_resumes(tmp_path, index):
    populate(index)
    run_top(tmp_path, index, ["alpha", "iota"])
    path = tmp_path / "out" / "run.json"
    recorded = json.loads(path.read_text())
    del recorded["list"]["sha256"]
    path.write_text(json.dumps(recorded))
    records, _ = run_top(tmp_path, index, ["alpha", "iota"], skip_existing=True)
    assert [r["project"] for r in records] == ["alpha", "iota"]


def test_a_record_swapped_for_a_link_is_scanned_again_and_the_link_replaced(tmp_path, index):
    populate(index)
    run_top(tmp_path, index, ["alpha", "iota"])
    record = tmp_path / "out" / "projects" / "alpha.json"
    outside = tmp_path / "outside.json"
    os.rename(str(record), str(outside))
    os.symlink(str(outside), str(record))
    kept = outside.read_text()
    records, _ = run_top(tmp_path, index, ["alpha", "iota"], skip_existing=True)
    assert [r["status"] for r in records] == ["scanned", "scanned"]
    assert not record.is_symlink() and outside.read_text() == kept


def test_fetching_stops_running_ahead_while_the_projects_fetched_hold_over_the_bytes_allowed(monkeypatch):
    """``ahead`` holds back further fetches, not the next one in order, while those done hold too much."""
    from concurrent.futures import Future

    from punstats.model.corpus import Corpus
    from punstats.sources.toppypi import Ranked

    class Now:
        """A pool that runs each fetch as it is submitted, so what is held is known at each step."""

        def submit(self, fetch, project):
            future = Future()
            future.set_result(fetch(project))
            return future

    class Fetcher:
        submitted = []

        def fetch(self, project):
            self.submitted.append(project.name)
            return None, Corpus(project.name, "/", "", "", archive={"bytes": 100}), 0.0

    names = ["p%d" % i for i in range(6)]
    fetcher, ahead_of_consumer = Fetcher(), []
    taken = []
    for project, _ in downloads.ahead([Ranked(i + 1, n) for i, n in enumerate(names)], fetcher, Now(),
                                           depth=4, held_bytes=150):
        taken.append(project.name)
        ahead_of_consumer.append(len(fetcher.submitted) - len(taken))
    assert taken == names and fetcher.submitted == names
    # fetched ahead until they hold over 150 bytes: two of 100; by count alone, four (depth 4)
    assert max(ahead_of_consumer) == 2
    fetcher.submitted.clear()
    # without a cap on bytes, fetches that are done make room for more, up to MAX_AHEAD
    monkeypatch.setattr(downloads, "MAX_AHEAD", 4)
    counted = [len(fetcher.submitted) for _ in downloads.ahead([Ranked(1, n) for n in names], fetcher, Now(), 2)]
    assert counted[0] - 1 == 4


def test_while_the_first_release_downloads_the_threads_fetch_the_next_ones():
    """A large release first in order: the fetch threads go on with those after it, beyond ``depth``."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from punstats.sources.toppypi import Ranked
    fifth = threading.Event()

    class Fetcher:
        def __init__(self):
            self.order = []

        def fetch(self, project):
            if project.name == "p0":  # done only once p5, past depth 3, was fetched meanwhile
                fifth.wait(10)
            elif project.name == "p5":
                fifth.set()
            self.order.append(project.name)
            return None, None, 0.0

    fetcher = Fetcher()
    with ThreadPoolExecutor(3) as pool:
        taken = [p.name for p, f in downloads.ahead([Ranked(i + 1, "p%d" % i) for i in range(8)], fetcher, pool, 3)
                 if f.result() is not None]
    assert taken == ["p%d" % i for i in range(8)]
    assert fetcher.order.index("p5") < fetcher.order.index("p0") and fifth.is_set()


def test_a_run_s_file_cap_leaves_larger_files_unparsed_and_says_so_to_make_it_again(tmp_path, index, monkeypatch):
    """``corpus top-pypi:N --max-bytes``: the memory a run needs is set by its largest file parsed."""
    from punstats.cli import main
    from punstats.present.ecosystem_report import reproduce_commands
    from punstats.store.ecosystem import read_run
    index.project("alpha", "1.0", [("alpha-1.0.tar.gz", sdist("alpha", "1.0", {
        "alpha/small.py": "f(x=x)\n", "alpha/large.py": code(5)}), "sdist")])
    top_list(tmp_path / "list.json", ["alpha"])
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    out = tmp_path / "out"
    assert main(["corpus", "top-pypi:1", "--top-pypi-list", str(tmp_path / "list.json"), "--index-url",
                 index.index_url, "-o", str(out), "-j", "1", "--no-figure", "-q", "--max-bytes", "40"]) == 0
    files = pd.read_parquet(out / "files").set_index("path")
    assert files.loc["alpha/large.py", "status"] == "too_large" and files.loc["alpha/small.py", "status"] == "ok"
    assert files["punnable"].sum() == 1
    assert "--max-bytes 40" in reproduce_commands(read_run(str(out)))[0]


#: A run of two projects in a process of its own, on a fake index there: for each project as it is
#: stored, whether pandas was imported by then; then whether it was after the run's summary.
NO_PANDAS_RUN = """\
import json, pathlib, sys
sys.path.insert(0, sys.argv[1])
from fakeindex import FakePyPI, sdist, top_list
from punstats.runs import projects
index = FakePyPI()
for name in ("alpha", "beta"):
    index.project(name, "1.0", [(name + "-1.0.tar.gz", sdist(name, "1.0", {name + "/m.py": "f(x=x)\\n"}), "sdist")])
listing = top_list(pathlib.Path(sys.argv[2], "list.json"), ["alpha", "beta"])
go, _ = projects.top_pypi_run("top-pypi:2", listing, output=sys.argv[2] + "/out", index_url=index.index_url,
                              downloads=sys.argv[2] + "/downloads", cache=False, jobs=1)
seen = []
records, _ = go(on_done=lambda record, reused: seen.append((record["status"], "pandas" in sys.modules)))
index.close()
print(json.dumps([seen, "pandas" in sys.modules, records[0]["measures"]["all"]["punnable"]]))
"""


def test_a_run_imports_no_pandas_while_its_projects_are_scanned_and_stored(tmp_path):
    """pandas (some 45 MB of the run's process) is imported for the summary at the end, not for
    counting each project's measures while the run's workers and unpackers are alive too."""
    proc = subprocess.run([sys.executable, "-c", NO_PANDAS_RUN, os.path.join(ROOT, "tests"), str(tmp_path)],
                          capture_output=True, text=True, env=dict(os.environ, PUNSTATS_CACHE_DIR=str(tmp_path / "c")),
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    seen, after, punnable = json.loads(proc.stdout.splitlines()[-1])
    assert seen == [["scanned", False], ["scanned", False]]
    assert after is True and punnable == 1  # the probe sees pandas once the summary needs it
