"""``punstats rewrite`` and ``expand``.

Exit status: 0; 1 when a file could not be read or written back
(``rewrite.FILE_FAULTS``: listed as untouched, the others done), in every mode
(summary, ``--diff``, ``--write``); 2 for a usage error.  Files left untouched
because of what they hold (they do not parse, or fail the round trip) are
listed and do not change it, as a scan records them and exits 0.
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

from punstats.cli.common import jobs_options, progress_bar, quiet_options

#: The exit status when a file could not be read or written back.
FILES_LEFT = 1

EXIT_STATUS = ("exit status: 0; 1 when a file could not be read or written back (it is listed as "
               "untouched: unreadable, not_written); 2 for a usage error")


def _add_rewrite_commands(commands: Any) -> None:
    for name, help_text in (("rewrite", "rewrite f(x=x) as f(x=) (PEP 736); prints a summary, a diff, or writes"),
                            ("expand", "rewrite f(x=) back to f(x=x), so punned code runs on today's Python")):
        p = commands.add_parser(name, help=help_text, description=help_text[0].upper() + help_text[1:] + ".",
                                parents=[jobs_options(), quiet_options()], epilog=EXIT_STATUS)
        p.add_argument("path", metavar="PATH", help="directory or file")
        out = p.add_mutually_exclusive_group()
        out.add_argument("--diff", action="store_true", help="print a unified diff (git apply accepts it)")
        out.add_argument("--write", action="store_true", help="edit the files in place")
        if name == "rewrite":
            p.add_argument("--rewrap", action="store_true",
                           help="join calls that now fit on one line, as the PEP author's commit did")
            p.add_argument("--style", choices=("postfix", "prefix"), default="postfix",
                           help="postfix: f(x=) (PEP 736, the default); prefix: f(=x) (the PEP author's "
                                "2024 commits); expand reads both")
            p.add_argument("--delimited-only", action="store_true",
                           help="only bare x=x between ( or , and , or ) with nothing but blanks around "
                                "it, as the PEP author's scripts (no comment next to it, no x=(x))")
        p.set_defaults(handler=cmd_rewrite, mode="pun" if name == "rewrite" else "expand")


def cmd_rewrite(args: argparse.Namespace) -> int:
    from punstats import rewrite
    from punstats.present.console import format_rewrite
    from punstats.sources.local import check_path
    check_path(args.path)  # what scan accepts: a directory it can list or a regular file (a SourceError: cli.main)
    bar = progress_bar(args.quiet, args.mode)
    try:
        results = rewrite.rewrite_tree(args.path, mode=args.mode, rewrap=getattr(args, "rewrap", False),
                                       jobs=args.jobs,  # None: all cores
                                       style=getattr(args, "style", "postfix"),
                                       delimited_only=getattr(args, "delimited_only", False),
                                       progress=bar.update, on_discovered=bar.start)
    finally:
        bar.close()
    if args.diff:
        sys.stdout.flush()
        for result in results:
            sys.stdout.buffer.write(rewrite.unified_diff(result))
        sys.stdout.buffer.flush()
    elif args.write:
        results = rewrite.write_back(results)
    report = sys.stderr if args.diff else sys.stdout
    print(format_rewrite(results, rewrite.summarize(results), args.write), file=report)
    return FILES_LEFT if any(result.error in rewrite.FILE_FAULTS for result in results) else 0

