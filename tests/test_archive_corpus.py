"""``punstats.sources.archive_corpus``: a local sdist or wheel is counted like its unpacked tree."""
import hashlib
import json
import os
import shutil
import sysconfig
import tarfile
import zipfile

import pytest

import punstats
from punstats.cli import main


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """proj-1.0/: the standard library's json package as ``proj`` plus a test file."""
    root = tmp_path_factory.mktemp("archives")
    shutil.copytree(os.path.join(sysconfig.get_path("stdlib"), "json"), root / "proj-1.0" / "proj",
                    ignore=shutil.ignore_patterns("__pycache__"))
    (root / "proj-1.0" / "tests").mkdir()
    (root / "proj-1.0" / "tests" / "test_proj.py").write_text("check(value=value, other=1)\n")
    return root


def _sdist_tar(tree):
    path = tree / "proj-1.0.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        archive.add(tree / "proj-1.0", arcname="proj-1.0")
    return path


def _zip(tree, name, base):
    path = tree / name
    with zipfile.ZipFile(path, "w") as archive:
        for directory, _, files in os.walk(base):
            for f in sorted(files):
                full = os.path.join(directory, f)
                archive.write(full, os.path.relpath(full, base if name.endswith(".whl") else tree))
    return path


COUNTS = ("files", "parsed", "failed", "calls", "keywords", "punnable", "punnable_nontest", "keywords_nontest",
          "punnable_nontest_pct", "long", "long_nontest", "test_files")


def _scan(path, capsys):
    assert main(["scan", str(path), "--json", "--no-save", "-q", "-j", "1", "--no-cache"]) == 0
    [summary] = json.loads(capsys.readouterr().out)
    return summary


def test_sdist_and_wheel_are_counted_like_their_unpacked_trees(tree, capsys):
    unpacked = _scan(tree / "proj-1.0", capsys)
    assert unpacked["punnable"] > 10 and unpacked["test_files"] == 1  # a real corpus with a test file
    archives = [_sdist_tar(tree), _zip(tree, "proj-1.0.zip", tree / "proj-1.0")]
    for path in archives:
        summary = _scan(path, capsys)
        assert {k: summary[k] for k in COUNTS} == {k: unpacked[k] for k in COUNTS}, path.name
        sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
        assert summary["archive"]["sha256"] == sha256 and summary["archive"]["file"] == path.name
        assert summary["revision"] == "%s sha256:%s" % (path.name, sha256)
        assert summary["corpus"] == "proj-1.0" and summary["refused_members"] == []
    # a wheel has no top-level project directory: its members are the corpus root's contents
    wheel = _zip(tree, "proj-1.0-py3-none-any.whl", tree / "proj-1.0")
    summary = _scan(wheel, capsys)
    assert summary["corpus"] == "proj-1.0" and summary["archive"]["file"] == wheel.name
    assert {k: summary[k] for k in COUNTS} == {k: unpacked[k] for k in COUNTS}


def test_archive_provenance_names_the_file_not_a_local_path(tree):
    from punstats.present.provenance import provenance
    result = punstats.scan(str(_sdist_tar(tree)), jobs=1)
    note = provenance(result.summary)
    assert note.startswith("proj-1.0: the archive proj-1.0.tar.gz at revision proj-1.0.tar.gz sha256:")
    assert str(tree) not in note


def test_a_file_that_is_not_an_archive_is_a_one_line_error(tmp_path, capsys):
    (tmp_path / "fake.tar.gz").write_text("not gzip\n")
    assert main(["scan", str(tmp_path / "fake.tar.gz"), "-o", str(tmp_path / "out"), "-q"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("punstats: error: cannot read fake.tar.gz") and err.count("\n") == 1
    assert not (tmp_path / "out").exists()
