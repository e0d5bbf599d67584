"""A scanned repository never chooses a program: every command that reads git, on a
repository whose own configuration names a marker-writing script for every key
that could run one (and asks for UTF-16 output), runs no script and counts the same
as on a clean copy."""
import json
import os
import shutil
import stat
import subprocess

import pandas as pd
import pytest
from gitrepo import ENV, commit, git, init

import punstats
from punstats import cli
from punstats.sources import git as gitsource

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

HOOKS = ("pre-commit", "post-checkout", "post-merge", "reference-transaction", "pre-auto-gc",
         "post-rewrite", "fsmonitor-watchman", "push-to-checkout", "post-index-change")


def _script(path, marker):
    path.write_text("#!/bin/sh\necho \"$0 $*\" >> '%s'\nexit 1\n" % marker)
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def hostile_config(repo, tmp_path):
    """Append to ``repo/.git/config`` every program-choosing and encoding key; the marker path."""
    marker = tmp_path / "MARKER"
    evil = _script(tmp_path / "evil.sh", marker)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for name in HOOKS:
        _script(hooks / name, marker)
    for name in HOOKS:  # the repository's own hooks directory too
        _script(repo / ".git" / "hooks" / name, marker)
    with open(repo / ".git" / "config", "a") as handle:
        handle.write(f"""
[core]
\tfsmonitor = {evil}
\tpager = {evil}
\tsshCommand = {evil}
\taskPass = {evil}
\tgitProxy = {evil}
\talternateRefsCommand = {evil}
\thooksPath = {hooks}
[pager]
\tlog = {evil}
[gpg]
\tprogram = {evil}
[gpg "ssh"]
\tprogram = {evil}
\tdefaultKeyCommand = {evil}
[gpg "x509"]
\tprogram = {evil}
[log]
\tshowSignature = true
[diff]
\texternal = {evil}
[diff "evil"]
\ttextconv = {evil}
[filter "evil"]
\tclean = {evil}
\tsmudge = {evil}
\tprocess = {evil}
\trequired = true
[credential]
\thelper = !{evil}
[i18n]
\tlogOutputEncoding = UTF-16
[protocol]
\tallow = always
[protocol "ext"]
\tallow = always
[uploadpack]
\tpackObjectsHook = {evil}
[remote "origin"]
\turl = ext::{evil}
\tuploadpack = {evil}
\tfetch = +refs/heads/*:refs/remotes/origin/*
""")
    return marker


SIGNATURE = ("-----BEGIN PGP SIGNATURE-----\n\n"
             "iQEzBAABCAAdFiEEAAAAAAAAAAAAAAAAAAAAAAAAAAAFAmUZWoAACgkQAAAAAAAA\n"
             "-----END PGP SIGNATURE-----")


def signed_commit(repo, message="signed: the last one\n"):
    """A commit on top of HEAD (same tree) carrying a ``gpgsig`` header, written raw."""
    head = git(repo, "rev-parse", "HEAD")
    tree = git(repo, "rev-parse", "HEAD^{tree}")
    sig = "\n ".join(SIGNATURE.split("\n"))
    body = ("tree %s\nparent %s\nauthor t <t@example.org> 1700000000 +0100\n"
            "committer t <t@example.org> 1700000000 +0100\ngpgsig %s\n\n%s" % (tree, head, sig, message))
    sha = subprocess.run(["git", "-C", str(repo), "hash-object", "-t", "commit", "-w", "--stdin"],
                         input=body.encode(), env=ENV, check=True, stdout=subprocess.PIPE).stdout.decode().strip()
    git(repo, "update-ref", "refs/heads/main", sha)
    return sha


@pytest.fixture
def repos(tmp_path):
    """(hostile repository, clean copy, marker path, commit ids oldest first)."""
    repo = tmp_path / "repo"
    init(repo)
    c1 = commit(repo, {"m.py": "f(\n    alpha=alpha,\n    beta=beta,\n)\ng(h(c=c), d=1)\n",
                       "a.py": "f(x=x)\n", ".gitattributes": "*.py diff=evil filter=evil\n"},
                date="2023-09-01T10:00:00+00:00")
    c2 = commit(repo, {"m.py": "f(alpha=, beta=)\ng(h(c=), d=1)\n"}, message="Add punning",
                date="2023-10-01T10:00:00+00:00")
    c3 = signed_commit(repo)
    clean = tmp_path / "clean"
    shutil.copytree(repo, clean)
    marker = hostile_config(repo, tmp_path)
    return repo, clean, marker, (c1, c2, c3)


def _run(argv, capsys):
    code = cli.main(argv)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


def test_the_hostile_config_is_live(repos):
    """The fixture proves something: git log, as earlier versions ran it, runs gpg.program."""
    repo, _, marker, _ = repos
    subprocess.run(["git", "--git-dir", str(repo / ".git"), "log", "-1", "--format=%H"],
                   env=dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull),
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert marker.exists() and "verify" in marker.read_text()


