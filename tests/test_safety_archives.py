"""Damaged archives are an error for their source, never a quietly shorter tree, a
MemoryError or a partial file: a GNU long-name header bomb, a corrupt .tar.xz, a
truncated .tar.gz, a damaged header in the middle of a tar."""
import gzip
import io
import lzma
import os
import tarfile

import pytest

from punstats.model.corpus import SourceError
from punstats.sources import archives
from punstats.sources.archives import unpack
from punstats.sources.trees import unpack_cached

TEXT = "".join("def f%d(verbose):\n    return g(verbose=verbose, n=%d)\n" % (i, i) for i in range(4000)).encode()


def tar_bytes(members):
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def nothing_left(tmp_path, out):
    assert not out.exists()
    assert [p.name for p in tmp_path.rglob(".partial-*")] == []


def test_a_gnu_long_name_header_bomb_is_refused_before_it_is_read(tmp_path):
    header = tarfile.TarInfo("././@LongLink")
    header.type = tarfile.GNUTYPE_LONGNAME
    header.size = 1_500_000_000
    body = header.tobuf(format=tarfile.GNU_FORMAT) + b"a" * 1_500_000
    path = tmp_path / "bomb-1.0.tar.gz"
    path.write_bytes(gzip.compress(body))
    assert path.stat().st_size < 100_000
    out = tmp_path / "out"
    with pytest.raises(SourceError) as caught:
        unpack(str(path), str(out))
    assert str(caught.value) == ("cannot read bomb-1.0.tar.gz: a GNU long-name header of 1500000000 bytes "
                                 "at byte 0, over the limit of 1048576")
    nothing_left(tmp_path, out)


def test_a_corrupt_tar_xz_is_an_error_and_leaves_no_partial_file(tmp_path):
    data = bytearray(lzma.compress(tar_bytes([("p/a.py", b"f(x=x)\n"), ("p/big.py", TEXT)])))
    for i in range(len(data) // 2, len(data) // 2 + 64):
        data[i] ^= 0x5A
    path = tmp_path / "p-1.0.tar.xz"
    path.write_bytes(bytes(data))
    with pytest.raises(SourceError, match=r"^cannot read p-1.0.tar.xz: damaged or truncated after 2 members: "
                                          r"p/big.py: Corrupt input data$"):
        unpack_cached(str(path), "0" * 64, str(tmp_path / "cache"))
    assert not (tmp_path / "cache" / ("0" * 64) / ("tree-" + archives.Limits().key)).exists()
    nothing_left(tmp_path, tmp_path / "out")


def test_a_truncated_tar_gz_is_an_error(tmp_path):
    data = gzip.compress(tar_bytes([("p/a.py", b"f(x=x)\n"), ("p/big.py", TEXT), ("p/z.py", b"g(y=y)\n")]))
    path = tmp_path / "p-1.0.tar.gz"
    path.write_bytes(data[: len(data) * 3 // 4])
    out = tmp_path / "out"
    with pytest.raises(SourceError, match=r"^cannot read p-1.0.tar.gz: damaged or truncated after 2 members: "
                                          r"p/big.py: Compressed file ended before the end-of-stream marker"):
        unpack(str(path), str(out))
    nothing_left(tmp_path, out)


@pytest.mark.parametrize("cut, message", [
    (lambda raw: raw[:1024] + b"X" * 10 + raw[1034:], "a damaged header at byte 1024"),  # the 2nd header
    (lambda raw: raw[:2048 + 100], "cut short at byte 2048, before the end-of-archive marker"),
    (lambda raw: raw[:2048], "cut short at byte 2048, before the end-of-archive marker"),
])
def test_a_tar_that_ends_at_damage_is_not_a_shorter_tree(tmp_path, cut, message):
    raw = tar_bytes([("p/a.py", b"f(x=x)\n"), ("p/b.py", b"g(y=y)\n"), ("p/c.py", b"h(z=z)\n")])
    path = tmp_path / "p-1.0.tar"
    path.write_bytes(cut(raw))
    out = tmp_path / "out"
    with pytest.raises(SourceError) as caught:
        unpack(str(path), str(out))
    assert str(caught.value).endswith(message)
    nothing_left(tmp_path, out)


def test_a_sound_archive_with_trailing_padding_unpacks_whole(tmp_path):
    raw = tar_bytes([("p/a.py", b"f(x=x)\n"), ("p/big.py", TEXT)])
    path = tmp_path / "p-1.0.tar.gz"
    path.write_bytes(gzip.compress(raw + b"\0" * 20480))
    result = unpack(str(path), str(tmp_path / "out"))
    assert (result.files, result.refused) == (2, ())
    assert (tmp_path / "out" / "p" / "big.py").read_bytes() == TEXT
    assert os.path.getsize(str(tmp_path / "out" / "p" / "a.py")) == 7
