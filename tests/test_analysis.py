"""``punstats.analysis``: the summary and the breakdowns, against independent counts.

The corpus is the stored scan of a few standard-library packages
(``conftest.py``).  Every expected number is computed here without
``punstats.analysis``: from the source files with ``ast`` alone, or from the
stored rows with plain Python (``collections.Counter``), so a wrong groupby,
filter or tie rule in analysis shows as a difference.
"""
import ast
import os
from collections import Counter

import pytest

import punstats
from punstats import analysis


@pytest.fixture(scope="module")
def result(stdlib_subset_scan_dir):
    return punstats.load(stdlib_subset_scan_dir)


@pytest.fixture(scope="module")
def rows(result):
    """The headline occurrences as plain dicts."""
    occ = result.occurrences
    return [dict(zip(occ.columns, values)) for values in occ[occ["kind"] == "call"].itertuples(index=False)]


def _ast_counts(root):
    """(keyword arguments, punnable keyword arguments of calls, calls with one or more) of the
    files that parse, with ast alone."""
    keywords = punnable = calls = 0
    for directory, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if not name.endswith(".py"):
                continue
            with open(os.path.join(directory, name), "rb") as handle:
                try:
                    tree = ast.parse(handle.read())
                except (SyntaxError, ValueError):
                    continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Call):
                    named = [k for k in node.keywords if k.arg is not None]
                    keywords += len(named)
                    same = sum(isinstance(k.value, ast.Name) and k.value.id == k.arg for k in named)
                    punnable += same
                    calls += same > 0
    return keywords, punnable, calls


def test_headline_equals_an_ast_count(result, stdlib_subset_dir):
    summary = analysis.summarize(result.occurrences, result.files, 10)
    assert (summary["keywords"], summary["punnable"], summary["calls_with_punnable"]) == _ast_counts(stdlib_subset_dir)
    assert summary["punnable"] > 100


def test_summary_equals_plain_python_over_the_rows(result, rows):
    summary = analysis.summarize(result.occurrences, result.files, 12)
    long = [r for r in rows if r["name_len"] >= 12]
    assert summary["long"] == len(long) and summary["long_threshold"] == 12
    assert summary["long_nontest"] == sum(not r["in_test"] for r in long)
    assert summary["punnable_test"] == sum(bool(r["in_test"]) for r in rows)
    assert summary["punnable_pct"] == round(100.0 * summary["punnable"] / summary["keywords"], 4)
    for key, column in (("top_identifiers", "name"), ("top_callees", "callee")):
        counts = Counter(r[column] for r in rows)
        expected = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:analysis.TOP_N]
        assert summary[key] == [[name, n] for name, n in expected]
    statuses = Counter(result.files["status"])
    assert summary["parsed"] == statuses["ok"] and summary["files"] == len(result.files) - sum(
        n for s, n in statuses.items() if s in punstats.model.SKIPPED_STATUSES)


def test_length_distribution(result, rows):
    table = analysis.length_distribution(result.occurrences)
    lengths = Counter(r["name_len"] for r in rows)
    assert list(table.index) == list(range(1, max(lengths) + 1))
    for length in table.index:
        assert table.at[length, "total"] == lengths[length]
        at_least = sum(n for size, n in lengths.items() if size >= length)
        assert table.at[length, "at_least"] == at_least
        assert table.at[length, "at_least_pct"] == round(100.0 * at_least / len(rows), 4)
        assert table.at[length, "nontest"] == sum(1 for r in rows if r["name_len"] == length and not r["in_test"])
    capped = analysis.length_distribution(result.occurrences, open_from=15)
    assert capped.index[-1] == 15 and capped.at[15, "total"] == sum(n for size, n in lengths.items() if size >= 15)


