"""Benchmark: what one user pattern costs a scan, as a ratio from one run.

Times whole processes (start-up included), in rounds that alternate the two
commands, so drift of a shared machine affects both alike:

- ``punstats scan --no-cache --no-save`` of the standard library;
- the same with ``--pattern`` and the README's example pattern
  (return/break/continue in ``finally``, declared ``on=`` the three
  statements), written to a temporary file;
- the same pattern without ``on=`` (called for every node, its own
  ``isinstance`` test first), what a pattern that declares nothing costs.

Prints each side's best wall time and best CPU time (the scan and its workers)
over the rounds, and their ratios to the scan without a pattern; on a busy
machine the CPU times are the steadier.  Goal: the scan with the README's
pattern within 1.05x of the scan without.

    python benchmarks/pattern_overhead.py [--runs N] [--jobs N] [PATH]
"""
import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time

README = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "README.md")


def example_pattern() -> str:
    """The README's pattern example (the code block after "Your own patterns")."""
    with open(README, encoding="utf-8") as handle:
        text = handle.read()
    section = text[text.index("## Your own patterns"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def undeclared(pattern: str) -> str:
    """``pattern`` without its ``on=``: the same matches, tested by the function on every node."""
    head, _, rest = pattern.partition(",\n                  on=(ast.Return, ast.Break, ast.Continue))")
    body = "\n    if not isinstance(node, (ast.Return, ast.Break, ast.Continue)):\n        return False"
    lines = (head + ")" + rest).split("\n")
    index = next(i for i, line in enumerate(lines) if line.lstrip().startswith('"""A return'))
    return "\n".join(lines[:index + 1]) + body + "\n" + "\n".join(lines[index + 1:])


def timed(command, env):
    """(wall seconds, CPU seconds of the process and its workers) of one run of ``command``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", default=os.path.dirname(os.__file__))
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        plugin, every = os.path.join(tmp, "return_in_finally.py"), os.path.join(tmp, "every_node.py")
        with open(plugin, "w", encoding="utf-8") as handle:
            handle.write(example_pattern())
        with open(every, "w", encoding="utf-8") as handle:
            handle.write(undeclared(example_pattern()))
        env = dict(os.environ, PUNSTATS_CACHE_DIR=os.path.join(tmp, "cache"))
        base = [sys.executable, "-m", "punstats", "scan", "-q", "--no-cache", "--no-save", args.path]
        if args.jobs:
            base += ["-j", str(args.jobs)]
        commands = {"without": base, "with": base + ["--pattern", plugin], "no on=": base + ["--pattern", every]}
        times = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, command in commands.items():
                times[name].append(timed(command, env))
    for index, what in enumerate(("wall", "CPU")):
        best = {name: min(t[index] for t in values) for name, values in times.items()}
        for name in commands:
            print("%-4s %-8s best %.2f s of %d (%s)" % (what, name, best[name], args.runs,
                                                       ", ".join("%.2f" % t[index] for t in times[name])))
        print("%-4s ratio    with %.3fx (goal <= 1.05x), no on= %.3fx"
              % (what, best["with"] / best["without"], best["no on="] / best["without"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
