"""``store/fields.py``: a user pattern's dict as ``field_<key>`` columns of the stored occurrences,
read with plain pandas; the columns about a call null in a pattern's rows; built-in rows as they were."""
import json
import os

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import punstats
from punstats.cli import main
from punstats.engines import base
from punstats.present.tidy import PROVENANCE_COLUMNS
from punstats.store import disk, fields, schema

#: Every kind of field value, and a key (``mixed``) whose values are of two types.
PLUGIN = '''\
import ast

import punstats


@punstats.pattern("rets", label="returns", per="lines", on=(ast.Return, ast.Break))
def match(node, parents):
    """Returns and breaks, with fields."""
    if isinstance(node, ast.Break):
        return {"line": node.lineno, "mixed": "two"}
    return {"line": node.lineno, "has_value": node.value is not None, "ratio": 0.5, "what": "return",
            "mixed": 1, "items": [1, "a"]}
'''

PLAIN = '''\
import ast

import punstats


@punstats.pattern("rets", label="returns", per="lines", on=ast.Return)
def match(node, parents):
    return True
'''

SOURCE = ("def f(x, y):\n    g(x=x, y=y)\n    for i in x:\n        break\n    return {'a': a}\n\n\n"
          "def h():\n    return\n")


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "m.py").write_text(SOURCE)
    (tmp_path / "plugin.py").write_text(PLUGIN)
    (tmp_path / "plain.py").write_text(PLAIN)
    return root


def scan(tmp_path, root, name, *extra, cache=False):
    out = str(tmp_path / name)
    assert main(["scan", str(root), "-q", "-o", out, *extra] + ([] if cache else ["--no-cache"])) == 0
    return out


def test_a_patterns_dict_fields_are_columns_plain_pandas_reads(tmp_path, project, capsys):
    out = scan(tmp_path, project, "out", "--pattern", str(tmp_path / "plugin.py"))
    table = pd.read_parquet(os.path.join(out, "occurrences.parquet"))
    added = [c for c in table.columns if c.startswith("field_")]
    assert added == ["field_has_value", "field_items", "field_line", "field_mixed", "field_ratio", "field_what"]
    assert table[added].dtypes.astype(str).to_dict() == {
        "field_has_value": "boolean", "field_items": "str", "field_line": "Int64", "field_mixed": "str",
        "field_ratio": "float64", "field_what": "str"}
    rows = table[table["kind"] == "rets"].set_index("line")
    assert rows["field_line"].tolist() == rows.index.tolist() == [4, 5, 9]
    assert rows["field_has_value"].tolist() == [pd.NA, True, False]
    assert rows["field_mixed"].tolist() == ["two", "1", "1"]  # an int beside text: its JSON text
    assert rows.loc[5, "field_items"] == '[1, "a"]' and rows.loc[5, "value"] == "return {'a': a}"
    assert pd.isna(rows.loc[4, "field_ratio"]) and rows.loc[9, "field_ratio"] == 0.5
    calls = table[table["kind"] == "call"]
    assert len(calls) == 2 and calls[added].isna().all().all()


def test_the_columns_about_a_call_are_null_in_a_patterns_rows_only(tmp_path, project, capsys):
    out = scan(tmp_path, project, "out", "--pattern", str(tmp_path / "plain.py"))
    table = pd.read_parquet(os.path.join(out, "occurrences.parquet"))
    assert not any(c.startswith("field_") for c in table.columns)  # no dict: no column
    assert fields.SIDE_FILE not in os.listdir(out)
    rows, calls = table[table["kind"] == "rets"], table[table["kind"] == "call"]
    assert rows[list(schema.CALL_COLUMNS)].isna().all().all()
    assert calls[list(schema.CALL_COLUMNS)].notna().all().all()
    assert rows[["depth", "in_fstring", "name"]].values.tolist() == [[0, False, "Return"], [0, False, "Return"]]
    assert table[["call_line", "call_keywords"]].dtypes.astype(str).tolist() == ["Int64", "Int64"]
    assert str(table["dict_call"].dtype) == "boolean"


def test_built_in_rows_are_stored_as_without_patterns(tmp_path, project, capsys):
    alone = pq.read_table(os.path.join(scan(tmp_path, project, "alone"), "occurrences.parquet"))
    fielded = pq.read_table(os.path.join(scan(tmp_path, project, "with", "--pattern", str(tmp_path / "plugin.py")),
                                         "occurrences.parquet"))
    built_in = fielded.filter(pa.compute.not_equal(fielded["kind"], "rets")).select(alone.column_names)
    assert built_in.replace_schema_metadata(None).equals(alone.replace_schema_metadata(None))
    # without patterns the stored types are those the stored-table digests were recorded with
    assert alone.schema.remove_metadata() == schema.arrow_schema(schema.OCCURRENCES + schema.RULE_COLUMNS)
    assert alone.schema.field("call_line").type == pa.int64() and alone.schema.field("dict_call").type == pa.bool_()


