"""Provenance lines and names: what a table footnote or figure caption says was measured.
"""
from __future__ import annotations

import os
import re
from typing import Any, Dict, List, Optional, Sequence


def provenance(summary: Dict[str, Any], name: Optional[str] = None) -> str:
    """One sentence saying what a scan measured: corpus, revision, Python.
    ``name`` is what the table or figure calls the scan (default: its corpus)."""
    revision = summary.get("revision") or ""
    if summary.get("source") == "stdlib":
        revision = ""  # the interpreter's version says it, below
    if revision and summary.get("commit_date"):
        revision += " (%s)" % summary["commit_date"]
    return ("%s: %s%s; parsed by %s %s with punstats %s; test rule %s; %s."
            % (name or summary["corpus"], source_text(summary), " at revision " + revision if revision else "",
               summary.get("python_implementation", "Python"), summary["python"],
               summary.get("punstats_version", "?"), summary["test_rule"],
               rules_text(summary.get("rules"), summary.get("long_threshold"), scan_patterns(summary))))


def scan_patterns(summary: Dict[str, Any]) -> List[Dict[str, Any]]:
    """The user patterns a scan counted, as recorded (name, source, sha256)."""
    rules = summary.get("rules") or {}
    return [p for p in rules.get("patterns") or summary.get("patterns") or () if isinstance(p, dict)]


def shown_source(source: str) -> str:
    """A pattern's source as tables and reports name it: a module as given, a file by its name
    only (no path of the machine the scan ran on; its sha256 says which file it was)."""
    return os.path.basename(source) if source.endswith(".py") else source


#: How many hex digits of a pattern's sha256 a footnote or caption shows (CSV columns hold all 64).
SHORT_SHA256 = 12


def pattern_text(pattern: Dict[str, Any], digits: int = SHORT_SHA256) -> str:
    """A user pattern as provenance names it: ``try_finally (tries.py, sha256 9f3d56529708)``."""
    sha = str(pattern.get("sha256") or "not recorded")
    return "%s (%s, sha256 %s)" % (pattern.get("name", "?"), shown_source(str(pattern.get("source", "?"))),
                                   sha[:digits] if digits else sha)


def rules_text(rules: Optional[Dict[str, Any]], long_threshold: Any,
               patterns: Sequence[Dict[str, Any]] = ()) -> str:
    """Every recorded rule besides the test rule that changes a count, in words: the file endings
    read, .gitignore, ``--exclude`` globs, the long threshold, and each user pattern with its sha256;
    the options rarely given (``--no-exclude``, ``--follow-links``, ``--max-bytes``) when given."""
    from punstats.model.limits import DEFAULT_MAX_BYTES
    if not rules:
        return "long identifiers from %s characters; other rules not recorded" % long_threshold
    parts = ["%s files" % " ".join(rules.get("extensions") or [".py"])]
    gitignore = rules.get("gitignore")
    parts.append(".gitignore honoured" if gitignore else ".gitignore not read" if gitignore is False
                 else ".gitignore not recorded")
    exclude = list(rules.get("exclude") or ())
    parts.append(" ".join("--exclude %s" % glob for glob in exclude) if exclude else "nothing excluded")
    parts += ["no directory skipped by name (--no-exclude)"] if rules.get("exclude_dirs") is False else []
    parts += ["symbolic links followed"] if rules.get("follow_links") else []
    max_bytes = rules.get("max_bytes", DEFAULT_MAX_BYTES)
    parts += ["files up to %s bytes" % format(max_bytes, ",")] if max_bytes != DEFAULT_MAX_BYTES else []
    parts.append("long identifiers from %s characters" % long_threshold)
    parts += ["pattern %s" % pattern_text(p) for p in patterns]
    return ", ".join(parts)


def history_note(about: Optional[Dict[str, Any]]) -> str:
    """What a history measured (its ``history.json``: the parser, punstats, the rules), as a caption
    line; empty without it."""
    if not about:
        return ""
    rules = about.get("rules") or {}
    return "Parsed by %s with punstats %s; test rule %s; %s." % (
        about.get("python", "?"), about.get("punstats_version", "?"), rules.get("test_rule", "?"),
        rules_text(rules, rules.get("long_threshold", "?"), rules.get("patterns") or ()))


