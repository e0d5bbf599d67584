"""Benchmark: a warm ``punstats history`` (every result in the cache) against the cold one.

Runs ``punstats history REPO --every commit -q -o DIR --rev-range HEAD~N..HEAD``
three times as separate processes on one new, empty cache: cold (every
distinct blob extracted and stored), warm into the same place (nothing
changed: the stored history is kept as it is), and warm into a new place
(the table written and the figure drawn again).  Checks that every run
stored the same counts and prints, for each, the time of the whole process
and of its sweep over the revisions (``runs.history.history_rows``), and the
ratios warm / cold measured in this run (goals: 0.1 or less, whole process).

REPO defaults to a synthetic repository built in a temporary directory from
this interpreter's standard library (``git fast-import``): ``--depth`` small
commits first (a long history before the revisions walked, as a real
repository has: a range must not cost a walk over it), one commit adding
every ``.py`` file, then ``--commits`` commits each editing a few files, now
and then adding, deleting or moving one into or out of a test directory, so
it runs anywhere git does.  With a REPO of your own, ``--commits`` takes its
last N first-parent commits.

    python benchmarks/history_warm.py [--commits 100] [--depth 0] [--jobs N] [REPO]
"""
import argparse
import os
import random
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time

import compiled

#: git as the benchmark runs it to build its repository: no system or global configuration.
GIT_ENV = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, LC_ALL="C")


def stdlib_files() -> dict:
    """Every ``.py`` file of this interpreter's standard library: relative path -> bytes."""
    root = sysconfig.get_path("stdlib")
    files = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in ("site-packages", "__pycache__"))
        for name in sorted(names):
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path, "rb") as handle:
                    files[os.path.relpath(path, root).replace(os.sep, "/")] = handle.read()
    return files


def _data(payload: bytes) -> bytes:
    return b"data %d\n%s\n" % (len(payload), payload)


def _commit(number: int, changes: list) -> bytes:
    """One commit of a ``fast-import`` stream (on top of the last): (path, bytes or None to delete) each."""
    when = 1600000000 + number * 86400
    out = [b"commit refs/heads/main\n", b"committer b <b@example.org> %d +0000\n" % when,
           _data(b"commit %d" % number)]
    for path, payload in changes:
        if payload is None:
            out.append(b"D %s\n" % path.encode())
        else:
            out.append(b"M 100644 inline %s\n" % path.encode() + _data(payload))
    return b"".join(out)


def _changes(rng: random.Random, tree: dict, number: int) -> list:
    """A few edits (a punnable call appended), and now and then an added, deleted or moved file."""
    paths = sorted(tree)
    changes = []
    for path in rng.sample(paths, 3):
        tree[path] += b"\nf(x%d=x%d, y=1)\n" % (number, number)
        changes.append((path, tree[path]))
    if number % 7 == 0:  # a copy under a new name: a blob the cache knows already
        source = rng.choice(paths)
        tree["added/copy_%d.py" % number] = tree[source]
        changes.append(("added/copy_%d.py" % number, tree[source]))
    if number % 10 == 0:
        gone = rng.choice(paths)
        changes.append((gone, None))
        tree.pop(gone, None)
    if number % 13 == 0:  # into a test directory, or out of one
        moved = rng.choice(sorted(tree))
        target = moved[len("tests/"):] if moved.startswith("tests/") else "tests/" + moved
        if target not in tree:
            tree[target] = tree.pop(moved)
            changes += [(moved, None), (target, tree[target])]
    if number % 17 == 0:  # a file that stops parsing
        broken = rng.choice(sorted(tree))
        tree[broken] = b"def broken(:\n"
        changes.append((broken, tree[broken]))
    return changes


