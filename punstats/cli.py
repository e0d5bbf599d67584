"""The ``punstats`` command: argument parsing and printing only.

Every command calls the Python API; nothing here computes a statistic.
Exit status: 0 when the command ran (files that fail to parse are data),
2 for a usage error, reported in one line without a traceback.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Dict, List, Optional, Sequence

from punstats import __version__
from punstats.api import scan
from punstats.classify import DEFAULT_LONG_THRESHOLD, parse_test_rule
from punstats.discover import DEFAULT_EXTENSIONS
from punstats.extract import DEFAULT_MAX_BYTES
from punstats.sources import SourceError, resolve

USAGE_ERROR = 2


class UsageError(Exception):
    """Reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage dump
        raise UsageError(message)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("expected a whole number, got %r" % text) from None
    if value < 1:
        raise argparse.ArgumentTypeError("expected a number of at least 1, got %d" % value)
    return value


def _extensions(text: str) -> List[str]:
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not parts or not all(part.startswith(".") for part in parts):
        raise argparse.ArgumentTypeError("expected endings such as .py,.pyi, got %r" % text)
    return parts


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="punstats", description="Count keyword arguments of the form f(x=x).")
    parser.add_argument("--version", action="version", version="punstats " + __version__)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = commands.add_parser("scan", help="scan code bases and store the results",
                            description="Scan directories (default: this interpreter's standard library).")
    p.add_argument("paths", nargs="*", metavar="PATH", help="directory or file; none: the standard library")
    p.add_argument("-o", "--output", metavar="DIR",
                   help="where to store the tables (default: data/<corpus name>/)")
    p.add_argument("--no-save", action="store_true", help="print the summary only")
    p.add_argument("--csv", action="store_true", help="also write CSV copies of the tables")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("-j", "--jobs", type=_positive, default=None, help="worker processes (default: all cores)")
    p.add_argument("--test-rule", default="components",
                   help="components (default), substring, none, or regex:PATTERN")
    p.add_argument("--test-pattern", metavar="REGEX", help="shorthand for --test-rule regex:REGEX")
    p.add_argument("--long", type=_positive, default=DEFAULT_LONG_THRESHOLD, metavar="N",
                   help="identifiers of at least N characters are long (default: %(default)s)")
    p.add_argument("--extensions", type=_extensions, default=list(DEFAULT_EXTENSIONS),
                   help="file endings to scan, comma-separated (default: .py; e.g. .py,.pyw,.pyi)")
    p.add_argument("--follow-links", action="store_true",
                   help="follow symbolic links that stay inside the root")
    p.add_argument("--no-exclude", action="store_true",
                   help="also walk VCS, virtual-environment and cache directories")
    p.add_argument("--max-bytes", type=_positive, default=DEFAULT_MAX_BYTES,
                   help="larger files are recorded as too_large (default: %(default)s)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.add_argument("--lines-saved", action="store_true",
                   help="also measure the lines punning would save (punstats rewrite --rewrap, in memory)")
    p.add_argument("--rev", metavar="REV", help="scan this revision of the git repository PATH (no checkout)")
    p.add_argument("--python", metavar="PATH", help="parse with this interpreter (Python >= 3.8)")
    p.add_argument("--compat", metavar="PROFILE",
                   help="count as a published script did, e.g. angelico-2023-10; prints its output lines")
    _add_engine_options(p)
    p.set_defaults(handler=cmd_scan)
    p = commands.add_parser("cache", help="show the cache's location and size, or clear it",
                            description="The per-file cache that makes re-scans incremental "
                                        "($PUNSTATS_CACHE_DIR, else $XDG_CACHE_HOME/punstats, else "
                                        "~/.cache/punstats).")
    p.add_argument("--clear", action="store_true", help="remove every entry")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.set_defaults(handler=cmd_cache)
    p = commands.add_parser("history", help="scan many revisions of a git repository: the trend",
                            description="Scan first-parent revisions of a git repository (no checkout; "
                                        "unchanged files come from the cache) and store one row per revision.")
    p.add_argument("repo", metavar="REPO", help="a git repository (work tree or bare)")
    p.add_argument("--since", default="", metavar="DATE", help="first commit date (git's --since)")
    p.add_argument("--until", default="", metavar="DATE", help="last commit date (git's --until)")
    p.add_argument("--rev-range", default="HEAD", metavar="A..B", help="revisions to walk (default: HEAD)")
    p.add_argument("--every", default="month", metavar="commit|month|N",
                   help="every commit, the last of each month (default), or every Nth commit")
    p.add_argument("-o", "--output", metavar="DIR", help="default: data/<repository>-history/")
    p.add_argument("-j", "--jobs", type=_positive, default=None, help="worker processes (default: all cores)")
    p.add_argument("--test-rule", default="components", help="components (default), substring, none, regex:RE")
    p.add_argument("--long", type=_positive, default=DEFAULT_LONG_THRESHOLD, metavar="N")
    p.add_argument("--no-cache", action="store_true", help="extract every file of every revision")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=cmd_history)
    _add_evidence_commands(commands)
    _add_reproduce_commands(commands)
    _add_corpus_commands(commands)
    _add_rewrite_commands(commands)
    return parser


