"""Local sources: the running interpreter's standard library and directories,
with the git commit of a work tree read from ``.git`` files (never by running git).
"""
from __future__ import annotations

import datetime
import os
import platform
import sys
import sysconfig

from punstats.model.corpus import Corpus


def stdlib_corpus() -> Corpus:
    root = sysconfig.get_path("stdlib")
    version = "%d.%d" % sys.version_info[:2]
    revision = "%s %s" % (platform.python_implementation(), platform.python_version())
    return Corpus("stdlib-" + version, root, "stdlib", revision)


def git_head(directory: str) -> "tuple[str, str]":
    """(commit, committer date) of a git work tree's HEAD, read from files.

    Reads ``.git`` directly rather than running git: running git in a corpus
    could run programs its configuration names, and scanning never runs
    anything from the corpus.  The date is left empty (it needs the object
    store); git sources record it.
    """
    git = os.path.join(directory, ".git")
    try:
        if os.path.isfile(git):  # a worktree or submodule: "gitdir: PATH"
            with open(git, encoding="utf-8") as handle:
                line = handle.read().strip()
            if not line.startswith("gitdir:"):
                return "", ""
            git = os.path.normpath(os.path.join(directory, line[len("gitdir:"):].strip()))
        with open(os.path.join(git, "HEAD"), encoding="utf-8") as handle:
            head = handle.read().strip()
        if not head.startswith("ref:"):
            return head, ""
        ref = head[len("ref:"):].strip()
        for base in (git, _common_dir(git)):
            loose = os.path.join(base, *ref.split("/"))
            if os.path.isfile(loose):
                with open(loose, encoding="utf-8") as handle:
                    return handle.read().strip(), ""
            packed = os.path.join(base, "packed-refs")
            if os.path.isfile(packed):
                with open(packed, encoding="utf-8") as handle:
                    for entry in handle:
                        parts = entry.split()
                        if len(parts) == 2 and parts[1] == ref:
                            return parts[0], ""
    except (OSError, UnicodeDecodeError):
        pass
    return "", ""


def _common_dir(git: str) -> str:
    try:
        with open(os.path.join(git, "commondir"), encoding="utf-8") as handle:
            return os.path.normpath(os.path.join(git, handle.read().strip()))
    except OSError:
        return git


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")

