"""``punstats reproduce angelico`` and ``reproduce pep736``.
"""
from __future__ import annotations

import argparse
import json
from typing import Any

from punstats.cli.common import UsageError, _cache, _Parser, _positive, _progress_bar, json_options
from punstats.store.rules import DEFAULT_LONG_THRESHOLD


def _add_reproduce_commands(commands: Any) -> None:
    """``reproduce angelico`` and ``reproduce pep736``."""
    p = commands.add_parser("reproduce", help="reproduce published figures and explain differences")
    which = p.add_subparsers(dest="figures", required=True, parser_class=_Parser)

    a = which.add_parser("angelico", help="Chris Angelico's 3858 / 525 / 310 (October 2023)",
                         description="One revision (--rev; SOURCE a git repository) or a checked-out "
                                     "directory (no --rev): published, compat and corrected numbers. "
                                     "--since/--until: search first-parent commits and configurations.",
                         parents=[json_options()])
    a.add_argument("source", metavar="SOURCE", help="git repository (bare or work tree) or directory")
    a.add_argument("--rev", help="the revision to scan")
    a.add_argument("--since", help="search: first commit date (git --since)")
    a.add_argument("--until", help="search: last commit date (git --until)")
    a.add_argument("--branch", default="HEAD", help="search: whose first-parent history (default: HEAD)")
    a.add_argument("--python", action="append", metavar="PATH",
                   help="parse with this interpreter (search: repeat for several)")
    a.add_argument("--walk", choices=("fs", "sorted"), help="walk order (default: fs for a directory, "
                                                             "sorted for a revision)")
    a.add_argument("--directory", default="", metavar="DIR",
                   help="the directory he ran it in, relative to SOURCE (default: the root)")
    a.add_argument("--profile", default="angelico-2023-10", help="compat profile (default: %(default)s)")
    a.add_argument("--descend", action="store_true", help="quirk off: visit calls nested in calls")
    a.add_argument("--no-stale", action="store_true", help="quirk off: no stale tree after a parse failure")
    a.add_argument("--test-rule", action="append", default=None,
                   help="what removes the unit tests: [path:|line:|name:]substring|components|regex:RE "
                        "(default: path:substring; the search repeats it, default: a set of rules)")
    a.add_argument("--test-pattern", metavar="RE", action="append",
                   help="shorthand for --test-rule path:regex:RE (repeatable)")
    a.add_argument("--long", type=_positive, default=DEFAULT_LONG_THRESHOLD, metavar="N")
    a.add_argument("--nearest", type=_positive, default=10, help="search: configurations to list")
    a.add_argument("--no-cache", action="store_true", help="do not use the per-blob cache")
    a.add_argument("--lines", action="store_true", help="also print his output lines")
    a.set_defaults(handler=cmd_reproduce_angelico)

    q = which.add_parser("pep736", help="PEP 736's applicability table",
                         description="Each SOURCE a git repository, optionally @REV; a punning commit "
                                     "(or, without REV, the repository's punning commit) is measured "
                                     "at its parent and gives the lines saved.",
                         parents=[json_options()])
    for project in ("cpython", "numpy", "pandas", "scikit-learn"):
        q.add_argument("--" + project, metavar="SRC[@REV]")
    q.add_argument("--python", metavar="PATH")
    q.add_argument("--no-cache", action="store_true")
    q.set_defaults(handler=cmd_reproduce_pep736)


def cmd_reproduce_angelico(args: argparse.Namespace) -> int:
    from punstats import reproduce
    from punstats.present.console import format_reproduction, format_search
    pythons = args.python or [None]
    rules = (args.test_rule or []) + ["path:regex:" + pattern for pattern in args.test_pattern or []]
    searching = args.since is not None or args.until is not None
    if searching and args.rev is not None:
        raise UsageError("give either --rev or --since/--until, not both")
    if len(rules) > 1 and not searching:
        raise UsageError("one configuration takes one test rule; several are for the search (--since/--until)")
    rule = rules[0] if rules else None
    try:
        for each in rules:
            reproduce.parse_line_rule(each)
        if searching:
            bar = _progress_bar(False, "search", unit="step")
            last = [""]

            def note(what: str, done: int, total: int) -> None:
                if what != last[0]:
                    last[0] = what
                    bar.start(total, label=what)
                bar.set(done)
            try:
                result = reproduce.angelico_search(
                    args.source, args.since or "", args.until or "", branch=args.branch, pythons=pythons,
                    test_rules=rules or reproduce.SEARCH_RULES,
                    directories=[args.directory] if args.directory else ("", "Lib"),
                    thresholds=(args.long,), nearest=args.nearest, cache=_cache(args), progress=note)
            finally:
                bar.close()
            print(json.dumps(result, indent=2) if args.json else format_search(result))
            return 0
        if len(pythons) > 1:
            raise UsageError("one --python for a single configuration")
        quirks = {"descend": True if args.descend else None, "stale_tree": False if args.no_stale else None}
        r = reproduce.angelico(args.source, args.rev, python=pythons[0], walk=args.walk,
                               subdir=args.directory, test_rule=rule or "path:substring",
                               profile=args.profile, quirks=quirks, long_threshold=args.long,
                               cache=_cache(args))
    except (ValueError, RuntimeError) as exc:
        raise UsageError(str(exc)) from None
    if args.lines:
        print("\n".join(r.lines))
    print(json.dumps(r.as_dict(), indent=2, ensure_ascii=False) if args.json else format_reproduction(r))
    return 0


def cmd_reproduce_pep736(args: argparse.Namespace) -> int:
    from punstats import reproduce
    from punstats.present.console import _n
    sources = {name: getattr(args, name.replace("-", "_")) for name in
               ("cpython", "numpy", "pandas", "scikit-learn")}
    sources = {k: v for k, v in sources.items() if v}
    if not sources:
        raise UsageError("name at least one project, e.g. --pandas PATH[@REV]")
    try:
        result = reproduce.pep736(sources, python=args.python, cache=_cache(args))
    except (ValueError, RuntimeError) as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps({k: {"published": v["published"],
                              "reproduced": {m: (x or {}).get("value") for m, x in v["reproduced"].items()},
                              "definitions": v["definitions"], "commit": v["commit"],
                              "punning_commit": v["punning_commit"], "python": v["python"]}
                          for k, v in result.items()}, indent=2))
        return 0
    lines = ["%-13s %-9s %9s %9s  %-8s %8s %8s  %-6s %6s %6s" % (
        "project", "commit", "count", "published", "percent", "measured", "pub.", "saved", "meas.", "pub.")]
    for name, v in result.items():
        pub, rep = v["published"], v["reproduced"]
        saved = rep["lines_saved"] or {}
        lines.append("%-13s %-9s %9s %9s  %-8s %8s %8s  %-6s %6s %6s" % (
            name, v["commit"][:9], _n(rep["count"]["value"]), _n(pub.get("count", 0)), "",
            "%.2f" % rep["percent"]["value"], "%.2f" % pub.get("percent", 0), "",
            saved.get("value", "-"), pub.get("lines_saved", "-")))
    lines.append("")
    for name, v in result.items():
        lines.append("%s (%s, parser %s):" % (name, v["commit_date"][:10], v["python"]))
        for label, value in v["definitions"].items():
            lines.append("  %-52s %s" % (label, value))
    print("\n".join(lines))
    return 0

