"""Reproducing PEP 736's applicability tables, for any project.

Each project is a git repository, optionally at a revision.  Without one,
its punning commit (the PEP author's "Add punning", "With punning" or
"Apply sugar") is found and its parent measured; a punning commit also
gives the lines saved.  The published rows come from ``published.json``
(both tables of the PEP) and are only ever compared with: ``reproduced``
holds the numbers of fixed definitions (``REPRODUCED``), the definition
search (``punstats.reproduce.definitions``, ``search=True``) every other
definition, and which of them hit the published value.  Per-blob work runs
under the chosen interpreter (``engines.interp``) and goes through the cache.
"""
from __future__ import annotations

import os
import re
from typing import Any, Dict, List, Optional, Tuple

from punstats.cache import BlobCache
from punstats.engines import interp
from punstats.extract import compat
from punstats.model.records import from_plain
from punstats.reproduce import definitions as defs
from punstats.reproduce.published import published
from punstats.reproduce.replay import GitSource, SourceFile, compat_results
from punstats.sources import git as gitsource
from punstats.sources import gitdiff

#: A punning commit's subject: the PEP author's "Add punning" (pandas), "With punning" (numpy),
#: "Apply sugar" (the 2024 forks).
PUNNING_SUBJECT = re.compile(r"\bpun(ning|ned)?\b|\bapply sugar\b", re.IGNORECASE)


#: What ``git rev-list --grep`` looks for before ``PUNNING_SUBJECT`` decides.
_GREPS = ("punning", "punned", "apply sugar")


#: The definitions ``reproduced`` reports: the PEP's count is the bare x=x the author's commits
#: rewrote, at every depth; its percentage is find_kwargs.py 2023-10-23's "Num params where
#: x=x" (top-level calls, ``**`` in the denominator); lines saved are the commit's net lines.
REPRODUCED = {
    "count": "bare x=x after ( or , before , or ), all calls, every .py",
    "percent": "find_kwargs.py 2023-10-23: Num params where x=x / Total keyword params",
    "lines_saved": "the punning commit: deleted minus inserted lines, every file",
}


def published_rows() -> Dict[str, Dict[str, Any]]:
    """Project -> its published row (count, percent, lines_saved, table), from both tables."""
    data = published()
    rows: Dict[str, Dict[str, Any]] = {}
    for key in ("pep736", "pep736-2024"):
        for name, row in data.get(key, {}).get("projects", {}).items():
            rows[name] = dict(row, table=key)
    return rows


def split_spec(spec: str) -> Tuple[str, str]:
    """``SRC[@REV]`` -> (SRC, REV or ''); an existing path holding ``@`` is a path."""
    if "@" in spec and not os.path.exists(spec):
        path, _, rev = spec.rpartition("@")
        return path, rev
    return spec, ""


def punning_commit(gitdir: str, rev: Optional[str]) -> Tuple[Optional[gitsource.Commit], gitsource.Commit]:
    """(punning commit or None, the commit to count in).  With ``rev`` naming a punning commit
    (its subject mentions punning, or "Apply sugar"), or no ``rev`` and such a commit anywhere in
    the repository (the oldest), counting happens in its first parent: the code before punning."""
    if rev is None:
        shas = sorted({sha for pattern in _GREPS for sha in gitsource.grep_commits(gitdir, pattern)})
        found = [c for c in (gitsource.resolve_commit(gitdir, sha) for sha in shas)
                 if PUNNING_SUBJECT.search(c.subject)]
        if not found:
            return None, gitsource.resolve_commit(gitdir, "HEAD")
        rev = min(found, key=lambda c: (c.date, c.sha)).sha  # the oldest
    commit = gitsource.resolve_commit(gitdir, rev)
    if PUNNING_SUBJECT.search(commit.subject):
        return commit, gitsource.resolve_commit(gitdir, commit.sha + "^")
    return None, commit


def numstat(gitdir: str, commit: str) -> Dict[str, int]:
    """Path -> deleted minus inserted lines of ``commit`` against its first parent (binary
    files left out)."""
    return {path: int(deleted) - int(added)
            for added, deleted, path in gitdiff.numstat(gitdir, commit + "^", commit) if added != "-"}


