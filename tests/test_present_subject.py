"""Tables and reports about one kind (``analysis.subject``, ``present.subject``, ``present.subject_report``,
``table``/``report --kind``): the per-project numbers recomputed from the run's parquet dataset with plain
pandas, the default kind (a run's one pattern, else f(x=x)), the one-line error for an unknown kind, every
format (reST through docutils, Markdown as GFM, a tidy CSV for plain ``pd.read_csv``) and the report headed
by the pattern's label with its definition quoted, within one forum post."""
import io
import os
import re

import pandas as pd
import pytest
from fakerun import NAMES, make_run
from gfm import check_tables
from test_tables import parse_rst, table_cells

from punstats.analysis import asked, subject
from punstats.cli import main
from punstats.present import subject_report
from punstats.present.formats import FORMATS, Span, rate_text, render
from punstats.present.intervals import interval_text
from punstats.present.report import POST_LIMIT
from punstats.present.run_tidy import RUN_COLUMNS
from punstats.present.subject import project_table
from punstats.store.ecosystem import read_run

PEP765 = "punstats.patterns.return_in_finally"


@pytest.fixture(scope="module")
def two(tmp_path_factory):
    """A run with two patterns: its own ``try_finally`` (per ``Try`` node) and PEP 765's (per line of code)."""
    directory, _ = make_run(tmp_path_factory.mktemp("run"), "--no-figure", "--pattern", PEP765)
    return directory


@pytest.fixture(scope="module")
def one(tmp_path_factory):
    """The run with one pattern, ``try_finally``."""
    directory, _ = make_run(tmp_path_factory.mktemp("run"), "--no-figure")
    return directory


def expected(directory, kind):
    """Per project: the count of ``kind`` and its rate per million lines of code, in all code and outside
    tests, from the run's datasets alone."""
    files = pd.read_parquet(os.path.join(directory, "files"))
    files = files[files["status"] == "ok"]
    hits = pd.read_parquet(os.path.join(directory, "occurrences"))
    hits = hits[hits["kind"] == kind]
    result = {}
    for project, lines in files.groupby("project"):
        outside = lines[~lines["in_test"]]
        mine = hits[hits["project"] == project]
        count, nontest = len(mine), int((~mine["in_test"]).sum())
        result[project] = (count, int(lines["code_lines"].sum()), 1e6 * count / lines["code_lines"].sum(),
                           nontest, 1e6 * nontest / outside["code_lines"].sum() if len(outside) else float("nan"))
    return result


def test_the_per_project_table_agrees_with_the_run_s_dataset(two):
    stored = read_run(two)
    table = project_table(stored, stored.registry["return_in_finally"])
    want = expected(two, "return_in_finally")
    assert sum(w[0] for w in want.values()) == 4  # alpha: 1 + 2 in tests, iota: 1
    rows = {row[1].text: row for row in table.rows[:len(NAMES)]}
    for project, (count, lines, rate, nontest, rate_nontest) in want.items():
        row = rows[project]
        assert row[3:5] == (count, lines), project
        assert row[5].value == pytest.approx(rate, abs=0.005) and row[6] == nontest, project
        assert row[7].value == pytest.approx(rate_nontest, abs=0.005) or row[7].value != row[7].value, project
    pooled, median, pooled_interval, median_interval = table.rows[-4:]
    total_lines = sum(w[1] for w in want.values())
    assert pooled[3:5] == (4, total_lines) and pooled[5].value == pytest.approx(4e6 / total_lines, abs=0.005)
    assert pooled[1].text == "All 6 scanned projects, pooled (every occurrence counts once)"
    assert median[1].text == "Per-project median (6 projects, every project counts once)"
    assert median[5].value == pytest.approx(pd.Series([w[2] for w in want.values()]).median(), abs=0.005)
    # the intervals: the projects resampled, a rate per million (whole numbers from 100 up)
    frame = subject.per_project(stored.records, stored.registry["return_in_finally"])
    scanned = frame[frame["status"] == "scanned"]
    from punstats.analysis import uncertainty
    expected_pooled = uncertainty.pooled(scanned["count"], scanned["unit"], scale=1e6)
    assert pooled_interval[1].text == "95% interval of the pooled (bootstrap over projects)"
    assert pooled_interval[5] == Span(interval_text(expected_pooled, rate=True))
    assert expected_pooled.estimate == pytest.approx(4e6 / total_lines)
    assert median_interval[5] == Span(interval_text(uncertainty.median(scanned["count"], scanned["unit"], scale=1e6),
                                                    rate=True))
    assert "2,000 resamples of the projects with replacement, seed 0" in table.notes[0]
    assert table.header[5].text == "Per million lines of code" and "sha256" in table.notes[0]


