"""``punstats.rewrite.rewrap`` and ``join``: joining calls that punning made short enough for one line.

The rule is the PEP 736 author's pandas commit's (``rewrap``'s docstring);
each test holds one clause of it.
"""
import pytest

from punstats.rewrite.rewrap import LINE_LENGTH, Join
from punstats.rewrite.transform import pun


def punned(source: str, **kwargs) -> str:
    result = pun(source.encode("utf-8"), **kwargs)
    assert not result.error, result.detail
    return result.new.decode("utf-8")


def test_rewrap_joins_a_call_that_now_fits_despite_a_trailing_comma():
    source = "def f(data, dtype):\n    df = DataFrame(\n        data,\n        dtype=dtype,\n    )\n"
    result = pun(source.encode(), rewrap=True)
    assert result.new.decode() == "def f(data, dtype):\n    df = DataFrame(data, dtype=)\n"
    assert result.lines_saved == 3 and result.diff_counts() == (1, 4) and len(result.joins) == 1
    assert punned(source) == source.replace("dtype=dtype", "dtype=")


def test_rewrap_limit_is_79_characters():
    def source(width):  # the joined line is `width` characters long
        name = "a" * (width - len("    result = function(, keyword_name=)"))
        return "def f():\n    result = function(\n        %s, keyword_name=keyword_name\n    )\n" % name

    assert punned(source(79), rewrap=True).count("\n") == 2
    assert len(punned(source(79), rewrap=True).splitlines()[1]) == 79
    assert punned(source(80), rewrap=True) == source(80).replace("keyword_name=keyword_name", "keyword_name=")
    assert punned(source(88), rewrap=True, line_length=88).count("\n") == 2


@pytest.mark.parametrize("source", [
    "f(\n    a,  # why\n    x=x,\n)\n",  # a comment
    "f(\n    '''a\n    b''',\n    x=x,\n)\n",  # a string over lines
    "f(\n    {\n        'a': 1,\n    },\n    x=x,\n)\n",  # a bracket inside spans lines
    "f(\n    g(y=y),\n    x=x,\n)\n",  # another punned call on its lines
    "(\n    a.b(y=y)\n    .c(\n        x=x\n    )\n)\n",  # shares a line with another punned call
    "f(\n    g(\n        y=1\n    ),\n)\n",  # nothing punned
])
def test_rewrap_leaves_these_alone(source):
    assert punned(source, rewrap=True) == punned(source)


def test_rewrap_inner_call_and_method_chain():
    source = ("x = type(self)(\n    self._rank(\n        axis=axis,\n        method=method,\n    )\n)\n"
              "y = (\n    super()\n    .shift(\n        periods=periods,\n    )\n)\n")
    assert punned(source, rewrap=True) == ("x = type(self)(\n    self._rank(axis=, method=)\n)\n"
                                           "y = (\n    super()\n    .shift(periods=)\n)\n")


def test_rewrap_keeps_a_one_element_tuple_comma():
    source = "f(\n    (\n        1,\n    ),\n    x=x,\n)\nf(\n    t[\n        1,\n    ],\n    x=x,\n)\n"
    assert punned(source, rewrap=True) == source.replace("x=x", "x=")  # nested brackets over lines
    flat = "g(\n    (1,), t[1,], x=x,\n)\n"
    assert punned(flat, rewrap=True) == "g((1,), t[1,], x=)\n"


def test_the_joins_say_which_lines_became_one():
    source = "a = 1\nf(\n    b,\n    x=x,\n)\ng(\n    y=y\n)\n"
    result = pun(source.encode(), rewrap=True)
    assert result.new.decode() == "a = 1\nf(b, x=)\ng(y=)\n"
    first, second = result.joins
    assert isinstance(first, Join) and (first.line, first.end_line, first.lines_saved) == (2, 5, 3)
    assert (first.old, first.new) == ("f(\n    b,\n    x=,\n)\n", "f(b, x=)\n")
    assert (second.line, second.end_line, second.lines_saved) == (6, 8, 2)
    assert result.lines_saved == 5 and LINE_LENGTH == 79


@pytest.mark.parametrize("source", [
    "f(\n    a, \\\n    x=x,\n)\n",  # a backslash continuation
    "f(x=x,\n  y=1)  # why\n",  # a comment on its last line
])
def test_rewrap_leaves_continuations_and_comments_alone(source):
    assert punned(source, rewrap=True) == punned(source)


def test_a_call_on_one_line_is_not_a_join():
    result = pun(b"f(x=x)\ng(a,\n  b)\n", rewrap=True)
    assert result.new == b"f(x=)\ng(a,\n  b)\n" and not result.joins
    assert result.lines_saved == 0


@pytest.mark.parametrize("source, expected", [
    # a punned call on lines of its own inside another punned call is joined (scikit-learn)
    ("g(\n    f(\n        a=1,\n        x=x,\n    ),\n    b,\n    y=y,\n)\n",
     "g(\n    f(a=1, x=),\n    b,\n    y=,\n)\n"),
    # the call's "(" line ends a string spanning lines (numpy's '''...'''.format(...))
    ("s = '''a\nb'''.format(\n    x=x, y=y\n)\n", "s = '''a\nb'''.format(x=, y=)\n"),
    # a bracket opened before the call and closed after it (a comprehension)
    ("v = [a.f(b,\n         x=x)\n     for a in c]\n", "v = [a.f(b, x=)\n     for a in c]\n"),
    # an inner bracket spanning lines without a trailing comma does not block
    ("f([[1, 2],\n   [3, 4]], x=x)\n", "f([[1, 2], [3, 4]], x=)\n"),
    # spacing inside a punned call on one line
    ("f([1,   2,  3], a,b=1, x=x)\n", "f([1, 2, 3], a, b=1, x=)\n"),
    ("f((1,2), axis=(0,1), x=x)\n", "f((1,2), axis=(0,1), x=)\n"),
])
def test_rewrap_as_the_numpy_and_scikit_learn_commits(source, expected):
    assert punned(source, rewrap=True) == expected


def test_rewrap_inner_bracket_with_magic_comma_still_blocks():
    source = "f(\n    {\n        'a': 1,\n    },\n    x=x,\n)\n"
    assert punned(source, rewrap=True) == punned(source)
