"""The incremental scan: results reused by content from the cache.

Wraps any engine of ``engines.registry`` (the local process pool, Dask,
another interpreter), keyed by the parser it extracts with.  Each file's bytes are read
in this process and named by their git blob id, then let go.  Two layers:

- per file: files whose blob the cache knows (for this extractor version,
  size cap and parser) come from the cache; the others are extracted by the
  engine, whose worker reads the file again (a result is stored only if the
  bytes it read are the ones named), and stored as results arrive, so a
  scan killed midway keeps what it finished.
  The entries are those ``--python`` and revision scans use, keyed the same
  way, so a parser never extracts the same bytes twice.
- per corpus state (``store.reuse``): the manifest (every path with its
  blob, or its failure) names the whole result; its three tables, before any
  test rule, are kept as Arrow IPC streams, so re-scanning an unchanged
  corpus reads three entries instead of rebuilding tens of thousands of rows.

Results go to a sink as they are known (cached ones in chunks of
``LOOKUP_FILES``), so no list of every file's extraction is held here.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import platform
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from punstats.cache import BlobCache, blob_id
from punstats.discover.read import Reader, candidate_bytes
from punstats.engines.base import Sink
from punstats.extract.notebook import NOTEBOOK_SUFFIX, NOTEBOOK_VERSION
from punstats.extract.traversal import EXTRACTOR_VERSION
from punstats.model.discovery import Candidate
from punstats.model.kinds import Kind
from punstats.model.limits import DEFAULT_MAX_BYTES
from punstats.model.records import Extraction, failure, from_plain, to_plain
from punstats.model.statuses import PATTERN_TIMEOUT, UNREADABLE, WORKER_DIED
from punstats.sources.gitprocess import GitAborted

#: Extracts candidates (an engine's ``run``), passing results to the sink as they arrive.
Runner = Callable[[Sequence[Candidate], Optional[Sink]], List[Extraction]]


Progress = Callable[[int], None]


#: Files extracted between two writes to the cache.
CHUNK_FILES = 200


@dataclasses.dataclass(frozen=True)
class Prepared:
    """Candidates read and named: failures already extracted, the rest with their blob."""

    failed: Tuple[Tuple[int, Extraction], ...]
    readable: Tuple[Tuple[int, Candidate, str], ...]  # (index, candidate, blob id)
    count: int
    #: index -> sha256 of the bytes named, for candidates read again from their file when extracted
    digests: Dict[int, str] = dataclasses.field(default_factory=dict)

    def manifest_key(self, version: str, parser: str) -> str:
        """A name for this exact corpus state under this extractor and parser."""
        entries = sorted([(i, c.path, blob_key(c.path, blob)) for i, c, blob in self.readable]
                         + [(i, e.record.path, "%s:%s:%d" % (e.record.status, e.record.error, e.record.bytes))
                            for i, e in self.failed])
        text = json.dumps([version, parser, entries], ensure_ascii=True)
        return hashlib.sha256(text.encode()).hexdigest()


#: What a user pattern's row holds (``extract.patterns``), in the version key of scans with patterns:
#: 2, the columns about a call are null and a dict result is ``fields``, no longer ``value``.
PATTERN_ROWS_VERSION = 2


def extract_version(max_bytes: int, patterns: Sequence[Kind] = ()) -> str:
    """The cache's version key for extractions: extractor version and size cap, and with
    user patterns the version of their rows (``PATTERN_ROWS_VERSION``) and a digest of each
    one's name, ``per``, source and source hash, so that results are reused only for the very
    same patterns (an edited plugin extracts again)."""
    version = "%d/max=%d" % (EXTRACTOR_VERSION, max_bytes)
    if not patterns:
        return version
    described = json.dumps([[k.name, k.per, k.source, k.sha256] for k in patterns], ensure_ascii=True)
    return "%s/patterns%d=%s" % (version, PATTERN_ROWS_VERSION, hashlib.sha256(described.encode()).hexdigest())


def cacheable(patterns: Sequence[Kind]) -> bool:
    """Results with ``patterns`` may be cached: each is named by a digest (``Kind.sha256``; a
    matcher whose definition could not be digested has none, and its results are never shared)."""
    return all(kind.sha256 for kind in patterns)


def blob_key(path: str, blob: str) -> str:
    """The cache's key of the extraction of ``blob`` read as ``path``: the blob id, or for a
    notebook (``.ipynb``) the notebook reader's version and the blob id, so that the same
    bytes read as Python are another entry and a change to reading notebooks extracts them again."""
    return "ipynb%d:%s" % (NOTEBOOK_VERSION, blob) if path.endswith(NOTEBOOK_SUFFIX) else blob


def parser_key(implementation: str, version: str) -> str:
    """The cache's parser key: the interpreter that parsed, e.g. ``CPython 3.11.7``."""
    return "%s %s" % (implementation, version)


def this_parser() -> str:
    """The cache's parser key for this interpreter."""
    return parser_key(platform.python_implementation(), platform.python_version())


GIT_LOCATION = "git:"  # a revision scan's candidates: git:<blob id>, read only when extracted


