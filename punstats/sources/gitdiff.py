"""What changed between two revisions of a repository: ``git diff-tree``, which runs no
external diff and no textconv, with no rename detection and no submodule left out.

Run as every git call is (``sources.git``: no configuration that could name a program,
a deadline, its process group ended), on a git directory checked already.
"""
from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

from punstats.sources.git import MODE_SUBMODULE, GitError, TreeEntry, run_git, text_of


def numstat(gitdir: str, old: str, new: str) -> List[Tuple[str, str, str]]:
    """(added, deleted, path) of each file changed from ``old`` to ``new`` (``-`` for binary),
    by ``diff-tree``, which runs no external diff and no textconv."""
    out = run_git(gitdir, "diff-tree", "-r", "--numstat", "-z", "--no-renames", "--no-ext-diff",
               "--no-textconv", old, new, "--")
    rows = []
    for record in out.decode("utf-8", "replace").split("\0"):
        parts = record.strip("\n").split("\t")
        if len(parts) >= 3:
            rows.append((parts[0], parts[1], parts[2]))
    return rows


#: The paths whose entry changed, each with its new entry (None: gone).
Changes = List[Tuple[str, Optional[TreeEntry]]]


def changed_entries(gitdir: str, pairs: Sequence[Tuple[str, str]]) -> List[Changes]:
    """For each pair of commits (older, newer): each path whose entry differs between them
    (every blob, link and submodule, as ``list_tree`` lists them) with its entry in the newer,
    or None where it has none.  One ``diff-tree --stdin`` call for every pair, with no rename
    detection and no submodule left out."""
    if not pairs:
        return []
    lines = "".join("%s %s\n" % (new, old) for old, new in pairs)  # a commit, then the one to compare with
    out = run_git(gitdir, "diff-tree", "--stdin", "--always", "-r", "-z", "--no-renames", "--no-ext-diff",
               "--no-textconv", "--ignore-submodules=none", input=lines.encode())
    fields = iter(out.split(b"\0"))
    sections: List[Changes] = []
    for field in fields:
        if not field.startswith(b":"):
            if field:  # the newer commit of the next pair, whose changes follow
                if len(sections) == len(pairs) or field.decode("ascii", "replace") != pairs[len(sections)][1]:
                    raise GitError("git diff-tree answered for another revision: %s" % field[:64].decode(
                        "ascii", "replace"))
                sections.append([])
            continue
        path = text_of(next(fields, b""))
        if not sections:
            raise GitError("git diff-tree answered without naming the revision")
        _, mode, _, oid, status = field.decode().lstrip(":").split(" ")
        sections[-1].append((path, None if status == "D" else
                             TreeEntry(mode, "commit" if mode == MODE_SUBMODULE else "blob", oid, path)))
    if len(sections) != len(pairs):
        raise GitError("git diff-tree answered for %d of %d revisions" % (len(sections), len(pairs)))
    return sections
