"""A random sample of PyPI: ``random-pypi:N --seed S`` and the project list it is drawn from.

This module owns the sample that ``punstats corpus random-pypi:N`` scans,
beside ``top-pypi:N`` (``sources.toppypi``): popular code against average code.
The population is every project the index lists at its simple API root
(``<index>/simple/``, PEP 503 HTML; ``--random-pypi-list FILE|URL`` names
another copy, a saved one for instance).  The list is streamed to a temporary
file within the download limits (``sources.http``) while its sha256 is taken,
then parsed in chunks; each name is checked (PEP 508) and normalised (PEP 503),
names that are not valid are left out and counted, duplicates after
normalisation count once.  The sample is ``random.Random(seed).sample`` of the
sorted names: the same seed and the same list give the same sample.  The
``Sample`` records the list's location, size, sha256, when it was read, the
seed and the names drawn, in draw order (a project's "rank" is its place in
the draw).  A project drawn that has nothing punstats reads is recorded as
skipped by the run: the sample is the N drawn, never drawn again.
"""
from __future__ import annotations

import codecs
import datetime
import hashlib
import html
import os
import random
import re
import tempfile
import time
from dataclasses import dataclass
from typing import IO, Any, Dict, List, Optional, Tuple

from punstats.model.corpus import SourceError
from punstats.sources import pypi
from punstats.sources.local import open_regular
from punstats.sources.toppypi import Ranked, parse_count

PREFIX = "random-pypi:"

#: The largest seed accepted (a whole number, as ``random.Random`` takes it).
MAX_SEED = 2 ** 64 - 1

#: The largest N of ``random-pypi:N`` (the index lists fewer projects).
MAX_N = 10 ** 9 - 1

#: How the sample is drawn, as the run records it.
METHOD = "random.Random(seed).sample(sorted PEP 503 names, N)"

_CHUNK = 1 << 20


@dataclass(frozen=True)
class Sample:
    """N projects drawn from an index's project list; the interface of ``toppypi.TopList``."""

    source: str  # the list's URL or file
    last_update: str  # when the list was read (UTC), or a file's modification time
    projects: Tuple[Ranked, ...]  # the draw, in draw order: rank 1 was drawn first
    seed: int
    names: int  # distinct valid names in the list: the population
    sha256: str  # of the list as read
    bytes: int
    invalid: int = 0  # entries that are not a valid project name, left out

    def provenance(self) -> Dict[str, Any]:
        return {"list": self.source, "last_update": self.last_update, "projects_in_list": self.names,
                "sha256": self.sha256, "bytes": self.bytes, "invalid_names": self.invalid,
                "seed": self.seed, "method": METHOD, "drawn": [p.name for p in self.projects]}


def is_spec(argument: str) -> bool:
    return argument.startswith(PREFIX)


def parse_spec(argument: str) -> int:
    """N of ``random-pypi:N``; a one-line ``SourceError`` otherwise."""
    return parse_count(argument, PREFIX, MAX_N, "a whole number from 1 to %d" % MAX_N)


def parse_seed(text: Optional[str], argument: str) -> int:
    """The seed given with ``--seed``; required, a whole number from 0 to ``MAX_SEED``."""
    if text is None:
        raise SourceError("%s needs --seed S (a whole number; the same seed and list draw the same sample)"
                          % argument)
    if not (text.isascii() and text.isdigit()) or len(text) > 20 or int(text) > MAX_SEED:
        raise SourceError("--seed: expected a whole number from 0 to %d, got %r" % (MAX_SEED, text))
    return int(text)


def simple_url(index_url: str) -> str:
    """The simple API root beside a JSON API (``https://pypi.org/pypi`` -> ``https://pypi.org/simple/``)."""
    base = index_url.rstrip("/")
    if base.endswith("/pypi"):
        base = base[:-len("/pypi")]
    return base + "/simple/"


#: One anchor of a PEP 503 page and its text (a project's name: no markup inside).  Neither its
#: attributes nor its text hold a ``<``: an anchor left open is given up at the next tag, so each
#: character is looked at a bounded number of times (no going back over the rest of a chunk).
_ANCHOR = re.compile(r"<a\b[^<>]*>([^<]*)</a\s*>", re.IGNORECASE)

#: The most text kept between two chunks: an anchor cut by a chunk's end (a name is far shorter).
_TAIL = 64 * 1024


def _anchors(text: str) -> Tuple[List[str], int]:
    """(the anchors' texts of ``text``, where the last one ends)."""
    found, end = [], 0
    for match in _ANCHOR.finditer(text):
        found.append(html.unescape(match.group(1)).strip())
        end = match.end()
    return found, end


