"""Rewriting a whole tree: which files, in parallel, the totals, and writing back.
"""
from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

from punstats.rewrite.transform import expand, pun
from punstats.rewrite.rewrap import LINE_LENGTH
from punstats.rewrite.source import EXPAND, PUN, Rewrite


@dataclass(frozen=True)
class Summary:
    """Totals over the files of one rewrite run."""

    files: int  # source files read
    changed: int
    edits: int
    joins: int
    skipped: int  # occurrences left as they were (class keywords, f-strings, ...)
    untouched: int  # files left untouched because of an error
    lines_added: int
    lines_removed: int

    @property
    def lines_saved(self) -> int:
        return self.lines_removed - self.lines_added


def summarize(results: Sequence[Rewrite]) -> Summary:
    added = removed = 0
    for result in results:
        a, r = result.diff_counts()
        added += a
        removed += r
    return Summary(
        files=len(results),
        changed=sum(1 for r in results if r.changed),
        edits=sum(len(r.edits) for r in results),
        joins=sum(len(r.joins) for r in results),
        skipped=sum(len(r.skipped) for r in results),
        untouched=sum(1 for r in results if r.error),
        lines_added=added,
        lines_removed=removed,
    )


def _display_path(location: str, rel: str, root: str) -> str:
    """The path shown in diffs: relative to the working directory when inside it."""
    here = os.getcwd()
    full = os.path.abspath(location)
    if full == here or full.startswith(here.rstrip(os.sep) + os.sep):
        return os.path.relpath(full, here).replace(os.sep, "/")
    return rel


def _rewrite_one(job: Tuple[str, str, str, bool, int, str, bool]) -> Rewrite:
    location, path, mode, rewrap, line_length, style, delimited_only = job
    with open(location, "rb") as f:
        data = f.read()
    if mode == EXPAND:
        result = expand(data, path)
    else:
        result = pun(data, path, rewrap=rewrap, line_length=line_length, style=style,
                     delimited_only=delimited_only)
    return dataclasses.replace(result, location=location)


def rewrite_tree(root: str, mode: str = PUN, rewrap: bool = False, line_length: int = LINE_LENGTH,
                 jobs: Optional[int] = 1, extensions: Sequence[str] = (".py",), style: str = "postfix",
                 delimited_only: bool = False) -> Tuple[Rewrite, ...]:
    """Pun (or expand) every source file under ``root`` (or the file ``root``); writes nothing.

    Files are found as ``punstats scan`` finds them (``punstats.discover``);
    results come in that order, with paths relative to the working directory
    when the files are inside it (as ``git apply`` wants them).
    """
    from punstats.discover.tree import discover
    if mode not in (PUN, EXPAND):
        raise ValueError("mode must be %r or %r, not %r" % (PUN, EXPAND, mode))
    found = discover(root, tuple(extensions))
    jobs_list = [(c.location, _display_path(c.location, c.path, found.root), mode, rewrap, line_length,
                  style, delimited_only)
                 for c in found.candidates if not c.status and c.location]
    if jobs == 1 or len(jobs_list) < 2:
        return tuple(_rewrite_one(job) for job in jobs_list)
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(jobs) as pool:
        return tuple(pool.map(_rewrite_one, jobs_list, chunksize=4))


def write(results: Sequence[Rewrite]) -> int:
    """Write every changed file back where it was read from; returns how many."""
    count = 0
    for result in results:
        if result.changed:
            with open(result.location or result.path, "wb") as f:
                f.write(result.new)
            count += 1
    return count

