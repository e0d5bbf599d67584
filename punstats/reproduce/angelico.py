"""Angelico's 3858 / 525 / 310 at one revision, beside punstats' corrected counts.
"""
from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

from punstats.cache import BlobCache
from punstats.engines import interp
from punstats.extract import compat
from punstats.model.errors import OptionError
from punstats.model.records import from_plain
from punstats.reproduce.published import published
from punstats.reproduce.replay import (
    GitSource,
    Triple,
    compat_results,
    count_lines,
    directory_files,
    parse_line_rule,
)
from punstats.sources import git as gitsource
from punstats.store.rules import (
    DEFAULT_LONG_THRESHOLD,
    DEFAULT_TEST_RULE,
)


@dataclass(frozen=True)
class Reproduction:
    """One configuration: published, compat and corrected numbers, and why they differ."""

    configuration: Dict[str, Any]
    published: Triple
    compat: Triple
    corrected: Triple
    breakdown: Dict[str, Dict[str, int]]
    failures: Tuple[Tuple[str, str], ...]
    crash: str
    lines: Tuple[str, ...] = field(repr=False, default=())
    stats_text: str = ""

    def as_dict(self) -> Dict[str, Any]:
        return {"configuration": self.configuration, "published": self.published.as_dict(),
                "compat": self.compat.as_dict(), "corrected": self.corrected.as_dict(),
                "breakdown": self.breakdown,
                "parse_failures": [{"path": p, "error": e} for p, e in self.failures],
                "crash": self.crash}


def published_triple() -> Triple:
    p = published()["angelico-2023-10"]
    return Triple(p["total"], p["long"], p["long_nontest"])


def angelico(source: str, rev: Optional[str] = None, *, python: Optional[str] = None,
             walk: Optional[str] = None, subdir: str = "", test_rule: str = "path:substring",
             profile: str = "angelico-2023-10", quirks: Optional[Dict[str, Any]] = None,
             long_threshold: int = DEFAULT_LONG_THRESHOLD, cache: Optional[BlobCache] = None,
             progress: Optional[Callable[[int], None]] = None) -> Reproduction:
    """Replay ``find_kwargs.py`` over ``source`` (a git repository at ``rev``, or a
    directory when ``rev`` is None) and compare with the published and corrected numbers."""
    rule = parse_line_rule(test_rule)
    walk = walk or ("sorted" if rev is not None else "fs")
    git, commit, files, read = _inputs(source, rev, walk, subdir)
    order = [f.path for f in files]
    if git is not None:
        order = compat.sorted_walk_order(order)
    by_path = {f.path: f for f in files}
    quirks_used = compat.profile(profile, walk=walk, **(quirks or {}))
    try:
        with interp.Pool(python) as pool:
            results = compat_results(pool, files, read, cache, ("compat", "extract"), progress)
            parser = pool.parser
    finally:
        if git is not None:
            git.close()
    walked = [(p, results[by_path[p].blob]["compat"] if by_path[p].blob else None) for p in order]
    replay = compat.run(walked, quirks_used)
    compat_triple = count_lines(replay.lines, rule, long_threshold)
    occurrences, extract_failed = _punstats_calls(files, results)
    long = [(p, o) for p, o in occurrences if o.name_len >= long_threshold]
    corrected = Triple(len(occurrences), len(long),
                       sum(1 for p, _ in long if not DEFAULT_TEST_RULE.is_test(p)))
    breakdown = _breakdown(replay, occurrences, quirks_used, rule, long_threshold, compat_triple, corrected)
    breakdown["parse_failures"] = {"files": len(replay.failures), "stale_visits": len(replay.stale_visits),
                                   "punstats_failures": len(extract_failed)}
    configuration = {
        "source": source, "rev": rev, "commit": commit.sha if commit else "",
        "commit_date": commit.date if commit else "", "directory": subdir or ".",
        "python": parser, "profile": profile, "quirks": asdict(quirks_used),
        "test_rule": rule.label, "corrected_test_rule": DEFAULT_TEST_RULE.label,
        "long_threshold": long_threshold, "files": len(files),
    }
    return Reproduction(configuration, published_triple(), compat_triple, corrected, breakdown,
                        replay.failures, replay.crash,
                        tuple(ln.text(quirks_used.path_style) for ln in replay.lines),
                        replay.stats_text())


def _inputs(source: str, rev: Optional[str], walk: str, subdir: str) -> Tuple[Any, Any, List[Any], Any]:
    """(git source or None, commit or None, files, read) of a revision or a directory."""
    if rev is not None:
        if walk == "fs":
            raise OptionError("--walk fs needs a checked-out directory (a revision has no file-system order)")
        git = GitSource(source)
        commit = gitsource.resolve_commit(git.gitdir, rev)
        return git, commit, git.files(commit.sha, subdir), git.read
    root = os.path.join(os.path.abspath(source), subdir) if subdir else os.path.abspath(source)
    if not os.path.isdir(root):
        raise OptionError("not a directory: %s" % root)
    files, data = directory_files(root, walk)
    return None, None, files, data.__getitem__


def _punstats_calls(files: List[Any], results: Dict[str, Any]) -> Tuple[List[Tuple[str, Any]], List[str]]:
    """Corrected: punstats' definition over the same files (full traversal, no stale tree):
    ([(path, call occurrence)], paths punstats cannot parse either)."""
    occurrences = []
    extract_failed = []
    for f in files:
        if not f.blob:
            continue
        extraction = from_plain(results[f.blob]["extract"], f.path)
        if extraction.record.status != "ok":
            extract_failed.append(f.path)
        for o in extraction.occurrences:
            if o.kind == "call":
                occurrences.append((f.path, o))
    return occurrences, extract_failed


def _breakdown(replay: Any, occurrences: List[Tuple[str, Any]], quirks_used: compat.Quirks, rule: Any,
               long_threshold: int, compat_triple: Triple, corrected: Triple) -> Dict[str, Dict[str, int]]:
    """Per number: compat - stale + nested (same test rule) + test rule = corrected, and the rest."""
    stale_lines = [ln for ln in replay.lines if ln.stale]
    stale = count_lines(stale_lines, rule, long_threshold)
    nested = [(p, o) for p, o in occurrences if o.depth > 0]
    nested_lines = [compat.Line(p, o.call_line, o.call_col, o.callee, o.name, p, True) for p, o in nested]
    nested_t = count_lines(nested_lines, rule, long_threshold) if not quirks_used.descend else Triple(0, 0, 0)
    same_rule = count_lines([compat.Line(p, o.call_line, o.call_col, o.callee, o.name, p, o.depth > 0)
                             for p, o in occurrences], rule, long_threshold)
    test_delta = corrected.long_nontest - same_rule.long_nontest
    expected = Triple(compat_triple.total - stale.total + nested_t.total,
                      compat_triple.long - stale.long + nested_t.long,
                      compat_triple.long_nontest - stale.long_nontest + nested_t.long_nontest + test_delta)
    return {
        "stale_double_counts": {k: -v for k, v in stale.as_dict().items()},
        "nested_calls_missed": nested_t.as_dict(),
        "test_rule": {"total": 0, "long": 0, "long_nontest": test_delta},
        "other": {k: getattr(corrected, k) - getattr(expected, k) for k in ("total", "long", "long_nontest")},
    }
