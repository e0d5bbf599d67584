"""Progress bars of long commands, under a pseudo-terminal and without one."""
import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios

from gitrepo import commit, init

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FILES = 30


def _env(tmp_path):
    return dict(os.environ, PYTHONPATH=ROOT, PUNSTATS_CACHE_DIR=str(tmp_path / "cache"),
                TQDM_MININTERVAL="0")  # every update is drawn, so the test sees the rate


def _tree(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    for i in range(FILES):
        (src / ("m%02d.py" % i)).write_text("f(x=x, y=%d)\n" % i)
    return src


def _run_on_pty(args, env, cwd):
    """The bytes a terminal receives from the command, stdout and stderr both on it."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))  # a fresh pty has 0 columns
    proc = subprocess.Popen([sys.executable, "-m", "punstats", *args], stdin=slave, stdout=slave,
                            stderr=slave, env=env, cwd=str(cwd), close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            proc.kill()
            raise AssertionError("no output for 60 s")
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    assert proc.wait(60) == 0
    return b"".join(chunks).decode("utf-8", "replace")


def _screen(text):
    """The lines as a terminal shows them: a carriage return goes back to the start of the line."""
    lines = []
    for raw in text.replace("\r\n", "\n").split("\n"):
        line = ""
        for part in raw.split("\r"):
            line = part + line[len(part):]
        lines.append(line.rstrip())
    return lines


def test_scan_on_a_terminal_shows_total_rate_and_eta_then_a_clean_summary(tmp_path):
    out = _run_on_pty(["scan", str(_tree(tmp_path)), "--no-save", "-j", "1"], _env(tmp_path), tmp_path)
    assert "0/%d" % FILES in out and "%d/%d" % (FILES, FILES) in out  # a known total from the start
    assert re.search(r"\d+(\.\d+)?(file/s|s/file)", out)  # a rate
    assert re.search(r"\[\d\d:\d\d<\d\d:\d\d", out)  # elapsed < remaining
    assert "?file/s]corpus" not in out and "file [" not in out  # never the count without a total
    screen = _screen(out)
    first = next(i for i, line in enumerate(screen) if line.startswith("corpus"))
    assert screen[first].split()[:2] == ["corpus", "src"]
    assert not any("file/s" in line for line in screen)  # the bar's line was cleared


def test_no_bar_when_stderr_is_not_a_terminal(tmp_path):
    done = subprocess.run([sys.executable, "-m", "punstats", "scan", str(_tree(tmp_path)), "--no-save", "-j", "1"],
                          env=_env(tmp_path), cwd=str(tmp_path), capture_output=True, text=True)
    assert done.returncode == 0
    assert done.stderr == ""
    assert done.stdout.startswith("corpus")


def test_quiet_shows_nothing_on_a_terminal(tmp_path):
    out = _run_on_pty(["scan", str(_tree(tmp_path)), "--no-save", "-j", "1", "-q"], _env(tmp_path), tmp_path)
    assert "file/s" not in out and out.lstrip().startswith("corpus")


def test_rewrite_has_a_bar(tmp_path):
    out = _run_on_pty(["rewrite", str(_tree(tmp_path)), "-j", "1"], _env(tmp_path), tmp_path)
    assert "%d/%d" % (FILES, FILES) in out and "file/s" in out
    screen = [line for line in _screen(out) if line]
    assert screen[0].startswith("files") and not any("file/s" in line for line in screen)


def test_history_counts_revisions(tmp_path):
    repo = tmp_path / "repo"
    init(repo)
    for month in range(1, 4):
        commit(repo, {"m%d.py" % month: "f(x=x)\n"}, date="2023-%02d-01T12:00:00+00:00" % month)
    out = _run_on_pty(["history", str(repo), "--every", "commit", "-o", str(tmp_path / "h"), "-j", "1"],
                      _env(tmp_path), tmp_path)
    assert "3/3" in out and "revision/s" in out and "file/s" not in out
    screen = [line for line in _screen(out) if line]
    assert screen[0].split()[:2] == ["commit", "date"]