def _add_engine_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-cache", action="store_true",
                   help="extract every file again: neither read nor write the cache (punstats cache)")
    p.add_argument("--engine", choices=("local", "dask"), default="local",
                   help="where files are extracted: local (a process pool, the default) or dask")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="with --engine dask: a running scheduler, e.g. tcp://host:8786 "
                        "(default: start a local cluster of -j workers)")


def _check_engine_options(args: argparse.Namespace) -> None:
    from punstats.engine import EngineError, check_engine
    try:
        check_engine(args.engine)
    except EngineError as exc:
        raise UsageError(str(exc)) from None
    if args.scheduler is not None and args.engine != "dask":
        raise UsageError("--scheduler needs --engine dask")


def cmd_history(args: argparse.Namespace) -> int:
    from punstats import gitsource
    from punstats import history as histories
    try:
        rule = parse_test_rule(args.test_rule)
        commits = histories.select(histories.commits_of(args.repo, args.since, args.until, args.rev_range),
                                   args.every)
    except ValueError as exc:  # GitError included
        raise UsageError(str(exc)) from None
    if not commits:
        raise UsageError("no first-parent commit of %s in that window" % args.rev_range)
    name = gitsource.git_corpus(args.repo, commits[-1].sha).name.split("@")[0]
    output = args.output or os.path.join("data", name + "-history")
    bar = _progress_bar(args.quiet, name)
    if bar:
        bar.reset(total=len(commits))
        bar.unit = "revision"
    table = histories.history(args.repo, commits, cache=not args.no_cache, jobs=args.jobs, test_rule=rule,
                              long_threshold=args.long,
                              on_revision=(lambda commit, row: bar.update(1)) if bar else None)
    if bar:
        bar.close()
    os.makedirs(output, exist_ok=True)
    table.to_parquet(os.path.join(output, "history.parquet"), index=False)
    table.to_csv(os.path.join(output, "history.csv"), index=False)
    with open(os.path.join(output, "history.json"), "w", encoding="utf-8") as handle:
        json.dump(histories.provenance(args.repo, commits, vars(args)), handle, indent=2)
    written = [os.path.join(output, "history.parquet")]
    try:
        from punstats import plots
    except ImportError:
        pass  # the table is the result; the figure needs the plot extra
    else:
        written += plots.save(plots.history_trend(table, name), output)
    if args.json:
        print(table.assign(date=table["date"].astype(str)).to_json(orient="records", indent=2))
    else:
        print(table[["commit", "date", "files", "keywords", "punnable", "punnable_pct", "long", "long_nontest",
                     "files_extracted"]].assign(commit=table["commit"].str[:12]).to_string(index=False))
        print("stored: %s" % ", ".join(written))
    return 0


def cmd_cache(args: argparse.Namespace) -> int:
    from punstats import cache as caches
    with caches.BlobCache() as cache:
        removed = cache.clear() if args.clear else None
        stats = cache.stats()
    if args.clear:
        caches.clear_downloads()
    stats["downloads"] = caches.downloads()
    if removed is not None:
        stats["removed"] = removed
    if args.json:
        print(json.dumps(stats, indent=2))
        return 0
    print("cache  %s  (%s bytes on disk)" % (stats["path"], _n(stats["bytes"])))
    for kind, entry in stats["entries"].items():
        print("  %-22s %8s entries  %12s bytes" % (kind, _n(entry["count"]), _n(entry["bytes"])))
    for name, size in stats["downloads"].items():
        print("  %-22s %21s bytes" % (name + "/", _n(size)))
    if removed is not None:
        print("removed %s entries and the downloads" % _n(removed))
    return 0


def _progress_bar(quiet: bool, label: str):
    if quiet or not sys.stderr.isatty():
        return None
    from tqdm import tqdm
    return tqdm(total=0, unit="file", desc=label, file=sys.stderr, leave=False, dynamic_ncols=True)


def _output_dirs(args: argparse.Namespace, names: Sequence[str]) -> List[str]:
    base = args.output
    result, used = [], set()
    for name in names:
        unique, n = name, 2
        while unique in used:
            unique, n = "%s-%d" % (name, n), n + 1
        used.add(unique)
        if base is None:
            result.append(os.path.join("data", unique))
        elif len(names) == 1:
            result.append(base)
        else:
            result.append(os.path.join(base, unique))
    return result


