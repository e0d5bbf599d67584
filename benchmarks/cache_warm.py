"""Benchmark: a warm re-scan of an unchanged corpus against the cold scan, whole process.

Each run makes a new, empty cache, runs ``punstats scan -q -o DIR PATH``
(cold: every file extracted and stored in the cache), then the same command
again into another place and into the same place (warm: nothing changed,
the stored tables of this corpus state are reused), each as a separate
process, start-up and imports included.  Prints the median wall times and
the ratio warm / cold of each run (goal: 0.05 or less, whole process, on a
CPython-sized tree; the default corpus is the standard library).

    python benchmarks/cache_warm.py [--runs N] [--jobs N] [PATH]
"""
import argparse
import filecmp
import os
import statistics
import subprocess
import sys
import tempfile
import time

import compiled


def timed(command, env):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", help="corpus (default: the standard library)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args()
    compiled.ensure()
    cold, warm, again = [], [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as directory:
            env = dict(os.environ, PUNSTATS_CACHE_DIR=os.path.join(directory, "cache"))
            command = [sys.executable, "-m", "punstats", "scan", "-q"]
            command += ["--jobs", str(args.jobs)] if args.jobs else []
            first, second = os.path.join(directory, "cold"), os.path.join(directory, "warm")
            cold.append(timed(command + ["-o", first] + ([args.path] if args.path else []), env))
            warm.append(timed(command + ["-o", second] + ([args.path] if args.path else []), env))
            again.append(timed(command + ["-o", second] + ([args.path] if args.path else []), env))
            for name in ("occurrences.parquet", "files.parquet", "functions.parquet"):
                assert filecmp.cmp(os.path.join(first, name), os.path.join(second, name), shallow=False)
    print("corpus %s, %d runs, whole process" % (args.path or "the standard library", args.runs))
    print("cold scan               median %6.2f s  (min %.2f, max %.2f)" % (statistics.median(cold), min(cold),
                                                                             max(cold)))
    for name, times in (("warm, another place", warm), ("warm, same place", again)):
        ratios = [w / c for c, w in zip(cold, times)]
        print("%-23s median %6.3f s  (min %.3f, max %.3f)" % (name, statistics.median(times), min(times),
                                                              max(times)))
        print("  ratio warm / cold: median %.3f (per run: %s)  goal <= 0.05"
              % (statistics.median(ratios), ", ".join("%.3f" % r for r in ratios)))


if __name__ == "__main__":
    main()
