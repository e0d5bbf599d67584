"""``punstats scan``.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
from typing import Any, Dict, List, Optional, Sequence

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
    progress_bar,
    quiet_options,
    rule_options,
    scan_options,
    size_options,
)
from punstats.model.escape import terminal


def _add_scan_command(commands: Any) -> None:
    from punstats.sources import help_table
    p = commands.add_parser("scan", help="scan code bases and store the results",
                            description="Scan directories (default: this interpreter's standard library).",
                            epilog=help_table("scan"), formatter_class=TableHelp,
                            parents=[json_options("print the summary as JSON"), jobs_options(), rule_options(),
                                     quiet_options(), engine_options(), pattern_options(), extension_options(),
                                     size_options()])
    p.add_argument("paths", nargs="*", metavar="PATH", help="directory or file; none: the standard library")
    p.add_argument("-o", "--output", metavar="DIR",
                   help="where to store the tables (default: data/<corpus name>/)")
    p.add_argument("--no-save", action="store_true",
                   help="print the summary only: the tables are written as the scan runs to a temporary "
                        "directory (as with -o, memory does not grow with the files), removed at the end")
    p.add_argument("--name", action="append", metavar="NAME",
                   help="what tables and figures call the scan (default: the corpus name); once per PATH")
    p.add_argument("--csv", action="store_true", help="also write CSV copies of the tables")
    p.add_argument("--test-pattern", metavar="REGEX", help="shorthand for --test-rule regex:REGEX")
    p.add_argument("--follow-links", action="store_true",
                   help="follow symbolic links that stay inside the root")
    p.add_argument("--no-exclude", action="store_true",
                   help="also walk VCS, virtual-environment and cache directories")
    p.add_argument("--no-ignore", action="store_true",
                   help="also scan what .gitignore files leave out (by default they are honoured, as git does)")
    p.add_argument("--exclude", action="append", default=[], metavar="GLOB",
                   help="leave out paths matching GLOB (.gitignore syntax, relative to the root); repeatable")
    p.add_argument("--lines-saved", action="store_true",
                   help="also measure the lines punning would save (punstats rewrite --rewrap, in memory)")
    p.add_argument("--rev", metavar="REV", help="scan this revision of the git repository PATH (no checkout)")
    p.add_argument("--python", metavar="PATH",
                   help="parse with this interpreter (Python >= 3.8): short for --engine python:PATH")
    p.add_argument("--kind", metavar="NAME",
                   help="what the summary printed is about: a pattern of the scan, or a built-in kind "
                        "(default: the one --pattern when given one, else f(x=x), kind call)")
    p.add_argument("--compat", metavar="PROFILE",
                   help="count as a published script did, e.g. angelico-2023-10; prints its output lines")
    p.set_defaults(handler=cmd_scan)


def _scan_compat(args: argparse.Namespace, rule: Any) -> int:
    """``scan --compat PROFILE``: the published script's output lines, then its counts."""
    from punstats import reproduce
    if len(args.paths) != 1:
        raise UsageError("--compat needs exactly one PATH")
    r = reproduce.angelico(args.paths[0], args.rev, python=args.python, profile=args.compat,
                           test_rule="path:" + rule.label if rule.label != "components"
                           else "path:substring", long_threshold=args.long)
    if args.json:
        print(json.dumps(r.as_dict(), indent=2, ensure_ascii=False))
        return 0
    for line in r.lines:
        print(terminal(line))
    if r.stats_text:
        print("\n".join(terminal(line) for line in r.stats_text.splitlines()))
    print(terminal("# %s: %d lines, %d with identifiers of >= %d characters, %d of those outside tests (%s)%s"
          % (args.compat, r.compat.total, r.compat.long, args.long, r.compat.long_nontest,
             r.configuration["test_rule"], "; " + r.crash if r.crash else "")), file=sys.stderr)
    return 0


def _output_dirs(args: argparse.Namespace, names: Sequence[str]) -> List[str]:
    """Where each scan is stored: ``-o`` for one path; else one folder per scan, named after it."""
    from punstats.store.places import PlaceError, plain_name
    base = args.output
    result, used = [], set()
    for name in names:
        unique, n = name, 2
        while unique in used:
            unique, n = "%s-%d" % (name, n), n + 1
        used.add(unique)
        if base is None or len(names) > 1:
            try:
                plain_name(unique, "corpus name")
            except PlaceError as exc:
                raise UsageError("%s: give --name NAME or -o DIR" % exc) from None
        if base is None:
            result.append(os.path.join(DEFAULT_ROOT, unique))
        elif len(names) == 1:
            result.append(base)
        else:
            result.append(os.path.join(base, unique))
    return result


