"""``punstats table``, ``plot`` and ``report``: evidence from stored scans and ecosystem runs.

A directory holding an ecosystem run (``corpus top-pypi:N -o DIR``: its
``run.json`` and journal, ``store.ecosystem``) is shown by
``present.ecosystem`` (its projects and patterns), ``present.ecosystem_figure``
and ``present.ecosystem_report``; one holding a run over years, by ``cli.years``; any other
directory must be a stored scan.
"""
from __future__ import annotations

import argparse
from typing import Any, List, Optional, Sequence

from punstats.cli import compare
from punstats.cli.bootstrap import add_bootstrap_options, bootstrap
from punstats.cli.common import Given, UsageError, error_line, positive, write_output
from punstats.model.errors import OptionError
from punstats.model.escape import terminal
from punstats.model.intervals import Bootstrap


def _add_evidence_commands(commands: Any) -> None:
    """``table``, ``plot`` and ``report``, which present stored scans."""
    from punstats.present import tables

    def stored_scans(p: argparse.ArgumentParser, several: bool = True) -> None:
        p.add_argument("dirs", nargs="+" if several else 1, metavar="DIR",
                       help="a stored scan (punstats scan -o), an ecosystem run (punstats corpus top-pypi:N) "
                            "or a stored history (punstats history); several of any sort are compared side "
                            "by side, with a difference column, when one of them is a run or a history "
                            "(scans alone: --by compare)")
        p.add_argument("--test-rule", metavar="RULE", default=None,
                       help="re-classify test code first: components, substring, none or regex:PATTERN "
                            "(default: the rule the scan used)")
        p.add_argument("--long", type=positive, default=None, metavar="N",
                       help="re-apply the long threshold (default: the scan's)")
        add_bootstrap_options(p)

    p = commands.add_parser("table", help="tables of stored scans (reST, Markdown, CSV, LaTeX)",
                            description="Print tables of stored scans: by default the PEP 736 style "
                                        "summary, one column per scan, as a reST simple table.")
    stored_scans(p)
    p.add_argument("--format", choices=tables.FORMATS, default="rst", help="default: %(default)s")
    p.add_argument("--by", choices=(*tables.BY, compare.COMPARE), default="summary",
                   help="summary (one column per scan, the default), compare (the inputs side by side with "
                        "95%% intervals and a difference column; the default when a run or a history is "
                        "among them), or per scan: identifier length, "
                        "most common identifiers or callees (these three of a run: pooled), top-level "
                        "directories, counts per label (punstats label)")
    p.add_argument("--kinds", dest="by", action="store_const", const="kinds",
                   help="shorthand for --by kinds: one row per pattern, one column per scan")
    p.add_argument("--kind", metavar="NAME", default=None,
                   help="the kind the summary table (of a run: its projects table) is about, e.g. a pattern's "
                        "name or call for f(x=x) (default: the one pattern given with --pattern, else call); "
                        "with --by label: the labels of this occurrence kind only (default: every labelled kind)")
    p.add_argument("-n", "--top", type=positive, default=tables.TOP_ROWS, metavar="N", action=Given,
                   help="rows of the identifier, callee and directory tables (default: %(default)s); of an "
                        "ecosystem run: the first N projects, then one row pooling the others "
                        "(default: every project)")
    p.set_defaults(top_given=False)
    p.add_argument("--rows", type=_keys, metavar="KEY,KEY",
                   help="the summary's rows, in this order: %s" % ", ".join(tables.ROW_KEYS))
    p.add_argument("--links", action="store_true",
                   help="Markdown: link each scan's column to its public source and write the provenance "
                        "under the table, instead of footnotes (for Discourse)")
    p.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of standard output")
    p.set_defaults(handler=_over_years("table", cmd_table))

    _add_plot_and_report(commands, stored_scans)


