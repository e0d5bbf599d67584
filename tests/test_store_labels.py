"""Labels stored beside a scan (store/labels.py): keys stable while a file is unchanged,
a sheet checked against its scan, labels carried into a re-scan or set aside as stale,
and a stored scan holding labels still replaceable (and nothing else widened)."""
import os

import pytest

import punstats
from punstats.store import labels, places, staging


def corpus(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return str(root)


FILES = {"a.py": "f(x=x)\ng(y=y)\n", "b.py": "h(z=z)\n", "tests/test_c.py": "k(w=w)\n"}


@pytest.fixture
def scanned(tmp_path):
    root = corpus(tmp_path / "src", FILES)
    out = str(tmp_path / "out")
    punstats.scan(root, output=out, jobs=1)
    return root, out


def label_all(out, kind="call"):
    """Give every occurrence of ``kind`` the label ``L:<path>:<line>``; the rows written."""
    rows = [dict(o, label="L:%s:%d" % (o["path"], o["line"])) for o in labels.occurrences_of(out, kind)]
    labels.write_sheet(os.path.join(out, labels.csv_name(kind)), rows)
    return rows


def sheet(out, name):
    return {row["key"]: row["label"] for row in labels.read_sheet(os.path.join(out, name))}


def test_keys_are_stable_for_an_unchanged_file_and_differ_by_path_and_content(scanned, tmp_path):
    root, out = scanned
    first = {(o["path"], o["line"]): o["key"] for o in labels.occurrences_of(out, "call")}
    assert len(first) == 4 and len(set(first.values())) == 4
    punstats.scan(root, output=out, jobs=1)
    assert {(o["path"], o["line"]): o["key"] for o in labels.occurrences_of(out, "call")} == first
    copy = corpus(tmp_path / "copy", {"b2.py": FILES["b.py"], "a.py": "f(x=x)\ng(y=y)\n\n"})
    punstats.scan(copy, output=str(tmp_path / "copy-out"), jobs=1)
    other = {o["key"] for o in labels.occurrences_of(str(tmp_path / "copy-out"), "call")}
    assert not other & set(first.values())  # same text elsewhere, or a changed file: other keys


def test_a_rescan_carries_the_labels_of_unchanged_files_and_sets_aside_those_of_changed_ones(scanned):
    root, out = scanned
    rows = label_all(out)
    with open(os.path.join(root, "a.py"), "a") as handle:
        handle.write("# changed\n")
    result = punstats.scan(root, output=out, jobs=1)
    assert result.summary["labels_carried"] == {"call": {"carried": 2, "stale": 2, "rows": 2}}
    kept = sheet(out, "labels-call.csv")
    assert sorted(kept.values()) == ["L:b.py:1", "L:tests/test_c.py:1"]
    stale = sheet(out, "labels-call.stale.csv")
    assert sorted(stale.values()) == ["L:a.py:1", "L:a.py:2"]
    assert set(kept) | set(stale) == {row["key"] for row in rows}
    assert os.path.isfile(os.path.join(out, "labels-call.md"))  # rewritten from the carried rows


def test_a_stale_label_comes_back_when_its_file_does(scanned):
    root, out = scanned
    label_all(out)
    original = open(os.path.join(root, "a.py")).read()
    with open(os.path.join(root, "a.py"), "a") as handle:
        handle.write("# changed\n")
    punstats.scan(root, output=out, jobs=1)
    with open(os.path.join(root, "a.py"), "w") as handle:
        handle.write(original)
    result = punstats.scan(root, output=out, jobs=1)
    assert result.summary["labels_carried"] == {"call": {"carried": 4, "stale": 0, "rows": 4}}
    assert len(sheet(out, "labels-call.csv")) == 4
    assert not os.path.exists(os.path.join(out, "labels-call.stale.csv"))


def test_saving_a_result_over_a_labelled_scan_carries_its_labels(scanned):
    root, out = scanned
    label_all(out)
    punstats.scan(root, jobs=1).save(out)
    assert len(sheet(out, "labels-call.csv")) == 4


def test_a_sheet_that_cannot_be_read_stops_the_rescan_and_loses_nothing(scanned):
    root, out = scanned
    path = os.path.join(out, "labels-call.csv")
    with open(path, "w") as handle:
        handle.write("something,else\n1,2\n")
    before = {name: open(os.path.join(out, name), "rb").read() for name in os.listdir(out)}
    with pytest.raises(labels.LabelError, match=r"^labels-call.csv is not a labels sheet: it has no key column$"):
        punstats.scan(root, output=out, jobs=1)
    assert {name: open(os.path.join(out, name), "rb").read() for name in os.listdir(out)} == before


def saving_after_carry(monkeypatch, out, save):
    """Make the reader save the sheet of ``out`` (``save(path)``) once the re-scan has carried its labels."""
    real = labels.carry

    def carry(previous, staged, markdown=None):
        done = real(previous, staged, markdown)
        save(os.path.join(out, "labels-call.csv"))
        return done
    monkeypatch.setattr(labels, "carry", carry)


def relabel(path, label):
    rows = labels.read_sheet(path)
    rows[0]["label"] = label
    labels.write_sheet(path, rows)


@pytest.mark.parametrize("how", ["scan", "save"])
def test_labels_saved_while_a_rescan_is_stored_are_carried_never_lost(scanned, monkeypatch, how):
    root, out = scanned
    first = label_all(out)[0]["key"]
    result = punstats.scan(root, jobs=1) if how == "save" else None
    saving_after_carry(monkeypatch, out, lambda path: relabel(path, "saved meanwhile"))
    if result is None:
        result = punstats.scan(root, output=out, jobs=1)
    else:
        result.save(out)
    assert sheet(out, "labels-call.csv")[first] == "saved meanwhile" and len(sheet(out, "labels-call.csv")) == 4
    assert punstats.load(out).summary["labels_carried"] == {"call": {"carried": 4, "stale": 0, "rows": 4}}
    assert sorted(os.listdir(os.path.dirname(out))) == ["out", "src"]  # the replaced scan removed
    if how == "scan":
        assert result.summary["labels_carried"]["call"]["carried"] == 4


def test_a_sheet_saved_unreadable_while_a_rescan_is_stored_is_kept_as_saved(scanned, monkeypatch):
    root, out = scanned
    label_all(out)
    saved = "key,label\nk0,caf\xe9\n".encode("latin-1")
    saving_after_carry(monkeypatch, out, lambda path: open(path, "wb").write(saved))
    punstats.scan(root, output=out, jobs=1)
    assert open(os.path.join(out, "labels-call.csv"), "rb").read() == saved
    with pytest.raises(labels.LabelError, match="not UTF-8 text"):
        sheet(out, "labels-call.csv")


def test_labels_that_cannot_be_taken_over_keep_the_replaced_scan_and_say_where(scanned, monkeypatch):
    root, out = scanned
    label_all(out)
    saving_after_carry(monkeypatch, out, lambda path: relabel(path, "saved meanwhile"))

    def no_room(*args, **kwargs):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(labels, "carry_saved", no_room)
    with pytest.raises(staging.StoreError) as raised:
        punstats.scan(root, output=out, jobs=1)
    kept = [n for n in os.listdir(os.path.dirname(out)) if n.startswith("out.kept-")]
    assert len(kept) == 1 and str(raised.value).endswith(
        "could not be taken over (No space left on device): that one is kept in %s"
        % os.path.join(os.path.dirname(out), kept[0]))
    assert "saved meanwhile" in sheet(os.path.join(os.path.dirname(out), kept[0], "out"), "labels-call.csv").values()
    assert punstats.load(out).summary["punnable"] == 4  # the new scan is in place


def test_labels_of_names_the_row_of_a_key_that_is_not_the_scans(scanned):
    _, out = scanned
    known = [o["key"] for o in labels.occurrences_of(out, "call")]
    rows = [{"key": known[0], "label": "a"}, {"key": "0123", "label": "b"}]
    with pytest.raises(labels.LabelError) as error:
        labels.labels_of(rows, known, "labels-call.csv", "call")
    assert str(error.value) == ("labels-call.csv row 3: key '0123' is not an occurrence of kind call in this "
                                "scan (fix or remove the row)")
    with pytest.raises(labels.LabelError, match="row 3: key %s is on an earlier row too" % known[0]):
        labels.labels_of([rows[0], rows[0]], known, "labels-call.csv", "call")


@pytest.mark.parametrize("label", ["=SUM(A1)", "-1", "+x", "@here", "plain, with \"quotes\"\nand a line",
                                   "a\rbare CR", "\rfirst", "'=quoted", "''-twice", "'", "\ttab\r\n", "é ü 中"])
def test_a_label_survives_being_written_and_read_again(tmp_path, label):
    path = str(tmp_path / "labels-call.csv")
    labels.write_sheet(path, [{"key": "k", "label": label}])
    assert "\n=" not in open(path).read()  # no cell a spreadsheet takes for a formula
    labels.write_sheet(path, labels.read_sheet(path))
    assert labels.read_sheet(path)[0]["label"] == label


def test_every_cell_of_a_sheet_is_read_back_whole_and_shows_no_control_character(tmp_path):
    path = str(tmp_path / "labels-call.csv")
    row = {"key": "k1", "path": "a\rb/=c\x1b]8;;http://e\x1b\\.py", "name": "\x1b[2J", "label": "ok\x1b[31m\rx",
           "source": "    1 > f(x=x)\n    2 | g()"}
    labels.write_sheet(path, [row, {"key": "k2", "path": "-p.py", "label": "=1+1"}])
    text = open(path, encoding="utf-8", newline="").read()
    assert "\x1b" not in text and text.count("\n") == 4  # header, two rows, the source's line break
    back = labels.read_sheet(path)
    assert [r["key"] for r in back] == ["k1", "k2"] and back[1]["label"] == "=1+1" and back[1]["path"] == "-p.py"
    assert back[0]["path"] == "a\\x0db/=c\\x1b]8;;http://e\\x1b\\.py" and back[0]["name"] == "\\x1b[2J"
    assert back[0]["label"] == "ok\\x1b[31m\rx" and back[0]["source"] == row["source"]


@pytest.mark.parametrize("data, error", [
    (b"key,label\nk1,a\x00b\n", "labels-call.csv: cannot read the labels sheet: it holds a NUL character (line 2); "
                                  "save it as CSV UTF-8"),
    ("key,label\nk1,caf\xe9\n".encode("latin-1"),
     "labels-call.csv: cannot read the labels sheet: not UTF-8 text (byte 16); save it as CSV UTF-8"),
    (b"key,label,label\nk1,a,b\n", "labels-call.csv has 2 label columns: keep one"),
    (b"label\nx\n", "labels-call.csv is not a labels sheet: it has no key column"),
])
def test_a_sheet_that_is_no_utf8_csv_is_one_line_naming_it(tmp_path, data, error):
    path = tmp_path / "labels-call.csv"
    path.write_bytes(data)
    with pytest.raises(labels.LabelError) as raised:
        labels.read_sheet(str(path))
    assert str(raised.value) == error and path.read_bytes() == data


def test_a_sheet_saved_as_utf16_and_blank_rows_are_read(tmp_path):
    path = tmp_path / "labels-call.csv"
    path.write_bytes("key,label\r\nk1,café\r\n,\r\n,,\r\n".encode("utf-16"))
    assert labels.read_sheet(str(path)) == [{"key": "k1", "label": "café"}]


LINKED = "labels-call.csv: cannot read the labels sheet: a symbolic link (keep it a regular file)"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("make, said", [
    (os.mkfifo, "labels-call.csv is not a labels sheet: it is a FIFO (keep it a regular file)"),
    (lambda p: os.symlink(os.path.dirname(p) + ".csv", p), LINKED),
    (lambda p: os.symlink("/dev/zero", p), LINKED),
])
def test_a_sheet_that_is_a_fifo_or_a_link_is_never_read_nor_written_through(scanned, make, said):
    import subprocess
    import sys
    root, out = scanned
    path = os.path.join(out, "labels-call.csv")
    with open(out + ".csv", "w") as handle:  # another file, outside the scan
        handle.write("key,label\n")
    make(path)
    for argv in (["label", out, "--kind", "call"], ["table", out, "--by", "label"], ["scan", root, "-o", out, "-q"]):
        done = subprocess.run([sys.executable, "-m", "punstats"] + argv, capture_output=True, text=True, timeout=120)
        assert (done.returncode, done.stderr) == (2, "punstats: error: %s\n" % said), argv
    assert open(out + ".csv").read() == "key,label\n" and os.path.lexists(path)
    assert punstats.load(out).summary["punnable"] == 4  # the stored scan kept


def test_a_sheet_saved_by_a_spreadsheet_is_read(tmp_path):
    """A byte order mark and CRLF line ends, as spreadsheets write CSV; keys never read as numbers."""
    path = tmp_path / "labels-call.csv"
    path.write_bytes(b"\xef\xbb\xbfkey,label\r\nk12e45,correct\r\n")
    assert labels.read_sheet(str(path)) == [{"key": "k12e45", "label": "correct"}]
    assert all(labels.key_of("p.py", "0" * 64, "call", n, 0, n, 3, "x")[0] == "k" for n in range(100))


@pytest.mark.parametrize("kind", ["", "a/b", "..", "x" * 65, "call.csv"])
def test_a_kind_that_cannot_name_a_sheet_is_refused(kind):
    with pytest.raises(labels.LabelError, match="is not an occurrence kind"):
        labels.csv_name(kind)


def test_a_stored_scan_with_labels_is_replaceable_and_foreign_files_still_are_not(scanned):
    root, out = scanned
    label_all(out)
    for name in ("labels-call.md", "labels-call.stale.csv", ".labels-call.csv.x1y2.tmp"):
        open(os.path.join(out, name), "w").close()
    assert places.replaceable_problem(out, staging.SCAN) is None
    punstats.scan(root, output=out, jobs=1)  # replaced, labels carried
    assert len(sheet(out, "labels-call.csv")) == 4
    for foreign in ("notes.txt", "labels.txt", "label-call.csv"):
        open(os.path.join(out, foreign), "w").close()
        assert "holds other files than a stored scan" in places.replaceable_problem(out, staging.SCAN)
        os.remove(os.path.join(out, foreign))
    os.mkdir(os.path.join(out, "labels-call.csv.d"))
    os.rename(os.path.join(out, "labels-call.csv.d"), os.path.join(out, "labels-x.csv"))  # a directory
    assert "labels-x.csv" in places.replaceable_problem(out, staging.SCAN)
    with pytest.raises(staging.StoreError, match="holds other files than a stored scan"):
        punstats.scan(root, output=out, jobs=1)
