"""The stored tables of two real corpora are the ones recorded before the
storage was restructured (streamed row groups, explicit schema).

The occurrences digests were recorded again for extractor version 3, whose
shortened callees keep their method name: compared with version 2, only the
``callee`` column changed, in the rows whose callee was cut (25 of 4,871 in
the standard library, 50 of 17,441 in pandas; the other tables are as they were).

The digest is of the content: each table read with pyarrow, its recorded
columns (``RECORDED``) selected, schema metadata dropped, chunks combined,
written as an Arrow IPC stream.  Columns added since (``ADDED``) are left out, so the
digests still guard every column they were recorded with: ``code_lines`` of
the files table (extractor version 4) is new, and checked against
``tokenize`` in tests/test_extract_codelines.py; ``cell`` of occurrences and functions
(a notebook's cell, null in a ``.py`` file) is checked in tests/test_extract_notebook.py.  The digests hold for the
interpreter and pandas they were recorded with; elsewhere the test is skipped.
"""
import hashlib
import os
import sys

import pytest

from punstats.cli import main

TABLES = ("occurrences", "files", "functions")

_RULE = ("in_test", "test_rule")

#: The columns each digest was recorded with, in their stored order.
RECORDED = {
    "occurrences": ("path", "line", "col", "end_line", "end_col", "name", "name_len", "kind", "callee",
                    "call_line", "call_col", "call_keywords", "call_punnable", "depth", "in_fstring", "value",
                    "base", "base_kind", "dict_call") + _RULE,
    "files": ("path", "status", "error", "error_line", "bytes", "lines", "encoding", "sha256", "calls",
              "keywords", "double_star", "punnable", "class_keywords", "class_punnable", "attribute",
              "dict_entries", "dict_literal", "dict_call_punnable", "near_miss", "calls_no_arguments",
              "calls_positional_only", "calls_keyword_only", "calls_mixed", "calls_all_punnable",
              "max_call_punnable", "functions") + _RULE,
    "functions": ("path", "line", "col", "name", "kind", "positional_only", "positional_or_keyword",
                  "keyword_only", "var_positional", "var_keyword", "defaults", "keyword_only_defaults") + _RULE,
}

#: Recorded with ``punstats scan -q --no-cache -o DIR`` before the restructure (occurrences: at
#: extractor version 3).
STDLIB = {
    "python": "3.11.7 (main, May  9 2026, 07:35:25) [GCC 12.2.0]",
    "occurrences": (4871, "c6f6c0ea38dd17042b3e08e264276a6af26a08e1ba6a9ba6f2e67724de810fc8"),
    "files": (1790, "56e0312f2bb618aed93f7139fe39df2d07502bf64d40d06e3df11e39de19b878"),
    "functions": (60497, "d6dd71514f1f0aa0a2603cb1b4c4ff3ca91306d6e2791fa9fb9a81ae1c1e9085"),
}
PANDAS = {
    "python": "3.11.7 (main, May  9 2026, 07:35:25) [GCC 12.2.0]",
    "pandas": "3.1.1",
    "occurrences": (17441, "cc0fda0b550cc841035b4f65f912ef2f0ebb102b5403634dd75f505722a38bf8"),
    "files": (1440, "0bd79ae26697158a6dcb9c0cb4c85a2dfeb4ba0c747718c11f92e043fdb9fd81"),
    "functions": (34416, "777e55375a57a705e4e56eab5dbbcede87fa2c3d9453b1185af5eff046517e49"),
}

#: The columns stored since the digests were recorded (left out of them).
ADDED = {"occurrences": ("cell",), "files": ("code_lines", "calls_with_punnable"), "functions": ("cell",)}


def test_the_digests_cover_every_stored_column_but_those_added_since():
    from punstats.store import schema
    for name in TABLES:
        stored = schema.names(schema.RAW[name] + schema.RULE_COLUMNS)
        # the digest selects its columns by name: their stored order does not matter
        assert sorted(column for column in stored if column not in ADDED[name]) == sorted(RECORDED[name])


def content_digest(path, columns):
    import pyarrow as pa
    import pyarrow.parquet as pq
    table = pq.read_table(path).select(list(columns)).replace_schema_metadata(None).combine_chunks()
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return table.num_rows, hashlib.sha256(sink.getvalue().to_pybytes()).hexdigest()


def scanned(tmp_path, *paths):
    output = str(tmp_path / "out")
    assert main(["scan", "-q", "--no-cache", "-o", output, *paths]) == 0
    return {name: content_digest(os.path.join(output, name + ".parquet"), RECORDED[name]) for name in TABLES}


@pytest.mark.slow
def test_standard_library_tables_are_unchanged(tmp_path, capsys):
    if sys.version != STDLIB["python"]:
        pytest.skip("recorded on Python %s" % STDLIB["python"])
    assert scanned(tmp_path) == {name: STDLIB[name] for name in TABLES}


@pytest.mark.slow
def test_pandas_tables_are_unchanged(tmp_path, capsys):
    pandas = pytest.importorskip("pandas")
    if pandas.__version__ != PANDAS["pandas"] or sys.version != PANDAS["python"]:
        pytest.skip("recorded on pandas %s under Python %s" % (PANDAS["pandas"], PANDAS["python"]))
    assert scanned(tmp_path, os.path.dirname(pandas.__file__)) == {name: PANDAS[name] for name in TABLES}
