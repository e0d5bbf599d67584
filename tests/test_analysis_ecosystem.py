"""The per-project and pooled numbers of an ecosystem run (``analysis.ecosystem``), checked against an
independent computation on the run's combined dataset: pd.read_parquet(DIR/occurrences) and DIR/files.

The run (``fakerun``) is made by the command line against a fake PyPI on 127.0.0.1.
"""
import ast
import os

import pandas as pd
import pytest
from fakerun import NAMES, make_run, stdlib_unittest

from punstats.analysis import ecosystem as eco
from punstats.analysis import units
from punstats.patterns.built_in import registry_of
from punstats.store.ecosystem import read_run


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    directory, _ = make_run(tmp_path_factory.mktemp("run"), "--no-figure")
    return read_run(directory)


def by_hand(directory):
    """Per project, from the stored tables alone: parsed files, lines of code, keyword arguments (the
    files table), f(x=x) (rows of the occurrences table), in all code and outside tests."""
    files = pd.read_parquet(os.path.join(directory, "files"))
    occurrences = pd.read_parquet(os.path.join(directory, "occurrences"))
    parsed = files[files["status"] == "ok"]
    calls = occurrences[occurrences["kind"] == "call"]
    frame = pd.DataFrame({
        "files": parsed.groupby("project").size(),
        "code_lines": files.groupby("project")["code_lines"].sum(),
        "keywords": parsed.groupby("project")["keywords"].sum(),
        "punnable": calls.groupby("project").size(),
        "keywords_nontest": parsed[~parsed["in_test"]].groupby("project")["keywords"].sum(),
        "punnable_nontest": calls[~calls["in_test"]].groupby("project").size(),
    })
    return frame.fillna(0).astype(int)


def test_each_project_s_counts_are_those_of_its_stored_tables(stored):
    frame = eco.per_project(stored.records)
    assert list(frame["project"]) == NAMES and list(frame["rank"]) == list(range(1, len(NAMES) + 1))
    assert dict(zip(frame["project"], frame["status"])) == {
        "alpha": "scanned", "beta": "scanned", "gamma": "skipped", "delta": "scanned", "iota": "scanned",
        "kappa": "scanned", "stdunit": "scanned"}
    expected = by_hand(stored.directory)
    scanned = frame[frame["status"] == "scanned"].set_index("project")[list(eco.PROJECT_COUNTS)].astype(int)
    expected = expected.reindex(scanned.index).fillna(0).astype(int)  # delta has no f(x=x) rows at all
    pd.testing.assert_frame_equal(scanned, expected[list(eco.PROJECT_COUNTS)], check_names=False)
    assert frame.set_index("project").loc["gamma", list(eco.PROJECT_COUNTS)].isna().all()  # not 0: not scanned
    assert expected.loc["kappa", "punnable"] == 2 and expected.loc["kappa", "punnable_nontest"] == 0  # as meant


def test_pooled_counts_and_shares_are_the_dataset_s_totals(stored):
    expected = by_hand(stored.directory).sum()
    total = eco.pooled(eco.per_project(stored.records))
    assert total == dict(projects=6, **{column: int(expected[column]) for column in eco.PROJECT_COUNTS})
    rates = eco.shares(total)
    assert rates["pct"] == pytest.approx(100 * expected["punnable"] / expected["keywords"], abs=1e-4)
    assert rates["nontest_pct"] == pytest.approx(100 * expected["punnable_nontest"] / expected["keywords_nontest"],
                                                 abs=1e-4)
    assert rates["per_million"] == pytest.approx(1e6 * expected["punnable"] / expected["code_lines"], abs=0.01)
    assert rates["pct"] == pytest.approx(stored.ecosystem["all"]["pooled_pct"], abs=1e-4)  # the run's own summary


