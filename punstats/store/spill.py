"""Results as they arrive, spilled to disk, then read back in candidate order.

Engines hand over extractions in any order (large files first), and the
stored tables are in discovery order.  ``Spill`` turns each arriving batch
into Arrow record batches at once and appends them to the bucket of their
candidate index (``engines.base.bucket_span`` consecutive candidates per bucket,
at most ``base.MAX_BUCKETS`` buckets), so nothing is held per file.  Engines hand out
batches within one bucket, so that a batch is one write per table.  ``drain`` then reads
one bucket at a time, puts its rows in candidate order (a stable sort, so a
file's rows keep their order) and hands each table's rows on, ``DRAIN_ROWS`` at a time.
Memory is one arriving batch while extracting and one bucket while draining.
"""
from __future__ import annotations

import os
from collections import defaultdict
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import pyarrow as pa
import pyarrow.compute as pc

from punstats.engines import base
from punstats.model.records import Extraction
from punstats.store import arrays, schema

INDEX = "_index"  # the candidate index of each spilled row


def record_batch(rows: Sequence[tuple], columns: schema.Columns,
                 index: Optional[Sequence[int]] = None) -> pa.RecordBatch:
    """``rows`` (tuples in ``columns`` order) as one Arrow batch of the stored
    types; with ``index``, an ``_index`` column of candidate indices after them."""
    values = list(zip(*rows)) if rows else [()] * len(columns)
    built = [arrays.column(column, schema.ARROW_TYPES[kind]) for (_, kind), column in zip(columns, values)]
    names = schema.names(columns)
    if index is not None:
        built.append(arrays.column(index, pa.int64()))
        names.append(INDEX)
    return pa.RecordBatch.from_arrays(built, names=names)


def extraction_batches(items: Sequence[Tuple[int, Extraction]],
                       units: Sequence[str] = ()) -> Dict[str, pa.RecordBatch]:
    """The three tables' rows of ``items`` ((candidate index, extraction)), indexed;
    ``units``: the node classes counted for user patterns (``schema.files_columns``)."""
    occurrences = [(i, o) for i, e in items for o in e.occurrences]
    functions = [(i, f) for i, e in items for f in e.functions]
    if units:
        files = [schema.file_row(e.record) + tuple(dict(e.units).get(u, 0) for u in units) for _, e in items]
    else:
        files = [schema.file_row(e.record) for _, e in items]
    return {
        "occurrences": record_batch([o for _, o in occurrences], schema.TRAVELLING_OCCURRENCES,
                                    [i for i, _ in occurrences]),
        "files": record_batch(files, schema.files_columns(units), [i for i, _ in items]),
        "functions": record_batch([f for _, f in functions], schema.FUNCTIONS, [i for i, _ in functions]),
    }


#: Rows put in order and handed on at once while draining: a bucket of a few huge files (the models of a
#: generated SDK) holds hundreds of thousands of rows, which would otherwise be copied whole to order them.
DRAIN_ROWS = 64 * 1024


class Spill:
    """Extractions of ``count`` candidates, kept in bucket files under ``directory``."""

    def __init__(self, directory: str, count: int, units: Sequence[str] = ()) -> None:
        self.directory = directory
        self.units = tuple(units)
        self.bucket_files = base.bucket_span(count)
        self.buckets = max(1, -(-count // self.bucket_files))
        self._writers: Dict[Tuple[str, int], Any] = {}
        self._schemas = {name: schema.arrow_schema(columns).append(pa.field(INDEX, pa.int64()))
                         for name, columns in schema.travelling(units).items()}
        os.makedirs(directory, exist_ok=True)

    def add(self, indices: Sequence[int], extractions: Sequence[Extraction]) -> None:
        """A sink (``engines.Sink``): file the results of one batch by bucket."""
        groups: Dict[int, List[Tuple[int, Extraction]]] = defaultdict(list)
        for index, extraction in zip(indices, extractions):
            groups[index // self.bucket_files].append((index, extraction))
        for bucket, items in groups.items():
            for name, batch in extraction_batches(items, self.units).items():
                if batch.num_rows:
                    self._writer(name, bucket).write_batch(batch)

    def _path(self, name: str, bucket: int) -> str:
        return os.path.join(self.directory, "%s-%05d.arrow" % (name, bucket))

    def _writer(self, name: str, bucket: int) -> Any:
        writer = self._writers.get((name, bucket))
        if writer is None:
            writer = pa.ipc.new_stream(pa.OSFile(self._path(name, bucket), "wb"), self._schemas[name])
            self._writers[(name, bucket)] = writer
        return writer

    def close(self) -> None:
        for writer in self._writers.values():
            writer.close()
        self._writers.clear()

    def drain(self, put: Callable[[str, pa.Table], None]) -> None:
        """``put(table name, rows)`` for every bucket in order, rows in candidate order."""
        self.close()
        for bucket in range(self.buckets):
            for name in schema.RAW:
                path = self._path(name, bucket)
                if not os.path.exists(path):
                    continue
                with pa.OSFile(path) as source:
                    table = pa.ipc.open_stream(source).read_all()
                os.remove(path)
                order = pc.sort_indices(table, sort_keys=[(INDEX, "ascending")])  # stable
                for start in range(0, table.num_rows, DRAIN_ROWS):
                    put(name, table.take(order.slice(start, DRAIN_ROWS)).drop_columns([INDEX]))


#: The codec of the copies ``RawOutput.keep_copies`` makes (the cache keeps them whole, and they pass
#: through the scan's process whole on their way in): a large project's raw functions table is some
#: 80 MB, a twentieth of that compressed, and compressing it costs less CPU than writing it raw
#: to the cache.  Any Arrow reader reads them as it reads uncompressed ones.
COPY_CODEC = "zstd"


class RawOutput:
    """Where a scan's raw rows (before any test rule) go: ``add`` takes
    results in any order (through a ``Spill``), ``put`` pieces already in
    candidate order (whole tables from the cache); ``finish`` drains the
    spill.  Every piece reaches ``consume(name, table)`` in candidate order;
    with ``keep_copies`` it is also kept as an Arrow IPC stream per table (``COPY_CODEC``), for the cache."""

    def __init__(self, directory: str, count: int, consume: Callable[[str, pa.Table], None],
                 units: Sequence[str] = ()) -> None:
        self.directory = directory
        self.units = tuple(units)
        self.spill = Spill(os.path.join(directory, "spill"), count, units)
        self.add = self.spill.add
        self.consume = consume
        self._copies: Dict[str, Any] = {}

    def keep_copies(self) -> None:
        options = pa.ipc.IpcWriteOptions(compression=COPY_CODEC if pa.Codec.is_available(COPY_CODEC) else None)
        for name, columns in schema.travelling(self.units).items():
            self._copies[name] = pa.ipc.new_stream(pa.OSFile(self.copy_path(name), "wb"),
                                                   schema.arrow_schema(columns), options=options)

    def copy_path(self, name: str) -> str:
        return os.path.join(self.directory, "raw-%s.arrow" % name)

    def put(self, name: str, table: pa.Table) -> None:
        table = table.replace_schema_metadata(None)
        if name in self._copies:
            self._copies[name].write_table(table)
        self.consume(name, table)

    def finish(self) -> None:
        self.spill.drain(self.put)
        os.rmdir(self.spill.directory)
        for writer in self._copies.values():
            writer.close()
