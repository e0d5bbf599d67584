"""The scan pipeline: resolve the corpus -> discover -> extract (through the
cache) -> stored tables and running totals -> summary.

Results stream: each engine batch is spilled as it arrives, then the three
tables are written in candidate order, row group by row group, into a
staging directory that replaces the stored scan whole at the end
(``store.staging.Staging``), while ``analysis.summary.Totals`` keeps the
running counts.  Nothing holds every row.  The output place is checked
before any file is read.
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
from typing import Any, Callable, ContextManager, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from punstats import __version__
from punstats.cache import BlobCache
from punstats.discover.revision import discover_git
from punstats.discover.tree import discover
from punstats.engines.cached import cacheable
from punstats.extract.notebook import NOTEBOOK_SUFFIX
from punstats.extract.traversal import EXTRACTOR_VERSION
from punstats.model.corpus import Corpus
from punstats.model.discovery import Discovery, Threshold
from punstats.model.kinds import Kind
from punstats.runs.options import ScanOptions
from punstats.sources import resolve
from punstats.sources.local import now
from punstats.store.staging import NO_ROOM, TABLE_FILES, Staging, cannot_store

Progress = Optional[Callable[[int], None]]


def open_cache(cache: Union[BlobCache, str, bool, None], patterns: Sequence[Kind] = ()) -> Optional[BlobCache]:
    """``cache`` as ``scan`` takes it: a BlobCache, a file path, True (the
    default location) or None/False (no cache); None too for ``patterns`` one of which is
    not named by a digest (``engines.cached.cacheable``): no result of another matcher is reused."""
    if cache is None or cache is False or not cacheable(patterns):
        return None
    if cache is True:
        return BlobCache()
    if isinstance(cache, str):
        return BlobCache(cache)
    return cache


def _corpus(options: ScanOptions, path: Optional[str], corpus: Optional[Corpus]) -> Corpus:
    if options.rev is not None:
        from punstats.sources import revision_corpus
        corpus = corpus or revision_corpus(path or ".", options.rev)
    else:
        corpus = corpus or resolve(path)
    options.check_corpus(corpus)
    return corpus


def _discover(options: ScanOptions, corpus: Corpus, lazy: bool, threshold: Optional[Threshold] = None) -> Discovery:
    """The corpus's files; a revision's blobs are read here unless ``lazy``."""
    if corpus.is_revision:
        return discover_git(corpus.root, corpus.revision, options.extensions, max_bytes=options.max_bytes,
                            exclude_dirs=options.exclude_dirs, with_data=not lazy, threshold=threshold)
    from punstats.discover import ignore
    left_out = ignore.matcher(corpus.root, options.gitignore, options.exclude)
    return discover(corpus.root, options.extensions, follow_links=options.follow_links,
                    max_bytes=options.max_bytes, exclude_dirs=options.exclude_dirs,
                    ignore=left_out.reason if left_out else None, threshold=threshold)


#: The keys of a summary that say what was scanned and how, not what was counted: a scan
#: re-classified under other rules (``ScanResult.with_rules``) keeps them as they are.
PROVENANCE_KEYS = ("distribution", "corpus", "root", "source", "revision", "commit_date", "python",
                   "python_implementation", "punstats_version", "extractor_version", "skipped_dirs",
                   "revision_scan", "created", "cache", "lines_saved", "archive", "refused_members", "patterns",
                   "labels_carried")


def _provenance(corpus: Corpus, found: Discovery, parser: Tuple[str, str]) -> Dict[str, Any]:
    return {**_distribution(corpus),
        "corpus": corpus.name,
        "root": found.root,
        "source": corpus.source,
        "revision": corpus.revision,
        "commit_date": corpus.commit_date,
        "python": parser[0],
        "python_implementation": parser[1],
        "punstats_version": __version__,
        "extractor_version": EXTRACTOR_VERSION,
        "skipped_dirs": found.skipped_dirs,
        **({"revision_scan": True} if corpus.is_revision else {}),  # read from git, not a directory
    }


def _distribution(corpus: Corpus) -> Dict[str, Any]:
    """A scan of an installed package records the distribution's name and version."""
    if corpus.is_revision or corpus.archive is not None or corpus.source == "stdlib":
        return {}
    from punstats.sources.installed import installed_distribution
    found = installed_distribution(corpus.root)
    return {"distribution": found} if found else {}


