"""The Python API: scan a corpus, load a stored scan, re-apply rules.

``scan`` builds the ``ScanOptions`` of its keywords and runs the pipeline
(``runs.pipeline``); the command line and notebooks both call it.  A
``ScanResult`` of a stored scan reads each table from disk when first asked
for it (``table``, ``plot`` and ``report`` never read the functions table).
"""
from __future__ import annotations

import contextlib
import os
import warnings
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Sequence, Union

from punstats import store
from punstats.cache import BlobCache
from punstats.discover.tree import DEFAULT_EXTENSIONS
from punstats.model.corpus import Corpus
from punstats.model.errors import NoPythonFilesWarning
from punstats.model.kinds import KIND_CALL, Kind
from punstats.model.limits import DEFAULT_MAX_BYTES
from punstats.patterns.built_in import registry_of
from punstats.runs.options import ScanOptions, as_rule
from punstats.runs.pipeline import PROVENANCE_KEYS, open_cache, run_scan  # noqa: F401  (open_cache: for callers)
from punstats.store.rules import (
    DEFAULT_LONG_THRESHOLD,
    DEFAULT_TEST_RULE,
    TestRule,
    parse_test_rule,
)

if TYPE_CHECKING:
    import pandas as pd

_TABLES = ("occurrences", "files", "functions")


#: A table of a stored scan not read yet (``ScanResult`` reads it when first used).
STORED = "<stored>"


@dataclass(frozen=True, repr=False)
class ScanResult:
    """A scan: its tables (DataFrames) and its summary (counts plus provenance).

    ``occurrences`` holds one row per occurrence of every kind the scan
    records (the ``kind`` column: ``call`` for ``f(x=x)``, the headline, and
    ``attribute``, ``near_miss``, ``dict_literal``, ``class`` and the user
    patterns' names); ``calls`` is its ``f(x=x)`` rows only, ``of_kind(name)``
    those of any kind.  ``files`` holds one row per file, ``functions`` one per
    function.  A result of a stored scan (``load``, ``scan(output=...)``)
    reads each table from its ``directory`` when first used.  Its columns with
    few distinct values (``kind``, ``status``, ``base_kind``, ``test_rule``,
    ``encoding``) are pandas categoricals; they are stored as strings.
    """

    occurrences: pd.DataFrame
    files: pd.DataFrame
    summary: Dict[str, Any]
    functions: Optional[pd.DataFrame] = None  # one row per function; None in older stored scans
    directory: Optional[str] = None  # where it is stored, when it is
    columns: Optional[Dict[str, Sequence[str]]] = None  # per table: only these are read from directory
    private: bool = False  # directory is the result's own temporary one, removed with it

    def __getattribute__(self, name: str) -> Any:
        value = object.__getattribute__(self, name)
        if value is STORED and name in _TABLES:
            columns = (object.__getattribute__(self, "columns") or {}).get(name)
            value = store.categorical(store.read_table(object.__getattribute__(self, "directory"), name,
                                                       list(columns) if columns else None))
            object.__setattr__(self, name, value)
        return value

    def __post_init__(self) -> None:
        for name in _TABLES:
            value = object.__getattribute__(self, name)
            if value is not STORED:
                object.__setattr__(self, name, store.categorical(value))

    @classmethod
    def stored(cls, directory: str, summary: Dict[str, Any],
               columns: Optional[Dict[str, Sequence[str]]] = None, private: bool = False) -> "ScanResult":
        return cls(STORED, STORED, summary, STORED, directory, columns, private)

    def _whole(self, name: str) -> Optional[pd.DataFrame]:
        """A table with all its columns, whatever ``columns`` says."""
        if self.columns and name in self.columns and self.directory is not None:
            return store.read_table(self.directory, name)
        return getattr(self, name)

    @property
    def calls(self) -> pd.DataFrame:
        """The ``f(x=x)`` rows of ``occurrences`` (kind ``call``, the headline): as many as
        ``summary["punnable"]`` counts."""
        return self.of_kind(KIND_CALL)

    def of_kind(self, name: str) -> pd.DataFrame:
        """The rows of ``occurrences`` of the kind ``name`` (a built-in kind or a pattern's name)."""
        registry = registry_of(self.summary)
        if name not in registry.occurrence_kinds:
            raise KeyError("%r is not a kind of occurrence of this scan (%s)"
                           % (name, ", ".join(registry.occurrence_kinds)))
        occurrences = self.occurrences
        return occurrences[occurrences["kind"] == name]

    def __repr__(self) -> str:  # a few numbers, never the tables (nor a read of them)
        s = self.summary
        kinds = s.get("kinds", {})
        occurrences = sum(kinds.get(name, 0) for name in registry_of(s).occurrence_kinds)
        revision = str(s.get("revision") or "")
        stored = self.directory if self.directory and not self.private else ""
        return "<ScanResult %s: %s%s, files %s parsed of %s, occurrences %s (f(x=x) %s)%s>" % (
            s.get("corpus"), _short(str(s.get("source")), 60), " at " + _short(revision) if revision else "",
            format(s.get("parsed", 0), ","), format(s.get("files", 0), ","), format(occurrences, ","),
            format(kinds.get(KIND_CALL, 0), ","), ", stored in " + stored if stored else "")

    def _repr_html_(self) -> str:  # a notebook shows the headline, not the tables' repr
        from punstats.present.console import summary_html
        return summary_html(self.summary)

    def save(self, directory: str, csv: bool = False) -> None:
        """Store the scan in ``directory`` (replacing a stored scan there whole)."""
        if self.directory is not None and not csv and _same(self.directory, directory):
            return  # stored there already
        from punstats.present.tidy import provenance_columns
        store.write(directory, *(self._whole(name) for name in ("occurrences", "files")), self.summary,
                    csv=csv, functions=self._whole("functions"),
                    csv_columns=provenance_columns(self.summary) if csv else None)

    def with_rules(self, test_rule: Union[str, TestRule, None] = None,
                   long_threshold: Optional[int] = None) -> "ScanResult":
        """The same scan re-classified; no file is read again."""
        from punstats.analysis.summary import parameters, summarize
        rule = as_rule(test_rule) if test_rule is not None else parse_test_rule(self.summary["test_rule"])
        threshold = self.summary["long_threshold"] if long_threshold is None else long_threshold
        occurrences = store.apply_rule(self._whole("occurrences"), rule)
        files = store.apply_rule(self._whole("files"), rule)
        functions = self._whole("functions")
        functions = store.apply_rule(functions, rule) if functions is not None else None
        rules = dict(self.summary["rules"], test_rule=rule.label, long_threshold=threshold)
        counts = summarize(occurrences, files, threshold, registry_of(self.summary).user)
        if functions is not None:
            counts["parameters"] = parameters(functions)
            counts["parameters_nontest"] = parameters(functions, nontest=True)
        summary = {**counts, "test_rule": rule.label, "rules": rules, **_provenance_of(self.summary)}
        return ScanResult(occurrences, files, summary, functions)


