"""Turning a user's argument into a corpus: a root directory plus provenance.

``SOURCES`` is the table of what an argument can name, one row per kind of
source (its form, what it is, an example); ``resolve`` dispatches on it and
``punstats scan --help`` (and ``corpus --help``) print it.  A corpus is named
(the name is the default storage folder under ``data/``) and records where it
came from and at which revision, so that every stored result can say what was
measured.  With no argument the corpus is the running interpreter's standard
library, which is always present.  A new source is one module here and one row.
"""
from __future__ import annotations

import os
import re
import textwrap
from dataclasses import dataclass
from typing import Callable, Optional, Tuple

from punstats.model.corpus import Corpus, SourceError
from punstats.sources.local import check_path, corpus_name, git_head, printable, stdlib_corpus


@dataclass(frozen=True)
class Source:
    """One row of the table: what selects it, how it is written, what it is, an example."""

    form: str  # the argument as the help writes it
    what: str
    example: str  # a command that works
    command: str  # the command that takes it: scan or corpus
    matches: Optional[Callable[[str], bool]]  # None: no argument (the standard library) or a corpus file
    open: Optional[Callable[[str], Corpus]]  # None: another command's (``command``)


def _pypi(argument: str) -> Corpus:
    from punstats.sources import pypi
    return pypi.pypi_corpus(argument)


def _git(argument: str) -> Corpus:
    from punstats.sources import git as gitsource
    try:
        return gitsource.remote_corpus(argument)
    except gitsource.GitError as exc:
        raise SourceError(str(exc)) from None


def _is_archive(argument: str) -> bool:
    from punstats.sources.archive_corpus import is_archive
    return is_archive(os.path.abspath(argument))


def _archive(argument: str) -> Corpus:
    from punstats.sources.archive_corpus import archive_corpus
    return archive_corpus(check_path(argument))


def _path(argument: str) -> Corpus:
    path = check_path(argument)
    base = path if os.path.isdir(path) else os.path.dirname(path)
    commit, date = git_head(base)
    # the name is a folder's: undecodable bytes and backslashes escaped; the source as text
    return Corpus(corpus_name(path), path, printable(argument), commit, date)


def _prefix(prefix: str) -> Callable[[str], bool]:
    return lambda argument: argument.startswith(prefix)


#: What an argument can name, in the order ``resolve`` tries them (a path last).
SOURCES: Tuple[Source, ...] = (
    Source("(no PATH)", "this interpreter's standard library", "punstats scan", "scan", None, None),
    Source("pypi:NAME[==VERSION]", "a release's sdist from PyPI (the latest without ==VERSION), "
           "downloaded, checked and unpacked safely", "punstats scan pypi:requests==2.32.3", "scan",
           _prefix("pypi:"), _pypi),
    Source("git+URL[@REV]", "a remote git repository, cloned bare into the cache and read at REV "
           "(default HEAD), no checkout", "punstats scan git+https://github.com/psf/requests@v2.32.3", "scan",
           _prefix("git+"), _git),
    Source("FILE.tar.gz|.tgz|.tar.bz2|.tar.xz|.tar|.zip|.whl",
           "an sdist or a wheel on disk: the files inside it, unpacked safely",
           "punstats scan requests-2.32.3.tar.gz", "scan", _is_archive, _archive),
    Source("top-pypi:N", "the N most-downloaded PyPI projects, into one dataset", "punstats corpus top-pypi:100",
           "corpus", _prefix("top-pypi:"), None),
    Source("random-pypi:N --seed S", "N projects drawn with seed S from every project the index lists "
           "(its simple API), into one dataset; the list's sha256 and the draw are recorded",
           "punstats corpus random-pypi:100 --seed 1", "corpus", _prefix("random-pypi:"), None),
    Source("DIR|FILE", "a directory (a git work tree's commit is recorded) or one file; with --rev REV, "
           "that revision of the repository, read from git", "punstats scan src/", "scan", _prefix(""), _path),
    Source("CORPUS.toml", "a corpus file: one project per [[project]] (pypi, path or git with rev)",
           "punstats corpus corpora/local-example.toml", "corpus", None, None),
)


#: Characters per line of the table in ``--help``.
HELP_WIDTH = 78


def help_table(command: str = "scan") -> str:
    """The rows ``command`` takes, as its ``--help`` prints them (form, what, example)."""
    lines = ["what %s takes:" % ("PATH" if command == "scan" else "CORPUS")]
    for source in SOURCES:
        if source.command == command:
            lines += ["  " + source.form,
                      textwrap.fill(source.what, HELP_WIDTH, initial_indent=" " * 6, subsequent_indent=" " * 6),
                      "      e.g. " + source.example]
    return "\n".join(lines)


def source_of(argument: str) -> Source:
    """The row that ``argument`` selects."""
    return next(source for source in SOURCES if source.matches is not None and source.matches(argument))


#: A URL of any scheme (``https://``, ``ssh://``, ``file://``); ``git+URL`` is not one.
_URL = re.compile(r"(?!git\+)[A-Za-z][A-Za-z0-9+.-]*://")