def test_a_share_of_nothing_is_nan_not_zero(stored):
    frame = eco.per_project(stored.records).set_index("project")
    delta = {column: int(frame.loc["delta", column]) for column in eco.PROJECT_COUNTS}
    assert delta["keywords"] == 0
    rates = eco.shares(delta)
    assert rates["pct"] != rates["pct"] and rates["nontest_pct"] != rates["nontest_pct"]
    assert rates["per_million"] == 0.0  # one line of code, no f(x=x): a rate of 0 is a number
    assert eco.shares(dict(delta, code_lines=None))["per_million"] != eco.shares(delta)["per_million"]


def test_a_count_some_project_did_not_record_pools_to_unknown():
    frame = pd.DataFrame([{"rank": 1, "project": "a", "status": "scanned", "code_lines": 10},
                          {"rank": 2, "project": "b", "status": "scanned", "code_lines": None}])
    for column in eco.PROJECT_COUNTS:
        if column != "code_lines":
            frame[column] = 1
    total = eco.pooled(frame)
    assert total["code_lines"] is None and total["files"] == 2


def test_the_pooled_patterns_are_the_dataset_s_counts_and_units(stored):
    summaries = [r["summary"] for r in stored.records if r["status"] == "scanned"]
    pooled = eco.pooled_summary(summaries)
    files = pd.read_parquet(os.path.join(stored.directory, "files"))
    occurrences = pd.read_parquet(os.path.join(stored.directory, "occurrences"))
    parsed = files[files["status"] == "ok"]
    tries = occurrences[occurrences["kind"] == "try_finally"]
    [kind] = [k for k in registry_of(pooled) if k.user]
    assert (kind.name, kind.per) == ("try_finally", "Try")
    assert units.count(pooled, kind) == len(tries)
    assert units.count(pooled, kind, nontest=True) == int((~tries["in_test"]).sum())
    mine = tries[tries["project"] != "stdunit"]
    assert (len(mine), int((~mine["in_test"]).sum())) == (4, 2)  # the fixture as meant
    assert units.denominator(pooled, "Try") == int(parsed["nodes_Try"].sum())
    assert units.denominator(pooled, "code_lines") == int(files["code_lines"].sum())
    for name in ("call", "attribute", "near_miss"):  # the built-in rows too
        assert pooled["kinds"][name] == int((occurrences["kind"] == name).sum()), name
    assert pooled["kinds"]["calls_keyword_only"] == int(parsed["calls_keyword_only"].sum())


def test_a_maximum_is_pooled_as_the_largest_not_a_sum(stored):
    files = pd.read_parquet(os.path.join(stored.directory, "files"))
    largest = int(files["max_call_punnable"].max())
    assert largest < int(files.groupby("project")["max_call_punnable"].max().sum())  # a sum would differ
    summaries = [r["summary"] for r in stored.records if r["status"] == "scanned"]
    assert eco.pooled_summary(summaries)["kinds"]["max_call_punnable"] == largest
    assert stored.ecosystem["kinds"]["all"]["max_call_punnable"]["count"] == largest  # the run's summary too


def test_at_least_is_the_share_of_identifiers_at_least_n_long(stored):
    calls = pd.read_parquet(os.path.join(stored.directory, "occurrences"), columns=["kind", "name_len"])
    lengths = calls[calls["kind"] == "call"]["name_len"]
    curve = eco.at_least(stored.ecosystem["all"]["cumulative_by_length"])
    assert [row[0] for row in curve] == sorted(set(lengths))
    for n, count, pct in curve:
        assert count == int((lengths >= n).sum())
        assert pct == pytest.approx(100 * (lengths >= n).mean(), abs=1e-4)
    assert curve[0][2] == 100.0 and eco.at_least([]) == []


def punnable_by_ast(files):
    """f(x=x) counted with ``ast`` alone (a call's keyword whose value is the name it is given), in all
    code and outside the ``test`` directory: no punstats code involved."""
    total = outside = 0
    for path, text in files.items():
        found = sum(1 for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Call)
                    for keyword in node.keywords
                    if keyword.arg and isinstance(keyword.value, ast.Name) and keyword.value.id == keyword.arg)
        total += found
        outside += 0 if "/test/" in path else found
    return total, outside


