"""Benchmark: a cold ``punstats scan`` of the standard library against plain loops, as ratios from one run.

Times whole processes (start-up included), in rounds that alternate the
commands, so drift of a shared machine affects every side alike:

- ``punstats scan --no-cache --no-save`` (discovery, extraction on all
  cores, tables, summary);
- the yardstick: a single-process ``ast.parse`` + ``ast.walk`` loop over the
  same files;
- the parse floor: ``ast.parse`` alone over the same files on ``--jobs``
  processes (the least an exact ``ast`` scan can cost);
- ast-grep (``pip install ast-grep-cli``; skipped, and said so, when not
  installed) with a careful rule: a keyword argument of a call (not of a
  class definition) whose value is the identifier it names.  Its match
  count is printed next to punstats' headline count.

Each round's times are divided by that round's yardstick; medians of those
ratios are printed with their min and max.  Each command's CPU time (user +
system of its whole process tree) is divided by the parse floor's in the same
round: on a shared machine wall times swing with the load, CPU times much
less.  Goal on 2 cores: punstats at most 0.40 of the yardstick and within
1.15x of the parse floor, in wall and in CPU time.  ``--floor-only`` times
punstats and the parse floor alone, in interleaved pairs (no yardstick, no
ast-grep; wall ratios then against the floor).

    python benchmarks/scan_stdlib.py [--runs N] [--jobs N] [--ast-grep PATH] [--floor-only] [PATH]
"""
import argparse
import json
import os
import shutil
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

#: ast.parse alone on N processes: files largest first, one at a time, so both cores stay busy to the end.
PARSE_FLOOR = r"""
import ast, multiprocessing, os, sys, warnings

def parse(path):
    warnings.simplefilter("ignore")
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        ast.parse(data)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return 0
    return 1

if __name__ == "__main__":
    paths = [p for p in open(sys.argv[1], encoding="utf-8", errors="surrogateescape").read().split("\0") if p]
    paths.sort(key=lambda p: -os.path.getsize(p))
    with multiprocessing.get_context("fork").Pool(int(sys.argv[2])) as pool:
        print(sum(pool.imap_unordered(parse, paths, chunksize=4)))
"""

#: f(x=x): a keyword argument of a call whose value is the identifier it names.
AST_GREP_RULE = """\
id: punnable
language: python
rule:
  kind: keyword_argument
  all:
    - has: {field: name, pattern: $K}
    - has: {field: value, kind: identifier, pattern: $K}
  inside:
    kind: argument_list
    inside:
      kind: call
"""


def timed(command):
    """(wall seconds, peak RSS in MiB of the largest process, CPU seconds of the process tree) of one run."""
    with tempfile.TemporaryFile() as out:
        start = time.perf_counter()
        # a fresh wrapper process per run, so its RUSAGE_CHILDREN is this run's alone
        wrapper = [sys.executable, "-c",
                   "import resource, subprocess, sys\n"
                   "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
                   "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
                   "print(usage.ru_maxrss, usage.ru_utime + usage.ru_stime)", *command]
        subprocess.run(wrapper, check=True, stdout=out)
        wall = time.perf_counter() - start
        out.seek(0)
        peak_kib, cpu = out.read().split()[-2:]
    return wall, int(peak_kib) / 1024, float(cpu)