def _lines_saved(found: Discovery, jobs: Optional[int]) -> Dict[str, Any]:
    """Lines punning would save in the scan's own files (``rewrite --rewrap``); notebooks are
    not rewritten, so they save none."""
    from punstats.rewrite.tree import rewrite_candidates, summarize
    sources = [c for c in found.candidates if not c.path.endswith(NOTEBOOK_SUFFIX)]
    totals = summarize(rewrite_candidates(sources, found.root, rewrap=True, jobs=jobs))  # None: all cores
    return {"lines_saved": totals.lines_saved, "lines_removed": totals.lines_removed,
            "lines_added": totals.lines_added, "files_changed": totals.changed,
            "edits": totals.edits, "joins": totals.joins, "rule": "rewrite --rewrap"}


def _archive(corpus: Corpus) -> Dict[str, Any]:
    """An unpacked archive (pypi:): what it was, what was refused."""
    if corpus.archive is None:
        return {}
    return {"archive": corpus.archive,
            "refused_members": [{"member": m, "reason": r, "detail": d} for m, r, d in corpus.refused_members]}


def _storing(staging: Staging, function: Callable) -> Callable:
    """``function`` with a failed write (a full disk) as the one-line ``StoreError``."""
    @functools.wraps(function)
    def guarded(*args: Any) -> Any:
        try:
            return function(*args)
        except OSError as exc:
            raise cannot_store(exc, staging.name) from None
    return guarded


def csv_columns(described: Dict[str, Any]) -> Dict[str, Any]:
    """What a scan measured (its provenance and ``rules``) as the columns its CSV copies end with,
    those of ``table --format csv`` (``present.tidy.provenance_columns``)."""
    from punstats.present.tidy import provenance_columns
    rules = described["rules"]
    return provenance_columns(dict(described, test_rule=rules["test_rule"], long_threshold=rules["long_threshold"]))


class _Output:
    """The raw rows of one scan on their way to the stored tables and the totals."""

    def __init__(self, staging: Staging, options: ScanOptions, provenance: Dict[str, Any], count: int,
                 csv: bool) -> None:
        from punstats.analysis.summary import Totals
        from punstats.extract.patterns import node_units
        from punstats.store.disk import TableFiles
        from punstats.store.spill import RawOutput
        self.rule = options.test_rule
        self.totals = Totals(options.long_threshold, options.patterns)
        units = node_units(options.patterns)  # nodes of the ast classes the patterns count per
        described = dict(provenance, rules=options.rules())
        self.files = TableFiles(staging.path, described, csv=csv, units=units,
                                csv_columns=csv_columns(described) if csv else None)
        self.raw = RawOutput(staging.path, count, _storing(staging, self.consume), units)
        self.add = _storing(staging, self.raw.add)
        self.finish = _storing(staging, self.raw.finish)
        self.close = _storing(staging, self.files.close)

    def consume(self, name: str, raw: Any) -> None:
        from punstats.store.schema import with_rule
        table = with_rule(raw, self.rule)
        self.files.put(name, table)
        getattr(self.totals, "add_" + name)(table)

    def counts(self) -> Dict[str, Any]:
        """The summary's counts of everything that went through."""
        return dict(self.totals.counts(), parameters=self.totals.parameters(),
                    parameters_nontest=self.totals.parameters(nontest=True))

    @contextlib.contextmanager
    def discarded_on_failure(self) -> Iterator["_Output"]:
        """The writers closed at once if what runs in the block fails (a full disk),
        not at garbage collection, which would print their errors again."""
        try:
            yield self
        except BaseException:
            self.files.discard()
            raise


def worker_pool(options: ScanOptions, stack: contextlib.ExitStack,
                shared: Any = None) -> Tuple[Any, Optional[Threshold]]:
    """(the local engine's worker pool, not started yet; the threshold at which discovery
    starts it): as soon as discovery has found enough files to need a pool, before it
    finds the rest, so that the workers do not inherit the list of every file.
    (None, None) when no pool would be used; (``shared``, None) for a pool many scans share
    (``engines.local.Workers``, started once by an ecosystem run), which outlives this one."""
    if options.engine != "local" or options.jobs == 1:
        return None, None
    if shared is not None:
        return shared, None
    from punstats.engines.local import MIN_FILES_FOR_POOL, Workers
    workers = stack.enter_context(Workers(options.jobs))
    return workers, (MIN_FILES_FOR_POOL, lambda found: workers.start())


