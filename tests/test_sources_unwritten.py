"""``unpack(..., only=ENDINGS)`` (``sources.unwritten``): only the files a scan reads are written,
and the counts, refusals, root and scan are those of the whole unpack, whatever the archive holds."""
import io
import os
import tarfile
import zipfile

import pytest

import punstats
from punstats.sources.archives import unpack
from punstats.sources.trees import tree_name, unpack_cached

CODE = b"def f(verbose):\n    return g(verbose=verbose)\n"


def members(top):
    """(name, data or None for a directory): every way a member not written could matter."""
    return [
        ("%s/pkg/__init__.py" % top, CODE),
        ("%s/pkg/data.json" % top, b"{}"),
        ("%s/README" % top, b"read me"),
        ("%s/clash" % top, b"a file, then a directory under its name"),
        ("%s/clash/inner.py" % top, CODE),
        ("%s/twice.txt" % top, b"one"),
        ("%s/twice.txt" % top, b"two"),  # a second of the same name
        ("%s/dir.txt/" % top, None),
        ("%s/dir.txt" % top, b"a file where a directory is"),
        ("%s/deep/file.cfg" % top, b"x"),
        ("%s/deep/file.cfg/under.py" % top, CODE),  # a directory under a file's name, deeper
        ("%s/env/pyvenv.cfg" % top, b"home = /usr\n"),  # an environment: left out by the scan
        ("%s/env/lib.py" % top, CODE),
    ]


def archive(path, entries):
    if str(path).endswith(".zip"):
        with zipfile.ZipFile(path, "w") as out:
            for name, data in entries:
                out.writestr(name, data if data is not None else b"")
        return path
    with tarfile.open(path, "w:gz") as out:
        for name, data in entries:
            info = tarfile.TarInfo(name.rstrip("/"))
            if data is None:
                info.type = tarfile.DIRTYPE
            else:
                info.size = len(data)
            out.addfile(info, io.BytesIO(data or b""))
    return path


def written(root):
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, files in os.walk(root) for f in files)


@pytest.mark.filterwarnings("ignore:Duplicate name")  # the zip's second twice.txt, meant
@pytest.mark.parametrize("ending", [".tar.gz", ".zip"])
@pytest.mark.parametrize("top", ["proj-1.0", "proj-1.0/sub"])  # one top-level directory, or one beside a file
def test_a_tree_of_only_the_scanned_files_counts_refuses_and_scans_as_the_whole_one(tmp_path, ending, top):
    entries = members(top)
    if top != "proj-1.0":
        entries.append(("NOTES", b"a top-level file: the root is the unpack's folder, not proj-1.0"))
    path = archive(tmp_path / ("proj-1.0" + ending), entries)
    whole, only = unpack(str(path), str(tmp_path / "whole")), unpack(str(path), str(tmp_path / "only"), only=(".py",))
    assert (only.files, only.bytes, only.refused) == (whole.files, whole.bytes, whole.refused)
    assert [r.reason for r in whole.refused].count("conflict") >= 3  # the clashes happened at all
    assert os.path.relpath(only.root, str(tmp_path / "only")) == os.path.relpath(whole.root, str(tmp_path / "whole"))
    assert written(only.root) == [p for p in written(whole.root) if p.endswith((".py", "pyvenv.cfg"))]
    assert len(written(only.root)) < len(written(whole.root))
    scans = [punstats.scan(tree.root, jobs=1) for tree in (whole, only)]
    assert scans[0].summary["files"] == scans[1].summary["files"] > 0
    assert scans[0].summary["skipped_dirs"] == scans[1].summary["skipped_dirs"] == {"environment": 1}
    assert list(scans[0].files["path"]) == list(scans[1].files["path"])
    assert scans[0].summary["punnable"] == scans[1].summary["punnable"]


def test_a_tree_of_only_some_files_has_a_folder_of_its_own_and_keeps_its_root(tmp_path):
    path = archive(tmp_path / "p-1.0.tar.gz", [("README", b"x"), ("p-1.0/m.py", CODE)])
    only = unpack_cached(str(path), "0" * 64, str(tmp_path / "cache"), only=(".py",))
    whole = unpack_cached(str(path), "0" * 64, str(tmp_path / "cache"))
    assert os.path.basename(os.path.dirname(only.directory)) != os.path.basename(os.path.dirname(whole.directory))
    assert os.path.basename(os.path.dirname(only.directory)) == tree_name(punstats.sources.archives.Limits(), (".py",))
    again = unpack_cached(str(path), "0" * 64, str(tmp_path / "cache"), only=(".py",))  # read from the manifest
    assert again.root == only.root == only.directory  # README beside p-1.0, though not written
    assert os.listdir(only.directory) == ["p-1.0"]
