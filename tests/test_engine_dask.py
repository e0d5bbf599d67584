"""The Dask engine: identical results to the local engine, on a real LocalCluster.

Skipped when ``distributed`` is not installed (it is in the ``test`` extra).
"""
import ast
import json
import os
import sys
import sysconfig

import pandas as pd
import pytest

distributed = pytest.importorskip("distributed")

import punstats  # noqa: E402
from punstats import cli
from punstats import engines as engine
from punstats.discover.tree import discover
from punstats.engines.base import EngineError
from punstats.engines.dask import run_dask
from punstats.engines.local import candidate_fields, run
from punstats.extract.plugins import load
from punstats.extract.shipping import ship
from punstats.model.discovery import Candidate
from punstats.model.kinds import PatternError

STDLIB = sysconfig.get_path("stdlib")
TABLES = ("occurrences.parquet", "files.parquet", "functions.parquet")

#: A user pattern with fields (``field_<key>`` columns): calls of a name, with the name and its length.
NAMED_CALLS = '''\
import ast

import punstats


@punstats.pattern("named_calls", label="calls of a name", per="calls", on=ast.Call)
def match(node, parents):
    if isinstance(node.func, ast.Name):
        return {"name": node.func.id, "n": len(node.func.id)}
    return False
'''


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  scheduler_kwargs={"dashboard_address": ":0"}) as local_cluster:
        yield local_cluster


def assert_same_stored_scan(first, second):
    for name in TABLES:
        pd.testing.assert_frame_equal(pd.read_parquet(os.path.join(first, name)),
                                      pd.read_parquet(os.path.join(second, name)))
    summaries = []
    for directory in (first, second):
        with open(os.path.join(directory, "summary.json"), encoding="utf-8") as handle:
            summary = json.load(handle)
        summary.pop("created")
        summaries.append(summary)
    assert summaries[0] == summaries[1]


def test_same_extractions_in_the_same_order_on_json_and_email(cluster):
    candidates = [c for name in ("json", "email") for c in discover(os.path.join(STDLIB, name)).candidates]
    ticks = []
    on_dask = run_dask(candidates, scheduler=cluster.scheduler_address, progress=ticks.append,
                       batch_bytes=16 * 1024)
    assert len(engine.batches(candidates, 16 * 1024)) > 10  # many tasks, finishing in any order
    assert on_dask == run(candidates, jobs=1)
    assert sum(ticks) == len(candidates) > 30


def test_in_memory_and_failed_candidates_travel_as_they_are(cluster, tmp_path):
    (tmp_path / "disk.py").write_text("f(x=x)\n")
    candidates = [
        Candidate("blob.py", "git:0123", 12, data=b"g(y=y, z=z)\n"),  # e.g. a git blob: sent as bytes
        Candidate("big.py", "", 10**9, "too_large", "1000000000 bytes, over the cap"),
        Candidate("disk.py", str(tmp_path / "disk.py"), 7),
        Candidate("gone.py", str(tmp_path / "gone.py"), 7),
        Candidate("bad.py", "git:4567", 8, data=b"f(x=x\n"),
    ]
    on_dask = run_dask(candidates, scheduler=cluster.scheduler_address)
    assert on_dask == run(candidates, jobs=1)
    assert [e.record.status for e in on_dask] == ["ok", "too_large", "ok", "unreadable", "syntax_error"]
    assert [e.record.punnable for e in on_dask] == [2, 0, 1, 0, 0]


def test_cli_scan_with_the_dask_engine_stores_what_the_local_engine_stores(cluster, tmp_path, capsys):
    root = os.path.join(STDLIB, "email")
    assert cli.main(["scan", root, "-q", "--no-cache", "--engine", "dask", "--scheduler",
                     cluster.scheduler_address, "-o", str(tmp_path / "dask")]) == 0
    assert cli.main(["scan", root, "-q", "--no-cache", "-j", "2", "-o", str(tmp_path / "local")]) == 0
    assert_same_stored_scan(str(tmp_path / "dask"), str(tmp_path / "local"))
    assert "stored in" in capsys.readouterr().out


