"""The columns of the stored tables, written once: names, Arrow types, pandas dtypes.

Each table is a tuple of ``(name, kind)``; a kind names both the Arrow type
stored in parquet and the pandas dtype a DataFrame gets.  The record types in
``model.records`` say what a row holds; this module says how it is stored, so
the spelling of an annotation (``Optional[int]`` or ``int | None``) never
decides a column's type.  A field added to a record without a row here fails
``tests/test_store_schema.py``.
"""
from __future__ import annotations

import json
from typing import Dict, List, Tuple

import pyarrow as pa

INT, BOOL, STR, OPTIONAL_INT = "int", "bool", "str", "optional int"


#: Arrow type of each kind.  ``OPTIONAL_INT`` holds nulls (``error_line`` of a parsed file).
ARROW_TYPES = {INT: pa.int64(), BOOL: pa.bool_(), STR: pa.large_string(), OPTIONAL_INT: pa.int64()}


#: pandas dtype of each kind: ``str`` is pandas' string dtype, ``Int64`` its nullable integer.
PANDAS_DTYPES = {INT: "int64", BOOL: "bool", STR: "str", OPTIONAL_INT: "Int64"}


_PANDAS_TYPES = {INT: ("int64", "int64"), BOOL: ("bool", "bool"), STR: ("object", "str"),
                 OPTIONAL_INT: ("int64", "Int64")}  # (pandas_type, numpy_type) in pandas metadata

Columns = Tuple[Tuple[str, str], ...]

OCCURRENCES: Columns = (
    ("path", STR), ("line", INT), ("col", INT), ("end_line", INT), ("end_col", INT),
    ("name", STR), ("name_len", INT), ("kind", STR), ("callee", STR), ("call_line", INT),
    ("call_col", INT), ("call_keywords", INT), ("call_punnable", INT), ("depth", INT),
    ("in_fstring", BOOL), ("value", STR), ("base", STR), ("base_kind", STR), ("dict_call", BOOL),
)


FILES: Columns = (
    ("path", STR), ("status", STR), ("error", STR), ("error_line", OPTIONAL_INT), ("bytes", INT),
    ("lines", INT), ("encoding", STR), ("sha256", STR),
) + tuple((name, INT) for name in (
    "calls", "keywords", "double_star", "punnable", "class_keywords", "class_punnable",
    "attribute", "dict_entries", "dict_literal", "dict_call_punnable", "near_miss",
    "calls_no_arguments", "calls_positional_only", "calls_keyword_only", "calls_mixed",
    "calls_all_punnable", "max_call_punnable", "functions",
))


FUNCTIONS: Columns = (
    ("path", STR), ("line", INT), ("col", INT), ("name", STR), ("kind", STR),
    ("positional_only", INT), ("positional_or_keyword", INT), ("keyword_only", INT),
    ("var_positional", BOOL), ("var_keyword", BOOL), ("defaults", INT), ("keyword_only_defaults", INT),
)


#: Added when a test rule is applied (``frames.apply_rule``); never in the cache.
RULE_COLUMNS: Columns = (("in_test", BOOL), ("test_rule", STR))


#: The raw columns of each table, by table name (the order of ``frames.Tables``).
RAW: Dict[str, Columns] = {"occurrences": OCCURRENCES, "files": FILES, "functions": FUNCTIONS}


def names(columns: Columns) -> List[str]:
    return [name for name, _ in columns]


def arrow_schema(columns: Columns) -> pa.Schema:
    """The Arrow schema of ``columns`` (every field nullable, as pandas writes them)."""
    return pa.schema([pa.field(name, ARROW_TYPES[kind]) for name, kind in columns])


def pandas_dtypes(columns: Columns) -> Dict[str, str]:
    return {name: PANDAS_DTYPES[kind] for name, kind in columns}


def pandas_metadata(columns: Columns) -> bytes:
    """The ``pandas`` schema metadata pyarrow writes for these columns, so
    ``pandas.read_parquet`` restores the dtypes; built without importing pandas."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        pandas_version = version("pandas")
    except PackageNotFoundError:  # written without pandas: readers still get the Arrow types
        pandas_version = ""
    described = [{"name": name, "field_name": name, "pandas_type": _PANDAS_TYPES[kind][0],
                  "numpy_type": _PANDAS_TYPES[kind][1], "metadata": None} for name, kind in columns]
    return json.dumps({"index_columns": [], "column_indexes": [], "columns": described, "attributes": {},
                       "creator": {"library": "pyarrow", "version": pa.__version__},
                       "pandas_version": pandas_version}).encode()
