"""Names from a corpus reach no output as markup, formula or control sequence (issue 19).

A tiny corpus with hostile names (a directory named like a spreadsheet
formula, a file ``-2+3.py``, a newline in a directory name, OSC-8 and CSI
sequences and a bidi override in names, a callee whose source text holds ESC,
``|``, backticks and mathtext) is scanned; every output medium must hold
the names escaped, while the counts stay those of the corpus.
"""
import contextlib
import csv
import io
import json
import re
import xml.dom.minidom

import pandas as pd
import pytest
from docutils import nodes
from docutils.core import publish_doctree

import punstats
from punstats.cli import main
from punstats.model import escape

#: Any raw character that ``escape.visible`` shows escaped.
RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

OSC8 = "l\x1b]8;;https:evil\x1b\\ink\x1b[2J"  # no "/": one directory
FORMULA_DIR = "=cmd|' -C calc'!A0"
CALLEE = '"\x1b[31m|``$\\frac{$"'

#: relative path -> source; one ``f(x=x)`` in each file but bad.py, which does not parse
FILES = {
    FORMULA_DIR + "/m.py": "f(x=x)\n",
    "-2+3.py": "g(y=y)\n",
    "a\nb/m.py": "h(z=z)\n",
    OSC8 + "/m.py": "k(w=w)\n",
    "bidi\u202ecod/m.py": "p(q=q)\n",
    ".. raw:: html/m.py": "r(s=s)\n",
    "c.py": CALLEE + ".format(x=x)\n",
    OSC8 + "/bad.py": "def f(\x1b[2J\n",
}
PUNNABLE = len(FILES) - 1
HOSTILE_NAME = "@SUM(1)\x1b[31m\u202e|x"

#: What a spreadsheet reads as the start of a formula (OWASP, "CSV injection").
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


@pytest.fixture
def hostile(tmp_path):
    """(corpus root, stored scan directory, the scan's standard output)."""
    root = tmp_path / "corp\x1b[2Jus"
    for path, text in FILES.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    out = tmp_path / "scan"
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        assert main(["scan", str(root), "-q", "--csv", "-o", str(out), "--name", HOSTILE_NAME, "-j", "1"]) == 0
    return root, out, stdout.getvalue()


def run(capsys, *args):
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_escape_functions():
    assert escape.CSV_FORMULA_START == FORMULA_START
    assert escape.visible("a\x1b[2J\nb\u202e\x9b") == "a\\x1b[2J\\x0ab\\u202e\\x9b"
    assert escape.csv_cell("=1+2") == "'=1+2" and escape.csv_cell("\tx") == "\\x09x"  # no control: shown
    assert escape.csv_cell("a\x1b]8;;u\x1b\\b\r") == "a\\x1b]8;;u\\x1b\\b\\x0d"
    assert escape.csv_text("=a\r\nb\x1b") == "'=a\r\nb\\x1b" and escape.csv_text("'=a") == "''=a"
    for text in ("=a", "'=a", "''+a", "'", "'a", "\ta\r", "-", "a\r\nb", ""):
        assert escape.from_csv_cell(escape.csv_text(text)) == text
    assert escape.csv_cell(-2) == -2 and escape.csv_cell(-2.5) == -2.5 and escape.csv_cell("a=b") == "a=b"
    assert escape.markdown_text("a|b\nc") == "a\\|b\\\\x0ac"
    assert escape.rest_text(".. raw:: html") == "\\.\\. raw\\:\\: html"
    assert escape.rest_text("= =") == "\\ = =" and escape.rest_text(" ") == "\\\\x20"
    assert escape.rest_code("a``b") == "a\\`\\`b" and escape.rest_code("ab") == "``ab``"


def test_terminal_summary_is_escaped_and_counts_unchanged(hostile):
    root, out, stdout = hostile
    assert not RAW_CONTROL.search(stdout) and "\u202e" not in stdout
    assert "\\x1b[2J" in stdout and "\\u202e" in stdout  # shown, not obeyed
    assert stdout.count("\n") == len(stdout.splitlines())  # no name split a line (summary rows only)
    summary = punstats.load(str(out)).summary
    assert summary["punnable"] == PUNNABLE and summary["failed"] == 1
    assert summary["corpus"] == HOSTILE_NAME  # stored as it is: escaping is the outputs' business


