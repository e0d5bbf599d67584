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