def test_without_a_scheduler_a_local_cluster_is_started_and_torn_down(tmp_path):
    (tmp_path / "a.py").write_text("f(x=x)\n")
    (tmp_path / "b.py").write_text("def g(self):\n    h(y=self.y, z=z)\n")
    result = punstats.scan(str(tmp_path), engine="dask", jobs=1)
    local = punstats.scan(str(tmp_path), jobs=1)
    assert result.occurrences.equals(local.occurrences) and result.files.equals(local.files)
    assert result.functions.equals(local.functions)


def test_corpus_with_the_dask_engine_shares_one_local_cluster(tmp_path, monkeypatch):
    for name, body in (("one", "f(x=x)\n"), ("two", "g(y=y, z=z)\nclass A(metaclass=metaclass): pass\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "m.py").write_text(body)
    (tmp_path / "c.toml").write_text("[[project]]\npath = 'one'\n[[project]]\npath = 'two'\n")
    started = []
    real = engine.local_cluster

    def counting(jobs=None):
        started.append(jobs)
        return real(jobs)

    monkeypatch.setattr(engine, "local_cluster", counting)
    corpus_file = str(tmp_path / "c.toml")
    assert cli.main(["corpus", corpus_file, "-q", "-j", "1", "--no-cache", "--engine", "dask",
                     "-o", str(tmp_path / "d")]) == 0
    assert started == [1]
    assert cli.main(["corpus", corpus_file, "-q", "-j", "1", "--no-cache", "-o", str(tmp_path / "l")]) == 0
    for name in ("one", "two"):
        assert_same_stored_scan(str(tmp_path / "d" / name), str(tmp_path / "l" / name))


def test_engine_errors_are_one_line_usage_errors(tmp_path, monkeypatch, capsys):
    assert cli.main(["scan", str(tmp_path), "--scheduler", "tcp://127.0.0.1:9", "--no-save"]) == 2
    assert capsys.readouterr().err == "punstats: error: --scheduler needs --engine dask\n"
    with pytest.raises(EngineError, match="cannot connect to the Dask scheduler at tcp://127.0.0.1:9"):
        run_dask([Candidate("a.py", "", 0, data=b"")], scheduler="tcp://127.0.0.1:9", timeout=2)
    with pytest.raises(EngineError, match="unknown engine 'spark'"):
        punstats.scan(str(tmp_path), engine="spark")
    with pytest.raises(EngineError, match="needs the local engine"):
        punstats.scan(str(tmp_path), engine="dask", python=sys.executable)
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    assert cli.main(["scan", str(tmp_path), "--engine", "dask", "--no-save"]) == 2
    assert "needs dask[distributed], which is not installed" in capsys.readouterr().err


def stored_bytes(directory):
    """Each stored table's file, as bytes."""
    return {name: open(os.path.join(directory, name), "rb").read() for name in TABLES}


def test_patterns_are_sent_by_source_and_the_stored_tables_are_the_local_engine_s_bytes(cluster, tmp_path, capsys):
    plugin = tmp_path / "named.py"
    plugin.write_text(NAMED_CALLS)
    root = os.path.join(STDLIB, "email")
    patterns = ["--pattern", str(plugin), "--pattern", "punstats.patterns.return_in_finally"]
    assert cli.main(["scan", root, "-q", "--no-cache", "--engine", "dask", "--scheduler", cluster.scheduler_address,
                     "-o", str(tmp_path / "dask"), *patterns]) == 0
    assert cli.main(["scan", root, "-q", "--no-cache", "-j", "2", "-o", str(tmp_path / "local"), *patterns]) == 0
    assert stored_bytes(tmp_path / "dask") == stored_bytes(tmp_path / "local")
    assert_same_stored_scan(str(tmp_path / "dask"), str(tmp_path / "local"))
    occurrences = pd.read_parquet(tmp_path / "dask" / "occurrences.parquet")
    assert (occurrences["kind"] == "named_calls").sum() > 500 and occurrences["field_name"].notna().any()
    capsys.readouterr()


def shipped_named_calls(tmp_path):
    """The pattern ``NAMED_CALLS`` as ``ship`` sends it, its file then gone: workers load the bytes sent."""
    plugin = tmp_path / "named.py"
    plugin.write_text(NAMED_CALLS)
    shipped = ship(load([str(plugin)]))
    plugin.unlink()
    return shipped


def test_a_worker_loads_the_source_sent_not_the_file(cluster, tmp_path):
    (tmp_path / "a.py").write_text("f(x=x)\nprint(len(y))\n")
    batch = [candidate_fields(c) for c in discover(str(tmp_path)).candidates]
    shipped = shipped_named_calls(tmp_path)
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
        [extraction] = client.submit(engine.dask.extract_shipped, batch, 10**6, shipped, pure=False).result()
    assert extraction.record.status == "ok"
    assert sorted(json.loads(o.fields)["name"] for o in extraction.occurrences if o.kind == "named_calls") == [
        "f", "len", "print"]


def test_source_that_is_not_the_scan_s_is_refused_on_the_workers(cluster, tmp_path, monkeypatch):
    (tmp_path / "a.py").write_text("f(x=x)\n")
    (source, name, digest, path, data), = shipped_named_calls(tmp_path)
    tampered = ((source, name, digest, path, data.replace(b"len(node.func.id)", b"0")),)
    batch = [candidate_fields(c) for c in discover(str(tmp_path)).candidates]
    with distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
        [extraction] = client.submit(engine.dask.extract_shipped, batch, 10**6, tampered, pure=False).result()
    assert extraction.record.status == "pattern_error"
    assert "the source the Dask worker received has sha256 " in extraction.record.error
    assert "not the scan's %s; not loaded" % digest[:12] in extraction.record.error
    monkeypatch.setattr(engine.dask, "ship", lambda kinds: tampered)
    with pytest.raises(EngineError, match=r"^Dask worker tcp://\S+ cannot load the patterns: pattern \S+named.py: "
                                          r"the source the Dask worker received has sha256 "):
        run_dask(discover(str(tmp_path)).candidates, scheduler=cluster.scheduler_address, patterns=load([]))


def test_a_pattern_given_as_a_python_function_is_refused_in_one_line(tmp_path):
    @punstats.pattern("local_calls", per="calls", on=ast.Call)
    def match(node, parents):
        return True

    (tmp_path / "a.py").write_text("f(x=x)\n")
    with pytest.raises(PatternError, match=r"^pattern 'local_calls' cannot be sent to the Dask workers: .*"
                                           r"give it as --pattern FILE.py or module:name$"):
        punstats.scan(str(tmp_path), engine="dask", scheduler="tcp://127.0.0.1:9", patterns=[match])


def test_workers_with_another_extractor_or_python_are_refused():
    class Client:
        def wait_for_workers(self, n, timeout):
            pass

        def run(self, function):
            return {"tcp://w1": engine.dask._worker_identity(), "tcp://w2": (0, "CPython", "3.8.0")}

    with pytest.raises(EngineError, match="Dask worker tcp://w2 runs extractor 0 on CPython 3.8.0; .*would differ"):
        engine.dask.check_workers(Client(), timeout=1)


@pytest.mark.slow  # the whole standard library
def test_whole_standard_library_identical_to_the_local_engine(cluster, tmp_path):
    punstats.scan(engine="dask", scheduler=cluster.scheduler_address).save(str(tmp_path / "dask"))
    punstats.scan(jobs=2).save(str(tmp_path / "local"))
    assert_same_stored_scan(str(tmp_path / "dask"), str(tmp_path / "local"))
