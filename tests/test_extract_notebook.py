"""Notebooks (extract/notebook.py): code cells counted, IPython syntax set aside as ruff does,
every row placed at its cell and the cell's line, bad notebooks recorded, never raised.

The independent check: each code cell converted by IPython's own input transformer
(``IPython.core.inputtransformer2``, which turns ``%magic``, ``!cmd``, ``obj?`` and the like
into ``get_ipython()`` calls), the cells written as one ``.py`` file, and punstats' counts of
that file compared with its counts of the notebook, row by row (cell, line, column, name).
"""
import ast
import dataclasses
import json
import os

import pytest

from punstats.extract import extract
from punstats.extract.notebook import TRANSPARENT_CELL_MAGICS, python_lines
from punstats.model.records import from_plain, to_plain

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def notebook(*cells, language="python", **metadata):
    """A notebook's bytes: each cell a source string (code) or a (cell_type, source) pair."""
    built = []
    for cell in cells:
        kind, source = cell if isinstance(cell, tuple) else ("code", cell)
        extra = {"outputs": [], "execution_count": None} if kind == "code" else {}
        built.append({"cell_type": kind, "metadata": metadata.pop("cell_metadata", {}), "source": source, **extra})
    meta = {"kernelspec": {"name": "k", "display_name": "K", "language": language}} if language else {}
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": meta, "cells": built}).encode()


def rows(extraction, kind="call"):
    return [(o.cell, o.line, o.col, o.name) for o in extraction.occurrences if o.kind == kind]


def test_line_magics_shell_help_and_assignments_are_set_aside_and_rows_keep_their_cell_and_line():
    data = notebook(
        ("markdown", "# f(m=m) in markdown is not code"),
        "%matplotlib inline\nimport os\nf(x=x)\n",
        ["files = !ls\n", "for i in y:\n", "    !echo {i}\n", "    g(a=a,\n", "      b=b)\n", "os.path?\n"],
        "t = %timeit h(z=z)\n!!cat \\\n  f(w=w)\nos.path.join??\n?os\nk(c=c)  # what?\n",
    )
    e = extract("n.ipynb", data)
    assert e.record.status == "ok", e.record.error
    assert rows(e) == [(2, 3, 2, "x"), (3, 4, 6, "a"), (3, 5, 6, "b"), (4, 6, 2, "c")]
    call = next(o for o in e.occurrences if o.name == "b")
    assert (call.end_line, call.call_line, call.callee) == (5, 4, "g")
    assert e.record.calls == 3 and e.record.punnable == 4  # nothing inside a magic, a shell line or help
    assert e.record.lines == 3 + 6 + 6 and e.record.bytes == len(data) and e.record.encoding == "utf-8"


def test_cell_magics_leave_the_cell_out_unless_its_body_is_python():
    data = notebook("%%bash\necho f(a=a)\n", "%%time\nf(b=b)\n", "%%timeit -n1 f(q=q)\nf(c=c)\n",
                    "x = 1\n%%writefile out.py\nf(d=d)\n", "pip install f(e=e)\n", "cd = 1\nf(g=g)\n",
                    "%%capture out\nf(h=h)\n")
    e = extract("n.ipynb", data)
    assert e.record.status == "ok", e.record.error
    assert rows(e) == [(2, 2, 2, "b"), (3, 2, 2, "c"), (6, 2, 2, "g"), (7, 2, 2, "h")]
    assert {"time", "timeit", "capture"} <= TRANSPARENT_CELL_MAGICS


def test_operators_inside_brackets_strings_and_comments_stay_python():
    cell = ('x = (a\n     % b)\nif (a\n    != b):\n    f(y=y)\ns = """\n%not a magic\n!nor this\n"""\n'
            "z = [1,\n     2] # who?\nt = 'a?'\n")
    assert python_lines(cell.splitlines()) == cell.splitlines()
    e = extract("n.ipynb", notebook(cell))
    assert e.record.status == "ok" and rows(e) == [(1, 5, 6, "y")]
    assert python_lines(["x = 1", "%who", "  !ls \\", "   -l", "y?"]) == ["x = 1", "pass", "  pass", "", "pass"]


