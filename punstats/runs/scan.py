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
from punstats.discover import ignore
from punstats.discover.revision import discover_git
from punstats.discover.tree import DEFAULT_EXTENSIONS, discover
from punstats.extract.traversal import EXTRACTOR_VERSION
from punstats.model.corpus import Corpus
from punstats.model.limits import DEFAULT_MAX_BYTES
from punstats.sources import resolve
from punstats.sources.local import now
from punstats.store import reuse
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

    def _repr_html_(self) -> str:  # a notebook shows the headline, not the tables' repr
        from punstats.present.console import summary_html
        return summary_html(self.summary)

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


def _rule(test_rule: Union[str, TestRule]) -> TestRule:
    return test_rule if isinstance(test_rule, TestRule) else parse_test_rule(test_rule)


def _provenance_of(summary: Dict[str, Any]) -> Dict[str, Any]:
    keys = ("corpus", "root", "source", "revision", "commit_date", "python", "python_implementation",
            "punstats_version", "extractor_version", "skipped_dirs", "created", "archive", "refused_members",
            "cache", "lines_saved")
    return {key: summary[key] for key in keys if key in summary}


def _check_engine(name: str, scheduler: Optional[str], python: Optional[str]) -> None:
    """Before any work: the engine exists here and goes with the other options."""
    engine.check_engine(name)
    if scheduler is not None and name != "dask":
        raise engine.EngineError("a scheduler address needs the dask engine (--engine dask)")
    if python is not None and name != "local":
        raise engine.EngineError("--python runs its own worker processes; it needs the local engine")


def _raw_tables(name: str, scheduler: Optional[str], candidates: Sequence[Any], jobs: Optional[int],
                max_bytes: int, progress: Optional[Callable[[int], None]], cache: Optional[BlobCache],
                root: str, read_blob: Optional[Callable[[str], bytes]] = None,
                ) -> Tuple[store.Tables, Optional[Dict[str, int]]]:
    """The tables of ``candidates`` extracted by the named engine, through
    ``cache`` when given; and how many came from it (None without a cache)."""
    def run(chunk: Sequence[Any], on_batch: Optional[engine.Sink] = None) -> List[Any]:
        if name == "dask":
            return engine.run_dask(chunk, scheduler=scheduler, jobs=jobs, max_bytes=max_bytes,
                                   progress=progress, on_batch=on_batch)
        return engine.run(chunk, jobs=jobs, max_bytes=max_bytes, progress=progress, on_batch=on_batch)

    if cache is None:
        return store.raw_tables(run(candidates)), None
    return reuse.cached_tables(candidates, cache, run, root, max_bytes, progress, read_blob=read_blob)


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
         progress: Union[Callable[[int], None], bool, None] = None,
         on_discovered: Optional[Callable[[int], None]] = None,
         corpus: Optional[Corpus] = None, rev: Optional[str] = None,
         python: Optional[str] = None, cache: Union[BlobCache, str, bool, None] = None,
         engine: str = "local", scheduler: Optional[str] = None,
         lines_saved: bool = False, gitignore: bool = True, exclude: Sequence[str] = ()) -> ScanResult:
    """Scan a directory (default: this interpreter's standard library).

    ``progress`` is called with the number of files just finished (True: draw a bar);
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
    ``lines_saved``: also rewrite every file in memory as ``punstats rewrite
    --rewrap`` does and record the lines that punning would save (a
    directory only; nothing is written).
    ``gitignore``, ``exclude``: leave out what ``.gitignore`` files and these
    globs name (a directory only; ``discover.ignore``).
    """
    rule = _rule(test_rule)
    _check_engine(engine, scheduler, python)
    with contextlib.ExitStack() as stack:  # the cache and the blob reader are closed at the end
        if progress is True:  # a bar where the caller is (a notebook widget, or a terminal line)
            from punstats.runs.progress import auto_bar
            progress, on_discovered = auto_bar(stack, on_discovered)
        tick = progress if callable(progress) else None
        blob_cache = open_cache(cache)
        if blob_cache is not None and blob_cache is not cache:
            stack.callback(blob_cache.close)
        read_blob = None
        if rev is not None:
            from punstats.sources import git as gitsource
            corpus = corpus or gitsource.git_corpus(path or ".", rev)
        else:
            corpus = corpus or resolve(path)
        if lines_saved and corpus.is_revision:
            raise ValueError("lines saved are measured on a directory, not a revision: check it out first")
        if corpus.is_revision:
            from punstats.sources import git as gitsource
            # with a cache, blobs are read only when not cached (many revisions share most of them)
            lazy = blob_cache is not None and python is None
            found = discover_git(corpus.root, corpus.revision, tuple(extensions),
                                           max_bytes=max_bytes, exclude_dirs=exclude_dirs, with_data=not lazy)
            if lazy:
                read_blob = stack.enter_context(gitsource.BlobReader(corpus.root)).read
        else:
            left_out = ignore.matcher(corpus.root, gitignore, exclude)
            found = discover(corpus.root, tuple(extensions), follow_links=follow_links,
                             max_bytes=max_bytes, exclude_dirs=exclude_dirs,
                             ignore=left_out.reason if left_out else None)
        if on_discovered:
            on_discovered(len(found.candidates))
        parser = (platform.python_version(), platform.python_implementation())
        cache_counts = None
        if python is not None:
            from punstats.engines import interp
            with interp.Pool(python, jobs=min(jobs or 1, 2)) as pool:
                extractions = interp.extract_candidates(found.candidates, pool, max_bytes, blob_cache, tick)
                parser = (pool.info["python"], pool.info["implementation"])
            tables = store.raw_tables(extractions)
        else:
            tables, cache_counts = _raw_tables(engine, scheduler, found.candidates, jobs, max_bytes,
                                               tick, blob_cache, found.root, read_blob)
    occurrences, files, functions = (store.apply_rule(table, rule) for table in tables)
    rules = {
        "test_rule": rule.label,
        "long_threshold": long_threshold,
        "extensions": list(extensions),
        "follow_links": follow_links,
        "exclude_dirs": exclude_dirs,
        "max_bytes": max_bytes,
        "definition": "ast.keyword of ast.Call, arg not None, value ast.Name with id == arg",
        "gitignore": gitignore and not corpus.is_revision, "exclude": list(exclude),
    }
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
    if cache_counts is not None:  # how this run got its results; the results do not depend on it
        provenance["cache"] = cache_counts
    if lines_saved:
        from punstats import rewrite
        totals = rewrite.summarize(rewrite.rewrite_tree(corpus.root, rewrap=True, extensions=extensions,
                                                        jobs=jobs))  # None: all cores
        provenance["lines_saved"] = {"lines_saved": totals.lines_saved, "lines_removed": totals.lines_removed,
                                     "lines_added": totals.lines_added, "files_changed": totals.changed,
                                     "edits": totals.edits, "joins": totals.joins, "rule": "rewrite --rewrap"}
    if corpus.archive is not None:  # unpacked from an archive (pypi:): what it was, what was refused
        provenance["archive"] = corpus.archive
        provenance["refused_members"] = [{"member": m, "reason": r, "detail": d}
                                         for m, r, d in corpus.refused_members]
    return ScanResult(occurrences, files, _summary(occurrences, files, functions, rules, provenance),
                      functions)


def load(directory: str) -> ScanResult:
    """A scan stored by ``ScanResult.save`` or ``punstats scan -o``."""
    occurrences, files, summary, functions = store.read(directory)
    return ScanResult(occurrences, files, summary, functions)


__all__ = ["ScanResult", "scan", "load"]

