"""``punstats reproduce angelico``, ``reproduce pep736`` and ``reproduce rewrite``.
"""
from __future__ import annotations

import argparse
import json
import re
from typing import Any, Dict, List, Tuple

from punstats.cli.common import Parser, UsageError, cache_of, json_options, positive, progress_bar
from punstats.model.escape import terminal
from punstats.present.console import commas, format_reproduction, format_search
from punstats.store.rules import DEFAULT_LONG_THRESHOLD


def _add_reproduce_commands(commands: Any) -> None:
    """``reproduce angelico``, ``reproduce pep736`` and ``reproduce rewrite``."""
    p = commands.add_parser("reproduce", help="reproduce published figures and explain differences")
    which = p.add_subparsers(dest="figures", required=True, parser_class=Parser)

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
    a.add_argument("--long", type=positive, default=DEFAULT_LONG_THRESHOLD, metavar="N")
    a.add_argument("--nearest", type=positive, default=10, help="search: configurations to list")
    a.add_argument("--no-cache", action="store_true", help="do not use the per-blob cache")
    a.add_argument("--lines", action="store_true", help="also print his output lines")
    a.set_defaults(handler=cmd_reproduce_angelico)
    _add_pep736_command(which)
    _add_rewrite_command(which)


def _add_pep736_command(which: Any) -> None:
    q = which.add_parser("pep736", help="PEP 736's applicability tables, for any project",
                         description="Each project a git repository (bare or work tree), optionally @REV; "
                                     "without REV its punning commit ('Add punning', 'With punning', "
                                     "'Apply sugar') is found and its parent measured; a punning commit "
                                     "also gives the lines saved.",
                         parents=[json_options()])
    q.add_argument("--project", action="append", type=_project, default=[], metavar="NAME=SRC[@REV]",
                   help="a project (repeatable); NAME picks its published row, e.g. polars")
    for project in ALIASES:
        q.add_argument("--" + project, metavar="SRC[@REV]", help="the same as --project %s=SRC[@REV]" % project)
    q.add_argument("--search-definitions", action="store_true",
                   help="try every numerator x denominator x file set the tool implements and list "
                        "those that hit each published value at its printed precision")
    q.add_argument("--python", metavar="PATH",
                   help="parse with this interpreter (the rewrite estimate of --search-definitions "
                        "parses with the one running punstats)")
    q.add_argument("--no-cache", action="store_true")
    q.set_defaults(handler=cmd_reproduce_pep736)


def _add_rewrite_command(which: Any) -> None:
    r = which.add_parser("rewrite", help="rewrite a punning commit's parent and compare with the commit",
                         description="SOURCE a git repository, optionally @COMMIT (default: its punning "
                                     "commit): every .py file the commit changed, rewritten from the "
                                     "parent in memory, against the commit's file, byte for byte.",
                         parents=[json_options()])
    r.add_argument("source", metavar="SOURCE[@COMMIT]")
    r.add_argument("--style", choices=("postfix", "prefix"), default="postfix")
    r.add_argument("--delimited-only", action="store_true", help="as rewrite --delimited-only")
    r.add_argument("--no-rewrap", action="store_true", help="pun only, do not join lines")
    r.add_argument("--diffs", action="store_true", help="print the first lines of each difference")
    r.set_defaults(handler=cmd_reproduce_rewrite)


#: The PEP's first table's projects, each also an option of its own (``--numpy SRC``).
ALIASES = ("cpython", "numpy", "pandas", "scikit-learn")


_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\Z")


def _project(text: str) -> Tuple[str, str]:
    """``NAME=SRC[@REV]`` -> (NAME, SRC[@REV])."""
    name, equals, spec = text.partition("=")
    if not equals or not _NAME.match(name) or not spec:
        raise argparse.ArgumentTypeError("expected NAME=SRC[@REV], e.g. polars=../polars@acb601d6ce, got %r"
                                         % text)
    return name, spec


def cmd_reproduce_angelico(args: argparse.Namespace) -> int:
    from punstats import reproduce
    pythons = args.python or [None]
    rules = (args.test_rule or []) + ["path:regex:" + pattern for pattern in args.test_pattern or []]
    searching = args.since is not None or args.until is not None
    if searching and args.rev is not None:
        raise UsageError("give either --rev or --since/--until, not both")
    if len(rules) > 1 and not searching:
        raise UsageError("one configuration takes one test rule; several are for the search (--since/--until)")
    rule = rules[0] if rules else None
    for each in rules:
        reproduce.parse_line_rule(each)
    if searching:
        bar = progress_bar(False, "search", unit="step")
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
                thresholds=(args.long,), nearest=args.nearest, cache=cache_of(args), progress=note)
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
                           cache=cache_of(args))
    if args.lines:
        print("\n".join(terminal(line) for line in r.lines))
    print(json.dumps(r.as_dict(), indent=2, ensure_ascii=False) if args.json else format_reproduction(r))
    return 0


def _projects(args: argparse.Namespace) -> Dict[str, str]:
    """Project name -> SRC[@REV], from --project and the aliases; a name given twice is an error."""
    pairs = list(args.project) + [(name, getattr(args, name.replace("-", "_"))) for name in ALIASES
                                  if getattr(args, name.replace("-", "_"))]
    projects: Dict[str, str] = {}
    for name, spec in pairs:
        if name in projects:
            raise UsageError("project %s given twice" % name)
        projects[name] = spec
    if not projects:
        raise UsageError("name at least one project, e.g. --project polars=SRC[@REV] or --pandas SRC[@REV]")
    return projects


