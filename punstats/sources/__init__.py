"""Turning a user's argument into a corpus: a root directory plus provenance.

A corpus is named (the name is the default storage folder under ``data/``)
and records where it came from and at which revision, so that every stored
result can say what was measured.  With no argument the corpus is the running
interpreter's standard library, which is always present.  ``pypi:NAME==VERSION``
arguments are handed to ``punstats.pypi`` (download, check, safe unpacking).
"""
from __future__ import annotations

import os
from typing import Optional

from punstats.model.corpus import Corpus, SourceError
from punstats.sources.local import check_path, git_head, printable, stdlib_corpus


def resolve(argument: Optional[str]) -> Corpus:
    """The corpus a command-line argument names (None: the standard library)."""
    if argument is None:
        return stdlib_corpus()
    if argument.startswith("pypi:"):
        from punstats.sources import pypi
        return pypi.pypi_corpus(argument)
    if argument.startswith("git+"):
        from punstats.sources import git as gitsource
        try:
            return gitsource.remote_corpus(argument)
        except gitsource.GitError as exc:
            raise SourceError(str(exc)) from None
    path = check_path(argument)
    from punstats.sources.archive_corpus import archive_corpus, is_archive
    if is_archive(path):  # an sdist or a wheel: the files inside it
        return archive_corpus(path)
    base = path if os.path.isdir(path) else os.path.dirname(path)
    commit, date = git_head(base)
    name = printable(os.path.basename(path.rstrip(os.sep))) or "root"
    return Corpus(name, path, printable(argument), commit, date)  # names as text, undecodable bytes escaped

