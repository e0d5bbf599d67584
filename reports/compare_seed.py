"""Compare ``punstats rewrite`` with the PEP author's pandas commit.

    python reports/compare_seed.py PARENT_TREE SEED_TREE [--rewrap] [--numstat FILE]

PARENT_TREE and SEED_TREE are full checkouts (every file, not ``git
archive``) of 00f10db680c6 and 18687393d66e.  The files compared are those
that differ between the two trees.  For each, punstats' rewrite of the parent
is compared with the seed: byte-identical, or else classified by token
stream (layout only; puns the commit lost; text the commit garbled or
deleted).  Every ``name=`` of the commit must be one of punstats' edits.
Prints a summary and one line per differing file.  Not a test: it needs the
fetched trees.
"""
from __future__ import annotations

import argparse
import difflib
import io
import os
import re
import sys
import tokenize
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

from punstats.rewrite.transform import pun

_PUN_TEXT = re.compile(r"\b([A-Za-z_]\w*)=(?=\s*[,)]|\s*$)", re.M)
_SKIP = (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT,
         tokenize.ENDMARKER)


def tokens(data: bytes):
    """(type, string, line) of the significant tokens, or None when it does not tokenize."""
    try:
        return [(t.type, t.string, t.start[0]) for t in
                tokenize.generate_tokens(io.StringIO(data.decode("utf-8"), newline="").readline)
                if t.type not in _SKIP]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return None


def puns(toks):
    """Indexes of the NAME tokens of ``name=`` followed by ``,`` or ``)``."""
    return [i for i in range(len(toks) - 2)
            if toks[i][0] == tokenize.NAME and toks[i + 1][1] == "=" and toks[i + 2][1] in (",", ")")
            and i and toks[i - 1][1] in ("(", ",")]


def classify(rel: str, ours: bytes, seed: bytes):
    """(category, detail, seed puns, seed puns matched by ours)."""
    a, b = tokens(ours), tokens(seed)
    if b is None:  # compare the names of "name=" texts instead
        ours_names = sorted(m.group(1) for m in _PUN_TEXT.finditer(ours.decode("utf-8")))
        seed_names = sorted(m.group(1) for m in _PUN_TEXT.finditer(seed.decode("utf-8")))
        missing = len(seed_names) - sum((Counter(seed_names) & Counter(ours_names)).values())
        return "garbled", "the commit's file does not tokenize", len(seed_names), len(seed_names) - missing
    ours_puns = puns(a)
    seed_puns = puns(b)
    matcher = difflib.SequenceMatcher(None, [t[:2] for t in a], [t[:2] for t in b], autojunk=False)
    mapping = {}
    problems = []
    lost = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            mapping.update({j1 + k: i1 + k for k in range(i2 - i1)})
            continue
        seg_a, seg_b = [t[1] for t in a[i1:i2]], [t[1] for t in b[j1:j2]]
        # our "x=" where the commit kept "x=x": the commit lost a pun
        if tag == "insert" and i1 and a[i1 - 1][1] == "=" and (
                len(seg_b) == 1 or (len(seg_b) == 3 and seg_b[0] == "(" and seg_b[2] == ")")):
            lost.append(b[j1][2])  # x=x, or x=(x), where punstats wrote x=
            continue
        problems.append("line %d: %s -> %s" % (b[j1][2] if j1 < len(b) else 0,
                                                " ".join(seg_a)[:60], " ".join(seg_b)[:60]))
    matched = sum(1 for j in seed_puns if mapping.get(j) in set(ours_puns))
    if problems:
        return "garbled", "; ".join(problems[:3]) + ("; lost puns at lines %s" % lost if lost else ""), \
            len(seed_puns), matched
    if lost:
        return "lost_puns", "commit kept x=x at lines %s" % ", ".join(map(str, lost)), len(seed_puns), matched
    return "layout", "same tokens, different line breaks", len(seed_puns), matched


def _one(job):
    parent, seed, rel, rewrap = job
    with open(os.path.join(parent, rel), "rb") as f:
        old = f.read()
    with open(os.path.join(seed, rel), "rb") as f:
        new = f.read()
    result = pun(old, rel, rewrap=rewrap)
    if result.new == new:
        n = len(puns(tokens(new) or []))
        return rel, "identical", "", n, n, result
    return (rel,) + classify(rel, result.new, new) + (result,)


def changed_files(parent: str, seed: str):
    out = []
    for base, dirs, files in os.walk(seed):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        for name in sorted(files):
            path = os.path.join(base, name)
            rel = os.path.relpath(path, seed)
            other = os.path.join(parent, rel)
            with open(path, "rb") as f:
                data = f.read()
            if not os.path.exists(other):
                out.append(rel)
                continue
            with open(other, "rb") as f:
                if f.read() != data:
                    out.append(rel)
    return sorted(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("parent")
    parser.add_argument("seed")
    parser.add_argument("--rewrap", action="store_true")
    parser.add_argument("--numstat", help="git show --numstat output of the commit (lines saved per file)")
    parser.add_argument("-j", "--jobs", type=int, default=os.cpu_count())
    args = parser.parse_args(argv)
    files = changed_files(args.parent, args.seed)
    with ProcessPoolExecutor(args.jobs) as pool:
        rows = list(pool.map(_one, [(args.parent, args.seed, rel, args.rewrap) for rel in files], chunksize=8))
    counts = {}
    for row in rows:
        counts[row[1]] = counts.get(row[1], 0) + 1
    seed_puns = sum(row[3] for row in rows)
    matched = sum(row[4] for row in rows)
    edits = sum(len(row[5].edits) for row in rows)
    saved = sum(row[5].lines_saved for row in rows)
    ours_changed = sum(1 for row in rows if row[5].changed)
    print("files changed by the commit   %d (punstats changes %d of them)" % (len(files), ours_changed))
    print("byte-identical                %d (%.1f%%)" % (counts.get("identical", 0),
                                                       100.0 * counts.get("identical", 0) / len(files)))
    print("differing                     %s" % ", ".join("%s %d" % kv for kv in sorted(counts.items())
                                                         if kv[0] != "identical"))
    print("punstats edits                %d" % edits)
    print("commit's x= edits          %d, of which punstats made %d" % (seed_puns, matched))
    print("lines saved                   %d" % saved)
    if args.numstat:
        total = 0
        with open(args.numstat) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) == 3 and parts[0].isdigit():
                    total += int(parts[1]) - int(parts[0])
        print("commit's lines saved          %d (punstats %+.2f%%)" % (total, 100.0 * (saved - total) / total))
    for row in rows:
        if row[1] != "identical":
            print("%-10s %s: %s" % (row[1], row[0], row[2]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
