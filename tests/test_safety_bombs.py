"""Decompression bombs, by bytes and by time: every archive is read through a cap on the bytes its
decompressor yields (members written, members refused and skipped, the end-of-archive check)
and a deadline; over either, the archive is one error for its source and nothing is left.

The bombs are built here, small: tens of MB of zeros, with the cap monkeypatched to 1 MiB and
the deadline to a fraction of a second (with a decompressor slowed down).
"""
import bz2
import gzip
import io
import json
import os
import random
import struct
import tarfile
import time
import zipfile
import zlib

import pytest
from fakeindex import sdist, top_list
from test_safety_archives import tar_bytes

from punstats import cli
from punstats.model.corpus import SourceError
from punstats.sources import archives, bounded, pypi, tarstream
from punstats.sources.archives import Limits, unpack
from punstats.sources.trees import unpack_cached

MiB = 1 << 20
CAP = MiB  # the decompressed-bytes cap of these tests
BOMB = 20 * MiB  # the zeros a bomb decompresses to


class Zeros:
    """``size`` zero bytes as a file, never all in memory."""

    def __init__(self, size):
        self.left = size

    def read(self, n=-1):
        n = self.left if n < 0 else min(n, self.left)
        self.left -= n
        return bytes(n)


def bomb_tar(path, mode="w:bz2", zeros=BOMB, top="bomb-1.0"):
    """A tar: a small file, ``zeros`` zero bytes as one member, another small file."""
    with tarfile.open(str(path), mode) as tar:
        for name, size, data in ((top + "/a.py", None, b"f(x=x)\n"), (top + "/zeros.bin", zeros, None),
                                 (top + "/z.py", None, b"g(y=y)\n")):
            info = tarfile.TarInfo(name)
            info.size = len(data) if data is not None else size
            tar.addfile(info, io.BytesIO(data) if data is not None else Zeros(size))
    assert os.path.getsize(str(path)) < 100_000
    return str(path)


@pytest.fixture
def small_cap(monkeypatch):
    monkeypatch.setattr(bounded, "MAX_DECOMPRESSED_BYTES", CAP)


@pytest.fixture
def spy(monkeypatch):
    """Counts what every bz2 and zlib decompressor yields (the real work, whoever reads it)."""
    seen = {"bytes": 0, "calls": 0, "delay": 0.0}

    def counting(factory):
        class Counting:
            def __init__(self, *args, **kwargs):
                self.inner = factory(*args, **kwargs)

            def decompress(self, data, *args):
                out = self.inner.decompress(data, *args)
                seen["bytes"] += len(out)
                seen["calls"] += 1
                if seen["delay"]:
                    time.sleep(seen["delay"])
                return out

            def __getattr__(self, name):
                return getattr(self.inner, name)
        return Counting

    monkeypatch.setattr(bz2, "BZ2Decompressor", counting(bz2.BZ2Decompressor))
    monkeypatch.setattr(zlib, "decompressobj", counting(zlib.decompressobj))
    return seen


def nothing_left(root):
    """No tree, no partial tree, no partial file under ``root``."""
    left = [p for p in root.rglob("*") if p.name.startswith((".partial-", "tree-", ".wheel-"))]
    assert left == []
    assert [p for p in root.rglob("*.bin")] == []


# -- tar: written, skipped, after the end ----------------------------------------------------------

@pytest.mark.parametrize("mode, name", [("w:bz2", "bomb-1.0.tar.bz2"), ("w:gz", "bomb-1.0.tar.gz"),
                                        ("w:xz", "bomb-1.0.tar.xz"), ("w:gz", "bomb-1.0.tgz")])
def test_scan_of_a_tar_bomb_is_one_line_and_leaves_nothing(tmp_path, monkeypatch, capsys, small_cap, spy,
                                                           mode, name):
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    path = bomb_tar(tmp_path / name, mode)
    assert cli.main(["scan", path, "-o", str(tmp_path / "out"), "-q", "--no-cache"]) == 2
    err = capsys.readouterr().err
    assert err == "punstats: error: cannot read %s: decompressed data over the limit of %d bytes\n" % (name, CAP)
    assert spy["bytes"] <= CAP + 2 * bounded.CHUNK  # stopped at the cap, not at the end of the bomb
    assert not (tmp_path / "out").exists()
    nothing_left(tmp_path / "cache")


