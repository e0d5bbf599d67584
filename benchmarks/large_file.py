"""Benchmark: the memory and CPU of extracting one very large file, in parts against whole.

Builds one module of ``--megabytes`` MB (default 20, about the largest file on
PyPI's top 8,000 projects) by joining standard-library modules that parse
alone, then extracts it in a child process of its own, in parts (the default,
``extract.parts``) and whole (the baseline: parts larger than the file), with
``punstats.patterns.return_in_finally`` as a user pattern, ``--repeat`` times
interleaved.  Prints each way's peak RSS over the process's start (the data
read in and the interpreter are left out), its CPU time, and the ratios of parts
to whole (goal: memory at most 0.25 of the whole parse's, CPU no more), and
checks that both give the same record and rows.

    python benchmarks/large_file.py [--megabytes 20] [--repeat 3]
"""
import argparse
import ast
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile

CHILD = r"""
import hashlib, pickle, resource, sys, time
from punstats.extract import parts
from punstats.extract.plugins import load
from punstats.extract.traversal import extract
path, whole = sys.argv[1], sys.argv[2] == "whole"
patterns = list(load(["punstats.patterns.return_in_finally"]))
with open(path, "rb") as handle:
    data = handle.read()
if whole:
    parts.PART_CHARS = 1 << 40
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
began = time.process_time()
result = extract(path, data, max_bytes=1 << 40, patterns=patterns)
cpu = time.process_time() - began
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(peak - before, cpu, result.record.status, hashlib.sha256(pickle.dumps(result)).hexdigest())
"""


def build(path, megabytes):
    """Standard-library modules that parse alone, joined until ``megabytes`` MB."""
    wanted = megabytes * 1_000_000
    written = 0
    with open(path, "wb") as out:
        while written < wanted:
            for directory, dirs, files in os.walk(sysconfig.get_path("stdlib")):
                dirs[:] = sorted(d for d in dirs if d not in ("site-packages", "dist-packages", "__pycache__"))
                for name in sorted(files):
                    if not name.endswith(".py") or written >= wanted:
                        continue
                    with open(os.path.join(directory, name), "rb") as handle:
                        data = handle.read()
                    if not _parses(data):
                        continue
                    out.write(data.rstrip(b"\n") + b"\n\n")
                    written += len(data) + 1
    return written


def _parses(data):
    try:
        ast.parse(data)
    except (SyntaxError, ValueError):
        return False
    return b"barry_as_FLUFL" not in data


def measure(path, way):
    out = subprocess.run([sys.executable, "-c", CHILD, path, way], check=True, capture_output=True, text=True)
    kilobytes, cpu, status, digest = out.stdout.split()
    return int(kilobytes) / 1024, float(cpu), status, digest


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "large.py")
        size = build(path, args.megabytes)
        print("one module of %.1f MB joined from the standard library" % (size / 1e6))
        seen = {"parts": [], "whole": []}
        for _ in range(args.repeat):
            for way in ("parts", "whole"):
                seen[way].append(measure(path, way))
    for way, runs in seen.items():
        print("%-6s peak +%6.0f MiB  cpu %5.2f s  (%s)" % (
            way, statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), runs[0][2]))
    memory = statistics.median(r[0] for r in seen["parts"]) / statistics.median(r[0] for r in seen["whole"])
    cpu = statistics.median(r[1] for r in seen["parts"]) / statistics.median(r[1] for r in seen["whole"])
    same = len({r[3] for runs in seen.values() for r in runs}) == 1
    print("parts/whole: memory %.2f (goal <= 0.25), cpu %.2f (goal <= 1.0); same record and rows: %s"
          % (memory, cpu, same))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
