"""The labels sheet and the counts per label (present/labels.py): every occurrence of a kind
with its source around it (or why it cannot be shown), its Markdown form, samples, labels kept
by key, counts per label in and outside tests in every table format, and the report's section."""
import os
import re
import shutil

import pytest

import punstats
from punstats.present import labels as sheets
from punstats.present import report, tables, tidy
from punstats.store import labels


@pytest.fixture
def scanned(tmp_path):
    root = tmp_path / "src"
    (root / "tests").mkdir(parents=True)
    (root / "a.py").write_text("import os\n\n\ndef f(x):\n    return g(x=x)\n")
    (root / "tests" / "test_b.py").write_text("k(w=w)\nk(v=v)\n")
    (root / "c.py").write_text("s = 'b`````b'\nh(q=q)\n")
    out = str(tmp_path / "out")
    punstats.scan(str(root), output=out, jobs=1)
    return str(root), out


def read(out, kind="call"):
    return labels.read_sheet(os.path.join(out, labels.csv_name(kind)))


def set_labels(out, chosen, kind="call"):
    rows = read(out, kind)
    for row in rows:
        row["label"] = chosen.get((row["path"], int(row["line"])), row["label"])
    labels.write_sheet(os.path.join(out, labels.csv_name(kind)), rows)


#: kind -> what its occurrence's first line holds, given its name
SHAPES = {"call": r"\b{0}\s*=\s*{0}\b", "dict_literal": r"""['"]{0}['"]\s*:\s*{0}\b"""}


@pytest.mark.parametrize("kind", sorted(SHAPES))
def test_the_sheet_holds_every_occurrence_of_real_code_with_its_line(stdlib_subset_scan_dir, tmp_path, kind):
    """Independent check: each marked source line, read again from the corpus, holds the pattern."""
    out = str(tmp_path / "scan")
    shutil.copytree(stdlib_subset_scan_dir, out)
    check_sheet(out, kind)


@pytest.mark.slow
def test_the_sheet_of_the_whole_standard_library(tmp_path):
    out = str(tmp_path / "stdlib")
    punstats.scan(output=out)
    check_sheet(out, "call")


def check_sheet(out, kind):
    summary = punstats.load(out).summary
    written = sheets.write_labels(out, kind, context=1)
    rows = read(out, kind)
    assert written.rows == written.occurrences == len(rows) == summary["kinds"][kind] > 5
    if kind == "call":
        assert sum(row["in_test"] == "False" for row in rows) == summary["punnable_nontest"]
    for row in rows:
        with open(os.path.join(summary["root"], row["path"]), encoding="utf-8") as handle:
            line = handle.read().split("\n")[int(row["line"]) - 1]
        marked = [text for text in row["source"].split("\n") if re.match(r"\s*%s > " % row["line"], text)]
        assert marked and line.expandtabs(8) in marked[0]
        assert re.search(SHAPES[kind].format(re.escape(row["name"])), line), row


def test_each_row_shows_its_context_and_the_markdown_each_hit(scanned):
    _, out = scanned
    sheets.write_labels(out, "call", context=2)
    rows = {(r["path"], r["line"]): r for r in read(out)}
    assert rows[("a.py", "5")]["source"] == "    3 | \n    4 | def f(x):\n    5 >     return g(x=x)"
    assert rows[("tests/test_b.py", "1")]["in_test"] == "True" and rows[("a.py", "5")]["in_test"] == "False"
    text = open(os.path.join(out, "labels-call.md")).read()
    assert len(re.findall(r"^## \d+\. ", text, re.M)) == 4 and text.count("label: (none yet)") == 4
    assert "``````python\n    1 | s = 'b`````b'\n    2 > h(q=q)\n``````" in text  # a fence longer than any run


def test_labels_entered_are_kept_when_the_sheet_is_written_again(scanned):
    _, out = scanned
    sheets.write_labels(out, "call")
    set_labels(out, {("a.py", 5): "correct", ("tests/test_b.py", 2): "could be correct"})
    written = sheets.write_labels(out, "call", context=0)
    assert written.labelled == 2
    got = {(r["path"], r["line"]): r["label"] for r in read(out)}
    assert got[("a.py", "5")] == "correct" and got[("tests/test_b.py", "2")] == "could be correct"
    assert read(out)[0]["source"].count("\n") == 0  # rewritten with the new context
    assert "label: could be correct" in open(os.path.join(out, "labels-call.md")).read()


def saving_meanwhile(monkeypatch, out, times):
    """Make the reader save the sheet (a new label on a.py line 5) each time punstats has read it and is
    writing it, ``times`` times; the labels saved."""
    real, saved = labels.sheet_text, []

    def sheet_text(rows, columns=labels.COLUMNS):
        text = real(rows, columns)
        if len(saved) < times and columns == labels.COLUMNS and not saving:
            saving.append(1)
            saved.append("entered meanwhile %d" % len(saved))
            set_labels(out, {("a.py", 5): saved[-1]})
            saving.pop()
        return text
    saving: list = []
    monkeypatch.setattr(labels, "sheet_text", sheet_text)
    return saved


def test_labels_saved_while_the_sheet_is_written_are_merged_never_lost(scanned, monkeypatch):
    _, out = scanned
    sheets.write_labels(out, "call")
    set_labels(out, {("tests/test_b.py", 2): "before"})
    saved = saving_meanwhile(monkeypatch, out, 2)
    written = sheets.write_labels(out, "call", context=0)
    got = {(r["path"], r["line"]): r["label"] for r in read(out)}
    assert saved == ["entered meanwhile 0", "entered meanwhile 1"] and written.labelled == 2
    assert got[("a.py", "5")] == "entered meanwhile 1" and got[("tests/test_b.py", "2")] == "before"
    assert read(out)[0]["source"].count("\n") == 0  # and the sheet is the one asked for


