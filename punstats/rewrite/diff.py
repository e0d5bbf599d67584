"""Unified diffs of rewrites, with a/ and b/ paths that ``git apply`` accepts.
"""
from __future__ import annotations

import difflib
from typing import Iterator, Sequence

from punstats.rewrite.source import Rewrite, _split


def unified_diff(rewrite: Rewrite, context: int = 3) -> bytes:
    """A git-style unified diff (``a/PATH`` ``b/PATH``) that ``git apply`` accepts."""
    if not rewrite.changed:
        return b""
    old, new = _split(rewrite.old), _split(rewrite.new)
    path = rewrite.path.encode("utf-8", "surrogateescape")
    out = [b"diff --git a/%s b/%s\n" % (path, path), b"--- a/%s\n" % path, b"+++ b/%s\n" % path]
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        i1, i2, j1, j2 = group[0][1], group[-1][2], group[0][3], group[-1][4]
        out.append(b"@@ -%s +%s @@\n" % (_range(i1, i2), _range(j1, j2)))
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.extend(_prefixed(b" ", old[a1:a2]))
                continue
            out.extend(_prefixed(b"-", old[a1:a2]))
            out.extend(_prefixed(b"+", new[b1:b2]))
    return b"".join(out)


def _range(start: int, stop: int) -> bytes:
    length = stop - start
    first = start + 1 if length else start
    return b"%d" % first if length == 1 else b"%d,%d" % (first, length)


def _prefixed(prefix: bytes, lines: Sequence[bytes]) -> Iterator[bytes]:
    for line in lines:
        yield prefix + line
        if not line.endswith(b"\n"):
            yield b"\n\\ No newline at end of file\n"

