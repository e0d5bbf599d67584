"""Reproducing published figures: Angelico's 3858 / 525 / 310 and PEP 736's table.

The published numbers are read from ``published.json`` (with their sources)
and only ever compared with.  ``angelico`` replays ``find_kwargs.py``
(``compat``) over one revision and sets its numbers beside punstats'
corrected ones, with the difference broken down; ``angelico_search`` sweeps
first-parent commits and configurations for the published triple;
``pep736`` measures each project under several candidate definitions.
Per-blob work goes through ``interp`` and the ``cache``.
"""
from __future__ import annotations

import json
import os
import re
import threading
from dataclasses import asdict, dataclass, field
from importlib import resources
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from punstats import compat, gitsource, interp
from punstats.cache import BlobCache, blob_id
from punstats.classify import DEFAULT_LONG_THRESHOLD, DEFAULT_TEST_RULE, TestRule, parse_test_rule
from punstats.discover import read_source
from punstats.extract import KIND_CALL, Occurrence, decode_source, from_plain

EXTENSIONS = (".py",)


def published() -> Dict[str, Any]:
    """The published figures and their sources (``published.json``)."""
    with resources.files("punstats").joinpath("published.json").open(encoding="utf-8") as handle:
        return json.load(handle)


# --- test rules over printed lines ------------------------------------------------------------

@dataclass(frozen=True)
class LineRule:
    """What "eliminating the unit tests" removed from his output.

    ``path``/``line``/``name``: the rule looks at the printed path, the whole
    printed line (``grep -v``), or the bare file name (what the first version
    printed).  ``rule``: a punstats ``TestRule`` (``substring`` = contains
    ``test``; ``regex:RE``; ``components``; ``none``).
    """

    target: str
    rule: TestRule

    @property
    def label(self) -> str:
        if self.rule.name == "none":
            return "none"
        return "%s:%s" % (self.target, self.rule.label)

    def removes(self, path: str, rest: str) -> bool:
        if self.target == "path":
            return self.rule.is_test(path)
        if self.target == "name":
            return self.rule.is_test(path.rsplit("/", 1)[-1])
        # the whole printed line "./PATH:L:C: CALLEE(ARG=ARG)"; components make no sense here
        text = "./%s:%s" % (path, rest)
        if self.rule.name == "substring":
            return "test" in text
        if self.rule.name == "regex":
            return re.search(self.rule.pattern, text) is not None
        return self.rule.is_test(path)


def parse_line_rule(text: str) -> LineRule:
    """``[path:|line:|name:]RULE``; RULE as for ``--test-rule`` (default target: path)."""
    target = "path"
    for prefix in ("path:", "line:", "name:"):
        if text.startswith(prefix):
            target, text = prefix[:-1], text[len(prefix):]
            break
    return LineRule(target, parse_test_rule(text))


#: Rules the search tries: grep -v test over the path, the line, the bare name; punstats' default.
#: What "eliminating the unit tests" may have meant, tried by the revision search: a grep for
#: ``test`` on the path, the printed line or the file name; punstats' default rule; and dropping
#: the test directories (CPython's ``Lib/test/``, or any ``test/`` or ``tests/``).
SEARCH_RULES = ("path:substring", "line:substring", "name:substring", "path:components",
                "path:regex:^(\\./)?Lib/test/", "path:regex:/tests?/")


# --- files of a revision or a directory --------------------------------------------------------

@dataclass(frozen=True)
class SourceFile:
    path: str  # relative to the scanned directory, POSIX
    blob: str  # git blob id of the bytes; "" when unreadable (a broken link)