def test_fields_stay_with_their_rows_across_batches_and_row_groups(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(disk, "ROW_GROUP_ROWS", dict.fromkeys(disk.ROW_GROUP_ROWS, 7))
    monkeypatch.setattr(base, "BUCKET_FILES", 3)
    root = tmp_path / "many"
    root.mkdir()
    for n in range(20):  # some files without a return (rows without fields between those with)
        (root / ("m%02d.py" % n)).write_text("f(a=a)\n" * (n % 4) + "def g():\n    return 1\n" * (n % 3))
    (tmp_path / "plugin.py").write_text(PLUGIN)
    out = scan(tmp_path, root, "out", "--pattern", str(tmp_path / "plugin.py"), "-j", "2")
    assert pq.ParquetFile(os.path.join(out, "occurrences.parquet")).metadata.num_row_groups > 3
    table = pd.read_parquet(os.path.join(out, "occurrences.parquet"))
    rows = table[table["kind"] == "rets"]
    assert len(rows) == sum(n % 3 for n in range(20)) and (rows["field_line"] == rows["line"]).all()
    assert table[table["kind"] == "call"]["field_line"].isna().all()


def test_the_cache_a_saved_copy_and_csv_keep_the_field_columns(tmp_path, project, capsys, monkeypatch):
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    plugin = str(tmp_path / "plugin.py")
    first = os.path.join(scan(tmp_path, project, "first", "--pattern", plugin, cache=True), "occurrences.parquet")
    again = os.path.join(scan(tmp_path, project, "again", "--pattern", plugin, cache=True), "occurrences.parquet")
    assert json.loads(open(os.path.join(tmp_path, "again", "summary.json")).read())["cache"]["cached"] == 1
    assert pd.read_parquet(again).equals(pd.read_parquet(first))
    punstats.load(str(tmp_path / "first")).with_rules("none").save(str(tmp_path / "saved"))
    saved = pd.read_parquet(tmp_path / "saved" / "occurrences.parquet")
    assert saved.drop(columns=["in_test", "test_rule"]).equals(pd.read_parquet(first).drop(columns=["in_test",
                                                                                                     "test_rule"]))
    out = scan(tmp_path, project, "csv", "--pattern", plugin, "--csv")
    copy = pd.read_csv(os.path.join(out, "occurrences.csv"))
    own = list(pd.read_parquet(first).columns)
    assert list(copy.columns[:len(own)]) == own  # then what the scan measured: its provenance
    assert list(copy.columns[len(own):]) == [c for c in PROVENANCE_COLUMNS if c != "test_rule"]
    assert copy[copy["kind"] == "rets"]["field_line"].tolist() == [4, 5, 9]


def test_a_pattern_with_fields_has_hits_labels_and_a_table(tmp_path, project, capsys):
    out = scan(tmp_path, project, "out", "--pattern", str(tmp_path / "plugin.py"))
    capsys.readouterr()
    assert main(["hits", out, "--kind", "rets"]) == 0
    assert capsys.readouterr().out == "m.py:4:9:         break\nm.py:5:5:     return {'a': a}\nm.py:9:5:     return\n"
    assert main(["hits", out, "--kind", "rets", "--json"]) == 0
    found = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [hit["fields"] for hit in found][:2] == [{"line": 4, "mixed": "two"}, {
        "line": 5, "has_value": True, "ratio": 0.5, "what": "return", "mixed": "1", "items": '[1, "a"]'}]
    assert main(["hits", out, "--kind", "call", "--json"]) == 0
    assert "fields" not in capsys.readouterr().out  # a hit without fields says none
    assert main(["label", out, "--kind", "rets"]) == 0
    assert len(open(os.path.join(out, "labels-rets.csv")).read().splitlines()) > 3
    assert main(["table", out, "--kind", "rets"]) == 0
    assert "Count" in capsys.readouterr().out


def write(path, columns):
    pq.write_table(pa.table(columns), str(path))


def test_harmonize_gives_every_table_the_same_field_columns(tmp_path):
    write(tmp_path / "a.parquet", {"kind": ["call"], "project": ["a"]})
    write(tmp_path / "b.parquet", {"kind": ["p"], "field_n": pa.array([1], pa.int64()),
                                   "field_x": pa.array([0.5]), "project": ["b"]})
    write(tmp_path / "c.parquet", {"kind": ["p"], "field_n": pa.array(["one"], pa.large_string()),
                                   "field_x": pa.array([2], pa.int64()), "project": ["c"]})
    assert [os.path.basename(p) for p in fields.harmonize(str(tmp_path))] == ["a.parquet", "b.parquet", "c.parquet"]
    table = pd.read_parquet(tmp_path).set_index("project")
    assert list(table.columns) == ["kind", "field_n", "field_x"]
    assert table["field_n"].tolist()[1:] == ["1", "one"] and pd.isna(table.loc["a", "field_n"])
    assert table["field_x"].tolist()[1:] == [0.5, 2.0] and str(table["field_x"].dtype) == "float64"
    assert fields.harmonize(str(tmp_path)) == []  # once is enough
    assert not [name for name in os.listdir(tmp_path) if not name.endswith(".parquet")]


def test_harmonize_leaves_tables_without_fields_as_they_are(tmp_path):
    write(tmp_path / "a.parquet", {"kind": ["call"]})
    before = (tmp_path / "a.parquet").read_bytes()
    assert fields.harmonize(str(tmp_path)) == [] and (tmp_path / "a.parquet").read_bytes() == before


def test_the_readmes_example_of_fields_reads_as_it_says(tmp_path, capsys, monkeypatch):
    import re
    readme = open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md"),
                  encoding="utf-8").read()
    section = readme[readme.index("## Your own patterns"):]
    pattern, reading = re.findall(r"```python\n(.*?)```", section, re.S)[1:3]
    (tmp_path / "caught_tuple.py").write_text("import ast\n\nimport punstats\n\n\n" + pattern)
    root = tmp_path / "path" / "to" / "project"
    root.mkdir(parents=True)
    (root / "m.py").write_text("try:\n    pass\nexcept (OSError, ValueError) as e:\n    pass\nexcept KeyError:\n"
                               "    pass\n")
    monkeypatch.chdir(tmp_path)
    assert main(["scan", "path/to/project", "-q", "--no-cache", "--pattern", "caught_tuple.py", "-o",
                 "data/project"]) == 0
    shown = {}
    exec(reading, shown)  # noqa: S102 -- the README's own lines
    assert shown["rows"][["line", "field_names", "field_first", "field_bound"]].values.tolist() == [
        [3, 2, "OSError", True]]
