"""Consecutive revisions of one repository, each costing what changed since the one before.

A ``Sweep`` walks revisions in order.  The first one's tree is listed whole
(``ls-tree``); after it, ``diff-tree`` between consecutive revisions names
the paths that changed, and only those are selected (with the rules of
``discover.revision``), named and extracted: through the cache
(``engines.cached``) when there is one, so a blob seen before is never
extracted again.  Each file's part of the counts (``FileCounts``) is kept by
path, and a revision's counts are running totals (``Tally``) from which the
parts of changed files are taken out and their new parts put in, so the work
of a revision grows with the files that changed, not with the files it holds.

The counts are those ``analysis.summary.Totals`` gives a scan of the revision
(``runs.scan``): the statuses, the sums of parsed files, the long ``f(x=x)``
and each user pattern's occurrences and the total of the unit it is counted
per (``Kind.per``), in all code and outside tests.  Files
that could not be read or whose worker died are looked at again at the next
revision, as a scan of it would.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
from collections import Counter
from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from punstats.analysis.summary import failed_by_reason, percent, status_counts
from punstats.cache import BlobCache
from punstats.discover.revision import read_entries, select_entries, venv_dirs_of
from punstats.engines.cached import GIT_LOCATION, blob_key, extract_version, prepare, run_cached, this_parser
from punstats.model.discovery import Candidate
from punstats.model.kinds import KIND_CALL, UNITS, Kind
from punstats.model.records import Extraction
from punstats.model.statuses import OK, PATTERN_TIMEOUT, UNREADABLE, WORKER_DIED
from punstats.runs.options import ScanOptions
from punstats.runs.pipeline import open_cache, open_engine, worker_pool
from punstats.sources import git as gitsource
from punstats.sources import gitdiff

#: The sums a file adds to a revision, before each user pattern's count and count outside tests.
COUNTED = ("calls", "keywords", "punnable", "keywords_nontest", "punnable_nontest", "long", "long_nontest")

#: Revisions whose changes one ``diff-tree`` call lists.
DIFFS_AT_ONCE = 200

#: Statuses of a file that a scan of the next revision would try again: circumstances, not the file.
RETRIED = frozenset({UNREADABLE, WORKER_DIED, PATTERN_TIMEOUT})

#: The cache's kind of a file's status and ``file_numbers``: what a history reads of a file seen
#: before, instead of its whole result (its rows decoded only to be counted).
NUMBERS_KIND = "history"

#: Bumped when what ``file_numbers`` holds changes.
NUMBERS_VERSION = 1


def numbers_version(options: ScanOptions, counted: Sequence[Kind]) -> str:
    """The cache's version key of ``file_numbers``: the extraction's (``extract_version``), the
    long threshold, and the name and unit of each pattern or followed kind ``counted``."""
    described = json.dumps([[kind.name, kind.per] for kind in counted], ensure_ascii=True)
    return "%s/numbers%d/long=%d/%s" % (extract_version(options.max_bytes, options.patterns), NUMBERS_VERSION,
                                        options.long_threshold, hashlib.sha256(described.encode()).hexdigest())


@dataclass(frozen=True)
class FileCounts:
    """One file's part of a revision's counts, and the tree entry it was counted from."""

    entry: gitsource.TreeEntry
    status: str
    readable: bool  # named by its blob (not a link, a submodule or over the cap): cached or extracted
    #: ``COUNTED``, then per user pattern its count, its count outside tests and the same two of its unit
    values: Tuple[int, ...]


def file_numbers(extraction: Extraction, long_threshold: int, patterns: Sequence[Kind]) -> Tuple[int, ...]:
    """What one file adds to each sum wherever it is (tests or not): its record's (a parsed
    file's) calls, keywords and punnable, its long f(x=x), and per pattern its occurrences and
    units: all a history needs of a file's result, and what the cache keeps of it (``NUMBERS_KIND``)."""
    record = extraction.record
    parsed = record.status == OK
    calls, keywords, punnable = (record.calls, record.keywords, record.punnable) if parsed else (0, 0, 0)
    long = sum(1 for o in extraction.occurrences if o.kind == KIND_CALL and o.name_len >= long_threshold)
    kinds = Counter(o.kind for o in extraction.occurrences) if patterns else Counter()
    per_pattern: List[int] = []
    for kind in patterns:
        per_pattern += [kinds[kind.name], unit_total(extraction, kind.per) if parsed else 0]
    return (calls, keywords, punnable, long, *per_pattern)


