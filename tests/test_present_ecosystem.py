"""An ecosystem run shown (``present.ecosystem``, ``present.ecosystem_figure``): every project or the
first K and the rest pooled, "n/a" for a share of nothing, every pattern of the run's registry, and
the figure drawn as the scan figures are (at least n, their colours, a provenance caption).  The numbers
are checked against the run's stored tables (pd.read_parquet(DIR/occurrences), DIR/files)."""
import os

import pandas as pd
import pytest
from fakerun import NAMES, make_run

from punstats.patterns.built_in import KINDS
from punstats.present import ecosystem as shown
from punstats.present.formats import FORMATS, Code, Label, Percent, Rate, Span, render
from punstats.present.intervals import interval_text
from punstats.store.ecosystem import read_run


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    directory, _ = make_run(tmp_path_factory.mktemp("run"), "--no-figure")
    return read_run(directory)


def tables(directory):
    files = pd.read_parquet(os.path.join(directory, "files"))
    return files[files["status"] == "ok"], pd.read_parquet(os.path.join(directory, "occurrences"))


def test_every_project_is_listed_then_the_run_pooled(stored):
    table = shown.project_table(stored.records, stored.ecosystem)
    assert [row[1] for row in table.rows[:-4]] == [Code(name) for name in NAMES]
    assert [row[0] for row in table.rows[:-4]] == list(range(1, len(NAMES) + 1))
    parsed, occurrences = tables(stored.directory)
    calls = occurrences[occurrences["kind"] == "call"]
    pooled = table.rows[-4]
    assert pooled[1] == Label("All 6 scanned projects, pooled (every occurrence counts once)")
    assert pooled[3:6] == (len(parsed), int(parsed["code_lines"].sum()), len(calls))
    assert pooled[6] == Percent(pytest.approx(100 * len(calls) / parsed["keywords"].sum(), abs=1e-4))
    outside = parsed[~parsed["in_test"]]
    assert pooled[7] == Percent(pytest.approx(100 * (~calls["in_test"]).sum() / outside["keywords"].sum(), abs=1e-4))
    assert pooled[8] == Rate(pytest.approx(1e6 * len(calls) / parsed["code_lines"].sum(), abs=0.005))
    assert render(table, "markdown").splitlines()[3].endswith("-: |")  # a column of numbers, right-aligned
    gamma = table.rows[NAMES.index("gamma")]
    assert gamma[2] == Label("skipped: only platform wheels") and gamma[3:] == (Label(""),) * 6


def test_a_share_of_nothing_is_n_a_in_every_format(stored):
    table = shown.project_table(stored.records, stored.ecosystem)
    delta = table.rows[NAMES.index("delta")]
    assert delta[5] == 0 and delta[8] == Rate(0.0)
    assert all(isinstance(cell, Percent) and not cell.known for cell in delta[6:8])  # NaN, as a scan's tables
    kappa = table.rows[NAMES.index("kappa")]
    assert kappa[7] == Percent(0.0)  # keyword arguments outside tests, none of them f(x=x): a real 0 %
    for fmt in FORMATS:
        text = render(table, fmt)
        line = next(line for line in text.splitlines() if "delta" in line)
        if fmt == "csv":  # an empty cell, read as missing (README), as in the --kinds table beside it
            assert line.split(",")[3:9] == ["1", "1", "0", "", "", "0.00"], line
        else:
            assert "n/a" in line and "0.00%" not in line, fmt


