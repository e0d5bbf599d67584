"""Engines never lose a run: a killed pool worker (its batch retried once alone, then
its files recorded as worker_died), a bounded -j, an interpreter for --python that
is not one or never answers, a Dask scheduler address that is bad (one-line errors
within the timeout)."""
import os
import signal
import socket
import subprocess
import sys
import threading
import time

import pytest

import punstats
from punstats import cli
from punstats.engines import interp, local
from punstats.model.statuses import WORKER_DIED


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "tree"
    root.mkdir()
    for i in range(80):
        (root / ("m%02d.py" % i)).write_text("f(x%d=x%d)\n" % (i, i))
    # over BATCH_BYTES, so alone in its batch
    (root / "killer.py").write_text("g(y=y)\n" + "# padding\n" * 60000)
    return root


def kill_on(marker):
    """A per-file extraction that kills its worker at killer.py (once, if ``marker``)."""
    real = local.extract_candidate

    def candidate(candidate, max_bytes, patterns=(), timeout=None):
        if candidate.path == "killer.py":
            if marker is None or not os.path.exists(marker):
                if marker is not None:
                    open(marker, "w").close()
                os.kill(os.getpid(), signal.SIGKILL)
        return real(candidate, max_bytes, patterns, timeout)
    return candidate  # the forked workers call it where the real one was


def test_a_worker_killed_once_is_retried_and_nothing_is_lost(tree, tmp_path, monkeypatch):
    monkeypatch.setattr(local, "extract_candidate", kill_on(str(tmp_path / "killed-once")))
    result = punstats.scan(str(tree), jobs=2, cache=False)
    assert (tmp_path / "killed-once").exists()
    assert set(result.files["status"]) == {"ok"}
    assert result.summary["punnable"] == 81 and result.summary["files"] == 81


def test_a_batch_that_kills_its_worker_twice_is_recorded(tree, tmp_path, monkeypatch):
    monkeypatch.setattr(local, "extract_candidate", kill_on(None))
    cache = str(tmp_path / "cache.sqlite3")
    result = punstats.scan(str(tree), jobs=2, cache=cache)
    files = result.files.set_index("path")
    assert files.loc["killer.py", "status"] == WORKER_DIED
    assert files.loc["killer.py", "error"] == local.WORKER_DIED_REASON
    assert (files.drop("killer.py")["status"] == "ok").all()
    assert result.summary["punnable"] == 80 and result.summary["files"] == 81
    assert result.summary["cache"]["unread"] == 1  # so the whole tables are not kept either
    monkeypatch.undo()  # the death is not remembered: the next scan of the same tree extracts the file
    again = punstats.scan(str(tree), jobs=2, cache=cache)
    assert dict(zip(again.files["path"], again.files["status"]))["killer.py"] == "ok"
    assert again.summary["punnable"] == 81
    assert (again.summary["cache"]["cached"], again.summary["cache"]["extracted"]) == (80, 1)


def test_jobs_are_bounded(tree, capsys):
    too_many = local.MAX_JOBS + 1
    assert cli.main(["scan", str(tree), "--no-save", "-j", str(too_many)]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "punstats: error: argument -j/--jobs: at most %d worker processes (four per core, at least 8: "
        "more processes than cores only cost memory and start-up), not %d" % (local.MAX_JOBS, too_many)]
    for command in (["rewrite", str(tree), "--diff"], ["corpus", "x.toml"], ["history", str(tree)]):
        assert cli.main(command + ["-j", "100000"]) == 2
        assert "at most %d worker processes" % local.MAX_JOBS in capsys.readouterr().err


def _script(tmp_path, name, body):
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return str(path)