def rule_columns(rules: Optional[Dict[str, Any]], patterns: Sequence[Dict[str, Any]] = ()) -> Dict[str, Any]:
    """The rules of ``rules_text`` as tidy columns: ``extensions``, ``gitignore``, ``exclude`` (globs
    joined by ``;``), ``exclude_dirs``, ``follow_links``, ``max_bytes`` and ``patterns`` (each
    ``name sha256:HEX``, joined by ``;``); empty where not recorded."""
    from punstats.model.limits import DEFAULT_MAX_BYTES
    rules = rules or {}
    known = bool(rules)
    return {"extensions": ";".join(rules.get("extensions") or ([".py"] if known else [])),
            "gitignore": rules.get("gitignore", ""), "exclude": ";".join(rules.get("exclude") or ()),
            "exclude_dirs": rules.get("exclude_dirs", ""), "follow_links": rules.get("follow_links", ""),
            "max_bytes": rules.get("max_bytes", DEFAULT_MAX_BYTES if known else ""),
            "patterns": ";".join("%s %s sha256:%s" % (p.get("name", "?"), shown_source(str(p.get("source", "?"))),
                                                      p.get("sha256") or "") for p in patterns)}


#: Sources that name something anyone can fetch, shown as they are (a ``file://`` URL is not one).
PUBLIC_SOURCE = re.compile(r"^(pypi:|git\+(?!file:)|(?!file:|git\+)[a-z][a-z0-9+.-]*://)")


def source_text(summary: Dict[str, Any]) -> str:
    """What was scanned, in words anyone can follow: an installed distribution
    by name and version, the standard library, a public source as given, and
    otherwise "a local directory" (never a path of this machine)."""
    source = str(summary.get("source", summary["corpus"]))
    distribution = summary.get("distribution")  # recorded by the scan: what was installed then
    if distribution:
        return "%s %s (installed distribution)" % (distribution["name"], distribution["version"])
    if source == "stdlib":
        return "the standard library of %s %s" % (summary.get("python_implementation", "Python"),
                                                  summary["python"])
    if PUBLIC_SOURCE.match(source):
        return source
    if source.startswith("git+file:") or summary.get("revision_scan"):
        return "a local git repository"
    if summary.get("archive"):
        return "the archive %s" % os.path.basename(str(summary["archive"].get("file", source)))
    return "a local directory"


def source_url(summary: Dict[str, Any]) -> Optional[str]:
    """A public address of what a scan measured, when there is one."""
    source = str(summary.get("source", ""))
    distribution = summary.get("distribution")
    if distribution:
        return "https://pypi.org/project/%s/%s/" % (distribution["name"], distribution["version"])
    if source.startswith("pypi:") and "==" in source:
        return "https://pypi.org/project/%s/%s/" % tuple(source[len("pypi:"):].split("==", 1))
    if source == "stdlib" and summary.get("python_implementation") == "CPython":
        return "https://github.com/python/cpython/tree/v%s/Lib" % summary["python"]
    match = re.match(r"^(?:git\+)?(https://[^@\s]+?)(?:\.git)?(?:@.*)?$", source)
    return match.group(1) if match else None


#: A name longer than this (UTF-8 bytes) in a file name is cut and told apart by a hash:
#: with what is added to it (``-lengths.png``), one path component stays within NAME_MAX (255).
SLUG_BYTES = 120


def slug(text: str) -> str:
    """``text`` made safe as part of a file name: no separators, at most ``SLUG_BYTES`` bytes."""
    import hashlib
    safe = re.sub(r"[^\w.+-]+", "-", text).strip("-.") or "scan"
    data = safe.encode("utf-8", "surrogatepass")
    if len(data) <= SLUG_BYTES:
        return safe
    cut = data[:SLUG_BYTES - 9].decode("utf-8", "ignore")  # a character cut in two is left out
    return "%s-%s" % (cut, hashlib.sha1(data).hexdigest()[:8])


#: Text of a summary longer than this (a corpus name, a source) is shown cut, with "...".
SHOWN_CHARS = 200


def shown(summary: Dict[str, Any]) -> Dict[str, Any]:
    """``summary`` as tables, figures and reports show it: its texts at most ``SHOWN_CHARS``
    characters (a stored scan may name its corpus in 50 MB)."""
    return {key: value[:SHOWN_CHARS] + "..." if isinstance(value, str) and len(value) > SHOWN_CHARS else value
            for key, value in summary.items()}


def column_names(summaries: Sequence[Dict[str, Any]]) -> List[str]:
    """Corpus names, made unique (``src``, ``src (2)``) for columns and bars."""
    names, seen = [], {}  # type: List[str], Dict[str, int]
    for summary in summaries:
        name = summary["corpus"]
        seen[name] = seen.get(name, 0) + 1
        names.append(name if seen[name] == 1 else "%s (%d)" % (name, seen[name]))
    return names



def subject_of(names: Sequence[str]) -> str:
    """A file-name stem for what one or several scans are called: ``a+b``,
    or ``N-scans-<hash>`` when that would be long."""
    import hashlib
    joined = "+".join(slug(name) for name in names)
    if len(joined) <= 60:
        return joined
    return "%d-scans-%s" % (len(names), hashlib.sha1(joined.encode()).hexdigest()[:8])