def test_no_command_that_reads_git_runs_a_program_of_the_repository(repos, tmp_path, capsys, monkeypatch):
    repo, clean, marker, (c1, c2, c3) = repos
    monkeypatch.setenv("PUNSTATS_CACHE_DIR", str(tmp_path / "cache"))
    seen = {}
    for name, path in (("hostile", repo), ("clean", clean)):
        out = tmp_path / ("out-" + name)
        _run(["scan", str(path), "--rev", c1, "-q", "-j", "1", "--no-cache", "-o", str(out / "rev")], capsys)
        _run(["scan", str(path), "-q", "-j", "1", "--no-cache", "-o", str(out / "dir")], capsys)
        _run(["history", str(path), "-q", "-j", "1", "-o", str(out / "history")], capsys)
        angelico = json.loads(_run(["reproduce", "angelico", str(path), "--rev", c1, "--json", "--no-cache"], capsys))
        search = json.loads(_run(["reproduce", "angelico", str(path), "--since", "2023-08-01", "--json",
                                  "--no-cache"], capsys))
        pep736 = json.loads(_run(["reproduce", "pep736", "--pandas", str(path), "--json", "--no-cache"], capsys))
        toml = tmp_path / ("corpus-%s.toml" % name)
        toml.write_text('[[project]]\ngit = "%s"\nrev = "%s"\nname = "p"\n' % (path, c1))
        _run(["corpus", str(toml), "-q", "-j", "1", "-o", str(out / "corpus")], capsys)
        _run(["scan", "git+file://%s@%s" % (path, c1), "-q", "-j", "1", "--no-cache", "-o", str(out / "remote")],
             capsys)
        history_meta = json.loads((out / "history" / "history.json").read_text())
        seen[name] = {
            "rev": punstats.load(str(out / "rev")).summary["punnable"],
            "dir": punstats.load(str(out / "dir")).summary["punnable"],
            "history": list(pd.read_parquet(out / "history" / "history.parquet")["punnable"]),
            "last": (history_meta["last"]["sha"], history_meta["last"].get("subject")),
            "angelico": json.dumps(angelico).replace(str(path), "REPO"),
            "search": json.dumps(search).replace(str(path), "REPO"),
            "pep736": pep736["pandas"]["reproduced"],
            "corpus": punstats.load(str(out / "corpus" / "p")).summary["punnable"],
            "remote": punstats.load(str(out / "remote")).summary["punnable"],
        }
    assert not marker.exists(), marker.read_text()
    assert seen["hostile"] == seen["clean"]
    assert seen["hostile"]["rev"] == 4 and seen["hostile"]["remote"] == 4 and seen["hostile"]["corpus"] == 4
    assert seen["hostile"]["history"] == [4, 1, 1]
    assert seen["hostile"]["last"][0] == c3
    assert seen["hostile"]["pep736"]["count"] == 4  # x, alpha, beta, c
    assert json.loads(seen["hostile"]["angelico"])["corrected"]["total"] == 4


def test_utf16_output_encoding_does_not_change_commit_subjects(repos):
    repo, clean, marker, (c1, c2, c3) = repos
    commits = gitsource.first_parent_commits(gitsource.git_dir(str(repo)), "HEAD")
    assert [(c.sha, c.subject) for c in commits] == [(c1, "c"), (c2, "Add punning"), (c3, "signed: the last one")]
    assert commits[0].date == "2023-09-01T10:00:00+00:00" and commits[2].date == "2023-11-14T23:13:20+01:00"
    assert not marker.exists()


@pytest.mark.parametrize("url", ["ext::EVIL", "file://%s/other"])
def test_a_promisor_remote_is_never_fetched_from(tmp_path, url):
    """A tree naming a missing blob in a partial clone whose promisors are ``ext::SCRIPT`` and
    a local repository with a hostile upload-pack: the file is unreadable, nothing runs, the
    other file is counted."""
    repo = tmp_path / "repo"
    init(repo)
    commit(repo, {"a.py": "f(x=x)\n"})
    missing = "1" * 40
    tree = subprocess.run(["git", "-C", str(repo), "mktree", "--missing"], env=ENV, check=True,
                          input=("100644 blob %s\tgone.py\n100644 blob %s\ta.py\n"
                                 % (missing, git(repo, "rev-parse", "HEAD:a.py"))).encode(),
                          stdout=subprocess.PIPE).stdout.decode().strip()
    sha = git(repo, "commit-tree", tree, "-m", "partial")
    marker = hostile_config(repo, tmp_path)
    with open(repo / ".git" / "config", "a") as handle:
        handle.write("\tpromisor = true\n[extensions]\n\tpartialClone = origin\n"
                     "[remote \"other\"]\n\turl = %s\n\tuploadpack = %s\n\tpromisor = true\n"
                     % (url.replace("EVIL", str(tmp_path / "evil.sh")).replace("%s", str(tmp_path)),
                        tmp_path / "evil.sh"))
    init(tmp_path / "other")
    subprocess.run(["git", "-C", str(repo), "config", "core.repositoryformatversion", "1"], env=ENV, check=True)
    result = punstats.scan(str(repo), rev=sha, jobs=1, cache=False)
    files = dict(zip(result.files["path"], result.files["status"]))
    assert files == {"a.py": "ok", "gone.py": "unreadable"}
    assert result.summary["punnable"] == 1
    assert not marker.exists(), marker.read_text()


def test_clones_allow_only_the_documented_transports():
    with pytest.raises(gitsource.GitError, match="git\\+URL needs one of"):
        gitsource.parse_remote("git+ext::sh -c touch% /tmp/x")
    argv = gitsource.git_argv(None, "clone", fetching=True)
    assert "protocol.allow=never" in argv and "protocol.file.allow=user" in argv  # user: not for a redirect
    assert "protocol.https.allow=always" in argv and "protocol.ext.allow=always" not in argv
    assert "GIT_ALLOW_PROTOCOL" not in gitsource._env(fetching=True)  # it would decide redirects too
    assert gitsource._env()["GIT_ALLOW_PROTOCOL"] == ""  # reading: no transport at all
