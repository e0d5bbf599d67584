"""Benchmark: ``corpus top-pypi:N`` end to end: where the time goes, CPU use and peak memory.

Each N runs in a child process of its own (so that its peak RSS is its own)
with a new, empty cache directory (downloads and blob cache), so every
project is downloaded and every file extracted; with ``--downloads DIR`` the
downloads are kept in DIR and shared by every run instead, so that only the
first one waits for the network.  For each N it prints files/s and MB/s
(unpacked bytes of the scanned releases) and the stage breakdown, each stage's
wall time and CPU time:

- in the fetch threads (overlapping the rest): resolving the release, downloading it, unpacking it;
- in the scan loop: waiting for a download, scanning (discovery, extraction, the scan's tables);
- in the store thread (overlapping the next scan): the project's record and tables, its tree
  deleted, its files written and synced;

then the CPU busy share of the whole process tree (the run and its workers,
sampled from psutil twice a second: CPU seconds over wall seconds times
cores) and how much of it the run's own process used, its peak RSS (summed over the tree) and that of the run alone, the
worker pools started, and a projection of the wall time for 8,000 projects
from the measured cost per project.  As the baseline for the CPU share it also
measures, just before each N, how much CPU one busy process per core gets on
this machine at that moment (on a shared machine, much less than all of it).
With several N it also prints the peak RSS of the largest N over the
smallest's (goal: at most 1.5, memory flat in N).

``--against DIR`` runs each N with another version of punstats too (DIR holds
its ``punstats`` package, e.g. ``git worktree add DIR COMMIT``), interleaved
with this one ``--repeat`` times (the machine's load changes between runs),
and prints this version's wall time and CPU busy share over the other's.
``--pattern P`` counts a user pattern too (``--pattern`` of the command line), and
``--no-cache`` runs without the blob cache (``--no-cache``).
It needs the network (PyPI) and psutil (``pip install punstats[bench]``).

``--offline DIR`` needs no network: DIR is a downloads folder of an earlier run
(``<sha256>/<archive>``, e.g. the ``sdists`` folder of a punstats cache).  Each
run gets a copy of it made of hard links (DIR is never written), an index on
127.0.0.1 answers each project's JSON from those archives, and the list is the
pinned snapshot's projects that have an archive there, in rank order (so
``top-pypi:N`` is the first N of those).  The run's own process is sampled
too (four times a second): its RSS while the projects are scanned (median and
largest) beside its peak, which the summary at the end may set.

    python benchmarks/top_pypi.py N [N ...] [--jobs J] [--download-jobs D] [--downloads DIR | --offline DIR]
                                  [--pattern P] [--no-cache] [--against DIR] [--repeat R]
"""
import argparse
import functools
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time

#: The fetch threads' stages: functions of ``punstats.sources.pypi`` timed where they run.
FETCH_STAGES = (("resolve", "resolve_latest"), ("download", "download"), ("unpack", "unpack_cached"))

PROJECTION = 8000

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timed(module, name, label, stages, lock):
    """``module.name`` adding its wall and thread CPU seconds to ``stages[label]``."""
    real = getattr(module, name)

    @functools.wraps(real)
    def wrapper(*args, **kwargs):
        wall, cpu = time.perf_counter(), time.thread_time()
        try:
            return real(*args, **kwargs)
        finally:
            with lock:
                stage = stages.setdefault(label, [0.0, 0.0, 0])
                stage[0] += time.perf_counter() - wall
                stage[1] += time.thread_time() - cpu
                stage[2] += 1
    setattr(module, name, wrapper)


class Sampler:
    """``sample()`` every ``every`` seconds in a thread, from entering the ``with`` block until leaving it
    (or ``stop`` set)."""

    every = 0.5

    def __init__(self):
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def loop(self):
        while not self.stop.wait(self.every):
            self.sample()

    def sample(self):
        raise NotImplementedError

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


class TreeSampler(Sampler):
    """CPU seconds and peak RSS of this process and its descendants, sampled twice a second."""

    def __init__(self):
        import psutil
        super().__init__()
        self.psutil, self.me = psutil, psutil.Process()
        self.peak, self.gone_cpu, self.seen = 0, 0.0, {}

    def sample(self):
        members, rss, alive = [self.me] + self.me.children(recursive=True), 0, {}
        for member in members:
            try:
                times, info = member.cpu_times(), member.memory_info()
            except self.psutil.Error:  # exited meanwhile
                continue
            rss += info.rss
            alive[member.pid] = times.user + times.system
        for pid, cpu in self.seen.items():  # a worker that exited keeps its last sampled CPU
            if pid not in alive and pid != self.me.pid:
                self.gone_cpu += cpu
        self.seen, self.peak = alive, max(self.peak, rss)

    def cpu(self):
        return self.gone_cpu + sum(self.seen.values())


