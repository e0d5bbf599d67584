"""Which dates git understands: ``--since`` and ``--until`` checked before a history runs.

git reads a date with its approxidate, which accepts almost anything: a date it reads
nothing from means *now*, and a word it does not know is skipped (``last tuesday-ish`` is
last Tuesday).  A window built on such a date is silently wrong, so a date is checked twice:
git's own careful reading (``git config --type=expiry-date``, which fails when approxidate
reads nothing), run with no repository at all, so that no repository's configuration is read;
and every word of it must be one approxidate reads (``DATE_WORDS``), so that none is skipped.
"""
from __future__ import annotations

import os
import re
from typing import Tuple

from punstats.model.errors import OptionError
from punstats.sources.git import GitError, run_git

#: The words git's approxidate reads (git's ``date.c``), each with the shortest prefix it takes:
#: months and weekdays (3 letters), its special words, the numbers one to ten, the units, the
#: time zones it names; and ``ago``, which it skips but which every example of it writes.
DATE_WORDS: Tuple[Tuple[str, int], ...] = (
    *((month, 3) for month in ("january", "february", "march", "april", "may", "june", "july", "august",
                                "september", "october", "november", "december")),
    *((day, 3) for day in ("sundays", "mondays", "tuesdays", "wednesdays", "thursdays", "fridays", "saturdays")),
    *((word, len(word)) for word in ("yesterday", "noon", "midnight", "tea", "pm", "am", "never", "now", "last",
                                     "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                                     "ago", "t")),
    ("seconds", 6), ("minutes", 6), ("hours", 4), ("days", 3), ("weeks", 4), ("months", 5), ("years", 4),
    *((zone, min(3, len(zone))) for zone in (
        "idlw", "nt", "cat", "hst", "hdt", "yst", "ydt", "pst", "pdt", "mst", "mdt", "cst", "cdt", "est", "edt",
        "ast", "adt", "wat", "gmt", "utc", "z", "wet", "bst", "cet", "met", "mewt", "mest", "cest", "mesz", "fwt",
        "fst", "eet", "eest", "wast", "wadt", "cct", "jst", "east", "eadt", "gst", "nzt", "nzst", "nzdt", "idle")),
)

#: What a message suggests instead.
EXAMPLES = "e.g. 2024-01-31, '2024-01-31 12:00', '3 months ago' or 'last tuesday'"


def _known(word: str) -> bool:
    """Whether approxidate reads ``word`` (a run of letters): a prefix, long enough, of one of ``DATE_WORDS``."""
    word = word.lower()
    return any(len(word) >= shortest and name.startswith(word) for name, shortest in DATE_WORDS)


def _git_reads(date: str) -> bool:
    """Whether git's careful reading of ``date`` reads a date from it (no repository: ``--git-dir`` a
    path that is none, so only the command line's configuration is read)."""
    try:
        run_git(os.devnull, "-c", "punstats.date=" + date, "config", "--type=expiry-date", "--get", "punstats.date")
    except GitError as exc:
        if "command-line config" not in str(exc):  # git could not run at all: not the date's fault
            raise
        return False
    return True


def check_date(option: str, date: str) -> None:
    """``OptionError`` (one line: what git did not understand, an example) unless git reads
    all of ``date``; ``option`` names where it was given (``--since``)."""
    if not date:
        return
    if not date.isprintable():
        raise OptionError("%s %r is not a date (%s)" % (option, date, EXAMPLES))
    if not _git_reads(date):
        raise OptionError("%s %r is not a date git understands (%s)" % (option, date, EXAMPLES))
    unknown = [word for word in re.findall(r"[A-Za-z]+", date) if not _known(word)]
    if unknown:
        raise OptionError("%s %r: git reads no date from %r and would skip it (%s)"
                          % (option, date, unknown[0], EXAMPLES))