def cmd_scan(args: argparse.Namespace) -> int:
    _check_engine_options(args)
    try:
        rule = parse_test_rule("regex:" + args.test_pattern if args.test_pattern else args.test_rule)
        if args.compat:
            return _scan_compat(args, rule)
        if args.rev is not None:
            from punstats.gitsource import git_corpus
            corpora = [git_corpus(path, args.rev) for path in args.paths or ["."]]
        else:
            corpora = [resolve(path) for path in args.paths] or [resolve(None)]
    except (SourceError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    outputs = _output_dirs(args, [c.name for c in corpora])
    summaries = []
    for corpus, output in zip(corpora, outputs):
        bar = _progress_bar(args.quiet, corpus.name)
        try:
            result = scan(
                corpus=corpus, jobs=args.jobs, test_rule=rule, long_threshold=args.long,
                extensions=args.extensions, follow_links=args.follow_links,
                exclude_dirs=not args.no_exclude, max_bytes=args.max_bytes,
                progress=bar.update if bar else None,
                on_discovered=(lambda n, bar=bar: bar.reset(total=n)) if bar else None,
                python=args.python,
                engine=args.engine, scheduler=args.scheduler, cache=not args.no_cache,
                lines_saved=args.lines_saved,
            )
        except ValueError as exc:  # EngineError: the cluster cannot be reached or cannot run punstats
            raise UsageError(_one_line(exc)) from None
        if bar:
            bar.close()
        summary = result.summary
        if not args.no_save:
            result.save(output, csv=args.csv)
            summary = dict(summary, stored=output)
        summaries.append(summary)
        if not args.json:
            print(format_summary(summary))
    if args.json:
        payload: Any = summaries[0] if len(summaries) == 1 else summaries
        print(json.dumps(payload, indent=2, ensure_ascii=False))
    return 0


def _n(value: int) -> str:
    return format(value, ",")


def format_summary(s: Dict[str, Any]) -> str:
    failed = ", ".join("%s %s" % (k, _n(v)) for k, v in s["failed_by_reason"].items())
    skipped = "; ".join("%s: %s" % (what, ", ".join("%s %s" % (k, _n(v)) for k, v in counts.items()))
                        for what, counts in (("directories", s.get("skipped_dirs", {})),
                                             ("files", s["skipped_files"])) if counts)
    rows = [
        ("corpus", "%s  (%s%s)" % (s["corpus"], s["source"], ", " + s["revision"] if s["revision"] else "")),
        ("root", s["root"]),
        ("parser", "%s %s   punstats %s" % (s["python_implementation"], s["python"], s["punstats_version"])),
        ("files", "%s   parsed %s   failed %s%s" % (_n(s["files"]), _n(s["parsed"]), _n(s["failed"]),
                                                  " (%s)" % failed if failed else "")),
        ("skipped", skipped or "nothing"),
        ("calls", _n(s["calls"])),
        ("keyword arguments", "%s   (plus %s ** unpackings)" % (_n(s["keywords"]), _n(s["double_star"]))),
        ("punnable f(x=x)", "%s   (%.2f%% of keyword arguments, in %s calls)"
         % (_n(s["punnable"]), s["punnable_pct"], _n(s["calls_with_punnable"]))),
        ("long (>= %d chars)" % s["long_threshold"], _n(s["long"])),
        ("long outside tests", "%s   (test rule: %s)" % (_n(s["long_nontest"]), s["test_rule"])),
        ("class keywords", "%s   (%s punnable, not in the count above)"
         % (_n(s["class_keywords"]), _n(s["class_punnable"]))),
        ("related patterns", "f(x=obj.x) %s (self %s), {'x': x} %s, dict(x=x) %s, near misses %s"
         % tuple(_n(s["kinds"][k]) for k in ("attribute", "attribute_self", "dict_literal",
                                             "dict_call_punnable", "near_miss"))),
        ("top identifiers", ", ".join("%s %s" % (k, _n(v)) for k, v in s["top_identifiers"])),
        ("top callees", ", ".join("%s %s" % (k, _n(v)) for k, v in s["top_callees"])),
    ]
    rows += _archive_rows(s)
    if "lines_saved" in s:
        saved = s["lines_saved"]
        rows.append(("lines saved", "%s   (punning as rewrite --rewrap: %s removed, %s added, %s files)" % (
            _n(saved["lines_saved"]), _n(saved["lines_removed"]), _n(saved["lines_added"]),
            _n(saved["files_changed"]))))
    if "cache" in s:
        rows.append(("cache", "%s files from the cache, %s extracted%s" % (
            _n(s["cache"]["cached"]), _n(s["cache"]["extracted"]),
            ", tables of this exact corpus state reused" if s["cache"].get("tables_reused") else "")))
    if "stored" in s:
        rows.append(("stored in", s["stored"]))
    width = max(len(label) for label, _ in rows)
    return "\n".join("%-*s  %s" % (width, label, value) for label, value in rows)


# -- table, plot, report: evidence from stored scans -------------------------

def _add_evidence_commands(commands: Any) -> None:
    """``table``, ``plot`` and ``report``, which present stored scans."""
    from punstats import tables

    def stored_scans(p: argparse.ArgumentParser, several: bool = True) -> None:
        p.add_argument("dirs", nargs="+" if several else 1, metavar="DIR",
                       help="a stored scan, as written by punstats scan")
        p.add_argument("--test-rule", metavar="RULE", default=None,
                       help="re-classify test code first: components, substring, none or regex:PATTERN "
                            "(default: the rule the scan used)")
        p.add_argument("--long", type=_positive, default=None, metavar="N",
                       help="re-apply the long threshold (default: the scan's)")

    p = commands.add_parser("table", help="tables of stored scans (reST, Markdown, CSV, LaTeX)",
                            description="Print tables of stored scans: by default the PEP 736 style "
                                        "summary, one column per scan, as a reST simple table.")
    stored_scans(p)
    p.add_argument("--format", choices=tables.FORMATS, default="rst", help="default: %(default)s")
    p.add_argument("--by", choices=tables.KINDS, default="summary",
                   help="summary (one column per scan, the default), or per scan: identifier length, "
                        "most common identifiers or callees, top-level directories")
    p.add_argument("--kinds", dest="by", action="store_const", const="kinds",
                   help="shorthand for --by kinds: one row per pattern, one column per scan")
    p.add_argument("-n", "--top", type=_positive, default=tables.TOP_ROWS, metavar="N",
                   help="rows of the identifier, callee and directory tables (default: %(default)s)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    p.set_defaults(handler=cmd_table)

    p = commands.add_parser("plot", help="figures of stored scans (PNG and SVG)",
                            description="Draw the figures of stored scans: identifier lengths, cumulative "
                                        "share, top identifiers and callees, top-level directories per scan, "
                                        "and the share of f(x=x) per scan. Needs matplotlib.")
    stored_scans(p)
    p.add_argument("-o", "--output", metavar="DIR", help="where to write them (default: reports/figures)")
    p.add_argument("--format", type=_figure_formats, default=["png", "svg"],
                   help="comma-separated: png, svg (default: png,svg)")
    p.set_defaults(handler=cmd_plot)

    p = commands.add_parser("report", help="a self-contained Markdown report of a stored scan",
                            description="Write a Markdown report of a stored scan (tables, figures, "
                                        "definitions, rules) to reports/<corpus>.md.")
    stored_scans(p, several=False)
    p.add_argument("-o", "--output", metavar="FILE", help="default: reports/<corpus>.md")
    p.add_argument("--figures-dir", metavar="DIR",
                   help="write the figures to DIR and link them, instead of embedding them")
    p.add_argument("--no-figures", action="store_true", help="tables and text only (no matplotlib needed)")
    p.set_defaults(handler=cmd_report)


def _figure_formats(text: str) -> List[str]:
    parts = [part.strip().lstrip(".").lower() for part in text.split(",") if part.strip()]
    if not parts:
        raise argparse.ArgumentTypeError("expected formats such as png,svg, got %r" % text)
    return parts


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _load_scans(directories: Sequence[str], test_rule: Optional[str], long_threshold: Optional[int]) -> List[Any]:
    from punstats.api import load
    from punstats.store import StoreError

    results = []
    for directory in directories:
        try:
            result = load(directory)
        except StoreError as exc:
            raise UsageError(str(exc)) from None
        except (OSError, ValueError, KeyError) as exc:
            raise UsageError("%s: cannot read the stored scan: %s" % (directory, _one_line(exc))) from None
        if test_rule is not None or long_threshold is not None:
            try:
                result = result.with_rules(test_rule, long_threshold)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
        results.append(result)
    return results


def _plots_module():
    """``punstats.plots``, or a usage error when matplotlib is missing."""
    try:
        from punstats import plots
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] != "matplotlib":
            raise
        raise UsageError("figures need matplotlib, which is not installed: "
                         "pip install 'punstats[plot]'") from None
    return plots


def _write_text(text: str, output: Optional[str]) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    try:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise UsageError("cannot write %s: %s" % (output, _one_line(exc))) from None


def cmd_table(args: argparse.Namespace) -> int:
    from punstats import tables

    results = _load_scans(args.dirs, args.test_rule, args.long)
    try:
        tables.common_long_threshold([r.summary for r in results])
    except ValueError as exc:
        raise UsageError("%s with --long N" % exc) from None
    _write_text(tables.render_all(tables.tables_of(args.by, results, args.top), args.format), args.output)
    return 0


def cmd_plot(args: argparse.Namespace) -> int:
    plots = _plots_module()
    unknown = [fmt for fmt in args.format if fmt not in plots.FORMATS]
    if unknown:
        raise UsageError("unknown figure format %r (choose from %s)" % (unknown[0], ", ".join(plots.FORMATS)))
    results = _load_scans(args.dirs, args.test_rule, args.long)
    try:
        paths = plots.write_plots(results, args.output or plots.DEFAULT_DIRECTORY, args.format)
    except OSError as exc:
        raise UsageError("cannot write the figures: %s" % _one_line(exc)) from None
    print("\n".join(paths))
    return 0


def cmd_report(args: argparse.Namespace) -> int:
    from punstats import report

    if not args.no_figures:
        _plots_module()
    result, = _load_scans(args.dirs, args.test_rule, args.long)
    try:
        path = report.write_report(result, args.output, figures=not args.no_figures,
                                   figures_dir=args.figures_dir, scan_dir=args.dirs[0])
    except OSError as exc:
        raise UsageError("cannot write the report: %s" % _one_line(exc)) from None
    print(path)
    return 0


# -- reproduce: published figures ----------------------------------------------

def _scan_compat(args: argparse.Namespace, rule: Any) -> int:
    """``scan --compat PROFILE``: the published script's output lines, then its counts."""
    from punstats import reproduce
    if len(args.paths) != 1:
        raise UsageError("--compat needs exactly one PATH")
    try:
        r = reproduce.angelico(args.paths[0], args.rev, python=args.python, profile=args.compat,
                               test_rule="path:" + rule.label if rule.label != "components"
                               else "path:substring", long_threshold=args.long)
    except (ValueError, RuntimeError) as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps(r.as_dict(), indent=2, ensure_ascii=False))
        return 0
    for line in r.lines:
        print(line)
    if r.stats_text:
        print(r.stats_text)
    print("# %s: %d lines, %d with identifiers of >= %d characters, %d of those outside tests (%s)%s"
          % (args.compat, r.compat.total, r.compat.long, args.long, r.compat.long_nontest,
             r.configuration["test_rule"], "; " + r.crash if r.crash else ""), file=sys.stderr)
    return 0


