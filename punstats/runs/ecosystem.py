"""The top N PyPI projects in one run: streaming, bounded and resumable.

This module owns the loop behind ``punstats corpus top-pypi:N``.  A thread
pool resolves each project's latest release (``pypi.resolve_latest``: the
sdist, else a pure-Python wheel) and downloads it, and a few processes unpack
it (``runs.unpacking``), a few projects ahead of the scan; the main thread
scans one project at a time (the blob cache extracts a file seen in an earlier
project only once), stores it, then
deletes its unpacked tree (unless ``keep``) and trims the downloads to
``download_cap`` bytes (``runs.downloads``).  With the Dask engine, whole
projects (fetch and scan) run on the workers instead (``runs.ecosystem_dask``)
and only the storing happens here.  Nothing of a finished project stays in
memory but one small record, and the memory its scan freed goes back to the
system (``runs.memory``), so memory is flat in N.

The output directory::

    run.json                 the list (source, date), the rules (``ScanOptions.rules()``: with
                             each user pattern's sha256), the versions
    journal.jsonl            one line per finished project: the commit point
    projects/<name>.json     each project: rank, status, reason, release used, summary, measures
    occurrences/<name>.parquet, files/<name>.parquet
                             the combined dataset: pd.read_parquet(DIR/occurrences)
                             (a ``project`` and a ``rank`` column; a year of a run over years: ``year``)
    ecosystem.json           the ecosystem summary (analysis.ecosystem)

``store.ecosystem`` names these files and reads a finished run back (``read_run``: what
``table``, ``plot`` and ``report`` show).

Each file is written atomically, and a project counts as done only once its
journal line is written, so a run killed at any point resumes with
``skip_existing`` without losing or double-counting a project; projects that
failed (a network error, say) are tried again, skipped ones are not; a run
made with other rules or patterns (an edited pattern file) is not resumed.
"""
from __future__ import annotations

import contextlib
import functools
import json
import os
import platform
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Generator, Iterator, List, Optional, Sequence, Tuple

from punstats import __version__
from punstats.model.corpus import SourceError
from punstats.model.errors import one_line
from punstats.runs.downloads import Fetcher, ahead, fetching
from punstats.runs.memory import returned_memory
from punstats.runs.options import ScanOptions
from punstats.runs.overlap import Behind
from punstats.runs.resume import (  # noqa: F401  (rules_changed: its home before runs.resume)
    resume_refusal,
    rules_changed,
)
from punstats.sources import pypi
from punstats.sources.archives import Limits
from punstats.sources.toppypi import Listing, Ranked
from punstats.store.ecosystem import (  # noqa: F401  (their home before store.ecosystem)
    ECOSYSTEM_FILE,
    JOURNAL,
    RUN_FILE,
    TABLES,
    brief,
    briefs,
    foreign_entry,
    load_record,
    project_file,
    read_journal,
    readable_record,
)
from punstats.store.staging import append_synced, write_atomic

DEFAULT_DOWNLOAD_CAP = 2 * 1024 ** 3


class RunError(SourceError):
    """A run that cannot start or (``strict``) must stop; one line."""


@dataclass(frozen=True)
class Options:
    output: str
    scan: ScanOptions = field(default_factory=ScanOptions)  # how each project is scanned
    cache: Any = True  # as punstats.scan takes it
    download_jobs: int = 4
    download_cap: int = DEFAULT_DOWNLOAD_CAP
    downloads: Optional[str] = None  # default: the user's cache (pypi.default_dir)
    index_url: str = pypi.INDEX_URL
    keep: bool = False
    skip_existing: bool = False
    strict: bool = False
    outage_wait: float = 6 * 3600.0  # seconds a project waits for the network to come back before it fails
    limits: Limits = field(default_factory=Limits)  # made when the run starts: the limits of that moment
    year: Optional[int] = None  # None: each project's latest release; else the one at the end of that year
    #: a run over years: each project's release per year, read once for all years (``sources.releases``)
    year_releases: Any = field(default=None, compare=False)


@dataclass
class Timing:
    """Where the wall time went (for benchmarks/top_pypi.py)."""

    wall: float = 0.0
    waiting: float = 0.0  # the scan loop blocked on a download
    scanning: float = 0.0  # the scan loop scanning (discovery, extraction, the scan's own tables)
    scanning_cpu: float = 0.0  # the CPU seconds of that thread meanwhile (not its workers')
    storing: float = 0.0  # the store thread making records and tables, overlapping the next scan
    storing_cpu: float = 0.0
    files: int = 0
    bytes: int = 0
    per_project: List[Tuple[str, float, float]] = field(default_factory=list)  # name, fetch s, scan s


def _json_bytes(value: Any) -> bytes:
    return (json.dumps(value, indent=1, ensure_ascii=False) + "\n").encode()