def test_the_run_table_shows_both_weightings_with_their_intervals_in_every_format(stored):
    from punstats.analysis.ecosystem import per_project
    from punstats.analysis.uncertainty import Bootstrap, median, pooled
    method = Bootstrap(resamples=500, seed=9)
    table = shown.project_table(stored.records, stored.ecosystem, method=method)
    pooled_interval, median_row, median_interval = table.rows[-3:]
    scanned = per_project(stored.records).query("status == 'scanned'")
    expected = pooled(scanned["punnable_nontest"], scanned["keywords_nontest"], method)
    assert pooled_interval[1] == Label("95% interval of the pooled (bootstrap over projects)")
    assert pooled_interval[7] == Span(interval_text(expected))
    assert expected.low <= table.rows[-4][7].value <= expected.high
    assert median_row[1] == Label("Median, per project (every project counts once)")
    expected = median(scanned["punnable"], scanned["keywords"], method)
    assert median_row[6] == Percent(expected.estimate) and median_interval[6] == Span(interval_text(expected))
    again = shown.project_table(stored.records, stored.ecosystem, method=method)
    assert render(again, "markdown") == render(table, "markdown")  # seeded
    assert "500 resamples of the projects with replacement, seed 9" in table.notes[0]
    for fmt in FORMATS:
        text = render(table, fmt)
        words = interval_text(expected)
        assert (words.replace("%", "\\%") if fmt == "latex" else words) in text, fmt
        assert "every project counts once" in text, fmt


def test_top_k_lists_the_first_k_then_the_others_pooled(stored):
    table = shown.project_table(stored.records, stored.ecosystem, top=2)
    assert [row[1] for row in table.rows[:2]] == [Code("alpha"), Code("beta")]
    more, everything = table.rows[2], table.rows[3]
    assert more[1] == Label("5 more projects (4 scanned), pooled")
    assert everything == shown.project_table(stored.records, stored.ecosystem).rows[-4]
    parsed, occurrences = tables(stored.directory)
    rest = set(NAMES[2:])
    parsed, calls = parsed[parsed["project"].isin(rest)], occurrences[occurrences["project"].isin(rest)]
    calls = calls[calls["kind"] == "call"]
    assert more[3:6] == (len(parsed), int(parsed["code_lines"].sum()), len(calls))
    assert more[6] == Percent(pytest.approx(100 * len(calls) / parsed["keywords"].sum(), abs=1e-4))
    assert len(shown.project_table(stored.records, stored.ecosystem, top=len(NAMES)).rows) == len(NAMES) + 4


def test_the_kinds_table_lists_every_row_of_the_run_s_registry_with_the_user_pattern(stored):
    table = shown.kinds_table(stored.records, stored.ecosystem)
    labels = [row[0] for row in table.rows]
    assert labels[:len(KINDS)] == [Label(kind.label) for kind in KINDS]
    assert labels[len(KINDS):] == ["try with finally"]  # a user's text: escaped as data
    _, occurrences = tables(stored.directory)
    tries = occurrences[occurrences["kind"] == "try_finally"]
    row = table.rows[-1]
    assert (row[1], row[3]) == (len(tries), int((~tries["in_test"]).sum()))
    headline = table.rows[0]
    assert headline[1] == int((occurrences["kind"] == "call").sum())
    assert table.notes == (shown.run_provenance(stored.ecosystem),)


def test_the_provenance_names_the_list_and_versions_but_no_path_of_this_machine(stored, tmp_path):
    text = shown.run_provenance(stored.ecosystem)
    assert "list in a local file (list.json) of 2024-06-01" in text
    assert "punstats %s" % stored.ecosystem["punstats_version"] in text
    assert stored.ecosystem["python"] in text and os.sep + "tmp" not in text and str(stored.directory) not in text
    url = "https://raw.example.org/top.json (from https://github.com/hugovk/top-pypi-packages)"
    assert shown.list_text(url) == url
    assert shown.list_text("%s (from https://example.org/x)" % (tmp_path / "lists" / "top.json")) == \
        "in a local file (top.json), a copy of https://example.org/x"


