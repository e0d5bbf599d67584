"""``punstats.present.formats``: every Markdown table punstats writes is a GFM table, a share
of nothing (0 of 0) is n/a in every format, and notes render without footnotes where asked."""
import io
import os

import pandas as pd
import pytest
from gfm import cells, check_rendered
from gfm import tables as markdown_tables

import punstats
from punstats.cli import main
from punstats.model.errors import OptionError
from punstats.present import formats, tables

#: A corpus whose names hold what could break a Markdown table: pipes, backticks, a directory
#: whose files hold no keyword argument (its share is 0 of 0), tests.
WEIRD = {
    "we|ird/m.py": 'def f(x=1, **k):\n    return x\n(a | b)(x=x)\n"a|`b".format(name=name, x=x)\nf(x=x, y=z)\n',
    "tests/test_m.py": "g(long_identifier_name=long_identifier_name)\n",
    "plain/p.py": "print(1)\n",
    "top.py": "dict(x=x)\nd = {'x': x}\n",
}


def _scan(root, files, out):
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    assert main(["scan", str(root), "-o", str(out), "-q", "-j", "1"]) == 0
    return str(out)


@pytest.fixture(scope="module")
def scans(tmp_path_factory):
    """(a scan of ``WEIRD``, a scan of an empty directory): stored directories."""
    base = tmp_path_factory.mktemp("formats")
    (base / "empty").mkdir()
    return (_scan(base / "weird", WEIRD, base / "data-weird"), _scan(base / "empty", {}, base / "data-empty"))