def _add_plot_and_report(commands: Any, stored_scans: Any) -> None:
    """``plot`` and ``report``; ``stored_scans`` adds their directories and rule options."""
    p = commands.add_parser("plot", help="figures of stored scans (PNG and SVG)",
                            description="Draw the figures of stored scans: identifier lengths, cumulative "
                                        "share, top identifiers and callees, top-level directories per scan, "
                                        "and the share of f(x=x) per scan. Needs matplotlib.")
    stored_scans(p)
    p.add_argument("-o", "--output", metavar="DIR", help="where to write them (default: reports/figures)")
    p.add_argument("--format", type=_figure_formats, default=["png", "svg"],
                   help="comma-separated: png, svg (default: png,svg)")
    p.add_argument("--kind", metavar="NAME",
                   help="also draw this kind per scan, against its unit (default: the scans' one --pattern, "
                        "when they were given one)")
    p.set_defaults(handler=_over_years("plot", cmd_plot))

    p = commands.add_parser("report", help="a Markdown report of stored scans, sized for one forum post",
                            description="Write a Markdown report of stored scans (tables, figures, "
                                        "definitions, rules) to reports/<corpus>.md (several scans: "
                                        "reports/<A>+<B>.md, compared). It fits one Discourse post; the "
                                        "figures are files in <report>-figures/ beside it.")
    stored_scans(p)
    p.add_argument("-o", "--output", metavar="FILE", help="default: reports/<corpus>.md")
    p.add_argument("--figures-dir", metavar="DIR", help="where to write the figures (default: <report>-figures)")
    p.add_argument("--embed", action="store_true",
                   help="embed the figures in the file as data: URIs (one file, far over a post's size)")
    p.add_argument("--links", action="store_true", help="link sources and write provenance as text, "
                                                        "instead of footnotes (for Discourse)")
    p.add_argument("--no-figures", action="store_true", help="tables and text only (no matplotlib needed)")
    p.add_argument("--kind", metavar="NAME", default=None,
                   help="the kind the report is about, e.g. a pattern's name, or call for f(x=x) (default: the "
                        "one pattern given with --pattern, else call)")
    p.add_argument("--top", type=positive, default=None, metavar="N",
                   help="an ecosystem run: list the first N projects, then one row pooling the others "
                        "(default: every project, or as many as fit one post; punstats table lists them all)")
    p.set_defaults(handler=_over_years("report", cmd_report))


def _over_years(command: str, otherwise: Any) -> Any:
    """``command`` of a run over years (``cli.years``, loaded when the command runs), else ``otherwise``."""
    def handle(args: argparse.Namespace) -> int:
        from punstats.cli import years
        return years.handler(command, otherwise)(args)
    return handle


def _keys(text: str) -> List[str]:
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not parts:
        raise argparse.ArgumentTypeError("expected row keys such as punnable,punnable_pct, got %r" % text)
    return parts


def _figure_formats(text: str) -> List[str]:
    parts = [part.strip().lstrip(".").lower() for part in text.split(",") if part.strip()]
    if not parts:
        raise argparse.ArgumentTypeError("expected formats such as png,svg, got %r" % text)
    return parts


def _load_scans(directories: Sequence[str], test_rule: Optional[str], long_threshold: Optional[int]) -> List[Any]:
    from punstats.present.provenance import shown
    from punstats.runs.scan import PRESENTED, ScanResult, load

    results = []
    for directory in directories:
        result = load(directory, columns=PRESENTED)  # only what tables and figures use; a StoreError: cli.main
        result = ScanResult.stored(directory, shown(result.summary), PRESENTED)  # names cut to be shown
        if test_rule is not None or long_threshold is not None:
            result = result.with_rules(test_rule, long_threshold)  # an OptionError: cli.main
        results.append(result)
    return results


def _plots_module():
    """``punstats.present.plots``, or a usage error when matplotlib is missing."""
    try:
        from punstats.present import plots
    except ImportError as exc:
        if (exc.name or "").partition(".")[0] != "matplotlib":
            raise
        raise UsageError("figures need matplotlib, which is not installed: pip install matplotlib "
                         "(or --no-figures)") from None
    return plots


