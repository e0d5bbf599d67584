"""``punstats.present.plots`` and ``punstats plot``: each figure drawn from a real
scan, its bars and lines checked against counts taken from the stored tables."""
import os
import sys

import matplotlib.image
import pandas as pd
import pytest

import punstats
from punstats.cli import main
from punstats.present import plots


@pytest.fixture(scope="module")
def result(stdlib_subset_scan_dir):
    # unittest/ as test code: a real test / non-test split in any Python version
    return punstats.load(stdlib_subset_scan_dir).with_rules("regex:^unittest/")


@pytest.fixture(scope="module")
def calls(stdlib_subset_scan_dir):
    """Headline occurrences read straight from the parquet file, test flag as in ``result``."""
    occurrences = pd.read_parquet(os.path.join(stdlib_subset_scan_dir, "occurrences.parquet"))
    calls = occurrences[occurrences["kind"] == "call"].copy()
    calls["in_test"] = calls["path"].str.startswith("unittest/")
    return calls


def heights(container):
    return [int(round(bar.get_height())) for bar in container]


def widths(container):
    return [int(round(bar.get_width())) for bar in container]


def caption(plot):
    return " ".join(text.get_text() for text in plot.figure.texts)


def assert_captioned(plot, summary):
    text = " ".join(caption(plot).split())
    assert summary["corpus"] in text
    assert "revision %s" % summary["revision"] in text
    assert "%s %s" % (summary["python_implementation"], summary["python"]) in text


def test_length_histogram_bars_are_the_stored_counts(result, calls):
    plot = plots.length_histogram(result)
    [axes] = plot.figure.axes
    nontest_bars, test_bars = axes.containers
    longest = int(calls["name_len"].max())
    lengths = range(1, longest + 1)
    nontest = calls[~calls["in_test"]]["name_len"].value_counts()
    test = calls[calls["in_test"]]["name_len"].value_counts()
    assert [bar.get_x() + bar.get_width() / 2 for bar in nontest_bars] == list(lengths)
    assert heights(nontest_bars) == [int(nontest.get(n, 0)) for n in lengths]
    assert heights(test_bars) == [int(test.get(n, 0)) for n in lengths]
    assert [bar.get_y() for bar in test_bars] == heights(nontest_bars)  # stacked on top
    assert sum(heights(nontest_bars)) + sum(heights(test_bars)) == result.summary["punnable"]
    assert sum(heights(test_bars)) > 0
    assert list(plot.data["total"]) == [int(calls["name_len"].eq(n).sum()) for n in lengths]
    # the long threshold, between threshold - 1 and threshold
    [threshold_line] = axes.get_lines()
    assert list(threshold_line.get_xdata()) == [result.summary["long_threshold"] - 0.5] * 2
    assert axes.get_xlabel() and axes.get_ylabel() and axes.get_title()
    assert [t.get_text() for t in axes.get_legend().get_texts()][1:] == ["outside tests", "in tests"]
    assert_captioned(plot, result.summary)


def test_cumulative_share_is_the_stored_share(result, calls):
    plot = plots.length_cumulative(result)
    [axes] = plot.figure.axes
    share_line = axes.get_lines()[0]
    ns = list(share_line.get_xdata())
    assert ns == list(range(1, int(calls["name_len"].max()) + 1))
    expected = [round(100.0 * int((calls["name_len"] >= n).sum()) / len(calls), 4) for n in ns]
    assert list(share_line.get_ydata()) == pytest.approx(expected)
    threshold = result.summary["long_threshold"]
    assert share_line.get_ydata()[threshold - 1] == pytest.approx(
        100.0 * result.summary["long"] / result.summary["punnable"], abs=1e-4)
    assert_captioned(plot, result.summary)


@pytest.mark.parametrize("make, column", [(plots.top_identifiers, "name"), (plots.top_callees, "callee")])
def test_top_bars_are_the_stored_counts(result, calls, make, column):
    plot = make(result, n=20)
    [axes] = plot.figure.axes
    nontest_bars, test_bars = axes.containers
    labels = [label.get_text() for label in axes.get_yticklabels()]
    counts = calls[column].value_counts()
    assert len(labels) == min(20, len(counts))
    assert [int(counts[label]) for label in labels] == sorted(counts.values, reverse=True)[:len(labels)]
    assert widths(nontest_bars) == [int((~calls[calls[column] == label]["in_test"]).sum()) for label in labels]
    assert widths(test_bars) == [int(calls[calls[column] == label]["in_test"].sum()) for label in labels]
    assert [bar.get_x() for bar in test_bars] == widths(nontest_bars)
    if column == "name":
        assert [[label, int(counts[label])] for label in labels[:10]] == [
            list(p) for p in result.summary["top_identifiers"]]
    assert_captioned(plot, result.summary)


