"""Nothing read or written outside where it should be, nothing silently lost, and clear
words for odd arguments: rewrite --write is atomic and refuses what changed, vanished
or moved behind a link; a scan never reads through a directory swapped after
discovery; reproduce does not follow links out of the root; unexaminable subtrees are
counted; undecodable directory names work; a link named is followed; an unlistable
root, a FIFO or /dev/null are one-line errors; --diff quotes names as git does."""
import errno
import json
import os
import shutil
import signal
import stat
import subprocess

import pytest

import punstats
from punstats import cli, rewrite
from punstats.model.processes import Terminated, terminated_raises
from punstats.rewrite.source import FILE_NOT_WRITTEN

PUNNABLE = "f(alpha=alpha)\ng(beta=beta, c=1)\n"
PUNNED = b"f(alpha=)\ng(beta=, c=1)\n"


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "tree"
    (root / "sub").mkdir(parents=True)
    (root / "a.py").write_text(PUNNABLE)
    (root / "sub" / "b.py").write_text(PUNNABLE)
    (root / "a.py").chmod(0o640)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "b.py").write_text(PUNNABLE)
    return root, outside


def leftovers(root):
    return sorted(p.name for p in root.rglob("*.tmp"))


def test_write_is_atomic_and_keeps_the_mode(tree):
    root, _ = tree
    before = os.stat(str(root / "a.py"))
    results = rewrite.write_back(rewrite.rewrite_tree(str(root), jobs=1))
    assert [r.error for r in results] == ["", ""]
    assert (root / "a.py").read_bytes() == PUNNED and (root / "sub" / "b.py").read_bytes() == PUNNED
    after = os.stat(str(root / "a.py"))
    assert stat.S_IMODE(after.st_mode) == 0o640 and after.st_ino != before.st_ino  # replaced, not rewritten
    assert leftovers(root) == []


def test_write_refuses_a_file_changed_or_vanished_since_it_was_read(tree):
    root, _ = tree
    results = rewrite.rewrite_tree(str(root), jobs=1)
    (root / "a.py").write_text("# edited meanwhile\n" + PUNNABLE)
    (root / "sub" / "b.py").unlink()
    written = rewrite.write_back(results)
    assert [(r.path.rsplit("/", 1)[-1], r.error, r.detail) for r in written] == [
        ("a.py", FILE_NOT_WRITTEN, "changed since it was read: left as it is now"),
        ("b.py", FILE_NOT_WRITTEN, "vanished since it was read: not re-created")]
    assert (root / "a.py").read_text() == "# edited meanwhile\n" + PUNNABLE
    assert not (root / "sub" / "b.py").exists() and leftovers(root) == []
    assert rewrite.summarize(written).changed == 0 and rewrite.summarize(written).untouched == 2


def test_write_goes_through_no_directory_swapped_for_a_link(tree, capsys, monkeypatch):
    root, outside = tree
    results = rewrite.rewrite_tree(str(root), jobs=1)
    os.rename(str(root / "sub"), str(root / "sub-moved"))
    os.symlink(str(outside), str(root / "sub"))  # outside/b.py holds the very bytes that were read
    written = rewrite.write_back(results)
    by_name = {r.path.rsplit("/", 1)[-1]: r for r in written}
    assert by_name["a.py"].error == "" and (root / "a.py").read_bytes() == PUNNED
    assert by_name["b.py"].error == FILE_NOT_WRITTEN
    assert by_name["b.py"].detail.startswith("cannot open its directory: a directory on its path is no longer")
    assert (outside / "b.py").read_text() == PUNNABLE and (root / "sub-moved" / "b.py").read_text() == PUNNABLE
    assert leftovers(outside) == [] and leftovers(root) == []


def test_a_full_disk_leaves_the_source_whole(tree, monkeypatch):
    root, _ = tree
    results = rewrite.rewrite_tree(str(root), jobs=1)
    real_write = os.write
    calls = []

    def full(fd, data):
        calls.append(fd)
        if len(calls) == 1:
            return real_write(fd, bytes(data)[:5])  # a first part goes out, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full)
    written = rewrite.write_back(results)
    monkeypatch.undo()
    assert written[0].error == FILE_NOT_WRITTEN and written[0].detail == "No space left on device"
    assert (root / "a.py").read_text() == PUNNABLE and leftovers(root) == []


def _sigint():
    signal.raise_signal(signal.SIGINT)


def _sigterm():
    signal.raise_signal(signal.SIGTERM)


