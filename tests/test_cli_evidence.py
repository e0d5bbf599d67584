"""``punstats table``, ``plot`` and ``report`` of an ecosystem run (``corpus top-pypi:N -o DIR``), and
the one-line errors for a directory that is neither a stored scan nor a finished run.

The run (``fakerun``) is made by the command line against a fake PyPI on 127.0.0.1; its numbers are
checked against its stored tables (pd.read_parquet(DIR/occurrences), DIR/files).
"""
import io
import os
import shutil

import pandas as pd
import pytest
from fakerun import NAMES, make_run

from punstats.cli import main
from punstats.present import ecosystem as shown
from punstats.present.formats import FORMATS, render
from punstats.store.ecosystem import read_run


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    directory, _ = make_run(tmp_path_factory.mktemp("run"), "--no-figure")
    return directory


def shown_table(run_dir, by):
    """The rst table of ``table RUN --by BY``, notes included."""
    return render(shown.pooled_table(read_run(run_dir), by, 20), "rst")


def test_table_of_a_run_lists_every_project_in_every_format(run_dir, capsys):
    stored = read_run(run_dir)
    for fmt in FORMATS:
        assert main(["table", run_dir, "--format", fmt, "--kind", "call"]) == 0  # its one pattern by default
        out = capsys.readouterr().out
        if fmt != "csv":  # CSV: tidy, one row per project (test_present_tidy_every_csv)
            assert out == render(shown.project_table(stored.records, stored.ecosystem), fmt), fmt
        assert all(name in out for name in NAMES), fmt


def test_a_run_is_listed_whole_unless_top_is_given(run_dir, capsys, monkeypatch):
    from punstats.present import tables
    monkeypatch.setattr(tables, "TOP_ROWS", 2)  # the default rows of a scan's tables: not a run's
    assert main(["table", run_dir]) == 0
    out = capsys.readouterr().out
    assert "more projects" not in out and all("``%s``" % name in out for name in NAMES)
    assert main(["table", run_dir, "-n", "2"]) == 0
    assert "5 more projects (4 scanned), pooled" in capsys.readouterr().out


