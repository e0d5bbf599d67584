"""``punstats.present.tables`` and ``punstats table``: the numbers in every format
against the stored scan, and the reST against docutils."""
import dataclasses
import io
import os
import re

import pandas as pd
import pytest
from docutils import nodes
from docutils.core import publish_doctree

import punstats
from punstats.analysis.uncertainty import scan_intervals
from punstats.cli import main
from punstats.patterns.built_in import KINDS
from punstats.present import tables, tidy

BORDER = re.compile(r"^=+( =+)+$")


@pytest.fixture(scope="module")
def result(stdlib_subset_scan_dir):
    return punstats.load(stdlib_subset_scan_dir)


def stored_counts(scan_dir):
    """The summary table's numbers counted straight from the stored parquet
    files, without punstats.analysis."""
    occurrences = pd.read_parquet(os.path.join(scan_dir, "occurrences.parquet"))
    files = pd.read_parquet(os.path.join(scan_dir, "files.parquet"))
    calls = occurrences[occurrences["kind"] == "call"]
    parsed = files[files["status"] == "ok"]
    long = calls[calls["name_len"] >= 10]
    return {
        "punnable": len(calls),
        "keywords": int(parsed["keywords"].sum()),
        "punnable_pct": 100.0 * len(calls) / int(parsed["keywords"].sum()),
        "calls_with_punnable": int(parsed["calls_with_punnable"].sum()),
        "long": len(long),
        "long_nontest": int((~long["in_test"]).sum()),
        "parsed": len(parsed),
        "failed": int((~files["status"].isin(["ok", "symlink", "outside_root", "directory"])).sum()),
    }


def independent_nontest_share(root):
    """(punnable, keywords, percent) outside tests, counted with ``ast`` and
    pandas alone: every file under ``root`` parsed here, test code decided
    from the path as the ``components`` rule words it."""
    import ast
    import fnmatch
    rows = []
    for directory, subdirs, names in os.walk(root):
        subdirs[:] = [d for d in subdirs if d != "__pycache__"]
        for name in (n for n in names if n.endswith(".py")):
            parts = os.path.relpath(os.path.join(directory, name), root).split(os.sep)
            in_test = bool(set(parts[:-1]) & {"test", "tests", "testing", "idle_test"}) or any(
                fnmatch.fnmatchcase(name, p) for p in ("test_*.py", "*_test.py", "tests.py", "conftest.py"))
            try:
                with open(os.path.join(directory, name), "rb") as handle:
                    tree = ast.parse(handle.read())
            except (SyntaxError, ValueError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Call):
                    rows += [(in_test, isinstance(k.value, ast.Name) and k.value.id == k.arg)
                             for k in node.keywords if k.arg is not None]
    frame = pd.DataFrame(rows, columns=["in_test", "punnable"])
    outside = frame[~frame["in_test"]]
    return int(outside["punnable"].sum()), len(outside), 100.0 * outside["punnable"].mean()


def test_outside_tests_share_agrees_with_an_independent_count(result, capsys):
    punnable, keywords, pct = independent_nontest_share(result.summary["root"])
    summary = result.summary
    assert (summary["punnable_nontest"], summary["keywords_nontest"]) == (punnable, keywords)
    assert summary["punnable_nontest_pct"] == pytest.approx(pct, abs=1e-4)
    assert keywords < summary["keywords"] and pct > summary["punnable_pct"]  # the tests really are excluded
    from punstats.present import console, report
    lines = console.format_summary(summary).splitlines()
    line = next(text for text in lines if text.startswith("f(x=x) outside tests"))
    assert line.split()[3:6] == [format(punnable, ","), "(%.2f%%" % pct, "of"]
    assert report.headline(result).startswith("**%.2f%%** of the keyword arguments outside tests" % pct)
    legacy = dataclasses.replace(result, summary={k: v for k, v in summary.items()
                                                  if k not in ("punnable_nontest_pct", "keywords_nontest")})
    assert tables.with_outside_tests(legacy)["punnable_nontest_pct"] == summary["punnable_nontest_pct"]


