"""Whether a run in a folder may be resumed (``--skip-existing``) with the list, index and rules of now.

A run records its list (with the list's sha256), its index and its rules in
``run.json`` (``runs.ecosystem``); a resume with another list, another index,
other rules or other patterns (an edited pattern file) would mix two studies in
one dataset, so it is refused with one line saying what differs.
"""
from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Tuple, cast

from punstats.model import jsondata
from punstats.store.ecosystem import RUN_FILE


def resume_refusal(output: str, run: Dict[str, Any]) -> Optional[str]:
    """Why the run in ``output`` cannot be resumed as ``run`` (its list, rules and index, as
    ``run.json`` records them), in one line; None when it can."""
    recorded = _recorded(output)
    if recorded is None:
        return "%s: %s is missing or unreadable; cannot resume this run" % (output, RUN_FILE)
    before, rules = recorded
    edited = _edited_list(before.get("list"), run["list"])
    if edited:
        return "%s was made with %s; use another -o, or put the list back" % (output, edited)
    for key in ("list", "index", "releases"):
        if before.get(key) != _as_recorded(run.get(key), before.get(key)):
            return "%s was made with another %s (%s); use another -o" % (
                output, "project list" if key == "list" else key, before.get(key))
    changed = rules_changed(rules, run["rules"])
    if changed:
        return "%s was made with %s; use another -o" % (output, changed)
    return None


def _as_recorded(now: Any, before: Any) -> Any:
    """``now`` (a list's provenance) as a run that recorded ``before`` would have recorded it: a run
    made before lists were recorded with their sha256 compares without it."""
    if isinstance(now, dict) and isinstance(before, dict) and "sha256" not in before:
        return {k: v for k, v in now.items() if k != "sha256"}
    return now


def _edited_list(before: Any, now: Dict[str, Any]) -> Optional[str]:
    """In words, how the list a run recorded differs from ``now`` when only its content does (the
    same file edited in place, even to the same size and date); None otherwise."""
    if not (isinstance(before, dict) and "sha256" in before) or before == now:
        return None
    if {k: v for k, v in before.items() if k != "sha256"} != {k: v for k, v in now.items() if k != "sha256"}:
        return None
    return "the project list %s as it was before an edit (sha256 %s, now %s)" % (
        now.get("list"), str(before["sha256"])[:12], str(now.get("sha256"))[:12])


def _patterns_text(rules: Dict[str, Any]) -> str:
    return "; ".join("%s from %s, sha256 %s" % (p.get("name"), p.get("source"), str(p.get("sha256"))[:12])
                     for p in rules.get("patterns", [])) or "none"


def _recorded(output: str) -> Optional[Tuple[Dict[str, Any], Dict[str, Any]]]:
    """The ``run.json`` of the run in ``output`` and its rules; None when it is missing,
    unreadable or not of the shape a run writes (its user patterns are objects)."""
    try:
        with open(os.path.join(output, RUN_FILE), encoding="utf-8") as handle:
            before = jsondata.load(handle)
    except (OSError, ValueError):
        before = None
    rules = (before.get("rules") or {}) if isinstance(before, dict) else None
    patterns = (rules.get("patterns") or []) if isinstance(rules, dict) else None
    if not isinstance(patterns, list) or not all(isinstance(p, dict) for p in patterns):
        return None
    return cast(Dict[str, Any], before), cast(Dict[str, Any], rules)  # both objects, checked above


def _identities(rules: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The user patterns of ``rules`` without where each was read from: the same file given by
    another path counts the same."""
    return [{k: v for k, v in p.items() if k != "source"} for p in rules.get("patterns", [])]


def rules_changed(before: Dict[str, Any], now: Dict[str, Any]) -> Optional[str]:
    """What differs between the rules a run recorded and ``now`` (``ScanOptions.rules()``), in words;
    None if nothing.  The user patterns (each one's source and sha256: an edited pattern file
    differs) are always compared; of the other rules, those the run recorded (a run made before
    every rule was recorded has only the test rule and the long threshold)."""
    if _identities(before) != _identities(now):
        return "other patterns (%s; now %s)" % (_patterns_text(before), _patterns_text(now))
    other = sorted(key for key in before if key != "patterns" and before[key] != now.get(key))
    if other:
        return "another rules (%s)" % ", ".join("%s %s, now %s" % (key, json.dumps(before[key]),
                                                                    json.dumps(now.get(key))) for key in other)
    return None
