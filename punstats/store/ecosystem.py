"""An ecosystem run on disk (``corpus top-pypi:N -o DIR``): its layout, and reading it back.

``runs.ecosystem`` writes the run (its docstring shows the layout); this
module names the files and reads them: the journal (the commit point of
each project), the project records, and a finished run as one value
(``read_run``) that ``table``, ``plot`` and ``report`` show.  A directory is
a run when it holds ``run.json`` and a journal (``is_run``).  The records are
read without their identifier, callee and length counts (``brief``: the
ecosystem summary holds their tops), so a run of many projects reads in
little memory.
"""
from __future__ import annotations

import errno
import json
import os
import stat
import sys
from dataclasses import dataclass
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from punstats.model import jsondata
from punstats.model.errors import one_line
from punstats.model.kinds import Registry
from punstats.model.records import FIELD_PREFIX
from punstats.patterns.built_in import registry_of
from punstats.store.ecosystem_shape import is_count, rules_problem, summary_problem
from punstats.store.shape import names_problem
from punstats.store.staging import StoreError

JOURNAL = "journal.jsonl"
RUN_FILE = "run.json"
ECOSYSTEM_FILE = "ecosystem.json"
TABLES = ("occurrences", "files")


#: The folders of a run, each written only by punstats.
FOLDERS = ("projects",) + TABLES


def foreign_entry(output: str) -> Optional[str]:
    """Why the run in ``output`` must not be read or written: one of its ``FOLDERS`` or its
    journal is a symbolic link or of another type (a run reads and writes only inside its
    folder, and a link there would lead outside it); None when none is."""
    for name in FOLDERS + (JOURNAL,):
        path = os.path.join(output, name)
        try:
            mode = os.lstat(path).st_mode
        except (FileNotFoundError, NotADirectoryError):  # nothing there (the run's own checks say more)
            continue
        except OSError as exc:
            return "%s cannot be examined: %s" % (path, exc.strerror or exc)
        if stat.S_ISLNK(mode):
            return "%s is a symbolic link, and a run reads and writes only inside its folder" % path
        if stat.S_ISDIR(mode) != (name != JOURNAL):
            return "%s is not a %s" % (path, "regular file" if name == JOURNAL else "directory")
    return None


def project_file(output: str, name: str) -> str:
    return os.path.join(output, "projects", name + ".json")


def read_journal(output: str) -> Dict[str, Dict[str, Any]]:
    """Finished projects by name; a line cut short by a kill is ignored."""
    done: Dict[str, Dict[str, Any]] = {}
    try:
        with open(os.path.join(output, JOURNAL), encoding="utf-8") as handle:
            lines = handle.read().split("\n")
    except FileNotFoundError:
        return done
    for line in lines:
        try:
            entry = jsondata.loads(line)
        except ValueError:
            continue
        name = entry.get("project") if isinstance(entry, dict) else None
        if isinstance(name, str) and _a_name(name) and os.path.isfile(project_file(output, name)):
            done[name] = entry
    return done


def _a_name(name: Any) -> bool:
    """Whether a journal's ``project`` can name a file in ``projects/`` (a PyPI name has no path in it)."""
    return isinstance(name, str) and name not in ("", ".", "..") and os.path.basename(name) == name \
        and "/" not in name


def load_record(output: str, name: str) -> Dict[str, Any]:
    """The record of ``name`` as stored; an ``OSError`` for one that is a link (read through no
    link: a record swapped for one is no record of the run) or no regular file."""
    path = project_file(output, name)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise StoreError("%s is a symbolic link, and a run reads only inside its folder" % path) from None
        raise
    with open(fd, encoding="utf-8") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise StoreError("%s is not a regular file" % path)
        return jsondata.load(handle)


#: The counts of a record's measures kept by ``brief``.
_BRIEF = ("files", "keywords", "punnable")


def readable_record(output: str, name: str) -> Optional[Dict[str, Any]]:
    """The record of ``name`` when it reads as punstats wrote it (``_checked``), else None
    (cut, edited: a resumed run scans that project again)."""
    try:
        return _checked(output, name, load_record(output, name))
    except (OSError, ValueError, StoreError):
        return None


