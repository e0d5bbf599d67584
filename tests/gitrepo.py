"""Building small git repositories for the tests (git must be installed)."""
import os
import subprocess
from typing import Dict, Optional, Tuple

ENV = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull,
           GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.org",
           GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.org")


def git(repo, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], env=ENV, check=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE).stdout.decode().strip()


def init(repo) -> None:
    os.makedirs(repo, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")


def commit(repo, files: Dict[str, Optional[str]], message: str = "c", date: str = "2023-10-01T12:00:00+00:00",
           links: Optional[Dict[str, str]] = None) -> str:
    """Write (None: delete) files, add symbolic links, commit at ``date``; the new commit id.
    ``repo`` must be a repository ``init`` made: never a folder git would take for part of an
    enclosing one (this project's own, say)."""
    assert os.path.isdir(os.path.join(str(repo), ".git")), "not a repository made by init: %r" % (repo,)
    for path, text in files.items():
        full = os.path.join(str(repo), path)
        if text is None:
            git(repo, "rm", "-q", "--", path)
            continue
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as handle:
            handle.write(text)
    for path, target in (links or {}).items():
        full = os.path.join(str(repo), path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        os.symlink(target, full)
    git(repo, "add", "-A")
    env = dict(ENV, GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    subprocess.run(["git", "-C", str(repo), "commit", "-q", "-m", message], env=env, check=True)
    return git(repo, "rev-parse", "HEAD")


def two_commit_origin(tmp_path) -> Tuple[str, str]:
    """A repository ``origin`` under ``tmp_path`` to read as a remote: ``a.py`` with one ``f(x=x)``
    in its first commit, ``b.py`` with two more in its second; (``git+file://`` URL, first commit)."""
    repo = tmp_path / "origin"
    init(repo)
    first = commit(repo, {"a.py": "f(x=x)\n"})
    commit(repo, {"b.py": "g(y=y, z=z)\n"})
    return "git+file://%s" % repo, first


def _data(payload: bytes) -> bytes:
    return b"data %d\n%s\n" % (len(payload), payload)


def _imported_commit(ref: str, mark: int, when: int, parents: Tuple[int, ...],
                     files: Dict[str, bytes]) -> bytes:
    """One commit of a ``git fast-import`` stream: on top of the commits marked ``parents`` (the
    first its first parent), with ``files`` written over the first parent's tree."""
    out = [b"commit %s\nmark :%d\n" % (ref.encode(), mark),
           b"committer t <t@example.org> %d +0000\n" % when, _data(b"commit %d" % mark)]
    out += [b"from :%d\n" % parents[0]] if parents else []
    out += [b"merge :%d\n" % parent for parent in parents[1:]]
    out += [b"M 100644 inline %s\n" % path.encode() + _data(text) for path, text in sorted(files.items())]
    return b"".join(out)


def _punnable(calls: int, number: int) -> bytes:
    """A file with ``calls`` punnable keyword arguments and one that is not."""
    return b"".join(b"f(a%d=a%d)\n" % (number, number) for _ in range(calls)) + b"g(b=%d)\n" % number


def merges_repo(repo, merges: int, files: int = 50) -> Dict[str, int]:
    """A bare repository at ``repo`` (``git fast-import``): a first commit of ``files`` files, then
    ``merges`` merge commits on ``main``, each merging a side commit made on the one before it
    (every 100th an octopus of two).  Each side commit edits a file under ``side/`` and one file
    ``side/ours.py`` that the merge leaves as its first parent has it; each merge takes the side
    edit and edits one file under ``pkg/``.  Commit N of main is dated N days after the first.
    The punnable keyword arguments each first-parent commit holds, by full commit id."""
    tree = {"pkg/m%d.py" % k: _punnable(1, k) for k in range(files)}
    tree["side/ours.py"] = _punnable(0, 0)
    stream, counts, mark = [_imported_commit("refs/heads/main", 1, 1600000000, (), tree)], [files], 1
    main = 1
    for number in range(1, merges + 1):
        when = 1600000000 + number * 86400
        sides = []
        for branch in range(2 if number % 100 == 0 else 1):
            mark += 1
            edit = {"side/s%d_%d.py" % (number % files, branch): _punnable(number % 3, number)}
            stream.append(_imported_commit("refs/heads/side%d" % branch, mark, when - 60, (main,),
                                           {**edit, "side/ours.py": _punnable(7, number)}))
            sides.append((mark, edit))
        mark += 1
        edits = {"pkg/m%d.py" % (number % files): _punnable(number % 4, number)}
        for _, edit in sides:
            edits.update(edit)
        stream.append(_imported_commit("refs/heads/main", mark, when, (main, *(m for m, _ in sides)), edits))
        tree.update(edits)
        counts.append(sum(text.count(b"f(a") for text in tree.values()))
        main = mark
    stream.append(b"".join(b"get-mark :%d\n" % m for m in range(1, mark + 1)))
    os.makedirs(str(repo), exist_ok=True)
    out = subprocess.run(["git", "--git-dir", str(repo), "init", "-q", "--bare", "-b", "main"], env=ENV, check=True)
    out = subprocess.run(["git", "--git-dir", str(repo), "fast-import", "--quiet"], input=b"".join(stream),
                         env=ENV, check=True, stdout=subprocess.PIPE)
    shas = out.stdout.decode().split()
    return {shas[m - 1]: n for m, n in zip(_main_marks(merges), counts)}


def _main_marks(merges: int):
    """The marks of main's commits in ``merges_repo``'s stream, oldest first."""
    mark = 1
    yield mark
    for number in range(1, merges + 1):
        mark += (2 if number % 100 == 0 else 1) + 1
        yield mark
