"""The labels of an ecosystem run (present/run_labels.py, ``punstats label RUN`` and ``table RUN --by
label``): the sheet holds the run's occurrences of the kind (checked with plain pandas over the run's
dataset) in rank order with their project and release, seeded samples are reproducible and stratified,
labels survive a re-run, the counts equal a plain count of the sheet, a scan and a run share one table,
the labelled share in words, and every error is one line (exit 2) with nothing lost."""
import io
import os
import re
import shutil

import pandas as pd
import pytest

from punstats.cli import main
from punstats.present import run_labels
from punstats.present.formats import Label
from punstats.present.labels import UNLABELLED, labelled_share
from punstats.store.ecosystem import read_run


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    from fakerun import make_run
    directory, _ = make_run(tmp_path_factory.mktemp("run"), "--no-figure")
    return directory


@pytest.fixture
def run_dir(made, tmp_path):
    """A copy of the run, for a test to write its sheets into."""
    return str(shutil.copytree(made, tmp_path / "top-pypi-7"))


def occurrences(directory, kind):
    """The run's occurrences of ``kind`` by plain pandas: its scanned projects, in rank, path, line order."""
    frame = pd.read_parquet(os.path.join(directory, "occurrences"))
    frame = frame[(frame["kind"] == kind) & (frame["project"] != "gamma")]  # gamma: skipped, nothing stored
    return frame.sort_values(["rank", "path", "line", "col"], kind="stable").reset_index(drop=True)


def sheet(directory, kind):
    return pd.read_csv(os.path.join(directory, "labels-%s.csv" % kind), dtype=str, keep_default_na=False)


def label(directory, kind, chosen):
    """Fill the label column of the rows whose key, or (project, path, line), is in ``chosen``, with pandas."""
    rows = sheet(directory, kind)
    for index, row in rows.iterrows():
        place = (row["project"], row["path"], int(row["line"]))
        rows.loc[index, "label"] = chosen.get(row["key"], chosen.get(place, row["label"]))
    rows.to_csv(os.path.join(directory, "labels-%s.csv" % kind), index=False, lineterminator="\n")


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_the_sheet_holds_the_runs_occurrences_in_rank_order_with_project_and_release(run_dir, capsys):
    status, out, _ = run(capsys, "label", run_dir, "--kind", "call")
    expected = occurrences(run_dir, "call")
    assert status == 0 and out.splitlines()[0] == "%s: %d of %d occurrences of call, 0 labelled" % (
        os.path.join(run_dir, "labels-call.csv"), len(expected), len(expected))
    got = sheet(run_dir, "call")
    assert list(got.columns[:5]) == ["key", "rank", "project", "release", "path"]
    assert got[["project", "path", "line", "col"]].values.tolist() == \
        expected[["project", "path", "line", "col"]].astype(str).values.tolist()
    assert got["rank"].astype(int).is_monotonic_increasing and got["key"].is_unique
    versions = {r["project"]: r["version"] for r in read_run(run_dir).records if r["status"] == "scanned"}
    assert (got["release"] == got["project"].map(versions)).all()
    assert got["in_test"].tolist() == expected["in_test"].astype(str).tolist()
    markdown = open(os.path.join(run_dir, "labels-call.md"), encoding="utf-8").read()
    assert "## 1. `alpha-1.0/alpha/core.py`, line 2, column 6" in markdown
    assert "run keeps no release files" in markdown and "    2 > v" in markdown


def drawn(directory, capsys, *options):
    """The sheet ``punstats label`` writes with ``options`` into a run without one (it is removed after)."""
    assert run(capsys, "label", directory, "--kind", "call", *options)[0] == 0
    got = sheet(directory, "call")
    os.remove(os.path.join(directory, "labels-call.csv"))
    return got