def brief(record: Dict[str, Any]) -> Dict[str, Any]:
    """A record without its identifier, callee and length counts (they are in the summary's tops)."""
    if record.get("status") != "scanned" or "measures" not in record:  # only a scanned project has them
        return record
    return dict(record, measures={scope: {k: m[k] for k in _BRIEF} for scope, m in record["measures"].items()})


#: The keys of a scanned project's summary whose values every project of a run holds alike.
SHARED = ("rules", "patterns")


def briefs(records: Iterable[Dict[str, Any]]) -> Iterator[Dict[str, Any]]:
    """``brief`` of each of ``records``, with the ``SHARED`` values of their summaries that are
    equal held once for all of them, and the keys of their dicts once each (``json`` makes new
    ones for each file): the records of a run of many projects are held in less memory, and show
    the same."""
    held: Dict[str, Any] = {}
    for record in records:
        record = _interned(brief(record))
        summary = record.get("summary")
        if isinstance(summary, dict):
            record["summary"] = {key: held.setdefault(json.dumps(value), value) if key in SHARED else value
                                 for key, value in summary.items()}
        yield record


def _interned(value: Any) -> Any:
    """``value`` (JSON) with the keys of its dicts interned (``sys.intern``)."""
    if isinstance(value, dict):
        return {sys.intern(key) if type(key) is str else key: _interned(item) for key, item in value.items()}
    if type(value) is list:
        return [_interned(item) for item in value]
    return value


def is_run(directory: str) -> bool:
    """Whether ``directory`` holds an ecosystem run (finished or not)."""
    return os.path.isfile(os.path.join(directory, RUN_FILE)) and os.path.isfile(os.path.join(directory, JOURNAL))


@dataclass(frozen=True)
class StoredRun:
    """A finished run: where it is, ``run.json``, the ecosystem summary, and the records of its
    projects in rank order (``brief``)."""

    directory: str
    run: Dict[str, Any]
    ecosystem: Dict[str, Any]
    records: Tuple[Dict[str, Any], ...]

    @property
    def registry(self) -> Registry:
        """The rows the run counted: the built-in ones and the patterns its ``run.json`` records."""
        return registry_of({"patterns": (self.run.get("rules") or {}).get("patterns")})

    @property
    def name(self) -> str:
        """What tables and figures call the run: ``top-pypi-N``, ``random-pypi-N-seed-S``."""
        return run_name(self.ecosystem)


def drawn_at_random(ecosystem: Dict[str, Any]) -> bool:
    """Whether the run's projects were drawn at random (``random-pypi:N``), not ranked."""
    return "seed" in (ecosystem.get("list") or {})


def run_spec(ecosystem: Dict[str, Any]) -> str:
    """The corpus argument that made the run: ``top-pypi:N`` or ``random-pypi:N``."""
    return "%s-pypi:%d" % ("random" if drawn_at_random(ecosystem) else "top", int(ecosystem["asked"]))


def folder_name(asked: int, seed: Optional[int] = None) -> str:
    """What a run of ``asked`` projects (drawn with ``seed``, or ranked) is called, in tables,
    figures and reports, and its folder under ``data/`` by default: ``top-pypi-N`` or ``random-pypi-N-seed-S``."""
    return "top-pypi-%d" % asked if seed is None else "random-pypi-%d-seed-%s" % (asked, seed)


def run_name(ecosystem: Dict[str, Any], of_year: bool = True) -> str:
    """What tables and figures call a run: ``top-pypi-N`` or ``random-pypi-N-seed-S`` (``folder_name``),
    and ``-YEAR`` for one year of a run over years (unless not ``of_year``)."""
    name = folder_name(int(ecosystem["asked"]), ecosystem["list"]["seed"] if drawn_at_random(ecosystem) else None)
    year = (ecosystem.get("releases") or {}).get("year") if of_year else None
    return name if year is None else "%s-%s" % (name, year)


def population(ecosystem: Dict[str, Any], short: bool = False) -> str:
    """Which projects a run scanned, in words: "the N most-downloaded PyPI projects" ("the top N
    PyPI projects" when ``short``), or "N PyPI projects drawn at random (seed S)"."""
    asked = int(ecosystem["asked"])
    if drawn_at_random(ecosystem):
        return "%d PyPI projects drawn at random (seed %s)" % (asked, ecosystem["list"]["seed"])
    return ("the top %d PyPI projects" if short else "the %d most-downloaded PyPI projects") % asked


