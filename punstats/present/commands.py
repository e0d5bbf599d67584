"""The commands that make a stored scan again: a report's "Reproduce" section.

Each command names what was scanned in a form that works on another machine,
pinned to what was read: a PyPI release as ``pypi:NAME==VERSION``, a remote
git repository as ``git+URL@SHA`` (the commit scanned, whatever branch or tag
was given), a git work tree or a revision of a local repository by its
directory's name and ``--rev SHA`` (run in a clone of it), an archive by its
file name, the standard library with the interpreter it belongs to named in a
comment.  It gives every option that changes the numbers, read from the
summary's ``rules`` (``ScanOptions.rules()``) and patterns.  No command names
a path of the machine the scan ran on.
"""
from __future__ import annotations

import os
import re
import shlex
from typing import Any, Dict, List, Optional, Sequence, Tuple

from punstats.model.limits import DEFAULT_MAX_BYTES
from punstats.present.provenance import shown_source, slug
from punstats.store.rules import DEFAULT_LONG_THRESHOLD, DEFAULT_TEST_RULE

Summary = Dict[str, Any]

#: A git commit id (SHA-1 or SHA-256), as a work tree's revision is recorded.
COMMIT = re.compile(r"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")


def _name(path: str) -> str:
    """A local path as a command may name it: its last component (run beside your copy)."""
    return os.path.basename(path.rstrip("/" + os.sep)) or "."


def _git_source(summary: Summary) -> Tuple[List[str], str, bool]:
    """``git+URL@REV`` pinned to the commit scanned; a ``file://`` repository (on the machine
    of the scan) by its name and ``--rev``."""
    from punstats.sources.git import parse_remote
    url, rev = parse_remote(str(summary["source"]))
    sha = summary.get("revision") or rev
    note = "# at commit %s%s" % (sha, " (%s when scanned)" % rev if rev != sha else "")
    if url.startswith("file://"):
        return [_name(url[len("file://"):]), "--rev", sha], "# in a clone of the repository " + note[2:], True
    return ["git+%s@%s" % (url, sha)], note, True


def _local_source(summary: Summary, directory_only: bool) -> Tuple[List[str], str, bool]:
    """A revision of a local repository (``--rev``), a git work tree, or a plain directory."""
    source, sha = str(summary["source"]), summary.get("revision") or ""
    sha = sha if COMMIT.match(sha) else ""  # a directory's revision may be other words (an interpreter)
    if summary.get("revision_scan"):  # PATH@REV, read from git
        path = source.rpartition("@")[0]
        return [_name(path), "--rev", sha], "# in a clone of the repository, at commit " + sha, True
    name = _name(source)
    if sha and not directory_only:  # a work tree at commit sha: the same files, read from git
        rename = ["--name", summary["corpus"]] if summary.get("corpus") else []
        return [name, "--rev", sha] + rename, "# in a clone of the repository; its work tree was at commit " + sha, True
    rename = ["--name", summary["corpus"]] if summary.get("corpus", name) != name else []
    if sha:
        return [name] + rename, "# in a clone of the repository, with commit %s checked out" % sha, False
    return [name] + rename, "# a local directory: run beside your copy of it", False


def source_arguments(summary: Summary) -> Tuple[List[str], str, bool]:
    """(the arguments naming what was scanned, a comment saying what it is, whether it is read
    from git: options that apply to directories only are left out then)."""
    source = str(summary.get("source", ""))
    distribution = summary.get("distribution")
    if distribution:
        return (["pypi:%s==%s" % (distribution["name"], distribution["version"])],
                "# the sdist of the installed version (the scan read site-packages)", False)
    if source == "stdlib":
        return [], "# the standard library of %s %s: run with that interpreter" % (
            summary.get("python_implementation", "Python"), summary.get("python", "")), False
    if source.startswith("pypi:"):
        return [source], "# the sdist from PyPI", False
    if source.startswith("git+"):
        return _git_source(summary)
    if summary.get("archive"):
        archive = summary["archive"]
        file = _name(str(archive.get("file", source)))
        return [file], "# the archive %s (sha256 %s)" % (file, archive.get("sha256", "?")), False
    rules = summary.get("rules", {})
    return _local_source(summary, bool(rules.get("exclude")) or "lines_saved" in summary)


def rule_options(summary: Summary, from_git: bool) -> List[str]:
    """The options that give the scan's recorded rules, where they are not the defaults."""
    rules = summary.get("rules", {})
    options: List[str] = []
    if summary["test_rule"] != DEFAULT_TEST_RULE.label:
        options += ["--test-rule", summary["test_rule"]]
    if summary["long_threshold"] != DEFAULT_LONG_THRESHOLD:
        options += ["--long", str(summary["long_threshold"])]
    if rules.get("extensions", [".py"]) != [".py"]:
        options += ["--extensions", ",".join(rules["extensions"])]
    if rules.get("max_bytes", DEFAULT_MAX_BYTES) != DEFAULT_MAX_BYTES:
        options += ["--max-bytes", str(rules["max_bytes"])]
    if rules.get("exclude_dirs") is False:
        options.append("--no-exclude")
    if not from_git:
        options += ["--follow-links"] if rules.get("follow_links") else []
        # an unpacked archive never applies its .gitignore: no option says so
        options += ["--no-ignore"] if rules.get("gitignore") is False and not summary.get("archive") else []
        for glob in rules.get("exclude", []):
            options += ["--exclude", glob]
        options += ["--lines-saved"] if "lines_saved" in summary else []
    for source in pattern_sources(summary):
        options += ["--pattern", source]
    return options


def pattern_sources(summary: Summary) -> List[str]:
    """The ``--pattern`` arguments of a scan's user patterns, once each: a module as given, a
    file by its name only (the reader has their own copy; its sha256 is in the summary)."""
    sources = [str(p.get("source", "")) for p in summary.get("patterns") or () if isinstance(p, dict)]
    return list(dict.fromkeys(shown_source(s) for s in sources if s))


def scan_command(summary: Summary, directory: str) -> Tuple[List[str], str]:
    """The command that scans the same code again with the same rules, into ``directory``,
    and the comment line that says what it reads."""
    arguments, comment, from_git = source_arguments(summary)
    return ["punstats", "scan", *arguments, "-o", directory, *rule_options(summary, from_git)], comment


def commands(summaries: Sequence[Summary], directories: Sequence[Optional[str]]) -> List[str]:
    """The shell lines of a report's "Reproduce" section: each scan (``directories``: where it
    is stored, when that is a relative path), then the report."""
    lines, stored = [], []
    for summary, directory in zip(summaries, directories):
        directory = directory or os.path.join("data", slug(summary["corpus"]))
        stored.append(directory)
        command, comment = scan_command(summary, directory)
        lines += [comment, shlex.join(command)]
    return lines + [shlex.join(["punstats", "report", *stored])]
