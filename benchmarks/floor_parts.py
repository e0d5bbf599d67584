"""Benchmark: what each step of a file's extraction adds to parsing it, as ratios from one run.

One process, the garbage collector paused (as ``extract`` pauses it), over
the same files held in memory, in rounds that rotate the steps so drift of a
shared machine affects each alike.  Each step includes the ones before it:

- ``parse``: decoding and ``ast.parse`` (freeing the tree included), the
  baseline every other step is divided by;
- ``+ traversal``: the walk (``extract.walk``) with no pattern at all: only
  the calls, f-strings, classes and functions it always tracks;
- ``+ headline``: the walk with the ``call`` kind alone (``f(x=x)``);
- ``+ every kind``: the walk with every built-in kind;
- ``+ lines of code``: and ``codelines.code_lines``;
- ``extract``: the whole of ``traversal.extract`` (the record, its sha256,
  the rows sorted).

Prints each step's median CPU time over the rounds, its ratio to ``parse``
(median, min, max) and what it adds to the step before.  A scan's goal is
within 1.15x of the parse floor (``scan_stdlib.py``), so the steps after
parsing have 0.15 of it between them, the scan process and the workers' own
start-up included.

    python benchmarks/floor_parts.py [--runs N] [PATH]
"""
import argparse
import ast
import gc
import statistics
import sys
import time
import warnings

STEPS = ("parse", "+ traversal", "+ headline", "+ every kind", "+ lines of code", "extract")


def files(path):
    """(path, bytes) of every Python file the scan of ``path`` (default: the standard library) reads."""
    from punstats.discover.tree import discover
    from punstats.sources import resolve

    found = discover(resolve(path).root)
    out = []
    for candidate in found.candidates:
        if not candidate.status:
            with open(candidate.location, "rb") as handle:
                out.append((candidate.location, handle.read()))
    return out


def steps():
    """Per step, a function of (path, data) doing that step's work on one file."""
    from punstats.extract.codelines import code_lines
    from punstats.extract.decode import decode_source
    from punstats.extract.text import SourceText
    from punstats.extract.traversal import extract
    from punstats.extract.walk import walk
    from punstats.model.records import count_lines
    from punstats.patterns.built_in import PATTERNS

    headline = tuple(kind for kind in PATTERNS if kind.name == "call")

    def parsed(path, data):
        try:
            text, _ = decode_source(data)
            return text, ast.parse(text, filename=path)
        except (SyntaxError, ValueError, UnicodeDecodeError, LookupError, RecursionError, MemoryError):
            return None, None

    def walked(kinds, lines=False):
        def step(path, data):
            text, tree = parsed(path, data)
            if tree is not None:
                source = SourceText(text)
                result = walk(path, tree, source, kinds)
                if lines:
                    code_lines(tree, source, count_lines(data), result.scopes)
        return step

    return dict(zip(STEPS, (parsed, walked(()), walked(headline), walked(PATTERNS), walked(PATTERNS, True),
                            lambda path, data: extract(path, data))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", help="corpus (default: the standard library)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    corpus = files(args.path)
    work = steps()
    times = {name: [] for name in STEPS}
    gc.disable()
    for round_ in range(args.runs):
        # each round starts at another step, so no step always runs first
        order = STEPS[round_ % len(STEPS):] + STEPS[:round_ % len(STEPS)]
        for name in order:
            step = work[name]
            start = time.process_time()
            for path, data in corpus:
                step(path, data)
            times[name].append(time.process_time() - start)
    print("%d files, %d rounds, one process; CPU seconds, ratios to parse in the same round"
          % (len(corpus), args.runs))
    before = None
    for name in STEPS:
        ratios = [t / p for t, p in zip(times[name], times["parse"])]
        median = statistics.median(times[name])
        added = "" if before is None else "  adds %.3f" % (statistics.median(ratios) - before)
        print("%-16s %6.2f s  ratio %.3f (min %.3f, max %.3f)%s"
              % (name, median, statistics.median(ratios), min(ratios), max(ratios), added))
        before = statistics.median(ratios)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