def parse_rst(text):
    """The doctree of ``text``; fails on any docutils message (info and up)."""
    messages = io.StringIO()
    doctree = publish_doctree(text, settings_overrides={
        "report_level": 1, "halt_level": 5, "warning_stream": messages})
    assert messages.getvalue() == ""
    assert not list(doctree.findall(nodes.system_message))
    return doctree


def cell_text(entry):
    """An entry's text without its footnote references."""
    entry = entry.deepcopy()
    for reference in list(entry.findall(nodes.footnote_reference)):
        reference.parent.remove(reference)
    return entry.astext().strip()


def table_cells(table):
    return [[cell_text(entry) for entry in row.findall(nodes.entry)] for row in table.findall(nodes.row)]


# -- the summary table -------------------------------------------------------------------------

INTERVAL_LABEL = "95% interval (bootstrap over files, 2,000 resamples, seed 0)"


def _interval(interval):
    return "%.2f%% to %.2f%%" % (interval.low, interval.high)


def test_summary_rst_has_the_pep_shape_and_the_stored_numbers(result, stdlib_subset_scan_dir):
    text = tables.render(tables.summary_table([result]), "rst")
    doctree = parse_rst(text)
    [table] = list(doctree.findall(nodes.table))
    rows = table_cells(table)
    assert rows[0] == ["Statistic", "stdlib-subset"]
    counts = stored_counts(stdlib_subset_scan_dir)
    intervals = scan_intervals(result.files)
    # each share's interval: its parsed files resampled, the estimate inside it
    assert intervals["punnable_pct"].low < counts["punnable_pct"] < intervals["punnable_pct"].high
    expected = [
        ["Keyword arguments of the form f(x=x)", format(counts["punnable"], ",")],
        ["% of all keyword arguments", "%.2f%%" % counts["punnable_pct"]],
        [INTERVAL_LABEL, _interval(intervals["punnable_pct"])],
        ["% of keyword arguments outside tests", "%.2f%%" % independent_nontest_share(result.summary["root"])[2]],
        [INTERVAL_LABEL, _interval(intervals["punnable_nontest_pct"])],
        ["All keyword arguments", format(counts["keywords"], ",")],
        ["Calls with at least one f(x=x) argument", format(counts["calls_with_punnable"], ",")],
        ["Long: identifier of 10 or more characters", format(counts["long"], ",")],
        ["Long, outside tests", format(counts["long_nontest"], ",")],
        ["Files parsed", format(counts["parsed"], ",")],
        ["Files that failed to parse", format(counts["failed"], ",")],
    ]
    assert rows[1:] == expected
    assert counts["punnable"] > 50 and counts["long"] > 0  # a real corpus, not an empty one
    # f(x=x) is an inline literal, as a PEP writes code
    assert [n.astext() for n in table.findall(nodes.literal)] == ["f(x=x)", "f(x=x)"]

    # the PEP's simple-table shape: = borders around the header and the body, one space between columns
    lines = text.splitlines()
    assert BORDER.match(lines[0]) and lines[2] == lines[0] and lines[len(rows) + 2] == lines[0]
    assert lines[1].startswith("Statistic ")
    starts = [m.start() for m in re.finditer("=+", lines[0])]
    assert lines[1][starts[1]:].startswith("stdlib-subset [#]_")
    assert lines[3][starts[1]:] == format(counts["punnable"], ",")


def test_summary_footnote_names_corpus_revision_and_python(result):
    doctree = parse_rst(tables.render(tables.summary_table([result]), "rst"))
    [footnote] = list(doctree.findall(nodes.footnote))
    [reference] = list(doctree.findall(nodes.footnote_reference))
    assert reference["refid"] == footnote["ids"][0]
    text = " ".join(footnote.astext().split())
    summary = result.summary
    assert summary["revision"] and summary["revision"] in text
    assert "parsed by %s %s" % (summary["python_implementation"], summary["python"]) in text
    assert text.startswith("1 stdlib-subset:") and "test rule components" in text


