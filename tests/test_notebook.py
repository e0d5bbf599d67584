"""``notebooks/01-explore.ipynb``: stored without outputs, and it runs top to
bottom (nbclient, a python3 kernel on this interpreter) against a real scan."""
import copy
import json
import os
import re
import sys

import nbformat
import pytest
from nbclient import NotebookClient

import punstats

NOTEBOOK = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "notebooks", "01-explore.ipynb")


@pytest.fixture(scope="module")
def notebook():
    return nbformat.read(NOTEBOOK, as_version=4)


def test_notebook_is_stored_without_outputs(notebook):
    nbformat.validate(notebook)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert code and all(cell.outputs == [] and cell.execution_count is None for cell in code)
    assert notebook.metadata.kernelspec.name == "python3"


@pytest.fixture
def python3_kernel_on_this_interpreter(tmp_path, monkeypatch):
    """A ``python3`` kernelspec that runs ``sys.executable``, found before any
    other (``JUPYTER_PATH`` comes first), so the kernel sees this punstats."""
    spec = tmp_path / "jupyter" / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (punstats tests)", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", os.pathsep.join(
        [str(tmp_path / "jupyter")] + [p for p in [os.environ.get("JUPYTER_PATH")] if p]))


def test_notebook_runs_top_to_bottom(notebook, stdlib_subset_dir, stdlib_subset_scan_dir,
                                     python3_kernel_on_this_interpreter, monkeypatch):
    monkeypatch.delenv("PUNSTATS_SCAN", raising=False)
    monkeypatch.setenv("PUNSTATS_SCAN_PATH", stdlib_subset_dir)  # a real part of the standard library
    notebook = copy.deepcopy(notebook)
    client = NotebookClient(notebook, kernel_name="python3", timeout=300, allow_errors=False,
                            resources={"metadata": {"path": os.path.dirname(NOTEBOOK)}})
    client.execute()  # raises CellExecutionError if any cell fails

    outputs = [output for cell in notebook.cells if cell.cell_type == "code" for output in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    markdown = "".join(o.data.get("text/markdown", "") for o in outputs if o.output_type == "display_data")
    # the notebook's own scan gives the stored scan's numbers
    stored = punstats.load(stdlib_subset_scan_dir).summary
    assert "%d headline occurrences" % stored["punnable"] in text
    assert re.search(r"^\| Keyword arguments of the form `f\(x=x\)` +\| +%s \|$" % format(stored["punnable"], ","),
                     markdown, re.M)
    assert "<sup>1</sup>" in markdown and "[^" not in markdown  # JupyterLab renders no footnotes
    pngs = [o for o in outputs if o.output_type == "display_data" and "image/png" in o.data]
    assert len(pngs) == 7  # five per scan, projects, kinds


def test_notebook_finds_a_relative_scan_from_where_jupyter_was_started(
        notebook, stdlib_subset_scan_dir, python3_kernel_on_this_interpreter, monkeypatch, tmp_path):
    started = tmp_path / "project"
    started.mkdir()
    monkeypatch.chdir(started)
    monkeypatch.setenv("PWD", str(started))  # what a shell sets when the user runs `jupyter lab` here
    monkeypatch.setenv("PUNSTATS_SCAN", os.path.relpath(stdlib_subset_scan_dir, str(started)))
    monkeypatch.delenv("PUNSTATS_SCAN_PATH", raising=False)
    notebook = copy.deepcopy(notebook)
    client = NotebookClient(notebook, kernel_name="python3", timeout=300, allow_errors=False,
                            resources={"metadata": {"path": os.path.dirname(NOTEBOOK)}})  # the kernel runs there
    client.execute()
    text = "".join(o.get("text", "") for cell in notebook.cells if cell.cell_type == "code"
                   for o in cell.outputs if o.output_type == "stream")
    stored = punstats.load(stdlib_subset_scan_dir).summary
    assert "%d headline occurrences" % stored["punnable"] in text


def test_notebook_api_displays(stdlib_subset_scan_dir, tmp_path, capsys):
    from punstats.present import plots
    result = punstats.load(stdlib_subset_scan_dir)
    html = result._repr_html_()
    s = result.summary
    assert len(html) < 2000 and "<table>" in html and "stdlib-subset" in html
    assert "%.2f%%" % s["punnable_nontest_pct"] in html and format(s["punnable"], ",") in html
    assert {"scan", "load", "ScanResult"} <= set(dir(punstats))
    plot = plots.length_histogram(result)
    assert plot._repr_png_().startswith(b"\x89PNG\r\n\x1a\n")
    (tmp_path / "a.py").write_text("f(x=x)\n")
    again = punstats.scan(str(tmp_path), progress=True, jobs=1)  # raised TypeError: 'bool' is not callable
    assert again.summary["punnable"] == 1 and "1/1" in capsys.readouterr().err


def test_the_first_code_cell_is_the_result_in_a_few_lines(notebook):
    first = next(cell for cell in notebook.cells if cell.cell_type == "code")
    assert len(first.source.splitlines()) <= 4 and "punstats.load_or_scan()" in first.source
