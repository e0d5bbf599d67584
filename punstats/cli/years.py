"""``table``, ``plot`` and ``report`` of a run over years (``corpus top-pypi:N --releases yearly:A..B``).

``handler`` wraps each command of ``cli.evidence``: a directory holding a run over years
(``store.years``) is shown here, as its trend per year (``present.years``); any other goes on
to the command as before.  Each command computes the trend once (``analysis.years.trend``, its
intervals bootstrapped as ``--resamples`` and ``--seed`` say) and hands it to every table, figure
and report it writes.  Each year's folder is an ordinary run, which those commands show alone.
"""
from __future__ import annotations

import argparse
from typing import Any, Callable

from punstats.cli.common import UsageError, error_line, write_output
from punstats.model.escape import terminal


def handler(command: str, otherwise: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """``command`` (``table``, ``plot``, ``report``) of a run over years, else ``otherwise``."""
    def handle(args: argparse.Namespace) -> int:
        stored = _given(args)
        if stored is None:
            return otherwise(args)
        return {"table": _table, "plot": _plot, "report": _report}[command](args, stored)
    return handle


def _given(args: argparse.Namespace) -> Any:
    """The run over years ``args.dirs`` names (``store.years.StoredYears``), or None."""
    from punstats.store.years import is_years, read_years
    found = [directory for directory in args.dirs if is_years(directory)]
    if not found:
        return None
    from punstats.cli.ignored import check_run_alone
    check_run_alone(args, found[0], "a run over years", "each year's folder is a run of its own")
    return read_years(found[0])  # a StoreError (a year missing or never finished): cli.main


def _trend(stored: Any, args: argparse.Namespace) -> Any:
    """The trend of the kind ``--kind`` asks for (``analysis.years.Trend``), made once for the command."""
    from punstats.analysis import years
    from punstats.analysis.asked import subject
    from punstats.cli.bootstrap import bootstrap
    kind = subject(stored.registry, args.kind)  # an unknown kind: a one-line OptionError
    return years.trend(stored, kind, bootstrap(args))


def _table(args: argparse.Namespace, stored: Any) -> int:
    """The trend table (``--format csv``: one tidy row per year)."""
    from punstats.cli.ignored import check_table_options
    from punstats.present import years
    from punstats.present.formats import render_all
    check_table_options(args, True)
    if args.by != "summary" or args.rows is not None:
        raise UsageError("a run over years has its trend per year and its projects per year (--kind chooses the "
                         "kind, -n the projects); one year's --kinds or --by: punstats table %s/YEAR"
                         % stored.directory)
    trend = _trend(stored, args)
    if args.format == "csv":  # one tidy row per year; a year's projects: that year's own CSV
        from punstats.present import tidy
        write_output(tidy.to_csv(years.trend_frame(stored, trend)), args.output)
        return 0
    tables = [years.trend_table(stored, trend),
              years.projects_table(stored, trend, args.top if args.top_given else None)]
    write_output(render_all(tables, args.format, links=args.links), args.output)
    return 0


def _plot(args: argparse.Namespace, stored: Any) -> int:
    """The trend figure of the kind."""
    from punstats.present import figure, years
    trend = _trend(stored, args)
    try:
        paths = figure.save(years.trend_plot(stored, trend), args.output or figure.DEFAULT_DIRECTORY, args.format)
    except OSError as exc:
        raise UsageError("cannot write the figures: %s" % error_line(exc)) from None
    print("\n".join(terminal(path) for path in paths))
    return 0


def _report(args: argparse.Namespace, stored: Any) -> int:
    """The Markdown report: the trend table and its figure."""
    from punstats.cli.ignored import check_figure_options, check_report_output
    from punstats.present import years
    check_report_output(args)
    check_figure_options(args)
    trend = _trend(stored, args)
    try:
        path = years.write_report(stored, trend, args.output, figures=not args.no_figures,
                                  figures_dir=args.figures_dir, embed=args.embed, links=args.links, top=args.top)
    except OSError as exc:
        raise UsageError("cannot write the report: %s" % error_line(exc)) from None
    print(terminal(path))
    return 0
