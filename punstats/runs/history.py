"""Scanning many revisions of one repository: the trend of the counts.

Selects first-parent commits (a date window, a range ``A..B``, then every
commit, the last of each month, or every Nth), scans each revision straight
from the object store and keeps one row per revision.  After the first
revision only the files that changed since the one before are looked at
(``runs.revisions``), and those go through the incremental cache, so a blob
shared by many revisions is read and extracted once: a hundred revisions
cost little more than the files that changed between them, and a history
run again costs little more than reading what changed.
"""
from __future__ import annotations

import dataclasses
import datetime
import hashlib
import json
import os
import platform
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple

from punstats import __version__
from punstats.analysis import units
from punstats.model.errors import OptionError
from punstats.model.kinds import Kind
from punstats.patterns.built_in import registry_of
from punstats.runs import revisions
from punstats.runs.options import ScanOptions
from punstats.sources import git as gitsource
from punstats.sources.gitprocess import GitError
from punstats.sources.gitrange import first_parent_range
from punstats.sources.local import printable
from punstats.store.places import Layout
from punstats.store.staging import WRITING_FILE, Staging

if TYPE_CHECKING:
    import pandas as pd

#: What a stored history's directory holds; ``history.json`` (its provenance) marks it.
HISTORY = Layout("history", frozenset({"history.parquet", "history.csv", "history.json"}), "history.json",
                 WRITING_FILE, patterns=("*-history.png", "*-history.svg"))  # the trend figure

#: The columns of a history table, after ``commit``, ``date`` and ``subject``.
COUNT_COLUMNS = ("files", "parsed", "failed", "calls", "keywords", "punnable", "punnable_pct",
                 "punnable_nontest_pct", "long", "long_nontest")


#: Every column of a history table but those of the scans' own patterns (``pattern_counts``).
FIXED_COLUMNS = ("commit", "date", "subject", *COUNT_COLUMNS, "files_from_cache", "files_extracted")


def pattern_counts(summary: Dict[str, Any]) -> Dict[str, Any]:
    """Each user pattern of a revision's scan (``patterns.built_in.registry_of``): its count and its
    count outside tests (``<name>_nontest``), each against the pattern's unit (``measure_columns``),
    and the files a pattern raised on (``pattern_errors``); a name that is a column already gets
    ``pattern_``."""
    counts: Dict[str, Any] = {}
    registry = registry_of(summary)
    user = registry.user
    followed = tuple(registry[name] for name in summary.get("followed") or () if name in registry)
    for kind in (*user, *followed):
        column = pattern_column(kind.name)
        counts[column] = units.count(summary, kind)
        counts[column + "_nontest"] = units.count(summary, kind, nontest=True)
        for name, nontest in zip(measure_columns(kind), (False, True)):
            part = counts[column + "_nontest" if nontest else column]
            whole = units.denominator(summary, kind.per, nontest)
            counts[name] = units.share(part, whole) if units.is_share(kind.per) else units.rate(part, whole)
    if user:
        counts["pattern_errors"] = (summary.get("failed_by_reason") or {}).get("pattern_error", 0)
    return counts


def check_columns(kinds: Sequence[Kind]) -> None:
    """An ``OptionError`` when two of the history's columns would have one name: a pattern's
    (``pattern_columns``) and another pattern's, a fixed column or ``pattern_errors`` (patterns
    ``a`` and ``a_nontest`` both make ``a_nontest``; ``punnable`` and ``pattern_punnable`` both
    make ``pattern_punnable``): each column means one thing."""
    owners: Dict[str, str] = {column: "a column of every history" for column in (*FIXED_COLUMNS, "pattern_errors")}
    for kind in kinds:
        counted, measured = pattern_columns(kind)
        for column in (*counted, *measured):
            if column in owners:
                raise OptionError("the pattern %s would make the history column %s, which is %s: give the "
                                  "pattern another name" % (shown_name(kind.name), column, owners[column]))
            owners[column] = "the pattern %s's" % shown_name(kind.name)