def test_non_python_notebooks_and_cells_are_skipped_with_a_reason():
    r = extract("r.ipynb", notebook("f(x=x)\n", language="R")).record
    assert (r.status, r.error, r.calls) == ("not_python", "a notebook in R, not Python", 0)
    sql = notebook("SELECT f(x=x)\n", cell_metadata={"vscode": {"languageId": "sql"}})
    assert extract("s.ipynb", sql).record.status == "ok" and extract("s.ipynb", sql).record.calls == 0
    plain = notebook("f(x=x)\n", language=None)  # no kernel named: read as Python
    assert rows(extract("p.ipynb", plain)) == [(1, 1, 2, "x")]


@pytest.mark.parametrize("data, reason", [
    (b"{not json", "not a notebook: Expecting property name"),
    (b"[1, 2]", "not a notebook: no list of cells"),
    (b'{"cells": {}}', "not a notebook: no list of cells"),
    (b'{"cells": [1]}', "cell 1 is not a JSON object"),
    (b'{"cells": [{"cell_type": "code", "source": 3}]}', "cell 1: its source is not text"),
    (b"[" * 100000 + b"]" * 100000, "not a notebook"),
    (b"\xff\xfe{", "not a notebook"),
    (b'{"worksheets": [{"cells": 5}]}', "not a notebook: worksheet 1 holds no list of cells"),
    (b'{"worksheets": [{"cells": "code"}]}', "not a notebook: worksheet 1 holds no list of cells"),
    (b'{"worksheets": [[]]}', "not a notebook: worksheet 1 holds no list of cells"),
])
def test_a_file_that_is_not_a_notebook_is_recorded_never_raised(data, reason):
    r = extract("bad.ipynb", data).record
    assert r.status == "notebook_error" and r.error.startswith(reason), r.error
    assert r.bytes == len(data) and r.sha256 and r.lines == 0


def test_a_cell_that_does_not_parse_names_its_cell_and_line():
    r = extract("n.ipynb", notebook("f(x=x)\n", ("markdown", "text"), "y = 1\ndef g(:\n    pass\n")).record
    assert (r.status, r.error_line) == ("syntax_error", 2) and r.error.startswith("cell 3: "), r.error
    # Jupyter runs each cell on its own: a statement cannot go on into the next cell
    spanning = extract("n.ipynb", notebook("f(x=x,\n", "  y=y)\n")).record
    assert spanning.status == "syntax_error" and spanning.error.startswith("cell 1: ")
    nul = extract("n.ipynb", notebook("x = 1\n", "y = 2\nf(x=x)\x00\n")).record
    assert (nul.status, nul.error, nul.error_line) == ("null_bytes", "cell 2: source contains a null byte", 2)


def test_user_patterns_match_in_cells_and_a_failing_one_names_the_cell():
    from punstats.model.kinds import Kind

    def returns(node, parents):
        if isinstance(node, ast.Return) and node.value is None:
            raise KeyError("boom")
        return isinstance(node, ast.Return)

    kind = Kind("ret", "ret", "lines", occurrence=True, matcher=returns, source="test")
    data = notebook("def f():\n    return 1\n", "%time x\ndef g():\n    return\n")
    failed = extract("n.ipynb", data, patterns=[kind]).record
    assert (failed.status, failed.error_line) == ("pattern_error", 3)
    assert failed.error == "cell 2: pattern ret: KeyError: 'boom'"
    assert failed.sha256 and failed.bytes == len(data) and failed.lines == 5
    ok = extract("n.ipynb", notebook("x = 1\n", "def f():\n    return 1\n"), patterns=[kind])
    assert rows(ok, "ret") == [(2, 2, 4, "Return")]


def test_a_patterns_row_in_a_cell_keeps_its_fields_and_no_call_line():
    from punstats.model.kinds import Kind

    def returns(node, parents):
        return isinstance(node, ast.Return) and {"n": len(parents)}

    kind = Kind("ret", "ret", "lines", occurrence=True, matcher=returns, source="test")
    e = extract("n.ipynb", notebook("x = 1\n", "def f():\n    g(a=a)\n    return 1\n"), patterns=[kind])
    [row] = [o for o in e.occurrences if o.kind == "ret"]
    assert (row.cell, row.line, row.call_line, row.fields) == (2, 3, None, '{"n": 2}')
    assert [(o.cell, o.line, o.call_line) for o in e.occurrences if o.kind == "call"] == [(2, 2, 2)]
    assert from_plain(to_plain(e), "n.ipynb") == e


