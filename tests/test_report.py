"""``punstats.present.report`` and ``punstats report``: a self-contained Markdown
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
    assert report.write_report(result, path, scan_dir=stdlib_subset_scan_dir, embed=True) == path
    with open(path, encoding="utf-8") as handle:
        return handle.read()


@pytest.fixture(scope="module")
def default(result, tmp_path_factory):
    """The default report, written as ``punstats report`` writes it."""
    path = tmp_path_factory.mktemp("default") / "reports" / "stdlib-subset.md"
    report.write_report(result, str(path), scan_dir="data/stdlib-subset")
    return path


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
    assert "| Source | a local directory |" in measured
    assert "| Parsed by | %s %s, punstats %s" % (summary["python_implementation"], summary["python"],
                                                  summary["punstats_version"]) in measured
    assert "| Files | %s scanned: %s parsed, %s failed" % (summary["files"], summary["parsed"],
                                                           summary["failed"]) in measured
    assert "Stored scan" not in measured  # an absolute path, of this machine
    rules = section(embedded, "Definitions and rules")
    assert summary["rules"]["definition"] in rules
    assert "at least %d characters" % summary["long_threshold"] in rules
    assert "`idle_test`, `test`, `testing`, `tests`" in rules and "`test_*.py`" in rules
    reproduce = section(embedded, "Reproduce")
    assert "\npunstats scan %s --name stdlib-subset -o data/stdlib-subset\n" % os.path.basename(
        summary["source"]) in reproduce  # as the scan called it
    assert "punstats report data/stdlib-subset" in reproduce


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
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 1 and errors[0].startswith("punstats: error: ")


def test_default_report_fits_one_discourse_post_with_figures_beside_it(default, result):
    text = default.read_text(encoding="utf-8")
    assert len(text) < report.POST_LIMIT
    assert "data:image" not in text
    sources = [source for _, source in IMAGE.findall(text)]
    assert sources == ["stdlib-subset-figures/stdlib-subset-%s.png" % kind for kind, _ in report.FIGURES]
    assert all((default.parent / source).is_file() for source in sources)


def test_report_names_no_path_of_this_machine(default, result):
    text = default.read_text(encoding="utf-8")
    for path in (result.summary["root"], result.summary["source"], str(default.parent), os.path.expanduser("~")):
        assert path not in text
    assert not re.search(r"(^|[\s(`])/(tmp|home|root|usr|work)/", text, re.M)


def test_report_starts_with_its_title_and_no_table_has_an_empty_header(default):
    text = default.read_text(encoding="utf-8")
    assert text.startswith("# `f(x=x)` keyword arguments in stdlib-subset\n")
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.startswith("| -") or line.startswith("| :-") or re.match(r"^\| -+ \|", line):
            header = [cell.strip() for cell in lines[index - 1].strip("|").split("|")]
            assert all(header[:1]) and any(header), lines[index - 1]


@pytest.fixture(scope="module")
def two_scans(result, stdlib_subset_dir):
    json_only = punstats.scan(os.path.join(stdlib_subset_dir, "json"), jobs=1)
    return [result, json_only]


def test_report_over_two_scans_fits_one_post_and_compares_them(two_scans, tmp_path):
    path = report.write_report(two_scans, str(tmp_path / "two.md"), scan_dir=["data/a", "data/b"])
    text = open(path, encoding="utf-8").read()
    assert len(text) < report.POST_LIMIT
    assert text.startswith("# `f(x=x)` keyword arguments in stdlib-subset, json\n")
    headline = section(text, "Headline")
    for r in two_scans:
        s = r.summary
        assert "%s: **%.2f%%** of the keyword arguments outside tests" % (
            report._text(s["corpus"]), s["punnable_nontest_pct"]) in headline
    assert "| Statistic" in headline and "stdlib-subset[^1]" in headline and "json[^2]" in headline
    sources = [source for _, source in IMAGE.findall(text)]
    assert sources == ["two-figures/stdlib-subset+json-projects.png", "two-figures/stdlib-subset+json-overlay.png"]
    assert "punstats report data/a data/b" in section(text, "Reproduce")


def test_cli_report_takes_several_scans(stdlib_subset_scan_dir, two_scans, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    two_scans[1].save(str(tmp_path / "data" / "json"))
    assert main(["report", stdlib_subset_scan_dir, "data/json", "--no-figures", "--links"]) == 0
    path = capsys.readouterr().out.strip()
    assert path == os.path.join("reports", "stdlib-subset+json.md")
    text = (tmp_path / path).read_text(encoding="utf-8")
    assert "[^" not in text  # links: no footnotes
    assert "*stdlib-subset: a local directory at revision" in text and "*json: a local directory; parsed" in text
    assert len(text) < report.POST_LIMIT


def test_installed_distribution_is_named_by_name_and_version(result):
    import importlib.metadata

    import tqdm

    from punstats.present import provenance
    summary = punstats.scan(os.path.dirname(tqdm.__file__), jobs=1).summary  # the scan records the distribution
    note = provenance.provenance(summary)
    assert note.startswith("tqdm: tqdm %s (installed distribution);" % importlib.metadata.version("tqdm"))
    assert "revision" not in note and os.sep + "tqdm" not in note
    assert provenance.source_url(summary) == "https://pypi.org/project/tqdm/%s/" % importlib.metadata.version("tqdm")


# -- every table of a report is a GFM table -------------------------------------------------------

def test_every_table_of_a_report_is_gfm(result, two_scans, tmp_path):
    from gfm import check_rendered, tables
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.warns(punstats.NoPythonFilesWarning):
        nothing = punstats.scan(str(empty), jobs=1)  # every share n/a
    for results, dirs in (([result], ["data/a"]), (two_scans, ["data/a", "data/b"]),
                          ([result, nothing, two_scans[1]], ["data/a", None, "data/c"]), ([nothing], [None])):
        for links in (False, True):
            text = report.render(results, scan_dirs=dirs, links=links)
            assert len(tables(text)) >= 6
            check_rendered(text)
    measured = section(report.render(two_scans, scan_dirs=["data/a", "data/b"]), "What was measured")
    assert measured.splitlines()[2] == "| --- | --- | --- |"
