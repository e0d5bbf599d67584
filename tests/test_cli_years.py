"""``table``, ``plot`` and ``report`` of a run over years (``cli.years``): each year's 95 % intervals
are those the year's folder alone gives (the same bootstrap, resamples and seed), every format
shows them, the CSV holds them in ``_low`` and ``_high`` columns, and a command computes the trend
(and its bootstrap) once for all it writes.

The run is the fake index's of ``test_runs_years`` (three projects, 2019 to 2022), with the walrus
operator as a user pattern counted per million lines; nothing touches the network.
"""
import re

import pandas as pd
import pytest
from fakeindex import FakePyPI
from test_runs_years import WALRUS, populate, run_years, write

from punstats.analysis import subject
from punstats.analysis import years as trends
from punstats.cli import main

YEARS = (2019, 2020, 2021, 2022)

#: A bootstrap other than the default, so that the options are seen to reach every year.
OPTIONS = ("--resamples", "300", "--seed", "5")


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    """The run over years' folder (one run for the module)."""
    tmp_path = tmp_path_factory.mktemp("years")
    index = FakePyPI()
    populate(index)
    try:
        run_years(tmp_path, index, patterns=(str(write(tmp_path / "walrus.py", WALRUS)),))
    finally:
        index.close()
    return tmp_path / "out"


def csv_of(path, *args):
    assert main(["table", *map(str, args), "--format", "csv", "-o", str(path)]) == 0
    return pd.read_csv(path)


@pytest.mark.parametrize("kind, measured", [("call", "pct_of_keywords"), ("walrus", "per_million_code_lines")])
def test_each_year_s_intervals_are_those_of_its_folder_alone(out, tmp_path, kind, measured):
    trend = csv_of(tmp_path / "trend.csv", out, "--kind", kind, *OPTIONS).set_index("year")
    for year in YEARS:
        alone = csv_of(tmp_path / ("%d.csv" % year), out / str(year), "--kind", kind, *OPTIONS).iloc[0]
        row = trend.loc[year]
        for scope in ("", "_nontest"):
            for end in ("_low", "_high"):
                assert row[measured + scope + end] == alone["pooled_%s%s%s" % (measured, scope, end)], (year, scope)
                assert row["median_%s%s%s" % (measured, scope, end)] == alone["median_%s%s%s" % (measured, scope, end)]
        assert (row["bootstrap_resamples"], row["bootstrap_seed"]) == (300, 5)
    # not every interval is a point: the comparison above compares something
    assert (trend[measured + "_high"] > trend[measured + "_low"]).any()


def test_the_trend_csv_reads_with_plain_read_csv_and_holds_the_intervals(out, tmp_path):
    frame = csv_of(tmp_path / "trend.csv", out, "--kind", "call")
    assert frame.columns.is_unique and all(re.match(r"^[a-z][a-z0-9_]*$", name) for name in frame.columns)
    bounds = [name for name in frame.columns if name.endswith(("_low", "_high"))]
    assert bounds == ["pct_of_keywords_low", "pct_of_keywords_high", "pct_of_keywords_nontest_low",
                      "pct_of_keywords_nontest_high", "median_pct_of_keywords_low", "median_pct_of_keywords_high",
                      "median_pct_of_keywords_nontest_low", "median_pct_of_keywords_nontest_high"]
    assert all(frame[name].dtype == "float64" for name in bounds)
    assert (frame["pct_of_keywords_low"] <= frame["pct_of_keywords"]).all()
    assert (frame["pct_of_keywords"] <= frame["pct_of_keywords_high"]).all()
    assert list(frame["bootstrap_resamples"]) == [2000] * 4 and list(frame["bootstrap_unit"]) == ["projects"] * 4


def cells(text, first):
    """The cells of the Markdown row of ``text`` whose first cell is ``first``."""
    for line in text.splitlines():
        parts = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if parts[0] == first:
            return parts
    raise AssertionError("no row %r" % first)


@pytest.mark.parametrize("fmt", ["rst", "markdown", "latex"])
def test_the_trend_table_shows_each_year_s_intervals_as_its_folder_s_table(out, capsys, fmt):
    assert main(["table", str(out / "2021"), "--kind", "call", "--format", "markdown"]) == 0
    alone = capsys.readouterr().out
    interval = next(cell for line in alone.splitlines() if "95% interval of the pooled" in line
                    for cell in line.split("|") if " to " in cell).strip()
    assert interval == "50.00% to 100.00%"
    assert main(["table", str(out), "--kind", "call", "--format", fmt]) == 0
    text = capsys.readouterr().out
    if fmt == "latex":
        interval = interval.replace("%", r"\%")
    assert "% interval" in text and "2,000 resamples" in text and "seed 0" in text
    line = next(line for line in text.splitlines() if "2021" in line and " to " in line)
    assert interval in line


def test_the_report_holds_the_table_s_intervals_and_its_figure(out, tmp_path, capsys):
    assert main(["table", str(out), "--kind", "call", "--format", "markdown", *OPTIONS]) == 0
    table = cells(capsys.readouterr().out, "2021")
    report = tmp_path / "report.md"
    assert main(["report", str(out), "--kind", "call", "-o", str(report), *OPTIONS]) == 0
    text = report.read_text()
    assert cells(text, "2021") == table and table[8] == "50.00% to 83.33%"  # 300 resamples, seed 5
    assert "300 resamples" in text and "seed 5" in text and "![call per year](" in text
    # the commands that make the run over years and this report again
    again = text.split("## Reproduce", 1)[1]
    corpus, report_again = re.findall(r"^punstats .*$", again, re.M)
    folder = "data/top-pypi-3-yearly-2019-2022"
    assert corpus.startswith("punstats corpus top-pypi:3 -o %s --releases yearly:2019..2022" % folder)
    assert "--pattern walrus.py" in corpus
    assert report_again == "punstats report %s --kind call" % folder


def counting(monkeypatch):
    """Calls of the trend's per-project frame and of the intervals' bootstrap, counted."""
    calls = {"per_project": 0, "kind_intervals": 0}

    def counted(module, name):
        original = getattr(module, name)

        def wrapper(*args, **kwargs):
            calls[name] += 1
            return original(*args, **kwargs)
        monkeypatch.setattr(module, name, wrapper)
    counted(trends, "per_project")
    counted(subject, "kind_intervals")
    return calls


@pytest.mark.parametrize("command", [["table"], ["table", "--format", "csv"], ["plot", "--format", "png"],
                                     ["report"]])
def test_a_command_computes_the_trend_and_its_bootstrap_once(out, tmp_path, monkeypatch, capsys, command):
    calls = counting(monkeypatch)
    where = tmp_path / {"table": "table.txt", "plot": "figures", "report": "report.md"}[command[0]]
    assert main([command[0], str(out), *command[1:], "-o", str(where)]) == 0
    assert calls == {"per_project": 1, "kind_intervals": len(YEARS)}  # one bootstrap per year


def test_the_figure_draws_each_year_s_intervals(out):
    from punstats.present.years import trend_plot
    from punstats.store.years import read_years
    stored = read_years(str(out))
    trend = trends.trend(stored, stored.registry["call"])
    plot = trend_plot(stored, trend)
    bars = plot.figure.axes[0].collections  # one set of vertical bars per line: pooled, outside tests, median
    assert len(bars) == 3
    for bar, column in zip(bars, ("measure", "measure_nontest", "median")):
        spans = [(segment[0][1], segment[1][1]) for segment in bar.get_segments()]
        assert spans == list(zip(trend.years[column + "_low"], trend.years[column + "_high"]))
    assert "measure_low" in plot.data.columns