def test_nbformat_3_worksheets_and_functions_rows():
    v3 = {"nbformat": 3, "metadata": {"language": "python"}, "worksheets": [{"cells": [
        {"cell_type": "heading", "source": "Title", "level": 1},
        {"cell_type": "code", "language": "python", "input": ["def f(a, *, b=1):\n", "    return g(a=a)\n"]}]}]}
    e = extract("old.ipynb", json.dumps(v3).encode())
    assert rows(e) == [(2, 2, 13, "a")]
    assert [(f.cell, f.line, f.name, f.keyword_only) for f in e.functions] == [(2, 1, "f", 1)]


def v1(*cells):
    """An nbformat 1 notebook (no ``nbformat`` key): ``cells``, code in ``code``, text in ``text``."""
    return {"cells": [{"cell_type": "text", "text": c[1]} if isinstance(c, tuple) else {"cell_type": "code", "code": c}
                      for c in cells]}


def worksheets(version, *sources):
    """An nbformat 2 or 3 notebook: code cells in ``worksheets[].cells``, their text in ``input``."""
    return {"nbformat": version, "nbformat_minor": 0, "metadata": {"name": "n"}, "worksheets": [
        {"cells": [{"cell_type": "code", "language": "python", "input": s, "outputs": []} for s in sources]}]}


@pytest.mark.parametrize("built", [
    v1("f(x=x)\n", ("text", "g(a=a) is text"), "h(y=y)\n"),
    dict(worksheets(2, "f(x=x)\n", "# markdown is elsewhere\n", "h(y=y)\n")),
    dict(worksheets(3, "f(x=x)\n", "", ["h(y=y)\n"])),
    json.loads(notebook("f(x=x)\n", ("markdown", "g(a=a)"), "h(y=y)\n")),
    {"cells": [{"cell_type": "code", "source": "f(x=x)\n"}, {"cell_type": "markdown", "source": "x"},
               {"cell_type": "code", "source": "h(y=y)\n"}]},  # 4 written without its nbformat
])
def test_every_nbformat_jupyter_reads_is_read_in_its_own_layout(built):
    e = extract("n.ipynb", json.dumps(built).encode())
    assert e.record.status == "ok" and rows(e) == [(1, 1, 2, "x"), (3, 1, 2, "y")], e.record.error


@pytest.mark.parametrize("version, shown", [(5, "5"), ("4", '"4"'), (4.0, "4.0"), (True, "true"), (None, "null"),
                                            (0, "0"), ([4], "a list"), ({}, "an object"), ("x" * 99, '"' + "x" * 39)])
def test_an_nbformat_jupyter_does_not_read_is_recorded_with_its_reason(version, shown):
    built = json.loads(notebook("f(x=x)\n"))
    r = extract("n.ipynb", json.dumps(dict(built, nbformat=version)).encode()).record
    assert (r.status, r.error, r.calls) == ("notebook_error", "nbformat %s: not a notebook format punstats reads "
                                                             "(1 to 4)" % shown, 0)


@pytest.mark.parametrize("built, reason", [
    ({"nbformat": 3, "cells": [{"cell_type": "code", "input": "f(x=x)"}]},
     "not a notebook: nbformat 3 keeps its cells in a list of worksheets, and it has none"),
    ({"nbformat": 4, "worksheets": [{"cells": [{"cell_type": "code", "source": "f(x=x)"}]}]},
     "not a notebook: no list of cells"),
    ({"nbformat": 4, "cells": [{"cell_type": "code", "source": {"a": 1}}]}, "cell 1: its source is not text"),
    ({"nbformat": 4, "cells": [{"cell_type": "code", "source": ["f(", 1]}]}, "cell 1: its source is not text"),
    ({"nbformat": 3, "worksheets": [{"cells": [{"cell_type": "code", "input": None}]}]},
     "cell 1: its source is not text"),
    (v1(7), "cell 1: its source is not text"),
])
def test_a_notebook_out_of_its_format_is_recorded_with_its_reason(built, reason):
    r = extract("n.ipynb", json.dumps(built).encode()).record
    assert (r.status, r.error) == ("notebook_error", reason)


def test_a_cell_in_another_formats_field_is_not_code_of_a_declared_format():
    # nbformat 4 keeps code in ``source``; an ``input`` there is no cell text Jupyter shows
    built = {"nbformat": 4, "cells": [{"cell_type": "code", "input": "f(x=x)\n", "source": "g(y=y)\n"}]}
    assert rows(extract("n.ipynb", json.dumps(built).encode())) == [(1, 1, 2, "y")]