def test_by_directory(result, rows):
    table = analysis.by_directory(result.occurrences, result.files)
    parsed = result.files[result.files["status"] == "ok"]
    files = Counter(p.split("/")[0] + "/" if "/" in p else p for p in parsed["path"])
    punnable = Counter(r["path"].split("/")[0] + "/" if "/" in r["path"] else r["path"] for r in rows)
    assert dict(table["files"]) == dict(files)
    assert {k: v for k, v in table["punnable"].items() if v} == dict(punnable)
    assert list(table.index) == sorted(files, key=lambda place: (-punnable[place], place))
    cut = analysis.by_directory(result.occurrences, result.files, n=1)
    assert list(cut.index) == [table.index[0], "(2 others)"]
    assert cut["punnable"].sum() == len(rows)


def test_top_split(result, rows):
    table = analysis.top_split(result.occurrences, "name", 5)
    counts = Counter(r["name"] for r in rows)
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:5]
    assert list(table.index) == [name for name, _ in ranked]
    assert list(table["total"]) == [n for _, n in ranked]
    assert list(table["test"]) == [sum(1 for r in rows if r["name"] == name and r["in_test"]) for name, _ in ranked]


def test_kinds_count_every_pattern_from_the_files_table(result):
    summary = analysis.summarize(result.occurrences, result.files, 10)
    parsed = result.files[result.files["status"] == "ok"]
    for name in analysis.KIND_COUNTERS:
        assert summary["kinds"][name] == sum(int(v) for v in parsed[name])
    assert summary["kinds"]["call"] == summary["punnable"]
    assert summary["kinds"]["dict_literal"] == int((result.occurrences["kind"] == "dict_literal").sum())


def test_lines_of_code_and_file_units_sum_the_parsed_files(result):
    files = [dict(zip(result.files.columns, values)) for values in result.files.itertuples(index=False)]
    parsed = [f for f in files if f["status"] == "ok"]
    outside = [f for f in parsed if not f["in_test"]]
    assert 0 < len(outside) < len(parsed)
    summary = result.summary
    assert summary["code_lines"] == sum(f["code_lines"] for f in parsed) < summary["lines"]
    for key, rows in (("units", parsed), ("units_nontest", outside)):
        expected = {"files": len(rows), "lines": sum(f["lines"] for f in rows),
                    "code_lines": sum(f["code_lines"] for f in rows)}
        assert {unit: summary[key][unit] for unit in expected} == expected
    assert summary["units"]["lines"] == summary["lines"] and summary["units"]["files"] == summary["parsed"]


def test_files_stored_before_lines_of_code_keep_every_other_number(result):
    summary = analysis.summarize(result.occurrences, result.files, 10)
    older = analysis.summarize(result.occurrences, result.files.drop(columns=["code_lines"]), 10)
    assert "code_lines" in summary and "code_lines" not in older
    assert "code_lines" not in older["units"] and "code_lines" not in older["units_nontest"]
    for key in ("units", "units_nontest"):
        del summary[key]["code_lines"]
    del summary["code_lines"]
    assert older == summary


def test_files_stored_before_calls_were_counted_tell_calls_apart_by_their_start(result, rows):
    """Extractor version 4 stored no ``calls_with_punnable``: a re-classified old scan counts as it did."""
    older = analysis.summarize(result.occurrences, result.files.drop(columns=["calls_with_punnable"]), 10)
    assert older["calls_with_punnable"] == len({(r["path"], r["call_line"], r["call_col"]) for r in rows})


def test_a_chain_is_as_many_calls_as_it_has(tmp_path):
    """``f(a=a).g(b=b)`` and ``f(a=a)(b=b)``: two calls each, starting where the first does."""
    (tmp_path / "m.py").write_text("f(a=a).g(b=b)\nf(a=a)(b=b)\nx.f(a=a).g(b=1)\n")
    scanned = punstats.scan(str(tmp_path), jobs=1, cache=False)
    assert analysis.summarize(scanned.occurrences, scanned.files, 10)["calls_with_punnable"] == 5
    assert scanned.summary["calls_with_punnable"] == 5