def _add_reproduce_commands(commands: Any) -> None:
    """``reproduce angelico`` and ``reproduce pep736``."""
    p = commands.add_parser("reproduce", help="reproduce published figures and explain differences")
    which = p.add_subparsers(dest="figures", required=True, parser_class=_Parser)

    a = which.add_parser("angelico", help="Chris Angelico's 3858 / 525 / 310 (October 2023)",
                         description="One revision (--rev; SOURCE a git repository) or a checked-out "
                                     "directory (no --rev): published, compat and corrected numbers. "
                                     "--since/--until: search first-parent commits and configurations.")
    a.add_argument("source", metavar="SOURCE", help="git repository (bare or work tree) or directory")
    a.add_argument("--rev", help="the revision to scan")
    a.add_argument("--since", help="search: first commit date (git --since)")
    a.add_argument("--until", help="search: last commit date (git --until)")
    a.add_argument("--branch", default="HEAD", help="search: whose first-parent history (default: HEAD)")
    a.add_argument("--python", action="append", metavar="PATH",
                   help="parse with this interpreter (search: repeat for several)")
    a.add_argument("--walk", choices=("fs", "sorted"), help="walk order (default: fs for a directory, "
                                                             "sorted for a revision)")
    a.add_argument("--directory", default="", metavar="DIR",
                   help="the directory he ran it in, relative to SOURCE (default: the root)")
    a.add_argument("--profile", default="angelico-2023-10", help="compat profile (default: %(default)s)")
    a.add_argument("--descend", action="store_true", help="quirk off: visit calls nested in calls")
    a.add_argument("--no-stale", action="store_true", help="quirk off: no stale tree after a parse failure")
    a.add_argument("--test-rule", action="append", default=None,
                   help="what removes the unit tests: [path:|line:|name:]substring|components|regex:RE "
                        "(default: path:substring; the search repeats it, default: a set of rules)")
    a.add_argument("--test-pattern", metavar="RE", action="append",
                   help="shorthand for --test-rule path:regex:RE (repeatable)")
    a.add_argument("--long", type=_positive, default=DEFAULT_LONG_THRESHOLD, metavar="N")
    a.add_argument("--nearest", type=_positive, default=10, help="search: configurations to list")
    a.add_argument("--no-cache", action="store_true", help="do not use the per-blob cache")
    a.add_argument("--lines", action="store_true", help="also print his output lines")
    a.add_argument("--json", action="store_true")
    a.set_defaults(handler=cmd_reproduce_angelico)

    q = which.add_parser("pep736", help="PEP 736's applicability table",
                         description="Each SOURCE a git repository, optionally @REV; a punning commit "
                                     "(or, without REV, the repository's punning commit) is measured "
                                     "at its parent and gives the lines saved.")
    for project in ("cpython", "numpy", "pandas", "scikit-learn"):
        q.add_argument("--" + project, metavar="SRC[@REV]")
    q.add_argument("--python", metavar="PATH")
    q.add_argument("--no-cache", action="store_true")
    q.add_argument("--json", action="store_true")
    q.set_defaults(handler=cmd_reproduce_pep736)


