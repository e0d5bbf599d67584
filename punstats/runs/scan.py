"""The Python API: scan a corpus, load a stored scan, re-apply rules.

``scan`` wires the pipeline together (resolve the corpus -> discover files
-> extract in an engine -> build the tables -> summarize); the command line
and notebooks both call it.
"""
from __future__ import annotations

import contextlib
import platform
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import pandas as pd

from punstats import __version__, analysis, store
from punstats import engines as engine
from punstats.cache import BlobCache
from punstats.discover.revision import discover_git
from punstats.discover.tree import DEFAULT_EXTENSIONS, discover
from punstats.extract.traversal import EXTRACTOR_VERSION
from punstats.model.corpus import Corpus
from punstats.model.limits import DEFAULT_MAX_BYTES
from punstats.sources import resolve
from punstats.sources.local import now
from punstats.store import reuse
from punstats.model.discovery import Discovery
from punstats.runs.options import ScanOptions, as_rule
from punstats.store.rules import (
    DEFAULT_LONG_THRESHOLD,
    DEFAULT_TEST_RULE,
    TestRule,
    parse_test_rule,
)


@dataclass(frozen=True)
class ScanResult:
    """A scan: its tables and its summary (counts plus provenance)."""

    occurrences: pd.DataFrame
    files: pd.DataFrame
    summary: Dict[str, Any]
    functions: Optional[pd.DataFrame] = None  # one row per function; None in older stored scans

    def save(self, directory: str, csv: bool = False) -> None:
        store.write(directory, self.occurrences, self.files, self.summary, csv=csv,
                    functions=self.functions)

    def with_rules(self, test_rule: Union[str, TestRule, None] = None,
                   long_threshold: Optional[int] = None) -> "ScanResult":
        """The same scan re-classified; no file is read again."""
        rule = _rule(test_rule) if test_rule is not None else parse_test_rule(self.summary["test_rule"])
        threshold = self.summary["long_threshold"] if long_threshold is None else long_threshold
        occurrences = store.apply_rule(self.occurrences, rule)
        files = store.apply_rule(self.files, rule)
        functions = store.apply_rule(self.functions, rule) if self.functions is not None else None
        rules = dict(self.summary["rules"], test_rule=rule.label, long_threshold=threshold)
        summary = _summary(occurrences, files, functions, rules, _provenance_of(self.summary))
        return ScanResult(occurrences, files, summary, functions)


_rule = as_rule


def _provenance_of(summary: Dict[str, Any]) -> Dict[str, Any]:
    keys = ("corpus", "root", "source", "revision", "commit_date", "python", "python_implementation",
            "punstats_version", "extractor_version", "skipped_dirs", "created", "archive", "refused_members",
            "cache", "lines_saved")
    return {key: summary[key] for key in keys if key in summary}


def _raw_tables(options: ScanOptions, candidates: Sequence[Any], progress: Optional[Callable[[int], None]],
                cache: Optional[BlobCache], root: str, read_blob: Optional[Callable[[str], bytes]] = None,
                ) -> Tuple[store.Tables, Optional[Dict[str, int]]]:
    """The tables of ``candidates`` extracted by the engine of ``options``,
    through ``cache`` when given; and how many came from it (None without a cache)."""
    def run(chunk: Sequence[Any], on_batch: Optional[engine.Sink] = None) -> List[Any]:
        if options.engine == "dask":
            return engine.run_dask(chunk, scheduler=options.scheduler, jobs=options.jobs,
                                   max_bytes=options.max_bytes, progress=progress, on_batch=on_batch)
        return engine.run(chunk, jobs=options.jobs, max_bytes=options.max_bytes, progress=progress,
                          on_batch=on_batch)

    if cache is None:
        return store.raw_tables(run(candidates)), None
    return reuse.cached_tables(candidates, cache, run, root, options.max_bytes, progress, read_blob=read_blob)


def open_cache(cache: Union[BlobCache, str, bool, None]) -> Optional[BlobCache]:
    """``cache`` as ``scan`` takes it: a BlobCache, a file path, True (the
    default location) or None/False (no cache)."""
    if cache is None or cache is False:
        return None
    if cache is True:
        return BlobCache()
    if isinstance(cache, str):
        return BlobCache(cache)
    return cache


def _summary(occurrences: pd.DataFrame, files: pd.DataFrame, functions: Optional[pd.DataFrame],
             rules: Dict[str, Any], provenance: Dict[str, Any]) -> Dict[str, Any]:
    counts = analysis.summarize(occurrences, files, rules["long_threshold"])
    if functions is not None:
        counts["parameters"] = analysis.parameters(functions)
    return {**counts, "test_rule": rules["test_rule"], "rules": rules, **provenance}


