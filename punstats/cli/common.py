"""What the commands share: the usage error, the parser class, argument types, engine options.
"""
from __future__ import annotations

import argparse
import sys
from typing import Any, List, Optional


def _progress_bar(quiet: bool, label: str):
    if quiet or not sys.stderr.isatty():
        return None
    from tqdm import tqdm
    return tqdm(total=0, unit="file", desc=label, file=sys.stderr, leave=False, dynamic_ncols=True)


USAGE_ERROR = 2


class UsageError(Exception):
    """Reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, no usage dump
        raise UsageError(message)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("expected a whole number, got %r" % text) from None
    if value < 1:
        raise argparse.ArgumentTypeError("expected a number of at least 1, got %d" % value)
    return value


def _jobs(text: str) -> int:
    """``-j``: a positive number of worker processes, at most ``MAX_JOBS``."""
    from punstats.engines.base import MAX_JOBS
    value = _positive(text)
    if value > MAX_JOBS:
        raise argparse.ArgumentTypeError(
            "at most %d worker processes (four per core, at least 8: more processes than cores only cost "
            "memory and start-up), not %d" % (MAX_JOBS, value))
    return value


JOBS_HELP = "worker processes (default: all cores; at most four per core)"


def _extensions(text: str) -> List[str]:
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not parts or not all(part.startswith(".") for part in parts):
        raise argparse.ArgumentTypeError("expected endings such as .py,.pyi, got %r" % text)
    return parts


def _add_engine_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-cache", action="store_true",
                   help="extract every file again: neither read nor write the cache (punstats cache)")
    p.add_argument("--engine", choices=("local", "dask"), default="local",
                   help="where files are extracted: local (a process pool, the default) or dask")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="with --engine dask: a running scheduler, e.g. tcp://host:8786 "
                        "(default: start a local cluster of -j workers)")


def _check_engine_options(args: argparse.Namespace) -> None:
    from punstats.engines.base import EngineError, check_engine
    try:
        check_engine(args.engine)
    except EngineError as exc:
        raise UsageError(str(exc)) from None
    if args.scheduler is not None and args.engine != "dask":
        raise UsageError("--scheduler needs --engine dask")


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__


def _write_text(text: str, output: Optional[str]) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    try:
        with open(output, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise UsageError("cannot write %s: %s" % (output, _one_line(exc))) from None


def _cache(args: argparse.Namespace) -> Any:
    if args.no_cache:
        return None
    from punstats.cache import BlobCache
    return BlobCache()