def test_the_written_tables_hold_every_project_and_every_pattern(tmp_path):
    directory, printed = make_run(tmp_path, "--no-figure", "--kind", "call")  # its f(x=x) lines
    for ending in ("rst", "md", "tex"):
        text = open(os.path.join(directory, "ecosystem-table." + ending)).read()
        assert all(name in text for name in NAMES), ending
        assert "try with finally" in text and "near miss" in text, ending
    assert "    4 delta" in printed and "(   n/a)" in printed.splitlines()[3]
    # the pattern's own projects table (it had none): its count and share of `Try` nodes per project
    markdown = open(os.path.join(directory, "ecosystem-table.md")).read()
    stored = read_run(directory)
    from punstats.present.formats import render_all
    from punstats.present.subject import project_table
    assert "**try with finally in the top 7 PyPI projects**[^2]" in markdown
    own = render_all([project_table(stored, stored.registry["try_finally"])], "markdown")
    assert own.split("\n\n")[1] in markdown  # the table's rows, as table RUN --kind try_finally gives them
    assert "--kind NAME" in printed


def test_the_figure_counts_at_least_n_with_the_scan_figures_colours_and_a_caption(stored):
    colors = pytest.importorskip("matplotlib.colors")
    from punstats.present import ecosystem_figure, plots
    plot = ecosystem_figure.ecosystem_plot(stored.records, stored.ecosystem)
    left, right = plot.figure.axes
    _, occurrences = tables(stored.directory)
    calls = occurrences[occurrences["kind"] == "call"]
    for line, outside in zip(right.get_lines(), (False, True)):
        lengths = calls[~calls["in_test"]]["name_len"] if outside else calls["name_len"]
        assert list(line.get_xdata()) == sorted(set(lengths))
        assert list(line.get_ydata()) == pytest.approx([100 * (lengths >= n).mean() for n in sorted(set(lengths))],
                                                       abs=1e-4)
    projects = plots.projects([_scan_like(stored)])  # the scan figure of all code beside outside tests
    series = [bars.patches[0].get_facecolor() for bars in projects.figure.axes[0].containers]
    assert len(series) == 2 and series[0] != series[1]
    for points, line, bar in zip(left.collections, right.get_lines(), series):  # all code, then outside tests
        assert tuple(points.get_facecolor()[0][:3]) == pytest.approx(bar[:3])
        assert colors.to_rgba(line.get_color())[:3] == pytest.approx(bar[:3])
    shares = plot.data
    assert list(shares.index) == ["alpha", "beta", "delta", "iota", "kappa", "stdunit"]
    parsed, _ = tables(stored.directory)
    per = parsed.groupby("project")["keywords"].sum()
    assert shares.loc["alpha", "all"] == pytest.approx(100 * (calls["project"] == "alpha").sum() / per["alpha"],
                                                       abs=1e-4)
    assert list(left.collections[0].get_offsets()[:, 1]) == pytest.approx(list(shares["all"].dropna()))
    with_keywords = (per > 0).sum(), (parsed[~parsed["in_test"]].groupby("project")["keywords"].sum() > 0).sum()
    assert with_keywords == (5, 5)  # delta has none: no point at 0 %
    assert [label.get_text() for label in left.get_xticklabels()] == [
        "all code\n(5 projects)", "outside tests\n(5 projects)"]  # the points drawn, not the 6 scanned
    caption = plot.figure.texts[-1].get_text().replace("\n", " ")
    from punstats.analysis.uncertainty import DEFAULT_BOOTSTRAP
    assert caption == "%s %s %s" % (shown.run_provenance(stored.ecosystem), ecosystem_figure.WEIGHTING_CAPTION,
                                    DEFAULT_BOOTSTRAP.words())


def _scan_like(stored):
    """A stand-in scan for ``plots.projects``: only its colours are compared."""
    from types import SimpleNamespace
    s = {"corpus": "x", "python": "3", "test_rule": "components", "punnable": 1, "keywords": 2,
         "punnable_nontest": 1, "keywords_nontest": 2, "punnable_pct": 50.0, "punnable_nontest_pct": 50.0,
         "files": 1, "parsed": 1, "failed": 0, "calls": 1, "calls_with_punnable": 1, "long": 0,
         "long_nontest": 0, "long_threshold": 10, "lines": 1}
    return SimpleNamespace(summary=s)