def lines_saved(gitdir: str, commit: str, extensions: Tuple[str, ...] = ()) -> Dict[str, int]:
    """Net lines of ``commit`` (``extensions``: only those files) and the files counted."""
    per_path = {p: n for p, n in numstat(gitdir, commit).items() if not extensions or p.endswith(extensions)}
    return {"saved": sum(per_path.values()), "files": len(per_path)}


def _tree_files(git: GitSource, sha: str) -> List[SourceFile]:
    """Every ``.py`` (links resolved, as ``open`` would) and every regular ``.pyi`` of ``sha``."""
    entries = gitsource.list_tree(git.gitdir, sha)
    stubs = [SourceFile(e.path, e.oid) for e in entries
             if e.path.endswith(".pyi") and e.kind == "blob" and e.mode != gitsource.MODE_SYMLINK]
    return git.files(sha, "", entries) + stubs


def _measure(git: GitSource, sha: str, python: Optional[str], cache: Optional[BlobCache]
             ) -> Tuple[List[SourceFile], Dict[str, Dict[str, Any]], str]:
    """(files, {blob: {extract, compat, definitions}}, parser label) of one revision."""
    files = _tree_files(git, sha)
    with interp.Pool(python) as pool:
        results = compat_results(pool, files, git.read, cache, ("extract", "compat", "definitions"))
        return files, results, pool.parser


def _counts(files: List[SourceFile], results: Dict[str, Dict[str, Any]]) -> Dict[str, int]:
    """punstats' own totals over the ``.py`` files (``extract``)."""
    counts = dict.fromkeys(("punnable", "class_punnable", "keywords", "double_star", "files", "failed"), 0)
    for f in files:
        if not f.path.endswith(".py"):
            continue
        counts["files"] += 1
        if not f.blob:
            continue
        rec = from_plain(results[f.blob]["extract"], f.path).record
        if rec.status != "ok":
            counts["failed"] += 1
            continue
        for key in ("punnable", "class_punnable", "keywords", "double_star"):
            counts[key] += getattr(rec, key)
    return counts


def _order(files: List[SourceFile], results: Dict[str, Dict[str, Any]]
           ) -> List[Tuple[str, Optional[Dict[str, Any]]]]:
    """(path, compat result) of the ``.py`` files in sorted walk order (None: unreadable)."""
    by_path = {f.path: f.blob for f in files if f.path.endswith(".py")}
    return [(p, results[by_path[p]]["compat"] if by_path[p] else None)
            for p in compat.sorted_walk_order(list(by_path))]


def _per_file(files: List[SourceFile], results: Dict[str, Dict[str, Any]]) -> Dict[str, Dict[str, Any]]:
    return {f.path: results[f.blob]["definitions"] for f in files if f.blob}


def _fixed(per_file: Dict[str, Dict[str, Any]], order, saved: Optional[Dict[str, int]]) -> Dict[str, Any]:
    """The values of the ``REPRODUCED`` definitions (None where there is nothing to measure)."""
    py = [c for p, c in per_file.items() if p.endswith(".py") and c.get("ok")]
    count = sum(defs.NUMERATORS["bare x=x after ( or , before , or )"](c, "all") for c in py)
    run = compat.run(order, compat.profile("angelico-2023-10-23", walk="sorted"))
    pct = None if run.crash else defs.percent(run.stats["MatchCount"], run.stats["KwCount"])
    return {"count": count, "percent": pct, "lines_saved": sum(saved.values()) if saved is not None else None}


def _definitions(counts: Dict[str, int], per_file, saved: Optional[Dict[str, int]]) -> Dict[str, Any]:
    """The main candidate definitions, by name."""
    py = [c for p, c in per_file.items() if p.endswith(".py") and c.get("ok")]
    top = sum(defs.NUMERATORS["punnable (punstats)"](c, "top") for c in py)
    delimited = sum(defs.NUMERATORS["bare x=x after ( or , before , or )"](c, "all") for c in py)
    k, ks = counts["keywords"], counts["keywords"] + counts["double_star"]
    out: Dict[str, Any] = {
        "count: all calls": counts["punnable"],
        "count: calls + class keywords": counts["punnable"] + counts["class_punnable"],
        "count: top-level calls only (find_kwargs 2023-10)": top,
        "count: bare x=x after ( or , before , or )": delimited,
        "percent: / named keywords": defs.percent(counts["punnable"], k) or 0.0,
        "percent: / keywords incl. **": defs.percent(counts["punnable"], ks) or 0.0,
    }
    if saved is not None:
        out["lines saved: .py files"] = sum(n for p, n in saved.items() if p.endswith(".py"))
        out["lines saved: all files"] = sum(saved.values())
    return out


