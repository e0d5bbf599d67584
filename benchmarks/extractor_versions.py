"""Benchmark: this extractor against an earlier version of itself, in one run.

Up to the restructure into stages the extractor was one self-contained file,
``punstats/extract.py`` (standard library only), so an earlier version is
loaded straight from git; the current one is ``punstats.extract.traversal``.
Both extract the same files in the same process, alternately.  Prints each version's median
time per pass over the corpus and the ratio current / earlier, e.g. to check
that recording more kinds kept the scan within 10% of its earlier wall time.

    python benchmarks/extractor_versions.py [--rev REV] [--runs N] [PATH]

REV defaults to fb015e2, the last extractor with the headline count only.
"""
import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", help="corpus (default: the standard library)")
    parser.add_argument("--rev", default="fb015e2", help="git revision of the earlier extractor")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()

    from punstats.discover.read import read_source
    from punstats.discover.tree import discover
    from punstats.sources import resolve

    earlier_source = subprocess.run(["git", "-C", REPO, "show", "%s:punstats/extract.py" % args.rev],
                                    check=True, capture_output=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        earlier_path = os.path.join(tmp, "extract_earlier.py")
        with open(earlier_path, "wb") as handle:
            handle.write(earlier_source)
        import importlib
        versions = {"current": importlib.import_module("punstats.extract.traversal"),
                    args.rev: load(earlier_path, "extract_earlier")}
        corpus = resolve(args.path)
        sources = [(c.path, read_source(c.location)) for c in discover(corpus.root).candidates if not c.status]
        times = {name: [] for name in versions}
        for _ in range(args.runs):
            for name, module in versions.items():
                start = time.process_time()
                for path, data in sources:
                    module.extract(path, data)
                times[name].append(time.process_time() - start)
    print("corpus %s: %d files, %d runs each, CPU seconds per pass" % (corpus.name, len(sources), args.runs))
    for name, runs in times.items():
        print("%-10s median %6.2f s  (min %.2f, max %.2f)" % (name, statistics.median(runs), min(runs), max(runs)))
    ratios = [a / b for a, b in zip(times["current"], times[args.rev])]
    print("ratio current / %s: median %.3f (per pair: %s)  goal <= 1.10"
          % (args.rev, statistics.median(ratios), ", ".join("%.3f" % r for r in ratios)))


if __name__ == "__main__":
    main()