@contextlib.contextmanager
def shared_pool(options: ScanOptions) -> Iterator[Any]:
    """A local engine pool started now for many scans (``run_scan``'s ``workers``: an ecosystem
    run's projects), closed on leaving; None when the scans would use no pool."""
    if options.engine != "local" or options.jobs == 1:
        yield None
        return
    from punstats.engines.local import Workers
    with Workers(options.jobs) as workers:
        yield workers.start()


def open_engine(options: ScanOptions, progress: Progress, workers: Any = None) -> ContextManager[Any]:
    """The engine of ``options`` (``engines.registry``), opened: ``run(candidates, sink)``, the rows
    going to the sink only, and the parser it extracts with."""
    from punstats.engines import registry
    engine, argument = registry.split(options.engine_spec)
    return engine.factory(registry.Setup(argument, options.jobs, options.max_bytes, progress, workers,
                                         options.patterns, options.pattern_timeout, options.pattern_memory))


Tables = Tuple[Dict[str, Any], Dict[str, int], Optional[Dict[str, int]]]  # (counts, rows, cache counts)


def _tables(staging: Staging, options: ScanOptions, found: Discovery, provenance: Dict[str, Any],
            cache: Optional[BlobCache], engine: Any, progress: Progress,
            read_blob: Optional[Callable[[str], bytes]], csv: bool) -> Tables:
    """The stored tables of ``found`` in ``staging``, with their counts; ``engine``: an opened
    ``engines.registry`` engine, which the cache wraps whichever it is."""
    if cache is not None:
        return _through_cache(staging, options, found, provenance, cache, engine, progress, read_blob, csv)
    with _Output(staging, options, provenance, len(found.candidates), csv).discarded_on_failure() as output:
        engine.run(found.candidates, output.add)
        output.finish()
        rows = output.close()
    return output.counts(), rows, None


def _through_cache(staging: Staging, options: ScanOptions, found: Discovery, provenance: Dict[str, Any],
                   cache: BlobCache, engine: Any, progress: Progress,
                   read_blob: Optional[Callable[[str], bytes]], csv: bool) -> Tables:
    """As ``_tables``, reusing what the cache knows: the stored files of this
    corpus state and settings, else its raw tables, else per-file results."""
    from punstats.store import reuse
    state = reuse.CorpusState.of(found.candidates, options.max_bytes, engine.parser,
                                     patterns=options.patterns)  # keyed by the parser
    described = dict(provenance, rules=options.rules())
    if not csv:
        hit = _storing(staging, reuse.stored_scan)(cache, state, described, staging.path)
        if hit is not None:
            (progress or (lambda n: None))(state.prepared.count)
            return hit[0], hit[1], state.reused()
    with _Output(staging, options, provenance, len(found.candidates), csv).discarded_on_failure() as output:
        cache_counts = reuse.cached_tables(state, cache, engine.run, found.root, output.raw,
                                           options.max_bytes, progress, read_blob=read_blob)
        rows = output.close()
    counts = output.counts()
    if not csv and not cache_counts.get("unread") and not cache_counts.get("changed"):
        reuse.keep_stored_scan(cache, state, described, found.root, staging.path, list(TABLE_FILES.values()),
                               counts, rows)
    return counts, rows, cache_counts


