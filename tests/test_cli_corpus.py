"""``punstats corpus top-pypi:N`` on a terminal: a progress bar over the projects, with their total,
that reaches it (a resumed run counts the projects it keeps), and none with ``-q``.

The run (``fakerun``) goes against a fake PyPI on 127.0.0.1; standard error is made to look like a
terminal, and the bar is read when it closes (no timing)."""
import sys

import pytest
from fakeindex import FakePyPI
from fakerun import NAMES, make_run

from punstats.cli import common


@pytest.fixture
def bars(monkeypatch):
    """(total, done, unit, the note after the counts) of each bar when it closes."""
    seen = []
    close = common.Progress.close

    def recording(self):
        if self._bar is not None:
            seen.append((self._bar.total, self._bar.n, self._bar.unit, self._bar.postfix))
        close(self)
    monkeypatch.setattr(common.Progress, "close", recording)
    return seen


def terminal(monkeypatch):
    """Standard error (capsys's, once the test runs) taken for a terminal."""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)


def test_the_bar_counts_the_projects_to_their_total(tmp_path, capsys, monkeypatch, bars):
    terminal(monkeypatch)
    index = FakePyPI()
    try:
        _, printed = make_run(tmp_path, "--no-figure", index=index)
        _, again = make_run(tmp_path, "--no-figure", "--skip-existing", index=index)
    finally:
        index.close()
    assert bars[0][:3] == (len(NAMES), len(NAMES), "project")
    assert bars[0][3].startswith(NAMES[-1] + "; ")  # it named each project as it began, and the source read
    assert bars[0][3].endswith(" MB unpacked so far")
    err = capsys.readouterr().err
    assert "0/%d [" % len(NAMES) in err  # drawn on standard error, from 0 of the total
    assert [line.split()[1] for line in printed.splitlines()[:len(NAMES)]] == NAMES  # the lines, above it
    assert bars[1] == (len(NAMES), len(NAMES), "project", None)  # none to scan: each kept one counted
    assert again.count("(already stored)") == len(NAMES) - 1  # every scanned one kept (gamma: skipped, kept)


def test_quiet_draws_no_bar(tmp_path, capsys, monkeypatch, bars):
    terminal(monkeypatch)
    make_run(tmp_path, "--no-figure", "-q")
    assert bars == [] and capsys.readouterr().err == ""


#: Three small projects for ``corpus --kind``: try with finally in and outside tests, f(x=x), f(x=_x).
KIND_PROJECTS = {
    "alpha": {"alpha/core.py": "def f():\n    try:\n        pass\n    finally:\n        return 1\n" * 2 + "f(x=x)\n",
              "tests/test_core.py": "try:\n    pass\nfinally:\n    pass\n"},
    "beta": {"beta/m.py": "g(y=_y, z=z)\n"},
    "gamma": {"gamma/m.py": "h(k=1)\n"},
}


@pytest.fixture
def kind_run(tmp_path, monkeypatch):
    """The command line of a ``corpus top-pypi:3`` run of ``KIND_PROJECTS`` on a fake index (with
    ``TRIES``, the try-with-finally pattern, written beside it)."""
    from fakeindex import sdist, top_list
    from fakerun import TRIES
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    index = FakePyPI()
    for name, files in KIND_PROJECTS.items():
        index.project(name, "1.0", [("%s-1.0.tar.gz" % name, sdist(name, "1.0", files), "sdist")])
    listing = top_list(tmp_path / "list.json", sorted(KIND_PROJECTS))
    (tmp_path / "tries.py").write_text(TRIES)

    def command(*extra):
        return ["corpus", "top-pypi:3", "--top-pypi-list", listing, "--index-url", index.index_url,
                "-o", str(tmp_path / "out"), "-j", "1", "--no-figure", "-q", *extra]
    yield command, str(tmp_path / "tries.py")
    index.close()


def test_a_run_with_one_pattern_is_summarised_about_it(tmp_path, capsys, kind_run):
    from punstats.cli import main
    command, tries = kind_run
    assert main(command("--pattern", tries)) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert [line.split("  ")[-1] for line in lines[:3]] == [
        "try_finally 3 (100.00% of Try nodes)", "try_finally 0 (n/a of Try nodes)", "try_finally 0 (n/a of Try nodes)"]
    assert "  pattern        try_finally: try with finally" in lines
    assert "  all code       3   (100.00% of Try nodes; per project: median 100.00% of Try nodes)" in lines
    assert "  outside tests  2   (100.00% of Try nodes; per project: median 100.00% of Try nodes)" in lines
    assert "  in projects    1 of 3 scanned   (most: alpha 3)" in lines
    assert "  also counted   f(x=x) 2 (50.00% of keyword arguments); --kind NAME for a summary about one" in lines
    again = next(line for line in lines if line.startswith("show it again: "))
    assert again.endswith("punstats report %s; its hits: punstats hits %s" % ((tmp_path / "out",) * 2))
    assert "pooled" not in out.split("ecosystem:")[1].split("tables")[0]  # the f(x=x) shares are not its subject