def synthetic_repo(directory: str, commits: int, depth: int = 0) -> str:
    """A repository of ``depth`` small commits, the standard library and ``commits`` commits after it."""
    subprocess.run(["git", "init", "-q", "--bare", directory], check=True, env=GIT_ENV)
    tree = stdlib_files()
    rng = random.Random(21)
    stream = [_commit(number - depth, [("NOTES", b"note %d\n" % number)]) for number in range(depth)]
    stream.append(_commit(0, sorted(tree.items())))
    for number in range(1, commits + 1):
        stream.append(_commit(number, _changes(rng, tree, number)))
    subprocess.run(["git", "--git-dir", directory, "fast-import", "--quiet"], input=b"".join(stream),
                   check=True, env=GIT_ENV)
    subprocess.run(["git", "--git-dir", directory, "symbolic-ref", "HEAD", "refs/heads/main"], check=True,
                   env=GIT_ENV)
    return directory


#: A child process: ``punstats history`` as the command line runs it, printing (on its last line of
#: standard error) the seconds the sweep over the revisions took, without start-up, imports and figure.
CHILD = """
import sys, time
from punstats import cli
from punstats.runs import history
sweep = history.history_rows
def timed(*args, **kwargs):
    start = time.perf_counter()
    try:
        return sweep(*args, **kwargs)
    finally:
        sys.stderr.write("%r\\n" % (time.perf_counter() - start))
history.history_rows = timed
sys.exit(cli.main(sys.argv[1:]))
"""


def history(repo: str, output: str, env: dict, commits: int, jobs: int) -> tuple:
    """Seconds one ``punstats history`` process takes, and its sweep over the revisions."""
    command = [sys.executable, "-c", CHILD, "history", repo, "--every", "commit", "-q", "-o", output,
               "--rev-range", "HEAD~%d..HEAD" % commits]
    command += ["--jobs", str(jobs)] if jobs else []
    start = time.perf_counter()
    done = subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    return time.perf_counter() - start, float(done.stderr.decode().split()[-1])


def table(directory: str):
    """A stored history's table, without how each row's results were got."""
    import pandas as pd
    return pd.read_parquet(os.path.join(directory, "history.parquet")).drop(columns=["files_from_cache",
                                                                                      "files_extracted"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", nargs="?", help="a git repository (default: a synthetic one from the stdlib)")
    parser.add_argument("--commits", type=int, default=100, help="revisions after the first (default: 100)")
    parser.add_argument("--depth", type=int, default=0,
                        help="small commits before the synthetic repository's first revision (default: 0)")
    parser.add_argument("--jobs", type=int, default=0)
    args = parser.parse_args()
    compiled.ensure()
    import pandas as pd
    with tempfile.TemporaryDirectory() as directory:
        repo = args.repo or synthetic_repo(os.path.join(directory, "repo.git"), args.commits, args.depth)
        env = dict(os.environ, PUNSTATS_CACHE_DIR=os.path.join(directory, "cache"))
        first, second = os.path.join(directory, "history"), os.path.join(directory, "elsewhere")
        cold = history(repo, first, env, args.commits, args.jobs)
        stored = {name: open(os.path.join(first, name), "rb").read() for name in os.listdir(first)}
        kept = history(repo, first, env, args.commits, args.jobs)
        assert stored == {name: open(os.path.join(first, name), "rb").read() for name in os.listdir(first)}
        warm = history(repo, second, env, args.commits, args.jobs)
        pd.testing.assert_frame_equal(table(first), table(second))
        shutil.rmtree(first)
    print("repository %s, %d revisions" % (args.repo or "synthetic (standard library, %d commits before)"
                                            % args.depth, args.commits))
    print("                           whole process   the sweep over the revisions")
    print("cold history               %9.2f s     %9.2f s   (empty cache)" % cold)
    print("warm history, same place   %9.2f s     %9.2f s   (kept as it was)" % kept)
    print("warm history, new place    %9.2f s     %9.2f s   (table and figure written)" % warm)
    for name, run in (("same place", kept), ("new place", warm)):
        print("ratio warm / cold, %-10s %6.3f         %6.3f     goal <= 0.1 (whole process)"
              % (name, run[0] / cold[0], run[1] / cold[1]))


if __name__ == "__main__":
    main()
