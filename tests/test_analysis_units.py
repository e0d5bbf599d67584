"""``analysis.units``: a registry row's count and the total it is a share of, read from
summaries as the scan records them (``units``) and as summaries stored before held them."""
import math
import warnings

import pandas as pd
import pytest

import punstats
from punstats import analysis
from punstats.analysis import units
from punstats.model.kinds import UNITS, Kind
from punstats.patterns.built_in import KINDS


@pytest.fixture(scope="module")
def result(stdlib_subset_scan_dir):
    return punstats.load(stdlib_subset_scan_dir)


def test_denominators_of_a_summary_stored_before_units_come_from_the_tables(result):
    """Every unit a built-in row uses, against the stored files and functions tables."""
    s = {k: v for k, v in result.summary.items() if k not in ("units", "units_nontest")}
    parsed = result.files[result.files["status"] == "ok"]
    expected = {"keywords": parsed["keywords"].sum(), "calls": parsed["calls"].sum(),
                "class_keywords": parsed["class_keywords"].sum(), "dict_entries": parsed["dict_entries"].sum(),
                "functions": len(result.functions), "files": len(parsed), "lines": parsed["lines"].sum()}
    for unit, total in expected.items():
        assert units.denominator(s, unit) == int(total), unit
    outside = parsed[~parsed["in_test"].astype(bool)]
    assert units.denominator(s, "keywords", nontest=True) == int(outside["keywords"].sum())
    assert units.denominator(s, "calls", nontest=True) is None  # never recorded before ``units_nontest``
    assert units.denominator(s, "") is None and units.denominator(s, "Try") is None
    assert {kind.per for kind in KINDS} <= set(expected) | {""}


def test_recorded_units_come_first_and_node_classes_are_units():
    s = {"keywords": 10, "units": {"keywords": 12, "Try": 4}, "units_nontest": {"Try": 1}}
    assert units.denominator(s, "keywords") == 12
    assert units.denominator(s, "Try") == 4 and units.denominator(s, "Try", nontest=True) == 1
    assert units.unit_words("Try") == "`Try` nodes" and units.unit_words("lines") == UNITS["lines"]


def test_count_reads_the_section_of_the_row_and_the_counts_outside_tests():
    s = {"kinds": {"functions": 7, "call": 3}, "parameters": {"functions": 9}, "kinds_nontest": {"call": 1}}
    assert units.count(s, KINDS["functions"]) == 9  # a definition-side row: the functions table
    assert units.count(s, KINDS["call"]) == 3 and units.count(s, KINDS["call"], nontest=True) == 1
    assert units.count(s, KINDS["attribute"]) is None and units.count(s, KINDS["attribute"], nontest=True) is None
    assert units.count({"kinds": {"functions": 7}}, KINDS["functions"]) == 7  # stored without parameters


def test_shares_and_rates_say_nan_where_they_mean_nothing():
    assert units.share(1, 8) == 12.5 and math.isnan(units.share(1, 0)) and math.isnan(units.share(None, 8))
    assert units.per_million({"code_lines": 400}, 2) == 5000.0
    assert units.per_million({"units": {"code_lines": 200}, "code_lines": 400}, 2) == 10000.0
    assert math.isnan(units.per_million({"lines": 400}, 2))  # lines of code unknown: no rate


def test_union_keeps_the_built_in_rows_then_each_scans_patterns_once():
    one = {"patterns": [{"name": "a", "label": "A", "per": "lines"}]}
    two = {"patterns": [{"name": "b", "label": "B", "per": "Try"}, {"name": "a", "label": "A", "per": "lines"}]}
    names = [kind.name for kind in units.union([one, {}, two])]
    assert names == [kind.name for kind in KINDS] + ["a", "b"]
    assert units.union([two])["b"].per == "Try" and units.union([two])["b"].user


def test_figure_rows_are_each_occurrence_kind_and_its_first_part():
    registry = KINDS.with_kinds([Kind("mine", "mine", "lines", occurrence=True, source="x.py")])
    rows = [kind.name for kind in units.figure_rows(registry)]
    assert rows == ["call", "dict_call_punnable", "attribute", "attribute_self", "near_miss", "dict_literal",
                    "class", "mine"]


def test_kinds_comparison_gives_nontest_and_rates_where_recorded(result):
    s = dict(result.summary, kinds_nontest={"call": 5}, units={"code_lines": 1000}, units_nontest={"keywords": 50})
    later = ("kinds_nontest", "units", "units_nontest", "code_lines")
    before = {k: v for k, v in result.summary.items() if k not in later}
    table = analysis.kinds_comparison([s, before])  # the second as stored before these were recorded
    assert list(table.index) == [kind.name for kind in KINDS]
    assert table.at["call", "nontest_0"] == 5 and table.at["call", "nontest_pct_0"] == 10.0
    assert table.at["call", "per_million_0"] == round(1e6 * s["punnable"] / 1000, 2)
    assert pd.isna(table.at["call", "nontest_1"]) and math.isnan(table.at["call", "per_million_1"])
    assert table.at["attribute_self", "part_of"] == "attribute"


def test_a_scan_that_parsed_no_file_has_none_of_any_unit(tmp_path):
    """A real scan of a tree without Python files (an sdist of stubs only) records no units; it holds
    0 of each (lines of code, keyword arguments, nodes), so a run pooling it still knows its totals."""
    (tmp_path / "stubs.pyi").write_text("def f(x: int) -> int: ...\n")
    with warnings.catch_warnings():  # whether an empty scan warns is not this test's matter
        warnings.simplefilter("ignore")
        summary = punstats.scan(str(tmp_path), cache=False).summary
    assert summary["parsed"] == 0 and "code_lines" not in summary  # as stored: nothing recorded
    for unit in [*(u for u in UNITS if u), "code_lines", "Try"]:
        assert units.denominator(summary, unit) == 0, unit
        assert units.denominator(summary, unit, nontest=True) == 0, unit
    assert units.denominator(dict(summary, parsed=3), "code_lines") is None  # files parsed: unknown stays unknown
    assert math.isnan(units.per_million(summary, 0))


def test_a_rate_below_one_per_million_keeps_the_figures_every_output_prints():
    """165 in 190,836,602 lines is 0.8646 per million: printed 0.865, not 0.860 (a rate rounded
    to two decimals first, then given three significant figures)."""
    from punstats.present.formats import rate_text
    assert rate_text(units.rate(165, 190_836_602)) == "0.865"
    assert rate_text(units.rate(95, 153_191_241)) == "0.620"
    assert rate_text(units.rate(355, 88_220_548)) == "4.02"