def test_many_cells_simply_work_and_the_last_row_is_in_the_last_cell():
    # a million cells take 41 s (3 GB) with --max-bytes 100 MB; within the 20 MB cap about 500,000 fit
    cells = [{"cell_type": "code", "source": "x = 1"}] * 20000 + [{"cell_type": "code", "source": "f(x=x)"}]
    e = extract("n.ipynb", json.dumps({"nbformat": 4, "cells": cells}).encode())
    assert (e.record.status, e.record.lines, rows(e)) == ("ok", 20001, [(20001, 1, 2, "x")])


def test_hostile_notebook_files_in_a_scan_are_recorded_never_raised_nor_hung(tmp_path):
    import subprocess
    import sys
    root = tmp_path / "nbs"
    root.mkdir()
    (root / "v1.ipynb").write_text(json.dumps(v1("f(x=x)\n")))
    (root / "deep.ipynb").write_text("[" * 100000 + "]" * 100000)
    (root / "bad.ipynb").write_bytes(b'{"nbformat": 4, "cells": [{"cell_type": "code", "source": "\xff"}]}')
    (root / "nul.ipynb").write_bytes(b'{"nbformat": 4, "cells": [{"cell_type": "code", "source": "f()\x00"}]}')
    os.symlink("/dev/zero", str(root / "zero.ipynb"))
    with open(str(root / "sparse.ipynb"), "wb") as handle:
        handle.truncate(10 << 30)  # 10 GiB, sparse: refused by its size, never read
    script = ("import punstats, json; r = punstats.scan(%r, extensions=['.ipynb'], cache=False, jobs=2); "
              "print(json.dumps(sorted(zip(r.files.path, r.files.status, r.files.lines))))" % str(root))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [["bad.ipynb", "notebook_error", 0], ["deep.ipynb", "notebook_error", 0],
                                       ["nul.ipynb", "notebook_error", 0], ["sparse.ipynb", "too_large", 0],
                                       ["v1.ipynb", "ok", 1], ["zero.ipynb", "symlink", 0]]


def test_plain_form_keeps_the_cell_and_a_py_file_keeps_its_old_plain_form():
    e = extract("n.ipynb", notebook("x = 1\n", "", "f(x=x)\n"))  # an empty cell has no line
    assert from_plain(to_plain(e), "n.ipynb") == e and rows(e) == [(3, 1, 2, "x")]
    py = extract("a.py", b"def h(y):\n    f(y=y)\n")
    plain = to_plain(py)
    assert len(plain["occurrences"][0]) == 18 and len(plain["functions"][0]) == 11  # no cell: as cached before
    assert from_plain(plain, "a.py") == py and py.occurrences[0].cell is None
    fielded = py.occurrences[0]._replace(fields='{"k": 1}')  # fields without a cell: both kept
    assert to_plain(dataclasses.replace(py, occurrences=(fielded,)))["occurrences"][0][-2:] == [None, '{"k": 1}']


def test_the_same_bytes_as_py_and_ipynb_are_two_cache_entries(tmp_path):
    from punstats.cache import BlobCache
    from punstats.engines.cached import blob_key, prepare, run_cached
    from punstats.model.discovery import Candidate
    data = notebook("f(x=x)\n")
    for name in ("same.py", "same.ipynb"):
        (tmp_path / name).write_bytes(data)  # a notebook's JSON is a Python dict display too
    candidates = [Candidate(n, str(tmp_path / n), len(data)) for n in ("same.ipynb", "same.py")]
    assert blob_key("same.py", "ab") == "ab" != blob_key("same.ipynb", "ab")
    with BlobCache(str(tmp_path / "cache.sqlite3")) as cache:
        for expected in ({"cached": 0, "extracted": 2}, {"cached": 2, "extracted": 0}):
            got = {}
            counts = run_cached(prepare(candidates), cache, _runner, lambda i, es, got=got: got.update(zip(i, es)))
            assert counts == expected
            assert (got[0].record.punnable, got[1].record.punnable) == (1, 0)
            assert got[0].occurrences[0].cell == 1


def _runner(candidates, sink):
    from punstats.engines.local import extract_candidate
    done = [extract_candidate(c) for c in candidates]
    sink(list(range(len(done))), done)
    return done


# -- the independent check: IPython's transformer, then punstats on a .py file ---------------------------

