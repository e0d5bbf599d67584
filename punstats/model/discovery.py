"""What discovery hands on: one ``Candidate`` per file, and the whole ``Discovery``;
and the ``Threshold`` it can be given, to hear when it has found enough files.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Dict, Optional, Tuple


@dataclass(frozen=True)
class Candidate:
    """A file to extract, or a matching entry recorded with the reason it is not."""

    path: str  # relative to the root, POSIX, printable
    location: str  # where to read it; empty when nothing is to be read
    size: int
    status: str = ""  # empty: to be read and extracted
    error: str = ""
    data: Optional[bytes] = None  # the bytes themselves (e.g. a git blob); then location is not read


@dataclass(frozen=True)
class Discovery:
    root: str
    candidates: Tuple[Candidate, ...]
    skipped_dirs: Dict[str, int] = field(default_factory=dict)


#: ``(n, callback)``: discovery calls ``callback(n)`` once, as soon as it has found ``n``
#: candidates, before it looks for the rest (or reads a revision's blobs).  A scan starts
#: its worker pool then, so that the workers do not inherit the list of every file.
Threshold = Tuple[int, Callable[[int], object]]