def test_real_code_counts_as_a_plain_ast_walk_counts_it(stored):
    frame = eco.per_project(stored.records).set_index("project")
    total, outside = punnable_by_ast(stdlib_unittest())
    assert total > 20  # real code (its tests are under unittest/test up to Python 3.11, elsewhere after)
    assert (frame.loc["stdunit", "punnable"], frame.loc["stdunit", "punnable_nontest"]) == (total, outside)
    assert frame.loc["stdunit", "files"] == len(stdlib_unittest())


def _left_out_record(name, summary, status="scanned"):
    measure = {"files": 1, "keywords": 0, "punnable": 0, "identifiers": {}, "callees": {}, "lengths": {}}
    return {"status": status, "project": name, "measures": {"all": measure, "nontest": measure},
            "summary": summary, "reason": "no_sdist"}


def test_what_the_projects_left_out_is_summed_by_reason():
    refused = [{"member": "a/x.py", "reason": "symlink", "detail": "-> /etc"},
               {"member": "a/y.py", "reason": "symlink", "detail": "-> /"},
               {"member": "a/big.py", "reason": "too_large", "detail": "9 MB"}]
    records = [
        _left_out_record("a", {"skipped_dirs": {"vcs": 2, "environment": 1}, "skipped_files": {"symlink": 4},
                               "failed_by_reason": {"syntax_error": 3}, "refused_members": refused}),
        _left_out_record("b", {"skipped_dirs": {"vcs": 5}, "skipped_files": {}, "failed_by_reason": {},
                               "refused_members": []}),
        _left_out_record("c", {"skipped_files": {}, "failed_by_reason": {"too_large": 1}}),  # an older record
        _left_out_record("d", {"skipped_dirs": {"vcs": 100}}, status="skipped"),  # not scanned: nothing to sum
    ]
    left_out = eco.aggregate(records)["left_out"]
    assert left_out["directories"] == {"total": 8, "by_reason": {"environment": 1, "vcs": 7}, "projects": 2,
                                       "unrecorded": 1}
    assert left_out["files"] == {"total": 4, "by_reason": {"symlink": 4}, "projects": 1, "unrecorded": 0}
    assert left_out["unparsed_files"] == {"total": 4, "by_reason": {"syntax_error": 3, "too_large": 1},
                                          "projects": 2, "unrecorded": 0}
    assert left_out["archive_members"] == {"total": 3, "by_reason": {"symlink": 2, "too_large": 1}, "projects": 1,
                                           "unrecorded": 1}
    from punstats.present.ecosystem import left_out_text
    text = left_out_text({"left_out": left_out})
    assert text.startswith("directories skipped 8 in 2 projects (environment 1, vcs 7) (not recorded for 1 "
                           "project, stored by an earlier punstats); files skipped 4 in 1 project (symlink 4); ")
    assert "archive members refused 3 in 1 project (symlink 2, too_large 1)" in text
    assert left_out_text({}).startswith("not recorded")  # a summary written before left_out was summed
    assert left_out_text(eco.aggregate(records[1:2])) == "directories skipped 5 in 1 project (vcs 5)"
    assert left_out_text(eco.aggregate(records[3:])) == "nothing"  # 0 of everything: not listed


def test_the_run_s_left_out_is_what_its_stored_records_hold(stored):
    from collections import Counter
    summaries = [r["summary"] for r in stored.records if r["status"] == "scanned"]
    left_out = stored.ecosystem["left_out"]
    for name, key in eco.LEFT_OUT:
        expected = Counter()
        for s in summaries:
            expected.update(Counter(m["reason"] for m in s[key]) if key == "refused_members" else s[key])
        assert left_out[name]["by_reason"] == dict(expected) and left_out[name]["unrecorded"] == 0, name
    assert left_out["directories"]["by_reason"] == {"environment": 1}  # kappa's .tox, as the fake index holds it
    from punstats.present.ecosystem import summary_lines
    assert "  left out: directories skipped 1 in 1 project (environment 1)" in summary_lines(stored.ecosystem)
    files = pd.read_parquet(os.path.join(stored.directory, "files"))  # the failed files, from the dataset
    failed = files[~files["status"].isin(["ok", "symlink", "outside_root", "directory", "submodule", "not_python"])]
    assert left_out["unparsed_files"]["by_reason"] == failed["status"].astype(str).value_counts().to_dict()


