"""What the commands share: the usage error, the parser class, argument types, the
options several commands take, as argparse parent parsers (``parents=[jobs_options()]``),
and the one ``ScanOptions`` value a command makes of them (``scan_options``).
"""
from __future__ import annotations

import argparse
import difflib
import os
import sys
from typing import Any, Dict, Iterable, List, NoReturn, Optional, Sequence, Tuple

from punstats.model.errors import PunstatsError, one_line
from punstats.model.escape import terminal
from punstats.model.limits import DEFAULT_PATTERN_MEMORY, DEFAULT_PATTERN_TIMEOUT
from punstats.store.places import DEFAULT_ROOT  # noqa: F401 (the commands' default place, from here)


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

    def print(self, line: str, file: Any = None) -> None:
        """``line`` (escaped for a terminal) on standard output (or ``file``), above the bar when
        there is one."""
        line, file = terminal(line), file or sys.stdout
        if self._bar is not None:
            self._bar.write(line, file=file)
        else:
            print(line, file=file, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def progress_bar(quiet: bool, label: str, unit: str = "file") -> Progress:
    return Progress(quiet, label, unit)


USAGE_ERROR = 2


class UsageError(PunstatsError):
    """Reported as one line, exit status 2."""


def did_you_mean(word: str, candidates: Iterable[str]) -> str:
    """`` (did you mean X?)`` for the candidate closest to a mistyped ``word`` (difflib), or ""."""
    close = difflib.get_close_matches(word, list(candidates), n=5, cutoff=0.6)
    if not close:
        return ""
    # two letters swapped (lable) rank as close as a letter changed (table) by difflib's ratio: the
    # candidate with the word's own letters wins, then difflib's order
    best = max(close, key=lambda candidate: (sorted(candidate) == sorted(word), -close.index(candidate)))
    return " (did you mean %s?)" % best


class Parser(argparse.ArgumentParser):
    """One line for every usage error, with a suggestion for a mistyped command, choice or option
    (Python 3.11's argparse has no ``suggest_on_error``)."""

    def error(self, message: str) -> NoReturn:  # one line, no usage dump
        raise UsageError(message)

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        try:
            super()._check_value(action, value)
        except argparse.ArgumentError as exc:  # an invalid choice, or a command (a subparser's choice)
            hint = did_you_mean(str(value), [str(choice) for choice in action.choices or ()])
            raise argparse.ArgumentError(action, exc.message + hint) from None

    def parse_known_args(self, args: Optional[Sequence[str]] = None,  # type: ignore[override]
                         namespace: Any = None) -> Tuple[Any, List[str]]:
        namespace, extras = super().parse_known_args(args, namespace)
        # the command's own parser (a leaf) knows its options; the top parser sees only its own
        leaf = not any(isinstance(action, argparse._SubParsersAction) for action in self._actions)
        options = [option for action in self._actions for option in action.option_strings if len(option) > 2]
        for extra in extras if leaf else ():
            hint = did_you_mean(extra.partition("=")[0], options) if extra.startswith("-") else ""
            if hint:
                self.error("unrecognized arguments: %s%s" % (" ".join(extras), hint))
        return namespace, extras


class TableHelp(argparse.HelpFormatter):
    """``--help`` with a text of several lines (a table in the epilog) kept as written;
    a one-paragraph description is wrapped as usual."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if "\n" in text:
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


#: The largest number any option takes: counts, bytes and megabytes beyond it mean nothing here,
#: and every number stays well inside the 64-bit integers of the stored tables.
MAX_NUMBER = 10 ** 12


def _shown(text: str, limit: int = 40) -> str:
    """``text`` as an error message quotes it: repr'd, cut to ``limit`` characters."""
    return repr(text) if len(text) <= limit else repr(text[:limit]) + "..."


def whole(text: str) -> int:
    """A whole number (any sign), or the one-line error of an option's value."""
    try:
        return int(text)
    except ValueError:  # also more digits than int() reads
        raise argparse.ArgumentTypeError("expected a whole number, got %s" % _shown(text)) from None


def positive(text: str) -> int:
    """A whole number from 1 to ``MAX_NUMBER``."""
    value = whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError("expected a number of at least 1, got %d" % value)
    if value > MAX_NUMBER:
        raise argparse.ArgumentTypeError("expected a number of at most %d, got %s" % (MAX_NUMBER, _shown(text)))
    return value


def from_zero(most: int, unit: str) -> Any:
    """An option's type (a function of its text): a whole number from 0 to ``most``; ``unit`` names
    what it counts in its error."""
    def parse(text: str) -> int:
        value = whole(text)
        if not 0 <= value <= most:
            raise argparse.ArgumentTypeError("expected 0 to %d %s, got %d" % (most, unit, value))
        return value
    return parse


def _jobs(text: str) -> int:
    """``-j``: a positive number of worker processes, at most ``MAX_JOBS``."""
    from punstats.engines.base import MAX_JOBS
    value = positive(text)
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
    p.add_argument("--long", type=positive, default=DEFAULT_LONG_THRESHOLD, metavar="N",
                   help="identifiers of at least N characters are long (default: %(default)s)")
    return p


def size_options() -> argparse.ArgumentParser:
    """``--max-bytes``: the largest file parsed (``ast`` needs about 60 bytes of memory a byte)."""
    from punstats.model.limits import DEFAULT_MAX_BYTES
    p = _parent()
    p.add_argument("--max-bytes", type=positive, default=DEFAULT_MAX_BYTES,
                   help="larger files are recorded as too_large, unparsed (default: %(default)s; parsing "
                        "a file takes about 60 times its size in memory)")
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
    from punstats.engines import registry
    p.add_argument("--engine", type=_engine, default="local", help=registry.help_text(),
                   metavar="|".join(engine.usage for engine in registry.ENGINES))
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="with --engine dask: a running scheduler, e.g. tcp://host:8786 "
                        "(default: start a local cluster of -j workers)")
    return p