def use_version(folder):
    """Import punstats from ``folder``, even where an editable install's import hook would win over
    ``sys.path`` (and so over ``PYTHONPATH``): every version compared would be the installed one."""
    sys.meta_path[:] = [finder for finder in sys.meta_path
                        if not (getattr(finder, "__module__", None) or "").startswith("__editable__")]
    sys.path.insert(0, folder)
    import punstats
    if os.path.dirname(os.path.dirname(os.path.abspath(punstats.__file__))) != os.path.abspath(folder):
        sys.exit("punstats was imported from %s, not %s" % (punstats.__file__, folder))


#: An archive in a downloads folder: ``<sha256>/<file>`` (a pure wheel is stored as ``<file>.zip``).
ARCHIVE = re.compile(r"(?P<name>.+?)-(?P<version>[^-]+?)(?P<wheel>-[^-]+-[^-]+-[^-]+\.whl)?"
                     r"(?P<ending>\.tar\.gz|\.tar\.bz2|\.tgz|\.zip)$")


def archives(folder):
    """{PEP 503 name: (name, version, file name, sha256, size, packagetype)} of the archives in ``folder``."""
    found = {}
    for sha in sorted(os.listdir(folder)):
        if not re.fullmatch(r"[0-9a-f]{64}", sha) or not os.path.isdir(os.path.join(folder, sha)):
            continue
        for stored in sorted(os.listdir(os.path.join(folder, sha))):
            wheel = stored.endswith(".whl.zip")
            match = ARCHIVE.fullmatch(stored)
            if stored.startswith(".") or match is None or bool(match.group("wheel")) != wheel:
                continue
            filename = stored[:-len(".zip")] if wheel else stored
            size = os.path.getsize(os.path.join(folder, sha, stored))
            found.setdefault(re.sub(r"[-_.]+", "-", match.group("name")).lower(), (
                match.group("name"), match.group("version"), filename, sha, size,
                "bdist_wheel" if wheel else "sdist"))
    return found


def linked_copy(source, target):
    """``source``'s archives in ``target`` as hard links (copies across file systems): the run
    unpacks, trims and locks in ``target``, never in ``source``."""
    import shutil
    for sha in os.listdir(source):
        for stored in os.listdir(os.path.join(source, sha)) if os.path.isdir(os.path.join(source, sha)) else ():
            if stored.startswith("."):
                continue
            os.makedirs(os.path.join(target, sha), exist_ok=True)
            try:
                os.link(os.path.join(source, sha, stored), os.path.join(target, sha, stored))
            except OSError:
                shutil.copy2(os.path.join(source, sha, stored), os.path.join(target, sha, stored))


def serve_index(projects):
    """A PyPI JSON API on 127.0.0.1 for ``projects`` (``archives``): its index URL and its server."""
    import http.server

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            match = re.fullmatch(r"/pypi/([^/]+)/json", self.path)
            entry = projects.get(re.sub(r"[-_.]+", "-", match.group(1)).lower()) if match else None
            body, status = b"not found", 404
            if entry is not None:
                name, version, filename, sha, size, kind = entry
                files = [{"filename": filename, "packagetype": kind, "url": base + "/files/" + filename,
                          "digests": {"sha256": sha}, "size": size, "yanked": False,
                          "upload_time_iso_8601": "2026-01-01T00:00:00Z"}]
                body, status = json.dumps({"info": {"name": name, "version": version}, "urls": files}).encode(), 200
            self.send_response(status)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    base = "http://127.0.0.1:%d" % server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return base + "/pypi", server


def offline_list(path, projects):
    """The pinned snapshot's rows of ``projects``, ranked again from 1, written to ``path``."""
    from punstats.sources.toppypi import SNAPSHOT
    with open(SNAPSHOT, encoding="utf-8") as handle:
        snapshot = json.load(handle)
    rows = [row for row in snapshot["rows"] if re.sub(r"[-_.]+", "-", row[1]).lower() in projects]
    snapshot["rows"] = [[rank, name, downloads] for rank, (_, name, downloads) in enumerate(rows, 1)]
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(snapshot, handle)
    return len(rows)


class MainSampler(Sampler):
    """The RSS of this process, four times a second, while the projects are scanned."""

    every = 0.25

    def __init__(self):
        super().__init__()
        self.samples = []

    def sample(self):
        self.samples.append(current_rss_kb())


