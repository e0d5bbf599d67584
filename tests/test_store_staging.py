"""``punstats.store.staging.write_atomic``: a file is replaced whole or not at all."""
import os

import pytest

from punstats.store.staging import write_atomic


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


def test_write_atomic_writes_into_what_cannot_be_replaced(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        write_atomic(str(fifo), b"through")
        assert os.read(reader, 100) == b"through"
    finally:
        os.close(reader)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]
