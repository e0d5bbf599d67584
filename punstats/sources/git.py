"""Reading a git revision without a checkout: commits, trees and blobs.

Everything is read with git's plumbing (``rev-parse``, ``rev-list``, ``ls-tree
-r -z``, ``cat-file --batch``), never with ``git archive`` (which silently
drops paths marked ``export-ignore``) and never by checking anything out, so a
revision scan sees every file the commit holds.

A scanned repository never chooses a program and never changes how git's
output is encoded.  git runs without system or global configuration and with
command-line overrides (which win over the repository's own ``.git/config``)
for every key that names a program or an output encoding (``OVERRIDES``);
commit objects are read raw with ``cat-file`` and parsed here, so no command
that can verify a signature (and so run ``gpg.program``) or re-encode a
message ever runs; no transport is allowed when reading, so a promisor remote
cannot be fetched from lazily.  Clones allow only ``REMOTE_SCHEMES``, follow a
redirect only on the first request and only to https, and fetch no submodules.

Symbolic links (mode 120000) and submodules (mode 160000) are recorded with a
status and never followed.

Nothing a repository holds can stop a run: before git runs on one, its files
are checked (``gitcheck``: no FIFO, no device, no huge metadata file), and
every git call has a deadline and ends with its process group
(``gitprocess``).
"""
from __future__ import annotations

import dataclasses
import datetime
import os
import shutil
import urllib.parse
from dataclasses import dataclass
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from punstats.model.corpus import Corpus
from punstats.sources import gitprocess
from punstats.sources.gitcheck import check_path, check_repository
from punstats.sources.gitprocess import GitAborted, GitError
from punstats.sources.local import METADATA_BYTES, corpus_name, printable, read_small

MODE_SYMLINK = "120000"


MODE_SUBMODULE = "160000"


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


#: ``-c`` overrides for every configuration key that runs a program or changes
#: an output encoding; command-line configuration wins over the repository's.
OVERRIDES = (
    "core.fsmonitor=false", "core.hooksPath=/dev/null", "core.pager=cat", "pager.log=false",
    "core.sshCommand=ssh", "core.askPass=", "core.alternateRefsCommand=", "credential.helper=",
    "diff.external=", "gpg.program=gpg", "gpg.openpgp.program=gpg", "gpg.x509.program=gpgsm",
    "gpg.ssh.program=ssh-keygen", "gpg.ssh.defaultKeyCommand=", "log.showSignature=false",
    "i18n.logOutputEncoding=UTF-8", "color.ui=never", "submodule.recurse=false",
    "fetch.recurseSubmodules=false", "gc.auto=0", "maintenance.auto=false", "protocol.allow=never",
)


#: Transports ``git+URL@REV`` may use (``ext::`` and the like could run commands).
REMOTE_SCHEMES = ("https://", "http://", "ssh://", "git://", "file://")


#: The overrides of a clone or fetch: the documented transports, and only those; a redirect
#: (followed for the first request only) may lead to https only: git asks curl to follow a
#: redirect only to a transport "always" allowed, and the user's URL may use one allowed for "user".
FETCH_OVERRIDES = OVERRIDES + ("http.followRedirects=initial",) + tuple(
    "protocol.%s.allow=%s" % (s.split(":")[0], "always" if s == "https://" else "user") for s in REMOTE_SCHEMES)


def _env(fetching: bool = False) -> Dict[str, str]:
    """git's environment: no system or global config; no transport at all unless ``fetching``."""
    env = dict(os.environ)
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0",
               LC_ALL="C", GIT_NO_REPLACE_OBJECTS="1", GIT_NO_LAZY_FETCH="1", GIT_PAGER="cat",
               GIT_LITERAL_PATHSPECS="1", GIT_PROTOCOL_FROM_USER="1", GIT_ALLOW_PROTOCOL="")
    if fetching:  # the protocol.* overrides decide (a list here would let redirects use all it names)
        env.pop("GIT_ALLOW_PROTOCOL")
    for name in ("GIT_DIR", "GIT_WORK_TREE", "GIT_EXTERNAL_DIFF", "GIT_CONFIG", "GIT_COMMON_DIR",
                 "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_INDEX_FILE"):
        env.pop(name, None)
    return env


