"""``present.provenance``: the rules every footnote and caption names, and their CSV columns."""
import pytest

from punstats.present.provenance import provenance, rule_columns, rules_text

RULES = {"test_rule": "components", "long_threshold": 10, "extensions": [".py"], "follow_links": False,
         "exclude_dirs": True, "max_bytes": 20971520, "gitignore": True, "exclude": []}


@pytest.mark.parametrize("changed, said", [
    ({}, ".py files, .gitignore honoured, nothing excluded, long identifiers from 10 characters"),
    ({"exclude": ["tests/**", "docs"]}, "--exclude tests/** --exclude docs"),
    ({"gitignore": False}, ".gitignore not read"),
    ({"extensions": [".py", ".ipynb"]}, ".py .ipynb files"),
    ({"exclude_dirs": False}, "no directory skipped by name (--no-exclude)"),
    ({"follow_links": True}, "symbolic links followed"),
    ({"max_bytes": 1000}, "files up to 1,000 bytes"),
])
def test_every_rule_that_changes_a_count_is_said(changed, said):
    assert said in rules_text(dict(RULES, **changed), 10)


def test_two_scans_that_differ_by_a_rule_differ_in_their_footnotes():
    summary = {"corpus": "fastapi", "source": "git+https://github.com/fastapi/fastapi", "revision": "abc",
               "python": "3.11.7", "python_implementation": "CPython", "punstats_version": "0.1.0",
               "test_rule": "components", "long_threshold": 10, "rules": RULES}
    excluded = dict(summary, rules=dict(RULES, exclude=["docs_src"]))
    assert provenance(summary) != provenance(excluded)
    assert provenance(excluded).endswith("test rule components; .py files, .gitignore honoured, --exclude docs_src, "
                                         "long identifiers from 10 characters.")


def test_a_pattern_is_named_by_its_file_and_sha256_never_a_path(tmp_path):
    pattern = {"name": "ret", "source": str(tmp_path / "ret.py"), "sha256": "0123456789abcdef" * 4}
    text = rules_text(dict(RULES, patterns=[pattern]), 10, [pattern])
    assert text.endswith("pattern ret (ret.py, sha256 0123456789ab)") and str(tmp_path) not in text
    assert rule_columns(RULES, [pattern])["patterns"] == "ret ret.py sha256:" + "0123456789abcdef" * 4


def test_a_scan_stored_before_rules_were_recorded_says_so():
    assert rules_text(None, 10) == "long identifiers from 10 characters; other rules not recorded"
    assert rule_columns(None)["extensions"] == "" and rule_columns(None)["gitignore"] == ""
