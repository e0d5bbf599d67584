"""Corpus resolution and provenance."""
import subprocess
import sys
import sysconfig

import pytest

from punstats.model.corpus import SourceError
from punstats.sources import resolve
from punstats.sources.local import git_head


def test_default_corpus_is_this_interpreters_standard_library():
    corpus = resolve(None)
    assert corpus.root == sysconfig.get_path("stdlib")
    assert corpus.name == "stdlib-%d.%d" % sys.version_info[:2]
    assert corpus.revision.endswith("%d.%d.%d" % sys.version_info[:3])


def test_missing_path_is_a_source_error(tmp_path):
    with pytest.raises(SourceError, match="no such file or directory"):
        resolve(str(tmp_path / "nope"))


def git(cwd, *args):
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd,
                          check=True, capture_output=True, text=True).stdout.strip()


def test_git_head_is_read_from_files_loose_and_packed(tmp_path):
    git(tmp_path, "init", "-q", "-b", "main")
    (tmp_path / "a.py").write_text("f(x=x)\n")
    git(tmp_path, "add", "a.py")
    git(tmp_path, "commit", "-q", "-m", "one")
    head = git(tmp_path, "rev-parse", "HEAD")
    assert git_head(str(tmp_path))[0] == head
    assert resolve(str(tmp_path)).revision == head
    git(tmp_path, "pack-refs", "--all")
    assert git_head(str(tmp_path))[0] == head
    git(tmp_path, "checkout", "-q", "--detach")
    assert git_head(str(tmp_path))[0] == head
    assert git_head(str(tmp_path / "nowhere")) == ("", "")
