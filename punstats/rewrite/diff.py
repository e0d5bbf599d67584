"""Unified diffs of rewrites, with a/ and b/ paths that ``git apply`` accepts.

A name with a double quote, a backslash, a control character or a byte
outside ASCII is quoted as git quotes it (C-style, in double quotes, other
bytes in octal), so that ``git apply`` reads every name back exactly.
"""
from __future__ import annotations

import difflib
from typing import Iterator, Sequence

from punstats.rewrite.source import Rewrite, git_lines


def unified_diff(rewrite: Rewrite, context: int = 3) -> bytes:
    """A git-style unified diff (``a/PATH`` ``b/PATH``) that ``git apply`` accepts."""
    if not rewrite.changed:
        return b""
    old, new = git_lines(rewrite.old), git_lines(rewrite.new)
    path = rewrite.path.encode("utf-8", "surrogateescape")
    old_name, new_name = quote_path(b"a/" + path), quote_path(b"b/" + path)
    out = [b"diff --git %s %s\n" % (old_name, new_name), b"--- %s\n" % old_name, b"+++ %s\n" % new_name]
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


_ESCAPES = {0x07: b"\\a", 0x08: b"\\b", 0x09: b"\\t", 0x0A: b"\\n", 0x0B: b"\\v", 0x0C: b"\\f",
            0x0D: b"\\r", 0x22: b'\\"', 0x5C: b"\\\\"}


def quote_path(name: bytes) -> bytes:
    """``name`` as git writes it in a diff header: as it is, or C-style quoted."""
    if not any(byte < 0x20 or byte >= 0x7F or byte in (0x22, 0x5C) for byte in name):
        return name
    out = [b'"']
    for byte in name:
        if byte in _ESCAPES:
            out.append(_ESCAPES[byte])
        elif byte < 0x20 or byte >= 0x7F:
            out.append(b"\\%03o" % byte)
        else:
            out.append(bytes((byte,)))
    out.append(b'"')
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