def extension_options() -> argparse.ArgumentParser:
    """``--extensions``: the file endings scanned (``.ipynb``: notebooks' code cells)."""
    from punstats.discover.tree import DEFAULT_EXTENSIONS
    p = _parent()
    p.add_argument("--extensions", type=_extensions, default=list(DEFAULT_EXTENSIONS),
                   help="file endings to scan, comma-separated (default: .py; e.g. .py,.pyw,.pyi; "
                        ".ipynb: the code cells of Jupyter notebooks)")
    return p


def pattern_options() -> argparse.ArgumentParser:
    """``--pattern``: user patterns to count too (repeatable)."""
    p = _parent()
    p.add_argument("--pattern", action="append", default=[], metavar="FILE.py|MODULE:NAME|MODULE|PLUGIN",
                   help="also count this pattern (a function decorated with @punstats.pattern): a file, a "
                        "module's function, every pattern of a module, or an installed plugin; repeatable")
    p.add_argument("--pattern-timeout", type=_seconds, default=DEFAULT_PATTERN_TIMEOUT, metavar="SECONDS",
                   help="a file on which the patterns take longer is recorded as pattern_timeout (default: %g; "
                        "0: no limit)" % DEFAULT_PATTERN_TIMEOUT)
    p.add_argument("--pattern-memory", type=_megabytes, default=DEFAULT_PATTERN_MEMORY, metavar="MB",
                   help="a worker matching patterns may take this many megabytes more than when it started; "
                        "past it the file is recorded as pattern_error, MemoryError (default: %g; 0: no limit; "
                        "Linux only)" % DEFAULT_PATTERN_MEMORY)
    return p


def _seconds(text: str) -> float:
    """A number of seconds, from 0 up to a million (written as digits, with a decimal point or not)."""
    import re
    if not re.fullmatch(r"\s*(\d{1,6}(\.\d*)?|\.\d+)\s*", text) or not float(text) < 1e6:
        raise argparse.ArgumentTypeError("%r is not a number of seconds" % text[:40])
    return float(text)