def _resolve_link(entries_by_path: Dict[str, gitsource.TreeEntry], entry: gitsource.TreeEntry,
                  reader: Callable[[str], bytes], depth: int = 0) -> str:
    """The blob a symbolic link in the tree ends at, as ``open`` would; "" if none."""
    if depth > 40:
        return ""
    target = reader(entry.oid).decode("utf-8", "surrogateescape")
    base = entry.path.rpartition("/")[0]
    joined = os.path.normpath(os.path.join(base, target)).replace(os.sep, "/")
    found = entries_by_path.get(joined)
    if found is None or found.kind != "blob":
        return ""
    if found.mode == gitsource.MODE_SYMLINK:
        return _resolve_link(entries_by_path, found, reader, depth + 1)
    return found.oid


class GitSource:
    """A repository read through one ``cat-file --batch`` process (thread-safe)."""

    def __init__(self, path: str) -> None:
        self.gitdir = gitsource.git_dir(path)
        self._reader: Optional[gitsource.BlobReader] = None
        self._lock = threading.Lock()

    def read(self, oid: str) -> bytes:
        with self._lock:
            if self._reader is None:
                self._reader = gitsource.BlobReader(self.gitdir)
            return self._reader.read(oid)

    def files(self, commit: str, subdir: str = "",
              entries: Optional[List[gitsource.TreeEntry]] = None) -> List[SourceFile]:
        """Every ``*.py`` of ``commit`` below ``subdir`` (all of them: his walk excluded nothing)."""
        entries = entries if entries is not None else gitsource.list_tree(self.gitdir, commit)
        prefix = subdir.strip("/") + "/" if subdir else ""
        by_path = {e.path: e for e in entries}
        out = []
        for e in entries:
            if not e.path.startswith(prefix) or not e.path.endswith(EXTENSIONS) or e.kind != "blob":
                continue
            blob = _resolve_link(by_path, e, self.read) if e.mode == gitsource.MODE_SYMLINK else e.oid
            out.append(SourceFile(e.path[len(prefix):], blob))
        return out

    def close(self) -> None:
        if self._reader is not None:
            self._reader.close()


def directory_files(root: str, walk: str) -> Tuple[List[SourceFile], Dict[str, bytes]]:
    """Files of a checkout in ``os.walk`` order (``fs``) or sorted walk order, with their bytes."""
    order = compat.fs_walk_order(root, EXTENSIONS)
    if walk == "sorted":
        order = compat.sorted_walk_order(order)
    files, data = [], {}
    for rel in order:
        try:
            raw = read_source(os.path.realpath(os.path.join(root, rel)))
        except OSError:
            files.append(SourceFile(rel, ""))
            continue
        blob = blob_id(raw)
        data[blob] = raw
        files.append(SourceFile(rel, blob))
    return files, data


# --- counting ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Triple:
    total: int
    long: int
    long_nontest: int

    def distance(self, other: "Triple") -> int:
        return abs(self.total - other.total) + abs(self.long - other.long) + \
            abs(self.long_nontest - other.long_nontest)

    def as_dict(self) -> Dict[str, int]:
        return {"total": self.total, "long": self.long, "long_nontest": self.long_nontest}


def count_lines(lines: Iterable[compat.Line], rule: LineRule, threshold: int) -> Triple:
    lines = list(lines)
    long = [ln for ln in lines if len(ln.arg) >= threshold]
    kept = [ln for ln in long if not rule.removes(ln.path, "%d:%d: %s(%s=%s)" % (
        ln.line, ln.col, ln.callee, ln.arg, ln.arg))]
    return Triple(len(lines), len(long), len(kept))


def _compat_results(pool: interp.Pool, files: Sequence[SourceFile], read: Callable[[str], bytes],
                    cache: Optional[BlobCache], modes: Sequence[str] = ("compat",),
                    progress: Optional[Callable[[int], None]] = None) -> Dict[str, Dict[str, Any]]:
    """{blob: {mode: result}} for the distinct readable blobs of ``files``."""
    blobs = sorted({f.blob for f in files if f.blob})
    items = [(b, b, (lambda b=b: read(b))) for b in blobs]
    done = interp.work_many(pool, items, list(modes), cache=cache, progress=progress)
    return dict(zip(blobs, done))


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