def _cache(args: argparse.Namespace) -> Any:
    if args.no_cache:
        return None
    from punstats.cache import BlobCache
    return BlobCache()


def cmd_reproduce_angelico(args: argparse.Namespace) -> int:
    from punstats import reproduce
    pythons = args.python or [None]
    rules = (args.test_rule or []) + ["path:regex:" + pattern for pattern in args.test_pattern or []]
    searching = args.since is not None or args.until is not None
    if searching and args.rev is not None:
        raise UsageError("give either --rev or --since/--until, not both")
    if len(rules) > 1 and not searching:
        raise UsageError("one configuration takes one test rule; several are for the search (--since/--until)")
    rule = rules[0] if rules else None
    try:
        for each in rules:
            reproduce.parse_line_rule(each)
        if searching:
            bar = _progress_bar(False, "search")
            last = [""]

            def note(what: str, done: int, total: int) -> None:
                if bar is None:
                    return
                if what != last[0]:
                    last[0] = what
                    bar.set_description(what)
                    bar.reset(total=total)
                bar.n = done
                bar.refresh()
            result = reproduce.angelico_search(
                args.source, args.since or "", args.until or "", branch=args.branch, pythons=pythons,
                test_rules=rules or reproduce.SEARCH_RULES,
                directories=[args.directory] if args.directory else ("", "Lib"),
                thresholds=(args.long,), nearest=args.nearest, cache=_cache(args), progress=note)
            if bar:
                bar.close()
            print(json.dumps(result, indent=2) if args.json else format_search(result))
            return 0
        if len(pythons) > 1:
            raise UsageError("one --python for a single configuration")
        quirks = {"descend": True if args.descend else None, "stale_tree": False if args.no_stale else None}
        r = reproduce.angelico(args.source, args.rev, python=pythons[0], walk=args.walk,
                               subdir=args.directory, test_rule=rule or "path:substring",
                               profile=args.profile, quirks=quirks, long_threshold=args.long,
                               cache=_cache(args))
    except (ValueError, RuntimeError) as exc:
        raise UsageError(str(exc)) from None
    if args.lines:
        print("\n".join(r.lines))
    print(json.dumps(r.as_dict(), indent=2, ensure_ascii=False) if args.json else format_reproduction(r))
    return 0