def test_a_refused_member_is_skipped_within_the_cap(tmp_path, spy):
    """A member refused as too large is still decompressed to skip it: that counts too."""
    path = bomb_tar(tmp_path / "p-1.0.tar.bz2")
    limits = Limits(max_member_bytes=1000, max_decompressed_bytes=CAP)
    with pytest.raises(SourceError, match=r"^cannot read p-1.0.tar.bz2: decompressed data over the limit "
                                          r"of 1048576 bytes$"):
        unpack_cached(path, "0" * 64, str(tmp_path / "cache"), limits)
    assert spy["bytes"] <= CAP + 2 * bounded.CHUNK
    nothing_left(tmp_path / "cache")
    assert [p.name for p in (tmp_path / "cache" / ("0" * 64)).iterdir()] == []


@pytest.mark.parametrize("trailer", [
    lambda: gzip.compress(bytes(BOMB)),  # zeros after the end-of-archive marker, in the same stream
    lambda: b"".join(gzip.compress(bytes(MiB // 4)) for _ in range(80)),  # many gzip members after it
])
def test_the_end_of_archive_check_counts(tmp_path, small_cap, spy, trailer):
    raw = tar_bytes([("p/a.py", b"f(x=x)\n")])
    path = tmp_path / "p-1.0.tar.gz"
    path.write_bytes(gzip.compress(raw) + trailer())
    with pytest.raises(SourceError, match="decompressed data over the limit of 1048576 bytes$"):
        unpack(str(path), str(tmp_path / "out"))
    assert spy["bytes"] <= CAP + 2 * bounded.CHUNK
    assert not (tmp_path / "out").exists()


def test_a_slow_bomb_ends_at_the_deadline(tmp_path, monkeypatch, capsys, spy):
    """bz2 is slow per byte: a decompressor made slower still is stopped by the deadline, not the cap."""
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(bounded, "MAX_UNPACK_SECONDS", 0.3)
    path = bomb_tar(tmp_path / "slow-1.0.tar.bz2")
    spy["delay"] = 0.05  # each call yields at most 1 MiB: the whole bomb would be 20 calls, 1 s and more
    assert cli.main(["scan", path, "-o", str(tmp_path / "out"), "-q", "--no-cache"]) == 2
    assert capsys.readouterr().err == ("punstats: error: cannot read slow-1.0.tar.bz2: unpacking took over "
                                       "the limit of 0.3 seconds\n")
    assert spy["calls"] <= 0.3 / 0.05 + 2 and spy["bytes"] < BOMB / 2
    nothing_left(tmp_path / "cache")


def test_a_sound_archive_is_decompressed_once(tmp_path, spy):
    """The end-of-archive check steps back one block: served from what was read, not decompressed again."""
    raw = tar_bytes([("p/a.py", b"f(x=x)\n"), ("p/b.py", b"#" * 3 * MiB), ("p/c.py", b"g(y=y)\n")])
    path = tmp_path / "p-1.0.tar.gz"
    path.write_bytes(gzip.compress(raw))
    result = unpack(str(path), str(tmp_path / "out"))
    assert (result.files, result.refused) == (3, ())
    assert spy["bytes"] == len(raw)


def test_many_empty_gzip_members_end_at_the_deadline(tmp_path, monkeypatch):
    """Members that decompress to nothing yield no bytes to count: the deadline is checked as the
    compressed file is read (here by a clock that advances one second a check)."""
    ticks = iter(range(10**9))
    monkeypatch.setattr(bounded, "now", lambda: float(next(ticks)))
    monkeypatch.setattr(bounded, "MAX_UNPACK_SECONDS", 20.0)
    path = tmp_path / "e-1.0.tar.gz"
    path.write_bytes(gzip.compress(tar_bytes([("p/a.py", b"f(x=x)\n")])) + gzip.compress(b"") * 200_000)
    with pytest.raises(SourceError, match=r"^cannot read e-1.0.tar.gz: unpacking took over the limit of 20 "
                                          r"seconds$"):
        unpack(str(path), str(tmp_path / "out"))
    assert next(ticks) < 40  # about one check per 128 KiB of the 4 MB: stopped before the end


def test_the_bounded_reader_reads_and_seeks_as_a_file(monkeypatch):
    """Reads and seeks, forward, back a little (from what was read) and back a lot (the decompression
    starts again), give the bytes a file gives; every byte the decompressor yields is counted."""
    monkeypatch.setattr(bounded, "TAIL", 1000)
    data = bytes(random.Random(5).getrandbits(8) for _ in range(300_000))
    budget = bounded.Budget(10**9, 60)
    reader = bounded.BoundedReader(gzip.GzipFile(fileobj=io.BytesIO(gzip.compress(data))), budget)
    plain = io.BytesIO(data)
    steps = random.Random(7)
    for _ in range(300):
        if steps.random() < 0.5:
            size = steps.choice([0, 1, 511, 512, 4000, 70_000])
            assert reader.read(size) == plain.read(size)
        else:
            target = min(len(data), max(0, plain.tell() + steps.choice([-5000, -999, -512, -1, 0, 1, 512, 3000])))
            assert reader.seek(target) == plain.seek(target)
        assert reader.tell() == plain.tell()
    assert reader.read() == plain.read()
    assert budget.used >= len(data)


def _sparse_10(map_text):
    """A pax header for a GNU sparse 1.0 member whose data begins with ``map_text`` (the sparse map)."""
    info = tarfile.TarInfo("p/GNUSparseFile.0/s.py")
    info.size = len(map_text)
    info.pax_headers = {"GNU.sparse.major": "1", "GNU.sparse.minor": "0", "GNU.sparse.name": "p/s.py",
                        "GNU.sparse.realsize": "10"}
    return info.tobuf(tarfile.PAX_FORMAT) + map_text + bytes(-len(map_text) % 512)


def _sparse_old(blocks):
    """An old GNU sparse member (type S) followed by ``blocks`` extension blocks of its map."""
    header = bytearray(tarfile.TarInfo("p/s.py").tobuf(tarfile.GNU_FORMAT))
    header[156:157] = tarfile.GNUTYPE_SPARSE
    header[482] = 1  # an extension block follows
    header[148:156] = b"        "
    header[148:155] = b"%06o\0" % sum(header)
    extension = bytearray(512)
    extension[504] = 1
    return bytes(header) + bytes(extension) * blocks + bytes(512) + bytes(1024)


@pytest.mark.parametrize("member", [
    lambda: _sparse_10(b"100000\n" + b"1\n" * 20000),
    lambda: _sparse_old(50),
])
def test_a_sparse_map_is_refused_before_it_is_read_into_memory(tmp_path, monkeypatch, member):
    monkeypatch.setattr(tarstream, "MAX_HEADER_BYTES", 4096)
    path = tmp_path / "s-1.0.tar.gz"
    path.write_bytes(gzip.compress(member()))
    with pytest.raises(SourceError, match=r"^cannot read s-1.0.tar.gz: a sparse map at byte \d+ over the "
                                          r"limit of 4096 bytes$"):
        unpack(str(path), str(tmp_path / "out"))
    assert not (tmp_path / "out").exists()


def test_a_nested_archive_is_a_file_never_unpacked(tmp_path, small_cap, spy):
    inner = gzip.compress(bytes(BOMB))
    path = tmp_path / "n-1.0.tar.gz"
    path.write_bytes(gzip.compress(tar_bytes([("n/a.py", b"f(x=x)\n"), ("n/inner.tar.gz", inner)])))
    result = unpack(str(path), str(tmp_path / "out"))
    assert (result.files, result.bytes, result.refused) == (2, 7 + len(inner), ())
    assert spy["bytes"] < CAP


# -- zip -------------------------------------------------------------------------------------------

def make_zip(path, members, compression=zipfile.ZIP_DEFLATED):
    with zipfile.ZipFile(str(path), "w", compression=compression) as archive:
        for name, data in members:
            archive.writestr(name, data)
    return str(path)


def test_a_zip_bomb_is_an_error_for_the_archive(tmp_path, small_cap, spy):
    path = make_zip(tmp_path / "z-1.0.zip", [("z/a.py", b"f(x=x)\n"), ("z/zeros.bin", bytes(BOMB))])
    assert os.path.getsize(path) < 100_000
    with pytest.raises(SourceError, match=r"^cannot read z-1.0.zip: decompressed data over the limit "
                                          r"of 1048576 bytes$"):
        unpack(path, str(tmp_path / "out"))
    assert spy["bytes"] <= CAP + 2 * bounded.CHUNK
    assert not (tmp_path / "out").exists()


def test_zip_members_whose_decompressor_cannot_be_bounded_are_refused_unread(tmp_path, spy):
    """One read of a bzip2 or lzma zip member decompresses all it is given: a few KB can be gigabytes."""
    path = make_zip(tmp_path / "z-1.0.zip", [("z/zeros.py", bytes(BOMB))], zipfile.ZIP_BZIP2)
    with zipfile.ZipFile(path, "a", compression=zipfile.ZIP_LZMA) as archive:
        archive.writestr("z/lzma.py", b"f(x=x)\n")
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("z/ok.py", b"f(x=x)\n")
    result = unpack(path, str(tmp_path / "out"))
    assert [(r.member, r.reason) for r in result.refused] == [("z/zeros.py", archives.COMPRESSION),
                                                              ("z/lzma.py", archives.COMPRESSION)]
    assert result.refused[0].detail == "method 12: its output is not bounded while reading"
    assert os.listdir(str(tmp_path / "out" / "z")) == ["ok.py"]
    assert spy["bytes"] == 0  # ok.py is stored, the others never opened


def _patch_sizes(data, name, size):
    """``data`` (a zip) with ``name``'s uncompressed size set to ``size`` in both its headers."""
    data = bytearray(data)
    encoded = name.encode()
    local = data.index(b"PK\x03\x04")  # the first local header
    assert data[local + 30:local + 30 + len(encoded)] == encoded
    struct.pack_into("<L", data, local + 22, size)
    central = data.index(b"PK\x01\x02")
    assert data[central + 46:central + 46 + len(encoded)] == encoded
    struct.pack_into("<L", data, central + 24, size)
    return bytes(data)


def test_zip_sizes_in_the_headers_are_not_trusted(tmp_path, spy):
    """A member that inflates to more than it declares stops at what it declares (and is corrupt);
    a huge declared size is refused before anything is read."""
    plain = tmp_path / "plain.zip"
    make_zip(plain, [("z/liar.py", bytes(4 * MiB))])
    (tmp_path / "liar-1.0.zip").write_bytes(_patch_sizes(plain.read_bytes(), "z/liar.py", 1000))
    result = unpack(str(tmp_path / "liar-1.0.zip"), str(tmp_path / "a"))
    assert [(r.member, r.reason) for r in result.refused] == [("z/liar.py", archives.CORRUPT)]
    assert spy["bytes"] <= bounded.CHUNK + 64 * 1024 and not (tmp_path / "a" / "z" / "liar.py").exists()
    (tmp_path / "huge-1.0.zip").write_bytes(_patch_sizes(plain.read_bytes(), "z/liar.py", 0xFFFFFFF0))
    result = unpack(str(tmp_path / "huge-1.0.zip"), str(tmp_path / "b"))
    assert [(r.member, r.reason, r.detail) for r in result.refused] == [
        ("z/liar.py", archives.MEMBER_TOO_LARGE, "4294967280 bytes, over the limit of 134217728")]


def test_a_second_member_of_the_same_name_is_refused(tmp_path):
    path = tmp_path / "d-1.0.zip"
    with pytest.warns(UserWarning, match="Duplicate name"):
        make_zip(path, [("d/a.py", b"first = 1\n"), ("d/a.py", b"second = 2\n")])
    result = unpack(str(path), str(tmp_path / "out"))
    assert [(r.member, r.reason) for r in result.refused] == [("d/a.py", archives.CONFLICT)]
    assert (tmp_path / "out" / "d" / "a.py").read_bytes() == b"first = 1\n" and result.files == 1


def test_a_zip_directory_of_too_many_entries_is_refused_before_it_is_parsed(tmp_path):
    path = make_zip(tmp_path / "many-1.0.zip", [("m/%d.py" % i, b"") for i in range(50)])
    with pytest.raises(SourceError, match=r"^cannot read many-1.0.zip: 11 members or more, over the limit of 10$"):
        unpack(path, str(tmp_path / "out"), Limits(max_files=10))
    assert unpack(path, str(tmp_path / "fits"), Limits(max_files=50)).files == 50


def test_a_wheel_bomb_leaves_nothing(tmp_path, monkeypatch, capsys, small_cap):
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    path = make_zip(tmp_path / "w-1.0-py3-none-any.whl", [("w/zeros.bin", bytes(BOMB))])
    assert cli.main(["scan", path, "--no-save", "-q", "--no-cache"]) == 2
    assert capsys.readouterr().err == ("punstats: error: cannot read w-1.0-py3-none-any.whl: decompressed "
                                       "data over the limit of 1048576 bytes\n")
    nothing_left(tmp_path / "cache")


# -- the limits in the provenance; pypi: and top-pypi:N --------------------------------------------

def test_the_limits_are_recorded_in_the_archive_provenance(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(bounded, "MAX_UNPACK_SECONDS", 42.0)
    path = bomb_tar(tmp_path / "p-1.0.tar.gz", "w:gz", zeros=1000)
    assert cli.main(["scan", path, "--json", "--no-save", "-q", "--no-cache"]) == 0
    [summary] = json.loads(capsys.readouterr().out)
    assert summary["archive"]["limits"] == {
        "max_total_bytes": 1 << 30, "max_member_bytes": 128 * MiB, "max_files": 100_000,
        "max_decompressed_bytes": bounded.MAX_DECOMPRESSED_BYTES, "max_seconds": 42.0}


def test_scan_pypi_of_a_bomb_is_one_line_and_leaves_no_tree(tmp_path, monkeypatch, capsys, small_cap, index):
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    bomb = bomb_tar(tmp_path / "bomb-1.0.tar.bz2")
    index.project("bomb", "1.0", [("bomb-1.0.tar.bz2", open(bomb, "rb").read(), "sdist")])
    find = pypi.find_sdist
    monkeypatch.setattr(pypi, "find_sdist", lambda spec, get: find(spec, get, index.index_url))  # the fake
    assert cli.main(["scan", "pypi:bomb==1.0", "-o", str(tmp_path / "out"), "-q", "--no-cache"]) == 2
    assert capsys.readouterr().err == ("punstats: error: cannot read bomb-1.0.tar.bz2: decompressed data over "
                                       "the limit of 1048576 bytes\n")
    nothing_left(tmp_path / "cache")
    assert not (tmp_path / "out").exists()


def test_a_bomb_in_top_pypi_fails_its_project_and_the_run_goes_on(tmp_path, monkeypatch, capsys, small_cap,
                                                                  index):
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    index.project("alpha", "1.0", [("alpha-1.0.tar.gz", sdist("alpha", "1.0", {"a.py": "f(x=x)\n"}), "sdist")])
    bomb = bomb_tar(tmp_path / "bomb-1.0.tar.gz", "w:gz", top="bomb-1.0")
    index.project("bomb", "1.0", [("bomb-1.0.tar.gz", open(bomb, "rb").read(), "sdist")])
    index.project("gamma", "2.0", [("gamma-2.0.tar.gz", sdist("gamma", "2.0", {"g.py": "g(y=y)\n"}), "sdist")])
    listing = top_list(tmp_path / "list.json", ["alpha", "bomb", "gamma"])
    assert cli.main(["corpus", "top-pypi:3", "--top-pypi-list", listing, "--index-url", index.index_url,
                     "-o", str(tmp_path / "out"), "--json", "-q", "--no-cache", "-j", "1", "--no-figure"]) == 0
    records = {r["project"]: r for r in json.loads(capsys.readouterr().out)["projects"]}
    assert {name: r["status"] for name, r in records.items()} == {
        "alpha": "scanned", "bomb": "failed", "gamma": "scanned"}
    assert records["bomb"]["message"] == ("cannot read bomb-1.0.tar.gz: decompressed data over the limit "
                                          "of 1048576 bytes")
    nothing_left(tmp_path / "cache")