def test_a_run_about_a_built_in_kind_says_where_it_is_defined(tmp_path, capsys, kind_run):
    from punstats.cli import main
    command, _ = kind_run
    out = tmp_path / "out"
    assert main(command("--kind", "near_miss")) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].endswith("files      1  near_miss 1 (50.00% of keyword arguments)")  # beta: y=_y of 2
    assert "  kind           near_miss: near miss f(x=_x)" in lines
    assert "  defined in     punstats.patterns.built_in.near_miss (built into punstats)" in lines
    assert "  definition     f(x=_x): a call keyword whose value is a name equal to it but for underscores." in lines
    assert "  all code       1   (25.00% of keyword arguments; per project: median 0.00% of keyword arguments)" \
        in lines
    again = next(line for line in lines if line.startswith("show it again: "))
    assert again.endswith("punstats report %s --kind near_miss; its hits: punstats hits %s --kind near_miss"
                          % (out, out))  # near_miss is not the run's default


def test_a_run_about_call_is_the_f_x_x_summary(capsys, kind_run):
    from punstats.cli import main
    command, tries = kind_run
    assert main(command("--pattern", tries, "--kind", "call")) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split("  ")[-1] == "try_finally 3" and "f(x=x)      1" in lines[0]
    assert any(line.startswith("  all code      pooled  50.00% (2 of 4)") for line in lines)
    assert "  pattern try_finally: all code 3 (100.00% of Try nodes), outside tests 2 (100.00% of Try nodes)" in lines


@pytest.mark.parametrize("extra, message", [
    (("--kind", "near_mis"), "punstats: error: unknown kind 'near_mis' (did you mean near_miss?); choose from call,"),
    (("--kind", "functions"), "punstats: error: functions is a count without a unit (no rate to show); choose from"),
    (("--kind", "call", "--json"), "punstats: error: --kind chooses what the printed summary is about; --json prints "
                                   "every count (drop --kind, or --json)"),
    (("--csv",), "punstats: error: --csv copies the tables of each project of a CORPUS.toml; top-pypi stores one "
                 "dataset: write its tables with punstats table DIR --format csv\n"),
])
def test_a_kind_that_cannot_be_summarised_is_refused_before_any_download(tmp_path, capsys, kind_run, extra, message):
    from punstats.cli import main
    command, _ = kind_run
    assert main(command(*extra)) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(message) and captured.err.count("\n") == 1 and captured.out == ""
    assert not (tmp_path / "out").exists()  # nothing read, nothing written


def test_a_corpus_file_prints_each_project_about_the_kind(tmp_path, capsys):
    from punstats.cli import main
    for name, files in KIND_PROJECTS.items():
        for path, text in files.items():
            (tmp_path / name / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / name / path).write_text(text)
    spec = tmp_path / "c.toml"
    spec.write_text('name = "three"\n' + "".join('[[project]]\npath = "%s"\n' % (tmp_path / name)
                                                 for name in KIND_PROJECTS))
    assert main(["corpus", str(spec), "-o", str(tmp_path / "out"), "-j", "1", "-q", "--no-cache",
                 "--kind", "near_miss"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split("  -> ")[0].split("  ")[-1] for line in lines[:3]] == [
        "near_miss 0 (0.00% of keyword arguments)", "near_miss 1 (50.00% of keyword arguments)",
        "near_miss 0 (0.00% of keyword arguments)"]
    assert main(["corpus", str(spec), "-o", str(tmp_path / "out"), "-j", "1", "-q", "--skip-existing",
                 "--kind", "near_mis"]) == 2
    assert "did you mean near_miss?" in capsys.readouterr().err


def test_a_run_counts_a_parameter_row_outside_tests(capsys, kind_run):
    from punstats.cli import main
    command, _ = kind_run
    assert main(command("--kind", "var_positional")) == 0
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("  outside tests  0   (0.00% of function definitions and lambdas;") for line in lines)
    assert any(line.startswith("  all code       0   (0.00% of function definitions and lambdas;") for line in lines)
