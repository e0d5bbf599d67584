"""Test / non-test rules on relative paths."""
import fnmatch

import pytest

from punstats.store.rules import DEFAULT_TEST_RULE, TEST_FILE_PATTERNS, TestRule, parse_test_rule


@pytest.mark.parametrize("path, components, substring", [
    ("Lib/test/test_os.py", True, True),
    ("Lib/idlelib/idle_test/htest.py", True, True),
    ("pandas/tests/frame/test_api.py", True, True),
    ("numpy/testing/utils.py", True, True),
    ("pkg/conftest.py", True, True),
    ("pkg/foo_test.py", True, True),
    ("pkg/tests.py", True, True),
    ("Lib/unittest/case.py", False, True),  # the framework, not its tests
    ("Lib/doctest.py", False, True),
    ("pkg/attestation.py", False, True),
    ("Lib/contest/x.py", False, True),
    ("Lib/json/decoder.py", False, False),
    ("Lib/Test/x.py", False, False),  # case-sensitive, like grep
    ("tests", False, True),  # a file named tests (no directory)
])
def test_default_and_substring_rules(path, components, substring):
    assert TestRule("components").is_test(path) is components
    assert TestRule("substring").is_test(path) is substring
    assert TestRule("none").is_test(path) is False


def test_regex_rule_and_parsing():
    rule = parse_test_rule("regex:^Lib/test/")
    assert rule.label == "regex:^Lib/test/"
    assert rule.is_test("Lib/test/x.py") and not rule.is_test("Lib/idlelib/idle_test/x.py")
    assert parse_test_rule("substring") == TestRule("substring")
    with pytest.raises(ValueError, match="unknown test rule 'grep'"):
        parse_test_rule("grep")
    with pytest.raises(ValueError, match="bad test pattern"):
        parse_test_rule("regex:[")


def test_components_matches_file_names_as_fnmatch_does():
    names = ["test_a.py", "test_.py", "Test_a.py", "test_a.pyc", "a_test.py", "_test.py", "a_Test.py", "tests.py",
             "Tests.py", "conftest.py", "xconftest.py", "conftest.pyi", "test_a\n.py", "a.py", "test.py", "testing.py"]
    for name in names:
        expected = any(fnmatch.fnmatchcase(name, pattern) for pattern in TEST_FILE_PATTERNS)
        assert DEFAULT_TEST_RULE.is_test("pkg/" + name) is expected, name
        assert DEFAULT_TEST_RULE.is_test("pkg/tests/" + name) and DEFAULT_TEST_RULE.is_test("idle_test/" + name)
