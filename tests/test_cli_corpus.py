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
    assert bars[0] == (len(NAMES), len(NAMES), "project", NAMES[-1])  # it named each project as it began
    err = capsys.readouterr().err
    assert "0/%d [" % len(NAMES) in err  # drawn on standard error, from 0 of the total
    assert [line.split()[1] for line in printed.splitlines()[:len(NAMES)]] == NAMES  # the lines, above it
    assert bars[1] == (len(NAMES), len(NAMES), "project", None)  # none to scan: each kept one counted
    assert again.count("(already stored)") == len(NAMES) - 1  # every scanned one kept (gamma: skipped, kept)


def test_quiet_draws_no_bar(tmp_path, capsys, monkeypatch, bars):
    terminal(monkeypatch)
    make_run(tmp_path, "--no-figure", "-q")
    assert bars == [] and capsys.readouterr().err == ""