def ipython_cells(data):
    """(cell number, Python source of the cell as IPython runs it) for each code cell:
    IPython's transformer; the body of a cell magic ruff reads as Python transformed alone."""
    transform = pytest.importorskip("IPython.core.inputtransformer2").TransformerManager().transform_cell
    out = []
    for number, cell in enumerate(json.loads(data)["cells"], start=1):
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        lines = source.splitlines()
        first = lines[0].split() if lines else []
        if first and first[0].startswith("%%") and first[0][2:] in TRANSPARENT_CELL_MAGICS:
            code = "\n" + transform("\n".join(lines[1:]) + "\n")
        else:
            code = transform(source + "\n")
        try:
            ast.parse(code)
        except SyntaxError:  # IPython's to run (automagic, another language's cell magic)
            code = ""
        out.append((number, code))
    return out


def compare_with_ipython(data):
    """punstats on the notebook and on a .py of IPython's cells: (notebook rows, .py rows mapped to cells)."""
    cells = ipython_cells(data)
    starts, text = [], ""
    for number, code in cells:
        starts.append((text.count("\n") + 1, number, code.count("\n")))
        text += code if code.endswith("\n") or not code else code + "\n"
    py = extract("cells.py", text.encode())
    assert py.record.status == "ok", py.record.error
    mapped = []
    for o in py.occurrences:
        start, number, _ = max(s for s in starts if s[0] <= o.line)
        mapped.append((o.kind, number, o.line - start + 1, o.col, o.name))
    nb = extract("n.ipynb", data)
    assert nb.record.status == "ok", nb.record.error
    return sorted((o.kind, o.cell, o.line, o.col, o.name) for o in nb.occurrences), sorted(mapped), nb, py


REAL_LOOKING = notebook(
    "%load_ext autoreload\n%autoreload 2\nimport numpy as np\nimport pandas as pd\n",
    ("markdown", "## Data"),
    "data = pd.read_csv(path, sep=sep)\n!head -n 3 {path}\ndf = data.assign(total=total, name=data.name)\n",
    "%%timeit\nnp.sort(values, axis=axis, kind=kind)\n",
    "%%bash\nls -la\n",
    "def fit(model, X, y, *, weights=None):\n    return model.fit(X=X, y=y, sample_weight=weights)\n",
    "cfg = {'alpha': alpha, 'beta': beta}\nclass M(Base, metaclass=metaclass):\n    pass\nfit?\n",
    "%time result = fit(model=model, X=X, y=y)\nout = !ls\nplot(x=self.x, y=_y)\n",
    "pip install seaborn\n",
)


def test_counts_equal_those_of_ipythons_own_transform_on_built_and_real_notebooks():
    with open(os.path.join(ROOT, "notebooks", "01-explore.ipynb"), "rb") as handle:
        shipped = handle.read()
    found = []
    for data in (REAL_LOOKING, shipped):
        ours, theirs, nb, py = compare_with_ipython(data)
        assert ours == theirs
        for field in ("keywords", "punnable", "class_punnable", "dict_literal", "attribute", "near_miss",
                      "functions"):
            assert getattr(nb.record, field) == getattr(py.record, field), field
        found.append((len(ours), nb.record.keywords))
    assert found[0] == (12, 10) and found[1][1] > 0  # every kind met; the shipped notebook has keywords


# -- on the command line: notebooks only when asked, labels at their cell ------------------------

