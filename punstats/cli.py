"""The ``punstats`` command: argument parsing and printing only.

Every command calls the Python API; nothing here computes a statistic.
Exit status: 0 when the command ran (files that fail to parse are data),
2 for a usage error, reported in one line without a traceback.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, Dict, List, Optional, Sequence

from punstats import __version__
from punstats.api import scan
from punstats.classify import DEFAULT_LONG_THRESHOLD, parse_test_rule
from punstats.discover import DEFAULT_EXTENSIONS
from punstats.extract import DEFAULT_MAX_BYTES
from punstats.sources import SourceError, resolve

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


def _extensions(text: str) -> List[str]:
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not parts or not all(part.startswith(".") for part in parts):
        raise argparse.ArgumentTypeError("expected endings such as .py,.pyi, got %r" % text)
    return parts


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="punstats", description="Count keyword arguments of the form f(x=x).")
    parser.add_argument("--version", action="version", version="punstats " + __version__)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = commands.add_parser("scan", help="scan code bases and store the results",
                            description="Scan directories (default: this interpreter's standard library).")
    p.add_argument("paths", nargs="*", metavar="PATH", help="directory or file; none: the standard library")
    p.add_argument("-o", "--output", metavar="DIR",
                   help="where to store the tables (default: data/<corpus name>/)")
    p.add_argument("--no-save", action="store_true", help="print the summary only")
    p.add_argument("--csv", action="store_true", help="also write CSV copies of the tables")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument("-j", "--jobs", type=_positive, default=None, help="worker processes (default: all cores)")
    p.add_argument("--test-rule", default="components",
                   help="components (default), substring, none, or regex:PATTERN")
    p.add_argument("--test-pattern", metavar="REGEX", help="shorthand for --test-rule regex:REGEX")
    p.add_argument("--long", type=_positive, default=DEFAULT_LONG_THRESHOLD, metavar="N",
                   help="identifiers of at least N characters are long (default: %(default)s)")
    p.add_argument("--extensions", type=_extensions, default=list(DEFAULT_EXTENSIONS),
                   help="file endings to scan, comma-separated (default: .py; e.g. .py,.pyw,.pyi)")
    p.add_argument("--follow-links", action="store_true",
                   help="follow symbolic links that stay inside the root")
    p.add_argument("--no-exclude", action="store_true",
                   help="also walk VCS, virtual-environment and cache directories")
    p.add_argument("--max-bytes", type=_positive, default=DEFAULT_MAX_BYTES,
                   help="larger files are recorded as too_large (default: %(default)s)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    p.set_defaults(handler=cmd_scan)
    return parser


def _progress_bar(quiet: bool, label: str):
    if quiet or not sys.stderr.isatty():
        return None
    from tqdm import tqdm
    return tqdm(total=0, unit="file", desc=label, file=sys.stderr, leave=False, dynamic_ncols=True)


def _output_dirs(args: argparse.Namespace, names: Sequence[str]) -> List[str]:
    base = args.output
    result, used = [], set()
    for name in names:
        unique, n = name, 2
        while unique in used:
            unique, n = "%s-%d" % (name, n), n + 1
        used.add(unique)
        if base is None:
            result.append(os.path.join("data", unique))
        elif len(names) == 1:
            result.append(base)
        else:
            result.append(os.path.join(base, unique))
    return result


def cmd_scan(args: argparse.Namespace) -> int:
    try:
        rule = parse_test_rule("regex:" + args.test_pattern if args.test_pattern else args.test_rule)
        corpora = [resolve(path) for path in args.paths] or [resolve(None)]
    except (SourceError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    outputs = _output_dirs(args, [c.name for c in corpora])
    summaries = []
    for corpus, output in zip(corpora, outputs):
        bar = _progress_bar(args.quiet, corpus.name)
        result = scan(
            corpus=corpus, jobs=args.jobs, test_rule=rule, long_threshold=args.long,
            extensions=args.extensions, follow_links=args.follow_links,
            exclude_dirs=not args.no_exclude, max_bytes=args.max_bytes,
            progress=bar.update if bar else None,
            on_discovered=(lambda n, bar=bar: bar.reset(total=n)) if bar else None,
        )
        if bar:
            bar.close()
        summary = result.summary
        if not args.no_save:
            result.save(output, csv=args.csv)
            summary = dict(summary, stored=output)
        summaries.append(summary)
        if not args.json:
            print(format_summary(summary))
    if args.json:
        payload: Any = summaries[0] if len(summaries) == 1 else summaries
        print(json.dumps(payload, indent=2, ensure_ascii=False))
    return 0


def _n(value: int) -> str:
    return format(value, ",")


def format_summary(s: Dict[str, Any]) -> str:
    failed = ", ".join("%s %s" % (k, _n(v)) for k, v in s["failed_by_reason"].items())
    skipped = "; ".join("%s: %s" % (what, ", ".join("%s %s" % (k, _n(v)) for k, v in counts.items()))
                        for what, counts in (("directories", s.get("skipped_dirs", {})),
                                             ("files", s["skipped_files"])) if counts)
    rows = [
        ("corpus", "%s  (%s%s)" % (s["corpus"], s["source"], ", " + s["revision"] if s["revision"] else "")),
        ("root", s["root"]),
        ("parser", "%s %s   punstats %s" % (s["python_implementation"], s["python"], s["punstats_version"])),
        ("files", "%s   parsed %s   failed %s%s" % (_n(s["files"]), _n(s["parsed"]), _n(s["failed"]),
                                                  " (%s)" % failed if failed else "")),
        ("skipped", skipped or "nothing"),
        ("calls", _n(s["calls"])),
        ("keyword arguments", "%s   (plus %s ** unpackings)" % (_n(s["keywords"]), _n(s["double_star"]))),
        ("punnable f(x=x)", "%s   (%.2f%% of keyword arguments, in %s calls)"
         % (_n(s["punnable"]), s["punnable_pct"], _n(s["calls_with_punnable"]))),
        ("long (>= %d chars)" % s["long_threshold"], _n(s["long"])),
        ("long outside tests", "%s   (test rule: %s)" % (_n(s["long_nontest"]), s["test_rule"])),
        ("class keywords", "%s   (%s punnable, not in the count above)"
         % (_n(s["class_keywords"]), _n(s["class_punnable"]))),
        ("top identifiers", ", ".join("%s %s" % (k, _n(v)) for k, v in s["top_identifiers"])),
        ("top callees", ", ".join("%s %s" % (k, _n(v)) for k, v in s["top_callees"])),
    ]
    if "stored" in s:
        rows.append(("stored in", s["stored"]))
    width = max(len(label) for label, _ in rows)
    return "\n".join("%-*s  %s" % (width, label, value) for label, value in rows)


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


if __name__ == "__main__":
    sys.exit(main())
