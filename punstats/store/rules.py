"""Test / non-test rules and the long-identifier threshold.

A rule looks only at a file's path relative to the corpus root (POSIX form),
never at its contents, so it can be applied after extraction and changed
without rescanning.

Rules:

``components`` (default)
    A path is test code when one of its directory components is in
    ``TEST_DIRS`` or its file name matches one of ``TEST_FILE_PATTERNS``.
``substring``
    A path is test code when it contains ``test`` anywhere, case-sensitively:
    what ``grep -v test`` over printed paths removes.
``regex:PATTERN``
    A path is test code when ``re.search(PATTERN, path)`` matches.
``none``
    Nothing is test code.
"""
from __future__ import annotations

import fnmatch
import re
from dataclasses import dataclass
from typing import Iterable, List

from punstats.model.errors import OptionError

#: Directory names that make everything below them test code.
TEST_DIRS = frozenset({"test", "tests", "testing", "idle_test"})


#: File-name patterns (fnmatch, case-sensitive) that make a file test code.
TEST_FILE_PATTERNS = ("test_*.py", "*_test.py", "tests.py", "conftest.py")


#: ``TEST_FILE_PATTERNS`` as one expression: what ``fnmatch.fnmatchcase`` matches with any of them.
_TEST_FILE = re.compile("|".join("(?:%s)" % fnmatch.translate(pattern) for pattern in TEST_FILE_PATTERNS))


DEFAULT_LONG_THRESHOLD = 10


RULE_NAMES = ("components", "substring", "none")


@dataclass(frozen=True)
class TestRule:
    """A named predicate over relative POSIX paths."""

    name: str
    pattern: str = ""

    __test__ = False  # not a pytest test class

    @property
    def label(self) -> str:
        return "regex:" + self.pattern if self.name == "regex" else self.name

    def is_test(self, path: str) -> bool:
        if self.name == "components":
            *dirs, filename = path.split("/")
            return not TEST_DIRS.isdisjoint(dirs) or _TEST_FILE.match(filename) is not None
        if self.name == "substring":
            return "test" in path
        if self.name == "regex":
            return re.search(self.pattern, path) is not None
        if self.name == "none":
            return False
        raise OptionError("unknown test rule %r" % self.name)

    def test_paths(self, paths: Iterable[str]) -> List[str]:
        """Those of ``paths`` that are test code."""
        return [path for path in paths if self.is_test(path)]


def parse_test_rule(text: str) -> TestRule:
    """``components``, ``substring``, ``none`` or ``regex:PATTERN``."""
    if text.startswith("regex:"):
        pattern = text[len("regex:"):]
        try:
            re.compile(pattern)
        except re.error as exc:
            raise OptionError("bad test pattern %r: %s" % (pattern, exc)) from None
        return TestRule("regex", pattern)
    if text not in RULE_NAMES:
        raise OptionError("unknown test rule %r (choose from %s, or regex:PATTERN)"
                         % (text, ", ".join(RULE_NAMES)))
    return TestRule(text)


DEFAULT_TEST_RULE = TestRule("components")

