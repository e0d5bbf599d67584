"""The tables of a scan, built from extractions, and their files on disk.

``occurrences``: one row per occurrence (``name=name`` and the related kinds).
``files``: one row per discovered file, with its status.
``functions``: one row per function definition or lambda.
A stored scan is a directory holding ``occurrences.parquet``,
``files.parquet``, ``functions.parquet`` and ``summary.json`` (optionally
CSV copies of the tables).  Each parquet file also carries the scan's
provenance in its key-value metadata under ``punstats``, so a table copied
on its own still says what it measured.  Test flags are applied here
(``apply_rule``) and never stored in the cache, so a rule can change
without extracting anything again.  ``categorical`` gives the columns with few
distinct values (``schema.CATEGORICAL``) the dtype a ``ScanResult`` shows them in,
``as_stored`` the dtype they are written and summarized in.
"""
from __future__ import annotations

import dataclasses
import operator
from typing import TYPE_CHECKING, Any, List, NamedTuple, Sequence

from punstats.model.records import Extraction
from punstats.store import schema
from punstats.store.rules import TestRule

if TYPE_CHECKING:
    import pandas as pd


def field_names(record_type: type) -> List[str]:
    """The fields of a record type: a NamedTuple's or a dataclass's."""
    return list(getattr(record_type, "_fields", None) or (f.name for f in dataclasses.fields(record_type)))


OCCURRENCE_COLUMNS = schema.names(schema.OCCURRENCES + schema.RULE_COLUMNS)


FILE_COLUMNS = schema.names(schema.FILES + schema.RULE_COLUMNS)


FUNCTION_COLUMNS = schema.names(schema.FUNCTIONS + schema.RULE_COLUMNS)


class Tables(NamedTuple):
    """The three tables of a scan."""

    occurrences: pd.DataFrame
    files: pd.DataFrame
    functions: pd.DataFrame


def _frame(rows: Sequence[Any], columns: schema.Columns) -> pd.DataFrame:
    import pandas as pd
    names = schema.names(columns)
    if not isinstance(rows[0] if rows else (), tuple):
        getter = operator.attrgetter(*names)
        rows = [getter(row) for row in rows]
    values = list(zip(*rows)) if rows else [()] * len(names)
    return pd.DataFrame({name: pd.array(list(column), dtype=schema.PANDAS_DTYPES[kind])
                         for (name, kind), column in zip(columns, values)})


def raw_tables(extractions: Sequence[Extraction]) -> Tables:
    """(occurrences, files, functions) DataFrames, before any test rule."""
    return Tables(
        _frame([o for e in extractions for o in e.occurrences], schema.OCCURRENCES),
        _frame([schema.file_row(e.record) for e in extractions], schema.FILES),
        _frame([f for e in extractions for f in e.functions], schema.FUNCTIONS),
    )


def apply_rule(table: pd.DataFrame, rule: TestRule) -> pd.DataFrame:
    """``table`` with ``in_test`` and ``test_rule`` set by ``rule``."""
    import pandas as pd
    table = table.copy()
    test_paths = rule.test_paths(table["path"].unique())
    table["in_test"] = table["path"].isin(test_paths).astype("bool")
    table["test_rule"] = pd.array([rule.label] * len(table), dtype="str")
    return table


def categorical(table: Any) -> Any:
    """``table`` (a DataFrame, or None) with its ``schema.CATEGORICAL`` columns as pandas
    categoricals, whose categories are the values present (sorted)."""
    import pandas as pd
    if table is None:
        return None
    names = [name for name in schema.CATEGORICAL
             if name in table.columns and not isinstance(table[name].dtype, pd.CategoricalDtype)]
    return table.astype({name: "category" for name in names}) if names else table


def as_stored(table: Any) -> Any:
    """``table`` (a DataFrame, or None) with its categoricals back to the strings they are
    stored as (``schema.PANDAS_DTYPES``): what parquet holds and the summary counts."""
    import pandas as pd
    if table is None:
        return None
    names = [name for name in table.columns if isinstance(table[name].dtype, pd.CategoricalDtype)]
    return table.astype({name: schema.PANDAS_DTYPES[schema.STR] for name in names}) if names else table


def csv_ready(table: Any) -> Any:
    """``table`` (a DataFrame) as a CSV file may hold it: each string cell through
    ``model.escape.csv_cell`` (a leading ``'`` where a spreadsheet would see a
    formula); numeric, boolean and date columns unchanged, so they stay typed."""
    import pandas as pd

    from punstats.model.escape import csv_cell
    names = [name for name in table.columns
             if pd.api.types.is_object_dtype(table[name].dtype) or pd.api.types.is_string_dtype(table[name].dtype)
             or isinstance(table[name].dtype, pd.CategoricalDtype)]
    if not names:
        return table
    return table.assign(**{str(name): table[name].astype(object).map(csv_cell, na_action="ignore")
                           for name in names})