def shown_name(name: str) -> str:
    """A pattern's name in a message: at most 60 characters of it."""
    return name if len(name) <= 60 else name[:57] + "..."


def pattern_columns(kind: Kind) -> Tuple[Tuple[str, str], Tuple[str, ...]]:
    """A pattern's count columns (all code, outside tests) and its measure columns (``measure_columns``)."""
    column = pattern_column(kind.name)
    return (column, column + "_nontest"), measure_columns(kind)


def pattern_column(name: str) -> str:
    """A pattern's count column: its name, or ``pattern_<name>`` where that is a fixed column."""
    return name if name not in FIXED_COLUMNS else "pattern_" + name


def measure_columns(kind: Kind) -> Tuple[str, ...]:
    """The columns of a pattern's measure in all code and outside tests: ``<name>_pct`` for a share
    of a unit of syntax, else ``<name>_per_million_<unit>`` (``units.is_share``); none without a unit."""
    if not kind.per:
        return ()
    column = pattern_column(kind.name)
    suffix = "pct" if units.is_share(kind.per) else "per_million_" + kind.per
    return column + "_" + suffix, column + "_nontest_" + suffix


def select(commits: Sequence[gitsource.Commit], every: str = "commit") -> List[gitsource.Commit]:
    """``commits`` (oldest first) thinned out: ``commit`` keeps all, ``month``
    the last of each calendar month (committer date), a number N every Nth
    counting from the newest; the newest commit is always kept."""
    if not commits:
        return []
    if every == "commit":
        return list(commits)
    if every == "month":
        last: Dict[str, gitsource.Commit] = {}
        for commit in commits:
            last[commit.date[:7]] = commit
        return list(last.values())
    try:
        step = int(every)
    except ValueError:
        shown = every if len(every) <= 40 else every[:40] + "..."  # int() reads at most 4300 digits
        raise OptionError("--every takes commit, month or a number, not %r" % shown) from None
    if step < 1:
        raise OptionError("--every needs a number of at least 1")
    newest_first = list(commits)[::-1][::step]
    return newest_first[::-1]


def commits_of(repo: str, since: str = "", until: str = "", rev_range: str = "HEAD",
               gitdir: Optional[str] = None, last: int = 0) -> List[gitsource.Commit]:
    """First-parent commits of ``rev_range`` (a revision, or ``A..B``), oldest first: the newest
    ``last`` of them, if not 0; ``gitdir``: ``repo``'s git directory, checked already
    (``sources.git.git_dir``)."""
    gitdir = gitdir or gitsource.git_dir(repo)
    if ".." not in rev_range:
        return gitsource.read_commits(gitdir, gitsource.first_parent_shas(gitdir, rev_range, since, until, last))
    older, _, newer = rev_range.partition("..")  # only the commits kept are read
    # the usual A..B, A on B's first-parent line and no dates, is one listing that stops at A
    shas = None if since or until else first_parent_range(gitdir, newer or "HEAD", older)
    if shas is None:
        excluded = set(gitsource.first_parent_shas(gitdir, older))
        shas = [sha for sha in gitsource.first_parent_shas(gitdir, newer or "HEAD", since, until)
                if sha not in excluded]
    return gitsource.read_commits(gitdir, shas[-last:] if last else shas)


def history(repo: str, commits: Sequence[gitsource.Commit], *, cache: Any = True,
            on_revision: Optional[Callable[[gitsource.Commit, Dict[str, Any]], None]] = None,
            options: Optional[ScanOptions] = None, gitdir: Optional[str] = None,
            on_vanished: Optional[Callable[[gitsource.Commit], None]] = None, followed: Sequence[Kind] = (),
            **settings: Any) -> pd.DataFrame:
    """One row per commit (oldest first): its date, counts and how its files were got; ``options``
    (or ``settings``, ``punstats.scan``'s keywords) as each revision is scanned; ``gitdir``:
    ``repo``'s git directory, checked already (``sources.git.git_dir``).

    Each revision costs what changed since the one before (``runs.revisions``); its counts
    are those of a scan of it (``row``).  A commit no longer in the repository (rewritten and
    pruned since ``commits`` were listed) has no row: ``on_vanished`` is told of it.  ``followed``:
    built-in kinds of occurrences (``attribute``, ``near_miss``, ...) given columns as a pattern's."""
    return table_of(history_rows(repo, commits, cache=cache, on_revision=on_revision, options=options,
                                 gitdir=gitdir, on_vanished=on_vanished, followed=followed, **settings))


