"""``punstats history``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from punstats.cli.common import (
    DEFAULT_ROOT,
    UsageError,
    check_engine_options,
    default_place_said,
    engine_options,
    error_line,
    extension_options,
    jobs_options,
    json_options,
    pattern_options,
    positive,
    progress_bar,
    quiet_options,
    rule_options,
    scan_options,
)


def _add_history_command(commands: Any) -> None:
    p = commands.add_parser("history", help="scan many revisions of a git repository: the trend",
                            description="Scan first-parent revisions of a git repository (no checkout; "
                                        "unchanged files come from the cache) and store one row per revision.",
                            parents=[json_options("print the rows as JSON"), jobs_options(), rule_options(),
                                     quiet_options(), engine_options(), pattern_options(),
                                     extension_options()])
    p.add_argument("repo", metavar="REPO", help="a git repository (work tree or bare)")
    p.add_argument("--since", default="", metavar="DATE", help="first commit date (git's --since)")
    p.add_argument("--until", default="", metavar="DATE", help="last commit date (git's --until)")
    p.add_argument("--rev-range", default="HEAD", metavar="A..B",
                   help="the revisions after A up to B, e.g. HEAD~100..HEAD (default: every commit up to HEAD)")
    p.add_argument("--last", type=positive, default=None, metavar="N",
                   help="the last N first-parent commits (up to HEAD, or --until), then thinned by --every")
    p.add_argument("--every", default="month", metavar="commit|month|N",
                   help="every commit, the last of each month (default), or every Nth commit")
    p.add_argument("-o", "--output", metavar="DIR", help="default: data/<repository>-history/")
    p.add_argument("--kind", metavar="NAME",
                   help="what the figure and the rows printed are about: call (f(x=x)), another built-in kind "
                        "of occurrences (attribute, near_miss, ...) or a --pattern's name (default: the one "
                        "--pattern when given one, else call)")
    p.set_defaults(handler=cmd_history)


def _records(rows: Sequence[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The rows as ``scan --json`` writes summaries: an array of objects (the columns of the
    table, ``runs.history.table_of``, in its order), dates in ISO 8601 (UTC), numbers as JSON's
    own, a missing date or a share of nothing (NaN: 0 of 0) null."""
    import datetime

    from punstats.runs.history import FIXED_COLUMNS, commit_date
    columns = list(dict.fromkeys([*FIXED_COLUMNS, *(key for row in rows for key in row)]))
    records = []
    for row in rows:
        record = {key: None if _missing(row.get(key)) else row[key] for key in columns}
        date = commit_date(row["date"])
        record["date"] = None if date is None else date.astimezone(datetime.UTC).isoformat()
        records.append(record)
    return records


def _place(output: str, repo: str) -> Any:
    """The history's staging directory: a place that cannot take it is an error before any work."""
    from punstats.runs import history as histories
    return histories.staging(output, repo)  # a StoreError is the user's to fix (cli.main)


def _figure(table: Any, name: str, kind: Any, about: Dict[str, Any], cache: bool = True
            ) -> Optional[Callable[[str], List[str]]]:
    """What draws the trend figure of ``kind`` (None: f(x=x)) into a directory, its caption naming what
    ``about`` (``history.json``) records; None without the plot extra (the table is the result).
    A figure of the same counts, repository, kind and rules drawn before is written from the
    cache (``present.kept_figures``), not drawn again."""
    import importlib.util
    if importlib.util.find_spec("matplotlib") is None:
        return None

    def draw(directory: str) -> List[str]:
        try:
            from punstats.present import plots
            from punstats.present.kind_figures import kind_trend
        except ImportError:
            return []
        if kind is None:
            return plots.save(plots.history_trend(table, name, about), directory)
        from punstats.runs.history import pattern_columns
        return plots.save(kind_trend(table, name, kind, *pattern_columns(kind), about), directory)

    from punstats.present.kept_figures import drawn_once, figure_key
    shown = None if kind is None else [kind.name, kind.label, kind.per, kind.user]
    key = figure_key("history", name, shown, about.get("counts"), about.get("python"), about.get("rules"))
    return drawn_once(draw, key, cache)


def _subject(args: argparse.Namespace, patterns: Sequence[Any]) -> Any:
    """The kind the history's figure and printed rows are about (``--kind``, default
    ``analysis.asked.default_kind``), or None for f(x=x): a history follows f(x=x), the built-in
    kinds of occurrences and its patterns (a count without places, such as ``calls_mixed``, it
    does not follow)."""
    from punstats.analysis.asked import chosen
    from punstats.model.kinds import KIND_CALL
    from punstats.patterns.built_in import KINDS
    registry = KINDS.with_kinds(patterns)
    choices = [*registry.occurrence_kinds]
    name = chosen(registry, args.kind, choices, "a history counts %s" % ", ".join(choices),
                  "is not counted by a history (it follows the kinds with places: f(x=x), the other "
                  "built-in kinds of occurrences and its --pattern ones)")
    return None if name == KIND_CALL else registry[name]


