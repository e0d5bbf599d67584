"""``analysis.sides``: scans, runs and histories reduced to one kind's counts, and compared.

Every side's counts are checked against plain pandas on the stored tables (the run's combined
``files`` and ``occurrences`` datasets, the scan's parquet files), and its intervals against the
single-input intervals ``analysis.uncertainty`` gives the run and the scan on their own.
"""
import os

import numpy as np
import pandas as pd
import pytest
from fakerun import make_run

from punstats.analysis import sides, uncertainty
from punstats.analysis.ecosystem import per_project
from punstats.model.intervals import Bootstrap
from punstats.patterns.built_in import registry_of
from punstats.runs import scan
from punstats.store.ecosystem import read_run

FEW = Bootstrap(400, 0)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    directory, _ = make_run(tmp_path_factory.mktemp("run"), "--no-figure")
    return directory


def call_kind(summary=None):
    return registry_of(summary or {})["call"]


def test_a_run_side_counts_each_scanned_project_as_its_stored_tables_do(run_dir):
    stored = read_run(run_dir)
    side = sides.run_side(stored, stored.registry["call"], "run", "")
    files = pd.read_parquet(os.path.join(run_dir, "files"))
    occurrences = pd.read_parquet(os.path.join(run_dir, "occurrences"))
    scanned = [r["project"] for r in stored.records if r["status"] == "scanned"]
    parsed = files[(files["status"] == "ok") & files["project"].isin(scanned)]
    calls = occurrences[(occurrences["kind"] == "call") & occurrences["project"].isin(scanned)]
    assert side.projects == len(scanned) and side.files == len(parsed)
    assert side.totals["count"] == len(calls) and side.totals["unit"] == parsed["keywords"].sum()
    assert side.totals["count_nontest"] == (~calls["in_test"]).sum()
    assert side.totals["unit_nontest"] == parsed.loc[~parsed["in_test"], "keywords"].sum()
    by_project = calls.groupby("project").size().reindex(scanned, fill_value=0)
    assert list(side.per_unit["count"]) == list(by_project)


def test_a_run_side_s_intervals_are_those_of_the_run_on_its_own(run_dir):
    stored = read_run(run_dir)
    compared = sides.compare([sides.run_side(stored, stored.registry["call"], "run", "")], FEW)
    alone = uncertainty.run_intervals(per_project(stored.records), FEW)
    for measure, own in (("measure", "pct"), ("measure_nontest", "nontest_pct"), ("per_million", "per_million")):
        assert compared.sides[0].pooled[measure] == pytest.approx(alone.pooled[own], nan_ok=True), measure
        assert compared.sides[0].median[measure] == pytest.approx(alone.median[own], nan_ok=True), measure


def test_a_scan_side_counts_each_parsed_file_and_its_interval_is_the_scan_s_own(stdlib_subset_scan_dir):
    result = scan.load(stdlib_subset_scan_dir)
    side = sides.scan_side(result, call_kind(result.summary), "scan", "")
    files = pd.read_parquet(os.path.join(stdlib_subset_scan_dir, "files.parquet"))
    parsed = files[files["status"] == "ok"]
    assert side.files == len(parsed) and len(side.per_unit) == len(parsed)
    assert side.per_unit["unit"].sum() == parsed["keywords"].sum() == side.totals["unit"]
    assert side.per_unit["code_lines"].sum() == parsed["code_lines"].sum()
    compared = sides.compare([side], Bootstrap(400, 0, "files"))
    alone = uncertainty.scan_intervals(result.files, Bootstrap(400, 0, "files"))
    assert compared.sides[0].pooled["measure"] == alone["punnable_pct"]
    assert compared.sides[0].pooled["measure_nontest"] == alone["punnable_nontest_pct"]
    assert not compared.sides[0].median["measure"].known  # one project: no median of projects


