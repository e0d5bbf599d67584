"""``punstats.report`` and ``punstats report``: a self-contained Markdown
report of a real scan, its numbers, definitions and figures."""
import base64
import os
import re

import pytest

import punstats
from punstats.cli import main
from punstats.present import report

IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)]+)\)")


@pytest.fixture(scope="module")
def result(stdlib_subset_scan_dir):
    return punstats.load(stdlib_subset_scan_dir)


@pytest.fixture(scope="module")
def embedded(result, stdlib_subset_scan_dir, tmp_path_factory):
    path = str(tmp_path_factory.mktemp("report") / "stdlib-subset.md")
    assert report.write_report(result, path, scan_dir=stdlib_subset_scan_dir) == path
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def section(text, title):
    """The body of a ``## title`` section."""
    return text.split("\n## %s\n" % title, 1)[1].split("\n## ", 1)[0]


def test_report_embeds_every_figure_as_png(embedded):
    images = IMAGE.findall(embedded)
    assert len(images) == len(report.FIGURES)
    for (alt, source), (_, caption) in zip(images, report.FIGURES):
        assert alt == caption
        assert source.startswith("data:image/png;base64,")
        assert base64.b64decode(source.split(",", 1)[1]).startswith(b"\x89PNG\r\n\x1a\n")


def test_report_headline_is_the_stored_summary(embedded, result):
    summary = result.summary
    headline = section(embedded, "Headline")
    rows = {line.split("|")[1].strip(): line.split("|")[2].strip() for line in headline.splitlines()
            if line.startswith("| ") and not line.startswith("| -")}
    assert rows["Statistic"] == "stdlib-subset[^1]"
    assert rows["Keyword arguments of the form `f(x=x)`"] == format(summary["punnable"], ",")
    assert rows["% of all keyword arguments"] == "%.2f%%" % summary["punnable_pct"]
    assert rows["Long, outside tests"] == format(summary["long_nontest"], ",")
    assert "[^1]: stdlib-subset: " in headline
    assert embedded.count("[^1]") == 2  # one footnote, one reference: the other tables have none


def test_report_states_what_was_measured_and_the_rules(embedded, result, stdlib_subset_scan_dir):
    summary = result.summary
    measured = section(embedded, "What was measured")
    assert "| Revision | %s |" % summary["revision"] in measured
    assert "| Parsed by | %s %s, punstats %s" % (summary["python_implementation"], summary["python"],
                                                  summary["punstats_version"]) in measured
    assert "| Files | %s scanned: %s parsed, %s failed" % (summary["files"], summary["parsed"],
                                                           summary["failed"]) in measured
    assert "| Stored scan | `%s` |" % stdlib_subset_scan_dir in measured
    rules = section(embedded, "Definitions and rules")
    assert summary["rules"]["definition"] in rules
    assert "at least %d characters" % summary["long_threshold"] in rules
    assert "`idle_test`, `test`, `testing`, `tests`" in rules and "`test_*.py`" in rules
    reproduce = section(embedded, "Reproduce")
    assert "punstats scan %s -o %s" % (summary["source"], stdlib_subset_scan_dir) in reproduce
    assert "punstats report %s" % stdlib_subset_scan_dir in reproduce


def test_report_tables_hold_the_stored_counts(embedded, result):
    calls = result.occurrences[result.occurrences["kind"] == "call"]
    lengths = section(embedded, "Identifier lengths")
    threshold = result.summary["long_threshold"]
    [long_row] = [line for line in lengths.splitlines() if line.startswith("| %d (long) " % threshold)]
    assert long_row.split("|")[5].strip() == format(result.summary["long"], ",")
    tops = section(embedded, "Most common identifiers and callees")
    name, count = result.summary["top_callees"][0]
    assert re.search(r"\| `%s` +\| +\d+ \| +\d+ \| +%d \|" % (re.escape(name), count), tops)
    places = section(embedded, "Where they are")
    for directory, n in calls["path"].str.split("/").str[0].value_counts().items():
        assert re.search(r"\| `%s/` .*\| +%s \| +\d+ \| +\d+ \| +[\d.]+%% \|$" % (directory, format(n, ",")),
                         places, re.M)


def test_report_can_link_figures_instead(result, tmp_path):
    path = report.write_report(result, str(tmp_path / "out" / "r.md"), figures_dir=str(tmp_path / "figs"))
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    sources = [source for _, source in IMAGE.findall(text)]
    assert sources == ["../figs/stdlib-subset-%s.png" % kind for kind, _ in report.FIGURES]
    assert all(os.path.isfile(os.path.join(tmp_path / "out", source)) for source in sources)
    assert all((tmp_path / "figs" / ("stdlib-subset-%s.svg" % kind)).is_file() for kind, _ in report.FIGURES)


def test_report_without_figures_needs_no_images(result, tmp_path):
    path = report.write_report(result, str(tmp_path / "r.md"), figures=False)
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    assert not IMAGE.search(text) and "## Identifier lengths" in text


def test_cli_report_writes_reports_corpus_md(stdlib_subset_scan_dir, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main(["report", stdlib_subset_scan_dir, "--no-figures", "--test-rule", "substring"]) == 0
    assert capsys.readouterr().out == os.path.join("reports", "stdlib-subset.md") + "\n"
    text = (tmp_path / "reports" / "stdlib-subset.md").read_text(encoding="utf-8")
    assert "| Test rule | `substring` |" in text and "`grep -v test`" in text
    assert main(["report", str(tmp_path)]) == 2
    assert main(["report", stdlib_subset_scan_dir, stdlib_subset_scan_dir]) == 2
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 2 and all(e.startswith("punstats: error: ") for e in errors)