def format_reproduction(r: Any) -> str:
    c = r.configuration
    rows = [("", "published", "compat", "corrected")]
    for key, label in (("total", "x=x"), ("long", "long (>= %d)" % c["long_threshold"]),
                       ("long_nontest", "long outside tests")):
        rows.append((label, _n(getattr(r.published, key)), _n(getattr(r.compat, key)),
                     _n(getattr(r.corrected, key))))
    width = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = ["%s @ %s (%s)   directory %s   parser %s" % (c["source"], c["commit"][:12] or "(directory)",
                                                        c["commit_date"], c["directory"], c["python"]),
             "profile %s: %s   test rule %s (corrected: %s)" % (
                 c["profile"], ", ".join("%s=%s" % kv for kv in c["quirks"].items()), c["test_rule"],
                 c["corrected_test_rule"]), ""]
    lines += ["  ".join(cell.rjust(width[i]) if i else cell.ljust(width[i]) for i, cell in enumerate(row))
              for row in rows]
    lines.append("")
    lines.append("compat -> corrected, per number (total / long / long outside tests):")
    for key in ("stale_double_counts", "nested_calls_missed", "test_rule", "other"):
        b = r.breakdown[key]
        lines.append("  %-22s %+d / %+d / %+d" % (key.replace("_", " "), b["total"], b["long"], b["long_nontest"]))
    f = r.breakdown["parse_failures"]
    lines.append("  parse failures         %d files (%d stale visits); punstats cannot parse %d"
                 % (f["files"], f["stale_visits"], f["punstats_failures"]))
    for path, error in r.failures:
        lines.append("    %s: %s" % (path, error))
    if r.crash:
        lines.append("  his script would have stopped: %s" % r.crash)
    return "\n".join(lines)


def format_search(result: Dict[str, Any]) -> str:
    w = result["window"]
    p = result["published"]
    lines = ["search %s..%s on %s: %d first-parent commits, %d distinct blobs; parsers %s"
             % (w["since"], w["until"], w["branch"], w["commits"], result["distinct_blobs"],
                ", ".join(result["parsers"])),
             "published %d / %d / %d" % (p["total"], p["long"], p["long_nontest"]), ""]

    def row(h: Dict[str, Any]) -> str:
        c, n = h["configuration"], h["counts"]
        return "  %5d / %4d / %4d  d=%-4d %-5s %-15s %-26s %-18s %s %s..%s %s (%d commits)" % (
            n["total"], n["long"], n["long_nontest"], h["distance"], c["directory"], c["python"],
            c["quirks"], c["test_rule"], c["long_threshold"], h["first"]["commit"][:10],
            h["last"]["commit"][:10], h["first"]["date"][:10] + ".." + h["last"]["date"][:10], h["commits"])
    if result["exact"]:
        lines.append("exact matches:")
        lines += [row(h) for h in result["exact"]]
    else:
        lines.append("no configuration gives the published triple exactly")
    lines.append("")
    lines.append("nearest configurations (L1 distance, best commit window each):")
    lines += [row(h) for h in result["nearest"]]
    return "\n".join(lines)


