"""Which dates git understands (sources/gitdate.py): git's careful reading, and no word skipped."""
import pytest

from punstats.model.errors import OptionError
from punstats.sources.gitdate import check_date


@pytest.mark.parametrize("date", [
    "", "2024-01-31", "2024-01-31 12:00:00 +0100", "2024-01-31T12:00:00Z", "12/31/2023", "yesterday", "now",
    "3 days ago", "3.days.ago", "2 weeks", "1 month ago", "1.5 years ago", "last tuesday", "jan 2024",
    "Jan 5 2024 3pm", "Tue, 5 Mar 2024 10:00:00 CET",
])
def test_a_date_git_reads_whole_passes(date):
    check_date("--since", date)


@pytest.mark.parametrize("date, problem", [
    ("last tuesday-ish", "git reads no date from 'ish' and would skip it"),
    ("next friday", "is not a date git understands"),  # 'friday' without a number: nothing read
    ("2024-01-01 or so", "git reads no date from 'or' and would skip it"),
    ("all", "git reads no date from 'all' and would skip it"),  # git config's own word, not approxidate's
    ("garbage", "is not a date git understands"),  # git reads nothing: it would mean now
    ("tuesday", "is not a date git understands"),  # a weekday alone: approxidate reads nothing
    ("2024\n01", "is not a date"),
])
def test_a_date_git_would_misread_is_refused(date, problem):
    with pytest.raises(OptionError) as caught:
        check_date("--until", date)
    assert str(caught.value).startswith("--until %r" % date) and problem in str(caught.value)
