"""Stored scans, ecosystem runs and histories side by side: ``table``, ``plot`` and ``report`` of
several inputs (``present.sides``).

Each directory is read as what it is (a run: ``run.json`` and its journal; a
history: ``history.json``; else a stored scan) and reduced to an
``analysis.sides.Side`` about one kind (``--kind``, by default the one pattern
every input counts, else ``f(x=x)``); a kind an input did not count, or counts
against another unit, is a one-line error.
"""
from __future__ import annotations

import argparse
import os
import shlex
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, Tuple

from punstats.cli.bootstrap import bootstrap
from punstats.cli.common import UsageError
from punstats.model.errors import OptionError
from punstats.model.kinds import Kind, Registry

if TYPE_CHECKING:  # pandas and numpy are imported where a comparison is made, not by --help
    from punstats.analysis.sides import Side
    from punstats.present.sides import Input

#: The sorts of input (``analysis.sides``), named here so that --help imports no pandas.
SCAN, RUN, HISTORY = "scan", "run", "history"

#: ``--by compare``: the inputs side by side (``present.sides``).
COMPARE = "compare"


def comparing(args: argparse.Namespace) -> bool:
    """Whether the inputs are shown side by side (``present.sides``): asked for with ``--by compare``,
    or several inputs of which one is a run or a history, or a history alone."""
    from punstats.runs.history import is_history
    from punstats.store.ecosystem import is_run

    if getattr(args, "by", None) == COMPARE:
        return True
    if any(is_history(directory) for directory in args.dirs):
        return True
    return len(args.dirs) > 1 and any(is_run(directory) for directory in args.dirs)


def compared(args: argparse.Namespace) -> Any:
    """The comparison of ``args.dirs`` (``analysis.sides.Comparison``) and the inputs read."""
    from punstats.analysis.sides import compare

    try:
        _, inputs = load(args.dirs, args.kind, args.test_rule, args.long)
    except OptionError as exc:
        raise UsageError(str(exc)) from None
    return compare([found.side for found in inputs], bootstrap(args)), inputs


def table_of_comparison(args: argparse.Namespace) -> str:
    """The inputs side by side as ``--format`` asks (CSV: tidy, ``present.sides.comparison_frame``)."""
    from punstats.present import sides
    from punstats.present.formats import render_all

    for given, option in ((args.rows is not None, "--rows"), (args.top_given, "-n")):
        if given:
            raise UsageError("%s chooses rows of one input's tables; the comparison has its own rows: drop %s"
                             % (option, option))
    comparison, inputs = compared(args)
    if args.format == "csv":
        from punstats.present import tidy
        return tidy.to_csv(sides.comparison_frame(comparison, inputs))
    return render_all([sides.comparison_table(comparison)], args.format, links=args.links)


def plot_of_comparison(args: argparse.Namespace) -> List[str]:
    """Draw the inputs' figure (``present.sides_figure``) into ``-o`` (default ``reports/figures``); the paths."""
    from punstats.present import plots
    from punstats.present.sides_figure import comparison_plot
    return plots.save(comparison_plot(compared(args)[0]), args.output or plots.DEFAULT_DIRECTORY, args.format)


def report_of_comparison(args: argparse.Namespace) -> str:
    """Write the report of the inputs side by side (default ``reports/<A>+<B>.md``); its path."""
    from punstats.present import sides
    from punstats.present.ecosystem_report import figure_address, write_text
    from punstats.present.provenance import subject_of
    from punstats.store.staging import check_writable

    if args.top is not None:
        raise UsageError("--top lists the first N projects of one ecosystem run; a comparison lists none: drop it")
    comparison, inputs = compared(args)
    path = args.output or os.path.join("reports", subject_of([c.side.name for c in comparison.sides]) + ".md")
    check_writable(path)
    figures = []
    if not args.no_figures:
        from punstats.present.sides_figure import CAPTION, comparison_plot
        figures.append((figure_address(comparison_plot(comparison), path, args.figures_dir, args.embed), CAPTION))
    return write_text(path, sides.render_report(comparison, inputs, figures, args.links, args.output or ""))


