"""``punstats corpus``: many projects from a corpus file, the top N PyPI projects or a random N.

``corpus CORPUS.toml`` scans each listed project into its own stored scan;
``corpus top-pypi:N`` streams the N most-downloaded PyPI projects (``random-pypi:N
--seed S``: N drawn at random) through ``runs.ecosystem`` into one combined
dataset and an ecosystem summary.
"""
from __future__ import annotations

import argparse
import json
import os
import shlex
import sys
from typing import Any, Callable, List, Tuple

from punstats.cli.common import (
    DEFAULT_ROOT,
    TableHelp,
    UsageError,
    check_engine_options,
    default_place_said,
    engine_options,
    extension_options,
    jobs_options,
    json_options,
    pattern_errors_said,
    pattern_options,
    positive,
    progress_bar,
    quiet_options,
    rule_options,
    scan_options,
    size_options,
)
from punstats.model.escape import terminal


def _add_corpus_commands(commands: Any) -> None:
    """``corpus CORPUS.toml``: scan every project a corpus file lists, one stored scan each."""
    from punstats.sources import help_table
    p = commands.add_parser("corpus", help="scan every project of a corpus file (TOML), or top-pypi:N",
                            description="Scan every project listed in CORPUS.toml (pypi = NAME==VERSION, "
                                        "path = DIR, or git = REPO with rev = REV) and store each in "
                                        "data/<name>/ (or DIR/<name>/ with -o DIR); or, with top-pypi:N, "
                                        "the N most-downloaded PyPI projects into one dataset and an "
                                        "ecosystem summary in data/top-pypi-N/ (or DIR); with "
                                        "random-pypi:N --seed S, N projects drawn at random from the index "
                                        "(data/random-pypi-N-seed-S/).",
                            epilog=help_table("corpus"), formatter_class=TableHelp,
                            parents=[json_options("print the summaries as a JSON array"), jobs_options(),
                                     rule_options(), quiet_options(), engine_options(), pattern_options(),
                                     extension_options(), size_options()])
    p.add_argument("corpus_file", metavar="CORPUS.toml|top-pypi:N|random-pypi:N")
    p.add_argument("-o", "--output", metavar="DIR",
                   help="store each project in DIR/<name>/ (default: data/); top-pypi:N: the run in DIR")
    p.add_argument("--csv", action="store_true", help="also write CSV copies of the tables")
    p.add_argument("--skip-existing", action="store_true",
                   help="keep projects already stored in their folder (resume an interrupted run)")
    p.add_argument("--kind", metavar="NAME",
                   help="what the printed summary is about: a pattern of the run, or a built-in kind "
                        "(default: the one --pattern when given one, else f(x=x), kind call)")
    p.add_argument("--lines-saved", action="store_true",
                   help="also measure the lines punning would save in each project (path and pypi entries; "
                        "the PEP table's 'Lines saved' row)")
    top = p.add_argument_group("top-pypi:N, random-pypi:N")
    top.add_argument("--top-pypi-list", metavar="FILE|URL",
                     help="the ranked list to read (default: the snapshot shipped with punstats)")
    top.add_argument("--seed", metavar="S", help="random-pypi:N: the draw's seed, a whole number (required)")
    top.add_argument("--random-pypi-list", metavar="FILE|URL",
                     help="random-pypi:N: the project list to draw from, PEP 503 HTML "
                          "(default: the index's simple API, https://pypi.org/simple/)")
    top.add_argument("--keep", action="store_true", help="keep each unpacked tree after its scan")
    top.add_argument("--strict", action="store_true", help="stop at the first project that fails")
    top.add_argument("--download-jobs", type=positive, default=4, metavar="N",
                     help="downloads at once, ahead of the scan (default: %(default)s)")
    top.add_argument("--download-cap", type=positive, default=2048, metavar="MB",
                     help="keep at most this many MB of downloaded archives (default: %(default)s)")
    top.add_argument("--index-url", default=None, metavar="URL",
                     help="a PyPI JSON API mirror (default: https://pypi.org/pypi)")
    top.add_argument("--releases", metavar="yearly:FIRST..LAST",
                     help="scan each project as it stood at the end of each year, e.g. yearly:2015..2025 "
                          "(its last release by then), one run per year (default: the latest release)")
    top.add_argument("--no-figure", action="store_true", help="do not draw ecosystem.png")
    p.set_defaults(handler=cmd_corpus)


