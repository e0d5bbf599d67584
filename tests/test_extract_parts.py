"""``extract/parts.py``: a large source parsed in parts gives what a whole parse gives.

Checked against the whole parse on the running interpreter's standard library
with parts small enough that most files are cut, built-in kinds and user
patterns together, and on sources made to put a part's first line where it
cannot begin a statement.
"""
import ast
import fcntl
import os
import textwrap
import threading

import pytest

from punstats.engines import local
from punstats.extract import parts, traversal
from punstats.extract.parts import NotInParts, line_count, parse_parts
from punstats.extract.traversal import extract
from punstats.model.kinds import Kind
from punstats.model.records import count_lines
from punstats.model.statuses import OK, PATTERN_ERROR, SYNTAX_ERROR

STDLIB = os.path.dirname(os.__file__)


def kind(match, name="p", per="lines", on=None):
    return Kind(name, name, per, occurrence=True, matcher=match, source="test", on=on)


def returns_in_finally(node, parents):
    for parent in reversed(parents):
        if isinstance(parent, ast.Try):
            return True
    return False


def keyword_names(node, parents):
    return node.arg is not None and len(parents) > 2


PATTERNS = [kind(returns_in_finally, "in_try", "code_lines", (ast.Return, ast.Break, ast.Continue)),
            kind(keyword_names, "keywords_seen", "lines", (ast.keyword,)),
            kind(lambda node, parents: True, "tries", "Try", (ast.Try,))]


@pytest.fixture
def cut(monkeypatch):
    """Parts of at most ``size`` characters for every source over it; counts the parts made."""
    made = {"files": 0, "parts": 0, "whole": 0}
    real = traversal.parse_parts

    def counting(text, path):
        made["files"] += 1
        try:
            for item in real(text, path):
                made["parts"] += 1
                yield item
        except NotInParts:
            made["whole"] += 1
            raise

    monkeypatch.setattr(traversal, "parse_parts", counting)

    def set_size(size):
        monkeypatch.setattr(parts, "PART_CHARS", size)
    return set_size, made


def both(path, data, set_size, patterns=()):
    """The extraction of ``data`` parsed whole, then in parts."""
    set_size(1 << 40)
    whole = extract(path, data, patterns=patterns)
    set_size(400)
    return whole, extract(path, data, patterns=patterns)


def stdlib_files():
    names = sorted(name for name in os.listdir(STDLIB) if name.endswith(".py"))
    for package in ("email", "json", "asyncio", "importlib"):
        names += sorted(os.path.join(package, name) for name in os.listdir(os.path.join(STDLIB, package))
                        if name.endswith(".py"))
    return [os.path.join(STDLIB, name) for name in names]


def test_the_standard_library_in_parts_is_the_standard_library_whole(cut):
    set_size, made = cut
    files = stdlib_files()
    differ = []
    for path in files:
        with open(path, "rb") as handle:
            data = handle.read()
        whole, in_parts = both(path, data, set_size, PATTERNS)
        if whole != in_parts:
            differ.append(path)
    assert differ == []
    # most files were cut, into many parts each, and almost none had to be parsed whole after all
    assert made["files"] > 0.8 * len(files)
    assert made["parts"] > 5 * made["files"]
    assert made["whole"] < 0.05 * made["files"]


@pytest.mark.parametrize("case, source", [
    ("a string's line in column 0", '''
        x = f(a=a)
        s = """
        y = g(b=b)
        """
        z = h(c=c)
        '''),
    ("a bracket's line in column 0", '''
        x = f(a=a,
        b=b)
        z = h(c=c)
        '''),
    ("a backslash continuation", '''
        x = f(a=a) + \\
        g(b=b)
        z = h(c=c)
        '''),
    ("a decorator spanning lines", '''
        @decorate(a=a,
                  b=b)
        def f(c=c):
            return g(c=c)
        z = h(c=c)
        '''),
    ("clauses of a compound statement", '''
        if x:
            f(a=a)
        elif y:
            f(b=b)
        else:
            f(c=c)
        try:
            g(d=d)
        except E:
            g(e=e)
        finally:
            g(f=f)
        '''),
    ("an f-string over lines", '''
        x = f"""{g(a=a)}
        {h(b=b)}"""
        z = h(c=c)
        '''),
])
def test_a_part_never_begins_inside_a_statement(cut, case, source):
    set_size, made = cut
    data = (textwrap.dedent(source) * 40).encode()
    whole, in_parts = both("m.py", data, set_size)
    assert whole.record.status == OK
    assert in_parts == whole
    assert made["parts"] > 1


