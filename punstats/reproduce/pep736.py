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

import os
import re
from typing import Any, Dict, Optional, Sequence, Tuple

from punstats.cache import BlobCache
from punstats.engines import interp
from punstats.extract.decode import decode_source
from punstats.extract.text import NEWLINE
from punstats.model.kinds import KIND_CALL
from punstats.model.records import Occurrence, from_plain
from punstats.reproduce.published import published
from punstats.reproduce.replay import GitSource, _compat_results
from punstats.sources import git as gitsource

PUNNING_SUBJECT = re.compile(r"\bpun(ning|ned)?\b", re.IGNORECASE)


def _punning_commit(gitdir: str, rev: Optional[str]) -> Tuple[Optional[gitsource.Commit], gitsource.Commit]:
    """(punning commit or None, the commit to count in).  With ``rev`` naming a punning
    commit (subject mentions punning) or no ``rev`` and such a commit in the repository,
    counting happens in its first parent: the code before punning."""
    if rev is None:
        out = gitsource.grep_commits(gitdir, "punning")
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
    added = deleted = files = 0
    for plus, minus, path in gitsource.numstat(gitdir, commit + "^", commit):
        if plus == "-" or (extensions and not path.endswith(extensions)):
            continue
        added += int(plus)
        deleted += int(minus)
        files += 1
    return {"insertions": added, "deletions": deleted, "saved": deleted - added, "files": files}


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
        counts, parser = _project_counts(path, base.sha, python, cache)
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


def _project_counts(path: str, commit: str, python: Optional[str],
                    cache: Optional[BlobCache]) -> Tuple[Dict[str, int], str]:
    """(the counts every candidate definition needs, the parser) of one project at ``commit``."""
    git = GitSource(path)
    counts = {"punnable": 0, "punnable_top": 0, "punnable_text": 0, "class_punnable": 0,
              "keywords": 0, "double_star": 0, "files": 0, "failed": 0}
    try:
        files = git.files(commit)
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
            lines = NEWLINE.split(decode_source(git.read(f.blob))[0])
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
    return counts, parser


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