def cmd_corpus(args: argparse.Namespace) -> int:
    from punstats.present.console import format_corpus_line
    from punstats.runs import projects as corpora
    from punstats.runs.scan import nothing_found, nothing_found_unsaid

    check_engine_options(args)
    if args.corpus_file.startswith(("top-pypi:", "random-pypi:")):
        if args.csv:  # accepted and ignored, a user would look for CSV copies that were never written
            raise UsageError("--csv copies the tables of each project of a CORPUS.toml; %s stores one dataset: "
                             "write its tables with punstats table DIR --format csv" % args.corpus_file.split(":")[0])
        return cmd_top(args) if args.releases is None else cmd_years(args)
    if args.releases is not None:
        raise UsageError("--releases scans top-pypi:N or random-pypi:N over years; a corpus file pins its releases")
    options = scan_options(args)
    kind = _asked_kind(args, options)
    spec = corpora.load(args.corpus_file)
    bar = progress_bar(args.quiet, spec.name, unit="project")
    bar.start(len(spec.projects))

    def start(project: Any) -> None:
        bar.note(project.name)

    def done(stored: Any) -> None:
        bar.update(1)
        if not args.json:
            bar.print(format_corpus_line(stored, kind))
        if not stored.summary["files"] and not stored.reused:  # as scan says it, after its line
            bar.print("punstats: warning: %s: %s" % (stored.project.name, nothing_found(stored.summary)), sys.stderr)

    try:
        with nothing_found_unsaid():  # said by done, as scan says it
            results = corpora.scan_corpus(spec, args.output, skip_existing=args.skip_existing, csv=args.csv,
                                          on_start=start, on_done=done, options=options, cache=not args.no_cache)
    finally:
        bar.close()
    if args.json:
        print(json.dumps([r.summary for r in results], indent=2, ensure_ascii=False))
    else:
        print(terminal("compare: punstats table %s" % " ".join(r.directory for r in results)))
    default_place_said(args.output, os.path.join(DEFAULT_ROOT, "<name>"))
    return pattern_errors_said([(r.project.name, r.summary) for r in results])



def _asked_kind(args: argparse.Namespace, options: Any) -> Any:
    """The kind the printed summary is about (``--kind``, else ``asked.default_kind``), checked
    against the patterns given before any project is read: a one-line error for another name."""
    from punstats.analysis.asked import subject
    from punstats.patterns.built_in import KINDS
    if args.kind is not None and args.json:  # the JSON is every count: it has no subject to choose
        raise UsageError("--kind chooses what the printed summary is about; --json prints every count "
                         "(drop --kind, or --json)")
    return subject(KINDS.with_kinds(options.patterns), args.kind)  # an OptionError: cli.main


def cmd_top(args: argparse.Namespace) -> int:
    """``corpus top-pypi:N`` (``random-pypi:N``): the streaming ecosystem run."""
    from punstats.model.kinds import KIND_CALL
    scan = scan_options(args, lines_saved=False)
    kind = _asked_kind(args, scan)
    bar = progress_bar(args.quiet, args.corpus_file, unit="project")  # total and time left, on a terminal
    done, begin = _bar_callbacks(bar, args, kind)
    failures, ecosystem, options = _run_said(args, scan, done, bar, begin)
    if args.json:
        return failures
    from punstats.present import ecosystem as shown
    from punstats.store.ecosystem import read_run
    # the run's records as ``table`` reads them, once: those the run gave are let go by now
    stored = read_run(options.output)
    records = stored.records
    lines = (shown.summary_lines(ecosystem, records) if kind.name == KIND_CALL
             else shown.kind_summary_lines(ecosystem, records, kind))
    for line in lines:
        print(terminal(line))
    from punstats.store.staging import write_atomic
    tables = []
    for ending, text in shown.table_texts(records, ecosystem, more=_pattern_tables(stored)).items():
        tables.append(os.path.join(options.output, "ecosystem-table." + ending))
        write_atomic(tables[-1], text.encode())
    print(terminal("tables (every project, every pattern): %s" % ", ".join(tables)))
    print(terminal(_again(options.output, kind, scan.patterns)))
    print("dataset: pd.read_parquet(%r) (and %r); summary: %s" % (
        os.path.join(options.output, "occurrences"), os.path.join(options.output, "files"),
        os.path.join(options.output, "ecosystem.json")))
    if not args.no_figure:
        try:
            figure = shown.save_figure(records, ecosystem, os.path.join(options.output, "ecosystem.png"),
                                       cache=not args.no_cache)
            print("figure: %s" % terminal(figure))
        except ImportError:
            print("figure: not drawn (matplotlib is not installed: pip install punstats[plot])")
    return failures


def _run_said(args: argparse.Namespace, scan: Any, done: Any, bar: Any, begin: Any) -> Tuple[int, Any, Any]:
    """(the exit status of the patterns' errors, the ecosystem summary, the run's options) of
    running ``top-pypi:N`` or ``random-pypi:N`` (``_top_run``), its records printed with ``--json``."""
    (records, ecosystem), options = _top_run(args, scan, done, bar, begin)
    failures = pattern_errors_said([(r["project"], r["summary"]) for r in records
                                    if r["status"] == "scanned" and isinstance(r.get("summary"), dict)])
    default_place_said(args.output, options.output)
    if args.json:
        print(json.dumps({"projects": records, "ecosystem": ecosystem}, indent=1, ensure_ascii=False))
    return failures, ecosystem, options


