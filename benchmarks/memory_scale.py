"""Benchmark: peak memory of a cold scan against the number of files.

Builds synthetic corpora of 5,000 and 50,000 distinct files (copies of
standard-library files, each with a unique comment appended, so that no
two have the same bytes and no cache could share them), scans each with
``punstats scan --no-cache -o DIR`` in a subprocess, and prints the peak
resident memory of the whole process tree (the scan and its workers, summed,
sampled every 20 ms with psutil; RSS, and PSS, which counts pages the forked
workers share once), the CPU time of the tree (user + system, of the scan and
the workers it waited for) and of the scan process alone, the wall time, and the ratios of the larger corpus
to the smaller (goal: peak memory within 1.3x, CPU time at most 10.5x for 10x
the files: linear).  On a shared machine the CPU time is the figure to trust;
``--repeat N`` scans the sizes in N interleaved rounds (small, large, small,
large, ...) and compares the medians.  With ``--no-save`` the scans run with
``--no-save`` instead of ``-o DIR`` (they store nothing and print the summary).

    python benchmarks/memory_scale.py [--sizes 5000,50000] [--jobs N] [--repeat N] [--keep DIR] [--no-save]
"""
import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time

import psutil

#: Standard-library files larger than this are not copied (keeps 50,000 files near 400 MB).
MAX_SOURCE_BYTES = 16 * 1024


def sources():
    """Standard-library .py files (not under site-packages or __pycache__), smallest first."""
    found = []
    for directory, dirs, files in os.walk(sysconfig.get_path("stdlib")):
        dirs[:] = sorted(d for d in dirs if d not in ("site-packages", "dist-packages", "__pycache__"))
        for name in sorted(files):
            path = os.path.join(directory, name)
            if name.endswith(".py") and os.path.isfile(path) and os.path.getsize(path) <= MAX_SOURCE_BYTES:
                found.append(path)
    return found


def build(root, count, files):
    """``count`` distinct files under ``root``: 100 per directory."""
    for number in range(count):
        directory = os.path.join(root, "d%04d" % (number // 100))
        os.makedirs(directory, exist_ok=True)
        with open(files[number % len(files)], "rb") as source:
            data = source.read()
        with open(os.path.join(directory, "f%06d.py" % number), "wb") as target:
            target.write(data + b"\n# memory_scale unique file %d\n" % number)


def tree_memory(process):
    """(RSS, PSS) of ``process`` and all its descendants, summed, in bytes.

    RSS counts a page shared by forked workers once per process; PSS divides
    it among them (the memory the tree really occupies)."""
    rss = pss = 0
    for member in [process] + process.children(recursive=True):
        try:
            info = member.memory_full_info()
        except psutil.Error:  # exited meanwhile
            continue
        rss += info.rss
        pss += getattr(info, "pss", info.rss)
    return rss, pss


def children_cpu():
    """User + system CPU seconds of the waited-for children of this process (and theirs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measured(command):
    """(wall seconds, (CPU seconds of the tree, of the scan process alone), (peak tree RSS, peak tree PSS)
    bytes, exit status) of ``command``; the scan process's own CPU time as last sampled (every 20 ms)."""
    cpu = children_cpu()
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    watched = psutil.Process(proc.pid)
    peak = [(0, 0)]
    own = [0.0]

    def sample():
        while proc.poll() is None:
            try:
                rss, pss = tree_memory(watched)
                times = watched.cpu_times()
            except psutil.Error:
                break
            peak[0] = (max(peak[0][0], rss), max(peak[0][1], pss))
            own[0] = times.user + times.system
            time.sleep(0.02)
    sampler = threading.Thread(target=sample)
    sampler.start()
    status = proc.wait()
    elapsed = time.perf_counter() - start
    sampler.join()
    return elapsed, (children_cpu() - cpu, own[0]), peak[0], status


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5000,50000", help="corpus sizes, smallest first")
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--keep", metavar="DIR", help="build (or reuse) the corpora in DIR and keep them")
    parser.add_argument("--no-save", action="store_true", help="scan with --no-save instead of -o DIR")
    parser.add_argument("--repeat", type=int, default=1, help="interleaved rounds over the sizes (medians)")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    work = args.keep or tempfile.mkdtemp(prefix="punstats-memory-")
    os.environ.setdefault("PUNSTATS_CACHE_DIR", os.path.join(work, "cache"))  # --no-cache: stays empty
    files = sources()
    print("sources: %d standard-library files of at most %d bytes" % (len(files), MAX_SOURCE_BYTES))
    results = {size: [] for size in sizes}
    try:
        for size in sizes:
            corpus = os.path.join(work, "corpus-%d" % size)
            if not os.path.isdir(corpus):
                build(corpus, size, files)
        for _ in range(args.repeat):
            for size in sizes:
                results[size].append(scanned(work, size, args))
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    report(sizes, results)


def scanned(work, size, args):
    """(wall, CPU, peak) of one cold scan of the corpus of ``size`` files, printed."""
    corpus = os.path.join(work, "corpus-%d" % size)
    stored = ["--no-save"] if args.no_save else ["-o", os.path.join(work, "scan-%d" % size)]
    command = [sys.executable, "-m", "punstats", "scan", "-q", "--no-cache", *stored, corpus]
    if args.jobs:
        command += ["--jobs", str(args.jobs)]
    elapsed, cpu, peak, status = measured(command)
    if status != 0:
        sys.exit("scan of %d files failed (exit %d)" % (size, status))
    print("%7d files  CPU %7.1f s (the scan process %5.1f s)  wall %7.1f s  peak of the process tree: "
          "RSS %6.1f MiB, PSS %6.1f MiB" % (size, cpu[0], cpu[1], elapsed, peak[0] / 2**20, peak[1] / 2**20))
    return elapsed, cpu, peak


def report(sizes, results):
    """The ratios of the largest corpus to the smallest, of the medians over the rounds."""
    def median(size, pick):
        return statistics.median(pick(result) for result in results[size])
    small, large = sizes[0], sizes[-1]
    ratio = {name: median(large, pick) / median(small, pick) for name, pick in (
        ("wall", lambda r: r[0]), ("cpu", lambda r: r[1][0]), ("own", lambda r: r[1][1]),
        ("rss", lambda r: r[2][0]), ("pss", lambda r: r[2][1]))}
    print("ratio %d / %d files: CPU %.2f (goal <= 10.5; the scan process alone %.2f), peak RSS %.2f (goal <= 1.3), "
          "peak PSS %.2f, wall %.1f (files %.0fx)" % (large, small, ratio["cpu"], ratio["own"], ratio["rss"],
                                                      ratio["pss"], ratio["wall"], large / small))


if __name__ == "__main__":
    main()