def test_a_kind_of_occurrences_is_counted_per_file_from_its_rows(stdlib_subset_scan_dir):
    result = scan.load(stdlib_subset_scan_dir)
    kind = registry_of(result.summary)["near_miss"]
    side = sides.scan_side(result, kind, "scan", "")
    rows = pd.read_parquet(os.path.join(stdlib_subset_scan_dir, "occurrences.parquet"))
    assert side.per_unit is not None
    assert side.per_unit["count"].sum() == (rows["kind"] == "near_miss").sum() == side.totals["count"]


def test_a_history_side_is_its_newest_revision_without_an_interval():
    table = pd.DataFrame({"commit": ["a" * 40, "b" * 40], "keywords": [10, 40], "punnable": [1, 10],
                          "punnable_nontest_pct": [5.0, 30.0], "parsed": [3, 4]})
    side = sides.history_side(table, call_kind(), "h", "")
    compared = sides.compare([side], FEW)
    assert side.files == 4 and compared.sides[0].pooled["measure"].estimate == 25.0
    assert compared.sides[0].pooled["measure_nontest"].estimate == 30.0
    assert not compared.sides[0].pooled["measure"].known


def _side(name, counts, units, sort=sides.RUN):
    frame = pd.DataFrame({"count": counts, "unit": units, "count_nontest": counts, "unit_nontest": units,
                          "code_lines": [1000] * len(counts)})
    totals = {column: int(frame[column].sum()) for column in sides.COUNTS}
    return sides.Side(name, sort, call_kind(), totals, frame, len(counts), None, "", {})


def test_a_difference_has_an_interval_and_a_permutation_p_value():
    rng = np.random.default_rng(1)
    units = list(rng.integers(50, 500, 60))
    high = _side("a", [int(u * 0.3) for u in units], units)
    low = _side("b", [int(u * 0.1) for u in units], units)
    same = _side("c", [int(u * 0.3) for u in units], units)
    found = sides.compare([high, low, same], FEW, permutations=999)
    apart, alike = found.differences[0]["measure"], found.differences[1]["measure"]
    assert apart.estimate == pytest.approx(high.estimate("measure") - low.estimate("measure"))
    assert 0 < apart.low <= apart.estimate <= apart.high and apart.p_value == pytest.approx(1 / 1000)
    assert alike.estimate == 0 and alike.low <= 0 <= alike.high and alike.p_value > 0.5
    assert found.permutations == 999


def test_units_of_two_sorts_get_an_interval_but_no_p_value():
    run = _side("run", [5, 6, 7], [50, 60, 70])
    scan_side = _side("scan", [1, 2, 3, 4], [10, 20, 30, 40], sides.SCAN)
    found = sides.compare([run, scan_side], FEW).differences[0]["measure"]
    assert found.low == found.low and found.p_value != found.p_value


def test_two_runs_medians_differ_with_an_interval_and_a_permutation_p_value():
    rng = np.random.default_rng(2)
    units = list(rng.integers(50, 500, 80))
    shares = rng.uniform(0.2, 0.4, 80)
    high = _side("a", [int(u * s) for u, s in zip(units, shares)], units)
    low = _side("b", [int(u * (s - 0.15)) for u, s in zip(units, shares)], units)
    found = sides.compare([high, low, high], FEW, permutations=999)
    apart, alike = found.median_differences[0]["measure"], found.median_differences[1]["measure"]
    own = [100 * c / u for c, u in zip(high.per_unit["count"], units)]
    other = [100 * c / u for c, u in zip(low.per_unit["count"], units)]
    assert apart.estimate == pytest.approx(np.median(own) - np.median(other))
    assert 0 < apart.low <= apart.estimate <= apart.high and apart.p_value == pytest.approx(1 / 1000)
    assert alike.estimate == 0 and alike.p_value == 1


def test_a_scan_has_no_median_difference():
    run = _side("run", [5, 6, 7], [50, 60, 70])
    found = sides.compare([run, _side("scan", [1, 2], [10, 20], sides.SCAN)], FEW)
    assert found.median_differences[0]["measure"].estimate != found.median_differences[0]["measure"].estimate