def _top_run(args: argparse.Namespace, scan: Any, done: Any, bar: Any, begin: Any = None) -> Any:
    """(what running ``top-pypi:N`` or ``random-pypi:N`` as ``args`` say gave, its options): ``done``
    sees each project as it finishes, ``begin`` each as it begins (default: the bar names it), ``bar``
    shows the progress and, above it, any wait for the network."""
    from punstats.runs import projects as corpora
    random = args.corpus_file.startswith("random-pypi:")
    other = args.top_pypi_list if random else args.random_pypi_list
    try:
        if other is not None:
            raise UsageError("--%s-pypi-list reads the list of %s-pypi:N, not of %s" % (
                ("top", "top", args.corpus_file) if random else ("random", "random", args.corpus_file)))
        run, options = corpora.top_pypi_run(
            args.corpus_file, args.random_pypi_list if random else args.top_pypi_list, seed=args.seed,
            output=args.output, scan=scan, releases=args.releases,
            cache=not args.no_cache, download_jobs=args.download_jobs, download_cap=args.download_cap * 1024 * 1024,
            index_url=args.index_url, keep=args.keep, skip_existing=args.skip_existing, strict=args.strict)
        return run(on_done=done, on_start=bar.start, on_begin=begin or bar.note,
                   on_wait=lambda text: bar.print("punstats: " + text, file=sys.stderr)), options
    except OSError as exc:  # the output directory became unwritable (a full disk): what is journaled stays
        raise UsageError("cannot write %s: %s" % (getattr(exc, "filename", None) or args.output,
                                                  exc.strerror or exc)) from None
    finally:
        bar.close()


def cmd_years(args: argparse.Namespace) -> int:
    """``corpus top-pypi:N --releases yearly:A..B``: one run per year, then the trend table."""
    from punstats.present import years as shown
    from punstats.present.ecosystem import project_line
    from punstats.store.years import read_years
    scan = scan_options(args, lines_saved=False)
    kind = _asked_kind(args, scan)
    bar = progress_bar(args.quiet, args.corpus_file, unit="project")

    def done(record: Any, reused: bool) -> None:
        bar.update(1)
        if not args.json:
            bar.print("%s %s" % (record.get("year", ""), project_line(record, reused, kind)))
    finished, options = _top_run(args, scan, done, bar)
    failures = pattern_errors_said([("%s (%d)" % (r["project"], y.year), r["summary"]) for y in finished for r in
                                    y.records if r["status"] == "scanned" and isinstance(r.get("summary"), dict)])
    default_place_said(args.output, options.output)
    if args.json:
        print(json.dumps([{"year": y.year, "projects": y.records, "ecosystem": y.ecosystem} for y in finished],
                         indent=1, ensure_ascii=False))
        return failures
    # what each year cost in this session: later years reuse the blob cache
    for year in finished:
        cache = year.ecosystem.get("cache") or {}
        print(terminal("%d: %.1f s, %d files scanned now; files of the year from the cache %d, extracted %d"
                       % (year.year, year.seconds, year.files, cache.get("cached", 0), cache.get("extracted", 0))))
    from punstats.analysis.years import trend
    from punstats.present.formats import render_all
    stored = read_years(options.output)
    for line in render_all([shown.trend_table(stored, trend(stored, kind))], "rst").rstrip("\n").split("\n"):
        print(terminal(line))
    print(terminal("show it again: punstats table %s, punstats plot %s, punstats report %s (each year alone: %s)"
                   % ((shlex.quote(options.output),) * 3 + (shlex.quote(os.path.join(options.output, "YEAR")),))))
    return failures


def _bar_callbacks(bar: Any, args: argparse.Namespace, kind: Any) -> Tuple[Callable[[Any, bool], None],
                                                                           Callable[[str], None]]:
    """(on_done, on_begin) of a run's bar: each project counted and its line printed above the bar;
    the one in work named, with the megabytes of releases unpacked so far in this run."""
    from punstats.present.ecosystem import project_line
    unpacked = [0]

    def done(record: Any, reused: bool) -> None:
        if record.get("status") == "scanned" and not reused:
            unpacked[0] += int(((record.get("summary") or {}).get("archive") or {}).get("bytes") or 0)
        bar.update(1)
        if not args.json:
            bar.print(project_line(record, reused, kind))

    def begin(name: str) -> None:
        bar.note("%s; %.1f MB unpacked so far" % (name, unpacked[0] / 1e6) if unpacked[0] else name)
    return done, begin


def _again(output: str, kind: Any, patterns: Any) -> str:
    """The commands that show a run again about ``kind`` (``--kind`` named when it is not the run's
    default), and where its hits are read (a kind stored as occurrences)."""
    from punstats.analysis.asked import default_kind
    from punstats.patterns.built_in import KINDS
    run = shlex.quote(output) + ("" if kind.name == default_kind(KINDS.with_kinds(patterns))
                                 else " --kind " + kind.name)
    text = ("show it again: punstats table %s (--kinds, --kind NAME, --top K, --format), punstats plot %s, "
            "punstats report %s" % (run, run, run))
    return text + ("; its hits: punstats hits %s" % run if kind.occurrence else "")


def _pattern_tables(stored: Any) -> List[Any]:
    """The projects table of each user pattern of the finished run ``stored`` (``present.subject``:
    its count and measure per project), written after the f(x=x) one."""
    from punstats.present.subject import project_table
    return [project_table(stored, kind) for kind in stored.registry.user]