@pytest.mark.parametrize("body, message", [
    ("echo garbage\n", "{p} is not a Python that can run punstats' worker: it answered 'garbage\\n'"),
    ("cat\n", "{p} is not a Python that can run punstats' worker: it answered '{{\"op\": \"hello\"}}\\n'"),
    ("exec yes\n", "{p} is not a Python that can run punstats' worker: it answered 'y\\n'"),
    ("exit 3\n", "{p} could not run the worker"),
    ("echo '  File \"worker.py\", line 40' >&2; echo 'SyntaxError: invalid syntax' >&2; exit 1\n",
     "{p} could not run the worker: SyntaxError: invalid syntax (punstats' worker needs Python 3.8 or later)"),
    ("read line; echo '{{\"python\": \"3.7.9\", \"implementation\": \"CPython\", \"extractor_version\": 1}}'\n"
     "sleep 30\n", "{p} is Python 3.7.9; punstats' worker needs 3.8 or later"),
    ("sleep 30\n", "{p} did not answer within 2 s: not a Python that can run punstats' worker"),
])
def test_an_interpreter_that_cannot_run_the_worker_is_one_line_and_exit_2(tmp_path, capsys, monkeypatch,
                                                                          body, message):
    monkeypatch.setattr(interp, "HELLO_TIMEOUT", 2.0)
    python = _script(tmp_path, "python", body.format())
    (tmp_path / "a.py").write_text("f(x=x)\n")
    start = time.monotonic()
    assert cli.main(["scan", str(tmp_path / "a.py"), "--no-save", "-q", "--python", python]) == 2
    assert time.monotonic() - start < 10
    assert capsys.readouterr().err.splitlines() == ["punstats: error: " + message.format(p=python)]
    assert cli.main(["reproduce", "angelico", str(tmp_path), "--python", python, "--no-cache"]) == 2
    assert capsys.readouterr().err.splitlines() == ["punstats: error: " + message.format(p=python)]


@pytest.fixture
def fake_scheduler():
    """An address on 127.0.0.1 that accepts and then says ``banner`` (or nothing) and never more."""
    servers = []

    def start(banner):
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        servers.append(server)
        held = []

        def serve():
            while True:
                try:
                    conn, _ = server.accept()
                except OSError:
                    return
                held.append(conn)
                if banner:
                    conn.sendall(banner)
        threading.Thread(target=serve, daemon=True).start()
        return "tcp://127.0.0.1:%d" % server.getsockname()[1]
    yield start
    for server in servers:
        server.close()


@pytest.mark.parametrize("banner, message", [
    (None, "the Dask scheduler at {a} did not answer within 2 s"),
    (b"SSH-2.0-OpenSSH_8.9p1 Ubuntu-3ubuntu0.10\r\n",
     "{a} is not a Dask scheduler: it answered what Dask cannot read (MemoryError: Unable to allocate"),
    ("tcp://:::", "bad Dask scheduler address 'tcp://:::': invalid address ':::'"),
    ("tcp://127.0.0.1:notaport", "bad Dask scheduler address 'tcp://127.0.0.1:notaport': "),
    ("nonsense", "bad Dask scheduler address 'nonsense': missing port number in address 'nonsense'"),
])
def test_a_bad_scheduler_address_is_one_line_within_the_timeout(tmp_path, capsys, monkeypatch, fake_scheduler,
                                                                 banner, message):
    pytest.importorskip("distributed")
    from punstats.engines import dask as dask_engine
    monkeypatch.setattr(dask_engine, "CONNECT_TIMEOUT", 2.0)
    address = banner if isinstance(banner, str) else fake_scheduler(banner)
    (tmp_path / "a.py").write_text("f(x=x)\n")
    start = time.monotonic()
    assert cli.main(["scan", str(tmp_path), "--no-save", "-q", "--engine", "dask", "--scheduler", address]) == 2
    assert time.monotonic() - start < 10
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("punstats: error: " + message.format(a=address)), err


def test_the_process_exits_at_once_after_a_bad_address():
    pytest.importorskip("distributed")
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "punstats", "scan", "--no-save", "-q", "--engine", "dask",
                           "--scheduler", "tcp://:::"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=120, env=dict(os.environ, PYTHONPATH=os.getcwd()))
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1
    assert time.monotonic() - start < 30  # no minute-long wait for a client that never was


def test_a_bad_scheduler_is_an_error_even_when_the_cache_leaves_no_work(tmp_path, capsys, monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "a.py").write_text("f(x=x)\n")
    assert cli.main(["scan", str(tmp_path), "--no-save", "-q"]) == 0  # every file now in the cache
    capsys.readouterr()
    assert cli.main(["scan", str(tmp_path), "--no-save", "-q", "--engine", "dask", "--scheduler", "nonsense"]) == 2
    assert capsys.readouterr().err.startswith("punstats: error: bad Dask scheduler address 'nonsense'")
