"""What discovery hands on: one ``Candidate`` per file, and the whole ``Discovery``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Optional, Tuple


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

