"""``punstats label`` and ``punstats table --by label`` (cli/label.py, cli/evidence.py): the
sheet written beside the scan, labels kept over a re-run and a re-scan, one line and exit 2
for a sheet that does not belong to its scan (nothing else lost)."""
import csv
import io
import os

import pytest

from punstats.cli import main


@pytest.fixture
def scanned(tmp_path, capsys):
    root = tmp_path / "proj"
    (root / "tests").mkdir(parents=True)
    (root / "m.py").write_text("def f(x):\n    return g(x=x)\n\n\nh(a=a)\n")
    (root / "tests" / "test_m.py").write_text("run(value=value)\n")
    out = str(tmp_path / "scan")
    assert main(["scan", str(root), "-o", out, "-q", "-j", "1"]) == 0
    capsys.readouterr()
    return root, out


def run(capsys, *argv):
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def edit(path, labels):
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["label"] = labels.get((row["path"], row["line"]), row["label"])
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    with open(path, "w", newline="") as handle:
        handle.write(out.getvalue())


def test_label_writes_the_sheet_and_keeps_labels_over_a_rerun_and_a_rescan(scanned, capsys):
    root, out = scanned
    status, stdout, _ = run(capsys, "label", out, "--kind", "call")
    sheet = os.path.join(out, "labels-call.csv")
    assert status == 0 and stdout.splitlines() == [
        "%s: 3 of 3 occurrences of call, 0 labelled" % sheet, os.path.join(out, "labels-call.md")]
    edit(sheet, {("m.py", "2"): "correct", ("m.py", "5"): "incorrect", ("tests/test_m.py", "1"): "correct"})
    status, stdout, _ = run(capsys, "label", out, "--kind", "call", "--context", "0")
    assert status == 0 and "3 labelled" in stdout
    (root / "tests" / "test_m.py").write_text("run(value=value)\n# edited\n")
    status, stdout, _ = run(capsys, "scan", str(root), "-o", out, "-q", "-j", "1")
    assert status == 0
    assert ("call: 2 labels carried into the new scan (in 2 rows), 1 set aside in labels-call.stale.csv "
            "(their files changed)" in stdout)
    status, stdout, _ = run(capsys, "table", out, "--by", "label", "--format", "csv")
    assert status == 0
    got = [line.split(",")[1:6] for line in stdout.splitlines()[1:]]
    assert got == [["call", "correct", "1", "0", "1"], ["call", "incorrect", "1", "0", "1"],
                   ["call", "(unlabelled)", "0", "1", "1"]]


def test_table_by_label_in_every_format_and_one_kind(scanned, capsys):
    _, out = scanned
    run(capsys, "label", out, "--kind", "call")
    edit(os.path.join(out, "labels-call.csv"), {("m.py", "2"): "ok"})
    for fmt in ("rst", "markdown", "latex", "csv"):
        status, stdout, err = run(capsys, "table", out, "--by", "label", "--kind", "call", "--format", fmt)
        assert status == 0 and "ok" in stdout and "unlabelled" in stdout, (fmt, err)
    status, _, err = run(capsys, "table", out, "--by", "label", "--kind", "class")
    assert status == 0, err  # a kind with no sheet: every occurrence unlabelled


def test_a_sheet_with_a_foreign_key_is_one_line_exit_2_and_nothing_is_lost(scanned, capsys):
    _, out = scanned
    run(capsys, "label", out, "--kind", "call")
    sheet = os.path.join(out, "labels-call.csv")
    edit(sheet, {("m.py", "2"): "correct"})
    with open(sheet, "a") as handle:
        handle.write("feedfacefeedface,m.py,9,0,9,1,False,q,00,wrong,\n")
    before = {name: open(os.path.join(out, name), "rb").read() for name in os.listdir(out)}
    expected = ("punstats: error: labels-call.csv row 5: key 'feedfacefeedface' is not an occurrence of kind "
                "call in this scan (fix or remove the row)\n")
    for argv in (["label", out, "--kind", "call"], ["table", out, "--by", "label"],
                 ["report", out, "--no-figures", "-o", os.path.join(out, "..", "r.md")]):
        status, stdout, err = run(capsys, *argv)
        assert (status, stdout, err) == (2, "", expected), argv
    assert {name: open(os.path.join(out, name), "rb").read() for name in os.listdir(out)} == before