def _repository(args: argparse.Namespace) -> Tuple[str, str, Optional[str]]:
    """(the repository to read, the revisions to walk, a remote's name): ``git+URL[@REV]`` is cloned bare into
    the cache (its REV is the walk's end, as ``--rev-range REV``); a URL without ``git+``, a
    PyPI page or ``pypi:`` is told, in one line, what to write."""
    from punstats.sources import repository
    repo, rev, name = repository(args.repo)
    if rev is not None and args.rev_range != "HEAD":
        raise UsageError("give the revisions once: %s names %s, and --rev-range %s" % (args.repo, rev, args.rev_range))
    return repo, rev or args.rev_range, name


def _check_window(args: argparse.Namespace) -> None:
    """One line for a window that would select other commits than meant: a revision without ``..``
    (every commit up to it), ``--last`` with another start, a date git does not understand."""
    from punstats.sources.gitdate import check_date
    if args.rev_range != "HEAD" and ".." not in args.rev_range:
        n = args.rev_range[len("HEAD~"):] if args.rev_range.startswith("HEAD~") else ""
        raise UsageError("--rev-range takes A..B: %s alone would walk every commit up to it; write %s..HEAD, "
                         "or --last %s" % (args.rev_range, args.rev_range, n if n.isdigit() else "N"))
    if args.last is not None and (args.rev_range != "HEAD" or args.since):
        raise UsageError("--last %d counts back from the newest commit: give it or %s, not both"
                         % (args.last, "--rev-range" if args.rev_range != "HEAD" else "--since"))
    check_date("--since", args.since)  # an OptionError: cli.main
    check_date("--until", args.until)


def cmd_history(args: argparse.Namespace) -> int:
    from punstats.model.escape import terminal
    from punstats.runs import history as histories
    from punstats.sources import git as gitsource
    check_engine_options(args)
    _check_window(args)
    options = scan_options(args)
    subject = _subject(args, options.patterns)  # before any work
    repo, rev_range, remote = _repository(args)
    gitdir = gitsource.git_dir(repo)  # its files checked once, before any git runs on it
    commits = histories.select(histories.commits_of(repo, args.since, args.until, rev_range, gitdir, args.last or 0),
                               args.every)
    if not commits:
        raise UsageError("no first-parent commit of %s in that window" % rev_range)
    name = remote or gitsource.repository_name(gitdir)
    place = _place(args.output or os.path.join(DEFAULT_ROOT, name + "-history"), repo)
    bar = progress_bar(args.quiet, name, unit="revision")
    bar.start(len(commits))
    vanished: List[Any] = []
    try:
        followed = (subject,) if subject is not None and not subject.user else ()
        rows = histories.history_rows(repo, commits, cache=not args.no_cache, options=options, gitdir=gitdir,
                                      on_revision=lambda commit, row: bar.update(1), on_vanished=vanished.append,
                                      followed=followed)
    except BaseException:  # git over its deadline, no room: nothing of the history is left behind
        place.abort()
        raise
    finally:
        bar.close()
    if vanished:
        print("punstats: warning: %d of the %d commits listed left the repository before they were read "
              "(rewritten, pruned): %s; recorded in history.json" % (len(vanished), len(commits),
                                                                     _shas([c.sha for c in vanished])),
              file=sys.stderr)
    undated = histories.undated(rows)
    if undated:
        print("punstats: warning: %d commits have no readable commit date (%s): kept without one, left out of "
              "the figure" % (len(undated), _shas(undated)),
              file=sys.stderr)
    about = histories.provenance(args.repo, commits, dict(vars(args),
                                                          pattern=[k.provenance() for k in options.patterns]))
    # every rule that changes a count (history.csv's columns), and what the rows count
    about = dict(about, rules=options.rules(), counts=histories.counts_digest(rows))
    if vanished:
        about = dict(about, vanished=[commit.sha for commit in vanished])
    written, note = _stored(place, rows, about, name, subject, not args.no_cache)
    if args.json:
        print(json.dumps(_records(rows), indent=2, ensure_ascii=False))
    else:
        print("\n".join(terminal(line) for line in _rows_text(rows, subject).splitlines()))
        print(terminal("stored: %s%s" % (", ".join(written), note)))
    default_place_said(args.output, place.name)
    return _pattern_errors_said(rows)