def _prepare(output: str, top: Listing, options: Options) -> None:
    """The output directory, checked against an earlier run in it."""
    run: Dict[str, Any] = {"list": top.provenance(), "rules": options.scan.rules(),
                           "punstats_version": __version__, "index": options.index_url}
    # one year of a run over years (runs.years): a resumed year must read the releases of the same year
    if options.year is not None:
        run["releases"] = {"year": options.year}
    path = os.path.join(output, RUN_FILE)
    _check_own(output)
    if os.path.exists(os.path.join(output, JOURNAL)):
        if not options.skip_existing:
            raise RunError("%s already holds a run: resume it with --skip-existing, or choose another -o" % output)
        refusal = resume_refusal(output, run)
        if refusal:
            raise RunError(refusal)
    elif os.path.isdir(output):
        others = sorted(set(os.listdir(output)) - {RUN_FILE, JOURNAL, ECOSYSTEM_FILE, "projects"} - set(TABLES))
        if others:  # a run writes beside, and cleans, only what is its own
            raise RunError("%s holds other files than a run (%s); choose an empty or new -o"
                           % (output, ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")))
    try:
        for sub in ("projects",) + TABLES:
            os.makedirs(os.path.join(output, sub), exist_ok=True)
            for name in os.listdir(os.path.join(output, sub)):
                if name.startswith(".") and name.endswith(".tmp"):  # left by a kill
                    os.unlink(os.path.join(output, sub, name))
        write_atomic(path, _json_bytes(run))
    except OSError as exc:
        raise RunError("cannot write the run to %s: %s" % (output, exc.strerror or exc)) from None


def _check_own(output: str) -> None:
    """A one-line ``RunError`` when a folder of the run or its journal is a link (or of another
    type): nothing is written or removed outside ``output``.  Checked as the run starts and
    again before each project is stored, so a folder swapped for a link meanwhile is found."""
    foreign = foreign_entry(output)
    if foreign:
        raise RunError("%s: %s; remove it, or choose another -o" % (output, foreign))


def _compact(summary: Dict[str, Any]) -> Dict[str, Any]:
    """The per-project summary without what the measures already hold in full (what was
    skipped, ``skipped_dirs``, and refused, ``refused_members``, stay: each skip is recorded)."""
    drop = ("root",)
    return {k: v for k, v in summary.items() if k not in drop}


def _stored_tables(result: Any) -> Dict[str, Any]:
    """The project's stored tables (as the scan wrote them, in the stored types), as pyarrow Tables, each
    read as one file, not as a dataset (``pq.read_table``): ``pyarrow.dataset`` imports pandas."""
    import pyarrow.parquet as pq

    from punstats.store.staging import TABLE_FILES
    tables = {}
    for name in TABLES:
        with pq.ParquetFile(os.path.join(result.directory, TABLE_FILES[name])) as stored:
            tables[name] = stored.read()
    return tables


def _table_bytes(project: Ranked, result: Any, stored: Dict[str, Any], year: Optional[int] = None) -> Dict[str, bytes]:
    """The project's rows of the combined dataset: its ``stored`` tables (``_stored_tables``),
    with ``project`` and ``rank`` columns (and ``year``, for one year of a run over years: the
    years' datasets concatenate into one), as parquet bytes."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from punstats.store.arrays import constant
    from punstats.store.disk import provenance_metadata
    tables = {}
    for name in TABLES:
        table = stored[name]
        table = table.append_column("project", constant(project.name, len(table), pa.string()))
        table = table.append_column("rank", constant(project.rank, len(table), pa.int32()))
        if year is not None:
            table = table.append_column("year", constant(year, len(table), pa.int32()))
        metadata = dict(table.schema.metadata or {})
        metadata[b"punstats"] = json.dumps(provenance_metadata(result.summary), sort_keys=True).encode()
        sink = pa.BufferOutputStream()
        pq.write_table(table.replace_schema_metadata(metadata), sink)
        tables[name] = sink.getvalue().to_pybytes()
    return tables


def _scanned(project: Ranked, release: Any, result: Any, stored: Dict[str, Any]) -> Dict[str, Any]:
    """The record of a scanned project: its ``measures`` counted from its ``stored`` tables."""
    from punstats.analysis.ecosystem import measures
    return {"rank": project.rank, "project": project.name, "downloads": project.downloads,
            "status": "scanned", "distribution": release.packagetype, "version": release.version,
            "file": release.filename, "uploaded": release.upload_time, "lines": result.summary["lines"],
            "summary": _compact(result.summary), "measures": measures(stored["occurrences"], stored["files"])}


def not_scanned(project: Ranked, exc: BaseException) -> Dict[str, Any]:
    reason = getattr(exc, "reason", None)
    message = one_line(exc)
    if not isinstance(exc, SourceError):
        message = "%s: %s" % (type(exc).__name__, message)
    return {"rank": project.rank, "project": project.name, "downloads": project.downloads,
            "status": "skipped" if reason else "failed", "reason": reason or "error", "message": message}


def _commit(output: str, record: Dict[str, Any]) -> None:
    """The project's record, then its journal line (the commit point)."""
    write_atomic(project_file(output, record["project"]), _json_bytes(record))
    line = json.dumps({"rank": record["rank"], "project": record["project"], "status": record["status"]})
    append_synced(os.path.join(output, JOURNAL), line + "\n")


def _scan(corpus: Any, options: Options, cache: Any, workers: Any = None) -> Any:
    from punstats.runs import scan as scans
    with scans.nothing_found_unsaid():  # a project without Python files is recorded as one
        return scans.scan(corpus=corpus, options=options.scan, cache=cache, workers=workers,
                          eager=False)  # its stored tables are copied as they are


Outcome = Tuple[Dict[str, Any], Dict[str, bytes]]  # (the project's record, its tables as parquet bytes)


def scanned(project: Ranked, fetched: Tuple[Any, Any, float], fetcher: Fetcher, options: Options,
            cache: Any, timing: Optional[Timing] = None, workers: Any = None) -> Callable[[], Outcome]:
    """The project scanned (in this thread, through ``workers``: a pool the run shares) from what
    ``Fetcher.fetch`` gave; returned: what makes its record and tables of the scan and lets the
    fetcher delete its tree, to be called here or in another thread (``runs.overlap``)."""
    release, corpus, fetch_seconds = fetched
    if corpus is None:
        return lambda: (not_scanned(project, release), {})
    start = time.perf_counter()
    try:
        result = _scan(corpus, options, cache, workers)
    except Exception as exc:  # EngineError, a bad tree, a full disk: this project's failure, recorded
        result = exc
    scan_seconds = time.perf_counter() - start

    def made() -> Outcome:
        begun, cpu = time.perf_counter(), time.thread_time()
        try:
            if isinstance(result, Exception):
                raise result
            stored = _stored_tables(result)
            tables, record = _table_bytes(project, result, stored, options.year), _scanned(project, release,
                                                                                           result, stored)
            if timing is not None:
                timing.files += int(result.summary["files"])
                timing.bytes += int(corpus.archive.get("bytes", 0))
        except Exception as exc:  # as above, or the stored tables unreadable
            record, tables = not_scanned(project, exc), {}
        finally:
            fetcher.done_with(release)
        if timing is not None:
            timing.per_project.append((project.name, fetch_seconds, scan_seconds))
            timing.storing += time.perf_counter() - begun
            timing.storing_cpu += time.thread_time() - cpu
        return record, tables
    return made


def outcome(project: Ranked, fetched: Tuple[Any, Any, float], fetcher: Fetcher, options: Options,
            cache: Any, timing: Optional[Timing] = None) -> Outcome:
    """(the project's record, its tables as parquet bytes) from what ``Fetcher.fetch`` gave."""
    return scanned(project, fetched, fetcher, options, cache, timing)()


def _finish(output: str, project: Ranked, record: Dict[str, Any], tables: Dict[str, bytes],
            options: Options) -> None:
    if record["status"] == "failed" and options.strict:
        raise RunError("project %d (%s) failed: %s" % (project.rank, project.name, record["message"]))
    _check_own(output)
    for name, data in tables.items():
        write_atomic(os.path.join(output, name, project.name + ".parquet"), data)
    _commit(output, record)


def _local(todo: Sequence[Ranked], options: Options, get: pypi.Getter, cache: Any, timing: Timing,
           on_begin: Optional[Callable[[str], None]] = None, on_wait: Optional[Callable[[str], None]] = None,
           ) -> Generator[Tuple[Ranked, Callable[[], Outcome]], None, None]:
    """Each project scanned, in rank order, with what makes its outcome: downloads in threads,
    unpacking in processes of its own (``runs.unpacking``; fetched ahead by count and by unpacked
    bytes, at most ``download_cap``), scans here, every scan through one worker pool for the run
    (``on_begin``: told each project's name as the loop starts waiting for it; ``on_wait``: each
    pause for the network)."""
    from punstats.runs.pipeline import shared_pool
    from punstats.runs.unpacking import unpackers
    fetcher = Fetcher(options, get)
    fetcher.on_wait = on_wait
    # the pools first: their processes are forked before the fetch threads are started; the
    # archives are unpacked in processes of their own, not under this process's GIL; the fetch
    # threads end first, their downloads halted whatever ends the loop (SIGTERM, Ctrl-C, an error)
    with shared_pool(options.scan) as workers, \
            unpackers(options.download_jobs, options.scan.jobs) as unpacking, \
            fetching(fetcher, options.download_jobs) as pool:
        fetcher.unpack = unpacking.unpack if unpacking is not None else None
        for project, future in ahead(todo, fetcher, pool, options.download_jobs + 1, options.download_cap):
            if on_begin:
                on_begin(project.name)
            waited = time.perf_counter()
            fetched = future.result()
            timing.waiting += time.perf_counter() - waited
            start, cpu = time.perf_counter(), time.thread_time()
            made = scanned(project, fetched, fetcher, options, cache, timing, workers)
            timing.scanning += time.perf_counter() - start
            timing.scanning_cpu += time.thread_time() - cpu
            yield project, made


def _made(outcomes: Iterator[Tuple[Ranked, Dict[str, Any], Dict[str, bytes]]],
          ) -> Generator[Tuple[Ranked, Callable[[], Outcome]], None, None]:
    """(project, record, tables) as ``_local`` gives them: (project, what returns its outcome)."""
    for project, record, tables in outcomes:
        yield project, functools.partial(lambda made: made, (record, tables))


def _store(output: str, project: Ranked, made: Callable[[], Outcome], options: Options,
           on_done: Optional[Callable[[Dict[str, Any], bool], None]]) -> None:
    record, tables = made()
    _finish(output, project, record, tables, options)
    if on_done:
        on_done(record, False)


def run_top(top: Listing, projects: Sequence[Ranked], options: Options,
            get: pypi.Getter = pypi.http_get,
            on_done: Optional[Callable[[Dict[str, Any], bool], None]] = None,
            timing: Optional[Timing] = None,
            on_start: Optional[Callable[[int], None]] = None,
            on_begin: Optional[Callable[[str], None]] = None,
            on_wait: Optional[Callable[[str], None]] = None) -> Tuple[List[Dict[str, Any]], Dict[str, Any]]:
    """Scan ``projects`` into ``options.output``; (records in rank order, ecosystem summary).

    ``on_start(total)`` is told the number of projects once the output is ready (a progress
    bar's total); ``on_begin(name)`` each project's name as its fetch and scan are waited for
    (not with Dask); ``on_done(record, reused)`` sees each project as it finishes; ``on_wait(text)``
    each pause while the network is down (``Fetcher.fetch``), from a fetch thread.
    """
    from punstats.analysis.ecosystem import aggregate
    from punstats.runs.scan import open_cache
    timing = timing if timing is not None else Timing()
    output = options.output
    _prepare(output, top, options)
    journal = read_journal(output) if options.skip_existing else {}
    # failures, and records cut or edited since, are scanned again
    done = {name: entry for name, entry in journal.items()
            if entry.get("status") != "failed" and readable_record(output, name) is not None}
    todo = [p for p in projects if p.name not in done]
    cache = open_cache(options.cache) if options.scan.engine != "dask" else None
    start = time.perf_counter()
    if on_start:
        on_start(len(projects))
    try:
        for project in projects:
            if project.name in done and on_done:
                on_done(load_record(output, project.name), True)
        if options.scan.engine == "dask":  # whole projects on the workers
            from punstats.runs.ecosystem_dask import outcomes
            finished = _made(outcomes(todo, options, timing))
        else:
            finished = _local(todo, options, get, cache, timing, on_begin, on_wait)
        # freed buffers go back between projects: memory flat in N; each project is stored
        # while the next one is scanned
        # the scan loop closed here, whatever stops it: not by whichever thread drops it last
        with contextlib.closing(finished), returned_memory(), Behind("store") as behind:
            for project, made in finished:
                behind.submit(functools.partial(_store, output, project, made, options, on_done))
    finally:
        if cache is not None and cache is not options.cache:
            cache.close()
        timing.wall += time.perf_counter() - start
    if options.scan.patterns:  # their fields: the same columns in every project's table
        from punstats.store.fields import harmonize
        harmonize(os.path.join(output, "occurrences"))
    ecosystem = aggregate(load_record(output, p.name) for p in projects)  # one record at a time
    with open(os.path.join(output, RUN_FILE), encoding="utf-8") as handle:
        recorded = json.load(handle)
    # a year of a run over years says which (its tables, figures and reports name it)
    ecosystem.update(list=top.provenance(), asked=len(projects), rules=recorded["rules"],
                     punstats_version=__version__, python=platform.python_version(),
                     python_implementation=platform.python_implementation(), index=options.index_url,
                     **{key: recorded[key] for key in ("releases",) if key in recorded})
    write_atomic(os.path.join(output, ECOSYSTEM_FILE), _json_bytes(ecosystem))
    return list(briefs(load_record(output, p.name) for p in projects)), ecosystem
