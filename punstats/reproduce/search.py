"""The revision search: every configuration of Angelico's counting over a window of commits.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from punstats.cache import BlobCache
from punstats.engines import interp
from punstats.extract import compat
from punstats.model.errors import OptionError
from punstats.reproduce.angelico import published_triple
from punstats.reproduce.replay import (
    SEARCH_RULES,
    GitSource,
    LineRule,
    SourceFile,
    Triple,
    compat_results,
    parse_line_rule,
)
from punstats.sources import git as gitsource
from punstats.store.rules import (
    DEFAULT_LONG_THRESHOLD,
)


@dataclass(frozen=True)
class SearchConfig:
    directory: str
    python: str
    quirks: str  # label of the quirks
    test_rule: str
    long_threshold: int

    def as_dict(self) -> Dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class SearchHit:
    config: SearchConfig
    triple: Triple
    distance: int
    first: gitsource.Commit
    last: gitsource.Commit
    commits: int

    def as_dict(self) -> Dict[str, Any]:
        return {"configuration": self.config.as_dict(), "counts": self.triple.as_dict(),
                "distance": self.distance, "commits": self.commits,
                "first": {"commit": self.first.sha, "date": self.first.date},
                "last": {"commit": self.last.sha, "date": self.last.date}}


#: Quirk sets the search tries (the walk is always sorted: a revision has no fs order).
SEARCH_QUIRKS = (
    compat.Quirks(walk="sorted"),
    compat.Quirks(walk="sorted", stale_tree=False),
    compat.Quirks(walk="sorted", descend=True),
    compat.Quirks(walk="sorted", descend=True, stale_tree=False),
)


def _blob_summary(result: Dict[str, Any], min_len: int) -> Dict[str, Any]:
    """Per visiting mode: number of lines and the long ones (arg length, rest of line)."""
    if not result["ok"]:
        return {"ok": False}
    summary: Dict[str, Any] = {"ok": True, "crash": bool(result.get("crash"))}
    for mode in ("top", "all"):
        ms = [m for m in result["matches"] if mode == "all" or not m[4]]
        summary[mode] = (len(ms), [(len(m[3]), "%d:%d: %s(%s=%s)" % (m[0], m[1], m[2], m[3], m[3]))
                                   for m in ms if len(m[3]) >= min_len])
    return summary


def _replay_counts(order: Sequence[Tuple[str, str]], blobs: Dict[str, Dict[str, Any]],
                   quirks: compat.Quirks, rules: Sequence[LineRule],
                   thresholds: Sequence[int]) -> Optional[Dict[Tuple[str, int], Triple]]:
    """``compat.run`` + ``count_lines`` for many rules at once, from blob summaries; None: crash."""
    mode = "all" if quirks.descend else "top"
    total = 0
    long_lines: List[Tuple[str, int, str]] = []  # (printed path, arg length, rest)
    previous = None
    for path, blob in order:
        s = blobs.get(blob) if blob else None
        if s is None:
            return None
        if not s["ok"]:
            if not quirks.stale_tree:
                continue
            if previous is None:
                return None
            s = previous
        elif s["crash"]:
            return None
        else:
            previous = s
        n, longs = s[mode]
        total += n
        long_lines.extend((path, length, rest) for length, rest in longs)
    out = {}
    for t in thresholds:
        selected = [x for x in long_lines if x[1] >= t]
        for rule in rules:
            kept = sum(1 for p, _, rest in selected if not rule.removes(p, rest))
            out[(rule.label, t)] = Triple(total, len(selected), kept)
    return out


def angelico_search(source: str, since: str, until: str, *, branch: str = "HEAD",
                    pythons: Sequence[Optional[str]] = (None,), directories: Sequence[str] = ("", "Lib"),
                    test_rules: Sequence[str] = SEARCH_RULES,
                    thresholds: Sequence[int] = (DEFAULT_LONG_THRESHOLD,),
                    quirk_sets: Sequence[compat.Quirks] = SEARCH_QUIRKS, nearest: int = 10,
                    cache: Optional[BlobCache] = None, target: Optional[Triple] = None,
                    progress: Optional[Callable[[str, int, int], None]] = None) -> Dict[str, Any]:
    """Every configuration x first-parent commit in [since, until]; exact hits as commit
    windows, else the ``nearest`` configurations by L1 distance to the published triple
    (``target``: another triple to look for)."""
    target = target or published_triple()
    rules = [parse_line_rule(r) for r in test_rules]
    git = GitSource(source)
    note = progress or (lambda what, done, total: None)
    try:
        commits = gitsource.first_parent_commits(git.gitdir, branch, since, until)
        if not commits:
            raise OptionError("no first-parent commits of %s between %s and %s" % (branch, since, until))
        trees, all_files = _trees(git, commits, directories, note)
        min_len = min(thresholds)
        hits: Dict[SearchConfig, List[Tuple[int, Triple]]] = {}
        parsers = []
        for python in pythons:
            with interp.Pool(python) as pool:
                parsers.append(pool.parser)
                counter = [0]

                def tick(n: int, counter: List[int] = counter, parser: str = pool.parser) -> None:
                    counter[0] += n
                    note("blobs " + parser, counter[0], len(all_files))
                results = compat_results(pool, list(all_files.values()), git.read, cache,
                                          progress=tick)
            summaries = {b: _blob_summary(r["compat"], min_len) for b, r in results.items()}
            for i, per_dir in enumerate(trees):
                for d, order in per_dir.items():
                    for quirks in quirk_sets:
                        counts = _replay_counts(order, summaries, quirks, rules, thresholds)
                        if counts is None:
                            continue
                        for (rule_label, t), triple in counts.items():
                            cfg = SearchConfig(d or ".", pool.parser, quirks.label, rule_label, t)
                            hits.setdefault(cfg, []).append((i, triple))
                note("replay " + pool.parser, i + 1, len(trees))
    finally:
        git.close()
    exact, best = _ranked(hits, commits, target)
    return {
        "published": target.as_dict(),
        "window": {"since": since, "until": until, "branch": branch, "commits": len(commits),
                   "first": commits[0].sha, "last": commits[-1].sha},
        "parsers": parsers, "directories": [d or "." for d in directories],
        "test_rules": [r.label for r in rules], "quirks": [q.label for q in quirk_sets],
        "thresholds": list(thresholds), "distinct_blobs": len(all_files),
        "exact": [h.as_dict() for h in exact],
        "nearest": [h.as_dict() for h in best[:nearest]],
    }


def _trees(git: GitSource, commits: Sequence[gitsource.Commit], directories: Sequence[str],
           note: Callable[[str, int, int], None]
           ) -> Tuple[List[Dict[str, List[Tuple[str, str]]]], Dict[str, SourceFile]]:
    """Per commit and directory, the (path, blob) pairs in sorted walk order; every distinct blob."""
    trees: List[Dict[str, List[Tuple[str, str]]]] = []
    all_files: Dict[str, SourceFile] = {}
    for i, c in enumerate(commits):
        entries = gitsource.list_tree(git.gitdir, c.sha)
        per_dir = {}
        for d in directories:
            files = git.files(c.sha, d, entries)
            for f in files:
                all_files.setdefault(f.blob, f)
            by = {f.path: f.blob for f in files}
            per_dir[d] = [(p, by[p]) for p in compat.sorted_walk_order(list(by))]
        trees.append(per_dir)
        note("trees", i + 1, len(commits))
    return trees, all_files


def _ranked(hits: Dict[SearchConfig, List[Tuple[int, Triple]]], commits: Sequence[gitsource.Commit],
            target: Triple) -> Tuple[List[SearchHit], List[SearchHit]]:
    """(the exact hits by date, each configuration's nearest window by distance)."""
    exact: List[SearchHit] = []
    best: List[SearchHit] = []
    for cfg, series in hits.items():
        windows = _windows(series)
        for start, end, triple in windows:
            hit = SearchHit(cfg, triple, triple.distance(target), commits[start], commits[end], end - start + 1)
            if hit.distance == 0:
                exact.append(hit)
        nearest_window = min(windows, key=lambda w: (w[2].distance(target), -w[1]))
        s, e, triple = nearest_window
        best.append(SearchHit(cfg, triple, triple.distance(target), commits[s], commits[e], e - s + 1))
    best.sort(key=lambda h: (h.distance, h.config.directory, h.config.python, h.config.quirks,
                             h.config.test_rule))
    exact.sort(key=lambda h: (h.first.date, h.config.directory, h.config.quirks, h.config.test_rule))
    return exact, best


def _windows(series: Sequence[Tuple[int, Triple]]) -> List[Tuple[int, int, Triple]]:
    """Runs of consecutive commits with the same counts: (first index, last index, counts)."""
    out: List[Tuple[int, int, Triple]] = []
    for i, triple in series:
        if out and out[-1][2] == triple and out[-1][1] == i - 1:
            out[-1] = (out[-1][0], i, triple)
        else:
            out.append((i, i, triple))
    return out

