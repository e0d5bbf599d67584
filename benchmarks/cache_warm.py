"""Benchmark: a warm re-scan of an unchanged corpus against the cold scan.

Each run makes a new, empty cache, scans the corpus (cold: every file
extracted and stored), then scans it again (warm: nothing changed), both
through ``punstats.scan`` in this process, so interpreter start-up and
imports, which no cache can save, are left out of both.  Prints the median
times and the ratio cold / warm per run (goal: 20 or more).

    python benchmarks/cache_warm.py [--runs N] [--jobs N] [PATH]
"""
import argparse
import os
import statistics
import tempfile
import time

import punstats
from punstats.cache import BlobCache


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", help="corpus (default: the standard library)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args()
    cold, warm = [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as directory:
            with BlobCache(os.path.join(directory, "cache.sqlite3")) as cache:
                start = time.perf_counter()
                first = punstats.scan(args.path, jobs=args.jobs, cache=cache)
                cold.append(time.perf_counter() - start)
                start = time.perf_counter()
                second = punstats.scan(args.path, jobs=args.jobs, cache=cache)
                warm.append(time.perf_counter() - start)
        assert second.summary["cache"]["extracted"] == 0
        assert second.occurrences.equals(first.occurrences) and second.files.equals(first.files)
    ratios = [c / w for c, w in zip(cold, warm)]
    print("corpus %s: %d files, %d runs" % (first.summary["corpus"], first.summary["files"], args.runs))
    print("cold scan  median %6.2f s  (min %.2f, max %.2f)" % (statistics.median(cold), min(cold), max(cold)))
    print("warm scan  median %6.3f s  (min %.3f, max %.3f)" % (statistics.median(warm), min(warm), max(warm)))
    print("ratio cold / warm: median %.1f (per run: %s)  goal >= 20"
          % (statistics.median(ratios), ", ".join("%.1f" % r for r in ratios)))


if __name__ == "__main__":
    main()
