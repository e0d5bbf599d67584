"""A user pattern's fields as columns of the stored occurrences: ``field_<key>``.

A matcher that returns a dict (``{"keyword": "x", "count": 2}``) gives its row
fields, which travel as JSON text (``Occurrence.fields``, the ``fields``
column of ``schema.TRAVELLING_OCCURRENCES``: spilled, kept in the cache) and are
stored as one column per key, ``field_keyword`` and ``field_count``, so that
``pandas.read_parquet`` shows them as columns.  A column's type is the one
its values share across the scan: bool, int (``Int64`` in pandas), float (ints
and floats together) or text; values of mixed types make a text column, each
value its JSON text (``3``, ``true``).  Rows without the key (other kinds,
other patterns) hold null there.

The keys are known only once every row is written, so the stored table is
written first without them while ``Spreader`` sets the ``fields`` column
aside (in a file beside it, only once a row has fields), then ``spread`` adds
the columns to the written table, row group by row group.  A scan without
fields never writes that file, and its table is written once, as before.
An ecosystem run's combined dataset holds one table per project, and pandas
reads a directory with the columns of one of them: ``harmonize`` gives them
all the run's field columns.
"""
from __future__ import annotations

import json
import os
from typing import Any, Dict, Iterable, List, Optional, Set, Tuple

import pyarrow as pa
import pyarrow.parquet as pq

from punstats.store import schema

#: The file beside the stored tables holding the ``fields`` column while they are written.
SIDE_FILE = ".fields.arrow"


def _kind_of(types: Set[type]) -> str:
    """The kind of a column whose values (None aside) have ``types``."""
    if types == {bool}:
        return schema.OPTIONAL_BOOL
    if types == {int}:
        return schema.OPTIONAL_INT
    if types and types <= {int, float}:
        return schema.FLOAT
    return schema.STR


