"""``punstats.store.staging.write_atomic``: a file is replaced whole or not at all."""
import os

import pytest

from punstats.store.staging import StoreError, append_synced, write_atomic


def _umask_now():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_write_atomic_replaces_whole_and_leaves_no_temporary_file(tmp_path, monkeypatch):
    target = tmp_path / "t.md"
    target.write_text("old")
    real_replace = os.replace

    def full_disk(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", full_disk)
    with pytest.raises(OSError):
        write_atomic(str(target), b"new")
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["t.md"]
    monkeypatch.setattr(os, "replace", real_replace)
    write_atomic(str(target), b"new")
    assert target.read_bytes() == b"new" and sorted(p.name for p in tmp_path.iterdir()) == ["t.md"]
    assert os.stat(target).st_mode & 0o777 == 0o666 & ~_umask_now()  # as open() makes it, not 0600


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("make, said", [
    (os.mkfifo, "it is a FIFO, not a regular file"),
    (os.mkdir, "it is a directory, not a regular file"),
    (lambda path: os.symlink("/dev/null", path), "it is a character device (through a symbolic link)"),
    (lambda path: (os.mkfifo(path + ".fifo"), os.symlink(path + ".fifo", path)), "it is a FIFO (through a symbolic"),
])
def test_write_atomic_never_opens_what_is_no_regular_file(tmp_path, make, said):
    target = str(tmp_path / "out.md")
    make(target)
    before = sorted(os.listdir(str(tmp_path)))
    with pytest.raises(StoreError) as raised:
        write_atomic(target, b"never written")
    assert str(raised.value).startswith("cannot write %s: " % target) and said in str(raised.value)
    assert str(raised.value).endswith("choose another path")
    assert sorted(os.listdir(str(tmp_path))) == before  # nothing replaced, no temporary file left


def test_write_atomic_replaces_a_link_to_a_file_and_leaves_what_it_led_to(tmp_path):
    (tmp_path / "elsewhere.md").write_text("theirs")
    os.symlink(str(tmp_path / "elsewhere.md"), str(tmp_path / "out.md"))
    os.symlink(str(tmp_path / "missing.md"), str(tmp_path / "dangling.md"))
    write_atomic(str(tmp_path / "out.md"), b"ours")
    write_atomic(str(tmp_path / "dangling.md"), b"ours too")
    assert (tmp_path / "elsewhere.md").read_text() == "theirs" and not (tmp_path / "missing.md").exists()
    assert not os.path.islink(str(tmp_path / "out.md")) and (tmp_path / "out.md").read_text() == "ours"
    assert (tmp_path / "dangling.md").read_text() == "ours too"


def test_write_atomic_replaces_nothing_when_told_not_to_just_before(tmp_path):
    (tmp_path / "t.csv").write_text("old")

    def changed():
        raise RuntimeError("changed meanwhile")
    with pytest.raises(RuntimeError):
        write_atomic(str(tmp_path / "t.csv"), b"new", before_replace=changed)
    assert (tmp_path / "t.csv").read_text() == "old" and os.listdir(str(tmp_path)) == ["t.csv"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_append_synced_adds_to_a_regular_file_only(tmp_path):
    journal = str(tmp_path / "journal.jsonl")
    append_synced(journal, "a\n")
    append_synced(journal, "b\n")
    assert open(journal).read() == "a\nb\n"
    os.mkfifo(str(tmp_path / "fifo"))
    os.symlink(str(tmp_path / "fifo"), str(tmp_path / "to-fifo"))
    os.symlink(journal, str(tmp_path / "to-journal"))
    for name, said in (("fifo", "it is a FIFO"), ("to-fifo", "it is a FIFO (through a symbolic link)"),
                       ("to-journal", "it is a symbolic link")):
        with pytest.raises(StoreError) as raised:
            append_synced(str(tmp_path / name), "c\n")
        assert said in str(raised.value)
    assert open(journal).read() == "a\nb\n"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("argv, name", [
    (["table", "{scan}", "-o", "{out}"], "table.md"),
    (["table", "{scan}", "--format", "csv", "-o", "{out}"], "table.csv"),
    (["report", "{scan}", "--no-figures", "-o", "{out}"], "report.md"),
    (["report", "{scan}", "-o", "{out}"], "report.md"),
    (["plot", "{scan}", "-o", "{dir}"], "src-lengths.png"),
    (["label", "{scan}", "--kind", "call", "-o", "{dir}"], "labels-call.csv"),  # read first: refused there
    (["label", "{scan}", "--kind", "call", "-o", "{dir}"], "labels-call.md"),
])
def test_an_output_file_that_is_a_fifo_is_one_line_never_a_hang(tmp_path, argv, name):
    import subprocess
    import sys
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("f(x=x)\n")
    scan, out_dir = str(tmp_path / "scan"), tmp_path / "out"
    out_dir.mkdir()
    punstats_cli = [sys.executable, "-m", "punstats"]
    subprocess.run(punstats_cli + ["scan", str(tmp_path / "src"), "-o", scan, "-q"], check=True, timeout=120)
    os.mkfifo(str(out_dir / name))
    args = [a.format(scan=scan, out=str(out_dir / name), dir=str(out_dir)) for a in argv]
    done = subprocess.run(punstats_cli + args, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    said = "cannot write %s: it is a FIFO, not a regular file: choose another path" % (out_dir / name)
    if name == "labels-call.csv":
        said = "labels-call.csv is not a labels sheet: it is a FIFO (keep it a regular file)"
    assert done.stderr == "punstats: error: %s\n" % said
    assert not [n for n in os.listdir(str(out_dir)) if n.endswith(".tmp")]