def _ecosystem_run(args: argparse.Namespace) -> Any:
    """The ecosystem run ``args.dirs`` names (``store.ecosystem.StoredRun``), or None for stored scans."""
    from punstats.store.ecosystem import is_run, read_run

    runs = [directory for directory in args.dirs if is_run(directory)]
    if not runs:
        return None
    from punstats.cli.ignored import check_run_alone
    check_run_alone(args, runs[0])
    return read_run(runs[0])  # a StoreError (a run that never finished): cli.main


def _table_of_run(args: argparse.Namespace, stored: Any) -> str:
    from punstats.present import ecosystem as shown
    from punstats.present.formats import render_all

    if args.by not in ("summary", "kinds", *shown.POOLED_BY) or args.rows is not None:
        raise UsageError("an ecosystem run's tables are its projects (the default), --kinds and --by %s, "
                         "pooled over its projects (--by %s and --rows are for a stored scan: a "
                         "project's own places and labels are not pooled)" % ("|".join(shown.POOLED_BY), args.by))
    if args.kind is not None and args.by != "summary":
        raise UsageError("--kind chooses the kind of a run's projects table: drop --%s"
                         % ("kinds" if args.by == "kinds" else "by " + args.by))
    top = args.top if args.top_given else None  # a run lists every project unless told
    if args.format == "csv":  # for other tools: one tidy table, a row per project and kind, no notes
        from punstats.analysis import asked
        from punstats.present import run_tidy, tidy
        kind = asked.subject(stored.registry, args.kind) if args.kind is not None else None  # None: every kind
        return tidy.to_csv(run_tidy.frame_of(stored, args.by, args.top, kind, top, bootstrap(args)))
    if args.by in shown.POOLED_BY:
        return render_all([shown.pooled_table(stored, args.by, args.top)], args.format, links=args.links)
    if args.by == "kinds":
        return render_all([shown.kinds_table(stored.records, stored.ecosystem)], args.format, links=args.links)
    kind = _subject(stored.registry, args.kind)
    if kind is None:
        return render_all([shown.project_table(stored.records, stored.ecosystem, top, bootstrap(args))], args.format,
                          links=args.links)
    from punstats.present import subject
    return render_all([subject.project_table(stored, kind, top, bootstrap(args))], args.format, links=args.links)


def _subject(registry: Any, asked: Optional[str]) -> Any:
    """The kind a table, figure or report is about (``analysis.asked.subject``), None for ``f(x=x)``,
    shown as today; an unknown kind is a one-line ``OptionError``."""
    from punstats.analysis.asked import subject
    from punstats.model.kinds import KIND_CALL

    kind = subject(registry, asked)
    return None if kind.name == KIND_CALL else kind


def cmd_table(args: argparse.Namespace) -> int:
    from punstats.cli.ignored import check_table_options
    from punstats.present import tables
    from punstats.store.ecosystem import is_run

    check_table_options(args, any(is_run(directory) for directory in args.dirs))
    if args.by == "label":  # scans and ecosystem runs alike, alone or together
        write_output(_label_table(args), args.output)
        return 0
    if compare.comparing(args):
        write_output(compare.table_of_comparison(args), args.output)
        return 0
    stored = _ecosystem_run(args)
    if stored is not None:
        write_output(_table_of_run(args, stored), args.output)
        return 0
    if args.kind is not None and args.by not in ("summary", "label"):
        raise UsageError("--kind chooses the kind of the summary table, or with --by label the labels of one "
                         "kind: drop --%s" % ("kinds" if args.by == "kinds" else "by " + args.by))
    if args.rows is not None and args.by != "summary":
        raise UsageError("--rows chooses the rows of the summary table, not of --%s: drop one of them"
                         % ("kinds" if args.by == "kinds" else "by " + args.by))
    results = _load_scans(args.dirs, args.test_rule, args.long)
    try:
        tables.common_long_threshold([r.summary for r in results])
    except OptionError as exc:
        raise UsageError("%s with --long N" % exc) from None
    if args.by == "summary":
        kind = _scans_subject(results, args.kind, args.rows)
        if kind is not None:
            write_output(_kind_table_of_scans(results, kind, args), args.output)
            return 0
    try:
        labelled = {"directories": list(args.dirs), "label_kind": args.kind}
        if args.format == "csv":  # for other tools: one tidy table, provenance in columns
            from punstats.present import tidy
            text = tidy.to_csv(tidy.frame_of(args.by, results, args.top, rows=args.rows,
                                             method=bootstrap(args, "files"), **labelled))
        else:
            text = tables.render_all(tables.tables_of(args.by, results, args.top, rows=args.rows,
                                                      method=bootstrap(args, "files"), **labelled),
                                     args.format, links=args.links)
    except OptionError as exc:  # an unknown row
        raise UsageError(str(exc)) from None
    write_output(text, args.output)
    return 0