def _short(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[:width - 1] + "\u2026"


def _same(a: str, b: str) -> bool:
    return os.path.exists(b) and os.path.samefile(a, b)


def _provenance_of(summary: Dict[str, Any]) -> Dict[str, Any]:
    return {key: summary[key] for key in PROVENANCE_KEYS if key in summary}


def scan(path: Optional[str] = None, *, jobs: Optional[int] = None,
         test_rule: Union[str, TestRule] = DEFAULT_TEST_RULE, long_threshold: int = DEFAULT_LONG_THRESHOLD,
         extensions: Sequence[str] = DEFAULT_EXTENSIONS, follow_links: bool = False, exclude_dirs: bool = True,
         max_bytes: int = DEFAULT_MAX_BYTES, progress: Optional[Callable[[int], None]] = None,
         on_discovered: Optional[Callable[[int], None]] = None,
         corpus: Optional[Corpus] = None, rev: Optional[str] = None,
         python: Optional[str] = None, cache: Union[BlobCache, str, bool, None] = None,
         engine: str = "local", scheduler: Optional[str] = None,
         lines_saved: bool = False, gitignore: bool = True, exclude: Sequence[str] = (),
         patterns: Sequence[Union[str, Kind]] = (),
         output: Optional[str] = None, csv: bool = False, eager: bool = True,
         options: Optional[ScanOptions] = None, workers: Any = None) -> ScanResult:
    """Scan a directory (default: this interpreter's standard library).

    ``options``: the settings as one ``ScanOptions`` value (what the command
    line, ``corpus``, ``history`` and the ecosystem run pass), instead of the
    keywords from ``jobs`` to ``exclude`` (give one or the other).

    ``progress`` is called with the number of files just finished;
    ``on_discovered`` once with the number of files to extract.
    ``rev``: scan that revision of the git repository ``path`` (no checkout).
    ``python``: extract under that interpreter (the ``python`` engine, ``engines.interp``).
    ``cache``: reuse and store per-file results by content (``engines.cached``): a
    ``cache.BlobCache``, a cache file path, or True for the user's cache directory;
    None (the default here; not on the command line) extracts every file.
    ``engine``: a row of ``engines.registry`` (``local``, ``dask``, ``python:PATH``);
    the cache wraps any of them, and the results are identical.
    ``lines_saved``: also record the lines that ``punstats rewrite --rewrap`` would
    save (a directory only; nothing is written).
    ``gitignore``, ``exclude``: leave out what ``.gitignore`` files and these
    globs name (a directory only; ``discover.ignore``).
    ``patterns``: user patterns to count too, as ``--pattern`` takes them, or
    functions ``punstats.pattern`` decorated (``PatternError`` for one that cannot be loaded).
    ``output``: store the scan in that directory as it runs (``csv``: with
    CSV copies), replacing a stored scan there whole; the result then reads
    its tables from there.  Without it the tables are held in memory (with ``eager=False``
    only once used: in a private temporary directory, removed with the result).
    ``workers``: a started ``engines.local.Workers`` many scans share (a run's, not one per project).
    A scan that found no file to parse warns with ``NoPythonFilesWarning`` (its text:
    ``nothing_found``) and returns its result all the same (every share is n/a).
    """
    settings = dict(test_rule=test_rule, extensions=extensions, jobs=jobs, long_threshold=long_threshold,
                    follow_links=follow_links, exclude_dirs=exclude_dirs, max_bytes=max_bytes, rev=rev,
                    python=python, engine=engine, scheduler=scheduler, lines_saved=lines_saved,
                    gitignore=gitignore, exclude=tuple(exclude), patterns=[_kind_of(p) for p in patterns])
    options = ScanOptions.given(options, settings)
    with contextlib.ExitStack() as stack:
        if progress is True:  # a bar where the caller is (a notebook widget, or a terminal line)
            from punstats.runs.progress import auto_bar
            progress, on_discovered = auto_bar(stack, on_discovered)
        tick = progress if callable(progress) else None
        summary, staging = run_scan(options, path, corpus, cache, tick, on_discovered, output, csv, workers)
    if not summary["files"]:  # a valid result (stored like any other), said, not refused
        warnings.warn(NoPythonFilesWarning(nothing_found(summary)), stacklevel=2)
    if output is not None:
        return ScanResult.stored(output, summary)
    result = ScanResult.stored(staging.path, summary, private=True)
    weakref.finalize(result, staging.abort)  # the private directory goes with the result
    return ScanResult(result.occurrences, result.files, summary, result.functions) if eager else result


def nothing_found(summary: Dict[str, Any]) -> str:
    """What ``NoPythonFilesWarning`` says of a scan that found no file to parse (the command
    line prints it after ``punstats: warning: ``): where, which endings, which directories
    were left out."""
    extensions = summary.get("rules", {}).get("extensions", list(DEFAULT_EXTENSIONS))
    where = ("the revision %s of %s" % (str(summary.get("revision"))[:12], summary.get("source"))
             if summary.get("revision_scan") else summary.get("source"))
    skipped = ", ".join("%s %d" % item for item in sorted(summary.get("skipped_dirs", {}).items()))
    return "no Python files found in %s (files ending in %s%s); every share is n/a" % (
        where, ", ".join(extensions), "; skipped directories: " + skipped if skipped else "")


@contextlib.contextmanager
def nothing_found_unsaid() -> Any:
    """Within it ``scan`` does not warn of a scan of nothing: for callers that say it their
    own way (the command line, one revision of a history, one project of an ecosystem run)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NoPythonFilesWarning)
        yield


def _kind_of(pattern: Any) -> Any:
    """A pattern as ``scan`` takes it: a decorated function stands for its ``Kind``."""
    from punstats.model.kinds import PATTERN_ATTRIBUTE
    return getattr(pattern, PATTERN_ATTRIBUTE, pattern) if callable(pattern) else pattern


#: The columns ``table``, ``plot`` and ``report`` use (``load(directory, columns=PRESENTED)``).
PRESENTED: Dict[str, Sequence[str]] = {"occurrences": ("path", "name", "name_len", "kind", "callee", "in_test"),
             "files": ("path", "status", "keywords", "punnable", "in_test")}


def load(directory: str, columns: Optional[Dict[str, Sequence[str]]] = None) -> ScanResult:
    """A scan stored by ``ScanResult.save`` or ``punstats scan -o``; each
    table is read when first used (only ``columns[table]`` when given)."""
    return ScanResult.stored(directory, store.read_summary(directory), columns)


#: The environment variables ``load_or_scan`` reads: a stored scan to load, else a path to scan.
SCAN_VARIABLE, PATH_VARIABLE = "PUNSTATS_SCAN", "PUNSTATS_SCAN_PATH"


def load_or_scan(directory: Optional[str] = None, path: Optional[str] = None) -> ScanResult:
    """The scan a notebook explores: the stored scan in ``directory``, else a scan of
    ``path``, through the cache ``punstats scan`` uses; given neither, the same from the
    environment (``PUNSTATS_SCAN=DIR``, else ``PUNSTATS_SCAN_PATH=PATH``), else a scan of
    this interpreter's standard library.  A relative path is looked for from where
    Jupyter was started (``$PWD``), the current directory (a notebook's own) and its parent
    (the repository root, for ``notebooks/``), in that order."""
    if directory is None and path is None:
        directory, path = os.environ.get(SCAN_VARIABLE) or None, os.environ.get(PATH_VARIABLE) or None
    if directory is not None:
        return load(_found(directory))
    return scan(_found(path) if path else None, cache=True)


def _found(path: str) -> str:
    """``path`` from the first of the places ``load_or_scan`` looks that holds it (else as given)."""
    if os.path.isabs(path):
        return path
    cwd = os.getcwd()
    for base in (os.environ.get("PWD") or cwd, cwd, os.path.dirname(cwd)):
        if os.path.exists(os.path.join(base, path)):
            return os.path.join(base, path)
    return path


__all__ = ["ScanResult", "scan", "load", "load_or_scan", "nothing_found"]
