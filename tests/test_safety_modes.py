"""rewrite --write keeps all of a file it replaces (owner, the twelve mode bits, extended
attributes and access lists) or does not replace it (not_written, and why): also a file
with hard links; rewrite and expand exit 1 when a file could not be read or written back."""
import errno
import os
import stat
import struct

import pytest

from punstats import cli, rewrite
from punstats.rewrite.source import FILE_NOT_WRITTEN

PUNNABLE = "f(alpha=alpha)\n"
PUNNED = b"f(alpha=)\n"

root_only = pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="gives files away")


@pytest.fixture
def source(tmp_path):
    root = tmp_path / "tree"
    root.mkdir()
    path = root / "a.py"
    path.write_text(PUNNABLE)
    return path


def write(path):
    """``rewrite --write`` of the one file ``path``: its result."""
    (result,) = rewrite.write_back(rewrite.rewrite_tree(str(path), jobs=1))
    return result


def assert_untouched(path, result, detail):
    assert (result.error, result.detail) == (FILE_NOT_WRITTEN, detail)
    assert path.read_text() == PUNNABLE
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left


@pytest.mark.parametrize("mode", [0o4755, 0o2755, 0o6750, 0o1644, 0o7777, 0o0400], ids=oct)
def test_every_mode_bit_is_kept(source, mode):
    source.chmod(mode)
    result = write(source)
    assert result.error == "" and source.read_bytes() == PUNNED
    assert stat.S_IMODE(os.stat(str(source)).st_mode) == mode


@root_only
@pytest.mark.parametrize("mode", [0o4755, 0o2750, 0o0644], ids=oct)
def test_owner_group_and_mode_are_kept_when_root_writes(source, mode):
    os.chown(str(source), 1234, 5678)
    source.chmod(mode)
    result = write(source)
    assert result.error == "" and source.read_bytes() == PUNNED
    after = os.stat(str(source))
    assert (after.st_uid, after.st_gid, stat.S_IMODE(after.st_mode)) == (1234, 5678, mode)


@root_only
def test_an_owner_that_cannot_be_given_leaves_the_file(source, monkeypatch):
    os.chown(str(source), 1234, 5678)

    def not_root(fd, uid, gid):
        raise PermissionError(errno.EPERM, "Operation not permitted")
    monkeypatch.setattr(os, "fchown", not_root)  # as anyone but root
    assert_untouched(source, write(source), "cannot keep its owner 1234:5678: Operation not permitted")
    assert os.stat(str(source)).st_uid == 1234


def test_a_mode_bit_that_does_not_stick_leaves_the_file(source, monkeypatch):
    source.chmod(0o2755)
    real = os.fchmod

    def not_in_the_group(fd, mode):  # what the kernel does for a writer outside the file's group
        real(fd, mode & ~stat.S_ISGID)
    monkeypatch.setattr(os, "fchmod", not_in_the_group)
    assert_untouched(source, write(source), "cannot keep its mode 2755 (it would be 0755)")
    assert stat.S_IMODE(os.stat(str(source)).st_mode) == 0o2755


def _set_or_skip(path, name, value):
    try:
        os.setxattr(str(path), name, value)
    except OSError as exc:
        pytest.skip("no %s here: %s" % (name, exc.strerror))


def test_extended_attributes_are_kept(source):
    _set_or_skip(source, "user.origin", b"vendored from elsewhere")
    result = write(source)
    assert result.error == "" and source.read_bytes() == PUNNED
    assert os.listxattr(str(source)) == ["user.origin"]
    assert os.getxattr(str(source), "user.origin") == b"vendored from elsewhere"


def _acl(*entries):
    """A POSIX access list as Linux stores it (system.posix_acl_access): version 2, then
    (tag, permissions, id) per entry."""
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", *entry) for entry in entries)


