"""``punstats history``.
"""
from __future__ import annotations

import argparse
import json
import os
from typing import Any, Dict, List

from punstats.cli.common import UsageError, _progress_bar
from punstats.store.rules import parse_test_rule


def _records(table: Any) -> List[Dict[str, Any]]:
    """The rows as ``scan --json`` writes summaries: an array of objects, dates
    in ISO 8601, numbers and booleans as JSON's own."""
    rows = []
    for row in table.to_dict(orient="records"):
        rows.append({key: value.isoformat() if hasattr(value, "isoformat") else
                     value.item() if hasattr(value, "item") else value for key, value in row.items()})
    return rows


def cmd_history(args: argparse.Namespace) -> int:
    from punstats.runs import history as histories
    from punstats.sources import git as gitsource
    try:
        rule = parse_test_rule(args.test_rule)
        commits = histories.select(histories.commits_of(args.repo, args.since, args.until, args.rev_range),
                                   args.every)
    except ValueError as exc:  # GitError included
        raise UsageError(str(exc)) from None
    if not commits:
        raise UsageError("no first-parent commit of %s in that window" % args.rev_range)
    name = gitsource.git_corpus(args.repo, commits[-1].sha).name.split("@")[0]
    output = args.output or os.path.join("data", name + "-history")
    bar = _progress_bar(args.quiet, name, unit="revision")
    bar.start(len(commits))
    try:
        table = histories.history(args.repo, commits, cache=not args.no_cache, jobs=args.jobs, test_rule=rule,
                                  long_threshold=args.long, on_revision=lambda commit, row: bar.update(1))
    finally:
        bar.close()
    os.makedirs(output, exist_ok=True)
    table.to_parquet(os.path.join(output, "history.parquet"), index=False)
    table.to_csv(os.path.join(output, "history.csv"), index=False)
    with open(os.path.join(output, "history.json"), "w", encoding="utf-8") as handle:
        json.dump(histories.provenance(args.repo, commits, vars(args)), handle, indent=2)
    written = [os.path.join(output, "history.parquet")]
    try:
        from punstats.present import plots
    except ImportError:
        pass  # the table is the result; the figure needs the plot extra
    else:
        written += plots.save(plots.history_trend(table, name), output)
    if args.json:
        print(json.dumps(_records(table), indent=2, ensure_ascii=False))
    else:
        print(table[["commit", "date", "files", "keywords", "punnable", "punnable_pct", "long", "long_nontest",
                     "files_extracted"]].assign(commit=table["commit"].str[:12]).to_string(index=False))
        print("stored: %s" % ", ".join(written))
    return 0