def _label_table(args: argparse.Namespace) -> str:
    """``table --by label`` of the scans and runs ``args.dirs`` (``present.run_labels``)."""
    from punstats.present import run_labels
    from punstats.present.formats import render_all
    from punstats.store.ecosystem import is_run

    if args.rows is not None:
        raise UsageError("--rows chooses the rows of the summary table, not of --by label: drop one of them")
    runs = [directory for directory in args.dirs if is_run(directory)]
    if runs and (args.test_rule is not None or args.long is not None):
        raise UsageError("%s is an ecosystem run: its projects keep the rules they were scanned with "
                         "(--test-rule and --long re-classify a stored scan)" % runs[0])
    scans = _load_scans([d for d in args.dirs if d not in runs], args.test_rule, args.long)
    found = run_labels.labelled(args.dirs, scans, args.kind)  # a LabelError (no labels, a foreign key): cli.main
    if args.format == "csv":
        from punstats.present import tidy
        return tidy.to_csv(run_labels.labels_frame(found))
    return render_all(run_labels.label_tables_of(found, len(args.dirs) > 1), args.format, links=args.links)


def _scans_subject(results: Sequence[Any], asked: Optional[str], rows: Optional[List[str]]) -> Any:
    """The kind stored scans' summary table is about (None: ``f(x=x)``); ``--rows`` chooses rows of
    the ``f(x=x)`` summary, so without ``--kind`` it keeps that table."""
    kind = _subject(_union(results), asked if asked is not None or rows is None else "call")
    if kind is not None and rows is not None:
        raise UsageError("--rows chooses rows of the f(x=x) summary table; the table of --kind %s has its own"
                         % kind.name)
    return kind


def _kind_table_of_scans(results: Sequence[Any], kind: Any, args: argparse.Namespace) -> str:
    from punstats.present import subject, tidy
    from punstats.present.formats import render_all

    if args.format == "csv":  # one row per scan, provenance in columns
        return tidy.to_csv(tidy.kind_frame(results, kind))
    return render_all([subject.scans_table(results, kind)], args.format, links=args.links)


def cmd_plot(args: argparse.Namespace) -> int:
    plots = _plots_module()
    unknown = [fmt for fmt in args.format if fmt not in plots.FORMATS]
    if unknown:
        raise UsageError("unknown figure format %r (choose from %s)" % (unknown[0], ", ".join(plots.FORMATS)))
    comparing = compare.comparing(args)
    stored = None if comparing else _ecosystem_run(args)
    results = [] if comparing or stored is not None else _load_scans(args.dirs, args.test_rule, args.long)
    try:
        if comparing:
            paths = compare.plot_of_comparison(args)
        elif stored is not None:
            paths = _plot_run(stored, args.kind, args.output or plots.DEFAULT_DIRECTORY, args.format, bootstrap(args))
        else:
            subject = _plot_subject(results, args.kind)  # an unknown kind: one line, before any figure
            paths = plots.write_plots(results, args.output or plots.DEFAULT_DIRECTORY, args.format)
            if subject is not None:
                from punstats.present.kind_figures import kind_plots
                for plot in kind_plots(results, subject):
                    paths += plots.save(plot, args.output or plots.DEFAULT_DIRECTORY, args.format)
    except OSError as exc:
        raise UsageError("cannot write the figures: %s" % error_line(exc)) from None
    print("\n".join(terminal(path) for path in paths))
    return 0


