"""An ecosystem run over years: ``corpus top-pypi:N --releases yearly:A..B``.

This module owns the loop over years: for each year, an ordinary ecosystem run
(``runs.ecosystem.run_top``) of the same projects, each read at the release that stood at
the end of that year (``sources.releases``), stored in ``DIR/<year>/`` and described by
``DIR/years.json`` (``store.years``).  One record per project and year; a project without a
release by then is recorded as skipped (``no_release_yet``), so every year holds every project.

The years share the blob cache (and the downloads folder): a file unchanged since an earlier
year is not extracted again, and a release that stood in two years is downloaded once, so
later years cost less than the first.  Each year's run resumes as any run does
(``--skip-existing``: per project and year).

A stored record does not say its year: its folder does (and the year's ``ecosystem.json``).
The records this module hands on (``on_done``, ``YearDone.records``) carry it as ``year``,
added here (``with_year``), so that progress lines and ``--json`` say it.
"""
from __future__ import annotations

import dataclasses
import json
import os
import time
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from punstats import __version__
from punstats.runs.ecosystem import Options, RunError, Timing, run_top
from punstats.sources import pypi
from punstats.sources.releases import YearReleases, releases_text
from punstats.sources.toppypi import Listing, Ranked
from punstats.store.staging import write_atomic
from punstats.store.years import YEARS_FILE, read_description, year_folder


@dataclass(frozen=True)
class YearDone:
    """What one year of the run gave: its records, its ecosystem summary, and its cost in this session."""

    year: int
    records: Tuple[Dict[str, Any], ...]
    ecosystem: Dict[str, Any]
    seconds: float
    files: int  # files scanned in this session (0 for a year resumed whole)


def _prepare(output: str, top: Listing, years: Sequence[int], skip_existing: bool) -> None:
    """``output`` checked against what it holds, and ``years.json`` written."""
    description = {"releases": releases_text(tuple(years)), "years": list(years), "list": top.provenance(),
                   "punstats_version": __version__}
    # a run writes only inside its folder: a year's folder that is a link would lead outside it
    for year in years:
        folder = year_folder(output, year)
        if os.path.islink(folder) or (os.path.lexists(folder) and not os.path.isdir(folder)):
            raise RunError("%s is a symbolic link or no directory, and a run writes only inside its folder; "
                           "remove it, or choose another -o" % folder)
    if os.path.isfile(os.path.join(output, YEARS_FILE)):
        if not skip_existing:
            raise RunError("%s already holds a run over years: resume it with --skip-existing, or choose another -o"
                           % output)
        before = read_description(output)
        if before["years"] != list(years):
            raise RunError("%s was made with --releases %s; use another -o" % (output, before["releases"]))
        return
    if os.path.isdir(output):
        others = sorted(set(os.listdir(output)) - {str(year) for year in years})
        # a run over years writes, and cleans, only what is its own
        if others:
            raise RunError("%s holds other files than a run over years (%s); choose an empty or new -o"
                           % (output, ", ".join(others[:3]) + (", ..." if len(others) > 3 else "")))
    try:
        os.makedirs(output, exist_ok=True)
        write_atomic(os.path.join(output, YEARS_FILE), (json.dumps(description, indent=1) + "\n").encode())
    except OSError as exc:
        raise RunError("cannot write the run to %s: %s" % (output, exc.strerror or exc)) from None


def with_year(record: Dict[str, Any], year: int) -> Dict[str, Any]:
    """A copy of the stored ``record`` of ``year``'s run that says its year (``year``)."""
    return dict(record, year=year)


def run_years(top: Listing, projects: Sequence[Ranked], years: Sequence[int], options: Options,
              get: pypi.Getter = pypi.http_get,
              on_done: Optional[Callable[[Dict[str, Any], bool], None]] = None,
              on_start: Optional[Callable[[int], None]] = None,
              on_begin: Optional[Callable[[str], None]] = None,
              on_wait: Optional[Callable[[str], None]] = None) -> List[YearDone]:
    """Scan ``projects`` at the end of each of ``years`` into ``options.output``, one ecosystem run
    per year; what each year gave, in order.  ``on_start(total)`` is told projects times years."""
    _prepare(options.output, top, years, options.skip_existing)
    if on_start:
        on_start(len(projects) * len(years))
    done = []
    known = YearReleases(years)  # each project's page read once, for all the years
    for year in years:
        timing = Timing()
        start = time.perf_counter()
        yearly = dataclasses.replace(options, output=year_folder(options.output, year), year=year,
                                     year_releases=known)
        told = None if on_done is None else _told(on_done, year)
        records, ecosystem = run_top(top, projects, yearly, get, on_done=told, timing=timing, on_begin=on_begin,
                                     on_wait=on_wait)
        done.append(YearDone(year, tuple(with_year(r, year) for r in records), ecosystem,
                             time.perf_counter() - start, timing.files))
    return done


def _told(on_done: Callable[[Dict[str, Any], bool], None], year: int) -> Callable[[Dict[str, Any], bool], None]:
    """``on_done`` told each record of ``year`` with its year."""
    return lambda record, reused: on_done(with_year(record, year), reused)