#: The occurrence columns a comparison reads of a scan (its files table is read whole: a kind's unit
#: may be any of its columns).
COMPARED: Dict[str, Sequence[str]] = {"occurrences": ("path", "kind", "in_test")}


def _read(directory: str, test_rule: Optional[str], long_threshold: Optional[int]) -> Tuple[str, str, Any]:
    """(sort, directory, what was read): a ``StoredRun``, a history's (table, about), a ``ScanResult``."""
    from punstats.runs import scan
    from punstats.runs.history import is_history, read_history
    from punstats.store.ecosystem import is_run, read_run

    if is_run(directory) or is_history(directory):
        if test_rule is not None or long_threshold is not None:
            raise OptionError("%s is %s: it keeps the rules it was made with (--test-rule and --long "
                              "re-classify a stored scan)" % (directory, "an ecosystem run" if is_run(directory)
                                                              else "a history"))
        return (RUN, directory, read_run(directory)) if is_run(directory) else \
            (HISTORY, directory, read_history(directory))
    result = scan.load(directory, columns=COMPARED)
    if test_rule is not None or long_threshold is not None:
        result = result.with_rules(test_rule, long_threshold)
    return SCAN, directory, result


def load(directories: Sequence[str], asked: Optional[str] = None, test_rule: Optional[str] = None,
         long_threshold: Optional[int] = None) -> Tuple[Kind, List["Input"]]:
    """The kind compared (``analysis.asked.subject`` over the inputs' rows) and each directory read
    as an ``Input``; a kind some input does not count, or counts against another unit, is a
    one-line ``OptionError``."""
    from punstats.analysis.asked import subject
    from punstats.present.sides import Input

    loaded = [_read(directory, test_rule, long_threshold) for directory in directories]
    registries = _registries(loaded)
    kind = subject(_choices(registries, asked), asked)
    inputs = []
    for (sort, directory, value), name, registry in zip(loaded, _names(loaded), registries):
        side = _side(sort, value, _own_kind(registry, kind, name), name)
        if side.kind.per != kind.per:
            raise OptionError("%s counts %s per %s, the others per %s: they cannot be compared"
                              % (directory, kind.name, side.kind.per, kind.per))
        inputs.append(Input(directory, side, tuple(_commands(sort, value, directory)),
                            tuple(_measured(sort, value, side)), _columns(sort, value)))
    return kind, inputs


def _registries(loaded: Sequence[Tuple[str, str, Any]]) -> List[Registry]:
    """Each input's registry: the kinds it counted."""
    from punstats.patterns.built_in import registry_of
    found = []
    for sort, _, value in loaded:
        if sort == RUN:
            found.append(value.registry)
        elif sort == SCAN:
            found.append(registry_of(value.summary))
        else:
            found.append(registry_of({"patterns": (value[1].get("rules") or {}).get("patterns")}))
    return found


def _choices(registries: Sequence[Registry], asked: Optional[str]) -> Registry:
    """The rows a comparison may be about: any input's (so that a kind only some count is named in
    the error), but by default only those every input counts."""
    rows: Dict[str, Kind] = {}
    for registry in registries:
        for kind in registry:
            rows.setdefault(kind.name, kind)
    if asked is None:
        rows = {name: kind for name, kind in rows.items() if all(name in registry for registry in registries)}
    return Registry(list(rows.values()))


def _own_kind(registry: Registry, kind: Kind, what: str) -> Kind:
    if kind.name not in registry:
        raise OptionError("%s did not count %s: compare it on a kind every input counts, with --kind"
                          % (what, kind.name))
    return registry[kind.name]


