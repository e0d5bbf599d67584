"""``punstats label``: the sheet on which a reader labels the occurrences of one kind.
"""
from __future__ import annotations

import argparse
from typing import Any

from punstats.cli.common import UsageError, _from_zero, _one_line, _positive, _whole
from punstats.model.escape import terminal

HELP = "write the occurrences of one kind with their source, to label by hand (CSV and Markdown)"

#: The most lines of context ``--context`` shows around an occurrence.
MAX_CONTEXT = 100


def _add_label_command(commands: Any) -> None:
    """``label``, which writes a labels sheet beside a stored scan."""
    p = commands.add_parser(
        "label", help=HELP,
        description="Write every occurrence of one kind of a stored scan, with a few lines of its source, "
                    "to DIR/labels-NAME.csv and DIR/labels-NAME.md. Fill the label column of the CSV (the "
                    "source of truth) and run the command again: the labels entered are kept, the Markdown "
                    "is rewritten from them, and punstats table DIR --by label counts them. A re-scan with "
                    "punstats scan -o DIR keeps the labels of unchanged files.")
    p.add_argument("dir", metavar="DIR", help="a stored scan, as written by punstats scan -o DIR")
    p.add_argument("--kind", required=True, metavar="NAME",
                   help="the occurrence kind: call, class, attribute, dict_literal, near_miss or a pattern's name")
    p.add_argument("--context", type=_from_zero(MAX_CONTEXT, "lines"), default=3, metavar="N",
                   help="lines of source above and below each occurrence (default: %(default)s)")
    p.add_argument("--sample", type=_positive, default=None, metavar="N",
                   help="a random sample of N occurrences (plus the rows already in the sheet)")
    p.add_argument("--seed", type=_whole, default=None, metavar="S",
                   help="with --sample: the sample's seed (default: 0)")
    p.add_argument("-o", "--output", metavar="DIR", default=None,
                   help="write the sheet there instead (only labels in the scan's directory are counted "
                        "and kept by a re-scan)")
    p.set_defaults(handler=cmd_label)


def cmd_label(args: argparse.Namespace) -> int:
    from punstats.present.labels import write_labels

    if args.seed is not None and args.sample is None:  # a seed without a sample would be ignored
        raise UsageError("--seed %d draws the sample of --sample N: give --sample N too, or drop --seed" % args.seed)
    try:  # a StoreError (not a stored scan, a sheet whose keys are not the scan's): cli.main
        written = write_labels(args.dir, args.kind, context=args.context, sample=args.sample, seed=args.seed or 0,
                               output=args.output)
    except OSError as exc:
        raise UsageError("cannot write the labels sheet: %s" % _one_line(exc)) from None
    print(terminal("%s: %d of %d occurrences of %s, %d labelled" % (
        written.csv, written.rows, written.occurrences, args.kind, written.labelled)))
    print(terminal(written.markdown))
    return 0