def test_directory_bars_are_the_stored_counts(result, calls):
    plot = plots.directories(result, n=2)
    [axes] = plot.figure.axes
    nontest_bars, test_bars = axes.containers
    per_directory = calls["path"].str.split("/").str[0].value_counts()
    labels = [label.get_text() for label in axes.get_yticklabels()]
    assert labels == [name + "/" for name in per_directory.index[:2]] + ["(%d other)" % (len(per_directory) - 2)]
    totals = [a + b for a, b in zip(widths(nontest_bars), widths(test_bars))]
    assert totals == list(per_directory.values[:2]) + [int(per_directory.values[2:].sum())]
    assert widths(test_bars)[labels.index("unittest/")] == per_directory["unittest"]
    assert sum(totals) == result.summary["punnable"]


def test_project_bars_are_the_stored_shares(result, stdlib_subset_scan_dir):
    json_only = punstats.scan(os.path.join(result.summary["root"], "json"), jobs=1)
    plot = plots.projects([result, json_only])
    [axes] = plot.figure.axes
    bars, outside = axes.containers  # all code, outside tests
    assert [bar.get_height() for bar in bars] == [result.summary["punnable_pct"], json_only.summary["punnable_pct"]]
    assert [bar.get_height() for bar in outside] == [result.summary["punnable_nontest_pct"],
                                                     json_only.summary["punnable_nontest_pct"]]
    assert bars[0].get_height() != bars[1].get_height() != outside[0].get_height()
    assert [t.get_text() for t in axes.get_legend().get_texts()] == ["all code", "outside tests"]
    assert [label.get_text() for label in axes.get_xticklabels()] == ["stdlib-subset", "json"]
    assert "%.2f%%" % result.summary["punnable_pct"] in [t.get_text().split("\n")[0] for t in axes.texts]
    assert_captioned(plot, result.summary)
    assert_captioned(plot, json_only.summary)
    assert plot.name == "stdlib-subset+json-projects"


def test_save_writes_png_and_svg(result, tmp_path):
    plot = plots.length_histogram(result)
    paths = plots.save(plot, str(tmp_path))
    assert paths == [str(tmp_path / "stdlib-subset-lengths.png"), str(tmp_path / "stdlib-subset-lengths.svg")]
    image = matplotlib.image.imread(paths[0])
    width, height = plot.figure.get_size_inches() * plots.DPI
    assert image.shape[:2] == (round(height), round(width))
    with open(paths[1], encoding="utf-8") as handle:
        svg = handle.read()
    assert "<svg" in svg and "stdlib-subset" in svg
    assert plots.png_bytes(plot).startswith(b"\x89PNG")


def test_cli_plot_writes_every_figure(stdlib_subset_scan_dir, tmp_path, capsys):
    out = tmp_path / "figures"
    assert main(["plot", stdlib_subset_scan_dir, "-o", str(out), "--format", "png"]) == 0
    printed = capsys.readouterr().out.split()
    kinds = ["lengths", "cumulative", "identifiers", "callees", "directories"]
    assert printed == [str(out / ("stdlib-subset-%s.png" % kind)) for kind in kinds] + [
        str(out / "stdlib-subset-projects.png"), str(out / "stdlib-subset-kinds.png")]
    assert all(os.path.getsize(path) > 10000 for path in printed)


def test_cli_plot_usage_errors(stdlib_subset_scan_dir, tmp_path, capsys):
    assert main(["plot", str(tmp_path), "-o", str(tmp_path / "f")]) == 2
    assert main(["plot", stdlib_subset_scan_dir, "--format", "gif", "-o", str(tmp_path / "f")]) == 2
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 2 and "is not a stored scan" in errors[0] and "unknown figure format 'gif'" in errors[1]
    assert not (tmp_path / "f").exists()