def test_a_pool_without_keyword_arguments_is_n_a_in_the_console_and_the_report_never_0_percent(stored):
    """delta has no keyword argument, gamma was skipped: every pooled share and quartile is a share of nothing."""
    from punstats.analysis.ecosystem import aggregate
    from punstats.present.ecosystem_report import headline
    from punstats.store.ecosystem import load_record
    records = [load_record(stored.directory, name) for name in ("delta", "gamma")]
    ecosystem = dict(aggregate(records), rules=stored.ecosystem["rules"])
    lines, text = shown.summary_lines(ecosystem), headline(ecosystem)
    assert lines[1].split() == ["all", "code", "pooled", "n/a", "(0", "of", "0)", "per", "project:", "median", "n/a",
                                "(IQR", "n/a", "to", "n/a),", "weighted", "median", "n/a;", "above", "10/20/30%:",
                                "n/a/n/a/n/a"]
    assert "%" not in text and text.count("n/a") == 5, text
    assert "0.00" not in shown.project_line(records[0]) + "\n".join(lines)
    whole = shown.summary_lines(stored.ecosystem)[2]  # outside tests, with keyword arguments: numbers
    assert "n/a" not in whole and "pooled %.2f%%" % stored.ecosystem["nontest"]["pooled_pct"] in " ".join(whole.split())


def test_the_console_names_both_weightings_and_gives_their_intervals(stored):
    from punstats.analysis.ecosystem import per_project
    from punstats.analysis.uncertainty import Bootstrap, run_intervals
    method = Bootstrap(resamples=300, seed=2)
    lines = shown.summary_lines(stored.ecosystem, stored.records, method)
    intervals = run_intervals(per_project(stored.records), method)
    assert "  weighting: pooled (every occurrence counts once); per project (every project counts once)" in lines
    outside = next(line for line in lines if "outside tests 95% interval" in " ".join(line.split()))
    assert outside.endswith("pooled %s, per-project median %s" % (
        interval_text(intervals.pooled["nontest_pct"]), interval_text(intervals.median["nontest_pct"])))
    assert "  %s" % method.words() in lines
    assert not any("95%" in line for line in shown.summary_lines(stored.ecosystem))  # no projects: no intervals


def test_the_figure_draws_the_pooled_share_and_the_median_with_their_intervals(stored):
    pytest.importorskip("matplotlib")
    from punstats.analysis.ecosystem import per_project
    from punstats.analysis.uncertainty import Bootstrap, run_intervals
    from punstats.present import ecosystem_figure
    method = Bootstrap(resamples=300, seed=1)
    plot = ecosystem_figure.ecosystem_plot(stored.records, stored.ecosystem, method)
    left = plot.figure.axes[0]
    intervals = run_intervals(per_project(stored.records), method)
    drawn = {}
    for container in left.containers:  # one error bar each: its marker's (x, y) and its bar's ends
        (x,), (y,) = container.lines[0].get_data()
        (segment,) = container.lines[2][0].get_segments()
        drawn[round(x, 2)] = (y, segment[0][1], segment[1][1])
    for position, measure in ((1, "pct"), (2, "nontest_pct")):
        for offset, by in ((ecosystem_figure.POOLED_OFFSET, intervals.pooled),
                           (ecosystem_figure.MEDIAN_OFFSET, intervals.median)):
            interval = by[measure]
            assert drawn[round(position + offset, 2)] == pytest.approx((interval.estimate, interval.low, interval.high))
    labels = [text.get_text() for text in left.get_legend().get_texts()]
    assert labels == ["pooled, 95% interval", "median project, 95% interval"]
    caption = plot.figure.texts[-1].get_text().replace("\n", " ")
    assert "pooled (every occurrence counts once)" in caption and "per project (every project counts once)" in caption
    assert "300 resamples" in caption


