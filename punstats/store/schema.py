"""The columns of the stored tables, written once: names, Arrow types, pandas dtypes.

Each table is a tuple of ``(name, kind)``; a kind names both the Arrow type
stored in parquet and the pandas dtype a DataFrame gets.  The record types in
``model.records`` say what a row holds; this module says how it is stored, so
the spelling of an annotation (``Optional[int]`` or ``int | None``) never
decides a column's type.  A field added to a record without a row here fails
``tests/test_store_schema.py``.
"""
from __future__ import annotations

import functools
import json
import operator
from typing import Any, Dict, List, Sequence, Tuple

import pyarrow as pa

from punstats.model import records
from punstats.model.records import FileRecord
from punstats.patterns.built_in import COUNT_COLUMNS
from punstats.store import arrays
from punstats.store.rules import TestRule

INT, BOOL, STR, OPTIONAL_INT = "int", "bool", "str", "optional int"
OPTIONAL_BOOL, FLOAT = "optional bool", "float"


#: Arrow type of each kind.  ``OPTIONAL_INT`` and ``OPTIONAL_BOOL`` hold nulls (``error_line`` of a
#: parsed file, ``call_line`` of a user pattern's row); so do ``STR`` (pandas reads NaN) and ``FLOAT``.
ARROW_TYPES = {INT: pa.int64(), BOOL: pa.bool_(), STR: pa.large_string(), OPTIONAL_INT: pa.int64(),
               OPTIONAL_BOOL: pa.bool_(), FLOAT: pa.float64()}


#: pandas dtype of each kind: ``str`` is pandas' string dtype, ``Int64`` and ``boolean`` its
#: nullable integer and boolean.
PANDAS_DTYPES = {INT: "int64", BOOL: "bool", STR: "str", OPTIONAL_INT: "Int64", OPTIONAL_BOOL: "boolean",
                 FLOAT: "float64"}


_PANDAS_TYPES = {INT: ("int64", "int64"), BOOL: ("bool", "bool"), STR: ("object", "str"),
                 OPTIONAL_INT: ("int64", "Int64"), OPTIONAL_BOOL: ("bool", "boolean"),
                 FLOAT: ("float64", "float64")}  # (pandas_type, numpy_type) in pandas metadata

Columns = Tuple[Tuple[str, str], ...]

#: The columns about a call (``call``, ``class``, ``attribute``, ``near_miss`` and ``dict_literal``
#: rows fill them): null in the rows of a user pattern.
CALL_COLUMNS = ("callee", "call_line", "call_col", "call_keywords", "call_punnable", "base", "base_kind",
                "dict_call")

OCCURRENCES: Columns = (
    ("path", STR), ("line", INT), ("col", INT), ("end_line", INT), ("end_col", INT),
    ("name", STR), ("name_len", INT), ("kind", STR), ("callee", STR), ("call_line", OPTIONAL_INT),
    ("call_col", OPTIONAL_INT), ("call_keywords", OPTIONAL_INT), ("call_punnable", OPTIONAL_INT), ("depth", INT),
    ("in_fstring", BOOL), ("value", STR), ("base", STR), ("base_kind", STR), ("dict_call", OPTIONAL_BOOL),
    ("cell", OPTIONAL_INT),  # a notebook's cell (lines are then the cell's); last, so the others keep their places
)


#: The occurrences' column of user patterns' fields (``Occurrence.fields``, JSON text) on their way
#: to the stored table (spilled, kept in the cache), which holds them as ``field_<key>`` columns
#: instead (``store.fields``).
FIELDS = "fields"


FIELD_PREFIX = records.FIELD_PREFIX


#: The occurrences columns on their way (``travelling``): the stored ones and ``fields``.
TRAVELLING_OCCURRENCES: Columns = OCCURRENCES + ((FIELDS, STR),)


def field_kind(arrow_type: pa.DataType) -> str:
    """The kind of a ``field_<key>`` column stored with ``arrow_type`` (``store.fields`` writes
    only these four)."""
    if pa.types.is_boolean(arrow_type):
        return OPTIONAL_BOOL
    if pa.types.is_integer(arrow_type):
        return OPTIONAL_INT
    return FLOAT if pa.types.is_floating(arrow_type) else STR


#: A file's facts, then the per-file counts of the built-in kinds (``patterns.built_in.COUNT_COLUMNS``,
#: declared by each kind's module).  The digests of stored tables select their columns by name
#: (tests/test_store_digest.py), so a kind added in its module only adds a column.
FILE_FACTS: Columns = (
    ("path", STR), ("status", STR), ("error", STR), ("error_line", OPTIONAL_INT), ("bytes", INT),
    ("lines", INT), ("encoding", STR), ("sha256", STR), ("code_lines", INT),
)
FILES: Columns = FILE_FACTS + tuple((name, INT) for name in COUNT_COLUMNS)

