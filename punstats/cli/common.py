"""What the commands share: the usage error, the parser class, argument types, and the
options several commands take, as argparse parent parsers (``parents=[jobs_options()]``).
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Any, List, NoReturn, Optional, Tuple

from punstats.model.escape import terminal


class Progress:
    """A progress bar on standard error when it is a terminal, and nothing otherwise.

    The bar appears once its total is known (``start``), so it always shows a
    fraction, a rate and an estimate of the time left; ``close`` clears its
    line, so what is printed next starts on a clean line.
    """

    def __init__(self, quiet: bool, label: str, unit: str = "file") -> None:
        self.enabled = not quiet and sys.stderr.isatty()
        self.label, self.unit, self._bar = label, unit, None

    def start(self, total: int, label: Optional[str] = None) -> None:
        """(Re)start the bar at 0 of ``total``, under ``label`` if given."""
        self.close()
        if self.enabled:
            from tqdm import tqdm
            self._bar = tqdm(total=total, unit=self.unit, desc=terminal(label or self.label), file=sys.stderr,
                             leave=False, dynamic_ncols=True)

    def update(self, n: int = 1) -> None:
        if self._bar is not None:
            self._bar.update(n)

    def set(self, done: int) -> None:
        """Show ``done`` of the total (for callers that count, not add)."""
        if self._bar is not None:
            self._bar.update(done - self._bar.n)

    def note(self, text: str) -> None:
        """Show ``text`` after the counts (what is being worked on now)."""
        if self._bar is not None:
            self._bar.set_postfix_str(terminal(text))

    def print(self, line: str) -> None:
        """``line`` (escaped for a terminal) on standard output, above the bar when there is one."""
        line = terminal(line)
        if self._bar is not None:
            self._bar.write(line, file=sys.stdout)
        else:
            print(line, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _progress_bar(quiet: bool, label: str, unit: str = "file") -> Progress:
    return Progress(quiet, label, unit)


USAGE_ERROR = 2


class UsageError(Exception):
    """Reported as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, no usage dump
        raise UsageError(message)


#: The largest number any option takes: counts, bytes and megabytes beyond it mean nothing here,
#: and every number stays well inside the 64-bit integers of the stored tables.
MAX_NUMBER = 10 ** 12


def _shown(text: str, limit: int = 40) -> str:
    """``text`` as an error message quotes it: repr'd, cut to ``limit`` characters."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


def _positive(text: str) -> int:
    """A whole number from 1 to ``MAX_NUMBER``."""
    try:
        value = int(text)
    except ValueError:  # also more digits than int() reads
        raise argparse.ArgumentTypeError("expected a whole number, got %s" % _shown(text)) from None
    if value < 1:
        raise argparse.ArgumentTypeError("expected a number of at least 1, got %d" % value)
    if value > MAX_NUMBER:
        raise argparse.ArgumentTypeError("expected a number of at most %d, got %s" % (MAX_NUMBER, _shown(text)))
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


def _parent() -> argparse.ArgumentParser:
    return argparse.ArgumentParser(add_help=False)


def jobs_options() -> argparse.ArgumentParser:
    """``-j/--jobs``: how many worker processes."""
    p = _parent()
    p.add_argument("-j", "--jobs", type=_jobs, default=None, help=JOBS_HELP)
    return p


def rule_options() -> argparse.ArgumentParser:
    """``--test-rule`` and ``--long``: the rules a scan's tables are classified with."""
    from punstats.store.rules import DEFAULT_LONG_THRESHOLD
    p = _parent()
    p.add_argument("--test-rule", default="components",
                   help="components (default), substring, none, or regex:PATTERN")
    p.add_argument("--long", type=_positive, default=DEFAULT_LONG_THRESHOLD, metavar="N",
                   help="identifiers of at least N characters are long (default: %(default)s)")
    return p


def quiet_options() -> argparse.ArgumentParser:
    """``-q/--quiet``: no progress bar."""
    p = _parent()
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    return p


def json_options(help: str = "print the result as JSON") -> argparse.ArgumentParser:
    """``--json``, with what the command prints as JSON."""
    p = _parent()
    p.add_argument("--json", action="store_true", help=help)
    return p


def engine_options() -> argparse.ArgumentParser:
    """``--no-cache``, ``--engine`` and ``--scheduler``: where and whether files are extracted."""
    p = _parent()
    p.add_argument("--no-cache", action="store_true",
                   help="extract every file again: neither read nor write the cache (punstats cache)")
    p.add_argument("--engine", choices=("local", "dask"), default="local",
                   help="where files are extracted: local (a process pool, the default) or dask")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="with --engine dask: a running scheduler, e.g. tcp://host:8786 "
                        "(default: start a local cluster of -j workers)")
    return p


def pattern_options() -> argparse.ArgumentParser:
    """``--pattern``: user patterns to count too (repeatable)."""
    p = _parent()
    p.add_argument("--pattern", action="append", default=[], metavar="FILE.py|MODULE:NAME|MODULE|PLUGIN",
                   help="also count this pattern (a function decorated with @punstats.pattern): a file, a "
                        "module's function, every pattern of a module, or an installed plugin; repeatable")
    return p


def load_patterns(args: argparse.Namespace) -> Tuple[Any, ...]:
    """The patterns ``--pattern`` names, loaded before any work; a usage error (one line) for
    one that cannot be (no such file, a syntax error, no pattern defined, a name used twice)."""
    if not getattr(args, "pattern", None):
        return ()
    if getattr(args, "engine", "local") == "dask":
        from punstats.runs.options import DASK_PATTERNS
        raise UsageError(DASK_PATTERNS)
    from punstats.extract.plugins import load
    from punstats.model.kinds import PatternError
    try:
        return load(args.pattern)
    except PatternError as exc:
        raise UsageError(_one_line(exc)) from None


def _check_engine_options(args: argparse.Namespace) -> None:
    from punstats.engines.base import EngineError, check_engine
    try:
        check_engine(args.engine)
    except EngineError as exc:
        raise UsageError(str(exc)) from None
    if args.scheduler is not None and args.engine != "dask":
        raise UsageError("--scheduler needs --engine dask")


def _one_line(exc: BaseException) -> str:
    """``exc`` in one line; a failed system call as the system words it (``File too large: PATH``),
    not as pyarrow does (``[Errno 27] Error writing bytes to file. Detail: [errno 27] File too large``)."""
    if isinstance(exc, OSError) and exc.errno and exc.errno > 0:
        where = exc.filename if isinstance(exc.filename, str) else ""
        return os.strerror(exc.errno) + (": " + (where if len(where) <= 200 else where[:200] + "...") if where else "")
    return " ".join(str(exc).split()) or type(exc).__name__


def _write_text(text: str, output: Optional[str]) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    from punstats.store.staging import write_atomic
    try:
        write_atomic(output, text.encode("utf-8"))
    except OSError as exc:
        raise UsageError("cannot write %s: %s" % (output, _one_line(exc))) from None


def _cache(args: argparse.Namespace) -> Any:
    if args.no_cache:
        return None
    from punstats.cache import BlobCache
    return BlobCache()

