"""Whole tables per corpus state: an unchanged corpus is answered from the cache.

The manifest (every path with its blob, or its failure) names the whole
result; its three tables, before any test rule, are kept as Arrow IPC
streams.  Only the latest tables of each root are kept.  The tables flow
into a ``spill.RawOutput``, read back from the cache or extracted, so the
rows are not held in memory on their way (the stream stored in the cache is
read whole from its file, once, when stored).
"""
from __future__ import annotations

import os
from typing import Callable, Dict, Optional, Sequence

import pyarrow as pa

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
from punstats.store import schema
from punstats.store.spill import RawOutput

#: Cache kinds of the per-corpus tables (one entry per table).
TABLE_KINDS = {name: "tables/" + name for name in schema.RAW}


MANIFEST_KIND = "tables/manifest"  # per root: the key of its latest tables


def cached_tables(candidates: Sequence[Candidate], cache: BlobCache, run: Runner, root: str,
                  output: RawOutput, max_bytes: int = DEFAULT_MAX_BYTES, progress: Optional[Progress] = None,
                  parser: Optional[str] = None,
                  read_blob: Optional[Callable[[str], bytes]] = None) -> Dict[str, int]:
    """The raw tables of ``candidates`` into ``output``: whole from the cache
    when the corpus is unchanged, else built from per-file results (cached or
    extracted); returns how many came from the cache."""
    parser = parser or this_parser()
    version = extract_version(max_bytes)
    prepared = prepare(candidates, max_bytes)
    key = prepared.manifest_key(version, parser)
    stored = {name: cache.get_bytes(kind, version, parser, key) for name, kind in TABLE_KINDS.items()}
    if all(value is not None for value in stored.values()):
        for name in TABLE_KINDS:
            for batch in pa.ipc.open_stream(stored.pop(name)):
                output.put(name, pa.Table.from_batches([batch]))
        output.finish()
        (progress or (lambda n: None))(prepared.count)
        return {"cached": len(prepared.readable), "extracted": 0, "tables_reused": 1}
    del stored
    output.keep_copies()
    counts = run_cached(prepared, cache, run, output.add, max_bytes, progress, parser, read_blob)
    output.finish()
    if counts.get("unread"):  # a blob that could not be read now may be readable next time
        return dict(counts, tables_reused=0)
    previous = cache.get_bytes(MANIFEST_KIND, version, parser, root)
    if previous is not None and previous.decode() != key:  # keep one state per root
        cache.delete(list(TABLE_KINDS.values()), version, parser, previous.decode())
    for name, kind in TABLE_KINDS.items():
        with open(output.copy_path(name), "rb") as handle:
            cache.put_bytes(kind, version, parser, key, handle.read())
        os.remove(output.copy_path(name))
    cache.put_bytes(MANIFEST_KIND, version, parser, root, key.encode())
    return dict(counts, tables_reused=0)
