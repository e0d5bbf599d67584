"""An ecosystem run over years (``corpus top-pypi:N --releases yearly:A..B -o DIR``) on disk.

``runs.years`` writes it: ``DIR/years.json`` (the years, the list, the versions) and, for each
year, ``DIR/<year>/``: an ordinary ecosystem run (``store.ecosystem``) of the releases that
stood at the end of that year (``sources.releases``), one record per project.  Each year's
run is read as any run is (``read_run``), so ``table DIR/2019`` shows that year alone; this
module reads the whole (``read_years``), which ``table``, ``plot`` and ``report`` of ``DIR``
show as a trend.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Dict, Tuple

from punstats.model import jsondata
from punstats.model.errors import one_line
from punstats.model.kinds import Registry
from punstats.store.ecosystem import StoredRun, read_run, run_name
from punstats.store.ecosystem_shape import is_count
from punstats.store.staging import StoreError

YEARS_FILE = "years.json"


def is_years(directory: str) -> bool:
    """Whether ``directory`` holds a run over years (finished or not)."""
    return os.path.isfile(os.path.join(directory, YEARS_FILE))


def year_folder(directory: str, year: int) -> str:
    """Where the run of ``year`` is stored."""
    return os.path.join(directory, str(year))


def read_description(directory: str) -> Dict[str, Any]:
    """``years.json`` of the run in ``directory``; a one-line ``StoreError`` when it does not read
    as punstats writes it (``years``: consecutive years, ``releases``: its ``--releases``)."""
    path = os.path.join(directory, YEARS_FILE)
    try:
        with open(path, encoding="utf-8") as handle:
            value = jsondata.load(handle)
    except (OSError, ValueError) as exc:
        raise StoreError("%s: not a readable description of a run over years: %s" % (path, one_line(exc))) from None
    years = value.get("years") if isinstance(value, dict) else None
    fine = isinstance(years, list) and years and all(is_count(y) for y in years) \
        and years == list(range(years[0], years[0] + len(years))) and isinstance(value.get("releases"), str)
    if not fine:
        raise StoreError("%s: not a description of a run over years punstats wrote (no years)" % path)
    return value


@dataclass(frozen=True)
class StoredYears:
    """A finished run over years: where it is, ``years.json``, and each year's run, in order."""

    directory: str
    description: Dict[str, Any]
    runs: Tuple[Tuple[int, StoredRun], ...]

    @property
    def registry(self) -> Registry:
        """The rows the run counted (those of its first year: every year is scanned with the same rules)."""
        return self.runs[0][1].registry

    @property
    def name(self) -> str:
        """What tables and figures call it: ``top-pypi-N-yearly-A-B``."""
        years = self.description["years"]
        return "%s-yearly-%d-%d" % (run_name(self.runs[0][1].ecosystem, of_year=False), years[0], years[-1])


def read_years(directory: str) -> StoredYears:
    """The finished run over years in ``directory``; a one-line ``StoreError`` when a year is
    missing or never finished (resume it with ``--skip-existing``)."""
    description = read_description(directory)
    runs = []
    for year in description["years"]:
        folder = year_folder(directory, year)
        if not os.path.isdir(folder) or os.path.islink(folder):
            raise StoreError("%s: the run of %d is missing (%s): the run over years never finished; resume it "
                             "with --skip-existing" % (directory, year, folder))
        try:
            runs.append((int(year), read_run(folder)))
        # the year's own advice would resume it alone, which a run over years refuses
        except StoreError as exc:
            raise StoreError("%s: the run of %d does not read: resume the run over years with the same command, "
                             "--releases %s and --skip-existing (%s)" % (directory, year, description["releases"],
                                                                         str(exc).split(": resume")[0])) from None
    return StoredYears(directory, description, tuple(runs))