def rewrite_estimates(git: GitSource, files: List[SourceFile]) -> Dict[str, Dict[str, int]]:
    """Label -> {path: lines saved} of ``rewrite --rewrap`` on every ``.py`` file (in memory,
    parsed by the running interpreter), with and without ``--delimited-only``."""
    from punstats.rewrite.transform import pun
    out: Dict[str, Dict[str, int]] = {"rewrite --rewrap": {}, "rewrite --rewrap --delimited-only": {}}
    for f in files:
        if not f.blob or not f.path.endswith(".py"):
            continue
        data = git.read(f.blob)
        if b"=" not in data:
            continue
        for label, only in (("rewrite --rewrap", False), ("rewrite --rewrap --delimited-only", True)):
            result = pun(data, f.path, rewrap=True, delimited_only=only)
            if result.joins:
                out[label][f.path] = result.lines_saved
    return out


def _search(git: GitSource, files, results, per_file, saved, row: Dict[str, Any]) -> Dict[str, Any]:
    counts, percents = defs.combinations(per_file)
    p_counts, p_percents = defs.profile_rows(_order(files, results))
    saved_rows: List[Dict[str, Any]] = []
    if saved is not None:
        saved_rows.extend(defs.saved_rows(saved, "the punning commit"))
    for label, per_path in rewrite_estimates(git, files).items():
        saved_rows.extend(defs.saved_rows(per_path, label))
    everything = "all files | " + " | ".join(next(iter(defs.file_sets(("tests", "docs", "extras")))).values())
    return {"count": defs.hits(counts + p_counts, row.get("count")),
            "percent": defs.hits(percents + p_percents, row.get("percent")),
            "lines_saved": dict(defs.hits(saved_rows, row.get("lines_saved")),
                                every_file={r["source"]: r["value"] for r in saved_rows if r["files"] == everything})}


def measure_project(spec: str, row: Dict[str, Any], python: Optional[str] = None,
                    cache: Optional[BlobCache] = None, search: bool = False) -> Dict[str, Any]:
    """One project (``SRC[@REV]``) against its published ``row`` (may be empty)."""
    path, rev = split_spec(spec)
    gitdir = gitsource.git_dir(path)
    pun, base = punning_commit(gitdir, rev or None)
    saved = numstat(gitdir, pun.sha) if pun is not None else None
    git = GitSource(path)
    try:
        files, results, parser = _measure(git, base.sha, python, cache)
        per_file = _per_file(files, results)
        reproduced = _fixed(per_file, _order(files, results), saved)
        counts = _counts(files, results)
        out: Dict[str, Any] = {
            "published": {k: row.get(k) for k in ("count", "percent", "lines_saved")},
            "reproduced": reproduced,
            "matches": {k: defs.printed_as(v, row.get(k)) for k, v in reproduced.items()},
            "reproduced_by": dict(REPRODUCED),
            "definitions": _definitions(counts, per_file, saved),
            "counts": counts, "commit": base.sha, "commit_date": base.date,
            "punning_commit": pun.sha if pun else "", "python": parser, "source": spec,
            "table": row.get("table", ""),
        }
        if search:
            out["search"] = _search(git, files, results, per_file, saved, row)
    finally:
        git.close()
    return out


def pep736(projects: Dict[str, str], *, python: Optional[str] = None, cache: Optional[BlobCache] = None,
           search: bool = False) -> Dict[str, Any]:
    """Per project name (``SRC`` or ``SRC@REV``): punstats' numbers beside the published row
    (a name without one, e.g. a project of your own, gets an empty row)."""
    rows = published_rows()
    return {name: measure_project(spec, rows.get(name, {}), python, cache, search)
            for name, spec in projects.items()}
