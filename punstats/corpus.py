"""Many projects at once: a corpus file (TOML) and one stored scan per project.

This module owns the corpus file's format, its validation, and the loop that
scans each project and stores it in ``OUTPUT/<name>/`` (default
``data/<name>/``), where ``punstats table`` and ``punstats plot`` compare
them.  A corpus file::

    name = "mine"                  # optional: what the set is called

    [[project]]
    pypi = "requests==2.31.0"      # the sdist from PyPI (punstats.pypi)
    name = "requests"              # optional: its folder and corpus name (default: from the entry)

    [[project]]
    path = "../src/tool"           # a directory, relative to the corpus file

    [[project]]
    git = "~/src/cpython"          # a repository (work tree or bare) ...
    rev = "v3.12.0"                # ... read at this revision without a checkout

Each entry has exactly one of ``pypi``, ``path`` and ``git``; ``rev`` goes
with ``git`` only (default ``HEAD``).  Every entry is checked before the
first scan starts, and every error is one line naming the entry.
"""
from __future__ import annotations

import dataclasses
import os
import re
import tomllib
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

from punstats import pypi
from punstats.sources import Corpus, SourceError, resolve
from punstats.store import SUMMARY_FILE

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


@dataclass(frozen=True)
class Stored:
    project: Project
    directory: str
    summary: Dict[str, Any]
    reused: bool = False  # already stored (skip_existing); not scanned again


def load(path: str) -> CorpusFile:
    """Read and check a corpus file; ``CorpusError`` names the first bad entry."""
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise CorpusError("no such corpus file: %s" % path) from None
    except OSError as exc:
        raise CorpusError("cannot read %s: %s" % (path, exc.strerror or exc)) from None
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
    if kind == "pypi":
        try:
            spec = pypi.parse_spec(value)
        except SourceError as exc:
            raise CorpusError("%s: %s" % (where, exc)) from None
        target = pypi.PREFIX + spec.name + ("==" + spec.version if spec.version else "")
        default = spec.canonical
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
    rev = entry.get("rev", "HEAD").strip() if kind == "git" else None
    return Project(name, kind, target, rev, "name" in entry)


def output_directory(project: Project, output: Optional[str] = None) -> str:
    return os.path.join(output or "data", project.name)


def project_corpus(project: Project) -> Corpus:
    """What the project names (this is where a pypi entry is downloaded), named after it if it says so."""
    if project.kind == "git":
        from punstats.gitsource import git_corpus
        corpus = git_corpus(project.target, project.rev or "HEAD")
    else:
        corpus = resolve(project.target)
    return dataclasses.replace(corpus, name=project.name) if project.named else corpus


def scan_project(project: Project, **options: Any):
    """``api.scan`` of one project; ``options`` are ``api.scan``'s keyword arguments."""
    from punstats import api
    return api.scan(corpus=project_corpus(project), **options)  # a git project's corpus is a revision


def scan_corpus(corpus: CorpusFile, output: Optional[str] = None, *, skip_existing: bool = False,
                csv: bool = False, save: bool = True,
                on_start: Optional[Callable[[Project], None]] = None,
                on_done: Optional[Callable[[Stored], None]] = None,
                **options: Any) -> List[Stored]:
    """Scan every project in order and store each in ``output/<name>/`` (default ``data/<name>/``).

    ``skip_existing`` keeps a project whose folder already holds a stored
    scan (resuming an interrupted run).  A project that fails stops the run
    with a ``CorpusError`` naming it; the ones before it stay stored.
    """
    from punstats import api, engine
    if options.get("engine") == "dask" and options.get("scheduler") is None:  # one local cluster for all
        with engine.local_cluster(options.get("jobs")) as address:
            return scan_corpus(corpus, output, skip_existing=skip_existing, csv=csv, save=save,
                               on_start=on_start, on_done=on_done, **dict(options, scheduler=address))
    done: List[Stored] = []
    for number, project in enumerate(corpus.projects, 1):
        directory = output_directory(project, output)
        if on_start:
            on_start(project)
        if skip_existing and os.path.isfile(os.path.join(directory, SUMMARY_FILE)):
            stored = Stored(project, directory, dict(api.load(directory).summary, stored=directory), True)
        else:
            try:
                result = scan_project(project, **options)
            except ValueError as exc:  # SourceError, GitError, EngineError, bad rules
                raise CorpusError("project %d (%s, %s): %s" % (number, project.name, project.label,
                                                              " ".join(str(exc).split()))) from None
            summary = result.summary
            if save:
                result.save(directory, csv=csv)
                summary = dict(summary, stored=directory)
            stored = Stored(project, directory, summary)
        done.append(stored)
        if on_done:
            on_done(stored)
    return done