def test_scan_reads_notebooks_only_when_asked_and_their_rows_and_labels_name_the_cell(tmp_path, capsys):
    import pandas as pd

    from punstats.cli import main
    from punstats.present import labels as sheets
    root = tmp_path / "proj"
    root.mkdir()
    (root / "a.py").write_text("f(x=x)\n")
    (root / "b.ipynb").write_bytes(notebook(("markdown", "# B"), "%matplotlib inline\nimport os\n\ng(y=y)\n"))
    (root / "r.ipynb").write_bytes(notebook("h(z=z)\n", language="R"))
    (root / "bad.ipynb").write_bytes(b"{")
    for extensions, paths in ((None, ["a.py"]), (".py,.ipynb", ["a.py", "b.ipynb", "bad.ipynb", "r.ipynb"])):
        out = tmp_path / ("out-%s" % bool(extensions))
        argv = ["scan", str(root), "-q", "--json", "-j", "1", "-o", str(out)]
        assert main(argv + (["--extensions", extensions] if extensions else [])) == 0
        [summary] = json.loads(capsys.readouterr().out)
        files = pd.read_parquet(out / "files.parquet").set_index("path")
        assert sorted(files.index) == paths
    assert files["status"].to_dict() == {"a.py": "ok", "b.ipynb": "ok", "bad.ipynb": "notebook_error",
                                         "r.ipynb": "not_python"}
    assert summary["punnable"] == 2 and summary["failed_by_reason"] == {"notebook_error": 1}
    assert summary["skipped_files"] == {"not_python": 1}
    assert summary["rules"]["extensions"] == [".py", ".ipynb"] and summary["rules"]["notebook_version"] >= 1
    occurrences = pd.read_parquet(out / "occurrences.parquet").set_index("name")
    assert occurrences.loc["y", ["path", "cell", "line", "col"]].tolist() == ["b.ipynb", 2, 4, 2]
    assert pd.isna(occurrences.loc["x", "cell"]) and str(occurrences["cell"].dtype) == "Int64"
    assert main(["scan", str(root / "b.ipynb"), "-q", "--json", "--no-save", "-j", "1"]) == 0  # named alone
    [alone] = json.loads(capsys.readouterr().out)
    assert (alone["punnable"], alone["rules"]["extensions"]) == (1, [".py", ".ipynb"]) and "notebook_version" in \
        alone["rules"]
    sheets.write_labels(str(out), "call", context=1)
    sheet = {row["path"]: row for row in read_sheet(out / "labels-call.csv")}
    assert (sheet["b.ipynb"]["cell"], sheet["b.ipynb"]["line"], sheet["a.py"]["cell"]) == ("2", "4", "")
    assert sheet["b.ipynb"]["source"] == "    3 | \n    4 > g(y=y)"  # the cell's lines, as written
    assert "`b.ipynb`, cell 2, line 4, column 2" in (out / "labels-call.md").read_text()


def read_sheet(path):
    from punstats.store import labels
    return labels.read_sheet(str(path))


def test_tables_kept_with_other_columns_are_built_again_from_the_per_file_cache(tmp_path, monkeypatch):
    import punstats
    from punstats.store import reuse
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("f(x=x)\n")
    cache = str(tmp_path / "cache.sqlite3")
    monkeypatch.setattr(reuse, "TABLE_SHAPE", "/tables=before-cell")  # as kept before the cell column
    punstats.scan(str(tmp_path / "src"), jobs=1, cache=cache)
    monkeypatch.undo()
    again = punstats.scan(str(tmp_path / "src"), jobs=1, cache=cache)
    assert again.summary["cache"] == {"cached": 1, "extracted": 0, "tables_reused": False}
    assert "cell" in again.occurrences.columns
    assert punstats.scan(str(tmp_path / "src"), jobs=1, cache=cache).summary["cache"]["tables_reused"]


def test_history_and_a_revision_scan_read_notebooks_from_git_when_asked(tmp_path, capsys):
    import pandas as pd
    from gitrepo import commit, init

    from punstats.cli import main
    repo = tmp_path / "repo"
    init(repo)
    commit(repo, {"a.py": "f(x=x)\n", "nb.ipynb": notebook("g(y=y)\n").decode()}, date="2023-01-01T12:00:00+00:00")
    commit(repo, {"nb.ipynb": notebook("g(y=y)\n", "%time h(z=z)\nk(w=w)\n").decode()},
           date="2023-02-01T12:00:00+00:00")
    found = {}
    for extensions in (".py", ".py,.ipynb"):
        assert main(["history", str(repo), "--every", "commit", "-q", "-j", "1", "--json", "--extensions", extensions,
                     "-o", str(tmp_path / ("h" + extensions))]) == 0
        found[extensions] = [row["punnable"] for row in json.loads(capsys.readouterr().out)]
    assert found == {".py": [1, 1], ".py,.ipynb": [2, 3]}
    out = tmp_path / "rev"
    assert main(["scan", str(repo), "--rev", "HEAD~1", "--extensions", ".py,.ipynb", "-q", "-j", "1",
                 "-o", str(out)]) == 0
    occurrences = pd.read_parquet(out / "occurrences.parquet")
    assert occurrences[["path", "cell", "line", "name"]].astype(object).values.tolist() == [
        ["a.py", pd.NA, 1, "x"], ["nb.ipynb", 1, 1, "y"]]
