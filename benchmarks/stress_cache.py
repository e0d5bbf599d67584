"""Stress: several scans started at the same instant on an empty cache never fail.

Each round makes a new, empty cache directory and starts ``--scans`` processes
(``punstats scan PATH --no-save``); each imports punstats first and then waits
for one common start time, so that all of them open the empty cache within a
millisecond or so (the moment the database is created and switched to WAL).
Prints every failing process (exit status and last line of its error output)
and the number of failures, which must be 0; exits 1 otherwise.

    python benchmarks/stress_cache.py [--rounds 50] [--scans 4] [PATH]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

CHILD = """
import sys, time
from punstats import cli
start = float(sys.argv[1])
time.sleep(max(0.0, start - time.time()))
sys.exit(cli.main(["scan", sys.argv[2], "--no-save", "-q", "-j", "1"]))
"""


def one_round(path: str, scans: int) -> list:
    """(exit status, last error line) of each failing scan of one round."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, PUNSTATS_CACHE_DIR=os.path.join(cache, "c"))
        start = time.time() + 1.5  # after every child has imported punstats
        children = [subprocess.Popen([sys.executable, "-c", CHILD, repr(start), path], env=env,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for _ in range(scans)]
        failures = []
        for child in children:
            _, err = child.communicate()
            lines = err.decode("utf-8", "replace").strip().splitlines()
            if child.returncode != 0 or lines:
                failures.append((child.returncode, lines[-1] if lines else ""))
        return failures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", help="corpus (default: the json package of the standard library)")
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--scans", type=int, default=4)
    args = parser.parse_args()
    path = args.path or os.path.dirname(__import__("json").__file__)
    failed = 0
    for number in range(1, args.rounds + 1):
        for status, line in one_round(path, args.scans):
            failed += 1
            print("round %d: exit %s: %s" % (number, status, line))
    print("%d scans in %d rounds of %d at once: %d failures (must be 0)"
          % (args.rounds * args.scans, args.rounds, args.scans, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