def git_argv(gitdir: Optional[str], *args: str, fetching: bool = False) -> List[str]:
    """The command line of one git call, with the overrides before the command."""
    argv = [gitprocess.GIT, "--no-pager", "--no-replace-objects"]
    if gitdir is not None:
        argv += ["--git-dir", gitdir]
    for override in FETCH_OVERRIDES if fetching else OVERRIDES:
        argv += ["-c", override]
    return argv + list(args)


def run_git(gitdir: Optional[str], *args: str, input: Optional[bytes] = None, fetching: bool = False) -> bytes:
    """git's output; ``GitError`` when it fails, ``GitAborted`` past its deadline."""
    deadline = gitprocess.FETCH_DEADLINE if fetching else None
    status, out, err = gitprocess.run(git_argv(gitdir, *args, fetching=fetching), _env(fetching), input, deadline)
    if status != 0:
        message = err.decode("utf-8", "replace").strip().splitlines()
        raise GitError("git %s failed: %s" % (args[0], message[-1] if message else status))
    return out


def git_dir(path: str) -> str:
    """The git directory of ``path`` (a bare repository, a ``.git`` folder or a work tree),
    its files checked (``gitcheck.check_repository``) before any git runs on it."""
    gitdir = _find_git_dir(path)
    check_repository(gitdir, _env())
    return gitdir


def _find_git_dir(path: str) -> str:
    path = os.path.abspath(path)
    if not os.path.exists(path):
        raise GitError("no such file or directory: %s" % path)
    check_path(os.path.join(path, ".git"), METADATA_BYTES)  # a FIFO or a device named .git: refused
    for candidate in (os.path.join(path, ".git"), path):
        if os.path.isfile(candidate):  # "gitdir: ..." of a worktree or submodule
            line = (read_small(candidate) or "").strip()
            if line.startswith("gitdir:"):
                return os.path.normpath(os.path.join(path, line[len("gitdir:"):].strip()))
        elif os.path.isdir(candidate) and os.path.isdir(os.path.join(candidate, "objects")):
            check_path(os.path.join(candidate, "HEAD"), METADATA_BYTES)  # a FIFO: named, not "not a repository"
            if os.path.isfile(os.path.join(candidate, "HEAD")):
                return candidate
    raise GitError("not a git repository: %s" % path)


def _iso_date(timestamp: bytes, offset: bytes) -> str:
    """``1696161600 +0200`` -> ``2023-10-01T14:00:00+02:00`` (git's ``%cI``)."""
    sign = -1 if offset.startswith(b"-") else 1
    digits = offset.lstrip(b"+-")
    zone = datetime.timezone(sign * datetime.timedelta(hours=int(digits[:-2] or 0), minutes=int(digits[-2:])))
    return datetime.datetime.fromtimestamp(int(timestamp), zone).isoformat()


def parse_commit(sha: str, raw: bytes) -> Commit:
    """A commit object's committer date and subject, decoded as its ``encoding`` header says."""
    headers, _, message = raw.partition(b"\n\n")
    date, encoding = "", "utf-8"
    for line in headers.split(b"\n"):
        if line.startswith(b"committer "):
            fields = line.rsplit(b" ", 2)
            try:
                date = _iso_date(fields[1], fields[2])
            except (IndexError, ValueError, OverflowError, OSError):
                date = ""
        elif line.startswith(b"encoding "):
            encoding = line[len(b"encoding "):].decode("ascii", "replace").strip()
    try:
        text = message.decode(encoding, "replace")
    except LookupError:
        text = message.decode("utf-8", "replace")
    return Commit(sha, date, _subject(text))


def _subject(message: str) -> str:
    """git's ``%s``: the first paragraph after blank lines, lines right-stripped, joined by spaces."""
    lines: List[str] = []
    for line in message.split("\n"):
        if not line.strip():
            if lines:
                break
            continue
        lines.append(line.rstrip())
    return " ".join(lines)


def read_commits(gitdir: str, shas: Sequence[str]) -> List[Commit]:
    """The commits ``shas`` name, read raw with ``cat-file --batch`` (10,000 a call, so that
    memory stays flat) and parsed here."""
    commits: List[Commit] = []
    for start in range(0, len(shas), 10000):
        commits += _read_commit_chunk(gitdir, shas[start:start + 10000])
    return commits