def test_every_node_keeps_its_line_and_each_part_has_its_own_statements():
    text = "".join("def f%d(a):\n    return g(a=a)\n\n\n" % i for i in range(300))
    trees = [(tree, padded) for tree, padded, _ in _parts(text, 500)]
    assert len(trees) > 10
    statements = [node for tree, _ in trees for node in tree.body]
    assert [ast.dump(node, include_attributes=True) for node in statements] == \
        [ast.dump(node, include_attributes=True) for node in ast.parse(text).body]
    # the parts and their padding cover the text's lines once each
    assert sum(line_count(padded.lstrip("\n")) for _, padded in trees) == line_count(text)


def _parts(text, size):
    saved = parts.PART_CHARS
    parts.PART_CHARS = size
    try:
        yield from parse_parts(text, "m.py")
    finally:
        parts.PART_CHARS = saved


def test_a_syntax_error_in_a_later_part_is_the_whole_files(cut):
    set_size, made = cut
    data = ("f(a=a)\n" * 500 + "def broken(:\n" + "g(b=b)\n" * 500).encode()
    whole, in_parts = both("m.py", data, set_size)
    assert whole.record.status == SYNTAX_ERROR
    assert in_parts == whole
    assert made["whole"] == 1


def test_a_pattern_failing_in_a_part_fails_as_in_a_whole_parse(cut):
    set_size, made = cut

    def fails_late(node, parents):
        if node.lineno > 900:
            raise ValueError("late")
        return False

    data = b"f(a=a)\n" * 1000
    whole, in_parts = both("m.py", data, set_size, [kind(fails_late, "late", on=(ast.Call,))])
    assert whole.record.status == PATTERN_ERROR
    assert in_parts == whole


def test_a_pattern_called_on_the_module_sees_the_whole_file(cut):
    set_size, made = cut
    modules = kind(lambda node, parents: len(node.body) == 1000, "modules", "Module", (ast.Module,))
    data = b"f(a=a)\n" * 1000
    whole, in_parts = both("m.py", data, set_size, [modules])
    assert in_parts == whole
    assert [row.line for row in in_parts.occurrences if row.kind == "modules"] == [1]
    assert dict(in_parts.units)["Module"] == 1
    assert made["files"] == 0


def test_lines_are_counted_as_the_records_count_them():
    for text in ("", "a", "a\n", "a\r\nb", "a\rb\r", "a\n\nb\n"):
        assert line_count(text) == count_lines(text.encode())


def test_a_decorated_definition_begins_a_part_with_its_decorator():
    text = "".join("@dataclass(frozen=True)\nclass C%d:\n    a: int = f(a=a)\n\n" % i for i in range(400))
    cut = list(_parts(text, 300))
    assert len(cut) > 20
    # no part was tried again past its size: each holds at most the statements that reach past it
    assert all(padded.lstrip("\n").startswith("@dataclass") for _, padded, _ in cut)
    assert max(len(padded.lstrip("\n")) for _, padded, _ in cut) < 300 + 2 * len(text) // 400


def test_a_large_part_waits_for_another_process_parsing_one(monkeypatch, tmp_path):
    lock = tmp_path / "lock"
    lock.write_bytes(b"")
    with open(lock, "rb") as inherited, open(lock, "rb") as other:
        monkeypatch.setattr(parts, "_shared", None)
        assert parts.share_lock(inherited.fileno())
        monkeypatch.setattr(parts, "LARGE_CHARS", 1000)
        monkeypatch.setattr(parts, "PART_CHARS", 500)
        # statements of 3,000 characters: parts that cannot be cut, and large
        data = ("x = f(" + ", ".join("a%d=a%d" % (i, i) for i in range(300)) + ")\n").encode() * 2
        done = threading.Event()
        found = []
        fcntl.flock(other.fileno(), fcntl.LOCK_EX)
        worker = threading.Thread(target=lambda: (found.append(extract("m.py", data)), done.set()))
        worker.start()
        try:
            # held by another description of the file: the parse waits
            assert not done.wait(0.5)
        finally:
            fcntl.flock(other.fileno(), fcntl.LOCK_UN)
        assert done.wait(30)
        worker.join()
        os.close(parts._shared)
    assert found[0].record.status == OK
    assert sum(1 for row in found[0].occurrences if row.kind == "call") == 600


def test_the_workers_of_a_pool_share_the_lock():
    pool = local.new_pool(1)
    try:
        assert pool.submit(parts.sharing_lock).result(timeout=60)
    finally:
        local.close(pool)