def _table(capsys, *argv):
    capsys.readouterr()
    assert main(["table", *argv]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("by", [kind for kind in tables.KINDS])
@pytest.mark.parametrize("extra", [[], ["--links"]])
def test_every_markdown_table_is_gfm(scans, capsys, by, extra):
    for chosen in ([scans[0]], [scans[1]], list(scans)):
        text = _table(capsys, *chosen, "--by", by, "--format", "markdown", *extra)
        assert markdown_tables(text)
        check_rendered(text)


def test_every_markdown_table_is_gfm_with_inline_notes(scans):
    results = [punstats.load(d) for d in scans]
    for kind in tables.KINDS:
        text = tables.render_all(tables.tables_of(kind, results), "markdown", note_style="inline")
        assert "[^" not in text
        check_rendered(text)


def test_the_check_catches_a_broken_delimiter_row():
    with pytest.raises(AssertionError, match="delimiter row"):
        check_rendered("| Scan | a | b |\n| --- | --- || --- | --- |\n| x | 1 | 2 |\n")
    with pytest.raises(AssertionError, match="cells, header has"):
        check_rendered("| Scan | a |\n| --- | --- |\n| x | a|b |\n")
    assert cells("| `a\\|b` | c |") == ["`a\\|b`", "c"]


def _row(text, label):
    """The cells after the label of the Markdown row ``label``."""
    return next(cells(line)[1:] for line in text.splitlines() if line.startswith("| " + label))


def test_a_share_of_nothing_is_na_in_every_format(scans, capsys):
    weird = punstats.load(scans[0]).summary
    markdown = _table(capsys, *scans, "--format", "markdown")
    assert _row(markdown, "% of all keyword arguments") == ["%.2f%%" % weird["punnable_pct"], "n/a"]
    assert _row(markdown, "% of keyword arguments outside tests")[1] == "n/a"
    rst = _table(capsys, *scans)
    assert rst.count(" n/a") == 4 and " 0.00%" not in rst  # the shares and their intervals
    latex = _table(capsys, *scans, "--format", "latex")
    assert "\\%% of all keyword arguments & %.2f\\%% & n/a \\\\" % weird["punnable_pct"] in latex
    frame = pd.read_csv(io.StringIO(_table(capsys, *scans, "--format", "csv")))
    assert frame["punnable_pct"].iloc[0] == weird["punnable_pct"] and pd.isna(frame["punnable_pct"].iloc[1])
    assert frame["keywords"].tolist() == [weird["keywords"], 0]
    plain = formats.render(tables.summary_table([punstats.load(scans[1])]), "csv")
    assert "% of all keyword arguments,\n" in plain  # the csv renderer: an empty cell too


def test_a_directory_without_keyword_arguments_has_no_share(scans, capsys):
    text = _table(capsys, scans[0], "--by", "directory", "--format", "markdown")
    assert _row(text, "`plain/`") == ["1", "0", "0", "0", "0", "n/a"]
    assert _row(text, "`top.py`")[-1] == "100.00%"  # dict(x=x): its one keyword argument
    empty = _table(capsys, scans[1], "--by", "length", "--format", "markdown")
    assert _row(empty, "1 ")[-1] == "n/a"


def test_kinds_shares_of_nothing_are_na(scans, capsys):
    text = _table(capsys, scans[1], "--kinds", "--format", "markdown")
    assert _row(text, "`f(x=x)` (the headline)")[:2] == ["0", "n/a"]


def test_scanning_nothing_warns_and_stores_a_result(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("no code here\n")
    assert main(["scan", str(tmp_path / "empty"), "-o", str(tmp_path / "out"), "-q"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ("punstats: warning: no Python files found in %s (files ending in .py); every "
                            "share is n/a\n" % (tmp_path / "empty"))
    assert "punnable f(x=x)       0   (n/a of keyword arguments, in 0 calls)" in captured.out
    assert "(n/a of the 0 keyword arguments outside tests" in captured.out
    assert punstats.load(str(tmp_path / "out")).summary["files"] == 0
    (tmp_path / "empty" / ".venv").mkdir()
    (tmp_path / "empty" / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (tmp_path / "empty" / ".venv" / "m.py").write_text("f(x=x)\n")
    assert main(["scan", str(tmp_path / "empty"), "--no-save", "--json", "-q"]) == 0
    err = capsys.readouterr().err  # also with --json; and what was left out is said
    assert err.startswith("punstats: warning: no Python files found in ") and "skipped directories: " in err


def test_figures_label_a_share_of_nothing_na(scans):
    from punstats.present import plots
    results = [punstats.load(d) for d in scans]
    texts = [t.get_text() for t in plots.projects(results).figure.axes[0].texts]
    assert texts[0].startswith("%.2f%%\n" % results[0].summary["punnable_pct"])
    assert [t.split("\n")[0] for t in texts] == ["%.2f%%" % results[0].summary["punnable_pct"], "n/a",
                                                 "%.2f%%" % results[0].summary["punnable_nontest_pct"], "n/a"]
    kinds = [t.get_text() for t in plots.kinds(results[1:]).figure.axes[0].texts]
    assert kinds and set(kinds) == {"n/a"}
    said = [t.get_text() for t in plots.length_histogram(results[1]).figure.axes[0].texts]
    assert said == ["empty has no Python files"]


def test_inline_notes_are_superscripts_and_a_numbered_list(scans):
    results = [punstats.load(d) for d in scans]
    table = tables.summary_table(results)
    text = table._repr_markdown_()
    assert "[^" not in text
    header = cells(text.splitlines()[0])
    assert header[1].endswith("<sup>1</sup>") and header[2].endswith("<sup>2</sup>")
    notes = text.rstrip("\n").splitlines()[-2:]
    assert notes[0].startswith("1. ") and notes[1].startswith("2. ")
    assert notes[0][3:] == formats.markdown_text(table.notes[0])
    assert "[^1]" in tables.render(table, "markdown")  # reports and `table` keep GFM footnotes
    running = tables.render_all(tables.tables_of("identifier", results), "markdown", note_style="inline")
    assert "<sup>2</sup>" in running and "\n2. " in running  # numbers run on across tables
    with pytest.raises(OptionError, match="unknown note style 'endnotes'"):
        tables.render(table, "markdown", note_style="endnotes")


def test_inline_notes_render_as_superscripts_and_a_list(scans):
    markdown_it = pytest.importorskip("markdown_it")
    html = markdown_it.MarkdownIt("commonmark", {"html": True}).enable("table").render(
        tables.summary_table([punstats.load(d) for d in scans])._repr_markdown_())
    assert "<sup>1</sup></th>" in html and '<ol start="1">' not in html and "<ol>\n<li>" in html
    assert "[^" not in html and os.sep + "tmp" not in html.split("<ol>")[0]


def test_a_column_of_numbers_is_right_aligned_with_blank_and_n_a_cells_in_it():
    """A project not scanned (blank cells) or a share of nothing (n/a) among numbers keeps the column
    a column of numbers; a column of words, or of blanks only, is not one."""
    Label, Percent = formats.Label, formats.Percent
    table = formats.Table(header=(Label("name"), Label("n"), Label("share"), Label("note"), Label("empty")),
                          rows=(("a", 1, Percent(10.0), Label("x"), Label("")),
                                ("b", Label(""), Label("n/a"), Label(""), Label("")),
                                ("c", 1234, Percent(float("nan")), Label("n/a"), Label(""))))
    rule = formats.render(table, "markdown").splitlines()[1]
    assert [cell.strip().endswith(":") for cell in rule.strip("|").split("|")] == [False, True, True, False, False]
    assert "| b    |       |    n/a |" in formats.render(table, "markdown")


def test_a_rate_is_a_number_in_every_format_and_n_a_when_there_is_nothing_to_divide_by():
    table = formats.Table(header=(formats.Label("name"), formats.Label("per million lines")),
                          rows=(("a", formats.Rate(18784.0912)), ("b", formats.Rate(float("nan")))))
    markdown = formats.render(table, "markdown").splitlines()
    assert markdown[1].endswith("-: |") and markdown[2].endswith(" 18,784 |") and markdown[3].endswith(" n/a |")
    assert formats.render(table, "csv").splitlines()[1:] == ["a,18784.09", "b,"]  # CSV: a plain number, n/a empty
    assert "{lr}" in formats.render(table, "latex") and "18,784" in formats.render(table, "rst")


@pytest.mark.parametrize("value, text", [
    (52693.61, "52,694"), (4251.57, "4,252"), (999.5, "1,000"), (100.0, "100"), (99.96, "100"), (99.94, "99.9"),
    (18.784, "18.8"), (4.2512, "4.25"), (9.996, "10.0"), (0.04561, "0.0456"), (0.0, "0"), (-12.34, "-12.3"),
    (float("nan"), "n/a")])
def test_a_rate_prints_three_significant_figures_or_a_whole_number(value, text):
    assert formats.rate_text(value) == text
    assert formats.render(formats.Table(header=(formats.Label("r"),), rows=((formats.Rate(value),),)),
                          "markdown").splitlines()[2].strip("| ") == text