def test_a_project_that_parsed_no_file_has_no_line_of_code_and_the_pool_stays_known(stored):
    """A project whose release holds no Python file (stubs only) has a summary without units
    (as a real empty scan stores it: ``test_analysis_units``); it adds 0 lines of code, and the
    pooled lines of code and rate per million lines stay known."""
    records = [r for r in stored.records if r["status"] == "scanned"]
    nothing = {scope: dict(m, files=0, keywords=0, punnable=0) for scope, m in records[0]["measures"].items()}
    summary = {k: v for k, v in records[0]["summary"].items() if k not in ("units", "units_nontest", "code_lines")}
    empty = dict(records[0], rank=99, project="stubs", measures=nothing, summary=dict(summary, parsed=0, files=0))
    frame = eco.per_project(records + [empty]).set_index("project")
    assert int(frame.loc["stubs", "code_lines"]) == 0
    total, before = eco.pooled(frame.reset_index()), eco.pooled(eco.per_project(records))
    assert total["code_lines"] == before["code_lines"] is not None
    assert eco.shares(total)["per_million"] == eco.shares(before)["per_million"]


def pandas_measures(occurrences, files):
    """A project's measures as pandas counts them (``value_counts``): what ``measures`` must equal."""
    frame, parsed = occurrences.to_pandas(), files.to_pandas()
    parsed = parsed[parsed["status"] == "ok"]
    calls = frame[frame["kind"] == "call"]
    result = {}
    for scope in eco.SCOPES:
        f = parsed if scope == "all" else parsed[~parsed["in_test"]]
        o = calls if scope == "all" else calls[~calls["in_test"]]
        counts = {column: {str(k): int(v) for k, v in o[column].value_counts().items()}
                  for column in ("name", "callee", "name_len")}
        result[scope] = {"files": len(f), "keywords": int(f["keywords"].sum()), "punnable": int(f["punnable"].sum()),
                         "identifiers": counts["name"], "callees": counts["callee"],
                         "lengths": dict(sorted(counts["name_len"].items(), key=lambda kv: int(kv[0])))}
    return result


def test_measures_count_as_pandas_does_ties_in_the_order_values_first_appear():
    """Counted without pandas (a run imports none while it scans), in the same order, key for key:
    the stored records are the same bytes as when pandas counted them."""
    import random

    import pyarrow as pa
    rng = random.Random(7)
    rows = 600
    names = [rng.choice("abcdefghijklmnopqrstuvwxyz") * rng.randint(1, 4) for _ in range(rows)]
    occurrences = pa.table({
        "kind": [rng.choice(["call", "call", "attribute", "near_miss"]) for _ in range(rows)],
        "in_test": [rng.random() < 0.3 for _ in range(rows)],
        "name": names,
        "callee": [rng.choice(["f", "g", "h", "self.x", None]) for _ in range(rows)],
        "name_len": [len(name) for name in names],
        "path": ["m%d.py" % (i % 9) for i in range(rows)]})
    files = pa.table({"status": ["ok", "ok", "syntax_error", "symlink", "ok"],
                      "in_test": [False, True, False, False, False],
                      "keywords": [4, 2, 0, 0, 7], "punnable": [1, 2, 0, 0, 3]})
    got = eco.measures(occurrences, files)
    expected = pandas_measures(occurrences, files)
    assert got == expected
    for scope in eco.SCOPES:
        for key in ("identifiers", "callees", "lengths"):
            assert list(got[scope][key].items()) == list(expected[scope][key].items())
    assert got["all"]["files"] == 3 and got["nontest"]["keywords"] == 11
    assert sum(got["all"]["callees"].values()) < sum(got["all"]["identifiers"].values())  # no callee: not counted
