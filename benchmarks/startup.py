"""Benchmark: how long ``punstats --version`` and ``punstats --help`` take, whole process.

Each round starts, one after the other, an interpreter that only imports
``argparse`` (the baseline: what any command line costs), ``python -m punstats
--version`` and ``python -m punstats --help``, so the three share the machine's
state.  Prints the median wall times and the ratio of each command to the
baseline (goal: 3 or less), and which heavy libraries a command imported
(there should be none).

    python benchmarks/startup.py [--rounds N]
"""
import argparse
import statistics
import subprocess
import sys
import time

import compiled

HEAVY = ("pandas", "pyarrow", "matplotlib", "dask", "tqdm")
COMMANDS = {
    "baseline (import argparse)": [sys.executable, "-c", "import argparse"],
    "punstats --version": [sys.executable, "-m", "punstats", "--version"],
    "punstats --help": [sys.executable, "-m", "punstats", "--help"],
}
#: the same commands, printing which heavy libraries they left in sys.modules
PROBE = ("import runpy, sys\nsys.argv = ['punstats', %r]\ntry:\n    runpy.run_module('punstats', run_name='__main__')\n"
         "except SystemExit:\n    pass\nsys.stderr.write(' '.join(m for m in %r if m in sys.modules))\n")


def _time(argv):
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def heavy_imports(option):
    """The heavy libraries ``punstats OPTION`` imports."""
    proc = subprocess.run([sys.executable, "-c", PROBE % (option, HEAVY)], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True, check=True)
    return proc.stderr.split()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    compiled.ensure()
    times = {name: [] for name in COMMANDS}
    for argv in COMMANDS.values():  # warm the file-system cache and the bytecode
        _time(argv)
    for _ in range(args.rounds):
        for name, argv in COMMANDS.items():
            times[name].append(_time(argv))
    base = statistics.median(times["baseline (import argparse)"])
    print("%d rounds, %s" % (args.rounds, sys.version.split()[0]))
    for name, values in times.items():
        median = statistics.median(values)
        line = "%-28s median %6.1f ms  (min %.1f, max %.1f)" % (name, 1000 * median, 1000 * min(values),
                                                                1000 * max(values))
        if name.startswith("punstats"):
            option = name.split()[1]
            line += "  ratio %.2f  goal <= 3  heavy imports: %s" % (median / base,
                                                                     ", ".join(heavy_imports(option)) or "none")
        print(line)


if __name__ == "__main__":
    main()
