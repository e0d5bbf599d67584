"""Benchmark: peak memory of showing a finished ecosystem run against its number of projects.

Makes the small finished run of the tests (``tests/fakerun.py``: ``corpus
top-pypi:7`` against a fake index on 127.0.0.1, with a user pattern), then
finished runs of 2,000 and 20,000 projects made of copies of its records (each
project's ``projects/<name>.json``, its journal line, the run's ``run.json``
and an ``ecosystem.json`` aggregated from the copies), and runs ``punstats
table DIR`` on each in a child process of its own, which prints its peak RSS.
``table`` reads every project's record (``store.ecosystem.read_run``), makes
the per-project table and bootstraps its intervals; it does not read the
combined ``occurrences`` and ``files`` datasets, which the copies leave out.
It prints each peak, the peak of a child that only imports what ``table``
imports (the baseline), the ratio of the largest run's peak to the smallest's
and the memory each project added between them (the records held: linear in
the projects, about 10 kB each).

    python benchmarks/run_records.py [--sizes 2000,20000]
"""
import argparse
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "tests"))

#: A child that runs the command line given and prints its peak RSS in KiB (Linux) on stderr.
CHILD = ("import resource, sys\n"
         "from punstats.cli import main\n"
         "status = main(sys.argv[1:]) if sys.argv[1:] else 0\n"
         "import punstats.present.ecosystem, punstats.store.ecosystem, pandas, pyarrow\n"
         "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
         "sys.exit(status)\n")


def template(root):
    """The tests' finished run in ``root`` (made once): its directory."""
    from fakerun import make_run
    os.makedirs(root)
    directory, _ = make_run(root, "--no-figure")
    return directory


def copied_run(source, target, count):
    """A finished run of ``count`` projects in ``target``: the records of ``source`` again and again,
    each copy named and ranked anew."""
    from punstats.analysis.ecosystem import aggregate
    from punstats.store.ecosystem import ECOSYSTEM_FILE, JOURNAL, RUN_FILE, load_record, read_run
    stored = read_run(source)
    originals = [load_record(source, r["project"]) for r in stored.records]
    os.makedirs(os.path.join(target, "projects"))
    records, lines = [], []
    for rank in range(1, count + 1):
        record = dict(originals[(rank - 1) % len(originals)], rank=rank, project="p%06d" % rank)
        with open(os.path.join(target, "projects", record["project"] + ".json"), "w", encoding="utf-8") as handle:
            json.dump(record, handle, indent=1)
        lines.append(json.dumps({"rank": rank, "project": record["project"], "status": record["status"]}))
        records.append(record)
    with open(os.path.join(target, JOURNAL), "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    shutil.copy(os.path.join(source, RUN_FILE), os.path.join(target, RUN_FILE))
    ecosystem = dict(stored.ecosystem, **aggregate(records), asked=count)
    with open(os.path.join(target, ECOSYSTEM_FILE), "w", encoding="utf-8") as handle:
        json.dump(ecosystem, handle, indent=1)


def peak_kib(*argv):
    """The peak RSS (KiB) of a child running ``punstats ARGV`` (none: only the imports), and its wall time."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD, *argv], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, check=True)
    return int(done.stderr.strip().splitlines()[-1]), time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="2000,20000", help="numbers of projects, comma-separated")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    root = tempfile.mkdtemp(prefix="run-records-")
    try:
        source = template(pathlib.Path(root) / "template")
        baseline, _ = peak_kib()
        print("baseline (imports only): peak RSS %.0f MB" % (baseline / 1024))
        peaks = []
        for size in sizes:
            directory = os.path.join(root, "run-%d" % size)
            copied_run(source, directory, size)
            peak, wall = peak_kib("table", directory, "-o", os.path.join(root, "table-%d.rst" % size))
            peaks.append(peak)
            print("%6d projects: punstats table peak RSS %.0f MB (%.0f MB above the baseline), %.1f s"
                  % (size, peak / 1024, (peak - baseline) / 1024, wall))
        if len(sizes) > 1:
            print("%d over %d projects: peak %.2fx for %.0fx the projects; %.1f kB per project more"
                  % (sizes[-1], sizes[0], peaks[-1] / peaks[0], sizes[-1] / sizes[0],
                     (peaks[-1] - peaks[0]) * 1.024 / (sizes[-1] - sizes[0])))
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
