"""``punstats corpus``: many projects from a corpus file.
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from punstats.cli.common import (
    JOBS_HELP,
    UsageError,
    _add_engine_options,
    _check_engine_options,
    _jobs,
    _positive,
)
from punstats.model.corpus import SourceError
from punstats.present.console import format_corpus_line
from punstats.store.rules import DEFAULT_LONG_THRESHOLD, parse_test_rule


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
    p.add_argument("-j", "--jobs", type=_jobs, default=None, help=JOBS_HELP)
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
    from punstats.runs import projects as corpora

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

