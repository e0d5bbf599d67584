"""``punstats.extract.text.SourceText``: the one mapping from ``ast`` positions to the text.

Checked against ``ast.get_source_segment`` and plain string searches, on text
with multi-byte characters and all three line endings.
"""
import ast

from punstats.extract.text import CALLEE_MAX_CHARS, SourceText, line_starts, short_segment, shorten_attribute

TEXT = "é = 1\r\nf(naïve=naïve, x=x)\rg(\n    ü=ü)\n"


def test_offsets_of_every_keyword_are_where_the_text_has_it():
    source = SourceText(TEXT)
    keywords = [k for node in ast.walk(ast.parse(TEXT)) if isinstance(node, ast.Call) for k in node.keywords]
    assert [k.arg for k in keywords] == ["naïve", "x", "ü"]
    for kw in keywords:
        start, end = source.offset(kw.lineno, kw.col_offset), source.offset(kw.end_lineno, kw.end_col_offset)
        assert TEXT[start:end] == "%s=%s" % (kw.arg, kw.arg) == source.segment(kw)
        assert source.segment(kw) == ast.get_source_segment(TEXT, kw)
        assert source.line_col(start) == (kw.lineno, source.char_col(kw.lineno, kw.col_offset))
        assert source.offset_chars(*source.line_col(start)) == start


def test_lines_and_their_starts():
    source = SourceText(TEXT)
    assert source.lines == ["é = 1", "f(naïve=naïve, x=x)", "g(", "    ü=ü)", ""]
    assert source.starts == line_starts(TEXT) == [0, 7, 27, 30, 39]
    assert [source.line_of(offset) for offset in (0, 6, 7, 26, 27, 38, 39)] == [1, 1, 2, 2, 3, 4, 5]


def test_columns_are_characters_and_ascii_is_unchanged():
    source = SourceText(TEXT)
    assert source.char_col(2, len("f(naïve=".encode())) == len("f(naïve=")
    assert SourceText("f(x=x)\n").char_col(1, 4) == 4
    assert source.char_col(99, 3) == 3  # a line the text does not have: the column as given


def test_a_shortened_attribute_keeps_its_name_within_the_limit():
    for length in range(CALLEE_MAX_CHARS - 10, CALLEE_MAX_CHARS + 10):
        text = "v" * (length - len(".format")) + ".format"
        short = shorten_attribute(text, "format")
        assert short == text if length <= CALLEE_MAX_CHARS else short.endswith("\u2026.format")
        assert len(short) == min(length, CALLEE_MAX_CHARS)


def test_an_attribute_name_with_no_room_left_falls_back_to_the_start():
    text = "obj." + "m" * (CALLEE_MAX_CHARS - 2)
    assert shorten_attribute(text, "m" * (CALLEE_MAX_CHARS - 2)) == text[:CALLEE_MAX_CHARS - 1] + "\u2026"
    fits = "m" * (CALLEE_MAX_CHARS - 3)  # room for one character of the value and the ellipsis
    assert shorten_attribute("obj." + fits, fits) == "o\u2026." + fits


def test_a_comment_before_the_attribute_name_falls_back_to_the_start():
    text = "v" * 60 + " .  # why\n  format"
    assert shorten_attribute(text, "format") == "v" * (CALLEE_MAX_CHARS - 1) + "\u2026"


def test_short_segment_keeps_the_name_of_attributes_only():
    text = "(\n  %r\n).format(x=x)\n%s[k](y=y)\n" % ("s" * 70, "d" * 70)
    source = SourceText(text)
    funcs = [node.func for node in ast.walk(ast.parse(text)) if isinstance(node, ast.Call)]
    assert [short_segment(source, func) for func in funcs] == [
        "( '%s\u2026.format" % ("s" * (CALLEE_MAX_CHARS - len("( '.format") - 1)),  # the parenthesis kept
        "d" * (CALLEE_MAX_CHARS - 1) + "\u2026"]
