"""Provenance lines and names: what a table footnote or figure caption says was measured.
"""
from __future__ import annotations

import re
from typing import Any, Dict, List, Optional, Sequence


def provenance(summary: Dict[str, Any], name: Optional[str] = None) -> str:
    """One sentence saying what a scan measured: corpus, revision, Python.
    ``name`` is what the table or figure calls the scan (default: its corpus)."""
    revision = summary.get("revision") or "unknown"
    if summary.get("commit_date"):
        revision += " (%s)" % summary["commit_date"]
    return ("%s: %s at revision %s; parsed by %s %s with punstats %s; test rule %s."
            % (name or summary["corpus"], summary.get("source", summary["corpus"]), revision,
               summary.get("python_implementation", "Python"), summary["python"],
               summary.get("punstats_version", "?"), summary["test_rule"]))


def slug(text: str) -> str:
    """``text`` made safe as part of a file name."""
    return re.sub(r"[^\w.+-]+", "-", text).strip("-.") or "scan"


def column_names(summaries: Sequence[Dict[str, Any]]) -> List[str]:
    """Corpus names, made unique (``src``, ``src (2)``) for columns and bars."""
    names, seen = [], {}  # type: List[str], Dict[str, int]
    for summary in summaries:
        name = summary["corpus"]
        seen[name] = seen.get(name, 0) + 1
        names.append(name if seen[name] == 1 else "%s (%d)" % (name, seen[name]))
    return names