def cmd_reproduce_pep736(args: argparse.Namespace) -> int:
    from punstats import reproduce
    sources = {name: getattr(args, name.replace("-", "_")) for name in
               ("cpython", "numpy", "pandas", "scikit-learn")}
    sources = {k: v for k, v in sources.items() if v}
    if not sources:
        raise UsageError("name at least one project, e.g. --pandas PATH[@REV]")
    try:
        result = reproduce.pep736(sources, python=args.python, cache=_cache(args))
    except (ValueError, RuntimeError) as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps({k: {"published": v["published"],
                              "reproduced": {m: (x or {}).get("value") for m, x in v["reproduced"].items()},
                              "definitions": v["definitions"], "commit": v["commit"],
                              "punning_commit": v["punning_commit"], "python": v["python"]}
                          for k, v in result.items()}, indent=2))
        return 0
    lines = ["%-13s %-9s %9s %9s  %-8s %8s %8s  %-6s %6s %6s" % (
        "project", "commit", "count", "published", "percent", "measured", "pub.", "saved", "meas.", "pub.")]
    for name, v in result.items():
        pub, rep = v["published"], v["reproduced"]
        saved = rep["lines_saved"] or {}
        lines.append("%-13s %-9s %9s %9s  %-8s %8s %8s  %-6s %6s %6s" % (
            name, v["commit"][:9], _n(rep["count"]["value"]), _n(pub.get("count", 0)), "",
            "%.2f" % rep["percent"]["value"], "%.2f" % pub.get("percent", 0), "",
            saved.get("value", "-"), pub.get("lines_saved", "-")))
    lines.append("")
    for name, v in result.items():
        lines.append("%s (%s, parser %s):" % (name, v["commit_date"][:10], v["python"]))
        for label, value in v["definitions"].items():
            lines.append("  %-52s %s" % (label, value))
    print("\n".join(lines))
    return 0


#: Refused archive members listed by name in the printed summary; all are in summary.json.
REFUSED_SHOWN = 10


def _archive_rows(s: Dict[str, Any]) -> List[Any]:
    """For a corpus unpacked from an archive (pypi:): what was unpacked and each member refused."""
    archive = s.get("archive")
    if archive is None:
        return []
    refused = s.get("refused_members", [])
    reasons: Dict[str, int] = {}
    for r in refused:
        reasons[r["reason"]] = reasons.get(r["reason"], 0) + 1
    rows = [("archive", "%s   %s files, %s bytes unpacked   refused %s%s" % (
        archive["file"], _n(archive["files"]), _n(archive["bytes"]), _n(len(refused)),
        " (%s)" % ", ".join("%s %s" % (k, _n(v)) for k, v in sorted(reasons.items())) if refused else ""))]
    for r in refused[:REFUSED_SHOWN]:
        detail = " (%s)" % r["detail"] if r["detail"] else ""
        rows.append(("", "refused %s: %s%s" % (r["member"], r["reason"], detail)))
    if len(refused) > REFUSED_SHOWN:
        more = _n(len(refused) - REFUSED_SHOWN)
        rows.append(("", "... and %s more refused (summary.json: refused_members)" % more))
    return rows


# -- corpus: many projects -------------------------------------------------------

