"""Reading a git revision without a checkout: commits, trees and blobs.

Everything is read with git's plumbing (``rev-parse``, ``log``, ``ls-tree -r
-z``, ``cat-file --batch``), never with ``git archive`` (which silently drops
paths marked ``export-ignore``) and never by checking anything out, so a
revision scan sees every file the commit holds.  git runs with a neutral
configuration (no system or global config files, no hooks are involved in
these commands).

Symbolic links (mode 120000) and submodules (mode 160000) are recorded with a
status and never followed.
"""
from __future__ import annotations

import dataclasses
import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from punstats.model.corpus import Corpus

MODE_SYMLINK = "120000"


MODE_SUBMODULE = "160000"


class GitError(ValueError):
    """A repository or revision that cannot be read; the message is for the user."""


@dataclass(frozen=True)
class TreeEntry:
    """One entry of ``git ls-tree -r``: a blob, a symbolic link or a submodule."""

    mode: str
    kind: str  # "blob" or "commit" (a submodule)
    oid: str
    path: str  # POSIX, relative to the repository root, undecodable bytes escaped


@dataclass(frozen=True)
class Commit:
    sha: str
    date: str  # committer date, ISO 8601 with offset
    subject: str = ""


def _env() -> Dict[str, str]:
    env = dict(os.environ)
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0",
               LC_ALL="C")
    env.pop("GIT_DIR", None)
    env.pop("GIT_WORK_TREE", None)
    return env