def test_a_sample_is_reproducible_and_stratified_by_project(run_dir, capsys):
    per_project = occurrences(run_dir, "call")["project"].value_counts()
    keys = [drawn(run_dir, capsys, "--sample", "6", "--per-project", "2", "--seed", s)["key"].tolist()
            for s in ("5", "5", "6")]
    assert keys[0] == keys[1] and keys[0] != keys[2]  # the seed decides, and only the seed
    for seed in ("1", "2", "3"):
        got = drawn(run_dir, capsys, "--sample", "6", "--per-project", "2", "--seed", seed)
        assert len(got) == 6 and got["project"].value_counts().max() <= 2
    got = drawn(run_dir, capsys, "--sample", "50", "--per-project", "2")  # fewer fit than asked: all that fit
    assert got["project"].value_counts().to_dict() == per_project.clip(upper=2).to_dict()
    got = drawn(run_dir, capsys, "--per-project", "3")  # every project, up to 3 each
    assert got["project"].value_counts().to_dict() == per_project.clip(upper=3).to_dict()


def test_an_unstratified_sample_draws_n_of_the_whole_run(run_dir, capsys):
    assert run(capsys, "label", run_dir, "--kind", "call", "--sample", "20", "--seed", "3")[0] == 0
    got = sheet(run_dir, "call")
    assert len(got) == 20 and got["project"].value_counts().max() > 3  # stdunit, the big project, dominates


def test_labels_entered_survive_a_rerun_and_are_counted_as_a_plain_count_of_the_sheet(run_dir, capsys):
    assert run(capsys, "label", run_dir, "--kind", "call", "--per-project", "2", "--seed", "1")[0] == 0
    first = sheet(run_dir, "call")
    chosen = {r.key: ("bug" if i % 3 == 0 else "fine") for i, r in enumerate(first.itertuples())}
    label(run_dir, "call", chosen)
    status, out, _ = run(capsys, "label", run_dir, "--kind", "call", "--per-project", "2", "--seed", "9")
    again = sheet(run_dir, "call")
    assert status == 0 and "%d labelled" % len(chosen) in out and len(again) > len(first)
    kept = again[again["label"] != ""]
    assert dict(zip(kept["key"], kept["label"])) == chosen
    status, out, _ = run(capsys, "table", run_dir, "--by", "label", "--format", "csv")
    table = pd.read_csv(io.StringIO(out))
    labelled = kept.groupby(["project", "label"]).size()
    assert table[table["label"] != UNLABELLED].set_index(["project", "label"])["total"].sort_index().to_dict() == \
        labelled.sort_index().to_dict()
    everything = occurrences(run_dir, "call")
    assert table["total"].sum() == len(everything)
    assert table.groupby("project")["total"].sum().to_dict() == everything["project"].value_counts().to_dict()
    pooled, = run_labels.run_labels(read_run(run_dir))
    assert {name: n + t for name, n, t in pooled.pooled} == dict(table.groupby("label")["total"].sum())


def test_a_scan_and_a_run_share_one_labels_table(run_dir, tmp_path, capsys):
    root = tmp_path / "proj"
    root.mkdir()
    (root / "m.py").write_text("g(x=x)\nh(y=y)\n")
    scan = str(tmp_path / "scan")
    assert main(["scan", str(root), "-o", scan, "-q", "-j", "1"]) == 0
    for directory in (scan, run_dir):
        assert main(["label", directory, "--kind", "call"]) == 0
    label(run_dir, "call", {("alpha", "alpha/core.py", 2): "bug"})
    capsys.readouterr()
    status, out, _ = run(capsys, "table", scan, run_dir, "--by", "label", "--format", "markdown")
    assert status == 0 and out.count("Labels of `call` occurrences") == 1
    assert "| Label | proj[^1] | top-pypi-7[^2] |" in re.sub(" +", " ", out)
    assert "| bug" in out and "| (unlabelled)" in out
    status, out, _ = run(capsys, "table", scan, run_dir, "--by", "label", "--format", "csv")
    table = pd.read_csv(io.StringIO(out))
    in_run = len(occurrences(run_dir, "call"))
    assert table.groupby("scan")["total"].sum().to_dict() == {"proj": 2, "top-pypi-7": in_run}
    assert table.loc[table["scan"] == "proj", "project"].isna().all()


