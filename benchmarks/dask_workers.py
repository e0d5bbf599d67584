"""Benchmark: a top-N run on the Dask engine with 1 and 2 workers, and a projection to 64.

The projects are packages of the running interpreter's standard library, each
served as an sdist by the tests' fake index on 127.0.0.1 (no network), so a
run's cost is its workers' (download from this machine, unpack, scan) and the
storing on the client.  Each worker count gets its own ``LocalCluster``
(single-threaded worker processes), started before the clock, and a run with
an empty downloads folder and no blob cache, so every file is extracted.  With
``--pattern FILE``, each run counts that pattern too.

It prints the wall time of each run and the speed-up from 1 to 2 workers, the
measured cost of each project on a worker (the duration of its task, from the
scheduler's task stream) and the CPU of the client's main thread per project
(the storing, done one project at a time), and projects the wall time on 64 workers: the
projects' measured costs placed in rank order, each on the worker free
first (as the run hands them out), but never less than the client's serial
storing time; the same for the measured costs repeated to ``--projected N``
projects (default 5,000).  The projection leaves out the network (PyPI's
answers and downloads) and the scheduler's limits, so it is an upper bound on
the speed-up.  On a machine with fewer than 2 free cores (a shared one), the
2-worker speed-up is below what 2 cores would give: it prints the load average.

    python benchmarks/dask_workers.py [--packages 8] [--pattern FILE] [--projected 5000]
"""
import argparse
import heapq
import os
import pathlib
import sys
import sysconfig
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))

from fakeindex import FakePyPI, sdist, top_list  # noqa: E402  (the tests' fake index)

#: Standard library packages served as projects, largest work first in the list's rank order.
PACKAGES = ("email", "json", "http", "logging", "unittest", "xml", "importlib", "concurrent", "urllib",
            "asyncio", "sqlite3", "collections", "multiprocessing", "tomllib", "zoneinfo", "wsgiref")


def package_files(name):
    """{path in the sdist: text} of the standard library package ``name`` (its .py files)."""
    root = os.path.join(sysconfig.get_path("stdlib"), name)
    files = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        for file_name in sorted(names):
            if file_name.endswith(".py"):
                path = os.path.join(folder, file_name)
                with open(path, encoding="utf-8", errors="replace") as handle:
                    files["std_%s/%s" % (name, os.path.relpath(path, root))] = handle.read()
    return files


def serve(index, names):
    """The packages ``names`` on the fake index; their total bytes."""
    total = 0
    for name in names:
        files = package_files(name)
        total += sum(len(text.encode()) for text in files.values())
        index.project("std-" + name, "1.0", [("std-%s-1.0.tar.gz" % name, sdist("std-" + name, "1.0", files),
                                               "sdist")])
    return total


def timed_run(workers, listing, index, names, pattern, folder):
    """(wall seconds, the client's main thread CPU seconds, {task: worker seconds}) of one run on
    ``workers`` workers (the fake index serves from other threads: not counted)."""
    import distributed

    from punstats.runs import projects
    with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                                  scheduler_kwargs={"dashboard_address": ":0"}) as cluster, \
            distributed.Client(cluster.scheduler_address, set_as_default=False) as client:
        go, _ = projects.top_pypi_run("top-pypi:%d" % len(names), listing, output=os.path.join(folder, "out"),
                                      index_url=index.index_url, engine="dask", scheduler=cluster.scheduler_address,
                                      cache=False, downloads=os.path.join(folder, "downloads"),
                                      patterns=[pattern] if pattern else [])
        client.get_task_stream()  # starts the scheduler's record of task durations
        cpu, start = time.thread_time(), time.perf_counter()
        records, _ = go()
        wall, used = time.perf_counter() - start, time.thread_time() - cpu
        stream = client.get_task_stream(start=time.time() - wall - 1)
    failed = [r["project"] for r in records if r["status"] != "scanned"]
    if failed:
        sys.exit("projects not scanned: %s" % ", ".join(failed))
    return wall, used, task_seconds(stream)


def task_seconds(stream):
    """{task key: seconds computing} of the project tasks in a task stream."""
    seconds = {}
    for task in stream:
        if "project_task" in str(task["key"]):
            seconds[task["key"]] = sum(s["stop"] - s["start"] for s in task["startstops"] if s["action"] == "compute")
    return seconds


def makespan(costs, workers):
    """Seconds until ``costs`` (in rank order, each to the worker free first) are all done on ``workers``."""
    free = [0.0] * workers
    for cost in costs:
        heapq.heappush(free, heapq.heappop(free) + cost)
    return max(free)


def projected(costs, client_per_project, workers):
    """Projected wall seconds of ``costs`` on ``workers``: the workers' makespan, or the client's storing."""
    return max(makespan(costs, workers), client_per_project * len(costs))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--packages", type=int, default=8, help="standard library packages as projects (max %d)"
                        % len(PACKAGES))
    parser.add_argument("--pattern", help="a pattern file each run counts too")
    parser.add_argument("--projected", type=int, default=5000, help="projects of the larger projection")
    args = parser.parse_args()
    names = [n for n in PACKAGES if os.path.isdir(os.path.join(sysconfig.get_path("stdlib"), n))][:args.packages]
    index = FakePyPI()
    try:
        with tempfile.TemporaryDirectory() as folder:
            total = serve(index, names)
            listing = top_list(pathlib.Path(folder, "list.json"), ["std-" + n for n in names])
            runs = {w: timed_run(w, listing, index, names, args.pattern, os.path.join(folder, str(w))) for w in (1, 2)}
    finally:
        index.close()
    report(names, total, runs, args.projected)


def report(names, total, runs, larger):
    (wall1, cpu1, tasks1), (wall2, _, _) = runs[1], runs[2]
    costs = list(tasks1.values())
    client = cpu1 / len(names)
    print("%d projects (standard library packages), %.1f MB of source; cores here: %d, load average %.1f"
          % (len(names), total / 1e6, os.cpu_count() or 1, os.getloadavg()[0]))
    print("1 worker:  %6.2f s" % wall1)
    print("2 workers: %6.2f s   speed-up %.2f" % (wall2, wall1 / wall2))
    print("per project on a worker: median %.3f s, mean %.3f s, max %.3f s (sum %.2f s); client CPU %.3f s"
          % (sorted(costs)[len(costs) // 2], sum(costs) / len(costs), max(costs), sum(costs), client))
    for count, label in ((len(costs), "these %d projects" % len(costs)), (larger, "%d projects" % larger)):
        repeated = [costs[i % len(costs)] for i in range(count)]
        one, many = projected(repeated, client, 1), projected(repeated, client, 64)
        print("projected, %s: 1 worker %.1f s, 64 workers %.1f s (speed-up %.1f%s)"
              % (label, one, many, one / many, "; client-bound" if client * count >= makespan(repeated, 64) else ""))


if __name__ == "__main__":
    main()