#: The columns of the combined ``occurrences`` dataset a pooled table reads (``pooled_calls``).
POOLED_COLUMNS = ("project", "rank", "name", "name_len", "callee", "in_test", "kind")


def pooled_calls(stored: StoredRun) -> Any:
    """Every ``f(x=x)`` row (kind ``call``) of the run's scanned projects, from its combined dataset
    (``pd.read_parquet(DIR/occurrences)``), in ``POOLED_COLUMNS`` (``pooled_rows``)."""
    return pooled_rows(stored, "call", POOLED_COLUMNS)


def pooled_rows(stored: StoredRun, kind: str, columns: Sequence[str]) -> Any:
    """The rows of ``kind`` of the run's scanned projects, from its combined dataset, in ``columns``
    (``project`` and ``rank`` among them): only the projects its records list as scanned, at their
    rank, so that rows a file of another project left there are not counted."""
    return _pooled(stored, "occurrences", columns, [("kind", "==", kind)])


def pooled_files(stored: StoredRun, columns: Sequence[str]) -> Any:
    """The rows of the run's combined ``files`` dataset of its scanned projects, as ``pooled_rows``."""
    return _pooled(stored, "files", columns, [])


def _pooled(stored: StoredRun, table: str, columns: Sequence[str], filters: List[Tuple[str, str, Any]]) -> Any:
    import pandas as pd
    scanned = {str(r["project"]): int(r["rank"]) for r in stored.records if r["status"] == "scanned"}
    if not scanned:
        return pd.DataFrame({column: [] for column in columns})
    frame = _read_tables(stored.directory, table, sorted(scanned), columns, filters)
    project = frame["project"].astype(str)
    return frame[project.map(scanned).eq(frame["rank"].astype("int64"))].reset_index(drop=True)


def _read_tables(directory: str, table: str, names: Sequence[str], columns: Sequence[str],
                 filters: List[Tuple[str, str, Any]]) -> Any:
    """The rows of ``table`` of the projects ``names``, read from their own files only (a stray
    or damaged file beside them is not read); a one-line ``StoreError`` for one that does not read."""
    import pyarrow
    import pyarrow.parquet as pq
    paths = [os.path.join(directory, table, name + ".parquet") for name in names]
    linked = [path for path in paths if os.path.islink(path)]
    if linked:
        raise StoreError("%s: not read: %s is a symbolic link, and a run reads only inside its folder"
                         % (directory, linked[0]))
    try:
        return pq.read_table(paths, columns=list(columns), filters=filters + [("project", "in", list(names))]
                             ).to_pandas()
    except (OSError, pyarrow.ArrowException) as exc:
        raise StoreError("%s: its %s dataset does not read (changed since the run wrote it?): %s; make the run "
                         "again in a new -o" % (directory, table, one_line(exc)[:300])) from None


def stored_columns(directory: str, columns: Sequence[str], table: str = "occurrences") -> Tuple[str, ...]:
    """Those of ``columns`` that the run's combined ``table`` holds (a run made before notebooks were
    read has no ``cell``)."""
    names = _names(directory, table)
    return tuple(column for column in columns if names is None or column in names)


def field_columns(directory: str) -> Tuple[str, ...]:
    """The ``field_<key>`` columns of the run's combined occurrences (user patterns' fields)."""
    return tuple(name for name in _names(directory, "occurrences") or () if name.startswith(FIELD_PREFIX))


def _names(directory: str, table: str) -> Optional[List[str]]:
    """The columns of the run's combined ``table`` (those of one of its files), None without it."""
    import pyarrow.dataset as ds
    location = os.path.join(directory, table)
    return ds.dataset(location, format="parquet").schema.names if os.path.isdir(location) else None


def _json(path: str, what: str) -> Any:
    try:
        with open(path, encoding="utf-8") as handle:
            value = jsondata.load(handle)
    except (OSError, ValueError) as exc:  # jsondata.TooDeep is a ValueError
        raise StoreError("%s: not a readable %s: %s" % (path, what, one_line(exc))) from None
    if not isinstance(value, dict):
        raise StoreError("%s: not a readable %s (not a JSON object)" % (path, what))
    return value


