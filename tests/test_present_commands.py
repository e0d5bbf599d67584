"""``punstats.present.commands``: a report's "Reproduce" commands name what was scanned as anyone
can fetch it, pinned to what was read, with the options that change the numbers; run in a clone,
they give the same numbers."""
import os
import shlex

import punstats
from punstats.cli import main
from punstats.present import report
from punstats.present.commands import scan_command


def section(text, title):
    """The body of a ``## title`` section."""
    return text.split("\n## %s\n" % title, 1)[1].split("\n## ", 1)[0]


def test_reproduce_names_each_user_pattern_once_and_a_pattern_file_by_its_name_only():
    mine = os.path.join("study", "patterns", "mine.py")  # as given on the command line
    patterns = [{"name": "a", "source": mine}, {"name": "b", "source": mine},
                {"name": "c", "source": "punstats.patterns.bare_except"}]
    summary = {"source": "stdlib", "test_rule": "components", "long_threshold": 10, "patterns": patterns}
    assert scan_command(summary, "data/x")[0] == ["punstats", "scan", "-o", "data/x", "--pattern", "mine.py",
                                                  "--pattern", "punstats.patterns.bare_except"]
    assert "--pattern" not in scan_command(dict(summary, patterns=[]), "data/x")[0]


# -- the Reproduce section: commands anyone can run, that give the same numbers --------------------

#: The numbers a reproduction must give again.
SAME = ("files", "parsed", "failed", "calls", "keywords", "punnable", "punnable_nontest", "keywords_nontest",
        "long", "long_nontest", "test_rule", "long_threshold", "kinds", "kinds_nontest", "units")


def _reproduce_lines(text):
    block = section(text, "Reproduce").split("```sh\n", 1)[1].split("\n```", 1)[0]
    return block.splitlines()


def test_reproduce_commands_of_a_git_work_tree_run_in_a_clone_and_give_the_same_numbers(tmp_path, monkeypatch):
    from gitrepo import commit, git, init
    work = tmp_path / "mine" / "proj"
    init(work)
    sha = commit(work, {"pkg/a.py": "f(x=x, y=1)\ng(name=name)\nclass A(metaclass=metaclass): pass\n",
                        "pkg/testing_b.py": "h(longer_name=longer_name, z=z)\n",
                        "tests/test_a.py": "h(longer_name=longer_name)\n", "big.py": "k(x=x)\n" * 100})
    (tmp_path / "mine" / "pattern.py").write_text(
        "import ast\nimport punstats\n\n@punstats.pattern('calls_named_g', per='calls')\n"
        "def match(node, parents):\n    return isinstance(node, ast.Call) and getattr(node.func, 'id', '') == 'g'\n")
    monkeypatch.chdir(tmp_path / "mine")
    assert main(["scan", "proj", "-o", "stored", "-q", "--test-rule", "substring", "--long", "5",
                 "--max-bytes", "400", "--pattern", "pattern.py"]) == 0
    mine = punstats.load("stored").summary
    assert mine["failed"] == 1 and mine["revision"] == sha  # big.py is too large; the work tree's commit
    assert main(["report", "stored", "--no-figures", "-o", "report.md"]) == 0
    lines = _reproduce_lines((tmp_path / "mine" / "report.md").read_text(encoding="utf-8"))
    assert "/" + "tmp" not in "\n".join(lines) and str(tmp_path) not in "\n".join(lines)
    assert lines[0] == "# in a clone of the repository; its work tree was at commit %s" % sha

    elsewhere = tmp_path / "reader"  # a reader: a clone of the repository, their own copy of the pattern file
    elsewhere.mkdir()
    git(elsewhere, "clone", "-q", str(work), "proj")
    (elsewhere / "pattern.py").write_text((tmp_path / "mine" / "pattern.py").read_text())
    commit(work, {"pkg/later.py": "f(x=x)\n"})  # the repository moves on; the commands are pinned
    git(elsewhere / "proj", "pull", "-q")
    monkeypatch.chdir(elsewhere)
    commands = [shlex.split(line) for line in lines if not line.startswith("#")]
    assert [c[:2] for c in commands] == [["punstats", "scan"], ["punstats", "report"]]
    for command in commands:
        assert main(command[1:] + (["-q"] if command[1] == "scan" else ["--no-figures"])) == 0
    again = punstats.load(str(elsewhere / "stored")).summary
    assert {key: again[key] for key in SAME} == {key: mine[key] for key in SAME}
    assert again["kinds"]["calls_named_g"] == 1 and again["rules"]["max_bytes"] == 400
    measured = section(report.render(punstats.load(str(elsewhere / "stored"))), "What was measured")
    assert "| Source | a local git repository |" in measured and "| Left out | nothing: read from git" in measured
    assert (elsewhere / "reports").is_dir()