def find_ast_grep(given):
    """The ast-grep executable: given, on PATH, or next to this interpreter (a venv's bin).

    Only the name ``ast-grep`` is looked for: its short name ``sg`` is also a
    system command on Linux (``newgrp``), never to be started by a benchmark.
    """
    if given:
        return given
    return shutil.which("ast-grep") or shutil.which("ast-grep", path=os.path.dirname(sys.executable))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", help="corpus (default: the standard library)")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=None, help="processes (default: all cores)")
    parser.add_argument("--ast-grep", dest="ast_grep", default=None, help="the ast-grep executable")
    parser.add_argument("--floor-only", dest="floor_only", action="store_true",
                        help="punstats and the parse floor only, in interleaved pairs")
    args = parser.parse_args()

    from punstats.discover.tree import discover
    from punstats.engines.base import default_jobs
    from punstats.sources import resolve

    jobs = args.jobs or default_jobs()
    corpus = resolve(args.path)
    found = discover(corpus.root)
    locations = [c.location for c in found.candidates if not c.status]
    work = tempfile.mkdtemp(prefix="scan-bench-")
    listing = os.path.join(work, "files.lst")
    with open(listing, "w", encoding="utf-8", errors="surrogateescape") as handle:
        handle.write("\0".join(locations))
    scan = [sys.executable, "-m", "punstats", "scan", "--no-save", "--no-cache", "-q", "--jobs", str(jobs)]
    if args.path:
        scan.append(args.path)
    floor_name = "parse floor (%d proc)" % jobs
    commands = {"punstats scan": scan, floor_name: [sys.executable, "-c", PARSE_FLOOR, listing, str(jobs)]}
    if not args.floor_only:
        commands["ast.parse + ast.walk"] = [sys.executable, "-c", BASELINE, listing]
    ast_grep = None if args.floor_only else find_ast_grep(args.ast_grep)
    grep_count = None
    if ast_grep:
        rule = os.path.join(work, "punnable.yml")
        with open(rule, "w", encoding="utf-8") as handle:
            handle.write(AST_GREP_RULE)
        grep = [ast_grep, "scan", "--rule", rule, "--json=stream", "--threads", str(jobs), *locations]
        commands["ast-grep (%d threads)" % jobs] = grep
        out = subprocess.run(grep, capture_output=True, check=True).stdout
        grep_count = len(out.splitlines())
    headline = json.loads(subprocess.run(scan + ["--json"], capture_output=True, check=True,
                                         text=True).stdout)[0]["punnable"]  # one summary per path
    rows = {name: [] for name in commands}
    try:
        for _ in range(args.runs):
            for name, command in commands.items():
                rows[name].append(timed(command))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("corpus %s: %d files, %d rounds, %d jobs, %d cores"
          % (corpus.name, len(locations), args.runs, jobs, os.cpu_count() or 1))
    yardstick = rows["ast.parse + ast.walk" if not args.floor_only else floor_name]
    report = {}
    for name, runs in rows.items():
        report[name] = described(name, runs, yardstick, rows[floor_name])
    over_floor = [p / f for (p, _, _), (f, _, _) in zip(rows["punstats scan"], rows[floor_name])]
    cpu_over_floor = [p / f for (_, _, p), (_, _, f) in zip(rows["punstats scan"], rows[floor_name])]
    print("punstats / parse floor: wall median %.3f (min %.3f, max %.3f), CPU median %.3f (min %.3f, max %.3f); "
          "goal <= 1.15; punstats / yardstick goal <= 0.40"
          % (statistics.median(over_floor), min(over_floor), max(over_floor), statistics.median(cpu_over_floor),
             min(cpu_over_floor), max(cpu_over_floor)))
    if ast_grep:
        print("matches: punstats f(x=x) %d, ast-grep rule %d" % (headline, grep_count))
    else:
        print("ast-grep: not installed (pip install ast-grep-cli), not measured")
    report["punstats / parse floor"] = statistics.median(over_floor)
    report["punstats / parse floor, CPU"] = statistics.median(cpu_over_floor)
    json.dump(report, sys.stderr)
    sys.stderr.write("\n")


def described(name, runs, yardstick, floor):
    """One command's line (printed) and its figures: wall times against the round's
    yardstick, CPU times against the round's parse floor."""
    walls = [w for w, _, _ in runs]
    ratios = [w / y for w, (y, _, _) in zip(walls, yardstick)]
    cpus = [c for _, _, c in runs]
    cpu_ratios = [c / f for c, (_, _, f) in zip(cpus, floor)]
    print("%-22s wall median %6.2f s (min %.2f, max %.2f)  ratio %.3f (min %.3f, max %.3f)  "
          "CPU median %6.2f s, / floor %.3f (min %.3f, max %.3f)  peak RSS %5.0f MiB"
          % (name, statistics.median(walls), min(walls), max(walls), statistics.median(ratios), min(ratios),
             max(ratios), statistics.median(cpus), statistics.median(cpu_ratios), min(cpu_ratios),
             max(cpu_ratios), max(m for _, m, _ in runs)))
    return {"wall_median": statistics.median(walls), "ratio_median": statistics.median(ratios),
            "ratio_min": min(ratios), "ratio_max": max(ratios), "cpu_median": statistics.median(cpus),
            "cpu_over_floor": statistics.median(cpu_ratios)}


if __name__ == "__main__":
    main()