def test_cli_plot_without_matplotlib_says_so_in_one_line(stdlib_subset_scan_dir, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now fails
    monkeypatch.delitem(sys.modules, "punstats.present.plots")
    monkeypatch.delattr(punstats.present, "plots")
    assert main(["plot", stdlib_subset_scan_dir, "-o", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err == ("punstats: error: figures need matplotlib, which is not installed: pip install matplotlib "
                   "(or --no-figures)\n")  # never an extra of an index punstats is not on
    assert main(["report", stdlib_subset_scan_dir, "-o", str(tmp_path / "r.md")]) == 2
    assert "matplotlib" in capsys.readouterr().err
    assert main(["report", stdlib_subset_scan_dir, "-o", str(tmp_path / "r.md"), "--no-figures"]) == 0
    assert (tmp_path / "r.md").exists()


def test_a_corpus_without_any_f_x_x_still_draws(tmp_path):
    (tmp_path / "a.py").write_text("print(1, sep='')\n")
    empty = punstats.scan(str(tmp_path), jobs=1)
    drawn = plots.all_plots([empty])
    assert [plot.kind for plot in drawn] == ["lengths", "cumulative", "identifiers", "callees", "directories",
                                             "projects", "kinds"]
    for plot in drawn[:5]:  # it says so, with no empty bars and no ticks
        [axes] = plot.figure.axes
        assert not axes.containers and not axes.lines and not axes.axison
        assert [t.get_text() for t in axes.texts] == ["%s has no f(x=x) keyword arguments" % empty.summary["corpus"]]
    assert [bar.get_height() for bar in drawn[5].figure.axes[0].containers[0]] == [0.0]


def test_plot_of_a_scan_without_calls_says_so_and_keeps_the_other_scans(stdlib_subset_scan_dir, tmp_path, capsys):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_bytes(b"x\0y\n")  # null bytes: fails to parse, no calls at all
    assert main(["scan", str(tmp_path / "src"), "-o", str(tmp_path / "nothing"), "-q", "--no-cache"]) == 0
    capsys.readouterr()
    assert main(["plot", str(tmp_path / "nothing"), stdlib_subset_scan_dir, "-o", str(tmp_path / "fig"),
                 "--format", "png"]) == 0
    written = capsys.readouterr().out.split()
    assert str(tmp_path / "fig" / "src-lengths.png") in written
    assert str(tmp_path / "fig" / "stdlib-subset-lengths.png") in written
    assert str(tmp_path / "fig" / "src+stdlib-subset-overlay.png") in written
    [axes] = plots.length_histogram(punstats.load(str(tmp_path / "nothing"))).figure.axes
    assert [t.get_text() for t in axes.texts] == ["src has no calls (1 file failed to parse)"]


def test_directories_figure_draws_no_empty_rows(tmp_path):
    for name, text in (("a", "f(x=x)\n"), ("b", "f(x=1)\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "m.py").write_text(text)
    plot = plots.directories(punstats.scan(str(tmp_path), jobs=1))
    assert list(plot.data.index) == ["a/"]  # b/ has keyword arguments but no f(x=x)
    assert [t.get_text() for t in plot.figure.axes[0].get_yticklabels()] == ["a/"]


def test_kinds_bars_are_the_stored_shares(result, stdlib_subset_scan_dir):
    occurrences = pd.read_parquet(os.path.join(stdlib_subset_scan_dir, "occurrences.parquet"))
    files = pd.read_parquet(os.path.join(stdlib_subset_scan_dir, "files.parquet"))
    parsed = files[files["status"] == "ok"]
    keywords, entries = int(parsed["keywords"].sum()), int(parsed["dict_entries"].sum())
    kinds = occurrences["kind"].value_counts()
    plot = plots.kinds([result, result])
    first, second = (container for container in plot.figure.axes[0].containers)
    bars = [round(bar.get_width(), 4) for bar in first]
    assert bars == [round(bar.get_width(), 4) for bar in second]
    by_kind = dict(zip(plots.KIND_BARS, bars))
    assert by_kind["call"] == round(100.0 * kinds["call"] / keywords, 4)
    assert by_kind["attribute"] == round(100.0 * kinds["attribute"] / keywords, 4)
    assert by_kind["dict_literal"] == round(100.0 * kinds["dict_literal"] / entries, 4)
    assert_captioned(plot, result.summary)


def test_captions_are_wrapped_inside_the_figure_and_keep_all_provenance(result):
    import dataclasses

    from punstats.present import compare
    from punstats.present.provenance import provenance
    long_source = dict(result.summary, source="pypi:a-rather-long-project-name==2024.12.31.post1",
                       revision="a_rather_long_project_name-2024.12.31.post1.tar.gz sha256:" + "ab12" * 16,
                       commit_date="2024-12-31T23:59:59+00:00", test_rule="regex:^(tests?|testing|docs_src)/")
    odd = dataclasses.replace(result, summary=long_source)
    figures = plots.all_plots([odd]) + [plots.projects([odd, result]), plots.kinds([odd, result]),
                                        compare.length_overlay([odd, result])]
    for plot in figures:
        figure = plot.figure
        renderer = figure.canvas.get_renderer()
        figure.canvas.draw()
        box = figure.bbox
        for text in figure.texts:
            extent = text.get_window_extent(renderer)
            assert box.x0 <= extent.x0 and extent.x1 <= box.x1 and box.y0 <= extent.y0 and extent.y1 <= box.y1, \
                (plot.name, text.get_text())
        said = " ".join(caption(plot).split())
        assert " ".join(provenance(long_source).split()) in said, plot.name  # nothing cut off
        assert len(figure.texts[-1].get_text().splitlines()) > 1  # it had to be wrapped
        extent = figure.texts[-1].get_window_extent(renderer)
        for axes in figure.axes:  # the caption lies below every axes and its labels
            assert extent.y1 <= axes.get_tightbbox(renderer).y0 + 1, plot.name
