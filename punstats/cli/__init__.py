"""The ``punstats`` command: argument parsing and printing only.

Every command calls the Python API; nothing here computes a statistic.
Exit status: 0 when the command ran (files that fail to parse are data),
2 for a ``PunstatsError`` (``model.errors``: a usage error, a corpus, an
engine, a place to store that cannot be used), caught here once and reported
in one line without a traceback, and for a fault of the machine (a full
disk, a limit); 130 after Ctrl-C and 143 after a SIGTERM, each once the
command's clean-up has run; anything else is a bug and keeps its traceback.

Each command group is a module of ``punstats.cli`` that builds its commands'
parsers (shared options as parent parsers from ``common``) and runs them.
``COMMANDS`` lists them with their one-line help, so that ``punstats --help``
and ``--version`` import no group, and a command imports only its own
(``tests/test_cli_options.py`` holds the one-line help equal to the group's).
"""
from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys
from typing import Dict, Optional, Sequence, Tuple

from punstats import __version__
from punstats.cli.common import USAGE_ERROR, Parser, UsageError, error_line
from punstats.model.errors import PunstatsError
from punstats.model.escape import terminal
from punstats.model.processes import Terminated, terminated_raises

#: The exit status after a SIGTERM, as a shell reports a process it ended (128 + 15).
TERMINATED = 143

#: command -> (module of punstats.cli, its function that adds the group's parsers, one-line help),
#: in the order ``punstats --help`` lists them
COMMANDS: Dict[str, Tuple[str, str, str]] = {
    "scan": ("scan", "_add_scan_command", "scan code bases and store the results"),
    "cache": ("cache", "_add_cache_command", "show the cache's location and size, or clear it"),
    "history": ("history", "_add_history_command", "scan many revisions of a git repository: the trend"),
    "table": ("evidence", "_add_evidence_commands", "tables of stored scans (reST, Markdown, CSV, LaTeX)"),
    "plot": ("evidence", "_add_evidence_commands", "figures of stored scans (PNG and SVG)"),
    "report": ("evidence", "_add_evidence_commands", "a Markdown report of stored scans, sized for one forum post"),
    "label": ("label", "_add_label_command",
              "write the occurrences of one kind with their source, to label by hand (CSV and Markdown)"),
    "hits": ("hits", "_add_hits_command",
             "print the hits of one kind as path:line:col: lines (or JSON lines), to jump to each"),
    "reproduce": ("reproduce", "_add_reproduce_commands", "reproduce published figures and explain differences"),
    "corpus": ("corpus", "_add_corpus_commands",
               "scan every project of a corpus file (TOML), or top-pypi:N"),
    "rewrite": ("rewrite", "_add_rewrite_commands",
                "rewrite f(x=x) as f(x=) (PEP 736); prints a summary, a diff, or writes"),
    "expand": ("rewrite", "_add_rewrite_commands",
               "rewrite f(x=) back to f(x=x), so punned code runs on today's Python"),
}


class _Commands(argparse._SubParsersAction):
    """The subcommands: a placeholder each, replaced by the group's parsers when one is chosen."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._placeholders = {name: super(_Commands, self).add_parser(name, help=help)
                              for name, (_, _, help) in COMMANDS.items()}
        self.group_help: Dict[str, Optional[str]] = {}  # the help each group gave its commands

    def add_parser(self, name: str, **kwargs) -> argparse.ArgumentParser:
        if name in self._placeholders:  # a group adds a listed command: its line in --help is there
            self.group_help[name] = kwargs.pop("help", None)
            del self._name_parser_map[name], self._placeholders[name]
        return super().add_parser(name, **kwargs)

    def parser_of(self, name: str) -> argparse.ArgumentParser:
        """The parser of command ``name``, its group's parsers built first."""
        if name in self._placeholders:
            module, function, _ = COMMANDS[name]
            getattr(importlib.import_module("punstats.cli." + module), function)(self)
        return self._name_parser_map[name]

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        if values and values[0] in COMMANDS:
            self.parser_of(values[0])
        super().__call__(parser, namespace, values, option_string)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="punstats", description="Count keyword arguments of the form f(x=x).")
    parser.add_argument("--version", action="version", version="punstats " + __version__)
    parser.add_subparsers(dest="command", required=True, parser_class=Parser, action=_Commands)
    return parser