def test_the_run_s_reports_show_the_labelled_share_and_the_labels_table(run_dir, tmp_path, capsys):
    """``report RUN`` and ``report RUN --kind NAME`` had no labels: now each says how many hits are labelled,
    with which labels, above the table per label (of the kind the report is about, when it has a sheet)."""
    hits = len(occurrences(run_dir, "try_finally"))
    path = tmp_path / "r.md"
    assert main(["report", run_dir, "--kind", "try_finally", "--no-figures", "-o", str(path)]) == 0
    assert "## Labels" not in path.read_text()  # no sheet, no section
    assert main(["label", run_dir, "--kind", "try_finally"]) == 0
    label(run_dir, "try_finally", {("alpha", "alpha/core.py", 7): "bug", ("iota", "iota/b.py", 5): "fine"})
    assert main(["label", run_dir, "--kind", "call"]) == 0
    capsys.readouterr()
    assert main(["report", run_dir, "--kind", "try_finally", "--no-figures", "-o", str(path)]) == 0
    text = path.read_text()
    part = text.split("## Labels", 1)[1].split("## What was measured")[0]
    assert "`try_finally` in top-pypi-7: 2 of %d labelled (%.2f%%): 1 bug, 1 fine.\n" % (hits, 200 / hits) in part
    assert "**Labels of `try_finally` occurrences in top-pypi-7**" in part and "`call`" not in part
    assert re.search(r"\| bug +\| +1 \| +0 \| +1 \| +1 \|", part)
    assert text.count("[^1]:") == 1  # the labels tables add no second note numbered 1
    from gfm import check_tables
    assert check_tables(text) == 2
    whole = tmp_path / "whole.md"
    assert main(["report", run_dir, "--kind", "call", "--no-figures", "-o", str(whole)]) == 0
    part = whole.read_text().split("## Labels", 1)[1].split("## Reproduce")[0]
    assert "`call` in top-pypi-7: 0 of " in part and "`try_finally` in top-pypi-7: 2 of " in part


def test_the_projects_table_of_a_kind_gives_each_project_s_share_of_hits_labelled(run_dir, capsys):
    """``table RUN --kind NAME`` had no word of the labels: with a sheet of the kind, a "Hits labelled"
    column (the share of the project's hits labelled; CSV: ``labelled``, a count), else no such column."""
    from punstats.present.subject import project_table
    stored = read_run(run_dir)
    kind = stored.registry["try_finally"]
    assert "Hits labelled" not in [cell.text for cell in project_table(stored, kind).header]
    assert main(["label", run_dir, "--kind", "try_finally"]) == 0
    label(run_dir, "try_finally", {("alpha", "alpha/core.py", 7): "bug", ("iota", "iota/b.py", 5): "fine"})
    capsys.readouterr()
    table = project_table(stored, kind, top=2)
    assert table.header[-1].text == "Hits labelled"
    hits = occurrences(run_dir, "try_finally")
    column = [row[-1] for row in table.rows[:-2]]  # the last two: the intervals, nothing labelled
    assert column[0].value == pytest.approx(100 / (hits["project"] == "alpha").sum(), abs=0.005)  # alpha: 1 of 3
    assert column[1].value != column[1].value  # beta: no hits, n/a
    assert column[-3].value == pytest.approx(100 / (hits["project"] != "alpha").sum(), abs=0.005)  # the others
    assert column[-2].value == pytest.approx(200 / len(hits), abs=0.005) and column[-1].text == ""  # all; median
    assert [row[-1] for row in table.rows[-2:]] == [Label(""), Label("")]
    status, out, _ = run(capsys, "table", run_dir, "--kind", "try_finally", "--format", "csv")
    frame = pd.read_csv(io.StringIO(out)).set_index("project")
    assert frame.loc["alpha", "labelled"] == 1 and frame.loc["iota", "labelled"] == 1
    assert frame.loc["beta", "labelled"] == 0 and pd.isna(frame.loc["gamma", "labelled"])


