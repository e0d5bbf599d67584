"""The explicit schema: it covers every record field, and types never come from annotations."""
import dataclasses

import pandas as pd

from punstats.model.records import Extraction, FileRecord, FunctionShape, Occurrence, failure
from punstats.patterns.built_in import COUNT_COLUMNS, PATTERNS
from punstats.store import frames, schema


def test_every_record_field_has_a_stored_column_in_order():
    assert schema.names(schema.TRAVELLING_OCCURRENCES) == list(Occurrence._fields)
    assert schema.names(schema.OCCURRENCES) == list(Occurrence._fields)[:-1]  # fields: stored as columns
    facts = [f.name for f in dataclasses.fields(FileRecord) if f.name != "counts"]
    assert schema.names(schema.FILES) == facts + list(COUNT_COLUMNS)
    assert schema.names(schema.FUNCTIONS) == list(FunctionShape._fields)


def test_a_count_column_is_declared_by_one_built_in_kind_and_read_from_the_record():
    declared = [column for kind in PATTERNS for column in kind.columns]
    assert len(declared) == len(set(declared)) and tuple(declared) == COUNT_COLUMNS
    record = FileRecord("a.py", "ok", "", None, 10, 1, "utf-8", "0" * 64, counts={"punnable": 2})
    row = dict(zip(schema.names(schema.FILES), schema.file_row(record)))
    assert row["punnable"] == record.punnable == 2 and row["calls"] == record.calls == 0


def extraction():
    record = FileRecord("a.py", "ok", "", None, 10, 1, "utf-8", "0" * 64,
                        counts={"calls": 1, "keywords": 1, "punnable": 1})
    occurrence = Occurrence("a.py", 1, 2, 1, 5, "x", 1, "call", "f", 1, 0, 1, 1, 0, False, "x", "", "", False)
    function = FunctionShape("a.py", 1, 0, "f", "def", 0, 1, 0, False, True, 0, 0)
    return [Extraction(record, (occurrence,), (function,)), failure("b.py", "syntax_error", "bad", 3)]


def test_dtypes_are_the_schemas(monkeypatch):
    # the spelling pyupgrade --py311-plus gives must not matter
    monkeypatch.setitem(FileRecord.__annotations__, "error_line", "int | None")
    tables = frames.raw_tables(extraction())
    files = tables.files
    assert str(files["error_line"].dtype) == "Int64" and files["error_line"].tolist()[1] == 3
    assert pd.isna(files["error_line"].iloc[0])
    assert files["path"].dtype == pd.StringDtype(na_value=float("nan")) or str(files["path"].dtype) == "str"
    assert str(files["bytes"].dtype) == "int64"
    assert str(tables.occurrences["in_fstring"].dtype) == "bool"
    assert str(tables.functions["var_keyword"].dtype) == "bool"


def test_written_parquet_has_the_explicit_schema(tmp_path):
    import pyarrow.parquet as pq

    from punstats.store import disk
    from punstats.store.rules import DEFAULT_TEST_RULE
    tables = [frames.apply_rule(t, DEFAULT_TEST_RULE) for t in frames.raw_tables(extraction())]
    disk.write(str(tmp_path), tables[0], tables[1], {"rules": {}}, functions=tables[2])
    for name, columns in schema.RAW.items():
        stored = pq.read_schema(tmp_path / (name + ".parquet"))
        assert stored.remove_metadata() == schema.arrow_schema(columns + schema.RULE_COLUMNS)
    back = pd.read_parquet(tmp_path / "files.parquet")
    assert back.dtypes.astype(str).to_dict() == schema.pandas_dtypes(schema.FILES + schema.RULE_COLUMNS)


def test_categorical_columns_are_string_columns_that_round_trip():
    tables = {name: columns + schema.RULE_COLUMNS for name, columns in schema.RAW.items()}
    kinds = {column: kind for columns in tables.values() for column, kind in columns}
    assert {kinds[name] for name in schema.CATEGORICAL} == {schema.STR}
    found = {name: [c for c, _ in columns if c in schema.CATEGORICAL] for name, columns in tables.items()}
    assert found == {"occurrences": ["kind", "base_kind", "test_rule"], "files": ["status", "encoding", "test_rule"],
                     "functions": ["kind", "test_rule"]}
    table = pd.DataFrame({"kind": pd.array(["call", "class", "call"], dtype="str"), "n": [1, 2, 3]})
    shown = frames.categorical(table)
    assert shown["kind"].dtype == "category" and shown["kind"].cat.categories.tolist() == ["call", "class"]
    assert frames.categorical(shown) is shown and frames.categorical(None) is None
    assert frames.as_stored(shown).equals(table) and frames.as_stored(table) is table