class Spreader:
    """The ``fields`` column of the pieces of one table, set aside in ``path`` as they pass
    (``take``), with the keys and value types seen; ``columns`` once all have passed."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.rows = 0
        self.types: Dict[str, Set[type]] = {}
        self._writer: Any = None

    def take(self, table: pa.Table) -> pa.Table:
        """``table`` without its ``fields`` column, which is kept when a row of it (or before it) has fields."""
        if schema.FIELDS not in table.column_names:
            self.rows += table.num_rows
            return table
        column = table.column(schema.FIELDS)
        if self._writer is None and column.null_count < len(column):
            self._writer = pa.ipc.new_stream(pa.OSFile(self.path, "wb"), _SIDE_SCHEMA)
            self._writer.write_table(_texts([None] * self.rows))
        if self._writer is not None:
            self._writer.write_table(pa.table({schema.FIELDS: column}, schema=_SIDE_SCHEMA))
            self._learn(text for text in column.to_pylist() if text is not None)
        self.rows += table.num_rows
        return table.drop_columns([schema.FIELDS])

    def _learn(self, texts: Iterable[str]) -> None:
        for text in texts:
            for key, value in json.loads(text).items():
                self.types.setdefault(key, set()).update(() if value is None else (type(value),))

    def columns(self) -> schema.Columns:
        """The ``field_<key>`` columns of the rows taken, by key (none when no row had fields)."""
        return tuple((schema.FIELD_PREFIX + key, _kind_of(types)) for key, types in sorted(self.types.items()))

    def close(self) -> Optional[pa.ChunkedArray]:
        """The ``fields`` column of every row taken (None when no row had fields), its file removed."""
        if self._writer is None:
            return None
        self._writer.close()
        self._writer = None
        with pa.OSFile(self.path) as source:
            column = pa.ipc.open_stream(source).read_all().column(schema.FIELDS)
        os.remove(self.path)
        return column


_SIDE_SCHEMA = pa.schema([pa.field(schema.FIELDS, schema.ARROW_TYPES[schema.STR])])


def _texts(values: List[Optional[str]]) -> pa.Table:
    return pa.table({schema.FIELDS: pa.array(values, type=schema.ARROW_TYPES[schema.STR])}, schema=_SIDE_SCHEMA)


def _arrays(texts: List[Optional[str]], columns: schema.Columns) -> List[pa.Array]:
    """The cells of ``columns`` (``field_<key>``, kind) for rows whose fields are ``texts`` (JSON, or None)."""
    rows = [json.loads(text) if text is not None else {} for text in texts]
    cut = len(schema.FIELD_PREFIX)
    return [pa.array([_cell(row.get(name[cut:]), kind) for row in rows], type=schema.ARROW_TYPES[kind])
            for name, kind in columns]


def _cell(value: Any, kind: str) -> Any:
    """``value`` as a cell of a column of ``kind``: text columns hold the JSON text of what is not text."""
    if value is None or kind != schema.STR or isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def spread(path: str, texts: pa.ChunkedArray, columns: schema.Columns, metadata: Dict[bytes, bytes]) -> None:
    """Add ``columns`` (``field_<key>``) made of ``texts`` (a row's fields, or null) to the stored
    table at ``path``, after its columns, each row group as it was; ``metadata``: the new schema's."""
    source = pq.ParquetFile(path)
    fields = [pa.field(name, schema.ARROW_TYPES[kind]) for name, kind in columns]
    target = pa.schema(list(source.schema_arrow.remove_metadata()) + fields, metadata=metadata)
    spread_path = path + ".spread"
    start = 0
    with pq.ParquetWriter(spread_path, target) as writer:
        for group in range(source.metadata.num_row_groups):
            table = source.read_row_group(group)
            cells = _arrays(texts.slice(start, table.num_rows).to_pylist(), columns)
            table = pa.Table.from_arrays(table.columns + cells, schema=target)
            writer.write_table(table, row_group_size=max(table.num_rows, 1))
            start += table.num_rows
    source.close()
    os.replace(spread_path, path)


def frame_columns(frame: Any) -> schema.Columns:
    """The ``field_<key>`` columns of an occurrences DataFrame, with the kinds of their dtypes."""
    import pandas as pd
    found = []
    for name in frame.columns:
        if str(name).startswith(schema.FIELD_PREFIX):
            dtype = frame[name].dtype
            if pd.api.types.is_bool_dtype(dtype):
                kind = schema.OPTIONAL_BOOL
            elif pd.api.types.is_integer_dtype(dtype):
                kind = schema.OPTIONAL_INT
            else:
                kind = schema.FLOAT if pd.api.types.is_float_dtype(dtype) else schema.STR
            found.append((str(name), kind))
    return tuple(found)


def _joined(kinds: Set[str]) -> str:
    """The kind of a column that is of ``kinds`` in different tables."""
    if len(kinds) == 1:
        return next(iter(kinds))
    return schema.FLOAT if kinds <= {schema.OPTIONAL_INT, schema.FLOAT} else schema.STR


def harmonize(directory: str) -> List[str]:
    """Give every table of a combined dataset (``directory``: an ecosystem run's ``occurrences``, one
    parquet file per project) the same ``field_<key>`` columns, last, of one kind each, so that
    ``pandas.read_parquet(directory)`` (which takes the columns of one file) shows them all:
    a table without a key gets a null column, a column of another kind is cast (ints to floats
    beside floats, else to text).  Returns the files rewritten (none when no table has fields)."""
    paths = sorted(os.path.join(directory, name) for name in os.listdir(directory) if name.endswith(".parquet"))
    # each table's field columns only, not its schema: a run's thousands of schemas, with their
    # metadata, held at once were a large part of the memory of its end
    stored = {path: _field_layout(pq.read_schema(path)) for path in paths}
    found: Dict[str, Set[str]] = {}
    for own, _ in stored.values():
        for field in own:
            found.setdefault(field.name, set()).add(schema.field_kind(field.type))
    columns = tuple((name, _joined(kinds)) for name, kinds in sorted(found.items()))
    wanted = tuple(pa.field(name, schema.ARROW_TYPES[kind]) for name, kind in columns)
    rewritten = []
    for path, (own, last) in stored.items():
        if wanted and (own != wanted or not last):
            _rewrite(path, columns)
            rewritten.append(path)
    return rewritten


def _field_layout(table_schema: pa.Schema) -> Tuple[Tuple[pa.Field, ...], bool]:
    """(the ``field_<key>`` columns of a stored table, whether they are its last columns)."""
    fields = list(table_schema)
    own = tuple(field for field in fields if field.name.startswith(schema.FIELD_PREFIX))
    return own, tuple(fields[len(fields) - len(own):]) == own


def _rewrite(path: str, columns: schema.Columns) -> None:
    """The table at ``path`` with exactly the field ``columns``, last (written beside it, then swapped in)."""
    import pyarrow.compute as pc
    table = pq.read_table(path)
    kept = [name for name in table.column_names if not name.startswith(schema.FIELD_PREFIX)]
    cells = []
    for name, kind in columns:
        arrow_type = schema.ARROW_TYPES[kind]
        if name not in table.column_names:
            cells.append(pa.nulls(table.num_rows, arrow_type))
            continue
        column = table.column(name)
        cells.append(column if column.type == arrow_type else pc.cast(column, arrow_type))
    result = pa.Table.from_arrays(table.select(kept).columns + cells, names=kept + [name for name, _ in columns])
    result = result.replace_schema_metadata(_metadata(table.schema.metadata or {}, kept, columns))
    # hidden, so that no reader of the dataset lists it; a run resumed after a kill removes it (``.tmp``)
    hidden = os.path.join(os.path.dirname(path), "." + os.path.basename(path) + ".fields.tmp")
    pq.write_table(result, hidden)
    os.replace(hidden, path)


def _metadata(metadata: Dict[bytes, bytes], kept: List[str], columns: schema.Columns) -> Dict[bytes, bytes]:
    """``metadata`` of a stored occurrences table with the ``pandas`` entry for its columns (``kept``,
    then the field ``columns``), as punstats writes it (the file's own is never read)."""
    kinds = dict(schema.OCCURRENCES + schema.RULE_COLUMNS)
    known = tuple((name, kinds[name]) for name in kept if name in kinds) + columns
    return {**metadata, b"pandas": schema.pandas_metadata(known)}
