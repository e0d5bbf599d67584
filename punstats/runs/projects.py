"""Many projects at once: one stored scan per project of a corpus file, ``top-pypi:N`` and ``random-pypi:N``.

``scan_corpus`` scans each project of a corpus file (read and checked by
``punstats.sources.projects``) and stores it in ``OUTPUT/<name>/`` (default
``data/<name>/``), where ``punstats table`` and ``punstats plot`` compare
them; ``skip_existing`` keeps the projects already stored.  ``top_pypi_run``
prepares the streaming run (``punstats.runs.ecosystem``) over the most-downloaded
PyPI projects or over a random sample of PyPI (``random-pypi:N``, with a seed).
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional

from punstats.model.corpus import SourceError
from punstats.model.errors import PunstatsError, one_line
from punstats.runs.options import ScanOptions
from punstats.sources.projects import (
    CorpusError,
    CorpusFile,
    Project,
    load,  # noqa: F401 (the command line reads a corpus file with projects.load)
    project_corpus,
)
from punstats.store.disk import SUMMARY_FILE
from punstats.store.places import DEFAULT_ROOT


@dataclass(frozen=True)
class Stored:
    project: Project
    directory: str
    summary: Dict[str, Any]
    reused: bool = False  # already stored (skip_existing); not scanned again


def output_directory(project: Project, output: Optional[str] = None) -> str:
    return os.path.join(output or DEFAULT_ROOT, project.name)


def scan_project(project: Project, options: Optional[ScanOptions] = None, cache: Any = None, **settings: Any):
    """``punstats.scan`` of one project with ``options`` (or ``settings``, ``punstats.scan``'s keywords)."""
    from punstats.runs import scan as scans
    return scans.scan(corpus=project_corpus(project),  # a git project's corpus is a revision
                      options=ScanOptions.given(options, settings), cache=cache)


def scan_corpus(corpus: CorpusFile, output: Optional[str] = None, *, skip_existing: bool = False,
                csv: bool = False, save: bool = True,
                on_start: Optional[Callable[[Project], None]] = None,
                on_done: Optional[Callable[[Stored], None]] = None,
                options: Optional[ScanOptions] = None, cache: Any = None, **settings: Any) -> List[Stored]:
    """Scan every project in order and store each in ``output/<name>/`` (default ``data/<name>/``).

    ``options``: every project's settings (or ``settings``, ``punstats.scan``'s keywords); ``cache``
    as ``punstats.scan`` takes it.  ``skip_existing`` keeps a project whose folder already holds a
    stored scan (resuming an interrupted run).  A project that fails stops the run with a
    ``CorpusError`` naming it; the ones before it stay stored.
    """
    from punstats import engines as engine
    from punstats.runs import scan as scans
    options = ScanOptions.given(options, settings)
    if options.engine == "dask" and options.scheduler is None:  # one local cluster for all
        with engine.local_cluster(options.jobs) as address:
            return scan_corpus(corpus, output, skip_existing=skip_existing, csv=csv, save=save,
                               on_start=on_start, on_done=on_done,
                               options=dataclasses.replace(options, scheduler=address), cache=cache)
    done: List[Stored] = []
    for number, project in enumerate(corpus.projects, 1):  # every folder checked before the first scan
        _check_folder(output_directory(project, output), number, project)
    for number, project in enumerate(corpus.projects, 1):
        directory = output_directory(project, output)
        _check_folder(directory, number, project)  # again: swapped for a link since
        if on_start:
            on_start(project)
        if skip_existing and os.path.isfile(os.path.join(directory, SUMMARY_FILE)):
            stored = Stored(project, directory, dict(scans.load(directory).summary, stored=directory), True)
        else:
            try:
                result = scan_project(project, options, cache)
            except PunstatsError as exc:  # SourceError, GitError, EngineError, bad rules; not a bug
                raise CorpusError("project %d (%s, %s): %s" % (number, project.name, project.label,
                                                              one_line(exc))) from None
            summary = result.summary
            if save:
                result.save(directory, csv=csv)
                summary = dict(summary, stored=directory)
            stored = Stored(project, directory, summary)
        done.append(stored)
        if on_done:
            on_done(stored)
    return done



def _check_folder(directory: str, number: int, project: Project) -> None:
    """A ``CorpusError`` when a project's folder is a symbolic link: its name is the corpus
    file's, not the user's choice of a place, so a link there would lead the scan outside
    ``-o`` (and a stored scan there would be replaced)."""
    if os.path.islink(directory):
        raise CorpusError("project %d (%s): %s is a symbolic link, and a corpus run stores only inside its "
                          "folder; remove the link, or choose another -o" % (number, project.name, directory))


def top_pypi_run(argument: str, top_list: Optional[str] = None, *, output: Optional[str] = None,
                 get: Any = None, scan: Optional[ScanOptions] = None, seed: Optional[str] = None,
                 releases: Optional[str] = None, **options: Any):
    """``corpus top-pypi:N`` or ``random-pypi:N`` (with ``seed``): (a function running it, its
    ``ecosystem.Options``), checked before any work.

    The function takes ``on_done`` (and ``timing``) and returns (records, ecosystem summary);
    ``top_list``: the list to read (``--top-pypi-list``, ``--random-pypi-list``); ``scan``: each
    project's ``ScanOptions`` (or give their fields among ``options``), user patterns included
    (with the Dask engine, those that can be sent by their source: ``ScanOptions.check``);
    ``options`` are ``ecosystem.Options`` fields;
    ``output`` defaults to ``data/top-pypi-N`` (``data/random-pypi-N-seed-S``); ``releases``
    (``yearly:A..B``) makes it a run over years (``runs.years``, whose list of what each year gave
    the function returns), in ``data/top-pypi-N-yearly-A-B`` by default.
    """
    from punstats.sources.releases import parse_releases
    # a bad value is one line, before any work
    years = parse_releases(releases) if releases is not None else None
    from punstats.runs import ecosystem
    from punstats.sources import pypi
    if options.get("index_url") is not None and not pypi.fetchable(options["index_url"]):
        raise SourceError("--index-url: " + pypi.refusal(options["index_url"]))
    names = {field.name for field in dataclasses.fields(ScanOptions)}
    scan = ScanOptions.given(scan, {key: options.pop(key) for key in list(options) if key in names})
    # every project is an unpacked archive: its own .gitignore does not apply, and the run says so
    scan = dataclasses.replace(scan, gitignore=False)
    scan.check()  # the engine, and user patterns only where they can run (Dask: sent by their source)
    getter = get or pypi.http_get
    if options.get("index_url") is None:
        options["index_url"] = pypi.INDEX_URL
    suffix = "" if years is None else "-yearly-%d-%d" % (years[0], years[-1])
    ranked, projects, default = _listing(argument, top_list, seed, output, options, getter, suffix)
    run_options = ecosystem.Options(output=output or os.path.join(DEFAULT_ROOT, default), scan=scan, **options)
    if scan.engine == "dask" and scan.scheduler is None:  # one local cluster for all
        def run(**kwargs: Any):
            from punstats import engines as engine
            with engine.local_cluster(scan.jobs) as address:
                clustered = dataclasses.replace(run_options, scan=dataclasses.replace(scan, scheduler=address))
                return _run(ranked, projects, years, clustered, getter, **kwargs)
        return run, run_options
    return (lambda **kwargs: _run(ranked, projects, years, run_options, getter, **kwargs)), run_options


def _run(ranked: Any, projects: Any, years: Any, options: Any, get: Any, **kwargs: Any) -> Any:
    """The run of one moment (``runs.ecosystem``) or, with ``years``, over years (``runs.years``)."""
    from punstats.runs import ecosystem
    if years is None:
        return ecosystem.run_top(ranked, projects, options, get, **kwargs)
    from punstats.runs.years import run_years
    return run_years(ranked, projects, years, options, get, **kwargs)


def _listing(argument: str, where: Optional[str], seed: Optional[str], output: Optional[str],
             options: Dict[str, Any], get: Any, suffix: str = ""):
    """(the list, its projects to scan, the default output folder) of ``top-pypi:N`` or ``random-pypi:N``."""
    from punstats.sources import randompypi, toppypi
    from punstats.store.ecosystem import folder_name
    if not randompypi.is_spec(argument):
        n = toppypi.parse_spec(argument)
        if seed is not None:
            raise SourceError("--seed draws random-pypi:N; top-pypi:%d is a ranked list" % n)
        ranked, projects = toppypi.top(n, where, get)
        return ranked, projects, folder_name(n) + suffix
    n = randompypi.parse_spec(argument)
    chosen = randompypi.parse_seed(seed, argument)
    location = where or randompypi.simple_url(options["index_url"])
    default = folder_name(n, chosen) + suffix
    drawn = randompypi.recorded(_recorded_list(output or os.path.join(DEFAULT_ROOT, default))
                                if options.get("skip_existing") else None, n, chosen, location)
    drawn = drawn or randompypi.sample(n, chosen, location, get)  # resumed: the sample drawn at the start
    return drawn, drawn.projects, default


def _recorded_list(output: str) -> Any:
    """The list an earlier run in ``output`` recorded (its ``run.json``; a run over years: its
    ``years.json``), or None."""
    from punstats.model import jsondata
    from punstats.runs.ecosystem import RUN_FILE
    from punstats.store.years import YEARS_FILE, is_years
    try:
        with open(os.path.join(output, YEARS_FILE if is_years(output) else RUN_FILE), encoding="utf-8") as handle:
            run = jsondata.load(handle)
    except (OSError, ValueError):
        return None
    return run.get("list") if isinstance(run, dict) else None
