"""``punstats scan``.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any, List, Sequence

from punstats.cli.common import UsageError, _check_engine_options, _one_line
from punstats.model.corpus import SourceError
from punstats.present.console import format_summary
from punstats.runs.scan import scan
from punstats.sources import resolve
from punstats.store.rules import parse_test_rule


def _scan_compat(args: argparse.Namespace, rule: Any) -> int:
    """``scan --compat PROFILE``: the published script's output lines, then its counts."""
    from punstats import reproduce
    if len(args.paths) != 1:
        raise UsageError("--compat needs exactly one PATH")
    try:
        r = reproduce.angelico(args.paths[0], args.rev, python=args.python, profile=args.compat,
                               test_rule="path:" + rule.label if rule.label != "components"
                               else "path:substring", long_threshold=args.long)
    except (ValueError, RuntimeError) as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        print(json.dumps(r.as_dict(), indent=2, ensure_ascii=False))
        return 0
    for line in r.lines:
        print(line)
    if r.stats_text:
        print(r.stats_text)
    print("# %s: %d lines, %d with identifiers of >= %d characters, %d of those outside tests (%s)%s"
          % (args.compat, r.compat.total, r.compat.long, args.long, r.compat.long_nontest,
             r.configuration["test_rule"], "; " + r.crash if r.crash else ""), file=sys.stderr)
    return 0

from punstats.cli.common import _progress_bar


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
    _check_engine_options(args)
    try:
        rule = parse_test_rule("regex:" + args.test_pattern if args.test_pattern else args.test_rule)
        if args.compat:
            return _scan_compat(args, rule)
        if args.rev is not None:
            from punstats.sources.git import git_corpus
            corpora = [git_corpus(path, args.rev) for path in args.paths or ["."]]
        else:
            corpora = [resolve(path) for path in args.paths] or [resolve(None)]
    except (SourceError, ValueError) as exc:
        raise UsageError(str(exc)) from None
    outputs = _output_dirs(args, [c.name for c in corpora])
    summaries = []
    for corpus, output in zip(corpora, outputs):
        bar = _progress_bar(args.quiet, corpus.name)
        try:
            result = scan(
                corpus=corpus, jobs=args.jobs, test_rule=rule, long_threshold=args.long,
                extensions=args.extensions, follow_links=args.follow_links,
                exclude_dirs=not args.no_exclude, max_bytes=args.max_bytes,
                progress=bar.update if bar else None,
                on_discovered=(lambda n, bar=bar: bar.reset(total=n)) if bar else None,
                python=args.python,
                engine=args.engine, scheduler=args.scheduler, cache=not args.no_cache,
                lines_saved=args.lines_saved,
                output=None if args.no_save else output, csv=args.csv,  # stored as it runs
            )
        except ValueError as exc:  # EngineError, StoreError: the cluster, the output directory
            raise UsageError(_one_line(exc)) from None
        if bar:
            bar.close()
        summary = result.summary
        if not args.no_save:
            summary = dict(summary, stored=output)
        summaries.append(summary)
        if not args.json:
            print(format_summary(summary))
    if args.json:
        payload: Any = summaries[0] if len(summaries) == 1 else summaries
        print(json.dumps(payload, indent=2, ensure_ascii=False))
    return 0

