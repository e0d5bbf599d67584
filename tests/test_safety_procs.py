"""The processes punstats starts die with it, even by ``kill -9``: the scan's and the
rewrite's pool workers (which would otherwise hold the output pipe open) and the
interpreters of ``--python``.  (Modes kept by ``rewrite --write``, and the exit
status of rewrite and expand: test_safety_modes.py.)"""
import os
import select
import signal
import subprocess
import sys
import time

import pytest

import punstats

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's parent-death signal")

#: Where this punstats is imported from, for the command run in a child process.
HERE = os.path.dirname(os.path.dirname(os.path.abspath(punstats.__file__)))

#: Seconds a command has to start its workers, and its workers to end after it.
DEADLINE = 20.0

#: A punstats command line whose pool workers never finish a task, so that it is
#: still running when killed (the forked workers inherit the patched functions).
HANGING = """
import sys, time
from punstats.engines import local
from punstats.rewrite import tree
def hang(*args, **kwargs):
    time.sleep(3600)
local.extract_candidate = hang
tree.read_source = hang
from punstats.cli import main
sys.exit(main(sys.argv[1:]))
"""


def children(pid):
    """The pids whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:  # ended meanwhile
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def alive(pid):
    """Whether ``pid`` still runs (a zombie waiting for its new parent to reap it does not)."""
    try:
        with open("/proc/%d/stat" % pid) as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def until(condition, deadline=DEADLINE):
    """Poll ``condition`` until it is true or ``deadline`` seconds have passed; its last value."""
    end = time.monotonic() + deadline
    while True:
        value = condition()
        if value or time.monotonic() > end:
            return value
        time.sleep(0.02)


def eof_within(fd, deadline):
    """Whether reading ``fd`` comes to its end within ``deadline`` seconds (the data is dropped)."""
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], max(0.0, end - time.monotonic()))
        if ready and not os.read(fd, 1 << 16):
            return True
    return False


def kill_mid_run(argv, workers, cwd, program=HANGING):
    """Run punstats ``argv`` with its standard output a pipe (``punstats ... | cat``), wait for
    ``workers`` children, kill it with SIGKILL; (its children, those still alive after
    the deadline, whether the pipe came to its end)."""
    env = dict(os.environ, PYTHONPATH=HERE)
    with open(os.path.join(cwd, "stderr.txt"), "wb") as err:
        proc = subprocess.Popen([sys.executable, "-c", program] + argv, stdout=subprocess.PIPE,
                                stderr=err, cwd=cwd, env=env)
    found = []
    try:
        found = until(lambda: len(children(proc.pid)) >= workers and children(proc.pid))
        assert len(found) >= workers, "no workers: %s" % open(os.path.join(cwd, "stderr.txt")).read()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        until(lambda: not any(alive(pid) for pid in found), 5.0)
        return found, [pid for pid in found if alive(pid)], eof_within(proc.stdout.fileno(), 5.0)
    finally:
        for pid in found:  # before the fix they would sleep on: end them here, by pid
            if alive(pid):
                os.kill(pid, signal.SIGKILL)
        proc.kill()
        proc.wait()
        proc.stdout.close()


@pytest.fixture
def big(tmp_path):
    """A tree large enough for a pool of workers (scan: 64 files; rewrite: 2)."""
    root = tmp_path / "big"
    root.mkdir()
    for i in range(100):
        (root / ("m%03d.py" % i)).write_text("f(x%d=x%d)\n" % (i, i))
    return root


def test_scan_killed_leaves_no_worker_holding_its_output(big, tmp_path):
    found, left, eof = kill_mid_run(["scan", str(big), "-j", "2", "-q", "--no-cache", "-o",
                                     str(tmp_path / "out")], 2, str(tmp_path))
    assert len(found) == 2 and left == [] and eof


def test_rewrite_write_killed_leaves_no_worker_holding_its_output(big, tmp_path):
    found, left, eof = kill_mid_run(["rewrite", str(big), "--write", "-j", "2", "-q"], 2, str(tmp_path))
    assert len(found) == 2 and left == [] and eof
    assert (big / "m000.py").read_text() == "f(x0=x0)\n"  # nothing was written


def test_an_interpreter_worker_dies_with_the_scan(tmp_path):
    """A --python that answers the hello, then never answers work (and never reads its input)."""
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\nread line\n"
                      "echo '{\"python\": \"3.11.0\", \"implementation\": \"CPython\", \"extractor_version\": 1}'\n"
                      "exec sleep 3600\n")
    python.chmod(0o755)
    (tmp_path / "a.py").write_text("f(x=x)\n")
    argv = ["scan", str(tmp_path / "a.py"), "--python", str(python), "-j", "2", "-q", "--no-cache", "--no-save"]
    found, left, _ = kill_mid_run(argv, 2, str(tmp_path), program="import sys\nfrom punstats.cli import main\n"
                                  "sys.exit(main(sys.argv[1:]))\n")
    assert len(found) == 2 and left == []


@pytest.mark.slow
def test_a_local_dask_cluster_dies_with_the_scan(tmp_path):
    """Dask's own guarantee (each worker process watches a pipe from its nanny, in this
    process), checked: its workers and multiprocessing's resource tracker end too."""
    pytest.importorskip("distributed")
    program = ("import sys, time\nfrom punstats.engines.dask import local_cluster\n"
               "if __name__ == '__main__':\n"
               "    with local_cluster(2):\n"
               "        time.sleep(3600)\n")
    found, left, eof = kill_mid_run([], 3, str(tmp_path), program=program)  # the tracker and 2 workers
    assert len(found) == 3 and left == [] and eof