def file_values(numbers: Sequence[int], in_test: bool) -> Tuple[int, ...]:
    """What one file adds to each sum (``COUNTED``, then per pattern), from its ``file_numbers``."""
    outside = 0 if in_test else 1
    calls, keywords, punnable, long = numbers[:4]
    per_pattern: List[int] = []
    for count, unit in zip(numbers[4::2], numbers[5::2]):
        per_pattern += [count, count * outside, unit, unit * outside]
    return (calls, keywords, punnable, keywords * outside, punnable * outside, long, long * outside, *per_pattern)


def unit_total(extraction: Extraction, unit: str) -> int:
    """How many of ``unit`` (``model.kinds.UNITS``, or an ``ast`` class a pattern counts per) a parsed file holds."""
    if unit == "files":
        return 1
    if unit in UNITS:
        return int(getattr(extraction.record, unit, 0) or 0) if unit else 0
    return dict(extraction.units).get(unit, 0)


class Tally:
    """Running totals of a revision: the parts of its files added and taken out."""

    def __init__(self, patterns: Sequence[Kind], followed: Sequence[Kind] = ()) -> None:
        # a built-in kind followed (``history --kind attribute``) is summed as a pattern's count is
        self.patterns = tuple(patterns) + tuple(followed)
        self.names = tuple(kind.name for kind in self.patterns)  # what each file's pattern values count
        self.statuses: Counter = Counter()
        self.values = [0] * (len(COUNTED) + 4 * len(self.patterns))
        self.readable = 0

    def add(self, part: FileCounts, sign: int = 1) -> None:
        self.statuses[part.status] += sign
        self.readable += sign * part.readable
        for i, value in enumerate(part.values):
            self.values[i] += sign * value

    def summary(self) -> Dict[str, Any]:
        """The revision's counts under the keys of a scan's summary (``Totals.counts``)."""
        s = dict(zip(COUNTED, self.values))
        statuses = {k: v for k, v in self.statuses.items() if v}
        pattern_counts = self.values[len(COUNTED):]
        kinds = dict(zip(self.names, pattern_counts[0::4]))
        kinds_nontest = dict(zip(self.names, pattern_counts[1::4]))
        units = {kind.per: n for kind, n in zip(self.patterns, pattern_counts[2::4]) if kind.per}
        units_nontest = {kind.per: n for kind, n in zip(self.patterns, pattern_counts[3::4]) if kind.per}
        return {
            **status_counts(statuses),
            "failed_by_reason": failed_by_reason(statuses),
            **{name: s[name] for name in ("calls", "keywords", "punnable", "long", "long_nontest")},
            "punnable_pct": percent(s["punnable"], s["keywords"]),
            "keywords_nontest": s["keywords_nontest"],
            "punnable_nontest_pct": percent(s["punnable_nontest"], s["keywords_nontest"]),
            "kinds": {KIND_CALL: s["punnable"], **kinds},
            "kinds_nontest": {KIND_CALL: s["punnable_nontest"], **kinds_nontest},
            "units": {**units, "keywords": s["keywords"]},
            "units_nontest": {**units_nontest, "keywords": s["keywords_nontest"]},
            "patterns": [kind.provenance() for kind in self.patterns if kind.user],
            "followed": [kind.name for kind in self.patterns if not kind.user],
        }