def _raised():
    raise KeyboardInterrupt


@pytest.mark.parametrize("stop, expected", [(_sigint, KeyboardInterrupt), (_sigterm, Terminated),
                                            (_raised, KeyboardInterrupt)], ids=["sigint", "sigterm", "raised"])
def test_a_stop_between_write_and_rename_leaves_no_temporary_file(tree, monkeypatch, stop, expected):
    """Ctrl-C or SIGTERM after the temporary file was written, before its rename, left
    ``.a.py.punstats-PID.tmp`` beside the source: a signal now waits for the rename, an
    exception raised there removes the file; the source is whole, old or new."""
    import punstats.rewrite.tree as tree_module
    root, _ = tree
    results = rewrite.rewrite_tree(str(root), jobs=1)
    real_give = tree_module.give

    def give_then_stop(fd, kept):
        problem = real_give(fd, kept)
        stop()
        return problem

    monkeypatch.setattr(tree_module, "give", give_then_stop)
    with terminated_raises(), pytest.raises(expected):
        rewrite.write_back(results)
    monkeypatch.undo()
    assert leftovers(root) == []
    assert (root / "a.py").read_bytes() in (PUNNABLE.encode(), PUNNED)
    assert (root / "sub" / "b.py").read_text() == PUNNABLE  # the write stopped there


def test_cli_write_prints_the_refusal_and_the_summary(tree, capsys, monkeypatch):
    root, _ = tree
    monkeypatch.chdir(str(root))
    real = rewrite.tree._unchanged

    def edited_meanwhile(directory, name, old):
        if name == "a.py":
            with open(os.path.join(str(root), "a.py"), "a") as handle:
                handle.write("# saved in an editor\n")
        return real(directory, name, old)

    monkeypatch.setattr(rewrite.tree, "_unchanged", edited_meanwhile)
    assert cli.main(["rewrite", ".", "--write", "-j", "1"]) == 1  # a file not written
    out = capsys.readouterr().out.splitlines()
    assert "untouched  a.py: not_written: changed since it was read: left as it is now" in out
    assert "files      2   changed 1" in out
    assert (root / "a.py").read_text().endswith("# saved in an editor\n")


def test_a_scan_never_reads_through_a_directory_swapped_after_discovery(tree):
    root, outside = tree
    (outside / "b.py").write_text("h(" + ", ".join("k%d=k%d" % (i, i) for i in range(50)) + ")\n")

    def swap(count):
        os.rename(str(root / "sub"), str(root / "sub-moved"))
        os.symlink(str(outside), str(root / "sub"))

    result = punstats.scan(str(root), jobs=1, cache=False, on_discovered=swap)
    files = result.files.set_index("path")
    assert files.loc["sub/b.py", "status"] == "unreadable"
    assert files.loc["sub/b.py", "error"] == ("a directory on its path is no longer a directory "
                                              "(replaced by a link or a file since discovery)")
    assert files.loc["a.py", "status"] == "ok" and result.summary["punnable"] == 2


def test_reproduce_on_a_directory_does_not_follow_links_out_of_the_root(tree, capsys):
    root, outside = tree
    (outside / "many.py").write_text("".join("f(name%d=name%d)\n" % (i, i) for i in range(20)))
    os.symlink(str(outside / "many.py"), str(root / "link.py"))
    os.symlink("a.py", str(root / "inside.py"))  # inside the root: read, as his script did
    assert cli.main(["reproduce", "angelico", str(root), "--json", "--no-cache"]) == 0
    assert json.loads(capsys.readouterr().out)["corrected"]["total"] == 6  # a.py, inside.py, sub/b.py