def test_the_default_kind_is_a_run_s_one_pattern_else_f_x_x(one, two):
    assert asked.subject(read_run(one).registry).name == "try_finally"
    assert asked.subject(read_run(two).registry).name == "call"
    from punstats.patterns.built_in import KINDS
    assert asked.default_kind(KINDS) == "call"


def test_an_unknown_kind_is_a_one_line_error_listing_the_choices(one, capsys):
    assert main(["table", one, "--kind", "try_finaly"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("punstats: error: unknown kind 'try_finaly' (did you mean try_finally?); choose from "
                          "call, dict_call_punnable, attribute,") and err.endswith(", try_finally\n")
    assert err.count("\n") == 1
    assert main(["report", one, "--kind", "functions", "--no-figures"]) == 2
    assert capsys.readouterr().err.startswith("punstats: error: functions is a count without a unit")


def test_table_of_a_run_is_about_its_one_pattern_in_every_format(one, capsys):
    stored = read_run(one)
    for fmt in FORMATS:
        assert main(["table", one, "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert ("try_finally" if fmt == "csv" else "try with finally") in out and "f(x=x)" not in out, fmt
        if fmt == "rst":
            cells = table_cells(next(iter(parse_rst(out).findall(lambda n: n.tagname == "table"))))
            assert cells[0][5] == "Share of Try nodes" and [c[1] for c in cells[1:8]] == NAMES
        if fmt == "markdown":
            assert check_tables(out) == 1
            assert out == render(project_table(stored, stored.registry["try_finally"]), "markdown")
    assert main(["table", one, "--kind", "call", "--format", "markdown"]) == 0  # today's table
    assert "`f(x=x)` in the top 7 PyPI projects" in capsys.readouterr().out


def test_the_csv_is_tidy_for_plain_read_csv(two, capsys):
    assert main(["table", two, "--kind", "return_in_finally", "--format", "csv"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert list(frame.columns[:11]) == ["rank", "project", "release", "status", "kind", "count", "code_lines",
                                        "per_million_code_lines", "count_nontest", "code_lines_nontest",
                                        "per_million_code_lines_nontest"]
    run = ["%s_per_million_code_lines%s%s" % (words, suffix, end) for words in ("pooled", "median")
           for suffix in ("", "_nontest") for end in ("", "_low", "_high")]  # the run's, with 95 % intervals
    assert list(frame.columns[11:]) == run + ["bootstrap_resamples", "bootstrap_seed", "bootstrap_unit",
                                              *RUN_COLUMNS]  # what the run measured, in columns of its own
    assert list(frame["project"]) == NAMES and frame["rank"].dtype == "int64"
    assert all(pd.api.types.is_float_dtype(frame[c]) for c in ("count", "code_lines", "per_million_code_lines"))
    want = expected(two, "return_in_finally")
    alpha = frame.set_index("project").loc["alpha"]
    assert alpha["count"] == want["alpha"][0] == 3 and alpha["count_nontest"] == 1
    assert alpha["per_million_code_lines"] == pytest.approx(want["alpha"][2], abs=0.005)
    assert frame.set_index("project").loc["gamma"].isna()["count"]  # skipped: empty, not 0


def test_table_of_scans_is_about_their_one_pattern_in_every_format(one, capsys, tmp_path):
    scan = scan_of(one, tmp_path / "s")
    capsys.readouterr()
    for fmt in FORMATS[:2] + FORMATS[3:]:  # CSV: test_scans_csv_and_report_about_their_pattern
        assert main(["table", scan, "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert "try with finally" in out and "Share of" in out and "nodes outside tests" in out, fmt
        if fmt == "rst":
            cells = table_cells(next(iter(parse_rst(out).findall(lambda n: n.tagname == "table"))))
            assert cells[1][1:] == ["2"] and cells[2][1:] == ["66.67%"]
        if fmt == "markdown":
            assert check_tables(out) == 1
    assert main(["table", scan, "--kind", "call"]) == 0
    assert "Keyword arguments of the form ``f(x=x)``" in capsys.readouterr().out


def scan_of(run_dir, target):
    """A stored scan with the run's pattern: ``punstats scan`` of a directory holding try/finally."""
    from fakerun import FINALLY, TRIES
    if not target.exists():
        (target / "src").mkdir(parents=True)
        (target / "src" / "m.py").write_text(FINALLY * 2 + "try:\n    pass\nexcept OSError:\n    pass\n")
        (target / "tries.py").write_text(TRIES)
        assert main(["scan", str(target / "src"), "-o", str(target / "scan"), "-j", "1", "-q",
                     "--pattern", str(target / "tries.py")]) == 0
    return str(target / "scan")


def test_scans_csv_and_report_about_their_pattern(one, tmp_path, capsys):
    scan = scan_of(one, tmp_path / "s")
    capsys.readouterr()
    assert main(["table", scan, "--format", "csv"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    row = frame.iloc[0]
    assert (row["kind"], row["count"], row["try_nodes"], row["pct_of_try_nodes"]) == ("try_finally", 2, 3,
                                                                                       pytest.approx(66.6667))
    assert main(["report", scan, "-o", str(tmp_path / "r.md"), "--no-figures"]) == 0
    capsys.readouterr()
    text = (tmp_path / "r.md").read_text()
    assert text.startswith("# try with finally in ") and "**66.67% of `Try` nodes**" in text
    assert "## Identifier lengths" not in text and "--kind try_finally" in text
    assert check_tables(text) == 2  # the scan's table and what was measured


def test_the_report_is_headed_by_the_pattern_quotes_its_definition_and_fits_one_post(two, tmp_path, capsys):
    path = tmp_path / "pep765.md"
    assert main(["report", two, "--kind", "return_in_finally", "-o", str(path), "--no-figures"]) == 0
    text = path.read_text()
    assert text.startswith("# return/break/continue leaving `finally` (PEP 765) in the top 7 PyPI projects\n")
    assert "> return, break and continue that leave a `finally` block (PEP 765)." in text
    assert "`punstats.patterns.return_in_finally`, sha256 `" in text and "`ast.Return`, `ast.Break`" in text
    assert "## Identifier lengths" not in text and "keyword arguments outside tests are" not in text
    assert "**%s per million lines of code**" % rate_text(4e6 / sum(w[1] for w in expected(two, "return_in_finally")
                                                                  .values())) in text.split("## Projects")[0]
    assert "2 of the 6 scanned projects have at least one" in text
    assert "punstats report data/top-pypi-7 --kind return_in_finally" in text
    assert len(text) <= POST_LIMIT and check_tables(text) == 1
    assert "## What was measured" in text and "## Reproduce" in text


def test_a_report_of_none_found_gives_an_upper_bound():
    kind = asked.subject(read_registry(), "return_in_finally")
    counts = {"count": 0, "unit": 1_500_000, "count_nontest": 0, "unit_nontest": 1_000_000,
              "measure": 0.0, "measure_nontest": 0.0}
    text = subject_report.headline(counts, kind, "components", "")
    assert "below 2.00 per million lines of code at 95% confidence" in text


def read_registry():
    from punstats.patterns.built_in import registry_of
    return registry_of({"patterns": [{"name": "return_in_finally", "label": "l", "per": "code_lines",
                                      "source": PEP765, "sha256": "ab"}]})


def test_a_node_class_keeps_its_capitals_and_a_pattern_file_its_name_only(one, tmp_path, capsys):
    """The unit column of ``Try`` was "`try` nodes" (``str.capitalize``), and a note named the pattern file by
    the path it had on the machine the run was made on."""
    stored = read_run(one)
    table = project_table(stored, stored.registry["try_finally"])
    assert table.header[4].text == "`Try` nodes"
    assert "the pattern tries.py (sha256 " in table.notes[0] and os.path.dirname(one) not in table.notes[0]
    scan = scan_of(one, tmp_path / "s")
    capsys.readouterr()
    assert main(["table", scan, "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "| `Try` nodes outside tests " in out and "the pattern tries.py (sha256 " in out
    assert str(tmp_path) not in out
    assert main(["report", scan, "-o", str(tmp_path / "r.md"), "--no-figures"]) == 0
    text = (tmp_path / "r.md").read_text()
    assert "a pattern given with `--pattern`: `tries.py`, sha256" in text and str(tmp_path) not in text


def test_the_report_of_scans_about_a_kind_has_its_figure(one, tmp_path, capsys):
    """``report SCAN --kind NAME`` drew no figure, and took --embed and --figures-dir without a word."""
    pytest.importorskip("matplotlib")
    scan = scan_of(one, tmp_path / "s")
    target = tmp_path / "reports" / "r.md"
    assert main(["report", scan, "-o", str(target)]) == 0
    text = target.read_text()
    assert "](r-figures/src-try_finally-projects.png)" in text
    assert "*Each scan's share of `Try` nodes, in all code and outside tests" in text
    assert (tmp_path / "reports" / "r-figures" / "src-try_finally-projects.svg").is_file()
    assert main(["report", scan, "-o", str(tmp_path / "e.md"), "--embed"]) == 0
    assert "](data:image/png;base64," in (tmp_path / "e.md").read_text()
    assert main(["report", scan, "-o", str(tmp_path / "f.md"), "--figures-dir", str(tmp_path / "figs")]) == 0
    assert "](figs/src-try_finally-projects.png)" in (tmp_path / "f.md").read_text()
    assert main(["report", scan, "-o", str(tmp_path / "n.md"), "--no-figures"]) == 0
    assert "![" not in (tmp_path / "n.md").read_text()


NASTY = "a ` b ``c`` *d | e _f_ \\ g [x](y) <b> #"


def test_a_label_of_any_characters_keeps_the_kind_s_tables_and_heading_whole(tmp_path, capsys):
    """A label with an unpaired backtick, ``*``, ``|``, ``_``, a backslash, a link or HTML reads as written in
    the title of the kind's table (reST through docutils, Markdown as GFM) and in the report's heading, which
    took ``` b ``c``` for a code span."""
    import markdown_it
    from gfm import check_rendered
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text("try:\n    pass\nfinally:\n    pass\n")
    (tmp_path / "nasty.py").write_text(
        "import ast\nimport punstats\n\n\n@punstats.pattern('nasty', label=%r, per='code_lines', on=ast.Try)\n"
        "def match(node, parents):\n    return True\n" % NASTY)
    scan = str(tmp_path / "scan")
    assert main(["scan", str(tmp_path / "src"), "-o", scan, "-q", "--pattern", str(tmp_path / "nasty.py")]) == 0
    capsys.readouterr()
    assert main(["table", scan]) == 0
    doctree = parse_rst(capsys.readouterr().out)
    assert doctree.children[0].astext().startswith(NASTY)
    assert main(["table", scan, "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    check_rendered(out)
    html = markdown_it.MarkdownIt("commonmark").render(out.splitlines()[0])
    assert "<strong>a ` b ``c`` *d | e _f_ \\ g [x](y) &lt;b&gt; #</strong>" in html
    assert main(["table", scan, "--format", "latex"]) == 0  # `` would be an opening quote, | an em dash
    assert ("a \\textasciigrave{} b \\textasciigrave{}\\textasciigrave{}c\\textasciigrave{}\\textasciigrave{} *d "
            "\\textbar{} e \\_f\\_ \\textbackslash{} g") in capsys.readouterr().out
    assert main(["report", scan, "-o", str(tmp_path / "r.md"), "--no-figures"]) == 0
    heading = (tmp_path / "r.md").read_text().splitlines()[0]
    assert markdown_it.MarkdownIt("commonmark").render(heading) == \
        "<h1>a ` b ``c`` *d | e _f_ \\ g [x](y) &lt;b&gt; # in src</h1>\n"
    assert subject_report.prose("leaving `finally` (PEP 765)") == "leaving `finally` (PEP 765)"  # code stays code


def test_a_run_s_report_about_a_kind_names_both_weightings_and_its_bootstrap(two, tmp_path, capsys):
    path = tmp_path / "kind.md"
    assert main(["report", two, "--kind", "return_in_finally", "--no-figures", "-o", str(path),
                 "--seed", "7", "--resamples", "150"]) == 0
    text = path.read_text()
    headline = text.split("## Headline")[1].split("## Projects")[0]
    assert "Pooled over the 6 scanned projects (every occurrence counts once, so big projects weigh more)" in headline
    assert "Per project (every project counts once), the median" in headline
    assert "95% interval of the pooled (bootstrap over projects)" in text
    assert "150 resamples of the projects with replacement, seed 7" in text


def test_the_f_x_x_report_of_a_run_with_one_pattern_says_kind_call_to_make_it_again(one, tmp_path):
    """``report RUN`` alone is about the run's one pattern: the f(x=x) report's command says ``--kind call``."""
    path = tmp_path / "call.md"
    assert main(["report", one, "--kind", "call", "-o", str(path), "--no-figures"]) == 0
    again = path.read_text().split("## Reproduce", 1)[1]
    assert re.search(r"^punstats report data/\S+ --kind call$", again, re.M)