@pytest.mark.parametrize("counts, words", [
    ([("bug", 10, 2), ("fine", 20, 5), (UNLABELLED, 100, 66)], "37 of 203 labelled (18.23%): 12 bug, 25 fine"),
    ([(UNLABELLED, 3, 0)], "0 of 3 labelled (0.00%)"),
    ([], "0 of 0 labelled (n/a)"),
    ([("a|*b*", 1000, 0)], "1,000 of 1,000 labelled (100.00%): 1,000 a\\|\\*b\\*"),
])
def test_the_labelled_share_in_words(counts, words):
    assert labelled_share(counts) == words


def test_the_labelled_share_in_a_terminal_is_escaped_for_it():
    from punstats.model.escape import terminal
    assert labelled_share([("x\x1b[2J", 1, 0)], escape=terminal) == "1 of 1 labelled (100.00%): 1 x\\x1b[2J"


@pytest.mark.parametrize("argv, error", [
    (["label", "{run}", "--kind", "nope"],
     "unknown kind 'nope'; {run} holds hits of call, attribute, near_miss, dict_literal, class, try_finally"),
    (["label", "{run}", "--kind", "call", "--context", "2"],
     "{run} is an ecosystem run: it keeps no release files, so there is no source for --context to show (drop it)"),
    (["table", "{run}", "--by", "label"], "no labels in {run}: punstats label DIR --kind NAME writes a sheet to fill"),
    (["table", "{run}", "--by", "label", "--test-rule", "none"],
     "{run} is an ecosystem run: its projects keep the rules they were scanned with (--test-rule and --long "
     "re-classify a stored scan)"),
    (["table", "{run}", "--by", "label", "--rows", "punnable"],
     "--rows chooses the rows of the summary table, not of --by label: drop one of them"),
])
def test_errors_on_a_run_are_one_line_and_write_nothing(run_dir, capsys, argv, error):
    before = sorted(os.listdir(run_dir))
    status, out, err = run(capsys, *[a.format(run=run_dir) for a in argv])
    assert (status, out, err) == (2, "", "punstats: error: %s\n" % error.format(run=run_dir))
    assert sorted(os.listdir(run_dir)) == before


def test_per_project_on_a_scan_is_one_line(tmp_path, capsys):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "m.py").write_text("g(x=x)\n")
    scan = str(tmp_path / "scan")
    assert main(["scan", str(tmp_path / "p"), "-o", scan, "-q", "-j", "1"]) == 0
    capsys.readouterr()
    status, out, err = run(capsys, "label", scan, "--kind", "call", "--per-project", "2")
    assert (status, out, err) == (2, "", "punstats: error: --per-project K draws from the projects of an ecosystem "
                                         "run; %s is not one (--sample N draws from a scan)\n" % scan)


def test_a_run_sheet_with_a_foreign_key_stops_label_and_table_and_loses_nothing(run_dir, capsys):
    assert main(["label", run_dir, "--kind", "call", "--per-project", "1"]) == 0
    label(run_dir, "call", {("alpha", "alpha/core.py", 2): "bug"})
    path = os.path.join(run_dir, "labels-call.csv")
    with open(path, "a") as handle:
        handle.write("kfeedfacefeedface,1,alpha,1.0,alpha/core.py,,99,0,99,1,False,q,00,wrong,\n")
    before = {name: open(os.path.join(run_dir, name), "rb").read() for name in os.listdir(run_dir)
              if name.startswith("labels-")}
    rows = len(sheet(run_dir, "call")) + 1
    capsys.readouterr()
    expected = ("punstats: error: labels-call.csv row %d: key 'kfeedfacefeedface' is not an occurrence of kind "
                "call in this scan (fix or remove the row)\n" % rows)
    for argv in (["label", run_dir, "--kind", "call"], ["table", run_dir, "--by", "label"]):
        assert run(capsys, *argv) == (2, "", expected), argv
    assert {name: open(os.path.join(run_dir, name), "rb").read() for name in os.listdir(run_dir)
            if name.startswith("labels-")} == before