def test_a_subtree_past_path_max_is_counted_not_dropped(tmp_path):
    root = tmp_path / "deep"
    root.mkdir()
    (root / "top.py").write_text("f(x=x)\n")
    fd = os.open(str(root), os.O_RDONLY)
    try:
        for _ in range(24):  # 24 * 201 bytes: past PATH_MAX (4096), built relative to a descriptor
            os.mkdir("d" * 200, dir_fd=fd)
            step = os.open("d" * 200, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = step
        os.close(os.open("lost.py", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))
    finally:
        os.close(fd)
    result = punstats.scan(str(root), jobs=1, cache=False)
    assert result.summary["skipped_dirs"].get("unreadable") == 1
    assert result.summary["files"] == 1 and result.summary["punnable"] == 1
    shutil.rmtree(str(root), ignore_errors=True)


def test_undecodable_directory_names_in_the_root_path(tmp_path, capsys, monkeypatch):
    base = os.fsencode(str(tmp_path)) + b"/caf\xe9/sub\xff"
    os.makedirs(base)
    with open(base + b"/a.py", "w") as handle:
        handle.write("f(x=x)\n")
    with open(base + b"/b\xfe.py", "w") as handle:
        handle.write("g(y=y)\n")
    root = os.fsdecode(os.fsencode(str(tmp_path)) + b"/caf\xe9")
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    for extra in ([], ["--no-cache"]):
        out = tmp_path / ("out%d" % len(extra))
        assert cli.main(["scan", root, "-q", "-j", "1", "-o", str(out)] + extra) == 0
        summary = json.loads((out / "summary.json").read_text())
        assert summary["punnable"] == 2 and summary["files"] == 2
        assert summary["root"].endswith("/caf\\xe9") and summary["corpus"] == "caf%E9"
    capsys.readouterr()


def test_a_link_named_on_the_command_line_is_followed(tree, capsys):
    root, _ = tree
    os.symlink(str(root / "a.py"), str(root / "link.py"))
    assert cli.main(["scan", str(root / "link.py"), "--no-save", "--json", "-q"]) == 0
    summary, = json.loads(capsys.readouterr().out)  # scan --json: an array of summaries
    assert summary["punnable"] == 2 and summary["failed"] == 0


def test_an_unlistable_root_directory_is_exit_2(tree, capsys, monkeypatch):
    """Root reads any directory, so the refusal is simulated where the listing happens."""
    root, _ = tree
    real = os.scandir

    def refuse(path="."):
        if os.path.abspath(str(path)) == str(root):
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", refuse)
    for command in (["scan", str(root), "--no-save"], ["rewrite", str(root), "--diff"]):
        assert cli.main(command) == 2
        assert capsys.readouterr().err.splitlines() == [
            "punstats: error: cannot list the directory %s: Permission denied" % root]


def test_rewrite_rejects_a_fifo_or_a_device_as_scan_does(tmp_path, capsys):
    fifo = tmp_path / "pipe.py"
    os.mkfifo(str(fifo))
    for target in (str(fifo), os.devnull):
        for command in ("scan", "rewrite"):
            assert cli.main([command, target] + (["--no-save"] if command == "scan" else ["--diff"])) == 2
            assert capsys.readouterr().err.splitlines() == [
                "punstats: error: not a directory or a regular file: %s" % target]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_diff_quotes_names_as_git_does_and_git_apply_takes_the_patch(tmp_path, capsys, monkeypatch):
    names = ["new\nline.py", 'quote"d.py', "back\\slash.py", "caf\u00e9.py", "tab\there.py", "plain.py"]
    work = tmp_path / "work"
    work.mkdir()
    for name in names:
        (work / name).write_text(PUNNABLE)
    monkeypatch.chdir(str(work))
    assert cli.main(["rewrite", ".", "--diff", "-j", "1"]) == 0
    patch = capsys.readouterr().out.encode("utf-8", "surrogateescape")
    assert b'diff --git "a/new\\nline.py" "b/new\\nline.py"\n' in patch
    assert b'--- "a/caf\\303\\251.py"\n' in patch and b"--- a/plain.py\n" in patch
    (tmp_path / "p.diff").write_bytes(patch)
    done = subprocess.run(["git", "apply", "--verbose", str(tmp_path / "p.diff")], cwd=str(work),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert done.returncode == 0, done.stderr
    assert all((work / name).read_bytes() == PUNNED for name in names)


def test_rewrite_records_a_fifo_swapped_in_or_a_file_gone_before_it_is_read(tree):
    root, _ = tree
    os.unlink(str(root / "a.py"))
    os.mkfifo(str(root / "a.py"))  # swapped in after discovery: never opened for a blocking read
    gone = rewrite.tree._rewrite_one((str(root / "gone.py"), "gone.py", "pun", False, 79, "postfix", False))
    fifo = rewrite.tree._rewrite_one((str(root / "a.py"), "a.py", "pun", False, 79, "postfix", False))
    assert (fifo.error, fifo.detail) == (rewrite.FILE_UNREADABLE, "not a regular file (FIFO)")
    assert (gone.error, gone.detail) == (rewrite.FILE_UNREADABLE, "No such file or directory")
    assert not fifo.changed and not gone.changed
