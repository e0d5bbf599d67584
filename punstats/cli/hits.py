"""``punstats hits``: the hits of one kind, one line each, to jump to (``present.hits``).
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

from punstats.cli.common import MAX_NUMBER, from_zero, json_options
from punstats.model.escape import terminal

HELP = "print the hits of one kind as path:line:col: lines (or JSON lines), to jump to each"


def _add_hits_command(commands: Any) -> None:
    """``hits``, which prints where the occurrences of one kind are."""
    p = commands.add_parser(
        "hits", help=HELP,
        parents=[json_options("one JSON object per hit and line (JSON lines): path, line, column, end_line, "
                              "end_column, kind, name, value, in_test, cell, source_line; of a run also "
                              "project, rank, release and file")],
        description="Print each occurrence of one kind of a stored scan or an ecosystem run as "
                    "path:line:col: and its source line (1-based lines and columns, as grep -n, ripgrep and "
                    "editors read them; a notebook's as path:cell N:line:col:; a run's path under "
                    "PROJECT-VERSION/), sorted by path, line and column. The line is read from the scanned "
                    "file when it is still there unchanged, else it is the stored value.")
    p.add_argument("dir", metavar="DIR", help="a stored scan (punstats scan -o DIR) or the directory of a "
                                              "punstats corpus top-pypi:N run")
    p.add_argument("--kind", metavar="NAME", default=None,
                   help="the occurrence kind: call, attribute, near_miss, dict_literal, class or a pattern's "
                        "name (default: the scan's pattern when it was given exactly one, else call)")
    p.add_argument("-n", dest="limit", type=from_zero(MAX_NUMBER, "hits"), default=0, metavar="N",
                   help="print the first N hits only (default: 0, all)")
    tests = p.add_mutually_exclusive_group()
    tests.add_argument("--outside-tests", dest="tests", action="store_const", const=False, default=None,
                       help="only the hits outside test code (the scan's test rule)")
    tests.add_argument("--tests-only", dest="tests", action="store_const", const=True,
                       help="only the hits in test code")
    p.set_defaults(handler=cmd_hits)


def cmd_hits(args: argparse.Namespace) -> int:
    from punstats.present.hits import hits_of, json_lines, text_lines

    found = hits_of(args.dir, args.kind, args.tests)  # a StoreError, an OptionError: cli.main
    shown = found.hits[:args.limit] if args.limit else found.hits
    sys.stdout.write("".join(line + "\n" for line in (json_lines if args.json else text_lines)(shown)))
    if len(shown) < len(found.hits):
        print("punstats: %d of %d hits shown; -n 0 for all" % (len(shown), len(found.hits)), file=sys.stderr)
    elif not found.hits:
        where = {None: "", False: " outside tests", True: " in tests"}[args.tests]
        print(terminal("punstats: no hits of %s%s in %s" % (found.kind, where, args.dir)), file=sys.stderr)
    return 0