#: errno of what the machine refused (a limit reached, a device full or failing): not a bug of
#: punstats, so one line, as ``strerror: file``, after what ``ulimit`` sets it when one does
MACHINE_FAULTS = {errno.EMFILE: " (ulimit -n)", errno.ENFILE: "", errno.ENOMEM: "", errno.EFBIG: " (ulimit -f)",
                  errno.ENOSPC: "", errno.EDQUOT: "", errno.EIO: "", errno.EROFS: ""}


def _machine_fault(exc: BaseException) -> Optional[str]:
    """The one line of a fault of the machine (out of memory, a limit, a full device), or None."""
    if isinstance(exc, MemoryError):
        return "out of memory (ulimit -v, or the machine's memory)"
    if isinstance(exc, ImportError) and "failed to map segment" in str(exc):  # dlopen under ulimit -v
        return "out of memory while loading %s (ulimit -v, or the machine's memory)" % (exc.name or "a library")
    if isinstance(exc, OSError) and exc.errno in MACHINE_FAULTS:
        where = exc.filename if isinstance(exc.filename, str) else None
        return "%s%s%s" % (os.strerror(exc.errno), MACHINE_FAULTS[exc.errno],
                           ": %s" % (where if len(where) <= 200 else where[:200] + "...") if where else "")
    return None


def main(argv: Optional[Sequence[str]] = None) -> int:
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # no linear algebra here: no buffers for every core,
    # which fail to allocate under ulimit -v and end the process without an exception
    parser = build_parser()
    try:
        with terminated_raises():  # kill, timeout: the clean-up of an interrupted command runs
            args = parser.parse_args(argv)
            status = args.handler(args)
            sys.stdout.flush()  # a full device fails here, not at exit after the traceback machinery
        return status
    except PunstatsError as exc:  # the user's to fix: an argument, a corpus, an engine, a place, a pattern
        print("punstats: error: %s" % terminal(_message(exc)), file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        _end_children()
        print("punstats: interrupted", file=sys.stderr)
        return 130
    except Terminated:
        _end_children()
        print("punstats: terminated", file=sys.stderr)
        return TERMINATED
    except BrokenPipeError:  # e.g. `punstats scan | head`: the reader left, nothing to report
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        if exc.errno not in (errno.ENOSPC, errno.EIO, errno.EDQUOT) or exc.filename is not None:
            return _fault(exc)  # stored files say so themselves
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # nothing more goes there
        print("punstats: error: cannot write the output: %s" % terminal(exc.strerror or exc), file=sys.stderr)
        return USAGE_ERROR
    except (MemoryError, ImportError) as exc:
        return _fault(exc)


def _end_children() -> None:
    """Kill the child processes an interrupted command left running: stopped while it started
    or closed a pool, a worker may still wait for work, and at exit ``multiprocessing`` waits
    for every child process it started, forever for that one."""
    import multiprocessing
    for child in multiprocessing.active_children():
        child.kill()


def _message(exc: PunstatsError) -> str:
    """The one line a ``PunstatsError`` is reported as (a usage error's message as it is worded)."""
    return str(exc) if isinstance(exc, UsageError) else error_line(exc)


def _fault(exc: BaseException) -> int:
    """Exit status 2 after one line for a fault of the machine; anything else is a bug, raised."""
    line = _machine_fault(exc)
    if line is None:
        raise exc
    print("punstats: error: %s" % line, file=sys.stderr)
    return USAGE_ERROR


if __name__ == "__main__":
    sys.exit(main())