def test_summary_compares_scans_column_by_column(result, stdlib_subset_scan_dir):
    json_only = punstats.scan(os.path.join(result.summary["root"], "json"), jobs=1)
    text = tables.render(tables.summary_table([result, json_only, result]), "rst")
    doctree = parse_rst(text)
    rows = table_cells(next(doctree.findall(nodes.table)))
    assert rows[0] == ["Statistic", "stdlib-subset", "json", "stdlib-subset (2)"]
    assert rows[1][1:] == [format(result.summary["punnable"], ","), format(json_only.summary["punnable"], ","),
                           format(result.summary["punnable"], ",")]
    assert json_only.summary["punnable"] < result.summary["punnable"]
    assert len(list(doctree.findall(nodes.footnote))) == 3


def test_summary_refuses_scans_with_different_long_thresholds(result):
    with pytest.raises(ValueError, match="different long thresholds"):
        tables.summary_table([result, result.with_rules(long_threshold=12)])


def test_user_text_is_escaped_in_every_format(result):
    odd = dataclasses.replace(result, summary=dict(result.summary, corpus="my_proj_ *x* |100%&$ #1"))
    table = tables.summary_table([odd])
    doctree = parse_rst(tables.render(table, "rst"))
    assert table_cells(next(doctree.findall(nodes.table)))[0][1] == "my_proj_ *x* |100%&$ #1"
    markdown = tables.render(table, "markdown")
    assert "| my\\_proj\\_ \\*x\\* \\|100%&$ \\#1[^1] |" in markdown.splitlines()[0]
    latex = tables.render(table, "latex")
    assert r"my\_proj\_ *x* \textbar{}100\%\&\$ \#1\textsuperscript{1}" in latex  # | is an em dash in OT1


def test_markdown_csv_latex_hold_the_same_numbers(result):
    summary = result.summary
    table = tables.summary_table([result])
    markdown = tables.render(table, "markdown").splitlines()
    assert [cell.strip() for cell in markdown[0].split("|")[1:-1]] == ["Statistic", "stdlib-subset[^1]"]
    assert re.fullmatch(r"\| -+ \| -+: \|", markdown[1])
    body = {line.split("|")[1].strip(): line.split("|")[2].strip() for line in markdown[2:13]}
    assert body["Keyword arguments of the form `f(x=x)`"] == format(summary["punnable"], ",")
    assert body["% of all keyword arguments"] == "%.2f%%" % summary["punnable_pct"]
    assert body["% of keyword arguments outside tests"] == "%.2f%%" % summary["punnable_nontest_pct"]
    assert body[INTERVAL_LABEL] == _interval(scan_intervals(result.files)["punnable_nontest_pct"])
    assert markdown[14].startswith("[^1]: stdlib-subset: ") and summary["revision"] in markdown[14]

    frame = pd.read_csv(io.StringIO(tables.render(table, "csv")), comment="#", index_col=0)
    column = frame["stdlib-subset"]  # the intervals' rows are words: the column is read as text
    assert int(column.loc["Keyword arguments of the form f(x=x)"]) == summary["punnable"]
    assert float(column.loc["% of all keyword arguments"]) == round(summary["punnable_pct"], 2)
    assert int(column.loc["Long, outside tests"]) == summary["long_nontest"]

    latex = tables.render(table, "latex")
    assert r"\begin{tabular}{lr}" in latex and r"\toprule" in latex and r"\bottomrule" in latex
    assert (r"Keyword arguments of the form \texttt{f(x=x)} & %s \\" % format(summary["punnable"], ",")) in latex
    assert (r"\%% of all keyword arguments & %.2f\%% \\" % summary["punnable_pct"]) in latex
    assert summary["revision"] in latex and summary["python"] in latex


# -- the other tables ------------------------------------------------------------------------