def _stored(place: Any, rows: List[Dict[str, Any]], about: Dict[str, Any], name: str,
            subject: Any, cache: bool) -> Tuple[List[str], str]:
    """The files of the history as stored and what to say of them: the stored history kept as it is when it
    holds these counts and this provenance already (``runs.history.kept``: no figure drawn again,
    no table written again), else the table and figure written."""
    import importlib.util

    from punstats.runs import history as histories
    from punstats.store.staging import StoreError
    try:
        kept = histories.kept(place, about, importlib.util.find_spec("matplotlib") is not None)
        if kept is not None:
            return kept, " (unchanged: kept as it was)"
        table = histories.table_of(rows)
        return histories.store(place, table, about, _figure(table, name, subject, about, cache)), ""
    except (OSError, StoreError) as exc:  # no room for the history files
        raise UsageError("cannot write %s: %s" % (place.name, error_line(exc))) from None


def _shas(shas: Sequence[str]) -> str:
    """The first three commit ids, short, then ``...`` if there are more."""
    return ", ".join(sha[:12] for sha in shas[:3]) + ", ..." * (len(shas) > 3)


def _printed_columns(subject: Any) -> Tuple[List[str], Dict[str, Callable[[float], str]]]:
    """The columns printed (f(x=x)'s, or the subject pattern's counts and measures), and how each
    measure is written: a share or rate of nothing is n/a, a rate as every rate
    (``present.formats.rate_text``)."""
    from punstats.present.formats import rate_text
    measured: Sequence[str] = ("punnable_pct", "punnable_nontest_pct")
    middle = ["keywords", "punnable", *measured, "long", "long_nontest"]
    if subject is not None:
        from punstats.runs.history import pattern_columns
        counted, measured = pattern_columns(subject)
        middle = [*counted, *measured]
    formatters: Dict[str, Callable[[float], str]] = {
        c: "{:,.2f}".format if c.endswith("_pct") else rate_text for c in measured}
    return ["commit", "date", "files", *middle, "files_extracted"], formatters


def _rows_text(rows: Sequence[Dict[str, Any]], subject: Any) -> str:
    """The rows printed, laid out as pandas' ``to_string(index=False)`` lays out their table (each
    column right-justified to its widest cell, a count's heading after a space) without
    pandas; a row with a cell of another type (no date, a count that is no whole number) is
    laid out by pandas itself (``_table_text``)."""
    import datetime

    from punstats.runs.history import commit_date
    columns, formatters = _printed_columns(subject)
    laid_out = []
    for name in columns:
        values = [row[name] for row in rows]
        if name in formatters:
            cells = ["n/a" if _missing(v) else formatters[name](v) for v in values]
        elif name == "date":
            dates = [commit_date(v) for v in values]
            if any(d is None for d in dates):
                return _table_text(rows, subject)
            cells = [str(d.astimezone(datetime.UTC)) for d in dates if d is not None]
        elif name == "commit":
            cells = [v[:12] for v in values]
        elif all(type(v) is int for v in values):
            cells, name = ["%d" % v for v in values], " " + name
        else:
            return _table_text(rows, subject)
        width = max(len(cell) for cell in [name, *cells])
        laid_out.append([cell.rjust(width) for cell in [name, *cells]])
    return "\n".join(" ".join(line) for line in zip(*laid_out))


def _missing(value: Any) -> bool:
    """A measure of nothing: NaN (or None)."""
    return value is None or (isinstance(value, float) and value != value)


def _table_text(rows: Sequence[Dict[str, Any]], subject: Any) -> str:
    """The rows printed by pandas (``_rows_text``)."""
    from punstats.runs.history import table_of
    columns, formatters = _printed_columns(subject)
    table = table_of(rows)
    shown = table[columns].assign(commit=table["commit"].str[:12])
    return shown.to_string(index=False, na_rep="n/a", formatters=formatters)


def _pattern_errors_said(rows: Sequence[Dict[str, Any]]) -> int:
    """1 after a line on stderr when a pattern raised on files of some revision (recorded as
    ``pattern_error``, not counted), else 0."""
    failed = [row for row in rows if row.get("pattern_errors")]
    if not failed:
        return 0
    first = failed[0]
    print("punstats: error: a pattern raised on files of %d of %d revisions (the first, %s: %s of its files), "
          "recorded as pattern_error, not counted; see where with punstats scan REPO --rev %s --pattern ..."
          % (len(failed), len(rows), first["commit"][:12], format(int(first["pattern_errors"]), ","),
             first["commit"][:12]), file=sys.stderr)
    return 1