class Sweep:
    """Revisions of one repository, one after the other (see the module's docstring)."""

    def __init__(self, gitdir: str, options: ScanOptions, cache: Optional[BlobCache], engine: Any,
                 stack: contextlib.ExitStack, followed: Sequence[Kind] = ()) -> None:
        self.gitdir, self.options, self.cache, self.engine, self._stack = gitdir, options, cache, engine, stack
        self._reader: Optional[gitsource.BlobReader] = None
        self.tree: Dict[str, gitsource.TreeEntry] = {}  # the entries whose path has one of the extensions
        self.venvs: Set[str] = set()  # the paths of every pyvenv.cfg (their directories are skipped)
        self.files: Dict[str, FileCounts] = {}  # the counted files, by path
        self.tally = Tally(options.patterns, followed)
        self.retry: Set[str] = set()
        self.previous: Optional[str] = None
        self.sizes: Dict[str, int] = {}  # the size of each blob the revisions of this chunk changed

    @property
    def reader(self) -> gitsource.BlobReader:
        """The blob reader, started when first needed (after the first tree is listed) and
        closed with the sweep."""
        if self._reader is None:
            self._reader = self._stack.enter_context(gitsource.BlobReader(self.gitdir))
        return self._reader

    def revisions(self, shas: Sequence[str]) -> Iterator[Tuple[Dict[str, Any], Dict[str, int]]]:
        """For each commit of ``shas`` in turn: its counts (as a scan's summary holds them) and how
        its files were got: ``cached`` (reused: from the revision before or from the cache) and
        ``extracted``.  The changes between consecutive commits are asked of git
        ``DIFFS_AT_ONCE`` revisions at a time."""
        for start in range(0, len(shas), DIFFS_AT_ONCE):
            chunk = shas[start:start + DIFFS_AT_ONCE]
            first = self.previous is None
            pairs = list(zip([self.previous or ""] + list(chunk[:-1]), chunk))[1 if first else 0:]
            diffs = gitdiff.changed_entries(self.gitdir, pairs)
            if first:
                diffs.insert(0, [(entry.path, entry) for entry in gitsource.list_tree(self.gitdir, chunk[0])])
            self.sizes = self.reader.sizes(sorted({entry.oid for changes in diffs for path, entry in changes
                                                   if entry is not None and entry.kind == "blob"
                                                   and path.endswith(self.options.extensions)}))
            for sha, changes in zip(chunk, diffs):
                counts = self._update(self._apply(changes) | self.retry)
                self.previous = sha
                yield self.tally.summary(), counts

    def _apply(self, changes: Sequence[Tuple[str, Optional[gitsource.TreeEntry]]]) -> Set[str]:
        """The tree brought up to date; the paths to look at again (every one when an
        environment appeared or went: that decides what is skipped)."""
        touched, venvs = set(), set(self.venvs)
        for path, entry in changes:
            if path.endswith("/pyvenv.cfg"):
                (venvs.add if entry is not None else venvs.discard)(path)
            if path.endswith(self.options.extensions):
                touched.add(path)
                if entry is None:
                    self.tree.pop(path, None)
                else:
                    self.tree[path] = entry
        if venvs != self.venvs:
            self.venvs = venvs
            touched |= set(self.tree) | set(self.files)
        return touched

    def _update(self, paths: Set[str]) -> Dict[str, int]:
        """Take out the parts of ``paths`` that changed or went, count what is new."""
        entries = [self.tree[path] for path in sorted(paths) if path in self.tree]
        wanted, known, _ = select_entries(entries, "", self.options.extensions, self.options.exclude_dirs,
                                          venv_dirs_of(self.venvs))
        chosen = {entry.path for entry in wanted} | {candidate.path for candidate in known}
        for path in paths:
            part = self.files.get(path)
            if part is not None and (path not in chosen or part.entry != self.tree[path] or path in self.retry):
                self.tally.add(self.files.pop(path), -1)
        self.retry = set()
        fresh = [entry for entry in wanted if entry.path not in self.files]
        candidates = [c for c in known if c.path not in self.files]
        candidates += read_entries(self.gitdir, fresh, "", self.options.max_bytes, self.cache is None, self.reader,
                                   self.sizes)
        return self._extract(candidates)

    def _extract(self, candidates: List[Candidate]) -> Dict[str, int]:
        """Count ``candidates``: their numbers from the cache, else their results (cached or
        extracted by the engine), whose numbers the cache keeps then."""
        named = sum(1 for candidate in candidates if not candidate.status)
        if self.cache is None:
            self.engine.run(candidates, lambda indices, extractions: self._counted(candidates, indices, extractions))
            return {"cached": self.tally.readable - named, "extracted": named}
        parser = self.engine.parser or this_parser()
        version = numbers_version(self.options, self.tally.patterns)
        numbered = self._cached_numbers(self.cache, candidates, parser, version)
        todo = [candidate for index, candidate in enumerate(candidates) if index not in numbered]
        counted: List[Tuple[str, List[Any]]] = []
        options = self.options
        counts = run_cached(prepare(todo, options.max_bytes), self.cache, self.engine.run,
                            lambda indices, extractions: counted.extend(self._counted(todo, indices, extractions)),
                            options.max_bytes, None, parser, self.reader.read,
                            extract_version(options.max_bytes, options.patterns))
        self.cache.put_many(NUMBERS_KIND, version, parser, counted)
        return {"cached": self.tally.readable - named + len(numbered) + counts["cached"],
                "extracted": counts["extracted"]}

    def _cached_numbers(self, cache: BlobCache, candidates: Sequence[Candidate], parser: str, version: str
                        ) -> Set[int]:
        """Count the candidates whose numbers the cache holds; their indices.  A row not of the
        shape written is deleted (and the file's result read again)."""
        keys = {index: blob_key(c.path, c.location[len(GIT_LOCATION):]) for index, c in enumerate(candidates)
                if not c.status and c.location.startswith(GIT_LOCATION)}
        found = cache.get_many(NUMBERS_KIND, version, parser, list(keys.values())) if keys else {}
        size = 1 + 4 + 2 * len(self.tally.patterns)
        numbered, poisoned = set(), []
        for index, key in keys.items():
            value = found.get(key)
            if value is None:
                continue
            if not (isinstance(value, list) and len(value) == size and isinstance(value[0], str)
                    and all(type(n) is int for n in value[1:])):
                poisoned.append(key)
                continue
            self._count(candidates[index], value[0], value[1:])
            numbered.add(index)
        if poisoned:
            cache.delete([NUMBERS_KIND], version, parser, *poisoned)
        return numbered

    def _counted(self, candidates: Sequence[Candidate], indices: Sequence[int],
                 extractions: Sequence[Extraction]) -> List[Tuple[str, List[Any]]]:
        """Count each extraction of ``candidates[index]``; (cache key, status and numbers) of those
        the cache may keep: a git blob's result that is the file's, not a circumstance's."""
        keep = []
        for index, extraction in zip(indices, extractions):
            candidate, status = candidates[index], extraction.record.status
            numbers = file_numbers(extraction, self.options.long_threshold, self.tally.patterns)
            self._count(candidate, status, numbers)
            if not candidate.status and candidate.location.startswith(GIT_LOCATION) and status not in RETRIED:
                keep.append((blob_key(candidate.path, candidate.location[len(GIT_LOCATION):]), [status, *numbers]))
        return keep

    def _count(self, candidate: Candidate, status: str, numbers: Sequence[int]) -> None:
        values = file_values(numbers, self.options.test_rule.is_test(candidate.path))
        part = FileCounts(self.tree[candidate.path], status, not candidate.status, values)
        self.files[candidate.path] = part
        self.tally.add(part)
        if part.status in RETRIED:
            self.retry.add(candidate.path)


@contextlib.contextmanager
def sweep(gitdir: str, options: ScanOptions, cache: Any = True, followed: Sequence[Kind] = ()) -> Iterator[Sweep]:
    """A ``Sweep`` of ``gitdir`` (checked already: ``sources.git.git_dir``) with its engine
    and ``cache`` (as ``punstats.scan`` takes it) open, and its blob reader once started, all
    closed at the end; ``followed``: built-in kinds of occurrences counted per revision besides
    f(x=x)."""
    with contextlib.ExitStack() as stack:
        blob_cache = open_cache(cache, options.patterns)
        if blob_cache is not None and blob_cache is not cache:
            stack.callback(blob_cache.close)
        workers, _ = worker_pool(options, stack)  # one pool for every revision, forked when first needed
        engine = stack.enter_context(open_engine(options, None, workers))
        yield Sweep(gitdir, options, blob_cache, engine, stack, followed)
