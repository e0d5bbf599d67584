"""``punstats label``: the sheet on which a reader labels the occurrences of one kind, of a stored
scan (``present.labels``) or of an ecosystem run (``present.run_labels``).
"""
from __future__ import annotations

import argparse
from typing import Any

from punstats.cli.common import UsageError, error_line, from_zero, positive, whole
from punstats.model.escape import terminal

HELP = "write the occurrences of one kind with their source, to label by hand (CSV and Markdown)"

#: The most lines of context ``--context`` shows around an occurrence.
MAX_CONTEXT = 100


def _add_label_command(commands: Any) -> None:
    """``label``, which writes a labels sheet beside a stored scan or into an ecosystem run's folder."""
    p = commands.add_parser(
        "label", help=HELP,
        description="Write every occurrence of one kind of a stored scan, with a few lines of its source, "
                    "to DIR/labels-NAME.csv and DIR/labels-NAME.md. Fill the label column of the CSV (the "
                    "source of truth) and run the command again: the labels entered are kept, the Markdown "
                    "is rewritten from them, and punstats table DIR --by label counts them. A re-scan with "
                    "punstats scan -o DIR keeps the labels of unchanged files. DIR may be an ecosystem run "
                    "(punstats corpus top-pypi:N -o DIR): one sheet across its projects, in rank order.")
    p.add_argument("dir", metavar="DIR", help="a stored scan (punstats scan -o DIR) or an ecosystem run "
                                              "(punstats corpus top-pypi:N -o DIR)")
    p.add_argument("--kind", metavar="NAME", default=None,
                   help="the occurrence kind: call, class, attribute, dict_literal, near_miss or a pattern's name "
                        "(default: the scan's or run's pattern when it was given exactly one, else call)")
    p.add_argument("--context", type=from_zero(MAX_CONTEXT, "lines"), default=None, metavar="N",
                   help="lines of source above and below each occurrence (default: 3; a run has no source)")
    p.add_argument("--sample", type=positive, default=None, metavar="N",
                   help="a random sample of N occurrences (plus the rows already in the sheet)")
    p.add_argument("--seed", type=whole, default=None, metavar="S",
                   help="with --sample or --per-project: the sample's seed (default: 0)")
    p.add_argument("--per-project", type=positive, default=None, metavar="K",
                   help="an ecosystem run: at most K occurrences of each project (with --sample N: N in all, "
                        "drawn at random, no project over K)")
    p.add_argument("-o", "--output", metavar="DIR", default=None,
                   help="write the sheet there instead (only labels in the scan's directory are counted "
                        "and kept by a re-scan)")
    p.set_defaults(handler=cmd_label)


def cmd_label(args: argparse.Namespace) -> int:
    from punstats.store.ecosystem import is_run

    if args.seed is not None and args.sample is None and args.per_project is None:  # it would be ignored
        raise UsageError("--seed %d draws the sample of --sample N: give --sample N too, or drop --seed" % args.seed)
    run = is_run(args.dir)
    if run and args.context is not None:
        raise UsageError("%s is an ecosystem run: it keeps no release files, so there is no source for "
                         "--context to show (drop it)" % args.dir)
    if not run and args.per_project is not None:
        raise UsageError("--per-project K draws from the projects of an ecosystem run; %s is not one "
                         "(--sample N draws from a scan)" % args.dir)
    kind = args.kind if args.kind is not None else _default_kind(args.dir, run)
    try:  # a StoreError (not a stored scan, a sheet whose keys are not the scan's): cli.main
        written = _write(args, run, kind)
    except OSError as exc:
        raise UsageError("cannot write the labels sheet: %s" % error_line(exc)) from None
    print(terminal("%s: %d of %d occurrences of %s, %d labelled" % (
        written.csv, written.rows, written.occurrences, kind, written.labelled)))
    print(terminal(written.markdown))
    return 0


def _default_kind(directory: str, run: bool) -> str:
    """The kind labelled without ``--kind`` (``analysis.asked.default_kind``): the scan's or run's
    one pattern, else ``call``; a directory that is neither is the store's one-line error."""
    from punstats.analysis.asked import default_kind
    from punstats.patterns.built_in import registry_of
    if run:
        from punstats.store.ecosystem import read_run
        return default_kind(read_run(directory).registry)
    from punstats.store.disk import read_summary
    return default_kind(registry_of(read_summary(directory)))


def _write(args: argparse.Namespace, run: bool, kind: str) -> Any:
    """The sheet of ``kind`` of a run (``present.run_labels``) or of a scan (``present.labels``), written."""
    drawn = {"sample": args.sample, "seed": args.seed or 0, "output": args.output}
    if run:
        from punstats.present.run_labels import write_run_labels
        return write_run_labels(args.dir, kind, per_project=args.per_project, **drawn)
    from punstats.present.labels import DEFAULT_CONTEXT, write_labels
    return write_labels(args.dir, kind, context=DEFAULT_CONTEXT if args.context is None else args.context,
                        **drawn)
