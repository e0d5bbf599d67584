"""A corpus file (TOML): many projects, each a source to scan.

This module owns the corpus file's format, its validation, and turning a
project into a corpus (``project_corpus``); ``punstats.runs.projects`` scans
them, one stored scan each.  A corpus file::

    name = "mine"                  # optional: what the set is called

    [[project]]
    pypi = "requests==2.31.0"      # the sdist from PyPI (sources.pypi)
    name = "requests"              # optional: its folder and corpus name (default: from the entry)

    [[project]]
    path = "../src/tool"           # a directory, relative to the corpus file

    [[project]]
    git = "~/src/cpython"          # a repository (work tree or bare) ...
    rev = "v3.12.0"                # ... read at this revision without a checkout

    [[project]]
    git = "git+https://github.com/psf/requests@v2.32.3"   # a remote one, cloned bare as scan clones it

Each entry has exactly one of ``pypi``, ``path`` and ``git``; ``rev`` goes
with ``git`` only (default ``HEAD``; a ``git+URL`` takes it after ``@`` or
in ``rev``, not both).  Every entry is checked before the first scan starts
(a URL without ``git+`` or a PyPI page is told what to write, as ``scan``
tells it), and every error is one line naming the entry.
"""
from __future__ import annotations

import dataclasses
import os
import re
import tomllib
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from punstats.model.corpus import Corpus, SourceError
from punstats.sources import pypi, resolve
from punstats.sources.local import read_regular

KINDS = ("pypi", "path", "git")


ENTRY_KEYS = frozenset(KINDS + ("name", "rev"))


TOP_KEYS = frozenset({"name", "project"})


_SAFE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._+@-]*$")


class CorpusError(SourceError):
    """A corpus file that cannot be used, or a project in it that failed; one line."""


@dataclass(frozen=True)
class Project:
    name: str  # its folder under the output directory
    kind: str  # pypi, path or git
    target: str  # pypi:NAME[==VERSION], an absolute path, or a repository path
    rev: Optional[str] = None  # git only
    named: bool = False  # the entry gave a name: it also names the stored corpus (tables' columns)

    @property
    def label(self) -> str:
        return "%s %s%s" % (self.kind, self.target, "@" + self.rev if self.rev else "")


@dataclass(frozen=True)
class CorpusFile:
    path: str
    name: str
    projects: Tuple[Project, ...]


#: ``top-pypi`` or ``random-pypi`` written without ``:N`` or otherwise (``top_pypi:30``): (which, N).
_RUN = re.compile(r"(top|random)[-_ ]?pypi(?:[:=_ -]?(\d+))?$", re.IGNORECASE)


def _meant_run(path: str) -> str:
    """`` (write top-pypi:N, ...)`` for a missing corpus file named like an ecosystem run, or ""."""
    run = _RUN.match(path)
    if not run:
        return ""
    which, n = run.group(1).lower(), run.group(2) or "30"
    seed = " --seed S" if which == "random" else ""
    return " (to scan PyPI's %s N projects, write %s-pypi:N%s, e.g. %s-pypi:%s%s)" % (
        "most-downloaded" if which == "top" else "randomly drawn", which, seed, which, n, seed.replace("S", "1"))


def load(path: str) -> CorpusFile:
    """Read and check a corpus file; ``CorpusError`` names the first bad entry."""
    if not os.path.lexists(path):
        raise CorpusError("no such corpus file: %s%s" % (path, _meant_run(path)))
    try:
        data = tomllib.loads(read_regular(path, "the corpus file").decode("utf-8"))
    except SourceError as exc:
        raise CorpusError(str(exc)) from None
    except UnicodeDecodeError as exc:
        raise CorpusError("%s is not UTF-8: %s" % (path, exc)) from None
    except tomllib.TOMLDecodeError as exc:
        raise CorpusError("%s is not valid TOML: %s" % (path, exc)) from None
    unknown = sorted(set(data) - TOP_KEYS)
    if unknown:
        raise CorpusError("%s: unknown key %r (expected name and [[project]] entries)" % (path, unknown[0]))
    entries = data.get("project")
    if not isinstance(entries, list) or not entries:
        raise CorpusError("%s: no [[project]] entries" % path)
    base = os.path.dirname(os.path.abspath(path))
    projects: List[Project] = []
    used: Dict[str, int] = {}
    for number, entry in enumerate(entries, 1):
        project = _project(entry, number, base, path)
        if project.name in used:
            raise CorpusError("%s: project %d: name %r is already used by project %d; give one of them "
                              "another name = ..." % (path, number, project.name, used[project.name]))
        used[project.name] = number
        projects.append(project)
    name = data.get("name", os.path.splitext(os.path.basename(path))[0])
    if not isinstance(name, str):
        raise CorpusError("%s: name must be a string" % path)
    return CorpusFile(os.path.abspath(path), name, tuple(projects))


