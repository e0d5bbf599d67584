"""The first-parent commits of a range ``A..B``, listed once.

A history of ``A..B`` walks B's first-parent line down to A.  When A is on
that line (``HEAD~300..HEAD``), one ``rev-list`` that stops at A lists
exactly those commits; listing both whole lines and taking A's from B's (what
any other A needs) costs two walks over the repository's whole history.
"""
from __future__ import annotations

from typing import List, Optional

from punstats.sources.git import resolve_commit, run_git


def first_parent_range(gitdir: str, newer: str, older: str) -> Optional[List[str]]:
    """The ids of the first-parent commits of ``newer`` after ``older``, oldest first, in one
    ``rev-list`` call that stops at ``older``, when ``older`` is one of them (then they are
    ``first_parent_shas(newer)`` without ``first_parent_shas(older)``); None when it is not, or
    the listing does not reach it (the caller lists both lines)."""
    old, new = resolve_commit(gitdir, older).sha, resolve_commit(gitdir, newer).sha
    if new == old:
        return []
    out = run_git(gitdir, "rev-list", "--first-parent", "--parents", new, "^" + old, "--")
    lines = [line.split() for line in out.decode().splitlines()]
    # each commit's first parent is the next one listed, the last one's is older: one unbroken line
    chained = all(len(line) > 1 for line in lines) and all(a[1] == b[0] for a, b in zip(lines, lines[1:]))
    if not lines or not chained or lines[-1][1] != old:
        return None
    return [line[0] for line in reversed(lines)]