def history_rows(repo: str, commits: Sequence[gitsource.Commit], *, cache: Any = True,
                 on_revision: Optional[Callable[[gitsource.Commit, Dict[str, Any]], None]] = None,
                 options: Optional[ScanOptions] = None, gitdir: Optional[str] = None,
                 on_vanished: Optional[Callable[[gitsource.Commit], None]] = None, followed: Sequence[Kind] = (),
                 **settings: Any) -> List[Dict[str, Any]]:
    """The rows of ``history`` (``row``), before they are a table: a run whose stored history
    holds them already needs no pandas (``kept``)."""
    options = ScanOptions.given(options, settings)
    if options.engine == "dask" and options.scheduler is None:  # one local cluster for every revision
        from punstats.engines.dask import local_cluster
        with local_cluster(options.jobs) as address:
            return history_rows(repo, commits, cache=cache, on_revision=on_revision, gitdir=gitdir,
                                on_vanished=on_vanished, options=dataclasses.replace(options, scheduler=address),
                                followed=followed)
    options.check()
    options.check_revision()
    check_columns(tuple(options.patterns) + tuple(followed))  # before any revision is read
    gitdir = gitdir or gitsource.git_dir(repo)
    listed, commits = len(commits), present(gitdir, commits, on_vanished)
    if listed and not commits:
        raise GitError("none of the %d commits listed is in %s any more (rewritten while history started?): "
                       "run it again" % (listed, printable(repo)))
    rows: List[Dict[str, Any]] = []
    with revisions.sweep(gitdir, options, cache, followed) as sweep:
        try:
            for commit, (summary, counts) in zip(commits, sweep.revisions([commit.sha for commit in commits])):
                rows.append(row(commit, summary, counts))
                if on_revision:
                    on_revision(commit, rows[-1])
        except GitError as exc:
            # a commit listed a moment ago that git cannot read: rewritten meanwhile (a deadline is said as is)
            if not present(gitdir, commits[len(rows):len(rows) + 1]):
                raise GitError("%s (the repository was rewritten while history read it: run it again)"
                               % exc) from None
            raise
    return rows


def present(gitdir: str, commits: Sequence[gitsource.Commit],
            on_vanished: Optional[Callable[[gitsource.Commit], None]] = None) -> List[gitsource.Commit]:
    """Those of ``commits`` still in the repository (asked of git once); ``on_vanished`` is told of
    each of the others (rewritten and pruned since they were listed)."""
    found = gitsource.blob_sizes(gitdir, [commit.sha for commit in commits])
    for commit in commits:
        if commit.sha not in found and on_vanished:
            on_vanished(commit)
    return [commit for commit in commits if commit.sha in found]


def row(commit: gitsource.Commit, summary: Dict[str, Any], cache_counts: Optional[Dict[str, int]] = None
        ) -> Dict[str, Any]:
    """A history's row of a revision: its commit, the counts of its scan's ``summary``
    (``runs.scan``, or ``runs.revisions``), and how its files were got (``cache_counts``:
    ``cached`` and ``extracted``; without them, every file was extracted)."""
    counts = cache_counts or {}
    result: Dict[str, Any] = {"commit": commit.sha, "date": commit.date, "subject": commit.subject}
    result.update({key: summary[key] for key in COUNT_COLUMNS})
    for key in ("punnable_pct", "punnable_nontest_pct"):  # of no keyword argument: NaN, shown n/a
        result[key] = units.stored_share(summary, key)
    result.update(pattern_counts(summary))
    result["files_from_cache"] = counts.get("cached", 0)
    result["files_extracted"] = counts.get("extracted", summary["files"])
    return result