def _side(sort: str, value: Any, kind: Kind, name: str) -> "Side":
    """An input read (``_read``) as a side about its own row ``kind``."""
    from punstats.analysis.sides import history_side, run_side, scan_side
    from punstats.present.ecosystem import run_provenance
    from punstats.present.provenance import history_note, provenance

    if sort == RUN:
        return run_side(value, kind, name, run_provenance(value.ecosystem))
    if sort == HISTORY:
        table, about = value
        last = table.iloc[-1]
        words = "%s: %s at %s (%s), the newest revision of its history (%d in all). %s" % (
            name, about.get("repo", "?"), str(last["commit"])[:12], str(last.get("date", ""))[:10], len(table),
            history_note(about))
        return history_side(table, kind, name, words, _history_columns(kind))
    return scan_side(value, kind, name, provenance(value.summary, name))


def _names(loaded: Sequence[Tuple[str, str, Any]]) -> List[str]:
    """What each input's column is called: a run's name, a scan's corpus, ``<repo> history``; made unique."""
    names, seen = [], {}  # type: List[str], Dict[str, int]
    for sort, directory, value in loaded:
        if sort == RUN:
            name = value.name
        elif sort == SCAN:
            name = str(value.summary["corpus"])
        else:
            name = "%s history" % os.path.basename(str(value[1].get("repo") or directory).rstrip("/"))
        seen[name] = seen.get(name, 0) + 1
        names.append(name if seen[name] == 1 else "%s (%d)" % (name, seen[name]))
    return names


def _commands(sort: str, value: Any, directory: str) -> List[str]:
    """The shell lines that make an input again, from a public clone (a history: its command)."""
    from punstats.present.commands import scan_command
    from punstats.present.ecosystem_report import reproduce_commands
    from punstats.present.report import portable

    if sort == RUN:
        return reproduce_commands(value)[:1]
    if sort == SCAN:
        command, comment = scan_command(value.summary, portable(directory) or os.path.join("data", "scan"))
        return [comment, shlex.join(command)]
    about = value[1]
    return ["# the history of %s (see history.json of the stored history for its options)" % about.get("repo", "?")]


def _history_columns(kind: Kind) -> Tuple[str, ...]:
    """A history's columns of ``kind``: its counts in all code and outside tests, then its measures."""
    from punstats.runs.history import pattern_columns
    counted, measured = pattern_columns(kind)
    return (*counted, *measured)


def _measured(sort: str, value: Any, side: "Side") -> List[str]:
    """What the report says an input measured: a run's projects, what was not scanned and its rules;
    a scan's or a history's provenance."""
    if sort != RUN:
        return ["- %s" % side.provenance]
    from punstats.present.ecosystem_report import measured_lines
    return ["- **%s**" % side.name] + ["  %s" % line for line in measured_lines(value)]


def _columns(sort: str, value: Any) -> Dict[str, Any]:
    """What an input measured as the tidy columns every CSV gives (``present.tidy.PROVENANCE_COLUMNS``):
    a scan's own; a run's list, parser and rules; a history's repository, newest commit, parser and rules."""
    from punstats.present.provenance import rule_columns
    from punstats.present.tidy import provenance_columns

    if sort == SCAN:
        return provenance_columns(value.summary)
    if sort == RUN:
        about, source, revision, date = value.ecosystem, str(value.ecosystem["list"]["list"]), "", ""
        python = "%s %s" % (about.get("python_implementation", "Python"), about.get("python", ""))
    else:
        table, about = value
        source, revision, date = str(about.get("repo", "")), str(table["commit"].iloc[-1]), str(table["date"].iloc[-1])
        python = str(about.get("python", ""))
    rules = about.get("rules") or {}
    return {"source": source, "revision": revision, "commit_date": date, "python": python,
            "punstats_version": about.get("punstats_version", ""), "test_rule": rules.get("test_rule", ""),
            "long_threshold": rules.get("long_threshold", ""), **rule_columns(rules, rules.get("patterns") or ())}
