"""Options of ``table`` and ``report`` that a combination would leave without effect: refused.

An option accepted and then ignored would let a user believe it acted, so
each such combination is a one-line ``UsageError`` (exit status 2) naming
what to drop: ``-n`` of a table it does not cut, ``--links`` in another
format than Markdown, a figure option with ``--no-figures``, and
``--figures-dir`` with ``--embed``.
"""
from __future__ import annotations

import argparse
import os

from punstats.cli.common import UsageError

#: The tables ``-n N`` cuts: of stored scans, and of an ecosystem run (its projects table is ``summary``).
TOP_CUTS = {False: ("identifier", "callee", "directory"), True: ("summary", "identifier", "callee")}


def check_table_options(args: argparse.Namespace, run: bool) -> None:
    """One line for an option this table would ignore: ``-n`` of a table it does not cut, ``--links``
    in another format than Markdown."""
    if args.top_given and args.by not in TOP_CUTS[run]:
        named = {"summary": "a run's projects table", "kinds": "--kinds"}
        shown = {"summary": "the summary table"}.get(args.by, named.get(args.by, "--by " + args.by))
        raise UsageError("-n N chooses the rows of %s; %s has no such choice: drop -n" % (
            ", ".join(named.get(by, "--by " + by) for by in TOP_CUTS[run]), shown))
    if args.links and args.format != "markdown":
        raise UsageError("--links writes Markdown (sources linked, provenance below): give --format markdown, "
                         "or drop --links")


def check_figure_options(args: argparse.Namespace) -> None:
    """One line for a figure option the report would ignore: any with --no-figures, --figures-dir
    with --embed (the figures go into the file)."""
    given = [option for option, value in (("--embed", args.embed), ("--figures-dir", args.figures_dir)) if value]
    if args.no_figures and given:
        raise UsageError("--no-figures writes no figure, so %s has nothing to do: drop one of them" % given[0])
    if len(given) == 2:
        raise UsageError("--embed puts the figures into the report, so --figures-dir has nothing to do: drop one")


def check_report_output(args: argparse.Namespace) -> None:
    """One line for ``-o`` of a report not ending in ``.md``: it would hold Markdown all the same."""
    if args.output is not None and not args.output.lower().endswith(".md"):
        raise UsageError("a report is Markdown: give -o a file ending in .md, e.g. -o %s.md"
                         % (os.path.splitext(args.output)[0].rstrip("/") or "report"))


def check_run_alone(args: argparse.Namespace, directory: str, what: str = "an ecosystem run",
                    why: str = "a run is not compared with other directories") -> None:
    """One line when ``directory``, a run (``what``), is given with other directories or with rules
    to re-apply: its projects keep the rules they were scanned with."""
    if len(args.dirs) > 1:
        raise UsageError("%s is %s: give it alone (%s)" % (directory, what, why))
    if args.test_rule is not None or args.long is not None:
        raise UsageError("%s is %s: its projects keep the rules they were scanned with "
                         "(--test-rule and --long re-classify a stored scan)" % (directory, what))
