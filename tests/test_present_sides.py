"""``table``, ``plot`` and ``report`` of scans, runs and histories side by side (``present.sides``).

The run (``fakerun``) is made by the command line against a fake PyPI on 127.0.0.1; a second run
is the first's projects but the last two, so the two differ.  Numbers shown are checked against
``analysis.sides.compare`` and against plain pandas on the stored tables.
"""
import io
import os

import pandas as pd
import pytest
from fakerun import make_run
from gitrepo import commit, init

from punstats.cli import main
from punstats.present.formats import FORMATS
from punstats.present.report import POST_LIMIT


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    first, _ = make_run(tmp_path_factory.mktemp("run"), "--no-figure")
    return first, None


@pytest.fixture(scope="module")
def history_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("repo") / "repo"
    init(root)
    for n in range(1, 4):
        commit(root, {"m%d.py" % n: "f(x=x)\nf(y=1)\n"}, date="2023-%02d-10T12:00:00+00:00" % n)
    out = str(tmp_path_factory.mktemp("history") / "h")
    assert main(["history", str(root), "--every", "commit", "-q", "-j", "1", "-o", out]) == 0
    return out


def shown(capsys, *argv):
    assert main(list(argv)) == 0, capsys.readouterr().err
    return capsys.readouterr().out


def test_a_run_and_a_scan_side_by_side_in_every_format(runs, stdlib_subset_scan_dir, capsys):
    run_dir, _ = runs
    for fmt in FORMATS:
        out = shown(capsys, "table", run_dir, stdlib_subset_scan_dir, "--kind", "call", "--format", fmt,
                    "--resamples", "200")
        assert "top-pypi-7" in out and "stdlib-subset" in out, fmt
        if fmt != "csv":
            assert "top-pypi-7 - stdlib-subset" in out and "interval" in out and "median" in out, fmt


def test_the_csv_is_tidy_and_its_numbers_are_the_stored_tables(runs, stdlib_subset_scan_dir, capsys):
    run_dir, _ = runs
    out = shown(capsys, "table", run_dir, stdlib_subset_scan_dir, "--kind", "call", "--format", "csv",
                "--resamples", "200")
    frame = pd.read_csv(io.StringIO(out))
    assert list(frame["input"].unique()) == ["top-pypi-7", "stdlib-subset"]
    assert set(frame["measure"]) == {"measure", "measure_nontest", "per_million"}
    assert frame["pooled"].dtype == "float64" and frame["count"].dtype == "int64"
    files = pd.read_parquet(os.path.join(run_dir, "files"))
    occurrences = pd.read_parquet(os.path.join(run_dir, "occurrences"))
    scanned = files[files["status"] == "ok"]
    calls = occurrences[occurrences["kind"] == "call"]
    row = frame[(frame["input"] == "top-pypi-7") & (frame["measure"] == "measure")].iloc[0]
    assert (row["count"], row["of"]) == (len(calls), scanned["keywords"].sum())
    assert row["pooled"] == pytest.approx(100 * len(calls) / scanned["keywords"].sum())
    assert row["pooled_low"] <= row["pooled"] <= row["pooled_high"]
    scan_files = pd.read_parquet(os.path.join(stdlib_subset_scan_dir, "files.parquet"))
    scan_files = scan_files[scan_files["status"] == "ok"]
    scan_row = frame[(frame["input"] == "stdlib-subset") & (frame["measure"] == "measure")].iloc[0]
    assert scan_row["pooled"] == pytest.approx(100 * scan_files["punnable"].sum() / scan_files["keywords"].sum())
    assert scan_row["difference_from"] == "top-pypi-7"
    assert scan_row["difference"] == pytest.approx(row["pooled"] - scan_row["pooled"])
    assert scan_row["resampled"] == "files" and row["resampled"] == "projects"
    assert pd.isna(scan_row["p_value"])  # projects against files: no permutation test


def test_two_runs_get_a_p_value_and_the_report_fits_one_post(runs, tmp_path, capsys):
    run_dir, _ = runs
    out = shown(capsys, "table", run_dir, run_dir, "--kind", "call", "--format", "csv", "--resamples", "200")
    frame = pd.read_csv(io.StringIO(out))
    second = frame[frame["input"] == "top-pypi-7 (2)"]
    assert (second["difference"] == 0).all() and (second["p_value"] == 1).all()
    path = tmp_path / "r.md"
    shown(capsys, "report", run_dir, run_dir, "--kind", "call", "--no-figures", "-o", str(path))
    text = path.read_text()
    assert len(text) <= POST_LIMIT and "permutation test p = 1.0000" in text
    assert "punstats corpus top-pypi:7" in text and "## Reproduce" in text


def test_plot_and_report_draw_the_comparison(runs, stdlib_subset_scan_dir, tmp_path, capsys):
    run_dir, _ = runs
    out = shown(capsys, "plot", run_dir, stdlib_subset_scan_dir, "--kind", "call", "-o", str(tmp_path / "f"),
                "--format", "png", "--resamples", "200")
    assert out.strip().endswith("-compared.png") and os.path.getsize(out.strip()) > 0
    path = tmp_path / "report.md"
    shown(capsys, "report", run_dir, stdlib_subset_scan_dir, "--kind", "call", "-o", str(path),
          "--resamples", "200")
    text = path.read_text()
    assert "![" in text and os.path.isfile(tmp_path / "report-figures" / text.split("](report-figures/")[1]
                                           .split(")")[0])


def test_a_history_is_its_newest_revision(history_dir, stdlib_subset_scan_dir, capsys):
    out = shown(capsys, "table", history_dir, stdlib_subset_scan_dir, "--format", "csv")
    frame = pd.read_csv(io.StringIO(out))
    history = frame[(frame["input"] == "repo history") & (frame["measure"] == "measure")].iloc[0]
    assert (history["count"], history["of"]) == (3, 6) and history["pooled"] == 50.0
    assert pd.isna(history["pooled_low"]) and history["sort"] == "history"


def one_line_error(capsys, argv):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    return captured.err


def test_a_kind_one_input_does_not_count_and_rows_of_one_input_are_one_line_errors(runs, stdlib_subset_scan_dir,
                                                                                   capsys):
    run_dir, _ = runs
    err = one_line_error(capsys, ["table", run_dir, stdlib_subset_scan_dir, "--kind", "try_finally"])
    assert "stdlib-subset did not count try_finally" in err
    assert "drop --rows" in one_line_error(capsys, ["table", run_dir, stdlib_subset_scan_dir, "--rows", "punnable"])
    assert "keeps the rules" in one_line_error(capsys, ["table", run_dir, stdlib_subset_scan_dir,
                                                        "--test-rule", "substring"])


def test_scans_alone_keep_their_summary_unless_compare_is_asked(stdlib_subset_scan_dir, capsys):
    assert "p-value" not in shown(capsys, "table", stdlib_subset_scan_dir, stdlib_subset_scan_dir)
    out = shown(capsys, "table", stdlib_subset_scan_dir, stdlib_subset_scan_dir, "--by", "compare",
                "--resamples", "100")
    assert "stdlib-subset - stdlib-subset (2)" in out and "+0.00 points" in out
