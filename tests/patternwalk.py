"""What the tests of the shipped patterns (``punstats/patterns``) share.

A pattern is run here by a plain ``ast`` walk handing each node its
ancestors, and (once ``punstats.scan`` takes ``patterns``) through a real
scan; the standard library of the running interpreter is the corpus, files
that parse only.  Each test module brings its own independent count, made
from tokens (whose bracket pairs are found here), not from the tree, and its
edge cases to ``ShippedPatternTests``.
"""
import ast
import collections
import functools
import importlib
import inspect
import io
import os
import tokenize
import warnings

import pytest

STDLIB = os.path.dirname(os.__file__)
SKIPPED_DIRS = ("site-packages", "dist-packages", "__pycache__")
SHIPPED = ("bare_except", "except_tuple", "flatten_comprehension", "return_in_finally")

#: token types no independent count looks at
_LAYOUT = {tokenize.ENCODING, tokenize.ENDMARKER, tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT,
           tokenize.INDENT, tokenize.DEDENT}


def walk(tree):
    """Every node of ``tree`` with its ancestors, outermost first (what a pattern is given)."""
    stack = [(tree, [])]
    while stack:
        node, parents = stack.pop()
        yield node, parents
        inner = parents + [node]
        stack.extend((child, inner) for child in ast.iter_child_nodes(node))


def declared(match):
    """``match`` called only for the nodes of the classes its pattern declares (``on=``)."""
    classes = match.punstats_pattern.on
    return lambda node, parents: (classes is None or isinstance(node, classes)) and match(node, parents)


def matched_lines(source, match):
    """Sorted start lines of the nodes ``match`` accepts in ``source``."""
    return sorted(node.lineno for node, parents in walk(ast.parse(source)) if match(node, parents))


def parse(data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(data)


@functools.lru_cache(maxsize=1)
def stdlib_files():
    """``(relative POSIX path, bytes)`` of every standard-library file a scan reads (``.py``
    files, no links, no site-packages, dist-packages or __pycache__)."""
    found = []
    for directory, dirs, files in os.walk(STDLIB):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS)
        for name in sorted(files):
            path = os.path.join(directory, name)
            if name.endswith(".py") and not os.path.islink(path):
                with open(path, "rb") as handle:
                    found.append((os.path.relpath(path, STDLIB).replace(os.sep, "/"), handle.read()))
    return tuple(found)


def stdlib_counts(match, count):
    """``({path: matches of match}, {path: count(data)})`` over the standard library's files that
    parse, each run once per file (files with neither left out)."""
    walked, counted = {}, {}
    for path, data in stdlib_files():
        try:
            tree = parse(data)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        walked[path] = sum(1 for node, parents in walk(tree) if match(node, parents))
        counted[path] = count(data)
    return ({path: n for path, n in walked.items() if n}, {path: n for path, n in counted.items() if n})


def in_tests(counts):
    """The part of ``counts`` in paths with a ``test`` or ``tests`` directory component."""
    return sum(n for path, n in counts.items() if {"test", "tests"} & set(path.split("/")[:-1]))


@functools.lru_cache(maxsize=1)
def scanned():
    """``{pattern: {path: count}}`` of one ``punstats.scan`` of the standard library with every
    shipped pattern; skips the test when ``punstats.scan`` takes no ``patterns`` yet."""
    import punstats
    if "patterns" not in inspect.signature(punstats.scan).parameters:
        pytest.skip("punstats.scan takes no patterns yet")
    result = punstats.scan(STDLIB, patterns=["punstats.patterns." + name for name in SHIPPED])
    counts = collections.defaultdict(dict)
    occurrences = result.occurrences
    for (kind, path), n in occurrences.groupby(["kind", "path"], observed=True).size().items():
        if n:
            counts[str(kind)][str(path)] = int(n)
    return dict(counts)


def scan_counts(name):
    return scanned().get(name, {})


_COUNTED = {}


class ShippedPatternTests:
    """The tests of a shipped pattern.  Its test module subclasses this as a ``Test...`` class
    giving ``name`` (the pattern's module), ``count`` (a ``staticmethod``: the independent count
    of one file's bytes), ``cases`` (``(source, start lines of its matches)``, the edge cases)
    and ``at_least`` (matches the standard library has)."""

    name = ""
    cases = ()
    at_least = 1

    @staticmethod
    def count(data):
        raise NotImplementedError

    @property
    def match(self):
        """The pattern's matcher as the walk calls it: for the node classes of its ``on`` only."""
        return declared(importlib.import_module("punstats.patterns." + self.name).match)

    def test_the_pattern_and_the_independent_count_find_the_cases(self):
        assert self.cases
        for source, lines in self.cases:
            assert (source, matched_lines(source, self.match)) == (source, lines)
            assert (source, self.count(source.encode())) == (source, len(lines))

    def counts(self):
        """``({path: matches}, {path: independent count})``, computed once per session."""
        if self.name not in _COUNTED:
            _COUNTED[self.name] = stdlib_counts(self.match, self.count)
        return _COUNTED[self.name]

    @pytest.mark.slow  # the whole standard library
    def test_the_pattern_agrees_with_the_independent_count_per_file(self):
        walked, counted = self.counts()
        assert walked == counted
        assert sum(counted.values()) >= self.at_least  # a real corpus, with test and non-test code
        assert 0 < in_tests(counted) < sum(counted.values())

    @pytest.mark.slow  # the whole standard library
    def test_a_scan_with_the_pattern_agrees_with_the_independent_count(self):
        scanned = scan_counts(self.name)  # skips while the scan takes no patterns
        assert scanned == self.counts()[1]


def tokens(data):
    """The tokens of ``data`` that are not layout (line breaks, comments, indentation)."""
    return [tok for tok in tokenize.tokenize(io.BytesIO(data).readline) if tok.type not in _LAYOUT]


def pairs(toks):
    """``{index of an opening bracket: index of its closing one}``."""
    stack, found = [], {}
    for index, tok in enumerate(toks):
        if tok.type == tokenize.OP and tok.string in ("(", "[", "{"):
            stack.append(index)
        elif tok.type == tokenize.OP and tok.string in (")", "]", "}"):
            found[stack.pop()] = index
    return found


def top_level(toks, brackets, start, end):
    """Indices of the tokens in ``start:end`` outside any bracket (a bracketed group is its
    opening bracket's index)."""
    found, index = [], start
    while index < end:
        found.append(index)
        index = brackets[index] + 1 if index in brackets else index + 1
    return found


def unwrap(toks, brackets, start, end):
    """``start, end`` without the parentheses that enclose all of it."""
    while end - start >= 2 and toks[start].string == "(" and brackets.get(start) == end - 1:
        start, end = start + 1, end - 1
    return start, end