def test_the_run_s_figure_is_written_whole_or_not_at_all(stored, tmp_path, monkeypatch):
    """A figure that fails half-written (a full disk, a kill) leaves the figure that was there."""
    from matplotlib.figure import Figure
    path = str(tmp_path / "ecosystem.png")
    shown.save_figure(stored.records, stored.ecosystem, path)
    before = open(path, "rb").read()

    def half(self, target, **kwargs):
        (open(target, "wb") if isinstance(target, str) else target).write(b"\x89PNG half")
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(Figure, "savefig", half)
    with pytest.raises(OSError):
        shown.save_figure(stored.records, stored.ecosystem, path)
    assert open(path, "rb").read() == before and os.listdir(tmp_path) == ["ecosystem.png"]


def test_a_resumed_run_s_figure_drawn_before_is_written_not_drawn_again(stored, tmp_path, monkeypatch):
    """With the cache, the figure of the same records and summary (a run resumed with nothing left to
    do) is the one drawn before, written again without matplotlib drawing; another summary draws."""
    from punstats.present import ecosystem_figure
    first, second = str(tmp_path / "a.png"), str(tmp_path / "b" / "a.png")
    os.makedirs(tmp_path / "b")
    shown.save_figure(stored.records, stored.ecosystem, first, cache=True)
    with monkeypatch.context() as patched:
        patched.setattr(ecosystem_figure, "ecosystem_plot", lambda *args: pytest.fail("drawn again"))
        assert shown.save_figure(stored.records, stored.ecosystem, second, cache=True) == second
    assert open(second, "rb").read() == open(first, "rb").read()
    drawn = []
    plot = ecosystem_figure.ecosystem_plot
    monkeypatch.setattr(ecosystem_figure, "ecosystem_plot", lambda *args: drawn.append(1) or plot(*args))
    shown.save_figure(stored.records, dict(stored.ecosystem, asked=1), second, cache=True)
    shown.save_figure(stored.records, stored.ecosystem, second)  # without the cache: drawn
    assert len(drawn) == 2


def test_the_report_s_reproduce_command_gives_every_option_that_changes_the_run_s_numbers(stored):
    """A run made with notebooks, another long threshold and test rule: its Reproduce command says so."""
    import dataclasses

    from punstats.present.ecosystem_report import render_report
    rules = dict(stored.run["rules"], extensions=[".py", ".ipynb"], long_threshold=5, test_rule="substring")
    text = render_report(dataclasses.replace(stored, run=dict(stored.run, rules=rules)))
    command = text.split("## Reproduce")[1].split("\n")[3]
    assert command.startswith("punstats corpus top-pypi:7 -o data/top-pypi-7 --top-pypi-list list.json")
    assert command.endswith("--test-rule substring --long 5 --extensions .py,.ipynb --pattern tries.py"), command


def test_what_was_measured_names_the_file_endings_read(stored):
    from punstats.present.ecosystem_report import render_report
    measured = render_report(stored).split("## What was measured")[1].split("##")[0]
    assert "files ending in `.py`;" in measured
    rules = dict(stored.ecosystem["rules"], extensions=[".py", ".ipynb"])
    ecosystem = dict(stored.ecosystem, rules=rules)
    measured = render_report(stored.__class__(stored.directory, stored.run, ecosystem, stored.records))
    assert "files ending in `.py`, `.ipynb` (the code cells of notebooks);" in measured


def test_a_project_s_console_line_counts_parsed_files_as_the_table_does(stored):
    record = next(r for r in stored.records if r["project"] == "alpha")
    table = shown.project_table(stored.records, stored.ecosystem)
    files = table.rows[NAMES.index("alpha")][3]
    assert shown.project_line(record).split()[4:6] == ["files", str(files)] and "not parsed" not in \
        shown.project_line(record)
    summary = dict(record["summary"], files=record["summary"]["files"] + 2, failed=2)  # two files that did not parse
    line = shown.project_line(dict(record, summary=summary))
    assert line.split()[4:6] == ["files", str(files)] and "(70.00%)  not parsed 2  try_finally" in line
