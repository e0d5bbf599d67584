"""A large source parsed in parts: runs of whole top-level statements, each parsed alone.

``ast`` needs about 60 bytes of memory for each byte of source it parses,
so one 20 MB generated module would take a worker past 1 GiB.  A source of
more than ``PART_CHARS`` characters is therefore cut into parts of about
that size, each parsed (``parse_parts``) and walked, then freed, before the
next: the memory a file needs is set by its largest part.

A part begins on a line whose first character, in column 0, is neither a
blank, a comment, a closing bracket nor the start of a clause continuing a
compound statement (``else``, ``elif``, ``except``, ``finally``), and whose
line before does not start with a decorator.  Such a line starts a
top-level statement unless it lies inside a bracket, a string or a
backslash continuation, or follows a decorator spanning lines; in each of
those cases the part before it cannot parse (an unclosed bracket or string,
a line ending in a backslash, a lone decorator).  So when every part
parses, the statements of the parts are exactly the module's, and each part
is parsed after as many blank lines as lines before it, so that every node
keeps the line it has in the whole file.  A part that does not parse is
tried again to a later line (``GROWTH``); if it still does not,
``NotInParts`` is raised and the source is parsed whole, which gives the
file's own syntax error.  Each part has a module node of its own, holding
the part's statements.

Nothing the parser decides depends on other statements, but for the
``barry_as_FLUFL`` future import, whose sources are always parsed whole.

A statement is never cut, and a few are several MB (a generated table as
one dict display).  Processes that share a lock (``share_lock``: the
workers of a pool) parse a part, or a source parsed whole, of more than
``LARGE_CHARS`` one at a time (``one_at_a_time``), and hand the memory its
tree held back to the system before the next: two such parses at once, one
per worker, would set a run's peak.  Standard library only, Python 3.8
syntax.
"""
from __future__ import annotations

import ast
import contextlib
import os
import re
import warnings
from typing import Iterator, Optional, Tuple

from punstats.extract.text import NEWLINE

#: A source of more characters is parsed in parts of about this size.
PART_CHARS = 1 << 19

#: A part (or a source parsed whole) of more characters is parsed, walked and freed by one process
#: at a time among those sharing a lock (``share_lock``: a run's workers): no part is cut inside a
#: statement, and two statements of several MB parsed at once, one per worker, set a run's peak.
LARGE_CHARS = 2 << 20

#: The descriptor this process locks (``flock``) around a large parse; None: no lock is shared.
_shared: Optional[int] = None

#: A part that does not parse is tried again ending past these many times its size; after
#: that the source is parsed whole.
GROWTH = (2, 4, 16)

#: The line break before a line that may begin a part.
_START = re.compile(r"\n(?![ \t\f\v\r\n#)\]}]|(?:else|elif|except|finally)\b)")


class NotInParts(Exception):
    """The source cannot be cut into parts that each parse: it is to be parsed whole."""


def share_lock(descriptor: int) -> bool:
    """Lock ``descriptor``'s file around each large parse of this process (``one_at_a_time``),
    through a description of its own (so that processes that inherited one lock each other out:
    Linux's ``/proc``).  Whether it could; elsewhere, or without ``flock``, large parses run at once."""
    global _shared
    try:
        import fcntl  # noqa: F401
        _shared = os.open("/proc/self/fd/%d" % descriptor, os.O_RDWR | getattr(os, "O_CLOEXEC", 0))
    except (ImportError, OSError):
        return False
    return True


@contextlib.contextmanager
def one_at_a_time(chars: int) -> Iterator[None]:
    """Within it, no other process sharing the lock parses a large part (``LARGE_CHARS``), if
    ``chars`` are that many; on leaving, the memory freed goes back to the system first."""
    if chars <= LARGE_CHARS or _shared is None:
        yield
        return
    import fcntl
    fcntl.flock(_shared, fcntl.LOCK_EX)
    try:
        yield
    finally:
        _trim()
        fcntl.flock(_shared, fcntl.LOCK_UN)


def sharing_lock() -> bool:
    """Whether this process parses its large parts ``one_at_a_time`` with others (``share_lock``)."""
    return _shared is not None


def _trim() -> None:
    """Hand the pages a large tree held back to the system (glibc), before another process parses one."""
    try:
        import ctypes
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass


def in_parts(text: str) -> bool:
    """Whether ``text`` is to be parsed in parts."""
    return len(text) > PART_CHARS and "barry_as_FLUFL" not in text


def parse_parts(text: str, path: str) -> Iterator[Tuple[ast.Module, str, int]]:
    """The parts of ``text`` in order, each as (its tree, its text after the blank lines that
    put it on its lines, its first line).  Raises ``NotInParts`` when a part does not parse
    (``GROWTH``).  A large part is held ``one_at_a_time`` until the caller is done with it."""
    size = PART_CHARS
    start, line = 0, 1
    while start < len(text):
        with contextlib.ExitStack() as held:
            tree, padded, end = _parse_part(text, start, line, path, size, held)
            yield tree, padded, line
            # the caller is done with this part: free it before the next is parsed
            del tree, padded
        # the part's line breaks, counted in place (a part never ends inside a "\r\n")
        line += text.count("\n", start, end) if "\r" not in text else len(NEWLINE.findall(text, start, end))
        start = end


def _parse_part(text: str, start: int, line: int, path: str, size: int,
                held: contextlib.ExitStack) -> Tuple[ast.Module, str, int]:
    """The tree and padded text of the part of ``text`` from ``start`` (on ``line``), and where
    the part ends; a large one parsed ``one_at_a_time``, held until ``held`` closes."""
    large = False
    for reach in (1,) + GROWTH:
        end = _part_end(text, start + size * reach)
        if not large and end - start > LARGE_CHARS:
            large = True
            held.enter_context(one_at_a_time(end - start))
        padded = "\n" * (line - 1) + text[start:end]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return ast.parse(padded, filename=path), padded, end
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            if end == len(text):
                break
    raise NotInParts(path)


def _part_end(text: str, at: int) -> int:
    """The start of the first line at or after ``at`` that may begin a part and does not follow
    a line starting with a decorator, else the text's end."""
    if at >= len(text):
        return len(text)
    for found in _START.finditer(text, at - 1):
        if text[text.rfind("\n", 0, found.start()) + 1] != "@":
            return found.end()
    return len(text)


def line_count(text: str) -> int:
    """The lines of ``text`` as ``ast`` and ``records.count_lines`` count them."""
    if not text:
        return 0
    ends = text.count("\n") if "\r" not in text else len(NEWLINE.findall(text))
    return ends if text.endswith(("\n", "\r")) else ends + 1