def _project(entry: Any, number: int, base: str, path: str) -> Project:
    where = "%s: project %d" % (path, number)
    if not isinstance(entry, dict):
        raise CorpusError("%s: expected a table ([[project]]), got %s" % (where, type(entry).__name__))
    if isinstance(entry.get("name"), str):
        where += " (%s)" % entry["name"]
    unknown = sorted(set(entry) - ENTRY_KEYS)
    if unknown:
        raise CorpusError("%s: unknown key %r (expected one of %s, and name; rev with git)"
                          % (where, unknown[0], ", ".join(KINDS)))
    for key, value in entry.items():
        if not isinstance(value, str) or not value.strip():
            raise CorpusError("%s: %s must be a non-empty string" % (where, key))
    kinds = [kind for kind in KINDS if kind in entry]
    if len(kinds) != 1:
        raise CorpusError("%s: needs exactly one of %s, has %s"
                          % (where, ", ".join(KINDS), " and ".join(kinds) or "none"))
    kind = kinds[0]
    value = entry[kind].strip()
    if "rev" in entry and kind != "git":
        raise CorpusError("%s: rev goes with git only" % where)
    _check_meant(value, kind, where)
    remote_rev = "HEAD"
    if kind == "pypi":
        try:
            spec = pypi.parse_spec(value)
        except SourceError as exc:
            raise CorpusError("%s: %s" % (where, exc)) from None
        target = pypi.PREFIX + spec.name + ("==" + spec.version if spec.version else "")
        default = spec.canonical
    elif kind == "git" and value.startswith("git+"):  # a remote repository, cloned bare as scan clones it
        target, default, remote_rev = _remote(value, entry, where)
    else:
        target = os.path.normpath(os.path.join(base, os.path.expanduser(value)))
        if not os.path.exists(target):
            raise CorpusError("%s: no such file or directory: %s" % (where, value))
        if kind == "git" and not os.path.isdir(target):
            raise CorpusError("%s: not a git repository: %s" % (where, value))
        default = os.path.basename(target.rstrip(os.sep)) or "root"
        if kind == "git" and default.endswith(".git") and len(default) > 4:
            default = default[:-4]
    name = entry.get("name", default).strip()
    if not _SAFE_NAME.match(name) or name in (".", ".."):
        raise CorpusError("%s: %r cannot be a folder name; give name = ... (letters, digits, . _ + @ -)"
                          % (where, name))
    rev = entry.get("rev", remote_rev).strip() if kind == "git" else None
    return Project(name, kind, target, rev, "name" in entry)


def _check_meant(value: str, kind: str, where: str) -> None:
    """A value that plainly means another source (a URL without ``git+``, a PyPI page) is told, in one
    line, what to write, as ``scan`` tells it."""
    from punstats.sources import check_argument
    try:
        check_argument(value)
    except SourceError as exc:
        raise CorpusError("%s: %s%s" % (where, exc, ' (in git = "...")' if kind == "path" and
                                        "git+" in str(exc) else "")) from None
    if kind == "path" and value.startswith("git+"):
        raise CorpusError('%s: a git+URL goes in git = "%s"' % (where, value))


def _remote(value: str, entry: Dict[str, Any], where: str) -> Tuple[str, str, str]:
    """A ``git = "git+URL[@REV]"`` entry: (its target, its default name, its REV or HEAD); a revision
    given twice is an error."""
    from punstats.sources.git import GitError, parse_remote
    try:
        url, rev = parse_remote(value)
    except GitError as exc:
        raise CorpusError("%s: %s" % (where, exc)) from None
    if "rev" in entry and rev != "HEAD":
        raise CorpusError("%s: give the revision once: %s names %s, and rev = %r" % (where, value, rev, entry["rev"]))
    last = url.rstrip("/").rsplit("/", 1)[-1]
    return "git+" + url, (last[:-4] if last.endswith(".git") and len(last) > 4 else last) or "repo", rev


def project_corpus(project: Project) -> Corpus:
    """What the project names (this is where a pypi entry is downloaded, a git+URL cloned), named
    after it if it says so."""
    if project.kind == "git" and project.target.startswith("git+"):
        corpus = resolve("%s@%s" % (project.target, project.rev or "HEAD"))
    elif project.kind == "git":
        from punstats.sources.git import git_corpus
        corpus = git_corpus(project.target, project.rev or "HEAD")
    else:
        corpus = resolve(project.target)
    return dataclasses.replace(corpus, name=project.name) if project.named else corpus