def test_length_table_counts_per_length_and_cumulative(result):
    # unittest/ as test code: a real test / non-test split in any Python version
    split = result.with_rules("regex:^unittest/")
    calls = split.occurrences[split.occurrences["kind"] == "call"]
    doctree = parse_rst(tables.render(tables.length_table(split), "rst"))
    [paragraph] = [p for p in doctree.findall(nodes.paragraph) if p.parent is doctree]
    assert paragraph.astext().startswith("Identifier lengths of f(x=x) keyword arguments in stdlib-subset")
    rows = table_cells(next(doctree.findall(nodes.table)))
    assert rows[0] == ["Length", "Non-test", "Test", "All", ">= length", ">= length, non-test", "% >= length"]
    assert [row[0] for row in rows[1:]] == [str(n) for n in range(1, 10)] + ["10 (long)"] + [
        str(n) for n in range(11, 20)] + [">= 20"]
    for n, row in enumerate(rows[1:], start=1):
        exact = calls[calls["name_len"] >= n] if n == 20 else calls[calls["name_len"] == n]
        at_least = calls[calls["name_len"] >= n]
        assert row[1:] == [
            format(int((~exact["in_test"]).sum()), ","), format(int(exact["in_test"].sum()), ","),
            format(len(exact), ","), format(len(at_least), ","),
            format(int((~at_least["in_test"]).sum()), ","), "%.2f%%" % (100.0 * len(at_least) / len(calls))]
    long_row = rows[10]
    assert long_row[4:6] == [format(split.summary["long"], ","), format(split.summary["long_nontest"], ",")]
    assert 0 < split.summary["punnable_test"] < split.summary["punnable"]


@pytest.mark.parametrize("kind", ["identifier", "callee"])
def test_top_tables_rank_the_stored_values(result, kind):
    column = "name" if kind == "identifier" else "callee"
    [table] = tables.tables_of(kind, [result], n=5)
    doctree = parse_rst(tables.render(table, "rst"))
    rows = table_cells(next(doctree.findall(nodes.table)))
    calls = result.occurrences[result.occurrences["kind"] == "call"]
    counts = calls[column].value_counts()
    assert len(rows) == 6
    for value, nontest, test, total in rows[1:]:
        assert int(total) == counts[value] == int(nontest) + int(test)
    assert [int(row[3]) for row in rows[1:]] == sorted(counts.values, reverse=True)[:5]
    if kind == "identifier":  # the summary's own top list agrees
        assert [[row[0], int(row[3])] for row in rows[1:]] == [list(p) for p in result.summary["top_identifiers"][:5]]


def test_directory_table_adds_up_to_the_summary(result):
    [table] = tables.tables_of("directory", [result], n=2)
    doctree = parse_rst(tables.render(table, "rst"))
    rows = table_cells(next(doctree.findall(nodes.table)))
    calls = result.occurrences[result.occurrences["kind"] == "call"]
    per_directory = calls["path"].str.split("/").str[0].value_counts()
    assert [row[0] for row in rows[1:]] == [name + "/" for name in per_directory.index[:2]] + ["(1 other)"]
    assert [int(row[3]) for row in rows[1:]] == list(per_directory.values)
    assert sum(int(row[2].replace(",", "")) for row in rows[1:]) == result.summary["keywords"]


@pytest.mark.parametrize("kind", tables.KINDS)
@pytest.mark.parametrize("fmt", tables.FORMATS)
def test_every_kind_renders_in_every_format(result, kind, fmt):
    text = tables.render_all(tables.tables_of(kind, [result, result], n=3), fmt)
    if fmt == "rst":
        doctree = parse_rst(text)
        footnotes = list(doctree.findall(nodes.footnote))
        assert len(footnotes) == 2 and all(f["backrefs"] for f in footnotes)
    elif fmt == "markdown":
        assert "[^1]: " in text and "[^2]: " in text
    elif fmt == "csv":
        assert text.count("# [") == 2
    else:
        assert text.count(r"\begin{tabular}") == (1 if kind in ("summary", "kinds", "length") else 2)


# -- the kinds table --------------------------------------------------------------------------