def scan(path: Optional[str] = None, *, jobs: Optional[int] = None,
         test_rule: Union[str, TestRule] = DEFAULT_TEST_RULE,
         long_threshold: int = DEFAULT_LONG_THRESHOLD,
         extensions: Sequence[str] = DEFAULT_EXTENSIONS,
         follow_links: bool = False, exclude_dirs: bool = True,
         max_bytes: int = DEFAULT_MAX_BYTES,
         progress: Optional[Callable[[int], None]] = None,
         on_discovered: Optional[Callable[[int], None]] = None,
         corpus: Optional[Corpus] = None, rev: Optional[str] = None,
         python: Optional[str] = None, cache: Union[BlobCache, str, bool, None] = None,
         engine: str = "local", scheduler: Optional[str] = None,
         lines_saved: bool = False) -> ScanResult:
    """Scan a directory (default: this interpreter's standard library).

    ``progress`` is called with the number of files just finished;
    ``on_discovered`` once with the number of files to extract.
    ``rev``: scan that revision of the git repository ``path`` (no checkout).
    ``python``: extract under that interpreter (``interp``).
    ``cache``: reuse and store per-file results by content (``incremental``):
    a ``cache.BlobCache``, a cache file path, or True for the user's cache
    directory; None (the default here; the command line's default is the
    cache) extracts every file.
    ``engine``: ``local`` (a process pool of ``jobs``) or ``dask`` (a Dask
    cluster at ``scheduler``, or a local one of ``jobs`` workers); the
    results are identical.
    ``lines_saved``: also rewrite every scanned file in memory as ``punstats
    rewrite --rewrap`` does and record the lines that punning would save (a
    directory only; nothing is written).
    """
    options = ScanOptions.of(test_rule=test_rule, extensions=extensions, jobs=jobs,
                             long_threshold=long_threshold, follow_links=follow_links,
                             exclude_dirs=exclude_dirs, max_bytes=max_bytes, rev=rev, python=python,
                             engine=engine, scheduler=scheduler, lines_saved=lines_saved)
    return run_scan(options, path, corpus, cache, progress, on_discovered)


def _corpus(options: ScanOptions, path: Optional[str], corpus: Optional[Corpus]) -> Corpus:
    if options.rev is not None:
        from punstats.sources import git as gitsource
        corpus = corpus or gitsource.git_corpus(path or ".", options.rev)
    else:
        corpus = corpus or resolve(path)
    if options.lines_saved and corpus.is_revision:
        raise ValueError("lines saved are measured on a directory, not a revision: check it out first")
    return corpus


def _discover(options: ScanOptions, corpus: Corpus, lazy: bool) -> Discovery:
    """The corpus's files; a revision's blobs are read here unless ``lazy``."""
    if corpus.is_revision:
        return discover_git(corpus.root, corpus.revision, options.extensions, max_bytes=options.max_bytes,
                            exclude_dirs=options.exclude_dirs, with_data=not lazy)
    return discover(corpus.root, options.extensions, follow_links=options.follow_links,
                    max_bytes=options.max_bytes, exclude_dirs=options.exclude_dirs)


def _provenance(corpus: Corpus, found: Discovery, parser: Tuple[str, str]) -> Dict[str, Any]:
    provenance = {
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
        "created": now(),
    }
    return provenance


def _lines_saved(found: Discovery, jobs: Optional[int]) -> Dict[str, Any]:
    """Lines punning would save in the scan's own files (``rewrite --rewrap``)."""
    from punstats.rewrite.tree import rewrite_candidates, summarize
    totals = summarize(rewrite_candidates(found.candidates, found.root, rewrap=True, jobs=jobs))  # None: all cores
    return {"lines_saved": totals.lines_saved, "lines_removed": totals.lines_removed,
            "lines_added": totals.lines_added, "files_changed": totals.changed,
            "edits": totals.edits, "joins": totals.joins, "rule": "rewrite --rewrap"}


def _archive(corpus: Corpus) -> Dict[str, Any]:
    """An unpacked archive (pypi:): what it was, what was refused."""
    if corpus.archive is None:
        return {}
    return {"archive": corpus.archive,
            "refused_members": [{"member": m, "reason": r, "detail": d} for m, r, d in corpus.refused_members]}


def run_scan(options: ScanOptions, path: Optional[str] = None, corpus: Optional[Corpus] = None,
             cache: Union[BlobCache, str, bool, None] = None,
             progress: Optional[Callable[[int], None]] = None,
             on_discovered: Optional[Callable[[int], None]] = None) -> ScanResult:
    """The pipeline: resolve the corpus, discover, extract (through the cache), tables, summary."""
    options.check()
    with contextlib.ExitStack() as stack:  # the cache and the blob reader are closed at the end
        blob_cache = open_cache(cache)
        if blob_cache is not None and blob_cache is not cache:
            stack.callback(blob_cache.close)
        corpus = _corpus(options, path, corpus)
        # with a cache, a revision's blobs are read only when not cached (revisions share most of them)
        lazy = corpus.is_revision and blob_cache is not None and options.python is None
        found = _discover(options, corpus, lazy)
        read_blob = None
        if lazy:
            from punstats.sources import git as gitsource
            read_blob = stack.enter_context(gitsource.BlobReader(corpus.root)).read
        if on_discovered:
            on_discovered(len(found.candidates))
        parser = (platform.python_version(), platform.python_implementation())
        cache_counts = None
        if options.python is not None:
            from punstats.engines import interp
            with interp.Pool(options.python, jobs=min(options.jobs or 1, 2)) as pool:
                extractions = interp.extract_candidates(found.candidates, pool, options.max_bytes,
                                                        blob_cache, progress)
                parser = (pool.info["python"], pool.info["implementation"])
            tables = store.raw_tables(extractions)
        else:
            tables, cache_counts = _raw_tables(options, found.candidates, progress, blob_cache, found.root,
                                               read_blob)
    occurrences, files, functions = (store.apply_rule(table, options.test_rule) for table in tables)
    provenance = _provenance(corpus, found, parser)
    if cache_counts is not None:  # how this run got its results; the results do not depend on it
        provenance["cache"] = cache_counts
    if options.lines_saved:
        provenance["lines_saved"] = _lines_saved(found, options.jobs)
    provenance.update(_archive(corpus))
    return ScanResult(occurrences, files, _summary(occurrences, files, functions, options.rules(), provenance),
                      functions)


def load(directory: str) -> ScanResult:
    """A scan stored by ``ScanResult.save`` or ``punstats scan -o``."""
    occurrences, files, summary, functions = store.read(directory)
    return ScanResult(occurrences, files, summary, functions)


__all__ = ["ScanResult", "scan", "load"]