def _git(gitdir: str, *args: str, input: Optional[bytes] = None) -> bytes:
    try:
        done = subprocess.run(["git", "--git-dir", gitdir, *args], input=input, env=_env(),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError("git %s failed: %s" % (args[0], message[-1] if message else done.returncode))
    return done.stdout


def git_dir(path: str) -> str:
    """The git directory of ``path``: a bare repository, a ``.git`` folder or a work tree."""
    path = os.path.abspath(path)
    if not os.path.exists(path):
        raise GitError("no such file or directory: %s" % path)
    for candidate in (os.path.join(path, ".git"), path):
        if os.path.isfile(candidate):  # "gitdir: ..." of a worktree or submodule
            try:
                with open(candidate, encoding="utf-8") as handle:
                    line = handle.read().strip()
            except OSError:
                continue
            if line.startswith("gitdir:"):
                return os.path.normpath(os.path.join(path, line[len("gitdir:"):].strip()))
        elif os.path.isdir(candidate) and os.path.exists(os.path.join(candidate, "HEAD")) \
                and os.path.isdir(os.path.join(candidate, "objects")):
            return candidate
    raise GitError("not a git repository: %s" % path)


def resolve_commit(gitdir: str, rev: str) -> Commit:
    """The commit ``rev`` names, with its committer date."""
    if not rev or rev.startswith("-"):
        raise GitError("bad revision %r" % rev)
    try:
        sha = _git(gitdir, "rev-parse", "--verify", "--quiet", "--end-of-options",
                   rev + "^{commit}").decode().strip()
    except GitError:
        raise GitError("unknown revision %r in %s" % (rev, gitdir)) from None
    out = _git(gitdir, "show", "-s", "--format=%cI%x00%s", sha).decode("utf-8", "replace")
    date, _, subject = out.rstrip("\n").partition("\0")
    return Commit(sha, date, subject)


def first_parent_commits(gitdir: str, rev: str, since: str = "", until: str = "") -> List[Commit]:
    """First-parent history of ``rev`` within [since, until] (committer dates), oldest first."""
    args = ["log", "--first-parent", "--format=%H%x00%cI%x00%s", "-z"]
    if since:
        args.append("--since=" + since)
    if until:
        args.append("--until=" + until)
    out = _git(gitdir, *args, resolve_commit(gitdir, rev).sha, "--")
    fields = out.decode("utf-8", "replace").split("\0")
    commits = [Commit(fields[i].strip("\n"), fields[i + 1], fields[i + 2])
               for i in range(0, len(fields) - 2, 3) if fields[i].strip("\n")]
    commits.reverse()
    return commits


def _text(raw: bytes) -> str:
    return raw.decode("utf-8", "backslashreplace")


def list_tree(gitdir: str, commit: str, subdir: str = "") -> List[TreeEntry]:
    """Every blob, link and submodule of ``commit`` (below ``subdir``), in git's order."""
    args = ["ls-tree", "-r", "-z", "--full-tree", commit]
    if subdir:
        args += ["--", subdir.strip("/") + "/"]
    out = _git(gitdir, *args)
    entries = []
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, kind, oid = meta.decode().split()
        entries.append(TreeEntry(mode, kind, oid, _text(path)))
    return entries


class BlobReader:
    """A ``git cat-file --batch`` process: object id in, bytes out."""

    def __init__(self, gitdir: str) -> None:
        self.gitdir = gitdir
        self._proc = subprocess.Popen(["git", "--git-dir", gitdir, "cat-file", "--batch"],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=_env())

    def read(self, oid: str) -> bytes:
        assert self._proc.stdin and self._proc.stdout
        self._proc.stdin.write(oid.encode() + b"\n")
        self._proc.stdin.flush()
        header = self._proc.stdout.readline()
        parts = header.split()
        if len(parts) != 3:
            raise GitError("cannot read object %s: %s" % (oid, header.decode("utf-8", "replace").strip()))
        size = int(parts[2])
        data = self._proc.stdout.read(size)
        self._proc.stdout.read(1)  # the newline after the contents
        return data

    def read_many(self, oids: Iterable[str]) -> Iterator[Tuple[str, bytes]]:
        for oid in oids:
            yield oid, self.read(oid)

    def close(self) -> None:
        if self._proc.poll() is None:
            assert self._proc.stdin
            self._proc.stdin.close()
            self._proc.wait()

    def __enter__(self) -> "BlobReader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def blob_sizes(gitdir: str, oids: Sequence[str]) -> Dict[str, int]:
    """Sizes of objects, in one ``cat-file --batch-check`` call."""
    if not oids:
        return {}
    out = _git(gitdir, "cat-file", "--batch-check", input="\n".join(oids).encode() + b"\n")
    sizes = {}
    for line in out.decode().splitlines():
        parts = line.split()
        if len(parts) == 3:
            sizes[parts[0]] = int(parts[2])
    return sizes


def git_corpus(path: str, rev: str, subdir: str = "") -> Corpus:
    """The corpus of one revision of a repository (``path`` may be bare or a work tree)."""
    gitdir = git_dir(path)
    commit = resolve_commit(gitdir, rev)
    base = os.path.basename(os.path.dirname(gitdir) if os.path.basename(gitdir) == ".git" else gitdir)
    if base.endswith(".git"):
        base = base[:-4]
    if base == "repo":  # a fetched mirror: .../owner+name/repo
        base = os.path.basename(os.path.dirname(gitdir)).split("+")[-1] or base
    name = "%s@%s" % (base or "repo", commit.sha[:12])
    source = "%s@%s" % (path, rev) + (":" + subdir if subdir else "")
    return Corpus(name, gitdir, source, commit.sha, commit.date, is_revision=True)


#: Transports ``git+URL@REV`` may use (``ext::`` and the like could run commands).
REMOTE_SCHEMES = ("https://", "http://", "ssh://", "git://", "file://")


def parse_remote(argument: str) -> Tuple[str, str]:
    """``git+URL@REV`` -> (URL, REV); REV defaults to HEAD."""
    spec = argument[len("git+"):]
    if not spec.startswith(REMOTE_SCHEMES):
        raise GitError("git+URL needs one of %s, not %r" % (", ".join(REMOTE_SCHEMES), spec))
    scheme_end = spec.index("://") + 3
    url, at, rev = spec.rpartition("@")
    if not at or len(url) < scheme_end or "/" in rev:  # an @ only in user@host, or none at all
        url, rev = spec, "HEAD"
    return url, rev or "HEAD"


def remote_corpus(argument: str, cache_dir: Optional[str] = None) -> Corpus:
    """The corpus of ``git+URL@REV``: a bare clone kept in the cache directory
    (fetched again when it exists), read at REV like any revision scan."""
    import hashlib

    from punstats.cache import default_dir
    url, rev = parse_remote(argument)
    clone = os.path.join(cache_dir or default_dir(), "repos", hashlib.sha256(url.encode()).hexdigest()[:24])
    if os.path.isdir(os.path.join(clone, "objects")):
        _git(clone, "fetch", "--quiet", "--prune", "origin", "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*")
    else:
        partial = clone + ".partial-%d" % os.getpid()
        try:
            done = subprocess.run(["git", "clone", "--quiet", "--bare", "--", url, partial],
                                  env=dict(_env(), GIT_ALLOW_PROTOCOL="file:git:http:https:ssh"),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
        except FileNotFoundError:
            raise GitError("git is not installed") from None
        if done.returncode != 0:
            message = " ".join(done.stderr.decode("utf-8", "replace").split()) or done.returncode
            raise GitError("cannot clone %s: %s" % (url, message))
        os.makedirs(os.path.dirname(clone), exist_ok=True)
        try:
            os.rename(partial, clone)  # only a complete clone takes the name
        except OSError:  # another scan got there first
            shutil.rmtree(partial, ignore_errors=True)
    corpus = git_corpus(clone, rev)
    name = url.rstrip("/").rsplit("/", 1)[-1]
    name = name[:-4] if name.endswith(".git") else name
    return dataclasses.replace(corpus, name="%s@%s" % (name or "repo", corpus.revision[:12]), source=argument)

