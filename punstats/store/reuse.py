"""Whole tables per corpus state: an unchanged corpus is answered from the cache.

The manifest (every path with its blob, or its failure) names the whole
result; its three tables, before any test rule, are kept as Arrow IPC
streams.  Only the latest tables of each root are kept.
"""
from __future__ import annotations

from typing import Callable, Dict, Optional, Sequence, Tuple

from punstats import store
from punstats.cache import BlobCache
from punstats.engines.cached import (
    Progress,
    Runner,
    extract_version,
    prepare,
    run_cached,
    this_parser,
)
from punstats.model.discovery import Candidate
from punstats.model.limits import DEFAULT_MAX_BYTES

#: Cache kinds of the per-corpus tables (one entry per table).
TABLE_KINDS = {name: "tables/" + name for name in store.Tables._fields}


MANIFEST_KIND = "tables/manifest"  # per root: the key of its latest tables


def cached_tables(candidates: Sequence[Candidate], cache: BlobCache, run: Runner, root: str,
                  max_bytes: int = DEFAULT_MAX_BYTES, progress: Optional[Progress] = None,
                  parser: Optional[str] = None,
                  read_blob: Optional[Callable[[str], bytes]] = None) -> Tuple[store.Tables, Dict[str, int]]:
    """The raw tables of ``candidates``: whole from the cache when the corpus
    is unchanged, else built from per-file results (cached or extracted)."""
    parser = parser or this_parser()
    version = extract_version(max_bytes)
    prepared = prepare(candidates, max_bytes)
    key = prepared.manifest_key(version, parser)
    stored = [cache.get_bytes(kind, version, parser, key) for kind in TABLE_KINDS.values()]
    if all(value is not None for value in stored):
        (progress or (lambda n: None))(prepared.count)
        tables = store.Tables(*(store.from_arrow_bytes(value) for value in stored))
        return tables, {"cached": len(prepared.readable), "extracted": 0, "tables_reused": 1}
    extractions, counts = run_cached(prepared, cache, run, max_bytes, progress, parser, read_blob)
    tables = store.raw_tables(extractions)
    if counts.get("unread"):  # a blob that could not be read now may be readable next time
        return tables, dict(counts, tables_reused=0)
    previous = cache.get_bytes(MANIFEST_KIND, version, parser, root)
    if previous is not None and previous.decode() != key:  # keep one state per root
        cache.delete(list(TABLE_KINDS.values()), version, parser, previous.decode())
    for kind, table in zip(TABLE_KINDS.values(), tables):
        cache.put_bytes(kind, version, parser, key, store.arrow_bytes(table))
    cache.put_bytes(MANIFEST_KIND, version, parser, root, key.encode())
    return tables, dict(counts, tables_reused=0)