def test_table_of_a_run_with_top_and_kinds(run_dir, capsys):
    assert main(["table", run_dir, "--top", "2", "--format", "markdown", "--kind", "call"]) == 0
    out = capsys.readouterr().out
    assert "5 more projects (4 scanned), pooled" in out and "All 6 scanned projects, pooled" in out
    files = pd.read_parquet(os.path.join(run_dir, "files"))
    occurrences = pd.read_parquet(os.path.join(run_dir, "occurrences"))
    rest = files[files["project"].isin(NAMES[2:]) & (files["status"] == "ok")]
    calls = occurrences[occurrences["project"].isin(NAMES[2:]) & (occurrences["kind"] == "call")]
    more = next(line for line in out.splitlines() if "more projects" in line).split("|")
    assert int(more[4]) == len(rest) and int(more[6]) == len(calls)
    assert more[7].strip() == "%.2f%%" % (100 * len(calls) / rest["keywords"].sum())
    assert main(["table", run_dir, "--top", "2", "--format", "csv", "--kind", "call"]) == 0
    rows = pd.read_csv(io.StringIO(capsys.readouterr().out))  # tidy: the first two projects, no pooled rows
    assert list(rows["rank"]) == [1, 2] and list(rows["project"]) == NAMES[:2]
    assert main(["table", run_dir, "--kinds", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "try with finally" in out and "near miss" in out and "top-pypi-7" in out


def test_a_run_s_length_table_pools_its_projects_as_the_dataset_counts_them(run_dir, capsys):
    assert main(["table", run_dir, "--by", "length", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    rows = pd.read_csv(io.StringIO(out))
    occurrences = pd.read_parquet(os.path.join(run_dir, "occurrences"))  # independent: a groupby on the dataset
    calls = occurrences[occurrences["kind"] == "call"]
    assert set(calls["project"]) == {"alpha", "beta", "iota", "kappa", "stdunit"}  # more than one project pooled
    lengths = calls["name_len"]
    expected = {int(k): v for k, v in lengths.groupby(lengths).size().items()}
    shown = dict(zip(rows["name_len"], rows["total"]))
    assert {k: v for k, v in shown.items() if v} == expected and rows["total"].sum() == len(calls)
    nontest = calls[~calls["in_test"]]["name_len"]
    assert list(rows["nontest"]) == [int((nontest == n).sum()) for n in range(1, lengths.max() + 1)]
    assert set(rows["run"]) == {"top-pypi-7"} and "Pooled over the run's 6 scanned projects, as one corpus" in \
        shown_table(run_dir, "length")


def test_a_run_s_identifiers_pool_its_projects_and_say_how_many_use_each(run_dir, capsys):
    assert main(["table", run_dir, "--by", "identifier", "-n", "4", "--format", "csv"]) == 0
    rows = pd.read_csv(io.StringIO(capsys.readouterr().out)).set_index("identifier")
    calls = pd.read_parquet(os.path.join(run_dir, "occurrences"))
    calls = calls[calls["kind"] == "call"]
    assert len(rows) == 4
    for name, row in rows.iterrows():
        mine = calls[calls["name"] == name]
        assert (row["total"], row["test"], row["projects"]) == (len(mine), int(mine["in_test"].sum()),
                                                                mine["project"].nunique()), name
    assert rows["total"].tolist() == sorted(calls["name"].value_counts().tolist(), reverse=True)[:4]


def test_a_run_s_pooled_tables_read_only_its_scanned_projects(run_dir, tmp_path, capsys):
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    stray = pd.read_parquet(copy / "occurrences" / "alpha.parquet")  # a file no record of the run lists
    stray.assign(project="zeta", rank=99).to_parquet(copy / "occurrences" / "zeta.parquet")
    assert main(["table", str(copy), "--by", "callee", "--format", "csv"]) == 0
    with_stray = capsys.readouterr().out
    assert main(["table", run_dir, "--by", "callee", "--format", "csv"]) == 0
    assert with_stray == capsys.readouterr().out
    for by in ("directory",):  # a project's own places: pooling them would mix projects
        err = one_line_error(capsys, ["table", run_dir, "--by", by])
        assert "--by length|identifier|callee, pooled over its projects (--by %s" % by in err


def test_plot_of_a_run_writes_its_figure(run_dir, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    assert main(["plot", run_dir, "-o", str(tmp_path / "figures"), "--format", "png,svg", "--kind", "call"]) == 0
    paths = capsys.readouterr().out.split()
    assert paths == [str(tmp_path / "figures" / ("top-pypi-7-ecosystem." + ending)) for ending in ("png", "svg")]
    assert open(paths[0], "rb").read(8) == b"\x89PNG\r\n\x1a\n"
    assert "top-pypi-7: the 7 most-downloaded PyPI projects" in open(paths[1]).read()


def test_report_of_a_run_holds_the_projects_the_patterns_the_figure_and_no_local_path(run_dir, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    target = tmp_path / "reports" / "run.md"
    assert main(["report", run_dir, "-o", str(target), "--top", "3", "--kind", "call"]) == 0
    assert capsys.readouterr().out == str(target) + "\n"
    text = target.read_text()
    assert "4 more projects (4 scanned), pooled" in text and "All 6 scanned projects, pooled" in text
    assert "`iota`" not in text.split("## Patterns")[0]  # rank 5: pooled in the "more" row
    assert "| try with finally" in text and "(run-figures/top-pypi-7-ecosystem.png)" in text
    assert (tmp_path / "reports" / "run-figures" / "top-pypi-7-ecosystem.png").is_file()
    measured = text.split("## What was measured")[1].split("##")[0]
    assert "- Left out of the scanned projects: directories skipped 1 in 1 project (environment 1).\n" in measured
    index = read_run(run_dir).run["index"]  # the fake index the releases came from: named, as it is not PyPI's
    assert ("punstats corpus top-pypi:7 -o data/top-pypi-7 --top-pypi-list list.json --index-url %s "
            "--pattern tries.py" % index) in text
    assert str(tmp_path) not in text and os.path.dirname(run_dir) not in text
    assert main(["report", run_dir, "-o", str(tmp_path / "all.md"), "--no-figures", "--kind", "call"]) == 0
    assert all("`%s`" % name in (tmp_path / "all.md").read_text() for name in NAMES)


def test_plot_of_a_run_draws_its_kind_too(run_dir, tmp_path, capsys):
    """``plot RUN --kind NAME`` drew the f(x=x) figure only; now it draws the kind per project too (by
    default the run's one pattern), and a kind the run does not count is one line, before any figure."""
    pytest.importorskip("matplotlib")
    assert main(["plot", run_dir, "-o", str(tmp_path / "figures"), "--format", "png"]) == 0
    assert capsys.readouterr().out.split() == [str(tmp_path / "figures" / name) for name in (
        "top-pypi-7-ecosystem.png", "top-pypi-7-try_finally.png")]
    assert main(["plot", run_dir, "-o", str(tmp_path / "call"), "--format", "png", "--kind", "call"]) == 0
    assert capsys.readouterr().out.split() == [str(tmp_path / "call" / "top-pypi-7-ecosystem.png")]
    err = one_line_error(capsys, ["plot", run_dir, "-o", str(tmp_path / "none"), "--kind", "try_finaly"])
    assert "unknown kind 'try_finaly' (did you mean try_finally?)" in err and not (tmp_path / "none").exists()


@pytest.mark.parametrize("argv, error", [
    (["table", "{scan}", "-n", "3"], "-n N chooses the rows of --by identifier, --by callee, --by directory; "
                                     "the summary table has no such choice: drop -n"),
    (["table", "{scan}", "--kinds", "-n", "3"], "--kinds has no such choice"),
    (["table", "{run}", "--kinds", "-n", "2"], "-n N chooses the rows of a run's projects table, --by identifier, "
                                               "--by callee; --kinds has no such choice: drop -n"),
    (["table", "{run}", "--by", "length", "-n", "2"], "--by length has no such choice"),
    (["table", "{scan}", "--links"], "--links writes Markdown (sources linked, provenance below): give --format "
                                     "markdown, or drop --links"),
    (["table", "{run}", "--format", "csv", "--links"], "--links writes Markdown"),
])
def test_an_option_a_table_would_ignore_is_one_line(run_dir, stdlib_subset_scan_dir, capsys, argv, error):
    words = {"scan": stdlib_subset_scan_dir, "run": run_dir}
    assert error in one_line_error(capsys, [arg.format(**words) for arg in argv])


def test_the_options_a_table_takes_still_work(run_dir, stdlib_subset_scan_dir, capsys):
    for argv in (["table", stdlib_subset_scan_dir, "--by", "identifier", "-n", "3"],
                 ["table", run_dir, "-n", "2"], ["table", run_dir, "--by", "callee", "-n", "2"],
                 ["table", stdlib_subset_scan_dir, "--format", "markdown", "--links"]):
        assert main(argv) == 0, argv
    capsys.readouterr()


def one_line_error(capsys, argv):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and captured.err.startswith("punstats: error: ")
    return captured.err


def test_a_directory_that_is_neither_a_scan_nor_a_run_suggests_a_command(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    for command in ("table", "plot", "report"):
        err = one_line_error(capsys, [command, str(empty)])
        assert "is not a stored scan" in err and "make one with punstats scan PATH -o %s" % empty in err, command
        assert "punstats corpus top-pypi:N -o DIR" in err


def test_a_run_that_never_finished_or_shown_with_other_options_is_a_one_line_error(run_dir, tmp_path, capsys):
    unfinished = tmp_path / "unfinished"
    shutil.copytree(run_dir, unfinished)
    os.unlink(unfinished / "ecosystem.json")
    err = one_line_error(capsys, ["table", str(unfinished)])
    assert "never finished" in err and "--skip-existing" in err
    assert "never finished" in one_line_error(capsys, ["table", run_dir, str(unfinished)])  # compared: read first
    assert "keep the rules" in one_line_error(capsys, ["plot", run_dir, "--test-rule", "substring"])
    assert "--by directory" in one_line_error(capsys, ["table", run_dir, "--by", "directory"])
    assert sorted(os.listdir(run_dir)) == sorted(os.listdir(unfinished) + ["ecosystem.json"])  # nothing lost


def test_report_top_is_for_a_run(stdlib_subset_scan_dir, tmp_path, capsys):
    err = one_line_error(capsys, ["report", stdlib_subset_scan_dir, "--top", "3", "--no-figures",
                                  "-o", str(tmp_path / "r.md")])
    assert "--top lists the first N projects of an ecosystem run" in err and not (tmp_path / "r.md").exists()


@pytest.mark.parametrize("output, hint", [("report.html", "report.md"), ("out/r.txt", "out/r.md"), ("r", "r.md")])
def test_a_report_into_a_file_not_ending_in_md_is_refused(stdlib_subset_scan_dir, output, hint, tmp_path, capsys,
                                                          monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = sorted(os.listdir(stdlib_subset_scan_dir))
    assert main(["report", stdlib_subset_scan_dir, "-o", output, "--no-figures"]) == 2
    assert capsys.readouterr() == ("", "punstats: error: a report is Markdown: give -o a file ending in .md, "
                                       "e.g. -o %s\n" % hint)
    assert os.listdir(tmp_path) == [] and sorted(os.listdir(stdlib_subset_scan_dir)) == before


def test_a_folder_of_scans_or_a_file_of_one_says_which_folder_to_give(stdlib_subset_scan_dir, tmp_path, capsys,
                                                                       monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("httpx", "requests", "rich", "zope"):
        shutil.copytree(stdlib_subset_scan_dir, tmp_path / "data" / name)
    (tmp_path / "data" / "notes").mkdir()  # not a scan: not listed
    for command in ("table", "plot", "report"):
        assert main([command, "data"]) == 2
        assert capsys.readouterr() == ("", "punstats: error: data holds stored scans but is not one: give one of "
                                           "them, e.g. data/httpx, data/requests, data/rich, ...\n"), command
    assert main(["table", "data/httpx/summary.json"]) == 2
    assert capsys.readouterr() == ("", "punstats: error: data/httpx/summary.json is a file of a stored scan: "
                                       "give its folder, data/httpx\n")
    assert sorted(os.listdir("data")) == ["httpx", "notes", "requests", "rich", "zope"]
    assert not os.path.exists("reports")  # no figure, no report written


def test_the_bootstrap_of_a_run_s_table_follows_seed_and_resamples(run_dir, capsys):
    from punstats.analysis.uncertainty import Bootstrap
    stored = read_run(run_dir)
    assert main(["table", run_dir, "--format", "markdown", "--kind", "call", "--seed", "3", "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert out == render(shown.project_table(stored.records, stored.ecosystem, method=Bootstrap(200, 3)), "markdown")
    assert "200 resamples of the projects with replacement, seed 3" in out


@pytest.mark.parametrize("option, value, error", [
    ("--seed", "-1", "expected a seed of at least 0, got -1"),
    ("--resamples", "0", "expected a number of at least 1, got 0"),
    ("--resamples", "1000001", "expected at most 100,000 resamples, got 1,000,001")])
def test_a_bad_seed_or_number_of_resamples_is_a_one_line_error(run_dir, capsys, option, value, error):
    assert main(["table", run_dir, option, value]) == 2
    assert error in capsys.readouterr().err