def _published_triple() -> Triple:
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
    git: Optional[GitSource] = None
    commit = None
    if rev is not None:
        walk = walk or "sorted"
        if walk == "fs":
            raise ValueError("--walk fs needs a checked-out directory (a revision has no file-system order)")
        git = GitSource(source)
        commit = gitsource.resolve_commit(git.gitdir, rev)
        files = git.files(commit.sha, subdir)
        read = git.read
        root = git.gitdir
    else:
        walk = walk or "fs"
        root = os.path.join(os.path.abspath(source), subdir) if subdir else os.path.abspath(source)
        if not os.path.isdir(root):
            raise ValueError("not a directory: %s" % root)
        files, data = directory_files(root, walk)
        read = data.__getitem__
    order = [f.path for f in files]
    if git is not None:
        order = compat.sorted_walk_order(order)
    by_path = {f.path: f for f in files}
    quirks_used = compat.profile(profile, walk=walk, **(quirks or {}))
    try:
        with interp.Pool(python) as pool:
            results = _compat_results(pool, files, read, cache, ("compat", "extract"), progress)
            parser = pool.parser
    finally:
        if git is not None:
            git.close()
    walked = [(p, results[by_path[p].blob]["compat"] if by_path[p].blob else None) for p in order]
    replay = compat.run(walked, quirks_used)
    compat_triple = count_lines(replay.lines, rule, long_threshold)

    # corrected: punstats' definition over the same files (full traversal, no stale tree,
    # punstats' default test rule); failures are files punstats cannot parse either
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
    long = [(p, o) for p, o in occurrences if o.name_len >= long_threshold]
    corrected = Triple(len(occurrences), len(long),
                       sum(1 for p, _ in long if not DEFAULT_TEST_RULE.is_test(p)))

    # the breakdown, per number: compat - stale + nested (same test rule) + test rule = corrected
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
    breakdown = {
        "stale_double_counts": {k: -v for k, v in stale.as_dict().items()},
        "nested_calls_missed": nested_t.as_dict(),
        "test_rule": {"total": 0, "long": 0, "long_nontest": test_delta},
        "other": {k: getattr(corrected, k) - getattr(expected, k) for k in ("total", "long", "long_nontest")},
        "parse_failures": {"files": len(replay.failures), "stale_visits": len(replay.stale_visits),
                           "punstats_failures": len(extract_failed)},
    }
    configuration = {
        "source": source, "rev": rev, "commit": commit.sha if commit else "",
        "commit_date": commit.date if commit else "", "directory": subdir or ".",
        "python": parser, "profile": profile, "quirks": asdict(quirks_used),
        "test_rule": rule.label, "corrected_test_rule": DEFAULT_TEST_RULE.label,
        "long_threshold": long_threshold, "files": len(files),
    }
    return Reproduction(configuration, _published_triple(), compat_triple, corrected, breakdown,
                        replay.failures, replay.crash,
                        tuple(ln.text(quirks_used.path_style) for ln in replay.lines),
                        replay.stats_text())


