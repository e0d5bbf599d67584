"""The walk: order, endings, exclusions, links, special files, size caps."""
import os

import pytest

from punstats.discover.read import read_source
from punstats.discover.tree import discover
from punstats.model.statuses import (
    BROKEN_LINK,
    DIRECTORY,
    NOT_REGULAR,
    OUTSIDE_ROOT,
    SYMLINK,
    SYMLINK_LOOP,
    TOO_LARGE,
)


def write(root, relpath, text="f(x=x)\n"):
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def paths(found, status=""):
    return [c.path for c in found.candidates if c.status == status]


def test_sorted_order_and_python_endings_only(tmp_path):
    for rel in ["b.py", "a/z.py", "a/b/c.py", "a.py", "a/readme.txt", "c.pyi", "d.pyw", "e.PY"]:
        write(tmp_path, rel)
    found = discover(str(tmp_path))
    assert paths(found) == ["a.py", "a/b/c.py", "a/z.py", "b.py"]
    with_stubs = discover(str(tmp_path), extensions=(".py", ".pyw", ".pyi"))
    assert sorted(paths(with_stubs)) == ["a.py", "a/b/c.py", "a/z.py", "b.py", "c.pyi", "d.pyw"]


def test_order_is_code_point_order_of_the_relative_path(tmp_path):
    for rel in ["a_b.py", "a/x.py", "a.py", "B.py", "a-b.py"]:
        write(tmp_path, rel)
    assert paths(discover(str(tmp_path))) == ["B.py", "a-b.py", "a.py", "a/x.py", "a_b.py"]


def test_vcs_environment_and_cache_directories_are_skipped_and_counted(tmp_path):
    write(tmp_path, "keep.py")
    write(tmp_path, ".git/hooks/x.py")
    write(tmp_path, ".hg/x.py")
    write(tmp_path, "__pycache__/x.py")
    write(tmp_path, "lib/site-packages/pkg/x.py")
    write(tmp_path, "env/lib/x.py")
    write(tmp_path, "env/pyvenv.cfg", "home = /usr\n")
    write(tmp_path, "venv/__init__.py")  # the stdlib package "venv" is not an environment
    found = discover(str(tmp_path))
    assert paths(found) == ["keep.py", "venv/__init__.py"]
    assert found.skipped_dirs == {"cache": 1, "environment": 2, "vcs": 2}
    everything = discover(str(tmp_path), exclude_dirs=False)
    assert len(paths(everything)) == 7


def test_links_are_not_followed_by_default_and_never_out_of_root(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    write(root, "real.py")
    write(outside, "secret.py")
    os.symlink(root / "real.py", root / "alias.py")
    os.symlink(outside / "secret.py", root / "escape.py")
    os.symlink(outside, root / "outdir")
    os.symlink(root, root / "sub_loop")
    os.symlink(root / "loop.py", root / "loop.py")
    os.symlink(root / "missing", root / "broken.py")
    found = discover(str(root))
    status = {c.path: c.status for c in found.candidates}
    assert status == {"real.py": "", "alias.py": SYMLINK, "escape.py": SYMLINK,
                      "loop.py": SYMLINK_LOOP, "broken.py": BROKEN_LINK}
    assert found.skipped_dirs == {"symlink": 2}

    followed = discover(str(root), follow_links=True)
    status = {c.path: c.status for c in followed.candidates}
    assert status == {"real.py": "", "alias.py": "", "escape.py": OUTSIDE_ROOT,
                      "loop.py": SYMLINK_LOOP, "broken.py": BROKEN_LINK}
    assert followed.skipped_dirs == {"already_walked": 1, "outside_root": 1}


def test_directory_named_like_a_source_file(tmp_path):
    write(tmp_path, "pkg.py/inner.py")
    found = discover(str(tmp_path))
    assert [(c.path, c.status) for c in found.candidates] == [("pkg.py", DIRECTORY), ("pkg.py/inner.py", "")]


def test_fifo_is_recorded_and_never_opened(tmp_path):
    write(tmp_path, "ok.py")
    os.mkfifo(tmp_path / "pipe.py")
    found = discover(str(tmp_path))  # would hang if the FIFO were opened for reading
    by_path = {c.path: c for c in found.candidates}
    assert by_path["pipe.py"].status == NOT_REGULAR and "FIFO" in by_path["pipe.py"].error
    assert by_path["ok.py"].status == ""
    with pytest.raises(OSError, match="not a regular file"):
        read_source(str(tmp_path / "pipe.py"))


def test_size_cap_is_applied_before_reading(tmp_path):
    write(tmp_path, "big.py", "x = 1\n" * 1000)
    (c,) = discover(str(tmp_path), max_bytes=100).candidates
    assert c.status == TOO_LARGE and c.size == 6000 and "over the cap of 100" in c.error


def test_single_file_root(tmp_path):
    path = write(tmp_path, "one.py")
    found = discover(str(path))
    assert found.root == str(tmp_path) and paths(found) == ["one.py"]


def test_undecodable_file_name_is_printable(tmp_path):
    name = os.fsdecode(b"caf\xe9.py")
    (tmp_path / name).write_text("f(x=x)\n")
    (c,) = discover(str(tmp_path)).candidates
    assert c.path == "caf\\xe9.py" and c.location.endswith(name)
    assert read_source(c.location) == b"f(x=x)\n"


def test_files_the_scan_never_reads_are_not_looked_at(tmp_path):
    write(tmp_path, "pkg/a.py")
    write(tmp_path, "pkg/README.txt", "text\n")
    write(tmp_path, "pkg/data.csv", "1,2\n")
    os.symlink("README.txt", str(tmp_path / "pkg" / "link.txt"))
    asked = []

    def ignore(relpath, is_dir):
        asked.append(relpath)
        return None

    found = discover(str(tmp_path), ignore=ignore)
    assert paths(found) == ["pkg/a.py"]
    # directories and candidates are looked at; other files are passed by on the listing alone
    assert sorted(asked) == ["pkg", "pkg/a.py"]


def test_a_reader_walks_each_directory_once_and_never_through_a_link(tmp_path, monkeypatch):
    from punstats.discover import read as read_module
    first, second = write(tmp_path, "one/a.py"), write(tmp_path, "two/b.py", "g(y=y)\n")
    write(tmp_path, "one/c.py", "h(z=z)\n")
    outside = tmp_path / "outside"
    write(outside, "b.py", "evil(e=e)\n")
    walks = []
    real = read_module.open_parent
    monkeypatch.setattr(read_module, "open_parent", lambda location: walks.append(location) or real(location))
    with read_module.Reader() as reader:
        assert read_source(str(first), reader=reader) == b"f(x=x)\n"
        assert read_source(str(tmp_path / "one" / "c.py"), reader=reader) == b"h(z=z)\n"
        # the second directory is swapped for a link after the first was read
        os.rename(str(tmp_path / "two"), str(tmp_path / "two-moved"))
        os.symlink(str(outside), str(tmp_path / "two"))
        with pytest.raises(OSError, match="no longer a directory"):
            read_source(str(second), reader=reader)
    assert len(walks) == 2
