"""Options that a combination would leave without effect are refused in one line (``cli/ignored.py``, and
``scan --json --kind``): ``report`` with a figure option and ``--no-figures``, ``--figures-dir`` with
``--embed``; the table options are checked in ``test_cli_evidence``.  Nothing is written when refused."""
import os

import pytest

from punstats.cli import main


def one_line_error(capsys, argv):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and captured.err.startswith("punstats: error: ")
    return captured.err


@pytest.mark.parametrize("extra, error", [
    (["--no-figures", "--embed"], "--no-figures writes no figure, so --embed has nothing to do: drop one of them"),
    (["--no-figures", "--figures-dir", "{tmp}/figs"], "so --figures-dir has nothing to do"),
    (["--embed", "--figures-dir", "{tmp}/figs"],
     "--embed puts the figures into the report, so --figures-dir has nothing to do: drop one"),
    (["--kind", "attribute", "--no-figures", "--embed"], "so --embed has nothing to do"),
])
def test_a_figure_option_the_report_would_ignore_is_one_line(stdlib_subset_scan_dir, tmp_path, capsys, extra, error):
    report = tmp_path / "r.md"
    argv = ["report", stdlib_subset_scan_dir, "-o", str(report)] + [arg.format(tmp=tmp_path) for arg in extra]
    assert error in one_line_error(capsys, argv)
    assert os.listdir(tmp_path) == []


def test_the_figure_options_alone_still_work(stdlib_subset_scan_dir, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    assert main(["report", stdlib_subset_scan_dir, "-o", str(tmp_path / "a.md"), "--embed"]) == 0
    assert main(["report", stdlib_subset_scan_dir, "-o", str(tmp_path / "b.md"), "--figures-dir",
                 str(tmp_path / "figs")]) == 0
    assert os.path.isdir(tmp_path / "figs")
    capsys.readouterr()


def test_scan_json_has_no_subject_to_choose(tmp_path, capsys):
    (tmp_path / "a.py").write_text("g(x=x)\n")
    err = one_line_error(capsys, ["scan", str(tmp_path / "a.py"), "--no-save", "--json", "--kind", "attribute"])
    assert "--kind chooses what the printed summary is about; --json prints every count (drop --kind, or --json)" in err
