"""The most-downloaded PyPI projects: ``top-pypi:N`` and the list it is read from.

This module owns the ranked list of projects that ``punstats corpus
top-pypi:N`` scans.  The default is a pinned snapshot shipped with punstats
(``data/top-pypi-30-days.json``: names, ranks and 30-day download counts from
hugovk/top-pypi-packages, with its date, source and revision), so that a run
is reproducible; ``--top-pypi-list FILE|URL`` names another list, in the
snapshot's format or in hugovk/top-pypi-packages' own (``rows`` of
``{"project", "download_count"}``, ranked by position).  Every name is checked
(PEP 508) and normalised (PEP 503) before it is used; a list that cannot be
used is a one-line ``SourceError`` naming the file or URL.
"""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Protocol, Tuple

from punstats.model import jsondata
from punstats.model.corpus import SourceError
from punstats.sources import pypi
from punstats.sources.local import read_regular

PREFIX = "top-pypi:"

SNAPSHOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "top-pypi-30-days.json")

#: The largest N accepted (the snapshot holds this many projects).
MAX_N = 15000


@dataclass(frozen=True)
class Ranked:
    rank: int  # 1: the most downloaded
    name: str  # PEP 503 normalised
    downloads: Optional[int] = None  # in the list's period, when it says


class Listing(Protocol):
    """What a run scans projects from: a ``TopList``, or ``randompypi.Sample``."""

    @property
    def last_update(self) -> str: ...

    @property
    def projects(self) -> Tuple[Ranked, ...]: ...

    def provenance(self) -> Dict[str, Any]: ...


@dataclass(frozen=True)
class TopList:
    source: str  # where the list came from (its URL or file, and the upstream it copies)
    last_update: str  # the list's own date
    projects: Tuple[Ranked, ...]  # its first rows (``load_list``'s ``first``), or all
    listed: int = -1  # the rows it holds (-1: as many as projects)
    sha256: str = ""  # of its bytes: a list edited in place (same size and date) differs

    def provenance(self) -> Dict[str, Any]:
        listed = {"list": self.source, "last_update": self.last_update, "projects_in_list": self.size}
        return dict(listed, sha256=self.sha256) if self.sha256 else listed

    @property
    def size(self) -> int:
        """How many projects the list holds."""
        return len(self.projects) if self.listed < 0 else self.listed


def parse_spec(argument: str) -> int:
    """N of ``top-pypi:N``; a one-line ``SourceError`` otherwise."""
    return parse_count(argument, PREFIX, MAX_N, "from 1 to %d" % MAX_N)


def parse_count(argument: str, prefix: str, maximum: int, allowed: str) -> int:
    """N of ``<prefix>N`` (``top-pypi:``, ``random-pypi:``), a whole number from 1 to ``maximum``;
    else a one-line ``SourceError`` saying what N may be (``allowed``)."""
    text = argument[len(prefix):] if argument.startswith(prefix) else argument
    if not (text.isascii() and text.isdigit() and len(text) <= len(str(maximum)) and 1 <= int(text) <= maximum):
        raise SourceError("expected %sN with N %s, got %s" % (prefix, allowed, argument))
    return int(text)


def is_spec(argument: str) -> bool:
    return argument.startswith(PREFIX)


def load_list(where: Optional[str] = None, get: pypi.Getter = pypi.http_get, first: Optional[int] = None) -> TopList:
    """The ranked list at ``where`` (a file or an URL; None: the pinned snapshot): its ``first``
    rows (None: all), each checked; a list of a million names costs the reading of its JSON."""
    location = where or SNAPSHOT
    if "://" in location:
        body = get(location)
    else:
        body = read_regular(location, "the project list")
    try:
        data = jsondata.loads(body)
    except ValueError as exc:
        raise SourceError("%s: the project list is not JSON%s"
                          % (location, " (nested too deeply)" if isinstance(exc, jsondata.TooDeep) else "")) from None
    if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
        raise SourceError("%s: a project list needs \"rows\" (hugovk/top-pypi-packages' format)" % location)
    projects = _rows(data["rows"][:first] if first is not None else data["rows"], location)
    upstream = data.get("source")
    source = location if where else "%s (%s at %s)" % (upstream, data.get("file"), data.get("revision"))
    if where and isinstance(upstream, str) and upstream.startswith("http"):
        source = "%s (from %s)" % (location, upstream)
    return TopList(source, str(data.get("last_update") or ""), projects, len(data["rows"]),
                   hashlib.sha256(body if isinstance(body, bytes) else body.encode()).hexdigest())


def _rows(rows: List[Any], location: str) -> Tuple[Ranked, ...]:
    found: List[Ranked] = []
    seen: Dict[str, int] = {}
    for position, row in enumerate(rows, 1):
        if isinstance(row, list) and len(row) == 3:  # the snapshot's [rank, project, downloads]
            rank, name, downloads = row
        elif isinstance(row, dict):
            rank, name, downloads = row.get("rank", position), row.get("project"), row.get("download_count")
        else:
            raise SourceError("%s: row %d is neither [rank, project, downloads] nor {\"project\": ...}"
                              % (location, position))
        name = pypi.canonical_name(pypi.check_name(name, "%s: row %d" % (location, position)))
        if not isinstance(rank, int) or isinstance(rank, bool) or rank != position:
            raise SourceError("%s: row %d has rank %r (rows are listed by rank from 1)" % (location, position, rank))
        if downloads is not None and (not isinstance(downloads, int) or isinstance(downloads, bool)):
            raise SourceError("%s: row %d: download_count must be a whole number" % (location, position))
        if name in seen:
            raise SourceError("%s: %s is listed twice (rows %d and %d)" % (location, name, seen[name], position))
        seen[name] = position
        found.append(Ranked(position, name, downloads))
    if not found:
        raise SourceError("%s: the project list is empty" % location)
    return tuple(found)


def top(n: int, where: Optional[str] = None, get: pypi.Getter = pypi.http_get) -> Tuple[TopList, Tuple[Ranked, ...]]:
    """The list and its first ``n`` projects; an error when it holds fewer."""
    ranked = load_list(where, get, n)  # the rows past N are not looked at
    if n > ranked.size:
        raise SourceError("top-pypi:%d asks for more projects than the list holds (%d)" % (n, ranked.size))
    return ranked, ranked.projects[:n]