def test_an_access_list_is_kept(source):
    anyone = 0xFFFFFFFF
    acl = _acl((0x01, 6, anyone), (0x02, 6, 1234), (0x04, 4, anyone), (0x10, 6, anyone), (0x20, 4, anyone))
    _set_or_skip(source, "system.posix_acl_access", acl)  # user 1234 may write it too
    mode = stat.S_IMODE(os.stat(str(source)).st_mode)
    result = write(source)
    assert result.error == "" and source.read_bytes() == PUNNED
    assert os.getxattr(str(source), "system.posix_acl_access") == acl
    assert stat.S_IMODE(os.stat(str(source)).st_mode) == mode == 0o664


def test_an_attribute_that_cannot_be_set_leaves_the_file(source, monkeypatch):
    _set_or_skip(source, "user.origin", b"x")

    def unsupported(fd, name, value):
        raise OSError(errno.EOPNOTSUPP, "Operation not supported")
    monkeypatch.setattr(os, "setxattr", unsupported)  # a writer or file system that may not
    assert_untouched(source, write(source), "cannot keep its extended attribute user.origin: Operation not supported")


def test_a_file_with_hard_links_is_left_whole(source, tmp_path):
    other = tmp_path / "elsewhere.py"
    os.link(str(source), str(other))
    assert_untouched(source, write(source), "has 2 hard links: replacing it would break them")
    assert os.path.samefile(str(source), str(other))


@pytest.fixture
def two(tmp_path, monkeypatch):
    """a.py (hard-linked elsewhere, so not written) and b.py, in the working directory."""
    root = tmp_path / "tree"
    root.mkdir()
    for name in ("a.py", "b.py"):
        (root / name).write_text(PUNNABLE)
    os.link(str(root / "a.py"), str(tmp_path / "elsewhere.py"))
    monkeypatch.chdir(str(root))
    return root


def test_write_exits_1_when_a_file_was_not_written(two, capsys):
    assert cli.main(["rewrite", ".", "--write", "-j", "1", "-q"]) == 1
    out = capsys.readouterr().out.splitlines()
    assert "untouched  a.py: not_written: has 2 hard links: replacing it would break them" in out
    assert "files      2   changed 1" in out
    assert (two / "a.py").read_text() == PUNNABLE and (two / "b.py").read_bytes() == PUNNED


def test_expand_write_exits_1_too(two, capsys):
    for name in ("a.py", "b.py"):
        with open(str(two / name), "wb") as handle:  # in place: the hard link stays
            handle.write(PUNNED)
    assert cli.main(["expand", ".", "--write", "-j", "1", "-q"]) == 1
    assert "untouched  a.py: not_written: has 2 hard links: replacing it would break them" in (
        capsys.readouterr().out.splitlines())
    assert (two / "a.py").read_bytes() == PUNNED and (two / "b.py").read_text() == PUNNABLE


def test_diff_exits_1_when_a_file_could_not_be_read(two, capsys, monkeypatch):
    real = rewrite.tree.read_source

    def denied(location, max_bytes):
        if location.endswith("a.py"):
            raise PermissionError(errno.EACCES, "Permission denied")
        return real(location, max_bytes)
    monkeypatch.setattr(rewrite.tree, "read_source", denied)
    assert cli.main(["rewrite", ".", "--diff", "-j", "1", "-q"]) == 1
    captured = capsys.readouterr()
    assert "+++ b/b.py" in captured.out and "a.py" not in captured.out
    assert "untouched  a.py: unreadable: Permission denied" in captured.err.splitlines()


def test_files_left_for_what_they_hold_do_not_change_the_exit_status(tmp_path, capsys):
    (tmp_path / "a.py").write_text(PUNNABLE)
    (tmp_path / "py2.py").write_text("print 'hello'\n")
    for flag in ("--diff", "--write"):
        assert cli.main(["rewrite", str(tmp_path), flag, "-j", "1", "-q"]) == 0
        assert "untouched  %s: syntax_error" % (tmp_path / "py2.py").name in "".join(capsys.readouterr())
    assert (tmp_path / "a.py").read_bytes() == PUNNED