def cmd_reproduce_pep736(args: argparse.Namespace) -> int:
    from punstats import reproduce
    projects = _projects(args)
    result = reproduce.pep736(projects, python=args.python, cache=cache_of(args),
                              search=args.search_definitions)
    if args.json:
        keep = ("published", "reproduced", "matches", "reproduced_by", "definitions", "commit",
                "commit_date", "punning_commit", "python", "source", "table", "search")
        print(json.dumps({k: {f: v[f] for f in keep if f in v} for k, v in result.items()}, indent=2))
        return 0
    print("\n".join(terminal(line) for line in _format_pep736(result).splitlines()))
    return 0


def _value(value: Any, percent: bool = False) -> str:
    if value is None:
        return "-"
    return "%.2f" % value if percent else commas(value)


def _format_pep736(result: Dict[str, Any]) -> str:
    head = "%-13s %-10s %9s %9s  %8s %8s  %6s %6s" % ("project", "commit", "count", "published",
                                                       "percent", "pub.", "saved", "pub.")
    lines = [head]
    for name, v in result.items():
        pub, rep = v["published"], v["reproduced"]
        lines.append("%-13s %-10s %9s %9s  %8s %8s  %6s %6s" % (
            name, v["commit"][:10], _value(rep["count"]), _value(pub["count"]),
            _value(rep["percent"], True), _value(pub["percent"], True),
            _value(rep["lines_saved"]), _value(pub["lines_saved"])))
    lines.append("")
    lines.extend("%-11s %s" % (k + ":", d) for k, d in next(iter(result.values()))["reproduced_by"].items())
    if len(result) > 1 and all("search" in v for v in result.values()):
        lines.extend(_format_common(result))
    for name, v in result.items():
        lines.append("")
        lines.append("%s (%s, %s, parser %s):" % (name, v["commit"][:12], v["commit_date"][:10], v["python"]))
        for label, value in v["definitions"].items():
            lines.append("  %-52s %s" % (label, value))
        for figure, found in v.get("search", {}).items():
            lines.extend(_format_hits(figure, found))
    return "\n".join(lines)


def _format_common(result: Dict[str, Any]) -> List[str]:
    """The definitions that hit the published value on every project that has one."""
    out = [""]
    for figure in ("count", "percent", "lines_saved"):
        found = [v["search"][figure] for v in result.values() if v["search"][figure]["published"] is not None]
        if not found:
            continue
        common = None
        for f in found:
            labels = {_definition_label(row) for row in f["hits"]}
            common = labels if common is None else common & labels
        out.append("%s: %d definitions hit on all %d projects" % (figure, len(common or ()), len(found)))
        out.extend("    = %s" % label for label in sorted(common or ())[:20])
    return out


def _definition_label(row: Dict[str, Any]) -> str:
    """A hit without its values: the same definition on another project has the same label."""
    return _row_label({k: v for k, v in row.items() if k not in ("value", "num", "den")})


def _row_label(row: Dict[str, Any]) -> str:
    if "source" in row:
        return "%s, %s" % (row["source"], row["files"])
    parts = [row["numerator"]] + ([row["denominator"]] if "denominator" in row else [])
    return "%s; %s; %s" % (" / ".join(parts), row["depth"], row["files"])


def _format_hits(figure: str, found: Dict[str, Any]) -> List[str]:
    percent = figure == "percent"
    if found["published"] is None:
        return []
    out = ["  %s %s: %d of %d definitions hit" % (figure, _value(found["published"], percent),
                                                  len(found["hits"]), found["tried"])]
    for row in found["hits"][:20]:
        out.append("    = %s" % _row_label(row))
    if len(found["hits"]) > 20:
        out.append("    ... and %d more (--json lists them all)" % (len(found["hits"]) - 20))
    if not found["hits"]:
        out.extend("    nearest %s: %s" % (_value(row["value"], percent), _row_label(row))
                   for row in found["nearest"])
    out.extend("    every file, %s: %s" % (source, _value(value))
               for source, value in found.get("every_file", {}).items())
    return out


def cmd_reproduce_rewrite(args: argparse.Namespace) -> int:
    from punstats.reproduce import fidelity
    from punstats.reproduce.pep736 import punning_commit, split_spec
    from punstats.sources import git as gitsource
    path, rev = split_spec(args.source)
    gitdir = gitsource.git_dir(path)
    pun, _ = punning_commit(gitdir, rev or None)
    if pun is None:
        raise UsageError("%s: no punning commit%s" % (args.source, " " + rev if rev else " found"))
    rows = fidelity.compare(gitdir, pun.sha, rewrap=not args.no_rewrap, style=args.style,
                            delimited_only=args.delimited_only)
    summary = fidelity.summary(rows)
    differing = [r for r in rows if not r.identical]
    if args.json:
        print(json.dumps({"commit": pun.sha, "subject": pun.subject, **summary,
                          "differing": [{"path": r.path, "ours_saved": r.ours_saved,
                                         "commit_saved": r.commit_saved, "error": r.error}
                                        for r in differing]}, indent=2))
        return 0
    lines = ["%s %s" % (pun.sha[:12], pun.subject),
             "identical  %d of %d files (%.1f %%)" % (summary["identical"], summary["files"], summary["percent"]),
             "saved      %d lines (the commit: %d)" % (summary["ours_saved"], summary["commit_saved"])]
    for r in differing:
        lines.append("differs    %s (saved %d, the commit %d)%s" % (r.path, r.ours_saved, r.commit_saved,
                                                                    ": " + r.error if r.error else ""))
        if args.diffs:
            lines.extend("    " + line for line in r.line_diff())
    print("\n".join(terminal(line) for line in lines))
    return 0