def test_kinds_table_holds_the_stored_counts(result, stdlib_subset_scan_dir):
    occurrences = pd.read_parquet(os.path.join(stdlib_subset_scan_dir, "occurrences.parquet"))
    files = pd.read_parquet(os.path.join(stdlib_subset_scan_dir, "files.parquet"))
    functions = pd.read_parquet(os.path.join(stdlib_subset_scan_dir, "functions.parquet"))
    kinds = occurrences["kind"].value_counts()
    expected = {
        "f(x=x) (the headline)": kinds["call"],
        "f(x=obj.x)": kinds["attribute"],
        "of which f(x=self.x)": int((occurrences["base_kind"] == "self").sum()),
        "near miss f(x=_x)": kinds.get("near_miss", 0),
        '{"x": x} dict entries': kinds["dict_literal"],
        "calls with keyword arguments only": int(files["calls_keyword_only"].sum()),
        "function definitions and lambdas": len(functions),
        "keyword-only parameters": int(functions["keyword_only"].sum()),
    }
    doctree = parse_rst(tables.render(tables.kinds_table([result, result]), "rst"))
    (table,) = doctree.findall(nodes.table)
    cells = {row[0]: row[1:] for row in table_cells(table)}
    assert cells["Pattern"][:2] == ["stdlib-subset", "Share"]
    for label, count in expected.items():
        assert cells[label][0] == format(int(count), ","), label
        assert cells[label][2] == cells[label][0]  # the second scan's column
    keywords = int(files[files["status"] == "ok"]["keywords"].sum())
    assert cells["f(x=obj.x)"][1] == "%.2f%%" % (100.0 * kinds["attribute"] / keywords)
    assert cells["f(x=obj.x)"][-1] == "keyword arguments"