def test_reproduce_pins_a_remote_revision_and_keeps_a_release(tmp_path):
    sha = "0123456789abcdef0123456789abcdef01234567"
    base = {"test_rule": "components", "long_threshold": 10, "revision": sha, "python": "3.11.7",
            "corpus": "requests@0123456789ab", "rules": {"gitignore": False, "exclude": []}, "revision_scan": True}
    command, comment = scan_command(dict(base, source="git+https://github.com/psf/requests@main"), "data/r")
    assert command == ["punstats", "scan", "git+https://github.com/psf/requests@" + sha, "-o", "data/r"]
    assert comment == "# at commit %s (main when scanned)" % sha
    here = (tmp_path / "src" / "requests.git").as_posix()  # a path of this machine, never shown
    command, comment = scan_command(dict(base, source="git+file://%s@v2" % here), "data/r")
    assert command[2:5] == ["requests.git", "--rev", sha] and str(tmp_path) not in " ".join(command)
    from punstats.present.provenance import provenance
    local = dict(base, source="git+file://%s@v2" % here, python_implementation="CPython")
    assert provenance(local).startswith("requests@0123456789ab: a local git repository at revision " + sha)
    assert provenance(dict(local, source="git+https://github.com/psf/requests@v2")).startswith(
        "requests@0123456789ab: git+https://github.com/psf/requests@v2 at revision")
    command, _ = scan_command(dict(base, source=str(tmp_path / "src" / "requests") + "@HEAD~2"), "data/r")
    assert command[2:5] == ["requests", "--rev", sha]
    release = dict(base, source="pypi:requests==2.32.3", revision="", revision_scan=False,
                   rules={"gitignore": True, "exclude": ["docs"], "follow_links": True, "exclude_dirs": False,
                          "extensions": [".py", ".pyi"]})
    command, _ = scan_command(release, "data/r")
    assert command == ["punstats", "scan", "pypi:requests==2.32.3", "-o", "data/r", "--extensions", ".py,.pyi",
                       "--no-exclude", "--follow-links", "--exclude", "docs"]
    command, comment = scan_command(dict(release, source="stdlib", revision="CPython 3.11.7"), "data/s")
    assert command[:4] == ["punstats", "scan", "-o", "data/s"] and "CPython" not in comment  # no implementation key


def test_reproduce_of_an_archive_adds_no_ignore_option_since_an_archive_never_applies_gitignore():
    archive = {"file": "demo-1.0.tar.gz", "sha256": "0" * 64}
    summary = {"source": "pypi:demo==1.0", "archive": archive, "test_rule": "components", "long_threshold": 10,
               "rules": {"gitignore": False}}
    assert scan_command(summary, "data/x")[0] == ["punstats", "scan", "pypi:demo==1.0", "-o", "data/x"]
    local = {"source": "src", "test_rule": "components", "long_threshold": 10, "rules": {"gitignore": False}}
    assert "--no-ignore" in scan_command(local, "data/x")[0]
