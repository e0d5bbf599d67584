"""Benchmark: reading a history sweep's objects with git's plumbing (what punstats
does) against dulwich (a pure-Python reader that runs no git process).

For the last N first-parent commits of REPO, lists every tree and reads each
distinct ``*.py`` blob once, both ways, alternating; checks that both read the
same blobs and bytes and prints the median times and the ratio dulwich / git.
Needs ``pip install dulwich``.

    python benchmarks/git_readers.py REPO [--commits 300] [--runs 3]
"""
import argparse
import statistics
import time

from punstats.sources import git as gitsource


def with_git(gitdir: str, count: int) -> tuple:
    commits = gitsource.first_parent_commits(gitdir, "HEAD")[-count:]
    seen = {}
    with gitsource.BlobReader(gitdir) as reader:
        for commit in commits:
            for entry in gitsource.list_tree(gitdir, commit.sha):
                if entry.kind == "blob" and entry.mode != gitsource.MODE_SYMLINK and entry.path.endswith(".py") \
                        and entry.oid not in seen:
                    seen[entry.oid] = len(reader.read(entry.oid))
    return len(commits), len(seen), sum(seen.values())


def with_dulwich(gitdir: str, count: int) -> tuple:
    from dulwich.repo import Repo
    repo = Repo(gitdir)
    sha, commits = repo.head(), []
    while sha and len(commits) < count:
        commit = repo[sha]
        commits.append(commit)
        sha = commit.parents[0] if commit.parents else None
    seen = {}
    for commit in commits:
        for entry in repo.object_store.iter_tree_contents(commit.tree):
            if entry.mode & 0o170000 == 0o100000 and entry.path.endswith(b".py") and entry.sha not in seen:
                seen[entry.sha] = len(repo.object_store[entry.sha].data)
    return len(commits), len(seen), sum(seen.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo")
    parser.add_argument("--commits", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    gitdir = gitsource.git_dir(args.repo)
    times = {"git": [], "dulwich": []}
    found = {}
    for _ in range(args.runs):
        for name, read in (("git", with_git), ("dulwich", with_dulwich)):
            start = time.perf_counter()
            found[name] = read(gitdir, args.commits)
            times[name].append(time.perf_counter() - start)
    assert found["git"] == found["dulwich"], found
    commits, blobs, size = found["git"]
    print("%d commits, %d distinct .py blobs, %d bytes" % (commits, blobs, size))
    for name, values in times.items():
        print("%-8s median %6.2f s  (min %.2f, max %.2f)" % (name, statistics.median(values), min(values), max(values)))
    print("ratio dulwich / git: %.2f" % (statistics.median(times["dulwich"]) / statistics.median(times["git"])))


if __name__ == "__main__":
    main()