def test_cli_kinds_flag(stdlib_subset_scan_dir, capsys):
    assert main(["table", "--kinds", "--format", "csv", stdlib_subset_scan_dir]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert "f(x=obj.x)" in list(frame["label"])


# -- punstats table ---------------------------------------------------------------------------

def test_cli_table_prints_the_table(stdlib_subset_scan_dir, result, capsys):
    assert main(["table", stdlib_subset_scan_dir]) == 0
    assert capsys.readouterr().out == tables.render_all([tables.summary_table([result])], "rst")
    assert main(["table", stdlib_subset_scan_dir, "--by", "length", "--format", "csv",
                 "--test-rule", "regex:^unittest/", "--long", "8"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out), index_col="name_len")
    again = result.with_rules("regex:^unittest/", long_threshold=8)
    assert frame.loc[8, "at_least"] == again.summary["long"]
    assert frame.loc[8, "at_least_nontest"] == again.summary["long_nontest"]
    assert set(frame["long_threshold"]) == {8} and set(frame["test_rule"]) == {"regex:^unittest/"}


def test_cli_table_writes_a_file(stdlib_subset_scan_dir, tmp_path, capsys):
    target = tmp_path / "table.tex"
    assert main(["table", stdlib_subset_scan_dir, "--format", "latex", "-o", str(target)]) == 0
    assert capsys.readouterr().out == ""
    assert target.read_text(encoding="utf-8").count(r"\end{tabular}") == 1


def test_cli_table_usage_errors(stdlib_subset_scan_dir, result, tmp_path, capsys):
    not_a_scan = tmp_path / "empty"
    not_a_scan.mkdir()
    assert main(["table", str(not_a_scan)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("punstats: error: ") and "is not a stored scan" in err and err.count("\n") == 1

    result.with_rules(long_threshold=12).save(str(tmp_path / "long12"))
    assert main(["table", stdlib_subset_scan_dir, str(tmp_path / "long12")]) == 2
    err = capsys.readouterr().err
    assert "different long thresholds" in err and "--long N" in err and err.count("\n") == 1
    assert main(["table", stdlib_subset_scan_dir, str(tmp_path / "long12"), "--long", "12"]) == 0
    capsys.readouterr()

    assert main(["table", stdlib_subset_scan_dir, "--test-rule", "regex:("]) == 2
    assert main(["table", stdlib_subset_scan_dir, "--format", "html"]) == 2
    assert all(line.startswith("punstats: error: ") for line in capsys.readouterr().err.splitlines())


def test_a_corpus_without_any_f_x_x_still_tabulates(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.py").write_text("print(1, sep='')\n")
    (tmp_path / "bad.py").write_text("def f(:\n")
    empty = punstats.scan(str(tmp_path), jobs=1)
    for kind in tables.KINDS:
        parse_rst(tables.render_all(tables.tables_of(kind, [empty]), "rst"))
    rows = table_cells(next(parse_rst(tables.render(tables.summary_table([empty]), "rst")).findall(nodes.table)))
    assert [row[1] for row in rows[1:]] == ["0", "0.00%", "0.00% to 0.00%", "0.00%", "0.00% to 0.00%", "1", "0", "0",
                                            "0", "1", "1"]


def test_cli_table_rows_choose_and_order_the_summary(stdlib_subset_scan_dir, result, capsys):
    assert main(["table", stdlib_subset_scan_dir, "--rows", "punnable_nontest_pct,punnable", "--format", "csv"]) == 0
    frame = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert list(frame.columns[:5]) == ["scan", "punnable_nontest_pct", "punnable_nontest_pct_low",
                                       "punnable_nontest_pct_high", "punnable"]  # an interval under its share
    assert frame.at[0, "punnable"] == result.summary["punnable"]
    assert main(["table", stdlib_subset_scan_dir, "--rows", "punnable_nontest_pct,punnable"]) == 0
    rows = table_cells(next(parse_rst(capsys.readouterr().out).findall(nodes.table)))
    assert [row[0] for row in rows[1:]] == ["% of keyword arguments outside tests", INTERVAL_LABEL,
                                            "Keyword arguments of the form f(x=x)"]
    assert main(["table", stdlib_subset_scan_dir, "--rows", "punnable,nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("punstats: error: unknown row 'nope' (choose from punnable,") and err.count("\n") == 1


@pytest.mark.parametrize("other, said", [(["--kinds"], "--kinds"), (["--by", "length"], "--by length")])
def test_cli_table_rows_with_another_table_is_refused(stdlib_subset_scan_dir, tmp_path, capsys, other, said):
    out = tmp_path / "table.rst"
    assert main(["table", stdlib_subset_scan_dir, "--rows", "punnable", *other, "-o", str(out)]) == 2
    assert capsys.readouterr().err == ("punstats: error: --rows chooses the rows of the summary table, not of "
                                       "%s: drop one of them\n" % said)
    assert not out.exists()


def test_cli_table_links_instead_of_footnotes(stdlib_subset_scan_dir, result, capsys):
    assert main(["table", stdlib_subset_scan_dir, "--format", "markdown", "--links"]) == 0
    out = capsys.readouterr().out
    assert "[^" not in out
    assert out.splitlines()[0].split("|")[2].strip() == "stdlib-subset"  # a local directory: nothing to link to
    assert "*" + tables.provenance(result.summary).replace("_", "\\_").replace("#", "\\#") + "*" in out
    pypi = dataclasses.replace(result, summary=dict(result.summary, source="pypi:attrs==23.2.0", corpus="attrs"))
    text = tables.render(tables.summary_table([pypi]), "markdown", links=True)
    assert "[attrs](https://pypi.org/project/attrs/23.2.0/)" in text.splitlines()[0]


def test_cli_scan_name_sets_the_column_name(stdlib_subset_dir, tmp_path, capsys):
    out = tmp_path / "scan"
    assert main(["scan", os.path.join(stdlib_subset_dir, "json"), "--name", "JSON module", "-o", str(out),
                 "-q", "--no-cache"]) == 0
    capsys.readouterr()
    assert main(["table", str(out), "--format", "csv"]) == 0
    assert list(pd.read_csv(io.StringIO(capsys.readouterr().out))["scan"]) == ["JSON module"]
    assert main(["scan", stdlib_subset_dir, stdlib_subset_dir, "--name", "one", "--no-save", "-q"]) == 2
    assert capsys.readouterr().err == "punstats: error: give --name once per PATH (1 names for 2 paths)\n"


def test_length_table_of_several_scans_has_one_column_pair_per_scan(result, stdlib_subset_scan_dir):
    json_only = punstats.scan(os.path.join(result.summary["root"], "json"), jobs=1)
    [table] = tables.tables_of("length", [result, json_only])
    frame = pd.read_csv(io.StringIO(tables.render(table, "csv")), comment="#", index_col=0)
    assert list(frame.columns) == ["stdlib-subset", "outside tests", "json", "outside tests.1"]
    calls = pd.read_parquet(os.path.join(stdlib_subset_scan_dir, "occurrences.parquet"))
    calls = calls[calls["kind"] == "call"]
    outside = calls[~calls["in_test"]]
    for n in (1, 5, 10, 20):
        label = ">= %d" % n + (" (long)" if n == 10 else "")
        assert frame.loc[label, "stdlib-subset"] == round(100 * (calls["name_len"] >= n).mean(), 2)
        assert frame.loc[label, "outside tests"] == round(100 * (outside["name_len"] >= n).mean(), 2)
    assert frame.loc[">= 1", "json"] == 100.0


def test_cli_csv_loads_with_plain_read_csv_typed_and_tidy(stdlib_subset_scan_dir, result, tmp_path, capsys):
    json_dir = str(tmp_path / "json")
    punstats.scan(os.path.join(result.summary["root"], "json"), jobs=1).save(json_dir)
    assert main(["table", stdlib_subset_scan_dir, json_dir, "--format", "csv"]) == 0
    text = capsys.readouterr().out
    assert not any(line.startswith("#") for line in text.splitlines())
    frame = pd.read_csv(io.StringIO(text))
    assert list(frame["scan"]) == ["stdlib-subset", "json"]
    assert str(frame["punnable"].dtype) == "int64" and str(frame["punnable_nontest_pct"].dtype) == "float64"
    assert frame.at[0, "punnable"] == result.summary["punnable"]
    assert frame.at[0, "punnable_pct"] == pytest.approx(result.summary["punnable_pct"])
    assert frame.at[0, "python"] == "%s %s" % (result.summary["python_implementation"], result.summary["python"])
    assert set(frame["test_rule"]) == {"components"}

    assert main(["table", stdlib_subset_scan_dir, json_dir, "--kinds", "--format", "csv"]) == 0
    text = capsys.readouterr().out
    kinds = pd.read_csv(io.StringIO(text))
    assert text.count("scan,pattern") == 1 and len(set(kinds.columns)) == len(kinds.columns)
    assert len(kinds) == 2 * len(KINDS)  # every row of the registry, per scan
    call = kinds[(kinds["scan"] == "stdlib-subset") & (kinds["pattern"] == "call")].iloc[0]
    assert call["count"] == result.summary["punnable"] and str(kinds["count"].dtype) == "int64"

    for kind, key in (("length", "name_len"), ("identifier", "identifier"), ("directory", "directory")):
        assert main(["table", stdlib_subset_scan_dir, json_dir, "--by", kind, "--format", "csv"]) == 0
        text = capsys.readouterr().out
        long = pd.read_csv(io.StringIO(text))
        assert text.count("\nscan,") == 0 and list(long.columns[:2]) == ["scan", key]
        assert set(long["scan"]) == {"stdlib-subset", "json"}
    lengths = pd.read_csv(io.StringIO(
        tidy.to_csv(tidy.frame_of("length", [result], 20))))
    assert int(lengths["total"].sum()) == result.summary["punnable"] and str(lengths["total"].dtype) == "int64"


def test_console_summary_shows_lines_and_lines_of_code_in_one_row(result):
    from punstats.present import console
    summary = result.summary
    row = next(text for text in console.format_summary(summary).splitlines() if text.startswith("lines "))
    assert row.split()[1:] == [format(summary["lines"], ","), "(code", format(summary["code_lines"], ",") + ")"]
    older = {k: v for k, v in summary.items() if k != "code_lines"}
    row = next(text for text in console.format_summary(older).splitlines() if text.startswith("lines "))
    assert row.split()[1:] == [format(summary["lines"], ",")]


def test_a_scan_s_intervals_are_over_its_files_as_seed_and_resamples_ask(stdlib_subset_scan_dir, result, capsys):
    from punstats.model.intervals import Bootstrap
    assert main(["table", stdlib_subset_scan_dir, "--format", "markdown", "--seed", "5", "--resamples", "100"]) == 0
    out = capsys.readouterr().out
    method = Bootstrap(100, 5, "files")
    got = scan_intervals(result.files, method)["punnable_nontest_pct"]
    line = next(line for line in out.splitlines() if "outside tests" in line and "95%" not in line)
    following = out.splitlines()[out.splitlines().index(line) + 1]
    assert following.split("|")[1:3] == [" 95% interval (bootstrap over files, 100 resamples, seed 5) ",
                                         " %s " % _interval(got).rjust(len(following.split("|")[2]) - 2)]
    assert got != scan_intervals(result.files)["punnable_nontest_pct"]  # the default: 2,000 resamples, seed 0
