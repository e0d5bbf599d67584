"""Nothing in a repository makes git hang or read without end, and no git outlives punstats.

A FIFO or a device where git would open a file, anywhere it would look (the
git directory, the common directory, alternates, included configuration), is
a one-line error naming it before any git runs; every git call has a deadline
and ends with its whole process group; a punstats killed by SIGKILL leaves no
git behind.  The command line runs as a subprocess with a timeout, so a
regression fails instead of hanging the suite.
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pytest
from gitrepo import commit, git, init

import punstats
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


def _link(path, target):
    if os.path.lexists(path):
        os.remove(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.symlink(target, path)
    return path


def _append(path, text):
    with open(path, "a") as handle:
        handle.write(text)


def _alternate_with_fifo(repo, tmp_path):
    other = tmp_path / "other.git"
    _fifo(other / "objects" / "pack" / "pack-1.idx")
    (repo / ".git" / "objects" / "info" / "alternates").write_text("# shared\n%s\n" % (other / "objects"))
    return other / "objects" / "pack" / "pack-1.idx"


def _nested_alternate(repo, tmp_path):
    first, second = tmp_path / "first", tmp_path / "second"
    (first / "info").mkdir(parents=True)
    (first / "info" / "alternates").write_text("../second\n")  # relative to the alternate's directory
    _fifo(second / "ab" / ("c" * 38))
    (repo / ".git" / "objects" / "info" / "alternates").write_text(str(first) + "\n")
    return second / "ab" / ("c" * 38)


def _include(repo, tmp_path, target, section="include"):
    _append(repo / ".git" / "config", "[%s]\n\tpath = %s\n" % (section, target))
    return target


def _nested_include(repo, tmp_path):
    middle = tmp_path / "middle.cfg"
    middle.write_text("[user]\n\tname = x\n[include]\n\tpath = inner.fifo\n")  # relative to middle.cfg
    _fifo(tmp_path / "inner.fifo")
    _include(repo, tmp_path, str(middle))
    return tmp_path / "inner.fifo"


def _worktree(repo, tmp_path):
    git(repo, "worktree", "add", "-q", str(tmp_path / "wt"), "-b", "side")
    return _fifo(repo / ".git" / "worktrees" / "wt" / "HEAD")


def _huge_config(repo, tmp_path):
    with open(repo / ".git" / "config", "ab") as handle:
        handle.truncate(1 << 25)  # sparse: no disk used
    return repo / ".git" / "config"


#: name -> plant(repo, tmp_path) -> the path the error names (or what it says)
PLACES = {
    "config": lambda r, t: _fifo(r / ".git" / "config"),
    "packed-refs": lambda r, t: _fifo(r / ".git" / "packed-refs"),
    "HEAD": lambda r, t: _fifo(r / ".git" / "HEAD"),
    "the branch ref": lambda r, t: _fifo(r / ".git" / "refs" / "heads" / "main"),
    "a tag ref": lambda r, t: _fifo(r / ".git" / "refs" / "tags" / "v1"),
    "a ref linked to /dev/zero": lambda r, t: _link(r / ".git" / "refs" / "heads" / "z", "/dev/zero"),
    "FETCH_HEAD": lambda r, t: _fifo(r / ".git" / "FETCH_HEAD"),
    "index": lambda r, t: _fifo(r / ".git" / "index"),
    "shallow": lambda r, t: _fifo(r / ".git" / "shallow"),
    "info/grafts": lambda r, t: _fifo(r / ".git" / "info" / "grafts"),
    "commondir": lambda r, t: _fifo(r / ".git" / "commondir"),
    "commondir naming /dev/zero": lambda r, t: (
        (r / ".git" / "commondir").write_text("/dev/zero\n"), "/dev/zero")[1],
    "config.worktree": lambda r, t: _fifo(r / ".git" / "config.worktree"),
    "alternates": lambda r, t: _fifo(r / ".git" / "objects" / "info" / "alternates"),
    "alternates linked to /dev/zero": lambda r, t: _link(r / ".git" / "objects" / "info" / "alternates",
                                                         "/dev/zero"),
    "alternates naming /dev/zero": lambda r, t: (
        (r / ".git" / "objects" / "info" / "alternates").write_text("/dev/zero\n"), "/dev/zero")[1],
    "a file of an alternate": _alternate_with_fifo,
    "an alternate's alternate": _nested_alternate,
    "http-alternates": lambda r, t: _fifo(r / ".git" / "objects" / "info" / "http-alternates"),
    "a loose object": lambda r, t: _fifo(r / ".git" / "objects" / "ab" / ("d" * 38)),
    "a pack index": lambda r, t: _fifo(r / ".git" / "objects" / "pack" / ("pack-%s.idx" % ("e" * 40))),
    "a commit-graph": lambda r, t: _fifo(r / ".git" / "objects" / "info" / "commit-graph"),
    "include.path": lambda r, t: _include(r, t, _fifo(t / "included.fifo")),
    "includeIf naming /dev/zero": lambda r, t: _include(r, t, "/dev/zero", 'includeIf "gitdir:/"'),
    "a nested include": _nested_include,
    "a worktree's HEAD": _worktree,
    "a huge sparse config": _huge_config,
    ".git linked to a FIFO": lambda r, t: (shutil.rmtree(r / ".git"), _link(r / ".git", _fifo(t / "g.fifo")))[1],
    ".git naming /dev/zero": lambda r, t: (shutil.rmtree(r / ".git"),
                                           (r / ".git").write_text("gitdir: /dev/zero\n"), "/dev/zero")[2],
}


@pytest.mark.parametrize("place", sorted(PLACES))
def test_a_fifo_or_device_in_the_repository_is_a_one_line_error_before_git_runs(repo, tmp_path, place):
    named = str(PLACES[place](repo, tmp_path))
    for args in (("scan", str(repo), "--rev", "HEAD", "-q", "--no-cache", "--no-save"),
                 ("history", str(repo), "-q", "--no-cache", "-o", str(tmp_path / "history"))):
        status, err = run_cli(*args)
        assert status == 2, err
        assert err.startswith("punstats: error: cannot read the repository: ") and err.count("\n") == 1, err
        assert named in err, err
        assert not (tmp_path / "history").exists()


def test_a_git_file_url_to_such_a_repository_is_refused_before_cloning(repo, tmp_path):
    _fifo(repo / ".git" / "packed-refs")
    env = dict(os.environ, PUNSTATS_CACHE_DIR=str(tmp_path / "cache"))
    status, err = run_cli("scan", "git+file://%s@HEAD" % repo, "-q", "--no-save", env=env)
    assert status == 2 and err.count("\n") == 1, err
    assert err.startswith("punstats: error: cannot clone file://") and "packed-refs is a FIFO" in err, err
    clones = tmp_path / "cache" / "repos"
    assert not clones.exists() or not os.listdir(clones)


def test_reproduce_refuses_such_a_repository(repo, tmp_path):
    _fifo(repo / ".git" / "config")
    status, err = run_cli("reproduce", "rewrite", str(repo))
    assert status == 2 and err.count("\n") == 1 and "config is a FIFO" in err, err


def test_what_git_opens_safely_stays_allowed(repo, tmp_path, monkeypatch):
    """An include of a regular file, a missing include, an alternate that is a directory, a
    socket in ``.git`` (an fsmonitor daemon's: git's open fails on it at once) and a packed
    repository: read as before."""
    (tmp_path / "extra.cfg").write_text("[user]\n\tname = x\n")
    _include(repo, tmp_path, str(tmp_path / "extra.cfg"))
    _include(repo, tmp_path, str(tmp_path / "missing.cfg"))
    other = tmp_path / "other"
    init(other)
    (repo / ".git" / "objects" / "info" / "alternates").write_text(str(other / ".git" / "objects") + "\n")
    git(repo, "gc", "-q")
    monkeypatch.chdir(repo / ".git")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind("fsmonitor--daemon.ipc")
        result = punstats.scan(str(repo), rev="HEAD", jobs=1, cache=False)
    assert result.summary["punnable"] == 2


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