def _names(handle: IO[bytes], location: str) -> Tuple[List[str], int, str, int]:
    """(the distinct normalised names, sorted; the invalid entries; sha256; bytes) of a PEP 503
    page, read in chunks (at most ``MAX_DOWNLOAD_BYTES``)."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    digest, size, tail = hashlib.sha256(), 0, ""
    listed: List[str] = []
    invalid = 0
    for chunk in iter(lambda: handle.read(_CHUNK), b""):
        if not size and chunk.lstrip()[:1] in (b"{", b"["):
            raise SourceError("%s: a JSON project list; punstats reads the simple API's HTML (PEP 503)" % location)
        digest.update(chunk)
        size += len(chunk)
        if size > pypi.MAX_DOWNLOAD_BYTES:
            raise SourceError("%s: the project list is over %d bytes" % (location, pypi.MAX_DOWNLOAD_BYTES))
        text = tail + decoder.decode(chunk)
        found, end = _anchors(text)
        tail = text[end:][-_TAIL:]
        for name in found:
            if pypi.valid_name(name):
                listed.append(pypi.canonical_name(name))
            else:
                invalid += 1
    listed.sort()  # in place, and duplicates dropped without a set: memory is the names themselves
    names = [name for i, name in enumerate(listed) if not i or listed[i - 1] != name]
    del listed[:]
    if not names:
        raise SourceError("%s: no project in the list (expected a PEP 503 simple index page)" % location)
    return names, invalid, digest.hexdigest(), size


def _date(seconds: float) -> str:
    return datetime.datetime.fromtimestamp(seconds, datetime.UTC).strftime("%Y-%m-%d %H:%M:%S")


def read_list(location: str, get: pypi.Getter = pypi.http_get) -> Tuple[List[str], int, str, int, str]:
    """(names sorted, invalid entries, sha256, bytes, date) of the project list at ``location``:
    a file (dated by its modification time), or an URL (streamed to a temporary file, dated now)."""
    if "://" not in location:
        fd = open_regular(location, "the project list", pypi.MAX_DOWNLOAD_BYTES)
        try:
            with os.fdopen(fd, "rb", closefd=False) as handle:
                return (*_names(handle, location), _date(os.fstat(fd).st_mtime))
        finally:
            os.close(fd)
    if not pypi.fetchable(location):
        raise SourceError("--random-pypi-list: " + pypi.refusal(location))
    with tempfile.TemporaryFile(prefix="punstats-list-") as handle:
        stream = getattr(get, "stream", None)
        if stream is not None:  # to disk as it arrives, within the download limits
            stream(location, handle)
        else:
            handle.write(get(location))
        date = _date(time.time())
        handle.seek(0)
        return (*_names(handle, location), date)


def draw(names: List[str], n: int, seed: int) -> Tuple[Ranked, ...]:
    """``n`` of the sorted ``names``, drawn with ``seed``, in draw order."""
    return tuple(Ranked(rank, name) for rank, name in enumerate(random.Random(seed).sample(names, n), 1))


def sample(n: int, seed: int, location: str, get: pypi.Getter = pypi.http_get) -> Sample:
    """``n`` projects drawn with ``seed`` from the list at ``location``; an error when it holds fewer."""
    names, invalid, digest, size, date = read_list(location, get)
    if n > len(names):
        raise SourceError("random-pypi:%d asks for more projects than the list holds (%d)" % (n, len(names)))
    return Sample(location, date, draw(names, n, seed), seed, len(names), digest, size, invalid)


def recorded(provenance: Any, n: int, seed: int, location: str) -> Optional[Sample]:
    """The sample a run recorded (``Sample.provenance``), when it was drawn from ``location`` as
    ``random-pypi:n --seed seed``; a one-line error when it was drawn otherwise; None when
    ``provenance`` is not a random sample's."""
    if not isinstance(provenance, dict) or provenance.get("method") != METHOD:
        return None
    drawn = provenance.get("drawn")
    if not isinstance(drawn, list) or not all(pypi.valid_name(name) and pypi.canonical_name(name) == name
                                              for name in drawn):  # each name becomes a file's name
        raise SourceError("the recorded sample is unreadable (not a list of PEP 503 names); use another -o")
    counts = [provenance.get(key, 0) for key in ("seed", "projects_in_list", "bytes", "invalid_names")]
    if len(set(drawn)) != len(drawn) or not all(isinstance(c, int) and not isinstance(c, bool) for c in counts):
        raise SourceError("the recorded sample is unreadable (a name drawn twice, or a count that is not a "
                          "whole number); use another -o")
    given = (location, seed, n)
    before = (provenance.get("list"), provenance.get("seed"), len(drawn))
    if before != given:
        raise SourceError("this run drew random-pypi:%d --seed %s from %s; use another -o for random-pypi:%d "
                          "--seed %d from %s" % (before[2], before[1], before[0], n, seed, location))
    return Sample(location, str(provenance.get("last_update")),
                  tuple(Ranked(rank, name) for rank, name in enumerate(drawn, 1)), seed,
                  int(provenance.get("projects_in_list") or 0), str(provenance.get("sha256")),
                  int(provenance.get("bytes") or 0), int(provenance.get("invalid_names") or 0))