def file_row(record: FileRecord) -> Tuple[Any, ...]:
    """``record`` as a row of ``FILES``: its facts, then its counts (0 where it kept none)."""
    return _FACT_GETTER(record) + tuple(map(record.counts.get, COUNT_COLUMNS, _ZEROS))


#: Prefix of the files-table columns counting the nodes of an ``ast`` class a user pattern's
#: ``per`` names (``nodes_Try``); present only in scans with such a pattern.
NODE_PREFIX = "nodes_"


def files_columns(units: Sequence[str] = ()) -> Columns:
    """The files table's raw columns, with one ``nodes_<class>`` column per node-class unit."""
    return FILES + tuple((NODE_PREFIX + unit, INT) for unit in units)


def node_units(names: Sequence[str]) -> List[str]:
    """The node-class units of a files table with columns ``names``."""
    return [name[len(NODE_PREFIX):] for name in names if name.startswith(NODE_PREFIX)]


FUNCTIONS: Columns = (
    ("path", STR), ("line", INT), ("col", INT), ("name", STR), ("kind", STR),
    ("positional_only", INT), ("positional_or_keyword", INT), ("keyword_only", INT),
    ("var_positional", BOOL), ("var_keyword", BOOL), ("defaults", INT), ("keyword_only_defaults", INT),
    ("cell", OPTIONAL_INT),  # a notebook's cell, as in occurrences
)


#: Added when a test rule is applied (``frames.apply_rule``); never in the cache.
RULE_COLUMNS: Columns = (("in_test", BOOL), ("test_rule", STR))


#: String columns with few distinct values: pandas categoricals in the DataFrames of a
#: ``ScanResult`` (``frames.categorical``), stored as strings all the same.
CATEGORICAL = ("kind", "status", "base_kind", "test_rule", "encoding")


#: The raw columns of each table, by table name (the order of ``frames.Tables``).
RAW: Dict[str, Columns] = {"occurrences": OCCURRENCES, "files": FILES, "functions": FUNCTIONS}


def raw(units: Sequence[str] = ()) -> Dict[str, Columns]:
    """``RAW``, the files table with the node-class columns of ``units``."""
    return dict(RAW, files=files_columns(units)) if units else RAW


def travelling(units: Sequence[str] = ()) -> Dict[str, Columns]:
    """``raw(units)`` with the occurrences' ``fields`` column: the rows as extracted, spilled and cached."""
    return dict(raw(units), occurrences=TRAVELLING_OCCURRENCES)


def names(columns: Columns) -> List[str]:
    return [name for name, _ in columns]


_FACT_GETTER = operator.attrgetter(*names(FILE_FACTS))

_ZEROS = (0,) * len(COUNT_COLUMNS)


def arrow_schema(columns: Columns) -> pa.Schema:
    """The Arrow schema of ``columns`` (every field nullable, as pandas writes them)."""
    return pa.schema([pa.field(name, ARROW_TYPES[kind]) for name, kind in columns])


def pandas_dtypes(columns: Columns) -> Dict[str, str]:
    return {name: PANDAS_DTYPES[kind] for name, kind in columns}


@functools.lru_cache(maxsize=1)
def _pandas_version() -> str:
    """The installed pandas' version, "" without pandas (readers still get the Arrow types).
    Looked up once: ``importlib.metadata`` reads the installed distributions each time, about
    half a millisecond, for each table a project of an ecosystem run writes or reads."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("pandas")
    except PackageNotFoundError:
        return ""


def pandas_metadata(columns: Columns) -> bytes:
    """The ``pandas`` schema metadata pyarrow writes for these columns, so
    ``pandas.read_parquet`` restores the dtypes; built without importing pandas."""
    pandas_version = _pandas_version()
    described = [{"name": name, "field_name": name, "pandas_type": _PANDAS_TYPES[kind][0],
                  "numpy_type": _PANDAS_TYPES[kind][1], "metadata": None} for name, kind in columns]
    return json.dumps({"index_columns": [], "column_indexes": [], "columns": described, "attributes": {},
                       "creator": {"library": "pyarrow", "version": pa.__version__},
                       "pandas_version": pandas_version}).encode()


def with_rule(table: pa.Table, rule: TestRule) -> pa.Table:
    """``table`` (raw columns) with ``in_test`` and ``test_rule`` set by ``rule``."""
    import pyarrow.compute as pc
    paths = table.column("path")
    unique = pc.unique(paths)
    flags = arrays.bool_array([rule.is_test(path) for path in unique.to_pylist()])
    in_test = flags.take(pc.index_in(paths, value_set=unique)) if len(unique) else flags
    label = arrays.string_array([rule.label], repeat=table.num_rows)
    return table.append_column("in_test", in_test).append_column("test_rule", label)
