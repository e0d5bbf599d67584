"""One line, never a traceback: numbers out of range, stored files nested thousands deep
or of the wrong shape, a full disk, resource limits, absurd commit dates, huge names.

Each bad input ends as ``punstats: error: ...`` with exit status 2 (or a recorded
reason), and a stored scan that was there is left as it was.
"""

import pytest

from punstats import cli

HUGE = "1" * 34


def _error(capsys, argv):
    """The one line ``argv`` prints on standard error; it must exit with status 2."""
    assert cli.main(argv) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("punstats: error: "), lines
    return lines[0]


# -- numbers --------------------------------------------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["scan", ".", "--no-save", "--long", HUGE],
    ["scan", ".", "--no-save", "--max-bytes", HUGE],
    ["scan", ".", "--no-save", "-j", HUGE],
    ["table", "x", "--long", HUGE],
    ["table", "x", "-n", HUGE],
    ["history", ".", "--long", HUGE],
    ["corpus", "top-pypi:3", "--download-cap", HUGE],
    ["corpus", "top-pypi:3", "--download-jobs", HUGE],
    ["scan", ".", "--no-save", "--long", "9" * 5000],  # more digits than int() reads
])
def test_a_number_too_large_is_a_usage_error(capsys, argv):
    line = _error(capsys, argv)
    assert "at most" in line or "expected a whole number" in line
    assert len(line) < 200
