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
from punstats.cli.cache import _add_cache_command
from punstats.cli.common import USAGE_ERROR, UsageError, _Parser
from punstats.cli.corpus import _add_corpus_commands
from punstats.cli.evidence import _add_evidence_commands
from punstats.cli.history import _add_history_command
from punstats.cli.reproduce import _add_reproduce_commands
from punstats.cli.rewrite import _add_rewrite_commands
from punstats.cli.scan import _add_scan_command


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="punstats", description="Count keyword arguments of the form f(x=x).")
    parser.add_argument("--version", action="version", version="punstats " + __version__)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    _add_scan_command(commands)
    _add_cache_command(commands)
    _add_history_command(commands)
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