def _read_commit_chunk(gitdir: str, shas: Sequence[str]) -> List[Commit]:
    out = run_git(gitdir, "cat-file", "--batch", input="\n".join(shas).encode() + b"\n")
    commits, at = [], 0
    for sha in shas:
        end = out.index(b"\n", at)
        parts = out[at:end].split()
        if len(parts) != 3 or parts[1] != b"commit":
            raise GitError("not a commit: %s" % sha)
        size = int(parts[2])
        commits.append(parse_commit(parts[0].decode(), out[end + 1:end + 1 + size]))
        at = end + 1 + size + 1
    return commits


def resolve_commit(gitdir: str, rev: str) -> Commit:
    """The commit ``rev`` names, with its committer date."""
    if not rev or rev.startswith("-"):
        raise GitError("bad revision %r" % rev)
    try:
        sha = run_git(gitdir, "rev-parse", "--verify", "--quiet", "--end-of-options",
                   rev + "^{commit}").decode().strip()
    except GitAborted:
        raise
    except GitError:
        raise GitError("unknown revision %r in %s" % (rev, gitdir)) from None
    return read_commits(gitdir, [sha])[0]


def first_parent_commits(gitdir: str, rev: str, since: str = "", until: str = "") -> List[Commit]:
    """First-parent history of ``rev`` within [since, until] (committer dates), oldest first."""
    return read_commits(gitdir, first_parent_shas(gitdir, rev, since, until))


def first_parent_shas(gitdir: str, rev: str, since: str = "", until: str = "", last: int = 0) -> List[str]:
    """The ids of ``first_parent_commits`` (the newest ``last`` of them, if not 0), no commit object read."""
    args = ["--since=" + since] * bool(since) + ["--until=" + until] * bool(until) + ["-n%d" % last] * bool(last)
    out = run_git(gitdir, "rev-list", "--first-parent", *args, resolve_commit(gitdir, rev).sha, "--")
    return out.decode().split()[::-1]


def grep_commits(gitdir: str, pattern: str) -> List[str]:
    """Ids of the non-merge commits of every ref whose message matches ``pattern`` (any case),
    newest first."""
    return run_git(gitdir, "rev-list", "--all", "-i", "--no-merges", "--grep=" + pattern).decode().split()


def text_of(raw: bytes) -> str:
    return raw.decode("utf-8", "backslashreplace")


def list_tree(gitdir: str, commit: str, subdir: str = "") -> List[TreeEntry]:
    """Every blob, link and submodule of ``commit`` (below ``subdir``), in git's order."""
    args = ["ls-tree", "-r", "-z", "--full-tree", commit]
    if subdir:
        args += ["--", subdir.strip("/") + "/"]
    out = run_git(gitdir, *args)
    entries = []
    for record in out.split(b"\0"):
        if not record:
            continue
        meta, _, path = record.partition(b"\t")
        mode, kind, oid = meta.decode().split()
        entries.append(TreeEntry(mode, kind, oid, text_of(path)))
    return entries