def _megabytes(text: str) -> float:
    """A number of megabytes, from 0 up to a million (as ``_seconds`` reads a number)."""
    try:
        return _seconds(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError("%r is not a number of megabytes" % text[:40]) from None


def _engine(text: str) -> str:
    """``--engine NAME[:ARGUMENT]``: a row of ``engines.registry`` (an unknown one lists them)."""
    from punstats.engines.base import EngineError
    from punstats.engines.registry import split
    try:
        split(text)
    except EngineError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def check_engine_options(args: argparse.Namespace) -> None:
    from punstats.engines.registry import check_engine
    check_engine(args.engine)  # an EngineError is the user's to fix (cli.main)
    if args.scheduler is not None and args.engine.partition(":")[0] != "dask":
        raise UsageError("--scheduler needs --engine dask")


def pattern_errors_said(summaries: Sequence[Tuple[str, Dict[str, Any]]]) -> int:
    """The exit status of a run given its scans' (name, summary): 1 when a pattern raised on any file,
    after a line on stderr per such scan (where it first raised, why, how many files failed so), else 0.
    The files are stored with status ``pattern_error``: none of their counts is in the results."""
    status = 0
    for name, summary in summaries:
        reasons = summary.get("failed_by_reason") or {}
        statuses = [status for status in ("pattern_error", "pattern_timeout") if reasons.get(status)]
        if not statuses:
            continue
        first = summary.get("first_pattern_error") or {}
        where = "%s:%s: " % (first["path"], first["line"] or 1) if first.get("path") else ""
        print(terminal("punstats: error: %s: %s%s (%s of %s files failed so: status %s, not counted; "
                       "fix the pattern and scan again)"
                       % (name, where, first.get("error", "a pattern took longer than --pattern-timeout"),
                          format(sum(reasons[s] for s in statuses), ","), format(summary["files"], ","),
                          " or ".join(statuses))), file=sys.stderr)
        status = 1
    return status


def default_place_said(output: Optional[str], place: str) -> None:
    """Without ``-o`` (``output`` None), a note on standard error that the result went to
    ``place`` under the current directory, which it names, and how to choose another: a
    command run from any directory creates ``./data/`` there, and says so."""
    if output is None:
        print(terminal("punstats: note: stored in %s under the current directory, %s (the default place; "
                       "-o DIR stores elsewhere)" % (place, os.getcwd())), file=sys.stderr)


def error_line(exc: BaseException) -> str:
    """``exc`` in one line; a failed system call as the system words it (``File too large: PATH``),
    not as pyarrow does (``[Errno 27] Error writing bytes to file. Detail: [errno 27] File too large``)."""
    if isinstance(exc, OSError) and exc.errno and exc.errno > 0:
        where = exc.filename if isinstance(exc.filename, str) else ""
        return os.strerror(exc.errno) + (": " + (where if len(where) <= 200 else where[:200] + "...") if where else "")
    return one_line(exc)


def write_output(text: str, output: Optional[str]) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    from punstats.store.staging import write_atomic
    try:
        write_atomic(output, text.encode("utf-8"))
    except OSError as exc:
        raise UsageError("cannot write %s: %s" % (output, error_line(exc))) from None


def cache_of(args: argparse.Namespace) -> Any:
    if args.no_cache:
        return None
    from punstats.cache import BlobCache
    return BlobCache()



#: ``ScanOptions`` field -> the argument that gives it, for the options a command has
_SCAN_ARGUMENTS = {"jobs": "jobs", "long_threshold": "long", "engine": "engine", "scheduler": "scheduler",
                   "python": "python", "extensions": "extensions", "follow_links": "follow_links",
                   "max_bytes": "max_bytes", "lines_saved": "lines_saved", "pattern_timeout": "pattern_timeout",
                   "pattern_memory": "pattern_memory"}


def scan_options(args: argparse.Namespace, **settings: Any) -> Any:
    """The ``runs.options.ScanOptions`` of a command's arguments (those it has), then ``settings``:
    the one value ``scan``, ``corpus`` and ``history`` pass on."""
    from punstats.runs.options import ScanOptions
    from punstats.store.rules import parse_test_rule
    values = {field: getattr(args, name) for field, name in _SCAN_ARGUMENTS.items() if hasattr(args, name)}
    if hasattr(args, "no_exclude"):
        values["exclude_dirs"] = not args.no_exclude
    if hasattr(args, "no_ignore"):
        values["gitignore"] = not args.no_ignore
    if hasattr(args, "exclude"):
        values["exclude"] = tuple(args.exclude)
    if getattr(args, "pattern", None):
        values["patterns"] = tuple(args.pattern)  # loaded by ScanOptions.of: a PatternError is cli.main's
    if hasattr(args, "test_rule") and "test_rule" not in settings:
        values["test_rule"] = parse_test_rule(args.test_rule)
    values.update(settings)
    return ScanOptions.of(**values)


class Given(argparse.Action):
    """An option's value, and ``<dest>_given`` True: whether it was given, not only its default."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: Optional[str] = None) -> None:
        setattr(namespace, self.dest, values)
        setattr(namespace, self.dest + "_given", True)
