"""The incremental scan: results reused by content from the cache.

Wraps any engine (the local process pool, Dask).  Each file's bytes are read
once in this process and named by their git blob id.  Two layers:

- per file: files whose blob the cache knows (for this extractor version,
  size cap and parser) come from the cache; the others are extracted by the
  engine, with their bytes attached so no worker reads the file again, and
  stored as results arrive, so a scan killed midway keeps what it finished.
  The entries are those ``--python`` and revision scans use, keyed the same
  way, so a parser never extracts the same bytes twice.
- per corpus state: the manifest (every path with its blob, or its failure)
  names the whole result; its three tables, before any test rule, are kept
  as Arrow IPC streams, so re-scanning an unchanged corpus reads three files instead
  of rebuilding tens of thousands of rows.  Only the latest tables of each
  root are kept.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import platform
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from punstats.cache import BlobCache, blob_id
from punstats.discover.read import candidate_bytes
from punstats.engines.base import Sink
from punstats.extract.traversal import EXTRACTOR_VERSION
from punstats.model.discovery import Candidate
from punstats.model.limits import DEFAULT_MAX_BYTES
from punstats.model.records import Extraction, failure, from_plain, to_plain
from punstats.model.statuses import UNREADABLE, WORKER_DIED

#: Extracts candidates (an engine's ``run``), passing results to the sink as they arrive.
Runner = Callable[[Sequence[Candidate], Optional[Sink]], List[Extraction]]


Progress = Callable[[int], None]


#: Files extracted between two writes to the cache.
CHUNK_FILES = 200


@dataclasses.dataclass(frozen=True)
class Prepared:
    """Candidates read and named: failures already extracted, the rest with their blob."""

    failed: Tuple[Tuple[int, Extraction], ...]
    readable: Tuple[Tuple[int, Candidate, str], ...]  # (index, candidate with data, blob id)
    count: int

    def manifest_key(self, version: str, parser: str) -> str:
        """A name for this exact corpus state under this extractor and parser."""
        entries = sorted([(i, c.path, blob) for i, c, blob in self.readable]
                         + [(i, e.record.path, "%s:%s:%d" % (e.record.status, e.record.error, e.record.bytes))
                            for i, e in self.failed])
        text = json.dumps([version, parser, entries], ensure_ascii=True)
        return hashlib.sha256(text.encode()).hexdigest()


def extract_version(max_bytes: int) -> str:
    """The cache's version key for extractions: extractor version and size cap."""
    return "%d/max=%d" % (EXTRACTOR_VERSION, max_bytes)


def this_parser() -> str:
    """The cache's parser key for this interpreter (``interp`` uses the same form)."""
    return "%s %s" % (platform.python_implementation(), platform.python_version())


GIT_LOCATION = "git:"  # a revision scan's candidates: git:<blob id>, read only when extracted


def prepare(candidates: Sequence[Candidate], max_bytes: int = DEFAULT_MAX_BYTES) -> Prepared:
    """Name every candidate by its blob id: read and hashed, or (a git blob) known already."""
    failed: List[Tuple[int, Extraction]] = []
    readable: List[Tuple[int, Candidate, str]] = []
    for index, candidate in enumerate(candidates):
        if not candidate.status and candidate.data is None and candidate.location.startswith(GIT_LOCATION):
            readable.append((index, candidate, candidate.location[len(GIT_LOCATION):]))
            continue
        data = candidate_bytes(candidate, max_bytes)
        if isinstance(data, Extraction):
            failed.append((index, data))
        else:
            readable.append((index, dataclasses.replace(candidate, data=data), blob_id(data)))
    return Prepared(tuple(failed), tuple(readable), len(candidates))


def run_cached(prepared: Prepared, cache: BlobCache, run: Runner, max_bytes: int = DEFAULT_MAX_BYTES,
               progress: Optional[Progress] = None, parser: Optional[str] = None,
               read_blob: Optional[Callable[[str], bytes]] = None) -> Tuple[List[Extraction], Dict[str, int]]:
    """Every candidate's extraction, in order, and how many came from the cache.

    ``read_blob`` gives the bytes of a git blob id, for candidates that carry
    only that (read just before they are extracted).
    """
    tick = progress or (lambda n: None)
    parser = parser or this_parser()
    version = extract_version(max_bytes)
    results: List[Optional[Extraction]] = [None] * prepared.count
    for index, extraction in prepared.failed:
        results[index] = extraction
    known = cache.get_many("extract", version, parser, [blob for _, _, blob in prepared.readable])
    todo = []
    for index, candidate, blob in prepared.readable:
        if blob in known:
            try:
                results[index] = from_plain(known[blob], candidate.path)
                continue
            except (KeyError, TypeError, ValueError, IndexError, AttributeError):  # a poisoned row
                cache.delete(["extract"], version, parser, blob)
        todo.append((index, candidate, blob))
    tick(prepared.count - len(todo))
    unread = 0
    work: List[Tuple[int, Candidate, str]] = []
    for index, candidate, blob in todo:
        if candidate.data is None:
            try:
                candidate = dataclasses.replace(candidate, data=read_blob(blob))  # type: ignore[misc]
            except (OSError, ValueError) as exc:  # e.g. an object missing from a partial clone
                results[index] = failure(candidate.path, UNREADABLE, str(exc), size=candidate.size)
                unread += 1
                continue
        work.append((index, candidate, blob))
    fresh: Dict[str, Dict[str, list]] = {}

    def store_batch(positions: Sequence[int], extractions: Sequence[Extraction]) -> None:
        for position, extraction in zip(positions, extractions):
            index, _, blob = work[position]
            results[index] = extraction
            if extraction.record.status != WORKER_DIED:  # a circumstance of this run, not of the file
                fresh[blob] = to_plain(extraction)
        if len(fresh) >= CHUNK_FILES:  # store as the run goes: a killed scan keeps what it finished
            cache.put_many("extract", version, parser, fresh.items())
            fresh.clear()

    if work:
        run([candidate for _, candidate, _ in work], store_batch)
    cache.put_many("extract", version, parser, fresh.items())
    died = sum(1 for index, _, _ in work if results[index].record.status == WORKER_DIED)  # type: ignore[union-attr]
    counts = {"cached": len(prepared.readable) - len(todo), "extracted": len(todo) - unread - died}
    if unread or died:  # files that may be read next time: the whole tables are not kept
        counts["unread"] = unread + died
    return results, counts  # type: ignore[return-value]

