"""Benchmark: ``corpus top-pypi:N`` end to end: throughput, network waits, CPU use and peak memory.

Each N runs in a child process of its own (so that its peak RSS is its own)
with a new, empty cache directory (downloads and blob cache), so every
project is downloaded and every file extracted.  For each N it prints files/s
and MB/s (unpacked bytes of the scanned releases), the share of the wall time
the scan loop spent waiting for a download, the CPU busy share (user + system
time of the run and its workers over wall time times cores) and the peak RSS
of the run and of its largest worker, and the run's resident memory after a
quarter, half, three quarters and all of its projects.  As the baseline for the CPU share it
also measures, just before each N, how much CPU one busy process per core
gets on this machine at that moment (on a shared machine, much less than
all of it), and prints the run's CPU use over that.  With several N it also prints the peak
RSS of the largest N over the smallest's (goal: at most 1.5, memory flat in N).
It needs the network (PyPI).

    python benchmarks/top_pypi.py N [N ...] [--jobs J] [--download-jobs D]
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time


def child(n, jobs, download_jobs, output):
    from punstats.runs import projects
    from punstats.runs.ecosystem import Timing
    timing = Timing()
    go, _ = projects.top_pypi_run("top-pypi:%d" % n, output=output, jobs=jobs, download_jobs=download_jobs)
    rss = []  # the run's resident memory after each project: flat, or growing with N?
    cpu_before = os.times()
    start = time.perf_counter()
    _, ecosystem = go(timing=timing, on_done=lambda record, reused: rss.append(current_rss_kb()))
    wall = time.perf_counter() - start
    cpu = os.times()
    used = sum(getattr(cpu, k) - getattr(cpu_before, k) for k in ("user", "system", "children_user",
                                                                     "children_system"))
    print(json.dumps({"n": n, "wall": wall, "waiting": timing.waiting, "files": timing.files,
                      "bytes": timing.bytes, "cpu": used, "scanned": ecosystem["scanned"],
                      "rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                      "rss_quarters_kb": [rss[max(0, len(rss) * q // 4 - 1)] for q in (1, 2, 3, 4)] if rss else [],
                      "worker_rss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss}))


def _spin(seconds, queue):
    start, cpu = time.perf_counter(), time.process_time()
    while time.perf_counter() - start < seconds:
        sum(range(10000))
    queue.put((time.process_time() - cpu) / (time.perf_counter() - start))


def available_cores(seconds=3.0):
    """Cores' worth of CPU that one busy process per core gets right now."""
    import multiprocessing
    queue = multiprocessing.Queue()
    spinners = [multiprocessing.Process(target=_spin, args=(seconds, queue)) for _ in range(os.cpu_count() or 1)]
    for spinner in spinners:
        spinner.start()
    shares = [queue.get() for _ in spinners]
    for spinner in spinners:
        spinner.join()
    return sum(shares)


def current_rss_kb():
    with open("/proc/self/status") as handle:
        return next(int(line.split()[1]) for line in handle if line.startswith("VmRSS:"))


def measure(n, jobs, download_jobs):
    with tempfile.TemporaryDirectory() as directory:
        env = dict(os.environ, PUNSTATS_CACHE_DIR=os.path.join(directory, "cache"))
        command = [sys.executable, __file__, "--child", str(n), "--download-jobs", str(download_jobs),
                   "--output", os.path.join(directory, "out")] + (["--jobs", str(jobs)] if jobs else [])
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        if done.returncode:
            sys.exit("top-pypi:%d failed: %s" % (n, done.stderr.strip().splitlines()[-1:]))
        return json.loads(done.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, nargs="+")
    parser.add_argument("--jobs", type=int, default=None, help="extraction processes (default: all cores)")
    parser.add_argument("--download-jobs", type=int, default=4)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--output", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args.n[0], args.jobs, args.download_jobs, args.output)
    cores = os.cpu_count() or 1
    results = []
    for n in args.n:
        available = available_cores()
        r = measure(n, args.jobs, args.download_jobs)
        results.append(r)
        used = r["cpu"] / r["wall"]
        print("top-pypi:%-5d %4d scanned  %7.1f s  %8.1f files/s  %6.2f MB/s  waiting on the network %5.1f %%  "
              "CPU used %.2f cores of %d (busy processes got %.2f just before: ratio %.2f)  "
              "peak RSS %6.1f MB (largest worker %6.1f MB)" % (
                  n, r["scanned"], r["wall"], r["files"] / r["wall"], r["bytes"] / r["wall"] / 1e6,
                  100 * r["waiting"] / r["wall"], used, cores, available, used / available if available else 0,
                  r["rss_kb"] / 1024, r["worker_rss_kb"] / 1024), flush=True)
        print("    resident memory after 1/4, 1/2, 3/4 and all of the projects: %s MB" % ", ".join(
            "%.0f" % (kb / 1024) for kb in r["rss_quarters_kb"]), flush=True)
    if len(results) > 1:
        first, last = results[0], results[-1]
        print("peak RSS top-pypi:%d / top-pypi:%d: %.2f (goal <= 1.5)" % (
            last["n"], first["n"], last["rss_kb"] / first["rss_kb"]))


if __name__ == "__main__":
    main()