def _named(corpora: List[Any], names: Optional[List[str]]) -> List[Any]:
    """``--name``: what tables, figures and output folders call each scan."""
    if not names:
        return corpora
    if len(names) != len(corpora):
        raise UsageError("give --name once per PATH (%d names for %d paths)" % (len(names), len(corpora)))
    from punstats.store.places import plain_name
    names = [plain_name(name, "--name") for name in names]  # a PlaceError is the user's to fix (cli.main)
    return [dataclasses.replace(c, name=n) for c, n in zip(corpora, names)]


def _json_ready(summary: Dict[str, Any]) -> Dict[str, Any]:
    """A summary as JSON shows it: yes/no facts as booleans."""
    if "cache" in summary and "tables_reused" in summary["cache"]:
        summary = dict(summary, cache=dict(summary["cache"], tables_reused=bool(summary["cache"]["tables_reused"])))
    return summary


def _scan_one(args: argparse.Namespace, corpus: Any, options: Any, output: str) -> Dict[str, Any]:
    """One corpus scanned with a progress bar; its summary.  A scan of nothing is said by
    ``cmd_scan`` (after the summary), not warned of by ``punstats.scan``."""
    from punstats.runs.scan import nothing_found_unsaid, scan
    bar = progress_bar(args.quiet, corpus.name)
    try:
        with nothing_found_unsaid():
            result = scan(corpus=corpus, options=options, progress=bar.update, on_discovered=bar.start,
                          cache=not args.no_cache, output=None if args.no_save else output,
                          csv=args.csv, eager=False)  # stored as it runs; --no-save: never read back
    finally:
        bar.close()
    return result.summary


def cmd_scan(args: argparse.Namespace) -> int:
    from punstats.present.console import format_summary
    from punstats.runs.scan import nothing_found
    from punstats.sources import resolve
    from punstats.store.rules import parse_test_rule

    check_engine_options(args)
    if args.no_save and (args.csv or args.output is not None):  # its files would go with the temporary directory
        raise UsageError("--no-save stores nothing: %s writes a stored scan's files (drop one)"
                         % ("--csv" if args.csv else "-o"))
    rule = parse_test_rule("regex:" + args.test_pattern if args.test_pattern else args.test_rule)
    options = scan_options(args, test_rule=rule)  # user patterns are loaded here, before any work
    if args.kind is not None and args.json:  # the JSON is every count: it has no subject to choose
        raise UsageError("--kind chooses what the printed summary is about; --json prints every count "
                         "(drop --kind, or --json)")
    if args.kind is not None:  # a kind the scan will not count: said before any file is read
        from punstats.analysis.asked import subject
        from punstats.patterns.built_in import KINDS
        subject(KINDS.with_kinds(options.patterns), args.kind)  # an OptionError: cli.main
    if args.compat:
        if options.patterns:
            raise UsageError("--compat counts as a published script did; it takes no --pattern")
        return _scan_compat(args, rule)
    if args.rev is not None:
        options.check_revision()  # before the repository is opened
        from punstats.sources import revision_corpus
        corpora = [revision_corpus(path, args.rev) for path in args.paths or ["."]]
    else:
        corpora = [resolve(path) for path in args.paths] or [resolve(None)]
    corpora = _named(corpora, args.name)
    for corpus in corpora:  # every path checked before the first is scanned
        options.check_corpus(corpus)
    outputs = _output_dirs(args, [c.name for c in corpora])
    summaries = []
    for corpus, output in zip(corpora, outputs):
        summary = _scan_one(args, corpus, options, output)
        if not args.no_save:
            summary = dict(summary, stored=output)
        summaries.append(summary)
        if not args.json:
            print(format_summary(summary, args.kind))
        if not args.no_save:
            default_place_said(args.output, output)
        if not summary["files"]:  # a valid result, stored like any other: said, not refused
            print(terminal("punstats: warning: " + nothing_found(summary)), file=sys.stderr)
    if args.json:  # one shape for any number of paths: an array of summaries
        print(json.dumps([_json_ready(s) for s in summaries], indent=2, ensure_ascii=False))
    return pattern_errors_said([(c.name, s) for c, s in zip(corpora, summaries)])