def _plot_run(stored: Any, kind: Optional[str], directory: str, formats: Sequence[str],
              method: Bootstrap) -> List[str]:
    """A run's figure (its intervals bootstrapped as ``method`` says), then that of its kind
    (``--kind``, by default its one pattern) per project."""
    from punstats.present import plots
    from punstats.present.ecosystem_figure import ecosystem_plot, kind_plot
    subject = _subject(stored.registry, kind)  # an unknown kind: one line, before any figure
    paths = plots.save(ecosystem_plot(stored.records, stored.ecosystem, method), directory, formats)
    return paths + (plots.save(kind_plot(stored, subject), directory, formats) if subject is not None else [])


def _plot_subject(results: Sequence[Any], kind: Optional[str]) -> Any:
    """The kind ``plot`` draws per scan besides its figures (``analysis.asked.subject`` over the
    scans' registry), or None for f(x=x), which the figures are about already."""
    return _subject(_union(results), kind)


def cmd_report(args: argparse.Namespace) -> int:
    from punstats.cli.ignored import check_figure_options, check_report_output
    from punstats.present import report
    check_report_output(args)
    check_figure_options(args)
    if not args.no_figures:
        _plots_module()
    if compare.comparing(args):
        print(terminal(_writing(lambda: compare.report_of_comparison(args))))
        return 0
    stored = _ecosystem_run(args)
    if stored is not None:
        return _report_of_run(args, stored)
    if args.top is not None:
        raise UsageError("--top lists the first N projects of an ecosystem run; %s is not one" % args.dirs[0])
    results = _load_scans(args.dirs, args.test_rule, args.long)
    kind = _subject(_union(results), args.kind)
    if kind is not None:
        from punstats.present import subject_report
        path = _writing(lambda: subject_report.write_scans_report(
            results, kind, args.output, list(args.dirs), args.links, figures=not args.no_figures,
            figures_dir=args.figures_dir, embed=args.embed))
        print(terminal(path))
        return 0
    try:
        path = report.write_report(results, args.output, figures=not args.no_figures,
                                   figures_dir=args.figures_dir, scan_dir=list(args.dirs), embed=args.embed,
                                   links=args.links)
    except OptionError as exc:  # scans that cannot share a table (different long thresholds)
        raise UsageError("%s with --long N" % exc) from None
    except OSError as exc:
        raise UsageError("cannot write the report: %s" % error_line(exc)) from None
    print(terminal(path))
    return 0


def _report_of_run(args: argparse.Namespace, stored: Any) -> int:
    from punstats.present import ecosystem_report, subject_report

    kind = _subject(stored.registry, args.kind)
    options = {"figures": not args.no_figures, "figures_dir": args.figures_dir, "embed": args.embed,
               "links": args.links, "top": args.top}
    if kind is None:
        path = _writing(lambda: ecosystem_report.write_report(stored, args.output, method=bootstrap(args), **options))
    else:
        path = _writing(lambda: subject_report.write_run_report(stored, kind, args.output, method=bootstrap(args),
                                                                **options))
    print(terminal(path))
    return 0


def _writing(write: Any) -> str:
    """``write()``, the path of the report it wrote; a file that cannot be written is a usage error."""
    try:
        return write()
    except OSError as exc:
        raise UsageError("cannot write the report: %s" % error_line(exc)) from None


def _union(results: Sequence[Any]) -> Any:
    """The registry of stored scans: every row of theirs, each once (``analysis.units.union``)."""
    from punstats.analysis.units import union
    return union([r.summary for r in results])
