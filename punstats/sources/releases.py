"""A project's release as it stood at the end of a year, and ``--releases yearly:A..B``.

An ecosystem run over years (``corpus top-pypi:N --releases yearly:2015..2025``) reads, for
each project and year, the release PyPI would have shown as the latest on the 31st of December
of that year (UTC): among the files uploaded before the 1st of January of the next year and not
yanked, the highest version (PEP 440), final releases before pre-releases (a project with only
pre-releases by then gets its highest pre-release); a file uploaded later (a wheel added to an
old release) is not part of what stood then.  Of that release, the file read is chosen as for
today's runs (``pypi.pick_release``: the sdist, else a pure-Python wheel).  A project with no
such file by then has no release that year (``pypi.NO_RELEASE_YET``).

The choice reads the project's JSON document (``releases``, with ``upload_time_iso_8601`` per
file); nothing else is fetched.
"""
from __future__ import annotations

import datetime
import re
import threading
import urllib.parse
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from packaging.version import InvalidVersion, Version

from punstats.model.corpus import SourceError
from punstats.sources import pypi

#: The form of ``--releases``.
YEARLY = "yearly:"

#: The first and last year ``--releases`` takes (PyPI opened in 2003; a year to come has no release).
FIRST_YEAR = 2003

_RANGE = re.compile(r"^(\d{4})\.\.(\d{4})$")


class ReleasesError(SourceError):
    """A ``--releases`` value punstats does not take; one line."""


def last_year() -> int:
    """The last year ``--releases`` takes: the current one (UTC)."""
    return datetime.datetime.now(datetime.UTC).year


def parse_releases(text: str) -> Tuple[int, ...]:
    """The years of ``yearly:A..B`` (A to B, both included), or a one-line ``ReleasesError``."""
    if not isinstance(text, str) or not text.startswith(YEARLY):
        raise ReleasesError("--releases %s: expected yearly:FIRST..LAST, e.g. yearly:2015..2025" % text)
    found = _RANGE.fullmatch(text[len(YEARLY):].strip())
    if not found:
        raise ReleasesError("--releases %s: expected two years, yearly:FIRST..LAST, e.g. yearly:2015..2025" % text)
    first, last = int(found.group(1)), int(found.group(2))
    if first > last:
        raise ReleasesError("--releases %s: the first year comes after the last" % text)
    if first < FIRST_YEAR or last > last_year():
        raise ReleasesError("--releases %s: years from %d to %d (PyPI opened in %d; a year to come has no "
                            "release yet)" % (text, FIRST_YEAR, last_year(), FIRST_YEAR))
    return tuple(range(first, last + 1))


def releases_text(years: Tuple[int, ...]) -> str:
    """``--releases`` as written for ``years``: ``yearly:A..B``."""
    return "%s%d..%d" % (YEARLY, years[0], years[-1])


def cutoff(year: int) -> datetime.datetime:
    """The first moment after ``year`` (UTC): a release stood at the end of the year when uploaded before it."""
    return datetime.datetime(year + 1, 1, 1, tzinfo=datetime.UTC)


def uploaded(entry: Dict[str, Any]) -> Optional[datetime.datetime]:
    """When a release file was uploaded (``upload_time_iso_8601``, else ``upload_time``, read as UTC);
    None when the index gives no readable time."""
    text = entry.get("upload_time_iso_8601") or entry.get("upload_time")
    if not isinstance(text, str):
        return None
    try:
        moment = datetime.datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.UTC)


def standing(releases: Dict[str, Any], year: int) -> List[Tuple[Version, str, List[Dict[str, Any]]]]:
    """(version, as written, files) of each release with a file uploaded by the end of ``year`` and
    not yanked, with those files only; versions that are not PEP 440 are left out."""
    end = cutoff(year)
    found = []
    for written, files in releases.items():
        kept = [e for e in files if isinstance(e, dict) and not e.get("yanked")
                and (uploaded(e) or end) < end] if isinstance(files, list) else []
        try:
            version = Version(written)
        except (InvalidVersion, TypeError):
            continue
        if kept:
            found.append((version, written, kept))
    return found


def choose(releases: Dict[str, Any], year: int) -> Optional[Tuple[str, List[Dict[str, Any]]]]:
    """(version, its files) of the release that stood at the end of ``year`` (the module's rule), or None."""
    found = standing(releases, year)
    final = [r for r in found if not r[0].is_prerelease]
    chosen = max(final or found, key=lambda r: r[0], default=None)
    return None if chosen is None else (chosen[1], chosen[2])


def release_as_of(name: str, year: int, get: pypi.Getter = pypi.http_get,
                  index_url: str = pypi.INDEX_URL) -> pypi.Sdist:
    """The file punstats reads of ``name``'s release at the end of ``year``; ``pypi.Unavailable``
    (``pypi.NO_RELEASE_YET``, or the reason ``pypi.pick_release`` gives) when there is none."""
    found = releases_as_of(name, (year,), get, index_url)[year]
    if isinstance(found, Exception):
        raise found
    return found


def releases_as_of(name: str, years: Sequence[int], get: pypi.Getter = pypi.http_get,
                   index_url: str = pypi.INDEX_URL) -> Dict[int, Union[pypi.Sdist, SourceError]]:
    """For each of ``years``, the file punstats reads of ``name``'s release at its end, or the error
    (``pypi.Unavailable``: why there is none; a version the index wrote wrong) that year's record
    gives: all from one read of the project's page, so that a run over years asks the index once per
    project (an error reading the page is raised)."""
    spec = pypi.Spec(pypi.check_name(name, "project"), None)
    url = "%s/%s/json" % (index_url, urllib.parse.quote(spec.name))
    releases = pypi.project_json(get, url, spec).get("releases")
    if not isinstance(releases, dict):
        raise pypi.FetchError("%s: unexpected JSON from the index (no releases)" % url)
    found: Dict[int, Union[pypi.Sdist, SourceError]] = {}
    for year in years:
        chosen = choose(releases, year)
        try:
            if chosen is None:
                raise pypi.Unavailable("%s had no release on PyPI by the end of %d" % (spec.name, year),
                                       pypi.NO_RELEASE_YET)
            found[year] = pypi.pick_release(spec.name, pypi.check_version(chosen[0], url), chosen[1], url)
        except SourceError as exc:  # Unavailable, a version written wrong: this year's, not the others'
            found[year] = exc
    return found


class YearReleases:
    """The releases of each project at the end of each year of a run over years, read from the
    index once per project and kept for the later years (a few small records per project);
    shared by the fetch threads of every year's run."""

    def __init__(self, years: Sequence[int]) -> None:
        self.years = tuple(years)
        self.found: Dict[str, Dict[int, Union[pypi.Sdist, SourceError]]] = {}
        self.lock = threading.Lock()

    def release(self, name: str, year: int, get: pypi.Getter, index_url: str) -> pypi.Sdist:
        """``release_as_of(name, year)``, the index asked only the first time ``name`` is."""
        with self.lock:
            known = self.found.get(name)
        if known is None:
            known = releases_as_of(name, self.years, get, index_url)
            with self.lock:
                self.found[name] = known
        chosen = known[year]
        if isinstance(chosen, Exception):
            raise chosen
        return chosen