@pytest.mark.parametrize("argv, error", [
    (["label", "{out}", "--kind", "nope"], "unknown kind 'nope'; {out} holds hits of call, attribute, near_miss, "
                                           "dict_literal, class"),
    (["label", "{out}", "--kind", "cal"], "unknown kind 'cal' (did you mean call?); {out} holds hits of call, "
                                          "attribute, near_miss, dict_literal, class"),
    # a count has no places: it wrote an empty sheet
    (["label", "{out}", "--kind", "calls_mixed"], "calls_mixed is a count, not stored as occurrences (no places to "
                                                  "show); {out} holds hits of call, attribute, near_miss, "
                                                  "dict_literal, class"),
    # table --by label --kind of a kind the scan does not store printed an empty table
    (["table", "{out}", "--by", "label", "--kind", "cal"], "unknown kind 'cal' (did you mean call?); {out} holds "
                                                           "hits of call, attribute, near_miss, dict_literal, class"),
    (["table", "{out}", "--by", "label", "--kind", "calls_mixed"], "calls_mixed is a count, not stored as "
                                                                   "occurrences (no places to show); {out} holds "
                                                                   "hits of call, attribute, near_miss, "
                                                                   "dict_literal, class"),
    (["label", "{out}", "--kind", "../x"], "'../x' is not an occurrence kind (kinds are identifiers such as call)"),
    (["label", "{out}", "--kind", "call", "--context", "-1"],
     "argument --context: expected 0 to 100 lines, got -1"),
    (["table", "{out}", "--by", "label"], "no labels in {out}: punstats label DIR --kind NAME writes a sheet to fill"),
    (["table", "{out}", "--kind", "call", "--by", "length"],
     "--kind chooses the kind of the summary table, or with --by label the labels of one kind: drop --by length"),
    (["label", "{out}", "--kind", "call", "--seed", "3"],  # issue 27: the seed was ignored
     "--seed 3 draws the sample of --sample N: give --sample N too, or drop --seed"),
])
def test_usage_errors_are_one_line(scanned, capsys, argv, error):
    _, out = scanned
    status, stdout, err = run(capsys, *[a.format(out=out) for a in argv])
    assert (status, stdout, err) == (2, "", "punstats: error: %s\n" % error.format(out=out))
    assert sorted(os.listdir(out)) == ["files.parquet", "functions.parquet", "occurrences.parquet", "summary.json"]


def test_label_of_a_directory_that_is_no_scan_is_one_line(tmp_path, capsys):
    status, _, err = run(capsys, "label", str(tmp_path), "--kind", "call")
    assert status == 2 and err.count("\n") == 1 and "is not a stored scan" in err
    assert os.listdir(tmp_path) == []


def test_without_kind_the_sheet_is_of_the_scan_s_one_pattern_else_call(tmp_path, capsys):
    """``--kind`` was required of ``label`` alone; it now defaults as every command's does."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "m.py").write_text("def f():\n    try:\n        g(x=x)\n    finally:\n        return 1\n")
    for name, patterns in (("plain", []), ("one", ["--pattern", "punstats.patterns.return_in_finally"])):
        out = str(tmp_path / name)
        assert main(["scan", str(tmp_path / "src"), "-o", out, "-q", *patterns]) == 0
        capsys.readouterr()
        status, stdout, _ = run(capsys, "label", out)
        kind = "return_in_finally" if patterns else "call"
        assert status == 0 and stdout.startswith("%s: 1 of 1 occurrences of %s" % (
            os.path.join(out, "labels-%s.csv" % kind), kind))