def test_stored_csv_copies_hold_no_formula(hostile):
    _, out, _ = hostile
    for name in ("occurrences", "files"):
        with open(out / (name + ".csv"), newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
        stored = pd.read_parquet(out / (name + ".parquet"))
        assert len(rows) == len(stored) + 1  # every row kept, each whole
        cells = [cell for row in rows for cell in row]
        assert not [c for c in cells if c.startswith(FORMULA_START)]
        assert any(c.startswith("'" + FORMULA_DIR) for c in cells) and "'-2+3.py" in cells
        assert not RAW_CONTROL.search("".join(cells)) and "a\\x0ab/m.py" in cells  # shown, not obeyed
    occurrences = pd.read_csv(out / "occurrences.csv")
    assert occurrences["line"].dtype.kind == "i"  # numbers stay numbers


def test_table_csv_neutralises_formulas_and_keeps_numbers(hostile, capsys):
    _, out, _ = hostile
    code, stdout, _ = run(capsys, "table", str(out), "--by", "directory", "--format", "csv")
    assert code == 0
    rows = list(csv.reader(io.StringIO(stdout)))
    cells = [cell for row in rows for cell in row]
    assert not [c for c in cells if c.startswith(FORMULA_START)]
    frame = pd.read_csv(io.StringIO(stdout))
    assert "'" + FORMULA_DIR + "/" in set(frame["directory"]) and "'-2+3.py" in set(frame["directory"])
    assert set(frame["scan"]) == {"'" + escape.visible(HOSTILE_NAME)} and not RAW_CONTROL.search(stdout)
    assert frame["punnable"].dtype.kind == "i" and frame["punnable"].sum() == PUNNABLE


def _markdown_rows(text):
    """Each Markdown table line's cell count (``|`` not escaped by a backslash)."""
    return [len(re.findall(r"(?<!\\)\|", line)) - 1 for line in text.splitlines() if line.startswith("|")]


@pytest.mark.parametrize("by", ["directory", "callee", "summary"])
def test_markdown_rows_are_whole(hostile, capsys, by):
    _, out, _ = hostile
    code, stdout, _ = run(capsys, "table", str(out), "--by", by, "--format", "markdown")
    assert code == 0 and not RAW_CONTROL.search(stdout)
    counts = _markdown_rows(stdout)
    assert counts and len(set(counts)) == 1
    lines = stdout.splitlines()
    table_lines = [line for line in lines if line.startswith("|")]
    assert lines.index(table_lines[-1]) - lines.index(table_lines[0]) == len(table_lines) - 1  # not split
    if by == "directory":
        assert len(table_lines) == 2 + 7  # header, rule, five directories, two root files


@pytest.mark.parametrize("by", ["directory", "callee", "summary"])
def test_rest_is_a_table_and_nothing_else(hostile, capsys, by):
    _, out, _ = hostile
    code, stdout, _ = run(capsys, "table", str(out), "--by", by, "--format", "rst")
    assert code == 0 and not RAW_CONTROL.search(stdout)
    tree = publish_doctree(stdout, settings_overrides={"report_level": 5, "halt_level": 5,
                                                       "warning_stream": io.StringIO()})
    messages = [m for m in tree.findall(nodes.system_message) if m["level"] >= 2]
    assert not messages, [m.astext() for m in messages]
    assert not list(tree.findall(nodes.raw)) and not list(tree.findall(nodes.comment))
    [table] = list(tree.findall(nodes.table))
    rows = list(table.findall(nodes.row))
    assert len({len(list(row.findall(nodes.entry))) for row in rows}) == 1
    if by == "directory":
        assert len(rows) == 1 + 7


def test_latex_holds_no_control_character(hostile, capsys):
    _, out, _ = hostile
    code, stdout, _ = run(capsys, "table", str(out), "--by", "callee", "--format", "latex")
    assert code == 0 and not RAW_CONTROL.search(stdout)
    assert r"\textbackslash{}x1b[31m" in stdout
    body = [line for line in stdout.splitlines() if line.endswith(r"\\")]
    assert all(line.count(" & ") == body[0].count(" & ") for line in body)


def test_report_is_whole_markdown(hostile, tmp_path, capsys):
    _, out, _ = hostile
    path = tmp_path / "report.md"
    code, stdout, _ = run(capsys, "report", str(out), "-o", str(path), "--no-figures")
    assert code == 0
    text = path.read_text(encoding="utf-8")
    assert not RAW_CONTROL.search(text)
    assert sum(1 for line in text.splitlines() if line.startswith("```")) == 2  # one code block, closed
    for block in re.split(r"\n\s*\n", text):  # every table: one cell count for all its rows
        counts = _markdown_rows(block)
        assert len(set(counts)) <= 1, block


def test_figures_draw_hostile_names(hostile, tmp_path):
    pytest.importorskip("matplotlib")
    from punstats.present import plots
    result = punstats.load(str(hostile[1]))
    for plot in (plots.top_callees(result), plots.directories(result)):
        [svg] = plots.save(plot, str(tmp_path / "figures"), ["svg"])
        with open(svg, encoding="utf-8") as handle:
            xml.dom.minidom.parseString(handle.read())  # well-formed: no control character in it


def test_rewrite_messages_are_escaped(hostile, capsys):
    root, _, _ = hostile
    code, stdout, stderr = run(capsys, "rewrite", str(root), "-q", "-j", "1")
    assert code == 0 and not RAW_CONTROL.search(stdout + stderr)
    assert "untouched  l\\x1b]8;;https:evil\\x1b\\ink\\x1b[2J/bad.py" in stdout
    code, stdout, stderr = run(capsys, "expand", str(root), "-q", "-j", "1")
    assert code == 0 and not RAW_CONTROL.search(stdout + stderr)


def test_one_line_error_is_escaped(tmp_path, capsys):
    code, stdout, stderr = run(capsys, "scan", str(tmp_path / "no\x1b]8;;https:evil\x07such\u202e"))
    assert code == 2 and stdout == ""
    assert stderr.startswith("punstats: error: ") and stderr.count("\n") == 1
    assert not RAW_CONTROL.search(stderr) and "\\x1b]8;;https:evil\\x07such\\u202e" in stderr


def test_json_output_stays_raw(hostile, capsys):
    root, _, _ = hostile
    code, stdout, _ = run(capsys, "scan", str(root), "--json", "--no-save", "-q", "--name", HOSTILE_NAME)
    assert code == 0 and json.loads(stdout)[0]["corpus"] == HOSTILE_NAME


def test_console_lines_and_progress_are_escaped(capsys):
    from types import SimpleNamespace

    from punstats.cli.common import Progress
    from punstats.present.console import format_corpus_line
    from punstats.present.ecosystem import project_line
    summary = {"source": "x\x1b[2J", "files": 1, "keywords": 2, "punnable": 1, "punnable_pct": 50.0}
    stored = SimpleNamespace(project=SimpleNamespace(name=HOSTILE_NAME), summary=summary,
                             directory="data/\u202eevil", reused=False)
    record = {"rank": 1, "project": "p", "status": "failed", "message": "bad \x1b]8;;https:evil\x07 member"}
    for line in (format_corpus_line(stored), project_line(record)):
        assert not RAW_CONTROL.search(line) and "\n" not in line
    bar = Progress(quiet=False, label=HOSTILE_NAME)
    bar.enabled = True  # as on a terminal
    bar.start(2)
    bar.note("a\u202eb\x1b[31m")
    bar.print("done \x1b[2J")
    bar.close()
    captured = capsys.readouterr()
    for raw in ("\x1b[31m", "\x1b[2J", "\u202e"):
        assert raw not in captured.out + captured.err


def test_history_subject_and_directory_are_escaped(tmp_path, capsys):
    import gitrepo
    repo = tmp_path / "re\x1b[2Jpo"
    gitrepo.init(repo)
    gitrepo.commit(repo, {"m.py": "f(x=x)\n"}, message="=HYPERLINK(\x1b[31m)")
    out = tmp_path / "h\u202eout"
    code, stdout, stderr = run(capsys, "history", str(repo), "-q", "-j", "1", "-o", str(out))
    assert code == 0 and not RAW_CONTROL.search(stdout + stderr)
    with open(out / "history.csv", newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [row["subject"] for row in rows] == ["'=HYPERLINK(\\x1b[31m)"] and rows[0]["punnable"] == "1"


@pytest.mark.parametrize("name", [
    "", " ", "= =", "====", "\\\\\\\\", ".. raw:: html", ".. _x: http://e", ".. |x| image:: y", "a::", "\n+:::",
    "- x", "1. x", ": field: x", "`x`_", "|sub|", "[#]_", "``", "  ^", "a\n====", "x\x1b[2J\u202e"])
def test_rest_cells_title_and_notes_hold_any_name(name):
    from punstats.present.formats import Code, Label, Table, render
    for cell in (name, Code(name)):
        table = Table(header=(Label("H"), Label("N")), rows=((cell, 1), (Label("z"), 2)), title=(Label("T "), name),
                      notes=("note " + name,), header_notes=(None, 0))
        text = render(table, "rst")
        tree = publish_doctree(text, settings_overrides={"report_level": 5, "halt_level": 5,
                                                         "warning_stream": io.StringIO()})
        assert not list(tree.findall(nodes.system_message)), text
        [table_node] = list(tree.findall(nodes.table))
        assert len(list(table_node.findall(nodes.row))) == 3
        for kind in (nodes.raw, nodes.target, nodes.substitution_definition, nodes.literal_block, nodes.comment):
            assert not list(tree.findall(kind)), text


PATTERN = '''import ast
import punstats


@punstats.pattern("esc", label="bad\\x1b]8;;http:e\\x1b\\\\x\\x1b[2J", per="calls")
def match(node, parents):
    return isinstance(node, ast.Call)
'''


def test_labels_and_pattern_labels_reach_no_csv_or_terminal_raw(hostile, tmp_path, capsys):
    """A label typed with ESC and OSC 8 into the sheet, and a pattern's label holding them: every CSV,
    table, sheet and report shows them escaped."""
    root, out, _ = hostile
    plugin = tmp_path / "esc_pattern.py"
    plugin.write_text(PATTERN)
    assert run(capsys, "scan", str(root), "-q", "--csv", "-o", str(out), "-j", "1", "--pattern", str(plugin))[0] == 0
    assert run(capsys, "label", str(out), "--kind", "call")[0] == 0
    sheet = out / "labels-call.csv"
    with open(sheet, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["label"] = "\x1b]8;;http:evil\x1b\\bug\x1b[31m"
    with open(sheet, "w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    shown = [run(capsys, "label", str(out), "--kind", "call")]
    shown += [run(capsys, "table", str(out), "--by", by, "--format", fmt) for by in ("label", "kinds", "directory")
              for fmt in ("csv", "rst", "markdown", "latex")]
    shown.append(run(capsys, "report", str(out), "--no-figures", "-o", str(tmp_path / "r.md")))
    assert all(code == 0 for code, _, _ in shown), [err for _, _, err in shown]
    files = [sheet, out / "labels-call.md", out / "occurrences.csv", out / "files.csv", tmp_path / "r.md"]
    texts = [stdout + stderr for _, stdout, stderr in shown] + [path.read_text(encoding="utf-8") for path in files]
    assert not [text[:200] for text in texts if RAW_CONTROL.search(text.replace("\n", ""))]
    assert "\\x1b]8;;http:evil\\x1b\\bug\\x1b[31m" in sheet.read_text(encoding="utf-8")
    # a pattern's label loses its escape sequences where it is declared (a link keeps its text)
    assert any("badx" in stdout for _, stdout, _ in shown)