def _add_corpus_commands(commands: Any) -> None:
    """``corpus CORPUS.toml``: scan every project a corpus file lists, one stored scan each."""
    p = commands.add_parser("corpus", help="scan every project of a corpus file (TOML), one stored scan each",
                            description="Scan every project listed in CORPUS.toml (pypi = NAME==VERSION, "
                                        "path = DIR, or git = REPO with rev = REV) and store each in "
                                        "data/<name>/ (or DIR/<name>/ with -o DIR).")
    p.add_argument("corpus_file", metavar="CORPUS.toml")
    p.add_argument("-o", "--output", metavar="DIR", help="store each project in DIR/<name>/ (default: data/)")
    p.add_argument("--csv", action="store_true", help="also write CSV copies of the tables")
    p.add_argument("--json", action="store_true", help="print the summaries as a JSON array")
    p.add_argument("-j", "--jobs", type=_positive, default=None, help="worker processes (default: all cores)")
    p.add_argument("--test-rule", default="components",
                   help="components (default), substring, none, or regex:PATTERN")
    p.add_argument("--long", type=_positive, default=DEFAULT_LONG_THRESHOLD, metavar="N",
                   help="identifiers of at least N characters are long (default: %(default)s)")
    p.add_argument("--skip-existing", action="store_true",
                   help="keep projects already stored in their folder (resume an interrupted run)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    _add_engine_options(p)
    p.set_defaults(handler=cmd_corpus)


def cmd_corpus(args: argparse.Namespace) -> int:
    from punstats import corpus as corpora

    _check_engine_options(args)
    try:
        rule = parse_test_rule(args.test_rule)
        spec = corpora.load(args.corpus_file)
    except (SourceError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    bar = None
    if not args.quiet and sys.stderr.isatty():
        from tqdm import tqdm
        bar = tqdm(total=len(spec.projects), unit="project", desc=spec.name, file=sys.stderr,
                   leave=False, dynamic_ncols=True)

    def start(project: Any) -> None:
        if bar:
            bar.set_postfix_str(project.name)

    def done(stored: Any) -> None:
        if bar:
            bar.update(1)
        if not args.json:
            line = format_corpus_line(stored)
            if bar:
                bar.write(line, file=sys.stdout)
            else:
                print(line, flush=True)

    try:
        results = corpora.scan_corpus(spec, args.output, skip_existing=args.skip_existing, csv=args.csv,
                                      on_start=start, on_done=done, jobs=args.jobs, test_rule=rule,
                                      long_threshold=args.long, engine=args.engine, scheduler=args.scheduler,
                                      cache=not args.no_cache)
    except SourceError as exc:
        raise UsageError(str(exc)) from None
    finally:
        if bar:
            bar.close()
    if args.json:
        print(json.dumps([r.summary for r in results], indent=2, ensure_ascii=False))
    else:
        print("compare: punstats table %s" % " ".join(r.directory for r in results))
    return 0


def format_corpus_line(stored: Any) -> str:
    s = stored.summary
    refused = len(s.get("refused_members", []))
    return "%-20s %-32s files %7s  keywords %9s  f(x=x) %7s (%5.2f%%)%s  -> %s%s" % (
        stored.project.name, s["source"][:32], _n(s["files"]), _n(s["keywords"]), _n(s["punnable"]),
        s["punnable_pct"], "  refused %d" % refused if refused else "", stored.directory,
        "  (already stored)" if stored.reused else "")


def _add_rewrite_commands(commands: Any) -> None:
    for name, help_text in (("rewrite", "rewrite f(x=x) as f(x=) (PEP 736); prints a summary, a diff, or writes"),
                            ("expand", "rewrite f(x=) back to f(x=x), so punned code runs on today's Python")):
        p = commands.add_parser(name, help=help_text, description=help_text[0].upper() + help_text[1:] + ".")
        p.add_argument("path", metavar="PATH", help="directory or file")
        out = p.add_mutually_exclusive_group()
        out.add_argument("--diff", action="store_true", help="print a unified diff (git apply accepts it)")
        out.add_argument("--write", action="store_true", help="edit the files in place")
        if name == "rewrite":
            p.add_argument("--rewrap", action="store_true",
                           help="join calls that now fit on one line, as the PEP author's commit did")
        p.add_argument("-j", "--jobs", type=_positive, default=None, help="worker processes (default: all cores)")
        p.set_defaults(handler=cmd_rewrite, mode="pun" if name == "rewrite" else "expand")


def cmd_rewrite(args: argparse.Namespace) -> int:
    from punstats import rewrite
    if not os.path.exists(args.path):
        raise UsageError("no such file or directory: %s" % args.path)
    results = rewrite.rewrite_tree(args.path, mode=args.mode, rewrap=getattr(args, "rewrap", False),
                                   jobs=args.jobs or os.cpu_count() or 1)
    if args.diff:
        sys.stdout.flush()
        for result in results:
            sys.stdout.buffer.write(rewrite.unified_diff(result))
        sys.stdout.buffer.flush()
    elif args.write:
        rewrite.write(results)
    report = sys.stderr if args.diff else sys.stdout
    print(format_rewrite(results, rewrite.summarize(results), args.write), file=report)
    return 0


def format_rewrite(results: Sequence[Any], s: Any, written: bool) -> str:
    lines = []
    for r in results:
        if r.error:
            lines.append("untouched  %s: %s%s" % (r.path, r.error, ": " + r.detail if r.detail else ""))
        for k in r.skipped:
            lines.append("skipped    %s:%d:%d %s= (%s)" % (r.path, k.line, k.col + 1, k.name, k.reason))
    mode = results[0].mode if results else "pun"
    rows = [
        ("files", "%s   %s %s" % (_n(s.files), "changed" if written else "to change", _n(s.changed))),
        ("edits", "%s%s" % (_n(s.edits), "   (calls re-wrapped %s)" % _n(s.joins) if s.joins else "")),
        ("skipped", "%s occurrences" % _n(s.skipped) if mode == "pun" else "-"),
        ("untouched", "%s files (do not parse, or failed the round trip)" % _n(s.untouched)),
        ("lines", "%s removed, %s added, %s saved" % (_n(s.lines_removed), _n(s.lines_added), _n(s.lines_saved))),
    ]
    return "\n".join(lines + ["%-9s  %s" % row for row in rows])


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return args.handler(args)
    except UsageError as exc:
        print("punstats: error: %s" % exc, file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        print("punstats: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `punstats scan | head`: the reader left, nothing to report
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