class BlobReader:
    """A ``git cat-file --batch`` process: object id in, bytes out, each answer within
    ``gitprocess.READ_DEADLINE``; closing it ends the process with its group."""

    def __init__(self, gitdir: str) -> None:
        self.gitdir = gitdir
        self._batch = gitprocess.Batch(git_argv(gitdir, "cat-file", "--batch"), _env())
        self._check: Optional[gitprocess.Batch] = None  # ``cat-file --batch-check``, started when first asked

    def sizes(self, oids: Iterable[str]) -> Dict[str, int]:
        """``blob_sizes``, asked of one ``cat-file --batch-check`` kept running (not one per call)."""
        if self._check is None:
            self._check = gitprocess.Batch(git_argv(self.gitdir, "cat-file", "--batch-check"), _env())
        wanted, sizes = list(oids), {}
        for oid, answer in zip(wanted, self._check.answers([oid.encode() for oid in wanted])):
            parts = answer.split()
            if len(parts) == 3:
                sizes[oid] = int(parts[2])
        return sizes

    def read(self, oid: str) -> bytes:
        """The object's contents; ``GitError`` if it is missing, ``GitAborted`` if git stops answering."""
        self._batch.request(oid.encode())
        header = self._batch.readline()
        parts = header.split()
        if len(parts) != 3:
            raise GitError("cannot read object %s: %s" % (oid, header.decode("utf-8", "replace").strip()))
        data = self._batch.read(int(parts[2]))
        self._batch.read(1)  # the newline after the contents
        return data

    def read_many(self, oids: Iterable[str]) -> Iterator[Tuple[str, bytes]]:
        for oid in oids:
            yield oid, self.read(oid)

    def close(self) -> None:
        self._batch.close()
        if self._check is not None:
            self._check.close()

    def __enter__(self) -> "BlobReader":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def blob_sizes(gitdir: str, oids: Sequence[str]) -> Dict[str, int]:
    """Sizes of objects, in one ``cat-file --batch-check`` call."""
    if not oids:
        return {}
    out = run_git(gitdir, "cat-file", "--batch-check", input="\n".join(oids).encode() + b"\n")
    sizes = {}
    for line in out.decode().splitlines():
        parts = line.split()
        if len(parts) == 3:
            sizes[parts[0]] = int(parts[2])
    return sizes


def repository_name(gitdir: str) -> str:
    """What a repository is called: its work tree's folder, or the bare repository's without ``.git``."""
    base = corpus_name(os.path.dirname(gitdir) if os.path.basename(gitdir) == ".git" else gitdir, "")
    if base.endswith(".git"):
        base = base[:-4]
    if base == "repo":  # a fetched mirror: .../owner+name/repo
        base = corpus_name(os.path.dirname(gitdir), "").split("+")[-1] or base
    return base or "repo"


def git_corpus(path: str, rev: str, subdir: str = "") -> Corpus:
    """The corpus of one revision of a repository (``path`` may be bare or a work tree)."""
    gitdir = git_dir(path)
    commit = resolve_commit(gitdir, rev)
    name = "%s@%s" % (repository_name(gitdir), commit.sha[:12])
    source = printable("%s@%s" % (path, rev) + (":" + subdir if subdir else ""))
    return Corpus(name, gitdir, source, commit.sha, commit.date, is_revision=True)


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


def _check_local_source(url: str) -> None:
    """``GitError`` if the repository a ``file://`` URL names holds a file git could block on."""
    source = urllib.parse.unquote(urllib.parse.urlsplit(url).path)
    if os.path.exists(source):  # else git says what is wrong
        try:
            git_dir(source)
        except GitError as exc:
            raise GitError("cannot clone %s: %s" % (url, exc)) from None


def remote_corpus(argument: str, cache_dir: Optional[str] = None) -> Corpus:
    """The corpus of ``git+URL@REV``: a bare clone kept in the cache directory
    (fetched again when it exists), read at REV like any revision scan."""
    import hashlib

    from punstats.cache import default_dir
    url, rev = parse_remote(argument)
    if url.startswith("file://"):  # a repository on this machine: its files are checked like any other
        _check_local_source(url)
    clone = os.path.join(cache_dir or default_dir(), "repos", hashlib.sha256(url.encode()).hexdigest()[:24])
    if os.path.isdir(os.path.join(clone, "objects")):
        check_repository(clone, _env())
        # the URL itself, never the clone's remote configuration (which could name an upload-pack)
        run_git(clone, "fetch", "--quiet", "--prune", "--no-recurse-submodules", "--upload-pack=git-upload-pack",
             "--", url, "+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*", fetching=True)
    else:
        partial = clone + ".partial-%d" % os.getpid()
        argv = git_argv(None, "clone", "--quiet", "--bare", "--no-recurse-submodules", "--template=",
                        "--upload-pack=git-upload-pack", "--", url, partial, fetching=True)
        try:
            status, _, err = gitprocess.run(argv, _env(fetching=True), deadline=gitprocess.FETCH_DEADLINE)
        except BaseException:  # over the deadline, interrupted: nothing half-cloned is left
            shutil.rmtree(partial, ignore_errors=True)
            raise
        if status != 0:
            shutil.rmtree(partial, ignore_errors=True)
            message = " ".join(err.decode("utf-8", "replace").split()) or status
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