def read_run(directory: str) -> StoredRun:
    """The finished run in ``directory``; a one-line ``StoreError`` for one that never finished
    or whose journal and summary disagree."""
    foreign = foreign_entry(directory)
    if foreign:
        raise StoreError("%s: not read: %s" % (directory, foreign))
    resume = "resume it with punstats corpus %s -o %s --skip-existing" % (_spec_of(directory), directory)
    if not os.path.isfile(os.path.join(directory, ECOSYSTEM_FILE)):
        raise StoreError("%s is an ecosystem run that never finished (no %s): %s"
                         % (directory, ECOSYSTEM_FILE, resume))
    run = _json(os.path.join(directory, RUN_FILE), "run description")
    problem = rules_problem(run.get("rules", {}))
    if problem:
        raise StoreError("%s: not a run description punstats wrote (its %s is not what punstats writes)"
                         % (os.path.join(directory, RUN_FILE), problem))
    ecosystem = _json(os.path.join(directory, ECOSYSTEM_FILE), "ecosystem summary")
    asked = ecosystem.get("asked")
    if not isinstance(asked, int) or isinstance(asked, bool) or not isinstance(ecosystem.get("projects"), int):
        raise StoreError("%s: not an ecosystem summary punstats wrote (no number of projects)"
                         % os.path.join(directory, ECOSYSTEM_FILE))
    entries = sorted((e for e in read_journal(directory).values()
                      if isinstance(e.get("rank"), int) and 1 <= e["rank"] <= asked), key=lambda e: e["rank"])
    if len(entries) != ecosystem["projects"]:
        raise StoreError("%s: its journal holds %d of the %d projects its %s counts (a run stopped after "
                         "writing it): %s" % (directory, len(entries), ecosystem["projects"], ECOSYSTEM_FILE, resume))
    problem = summary_problem(ecosystem)
    if problem:
        raise StoreError("%s: not an ecosystem summary punstats wrote (its %s is missing or not what punstats "
                         "writes): %s" % (os.path.join(directory, ECOSYSTEM_FILE), problem, resume))
    listed = ecosystem.get("list")
    if not (isinstance(listed, dict) and "list" in listed and "last_update" in listed
            and isinstance(listed.get("seed", 0), (int, str))):
        raise StoreError("%s: not an ecosystem summary punstats wrote (no list of projects)"
                         % os.path.join(directory, ECOSYSTEM_FILE))
    try:
        records = tuple(briefs(_checked(directory, e["project"], load_record(directory, e["project"]))
                               for e in entries))
    except (OSError, ValueError) as exc:
        raise StoreError("%s: a project record is unreadable: %s: %s" % (directory, one_line(exc), resume)) from None
    return StoredRun(directory, run, ecosystem, records)


def _spec_of(directory: str) -> str:
    """The corpus argument of the run in ``directory`` as its ``run.json`` records it: ``random-pypi:N
    --seed S`` for a draw, else ``top-pypi:N`` (a ranked list records no N)."""
    try:
        listed = _json(os.path.join(directory, RUN_FILE), "run description").get("list")
    except StoreError:
        listed = None
    if isinstance(listed, dict) and isinstance(listed.get("drawn"), list) and "seed" in listed:
        return "random-pypi:%d --seed %s" % (len(listed["drawn"]), listed["seed"])
    return "top-pypi:N"


def _checked(directory: str, name: str, record: Any) -> Dict[str, Any]:
    """``record`` if it has the shape ``runs.ecosystem`` writes (what tables, figures and reports
    read), else a one-line ``StoreError`` naming its file."""
    count = is_count
    fine = isinstance(record, dict) and count(record.get("rank")) and isinstance(record.get("project"), str) \
        and record.get("status") in ("scanned", "skipped", "failed")
    if fine and record["status"] == "scanned":
        measures = record.get("measures")
        fine = isinstance(record.get("summary"), dict) and isinstance(measures, dict) and all(
            isinstance(measures.get(scope), dict) and all(count(measures[scope].get(k)) for k in _BRIEF)
            for scope in ("all", "nontest"))
    if not fine:
        raise StoreError("%s: not a project record punstats wrote" % project_file(directory, name))
    wrong = names_problem(record["summary"]) if record["status"] == "scanned" else None
    if wrong:
        raise StoreError("%s: not a project record punstats wrote (%s)" % (project_file(directory, name), wrong))
    return record
