"""A corpus: a root to scan plus where it came from (source, revision, archive).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Optional, Tuple

from punstats.model.errors import PunstatsError


class SourceError(PunstatsError, ValueError):
    """A corpus argument that cannot be used; the message is for the user."""


@dataclass(frozen=True)
class Corpus:
    name: str
    root: str
    source: str  # what the user named: a path, or "stdlib"
    revision: str  # commit hash, interpreter version, or "" when unknown
    commit_date: str = ""
    # Corpora unpacked from an archive (``pypi:``): what it was (file, sha256,
    # counts, limits) and each member refused, as (member, reason, detail).
    archive: Optional[Dict[str, Any]] = None
    refused_members: Tuple[Tuple[str, str, str], ...] = ()
    # True when ``root`` is a git directory to be read at commit ``revision``
    # (``--rev``, ``git+URL@REV``) rather than a tree on disk.
    is_revision: bool = False

    @property
    def honours_gitignore(self) -> bool:
        """Whether its ``.gitignore`` files apply: a directory on disk, yes; a revision (git
        objects, as committed) or an unpacked archive (not a work tree: what was shipped is
        counted, whatever the archive's own ``.gitignore`` says) never."""
        return not self.is_revision and self.archive is None

