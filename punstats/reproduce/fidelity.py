"""Rewrite fidelity: ``rewrite`` of a punning commit's parent against the commit itself.

Both sides are read from git objects (nothing is checked out or written): for
every ``.py`` file the commit changed (added and deleted files aside), the
parent's blob is punned in memory (``punstats.rewrite.pun``, with the options
given) and compared byte for byte with the commit's blob; lines saved are
counted on both sides as ``git diff --numstat`` does.  ``reproduce rewrite``
prints the result; ``reports/rewrite.md`` explains the remaining differences.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any, Dict, List, Sequence, Tuple

from punstats.rewrite.source import line_opcodes
from punstats.rewrite.transform import pun
from punstats.sources import git as gitsource


@dataclass(frozen=True)
class FileFidelity:
    """One file the commit changed: the commit's bytes, punstats' bytes, lines saved by each."""

    path: str
    ours: bytes
    commit: bytes
    ours_saved: int
    commit_saved: int
    error: str = ""  # punstats left the file untouched (the reason)

    @property
    def identical(self) -> bool:
        return self.ours == self.commit

    def line_diff(self, limit: int = 12) -> List[str]:
        """The first ``limit`` lines of a unified diff, punstats' side first."""
        a = self.ours.decode("utf-8", "replace").splitlines()
        b = self.commit.decode("utf-8", "replace").splitlines()
        out = list(difflib.unified_diff(a, b, "punstats", "commit", n=0, lineterm=""))[2:]
        return out[:limit]


def changed_files(gitdir: str, commit: str) -> List[Tuple[str, str, str]]:
    """(path, old blob, new blob) of every file ``commit`` changed against its first parent
    (an added or deleted file has an all-zero id on that side)."""
    out = gitsource.run_git(gitdir, "diff-tree", "-r", "-z", "--no-renames", "--no-ext-diff", "--no-textconv",
                         commit + "^", commit)
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    files = []
    for i in range(0, len(fields) - 1, 2):
        meta, path = fields[i], fields[i + 1]
        if meta.startswith(":"):
            parts = meta.split()
            files.append((path, parts[2], parts[3]))
    return files


def net_saved(old: bytes, new: bytes) -> int:
    """Lines removed minus lines added, as ``git diff --numstat`` counts them."""
    removed = added = 0
    for tag, i1, i2, j1, j2 in line_opcodes(old, new):
        if tag != "equal":
            removed += i2 - i1
            added += j2 - j1
    return removed - added


def compare(gitdir: str, commit: str, rewrap: bool = True, **pun_options: Any) -> List[FileFidelity]:
    """Every ``.py`` file ``commit`` modified, punned from its parent's blob (``pun_options``:
    ``style``, ``delimited_only``, ``line_length``)."""
    rows = []
    with gitsource.BlobReader(gitdir) as reader:
        for path, old_oid, new_oid in changed_files(gitdir, commit):
            if not path.endswith(".py") or set(old_oid) == {"0"} or set(new_oid) == {"0"}:
                continue
            old, theirs = reader.read(old_oid), reader.read(new_oid)
            result = pun(old, path, rewrap=rewrap, **pun_options)
            rows.append(FileFidelity(path, result.new, theirs, net_saved(old, result.new),
                                     net_saved(old, theirs), result.error))
    return rows


def summary(rows: Sequence[FileFidelity]) -> Dict[str, Any]:
    """Files compared, byte-identical ones (and their percentage), lines saved on each side."""
    n = len(rows)
    same = sum(1 for r in rows if r.identical)
    return {"files": n, "identical": same, "percent": round(100.0 * same / n, 1) if n else 0.0,
            "ours_saved": sum(r.ours_saved for r in rows),
            "commit_saved": sum(r.commit_saved for r in rows)}