def prepare(candidates: Sequence[Candidate], max_bytes: int = DEFAULT_MAX_BYTES) -> Prepared:
    """Name every candidate by its blob id: read and hashed, or (a git blob) known already.

    The bytes of a file are not kept: a worker reads the file again if it
    must be extracted, and its result is stored under the blob only when the
    bytes it read are the ones named (``digests``), so memory does not grow
    with the corpus."""
    failed: List[Tuple[int, Extraction]] = []
    readable: List[Tuple[int, Candidate, str]] = []
    digests: Dict[int, str] = {}
    with Reader() as reader:
        for index, candidate in enumerate(candidates):
            if not candidate.status and candidate.data is None and candidate.location.startswith(GIT_LOCATION):
                readable.append((index, candidate, candidate.location[len(GIT_LOCATION):]))
                continue
            data = candidate_bytes(candidate, max_bytes, reader)
            if isinstance(data, Extraction):
                failed.append((index, data))
            else:
                readable.append((index, candidate, blob_id(data)))
                if candidate.data is None:
                    digests[index] = hashlib.sha256(data).hexdigest()
    return Prepared(tuple(failed), tuple(readable), len(candidates), digests)


#: Blobs looked up in the cache at once.
LOOKUP_FILES = 500


def run_cached(prepared: Prepared, cache: BlobCache, run: Runner, sink: Sink,
               max_bytes: int = DEFAULT_MAX_BYTES, progress: Optional[Progress] = None,
               parser: Optional[str] = None,
               read_blob: Optional[Callable[[str], bytes]] = None, version: Optional[str] = None) -> Dict[str, int]:
    """Every candidate's extraction handed to ``sink`` (candidate indices,
    extractions) as it is known, in any order; returns how many came from the cache.

    ``read_blob`` gives the bytes of a git blob id, for candidates that carry
    only that (read just before they are extracted).  ``version``: the cache's version key
    (default: ``extract_version(max_bytes)``, no user pattern).
    """
    tick = progress or (lambda n: None)
    parser = parser or this_parser()
    version = version or extract_version(max_bytes)
    if prepared.failed:
        sink([index for index, _ in prepared.failed], [extraction for _, extraction in prepared.failed])
    todo: List[Tuple[int, Candidate, str]] = []
    for start in range(0, len(prepared.readable), LOOKUP_FILES):
        chunk = prepared.readable[start:start + LOOKUP_FILES]
        known = cache.get_many("extract", version, parser, [blob_key(c.path, blob) for _, c, blob in chunk])
        found = []
        for item in chunk:
            extraction = _from_cache(cache, version, parser, known, item)
            if extraction is None:
                todo.append(item)
            else:
                found.append((item[0], extraction))
        if found:
            sink([index for index, _ in found], [extraction for _, extraction in found])
    tick(prepared.count - len(todo))
    work, unread = _readable(todo, read_blob, sink)
    fresh: Dict[str, Dict[str, list]] = {}

    changed = died = 0

    def store_batch(positions: Sequence[int], extractions: Sequence[Extraction]) -> None:
        nonlocal changed, died
        sink([work[position][0] for position in positions], extractions)
        for position, extraction in zip(positions, extractions):
            index, candidate, blob = work[position]
            if extraction.record.status in (WORKER_DIED, PATTERN_TIMEOUT):  # this run's circumstance, not the file's
                died += 1
                continue
            if prepared.digests.get(index, extraction.record.sha256) != extraction.record.sha256:
                changed += 1  # the file changed since it was named: its result is not that blob's
                continue
            fresh[blob_key(candidate.path, blob)] = to_plain(extraction)
        if len(fresh) >= CHUNK_FILES:  # store as the run goes: a killed scan keeps what it finished
            cache.put_many("extract", version, parser, fresh.items())
            fresh.clear()

    if work:
        run([candidate for _, candidate, _ in work], store_batch)
    cache.put_many("extract", version, parser, fresh.items())
    counts = {"cached": len(prepared.readable) - len(todo), "extracted": len(todo) - unread - died}
    if unread or died:  # files that may be read next time: the whole tables are not kept
        counts["unread"] = unread + died
    if changed:
        counts["changed"] = changed
    return counts


def _from_cache(cache: BlobCache, version: str, parser: str, known: Dict[str, Dict[str, list]],
                item: Tuple[int, Candidate, str]) -> Optional[Extraction]:
    """The cached extraction of ``item``, or None: not cached, or a poisoned row (deleted, extracted again)."""
    _, candidate, blob = item
    key = blob_key(candidate.path, blob)
    if key not in known:
        return None
    try:
        return from_plain(known[key], candidate.path)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError):
        cache.delete(["extract"], version, parser, key)
        return None


def _readable(todo: Sequence[Tuple[int, Candidate, str]], read_blob: Optional[Callable[[str], bytes]],
              sink: Sink) -> Tuple[List[Tuple[int, Candidate, str]], int]:
    """The candidates to extract: a git blob read here (one that cannot be
    read goes to ``sink``), a file as it is (the worker reads it)."""
    work: List[Tuple[int, Candidate, str]] = []
    unread = 0
    for index, candidate, blob in todo:
        if candidate.data is None and candidate.location.startswith(GIT_LOCATION):
            try:
                candidate = dataclasses.replace(candidate, data=read_blob(blob))  # type: ignore[misc]
            except GitAborted:  # git stopped answering: the run cannot go on
                raise
            except (OSError, ValueError) as exc:  # e.g. an object missing from a partial clone
                sink([index], [failure(candidate.path, UNREADABLE, str(exc), size=candidate.size)])
                unread += 1
                continue
        work.append((index, candidate, blob))
    return work, unread
