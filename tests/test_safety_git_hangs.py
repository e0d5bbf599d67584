"""No git outlives punstats, and none runs for ever.

Every git call has a deadline and ends with its whole process group; a
punstats killed by SIGKILL leaves no git behind.  The command line runs as a
subprocess with a timeout, so a regression fails instead of hanging the suite.
"""
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from gitrepo import commit, git, init

from punstats.sources import git as gitsource
from punstats.sources import gitprocess

pytestmark = pytest.mark.skipif(shutil.which("git") is None or not hasattr(os, "mkfifo"),
                                reason="needs git and FIFOs")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: Seconds a refused repository may take: the refusal comes before git runs at all.
CLI_TIMEOUT = 60


def run_cli(*args, env=None, timeout=CLI_TIMEOUT):
    """(exit status, stderr) of ``python -m punstats ARGS``, its whole group killed past ``timeout``."""
    env = dict(env or os.environ, PYTHONPATH=ROOT)
    proc = subprocess.Popen([sys.executable, "-m", "punstats", *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("punstats %s did not finish within %d s" % (" ".join(args), timeout))
    return proc.returncode, err.decode()


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    repo = tmp_path_factory.mktemp("template") / "repo"
    init(repo)
    commit(repo, {"a.py": "f(x=x)\n"})
    commit(repo, {"b.py": "g(y=y)\n"}, message="second")
    git(repo, "tag", "v1")
    return repo


@pytest.fixture
def repo(template, tmp_path):
    copy = tmp_path / "repo"
    shutil.copytree(template, copy, symlinks=True)
    return copy


def _fifo(path):
    if os.path.lexists(path):
        os.remove(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.mkfifo(path)
    return path


# -- deadlines and process groups, with a git that never answers (a script first on PATH) --

def _fake_git(tmp_path, body):
    """A directory holding a ``git`` that runs ``body`` (sh), to put first on PATH."""
    directory = tmp_path / "fakebin"
    directory.mkdir()
    script = directory / "git"
    script.write_text("#!/bin/sh\n" + textwrap.dedent(body))
    script.chmod(0o755)
    return str(directory)


def _alive(pid):
    """True while ``pid`` runs (a zombie waiting for its parent counts as ended)."""
    try:
        with open("/proc/%d/stat" % pid) as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


def _session(sid):
    """Live processes of session ``sid`` (a git started by punstats leads its own)."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % name) as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[3]) == sid and fields[0] not in ("Z", "X"):
                found.append(int(name))
    return found


def _gone(pids, within=10.0):
    """True once none of ``pids`` runs, waiting at most ``within`` seconds for the kernel to end them."""
    end = time.monotonic() + within
    while any(_alive(pid) for pid in pids):
        if time.monotonic() > end:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def started(monkeypatch):
    """The git processes gitprocess starts, recorded."""
    procs = []
    original = gitprocess.start

    def start(*args, **kwargs):
        procs.append(original(*args, **kwargs))
        return procs[-1]
    monkeypatch.setattr(gitprocess, "start", start)
    return procs


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds processes in /proc")
def test_a_git_call_over_its_deadline_is_killed_with_its_group(repo, tmp_path, monkeypatch, started):
    fake = _fake_git(tmp_path, "sleep 30 &\nsleep 30\n")  # a child in its group, and a wait
    monkeypatch.setenv("PATH", fake + os.pathsep + os.environ["PATH"])
    monkeypatch.setattr(gitprocess, "DEADLINE", 1.0)
    gitdir = gitsource.git_dir(str(repo))
    begun = time.monotonic()
    with pytest.raises(gitsource.GitAborted, match=r"^git rev-parse did not finish within 1 s and was stopped$"):
        gitsource.resolve_commit(gitdir, "HEAD")
    assert time.monotonic() - begun < 10
    assert len(started) == 1 and started[0].returncode == -signal.SIGKILL  # reaped
    # its child keeps git's session id (git led it) after git died: none of it may survive
    assert _gone(_session(started[0].pid)), "a process of git's group survived"
    assert started[0] not in gitprocess._LIVE


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds processes in /proc")
def test_a_blob_reader_that_stops_answering_is_killed_with_its_group(repo, tmp_path, monkeypatch, started):
    fake = _fake_git(tmp_path, "sleep 30 &\nsleep 30\n")
    monkeypatch.setenv("PATH", fake + os.pathsep + os.environ["PATH"])
    monkeypatch.setattr(gitprocess, "READ_DEADLINE", 0.5)
    reader = gitsource.BlobReader(str(repo / ".git"))
    with pytest.raises(gitsource.GitAborted, match=r"^git cat-file did not answer within 0.5 s and was stopped$"):
        reader.read("0" * 40)
    assert started[0].returncode == -signal.SIGKILL
    assert _gone(_session(started[0].pid))
    with pytest.raises(gitsource.GitAborted):  # and it stays stopped
        reader.read("0" * 40)
    reader.close()


def test_an_interrupt_during_a_git_call_kills_its_group(repo, tmp_path, monkeypatch, started):
    fake = _fake_git(tmp_path, "sleep 30\n")
    monkeypatch.setenv("PATH", fake + os.pathsep + os.environ["PATH"])

    def interrupted(self, input=None, timeout=None):
        raise KeyboardInterrupt
    monkeypatch.setattr(subprocess.Popen, "communicate", interrupted)
    with pytest.raises(KeyboardInterrupt):
        gitsource.resolve_commit(str(repo / ".git"), "HEAD")
    assert started[0].returncode == -signal.SIGKILL and started[0] not in gitprocess._LIVE


def test_git_still_running_at_exit_is_killed(repo, tmp_path, monkeypatch, started):
    fake = _fake_git(tmp_path, "sleep 30\n")
    monkeypatch.setenv("PATH", fake + os.pathsep + os.environ["PATH"])
    gitsource.BlobReader(str(repo / ".git"))  # never closed
    assert started[0].returncode is None
    gitprocess._kill_live()  # what atexit runs
    assert started[0].returncode == -signal.SIGKILL and not gitprocess._LIVE


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's parent-death signal is Linux's")
def test_a_killed_punstats_leaves_no_git_behind(repo, tmp_path):
    pidfile = tmp_path / "git.pid"
    fake = _fake_git(tmp_path, "echo $$ > '%s'\nexec sleep 30\n" % pidfile)
    env = dict(os.environ, PATH=fake + os.pathsep + os.environ["PATH"], PYTHONPATH=ROOT)
    proc = subprocess.Popen([sys.executable, "-m", "punstats", "scan", str(repo), "--rev", "HEAD", "-q",
                             "--no-cache", "--no-save"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        end = time.monotonic() + CLI_TIMEOUT
        while not (pidfile.exists() and pidfile.read_text().strip()):  # git has started
            assert proc.poll() is None and time.monotonic() < end, "git never started"
            time.sleep(0.05)
        git_pid = int(pidfile.read_text())
        proc.kill()  # SIGKILL: no clean-up of punstats runs
        proc.wait()
        assert _gone([git_pid]), "git outlived a killed punstats"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if pidfile.exists() and _alive(int(pidfile.read_text())):
            os.kill(int(pidfile.read_text()), signal.SIGKILL)


def test_reading_a_work_trees_commit_from_files_never_blocks(repo, tmp_path):
    """``sources.local.git_head`` (a directory scan's commit, read without git) ignores FIFOs."""
    cases = {}
    for name in ("HEAD", "refs/heads/main", "packed-refs", "commondir"):
        copy = tmp_path / name.replace("/", "-")
        shutil.copytree(repo, copy, symlinks=True)
        _fifo(copy / ".git" / name)
        cases[name] = copy
    dotgit = tmp_path / "dotgit"
    dotgit.mkdir()
    _fifo(dotgit / ".git")
    cases[".git"] = dotgit
    code = ("import sys\nfrom punstats.sources.local import git_head\n"
            "for path in sys.argv[1:]:\n    print(git_head(path))\n")
    done = subprocess.run([sys.executable, "-c", code, *map(str, cases.values())],
                          env=dict(os.environ, PYTHONPATH=ROOT), stdout=subprocess.PIPE, timeout=CLI_TIMEOUT,
                          check=True)
    heads = dict(zip(cases, done.stdout.decode().splitlines()))
    sha = git(repo, "rev-parse", "HEAD")
    assert heads == {"HEAD": "('', '')", "refs/heads/main": "('', '')", ".git": "('', '')",
                     "packed-refs": "('%s', '')" % sha, "commondir": "('%s', '')" % sha}


#: sh ``case`` branches of a git that stalls, and what the user is told
STALLS = {
    "ls-tree": ("*ls-tree*) exec sleep 30 ;;", "git ls-tree did not finish within 1 s and was stopped"),
    # the blob reader (started after ls-tree), not the commit reads before it
    "the blob reader": ('*ls-tree*) touch "$0.listed" ;;\n'
                        '  *"cat-file --batch") [ -e "$0.listed" ] && exec sleep 30 ;;',
                        "git cat-file did not answer within 1 s and was stopped"),
}


@pytest.mark.parametrize("stall", sorted(STALLS))
@pytest.mark.parametrize("command", ["scan", "history"])
def test_git_over_its_deadline_during_a_run_is_a_one_line_error(repo, tmp_path, monkeypatch, capsys, stall, command):
    """A git that stops answering mid-run (a FIFO planted after the check, a slow disk) stops the
    run with one line naming it: no file is recorded as unreadable, nothing is stored.  ``scan
    --no-cache`` reads blobs while discovering, ``history`` (with the cache) while extracting."""
    from punstats import cli
    branch, message = STALLS[stall]
    fake = _fake_git(tmp_path, 'case "$*" in\n  %s\nesac\nexec "%s" "$@"\n' % (branch, shutil.which("git")))
    monkeypatch.setenv("PATH", fake + os.pathsep + os.environ["PATH"])
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(gitprocess, "DEADLINE", 1.0)
    monkeypatch.setattr(gitprocess, "READ_DEADLINE", 1.0)
    out = tmp_path / "out"
    argv = (["scan", str(repo), "--rev", "HEAD", "--no-cache"] if command == "scan" else ["history", str(repo)])
    assert cli.main(argv + ["-q", "-j", "1", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err == "punstats: error: %s\n" % message
    assert not out.exists() or not os.listdir(out)
    assert not gitprocess._LIVE