def test_a_sheet_saved_at_every_try_is_left_as_saved_with_one_line(scanned, monkeypatch):
    _, out = scanned
    sheets.write_labels(out, "call")
    saved = saving_meanwhile(monkeypatch, out, sheets.MERGES)
    with pytest.raises(labels.LabelError) as raised:
        sheets.write_labels(out, "call", context=0)
    assert str(raised.value) == ("labels-call.csv changed each of the 5 times punstats wrote it: nothing was "
                                 "written; save it and run punstats label again")
    got = {(r["path"], r["line"]): r["label"] for r in read(out)}
    assert got[("a.py", "5")] == saved[-1] and read(out)[0]["source"].count("\n") > 0
    assert not [n for n in os.listdir(out) if n.endswith(".tmp")]


def test_a_sample_is_drawn_by_seed_and_keeps_the_labelled_rows(scanned):
    _, out = scanned
    first = sheets.write_labels(out, "call", sample=2, seed=7)
    keys = [r["key"] for r in read(out)]
    assert first.rows == 2 and first.occurrences == 4
    set_labels(out, {(r["path"], int(r["line"])): "seen" for r in read(out)})
    again = sheets.write_labels(out, "call", sample=1, seed=8)
    assert set(keys) <= {r["key"] for r in read(out)} and again.labelled == 2
    sheets.write_labels(out, "call", output=os.path.join(out, "..", "other"), sample=2, seed=7)
    assert [r["key"] for r in read(os.path.join(out, "..", "other"))] == keys


def test_source_that_is_gone_or_changed_is_said_in_the_cell(scanned):
    root, out = scanned
    with open(os.path.join(root, "a.py"), "a") as handle:
        handle.write("# later\n")
    sheets.write_labels(out, "call")
    rows = {r["path"]: r["source"] for r in read(out)}
    assert rows["a.py"] == "(source not shown: the file changed since the scan)"
    assert rows["c.py"].endswith("2 > h(q=q)")
    shutil.rmtree(root)
    sheets.write_labels(out, "call")
    assert {r["source"] for r in read(out)} == {
        "(source not shown: the scanned directory is not there any more, e.g. an unpacked archive)"}


def test_a_path_that_leaves_the_root_is_never_read(tmp_path):
    (tmp_path / "root").mkdir()
    (tmp_path / "secret.py").write_text("x = 1\n")
    found = sheets.Sources(str(tmp_path / "root")).lines("../secret.py", "")
    assert found == "(source not shown: the path does not name a file under the scanned directory)"


def test_counts_per_label_in_and_outside_tests_in_every_format(scanned):
    root, out = scanned
    sheets.write_labels(out, "call")
    set_labels(out, {("a.py", 5): "correct", ("tests/test_b.py", 1): "correct", ("tests/test_b.py", 2): "wrong"})
    result = punstats.load(out)
    assert sheets.label_counts(out, result.summary, "call") == [
        ("correct", 1, 1), ("wrong", 0, 1), ("(unlabelled)", 1, 0)]
    table, = tables.tables_of("label", [result], directories=[out])
    for fmt in tables.FORMATS:
        text = tables.render(table, fmt)
        assert "correct" in text and "wrong" in text and "unlabelled" in text, fmt
    frame = tidy.frame_of("label", [result], 10, directories=[out], label_kind="call")
    assert frame[["label", "nontest", "test", "total"]].values.tolist() == [
        ["correct", 1, 1, 2], ["wrong", 0, 1, 1], ["(unlabelled)", 1, 0, 1]]
    relabelled = result.with_rules("none")  # nothing is test code
    assert sheets.label_counts(out, relabelled.summary, "call")[0] == ("correct", 2, 0)


def test_no_labels_is_one_error_and_the_report_has_no_section(scanned):
    _, out = scanned
    result = punstats.load(out)
    with pytest.raises(labels.LabelError, match="^no labels in .*: punstats label DIR --kind NAME writes a sheet"):
        tables.tables_of("label", [result], directories=[out])
    assert "## Labels" not in report.render(result, scan_dirs=out)


def test_the_report_has_a_labels_section_when_the_scan_has_labels(scanned):
    _, out = scanned
    sheets.write_labels(out, "call")
    set_labels(out, {("a.py", 5): "incorrect"})
    text = report.render(punstats.load(out), scan_dirs=out)
    part = text.split("## Labels", 1)[1].split("## Reproduce")[0]
    assert "| incorrect    |        1 |    0 |   1 |" in part
    assert "| (unlabelled) |        1 |    2 |   3 |" in part
    assert ": 1 of 4 labelled (25.00%): 1 incorrect.\n" in part  # the labelled share in words, above its table



def test_label_tables_are_gfm_whatever_a_label_holds(scanned):
    from gfm import check_rendered
    _, out = scanned
    sheets.write_labels(out, "call")
    set_labels(out, {("a.py", 5): "right | wrong", ("tests/test_b.py", 1): "`odd`|"})
    result = punstats.load(out)
    for links in (False, True):
        check_rendered(tables.render_all(tables.tables_of("label", [result], directories=[out]), "markdown",
                                         links=links))
        check_rendered(report.render(result, scan_dirs=out, links=links))