def run_scan(options: ScanOptions, path: Optional[str] = None, corpus: Optional[Corpus] = None,
             cache: Union[BlobCache, str, bool, None] = None, progress: Progress = None,
             on_discovered: Progress = None, output: Optional[str] = None,
             csv: bool = False, workers: Any = None) -> Tuple[Dict[str, Any], Staging]:
    """Scan into ``output`` (None: a temporary directory, for the caller to
    read and remove); returns the summary and the committed staging.  ``workers``: a
    local engine pool shared with other scans (``worker_pool``)."""
    options.check()
    corpus = _corpus(options, path, corpus)
    if not corpus.honours_gitignore:  # git objects, an unpacked archive: no .gitignore applies
        options = dataclasses.replace(options, gitignore=False)
    elif corpus.root.endswith(NOTEBOOK_SUFFIX) and NOTEBOOK_SUFFIX not in options.extensions \
            and os.path.isfile(corpus.root):  # a notebook named alone is read as one, and its rules say so
        options = dataclasses.replace(options, extensions=options.extensions + (NOTEBOOK_SUFFIX,))
    # before any work: a place that cannot take the scan (or that holds the corpus) is an error now
    staging = Staging(output, _corpus_places(corpus))
    try:
        summary, rows = _scan_into(staging, options, corpus, cache, progress, on_discovered, csv, workers)
        summary["rows"] = rows  # summary.json says how many rows each table holds
        staging.commit(summary, _carry_labels(staging, summary))
        del summary["rows"]
    except OSError as exc:  # a write with no room left, wherever it was (the spill, a table, a CSV copy)
        staging.abort()
        if exc.errno in NO_ROOM:
            raise cannot_store(exc, staging.name) from None
        raise
    except BaseException:
        staging.abort()
        raise
    return summary, staging


def _carry_labels(staging: Staging, summary: Dict[str, Any]) -> Callable[[str], None]:
    """Carry the labels of the stored scan being replaced into the new one (``store.labels.carry``),
    ``labels_carried`` of ``summary`` when there were any; the ``after_swap`` of ``staging.commit``,
    which carries labels saved into the replaced scan meanwhile (and says so in ``summary``)."""
    from punstats.present.labels import markdown
    from punstats.store import labels
    before = labels.labels_state(staging.target)
    carried = labels.carry(staging.target, staging.path, markdown)
    if carried:
        summary["labels_carried"] = {c.kind: c.as_dict() for c in carried}

    def carry_saved(previous: str) -> None:
        again = labels.carry_saved(before, previous, str(staging.target), markdown)
        if again:
            summary["labels_carried"] = {c.kind: c.as_dict() for c in again}
            staging.restate(summary)
    return carry_saved


def _corpus_places(corpus: Corpus) -> List[Tuple[str, str]]:
    """The corpus's places on disk, which its scan's output must not be nor hold."""
    places = [("the corpus", corpus.root)]
    if os.path.lexists(corpus.source):  # a path the user named: an archive, a work tree
        places.append(("the corpus", corpus.source))
    return places


def _scan_into(staging: Staging, options: ScanOptions, corpus: Corpus, cache: Any, progress: Progress,
               on_discovered: Progress, csv: bool, shared: Any = None) -> Tuple[Dict[str, Any], Dict[str, int]]:
    with contextlib.ExitStack() as stack:  # the cache, the blob reader and a worker pool close at the end
        blob_cache = open_cache(cache, options.patterns)
        if blob_cache is not None and blob_cache is not cache:
            stack.callback(blob_cache.close)
        # with a cache, a revision's blobs are read only when not cached (revisions share most of them)
        lazy = corpus.is_revision and blob_cache is not None
        workers, threshold = worker_pool(options, stack, shared)
        found = _discover(options, corpus, lazy, threshold)
        read_blob = None
        if lazy:
            from punstats.sources import git as gitsource
            read_blob = stack.enter_context(gitsource.BlobReader(corpus.root)).read
        if on_discovered:
            on_discovered(len(found.candidates))
        engine = stack.enter_context(open_engine(options, progress, workers))
        provenance = _provenance(corpus, found, engine.python)
        counts, rows, cache_counts = _tables(staging, options, found, provenance, blob_cache, engine, progress,
                                             read_blob, csv)
    provenance["created"] = now()
    if cache_counts is not None:  # how this run got its results; the results do not depend on it
        provenance["cache"] = cache_counts
    if options.lines_saved:
        provenance["lines_saved"] = _lines_saved(found, options.jobs)
    provenance.update(_archive(corpus))
    patterns = [kind.provenance() for kind in options.patterns]
    return {**counts, "test_rule": options.test_rule.label, "rules": options.rules(), "patterns": patterns,
            **provenance}, rows
