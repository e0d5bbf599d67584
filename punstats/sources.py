"""Turning a user's argument into a corpus: a root directory plus provenance.

A corpus is named (the name is the default storage folder under ``data/``)
and records where it came from and at which revision, so that every stored
result can say what was measured.  With no argument the corpus is the running
interpreter's standard library, which is always present.  ``pypi:NAME==VERSION``
arguments are handed to ``punstats.pypi`` (download, check, safe unpacking).
"""
from __future__ import annotations

import datetime
import os
import platform
import sys
import sysconfig
from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple


class SourceError(ValueError):
    """A corpus argument that cannot be used; the message is for the user."""


@dataclass(frozen=True)
class Corpus:
    name: str
    root: str
    source: str  # what the user named: a path, or "stdlib"
    revision: str  # commit hash, interpreter version, or "" when unknown
    commit_date: str = ""
    # Corpora unpacked from an archive (``pypi:``): what it was (file, sha256,
    # counts, limits) and each member refused, as (member, reason, detail).
    archive: Optional[Dict[str, Any]] = None
    refused_members: Tuple[Tuple[str, str, str], ...] = ()
    # True when ``root`` is a git directory to be read at commit ``revision``
    # (``--rev``, ``git+URL@REV``) rather than a tree on disk.
    is_revision: bool = False


def stdlib_corpus() -> Corpus:
    root = sysconfig.get_path("stdlib")
    version = "%d.%d" % sys.version_info[:2]
    revision = "%s %s" % (platform.python_implementation(), platform.python_version())
    return Corpus("stdlib-" + version, root, "stdlib", revision)


def resolve(argument: Optional[str]) -> Corpus:
    """The corpus a command-line argument names (None: the standard library)."""
    if argument is None:
        return stdlib_corpus()
    if argument.startswith("pypi:"):
        from punstats import pypi
        return pypi.pypi_corpus(argument)
    if argument.startswith("git+"):
        from punstats import gitsource
        try:
            return gitsource.remote_corpus(argument)
        except gitsource.GitError as exc:
            raise SourceError(str(exc)) from None
    path = os.path.abspath(argument)
    if not os.path.exists(path):
        raise SourceError("no such file or directory: %s" % argument)
    if not (os.path.isdir(path) or os.path.isfile(path)):
        raise SourceError("not a directory or a regular file: %s" % argument)
    base = path if os.path.isdir(path) else os.path.dirname(path)
    commit, date = git_head(base)
    name = os.path.basename(path.rstrip(os.sep)) or "root"
    return Corpus(name, path, argument, commit, date)


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
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
