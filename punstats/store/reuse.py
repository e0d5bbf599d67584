"""Whole results per corpus state: an unchanged corpus is answered from the cache.

The manifest (every path with its blob, or its failure) names the whole
result (``CorpusState``).  Two things are kept per state, only the latest
of each root:

- its three tables before any test rule, as Arrow IPC streams (compressed: ``spill.COPY_CODEC``); they flow
  into a ``spill.RawOutput`` as if extracted, so a new rule or threshold
  needs no file extracted again;
- the stored files of the last scan of that state (``stored_scan``), with
  its totals, under what they depend on (the provenance in their metadata and
  the rules): a re-scan with the same settings writes those bytes back and
  builds nothing, not even importing pyarrow.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Sequence, Tuple

from punstats.cache import BlobCache
from punstats.engines.cached import (
    Prepared,
    Progress,
    Runner,
    extract_version,
    prepare,
    run_cached,
    this_parser,
)
from punstats.model import jsondata
from punstats.model.discovery import Candidate
from punstats.model.kinds import Kind
from punstats.model.limits import DEFAULT_MAX_BYTES
from punstats.model.records import FileRecord, FunctionShape, Occurrence
from punstats.patterns.built_in import COUNT_COLUMNS
from punstats.store.provenance import provenance_metadata

if TYPE_CHECKING:
    from punstats.store.spill import RawOutput

TABLE_NAMES = ("occurrences", "files", "functions")


#: Cache kinds of the per-corpus tables (one entry per table).
TABLE_KINDS = {name: "tables/" + name for name in TABLE_NAMES}


MANIFEST_KIND = "tables/manifest"  # per root: the key of its latest tables


STORED_KIND, STORED_MANIFEST_KIND = "tables/stored", "tables/stored-manifest"


#: The columns kept tables hold (the record fields and counts ``store.schema`` stores, in order), part of
#: their key: tables kept before a column was added (``cell``) are built again, not reused.
TABLE_SHAPE = "/tables=" + hashlib.sha256(json.dumps(
    [Occurrence._fields, [f.name for f in dataclasses.fields(FileRecord)] + list(COUNT_COLUMNS),
     FunctionShape._fields]).encode()
).hexdigest()[:16]


@dataclasses.dataclass(frozen=True)
class CorpusState:
    """Candidates read and named, and the key of their exact state."""

    prepared: Prepared
    key: str
    version: str
    parser: str

    @classmethod
    def of(cls, candidates: Sequence[Candidate], max_bytes: int = DEFAULT_MAX_BYTES,
           parser: Optional[str] = None, patterns: Sequence[Kind] = ()) -> "CorpusState":
        parser = parser or this_parser()
        version = extract_version(max_bytes, patterns)
        prepared = prepare(candidates, max_bytes)
        return cls(prepared, prepared.manifest_key(version + TABLE_SHAPE, parser), version, parser)

    def reused(self) -> Dict[str, int]:
        """The cache counts of a result answered whole."""
        return {"cached": len(self.prepared.readable), "extracted": 0, "tables_reused": 1}


def _latest(cache: BlobCache, state: CorpusState, manifest: str, kinds: Sequence[str], root: str, key: str) -> None:
    """Make ``key`` the one entry of ``root`` under ``kinds`` (the previous one is deleted)."""
    previous = cache.get_bytes(manifest, state.version, state.parser, root)
    if previous is not None and previous.decode() != key:
        cache.delete(list(kinds), state.version, state.parser, previous.decode())
    cache.put_bytes(manifest, state.version, state.parser, root, key.encode())


def cached_tables(state: CorpusState, cache: BlobCache, run: Runner, root: str, output: RawOutput,
                  max_bytes: int = DEFAULT_MAX_BYTES, progress: Optional[Progress] = None,
                  read_blob: Optional[Callable[[str], bytes]] = None) -> Dict[str, int]:
    """The raw tables of the corpus into ``output``: whole from the cache when
    it is unchanged, else built from per-file results (cached or extracted);
    returns how many came from the cache."""
    import pyarrow as pa
    stored = {name: cache.get_bytes(kind, state.version, state.parser, state.key)
              for name, kind in TABLE_KINDS.items()}
    if all(value is not None for value in stored.values()):
        for name in TABLE_KINDS:
            for batch in pa.ipc.open_stream(stored.pop(name)):
                output.put(name, pa.Table.from_batches([batch]))
        output.finish()
        (progress or (lambda n: None))(state.prepared.count)
        return state.reused()
    del stored
    output.keep_copies()
    counts = run_cached(state.prepared, cache, run, output.add, max_bytes, progress, state.parser, read_blob,
                        state.version)
    output.finish()
    if counts.get("unread") or counts.get("changed"):  # not a state to answer from next time
        return dict(counts, tables_reused=0)
    _latest(cache, state, MANIFEST_KIND, list(TABLE_KINDS.values()), root, state.key)
    for name, kind in TABLE_KINDS.items():
        with open(output.copy_path(name), "rb") as handle:
            cache.put_bytes(kind, state.version, state.parser, state.key, handle.read())
        os.remove(output.copy_path(name))
    return dict(counts, tables_reused=0)


#: Bumped when what a kept stored scan's totals hold changes (``analysis.summary.Totals``), so that a
#: re-scan never answers with totals that lack a key: 2, ``first_pattern_error``; 3, ``pattern_files``.
TOTALS_VERSION = 3


def _stored_key(state: CorpusState, summary: Dict[str, Any]) -> str:
    identity = json.dumps([state.key, provenance_metadata(summary), TOTALS_VERSION], sort_keys=True)
    return hashlib.sha256(identity.encode()).hexdigest()


def stored_scan(cache: BlobCache, state: CorpusState, summary: Dict[str, Any],
                directory: str) -> Optional[Tuple[Dict[str, Any], Dict[str, int]]]:
    """Write the files of the last scan of this state with this provenance and
    these rules (``summary``) into ``directory``: (its totals, rows per table), or None."""
    value = cache.get_bytes(STORED_KIND, state.version, state.parser, _stored_key(state, summary))
    header = _stored_header(value) if value is not None else None
    if header is None:
        return None
    offset = 12 + int(value[:12])
    for name, length in header["files"]:
        with open(os.path.join(directory, name), "wb") as handle:
            handle.write(value[offset:offset + length])
        offset += length
    return header["totals"], header["rows"]


def _stored_header(value: bytes) -> Optional[Dict[str, Any]]:
    """The header of a kept stored scan, or None when the entry is damaged (then the scan
    is built again): only stored table files, of lengths the entry holds."""
    from punstats.store.staging import TABLE_FILES
    try:
        size = int(value[:12])
        header = jsondata.loads(value[12:12 + size])
        files = header["files"]
        lengths = [length for name, length in files if name in TABLE_FILES.values() and isinstance(length, int)]
        whole = len(lengths) == len(files) and 12 + size + sum(lengths) == len(value)
        return header if whole and isinstance(header["totals"], dict) and isinstance(header["rows"], dict) else None
    except (ValueError, TypeError, KeyError):
        return None


def keep_stored_scan(cache: BlobCache, state: CorpusState, summary: Dict[str, Any], root: str,
                     directory: str, names: Sequence[str], totals: Dict[str, Any], rows: Dict[str, int]) -> None:
    """Keep the files ``names`` of ``directory`` for ``stored_scan`` (one state per root)."""
    data = []
    for name in names:
        with open(os.path.join(directory, name), "rb") as handle:
            data.append(handle.read())
    header = json.dumps({"files": [[n, len(d)] for n, d in zip(names, data)], "totals": totals,
                         "rows": rows}).encode()
    key = _stored_key(state, summary)
    _latest(cache, state, STORED_MANIFEST_KIND, [STORED_KIND], root, key)
    cache.put_bytes(STORED_KIND, state.version, state.parser, key, b"%012d" % len(header) + header + b"".join(data))
