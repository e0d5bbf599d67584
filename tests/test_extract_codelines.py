"""Lines of code (``FileRecord.code_lines``) against a plain ``tokenize`` count.

The reference tokenizes the whole decoded source (line breaks read as
universal newlines) and counts the lines any token besides comments, line
breaks, indents and the end marker touches, an f-string (from Python 3.12 on
several tokens) counting as one string token from its opening to its closing
quote.  It must agree with the extraction on every fixture and on every parsed
file of the running interpreter's standard library.
"""
import io
import os
import re
import sys
import tokenize

import pytest

from punstats.extract import extract
from punstats.extract.decode import decode_source

_NOT_CODE = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
             tokenize.ENDMARKER}
_OPENING = {getattr(tokenize, n) for n in ("FSTRING_START", "TSTRING_START") if hasattr(tokenize, n)}
_CLOSING = {getattr(tokenize, n) for n in ("FSTRING_END", "TSTRING_END") if hasattr(tokenize, n)}


def reference(data: bytes) -> int:
    """Lines of code by ``tokenize`` over the whole source."""
    text, _ = decode_source(data)
    covered, depth, opened = set(), 0, 0
    normalized = re.sub(r"\r\n|\r", "\n", text)
    for token in tokenize.generate_tokens(io.StringIO(normalized).readline):
        if token.type in _OPENING:
            opened = token.start[0] if not depth else opened
            depth += 1
        elif token.type in _CLOSING:
            depth -= 1
            if not depth:
                covered.update(range(opened, token.end[0] + 1))
        elif token.type not in _NOT_CODE and not depth:
            covered.update(range(token.start[0], token.end[0] + 1))
    return len(covered)


def code_lines(source) -> int:
    data = source.encode("utf-8") if isinstance(source, str) else source
    record = extract("t.py", data).record
    assert record.status == "ok", record.error
    return record.code_lines


CASES = [
    ("empty file", "", 0),
    ("comment-only file", "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n\n# nothing else\n", 0),
    ("blank lines and comments", "\n\nx = 1\n\n    # indented comment\ny = 2  # trailing\n\n", 2),
    ("docstring with blank and # lines", 'def f():\n    """Doc.\n\n    # not a comment\n\n    """\n\n'
     "    return 1\n", 7),
    ("string whose last line starts with #", 'x = """a\n#"""\n', 2),
    ("implicit concatenation across a comment line",
     'x = ("a"\n     # between\n\n     "b"\n     """c\n\n""")\n', 5),
    ("docstring concatenated across a comment", 'def f():\n    ("a"\n     # c\n     """\n\n    b""")\n', 5),
    ("backslash continuation holding tokens", "x = 1 + \\\n    2\n", 2),
    ("line holding only a backslash", "x = (1 +\n     \\\n     2)\n\\\n\ny = 3\n", 3),
    ("string continued by a backslash", "x = 'a\\\n\\\n# b'\n", 3),
    ("form feeds", "\x0c\nx = 1\n\x0c# page\n  \x0c  \ny = 2\x0c\n", 2),
    ("CRLF line breaks", 'x = 1\r\n\r\n"""a\r\n\r\n"""\r\n# c\r\n', 4),
    ("CR line breaks", 'x = 1\r\r"""a\r\r"""\r', 4),
    ("no trailing newline", "x = 1\n\ny = '''a\n\n'''", 4),
    ("no trailing newline after a comment", "x = 1\n# c", 1),
    ("f-string spanning lines", 'x = f"""{1}\n\n# {2}\n"""\ny = (f"a"\n     # c\n     f"b{x}")\n', 6),
    ("bytes and raw strings", 'x = rb"""\n\n"""\ny = Rb"a\\\n"\n', 5),
    ("strings in a def header and decorators", '@d("""\n\n""")\ndef f(a="""\n\n""",\n\n      b=1):\n'
     '    pass\n', 8),
    ("global continued by backslashes", "def f():\n    global a, \\\n    \\\n        b\n", 3),
    ("non-ASCII before a string", 'é = 1; s = """\n\n"""\n', 3),
    ("one-line docstring, then a string spanning lines", 'def f():\n    """Doc."""\n\nX = b"""\n\n"""\n', 5),
    ("a statement after a docstring's last line", 'def f():\n    """a\n    """; x = """\n\n"""\n', 5),
    ("a backslash string after a docstring", "def f():\n    '''a\n    '''; x = 'b\\\n#c'\n", 4),
    ("a docstring holding the other quotes", 'def f():\n    """a \'\'\'\n\n    """\n    return \'\'\'\n\n\'\'\'\n', 7),
    ("strings in except and else", 'try:\n    pass\nexcept E:\n    x = """\n\n"""\nelse:\n    y = """\n\n"""\n',
     10),
]


@pytest.mark.parametrize("source, expected", [case[1:] for case in CASES], ids=[case[0] for case in CASES])
def test_code_lines_of_edge_cases(source, expected):
    data = source.encode("utf-8")
    assert code_lines(data) == expected
    assert reference(data) == expected


@pytest.mark.skipif(sys.version_info < (3, 12), reason="nested quotes in f-strings need Python 3.12")
def test_f_string_with_nested_quotes_and_comments_counts_as_one_string():
    for source, expected in (('x = f"""{\n    "a"  # c\n\n}\n"""\ny = f"{x["k"]}"\n\n', 6),
                             ('z = f"{\n\n# c\n1}"\n', 4),  # a field spanning lines, no triple quotes
                             ('w = f"{f"""{\n\n1}"""}"\n\n', 3),  # nested, both spanning lines
                             ('"""doc\n"""\nq = (f"a{\n\n2}" \n  # c\n  f"b")\n', 6)):
        assert code_lines(source) == reference(source.encode()) == expected


@pytest.mark.skipif(sys.version_info < (3, 10), reason="match needs Python 3.10")
def test_strings_in_match_cases():
    source = 'match x:\n    case 1:\n        y = """\n\n"""\n\n    case _:\n        pass\n'
    assert code_lines(source) == reference(source.encode()) == 7


def test_failed_files_have_no_lines_of_code():
    for data in (b"def f(:\n    pass\n", b"x = 1\0\n", b"\xff\xfe = 1\n"):
        record = extract("bad.py", data).record
        assert record.status != "ok" and record.lines > 0 and record.code_lines == 0


def _stdlib_files():
    root = os.path.dirname(os.__file__)
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in ("site-packages", "dist-packages", "__pycache__"))
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.join(directory, name)


@pytest.mark.slow
def test_code_lines_equal_tokenize_on_the_standard_library():
    compared, differences = 0, []
    for path in _stdlib_files():
        with open(path, "rb") as file:
            data = file.read()
        record = extract(path, data).record
        if record.status != "ok":
            continue
        compared += 1
        expected = reference(data)
        if record.code_lines != expected:
            differences.append((path, record.code_lines, expected))
    assert compared > 1000
    assert differences == []