#: A repository's page at a revision on GitHub or GitLab (``.../OWNER/NAME/tree/REV``): (repository, REV).
_TREE_PAGE = re.compile(r"(https://(?:github\.com|gitlab\.com)/[^/]+/[^/]+?)/(?:-/)?tree/([^?#]+?)/?$")

#: A project's page on PyPI (``https://pypi.org/project/NAME/[VERSION/]``): (NAME, VERSION).
_PYPI_PAGE = re.compile(r"https?://(?:www\.)?pypi\.(?:org|python\.org)/(?:project|pypi)/([^/?#]+)/?([^/?#]*)")


#: git's scp-like address (``git@github.com:psf/requests.git``): (user, host, path).
_SCP = re.compile(r"([A-Za-z0-9._-]+)@([A-Za-z0-9.-]+):(?!//)(.+)$")

#: A PyPI project's name (PEP 508), with a version or not.
_PROJECT = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?(==[^\s/]+)?$")


def _meant(argument: str, rev: Optional[str]) -> Optional[str]:
    """What an argument that names no source as written plainly means, said in one line (None: nothing)."""
    if os.path.lexists(argument):
        return None  # a path, however odd its name
    if _URL.match(argument):
        page = _PYPI_PAGE.match(argument)
        if page:
            version = page.group(2) or rev
            return "%s is a PyPI page: to scan the project's sdist, write pypi:%s%s" % (
                argument, page.group(1), "==" + version if version else "")
        tree = _TREE_PAGE.match(argument)
        if tree:  # a revision in the page's address (a branch with a / in its name is ambiguous: its repository)
            return "%s is a web page: to scan its git repository, write git+%s%s" % (
                argument, tree.group(1), "" if "/" in tree.group(2) else "@" + tree.group(2))
        return "%s is a URL: to scan a git repository, write git+%s%s" % (
            argument, argument, "@%s without --rev" % rev if rev else "")
    scp = _SCP.match(argument)
    if scp:
        user, host, path = scp.groups()
        at = "@" + rev if rev else ""
        return "%s is an scp-style git address: to scan its repository, write git+ssh://%s@%s/%s%s (or " \
               "git+https://%s/%s%s)%s" % (argument, user, host, path.lstrip("/"), at, host, path.lstrip("/"), at,
                                          " without --rev" if rev else "")
    if rev is not None and argument.startswith("pypi:"):
        return "pypi: takes a version, not --rev: write pypi:%s==%s" % (argument[5:].split("==")[0], rev)
    if rev is not None and argument.startswith("git+"):
        from punstats.sources.git import parse_remote
        try:
            url = parse_remote(argument)[0]
        except ValueError:
            url = argument[4:]
        return "git+URL takes its revision after @, not --rev: write git+%s@%s" % (url, rev)
    return None


def check_argument(argument: str, rev: Optional[str] = None) -> None:
    """``SourceError`` (one line, what to write instead) for an argument that names no source as
    written but plainly means one: a web address without ``git+``, a PyPI page, ``pypi:``
    or ``git+`` with ``--rev``."""
    meant = _meant(argument, rev)
    if meant is not None:
        raise SourceError(meant)


def repository(argument: str) -> Tuple[str, Optional[str], Optional[str]]:
    """``history REPO``: (the repository to read, the revision a ``git+URL@REV`` names, the
    name of a ``git+URL``'s repository; None for what is not given).
    A path is itself; ``git+URL[@REV]`` is cloned bare into the cache as ``scan`` clones it;
    what plainly means one of these is told what to write (``check_argument``), and a PyPI
    release, which has no history, is refused in one line."""
    if not os.path.lexists(argument) and (argument.startswith("pypi:") or _PYPI_PAGE.match(argument)):
        raise SourceError("%s is a PyPI release, which has no history: give a git repository "
                          "(a path, or git+URL)" % argument)
    check_argument(argument)
    if not argument.startswith("git+") or os.path.lexists(argument):
        return argument, None, None
    from punstats.sources.git import parse_remote
    rev = parse_remote(argument)[1]  # a GitError (one line) for a scheme git+URL does not take
    corpus = _git(argument)
    return corpus.root, None if rev == "HEAD" else rev, corpus.name.split("@")[0]


def revision_corpus(path: str, rev: str) -> Corpus:
    """The corpus of revision ``rev`` of the git repository at ``path`` (``--rev``)."""
    check_argument(path, rev)
    from punstats.sources.git import git_corpus
    return git_corpus(path, rev)


def resolve(argument: Optional[str]) -> Corpus:
    """The corpus a command-line argument names (None: the standard library)."""
    if argument is None:
        return stdlib_corpus()
    check_argument(argument)
    source = source_of(argument)
    if source.open is _path and not os.path.lexists(argument) and _PROJECT.match(argument) \
            and not argument.endswith((".py", ".pyw", ".pyi", ".ipynb")):  # a missing file, not a project
        raise SourceError("no such file or directory: %s (a PyPI project? write pypi:%s)" % (argument, argument))
    if source.open is None:
        raise SourceError("%s is an argument of punstats %s (%s): punstats %s %s"
                          % (argument, source.command, source.what, source.command, argument))
    return source.open(argument)