# --- the revision search ----------------------------------------------------------------------

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
    target = target or _published_triple()
    rules = [parse_line_rule(r) for r in test_rules]
    git = GitSource(source)
    note = progress or (lambda what, done, total: None)
    try:
        commits = gitsource.first_parent_commits(git.gitdir, branch, since, until)
        if not commits:
            raise ValueError("no first-parent commits of %s between %s and %s" % (branch, since, until))
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
        min_len = min(thresholds)
        hits: Dict[SearchConfig, List[Tuple[int, Triple]]] = {}
        parsers = []
        for python in pythons:
            with interp.Pool(python) as pool:
                parsers.append(pool.parser)
                counter = [0]

                def tick(n: int) -> None:
                    counter[0] += n
                    note("blobs " + pool.parser, counter[0], len(all_files))
                results = _compat_results(pool, list(all_files.values()), git.read, cache,
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


def _windows(series: Sequence[Tuple[int, Triple]]) -> List[Tuple[int, int, Triple]]:
    """Runs of consecutive commits with the same counts: (first index, last index, counts)."""
    out: List[Tuple[int, int, Triple]] = []
    for i, triple in series:
        if out and out[-1][2] == triple and out[-1][1] == i - 1:
            out[-1] = (out[-1][0], i, triple)
        else:
            out.append((i, i, triple))
    return out


# --- PEP 736 ----------------------------------------------------------------------------------

PUNNING_SUBJECT = re.compile(r"\bpun(ning|ned)?\b", re.IGNORECASE)


def _punning_commit(gitdir: str, rev: Optional[str]) -> Tuple[Optional[gitsource.Commit], gitsource.Commit]:
    """(punning commit or None, the commit to count in).  With ``rev`` naming a punning
    commit (subject mentions punning) or no ``rev`` and such a commit in the repository,
    counting happens in its first parent: the code before punning."""
    if rev is None:
        out = gitsource._git(gitdir, "log", "--all", "-i", "--grep=punning", "--no-merges",
                             "--format=%H").decode().split()
        if not out:
            return None, gitsource.resolve_commit(gitdir, "HEAD")
        rev = out[-1]
    commit = gitsource.resolve_commit(gitdir, rev)
    if PUNNING_SUBJECT.search(commit.subject):
        return commit, gitsource.resolve_commit(gitdir, commit.sha + "^")
    return None, commit


def lines_saved(gitdir: str, commit: str, extensions: Tuple[str, ...] = ()) -> Dict[str, int]:
    """Deleted minus inserted lines of ``commit`` against its first parent (``extensions``: only
    those files), with the counts of ``x=x`` -> ``x=`` rewrites in the diff."""
    out = gitsource._git(gitdir, "diff", "--numstat", "-z", "--no-renames", commit + "^", commit)
    added = deleted = files = 0
    for record in out.decode("utf-8", "replace").split("\0"):
        parts = record.strip("\n").split("\t")
        if len(parts) < 3 or parts[0] == "-":
            continue
        if extensions and not parts[2].endswith(extensions):
            continue
        added += int(parts[0])
        deleted += int(parts[1])
        files += 1
    return {"insertions": added, "deletions": deleted, "saved": deleted - added, "files": files}


_LINE_SPLIT = re.compile(r"\r\n|\r|\n")
_BARE_PUN = re.compile(r"(\w+)\s*=\s*(\w+)")


def text_delimited(lines: Sequence[str], occ: Occurrence) -> bool:
    """Whether a ``call`` occurrence is, as text, a bare ``x=x`` (spaces around ``=`` allowed, no
    parentheses around the value) that follows ``(`` or ``,`` and precedes ``,`` or ``)`` with
    only whitespace (line breaks included) in between: a comment before or after the keyword, or
    a parenthesised value, makes it fail.  This is what the PEP 736 author's punning commits
    rewrote (a comment-free ``[(,]\\s*x\\s*=\\s*x\\s*[,)]`` at the keyword's place)."""
    first, last = occ.line - 1, occ.end_line - 1
    if not (0 <= first <= last < len(lines)):
        return False
    if first == last:
        text = lines[first][occ.col:occ.end_col]
    else:
        text = "\n".join([lines[first][occ.col:]] + list(lines[first + 1:last]) + [lines[last][:occ.end_col]])
    m = _BARE_PUN.fullmatch(text)
    if not m or m.group(1) != occ.name or m.group(2) != occ.name:
        return False
    before = lines[first][:occ.col].rstrip()
    i = first
    while not before and i > 0:
        i -= 1
        before = lines[i].rstrip()
    after = lines[last][occ.end_col:].lstrip()
    j = last
    while not after and j + 1 < len(lines):
        j += 1
        after = lines[j].lstrip()
    return before.endswith(("(", ",")) and after.startswith((",", ")"))


def pep736(sources: Dict[str, str], *, python: Optional[str] = None,
           cache: Optional[BlobCache] = None) -> Dict[str, Any]:
    """Per project (``SOURCE`` or ``SOURCE@REV``): punstats' numbers under the candidate
    definitions, beside the published row."""
    table = published()["pep736"]["projects"]
    out: Dict[str, Any] = {}
    for project, spec in sources.items():
        path, _, rev = spec.partition("@") if "@" in spec and not os.path.exists(spec) else (spec, "", "")
        gitdir = gitsource.git_dir(path)
        pun, base = _punning_commit(gitdir, rev or None)
        git = GitSource(path)
        counts = {"punnable": 0, "punnable_top": 0, "punnable_text": 0, "class_punnable": 0,
                  "keywords": 0, "double_star": 0, "files": 0, "failed": 0}
        try:
            files = git.files(base.sha)
            counts["files"] = len(files)
            with interp.Pool(python) as pool:
                results = _compat_results(pool, files, git.read, cache, ("extract", "compat"))
                parser = pool.parser
            for f in files:
                if not f.blob:
                    continue
                ex = from_plain(results[f.blob]["extract"], f.path)
                if ex.record.status != "ok" or not ex.record.punnable:
                    continue
                lines = _LINE_SPLIT.split(decode_source(git.read(f.blob))[0])
                counts["punnable_text"] += sum(1 for o in ex.occurrences
                                               if o.kind == KIND_CALL and text_delimited(lines, o))
        finally:
            git.close()
        for f in files:
            if not f.blob:
                continue
            r = results[f.blob]
            rec = from_plain(r["extract"], f.path).record
            if rec.status != "ok":
                counts["failed"] += 1
                continue
            counts["punnable"] += rec.punnable
            counts["class_punnable"] += rec.class_punnable
            counts["keywords"] += rec.keywords
            counts["double_star"] += rec.double_star
            c = r["compat"]
            if c.get("ok"):
                counts["punnable_top"] += sum(1 for m in c["matches"] if not m[4])
        definitions = {
            "count: all calls": counts["punnable"],
            "count: calls + class keywords": counts["punnable"] + counts["class_punnable"],
            "count: top-level calls only (find_kwargs 2023-10)": counts["punnable_top"],
            "count: bare x=x after ( or , before , or )":
                counts["punnable_text"],
        }
        k, ks = counts["keywords"], counts["keywords"] + counts["double_star"]
        percents = {
            "percent: / named keywords": round(100.0 * counts["punnable"] / k, 2) if k else 0.0,
            "percent: / keywords incl. **": round(100.0 * counts["punnable"] / ks, 2) if ks else 0.0,
        }
        saved = {}
        if pun is not None:
            saved["lines saved: .py files"] = lines_saved(gitdir, pun.sha, (".py",))["saved"]
            saved["lines saved: all files"] = lines_saved(gitdir, pun.sha)["saved"]
        row = table.get(project, {})
        reproduced = {
            "count": _closest(definitions, row.get("count")),
            "percent": _closest(percents, row.get("percent")),
            "lines_saved": _closest(saved, row.get("lines_saved")) if saved else None,
        }
        out[project] = {
            "published": row, "reproduced": reproduced,
            "definitions": {**definitions, **percents, **saved},
            "counts": counts, "commit": base.sha, "commit_date": base.date,
            "punning_commit": pun.sha if pun else "", "python": parser, "source": spec,
        }
    return out


def _closest(candidates: Dict[str, Any], target: Any) -> Optional[Dict[str, Any]]:
    """The candidate definition closest to the published value (first on ties)."""
    if not candidates:
        return None
    if target is None:
        name = next(iter(candidates))
    else:
        name = min(candidates, key=lambda n: abs(candidates[n] - target))
    return {"value": candidates[name], "definition": name,
            "matches": target is not None and candidates[name] == target}