def table_of(rows: Sequence[Dict[str, Any]]) -> pd.DataFrame:
    """The history table of ``rows`` (``row``): the fixed columns, then each pattern's."""
    import pandas as pd
    patterns = list(dict.fromkeys(key for r in rows for key in r if key not in FIXED_COLUMNS))
    table = pd.DataFrame(list(rows), columns=[*FIXED_COLUMNS, *patterns])
    table["date"] = commit_dates(table["date"])
    return table


#: Commit dates outside these are kept as no date (NaT): pandas' nanosecond times end there.
EARLIEST, LATEST = (datetime.datetime(year, 1, 1, tzinfo=datetime.UTC) for year in (1678, 2262))


def commit_dates(texts: Sequence[str]) -> pd.Series:
    """ISO 8601 commit dates as UTC times; a date that does not parse or lies outside
    [``EARLIEST``, ``LATEST``) (a commit object may say anything) is NaT, its row kept."""
    import pandas as pd
    return pd.Series(pd.to_datetime([commit_date(text) for text in texts], utc=True))


def commit_date(text: str) -> Optional[datetime.datetime]:
    """An ISO 8601 commit date as a time, or None where ``commit_dates`` has NaT."""
    try:
        value: Optional[datetime.datetime] = datetime.datetime.fromisoformat(text)
    except (TypeError, ValueError):
        return None
    if value is not None and (value.tzinfo is None or not EARLIEST <= value < LATEST):
        return None
    return value


def undated(rows: Sequence[Dict[str, Any]]) -> List[str]:
    """The commits of a history's rows (``row``) without a date."""
    return [r["commit"] for r in rows if commit_date(r["date"]) is None]


def provenance(repo: str, commits: Sequence[gitsource.Commit], options: Dict[str, Any]) -> Dict[str, Any]:
    return {"repo": printable(repo), "revisions": len(commits), "punstats_version": __version__,
            "python": "%s %s" % (platform.python_implementation(), platform.python_version()),
            "first": dataclasses.asdict(commits[0]) if commits else None,
            "last": dataclasses.asdict(commits[-1]) if commits else None,
            "options": {k: printable(v) if isinstance(v, str) else v for k, v in options.items()
                        if isinstance(v, (str, int, float, bool, list))}}


def staging(output: str, repo: str) -> Staging:
    """Where a history of ``repo`` is written, checked before any revision is read: a place
    that is, or holds, the repository or the current or home directory, or that holds other
    files than a stored history, is a ``StoreError``."""
    return Staging(output, [("the repository", repo)], layout=HISTORY)


def csv_table(table: pd.DataFrame, about: Dict[str, Any]) -> pd.DataFrame:
    """``table`` as ``history.csv`` holds it: with what was measured in columns of its own after the
    counts (the repository, the parser, and ``about["rules"]``: every rule that changes a count,
    ``present.provenance.rule_columns``), so that the CSV read alone says where it came from; a
    pattern's column of the same name keeps its own."""
    from punstats.present.provenance import rule_columns
    rules = about.get("rules") or {}
    columns = {"repo": about.get("repo", ""), "python": about.get("python", ""),
               "punstats_version": about.get("punstats_version", ""), "test_rule": rules.get("test_rule", ""),
               "long_threshold": rules.get("long_threshold", ""), **rule_columns(rules, rules.get("patterns") or ())}
    return table.assign(**{key: value for key, value in columns.items() if key not in table.columns})


def store(place: Staging, table: pd.DataFrame, about: Dict[str, Any],
          figure: Optional[Callable[[str], List[str]]] = None) -> List[str]:
    """Write the table (parquet and CSV), the figure (``figure(directory)``) and ``about``
    (``history.json``, with the files beside it under ``files``) into ``place`` and put it in
    place whole; the files, as stored."""
    from punstats.store.frames import csv_ready
    try:
        table.to_parquet(place.file("history.parquet"), index=False)
        csv_ready(csv_table(table, about)).to_csv(place.file("history.csv"), index=False)  # no formula in a subject
        names = ["history.parquet"] + [os.path.basename(p) for p in (figure(place.path) if figure else [])]
    except BaseException:
        place.abort()
        raise
    place.commit(dict(about, files=names))
    return [os.path.join(place.name, name) for name in names]


