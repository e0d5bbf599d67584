"""Many projects at once: one stored scan per project of a corpus file, and ``top-pypi:N``.

``scan_corpus`` scans each project of a corpus file (read and checked by
``punstats.sources.projects``) and stores it in ``OUTPUT/<name>/`` (default
``data/<name>/``), where ``punstats table`` and ``punstats plot`` compare
them; ``skip_existing`` keeps the projects already stored.  ``top_pypi_run``
prepares the streaming run over the most-downloaded PyPI projects
(``punstats.runs.ecosystem``).
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional

from punstats.model.corpus import SourceError
from punstats.model.errors import PunstatsError
from punstats.sources.projects import (
    CorpusError,
    CorpusFile,
    Project,
    load,  # noqa: F401 (the command line reads a corpus file with projects.load)
    project_corpus,
)
from punstats.store.disk import SUMMARY_FILE


@dataclass(frozen=True)
class Stored:
    project: Project
    directory: str
    summary: Dict[str, Any]
    reused: bool = False  # already stored (skip_existing); not scanned again


def output_directory(project: Project, output: Optional[str] = None) -> str:
    return os.path.join(output or "data", project.name)


def scan_project(project: Project, **options: Any):
    """``api.scan`` of one project; ``options`` are ``api.scan``'s keyword arguments."""
    from punstats.runs import scan as api
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
    from punstats import engines as engine
    from punstats.runs import scan as api
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
            except PunstatsError as exc:  # SourceError, GitError, EngineError, bad rules; not a bug
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



def top_pypi_run(argument: str, top_list: Optional[str] = None, *, output: Optional[str] = None,
                 get: Any = None, **options: Any):
    """``corpus top-pypi:N``: (a function running it, its ``ecosystem.Options``), checked before any work.

    The function takes ``on_done`` (and ``timing``) and returns (records, ecosystem summary);
    ``options`` are ``ecosystem.Options`` fields; ``output`` defaults to ``data/top-pypi-N``.
    """
    from punstats.runs import ecosystem
    from punstats.sources import pypi, toppypi
    n = toppypi.parse_spec(argument)
    if options.get("index_url") is not None and not pypi.fetchable(options["index_url"]):
        raise SourceError("--index-url: " + pypi.refusal(options["index_url"]))
    getter = get or pypi.http_get
    ranked, projects = toppypi.top(n, top_list, getter)
    if options.get("index_url") is None:
        options["index_url"] = pypi.INDEX_URL
    run_options = ecosystem.Options(output=output or os.path.join("data", "top-pypi-%d" % n), **options)
    if run_options.engine == "dask" and run_options.scheduler is None:  # one local cluster for all
        def run(**kwargs: Any):
            from punstats import engines as engine
            with engine.local_cluster(run_options.jobs) as address:
                return ecosystem.run_top(ranked, projects, dataclasses.replace(run_options, scheduler=address),
                                         getter, **kwargs)
        return run, run_options
    return (lambda **kwargs: ecosystem.run_top(ranked, projects, run_options, getter, **kwargs)), run_options