def child(n, jobs, download_jobs, output, downloads, pattern, cache=True, listing=None, index_url=None):
    from punstats.engines import local
    from punstats.runs import ecosystem, projects
    from punstats.sources import pypi
    stages, lock = {}, threading.Lock()
    for label, name in FETCH_STAGES:
        timed(pypi, name, "fetch: " + label, stages, lock)
    try:  # this version's unpacking in processes of its own: the fetch thread waits for it
        from punstats.runs import unpacking
        timed(unpacking.Unpackers, "unpack", "fetch: unpack (waiting)", stages, lock)
    except ImportError:  # an older version unpacks in the fetch threads
        pass
    pools = []
    real_pool = local.new_pool
    local.new_pool = lambda jobs: pools.append(jobs) or real_pool(jobs)
    # the stages of the scan loop and of the store thread, as the run's Timing counts them
    timing = ecosystem.Timing()
    options = dict(output=output, jobs=jobs, download_jobs=download_jobs, cache=cache)
    if downloads:
        options["downloads"] = downloads
    if pattern:
        options["patterns"] = [pattern]
    if index_url:
        options["index_url"] = index_url
    go, _ = projects.top_pypi_run("top-pypi:%d" % n, listing, **options)
    rss = []  # the run's resident memory after each project: flat, or growing with N?
    cpu_before = os.times()
    start = time.perf_counter()
    with TreeSampler() as tree, MainSampler() as main_rss:
        # sampled until the last project is stored, not while the summary is made
        _, summary = go(timing=timing, on_done=lambda record, reused: rss.append(current_rss_kb())
                        or (len(rss) == n and main_rss.stop.set()))
        wall = time.perf_counter() - start
        tree.sample()
    scanning = sorted(main_rss.samples) or [0]
    cpu = os.times()
    main_cpu = cpu.user + cpu.system - cpu_before.user - cpu_before.system
    used = sum(getattr(cpu, k) - getattr(cpu_before, k) for k in ("user", "system", "children_user",
                                                                     "children_system"))
    for where, label in (("loop", "waiting"), ("loop", "scanning"), ("store", "storing")):
        if hasattr(timing, label):  # an older version's Timing may lack it: absent, not 0
            stages["%s: %s" % (where, label)] = [getattr(timing, label), getattr(timing, label + "_cpu", None), n]
    print(json.dumps({"n": n, "wall": wall, "waiting": timing.waiting, "files": timing.files,
                      "bytes": timing.bytes, "cpu": max(used, tree.cpu()), "main_cpu": main_cpu,
                      "scanned": summary["scanned"],
                      "stages": stages, "pools": len(pools), "tree_rss_kb": tree.peak // 1024,
                      "rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                      "scan_rss_kb": [scanning[len(scanning) // 2], scanning[-1]],
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


def measure(n, args, version=None):
    """The child's measures of top-pypi:N, with the punstats in ``version`` (a folder) or this one."""
    with tempfile.TemporaryDirectory() as directory:
        env = dict(os.environ, PUNSTATS_CACHE_DIR=os.path.join(directory, "cache"))
        command = [sys.executable, os.path.abspath(__file__), "--child", str(n), "--download-jobs",
                   str(args.download_jobs), "--output", os.path.join(directory, "out"),
                   "--version", os.path.abspath(version or ROOT)]
        downloads, server = args.downloads, None
        if args.offline:
            downloads = os.path.join(directory, "downloads")
            linked_copy(args.offline, downloads)
            found = archives(downloads)
            listed = offline_list(os.path.join(directory, "list.json"), found)
            if listed < n:
                sys.exit("--offline: %s holds the archives of %d projects of the list, fewer than %d"
                         % (args.offline, listed, n))
            index_url, server = serve_index(found)
            command += ["--list", os.path.join(directory, "list.json"), "--index-url", index_url]
        for flag, value in (("--jobs", args.jobs), ("--downloads", downloads), ("--pattern", args.pattern)):
            command += [flag, str(value)] if value else []
        command += ["--no-cache"] if args.no_cache else []
        try:
            done = subprocess.run(command, env=env, capture_output=True, text=True)
        finally:
            if server is not None:
                server.shutdown()
        if done.returncode:
            sys.exit("top-pypi:%d failed: %s" % (n, done.stderr.strip().splitlines()[-1:]))
        return json.loads(done.stdout.strip().splitlines()[-1])


def report(r, available, label=""):
    cores = os.cpu_count() or 1
    used = r["cpu"] / r["wall"]
    print("%stop-pypi:%-5d %4d scanned  %7.1f s  %8.1f files/s  %6.2f MB/s  waiting on the network %5.1f %%  "
          "CPU used %.2f cores of %d, busy %.0f %% (busy processes got %.2f just before: ratio %.2f)  "
          "peak RSS %6.1f MB, of the process tree %6.1f MB (largest worker %6.1f MB), %d worker pools" % (
              label, r["n"], r["scanned"], r["wall"], r["files"] / r["wall"], r["bytes"] / r["wall"] / 1e6,
              100 * r["waiting"] / r["wall"], used, cores, 100 * used / cores, available,
              used / available if available else 0, r["rss_kb"] / 1024, r["tree_rss_kb"] / 1024,
              r["worker_rss_kb"] / 1024, r["pools"]), flush=True)
    for stage, (wall, cpu, count) in sorted(r["stages"].items()):
        print("    %-18s %8.1f s wall%s  (%d)" % (stage, wall, "" if cpu is None else ", %7.1f s CPU" % cpu, count))
    print("    resident memory after 1/4, 1/2, 3/4 and all of the projects: %s MB" % ", ".join(
        "%.0f" % (kb / 1024) for kb in r["rss_quarters_kb"]), flush=True)
    if "scan_rss_kb" in r:
        print("    the run's own process while the projects are scanned: median %.0f MB, largest %.0f MB "
              "(its peak, the summary's included: %.0f MB)" % (r["scan_rss_kb"][0] / 1024, r["scan_rss_kb"][1] / 1024,
                                                                r["rss_kb"] / 1024), flush=True)
    if "main_cpu" in r:
        print("    CPU of the run's own process %.2f cores (%.0f %% of the CPU used), of its workers %.2f cores"
              % (r["main_cpu"] / r["wall"], 100 * r["main_cpu"] / r["cpu"], (r["cpu"] - r["main_cpu"]) / r["wall"]))
    per = r["wall"] / r["n"]
    print("    per project: %.2f s wall, %.2f s CPU; %d projects at this rate: %.0f min; with every core busy: %.0f min"
          % (per, r["cpu"] / r["n"], PROJECTION, per * PROJECTION / 60, r["cpu"] / r["n"] / cores * PROJECTION / 60))


def compare(n, args):
    """This version against ``args.against``, interleaved; the ratios of the medians."""
    import statistics
    walls, shares = {"this": [], "other": []}, {"this": [], "other": []}
    cpus, mains = {"this": [], "other": []}, {"this": [], "other": []}
    for _ in range(args.repeat):
        for name, version in (("other", args.against), ("this", None)):
            available = available_cores()
            r = measure(n, args, version)
            report(r, available, "[%s] " % name)
            walls[name].append(r["wall"])
            shares[name].append(r["cpu"] / r["wall"] / available if available else 0)
            cpus[name].append(r["cpu"])
            mains[name].append(r["main_cpu"] / r["cpu"])
    median = statistics.median
    print("top-pypi:%d, this version over %s: wall %.2f, CPU used over what a busy process got %.2f, "
          "CPU %.2f; the run's own process's share of the CPU %.0f %% against %.0f %%" % (
              n, args.against, median(walls["this"]) / median(walls["other"]),
              median(shares["this"]) / median(shares["other"]), median(cpus["this"]) / median(cpus["other"]),
              100 * median(mains["this"]), 100 * median(mains["other"])), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int, nargs="+")
    parser.add_argument("--jobs", type=int, default=None, help="extraction processes (default: all cores)")
    parser.add_argument("--download-jobs", type=int, default=4)
    parser.add_argument("--downloads", help="keep the downloads in this folder, shared by every run")
    parser.add_argument("--offline", metavar="DIR",
                        help="no network: the projects whose archives DIR holds (a downloads folder, read only)")
    parser.add_argument("--pattern", help="a user pattern to count too (as --pattern takes it)")
    parser.add_argument("--no-cache", action="store_true", help="no blob cache (as corpus --no-cache)")
    parser.add_argument("--against", help="a folder holding another version's punstats package, to compare with")
    parser.add_argument("--repeat", type=int, default=1, help="with --against: runs of each version, interleaved")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--output", help=argparse.SUPPRESS)
    parser.add_argument("--version", help=argparse.SUPPRESS)
    parser.add_argument("--list", help=argparse.SUPPRESS)
    parser.add_argument("--index-url", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.offline and args.downloads:
        parser.error("--offline reads its archives from its folder: drop --downloads")
    if args.child:
        use_version(args.version)
        return child(args.n[0], args.jobs, args.download_jobs, args.output, args.downloads, args.pattern,
                     not args.no_cache, args.list, args.index_url)
    results = []
    for n in args.n:
        if args.against:
            compare(n, args)
            continue
        available = available_cores()
        results.append(measure(n, args))
        report(results[-1], available)
    if len(results) > 1:
        first, last = results[0], results[-1]
        print("peak RSS top-pypi:%d / top-pypi:%d: %.2f (goal <= 1.5)" % (
            last["n"], first["n"], last["rss_kb"] / first["rss_kb"]))


if __name__ == "__main__":
    main()
