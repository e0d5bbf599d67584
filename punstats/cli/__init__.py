"""The ``punstats`` command: argument parsing and printing only.

Every command calls the Python API; nothing here computes a statistic.
Exit status: 0 when the command ran (files that fail to parse are data),
2 for a usage error, reported in one line without a traceback.
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Optional, Sequence

from punstats import __version__
from punstats.cli.cache import cmd_cache
from punstats.cli.common import (
    JOBS_HELP,
    USAGE_ERROR,
    UsageError,
    _add_engine_options,
    _extensions,
    _jobs,
    _Parser,
    _positive,
)
from punstats.cli.corpus import _add_corpus_commands
from punstats.cli.evidence import _add_evidence_commands
from punstats.cli.history import cmd_history
from punstats.cli.reproduce import _add_reproduce_commands
from punstats.cli.rewrite import _add_rewrite_commands
from punstats.cli.scan import cmd_scan
from punstats.discover.tree import DEFAULT_EXTENSIONS
from punstats.model.limits import DEFAULT_MAX_BYTES
from punstats.store.rules import DEFAULT_LONG_THRESHOLD


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
    p.add_argument("-j", "--jobs", type=_jobs, default=None, help=JOBS_HELP)
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
    p.add_argument("-j", "--jobs", type=_jobs, default=None, help=JOBS_HELP)
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