def is_history(directory: str) -> bool:
    """Whether ``directory`` holds a stored history (its ``history.json`` and table)."""
    return all(os.path.isfile(os.path.join(directory, name)) for name in ("history.json", "history.parquet"))


def read_history(directory: str) -> Tuple["pd.DataFrame", Dict[str, Any]]:
    """A stored history's table (oldest revision first) and ``history.json``; a history never
    finished, unreadable or without a revision is a ``StoreError`` naming the file."""
    import pandas as pd

    from punstats.model.errors import one_line
    from punstats.store.staging import StoreError
    if os.path.exists(os.path.join(directory, WRITING_FILE)):
        raise StoreError("%s is a stored history that was never finished; run punstats history again" % directory)
    path = os.path.join(directory, "history.json")
    try:
        with open(path, "rb") as handle:
            about = json.loads(handle.read(MAX_ABOUT_BYTES + 1)[:MAX_ABOUT_BYTES])
        table = pd.read_parquet(os.path.join(directory, "history.parquet"))
    except (OSError, ValueError) as exc:
        raise StoreError("%s: %s" % (path if isinstance(exc, json.JSONDecodeError) else directory, one_line(exc))
                         ) from None
    missing = [column for column in ("commit", "keywords", "punnable", "punnable_nontest_pct")
               if column not in table.columns]
    if not isinstance(about, dict) or missing or not len(table):
        raise StoreError("%s is not a history punstats can read (%s)" % (
            directory, "no revision" if not missing and isinstance(about, dict) and not len(table)
            else "missing columns %s" % ", ".join(missing) if missing else "history.json is not an object"))
    return table, about


#: ``history.json`` is read up to this size: it holds provenance, a few kilobytes.
MAX_ABOUT_BYTES = 16 * 1024 * 1024


#: The columns that say how a row's files were got, not what they hold: left out of ``counts_digest``.
HOW_GOT = ("files_from_cache", "files_extracted")


def counts_digest(rows: Sequence[Dict[str, Any]]) -> str:
    """A digest of what ``rows`` (``row``) count, how their files were got aside: equal for a
    cold run and a warm one of the same revisions."""
    counted = [[[key, value] for key, value in r.items() if key not in HOW_GOT] for r in rows]
    return hashlib.sha256(json.dumps(counted, default=repr).encode()).hexdigest()


def kept(place: Staging, about: Dict[str, Any], figure: bool) -> Optional[List[str]]:
    """The files of the history stored where ``place`` goes when it holds ``about`` already
    (its ``history.json``: the same repository, revisions, punstats, parser, options and rules,
    and the same ``counts`` digest) and all its files, the figure among them if ``figure``:
    then ``place`` is given up and that history kept as it is (nothing it holds would change but
    how its files were got); else None."""
    stored = _stored_about(place.target)
    files = stored.pop("files", None) if stored is not None else None
    if stored != json.loads(json.dumps(about)) or not isinstance(files, list) or (len(files) > 1) != figure:
        return None
    if not files or not all(isinstance(name, str) and name == os.path.basename(name)
                            and os.path.isfile(os.path.join(str(place.target), name))
                            for name in (*files, "history.csv")):
        return None
    place.abort()
    return [os.path.join(place.name, name) for name in files]


def _stored_about(directory: Optional[str]) -> Optional[Dict[str, Any]]:
    """The ``history.json`` of a finished stored history in ``directory``, or None."""
    if not directory or os.path.exists(os.path.join(directory, WRITING_FILE)):
        return None
    try:
        with open(os.path.join(directory, HISTORY.summary), encoding="utf-8") as handle:
            about = json.load(handle)
    except (OSError, ValueError):
        return None
    return about if isinstance(about, dict) else None
