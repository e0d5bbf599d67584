"""Benchmark: a cold ``punstats scan`` of the standard library against a plain loop.

Prints, from the same run, the wall time of ``punstats scan`` (whole process:
start-up, discovery, extraction on all cores, tables, summary) and of a
single-process plain ``ast.parse`` + ``ast.walk`` loop over the same files
(also a whole process), their ratio (goal on 2 cores: 0.6 or less), and the
peak resident memory of each.  Runs alternate, and medians are reported, so
drift of a shared machine affects both sides alike.

    python benchmarks/scan_stdlib.py [--runs N] [--jobs N] [PATH]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

BASELINE = r"""
import ast, sys, warnings
warnings.simplefilter("ignore")
nodes = 0
for path in open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read().split("\0"):
    if not path:
        continue
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        continue
    for node in ast.walk(tree):
        nodes += 1
print(nodes)
"""


def timed(command):
    """(wall seconds, peak RSS in MiB of the largest process) of one run."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        # a fresh wrapper process per run, so its RUSAGE_CHILDREN is this run's alone
        wrapper = [sys.executable, "-c",
                   "import resource, subprocess, sys\n"
                   "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
                   "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)", *command]
        subprocess.run(wrapper, check=True, stdout=out)
        wall = time.perf_counter() - start
        out.seek(0)
        peak_kib = int(out.read().split()[-1])
    return wall, peak_kib / 1024


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", help="corpus (default: the standard library)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args()

    from punstats.discover.tree import discover
    from punstats.sources import resolve

    corpus = resolve(args.path)
    found = discover(corpus.root)
    locations = [c.location for c in found.candidates if not c.status]
    with tempfile.NamedTemporaryFile("w", suffix=".lst", delete=False, encoding="utf-8",
                                     errors="surrogateescape") as listing:
        listing.write("\0".join(locations))
    baseline = [sys.executable, "-c", BASELINE, listing.name]
    scan = [sys.executable, "-m", "punstats", "scan", "--no-save", "--no-cache", "--json", "-q"]
    if args.path:
        scan.append(args.path)
    if args.jobs:
        scan += ["--jobs", str(args.jobs)]
    rows = {"punstats scan": [], "ast.parse + ast.walk": []}
    try:
        for _ in range(args.runs):
            rows["punstats scan"].append(timed(scan))
            rows["ast.parse + ast.walk"].append(timed(baseline))
    finally:
        os.unlink(listing.name)
    print("corpus %s: %d files, %d runs each, %d cores" % (corpus.name, len(locations), args.runs,
                                                          os.cpu_count() or 1))
    medians = {}
    for name, runs in rows.items():
        walls = [w for w, _ in runs]
        medians[name] = statistics.median(walls)
        print("%-22s wall median %6.2f s  (min %.2f, max %.2f)  peak RSS %6.0f MiB"
              % (name, medians[name], min(walls), max(walls), max(m for _, m in runs)))
    ratios = [a[0] / b[0] for a, b in zip(rows["punstats scan"], rows["ast.parse + ast.walk"])]
    print("ratio punstats / baseline: median %.3f (per pair: %s)  goal <= 0.6"
          % (statistics.median(ratios), ", ".join("%.3f" % r for r in ratios)))
    json.dump({"ratio_median": statistics.median(ratios), "medians": medians}, sys.stderr)
    sys.stderr.write("\n")


if __name__ == "__main__":
    main()
